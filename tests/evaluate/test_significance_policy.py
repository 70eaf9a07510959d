"""One significance policy: every table that compares systems on a measure tests
each system against a named baseline (paired t-test by default) with Holm's correction over the
systems compared on ONE measure (``compare_to_baseline``), so asking for more measures never
changes a p-value, and states that family in its caption.

Values are checked against scipy and a hand-written Holm, not against the code under test."""

from __future__ import annotations

import csv
import io
import json

import numpy as np
import pytest
from scipy import stats
from typer.testing import CliRunner

from axiomatic.cli.main import app
from axiomatic.evaluate.significance import (
    COMPARISON_COLUMNS,
    compare_to_baseline,
    describe_family,
    evaluation_table,
)

runner = CliRunner()


def hand_holm(p: list[float]) -> list[float]:
    """Holm (1979) step-down, written out: sort ascending, multiply the i-th smallest (0-based)
    by m - i, carry the running maximum, cap at 1."""
    m = len(p)
    order = sorted(range(m), key=lambda i: p[i])
    out = [0.0] * m
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (m - rank) * p[i]))
        out[i] = running
    return out


# a fixed example: 8 queries, a baseline and three systems, two measures
BASE = {
    "AP": [0.20, 0.35, 0.50, 0.10, 0.60, 0.45, 0.30, 0.25],
    "RR": [0.50, 1.00, 0.33, 0.25, 1.00, 0.50, 0.20, 1.00],
}
SYSTEMS = {
    "a": {
        "AP": [0.28, 0.40, 0.55, 0.22, 0.61, 0.52, 0.37, 0.30],
        "RR": [1.00, 1.00, 0.50, 0.33, 1.00, 0.50, 0.25, 1.00],
    },
    "b": {
        "AP": [0.18, 0.39, 0.47, 0.16, 0.58, 0.50, 0.29, 0.31],
        "RR": [0.50, 0.50, 0.33, 0.50, 1.00, 1.00, 0.20, 0.50],
    },
    "c": {
        "AP": [0.25, 0.30, 0.58, 0.12, 0.70, 0.41, 0.36, 0.22],
        "RR": [0.33, 1.00, 0.50, 0.25, 0.50, 0.50, 0.33, 1.00],
    },
}


def test_helper_matches_scipy_and_hand_holm_per_measure() -> None:
    values = {"base": BASE, **SYSTEMS}
    cmp = compare_to_baseline(values, "base")
    assert cmp.family == ("paired t-test vs base; Holm over the 3 systems compared on each measure")
    assert [(r.system, r.measure) for r in cmp] == [
        (s, m) for s in ("a", "b", "c") for m in ("AP", "RR")
    ]
    for m in ("AP", "RR"):
        raw = [stats.ttest_rel(SYSTEMS[s][m], BASE[m]).pvalue for s in ("a", "b", "c")]
        for s, p, q in zip(("a", "b", "c"), raw, hand_holm(raw), strict=True):
            r = cmp.get(s, m)
            assert r.p == pytest.approx(p, rel=1e-12)
            assert r.p_holm == pytest.approx(q, rel=1e-12)
            assert r.mean == pytest.approx(np.mean(SYSTEMS[s][m]))
            assert r.baseline_mean == pytest.approx(np.mean(BASE[m]))
            assert r.diff == pytest.approx(np.mean(SYSTEMS[s][m]) - np.mean(BASE[m]))
            assert r.n == 8 and r.family == cmp.family
    # the example is not degenerate: Holm changed something, and "a" is significant on AP
    assert cmp.get("a", "AP").p_holm > cmp.get("a", "AP").p
    assert cmp.get("a", "AP").significant() and cmp.get("a", "AP").direction() == "up"
    df = cmp.frame()
    assert list(df.columns) == list(COMPARISON_COLUMNS) and df.attrs["family"] == cmp.family


def test_a_measure_more_never_changes_a_p_value() -> None:
    one = compare_to_baseline(
        {"base": {"AP": BASE["AP"]}, **{s: {"AP": v["AP"]} for s, v in SYSTEMS.items()}}, "base"
    )
    two = compare_to_baseline({"base": BASE, **SYSTEMS}, "base")
    for s in SYSTEMS:
        assert one.get(s, "AP").p_holm == two.get(s, "AP").p_holm


