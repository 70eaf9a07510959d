"""Mine diagnostic datasets: every candidate pair (triple) that satisfies an axiom variant.

Rennings 2019, section 3.2.2: per query, over its candidate list, keep the document pairs
(triples for TFC2) whose preconditions hold; add artificial LNC2 instances by duplicating
documents. Output is a directory of Parquet shards with one row per instance (schema
:data:`INSTANCE_SCHEMA`), written atomically (temp file + ``os.replace``) and tracked in a
``manifest.json`` so that re-running resumes: finished shards are skipped and a killed job loses
nothing that was finished. Work streams query by query: memory does not grow with the number
of queries. ``workers=N`` runs shards on a local Dask cluster, ``scheduler="ADDRESS"`` on an
existing one; the output is identical to the single-process run.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from axiomatic._atomic import atomic_path, atomic_write_text, clean_stale_temp_files
from axiomatic.axioms import engine
from axiomatic.axioms.context import QueryContext
from axiomatic.axioms.spec import Axiom, parse_axioms
from axiomatic.data.instances import (
    ARTIFICIAL_DIR,
    ARTIFICIAL_FILE,
    ARTIFICIAL_SCHEMA,
    FORMAT_VERSION,
    INSTANCE_SCHEMA,
    MANIFEST,
    file_sha256,
    migrate_legacy_layout,
    shard_mismatch,
    shard_record,
)
from axiomatic.data.records import Dataset, Document, Query
from axiomatic.diagnose.artificial import (
    ArtificialConfig,
    artificial_records,
    extend_context,
    plan_duplicates,
)
from axiomatic.index.collection import CollectionIndex

SKIP_KEYS = ("no_candidates", "no_query_terms", "empty_documents", "unknown_documents")


# ---------------------------------------------------------------------- per-query kernel
@dataclass
class QueryResult:
    table: pa.Table
    artificial: list[dict[str, object]] = field(default_factory=list)
    skips: Counter = field(default_factory=Counter)
    pairs_examined: int = 0


def _rel_array(labels: dict[str, int], ids: Sequence[str]) -> pa.Array:
    return pa.array([labels.get(d) for d in ids], type=pa.int64())


def mine_query(
    query: Query,
    documents: Sequence[Document],
    index: CollectionIndex,
    axioms: Sequence[Axiom],
    labels: dict[str, int] | None = None,
    split: str | None = None,
    artificial: ArtificialConfig | None = ArtificialConfig(),
    max_instances_per_query: int | None = None,
    similarity: Any = None,
    seed: int = 0,
) -> QueryResult:
    """Instances of every axiom for one query and its candidates (a pure function of its inputs).

    Documents of analyzed length 0 are dropped (and counted under ``empty_documents``); a query
    without candidates or whose terms are all stopwords yields no rows and a counted skip.
    ``max_instances_per_query`` keeps a uniform sample per axiom spec (real and artificial
    instances together), drawn with a generator seeded by ``(seed, query id, spec)``: the same
    rows whatever the shard size or the number of workers.
    """
    labels = labels or {}
    skips: Counter = Counter()
    if not documents:
        skips["no_candidates"] += 1
        return QueryResult(INSTANCE_SCHEMA.empty_table(), [], skips)
    ctx = QueryContext.build(query, documents, index, similarity=similarity)
    if ctx.n_terms == 0:
        skips["no_query_terms"] += 1
        return QueryResult(INSTANCE_SCHEMA.empty_table(), [], skips)
    nonempty = ctx.doc_len > 0
    if not nonempty.all():
        skips["empty_documents"] += int((~nonempty).sum())
        keep = [d for d, ok in zip(documents, nonempty, strict=True) if ok]
        if not keep:
            return QueryResult(INSTANCE_SCHEMA.empty_table(), [], skips)
        ctx = QueryContext.build(query, keep, index, similarity=similarity)
    ids = np.asarray(ctx.doc_ids, dtype=object)
    L = ctx.doc_len
    tables: list[pa.Table] = []
    art_rows: list[dict[str, object]] = []
    art_done: dict[tuple[int, int], str] = {}
    examined = 0
    n = ctx.n
    for ax in axioms:
        inst = ax.instances(ctx)
        examined += n * (n - 1) * (n - 2) if ax.arity == 3 else n * (n - 1)
        parts = [
            _rows(
                query.query_id,
                ax,
                ids,
                L,
                inst.i,
                inst.j,
                inst.k,
                labels,
                split,
                np.zeros(len(inst.i), dtype=bool),
                inst.relation,
                inst.symmetric,
            )
        ]
        rows: list[dict[str, object]] = []
        if ax.name == "LNC2" and artificial is not None:
            t, rows = _artificial_lnc2(ctx, ax, artificial, labels, split, art_done)
            parts.append(t)
        t = pa.concat_tables(parts)
        t = _cap(t, max_instances_per_query, (seed, query.query_id, ax.spec))
        if rows and t.num_rows:
            kept = set(t.column("doc_a").to_pylist())
            rows = [r for r in rows if r["doc_id"] in kept]
        tables.append(t)
        art_rows.extend(rows)
    table = pa.concat_tables(tables) if tables else INSTANCE_SCHEMA.empty_table()
    return QueryResult(table, art_rows, skips, examined)


def _stable_int(text: str) -> int:
    return int.from_bytes(hashlib.sha1(text.encode("utf-8")).digest()[:8], "little")


def _cap(table: pa.Table, cap: int | None, key: tuple[int, str, str]) -> pa.Table:
    """A seeded uniform sample of at most ``cap`` rows, with ``n_uncapped`` = the row count."""
    from axiomatic.axioms.engine import uniform_sample

    m = table.num_rows
    table = table.set_column(
        table.schema.get_field_index("n_uncapped"), "n_uncapped", pa.array([m] * m, pa.int64())
    )
    seed, qid, spec = key
    keep = uniform_sample(m, cap, [int(seed), _stable_int(qid), _stable_int(spec)])
    return table if len(keep) == m else table.take(pa.array(keep, pa.int64()))


def _artificial_lnc2(
    ctx: QueryContext,
    ax: Axiom,
    cfg: ArtificialConfig,
    labels: dict[str, int],
    split: str | None,
    done: dict[tuple[int, int], str],
) -> tuple[pa.Table, list[dict[str, object]]]:
    if ax.variant == "strict" and ctx.n_terms != 1:
        return INSTANCE_SCHEMA.empty_table(), []
    eligible = np.asarray((ctx.counts > 0).all(axis=1) if ax.variant != "relaxed" else ctx.qsum > 0)
    src, ks = plan_duplicates(ctx, cfg, eligible)
    if len(src) == 0:
        return INSTANCE_SCHEMA.empty_table(), []
    ext, docs = extend_context(ctx, src, ks)
    n = ctx.n
    block = slice(n, n + len(src))
    holds = engine.holds_rows(ax, ext, block)[:, :n]
    a, b = np.nonzero(holds)
    ids = np.asarray(ext.doc_ids, dtype=object)
    src_ids = [ctx.doc_ids[s] for s in src.tolist()]
    labels2 = dict(labels)
    for d, s in zip(docs, src_ids, strict=True):
        if s in labels:
            labels2[d.doc_id] = labels[s]
    flags = np.ones(len(a), dtype=bool)
    table = _rows(
        ctx.query.query_id, ax, ids, ext.doc_len, a + n, b, None, labels2, split, flags, ax.relation
    )
    used = sorted(set(a.tolist()))
    rows = artificial_records(
        [docs[u] for u in used],
        [src_ids[u] for u in used],
        [int(ks[u]) for u in used],
        ctx.query.query_id,
    )
    return table, rows


def _rows(
    qid: str,
    ax: Axiom,
    ids: np.ndarray,
    L: np.ndarray,
    i: np.ndarray,
    j: np.ndarray,
    k: np.ndarray | None,
    labels: dict[str, int],
    split: str | None,
    artificial: np.ndarray,
    relation: str,
    symmetric: np.ndarray | None = None,
) -> pa.Table:
    m = len(i)
    if m == 0:
        return INSTANCE_SCHEMA.empty_table()
    la, lb = L[i], L[j]
    if k is None:
        hi, lo = np.maximum(la, lb), np.minimum(la, lb)
    else:
        lc = L[k]
        hi = np.maximum(np.maximum(la, lb), lc)
        lo = np.minimum(np.minimum(la, lb), lc)
    diff = hi - lo
    rel = np.where(hi > 0, diff / np.maximum(hi, 1), 0.0)
    a_ids, b_ids = ids[i].tolist(), ids[j].tolist()
    c_ids = ids[k].tolist() if k is not None else None
    sym = np.zeros(m, bool) if symmetric is None else np.asarray(symmetric, dtype=bool)
    rels = np.where(sym, "=", relation) if sym.any() else [relation] * m
    cols = {
        "query_id": pa.array([qid] * m, pa.string()),
        "axiom": pa.array([ax.name] * m, pa.string()),
        "variant": pa.array([ax.variant] * m, pa.string()),
        "spec": pa.array([ax.spec] * m, pa.string()),
        "doc_a": pa.array(a_ids, pa.string()),
        "doc_b": pa.array(b_ids, pa.string()),
        "doc_c": pa.array(c_ids if c_ids is not None else [None] * m, pa.string()),
        "relation": pa.array(rels, pa.string()),
        "len_a": pa.array(la, pa.int64()),
        "len_b": pa.array(lb, pa.int64()),
        "len_diff_abs": pa.array(diff, pa.int64()),
        "len_diff_rel": pa.array(rel, pa.float64()),
        "rel_a": _rel_array(labels, a_ids),
        "rel_b": _rel_array(labels, b_ids),
        "rel_c": _rel_array(labels, c_ids) if c_ids is not None else pa.nulls(m, pa.int64()),
        "split": pa.array([split] * m, pa.string()),
        "artificial": pa.array(artificial, pa.bool_()),
        "symmetric": pa.array(sym, pa.bool_()),
        "n_uncapped": pa.array([m] * m, pa.int64()),
    }
    return pa.table(cols, schema=INSTANCE_SCHEMA)


# ---------------------------------------------------------------------- shards
@dataclass
class ShardTask:
    shard_id: str
    queries: list[Query]
    documents: list[list[Document]]
    labels: list[dict[str, int]]
    unknown_documents: int = 0


def mine_shard(
    task: ShardTask,
    index: CollectionIndex,
    axioms: Sequence[Axiom],
    split: str | None,
    artificial: ArtificialConfig | None,
    max_instances_per_query: int | None,
    similarity: Any = None,
    seed: int = 0,
) -> tuple[str, pa.Table, pa.Table, dict[str, int], int]:
    """Mine every query of one shard; returns (shard_id, instances, artificial docs, skips, pairs)."""
    tables, arts = [], []
    skips: Counter = Counter()
    if task.unknown_documents:
        skips["unknown_documents"] += task.unknown_documents
    examined = 0
    for q, docs, lab in zip(task.queries, task.documents, task.labels, strict=True):
        res = mine_query(
            q,
            docs,
            index,
            axioms,
            lab,
            split,
            artificial,
            max_instances_per_query,
            similarity,
            seed,
        )
        tables.append(res.table)
        arts.extend(res.artificial)
        skips.update(res.skips)
        examined += res.pairs_examined
    table = pa.concat_tables(tables) if tables else INSTANCE_SCHEMA.empty_table()
    if arts:
        seen: dict[str, dict[str, object]] = {}
        for r in arts:
            seen.setdefault(str(r["doc_id"]), r)
        art = pa.Table.from_pylist(list(seen.values()), schema=ARTIFICIAL_SCHEMA)
    else:
        art = ARTIFICIAL_SCHEMA.empty_table()
    return task.shard_id, table, art, dict(skips), examined


def _atomic_write(table: pa.Table, path: Path) -> None:
    with atomic_path(path) as tmp:
        pq.write_table(table, tmp)


def _atomic_json(obj: Any, path: Path) -> None:
    atomic_write_text(path, json.dumps(obj, indent=1, sort_keys=True))


def _config(
    dataset: Dataset,
    axioms: Sequence[Axiom],
    index: CollectionIndex,
    shard_size: int,
    depth: int | None,
    artificial: ArtificialConfig | None,
    cap: int | None,
    qids: Sequence[str],
    seed: int = 0,
) -> dict[str, Any]:
    h = hashlib.sha1("\0".join(qids).encode("utf-8")).hexdigest()[:16]
    return {
        "format_version": FORMAT_VERSION,
        "dataset": dataset.name,
        "split": dataset.split,
        "axioms": [a.spec for a in axioms],
        "analyzer": index.analyzer.config_hash,
        "analyzer_spec": index.analyzer.spec,
        "shard_size": shard_size,
        "depth": depth,
        "artificial": None
        if artificial is None
        else {"ks": list(artificial.ks), "max_len": artificial.max_len},
        "max_instances_per_query": cap,
        "seed": seed,
        "queries": len(qids),
        "query_ids_sha1": h,
    }


_INPUT_NAMES = {
    "queries": "query texts",
    "candidates": "candidate lists (or --depth)",
    "documents": "document texts",
    "labels": "relevance labels",
    "index": "collection index statistics (idf, lengths)",
    "similarity": "similarity model",
}


def input_fingerprint(
    dataset: Dataset,
    qids: Sequence[str],
    depth: int | None,
    index: CollectionIndex,
    similarity: Any = None,
) -> dict[str, Any]:
    """Hashes of everything the instances are computed from (``config.inputs`` of the manifest).

    The query texts, the candidate lists (after ``depth``), the id and text of every document
    they name, the relevance labels, the collection statistics of ``index`` and the similarity
    model. A resumed run compares them with the manifest's, so shards mined from other data (a
    changed text, same ids) are never resumed as if they were current. Streamed BLAKE2b hashes:
    a few hundred milliseconds for TREC DL sized inputs.
    """
    from axiomatic.data.fingerprint import hash_fields

    def cands(q: str) -> list[str]:
        c = dataset.candidate_ids(q)
        return list(c if depth is None else c[:depth])

    seen: set[str] = set()

    def doc_rows() -> Iterable[tuple[str, str]]:
        for q in qids:
            for d in cands(q):
                if d in seen:
                    continue
                seen.add(d)
                doc = dataset.documents.get(d)
                yield (d, "\x00absent" if doc is None else doc.text)

    def label_rows() -> Iterable[list[str]]:
        for q in qids:
            judged = dataset.judged(q)
            yield [q, *(f"{d}={judged[d]}" for d in sorted(judged))]

    h = hashlib.blake2b(digest_size=16)
    for arr in (index.df, index.cf, index.doc_len):
        h.update(np.ascontiguousarray(arr, dtype=np.int64).tobytes())
    h.update(hash_fields([index.terms, index.doc_ids]).encode("ascii"))
    sim = None
    if similarity is not None:
        sim = str(getattr(similarity, "fingerprint", None) or getattr(similarity, "name", None))
        sim = f"{type(similarity).__module__}.{type(similarity).__qualname__}:{sim}"
    return {
        "queries": hash_fields((q, dataset.queries[q].text) for q in qids),
        "candidates": hash_fields([q, *cands(q)] for q in qids),
        "documents": hash_fields(doc_rows()),
        "labels": hash_fields(label_rows()),
        "index": h.hexdigest(),
        "similarity": sim,
    }


class StaleInstancesError(ValueError):
    """Mined instances whose inputs (texts, candidates, labels, index) differ from the dataset
    they are about to be used with: their rows describe another collection. ``changed`` names
    the inputs that differ."""

    def __init__(self, changed: list[str], message: str) -> None:
        super().__init__(message)
        self.changed = changed


def changed_inputs(
    manifest: dict[str, Any], dataset: Dataset, index: CollectionIndex | None = None
) -> list[str] | None:
    """The inputs of a mining run (``manifest["config"]["inputs"]``) that differ in ``dataset``
    now, in words (``[]``: all current); ``None`` when the manifest records no fingerprint (a
    folder mined by an older version: nothing to compare).

    ``index`` defaults to ``dataset``'s index with the analyzer the run recorded
    (``config.analyzer_spec``; the cached one the miner used). The similarity model is not
    compared (it is not recorded in a form that can be rebuilt).
    """
    cfg = manifest.get("config")
    if not isinstance(cfg, dict) or not isinstance(cfg.get("inputs"), dict):
        return None
    recorded = cfg["inputs"]
    depth = cfg.get("depth")
    if dataset.candidates is None:  # mining needs candidate lists: not the mined dataset
        return [_INPUT_NAMES["candidates"] + " (the dataset has none)"]
    if index is None:
        from axiomatic.index.cache import dataset_index
        from axiomatic.text.analyzer import parse_analyzer

        spec = cfg.get("analyzer_spec")
        lang = dataset.doc_language or dataset.language
        an = None if spec is None else parse_analyzer(str(spec), language=lang)
        index = dataset_index(dataset, analyzer=an)
    keys = ["queries", "candidates", "documents", "labels"]
    if index.analyzer.config_hash == cfg.get("analyzer"):  # else the statistics differ anyway
        keys.append("index")
    qids = list(dataset.queries)
    if len(qids) != cfg.get("queries"):
        return [f"query set ({cfg.get('queries')} queries mined, {len(qids)} now)"]
    current = input_fingerprint(dataset, qids, depth if isinstance(depth, int) else None, index)
    return [_INPUT_NAMES[k] for k in keys if recorded.get(k) != current.get(k)]


def check_current(
    directory: str | os.PathLike[str],
    manifest: dict[str, Any],
    dataset: Dataset,
    index: CollectionIndex | None = None,
) -> bool:
    """Refuse instances mined from other inputs than ``dataset``'s (:func:`changed_inputs`).

    Raises :class:`StaleInstancesError` naming what changed and the fix (mine again with
    ``overwrite=True``). Returns ``False`` when the manifest records no input fingerprint
    (cannot be checked), ``True`` when the instances are current.
    """
    changed = changed_inputs(manifest, dataset, index)
    if changed is None:
        return False
    if changed:
        raise StaleInstancesError(
            changed,
            f"{directory} holds instances mined from other inputs than dataset "
            f"{dataset.name!r} has now (changed: {'; '.join(changed)}); scoring them would "
            "describe the old collection. Mine them again from the current data (pass "
            "overwrite=True) or use a new output directory",
        )
    return True


def _describe_changes(old: dict[str, Any], new: dict[str, Any]) -> str:
    """What differs between two manifest configurations, in words (for the refusal message)."""
    out = []
    for key in sorted(set(old) | set(new)):
        a, b = old.get(key), new.get(key)
        if a == b:
            continue
        if key == "inputs":
            if not isinstance(a, dict):
                out.append("inputs: not recorded by the run in the folder (an older version)")
                continue
            for k in sorted(set(a) | set(b or {})):
                if a.get(k) != (b or {}).get(k):
                    out.append(_INPUT_NAMES.get(k, k))
            continue
        sa, sb = repr(a), repr(b)
        if len(sa) + len(sb) > 160:
            sa, sb = sa[:70] + "...", sb[:70] + "..."
        out.append(f"{key}: {sa} -> {sb}")
    return "; ".join(out) or "unknown"


def mine(
    dataset: Dataset,
    axioms: str | Sequence[str | Axiom],
    out_dir: str | os.PathLike[str],
    *,
    index: CollectionIndex | None = None,
    analyzer: Any = None,
    depth: int | None = None,
    shard_size: int = 100,
    artificial: ArtificialConfig | bool | None = True,
    max_instances_per_query: int | None = None,
    workers: int | None = None,
    scheduler: str | None = None,
    overwrite: bool = False,
    progress: bool = True,
    similarity: Any = None,
    seed: int = 0,
) -> dict[str, Any]:
    """Mine ``axioms`` from the candidate lists of ``dataset`` into Parquet shards in ``out_dir``.

    Parameters
    ----------
    axioms: axiom strings / objects, e.g. ``"TFC1,TFC2,M-TDC,LNC2"``.
    index: collection index (default: the cached ``dataset_index(dataset, analyzer)``).
    analyzer: an :class:`~axiomatic.text.analyzer.Analyzer` or spec string (``"thesis"``,
        ``"stopwords=false"``) for the default index; ignored when ``index`` is given. Its
        spec is recorded in the manifest (``config.analyzer_spec``).
    depth: only the first ``depth`` candidates of each query.
    shard_size: queries per shard (the unit of atomic writing and of resuming).
    artificial: LNC2 duplicates (``True`` = thesis defaults k in {2,3,4}, max length 240;
        an :class:`ArtificialConfig`; ``False``/``None`` for none).
    max_instances_per_query: cap per query and axiom spec (``None``: no cap, the default): a
        uniform sample seeded by ``(seed, query id, spec)``, not the first N in candidate order
        (candidate lists are ranked, so a prefix favours the run's own top documents). The
        manifest records the seed and, per shard, the uncapped counts (``per_axiom_uncapped``,
        and ``capped`` for the query/spec pairs that lost rows); each row carries
        ``n_uncapped``.
    seed: seed of that sample.
    workers: run shards on a local Dask cluster with this many workers.
    scheduler: address of an existing Dask scheduler (takes precedence over ``workers``).
    overwrite: start afresh when ``out_dir`` holds a run with another configuration.

    Returns a summary: counts per axiom, skip counts (``no_candidates``, ``no_query_terms``,
    ``empty_documents``, ``unknown_documents``), shards written and skipped, pairs examined and
    seconds.
    """
    t0 = time.perf_counter()
    axs = parse_axioms(axioms)
    listed = Counter(a.spec for a in axs)
    twice = sorted(s for s, n in listed.items() if n > 1)
    if twice:  # mined twice, its instances would count twice (n doubled, intervals narrowed)
        raise ValueError(
            f"axiom {twice[0]} is listed {listed[twice[0]]} times; list each axiom once"
        )
    if dataset.candidates is None:
        raise ValueError(
            f"dataset {dataset.name!r} has no candidate lists (a full-retrieval collection); "
            "mining works on re-ranking datasets: give it candidates, e.g. a BM25 top-k run "
            "(dataset.candidates maps each query id to a list of doc ids) or use a '/bm25' "
            "re-ranking variant"
        )
    if shard_size < 1:
        raise ValueError(f"shard_size must be >= 1 (got {shard_size})")
    if artificial is True:
        artificial = ArtificialConfig()
    elif artificial is False:
        artificial = None
    if index is None:
        from axiomatic.index.cache import dataset_index
        from axiomatic.text.analyzer import parse_analyzer

        lang = dataset.doc_language or dataset.language
        an = None if analyzer is None else parse_analyzer(analyzer, language=lang)
        index = dataset_index(dataset, analyzer=an)
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    with exclusive_output(out):
        migrate_legacy_layout(out)  # a folder mined before the _ names resumes under them
        qids = list(dataset.queries)
        cfg = _config(
            dataset, axs, index, shard_size, depth, artificial, max_instances_per_query, qids, seed
        )
        manifest_path = out / MANIFEST
        cfg["inputs"] = input_fingerprint(dataset, qids, depth, index, similarity)
        done: dict[str, Any] = {}
        redone: list[str] = []
        removed: list[str] = []
        if manifest_path.exists():
            old = _read_manifest(manifest_path, overwrite)
            if old.get("config") != cfg:
                if not overwrite:
                    changes = _describe_changes(old.get("config") or {}, cfg)
                    raise ValueError(
                        f"{out} holds instances mined with another configuration or from other "
                        f"inputs (changed: {changes}); its shards would be stale, so they are not "
                        "resumed. Use a new output directory or pass overwrite=True to mine afresh"
                    )
                for f in out.glob("shard-*.parquet"):
                    f.unlink()
                for f in (out / ARTIFICIAL_DIR).glob("*.parquet"):
                    f.unlink()
            else:
                done = {
                    k: v
                    for k, v in old.get("shards", {}).items()
                    if (out / f"{k}.parquet").exists()
                }
                # a shard listed as finished but cut or corrupt on disk (a copy, a full disk, a
                # crash without fsync) is mined again, never resumed over
                redone = [k for k, v in done.items() if not _shard_intact(out, k, v)]
                for k in redone:
                    del done[k]
                    (out / f"{k}.parquet").unlink(missing_ok=True)
                    (out / ARTIFICIAL_DIR / f"{k}.parquet").unlink(missing_ok=True)
                # a shard file the manifest does not vouch for (a copy, a leftover of another run,
                # one written by a job killed before it recorded it) is never kept: its rows would
                # be read as instances of this run
                for f in sorted(out.glob("shard-*.parquet")):
                    if f.stem not in done:
                        f.unlink()
                        (out / ARTIFICIAL_DIR / f.name).unlink(missing_ok=True)
                        removed.append(f.name)
        # a job killed mid-write leaves temporary files of its atomic writes behind
        clean_stale_temp_files(out)
        clean_stale_temp_files(out / ARTIFICIAL_DIR)
        manifest: dict[str, Any] = {"config": cfg, "shards": dict(done), "complete": False}
        _atomic_json(manifest, manifest_path)
        (out / ARTIFICIAL_DIR).mkdir(exist_ok=True)

        shard_ids = shard_ids_planned(len(qids), shard_size)
        todo = [
            (sid, qids[s * shard_size : (s + 1) * shard_size])
            for s, sid in enumerate(shard_ids)
            if sid not in done
        ]
        skipped_shards = len(shard_ids) - len(todo)

        def make_task(sid: str, shard_qids: list[str]) -> ShardTask:
            queries, docs, labels = [], [], []
            unknown = 0
            for q in shard_qids:
                cand = dataset.candidate_ids(q)
                if depth is not None:
                    cand = cand[:depth]
                present = [d for d in cand if d in dataset.documents]
                miss = len(cand) - len(present)
                queries.append(dataset.queries[q])
                docs.append([dataset.documents[d] for d in present])
                labels.append(dict(dataset.judged(q)))
                unknown += miss
            return ShardTask(sid, queries, docs, labels, unknown)

        def record(result: tuple[str, pa.Table, pa.Table, dict[str, int], int]) -> None:
            sid, table, art, skips, examined = result
            art_record = None
            if art.num_rows:
                _atomic_write(art, out / ARTIFICIAL_DIR / f"{sid}.parquet")
                art_record = shard_record(out / ARTIFICIAL_DIR / f"{sid}.parquet", art.num_rows)
            _atomic_write(table, out / f"{sid}.parquet")
            counts = Counter(table.column("spec").to_pylist()) if table.num_rows else Counter()
            uncapped: Counter = Counter()
            capped: dict[str, dict[str, int]] = {}
            if table.num_rows:
                groups = (
                    table.select(["query_id", "spec", "n_uncapped"])
                    .group_by(["query_id", "spec"])
                    .aggregate([("n_uncapped", "max"), ("n_uncapped", "count")])
                    .to_pylist()
                )
                for g in groups:
                    uncapped[g["spec"]] += g["n_uncapped_max"]
                    if g["n_uncapped_max"] > g["n_uncapped_count"]:
                        capped.setdefault(g["query_id"], {})[g["spec"]] = g["n_uncapped_max"]
            manifest["shards"][sid] = {
                **shard_record(out / f"{sid}.parquet", table.num_rows),
                "artificial": art_record,
                "instances": table.num_rows,
                "per_axiom": dict(counts),
                "per_axiom_uncapped": dict(uncapped),
                "capped": capped,
                "skips": skips,
                "pairs_examined": examined,
            }
            _atomic_json(manifest, manifest_path)

        split = dataset.split
        args = (axs, split, artificial, max_instances_per_query, similarity, seed)
        if scheduler is not None or workers is not None:
            _run_dask(todo, make_task, record, index, args, workers, scheduler, progress)
        else:
            it: Iterable[tuple[str, list[str]]] = todo
            if progress and len(todo) > 1:
                from axiomatic._progress import track

                it = track(todo, description=f"mining {dataset.name}", total=len(todo))
            for sid, shard_qids in it:
                record(mine_shard(make_task(sid, shard_qids), index, *args))

        _consolidate_artificial(out)
        manifest["artificial_docs"] = {
            "file": ARTIFICIAL_FILE,
            "sha256": file_sha256(out / ARTIFICIAL_FILE),
        }
        manifest["complete"] = True
        _atomic_json(manifest, manifest_path)
        summary = summarize(manifest, skipped_shards, time.perf_counter() - t0)
        summary["shards_redone"] = sorted(redone)
        summary["shards_removed"] = removed
        return summary


LOCK_FILE = ".mine.lock"
"""The advisory lock of a mining output folder, held while a ``mine`` call writes there."""


class OutputLockedError(RuntimeError):
    """Another process is mining into the same output folder right now."""


@contextmanager
def exclusive_output(out: Path) -> Iterator[None]:
    """Hold :data:`LOCK_FILE` of ``out`` for the block, or raise :class:`OutputLockedError` at
    once when another process holds it: two runs into one folder would mine every shard twice
    and race on the manifest. The operating system releases the lock of a killed process."""
    from filelock import FileLock, Timeout

    lock = FileLock(out / LOCK_FILE, timeout=0)
    try:
        lock.acquire()
    except Timeout:
        raise OutputLockedError(
            f"{out} is being mined by another process right now (it holds "
            f"{out / LOCK_FILE}): wait for it to finish (the same mine call then reuses its "
            "shards), or mine into another folder"
        ) from None
    try:
        yield
    finally:
        lock.release()


def shard_ids_planned(n_queries: int, shard_size: int) -> list[str]:
    """The shard ids of a run over ``n_queries`` queries, ``shard_size`` per shard."""
    return [f"shard-{s // shard_size:05d}" for s in range(0, n_queries, shard_size)]


def _read_manifest(path: Path, overwrite: bool) -> dict[str, Any]:
    """The manifest of an earlier run, checked: a JSON object whose ``config`` is an object and
    whose ``shards`` map shard ids to objects. A corrupt one raises ``ValueError`` naming the
    file and the fix, or, with ``overwrite``, counts as absent (the run starts afresh)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        problem = manifest_problem(data)
    except (ValueError, UnicodeDecodeError) as exc:
        problem = str(exc)
    except RecursionError:
        problem = "its JSON nests too deep to read"
    if problem is None:
        return data
    if overwrite:
        return {}
    raise ValueError(
        f"{path} is corrupt ({problem}); mine afresh into this folder (pass overwrite=True) or "
        "use a new output directory"
    )


def manifest_problem(data: object) -> str | None:
    """What is wrong with a parsed ``manifest.json`` (``None`` when its shape is sound)."""
    if not isinstance(data, dict):
        return f"expected a JSON object, found {type(data).__name__}"
    for key in ("config", "shards"):
        if key in data and not isinstance(data[key], dict):
            return f'"{key}" is {type(data[key]).__name__}, expected an object'
    shards = data.get("shards") or {}
    bad = [k for k, v in shards.items() if not isinstance(v, dict)]
    if bad:
        return f'"shards" entry {bad[0]!r} is not an object'
    inputs = (data.get("config") or {}).get("inputs")
    if inputs is not None and not isinstance(inputs, dict):
        return f'"config.inputs" is {type(inputs).__name__}, expected an object'
    return None


def _shard_intact(out: Path, sid: str, info: dict[str, Any]) -> bool:
    """Whether shard ``sid`` (and its artificial documents, when any) reads in full with the
    instance schema and holds the row count and content (SHA-256, when recorded) the manifest
    recorded for it."""
    if shard_mismatch(out, sid, info) is not None:
        return False
    try:
        pq.read_table(out / f"{sid}.parquet", schema=INSTANCE_SCHEMA)
        art = out / ARTIFICIAL_DIR / f"{sid}.parquet"
        recorded = info.get("artificial")
        if isinstance(recorded, dict) and (
            not art.exists() or file_sha256(art) != recorded.get("sha256")
        ):
            return False
        if art.exists():
            pq.read_table(art, schema=ARTIFICIAL_SCHEMA)
    except Exception:  # pyarrow raises ArrowInvalid, OSError, ...: any failure marks it bad
        return False
    return True


def _run_dask(todo, make_task, record, index, args, workers, scheduler, progress) -> None:
    from dask.distributed import as_completed

    from axiomatic.diagnose.dask_utils import dask_client, n_workers

    with dask_client(workers, scheduler) as client:
        idx = client.scatter(index, broadcast=True)
        limit = 2 * n_workers(client, workers or 1)  # bounded in flight: memory flat in #queries
        pending = list(todo)
        futures = as_completed()
        for _ in range(min(limit, len(pending))):
            sid, qs = pending.pop(0)
            futures.add(client.submit(mine_shard, make_task(sid, qs), idx, *args, pure=False))
        for fut in futures:
            record(fut.result())
            fut.release()
            if pending:
                sid, qs = pending.pop(0)
                futures.add(client.submit(mine_shard, make_task(sid, qs), idx, *args, pure=False))


def _consolidate_artificial(out: Path) -> None:
    parts = sorted((out / ARTIFICIAL_DIR).glob("shard-*.parquet"))
    if not parts:
        _atomic_write(ARTIFICIAL_SCHEMA.empty_table(), out / ARTIFICIAL_FILE)
        return
    table = pa.concat_tables([pq.read_table(p, schema=ARTIFICIAL_SCHEMA) for p in parts])
    df = table.to_pandas().drop_duplicates("doc_id", keep="first")
    _atomic_write(
        pa.Table.from_pandas(df, schema=ARTIFICIAL_SCHEMA, preserve_index=False),
        out / ARTIFICIAL_FILE,
    )


def summarize(
    manifest: dict[str, Any], skipped_shards: int = 0, seconds: float | None = None
) -> dict[str, Any]:
    per_axiom: Counter = Counter()
    uncapped: Counter = Counter()
    skips: Counter = Counter({k: 0 for k in SKIP_KEYS})
    total = examined = 0
    for info in manifest["shards"].values():
        per_axiom.update(info["per_axiom"])
        uncapped.update(info.get("per_axiom_uncapped", info["per_axiom"]))
        skips.update(info["skips"])
        total += info["instances"]
        examined += info.get("pairs_examined", 0)
    return {
        "instances": total,
        "per_axiom": dict(per_axiom),
        "per_axiom_uncapped": dict(uncapped),
        "max_instances_per_query": manifest.get("config", {}).get("max_instances_per_query"),
        "seed": manifest.get("config", {}).get("seed"),
        "skips": dict(skips),
        "shards": len(manifest["shards"]),
        "shards_skipped": skipped_shards,
        "pairs_examined": examined,
        "seconds": seconds,
    }
