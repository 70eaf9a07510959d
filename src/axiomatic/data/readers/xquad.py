"""XQuAD (Artetxe et al. 2020) SQuAD-v1.1 JSON files and the graded CLIR construction of
Sasaki et al. (2018) applied to them.

All 12 ``xquad.<lang>.json`` files are id-aligned: the same articles, paragraphs and question ids
in the same order. Paragraph doc ids are ``<article index>-<paragraph index>`` (file order).
"""

from __future__ import annotations

import random
import statistics
import warnings
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from axiomatic.data._io import STRUCTURE_ERRORS, json_id, json_str, malformed, read_json
from axiomatic.data.errors import ParseError

XQUAD_LANGUAGES = ("ar", "de", "el", "en", "es", "hi", "ro", "ru", "th", "tr", "vi", "zh")


@dataclass
class XQuADFile:
    titles: list[str]  # article titles (file order)
    paragraphs: dict[str, str]  # doc id -> paragraph text
    article_of: dict[str, int]  # doc id -> article index
    questions: dict[str, str]  # question id -> text (file order)
    paragraph_of: dict[str, str]  # question id -> source paragraph doc id


def read_xquad(path: str | Path) -> XQuADFile:
    expected = "SQuAD v1.1 JSON: data[].paragraphs[].{context, qas[].{id, question}}"
    raw = read_json(path, expected)
    out = XQuADFile([], {}, {}, {}, {})
    try:
        if not isinstance(raw, dict):
            raise ValueError(f"top-level JSON is a {type(raw).__name__}, not an object")
        data = raw["data"]
        if not isinstance(data, list):
            raise ValueError("'data' is not a list")
        for a, article in enumerate(data):
            out.titles.append(json_str(article.get("title", f"article-{a}"), "title"))
            for p, para in enumerate(_list(article["paragraphs"], "paragraphs")):
                did = f"{a}-{p}"
                out.paragraphs[did] = " ".join(json_str(para["context"], "context").split())
                out.article_of[did] = a
                for qa in _list(para["qas"], "qas"):
                    qid = json_id(qa["id"], "question id")
                    out.questions[qid] = " ".join(json_str(qa["question"], "question").split())
                    out.paragraph_of[qid] = did
    except STRUCTURE_ERRORS as exc:
        raise ParseError(f"not SQuAD JSON ({malformed(exc)})", path, None, expected) from None
    if not out.paragraphs:
        raise ParseError("no paragraph", path, None, expected)
    return out


def _list(value: object, what: str) -> list:  # type: ignore[type-arg]
    if not isinstance(value, list):
        raise ValueError(f"{what!r} is not a list")
    return value


def xquad_article_splits(titles: list[str]) -> dict[int, str]:
    """Article index -> split: articles sorted by (English) title; sorted position ``i`` with
    ``i % 5 == 4`` is test (every fifth), ``i % 5 == 0`` and ``i > 0`` is dev (the article right
    after each test one), the rest train (48 articles: 30 / 9 / 9)."""
    order = sorted(range(len(titles)), key=lambda a: (titles[a], a))
    out = {}
    for i, a in enumerate(order):
        out[a] = "test" if i % 5 == 4 else ("dev" if i % 5 == 0 and i > 0 else "train")
    return out


NR_POOLS = ("split", "all-leaky")
"""Accepted ``nr_pool`` values: ``"split"`` (canonical: NR paragraphs come only from the other
articles of the query's own split) and ``"all-leaky"`` (NR from every other article: kept only to
reproduce the pre-fix numbers; it puts every dev/test paragraph into the training candidates)."""


def check_nr_pool(nr_pool: str) -> str:
    """``nr_pool`` if it is one of :data:`NR_POOLS`, else a ValueError that explains the choice
    (the pre-fix name ``"all"`` is refused: it leaks the test set into training)."""
    if nr_pool == "all":
        raise ValueError(
            "nr_pool='all' is no longer accepted: sampling NR paragraphs from all other articles "
            "leaks the test set into training (XQuAD has 240 paragraphs, so every dev/test "
            "paragraph becomes a grade-0 training candidate). Use the canonical nr_pool='split' "
            "(NR from the other articles of the same split), or nr_pool='all-leaky' to reproduce "
            "the old, leaky construction on purpose"
        )
    if nr_pool not in NR_POOLS:
        raise ValueError(f"nr_pool must be one of {list(NR_POOLS)} (got {nr_pool!r})")
    return nr_pool


