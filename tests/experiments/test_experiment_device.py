"""The experiments score and diagnose their models where the trainer trains them.

A model built or loaded from disk starts on the CPU. On a lent H200 the compare-training run of
the cross-encoder start trained its 15 units on the GPU in ~4.5 minutes and then scored its test
sets on the CPU (SciFact's 30,000 pairs took two minutes per model) until the time ran out:
every model an experiment scores or diagnoses must go through ``on_device`` or
``load_model(..., device=...)``.
"""

from __future__ import annotations

import ast
from pathlib import Path

import torch

import axiomatic.experiments as experiments_pkg
from axiomatic.experiments import common

EXPERIMENTS = Path(experiments_pkg.__file__).parent


def _calls(tree: ast.AST, name: str) -> list[ast.Call]:
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            f = node.func
            called = f.attr if isinstance(f, ast.Attribute) else getattr(f, "id", None)
            if called == name:
                out.append(node)
    return out


def _parents(tree: ast.AST) -> dict[ast.AST, ast.AST]:
    return {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}


def test_on_device_moves_the_model_where_choose_device_auto_says(monkeypatch):
    asked = []

    def fake_choose(device=None):
        asked.append(device)
        return torch.device("cpu")

    monkeypatch.setattr("axiomatic.models.device.choose_device", fake_choose)
    net = torch.nn.Linear(2, 1)
    moved = []
    original = net.to

    def record_to(*args, **kwargs):
        moved.append(args)
        return original(*args, **kwargs)

    net.to = record_to  # type: ignore[method-assign]
    assert common.on_device(net) is net
    assert asked == ["auto"]
    assert moved == [(torch.device("cpu"),)]


def test_every_model_an_experiment_loads_is_put_on_the_experiment_device():
    files = sorted(EXPERIMENTS.rglob("*.py"))
    loads = 0
    for path in files:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for call in _calls(tree, "load_model"):
            loads += 1
            kwargs = {k.arg for k in call.keywords}
            assert "device" in kwargs or len(call.args) >= 2, (
                f"{path.name}:{call.lineno}: load_model(...) without device= leaves the model "
                "on the CPU; pass device='auto'"
            )
    assert loads >= 8  # the scan sees the experiments' loads


def test_compare_training_scores_and_diagnoses_built_starts_on_the_device():
    path = EXPERIMENTS / "compare_training" / "run.py"
    tree = ast.parse(path.read_text(encoding="utf-8"))
    parents = _parents(tree)
    funcs = {n.name: n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)}
    for name in ("_score_start", "_diagnose"):
        builds = _calls(funcs[name], "build_start")
        assert builds, name
        for call in builds:
            parent = parents[call]
            assert isinstance(parent, ast.Call) and getattr(parent.func, "id", "") == "on_device", (
                f"compare_training.{name}:{call.lineno}: the start is scored on the CPU"
            )
