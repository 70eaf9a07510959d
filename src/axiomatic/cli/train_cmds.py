"""Training commands: ``train`` and ``experiment``."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.markup import escape

from axiomatic.cli.app import app
from axiomatic.cli.common import (
    ANALYZER_HELP,
    FORMAT_HELP,
    JsonAliasOpt,
    check_format,
    check_output_dir,
    console,
    fail,
    format_from_json_flag,
    parameter_text,
    print_records,
)
from axiomatic.training.config import TRAIN_PARAMS

# The help of the options that set TrainConfig's settings comes from their parameter records
# (TRAIN_PARAMS: description and default); the options default to None so that a --config
# file's values apply.
TRAIN_OPTIONS = ("dataset", "model", "loss", "seed", "steps", "batch_size", "lr")
TRAIN_DEFAULTS = {key: TRAIN_PARAMS[key].default for key in TRAIN_OPTIONS}
"""TrainConfig's defaults, shown in `train --help`."""


def _help(key: str, extra: str = "", default: bool = True) -> str:
    """An option's help from the setting's record: its description (capitalized), ``extra``
    and, with ``default``, the default that applies when neither the option nor --config
    sets it."""
    text = TRAIN_PARAMS[key].description
    text = text[:1].upper() + text[1:] + "." + extra
    return text + (f" (default: {TRAIN_DEFAULTS[key]}, or the --config file's)" if default else "")


SPECS_HINT = " Every spec and its parameters (type, default, range): `axiomatic losses`."

THREADS_HELP = (
    "Torch CPU threads (default: the idle cores, at most 4, from the load average; a busy "
    "machine trains several times faster with fewer threads)."
)


