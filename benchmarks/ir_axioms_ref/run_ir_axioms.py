"""Run ir_axioms 1.2.5 offline on an exported query (called by benchmarks/bench_axioms.py).

Usage: .venv/bin/python run_ir_axioms.py EXPORT_DIR OUT_DIR [AXIOM ...]

Offline use without Java, spaCy models or Terrier/Anserini: we inject into ir_axioms' global
injector (1) a tokenizer that returns the tokens our analyzer produced (exported, so both sides
see identical terms), (2) in-memory index statistics (document count, df and our idf values),
(3) text statistics that return raw term *counts* (ir_axioms' default returns relative
frequencies count/|d|; counts are what the axioms' papers define, and what our kernels use), and
(4) a term similarity over exported word vectors (cosine; identical terms 1.0).
"""

from __future__ import annotations

import json
import sys
import time
from collections import Counter
from collections.abc import Mapping
from pathlib import Path

import numpy as np


def main() -> None:
    export = Path(sys.argv[1])
    out = Path(sys.argv[2])
    wanted = sys.argv[3:]
    out.mkdir(parents=True, exist_ok=True)
    data = json.loads((export / "query.json").read_text(encoding="utf-8"))
    vec = np.load(export / "vectors.npz", allow_pickle=False)
    vocab = [str(t) for t in vec["terms"]]
    V = vec["vectors"].astype(np.float64)
    V /= np.maximum(np.linalg.norm(V, axis=1, keepdims=True), 1e-12)
    vpos = {t: i for i, t in enumerate(vocab)}

    t_import = time.perf_counter()
    from injector import InstanceProvider, singleton
    from ir_axioms.axiom import retrieval as R
    from ir_axioms.dependency_injection import injector
    from ir_axioms.model.retrieval import Document, Query
    from ir_axioms.tools import (
        IndexStatistics,
        SimpleTextContents,
        TermSimilarity,
        TermTokenizer,
        TextContents,
        TextStatistics,
    )

    import_s = time.perf_counter() - t_import
    tokens: dict[str, list[str]] = {data["query"]: data["query_tokens"]}
    for d in data["docs"]:
        tokens[d["text"]] = d["tokens"]
    df: dict[str, int] = data["df"]
    idf: dict[str, float] = data["idf"]
    N = int(data["n_docs"])

    class LookupTokenizer(TermTokenizer):
        def terms(self, text: str):
            return tokens[text]

    tok = LookupTokenizer()

    class MemoryIndexStatistics(IndexStatistics):
        @property
        def document_count(self) -> int:
            return N

        def document_frequency(self, term: str) -> int:
            return int(df.get(term, 0))

        def inverse_document_frequency(self, term: str) -> float:
            return float(idf.get(term, 0.0))

        def inverse_document_frequencies(self, terms) -> Mapping[str, float]:
            return {t: float(idf.get(t, 0.0)) for t in terms}

    count_cache: dict[str, Counter] = {}

    class CountTextStatistics(TextStatistics):
        # memoized per text, so that ir_axioms is not slowed down by our injection
        def term_counts(self, document) -> Mapping[str, int]:
            c = count_cache.get(document.text)
            if c is None:
                c = count_cache[document.text] = Counter(tok.terms(document.text))
            return c

        def term_frequencies(self, document) -> Mapping[str, float]:
            return self.term_counts(document)

        def term_frequency(self, document, term: str) -> float:
            return self.term_counts(document).get(term, 0)

    class VectorTermSimilarity(TermSimilarity):
        def similarity(self, term1: str, term2: str) -> float:
            if term1 == term2:
                return 1.0
            a, b = vpos.get(term1), vpos.get(term2)
            if a is None or b is None:
                return 0.0
            return float(V[a] @ V[b])

    b = injector.binder
    b.bind(TermTokenizer, to=tok, scope=singleton)
    b.bind(TextContents, to=SimpleTextContents(), scope=singleton)
    b.bind(IndexStatistics, to=MemoryIndexStatistics(), scope=singleton)
    counts = CountTextStatistics()
    # ir_axioms binds the generic keys TextStatistics[Query], [Document] and [Query | Document]
    for key in (
        TextStatistics,
        TextStatistics[Query],
        TextStatistics[Document],
        TextStatistics[Query | Document],
    ):
        b.bind(key, to=InstanceProvider(counts), scope=singleton)
    b.bind(TermSimilarity, to=VectorTermSimilarity(), scope=singleton)

    query = Query(id="q", text=data["query"])
    docs = [Document(id=d["doc_id"], text=d["text"], score=d["score"]) for d in data["docs"]]
    table = {
        "TFC1": R.TFC1,
        "TFC3": R.TFC3,
        "M-TDC": R.M_TDC,
        "LNC1": R.LNC1,
        "TF-LNC": R.TF_LNC,
        "LB1": R.LB1,
        "PROX1": R.PROX1,
        "PROX2": R.PROX2,
        "PROX3": R.PROX3,
        "PROX4": R.PROX4,
        "PROX5": R.PROX5,
        "REG": R.REG,
        "AND": R.AND,
        "LEN-AND": R.LEN_AND,
        "M-AND": R.M_AND,
        "LEN-M-AND": R.LEN_M_AND,
        "DIV": R.DIV,
        "LEN-DIV": R.LEN_DIV,
        "STMC1": R.STMC1,
        "STMC2": R.STMC2,
        "LEN-M-TDC": R.LEN_M_TDC,
        "ANTI-REG": R.ANTI_REG,
    }
    names = wanted or list(table)
    timings = {}
    cpu = {}
    mats = {}
    for name in names:
        ax = table[name]()
        t0, c0 = time.perf_counter(), time.process_time()
        P = ax.preferences(query, docs)
        timings[name] = time.perf_counter() - t0
        cpu[name] = time.process_time() - c0
        mats[name.replace("-", "_")] = np.sign(np.asarray(P, dtype=np.float64)).astype(np.int8)
    np.savez_compressed(out / "preferences.npz", **mats)
    (out / "timings.json").write_text(
        json.dumps({"import_s": import_s, "axioms": timings, "cpu": cpu})
    )


if __name__ == "__main__":
    main()
