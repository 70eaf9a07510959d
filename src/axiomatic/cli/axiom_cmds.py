"""Axiom commands: ``axioms`` (catalogue), ``mine``, ``diagnose``, ``probe`` and ``rerank``.

Typical session::

    axiomatic axioms
    axiomatic mine --dataset demo --axioms "TFC1,TFC2,M-TDC,LNC2" --out inst/
    axiomatic diagnose --instances inst/ --ranker bm25 --ranker ql --out report/
    axiomatic rerank --dataset demo --axioms "TFC1,M-TDC" --out axio.trec
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.markup import escape

from axiomatic._suggest import suggest
from axiomatic.cli.app import app
from axiomatic.cli.collection_cmds import DATASET_HELP, QrelsOpt, SkipMalformedOpt
from axiomatic.cli.common import (
    ANALYZER_HELP,
    DEFAULT_ANALYZER,
    FORMAT_HELP,
    JsonAliasOpt,
    analyzer_label,
    check_format,
    check_output_dir,
    check_output_file,
    check_test,
    console,
    err_console,
    fail,
    format_from_json_flag,
    print_records,
    report_console,
    warn,
    warn_analyzer_mismatch,
)
from axiomatic.cli.run_inputs import CandidatesOpt, FirstStageOpt

DataRoot = Annotated[
    Path | None,
    typer.Option(
        "--data-root",
        help="Folder holding the shared collections (default: $AXIOMATIC_DATA, else ../shared/data).",
    ),
]
DEFAULT_MEASURES = "nDCG@10 AP RR@10"


def _load_dataset(
    name: str, data_root: Path | None, qrels: Path | None = None, skip_malformed: bool = False
) -> Any:
    from axiomatic.cli.collection_cmds import load_dataset_cli

    return load_dataset_cli(name, data_root, qrels, skip_malformed)


def axiom_list(text: str) -> str:
    """``--axioms`` with the separators ``--measures`` accepts (commas and/or spaces outside
    parentheses) as the comma-separated list the axiom parser reads; a comma-separated item
    that combines axioms (``"TFC1 & LNC1"``, see ``axioms/algebra.py``) stays whole, spaces
    included."""
    from axiomatic._keyvalue import split_top_level
    from axiomatic.axioms.algebra import is_expression
    from axiomatic.evaluate.metrics import split_measure_string

    try:
        items = split_top_level(text)
    except ValueError:
        return ",".join(split_measure_string(text))  # the parser reports the imbalance
    out: list[str] = []
    for item in items:
        words = [item] if is_expression(item) else split_measure_string(item)
        for word in words[1:-1]:
            if word.lower() == "and":  # the AND axiom, though the user meant a connective
                rest = [w for w in words if w.lower() != "and"]
                also = dict.fromkeys("AND" if w.lower() == "and" else w for w in words)
                raise ValueError(
                    f"{word!r} between axioms in {item!r} would be mined as one more axiom (the "
                    f"AND axiom), not read as a connective: list the axioms with commas "
                    f"({','.join(rest)!r}), combine them with an operator "
                    f"({' & '.join(rest)!r}), or, to mine the AND axiom too, name it in a "
                    f"comma-separated list ({','.join(also)!r})"
                )
        out += words
    return ",".join(out)


def _parse_axioms_or_exit(text: str, variant: str | None = None) -> list[Any]:
    """Parsed ``Axiom`` values of ``--axioms``; ``variant`` (``--variant``) applies to every
    axiom whose string does not set its own (decided on the parsed parameters, not the text)."""
    from axiomatic.axioms import parse_axioms

    try:
        return parse_axioms(
            axiom_list(text), default_variant=_check_variant(variant), relates="documents"
        )
    except (KeyError, ValueError, SyntaxError) as exc:
        raise fail(f"bad --axioms {text!r}: {exc.args[0] if exc.args else exc}") from None


_CORRUPT: dict[str, Any] = {}  # sentinel: _load_manifest found a corrupt file and may replace it

# Library messages name API arguments; the CLI user needs the flags.
_API_TO_CLI = (
    (
        "Use missing='min' to rank absent documents below the run's lowest score for the query "
        "(registry spec: run:PATH,missing=min).",
        "Pass the run as --ranker run:FILE,missing=min to rank absent documents below the "
        "run's lowest score for the query.",
    ),
    ("(registry spec: run:PATH,missing=min)", "(--ranker run:FILE,missing=min)"),
    (
        "pass artificial_docs from axiomatic.read_instances",
        "the instances folder lacks its artificial documents (artificial_docs.parquet); "
        "mine again with `axiomatic mine ... --overwrite`",
    ),
    (
        "with missing='min' (spec run:PATH,missing=min)",
        "by passing the run as --ranker run:FILE,missing=min (or --base run:FILE,missing=min)",
    ),
    ("or pass oracle=False", "or pass --no-oracle"),
    ("pass overwrite=True", "pass --overwrite"),
    ("(overwrite=True)", "(`axiomatic mine ... --overwrite`)"),
    ("use a new output directory", "use a new --out folder"),
    ("Use a new output directory", "Use a new --out folder"),
    ("pass allow_partial=True", "pass --allow-partial"),
)


def _cli_wording(message: str) -> str:
    for api, cli in _API_TO_CLI:
        message = message.replace(api, cli)
    return message


def _parse_measures_or_exit(measures: str) -> None:
    from axiomatic.evaluate.metrics import parse_measures

    try:
        parse_measures(measures)
    except ValueError as exc:
        raise fail(f"bad --measures: {exc}") from None


def _load_manifest(folder: Path, command: str = "diagnose") -> dict[str, Any]:
    """``folder/manifest.json`` as a dict (``{}`` when absent); a corrupt one is an error naming
    the file and the fix, or, for ``mine --overwrite``, :data:`_CORRUPT` (start afresh)."""
    path = folder / "manifest.json"
    if not path.is_file():
        return {}
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        from axiomatic.diagnose.mining import manifest_problem

        problem = manifest_problem(data)  # e.g. a "config" that is not an object
        if problem is not None:
            raise ValueError(problem)
    except RecursionError:
        if command == "mine-overwrite":
            return _CORRUPT
        raise fail(
            f"{path} is corrupt (its JSON nests too deep to read); mine the instances again "
            f"(`axiomatic mine ... --out {folder} --overwrite`)"
        ) from None
    except (ValueError, UnicodeDecodeError) as exc:
        if command == "mine-overwrite":
            return _CORRUPT
        fix = (
            "re-run with --overwrite to mine afresh into this folder, or choose another --out"
            if command == "mine"
            else f"mine the instances again (`axiomatic mine ... --out {folder} --overwrite`)"
        )
        raise fail(f"{path} is corrupt ({exc}); {fix}") from None
    return data


def _unreadable_instances(folder: Path, exc: BaseException) -> str:
    """Name the shard that cannot be read (a truncated or corrupt Parquet file) and the fix."""
    import pyarrow.parquet as pq

    from axiomatic.data.instances import InstancesMismatchError

    if isinstance(exc, InstancesMismatchError):  # names its file and the fix already
        return _cli_wording(str(exc)).replace(
            "the same mine call", f"the same `axiomatic mine ... --out {folder}`"
        )

    bad = None
    for p in sorted(folder.glob("shard-*.parquet")) + sorted(folder.glob("artificial*/*.parquet")):
        try:
            pq.read_metadata(p)
        except Exception:  # any failure to read the footer marks the culprit
            bad = p
            break
    if bad is None and (folder / "artificial_docs.parquet").is_file():
        bad = folder / "artificial_docs.parquet"
    what = f"{bad} is corrupt or truncated" if bad else f"the instances in {folder} are unreadable"
    return (
        f"{what} ({type(exc).__name__}: {exc}); mine them again: `axiomatic mine ... --out "
        f"{folder} --overwrite`"
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
        params = r.get("params") or {}
        t.add_row(
            escape(str(r.get("name", ""))),
            str(r.get("arity", "")),
            str(r.get("relates", "")),
            escape(str(r.get("relation", ""))),
            ", ".join(map(str, r.get("variants", []))),
            escape(", ".join(f"{k}={v}" for k, v in params.items())),
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
    from axiomatic.cli.run_inputs import record_first_stage, with_first_stage
    from axiomatic.diagnose.mining import mine as mine_fn

    check_output_dir(out)
    if _load_manifest(out, "mine-overwrite" if overwrite else "mine") is _CORRUPT:
        (out / "manifest.json").unlink()
    ds = _load_dataset(dataset, data_root, qrels, skip_malformed)
    an = _analyzer_for(analyzer, ds)
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
    axs = _parse_axioms_or_exit(axioms, variant)
    kept = _kept_default_variant(axs, variant)
    if kept:
        console.print(
            f"[yellow]--variant {variant}:[/] not a variant of "
            + escape(", ".join(f"{a.name} (kept its default {a.variant!r})" for a in kept))
        )
    try:
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
    except ValueError as exc:
        raise fail(_cli_wording(str(exc.args[0] if exc.args else exc))) from None
    from axiomatic.cli.collection_cmds import record_dataset_files

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


VARIANTS = ("strict", "extended", "relaxed")


def _analyzer_for(spec: str | None, ds: Any) -> Any:
    from axiomatic.cli.common import analyzer_or_exit, dataset_language

    return analyzer_or_exit(spec, dataset_language(ds))


def _uses_analyzer(ranker: Any) -> bool:
    """Whether ``ranker`` analyzes text with the command's analyzer (the lexical rankers,
    which score through the dataset's index); a neural model or a run file does not."""
    from axiomatic.index.collection import CollectionIndex

    return isinstance(getattr(ranker, "index", None), CollectionIndex)


