"""A model folder cannot supply a token pattern that backtracks catastrophically."""

from __future__ import annotations

import json
import time

import pytest
from typer.testing import CliRunner

from axiomatic.models import build_model, load_model, save_model
from axiomatic.models.vocab import check_token_pattern
from axiomatic.text.analyzer import DEFAULT_TOKEN_PATTERN, THESIS_TOKEN_PATTERN

EVIL = "(a+)+$"
TEXTS = ["the cat sat on the mat", "dogs chase cats", "kernel pooling counts soft matches"]


@pytest.mark.parametrize(
    "pattern",
    [DEFAULT_TOKEN_PATTERN, THESIS_TOKEN_PATTERN, r"[^\W_]+", r"(?u)\b\w\w+\b", r"\S+"],
)
def test_known_patterns_are_accepted(pattern: str) -> None:
    assert check_token_pattern(pattern) == pattern


@pytest.mark.parametrize(
    ("pattern", "why"),
    [
        (EVIL, "is refused: a model folder may only use a known tokenizer pattern"),
        (r"(\w+\s?)*$", "is refused"),
        (r"(a*)*b", "is refused"),
        (r"(a|aa)+$", "is refused"),
        (r"(\w)\1+", "is refused"),
        (r"\w*\w*\w*\w*x", "is refused"),
        # the three patterns the structural check let through
        (r"[\w ]*[\w ]*!", "is refused"),
        (r"[\w ]+[\w ]+!", "is refused"),
        (r"\w*[\w ]*!", "is refused"),
        (r"[a-z]{2,5}", "is refused"),
        ("a" * 300, "is refused"),
        ("(", "is refused"),
        (123, "must be a string"),
    ],
)
def test_unknown_or_broken_patterns_are_refused(pattern, why: str) -> None:
    with pytest.raises(ValueError, match=why):
        check_token_pattern(pattern, "m/vocab.json")


def test_the_refused_patterns_are_slow_where_the_known_ones_are_not() -> None:
    """Why the allow-list: one of the refused patterns backtracks on a 1,500-character text
    (quadratic or worse), a known one tokenizes it at once."""
    import re

    text = "a" * 1500
    t0 = time.perf_counter()
    re.findall(r"[\w ]*[\w ]*!", text)
    slow = time.perf_counter() - t0
    t0 = time.perf_counter()
    re.findall(DEFAULT_TOKEN_PATTERN, text)
    fast = time.perf_counter() - t0
    assert slow > 20 * fast


def _evil_folder(tmp_path, where: str):
    model = build_model("knrm", texts=TEXTS, seed=0, embedding_dim=8, embeddings="random")
    folder = save_model(model, tmp_path / "knrm")
    path = folder / where
    data = json.loads(path.read_text(encoding="utf-8"))
    data["analyzer"]["token_pattern"] = EVIL
    path.write_text(json.dumps(data), encoding="utf-8")
    return folder


@pytest.mark.parametrize("where", ["vocab.json", "config.json"])
def test_loading_a_model_with_an_evil_pattern_fails_fast(tmp_path, where: str) -> None:
    folder = _evil_folder(tmp_path, where)
    t0 = time.perf_counter()
    with pytest.raises(
        ValueError, match=rf"{where}: analyzer: token_pattern '\(a\+\)\+\$' is refused"
    ):
        load_model(folder)
    assert time.perf_counter() - t0 < 5


def test_cli_reports_the_evil_pattern_as_an_error(tmp_path) -> None:
    from axiomatic.cli.main import app

    folder = _evil_folder(tmp_path, "vocab.json")
    res = CliRunner().invoke(
        app, ["rank", "-d", "demo", "-r", f"model:{folder}", "-o", str(tmp_path / "r.trec")]
    )
    assert res.exit_code == 2, res.output
    assert "is refused" in res.output and "Traceback" not in res.output


def test_a_hugging_face_folder_with_a_code_pickle_is_a_clean_refusal(tmp_path) -> None:
    """A pickled ``pytorch_model.bin`` that would run code is refused with one
    ``error:`` line (exit 2), never executed and never an internal error."""
    import os
    import pickle
    import shutil

    from axiomatic.cli.main import app
    from axiomatic.models.hf_loader import minilm_path

    src = minilm_path()
    folder = tmp_path / "evil"
    folder.mkdir()
    for f in os.listdir(src):
        p = os.path.join(src, f)
        if os.path.isfile(p) and not f.endswith((".safetensors", ".bin")):
            shutil.copy(p, folder / f)
    marker = tmp_path / "pwned"

    class Evil:
        def __reduce__(self):
            return (os.system, (f"touch {marker}",))

    with open(folder / "pytorch_model.bin", "wb") as fh:
        pickle.dump({"w": Evil()}, fh)
    res = CliRunner().invoke(
        app, ["rank", "-d", "demo", "-r", f"hf:{folder}", "-o", str(tmp_path / "r.trec")]
    )
    assert res.exit_code == 2, res.output
    assert "refuses to load" in res.output and "internal error" not in res.output
    assert not marker.exists()
