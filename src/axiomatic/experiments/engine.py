"""The experiment framework: one Plan base, one Runner base, one registry, one entry point.

Every paper experiment is a module with

- a *plan*: a dataclass deriving from :class:`Plan` (``quick()`` the CI-sized settings,
  ``full()`` the paper-shaped ones); user settings (a ``--config`` file's ``[plan]`` table, the
  command's options, keyword arguments) are applied by :meth:`Plan.with_overrides`, which
  refuses an unknown key in one line with a suggestion;
- a *runner*: a class deriving from :class:`Runner`, constructed with the plan and the output
  folder (it opens the :class:`~axiomatic.experiments.units.UnitStore` every unit is cached
  in), that says what the experiment is: ``compute()`` the units not done yet, ``results()``
  the summary of the finished units (a JSON-ready dict), and pure renderings of it:
  ``summary(results)`` (Markdown), ``figures(results)``, ``docs_page(results, page)``. The
  engine owns the lifecycle (:meth:`Runner.run`, :meth:`Runner.report`): it times the
  invocation, writes ``results.json`` with its record (plan, machine, timing), the figures,
  ``summary.md`` and the docs page, each atomically;
- its registration: the runner class under :func:`register_experiment` (name, summary, paper,
  whether its units can run on Dask, the command options only it takes).

:data:`REGISTRY` finds a built-in experiment by its module (``axiomatic.experiments.<name>``,
``-`` as ``_``; a package's modules are all imported) and another package's through the entry
point group ``axiomatic.experiments``; nothing here lists them. :func:`run_experiment` is the one
way to run one, from the CLI (``axiomatic experiment NAME``) and from Python.
docs/architecture.md, "Adding an experiment", shows a complete module.
"""

from __future__ import annotations

import dataclasses
import importlib
import json
import pkgutil
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar, TypeVar

from axiomatic._params import ParamInfo, dataclass_params, param_meta, param_table
from axiomatic._registry import Registry, registry_key
from axiomatic._suggest import suggest
from axiomatic.experiments.units import UnitStore, note_plan_change
from axiomatic.training.config import TRAIN_PARAMS

__all__ = [
    "ENGINE_KEYS",
    "REGISTRY",
    "SECONDS_PER_STEP",
    "Experiment",
    "ExperimentRegistry",
    "Plan",
    "Runner",
    "TrainingPlan",
    "candidate_run",
    "check_keys",
    "estimate_line",
    "experiments",
    "get_experiment",
    "plain",
    "record",
    "register_experiment",
    "run_experiment",
    "smooth",
]

P = TypeVar("P", bound="Plan")
RunnerT = TypeVar("RunnerT", bound="type[Runner]")


# ---------------------------------------------------------------------- settings
def check_keys(given: Iterable[str], allowed: Iterable[str], what: str) -> None:
    """Refuse the keys of ``given`` that are not ``allowed``, in one line: ``unknown <what>
    'stepz' (did you mean 'steps'?); expected some of [...]``."""
    names = sorted(allowed)
    unknown = sorted(set(given) - set(names))
    if not unknown:
        return
    k = unknown[0]
    more = f" (and {len(unknown) - 1} more: {unknown[1:]})" if len(unknown) > 1 else ""
    raise ValueError(
        f"unknown {what} {k!r}{suggest(k, names)}{more}; expected some of {names}; fix the "
        "--config file's [plan] table or the keyword"
    )


_TYPES: dict[str, tuple[type, ...]] = {
    "int": (int,),
    "float": (int, float),
    "str": (str,),
    "bool": (bool,),
    "list": (list, tuple),
    "tuple": (list, tuple),
    "dict": (dict,),
    "None": (type(None),),
}


def _accepted(annotation: Any) -> tuple[type, ...] | None:
    """The Python types a field annotated ``annotation`` accepts (``int | None`` ->
    ``(int, NoneType)``); ``None`` when the annotation is not a simple one (no check)."""
    if not isinstance(annotation, str):
        return None
    out: list[type] = []
    for part in annotation.split("|"):
        base = part.strip().split("[", 1)[0].strip()
        if base not in _TYPES:
            return None
        out += _TYPES[base]
    return tuple(out)


