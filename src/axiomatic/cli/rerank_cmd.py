"""``axiomatic rerank``: axiomatic re-ranking of a base run (parse, one library call, print).

The re-ranking is :func:`axiomatic.diagnose.rerank.rerank_from_base` (the base resolution of
:func:`~axiomatic.diagnose.rerank.base_ranking`, learned weights, the re-ranking itself); this
module writes the run and prints its effectiveness.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

import typer

from axiomatic.cli.app import app
from axiomatic.cli.collection_cmds import (
    DATASET_HELP,
    QrelsOpt,
    SkipMalformedOpt,
    load_dataset_cli,
)
from axiomatic.cli.common import (
    ANALYZER_HELP,
    FORMAT_HELP,
    analyzer_for,
    analyzer_label,
    check_format,
    check_output_file,
    err_console,
    fail,
    library_errors,
    report_console,
)
from axiomatic.cli.run_inputs import (
    DEFAULT_MEASURES,
    DataRoot,
    parse_axioms_or_exit,
    parse_measures_or_exit,
)


@app.command()
def rerank(
    dataset: Annotated[str, typer.Option("--dataset", "-d", help=DATASET_HELP)],
    out: Annotated[
        Path,
        typer.Option("--out", "-o", help="Output TREC run file; '-' writes it to standard output."),
    ],
    axioms: Annotated[
        str, typer.Option("--axioms", "-a", help="Comma-separated axioms to aggregate.")
    ] = "TFC1,TFC2,M-TDC,LNC2",
    base: Annotated[
        str | None,
        typer.Option(
            help="Base ranking: 'dataset' (the run that defines the dataset, e.g. Anserini's "
            "BM25 for trec-dl-2019/bm25, else its candidate order; the default for datasets "
            "defined by a run), a ranker spec (bm25, ql, [NAME=]st:DIR, ...; the default "
            "otherwise: bm25) scoring the dataset's candidates, or a run: run:PATH, PATH or a "
            "catalog system (trec-dl-2019/splade-pp), whose own ranking is re-ranked "
            "(documents outside the candidates get their text from the collection)."
        ),
    ] = None,
    depth: Annotated[int, typer.Option(min=1, help="Re-rank the top N of the base run.")] = 20,
    aggregation: Annotated[
        str,
        typer.Option(
            help="Preference aggregation: majority | weighted (--weights) | learned (weights "
            "fitted on --train-dataset with --train-run or the --base ranker)."
        ),
    ] = "majority",
    weights: Annotated[
        str | None,
        typer.Option(
            "--weights",
            help="Axiom weights for --aggregation weighted: one per pairwise axiom in --axioms "
            "order ('2,1,0.5') or by name ('TFC1=2,M-TDC=0.5'; unnamed ones weigh 1).",
        ),
    ] = None,
    train_run: Annotated[
        str | None,
        typer.Option(
            "--train-run",
            help="Base run of --train-dataset for --aggregation learned (default: the --base "
            "ranker applied to it; a run:PATH --base must be given its own --train-run).",
        ),
    ] = None,
    imitate: Annotated[
        str | None,
        typer.Option(
            "--imitate",
            help="For --aggregation learned: fit the weights to imitate this run of "
            "--train-dataset ([NAME=][run:]FILE; its pairwise order, any ranker's scores) "
            "instead of the qrels.",
        ),
    ] = None,
    order: Annotated[
        str,
        typer.Option(
            "--order",
            help="How the aggregated preferences become an order: kwiksort (seeded pivots) | "
            "bradley-terry (maximum-likelihood strengths; cycles tie) | pagerank (losers link "
            "to winners) | wins (comparisons won). Ties and cycles keep the base order.",
        ),
    ] = "kwiksort",
    seed: Annotated[int, typer.Option(min=0, help="Seed of the KwikSort pivots.")] = 0,
    train_dataset: Annotated[
        str | None,
        typer.Option(
            "--train-dataset",
            help="Dataset (with qrels) to fit the axiom weights on, "
            "for --aggregation learned (e.g. msmarco-dev-top20/train).",
        ),
    ] = None,
    measures: Annotated[str, typer.Option(help="Measures to report.")] = DEFAULT_MEASURES,
    analyzer: Annotated[
        str,
        typer.Option("--analyzer", help=ANALYZER_HELP + " Used by the axioms and the base ranker."),
    ] = "default",
    output_format: Annotated[str | None, typer.Option("--format", help=FORMAT_HELP)] = None,
    qrels: QrelsOpt = None,
    skip_malformed: SkipMalformedOpt = False,
    data_root: DataRoot = None,
) -> None:
    """Re-rank a base run by aggregated axiom preferences (Hagen et al. 2016), ordered by
    KwikSort, Bradley-Terry or PageRank (--order)."""
    from axiomatic._atomic import is_stdout
    from axiomatic.data.trec import write_run
    from axiomatic.diagnose.inputs import parse_weights
    from axiomatic.diagnose.rerank import check_rerank_options, rerank_from_base

    with library_errors():  # before any data is loaded
        check_rerank_options(
            aggregation, order, weights=weights, train=train_dataset, train_run=train_run,
            imitate=imitate,
        )  # fmt: skip
    parse_measures_or_exit(measures)
    fmt = check_format(output_format)
    check_output_file(out)
    ds = load_dataset_cli(dataset, data_root, qrels, skip_malformed)
    an = analyzer_for(analyzer, ds)
    axs = parse_axioms_or_exit(axioms)
    with library_errors():
        given = (
            None if weights is None else parse_weights(weights, [a for a in axs if a.arity == 2])
        )
    train = None if train_dataset is None else load_dataset_cli(train_dataset, data_root)
    with library_errors():
        done = rerank_from_base(
            ds, axs, base, depth=depth, aggregation=aggregation, weights=given, order=order,
            seed=seed, analyzer=an, train=train, train_run=train_run, imitate=imitate,
            train_label=train_dataset, data_root=data_root, skip_malformed=skip_malformed,
            echo=_note,
        )  # fmt: skip
    if done.combination is not None:
        report_console(out).print(
            f"learned combination (reusable as --axioms): {done.combination.name}", markup=False
        )
    _warn_rerank_depths(done.base.run, done.train_run, depth)
    new_run, base_run, base_label = done.run, done.base.run, done.base.label
    ds = done.base.dataset
    write_run(new_run, out, tag="axiomatic")
    lines = sum(len(v) for v in new_run.values())
    (report_console(out) if fmt == "table" else err_console).print(
        f"wrote {'standard output' if is_stdout(out) else out} ({lines:,} lines, "
        f"{len(new_run)} queries; analyzer: {an.describe()})",
        markup=False,
    )
    if ds.qrels:
        from axiomatic.report.tables import effectiveness_table, rich_table

        # the order is named by what made it; the base is the baseline of the paired test
        name = f"axiomatic ({aggregation}, {order})"
        base_name = f"base {base_label}"
        try:
            eff = effectiveness_table(
                {base_name: base_run, name: new_run},
                ds.qrels,
                measures,
                baseline=base_name,
                rel_threshold=ds.rel_threshold,
            )
        except ValueError as exc:  # e.g. a paired test over one judged query
            raise fail(str(exc)) from None
        from axiomatic.report.tables import RANKER, effectiveness_family

        family = effectiveness_family(eff)
        if fmt != "table":
            _print_records(eff, fmt, out, {"dataset": str(ds.name), "analyzer": an.describe()})
            return
        import pandas as pd

        cells = eff.assign(
            cell=[
                f"{v:.3f}"
                + {"up": " ▲", "down": " ▼"}.get(str(sig), "")
                + ("" if pd.isna(p) else f" (p={p:.3g})")
                for v, sig, p in zip(
                    eff["value"], eff["significant"], eff["pvalue_holm"], strict=True
                )
            ]
        )
        wide = cells.pivot_table(
            index=RANKER, columns="measure", values="cell", aggfunc="first", sort=False
        )
        report_console(out).print(
            rich_table(
                wide,
                title=f"{dataset}: effectiveness (analyzer: {analyzer_label(an)})",
                caption=f"▲/▼: significant vs {base_name} (Holm-corrected p < 0.05); p = "
                f"Holm-corrected p-value; {family}",
            )
        )
    else:
        err_console.print("[yellow]note:[/] the dataset has no qrels; nothing evaluated")


def _note(line: str) -> None:
    err_console.print(line, markup=False, highlight=False)


def _warn_rerank_depths(base_run: Any, train_run: Any, depth: int) -> None:
    """Warn when the base run is shallower than --depth, or when the run the weights are
    learned on (--train-run) has another depth than the run they re-rank (e.g. RepLLaMA's
    top-200 next to a top-100 run): the learned weights then describe another candidate pool."""
    from axiomatic.report.tables import depth_note

    runs = {"--base": base_run}
    if train_run is not None:
        runs["--train-run"] = train_run
    notes = []
    shallow = max((len(docs) for docs in base_run.values()), default=0)
    if 0 < shallow < depth:
        notes.append(
            f"the base run has at most {shallow} documents per query, fewer than --depth {depth}: "
            "the re-ranked lists are that deep"
        )
    cut = {n: {q: dict(list(d.items())[:depth]) for q, d in r.items()} for n, r in runs.items()}
    note = depth_note(cut)
    if note:
        notes.append(note)
    for n in notes:
        err_console.print(f"warning: {n}", markup=False, style="yellow")


def _print_records(
    eff: Any, fmt: str, out: Path | None = None, meta: dict[str, Any] | None = None
) -> None:
    """An effectiveness table as ``--format csv|json`` (with the test and Holm family of its
    significance marks on every row); on standard error when the run itself went to
    standard output (``-o -``)."""
    from axiomatic.report.writer import effectiveness_records

    records = effectiveness_records(eff)
    if fmt == "csv":
        text = records.to_csv(index=False)
    else:
        doc = dict(meta or {})
        doc["results"] = json.loads(records.to_json(orient="records"))
        text = json.dumps(doc, indent=2) + "\n"
    report_console(out).file.write(text)
