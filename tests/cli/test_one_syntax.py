"""One syntax per argument: every command reads runs through one library function
(:func:`axiomatic.data.runs.read_runs`), rerank's base ranking is a library function the
Python API calls as the command does, seeds are refused below 0 alike, ``--dataset`` has no
default anywhere, tables come out through one ``--format`` option, and evaluate and diagnose
share ``--test`` and the depth warning."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from axiomatic.cli.main import app
from axiomatic.data.trec import read_run
from shared_data import require_collection

runner = CliRunner()


def _ok(args: list[str], **kw: object) -> str:
    """Standard output of a command that must succeed (notes go to standard error)."""
    res = runner.invoke(app, args, **kw)  # type: ignore[arg-type]
    assert res.exit_code == 0, (args, res.output)
    return res.stdout


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("runs")
    out = {"bm25": folder / "bm25.trec", "short": folder / "short.trec"}
    _ok(["rank", "-d", "demo", "-r", "bm25", "-o", str(out["bm25"])])
    _ok(["rank", "-d", "demo", "-r", "ql", "--depth", "3", "-o", str(out["short"])])
    return out


# -------------------------------------------------------------------------------- run syntax
def test_read_runs_is_the_one_reader_of_files_stdin_and_catalog_systems(runs) -> None:
    from axiomatic.data.runs import read_runs

    got = read_runs(
        [str(runs["bm25"]), "mine=-", f"x={runs['short']}"],
        stdin=io.StringIO(runs["short"].read_text()),
    )
    assert [(r.name, r.source) for r in got] == [
        ("BM25(k1=0.9,b=0.4)", str(runs["bm25"])),  # the tag
        ("mine", "-"),
        ("x", str(runs["short"])),
    ]
    assert got[0].run == read_run(runs["bm25"]) and got[1].run == got[2].run
    with pytest.raises(FileNotFoundError, match=r"--run 'nothere/x\.trec'.*catalog system"):
        read_runs(["nothere/x.trec"])


def test_catalog_systems_everywhere_explain_included(tmp_path: Path) -> None:
    require_collection("msmarco-passage-trecdl")
    from axiomatic.data.runs import read_runs

    (one,) = read_runs(["trec-dl-2019/splade-pp"])
    assert one.name == "trec-dl-2019/splade-pp" and one.is_catalog and one.path is None
    assert len(one.run) == 43
    out = _ok(
        ["explain", "-d", "trec-dl-2019/splade-pp", "--run", "trec-dl-2019/splade-pp",
         "--depth", "3", "--trees", "5", "--folds", "2", "--format", "json"]
    )  # fmt: skip
    (row,) = json.loads(out)
    assert row["system"] == "trec-dl-2019/splade-pp" and row["queries"] == 43
    assert row["pairs"] == 43 * 3  # all pairs of each query's top 3


def test_rerank_base_ranking_is_a_library_function_the_cli_calls(runs, tmp_path: Path) -> None:
    from axiomatic.data.catalog import load_dataset
    from axiomatic.diagnose.rerank import axiomatic_rerank, base_ranking
    from axiomatic.index.cache import dataset_index

    ds = load_dataset("demo")
    for base in ("ql", str(runs["short"]), "dataset"):
        out = tmp_path / "cli.trec"
        _ok(["rerank", "-d", "demo", "-a", "TFC1,M-TDC", "--depth", "5", "--base", base,
             "-o", str(out)])  # fmt: skip
        resolved = base_ranking(ds, base, depth=5, index=dataset_index(ds))
        api = axiomatic_rerank(resolved.dataset, "TFC1,M-TDC", resolved.run, depth=5)
        cli = read_run(out)
        assert {q: list(d) for q, d in cli.items()} == {
            q: [d for d, _ in sorted(v.items(), key=lambda kv: (-kv[1], kv[0]))]
            for q, v in api.items()
        }, base
    ql = base_ranking(ds, "ql", index=dataset_index(ds))
    assert (ql.kind, ql.label) == ("ranker", "QL(mu=1000)")
    short = base_ranking(ds, f"s={runs['short']}")
    assert (short.kind, short.label) == ("run", "s")
    assert short.run == read_run(runs["short"])
    assert base_ranking(ds).kind == "ranker"  # the demo records no run: BM25 by default
    with pytest.raises(ValueError, match="ranks none of the 10 queries"):
        bad = tmp_path / "other.trec"
        bad.write_text("zz Q0 d 1 1.0 t\n")
        base_ranking(ds, str(bad))


# ------------------------------------------------------------------------------------- seeds
SEEDED = [
    ["mine", "-d", "demo", "-o", "x", "--seed", "-1"],
    ["probe", "-d", "demo", "-r", "bm25", "-o", "x", "--seed", "-1"],
    ["rerank", "-d", "demo", "-o", "x.trec", "--seed", "-1"],
    ["explain", "-d", "demo", "-r", "bm25", "--seed", "-1"],
    ["patch", "-d", "demo", "-r", "minilm", "--seed", "-1"],
    ["train", "-d", "demo", "--seed", "-1"],
    ["pretrain", "ares", "-o", "x", "--seed", "-1"],
]


def _refusal(args: list[str]) -> str:
    res = runner.invoke(app, args)
    assert res.exit_code == 2, res.output
    text = " ".join(res.output.replace("│", " ").split())
    return text[text.index("Invalid value for") :].lower()


@pytest.mark.parametrize("args", SEEDED, ids=lambda a: a[0])
def test_every_command_refuses_a_negative_seed_alike(
    args: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)  # outputs named "x" land there if a command ever ran
    # click's own usage error, before any work: the same words from every command
    assert _refusal(args) == _refusal(SEEDED[0])
    assert _refusal(args).startswith("invalid value for '--seed'")


def test_experiment_refuses_negative_seeds_in_the_same_words(tmp_path: Path) -> None:
    text = _refusal(["experiment", "rosset2019", "--seeds", "0,-1", "-o", str(tmp_path / "e")])
    seed = _refusal(SEEDED[0]).removeprefix("invalid value for '--seed': ")
    assert text == f"invalid value for '--seeds': -1: {seed}"


def test_patch_has_no_dataset_default() -> None:
    res = runner.invoke(app, ["patch", "-r", "minilm"])
    assert res.exit_code == 2 and "Missing option '--dataset'" in res.output, res.output


# ------------------------------------------------------------------------------------ format
def test_one_format_option_on_every_table_command(runs, tmp_path: Path) -> None:
    doc = json.loads(_ok(["datasets", "--format", "json"]))
    assert doc == json.loads(_ok(["datasets", "--json"]))  # the older spelling, same output
    said = runner.invoke(app, ["datasets", "--json"]).stderr
    assert "warning: --json is deprecated: use --format json" in said
    assert any(d["name"] == "demo" for d in doc["datasets"])
    rows = list(csv.DictReader(io.StringIO(_ok(["datasets", "--format", "csv"]))))
    assert {"name", "available", "description"} <= set(rows[0])
    axioms = json.loads(_ok(["axioms", "--format", "json"]))
    assert any(a["name"] == "TFC1" for a in axioms)
    assert [r["name"] for r in csv.DictReader(io.StringIO(_ok(["axioms", "--format", "csv"])))] == [
        a["name"] for a in axioms
    ]
    assert json.loads(_ok(["models", "--format", "json"])) == json.loads(_ok(["models", "--json"]))
    res = runner.invoke(app, ["datasets", "--format", "jsno"])
    assert res.exit_code == 2 and "unknown --format 'jsno' (did you mean 'json'?)" in res.output
    res = runner.invoke(app, ["rerank", "-d", "demo", "-o", "x.trec", "--format", "xml"])
    assert res.exit_code == 2 and "unknown --format 'xml'" in res.output
    out = tmp_path / "ax.trec"
    text = _ok(["rerank", "-d", "demo", "-a", "TFC1", "--depth", "5", "-o", str(out),
                "--format", "csv"])  # fmt: skip
    table = list(csv.DictReader(io.StringIO(text[text.index("ranker,") :])))
    assert {r["ranker"] for r in table} == {
        "base BM25(k1=0.9,b=0.4)",
        "axiomatic (majority, kwiksort)",
    }


# -------------------------------------------------------------------------- evaluate/diagnose
def test_evaluate_warns_when_runs_of_different_depths_are_compared(runs) -> None:
    res = runner.invoke(
        app, ["evaluate", "-d", "demo", "--run", str(runs["bm25"]), "--run", str(runs["short"])]
    )
    assert res.exit_code == 0, res.output
    text = " ".join(res.output.split())
    assert "warning: the runs have different depths" in text and "QL(mu=1000): 3" in text
    res = runner.invoke(app, ["evaluate", "-d", "demo", "--run", str(runs["bm25"]), "--run",
                              f"again={runs['bm25']}"])  # fmt: skip
    assert "different depths" not in res.output


def test_diagnose_takes_test_like_evaluate(runs, tmp_path: Path) -> None:
    inst = tmp_path / "inst"
    _ok(["mine", "-d", "demo", "-a", "TFC1", "-o", str(inst)])
    args = ["diagnose", "-i", str(inst), "-r", "bm25", "-r", "ql", "--no-plots",
            "--format", "json"]  # fmt: skip
    doc = json.loads(_ok([*args, "--test", "wilcoxon", "-o", str(tmp_path / "r")]))
    eff = doc["effectiveness"]
    assert eff["test"] == "wilcoxon" and "Wilcoxon" in eff["family"]
    ev = json.loads(_ok(["evaluate", "-d", "demo", "-r", "bm25", "-r", "ql", "--test", "wilcoxon",
                         "--measures", "nDCG@10 AP RR@10", "--format", "json"]))  # fmt: skip
    assert eff["family"] == ev["family"]
    p_diag = {(r["ranker"], r["measure"]): r["pvalue"] for r in eff["results"]}
    p_eval = {(r["ranker"], r["measure"]): r["pvalue"] for r in ev["results"]}
    assert p_diag == p_eval  # the same test on the same runs
    res = runner.invoke(app, [*args, "--test", "sign", "-o", str(tmp_path / "r2")])
    assert res.exit_code == 2 and "--test must be 't' or 'wilcoxon' (got 'sign')" in res.output
