"""ARES commands: ``pretrain ares`` (Chen et al. 2022; stages cached and resumable)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from axiomatic._suggest import suggest
from axiomatic.cli.app import app
from axiomatic.cli.common import console, fail

METHODS = ("ares",)


@app.command()
def pretrain(
    method: Annotated[str, typer.Argument(help="Pre-training method: ares.")],
    out: Annotated[
        Path, typer.Option("--out", "-o", help="Output folder (caches, pairs, checkpoints).")
    ] = Path("outputs/ares-pretrain"),
    collections: Annotated[
        str, typer.Option(help="Comma-separated: msmarco-20k, scifact, demo.")
    ] = "msmarco-20k,scifact",
    variant: Annotated[
        str, typer.Option(help="simple | hard | strict | rep | rank (paper section 4.2).")
    ] = "simple",
    steps: Annotated[int, typer.Option(min=1, help="Training steps.")] = 400,
    batch_size: Annotated[int, typer.Option(min=1, help="Pairs per step.")] = 16,
    lr: Annotated[float, typer.Option(min=0.0, help="AdamW learning rate.")] = 2e-5,
    max_length: Annotated[int, typer.Option(min=8, max=512, help="Word pieces.")] = 128,
    mlm_weight: Annotated[float, typer.Option(min=0.0, help="Weight of the MLM loss.")] = 1.0,
    head: Annotated[
        str, typer.Option(help="Scoring head: mlp (the paper's MLP(h_CLS)) | linear.")
    ] = "mlp",
    masking: Annotated[
        str,
        typer.Option(
            help="MLM masking: input (the paper's text: 15 % of the input's tokens) | "
            "document-wwm (the authors' code: whole words of the document, both inputs)."
        ),
    ] = "input",
    dev: Annotated[
        str, typer.Option(help="Training split whose first --dev-queries select the checkpoint.")
    ] = "msmarco-dev-top20/train",
    dev_queries: Annotated[int, typer.Option(min=1)] = 50,
    eval_every: Annotated[int, typer.Option(min=1)] = 100,
    seed: Annotated[int, typer.Option(min=0)] = 0,
    threads: Annotated[int, typer.Option(min=1, help="Torch CPU threads.")] = 1,
    data_root: Annotated[
        Path | None, typer.Option("--data-root", help="Shared data folder.")
    ] = None,
) -> None:
    """Pre-train the MiniLM cross-encoder with ARES: pseudo queries -> axiom features ->
    preference predictor -> hinge + MLM. Every stage is cached under --out; re-running the
    same command resumes where it stopped."""
    key = method.strip().lower()
    if key not in METHODS:
        raise fail(
            f"unknown pre-training method {method!r}{suggest(key, METHODS)}; "
            f"expected one of {', '.join(METHODS)}"
        )
    import torch

    from axiomatic.ares.pipeline import load_collection, prepare
    from axiomatic.ares.pretrain import check_variant, per_1k_steps, pretrain_ares
    from axiomatic.experiments.ares2022 import dev_subset
    from axiomatic.training.distributed import distributed_context

    torch.set_num_threads(threads)
    try:  # under torchrun: join the other processes (docs/training.md)
        ctx = distributed_context()
        ctx.check_batch_size(batch_size)
    except (RuntimeError, ValueError) as exc:
        raise fail(str(exc)) from None
    try:
        v = check_variant(variant)
        names = [c.strip() for c in collections.split(",") if c.strip()]
        with ctx.main_first():  # rank 0 builds the caches, the other ranks then read them
            prepared = [
                prepare(load_collection(c, data_root), cache_dir=out / "cache", seed=seed)
                for c in names
            ]
            dev_ds = dev_subset(dev, dev_queries, data_root)
        for p in prepared:
            if ctx.is_main:
                console.print(f"{p.collection.name}: {p.pseudo.report.describe()}", markup=False)
        summary = pretrain_ares(
            prepared, out / v, v, dev=dev_ds, steps=steps, batch_size=batch_size, lr=lr,
            max_length=max_length, eval_every=eval_every, mlm_weight=mlm_weight, seed=seed,
            head=head, masking=masking,
        )  # fmt: skip
    except (KeyError, ValueError, FileNotFoundError, ImportError) as exc:
        raise fail(str(exc.args[0] if exc.args else exc)) from None
    if not ctx.is_main:
        return
    console.print(
        f"ARES_{v}: {summary['n_pairs']} pairs; best dev MRR@10 {summary['train']['best_dev']}; "
        f"{summary['train'].get('seconds', 0):.0f} s "
        f"({per_1k_steps(summary['train'])} s per 1k steps); encoder in {summary['encoder']}",
        markup=False,
        highlight=False,
    )
