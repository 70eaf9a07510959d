"""ARES pre-training (Chen et al. 2022, section 4.3): masking, pairs, hinge + MLM, resume."""

from __future__ import annotations

import json

import numpy as np
import pytest
import torch

from axiomatic.ares.pipeline import load_collection, prepare
from axiomatic.ares.pretrain import (
    AresCrossEncoder,
    ares_dataset,
    ares_pairs,
    check_variant,
    mask_tokens,
    pretrain_ares,
)


def test_bert_masking_rates_and_specials() -> None:
    g = torch.Generator().manual_seed(0)
    ids = torch.randint(5, 1000, (200, 100))
    special = torch.zeros_like(ids, dtype=torch.bool)
    special[:, 0] = True
    masked, labels = mask_tokens(ids, special, mask_id=3, vocab_size=1000, generator=g)
    target = labels != -100
    assert not target[:, 0].any()  # specials are never targets
    assert target.float().mean().item() == pytest.approx(0.15 * 99 / 100, abs=0.01)
    assert (labels[target] == ids[target]).all()
    frac_mask = (masked[target] == 3).float().mean().item()
    frac_same = (masked[target] == ids[target]).float().mean().item()
    assert frac_mask == pytest.approx(0.8, abs=0.03)
    assert frac_same == pytest.approx(0.1, abs=0.03)  # ~10 % kept (+ random hits of itself)
    assert (masked[~target] == ids[~target]).all()
    g2 = torch.Generator().manual_seed(0)
    again, _ = mask_tokens(ids, special, 3, 1000, g2)
    assert torch.equal(again, masked)


def test_unknown_variant_is_a_clear_error() -> None:
    assert check_variant("ARES_simple") == "simple"
    with pytest.raises(ValueError, match="did you mean 'strict'"):
        check_variant("strikt")


def _prepared(tmp_path):
    coll = load_collection("demo")
    from axiomatic.index.collection import CollectionIndex
    from axiomatic.text.analyzer import Analyzer

    n = CollectionIndex.build(coll.documents.values(), Analyzer()).n_terms
    vecs = np.random.default_rng(0).normal(size=(n, 8))
    return prepare(coll, cache_dir=tmp_path / "cache", seed=0, term_vectors=vecs)


def test_strict_pairs_have_no_disagreeing_axiom_and_dataset_is_one_pair_per_entry(tmp_path):
    from axiomatic.axioms.query_pairs import preference_features

    p = _prepared(tmp_path)
    d, qp, qn = ares_pairs(p, "strict", None, pairs_per_doc=4, seed=0)
    assert len(d) > 0
    X = preference_features(p.ctx, qp, qn)
    assert (X >= 0).all() and ((X > 0).sum(axis=1) >= 3).all()
    assert (p.pseudo.doc[qp] == d).all() and (p.pseudo.doc[qn] == d).all()
    with pytest.raises(ValueError, match="needs a trained preference predictor"):
        ares_pairs(p, "simple", None)
    ds = ares_dataset(p, d, qp, qn)
    assert len(ds.queries) == len(d)
    q0 = next(iter(ds.queries))
    assert len(ds.qrels[q0]) == 2 and sorted(ds.qrels[q0].values()) == [0, 1]


@pytest.mark.slow
def test_pretraining_killed_and_resumed_gives_the_same_model(tmp_path, monkeypatch) -> None:
    torch.set_num_threads(1)
    p = _prepared(tmp_path)
    kw = dict(steps=2, batch_size=2, max_length=32, eval_every=100, checkpoint_every=1)
    full = pretrain_ares([p], tmp_path / "full", "strict", **kw)
    assert full["train"]["steps"] == 2
    # the same folder with another seed or another prepared sample is refused
    # (its predictor and its pairs, row indices into the old sample, are not reused)
    with pytest.raises(ValueError, match=r"other settings: .*seed 0 -> 5"):
        pretrain_ares([p], tmp_path / "full", "strict", **{**kw, "seed": 5})
    other = prepare(
        load_collection("demo"),
        cache_dir=tmp_path / "cache",
        seed=1,
        term_vectors=p.ctx.term_vectors,
    )
    with pytest.raises(ValueError, match=r"other settings: samples \["):
        pretrain_ares([other], tmp_path / "full", "strict", **kw)
    assert pretrain_ares([p], tmp_path / "full", "strict", **kw) == full  # same: reused

    class Kill(Exception):
        pass

    def kill(step, record):
        if step == 1:
            raise Kill

    from axiomatic.training import trainer as T

    real_init = T.Trainer.__init__

    def init_with_kill(self, *a, **k):
        real_init(self, *a, **k)
        self.callback = kill

    with monkeypatch.context() as m:
        m.setattr(T.Trainer, "__init__", init_with_kill)
        with pytest.raises(Kill):
            pretrain_ares([p], tmp_path / "resumed", "strict", **kw)
    resumed = pretrain_ares([p], tmp_path / "resumed", "strict", **kw)
    assert resumed["train"]["steps"] == 2
    a = torch.load(tmp_path / "full" / "train" / "checkpoint.pt", weights_only=False)["model"]
    b = torch.load(tmp_path / "resumed" / "train" / "checkpoint.pt", weights_only=False)["model"]
    for k in a:
        torch.testing.assert_close(a[k], b[k])
    # the exported plain cross-encoder scores like the pre-trained model
    from axiomatic.models.io import load_model

    plain = load_model(tmp_path / "full" / "encoder")
    net = AresCrossEncoder(max_length=32, pretrained=False)
    net.load_state_dict(a)
    net.eval()
    s1 = plain.score_pairs(["solar power"], ["solar panels on a roof"], bf16=False)
    s2 = net.score_pairs(["solar power"], ["solar panels on a roof"], bf16=False)
    torch.testing.assert_close(s1, s2)


