"""BM25 throughput and memory: axiomatic vs bm25s, side by side in one process (not run by CI).

Usage::

    .venv/bin/python benchmarks/bench_bm25.py [--docs 100000] [--queries 1000] [--skip-scifact]

Prints one JSON object. For each corpus (SciFact if the shared data is present, and a seeded
synthetic corpus with a Zipfian vocabulary) both systems index the same texts with the same
tokenization (bm25s' stopwords and token pattern; Snowball stemming on SciFact, none on the
synthetic corpus) and retrieve the top 10 for the same queries with k1=0.9, b=0.4 (Lucene BM25).

* ``index_s`` / ``docs_per_s``: tokenize + build the index (ours: ``CollectionIndex.build`` plus the
  BM25 weight matrix that retrieval uses; bm25s: ``bm25s.tokenize`` + ``BM25.index``);
* ``retrieve_s`` / ``queries_per_s``: analyze the queries and retrieve top 10 (single thread);
* ``index_bytes``: bytes of the sparse arrays (ours: the int32 count CSR and, separately, the
  float64 BM25 weight matrix; bm25s: its float32 score CSC);
* ``bm25s_numba``: bm25s with ``backend="numba"`` (its fastest CPU backend; single thread, JIT
  compiled and warmed up before timing) when numba is importable, else a ``skipped`` note;
* ``ratio``: ours / bm25s for throughputs (> 1 = ours faster) and memory;
  ``retrieve_queries_per_s_vs_fastest_bm25s`` is against the faster of bm25s' two backends, the
  strongest peer a user could pick.
"""

from __future__ import annotations

import argparse
import gc
import json
import platform
import sys
import time
import unicodedata
from typing import Any

import numpy as np


def _nbytes(m: Any) -> int:
    return int(m.data.nbytes + m.indices.nbytes + m.indptr.nbytes)


def synthetic_corpus(n_docs: int, n_queries: int, vocab: int = 200_000, seed: int = 0):
    """Seeded corpus: Zipf(1.1) term ranks, log-normal document lengths (median ~60 tokens)."""
    from axiomatic.data.records import Document, Query

    rng = np.random.default_rng(seed)
    ranks = np.arange(1, vocab + 1, dtype=np.float64)
    p = ranks**-1.1
    p /= p.sum()
    words = np.array([f"t{i:x}" for i in range(vocab)])
    lens = np.clip(rng.lognormal(mean=np.log(60), sigma=0.5, size=n_docs).astype(int), 5, 400)
    tokens = words[rng.choice(vocab, size=int(lens.sum()), p=p)]
    bounds = np.concatenate([[0], np.cumsum(lens)])
    docs = [
        Document(f"d{i}", " ".join(tokens[bounds[i] : bounds[i + 1]].tolist()))
        for i in range(n_docs)
    ]
    # queries: 2-5 terms drawn from ranks 100..20000 (informative, not stopword-like)
    q_lens = rng.integers(2, 6, size=n_queries)
    queries = [
        Query(f"q{i}", " ".join(words[rng.integers(100, 20_000, size=q_lens[i])].tolist()))
        for i in range(n_queries)
    ]
    return docs, queries


def bench(name: str, docs, queries, stem: bool, k: int = 10) -> dict[str, Any]:
    import bm25s
    from bm25s.stopwords import STOPWORDS_EN

    from axiomatic.index.collection import CollectionIndex
    from axiomatic.rankers.lexical import BM25Ranker
    from axiomatic.text.analyzer import Analyzer

    stemmer = None
    if stem:
        import Stemmer

        stemmer = Stemmer.Stemmer("english")
    texts = [unicodedata.normalize("NFKC", d.text) for d in docs]
    q_texts = [unicodedata.normalize("NFKC", q.text) for q in queries]
    out: dict[str, Any] = {"corpus": name, "docs": len(docs), "queries": len(queries), "k": k}

    # --- ours
    analyzer = Analyzer(
        stopwords=frozenset(STOPWORDS_EN),
        token_pattern=r"(?u)\b\w\w+\b",
        stemmer="snowball" if stem else None,
    )
    gc.collect()
    t0 = time.perf_counter()
    index = CollectionIndex.build(docs, analyzer, keep_texts=False)
    ranker = BM25Ranker(index, k1=0.9, b=0.4)
    ranker.weight_matrix()
    t_index = time.perf_counter() - t0
    t0 = time.perf_counter()
    ours_run = {q.query_id: ranker.retrieve(q, k) for q in queries}
    t_ret = time.perf_counter() - t0
    ours = {
        "index_s": round(t_index, 3),
        "docs_per_s": round(len(docs) / t_index, 1),
        "retrieve_s": round(t_ret, 3),
        "queries_per_s": round(len(queries) / t_ret, 1),
        "index_bytes_counts_csr": _nbytes(index.tf),
        "index_bytes_bm25_weights": _nbytes(ranker.weight_matrix()),
    }

    # --- bm25s
    gc.collect()
    t0 = time.perf_counter()
    tok = bm25s.tokenize(texts, stopwords="en", stemmer=stemmer, show_progress=False)
    ref = bm25s.BM25(k1=0.9, b=0.4, method="lucene")
    ref.index(tok, show_progress=False)
    t_index_ref = time.perf_counter() - t0
    t0 = time.perf_counter()
    q_tok = bm25s.tokenize(
        q_texts, stopwords="en", stemmer=stemmer, show_progress=False, return_ids=False
    )
    vocab = ref.vocab_dict
    q_tok = [[t for t in q if t in vocab] or [next(iter(vocab))] for q in q_tok]
    res, _scores = ref.retrieve(q_tok, k=k, show_progress=False, n_threads=1)
    t_ret_ref = time.perf_counter() - t0
    ref_bytes = sum(int(ref.scores[key].nbytes) for key in ("data", "indices", "indptr"))
    theirs = {
        "index_s": round(t_index_ref, 3),
        "docs_per_s": round(len(docs) / t_index_ref, 1),
        "retrieve_s": round(t_ret_ref, 3),
        "queries_per_s": round(len(queries) / t_ret_ref, 1),
        "index_bytes_scores_csc": ref_bytes,
    }
    numba_run = _bm25s_numba(tok, q_texts, stemmer, len(docs), k, res)
    # agreement of the top-1 documents (ties aside)
    ids = index.doc_ids
    same_top1 = np.mean(
        [
            bool(ours_run[q.query_id]) and ours_run[q.query_id][0][0] == ids[int(res[i][0])]
            for i, q in enumerate(queries)
        ]
    )
    out["axiomatic"] = ours
    out["bm25s"] = theirs
    out["bm25s_numba"] = numba_run
    # the strongest peer: bm25s' faster backend (numba when importable, else numpy)
    fastest = theirs
    if "queries_per_s" in numba_run and numba_run["queries_per_s"] > theirs["queries_per_s"]:
        fastest = numba_run
    out["ratio"] = {
        "index_docs_per_s": round(ours["docs_per_s"] / theirs["docs_per_s"], 3),
        "retrieve_queries_per_s": round(ours["queries_per_s"] / theirs["queries_per_s"], 3),
        "retrieve_queries_per_s_vs_numba": (
            round(ours["queries_per_s"] / numba_run["queries_per_s"], 3)
            if "queries_per_s" in numba_run
            else None
        ),
        "retrieve_queries_per_s_vs_fastest_bm25s": round(
            ours["queries_per_s"] / fastest["queries_per_s"], 3
        ),
        "fastest_bm25s_backend": "numba" if fastest is numba_run else "numpy",
        "bytes_counts_csr_vs_bm25s": round(ours["index_bytes_counts_csr"] / ref_bytes, 3),
        "bytes_counts_plus_weights_vs_bm25s": round(
            (ours["index_bytes_counts_csr"] + ours["index_bytes_bm25_weights"]) / ref_bytes, 3
        ),
    }
    out["top1_agreement"] = round(float(same_top1), 4)
    return out


