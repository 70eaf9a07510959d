"""One scoring path for a neural model: experiments, the trainer and
``axiomatic rank`` all score through :func:`axiomatic.models.scoring.score_candidates`.

Each test below was checked by breaking the code it guards (see the test docstrings).
"""

from __future__ import annotations

import dataclasses
import re
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest
import torch
from typer.testing import CliRunner

from axiomatic.cli.main import app
from axiomatic.data.demo import demo_dataset
from axiomatic.data.records import Dataset, Query
from axiomatic.data.trec import read_run
from axiomatic.models import NeuralRanker, build_model, load_model, save_model
from axiomatic.models.base import NeuralRankingModel
from axiomatic.models.device import choose_device
from axiomatic.models.scoring import SCORE_BATCH_SIZE, score_candidates
from axiomatic.models.transformer import BiEncoder
from axiomatic.rankers.base import rerank


@pytest.fixture(scope="module")
def dataset() -> Dataset:
    """Four demo queries plus a query with q1's text and q2's candidates reversed (repeated
    query and document texts) and a query without candidates."""
    demo = demo_dataset()
    ids = ["q1", "q2", "q3", "q4"]
    queries = {q: demo.queries[q] for q in ids}
    queries["again"] = Query("again", demo.queries["q1"].text)
    queries["none"] = Query("none", "a query without candidates")
    candidates = {q: list(demo.candidate_ids(q)) for q in ids}
    candidates["again"] = candidates["q2"][::-1]
    candidates["none"] = []
    qrels = {q: demo.qrels[q] for q in ids}
    return dataclasses.replace(demo, queries=queries, candidates=candidates, qrels=qrels)


@pytest.fixture(scope="module")
def cross_encoder() -> NeuralRankingModel:
    return build_model("cross-encoder", max_length=32, seed=0).eval()


@pytest.fixture(scope="module")
def bi_encoder() -> BiEncoder:
    return BiEncoder(max_length=32).eval()


def _pairs(ds: Dataset) -> list[tuple[str, str]]:
    return [(q, d) for q in ds.queries for d in ds.candidate_ids(q)]


def test_experiment_and_cli_rank_score_a_cross_encoder_identically(
    cross_encoder: NeuralRankingModel, dataset: Dataset, tmp_path: Path
) -> None:
    """``axiomatic rank -r model:PATH`` (CLI, its run file read back: scores are written with
    ``repr``) equals the experiment path bit for bit. Broken check: ``rerank`` scoring a
    NeuralRanker query by query (its per-query ``score``) changes the last bits and fails."""
    save_model(cross_encoder, tmp_path / "ce")
    table = score_candidates(load_model(tmp_path / "ce"), dataset, depth=10)
    assert table["none"] == {} and len(table["q1"]) == 10
    ranked = rerank(NeuralRanker(cross_encoder), dataset, depth=10)
    assert ranked == table  # same floats, not approximately
    demo = demo_dataset()
    out = tmp_path / "run.trec"
    res = CliRunner().invoke(
        app,
        ["rank", "-d", "demo", "-r", f"model:{tmp_path / 'ce'}", "-o", str(out), "--depth", "3"],
    )
    assert res.exit_code == 0, res.output
    model = load_model(tmp_path / "ce", device=choose_device())  # where the CLI loads it
    assert read_run(out) == score_candidates(model, demo, depth=3)


def test_experiment_and_ranker_paths_score_a_bi_encoder_identically(
    bi_encoder: BiEncoder, dataset: Dataset
) -> None:
    table = score_candidates(bi_encoder, dataset)
    assert table == rerank(NeuralRanker(bi_encoder, name="bi"), dataset)
    assert table["none"] == {}
    assert {(q, d) for q, docs in table.items() for d in docs} == set(_pairs(dataset))


