"""Diagnosing a folder written by ``mine``, as ``axiomatic diagnose`` does, for Python too.

A mined folder records what it was mined from in its manifest (``_manifest.json``): the
dataset (a catalog name, or the descriptor / rank_llm file and ``--qrels``), the first stage of a full-retrieval
dataset and the analyzer. :func:`load_mined` reads the folder back with the dataset and
candidate lists it was mined from, refusing instances mined from other data than the dataset
holds now; :func:`diagnose_mined` scores the rankers on them (a neural ranker's effectiveness
run is scored once and reused) and records in the diagnosis what a report shows.

Errors are ``ValueError`` / ``FileNotFoundError`` with one line naming the file and the fix.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from axiomatic.data.instances import artificial_file_path, manifest_path
from axiomatic.diagnose.inputs import (
    RunScores,
    first_stage_of_manifest,
    is_neural,
    run_of,
    with_first_stage,
)

DATASET_FILES_KEY = "dataset_files"
"""Manifest key (outside ``config``: no effect on resuming) naming the descriptor or rank_llm
file and the ``--qrels`` a mining run read, so that ``diagnose`` finds them again."""

DEFAULT_ANALYZER = "default"
"""The analyzer every command uses unless told otherwise."""

Echo = Callable[[str], None]
"""Where a call says what it did: one note line (``None``: nothing)."""


class ManifestError(ValueError):
    """A manifest that cannot be read; ``reason`` says why, ``nested`` whether its
    JSON nests too deep to parse."""

    def __init__(self, path: Path, reason: str, nested: bool = False) -> None:
        self.path, self.reason, self.nested = path, reason, nested
        super().__init__(
            f"{path} is corrupt ({reason}); mine the instances again "
            f"(`axiomatic mine ... --out {path.parent} --overwrite`)"
        )


def read_manifest(folder: Path) -> dict[str, Any]:
    """The manifest of ``folder`` (:func:`manifest_path`) as a dict (``{}`` when absent); :class:`ManifestError` when it
    is corrupt."""
    from axiomatic.diagnose.mining import manifest_problem

    path = manifest_path(folder)
    if not path.is_file():
        return {}
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        problem = manifest_problem(data)  # e.g. a "config" that is not an object
        if problem is not None:
            raise ValueError(problem)
    except RecursionError:
        raise ManifestError(path, "its JSON nests too deep to read", nested=True) from None
    except (ValueError, UnicodeDecodeError) as exc:
        raise ManifestError(path, str(exc)) from None
    return data  # type: ignore[no-any-return]


def manifest_analyzer(folder: Path) -> str | None:
    """The analyzer spec recorded by ``mine`` (``None`` for folders mined before it was
    recorded: those used the default analyzer, whose hash the manifest holds)."""
    spec = read_manifest(folder).get("config", {}).get("analyzer_spec")
    return str(spec) if spec else None


def dataset_language(dataset: Any) -> str:
    """The language a dataset's documents are analyzed in (documents first, then queries)."""
    return getattr(dataset, "doc_language", None) or getattr(dataset, "language", None) or "en"


def analyzer_of(spec: str | None, dataset: Any, option: str = "--analyzer") -> Any:
    """The :class:`~axiomatic.text.analyzer.Analyzer` of ``spec`` in ``dataset``'s language."""
    from axiomatic.text.analyzer import AnalyzerSpecError, parse_analyzer

    try:
        return parse_analyzer(spec, language=dataset_language(dataset))
    except AnalyzerSpecError as exc:
        raise ValueError(f"bad {option} {spec!r}: {exc}") from None


# ------------------------------------------------------------------------ the dataset
def record_dataset_files(folder: Path, dataset: Any, qrels: Path | None) -> None:
    """After ``mine``: note a file-defined dataset in the folder's manifest."""
    from axiomatic._atomic import atomic_write_text

    meta = getattr(dataset, "metadata", None)
    source = meta.get("source") if isinstance(meta, dict) else None
    manifest = manifest_path(folder)
    if not isinstance(source, str) or not Path(source).is_file() or not manifest.is_file():
        return  # a catalog dataset: its name in the manifest finds it
    try:
        data = json.loads(manifest.read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError):
        return
    data[DATASET_FILES_KEY] = {
        "dataset": source,
        "qrels": str(Path(qrels).expanduser().resolve()) if qrels is not None else None,
    }
    atomic_write_text(manifest, json.dumps(data, indent=2))


