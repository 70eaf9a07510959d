"""Minimal document pairs for causal analysis (Chen, Merullo & Eickhoff, SIGIR 2024): two texts
of the same length that differ only where an axiom says, with the span recorded.

Each pair has a *baseline* and a *perturbed* document for one query; the axiom says the
perturbed one should score at least as high. Activation patching
(:mod:`axiomatic.explain.patching`) runs the ranker on both and asks which components carry the
difference, so both texts must have the same number of word pieces: wherever the perturbed text
gains words, the baseline gains the same number of *filler* words (``"a"`` by default, one word
piece in BERT's vocabularies) at the same place, as in Chen et al.'s Figure 2.

============ ==============================================================================
``TFC1-I``   a query term injected at the end of the document; the baseline gets filler
``TFC1-R``   one non-query, non-stopword word of the document replaced by a query term; the
             baseline is the document itself
``TDC``      the more discriminative of the query's terms (the fewest candidate documents
             contain it) appended, against the least discriminative one appended to the
             baseline
``LNC2``     the document followed by a copy of itself, against the document followed by as
             many filler words: what a second copy adds beyond its length
============ ==============================================================================

``pieces`` (a callable giving a word's word-piece count, e.g. from the ranker's tokenizer)
makes the lengths match in word pieces: an injected term of three pieces gets three fillers,
a replacement keeps the replaced word's piece count. Without it every word counts as one.

Each pair draws from its own generator seeded by ``(seed, axiom, query, document)``, so a
pair does not depend on which other queries, documents or axioms are drawn.
"""

from __future__ import annotations

import re
import zlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from axiomatic.data.records import Dataset
from axiomatic.text.analyzer import load_stopwords

__all__ = ["MINIMAL_AXIOMS", "MinimalPair", "minimal_pairs", "parse_minimal_axioms"]

MINIMAL_AXIOMS = ("TFC1-I", "TFC1-R", "TDC", "LNC2")
"""The axioms minimal pairs are built for (see the module table)."""

_TERM = re.compile(r"[^\W\d_]{2,}")


@dataclass(frozen=True)
class MinimalPair:
    """One minimal pair: ``perturbed`` should score at least as high as ``baseline``.

    ``span`` / ``baseline_span`` are the character spans ``[start, end)`` of what differs in
    each text (the injected or replacing words, the copy, the fillers); ``term`` is the query
    term the perturbation adds (LNC2: empty), ``replaced`` the word it replaced or the
    baseline's term (TDC) or the filler.
    """

    axiom: str
    query_id: str
    doc_id: str
    query: str
    baseline: str
    perturbed: str
    span: tuple[int, int]
    baseline_span: tuple[int, int]
    term: str = ""
    replaced: str = ""


def parse_minimal_axioms(text: str | Sequence[str]) -> list[str]:
    """Axiom names from ``"TFC1-I,TDC"`` or a list (``all``: every one); unknown names refused."""
    from axiomatic._suggest import suggest

    names = [a.strip() for a in (text.split(",") if isinstance(text, str) else text)]
    names = [a for a in names if a]
    if names == ["all"]:
        return list(MINIMAL_AXIOMS)
    upper = {a.upper(): a for a in MINIMAL_AXIOMS}
    out = []
    for a in names:
        if a.upper() not in upper:
            raise ValueError(
                f"unknown minimal-pair axiom {a!r}{suggest(a, MINIMAL_AXIOMS)}; expected one "
                f"of {', '.join(MINIMAL_AXIOMS)} (or all)"
            )
        out.append(upper[a.upper()])
    if not out:
        raise ValueError(f"no axiom given; expected one or more of {', '.join(MINIMAL_AXIOMS)}")
    return list(dict.fromkeys(out))


def _key(s: str) -> int:
    return zlib.crc32(s.encode("utf-8"))


def query_terms(query: str, stopwords: frozenset[str]) -> list[str]:
    """The query's distinct lowercase words of two or more letters that are not stopwords, in
    query order."""
    seen: dict[str, None] = {}
    for m in _TERM.finditer(query.lower()):
        w = m.group(0)
        if w not in stopwords:
            seen.setdefault(w, None)
    return list(seen)


def _one(word: str) -> int:
    return 1


def _append(text: str, words: Sequence[str]) -> tuple[str, tuple[int, int]]:
    base = text.rstrip()
    added = " ".join(words)
    start = len(base) + 1
    return f"{base} {added}", (start, start + len(added))


