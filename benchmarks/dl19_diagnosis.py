"""Axiomatic diagnosis of real systems: TREC DL 2019 runs, and BM25/QL/RM3 on MS MARCO dev.

Writes ``diagnosis.md`` (markdown tables), ``img/*.png`` and the HTML/CSV reports into
``--out`` (default ``outputs/dl19-diagnosis``) and prints a JSON summary; only with
``--write-docs`` does it also replace ``docs/diagnosis.md`` and its ``docs/img/*.png``.

Text processing: the thesis analyzer (Rennings 2019, section 3.4.1: Snowball stemming, no
stopword removal, alphanumeric tokens; ``axiomatic.text.analyzer.parse_analyzer("thesis")``) for
the mining, the index and our own BM25/QL/RM3. Length tolerance: the relaxed axioms at
delta* = 1.0 (no length limit), the setting of the thesis' Tables 4.5/4.6; the delta* sweep
tightens it.

Part A: the six TREC DL 2019 systems whose top-100 runs are in the shared data (BM25, BM25+RM3,
SPLADE++, TAS-B, OpenAI ADA2, RepLLaMA) are diagnosed from their run files on instances mined
from the union of their candidate lists (``trec-dl-2019/union``), next to their nDCG@10, AP and
RR@10 (grade >= 2 relevant for binary measures), in two views: **own list** (only instances whose
documents are all in the system's own top-100: how it ordered what it retrieved) and **union** (a
document the system did not retrieve ranks below all it did: retrieval and ordering mixed).
Run files cannot score artificial documents, so LNC2 is diagnosed only for our own BM25
(re-ranking the union pool) and the qrels oracle. Correlations with nDCG@10: Spearman / Kendall
with p-values first, the number of systems, and the picture within the lexical and the neural
cluster. Our BM25 against the BM25 run is compared on DL 2019 and DL 2021.

Part B: BM25 / QL / RM3 re-rank ``msmarco-dev-top20/test``; TFC1, TFC2 and M-TDC in their strict,
extended and relaxed (delta* = 1.0) variants plus LNC2 (layout of Rennings 2019, Table 4.6).

Part C: how often TFC1 and M-TDC prefer the relevant passage (``R>N``) rather than the
non-relevant one (``N>R``) on all 600 ``msmarco-dev-top20`` queries (relaxed, delta* = 0.1, as
docs/axioms.md counts them), under the thesis and the default (stopword-removing) analyzer:
counts, the share R>N among the two with a 95% Wilson interval, and a binomial test.

Tractability: the relaxed axioms at delta* = 1.0 yield tens of thousands of pairs (and TFC2
triples) per DL19 query. The miner keeps a seeded uniform sample of at most ``--cap`` instances
per query and axiom (``mine(max_instances_per_query=cap, seed=seed)``; default 1000) and records
the uncapped counts. Everything lands in ``--work`` (resumable: finished shards are skipped).

    .venv/bin/python benchmarks/dl19_diagnosis.py [--data-root ../shared/data] [--cap 1000]
        [--out outputs/dl19-diagnosis] [--write-docs]
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

from axiomatic.data.instances import artificial_file_path
from axiomatic.report.tables import MIN_N  # fewest instances a fraction needs to be counted

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
        f"{ax}(variant='{v}'" + (", delta_rel=1.0)" if v == "relaxed" else ")")
        for ax in ("TFC1", "TFC2", "M-TDC")
        for v in ("strict", "extended", "relaxed")
    )
    + ",LNC2"
)
MEASURES = ["nDCG@10", "AP", "RR@10"]
OURS = "BM25 (ours)"
ANALYZER = "thesis"
LEXICAL = ["BM25", "BM25+RM3", OURS]
NEURAL = ["SPLADE++", "TAS-B", "OpenAI ADA2", "RepLLaMA"]


def analyzer(name: str = ANALYZER):
    from axiomatic.text.analyzer import parse_analyzer

    return parse_analyzer(name)


def mine_dir(ds, axioms: str, out: Path, index, cap: int | None, seed: int, **kw) -> dict:
    """Mine (resumable) with a seeded uniform cap per query and axiom; timing of the run that
    mined the shards is kept when a later run resumes them."""
    from axiomatic.axioms import parse_axioms
    from axiomatic.diagnose.mining import mine

    t = time.perf_counter()
    summary = mine(
        ds,
        axioms,
        out,
        index=index,
        progress=False,
        max_instances_per_query=cap,
        seed=seed,
        overwrite=True,
        **kw,
    )
    summary["wall_s"] = round(time.perf_counter() - t, 2)
    timing = out / "bench_mining_timing.json"
    if summary["shards_skipped"] == 0:
        timing.write_text(json.dumps({"wall_s": summary["wall_s"]}), encoding="utf-8")
        summary["fresh"] = True
    elif timing.is_file():
        summary["wall_s"] = json.loads(timing.read_text(encoding="utf-8"))["wall_s"]
        summary["fresh"] = False
    summary["uncapped"] = int(sum(summary["per_axiom_uncapped"].values()))
    summary["empty"] = [
        a.spec for a in parse_axioms(axioms) if not summary["per_axiom"].get(a.spec)
    ]
    return summary


def artificial_table(directory: Path) -> pd.DataFrame | None:
    p = artificial_file_path(directory)
    return pd.read_parquet(p) if p.is_file() else None


def load_instances(directory: Path) -> pd.DataFrame:
    from axiomatic.data.instances import read_instances

    return read_instances(directory)[0]


def ours_vs_run(args, year: int, an) -> dict:
    """nDCG@10 of the Anserini BM25 run and of our BM25 re-ranking the union pool."""
    from axiomatic.data.catalog import load_dataset
    from axiomatic.index.cache import dataset_index
    from axiomatic.rankers.base import rerank
    from axiomatic.rankers.lexical import BM25Ranker
    from axiomatic.report.tables import RANKER, effectiveness_table, effectiveness_wide

    ds = load_dataset(f"trec-dl-{year}/union", data_root=args.data_root)
    ours = BM25Ranker(dataset_index(ds, analyzer=an))
    runs = {"BM25": ds.metadata["runs"]["bm25"], OURS: rerank(ours, ds)}
    eff = effectiveness_table(runs, ds.qrels, ["nDCG@10"], baseline="BM25", rel_threshold=2)
    w = effectiveness_wide(eff)
    row = eff.set_index(RANKER).loc[OURS]
    return {
        "year": year,
        "queries": len(ds.queries),
        "run": float(w.loc["BM25", "nDCG@10"]),
        "ours": float(w.loc[OURS, "nDCG@10"]),
        "p": float(row["pvalue"]),
    }


def part_dl19(args, work: Path, img: Path) -> dict:
    from axiomatic.data.catalog import load_dataset
    from axiomatic.diagnose.diagnosis import diagnose
    from axiomatic.index.cache import dataset_index
    from axiomatic.rankers.base import rerank
    from axiomatic.rankers.lexical import BM25Ranker
    from axiomatic.rankers.runfile import RunFileRanker
    from axiomatic.report.tables import effectiveness_table
    from axiomatic.report.writer import write_report

    an = analyzer()
    ds = load_dataset("trec-dl-2019/union", data_root=args.data_root)
    index = dataset_index(ds, analyzer=an)
    inst_dir = work / "dl19-instances"
    t0 = time.perf_counter()
    mined = mine_dir(ds, DL19_AXIOMS, inst_dir, index, args.cap, args.seed, shard_size=1)
    inst = load_instances(inst_dir)
    runs_meta = ds.metadata["runs"]
    rankers = {
        DL19_SYSTEMS[s]: RunFileRanker(runs_meta[s], name=DL19_SYSTEMS[s])
        for s in DL19_SYSTEMS
        if s in runs_meta
    }
    ours = BM25Ranker(index)
    rankers[OURS] = ours
    t1 = time.perf_counter()
    diag = diagnose(inst, rankers, ds, artificial_table(inst_dir), oracle=True, missing="both")
    diag.metadata["analyzer"] = an.describe()
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
        min_n=MIN_N,
        notes=[
            f"Instances: seeded uniform sample of at most {args.cap} per query and axiom "
            f"(seed {args.seed}) from {mined['uncapped']:,} mined; analyzer {an.describe()}."
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
        "analyzer": an.describe(),
        "ours_vs_run": [ours_vs_run(args, y, an) for y in (2019, 2021)],
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

    an = analyzer()
    ds = load_dataset("msmarco-dev-top20/test", data_root=args.data_root)
    index = dataset_index(ds, analyzer=an)
    inst_dir = work / "msmarco-instances"
    t0 = time.perf_counter()
    mined = mine_dir(ds, MSMARCO_AXIOMS, inst_dir, index, args.cap, args.seed)
    inst = load_instances(inst_dir)
    rankers = {"BM25": BM25Ranker(index), "QL": QLRanker(index), "RM3": RM3Ranker(index)}
    t1 = time.perf_counter()
    diag = diagnose(inst, rankers, ds, artificial_table(inst_dir), oracle=True)
    diag.metadata["analyzer"] = an.describe()
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
        measure="nDCG@10",
        baseline="BM25",
        min_n=MIN_N,
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
        "analyzer": an.describe(),
        "diagnose_s": round(t_diag, 2),
        "total_s": round(time.perf_counter() - t0, 2),
        "report": str(paths["html"]),
    }


def part_relevance(args, work: Path) -> pd.DataFrame:
    """R>N vs N>R of relaxed TFC1 / M-TDC (delta* = 0.1) on all 600 msmarco-dev-top20 queries."""
    from scipy.stats import binomtest

    from axiomatic.data.catalog import load_dataset
    from axiomatic.diagnose.counts import presence_table
    from axiomatic.diagnose.stats import wilson_interval
    from axiomatic.index.cache import dataset_index

    ds = load_dataset("msmarco-dev-top20", data_root=args.data_root)
    rows = []
    for name in ("thesis", "default"):
        an = analyzer(name)
        out = work / f"relevance-{name}"
        mine_dir(ds, "TFC1,M-TDC", out, dataset_index(ds, analyzer=an), None, 0, artificial=False)
        pres = presence_table(load_instances(out), ds.rel_threshold)
        for spec, grp in pres.groupby("spec", sort=False):
            # ">=" relations (M-TDC) print as "R>=N": the preference is the same
            counts: dict[str, int] = {}
            for pat, k in zip(grp["pattern"], grp["instances"], strict=True):
                key = str(pat).replace(">=", ">")
                counts[key] = counts.get(key, 0) + int(k)
            rn, nr = int(counts.get("R>N", 0)), int(counts.get("N>R", 0))
            lo, hi = wilson_interval(np.array([rn]), np.array([rn + nr]))
            share, lo, hi = rn / max(rn + nr, 1), float(lo[0]), float(hi[0])
            rows.append(
                {
                    "analyzer": name,
                    "axiom": spec.split("(")[0],
                    "instances": int(grp["instances"].sum()),
                    "R>N": rn,
                    "N>R": nr,
                    "equal (R=N, N=R)": int(counts.get("R=N", 0) + counts.get("N=R", 0)),
                    "R>N share (95% CI)": f"{share:.2f} [{lo:.2f}, {hi:.2f}]",
                    "ratio R>N : N>R (95% CI)": (
                        f"{rn / nr:.1f} [{lo / (1 - lo):.1f}, {hi / (1 - hi):.1f}]"
                        if nr and hi < 1
                        else "-"
                    ),
                    "binomial p": f"{binomtest(rn, rn + nr).pvalue:.2g}" if rn + nr else "-",
                }
            )
    return pd.DataFrame(rows).set_index("analyzer")


def _counts_table(diag) -> pd.DataFrame:
    """Instances per axiom group; per view, the most any ranker could not order."""
    from axiomatic.report.tables import group_labels, view_diagnoses

    labels = group_labels(diag)
    keys = diag.group_keys().assign(query_id=diag.instances["query_id"].to_numpy())
    per = keys.groupby("spec", sort=False).agg(
        instances=("query_id", "size"), queries=("query_id", "nunique")
    )
    for view, d in view_diagnoses(diag):
        t = d.table()
        skipped = t.pivot_table(
            index="spec", columns="ranker", values="skipped", aggfunc="first", sort=False
        )
        per[f"max skipped [{view}]" if view else "max skipped"] = (
            skipped.max(axis=1).reindex(per.index).astype(int)
        )
    per.index = [labels.get(s, s) for s in per.index]
    per.index.name = "axiom"
    return per


def _retrieval_decided(diag) -> pd.DataFrame:
    """Per run and axiom: union-view instances, and the share of them that involve a document
    the run did not retrieve (fulfilled or violated by construction in the union view)."""
    from axiomatic.diagnose.relations import VIEW_OWN, VIEW_UNION
    from axiomatic.report.tables import group_labels

    if VIEW_UNION not in diag.views:
        return pd.DataFrame()
    labels = group_labels(diag)
    own = diag.in_view(VIEW_OWN).table().set_index(["ranker", "spec"])
    uni = diag.in_view(VIEW_UNION).table().set_index(["ranker", "spec"])
    out = pd.DataFrame(index=pd.Index([r for r in diag.rankers if r in LEXICAL + NEURAL]))
    for spec, label in labels.items():
        if label.startswith("LNC2"):
            continue
        cells = []
        for r in out.index:
            nu, no = int(uni.loc[(r, spec), "n"]), int(own.loc[(r, spec), "n"])
            cells.append(f"{100 * (nu - no) / nu:.0f}% of {nu}" if nu else "-")
        out[label] = cells
    out.index.name = "ranker"
    return out


def _correlations(diag, eff) -> tuple[pd.DataFrame, pd.DataFrame, dict, dict]:
    """Correlation with nDCG@10 per view (rank correlations first) and within each cluster,
    from :func:`axiomatic.report.tables.correlation_frame` (the report's own numbers: a
    fraction over fewer than MIN_N instances left out, the mean over the axiom groups every
    system has MIN_N instances of)."""
    from axiomatic.diagnose import stats
    from axiomatic.report.tables import correlation_frame, correlation_inputs, view_diagnoses

    rows, within, mean_rows, clusters = [], [], {}, {}
    for view, d in view_diagnoses(diag):
        corr = correlation_frame(d, eff, "nDCG@10", MIN_N)
        for r in corr.itertuples():
            rows.append(
                {
                    "axiom": r.label,
                    "view": view,
                    "n": int(r.n),
                    "spearman": r.spearman,
                    "spearman_p": r.spearman_p,
                    "kendall": r.kendall,
                    "kendall_p": r.kendall_p,
                    "pearson": r.pearson,
                    f"left out (n < {MIN_N})": r.left_out or "-",
                }
            )
        frac, _, y, labels = correlation_inputs(d, eff, "nDCG@10", MIN_N)
        keep = [r for r in frac.index if r in LEXICAL + NEURAL]
        mean, y = frac.loc[keep, "mean"], y.loc[keep]
        mc = corr[corr["spec"] == "mean"].iloc[0]
        mean_rows[view] = dict(mc) | {"name": labels["mean"]}
        lex = [x for x in LEXICAL if x in mean.index]
        neu = [x for x in NEURAL if x in mean.index]
        clusters[view] = bool(
            mean.loc[lex].min() > mean.loc[neu].max() and y.loc[lex].max() < y.loc[neu].min()
        )
        for name, members in (("lexical", LEXICAL), ("neural", NEURAL)):
            m = [x for x in members if x in mean.index and x in y.index]
            c = stats.correlation(mean.loc[m].to_numpy(float), y.loc[m].to_numpy(float))
            within.append(
                {
                    "view": view,
                    "cluster": f"{name} ({', '.join(m)})",
                    "n": len(m),
                    "kendall": c["kendall"],
                    "kendall_p": c["kendall_p"],
                    "spearman": c["spearman"],
                    "mean fulfilment": f"{100 * mean.loc[m].min():.1f}-{100 * mean.loc[m].max():.1f}",
                    "nDCG@10": f"{y.loc[m].min():.3f}-{y.loc[m].max():.3f}",
                }
            )
    return (
        pd.DataFrame(rows).set_index("axiom"),
        pd.DataFrame(within).set_index("view"),
        mean_rows,
        clusters,
    )


def _num(v, digits: int = 3):
    if isinstance(v, float):
        return "-" if np.isnan(v) else f"{v:.{digits}f}"
    return v


def _finding(mean_rows: dict, within: pd.DataFrame, clusters: dict) -> str:
    parts = []
    for view, r in mean_rows.items():
        if np.isnan(r["kendall"]):
            continue
        parts.append(
            f"{view or 'all'} view, {r['name']}: Spearman ρ = {r['spearman']:.2f} "
            f"(p = {r['spearman_p']:.3f}), "
            f"Kendall τ = {r['kendall']:.2f} (p = {r['kendall_p']:.3f}), n = {int(r['n'])}"
        )
    if not parts:
        return ""
    w = within.reset_index()
    taus = "; ".join(
        f"{row.cluster.split(' (')[0]} [{row.view}]: τ = {row.kendall:.2f} (n = {row.n})"
        for row in w.itertuples()
    )
    separated = all(clusters.values())
    shape = (
        "The systems form two separated clusters: the three lexical ones have the higher "
        "fulfilment and the lower nDCG@10 in every view, the four neural ones the reverse, so "
        "the negative sign says that the neural cluster orders these instances less often as "
        "the axioms prescribe while being more effective; it does not rank systems within a "
        "cluster."
        if separated
        else "The lexical and the neural systems overlap in fulfilment or nDCG@10 in some view."
    )
    return (
        "Mean fulfilment against nDCG@10 across the systems — "
        + "; ".join(parts)
        + f". {shape} Within the "
        f"clusters: {taus}; with three or four systems no within-cluster order is significant. "
        "A Pearson r over these points measures mostly the gap between the two clusters and "
        "is not a headline. Rennings (2019) found r = -0.36 with MAP on MS MARCO "
        "(section 4.2.2) over nine models."
    )


def _ours_text(rows: list[dict]) -> str:
    cells = "; ".join(
        f"DL {r['year']} ({r['queries']} queries): run {r['run']:.3f}, ours {r['ours']:.3f} "
        f"(paired t-test p = {r['p']:.2f})"
        for r in rows
    )
    return (
        f"`{OURS}` (k1=0.9, b=0.4, thesis analyzer) re-ranks the union pool with the pool's own "
        "statistics, so it differs from Anserini's BM25 run in idf, analyzer and candidates. "
        f"nDCG@10 — {cells}. An independent audit measured ours *above* the run on DL 2020 "
        "(0.5124 vs 0.4796; DL 2020 is not in the shared data here), with the same kind of "
        "pool statistics: the pool idf alone does not explain the gap, and we do not attribute "
        "it to one cause."
    )


def _resumed(res: dict) -> str:
    if res["mined"].get("fresh", True):
        return ""
    return " (this run resumed the mined shards; mining time is that of the run that mined them)"


def write_markdown(a: dict | None, b: dict | None, c: pd.DataFrame | None, args, out: Path):
    from axiomatic.report.tables import (
        layout_title,
        overview_frame,
        to_markdown,
        variant_frame,
        views_note,
    )

    cmd = (
        "`.venv/bin/python benchmarks/dl19_diagnosis.py"
        + (f" --cap {args.cap}" if args.cap != 1000 else "")
        + " --write-docs`"
    )
    lines = [
        "# Axiomatic diagnosis of real systems",
        "",
        f"Generated by {cmd} (do not edit by hand). Method: Rennings (2019), chapter 4 —",
        "the fraction of diagnostic instances (document pairs, TFC2 triples) whose prescribed",
        "order a ranker's scores respect. ▲/▼: significantly better/worse than BM25 (measures:",
        "paired t-test vs BM25, Holm over the systems compared on each measure; axioms: McNemar,",
        "Holm over the ranker pairs of each axiom; p < 0.05). Intervals, McNemar tables,",
        "relevance breakdowns and δ* sweeps are in each HTML/CSV report.",
        "",
        "Settings of every table below: text analyzed as in the thesis (section 3.4.1: Snowball "
        "stemming, no stopword removal, alphanumeric tokens; analyzer spec "
        f"`{analyzer().describe()}`); relaxed axioms at δ* = 1.0 (no length limit, the setting of "
        "the thesis' Tables 4.5/4.6), strict/extended at equal length (δ* = 0); every axiom "
        "label names its δ*. Ties: relative tolerance 1e-9 "
        "(`|s_a - s_b| <= 1e-9 max(1, |s_a|, |s_b|)`). Instances whose preconditions hold in "
        "both directions (e.g. M-TDC on two terms of equal idf) expect equal scores and are "
        "counted apart, marked `[equal]`. Capping: a seeded uniform sample per query and axiom.",
        "",
        "## How to run a diagnosis",
        "",
        "```bash",
        "# the TREC DL 2019 table below, as benchmarks/dl19_diagnosis.py computes it (thesis analyzer,",
        "# relaxed axioms at delta* = 1.0, at most 1000 instances per query and axiom, seed 0):",
        'axiomatic mine --dataset trec-dl-2019/union --analyzer thesis --axioms "TFC1(delta_rel=1.0),TFC2(delta_rel=1.0),M-TDC(delta_rel=1.0),LNC2" --max-per-query 1000 --seed 0 --shard-size 1 --out inst-dl19/',
        "axiomatic diagnose --instances inst-dl19/ --analyzer thesis --run BM25=trec-dl-2019/bm25 --run BM25+RM3=trec-dl-2019/bm25-rm3 --run SPLADE++=trec-dl-2019/splade-pp --run TAS-B=trec-dl-2019/tasb --run ADA2=trec-dl-2019/ada2 --run RepLLaMA=trec-dl-2019/repllama --ranker ours=bm25 --baseline BM25 --out rep-dl19/",
        "#   (names: the table's 'OpenAI ADA2' and 'BM25 (ours)' are ADA2 and ours here)",
        "# your own rankers and runs on the demo collection, with the same settings:",
        'axiomatic mine --dataset demo --analyzer thesis --axioms "TFC1(delta_rel=1.0),TFC2,M-TDC,LNC2" --out inst/',
        "axiomatic diagnose --instances inst/ --analyzer thesis --ranker bm25 --ranker ql --run my.trec --out rep/",
        "#   --missing both (default): own-list and union views of run files, side by side",
        "#   --tie-tolerance 1e-9 (default, relative); mine --max-per-query N --seed S",
        "#   --measure nDCG@10 (default): the one measure of correlation.png/.csv and the HTML",
        f"#   --min-n {MIN_N} (default): a fraction over fewer instances is left out of the",
        "#     correlations and the mean over axioms (hollow in the figure, (n=…) in tables)",
        "#   --test t (default) | wilcoxon; --format table | csv | json",
        "#   rep/ may hold an earlier report: its files (report_manifest.json) are replaced",
        "```",
        "",
        "```python",
        "from axiomatic.data.catalog import load_dataset",
        "from axiomatic.data.instances import read_instances",
        "from axiomatic.diagnose.mining import mine",
        "from axiomatic.diagnose.diagnosis import diagnose",
        "from axiomatic.rankers.base import rerank",
        "from axiomatic.rankers.registry import make_ranker",
        "from axiomatic.report.tables import effectiveness_table, print_tables",
        "from axiomatic.report.writer import write_report",
        "from axiomatic.text.analyzer import parse_analyzer",
        "",
        'ds = load_dataset("demo")',
        'thesis = parse_analyzer("thesis")  # one analyzer for the instances and the rankers',
        'mine(ds, "TFC1(delta_rel=1.0),TFC2,M-TDC,LNC2", "inst/", analyzer=thesis)',
        'instances, artificial = read_instances("inst/")',
        'rankers = [make_ranker("bm25", ds, analyzer=thesis), make_ranker("ql", ds, analyzer=thesis)]',
        "diag = diagnose(instances, rankers, ds, artificial, oracle=True)",
        "diag.table(); diag.by_relevance(); diag.mcnemar(); diag.delta_sweep()",
        "eff = effectiveness_table({r.name: rerank(r, ds) for r in rankers}, ds.qrels,",
        '                          ["nDCG@10", "AP"], rel_threshold=ds.rel_threshold)',
        "print_tables(diag, eff)",
        'write_report(diag, eff, "rep/")  # CSV, JSON, PNG, report.html',
        "```",
        "",
        "The HTML page is self-contained (figures inlined) and laid out for a laptop screen: at "
        "1366 x 768 the page does not scroll sideways (the wide overview table scrolls in its own "
        "box), and the fulfilment chart is a faceted horizontal dot plot shown at its own size "
        "(968 px wide on the demo report). `tests/report/test_report_browser.py` checks this for "
        "25 axioms and 6 rankers in headless Chromium (measured by the page itself, plus a "
        "screenshot) and is skipped where no Chromium is installed (Debian: `apt-get install "
        "chromium`). Every figure states what it shows: the correlation names its one "
        "effectiveness measure (the tables' own) and draws fractions over fewer than "
        f"{MIN_N} instances hollow with their n, left out of the coefficients and of the mean, "
        "whose panel names the axioms it averages; the δ* sweep has a numeric axis up to the δ* "
        "the axiom was mined at, with each ranker's own instance counts on top.",
        "",
        "`diagnose` scores each query's distinct documents once per ranker (one batched "
        "`score` call) and evaluates all instances with array operations. Relations: `>` "
        "(a tie violates), `>=` (a tie fulfils), `=` (only a tie fulfils: symmetric "
        "instances), `diff>` (TFC2 triples, strict). Rankers that only know a run "
        "(`RunFileRanker`) skip instances on artificial documents; documents missing from a "
        'run are handled in two views (`missing="both"`, the default): ' + views_note() + " "
        "Every skip is counted per ranker and view and reported. Intervals: 95% Wilson; "
        "McNemar: exact binomial under 25 discordant pairs, else χ² with continuity correction, "
        "Holm-corrected over the ranker pairs of each axiom; δ* sweep: Rennings (2019) section "
        "4.3.1 (LNC2 and artificial documents left out).",
        "",
    ]
    if a is not None:
        diag, eff = a["diag"], a["eff"]
        corr, within, mean_rows, clusters = _correlations(diag, eff)
        lines += [
            "## TREC DL 2019: six systems from their run files",
            "",
            "Instances mined from the union of the six top-100 candidate lists "
            f"(`trec-dl-2019/union`, 43 queries) with `{DL19_AXIOMS}` and the thesis analyzer. "
            f"{a['mined']['uncapped']:,} instances were mined; a seeded uniform sample of at "
            f"most {args.cap} per query and axiom (seed {args.seed}; {a['sampled']:,} "
            "instances) is diagnosed. Each axiom has two columns: **[own list]** — only "
            "instances whose documents the system retrieved (how it ordered its own list) — "
            "and **[union]** — a document the system did not retrieve ranks below all it did, "
            "so an instance with one unretrieved document is fulfilled or violated by what was "
            "retrieved, not by the ordering; pairs of two unretrieved documents (and triples with "
            "one) are skipped. Run files cannot score artificial documents: for them LNC2 covers "
            f"only the few real near-duplicate documents of the pool (shown with (n=…) when "
            f"under {MIN_N} instances); LNC2 on the artificial duplicates is measured for our own "
            "BM25 and the oracle. The `oracle` scores by qrels (unjudged = 0): a tie violates a "
            "strict `>` instance, and most pairs here are unjudged or equally judged, which is "
            "why its TFC1/TFC2 fulfilment is low. Effectiveness: grade ≥ 2 relevant for AP and "
            f"RR@10. Table: {layout_title(diag)}.",
            "",
            to_markdown(overview_frame(diag, eff, baseline="BM25", min_n=MIN_N)),
            "",
            "How much of the union view is decided by retrieval: the share of each system's "
            "union-view instances that involve a document it did not retrieve:",
            "",
            to_markdown(_retrieval_decided(diag)),
            "",
            "Instances per axiom (skipped: the most any ranker could not order, per view):",
            "",
            to_markdown(_counts_table(diag)),
            "",
            "Correlation across systems of axiomatic performance with nDCG@10 (thesis Fig. 4.2; "
            "the oracle is left out; rank correlations first, n = number of systems):",
            "",
            to_markdown(corr.map(_num)),
            "",
            "Within the two clusters (the mean of the last rows above vs nDCG@10):",
            "",
            to_markdown(within.map(lambda v: _num(v, 2))),
            "",
            _finding(mean_rows, within, clusters),
            "",
            _ours_text(a["ours_vs_run"]),
            "",
            "Figures show the own-list view (the union view is in the CSV/JSON report).",
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
            f"{len(diag.rankers)} rankers in two views {a['diagnose_s']} s, part total "
            f"{a['total_s']} s{_resumed(a)}.",
            "",
        ]
    if b is not None:
        diag, eff = b["diag"], b["eff"]
        lines += [
            "## MS MARCO dev (test split, 200 queries × BM25 top-20): BM25, QL, RM3",
            "",
            "TFC1, TFC2 and M-TDC in their original (strict, δ* = 0), extended (δ* = 0) and "
            f"relaxed (δ* = 1.0) variants, and LNC2 ({layout_title(diag, '4.6')}; thesis "
            f"analyzer). {b['mined']['uncapped']:,} instances mined; {b['sampled']:,} diagnosed "
            f"(at most {args.cap} per query and axiom). Cells: % fulfilled (instances). No "
            f"instances were found for: {', '.join(b['mined']['empty']) or 'none'}.",
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
    if c is not None:
        lines += [
            "## Do TFC1 and M-TDC prefer the relevant passage? (msmarco-dev-top20, 600 queries)",
            "",
            "Relaxed TFC1 and M-TDC at δ* = 0.1 (the setting of the count tables in "
            "docs/axioms.md), instances with one relevant and one non-relevant passage: `R>N` "
            "the axiom prefers the relevant one, `N>R` the non-relevant one; equal = symmetric "
            "instances (no preference). Share of R>N among R>N and N>R with a 95% Wilson "
            "interval, the ratio with the interval mapped from it, and a two-sided binomial "
            "test against 1:1, under the thesis analyzer and the default one (stopwords "
            "removed):",
            "",
            to_markdown(c),
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
    p.add_argument(
        "--out",
        type=Path,
        default=REPO / "outputs" / "dl19-diagnosis",
        help="folder for diagnosis.md, img/*.png and the HTML/CSV reports",
    )
    p.add_argument(
        "--write-docs",
        action="store_true",
        help="also replace docs/diagnosis.md and its docs/img/*.png in the checkout",
    )
    p.add_argument("--parts", default="dl19,msmarco,relevance")
    args = p.parse_args(argv)
    parts = set(args.parts.split(","))
    args.work.mkdir(parents=True, exist_ok=True)
    args.out.mkdir(parents=True, exist_ok=True)
    img = args.out / "img"
    img.mkdir(parents=True, exist_ok=True)
    a = part_dl19(args, args.work, img) if "dl19" in parts else None
    b = part_msmarco(args, args.work, img) if "msmarco" in parts else None
    c = part_relevance(args, args.work) if "relevance" in parts else None
    for res, name in ((a, "dl19-report"), (b, "msmarco-report")):
        if res is not None:  # the HTML/CSV report beside the markdown
            dest = args.out / name
            shutil.copytree(Path(res["report"]).parent, dest, dirs_exist_ok=True)
            res["report"] = str(dest / "report.html")
    write_markdown(a, b, c, args, args.out / "diagnosis.md")
    if args.write_docs:
        docs = REPO / "docs"
        # keep the calibrated-effects section that benchmarks/band_example.py writes
        sys.path.insert(0, str(Path(__file__).resolve().parent))
        from band_example import keep_section

        previous = (docs / "diagnosis.md").read_text(encoding="utf-8")
        new = (args.out / "diagnosis.md").read_text(encoding="utf-8")
        (docs / "diagnosis.md").write_text(keep_section(previous, new), encoding="utf-8")
        for png in sorted(img.glob("*.png")):
            shutil.copyfile(png, docs / "img" / png.name)
    summary: dict = {}
    for name, res in (("dl19", a), ("msmarco", b)):
        if res is None:
            continue
        from axiomatic.report.tables import view_diagnoses

        summary[name] = {
            "analyzer": res["analyzer"],
            "instances_mined": res["mined"]["uncapped"],
            "instances_diagnosed": res["sampled"],
            "mining_s": res["mined"]["wall_s"],
            "diagnose_s": res["diagnose_s"],
            "total_s": res["total_s"],
            "report": res["report"],
            "fraction": {
                f"{r.ranker} | {r.spec}" + (f" | {view}" if view else ""): None
                if np.isnan(r.fraction)
                else round(float(r.fraction), 4)
                for view, d in view_diagnoses(res["diag"])
                for r in d.table().itertuples()
            },
        }
        if "ours_vs_run" in res:
            summary[name]["ours_vs_run"] = res["ours_vs_run"]
            # the README's DL19 figure: the mean fulfilment vs nDCG@10, per view
            summary[name]["correlation_nDCG@10"] = {
                view or "all": {
                    "axioms": r["name"],
                    "n": int(r["n"]),
                    "kendall": round(float(r["kendall"]), 2),
                    "kendall_p": round(float(r["kendall_p"]), 2),
                    "spearman": round(float(r["spearman"]), 2),
                    "spearman_p": round(float(r["spearman_p"]), 3),
                }
                for view, r in _correlations(res["diag"], res["eff"])[2].items()
            }
    if c is not None:
        summary["relevance"] = c.reset_index().to_dict(orient="records")
    json.dump(summary, sys.stdout, indent=2, default=str)
    print()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