def test_table_family_and_wilcoxon_are_stated_and_computed() -> None:
    values = {"base": BASE, **SYSTEMS}
    cmp = compare_to_baseline(values, "base", family="table", noun="rows")
    assert cmp.family == (
        "paired t-test vs base; Holm over all 6 comparisons (3 rows x 2 measures)"
    )
    keys = [(s, m) for s in ("a", "b", "c") for m in ("AP", "RR")]
    raw = [stats.ttest_rel(SYSTEMS[s][m], BASE[m]).pvalue for s, m in keys]
    for (s, m), q in zip(keys, hand_holm(raw), strict=True):
        assert cmp.get(s, m).p_holm == pytest.approx(q, rel=1e-12)
    w = compare_to_baseline(values, "base", test="wilcoxon", scope="per model")
    assert w.family == (
        "paired Wilcoxon signed-rank test vs base; Holm over the 3 systems compared on each "
        "measure, per model"
    )
    raw = [stats.wilcoxon(SYSTEMS[s]["AP"], BASE["AP"]).pvalue for s in ("a", "b", "c")]
    for s, q in zip(("a", "b", "c"), hand_holm(raw), strict=True):
        assert w.get(s, "AP").p_holm == pytest.approx(q, rel=1e-12)
    assert describe_family("t", "BM25", 1, noun="losses") == (
        "paired t-test vs BM25; Holm over the 1 loss compared on each measure"
    )
    with pytest.raises(ValueError, match="did you mean 'measure'"):
        compare_to_baseline(values, "base", family="measures")  # type: ignore[arg-type]
    with pytest.raises(KeyError, match="did you mean 'base'"):
        compare_to_baseline(values, "bse")


def test_per_system_baseline_values_are_paired_with_their_system() -> None:
    """``baseline_values``: each system against its own baseline values (Rosset's ensembles over
    the seeds both finished, ARES's cross-encoder at the same n), one Holm family."""
    base_a = {m: [v + 0.01 for v in BASE[m]] for m in BASE}
    cmp = compare_to_baseline(
        {"a": SYSTEMS["a"], "b": SYSTEMS["b"]},
        "base",
        baseline_values={"a": base_a, "b": BASE},
        noun="AR variants",
    )
    raw = [
        stats.ttest_rel(SYSTEMS["a"]["AP"], base_a["AP"]).pvalue,
        stats.ttest_rel(SYSTEMS["b"]["AP"], BASE["AP"]).pvalue,
    ]
    got = [cmp.get(s, "AP").p_holm for s in ("a", "b")]
    assert got == pytest.approx(hand_holm(raw), rel=1e-12)
    assert cmp.get("a", "AP").baseline_mean == pytest.approx(np.mean(base_a["AP"]))
    assert "Holm over the 2 AR variants" in cmp.family


# ----------------------------------------------------------------------- axiomatic evaluate
SIX = "nDCG@10 RR@10 AP P@5 R@100 nDCG@5"


@pytest.fixture(scope="module")
def demo_run_files(tmp_path_factory) -> tuple[list[str], dict]:
    from axiomatic.data.demo import demo_dataset
    from axiomatic.data.trec import write_run
    from axiomatic.rankers.base import rerank
    from axiomatic.rankers.registry import make_ranker

    d = tmp_path_factory.mktemp("policy")
    ds = demo_dataset()
    args, runs = [], {}
    for name in ("bm25", "ql", "tfidf"):
        runs[name] = rerank(make_ranker(name, ds), ds)
        write_run(runs[name], d / f"{name}.trec", tag=name)
        args += ["--run", f"{name}={d / f'{name}.trec'}"]
    return args, runs


def _evaluate(args: list[str], measures: str, fmt: str) -> str:
    res = runner.invoke(
        app, ["evaluate", "-d", "demo", *args, "--measures", measures, "--format", fmt]
    )
    assert res.exit_code == 0, res.output
    return res.stdout


def test_evaluate_p_values_do_not_depend_on_the_number_of_measures(demo_run_files) -> None:
    """The audit's case: Holm p of the same comparison was 0.055 with one measure and 0.331
    with six, because the family was every (ranker, measure) pair."""
    from axiomatic.data.demo import demo_dataset
    from axiomatic.evaluate.metrics import evaluate_per_query

    args, runs = demo_run_files

    def holm_p(measures: str) -> dict[str, float]:
        rows = csv.DictReader(io.StringIO(_evaluate(args, measures, "csv")))
        return {
            r["ranker"]: float(r["pvalue_holm"])
            for r in rows
            if r["measure"] == "nDCG@10" and r["pvalue_holm"]
        }

    one, six = holm_p("nDCG@10"), holm_p(SIX)
    assert set(one) == {"ql", "tfidf"}
    assert one == six
    # and they are the paired t-test's p-values with Holm over the 2 rankers (scipy, by hand)
    ds = demo_dataset()
    per = {
        n: evaluate_per_query(r, ds.qrels, ["nDCG@10"]).set_index("query_id")["value"]
        for n, r in runs.items()
    }
    raw = [stats.ttest_rel(per[n], per["bm25"].loc[per[n].index]).pvalue for n in ("ql", "tfidf")]
    assert [one["ql"], one["tfidf"]] == pytest.approx(hand_holm(raw), rel=1e-9)
    assert min(raw) < max(raw) < 1  # two informative p-values: Holm is not the identity here
    # the Python API gives the same table
    api = evaluation_table(runs, ds.qrels, SIX, baseline="bm25")
    got = api[api["measure"] == "nDCG@10"].set_index("ranker")["pvalue_holm"]
    assert got["ql"] == pytest.approx(one["ql"]) and got["tfidf"] == pytest.approx(one["tfidf"])


