"""Losses follow their formulas; configuration strings and TOML files parse safely."""

from __future__ import annotations

import math

import pytest
import torch

from axiomatic.training.config import (
    ARSpec,
    DiagnosticAugmentSpec,
    PerturbAugmentSpec,
    TrainConfig,
    dumps_toml,
    load_config,
    parse_augmentation,
    parse_call,
    parse_regularizer,
    write_toml,
)
from axiomatic.training.losses import (
    AxiomaticRegularizationLoss,
    listwise_softmax_ce,
    pairwise_hinge,
    pointwise_mse,
)


def test_pairwise_hinge_matches_equation_2() -> None:
    s_pos = torch.tensor([2.0, 0.5, 0.0])
    s_neg = torch.tensor([0.0, 0.0, 1.0])
    # max(0, 1 - (s+ - s-)) = 0, 0.5, 2
    assert pairwise_hinge(s_pos, s_neg, 1.0).item() == pytest.approx((0 + 0.5 + 2) / 3)


def test_pointwise_and_listwise() -> None:
    assert pointwise_mse(torch.tensor([1.0, 3.0]), torch.tensor([1, 1])).item() == pytest.approx(
        2.0
    )
    scores = torch.zeros(2, 4)
    labels = torch.tensor([[1, 0, 0, 0], [1, 0, 0, 0]])
    assert listwise_softmax_ce(scores, labels).item() == pytest.approx(math.log(4))
    better = torch.tensor([[5.0, 0, 0, 0], [5.0, 0, 0, 0]])
    assert listwise_softmax_ce(better, labels).item() < 0.1


def test_ar_loss_matches_equation_4() -> None:
    """The published normalization: masked terms averaged over the batch size."""
    loss = AxiomaticRegularizationLoss(lambda_=0.5, mu=0.2, margin=1.0, normalize="batch")
    s_pos = torch.tensor([1.0, 0.0])
    s_neg = torch.tensor([0.0, 0.0])
    s_pos_p = torch.tensor([1.5, 9.0])  # TFC1-A on pos (delta=-1): wants s_p >= s + mu
    s_neg_p = torch.tensor([0.1, 0.0])  # LNC on neg (delta=+1): wants s >= s_p + mu
    delta_pos = torch.tensor([-1.0, -1.0])
    delta_neg = torch.tensor([1.0, 1.0])
    mask_pos = torch.tensor([1.0, 0.0])  # second perturbation did not apply
    mask_neg = torch.tensor([1.0, 1.0])
    total, base, ar = loss(s_pos, s_neg, s_pos_p, s_neg_p, delta_pos, delta_neg, mask_pos, mask_neg)
    hinge = (max(0, 1 - 1) + max(0, 1 - 0)) / 2
    pos_terms = [max(0, 0.2 - (-1) * (1.0 - 1.5)), 0.0]  # masked second term
    neg_terms = [max(0, 0.2 - (0.0 - 0.1)), max(0, 0.2 - 0.0)]
    expected_ar = (sum(pos_terms) + sum(neg_terms)) / 2
    assert base.item() == pytest.approx(hinge)
    assert ar.item() == pytest.approx(expected_ar)
    assert total.item() == pytest.approx(hinge + 0.5 * expected_ar)


def test_ar_loss_normalizes_by_applicable_terms_by_default() -> None:
    """A perturbation that rarely applies must not shrink the effective lambda."""
    default = AxiomaticRegularizationLoss(lambda_=1.0, mu=0.5)
    batch = AxiomaticRegularizationLoss(lambda_=1.0, mu=0.5, normalize="batch")
    assert default.normalize == "applicable"
    s = torch.zeros(8)
    delta = torch.full((8,), -1.0)  # perturbed should score >= s + mu: every hinge is mu = 0.5
    mask = torch.tensor([1.0, 1.0, 1.0, 0, 0, 0, 0, 0])  # 3 of 8 applicable
    assert default.regularizer(s, s, delta, mask).item() == pytest.approx(0.5)
    assert batch.regularizer(s, s, delta, mask).item() == pytest.approx(0.5 * 3 / 8)
    full = torch.ones(8)  # both agree when everything applies
    assert default.regularizer(s, s, delta, full).item() == pytest.approx(
        batch.regularizer(s, s, delta, full).item()
    )
    none = torch.zeros(8)  # nothing applicable: no regularizer, no division by zero
    assert default.regularizer(s, s, delta, none).item() == 0.0
    # the gradient reaches only applicable terms, each with weight 1/3
    s_req = torch.zeros(8, requires_grad=True)
    default.regularizer(s_req, torch.zeros(8), delta, mask).backward()
    assert s_req.grad is not None
    assert s_req.grad.tolist() == pytest.approx([1 / 3] * 3 + [0.0] * 5)
    with pytest.raises(ValueError, match="did you mean 'batch'"):
        AxiomaticRegularizationLoss(normalize="bacth")


