"""Any model a researcher already has (local HF / sentence-transformers folders,
the packaged MiniLM by a short name), and names chosen with NAME=SPEC."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from axiomatic.cli.main import app
from axiomatic.data.trec import read_run

runner = CliRunner()


def _invoke(args: list[str]):
    res = runner.invoke(app, args)
    assert res.exception is None or isinstance(res.exception, SystemExit), res.output
    assert "Traceback" not in res.output, res.output
    return res


def _minilm() -> Path:
    from axiomatic.models.hf_loader import minilm_path

    return minilm_path()


@pytest.fixture(scope="module")
def tiny_cross_encoder(tmp_path_factory) -> Path:
    """A 1-layer BERT cross-encoder saved as a Hugging Face folder (random head, seeded)."""
    import torch
    from transformers import AutoTokenizer, BertConfig, BertForSequenceClassification

    out = tmp_path_factory.mktemp("ce")
    torch.manual_seed(0)
    cfg = BertConfig(
        vocab_size=30522,
        hidden_size=32,
        num_hidden_layers=1,
        num_attention_heads=2,
        intermediate_size=64,
        num_labels=1,
    )
    BertForSequenceClassification(cfg).save_pretrained(out)
    AutoTokenizer.from_pretrained(str(_minilm()), local_files_only=True).save_pretrained(out)
    return out


def test_minilm_short_name_equals_the_sentence_transformers_folder(tmp_path: Path) -> None:
    a, b = tmp_path / "a.trec", tmp_path / "b.trec"
    res = _invoke(["rank", "-d", "demo", "-r", "minilm", "-o", str(a)])
    assert res.exit_code == 0, res.output
    res = _invoke(["rank", "-d", "demo", "-r", f"mini=st:{_minilm()}", "-o", str(b)])
    assert res.exit_code == 0, res.output
    ra, rb = read_run(a), read_run(b)
    assert ra.keys() == rb.keys()
    for q in ra:
        for d, s in ra[q].items():
            assert rb[q][d] == pytest.approx(s, abs=1e-5)  # both float32
    assert {line.split()[5] for line in b.read_text().splitlines()} == {"mini"}


def test_cross_encoder_folder_and_detection(tmp_path: Path, tiny_cross_encoder: Path) -> None:
    for spec in (f"ce=cross-encoder:{tiny_cross_encoder}", f"ce=model:{tiny_cross_encoder}"):
        out = tmp_path / "ce.trec"
        res = _invoke(["rank", "-d", "demo", "-r", spec, "-o", str(out)])
        assert res.exit_code == 0, res.output
        assert {line.split()[5] for line in out.read_text().splitlines()} == {"ce"}
    from axiomatic.models.hf import HFBiEncoderRanker, HFCrossEncoderRanker, detect_hf_kind

    assert detect_hf_kind(tiny_cross_encoder) == "cross-encoder"
    assert detect_hf_kind(_minilm()) == "bi-encoder"
    from axiomatic import demo_dataset, make_ranker

    ds = demo_dataset()
    assert isinstance(make_ranker(f"hf:{tiny_cross_encoder}", ds), HFCrossEncoderRanker)
    assert isinstance(make_ranker(f"model:{_minilm()}", ds), HFBiEncoderRanker)


@pytest.mark.parametrize("kind", ["st", "cross-encoder", "hf", "model"])
def test_missing_model_folder_is_a_clear_error(tmp_path: Path, kind: str) -> None:
    res = _invoke(["rank", "-d", "demo", "-r", f"{kind}:{tmp_path / 'nope'}", "-o", "x.trec"])
    assert res.exit_code == 2
    assert "does not exist" in res.output and "nope" in res.output


def test_folder_without_config_is_a_clear_error(tmp_path: Path) -> None:
    (tmp_path / "weights.bin").write_bytes(b"")
    res = _invoke(["rank", "-d", "demo", "-r", f"st:{tmp_path}", "-o", str(tmp_path / "x")])
    assert res.exit_code == 2
    assert "no config.json" in res.output and "weights.bin" in res.output


def test_named_lexical_ranker_keeps_its_scores(tmp_path: Path) -> None:
    from axiomatic import demo_dataset, make_ranker

    ds = demo_dataset()
    named = make_ranker("tuned=bm25:k1=1.2", ds)
    plain = make_ranker("bm25:k1=1.2", ds)
    assert named.name == "tuned" and plain.name.startswith("BM25")
    q = next(iter(ds.iter_queries()))
    docs = [ds.documents[d] for d in ds.candidate_ids(q.query_id)]
    assert list(named.score(q, docs)) == list(plain.score(q, docs))


def test_trained_models_are_named_by_their_run_folder(tmp_path: Path) -> None:
    from axiomatic import demo_dataset, make_ranker
    from axiomatic.models import build_model, save_model

    ds = demo_dataset()
    for run in ("knrm-base", "knrm-ar"):
        model = build_model(
            "knrm",
            texts=[d.text for d in ds.documents.values()],
            embeddings="random",
            embedding_dim=8,
        )
        save_model(model, tmp_path / run / "model")
    names = {
        make_ranker(f"model:{tmp_path / r / 'model'}", ds).name for r in ("knrm-base", "knrm-ar")
    }
    assert names == {"knrm:knrm-base", "knrm:knrm-ar"}  # was knrm:model twice
    assert make_ranker(f"mine=model:{tmp_path / 'knrm-ar' / 'model'}", ds).name == "mine"
