"""The pairwise strategy's AR and AP steps against hand references (Rosset et al. 2019, eq. 4;
Cheng & Fang's perturbed documents as extra ordered pairs).

A stub model whose scores are a table over the document texts, and a stub perturber whose
edits and directions are known, make every term of the step's loss computable by hand: the
weight lambda of the regularizer, the side each perturbation is compared with, the order of an
AP pair, and their gradients. A counting model with the real Rosset perturber checks the
directions end to end, and a short run checks that ``lambda = 0`` is plain training.
"""

from __future__ import annotations

import re
import tempfile
from collections.abc import Sequence

import numpy as np
import pytest
import torch
from torch import nn
from training_helpers import TinyRanker, make_toy_dataset

from axiomatic.data.records import Dataset, Document, Query
from axiomatic.models.base import NeuralRankingModel
from axiomatic.perturb.perturbations import PerturbedText
from axiomatic.text.analyzer import parse_analyzer
from axiomatic.training.config import TrainConfig
from axiomatic.training.samplers import Pair
from axiomatic.training.strategies import PairwiseLossStrategy
from axiomatic.training.strategy_base import StepContext
from axiomatic.training.trainer import Trainer


# ---------------------------------------------------------------------- stubs
class TableRanker(NeuralRankingModel):
    """Score = a learnable number per document text (the query is ignored); remembers the
    texts of every forward pass."""

    model_type = "table"

    def __init__(self, scores: dict[str, float]) -> None:
        super().__init__()
        self.index = {t: i for i, t in enumerate(scores)}
        self.table = nn.Parameter(torch.tensor(list(scores.values()), dtype=torch.float32))
        self.seen: list[list[str]] = []
        self.queries: list[list[str]] = []

    def encode_batch(
        self, queries: Sequence[str], documents: Sequence[str]
    ) -> dict[str, torch.Tensor]:
        self.seen.append(list(documents))
        self.queries.append(list(queries))
        return {"i": torch.tensor([self.index[d] for d in documents])}

    def forward(self, i: torch.Tensor) -> torch.Tensor:  # type: ignore[override]
        return self.table[i]


class StubPerturber:
    """``text -> (perturbed text, direction, axiom)``; texts it does not know do not apply.
    Draws from the generator like the real one (one draw per document)."""

    def __init__(self, edits: dict[str, tuple[str, int, str]]) -> None:
        self.edits = edits
        self.calls = 0

    def perturb_random(
        self, query: str, document: str, names: Sequence[str], rng: np.random.Generator
    ) -> PerturbedText | None:
        self.calls += 1
        rng.integers(len(names))
        if document not in self.edits:
            return None
        text, direction, axiom = self.edits[document]
        return PerturbedText(text, axiom, direction, ())


# query qa: A > B, C > D (and the extra negatives N1, N2); query qb: E > F
DOCS = {
    "A": "doc A",
    "B": "doc B",
    "C": "doc C",
    "D": "doc D",
    "E": "doc E",
    "F": "doc F",
    "N1": "doc N1",
    "N2": "doc N2",
}
BATCH = [
    Pair("qa", "A", "B", 1.0, 0.0),
    Pair("qa", "C", "D", 1.0, 0.0),
    Pair("qb", "E", "F", 1.0, 0.0),
]
POOL = [*BATCH, Pair("qa", "A", "N1", 1.0, 0.0), Pair("qa", "A", "N2", 1.0, 0.0)]
# perturbed copies: A, C, D and F have one (directions mixed), B and E none
EDITS = {
    "doc A": ("doc A+", -1, "TFC1-A"),
    "doc C": ("doc C-", +1, "TFC1-D"),
    "doc D": ("doc D+", -1, "TFC1-A"),  # a second TFC1-A: the monitoring averages two
    "doc F": ("doc F-", +1, "LNC"),
}
# chosen so that every hinge is in its linear part or clearly clipped, and so that putting a
# perturbation against the other side of its pair, or flipping an AP pair, changes the value
SCORES = {
    "doc A": 2.0,
    "doc B": 1.5,
    "doc C": 0.3,
    "doc D": 0.9,
    "doc E": 1.1,
    "doc F": -0.7,
    "doc N1": 0.2,
    "doc N2": -0.4,
    "doc A+": 2.05,
    "doc C-": 0.45,
    "doc D+": 0.6,
    "doc F-": -0.2,
}


