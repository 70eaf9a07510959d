"""The losses refuse inputs of the wrong shape instead of broadcasting them: a ``(B, 1)``
against a ``(B,)`` would become ``(B, B)`` and give a plausible but wrong loss."""

from __future__ import annotations

import re

import pytest
import torch

from axiomatic.training.contrastive import info_nce
from axiomatic.training.losses import (
    AxiomaticRegularizationLoss,
    listwise_softmax_ce,
    pairwise_hinge,
    pointwise_mse,
)

B = 4


def test_pairwise_hinge_refuses_a_column_against_a_row() -> None:
    s = torch.arange(B, dtype=torch.float32)
    msg = "s_pos and s_neg must both have shape (B,) (got s_pos (4, 1) and s_neg (4,))"
    with pytest.raises(ValueError, match=re.escape(msg) + ".*squeeze"):
        pairwise_hinge(s[:, None], s)
    with pytest.raises(ValueError, match=re.escape("(got s_pos (4,) and s_neg (3,))")):
        pairwise_hinge(s, s[:3])
    with pytest.raises(ValueError, match=re.escape("(got s_pos (2, 2) and s_neg (2, 2))")):
        pairwise_hinge(s.view(2, 2), s.view(2, 2))  # equal but not (B,)
    # the (B,) case keeps its value
    assert float(pairwise_hinge(s, s.flip(0), 1.0)) == pytest.approx((4 + 2 + 0 + 0) / 4)


def test_pointwise_mse_refuses_mismatched_shapes() -> None:
    s = torch.zeros(B)
    with pytest.raises(ValueError, match=re.escape("(got scores (4, 1) and labels (4,))")):
        pointwise_mse(s[:, None], torch.ones(B))
    with pytest.raises(ValueError, match=r"^scores and labels must both have shape \(B,\)"):
        pointwise_mse(s, torch.ones(B, 1))
    assert float(pointwise_mse(s, torch.ones(B, dtype=torch.long))) == 1.0


def test_listwise_softmax_ce_refuses_anything_but_two_equal_b_by_l() -> None:
    scores = torch.zeros(2, 3)
    labels = torch.tensor([[1, 0, 0], [1, 0, 0]])
    with pytest.raises(ValueError, match=re.escape("(B, L) (got scores (6,) and labels (2, 3))")):
        listwise_softmax_ce(scores.reshape(-1), labels)
    with pytest.raises(ValueError, match=re.escape("(got scores (2, 3) and labels (2, 1))")):
        listwise_softmax_ce(scores, labels[:, :1])
    assert float(listwise_softmax_ce(scores, labels)) == pytest.approx(
        float(torch.log(torch.tensor(3.0)))
    )


def test_ar_regularizer_refuses_mismatched_shapes() -> None:
    ar = AxiomaticRegularizationLoss()
    s, d, m = torch.zeros(B), torch.ones(B), torch.ones(B)
    with pytest.raises(ValueError, match=re.escape("(got s_orig (4,) and s_pert (4, 1))")):
        ar.regularizer(s, s[:, None], d, m)
    with pytest.raises(ValueError, match=re.escape("(got s_orig (4,) and delta (1,))")):
        ar.regularizer(s, s, d[:1], m)
    with pytest.raises(ValueError, match=re.escape("(got s_orig (4,) and mask (2, 2))")):
        ar.regularizer(s, s, d, m.view(2, 2))
    assert float(ar.regularizer(s, s, d, m)) == pytest.approx(0.1)  # mu - 0


def test_info_nce_refuses_a_flat_input_and_a_bad_mask() -> None:
    with pytest.raises(ValueError, match=r"^info_nce expects scores of shape \(B, L\).*\(4,\)"):
        info_nce(torch.zeros(B))
    with pytest.raises(ValueError, match=r"L >= 1.*got shape \(4, 0\)"):
        info_nce(torch.zeros(B, 0))
    scores = torch.tensor([[1.0, 0.0, 2.0], [0.5, 0.5, 0.0]])
    with pytest.raises(ValueError, match=r"valid must be a boolean tensor of the scores' shape"):
        info_nce(scores, torch.ones(2, 2, dtype=torch.bool))
    with pytest.raises(ValueError, match=r"got torch.int64 of shape \(2, 3\)"):
        info_nce(scores, torch.ones(2, 3, dtype=torch.long))
    valid = torch.tensor([[True, True, False], [False, True, True]])
    with pytest.raises(ValueError, match=r"True in column 0 of every row"):
        info_nce(scores, valid)
    # one candidate per row (the positive alone) is a zero loss, not an error
    assert float(info_nce(torch.tensor([[3.0], [-1.0]]))) == 0.0


