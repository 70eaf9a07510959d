"""The dual-encoder CLIR model: shapes, towers, trainer integration (graded loss, resume, grad-norm
log) and loading as a Ranker through ``model:DIR``."""

from __future__ import annotations

import json

import numpy as np
import pytest
import torch

from axiomatic.experiments.clir_data import synthetic_graded_clir
from axiomatic.models.clir import SmoothDualEncoder
from axiomatic.models.vocab import Vocabulary, model_analyzer
from axiomatic.training.config import TrainConfig
from axiomatic.training.smooth import graded_points
from axiomatic.training.trainer import Trainer


@pytest.fixture(scope="module")
def data():
    return synthetic_graded_clir(seed=0)


def _model(data, encoder="avg", eps=1.0) -> SmoothDualEncoder:
    texts = [q.text for q in data["train"].queries.values()]
    texts += [d.text for d in data["train"].documents.values()]
    vocab = Vocabulary.build(texts, model_analyzer("en"))
    torch.manual_seed(0)
    q = np.random.default_rng(0).normal(0, 0.3, (len(vocab), 16)).astype(np.float32)
    d = np.random.default_rng(1).normal(0, 0.3, (len(vocab), 16)).astype(np.float32)
    return SmoothDualEncoder(
        vocab, embedding_dim=16, encoder=encoder, eps=eps, embeddings=q, doc_embeddings=d
    )


@pytest.mark.parametrize("encoder", ["avg", "cnn", "lstm"])
def test_towers_shapes_and_range(data, encoder) -> None:
    m = _model(data, encoder).eval()
    qs = [q.text for q in data["test"].queries.values()][:5]
    ds = [d.text for d in data["test"].documents.values()][:5]
    enc = m.encode_batch(qs, ds)
    assert m.encode_queries(enc["query_ids"]).shape == (5, 16)
    assert m.encode_documents(enc["doc_ids"]).shape == (5, 16)
    s = m(**enc)
    assert s.shape == (5,) and bool(((s >= -1) & (s <= 1)).all())
    # separate towers: the query and document tables are different parameters
    assert m.embedding.weight.data_ptr() != m.doc_embedding.weight.data_ptr()


def test_unknown_encoder_suggests() -> None:
    vocab = Vocabulary.build(["a b"], model_analyzer("en"))
    with pytest.raises(
        ValueError,
        match=r"^unknown encoder 'lstn' \(did you mean 'lstm'\?\); expected one of avg, cnn, lstm$",
    ):
        SmoothDualEncoder(vocab, encoder="lstn")


def test_graded_points_cover_candidates(data) -> None:
    pts = graded_points(data["train"])
    assert len(pts) == sum(len(c) for c in data["train"].candidates.values())
    assert {p.label_hi for p in pts} == {0.0, 1.0, 2.0}
    assert all(p.doc_hi == p.doc_lo for p in pts)


def test_trainer_graded_loss_learns_resumes_and_loads_as_ranker(data, tmp_path) -> None:
    from axiomatic.experiments.common import per_query
    from axiomatic.models.ranker import load_ranker
    from axiomatic.models.scoring import score_candidates

    cfg = TrainConfig(
        dataset="synthetic",
        model="clir-dual",
        loss="graded",
        graded_loss="sosl(thresholds=0.2,0.7)",
        lr=0.05,
        batch_size=32,
        steps=60,
        eval_every=20,
        checkpoint_every=20,
        patience=0,
        grad_clip=None,
        log_grad_norm=True,
    )
    kills = []

    def kill(step, record):
        if step == 40 and not kills:
            kills.append(step)
            raise KeyboardInterrupt

    m = _model(data)
    before = per_query(score_candidates(m, data["test"]), data["test"], ["RR@10"])
    with pytest.raises(KeyboardInterrupt):
        Trainer(m, cfg, tmp_path / "run", data["train"], data["dev"], callback=kill).fit()
    m2 = _model(data)
    res = Trainer(m2, cfg, tmp_path / "run", data["train"], data["dev"]).fit(resume=True)
    assert res.steps == 60
    log = [json.loads(line) for line in (tmp_path / "run" / "log.jsonl").read_text().splitlines()]
    assert [r["step"] for r in log] == list(range(1, 61))
    assert all(r["grad_norm"] > 0 for r in log)
    after = per_query(score_candidates(m2, data["test"]), data["test"], ["RR@10"])
    mean = lambda v: sum(v["RR@10"].values()) / len(v["RR@10"])  # noqa: E731
    assert mean(after) > mean(before)
    ranker = load_ranker(tmp_path / "run" / "model")
    assert ranker.model.config["encoder"] == "avg" and ranker.model.eps == 1.0
    q = next(iter(data["test"].queries.values()))
    docs = data["test"].candidate_documents(q.query_id)
    assert np.allclose(
        ranker.score(q, docs),
        m2.score_pairs([q.text] * len(docs), [d.text for d in docs]).numpy(),
        atol=1e-6,
    )


