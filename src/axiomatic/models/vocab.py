"""Word vocabulary shared by the word-level neural models (KNRM, Conv-KNRM, DRMM, ...).

Tokens come from the project :class:`~axiomatic.text.analyzer.Analyzer` (by default surface tokens:
lowercased, no stopping, no stemming), so that the models and the axioms agree on what a word is.
Id 0 is padding and id 1 stands for every out-of-vocabulary token.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import torch

from axiomatic.text.analyzer import Analyzer

PAD_ID = 0
OOV_ID = 1
PAD_TOKEN = "<pad>"
OOV_TOKEN = "<oov>"


#: token patterns of well-known tokenizers accepted from a model folder besides the project's
#: own: scikit-learn's CountVectorizer and bm25s (``(?u)\b\w\w+\b``), whitespace
#: splitting, word characters without the underscore, ASCII letters / alphanumerics. Each is
#: one character class under one quantifier, so ``re.findall`` runs in linear time.
WELL_KNOWN_TOKEN_PATTERNS = frozenset(
    {
        r"(?u)\b\w\w+\b",
        r"\b\w\w+\b",
        r"\w+",
        r"\S+",
        r"[^\W_]+",
        r"(?u)[^\W_]+",
        r"[A-Za-z]+",
        r"[a-z]+",
        r"[a-z0-9]+",
        r"[A-Za-z0-9]+",
    }
)


def _known_patterns() -> frozenset[str]:
    from axiomatic.text import analyzer as an

    own = {
        str(v) for k, v in vars(an).items() if k.endswith("TOKEN_PATTERN") and isinstance(v, str)
    }
    return frozenset(own) | WELL_KNOWN_TOKEN_PATTERNS


def check_token_pattern(pattern: object, source: str = "token_pattern") -> str:
    r"""``pattern`` if it is one of the known tokenizer patterns, else ``ValueError`` naming
    ``source``.

    A saved model folder is untrusted input, and its analyzer's ``token_pattern`` is run with
    ``re.findall`` on every query and document: a pattern such as ``(a+)+$`` backtracks
    exponentially (catastrophic backtracking, ReDoS), and even ``[\w ]*[\w ]*!`` turns a
    3,000-character passage into seconds of matching. Deciding in general whether a pattern
    is safe needs Python's private regex parser and still misses such cases, so a model folder
    may only name a pattern from an allow-list: the project's own analyzer patterns and
    :data:`WELL_KNOWN_TOKEN_PATTERNS`. Any other pattern can still be used deliberately by
    building the ``Analyzer`` in code.
    """
    if not isinstance(pattern, str):
        raise ValueError(f"{source}: token_pattern must be a string (got {pattern!r})")
    known = _known_patterns()
    if pattern in known:
        return pattern
    shown = pattern if len(pattern) <= 80 else pattern[:77] + "..."
    raise ValueError(
        f"{source}: token_pattern {shown!r} is refused: a model folder may only use a known "
        "tokenizer pattern (an unknown regex can take exponential time on crafted text, "
        f"catastrophic backtracking); known: {', '.join(repr(k) for k in sorted(known))}. "
        "Build the Analyzer in code if you trust the pattern"
    )


def check_analyzer_config(config: object, source: str) -> None:
    """Validate the ``token_pattern`` of an analyzer config read from a model folder."""
    if isinstance(config, dict) and "token_pattern" in config:
        check_token_pattern(config["token_pattern"], source)


def model_analyzer(language: str = "en") -> Analyzer:
    """The default analyzer of the word-level models: surface tokens, no stopping, no stemming."""
    return Analyzer(language=language, stopwords=False, stemmer=None)


class Vocabulary:
    """Maps tokens to integer ids (``0`` = padding, ``1`` = OOV, real words from ``2``).

    Build it from texts with :meth:`build`; ``tokens[i]`` is the word of id ``i``.
    """

    def __init__(self, tokens: Sequence[str], analyzer: Analyzer | None = None) -> None:
        tokens = list(tokens)
        if tokens[:2] != [PAD_TOKEN, OOV_TOKEN]:
            tokens = [PAD_TOKEN, OOV_TOKEN, *[t for t in tokens if t not in (PAD_TOKEN, OOV_TOKEN)]]
        self.tokens: list[str] = tokens
        self.analyzer: Analyzer = analyzer if analyzer is not None else model_analyzer()
        self.index: dict[str, int] = {t: i for i, t in enumerate(tokens)}
        if len(self.index) != len(tokens):
            dup = [t for t, c in Counter(tokens).items() if c > 1][:5]
            raise ValueError(f"vocabulary tokens must be unique (duplicates: {dup})")

    # ------------------------------------------------------------------ building
    @classmethod
    def build(
        cls,
        texts: Iterable[str],
        analyzer: Analyzer | None = None,
        max_size: int | None = 100_000,
        min_count: int = 1,
    ) -> Vocabulary:
        """Vocabulary of the ``max_size`` most frequent tokens seen at least ``min_count`` times.

        Ties in frequency are broken alphabetically, so the same texts give the same ids.
        ``max_size`` counts real words (padding and OOV come on top).
        """
        if min_count < 1:
            raise ValueError(f"min_count must be >= 1 (got {min_count})")
        if max_size is not None and max_size < 1:
            raise ValueError(f"max_size must be >= 1 or None (got {max_size})")
        analyzer = analyzer if analyzer is not None else model_analyzer()
        counts: Counter[str] = Counter()
        for text in texts:
            counts.update(analyzer.analyze(text))
        items = sorted(
            ((t, c) for t, c in counts.items() if c >= min_count), key=lambda tc: (-tc[1], tc[0])
        )
        if max_size is not None:
            items = items[:max_size]
        return cls([PAD_TOKEN, OOV_TOKEN, *(t for t, _ in items)], analyzer)

    # ------------------------------------------------------------------ lookup
    def __len__(self) -> int:
        return len(self.tokens)

    def __contains__(self, token: object) -> bool:
        return token in self.index

    def tokenize(self, text: str) -> list[str]:
        return self.analyzer.analyze(text)

    def ids(self, tokens: Sequence[str]) -> list[int]:
        get = self.index.get
        return [get(t, OOV_ID) for t in tokens]

    def encode(self, text: str, max_len: int | None = None) -> list[int]:
        """Ids of the tokens of ``text`` (truncated to ``max_len``)."""
        ids = self.ids(self.tokenize(text))
        return ids[:max_len] if max_len is not None else ids

    def encode_batch(
        self, texts: Sequence[str], max_len: int, min_len: int = 1, fixed: bool = False
    ) -> torch.Tensor:
        """``(len(texts), L)`` LongTensor of ids padded with 0.

        ``L`` is the longest text (capped at ``max_len``, at least ``min_len``) or exactly
        ``max_len`` when ``fixed``.
        """
        if isinstance(texts, str):
            raise TypeError("encode_batch expects a sequence of texts, not a single string")
        rows = [self.encode(t, max_len) for t in texts]
        lengths = np.fromiter((len(r) for r in rows), dtype=np.int64, count=len(rows))
        width = max_len if fixed else int(lengths.max(initial=0))
        width = max(width, min_len)
        out = np.zeros((len(rows), width), dtype=np.int64)
        if lengths.sum():
            # scatter every row's ids into its padded row in one assignment
            flat = np.fromiter(
                (i for r in rows for i in r), dtype=np.int64, count=int(lengths.sum())
            )
            row_idx = np.repeat(np.arange(len(rows)), lengths)
            col_idx = np.arange(len(flat)) - np.repeat(np.cumsum(lengths) - lengths, lengths)
            out[row_idx, col_idx] = flat
        return torch.from_numpy(out)

    # ------------------------------------------------------------------ I/O
    def to_dict(self) -> dict[str, Any]:
        return {"tokens": self.tokens, "analyzer": self.analyzer.config()}

    @classmethod
    def from_dict(cls, data: dict[str, Any], source: str = "vocabulary") -> Vocabulary:
        """Rebuild from :meth:`to_dict` output; the analyzer's token pattern is checked with
        :func:`check_token_pattern` (the data may come from an untrusted model folder)."""
        check_analyzer_config(data["analyzer"], f"{source}: analyzer")
        return cls(data["tokens"], Analyzer.from_config(data["analyzer"]))

    def save(self, path: str | Path) -> None:
        """Write :meth:`to_dict` as JSON to ``path``, atomically (temporary file + rename)."""
        from axiomatic._atomic import atomic_write_text

        atomic_write_text(path, json.dumps(self.to_dict(), ensure_ascii=False))

    @classmethod
    def load(cls, path: str | Path) -> Vocabulary:
        path = Path(path)
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError as exc:
            raise FileNotFoundError(
                f"vocabulary file {path} does not exist; a saved word-level model keeps it next "
                "to config.json (save the model again with axiomatic.models.save_model)"
            ) from exc
        if not isinstance(data, dict) or "tokens" not in data or "analyzer" not in data:
            raise ValueError(
                f"{path}: expected a JSON object with 'tokens' and 'analyzer' "
                "(written by Vocabulary.save)"
            )
        return cls.from_dict(data, source=str(path))

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, Vocabulary)
            and self.tokens == other.tokens
            and self.analyzer.config() == other.analyzer.config()
        )

    def __repr__(self) -> str:
        return f"Vocabulary({len(self)} tokens, analyzer={self.analyzer!r})"
