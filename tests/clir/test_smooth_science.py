"""Value tests of Liu et al.'s smooth CLIR against reference computations - each one
fails on a plausible wrong implementation that the shape and law tests let through:

- r_eps with ``(||z|| + 2 eps)`` on one side (values for eps > 0 against the formula);
- SOSL ignoring its thresholds (thresholds other than (0.2, 0.7), K = 2 and K = 4);
- proportional odds with fixed cut points (McCullagh estimates them: parameters with gradients,
  ordered, in the optimizer, restored on resume) and its value against a hand computation;
- average towers without tanh, averaging over padding or over OOV words;
- a BiLSTM tower using the forward state twice;
- unreachable thresholds (r_eps < p/(sqrt(p)+eps)^2 with tanh towers) passing silently;
- every liu-smooth loss trained with SOSL (the loss dispatch of a unit);
- MR measured at grade 2 on a collection whose top grade is 3 (NFCorpus);
- the synthetic plan's "nr40" units secretly using 8 NR documents.
"""

from __future__ import annotations

import json
import math
import types
from typing import ClassVar

import numpy as np
import pytest
import torch

from axiomatic.data.records import Dataset
from axiomatic.evaluate.clir_metrics import relevance_levels
from axiomatic.experiments.clir_data import synthetic_graded_clir
from axiomatic.experiments.liu_smooth import LiuPlan, LiuSmooth, Unit
from axiomatic.models.clir import SmoothDualEncoder
from axiomatic.models.similarity import smooth_cosine, tanh_score_bound
from axiomatic.models.vocab import OOV_ID, Vocabulary, model_analyzer
from axiomatic.training import strategies
from axiomatic.training.config import TrainConfig
from axiomatic.training.smooth import (
    GRADED_LOSSES,
    SOSL,
    ProportionalOdds,
    parse_graded_loss,
    tanh_threshold_problem,
    unreachable_thresholds,
)
from axiomatic.training.trainer import Trainer


# ---------------------------------------------------------------------- r_eps
def _r_ref(x: np.ndarray, z: np.ndarray, eps: float) -> np.ndarray:
    nx = np.sqrt((x * x).sum(-1))
    nz = np.sqrt((z * z).sum(-1))
    return (x * z).sum(-1) / ((nx + eps) * (nz + eps))


@pytest.mark.parametrize("eps", [0.25, 1.0, 2.0])
def test_smooth_cosine_values_match_the_formula_for_eps_above_zero(eps) -> None:
    rng = np.random.default_rng(7)
    for p in (1, 3, 16):
        # norms far apart on the two sides: a one-sided error cannot cancel out
        x = rng.normal(size=(40, p)) * rng.uniform(0.01, 0.5, (40, 1))
        z = rng.normal(size=(40, p)) * rng.uniform(2.0, 6.0, (40, 1))
        got = smooth_cosine(torch.tensor(x), torch.tensor(z), eps).numpy()
        assert np.allclose(got, _r_ref(x, z, eps), rtol=1e-12, atol=1e-15)
        swapped = smooth_cosine(torch.tensor(z), torch.tensor(x), eps).numpy()
        assert np.allclose(swapped, got, rtol=1e-12, atol=1e-15)  # symmetric
    # by hand: x = (3, 4), z = (0, 2), eps = 1: 8 / ((5 + 1) * (2 + 1))
    r = smooth_cosine(torch.tensor([3.0, 4.0]), torch.tensor([0.0, 2.0]), 1.0)
    assert float(r) == pytest.approx(8 / 18, abs=1e-7)


# ---------------------------------------------------------------------- SOSL
def _sosl_ref(r: float, y: int, thresholds: tuple[float, ...]) -> float:
    b = [-1.0, *thresholds, 1.0]
    return max(0.0, r - b[y + 1]) ** 2 + max(0.0, b[y] - r) ** 2


