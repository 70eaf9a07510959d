"""Data and ranking commands: ``datasets`` and ``rank`` (``evaluate`` is :mod:`axiomatic.cli.evaluate_cmd`)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer
from rich.markup import escape
from rich.table import Table

from axiomatic.cli.app import app
from axiomatic.cli.collection_cmds import DATASET_HELP, QrelsOpt, SkipMalformedOpt
from axiomatic.cli.common import (
    ANALYZER_HELP,
    DEFAULT_ANALYZER,
    FORMAT_HELP,
    JsonAliasOpt,
    analyzer_for,
    analyzer_label,
    check_format,
    check_output_file,
    console,
    err_console,
    fail,
    format_from_json_flag,
    print_records,
)
from axiomatic.cli.run_inputs import CandidatesOpt, DataRoot, FirstStageOpt


def load_dataset_or_exit(
    name: str, data_root: Path | None, qrels: Path | None = None, skip_malformed: bool = False
):
    """Load a dataset (catalog name, irds:, descriptor, rank_llm JSON), turning lookup errors
    into a clean CLI error."""
    from axiomatic.cli.collection_cmds import load_dataset_cli

    return load_dataset_cli(name, data_root, qrels, skip_malformed)


LABEL_NOTES = {
    "cranfield": (
        "labels differ from ir_datasets' irds:cranfield. cranqrel grades on Cleverdon's scale "
        "(1 = most relevant); the catalog converts them to higher-is-better (5 - code), "
        "irds:cranfield keeps the raw codes, so graded measures differ for the same run "
        "(BM25 nDCG@10 0.3635 here vs 0.3325 on irds:cranfield). Use 'cranfield' for graded "
        "evaluation; docs/datasets.md, 'Label conversions'."
    ),
}
"""Catalog datasets whose labels differ from another source of the same collection: shown by
``axiomatic datasets`` so that two numbers for one run are not a mystery."""


@app.command()
def datasets(
    data_root: DataRoot = None,
    counts: Annotated[
        bool, typer.Option("--counts/--no-counts", help="Load each available dataset to count it.")
    ] = False,
    output_format: Annotated[str | None, typer.Option("--format", help=FORMAT_HELP)] = None,
    as_json: JsonAliasOpt = False,
    pattern: Annotated[
        str | None,
        typer.Option(help="Only names matching this glob, e.g. 'xquad-clir/en-*' or 'trec-dl-*'."),
    ] = None,
    action: Annotated[
        list[str] | None,
        typer.Argument(
            help="'init FILE.toml': write a commented dataset descriptor template for your own "
            "collection (topics, passages, qrels, run), usable as --dataset FILE.toml.",
            show_default=False,
        ),
    ] = None,
    force: Annotated[bool, typer.Option("--force", help="init: replace an existing FILE.")] = False,
) -> None:
    """List the dataset catalog: names, descriptions and whether the data is present.

    Your own collection needs no code: `axiomatic datasets init my.toml` writes a descriptor
    template; every --dataset option then takes my.toml (or a rank_llm JSON with --qrels).

    The 432 XQuAD language-pair names are folded into one line unless --pattern selects them.
    """
    fmt = check_format(format_from_json_flag(output_format, as_json))
    if action:
        from axiomatic.cli.collection_cmds import datasets_action

        datasets_action(action, force)
        return
    from axiomatic.data.catalog import list_datasets, load_dataset, resolve_data_root

    root = resolve_data_root(data_root)
    entries = list_datasets(data_root, pattern=pattern)
    rows = []
    folded = 0
    for e in entries:
        if pattern is None and e.name.startswith("xquad-clir/"):
            folded += 1
            if folded > 1:
                continue
            rows.append(
                {
                    "name": "xquad-clir/<q>-<d>/{train,dev,test}",
                    "available": bool(e.available),
                    "description": "XQuAD graded CLIR for every pair of its 12 languages "
                    "(list them with --pattern 'xquad-clir/*')",
                }
            )
            continue
        row = {"name": e.name, "available": bool(e.available), "description": e.description}
        if counts and e.available:
            try:
                row.update(load_dataset(e.name, data_root=data_root).counts())
            except Exception as exc:  # a broken local copy must not hide the rest of the catalog
                row["error"] = str(exc)
        rows.append(row)
    for r in rows:
        if r["name"] in LABEL_NOTES:
            r["note"] = LABEL_NOTES[str(r["name"])]
    if fmt != "table":
        print_records(rows, fmt, {"data_root": str(root), "datasets": rows})
        return
    table = Table(title=escape(f"datasets (data root: {root})"))
    table.add_column("name", style="bold")
    table.add_column("available")
    if counts:
        for col in ("queries", "documents", "qrels", "candidates"):
            table.add_column(col, justify="right")
    table.add_column("description", overflow="fold")
    for r in rows:
        cells: list[str] = [str(r["name"]), "[green]yes[/]" if r["available"] else "[red]no[/]"]
        if counts:
            cells += [str(r.get(c, "")) for c in ("queries", "documents", "qrels", "candidates")]
        cells.append(escape(str(r["description"])))
        table.add_row(*cells)
    console.print(table)
    for r in rows:
        if "note" in r:
            console.print(f"note: {r['name']}: {r['note']}", markup=False, highlight=False)


@app.command()
def rank(
    dataset: Annotated[str, typer.Option("--dataset", "-d", help=DATASET_HELP)],
    ranker: Annotated[
        str,
        typer.Option(
            "--ranker",
            "-r",
            help="Ranker spec, optionally NAME=SPEC: bm25[:k1=0.9,b=0.4], ql[:mu=1000], rm3, "
            "tfidf, minilm (packaged MiniLM), st:DIR (local sentence-transformers folder), "
            "cross-encoder:DIR, hf:DIR (detected), model:DIR, run:FILE. Nothing is downloaded.",
        ),
    ] = "bm25",
    out: Annotated[
        Path,
        typer.Option(
            "--out",
            "-o",
            help="TREC run file to write; '-' writes it to standard output (the summary goes to "
            "standard error), e.g. `axiomatic rank ... -o - | axiomatic evaluate ... --run -`.",
        ),
    ] = Path("run.trec"),
    depth: Annotated[
        int,
        typer.Option(
            min=1,
            help="Documents per query: retrieval depth, candidates re-ranked, or the depth of "
            "--first-stage / --candidates.",
        ),
    ] = 1000,
    tag: Annotated[str | None, typer.Option(help="Run tag (default: the ranker name).")] = None,
    analyzer: Annotated[
        str, typer.Option("--analyzer", help=ANALYZER_HELP + " Used by lexical rankers.")
    ] = DEFAULT_ANALYZER,
    first_stage: FirstStageOpt = None,
    candidates: CandidatesOpt = None,
    qrels: QrelsOpt = None,
    skip_malformed: SkipMalformedOpt = False,
    data_root: DataRoot = None,
) -> None:
    """Rank a dataset: re-rank its candidate lists, or retrieve from the whole collection.

    A neural model on a full-retrieval dataset re-ranks a first stage:
    `axiomatic rank -d scifact/test -r model:models/knrm-ar --first-stage bm25 --depth 100`.
    """
    from axiomatic.cli.run_inputs import with_first_stage
    from axiomatic.data.trec import write_run
    from axiomatic.diagnose.inputs import uses_analyzer
    from axiomatic.rankers.registry import make_ranker

    check_output_file(out)
    ds = load_dataset_or_exit(dataset, data_root, qrels, skip_malformed)
    an = analyzer_for(analyzer, ds)
    ds = with_first_stage(
        ds,
        first_stage=first_stage,
        candidates=candidates,
        depth=depth,
        analyzer=an,
        data_root=data_root,
        skip_malformed=skip_malformed,
    )
    try:
        r = make_ranker(ranker, ds, analyzer=an)
    except (KeyError, ValueError, FileNotFoundError, ImportError) as exc:
        raise fail(str(exc.args[0] if exc.args else exc)) from None
    _check_run_ids_or_exit(ds, tag or r.name, "--tag" if tag else "ranker name (used as run tag)")
    run = rank_run(r, ranker, ds, depth)
    write_run(run, out, tag=tag or r.name)
    n = sum(len(v) for v in run.values())
    lexical = uses_analyzer(r)
    from axiomatic._atomic import is_stdout

    err_console.print(
        f"wrote {'standard output' if is_stdout(out) else out} ({len(run)} queries, {n} lines; "
        + (f"analyzer: {an.describe()}" if lexical else "no text analysis: not a lexical ranker")
        + (f"; candidates: {ds.metadata['first_stage']}" if "first_stage" in ds.metadata else "")
        + ")",
        markup=False,
        highlight=False,
    )
    if ds.qrels:
        from axiomatic.cli.common import report_console
        from axiomatic.evaluate.metrics import evaluate

        res = evaluate(run, ds.qrels, "nDCG@10 RR@10 AP", rel_threshold=ds.rel_threshold)
        report_console(out).print(
            "  ".join(f"{k}={v:.4f}" for k, v in res.items())
            + (f"  (analyzer: {analyzer_label(an)})" if lexical else ""),
            highlight=False,
        )


def rank_run(r: Any, spec: str, ds: Any, depth: int) -> dict[str, dict[str, float]]:
    """The run of ranker ``r`` on ``ds`` (:func:`axiomatic.rankers.base.rank_dataset`), its
    errors as one ``error:`` line."""
    from axiomatic.rankers.base import rank_dataset

    try:
        return rank_dataset(r, ds, depth=depth)
    except (KeyError, ValueError) as exc:  # e.g. a run: ranker whose run lacks a query
        msg = str(exc.args[0] if exc.args else exc)
        raise fail(f"ranker {spec!r}: {msg}" if ds.is_reranking else msg) from None


def _check_run_ids_or_exit(ds, tag: str, tag_what: str) -> None:
    """Fail before ranking when the run could not be written: a tag or an id (query, candidate
    or collection document) that is empty or holds whitespace, which TREC lines cannot carry."""
    from axiomatic.data.trec import check_trec_id, check_trec_ids

    try:
        check_trec_id(tag, tag_what)
        check_trec_ids(ds.queries, "query id")
        if ds.is_reranking:
            check_trec_ids((d for q in ds.queries for d in ds.candidate_ids(q)), "doc id")
        else:
            check_trec_ids(ds.documents, "doc id")
    except ValueError as exc:
        raise fail(f"{exc} (dataset {ds.name})" if "tag" not in tag_what else str(exc)) from None
