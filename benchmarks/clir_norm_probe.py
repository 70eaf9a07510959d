"""Diagnosis probe behind docs/clir.notes.md: encoder output norms of the initial and the trained
``clir-dual`` models of a finished ``axiomatic experiment liu-smooth`` run (en-de, SOSL), the
largest score r_eps reachable at those norms, and the training-score distribution per grade of
each loss (the Figure 3 data). Reads ``outputs/liu-smooth``; prints JSON; seconds of one core.

    .venv/bin/python benchmarks/clir_norm_probe.py --out outputs/liu-smooth
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np


def _norms(model, queries: list[str], docs: list[str]) -> dict[str, float]:
    import torch

    with torch.no_grad():
        fq = model.encode_queries(model.encode_batch(queries, queries)["query_ids"])
        fd = model.encode_documents(model.encode_batch(docs, docs)["doc_ids"])
    nq, nd = fq.norm(dim=-1).numpy(), fd.norm(dim=-1).numpy()
    eps = float(model.eps)
    mq, md = float(np.median(nq)), float(np.median(nd))
    return {
        "eps": eps,
        "query_norm_min": round(float(nq.min()), 3),
        "query_norm_median": round(mq, 3),
        "doc_norm_min": round(float(nd.min()), 3),
        "doc_norm_median": round(md, 3),
        # Cauchy-Schwarz: |r_eps| <= |x||z| / ((|x|+eps)(|z|+eps))
        "max_r_eps_at_median_norms": round(mq * md / ((mq + eps) * (md + eps)), 3),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--out", type=Path, default=Path("outputs/liu-smooth"))
    ap.add_argument("--language", default="de")
    args = ap.parse_args()
    import torch

    from axiomatic.experiments.liu_smooth import LiuPlan, LiuSmooth
    from axiomatic.models.clir import SmoothDualEncoder
    from axiomatic.models.io import load_model

    torch.set_num_threads(1)
    plan = LiuPlan(embeddings="minilm", shared_embeddings=True, nr_pool="split")
    runner = LiuSmooth(plan, args.out)
    test = runner.data("xquad", args.language)["test"]
    queries = [q.text for q in test.queries.values()]
    docs = [d.text for d in test.documents.values()]
    vocab, emb, _ = runner.vocab_and_embeddings("xquad", args.language)
    torch.manual_seed(0)
    init = SmoothDualEncoder(
        vocab, embedding_dim=64, eps=1.0, shared_embeddings=True, embeddings=emb
    )
    out: dict = {"untrained (eps 1)": _norms(init.eval(), queries, docs)}
    base = args.out / "runs" / "xquad" / args.language / "avg"
    for model_dir in sorted(base.glob("sosl/*_nr40_clip0_*/seed0/model")):
        out[model_dir.parent.parent.name] = _norms(load_model(model_dir).eval(), queries, docs)
    scores = {}
    for f in sorted(base.glob("*/*/seed0/train_scores.json")):
        d = json.loads(f.read_text())
        s, g = np.asarray(d["scores"]), np.asarray(d["grades"])
        scores[f.parent.parent.parent.name] = {
            "max": round(float(s.max()), 3),
            **{
                f"grade{k} median / share > 0.7": [
                    round(float(np.median(s[g == k])), 3),
                    round(float((s[g == k] > 0.7).mean()), 3),
                ]
                for k in sorted(set(g.tolist()))
            },
        }
    out["train_scores (Figure 3 data)"] = scores
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
