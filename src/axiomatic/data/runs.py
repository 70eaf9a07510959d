"""Run arguments: the one syntax every command (and the Python API) reads a run in.

A run argument is one of

* ``[NAME=]PATH``: a TREC run file (``.gz`` too);
* ``[NAME=]-``: a TREC run on standard input (``axiomatic rank ... -o - | axiomatic evaluate
  ... --run -``);
* ``[NAME=]<collection>/<system>``: a catalog dataset defined by one system's run, such as
  ``trec-dl-2019/splade-pp`` (a file of that name wins when both exist).

:func:`read_runs` reads a list of them into :class:`NamedRun` values; ``diagnose``,
``evaluate``, ``explain`` (``--run``), ``rank`` / ``mine`` / ... (``--candidates``) and
``rerank`` (``--base``, through :func:`axiomatic.diagnose.rerank.base_ranking`) all call it.

Names (what tables, plots and CSVs call a run), the first that applies:

* the ``NAME=`` given;
* a catalog system: its catalog name, ``trec-dl-2019/bm25`` (never a bare ``bm25``, which in a
  table beside ``-r bm25`` would read as the toolkit's BM25);
* a file or standard input: the tag column when every line has the same tag, else the file
  name (``stdin`` for standard input), else (same file names) the parent folder's name: two
  rank_llm ``trec_results_dl19.txt`` files tagged ``rank`` become ``BM25`` and
  ``SPLADE_P_P_ENSEMBLE_DISTIL``, not a collision; a ``-2`` suffix only as the last resort.

Errors are ``FileNotFoundError`` / ``ValueError`` whose message starts with the option and the
value (``--run 'x.trec': ...``), what was expected and how to fix it.
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass, replace
from pathlib import Path
from typing import IO, Any

from axiomatic._suggest import suggest

__all__ = [
    "STDIN",
    "NamedRun",
    "base_of_dataset",
    "candidate_order_run",
    "catalog_run",
    "dataset_run",
    "dataset_with_documents",
    "is_run_argument",
    "read_runs",
    "split_run_name",
]

STDIN = "-"
"""The run argument that means standard input."""

Run = dict[str, dict[str, float]]

_NAME_RE = re.compile(r"^\s*([A-Za-z0-9][A-Za-z0-9_.+@-]*)\s*=(?!=)(.+)$", re.DOTALL)


def split_run_name(value: str) -> tuple[str | None, str]:
    """``"NAME=RUN"`` -> ``("NAME", "RUN")``; without a leading name ``(None, value)``. A name
    is a short word (letters, digits, ``_.+@-``), as in ranker specs (``NAME=SPEC``); a file
    whose path holds ``=`` is still a path."""
    if Path(value).expanduser().is_file():
        return None, value
    m = _NAME_RE.match(value)
    if m is None:
        return None, value
    return m.group(1), m.group(2).strip()


@dataclass(frozen=True)
class NamedRun:
    """A run given by the user: a file, standard input, or a catalog system's run."""

    name: str
    run: Run
    source: str  # the file path, "-" (standard input) or the catalog name
    path: Path | None = None  # the file, when the run is one

    @property
    def is_catalog(self) -> bool:
        return self.path is None and self.source != STDIN


# ------------------------------------------------------------------ runs that define datasets
def dataset_run(ds: Any) -> tuple[str, Run] | None:
    """The one run that defines ``ds``'s candidate lists, as ``(system name, run)``: the
    catalog's ``trec-dl-2019/bm25`` (Anserini's BM25 run, with its scores), a rank_llm file, a
    descriptor's run. ``None`` when the dataset records no run, or several (a ``union``)."""
    meta = ds.metadata if isinstance(getattr(ds, "metadata", None), dict) else {}
    runs = meta.get("runs")
    if isinstance(runs, dict) and len(runs) == 1:
        name, run = next(iter(runs.items()))
        systems = meta.get("systems")
        if isinstance(systems, list) and len(systems) == 1:
            name = systems[0]
    elif isinstance(meta.get("run"), dict):
        name, run = str(ds.name).rsplit("/", 1)[-1], meta["run"]
    else:
        return None
    if not isinstance(run, dict) or not run:
        return None
    return str(name), {q: dict(v) for q, v in run.items() if q in ds.queries}


