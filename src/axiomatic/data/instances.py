"""Diagnostic-instance tables on disk: the Parquet schemas and the reader of a mined folder.

A data-layer module, so that every layer reads mined instances through it (the trainer's
diagnostic augmentation included) without importing the miner (:mod:`axiomatic.diagnose.mining`,
which writes these folders and re-exports the names below).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from axiomatic.data.records import Document

MANIFEST = "manifest.json"
ARTIFICIAL_FILE = "artificial_docs.parquet"
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
    """A mined folder whose run has not finished (``manifest.json``: ``"complete": false``)."""


def partial_label(directory: str | os.PathLike[str]) -> str | None:
    """``"partial: k of n shards"`` for an unfinished mining output, ``None`` when complete.

    ``k`` counts the shard files present, ``n`` the shards the run was planned with (from the
    manifest's query count and shard size). A folder without a manifest is taken as complete.
    """
    d = Path(directory)
    path = d / MANIFEST
    if not path.is_file():
        return None
    try:
        manifest = json.loads(path.read_text(encoding="utf-8"))
        if not isinstance(manifest, dict):
            raise ValueError(f"expected a JSON object, found {type(manifest).__name__}")
    except (ValueError, UnicodeDecodeError) as exc:
        raise ValueError(
            f"{path} is corrupt ({exc}); mine the instances again (overwrite=True)"
        ) from None
    if manifest.get("complete", False) is True:
        return None
    cfg = manifest.get("config") or {}
    k = len(list(d.glob("shard-*.parquet")))
    try:
        n = -(-int(cfg["queries"]) // int(cfg["shard_size"]))
    except (KeyError, TypeError, ValueError, ZeroDivisionError):
        n = max(k, len(manifest.get("shards") or {}))
    return f"partial: {k} of {n} shards"


def read_instances(
    directory: str | os.PathLike[str],
    *,
    allow_partial: bool = False,
) -> tuple[pd.DataFrame, dict[str, Document]]:
    """Load a mined directory: (instances DataFrame, artificial documents by id).

    Relevance columns are pandas nullable ``Int64``; ``doc_c`` is null except for triples.

    An unfinished run (``manifest.json`` says ``"complete": false``: killed, or still running)
    is refused with :class:`IncompleteInstancesError`: its fractions would describe a subset of
    the queries without saying so. ``allow_partial=True`` (CLI ``--allow-partial``) reads the
    shards there are and labels the table: ``df.attrs["partial"] = "partial: k of n shards"``,
    which :func:`axiomatic.diagnose.diagnosis.diagnose` carries into every table and report.
    """
    d = Path(directory)
    shards = sorted(d.glob("shard-*.parquet"))
    if not shards and not (d / MANIFEST).exists():
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
    if shards:
        table = pa.concat_tables([pq.read_table(p, schema=INSTANCE_SCHEMA) for p in shards])
    else:
        table = INSTANCE_SCHEMA.empty_table()
    df = table.to_pandas()
    for c in ("rel_a", "rel_b", "rel_c", "len_a", "len_b", "len_diff_abs"):
        df[c] = df[c].astype("Int64") if c.startswith("rel") else df[c].astype("int64")
    arts: dict[str, Document] = {}
    afile = d / ARTIFICIAL_FILE
    parts = [afile] if afile.exists() else sorted((d / "artificial").glob("shard-*.parquet"))
    for p in parts:
        for row in pq.read_table(p, schema=ARTIFICIAL_SCHEMA).to_pylist():
            arts.setdefault(row["doc_id"], Document(row["doc_id"], row["text"]))
    if partial is not None:
        df.attrs["partial"] = partial
    analyzer = _mined_analyzer(d)
    if analyzer is not None:  # diagnose warns when a lexical ranker analyzes text otherwise
        df.attrs["analyzer"] = analyzer
    return df, arts


def _mined_analyzer(directory: Path) -> str | None:
    """The analyzer spec the instances of ``directory`` were mined with (manifest
    ``config.analyzer_spec``), or ``None`` when the manifest does not record one."""
    import json

    try:
        data = json.loads((directory / MANIFEST).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    cfg = data.get("config") if isinstance(data, dict) else None
    spec = cfg.get("analyzer_spec") if isinstance(cfg, dict) else None
    return spec if isinstance(spec, str) and spec else None
