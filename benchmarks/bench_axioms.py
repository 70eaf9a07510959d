"""Axiom engine benchmarks (prints JSON).

1. Side by side with ir_axioms 1.2.5 (its own venv, benchmarks/ir_axioms_ref/setup.sh): every
   shared retrieval axiom on one query with 100 and 1,000 candidates (BM25 top-k of SciFact by
   default); wall time of both and agreement of the preference matrices. Each axiom is timed
   once, in catalogue order, on one fresh query context per size (work the context caches,
   such as count codes or positions, counts toward the first axiom that asks for it, and the
   context's construction toward the totals); compiled kernels (numba, the ``fast`` extra) are
   compiled or loaded before timing, and that one-off cost is reported as ``ours.jit``; the
   term-vector table of the semantic axioms is normalized before timing, as ir_axioms' is,
   and reported as ``ours.similarity_table_s``.
2. Mining throughput (pairs examined per second, one process = one core) and peak memory on
   ``msmarco-dev-top20`` and on a synthetic collection of 1,000-candidate queries. Each run's
   ``readme_figure`` is the README's "Measured" text: candidate pairs (ordered document pairs
   of a query's candidates) per second in millions and the peak RSS
   (``candidate_pairs_per_second``, ``peak_rss_mb``; rounded as the text has them:
   ``million_candidate_pairs_per_second``, ``peak_rss_mb_rounded``). ``mine`` prints every
   run's and, at the top, both per source (the README's row is ``synthetic-1000x1000``).

    .venv/bin/python benchmarks/bench_axioms.py compare --sizes 100 1000
    .venv/bin/python benchmarks/bench_axioms.py compare --sizes 100 --runs 5   # medians
    .venv/bin/python benchmarks/bench_axioms.py compare --runs 3 --runs-at 100=9   # 9 at 100
    .venv/bin/python benchmarks/bench_axioms.py mine --synthetic-queries 20
"""

from __future__ import annotations

import os

# one process, one core, on both sides: numpy's BLAS (STMC1's products) would otherwise spin a
# thread per core and count its CPU time twice; set before numpy loads (run.py sets the same)
for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import argparse  # noqa: E402
import json  # noqa: E402
import resource  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402

HERE = Path(__file__).resolve().parent
REF_PY = HERE / "ir_axioms_ref" / ".venv" / "bin" / "python"
REF_SCRIPT = HERE / "ir_axioms_ref" / "run_ir_axioms.py"

# ours spec -> ir_axioms name, and whether the definitions coincide
SHARED = {
    "TFC1": ("TFC1", False),  # thesis TFC1 (per-term >=, sum >) vs ir_axioms sum with 10% margin
    "TFC3(delta_rel=None)": ("TFC3", True),  # ir_axioms 1.2.5 skips LEN in TFC3
    "M-TDC": ("M-TDC", False),  # thesis eq. 3.9 vs ir_axioms' pair-scoring M-TDC
    "LNC1": ("LNC1", True),
    "TF-LNC": ("TF-LNC", True),
    "LB1": ("LB1", True),
    "PROX1": ("PROX1", True),
    "PROX2": ("PROX2", True),
    "PROX3": ("PROX3", True),
    "PROX4": ("PROX4", True),
    "PROX5": ("PROX5", True),
    "REG(delta_rel=None)": ("REG", True),  # ir_axioms 1.2.5 skips LEN in REG
    "AND": ("AND", True),
    "LEN-AND": ("LEN-AND", True),
    "M-AND": ("M-AND", True),
    "LEN-M-AND": ("LEN-M-AND", True),
    "DIV": ("DIV", True),
    "LEN-DIV": ("LEN-DIV", True),
    "STMC1": ("STMC1", True),
    "STMC2": ("STMC2", False),  # ours: ratio test on the single most similar pair
}
OURS_ONLY = ["TFC2", "LNC2", "TDC", "LB2", "STMC3"]


def _candidates(dataset: str, size: int, query_index: int):
    from axiomatic.data.catalog import load_dataset
    from axiomatic.index.cache import dataset_index
    from axiomatic.rankers.lexical import BM25Ranker

    ds = load_dataset(dataset)
    idx = dataset_index(ds)
    bm = BM25Ranker(idx)
    qs = list(ds.queries.values())
    q = qs[query_index % len(qs)]
    hits = bm.retrieve(q, size)
    docs = [ds.documents[d] for d, _ in hits]
    scores = np.asarray([s for _, s in hits])
    return q, docs, scores, idx


