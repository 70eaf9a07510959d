"""A resumed training run never pairs old weights with other data, and it records
what an uninterrupted run would.

* the checkpoint records a fingerprint of the training pairs and texts, the dev data and the
  vocabulary; a resume on changed data is refused naming the field (``--no-resume`` to redo);
* weights that do not fit the model (another vocabulary size) are a message, not a RuntimeError;
* the loss strategy's counters (ACRank's augmentation stats) are restored on resume;
* a saved tokenizer does not carry the runtime truncation state of the last call.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
import torch
from training_helpers import TinyRanker, make_toy_dataset
from typer.testing import CliRunner

from axiomatic.data.records import Document
from axiomatic.training.config import TrainConfig
from axiomatic.training.trainer import Trainer

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "cli"))
from test_cli_own_collection import _collection  # the CLI tests' descriptor collection


def _cfg(**kw) -> TrainConfig:
    base = {
        "batch_size": 4,
        "steps": 4,
        "dev_queries": 0,
        "eval_every": 2,
        "checkpoint_every": 2,
        "lr": 1e-2,
    }
    return TrainConfig(**{**base, **kw})


def _train_cli(desc: Path, out: Path):
    from axiomatic.cli.main import app

    args = ["train", "-d", str(desc), "-m", "knrm", "--steps", "3", "--batch-size", "2"]
    return CliRunner().invoke(app, [*args, "--threads", "1", "-o", str(out)])


def test_cli_train_refuses_to_resume_after_a_passage_changed(tmp_path) -> None:
    desc = _collection(tmp_path)
    out = tmp_path / "model"
    res = _train_cli(desc, out)
    assert res.exit_code == 0, res.output
    weights = (out / "model" / "model.safetensors").read_bytes()
    vocab = (out / "model" / "vocab.json").read_text()
    passages = tmp_path / "passages.jsonl"
    passages.write_text(passages.read_text().replace("balances when it", "wobbles when it"))
    res = _train_cli(desc, out)
    assert res.exit_code == 2, res.output
    errors = [ln for ln in res.output.splitlines() if ln.startswith("error:")]
    assert len(errors) == 1, res.output
    assert "trained on other data" in errors[0] and "--no-resume" in errors[0]
    assert "training texts" in errors[0] and "vocabulary" in errors[0]
    # the model folder is as the first run left it (not re-labelled with the new vocabulary)
    assert (out / "model" / "model.safetensors").read_bytes() == weights
    assert (out / "model" / "vocab.json").read_text() == vocab
    args = ["train", "-d", str(desc), "-m", "knrm", "--steps", "3", "--batch-size", "2"]
    from axiomatic.cli.main import app

    res = CliRunner().invoke(app, [*args, "--threads", "1", "-o", str(out), "--no-resume"])
    assert res.exit_code == 0, res.output
    assert "wobbles" in (out / "model" / "vocab.json").read_text()


def _other_text(ds) -> None:
    doc_id = next(iter(ds.documents))
    ds.documents[doc_id] = Document(doc_id, "entirely different words here")


def _other_labels(ds) -> None:
    q = next(iter(ds.qrels))
    ds.qrels[q] = {d: 0 for d in ds.qrels[q]}


@pytest.mark.parametrize(
    ("change", "field"), [(_other_text, "training texts"), (_other_labels, "training pairs")]
)
def test_resume_compares_the_data_fingerprint(tmp_path, change, field) -> None:
    Trainer(TinyRanker(), _cfg(), tmp_path, make_toy_dataset(6, 4)).fit()
    changed = make_toy_dataset(6, 4)
    change(changed)
    with pytest.raises(ValueError, match=rf"other data.*differs in: [^)]*{field}.*--no-resume"):
        Trainer(TinyRanker(), _cfg(), tmp_path, changed).fit()
    # equal data (new objects) resumes: the finished run is returned as it was
    assert Trainer(TinyRanker(), _cfg(), tmp_path, make_toy_dataset(6, 4)).fit().steps == 4


def test_weights_of_another_vocabulary_size_are_a_message(tmp_path) -> None:
    from axiomatic.models import build_model

    texts = ["neural ranking model", "kernel pooling of word signals", "solar wind energy"]
    ds = make_toy_dataset(6, 4)
    kw = {"embeddings": "random", "seed": 0}
    Trainer(build_model("knrm", texts=texts, **kw), _cfg(steps=2), tmp_path, ds).fit()
    ckpt = tmp_path / "checkpoint.pt"
    state = torch.load(ckpt, weights_only=True)
    state.pop("data", None)  # written before fingerprints were recorded: only the shapes can tell
    torch.save(state, ckpt)
    bigger = build_model("knrm", texts=[*texts, "more words than before"], **kw)
    with pytest.raises(ValueError, match=r"do not fit this model.*--no-resume"):
        Trainer(bigger, _cfg(steps=2), tmp_path, ds).fit()


def test_resumed_acrank_run_reports_the_uninterrupted_augmentation_counts(tmp_path) -> None:
    ds = make_toy_dataset(8, 5)
    cfg = _cfg(
        loss="contrastive",
        augmentation="acrank(rule='TFC-A&D', p=0.5, negatives=2)",
        steps=6,
    )
    whole = Trainer(TinyRanker(seed=1), cfg, tmp_path / "a", ds)
    whole.fit()

    class Kill(Exception):
        pass

    def kill(step, _record):
        if step == 5:  # after the checkpoint of step 4
            raise Kill

    with pytest.raises(Kill):
        Trainer(TinyRanker(seed=1), cfg, tmp_path / "b", ds, callback=kill).fit()
    resumed = Trainer(TinyRanker(seed=1), cfg, tmp_path / "b", ds)
    resumed.fit()
    assert resumed.strategy.stats() == whole.strategy.stats()
    assert whole.strategy.stats()["documents"] == 6 * cfg.batch_size


def test_saved_tokenizer_has_no_runtime_truncation_state(tmp_path) -> None:
    from axiomatic.models import build_model, load_model, save_model

    model = build_model("cross-encoder", max_length=32, seed=0)
    model.tokenizer(["a query"], ["a document"], max_length=16, truncation="longest_first")
    assert model.tokenizer.backend_tokenizer.truncation is not None  # the last call's state
    save_model(model, tmp_path / "ce")
    saved = json.loads((tmp_path / "ce" / "tokenizer" / "tokenizer.json").read_text())
    assert saved["truncation"] is None and saved["padding"] is None
    assert not [p for p in (tmp_path / "ce").rglob("*") if p.name.endswith(".tmp")]
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".tokenizer")]
    # encodings are unchanged: every call sets the truncation it asks for
    q, d = ["a query"] * 2, ["a long document " * 20, "short"]
    again = load_model(tmp_path / "ce")
    a, b = model.encode_batch(q, d), again.encode_batch(q, d)
    assert all(torch.equal(a[k], b[k]) for k in a)


def test_training_summary_is_written_atomically(tmp_path, monkeypatch) -> None:
    import axiomatic._atomic as atomic

    calls: list[Path] = []
    real = atomic.atomic_path

    def spy(path):
        calls.append(Path(path))
        return real(path)

    monkeypatch.setattr(atomic, "atomic_path", spy)
    Trainer(TinyRanker(), _cfg(steps=2), tmp_path, make_toy_dataset(4, 3)).fit()
    assert tmp_path / "summary.md" in calls
    assert (tmp_path / "summary.md").read_text().startswith("# Training run")


def test_a_refused_resume_leaves_the_folder_as_it_was(tmp_path) -> None:
    """``train --lr 0.5`` over a folder trained at another lr is refused before anything is
    written: its config.toml still describes the weights beside it."""
    from axiomatic.cli.main import app

    out = tmp_path / "tr"
    args = ["train", "-d", "demo", "--steps", "2", "--batch-size", "2", "--threads", "1"]
    res = CliRunner().invoke(app, [*args, "--lr", "0.001", "-o", str(out)])
    assert res.exit_code == 0, res.output
    before = {p: p.read_bytes() for p in sorted(out.rglob("*")) if p.is_file()}
    res = CliRunner().invoke(app, [*args, "--lr", "0.5", "-o", str(out)])
    assert res.exit_code == 2, res.output
    errors = [ln for ln in res.output.splitlines() if ln.startswith("error:")]
    assert len(errors) == 1 and "another configuration (differs in lr)" in errors[0], res.output
    after = {p: p.read_bytes() for p in sorted(out.rglob("*")) if p.is_file()}
    assert after == before
    assert "lr = 0.001" in (out / "config.toml").read_text()


def test_train_refuses_another_setting_before_loading_and_reuses_a_finished_run(
    tmp_path, monkeypatch
) -> None:
    """Over a finished run, ``train`` with another --regularizer is refused before any data is
    loaded, and with the same settings on the same data the run is reused (said so, its files
    unchanged) without building the index, candidates or model (what took a minute on
    scifact); the data is still compared (the test above: an edited passage is refused)."""
    import axiomatic.data.catalog as catalog
    import axiomatic.training.run as run
    from axiomatic.cli.main import app

    out = tmp_path / "tr"
    args = ["train", "-d", "demo", "--steps", "2", "--batch-size", "2", "--threads", "1"]
    res = CliRunner().invoke(app, [*args, "-o", str(out)])
    assert res.exit_code == 0, res.output
    before = {p: p.read_bytes() for p in sorted(out.rglob("*")) if p.is_file()}

    def forbidden(*a, **k):  # type: ignore[no-untyped-def]
        raise AssertionError("expensive work was done")

    real_load = catalog.load_dataset
    monkeypatch.setattr(catalog, "load_dataset", forbidden)
    res = CliRunner().invoke(app, [*args, "--regularizer", "ar", "-o", str(out)])
    assert res.exit_code == 2, res.output
    errors = [ln for ln in res.output.splitlines() if ln.startswith("error:")]
    assert len(errors) == 1 and "differs in regularizer" in errors[0], res.output
    monkeypatch.setattr(catalog, "load_dataset", real_load)
    monkeypatch.setattr(run, "build_model_for", forbidden)
    monkeypatch.setattr(run, "Trainer", forbidden)
    res = CliRunner().invoke(app, [*args, "-o", str(out)])
    assert res.exit_code == 0, res.output
    text = " ".join(res.output.split())
    assert "reused:" in text and "2 steps" in text and "done:" not in text
    after = {p: p.read_bytes() for p in sorted(out.rglob("*")) if p.is_file()}
    assert after == before