def _dataset() -> Dataset:
    return Dataset(
        "stub",
        {"qa": Query("qa", "alpha"), "qb": Query("qb", "beta")},
        {d: Document(d, t) for d, t in DOCS.items()},
        {"qa": {"A": 1, "C": 1}, "qb": {"E": 1}},
        None,
        split="train",
    )


def _setup(
    cfg: TrainConfig, model: NeuralRankingModel, dataset: Dataset, pool: list[Pair]
) -> tuple[PairwiseLossStrategy, StepContext]:
    ctx = StepContext(
        model=model,
        config=cfg,
        train_data=dataset,
        device=torch.device("cpu"),
        text=lambda d: dataset.documents[d].text,
    )
    strategy = PairwiseLossStrategy()
    strategy.setup(ctx, {"qrels": pool})
    return strategy, ctx


def _stub_step(
    cfg: TrainConfig, edits: dict[str, tuple[str, int, str]] = EDITS
) -> tuple[torch.Tensor, dict[str, float], TableRanker, StubPerturber]:
    model = TableRanker(SCORES)
    strategy, ctx = _setup(cfg, model, _dataset(), POOL)
    stub = StubPerturber(edits)
    if strategy.perturber is not None:
        strategy.perturber = stub
    loss, info = strategy.step_loss(ctx, BATCH, step=1)
    return loss, info, model, stub


def _grad(loss: torch.Tensor, model: TableRanker) -> dict[str, float]:
    (g,) = torch.autograd.grad(loss, [model.table])
    return {t: float(g[i]) for t, i in model.index.items()}


def _reference_grad(fn) -> dict[str, float]:  # type: ignore[no-untyped-def]
    """The gradient of ``fn(s)`` (``s``: text -> scalar tensor) with respect to every score."""
    s = {t: torch.tensor(v, dtype=torch.float64, requires_grad=True) for t, v in SCORES.items()}
    value = fn(s)
    value.backward()
    return {t: float(x.grad) if x.grad is not None else 0.0 for t, x in s.items()}


def _relu(x: torch.Tensor) -> torch.Tensor:
    return torch.clamp(x, min=0.0)


def _text(doc_id: str) -> str:
    return DOCS[doc_id]


# ---------------------------------------------------------------------- AR (Rosset eq. 4)
def _reference_ar(s, lam: float, mu: float, margin: float, normalize: str, base: str):  # type: ignore[no-untyped-def]
    """Eq. 4 by hand: each document against its OWN perturbation, delta from the axiom."""
    hi = [_text(p.doc_hi) for p in BATCH]
    lo = [_text(p.doc_lo) for p in BATCH]
    if base == "hinge":
        base_loss = sum(_relu(margin - (s[h] - s[o])) for h, o in zip(hi, lo, strict=True)) / 3
    else:  # mse against the labels 1 (hi) and 0 (lo)
        base_loss = sum((s[h] - 1.0) ** 2 + s[o] ** 2 for h, o in zip(hi, lo, strict=True)) / 6

    def side(docs: list[str]) -> torch.Tensor:
        terms = []
        for d in docs:
            if d in EDITS:
                pert, delta, _ = EDITS[d]
                terms.append(_relu(mu - delta * (s[d] - s[pert])))
        denom = len(docs) if normalize == "batch" else max(len(terms), 1)
        return sum(terms) / denom

    ar = side(hi) + side(lo)
    return base_loss + lam * ar, base_loss, ar


