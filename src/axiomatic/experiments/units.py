"""Fingerprinted experiment units: the store every paper experiment caches its runs in.

A *unit* is one cached piece of work of an experiment (a training run with its test scores, a
zero-shot scoring, a diagnosis): a folder (or a file) plus a *record* of everything that
determines its result: the settings (steps, lr, batch size, lengths, negatives, embeddings,
seed, model, loss, data names, code version constants, the trainer's whole configuration) and
fingerprints of its inputs (the data's content, a saved model's files). The record's
:func:`fingerprint` is a digest of the canonical JSON of both.

:class:`UnitStore` compares the record kept in a unit's folder (``unit.json``) with the one
the current plan asks for:

- same: a finished unit is reused, an interrupted one resumed;
- different: :class:`UnitMismatchError` (a ``ValueError`` with one line naming the differing
  fields, old -> new) unless the store was opened with ``overwrite=True`` (``axiomatic
  experiment ... --overwrite``): then the unit is cleared and computed again;
- a unit written before units were fingerprinted (a done file, no ``unit.json``) is adopted
  when the trainer configuration it recorded (its ``config.toml``) equals the requested one,
  and refused like a mismatch otherwise.

Before, units were cached by the existence of their done file: a re-run with ``--steps 6``
over a folder trained with 2 steps reported "all units done" with the 2-step metrics under the
new plan.

Records are written atomically (:mod:`axiomatic._atomic`), with the :func:`machine` they ran
on (not part of the fingerprint).

For the authors of an experiment: put in a unit's settings what changes its result, under the
plan's names (a refusal names them: ``steps 2 -> 6``), plus the trainer configuration as
``train_config`` (a :class:`~axiomatic.training.config.TrainConfig` field added later with its
default is no difference); put content hashes of its data in the inputs
(:func:`dataset_fingerprint`, :func:`files_fingerprint`); bump the experiment's ``UNIT_CODE``
when a code change alters results. A key added to the settings refuses the units recorded
without it, which is the point when it matters and a nuisance when it does not.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import platform
import shutil
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from axiomatic._atomic import atomic_write_text, is_stale_temp_file

__all__ = [
    "UNIT_FILE",
    "UnitMismatchError",
    "UnitRecord",
    "UnitStore",
    "canonical",
    "dataset_fingerprint",
    "differences",
    "files_fingerprint",
    "fingerprint",
    "inference_dtype_settings",
    "machine",
    "note_plan_change",
]

UNIT_FILE = "unit.json"
"""The record of a folder unit."""

RECORD_FORMAT = 1
"""Version of the record layout (not of the settings: those carry their own ``code`` field)."""

_SHOWN = 4
"""Differences named in a refusal (the rest are counted)."""


# ---------------------------------------------------------------------- canonical form
def canonical(obj: Any) -> Any:
    """``obj`` as plain JSON values: mappings with string keys, lists for tuples and sets
    (sets sorted), paths as strings, NumPy scalars as Python numbers, dataclasses as dicts."""
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        obj = dataclasses.asdict(obj)
    if isinstance(obj, Mapping):
        return {str(k): canonical(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [canonical(v) for v in obj]
    if isinstance(obj, (set, frozenset)):
        return sorted((canonical(v) for v in obj), key=lambda v: json.dumps(v, sort_keys=True))
    if isinstance(obj, os.PathLike):
        return os.fspath(obj)
    if obj is None or isinstance(obj, (bool, int, float, str)):
        return obj
    item = getattr(obj, "item", None)  # NumPy / torch scalars
    if callable(item):
        return canonical(item())
    return str(obj)


def _dumps(obj: Any) -> str:
    return json.dumps(canonical(obj), sort_keys=True, separators=(",", ":"), ensure_ascii=True)


def fingerprint(settings: Mapping[str, Any], inputs: Mapping[str, Any] | None = None) -> str:
    """A stable hex digest (32 digits, BLAKE2b) of the canonical JSON of ``settings`` and
    ``inputs``: equal for equal values whatever the key order, tuple-vs-list or platform."""
    payload = {"settings": settings, "inputs": dict(inputs or {})}
    return hashlib.blake2b(_dumps(payload).encode("ascii"), digest_size=16).hexdigest()


def dataset_fingerprint(dataset: Any, depth: int | None = None) -> str:
    """A content hash of what a unit reads from a dataset: query ids and texts, candidate
    lists (first ``depth``), relevance labels and the ids and texts of the candidate documents
    (of every document for a full-retrieval dataset). Streamed; the name is not hashed (it is a
    setting)."""
    from axiomatic.data.fingerprint import documents_fingerprint, hash_fields

    qids = sorted(dataset.queries)
    cands: dict[str, list[str]] = {}
    if dataset.candidates is not None:
        for q in qids:
            c = dataset.candidates.get(q, [])
            cands[q] = list(c if depth is None else c[:depth])

    def rows() -> Iterable[list[str]]:
        yield ["threshold", str(dataset.rel_threshold)]
        for q in qids:
            judged = dataset.judged(q)
            yield [
                "q",
                q,
                dataset.queries[q].text,
                *cands.get(q, []),
                "\x00labels",
                *(f"{d}={judged[d]}" for d in sorted(judged)),
            ]
        if dataset.candidates is None:
            yield ["documents", documents_fingerprint(dataset.documents)]
            return
        seen: set[str] = set()
        for q in qids:
            for d in cands[q]:
                if d not in seen:
                    seen.add(d)
                    doc = dataset.documents.get(d)
                    yield ["d", d, "\x00absent" if doc is None else doc.text]

    return hash_fields(rows())


def files_fingerprint(path: str | os.PathLike[str]) -> str:
    """A content hash of a file, or of every regular file under a folder (relative names and
    bytes, sorted): a saved model, a folder of input files. ``"absent"`` when missing."""
    root = Path(path)
    if root.is_file():
        files = [root]
    elif root.is_dir():
        files = sorted(p for p in root.rglob("*") if p.is_file() and not is_stale_temp_file(p))
    else:
        return "absent"
    h = hashlib.blake2b(digest_size=16)
    for f in files:
        name = f.name if f == root else f.relative_to(root).as_posix()
        h.update(name.encode("utf-8", "surrogatepass") + b"\x00")
        with open(f, "rb") as fh:
            for chunk in iter(lambda: fh.read(1 << 20), b""):
                h.update(chunk)
        h.update(b"\xff" * 8)
    return h.hexdigest()


# ---------------------------------------------------------------------- machine
def machine() -> dict[str, Any]:
    """The machine a unit or report ran on (recorded, never fingerprinted): platform, CPU
    model and count, Python and torch versions, torch threads, device, load average."""
    try:
        import torch
    except ImportError:  # pragma: no cover - torch is a dependency
        torch = None  # type: ignore[assignment]
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as fh:
            cpu = next(
                (ln.split(":", 1)[1].strip() for ln in fh if ln.startswith("model name")), cpu
            )
    except OSError:
        pass
    try:
        load: list[float] | None = [round(x, 2) for x in os.getloadavg()]
    except (OSError, AttributeError):
        load = None
    device = "cpu"
    if torch is not None and torch.cuda.is_available():
        device = f"cuda ({torch.cuda.get_device_name(0)})"
    return {
        "platform": platform.platform(),
        "cpu": cpu,
        "cpus": os.cpu_count(),
        "python": platform.python_version(),
        "torch": getattr(torch, "__version__", None),
        "threads": torch.get_num_threads() if torch is not None else None,
        "device": device,
        "load": load,
    }


def inference_dtype_settings(*models: str) -> dict[str, str]:
    """``{"inference_dtype": "float32"}`` for the settings of a unit that scores a model able
    to run in bf16 (a transformer among ``models``, registry names such as ``cross-encoder``),
    ``{}`` for a unit of word models only.

    Float32 is the default of every neural scoring, on every device
    (:func:`axiomatic.models.device.inference_dtype`). Before, transformers scored in bf16 on
    CPUs fast at it (AMX), so a transformer unit recorded without this key may hold bf16
    numbers: it is refused (``inference_dtype (none) -> float32``; ``--overwrite`` redoes it).
    Word models scored in float32 before and after: their records stay valid without it."""
    from axiomatic.models.device import inference_dtype
    from axiomatic.models.io import is_word_model

    def word(name: str) -> bool:
        try:
            return is_word_model(name)
        except ValueError:  # not a registry name (e.g. an ACRank row): a transformer
            return False

    if all(word(m) for m in models):
        return {}
    return {"inference_dtype": inference_dtype()}


# ---------------------------------------------------------------------- records
@dataclass(frozen=True)
class UnitRecord:
    """What determines one unit: ``settings`` (plain values, shown by name in a refusal) and
    ``inputs`` (content fingerprints of its data or models, by name)."""

    settings: Mapping[str, Any]
    inputs: Mapping[str, str] = field(default_factory=dict)

    @property
    def fingerprint(self) -> str:
        return fingerprint(self.settings, self.inputs)

    def to_json(self) -> dict[str, Any]:
        return {
            "format": RECORD_FORMAT,
            "fingerprint": self.fingerprint,
            "settings": canonical(self.settings),
            "inputs": canonical(dict(self.inputs)),
        }


def _leaves(obj: Any, prefix: str = "") -> dict[str, Any]:
    """Dotted paths of the leaves of nested mappings (lists are leaves)."""
    if isinstance(obj, Mapping) and obj:
        out: dict[str, Any] = {}
        for k, v in obj.items():
            out.update(_leaves(v, f"{prefix}{k}."))
        return out
    return {prefix[:-1]: obj}


_MISSING = object()


def differences(old: Mapping[str, Any], new: Mapping[str, Any]) -> list[tuple[str, Any, Any]]:
    """``(field, old value, new value)`` for every setting and input that differs between two
    records (``to_json()`` form); settings first, shallow fields before nested ones, in the new
    record's order. A field one record lacks has the value :data:`None` there."""
    out: list[tuple[str, Any, Any]] = []
    for part, label in (("settings", ""), ("inputs", "input ")):
        a = _leaves(canonical(old.get(part) or {}))
        b = _leaves(canonical(new.get(part) or {}))
        keys = list(dict.fromkeys([*b, *a]))
        keys.sort(key=lambda k: k.count("."))  # stable: order kept within a depth
        for k in keys:
            va, vb = a.get(k, _MISSING), b.get(k, _MISSING)
            if _dumps(va if va is not _MISSING else None) != _dumps(
                vb if vb is not _MISSING else None
            ):
                out.append(
                    (
                        f"{label}{k}",
                        None if va is _MISSING else va,
                        None if vb is _MISSING else vb,
                    )
                )
    return out


