"""The word-level rankers: shapes, gradients, persistence, batch independence, learning."""

from __future__ import annotations

import json

import pytest
import torch

from axiomatic.models import build_model, list_models, load_model, save_model
from axiomatic.models.io import is_word_model, resolve_model_name
from axiomatic.models.knrm import kernel_mus, kernel_pooling, kernel_sigmas
from axiomatic.models.matchzoo import matching_histogram

TEXTS = [
    "the cat sat on the mat",
    "dogs chase cats in the garden",
    "neural ranking models for passage retrieval",
    "bm25 is a strong lexical baseline for ranking",
    "the quick brown fox jumps over the lazy dog",
    "kernel pooling counts soft term matches",
]
QUERIES = ["cat on mat", "fox", "ranking models retrieval", ""]
DOCS = ["the cat sat on the mat", "a b", "bm25 is a strong lexical baseline for ranking", ""]
WORD_MODELS = [m for m in list_models() if is_word_model(m)]
TINY = {"embedding_dim": 16, "max_query_len": 8, "max_doc_len": 24}
TINY_EXTRA = {
    "conv-knrm": {"n_filters": 8},
    "matchpyramid": {"n_filters": 4, "hidden_size": 8},
    "duet": {"n_hidden": 8, "doc_pool_size": 8},
    "arc-i": {"n_filters": 8, "hidden_size": 8},
    "mv-lstm": {"lstm_hidden": 8, "hidden_size": 8},
}


def tiny(name: str, seed: int = 0, **extra):
    return build_model(name, texts=TEXTS, seed=seed, **TINY, **TINY_EXTRA.get(name, {}), **extra)


def test_the_eight_zoo_models_and_the_clir_dual_encoder_are_registered():
    # the neural ranker zoo (Rosset 2019's set) plus Liu et al.'s smooth dual encoder
    assert set(WORD_MODELS) == {
        "clir-dual",
        "knrm",
        "conv-knrm",
        "drmm",
        "matchpyramid",
        "duet",
        "anmm",
        "arc-i",
        "mv-lstm",
    }


@pytest.mark.parametrize("name", WORD_MODELS)
def test_word_model_scores_backprops_and_round_trips(name, tmp_path):
    model = tiny(name)
    model.train()
    batch = model.encode_batch(QUERIES, DOCS)
    assert set(batch) == {"query_ids", "doc_ids"}
    scores = model(**batch)
    assert scores.shape == (len(QUERIES),)
    assert torch.isfinite(scores).all()
    scores.sum().backward()
    grads = [p.grad for p in model.parameters() if p.requires_grad]
    assert all(g is not None and torch.isfinite(g).all() for g in grads)
    assert any(g.abs().sum() > 0 for g in grads)

    before = model.score_pairs(QUERIES, DOCS)
    save_model(model, tmp_path / name)
    meta = json.loads((tmp_path / name / "config.json").read_text())
    assert meta["model_type"] == name and meta["vocabulary"] == "vocab.json"
    assert not list((tmp_path / name).glob("*.pt")) and not list((tmp_path / name).glob("*.pkl"))
    loaded = load_model(tmp_path / name)
    assert type(loaded) is type(model)
    assert torch.equal(loaded.score_pairs(QUERIES, DOCS), before)