class Plan:
    """Base of every experiment plan (a dataclass deriving from it).

    Class settings a plan may set:

    - ``ALIASES``: the experiment command's generic names in this plan's terms (e.g. ARES'
      ``{"seeds": "auc_seeds"}``);
    - ``REFUSED``: keys the command offers that make no sense here -> the one-line reason;
    - ``TABLES``: fields holding a list of nested tables -> the dataclass of one table
      (``[[plan.datasets]]``), checked key by key as the plan itself.
    """

    ALIASES: ClassVar[Mapping[str, str]] = {}
    REFUSED: ClassVar[Mapping[str, str]] = {}
    TABLES: ClassVar[Mapping[str, type]] = {}

    @classmethod
    def quick(cls: type[P]) -> P:
        """The CI-sized plan (demo data, a few steps)."""
        return cls()

    @classmethod
    def full(cls: type[P]) -> P:
        """The paper-shaped plan."""
        return cls()

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)  # type: ignore[call-overload,no-any-return]

    @classmethod
    def params(cls) -> dict[str, ParamInfo]:
        """Field name -> its :class:`~axiomatic._params.ParamInfo` (type, default, range or
        choices, description), from the dataclass field and its ``metadata`` (see
        :func:`~axiomatic._params.dataclass_params`): what :meth:`check_params` checks and
        ``axiomatic experiment NAME --describe`` prints."""
        if cls not in _PARAMS:
            _PARAMS[cls] = dataclass_params(cls)
        return _PARAMS[cls]

    def check_params(self, experiment: str) -> None:
        """Refuse a field outside its record's type or range, in one line naming the
        setting, what it must be and what it got."""
        checks = [(f"{name!r}", info, getattr(self, name)) for name, info in self.params().items()]
        for key, table in self.TABLES.items():  # nested tables ([[plan.datasets]]), item by item
            records = dataclass_params(table)
            for i, item in enumerate(getattr(self, key) or ()):
                if isinstance(item, table):
                    checks += [
                        (f"'{key}[{i}].{name}'", info, getattr(item, name))
                        for name, info in records.items()
                    ]
        for where, info, value in checks:
            try:
                info.check(value, f"{experiment} setting {where}")
            except ValueError as exc:
                raise ValueError(f"{exc}; {_FIX}") from None

    @classmethod
    def fields(cls) -> dict[str, Any]:
        """Field name -> its annotation (a string under ``from __future__ import annotations``)."""
        return {f.name: f.type for f in dataclasses.fields(cls)}  # type: ignore[arg-type]

    def with_overrides(self: P, overrides: Mapping[str, Any], experiment: str) -> P:
        """This plan with ``overrides`` (``None`` values ignored) replacing its fields: an
        unknown key is refused with a suggestion, a value of the wrong kind (a string for a
        number, a number for a list) named; nested tables (``TABLES``) are built and checked;
        lists given for tuple fields become tuples. Every field of the result is then checked
        against its parameter record (:meth:`check_params`), before any work."""
        types = self.fields()
        values: dict[str, Any] = {}
        for key, value in overrides.items():
            if key in self.REFUSED:
                if value is None:
                    continue
                raise ValueError(self.REFUSED[key])
            key = self.ALIASES.get(key, key)
            if value is not None:
                values[key] = value
        check_keys(values, types, f"{experiment} setting")
        for key, value in list(values.items()):
            if key in self.TABLES and isinstance(value, (list, tuple)):
                table = self.TABLES[key]
                value = [_table(table, v, experiment, key) for v in value]
            accepted = _accepted(types[key])
            if accepted is not None and (
                not isinstance(value, accepted)
                or (isinstance(value, bool) and bool not in accepted)
            ):
                want = " or ".join(sorted({t.__name__ for t in accepted} - {"NoneType"}))
                raise ValueError(
                    f"{experiment} setting {key!r}: expected {want}, got {value!r}; fix the "
                    "--config file's [plan] table or the keyword"
                )
            _check_finite(value, f"{experiment} setting {key!r}", "float" in str(types[key]))
            if str(types[key]).startswith("tuple") and isinstance(value, list):
                value = tuple(value)
            values[key] = value
        plan = dataclasses.replace(self, **values)  # type: ignore[type-var]
        plan.check_params(experiment)
        return plan