def _vectors(terms: list[str]) -> dict[str, np.ndarray]:
    from axiomatic.axioms.similarity import MiniLMSimilarity

    sim = MiniLMSimilarity()
    return {t: sim._vector(t).astype(np.float32) for t in terms}


def compare_runs(args: argparse.Namespace) -> dict:
    """``compare`` in ``args.runs`` fresh processes (both libraries each time), per size the
    median, minimum and maximum of every time over the runs.

    One run times each axiom once, cold, at a scale (0.05-1 ms per axiom at 100 candidates) where
    a single timing moves by 20-30 % with whatever else the machine does; the median of a few
    runs is the figure that reproduces, and the spread says how much it moved. The runs
    alternate which library goes first (odd runs: ours, then ir_axioms, per size; even runs:
    ir_axioms first), so that neither always runs on a machine the other just warmed or
    loaded.

    Keys, per size (``ours`` and ``ir_axioms`` alike): ``shared_axioms_s`` is the median over
    the runs, ``shared_axioms_s_min`` / ``shared_axioms_s_max`` its spread,
    ``runs_shared_axioms_s`` every run; per axiom ``seconds`` (median), ``seconds_min``,
    ``seconds_max``. Speed-ups: ``speedup_median`` / ``speedup_min`` / ``speedup_max`` over the
    runs' own ratios (each run times both libraries back to back, ``runs_speedup``),
    ``speedup_shared`` the ratio of the medians; per axiom the same under ``agreement``
    (``ref_seconds*``, ``ours_seconds*``, ``speedup_median``, ``speedup_min``,
    ``speedup_max``). Agreement comes from the first run (it is the same in every run: the
    matrices are deterministic). ``--runs 1`` runs in this process and reports the same keys
    (median = min = max)."""
    wanted = {size: max(args.runs, (args.runs_at or {}).get(size, 0)) for size in args.sizes}
    if max(wanted.values()) <= 1:
        return aggregate_runs([compare(args)["results"]], 1)
    base = [sys.executable, str(Path(__file__).resolve()), "compare-one"]
    base += ["--dataset", args.dataset, "--query-index", str(args.query_index)]
    base += ["--ref-timeout", str(args.ref_timeout)]
    if args.skip_ref:
        base.append("--skip-ref")
    # per size its entries over the runs; a run covers every size that wants another one
    # (``--runs-at``: more runs of the small sizes, which cost seconds where 1,000 costs minutes)
    entries: dict[int, list[dict]] = {size: [] for size in args.sizes}
    total = max(wanted.values())
    for k in range(total):
        sizes = [size for size in args.sizes if wanted[size] > k]
        order = ["--ref-first"] if k % 2 else []
        proc = subprocess.run(
            [*base, "--sizes", *map(str, sizes), *order], capture_output=True, text=True
        )
        if proc.returncode != 0:
            raise SystemExit(f"run {k + 1} of {total} failed:\n{proc.stderr[-3000:]}")
        for entry in json.loads(proc.stdout)["results"]:
            entries[entry["candidates"]].append(entry)
    results = [
        aggregate_runs([[e] for e in entries[size]], len(entries[size]))["results"][0]
        for size in args.sizes
    ]
    return {"benchmark": "axioms_vs_ir_axioms", "runs": args.runs, "results": results}


def _spread(values: list[float], key: str) -> dict[str, float]:
    """``{key: median, key_min: min, key_max: max}`` of ``values``."""
    return {
        key: float(np.median(values)),
        f"{key}_min": float(min(values)),
        f"{key}_max": float(max(values)),
    }