def _kept_default_variant(axs: list[Any], variant: str | None) -> list[Any]:
    """The axioms (leaves of combinations included) that lack the global ``--variant`` and so
    kept their own default: the user asked for it and should see where it did not apply."""
    if variant is None:
        return []
    from axiomatic.axioms.spec import leaves

    seen: dict[str, Any] = {}
    for a in axs:
        for leaf in leaves(a):
            if variant not in leaf.definition.variants:
                seen.setdefault(leaf.name, leaf)
    return list(seen.values())


def _check_variant(variant: str | None) -> str | None:
    if variant is not None and variant not in VARIANTS:
        raise fail(
            f"unknown --variant {variant!r}{suggest(variant, VARIANTS)}; "
            f"expected one of {', '.join(VARIANTS)}"
        )
    return variant


# ----------------------------------------------------------------------------- diagnose
def _dataset_of_instances(
    instances: Path,
    dataset: str | None,
    data_root: Path | None,
    qrels: Path | None = None,
    skip_malformed: bool = False,
) -> Any:
    if dataset is not None:
        return _load_dataset(dataset, data_root, qrels, skip_malformed)
    manifest = instances / "manifest.json"
    if not manifest.is_file():
        raise fail(f"{instances} has no manifest.json naming its dataset; pass --dataset")
    from axiomatic.cli.collection_cmds import dataset_from_manifest

    recorded = dataset_from_manifest(_load_manifest(instances), data_root)
    if recorded is not None:  # mined from a descriptor / rank_llm file
        return recorded
    cfg = _load_manifest(instances).get("config", {})
    name, split = cfg.get("dataset"), cfg.get("split")
    from axiomatic.data.catalog import load_dataset

    for cand in [f"{name}/{split}" if split else None, name]:
        if not cand:
            continue
        try:
            return load_dataset(cand, data_root=data_root)
        except (KeyError, FileNotFoundError, ValueError):
            continue
    raise fail(
        f"cannot load dataset {name!r} (split {split!r}) recorded in {manifest}; "
        "pass --dataset NAME"
    )


