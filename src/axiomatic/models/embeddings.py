"""Initial word embeddings for the word-level models.

Two sources, both offline and seeded:

* ``word2vec`` trained on the training collection with gensim (CBOW or skip-gram, one worker so
  that the same seed gives the same vectors);
* ``minilm``: a word's vector is the mean of the MiniLM input (word-piece) embeddings of its
  pieces, 384-d, optionally reduced with PCA.

Rows 0 (padding) and 1 (OOV) are zero: the models treat both as "no word".
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np

from axiomatic.models.vocab import Vocabulary

EMBEDDING_SOURCES = ("random", "word2vec", "minilm")


def random_embeddings(vocab: Vocabulary, dim: int, seed: int = 0) -> np.ndarray:
    """``N(0, 0.1^2)`` vectors (rows 0 and 1 zero)."""
    rng = np.random.default_rng(seed)
    emb = rng.normal(0.0, 0.1, size=(len(vocab), dim)).astype(np.float32)
    emb[:2] = 0.0
    return emb


def train_word2vec(
    texts: Iterable[str],
    vocab: Vocabulary,
    dim: int = 128,
    window: int = 5,
    epochs: int = 5,
    sg: bool = False,
    min_count: int = 1,
    sample: float = 1e-3,
    negative: int = 5,
    seed: int = 0,
    workers: int = 1,
) -> np.ndarray:
    """word2vec vectors (Mikolov et al., 2013) for every word of ``vocab``, trained on ``texts``.

    ``texts`` are tokenized with the vocabulary's analyzer. Words of ``vocab`` that word2vec did not
    learn (too rare in ``texts``) get small random vectors from ``seed``. One worker thread keeps
    the result deterministic for a given seed. ``sample`` is word2vec's down-sampling threshold of
    frequent words (use 0 for tiny corpora, where every word is "frequent"). ``workers > 1`` is
    faster on large collections but no longer bit-reproducible (gensim's threads race).
    """
    try:
        from gensim.models import Word2Vec
    except ImportError as exc:
        raise ImportError("word2vec embeddings need gensim: pip install gensim") from exc
    sentences = [vocab.tokenize(t) for t in texts]
    sentences = [s for s in sentences if s]
    if not sentences:
        raise ValueError("train_word2vec got no tokens: pass the training collection's texts")
    w2v = Word2Vec(
        sentences=sentences,
        vector_size=dim,
        window=window,
        min_count=min_count,
        sg=int(sg),
        workers=workers,
        seed=seed,
        epochs=epochs,
        sample=sample,
        negative=negative,
        hashfxn=_stable_hash,
    )
    emb = random_embeddings(vocab, dim, seed=seed)
    kv = w2v.wv
    hits = [(i, kv.key_to_index[t]) for i, t in enumerate(vocab.tokens) if t in kv.key_to_index]
    if hits:
        rows, src = np.array(hits).T
        emb[rows] = kv.vectors[src]
    emb[:2] = 0.0
    return emb


def _stable_hash(text: str) -> int:
    # gensim's default is Python's salted ``hash``; a fixed hash keeps runs reproducible
    import zlib

    return zlib.crc32(text.encode("utf-8"))


def minilm_embeddings(vocab: Vocabulary, dim: int | None = None) -> np.ndarray:
    """MiniLM input embeddings: mean of each word's word-piece vectors (384-d).

    With ``dim < 384`` the vectors are projected on their first ``dim`` principal components
    (deterministic). Words the tokenizer maps to ``[UNK]`` only get its vector.
    """
    import torch

    from axiomatic.models.hf_loader import MINILM_DIM, load_encoder, load_tokenizer

    tok = load_tokenizer()
    encoder = load_encoder()
    table = encoder.get_input_embeddings().weight.detach().float()
    words = vocab.tokens[2:]
    pieces = tok(words, add_special_tokens=False)["input_ids"]
    flat = [p for ids in pieces for p in (ids or [tok.unk_token_id])]
    owner = [i for i, ids in enumerate(pieces) for _ in range(max(1, len(ids)))]
    sums = torch.zeros((len(words), table.shape[1]))
    sums.index_add_(0, torch.tensor(owner, dtype=torch.long), table[torch.tensor(flat)])
    counts = torch.bincount(torch.tensor(owner, dtype=torch.long), minlength=len(words))
    vecs = (sums / counts.clamp(min=1).unsqueeze(1)).numpy()
    if dim is not None and dim != MINILM_DIM:
        if not 1 <= dim < MINILM_DIM:
            raise ValueError(
                f"minilm embeddings have {MINILM_DIM} dims; dim must be 1..384 (got {dim})"
            )
        centered = vecs - vecs.mean(axis=0, keepdims=True)
        _, _, vt = np.linalg.svd(centered, full_matrices=False)
        vecs = centered @ vt[:dim].T
    out = np.zeros((len(vocab), vecs.shape[1]), dtype=np.float32)
    out[2:] = vecs
    return out


def make_embeddings(
    source: str | np.ndarray,
    vocab: Vocabulary,
    dim: int,
    texts: Iterable[str] | None = None,
    seed: int = 0,
    **word2vec_options: Any,
) -> np.ndarray:
    """Embedding matrix ``(len(vocab), dim)`` from ``source`` (a name in
    :data:`EMBEDDING_SOURCES` or a ready matrix)."""
    if isinstance(source, np.ndarray):
        if source.shape != (len(vocab), dim):
            raise ValueError(
                f"embedding matrix has shape {source.shape}; expected ({len(vocab)}, {dim}) "
                "(vocabulary size x embedding_dim)"
            )
        return source.astype(np.float32)
    if source == "random":
        return random_embeddings(vocab, dim, seed)
    if source == "word2vec":
        if texts is None:
            raise ValueError("embeddings='word2vec' needs texts=... (the training collection)")
        return train_word2vec(texts, vocab, dim=dim, seed=seed, **word2vec_options)
    if source == "minilm":
        return minilm_embeddings(vocab, dim)
    from axiomatic._suggest import suggest

    raise ValueError(
        f"unknown embedding source {source!r}{suggest(source, EMBEDDING_SOURCES, n=1, cutoff=0.6)}"
        f"; expected one of {EMBEDDING_SOURCES}"
    )
