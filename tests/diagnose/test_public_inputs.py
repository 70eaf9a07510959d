"""What the commands assemble is public: a Python user gets the commands' numbers."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
from typer.testing import CliRunner

from axiomatic.axioms import parse_axioms
from axiomatic.cli.main import app
from axiomatic.data.demo import demo_dataset
from axiomatic.data.trec import read_run
from axiomatic.diagnose.folder import diagnose_mined, effectiveness_runs, load_mined
from axiomatic.diagnose.inputs import make_rankers, parse_weights
from axiomatic.diagnose.rerank import check_rerank_options, rerank_from_base

runner = CliRunner()


def test_rankers_by_display_name_and_the_baseline_typed_as_a_spec() -> None:
    named = make_rankers(["bm25", "lm=ql"], [], demo_dataset())
    assert list(named.rankers) == ["BM25(k1=0.9,b=0.4)", "lm"]
    assert named.legend == {"BM25(k1=0.9,b=0.4)": "bm25", "lm": "ql"}
    assert named.baseline("ql") == "lm" and named.baseline(None) is None
    with pytest.raises(ValueError, match=r"--baseline 'l' \(did you mean 'lm'\?\) is not one"):
        named.baseline("l")
    with pytest.raises(ValueError, match="bad --ranker 'nope'"):
        make_rankers(["nope"], [], demo_dataset())


def test_weights_by_name_or_position() -> None:
    axioms = parse_axioms("TFC1,M-TDC")
    assert parse_weights("M-TDC=2", axioms) == [1.0, 2.0]
    assert parse_weights("0.5 3", axioms) == [0.5, 3.0]
    with pytest.raises(ValueError, match="gives 1 weights for 2 pairwise axioms"):
        parse_weights("2", axioms)
    with pytest.raises(ValueError, match="--weights is for --aggregation weighted"):
        check_rerank_options("majority", "kwiksort", weights=[1.0])


def test_rerank_from_base_is_the_command_s_run(tmp_path: Path) -> None:
    out = tmp_path / "axio.trec"
    args = ["rerank", "-d", "demo", "-a", "TFC1,M-TDC", "--depth", "8", "--order", "wins"]
    res = runner.invoke(app, [*args, "-o", str(out)])
    assert res.exit_code == 0, res.output
    from axiomatic.text.analyzer import parse_analyzer

    done = rerank_from_base(
        demo_dataset(), parse_axioms("TFC1,M-TDC"), depth=8, order="wins",
        analyzer=parse_analyzer("default"),
    )  # fmt: skip
    assert done.base.label == "BM25(k1=0.9,b=0.4)" and done.base.kind == "ranker"
    got = read_run(out)
    assert {q: list(d) for q, d in got.items()} == {
        q: [d for d, _ in sorted(v.items(), key=lambda kv: -kv[1])] for q, v in done.run.items()
    }


def test_a_mined_folder_diagnosed_from_python_is_the_command_s_table(tmp_path: Path) -> None:
    inst = tmp_path / "inst"
    res = runner.invoke(app, ["mine", "-d", "demo", "-a", "TFC1,LNC2", "-o", str(inst)])
    assert res.exit_code == 0, res.output
    rep = tmp_path / "rep"
    res = runner.invoke(
        app, ["diagnose", "-i", str(inst), "-r", "bm25", "--no-plots", "-o", str(rep)]
    )
    assert res.exit_code == 0, res.output
    notes: list[str] = []
    mined = load_mined(inst, echo=notes.append)
    assert mined.checked and notes == [] and len(mined.instances)
    named = make_rankers(["bm25"], [], mined.dataset)
    runs = effectiveness_runs(named.rankers, mined.dataset)
    diag = diagnose_mined(mined, named.rankers, runs=runs, legend=named.legend)
    ours = diag.table().set_index(["ranker", "spec"])["fraction"]
    cli = pd.read_csv(rep / "diagnosis.csv").set_index(["ranker", "spec"])["fraction"]
    assert ours.to_dict() == pytest.approx(cli.to_dict())
    assert diag.metadata["legend"] == {"BM25(k1=0.9,b=0.4)": "bm25"}
