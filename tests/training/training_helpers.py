"""A tiny stand-in ranking model and a toy re-ranking dataset (no shared data needed)."""

from __future__ import annotations

import re
import zlib
from collections.abc import Sequence

import numpy as np
import torch
from torch import nn

from axiomatic.data.records import Dataset, Document, Query
from axiomatic.models.base import NeuralRankingModel

WORDS = [
    "neural",
    "ranking",
    "model",
    "query",
    "document",
    "retrieval",
    "axiom",
    "term",
    "frequency",
    "length",
    "signal",
    "kernel",
    "protein",
    "cell",
    "cancer",
    "gene",
    "vaccine",
    "virus",
    "climate",
    "ocean",
    "carbon",
    "energy",
    "solar",
    "wind",
    "battery",
    "river",
    "mountain",
    "forest",
    "desert",
    "city",
    "market",
    "price",
    "trade",
    "bank",
    "loan",
    "music",
    "film",
    "novel",
    "poem",
]


class TinyRanker(NeuralRankingModel):
    """Hashed word ids; score = w . log1p(exact-match tf per query term) + embedding dot."""

    model_type = "tiny"

    def __init__(self, buckets: int = 512, dim: int = 8, seed: int = 0) -> None:
        super().__init__()
        torch.manual_seed(seed)
        self.buckets = buckets
        self.emb = nn.Embedding(buckets, dim, padding_idx=0)
        self.w = nn.Linear(2, 1)
        self.config = {"buckets": buckets, "dim": dim}

    def _ids(self, text: str) -> list[int]:
        toks = re.findall(r"\w+", text.lower())
        return [1 + zlib.crc32(t.encode()) % (self.buckets - 1) for t in toks] or [0]

    def encode_batch(
        self, queries: Sequence[str], documents: Sequence[str]
    ) -> dict[str, torch.Tensor]:
        def pad(rows: list[list[int]]) -> torch.Tensor:
            n = max(len(r) for r in rows)
            return torch.tensor([r + [0] * (n - len(r)) for r in rows], dtype=torch.long)

        return {
            "q": pad([self._ids(q) for q in queries]),
            "d": pad([self._ids(d) for d in documents]),
        }

    def forward(self, q: torch.Tensor, d: torch.Tensor) -> torch.Tensor:  # type: ignore[override]
        match = ((q[:, :, None] == d[:, None, :]) & (d[:, None, :] > 0)).float().sum(-1)
        tf = torch.log1p(match).sum(-1)
        qe = self.emb(q).mean(1)
        de = self.emb(d).mean(1)
        sem = (qe * de).sum(-1)
        return self.w(torch.stack([tf, sem], dim=-1)).squeeze(-1)


def make_toy_dataset(n_queries: int = 24, n_cands: int = 8, seed: int = 0) -> Dataset:
    rng = np.random.default_rng(seed)
    queries, docs, qrels, cands = {}, {}, {}, {}
    for i in range(n_queries):
        qw = list(rng.choice(WORDS, size=2, replace=False))
        qid = f"q{i}"
        queries[qid] = Query(qid, " ".join(qw))
        ids = []
        for j in range(n_cands):
            words = list(rng.choice(WORDS, size=20))
            words = [w for w in words if w not in qw]
            if j == 0:  # the relevant one: query terms several times
                words += qw * 3
            elif j < 3:  # partial matches
                words += [qw[0]]
            rng.shuffle(words)
            did = f"{qid}-d{j}"
            docs[did] = Document(did, " ".join(words) + ".")
            ids.append(did)
        order = list(rng.permutation(ids))
        cands[qid] = order
        qrels[qid] = {f"{qid}-d0": 1}
    return Dataset("toy", queries, docs, qrels, cands, split="train")
