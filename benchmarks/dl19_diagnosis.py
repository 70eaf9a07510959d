"""Axiomatic diagnosis of real systems: TREC DL 2019 runs, and BM25/QL/RM3 on MS MARCO dev.

Writes ``docs/diagnosis.md`` (markdown tables) and ``docs/img/*.png``, prints a JSON summary.

Part A: the six TREC DL 2019 systems whose top-100 runs are in the shared data (BM25, BM25+RM3,
SPLADE++, TAS-B, OpenAI ADA2, RepLLaMA) are diagnosed from their run files on instances mined
from the union of their candidate lists (``trec-dl-2019/union``), next to their nDCG@10, AP and
RR@10 (grade >= 2 relevant for binary measures). A document a system did not retrieve ranks
below every document it did (``missing="below"``); pairs of two unretrieved documents are
skipped. Run files cannot score artificial documents, so LNC2 is diagnosed only for our own BM25
(re-ranking the union pool) and the qrels oracle.

Part B: BM25 / QL / RM3 re-rank ``msmarco-dev-top20/test``; TFC1, TFC2 and M-TDC in their strict,
extended and relaxed variants plus LNC2 (layout of Rennings 2019, Table 4.6).

Tractability: mining is cheap (array kernels) but the relaxed axioms with delta_rel=1.0 yield
tens of thousands of pairs (and TFC2 triples) per DL19 query. We mine every instance (one shard
per query, resumable), then keep a seeded uniform sample of at most ``--cap`` instances per query
and axiom (default 1000). Everything lands in ``--work`` (resumable: finished mining shards are
skipped).

    .venv/bin/python benchmarks/dl19_diagnosis.py [--data-root ../shared/data] [--cap 1000]
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow.parquet as pq

REPO = Path(__file__).resolve().parents[1]

DL19_SYSTEMS = {
    "bm25": "BM25",
    "bm25-rm3": "BM25+RM3",
    "splade-pp": "SPLADE++",
    "tasb": "TAS-B",
    "ada2": "OpenAI ADA2",
    "repllama": "RepLLaMA",
}
DL19_AXIOMS = "TFC1(delta_rel=1.0),TFC2(delta_rel=1.0),M-TDC(delta_rel=1.0),LNC2"
MSMARCO_AXIOMS = (
    ",".join(
        f"{ax}(variant='{v}')"
        for ax in ("TFC1", "TFC2", "M-TDC")
        for v in ("strict", "extended", "relaxed")
    )
    + ",LNC2"
)
MEASURES = ["nDCG@10", "AP", "RR@10"]
OURS = "BM25 (ours)"
MIN_N = 30


def sample_instances(directory: Path, cap: int | None, seed: int) -> pd.DataFrame:
    """All mined instances, or a seeded uniform sample of <= cap per (query, spec), read shard by
    shard so that memory stays that of one shard."""
    from axiomatic.diagnose.mining import INSTANCE_SCHEMA

    frames = []
    rng = np.random.default_rng(seed)
    for shard in sorted(directory.glob("shard-*.parquet")):
        df = pq.read_table(shard, schema=INSTANCE_SCHEMA).to_pandas()
        if cap is not None and len(df):
            key = df["query_id"] + "\x1f" + df["spec"]
            r = rng.random(len(df))
            rank = pd.Series(r).groupby(key.to_numpy()).rank(method="first").to_numpy()
            df = df[rank <= cap]
        frames.append(df)
    df = pd.concat(frames, ignore_index=True)
    for c in ("rel_a", "rel_b", "rel_c"):
        df[c] = df[c].astype("Int64")
    return df


def mine_dir(ds, axioms: str, out: Path, index) -> dict:
    from axiomatic.diagnose.mining import mine

    t = time.perf_counter()
    summary = mine(ds, axioms, out, index=index, shard_size=1, progress=False)
    summary["wall_s"] = round(time.perf_counter() - t, 2)
    # A resumed run re-uses finished shards: keep the timing of the run that mined them.
    timing = out / "bench_mining_timing.json"
    if summary["shards_skipped"] == 0:
        timing.write_text(json.dumps({"wall_s": summary["wall_s"]}), encoding="utf-8")
        summary["fresh"] = True
    elif timing.is_file():
        summary["wall_s"] = json.loads(timing.read_text(encoding="utf-8"))["wall_s"]
        summary["fresh"] = False
    from axiomatic.axioms import parse_axioms

    summary["empty"] = [
        a.spec for a in parse_axioms(axioms) if not summary["per_axiom"].get(a.spec)
    ]
    return summary


def artificial_table(directory: Path) -> pd.DataFrame | None:
    p = directory / "artificial_docs.parquet"
    return pd.read_parquet(p) if p.is_file() else None


def part_dl19(args, work: Path, img: Path) -> dict:
    from axiomatic.data.catalog import load_dataset
    from axiomatic.diagnose.diagnosis import diagnose
    from axiomatic.index.cache import dataset_index
    from axiomatic.rankers.base import rerank
    from axiomatic.rankers.lexical import BM25Ranker
    from axiomatic.rankers.runfile import RunFileRanker
    from axiomatic.report.tables import effectiveness_table
    from axiomatic.report.writer import write_report

    ds = load_dataset("trec-dl-2019/union", data_root=args.data_root)
    index = dataset_index(ds)
    inst_dir = work / "dl19-instances"
    t0 = time.perf_counter()
    mined = mine_dir(ds, DL19_AXIOMS, inst_dir, index)
    inst = sample_instances(inst_dir, args.cap, args.seed)
    runs_meta = ds.metadata["runs"]
    rankers = {
        DL19_SYSTEMS[s]: RunFileRanker(runs_meta[s], name=DL19_SYSTEMS[s])
        for s in DL19_SYSTEMS
        if s in runs_meta
    }
    ours = BM25Ranker(index)
    rankers[OURS] = ours
    t1 = time.perf_counter()
    diag = diagnose(inst, rankers, ds, artificial_table(inst_dir), oracle=True, missing="below")
    t_diag = time.perf_counter() - t1
    runs = {DL19_SYSTEMS[s]: runs_meta[s] for s in DL19_SYSTEMS if s in runs_meta}
    runs[OURS] = rerank(ours, ds)
    eff = effectiveness_table(
        runs, ds.qrels, MEASURES, baseline="BM25", rel_threshold=ds.rel_threshold
    )
    report_dir = work / "dl19-report"
    paths = write_report(
        diag,
        eff,
        report_dir,
        title="TREC DL 2019: axiomatic diagnosis of six systems",
        measure="nDCG@10",
        baseline="BM25",
        notes=[
            f"Instances: seeded sample of at most {args.cap} per query and axiom "
            f"(seed {args.seed}) from {mined['instances']:,} mined."
        ],
    )
    for key, name in (
        ("bars_png", "dl19_bars.png"),
        ("delta_sweep_png", "dl19_delta_sweep.png"),
        ("delta_diff_png", "dl19_delta_diff.png"),
        ("correlation_png", "dl19_correlation.png"),
    ):
        if key in paths:
            shutil.copyfile(paths[key], img / name)
    return {
        "diag": diag,
        "eff": eff,
        "mined": mined,
        "sampled": len(inst),
        "diagnose_s": round(t_diag, 2),
        "total_s": round(time.perf_counter() - t0, 2),
        "report": str(paths["html"]),
    }


def part_msmarco(args, work: Path, img: Path) -> dict:
    from axiomatic.data.catalog import load_dataset
    from axiomatic.diagnose.diagnosis import diagnose
    from axiomatic.index.cache import dataset_index
    from axiomatic.rankers.base import rerank
    from axiomatic.rankers.lexical import BM25Ranker, QLRanker, RM3Ranker
    from axiomatic.report.tables import effectiveness_table
    from axiomatic.report.writer import write_report

    ds = load_dataset("msmarco-dev-top20/test", data_root=args.data_root)
    index = dataset_index(ds)
    inst_dir = work / "msmarco-instances"
    t0 = time.perf_counter()
    mined = mine_dir(ds, MSMARCO_AXIOMS, inst_dir, index)
    inst = sample_instances(inst_dir, args.cap, args.seed)
    rankers = {"BM25": BM25Ranker(index), "QL": QLRanker(index), "RM3": RM3Ranker(index)}
    t1 = time.perf_counter()
    diag = diagnose(inst, rankers, ds, artificial_table(inst_dir), oracle=True)
    t_diag = time.perf_counter() - t1
    runs = {name: rerank(r, ds) for name, r in rankers.items()}
    eff = effectiveness_table(
        runs, ds.qrels, MEASURES, baseline="BM25", rel_threshold=ds.rel_threshold
    )
    paths = write_report(
        diag,
        eff,
        work / "msmarco-report",
        title="MS MARCO dev (test split): BM25 / QL / RM3",
        baseline="BM25",
    )
    for key, name in (
        ("bars_png", "msmarco_bars.png"),
        ("delta_sweep_png", "msmarco_delta_sweep.png"),
    ):
        if key in paths:
            shutil.copyfile(paths[key], img / name)
    return {
        "diag": diag,
        "eff": eff,
        "mined": mined,
        "sampled": len(inst),
        "diagnose_s": round(t_diag, 2),
        "total_s": round(time.perf_counter() - t0, 2),
        "report": str(paths["html"]),
    }


def _counts_table(diag) -> pd.DataFrame:
    from axiomatic.report.tables import group_labels

    labels = group_labels(diag)
    t = diag.table()
    per = diag.instances.groupby("spec", sort=False).agg(
        instances=("query_id", "size"), queries=("query_id", "nunique")
    )
    skipped = t.pivot_table(
        index="spec", columns="ranker", values="skipped", aggfunc="first", sort=False
    )
    per["max skipped (a ranker)"] = skipped.max(axis=1).reindex(per.index).astype(int)
    per.index = [labels.get(s, s) for s in per.index]
    per.index.name = "axiom"
    return per


def _resumed(res: dict) -> str:
    if res["mined"].get("fresh", True):
        return ""
    return " (this run resumed the mined shards; mining time is that of the run that mined them)"


def _finding(corr: pd.DataFrame) -> str:
    row = corr[corr["spec"] == "mean"]
    if row.empty or np.isnan(row.iloc[0]["pearson"]):
        return ""
    r = row.iloc[0]
    sign = "negative" if r["pearson"] < 0 else "positive"
    return (
        f"Across the {int(r['n'])} systems, the mean fulfilment over the axioms correlates with "
        f"nDCG@10 at Pearson r = {r['pearson']:.2f} (Kendall τ = {r['kendall']:.2f}, p = "
        f"{r['kendall_p']:.3f}): a {sign} relation. "
        + (
            "The lexical systems order these instances as the term-frequency axioms prescribe "
            "far more often, while the neural systems are far more effective: the same sign as "
            "Rennings (2019) found on MS MARCO (r = -0.36 with MAP, section 4.2.2), where "
            "TFC1 and M-TDC did not diagnose effectiveness either."
            if r["pearson"] < 0
            else "Systems that satisfy the axioms more often are also more effective here."
        )
    )


def write_markdown(a: dict | None, b: dict | None, args, out: Path) -> None:
    from axiomatic.report.tables import (
        effectiveness_wide,
        overview_frame,
        to_markdown,
        variant_frame,
    )

    cmd = (
        "`.venv/bin/python benchmarks/dl19_diagnosis.py"
        + (f" --cap {args.cap}" if args.cap != 1000 else "")
        + "`"
    )
    lines = [
        "# Axiomatic diagnosis of real systems",
        "",
        f"Generated by {cmd} (do not edit by hand). Method: Rennings (2019), chapter 4 —",
        "the fraction of diagnostic instances (document pairs, TFC2 triples) whose prescribed",
        "order a ranker's scores respect. ▲/▼: significantly better/worse than BM25 (measures:",
        "paired t-test; axioms: McNemar; Holm-corrected, p < 0.05). Intervals, McNemar tables,",
        "relevance breakdowns and δ* sweeps are in each HTML/CSV report.",
        "",
        "## How to run a diagnosis",
        "",
        "```bash",
        'axiomatic mine --dataset demo --axioms "TFC1,TFC2,M-TDC,LNC2" --variant relaxed --out inst/',
        "axiomatic diagnose --instances inst/ --ranker bm25 --ranker ql --run my.trec --out rep/",
        "```",
        "",
        "```python",
        "from axiomatic.data.catalog import load_dataset",
        "from axiomatic.diagnose.mining import mine, read_instances",
        "from axiomatic.diagnose.diagnosis import diagnose",
        "from axiomatic.rankers.base import rerank",
        "from axiomatic.rankers.registry import make_ranker",
        "from axiomatic.report.tables import effectiveness_table, print_tables",
        "from axiomatic.report.writer import write_report",
        "",
        'ds = load_dataset("demo")',
        'mine(ds, "TFC1,TFC2,M-TDC,LNC2", "inst/")',
        'instances, artificial = read_instances("inst/")',
        'rankers = [make_ranker("bm25", ds), make_ranker("ql", ds)]',
        "diag = diagnose(instances, rankers, ds, artificial, oracle=True)",
        "diag.table(); diag.by_relevance(); diag.mcnemar(); diag.delta_sweep()",
        "eff = effectiveness_table({r.name: rerank(r, ds) for r in rankers}, ds.qrels,",
        '                          ["nDCG@10", "AP"])',
        "print_tables(diag, eff)",
        'write_report(diag, eff, "rep/")  # CSV, JSON, PNG, report.html',
        "```",
        "",
        "`diagnose` scores each query's distinct documents once per ranker (one batched "
        "`score` call) and evaluates all instances with array operations. Relations: `>` "
        "(a tie violates), `>=` (a tie fulfils), `diff>` (TFC2 triples, strict). Rankers that "
        "only know a run (`RunFileRanker`) skip instances on artificial documents; documents "
        'missing from a run are skipped (`missing="skip"`) or ranked below the retrieved '
        'ones (`missing="below"`). Every skip is counted per ranker and reported. Intervals: '
        "95% Wilson; McNemar: exact binomial under 25 discordant pairs, else χ² with continuity "
        "correction, Holm-corrected over the ranker pairs of each axiom; δ* sweep: Rennings "
        "(2019) section 4.3.1 (LNC2 and artificial documents left out).",
        "",
    ]
    if a is not None:
        diag, eff = a["diag"], a["eff"]
        lines += [
            "## TREC DL 2019: six systems from their run files",
            "",
            "Instances mined from the union of the six top-100 candidate lists "
            f"(`trec-dl-2019/union`, 43 queries) with `{DL19_AXIOMS}`: the relaxed axioms with "
            "δ* = 1.0 (no length constraint), so that the δ* sweep below can tighten it. "
            f"{a['mined']['instances']:,} instances were mined; a seeded uniform sample of at most "
            f"{args.cap} per query and axiom ({a['sampled']:,} instances) is diagnosed. A document "
            "a system did not retrieve counts as ranked below all it retrieved; pairs of two "
            "unretrieved documents (and triples with one) are skipped, so each system is judged "
            "on the instances its run can order (counts below). Run files cannot score "
            "artificial documents: for them LNC2 covers only the few real near-duplicate "
            f"documents of the pool (shown with (n=…) when under {MIN_N} instances); LNC2 on "
            "the artificial duplicates is measured for our own BM25 and the oracle. "
            f"`{OURS}` (k1=0.9, b=0.4, Snowball, stopwords) re-ranks the union pool with the "
            "pool's own statistics (its idf is not that of the 8.8M-passage corpus, hence a "
            "lower nDCG@10 than Anserini's BM25). The `oracle` scores by qrels (unjudged = 0): "
            "a tie violates a strict `>` instance, and most pairs here are unjudged or equally "
            "judged, which is why its TFC1/TFC2 fulfilment is low; see the relevance breakdown "
            "in the HTML report. Effectiveness: grade ≥ 2 relevant for AP and RR@10.",
            "",
            to_markdown(overview_frame(diag, eff, baseline="BM25", min_n=MIN_N)),
            "",
            "Instances per axiom (skipped: the most any ranker could not order):",
            "",
            to_markdown(_counts_table(diag)),
            "",
        ]
        corr = diag.correlation(effectiveness_wide(eff), "nDCG@10")
        show = corr[["spec", "n", "pearson", "pearson_p", "spearman", "kendall", "kendall_p"]]
        show = show.assign(
            spec=show["spec"].map(lambda s: "mean over axioms" if s == "mean" else s)
        ).set_index("spec")
        lines += [
            "Correlation across systems of axiomatic performance with nDCG@10 (thesis Fig. 4.2; "
            "the oracle is left out):",
            "",
            to_markdown(show.map(lambda v: f"{v:.3f}" if isinstance(v, float) else v)),
            "",
            _finding(corr),
            "",
            "![fulfilment per axiom](img/dl19_bars.png)",
            "",
            "![delta sweep](img/dl19_delta_sweep.png)",
            "",
            "![difference from the smallest delta](img/dl19_delta_diff.png)",
            "",
            "![correlation](img/dl19_correlation.png)",
            "",
            f"Timing (2 shared cores): mining {a['mined']['wall_s']} s "
            f"({a['mined']['pairs_examined']:,} pairs/triples examined), diagnosis of "
            f"{len(diag.rankers)} rankers {a['diagnose_s']} s, part total {a['total_s']} s"
            f"{_resumed(a)}.",
            "",
        ]
    if b is not None:
        diag, eff = b["diag"], b["eff"]
        lines += [
            "## MS MARCO dev (test split, 200 queries × BM25 top-20): BM25, QL, RM3",
            "",
            "TFC1, TFC2 and M-TDC in their original (strict), extended and relaxed "
            "(δ* ≤ 0.1) variants, and LNC2 (layout of Rennings 2019, Table 4.6). "
            f"{b['mined']['instances']:,} instances mined; {b['sampled']:,} diagnosed (at most "
            f"{args.cap} per query and axiom). Cells: % fulfilled (instances). No instances "
            f"were found for: {', '.join(b['mined']['empty']) or 'none'}.",
            "",
            to_markdown(variant_frame(diag, with_counts=True)),
            "",
            to_markdown(overview_frame(diag, eff, baseline="BM25", min_n=MIN_N)),
            "",
            "![fulfilment per axiom](img/msmarco_bars.png)",
            "",
            "![delta sweep](img/msmarco_delta_sweep.png)",
            "",
            f"Timing: mining {b['mined']['wall_s']} s, diagnosis {b['diagnose_s']} s, part "
            f"total {b['total_s']} s{_resumed(b)}.",
            "",
        ]
    out.write_text("\n".join(lines), encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--data-root", default=None)
    p.add_argument(
        "--work", type=Path, default=Path(tempfile.gettempdir()) / "axiomatic-dl19-diagnosis"
    )
    p.add_argument(
        "--cap", type=int, default=1000, help="max instances per query and axiom (seeded sample)"
    )
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--docs", type=Path, default=REPO / "docs" / "diagnosis.md")
    p.add_argument("--parts", default="dl19,msmarco")
    args = p.parse_args(argv)
    parts = set(args.parts.split(","))
    args.work.mkdir(parents=True, exist_ok=True)
    img = args.docs.parent / "img"
    img.mkdir(parents=True, exist_ok=True)
    a = part_dl19(args, args.work, img) if "dl19" in parts else None
    b = part_msmarco(args, args.work, img) if "msmarco" in parts else None
    write_markdown(a, b, args, args.docs)
    summary = {}
    for name, res in (("dl19", a), ("msmarco", b)):
        if res is None:
            continue
        t = res["diag"].table()
        summary[name] = {
            "instances_mined": res["mined"]["instances"],
            "instances_diagnosed": res["sampled"],
            "mining_s": res["mined"]["wall_s"],
            "diagnose_s": res["diagnose_s"],
            "total_s": res["total_s"],
            "report": res["report"],
            "fraction": {
                f"{r.ranker} | {r.spec}": None
                if np.isnan(r.fraction)
                else round(float(r.fraction), 4)
                for r in t.itertuples()
            },
        }
    json.dump(summary, sys.stdout, indent=2)
    print()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