_PARAMS: dict[type, dict[str, ParamInfo]] = {}
_FIX = "fix the --config file's [plan] table or the keyword"


THREADS = ParamInfo(
    "threads", "int | None", 1, low=1, description="torch threads per run (None: torch's default)"
)
"""The record of a plan's ``threads``: torch threads per run."""
EMBEDDINGS = ParamInfo(
    "embeddings",
    "str",
    "random",
    choices=("random", "word2vec", "minilm", "auto"),
    description="word embeddings of the word-level models (word2vec: trained on the "
    "training collection; see axiomatic.models.build_model)",
)
"""The record of a plan's ``embeddings`` (:func:`axiomatic.models.io.build_model`'s)."""


@dataclass
class TrainingPlan(Plan):
    """The settings of plans that train neural rankers with the project's trainer on BM25
    candidates (rosset2019, rennings-augment); a plan redeclares a field to change its
    default."""

    models: list[str] = field(
        default_factory=lambda: ["knrm"],
        metadata=param_meta(description="neural models trained, by name"),
    )
    seeds: list[int] = field(
        default_factory=lambda: [0],
        metadata=TRAIN_PARAMS["seed"].meta(description="training seeds: one run per seed"),
    )
    steps: int = field(default=300, metadata=TRAIN_PARAMS["steps"].meta())
    batch_size: int = field(default=16, metadata=TRAIN_PARAMS["batch_size"].meta())
    lr: float = field(default=1e-3, metadata=TRAIN_PARAMS["lr"].meta())
    eval_every: int = field(default=50, metadata=TRAIN_PARAMS["eval_every"].meta())
    patience: int = field(default=4, metadata=TRAIN_PARAMS["patience"].meta())
    dev_queries: int = field(default=100, metadata=TRAIN_PARAMS["dev_queries"].meta())
    model_config: dict[str, dict[str, Any]] = field(
        default_factory=lambda: {
            "knrm": {"max_doc_len": 128},
            "conv-knrm": {"max_doc_len": 128, "n_filters": 64},
            "duet": {"max_doc_len": 128},
            "cross-encoder": {"max_length": 192},
        }
    )
    """Model settings by model name (a unit records its own model's)."""
    embeddings: str = field(default="random", metadata=EMBEDDINGS.meta())
    threads: int | None = field(default=1, metadata=THREADS.meta())
    data_root: str | None = None
    """The shared data folder (``None``: the default one)."""
    analyzer: str = field(
        default="default",
        metadata=TRAIN_PARAMS["analyzer"].meta(
            description="text analysis of mining and perturbations (recorded in config.toml); "
            "the published runs used 'default'"
        ),
    )

    @staticmethod
    def ci_training() -> dict[str, Any]:
        """The training settings of a CI-sized plan: a small KNRM, tiny batches, one dev query."""
        return {
            "models": ["knrm"],
            "batch_size": 8,
            "patience": 0,
            "dev_queries": 1,
            "model_config": {"knrm": {"embedding_dim": 16, "max_doc_len": 64}},
        }

    def trainer_settings(self) -> dict[str, Any]:
        """The :class:`~axiomatic.training.config.TrainConfig` fields every unit takes from
        the plan as they are (a checkpoint at every dev evaluation)."""
        return {
            "lr": self.lr,
            "batch_size": self.batch_size,
            "eval_every": self.eval_every,
            "patience": self.patience,
            "dev_queries": self.dev_queries,
            "checkpoint_every": self.eval_every,
            "analyzer": self.analyzer,
        }


