"""Models from outside the package: the public decorator, ``MODELS.register`` with a class and
the ``axiomatic.models`` entry point group all reach ``build_model``, ``axiomatic models``,
``axiomatic train``, ``save_model`` / ``load_model`` and the ranker ``model:PATH``."""

from __future__ import annotations

import importlib
import json
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest
import torch
from typer.testing import CliRunner

import axiomatic as ax
from axiomatic.cli.main import app
from axiomatic.data.trec import read_run
from axiomatic.models import NeuralRankingModel, build_model, load_model, save_model
from axiomatic.models.io import MODELS, is_word_model, list_models, register_model
from axiomatic.models.scoring import score_candidates

SRC = Path(__file__).resolve().parents[2] / "src"

# a third-party module: a word-level model scoring w * sum over query words of the best cosine
# with a document word, plus b; every instance is kept, so a test can reach the trained one
TOY = '''
import torch
from torch import nn

from axiomatic.models.word import WordRankingModel, cosine_matrix

BUILT = []


class ToyModel(WordRankingModel):
    """A toy: w times the summed best cosine of each query word with a document word, plus b."""

    def __init__(
        self,
        vocab,
        embedding_dim: int = 16,
        max_query_len: int = 8,
        max_doc_len: int = 64,
        freeze_embeddings: bool = False,
        embeddings=None,
        scale: float = 1.0,
    ):
        super().__init__(
            vocab, embedding_dim, max_query_len, max_doc_len, freeze_embeddings, embeddings
        )
        self.w = nn.Parameter(torch.tensor(float(scale)))
        self.b = nn.Parameter(torch.zeros(()))
        self._store(scale=float(scale))
        BUILT.append(self)

    def forward(self, query_ids, doc_ids):
        q, _ = self.embed(query_ids)
        d, _ = self.embed(doc_ids)
        return self.w * cosine_matrix(q, d).max(-1).values.sum(-1) + self.b
'''

DECORATED = TOY.replace(
    "from axiomatic.models.word import",
    "from axiomatic.models import register_model\nfrom axiomatic.models.word import",
).replace(
    "\nclass ToyModel",
    '\n@register_model("toy", aliases=("toy-model",), citation="Doe et al., SIGIR 2031")'
    "\nclass ToyModel",
)

# a model without vocabulary or tokenizer: hashed words, one bag per text, a bilinear score
HASHED = '''
import zlib

import torch
from torch import nn

from axiomatic.models.base import NeuralRankingModel


class HashedModel(NeuralRankingModel):
    """Hashed bags of words: the dot product of the projected query and document bags."""

    def __init__(self, buckets: int = 32, dim: int = 4):
        super().__init__()
        self.buckets = int(buckets)
        self.proj = nn.Linear(self.buckets, int(dim), bias=False)
        self.config = {"buckets": self.buckets, "dim": int(dim)}

    def _bags(self, texts):
        bags = torch.zeros(len(texts), self.buckets)
        for i, text in enumerate(texts):
            for word in text.lower().split():
                bags[i, zlib.crc32(word.encode()) % self.buckets] += 1.0
        return bags

    def encode_batch(self, queries, documents):
        return {"q": self._bags(queries), "d": self._bags(documents)}

    def forward(self, q, d):
        return (self.proj(q) * self.proj(d)).sum(-1)
'''


def _import(tmp_path: Path, monkeypatch, name: str, source: str):
    (tmp_path / f"{name}.py").write_text(source, encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, name, raising=False)
    return importlib.import_module(name)


@pytest.fixture
def toy(tmp_path: Path, monkeypatch):
    """The decorated toy imported from tmp_path (not a module of the package)."""
    module = _import(tmp_path, monkeypatch, "toy_model_plugin", DECORATED)
    yield module
    MODELS.unregister("toy")
    sys.modules.pop("toy_model_plugin", None)


def _run_scores(path: Path) -> dict[str, dict[str, float]]:
    return {q: dict(r) for q, r in read_run(path).items()}


def _model_scores(model: NeuralRankingModel, ds) -> dict[str, dict[str, float]]:
    """The model's scores of every query's candidates, through the one scoring path."""
    return {q: dict(s) for q, s in score_candidates(model, ds).items()}


