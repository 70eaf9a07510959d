"""``axiomatic evaluate``: ir_measures means of runs and rankers, with paired significance
tests against a baseline (the library's :func:`axiomatic.evaluate.significance.evaluation_table`)."""

from __future__ import annotations

import json
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, Literal

import typer
from rich.markup import escape
from rich.table import Table

from axiomatic._suggest import suggest
from axiomatic.cli import data_cmds
from axiomatic.cli.app import app
from axiomatic.cli.collection_cmds import DATASET_HELP, QrelsOpt, SkipMalformedOpt
from axiomatic.cli.common import (
    ANALYZER_HELP,
    DEFAULT_ANALYZER,
    TEST_HELP,
    analyzer_for,
    analyzer_label,
    check_format,
    check_output_file,
    check_test,
    console,
    err_console,
    fail,
    warn,
)
from axiomatic.cli.data_cmds import load_dataset_or_exit
from axiomatic.cli.run_inputs import CandidatesOpt, DataRoot, FirstStageOpt


@app.command("evaluate")
def evaluate_cmd(
    dataset: Annotated[
        str, typer.Option("--dataset", "-d", help="Dataset with qrels. " + DATASET_HELP)
    ],
    run: Annotated[
        list[str] | None,
        typer.Option(
            "--run",
            help="TREC run file, as PATH or NAME=PATH, or a catalog system's run such as "
            "trec-dl-2019/splade-pp (repeat the option). Default name: the run's tag when it "
            "has one, else the file name; a catalog run: the system's short name (splade-pp).",
        ),
    ] = None,
    ranker: Annotated[
        list[str] | None,
        typer.Option(
            "--ranker",
            "-r",
            help="Ranker spec to rank the dataset with and evaluate (repeatable, NAME=SPEC; "
            "see `axiomatic rank --help`); on a full-retrieval dataset a neural model needs "
            "--first-stage or --candidates.",
        ),
    ] = None,
    measures: Annotated[
        str,
        typer.Option(
            help="ir_measures names (or trec_eval names: ndcg_cut_10, map, recip_rank), "
            "separated by spaces or commas."
        ),
    ] = "nDCG@10 RR@10 AP",
    baseline: Annotated[
        str | None,
        typer.Option(
            "--baseline",
            help="Name of the baseline run for the significance tests (as shown in the table; "
            "default: the first run or ranker).",
        ),
    ] = None,
    test: Annotated[str, typer.Option("--test", help=TEST_HELP)] = "t",
    per_query: Annotated[
        Path | None, typer.Option(help="Write per-query values to this CSV.")
    ] = None,
    output_format: Annotated[
        str | None,
        typer.Option(
            "--format",
            help="table | csv | json: csv and json give one row per ranker and measure with the "
            "mean, the difference to the baseline, the raw and Holm-corrected p-values, the "
            "test and its Holm family. Default: table on a terminal, csv when the output is a "
            "file or pipe (evaluate's output is data for the next command).",
        ),
    ] = None,
    first_stage: FirstStageOpt = None,
    candidates: CandidatesOpt = None,
    depth: Annotated[
        int | None,
        typer.Option(
            min=1,
            help="For --ranker: the depth of --first-stage / --candidates (default 100) or of "
            "full-collection retrieval (default 1000).",
        ),
    ] = None,
    analyzer: Annotated[
        str, typer.Option("--analyzer", help=ANALYZER_HELP + " Used by lexical --ranker specs.")
    ] = DEFAULT_ANALYZER,
    qrels: QrelsOpt = None,
    skip_malformed: SkipMalformedOpt = False,
    data_root: DataRoot = None,
) -> None:
    """Evaluate runs (and rankers) with ir_measures; with several, mark significant differences.

    A model trained on scifact/train, on scifact/test: `axiomatic evaluate -d scifact/test
    -r bm25 -r knrm=model:models/knrm-ar --first-stage bm25 --depth 100 --baseline bm25`.
    """
    from axiomatic.evaluate.metrics import (
        NoMatchingQueriesWarning,
        evaluate_per_query,
        parse_measures,
    )
    from axiomatic.evaluate.significance import evaluation_table

    try:  # first: a bad measure must not wait for the dataset to load
        names = [str(m) for m in parse_measures(measures)]
    except ValueError as exc:
        raise fail(f"bad --measures: {exc}") from None
    if not run and not ranker:
        raise fail("nothing to evaluate: give --run FILE (or a catalog system) or --ranker SPEC")
    if (first_stage is not None or candidates is not None) and not ranker:
        raise fail(
            "--first-stage / --candidates give a --ranker its candidates; a --run is "
            "evaluated as it is"
        )
    if per_query is not None:
        check_output_file(per_query, "--per-query")
    test_kind: Literal["t", "wilcoxon"] = check_test(test)
    from axiomatic.cli.common import stdout_is_terminal

    fmt = check_format(output_format, "table" if stdout_is_terminal() else "csv", EVAL_FORMATS)
    ds = load_dataset_or_exit(dataset, data_root, qrels, skip_malformed)
    if not ds.qrels:
        raise fail(f"dataset {dataset!r} has no relevance judgments to evaluate against")
    from axiomatic.cli.run_inputs import read_named_runs
    from axiomatic.data.runs import NamedRun

    named = read_named_runs(list(run or []), "--run", data_root, skip_malformed)
    header_notes: list[str] = []
    pending = (
        _evaluated_rankers(
            list(ranker),
            ds,
            analyzer,
            first_stage,
            candidates,
            depth,
            data_root,
            skip_malformed,
            {n.name for n in named},
            header_notes,
        )
        if ranker
        else None
    )
    # the baseline is checked before any ranker scores a query, by the names and specs shown
    shown = [n.name for n in named] + (pending.names if pending else [])
    typed = {n.name: n.source for n in named} | (pending.typed if pending else {})
    base_name = _baseline_name(baseline, shown, typed)
    if pending is not None:
        named += pending.rank()
    by_name: dict[str, NamedRun] = {n.name: n for n in named}
    from axiomatic.report.tables import depth_note

    note = depth_note({n.name: n.run for n in named})
    if note:
        warn(note)
    from axiomatic.evaluate.metrics import relevance_threshold

    threshold = relevance_threshold(ds)  # the rule of axiomatic.evaluate(run, ds.qrels, ...)
    per: dict[str, Any] = {}
    for item in named:
        _warn_coverage(Path(item.source), item.run, ds.qrels)
        with warnings.catch_warnings():  # _warn_coverage has said it, with the counts
            warnings.simplefilter("ignore", NoMatchingQueriesWarning)
            per[item.name] = evaluate_per_query(item.run, ds.qrels, names, rel_threshold=threshold)
    try:
        table_df = evaluation_table(
            {n.name: n.run for n in named},
            ds.qrels,
            names,
            baseline=base_name,
            test=test_kind,
            rel_threshold=threshold,
            per_query=per,
        )
    except ValueError as exc:  # e.g. a paired test over one judged query
        raise fail(str(exc)) from None
    import math

    family = str(table_df.attrs["family"])
    rows: list[dict[str, Any]] = []
    for rec in table_df.to_dict("records"):
        rec = {k: None if isinstance(v, float) and math.isnan(v) else v for k, v in rec.items()}
        rec["path"] = by_name[rec["ranker"]].source
        rec["test"], rec["family"] = test, family  # what the terminal caption says
        rows.append(rec)
    if fmt == "csv":
        import csv as csv_mod
        import sys

        w = csv_mod.DictWriter(sys.stdout, fieldnames=list(rows[0]), lineterminator="\n")
        w.writeheader()
        for row in rows:
            w.writerow({k: "" if v is None else v for k, v in row.items()})
    elif fmt == "json":
        import sys

        doc = {
            "dataset": str(ds.name),
            "judged_queries": len(ds.qrels),
            "baseline": base_name,
            "test": test,
            "family": family,
            "notes": header_notes,
            "results": rows,
        }
        sys.stdout.write(json.dumps(doc, indent=2) + "\n")
    else:
        title = f"{ds.name} ({len(ds.qrels)} judged queries"
        title += "".join(f"; {note}" for note in header_notes) + ")"
        caption = None
        if len(named) > 1:
            caption = (
                f"▲/▼: significant vs baseline (Holm-corrected p < 0.05); p = Holm-corrected "
                f"p-value; {family}"
            )
        table = Table(title=escape(title), caption=None if caption is None else escape(caption))
        table.add_column("ranker", style="bold")
        for m in names:
            table.add_column(m, justify="right")
        for item in named:
            cells = [
                escape(item.name)
                + (" (baseline)" if item.name == base_name and len(named) > 1 else "")
            ]
            for row in (r for r in rows if r["ranker"] == item.name):
                mark = {"up": " ▲", "down": " ▼"}.get(str(row["significant"]), "")
                p = row["pvalue_holm"]
                cells.append(f"{row['value']:.4f}{mark}" + ("" if p is None else f" (p={p:.3g})"))
            table.add_row(*cells)
        console.print(table)
        renamed = [item for item in named if item.name not in (Path(item.source).name, item.source)]
        if renamed:
            console.print(
                "rankers: "
                + "; ".join(
                    f"{item.name} = {'standard input' if item.source == '-' else item.source}"
                    for item in renamed
                ),
                markup=False,
                highlight=False,
            )
    if per_query is not None:
        import pandas as pd

        frames = []
        for item in named:
            df = per[item.name].copy()
            df.insert(0, "ranker", item.name)
            frames.append(df)
        from axiomatic._atomic import atomic_write_text

        # atomic (gzip-compressed for a .gz name, as pandas would)
        atomic_write_text(per_query, pd.concat(frames).to_csv(index=False))
        err_console.print(f"wrote {per_query}", markup=False, highlight=False)