def candidate_order_run(ds: Any) -> Run:
    """The dataset's candidate lists as a run: score ``n - rank`` (the list's own order)."""
    if ds.candidates is None:
        raise ValueError(
            f"dataset {ds.name!r} has no candidate lists: 'dataset' as a base ranking needs a "
            "re-ranking dataset (or a first stage: --first-stage / --candidates)"
        )
    return {
        q: {d: float(len(c) - i) for i, d in enumerate(c)}
        for q, c in ds.candidates.items()
        if q in ds.queries
    }


def base_of_dataset(ds: Any) -> tuple[str, Run]:
    """The base ranking ``dataset``: the run that defines the dataset when it has one (its
    scores and order), else its candidate order. Returns ``(label, run)``; a catalog system's
    run is labelled by its catalog name (``trec-dl-2019/bm25``), as :func:`read_runs` names it."""
    found = dataset_run(ds)
    if found is not None:
        name = str(ds.name)
        if "/" in name and name.rsplit("/", 1)[1] == found[0]:
            return name, found[1]
        return found
    return f"{ds.name} candidate order", candidate_order_run(ds)


def catalog_run(
    value: str, data_root: str | Path | None = None, option: str = "--run"
) -> tuple[str | None, str, Run] | None:
    """``[NAME=]trec-dl-2019/splade-pp``: a catalog dataset defined by one system's run, as
    ``(given name or None, catalog name, run)``; ``None`` when ``value`` is not a catalog name
    (a file path, which wins when both exist)."""
    if value.strip() == STDIN or Path(value).expanduser().exists():
        return None
    given, rest = split_run_name(value)
    target = rest.strip()
    if "/" not in target or Path(target).expanduser().exists():
        return None
    from axiomatic.data.catalog import dataset_names, load_dataset

    names = dataset_names(data_root)
    if target not in names:
        return None
    ds = load_dataset(target, data_root=data_root)
    found = dataset_run(ds)
    if found is None:
        systems = [n for n in names if n.startswith(target.rsplit("/", 1)[0] + "/")]
        raise ValueError(
            f"{option} {value!r}: catalog dataset {target!r} is not defined by one system's run "
            f"(a union of several, or no run); name one system, e.g. {', '.join(systems[:4])}"
        )
    return given, target, found[1]


def is_run_argument(value: str, data_root: str | Path | None = None) -> bool:
    """Whether ``value`` names a run (``-``, an existing file, a catalog dataset name with a
    ``/``), not something else such as a ranker spec; nothing is read."""
    _, rest = split_run_name(value)
    target = rest.strip()
    if target == STDIN or Path(target).expanduser().is_file():
        return True
    if "/" not in target:
        return False
    from axiomatic.data.catalog import dataset_names

    return target in dataset_names(data_root)


# ------------------------------------------------------------------------------- reading runs
def _missing_file(option: str, value: str, path: Path) -> FileNotFoundError:
    siblings = sorted(p.name for p in path.parent.glob("*")) if path.parent.is_dir() else []
    what = "is a folder" if path.is_dir() else "does not exist"
    hint = ""
    if "/" in value and not path.parent.is_dir():
        hint = (
            "; a catalog system is <collection>/<system> as `axiomatic datasets` lists it "
            "(e.g. trec-dl-2019/splade-pp)"
        )
    return FileNotFoundError(
        f"{option} {value!r}: file {path}{suggest(path.name, siblings)} {what}; expected "
        f"[NAME=]PATH of a TREC run, '-' (standard input) or a catalog system{hint}"
    )


def _is_stream(path: Path) -> bool:
    """A FIFO or character device (a pipe given by name): readable once, not a file."""
    import stat

    try:
        mode = path.stat().st_mode
    except OSError:
        return False
    return stat.S_ISFIFO(mode) or stat.S_ISCHR(mode)


