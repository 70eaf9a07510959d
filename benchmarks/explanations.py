"""Axiomatic explanations (Völske et al. 2021) of real systems; writes ``explanations.md``
(tables), ``img/*.png``, the CSV tables and ``summary.json`` into ``--out`` (default
``outputs/explanations``) and prints a JSON summary; only with ``--write-docs`` does it also
replace ``docs/explanations.md`` and its ``docs/img/`` plots.

Part A: the six TREC DL 2019 systems whose top-100 runs are in the shared data (BM25, BM25+RM3,
SPLADE++, TAS-B, OpenAI ADA2, RepLLaMA; loaded as in ``benchmarks/dl19_diagnosis.py`` from
``trec-dl-2019/union``): all pairs of each run's top-20, and a seeded sample of at most 1,000
pairs per query of its top-100 (larger rank differences, closer to a whole ranking).
Part B: our BM25 and QL re-ranking ``msmarco-dev-top20/test`` (all pairs of the 20 candidates).

Features: every pairwise axiom but LB1 / ORIG / LNC2 (``axiomatic.explain.default_axioms``),
default variants, the thesis analyzer (Rennings 2019, as docs/diagnosis.md). A hand-written
discussion, ``docs/explanations.notes.md``, is appended unchanged when it exists.

    .venv/bin/python benchmarks/explanations.py [--data-root ../shared/data] [--trees 100]
        [--out outputs/explanations] [--write-docs]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
DL19_SYSTEMS = {
    "bm25": "BM25",
    "bm25-rm3": "BM25+RM3",
    "splade-pp": "SPLADE++",
    "tasb": "TAS-B",
    "ada2": "OpenAI ADA2",
    "repllama": "RepLLaMA",
}


def _cpu() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--data-root", default=str(REPO.parent / "shared" / "data"))
    ap.add_argument("--trees", type=int, default=100)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", type=Path, default=REPO / "outputs" / "explanations")
    ap.add_argument(
        "--write-docs",
        action="store_true",
        help="also replace docs/explanations.md and its docs/img plots in the checkout",
    )
    args = ap.parse_args()
    args.work = args.out
    docs_md = REPO / "docs" / "explanations.md"

    import torch

    torch.set_num_threads(1)
    from axiomatic.data.catalog import load_dataset
    from axiomatic.explain import explain, markdown_section, plot_explanation
    from axiomatic.index.cache import dataset_index
    from axiomatic.rankers.lexical import BM25Ranker, QLRanker
    from axiomatic.text.analyzer import parse_analyzer

    an = parse_analyzer("thesis")
    load_start = os.getloadavg()[0]
    t_all = time.perf_counter()
    parts = []

    # ---------------------------------------------------------------- A: DL19 runs
    dl19 = load_dataset("trec-dl-2019/union", data_root=args.data_root)
    idx = dataset_index(dl19, analyzer=an)
    runs = {
        DL19_SYSTEMS[k]: dl19.metadata["runs"][k]
        for k in DL19_SYSTEMS
        if k in dl19.metadata["runs"]
    }
    for depth, max_pairs in ((20, None), (100, 1000)):
        t = time.perf_counter()
        expl = explain(
            dl19,
            runs,
            index=idx,
            depth=depth,
            n_estimators=args.trees,
            seed=args.seed,
            max_pairs=max_pairs,
        )
        parts.append(
            {
                "key": f"dl19_top{depth}",
                "title": f"TREC DL 2019, six systems, top-{depth}"
                + (
                    f" (at most {max_pairs} sampled pairs per query)"
                    if max_pairs
                    else " (all pairs)"
                ),
                "expl": expl,
                "seconds": round(time.perf_counter() - t, 1),
            }
        )
        print(f"[explanations] DL19 top-{depth}: {parts[-1]['seconds']} s", file=sys.stderr)

    # ---------------------------------------------------------------- B: MS MARCO dev
    ms = load_dataset("msmarco-dev-top20/test", data_root=args.data_root)
    midx = dataset_index(ms, analyzer=an)
    t = time.perf_counter()
    expl = explain(
        ms,
        {"BM25 (ours)": BM25Ranker(midx), "QL (ours)": QLRanker(midx)},
        index=midx,
        depth=20,
        n_estimators=args.trees,
        seed=args.seed,
    )
    parts.append(
        {
            "key": "msmarco_dev_top20",
            "title": "MS MARCO dev (msmarco-dev-top20/test), BM25 and QL re-ranking the 20 candidates (all pairs)",
            "expl": expl,
            "seconds": round(time.perf_counter() - t, 1),
        }
    )
    wall = time.perf_counter() - t_all

    # ---------------------------------------------------------------- outputs
    args.work.mkdir(parents=True, exist_ok=True)
    img = args.out / "img"
    img.mkdir(parents=True, exist_ok=True)
    summary = {}
    sections = []
    for p in parts:
        e = p["expl"]
        for attr in ("summary", "by_rank", "by_score", "importances"):
            getattr(e, attr).to_csv(args.work / f"{p['key']}_{attr}.csv", index=False)
        png = plot_explanation(e, args.work / f"explanations_{p['key']}.png")
        shutil.copyfile(png, img / png.name)
        sections.append(markdown_section(e, f"img/{png.name}", title=p["title"]))
        sections.append(f"Wall time of this part: {p['seconds']} s.\n")
        summary[p["key"]] = {
            r["system"]: {
                "fidelity": round(r["fidelity"], 4),
                "ci": [round(r["ci_low"], 4), round(r["ci_high"], 4)],
                "random": round(r["random_fidelity"], 4),
                "pairs": int(r["pairs"]),
                "top_axioms": r["top_axioms"],
            }
            for _, r in e.summary.iterrows()
        }
    import sklearn

    head = [
        "# Axiomatic explanations of rankers (Völske et al. 2021)",
        "",
        "Generated by `benchmarks/explanations.py --write-docs` (do not edit by hand; rerun "
        "it). API: "
        "`axiomatic.explain.explain`; CLI: `axiomatic explain --dataset D --ranker R "
        "[--run FILE] --out DIR`.",
        "",
        "Method: for each query, every pair of the system's top-k documents with different "
        "scores, oriented at random (seeded), is described by the ternary preference (+1 / 0 / -1) "
        "of each pairwise axiom (every catalogue axiom but LB1 and ORIG, which read the system's "
        "own scores, and LNC2, which needs artificial duplicates; TFC2 is a triple axiom); a random "
        "forest learns the system's order from these features on 4/5 of the queries and predicts "
        "it for the other 1/5 (5 query-grouped folds). **Fidelity** = accuracy of those held-out "
        "predictions. The random baseline runs the same pipeline on the same pairs ordered by a "
        "seeded random ranking. Völske et al. report fidelity .59-.78 (MS MARCO passage / "
        "document, Robust04).",
        "",
        f"- machine: {_cpu()}, {os.cpu_count()} CPUs shared with other jobs (load average "
        f"{load_start:.2f} at the start, {os.getloadavg()[0]:.2f} at the end); one thread; "
        f"python {platform.python_version()}, scikit-learn {sklearn.__version__}",
        f"- budget: {wall:.0f} s wall for everything below ({args.trees} trees, seed {args.seed}); "
        "analyzer: thesis (Rennings 2019 sec. 3.4.1)",
        "",
        "Fidelity per system (95% interval by query bootstrap; random = random-ranking baseline):",
        "",
        "| setting | system | pairs | fidelity | 95% CI | random | top axioms |",
        "|---|---|---|---|---|---|---|",
    ]
    for key, rows in summary.items():
        for system, r in rows.items():
            head.append(
                f"| {key} | {system} | {r['pairs']} | {r['fidelity']:.3f} | "
                f"{r['ci'][0]:.3f}-{r['ci'][1]:.3f} | {r['random']:.3f} | {r['top_axioms']} |"
            )
    text = "\n".join(head) + "\n\n" + "\n".join(sections)
    notes = docs_md.with_name(docs_md.stem + ".notes.md")
    if notes.exists():
        text += "\n" + notes.read_text(encoding="utf-8")
    (args.out / "explanations.md").write_text(text, encoding="utf-8")
    if args.write_docs:
        docs_md.write_text(text, encoding="utf-8")
        for png in sorted(img.glob("*.png")):
            shutil.copyfile(png, docs_md.parent / "img" / png.name)
    out = {"wall_seconds": round(wall, 1), "load_average_start": load_start, "fidelity": summary}
    (args.work / "summary.json").write_text(json.dumps(out, indent=1), encoding="utf-8")
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