def _check_finite(value: Any, what: str, as_float: bool) -> None:
    """Numbers of a plan setting (and of its lists) must be finite numbers: TOML reads ``nan``
    and ``inf`` as floats, and an integer beyond float range fails later in the arithmetic
    (:func:`axiomatic._keyvalue.as_number`)."""
    from axiomatic._keyvalue import as_number

    if isinstance(value, (list, tuple)):
        for item in value:
            _check_finite(item, what, as_float)
    elif isinstance(value, (int, float)) and not isinstance(value, bool):
        integer = isinstance(value, int) and not as_float
        try:
            as_number(value, what=what, integer=integer)
        except ValueError as exc:
            raise ValueError(
                f"{exc}; fix the --config file's [plan] table or the keyword"
            ) from None


def _table(cls: type, value: Any, experiment: str, key: str) -> Any:
    if isinstance(value, cls):
        return value
    if not isinstance(value, Mapping):
        raise ValueError(
            f"{experiment} setting {key!r}: expected a list of tables ([[plan.{key}]]), got "
            f"{value!r}"
        )
    names = [f.name for f in dataclasses.fields(cls)]
    check_keys(value, names, f"key in an {experiment} [[plan.{key}]] table:")
    return cls(**value)


def plain(d: Any) -> Any:
    """Plan values -> TOML-writable ones: tuples to lists, ``None`` dropped (as the writer
    drops a top-level ``None``: a plan read back equals the plan written)."""
    if isinstance(d, Mapping):
        return {k: plain(v) for k, v in d.items() if v is not None}
    if isinstance(d, (list, tuple)):
        return [plain(v) for v in d]
    return d


def smooth(xs: Sequence[float], window: int) -> list[float]:
    """Trailing moving average over ``window`` values (NaN ignored), for training curves."""
    import numpy as np

    out: list[float] = []
    for i in range(len(xs)):
        part = np.asarray(xs[max(0, i + 1 - window) : i + 1], dtype=float)
        out.append(float(np.nanmean(part)) if not np.isnan(part).all() else float("nan"))
    return out


def candidate_run(ds: Any) -> dict[str, dict[str, float]]:
    """The candidate lists of ``ds`` as a run (the first candidate highest): BM25's order for
    the BM25 top-k splits."""
    return {
        q: {d: float(len(c) - i) for i, d in enumerate(c)} for q, c in (ds.candidates or {}).items()
    }


SECONDS_PER_STEP = {"knrm": 0.12, "conv-knrm": 0.35, "duet": 0.35, "cross-encoder": 3.6}
"""Rough CPU seconds per training step on one core, dev evaluation included (docs/training.md:
KNRM 8 runs of 300 steps in 5 minutes; the MiniLM cross-encoder 2 x 150 steps in 18 minutes)."""


def estimate_line(runs: Sequence[tuple[str, int]]) -> str:
    """The plan text's line for training runs given as ``(model, steps)``."""
    secs = sum(SECONDS_PER_STEP.get(m, 0.35) * st for m, st in runs)
    return (
        f"  training runs: {len(runs)}; estimated time: at least ~{secs / 3600:.1f} h of "
        "training on one core (rough, from the timings in docs/training.md; scoring the "
        "test sets adds to it; finished runs are skipped on resume)"
    )


