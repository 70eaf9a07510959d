"""ARES (Chen et al. 2022): figures and the Markdown page of the stages' outputs."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from axiomatic._report import markdown_table
from axiomatic.experiments.ares2022.plan import (
    MEASURES,
    PAPER_TABLE2,
    AresPlan,
)


def plot_importances(results: dict[str, Any], path: Path) -> Path:
    """:func:`importances_figure` saved to ``path``."""
    from axiomatic._report import save_figure

    return save_figure(importances_figure(results), path)


def importances_figure(results: Mapping[str, Any]) -> Any:
    """Figure 2: gain importance per axiom (normalized by the largest), one bar per setting."""
    from axiomatic._report import new_figure

    names = results["features"]
    settings = list(results["settings"])
    fig, ax = new_figure(figsize=(9, 3.6))
    w = 0.8 / max(len(settings), 1)
    x = np.arange(len(names))
    for k, s in enumerate(settings):
        imp = results["settings"][s]["importance"]
        ax.bar(x + k * w, [imp[n] for n in names], w, label=f"setting {s}")
    ax.set_xticks(x + w * (len(settings) - 1) / 2)
    ax.set_xticklabels(names, rotation=30, ha="right")
    ax.set_ylabel("gain importance (max = 1)")
    ax.set_title("ARES preference predictor: axiom importance (cf. Chen et al. 2022, Fig. 2)")
    ax.legend(fontsize=8)
    fig.tight_layout()
    return fig


def _ablation_lines(abl: dict[str, Any]) -> list[str]:
    lines = [
        f"## Ablation of ARES variants (Table 7): {abl['set']}",
        "",
        f"{abl['n_queries']} queries, BM25 top {abl['depth']} re-ranked zero-shot; every "
        "variant pre-trained with the same budget (steps, batch, length, seed) as above. "
        "ARES_rep / ARES_rank: pairs ordered by their axioms directly, in the axioms' "
        "direction (REP: the better length-normalized REP scores, a pair on which Q-REP-QL and "
        "Q-REP-TFIDF disagree dropped; RANK: the better BM25 rank); strict: no axiom "
        "disagrees and at least 3 are decisive (our reading); hard / simple: the monotone "
        "predictor of setting IV / I. p: paired t-test against ARES_simple, Holm-corrected.",
        "",
    ]
    rows = []
    for v, vals in abl["means"].items():
        row: dict[str, Any] = {"variant": f"ARES_{v}"}
        for meas in MEASURES:
            row[meas] = vals.get(meas)
            t = abl["tests"].get(meas, {}).get(v)
            row[f"p vs simple ({meas}, Holm)"] = f"{t['p_holm']:.3g}" if t else ""
        info = abl.get("pretrain", {}).get(v, {})
        row["best dev step"] = info.get("best_step")
        row["pairs"] = info.get("n_pairs")
        rows.append(row)
    if rows:
        lines += [markdown_table(rows, list(rows[0])), ""]
    if abl["tests"].get("family"):
        lines += [f"Significance: {abl['tests']['family']}.", ""]
    if abl.get("agreement"):
        from axiomatic.ares.pairs import agreement_markdown

        lines += [
            "### Which way the pre-training pairs point",
            "",
            "For each variant's ordered pairs (q+, q-) of one document and each axiom: the share "
            "of the axiom's decisive pairs in which q+ is the query the axiom prefers (cell: "
            "agreement % (decisive pairs)). 100 % = the variant teaches the axiom, ~50 % = it "
            "ignores it, < 50 % = it teaches it backwards. LENGTH (prefer the longer query) has "
            "no decisive pair: a document's pseudo queries share one length (section 4.1).",
            "",
            agreement_markdown(abl["agreement"]),
            "",
        ]
    return lines


def plot_few_shot(few: dict[str, Any], zero: dict[str, Any], test: str, path: Path) -> Path | None:
    """:func:`few_shot_figure` saved to ``path`` (``None``: no few-shot results)."""
    from axiomatic._report import save_figure

    fig = few_shot_figure(few, zero, test)
    return None if fig is None else save_figure(fig, path)


def few_shot_figure(few: Mapping[str, Any], zero: Mapping[str, Any], test: str) -> Any:
    """Figure 3: test MRR@10 against the number of training queries (0 = zero-shot); ``None``
    without few-shot results."""
    from axiomatic._report import new_figure

    if not few:
        return None
    fig, ax = new_figure(figsize=(6, 3.6))
    zmeans = zero.get(test, {}).get("means", {})
    for m in sorted({r["model"] for r in few.values()}):
        pts = sorted((r["n_queries"], r["means"]["RR@10"]) for r in few.values() if r["model"] == m)
        z = zmeans.get(m if m.startswith("ARES_") else f"{m} (no pre-training)", {}).get("RR@10")
        if z is not None:
            pts = [(0, z), *pts]
        ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", label=m)
    if "BM25" in zmeans:
        ax.axhline(zmeans["BM25"]["RR@10"], color="grey", ls="--", label="BM25")
    ax.set_xlabel("training queries")
    ax.set_ylabel(f"MRR@10 ({test})")
    ax.set_title("Few-shot fine-tuning (cf. Chen et al. 2022, Fig. 3)")
    ax.legend(fontsize=8)
    fig.tight_layout()
    return fig


def _collection_row(c: str, v: dict[str, Any]) -> dict[str, Any]:
    return {
        "collection": c,
        "documents": v["documents"],
        "real queries": v["real_queries"],
        "real: rank 1": f"{100 * v['real_first']:.1f} %",
        "pseudo: rank 1": f"{100 * v['pseudo_first']:.1f} %",
        "mu": round(float(v["mu"]), 1),
        "contrast": round(float(v["contrast"]), 3),
    }


def render_markdown(
    plan: AresPlan, predictor: dict[str, Any], pretrain: dict[str, Any], zero: dict[str, Any],
    meta: dict[str, Any], bench: dict[str, Any] | None = None, few: dict[str, Any] | None = None,
    diagnosis: dict[str, Any] | None = None, ablation: dict[str, Any] | None = None,
    few_tests: dict[str, Any] | None = None,
) -> str:  # fmt: skip
    lines = [
        "# ARES: axiomatically regularized pre-training (Chen et al., SIGIR 2022)",
        "",
        "Generated by `axiomatic experiment ares2022"
        + (" --quick" if meta.get("quick") else "")
        + f"` on {meta['machine']} ({meta['threads']} thread(s), load average "
        f"{meta['load']}), {meta['date']}; this invocation took {meta['wall_s']:.0f} s "
        "(finished stages are read from the output folder, not recomputed).",
        "",
        "Pipeline (each stage cached and resumable under the output folder): pseudo-query "
        "sampling (section 4.1, `axiomatic.ares.sampling`) -> nine query-centric axioms "
        "(Table 1, `axiomatic.axioms.query_pairs`, family `query-pair`) -> preference predictor "
        "(section 4.2, LightGBM) -> pre-training with hinge + MLM (section 4.3) -> zero-shot "
        "re-ranking.",
        "",
        "all-MiniLM-L6-v2 was itself trained contrastively on ~1B sentence pairs that include "
        "MS MARCO: 'zero-shot' here means no training on our qrels, not unseen data.",
        "",
        f"Pre-training collections: {', '.join(plan.collections)}.",
        "",
        "## Preference predictor (Table 2)",
        "",
        "Positives: real training queries with a relevant document (msmarco-dev-top20/train, "
        "scifact/train); negatives: that document's pseudo queries under each setting. AUC: "
        f"9:1 split, two-fold CV on the 90 %, best fold model on the 10 %, seeds {plan.auc_seeds}.",
        "",
    ]
    rows = []
    for s, r in predictor["settings"].items():
        row = {
            "setting": s,
            "pairs": r["n_pairs"],
            "AUC (ours)": f"{r['auc_mean']:.4f} +- {r['auc_sd']:.4f}",
            "AUC (paper)": f"{PAPER_TABLE2[s]:.4f}",
        }
        for c, (m, sd) in r.get("auc_per_collection", {}).items():
            row[f"AUC {c}"] = f"{m:.4f} +- {sd:.4f}"
        rows.append(row)
    cols = list(rows[0]) if rows else []
    lines += [markdown_table(rows, cols), ""]
    colls = predictor.get("collections") or {}
    if colls:
        lines += [
            "### Per collection, with a query-length control",
            "",
            "The predictor trained and scored on each collection alone (same protocol), next to "
            "the AUC of query length alone (|q_real| - |q_pseudo| in analysed terms, no "
            "training): where the two are close, length, not the axioms, separates real from "
            "pseudo queries. Pseudo queries have Poisson(3) lengths, real ones their own.",
            "",
        ]
        lrows = []
        for s, r in predictor["settings"].items():
            for c in colls:
                auc = r.get("auc_per_collection", {}).get(c)
                lo = r.get("auc_length_only_per_collection", {}).get(c)
                lrows.append({
                    "setting": s, "collection": c,
                    "pairs": r["per_collection"].get(c, {}).get("n_pairs"),
                    "AUC predictor": f"{auc[0]:.4f} +- {auc[1]:.4f}" if auc else "",
                    "AUC length alone": f"{lo:.4f}" if lo is not None else "",
                })  # fmt: skip
        lines += [markdown_table(lrows, list(lrows[0])), ""]
        lines += [
            "The corpus for Q-RANK and the sampler, per collection: share of real and of pseudo "
            "queries whose own document BM25 ranks first in the collection, and the contrast of "
            "the sampling distribution (median over documents of max/min term probability, "
            "eq. 6; 1 = uniform) at the Dirichlet mu used (the mean document length).",
            "",
            markdown_table(
                [_collection_row(c, v) for c, v in colls.items()],
                [
                    "collection",
                    "documents",
                    "real queries",
                    "real: rank 1",
                    "pseudo: rank 1",
                    "mu",
                    "contrast",
                ],
            ),
            "",
        ]
    lines += [
        "![axiom importance](img/ares_fig2_importance.png)",
        "",
        "Gain importance per axiom, normalized by the largest (Figure 2 of the paper):",
        "",
    ]
    names = predictor["features"]
    imp_rows = [
        {"setting": s, **{n: round(r["importance"][n], 3) for n in names}}
        for s, r in predictor["settings"].items()
    ]
    lines += [markdown_table(imp_rows, ["setting", *names]), ""]
    from axiomatic.ares.pretrain import per_1k_steps

    lines += ["## Pre-training", ""]
    for v, s in pretrain.items():
        t = s["train"]
        lines.append(
            f"- ARES_{v}: predictor setting {s['setting']}, features {s['features']}, "
            f"{s['n_pairs']} ordered pseudo-query pairs; {t['steps']} steps of batch "
            f"{plan.batch_size}, max length {plan.max_length}, lr {plan.lr}, MLM weight "
            f"{plan.mlm_weight}, {plan.head} head, masking {plan.masking}; best zero-shot dev MRR@10 {t['best_dev']} at step "
            f"{t['best_step']} ({plan.dev_queries} queries of {plan.dev_dataset}); "
            f"{t['seconds']:.0f} s ({per_1k_steps(t)} s per 1,000 steps, dev evaluations "
            "included)."
        )
    lines += ["", "## Zero-shot re-ranking (Table 6)", ""]
    for name, r in zero.items():
        lines += [f"### {name} ({r['n_queries']} queries, BM25 top {r['depth']})", ""]
        rows = []
        for m, vals in r["means"].items():
            row = {"model": m}
            for meas in MEASURES:
                row[meas] = vals.get(meas)
                t = r["tests"].get(meas, {}).get(m)
                row[f"p vs {r['tests_vs']} ({meas}, Holm)"] = f"{t['p_holm']:.3g}" if t else ""
            rows.append(row)
        lines += [markdown_table(rows, list(rows[0])), ""]
        if r["tests"].get("family"):
            lines += [f"Significance: {r['tests']['family']}.", ""]
    if few:
        lines += [
            f"## Few-shot fine-tuning (Figure 3): {plan.few_shot_train} -> {plan.few_shot_test}",
            "",
            f"Nested subsets of judged training queries (seed {plan.seed}); {plan.few_shot_steps} "
            f"hinge steps of batch {plan.batch_size}, lr {plan.few_shot_lr}, the last step kept; "
            f"BM25 top {plan.eval_depth} re-ranked. One seed (CPU budget).",
            "",
            "![few-shot](img/ares_fig3_few_shot.png)",
            "",
        ]
        tests = few_tests or {}
        pcol = "p vs cross-encoder, same n (RR@10, Holm)"
        rows = [
            {"model": r["model"], "training queries": r["n_queries"],
             **{m: r["means"].get(m) for m in MEASURES},
             pcol: (f"{tests[k]['RR@10']['p_holm']:.3g}" if "RR@10" in tests.get(k, {}) else "")}
            for k, r in sorted(few.items(), key=lambda kr: (kr[1]["model"], kr[1]["n_queries"]))
        ]  # fmt: skip
        lines += [markdown_table(rows, ["model", "training queries", *MEASURES, pcol]), ""]
        if tests.get("family"):
            lines += [f"Significance: {tests['family']}.", ""]
    if ablation:
        lines += _ablation_lines(ablation)
    if diagnosis:
        lines += _diagnosis_lines(diagnosis)
    if bench:
        lines += [
            "## Speed (benchmarks/bench_ares.py, one core)",
            "",
            "```json",
            json.dumps(bench, indent=1),
            "```",
            "",
        ]
    lines += [
        "## Not reproduced / differences",
        "",
        "- Scale: the paper pre-trains BERT-base on 3.2M MS MARCO documents for two days on six "
        "GPUs; here MiniLM-L6 on a 20k-passage MS MARCO subset plus SciFact for minutes on one "
        "CPU core; the few-shot curve and the ablation (Table 7) have one seed and few steps.",
        "- Predictor data: ~1.3k real queries (the paper: > 150k cases per setting); LightGBM "
        "instead of XGBoost (same model family, gain importance).",
        "- Eq. 6 is normalized over the document's own terms (the literal sum over V puts almost "
        "all mass on words outside the document); mu = the collection's mean document length "
        "(the paper gives none; see `axiomatic.ares.sampling`); STM thresholds 0.02/0.35 are "
        "ours.",
        "- Corpus for Q-RANK: the paper ranks in the full 8.8M-passage MS MARCO corpus; "
        "msmarco-20k holds the training positives, the test queries' and TREC DL 2019/2021 "
        "candidates, and none of the training queries' own BM25 lists (which made real queries "
        "meet their strongest competitors while pseudo queries met none, and the predictor "
        "learn RANK backwards). In a 20k corpus both ranks are optimistic; the table above "
        "gives the shares.",
        "",
    ]
    return "\n".join(lines)


def _diagnosis_lines(diag: dict[str, Any]) -> list[str]:
    from axiomatic.experiments.diagnosis import diagnosis_tables

    lines = ["## Axiomatic diagnosis: does pre-training raise axiom fulfilment?", ""]
    qp = diag.get("query_pairs") or {}
    if qp.get("fulfilment"):
        cols = list(qp["decisive"])
        lines += [
            f"**The axioms it was trained on** (query pairs): {qp['pairs']} fresh pairs of "
            f"pseudo queries, one per sampled document of {qp.get('collection')}; fulfilment = "
            "fraction of the pairs where the axiom (or the setting-I predictor that ordered the "
            "pre-training pairs) is decisive on which the model scores the preferred query "
            "higher for the document (a tie counts as not fulfilled). Decisive pairs per "
            f"column: {qp['decisive']}.",
            "",
            markdown_table(
                [{"model": k, **v} for k, v in qp["fulfilment"].items()], ["model", *cols]
            ),
            "",
        ]
    lines += [
        f"**Document-pair axioms**: {diag['queries']} queries of {diag['set']} (first by sorted id), BM25 top "
        f"{diag['depth']}; document-pair instances mined with the {diag['analyzer']} analyzer "
        f"(default variants: LNC2 and M-TDC relaxed), per axiom: {diag.get('instances')}. "
        "Fulfilment: fraction of an axiom's instances the model orders as the axiom prefers "
        "(McNemar tests in diagnosis/mcnemar.csv of the output folder):",
        "",
        *diagnosis_tables(diag, "pairs of a document and its edit"),
    ]
    return lines
