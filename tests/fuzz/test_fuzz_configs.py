"""Fuzz the TOML configs (train configs, experiment plans, dataset descriptors): a config is
read with valid values or refused with one ``ValueError`` naming the file, never an internal
error (``RecursionError``, ``OverflowError``, ``TypeError``) and never accepted with a value
that is no valid setting (``true`` as 1, an infinite rate, a 10**30 step count).

Generators (the inputs that found these): nesting thousands of levels deep (arrays, inline
tables), integers of any size (TOML's are 64-bit, tomllib reads more), booleans, infinities and
NaNs, full-width digits (a string in TOML) in numeric fields, unknown keys, a ``plan`` /
``train`` key that is no table.
"""

from __future__ import annotations

import math
import numbers
from pathlib import Path

import pytest
from fuzz_helpers import FUZZ, fresh
from hypothesis import event, given
from hypothesis import strategies as st

from axiomatic.data.errors import DataError
from axiomatic.training.config import TrainConfig, load_config, read_toml

# ------------------------------------------------------------------------------ TOML values
_HUGE = [10**19, -(10**19), 2**63, 2**63 - 1, -(2**63), 10**30, 10**400, 2**31, 2**32, 2**31 - 1]
scalars = st.one_of(
    st.sampled_from(["true", "false", "inf", "-inf", "nan", "1e400", "-1e400", "0", "-1", "0.0"]),
    st.sampled_from([str(n) for n in _HUGE]),
    st.integers(-(10**6), 10**6).map(str),
    st.floats(allow_nan=False, allow_infinity=False).map(lambda f: repr(f).replace("e+", "e")),
    st.sampled_from(['"\uff11"', '"\uff10.\uff11"', '"1"', '"0.5"', '""', '"x"', "'knrm'"]),
    st.sampled_from(["[]", "{}", "[1, 2]", "{a = 1}", "[true]", "{zzz = 1}"]),
)


@st.composite
def nested(draw: st.DrawFn) -> str:
    """A value nested 1 to 6,000 levels deep (arrays or inline tables)."""
    depth = draw(st.sampled_from([1, 2, 10, 500, 999, 1000, 1001, 3000, 6000]))
    inner = draw(scalars)
    if draw(st.booleans()):
        return "[" * depth + inner + "]" * depth
    return "{a = " * depth + inner + "}" * depth


values = st.one_of(scalars, scalars, scalars, nested())

TRAIN_KEYS = [
    "lr", "steps", "epochs", "batch_size", "margin", "weight_decay", "eval_every", "patience",
    "dev_queries", "dev_depth", "candidate_depth", "checkpoint_every", "grad_clip", "seed",
    "list_size", "log_grad_norm", "eval_at_start", "model_config", "model", "loss", "dataset",
    "regularizer", "stepz",
]  # fmt: skip


def _toml_line(key: str, value: str) -> str:
    return f"{key} = {value}"


def _check_train(cfg: TrainConfig) -> None:
    """Every setting of an accepted config is a valid one."""
    for name in ("lr", "margin", "weight_decay", "epochs", "grad_clip"):
        v = getattr(cfg, name)
        if v is None:
            continue
        assert isinstance(v, numbers.Real) and not isinstance(v, bool), (name, v)
        assert math.isfinite(v), (name, v)
    for name in ("steps", "batch_size", "eval_every", "patience", "dev_queries", "dev_depth",
                 "candidate_depth", "checkpoint_every", "list_size", "seed"):  # fmt: skip
        v = getattr(cfg, name)
        assert isinstance(v, int) and not isinstance(v, bool), (name, v)
        assert 0 <= v < 2**32, (name, v)
    assert isinstance(cfg.model_config, dict)


@FUZZ
@given(
    st.lists(st.tuples(st.sampled_from(TRAIN_KEYS), values), min_size=1, max_size=4),
    st.sampled_from(["[train]\n", "", "train = 5\n", "[train]\n[train.x]\n"]),
)
def test_fuzz_train_config(tmp_path: Path, settings: list, header: str) -> None:
    path = fresh(tmp_path) / "train.toml"
    seen: dict[str, str] = dict(settings)  # a key once (a repeat is a TOML error anyway)
    body = "\n".join(_toml_line(k, v) for k, v in seen.items())
    path.write_text(header + body + "\n", encoding="utf-8")
    try:
        cfg = load_config(path)
    except ValueError as exc:
        assert str(path) in str(exc), exc
        event("outcome: refused")
        return
    event("outcome: read")
    _check_train(cfg)