BAND_HELP = (
    "Calibrated effects (ABNIRML's no-difference band), per ranker on its scores of the "
    "diagnosed queries' candidates: 'top-gap' (alias 'auto') = the median over queries of the "
    "gap between its top two candidates; 'abnirml' = ABNIRML's median of the gaps between "
    "adjacent documents of its top 10, pooled over queries; or a number (the same band for "
    "every ranker)."
)
BAND_TEST_HELP = (
    "Test of the effect: 'sign' = two-sided sign test of pos against neg; 't' = ABNIRML's "
    "one-sample t-test of the score margins against 0."
)


def _band_option(band: str) -> str | float:
    """``--band`` checked: a calibration name or a number >= 0 (one clear error otherwise)."""
    from axiomatic.diagnose.effects import resolve_band

    try:
        value = resolve_band(band)
    except ValueError:
        raise fail(
            f"--band must be 'top-gap' (or 'auto'), 'abnirml' or a number >= 0 (got "
            f"{band!r}){suggest(band, ['auto', 'top-gap', 'abnirml'])}; e.g. --band top-gap "
            "calibrates it per ranker, --band 0.5 uses 0.5 for every ranker"
        ) from None
    assert isinstance(value, (str, float))
    return value


def _band_test_option(test: str) -> str:
    """``--band-test`` checked: ``sign`` or ``t``."""
    from axiomatic.diagnose.effects import BAND_TESTS

    if test not in BAND_TESTS:
        raise fail(
            f"--band-test must be 'sign' or 't' (got {test!r}){suggest(test, BAND_TESTS)}; "
            "'sign' tests pos against neg, 't' is ABNIRML's t-test of the score margins"
        )
    return test


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
    from axiomatic.data.instances import (
        IncompleteInstancesError,
        InstancesMismatchError,
        read_instances,
    )
    from axiomatic.diagnose.diagnosis import diagnose as diagnose_fn
    from axiomatic.report.tables import effectiveness_table, print_tables
    from axiomatic.report.writer import write_report

    if not ranker and not run:
        raise fail("nothing to diagnose: give at least one --ranker SPEC or --run FILE")
    fmt = check_format(output_format)
    test_kind = check_test(test)
    shown = console if fmt == "table" else err_console  # csv/json: stdout holds the data only
    from axiomatic.diagnose.relations import MISSING_POLICIES

    if missing not in MISSING_POLICIES:
        raise fail(
            f"unknown --missing {missing!r}{suggest(missing, MISSING_POLICIES)}; "
            f"expected one of {', '.join(MISSING_POLICIES)}"
        )
    _parse_measures_or_exit(measures)  # before the work, not after a full diagnosis
    _parse_measures_or_exit(measure)
    measure, measures = _correlation_measure(measure, measures)
    band_value = _band_option(band) if band is not None else None
    band_test = _band_test_option(band_test)
    if band is None and band_test != "sign":
        raise fail(
            f"--band-test {band_test} tests the calibrated effects, which need a band; add "
            "--band top-gap, --band abnirml or --band VALUE"
        )
    check_output_dir(out)
    ds = _dataset_of_instances(instances, dataset, data_root, qrels, skip_malformed)
    ds = _first_stage_of_instances(
        ds, instances, first_stage, candidates, depth, analyzer, data_root, skip_malformed
    )
    try:
        inst, inst_arts = read_instances(instances, allow_partial=allow_partial)
    except FileNotFoundError as exc:
        raise fail(str(exc)) from None
    except (IncompleteInstancesError, InstancesMismatchError) as exc:
        raise fail(
            _cli_wording(str(exc)).replace(
                "the same mine call", f"the same `axiomatic mine ... --out {instances}`"
            )
        ) from None
    except (OSError, ValueError) as exc:  # pyarrow's errors are OSError / ValueError subclasses
        raise fail(_unreadable_instances(instances, exc)) from None
    _check_instances_current(instances, ds)
    if inst.empty:
        raise fail(f"{instances} holds no instances; mine with other axioms or settings")
    import pandas as pd

    art_path = instances / "artificial_docs.parquet"
    try:
        art: Any = pd.read_parquet(art_path) if art_path.is_file() else None
    except (OSError, ValueError) as exc:
        raise fail(_unreadable_instances(instances, exc)) from None
    mined_with = _manifest_analyzer(instances)
    # the analyzer the user asked for (one default everywhere), never silently the manifest's
    an = _analyzer_for(analyzer or DEFAULT_ANALYZER, ds)
    if art is None and inst_arts:  # an unfinished run has not consolidated them yet
        art = inst_arts
    legend: dict[str, str] = {}
    full_names: dict[str, str] = {}
    rankers = _make_rankers(
        ranker or [], run or [], ds, an, skip_malformed, legend, data_root, full_names=full_names
    )
    if baseline is not None and baseline not in rankers:
        typed = [n for n, spec in legend.items() if baseline in (spec, spec.removeprefix("run:"))]
        baseline = typed[0] if len(typed) == 1 else baseline  # the spec typed: -r ql
    if baseline is not None and baseline not in rankers:
        raise fail(
            f"--baseline {baseline!r}{suggest(baseline, rankers)} is not one of the rankers "
            f"and runs ({', '.join(rankers)}); give a name as shown in the table"
        )
    lexical = [name for name, r in rankers.items() if _uses_analyzer(r)]
    if lexical:
        warn_analyzer_mismatch(an, mined_with, ds, "--ranker " + ", ".join(lexical))
    mined_an = _analyzer_for(mined_with or DEFAULT_ANALYZER, ds)
    if run and mined_an != _analyzer_for(DEFAULT_ANALYZER, ds):
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
    import warnings

    from axiomatic.diagnose.diagnosis import AnalyzerMismatchWarning

    runs: dict[str, Any] = {}
    if ds.qrels:  # the effectiveness runs first: a neural model scores each pair once
        from axiomatic.rankers.base import rerank

        for name, r in rankers.items():
            runs[name] = r.run if hasattr(r, "run") and not callable(r.run) else rerank(r, ds)
    scored = {
        name: _RunScores(r, runs[name]) if name in runs and _is_neural(r) else r
        for name, r in rankers.items()
    }
    try:
        with warnings.catch_warnings():  # said above, with the --analyzer to pass
            warnings.simplefilter("ignore", AnalyzerMismatchWarning)
            diag = diagnose_fn(
                inst,
                scored,
                ds,
                art,
                oracle=oracle and bool(ds.qrels),
                missing=missing,
                tie_tolerance=tie_tolerance,
                band=band_value,
                band_test=band_test,
            )
    except (KeyError, ValueError) as exc:
        raise fail(_cli_wording(str(exc.args[0] if exc.args else exc))) from None
    diag.metadata["analyzer"] = an.describe()
    diag.metadata["instances_analyzer"] = mined_with
    diag.metadata["legend"] = legend  # short name -> spec, in the report and its JSON
    diag.metadata["full_names"] = full_names  # short name -> full name, for the CSVs

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
    _print_pairwise(diag, rankers, show=fmt == "table")
    if fmt != "table":
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