def _show(value: Any) -> str:
    if value is None:
        return "(none)"
    text = value if isinstance(value, str) else _dumps(value)
    if isinstance(value, str) and len(value) == 32 and all(c in "0123456789abcdef" for c in value):
        text = value[:10]  # a content hash: its start is enough to tell two apart
    return text if len(text) <= 60 else text[:57] + "..."


def describe_differences(diffs: list[tuple[str, Any, Any]], shown: int = _SHOWN) -> str:
    """``steps 2 -> 6, lr 0.001 -> 0.01 (and 3 more)``."""
    text = ", ".join(f"{k} {_show(a)} -> {_show(b)}" for k, a, b in diffs[:shown])
    if len(diffs) > shown:
        text += f" (and {len(diffs) - shown} more)"
    return text


class UnitMismatchError(ValueError):
    """A cached unit was computed with other settings or inputs than the ones requested.

    ``unit``: its folder or file; ``differences``: ``(field, old, new)`` triples. The message
    is one line: the unit, the differing fields (old -> new) and the two ways out
    (``--overwrite`` or another ``--out``)."""

    def __init__(
        self, message: str, unit: Path, diffs: list[tuple[str, Any, Any]] | None = None
    ) -> None:
        super().__init__(message)
        self.unit = unit
        self.differences = list(diffs or [])