def _baseline_name(
    baseline: str | None, names: list[str], typed: dict[str, str] | None = None
) -> str:
    """``--baseline``: a run name as shown in the table (default the first), or what was typed
    for it (``bm25`` for the ranker shown as ``BM25(k1=0.9,b=0.4)``, a run's path), as
    ``diagnose --baseline`` takes it; an index (``--baseline 1``, the option's old meaning)
    still works when no run has that name."""
    if baseline is None:
        return names[0]
    if baseline in names:
        return baseline
    matches = [
        n for n, spec in (typed or {}).items() if baseline in (spec, spec.removeprefix("run:"))
    ]
    if len(matches) == 1:
        return matches[0]
    if baseline.isdigit() and int(baseline) < len(names):
        return names[int(baseline)]
    raise fail(
        f"--baseline {baseline!r}{suggest(baseline, [*names, *(typed or {}).values()])} is not "
        f"one of the runs ({', '.join(names)}); give a run name as shown in the table, or the "
        "ranker spec or run typed for it"
    )


@dataclass
class _PendingRankers:
    """``evaluate --ranker``: rankers built (and named) but not yet run, so that the baseline
    is checked against their names before any scoring."""

    rankers: dict[str, Any]
    shown: dict[str, str]  # ranker key -> name in the table
    typed: dict[str, str]  # name in the table -> what the user typed
    ds: Any
    depth: int

    @property
    def names(self) -> list[str]:
        return list(self.shown.values())

    def rank(self) -> list[Any]:
        from axiomatic.data.runs import NamedRun

        return [
            NamedRun(shown, data_cmds.rank_run(self.rankers[key], self.typed[shown], self.ds, self.depth),
                     self.typed[shown], None)
            for key, shown in self.shown.items()
        ]  # fmt: skip


