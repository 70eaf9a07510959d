"""The axiom algebra: ir_axioms' operators on preference matrices.

- agreement with ir_axioms 1.2.5 itself: ``golden/ir_axioms_1.2.5_algebra.npz`` holds what
  ir_axioms' own operators computed on its own single-axiom matrices of the demo collection
  (``benchmarks/ir_axioms_ref/make_golden_algebra.py``); we evaluate the same expression strings
  on those single-axiom matrices;
- the laws of each operator (hypothesis over random antisymmetric ternary matrices);
- a combination is an axiom spec: parse/print round trip, contexts, the engine, the CLI;
- the parser is safe (ast, never eval) and its errors say what is allowed.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from axiomatic.axioms import Axiom, QueryContext, algebra, parse_axiom, parse_axioms
from axiomatic.axioms import engine as engine_module
from axiomatic.axioms.spec import Combination, leaves
from axiomatic.data.records import Document, Query
from axiomatic.index.collection import CollectionIndex
from axiomatic.text.analyzer import Analyzer

GOLDEN = Path(__file__).resolve().parent / "golden"
SINGLE = GOLDEN / "ir_axioms_1.2.5_demo.npz"
COMBINED = GOLDEN / "ir_axioms_1.2.5_algebra.npz"


# ---------------------------------------------------------------------- ir_axioms agreement
def test_golden_combinations_agree_with_ir_axioms_operators() -> None:
    single = np.load(SINGLE, allow_pickle=False)
    combined = np.load(COMBINED, allow_pickle=False)
    exprs = [str(e) for e in combined["expressions"]]
    assert len(exprs) >= 15
    decisive = 0
    for q in (str(q) for q in combined["queries"]):
        for k, expr in enumerate(exprs):
            comb = parse_axiom(expr)
            assert isinstance(comb, Combination), expr
            ours = algebra.preferences(comb, lambda a, q=q: single[f"{q}.{a.name}"])
            theirs = combined[f"{q}.{k}"]
            assert np.array_equal(ours, theirs), (
                f"{q} {expr!r}: {int((ours != theirs).sum())} cells differ from ir_axioms"
            )
            decisive += int((theirs != 0).sum())
    assert decisive > 10_000  # the golden combinations are not trivially empty


# ---------------------------------------------------------------------- laws
LEAVES = [parse_axiom(n) for n in ("TFC1", "LNC1", "PROX1", "REG")]
NEVER = parse_axiom("PROX2")  # mapped to an all-zero matrix: never decisive


@st.composite
def matrices(draw, n_max: int = 7) -> dict[Axiom, np.ndarray]:
    """Random antisymmetric ternary preference matrices for LEAVES, zeros for NEVER."""
    n = draw(st.integers(2, n_max))
    out = {NEVER: np.zeros((n, n), np.int8)}
    for leaf in LEAVES:
        cells = draw(st.lists(st.sampled_from([-1, 0, 1]), min_size=n * n, max_size=n * n))
        upper = np.triu(np.array(cells, np.int8).reshape(n, n), 1)
        out[leaf] = (upper - upper.T).astype(np.int8)
    return out


def _prefs(node: Axiom, mats: dict[Axiom, np.ndarray]) -> np.ndarray:
    if not isinstance(node, Combination):
        return mats[node]
    return algebra.preferences(node, mats.__getitem__)


def _raw(op: str, *operands: Axiom, weight: float = 1.0) -> Combination:
    """A node exactly as given (no flattening), to test laws flattening would hide."""
    return Combination("raw", "combined", (), op, tuple(operands), weight)


@settings(max_examples=60, deadline=None)
@given(matrices())
def test_operator_laws(mats: dict[Axiom, np.ndarray]) -> None:
    A, B, C, D = LEAVES

    def same(x: Axiom, y: Axiom) -> bool:
        return np.array_equal(_prefs(x, mats), _prefs(y, mats))

    assert same(A & A, A)  # idempotent conjunction
    assert same(A | NEVER, A) and same(NEVER | A, A)  # a never-decisive axiom is neutral
    assert same(A & B, B & A) and same(A & B & C, C & A & B)  # commutative
    assert same(A % B, B % A) and same(A % B % C, C % B % A)
    assert same(_raw("or", _raw("or", A, B), C), _raw("or", A, _raw("or", B, C)))  # associative
    assert same(_raw("or", _raw("or", A, B), C), A | B | C)
    assert same(_raw("vote", A), A)  # majority of one is the axiom
    assert same(0.7 * A, A) and same(parse_axiom("3*TFC1"), A)  # one positive weight
    assert same(-2 * A, -A) and np.array_equal(_prefs(-A, mats), -mats[A])  # negative flips
    assert same(A + NEVER, A) and same(A - B, A + -B)
    # conjunction is decisive only where all agree; cascade takes the first decisive
    pa, pb = mats[A], mats[B]
    conj = _prefs(A & B, mats)
    assert np.array_equal(conj, np.where(pa == pb, pa, 0))
    assert np.array_equal(_prefs(A | B, mats), np.where(pa != 0, pa, pb))
    # a vote of three: the sign of the sum where at least two agree
    votes = np.stack([mats[x] for x in (A, B, C)])
    pos, neg = (votes > 0).sum(0), (votes < 0).sum(0)
    expected = np.where((pos > neg) & (pos >= 2), 1, np.where((neg > pos) & (neg >= 2), -1, 0))
    assert np.array_equal(_prefs(A % B % C, mats), expected)
    # weighted sums are sign-normalized sums; every combination is antisymmetric and ternary
    ws = _prefs(0.5 * A + 2 * B + 1 * D, mats)
    assert np.array_equal(ws, np.sign(0.5 * pa + 2 * pb + mats[D]))
    for x in (A & B, A | B, A % B % C, 0.5 * A + 2 * B, -(A | C) % D, A % B % C % D):
        p = _prefs(x, mats)
        assert np.array_equal(p, -p.T) and set(np.unique(p)) <= {-1, 0, 1}


def test_vote_chains_like_ir_axioms() -> None:
    """``A % B % C`` is one vote of three, ``A % (B % C)`` a vote between A and a vote."""
    A, B, C, _ = LEAVES
    assert (A % B % C).operands == (A, B, C)
    nested = parse_axiom("TFC1 % (LNC1 % PROX1)")
    assert isinstance(nested, Combination) and len(nested.operands) == 2
    mats = {A: np.array([[0, 1], [-1, 0]], np.int8)}
    mats[B] = -mats[A]
    mats[C] = -mats[A]
    assert _prefs(A % B % C, mats)[0, 1] == -1  # two of three against A
    assert _prefs(nested, mats)[0, 1] == 0  # A against the vote of B and C: a tie


# ---------------------------------------------------------------------- specs and parsing
@pytest.mark.parametrize(
    "text",
    [
        "TFC1 & LNC1",
        "(TFC1 | ORIG) % PROX1",
        "0.5*TFC1 + 2*LNC1",
        "M-TDC & TF-LNC | LEN-M-AND",
        "TFC1 % (LNC1 % PROX1)",
        "-(TFC1 & AND) | REG(delta_rel=0.2)",
        "+(TFC1 - 2*LNC1) % PROX1",
        "TFC1 / 4 + LNC1(variant='extended', margin=0.2)",
    ],
)
def test_combinations_round_trip_through_their_name_and_spec(text: str) -> None:
    c = parse_axiom(text)
    assert isinstance(c, Combination)
    assert parse_axiom(c.spec) == c and parse_axiom(c.name) == c
    assert c.arity == 2 and c.relation == ">" and c.variant == "combined"
    assert c.definition.family == "combination"
    assert hash(c) == hash(parse_axiom(c.spec))


def test_python_operators_on_axioms_equal_parsed_strings() -> None:
    t, l_, p, o = (parse_axiom(n) for n in ("TFC1", "LNC1", "PROX1", "ORIG"))
    assert (t | o) % p == parse_axiom("(TFC1 | ORIG) % PROX1")
    assert 0.5 * t + 2 * l_ == parse_axiom("0.5*TFC1 + 2*LNC1")
    assert t - l_ == parse_axiom("TFC1 - LNC1") == parse_axiom("TFC1-LNC1")
    assert leaves(parse_axiom("(TFC1 | ORIG) % TFC1 & PROX1")) == [t, o, p]


def test_global_variant_reaches_the_leaves_that_have_it() -> None:
    c = parse_axioms("TFC1 & LNC1, PROX1", default_variant="strict")[0]
    tfc1, lnc1 = leaves(c)
    assert tfc1.variant == "strict" and lnc1.variant == "extended"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("TFC1 & __import__('os').system('x')", "not an axiom call"),
        ("TFC1 & foo.bar", "Attribute is not allowed"),
        ("TFC1 ** 2", "Pow is not an axiom operator"),
        ("TFC1 & 3", "a number alone is no axiom"),
        ("TFC1 + 2 * 3", "a number alone is no axiom"),
        ("TFC1 / LNC1", "only division by a number"),
        ("TFC1 * LNC1", "a product of two axioms is not antisymmetric"),
        ("TFC1 &", "cannot parse axiom expression"),
        ("M-TDX & TFC1", "did you mean 'M-TDC'"),
        ("TFC1 & TFC2", "TFC2 is a triple axiom"),
        ("TFC1 & TFC9", "unknown axiom 'TFC9'"),
        ("[TFC1] | LNC1", "List is not allowed"),
    ],
)
def test_bad_expressions_are_clear_errors(text: str, message: str) -> None:
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace("*", r"\*")):
        parse_axiom(text)


def test_single_axioms_are_not_expressions() -> None:
    for text in ("TFC1", "M-TDC", "LEN-M-AND", "TFC1(delta_rel=0.2)", "tf_lnc", "(TFC1)"):
        assert not isinstance(parse_axiom(text), Combination), text
    assert not algebra.is_expression("TFC1(delta=-1)")  # a minus inside the parameters
    assert parse_axiom("2 * 0.5 * TFC1") == 1.0 * parse_axiom("TFC1")


# ---------------------------------------------------------------------- on real contexts
def _context() -> QueryContext:
    texts = [
        "solar panel solar energy",
        "solar panel energy energy",
        "panel solar",
        "wind energy wind turbine",
        "solar solar solar panel panel energy",
        "energy",
    ]
    docs = [Document(f"d{i}", t) for i, t in enumerate(texts)]
    idx = CollectionIndex.build(docs, Analyzer(stopwords=False, stemmer=None))
    scores = np.array([3.0, 2.9, 2.0, 1.0, 2.95, 0.5])
    return QueryContext.build(Query("q", "solar energy"), docs, idx, scores=scores)


def test_a_combination_computes_like_an_axiom_on_a_context() -> None:
    ctx = _context()
    c = parse_axiom("(TFC1 | ORIG) % LNC1 % TF-LNC")
    assert isinstance(c, Combination)
    leaf = {a: a.preferences(ctx) for a in leaves(c)}
    p = c.preferences(ctx)
    assert np.array_equal(p, algebra.preferences(c, leaf.__getitem__))
    assert (p != 0).any()
    assert np.array_equal(c.holds(ctx), p > 0)
    assert np.array_equal(engine_module.holds(c, ctx), p > 0)  # through its definition's kernel
    inst = c.instances(ctx)
    assert sorted(zip(inst.i.tolist(), inst.j.tolist(), strict=True)) == sorted(
        zip(*map(np.ndarray.tolist, np.nonzero(p > 0)), strict=True)
    )
    capped = c.instances(ctx, max_instances=2, seed=1)
    assert len(capped.i) == min(2, len(inst.i))
    tfc1 = parse_axiom("TFC1")
    assert np.array_equal((tfc1 & tfc1).preferences(ctx), tfc1.preferences(ctx))


# ---------------------------------------------------------------------- CLI
runner = CliRunner()


def test_cli_lists_operators_and_mines_and_reranks_combinations(tmp_path: Path) -> None:
    from axiomatic.cli.main import app
    from axiomatic.data.instances import read_instances

    res = runner.invoke(app, ["axioms"])
    assert res.exit_code == 0, res.output
    assert "combining axioms" in res.output and "cascade" in res.output
    assert "majority vote" in res.output
    out = tmp_path / "inst"
    res = runner.invoke(
        app, ["mine", "-d", "demo", "-a", "TFC1 % PROX1 % TF-LNC, TFC1", "-o", str(out)]
    )
    assert res.exit_code == 0, res.output
    inst, _ = read_instances(out)
    assert set(inst["axiom"]) == {"TFC1 % PROX1 % TF-LNC", "TFC1"}
    comb = inst[inst["axiom"] == "TFC1 % PROX1 % TF-LNC"]
    assert len(comb) > 0 and set(comb["variant"]) == {"combined"}
    assert set(comb["relation"]) == {">"}
    res = runner.invoke(
        app, ["diagnose", "-i", str(out), "-o", str(tmp_path / "rep"), "-r", "bm25"]
    )
    assert res.exit_code == 0, res.output
    assert "TFC1 % PROX1 % TF-LNC" in res.output
    run = tmp_path / "r.trec"
    res = runner.invoke(app, ["rerank", "-d", "demo", "-a", "TFC1 | ORIG, LNC1", "-o", str(run)])
    assert res.exit_code == 0, res.output
    assert run.read_text().strip()
    res = runner.invoke(
        app, ["mine", "-d", "demo", "-a", "TFC1 & foo.x", "-o", str(tmp_path / "b")]
    )
    assert res.exit_code != 0 and "Attribute is not allowed" in res.output
    res = runner.invoke(app, ["counts", "-d", "demo", "--axioms", "TFC1 & LNC1"])
    assert res.exit_code != 0 and "counts takes single axioms" in res.output