def aggregate_runs(runs: list[list[dict]], n_runs: int) -> dict:
    """Per size, medians and spreads over the runs' results (keys: :func:`compare_runs`)."""
    results = []
    for k, first in enumerate(runs[0]):
        entries = [r[k] for r in runs]
        ours = dict(first["ours"])
        for key in (
            "context_build_s",
            "similarity_table_s",
            "shared_axioms_s",
            "shared_axioms_cpu_s",
            "all_axioms_s",
        ):
            ours.update(_spread([e["ours"][key] for e in entries], key))
        ours["per_axiom"] = {
            spec: {
                **v,
                **_spread([e["ours"]["per_axiom"][spec]["seconds"] for e in entries], "seconds"),
                **_spread(
                    [e["ours"]["per_axiom"][spec]["cpu_seconds"] for e in entries], "cpu_seconds"
                ),
            }
            for spec, v in first["ours"]["per_axiom"].items()
        }
        ours["runs_shared_axioms_s"] = [e["ours"]["shared_axioms_s"] for e in entries]
        ours["runs_jit"] = [e["ours"]["jit"] for e in entries]
        entry = {**first, "ours": ours, "runs": n_runs}
        entry["ref_first"] = [bool(e.get("ref_first", False)) for e in entries]
        if all("agreement" in e for e in entries):
            ref = dict(first["ir_axioms"])
            for key in ("shared_axioms_s", "shared_axioms_cpu_s", "import_s"):
                ref.update(_spread([e["ir_axioms"][key] for e in entries], key))
            ref["runs_shared_axioms_s"] = [e["ir_axioms"]["shared_axioms_s"] for e in entries]
            entry["ir_axioms"] = ref
            agreement = {}
            for spec, a in first["agreement"].items():
                refs = [e["agreement"][spec]["ref_seconds"] for e in entries]
                mine = [e["ours"]["per_axiom"][spec]["seconds"] for e in entries]
                ratios = [r / max(o, 1e-12) for r, o in zip(refs, mine, strict=True)]
                sp = _spread(ratios, "speedup")
                ref_cpu = [e["agreement"][spec]["ref_cpu_seconds"] for e in entries]
                mine_cpu = [e["ours"]["per_axiom"][spec]["cpu_seconds"] for e in entries]
                cpu_ratios = [r / max(o, 1e-12) for r, o in zip(ref_cpu, mine_cpu, strict=True)]
                sc = _spread(cpu_ratios, "speedup_cpu")
                agreement[spec] = {
                    **a,
                    **_spread(refs, "ref_seconds"),
                    **_spread(mine, "ours_seconds"),
                    **_spread(ref_cpu, "ref_cpu_seconds"),
                    **_spread(mine_cpu, "ours_cpu_seconds"),
                    "speedup_median": sp["speedup"],
                    "speedup_min": sp["speedup_min"],
                    "speedup_max": sp["speedup_max"],
                    "speedup_cpu_median": sc["speedup_cpu"],
                    "speedup_cpu_min": sc["speedup_cpu_min"],
                    "speedup_cpu_max": sc["speedup_cpu_max"],
                }
            entry["agreement"] = agreement
            # the slowest axiom relative to ir_axioms, by the medians of the runs' own ratios
            for key in ("speedup_median", "speedup_cpu_median"):
                low = min(agreement, key=lambda k, key=key: agreement[k][key])
                entry[f"slowest_axiom_{key.removesuffix('_median')}"] = {
                    "axiom": low,
                    "median": agreement[low][key],
                }
            per_run = [
                e["ir_axioms"]["shared_axioms_s"] / max(e["ours"]["shared_axioms_s"], 1e-12)
                for e in entries
            ]
            sp = _spread(per_run, "speedup")
            entry["speedup_median"] = sp["speedup"]
            entry["speedup_min"] = sp["speedup_min"]
            entry["speedup_max"] = sp["speedup_max"]
            entry["runs_speedup"] = per_run
            entry["speedup_shared"] = ref["shared_axioms_s"] / ours["shared_axioms_s"]
            entry["speedup_shared_cpu"] = ref["shared_axioms_cpu_s"] / ours["shared_axioms_cpu_s"]
            per_run_cpu = [
                e["ir_axioms"]["shared_axioms_cpu_s"] / max(e["ours"]["shared_axioms_cpu_s"], 1e-12)
                for e in entries
            ]
            sc = _spread(per_run_cpu, "speedup_cpu")
            entry["speedup_cpu_median"] = sc["speedup_cpu"]
            entry["speedup_cpu_min"] = sc["speedup_cpu_min"]
            entry["speedup_cpu_max"] = sc["speedup_cpu_max"]
        else:
            errors = [e["ir_axioms"] for e in entries if "error" in e.get("ir_axioms", {})]
            if errors:
                entry["ir_axioms"] = errors[0]
        results.append(entry)
    return {"benchmark": "axioms_vs_ir_axioms", "runs": n_runs, "results": results}


def compare_one(args: argparse.Namespace) -> dict:
    """One run of ``compare``, not aggregated (what ``compare --runs N`` runs N times)."""
    return compare(args)


