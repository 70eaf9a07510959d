"""Collection index: a sparse document-term count matrix plus the statistics rankers and axioms need.

Built once from any iterable of :class:`~axiomatic.data.records.Document`, saved to a directory
(``.npz`` + ``.json``, no pickle) and loaded back. Memory is that of the collection (one CSR matrix),
never of the number of queries. Each document's tokens (its positional index) are kept from the
same analysis pass by default, each as its slot in the document's row of the count matrix (1 byte
per token while no document has more than 256 distinct terms, whatever the vocabulary), so
proximity features never re-analyze texts.
"""

from __future__ import annotations

import json
import mmap
import os
import tempfile
from array import array
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from itertools import repeat
from pathlib import Path

import numpy as np
import scipy.sparse as sp

from axiomatic.data.records import Document
from axiomatic.text.analyzer import Analyzer

#: 2: the positional index holds row slots (``token_slots.npy``); format 1 (term ids,
#: ``token_ids.npy``) still loads, converted to slots
FORMAT_VERSION = 2
#: the formats :meth:`CollectionIndex.load` reads
READS_FORMATS = (1, 2)

#: tokens held as strings at a time while indexing (then counted into their rows)
_CHUNK_TOKENS = 1 << 16

#: surface tokens whose term id :meth:`CollectionIndex.query_term_ids` keeps (then starts over)
_SURFACE_CACHE = 1 << 20


def slot_dtype(row_terms: int) -> type[np.unsignedinteger]:
    """The narrowest unsigned type of the positional index when no document has more than
    ``row_terms`` distinct terms (a token is its slot in its row of the count matrix, below
    that number): ``uint8`` up to 256, ``uint16`` up to 65,536, else ``uint32``."""
    if row_terms <= 1 << 8:
        return np.uint8
    return np.uint16 if row_terms <= 1 << 16 else np.uint32


def _slots_from_term_ids(
    tf: sp.csr_matrix, ids: np.ndarray, offsets: np.ndarray, rows_per_step: int = 1 << 14
) -> np.ndarray:
    """The slots (:attr:`CollectionIndex.token_slots`) of a positional index of term ids (the
    index format 1), by rows a step at a time (memory: one step's keys). Raises
    ``ValueError`` where a token's term is not in its row of ``tf``."""
    n, n_terms = tf.shape
    width = np.diff(tf.indptr)
    out = np.empty(len(ids), dtype=slot_dtype(int(width.max()) if n else 0))
    v = max(n_terms, 1)
    for r0 in range(0, n, rows_per_step):
        r1 = min(r0 + rows_per_step, n)
        e0, e1 = int(tf.indptr[r0]), int(tf.indptr[r1])
        t0, t1 = int(offsets[r0]), int(offsets[r1])
        entry_row = np.repeat(np.arange(r1 - r0, dtype=np.int64), width[r0:r1])
        ekey = entry_row * v + tf.indices[e0:e1]
        order = np.argsort(ekey, kind="stable")  # the rows' terms need not be sorted
        ekey = ekey[order]
        tok_row = np.repeat(np.arange(r1 - r0, dtype=np.int64), np.diff(offsets[r0 : r1 + 1]))
        tkey = tok_row * v + ids[t0:t1].astype(np.int64)
        if len(ekey) == 0:
            ekey = np.full(1, -1, dtype=np.int64)  # matches no token
        at = np.minimum(np.searchsorted(ekey, tkey), len(ekey) - 1)
        miss = ekey[at] != tkey
        if miss.any():
            bad = int(np.flatnonzero(miss)[0])
            raise ValueError(
                f"the positional index does not match the counts (document row "
                f"{r0 + int(tok_row[bad])}: term id {int(ids[t0 + bad])} is not in its row)"
            )
        out[t0:t1] = order[at] - (tf.indptr[r0 + tok_row] - e0)
    return out


