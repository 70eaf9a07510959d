"""Every document axiom's matrix on two real samples, pinned to the values the engine gave before
its kernels were rewritten for speed (LB1's band pass, STMC1's vocabulary rows by term id, DIV's
compiled pass): SHA-256 (first 16 hex digits) of each ``int8`` preference matrix (TFC2: its
``(i, j, k)`` instances as int64), computed with the earlier implementation.

Samples: the first TREC DL 2019 query with its first 100 candidates (BM25-scored for LB1), and
the first SciFact test query with its BM25 top 1,000 (above every dense limit of the kernels);
each with the similarity as a vector table (MiniLM's input embeddings of the candidates'
vocabulary, the path of ``VectorSimilarity``) and as MiniLM itself (computed per term).
"""

from __future__ import annotations

import hashlib

import numpy as np
import pytest

from axiomatic.axioms import QueryContext, parse_axiom
from axiomatic.axioms.similarity import MiniLMSimilarity, VectorSimilarity
from shared_data import require_collection

SPECS = (
    "TFC1", "TFC3(delta_rel=None)", "TFC3", "M-TDC", "LNC1", "TF-LNC", "LB1", "PROX1", "PROX2",
    "PROX3", "PROX4", "PROX5", "REG(delta_rel=None)", "REG", "AND", "LEN-AND", "M-AND",
    "LEN-M-AND", "DIV", "LEN-DIV", "STMC1", "STMC2", "STMC3", "LNC2", "TDC", "LB2", "TFC2",
)  # fmt: skip

