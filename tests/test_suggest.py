"""One close-match rule and one wording for unknown names: ``axiomatic._suggest``.

The helpers it replaced (axioms' ``did_you_mean``, the query-pair axioms', the analyzer's, the
ranker registry's, the CLI's and every inline ``difflib`` call with its own wording, ``Did you
mean: x``) are gone: no module but ``_suggest.py`` imports ``difflib``.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from axiomatic._suggest import close_matches, suggest

SRC = Path(__file__).resolve().parents[1] / "src" / "axiomatic"


def test_suggest_literal() -> None:
    assert suggest("linaer", ["constant", "linear"]) == " (did you mean 'linear'?)"
    assert suggest("bm52", ["bm25", "bm25f", "ql"], n=2) == " (did you mean 'bm25' or 'bm25f'?)"
    # best first, as difflib orders them (ties: reverse alphabetical)
    assert suggest("ab", ["abc", "abd", "abe"]) == " (did you mean 'abe', 'abd' or 'abc'?)"
    assert suggest("zzz", ["bm25", "ql"]) == ""


def test_loose_matching_ignores_case_dashes_and_underscores() -> None:
    assert suggest("m_tdc", ["M-TDC", "TFC1"]) == ""
    assert suggest("m_tdc", ["M-TDC", "TFC1"], loose=True) == " (did you mean 'M-TDC'?)"
    assert close_matches("q_prox-1", ["Q-PROX-1", "Q-TFC"], loose=True) == ["Q-PROX-1"]


def test_close_matches_takes_any_iterable_and_shows_strings() -> None:
    assert close_matches(10, {10.5: "x", 3: "y"}, cutoff=0.5) == ["10.5"]
    assert close_matches("ql", iter(["ql2", "bm25"]), n=1, cutoff=0.6) == ["ql2"]


def _message(call) -> str:  # type: ignore[no-untyped-def]
    with pytest.raises(Exception) as err:
        call()
    return str(err.value)


SITES = {
    "learning-rate schedule": lambda: __import__(
        "axiomatic.training.schedules", fromlist=["x"]
    ).parse_lr_schedule("linaer"),
    "ranker": lambda: __import__("axiomatic.rankers.registry", fromlist=["x"]).parse_ranker_spec(
        "bm52"
    ),
    "analyzer": lambda: __import__("axiomatic.text.analyzer", fromlist=["x"]).parse_analyzer(
        "thesys"
    ),
    "axiom variant": lambda: __import__("axiomatic.axioms.spec", fromlist=["x"]).parse_axiom(
        "TFC1(variant=relaxd)"
    ),
    "facade attribute": lambda: __import__("axiomatic").diagnos,
    "training setting": lambda: __import__("axiomatic.training.config", fromlist=["x"]).TrainConfig(
        optimizer="adma"
    ),
    "perturbation": lambda: __import__(
        "axiomatic.perturb.perturbations", fromlist=["x"]
    ).canonical_perturbation("TFC4"),
    "ACRank rule": lambda: __import__("axiomatic.perturb.acrank", fromlist=["x"]).canonical_rule(
        "nonee"
    ),
    "dataset": lambda: __import__("axiomatic.data.catalog", fromlist=["x"]).load_dataset(
        "scifact/tset"
    ),
    "ARES variant": lambda: __import__("axiomatic.ares.pretrain", fromlist=["x"]).check_variant(
        "strikt"
    ),
}


@pytest.mark.parametrize("site", sorted(SITES))
def test_merged_sites_use_the_one_wording(site: str) -> None:
    msg = _message(SITES[site])
    assert re.search(r" \(did you mean '[^']+'(, '[^']+')*( or '[^']+')?\?\)", msg), msg


#: modules still building their own close-match hint with difflib: none
NOT_YET: set[str] = set()


def _imports_difflib(path: Path) -> bool:
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import) and any(
            a.name.split(".")[0] == "difflib" for a in node.names
        ):
            return True
        if isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "difflib":
            return True
    return False


def test_only_the_suggestion_helper_imports_difflib() -> None:
    found = {p.relative_to(SRC).as_posix() for p in SRC.rglob("*.py") if _imports_difflib(p)} - {
        "_suggest.py"
    }
    assert not found - NOT_YET, (
        "use axiomatic._suggest.suggest / close_matches instead of difflib: "
        f"{sorted(found - NOT_YET)}"
    )
    assert not NOT_YET - found, f"converted, remove from NOT_YET: {sorted(NOT_YET - found)}"


def test_the_structural_check_sees_every_import_form(tmp_path: Path) -> None:
    for i, line in enumerate(
        ("import difflib", "import os, difflib as d", "from difflib import get_close_matches")
    ):
        (tmp_path / f"m{i}.py").write_text(f"def f():\n    {line}\n")
        assert _imports_difflib(tmp_path / f"m{i}.py"), line
    (tmp_path / "ok.py").write_text('"""difflib is mentioned"""\nimport difflibx\n')
    assert not _imports_difflib(tmp_path / "ok.py")


@pytest.mark.parametrize(
    ("args", "want"),
    [
        (["datasets", "inti", "x.toml"], "unknown datasets action 'inti' (did you mean 'init'?);"),
        (
            ["evaluate", "-d", "demo", "--run", "x", "--format", "tabel"],
            "unknown --format 'tabel' (did you mean 'table'?); expected one of table, csv, json",
        ),
        (["pretrain", "arse"], "unknown pre-training method 'arse' (did you mean 'ares'?);"),
    ],
)
def test_the_cli_uses_the_one_wording(args: list[str], want: str) -> None:
    from typer.testing import CliRunner

    from axiomatic.cli.main import app

    res = CliRunner().invoke(app, args)
    assert res.exit_code == 2 and want in " ".join(res.output.split()), res.output
