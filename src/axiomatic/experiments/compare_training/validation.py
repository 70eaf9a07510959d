"""Validation of a compare-training plan: every refusal of a plan that cannot run, before
any work (:func:`check_plan`)."""

from __future__ import annotations

import math
from typing import Any

from axiomatic.experiments.compare_training.plan import (
    ALL,
    BASELINE,
    MEASURES,
    METHODS,
    POINT_KEYS,
    POINT_METHODS,
    ComparePlan,
    point_name,
)


def check_plan(p: ComparePlan) -> None:
    """Refuse a plan that cannot run, before any work (the unit settings are checked by
    building every unit's trainer configuration)."""
    from axiomatic._suggest import suggest
    from axiomatic.models.io import is_word_model, resolve_model_name

    if not p.starts:
        raise ValueError('compare-training needs at least one start (starts = ["knrm"])')
    for s in p.starts:
        resolve_model_name(s)  # an unknown model is refused with the close matches
        if s not in p.methods:
            raise ValueError(
                f"compare-training start {s!r} has no methods: add it to the plan's "
                f'methods table (e.g. methods.{s} = ["plain", "ar"])'
            )
        for m in p.methods[s]:
            if m not in METHODS:
                raise ValueError(
                    f"unknown compare-training method {m!r}{suggest(m, METHODS)} for start "
                    f"{s!r}; expected some of {list(METHODS)}"
                )
        if BASELINE not in p.methods[s]:
            raise ValueError(
                f"compare-training start {s!r}: the methods {p.methods[s]} lack the "
                f"baseline {BASELINE!r}, which every method is compared with; add it"
            )
        if (
            "ares" in p.methods[s]
            and resolve_model_name(s) != "cross-encoder"
            and not is_word_model(s)
        ):
            raise ValueError(
                f"compare-training method 'ares' pre-trains a cross-encoder or a word-level "
                f"ranker (knrm, conv-knrm): it cannot start from the {s}"
            )
        if not p.lrs.get(s) and not all(p.grids.get(m) for m in p.methods[s]):
            raise ValueError(
                f"compare-training start {s!r} has no learning rates: add it to the plan's "
                f"lrs table (e.g. lrs.{s} = [1e-3, 3e-3])"
            )
        sizes = {m: len(p.grid(s, m)) for m in p.methods[s]}
        if len(set(sizes.values())) > 1:
            raise ValueError(
                f"compare-training start {s!r}: the methods' grids differ in size ({sizes}); "
                "give every method as many grid points as the others (equal tuning budgets), "
                "in grids.METHOD or the start's lrs"
            )
    for m in p.method_config:
        if m not in METHODS:
            raise ValueError(
                f"compare-training method_config names unknown method {m!r}"
                f"{suggest(m, METHODS)}; expected some of {list(METHODS)}"
            )
    for m, pts in p.grids.items():
        if m not in METHODS:
            raise ValueError(
                f"compare-training grids names unknown method {m!r}{suggest(m, METHODS)}; "
                f"expected some of {list(METHODS)}"
            )
        if not isinstance(pts, list) or not all(isinstance(x, dict) for x in pts):
            raise ValueError(
                f"compare-training grids.{m} must be a list of tables "
                f"(e.g. [{{lr = 1e-3}}, {{lr = 3e-3}}]), got {pts!r}"
            )
        for pt in pts:
            for k, v in pt.items():
                if k not in POINT_KEYS:
                    raise ValueError(
                        f"compare-training grids.{m}: unknown parameter {k!r}"
                        f"{suggest(k, POINT_KEYS)}; expected some of {list(POINT_KEYS)}"
                    )
                if k in POINT_METHODS and m not in POINT_METHODS[k]:
                    raise ValueError(
                        f"compare-training grids.{m}: {k!r} is a parameter of "
                        f"{', '.join(POINT_METHODS[k])}, not of {m!r}"
                    )
                _positive_number(f"grids.{m}.{k}", v, allow_zero=k in ("lambda", "mu", "rate"))
        names = [point_name(pt) for pt in pts]
        if len(set(names)) != len(names):
            raise ValueError(f"compare-training grids.{m} repeats a point: {names}")
    if not p.seeds:
        raise ValueError("compare-training needs at least one seed")
    if len(set(p.seeds)) != len(p.seeds):
        raise ValueError(f"compare-training seeds repeat: {p.seeds}")
    if not p.sizes:
        raise ValueError('compare-training needs at least one training size (sizes = ["all"])')
    for s in p.sizes:
        ok = (isinstance(s, int) and not isinstance(s, bool) and s > 0) or (
            isinstance(s, str) and s.strip().lower() == ALL
        )
        if not ok:
            raise ValueError(
                f"compare-training sizes: {s!r} is neither a positive number of training "
                f'queries nor "all"; e.g. sizes = [50, 200, "all"]'
            )
    if len(set(p.size_names())) != len(p.sizes):
        raise ValueError(f"compare-training sizes repeat: {p.sizes}")
    for name in ("examples", "batch_size", "eval_every", "depth", "test_depth"):
        v = getattr(p, name)
        if not isinstance(v, int) or isinstance(v, bool) or v < 1:
            raise ValueError(f"compare-training {name} must be a positive integer (got {v!r})")
    if p.examples < p.batch_size:
        raise ValueError(
            f"compare-training examples ({p.examples}) is below one batch "
            f"({p.batch_size}); raise examples"
        )
    if not 0 < p.alpha < 1 or not 0 < p.power < 1:
        raise ValueError(
            f"compare-training alpha and power must lie in (0, 1) (got {p.alpha}, {p.power})"
        )
    cell = p.primary_cell()
    unknown = set(p.primary) - {"start", "size", "collection", "measure"}
    if unknown:
        raise ValueError(
            f"compare-training primary: unknown key(s) {sorted(unknown)}; expected start, "
            "size, collection, measure"
        )
    checks = (
        ("start", cell["start"], p.starts),
        ("size", cell["size"], p.size_names()),
        ("collection", cell["collection"], p.test_sets),
        ("measure", cell["measure"], list(MEASURES)),
    )
    for key, value, allowed in checks:
        if value not in allowed:
            raise ValueError(
                f"compare-training primary {key} {value!r} is not one the plan runs "
                f"({allowed}){suggest(str(value), [str(a) for a in allowed])}"
            )


def _positive_number(name: str, v: Any, allow_zero: bool = False) -> None:
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
        raise ValueError(f"compare-training {name} must be a finite number (got {v!r})")
    if v < 0 or (v == 0 and not allow_zero):
        raise ValueError(
            f"compare-training {name} must be {'>= 0' if allow_zero else '> 0'} (got {v!r})"
        )


__all__ = ["check_plan"]
