"""Write the docs' parameter tables from the parameter records (``make docs-tables``).

Usage::

    .venv/bin/python benchmarks/param_tables.py              # name the pages that differ
    .venv/bin/python benchmarks/param_tables.py --write-docs # rewrite them

The tables sit between ``<!-- params:NAME -->`` and ``<!-- /params:NAME -->`` in
docs/axioms.md, docs/rankers.md and docs/training.md (:mod:`axiomatic.report.params`);
``tests/test_docs_params.py`` fails while a page differs from what the records generate.
Exits 1 without ``--write-docs`` when a page differs.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from axiomatic.report.params import sync_docs

REPO = Path(__file__).resolve().parents[1]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--write-docs", action="store_true", help="rewrite the pages that differ")
    args = ap.parse_args(argv)
    stale = sync_docs(REPO, write=args.write_docs)
    for path in stale:
        verb = "rewrote" if args.write_docs else "differs from the records:"
        print(f"{verb} {path.relative_to(REPO)}")
    if not stale:
        print("the docs' parameter tables agree with the records")
    return 1 if stale and not args.write_docs else 0


if __name__ == "__main__":
    sys.exit(main())