@pytest.mark.parametrize(
    "thresholds", [(-0.3, 0.1, 0.5), (0.4,), (0.0, 0.5), (-0.6, -0.2, 0.3, 0.8)]
)
def test_sosl_uses_its_thresholds(thresholds) -> None:
    K = len(thresholds) + 1
    spec = "sosl(thresholds=" + ",".join(str(t) for t in thresholds) + ")"
    loss = parse_graded_loss(spec)
    assert isinstance(loss, SOSL) and loss.thresholds == thresholds
    rs = np.linspace(-0.95, 0.95, 39)
    r = torch.tensor(np.repeat(rs, K), dtype=torch.float64)
    y = torch.tensor(np.tile(np.arange(K), len(rs)))
    got = loss.per_example(r, y).numpy()
    want = [_sosl_ref(float(a), int(b), thresholds) for a, b in zip(r, y, strict=True)]
    assert np.allclose(got, want, rtol=0, atol=1e-15)
    # zero exactly inside each grade's own segment
    bounds = [-1.0, *thresholds, 1.0]
    mids = torch.tensor([(bounds[k] + bounds[k + 1]) / 2 for k in range(K)], dtype=torch.float64)
    assert loss.per_example(mids, torch.arange(K)).abs().max() == 0.0


def test_sosl_values_by_hand_with_four_grades() -> None:
    loss = SOSL((-0.3, 0.1, 0.5))
    r = torch.tensor([0.0, -0.5, 0.3, 0.3, 0.0, 0.7, -0.2], dtype=torch.float64)
    y = torch.tensor([0, 1, 1, 2, 3, 2, 0])
    want = [0.3**2, 0.2**2, 0.2**2, 0.0, 0.5**2, 0.2**2, 0.1**2]
    assert np.allclose(loss.per_example(r, y).numpy(), want, atol=1e-15)


# ---------------------------------------------------------------------- proportional odds
def _po_ref(r: float, y: int, cuts: list[float], s: float) -> float:
    sig = lambda t: 1.0 / (1.0 + math.exp(-t))  # noqa: E731
    upper = sig(cuts[y] - s * r) if y < len(cuts) else 1.0
    lower = sig(cuts[y - 1] - s * r) if y > 0 else 0.0
    return -math.log(upper - lower)


def _set_cuts(po: ProportionalOdds, cuts: list[float]) -> None:
    with torch.no_grad():
        po.cut_first.fill_(cuts[0])
        gaps = torch.tensor(np.diff(cuts) - po.MIN_GAP, dtype=torch.float64)
        po.cut_gaps.copy_(torch.log(torch.expm1(gaps)))


def test_po_cut_points_are_learned_parameters_with_gradients() -> None:
    po = parse_graded_loss("po(thresholds=0.2,0.7, scale=4)")
    assert isinstance(po, ProportionalOdds) and po.cuts == "learned"
    params = [q for q in po.parameters() if q.requires_grad]
    assert len(params) == 2  # the first cut point and the gaps
    # initialized at scale * thresholds
    assert np.allclose(po.cut_points().detach().numpy(), [0.8, 2.8], atol=1e-12)
    r = torch.tensor([-0.5, 0.1, 0.45, 0.9], dtype=torch.float64)
    y = torch.tensor([0, 1, 1, 2])
    po(r, y).backward()
    assert po.cut_first.grad is not None and float(po.cut_first.grad.abs().sum()) > 0
    assert po.cut_gaps.grad is not None and float(po.cut_gaps.grad.abs().sum()) > 0


def test_po_value_against_a_hand_computation_with_moved_cut_points() -> None:
    for K, cuts in ((3, [0.5, 2.9]), (4, [-1.2, 0.3, 1.7])):
        po = ProportionalOdds(tuple(np.linspace(-0.5, 0.5, K - 1)), scale=4.0)
        _set_cuts(po, cuts)
        assert np.allclose(po.cut_points().detach().numpy(), cuts, atol=1e-12)
        for s in (-0.9, 0.1, 0.45, 0.99):
            r = torch.full((K,), s, dtype=torch.float64)
            got = po.per_example(r, torch.arange(K)).detach().numpy()
            want = [_po_ref(s, k, cuts, 4.0) for k in range(K)]
            assert np.allclose(got, want, rtol=1e-9, atol=1e-12)
            assert abs(np.exp(-got).sum() - 1.0) < 1e-9  # a distribution over the grades


def test_po_cut_points_stay_strictly_ordered_under_any_update() -> None:
    po = ProportionalOdds((-0.5, 0.0, 0.5), scale=10.0)
    opt = torch.optim.Adam(po.parameters(), lr=5.0)
    for _ in range(300):  # push every cut point onto the one below it
        opt.zero_grad()
        c = po.cut_points()
        (c[1:] - c[:-1]).sum().backward()
        opt.step()
        assert bool((torch.diff(po.cut_points()) > 0).all())
    r = torch.tensor([0.0, 0.0, 0.0, 0.0], dtype=torch.float64)
    assert torch.isfinite(po.per_example(r, torch.arange(4))).all()


