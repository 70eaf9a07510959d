"""``axiomatic explain``: axiomatic explanations of rankers and run files (Völske et al. 2021).

axiomatic explain --dataset demo --ranker bm25 --ranker ql --out expl/
axiomatic explain --dataset trec-dl-2019/union --run splade=runs/splade.trec --out expl/
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer
from rich.markup import escape

from axiomatic.cli.app import app
from axiomatic.cli.collection_cmds import DATASET_HELP, SkipMalformedOpt
from axiomatic.cli.common import ANALYZER_HELP, check_output_dir, console, fail


@app.command()
def explain(
    dataset: Annotated[str, typer.Option("--dataset", "-d", help=DATASET_HELP)],
    ranker: Annotated[
        list[str] | None,
        typer.Option(
            "--ranker",
            "-r",
            help="Ranker spec to explain (repeatable), optionally NAME=SPEC: bm25, ql, rm3, "
            "minilm, model:DIR ... (see `axiomatic rank --help`); it re-ranks the dataset's "
            "candidate lists.",
        ),
    ] = None,
    run: Annotated[
        list[str] | None,
        typer.Option(
            "--run",
            help="TREC run file to explain, as PATH or NAME=PATH (repeatable); its top "
            "documents that the dataset has are explained.",
        ),
    ] = None,
    axioms: Annotated[
        str | None,
        typer.Option(
            "--axioms",
            "-a",
            help="Pairwise axioms used as features (default: every pairwise axiom but LB1, "
            "ORIG and LNC2, which cannot explain a ranking of real candidates).",
        ),
    ] = None,
    depth: Annotated[
        int, typer.Option(min=2, help="Explain all pairs of each query's top DEPTH documents.")
    ] = 20,
    max_pairs: Annotated[
        int | None,
        typer.Option(
            "--max-pairs",
            min=1,
            help="Seeded uniform sample of at most this many pairs per query (deep lists).",
        ),
    ] = None,
    folds: Annotated[int, typer.Option(min=2, help="Query-grouped cross-validation folds.")] = 5,
    trees: Annotated[int, typer.Option(min=1, help="Trees of the random forest.")] = 100,
    seed: Annotated[int, typer.Option(help="Seed of pair orientation, folds and forest.")] = 0,
    out: Annotated[
        Path | None,
        typer.Option(
            "--out",
            "-o",
            help="Folder for the CSV tables, explanations.png, .md and .html (default: only "
            "print the summary).",
        ),
    ] = None,
    analyzer: Annotated[str | None, typer.Option("--analyzer", help=ANALYZER_HELP)] = None,
    skip_malformed: SkipMalformedOpt = False,
    data_root: Annotated[
        Path | None,
        typer.Option("--data-root", help="Folder holding the shared collections."),
    ] = None,
) -> None:
    """Explain rankers by the axioms: fidelity of a random forest over axiom preferences."""
    from axiomatic.cli.axiom_cmds import _analyzer_for, _load_dataset, _make_rankers
    from axiomatic.cli.collection_cmds import read_run_cli
    from axiomatic.cli.run_inputs import parse_named_paths
    from axiomatic.explain import explain as explain_fn
    from axiomatic.explain import explanation_axioms, write_explanation
    from axiomatic.index.cache import dataset_index

    if not ranker and not run:
        raise fail("nothing to explain: give at least one --ranker SPEC or --run FILE")
    if out is not None:
        check_output_dir(out)
    try:
        explanation_axioms(axioms)  # before the work: unknown or unusable axioms
    except (ValueError, KeyError) as exc:
        raise fail(f"bad --axioms: {exc.args[0] if exc.args else exc}") from None
    ds = _load_dataset(dataset, data_root)
    an = _analyzer_for(analyzer, ds)
    systems: dict[str, Any] = dict(_make_rankers(list(ranker or []), [], ds, analyzer=an))
    for item in parse_named_paths(list(run or []), "--run"):
        name, k = item.name, 2
        while name in systems:
            name, k = f"{item.name}-{k}", k + 1
        systems[name] = read_run_cli(item.path, skip_malformed)
    index = dataset_index(ds, analyzer=an)
    try:
        expl = explain_fn(
            ds,
            systems,
            axioms=axioms,
            index=index,
            depth=depth,
            folds=folds,
            seed=seed,
            n_estimators=trees,
            max_pairs=max_pairs,
        )
    except ValueError as exc:
        raise fail(str(exc)) from None
    cols = ["system", "queries", "pairs", "fidelity", "ci_low", "ci_high", "random_fidelity"]
    from rich.table import Table

    table = Table(title=f"axiomatic explanations: {escape(ds.name)} (top-{depth} pairs)")
    for c in [*cols, "top_axioms"]:
        table.add_column(c)
    for _, row in expl.summary.iterrows():
        table.add_row(
            *[
                escape(str(row[c])) if not isinstance(row[c], float) else f"{row[c]:.3f}"
                for c in [*cols, "top_axioms"]
            ]
        )
    console.print(table)
    if out is not None:
        files = write_explanation(expl, out, title=f"Axiomatic explanations: {ds.name}")
        console.print(f"report: {escape(str(files['html']))} (CSV, PNG and markdown beside it)")
