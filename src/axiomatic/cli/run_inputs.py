"""The few helpers every command module uses to reach the library's inputs, as CLI errors:
run arguments (files, ``-``, catalog systems; the one syntax and naming rule of
:mod:`axiomatic.data.runs`), rankers by display name and the first stage of a full-retrieval
dataset (:mod:`axiomatic.diagnose.inputs`), and the options they share.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import Annotated, Any

import typer

from axiomatic.cli.common import fail, library_errors

FirstStageOpt = Annotated[
    str | None,
    typer.Option(
        "--first-stage",
        help="Candidates from a first stage: the top --depth documents a lexical ranker "
        "(bm25, ql, rm3, tfidf) retrieves from the whole collection; for full-retrieval "
        "datasets such as scifact/test, e.g. --first-stage bm25 --depth 100.",
    ),
]
CandidatesOpt = Annotated[
    str | None,
    typer.Option(
        "--candidates",
        help="Candidates from a run: the top --depth documents per query of a TREC run file "
        "or a catalog system (trec-dl-2019/bm25); replaces the dataset's candidate lists.",
    ),
]

DataRoot = Annotated[
    Path | None,
    typer.Option(
        "--data-root",
        help="Folder holding the shared collections (default: $AXIOMATIC_DATA, else ../shared/data).",
    ),
]
DEFAULT_MEASURES = "nDCG@10 AP RR@10"

__all__ = [
    "DEFAULT_MEASURES",
    "CandidatesOpt",
    "DataRoot",
    "FirstStageOpt",
    "make_rankers",
    "read_named_runs",
    "with_first_stage",
]


def read_named_runs(
    values: list[str],
    option: str = "--run",
    data_root: Path | None = None,
    skip_malformed: bool = False,
) -> list[Any]:
    """Run arguments (files, ``-``, catalog systems) as :class:`axiomatic.data.runs.NamedRun`
    values through the library's one reader (:func:`axiomatic.data.runs.read_runs`); an error
    is one line naming ``option``, skipped lines are reported."""
    from axiomatic.cli.collection_cmds import report_data_warnings, set_cli_skip_malformed
    from axiomatic.data.runs import read_runs

    set_cli_skip_malformed(skip_malformed)
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            runs = read_runs(
                values, data_root=data_root, skip_malformed=skip_malformed, option=option
            )
    except (FileNotFoundError, ValueError, UnicodeDecodeError) as exc:
        from axiomatic.cli.common import cli_wording

        raise fail(cli_wording(str(exc.args[0] if exc.args else exc))) from None
    report_data_warnings(caught)
    return runs


def make_rankers(
    specs: Sequence[str],
    runs: Sequence[str],
    ds: Any,
    analyzer: Any = None,
    skip_malformed: bool = False,
    data_root: Path | None = None,
    shorten: bool = True,
) -> Any:
    """:func:`axiomatic.diagnose.inputs.make_rankers` for ``--ranker`` / ``--run``:
    ``--skip-malformed`` holds for every run file, also those a ``run:FILE`` ranker reads on
    first use."""
    from axiomatic.cli.collection_cmds import set_cli_skip_malformed
    from axiomatic.diagnose import inputs

    set_cli_skip_malformed(skip_malformed)
    with library_errors():
        return inputs.make_rankers(
            specs, runs, ds, analyzer, data_root=data_root, skip_malformed=skip_malformed,
            shorten=shorten,
        )  # fmt: skip


def with_first_stage(
    ds: Any,
    *,
    first_stage: str | None,
    candidates: str | None,
    depth: int,
    analyzer: Any = None,
    data_root: Path | None = None,
    skip_malformed: bool = False,
) -> Any:
    """:func:`axiomatic.diagnose.inputs.with_first_stage` for ``--first-stage`` /
    ``--candidates``."""
    from axiomatic.cli.collection_cmds import set_cli_skip_malformed
    from axiomatic.diagnose import inputs

    if candidates is not None:
        set_cli_skip_malformed(skip_malformed)
    with library_errors():
        return inputs.with_first_stage(
            ds, first_stage=first_stage, candidates=candidates, depth=depth, analyzer=analyzer,
            data_root=data_root, skip_malformed=skip_malformed,
        )  # fmt: skip


def parse_axioms_or_exit(text: str, variant: str | None = None) -> list[Any]:
    """:func:`axiomatic.diagnose.inputs.parse_axiom_option` for ``--axioms`` / ``--variant``."""
    from axiomatic.diagnose.inputs import parse_axiom_option

    with library_errors():
        return parse_axiom_option(text, variant)


def parse_measures_or_exit(measures: str, option: str = "--measures") -> None:
    """Refuse a ``--measures`` value ir_measures cannot parse, before any work."""
    from axiomatic.evaluate.metrics import parse_measures

    try:
        parse_measures(measures)
    except ValueError as exc:
        raise fail(f"bad {option}: {exc}") from None
