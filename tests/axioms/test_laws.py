"""Laws the axiom kernels must obey, checked with hypothesis, and proof that each law can fail.

``Axiom.preferences`` is ``P - P.T``: antisymmetric whatever a kernel returns, so antisymmetry says
nothing about a kernel (a random kernel passes it). The laws here constrain what kernels compute:

1. permutation equivariance: re-ordering the candidates re-orders the relation and nothing else
   (``preferences(ctx[perm]) == P[perm][:, perm]``; triples likewise);
2. duplicates are indiscernible: a copy of a candidate (same text, new id) is never preferred to
   or by the original, compares to every other candidate like the original, and changes no other
   tuple;
3. monotonicity in query-term occurrences (TFC1, AND, M-AND and their LEN- forms): replacing a
   non-query word of ``d_i`` by a query term keeps every pair ``d_i`` wins and adds none it loses;
4. the length precondition holds on every tuple (an oracle written here, not the kernels' helper);
5. a larger length tolerance never removes a tuple (``delta`` and ``delta_rel`` chains, up to no
   limit at all).

Each law is a ``check_*`` function that raises :class:`LawViolation`. The ``test_law_*`` tests
run it on the real kernels; the ``test_detects_*`` tests replace one catalogue kernel with a
deliberately broken version (random output, an order-dependent tie-break, a stale per-query
cache, a dropped length precondition, ...) and require hypothesis to find a context on which the
same check fails, with the same strategies the law tests draw from.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Sequence
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, Phase, find, given, settings
from hypothesis import strategies as st
from hypothesis.errors import NoSuchExample
from hypothesis.extra.numpy import arrays

from axiomatic.axioms import Axiom, QueryContext, get_definition, list_axioms, parse_axiom
from axiomatic.axioms import catalogue as catalogue_module
from axiomatic.axioms import engine as engine_module
from axiomatic.axioms.similarity import ExactSimilarity
from axiomatic.data.records import Document, Query
from axiomatic.index.collection import CollectionIndex
from axiomatic.text.analyzer import Analyzer

SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
#: the laws on count-only contexts are cheap: more examples
MANY = settings(SETTINGS, max_examples=100)
#: settings of the searches for a counterexample against a broken kernel (deterministic; the first
#: counterexample is enough, so no shrinking)
FIND = settings(
    max_examples=400,
    phases=[Phase.generate],
    deadline=None,
    database=None,
    derandomize=True,
    suppress_health_check=list(HealthCheck),
)

#: axioms computable from the count arrays alone (``QueryContext.from_arrays``)
COUNT_ONLY = [
    "TFC1",
    "TFC2",
    "M-TDC",
    "TFC3",
    "TDC",
    "LNC1",
    "TF-LNC",
    "LB2",
    "AND",
    "LEN-AND",
    "M-AND",
    "LEN-M-AND",
]
ALL_AXIOMS = [row["name"] for row in list_axioms(relates="documents")]
#: axioms whose preference can only grow with the query-term counts of the preferred document
MONOTONE_IN_COUNTS = ["TFC1", "AND", "M-AND", "LEN-AND", "LEN-M-AND"]
VARIANTS = ["strict", "extended", "relaxed"]


def every_variant(names: Iterable[str]) -> list[Axiom]:
    """Every variant of every named axiom, with its default parameters."""
    return [Axiom.create(n, v) for n in names for v in get_definition(n).variants]


# ---------------------------------------------------------------------- strategies
@st.composite
def contexts(draw, max_docs=9, max_terms=3):
    """Count-only contexts: small counts, every document has at least one non-query word
    (``doc_len > sum of counts``). Half of the documents are an earlier one changed by one step
    (one more occurrence, two counts swapped, one occurrence moved to another term, two terms
    merged into one, an exact copy, a chain of two steps), so that equal lengths, count steps
    and chains of them (TFC2) are frequent."""
    n = draw(st.integers(2, max_docs))
    m = draw(st.integers(1, max_terms))
    rows: list[np.ndarray] = []
    lens: list[int] = []
    for _ in range(n):
        if rows and draw(st.booleans()):
            src = draw(st.integers(0, len(rows) - 1))
            c, ln = rows[src].copy(), lens[src]
            a, b = draw(st.integers(0, m - 1)), draw(st.integers(0, m - 1))
            ops = ["more", "more+len", "swap", "move", "merge", "copy", "chain"]
            op = draw(st.sampled_from(ops))
            if op == "chain":  # c, c + e_a, c + 2 e_a at one length (a TFC2 triple)
                c = np.maximum(c, 1)
                ln = max(ln, int(c.sum()) + 3)
                for _ in (0, 1):
                    rows.append(c.copy())
                    lens.append(ln)
                    c[a] += 1
            elif op in ("more", "more+len"):
                c[a] += 1
                ln += op == "more+len" or ln <= c.sum()
            elif op == "swap":
                c[a], c[b] = c[b], c[a]
            elif op == "move" and c[a] > 0:
                c[a] -= 1
                c[b] += 1
            elif op == "merge" and a != b:  # both terms -> one term as often (TFC3, LB2)
                c[b] = 1
                c[a] = max(c[a], 1)
                rows.append(c.copy())
                lens.append(max(ln, int(c.sum()) + 1))
                ln = lens[-1]
                c[a] += c[b]
                c[b] = 0
        else:
            c = draw(arrays(np.int64, (m,), elements=st.integers(0, 3)))
            ln = int(c.sum()) + draw(st.integers(1, 4))
        rows.append(c)
        lens.append(int(ln))
    rows, lens = rows[:max_docs], lens[:max_docs]
    idf = draw(arrays(np.float64, (m,), elements=st.sampled_from([1.0, 1.05, 2.0, 3.0])))
    qtf = draw(arrays(np.int64, (m,), elements=st.integers(1, 2)))
    return QueryContext.from_arrays(np.stack(rows), np.asarray(lens), idf=idf, qtf=qtf)


WORDS = ["solar", "panel", "energy", "sun", "light", "cell", "roof", "cost"]


@st.composite
def text_contexts(draw):
    """Contexts built from texts (positions, vocabularies, similarity, scores). Short documents
    over eight words, half of them a copy of an earlier one with one word replaced (equal
    lengths, one count step: TFC1/TFC2/M-TDC/TFC3/LB2 pairs), sometimes one concatenated 2-3
    times (LNC2)."""
    n = draw(st.integers(2, 8))
    toks: list[list[str]] = []
    for _ in range(n):
        if toks and draw(st.booleans()):
            base = list(toks[draw(st.integers(0, len(toks) - 1))])
            base[draw(st.integers(0, len(base) - 1))] = draw(st.sampled_from(WORDS))
            toks.append(base)
        else:
            toks.append(draw(st.lists(st.sampled_from(WORDS), min_size=1, max_size=8)))
    texts = [" ".join(t) for t in toks]
    if draw(st.booleans()):
        texts.append(" ".join([texts[0]] * draw(st.integers(2, 3))))
    docs = [Document(f"d{i}", t) for i, t in enumerate(texts)]
    q = " ".join(draw(st.lists(st.sampled_from(WORDS[:5]), min_size=1, max_size=3)))
    idx = CollectionIndex.build(docs, Analyzer(stopwords=False, stemmer=None))
    scores = draw(arrays(np.float64, (len(docs),), elements=st.sampled_from([1.0, 1.05, 2.0])))
    return QueryContext.build(Query("q", q), docs, idx, similarity=ExactSimilarity(), scores=scores)


@st.composite
def with_permutation(draw, ctx_strategy):
    ctx = draw(ctx_strategy)
    return ctx, draw(st.permutations(range(ctx.n)))


@st.composite
def with_document(draw, ctx_strategy):
    ctx = draw(ctx_strategy)
    return ctx, draw(st.integers(0, ctx.n - 1))


@st.composite
def with_document_and_term(draw, ctx_strategy):
    ctx = draw(ctx_strategy)
    return ctx, draw(st.integers(0, ctx.n - 1)), draw(st.integers(0, ctx.n_terms - 1))


# ---------------------------------------------------------------------- the laws
class LawViolation(AssertionError):
    """A kernel broke a law (the message says which tuples)."""


def reorder(ctx: QueryContext, order: Sequence[int]) -> QueryContext:
    """The context of the candidates ``order`` (indices into ``ctx``), rebuilt from its inputs.

    A repeated index becomes a copy with a new id (``<id>#copy``), which the context analyzes on
    the fly instead of reading the index row: the copy and the original share only their text.
    """
    order = [int(o) for o in order]
    if ctx.index is None:
        return QueryContext.from_arrays(
            ctx.counts[order], ctx.doc_len[order], idf=ctx.idf, qtf=ctx.qtf, terms=ctx.terms
        )
    seen: set[int] = set()
    docs = []
    for o in order:
        d = ctx.documents[o]
        docs.append(Document(f"{d.doc_id}#copy", d.text) if o in seen else d)
        seen.add(o)
    scores = None if ctx.scores is None else ctx.scores[order]
    return QueryContext.build(ctx.query, docs, ctx.index, similarity=ctx.similarity, scores=scores)


def relation(ax: Axiom, ctx: QueryContext) -> set[tuple[int, ...]]:
    """Every tuple where the axiom's preconditions hold: ordered pairs ``(i, j)`` of ``holds``,
    or the ``(i, j, k)`` triples of a triple axiom."""
    if ax.arity == 3:
        inst = ax.instances(ctx)
        assert inst.k is not None
        return set(zip(inst.i.tolist(), inst.j.tolist(), inst.k.tolist(), strict=True))
    H = ax.holds(ctx)
    if H.dtype != bool or H.shape != (ctx.n, ctx.n):
        raise LawViolation(f"{ax}: holds() gave {H.dtype} {H.shape}, expected bool {(ctx.n,) * 2}")
    return set(zip(*(x.tolist() for x in np.nonzero(H)), strict=True))


def _diff(ax: Axiom, law: str, got: set, want: set) -> None:
    if got != want:
        raise LawViolation(
            f"{ax} breaks {law}: unexpected {sorted(got - want)[:5]}, "
            f"missing {sorted(want - got)[:5]}"
        )


def check_permutation_equivariance(
    axioms: Sequence[Axiom], ctx: QueryContext, perm: Sequence[int]
) -> None:
    """Candidate ``a`` of ``ctx[perm]`` is candidate ``perm[a]`` of ``ctx``: the relation on the
    permuted context, mapped back, is the relation on ``ctx``."""
    other = reorder(ctx, perm)
    p = np.asarray(perm)
    for ax in axioms:
        back = {tuple(int(p[a]) for a in t) for t in relation(ax, other)}
        _diff(ax, "permutation equivariance", back, relation(ax, ctx))
        if ax.arity == 2:
            P, Q = ax.preferences(ctx), ax.preferences(other)
            if P.dtype != np.int8 or not np.array_equal(Q, P[p][:, p]):
                raise LawViolation(f"{ax}: preferences(ctx[perm]) != P[perm][:, perm]")


def check_duplicate_indiscernible(axioms: Sequence[Axiom], ctx: QueryContext, i: int) -> None:
    """Append a copy ``c`` of candidate ``i``: the relation is unchanged by swapping ``i`` and
    ``c``, restricted to the old candidates it is the old relation, and no ``>`` axiom holds
    between ``i`` and ``c`` (a ``>=`` axiom may hold both ways: no preference)."""
    n = ctx.n
    other = reorder(ctx, [*range(n), i])
    swap = {i: n, n: i}
    for ax in axioms:
        R = relation(ax, other)
        _diff(
            ax, "indiscernible duplicates (swap)", {tuple(swap.get(a, a) for a in t) for t in R}, R
        )
        _diff(
            ax, "indiscernible duplicates (others)", {t for t in R if n not in t}, relation(ax, ctx)
        )
        if ax.relation == ">" and (i, n) in R:
            raise LawViolation(f"{ax}: prefers candidate {i} to its own copy")


def check_more_occurrences_keep_wins(
    axioms: Sequence[Axiom], ctx: QueryContext, i: int, t: int
) -> None:
    """Replace a non-query word of candidate ``i`` by query term ``t`` (count contexts: ``c(t, d_i)``
    grows by one, ``|d_i|`` stays): ``d_i`` keeps every pair it wins and gains no pair it loses."""
    if ctx.index is not None or ctx.doc_len[i] <= ctx.counts[i].sum():
        raise ValueError("needs a count-only context whose candidate i has a non-query word")
    counts = ctx.counts.copy()
    counts[i, t] += 1
    more = QueryContext.from_arrays(counts, ctx.doc_len, idf=ctx.idf, qtf=ctx.qtf, terms=ctx.terms)
    for ax in axioms:
        H, H2 = ax.holds(ctx), ax.holds(more)
        lost = np.nonzero(H[i] & ~H2[i])[0]
        gained = np.nonzero(H2[:, i] & ~H[:, i])[0]
        if len(lost) or len(gained):
            raise LawViolation(
                f"{ax}: one more occurrence of term {t} in candidate {i} lost its wins over "
                f"{lost.tolist()} / made it lose to {gained.tolist()}"
            )


def _length_close(lengths: np.ndarray, delta: float | None, delta_rel: float | None) -> bool:
    """The length precondition (thesis step 2 / eq. 4.1), written independently of the kernels:
    longest minus shortest within ``delta`` and, relative to the longest, within ``delta_rel``."""
    lo, hi = int(lengths.min()), int(lengths.max())
    if delta is not None and hi - lo > delta:
        return False
    return delta_rel is None or hi == 0 or (hi - lo) / hi <= delta_rel


def check_length_precondition(axioms: Sequence[Axiom], ctx: QueryContext) -> None:
    """Every tuple of an axiom with a length tolerance has close document lengths."""
    for ax in axioms:
        if not ax.definition.length:
            continue
        delta, delta_rel = ax.param("delta"), ax.param("delta_rel")
        bad = [
            t
            for t in relation(ax, ctx)
            if not _length_close(ctx.doc_len[list(t)], delta, delta_rel)
        ]
        if bad:
            lens = [ctx.doc_len[list(t)].tolist() for t in bad[:3]]
            raise LawViolation(f"{ax}: tuples {bad[:3]} with lengths {lens} are not close")


#: increasing tolerances, ending with no length precondition at all
TOLERANCE_CHAINS = (
    ({"delta": 0}, {"delta": 1}, {"delta": 3}, {"delta": None, "delta_rel": None}),
    (
        {"delta_rel": 0.0},
        {"delta_rel": 0.05},
        {"delta_rel": 0.1},
        {"delta_rel": 0.3},
        {"delta": None, "delta_rel": None},
    ),
)


def check_tolerance_monotone(names: Sequence[str], ctx: QueryContext) -> None:
    """A larger length tolerance never removes a tuple (every variant, both tolerance forms)."""
    for name in names:
        d = get_definition(name)
        if not d.length:
            continue
        for variant in d.variants:
            for chain in TOLERANCE_CHAINS:
                prev, prev_ax = None, None
                for params in chain:
                    ax = Axiom.create(name, variant, **params)
                    R = relation(ax, ctx)
                    if prev is not None and not prev <= R:
                        raise LawViolation(
                            f"{ax} drops {sorted(prev - R)[:5]} that the smaller tolerance "
                            f"{prev_ax} keeps"
                        )
                    prev, prev_ax = R, ax


# ---------------------------------------------------------------------- laws on the real kernels
@MANY
@given(with_permutation(contexts()))
def test_law_permutation_equivariance_counts(case):
    check_permutation_equivariance(every_variant(COUNT_ONLY), *case)


@SETTINGS
@given(with_permutation(text_contexts()))
def test_law_permutation_equivariance_texts(case):
    check_permutation_equivariance(every_variant(ALL_AXIOMS), *case)


@MANY
@given(with_document(contexts()))
def test_law_duplicates_are_indiscernible_counts(case):
    check_duplicate_indiscernible(every_variant(COUNT_ONLY), *case)


@SETTINGS
@given(with_document(text_contexts()))
def test_law_duplicates_are_indiscernible_texts(case):
    check_duplicate_indiscernible(every_variant(ALL_AXIOMS), *case)


@MANY
@given(with_document_and_term(contexts()))
def test_law_more_query_term_occurrences_keep_wins(case):
    check_more_occurrences_keep_wins(every_variant(MONOTONE_IN_COUNTS), *case)


@MANY
@given(contexts(), st.sampled_from([0, 1, 3]), st.sampled_from([None, 0.0, 0.1, 0.3]))
def test_law_length_precondition_counts(ctx, delta, delta_rel):
    axioms = [
        Axiom.create(a.name, a.variant, delta=delta, delta_rel=delta_rel)
        for a in every_variant(COUNT_ONLY)
        if a.definition.length
    ]
    check_length_precondition(axioms + every_variant(COUNT_ONLY), ctx)


@SETTINGS
@given(text_contexts())
def test_law_length_precondition_texts(ctx):
    check_length_precondition(every_variant(ALL_AXIOMS), ctx)


@MANY
@given(contexts())
def test_law_tolerance_monotone_counts(ctx):
    check_tolerance_monotone(COUNT_ONLY, ctx)


@SETTINGS
@given(text_contexts())
def test_law_tolerance_monotone_texts(ctx):
    check_tolerance_monotone(["REG", "STMC3", "LEN-DIV"], ctx)


# ---------------------------------------------------------------------- each law can fail
Kernel = Callable[..., Any]


def break_kernel(monkeypatch: pytest.MonkeyPatch, name: str, make: Callable[[Kernel], Kernel]):
    """Replace axiom ``name``'s catalogue kernel by ``make(real_kernel)`` for this test."""
    d = get_definition(name)
    broken = dataclasses.replace(d, kernel=make(d.kernel))
    monkeypatch.setitem(catalogue_module.default_catalogue().entries, d.name, broken)


def violates(check: Callable[..., None], *args: Any) -> bool:
    try:
        check(*args)
    except LawViolation:
        return True
    return False


def random_kernel(real: Kernel) -> Kernel:
    """Seeded random output: the same matrix whatever the candidates are (antisymmetric after
    ``P - P.T`` all the same)."""

    def kernel(ctx, variant, p, rows):
        return np.random.default_rng(0).random((ctx.n, ctx.n))[rows] < 0.3

    return kernel


def earlier_wins_ties(real: Kernel) -> Kernel:
    """Among candidates with equal query-term mass, the earlier one wins (a tie-break leaking
    the candidate order)."""

    def kernel(ctx, variant, p, rows):
        pos = np.arange(ctx.n)
        tie = (ctx.qsum[rows, None] == ctx.qsum[None, :]) & (pos[rows, None] < pos[None, :])
        return real(ctx, variant, p, rows) | tie

    return kernel


def test_detects_random_kernel(monkeypatch):
    ax = every_variant(["TFC1"])
    assert not violates(check_permutation_equivariance, ax, *_first(with_permutation(contexts())))
    break_kernel(monkeypatch, "TFC1", random_kernel)
    find(
        with_permutation(contexts()),
        lambda c: violates(check_permutation_equivariance, ax, *c),
        settings=FIND,
    )
    find(
        with_document(contexts()),
        lambda c: violates(check_duplicate_indiscernible, ax, *c),
        settings=FIND,
    )


def test_detects_order_dependent_tie_break(monkeypatch):
    ax = every_variant(["M-AND"])
    break_kernel(monkeypatch, "M-AND", earlier_wins_ties)
    find(
        with_permutation(contexts()),
        lambda c: violates(check_permutation_equivariance, ax, *c),
        settings=FIND,
    )
    find(
        with_document(contexts()),
        lambda c: violates(check_duplicate_indiscernible, ax, *c),
        settings=FIND,
    )


def test_detects_order_dependent_triples(monkeypatch):
    """TFC2 that keeps only triples in candidate order ``i < j < k``."""

    def ordered(real):
        def kernel(ctx, variant, p, pairs_ok=None):
            i, j, k = real(ctx, variant, p, pairs_ok)
            keep = (i < j) & (j < k)
            return i[keep], j[keep], k[keep]

        return kernel

    ax = [Axiom.create("TFC2", "relaxed", delta=None, delta_rel=None)]
    break_kernel(monkeypatch, "TFC2", ordered)
    find(
        with_permutation(contexts()),
        lambda c: violates(check_permutation_equivariance, ax, *c),
        settings=FIND,
    )


def test_detects_stale_per_query_cache(monkeypatch):
    """PROX2 whose result is memoized by query text (as a cache keyed by the query or by document
    ids alone would be): a re-ordered candidate list gets the old order's matrix."""
    stale: dict[tuple[str, int, int], np.ndarray] = {}

    def cached(real):
        def kernel(ctx, variant, p, rows):
            key = (ctx.query.text, rows.start, rows.stop)
            return stale.setdefault(key, real(ctx, variant, p, rows))

        return kernel

    ax = every_variant(["PROX2"])
    break_kernel(monkeypatch, "PROX2", cached)

    def broken(case) -> bool:
        stale.clear()
        return violates(check_permutation_equivariance, ax, *case)

    find(with_permutation(text_contexts()), broken, settings=FIND)


def test_detects_non_monotone_tfc1(monkeypatch):
    """TFC1 that asks for exactly one more occurrence (a misreading of TFC2's step of 1)."""

    def exactly_one_more(real):
        def kernel(ctx, variant, p, rows):
            S = ctx.qsum
            return real(ctx, variant, p, rows) & (S[rows, None] == S[None, :] + 1)

        return kernel

    ax = every_variant(["TFC1"])
    cases = with_document_and_term(contexts())
    assert not violates(check_more_occurrences_keep_wins, ax, *_first(cases))
    break_kernel(monkeypatch, "TFC1", exactly_one_more)
    find(cases, lambda c: violates(check_more_occurrences_keep_wins, ax, *c), settings=FIND)


def test_detects_dropped_length_precondition(monkeypatch):
    """The engine applies the length precondition once, from the definition: an engine that
    drops it (or a definition that forgets ``length``) breaks the law."""
    for name in ("TFC1", "M-TDC", "TDC"):
        ax = every_variant([name])
        with monkeypatch.context() as m:
            m.setattr(engine_module, "_tolerance", lambda d, p: None)
            find(
                contexts(),
                lambda c, ax=ax: violates(check_length_precondition, ax, c),
                settings=FIND,
            )


def test_detects_non_monotone_tolerance(monkeypatch):
    """TFC1 that reads ``delta`` as the exact length difference instead of a bound."""

    def exact_difference(real):
        def kernel(ctx, variant, p, rows):
            out = real(ctx, variant, {**p, "delta": None}, rows)
            if p.get("delta") is None:
                return out
            L = ctx.doc_len
            return out & (np.abs(L[rows, None] - L[None, :]) == p["delta"])

        return kernel

    break_kernel(monkeypatch, "TFC1", exact_difference)
    # the tuples still satisfy the precondition (|L_i - L_j| = delta <= delta) ...
    ax = [Axiom.create("TFC1", "relaxed", delta=1, delta_rel=None)]
    with pytest.raises(NoSuchExample):
        find(contexts(), lambda c: violates(check_length_precondition, ax, c), settings=FIND)
    # ... but a larger tolerance loses pairs
    find(contexts(), lambda c: violates(check_tolerance_monotone, ["TFC1"], c), settings=FIND)


def _first(strategy):
    """One deterministic example of ``strategy`` (the real kernels must pass on it)."""
    return find(strategy, lambda _: True, settings=FIND)


# ---------------------------------------------------------------------- definition-level laws
@SETTINGS
@given(contexts(), st.sampled_from(["TFC1", "M-TDC"]), st.sampled_from(VARIANTS))
def test_instances_hold_and_agree_with_preferences(ctx, name, variant):
    ax = parse_axiom(f"{name}(variant='{variant}')")
    inst = ax.instances(ctx)
    H = ax.holds(ctx)
    P = ax.preferences(ctx)
    assert H[inst.i, inst.j].all()  # preconditions hold on every instance
    # every strict preference is an instance; a pair that holds both ways is listed once
    pos = set(zip(*np.nonzero(P > 0), strict=True))
    pairs = list(zip(inst.i.tolist(), inst.j.tolist(), strict=True))
    assert pos <= set(pairs) and len(pairs) == len(set(pairs))
    both = H & H.T
    assert all(i < j for i, j in pairs if both[i, j])


@SETTINGS
@given(contexts(max_docs=10), st.sampled_from(VARIANTS))
def test_tfc2_triples_satisfy_eq_3_6(ctx, variant):
    inst = parse_axiom(f"TFC2(variant='{variant}')").instances(ctx)
    C, S, L = ctx.counts, ctx.qsum, ctx.doc_len
    i, j, k = inst.i, inst.j, inst.k
    assert (C[j] - C[i] == C[k] - C[j]).all()
    assert ((S[k] > S[j]) & (S[j] > S[i]) & (S[i] > 0)).all()
    if variant != "relaxed":
        assert (L[i] == L[j]).all() and (L[j] == L[k]).all()
        assert ((C[j] - C[i]) == 1).all() and (C[i] > 0).all()
    # completeness against a brute-force triple loop (small n)
    n = ctx.n
    brute = set()
    for a in range(n):
        for b in range(n):
            for c in range(n):
                d = C[b] - C[a]
                if not ((C[c] - C[b] == d).all() and S[c] > S[b] > S[a] > 0):
                    continue
                lo, hi = min(L[a], L[b], L[c]), max(L[a], L[b], L[c])
                if variant == "relaxed":
                    if hi - lo > 0.1 * hi:
                        continue
                else:
                    if hi != lo or not ((d == 1).all() and (C[a] > 0).all()):
                        continue
                    if variant == "strict" and ctx.n_terms != 1:
                        continue
                brute.add((a, b, c))
    assert set(zip(i.tolist(), j.tolist(), k.tolist(), strict=True)) == brute


@SETTINGS
@given(contexts(), st.sampled_from(["TFC1", "TFC2", "M-TDC"]))
def test_length_tolerance_zero_is_exact_length(ctx, name):
    """A tolerance of 0 (absolute or relative) is the extended axiom's exact-length condition."""
    for variant in ("extended", "relaxed"):
        a0 = parse_axiom(f"{name}(variant='{variant}', delta=0)").instances(ctx)
        r0 = parse_axiom(f"{name}(variant='{variant}', delta_rel=0.0)").instances(ctx)
        assert np.array_equal(a0.i, r0.i) and np.array_equal(a0.j, r0.j)
        L = ctx.doc_len
        assert (L[a0.i] == L[a0.j]).all()
    ext = parse_axiom(f"{name}(variant='extended')").instances(ctx)
    ext0 = parse_axiom(f"{name}(variant='extended', delta=0)").instances(ctx)
    assert np.array_equal(ext.i, ext0.i) and np.array_equal(ext.j, ext0.j)


@SETTINGS
@given(contexts(), st.sampled_from(["TFC1", "TFC2"]))
def test_extended_instances_are_relaxed_instances(ctx, name):
    """Relaxing (thesis step 2) only adds instances: extended(delta) is a subset of relaxed(delta).

    (Not a law for M-TDC: the relaxation *requires* a differing term count, dropping the
    identical-count pairs of the extended form, and adds sub-condition 3; see docs/axioms.md.)
    """
    for delta in (0, 2):
        e = parse_axiom(f"{name}(variant='extended', delta={delta})")
        r = parse_axiom(f"{name}(variant='relaxed', delta={delta})")
        assert relation(e, ctx) <= relation(r, ctx)
