"""Pairwise LLM rankers diagnosed on axiom instances (diagnose/pairwise.py and the diagnosis
engine's pairwise branch), on the tiny random Llama of conftest: each instance's two answers,
the fulfilment, the position bias and the intransitivity against hand computations from plain
forward passes."""

from __future__ import annotations

import itertools
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from axiomatic.data.catalog import load_dataset
from axiomatic.diagnose.diagnosis import diagnose
from axiomatic.diagnose.pairwise import SKIP_TRIPLE, intransitivity, pairwise_table
from axiomatic.models.llm import LLMPairwiseScorer
from axiomatic.rankers.llm import PairwiseLLMRanker


def _prp(q: str, a: str, b: str) -> str:
    return (
        f'Given a query "{q}", which of the following two passages is more relevant to the '
        f'query?\n\nPassage A: "{a}"\n\nPassage B: "{b}"\n\nAnswer A or B.\nAnswer:'
    )


@pytest.fixture(scope="module")
def setting(tiny_llama):
    ds = load_dataset("demo")
    qid = next(iter(ds.queries))
    docs = list(ds.candidate_ids(qid))[:4]
    rows = [
        ("TFC1", ">", docs[0], docs[1], None),
        ("TFC1", ">", docs[2], docs[0], None),
        ("TFC1", ">", docs[1], docs[3], None),
        ("LNC1", ">=", docs[3], docs[2], None),
        ("TFC2", "diff>", docs[0], docs[1], docs[2]),
    ]
    inst = pd.DataFrame(
        {
            "query_id": qid,
            "axiom": [r[0] for r in rows],
            "variant": "strict",
            "spec": [r[0] for r in rows],
            "doc_a": [r[2] for r in rows],
            "doc_b": [r[3] for r in rows],
            "doc_c": [r[4] for r in rows],
            "relation": [r[1] for r in rows],
        }
    )
    q = ds.queries[qid].text
    ref = tiny_llama["reference"]
    text = {d: ds.documents[d].text for d in docs}
    d_ab = np.array([ref(_prp(q, text[a], text[b]), " A", " B") for _, _, a, b, _ in rows[:4]])
    d_ba = np.array([ref(_prp(q, text[b], text[a]), " A", " B") for _, _, a, b, _ in rows[:4]])
    ranker = PairwiseLLMRanker(LLMPairwiseScorer(tiny_llama["plain"], batch_size=3), name="prp")
    return ds, inst, ranker, d_ab, d_ba


def test_diagnose_asks_each_pair_instance_in_both_orders(setting) -> None:
    ds, inst, ranker, d_ab, d_ba = setting
    diag = diagnose(inst, [ranker], ds)
    pref = (d_ab - d_ba) / 2
    want = [int(pref[0] > 0), int(pref[1] > 0), int(pref[2] > 0), int(pref[3] >= 0), -1]
    assert diag.outcomes["prp"].tolist() == want
    assert diag.skips["prp"] == {SKIP_TRIPLE: 1}
    biased = np.sign(d_ab) == np.sign(d_ba)
    bias = diag.metadata["position_bias"]["prp"]
    assert bias == pytest.approx({"TFC1": biased[:3].mean(), "LNC1": float(biased[3])})
    with pytest.raises(ValueError, match="compares pairs of documents"):
        diagnose(inst, [ranker], ds, band=0.5)


def test_pairwise_table_by_hand(setting) -> None:
    ds, inst, ranker, d_ab, d_ba = setting
    from axiomatic.diagnose.pairwise import instance_preferences

    got_ab, got_ba = instance_preferences(ranker, inst, ds)
    np.testing.assert_allclose(got_ab[:4], d_ab, atol=1e-4)
    np.testing.assert_allclose(got_ba[:4], d_ba, atol=1e-4)
    assert np.isnan(got_ab[4]) and np.isnan(got_ba[4])
    # fixed values, so that every branch is exercised whatever the random model says
    ab = np.array([1.0, -2.0, 0.5, -1.0, np.nan])
    ba = np.array([-3.0, -1.0, 0.25, 2.0, np.nan])
    table = pairwise_table(inst, ab, ba).set_index("axiom")
    # TFC1: prefs (1 + 3) / 2 > 0, (-2 + 1) / 2 < 0, (0.5 - 0.25) / 2 > 0; each order alone
    # agrees only for the first; the second and third prefer one position in both orders
    assert table.loc["TFC1", "n"] == 3
    assert table.loc["TFC1", "fulfilment"] == pytest.approx(2 / 3)
    assert table.loc["TFC1", "both_orders"] == pytest.approx(1 / 3)
    assert table.loc["TFC1", "position_bias"] == pytest.approx(2 / 3)
    # LNC1 (>=): (-1 - 2) / 2 < 0 violated, no position preferred twice
    assert table.loc["LNC1"].tolist()[2:] == [1, 0.0, 0.0, 0.0]
    assert "TFC2" not in table.index