# ---------------------------------------------------------------------- values and messages
def test_the_errors_say_how_to_fix_the_shape() -> None:
    s = torch.zeros(B)
    with pytest.raises(ValueError, match=r"\(4, 1\)\); pass one flat score per item"):
        pointwise_mse(s, torch.ones(B, 1))
    with pytest.raises(ValueError, match=r"\(2, 1\)\); pass one row of L scores and one row"):
        listwise_softmax_ce(torch.zeros(2, 3), torch.zeros(2, 1))
    with pytest.raises(ValueError, match=r"\(4, 1\)\); pass one flat score per item"):
        AxiomaticRegularizationLoss().regularizer(s, s[:, None], s, s)


def test_the_default_margin_is_one() -> None:
    s_pos, s_neg = torch.tensor([0.25, 3.0]), torch.tensor([0.0, 0.0])
    assert float(pairwise_hinge(s_pos, s_neg)) == pytest.approx((0.75 + 0.0) / 2)


def test_listwise_softmax_ce_normalizes_graded_and_fractional_labels() -> None:
    scores = torch.tensor([[2.0, 1.0, 0.0]], dtype=torch.float64)
    log_p = torch.log_softmax(scores, dim=1)[0]
    want = -(2 / 3 * log_p[0] + 1 / 3 * log_p[1])  # labels 2, 1, 0 -> weights 2/3, 1/3, 0
    got = listwise_softmax_ce(scores, torch.tensor([[2, 1, 0]]))
    assert float(got) == pytest.approx(float(want), abs=1e-12)
    # labels summing below one are still a distribution: 0.25, 0.25 -> 1/2, 1/2
    half = listwise_softmax_ce(scores, torch.tensor([[0.25, 0.25, 0.0]]))
    assert float(half) == pytest.approx(float(-(log_p[0] + log_p[1]) / 2), abs=1e-12)


def test_ar_call_uses_its_margin_and_a_given_base_loss() -> None:
    ar = AxiomaticRegularizationLoss(lambda_=0.5, mu=0.1, margin=3.0)
    s_pos, s_neg = torch.tensor([1.0]), torch.tensor([0.0])
    pert, delta, mask = torch.tensor([1.0]), torch.tensor([1.0]), torch.tensor([1.0])
    total, base, reg = ar(s_pos, s_neg, pert, pert, delta, delta, mask, mask)
    assert float(base) == pytest.approx(2.0)  # max(0, 3 - 1): the loss's own margin
    assert float(reg) == pytest.approx(0.1 + max(0.0, 0.1 - (0.0 - 1.0)))  # 0.1 + 1.1
    assert float(total) == pytest.approx(2.0 + 0.5 * 1.2)
    given = torch.tensor(7.0)
    total, base, _ = ar(s_pos, s_neg, pert, pert, delta, delta, mask, mask, base_loss=given)
    assert base is given and float(total) == pytest.approx(7.0 + 0.5 * 1.2)


def test_ar_batch_normalization_divides_by_the_batch_size() -> None:
    one = torch.tensor([0.0])
    ar = AxiomaticRegularizationLoss(mu=0.1, normalize="batch")
    assert float(ar.regularizer(one, one, one + 1, one + 1)) == pytest.approx(0.1)  # B = 1


@pytest.mark.parametrize(
    "word, hint",
    [
        ("batchable", "(did you mean 'batch'?)"),  # one suggestion, not every close one
        ("table", ""),  # close to 'applicable' at 0.5 only: below the 0.6 cutoff
    ],
)
def test_ar_unknown_normalization_names_the_choices(word: str, hint: str) -> None:
    msg = f"normalize must be one of applicable, batch (got '{word}') {hint}".rstrip()
    with pytest.raises(ValueError, match="^" + re.escape(msg) + "$"):
        AxiomaticRegularizationLoss(normalize=word)
