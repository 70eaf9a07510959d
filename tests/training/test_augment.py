"""Diagnostic-instance augmentation (Rennings 2019, section 4.4) on a hand-made instance table."""

from __future__ import annotations

import pandas as pd
import pytest
from training_helpers import TinyRanker, make_toy_dataset

from axiomatic.training.augment import filter_instances, multi_graded_pairs, pools_from_instances
from axiomatic.training.config import DiagnosticAugmentSpec, TrainConfig, parse_augmentation
from axiomatic.training.samplers import qrels_pairs
from axiomatic.training.trainer import Trainer


def _instances() -> pd.DataFrame:
    # q0-d0 is relevant; rows cover the kept and the two excluded instance types
    rows = [
        ("q0", "TFC1", "q0-d1", "q0-d2", ">", 0.05),  # non-rel > non-rel: kept
        ("q0", "TFC1", "q0-d3", "q0-d0", ">", 0.05),  # non-rel > relevant: excluded
        ("q0", "TFC1", "q0-d0", "q0-d4", ">", 0.50),  # relevant > non-rel: kept (large delta*)
        ("q1", "M-TDC", "q1-d1", "q1-d2", ">=", 0.0),  # other axiom
        ("q1", "TFC2", "q1-d1", "q1-d2", "diff>", 0.0),  # triple: never a pair
        ("zz", "TFC1", "x", "y", ">", 0.0),  # not a training query
    ]
    df = pd.DataFrame(
        rows, columns=["query_id", "axiom", "doc_a", "doc_b", "relation", "len_diff_rel"]
    )
    df["doc_c"] = [None, None, None, None, "q1-d3", None]
    return df


def test_filter_excludes_the_counter_intuitive_types() -> None:
    ds = make_toy_dataset()
    ds.qrels["q0"]["q0-d5"] = 1  # a second relevant document
    df = _instances()
    extra = pd.DataFrame([("q0", "TFC1", "q0-d0", "q0-d5", ">", 0.0, None)], columns=df.columns)
    kept = filter_instances(pd.concat([df, extra]), ds, axioms=("TFC1", "M-TDC"))
    assert list(zip(kept["doc_a"], kept["doc_b"], strict=True)) == [
        ("q0-d1", "q0-d2"),
        ("q0-d0", "q0-d4"),
        ("q1-d1", "q1-d2"),
    ]
    kept = filter_instances(df, ds, axioms=("TFC1",), delta_max=0.1)
    assert list(kept["doc_a"]) == ["q0-d1"]


def test_paired_pools_are_mixed_one_to_one() -> None:
    ds = make_toy_dataset()
    regular = qrels_pairs(ds)
    spec = DiagnosticAugmentSpec(mode="paired", axioms=("TFC1",))
    pools, weights, _ = pools_from_instances(ds, spec, regular, _instances())
    assert weights == {"qrels": 1.0, "axiom": 1.0}
    assert {(p.doc_hi, p.doc_lo, p.label_hi) for p in pools["axiom"]} == {
        ("q0-d1", "q0-d2", 1.0),
        ("q0-d0", "q0-d4", 2.0),
    }
    spec = DiagnosticAugmentSpec(mode="paired-delta", axioms=("TFC1",), delta_max=0.1)
    pools, _, _ = pools_from_instances(ds, spec, regular, _instances())
    assert [(p.doc_hi, p.doc_lo) for p in pools["axiom"]] == [("q0-d1", "q0-d2")]
    with pytest.raises(ValueError, match="no usable axiom instances"):
        pools_from_instances(
            ds, DiagnosticAugmentSpec(mode="paired", axioms=("LNC2",)), regular, _instances()
        )


