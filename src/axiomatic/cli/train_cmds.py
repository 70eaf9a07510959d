"""Training commands: ``train`` and ``experiment``."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.markup import escape

from axiomatic.cli.app import app
from axiomatic.cli.common import ANALYZER_HELP, check_output_dir, console, fail, suggest

EXPERIMENTS = ("rosset2019", "rennings-augment", "liu-smooth", "acrank2023")
THREADS_HELP = (
    "Torch CPU threads (default: the idle cores, at most 4, from the load average; a busy "
    "machine trains several times faster with fewer threads)."
)


@app.command()
def train(
    dataset: Annotated[
        str | None, typer.Option("--dataset", "-d", help="Catalog name, e.g. scifact/train.")
    ] = None,
    model: Annotated[
        str | None,
        typer.Option(
            "--model",
            "-m",
            help="Model name: knrm, conv-knrm, duet, cross-encoder, ...; `axiomatic models` "
            "lists the model zoo (what, citation, defaults).",
        ),
    ] = None,
    out: Annotated[
        Path, typer.Option("--out", "-o", help="Output folder (checkpoints, logs, model).")
    ] = Path("models/run"),
    loss: Annotated[str | None, typer.Option(help="hinge | mse | softmax.")] = None,
    regularizer: Annotated[
        str | None,
        typer.Option(
            help='Axiomatic regularization, e.g. "ar(lambda=0.1, mu=0.1, axioms=TFC1-A,TFC1-D,TFC3,LNC)".'
        ),
    ] = None,
    augmentation: Annotated[
        str | None,
        typer.Option(
            help='"perturb(axioms=TFC1-A,TFC1-D)" or "diagnostic(mode=paired, instances=DIR)".'
        ),
    ] = None,
    config: Annotated[
        Path | None,
        typer.Option("--config", "-c", help="TOML file (a \\[train] table or top-level keys)."),
    ] = None,
    seed: Annotated[int | None, typer.Option(min=0, help="Random seed.")] = None,
    steps: Annotated[int | None, typer.Option(min=1, help="Training steps (batches).")] = None,
    epochs: Annotated[
        float | None, typer.Option(min=0.0, help="Epochs over the pairs (overrides --steps).")
    ] = None,
    batch_size: Annotated[
        int | None, typer.Option("--batch-size", min=1, help="Pairs per batch.")
    ] = None,
    lr: Annotated[float | None, typer.Option(min=0.0, help="Learning rate.")] = None,
    threads: Annotated[int | None, typer.Option(min=1, help=THREADS_HELP)] = None,
    resume: Annotated[
        bool,
        typer.Option("--resume/--no-resume", help="Continue from out/checkpoint.pt if present."),
    ] = True,
    analyzer: Annotated[
        str | None,
        typer.Option(
            "--analyzer",
            help=ANALYZER_HELP + " Used by the perturbations and BM25 candidates (default: "
            "the config's, else 'default').",
        ),
    ] = None,
    data_root: Annotated[
        Path | None, typer.Option("--data-root", help="Shared data folder.")
    ] = None,
) -> None:
    """Train a neural ranker (optionally with axiomatic regularization or augmentation).

    The models: `axiomatic models` lists them, one line each (docs/models.md has details).
    """
    from axiomatic.training.config import TrainConfig, load_config

    check_output_dir(out)
    try:
        base = load_config(config) if config is not None else TrainConfig()
        values = base.to_dict()
        overrides = {
            "dataset": dataset,
            "model": model,
            "loss": loss,
            "regularizer": regularizer,
            "augmentation": augmentation,
            "seed": seed,
            "steps": steps,
            "epochs": epochs,
            "batch_size": batch_size,
            "lr": lr,
            "analyzer": analyzer,
        }
        values.update({k: v for k, v in overrides.items() if v is not None})
        if config is None and dataset is None:
            raise ValueError("give --dataset (e.g. scifact/train) or --config FILE.toml")
        cfg = TrainConfig.from_dict(values)
    except (ValueError, FileNotFoundError) as exc:
        raise fail(str(exc)) from None
    from axiomatic.training.run import train_model
    from axiomatic.training.trainer import NonFiniteLossError, set_training_threads

    n_threads = set_training_threads(threads)
    console.print(
        f"training [bold]{escape(cfg.model)}[/] on [bold]{escape(cfg.dataset)}[/] "
        + escape(
            f"(loss {cfg.loss}, regularizer {cfg.regularizer or 'none'}, analyzer "
            f"{cfg.analyzer}, {n_threads} thread{'s' if n_threads > 1 else ''}) -> {out}"
        ),
        highlight=False,
    )
    try:
        result = train_model(cfg, out, data_root=data_root, resume=resume)
    except NonFiniteLossError as exc:
        raise fail(str(exc)) from None
    except (KeyError, ValueError, FileNotFoundError) as exc:
        raise fail(str(exc.args[0] if exc.args else exc)) from None
    best = "n/a" if result.best_dev is None else f"{result.best_dev:.4f} (step {result.best_step})"
    console.print(
        f"done: {result.steps} steps in {result.seconds:.0f}s; best dev MRR@10 {best}; "
        f"model and logs in {out}",
        markup=False,
        highlight=False,
    )


@app.command()
def experiment(
    name: Annotated[
        str, typer.Argument(help="rosset2019 | rennings-augment | liu-smooth | acrank2023")
    ],
    quick: Annotated[
        bool, typer.Option("--quick", help="CI-sized run (demo data, few steps).")
    ] = False,
    out: Annotated[Path | None, typer.Option("--out", "-o", help="Output folder.")] = None,
    seeds: Annotated[str | None, typer.Option(help="Comma-separated seeds, e.g. 0,1.")] = None,
    models: Annotated[str | None, typer.Option(help="Comma-separated models.")] = None,
    steps: Annotated[int | None, typer.Option(min=1, help="Training steps per run.")] = None,
    threads: Annotated[
        int | None,
        typer.Option(min=1, help="Torch threads per training run (default: the plan's, 1)."),
    ] = None,
    data_root: Annotated[
        Path | None, typer.Option("--data-root", help="Shared data folder.")
    ] = None,
    config: Annotated[
        Path | None,
        typer.Option("--config", "-c", help="TOML file of plan settings (e.g. configs/*.toml)."),
    ] = None,
    report_only: Annotated[
        bool, typer.Option("--report-only", help="Only summarize the runs finished so far.")
    ] = False,
    sasaki: Annotated[
        Path | None,
        typer.Option(
            "--sasaki",
            help="liu-smooth: folder of Sasaki et al. 2018 CLIR files (train*, test1*, dev*).",
        ),
    ] = None,
) -> None:
    """Run (or resume: finished runs are skipped) a paper's training experiment."""
    key = name.strip().lower()
    if key not in EXPERIMENTS:
        raise fail(
            f"unknown experiment {name!r}; expected one of {', '.join(EXPERIMENTS)}."
            + suggest(key, EXPERIMENTS)
        )
    out = out or Path("outputs") / (key + ("-quick" if quick else ""))
    check_output_dir(out)
    try:
        seed_list = [int(s) for s in seeds.split(",")] if seeds else None
    except ValueError:
        raise fail(f"--seeds {seeds!r}: expected comma-separated integers, e.g. 0,1") from None
    overrides: dict = {}
    if config is not None:
        from axiomatic.training.config import read_toml

        try:
            overrides.update(read_toml(config).get("plan", {}))
        except (ValueError, FileNotFoundError) as exc:
            raise fail(str(exc)) from None
    if report_only:
        if key not in ("rosset2019", "liu-smooth", "acrank2023"):
            raise fail("--report-only is available for rosset2019, liu-smooth and acrank2023")
        overrides["report_only"] = True
    cli = {
        "seeds": seed_list,
        "models": [m.strip() for m in models.split(",")] if models else None,
        "steps": steps,
        "threads": threads,
        "data_root": str(data_root) if data_root else None,
        "sasaki": str(sasaki) if sasaki else None,
    }
    if sasaki is not None and key != "liu-smooth":
        raise fail("--sasaki is an option of the liu-smooth experiment")
    overrides.update({k: v for k, v in cli.items() if v is not None})

    def echo(msg: str) -> None:
        console.print(msg, highlight=False, markup=False)  # "[rosset2019] ..." is no markup

    try:
        if key == "rosset2019":
            from axiomatic.experiments.rosset2019 import run_rosset2019

            run_rosset2019(out, quick=quick, echo=echo, **overrides)
        elif key == "acrank2023":
            from axiomatic.experiments.acrank2023 import run_acrank2023

            run_acrank2023(out, quick=quick, echo=echo, **overrides)
        elif key == "liu-smooth":
            from axiomatic.experiments.liu_smooth import run_liu_smooth

            run_liu_smooth(out, quick=quick, echo=echo, **overrides)
        else:
            from axiomatic.experiments.rennings_augment import run_rennings_augment

            run_rennings_augment(out, quick=quick, echo=echo, **overrides)
    except (KeyError, ValueError, FileNotFoundError) as exc:
        raise fail(str(exc.args[0] if exc.args else exc)) from None
    console.print(f"results: {out / 'summary.md'}", markup=False, highlight=False)