PINNED = {
    "trec-dl-2019/bm25|100|table|TFC1": "6a9224791029e0ed",
    "trec-dl-2019/bm25|100|table|TFC3(delta_rel=None)": "523616300620653b",
    "trec-dl-2019/bm25|100|table|TFC3": "732d00a8919bea34",
    "trec-dl-2019/bm25|100|table|M-TDC": "198a608f786953d9",
    "trec-dl-2019/bm25|100|table|LNC1": "bc19a6e7dfaa2f16",
    "trec-dl-2019/bm25|100|table|TF-LNC": "83773e672dfe8a34",
    "trec-dl-2019/bm25|100|table|LB1": "48d7d20a2f7b7bfa",
    "trec-dl-2019/bm25|100|table|PROX1": "6a6f0e0ce85e91e0",
    "trec-dl-2019/bm25|100|table|PROX2": "c11b30648cc40c57",
    "trec-dl-2019/bm25|100|table|PROX3": "95b532cc4381affd",
    "trec-dl-2019/bm25|100|table|PROX4": "95b532cc4381affd",
    "trec-dl-2019/bm25|100|table|PROX5": "95b532cc4381affd",
    "trec-dl-2019/bm25|100|table|REG(delta_rel=None)": "f8fe5c61b6302df8",
    "trec-dl-2019/bm25|100|table|REG": "8cf0ac5f3e44ade3",
    "trec-dl-2019/bm25|100|table|AND": "887d9833b4f27049",
    "trec-dl-2019/bm25|100|table|LEN-AND": "c87be54abe0beb3f",
    "trec-dl-2019/bm25|100|table|M-AND": "12100bd9ca41cace",
    "trec-dl-2019/bm25|100|table|LEN-M-AND": "3d8f4f78c7a8af15",
    "trec-dl-2019/bm25|100|table|DIV": "b58c76dafc8d4d4c",
    "trec-dl-2019/bm25|100|table|LEN-DIV": "957552f8adc5ded2",
    "trec-dl-2019/bm25|100|table|STMC1": "3d516890beeab7aa",
    "trec-dl-2019/bm25|100|table|STMC2": "95b532cc4381affd",
    "trec-dl-2019/bm25|100|table|STMC3": "e5f91e21049374d4",
    "trec-dl-2019/bm25|100|table|LNC2": "95b532cc4381affd",
    "trec-dl-2019/bm25|100|table|TDC": "273fd49fe39e1c57",
    "trec-dl-2019/bm25|100|table|LB2": "9d6639987e519be9",
    "trec-dl-2019/bm25|100|table|TFC2": "e3cc39b5dbbef538",
    "trec-dl-2019/bm25|100|minilm|TFC1": "6a9224791029e0ed",
    "trec-dl-2019/bm25|100|minilm|TFC3(delta_rel=None)": "523616300620653b",
    "trec-dl-2019/bm25|100|minilm|TFC3": "732d00a8919bea34",
    "trec-dl-2019/bm25|100|minilm|M-TDC": "198a608f786953d9",
    "trec-dl-2019/bm25|100|minilm|LNC1": "bc19a6e7dfaa2f16",
    "trec-dl-2019/bm25|100|minilm|TF-LNC": "83773e672dfe8a34",
    "trec-dl-2019/bm25|100|minilm|LB1": "48d7d20a2f7b7bfa",
    "trec-dl-2019/bm25|100|minilm|PROX1": "6a6f0e0ce85e91e0",
    "trec-dl-2019/bm25|100|minilm|PROX2": "c11b30648cc40c57",
    "trec-dl-2019/bm25|100|minilm|PROX3": "95b532cc4381affd",
    "trec-dl-2019/bm25|100|minilm|PROX4": "95b532cc4381affd",
    "trec-dl-2019/bm25|100|minilm|PROX5": "95b532cc4381affd",
    "trec-dl-2019/bm25|100|minilm|REG(delta_rel=None)": "f8fe5c61b6302df8",
    "trec-dl-2019/bm25|100|minilm|REG": "8cf0ac5f3e44ade3",
    "trec-dl-2019/bm25|100|minilm|AND": "887d9833b4f27049",
    "trec-dl-2019/bm25|100|minilm|LEN-AND": "c87be54abe0beb3f",
    "trec-dl-2019/bm25|100|minilm|M-AND": "12100bd9ca41cace",
    "trec-dl-2019/bm25|100|minilm|LEN-M-AND": "3d8f4f78c7a8af15",
    "trec-dl-2019/bm25|100|minilm|DIV": "b58c76dafc8d4d4c",
    "trec-dl-2019/bm25|100|minilm|LEN-DIV": "957552f8adc5ded2",
    "trec-dl-2019/bm25|100|minilm|STMC1": "3d516890beeab7aa",
    "trec-dl-2019/bm25|100|minilm|STMC2": "95b532cc4381affd",
    "trec-dl-2019/bm25|100|minilm|STMC3": "e5f91e21049374d4",
    "trec-dl-2019/bm25|100|minilm|LNC2": "95b532cc4381affd",
    "trec-dl-2019/bm25|100|minilm|TDC": "273fd49fe39e1c57",
    "trec-dl-2019/bm25|100|minilm|LB2": "9d6639987e519be9",
    "trec-dl-2019/bm25|100|minilm|TFC2": "e3cc39b5dbbef538",
    "scifact/test|1000|table|TFC1": "320c1e7f946d8b1e",
    "scifact/test|1000|table|TFC3(delta_rel=None)": "029f349c551da114",
    "scifact/test|1000|table|TFC3": "c2f8058955ae7cd1",
    "scifact/test|1000|table|M-TDC": "fc0302f29f4ef4c5",
    "scifact/test|1000|table|LNC1": "da3a9634910782b2",
    "scifact/test|1000|table|TF-LNC": "94fbec1185cab230",
    "scifact/test|1000|table|LB1": "1e5e4270c85c3262",
    "scifact/test|1000|table|PROX1": "5182737eea3f72b4",
    "scifact/test|1000|table|PROX2": "ec7b6ae981208d37",
    "scifact/test|1000|table|PROX3": "d29751f2649b32ff",
    "scifact/test|1000|table|PROX4": "d29751f2649b32ff",
    "scifact/test|1000|table|PROX5": "d29751f2649b32ff",
    "scifact/test|1000|table|REG(delta_rel=None)": "be60b3fdadd1e5bd",
    "scifact/test|1000|table|REG": "999fbf4bdfb7bb78",
    "scifact/test|1000|table|AND": "d29751f2649b32ff",
    "scifact/test|1000|table|LEN-AND": "d29751f2649b32ff",
    "scifact/test|1000|table|M-AND": "280cb7edea0ea3f6",
    "scifact/test|1000|table|LEN-M-AND": "4cb06bb0515bbb1c",
    "scifact/test|1000|table|DIV": "21fea18cdbc4b4f2",
    "scifact/test|1000|table|LEN-DIV": "74cb2d49732e89be",
    "scifact/test|1000|table|STMC1": "98bc755146555824",
    "scifact/test|1000|table|STMC2": "5bdc3029af935d9b",
    "scifact/test|1000|table|STMC3": "abf34eb72de69c14",
    "scifact/test|1000|table|LNC2": "d29751f2649b32ff",
    "scifact/test|1000|table|TDC": "bad3f8e16276654c",
    "scifact/test|1000|table|LB2": "bf78d3fe18466320",
    "scifact/test|1000|table|TFC2": "f49ad9e4e44e18fd",
    "scifact/test|1000|minilm|TFC1": "320c1e7f946d8b1e",
    "scifact/test|1000|minilm|TFC3(delta_rel=None)": "029f349c551da114",
    "scifact/test|1000|minilm|TFC3": "c2f8058955ae7cd1",
    "scifact/test|1000|minilm|M-TDC": "fc0302f29f4ef4c5",
    "scifact/test|1000|minilm|LNC1": "da3a9634910782b2",
    "scifact/test|1000|minilm|TF-LNC": "94fbec1185cab230",
    "scifact/test|1000|minilm|LB1": "1e5e4270c85c3262",
    "scifact/test|1000|minilm|PROX1": "5182737eea3f72b4",
    "scifact/test|1000|minilm|PROX2": "ec7b6ae981208d37",
    "scifact/test|1000|minilm|PROX3": "d29751f2649b32ff",
    "scifact/test|1000|minilm|PROX4": "d29751f2649b32ff",
    "scifact/test|1000|minilm|PROX5": "d29751f2649b32ff",
    "scifact/test|1000|minilm|REG(delta_rel=None)": "be60b3fdadd1e5bd",
    "scifact/test|1000|minilm|REG": "999fbf4bdfb7bb78",
    "scifact/test|1000|minilm|AND": "d29751f2649b32ff",
    "scifact/test|1000|minilm|LEN-AND": "d29751f2649b32ff",
    "scifact/test|1000|minilm|M-AND": "280cb7edea0ea3f6",
    "scifact/test|1000|minilm|LEN-M-AND": "4cb06bb0515bbb1c",
    "scifact/test|1000|minilm|DIV": "21fea18cdbc4b4f2",
    "scifact/test|1000|minilm|LEN-DIV": "74cb2d49732e89be",
    "scifact/test|1000|minilm|STMC1": "98bc755146555824",
    "scifact/test|1000|minilm|STMC2": "5bdc3029af935d9b",
    "scifact/test|1000|minilm|STMC3": "abf34eb72de69c14",
    "scifact/test|1000|minilm|LNC2": "d29751f2649b32ff",
    "scifact/test|1000|minilm|TDC": "bad3f8e16276654c",
    "scifact/test|1000|minilm|LB2": "bf78d3fe18466320",
    "scifact/test|1000|minilm|TFC2": "f49ad9e4e44e18fd",
}

