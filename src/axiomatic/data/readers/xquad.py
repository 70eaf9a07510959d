"""XQuAD (Artetxe et al. 2020) SQuAD-v1.1 JSON files and the graded CLIR construction of
Sasaki et al. (2018) applied to them.

All 12 ``xquad.<lang>.json`` files are id-aligned: the same articles, paragraphs and question ids
in the same order. Paragraph doc ids are ``<article index>-<paragraph index>`` (file order).
"""

from __future__ import annotations

import random
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


def graded_candidates(
    ref: XQuADFile, question_ids: list[str], n_negatives: int = 40, seed: int = 0
) -> tuple[dict[str, list[str]], dict[str, dict[str, int]]]:
    """Sasaki-style graded candidates per question: grade 2 = its source paragraph, 1 = the other
    paragraphs of the same article, 0 = ``n_negatives`` paragraphs of other articles sampled with
    a generator seeded by ``(seed, question id)`` (identical for every language pair and split).
    Candidate order: a seeded shuffle (no position gives the answer away)."""
    by_article: dict[int, list[str]] = {}
    for did, a in ref.article_of.items():
        by_article.setdefault(a, []).append(did)
    all_docs = list(ref.paragraphs)
    candidates: dict[str, list[str]] = {}
    qrels: dict[str, dict[str, int]] = {}
    for qid in question_ids:
        own = ref.paragraph_of[qid]
        art = ref.article_of[own]
        grades = {d: 1 for d in by_article[art]}
        grades[own] = 2
        rng = random.Random(f"{seed}:{qid}")
        others = [d for d in all_docs if ref.article_of[d] != art]
        for d in rng.sample(others, min(n_negatives, len(others))):
            grades[d] = 0
        cands = list(grades)
        rng.shuffle(cands)
        candidates[qid] = cands
        qrels[qid] = grades
    return candidates, qrels