def _drop_none(obj: Any) -> Any:
    if isinstance(obj, Mapping):
        return {k: _drop_none(v) for k, v in obj.items() if v is not None}
    if isinstance(obj, list):
        return [_drop_none(v) for v in obj]
    return obj


def note_plan_change(
    config_file: str | os.PathLike[str],
    plan: Mapping[str, Any],
    echo: Callable[[str], None],
) -> None:
    """Before an experiment records ``plan`` in its folder's ``config.toml``, say what changed
    since the plan recorded there (the units themselves are compared by the store; this line
    tells why a folder's report now covers other rows)."""
    path = Path(config_file)
    if not path.is_file():
        return
    try:
        from axiomatic.training.config import read_toml

        old = read_toml(path)
    except (ValueError, FileNotFoundError, OSError):
        return
    diffs = differences(
        {"settings": _drop_none(canonical(old))}, {"settings": _drop_none(canonical(plan))}
    )
    if diffs:
        echo(f"the plan differs from the one recorded in {path}: {describe_differences(diffs)}")


def _train_config_defaults(config: Mapping[str, Any], strict: bool = False) -> Any:
    """A recorded trainer configuration with the current defaults of the keys it lacks (a
    field added to :class:`~axiomatic.training.config.TrainConfig` later, with a default that
    keeps the old behaviour, must not refuse every unit trained before it). Unreadable as a
    configuration (e.g. a field since removed): returned as it is (``strict``: raise)."""
    try:
        from axiomatic.training.config import TrainConfig

        return TrainConfig.from_dict(dict(config)).to_dict()
    except (ValueError, TypeError, KeyError):
        if strict:
            raise
        return config