def _ref_run(args: argparse.Namespace, size: int, export: dict) -> dict:
    """ir_axioms 1.2.5 (its own venv, its own process) on the exported query: its timings and
    preference matrices, or ``{"error": ...}``."""
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(args.export_dir) / str(size) if args.export_dir else Path(tmp)
        exp, out = base / "export", base / "out"
        exp.mkdir(parents=True, exist_ok=True)
        (exp / "query.json").write_text(json.dumps(export["query"]))
        np.savez(exp / "vectors.npz", terms=export["terms"], vectors=export["vectors"])
        t0 = time.perf_counter()
        names = [SHARED[s][0] for s in SHARED]
        proc = subprocess.run(
            [str(REF_PY), str(REF_SCRIPT), str(exp), str(out), *names],
            capture_output=True,
            text=True,
            timeout=args.ref_timeout,
        )
        wall = time.perf_counter() - t0
        if proc.returncode != 0:
            return {"error": proc.stderr[-2000:]}
        tim = json.loads((out / "timings.json").read_text())
        with np.load(out / "preferences.npz") as ref:
            mats = {k: ref[k] for k in ref.files}
    return {"timings": tim, "matrices": mats, "wall": wall}


def numba_cache_state(module) -> str:
    """What the compiled kernels of ``module`` start from in this process: ``"empty"`` (no
    index file of numba's disk cache beside it: the warm-up compiles every kernel, tens of
    seconds), ``"stale"`` (index files, but one or more kernels without one written after the
    module's source last changed: those compile again), ``"fresh"`` (every kernel has an index
    file newer than the source: the warm-up loads them, about a second)."""
    path = Path(module.__file__)
    folder = path.parent / "__pycache__"
    names = {k.split("@")[0] for k in getattr(module, "KERNELS", {})}
    changed = path.stat().st_mtime
    files = {n: list(folder.glob(f"{path.stem}.{n}-*.nbi")) for n in names}
    if not any(files.values()):
        return "empty"
    fresh = all(any(f.stat().st_mtime >= changed for f in fs) for fs in files.values())
    return "fresh" if fresh else "stale"


def compare(args: argparse.Namespace) -> dict:
    """One run: per size, ours (every axiom once, on one fresh context) then ir_axioms (its own
    process), or ir_axioms first with ``--ref-first``."""
    from axiomatic.axioms import QueryContext, parse_axiom
    from axiomatic.axioms.kernels import _jit
    from axiomatic.axioms.similarity import VectorSimilarity

    # compiled kernels (the `fast` extra) compile or load from their disk cache once per
    # process: timed here, apart from the axioms, as ir_axioms' import is (``import_s``)
    jit = {"cache": numba_cache_state(_jit), **_jit.warm_up()}
    ref_first = bool(getattr(args, "ref_first", False))
    use_ref = not args.skip_ref and REF_PY.exists()
    results = []
    for size in args.sizes:
        q, docs, scores, idx = _candidates(args.dataset, size, args.query_index)
        an = idx.analyzer
        doc_tokens = [an.analyze(d.text) for d in docs]
        vocab = sorted({t for toks in doc_tokens for t in toks} | set(an.analyze(q.text)))
        vectors = _vectors(vocab)
        export = _export(q, docs, doc_tokens, scores, idx, vocab, vectors) if use_ref else {}
        ref = _ref_run(args, size, export) if use_ref and ref_first else None
        # the normalized vector table and the table rows of the index vocabulary are the
        # similarity's one-off cost (shared by every query of the collection), built here and
        # reported apart, as ir_axioms' vector table is normalized before its timings start
        # (run_ir_axioms.py)
        t_sim = time.perf_counter()
        sim = VectorSimilarity(vectors).prepare(idx.terms)
        sim_s = time.perf_counter() - t_sim
        ours: dict[str, dict] = {}
        t_all, c_all = time.perf_counter(), time.process_time()
        ctx = QueryContext.build(q, docs, idx, similarity=sim, scores=scores)
        build_s = time.perf_counter() - t_all
        build_cpu = time.process_time() - c_all
        mats = {}
        for spec in list(SHARED) + OURS_ONLY:
            ax = parse_axiom(spec)
            t0, c0 = time.perf_counter(), time.process_time()
            if ax.arity == 3:
                inst = ax.instances(ctx)
                ours[spec] = {
                    "seconds": time.perf_counter() - t0,
                    "cpu_seconds": time.process_time() - c0,
                    "instances": len(inst.i),
                }
            else:
                mats[spec] = ax.preferences(ctx)
                ours[spec] = {
                    "seconds": time.perf_counter() - t0,
                    "cpu_seconds": time.process_time() - c0,
                    "preferences": int((mats[spec] > 0).sum()),
                }
        ours_shared_s = build_s + sum(ours[s]["seconds"] for s in SHARED)
        ours_shared_cpu = build_cpu + sum(ours[s]["cpu_seconds"] for s in SHARED)
        ours_total_s = time.perf_counter() - t_all
        entry: dict = {
            "dataset": args.dataset,
            "query_id": q.query_id,
            "query": q.text,
            "candidates": size,
            "ref_first": ref_first,
            "ours": {
                "context_build_s": build_s,
                "jit": jit,
                "similarity_table_s": sim_s,
                "shared_axioms_s": ours_shared_s,
                "shared_axioms_cpu_s": ours_shared_cpu,
                "all_axioms_s": ours_total_s,
                "per_axiom": ours,
            },
        }
        if use_ref and ref is None:
            ref = _ref_run(args, size, export)
        if not use_ref:  # say so: a table without the peer must not pass for a comparison
            entry["ir_axioms"] = {
                "skipped": "--skip-ref"
                if args.skip_ref
                else f"{REF_PY} is missing: run benchmarks/ir_axioms_ref/setup.sh"
            }
        if ref is not None and "error" in ref:
            entry["ir_axioms"] = {"error": ref["error"]}
        elif ref is not None:
            tim = ref["timings"]
            agree = {}
            for spec, (name, same_def) in SHARED.items():
                ref_m = ref["matrices"][name.replace("-", "_")]
                our_m = mats[spec]
                off = ~np.eye(len(our_m), dtype=bool)
                diff = (ref_m != our_m) & off
                agree[spec] = {
                    "ir_axioms": name,
                    "same_definition": same_def,
                    "agreement": float(1 - diff.sum() / max(off.sum(), 1)),
                    "disagreeing_pairs": int(diff.sum()),
                    "ref_seconds": tim["axioms"][name],
                    "ours_seconds": ours[spec]["seconds"],
                    "ref_cpu_seconds": tim["cpu"][name],
                    "ours_cpu_seconds": ours[spec]["cpu_seconds"],
                }
            ref_total = sum(tim["axioms"].values())
            ref_cpu = sum(tim["cpu"].values())
            entry["ir_axioms"] = {
                "shared_axioms_s": ref_total,
                "subprocess_wall_s": ref["wall"],
                "import_s": tim["import_s"],
                "shared_axioms_cpu_s": ref_cpu,
            }
            entry["speedup_shared"] = ref_total / max(ours_shared_s, 1e-9)
            entry["speedup_shared_cpu"] = ref_cpu / max(ours_shared_cpu, 1e-9)
            entry["agreement"] = agree
        results.append(entry)
    return {"benchmark": "axioms_vs_ir_axioms", "results": results}