@pytest.mark.parametrize("base", ["hinge", "mse"])
@pytest.mark.parametrize("normalize", ["applicable", "batch"])
def test_ar_step_loss_and_gradient_match_rosset_eq4(normalize: str, base: str) -> None:
    lam, mu, margin = 0.3, 0.2, 1.0
    cfg = TrainConfig(
        loss=base,
        margin=margin,
        regularizer=f"ar(lambda={lam}, mu={mu}, axioms=TFC1-A, normalize={normalize})",
    )
    loss, info, model, stub = _stub_step(cfg)
    total, base_loss, ar = _reference_ar(
        {t: torch.tensor(v, dtype=torch.float64) for t, v in SCORES.items()},
        lam,
        mu,
        margin,
        normalize,
        base,
    )
    assert stub.calls == 6  # one perturbation drawn per document of the batch
    assert float(loss.detach()) == pytest.approx(float(total), abs=1e-6)
    assert info["base_loss"] == pytest.approx(float(base_loss), abs=1e-6)
    assert info["ar_loss"] == pytest.approx(float(ar), abs=1e-6)
    assert info["perturbed"] == 4.0
    expect = _reference_grad(lambda s: _reference_ar(s, lam, mu, margin, normalize, base)[0])
    got = _grad(loss, model)
    assert got == pytest.approx(expect, abs=1e-6)
    # the scores of the originals: one forward pass, originals first, then the perturbations
    (seen,) = model.seen
    assert seen[:6] == ["doc A", "doc B", "doc C", "doc D", "doc E", "doc F"]
    assert sorted(seen[6:]) == ["doc A+", "doc C-", "doc D+", "doc F-"]


def test_ar_per_axiom_monitoring_is_each_axioms_mean_hinge() -> None:
    mu = 0.2
    cfg = TrainConfig(regularizer=f"ar(lambda=0.3, mu={mu}, axioms=TFC1-A)")
    _, info, _, _ = _stub_step(cfg)
    hinges: dict[str, list[float]] = {}
    for doc, (pert, delta, axiom) in EDITS.items():
        hinges.setdefault(axiom, []).append(max(0.0, mu - delta * (SCORES[doc] - SCORES[pert])))
    assert len(hinges["TFC1-A"]) == 2
    for axiom, hs in hinges.items():
        assert info[f"ar_{axiom}"] == pytest.approx(sum(hs) / len(hs), abs=1e-6)


def test_ar_weight_lambda_scales_only_the_regularizer() -> None:
    values = {}
    for lam in (0.25, 0.5, 2.0):
        cfg = TrainConfig(regularizer=f"ar(lambda={lam}, mu=0.2, axioms=TFC1-A)")
        loss, info, _, _ = _stub_step(cfg)
        values[lam] = (float(loss.detach()), info["base_loss"], info["ar_loss"])
    (l1, b1, a1), (l2, b2, a2), (l3, b3, a3) = values[0.25], values[0.5], values[2.0]
    assert b1 == b2 == b3 and a1 == a2 == a3 and a1 > 0
    assert l1 == pytest.approx(b1 + 0.25 * a1, abs=1e-6)
    assert l2 - l1 == pytest.approx(0.25 * a1, abs=1e-6)
    assert l3 == pytest.approx(b3 + 2.0 * a3, abs=1e-6)


def test_ar_compares_each_side_with_its_own_perturbation() -> None:
    """Only the lower document is perturbed: the regularizer is its hinge alone, and the
    gradient reaches the lower document and its copy, never the higher document through it."""
    edits = {"doc B": ("doc C-", -1, "TFC1-A")}  # B's copy scores 0.45
    cfg = TrainConfig(regularizer="ar(lambda=0.5, mu=0.2, axioms=TFC1-A)")
    loss, info, model, _ = _stub_step(cfg, edits)
    want_ar = 0.2 + (SCORES["doc B"] - SCORES["doc C-"])  # delta = -1, in its linear part
    assert info["ar_loss"] == pytest.approx(want_ar, abs=1e-6)
    grad = _grad(loss, model)
    base_grad_a = -1.0 / 3  # d/ds_A of mean relu(1 - (s_A - s_B)) (in its linear part)
    assert grad["doc A"] == pytest.approx(base_grad_a, abs=1e-6)
    assert grad["doc B"] == pytest.approx(1.0 / 3 + 0.5, abs=1e-6)
    assert grad["doc C-"] == pytest.approx(-0.5, abs=1e-6)