def test_po_fixed_variant_is_named_and_has_no_parameters() -> None:
    po = parse_graded_loss("po(thresholds=0.2,0.7, scale=4, cuts=fixed)")
    assert isinstance(po, ProportionalOdds) and po.cuts == "fixed"
    assert list(po.parameters()) == []
    assert po.cut_points().tolist() == pytest.approx([0.8, 2.8])
    r = torch.tensor([0.45], dtype=torch.float64)
    assert float(po.per_example(r, torch.tensor([1]))) == pytest.approx(
        _po_ref(0.45, 1, [0.8, 2.8], 4.0), rel=1e-9
    )
    with pytest.raises(ValueError, match="learned"):
        parse_graded_loss("po(cuts=sometimes)")


@pytest.fixture(scope="module")
def data():
    return synthetic_graded_clir(seed=0)


def _model(data, encoder="avg", eps=1.0, dim=16) -> SmoothDualEncoder:
    texts = [q.text for q in data["train"].queries.values()]
    texts += [d.text for d in data["train"].documents.values()]
    vocab = Vocabulary.build(texts, model_analyzer("en"))
    torch.manual_seed(0)
    q = np.random.default_rng(0).normal(0, 0.3, (len(vocab), dim)).astype(np.float32)
    d = np.random.default_rng(1).normal(0, 0.3, (len(vocab), dim)).astype(np.float32)
    return SmoothDualEncoder(
        vocab, embedding_dim=dim, encoder=encoder, eps=eps, embeddings=q, doc_embeddings=d
    )


def test_trainer_learns_po_cut_points_and_resumes_them(data, tmp_path) -> None:
    cfg = TrainConfig(
        dataset="synthetic",
        model="clir-dual",
        loss="graded",
        graded_loss="po(thresholds=0.1,0.5, scale=10)",
        lr=0.05,
        batch_size=16,
        steps=12,
        eval_every=6,
        checkpoint_every=6,
        patience=0,
        dev_queries=0,
    )
    tr = Trainer(_model(data, dim=32), cfg, tmp_path / "a", data["train"])
    tr._setup()
    po = tr.strategy.graded_loss
    in_opt = {id(q) for g in tr.optimizer.param_groups for q in g["params"]}
    assert {id(q) for q in po.parameters()} <= in_opt
    tr = Trainer(_model(data, dim=32), cfg, tmp_path / "a", data["train"])
    tr.fit()
    log = [json.loads(x) for x in (tmp_path / "a" / "log.jsonl").read_text().splitlines()]
    assert {"cut1", "cut2"} <= set(log[-1])
    learned = tr.strategy.graded_loss.cut_points().detach().numpy()
    assert not np.allclose(learned, [1.0, 5.0], atol=1e-3)  # they moved from s * thresholds
    assert learned[0] < learned[1]

    class Kill(Exception):
        pass

    def kill(step, record):
        if step == 7:
            raise Kill

    with pytest.raises(Kill):
        Trainer(_model(data, dim=32), cfg, tmp_path / "b", data["train"], callback=kill).fit()
    tr_b = Trainer(_model(data, dim=32), cfg, tmp_path / "b", data["train"])
    tr_b.fit(resume=True)
    resumed = tr_b.strategy.graded_loss.cut_points().detach().numpy()
    assert np.allclose(resumed, learned, rtol=0, atol=1e-9)


# ---------------------------------------------------------------------- reachable thresholds
def test_tanh_score_bound_is_the_supremum_of_tanh_towers() -> None:
    assert tanh_score_bound(16, 1.0) == pytest.approx(0.64)
    assert tanh_score_bound(64, 2.0) == pytest.approx(0.64)
    assert tanh_score_bound(64, 0.0) == 1.0
    for p, eps in ((16, 1.0), (64, 1.56), (7, 0.3)):
        b = tanh_score_bound(p, eps)
        assert b == pytest.approx(p / (math.sqrt(p) + eps) ** 2)
        x = torch.tanh(torch.full((1, p), 6.0, dtype=torch.float64))  # saturated towers
        r = float(smooth_cosine(x, x, eps))
        assert b - 1e-4 < r < b
        rand = torch.tanh(torch.randn(2000, p, dtype=torch.float64) * 3)
        assert float(smooth_cosine(rand, rand.roll(1, 0), eps).abs().max()) < b


