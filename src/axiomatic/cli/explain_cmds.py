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
from axiomatic.cli.common import (
    ANALYZER_HELP,
    FORMAT_HELP,
    check_format,
    check_output_dir,
    console,
    err_console,
    fail,
)


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
            help="Run to explain (repeatable), as in diagnose and evaluate: a TREC run file "
            "(PATH or NAME=PATH), '-' for standard input, or a catalog system's run such as "
            "trec-dl-2019/splade-pp; its top documents that the dataset has are explained.",
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
    seed: Annotated[
        int, typer.Option(min=0, help="Seed of pair orientation, folds and forest.")
    ] = 0,
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
    output_format: Annotated[str | None, typer.Option("--format", help=FORMAT_HELP)] = None,
    skip_malformed: SkipMalformedOpt = False,
    data_root: Annotated[
        Path | None,
        typer.Option("--data-root", help="Folder holding the shared collections."),
    ] = None,
) -> None:
    """Explain rankers by the axioms: fidelity of a random forest over axiom preferences."""
    from axiomatic.cli.collection_cmds import load_dataset_cli
    from axiomatic.cli.common import analyzer_for
    from axiomatic.cli.run_inputs import make_rankers, read_named_runs
    from axiomatic.explain import explain as explain_fn
    from axiomatic.explain import explanation_axioms, write_explanation
    from axiomatic.index.cache import dataset_index

    if not ranker and not run:
        raise fail("nothing to explain: give at least one --ranker SPEC or --run FILE")
    fmt = check_format(output_format)
    if out is not None:
        check_output_dir(out)
    try:
        explanation_axioms(axioms)  # before the work: unknown or unusable axioms
    except (ValueError, KeyError) as exc:
        raise fail(f"bad --axioms: {exc.args[0] if exc.args else exc}") from None
    ds = load_dataset_cli(dataset, data_root)
    an = analyzer_for(analyzer, ds)
    systems: dict[str, Any] = dict(make_rankers(list(ranker or []), [], ds, an).rankers)
    for item in read_named_runs(list(run or []), "--run", data_root, skip_malformed):
        name, k = item.name, 2
        while name in systems:
            name, k = f"{item.name}-{k}", k + 1
        systems[name] = item.run
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
    if fmt != "table":
        import sys

        frame = expl.summary[[*cols, "top_axioms"]]
        text = (
            frame.to_csv(index=False)
            if fmt == "csv"
            else frame.to_json(orient="records", indent=2) + "\n"
        )
        sys.stdout.write(text)
        if out is not None:
            files = write_explanation(expl, out, title=f"Axiomatic explanations: {ds.name}")
            err_console.print(f"report: {escape(str(files['html']))}")
        return
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