# ------------------------------------------------------------------ the fast step == the plain formulation
def _reference_step_loss(strategy, trainer, batch, step):
    """The step as first written (kept as the reference): the hinge batch and the MLM batch
    tokenized separately, the special-token mask row by row, full-vocabulary logits at every
    position through ``x @ W.T + b``, cross-entropy over the masked positions."""
    import torch.nn.functional as F

    from axiomatic.ares.pretrain import mask_tokens
    from axiomatic.training.losses import pairwise_hinge

    cfg, model = trainer.config, trainer.model
    docs = [trainer.train_data.queries[p.query_id].text for p in batch]
    q_hi = [trainer.text(p.doc_hi) for p in batch]
    q_lo = [trainer.text(p.doc_lo) for p in batch]
    scores = model(**model.encode_batch(q_hi + q_lo, docs + docs)).float()
    B = len(batch)
    rel = pairwise_hinge(scores[:B], scores[B:], cfg.margin)
    enc = model.encode_batch(q_hi, docs)
    special = torch.tensor(
        [
            model.tokenizer.get_special_tokens_mask(r, already_has_special_tokens=True)
            for r in enc["input_ids"].tolist()
        ],
        dtype=torch.bool,
    ) | (enc["attention_mask"] == 0)
    gen = torch.Generator().manual_seed(int(cfg.seed) * 1_000_003 + int(step))
    ids, labels = mask_tokens(
        enc["input_ids"], special, model.tokenizer.mask_token_id, model.encoder.config.vocab_size,
        gen, strategy.mask_prob,
    )  # fmt: skip
    h = model.token_embeddings(ids, enc["attention_mask"], enc["token_type_ids"])
    head = model.mlm_head
    x = head.norm(F.gelu(head.dense(h)))
    logits = x @ head.word_embeddings.weight.T + head.bias  # (B, L, V): every position
    mlm = F.cross_entropy(logits.reshape(-1, logits.shape[-1]), labels.reshape(-1))
    info = {"rel_loss": float(rel.detach()), "mlm_loss": float(mlm.detach())}
    return rel + strategy.mlm_weight * mlm, info


def _fake_trainer(model, seed=3, padded=True):
    from types import SimpleNamespace

    from axiomatic.training.samplers import Pair
    from axiomatic.training.strategy_base import StepContext

    docs = {
        "d0": "solar panels convert sunlight into electricity on the roof of a farm near the river",
        "d1": "the [UNK] river floods the valley every spring",  # an [UNK] in the text
        "d2": "short",
    }
    # the (q-, d0) row is the longest (truncated at 24 word pieces), longer than every (q+, d)
    # row, so the MLM batch is shorter than the hinge batch
    pq = {
        "a": "roof",
        "b": "solar farm river valley floods spring water melt",
        "c": "river",
        "d": "x",
        "e": "solar panels farm river valley floods",
    }
    trainer = StepContext(  # what a trainer gives its strategy, and nothing else
        config=SimpleNamespace(margin=1.0, seed=seed),
        train_data=SimpleNamespace(queries={k: SimpleNamespace(text=v) for k, v in docs.items()}),
        text=lambda pid: pq[pid],
        model=model,
        device=torch.device("cpu"),
    )
    batch = [Pair("d0", "a", "b", 1, 0), Pair("d1", "c", "d", 1, 0), Pair("d2", "d", "a", 1, 0)]
    if not padded:  # every row truncated at 24: no padding, attention without a padding mask
        batch = [Pair("d0", "b", "e", 1, 0), Pair("d0", "e", "b", 1, 0)]
    return trainer, batch