Loader = Callable[..., Any]
"""``load(name, data_root, qrels=None, skip_malformed=False)``: how a dataset is loaded."""


def _catalog_load(
    name: str, data_root: Path | None, qrels: Path | None = None, skip_malformed: bool = False
) -> Any:
    from axiomatic.data import catalog

    kwargs: dict[str, Any] = {}
    if qrels is not None:
        kwargs["qrels"] = qrels
    if skip_malformed:
        kwargs["skip_malformed"] = True
    return catalog.load_dataset(name, data_root=data_root, **kwargs)


def dataset_of_instances(
    instances: Path,
    dataset: str | None = None,
    *,
    data_root: Path | None = None,
    qrels: Path | None = None,
    skip_malformed: bool = False,
    load: Loader | None = None,
) -> Any:
    """The dataset of a mined folder: ``dataset`` when given, else the one its manifest
    records (a descriptor or rank_llm file with its qrels, or a catalog name and split).
    ``load`` loads a dataset by name (default: :func:`axiomatic.data.catalog.load_dataset`)."""
    load = load or _catalog_load
    if dataset is not None:
        return load(dataset, data_root, qrels, skip_malformed)
    manifest = manifest_path(instances)
    if not manifest.is_file():
        raise ValueError(f"{instances} has no {manifest.name} naming its dataset; pass --dataset")
    data = read_manifest(instances)
    files = data.get(DATASET_FILES_KEY)
    if isinstance(files, dict) and isinstance(files.get("dataset"), str):
        path = Path(files["dataset"])
        if not path.is_file():
            raise ValueError(
                f"the instances were mined from {path}, which is not there any more; "
                "pass --dataset FILE"
            )
        recorded_qrels = files.get("qrels")
        return load(str(path), data_root, Path(recorded_qrels) if recorded_qrels else None)
    cfg = data.get("config", {})
    name, split = cfg.get("dataset"), cfg.get("split")
    from axiomatic.data.catalog import load_dataset

    for cand in [f"{name}/{split}" if split else None, name]:
        if not cand:
            continue
        try:
            return load_dataset(cand, data_root=data_root)
        except (KeyError, FileNotFoundError, ValueError):
            continue
    raise ValueError(
        f"cannot load dataset {name!r} (split {split!r}) recorded in {manifest}; "
        "pass --dataset NAME"
    )


def first_stage_of_instances(
    dataset: Any,
    instances: Path,
    *,
    first_stage: str | None = None,
    candidates: str | None = None,
    depth: int | None = None,
    analyzer: str | None = None,
    data_root: Path | None = None,
    skip_malformed: bool = False,
    echo: Echo | None = None,
) -> Any:
    """``dataset`` with the candidate lists the instances were mined from: the first stage
    given here, else the one ``mine`` recorded (with the analyzer it used, so that the lists
    are the same), else the dataset's own."""
    recorded = first_stage_of_manifest(read_manifest(instances))
    if first_stage is None and candidates is None:
        if recorded is None:
            return dataset
        first_stage, candidates = recorded.get("first_stage"), recorded.get("candidates")
        depth, analyzer = recorded["depth"], recorded.get("analyzer") or analyzer
        if echo is not None:
            echo(
                "note: candidates from the first stage recorded by mine: "
                + (f"--first-stage {first_stage}" if first_stage else f"--candidates {candidates}")
                + f" --depth {depth}"
            )
    return with_first_stage(
        dataset,
        first_stage=first_stage,
        candidates=candidates,
        depth=depth or 100,
        analyzer=analyzer_of(analyzer or DEFAULT_ANALYZER, dataset),
        data_root=data_root,
        skip_malformed=skip_malformed,
    )