def _export(q, docs, doc_tokens, scores, idx, vocab, vectors) -> dict:
    """What run_ir_axioms.py reads: the query, its candidates with our tokens and base scores,
    the index statistics (document frequencies, idf) and the term vectors."""
    an = idx.analyzer
    terms = sorted(set(vocab))
    tids = idx.term_ids(terms)
    df = {t: int(idx.df[i]) if i >= 0 else 0 for t, i in zip(terms, tids, strict=True)}
    N = idx.n_docs
    idf = {t: float(np.log((N + 1.0) / (df[t] + 0.5))) for t in terms}
    return {
        "query": {
            "query": q.text,
            "query_tokens": an.analyze(q.text),
            "n_docs": N,
            "df": df,
            "idf": idf,
            "docs": [
                {"doc_id": d.doc_id, "text": d.text, "tokens": toks, "score": float(s)}
                for d, toks, s in zip(docs, doc_tokens, scores, strict=True)
            ],
        },
        "terms": np.asarray(terms),
        "vectors": np.stack([vectors[t] for t in terms]),
    }


# ---------------------------------------------------------------------- mining
def _synthetic(n_queries: int, n_cands: int, seed: int = 0):
    from axiomatic.data.records import Dataset, Document, Query

    rng = np.random.default_rng(seed)
    V = 5000
    words = [f"w{i}" for i in range(V)]
    p = 1.0 / np.arange(1, V + 1) ** 1.1
    p /= p.sum()
    n_docs = n_cands * 4
    lens = rng.integers(20, 120, size=n_docs)
    docs = {}
    for i in range(n_docs):
        toks = rng.choice(V, size=lens[i], p=p)
        docs[f"d{i}"] = Document(f"d{i}", " ".join(words[t] for t in toks))
    queries, cands = {}, {}
    for qi in range(n_queries):
        qt = rng.choice(np.arange(20, 400), size=rng.integers(2, 5), replace=False)
        queries[f"q{qi}"] = Query(f"q{qi}", " ".join(words[t] for t in qt))
        cands[f"q{qi}"] = [f"d{i}" for i in rng.choice(n_docs, size=n_cands, replace=False)]
    return Dataset(
        name=f"synthetic-{n_queries}x{n_cands}", queries=queries, documents=docs, candidates=cands
    )


