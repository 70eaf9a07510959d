"""Graded datasets for the smooth CLIR experiment (Liu et al.): XQuAD graded CLIR with a chosen
number of NR documents per query, a user's Sasaki et al. (2018) files, NFCorpus with BM25
candidates, and a tiny generated cross-lingual graded set for CI.

Every dataset has integer grades 0 .. K-1 on its candidates (unjudged candidates are grade 0).
"""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np

from axiomatic.data.records import Dataset, Document, Query


def xquad_graded(
    data_root: str | Path | None,
    qlang: str,
    dlang: str,
    split: str,
    n_negatives: int = 40,
    nr_pool: str = "split",
) -> Dataset:
    """``xquad-clir/<q>-<d>/<split>`` (40 NR per query), or the same construction with
    ``n_negatives`` NR documents sampled per query (Figure 5: 20 .. 100).

    ``nr_pool="split"`` (the default and the canonical construction, that of the catalog) samples
    the NR paragraphs only from the other articles *of the same split*: no dev/test paragraph is
    ever a training candidate. A query gets at most what its split has (train: 145; dev/test:
    exactly 40, so asking for more gives 40 and a warning naming the split).

    ``nr_pool="all-leaky"`` samples them from all other articles (the pre-fix construction, named
    so that it cannot be picked by accident). XQuAD has only 240 paragraphs, so every dev/test
    MR/SR paragraph is then a grade-0 candidate of training queries: the model is trained to rank
    the test set's relevant paragraphs *low*, and the test scores fall below random. It is a test
    set leak, kept only to reproduce the old numbers. The old name ``"all"`` raises a ValueError.
    """
    from axiomatic.data.catalog import load_dataset, resolve_data_root
    from axiomatic.data.collections import XQUAD_NEGATIVES, load_xquad_clir
    from axiomatic.data.readers.xquad import check_nr_pool

    check_nr_pool(nr_pool)
    if int(n_negatives) == XQUAD_NEGATIVES and nr_pool == "split":
        return load_dataset(f"xquad-clir/{qlang}-{dlang}/{split}", data_root=data_root)
    return load_xquad_clir(
        resolve_data_root(data_root), qlang, dlang, split, int(n_negatives), nr_pool
    )


def english_paragraphs(data_root: str | Path | None) -> list[str]:
    """The English XQuAD paragraphs (the query language's side of the collection, for word2vec)."""
    from axiomatic.data.catalog import load_dataset

    ds = load_dataset("xquad-clir/en-en/train", data_root=data_root)
    return [d.text for d in ds.documents.values()]


def _first(folder: Path, patterns: tuple[str, ...]) -> Path | None:
    for pat in patterns:
        hits = sorted(folder.glob(pat))
        if hits:
            return hits[0]
    return None


def sasaki_splits(
    directory: str | Path, dev_queries: int = 20, seed: int = 0
) -> dict[str, Dataset]:
    """Train / dev / test datasets from a folder of Sasaki et al. (2018) files
    (``grade<TAB>query<TAB>document`` lines): ``train*``, ``dev*`` (optional: else ``dev_queries``
    queries are held out of train, seeded) and ``test*`` (``test1*`` preferred)."""
    from axiomatic.data.readers.sasaki import read_sasaki_clir
    from axiomatic.training.samplers import split_dev

    folder = Path(directory)
    if not folder.is_dir():
        raise FileNotFoundError(
            f"--sasaki {folder}: not a folder; give the folder holding the Sasaki et al. 2018 "
            "files (train*.txt, test1*.txt, optionally dev*.txt)"
        )
    files = {
        "train": _first(folder, ("train*",)),
        "dev": _first(folder, ("dev*",)),
        "test": _first(folder, ("test1*", "test*")),
    }
    for split in ("train", "test"):
        if files[split] is None:
            found = sorted(p.name for p in folder.iterdir())[:10]
            raise FileNotFoundError(
                f"--sasaki {folder}: no {split}* file (found {found}); expected the Sasaki "
                "et al. 2018 layout, e.g. train_sw_l100.txt and test1_sw_l100.txt"
            )
    lang = "xx"
    stem = files["train"].stem.split("_")  # type: ignore[union-attr]
    if len(stem) > 1:
        lang = stem[1]
    out: dict[str, Dataset] = {}
    for split, path in files.items():
        if path is None:
            continue
        s = read_sasaki_clir(path)
        out[split] = Dataset(
            name=f"sasaki-{lang}/{split}",
            queries=s.queries,
            documents=s.documents,
            qrels=s.qrels,
            candidates=s.candidates,
            split=split,
            language="en",
            doc_language=lang if lang != "xx" else None,
            rel_threshold=2,
            description=f"Sasaki et al. 2018 CLIR en->{lang} {split} ({path.name})",
            metadata={"source": str(path)},
        )
    if "dev" not in out:
        pool, dev = split_dev(out["train"], dev_queries, seed=seed)
        out["train"] = pool
        if dev is not None:
            out["dev"] = dev
    return out


