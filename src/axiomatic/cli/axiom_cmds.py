"""Axiom commands: ``axioms`` (catalogue), ``mine``, ``probe`` and ``counts``; ``diagnose`` and
``rerank`` are :mod:`axiomatic.cli.diagnose_cmd` and :mod:`axiomatic.cli.rerank_cmd`.

Typical session::

    axiomatic axioms
    axiomatic mine --dataset demo --axioms "TFC1,TFC2,M-TDC,LNC2" --out inst/
    axiomatic diagnose --instances inst/ --ranker bm25 --ranker ql --out report/
    axiomatic rerank --dataset demo --axioms "TFC1,M-TDC" --out axio.trec
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.markup import escape

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
    JsonAliasOpt,
    analyzer_for,
    analyzer_label,
    band_option,
    band_test_option,
    check_format,
    check_output_dir,
    cli_wording,
    console,
    err_console,
    fail,
    format_from_json_flag,
    library_errors,
    parameter_text,
    print_records,
    warn_analyzer_mismatch,
)
from axiomatic.cli.run_inputs import (
    CandidatesOpt,
    DataRoot,
    FirstStageOpt,
    make_rankers,
    parse_axioms_or_exit,
    with_first_stage,
)


# ----------------------------------------------------------------------------- axioms
@app.command()
def axioms(
    output_format: Annotated[str | None, typer.Option("--format", help=FORMAT_HELP)] = None,
    as_json: JsonAliasOpt = False,
) -> None:
    """List the axiom catalogue: names, what each relates, variants, parameters and sources.

    One catalogue and one grammar: axioms that relate documents for one query (mine,
    diagnose, rerank) and ARES' query-pair axioms Q-* that relate two queries for one
    document (pretrain ares); an expression combines axioms of one kind.

    Axioms combine with ir_axioms' operators wherever --axioms is taken (mine, diagnose,
    rerank): A & B (decisive only where all agree), A | B (cascade: the first decisive one
    wins, e.g. 'TFC1 | ORIG'), A % B % C (majority vote), 0.5*A + 2*B (weighted sum,
    sign-normalized), -A (negation); e.g. --axioms "(TFC1 | ORIG) % PROX1".
    """
    from rich.table import Table

    from axiomatic.axioms import list_axioms

    # one catalogue: the document axioms, then ARES' query-pair family (<q1, q2, d>)
    fmt = check_format(format_from_json_flag(output_format, as_json))
    rows = list_axioms()
    if fmt != "table":
        print_records(rows, fmt)
        return
    t = Table(
        title='axioms (use e.g. --axioms "TFC1(delta_rel=0.2),M-TDC,LNC2"; relates: documents '
        "for one query (mine, diagnose, rerank) or queries for one document (Q-*: ARES' "
        "query-pair family <q1, q2, d>, for `axiomatic pretrain ares`); an expression combines one "
        "kind)"
    )
    cols = ("name", "arity", "relates", "relation", "variants", "parameters", "description")
    for col in (*cols, "source"):
        t.add_column(col, overflow="fold")
    for r in rows:
        t.add_row(
            escape(str(r.get("name", ""))),
            str(r.get("arity", "")),
            str(r.get("relates", "")),
            escape(str(r.get("relation", ""))),
            ", ".join(map(str, r.get("variants", []))),
            escape("; ".join(parameter_text(p) for p in r.get("parameters", []))),
            escape(str(r.get("description", ""))),
            escape(str(r.get("citation", ""))),
        )
    console.print(t)
    from axiomatic.axioms.algebra import OPERATORS

    ops = Table(title='combining axioms (e.g. --axioms "(TFC1 | ORIG) % PROX1, TFC1 & LNC1")')
    ops.add_column("operator")
    ops.add_column("meaning (as ir_axioms' operators)")
    for symbol, meaning in OPERATORS.values():
        ops.add_row(escape(symbol), escape(meaning))
    console.print(ops)


# ----------------------------------------------------------------------------- mine
@app.command()
def mine(
    dataset: Annotated[str, typer.Option("--dataset", "-d", help=DATASET_HELP)],
    out: Annotated[Path, typer.Option("--out", "-o", help="Output folder of Parquet shards.")],
    axioms: Annotated[
        str,
        typer.Option(
            "--axioms",
            "-a",
            help="Comma-separated axioms, e.g. 'TFC1,TFC2,M-TDC,LNC2' or 'TFC1(delta_rel=0.2)'.",
        ),
    ] = "TFC1,TFC2,M-TDC,LNC2",
    variant: Annotated[
        str | None,
        typer.Option(
            "--variant",
            help="strict | extended | relaxed: applied only to the axioms that have this "
            "variant and do not name their own; the others (e.g. LNC1, only 'extended') keep "
            "their own default, and mine prints which.",
        ),
    ] = None,
    shard_size: Annotated[
        int,
        typer.Option(
            "--shard-size",
            min=1,
            help="Queries per shard: the unit of atomic writing and of resuming (recorded in "
            "the manifest; resuming with another size is refused, use --overwrite).",
        ),
    ] = 100,
    depth: Annotated[
        int | None,
        typer.Option(
            min=1,
            help="Use the first N candidates per query (with --first-stage / --candidates: "
            "their depth, default 100).",
        ),
    ] = None,
    max_per_query: Annotated[
        int | None,
        typer.Option(
            "--max-per-query",
            min=1,
            help="Cap instances per query and axiom: a seeded uniform sample (see --seed); "
            "the manifest records the seed and the uncapped counts.",
        ),
    ] = None,
    seed: Annotated[
        int, typer.Option("--seed", min=0, help="Seed of the --max-per-query sample.")
    ] = 0,
    workers: Annotated[int | None, typer.Option(min=1, help="Local Dask workers.")] = None,
    scheduler: Annotated[str | None, typer.Option(help="Address of a Dask scheduler.")] = None,
    overwrite: Annotated[
        bool, typer.Option(help="Start afresh if OUT holds another configuration.")
    ] = False,
    analyzer: Annotated[
        str,
        typer.Option(
            "--analyzer",
            help=ANALYZER_HELP + " Default: 'default', the analyzer of rank, rerank and "
            "diagnose; 'thesis' reproduces Rennings (2019).",
        ),
    ] = "default",
    first_stage: FirstStageOpt = None,
    candidates: CandidatesOpt = None,
    qrels: QrelsOpt = None,
    skip_malformed: SkipMalformedOpt = False,
    data_root: DataRoot = None,
) -> None:
    """Mine diagnostic instances (axiom pairs/triples) from a dataset's candidate lists.

    Resumable: re-running with the same settings skips the shards already written. A
    full-retrieval dataset (scifact/test) is mined from a first stage, recorded for
    `diagnose`: --first-stage bm25 --depth 100 (or --candidates RUN).
    """
    from axiomatic.diagnose.folder import ManifestError, read_manifest, record_dataset_files
    from axiomatic.diagnose.inputs import kept_default_variant, record_first_stage
    from axiomatic.diagnose.mining import mine as mine_fn

    check_output_dir(out)
    try:
        read_manifest(out)
    except ManifestError as exc:
        if overwrite:  # start afresh
            exc.path.unlink()
        elif exc.nested:
            raise fail(str(exc)) from None
        else:
            raise fail(
                f"{exc.path} is corrupt ({exc.reason}); re-run with --overwrite to mine afresh "
                "into this folder, or choose another --out"
            ) from None
    ds = load_dataset_cli(dataset, data_root, qrels, skip_malformed)
    an = analyzer_for(analyzer, ds)
    staged = first_stage is not None or candidates is not None
    ds = with_first_stage(
        ds,
        first_stage=first_stage,
        candidates=candidates,
        depth=depth or 100,
        analyzer=an,
        data_root=data_root,
        skip_malformed=skip_malformed,
    )
    axs = parse_axioms_or_exit(axioms, variant)
    kept = kept_default_variant(axs, variant)
    if kept:
        console.print(
            f"[yellow]--variant {variant}:[/] not a variant of "
            + escape(", ".join(f"{a.name} (kept its default {a.variant!r})" for a in kept))
        )
    with library_errors():
        summary = mine_fn(
            ds,
            axs,
            out,
            shard_size=shard_size,
            depth=depth,
            max_instances_per_query=max_per_query,
            workers=workers,
            scheduler=scheduler,
            overwrite=overwrite,
            analyzer=an,
            seed=seed,
        )
    record_dataset_files(out, ds, qrels)  # so that `diagnose` finds a file-defined dataset
    if staged:  # so that `diagnose` rebuilds the same candidate lists
        record_first_stage(out, first_stage, candidates, depth or 100, an)
    from rich.table import Table

    t = Table(
        title=escape(
            f"mined {summary['instances']:,} instances from {dataset} into {out} (analyzer: "
            f"{analyzer_label(an)})"
        ),
        caption=escape(f"analyzer: {an.describe()}"),
    )
    t.add_column("axiom")
    t.add_column("instances", justify="right")
    for k, v in summary["per_axiom"].items():
        t.add_row(k, f"{v:,}")
    console.print(t)
    skips = {k: v for k, v in summary.get("skips", {}).items() if v}
    if skips:
        console.print(
            "[yellow]skipped:[/] " + escape(", ".join(f"{k} {v:,}" for k, v in skips.items()))
        )
    console.print(
        f"pairs examined: {summary.get('pairs_examined', 0):,}; shards written "
        f"{summary['shards'] - summary.get('shards_skipped', 0)}, resumed "
        f"{summary.get('shards_skipped', 0)}"
    )
    redone = summary.get("shards_redone") or []
    if redone:
        err_console.print(
            f"[yellow]note:[/] mined again {len(redone)} shard(s) that were truncated or corrupt "
            "on disk, or differ from the manifest: " + escape(", ".join(redone)),
            highlight=False,
        )
    removed = summary.get("shards_removed") or []
    if removed:
        err_console.print(
            f"[yellow]note:[/] removed {len(removed)} shard file(s) the manifest did not list "
            "(a copy, or a leftover of an earlier run): " + escape(", ".join(removed)),
            highlight=False,
        )


@app.command()
def probe(
    dataset: Annotated[str, typer.Option("--dataset", "-d", help=DATASET_HELP)],
    out: Annotated[Path, typer.Option("--out", "-o", help="Report folder (CSV, JSON, HTML).")],
    ranker: Annotated[
        list[str],
        typer.Option(
            "--ranker",
            "-r",
            help="Ranker spec (repeatable), optionally NAME=SPEC, as in `axiomatic diagnose` "
            "(run files cannot score manipulated texts).",
        ),
    ],
    probes: Annotated[
        str,
        typer.Option(
            "--probes",
            help="Comma-separated text manipulations, or all. This project's: shuffle-words, "
            "shuffle-sentences, swap-letters, remove-stopwords, case-fold, "
            "append-other-query-sentence, remove-sentence; ABNIRML's (as it names them): Typo, "
            "Typo-nostops, AddSent-start, AddSent-end (these two need relevance judgments; "
            "'all' leaves them out on a dataset without).",
        ),
    ] = "all",
    depth: Annotated[
        int, typer.Option(min=1, help="Candidates per query to manipulate (the top ones).")
    ] = 10,
    seed: Annotated[int, typer.Option(min=0, help="Seed of every manipulation.")] = 0,
    band: Annotated[
        str,
        typer.Option(
            "--band",
            help=BAND_HELP,
        ),
    ] = "auto",
    band_test: Annotated[
        str, typer.Option("--band-test", help=BAND_TEST_HELP, show_default=True)
    ] = "sign",
    analyzer: Annotated[
        str | None, typer.Option("--analyzer", help=ANALYZER_HELP + " For lexical rankers.")
    ] = None,
    plots: Annotated[bool, typer.Option(help="Write PNG plots.")] = True,
    data_root: DataRoot = None,
) -> None:
    """Probe rankers with text manipulations (after ABNIRML): the effect of shuffling words,
    misspellings, ... on each ranker's scores of a dataset's top candidates, against its
    no-difference band.

    Each pair is (original, manipulated): a positive effect means the ranker prefers the
    original text by more than its band. The report is a diagnosis report (`diagnose`'s
    files), with the probe sample's hash.
    """
    from axiomatic.diagnose.diagnosis import diagnose as diagnose_fn
    from axiomatic.diagnose.probes import dataset_probes, parse_probes, probe_instances
    from axiomatic.report.tables import print_tables
    from axiomatic.report.writer import write_report

    try:
        parse_probes(probes)  # before loading anything
    except ValueError as exc:
        raise fail(
            str(exc).replace("unknown probe", "unknown --probes").replace("probe '", "--probes '")
        ) from None
    band_value = band_option(band)
    band_test = band_test_option(band_test)
    check_output_dir(out)
    ds = load_dataset_cli(dataset, data_root)
    an = analyzer_for(analyzer or DEFAULT_ANALYZER, ds)
    named = make_rankers(ranker, [], ds, an, False, data_root)
    rankers, legend = named.rankers, named.legend
    names = dataset_probes(probes, ds)
    try:
        inst, art = probe_instances(ds, names, depth=depth, seed=seed)
    except ValueError as exc:
        raise fail(str(exc)) from None
    if inst.empty:
        raise fail(f"no probe changed any of the top {depth} candidates of {ds.name!r}")
    skipped = {p: n for p, n in inst.attrs.get("skipped", {}).items() if n}
    if skipped:
        console.print(
            "left unchanged (no pair): "
            + ", ".join(f"{p} {n:,} documents" for p, n in skipped.items()),
            markup=False,
            highlight=False,
        )
    with library_errors():
        diag = diagnose_fn(
            inst,
            rankers,
            ds,
            art,
            band=band_value,
            band_test=band_test,  # type: ignore[arg-type]
        )
    diag.metadata["analyzer"] = an.describe()
    diag.metadata["legend"] = legend
    diag.metadata["probes"] = {"probes": names, "depth": depth, "seed": seed}
    print_tables(diag, None, console=console)
    paths = write_report(
        diag,
        None,
        out,
        title=f"Text probes: {ds.name}",
        plots=plots,
        notes=[
            f"Probes {', '.join(names)} on the top {depth} candidates of each query (seed "
            f"{seed}); doc_a = the original, doc_b = the manipulated text: a positive effect "
            "means the ranker prefers the original by more than its band."
        ],
    )
    console.print(
        f"report: {paths['html']}  (tables: {paths['diagnosis_csv'].name}, {paths['json'].name})",
        markup=False,
    )


@app.command()
def counts(
    dataset: Annotated[
        str,
        typer.Option(
            "--dataset", "-d", help="Re-ranking dataset to count instances in. " + DATASET_HELP
        ),
    ],
    axioms: Annotated[str, typer.Option(help="Axioms (comma separated).")] = "TFC1,TFC2,M-TDC,LNC2",
    delta_rel: Annotated[
        float,
        typer.Option(min=0.0, help="Relative length tolerance delta* of the relaxed stage."),
    ] = 0.1,
    depth: Annotated[
        int | None, typer.Option(min=1, help="Only the first DEPTH candidates.")
    ] = None,
    instances: Annotated[
        Path | None,
        typer.Option(
            help="A folder written by `axiomatic mine`: also print the per-split counts "
            "(Tables 3.8/3.9) and the relevance-presence table (3.10/3.11)."
        ),
    ] = None,
    analyzer: Annotated[
        str,
        typer.Option(
            "--analyzer",
            help=ANALYZER_HELP + " Default: 'default' (as every command); the thesis' Tables "
            "3.6-3.11 are reproduced with --analyzer thesis.",
        ),
    ] = "default",
    qrels: QrelsOpt = None,
    skip_malformed: SkipMalformedOpt = False,
    data_root: DataRoot = None,
) -> None:
    """Instance counts per conversion stage: original, extended, extended + length relaxation
    only, relaxed (Rennings 2019, Tables 3.6/3.7), as markdown.

    The text is analyzed as by every other command (--analyzer default); the thesis' tables
    used --analyzer thesis (no stopword removal), the preset that reproduces them.
    """
    from axiomatic.data.instances import MANIFEST, manifest_path
    from axiomatic.diagnose.counts import presence_table, split_counts, variant_counts
    from axiomatic.report.tables import to_markdown

    if instances is not None and not manifest_path(instances).is_file():
        raise fail(
            f"--instances {instances} holds no mined instances (no {MANIFEST}); write them "
            f"with `axiomatic mine --dataset {dataset} --out {instances}` first"
        )
    ds = load_dataset_cli(dataset, data_root, qrels, skip_malformed)
    an = analyzer_for(analyzer, ds)
    parsed = parse_axioms_or_exit(axioms)
    combined = [a.name for a in parsed if a.variant == "combined"]
    if combined:
        raise fail(
            f"counts takes single axioms (its stages are the variants of one axiom); "
            f"{', '.join(repr(c) for c in combined)} combines axioms: list them one by one"
        )
    names = [a.name for a in parsed]
    try:
        table = variant_counts(ds, names, depth=depth, delta_rel=delta_rel, analyzer=an)
    except (KeyError, ValueError) as exc:
        raise fail(str(exc.args[0] if exc.args else exc)) from None
    wide = table.pivot_table(index="axiom", columns="stage", values="instances", sort=False)
    tuples = table.groupby("axiom", sort=False)["tuples"].max()
    wide["tuples"] = tuples
    console.print(
        f"## {ds.name}: instances per stage (relaxed: delta*={delta_rel}; analyzer: "
        f"{analyzer_label(an)})\n",
        markup=False,
        highlight=False,
    )
    console.print(to_markdown(wide.fillna(-1).astype(int).replace(-1, "-")), markup=False)
    console.print(f"\nanalyzer: {an.describe()}", markup=False, highlight=False)
    if instances is not None:
        from axiomatic.data.instances import read_instances
        from axiomatic.diagnose.folder import manifest_analyzer, unreadable_instances

        try:
            inst, _ = read_instances(instances, allow_partial=True)
        except (OSError, ValueError) as exc:
            raise fail(cli_wording(unreadable_instances(instances, exc))) from None
        if inst.attrs.get("partial"):
            console.print(f"({inst.attrs['partial']}: an unfinished mining run)", markup=False)
        mined_with = manifest_analyzer(instances) or "default (not recorded)"
        console.print(f"\ninstances of {instances}: analyzer {mined_with}", markup=False)
        warn_analyzer_mismatch(an, manifest_analyzer(instances), ds, "counts", "--instances")
        console.print("\n## instances per split\n")
        console.print(to_markdown(split_counts(inst)), markup=False)
        console.print("\n## relevance of (preferred, other) documents\n")
        console.print(
            to_markdown(presence_table(inst, ds.rel_threshold), index=False), markup=False
        )
