"""ARES stages 1-3 throughput on one core (prints JSON).

Pseudo-query sampling (10 per document) and all nine query-centric axiom scores for a corpus
(default: the 20k-passage MS MARCO subset ``msmarco-20k``), then the eq.-9 features of every
ordered pseudo-query pair of every document (``n_docs x 10 x 10``). Reports documents/s for
sampling + scoring and pairs/s for the feature matrices, with the load average.

    OMP_NUM_THREADS=1 .venv/bin/python benchmarks/bench_ares.py --collection msmarco-20k
    OMP_NUM_THREADS=1 .venv/bin/python benchmarks/bench_ares.py --step   # step time vs plain
"""

from __future__ import annotations

import argparse
import json
import os
import time


def _reference_ares_loss(model, qp, qn, docs, seed_step):  # the first implementation
    """Hinge + MLM as first written: the MLM batch tokenized a second time, the special-token
    mask row by row, ``x @ W.T + b`` in the LM head (kept to time before/after in one run)."""
    import torch
    import torch.nn.functional as F

    from axiomatic.ares.pretrain import mask_tokens
    from axiomatic.training.losses import pairwise_hinge

    B = len(qp)
    s = model(**model.encode_batch(qp + qn, docs + docs))
    loss = pairwise_hinge(s[:B], s[B:], 1.0)
    e = model.encode_batch(qp, docs)
    special = torch.tensor(
        [
            model.tokenizer.get_special_tokens_mask(r, already_has_special_tokens=True)
            for r in e["input_ids"].tolist()
        ],
        dtype=torch.bool,
    ) | (e["attention_mask"] == 0)
    g = torch.Generator().manual_seed(seed_step)
    ids, labels = mask_tokens(e["input_ids"], special, model.tokenizer.mask_token_id, 30522, g)
    h = model.token_embeddings(ids, e["attention_mask"], e["token_type_ids"])
    sel = labels != -100
    head = model.mlm_head
    x = head.norm(F.gelu(head.dense(h[sel])))
    mlm = F.cross_entropy(x @ head.word_embeddings.weight.T + head.bias, labels[sel])
    return loss + mlm