def test_ar_lambda_zero_is_the_plain_loss_and_draws_no_perturbation() -> None:
    plain, plain_info, plain_model, _ = _stub_step(TrainConfig())
    zero, zero_info, zero_model, stub = _stub_step(
        TrainConfig(regularizer="ar(lambda=0, mu=0.2, axioms=TFC1-A)")
    )
    assert stub.calls == 0 and zero_model.seen == plain_model.seen  # the same forward pass
    assert torch.equal(zero, plain)
    assert zero_info == plain_info and "ar_loss" not in zero_info
    assert _grad(zero, zero_model) == _grad(plain, plain_model)


def _train(regularizer: str | None) -> dict[str, torch.Tensor]:
    cfg = TrainConfig(
        steps=6,
        batch_size=4,
        dev_queries=0,
        eval_every=100,
        checkpoint_every=100,
        regularizer=regularizer,
        seed=3,
    )
    model = TinyRanker(seed=1)
    with tempfile.TemporaryDirectory() as out:
        Trainer(model, cfg, out, make_toy_dataset(8, 4)).fit()
    return {k: v.detach().clone() for k, v in model.state_dict().items()}


def test_ar_lambda_zero_trains_bit_identical_weights() -> None:
    """TinyRanker's scores depend on the batch's padding, so scoring perturbed copies in the
    same forward pass would move the originals' scores: lambda = 0 scores none."""
    plain = _train(None)
    zero = _train("ar(lambda=0, mu=0.1)")
    assert all(torch.equal(plain[k], zero[k]) for k in plain)
    assert any(not torch.equal(plain[k], v) for k, v in _train("ar(lambda=0.5)").items())


# ---------------------------------------------------------------------- AP (perturb(...))
def _reference_ap(s, margin: float, edits=EDITS):  # type: ignore[no-untyped-def]
    """The base pairs and one extra pair per perturbation, ordered as its axiom says
    (direction +1: the original above its copy; -1: the copy above the original)."""
    pairs = [(_text(p.doc_hi), _text(p.doc_lo)) for p in BATCH]
    for p in BATCH:
        for d in (_text(p.doc_hi), _text(p.doc_lo)):
            if d in edits:
                pert, delta, _ = edits[d]
                pairs.append((d, pert) if delta > 0 else (pert, d))
    return sum(_relu(margin - (s[a] - s[b])) for a, b in pairs) / len(pairs)


def test_ap_extra_pairs_follow_the_axiom_direction() -> None:
    margin = 0.6  # no hinge at its kink (0.5 would put A - B there)
    cfg = TrainConfig(margin=margin, augmentation="perturb(axioms=TFC1-A)")
    loss, info, model, stub = _stub_step(cfg)
    want = _reference_ap({t: torch.tensor(v) for t, v in SCORES.items()}, margin)
    assert stub.calls == 6
    assert info["ap_pairs"] == 4.0 and "ar_loss" not in info
    assert float(loss.detach()) == pytest.approx(float(want), abs=1e-6)
    assert info["base_loss"] == pytest.approx(float(want), abs=1e-6)
    expect = _reference_grad(lambda s: _reference_ap(s, margin))
    assert _grad(loss, model) == pytest.approx(expect, abs=1e-6)


@pytest.mark.parametrize("direction", [+1, -1])
def test_ap_single_pair_order(direction: int) -> None:
    """One perturbed document: the extra hinge puts the original above its copy for
    direction +1 and below it for -1 (flipping it is a different value)."""
    edits = {"doc E": ("doc F-", direction, "TFC1-D" if direction > 0 else "TFC1-A")}
    cfg = TrainConfig(margin=1.0, augmentation="perturb(axioms=TFC1-A)")
    loss, info, _, _ = _stub_step(cfg, edits)
    e, c = SCORES["doc E"], SCORES["doc F-"]
    extra = max(0.0, 1 - (e - c)) if direction > 0 else max(0.0, 1 - (c - e))
    base = sum(max(0.0, 1 - (SCORES[_text(p.doc_hi)] - SCORES[_text(p.doc_lo)])) for p in BATCH)
    assert info["ap_pairs"] == 1.0
    assert float(loss.detach()) == pytest.approx((base + extra) / 4, abs=1e-6)