def test_a_decorated_model_trains_saves_loads_and_ranks_from_the_cli(tmp_path: Path, toy) -> None:
    assert MODELS.resolve("Toy_Model") == "toy" and toy.ToyModel.model_type == "toy"
    assert "toy" in list_models() and is_word_model("toy")
    res = CliRunner().invoke(app, ["models", "--format", "json"])
    assert res.exit_code == 0, res.output
    rows = {r["name"]: r for r in json.loads(res.output)}
    assert rows["toy"]["what"].startswith("A toy: w times the summed best cosine")
    assert "scale=1.0" in rows["toy"]["defaults"]
    assert rows["toy"]["cite"] == toy.ToyModel.citation == "Doe et al., SIGIR 2031"
    assert rows["knrm"]["cite"] == "Xiong et al., SIGIR 2017"

    config = tmp_path / "train.toml"
    config.write_text(
        '[train]\ndataset = "demo"\nmodel = "toy"\nsteps = 2\nbatch_size = 2\n'
        "model_config = { scale = 2.0 }\n",
        encoding="utf-8",
    )
    out = tmp_path / "run"
    toy.BUILT.clear()
    res = CliRunner().invoke(app, ["train", "-c", str(config), "--threads", "1", "-o", str(out)])
    assert res.exit_code == 0, res.output
    assert len(toy.BUILT) == 1  # the model the command built and trained
    trained = toy.BUILT[0]
    meta = json.loads((out / "model" / "config.json").read_text(encoding="utf-8"))
    assert meta["model_type"] == "toy" and meta["config"]["scale"] == 2.0
    assert meta["vocabulary"] == "vocab.json" and meta["tokenizer"] is None

    ds = ax.load_dataset("demo")
    fresh = build_model("toy", vocab=trained.vocab, embeddings="random", scale=2.0)
    assert fresh.w.item() == 2.0 and trained.w.item() != 2.0  # training moved w

    reloaded = load_model(out / "model")
    assert type(reloaded) is toy.ToyModel and reloaded.vocab.tokens == trained.vocab.tokens
    for key, value in trained.state_dict().items():
        assert torch.equal(reloaded.state_dict()[key], value), key
    expected = _model_scores(trained, ds)
    assert _model_scores(reloaded, ds) == expected

    run_file = tmp_path / "toy.trec"
    spec = f"model:{out / 'model'}"
    res = CliRunner().invoke(app, ["rank", "-d", "demo", "-r", spec, "-o", str(run_file)])
    assert res.exit_code == 0, res.output
    got = _run_scores(run_file)
    assert got.keys() == expected.keys()
    for q, scores in expected.items():
        assert got[q] == pytest.approx(scores, rel=1e-6, abs=1e-6), q


def test_a_model_registered_by_class_builds_saves_and_loads_without_a_vocabulary(
    tmp_path: Path, monkeypatch
) -> None:
    """``MODELS.register(name, cls)``: a model built from its config alone (no vocabulary, no
    tokenizer, and a constructor without ``pretrained`` / ``tokenizer_path``)."""
    module = _import(tmp_path, monkeypatch, "hashed_model_plugin", HASHED)
    MODELS.register("hashed", module.HashedModel)
    try:
        assert module.HashedModel.model_type == "hashed" and not is_word_model("hashed")
        model = build_model("hashed", seed=3, buckets=16)
        assert (model.buckets, model.build_info) == (16, {"seed": 3})
        with torch.random.fork_rng(devices=[]):
            torch.manual_seed(3)
            reference = torch.nn.Linear(16, 4, bias=False).weight
        assert torch.equal(model.proj.weight, reference)  # seeded like the built-in models
        folder = save_model(model, tmp_path / "hashed")
        meta = json.loads((folder / "config.json").read_text(encoding="utf-8"))
        assert (meta["model_type"], meta["vocabulary"], meta["tokenizer"]) == ("hashed", None, None)
        reloaded = load_model(folder)
        assert type(reloaded) is module.HashedModel
        assert torch.equal(reloaded.proj.weight, model.proj.weight)
        ds = ax.load_dataset("demo")
        expected = _model_scores(model, ds)
        assert _model_scores(reloaded, ds) == expected
        run_file = tmp_path / "hashed.trec"
        res = CliRunner().invoke(
            app, ["rank", "-d", "demo", "-r", f"model:{folder}", "-o", str(run_file)]
        )
        assert res.exit_code == 0, res.output
        got = _run_scores(run_file)
        for q, scores in expected.items():
            assert got[q] == pytest.approx(scores, rel=1e-6, abs=1e-6), q
        with pytest.raises(ValueError, match=r"model_config: HashedModel has no option 'bucket'"):
            build_model("hashed", bucket=8)
    finally:
        MODELS.unregister("hashed")


