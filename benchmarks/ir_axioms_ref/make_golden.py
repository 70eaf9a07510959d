"""Write the golden ir_axioms 1.2.5 preference matrices that tests/axioms/test_ir_axioms_golden.py
compares our kernels with, in CI, without ir_axioms installed.

    bash benchmarks/ir_axioms_ref/setup.sh          # once: ir_axioms 1.2.5 from PyPI in its venv
    .venv/bin/python benchmarks/ir_axioms_ref/make_golden.py

Runs in the project venv: it prepares the input from the project's own demo collection
(``axiomatic.data.demo``, written for this project; no shared data), then runs ir_axioms in its
venv through ``run_ir_axioms.py`` (the same offline injection as ``benchmarks/bench_axioms.py``:
our tokens, in-memory df/idf, raw term counts, a vector term similarity).

Input, stored in the golden file so that the test needs neither the analyzer nor BM25:
- every demo document and query analyzed with the default English analyzer (stopwords, Snowball),
  stored as space-joined tokens; the test indexes them with a whitespace-only analyzer that gives
  the same tokens (checked here and in the test), so df and idf are over all demo documents;
- queries ``QUERIES``; candidates: the query's demo candidate list, then the other demo documents
  in id order, ``N_CANDIDATES`` in all; base scores ``N_CANDIDATES - rank`` of the BM25 (k1=0.9,
  b=0.4) ranking on that index (LB1 compares documents with scores within 10%: rank scores make
  such pairs frequent, raw BM25 scores of the demo make them rare);
- term vectors: seeded random ``DIM``-dimensional vectors (float16) for the vocabulary: the
  semantic axioms only need *a* similarity that both implementations share.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import tempfile
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
REF_PY = HERE / ".venv" / "bin" / "python"
REF_SCRIPT = HERE / "run_ir_axioms.py"
DEFAULT_OUT = REPO / "tests" / "axioms" / "golden" / "ir_axioms_1.2.5_demo.npz"

QUERIES = ("q1", "q3", "q9")
N_CANDIDATES = 30
DIM = 8
SEED = 13
#: every ir_axioms 1.2.5 retrieval axiom that has a counterpart in our catalogue
IR_AXIOMS = (
    "TFC1",
    "TFC3",
    "M-TDC",
    "LNC1",
    "TF-LNC",
    "LB1",
    "PROX1",
    "PROX2",
    "PROX3",
    "PROX4",
    "PROX5",
    "REG",
    "AND",
    "LEN-AND",
    "M-AND",
    "LEN-M-AND",
    "DIV",
    "LEN-DIV",
    "STMC1",
    "STMC2",
)


def token_index(doc_tokens: dict[str, list[str]]):
    """The index the test builds: documents are their joined tokens, analyzed by whitespace."""
    from axiomatic.data.records import Document
    from axiomatic.index.collection import CollectionIndex
    from axiomatic.text.analyzer import Analyzer

    plain = Analyzer(stopwords=False, stemmer=None)
    docs = [Document(d, " ".join(t)) for d, t in doc_tokens.items()]
    for d, toks in doc_tokens.items():
        if plain.analyze(" ".join(toks)) != toks:
            raise SystemExit(f"{d}: the whitespace analyzer does not reproduce {toks}")
    return CollectionIndex.build(docs, plain), {d.doc_id: d for d in docs}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", type=Path, default=DEFAULT_OUT)
    args = ap.parse_args()
    if not REF_PY.exists():
        raise SystemExit(f"{REF_PY} is missing; run `bash {HERE / 'setup.sh'}` first")
    version = subprocess.run(
        [str(REF_PY), "-c", "import importlib.metadata as m; print(m.version('ir_axioms'))"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    if version != "1.2.5":
        raise SystemExit(f"expected ir_axioms 1.2.5 in {REF_PY}, found {version}")

    from axiomatic.data.demo import demo_dataset
    from axiomatic.data.records import Query
    from axiomatic.rankers.lexical import BM25Ranker
    from axiomatic.text.analyzer import default_analyzer

    ds = demo_dataset()
    an = default_analyzer("en")
    doc_tokens = {d: an.analyze(doc.text) for d, doc in sorted(ds.documents.items())}
    index, docs = token_index(doc_tokens)
    vocab = sorted({t for toks in doc_tokens.values() for t in toks})
    rng = np.random.default_rng(SEED)
    vectors = rng.standard_normal((len(vocab), DIM)).astype(np.float16)
    golden: dict[str, np.ndarray] = {
        "doc_ids": np.asarray(list(doc_tokens)),
        "doc_tokens": np.asarray([" ".join(t) for t in doc_tokens.values()]),
        "vocab": np.asarray(vocab),
        "vectors": vectors,
        "queries": np.asarray(QUERIES),
        "axioms": np.asarray(IR_AXIOMS),
    }
    bm25 = BM25Ranker(index, k1=0.9, b=0.4)
    N = index.n_docs
    with tempfile.TemporaryDirectory() as tmp:
        for qid in QUERIES:
            q_tokens = an.analyze(ds.queries[qid].text)
            query = Query(qid, " ".join(q_tokens))
            own = list(ds.candidate_ids(qid))
            cands = (own + [d for d in doc_tokens if d not in own])[:N_CANDIDATES]
            cdocs = [docs[d] for d in cands]
            bm = bm25.score(query, cdocs)
            rank = np.empty(len(cands), dtype=np.int64)
            rank[np.argsort(-bm, kind="stable")] = np.arange(len(cands))
            scores = (N_CANDIDATES - rank).astype(np.float64)
            exp, out = Path(tmp) / qid / "export", Path(tmp) / qid / "out"
            exp.mkdir(parents=True)
            tids = index.term_ids(vocab)
            df = {t: int(index.df[i]) if i >= 0 else 0 for t, i in zip(vocab, tids, strict=True)}
            idf = {t: float(np.log((N + 1.0) / (df[t] + 0.5))) for t in vocab}
            (exp / "query.json").write_text(
                json.dumps(
                    {
                        "query": query.text,
                        "query_tokens": q_tokens,
                        "n_docs": N,
                        "df": df,
                        "idf": idf,
                        "docs": [
                            {"doc_id": d, "text": docs[d].text, "tokens": doc_tokens[d], "score": s}
                            for d, s in zip(cands, scores.tolist(), strict=True)
                        ],
                    }
                )
            )
            np.savez(
                exp / "vectors.npz", terms=np.asarray(vocab), vectors=vectors.astype(np.float32)
            )
            proc = subprocess.run(
                [str(REF_PY), str(REF_SCRIPT), str(exp), str(out), *IR_AXIOMS],
                capture_output=True,
                text=True,
                # ir_axioms iterates over sets of terms when it sums similarities: fix the string
                # hash seed so that its floating-point near-ties come out the same on every run
                env={**os.environ, "PYTHONHASHSEED": "0"},
            )
            if proc.returncode != 0:
                raise SystemExit(f"ir_axioms failed on {qid}:\n{proc.stderr[-3000:]}")
            ref = np.load(out / "preferences.npz")
            golden[f"{qid}.query_tokens"] = np.asarray(" ".join(q_tokens))
            golden[f"{qid}.candidates"] = np.asarray(cands)
            golden[f"{qid}.scores"] = scores
            for name in IR_AXIOMS:
                golden[f"{qid}.{name}"] = ref[name.replace("-", "_")].astype(np.int8)
            counts = {n: int((golden[f"{qid}.{n}"] > 0).sum()) for n in IR_AXIOMS}
            print(qid, query.text, json.dumps(counts))
    golden["meta"] = np.asarray(
        json.dumps(
            {
                "ir_axioms": version,
                "generator": "benchmarks/ir_axioms_ref/make_golden.py",
                "collection": "axiomatic.data.demo",
                "n_candidates": N_CANDIDATES,
                "vectors": f"numpy default_rng({SEED}).standard_normal((|V|, {DIM})) as float16",
                "scores": "30 - rank by BM25(k1=0.9, b=0.4) on the whitespace token index",
            }
        )
    )
    args.out.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(args.out, **golden)
    print(f"wrote {args.out} ({args.out.stat().st_size / 1024:.1f} KB)")


if __name__ == "__main__":
    main()