# ---------------------------------------------------------------------- real perturbations
class CountRanker(NeuralRankingModel):
    """Score = w * (occurrences of the query's words in the document) + b."""

    model_type = "count"

    def __init__(self, w: float) -> None:
        super().__init__()
        self.w = nn.Parameter(torch.tensor(w))
        self.b = nn.Parameter(torch.tensor(0.0))

    def encode_batch(
        self, queries: Sequence[str], documents: Sequence[str]
    ) -> dict[str, torch.Tensor]:
        counts = []
        for q, d in zip(queries, documents, strict=True):
            terms = set(re.findall(r"\w+", q.lower()))
            counts.append(sum(t in terms for t in re.findall(r"\w+", d.lower())))
        return {"n": torch.tensor(counts, dtype=torch.float32)}

    def forward(self, n: torch.Tensor) -> torch.Tensor:  # type: ignore[override]
        return self.w * n + self.b


def _count_setup(cfg: TrainConfig) -> tuple[PairwiseLossStrategy, StepContext, list[Pair]]:
    # every query word at most once per document: TFC1-A adds one occurrence, TFC1-D removes it
    docs = {
        "r1": "kernel forest city signal market",
        "n1": "kernel river ocean music",
        "r2": "signal film poem kernel desert",
        "n2": "signal mountain wind",
    }
    ds = Dataset(
        "count",
        {"q": Query("q", "kernel signal")},
        {d: Document(d, t) for d, t in docs.items()},
        {"q": {"r1": 1, "r2": 1}},
        None,
        split="train",
    )
    batch = [Pair("q", "r1", "n1", 1.0, 0.0), Pair("q", "r2", "n2", 1.0, 0.0)]
    strategy, ctx = _setup(cfg, CountRanker(0.4), ds, batch)
    return strategy, ctx, batch


@pytest.mark.parametrize("axioms", ["TFC1-A", "TFC1-D", "TFC1-A,TFC1-D"])
def test_ap_with_rosset_perturbations_orders_each_copy_as_its_axiom(axioms: str) -> None:
    """TFC1-A adds a query term (the copy must score higher), TFC1-D deletes one (lower): in
    the right order each extra hinge is max(0, 1 - w) = 0.6; flipped it would be 1 + w."""
    strategy, ctx, batch = _count_setup(TrainConfig(augmentation=f"perturb(axioms={axioms})"))
    loss, info = strategy.step_loss(ctx, batch, step=1)
    n_ap = int(info["ap_pairs"])
    assert n_ap == 4  # each document has a query term present and one to add
    base = (max(0.0, 1 - 0.4 * (2 - 1)) + max(0.0, 1 - 0.4 * (2 - 1))) / 2
    assert float(loss.detach()) == pytest.approx((2 * base + n_ap * 0.6) / (2 + n_ap), abs=1e-6)


@pytest.mark.parametrize("axioms", ["TFC1-A", "TFC1-D"])
def test_ar_with_rosset_perturbations_penalizes_only_the_wrong_way(axioms: str) -> None:
    """Each term max(0, mu - delta (s - s')) is max(0, mu - w) whatever the axiom's sign: the
    model that follows the axiom by w = 0.4 > mu pays nothing, one that follows it by less pays
    the difference."""
    for w, want in ((0.4, 0.0), (0.05, 2 * (0.1 - 0.05))):
        cfg = TrainConfig(regularizer=f"ar(lambda=1, mu=0.1, axioms={axioms})")
        strategy, ctx, batch = _count_setup(cfg)
        with torch.no_grad():
            ctx.model.w.fill_(w)
        _, info = strategy.step_loss(ctx, batch, step=1)
        assert info["perturbed"] == 4.0
        assert info["ar_loss"] == pytest.approx(want, abs=1e-6)


