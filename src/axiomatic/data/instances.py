"""Diagnostic-instance tables on disk: the Parquet schemas and the reader of a mined folder.

A data-layer module, so that every layer reads mined instances through it (the trainer's
diagnostic augmentation included) without importing the miner (:mod:`axiomatic.diagnose.mining`,
which writes these folders and re-exports the names below).
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from axiomatic.data.records import Document

MANIFEST = "_manifest.json"
ARTIFICIAL_FILE = "_artificial_docs.parquet"
ARTIFICIAL_DIR = "_artificial"
"""A mined folder's own files start with ``_``: pyarrow's dataset discovery (which
``pd.read_parquet(folder)`` uses) skips such names, so the folder reads as its instance
shards (``shard-*.parquet``) alone."""
LEGACY_MANIFEST = "manifest.json"
LEGACY_ARTIFICIAL_FILE = "artificial_docs.parquet"
LEGACY_ARTIFICIAL_DIR = "artificial"
"""The names folders mined before the ``_`` names had; still read, and renamed by a resumed
:func:`axiomatic.diagnose.mining.mine`."""
FORMAT_VERSION = 2  # 2: uniform seeded capping, symmetric / n_uncapped columns

INSTANCE_SCHEMA = pa.schema(
    [
        ("query_id", pa.string()),
        ("axiom", pa.string()),
        ("variant", pa.string()),
        ("spec", pa.string()),
        ("doc_a", pa.string()),
        ("doc_b", pa.string()),
        ("doc_c", pa.string()),
        ("relation", pa.string()),
        ("len_a", pa.int64()),
        ("len_b", pa.int64()),
        ("len_diff_abs", pa.int64()),
        ("len_diff_rel", pa.float64()),
        ("rel_a", pa.int64()),
        ("rel_b", pa.int64()),
        ("rel_c", pa.int64()),
        ("split", pa.string()),
        ("artificial", pa.bool_()),
        ("symmetric", pa.bool_()),
        ("n_uncapped", pa.int64()),
    ]
)
"""One row per instance. ``relation``: ``>`` (S(a) > S(b), a tie violates), ``>=`` (a tie
fulfils), ``=`` (equal scores expected: ``symmetric`` instances), ``diff>`` (triples:
S(b) - S(a) > S(c) - S(b)). ``len_diff_*`` over all documents of the instance (max - min, and
that over max). ``rel_*`` are null when unjudged. ``symmetric``: the preconditions hold in both
directions (e.g. M-TDC on two terms of equal idf), so the axiom asks for ``S(a) >= S(b)`` and
``S(b) >= S(a)``: stored once with relation ``=``. ``n_uncapped``: instances of this query and
axiom spec before ``max_instances_per_query`` sampled them (null in tables written before it
was recorded)."""

ARTIFICIAL_SCHEMA = pa.schema(
    [
        ("doc_id", pa.string()),
        ("text", pa.string()),
        ("source_doc_id", pa.string()),
        ("query_id", pa.string()),
        ("k", pa.int64()),
    ]
)


class IncompleteInstancesError(ValueError):
    """A mined folder whose run has not finished (``_manifest.json``: ``"complete": false``)."""


class InstancesMismatchError(ValueError):
    """A mined folder whose shard files disagree with its ``_manifest.json``: a shard the
    manifest does not list, a listed shard that is missing, or one whose row count or content
    hash differs from what the miner recorded when it finished the shard. Read anyway, its
    rows would be counted twice or not at all (n and the confidence intervals wrong)."""


def file_sha256(path: str | os.PathLike[str]) -> str:
    """The hex SHA-256 of a file's bytes (streamed), as the manifest records each shard."""
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def shard_record(path: str | os.PathLike[str], rows: int) -> dict[str, object]:
    """What the manifest records of a finished shard file: its name, row count and SHA-256."""
    p = Path(path)
    return {"file": p.name, "rows": int(rows), "sha256": file_sha256(p)}


def _existing(folder: str | os.PathLike[str], new: str, old: str) -> Path:
    d = Path(folder)
    return d / old if not (d / new).exists() and (d / old).exists() else d / new