def check_instances_current(instances: Path, dataset: Any, echo: Echo | None = None) -> bool:
    """Refuse instances mined from other data than ``dataset`` has now (an edited passage,
    other candidates or labels), as ``mine`` refuses to resume over them. False (and a note)
    when the manifest is too old to say."""
    from axiomatic.diagnose.mining import StaleInstancesError, check_current

    manifest = read_manifest(instances)
    if not manifest:
        return True
    try:
        checked = bool(check_current(instances, manifest, dataset))
    except StaleInstancesError as exc:
        raise ValueError(
            f"{instances} holds instances mined from other data than dataset {dataset.name!r} "
            f"has now (changed: {'; '.join(exc.changed)}); their scores would describe the old "
            f"collection. Mine them again: `axiomatic mine ... --out {instances} --overwrite`"
        ) from None
    if not checked and echo is not None:
        echo(
            f"note: {instances} was mined by an older version that did not record its inputs: "
            "cannot check that they match the current dataset"
        )
    return checked


def unreadable_instances(folder: Path, exc: BaseException) -> str:
    """Name the shard that cannot be read (a truncated or corrupt Parquet file) and the fix."""
    import pyarrow.parquet as pq

    from axiomatic.data.instances import InstancesMismatchError

    if isinstance(exc, InstancesMismatchError):  # names its file and the fix already
        return str(exc).replace(
            "the same mine call", f"the same `axiomatic mine ... --out {folder}`"
        )
    bad = None
    for p in sorted(folder.glob("shard-*.parquet")) + sorted(folder.glob("*artificial/*.parquet")):
        try:
            pq.read_metadata(p)
        except Exception:  # any failure to read the footer marks the culprit
            bad = p
            break
    if bad is None and artificial_file_path(folder).is_file():
        bad = artificial_file_path(folder)
    what = f"{bad} is corrupt or truncated" if bad else f"the instances in {folder} are unreadable"
    return (
        f"{what} ({type(exc).__name__}: {exc}); mine them again: `axiomatic mine ... --out "
        f"{folder} --overwrite`"
    )


# ------------------------------------------------------------------------ the folder
@dataclass
class MinedFolder:
    """A mined folder read back (:func:`load_mined`)."""

    dataset: Any
    """The dataset, with the candidate lists the instances were mined from."""
    instances: Any
    """The instance table (``read_instances``)."""
    artificial: Any
    """The artificial documents (a frame, or ``None`` when the axioms made none)."""
    analyzer_spec: str | None
    """The analyzer the instances were mined with (``None``: not recorded, the default)."""
    checked: bool
    """Whether the instances were checked against the dataset's current data."""


def load_mined(
    instances: Path,
    dataset: str | None = None,
    *,
    first_stage: str | None = None,
    candidates: str | None = None,
    depth: int | None = None,
    analyzer: str | None = None,
    data_root: Path | None = None,
    qrels: Path | None = None,
    skip_malformed: bool = False,
    allow_partial: bool = False,
    load: Loader | None = None,
    echo: Echo | None = None,
) -> MinedFolder:
    """A mined folder with its dataset (:func:`dataset_of_instances`), its candidate lists
    (:func:`first_stage_of_instances`), its instances and artificial documents; refuses
    instances mined from other data than the dataset holds now, and an empty folder.
    ``allow_partial`` reads an unfinished mining output."""
    import pandas as pd

    from axiomatic.data.instances import (
        IncompleteInstancesError,
        InstancesMismatchError,
        read_instances,
    )

    ds = dataset_of_instances(
        instances, dataset, data_root=data_root, qrels=qrels, skip_malformed=skip_malformed,
        load=load,
    )  # fmt: skip
    ds = first_stage_of_instances(
        ds, instances, first_stage=first_stage, candidates=candidates, depth=depth,
        analyzer=analyzer, data_root=data_root, skip_malformed=skip_malformed, echo=echo,
    )  # fmt: skip
    try:
        inst, inst_arts = read_instances(instances, allow_partial=allow_partial)
    except (FileNotFoundError, IncompleteInstancesError, InstancesMismatchError):
        raise  # they name their file and the fix
    except (OSError, ValueError) as exc:  # pyarrow's errors are OSError / ValueError subclasses
        raise ValueError(unreadable_instances(instances, exc)) from None
    checked = check_instances_current(instances, ds, echo)
    if inst.empty:
        raise ValueError(f"{instances} holds no instances; mine with other axioms or settings")
    art_path = artificial_file_path(instances)
    try:
        art: Any = pd.read_parquet(art_path) if art_path.is_file() else None
    except (OSError, ValueError) as exc:
        raise ValueError(unreadable_instances(instances, exc)) from None
    if art is None and inst_arts:  # an unfinished run has not consolidated them yet
        art = inst_arts
    return MinedFolder(ds, inst, art, manifest_analyzer(instances), checked)