# ---------------------------------------------------------------------- listwise softmax (+ AR)
def _reference_lists(s, rows: list[list[str]], n_valid: list[int]):  # type: ignore[no-untyped-def]
    """ListNet top-1 with the relevant document first (label 1, the others 0) over each
    list's own documents (the padding is left out)."""
    total = 0
    for row, n in zip(rows, n_valid, strict=True):
        v = torch.stack([s[t] for t in row[:n]])
        total = total - torch.log_softmax(v, dim=0)[0]
    return total / len(rows)


@pytest.mark.parametrize("lam", [0.0, 0.4])
def test_listwise_softmax_step_matches_listnet_over_padded_lists(lam: float) -> None:
    """list_size 3: qa's lists get one extra negative from its non-relevant pool, qb has
    none, so its list [E, F] is padded (and masked). AR compares each list's first two
    documents (the pair) with their own perturbations."""
    reg = f"ar(lambda={lam}, mu=0.2, axioms=TFC1-A)" if lam else None
    # seed 2 draws N1 and N2 as the extra negatives: a regularizer reading the third column
    # instead of the pair's lower document then sees other documents (with seed 0 it would
    # draw D for qa's first list, and the lower sides' perturbations would be the same set)
    cfg = TrainConfig(loss="softmax", list_size=3, regularizer=reg, seed=2)
    loss, info, model, _ = _stub_step(cfg)
    assert model.seen and len(model.seen) == 1
    seen = model.seen[0]
    rows = [seen[0:3], seen[3:6], seen[6:9]]
    assert [r[:2] for r in rows] == [["doc A", "doc B"], ["doc C", "doc D"], ["doc E", "doc F"]]
    assert (rows[0][2], rows[1][2]) == ("doc N1", "doc N2")  # qa's non-relevant pool
    assert rows[2][2] == "doc F"  # padding: a copy of the last document
    n_valid = [3, 3, 2]

    def reference(s):  # type: ignore[no-untyped-def]
        base = _reference_lists(s, rows, n_valid)
        if not lam:
            return base, base, None
        _, _, ar = _reference_ar(s, lam, 0.2, 1.0, "applicable", "hinge")
        return base + lam * ar, base, ar

    total, base, ar = reference(
        {t: torch.tensor(v, dtype=torch.float64) for t, v in SCORES.items()}
    )
    assert float(loss.detach()) == pytest.approx(float(total), abs=1e-5)
    assert info["base_loss"] == pytest.approx(float(base), abs=1e-5)
    if lam:
        assert info["ar_loss"] == pytest.approx(float(ar), abs=1e-6)
        assert sorted(seen[9:]) == ["doc A+", "doc C-", "doc D+", "doc F-"]
    else:
        assert len(seen) == 9
    expect = _reference_grad(lambda s: reference(s)[0])
    assert _grad(loss, model) == pytest.approx(expect, abs=1e-5)


def test_listwise_softmax_negatives_are_labelled_non_relevant() -> None:
    cfg = TrainConfig(loss="softmax", list_size=8)
    model = TableRanker(SCORES)
    strategy, _ = _setup(cfg, model, _dataset(), POOL)
    assert strategy.negatives == {"qa": ["B", "D", "N1", "N2"], "qb": ["F"]}
    plain, _ = _setup(TrainConfig(), model, _dataset(), POOL)
    assert plain.negatives == {}  # only the listwise loss draws extra negatives


# ---------------------------------------------------------------------- graded strategy
class _RecordingLoss:
    """A graded loss that returns sum(grade * score) and remembers its inputs."""

    def __init__(self) -> None:
        self.inputs: list[tuple[torch.Tensor, torch.Tensor]] = []

    def __call__(self, scores: torch.Tensor, grades: torch.Tensor) -> torch.Tensor:
        self.inputs.append((scores, grades))
        return (scores * grades.to(scores.dtype)).sum()