def test_regularizer_normalize_option() -> None:
    assert parse_regularizer("ar").normalize == "applicable"
    assert parse_regularizer("ar(lambda=0.1, normalize=batch)").normalize == "batch"
    with pytest.raises(ValueError, match="did you mean 'applicable'"):
        parse_regularizer("ar(normalize=aplicable)")


def test_parse_regularizer_from_the_cli_example() -> None:
    spec = parse_regularizer("ar(lambda=0.1, mu=0.1, axioms=TFC1-A,TFC1-D,TFC3,LNC)")
    assert spec == ARSpec(0.1, 0.1, ("TFC1-A", "TFC1-D", "TFC3", "LNC"))
    assert parse_regularizer("ar(axioms=tfc3)") == ARSpec(axioms=("TFC3",))
    assert parse_regularizer("ar") == ARSpec()
    assert parse_regularizer(None) is None and parse_regularizer("none") is None


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("ar(lamda=0.1)", r"parameter 'lamda' \(did you mean 'lambda'"),
        (
            "ar(lambda=-1)",
            r"^regularizer lambda in 'ar\(lambda=-1\)' must be a finite number >= 0 \(got -1.0",
        ),
        (
            "ar(k=0)",
            r"^regularizer k in 'ar\(k=0\)' must be an integer >= 1 \(got 0, an integer\)$",
        ),
        (
            "ar(normalize=batches)",
            r"must be one of 'applicable', 'batch' \(got 'batches', a string; did you mean 'batch'\?\)",
        ),
        ("ar(lambda=abc)", "must be a number"),
        ("ar(axioms=TFC4)", "unknown perturbation"),
        ("l2(lambda=1)", "unknown regularizer"),
        ("ar(0.1)", "is not key=value"),
        ("ar(lambda=__import__('os').system('x'))", "must be a literal"),
        ("ar(lambda=1", "cannot parse"),
    ],
)
def test_bad_regularizers_explain_themselves(text: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        parse_regularizer(text)


def test_parse_call_is_literal_only() -> None:
    call = parse_call("x(a=1, b='s', c=[1, 2], d=True)")
    assert call.params == {"a": 1, "b": "s", "c": [1, 2], "d": True}


def test_parse_augmentation() -> None:
    assert parse_augmentation("perturb(axioms=TFC1-A,TFC1-D)") == PerturbAugmentSpec(
        ("TFC1-A", "TFC1-D")
    )
    spec = parse_augmentation(
        "diagnostic(mode=paired-delta, instances=/tmp/x, delta_max=0.2, axioms=TFC1)"
    )
    assert spec == DiagnosticAugmentSpec("paired-delta", "/tmp/x", 0.2, ("TFC1",))
    with pytest.raises(ValueError, match="mode"):
        parse_augmentation("diagnostic(mode=pairs)")


def test_config_validation_and_toml_round_trip(tmp_path) -> None:
    with pytest.raises(
        ValueError, match=r"^unknown loss 'hnge' \(did you mean 'hinge'\?\); expected one of "
    ):
        TrainConfig(loss="hnge")
    with pytest.raises(ValueError, match="unknown regularizer"):
        TrainConfig(regularizer="foo(x=1)")
    cfg = TrainConfig(
        model="conv-knrm",
        regularizer="ar(lambda=0.25, mu=0.5)",
        seed=3,
        model_config={"n_filters": 32, "max_doc_len": 64},
    )
    path = write_toml(cfg.to_dict(), tmp_path / "c.toml")
    assert load_config(path) == cfg
    (tmp_path / "bad.toml").write_text("[train]\nlr = 0.1\nbatchsize = 3\n")
    with pytest.raises(
        ValueError, match=r"unknown training setting 'batchsize' \(did you mean 'batch_size'"
    ):
        load_config(tmp_path / "bad.toml")
    (tmp_path / "broken.toml").write_text("lr = \n")
    with pytest.raises(ValueError, match=r"broken\.toml: invalid TOML"):
        load_config(tmp_path / "broken.toml")
    assert 'name = "a\\"b"' in dumps_toml({"name": 'a"b', "skip": None})


def test_rosset_plan_pins_the_published_batch_normalization(tmp_path) -> None:
    """Finished Rosset units were trained with normalize=batch; 'applicable' runs get their own
    unit folders so the two are never mixed (and both can be shown in the ablation)."""
    from axiomatic.experiments.rosset2019.plan import RossetPlan
    from axiomatic.experiments.rosset2019.run import Rosset2019

    plan = RossetPlan.quick()
    assert plan.ar_normalize == "batch"
    variant, spec = Rosset2019(plan, tmp_path)._ar(0.1, 0.1, ("TFC3",))
    assert variant == "ar-TFC3-l0.1-m0.1" and parse_regularizer(spec).normalize == "batch"
    plan.ar_normalize = "applicable"
    variant, spec = Rosset2019(plan, tmp_path)._ar(0.1, 0.1, ("TFC3",))
    assert variant.endswith("-napplicable") and parse_regularizer(spec).normalize == "applicable"