def manifest_path(folder: str | os.PathLike[str]) -> Path:
    """The manifest of a mined folder: :data:`MANIFEST`, or :data:`LEGACY_MANIFEST` in a
    folder mined before (the new name when neither exists)."""
    return _existing(folder, MANIFEST, LEGACY_MANIFEST)


def artificial_file_path(folder: str | os.PathLike[str]) -> Path:
    """The consolidated artificial documents of a mined folder (:data:`ARTIFICIAL_FILE`, or
    the legacy name; the new name when neither exists)."""
    return _existing(folder, ARTIFICIAL_FILE, LEGACY_ARTIFICIAL_FILE)


def artificial_dir_path(folder: str | os.PathLike[str]) -> Path:
    """The per-shard artificial documents folder of a mined folder (:data:`ARTIFICIAL_DIR`, or
    the legacy name; the new name when neither exists)."""
    return _existing(folder, ARTIFICIAL_DIR, LEGACY_ARTIFICIAL_DIR)


def migrate_legacy_layout(folder: str | os.PathLike[str]) -> None:
    """Rename a folder's legacy-named files (``manifest.json``, ``artificial/``,
    ``artificial_docs.parquet``) to the ``_`` names; the manifest last, so a folder stopped
    half-way still reads (every reader finds either name)."""
    d = Path(folder)
    for new, old in (
        (ARTIFICIAL_DIR, LEGACY_ARTIFICIAL_DIR),
        (ARTIFICIAL_FILE, LEGACY_ARTIFICIAL_FILE),
        (MANIFEST, LEGACY_MANIFEST),
    ):
        if (d / old).exists() and not (d / new).exists():
            os.replace(d / old, d / new)


def _json_problem(exc: BaseException) -> str:
    """What was wrong with a JSON file, for a message (a RecursionError says only "maximum
    recursion depth exceeded ...")."""
    if isinstance(exc, RecursionError):
        return "its JSON nests too deep to read"
    return str(exc)


def _read_manifest(directory: Path) -> dict | None:
    """The parsed manifest of ``directory`` (``None`` when there is none)."""
    path = manifest_path(directory)
    if not path.is_file():
        return None
    try:
        manifest = json.loads(path.read_text(encoding="utf-8"))
        if not isinstance(manifest, dict):
            raise ValueError(f"expected a JSON object, found {type(manifest).__name__}")
        shards = manifest.get("shards", {})
        if not isinstance(shards, dict) or not all(isinstance(v, dict) for v in shards.values()):
            raise ValueError('"shards" is not an object of objects')
    except (ValueError, UnicodeDecodeError, RecursionError) as exc:
        raise ValueError(
            f"{path} is corrupt ({_json_problem(exc)}); mine the instances again (overwrite=True)"
        ) from None
    return manifest


_REMINE = (
    "mine the instances again: the same mine call re-mines every shard that does not match "
    "the manifest (it resumes), or mine afresh (overwrite=True)"
)


def shard_mismatch(directory: Path, sid: str, info: dict) -> str | None:
    """Why shard ``sid`` of ``directory`` disagrees with its manifest entry ``info`` (``None``
    when it matches): missing, another row count, another SHA-256 (when recorded)."""
    path = directory / f"{sid}.parquet"
    name = info.get("file", path.name)
    if name != path.name:
        return f"the manifest names file {name!r} for shard {sid!r}, expected {path.name!r}"
    if not path.is_file():
        return "is listed in the manifest but missing"
    try:
        rows = pq.read_metadata(path).num_rows
    except Exception as exc:  # pyarrow raises ArrowInvalid, OSError, ...: a cut or foreign file
        return f"is corrupt or truncated ({type(exc).__name__}: {exc})"
    expected = info.get("rows", info.get("instances"))
    if not isinstance(expected, int) or isinstance(expected, bool) or rows != expected:
        return f"holds {rows} rows, the manifest recorded {expected!r} when it was mined"
    digest = info.get("sha256")
    if digest is not None and file_sha256(path) != digest:
        return (
            "has other content than the manifest recorded when it was mined (SHA-256 "
            "mismatch): it was edited or replaced"
        )
    return None