def test_a_model_never_scores_above_its_bound(data) -> None:
    m = _model(data, dim=4, eps=0.5)
    with torch.no_grad():
        m.embedding.weight.mul_(100.0)
        m.doc_embedding.weight.copy_(m.embedding.weight)
    qs = [q.text for q in data["test"].queries.values()]
    s = m.score_pairs(qs, qs)
    assert float(s.max()) < m.score_bound() == pytest.approx(4 / (2 + 0.5) ** 2)
    assert float(s.max()) > m.score_bound() - 0.02  # and gets close: the bound is tight


def test_unreachable_thresholds_name_the_bound() -> None:
    msg = tanh_threshold_problem((0.2, 0.7), 16, 1.0)
    assert msg and "0.64" in msg and "theta_2 = 0.7" in msg and "grade 2" in msg
    assert "p/(sqrt(p)+eps)^2" in msg
    assert tanh_threshold_problem((0.2, 0.7), 64, 1.5) is None  # bound .709
    assert tanh_threshold_problem((0.2, 0.7), 64, 1.6) is not None  # bound .694 (eps > 1.56)
    assert tanh_threshold_problem((0.0, 0.5), 16, 1.0) is None
    low = unreachable_thresholds((-0.9, 0.0), 0.5)
    assert low and "theta_1 = -0.9" in low and "grade 0" in low
    assert unreachable_thresholds((0.2, 0.7), 0.7) is not None  # at the bound: unreachable
    assert unreachable_thresholds((0.2, 0.7), 0.7000001) is None


def test_training_with_unreachable_thresholds_warns_before_the_first_step(data, tmp_path):
    strategies._WARNED.clear()
    cfg = TrainConfig(
        dataset="synthetic",
        model="clir-dual",
        loss="graded",
        graded_loss="sosl(thresholds=0.2,0.7)",
        steps=1,
        dev_queries=0,
    )
    with pytest.warns(UserWarning, match=r"0\.64.*theta_2 = 0\.7"):
        Trainer(_model(data, dim=16, eps=1.0), cfg, tmp_path / "a", data["train"])._setup()
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")  # reachable: no warning
        Trainer(_model(data, dim=16, eps=0.0), cfg, tmp_path / "b", data["train"])._setup()


def test_liu_plans_report_their_unreachable_points(tmp_path) -> None:
    quick = LiuSmooth(LiuPlan.quick(), tmp_path / "q").unreachable()
    assert (1.0, (0.2, 0.7)) in quick and "0.64" in quick[(1.0, (0.2, 0.7))]
    assert all(eps > 0 for eps, _ in quick)
    full = LiuSmooth(LiuPlan.full(), tmp_path / "f").unreachable()
    assert set(full) == {
        (1.0, (0.4, 0.8)),
        (1.5, (0.4, 0.8)),
        (2.0, (0.2, 0.7)),
        (2.0, (0.4, 0.8)),
    }


# ---------------------------------------------------------------------- towers
def _tiny_vocab() -> Vocabulary:
    return Vocabulary.build(["alpha beta gamma delta epsilon"], model_analyzer("en"))


def _ids(vocab: Vocabulary, text: str) -> list[int]:
    return [i for i in vocab.encode(text, 50) if i > OOV_ID]


def test_average_tower_is_tanh_of_the_mean_of_known_words() -> None:
    vocab = _tiny_vocab()
    rng = np.random.default_rng(3)
    Q = rng.normal(0, 1.5, (len(vocab), 5)).astype(np.float32)
    D = rng.normal(0, 1.5, (len(vocab), 5)).astype(np.float32)
    m = SmoothDualEncoder(vocab, embedding_dim=5, eps=0.5, embeddings=Q, doc_embeddings=D)
    texts = ["alpha", "alpha beta gamma delta", "beta zzzz qqqq", "gamma epsilon"]
    enc = m.encode_batch(texts, texts)  # padded to the longest
    with torch.no_grad():
        fq = m.encode_queries(enc["query_ids"]).double().numpy()
        fd = m.encode_documents(enc["doc_ids"]).double().numpy()
        score = m(**enc).double().numpy()
    Qm = m.embedding.weight.detach().double().numpy()
    Dm = m.doc_embedding.weight.detach().double().numpy()
    ref_q = np.stack([np.tanh(Qm[_ids(vocab, t)].mean(0)) for t in texts])
    ref_d = np.stack([np.tanh(Dm[_ids(vocab, t)].mean(0)) for t in texts])
    assert np.allclose(fq, ref_q, atol=1e-6)
    assert np.allclose(fd, ref_d, atol=1e-6)
    assert np.allclose(score, _r_ref(ref_q, ref_d, 0.5), atol=1e-6)
    # OOV words are no zero vectors in the mean: "beta zzzz qqqq" is "beta"
    alone = m.encode_batch(["beta"], ["beta"])
    with torch.no_grad():
        assert torch.allclose(
            m.encode_documents(alone["doc_ids"])[0], torch.tensor(fd[2], dtype=torch.float32)
        )
    # a text of OOV words only is the zero vector (score 0, no NaN)
    none = m.encode_batch(["zzzz"], ["qqqq"])
    with torch.no_grad():
        assert float(m(**none)) == 0.0