# ------------------------------------------------------------------------ the diagnosis
def effectiveness_runs(rankers: Mapping[str, Any], dataset: Any) -> dict[str, Any]:
    """Each ranker's run on ``dataset``'s candidates (a run file's own run), for the
    effectiveness table; empty when the dataset has no qrels."""
    from axiomatic.rankers.base import rerank

    if not dataset.qrels:
        return {}
    runs: dict[str, Any] = {}
    for name, r in rankers.items():
        own = run_of(r)
        runs[name] = own if own is not None else rerank(r, dataset)
    return runs


def diagnose_mined(
    mined: MinedFolder,
    rankers: Mapping[str, Any],
    *,
    runs: Mapping[str, Any] | None = None,
    oracle: bool = True,
    missing: str = "both",
    tie_tolerance: float = 1e-9,
    band: str | float | None = None,
    band_test: str = "sign",
    analyzer: Any = None,
    legend: Mapping[str, str] | None = None,
    full_names: Mapping[str, str] | None = None,
) -> Any:
    """The :class:`~axiomatic.diagnose.result.Diagnosis` of ``rankers`` on a mined folder.

    ``runs`` (:func:`effectiveness_runs`) are the rankers' effectiveness runs: a neural
    ranker's diagnosis takes the scores of its run's documents from it (:class:`RunScores`).
    The qrels oracle joins when ``oracle`` and the dataset has qrels. The analyzer mismatch
    with the instances is the caller's to report. The metadata records the analyzer, the
    instances' analyzer, the legend (short name -> spec) and the full names of shortened ones.
    """
    import warnings

    from axiomatic.diagnose.diagnosis import AnalyzerMismatchWarning, diagnose

    runs = runs or {}
    ds = mined.dataset
    scored = {
        name: RunScores(r, runs[name]) if name in runs and is_neural(r) else r
        for name, r in rankers.items()
    }
    with warnings.catch_warnings():  # the caller says it, with the option to pass
        warnings.simplefilter("ignore", AnalyzerMismatchWarning)
        diag = diagnose(
            mined.instances,
            scored,
            ds,
            mined.artificial,
            oracle=oracle and bool(ds.qrels),
            missing=missing,
            tie_tolerance=tie_tolerance,
            band=band,
            band_test=band_test,
        )
    if analyzer is not None:
        diag.metadata["analyzer"] = analyzer.describe()
    diag.metadata["instances_analyzer"] = mined.analyzer_spec
    diag.metadata["legend"] = dict(legend or {})
    diag.metadata["full_names"] = dict(full_names or {})
    record_intransitivity(diag, rankers)
    return diag


def record_intransitivity(diag: Any, rankers: Mapping[str, Any]) -> None:
    """For each pairwise ranker that re-ranked lists (``last_comparisons``): the share of
    intransitive triples among its comparisons, in ``diag.metadata["intransitivity"]``."""
    from axiomatic.diagnose.pairwise import intransitivity, is_pairwise

    for name, r in rankers.items():
        comparisons = getattr(r, "last_comparisons", None) if is_pairwise(r) else None
        if comparisons:
            share, triples = intransitivity(comparisons)
            diag.metadata.setdefault("intransitivity", {})[name] = {
                "share": share,
                "triples": triples,
            }