def _anonymous(nbytes: int) -> mmap.mmap:
    """``nbytes`` of memory of their own (an anonymous memory map; private pages on POSIX,
    like the heap's), returned to the system when the last array viewing them is freed."""
    if hasattr(mmap, "MAP_PRIVATE"):
        return mmap.mmap(-1, nbytes, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
    return mmap.mmap(-1, nbytes)


class _Pieces:
    """Arrays appended one after another, then copied end to end into one array.

    The pieces live in blocks of memory of their own (:func:`_anonymous`), not on the heap:
    the build keeps every chunk's pieces until its end while the chunk's temporaries and the
    build's growing containers come and go around them, so from the heap, once copied out and
    freed, they would leave it full of holes that the allocator keeps resident (about the
    index's size again). A block goes back to the system when its last piece is copied.
    """

    #: bytes per block (a larger piece gets a block of its size); untouched pages cost nothing
    BLOCK = 1 << 22

    def __init__(self) -> None:
        self._pieces: list[np.ndarray] = []
        self._block: mmap.mmap | None = None
        self._used = 0

    def append(self, values: np.ndarray, dtype: type[np.generic]) -> None:
        """Keep a copy of ``values`` as ``dtype``."""
        n = len(values)
        nbytes = n * np.dtype(dtype).itemsize
        if self._block is None or self._used + nbytes > len(self._block):
            self._block = _anonymous(max(self.BLOCK, nbytes))
            self._used = 0
        piece = np.frombuffer(self._block, dtype=dtype, count=n, offset=self._used)
        piece[:] = values
        self._used += -(-nbytes // 8) * 8  # the next piece 8-byte aligned
        self._pieces.append(piece)

    def concat(self, dtype: type[np.generic]) -> np.ndarray:
        """Every piece end to end as ``dtype``, emptying this (a block is freed once its
        pieces are copied: the peak is the result plus the pieces not yet copied)."""
        self._block = None
        pieces = self._pieces
        out: np.ndarray = np.empty(sum(len(p) for p in pieces), dtype=dtype)
        at = 0
        pieces.reverse()
        while pieces:
            p = pieces.pop()
            out[at : at + len(p)] = p
            at += len(p)
        return out


@dataclass
class AnalyzedDocs:
    """Term counts of documents analyzed against an index vocabulary (possibly not in the index).

    ``tf`` is ``n_docs x n_terms`` (CSR) over the index vocabulary; tokens the vocabulary lacks
    still count towards ``doc_len`` (they are part of the document), they just match no term.
    """

    tf: sp.csr_matrix
    doc_len: np.ndarray


class CollectionIndex:
    """Sparse term statistics of a document collection.

    Attributes
    ----------
    doc_ids: list of document ids, row order of ``tf``.
    terms: list of index terms, column order of ``tf``.
    tf: ``n_docs x n_terms`` CSR matrix of term counts (int32).
    doc_len: analyzed length of each document (int64).
    df, cf: document and collection frequency per term (int64).
    """

    def __init__(
        self,
        analyzer: Analyzer,
        doc_ids: list[str],
        terms: list[str],
        tf: sp.csr_matrix,
        doc_len: np.ndarray,
        texts: Mapping[str, str] | None = None,
        token_slots: tuple[np.ndarray, np.ndarray] | None = None,
        doc_index: dict[str, int] | None = None,
        vocab: dict[str, int] | None = None,
    ) -> None:
        self.analyzer = analyzer
        self.doc_ids = doc_ids
        self.terms = terms
        self.tf = tf
        self.doc_len = doc_len
        self.texts = texts
        self.doc_index: dict[str, int] = (
            doc_index if doc_index is not None else {d: i for i, d in enumerate(doc_ids)}
        )
        # ``doc_index``/``vocab``: the maps the build made already (not checked; else derived)
        self.vocab: dict[str, int] = (
            vocab if vocab is not None else {t: i for i, t in enumerate(terms)}
        )
        # from the stored entries (no boolean copy of the matrix); stored zeros count in neither
        stored = tf.indices if bool(np.all(tf.data > 0)) else tf.indices[tf.data > 0]
        self.df = np.bincount(stored, minlength=tf.shape[1]).astype(np.int64)
        self.cf = np.bincount(tf.indices, weights=tf.data, minlength=tf.shape[1]).astype(np.int64)
        self._tf_csc: sp.csc_matrix | None = None
        self._token_ids: dict[int, np.ndarray] = {}
        self._surface_ids: dict[str, int] = {}  # surface token -> term id (query_term_ids)
        # The positional index of every document, from the pass that counted its terms:
        # ``(slots, offsets)``, document ``r``'s tokens are ``slots[offsets[r]:offsets[r + 1]]``,
        # each the token's slot in row ``r`` of ``tf`` (its term id is
        # ``tf.indices[tf.indptr[r] + slot]``; :meth:`token_ids` decodes). A slot is below the
        # row's number of distinct terms whatever the vocabulary: :func:`slot_dtype`, 1 byte
        # per token while no document has more than 256 distinct terms. Slots depend on the
        # order of each row's entries: ``tf`` is never reordered after the build. Proximity
        # axioms read candidates' tokens here instead of analyzing their texts at query time.
        self.token_slots = token_slots
        if token_slots is not None and (
            len(token_slots[1]) != len(doc_ids) + 1 or token_slots[1][-1] != len(token_slots[0])
        ):
            raise ValueError(
                f"the positional index has {len(token_slots[1]) - 1} documents and "
                f"{len(token_slots[0])} tokens, not the index's {len(doc_ids)} documents; "
                "rebuild the index"
            )

    # ------------------------------------------------------------------ build
    @classmethod
    def build(
        cls,
        documents: Iterable[Document],
        analyzer: Analyzer,
        keep_texts: bool = True,
        progress: bool = False,
        positions: bool = True,
    ) -> CollectionIndex:
        """Analyze and count every document in one streaming pass.

        Documents are analyzed in chunks of about :data:`_CHUNK_TOKENS` tokens; each chunk is
        counted into its rows of the count matrix at once (its tokens as strings, then as ids,
        live only while the chunk is counted), so the build's memory is the index it returns
        plus one chunk, not a copy of every token (the chunks' pieces wait in memory of their
        own, :class:`_Pieces`). ``positions`` also keeps each document's tokens from the same
        pass (the positional index, :attr:`token_slots`: each token's slot in its row, from the
        chunk's sorted (row, term) keys; 1 byte per token while no document has more than 256
        distinct terms, whatever the vocabulary; each chunk's slots are kept in the type its
        rows need, so the final copy never holds a wider one), so that proximity features never
        analyze a candidate at query time; ``False`` keeps none (a lower peak and resident
        size) and analyzes candidates lazily instead (once per document, :meth:`token_ids`).
        """
        vocab: dict[str, int] = {}
        # surface token -> term id (-1: a stopword). Analysis is per token after tokenizing
        # (stopping, then stemming), so each distinct surface form is analyzed once. A chunk's
        # new surface forms are found in one C-level pass (``dict.fromkeys`` keeps first
        # occurrences in order, the order term ids are assigned in) and its tokens become ids
        # in another (``map``): no Python loop over tokens.
        tok2id: dict[str, int] = {}
        stopwords = analyzer.stopword_set
        stem = analyzer.stem
        # per chunk: the rows' distinct term ids and counts (CSR pieces), their number of
        # distinct terms, their kept lengths, and (``positions``) their kept tokens' slots
        p_indices, p_data, p_nnz, p_len, p_slots = (_Pieces() for _ in range(5))
        widest = 0  # the most distinct terms of a document
        doc_ids: list[str] = []
        texts: dict[str, str] | None = {} if keep_texts else None
        doc_index: dict[str, int] = {}
        it: Iterable[Document] = documents
        if progress:
            from axiomatic._progress import track

            it = track(documents, description="indexing")
        chunk: list[str] = []
        ends = array("q")  # end offset of each document of the chunk in ``chunk``

        def flush() -> None:
            nonlocal widest
            if not ends:
                return
            new = [t for t in dict.fromkeys(chunk) if t not in tok2id]
            kept = []
            for t in new:
                if t in stopwords:
                    tok2id[t] = -1
                else:
                    kept.append(t)
            # one stemmer call per chunk; ``tok2id`` is the cache, the analyzer's stays as it was
            for t, term in zip(kept, stem(kept, cache=False), strict=True):
                tok2id[t] = vocab.setdefault(term, len(vocab))
            ids = np.fromiter(map(tok2id.__getitem__, chunk), np.int32, len(chunk))
            chunk.clear()
            n_rows = len(ends)
            keep = ids >= 0
            # kept tokens per document: kept-token prefix sums at each document's end
            kept_before = np.concatenate(([0], np.cumsum(keep, dtype=np.int64)))
            doc_ends = np.concatenate(([0], np.frombuffer(ends, np.int64)))  # a copy
            del ends[:]
            lens = np.diff(kept_before[doc_ends])
            ids = ids[keep]
            del keep, kept_before
            # one (row, term) key per token, sorted: equal keys are one posting and its count
            n_terms = max(len(vocab), 1)
            tok_key = np.repeat(np.arange(n_rows, dtype=np.int64) * n_terms, lens)
            tok_key += ids
            del ids
            key = tok_key.copy() if positions else tok_key  # ``positions``: slots need both
            key.sort()
            first = np.flatnonzero(np.concatenate(([len(key) > 0], key[1:] != key[:-1])))
            counts = np.diff(np.append(first, len(key)))
            key = key[first]
            nnz = np.bincount(key // n_terms, minlength=n_rows)
            if positions:
                # a token's slot: its key's place among the sorted distinct keys, less its
                # row's first (each row's terms ascend, as in the CSR rows built from them)
                row_first = np.cumsum(nnz) - nnz
                slots = np.searchsorted(key, tok_key) - np.repeat(row_first, lens)
                top = int(nnz.max()) if n_rows else 0
                widest = max(widest, top)
                p_slots.append(slots, slot_dtype(top))
                del slots, row_first
            del tok_key
            p_indices.append(key % n_terms, np.int32)
            p_data.append(counts, np.int32)
            p_nnz.append(nnz, np.int64)
            p_len.append(lens, np.int64)

        for doc in it:
            if doc.doc_id in doc_index:
                raise ValueError(
                    f"duplicate document id {doc.doc_id!r}: document ids must be unique"
                )
            doc_index[doc.doc_id] = len(doc_ids)
            doc_ids.append(doc.doc_id)
            tokens = analyzer.tokenize(doc.text)
            chunk.extend(tokens)
            ends.append(len(chunk))
            if texts is not None:
                texts[doc.doc_id] = doc.text
            if len(chunk) >= _CHUNK_TOKENS:
                flush()
        flush()
        n = len(doc_ids)
        doc_len = p_len.concat(np.int64)
        indptr = np.zeros(n + 1, dtype=np.int64)
        np.cumsum(p_nnz.concat(np.int64), out=indptr[1:])
        # the pieces are freed as they are copied: the peak is one array plus the pieces left
        indices = p_indices.concat(np.int32)
        data = p_data.concat(np.int32)
        tf = sp.csr_matrix((data, indices, indptr), shape=(n, len(vocab)))
        table = None
        if positions:
            offsets = np.zeros(n + 1, dtype=np.int64)
            np.cumsum(doc_len, out=offsets[1:])
            table = (p_slots.concat(slot_dtype(widest)), offsets)
        terms = [""] * len(vocab)
        for t, i in vocab.items():
            terms[i] = t
        return cls(
            analyzer, doc_ids, terms, tf, doc_len, texts, table, doc_index=doc_index, vocab=vocab
        )

    # ------------------------------------------------------------------ stats
    @property
    def n_docs(self) -> int:
        return len(self.doc_ids)

    @property
    def n_terms(self) -> int:
        return len(self.terms)

    @property
    def total_terms(self) -> int:
        return int(self.doc_len.sum())

    @property
    def avg_doc_len(self) -> float:
        return float(self.doc_len.mean()) if self.n_docs else 0.0

    @property
    def tf_csc(self) -> sp.csc_matrix:
        """Column-major copy of ``tf`` (built lazily; fast term -> posting access; the rows of
        each column sorted). Its counts are in the smallest unsigned integer type that holds
        the largest one (``uint8`` for most collections): retrieval reads a quarter of the
        bytes per count, and the copy costs 5 bytes per posting instead of 8."""
        if self._tf_csc is None:
            tf = self.tf
            top = int(tf.data.max()) if tf.nnz else 0
            small = next(
                (t for t in (np.uint8, np.uint16, np.uint32) if top <= np.iinfo(t).max), None
            )
            if small is not None and bool(np.all(tf.data >= 0)):
                tf = sp.csr_matrix((tf.data.astype(small), tf.indices, tf.indptr), shape=tf.shape)
            csc = tf.tocsc()
            if not csc.has_sorted_indices:
                csc.sort_indices()
            self._tf_csc = csc
        return self._tf_csc

    def query_term_ids(self, texts: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
        """Every text's analyzed tokens as term ids, end to end: ``(ptr, ids)``, text ``i``'s
        are ``ids[ptr[i]:ptr[i + 1]]`` (int64; ``-1`` for a stopword or a term the collection
        lacks), the same terms as :meth:`Analyzer.analyze` gives.

        Analysis after tokenizing is per token, so each distinct surface token is analyzed
        once and its id remembered (up to :data:`_SURFACE_CACHE` of them): a batch of queries
        costs a tokenization and a dictionary lookup per token.
        """
        known = self._surface_ids
        tokenize = self.analyzer.tokenize
        flat: list[int | None] = []
        ptr = array("q", [0])
        for text in texts:
            tokens = tokenize(text)
            ids = list(map(known.get, tokens))
            if None in ids:
                self._learn_surface(tokens)
                ids = list(map(known.__getitem__, tokens))
            flat.extend(ids)
            ptr.append(len(flat))
        return (
            np.frombuffer(ptr, dtype=np.int64).copy(),
            np.fromiter(flat, dtype=np.int64, count=len(flat)),
        )

    def _learn_surface(self, tokens: Sequence[str]) -> None:
        known = self._surface_ids
        if len(known) > _SURFACE_CACHE:
            known.clear()
        new = [t for t in dict.fromkeys(tokens) if t not in known]
        stopwords = self.analyzer.stopword_set
        kept = [t for t in new if t not in stopwords]
        known.update(dict.fromkeys(new, -1))
        get = self.vocab.get
        for t, term in zip(kept, self.analyzer.stem(kept), strict=True):
            known[t] = get(term, -1)

    def collection_prob(self, term_ids: np.ndarray) -> np.ndarray:
        """p(t|C) = cf(t) / |C|; 0 for out-of-vocabulary ids (-1)."""
        term_ids = np.asarray(term_ids)
        out = np.zeros(term_ids.shape, dtype=np.float64)
        ok = term_ids >= 0
        total = max(self.total_terms, 1)
        out[ok] = self.cf[term_ids[ok]] / total
        return out

    def term_ids(self, terms: Sequence[str]) -> np.ndarray:
        """Column ids of analyzed ``terms`` (``-1`` for terms the collection lacks)."""
        return np.asarray([self.vocab.get(t, -1) for t in terms], dtype=np.int64)

    def rows(self, doc_ids: Sequence[str]) -> np.ndarray:
        """Row ids of ``doc_ids``; raises ``KeyError`` naming the unknown ids."""
        idx = self.doc_index
        try:
            return np.asarray([idx[d] for d in doc_ids], dtype=np.int64)
        except KeyError:
            missing = [d for d in doc_ids if d not in idx]
            raise KeyError(
                f"{len(missing)} document id(s) not in the index, e.g. {missing[:3]}"
            ) from None

    def counts(self, rows: np.ndarray, term_ids: np.ndarray) -> np.ndarray:
        """Dense ``len(rows) x len(term_ids)`` count matrix (0 for OOV term ids)."""
        rows = np.asarray(rows, dtype=np.int64)
        term_ids = np.asarray(term_ids, dtype=np.int64)
        out = np.zeros((len(rows), len(term_ids)), dtype=np.int64)
        ok = np.nonzero(term_ids >= 0)[0]
        if len(ok) and len(rows):
            sub = self.tf[rows][:, term_ids[ok]]
            out[:, ok] = sub.toarray()
        return out

    def analyze_texts(self, texts: Sequence[str]) -> AnalyzedDocs:
        """Count vectors of arbitrary texts over this index's vocabulary (e.g. artificial docs)."""
        indptr = [0]
        indices: list[int] = []
        data: list[int] = []
        lens = []
        for text in texts:
            tokens = self.analyzer.analyze(text)
            lens.append(len(tokens))
            for term, c in Counter(tokens).items():
                tid = self.vocab.get(term)
                if tid is not None:
                    indices.append(tid)
                    data.append(c)
            indptr.append(len(indices))
        tf = sp.csr_matrix(
            (
                np.asarray(data, dtype=np.int32),
                np.asarray(indices, dtype=np.int32),
                np.asarray(indptr),
            ),
            shape=(len(texts), self.n_terms),
        )
        return AnalyzedDocs(tf=tf, doc_len=np.asarray(lens, dtype=np.int64))

    def text(self, doc_id: str) -> str:
        if self.texts is None:
            raise ValueError("this index was built with keep_texts=False; texts are not available")
        return self.texts[doc_id]

    def token_ids(self, row: int, text: str | None = None) -> np.ndarray:
        """The analyzed document at index row ``row`` as an ``int32`` array of term ids (its
        positional index: position ``p`` holds the id of the ``p``-th token).

        Decoded from :attr:`token_slots` when the index keeps positions; else analyzed once per
        document and kept, so that proximity features of many queries sharing a candidate do
        not analyze it again. ``text`` is the indexed text when the index was built without
        texts (``keep_texts=False``).
        """
        if self.token_slots is not None:
            slots, offsets = self.token_slots
            tf = self.tf
            terms = tf.indices[tf.indptr[row] : tf.indptr[row + 1]]
            return terms[slots[offsets[row] : offsets[row + 1]]].astype(np.int32)
        out = self._token_ids.get(row)
        if out is None:
            if text is None:
                text = self.text(self.doc_ids[row])
            toks = self.analyzer.analyze(text)
            out = np.fromiter(
                map(self.vocab.get, toks, repeat(-1)), dtype=np.int32, count=len(toks)
            )
            self._token_ids[row] = out
        return out

    def gather_token_ids(self, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The term ids of the documents at index rows ``rows``, end to end, decoded from
        :attr:`token_slots` in a few array operations: ``(ids, lens)``, ``int64`` ids, row
        ``rows[k]``'s ``lens[k]`` tokens after those of the rows before it. Needs the
        positional index (``positions=True``)."""
        if self.token_slots is None:
            raise ValueError(
                "this index keeps no positional index (built with positions=False); "
                "rebuild it with positions=True"
            )
        slots, offsets = self.token_slots
        tf = self.tf
        rows = np.asarray(rows, dtype=np.int64)
        starts = offsets[rows]
        lens = offsets[rows + 1] - starts
        total = int(lens.sum())
        # per token: its slot's index in the table, and its row's first entry in ``tf``
        at = np.arange(total, dtype=np.int64) + np.repeat(starts - (np.cumsum(lens) - lens), lens)
        entry = np.repeat(tf.indptr[rows].astype(np.int64), lens)
        entry += slots[at]
        return tf.indices[entry].astype(np.int64), lens

    def positions(self, doc_id: str) -> dict[str, list[int]]:
        """Positions of each term in the analyzed document (computed on demand)."""
        out: dict[str, list[int]] = {}
        for i, t in enumerate(self.analyzer.analyze(self.text(doc_id))):
            out.setdefault(t, []).append(i)
        return out

    # ------------------------------------------------------------------ persistence
    def save(self, path: str | os.PathLike[str]) -> Path:
        """Write the index to directory ``path`` atomically (temp dir + rename)."""
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(prefix=".tmp-index-", dir=path.parent))
        sp.save_npz(tmp / "tf.npz", self.tf, compressed=False)
        np.save(tmp / "doc_len.npy", self.doc_len)
        meta = {
            "format_version": FORMAT_VERSION,
            "analyzer": self.analyzer.config(),
            "analyzer_hash": self.analyzer.config_hash,
            "n_docs": self.n_docs,
            "n_terms": self.n_terms,
        }
        (tmp / "meta.json").write_text(json.dumps(meta, indent=1), encoding="utf-8")
        (tmp / "doc_ids.json").write_text(json.dumps(self.doc_ids), encoding="utf-8")
        (tmp / "terms.json").write_text(
            json.dumps(self.terms, ensure_ascii=False), encoding="utf-8"
        )
        if self.token_slots is not None:
            np.save(tmp / "token_slots.npy", self.token_slots[0])
            np.save(tmp / "token_offsets.npy", self.token_slots[1])
        if self.texts is not None:
            with open(tmp / "texts.jsonl", "w", encoding="utf-8") as fh:
                for d in self.doc_ids:
                    fh.write(json.dumps(self.texts[d], ensure_ascii=False) + "\n")
        if path.exists():
            import shutil

            old = path.with_name(path.name + ".old")
            if old.exists():
                shutil.rmtree(old)
            path.rename(old)
            tmp.rename(path)
            shutil.rmtree(old)
        else:
            tmp.rename(path)
        return path

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> CollectionIndex:
        path = Path(path)
        meta_file = path / "meta.json"
        if not meta_file.exists():
            raise FileNotFoundError(f"{path} is not an axiomatic index (no meta.json)")
        meta = json.loads(meta_file.read_text(encoding="utf-8"))
        version = meta.get("format_version")
        if version not in READS_FORMATS:
            newer = isinstance(version, int) and version > FORMAT_VERSION
            raise ValueError(
                f"{path}: index format {version} but this version reads formats "
                f"{', '.join(map(str, READS_FORMATS))}; "
                + ("upgrade axiomatic-ir or rebuild the index" if newer else "rebuild the index")
            )
        analyzer = Analyzer.from_config(meta["analyzer"])
        tf = sp.load_npz(path / "tf.npz").tocsr()
        doc_len = np.load(path / "doc_len.npy")
        doc_ids = json.loads((path / "doc_ids.json").read_text(encoding="utf-8"))
        terms = json.loads((path / "terms.json").read_text(encoding="utf-8"))
        texts = None
        if (path / "texts.jsonl").exists():
            with open(path / "texts.jsonl", encoding="utf-8") as fh:
                texts = {d: json.loads(line) for d, line in zip(doc_ids, fh, strict=True)}
        table = None
        if (path / "token_offsets.npy").exists():
            offsets = np.load(path / "token_offsets.npy")
            if (path / "token_slots.npy").exists():
                table = (np.load(path / "token_slots.npy"), offsets)
            elif (path / "token_ids.npy").exists():  # format 1: term ids, converted to slots
                ids = np.load(path / "token_ids.npy", mmap_mode="r")
                try:
                    table = (_slots_from_term_ids(tf, ids, offsets), offsets)
                except ValueError as exc:
                    raise ValueError(f"{path}: {exc}; rebuild the index") from None
                del ids
        return cls(analyzer, doc_ids, terms, tf, doc_len, texts, table)

    def __repr__(self) -> str:
        return (
            f"CollectionIndex(n_docs={self.n_docs}, n_terms={self.n_terms}, "
            f"avg_doc_len={self.avg_doc_len:.1f}, analyzer={self.analyzer.config_hash})"
        )