def test_bilstm_tower_concatenates_final_forward_and_backward_states() -> None:
    vocab = _tiny_vocab()
    torch.manual_seed(0)
    m = SmoothDualEncoder(vocab, embedding_dim=6, encoder="lstm", eps=1.0).eval()
    texts = ["alpha beta gamma delta epsilon", "gamma", "delta alpha beta"]
    enc = m.encode_batch(texts, texts)
    with torch.no_grad():
        got = m.encode_documents(enc["doc_ids"])
        tower = m.doc_encoder
        H = tower.lstm.hidden_size
        for i, t in enumerate(texts):
            ids = torch.tensor([vocab.encode(t, m.max_doc_len)])
            emb = m.doc_embedding(ids) * (ids > OOV_ID).unsqueeze(-1).float()
            out, _ = tower.lstm(emb)  # one unpadded sequence
            fwd = out[0, -1, :H]  # forward direction after the last token
            bwd = out[0, 0, H:]  # backward direction after the first token
            want = torch.tanh(tower.dense(torch.cat([fwd, bwd])))
            assert torch.allclose(got[i], want, atol=1e-5), i


# ---------------------------------------------------------------------- the liu-smooth units
class _FakeTrainer:
    """Stands in for the Trainer inside ``LiuSmooth.unit``: builds the step strategy the real
    trainer would (``default_strategy``) and trains nothing."""

    made: ClassVar[list[_FakeTrainer]] = []

    def __init__(self, model, config, out_dir, train_data, dev_data=None, **kw) -> None:
        self.model, self.config, self.train_data = model, config, train_data
        _FakeTrainer.made.append(self)

    def fit(self, resume: bool = False):
        self.strategy = strategies.default_strategy(self.config)
        return types.SimpleNamespace(to_dict=lambda: {})


@pytest.fixture
def fake_trainer(monkeypatch):
    _FakeTrainer.made = []
    monkeypatch.setattr("axiomatic.training.trainer.Trainer", _FakeTrainer)
    return _FakeTrainer


def _plan(**kw) -> LiuPlan:
    return LiuPlan.quick().__class__(
        **{
            **LiuPlan.quick().to_dict(),
            "embeddings": "random",
            "embedding_dim": 8,
            "threads": None,
            **kw,
        }
    )


def test_each_liu_loss_trains_with_its_own_loss_and_thresholds(tmp_path, fake_trainer) -> None:
    run = LiuSmooth(_plan(), tmp_path, echo=lambda s: None)
    for name in run.plan.losses:
        u = Unit("synthetic", "xx", loss=name, thresholds=(0.1, 0.6), nr=8, epochs=1)
        run.unit(u)
        loss = fake_trainer.made[-1].strategy.graded_loss
        assert type(loss) is GRADED_LOSSES.get(name), name
        assert loss.thresholds == (0.1, 0.6), name
    assert [type(t.strategy.graded_loss).__name__ for t in fake_trainer.made] == [
        "SOSL",
        "ThreePartL2",
        "GradedMSE",
        "ProportionalOdds",
    ]


def _four_grades(d: Dataset) -> Dataset:
    """The generated set with grades 0..3 (source paragraph 3, topic paragraphs 2 and 1)."""
    qrels = {}
    for q, judged in (d.qrels or {}).items():
        others = sorted(x for x, g in judged.items() if g == 1)
        qrels[q] = {
            x: (3 if g == 2 else (2 if g == 1 and x == others[0] else g)) for x, g in judged.items()
        }
    out = d.subset(list(d.queries), split=d.split)
    out.qrels = qrels
    return out