@pytest.mark.parametrize("name", WORD_MODELS)
def test_score_of_a_pair_does_not_depend_on_its_batch(name):
    model = tiny(name, seed=3)
    together = model.score_pairs(QUERIES, DOCS, batch_size=len(QUERIES))
    alone = torch.cat([model.score_pairs([q], [d]) for q, d in zip(QUERIES, DOCS, strict=True)])
    torch.testing.assert_close(together, alone, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("name", ["knrm", "conv-knrm", "drmm"])
def test_same_seed_same_model_different_seed_different_model(name):
    a = tiny(name, seed=5).score_pairs(QUERIES, DOCS)
    b = tiny(name, seed=5).score_pairs(QUERIES, DOCS)
    c = tiny(name, seed=6).score_pairs(QUERIES, DOCS)
    assert torch.equal(a, b)
    assert not torch.equal(a, c)


def test_knrm_kernels_follow_xiong_et_al():
    mus = kernel_mus(11)
    assert mus[0] == 1.0
    assert mus[1:] == pytest.approx([0.9, 0.7, 0.5, 0.3, 0.1, -0.1, -0.3, -0.5, -0.7, -0.9])
    assert kernel_sigmas(11) == [1e-3] + [0.1] * 10


def test_kernel_pooling_exact_match_kernel_counts_exact_matches():
    # one query term, four doc terms: two exact matches, one at 0.5, one padding
    sim = torch.tensor([[[1.0, 0.5, 1.0, 1.0]]])
    q_mask = torch.tensor([[True]])
    d_mask = torch.tensor([[True, True, True, False]])
    mus = torch.tensor(kernel_mus(11))
    sig = torch.tensor(kernel_sigmas(11))
    phi = kernel_pooling(sim, q_mask, d_mask, mus, sig, log_scale=1.0)
    assert phi[0, 0].item() == pytest.approx(torch.log(torch.tensor(2.0)).item(), abs=1e-4)
    # kernel at mu=0.5 sees exactly one term with value exp(0)=1 (plus tiny tails)
    assert phi[0, 3].item() == pytest.approx(0.0, abs=1e-3)


def test_drmm_histogram_puts_exact_matches_in_the_last_bin():
    sim = torch.tensor([[[1.0, 0.99999994, -1.0, 0.0, 0.3]]])
    d_mask = torch.tensor([[True, True, True, True, False]])
    hist = matching_histogram(sim, d_mask, n_bins=30, mode="ch")
    assert hist[0, 0, 29].item() == 2  # both exact matches (float32 cosine of equal vectors)
    assert hist[0, 0, 0].item() == 1  # -1
    assert hist[0, 0, 14].item() == 1  # 0
    assert hist.sum().item() == 4  # the padded 0.3 is not counted


def test_knrm_prefers_more_query_term_matches_with_shared_embeddings():
    # identical embeddings for query and document words: more exact matches -> higher soft-TF
    model = tiny("knrm", output_tanh=False)
    with torch.no_grad():
        model.dense.weight.zero_()
        model.dense.weight[0, 0] = 1.0  # score = exact-match kernel feature
    s = model.score_pairs(["cat"] * 2, ["the cat sat on the mat", "the cat sat on the cat mat"])
    assert s[1] > s[0]


def test_tiny_knrm_overfits_two_pairs():
    model = tiny("knrm", seed=1)
    queries = ["cat on mat", "fox dog"]
    pos = ["the cat sat on the mat", "the quick brown fox jumps over the lazy dog"]
    neg = ["neural ranking models for passage retrieval", "bm25 is a strong lexical baseline"]
    opt = torch.optim.Adam(model.parameters(), lr=0.05)
    losses = []
    for _ in range(60):
        model.train()
        sp = model(**model.encode_batch(queries, pos))
        sn = model(**model.encode_batch(queries, neg))
        loss = torch.relu(1.0 - sp + sn).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    assert losses[-1] < 0.5 * losses[0]
    s_pos = model.score_pairs(queries, pos)
    s_neg = model.score_pairs(queries, neg)
    assert (s_pos > s_neg).all()


def test_fixed_length_models_reject_unpadded_inputs():
    model = tiny("duet")
    bad = {
        "query_ids": torch.ones((1, 3), dtype=torch.long),
        "doc_ids": torch.ones((1, 24), dtype=torch.long),
    }
    with pytest.raises(ValueError, match="exactly 8"):
        model(**bad)


def test_build_model_errors_help():
    with pytest.raises(ValueError, match="did you mean 'knrm'"):
        build_model("knmr", texts=TEXTS)
    with pytest.raises(TypeError, match="did you mean 'n_kernels'"):
        build_model("knrm", texts=TEXTS, n_kernel=11)
    # bad input from a config file's model_config: a ValueError too (one error line in the CLI)
    with pytest.raises(ValueError, match=r"model_config: KNRM has no option 'zzz'"):
        build_model("knrm", texts=TEXTS, zzz=1)
    for key, value, want in (
        ("n_kernels", True, r"an integer >= 0 and < 2\*\*31"),
        ("n_kernels", 2**31, r"an integer >= 0 and < 2\*\*31"),
        ("embedding_dim", -5, "an integer >= 0"),
        ("sigma", float("inf"), "a finite number"),
        ("sigma", 10**400, "a finite number"),
        ("output_tanh", 1, "true or false"),
    ):
        with pytest.raises(ValueError, match=rf"option '{key}' of KNRM must be {want}"):
            build_model("knrm", texts=TEXTS, **{key: value})
    with pytest.raises(ValueError, match="texts="):
        build_model("drmm")
    assert resolve_model_name("ConvKNRM") == "conv-knrm"
    assert resolve_model_name("MV_LSTM") == "mv-lstm"
    assert resolve_model_name("cknrm") == "conv-knrm"


def test_build_with_word2vec_embeddings_is_reproducible():
    a = build_model("knrm", texts=TEXTS * 3, embeddings="word2vec", embedding_dim=12, seed=2)
    b = build_model("knrm", texts=TEXTS * 3, embeddings="word2vec", embedding_dim=12, seed=2)
    assert torch.equal(a.embedding.weight, b.embedding.weight)
    assert a.build_info["embeddings"] == "word2vec"


def test_load_model_rejects_a_folder_without_config(tmp_path):
    with pytest.raises(FileNotFoundError, match=r"config\.json"):
        load_model(tmp_path)
    (tmp_path / "config.json").write_text('{"format": "something-else"}')
    with pytest.raises(ValueError, match="axiomatic-model"):
        load_model(tmp_path)


def test_saved_model_is_a_ranker_through_the_model_spec(tmp_path):
    from axiomatic.data.demo import demo_dataset
    from axiomatic.data.records import Document, Query
    from axiomatic.models import NeuralRanker
    from axiomatic.rankers.registry import make_ranker

    model = tiny("knrm", seed=4)
    save_model(model, tmp_path / "knrm-tiny")
    ranker = make_ranker(f"model:{tmp_path / 'knrm-tiny'}", demo_dataset())
    assert isinstance(ranker, NeuralRanker) and ranker.name == "knrm:knrm-tiny"
    docs = [Document("a", DOCS[0]), Document("b", DOCS[2])]
    got = ranker.score(Query("q", QUERIES[0]), docs)
    want = model.score_pairs([QUERIES[0]] * 2, [DOCS[0], DOCS[2]]).numpy()
    assert got == pytest.approx(want, abs=1e-6)