def nfcorpus_graded(
    data_root: str | Path | None, split: str, depth: int, max_queries: int | None, seed: int = 0
) -> Dataset:
    """NFCorpus (grades 3-2-1, unjudged 0: K = 4) re-ranking the BM25 top-``depth``; at most
    ``max_queries`` queries with a judged document among their candidates (seeded subset)."""
    from axiomatic.experiments.common import load_split

    ds = load_split(f"nfcorpus/{split}", data_root, depth)
    qrels = ds.qrels or {}
    usable = sorted(
        q for q in ds.queries if any(d in qrels.get(q, {}) for d in ds.candidate_ids(q))
    )
    if max_queries is not None and len(usable) > max_queries:
        usable = sorted(random.Random(seed).sample(usable, max_queries))
    return ds.subset(usable, split=split)


def synthetic_graded_clir(
    n_topics: int = 6,
    paragraphs: int = 3,
    queries_per_paragraph: int = 4,
    n_negatives: int = 8,
    seed: int = 0,
) -> dict[str, Dataset]:
    """A tiny generated cross-lingual graded set (for CI): "topics" (articles) of paragraphs
    written with language-B words (``bT_k``, ``bpP_k``), queries with language-A words
    (``aT_k``, ``apP_k``) - no shared tokens, as in CLIR. Grade 2 = the query's paragraph, 1 = the
    topic's other paragraphs, 0 = ``n_negatives`` sampled paragraphs of other topics. Queries are
    split 2:1:1 into train / dev / test (paragraphs are shared, so the mapping is learnable)."""
    rng = np.random.default_rng(seed)
    docs: dict[str, Document] = {}
    topic_of: dict[str, int] = {}
    for t in range(n_topics):
        for p in range(paragraphs):
            pid = f"t{t}p{p}"
            words = [f"b{t}_{k}" for k in range(4)] + [f"bp{t}x{p}_{k}" for k in range(3)]
            noise = [f"bn{int(x)}" for x in rng.integers(0, 30, 6)]
            toks = words + noise
            rng.shuffle(toks)
            docs[pid] = Document(pid, " ".join(toks))
            topic_of[pid] = t
    queries: dict[str, Query] = {}
    own: dict[str, str] = {}
    for pid, t in topic_of.items():
        para = pid.split("p")[1]
        for j in range(queries_per_paragraph):
            qid = f"{pid}q{j}"
            toks = [f"a{t}_{int(k)}" for k in rng.choice(4, 2, replace=False)]
            toks += [f"ap{t}x{para}_{int(k)}" for k in rng.choice(3, 2, replace=False)]
            toks += [f"an{int(x)}" for x in rng.integers(0, 10, 2)]
            queries[qid] = Query(qid, " ".join(toks))
            own[qid] = pid
    cands: dict[str, list[str]] = {}
    qrels: dict[str, dict[str, int]] = {}
    for qid, pid in own.items():
        t = topic_of[pid]
        g = {d: 1 for d, tt in topic_of.items() if tt == t}
        g[pid] = 2
        others = [d for d, tt in topic_of.items() if tt != t]
        r = random.Random(f"{seed}:{qid}")
        for d in r.sample(others, min(n_negatives, len(others))):
            g[d] = 0
        c = list(g)
        r.shuffle(c)
        cands[qid], qrels[qid] = c, g
    order = list(rng.permutation(sorted(queries)))
    n = len(order)
    parts = {
        "train": order[: n // 2],
        "dev": order[n // 2 : 3 * n // 4],
        "test": order[3 * n // 4 :],
    }
    out = {}
    for split, qids in parts.items():
        qs = sorted(str(q) for q in qids)
        out[split] = Dataset(
            name=f"synthetic-clir/{split}",
            queries={q: queries[q] for q in qs},
            documents=docs,
            qrels={q: qrels[q] for q in qs},
            candidates={q: cands[q] for q in qs},
            split=split,
            language="en",
            doc_language="xx",
            rel_threshold=2,
            description="generated cross-lingual graded set (CI)",
            metadata={"seed": seed},
        )
    return out