def test_config_rejects_graded_loss_without_graded() -> None:
    with pytest.raises(ValueError, match="needs loss='graded'"):
        TrainConfig(loss="hinge", graded_loss="sosl")
    with pytest.raises(ValueError, match="unknown graded loss"):
        TrainConfig(loss="graded", graded_loss="sols")


def test_shared_embeddings_is_one_table_that_survives_save_and_load(data, tmp_path) -> None:
    """``shared_embeddings=True``: both towers read (and train) the same table; a saved model
    loads back with the tables still tied and the same scores."""
    from axiomatic.models.io import load_model, save_model

    texts = [q.text for q in data["train"].queries.values()]
    texts += [d.text for d in data["train"].documents.values()]
    vocab = Vocabulary.build(texts, model_analyzer("en"))
    torch.manual_seed(0)
    emb = np.random.default_rng(0).normal(0, 0.3, (len(vocab), 16)).astype(np.float32)
    m = SmoothDualEncoder(vocab, embedding_dim=16, shared_embeddings=True, embeddings=emb)
    assert m.doc_embedding is m.embedding
    assert np.allclose(m.doc_embedding.weight.detach().numpy()[2:], emb[2:])
    sep = SmoothDualEncoder(vocab, embedding_dim=16, embeddings=emb)
    n = lambda mod: sum(p.numel() for p in mod.parameters())  # noqa: E731
    assert n(sep) - n(m) == len(vocab) * 16
    # a gradient step through the document tower moves the query tower's table too
    opt = torch.optim.SGD(m.parameters(), lr=1.0)
    q0 = next(iter(data["train"].queries.values()))
    enc = m.encode_batch([q0.text], [data["train"].candidate_documents(q0.query_id)[0].text])
    (-m(**enc)).sum().backward()
    before = m.embedding.weight.detach().clone()
    opt.step()
    assert not torch.equal(before, m.embedding.weight.detach())
    path = save_model(m.eval(), tmp_path / "shared")
    m2 = load_model(path)
    assert m2.shared_embeddings and m2.doc_embedding is m2.embedding
    qs = [q.text for q in data["test"].queries.values()][:4]
    ds = [d.text for d in data["test"].documents.values()][:4]
    assert torch.allclose(m.score_pairs(qs, ds), m2.eval().score_pairs(qs, ds), atol=1e-6)


def test_xquad_nr_pool_split_samples_only_same_split_articles() -> None:
    """``nr_pool="split"`` (the default): the NR candidates of a test query are
    paragraphs of other *test* articles (never a training document); only the explicitly named
    leaky pool ``"all-leaky"`` mixes in training paragraphs."""
    from axiomatic.data.readers.xquad import read_xquad, xquad_article_splits
    from axiomatic.experiments.clir_data import xquad_graded
    from shared_data import require_collection

    folder = require_collection("xquad-clir")
    root = folder.parent
    ref = read_xquad(folder / "raw" / "xquad.en.json")
    split_of = xquad_article_splits(ref.titles)
    art = ref.article_of
    test = xquad_graded(root, "en", "de", "test", 40, nr_pool="split")
    assert test.metadata["nr_pool"] == "split" and test.name == "xquad-clir/en-de/test"
    nr = [d for q in test.queries for d, g in (test.qrels or {})[q].items() if g == 0]
    assert nr and all(split_of[art[d]] == "test" for d in nr)
    canon = xquad_graded(root, "en", "de", "test", 40)
    assert canon.candidates == test.candidates and canon.qrels == test.qrels
    leaky = xquad_graded(root, "en", "de", "test", 40, nr_pool="all-leaky")
    assert leaky.name.endswith("@nr40-all-leaky")
    nr_all = [d for q in leaky.queries for d, g in (leaky.qrels or {})[q].items() if g == 0]
    assert any(split_of[art[d]] == "train" for d in nr_all)
    with pytest.raises(ValueError, match="nr_pool must be one of"):
        xquad_graded(root, "en", "de", "test", 40, nr_pool="train")
