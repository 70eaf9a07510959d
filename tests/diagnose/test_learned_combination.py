"""A learned axiom combination: the learned aggregation of re-ranking, fitted to
the qrels (the oracle) or to any ranker's run, returned as a weighted-sum axiom spec."""

from __future__ import annotations

import numpy as np
import pytest

from axiomatic.axioms import QueryContext, parse_axiom
from axiomatic.axioms.spec import Combination, leaves
from axiomatic.data.demo import demo_dataset
from axiomatic.diagnose.rerank import learn_combination, learn_weights, preference_stack
from axiomatic.index.cache import dataset_index
from axiomatic.rankers.base import rerank
from axiomatic.rankers.lexical import BM25Ranker, QLRanker


@pytest.fixture(scope="module")
def setup():
    ds = demo_dataset()
    idx = dataset_index(ds, cache_dir=False)
    return ds, idx, rerank(BM25Ranker(idx), ds)


def test_learned_combination_is_the_learned_weighted_sum(setup) -> None:
    ds, idx, run = setup
    axioms = "TFC1,AND,M-AND,LNC1"
    c = learn_combination(ds, axioms, run, depth=12, index=idx)
    assert isinstance(c, Combination) and c.op == "sum"
    assert parse_axiom(c.spec) == c  # an axiom spec like any other
    w = learn_weights(ds, axioms, run, depth=12, index=idx)
    kept = [parse_axiom(n) for n in axioms.split(",")]
    q = next(iter(ds.queries))
    head = sorted(run[q], key=lambda d: -run[q][d])[:12]
    ctx = QueryContext.build(ds.queries[q], [ds.documents[d] for d in head], idx)
    expected = np.sign(np.tensordot(w, preference_stack(ctx, kept).astype(float), axes=1))
    assert np.array_equal(c.preferences(ctx), expected.astype(np.int8))


def test_learned_combination_imitates_a_ranker(setup) -> None:
    """Imitating QL with ORIG (QL's own order as an axiom) puts the largest weight on ORIG."""
    ds, idx, _ = setup
    ql = rerank(QLRanker(idx), ds)
    c = learn_combination(ds, "TFC1,LNC1,ORIG", ql, target=ql, depth=12, index=idx)
    weights = {leaf.name: op.weight for op in c.operands for leaf in leaves(op)}
    assert weights["ORIG"] > 0 and weights["ORIG"] == max(weights.values(), key=abs)
    w_qrels = learn_weights(ds, "TFC1,LNC1,ORIG", ql, depth=12, index=idx)
    assert not np.allclose(w_qrels, [weights.get(n, 0) for n in ("TFC1", "LNC1", "ORIG")])


def test_learned_combination_errors(setup) -> None:
    ds, idx, run = setup
    with pytest.raises(ValueError, match="pairwise axioms"):
        learn_combination(ds, "TFC2", run, index=idx)


def test_cli_learned_rerank_prints_a_reusable_combination(tmp_path) -> None:
    """`rerank --aggregation learned` shows the learned weighted sum; re-ranking with that one
    combination as the only axiom gives the same run."""
    from typer.testing import CliRunner

    from axiomatic.cli.main import app

    runner = CliRunner()
    learned = tmp_path / "learned.trec"
    args = ["rerank", "-d", "demo", "-a", "TFC1,LNC1,PROX1,ORIG", "-o", str(learned)]
    res = runner.invoke(app, [*args, "--aggregation", "learned", "--train-dataset", "demo"])
    assert res.exit_code == 0, res.output
    line = next(x for x in res.output.splitlines() if x.startswith("learned combination"))
    combo = line.split(": ", 1)[1]
    assert isinstance(parse_axiom(combo), Combination) and "ORIG" in combo
    again = tmp_path / "again.trec"
    res = runner.invoke(app, ["rerank", "-d", "demo", "-a", combo, "-o", str(again)])
    assert res.exit_code == 0, res.output
    assert again.read_text() == learned.read_text()
