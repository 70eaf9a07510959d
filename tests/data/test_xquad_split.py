"""XQuAD graded CLIR splits by *article*, not by question: every question of an article
is in one split, so no paragraph relevant to a dev/test question is relevant to (or a candidate
of) a training question. Runs on small generated SQuAD files (no shared data needed)."""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import pytest

from axiomatic.data.collections.clir import load_xquad_clir
from axiomatic.data.readers.xquad import read_xquad, xquad_article_splits

N_ARTICLES, N_PARAS, N_QUESTIONS = 15, 2, 3


def _write(root: Path, lang: str) -> None:
    data = []
    for a in range(N_ARTICLES):
        paras = []
        for p in range(N_PARAS):
            qas = [
                {"id": f"a{a}p{p}q{k}", "question": f"{lang} question {k} about {a} {p}"}
                for k in range(N_QUESTIONS)
            ]
            paras.append({"context": f"{lang} paragraph {p} of article {a}", "qas": qas})
        # titles out of file order: the split follows the sorted titles
        data.append({"title": f"Title {(a * 7) % N_ARTICLES:02d}", "paragraphs": paras})
    folder = root / "xquad-clir" / "raw"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"xquad.{lang}.json").write_text(json.dumps({"data": data}), encoding="utf-8")


@pytest.fixture(scope="module")
def splits(tmp_path_factory):
    root = tmp_path_factory.mktemp("xquad")
    for lang in ("en", "de"):
        _write(root, lang)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # dev/test have fewer NR than asked: expected here
        out = {s: load_xquad_clir(root, "en", "de", s, 4) for s in ("train", "dev", "test")}
    return root, out


def test_questions_of_one_article_share_a_split(splits) -> None:
    root, data = splits
    ref = read_xquad(root / "xquad-clir" / "raw" / "xquad.en.json")
    want = xquad_article_splits(ref.titles)
    split_of_q = {q: s for s, ds in data.items() for q in ds.queries}
    assert sorted(split_of_q) == sorted(ref.questions)  # a partition of the questions
    by_article: dict[int, set[str]] = {}
    for q, s in split_of_q.items():
        art = ref.article_of[ref.paragraph_of[q]]
        by_article.setdefault(art, set()).add(s)
        assert s == want[art], q
    assert all(len(v) == 1 for v in by_article.values())
    assert {len(ds.queries) for ds in data.values()} == {
        N_PARAS * N_QUESTIONS * sum(1 for s in want.values() if s == name)
        for name in ("train", "dev", "test")
    }


def test_no_paragraph_is_relevant_in_two_splits(splits) -> None:
    _, data = splits

    def relevant(ds):
        return {d for q in ds.queries for d, g in (ds.qrels or {})[q].items() if g >= 1}

    def candidates(ds):
        return {d for q in ds.queries for d in ds.candidate_ids(q)}

    for a in data:
        for b in data:
            if a != b:
                assert not relevant(data[a]) & candidates(data[b]), (a, b)
