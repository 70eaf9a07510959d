"""BM25 retrieval speed and index memory: axiomatic vs bm25s, measured in the same run (not run by CI).

Usage::

    .venv/bin/python benchmarks/bench_bm25.py [--runs 5] [--threads 1 2] [--docs 100000]
        [--queries 1000] [--skip-scifact] [--skip-nfcorpus] [--skip-rag24] [--no-memory]
        [--memory-docs N]
        [--memory-runs 3] [--memory-only] [--memory-preload-numba]

Prints one JSON object; :func:`measure_bm25` returns the same object (``benchmarks/run.py`` and
other scripts import it). Corpora: SciFact (test), NFCorpus (original release, test documents,
title queries) and TREC RAG 2024 (``trec-rag24``: the distinct MS MARCO v2.1 segments retrieved
for its 301 topics, about 6,000, and the 301 topics as queries) when the shared data is
present, and a seeded synthetic corpus with a Zipfian vocabulary (``--docs``; 0 skips it). Every system indexes the same texts with the same
tokenization (bm25s' stopwords and token pattern; Snowball stemming on the real corpora, none on
the synthetic one) and retrieves the top 10 for the same queries, k1=0.9, b=0.4 (Lucene BM25).

* **Timing**: ``--runs`` runs; in each, every system builds its index (alternating), then
  retrieval is timed three times per thread count, the systems alternating within each
  repetition (ours, bm25s numba, bm25s numpy; numpy at one thread only: it has no threads).
  Each system's first retrieval on a fresh index is not timed (caches warm: ours' map from
  surface tokens to term ids, PyStemmer's cache that bm25s' tokenizer uses).
  Wall time (``perf_counter``) and CPU time of the process (``process_time``: all threads) are
  both reported, as medians with min and max. ``ratio`` gives, for each thread count, the median
  over the alternating repetitions of (fastest bm25s backend's time / ours): > 1 means ours is
  faster. Numba kernels are compiled (or loaded from numba's cache) before any timing; the JSON
  says which (``numba_cache``).
  Index time is tokenization plus everything retrieval needs, from the texts (ours:
  ``CollectionIndex.build`` plus the impact index retrieval reads, ``BM25Ranker.impacts``; bm25s:
  ``bm25s.tokenize`` + ``BM25.index``). Retrieval time is analyzing the queries and the top 10
  as arrays (ours: ``BM25Ranker.retrieve_many``; bm25s: ``bm25s.tokenize`` + ``BM25.retrieve``).
* **Exactness**: ours (compiled) against ours numpy (the exhaustive numpy scoring): the largest
  relative score difference (0.0: bit-identical) and whether every top-k list is identical.
* **Memory** (``--no-memory`` skips it): each build in a fresh process (one per system and
  repetition, alternating), after the texts are loaded and a 50-document warm-up build (imports
  and lazy set-up done): ``peak_mb`` is the peak resident set size over the loaded data
  (``VmHWM`` reset through ``/proc/self/clear_refs`` just before the build), ``resident_mb`` the
  resident size over it after the build (what the index holds, plus what the allocator kept).
  Ours is measured with and without the positional index (``positions=False``). Then one
  top-10 query on the built index: ``query_peak_mb``/``query_resident_mb``, the same figures
  after it (the first retrieval loads numba and compiles or loads the kernels, in both systems).
  ``--memory-preload-numba`` runs a query in the warm-up too, so that numba and the kernels are
  loaded before the measurement in both processes (like for like whatever either system loads
  while building). ``--memory-only`` skips the timing.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import platform
import subprocess
import sys
import time
import unicodedata
from pathlib import Path
from typing import Any

import numpy as np

HERE = Path(__file__).resolve().parent
#: retrieval repetitions per run, systems alternating within each
REPS = 3


def synthetic_corpus(n_docs: int, n_queries: int, vocab: int = 200_000, seed: int = 0):
    """Seeded corpus: Zipf(1.1) term ranks, log-normal document lengths (median ~60 tokens)."""
    from axiomatic.data.records import Document, Query

    rng = np.random.default_rng(seed)
    ranks = np.arange(1, vocab + 1, dtype=np.float64)
    p = ranks**-1.1
    p /= p.sum()
    words = [f"t{i:x}" for i in range(vocab)]
    lens = np.clip(rng.lognormal(mean=np.log(60), sigma=0.5, size=n_docs).astype(int), 5, 400)
    docs = []
    # in blocks, so that generating a large corpus holds strings, not a token array
    block = 10_000
    for lo in range(0, n_docs, block):
        hi = min(lo + block, n_docs)
        ids = rng.choice(vocab, size=int(lens[lo:hi].sum()), p=p).tolist()
        at = 0
        for i in range(lo, hi):
            n = int(lens[i])
            docs.append(Document(f"d{i}", " ".join([words[x] for x in ids[at : at + n]])))
            at += n
    # queries: 2-5 terms drawn from ranks 100..20000 (informative, not stopword-like)
    q_lens = rng.integers(2, 6, size=n_queries)
    queries = [
        Query(f"q{i}", " ".join(words[x] for x in rng.integers(100, 20_000, size=q_lens[i])))
        for i in range(n_queries)
    ]
    return docs, queries


def load_corpus(name: str, n_queries: int = 1000, seed: int = 0):
    """``(documents, queries, stem)`` of ``scifact``, ``nfcorpus``, ``trec-rag24`` or
    ``synthetic-N``."""
    from axiomatic.data.records import Document, Query

    if name == "scifact":
        from axiomatic.data.catalog import load_dataset

        ds = load_dataset("scifact/test")
        return list(ds.documents.values()), list(ds.queries.values()), True
    if name == "trec-rag24":
        from axiomatic.data.catalog import load_dataset

        ds = load_dataset("trec-rag24")  # the retrieved segments, each once; the 301 topics
        return list(ds.documents.values()), list(ds.queries.values()), True
    if name == "nfcorpus":
        from axiomatic.data.catalog import resolve_data_root

        raw = resolve_data_root() / "nfcorpus-original" / "raw"

        def rows(path: Path) -> list[tuple[str, str]]:
            with open(path, encoding="utf-8") as fh:
                return [tuple(line.rstrip("\n").split("\t", 1)) for line in fh if "\t" in line]  # type: ignore[misc]

        docs = [Document(i, t) for i, t in rows(raw / "test.docs")]
        queries = [Query(i, t) for i, t in rows(raw / "test.titles.queries")]
        return docs, queries, True
    if name.startswith("synthetic-"):
        docs, queries = synthetic_corpus(int(name.split("-", 1)[1]), n_queries, seed=seed)
        return docs, queries, False
    raise ValueError(
        f"unknown corpus {name!r}: expected scifact, nfcorpus, trec-rag24 or synthetic-N"
    )


def _stats(values: list[float], nd: int = 5) -> dict[str, float]:
    v = sorted(values)
    return {
        "median": round(float(np.median(v)), nd),
        "min": round(v[0], nd),
        "max": round(v[-1], nd),
    }


def _analyzer(stem: bool):
    from bm25s.stopwords import STOPWORDS_EN

    from axiomatic.text.analyzer import Analyzer

    return Analyzer(
        stopwords=frozenset(STOPWORDS_EN),
        token_pattern=r"(?u)\b\w\w+\b",
        stemmer="snowball" if stem else None,
    )


def _timed(fn: Any) -> tuple[float, float, Any]:
    gc.collect()
    w0, c0 = time.perf_counter(), time.process_time()
    out = fn()
    return time.perf_counter() - w0, time.process_time() - c0, out


def bench(
    name: str, docs, queries, stem: bool, k: int = 10, runs: int = 5, threads=(1, 2)
) -> dict[str, Any]:
    """Index and retrieval timings of ours and bm25s (numba, numpy) on one corpus."""
    import bm25s

    from axiomatic.index.collection import CollectionIndex
    from axiomatic.rankers import _bm25_kernel
    from axiomatic.rankers.lexical import BM25Ranker, LexicalRanker

    stemmer = None
    if stem:
        import Stemmer

        stemmer = Stemmer.Stemmer("english")
    texts = [unicodedata.normalize("NFKC", d.text) for d in docs]
    q_texts = [unicodedata.normalize("NFKC", q.text) for q in queries]
    compiled = _bm25_kernel.compiled() is not None
    out: dict[str, Any] = {
        "corpus": name,
        "docs": len(docs),
        "queries": len(queries),
        "k": k,
        "runs": runs,
        "retrieval_repetitions_per_run": REPS,
        "compiled_retrieval": compiled,
    }

    def ours_index() -> BM25Ranker:
        index = CollectionIndex.build(docs, _analyzer(stem), keep_texts=False)
        ranker = BM25Ranker(index, k1=0.9, b=0.4)
        if compiled:
            ranker.impacts()  # what the compiled retrieval reads
        else:
            ranker.weight_matrix()
        return ranker

    def bm25s_index(backend: str) -> Any:
        ref = bm25s.BM25(k1=0.9, b=0.4, method="lucene", backend=backend)
        tok = bm25s.tokenize(texts, stopwords="en", stemmer=stemmer, show_progress=False)
        ref.index(tok, show_progress=False)
        return ref

    def bm25s_retrieve(ref: Any, n_threads: int) -> Any:
        vocab = ref.vocab_dict
        q_tok = bm25s.tokenize(
            q_texts, stopwords="en", stemmer=stemmer, show_progress=False, return_ids=False
        )
        q_tok = [[t for t in q if t in vocab] or [next(iter(vocab))] for q in q_tok]
        return ref.retrieve(q_tok, k=k, show_progress=False, n_threads=n_threads)

    backends = ["numba", "numpy"]
    systems = ["ours", *backends]
    t_index: dict[str, dict[str, list[float]]] = {s: {"wall": [], "cpu": []} for s in systems}
    t_ret: dict[int, dict[str, dict[str, list[float]]]] = {
        n: {s: {"wall": [], "cpu": []} for s in systems} for n in threads
    }
    # JIT compilation (bm25s' and ours) before any timing
    t0 = time.perf_counter()
    warm = bm25s_index("numba")
    for n in threads:
        bm25s_retrieve(warm, n)
    out["bm25s_numba_warm_up_s"] = round(time.perf_counter() - t0, 2)
    ranker: BM25Ranker | None = None
    refs: dict[str, Any] = {}
    for _ in range(runs):
        for s in systems:
            if s == "ours":
                wall, cpu, ranker = _timed(ours_index)
            else:
                wall, cpu, refs[s] = _timed(lambda s=s: bm25s_index(s))
            t_index[s]["wall"].append(wall)
            t_index[s]["cpu"].append(cpu)
        assert ranker is not None
        # one untimed retrieval per fresh index and system: caches warm (the compiled kernels,
        # ours' surface-token map and per-ranker arrays, PyStemmer's cache that bm25s uses)
        t0 = time.perf_counter()
        for n in threads:
            ranker.retrieve_many(queries, k, n_threads=n)
        out.setdefault("ours_warm_up_s", round(time.perf_counter() - t0, 2))
        for b in backends:
            bm25s_retrieve(refs[b], 1)
        for n in threads:
            for _rep in range(REPS):
                for s in systems:
                    if s == "numpy" and n > 1:
                        continue
                    if s == "ours":
                        fn = lambda r=ranker, n=n: r.retrieve_many(queries, k, n_threads=n)  # noqa: E731
                    else:
                        fn = lambda s=s, n=n: bm25s_retrieve(refs[s], n)  # noqa: E731
                    wall, cpu, _res = _timed(fn)
                    t_ret[n][s]["wall"].append(wall)
                    t_ret[n][s]["cpu"].append(cpu)
    assert ranker is not None
    index = ranker.index
    for s in systems:
        row: dict[str, Any] = {
            "index_wall_s": _stats(t_index[s]["wall"], 3),
            "index_cpu_s": _stats(t_index[s]["cpu"], 3),
            "docs_per_cpu_s": round(len(docs) / float(np.median(t_index[s]["cpu"])), 1),
        }
        for n in threads:
            if not t_ret[n][s]["wall"]:
                continue
            row[f"retrieve_{n}t_wall_s"] = _stats(t_ret[n][s]["wall"])
            row[f"retrieve_{n}t_cpu_s"] = _stats(t_ret[n][s]["cpu"])
            row[f"queries_per_wall_s_{n}t"] = round(
                len(queries) / float(np.median(t_ret[n][s]["wall"])), 1
            )
        out["axiomatic" if s == "ours" else f"bm25s_{s}"] = row
    ratio: dict[str, Any] = {}
    for n in threads:
        for clock in ("cpu", "wall"):
            ours_t = np.asarray(t_ret[n]["ours"][clock])
            best = None
            for b in backends:
                if not t_ret[n][b][clock]:
                    continue
                # per alternating repetition: the peer's time over ours (> 1: ours faster)
                r = np.asarray(t_ret[n][b][clock]) / ours_t
                ratio[f"retrieve_{n}t_{clock}_vs_bm25s_{b}"] = _stats(r.tolist(), 3)
                if best is None or np.median(r) < best[1]:
                    best = (b, float(np.median(r)))
            assert best is not None
            ratio[f"retrieve_{n}t_{clock}_vs_fastest_bm25s"] = round(best[1], 3)
            ratio[f"fastest_bm25s_retrieve_{n}t_{clock}"] = best[0]
    for clock in ("cpu", "wall"):
        ours_t = np.asarray(t_index["ours"][clock])
        ratio[f"index_{clock}_vs_fastest_bm25s"] = round(
            min(float(np.median(np.asarray(t_index[b][clock]) / ours_t)) for b in backends), 3
        )
    out["ratio"] = ratio
    # the compiled path against the numpy one (exhaustive numpy scoring)
    rows, scores, n_hit = ranker.retrieve_many(queries, k)
    rows_np, scores_np, n_np = LexicalRanker.retrieve_many(ranker, queries, k)
    same = bool(np.array_equal(n_hit, n_np)) and all(
        np.array_equal(rows[i, : n_hit[i]], rows_np[i, : n_hit[i]]) for i in range(len(queries))
    )
    denom = np.maximum(np.abs(scores_np), 1e-300)
    out["scores_vs_numpy_form"] = {
        "max_rel_diff": float(np.max(np.abs(scores - scores_np) / denom)) if len(queries) else 0.0,
        "identical_top_k": same,
    }
    out["axiomatic"]["index_bytes"] = {
        "impacts": sum(int(a.nbytes) for a in ranker.impacts()),
        "counts_csr": _nbytes(index.tf),
        "positions": sum(int(a.nbytes) for a in index.token_slots) if index.token_slots else 0,
    }
    ref = refs["numba"]
    out["bm25s_numba"]["index_bytes"] = {
        "score_csc": sum(int(ref.scores[key].nbytes) for key in ("data", "indices", "indptr"))
    }
    # agreement of the first hits with bm25s (ties aside)
    first = bm25s_retrieve(ref, 1)[0]
    out["top1_agreement_with_bm25s"] = round(
        float(np.mean([n_hit[i] > 0 and rows[i, 0] == first[i][0] for i in range(len(queries))])),
        4,
    )
    return out


def _nbytes(m: Any) -> int:
    return int(m.data.nbytes + m.indices.nbytes + m.indptr.nbytes)


# ---------------------------------------------------------------------------- memory
def _rss_mb() -> tuple[float, float]:
    """(current, peak) resident set size of this process in MB (Linux ``/proc``)."""
    with open("/proc/self/status") as fh:
        d = {ln.split(":")[0]: int(ln.split()[1]) for ln in fh if ln.startswith(("VmRSS", "VmHWM"))}
    return d["VmRSS"] / 1024, d["VmHWM"] / 1024


def memory_child(
    system: str, corpus: str, seed: int = 0, preload_numba: bool = False
) -> dict[str, Any]:
    """One build in this (fresh) process, then one top-10 query: peak and resident size over
    the loaded data after the build, and both again after the query (the first retrieval loads
    numba and the compiled kernels, in both systems). ``preload_numba``: the warm-up also runs
    a query, so that numba and the kernels are loaded before the measurement in both systems
    (like for like whatever either loads at build time)."""
    import bm25s

    from axiomatic.data.records import Query
    from axiomatic.index.collection import CollectionIndex
    from axiomatic.rankers.lexical import BM25Ranker

    docs, _queries, stem = load_corpus(corpus, n_queries=0, seed=seed)
    texts = [unicodedata.normalize("NFKC", d.text) for d in docs]
    stemmer = None
    if stem:
        import Stemmer

        stemmer = Stemmer.Stemmer("english")

    def build(docs: list, texts: list[str]) -> Any:
        if system == "bm25s":
            tok = bm25s.tokenize(texts, stopwords="en", stemmer=stemmer, show_progress=False)
            ref = bm25s.BM25(k1=0.9, b=0.4, method="lucene", backend="numba")
            ref.index(tok, show_progress=False)
            return ref
        index = CollectionIndex.build(
            docs, _analyzer(stem), keep_texts=False, positions=system == "axiomatic"
        )
        ranker = BM25Ranker(index, k1=0.9, b=0.4)
        ranker.impacts()  # what retrieval reads
        return ranker

    query = " ".join(texts[0].split()[:8])

    def search(kept: Any) -> None:
        if system == "bm25s":
            q = bm25s.tokenize([query], stopwords="en", stemmer=stemmer, show_progress=False)
            kept.retrieve(q, k=10, show_progress=False, n_threads=1)
        else:
            kept.retrieve_many([Query("q", query)], 10)

    warm = build(docs[:50], texts[:50])  # imports and lazy set-up outside the measurement
    if preload_numba:
        search(warm)
    del warm
    gc.collect()
    with open("/proc/self/clear_refs", "w") as fh:  # resets the peak (VmHWM) to the current RSS
        fh.write("5")
    base, _ = _rss_mb()
    t0 = time.process_time()
    kept = build(docs, texts)
    cpu = time.process_time() - t0
    gc.collect()
    cur, peak = _rss_mb()
    search(kept)
    gc.collect()
    cur_q, peak_q = _rss_mb()
    del kept
    return {
        "system": system,
        "corpus": corpus,
        "docs": len(docs),
        "loaded_mb": round(base, 1),
        "peak_mb": round(peak - base, 1),
        "resident_mb": round(cur - base, 1),
        "build_cpu_s": round(cpu, 2),
        "query_peak_mb": round(peak_q - base, 1),
        "query_resident_mb": round(cur_q - base, 1),
        "preload_numba": preload_numba,
    }


def memory(
    corpus: str,
    runs: int = 3,
    seed: int = 0,
    systems: tuple[str, ...] = ("axiomatic", "axiomatic-no-positions", "bm25s"),
    preload_numba: bool = False,
) -> dict[str, Any]:
    """:func:`memory_child` for ours (with and without positions) and bm25s, ``runs`` times
    each, alternating, every build in a fresh process (``preload_numba``: see there)."""
    got: dict[str, list[dict[str, Any]]] = {s: [] for s in systems}
    env = dict(os.environ)
    src = str(HERE.parent / "src")
    env["PYTHONPATH"] = src + os.pathsep + env.get("PYTHONPATH", "")
    for _ in range(runs):
        for s in systems:
            cmd = [sys.executable, str(Path(__file__)), "--memory-child", s, corpus]
            cmd += ["--seed", str(seed)] + (["--memory-preload-numba"] if preload_numba else [])
            res = subprocess.run(cmd, capture_output=True, text=True, env=env, check=False)
            if res.returncode != 0:
                raise RuntimeError(f"memory child {s} {corpus} failed: {res.stderr[-2000:]}")
            got[s].append(json.loads(res.stdout))
    out: dict[str, Any] = {"corpus": corpus, "runs": runs, "preload_numba": preload_numba}
    keys = ("peak_mb", "resident_mb", "query_peak_mb", "query_resident_mb")
    for s in systems:
        out[s] = {"docs": got[s][0]["docs"]}
        out[s].update({key: _stats([g[key] for g in got[s]], 1) for key in keys})
        out[s]["build_cpu_s"] = _stats([g["build_cpu_s"] for g in got[s]], 2)
    if "bm25s" in out:
        ref = out["bm25s"]
        out["ratio_vs_bm25s"] = {
            f"{s}_{key}": round(out[s][key]["median"] / max(ref[key]["median"], 1e-9), 3)
            for s in systems
            if s != "bm25s"
            for key in keys
        }
    return out


# ---------------------------------------------------------------------------- the whole run
def _load() -> list[float]:
    return [round(x, 2) for x in os.getloadavg()]


def measure_bm25(
    corpora: tuple[str, ...] = ("scifact", "nfcorpus", "trec-rag24"),
    synthetic_docs: int = 100_000,
    synthetic_queries: int = 1000,
    runs: int = 5,
    threads: tuple[int, ...] = (1, 2),
    memory_runs: int = 3,
    memory_docs: tuple[int, ...] = (),
    seed: int = 0,
    memory_only: bool = False,
    preload_numba: bool = False,
) -> dict[str, Any]:
    """Every figure of this benchmark from one run (the JSON ``main`` prints).

    ``corpora``: real collections (skipped with a note when their data is absent);
    ``synthetic_docs``: size of the synthetic corpus (0: none); ``memory_runs``: fresh-process
    builds per system for the memory figures (0: none), on the same corpora;
    ``memory_docs``: extra synthetic sizes measured for memory only, ours only, one build each
    (e.g. 1,000,000); ``memory_only``: no timing, only the memory figures (every system, on
    the same corpora); ``preload_numba``: numba loaded before every memory measurement
    (:func:`memory_child`).
    """
    import bm25s
    import numba

    numba.set_num_threads(1)
    results: dict[str, Any] = {
        "python": sys.version.split()[0],
        "machine": platform.machine(),
        "processor": platform.processor() or platform.uname().machine,
        "cpus": os.cpu_count(),
        "numpy": np.__version__,
        "numba": numba.__version__,
        "bm25s": bm25s.__version__,
        "numba_cache": "kernels compiled or loaded from numba's on-disk cache before timing "
        "(warm-up times reported per corpus)",
        "load_before": _load(),
        "runs": [],
        "memory": [],
    }
    names = list(corpora) + ([f"synthetic-{synthetic_docs}"] if synthetic_docs else [])
    for name in names:
        try:
            docs, queries, stem = load_corpus(name, synthetic_queries, seed)
        except Exception as exc:  # data not present: report and go on
            results[f"{name}_skipped"] = f"{type(exc).__name__}: {exc}"
            continue
        if not memory_only:
            results["runs"].append(bench(name, docs, queries, stem, runs=runs, threads=threads))
        del docs, queries
        gc.collect()
        if memory_runs:
            results["memory"].append(memory(name, memory_runs, seed, preload_numba=preload_numba))
    for n in memory_docs:  # ours only (with and without positions): the large builds
        results["memory"].append(
            memory(
                f"synthetic-{n}", 1, seed, ("axiomatic", "axiomatic-no-positions"), preload_numba
            )
        )
    results["load_after"] = _load()
    return results


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--docs", type=int, default=100_000, help="synthetic corpus size (0: none)")
    ap.add_argument("--queries", type=int, default=1000, help="synthetic query count")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--runs", type=int, default=5, help="alternating runs (medians)")
    ap.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    ap.add_argument("--skip-scifact", action="store_true")
    ap.add_argument("--skip-nfcorpus", action="store_true")
    ap.add_argument("--skip-rag24", action="store_true", help="skip TREC RAG 2024 (trec-rag24)")
    ap.add_argument("--no-memory", action="store_true", help="skip the build-memory figures")
    ap.add_argument("--memory-runs", type=int, default=3)
    ap.add_argument(
        "--memory-docs", type=int, nargs="*", default=[], help="synthetic sizes, memory only"
    )
    ap.add_argument("--memory-only", action="store_true", help="only the build-memory figures")
    ap.add_argument(
        "--memory-preload-numba",
        action="store_true",
        help="load numba and the kernels before each memory measurement (both systems)",
    )
    ap.add_argument("--memory-child", nargs=2, metavar=("SYSTEM", "CORPUS"), help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.memory_child:
        child = memory_child(
            *args.memory_child, seed=args.seed, preload_numba=args.memory_preload_numba
        )
        print(json.dumps(child))
        return
    corpora = tuple(
        c
        for c, skip in (
            ("scifact", args.skip_scifact),
            ("nfcorpus", args.skip_nfcorpus),
            ("trec-rag24", args.skip_rag24),
        )
        if not skip
    )
    results = measure_bm25(
        corpora=corpora,
        synthetic_docs=args.docs,
        synthetic_queries=args.queries,
        runs=args.runs,
        threads=tuple(args.threads),
        memory_runs=0 if args.no_memory else args.memory_runs,
        memory_docs=tuple(args.memory_docs),
        seed=args.seed,
        memory_only=args.memory_only,
        preload_numba=args.memory_preload_numba,
    )
    print(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
