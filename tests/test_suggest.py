"""One close-match rule and one wording for unknown names (issue 25 s7): ``axiomatic._suggest``.

The helpers it replaced (axioms' ``did_you_mean``, the query-pair axioms', the analyzer's, the
ranker registry's and a dozen inline ``difflib`` calls) are gone; the remaining copies, which
keep a wording of their own that tests pin (``Did you mean: x``), are listed in
``REMAINING`` below: each must go, none may be added.
"""

from __future__ import annotations

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
}


@pytest.mark.parametrize("site", sorted(SITES))
def test_merged_sites_use_the_one_wording(site: str) -> None:
    msg = _message(SITES[site])
    assert re.search(r" \(did you mean '[^']+'(, '[^']+')*( or '[^']+')?\?\)", msg), msg


#: files that still carry a ``difflib.get_close_matches`` of their own, with their own wording
#: (pinned by tests as ``Did you mean: x`` / ``Did you mean 'x'``) or owned by other work (ARES)
REMAINING = {
    "ares/pipeline.py",
    "ares/predictor.py",
    "ares/pretrain.py",
    "cli/common.py",
    "data/catalog.py",
    "data/descriptor.py",
    "diagnose/analyses.py",
    "experiments/acrank2023.py",
    "models/clir.py",
    "perturb/acrank.py",
    "perturb/perturbations.py",
    "training/config.py",
}


def test_no_new_copies_of_the_suggestion_helper() -> None:
    found = {
        p.relative_to(SRC).as_posix()
        for p in SRC.rglob("*.py")
        if "get_close_matches" in p.read_text(encoding="utf-8")
    } - {"_suggest.py"}
    assert not found - REMAINING, (
        "use axiomatic._suggest.suggest / close_matches instead of difflib: "
        f"{sorted(found - REMAINING)}"
    )
    assert not REMAINING - found, f"gone, remove from REMAINING: {sorted(REMAINING - found)}"