def graded_candidates(
    ref: XQuADFile,
    question_ids: list[str],
    n_negatives: int = 40,
    seed: int = 0,
    *,
    split_of: Mapping[int, str] | None = None,
    nr_pool: str = "split",
) -> tuple[dict[str, list[str]], dict[str, dict[str, int]]]:
    """Sasaki-style graded candidates per question: grade 2 = its source paragraph, 1 = the other
    paragraphs of the same article, 0 = ``n_negatives`` paragraphs of other articles sampled with
    a generator seeded by ``(seed, question id)`` (identical for every language pair).
    Candidate order: a seeded shuffle (no position gives the answer away).

    The NR pool (``nr_pool``, see :func:`check_nr_pool`) is by default and canonically
    ``"split"``: only articles of the question's own split (``split_of``: article index ->
    split; default :func:`xquad_article_splits` of ``ref.titles``). XQuAD has only 240
    paragraphs, so sampling from all articles (``"all-leaky"``, kept only to reproduce old
    numbers) would make every dev/test paragraph a grade-0 candidate of training questions.

    A split whose questions have fewer NR paragraphs available than ``n_negatives`` gets all of
    them (dev/test: exactly 40 in XQuAD), and the call issues ONE :class:`UserWarning` naming
    each such split, the number asked and the available minimum / median."""
    check_nr_pool(nr_pool)
    if split_of is None:
        split_of = xquad_article_splits(ref.titles)
    by_article: dict[int, list[str]] = {}
    for did, a in ref.article_of.items():
        by_article.setdefault(a, []).append(did)
    all_docs = list(ref.paragraphs)
    pools: dict[int, list[str]] = {}  # article -> its questions' NR pool (file order)
    short: dict[str, list[int]] = {}  # split -> available NR counts of its short questions
    n_queries: dict[str, int] = {}
    candidates: dict[str, list[str]] = {}
    qrels: dict[str, dict[str, int]] = {}
    for qid in question_ids:
        own = ref.paragraph_of[qid]
        art = ref.article_of[own]
        split = split_of[art]
        n_queries[split] = n_queries.get(split, 0) + 1
        grades = {d: 1 for d in by_article[art]}
        grades[own] = 2
        rng = random.Random(f"{seed}:{qid}")
        if art not in pools:
            pools[art] = [
                d
                for d in all_docs
                if ref.article_of[d] != art
                and (nr_pool == "all-leaky" or split_of[ref.article_of[d]] == split)
            ]
        others = pools[art]
        if len(others) < n_negatives:
            short.setdefault(split, []).append(len(others))
        for d in rng.sample(others, min(n_negatives, len(others))):
            grades[d] = 0
        cands = list(grades)
        rng.shuffle(cands)
        candidates[qid] = cands
        qrels[qid] = grades
    if short:
        parts = [
            f"split {s!r}: {len(c)} of {n_queries[s]} questions have only "
            f"min {min(c)} / median {statistics.median(c):g} NR paragraphs available"
            for s, c in sorted(short.items())
        ]
        warnings.warn(
            f"XQuAD graded candidates: asked for {n_negatives} NR paragraphs per question "
            f"(nr_pool={nr_pool!r}), fewer are available; " + "; ".join(parts) + " (all of "
            "them are used)",
            UserWarning,
            stacklevel=2,
        )
    return candidates, qrels


def check_xquad_aligned(
    ref: XQuADFile, other: XQuADFile, ref_path: str | Path, path: str | Path
) -> None:
    """Raise :class:`ParseError` naming ``path`` unless ``other`` has the same paragraph ids and
    question ids as ``ref`` with every question in the same paragraph (the 12 XQuAD files are
    id-aligned; a missing or extra paragraph shifts the positional ``<article>-<paragraph>``
    ids and would otherwise surface later as a bare KeyError)."""
    if ref is other:
        return
    problems: list[str] = []

    def diff(what: str, a: list[str], b: list[str]) -> None:
        bs, as_ = set(b), set(a)
        missing = [x for x in a if x not in bs]
        extra = [x for x in b if x not in as_]
        if missing:
            problems.append(f"{len(missing)} {what} missing (first: {missing[:5]})")
        if extra:
            problems.append(f"{len(extra)} extra {what} (first: {extra[:5]})")

    if len(other.titles) != len(ref.titles):
        problems.append(f"{len(other.titles)} articles instead of {len(ref.titles)}")
    diff("paragraph ids", list(ref.paragraphs), list(other.paragraphs))
    diff("question ids", list(ref.questions), list(other.questions))
    moved = [
        q
        for q, p in ref.paragraph_of.items()
        if q in other.paragraph_of and other.paragraph_of[q] != p
    ]
    if moved:
        first = moved[0]
        problems.append(
            f"{len(moved)} questions in another paragraph (first: {first!r} in "
            f"{other.paragraph_of[first]!r}, {ref.paragraph_of[first]!r} in {Path(ref_path).name})"
        )
    if problems:
        raise ParseError(
            f"not aligned with {ref_path}: " + "; ".join(problems),
            path,
            None,
            "an XQuAD file with the same articles, paragraphs and question ids, in the same "
            "order, as xquad.en.json",
            "Replace the file with the released xquad.<lang>.json",
        )