@app.command()
def patch(
    ranker: Annotated[
        list[str],
        typer.Option(
            "--ranker",
            "-r",
            help="Transformer ranker to patch (repeatable), optionally NAME=SPEC: minilm, "
            "model:DIR (a MiniLM cross- or bi-encoder the toolkit trained), st:DIR, "
            "cross-encoder:DIR, hf:DIR, or a pointwise LLM (llm:PATH, smollm2; its yes/no "
            "logit difference is the score).",
        ),
    ],
    dataset: Annotated[str, typer.Option("--dataset", "-d", help=DATASET_HELP)],
    axioms: Annotated[
        str,
        typer.Option(
            "--axioms", "-a", help="Minimal-pair axioms: TFC1-I, TFC1-R, TDC, LNC2 or all."
        ),
    ] = "all",
    pairs: Annotated[
        int, typer.Option("--pairs", min=1, help="Seeded sample of minimal pairs per axiom.")
    ] = 50,
    depth: Annotated[
        int, typer.Option(min=1, help="Pairs are built from each query's top DEPTH candidates.")
    ] = 10,
    components: Annotated[
        str, typer.Option(help="Components to patch: residual, head, mlp (comma-separated).")
    ] = "residual,head,mlp",
    batch_size: Annotated[int, typer.Option("--batch-size", min=1, help="Pairs per batch.")] = 16,
    filler: Annotated[
        str, typer.Option(help="Filler word that pads the baseline (one word piece).")
    ] = "a",
    max_length: Annotated[
        int,
        typer.Option(
            "--max-length",
            min=8,
            help="Longest pair in word pieces, for an LLM in prompt tokens (longer: left out).",
        ),
    ] = 512,
    min_delta: Annotated[
        float,
        typer.Option(
            "--min-delta",
            min=0.0,
            max=0.99,
            help="Leave out pairs whose score difference is below this fraction of the median "
            "absolute difference of their axiom (their ratio is noise).",
        ),
    ] = 0.05,
    seed: Annotated[int, typer.Option(min=0, help="Seed of the pair sample.")] = 0,
    threads: Annotated[
        int | None,
        typer.Option(
            min=1,
            help="Torch CPU threads (default: the idle cores, at most 4, from the load average, "
            "as for train: a busy machine patches faster with fewer threads).",
        ),
    ] = None,
    out: Annotated[
        Path | None,
        typer.Option(
            "--out",
            "-o",
            help="Folder for the CSV tables, heat maps, patching.json/.md/.html (default: only "
            "print the summary).",
        ),
    ] = None,
    data_root: Annotated[
        Path | None,
        typer.Option("--data-root", help="Folder holding the shared collections."),
    ] = None,
) -> None:
    """Where in a transformer ranker an axiom lives: activation patching on minimal pairs
    (Chen, Merullo & Eickhoff, SIGIR 2024)."""
    import time

    import torch
    from rich.table import Table

    from axiomatic.cli.collection_cmds import load_dataset_cli
    from axiomatic.cli.run_inputs import make_rankers
    from axiomatic.explain.patching import COMPONENTS, patching_target
    from axiomatic.explain.patching import patch as patch_fn
    from axiomatic.explain.patching_report import pair_sample_hash, summary_frame, write_patching
    from axiomatic.perturb.minimal_pairs import minimal_pairs, parse_minimal_axioms
    from axiomatic.training.trainer import set_training_threads

    if out is not None:
        check_output_dir(out)
    try:
        parse_minimal_axioms(axioms)
    except ValueError as exc:
        raise fail(f"bad --axioms: {exc}") from None
    comps = [c.strip() for c in components.split(",") if c.strip()]
    bad = [c for c in comps if c not in COMPONENTS]
    if bad or not comps:
        raise fail(
            f"bad --components {components!r}: expected one or more of {', '.join(COMPONENTS)}"
        )
    set_training_threads(threads)
    ds = load_dataset_cli(dataset, data_root)
    systems: dict[str, Any] = dict(make_rankers(list(ranker), [], ds).rankers)
    results = []
    all_pairs: list[Any] = []
    seen: set[str] = set()
    for name, r in systems.items():
        try:
            target = patching_target(r, name=name, max_length=max_length)
            built = minimal_pairs(
                ds, axioms, depth=depth, per_axiom=pairs, seed=seed, filler=filler,
                pieces=target.pieces,
            )  # fmt: skip
        except ValueError as exc:
            raise fail(f"--ranker {name!r}: {exc}") from None
        t0 = time.perf_counter()
        try:  # progress: a bar on a terminal, else a line every 30 s (axiomatic._progress)
            res = patch_fn(target, built, components=comps, batch_size=batch_size,
                           min_delta=min_delta)  # fmt: skip
        except ValueError as exc:
            raise fail(f"--ranker {name!r}: {exc}") from None
        console.print(
            f"{escape(name)}: {len(res.pairs)} pairs in {time.perf_counter() - t0:.1f} s "
            f"({res.timing['pairs_per_second']:.3f} pairs/s, "
            f"{res.timing['seconds_per_component']:.2f} s per component)"
        )
        results.append(res)
        for p in built:
            key = "\x1f".join((p.axiom, p.query_id, p.doc_id, p.baseline, p.perturbed))
            if key not in seen:
                seen.add(key)
                all_pairs.append(p)
    sample = pair_sample_hash(all_pairs)
    table = Table(title=f"activation patching: {escape(ds.name)} · pair sample {sample[:12]}")
    cols = ["model", "axiom", "patched", "mean_delta", "perturbed_higher", "top_heads", "top_mlp"]
    for c in cols:
        table.add_column(c)
    for res in results:
        for _, row in summary_frame(res).iterrows():
            table.add_row(
                *[f"{row[c]:.3f}" if isinstance(row[c], float) else escape(str(row[c]))
                  for c in cols]
            )  # fmt: skip
    console.print(table)
    if out is not None:
        extra = {"dataset": ds.name, "depth": depth, "seed": seed, "filler": filler,
                 "threads": torch.get_num_threads()}  # fmt: skip
        files = write_patching(results, all_pairs, out, title=f"Activation patching: {ds.name}",
                               extra=extra)  # fmt: skip
        console.print(
            f"report: {escape(str(files['html']))} (CSV, PNG, JSON and markdown beside it)"
        )
