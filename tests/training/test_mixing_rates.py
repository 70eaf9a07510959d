"""The mixing rates of AP (``perturb(rate=...)``: the probability that a training document gets
a perturbed copy as an extra pair) and of Rennings' paired augmentation (``diagnostic(rate=...)``:
axiom pairs per relevance pair in a batch), the parameters compare-training tunes on dev."""

from __future__ import annotations

import pytest
import torch
from test_pairwise_strategy_science import BATCH, EDITS, SCORES, _reference_ap, _stub_step

from axiomatic.training.config import DiagnosticAugmentSpec, TrainConfig, parse_augmentation
from axiomatic.training.samplers import Pair, PairSampler


def test_ap_rate_one_is_the_unmixed_augmentation_draw_for_draw() -> None:
    """rate=1 draws nothing extra: the same perturbations, pairs and loss as no rate."""
    plain = _stub_step(TrainConfig(margin=0.6, augmentation="perturb(axioms=TFC1-A)"))
    one = _stub_step(TrainConfig(margin=0.6, augmentation="perturb(axioms=TFC1-A, rate=1)"))
    assert float(one[0].detach()) == float(plain[0].detach())
    assert one[1] == plain[1] and one[3].calls == plain[3].calls == 6
    want = _reference_ap({t: torch.tensor(v) for t, v in SCORES.items()}, 0.6)
    assert float(one[0].detach()) == pytest.approx(float(want), abs=1e-6)


def test_ap_rate_zero_adds_no_pair_and_is_the_plain_hinge() -> None:
    loss, info, _model, stub = _stub_step(
        TrainConfig(margin=0.6, augmentation="perturb(axioms=TFC1-A, rate=0)")
    )
    assert stub.calls == 0 and "ap_pairs" not in info
    s = SCORES
    hinge = [max(0.0, 0.6 - (s[f"doc {p.doc_hi}"] - s[f"doc {p.doc_lo}"])) for p in BATCH]
    assert float(loss.detach()) == pytest.approx(sum(hinge) / len(hinge), abs=1e-6)


def test_ap_rate_perturbs_each_document_with_that_probability() -> None:
    """Over many steps the share of documents offered to the perturber is the rate."""
    from test_pairwise_strategy_science import POOL, StubPerturber, TableRanker, _dataset, _setup

    cfg = TrainConfig(margin=0.6, augmentation="perturb(axioms=TFC1-A, rate=0.25)")
    strategy, ctx = _setup(cfg, TableRanker(SCORES), _dataset(), POOL)
    stub = StubPerturber(EDITS)
    strategy.perturber = stub
    steps = 400
    for step in range(steps):
        strategy.step_loss(ctx, BATCH, step=step)
    share = stub.calls / (steps * 2 * len(BATCH))
    assert share == pytest.approx(0.25, abs=0.03)


def test_diagnostic_rate_is_the_axiom_pools_share_of_each_batch() -> None:
    regular = [Pair("q", f"r{i}", f"n{i}", 1.0, 0.0) for i in range(40)]
    axiom = [Pair("q", f"a{i}", f"b{i}", 1.0, 0.0, source="axiom") for i in range(40)]
    for rate, want in ((1.0, 8), (0.5, 5), (0.0, 0), (3.0, 12)):
        spec = parse_augmentation(f"diagnostic(mode=paired, instances=x, rate={rate})")
        assert isinstance(spec, DiagnosticAugmentSpec) and spec.rate == rate
        sampler = PairSampler({"qrels": regular, "axiom": axiom}, 16, seed=0,
                               weights={"qrels": 1.0, "axiom": spec.rate})  # fmt: skip
        batch = sampler.next_batch()
        assert sum(p.source == "axiom" for p in batch) == want == round(16 * rate / (1 + rate))
        assert len(batch) == 16


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("perturb(rate=1.5)", r"^perturb rate must be a finite number >= 0 and <= 1 \(got 1.5,"),
        ("perturb(rate=-0.1)", r"perturb rate must be a finite number >= 0 and <= 1 \(got -0.1"),
        ("perturb(rate=true)", "perturb rate must be a number"),
        (
            "diagnostic(mode=paired, instances=x, rate=-1)",
            r"^diagnostic rate must be a finite number >= 0 \(got -1.0, a number\)$",
        ),
        ("diagnostic(mode=paired, instances=x, rate=nan)", "diagnostic rate must be a number"),
    ],
)
def test_a_bad_rate_is_refused(spec: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        parse_augmentation(spec)


def test_the_rennings_pools_carry_the_rate() -> None:
    from test_diagnostic_augment_reference import _dataset as ds
    from test_diagnostic_augment_reference import _df

    from axiomatic.data.records import Document
    from axiomatic.training.augment import pools_from_instances

    regular = [Pair("q0", "r2", "n1", 2.0, 0.0)]
    art = {"art-1": Document("art-1", "text")}
    df = _df([("q0", "TFC1", "art-1", "n2", ">", 0.0), ("q0", "TFC1", "n1", "n2", ">", 0.3)])
    for rate in (0.5, 2.0):
        _pools, weights, _docs = pools_from_instances(
            ds(), DiagnosticAugmentSpec(mode="paired", rate=rate), regular, df, art
        )
        assert weights == {"qrels": 1.0, "axiom": rate}
