"""MiniLM cross-encoder and bi-encoder, the NeuralRanker adapter and load_ranker."""

from __future__ import annotations

import json

import numpy as np
import pytest
import torch

from axiomatic.data.records import Document, Query
from axiomatic.models import (
    BiEncoder,
    NeuralRanker,
    build_model,
    load_model,
    load_ranker,
    minilm_bi_encoder_ranker,
    save_model,
)
from axiomatic.rankers.base import Ranker

QUERIES = ["what do cats eat", "capital of france"]
DOCS = [
    "Cats are carnivores and eat mostly meat such as fish and chicken.",
    "Paris is the capital and largest city of France.",
]


@pytest.fixture(scope="module")
def cross_encoder():
    return build_model("cross-encoder", max_length=32, seed=0)


@pytest.fixture(scope="module")
def bi_ranker():
    return minilm_bi_encoder_ranker(max_length=64, device="cpu")


def test_cross_encoder_encodes_pairs_scores_and_backprops(cross_encoder):
    batch = cross_encoder.encode_batch(QUERIES, DOCS)
    assert set(batch) == {"input_ids", "attention_mask", "token_type_ids"}
    tok = cross_encoder.tokenizer
    ids = batch["input_ids"][0].tolist()
    assert ids[0] == tok.cls_token_id and ids.count(tok.sep_token_id) == 2  # [CLS] q [SEP] d [SEP]
    assert batch["input_ids"].shape[1] <= 32
    cross_encoder.train()
    scores = cross_encoder(**batch)
    assert scores.shape == (2,) and torch.isfinite(scores).all()
    scores.sum().backward()
    assert cross_encoder.head.weight.grad is not None
    assert cross_encoder.encoder.embeddings.word_embeddings.weight.grad.abs().sum() > 0
    cross_encoder.zero_grad(set_to_none=True)


def test_cross_encoder_round_trips_exactly(cross_encoder, tmp_path):
    before = cross_encoder.score_pairs(QUERIES, DOCS, bf16=False)
    save_model(cross_encoder, tmp_path / "ce")
    meta = json.loads((tmp_path / "ce" / "config.json").read_text())
    assert meta["model_type"] == "cross-encoder" and meta["config"]["max_length"] == 32
    assert (tmp_path / "ce" / "tokenizer").is_dir()
    loaded = load_model(tmp_path / "ce")
    assert torch.equal(loaded.score_pairs(QUERIES, DOCS, bf16=False), before)
    ranker = load_ranker(tmp_path / "ce", device="cpu", bf16=False)
    assert ranker.name == "cross-encoder:ce"
    got = ranker.score(Query("q", QUERIES[0]), [Document("d", DOCS[0])])
    assert got[0] == pytest.approx(before[0].item(), abs=1e-6)


def test_bf16_inference_stays_close_to_float32_and_follows_weight_updates(cross_encoder):
    fp32 = cross_encoder.score_pairs(QUERIES, DOCS, bf16=False)
    bf16 = cross_encoder.score_pairs(QUERIES, DOCS, bf16=True)
    assert bf16.dtype == torch.float32
    torch.testing.assert_close(bf16, fp32, atol=0.02, rtol=0.05)
    # the scoring head stays float32: scores are not rounded to bf16's 8 mantissa bits
    assert not torch.equal(bf16, bf16.bfloat16().float())
    # an in-place weight update (as an optimizer step does) must reach the bf16 copy
    layer = cross_encoder.encoder.encoder.layer[-1].output.dense
    with torch.no_grad():
        layer.weight.mul_(-1.0)
    try:
        changed = cross_encoder.score_pairs(QUERIES, DOCS, bf16=True)
        assert not torch.allclose(changed, bf16, atol=1e-3)
    finally:
        with torch.no_grad():
            layer.weight.mul_(-1.0)
    assert "_bf16_cache" not in cross_encoder.state_dict()