def mine_one(args: argparse.Namespace) -> dict:
    """One mining run in this process (so that ru_maxrss is this run's peak)."""
    from axiomatic.diagnose.mining import mine
    from axiomatic.index.cache import dataset_index
    from axiomatic.text.analyzer import Analyzer

    if args.source == "synthetic":
        ds = _synthetic(args.synthetic_queries, args.synthetic_candidates)
        idx = dataset_index(ds, analyzer=Analyzer(stopwords=False, stemmer=None), cache_dir=False)
    else:
        from axiomatic.data.catalog import load_dataset

        ds = load_dataset(args.source)
        if args.max_queries:
            ds = ds.subset(list(ds.queries)[: args.max_queries])
        idx = dataset_index(ds)
    rss0 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    with tempfile.TemporaryDirectory() as tmp:
        t0 = time.perf_counter()
        s = mine(
            ds,
            args.axioms,
            tmp,
            index=idx,
            shard_size=50,
            progress=False,
            max_instances_per_query=args.cap,
        )
        secs = time.perf_counter() - t0
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    pairs = sum(len(ds.candidate_ids(q)) * (len(ds.candidate_ids(q)) - 1) for q in ds.queries)
    return {
        "source": ds.name,
        "queries": len(ds.queries),
        "candidates_per_query": float(np.mean([len(ds.candidate_ids(q)) for q in ds.queries])),
        "axioms": args.axioms,
        "seconds": secs,
        "instances": s["instances"],
        "per_axiom": s["per_axiom"],
        "candidate_pairs": pairs,
        "pairs_per_axiom_per_second": pairs * len(args.axioms.split(",")) / secs,
        "candidate_pairs_per_second": pairs / secs,
        # the figure's two numbers as printed there (README: "3.6M pairs/s ..., 586 MB peak")
        "million_candidate_pairs_per_second": round(pairs / secs / 1e6, 1),
        "peak_rss_mb_rounded": round(rss / 1024),
        "tuples_examined": s["pairs_examined"],
        "peak_rss_mb": rss / 1024,
        "rss_before_mining_mb": rss0 / 1024,
        "skips": s["skips"],
        # the README's "Measured" figure, as it prints there
        "readme_figure": f"{pairs / secs / 1e6:.1f}M pairs/s on one core, {rss / 1024:.0f} MB peak",
    }


def mine_bench(args: argparse.Namespace) -> dict:
    runs = []
    specs = [["--source", "msmarco-dev-top20"]]
    specs.append(
        [
            "--source",
            "synthetic",
            "--synthetic-queries",
            str(args.synthetic_queries),
            "--synthetic-candidates",
            str(args.synthetic_candidates),
        ]
    )
    for extra in specs:
        cmd = [sys.executable, __file__, "mine-one", "--axioms", args.axioms, *extra]
        if args.cap:
            cmd += ["--cap", str(args.cap)]
        proc = subprocess.run(
            cmd, capture_output=True, text=True, env={**os.environ, "AXIOMATIC_NO_PROGRESS": "1"}
        )
        if proc.returncode != 0:
            runs.append({"cmd": extra, "error": proc.stderr[-2000:]})
        else:
            runs.append(json.loads(proc.stdout))
    return {
        "benchmark": "mining_throughput",
        "cores": 1,
        "runs": runs,
        "readme_figure": {r.get("source", "?"): r.get("readme_figure") for r in runs},
        "million_candidate_pairs_per_second": {
            r.get("source", "?"): r.get("million_candidate_pairs_per_second") for r in runs
        },
    }


RERANK_AXIOMS = (
    "TFC1,TFC3,M-TDC,LNC1,TF-LNC,LB1,PROX1,PROX2,PROX3,PROX4,PROX5,AND,M-AND,DIV,REG,STMC1"
)


def _base_run(ds, idx, k: int):
    """BM25 run of ``ds``: its candidate lists re-scored, or top-``k`` retrieval (full sets)."""
    from axiomatic.rankers.base import rerank
    from axiomatic.rankers.lexical import BM25Ranker

    bm = BM25Ranker(idx)
    if ds.candidates is not None:
        return rerank(bm, ds)
    return {q.query_id: dict(bm.retrieve(q, k)) for q in ds.queries.values()}