# ---------------------------------------------------------------------- runner
class Runner:
    """Base of every experiment runner.

    The constructor only stores its arguments and opens the unit store (no data is read):
    ``plan``, ``out_dir``, ``echo`` (progress lines), ``overwrite`` (redo units of other
    settings instead of refusing them), ``workers`` / ``scheduler`` (where units run; ``None``:
    in this process). A subclass sets ``name`` and ``plan_class``, implements :meth:`compute`,
    :meth:`results` and :meth:`summary` (and, where it has them, :meth:`figures` and
    :meth:`docs_page`), and may set ``unit_done`` (the file that marks a finished folder
    unit). :meth:`run` and :meth:`report` are the engine's: no experiment writes
    ``results.json``, ``summary.md`` or its docs page itself.
    """

    name: ClassVar[str] = ""
    plan_class: ClassVar[type[Plan]] = Plan
    unit_done: ClassVar[str] = "test_metrics.json"
    unit_code: ClassVar[int] = 1
    """Version of how a unit is computed (in every unit's record): bump it when a change of
    the code changes a unit's results, so that units of the older code are refused."""
    dask: ClassVar[bool] = False
    """Whether the units can run on Dask (declared by :func:`register_experiment`): without
    it, ``workers`` / ``scheduler`` are refused."""
    in_process: ClassVar[str] = ""
    """Why the units run in this process only (the refusal says it)."""

    def __init__(
        self,
        plan: Any,
        out_dir: str | Path,
        echo: Callable[[str], None] = print,
        overwrite: bool = False,
        *,
        workers: int | None = None,
        scheduler: str | None = None,
    ) -> None:
        if not self.dask and (workers is not None or scheduler is not None):
            raise ValueError(scheduling_refusal(self.name, self.in_process))
        self.plan = plan
        self.out_dir = Path(out_dir)
        self.started = time.perf_counter()
        """When this invocation began (``time.perf_counter()``), for reports that state it."""
        self.echo = echo
        self.overwrite = overwrite
        self.workers = workers
        self.scheduler = scheduler
        # every unit is keyed by a fingerprint of its settings and data (units.py): a unit
        # computed with other settings is refused (or redone with overwrite), never reused
        self.store = UnitStore(
            self.out_dir, overwrite=overwrite, done=self.unit_done, echo=self.note
        )

    def note(self, msg: str) -> None:
        """A progress line, prefixed with the experiment's name."""
        self.echo(f"[{self.name}] {msg}")

    # ------------------------------------------------------------------ plans
    @classmethod
    def make_plan(cls, quick: bool, overrides: Mapping[str, Any]) -> Any:
        """The quick or full plan with ``overrides``, validated (:meth:`check_plan`)."""
        base = cls.plan_class.quick() if quick else cls.plan_class.full()
        plan = base.with_overrides(overrides, experiment=cls.name)
        cls.check_plan(plan)
        return plan

    @classmethod
    def check_plan(cls, plan: Any) -> None:
        """Refuse a plan that cannot run (before any work); the default accepts it."""

    @classmethod
    def plan_lines(cls, plan: Any, out: Path) -> list[str]:
        """What the plan runs, as indented lines (the command prints them under a title)."""
        return [f"  {k} = {v!r}" for k, v in plain(plan.to_dict()).items()]

    # ------------------------------------------------------------------ bookkeeping
    def record_settings(self, *fields: str, **values: Any) -> dict[str, Any]:
        """A unit record's settings: the experiment, its ``unit_code``, the plan's ``fields``
        (by name, as they are) and ``values``."""
        plan = {f: getattr(self.plan, f) for f in fields}
        return {"experiment": self.name, "code": self.unit_code, **plan, **values}

    def write_config(self) -> None:
        """Record the plan in the folder's ``config.toml`` (saying first what changed since
        the plan recorded there): ``--report-only`` and ``--config`` read it back."""
        from axiomatic.training.config import write_toml

        plan = {"experiment": self.name, **plain(self.plan.to_dict())}
        note_plan_change(self.out_dir / "config.toml", plan, self.store.echo)
        write_toml(plan, self.out_dir / "config.toml")

    def record_timing(self, wall_seconds: float) -> None:
        """Append this invocation's wall time to the folder's ``timing.json``."""
        from axiomatic._atomic import atomic_write_text

        path = self.out_dir / "timing.json"
        timing = (
            json.loads(path.read_text(encoding="utf-8")) if path.exists() else {"invocations": []}
        )
        timing["invocations"].append(
            {
                "wall_seconds": round(wall_seconds, 1),
                "when": time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime()),
            }
        )
        atomic_write_text(path, json.dumps(timing, indent=1, default=str))

    # ------------------------------------------------------------------ the lifecycle
    def run(self) -> dict[str, Any]:
        """Compute every unit not done yet (:meth:`compute`), record this invocation's wall
        time in ``timing.json``, then :meth:`report`."""
        t0 = time.perf_counter()
        self.out_dir.mkdir(parents=True, exist_ok=True)
        self.compute()
        self.record_timing(time.perf_counter() - t0)
        return self.report()

    def report(self) -> dict[str, Any]:
        """Summarize the finished units of this plan and write the outputs, each atomically:
        ``results.json`` (:meth:`results` plus the engine's record: the ``plan``, the
        ``machine`` and the ``timing`` of the invocations that ran to the end), the figures
        (:meth:`figures`), ``summary.md`` (:meth:`summary`) and, when the plan names a
        ``docs`` page, that page (:meth:`docs_page`; a hand-written ``<page>.notes.md``
        beside it is appended, never overwritten) with its figures in the page's ``img/``.
        Returns what ``results.json`` holds."""
        from axiomatic._atomic import atomic_write_text
        from axiomatic._report import save_figure
        from axiomatic.experiments.units import machine

        results = self.results()
        results.update(record(self.plan, self.out_dir, machine()))
        self.out_dir.mkdir(parents=True, exist_ok=True)
        atomic_write_text(self.out_dir / "results.json", json.dumps(results, indent=1, default=str))
        figures = self.drawn(results)
        for name, fig in figures.items():
            save_figure(fig, self.out_dir / name, dpi=self.figure_dpi)
        atomic_write_text(self.out_dir / "summary.md", self.summary(results))
        docs = getattr(self.plan, "docs", None)
        if docs:
            page = Path(docs)
            for name, fig in figures.items():
                save_figure(fig, page.parent / "img" / self.docs_figure(name, page),
                            dpi=self.figure_dpi)  # fmt: skip
            text = self.docs_page(results, page)
            # hand-written observations beside the page: appended, never overwritten
            notes = page.with_suffix(".notes.md")
            if self.docs_notes and notes.is_file():
                text = text.rstrip("\n") + "\n\n" + notes.read_text(encoding="utf-8")
            atomic_write_text(page, text)
        return results

    # ------------------------------------------------------------------ what an experiment says
    def compute(self) -> None:
        """Compute every unit of the plan not done yet (reusing the finished ones)."""
        raise NotImplementedError

    def results(self) -> dict[str, Any]:
        """The summary of the finished units of this plan (JSON-ready): tables, tests,
        diagnoses. It may write what belongs to the units' analysis (a diagnosis folder, a
        McNemar table); the engine adds its record and writes ``results.json``."""
        raise NotImplementedError

    def figures(self, results: Mapping[str, Any]) -> dict[str, Any]:
        """The figures of ``results``: path relative to the output folder -> a matplotlib
        figure (:func:`axiomatic._report.new_figure`); none by default."""
        return {}

    def drawn(self, results: Mapping[str, Any]) -> dict[str, Any]:
        """:meth:`figures` of ``results``, drawn once per results (what :meth:`summary` and
        :meth:`docs_page` link to is what is drawn)."""
        cache = self.__dict__.get("_figures_of")
        if cache is None or cache[0] is not results:
            cache = self.__dict__["_figures_of"] = (results, self.figures(results))
        figures: dict[str, Any] = cache[1]
        return figures

    figure_dpi: ClassVar[float] = 110
    """Resolution of the saved figures (:func:`axiomatic._report.save_figure`)."""

    def summary(self, results: Mapping[str, Any]) -> str:
        """``summary.md``: the Markdown report of ``results`` (figures linked relative to the
        output folder)."""
        raise NotImplementedError

    def docs_page(self, results: Mapping[str, Any], page: Path) -> str:
        """The text of the docs ``page`` for ``results`` (figures linked as ``img/<name>``,
        :meth:`docs_figure`); by default :meth:`summary`'s."""
        return self.summary(results)

    docs_notes: ClassVar[bool] = True
    """Whether a hand-written ``<page>.notes.md`` is appended to the docs page (an
    experiment whose :meth:`docs_page` keeps the page's own text around a generated block
    sets it to ``False``)."""

    def docs_figure(self, name: str, page: Path) -> str:
        """The file name, in the docs page's ``img/`` folder, of figure ``name``."""
        return Path(name).name