def test_graded_step_scores_each_items_document_against_its_grade() -> None:
    from axiomatic.training.strategies import GradedLossStrategy

    graded = _RecordingLoss()
    strategy = GradedLossStrategy(graded)
    model = TableRanker(SCORES)
    ctx = StepContext(
        model=model,
        config=TrainConfig(loss="graded", graded_loss="mse"),
        train_data=_dataset(),
        device=torch.device("cpu"),
        text=_text,
    )
    strategy.setup(ctx, {"qrels": []})
    batch = [
        Pair("qa", "A", "", 2.0, 0.0),
        Pair("qa", "B", "", 0.0, 0.0),
        Pair("qb", "F", "", 1.0, 0),
    ]
    loss, info = strategy.step_loss(ctx, batch, step=1)
    assert model.seen == [["doc A", "doc B", "doc F"]]
    assert model.queries == [["alpha", "alpha", "beta"]]  # each item's own query
    ((scores, grades),) = graded.inputs
    assert scores.tolist() == pytest.approx([SCORES["doc A"], SCORES["doc B"], SCORES["doc F"]])
    assert grades.tolist() == [2, 0, 1] and grades.dtype == torch.int64
    want = 2 * SCORES["doc A"] + 1 * SCORES["doc F"]
    assert float(loss.detach()) == pytest.approx(want, abs=1e-6)
    assert info == {"base_loss": pytest.approx(want, abs=1e-6)}  # no cut points to log


def test_graded_step_logs_learned_cut_points_and_restores_them() -> None:
    from axiomatic.training.smooth import parse_graded_loss
    from axiomatic.training.strategies import GradedLossStrategy

    po = parse_graded_loss("po(thresholds=0.2,0.5,0.7, scale=10)")  # two gaps: a vector
    added: list[torch.nn.Parameter] = []
    strategy = GradedLossStrategy(po)
    model = TableRanker(SCORES)
    ctx = StepContext(
        model=model,
        config=TrainConfig(loss="graded", graded_loss="po"),
        train_data=_dataset(),
        device=torch.device("cpu"),
        text=_text,
        add_parameters=added.extend,
    )
    strategy.setup(ctx, {"qrels": []})
    assert [id(p) for p in added] == [id(p) for p in po.parameters()]  # cut points trained
    _, info = strategy.step_loss(ctx, [Pair("qa", "A", "", 2.0, 0.0)], step=1)
    cuts = po.cut_points().tolist()
    assert [info[f"cut{k}"] for k in (1, 2, 3)] == pytest.approx(cuts)
    assert cuts == pytest.approx([2.0, 5.0, 7.0], abs=1e-9)  # initialized at scale * thresholds
    with torch.no_grad():
        for p in po.parameters():
            p.add_(0.5)
    state = strategy.state_dict()
    assert set(state["loss_parameters"]) == {"cut_first", "cut_gaps"}
    fresh = GradedLossStrategy(parse_graded_loss("po(thresholds=0.2,0.5,0.7, scale=10)"))
    fresh.load_state_dict(state)
    for a, b in zip(fresh.graded_loss.parameters(), po.parameters(), strict=True):
        assert torch.equal(a, b)
    fresh.load_state_dict({})  # nothing saved: the parameters stay
    assert fresh.graded_loss.cut_points().tolist() == pytest.approx(po.cut_points().tolist())
    # fixed cut points are no parameters: nothing trained, nothing logged
    fixed = GradedLossStrategy(parse_graded_loss("po(thresholds=0.2,0.7, cuts=fixed)"))
    fixed.setup(ctx, {"qrels": []})
    _, info = fixed.step_loss(ctx, [Pair("qa", "A", "", 2.0, 0.0)], step=1)
    assert set(info) == {"base_loss"} and fixed.state_dict() == {"loss_parameters": {}}


class _Bounded(TableRanker):
    """A table model whose scores stay inside (-0.5, 0.5)."""

    def score_bound(self) -> float:
        return 0.5


class _TanhTowers(_Bounded):
    embedding_dim = 16
    eps = 1.0  # bound p / (sqrt(p) + eps)^2 = 16 / 25 = 0.64