@pytest.fixture(scope="module")
def small_ares_net():
    torch.manual_seed(0)
    return AresCrossEncoder(max_length=24, pretrained=False)  # long docs get truncated


@pytest.mark.parametrize("padded", [True, False])
@pytest.mark.parametrize("train_mode", [False, True])
def test_fast_ares_step_equals_the_full_vocabulary_formulation(
    small_ares_net, train_mode, padded
) -> None:
    """The step (one tokenization, one embedding lookup, LM head at the masked positions only)
    gives the loss and the gradients of the straightforward formulation; in training mode with
    the same dropout draws (same global seed), so the random stream is consumed identically."""
    from axiomatic.ares.pretrain import AresLossStrategy

    net = small_ares_net
    net.train(train_mode)
    trainer, batch = _fake_trainer(net, padded=padded)
    strategy = AresLossStrategy()
    results = []
    for fn in (_reference_step_loss, strategy.step_loss):
        torch.manual_seed(123)
        net.zero_grad(set_to_none=True)
        loss, info = (
            fn(strategy, trainer, batch, 7) if fn is _reference_step_loss else fn(trainer, batch, 7)
        )
        loss.backward()
        grads = {n: p.grad.clone() for n, p in net.named_parameters() if p.grad is not None}
        results.append((float(loss.detach()), info, grads))
    (l0, i0, g0), (l1, i1, g1) = results
    qs = [
        "roof",
        "solar farm river valley floods spring water melt",
        "solar panels farm river valley floods",
    ]
    lengths = net.encode_batch(qs, [trainer.train_data.queries["d0"].text] * 3)["attention_mask"]
    assert lengths.sum(1).tolist()[1:] == [24, 24] and lengths.sum(1)[0] < 24
    assert i0["mlm_loss"] > 0 and i0["rel_loss"] >= 0
    assert l1 == pytest.approx(l0, abs=1e-5, rel=1e-6)
    assert i1["mlm_loss"] == pytest.approx(i0["mlm_loss"], abs=1e-5)
    assert i1["rel_loss"] == pytest.approx(i0["rel_loss"], abs=1e-5)
    assert g0.keys() == g1.keys() and "mlm_head.bias" in g1
    assert "encoder.embeddings.word_embeddings.weight" in g1
    for name in g0:
        torch.testing.assert_close(g1[name], g0[name], atol=1e-5, rtol=1e-4, msg=name)


# --------------------------------------------------------------------------- pair ordering
@pytest.fixture(scope="module")
def demo_prepared(tmp_path_factory):
    return _prepared(tmp_path_factory.mktemp("ares-demo"))


@pytest.mark.parametrize(
    ("variant", "axioms"), [("rank", ["Q-RANK"]), ("rep", ["Q-REP-QL", "Q-REP-TFIDF"])]
)
def test_rank_and_rep_variants_order_pairs_by_their_axioms(demo_prepared, variant, axioms):
    """ARES_RANK / ARES_REP "leverage only the RANK / REP axioms" (sec. 4.2), in the axioms'
    direction: q+ is the query under which BM25 ranks d higher resp. the more representative
    one, on 100 % of the pairs where the axiom is decisive; no predictor is needed."""
    from axiomatic.ares.pairs import agreement_markdown, variant_agreement
    from axiomatic.axioms.query_pairs import preference_features

    p = demo_prepared
    d, qp, qn = ares_pairs(p, variant, None, pairs_per_doc=4, seed=0)
    assert len(d) >= 20
    X = preference_features(p.ctx, qp, qn, axioms)
    assert (X >= 0).all() and (X > 0).any(axis=1).all()
    rows = variant_agreement([p], {variant: [(d, qp, qn)]})
    got = {r["axiom"]: r for r in rows}
    for a in axioms:
        assert got[a]["decisive"] > 0 and got[a]["agree_pct"] == 100.0
    assert got["LENGTH"]["decisive"] == 0  # one length per document: no length preference
    assert f"ARES_{variant} | {len(d)} |" in agreement_markdown(rows)


class _RankFollower:
    """A stand-in predictor: p(q_i over q_j) from the Q-RANK column alone (0.9 / 0.5 / 0.1)."""

    def predict_proba(self, X: np.ndarray) -> np.ndarray:
        return 0.5 + 0.4 * np.asarray(X, dtype=float)[:, 0]


def test_predictor_variants_put_the_preferred_query_first(demo_prepared) -> None:
    """q+ is the query the predictor prefers (p > 0.5), pairs it gives 0.5 are dropped."""
    from axiomatic.axioms.query_pairs import preference_features

    p = demo_prepared
    d, qp, qn = ares_pairs(p, "simple", _RankFollower(), pairs_per_doc=4, seed=0)
    assert len(d) >= 20
    X = preference_features(p.ctx, qp, qn, ["Q-RANK"])
    assert (X[:, 0] == 1).all()