ENGINE_KEYS = ("plan", "machine", "timing")
"""The keys of ``results.json`` the engine writes for every experiment (:func:`record`)."""


def record(plan: Any, out_dir: Path, machine: Mapping[str, Any]) -> dict[str, Any]:
    """The engine's part of ``results.json``: the ``plan`` as run, the ``machine`` and, once
    an invocation ran to the end, the ``timing`` of the invocations (``timing.json``)."""
    out: dict[str, Any] = {"plan": plan.to_dict(), "machine": dict(machine)}
    timing = out_dir / "timing.json"
    if timing.is_file():
        out["timing"] = json.loads(timing.read_text(encoding="utf-8"))
    return out


# ---------------------------------------------------------------------- registry
@dataclass(frozen=True)
class Experiment:
    """A registry entry: what the command lists, where the runner is, how its units run."""

    name: str
    summary: str
    paper: str
    runner: str | type[Runner]
    """The :class:`Runner` subclass (or ``module:Class``, imported on use)."""
    options: frozenset[str] = field(default_factory=frozenset)
    """Command options only this experiment takes (e.g. liu-smooth's ``sasaki``)."""
    dask: bool = False
    """Whether its units can run on Dask (``--workers`` / ``--scheduler``)."""
    in_process: str = ""
    """Why its units cannot run on Dask (the refusal says it)."""

    def load(self) -> type[Runner]:
        if not isinstance(self.runner, str):
            return self.runner
        module, _, cls = self.runner.partition(":")
        runner: type[Runner] = getattr(importlib.import_module(module), cls)
        return runner

    def check_scheduling(self, workers: int | None, scheduler: str | None) -> None:
        """Refuse ``workers`` / ``scheduler`` for an experiment whose units run in this process
        only (one line, naming why)."""
        if not self.dask and (workers is not None or scheduler is not None):
            raise ValueError(scheduling_refusal(self.name, self.in_process))

    def plan(self, quick: bool = False, **overrides: Any) -> Any:
        return self.load().make_plan(quick, overrides)

    def params(self) -> dict[str, ParamInfo]:
        """The plan's parameter records (:meth:`Plan.params`), field by field."""
        return self.load().plan_class.params()

    def describe(self) -> str:
        """The plan's parameters as a Markdown table (name, type, default, range,
        description), generated from :meth:`params` (``axiomatic experiment NAME
        --describe``)."""
        return param_table(self.params())

    def plan_lines(self, out: Path, overrides: Mapping[str, Any]) -> list[str]:
        """The full plan (with the command's ``overrides`` this plan knows) as text."""
        runner = self.load()
        known = set(runner.plan_class.fields()) | set(runner.plan_class.ALIASES)
        kept = {k: v for k, v in overrides.items() if k in known}
        lines = [f"plan of `axiomatic experiment {self.name}` (full grid) -> {out}"]
        try:
            lines += runner.plan_lines(runner.make_plan(False, kept), out)
        except Exception as exc:  # the plan text must never hide the command's refusal
            lines.append(f"  (could not count the runs: {type(exc).__name__}: {exc})")
        return lines