def test_bf16_copy_follows_sparse_optimizer_steps_and_loads(cross_encoder):
    """An optimizer step that changes one embedding row (which a strided sample of the
    weights misses) and a ``load_state_dict`` both reach the cached bf16 copy."""
    import copy

    saved = copy.deepcopy(cross_encoder.state_dict())
    was_training = cross_encoder.training
    cross_encoder.eval()  # train mode drops the copy
    emb = cross_encoder.encoder.get_input_embeddings().weight
    row = 2054  # a row the strided sample of the 30,522 x 384 matrix skips

    def copied_row() -> torch.Tensor:
        cross_encoder.score_pairs(QUERIES[:1], DOCS[:1], bf16=True)
        bf16 = cross_encoder.__dict__["_bf16_cache"][1]
        return bf16.get_input_embeddings().weight[row].float()

    before = copied_row()
    opt = torch.optim.SGD([emb], lr=1.0)
    try:
        emb.grad = torch.zeros_like(emb)
        emb.grad[row] = 5.0
        opt.step()
        torch.testing.assert_close(copied_row(), emb[row].detach().bfloat16().float())
        assert not torch.allclose(copied_row(), before)
        cross_encoder.load_state_dict(saved)
        torch.testing.assert_close(copied_row(), before)
    finally:
        emb.grad = None
        cross_encoder.load_state_dict(saved)
        cross_encoder.train(was_training)


def test_bi_encoder_ranks_the_matching_document_first(bi_ranker):
    assert isinstance(bi_ranker, Ranker)
    docs = [Document("france", DOCS[1]), Document("cats", DOCS[0])]
    scores = bi_ranker.score(Query("q1", QUERIES[0]), docs)
    assert scores.dtype == np.float64 and scores.shape == (2,)
    assert scores[1] > scores[0]
    scores = bi_ranker.score(Query("q2", QUERIES[1]), docs)
    assert scores[0] > scores[1]
    assert np.all(np.abs(scores) <= 1.0 + 1e-6)  # cosine
    assert bi_ranker.score(Query("q", "x"), []).shape == (0,)


def test_bi_encoder_query_once_path_matches_pairwise_scores(bi_ranker):
    model = bi_ranker.model
    pairwise = model.score_pairs([QUERIES[0]] * 2, DOCS, bf16=False)
    once = model.score_query(QUERIES[0], DOCS, bf16=False)
    torch.testing.assert_close(once, pairwise, atol=1e-5, rtol=1e-5)


def test_bi_encoder_score_does_not_depend_on_batch(bi_ranker):
    model = bi_ranker.model
    together = model.score_pairs(QUERIES * 2, DOCS * 2, bf16=False)
    alone = torch.cat(
        [
            model.score_pairs([q], [d], bf16=False)
            for q, d in zip(QUERIES * 2, DOCS * 2, strict=True)
        ]
    )
    torch.testing.assert_close(together, alone, atol=1e-5, rtol=1e-5)


def test_bi_encoder_backprops_and_round_trips(bi_ranker, tmp_path):
    model: BiEncoder = bi_ranker.model
    save_model(model, tmp_path / "bi")
    loaded = load_model(tmp_path / "bi")
    assert torch.equal(
        loaded.score_pairs(QUERIES, DOCS, bf16=False), model.score_pairs(QUERIES, DOCS, bf16=False)
    )
    loaded.train()
    out = loaded(**loaded.encode_batch(QUERIES, DOCS))
    out.sum().backward()
    assert loaded.encoder.embeddings.word_embeddings.weight.grad.abs().sum() > 0


def test_neural_ranker_rejects_non_models_and_bad_batch_size(cross_encoder):
    with pytest.raises(TypeError, match="NeuralRankingModel"):
        NeuralRanker(object())  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="batch_size"):
        NeuralRanker(cross_encoder, batch_size=0)
    with pytest.raises(ValueError, match="max_length"):
        build_model("cross-encoder", max_length=4)


def test_zero_shot_bi_encoder_reranks_the_demo_collection(bi_ranker):
    from axiomatic.data.demo import demo_dataset
    from axiomatic.rankers.base import rerank

    dataset = demo_dataset()
    run = rerank(bi_ranker, dataset)
    assert set(run) == set(dataset.queries)
    correct = total = 0
    for qid, scores in run.items():
        labels = dataset.qrels.get(qid, {})
        rel = [s for d, s in scores.items() if labels.get(d, 0) >= dataset.rel_threshold]
        non = [s for d, s in scores.items() if labels.get(d, 0) < dataset.rel_threshold]
        correct += sum(r > n for r in rel for n in non)
        total += len(rel) * len(non)
    assert total > 0
    assert correct / total > 0.9  # pairwise accuracy (1.0 measured); random order gives ~0.5