def verified_shards(directory: str | os.PathLike[str], manifest: dict) -> list[Path]:
    """The shard files of ``directory`` its ``manifest`` vouches for, checked, in shard order.

    Every ``shard-*.parquet`` must be listed in ``manifest["shards"]`` and every listed one
    must be there with the row count and, when recorded (manifests written since it is), the
    SHA-256 the miner recorded when it finished the shard; otherwise
    :class:`InstancesMismatchError` names the file and the fix. An unfinished run
    (``"complete": false``) may hold one shard the manifest does not list yet (written, the
    job killed before the manifest was): such shards are left out, not read.
    """
    d = Path(directory)
    listed = manifest.get("shards") or {}
    complete = manifest.get("complete", False) is True
    unlisted = sorted(p for p in d.glob("shard-*.parquet") if p.stem not in listed)
    if unlisted and complete:
        names = ", ".join(str(p) for p in unlisted[:3]) + (" ..." if len(unlisted) > 3 else "")
        raise InstancesMismatchError(
            f"{names} is not listed in {manifest_path(d)} (a copy, or a leftover of another run): "
            "its rows would be counted as instances a second time. Remove it, or " + _REMINE
        )
    out = []
    for sid in sorted(listed):
        problem = shard_mismatch(d, sid, listed[sid])
        if problem is not None:
            raise InstancesMismatchError(
                f"{d / (sid + '.parquet')} {problem} ({manifest_path(d)}); {_REMINE}"
            )
        out.append(d / f"{sid}.parquet")
    return out


