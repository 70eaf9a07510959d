"""ACRank's loss strategy against reference computations (`make mutate` survivors of
training/contrastive.py): the masked InfoNCE, the augmenter's language and visible prefix, the
defaults taken from the config, the extra negatives, the hinge variant and the counters'
checkpoint state."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest
import torch

from axiomatic.training.config import ACRankAugmentSpec, TrainConfig
from axiomatic.training.contrastive import ACRankLossStrategy, info_nce
from axiomatic.training.samplers import Pair


# ---------------------------------------------------------------------- InfoNCE
def _reference_info_nce(scores: list[list[float]]) -> float:
    """-mean_b log(exp(s_b0) / sum_j exp(s_bj)) over each row's own (unpadded) entries."""
    return float(np.mean([-(r[0] - np.log(np.sum(np.exp(r)))) for r in map(np.asarray, scores)]))


def test_info_nce_masks_padding_per_row() -> None:
    rows = [[2.0, 1.0, -1.0], [0.5, 3.0], [1.0]]  # unequal widths: padded with the positive
    width = 3
    padded = torch.tensor([r + [r[0]] * (width - len(r)) for r in rows])
    valid = torch.tensor([[True] * len(r) + [False] * (width - len(r)) for r in rows])
    got = float(info_nce(padded, valid))
    assert got == pytest.approx(_reference_info_nce(rows), abs=1e-6)
    # without the mask the padding counts (a different, wrong value)
    assert float(info_nce(padded)) != pytest.approx(got, abs=1e-3)
    # the softmax runs over each row's candidates, not over the batch
    full = [[2.0, 1.0, -1.0], [0.5, 3.0, 0.0]]
    assert float(info_nce(torch.tensor(full))) == pytest.approx(_reference_info_nce(full), 1e-6)


# ---------------------------------------------------------------------- setup
def _ctx(model: object, doc_language: str | None, language: str | None = "en") -> object:
    data = SimpleNamespace(doc_language=doc_language, language=language, rel_threshold=1)
    return SimpleNamespace(model=model, train_data=data)


@pytest.mark.parametrize(
    "model, doc_language, language, expect_language, expect_limit",
    [
        # the cross-encoder sees about half its word pieces as document words
        (SimpleNamespace(max_length=128), None, "en", "en", 64),
        (SimpleNamespace(max_length=128), None, None, "en", 64),  # no language: English
        # Chinese: jieba words are ~1.5 characters, the limit is the pair budget minus the query
        (SimpleNamespace(max_length=128), "zh", "en", "zh", 104),  # doc language wins
        (SimpleNamespace(max_length=20), "zh-cn", None, "zh", 8),  # at least 8 positions
        (SimpleNamespace(max_length=129), "zh", None, "zh", 105),  # the model's own max_length
        (SimpleNamespace(max_doc_len=50), None, "en", "en", 50),  # word models: max_doc_len
        (SimpleNamespace(max_doc_len=50), "zh", None, "zh", 76),  # 2 * 50 - 24
        (SimpleNamespace(), "zh", None, "zh", None),  # no truncation known: no limit
    ],
)
def test_setup_builds_the_augmenter_for_the_language_and_visible_prefix(
    model: object,
    doc_language: str | None,
    language: str | None,
    expect_language: str,
    expect_limit: int | None,
) -> None:
    if expect_language == "zh":
        pytest.importorskip("jieba")
    strategy = ACRankLossStrategy(ACRankAugmentSpec(rule="TFC-A", p=0.3))
    strategy.setup(_ctx(model, doc_language, language), {"qrels": []})  # type: ignore[arg-type]
    aug = strategy.augmenter
    assert (aug.language, aug.max_position) == (expect_language, expect_limit)
    assert (aug.rule, aug.p) == ("TFC-A", 0.3)


# ---------------------------------------------------------------------- from_config
def test_the_default_margin_is_one() -> None:
    assert ACRankLossStrategy(ACRankAugmentSpec()).margin == 1.0


