"""Our preference matrices against golden ir_axioms 1.2.5 output (no ir_axioms needed here).

``golden/ir_axioms_1.2.5_demo.npz`` holds ir_axioms' preference matrices for every shared axiom
on three demo queries x 30 candidates, with everything needed to rebuild the same input: the
analyzed tokens of all demo documents, the candidate lists, base scores and term vectors
(``benchmarks/ir_axioms_ref/make_golden.py`` wrote it; see ``golden/README.md``).

Which axioms must agree cell by cell comes from ``benchmarks/bench_axioms.py`` (``SHARED``: ours,
its ir_axioms name, whether the definitions coincide), so the benchmark and this test cannot
drift apart. Definitions that differ (docs/axioms.md, "Every disagreement, explained"):
TFC1 is checked against its documented difference; M-TDC and STMC2 are left out (see below).
"""

from __future__ import annotations

import importlib.util
import math
from pathlib import Path

import numpy as np
import pytest

from axiomatic.axioms import QueryContext, parse_axiom
from axiomatic.axioms.similarity import VectorSimilarity
from axiomatic.data.records import Document, Query
from axiomatic.index.collection import CollectionIndex
from axiomatic.text.analyzer import Analyzer

REPO = Path(__file__).resolve().parents[2]
GOLDEN = Path(__file__).resolve().parent / "golden" / "ir_axioms_1.2.5_demo.npz"


def _shared() -> dict[str, tuple[str, bool]]:
    spec = importlib.util.spec_from_file_location(
        "bench_axioms", REPO / "benchmarks" / "bench_axioms.py"
    )
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return dict(mod.SHARED)


SHARED = _shared()
SAME = {ours: name for ours, (name, same) in SHARED.items() if same}
#: definitions that differ and are not compared here, with the reason
LEFT_OUT = {
    # ours is thesis eq. 3.9 (exactly two differing query-term counts, swapped, the rarer term more
    # frequent in d_i, a >= axiom); ir_axioms scores every pair of terms with different idf and
    # prefers the document with more points: no cell-level relation between the two follows.
    "M-TDC": "different definition (docs/axioms.md, disagreement 3)",
    # ours tests the single most similar (query term, non-query term) pair over all candidates;
    # ir_axioms recomputes all maximally similar pairs per document pair with a 20% ratio margin.
    "STMC2": "simplified pairwise form (docs/axioms.md, disagreement 4)",
}


@pytest.fixture(scope="module")
def golden():
    g = np.load(GOLDEN, allow_pickle=False)
    plain = Analyzer(stopwords=False, stemmer=None)
    docs = {
        str(d): Document(str(d), str(t)) for d, t in zip(g["doc_ids"], g["doc_tokens"], strict=True)
    }
    for d in docs.values():  # the stored tokens are what the index sees (df, idf, positions)
        assert plain.analyze(d.text) == d.text.split(), d.doc_id
    index = CollectionIndex.build(list(docs.values()), plain)
    sim = VectorSimilarity(
        {str(t): v.astype(np.float32) for t, v in zip(g["vocab"], g["vectors"], strict=True)}
    )
    contexts = {}
    for q in map(str, g["queries"]):
        cands = [docs[str(d)] for d in g[f"{q}.candidates"]]
        query = Query(q, str(g[f"{q}.query_tokens"]))
        contexts[q] = QueryContext.build(
            query, cands, index, similarity=sim, scores=g[f"{q}.scores"]
        )
    return g, contexts


def test_golden_file_covers_every_shared_axiom(golden):
    g, contexts = golden
    names = set(map(str, g["axioms"]))
    missing = sorted({name for name, _ in SHARED.values()} - names)
    assert not missing, (
        f"regenerate the golden file (benchmarks/ir_axioms_ref/make_golden.py) for {missing}"
    )
    assert set(LEFT_OUT) | set(SAME) | {"TFC1"} == set(SHARED)
    assert GOLDEN.stat().st_size < 200_000
    for q, ctx in contexts.items():
        assert ctx.n == 30 and (ctx.rows >= 0).all(), q


def _identical_term_sets(ctx: QueryContext) -> np.ndarray:
    sets = [frozenset(t) for t in ctx.unique_terms()]
    return np.asarray([[a == b for b in sets] for a in sets])


def _exact_average_ties(ctx: QueryContext) -> np.ndarray:
    """Pairs whose average similarity of (distinct document term, query term) pairs is equal
    when summed with correct rounding (``math.fsum``)."""
    sets = [sorted(set(t)) for t in ctx.unique_terms()]
    avg = []
    for terms in sets:
        M = ctx.term_similarity().matrix(terms, ctx.terms)
        avg.append(math.fsum(M.ravel().tolist()) / max(M.size, 1))
    a = np.asarray(avg)
    return np.abs(a[:, None] - a[None, :]) <= 1e-12


@pytest.mark.parametrize("spec", sorted(SAME))
def test_same_definition_agrees_with_ir_axioms(golden, spec):
    g, contexts = golden
    name = SAME[spec]
    nonzero = 0
    for q, ctx in contexts.items():
        ours = parse_axiom(spec).preferences(ctx)
        ref = g[f"{q}.{name}"]
        if name == "STMC1":
            # STMC1 compares average term similarities with a strict ">". Where the averages are
            # equal in exact arithmetic (the same distinct terms; or two terms that mirror each
            # other, e.g. {compost} vs {worm} for the query "compost worm"), ir_axioms sums in
            # Python-set order (string hashing) and reports the rounding noise as a preference
            # (it changes with PYTHONHASHSEED). Those cells say nothing: left out. On identical
            # term sets ours must have no preference (indiscernible duplicates, test_laws.py).
            tie = _exact_average_ties(ctx)
            assert (ours[_identical_term_sets(ctx)] == 0).all()
            ours, ref = np.where(tie, 0, ours), np.where(tie, 0, ref)
        bad = np.argwhere(ours != ref)
        assert len(bad) == 0, (
            f"{spec} vs ir_axioms {name} on {q}: {len(bad)} cells differ, e.g. "
            + ", ".join(
                f"({ctx.doc_ids[i]}, {ctx.doc_ids[j]}): ours {ours[i, j]}, ir_axioms {ref[i, j]}"
                for i, j in bad[:3]
            )
        )
        nonzero += int((ref != 0).sum())
    assert nonzero > 0, f"the golden queries have no {name} preference: the comparison is vacuous"


def test_tfc1_differs_as_documented(golden):
    """ir_axioms 1.2.5 TFC1 prefers the larger summed query-term count unless the sums are within
    10%, and skips its LEN precondition (docs/axioms.md, disagreement 1). Ours (thesis eq. 3.3)
    prefers a subset of the larger-sum pairs, so it never contradicts ir_axioms."""
    g, contexts = golden
    for q, ctx in contexts.items():
        ref = g[f"{q}.TFC1"]
        S = ctx.qsum.astype(float)
        expected = np.sign(S[:, None] - S[None, :]).astype(np.int8)
        close = np.asarray([[math.isclose(a, b, rel_tol=0.1) for b in S] for a in S])
        expected[close] = 0
        assert np.array_equal(ref, expected), q
        ours = parse_axiom("TFC1").preferences(ctx)
        assert not ((ours * ref) < 0).any(), q
        assert (S[:, None] > S[None, :])[ours > 0].all(), q
        lens = ctx.doc_len[:, None], ctx.doc_len[None, :]
        assert (np.abs(lens[0] - lens[1]) <= 0.1 * np.maximum(*lens))[ours != 0].all()
        assert (ref != 0).sum() > (ours != 0).sum() > 0, q
