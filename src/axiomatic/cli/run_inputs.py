"""Inputs shared by the commands that take runs: ``NAME=PATH`` run arguments and their default
names, the text of documents a run brings from outside a dataset's candidates, and axiom
weights.

Names: a run is what tables, plots and CSVs call it. ``--run splade=runs/x.trec`` names it; a
run given as a bare path is named by its tag column when every line has the same tag, else by
its file name, else (same file names) by its folder: two rank_llm ``trec_results_dl19.txt``
files tagged ``rank`` become ``BM25`` and ``SPLADE_P_P_ENSEMBLE_DISTIL``, not a collision.
"""

from __future__ import annotations

import gzip
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from axiomatic.cli.common import fail, suggest

__all__ = [
    "NamedPath",
    "dataset_with_documents",
    "parse_named_paths",
    "parse_weights",
    "run_tag",
]


@dataclass(frozen=True)
class NamedPath:
    name: str
    path: Path
    spec: str  # what the user typed (the legend maps name -> spec)


def run_tag(path: Path) -> str | None:
    """The run's tag when every line carries the same one (6th column), else ``None``."""
    tags: set[str] = set()
    opener: Any = gzip.open if path.suffix == ".gz" else open
    try:
        with opener(path, "rt", encoding="utf-8", errors="replace") as fh:
            for line in fh:
                parts = line.split()
                if len(parts) >= 6:
                    tags.add(parts[5])
                    if len(tags) > 1:
                        return None
    except OSError:
        return None
    return next(iter(tags)) if tags else None


def _split(value: str) -> tuple[str | None, Path]:
    from axiomatic.rankers.registry import split_name

    if Path(value).expanduser().is_file():  # a path that holds '=' is still a path
        return None, Path(value).expanduser()
    name, rest = split_name(value)
    return name, Path(rest if name else value).expanduser()


def parse_named_paths(
    values: list[str], option: str = "--run", tag_names: bool = True
) -> list[NamedPath]:
    """``[NAME=]PATH`` arguments as named paths (files checked). A missing file fails with the
    close matches in its folder.

    Default names, first that tells the unnamed runs apart: the tag column (when each run has
    one tag), the file name, the parent folder's name (``BM25`` for
    ``rank_llm/BM25/trec_results_dl19.txt``), then the path with as many parent folders as
    needed; a ``-2`` suffix only as the last resort."""
    parsed: list[tuple[str | None, Path, str]] = []
    for value in values:
        name, path = _split(value)
        if not path.is_file():
            siblings = [p.name for p in path.parent.glob("*")] if path.parent.is_dir() else []
            what = "is a folder" if path.is_dir() else "does not exist"
            raise fail(
                f"{option} {value!r}: file {path} {what}; expected [NAME=]PATH of a TREC run."
                f"{suggest(path.name, siblings)}"
            )
        parsed.append((name, path, value))
    given = [n for n, _, _ in parsed if n is not None]
    for n in given:
        if given.count(n) > 1:
            raise fail(f"{option}: the name {n!r} is given to two runs")
    bare = [(i, path) for i, (n, path, _) in enumerate(parsed) if n is None]
    defaults: dict[int, str] = {}
    if bare:
        levels: list[list[str]] = []
        if tag_names:
            tags = [run_tag(path) for _, path in bare]
            if all(tags):
                levels.append([str(t) for t in tags])
        depth = max(len(path.resolve().parts) for _, path in bare)
        levels.append([path.name for _, path in bare])
        levels.append([path.resolve().parent.name or path.name for _, path in bare])
        for k in range(2, depth + 1):
            levels.append(["/".join(path.resolve().parts[-k:]) for _, path in bare])
        for names in levels:
            if len(set(names)) == len(names) and not set(names) & set(given):
                defaults = {i: names[j] for j, (i, _) in enumerate(bare)}
                break
        else:  # the same file twice
            defaults = {i: path.name for i, path in bare}
    out: list[NamedPath] = []
    used: set[str] = set()
    for i, (name, path, value) in enumerate(parsed):
        name = name if name is not None else defaults[i]
        base, k = name, 2
        while name in used:
            name, k = f"{base}-{k}", k + 1
        used.add(name)
        out.append(NamedPath(name, path, value))
    return out


def parse_weights(text: str, axioms: list[Any]) -> list[float]:
    """``--weights`` as one float per pairwise axiom: ``"2,1,0.5"`` (axiom order) or
    ``"TFC1=2,M-TDC=1"`` (unnamed axioms get 1)."""
    from axiomatic.evaluate.metrics import _split_measure_string

    names = [a.name for a in axioms]
    items = _split_measure_string(text)
    if not items:
        raise fail(f"--weights {text!r} is empty; expected e.g. '2,1' or 'TFC1=2,M-TDC=1'")
    if all("=" in it for it in items):
        weights = dict.fromkeys(names, 1.0)
        for it in items:
            key, _, val = it.partition("=")
            key = key.strip()
            if key not in weights:
                raise fail(
                    f"--weights: {key!r} is not one of the pairwise --axioms "
                    f"({', '.join(names)}).{suggest(key, names)}"
                )
            weights[key] = _number(val, it)
        return [weights[n] for n in names]
    if any("=" in it for it in items):
        raise fail(f"--weights {text!r}: give either all weights by name or none by name")
    if len(items) != len(names):
        raise fail(
            f"--weights {text!r} gives {len(items)} weights for {len(names)} pairwise axioms "
            f"({', '.join(names)}); give one per axiom, or name them: "
            f"{','.join(f'{n}=1' for n in names)}"
        )
    return [_number(it, it) for it in items]


def _number(text: str, item: str) -> float:
    import math

    try:
        value = float(text)
    except ValueError:
        raise fail(f"--weights: {item!r} is not a number") from None
    if not math.isfinite(value):
        raise fail(f"--weights: {item!r} must be finite")
    return value


def _lookup_collection(ds: Any, ids: set[str], data_root: Path | None) -> dict[str, Any]:
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
        if union != name and union in dataset_names():
            try:
                docs = load_dataset(union, data_root=data_root).documents
            except (KeyError, FileNotFoundError, ValueError):
                docs = {}
            found.update({d: docs[d] for d in ids - found.keys() if d in docs})
    return found


def dataset_with_documents(
    ds: Any, run: dict[str, dict[str, float]], depth: int, option: str, data_root: Path | None
) -> tuple[Any, int]:
    """``ds`` with the text of every document among the top ``depth`` of ``run`` that its
    candidates lack (looked up in the collection); ``(ds, 0)`` when none is missing.

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
        raise fail(
            f"{option}: {len(still)} of the {len(missing)} documents the run ranks in its top "
            f"{depth} outside dataset {ds.name!r}'s candidates have no text there or in its "
            f"collection (e.g. {', '.join(still[:5])}). Re-rank a dataset whose documents "
            "include them (e.g. a '<collection>/union' dataset, or an irds: dataset with a "
            "local docs store), or use a run of this dataset's candidates"
        )
    from dataclasses import replace

    docs = dict(ds.documents)
    docs.update(found)
    return replace(ds, documents=docs), len(found)
