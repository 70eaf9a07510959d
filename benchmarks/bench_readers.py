"""Cold load time of every available catalog dataset (parsing included), printed as JSON.

    .venv/bin/python benchmarks/bench_readers.py [--data-root PATH] [--pattern GLOB]

One line of JSON: per dataset the seconds to load it with every cache cleared first (so shared
parses are counted for each name), its counts, and the total. XQuAD pairs are sampled (en-* only)
unless --pattern says otherwise.
"""

from __future__ import annotations

import argparse
import json
import platform
import time


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-root", default=None)
    parser.add_argument("--pattern", default=None, help="glob over catalog names")
    args = parser.parse_args()

    from axiomatic.data import catalog

    results = []
    total = 0.0
    for info in catalog.list_datasets(args.data_root, pattern=args.pattern):
        if not info.available:
            continue
        if (
            args.pattern is None
            and info.name.startswith("xquad-clir/")
            and not (info.name.startswith("xquad-clir/en-"))
        ):
            continue
        catalog.clear_cache()
        t0 = time.perf_counter()
        ds = catalog.load_dataset(info.name, args.data_root)
        dt = time.perf_counter() - t0
        total += dt
        results.append({"name": info.name, "seconds": round(dt, 4), **ds.counts()})
    print(
        json.dumps(
            {
                "benchmark": "catalog cold load",
                "machine": platform.processor() or platform.machine(),
                "python": platform.python_version(),
                "datasets": results,
                "n": len(results),
                "total_seconds": round(total, 3),
                "max": max(results, key=lambda r: r["seconds"]) if results else None,
            }
        )
    )


if __name__ == "__main__":
    main()