def _print_pairwise(diag: Any, rankers: dict[str, Any], show: bool = True) -> None:
    """For each pairwise ranker: the position-bias rate per axiom (the answer followed the
    position, not the document) and, after its re-ranking for the effectiveness table, the
    share of intransitive triples among its comparisons (recorded in the report's metadata;
    printed with ``show``, the terminal table's format)."""
    from axiomatic.diagnose.pairwise import intransitivity, is_pairwise

    for name, r in rankers.items():
        if not is_pairwise(r):
            continue
        bias = diag.metadata.get("position_bias", {}).get(name, {})
        if bias and show:
            console.print(
                f"position bias of {name} (share of pair instances whose preferred document "
                "changes with the order shown): "
                + ", ".join(f"{k} {v:.2f}" for k, v in bias.items()),
                markup=False,
                highlight=False,
            )
        comparisons = getattr(r, "last_comparisons", None)
        if comparisons:
            share, triples = intransitivity(comparisons)
            diag.metadata.setdefault("intransitivity", {})[name] = {
                "share": share,
                "triples": triples,
            }
            if show:
                console.print(
                    f"intransitive triples of {name} in its re-ranked lists: {share:.3f} of "
                    f"{triples} triples",
                    markup=False,
                    highlight=False,
                )


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
    band_value = _band_option(band)
    band_test = _band_test_option(band_test)
    check_output_dir(out)
    ds = _load_dataset(dataset, data_root)
    an = _analyzer_for(analyzer or DEFAULT_ANALYZER, ds)
    legend: dict[str, str] = {}
    rankers = _make_rankers(ranker, [], ds, an, False, legend, data_root)
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
    try:
        diag = diagnose_fn(
            inst,
            rankers,
            ds,
            art,
            band=band_value,  # type: ignore[arg-type]
            band_test=band_test,
        )
    except (KeyError, ValueError) as exc:
        raise fail(_cli_wording(str(exc.args[0] if exc.args else exc))) from None
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