@app.command()
def train(
    dataset: Annotated[
        str | None,
        typer.Option(
            "--dataset",
            "-d",
            help=_help("dataset", " `axiomatic datasets init FILE.toml` writes a descriptor."),
        ),
    ] = None,
    model: Annotated[
        str | None,
        typer.Option(
            "--model",
            "-m",
            help=_help("model"),
        ),
    ] = None,
    out: Annotated[
        Path, typer.Option("--out", "-o", help="Output folder (checkpoints, logs, model).")
    ] = Path("models/run"),
    loss: Annotated[str | None, typer.Option(help=_help("loss", SPECS_HINT))] = None,
    regularizer: Annotated[
        str | None,
        typer.Option(help=_help("regularizer", SPECS_HINT, default=False)),
    ] = None,
    augmentation: Annotated[
        str | None,
        typer.Option(help=_help("augmentation", SPECS_HINT, default=False)),
    ] = None,
    graded_loss: Annotated[
        str | None,
        typer.Option(
            "--graded-loss",
            help='With --loss graded: the graded loss, e.g. "sosl(thresholds=0.2,0.7)", '
            '"po(scale=10)", "3partl2", "mse" (default: sosl).' + SPECS_HINT,
        ),
    ] = None,
    lr_schedule: Annotated[
        str | None,
        typer.Option(
            "--lr-schedule",
            help='The learning-rate schedule: "constant", "exponential(gamma=0.95, every=N)" or '
            '"linear(warmup=0.1)" (default: constant, or the --config file\'s).' + SPECS_HINT,
        ),
    ] = None,
    config: Annotated[
        Path | None,
        typer.Option("--config", "-c", help="TOML file (a \\[train] table or top-level keys)."),
    ] = None,
    seed: Annotated[int | None, typer.Option(min=0, help=_help("seed"))] = None,
    steps: Annotated[int | None, typer.Option(min=1, help=_help("steps"))] = None,
    epochs: Annotated[
        float | None, typer.Option(min=0.0, help=_help("epochs", default=False))
    ] = None,
    batch_size: Annotated[
        int | None,
        typer.Option("--batch-size", min=1, help=_help("batch_size")),
    ] = None,
    lr: Annotated[float | None, typer.Option(min=0.0, help=_help("lr"))] = None,
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
            "graded_loss": graded_loss,
            "lr_schedule": lr_schedule,
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
    from axiomatic.training.distributed import distributed_context
    from axiomatic.training.run import train_model
    from axiomatic.training.trainer import NonFiniteLossError, set_training_threads

    try:  # under torchrun: join the other processes (docs/training.md)
        ctx = distributed_context()
        ctx.check_batch_size(cfg.batch_size)
    except (RuntimeError, ValueError) as exc:
        raise fail(str(exc)) from None
    n_threads = set_training_threads(threads)
    parallel = f", {ctx.world_size} processes ({ctx.backend})" if ctx.active else ""
    if ctx.is_main:
        console.print(
            f"training [bold]{escape(cfg.model)}[/] on [bold]{escape(cfg.dataset)}[/] "
            + escape(
                f"(loss {cfg.loss}, regularizer {cfg.regularizer or 'none'}, analyzer "
                f"{cfg.analyzer}, {n_threads} thread{'s' if n_threads > 1 else ''}"
                f"{parallel}) -> {out}"
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
    if ctx.is_main and result.reused:
        console.print(
            f"reused: {out} holds a finished run with these settings ({result.steps} steps, "
            f"trained in {result.seconds:.0f}s); nothing trained; best dev MRR@10 {best}. "
            "--no-resume trains afresh",
            markup=False,
            highlight=False,
        )
    elif ctx.is_main:
        console.print(
            f"done: {result.steps} steps in {result.seconds:.0f}s; best dev MRR@10 {best}; "
            f"model and logs in {out}",
            markup=False,
            highlight=False,
        )


def spec_rows() -> list[dict[str, object]]:
    """One row per spec function of the training settings (:func:`~axiomatic.training.config.
    training_specs`): the setting, its name, what it is, an example and its parameters' records
    (:func:`axiomatic._params.param_dicts`)."""
    from axiomatic._params import param_dicts
    from axiomatic.training.config import training_specs

    return [
        {
            "setting": f.setting,
            "name": f.name,
            "what": f.description,
            "example": f.example,
            "parameters": param_dicts(f.params),
        }
        for f in training_specs()
    ]


SETTING_TITLES = {
    "loss": "losses (--loss; margin and list_size are settings of a --config file)",
    "graded_loss": "graded losses (--graded-loss, with --loss graded)",
    "regularizer": "regularizer (--regularizer)",
    "augmentation": "augmentations (--augmentation)",
    "lr_schedule": "learning-rate schedules (--lr-schedule)",
}


@app.command()
def losses(
    output_format: Annotated[str | None, typer.Option("--format", help=FORMAT_HELP)] = None,
    as_json: JsonAliasOpt = False,
) -> None:
    """List what the specs of `axiomatic train` may name: the losses, graded losses,
    regularizer, augmentations and learning-rate schedules, each with its parameters (type,
    default, range, description).

    E.g. --regularizer "ar(lambda=0.1, mu=0.1, axioms=TFC1-A,TFC3)" or, in a --config TOML,
    graded_loss = "po(scale=10, cuts=fixed)". A value out of range is refused naming the
    bound. The same tables: docs/training.md.
    """
    fmt = check_format(format_from_json_flag(output_format, as_json))
    rows = spec_rows()
    if fmt != "table":
        print_records(rows, fmt)
        return
    width = max(len(str(r["name"])) for r in rows)
    setting = None
    for r in rows:
        if r["setting"] != setting:
            setting = r["setting"]
            console.print(f"\n[bold underline]{escape(SETTING_TITLES[str(setting)])}[/]")
        example = f"  [dim]e.g. {escape(str(r['example']))}[/]" if r["example"] != r["name"] else ""
        console.print(
            f"[bold]{escape(str(r['name'])).ljust(width)}[/]  {escape(str(r['what']))}{example}",
            highlight=False,
            soft_wrap=True,
        )
        for p in r["parameters"]:  # type: ignore[attr-defined]
            console.print(
                f"{' ' * (width + 2)}[dim]{escape(parameter_text(p))}[/]",
                highlight=False,
                soft_wrap=True,
            )


@app.command()
def experiment(
    name: Annotated[
        str | None,
        typer.Argument(
            help="The experiment, e.g. rosset2019 or liu-smooth. Without a name: list the "
            "registered experiments (summary, paper, Dask units).",
            show_default=False,
        ),
    ] = None,
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
    full: Annotated[
        bool,
        typer.Option(
            "--full",
            help="Run the paper-sized grid (hours to days). Without --full, --quick or "
            "--config the command only prints the plan: runs and an estimated time.",
        ),
    ] = False,
    report_only: Annotated[
        bool,
        typer.Option(
            "--report-only",
            help="Only summarize the runs finished so far, with the settings of the output "
            "folder's own config.toml (unless --config is given).",
        ),
    ] = False,
    sasaki: Annotated[
        Path | None,
        typer.Option(
            "--sasaki",
            help="liu-smooth: folder of Sasaki et al. 2018 CLIR files (train*, test1*, dev*).",
        ),
    ] = None,
    overwrite: Annotated[
        bool,
        typer.Option(
            "--overwrite",
            help="Redo the finished or started runs of the output folder that were computed "
            "with other settings or data (without it they are refused, naming what differs); "
            "runs with the same settings are still reused.",
        ),
    ] = False,
    workers: Annotated[int | None, typer.Option(min=1, help="Local Dask workers.")] = None,
    scheduler: Annotated[str | None, typer.Option(help="Address of a Dask scheduler.")] = None,
    describe: Annotated[
        bool,
        typer.Option(
            "--describe",
            help="Print the plan's parameters (name, type, default, allowed range, "
            "description: what a --config file's [plan] table may set) and exit.",
        ),
    ] = False,
) -> None:
    """Run (or resume: finished runs with the same settings are reused) a paper's training
    experiment; without a name, list the experiments."""
    from axiomatic.experiments.engine import get_experiment, run_experiment
    from axiomatic.experiments.schedule import UnitWorkerError

    if name is None:
        if describe:
            raise fail(
                "--describe prints one experiment's parameters: name it, e.g. "
                "`axiomatic experiment rosset2019 --describe`"
            )
        _list_experiments()
        return
    try:
        exp = get_experiment(name)
        if describe:
            console.print(exp.describe(), markup=False, highlight=False, soft_wrap=True)
            return
        exp.check_scheduling(workers, scheduler)
    except ValueError as exc:
        raise fail(str(exc)) from None
    key = exp.name
    from axiomatic.training.distributed import launched

    if launched():
        raise fail(
            "`axiomatic experiment` runs in one process: its plan writes its folder from "
            "every process torchrun starts. Launch `axiomatic train` (or `pretrain ares`) "
            "under torchrun instead, one training run at a time"
        )
    out = out or Path("outputs") / (key + ("-quick" if quick else ""))
    check_output_dir(out)
    try:
        seed_list = [int(s) for s in seeds.split(",")] if seeds else None
    except ValueError:
        raise fail(f"--seeds {seeds!r}: expected comma-separated integers, e.g. 0,1") from None
    for value in seed_list or []:
        if value < 0:  # click's own wording for `--seed -1` everywhere else
            raise typer.BadParameter(
                f"{value}: input should be greater than or equal to 0", param_hint="'--seeds'"
            )
    if quick and full:
        raise fail("--quick and --full exclude each other: --quick is the CI-sized smoke test")
    if overwrite and report_only:
        raise fail("--overwrite redoes runs: it has no effect with --report-only")
    overrides: dict = {}
    if config is not None:
        from axiomatic.training.config import read_toml

        try:
            data = read_toml(config)
        except (ValueError, FileNotFoundError) as exc:
            raise fail(str(exc)) from None
        if "plan" not in data and "experiment" in data:  # an output folder's own config.toml
            overrides.update(_folder_plan(config, key))
        else:
            overrides.update(_plan_table(config, data.get("plan", {})))
    elif report_only and (out / "config.toml").is_file():
        overrides.update(_folder_plan(out / "config.toml", key))
    options = {
        "seeds": seed_list,
        "models": [m.strip() for m in models.split(",")] if models else None,
        "steps": steps,
        "threads": threads,
        "data_root": str(data_root) if data_root else None,
        "sasaki": str(sasaki) if sasaki else None,
    }
    for option in _OWN_OPTIONS - exp.options:
        if options.get(option) is not None:  # an option only some experiments declare
            takes = [e.name for e in _registry() if option in e.options]
            raise fail(f"--{option} is an option of the {', '.join(takes)} experiment")
    overrides.update({k: v for k, v in options.items() if v is not None})

    if not (quick or full or config is not None or report_only):
        for line in exp.plan_lines(out, overrides):
            console.print(line, markup=False, highlight=False)
        resume = (
            f"; {out / 'config.toml'} holds the plan this folder was run with: resume it with "
            f"--config {out / 'config.toml'}"
            if (out / "config.toml").is_file()
            else ""
        )
        raise fail(
            f"`axiomatic experiment {key}` runs the full grid above: pass --full to start (or "
            "resume) it, --quick for the CI-sized smoke test, or --config FILE for your own plan"
            + resume
        )

    def echo(msg: str) -> None:
        console.print(msg, highlight=False, markup=False)  # "[rosset2019] ..." is no markup

    try:
        run_experiment(
            key,
            out,
            quick=quick,
            report_only=report_only,
            overwrite=overwrite,
            workers=workers,
            scheduler=scheduler,
            echo=echo,
            **overrides,
        )
    except (KeyError, ValueError, FileNotFoundError, ConnectionError) as exc:
        raise fail(str(exc.args[0] if exc.args else exc)) from None
    except UnitWorkerError as exc:  # a unit that keeps killing its Dask workers
        raise fail(str(exc)) from None
    console.print(f"results: {out / 'summary.md'}", markup=False, highlight=False)


_OWN_OPTIONS = frozenset({"sasaki"})
"""Options of the command that only some experiments take (each declares its own)."""


def _registry() -> list:
    from axiomatic.experiments.engine import experiments

    return experiments()


def _list_experiments() -> None:
    """The registry as a table: name, what it reproduces, the paper."""
    from rich.table import Table

    table = Table(title="experiments (`axiomatic experiment NAME --quick | --full | --config`)")
    table.add_column("name", no_wrap=True)
    table.add_column("what it reproduces")
    table.add_column("paper")
    table.add_column("Dask units", no_wrap=True)
    for e in _registry():
        table.add_row(escape(e.name), escape(e.summary), escape(e.paper), "yes" if e.dask else "no")
    console.print(table)


def _plan_table(path: Path, plan: object) -> dict:
    """The ``plan`` of a config file, which must be a table of settings."""
    if not isinstance(plan, dict):
        shown = repr(plan) if len(repr(plan)) <= 40 else repr(plan)[:39] + "\u2026"
        raise fail(
            f"{path}: 'plan' must be a table of settings ([plan] followed by key = value "
            f"lines), got {shown} ({type(plan).__name__})"
        )
    return plan


def _folder_plan(path: Path, key: str) -> dict:
    """The plan settings an experiment recorded in its output folder's ``config.toml``."""
    from axiomatic.training.config import read_toml

    try:
        data = dict(read_toml(path))
    except (ValueError, FileNotFoundError) as exc:
        raise fail(f"{path}: {exc}") from None
    recorded = data.pop("experiment", key)
    if recorded != key:
        raise fail(
            f"{path} belongs to experiment {recorded!r}, not {key!r}; pass the right name or "
            "another --out"
        )
    return data.get("plan", data) if isinstance(data.get("plan"), dict) else data
