"""The XQuAD graded CLIR construction must not leak dev/test paragraphs into training.

XQuAD has 240 paragraphs (48 articles x 5). NR (grade 0) candidates used to be sampled from *all*
other articles, so every test MR/SR paragraph was a grade-0 candidate of some training query. The
canonical construction (../shared/data/README.md, "Canonical splits") samples NR only from the
other articles of the same split. These tests run on the real files (skipped without the shared
data, failing when ``AXIOMATIC_REQUIRE_DATA=1``).
"""

from __future__ import annotations

import warnings
from pathlib import Path

import pytest

from axiomatic.data.catalog import load_dataset
from axiomatic.data.readers.xquad import graded_candidates, read_xquad, xquad_article_splits
from axiomatic.data.records import Dataset
from axiomatic.experiments.clir_data import xquad_graded
from shared_data import require_collection

SPLITS = ("train", "dev", "test")


@pytest.fixture(scope="module")
def root() -> Path:
    return require_collection("xquad-clir").parent


@pytest.fixture(scope="module")
def split_of_doc(root: Path) -> dict[str, str]:
    ref = read_xquad(root / "xquad-clir" / "raw" / "xquad.en.json")
    splits = xquad_article_splits(ref.titles)
    return {d: splits[a] for d, a in ref.article_of.items()}


def _relevant(ds: Dataset) -> set[str]:
    return {d for q in ds.queries for d, g in (ds.qrels or {})[q].items() if g >= 1}


def _candidates(ds: Dataset) -> set[str]:
    return {d for q in ds.queries for d in ds.candidate_ids(q)}


def _nr(ds: Dataset) -> list[str]:
    return [d for q in ds.queries for d, g in (ds.qrels or {})[q].items() if g == 0]


def _assert_no_leak(data: dict[str, Dataset]) -> None:
    train_cands = _candidates(data["train"])
    for split in ("dev", "test"):
        leaked = _relevant(data[split]) & train_cands
        assert not leaked, f"{len(leaked)} {split}-relevant paragraphs are training candidates"
    for a, b in (("train", "dev"), ("train", "test"), ("dev", "test")):
        assert not _candidates(data[a]) & _candidates(data[b]), (a, b)


def _quiet(fn, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*args, **kwargs)


def test_catalog_xquad_clir_has_no_test_paragraph_among_training_candidates(root: Path) -> None:
    """(a) The catalog's ``xquad-clir/en-de/<split>``: no paragraph relevant (grade >= 1) to a
    dev/test query is a candidate of any training query; the splits' candidates are disjoint."""
    _assert_no_leak({s: load_dataset(f"xquad-clir/en-de/{s}", root) for s in SPLITS})


@pytest.mark.parametrize("n_negatives", [40, 100])
def test_xquad_graded_defaults_have_no_leak(root: Path, n_negatives: int) -> None:
    """(a) ``xquad_graded`` with its default pool, at the catalog's 40 and at Figure 5's 100."""
    data = {s: _quiet(xquad_graded, root, "en", "de", s, n_negatives) for s in SPLITS}
    assert all(ds.metadata["nr_pool"] == "split" for ds in data.values())
    _assert_no_leak(data)


def test_liu_plan_default_has_no_leak(root: Path, tmp_path: Path) -> None:
    """(a) The liu-smooth experiment's default plan builds the same, leak-free data (no
    training: only :meth:`LiuSmooth.data`)."""
    from axiomatic.experiments.liu_smooth import LiuPlan, LiuSmooth

    plan = LiuPlan(data_root=str(root))
    assert plan.nr_pool == "split"
    runner = LiuSmooth(plan, tmp_path, echo=lambda _: None)
    _assert_no_leak(runner.data("xquad", "de", 40))
    _assert_no_leak(_quiet(runner.data, "xquad", "de", 60))


def test_leaky_pool_does_leak(root: Path) -> None:
    """The check above detects the leak: with ``nr_pool="all-leaky"`` (the pre-fix construction)
    every test paragraph is a training candidate."""
    data = {s: xquad_graded(root, "en", "de", s, 40, nr_pool="all-leaky") for s in SPLITS}
    assert _relevant(data["test"]) <= _candidates(data["train"])
    with pytest.raises(AssertionError):
        _assert_no_leak(data)


@pytest.mark.parametrize("n_negatives", [20, 40, 60])
def test_dev_test_nr_come_from_same_split_articles(
    root: Path, split_of_doc: dict[str, str], n_negatives: int
) -> None:
    """(b) Every dev/test NR paragraph belongs to an article of the query's split (catalog at 40,
    ``xquad_graded`` otherwise); dev/test have exactly 40 such paragraphs per query."""
    for split in ("dev", "test"):
        ds = _quiet(xquad_graded, root, "en", "de", split, n_negatives)
        nr = _nr(ds)
        assert nr and {split_of_doc[d] for d in nr} == {split}
        per_query = {sum(g == 0 for g in (ds.qrels or {})[q].values()) for q in ds.queries}
        assert per_query == {min(n_negatives, 40)}


def test_short_nr_pool_warns_once_naming_split_and_counts(root: Path) -> None:
    """(c) dev/test have exactly 40 same-split NR paragraphs per query: 40 is silent, more gives
    ONE warning per call naming the split, the number asked and the available min / median."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        xquad_graded(root, "en", "de", "test", 40)
        xquad_graded(root, "en", "de", "train", 100)  # 145 available
    assert not caught, [str(w.message) for w in caught]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        xquad_graded(root, "en", "de", "test", 60)
    assert len(caught) == 1 and issubclass(caught[0].category, UserWarning)
    msg = str(caught[0].message)
    assert "split 'test'" in msg and "asked for 60" in msg and "min 40 / median 40" in msg, msg
    assert "197 of 197 questions" in msg, msg
    # all three splits in one call: still one warning, naming the short splits only
    ref = read_xquad(root / "xquad-clir" / "raw" / "xquad.en.json")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        graded_candidates(ref, list(ref.questions), n_negatives=41)
    assert len(caught) == 1
    msg = str(caught[0].message)
    assert "split 'dev'" in msg and "split 'test'" in msg and "split 'train'" not in msg, msg


def test_old_pool_name_all_is_a_clear_error(root: Path, tmp_path: Path) -> None:
    """(d) The pre-fix name ``"all"`` is refused with a message that says it leaks and names
    ``"all-leaky"`` - in ``xquad_graded``, the collection loader and the liu-smooth runner
    (before any training)."""
    from axiomatic.data.collections import load_xquad_clir
    from axiomatic.experiments.engine import run_experiment

    match = r"(?s)nr_pool='all'.*leaks the test set.*nr_pool='all-leaky'"
    with pytest.raises(ValueError, match=match):
        xquad_graded(root, "en", "de", "test", 40, nr_pool="all")
    with pytest.raises(ValueError, match=match):
        load_xquad_clir(root, "en", "de", "train", 40, "all")
    with pytest.raises(ValueError, match=match):
        run_experiment("liu-smooth", tmp_path / "out", data_root=str(root), nr_pool="all")
    assert not (tmp_path / "out").exists()
