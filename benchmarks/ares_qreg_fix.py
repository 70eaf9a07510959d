"""What the Q-REG two-term fix (SCORES_VERSION 2 -> 3) changes in docs/ares.md.

The ARES run behind docs/ares.md (``axiomatic experiment ares2022 --config
configs/ares2022-reduced.toml --out outputs/ares2022``) cached its axiom scores with
SCORES_VERSION 2, i.e. with Q-REG before the fix. A re-run recomputes every stage from the
scores on (hours of CPU). This script measures instead, on that run's cached data, what the
fix moves: it reads the cached stages (read-only), checks that the code before the fix (read
from git history, ``FIX^``) reproduces the cached Q-REG column, recomputes the column with the
current code and compares:

1. two-term queries and how many of them change the term Q-REG picks (pseudo and real);
2. Q-REG's preference (sign) on the predictor's (real, pseudo) pairs of settings I-IV;
3. each pre-training variant's pairs, re-derived with the new column (and, for the
   predictor-ordered variants, a predictor retrained on it): pairs dropped, added, reversed;
4. ``--auc``: Table 2's AUC (settings I-IV, seeds 0-4, pooled and per collection);
5. the Q-REG column of "which way the pairs point" (the stored pairs, old vs new scores);
6. ``--fulfil``: the query-pair diagnosis' Q-REG column (300 msmarco-20k pairs, the
   untrained cross-encoder and ARES_simple re-scored; about 1.5 min of one core).

Usage (from the repository root, after the ARES run)::

    python benchmarks/ares_qreg_fix.py --auc --fulfil --json benchmarks/results/ares_qreg_fix.json
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np

from axiomatic.ares import pipeline as pl
from axiomatic.ares.pairs import read_pairs, variant_agreement
from axiomatic.ares.pipeline import setting_pairs
from axiomatic.ares.predictor import SETTINGS, PreferencePredictor, evaluate_setting
from axiomatic.ares.pretrain import VARIANTS, ares_pairs, train_predictor
from axiomatic.axioms.kernels.queries import compare
from axiomatic.axioms.query_pairs import (
    QueryPairContext,
    parse_query_pair_axioms,
    preference_features,
)
from axiomatic.text.analyzer import Analyzer

REPO = Path(__file__).resolve().parents[1]
FIX = "832cb17"  # query_pairs: Q-REG of a two-term query follows its tie rule
RUN_VERSION = 2  # the SCORES_VERSION the run behind docs/ares.md cached its scores with
COLLECTIONS = ("msmarco-20k", "scifact")
VARIANT_NAMES = ("simple", "hard", "strict", "rep", "rank")
NAMES = [a.name for a in parse_query_pair_axioms("all")]


def old_module() -> Any:
    """``axiomatic.axioms.query_pairs`` as it was before the fix (from git history)."""
    src = subprocess.run(
        ["git", "-C", str(REPO), "show", f"{FIX}^:src/axiomatic/axioms/query_pairs.py"],
        check=True, capture_output=True, text=True,
    ).stdout  # fmt: skip
    path = Path(tempfile.mkdtemp()) / "old_query_pairs.py"
    path.write_text(src, encoding="utf-8")
    spec = importlib.util.spec_from_file_location("old_query_pairs", path)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def cached(out: Path, name: str) -> pl.Prepared:
    """A collection's stages 1-2 as :func:`~axiomatic.ares.pipeline.prepare` reads them back
    from the run's cache, written under SCORES_VERSION 2: every score column is there, so
    nothing is recomputed (prepare only rewrites the folder's report.json, same content)."""
    coll = pl.load_collection(name)
    folder = out / "cache" / name / pl.cache_key(coll, Analyzer(), 0, 10, True, RUN_VERSION)
    if not (folder / "query_scores.parquet").is_file():
        sys.exit(f"error: {folder} missing: run the ARES experiment first (module docstring)")
    current, pl.SCORES_VERSION = pl.SCORES_VERSION, RUN_VERSION
    try:
        return pl.prepare(coll, cache_dir=out / "cache")
    finally:
        pl.SCORES_VERSION = current


def same(a: np.ndarray, b: np.ndarray) -> bool:
    return bool(np.array_equal(a, b, equal_nan=True))


def picked(ctx: QueryPairContext, two_terms_tie: bool) -> np.ndarray:
    """Flat index of the term Q-REG picks per query: the new rule gives both terms of a
    two-term query similarity 0 to "the rest" (tie -> smallest id), the old one rounded."""
    t = ctx.term_ids
    sq = np.where(t >= 0, (ctx.term_vectors[np.maximum(t, 0)] ** 2).sum(axis=1), 0.0)
    rest = ctx._term_dot(ctx._qsum, ctx.seg) - sq
    n_terms = ctx.q_len[ctx.seg].astype(np.float64)
    sim = np.where(n_terms > (2 if two_terms_tie else 1), rest / np.maximum(n_terms - 1, 1), 0.0)
    o = np.lexsort((t, sim, t < 0, ctx.seg))
    first = np.ones(len(o), dtype=bool)
    first[1:] = ctx.seg[o][1:] != ctx.seg[o][:-1]
    out = np.full(ctx.n, -1)
    out[ctx.seg[o][first]] = o[first]
    return out


def sign_change(i: np.ndarray, j: np.ndarray, old: np.ndarray, new: np.ndarray) -> dict:
    a, b = compare(old[i], old[j], True), compare(new[i], new[j], True)
    d = a != b
    return {
        "pairs": len(i),
        "changed": int(d.sum()),
        "flipped": int((d & (a != 0) & (b != 0)).sum()),
        "decisive_to_tie": int((d & (a != 0) & (b == 0)).sum()),
        "tie_to_decisive": int((d & (a == 0) & (b != 0)).sum()),
    }


def pair_diff(before: tuple, after: tuple) -> dict:
    """Pairs (as multisets of (doc, q+, q-)) dropped, added and reversed between two sets."""
    c0 = Counter(zip(*(x.tolist() for x in before), strict=True))
    c1 = Counter(zip(*(x.tolist() for x in after), strict=True))
    u0 = Counter((d, min(a, b), max(a, b)) for d, a, b in c0.elements())
    u1 = Counter((d, min(a, b), max(a, b)) for d, a, b in c1.elements())
    return {
        "before": len(before[0]),
        "after": len(after[0]),
        "dropped": sum((u0 - u1).values()),
        "added": sum((u1 - u0).values()),
        "reversed": sum((u0 & u1).values()) - sum((c0 & c1).values()),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", type=Path, default=REPO / "outputs" / "ares2022")
    ap.add_argument("--auc", action="store_true", help="recompute Table 2's AUC")
    ap.add_argument("--fulfil", action="store_true", help="re-score the query-pair diagnosis")
    ap.add_argument("--json", type=Path, help="also write the results here")
    args = ap.parse_args()
    t0 = time.perf_counter()
    old_mod = old_module()
    res: dict[str, Any] = {"fix": FIX}
    prepared, olds, news = [], [], []
    for name in COLLECTIONS:
        p = cached(args.out, name)
        ctx = p.ctx
        stored = ctx._score_cache["Q-REG"].copy()
        octx = old_mod.QueryPairContext(
            p.index, ctx.doc, ctx.offsets, ctx.term_ids, term_vectors=ctx.term_vectors
        )
        old, new = octx.score_reg(), ctx.score_reg()
        if not same(old, stored):
            sys.exit(f"error: the code before {FIX} does not reproduce {name}'s cached Q-REG")
        before, after = picked(ctx, False), picked(ctx, True)
        assert same(ctx.tf[before], old) and same(ctx.tf[after], new)
        row: dict[str, Any] = {}
        for part, sl in (("pseudo", slice(0, p.n_pseudo)), ("real", slice(p.n_pseudo, ctx.n))):
            two = ctx.q_len[sl] == 2
            moved = before[sl] != after[sl]
            row[part] = {
                "queries": int(two.size),
                "two_term": int(two.sum()),
                "pick_changed": int(moved.sum()),
                "pick_changed_not_two_term": int((moved & ~two).sum()),
                "score_changed": int((~np.isclose(old[sl], new[sl], equal_nan=True)).sum()),
            }
        res[name] = row
        print(name, json.dumps(row), flush=True)
        ctx._score_cache["Q-REG"] = stored
        prepared.append(p)
        olds.append(stored)
        news.append(new)

    def use(which: str) -> None:
        for p, o, n in zip(prepared, olds, news, strict=True):
            p.ctx._score_cache["Q-REG"] = o if which == "old" else n

    res["predictor_pairs"] = {}
    for s in SETTINGS:
        for p, o, n in zip(prepared, olds, news, strict=True):
            i, j, _y = setting_pairs(p, s, seed=0)
            res["predictor_pairs"][f"{s}/{p.collection.name}"] = r = sign_change(i, j, o, n)
            print("predictor pairs", s, p.collection.name, json.dumps(r), flush=True)

    res["pretrain_pairs"] = {}
    stored_pairs = {
        v: read_pairs(args.out / "pretrain" / v / "pairs.parquet", 2) for v in VARIANT_NAMES
    }
    for v in VARIANT_NAMES:
        setting, feats = VARIANTS[v]
        preds: dict[str, PreferencePredictor | None] = {"old": None, "new": None}
        if setting is not None:
            for which in ("old", "new"):
                use(which)
                preds[which] = train_predictor(prepared, setting, feats, 0)
            splits = preds["new"].model.booster_.feature_importance("split")  # type: ignore[union-attr]
            res["pretrain_pairs"][f"{v}/Q-REG splits"] = int(splits[NAMES.index("Q-REG")])
        for k, (p, o, n) in enumerate(zip(prepared, olds, news, strict=True)):
            use("old")
            again = ares_pairs(p, v, preds["old"], 2, 0)
            if not all(same(a, b) for a, b in zip(again, stored_pairs[v][k], strict=True)):
                sys.exit(
                    f"error: {v}/{p.collection.name}: the old scores do not re-derive the stored pairs"
                )
            use("new")
            r = pair_diff(stored_pairs[v][k], ares_pairs(p, v, preds["new"], 2, 0))
            r["q_reg_sign_changed"] = sign_change(*stored_pairs[v][k][1:], o, n)["changed"]
            res["pretrain_pairs"][f"{v}/{p.collection.name}"] = r
            print("pre-training pairs", v, p.collection.name, json.dumps(r), flush=True)

    res["agreement_q_reg"] = {}
    for v in VARIANT_NAMES:
        out = {}
        for which in ("old", "new"):
            use(which)
            row = variant_agreement(prepared, {v: stored_pairs[v]}, ["Q-REG"], length=False)[0]
            out[which] = {k: row[k] for k in ("decisive", "agree", "agree_pct")}
        res["agreement_q_reg"][v] = out
        print("agreement Q-REG", v, json.dumps(out), flush=True)

    if args.auc:
        res["auc"] = {}
        for which in ("old", "new"):
            use(which)
            for s in SETTINGS:
                Xs, ys = [], []
                for p in prepared:
                    i, j, y = setting_pairs(p, s, seed=0)
                    Xs.append(preference_features(p.ctx, i, j))
                    ys.append(y)
                seeds = [0, 1, 2, 3, 4]
                pooled = evaluate_setting(
                    s, np.concatenate(Xs), np.concatenate(ys), NAMES, seeds=seeds
                )
                row = {"pooled": [pooled.auc_mean, pooled.auc_sd],
                       "importances": [float(x) for x in pooled.importances]}  # fmt: skip
                for p, X, y in zip(prepared, Xs, ys, strict=True):
                    r = evaluate_setting(s, X, y, NAMES, seeds=seeds)
                    row[p.collection.name] = [r.auc_mean, r.auc_sd]
                res["auc"][f"{which}/{s}"] = row
                print(
                    "AUC",
                    which,
                    s,
                    json.dumps({k: v for k, v in row.items() if k != "importances"}),
                    flush=True,
                )

    if args.fulfil:
        res["fulfilment_q_reg"] = fulfilment(args.out, prepared[0], olds[0], news[0])
        print("query-pair diagnosis, Q-REG", json.dumps(res["fulfilment_q_reg"]), flush=True)
    res["seconds"] = round(time.perf_counter() - t0, 1)
    if args.json:
        args.json.write_text(json.dumps(res, indent=1) + "\n", encoding="utf-8")
    print(f"done in {res['seconds']:.0f} s", flush=True)


def fulfilment(out: Path, first: pl.Prepared, old: np.ndarray, new: np.ndarray) -> dict:
    """The Q-REG column of the query-pair diagnosis (the experiment's 300 msmarco-20k pairs,
    seed 1) with the old and the new scores; the old must equal the stored file."""
    import torch

    from axiomatic.ares.fulfilment import sample_query_pairs
    from axiomatic.ares.pretrain import surface_forms
    from axiomatic.data.records import Dataset, Document, Query
    from axiomatic.experiments.ares2022.pretraining import _seeded
    from axiomatic.experiments.common import on_device
    from axiomatic.models.io import load_model
    from axiomatic.models.scoring import score_candidates
    from axiomatic.models.transformer import CrossEncoder

    torch.set_num_threads(1)
    models = {
        "MiniLM cross-encoder (no pre-training)": on_device(
            _seeded(lambda: CrossEncoder(max_length=96, head="mlp"), 0)
        ),
        "ARES_simple": load_model(str(out / "pretrain" / "simple" / "encoder"), device="auto"),
    }
    d, i, j = sample_query_pairs(first, 300, 1)
    surface = surface_forms(first)
    words = [surface.get(t, t) for t in first.index.terms]
    texts = first.index.texts or {}
    queries = {
        f"pq{k}": Query(f"pq{k}", " ".join(words[t] for t in first.pseudo.terms(int(k))))
        for k in np.unique(np.concatenate((i, j))).tolist()
    }
    doc_ids = [first.index.doc_ids[r] for r in d.tolist()]
    ds = Dataset(
        name="ares-query-pairs", queries=queries,
        documents={x: Document(x, texts[x]) for x in doc_ids}, candidates={q: [] for q in queries},
    )  # fmt: skip
    for x, a, b in zip(doc_ids, i.tolist(), j.tolist(), strict=True):
        ds.candidates[f"pq{a}"].append(x)
        ds.candidates[f"pq{b}"].append(x)
    prefs = {}
    for name, model in models.items():
        model.eval()
        run = score_candidates(model, ds, batch_size=64)
        si = np.array([run[f"pq{a}"][x] for a, x in zip(i.tolist(), doc_ids, strict=True)])
        sj = np.array([run[f"pq{b}"][x] for b, x in zip(j.tolist(), doc_ids, strict=True)])
        prefs[name] = np.sign(si - sj)
    stored = json.loads((out / "diagnosis" / "query_pairs.json").read_text(encoding="utf-8"))
    res: dict[str, Any] = {}
    col = NAMES.index("Q-REG")
    for which, scores in (("old", old), ("new", new)):
        first.ctx._score_cache["Q-REG"] = scores
        target = preference_features(first.ctx, i, j)[:, col]
        dec = target != 0
        res[which] = {
            "decisive": int(dec.sum()),
            **{name: float(np.mean(p[dec] == target[dec])) for name, p in prefs.items()},
        }
    if res["old"]["decisive"] != stored["decisive"]["Q-REG"] or any(
        res["old"][name] != stored["fulfilment"][name]["Q-REG"] for name in prefs
    ):
        sys.exit("error: the old Q-REG column does not reproduce diagnosis/query_pairs.json")
    return res


if __name__ == "__main__":
    main()