SAMPLES = {
    "trec-dl-2019/bm25": ("msmarco-passage-trecdl", 100, False),
    "scifact/test": ("scifact", 1000, True),
}


def _digest(x: np.ndarray) -> str:
    return hashlib.sha256(np.ascontiguousarray(x).tobytes()).hexdigest()[:16]


def _minilm_vector(minilm: MiniLMSimilarity, term: str) -> np.ndarray:
    """A term's MiniLM vector as the similarity computes it: the mean of its word pieces'
    input embeddings."""
    tok, emb = minilm.word_pieces()
    ids = tok(term, add_special_tokens=False)["input_ids"]
    return emb[ids].mean(axis=0) if ids else np.zeros(emb.shape[1], np.float32)


@pytest.fixture(scope="module")
def minilm() -> MiniLMSimilarity:
    return MiniLMSimilarity()


@pytest.mark.parametrize("dataset", list(SAMPLES))
def test_matrices_on_real_samples_are_pinned(dataset: str, minilm: MiniLMSimilarity) -> None:
    from axiomatic.data.catalog import load_dataset
    from axiomatic.index.cache import dataset_index
    from axiomatic.rankers.lexical import BM25Ranker

    folder, k, retrieve = SAMPLES[dataset]
    require_collection(folder)
    ds = load_dataset(dataset)
    idx = dataset_index(ds)
    q = next(iter(ds.queries.values()))
    bm = BM25Ranker(idx)
    if retrieve:
        hits = bm.retrieve(q, k)
        docs = [ds.documents[d] for d, _ in hits]
        scores = np.asarray([s for _, s in hits])
    else:
        docs = [ds.documents[d] for d in ds.candidate_ids(q.query_id)[:k]]
        scores = bm.score(q, docs)
    an = idx.analyzer
    vocab = sorted({t for d in docs for t in an.analyze(d.text)} | set(an.analyze(q.text)))
    table = VectorSimilarity({t: _minilm_vector(minilm, t) for t in vocab}).prepare(idx.terms)
    wrong = []
    for name, sim in (("table", table), ("minilm", minilm)):
        ctx = QueryContext.build(q, docs, idx, similarity=sim, scores=scores)
        for spec in SPECS:
            ax = parse_axiom(spec)
            if ax.arity == 3:
                inst = ax.instances(ctx)
                got = _digest(np.stack([inst.i, inst.j, inst.k]).astype(np.int64))
            else:
                got = _digest(ax.preferences(ctx).astype(np.int8))
            key = f"{dataset}|{k}|{name}|{spec}"
            if got != PINNED[key]:
                wrong.append(key)
    assert not wrong, f"matrices differ from the pinned ones: {wrong}"