def test_from_config_takes_the_list_size_and_margin() -> None:
    cfg = TrainConfig(
        loss="contrastive", list_size=5, margin=0.25, augmentation="acrank(loss=hinge, p=0.2)"
    )
    s = ACRankLossStrategy.from_config(cfg)
    assert s.spec == ACRankAugmentSpec("TFC-A&D", 0.2, "hinge", 4)  # list_size - 1 negatives
    assert s.margin == 0.25
    s1 = ACRankLossStrategy.from_config(TrainConfig(loss="contrastive", list_size=1))
    assert s1.spec == ACRankAugmentSpec(negatives=1)  # no acrank(...): the defaults, >= 1
    given = ACRankLossStrategy.from_config(
        TrainConfig(loss="contrastive", list_size=9, augmentation="acrank(negatives=3)")
    )
    assert given.spec.negatives == 3  # a stated count is kept
    with pytest.raises(ValueError, match=r"^ACRank's contrastive strategy does not combine with"):
        ACRankLossStrategy.from_config(
            TrainConfig(loss="contrastive", regularizer="ar(lambda=0.1, mu=0.1)")
        )


# ---------------------------------------------------------------------- extra negatives
def test_extra_negatives_are_distinct_labelled_negatives() -> None:
    s = ACRankLossStrategy(ACRankAugmentSpec(negatives=3))
    s.rel_threshold = 1.0  # set by setup from the dataset; "lo" (label 0) is non-relevant
    s.negatives = {"q": ["n1", "n2", "n3", "n4", "lo"]}
    p = Pair("q", "hi", "lo", 1, 0)
    seen: set[str] = set()
    for seed in range(30):
        got = s._negatives(p, np.random.default_rng(seed))
        assert got[0] == "lo" and len(got) == 3 and len(set(got)) == 3  # 2 extra, no repeats
        assert "hi" not in got and got.count("lo") == 1
        seen |= set(got[1:])
    assert seen == {"n1", "n2", "n3", "n4"}  # drawn from the pool, all of it reachable
    one = ACRankLossStrategy(ACRankAugmentSpec(negatives=None))
    one.negatives, one.rel_threshold = s.negatives, 1.0
    assert one._negatives(p, np.random.default_rng(0)) == ["lo"]  # None: the pair's own only
    few = ACRankLossStrategy(ACRankAugmentSpec(negatives=9))
    few.negatives, few.rel_threshold = {"q": ["n1"]}, 1.0
    assert few._negatives(p, np.random.default_rng(0)) == ["lo", "n1"]  # capped by the pool
    few.negatives = {}
    assert few._negatives(p, np.random.default_rng(0)) == ["lo"]  # a query without a pool


# ---------------------------------------------------------------------- checkpoint state
def test_augmenter_counters_survive_a_checkpoint() -> None:
    a = ACRankLossStrategy(ACRankAugmentSpec())
    a.setup(_ctx(SimpleNamespace(max_length=64), None), {"qrels": []})  # type: ignore[arg-type]
    a.augmenter.stats.documents, a.augmenter.stats.tfc_a_applied = 7, 3
    state = a.state_dict()
    assert state == {"augment_stats": a.augmenter.stats.to_dict()}
    b = ACRankLossStrategy(ACRankAugmentSpec())
    b.setup(_ctx(SimpleNamespace(max_length=64), None), {"qrels": []})  # type: ignore[arg-type]
    b.load_state_dict({"augment_stats": {**state["augment_stats"], "unknown": 5}})
    assert b.augmenter.stats.to_dict() == state["augment_stats"]
    b.load_state_dict({})  # an old checkpoint without counters changes nothing
    assert b.augmenter.stats.documents == 7