def _is_neural(ranker: Any) -> bool:
    """Whether ``ranker`` scores with a neural model (a ``model`` attribute), the expensive
    scoring that :class:`_RunScores` does once."""
    return getattr(ranker, "model", None) is not None and not callable(
        getattr(ranker, "both_orders", None)
    )


class _RunScores:
    """A neural ranker as the diagnosis sees it after its effectiveness run was scored: the
    real documents of that run take their scores from it (the same numbers, not a second pass
    of the model over the same pairs), and only the others (artificial documents, documents
    outside the candidate lists) are scored with the model, in one batched call."""

    def __init__(self, ranker: Any, run: dict[str, dict[str, float]]) -> None:
        self.ranker = ranker
        self.known = run
        self.name = ranker.name
        self.can_score_unseen_documents = getattr(ranker, "can_score_unseen_documents", True)

    def score(self, query: Any, documents: Any) -> Any:
        return self.score_lists([(query, documents)])[0]

    def score_lists(self, lists: Any) -> list[Any]:
        import numpy as np

        from axiomatic.rankers.base import score_lists

        out, todo, where = [], [], []
        for i, (q, docs) in enumerate(lists):
            known = self.known.get(q.query_id, {})
            s = np.array([known.get(d.doc_id, np.nan) for d in docs], dtype=np.float64)
            missing = [j for j, d in enumerate(docs) if d.doc_id not in known]
            if missing:
                todo.append((q, [docs[j] for j in missing]))
                where.append((i, missing))
            out.append(s)
        if todo:
            for (i, missing), got in zip(where, score_lists(self.ranker, todo), strict=True):
                out[i][missing] = got
        return out


def _correlation_measure(measure: str, measures: str) -> tuple[str, str]:
    """``--measure`` under its ir_measures name, and ``--measures`` with it added if missing."""
    from axiomatic.evaluate.metrics import parse_measures

    name = str(parse_measures(measure)[0])
    if name not in {str(m) for m in parse_measures(measures)}:
        measures = f"{measures} {name}"
    return name, measures


def _warn_depths(rankers: dict[str, Any]) -> None:
    """Warn when the diagnosed run files have different depths (documents per query)."""
    from axiomatic.report.tables import depth_note

    runs = {n: r.run for n, r in rankers.items() if hasattr(r, "run") and not callable(r.run)}
    note = depth_note(runs)
    if note:
        err_console.print(f"warning: {note}", markup=False, style="yellow")


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


