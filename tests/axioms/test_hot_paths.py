"""Hot paths of the engine: work done once per context / query / document.

- the n x n length-closeness matrix is computed once per context and tolerance, not per axiom;
- proximity features come from a positional index (token ids per document, analyzed once and
  shared by every query) and are vectorized; they equal the per-occurrence reference loop that
  they replace (kept below as the oracle) on the demo collection and on random texts;
- ``variant_counts`` builds one query context per query, not one per axiom and stage.
"""

from __future__ import annotations

from itertools import combinations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from axiomatic.axioms import QueryContext, parse_axiom
from axiomatic.axioms.kernels import proximity
from axiomatic.data.demo import demo_dataset
from axiomatic.data.records import Document, Query
from axiomatic.index.collection import CollectionIndex
from axiomatic.text.analyzer import Analyzer

PROX = ("PROX1", "PROX2", "PROX3", "PROX4", "PROX5")

WORDS = ["apple", "bank", "cat", "dog", "eel", "fig", "goat", "hat"]
FEATURES = ("avg_between", "first_sum", "phrase", "group_occ", "group_cnt", "span")


def reference_prox_features(ctx: QueryContext) -> dict[str, np.ndarray]:
    """The previous implementation: re-analyze every candidate, loop over every occurrence."""
    n, m = ctx.n, ctx.n_terms
    an = ctx.index.analyzer
    qtok = an.analyze(ctx.query.text)
    qid = {t: k for k, t in enumerate(ctx.terms)}
    out = {
        "avg_between": np.zeros(n),
        "first_sum": np.zeros(n),
        "phrase": np.full(n, np.inf),
        "group_occ": np.zeros(n),
        "group_cnt": np.zeros(n),
        "span": np.full(n, np.inf),
    }
    for i in range(n):
        toks = an.analyze(ctx.documents[i].text)
        P: list[list[int]] = [[] for _ in range(m)]
        for p, tok in enumerate(toks):
            if tok in qid:
                P[qid[tok]].append(p)
        if (ctx.counts[i] > 0).sum() < 2:  # the preconditions need two indexed query terms
            continue
        present = [k for k in range(m) if P[k]]
        firsts = {k: P[k][0] for k in present}
        out["avg_between"][i] = np.mean(
            [abs(firsts[a] - firsts[b]) - 1 for a, b in combinations(present, 2)]
        )
        out["first_sum"][i] = sum(firsts.values())
        for s in P[qid[qtok[0]]]:
            if toks[s : s + len(qtok)] == qtok:
                out["phrase"][i] = s
                break
        groups = []
        for k in present:
            for idx in P[k]:
                g = [idx]
                for o in present:
                    if o != k:
                        g.append(min(P[o], key=lambda x: (abs(x - idx), x)))
                groups.append(g)
        nonq = np.concatenate([[0], np.cumsum([t not in qid for t in toks])])
        occ = [int(nonq[max(g)] - nonq[min(g) + 1]) if max(g) > min(g) else 0 for g in groups]
        out["group_occ"][i] = min(occ)
        out["group_cnt"][i] = occ.count(min(occ))
        out["span"][i] = float(np.mean([max(g) - min(g) for g in groups]))
    return out


def assert_same_features(ctx: QueryContext) -> None:
    got = proximity._prox_features(ctx)
    want = reference_prox_features(ctx)
    for f in FEATURES:
        assert np.array_equal(got[f], want[f]), (f, got[f], want[f])


def test_proximity_features_equal_the_reference_loop_on_the_demo() -> None:
    ds = demo_dataset()
    idx = CollectionIndex.build(list(ds.documents.values()), Analyzer())
    for qid, q in ds.queries.items():
        docs = [ds.documents[d] for d in ds.candidate_ids(qid)]
        assert_same_features(QueryContext.build(q, docs, idx))


