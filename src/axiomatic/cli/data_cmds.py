"""Data and ranking commands: ``datasets``, ``rank``, ``evaluate``."""

from __future__ import annotations

import json
import warnings
from pathlib import Path
from typing import Annotated, Any, Literal

import typer
from rich.markup import escape
from rich.table import Table

from axiomatic.cli.app import app
from axiomatic.cli.collection_cmds import DATASET_HELP, QrelsOpt, SkipMalformedOpt
from axiomatic.cli.common import (
    ANALYZER_HELP,
    analyzer_or_exit,
    check_output_file,
    console,
    dataset_language,
    err_console,
    fail,
    warn,
)

DataRoot = Annotated[
    Path | None,
    typer.Option(
        "--data-root",
        help="Folder holding the shared collections (default: $AXIOMATIC_DATA, else ../shared/data).",
    ),
]


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
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON instead of a table.")] = False,
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
    if as_json:
        console.print_json(json.dumps({"data_root": str(root), "datasets": rows}))
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
    out: Annotated[Path, typer.Option("--out", "-o", help="TREC run file to write.")] = Path(
        "run.trec"
    ),
    depth: Annotated[
        int,
        typer.Option(min=1, help="Documents per query (retrieval depth / candidates re-ranked)."),
    ] = 1000,
    tag: Annotated[str | None, typer.Option(help="Run tag (default: the ranker name).")] = None,
    analyzer: Annotated[
        str, typer.Option("--analyzer", help=ANALYZER_HELP + " Used by lexical rankers.")
    ] = "default",
    qrels: QrelsOpt = None,
    skip_malformed: SkipMalformedOpt = False,
    data_root: DataRoot = None,
) -> None:
    """Rank a dataset: re-rank its candidate lists, or retrieve from the whole collection."""
    from axiomatic._progress import track
    from axiomatic.data.trec import write_run
    from axiomatic.rankers.base import rerank
    from axiomatic.rankers.registry import make_ranker

    check_output_file(out)
    ds = load_dataset_or_exit(dataset, data_root, qrels, skip_malformed)
    an = analyzer_or_exit(analyzer, dataset_language(ds))
    try:
        r = make_ranker(ranker, ds, analyzer=an)
    except (KeyError, ValueError, FileNotFoundError, ImportError) as exc:
        raise fail(str(exc.args[0] if exc.args else exc)) from None
    _check_run_ids_or_exit(ds, tag or r.name, "--tag" if tag else "ranker name (used as run tag)")
    if ds.is_reranking:
        try:
            run = rerank(r, ds, depth=depth)
        except (KeyError, ValueError) as exc:  # e.g. a run: ranker whose run lacks a query
            raise fail(f"ranker {ranker!r}: {exc.args[0] if exc.args else exc}") from None
    else:
        retrieve = getattr(r, "retrieve", None)
        if retrieve is None:
            raise fail(
                f"dataset {dataset!r} has no candidate lists and ranker {r.name!r} cannot retrieve "
                "from the whole collection; use a lexical ranker (bm25, ql, rm3, tfidf) or a "
                "re-ranking dataset"
            )
        run = {}
        for q in track(list(ds.iter_queries()), description=f"retrieving with {r.name}"):
            run[q.query_id] = dict(retrieve(q, depth))
    write_run(run, out, tag=tag or r.name)
    n = sum(len(v) for v in run.values())
    err_console.print(
        f"wrote {out} ({len(run)} queries, {n} lines; analyzer: {an.describe()})",
        markup=False,
        highlight=False,
    )
    if ds.qrels:
        from axiomatic.evaluate.metrics import evaluate

        res = evaluate(run, ds.qrels, "nDCG@10 RR@10 AP", rel_threshold=ds.rel_threshold)
        console.print("  ".join(f"{k}={v:.4f}" for k, v in res.items()))


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