def _first_stage_of_instances(
    ds: Any,
    instances: Path,
    first_stage: str | None,
    candidates: str | None,
    depth: int | None,
    analyzer: str | None,
    data_root: Path | None,
    skip_malformed: bool,
) -> Any:
    """``ds`` with the candidate lists the instances were mined from: the first stage given
    here, else the one ``mine`` recorded (with the analyzer it used, so that the lists are the
    same), else the dataset's own."""
    from axiomatic.cli.run_inputs import first_stage_of_manifest, with_first_stage

    recorded = first_stage_of_manifest(_load_manifest(instances))
    if first_stage is None and candidates is None:
        if recorded is None:
            return ds
        first_stage, candidates = recorded.get("first_stage"), recorded.get("candidates")
        depth, analyzer = recorded["depth"], recorded.get("analyzer") or analyzer
        err_console.print(
            "note: candidates from the first stage recorded by mine: "
            + (f"--first-stage {first_stage}" if first_stage else f"--candidates {candidates}")
            + f" --depth {depth}",
            markup=False,
            highlight=False,
        )
    return with_first_stage(
        ds,
        first_stage=first_stage,
        candidates=candidates,
        depth=depth or 100,
        analyzer=_analyzer_for(analyzer or DEFAULT_ANALYZER, ds),
        data_root=data_root,
        skip_malformed=skip_malformed,
    )


def _check_instances_current(instances: Path, ds: Any) -> None:
    """Refuse instances mined from other data than ``ds`` has now (an edited passage, other
    candidates or labels), as ``mine`` refuses to resume over them; note when the manifest is
    too old to say."""
    from axiomatic.diagnose.mining import StaleInstancesError, check_current

    manifest = _load_manifest(instances)
    if not manifest:
        return
    try:
        checked = check_current(instances, manifest, ds)
    except StaleInstancesError as exc:
        raise fail(
            f"{instances} holds instances mined from other data than dataset {ds.name!r} has "
            f"now (changed: {'; '.join(exc.changed)}); their scores would describe the old "
            f"collection. Mine them again: `axiomatic mine ... --out {instances} --overwrite`"
        ) from None
    if not checked:
        err_console.print(
            f"[yellow]note:[/] {escape(str(instances))} was mined by an older version that did "
            "not record its inputs: cannot check that they match the current dataset",
            highlight=False,
        )


def _manifest_analyzer(instances: Path) -> str | None:
    """The analyzer spec recorded by `mine` (``None`` for folders mined before it was recorded:
    those used the default analyzer, whose hash the manifest holds)."""
    cfg = _load_manifest(instances).get("config", {})
    spec = cfg.get("analyzer_spec")
    return str(spec) if spec else None


SHORT_NAME = 24
"""Longest ranker name shown as is in tables and plots; longer ones are shortened and the
legend maps them to their spec."""


def short_name(name: str, spec: str) -> str:
    """A table/plot label for ``name``: itself when short, else the last part of a path spec
    (``model:/long/path/knrm-ar/model`` -> ``knrm-ar/model``) or a cut with an ellipsis."""
    if len(name) <= SHORT_NAME:
        return name
    from axiomatic.rankers.registry import parse_ranker_spec

    try:
        params = parse_ranker_spec(spec)[1]
    except ValueError:
        params = {}
    if "path" in params:
        parts = Path(params["path"]).parts
        tail = "/".join(parts[-2:]) if len(parts) > 1 else parts[-1]
        return tail if len(tail) <= SHORT_NAME else "…" + tail[-(SHORT_NAME - 1) :]
    return name[: SHORT_NAME - 1] + "…"


def _make_rankers(
    specs: list[str],
    runs: list[str],
    ds: Any,
    analyzer: Any = None,
    skip_malformed: bool = False,
    legend: dict[str, str] | None = None,
    data_root: Path | None = None,
    shorten: bool = True,
    full_names: dict[str, str] | None = None,
) -> dict[str, Any]:
    """Rankers by display name; ``legend`` (when given) receives name -> what the user typed.
    ``runs`` are run arguments (files, ``-``, catalog systems such as
    ``trec-dl-2019/splade-pp``). ``shorten``: names longer than :data:`SHORT_NAME` are cut
    for tables and plots (the legend keeps the spec; ``full_names`` receives shown -> full name
    for the CSVs); ``evaluate`` keeps them whole."""
    from axiomatic.cli.collection_cmds import set_cli_skip_malformed
    from axiomatic.cli.run_inputs import read_named_runs
    from axiomatic.rankers.registry import make_ranker, split_name, with_name

    set_cli_skip_malformed(skip_malformed)  # also for run:FILE specs, read on first use

    out: dict[str, Any] = {}
    legend = {} if legend is None else legend
    for spec in specs:
        try:
            r = make_ranker(spec, ds, analyzer=analyzer)
        except (KeyError, ValueError, FileNotFoundError, ImportError) as exc:
            raise fail(f"bad --ranker {spec!r}: {exc.args[0] if exc.args else exc}") from None
        given, bare = split_name(spec)
        if given is not None:
            if given in out:
                raise fail(f"--ranker {spec!r}: the name {given!r} is already used")
            name = given
        else:
            name = short_name(r.name, bare) if shorten else r.name
            base, k = name, 2
            while name in out:
                name, k = f"{base}-{k}", k + 1
            if name != r.name:
                if full_names is not None:
                    full_names[name] = r.name
                r = with_name(r, name)
        out[name] = r
        legend[name] = spec if given is None else bare
    # read now: a malformed line fails before the work, naming --skip-malformed
    for item in read_named_runs(runs, "--run", data_root, skip_malformed):
        from axiomatic.rankers.runfile import RunFileRanker

        name = item.name
        base, k = name, 2
        while name in out:
            name, k = f"{base}-{k}", k + 1
        out[name] = RunFileRanker(item.run, name=name)  # NaN for documents it lacks: skipped
        legend[name] = f"run:{item.path}" if item.path is not None else item.source
    return out