def _parse_text(raw: bytes, source: str, skip_malformed: bool | None) -> tuple[Run, str | None]:
    """A run (and its one tag, or ``None``) from the bytes of a stream named ``source``."""
    from axiomatic.data._io import decode
    from axiomatic.data.trec import read_run_text

    text = decode(raw, source)
    run = read_run_text(text, source, skip_malformed=skip_malformed)
    tags = {parts[5] for parts in (line.split() for line in text.splitlines()) if len(parts) >= 6}
    return run, next(iter(tags)) if len(tags) == 1 else None


def _read_stream(path: Path, skip_malformed: bool | None) -> tuple[Run, str | None]:
    with open(path, "rb") as fh:
        return _parse_text(fh.read(), str(path), skip_malformed)


def _read_stdin(
    option: str, stdin: IO[Any] | None, skip_malformed: bool | None
) -> tuple[Run, str | None]:
    """The run on standard input and its tag (``None`` unless every line has the same)."""
    stream = sys.stdin if stdin is None else stdin
    if stream is None:
        raise ValueError(f"{option} -: there is no standard input to read a run from")
    isatty = getattr(stream, "isatty", None)
    if callable(isatty) and isatty():
        raise ValueError(
            f"{option} -: standard input is a terminal; pipe a TREC run into it, e.g. "
            "`axiomatic rank ... -o - | axiomatic evaluate ... --run -`, or give a file"
        )
    raw = getattr(stream, "buffer", stream).read()
    return _parse_text(
        raw if isinstance(raw, bytes) else str(raw).encode(), "<stdin>", skip_malformed
    )


def _default_names(items: list[tuple[Path | None, str | None]], taken: set[str]) -> list[str]:
    """Default names of unnamed file / stdin runs ``(path or None, tag)``: the first level
    that tells them apart (module docstring)."""
    levels: list[list[str]] = []
    if all(tag for _, tag in items):
        levels.append([str(tag) for _, tag in items])
    labels = [path.name if path is not None else "stdin" for path, _ in items]
    levels.append(labels)
    paths = [path.resolve() if path is not None else None for path, _ in items]
    levels.append([p.parent.name or p.name if p is not None else "stdin" for p in paths])
    depth = max((len(p.parts) for p in paths if p is not None), default=0)
    for k in range(2, depth + 1):
        levels.append(["/".join(p.parts[-k:]) if p is not None else "stdin" for p in paths])
    for names in levels:
        if len(set(names)) == len(names) and not set(names) & taken:
            return names
    return labels  # the same file twice: suffixed by the caller


def read_runs(
    values: list[str],
    *,
    data_root: str | Path | None = None,
    skip_malformed: bool | None = None,
    option: str = "--run",
    stdin: IO[Any] | None = None,
) -> list[NamedRun]:
    """Run arguments (module docstring) as named runs, in the order given.

    ``stdin`` is read for ``-`` (default ``sys.stdin``); it can be given once. Every file is
    checked before any is read: a missing one fails with the close matches in its folder.
    """
    parsed: list[tuple[str | None, str, Path | None, tuple[str, Run] | None]] = []
    for value in values:
        given, rest = split_run_name(value)
        if rest.strip() == STDIN:
            parsed.append((given, value, None, None))
            continue
        found = catalog_run(value, data_root, option)
        if found is not None:
            parsed.append((found[0], value, None, (found[1], found[2])))
            continue
        file = Path(rest).expanduser()
        if not file.is_file() and not _is_stream(file):
            raise _missing_file(option, value, file)
        parsed.append((given, value, file, None))
    if sum(1 for _, _, path, cat in parsed if path is None and cat is None) > 1:
        raise ValueError(
            f"{option} -: standard input can be read once; give the other runs as files"
        )
    given_names = [g for g, _, _, _ in parsed if g is not None]
    for n in given_names:
        if given_names.count(n) > 1:
            raise ValueError(f"{option}: the name {n!r} is given to two runs")

    runs: list[Run] = []
    tags: list[str | None] = []
    from axiomatic.data.trec import read_run, run_tag

    for _, _, where, cat in parsed:
        if cat is not None:
            runs.append(cat[1])
            tags.append(None)
        elif where is None:
            run, tag = _read_stdin(option, stdin, skip_malformed)
            runs.append(run)
            tags.append(tag)
        elif _is_stream(where):  # a named pipe, `<(axiomatic rank ... -o -)`: read once
            run, tag = _read_stream(where, skip_malformed)
            runs.append(run)
            tags.append(tag)
        else:
            runs.append(read_run(where, skip_malformed=skip_malformed))
            tags.append(run_tag(where))
    bare = [i for i, (g, _, _, cat) in enumerate(parsed) if g is None and cat is None]
    defaults = dict(
        zip(
            bare,
            _default_names([(parsed[i][2], tags[i]) for i in bare], set(given_names)),
            strict=True,
        )
    )
    out: list[NamedRun] = []
    used: set[str] = set()
    for i, (given, _value, path, cat) in enumerate(parsed):
        if given is not None:
            name = given
        elif cat is not None:
            name = cat[0]
        else:
            name = defaults[i]
        base, k = name, 2
        while name in used:
            name, k = f"{base}-{k}", k + 1
        used.add(name)
        source = cat[0] if cat is not None else (str(path) if path is not None else STDIN)
        out.append(NamedRun(name, runs[i], source, path))
    return out