def _graded_setup(model: NeuralRankingModel, spec: str) -> None:
    from axiomatic.training.smooth import parse_graded_loss
    from axiomatic.training.strategies import GradedLossStrategy

    ctx = StepContext(
        model=model,
        config=TrainConfig(loss="graded", graded_loss=spec),
        train_data=_dataset(),
        device=torch.device("cpu"),
        text=_text,
        add_parameters=lambda params: None,
    )
    GradedLossStrategy(parse_graded_loss(spec)).setup(ctx, {"qrels": []})


def test_graded_setup_warns_once_about_thresholds_no_score_reaches(monkeypatch) -> None:
    import warnings

    from axiomatic.training import strategies

    monkeypatch.setattr(strategies, "_WARNED", set())
    spec = "sosl(thresholds=0.2,0.7)"
    msg = r"^unreachable thresholds \[0\.2, 0\.7\] for _Bounded: .* \(-0\.5, 0\.5\)"
    with pytest.warns(UserWarning, match=msg):
        _graded_setup(_Bounded(SCORES), spec)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        _graded_setup(_Bounded(SCORES), spec)  # the same problem: said once per process
        _graded_setup(_Bounded(SCORES), "sosl(thresholds=0.1,0.4)")  # reachable: silent
        _graded_setup(TableRanker(SCORES), spec)  # no bound known: silent
    # tanh towers: the bound of their dimension and eps, named in the message
    with pytest.warns(UserWarning, match=r"tanh towers of dimension p = 16 and eps = 1 .*0\.64"):
        _graded_setup(_TanhTowers(SCORES), "sosl(thresholds=0.2,0.65)")
    # a dimension without eps is no tanh tower: the model's own bound
    with pytest.warns(UserWarning, match=r"for _DimOnly: .* \(-0\.5, 0\.5\)"):
        _graded_setup(_DimOnly(SCORES), "sosl(thresholds=0.2,0.66)")


class _DimOnly(_Bounded):
    embedding_dim = 16


# ---------------------------------------------------------------------- pairwise setup
def test_pairwise_setup_builds_the_perturber_for_the_run() -> None:
    """Vocabulary from both sides of every pair, insertions limited to what the model reads,
    the run's analyzer in the documents' language."""
    model = TableRanker(SCORES)
    model.max_doc_len = 7  # type: ignore[attr-defined]
    pool = [Pair("qa", "A", "N1", 1.0, 0.0)]
    docs = {"A": "kernel signal", "N1": "forest river"}
    ds = Dataset("v", {"qa": Query("qa", "alpha")}, {d: Document(d, t) for d, t in docs.items()})
    strategy, _ = _setup(TrainConfig(regularizer="ar(lambda=0.1)"), model, ds, pool)
    perturber = strategy.perturber
    assert sorted(perturber.vocabulary) == ["forest", "kernel", "river", "signal"]
    assert perturber.max_position == 7
    assert perturber.analyzer.language == "en"  # no document language given: English
    assert perturber.analyzer.spec == parse_analyzer("default", language="en").spec
    assert strategy.perturb_axioms == ("TFC1-A", "TFC1-D", "TFC3", "LNC")
    ds.doc_language = "de"
    thesis = TrainConfig(regularizer="ar(lambda=0.1)", analyzer="thesis")
    strategy, _ = _setup(thesis, model, ds, pool)
    assert strategy.perturber.analyzer.spec == parse_analyzer("thesis", language="de").spec
    assert strategy.perturber.analyzer.language == "de"
    plain, _ = _setup(TrainConfig(), model, ds, pool)
    assert plain.perturber is None and plain.perturb_axioms == ()


def test_listwise_softmax_query_without_negatives_keeps_its_pair() -> None:
    model = TableRanker(SCORES)
    strategy, ctx = _setup(TrainConfig(loss="softmax", list_size=3), model, _dataset(), POOL)
    del strategy.negatives["qb"]  # e.g. a query whose documents are all relevant
    strategy.step_loss(ctx, BATCH, step=1)
    assert model.seen[0][6:] == ["doc E", "doc F", "doc F"]  # the pair, padded
