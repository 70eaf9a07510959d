"""Inputs shared by the commands that take runs, as CLI errors: run arguments (files, ``-``,
catalog systems; the one syntax and naming rule of :mod:`axiomatic.data.runs`), the first stage
of a full-retrieval dataset, the text of documents a run brings from outside a dataset's
candidates, and axiom weights.
"""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Annotated, Any

import typer

from axiomatic._suggest import suggest
from axiomatic.cli.common import fail

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

__all__ = [
    "CandidatesOpt",
    "FirstStageOpt",
    "first_stage_of_manifest",
    "parse_weights",
    "read_named_runs",
    "record_first_stage",
    "with_first_stage",
    "with_run_documents",
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
        raise fail(_cli_hint(str(exc.args[0] if exc.args else exc))) from None
    report_data_warnings(caught)
    return runs


def _cli_hint(message: str) -> str:
    return message.replace(
        "pass skip_malformed=True (CLI: --skip-malformed)", "pass --skip-malformed"
    ).replace("pass skip_malformed=True", "pass --skip-malformed")


def with_run_documents(
    ds: Any, run: dict[str, dict[str, float]], depth: int, option: str, data_root: Path | None
) -> tuple[Any, int]:
    """:func:`axiomatic.data.runs.dataset_with_documents` with its error as a CLI error."""
    from axiomatic.data.runs import dataset_with_documents

    try:
        return dataset_with_documents(ds, run, depth, option, data_root)
    except ValueError as exc:
        raise fail(str(exc)) from None


def parse_weights(text: str, axioms: list[Any]) -> list[float]:
    """``--weights`` as one float per pairwise axiom: ``"2,1,0.5"`` (axiom order) or
    ``"TFC1=2,M-TDC=1"`` (unnamed axioms get 1)."""
    from axiomatic.evaluate.metrics import split_measure_string

    names = [a.name for a in axioms]
    items = split_measure_string(text)
    if not items:
        raise fail(f"--weights {text!r} is empty; expected e.g. '2,1' or 'TFC1=2,M-TDC=1'")
    if all("=" in it for it in items):
        weights = dict.fromkeys(names, 1.0)
        for it in items:
            key, _, val = it.partition("=")
            key = key.strip()
            if key not in weights:
                raise fail(
                    f"--weights: {key!r}{suggest(key, names)} is not one of the pairwise "
                    f"--axioms ({', '.join(names)})"
                )
            weights[key] = _number(val, it)
        return [weights[n] for n in names]
    if any("=" in it for it in items):
        raise fail(f"--weights {text!r}: give either all weights by name or none by name")
    if len(items) != len(names):
        raise fail(
            f"--weights {text!r} gives {len(items)} weights for {len(names)} pairwise axioms "
            f"({', '.join(names)}); give one per axiom, or name them: "
            f"{','.join(f'{n}=1' for n in names)}"
        )
    return [_number(it, it) for it in items]


def _number(text: str, item: str) -> float:
    import math

    try:
        value = float(text)
    except ValueError:
        raise fail(f"--weights: {item!r} is not a number") from None
    if not math.isfinite(value):
        raise fail(f"--weights: {item!r} must be finite")
    return value


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
    """``ds`` with candidate lists from a first stage: the top ``depth`` of ``--first-stage
    SPEC`` (a lexical ranker retrieving from the whole collection, e.g. ``bm25``) or of
    ``--candidates RUN`` (a run file or a catalog system). ``ds`` itself when neither is given.

    This is how a model trained on ``scifact/train`` is evaluated and diagnosed on
    ``scifact/test`` (a full-retrieval dataset): ``--first-stage bm25 --depth 100``.
    """
    if first_stage is None and candidates is None:
        return ds
    if first_stage is not None and candidates is not None:
        raise fail("give --first-stage SPEC or --candidates RUN, not both")
    from dataclasses import replace

    if candidates is not None:
        run = read_named_runs([candidates], "--candidates", data_root, skip_malformed)[0].run
        label = f"--candidates {candidates} top {depth}"
    else:
        from axiomatic._progress import track
        from axiomatic.rankers.registry import make_ranker

        assert first_stage is not None  # one of the two is given
        try:
            ranker = make_ranker(first_stage, replace(ds, candidates=None), analyzer=analyzer)
        except (KeyError, ValueError, FileNotFoundError, ImportError) as exc:
            raise fail(
                f"bad --first-stage {first_stage!r}: {exc.args[0] if exc.args else exc}"
            ) from None
        retrieve = getattr(ranker, "retrieve", None)
        if retrieve is None:
            raise fail(
                f"--first-stage {first_stage!r}: {ranker.name} cannot retrieve from the whole "
                "collection; use a lexical ranker (bm25, ql, rm3, tfidf), or give the "
                "candidates as a run with --candidates RUN"
            )
        run = {}
        for q in track(list(ds.iter_queries()), description=f"first stage {ranker.name}"):
            run[q.query_id] = dict(retrieve(q, depth))
        label = f"--first-stage {first_stage} top {depth}"
    cands: dict[str, list[str]] = {}
    for qid in ds.queries:
        ranked = sorted(run.get(qid, {}).items(), key=lambda kv: (-kv[1], kv[0]))[:depth]
        cands[qid] = [d for d, _ in ranked]
    if not any(cands.values()):
        raise fail(
            f"{label.split(' top ')[0]}: no candidates for any of the {len(ds.queries)} "
            f"queries of {ds.name!r}; is it a run of another dataset?"
        )
    meta = dict(ds.metadata) if isinstance(ds.metadata, dict) else {}
    meta["first_stage"] = label
    ds2, _ = with_run_documents(
        replace(ds, candidates=cands, metadata=meta),
        {q: {d: float(len(c) - i) for i, d in enumerate(c)} for q, c in cands.items()},
        depth,
        label.split(" top ")[0].split(" ")[0],
        data_root,
    )
    return ds2


FIRST_STAGE_KEY = "first_stage"
"""Manifest key (outside ``config``) recording the first stage ``mine`` drew its candidates
from, so that ``diagnose`` rebuilds the same candidate lists."""


def record_first_stage(
    folder: Path, first_stage: str | None, candidates: str | None, depth: int, analyzer: Any
) -> None:
    """After ``mine --first-stage/--candidates``: note them in ``folder/manifest.json``."""
    if first_stage is None and candidates is None:
        return
    import json

    from axiomatic._atomic import atomic_write_text

    manifest = folder / "manifest.json"
    try:
        data = json.loads(manifest.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return
    if candidates is not None and Path(candidates).expanduser().exists():
        candidates = str(Path(candidates).expanduser().resolve())
    data[FIRST_STAGE_KEY] = {
        "first_stage": first_stage,
        "candidates": candidates,
        "depth": depth,
        "analyzer": analyzer.spec,
    }
    atomic_write_text(manifest, json.dumps(data, indent=2))


def first_stage_of_manifest(manifest: dict[str, Any]) -> dict[str, Any] | None:
    """The first stage ``mine`` recorded (``None`` when the candidates were the dataset's)."""
    info = manifest.get(FIRST_STAGE_KEY)
    return info if isinstance(info, dict) and isinstance(info.get("depth"), int) else None