def partial_label(directory: str | os.PathLike[str]) -> str | None:
    """``"partial: k of n shards"`` for an unfinished mining output, ``None`` when complete.

    ``k`` counts the finished shards the manifest lists, ``n`` the shards the run was planned
    with (from the manifest's query count and shard size). A folder without a manifest is taken
    as complete.
    """
    d = Path(directory)
    manifest = _read_manifest(d)
    if manifest is None or manifest.get("complete", False) is True:
        return None
    cfg = manifest.get("config") or {}
    k = len(manifest.get("shards") or {})
    try:
        n = -(-int(cfg["queries"]) // int(cfg["shard_size"]))
    except (KeyError, TypeError, ValueError, ZeroDivisionError):
        n = k
    return f"partial: {k} of {n} shards"


def read_instances(
    directory: str | os.PathLike[str],
    *,
    allow_partial: bool = False,
) -> tuple[pd.DataFrame, dict[str, Document]]:
    """Load a mined directory: (instances DataFrame, artificial documents by id).

    Relevance columns are pandas nullable ``Int64``; ``doc_c`` is null except for triples.

    The manifest is the truth: only the shards it lists are read, each checked against the row
    count and SHA-256 recorded when it was mined (:func:`verified_shards`); a shard it does not
    list, a missing one or one that differs raises :class:`InstancesMismatchError`. Manifests
    written before the hashes were recorded are checked on row counts alone.

    An unfinished run (the manifest says ``"complete": false``: killed, or still running)
    is refused with :class:`IncompleteInstancesError`: its fractions would describe a subset of
    the queries without saying so. ``allow_partial=True`` (CLI ``--allow-partial``) reads the
    shards there are and labels the table: ``df.attrs["partial"] = "partial: k of n shards"``,
    which :func:`axiomatic.diagnose.diagnosis.diagnose` carries into every table and report.
    """
    d = Path(directory)
    manifest = _read_manifest(d)
    if manifest is None:
        shards = sorted(d.glob("shard-*.parquet"))
        if not shards:
            raise FileNotFoundError(
                f"{d} holds no mined instances (no shard-*.parquet, no {MANIFEST}); "
                "run axiomatic.diagnose.mining.mine(...) first"
            )
    partial = partial_label(d)
    if partial is not None and not allow_partial:
        raise IncompleteInstancesError(
            f"{d} holds an unfinished mining run ({partial}; {MANIFEST} says "
            '"complete": false): results from it would silently cover only part of the queries. '
            "Finish it by running the same mine call again (it resumes), or pass "
            "allow_partial=True to read the shards there are, labelled as partial"
        )
    if manifest is not None:
        shards = verified_shards(d, manifest)
    if shards:
        table = pa.concat_tables([pq.read_table(p, schema=INSTANCE_SCHEMA) for p in shards])
    else:
        table = INSTANCE_SCHEMA.empty_table()
    df = table.to_pandas()
    _check_specs(df, manifest, d)
    for c in ("rel_a", "rel_b", "rel_c", "len_a", "len_b", "len_diff_abs"):
        df[c] = df[c].astype("Int64") if c.startswith("rel") else df[c].astype("int64")
    arts: dict[str, Document] = {}
    afile = artificial_file_path(d)
    if afile.exists():
        recorded = (manifest or {}).get("artificial_docs")
        if isinstance(recorded, dict) and recorded.get("sha256") != file_sha256(afile):
            raise InstancesMismatchError(
                f"{afile} has other content than {manifest_path(d)} recorded when it was mined "
                f"(SHA-256 mismatch): it was edited or replaced; {_REMINE}"
            )
        parts = [afile]
    else:
        listed = (manifest or {}).get("shards")
        parts = [
            p
            for p in sorted(artificial_dir_path(d).glob("shard-*.parquet"))
            if listed is None or p.stem in listed
        ]
    for p in parts:
        for row in pq.read_table(p, schema=ARTIFICIAL_SCHEMA).to_pylist():
            arts.setdefault(row["doc_id"], Document(row["doc_id"], row["text"]))
    if partial is not None:
        df.attrs["partial"] = partial
    analyzer = _mined_analyzer(d)
    if analyzer is not None:  # diagnose warns when a lexical ranker analyzes text otherwise
        df.attrs["analyzer"] = analyzer
    return df, arts


def _check_specs(df: pd.DataFrame, manifest: dict | None, directory: Path) -> None:
    """Every row's ``spec`` is an axiom the manifest says was mined (``config.axioms``, when
    recorded) and names one axiom and variant: a spec edited into a shard (``TFC9()``), or one
    spec on rows of two axioms, would otherwise merge or invent rows of the diagnosis tables."""
    if not len(df):
        return
    pairs = df[["spec", "axiom", "variant"]].drop_duplicates()
    cfg = (manifest or {}).get("config")
    mined = cfg.get("axioms") if isinstance(cfg, dict) else None
    if isinstance(mined, list) and all(isinstance(a, str) for a in mined):
        foreign = sorted(set(pairs["spec"].astype(str)) - set(mined))
        if foreign:
            raise InstancesMismatchError(
                f"{directory}: instances with axiom spec {_clip(foreign[0])!r} are not of the "
                f"axioms {manifest_path(directory)} says were mined ({_clip(', '.join(mined))}): a "
                f"shard was edited or comes from another run; {_REMINE}"
            )
    twice = pairs[pairs.duplicated("spec", keep=False)]
    if len(twice):
        spec = str(twice["spec"].iloc[0])
        found = zip(twice["axiom"], twice["variant"], strict=True)
        kinds = ", ".join(sorted(f"{a} ({v})" for a, v in found))
        raise InstancesMismatchError(
            f"{directory}: the axiom spec {_clip(spec)!r} is on rows of several axioms or "
            f"variants ({_clip(kinds)}): a shard was edited or mixes runs; {_REMINE}"
        )


def _clip(text: str, n: int = 80) -> str:
    return text if len(text) <= n else text[: n - 1] + "\u2026"


def _mined_analyzer(directory: Path) -> str | None:
    """The analyzer spec the instances of ``directory`` were mined with (manifest
    ``config.analyzer_spec``), or ``None`` when the manifest does not record one."""
    import json

    try:
        data = json.loads(manifest_path(directory).read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError):
        return None
    cfg = data.get("config") if isinstance(data, dict) else None
    spec = cfg.get("analyzer_spec") if isinstance(cfg, dict) else None
    return spec if isinstance(spec, str) and spec else None