def bench_step(batch: int, max_length: int, repeats: int) -> dict[str, object]:
    """Seconds per training step (forward + backward + AdamW) on the same (q+, q-, d) batch:
    the plain cross-encoder hinge step (``AresLossStrategy(mlm_weight=0)``, the same code
    path as the trainer's hinge step) vs the ARES step (``AresLossStrategy()``, hinge + MLM)
    and the first ARES implementation (``reference``). They run interleaved, round by round,
    and each reports its minimum wall and process-CPU time (a shared, loaded machine only
    adds time; CPU time is the steadier of the two there). Two parts of the ARES step are
    timed alone as well (forward + backward, no optimizer): the MLM encoder pass over the
    (q+, d) rows and the LM head at 15 % of their positions; ``floor_cpu_ratio`` =
    (plain + both parts) / plain is what the step costs if nothing but those two is added."""
    from types import SimpleNamespace

    import torch

    from axiomatic.ares.pretrain import AresLossStrategy, build_model
    from axiomatic.training.samplers import Pair
    from axiomatic.training.strategy_base import StepContext

    torch.set_num_threads(1)
    model = build_model(max_length)
    model.train()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-5)
    doc = ("solar panels convert sunlight into electricity and farms need land " * 12).strip()
    qp, qn = "solar electricity panels", "farms land"
    trainer = StepContext(  # what the trainer hands its loss strategy
        config=SimpleNamespace(margin=1.0, seed=0),
        train_data=SimpleNamespace(
            queries={f"d{i}": SimpleNamespace(text=doc) for i in range(batch)}
        ),
        text={"qp": qp, "qn": qn}.__getitem__,
        model=model,
        device=torch.device("cpu"),
    )
    pairs = [Pair(f"d{i}", "qp", "qn", 1, 0) for i in range(batch)]
    plain_s, ares_s = AresLossStrategy(mlm_weight=0.0), AresLossStrategy()
    enc1 = model.encode_batch([qp] * batch, [doc] * batch)
    sel = torch.rand(enc1["input_ids"].shape, generator=torch.Generator().manual_seed(0)) < 0.15
    sel[:, 0] = False
    x_head = torch.randn(int(sel.sum()), model.hidden_size)
    W = model.encoder.get_input_embeddings().weight
    w_grad = torch.zeros_like(W)  # the step adds the decoder's G^T x into an existing buffer

    def part(kind: str) -> None:
        # without the word-embedding gradient buffer (the step has one, shared with the hinge)
        if kind == "mlm_pass":
            w = W.detach()[enc1["input_ids"]].requires_grad_()
            h = model._hidden_at(w, enc1["attention_mask"], enc1["token_type_ids"], sel)
            h.sum().backward()
        else:
            head = model.mlm_head
            x = head.transform(x_head)
            logits = torch.nn.functional.linear(x, W.detach(), head.bias)
            logits.retain_grad()
            torch.nn.functional.cross_entropy(logits, enc1["input_ids"][sel]).backward()
            w_grad.addmm_(logits.grad.t(), x.detach())  # type: ignore[union-attr]

    def step(kind: str, k: int) -> tuple[float, float]:
        t, c = time.perf_counter(), time.process_time()
        if kind in ("mlm_pass", "lm_head"):
            opt.zero_grad()
            part(kind)
            return time.perf_counter() - t, time.process_time() - c
        if kind == "reference":
            loss = _reference_ares_loss(model, [qp] * batch, [qn] * batch, [doc] * batch, k)
        else:
            loss, _ = (plain_s if kind == "plain" else ares_s).step_loss(trainer, pairs, k)
        opt.zero_grad()
        loss.backward()
        opt.step()
        return time.perf_counter() - t, time.process_time() - c

    kinds = ("plain", "ares", "reference", "mlm_pass", "lm_head")
    for kind in kinds:  # warm-up
        step(kind, 0)
    times: dict[str, list[float]] = {k: [] for k in kinds}
    cpu: dict[str, list[float]] = {k: [] for k in kinds}
    load_before = os.getloadavg()
    for r in range(repeats):
        for kind in kinds if r % 2 == 0 else kinds[::-1]:
            wall, c = step(kind, r + 1)
            times[kind].append(wall)
            cpu[kind].append(c)
    plain, ares, ref, _, _ = (min(times[k]) for k in kinds)
    c_plain, c_ares, c_ref, c_mlm, c_head = (min(cpu[k]) for k in kinds)
    L = int(model.encode_batch([qp], [doc])["input_ids"].shape[1])
    return {
        "batch_pairs": batch,
        "max_length": max_length,
        "sequence_length": L,
        "repeats": repeats,
        "threads": torch.get_num_threads(),
        "plain_hinge_step_s": plain,
        "ares_hinge_mlm_step_s": ares,
        "ratio": ares / plain,
        "reference_ares_step_s": ref,
        "reference_ratio": ref / plain,
        # process CPU time (one thread): less inflated than wall time on a shared machine
        "cpu_plain_s": c_plain,
        "cpu_ares_s": c_ares,
        "cpu_ratio": c_ares / c_plain,
        "cpu_reference_ratio": c_ref / c_plain,
        "cpu_mlm_pass_s": c_mlm,
        "cpu_lm_head_s": c_head,
        "floor_cpu_ratio": (c_plain + c_mlm + c_head) / c_plain,
        "all_times_s": times,
        "all_cpu_times_s": cpu,
        "load_average_before": load_before,
        "load_average": os.getloadavg(),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--collection", default="msmarco-20k")
    ap.add_argument("--data-root", default=None)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--step", action="store_true", help="time a pre-training step instead")
    ap.add_argument("--batch", type=int, default=8)
    ap.add_argument("--max-length", type=int, default=96)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--out", default=None, help="also write the JSON to this file")
    args = ap.parse_args()
    if args.step:
        for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
            os.environ.setdefault(var, "1")
        text = json.dumps(bench_step(args.batch, args.max_length, args.repeats), indent=1)
        print(text)
        if args.out:
            from pathlib import Path

            Path(args.out).write_text(text + "\n", encoding="utf-8")
        return
    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ.setdefault(var, "1")
    import numpy as np

    from axiomatic.ares.pipeline import load_collection
    from axiomatic.ares.sampling import sample_pseudo_queries
    from axiomatic.axioms.query_pairs import (
        QueryPairContext,
        document_preferences,
        minilm_term_vectors,
        parse_query_pair_axioms,
    )
    from axiomatic.index.collection import CollectionIndex
    from axiomatic.text.analyzer import Analyzer

    try:
        import torch

        torch.set_num_threads(1)
    except ImportError:  # pragma: no cover
        pass
    coll = load_collection(args.collection, args.data_root)
    out: dict[str, object] = {"collection": args.collection, "n_docs": len(coll.documents)}
    t0 = time.perf_counter()
    index = CollectionIndex.build(coll.documents.values(), Analyzer())
    out["index_s"] = time.perf_counter() - t0
    t = time.perf_counter()
    pq = sample_pseudo_queries(index, seed=args.seed)
    out["sampling_s"] = time.perf_counter() - t
    out["sampling_report"] = pq.report.to_dict()
    t = time.perf_counter()
    vectors = minilm_term_vectors(index.terms)  # includes loading MiniLM's embedding table
    out["term_vectors_s"] = time.perf_counter() - t
    ctx = QueryPairContext(index, pq.doc, pq.offsets, pq.term_ids, term_vectors=vectors)
    per_axiom = {}
    t = time.perf_counter()
    for ax in parse_query_pair_axioms("all"):
        ta = time.perf_counter()
        ctx.scores(ax)
        per_axiom[ax.name] = time.perf_counter() - ta
    out["scores_s"] = time.perf_counter() - t
    out["scores_per_axiom_s"] = per_axiom
    rank = ctx.scores("Q-RANK")
    out["rank_distribution"] = {
        "1": float((rank == 1).mean()),
        "2-5": float(((rank >= 2) & (rank <= 5)).mean()),
        "6-10": float(((rank >= 6) & (rank <= 10)).mean()),
        "11-50": float(((rank >= 11) & (rank <= 50)).mean()),
        ">50": float(np.isinf(rank).mean()),
    }
    t = time.perf_counter()
    n_pairs = 0
    for ax in parse_query_pair_axioms("all"):
        _docs, M = document_preferences(ctx, ax)
        n_pairs = int(M.shape[0] * M.shape[1] * (M.shape[2] - 1))
    out["features_s"] = time.perf_counter() - t
    out["ordered_pairs"] = n_pairs
    total = time.perf_counter() - t0
    out["total_s"] = total
    stages_1_2 = out["sampling_s"] + out["term_vectors_s"] + out["scores_s"]  # type: ignore[operator]
    out["docs_per_s_sampling_and_scores"] = len(coll.documents) / stages_1_2
    out["pairs_per_s_features_9_axioms"] = n_pairs / max(out["features_s"], 1e-9)  # type: ignore[arg-type]
    out["pairs_per_s_end_to_end"] = n_pairs / total
    out["load_average"] = os.getloadavg()
    out["threads"] = 1
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