# ----------------------------------------------------------------------------- rerank
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
    from axiomatic.data.trec import write_run

    try:
        from axiomatic.diagnose.rerank import AGGREGATIONS, ORDERS, axiomatic_rerank
    except ModuleNotFoundError as exc:
        raise fail(f"axiomatic re-ranking is not available ({exc})") from None
    if order not in ORDERS:  # before any data is loaded
        raise fail(
            f"unknown --order {order!r}{suggest(order, ORDERS)}; expected one of {', '.join(ORDERS)}"
        )
    if aggregation not in AGGREGATIONS:
        raise fail(
            f"unknown --aggregation {aggregation!r}{suggest(aggregation, AGGREGATIONS)}; "
            f"expected one of {', '.join(AGGREGATIONS)}"
        )
    if weights is not None and aggregation != "weighted":
        raise fail("--weights is for --aggregation weighted")
    if aggregation == "weighted" and weights is None:
        raise fail(
            "--aggregation weighted needs --weights, e.g. --weights 'TFC1=2,M-TDC=1' "
            "(one weight per pairwise axiom; unnamed ones weigh 1)"
        )
    if train_run is not None and aggregation != "learned":
        raise fail("--train-run is for --aggregation learned (with --train-dataset)")
    if imitate is not None and aggregation != "learned":
        raise fail("--imitate is for --aggregation learned (with --train-dataset)")
    if aggregation == "learned" and train_dataset is None:
        raise fail(
            "--aggregation learned needs --train-dataset NAME (a dataset with qrels to "
            "fit the axiom weights on), e.g. --train-dataset msmarco-dev-top20/train"
        )
    _parse_measures_or_exit(measures)
    fmt = check_format(output_format)
    check_output_file(out)
    ds = _load_dataset(dataset, data_root, qrels, skip_malformed)
    an = _analyzer_for(analyzer, ds)
    axs = _parse_axioms_or_exit(axioms)
    pairwise = [a for a in axs if a.arity == 2]
    extra: dict[str, Any] = {}
    if weights is not None:
        from axiomatic.cli.run_inputs import parse_weights

        extra["weights"] = parse_weights(weights, pairwise)
    from axiomatic.data.runs import dataset_run
    from axiomatic.diagnose.rerank import default_base
    from axiomatic.index.cache import dataset_index

    found = dataset_run(ds) if base is None else None
    if found is not None:
        err_console.print(
            f"note: base ranking: the run that defines {ds.name} ({found[0]}); "
            "--base bm25 re-scores its candidates with the project's BM25 instead",
            markup=False,
            highlight=False,
        )
    base = base if base is not None else default_base(ds)
    index = dataset_index(ds, analyzer=an)
    resolved = _base_or_exit(ds, base, depth, index, None, data_root, skip_malformed, "--base")
    if resolved.kind == "run" and aggregation == "learned" and train_run is None:
        raise fail(
            "--base is a run of this dataset; --aggregation learned also needs the base run "
            "of --train-dataset: pass it with --train-run FILE"
        )
    ds, base_run, base_label = resolved.dataset, resolved.run, resolved.label
    if aggregation == "learned":
        assert train_dataset is not None  # checked above
        train = _load_dataset(train_dataset, data_root)
        trained = _base_or_exit(
            train,
            train_run if train_run is not None else base,
            depth,
            None,
            an,
            data_root,
            skip_malformed,
            "--train-run" if train_run is not None else f"--base (on {train_dataset})",
        )
        train, t_run = trained.dataset, trained.run
        target = _imitate_run(imitate, train) if imitate is not None else None
        extra.update(train=train, train_run=t_run)
        if "weights" not in extra:
            from axiomatic.diagnose.rerank import learn_weights, weighted_combination

            try:  # learned once here (as axiomatic_rerank would) to show the combination
                extra["weights"] = learn_weights(
                    train,
                    pairwise,
                    t_run,
                    depth,
                    index=dataset_index(train, analyzer=index.analyzer),
                    seed=seed,
                    target=target,
                )
                combo = weighted_combination(extra["weights"], pairwise)
            except (KeyError, ValueError) as exc:
                raise fail(str(exc.args[0] if exc.args else exc)) from None
            report_console(out).print(
                f"learned combination (reusable as --axioms): {combo.name}", markup=False
            )
    _warn_rerank_depths(base_run, extra.get("train_run"), depth)
    try:
        new_run = axiomatic_rerank(
            ds,
            axs,
            base_run,
            depth=depth,
            aggregation=aggregation,
            seed=seed,
            index=index,
            order=order,
            **extra,
        )
    except (KeyError, ValueError) as exc:
        raise fail(str(exc.args[0] if exc.args else exc)) from None
    write_run(new_run, out, tag="axiomatic")
    from axiomatic._atomic import is_stdout

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