def scheduling_refusal(name: str, in_process: str) -> str:
    """The one refusal of ``--workers`` / ``--scheduler`` for an experiment without Dask units."""
    why = f" ({in_process})" if in_process else ""
    return (
        f"experiment {name!r} runs its units in this process, not on Dask{why}: leave out "
        "--workers / --scheduler"
    )


_BUILT_IN = "axiomatic.experiments"


def _adapt(name: str, loaded: Any) -> Experiment:
    """An ``axiomatic.experiments`` entry point's object that did not register itself."""
    if isinstance(loaded, Experiment):
        return loaded
    raise ValueError(
        f"entry point {name!r} of group 'axiomatic.experiments' names {loaded!r}, which "
        "registered no experiment; decorate its runner class with "
        f"@register_experiment({name!r}, summary=..., paper=..., dask=...)"
    )


class ExperimentRegistry(Registry[Experiment]):
    """:class:`~axiomatic._registry.Registry` of experiments that finds the built-in ones by
    their module: ``NAME`` is looked up by importing ``axiomatic.experiments.NAME`` (``-`` as
    ``_``; every module of a package), and a listing imports every module of the package.
    Names are listed in alphabetical order."""

    def _import_built_in(self, module: str | None = None) -> None:
        package = importlib.import_module(_BUILT_IN)
        for info in pkgutil.iter_modules(package.__path__):
            if module is not None and info.name != module:
                continue
            imported = importlib.import_module(f"{_BUILT_IN}.{info.name}")
            if info.ispkg:
                for sub in pkgutil.iter_modules(imported.__path__):
                    importlib.import_module(f"{imported.__name__}.{sub.name}")

    def find(self, name: str) -> str | None:
        found = self._find(name)
        if found is None:
            self._import_built_in(registry_key(name).replace("-", "_"))
            found = self._find(name)
        if found is None:  # squashed spellings, other packages' entry points
            self.read_entry_points()
            found = self._find(name)
        return found

    def read_entry_points(self) -> None:
        if not self._all_read:
            self._import_built_in()
        super().read_entry_points()

    def names(self) -> list[str]:
        return sorted(super().names())

    def items(self) -> Iterator[tuple[str, Experiment]]:
        return iter([(n, self._entries[n]) for n in self.names()])

    def values(self) -> list[Experiment]:
        return [self._entries[n] for n in self.names()]