def _evaluated_rankers(
    specs: list[str],
    ds: Any,
    analyzer: str,
    first_stage: str | None,
    candidates: str | None,
    depth: int | None,
    data_root: Path | None,
    skip_malformed: bool,
    taken: set[str],
    notes: list[str],
) -> _PendingRankers:
    """``evaluate --ranker``: each spec's ranker on ``ds`` (with its first stage), named as in
    the table (full names: nothing cut short); ``notes`` receives the analyzer and the
    candidates for the table header."""
    from axiomatic.cli.run_inputs import make_rankers, with_first_stage
    from axiomatic.diagnose.inputs import uses_analyzer

    an = analyzer_for(analyzer, ds)
    staged = first_stage is not None or candidates is not None
    depth = depth if depth is not None else (100 if staged else 1000)
    ds = with_first_stage(
        ds,
        first_stage=first_stage,
        candidates=candidates,
        depth=depth,
        analyzer=an,
        data_root=data_root,
        skip_malformed=skip_malformed,
    )
    named = make_rankers(specs, [], ds, an, skip_malformed, shorten=False)
    rankers, legend = named.rankers, named.legend
    shown: dict[str, str] = {}
    typed: dict[str, str] = {}
    for name in rankers:
        label, k = name, 2
        while label in taken:
            label, k = f"{name}-{k}", k + 1
        taken.add(label)
        shown[name] = label
        typed[label] = legend[name]
    if any(uses_analyzer(r) for r in rankers.values()):
        notes.append(f"analyzer: {analyzer_label(an)}")
    if "first_stage" in ds.metadata:
        notes.append(f"candidates: {ds.metadata['first_stage']}")
    return _PendingRankers(rankers, shown, typed, ds, depth)


EVAL_FORMATS = ("table", "csv", "json")


def _warn_coverage(path: Path, run, qrels) -> None:
    """Say when a run misses judged queries (they score 0), loudly when it matches none."""
    from axiomatic.evaluate.metrics import run_coverage

    cov = run_coverage(run, qrels)
    if cov["matched"] == 0:
        judged_docs = {d for v in qrels.values() for d in v}
        run_docs = {d for v in run.values() for d in v}
        warn(
            f"{path} matches none of the {cov['judged']} judged queries (it ranks "
            f"{cov['unjudged']} other queries; {len(run_docs & judged_docs)} of its "
            f"{len(run_docs)} documents are judged anywhere in the qrels): every measure is 0. "
            "Is it a run of another dataset or split?"
        )
    elif cov["missing"]:
        warn(
            f"{path} ranks {cov['matched']} of the {cov['judged']} judged queries; the "
            f"{cov['missing']} missing ones count as 0 (as trec_eval -c)"
        )
