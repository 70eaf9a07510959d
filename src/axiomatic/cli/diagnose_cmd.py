"""``axiomatic diagnose``: rankers and runs on a mined folder (parse, one library call, print).

The folder is read back with its dataset and candidate lists by
:func:`axiomatic.diagnose.folder.load_mined`, the rankers are built by
:func:`axiomatic.diagnose.inputs.make_rankers` and diagnosed by
:func:`axiomatic.diagnose.folder.diagnose_mined`; this module prints the tables and writes the
report.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

import typer

from axiomatic._suggest import suggest
from axiomatic.cli.app import app
from axiomatic.cli.collection_cmds import (
    DATASET_HELP,
    QrelsOpt,
    SkipMalformedOpt,
    load_dataset_cli,
)
from axiomatic.cli.common import (
    ANALYZER_HELP,
    BAND_HELP,
    BAND_TEST_HELP,
    DEFAULT_ANALYZER,
    FORMAT_HELP,
    analyzer_for,
    analyzer_label,
    band_option,
    band_test_option,
    check_format,
    check_output_dir,
    check_test,
    console,
    err_console,
    fail,
    library_errors,
    warn,
    warn_analyzer_mismatch,
)
from axiomatic.cli.run_inputs import (
    DEFAULT_MEASURES,
    CandidatesOpt,
    DataRoot,
    FirstStageOpt,
    make_rankers,
    parse_measures_or_exit,
)


@app.command()
def diagnose(
    instances: Annotated[
        Path, typer.Option("--instances", "-i", help="Folder written by `axiomatic mine`.")
    ],
    out: Annotated[Path, typer.Option("--out", "-o", help="Report folder (CSV, JSON, PNG, HTML).")],
    ranker: Annotated[
        list[str] | None,
        typer.Option(
            "--ranker",
            "-r",
            help="Ranker spec (repeatable), optionally NAME=SPEC: bm25, ql:mu=1000, rm3, tfidf, "
            "minilm, st:DIR, cross-encoder:DIR, hf:DIR, model:DIR (see `axiomatic rank --help`).",
        ),
    ] = None,
    run: Annotated[
        list[str] | None,
        typer.Option(
            "--run",
            help="TREC run file to diagnose as a ranker, as PATH or NAME=PATH, or a catalog "
            "system's run such as trec-dl-2019/splade-pp (repeatable; default name: the run's "
            "tag when it has one, else the file name; a catalog run: the system's short name; "
            "instances on artificial documents are skipped and reported).",
        ),
    ] = None,
    dataset: Annotated[
        str | None,
        typer.Option(
            "--dataset", "-d", help="Dataset (default: from the manifest). " + DATASET_HELP
        ),
    ] = None,
    qrels: QrelsOpt = None,
    skip_malformed: SkipMalformedOpt = False,
    measures: Annotated[
        str, typer.Option(help="Effectiveness measures (ir_measures names).")
    ] = DEFAULT_MEASURES,
    measure: Annotated[
        str,
        typer.Option(
            "--measure",
            help="The measure correlated with axiomatic performance (correlation.png/.csv and "
            "the HTML alike; added to --measures when missing).",
        ),
    ] = "nDCG@10",
    min_n: Annotated[
        int,
        typer.Option(
            "--min-n",
            min=1,
            help="Fewest instances a fulfilment fraction needs to enter a correlation and the "
            "mean over axioms (tables show (n=...) below it).",
        ),
    ] = 20,
    oracle: Annotated[bool, typer.Option(help="Add the qrels oracle as a reference.")] = True,
    plots: Annotated[bool, typer.Option(help="Write PNG plots.")] = True,
    allow_partial: Annotated[
        bool,
        typer.Option(
            "--allow-partial",
            help="Diagnose an unfinished mining output (manifest: complete false) instead of "
            "refusing it; every table and the report are labelled 'partial: k of n shards'.",
        ),
    ] = False,
    missing: Annotated[
        str,
        typer.Option(
            "--missing",
            help="Documents a --run did not retrieve: 'skip' = own-list view (only instances "
            "whose documents are all in the run), 'below' = union view (unretrieved ranks below "
            "all retrieved), 'both' = both views side by side, own list first.",
        ),
    ] = "both",
    tie_tolerance: Annotated[
        float,
        typer.Option(
            "--tie-tolerance",
            min=0.0,
            help="Relative tie tolerance: |s_a - s_b| <= TOL * max(1, |s_a|, |s_b|) is a tie "
            "(absorbs floating-point noise; 0 = exact).",
        ),
    ] = 1e-9,
    band: Annotated[
        str | None,
        typer.Option(
            "--band",
            help=BAND_HELP + " Adds delta, pos/neg/neutral, the effect (pos-neg)/n with a "
            "95% CI and the --band-test p-value to every table.",
        ),
    ] = None,
    band_test: Annotated[
        str, typer.Option("--band-test", help=BAND_TEST_HELP, show_default=True)
    ] = "sign",
    analyzer: Annotated[
        str | None,
        typer.Option(
            "--analyzer",
            help=ANALYZER_HELP + " Used by the lexical rankers (default: 'default', as in rank "
            "and mine; not taken from the instances). A warning says when it differs from the "
            "analyzer the instances were mined with.",
        ),
    ] = None,
    baseline: Annotated[
        str | None,
        typer.Option(
            "--baseline",
            help="Name of the ranker or run the others are tested against (as shown in the "
            "table; default: the first).",
        ),
    ] = None,
    test: Annotated[
        str,
        typer.Option(
            "--test",
            help="Paired test of each measure against the baseline, as in `axiomatic evaluate`: "
            "t or wilcoxon; Holm-corrected over the rankers compared on each measure.",
        ),
    ] = "t",
    output_format: Annotated[str | None, typer.Option("--format", help=FORMAT_HELP)] = None,
    first_stage: FirstStageOpt = None,
    candidates: CandidatesOpt = None,
    depth: Annotated[
        int | None,
        typer.Option(
            min=1, help="Depth of --first-stage / --candidates (default: as recorded by mine)."
        ),
    ] = None,
    data_root: DataRoot = None,
) -> None:
    """Diagnose rankers and run files on mined instances; print the table, write the report.

    Instances mined from a first stage (`mine --first-stage bm25 --depth 100`) are diagnosed on
    the same candidate lists: the first stage recorded in their manifest is applied again.
    """
    from axiomatic.diagnose.folder import diagnose_mined, effectiveness_runs, load_mined
    from axiomatic.diagnose.inputs import correlation_measure, uses_analyzer
    from axiomatic.diagnose.relations import MISSING_POLICIES
    from axiomatic.report.tables import effectiveness_table, print_tables
    from axiomatic.report.writer import write_report

    if not ranker and not run:
        raise fail("nothing to diagnose: give at least one --ranker SPEC or --run FILE")
    fmt = check_format(output_format)
    test_kind = check_test(test)
    shown = console if fmt == "table" else err_console  # csv/json: stdout holds the data only
    if missing not in MISSING_POLICIES:
        raise fail(
            f"unknown --missing {missing!r}{suggest(missing, MISSING_POLICIES)}; "
            f"expected one of {', '.join(MISSING_POLICIES)}"
        )
    parse_measures_or_exit(measures)  # before the work, not after a full diagnosis
    parse_measures_or_exit(measure)
    measure, measures = correlation_measure(measure, measures)
    band_value = band_option(band) if band is not None else None
    band_test = band_test_option(band_test)
    if band is None and band_test != "sign":
        raise fail(
            f"--band-test {band_test} tests the calibrated effects, which need a band; add "
            "--band top-gap, --band abnirml or --band VALUE"
        )
    check_output_dir(out)
    with library_errors(("the same mine call", f"the same `axiomatic mine ... --out {instances}`")):
        mined = load_mined(
            instances, dataset, first_stage=first_stage, candidates=candidates, depth=depth,
            analyzer=analyzer, data_root=data_root, qrels=qrels, skip_malformed=skip_malformed,
            allow_partial=allow_partial, load=load_dataset_cli, echo=_note,
        )  # fmt: skip
    ds, mined_with = mined.dataset, mined.analyzer_spec
    # the analyzer the user asked for (one default everywhere), never silently the manifest's
    an = analyzer_for(analyzer or DEFAULT_ANALYZER, ds)
    named = make_rankers(ranker or [], run or [], ds, an, skip_malformed, data_root)
    rankers = named.rankers
    with library_errors():
        baseline = named.baseline(baseline)  # a name in the table, or the spec typed: -r ql
    lexical = [name for name, r in rankers.items() if uses_analyzer(r)]
    if lexical:
        warn_analyzer_mismatch(an, mined_with, ds, "--ranker " + ", ".join(lexical))
    mined_an = analyzer_for(mined_with or DEFAULT_ANALYZER, ds)
    if run and mined_an != analyzer_for(DEFAULT_ANALYZER, ds):
        warn(
            f"the instances were mined with the '{analyzer_label(mined_an)}' analyzer; a run file "
            "does not record its text processing, and `axiomatic rank` analyzes with 'default' "
            f"unless given --analyzer: rank with --analyzer {analyzer_label(mined_an)!r} (or mine "
            "with the runs' analyzer) so that runs and instances see the same terms"
        )
    shown.print(
        f"analyzer: {analyzer_label(an)}"
        + (" (lexical rankers)" if lexical else "")
        + f"; instances mined with: {analyzer_label(mined_an)}"
        + ("" if mined_with else " (not recorded)"),
        markup=False,
        highlight=False,
    )
    runs = effectiveness_runs(rankers, ds)  # first: a neural model scores each pair once
    with library_errors():
        diag = diagnose_mined(
            mined, rankers, runs=runs, oracle=oracle, missing=missing,
            tie_tolerance=tie_tolerance, band=band_value, band_test=band_test, analyzer=an, legend=named.legend,
            full_names=named.full_names,
        )  # fmt: skip
    eff = None
    if ds.qrels:
        try:
            eff = effectiveness_table(
                runs,
                ds.qrels,
                measures,
                rel_threshold=ds.rel_threshold,
                baseline=baseline,
                test=test_kind,
            )
        except (KeyError, ValueError) as exc:
            raise fail(str(exc.args[0] if exc.args else exc)) from None
    _warn_depths(rankers)
    if fmt == "table":
        print_tables(diag, eff, console=console, min_n=min_n, baseline=baseline)
        _print_pairwise(diag, rankers)
    else:
        _print_diagnosis_data(diag, eff, fmt)
    paths = write_report(
        diag,
        eff,
        out,
        title=f"Axiomatic diagnosis: {ds.name}",
        plots=plots,
        measure=measure,
        min_n=min_n,
        baseline=baseline,
    )
    shown.print(
        f"report: {paths['html']}  (tables: {paths['diagnosis_csv'].name}, {paths['json'].name})",
        markup=False,
    )


def _note(line: str) -> None:
    err_console.print(line, markup=False, highlight=False)


def _print_pairwise(diag: Any, rankers: dict[str, Any]) -> None:
    """For each pairwise ranker: the position-bias rate per axiom (the answer followed the
    position, not the document) and the share of intransitive triples among the comparisons
    of its re-ranked lists (``diag.metadata``)."""
    from axiomatic.diagnose.pairwise import is_pairwise

    for name, r in rankers.items():
        if not is_pairwise(r):
            continue
        bias = diag.metadata.get("position_bias", {}).get(name, {})
        if bias:
            console.print(
                f"position bias of {name} (share of pair instances whose preferred document "
                "changes with the order shown): "
                + ", ".join(f"{k} {v:.2f}" for k, v in bias.items()),
                markup=False,
                highlight=False,
            )
        seen = diag.metadata.get("intransitivity", {}).get(name)
        if seen:
            console.print(
                f"intransitive triples of {name} in its re-ranked lists: {seen['share']:.3f} of "
                f"{seen['triples']} triples",
                markup=False,
                highlight=False,
            )


def _print_diagnosis_data(diag: Any, eff: Any, fmt: str) -> None:
    """``diagnose --format csv|json`` on standard output: the printed table's numbers (one row
    per ranker: measures, then the fraction of fulfilled instances per axiom), or the report's
    JSON (``diagnosis.json``, effectiveness with its test and Holm family included)."""
    import sys

    if fmt == "csv":
        from axiomatic.report.tables import overview_numbers
        from axiomatic.report.writer import csv_text

        frame = overview_numbers(diag, eff).rename_axis("ranker")
        sys.stdout.write(csv_text(frame, diag, index=True))  # names whole, never cut short
    else:
        from axiomatic.diagnose.result import json_default
        from axiomatic.report.writer import report_document

        sys.stdout.write(json.dumps(report_document(diag, eff), indent=2, default=json_default))
        sys.stdout.write("\n")


def _warn_depths(rankers: dict[str, Any]) -> None:
    """Warn when the diagnosed run files have different depths (documents per query)."""
    from axiomatic.report.tables import depth_note

    runs = {n: r.run for n, r in rankers.items() if hasattr(r, "run") and not callable(r.run)}
    note = depth_note(runs)
    if note:
        err_console.print(f"warning: {note}", markup=False, style="yellow")