def rerank_bench(args: argparse.Namespace) -> dict:
    from axiomatic.data.catalog import load_dataset
    from axiomatic.diagnose.rerank import axiomatic_rerank, learn_weights
    from axiomatic.evaluate.metrics import evaluate
    from axiomatic.index.cache import dataset_index

    out = []
    for test_name, train_name in zip(args.test, args.train, strict=True):
        test = load_dataset(test_name)
        train = load_dataset(train_name)
        if args.max_train_queries:
            train = train.subset(list(train.queries)[: args.max_train_queries])
        idx = dataset_index(test)
        tidx = dataset_index(train)
        base = _base_run(test, idx, 100)
        train_run = _base_run(train, tidx, 100)
        thr = test.rel_threshold
        measures = ["nDCG@10", "AP@100", "RR@10"]
        row = {
            "test": test_name,
            "train": train_name,
            "depth": args.depth,
            "rel_threshold": thr,
            "queries": len(test.queries),
            "BM25": evaluate(base, test.qrels, measures, rel_threshold=thr),
        }
        for label, axioms in (("axioms", args.axioms), ("axioms+ORIG", args.axioms + ",ORIG")):
            res: dict = {"axioms": axioms}
            t0 = time.perf_counter()
            maj = axiomatic_rerank(test, axioms, base, depth=args.depth, index=idx, seed=0)
            res["majority"] = evaluate(maj, test.qrels, measures, rel_threshold=thr)
            res["majority_seconds"] = time.perf_counter() - t0
            w = learn_weights(train, axioms, train_run, depth=args.depth, index=tidx)
            res["learned_weights"] = dict(
                zip(axioms.split(","), np.round(w, 3).tolist(), strict=True)
            )
            lrn = axiomatic_rerank(
                test,
                axioms,
                base,
                depth=args.depth,
                index=idx,
                aggregation="weighted",
                weights=w,
                seed=0,
            )
            res["learned"] = evaluate(lrn, test.qrels, measures, rel_threshold=thr)
            row[label] = res
        out.append(row)
    return {"benchmark": "axiomatic_rerank", "results": out}


def rerank_orders_bench(args: argparse.Namespace) -> dict:
    """KwikSort vs Bradley-Terry vs PageRank on the same aggregated preferences:
    effectiveness of the re-ranked run and the time of the ordering step alone (the axiom
    preferences are computed once per query and shared), medians over ``--runs``."""
    import statistics

    from axiomatic.axioms.context import QueryContext
    from axiomatic.axioms.spec import parse_axioms
    from axiomatic.data.catalog import load_dataset
    from axiomatic.diagnose.rerank import preference_stack
    from axiomatic.evaluate.metrics import evaluate
    from axiomatic.index.cache import dataset_index
    from axiomatic.rankers.orders import ORDERS, order_by

    ds = load_dataset(args.dataset)
    idx = dataset_index(ds)
    axs = [a for a in parse_axioms(args.axioms) if a.arity == 2]
    measures = ["nDCG@10", "RR@10"]
    thr = ds.rel_threshold
    base = {q: {d: float(-i) for i, d in enumerate(c)} for q, c in (ds.candidates or {}).items()}
    rows: dict = {
        "dataset": args.dataset,
        "axioms": args.axioms,
        "queries": len(base),
        "base": evaluate(base, ds.qrels, measures, rel_threshold=thr),
    }
    for depth in args.depths:
        prefs: dict[str, tuple[list[str], list[str], np.ndarray]] = {}
        t0 = time.perf_counter()
        for qid, q in ds.queries.items():
            ranked = list((ds.candidates or {}).get(qid, []))
            head = [d for d in ranked[:depth] if d in ds.documents]
            scores = [base[qid][d] for d in head]  # ORIG's base scores
            ctx = QueryContext.build(q, [ds.documents[d] for d in head], idx, scores=scores)
            agg = np.sign(preference_stack(ctx, axs).astype(np.int64).sum(axis=0))
            prefs[qid] = (ranked, head, agg)
        pref_s = time.perf_counter() - t0
        res: dict = {"preferences_seconds": round(pref_s, 3)}
        for order in ORDERS:
            times, run = [], {}
            for _ in range(args.runs):
                run = {}
                t0 = time.perf_counter()
                for qid, (ranked, head, agg) in prefs.items():
                    pos = order_by(agg, order, seed=0) if len(head) >= 2 else np.arange(len(head))
                    final = [head[i] for i in pos] + ranked[len(head) :]
                    run[qid] = {d: float(len(final) - r) for r, d in enumerate(final)}
                times.append(time.perf_counter() - t0)
            res[order] = {
                **evaluate(run, ds.qrels, measures, rel_threshold=thr),
                "order_seconds_median": round(statistics.median(times), 4),
                "order_seconds_spread": [round(min(times), 4), round(max(times), 4)],
            }
        rows[f"depth{depth}"] = res
    return {"benchmark": "rerank_orders", "results": rows}