@app.command("evaluate")
def evaluate_cmd(
    dataset: Annotated[
        str, typer.Option("--dataset", "-d", help="Dataset with qrels. " + DATASET_HELP)
    ],
    run: Annotated[
        list[str],
        typer.Option(
            "--run",
            help="TREC run file, as PATH or NAME=PATH (repeat the option). Default name: the "
            "run's tag when it has one, else the file name.",
        ),
    ],
    measures: Annotated[
        str, typer.Option(help="ir_measures names, separated by spaces or commas.")
    ] = "nDCG@10 RR@10 AP",
    baseline: Annotated[
        int, typer.Option(min=0, help="Index of the baseline run for significance tests.")
    ] = 0,
    test: Annotated[str, typer.Option(help="Paired test: t or wilcoxon (Holm-corrected).")] = "t",
    per_query: Annotated[
        Path | None, typer.Option(help="Write per-query values to this CSV.")
    ] = None,
    output_format: Annotated[
        str | None,
        typer.Option(
            "--format",
            help="table (terminal) | csv | json: one row per ranker and measure with the mean, "
            "the difference to the baseline and the raw and Holm-corrected p-values. Default: "
            "table on a terminal, csv when the output is a file or pipe.",
        ),
    ] = None,
    qrels: QrelsOpt = None,
    skip_malformed: SkipMalformedOpt = False,
    data_root: DataRoot = None,
) -> None:
    """Evaluate run files with ir_measures; with several runs, mark significant differences."""
    from axiomatic.cli.collection_cmds import read_run_cli
    from axiomatic.evaluate.metrics import (
        NoMatchingQueriesWarning,
        evaluate_per_query,
        parse_measures,
    )
    from axiomatic.evaluate.significance import holm, paired_test

    try:  # first: a bad measure must not wait for the dataset to load
        names = [str(m) for m in parse_measures(measures)]
    except ValueError as exc:
        raise fail(f"bad --measures: {exc}") from None
    if per_query is not None:
        check_output_file(per_query, "--per-query")
    ds = load_dataset_or_exit(dataset, data_root, qrels, skip_malformed)
    if not ds.qrels:
        raise fail(f"dataset {dataset!r} has no relevance judgments to evaluate against")
    if test not in ("t", "wilcoxon"):
        raise fail(f"--test must be 't' or 'wilcoxon' (got {test!r})")
    test_kind: Literal["t", "wilcoxon"] = "t" if test == "t" else "wilcoxon"
    if not 0 <= baseline < len(run):
        raise fail(f"--baseline must index one of the {len(run)} runs (got {baseline})")
    from axiomatic.cli.common import stdout_is_terminal, suggest
    from axiomatic.cli.run_inputs import parse_named_paths

    fmt = output_format or ("table" if stdout_is_terminal() else "csv")
    if fmt not in EVAL_FORMATS:
        raise fail(
            f"unknown --format {fmt!r}; expected one of {', '.join(EVAL_FORMATS)}."
            f"{suggest(fmt, EVAL_FORMATS)}"
        )
    named = parse_named_paths(run)
    per: list = []
    for item in named:
        r = read_run_cli(item.path, skip_malformed)
        _warn_coverage(item.path, r, ds.qrels)
        with warnings.catch_warnings():  # _warn_coverage has said it, with the counts
            warnings.simplefilter("ignore", NoMatchingQueriesWarning)
            per.append(evaluate_per_query(r, ds.qrels, names, rel_threshold=ds.rel_threshold))
    # Holm across every (run, measure) comparison against the baseline.
    pvals: dict[tuple[int, str], float] = {}
    for i in range(len(named)):
        if i == baseline:
            continue
        for m in names:
            a = _values(per[baseline], m)
            b = _values(per[i], m)
            pvals[(i, m)] = paired_test(b, a, test=test_kind).pvalue
    adjusted = dict(zip(pvals, holm(list(pvals.values())), strict=True)) if pvals else {}
    rows: list[dict[str, Any]] = []
    for i, item in enumerate(named):
        for m in names:
            mean = _mean(_values(per[i], m))
            base_mean = _mean(_values(per[baseline], m))
            p_adj = adjusted.get((i, m))
            sig = ""
            if p_adj is not None and p_adj < 0.05:
                sig = "up" if mean > base_mean else "down"
            rows.append(
                {
                    "ranker": item.name,
                    "measure": m,
                    "value": mean,
                    "diff": None if i == baseline else mean - base_mean,
                    "pvalue": pvals.get((i, m)),
                    "pvalue_holm": p_adj,
                    "significant": sig,
                    "baseline": i == baseline,
                    "path": str(item.path),
                }
            )
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
            "baseline": named[baseline].name,
            "test": f"paired {test}-test, Holm-corrected over every (ranker, measure)",
            "results": rows,
        }
        sys.stdout.write(json.dumps(doc, indent=2) + "\n")
    else:
        table = Table(title=escape(f"{ds.name} ({len(ds.qrels)} judged queries)"))
        table.add_column("ranker", style="bold")
        for m in names:
            table.add_column(m, justify="right")
        for i, item in enumerate(named):
            cells = [
                escape(item.name) + (" (baseline)" if i == baseline and len(named) > 1 else "")
            ]
            for row in (r for r in rows if r["ranker"] == item.name):
                mark = {"up": " ▲", "down": " ▼"}.get(str(row["significant"]), "")
                p = row["pvalue_holm"]
                cells.append(f"{row['value']:.4f}{mark}" + ("" if p is None else f" (p={p:.3g})"))
            table.add_row(*cells)
        console.print(table)
        if len(named) > 1:
            console.print(
                f"▲/▼: significant vs baseline (paired {test}-test, Holm-corrected p < 0.05; "
                "p = Holm-corrected p-value)"
            )
        renamed = [
            item for item in named if item.name not in (item.path.name, str(item.path), item.spec)
        ]
        if renamed:
            console.print(
                "rankers: " + "; ".join(f"{item.name} = {item.path}" for item in renamed),
                markup=False,
                highlight=False,
            )
    if per_query is not None:
        import pandas as pd

        frames = []
        for item, df in zip(named, per, strict=True):
            df = df.copy()
            df.insert(0, "ranker", item.name)
            frames.append(df)
        pd.concat(frames).to_csv(per_query, index=False)
        err_console.print(f"wrote {per_query}", markup=False, highlight=False)


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


def _mean(values: dict[str, float]) -> float:
    return sum(values.values()) / max(len(values), 1)


def _values(df, measure: str) -> dict[str, float]:
    sub = df[df["measure"] == measure]
    return dict(zip(sub["query_id"], sub["value"].astype(float), strict=True))