def test_intransitivity_of_the_reranked_list_by_hand(setting, tiny_llama) -> None:
    ds, _, ranker, _, _ = setting
    qid = next(iter(ds.queries))
    docs = [ds.documents[d] for d in list(ds.candidate_ids(qid))[:5]]
    ranker.score(ds.queries[qid], docs)
    ref = tiny_llama["reference"]
    q = ds.queries[qid].text
    n = len(docs)
    P = np.zeros((n, n))
    for i, j in itertools.permutations(range(n), 2):
        P[i, j] = (
            ref(_prp(q, docs[i].text, docs[j].text), " A", " B")
            - ref(_prp(q, docs[j].text, docs[i].text), " A", " B")
        ) / 2
    cycles = sum(
        np.sign(P[i, j]) == np.sign(P[j, k]) == np.sign(P[k, i]) != 0
        for i, j, k in itertools.combinations(range(n), 3)
    )
    share, triples = intransitivity(ranker.last_comparisons)
    assert triples == 10
    assert share == pytest.approx(cycles / 10)
    # pooled over lists (by triples): 4 documents with one cyclic triple, 3 without any
    cyc = np.zeros((4, 4))
    cyc[:3, :3] = [[0, 1, -1], [-1, 0, 1], [1, -1, 0]]
    cyc[3, :3], cyc[:3, 3] = 1, -1
    line = np.array([[0, 1, 1], [-1, 0, 1], [-1, -1, 0]], dtype=float)
    assert intransitivity([cyc, line]) == (1 / 5, 5)
    assert intransitivity([line[:2, :2]])[1] == 0 and np.isnan(intransitivity([])[0])


def test_diagnose_cli_reports_position_bias_and_intransitivity(tiny_llama, tmp_path: Path) -> None:
    from axiomatic.cli.main import app

    runner = CliRunner()
    inst = tmp_path / "inst"
    res = runner.invoke(
        app, ["mine", "-d", "demo", "--axioms", "TFC1", "--max-per-query", "3", "-o", str(inst)]
    )
    assert res.exit_code == 0, res.output
    rep = tmp_path / "rep"
    spec = f"prp={'prp:' + str(tiny_llama['plain'])},k=4"
    res = runner.invoke(
        app, ["diagnose", "-i", str(inst), "-r", spec, "--no-plots", "--no-oracle", "-o", str(rep)]
    )
    assert res.exit_code == 0, res.output
    out = " ".join(res.output.split())
    assert "position bias of prp" in out and "intransitive triples of prp" in out
    assert (rep / "diagnosis.csv").is_file()


def test_a_pointwise_llm_is_diagnosed_by_its_scores(setting, tiny_llama) -> None:
    """The ordinary path: each distinct (query, document) scored once, the instance judged by
    the score difference (the triple too)."""
    from axiomatic.diagnose.relations import evaluate_relations
    from axiomatic.models.llm import LLMRanker

    ds, inst, _, _, _ = setting
    ranker = LLMRanker(tiny_llama["plain"], name="llm")
    diag = diagnose(inst, [ranker], ds)
    q = ds.queries[inst["query_id"].iloc[0]].text
    question = "Is the passage relevant to the query? Answer yes or no."

    def s(doc_id: str) -> float:
        d = ds.documents[doc_id].text
        return tiny_llama["reference"](
            f"Query: {q}\nPassage: {d}\n{question}\nAnswer:", " yes", " no"
        )

    sa = np.array([s(d) for d in inst["doc_a"]])
    sb = np.array([s(d) for d in inst["doc_b"]])
    sc = np.array([s(d) if isinstance(d, str) else np.nan for d in inst["doc_c"]])
    want = evaluate_relations(inst["relation"].to_numpy(), sa, sb, sc)
    assert diag.outcomes["llm"].tolist() == want.tolist()
    assert "position_bias" not in diag.metadata