def _size_runs(text: str) -> dict[int, int]:
    """``SIZE=N[,SIZE=N...]`` of ``--runs-at``."""
    out: dict[int, int] = {}
    for part in text.split(","):
        size, sep, runs = part.partition("=")
        if not (sep and size.strip().isdigit() and runs.strip().isdigit()):
            raise argparse.ArgumentTypeError(
                f"{part!r}: expected SIZE=N (candidates=runs), e.g. 100=9"
            )
        out[int(size)] = int(runs)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    sub = ap.add_subparsers(dest="cmd", required=True)
    c = sub.add_parser("compare")
    c.add_argument("--dataset", default="scifact/test")
    c.add_argument("--sizes", type=int, nargs="+", default=[100, 1000])
    c.add_argument("--query-index", type=int, default=0)
    c.add_argument("--skip-ref", action="store_true")
    c.add_argument("--ref-timeout", type=int, default=1800)
    c.add_argument("--export-dir", default=None, help="keep the exported query and matrices here")
    c.add_argument(
        "--runs",
        type=int,
        default=1,
        help="fresh processes, alternating which library goes first; report medians and "
        "min/max (default 1: this process)",
    )
    c.add_argument(
        "--runs-at",
        type=_size_runs,
        default=None,
        metavar="SIZE=N",
        help="at least N runs for SIZE candidates (e.g. 100=9: a few seconds a run there, "
        "minutes at 1,000); each size reports the median of its own runs",
    )
    c1 = sub.add_parser("compare-one", help="one run of compare (what --runs repeats)")
    c1.add_argument("--dataset", default="scifact/test")
    c1.add_argument("--sizes", type=int, nargs="+", default=[100, 1000])
    c1.add_argument("--query-index", type=int, default=0)
    c1.add_argument("--skip-ref", action="store_true")
    c1.add_argument("--ref-timeout", type=int, default=1800)
    c1.add_argument("--export-dir", default=None)
    c1.add_argument("--ref-first", action="store_true", help="run ir_axioms before ours")
    o = sub.add_parser("rerank-orders")
    o.add_argument("--dataset", default="trec-dl-2019/bm25")
    o.add_argument("--axioms", default="TFC1,M-TDC,LNC2")
    o.add_argument("--depths", type=int, nargs="+", default=[20, 100])
    o.add_argument("--runs", type=int, default=3)
    m = sub.add_parser("mine")
    m.add_argument("--axioms", default="TFC1,TFC2,M-TDC,LNC2")
    m.add_argument("--synthetic-queries", type=int, default=20)
    m.add_argument("--synthetic-candidates", type=int, default=1000)
    m.add_argument("--cap", type=int, default=None)
    o = sub.add_parser("mine-one")
    o.add_argument("--axioms", default="TFC1,TFC2,M-TDC,LNC2")
    o.add_argument("--source", required=True)
    o.add_argument("--max-queries", type=int, default=None)
    o.add_argument("--synthetic-queries", type=int, default=20)
    o.add_argument("--synthetic-candidates", type=int, default=1000)
    o.add_argument("--cap", type=int, default=None)
    r = sub.add_parser("rerank")
    r.add_argument("--test", nargs="+", default=["trec-dl-2019/bm25", "scifact/test"])
    r.add_argument("--train", nargs="+", default=["msmarco-dev-top20/train", "scifact/train"])
    r.add_argument("--axioms", default=RERANK_AXIOMS)
    r.add_argument("--depth", type=int, default=20)
    r.add_argument("--max-train-queries", type=int, default=200)
    args = ap.parse_args()
    out = {
        "compare": compare_runs,
        "compare-one": compare_one,
        "mine": mine_bench,
        "mine-one": mine_one,
        "rerank": rerank_bench,
        "rerank-orders": rerank_orders_bench,
    }[args.cmd](args)
    print(json.dumps(out, indent=1, default=float))


if __name__ == "__main__":
    main()