def minimal_pairs(
    dataset: Dataset,
    axioms: str | Sequence[str] = "all",
    depth: int = 10,
    per_axiom: int | None = None,
    seed: int = 0,
    filler: str = "a",
    pieces: Callable[[str], int] | None = None,
) -> list[MinimalPair]:
    """Minimal pairs for ``axioms`` on each query's first ``depth`` candidates (at most one per
    axiom, query and document), then, with ``per_axiom``, a seeded sample of that many per
    axiom (in the order built: queries and candidates sorted as the dataset gives them).

    A document yields no pair where the axiom cannot apply: a query without a term that is
    not a stopword (every axiom); TFC1-R: no replaceable word with the term's piece count;
    TDC: fewer than two query terms, or all with the same document frequency in the pool of
    candidates; LNC2: an empty document.
    """
    names = parse_minimal_axioms(axioms)
    if depth < 1:
        raise ValueError(f"depth must be >= 1 (got {depth!r})")
    if not dataset.is_reranking:
        raise ValueError(
            f"dataset {dataset.name!r} has no candidate lists; use a re-ranking dataset "
            "(e.g. msmarco-dev-top20/test) or give it a first stage"
        )
    if pieces is not None and pieces(filler) != 1:
        raise ValueError(
            f"the filler {filler!r} is {pieces(filler)} word pieces; choose a filler of one "
            "word piece (e.g. 'a')"
        )
    count = pieces or _one
    stop = load_stopwords(dataset.language or "en")
    qids = [q for q in dataset.queries if dataset.candidates and q in dataset.candidates]
    tops = {
        q: [d for d in dataset.candidate_ids(q)[:depth] if d in dataset.documents] for q in qids
    }
    df: dict[str, int] = {}
    if "TDC" in names:
        for d in sorted({d for t in tops.values() for d in t}):
            for w in set(_TERM.findall(dataset.documents[d].text.lower())):
                df[w] = df.get(w, 0) + 1
    out: dict[str, list[MinimalPair]] = {a: [] for a in names}
    for q in qids:
        query = dataset.queries[q].text
        terms = query_terms(query, stop)
        if not terms:
            continue
        for d in tops[q]:
            text = dataset.documents[d].text
            for a in names:
                rng = np.random.default_rng([seed, _key(a), _key(q), _key(d)])
                pair = _build(a, q, d, query, text, terms, rng, filler, count, stop, df)
                if pair is not None:
                    out[a].append(pair)
    pairs: list[MinimalPair] = []
    for a in names:
        built = out[a]
        if per_axiom is not None and len(built) > per_axiom:
            rng = np.random.default_rng([seed, _key(a)])
            keep = np.sort(rng.choice(len(built), size=per_axiom, replace=False))
            built = [built[i] for i in keep]
        pairs.extend(built)
    return pairs


def _build(
    axiom: str,
    q: str,
    d: str,
    query: str,
    text: str,
    terms: list[str],
    rng: np.random.Generator,
    filler: str,
    count: Callable[[str], int],
    stop: frozenset[str],
    df: dict[str, int],
) -> MinimalPair | None:
    if axiom == "TFC1-I":
        t = terms[int(rng.integers(len(terms)))]
        pert, span = _append(text, [t])
        base, bspan = _append(text, [filler] * count(t))
        return MinimalPair(axiom, q, d, query, base, pert, span, bspan, t, filler)
    if axiom == "TFC1-R":
        t = terms[int(rng.integers(len(terms)))]
        n = count(t)
        qset = set(terms)
        slots = [
            m
            for m in re.finditer(r"\S+", text)
            if _TERM.fullmatch(m.group(0).lower())
            and m.group(0).lower() not in qset
            and m.group(0).lower() not in stop
            and count(m.group(0)) == n
        ]
        if not slots:
            return None
        m = slots[int(rng.integers(len(slots)))]
        pert = text[: m.start()] + t + text[m.end() :]
        return MinimalPair(
            axiom, q, d, query, text, pert, (m.start(), m.start() + len(t)),
            (m.start(), m.end()), t, m.group(0),
        )  # fmt: skip
    if axiom == "TDC":
        known = sorted({t for t in terms}, key=lambda t: (df.get(t, 0), t))
        if len(known) < 2 or df.get(known[0], 0) == df.get(known[-1], 0):
            return None
        hi, lo = known[0], known[-1]  # hi: fewest documents, the more discriminative
        n = max(count(hi), count(lo))
        pert, span = _append(text, [hi] + [filler] * (n - count(hi)))
        base, bspan = _append(text, [lo] + [filler] * (n - count(lo)))
        return MinimalPair(axiom, q, d, query, base, pert, span, bspan, hi, lo)
    # LNC2
    body = text.strip()
    if not body:
        return None
    n = sum(count(w) for w in body.split())
    pert, span = _append(body, [body])
    base, bspan = _append(body, [filler] * n)
    return MinimalPair(axiom, q, d, query, base, pert, span, bspan, "", filler)
