"""A toy collection, ranker and instance rows for the report tests (test_report.py,
test_report_browser.py)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from axiomatic.data.records import Dataset, Document, Query


class LenRanker:
    """Score = weight * query-term count + bias * length (differs between rankers)."""

    def __init__(self, name: str, weight: float, bias: float) -> None:
        self.name, self.weight, self.bias = name, weight, bias

    def score(self, query: Query, documents: Sequence[Document]) -> np.ndarray:
        w = query.text.split()
        return np.array(
            [
                self.weight * sum(d.text.split().count(t) for t in w)
                + self.bias * len(d.text.split())
                for d in documents
            ]
        )


def toy_dataset(rng: np.random.Generator) -> Dataset:
    """30 documents over 5 words, 3 one-word queries, every other document judged 0-2."""
    vocab = ["apple", "pie", "cake", "tree", "red"]
    docs = {
        f"d{i}": Document(f"d{i}", " ".join(rng.choice(vocab, size=rng.integers(3, 12))))
        for i in range(30)
    }
    queries = {f"q{j}": Query(f"q{j}", vocab[j]) for j in range(3)}
    qrels = {q: {f"d{i}": int(rng.integers(0, 3)) for i in range(0, 30, 2)} for q in queries}
    return Dataset("toy", queries, docs, qrels, {q: list(docs) for q in queries})


def instance_row(ds: Dataset, q: str, axiom: str, variant: str, a: int, b: int) -> dict:
    """One pair instance ``d{a} > d{b}`` of ``axiom`` for query ``q``, as the miner writes it."""
    la, lb = (len(ds.documents[f"d{k}"].text.split()) for k in (a, b))
    return {
        "query_id": q,
        "axiom": axiom,
        "variant": variant,
        "spec": f"{axiom}(variant={variant!r})",
        "doc_a": f"d{a}",
        "doc_b": f"d{b}",
        "doc_c": None,
        "relation": ">",
        "len_a": la,
        "len_b": lb,
        "len_diff_abs": abs(la - lb),
        "len_diff_rel": abs(la - lb) / max(la, lb),
        "rel_a": ds.qrels[q].get(f"d{a}"),
        "rel_b": ds.qrels[q].get(f"d{b}"),
        "rel_c": None,
        "split": "test",
        "artificial": False,
    }