@pytest.mark.parametrize("four", [False, True])
def test_mr_is_the_collections_top_grade(tmp_path, fake_trainer, monkeypatch, four) -> None:
    seen: list[tuple[int, int]] = []
    import axiomatic.experiments.liu_smooth.run as liu

    real = liu.evaluate_clir_per_query

    def spy(run, qrels, mr=2, r=1):
        seen.append((mr, r))
        return real(run, qrels, mr, r)

    monkeypatch.setattr(liu, "evaluate_clir_per_query", spy)
    runner = LiuSmooth(_plan(), tmp_path, echo=lambda s: None)
    base = synthetic_graded_clir(seed=0)
    data = {k: _four_grades(v) if four else v for k, v in base.items()}
    monkeypatch.setattr(runner, "data", lambda setting, lang, nr=None: data)
    th = (0.0, 0.4, 0.7) if four else (0.2, 0.7)
    out = runner.unit(Unit("synthetic", "xx", thresholds=th, nr=8, epochs=1))
    top = 3 if four else 2
    assert seen and all(s == (top, 1) for s in seen)
    # Pmr@1 counts grade-`top` documents only: an oracle ranking scores 1
    assert set(out["test"]) >= {"Pmr@1", "MRRmr"}


def test_relevance_levels_from_grades() -> None:
    assert relevance_levels({"q": {"a": 2, "b": 1, "c": 0}}) == (2, 1)
    assert relevance_levels({"q": {"a": 1}}, {"r": {"b": 3, "c": 2}}) == (3, 1)
    assert relevance_levels({"q": {"a": 2, "c": 0}}) == (2, 1)
    with pytest.raises(ValueError, match="top grade 1"):
        relevance_levels({"q": {"a": 1, "b": 0}})


def test_synthetic_units_are_named_by_the_nr_they_use(tmp_path) -> None:
    run = LiuSmooth(_plan(), tmp_path, echo=lambda s: None)
    units = [*run.table2_units(), *run.table3_units(), *run.fig4_units(), *run.fig5_units()]
    for u in units:
        train = run.data(u.setting, u.language, u.nr)["train"]
        nr = {q: sum(1 for g in (train.qrels or {})[q].values() if g == 0) for q in train.queries}
        assert max(nr.values()) == u.nr, (u.path(), u.nr)
        assert f"_nr{u.nr}_" in str(u.path())
    # the main units use the set's 8 NR: the same unit as Figure 5's nr = 8 point, by name
    assert {u.nr for u in run.table2_units()} == {8}
    assert "_nr40_" not in " ".join(str(u.path()) for u in units)


# ---------------------------------------------------------------------- mutation survivors
def test_smooth_cosine_defaults_and_module_form() -> None:
    """The paper's eps = 1 is the default, the module form computes the same values, and bad
    eps / dim are refused with messages that say what is allowed."""
    from axiomatic.models.similarity import SmoothCosineSimilarity, smooth_cosine_grad_bound

    rng = np.random.default_rng(1)
    x = torch.tensor(rng.normal(size=(5, 4)))
    z = torch.tensor(rng.normal(size=(5, 4)) * 3)
    assert torch.equal(smooth_cosine(x, z), smooth_cosine(x, z, 1.0))
    mod = SmoothCosineSimilarity(0.5)
    assert mod.eps == 0.5 and "eps=0.5" in repr(mod)
    assert torch.equal(mod(x, z), smooth_cosine(x, z, 0.5))
    assert SmoothCosineSimilarity().eps == 1.0
    with pytest.raises(ValueError, match="finite number >= 0"):
        SmoothCosineSimilarity(-1.0)
    with pytest.raises(ValueError, match="finite number >= 0"):
        smooth_cosine(x, z, math.inf)
    b = smooth_cosine_grad_bound(torch.tensor(1.5, dtype=torch.float32), 0.5)
    assert b.dtype == torch.float64 and float(b) == 1.0
    assert tanh_score_bound(1, 1.0) == 0.25  # p = 1 is a valid dimension
    for bad_dim in (0, -3):
        with pytest.raises(ValueError, match="dim must be >= 1"):
            tanh_score_bound(bad_dim, 1.0)
    for bad_eps in (-0.1, math.inf, math.nan):
        with pytest.raises(ValueError, match="finite number >= 0"):
            tanh_score_bound(16, bad_eps)