PLAN_KEYS = ["steps", "seeds", "models", "lambda_", "mu", "tune_grid", "threads", "n_train",
             "lr", "batch_size", "plan", "zzz"]  # fmt: skip


@FUZZ
@given(
    st.sampled_from(["rosset2019", "rennings-augment", "liu-smooth"]),
    st.lists(st.tuples(st.sampled_from(PLAN_KEYS), values), min_size=1, max_size=3),
    st.booleans(),
)
def test_fuzz_experiment_plan(tmp_path: Path, name: str, settings: list, table: bool) -> None:
    """The plan a config file gives (read as the command reads it) is built and checked, or
    refused with a ValueError (or KeyError for an unknown key) naming the setting. (Counts such
    as ``steps = -1`` pass the plan and are refused when the runner builds each unit's
    training config, before any work: the error corpus runs those through the command.)"""
    from axiomatic.experiments.engine import get_experiment

    path = fresh(tmp_path) / "plan.toml"
    seen: dict[str, str] = dict(settings)
    body = "\n".join(_toml_line(k, v) for k, v in seen.items())
    path.write_text(("[plan]\n" if table else "") + body + "\n", encoding="utf-8")
    try:
        data = read_toml(path)
        plan = data.get("plan", {}) if table else data
        if not isinstance(plan, dict):
            raise ValueError("not a table")  # the command refuses it (tests/cli corpus)
        made = get_experiment(name).plan(quick=True, **plan)
    except (ValueError, KeyError) as exc:
        event(f"outcome: refused ({type(exc).__name__})")
        return
    event("outcome: read")
    for key, v in made.to_dict().items():
        for x in v if isinstance(v, (list, tuple)) else [v]:
            if isinstance(x, float):
                assert math.isfinite(x), (key, v)
            if isinstance(x, int) and not isinstance(x, bool):  # ranges: when a unit's
                assert -(2**63) <= x < 2**63, (key, v)  # TrainConfig is built (before work)


DESCRIPTOR_KEYS = ["rel_threshold", "language", "doc_language", "name", "queries", "qrels",
                   "zzz"]  # fmt: skip


@FUZZ
@given(st.lists(st.tuples(st.sampled_from(DESCRIPTOR_KEYS), values), min_size=1, max_size=3))
def test_fuzz_descriptor(tmp_path: Path, settings: list) -> None:
    from axiomatic.data.descriptor import load_descriptor

    folder = fresh(tmp_path)
    (folder / "t.tsv").write_text("1\tcats\n", encoding="utf-8")
    (folder / "d.tsv").write_text("d1\tcats purr\n", encoding="utf-8")
    (folder / "q.txt").write_text("1 0 d1 1\n", encoding="utf-8")
    files = {"queries": '"t.tsv"', "documents": '"d.tsv"', "qrels": '"q.txt"'}
    seen: dict[str, str] = {**files, **dict(settings)}
    path = folder / "my.toml"
    body = "\n".join(_toml_line(k, v) for k, v in seen.items())
    path.write_text("[dataset]\n" + body + "\n", encoding="utf-8")
    try:
        ds = load_descriptor(path)
    except (DataError, FileNotFoundError) as exc:
        assert str(path) in str(exc) or "t.tsv" in str(exc) or "q.txt" in str(exc), exc
        event("outcome: refused")
        return
    event("outcome: read")
    t = ds.rel_threshold
    assert isinstance(t, int) and not isinstance(t, bool) and 1 <= t < 2**31, t


@pytest.mark.parametrize("depth", [999, 1000, 6000])
def test_deep_nesting_at_the_recursion_limit(tmp_path: Path, depth: int) -> None:
    """Around the interpreter's recursion limit, where tomllib gives out: read or refused."""
    path = tmp_path / "train.toml"
    path.write_text("[train]\nx = " + "[" * depth + "]" * depth + "\n", encoding="utf-8")
    with pytest.raises(ValueError, match=str(path)):
        load_config(path)