# ---------------------------------------------------------------- documents outside a dataset
def _lookup_collection(ds: Any, ids: set[str], data_root: str | Path | None) -> dict[str, Any]:
    """Texts of ``ids`` from the collection behind ``ds``: an ir_datasets docs store, or the
    catalog's ``<collection>/union`` dataset (every system's candidates with their text)."""
    found: dict[str, Any] = {}
    irds_id = (ds.metadata or {}).get("irds_id")
    if irds_id:
        try:
            import ir_datasets

            from axiomatic.data.records import Document

            store = ir_datasets.load(irds_id).docs_store()
            for did, doc in store.get_many(ids).items():
                text = getattr(doc, "text", None) or getattr(doc, "body", "")
                found[did] = Document(did, " ".join(str(text).split()))
        except Exception:  # no local docs store: the caller reports the ids
            pass
    name = str(ds.name)
    if "/" in name and ids - found.keys():
        from axiomatic.data.catalog import dataset_names, load_dataset

        union = name.rsplit("/", 1)[0] + "/union"
        if union != name and union in dataset_names(data_root):
            try:
                docs = load_dataset(union, data_root=data_root).documents
            except (KeyError, FileNotFoundError, ValueError):
                docs = {}
            found.update({d: docs[d] for d in ids - found.keys() if d in docs})
    return found


def dataset_with_documents(
    ds: Any, run: Run, depth: int, option: str = "--run", data_root: str | Path | None = None
) -> tuple[Any, int]:
    """``ds`` with the text of every document among the top ``depth`` of ``run`` that its
    candidates lack (looked up in the collection), and how many were added (``(ds, 0)`` when
    none is missing).

    Documents no source knows are an error naming how many and which, never a ``KeyError``.
    """
    missing: set[str] = set()
    for qid, scores in run.items():
        if qid not in ds.queries:
            continue
        head = sorted(scores.items(), key=lambda kv: (-kv[1], kv[0]))[:depth]
        missing.update(d for d, _ in head if d not in ds.documents)
    if not missing:
        return ds, 0
    found = _lookup_collection(ds, missing, data_root)
    still = sorted(missing - found.keys())
    if still:
        raise ValueError(
            f"{option}: {len(still)} of the {len(missing)} documents the run ranks in its top "
            f"{depth} outside dataset {ds.name!r}'s candidates have no text there or in its "
            f"collection (e.g. {', '.join(still[:5])}). Re-rank a dataset whose documents "
            "include them (e.g. a '<collection>/union' dataset, or an irds: dataset with a "
            "local docs store), or use a run of this dataset's candidates"
        )
    docs = dict(ds.documents)
    docs.update(found)
    return replace(ds, documents=docs), len(found)