def test_registration_refusals(tmp_path: Path, monkeypatch) -> None:
    module = _import(tmp_path, monkeypatch, "hashed_model_plugin", HASHED)
    with pytest.raises(TypeError, match=r"model 'x': expected a NeuralRankingModel subclass"):
        MODELS.register("x", object)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="model 'knrm' is registered twice"):
        register_model("knrm")(module.HashedModel)
    assert module.HashedModel.model_type == "base"  # a refused registration names nothing
    with pytest.raises(TypeError, match=r"model 'y': citation must be a string"):
        register_model("y", citation=2031)  # type: ignore[arg-type]

    class Named(module.HashedModel):
        model_type = "named"

    with pytest.raises(ValueError, match=r"says model_type = 'named'; register it under that"):
        register_model("other")(Named)

    class Unregistered(module.HashedModel):
        pass

    Unregistered.model_type = "knrm"
    with pytest.raises(ValueError, match=r"model_type 'knrm' of Unregistered names KNRM"):
        save_model(Unregistered(), tmp_path / "m")
    assert not (tmp_path / "m").exists()


def test_an_entry_point_model_is_listed_trained_and_ranked_in_a_fresh_process(
    tmp_path: Path,
) -> None:
    """An installed package's ``axiomatic.models`` entry point naming a plain class (not
    decorated): nothing imports it before the commands look the name up."""
    (tmp_path / "toymodplug.py").write_text(TOY, encoding="utf-8")
    info = tmp_path / "toymodplug-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: toymodplug\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text("[axiomatic.models]\ntoy-ep = toymodplug:ToyModel\n")
    out, run_file = tmp_path / "run", tmp_path / "toy.trec"
    driver = textwrap.dedent(f"""
        import json, sys

        from axiomatic.cli.main import app

        def cli(*args):
            try:
                app(list(args), standalone_mode=False)
            except SystemExit as exc:
                assert not exc.code, exc.code

        assert "toymodplug" not in sys.modules
        cli("models", "--format", "json")
        cli("train", "-d", "demo", "-m", "Toy_EP", "--steps", "2", "--batch-size", "2",
            "--threads", "1", "-o", {str(out)!r})
        cli("rank", "-d", "demo", "-r", "model:" + {str(out / "model")!r}, "-o", {str(run_file)!r})

        import axiomatic as ax
        import toymodplug
        from axiomatic.models.scoring import score_candidates

        assert len(toymodplug.BUILT) == 2  # trained, then loaded by model:PATH
        trained = toymodplug.BUILT[0]
        scores = score_candidates(trained, ax.load_dataset("demo"))
        print("SCORES=" + json.dumps({{q: dict(s) for q, s in scores.items()}}))
    """)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), str(SRC)])}
    env["AXIOMATIC_NO_PROGRESS"] = "1"
    done = subprocess.run(
        [sys.executable, "-c", driver], env=env, capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 0, done.stdout + done.stderr
    listed = json.loads(done.stdout[done.stdout.index("[") : done.stdout.index("]\n") + 1])
    assert "toy-ep" in [r["name"] for r in listed]
    meta = json.loads((out / "model" / "config.json").read_text(encoding="utf-8"))
    assert meta["model_type"] == "toy-ep"
    line = next(ln for ln in done.stdout.splitlines() if ln.startswith("SCORES="))
    expected = json.loads(line.removeprefix("SCORES="))
    got = _run_scores(run_file)
    assert got.keys() == expected.keys()
    for q, scores in expected.items():
        assert got[q] == pytest.approx(scores, rel=1e-6, abs=1e-6), q
        assert np.isfinite(list(scores.values())).all()


def test_the_documented_model_example_registers_builds_and_round_trips(tmp_path: Path) -> None:
    """docs/models.md, "A model of your own", runs as written."""
    text = (SRC.parent / "docs" / "models.md").read_text(encoding="utf-8")
    section = text.split("## A model of your own", 1)[1]
    block = re.search(r"```python\n(.*?)```", section, re.S)
    assert block is not None, "docs/models.md lost its registration example"
    namespace: dict = {}
    exec(compile(block.group(1), "docs/models.md", "exec"), namespace)
    try:
        ds = ax.load_dataset("demo")
        texts = [d.text for d in ds.documents.values()]
        model = build_model("best-match", texts=texts, embeddings="random", seed=1, scale=2.0)
        assert type(model) is namespace["BestMatch"] and model.model_type == "best-match"
        assert model.config["scale"] == 2.0 and model.w.item() == 2.0
        reloaded = load_model(save_model(model, tmp_path / "bm"))
        assert type(reloaded) is namespace["BestMatch"] and reloaded.config == model.config
        assert _model_scores(reloaded, ds) == _model_scores(model, ds)
        rows = {r["name"]: r for r in json.loads(_cli_ok(["models", "--format", "json"]))}
        assert rows["best-match"]["what"] == (
            "w times the summed best cosine of each query word with a document word, plus b"
        )
    finally:
        MODELS.unregister("best-match")


def _cli_ok(args: list[str]) -> str:
    res = CliRunner().invoke(app, args)
    assert res.exit_code == 0, res.output
    return res.output