def test_evaluate_tables_state_their_family(demo_run_files) -> None:
    args, _ = demo_run_files
    family = "paired t-test vs bm25; Holm over the 2 rankers compared on each measure"
    table = _evaluate(args, "nDCG@10 AP", "table")
    assert family in table  # the caption line under the rendered table
    doc = json.loads(_evaluate(args, "nDCG@10 AP", "json"))
    assert doc["family"] == family and doc["test"] == "t"
    wil = _evaluate([*args, "--test", "wilcoxon"], "nDCG@10", "table")
    assert "paired Wilcoxon signed-rank test vs bm25; Holm over the 2 rankers" in wil


# ----------------------------------------------------------------------- experiments
def test_liu_family_is_per_language_and_measure() -> None:
    """liu-smooth's Table 2: Holm over the rows compared with SOSL of the same language on one
    measure; adding a language leaves a language's p-values as they were."""
    from axiomatic.evaluate.clir_metrics import CLIR_MEASURE_NAMES
    from axiomatic.experiments.liu_smooth import LiuSmooth

    qids = [f"q{i}" for i in range(12)]
    shifts = {"sosl": 0.1, "mse": 0.0, "po": 0.05}

    def result(lang: str, loss: str) -> dict:
        rng = np.random.default_rng(sum(map(ord, lang + loss)))
        return {
            "test_per_query": {
                m: {q: float(np.clip(rng.uniform() + shifts[loss], 0, 1)) for q in qids}
                for m in CLIR_MEASURE_NAMES
            }
        }

    class Stub:
        _seed_mean = staticmethod(LiuSmooth._seed_mean)

    def run(langs: list[str]) -> tuple[list[dict], str]:
        groups = {(lang, loss): [result(lang, loss)] for lang in langs for loss in shifts}
        rows = [{"language": k[0], "loss": k[1]} for k in groups]
        fam = LiuSmooth._compare(
            Stub(),  # type: ignore[arg-type]
            rows,
            groups,
            lambda k: (k[0], "sosl"),
            "SOSL",
            "rows",
            "per language",
        )
        return rows, fam

    de, fam = run(["de"])
    both, _ = run(["de", "zh"])
    assert fam == (
        "paired t-test vs SOSL; Holm over the 2 rows compared on each measure, per language"
    )
    assert "p NDCG@5" not in de[0] and "p NDCG@5" in both[4]
    for r1, r2 in zip(de, both[: len(de)], strict=True):
        for m in CLIR_MEASURE_NAMES:
            assert r1.get(f"p {m}") == r2.get(f"p {m}")
    # by hand for de / NDCG@5: t-test of each loss against SOSL, Holm over the two
    ref = result("de", "sosl")["test_per_query"]["NDCG@5"]
    raw = [
        stats.ttest_rel(
            [result("de", loss)["test_per_query"]["NDCG@5"][q] for q in qids],
            [ref[q] for q in qids],
        ).pvalue
        for loss in ("mse", "po")
    ]
    assert [de[1]["p NDCG@5"], de[2]["p NDCG@5"]] == pytest.approx(hand_holm(raw), rel=1e-9)


def test_ares_style_few_shot_family_is_one_call() -> None:
    """What ARES's few-shot tests need (each point against the cross-encoder at the same n,
    Holm over all points of a measure) is one ``compare_to_baseline`` call."""
    rng = np.random.default_rng(1)
    per = {
        f"{m}|{n}": {"RR@10": dict(enumerate(rng.uniform(size=10)))}
        for m in ("ce", "ares")
        for n in (10, 20)
    }
    points = {k: v for k, v in per.items() if not k.startswith("ce|")}
    cmp = compare_to_baseline(
        points,
        "cross-encoder at the same n",
        baseline_values={k: per["ce|" + k.split("|")[1]] for k in points},
        noun="points",
    )
    raw = [
        stats.ttest_rel(
            list(per[k]["RR@10"].values()), list(per["ce|" + k.split("|")[1]]["RR@10"].values())
        ).pvalue
        for k in points
    ]
    assert [cmp.get(k, "RR@10").p_holm for k in points] == pytest.approx(hand_holm(raw))