# ---------------------------------------------------------------------- one step
class _StubAugmenter:
    """Fixed edits: d1 gets a TFC-A plus (no minus), d2 a TFC-D minus (no plus)."""

    def __init__(self) -> None:
        from axiomatic.perturb.acrank import AugmentStats

        self.stats = AugmentStats()

    def augment(self, query: str, text: str, rng: np.random.Generator) -> object:
        if text == "apple pie":
            return SimpleNamespace(plus=SimpleNamespace(text="apple apple pie"), minus=None)
        self.stats.no_query_term += 1
        self.stats.all_stopword_queries += 2
        return SimpleNamespace(plus=None, minus=SimpleNamespace(text="tart"))


def _step(loss: str, negatives: int | None, margin: float = 1.0):
    s = ACRankLossStrategy(ACRankAugmentSpec(loss=loss, negatives=negatives), margin=margin)
    s.augmenter = _StubAugmenter()  # type: ignore[assignment]
    s.augmenter.stats.no_query_term = 5  # counted by earlier steps: not this step's
    s.negatives = {"q1": ["d1", "n1", "x1"], "q2": ["n2"]}
    s.rel_threshold = 1.0  # the pairs' lower documents (label 0) are non-relevant
    texts = {"d1": "apple pie", "x1": "crumble", "n1": "pear", "d2": "cherry tart", "n2": "plum"}
    ctx = SimpleNamespace(
        query_text=lambda q: q,
        text=lambda d: texts[d],
        rng=lambda step, salt: np.random.default_rng([step, salt]),
    )
    seen: list[tuple[str, str]] = []

    def scores(_ctx: object, qs: list[str], ds: list[str]) -> torch.Tensor:
        seen.extend(zip(qs, ds, strict=True))
        return torch.tensor([len(d) / 4.0 for d in ds])  # a score per text, known in advance

    s.scores = scores  # type: ignore[method-assign]
    batch = [Pair("q1", "d1", "x1", 1, 0), Pair("q2", "d2", "n2", 1, 0)]
    loss, info = s.step_loss(ctx, batch, step=3)  # type: ignore[arg-type]
    return loss, info, seen


def _sc(text: str) -> float:
    return len(text) / 4.0


def test_the_hinge_variant_ranks_plus_over_original_over_minus_and_negative() -> None:
    loss, info, seen = _step("hinge", None, margin=2.0)
    pairs = [  # (higher, lower): original > negative, plus > original, original > minus
        ("apple pie", "crumble"),
        ("apple apple pie", "apple pie"),
        ("cherry tart", "plum"),
        ("cherry tart", "tart"),
    ]
    expect = np.mean([max(0.0, 2.0 - (_sc(a) - _sc(b))) for a, b in pairs])
    assert float(loss) == pytest.approx(expect, abs=1e-6)
    assert info["base_loss"] == pytest.approx(expect, abs=1e-6)
    assert {k: info[k] for k in ("aug_plus", "aug_minus")} == {"aug_plus": 1.0, "aug_minus": 1.0}
    # the counters of this step only (the stub counted once for d2)
    assert info["aug_no_query_term"] == 1.0 and info["aug_all_stopword_queries"] == 2.0
    assert [q for q, _ in seen] == ["q1", "q1", "q1", "q2", "q2", "q2"]


def test_the_infonce_variant_puts_the_positive_first_and_masks_short_rows() -> None:
    loss, info, seen = _step("infonce", 2)
    texts = [d for _, d in seen]
    # q1: plus first, then the original, then its negatives; q2: original, minus, negatives
    # (d1 and x1 are q1's pair itself: n1 "pear" is the one extra negative; q2 has none)
    row1 = ["apple apple pie", "apple pie", "crumble", "pear"]
    row2 = ["cherry tart", "tart", "plum"]
    assert texts == [
        "apple pie",
        "apple apple pie",
        "crumble",
        "pear",
        "cherry tart",
        "tart",
        "plum",
    ]
    expect = _reference_info_nce([[_sc(t) for t in row1], [_sc(t) for t in row2]])
    assert float(loss) == pytest.approx(expect, abs=1e-6)
    assert info["base_loss"] == pytest.approx(expect, abs=1e-6)