def _bm25s_numba(
    tok: Any, q_texts: list[str], stemmer: Any, n_docs: int, k: int, numpy_res: Any
) -> dict[str, Any]:
    """bm25s with its numba backend (its fastest on CPU), single thread; a note instead when
    numba is not importable (it is not a dependency of this project: ``pip install numba``).

    JIT compilation is timed apart (``compile_s``) and a warm-up query runs before the timed
    retrieval, so ``queries_per_s`` is the steady state a user sees. Timed like the numpy
    backend: query tokenization included. ``same_top1_as_numpy``: share of queries whose first
    hit equals the numpy backend's.
    """
    try:
        import numba
    except ImportError:
        return {"skipped": "numba is not importable (pip install numba to add this column)"}
    import bm25s

    numba.set_num_threads(1)
    t0 = time.perf_counter()
    ref = bm25s.BM25(k1=0.9, b=0.4, method="lucene", backend="numba")
    compile_s = time.perf_counter() - t0
    gc.collect()
    t0 = time.perf_counter()
    ref.index(tok, show_progress=False)
    t_index = time.perf_counter() - t0
    vocab = ref.vocab_dict
    warm = [[next(iter(vocab))]]
    ref.retrieve(warm, k=k, show_progress=False, n_threads=1)  # warm-up (JIT)
    t0 = time.perf_counter()
    q_tok = bm25s.tokenize(
        q_texts, stopwords="en", stemmer=stemmer, show_progress=False, return_ids=False
    )
    q_tok = [[t for t in q if t in vocab] or [next(iter(vocab))] for q in q_tok]
    res, _scores = ref.retrieve(q_tok, k=k, show_progress=False, n_threads=1)
    t_ret = time.perf_counter() - t0
    return {
        "numba": numba.__version__,
        "compile_s": round(compile_s, 3),
        "index_s": round(t_index, 3),
        "docs_per_s": round(n_docs / t_index, 1),
        "retrieve_s": round(t_ret, 3),
        "queries_per_s": round(len(q_tok) / t_ret, 1),
        "same_top1_as_numpy": round(float(np.mean(res[:, 0] == numpy_res[:, 0])), 4),
    }


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--docs", type=int, default=100_000, help="synthetic corpus size")
    ap.add_argument("--queries", type=int, default=1000, help="synthetic query count")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--skip-scifact", action="store_true")
    args = ap.parse_args(argv)
    import bm25s

    results: dict[str, Any] = {
        "python": sys.version.split()[0],
        "machine": platform.machine(),
        "bm25s": bm25s.__version__,
        "runs": [],
    }
    if not args.skip_scifact:
        try:
            from axiomatic.data.catalog import load_dataset

            ds = load_dataset("scifact/test")
            results["runs"].append(
                bench("scifact", list(ds.documents.values()), list(ds.queries.values()), stem=True)
            )
        except Exception as exc:  # data not present: report and go on
            results["scifact_skipped"] = f"{type(exc).__name__}: {exc}"
    t0 = time.perf_counter()
    docs, queries = synthetic_corpus(args.docs, args.queries, seed=args.seed)
    results["synthetic_generation_s"] = round(time.perf_counter() - t0, 2)
    results["runs"].append(bench(f"synthetic-zipf-{args.docs}", docs, queries, stem=False))
    print(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