def _with_current_defaults(record: Mapping[str, Any]) -> dict[str, Any]:
    """``record`` with its ``settings.train_config`` completed by :func:`_train_config_defaults`."""
    out = dict(record)
    settings = out.get("settings")
    if isinstance(settings, Mapping) and isinstance(settings.get("train_config"), Mapping):
        out["settings"] = {
            **settings,
            "train_config": _train_config_defaults(settings["train_config"]),
        }
    return out


# ---------------------------------------------------------------------- the store
class UnitStore:
    """The units of one experiment output folder ``root``.

    A *folder unit* (``owns_folder=True``, the default) is a folder of its own: its record is
    ``<folder>/unit.json`` and ``--overwrite`` removes the folder. A *file unit* is one done
    file in a shared folder (``record_name`` names its record, e.g. ``zero_shot.unit.json``);
    ``--overwrite`` removes the done file and the record only.

    ``done`` is the default name of the file that marks a finished unit.
    """

    def __init__(
        self,
        root: str | os.PathLike[str],
        *,
        overwrite: bool = False,
        done: str = "test_metrics.json",
        echo: Callable[[str], None] | None = None,
    ) -> None:
        self.root = Path(root)
        self.overwrite = bool(overwrite)
        self.done = done
        self.echo = echo or (lambda _msg: None)
        self.cleared: list[Path] = []

    # ------------------------------------------------------------------ paths
    def _name(self, path: Path) -> str:
        try:
            return path.relative_to(self.root).as_posix() or "."
        except ValueError:
            return str(path)

    @staticmethod
    def _has_content(folder: Path) -> bool:
        if not folder.is_dir():
            return False
        return any(not is_stale_temp_file(p) for p in folder.iterdir())

    # ------------------------------------------------------------------ state
    def status(
        self,
        unit_dir: str | os.PathLike[str],
        *,
        done: str | None = None,
        record_name: str = UNIT_FILE,
        owns_folder: bool = True,
    ) -> str:
        """``"done"`` (its done file exists), ``"partial"`` (started: the folder holds files,
        or a file unit's record exists) or ``"absent"``."""
        folder = Path(unit_dir)
        if (folder / (done or self.done)).is_file():
            return "done"
        if owns_folder:
            return "partial" if self._has_content(folder) else "absent"
        return "partial" if (folder / record_name).is_file() else "absent"

    def read(self, unit_dir: str | os.PathLike[str], record_name: str = UNIT_FILE) -> Any:
        """The stored record (``None`` when there is none, ``"corrupt"`` when unreadable)."""
        path = Path(unit_dir) / record_name
        if not path.is_file():
            return None
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return "corrupt"
        return data if isinstance(data, dict) else "corrupt"

    def check(
        self,
        unit_dir: str | os.PathLike[str],
        record: UnitRecord,
        *,
        done: str | None = None,
        record_name: str = UNIT_FILE,
        owns_folder: bool = True,
        also: Iterable[str] = (),
    ) -> str:
        """Compare the unit's stored record with ``record``; return its :meth:`status`.

        Same fingerprint: ``"done"`` (reuse it) or ``"partial"`` (resume it). Different:
        :class:`UnitMismatchError`, or with ``overwrite`` the unit is cleared and ``"absent"``
        returned. A unit without a record (written before fingerprints) is adopted when its
        trainer ``config.toml`` equals ``record.settings["train_config"]`` (the record is
        then written) and refused otherwise. Nothing is written for a matching unit.
        ``also``: further files or folders (relative to ``unit_dir``) of a file unit, removed
        with it.
        """
        folder = Path(unit_dir)
        state = self.status(folder, done=done, record_name=record_name, owns_folder=owns_folder)
        if state == "absent":
            return state
        unit = folder if owns_folder else folder / (done or self.done)
        stored = self.read(folder, record_name)
        new = record.to_json()
        if stored is None:
            diffs, why = self._legacy(folder, record, owns_folder)
            if why is None:
                self.begin(folder, record, record_name=record_name, adopted=True)
                self.echo(
                    f"{self._name(unit)}: written before units were fingerprinted; its "
                    "training configuration matches this plan's: adopted"
                )
                return state
        elif stored == "corrupt":
            diffs, why = [], f"its record {record_name} is unreadable"
        elif stored.get("fingerprint") == new["fingerprint"]:
            return state
        else:
            diffs = differences(_with_current_defaults(stored), new)
            if not diffs:  # same values: another canonical form, or new trainer defaults
                self.begin(folder, record, record_name=record_name)
                return state
            why = "it was computed with other settings than this run's: " + (
                describe_differences(diffs)
            )
        if self.overwrite:
            self.clear(
                folder, done=done, record_name=record_name, owns_folder=owns_folder, also=also
            )
            self.echo(f"{self._name(unit)}: {why}; --overwrite: computing it again")
            return "absent"
        raise UnitMismatchError(
            f"{self._name(unit)} in {self.root}: {why}. Re-run with --overwrite to redo the "
            "units whose settings differ, or choose another --out",
            unit,
            diffs,
        )

    def _legacy(
        self, folder: Path, record: UnitRecord, owns_folder: bool
    ) -> tuple[list[tuple[str, Any, Any]], str | None]:
        """Whether a unit without a record can be adopted: ``([], None)`` when its trainer
        ``config.toml`` equals the requested training configuration; else the differences and
        why it is refused."""
        why = "it was written before units were fingerprinted"
        wanted = record.settings.get("train_config")
        cfg_file = folder / "config.toml"
        if not owns_folder or not isinstance(wanted, Mapping) or not cfg_file.is_file():
            return [], why + " and records no training configuration to compare with this run's"
        try:
            from axiomatic.training.config import read_toml

            old = _train_config_defaults(read_toml(cfg_file), strict=True)
        except (ValueError, TypeError, KeyError, FileNotFoundError) as exc:
            return [], why + f" and its config.toml cannot be read ({exc})"
        diffs = differences(
            {"settings": {"train_config": old}}, {"settings": {"train_config": wanted}}
        )
        if not diffs:
            return [], None
        return diffs, why + "; its training configuration differs: " + describe_differences(diffs)

    def begin(
        self,
        unit_dir: str | os.PathLike[str],
        record: UnitRecord,
        *,
        record_name: str = UNIT_FILE,
        adopted: bool = False,
    ) -> None:
        """Write ``record`` (with the machine and the time) into the unit, atomically."""
        data = record.to_json()
        data["machine"] = machine()
        data["written"] = time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime())
        if adopted:
            data["adopted"] = "written before units were fingerprinted; train config compared"
        folder = Path(unit_dir)
        folder.mkdir(parents=True, exist_ok=True)
        atomic_write_text(folder / record_name, json.dumps(data, indent=1) + "\n")

    def enter(
        self,
        unit_dir: str | os.PathLike[str],
        record: UnitRecord,
        *,
        done: str | None = None,
        record_name: str = UNIT_FILE,
        owns_folder: bool = True,
        also: Iterable[str] = (),
    ) -> str:
        """:meth:`check`, then :meth:`begin` when the unit is to be computed (``"absent"``)
        or resumed without a record yet; returns the status."""
        state = self.check(
            unit_dir,
            record,
            done=done,
            record_name=record_name,
            owns_folder=owns_folder,
            also=also,
        )
        if state != "done" and self.read(unit_dir, record_name) is None:
            self.begin(unit_dir, record, record_name=record_name)
        return state

    def matches(
        self,
        unit_dir: str | os.PathLike[str],
        settings: Mapping[str, Any],
        *,
        record_name: str = UNIT_FILE,
    ) -> bool:
        """Whether the unit's stored settings agree with ``settings`` on every key it names
        (inputs and other keys, such as a trainer configuration that needs the data, are not
        compared: for reports, which do not load the data). A unit without a record (written
        before fingerprints) counts as matching."""
        stored = self.read(unit_dir, record_name)
        if stored is None:
            return True
        if stored == "corrupt" or not isinstance(stored.get("settings"), Mapping):
            return False
        old = {k: stored["settings"].get(k) for k in settings}
        return not differences({"settings": old}, {"settings": settings})

    def clear(
        self,
        unit_dir: str | os.PathLike[str],
        *,
        done: str | None = None,
        record_name: str = UNIT_FILE,
        owns_folder: bool = True,
        also: Iterable[str] = (),
    ) -> None:
        """Remove a unit: its folder (a folder unit inside the store's root), or its done file,
        record and ``also`` paths (a file unit). Nothing outside the store's root is removed."""
        folder = Path(unit_dir)
        root = self.root.resolve()

        def inside(path: Path) -> Path:
            target = path.parent.resolve() / path.name  # a link itself, not its target
            if target == root or root not in target.parents:
                raise ValueError(f"refusing to remove {path}: not a unit inside {root}")
            return target

        if owns_folder:
            shutil.rmtree(inside(folder))
        else:
            for name in (done or self.done, record_name, *also):
                path = folder / name
                if path.is_symlink() or path.is_file():
                    inside(path).unlink()
                elif path.is_dir():
                    shutil.rmtree(inside(path))
        self.cleared.append(folder)