def _imitate_run(value: str, train: Any) -> dict[str, dict[str, float]]:
    """The ``--imitate`` run (a run argument, ``run:`` allowed), restricted to ``train``'s
    queries: the learned weights imitate its pairwise order (``learn_weights(target=)``). A
    run of another dataset is refused here, not later as "no training pairs"."""
    from axiomatic.cli.run_inputs import read_named_runs

    name, sep, rest = value.partition("=run:")
    value = f"{name}={rest}" if sep else value.removeprefix("run:")
    item = read_named_runs([value], "--imitate")[0]
    run = item.run
    matched = {q: v for q, v in run.items() if q in train.queries}
    if not matched:
        raise fail(
            f"--imitate {item.source} ranks none of the {len(train.queries)} queries of "
            f"--train-dataset {train.name!r} ({len(run)} other queries, e.g. "
            f"{', '.join(sorted(run)[:3])}); pass a run of the training dataset"
        )
    return matched


def _base_or_exit(
    ds: Any,
    base: str,
    depth: int,
    index: Any,
    analyzer: Any,
    data_root: Path | None,
    skip_malformed: bool,
    option: str,
) -> Any:
    """:func:`axiomatic.diagnose.rerank.base_ranking` with its errors as CLI errors and a note
    when documents of a run came from the collection."""
    from axiomatic.cli.collection_cmds import set_cli_skip_malformed
    from axiomatic.diagnose.rerank import base_ranking

    set_cli_skip_malformed(skip_malformed)
    try:
        resolved = base_ranking(
            ds, base, depth=depth, index=index, analyzer=analyzer, data_root=data_root,
            option=option,
        )  # fmt: skip
    except (KeyError, ValueError, FileNotFoundError, ImportError) as exc:
        message = _cli_wording(str(exc.args[0] if exc.args else exc))
        raise fail(
            message if message.startswith(option) else f"{option} {base!r}: {message}"
        ) from None
    if resolved.added:
        err_console.print(
            f"note: {resolved.added} documents of the top {depth} of {option} {base} are "
            "outside the dataset's candidates; their text comes from the collection",
            markup=False,
            highlight=False,
        )
    return resolved


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
    from axiomatic.diagnose.counts import presence_table, split_counts, variant_counts
    from axiomatic.report.tables import to_markdown

    if instances is not None and not (instances / "manifest.json").is_file():
        raise fail(
            f"--instances {instances} holds no mined instances (no manifest.json); write them "
            f"with `axiomatic mine --dataset {dataset} --out {instances}` first"
        )
    ds = _load_dataset(dataset, data_root, qrels, skip_malformed)
    an = _analyzer_for(analyzer, ds)
    parsed = _parse_axioms_or_exit(axioms)
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

        try:
            inst, _ = read_instances(instances, allow_partial=True)
        except (OSError, ValueError) as exc:
            raise fail(_unreadable_instances(instances, exc)) from None
        if inst.attrs.get("partial"):
            console.print(f"({inst.attrs['partial']}: an unfinished mining run)", markup=False)
        mined_with = _manifest_analyzer(instances) or "default (not recorded)"
        console.print(f"\ninstances of {instances}: analyzer {mined_with}", markup=False)
        warn_analyzer_mismatch(an, _manifest_analyzer(instances), ds, "counts", "--instances")
        console.print("\n## instances per split\n")
        console.print(to_markdown(split_counts(inst)), markup=False)
        console.print("\n## relevance of (preferred, other) documents\n")
        console.print(
            to_markdown(presence_table(inst, ds.rel_threshold), index=False), markup=False
        )