def test_multi_graded_labels() -> None:
    ds = make_toy_dataset()
    regular = qrels_pairs(ds)
    df = filter_instances(_instances(), ds, axioms=("TFC1",))
    pairs = multi_graded_pairs(df, ds, regular)
    q0 = {(p.doc_hi, p.doc_lo): (p.label_hi, p.label_lo) for p in pairs if p.query_id == "q0"}
    assert q0[("q0-d0", "q0-d1")] == (2.0, 1.0)  # strong over weak
    assert q0[("q0-d1", "q0-d2")] == (1.0, 0.0)  # weak over non-relevant
    assert q0[("q0-d1", "q0-d5")] == (1.0, 0.0)  # weak over any non-relevant (unconstrained)
    assert ("q0-d2", "q0-d5") not in q0  # equal labels are never paired
    assert len([p for p in pairs if p.query_id == "q1"]) == 7  # untouched queries: regular pairs


def test_trainer_uses_the_axiom_pool(tmp_path) -> None:
    ds = make_toy_dataset()
    regular = qrels_pairs(ds)
    spec = DiagnosticAugmentSpec(mode="paired", axioms=("TFC1",))
    pools, _, _ = pools_from_instances(ds, spec, regular, _instances())
    cfg = TrainConfig(steps=3, batch_size=6, eval_every=10, augmentation=None)
    trainer = Trainer(
        TinyRanker(),
        cfg,
        tmp_path,
        ds,
        pools={"axiom": pools["axiom"]},
        pool_weights={"axiom": 1.0},
    )
    result = trainer.fit()
    assert result.pools == {"qrels": len(regular), "axiom": 2}
    assert trainer.sampler.counts == {"qrels": 3, "axiom": 3}


# ---------------------------------------------------------------------- delta_max
@pytest.mark.parametrize("mode", ["paired", "multi-graded"])
def test_delta_max_outside_paired_delta_is_refused(mode: str) -> None:
    """It used to be silently ignored: ``mode=paired, delta_max=0.1`` trained on every
    instance. The error names both ways out."""
    text = f"diagnostic(mode={mode}, instances=/tmp/x, delta_max=0.1, axioms=TFC1)"
    msg = (
        rf"^diagnostic delta_max applies only to mode=paired-delta \(got mode={mode}, "
        r"delta_max=0\.1\); write mode=paired-delta .* or drop delta_max"
    )
    with pytest.raises(ValueError, match=msg):
        parse_augmentation(text)
    with pytest.raises(ValueError, match=msg):
        TrainConfig(augmentation=text).augment  # noqa: B018 - the property parses
    with pytest.raises(ValueError, match=msg):
        DiagnosticAugmentSpec(mode=mode, delta_max=0.1)
    assert parse_augmentation(f"diagnostic(mode={mode}, instances=/tmp/x)").delta_max is None


def test_paired_delta_defaults_to_the_thesis_bound_and_filters() -> None:
    spec = parse_augmentation("diagnostic(mode=paired-delta, instances=/tmp/x, axioms=TFC1)")
    assert spec.delta_max == 0.1  # Rennings' value
    ds = make_toy_dataset()
    regular = qrels_pairs(ds)
    pools, _, _ = pools_from_instances(ds, spec, regular, _instances())
    assert [(p.doc_hi, p.doc_lo) for p in pools["axiom"]] == [("q0-d1", "q0-d2")]  # 0.50 out
    wide = DiagnosticAugmentSpec(mode="paired-delta", axioms=("TFC1",), delta_max=0.5)
    pools, _, _ = pools_from_instances(ds, wide, regular, _instances())
    assert len(pools["axiom"]) == 2  # len_diff_rel <= delta_max: the bound itself is kept
    paired = DiagnosticAugmentSpec(mode="paired", axioms=("TFC1",))
    pools, _, _ = pools_from_instances(ds, paired, regular, _instances())
    assert len(pools["axiom"]) == 2  # paired: every instance


@pytest.mark.parametrize("bad", ["-0.1", "nan", "'wide'"])
def test_paired_delta_refuses_a_bound_that_is_no_number_at_least_zero(bad: str) -> None:
    with pytest.raises(ValueError, match=r"^diagnostic delta_max must be a (finite )?number"):
        parse_augmentation(f"diagnostic(mode=paired-delta, instances=/tmp/x, delta_max={bad})")