REGISTRY = ExperimentRegistry("experiment", entry_points="axiomatic.experiments", adapt=_adapt)
"""The experiments ``axiomatic experiment`` lists and runs, by name: each registers its runner
with :func:`register_experiment` (:class:`ExperimentRegistry`)."""


def register_experiment(
    name: str,
    *,
    summary: str,
    paper: str,
    dask: bool,
    in_process: str = "",
    options: Iterable[str] = (),
) -> Callable[[RunnerT], RunnerT]:
    """Register the decorated :class:`Runner` subclass as experiment ``name``.

    ``summary`` and ``paper`` are what ``axiomatic experiment`` lists; ``dask`` declares
    whether its units can run on Dask (``--workers`` / ``--scheduler``; ``in_process`` says
    why not, in the refusal); ``options`` are the command options only this experiment takes
    (liu-smooth's ``sasaki``). The runner's ``name`` is set to ``name``::

        @register_experiment("toy", summary="the mean of draws", paper="none", dask=False)
        class Toy(Runner): ...

    A built-in experiment is found by its module (``axiomatic.experiments.toy``); another
    package names its module in its ``axiomatic.experiments`` entry points
    (``toy = "mypkg.toy:Toy"``).
    """

    def decorate(runner: RunnerT) -> RunnerT:
        if runner.name and runner.name != name:
            raise ValueError(
                f"runner {runner.__name__} is named {runner.name!r}; register it under that "
                f"name, not {name!r}"
            )
        runner.name = name
        runner.dask = dask
        runner.in_process = in_process
        entry = Experiment(
            name, summary, paper, runner, frozenset(options), dask=dask, in_process=in_process
        )
        REGISTRY.register(name, entry)
        return runner

    return decorate


def experiments() -> list[Experiment]:
    return REGISTRY.values()


def get_experiment(name: str) -> Experiment:
    """The registry entry ``name`` (case, ``_`` / ``-`` and surrounding spaces forgiven); an
    unknown name is refused in one line with the close matches and the known names."""
    return REGISTRY.get(name)


def run_experiment(
    name: str,
    out: str | Path,
    *,
    quick: bool = False,
    report_only: bool = False,
    overwrite: bool = False,
    workers: int | None = None,
    scheduler: str | None = None,
    echo: Callable[[str], None] = print,
    **overrides: Any,
) -> dict[str, Any]:
    """Run (or resume: finished units with the same settings are reused) experiment ``name``
    into ``out``; ``overrides`` replace plan fields (``seeds=[0, 1]``, ``steps=6``); with
    ``report_only`` only summarize the units finished so far. Returns the summary (what
    ``results.json`` holds)."""
    exp = get_experiment(name)
    exp.check_scheduling(workers, scheduler)
    if report_only and overwrite:
        raise ValueError("overwrite redoes units: it has no effect with report_only")
    runner_cls = exp.load()
    plan = runner_cls.make_plan(quick, overrides)
    runner = runner_cls(plan, out, echo, overwrite=overwrite, workers=workers, scheduler=scheduler)
    return runner.report() if report_only else runner.run()