@settings(max_examples=150, deadline=None, derandomize=True)
@given(
    st.lists(st.lists(st.sampled_from(WORDS), min_size=1, max_size=14), min_size=2, max_size=7),
    st.lists(st.sampled_from([*WORDS[:4], "zzz"]), min_size=1, max_size=4),
    st.booleans(),
)
def test_proximity_features_equal_the_reference_loop_on_random_texts(docs, query, artificial):
    documents = [Document(f"d{i}", " ".join(t)) for i, t in enumerate(docs)]
    idx = CollectionIndex.build(documents, Analyzer(stopwords=False, stemmer=None))
    if artificial:  # documents outside the index (and an out-of-vocabulary query word)
        documents = [*documents, Document("x", " ".join(docs[0] + ["zzz"] + query))]
    ctx = QueryContext.build(Query("q", " ".join(query)), documents, idx)
    assert_same_features(ctx)


def test_documents_are_analyzed_once_across_contexts(monkeypatch: pytest.MonkeyPatch) -> None:
    """Two contexts over the same candidates (another query, a rebuilt context) reuse the
    positional index instead of analyzing every candidate again (index built without its
    positional index: candidates are analyzed lazily, once)."""
    ds = demo_dataset()
    idx = CollectionIndex.build(list(ds.documents.values()), Analyzer(), positions=False)
    calls: list[str] = []
    real = Analyzer.analyze
    monkeypatch.setattr(
        Analyzer, "analyze", lambda self, text: calls.append(text) or real(self, text)
    )
    prox = parse_axiom("PROX5")
    qid = next(q for q in ds.queries if len(ds.candidate_ids(q)) > 2)
    docs = [ds.documents[d] for d in ds.candidate_ids(qid)]
    for _ in range(2):  # e.g. counts / mining rebuild a context for the same query
        prox.preferences(QueryContext.build(ds.queries[qid], docs, idx))
    texts = {d.text for d in docs}
    analyzed = [t for t in calls if t in texts]
    assert analyzed and len(analyzed) == len(set(analyzed))  # each candidate at most once