def test_bi_encoder_fast_path_equals_score_pairs_and_encodes_each_text_once(
    bi_encoder: BiEncoder, dataset: Dataset, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Broken checks: encoding per (query, document) pair fails the counts; scoring the
    document vectors against the wrong query (or a dot without the model's scale) fails the
    comparison with ``score_pairs``."""
    seen: dict[bool, Counter[str]] = {True: Counter(), False: Counter()}
    embed = bi_encoder.embed_texts

    def counting(texts: Sequence[str], *args: object, **kwargs: object) -> torch.Tensor:
        seen[bool(kwargs.get("as_query", False))].update(texts)
        return embed(texts, *args, **kwargs)  # type: ignore[arg-type]

    pairs = _pairs(dataset)
    monkeypatch.setattr(bi_encoder, "scale", 3.0)  # a temperature, as in training
    with monkeypatch.context() as patch:
        patch.setattr(bi_encoder, "embed_texts", counting)
        run = score_candidates(bi_encoder, dataset, batch_size=16, bf16=False)
    query_texts = {dataset.queries[q].text for q, _ in pairs}
    doc_texts = {dataset.documents[d].text for _, d in pairs}
    assert len(query_texts) < len({q for q, _ in pairs})  # a query text repeats
    assert len(doc_texts) < len(pairs)  # and documents do
    assert seen[True] == Counter(query_texts)  # each distinct text once, nothing else
    assert seen[False] == Counter(doc_texts)
    reference = bi_encoder.score_pairs(
        [dataset.queries[q].text for q, _ in pairs],
        [dataset.documents[d].text for _, d in pairs],
        bf16=False,
    )
    got = np.array([run[q][d] for q, d in pairs])
    np.testing.assert_allclose(got, reference.numpy(), rtol=0, atol=1e-6)
    assert np.abs(got).max() > 1.0  # the scale is applied (cosines alone are <= 1)


# ------------------------------------------------------------------ NaN scores
class _NaNForYeast(NeuralRankingModel):
    """Scores a pair 1 + its document length, or NaN when the document mentions yeast."""

    model_type = "nan-for-yeast"

    def __init__(self) -> None:
        super().__init__()
        self.w = torch.nn.Parameter(torch.ones(1))

    def encode_batch(self, queries: Sequence[str], documents: Sequence[str]) -> dict:
        return {
            "n": torch.tensor([float(len(d)) for d in documents]),
            "bad": torch.tensor([bool(re.search("yeast", d, re.I)) for d in documents]),
        }

    def forward(self, n: torch.Tensor, bad: torch.Tensor) -> torch.Tensor:  # type: ignore[override]
        return torch.where(bad, torch.full_like(n, float("nan")), self.w + n)


class _NaNForYeastEncoder(_NaNForYeast):
    """The same scores through the separate-encoder path (``embed_texts`` /
    ``score_embedded``)."""

    model_type = "nan-for-yeast-encoder"

    def embed_texts(
        self, texts: Sequence[str], batch_size: int = 1, bf16: object = None, as_query=False
    ) -> torch.Tensor:
        if as_query:
            return torch.ones((len(texts), 2))
        length = self.score_pairs(["q"] * len(texts), list(texts)) - 1.0
        return torch.stack([torch.ones_like(length), length], dim=1)

    def score_embedded(self, query: torch.Tensor, documents: torch.Tensor) -> torch.Tensor:
        return documents[:, 0] * query[0] + documents[:, 1] * query[1]


def _mentions_yeast(ds: Dataset, doc_id: str) -> bool:
    return "yeast" in ds.documents[doc_id].text.lower()


@pytest.mark.parametrize("model_class", [_NaNForYeast, _NaNForYeastEncoder])
def test_nan_scores_are_an_error_naming_the_query_and_documents(model_class: type) -> None:
    """Broken check: without the NaN check in ``score_candidates`` both paths return a run."""
    demo = demo_dataset()
    bad_of = {
        q: [d for d in demo.candidate_ids(q) if _mentions_yeast(demo, d)] for q in demo.queries
    }
    first = next(q for q, bad in bad_of.items() if bad)  # the first query that fails
    bad = bad_of[first]
    model = model_class()
    for score in (
        lambda: score_candidates(model, demo),
        lambda: rerank(NeuralRanker(model, name="broken"), demo),
    ):
        with pytest.raises(ValueError, match="returned NaN") as err:
            score()
        msg = str(err.value)
        assert f"query {first!r}" in msg and f"{len(bad)} of " in msg and repr(bad[0]) in msg
    clean = _without_yeast(demo)
    run = score_candidates(model, clean)
    assert run["q1"] and all(np.isfinite(s) for s in run["q1"].values())
    assert run == rerank(NeuralRanker(model), clean)


def _without_yeast(ds: Dataset) -> Dataset:
    kept = {q: [d for d in c if not _mentions_yeast(ds, d)] for q, c in ds.candidates.items()}
    return dataclasses.replace(ds, candidates=kept)


def test_score_candidates_batches_across_queries(dataset: Dataset) -> None:
    """One ``score_pairs`` call scores every distinct text pair once when they fit in one
    chunk (no per-query loop), and depth, empty lists and the default batch size are those of
    the old paths. Broken check: scoring every (query id, document id) pair fails the count."""
    calls: list[list[tuple[str, str]]] = []

    class Counting(_NaNForYeast):
        def score_pairs(self, queries, documents, batch_size=64, bf16=None):  # type: ignore[override]
            calls.append(list(zip(queries, documents, strict=True)))
            assert batch_size == SCORE_BATCH_SIZE
            return super().score_pairs(queries, documents, batch_size, bf16)

    model = Counting()
    clean = _without_yeast(dataset)
    run = score_candidates(model, clean, depth=3)
    pairs = [
        (clean.queries[q].text, clean.documents[d].text)
        for q, c in (clean.candidates or {}).items()
        for d in c[:3]
    ]
    assert len(set(pairs)) < len(pairs)  # "again" repeats q1's text with q2's candidates
    assert len(calls) == 1 and Counter(calls[0]) == Counter(set(pairs))
    assert run["none"] == {} and all(len(v) == 3 for q, v in run.items() if q != "none")
    assert NeuralRanker(model).batch_size == SCORE_BATCH_SIZE


def test_text_list_scoring_is_score_text_lists_of_the_ranker(dataset: Dataset) -> None:
    """The shared ``score`` / ``score_lists`` of the folder and LLM rankers
    (:class:`TextListScoring`): the values of the ranker's own ``score_pairs`` (and, for a
    separate encoder, ``score_embedded`` of its vectors), each distinct pair once across all
    lists, with the ranker's ``batch_size`` and ``bf16``. Broken checks: passing ``None`` for
    ``bf16`` fails the option record; scoring list by list fails the call count; scoring
    another list's documents fails the values."""
    from axiomatic.models.scoring import TextListScoring

    calls: list[tuple[int, int, object]] = []

    class Pairs(TextListScoring):
        name, batch_size, bf16 = "pairs", 3, True

        def score_pairs(self, queries, documents, batch_size=64, bf16=None):  # type: ignore[no-untyped-def]
            calls.append((len(queries), batch_size, bf16))
            return torch.tensor(
                [1000.0 * len(q) + len(d) for q, d in zip(queries, documents, strict=True)]
            )

    class Vectors(TextListScoring):
        name, batch_size = "vectors", 2

        def embed_texts(self, texts, batch_size=64, bf16=None, as_query=False):  # type: ignore[no-untyped-def]
            return torch.tensor([[float(len(t)), 1.0 if as_query else 2.0] for t in texts])

        def score_embedded(self, query, documents):  # type: ignore[no-untyped-def]
            return documents @ query

    lists = [
        (dataset.queries[q], [dataset.documents[d] for d in dataset.candidate_ids(q)])
        for q in dataset.queries
    ]
    got = Pairs().score_lists(lists)
    distinct = {(q.text, d.text) for q, docs in lists for d in docs}
    assert [c[1:] for c in calls] == [(3, True)] and calls[0][0] == len(distinct)
    for (q, docs), s in zip(lists, got, strict=True):
        np.testing.assert_array_equal(s, [1000.0 * len(q.text) + len(d.text) for d in docs])
        assert s.dtype == np.float64
    q, docs = lists[1]
    np.testing.assert_array_equal(Pairs().score(q, docs), got[1])
    assert Pairs().score(q, []).shape == (0,)
    vec = Vectors().score_lists(lists)
    for (q, docs), s in zip(lists, vec, strict=True):
        np.testing.assert_array_equal(s, [len(q.text) * len(d.text) + 2.0 for d in docs])