def test_a_predictor_trained_on_an_inverted_axiom_never_orders_a_pair_against_the_axioms(
    demo_prepared,
) -> None:
    """Training labels that invert Q-RANK (and follow Q-PROX-2): the pairs of the monotone
    predictor never put first the query that every decisive axiom disprefers, and no pair
    decided by Q-RANK alone is ordered against Q-RANK (the unconstrained predictor does both)."""
    from axiomatic.ares.fulfilment import sample_query_pairs
    from axiomatic.ares.predictor import PreferencePredictor
    from axiomatic.axioms.query_pairs import preference_features

    p = demo_prepared
    _d, i, j = sample_query_pairs(p, 1000, seed=5)
    X = preference_features(p.ctx, i, j)  # columns: Q-RANK, ..., Q-PROX-2 (4), ...
    y = np.where(X[:, 0] != 0, X[:, 0] < 0, X[:, 4] > 0).astype(int)
    assert 0 < y.sum() < len(y)
    for monotone in (True, False):
        m = PreferencePredictor(n_estimators=50, monotone=monotone).fit(X, y)
        _, qp, qn = ares_pairs(p, "simple", m, pairs_per_doc=4, seed=0)
        F = preference_features(p.ctx, qp, qn)
        against_all = ((F <= 0).all(axis=1) & (F < 0).any(axis=1)).sum()
        rank_only_against = ((F[:, 0] < 0) & (np.delete(F, 0, axis=1) == 0).all(axis=1)).sum()
        # a pair that only Q-RANK decides, in Q-RANK's direction
        rank_only = np.zeros((1, X.shape[1]))
        rank_only[0, 0] = 1.0
        if monotone:
            assert len(qp) > 0 and against_all == 0 and rank_only_against == 0
            assert m.predict_proba(rank_only)[0] >= 0.5
        else:
            # the control: trained without the constraint, the predictor learns RANK backwards
            assert m.predict_proba(rank_only)[0] < 0.5


def test_training_step_masks_15_percent_of_the_tokens(small_ares_net, monkeypatch) -> None:
    """Sec. 5.1.4: BERT's masking, 15 % of the input's (non-special, non-padding) tokens are
    MLM targets in the training step itself (the strategy's default, not only mask_tokens')."""
    from axiomatic.ares.pretrain import AresLossStrategy

    net = small_ares_net
    trainer, batch = _fake_trainer(net)
    batch = batch * 20
    seen = []

    def spy(enc, mlm_input_ids, labels):
        seen.append((enc, mlm_input_ids, labels))
        n = enc["input_ids"].shape[0]
        return torch.zeros(n, requires_grad=True), torch.zeros((), requires_grad=True)

    monkeypatch.setattr(net, "scores_and_mlm_loss", spy)
    strategy = AresLossStrategy()
    for step in range(10):
        strategy.step_loss(trainer, batch, step)
    special_ids = torch.tensor(net.tokenizer.all_special_ids)
    targets = candidates = 0
    for enc, ids, labels in seen:
        B, Lm = ids.shape
        real = (enc["attention_mask"][:B, :Lm] == 1) & ~torch.isin(
            enc["input_ids"][:B, :Lm], special_ids
        )
        target = labels != -100
        assert not (target & ~real).any()
        targets += int(target.sum())
        candidates += int(real.sum())
    assert candidates > 5000
    assert targets / candidates == pytest.approx(0.15, abs=0.02)  # s.e. ~0.005


def test_pretraining_refuses_a_folder_of_older_pairs_and_an_empty_pair_set(
    tmp_path, monkeypatch
) -> None:
    """A folder whose predictor or pairs were written under other rules (pseudo queries,
    scores, ordering) is not resumed; a variant without any ordered pair is an error, not an
    empty training set."""
    from axiomatic.ares import pretrain as P

    old = tmp_path / "old"
    old.mkdir()
    (old / "pairs.parquet").write_bytes(b"")
    with pytest.raises(ValueError, match=r"other ARES versions .*unversioned.*Remove the folder"):
        pretrain_ares([], old, "rank")
    empty = np.empty(0, dtype=np.int64)
    monkeypatch.setattr(P, "ares_pairs", lambda *a, **k: (empty, empty, empty))
    monkeypatch.setattr(P, "_sample_fingerprint", lambda p: "no sample")
    with pytest.raises(ValueError, match=r"ARES_rank: no pseudo-query pair is decided by .*Q-RANK"):
        pretrain_ares([None], tmp_path / "new", "rank")
    assert json.loads((tmp_path / "new" / "versions.json").read_text()) == P.pair_versions()