def test_positional_index_from_indexing_means_no_analysis_at_query_time(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The default index keeps every document's token ids from its indexing pass: proximity
    axioms never analyze an indexed candidate, and give the same preferences as the lazy path."""
    ds = demo_dataset()
    docs_all = list(ds.documents.values())
    idx = CollectionIndex.build(docs_all, Analyzer())
    lazy = CollectionIndex.build(docs_all, Analyzer(), positions=False)
    assert idx.token_slots is not None and lazy.token_slots is None
    assert len(idx.token_slots[0]) == idx.total_terms
    qids = [q for q in ds.queries if len(ds.candidate_ids(q)) > 2]
    want = {}
    for qid in qids:
        docs = [ds.documents[d] for d in ds.candidate_ids(qid)]
        ctx = QueryContext.build(ds.queries[qid], docs, lazy)
        want[qid] = {a: parse_axiom(a).preferences(ctx) for a in PROX}
    calls: list[str] = []
    real = Analyzer.analyze
    monkeypatch.setattr(
        Analyzer, "analyze", lambda self, text: calls.append(text) or real(self, text)
    )
    for qid in qids:
        docs = [ds.documents[d] for d in ds.candidate_ids(qid)]
        ctx = QueryContext.build(ds.queries[qid], docs, idx)
        for a in PROX:
            np.testing.assert_array_equal(parse_axiom(a).preferences(ctx), want[qid][a])
        texts = {d.text for d in docs}
        assert not [t for t in calls if t in texts]


def test_positional_table_gathered_from_the_positional_index_equals_the_lazy_path() -> None:
    """The candidates' positional table gathered in one step from the index's positional index
    equals the per-document path (every min_terms; a non-indexed candidate falls back)."""
    ds = demo_dataset()
    docs_all = list(ds.documents.values())
    idx = CollectionIndex.build(docs_all, Analyzer())
    lazy = CollectionIndex.build(docs_all, Analyzer(), positions=False)
    extra = Document(doc_id="new", text=docs_all[0].text + " " + docs_all[1].text)
    for qid in ds.queries:
        docs = [ds.documents[d] for d in ds.candidate_ids(qid)]
        for cands in (docs, [*docs, extra]):
            for min_terms in (0, 1, 2, 3):
                got = QueryContext.build(ds.queries[qid], cands, idx).positional_table(min_terms)
                want = QueryContext.build(ds.queries[qid], cands, lazy).positional_table(min_terms)
                for g, w in zip(got, want, strict=True):
                    assert g.dtype == w.dtype
                    np.testing.assert_array_equal(g, w)


@pytest.mark.parametrize("n_docs", [20, 700], ids=["vocabulary-below-65536", "above-65536"])
def test_proximity_from_the_positional_index_equals_analyzing_afresh(
    n_docs: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Proximity features and PROX preferences from the index's positional index (row slots,
    decoded in the compiled kernel or by the gather of the numpy form) equal the reference loop
    over freshly analyzed texts, and the lazy path, below and above 65,536 terms."""
    from axiomatic.axioms.kernels import _jit
    from axiomatic.index import collection

    monkeypatch.setattr(collection, "_CHUNK_TOKENS", 1000)  # documents span chunks
    rng = np.random.default_rng(7)
    docs = []
    for i in range(n_docs):  # 100 words of its own, the shared words in between
        words = [f"u{i * 100 + j}" for j in range(100)]
        for _ in range(int(rng.integers(5, 40))):
            words.insert(int(rng.integers(0, len(words) + 1)), str(rng.choice(WORDS)))
        docs.append(Document(f"d{i}", " ".join(words)))
    raw = Analyzer(stemmer=None, stopwords=False)
    idx = CollectionIndex.build(docs, raw)
    lazy = CollectionIndex.build(docs, raw, positions=False)
    assert (idx.n_terms > 1 << 16) == (n_docs == 700)
    assert idx.token_slots is not None and idx.token_slots[0].dtype == np.uint8
    last = n_docs - 1  # its own words have the largest ids
    queries = [
        "apple bank",
        "cat dog eel",
        f"apple u{last * 100 + 3} u{last * 100 + 4}",
        f"u{last * 100 + 3} u{last * 100 + 4} u{last * 100 + 5} bank",
        "goat hat zzz fig",
    ]
    cands = [docs[k] for k in sorted({*rng.choice(n_docs, 15, replace=False).tolist(), last})]
    for on in (True, False):
        monkeypatch.setattr(_jit, "_enabled", on)
        for text in queries:
            ctx = QueryContext.build(Query("q", text), cands, idx)
            assert_same_features(ctx)
            ref = QueryContext.build(Query("q", text), cands, lazy)
            for a in PROX:
                np.testing.assert_array_equal(
                    parse_axiom(a).preferences(ctx), parse_axiom(a).preferences(ref)
                )


def test_length_matrix_once_per_context_and_tolerance(monkeypatch: pytest.MonkeyPatch) -> None:
    from axiomatic.axioms.kernels import _common

    calls = []
    real = _common.lengths_close
    monkeypatch.setattr(
        _common, "lengths_close", lambda *a, **k: calls.append(a[1:]) or real(*a, **k)
    )
    rng = np.random.default_rng(0)
    ctx = QueryContext.from_arrays(rng.integers(0, 3, (40, 3)), rng.integers(5, 9, 40))
    for name in ("TFC1", "M-TDC", "TDC", "TFC3", "LB2", "LEN-AND"):
        parse_axiom(name).preferences(ctx)  # all relaxed: delta_rel = 0.1
    assert len(calls) == 1
    parse_axiom("TFC1(delta=1)").preferences(ctx)
    assert len(calls) == 2


def test_counts_build_one_context_per_query(monkeypatch: pytest.MonkeyPatch) -> None:
    from axiomatic.diagnose import counts

    ds = demo_dataset()
    builds: list[str] = []
    real = QueryContext.build.__func__  # type: ignore[attr-defined]

    def build(cls, query, *a, **k):
        builds.append(query.query_id)
        return real(cls, query, *a, **k)

    monkeypatch.setattr(QueryContext, "build", classmethod(build))
    table = counts.variant_counts(ds, analyzer="default")
    assert len(table) == 15  # 4 axioms x stages
    n_queries = sum(1 for q in ds.queries if ds.candidate_ids(q))
    assert len(builds) <= 2 * n_queries  # once per query (+ once after dropping empty docs)
    assert len(set(builds)) == n_queries
