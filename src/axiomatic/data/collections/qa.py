"""Question answering re-ranking sets: WikiQA (Castor) and WikiPassageQA."""

from __future__ import annotations

from functools import partial
from pathlib import Path
from typing import Any

from axiomatic.data.collections._common import cached, pairwise_dataset, spec_adder
from axiomatic.data.records import Dataset


def load_wikiqa(root: Path, split: str) -> Dataset:
    from axiomatic.data.readers.wikiqa import read_wikiqa_castor

    s = read_wikiqa_castor(root / "wikiqa-castor" / "raw" / split)
    return pairwise_dataset(
        f"wikiqa/{split}",
        s,
        split,
        "en",
        None,
        1,
        f"WikiQA (Castor processing) {split}: answer-sentence ranking",
        "wikiqa-castor",
    )


WIKIPASSAGEQA_ENV = "AXIOMATIC_WIKIPASSAGEQA_PASSAGES"


def wikipassageqa_passages_path(root: Path) -> Path | None:
    import os

    env = os.environ.get(WIKIPASSAGEQA_ENV)
    cands = [Path(env)] if env else []
    base = root / "wikipassageqa"
    cands += [base / "document_passages.json", base / "raw" / "document_passages.json"]
    return next((c for c in cands if c.is_file()), None)


def load_wikipassageqa(root: Path, split: str) -> Dataset:
    """WikiPassageQA; needs the user-supplied ``document_passages.json`` (in ``wikipassageqa/``,
    ``wikipassageqa/raw/`` or at ``$AXIOMATIC_WIKIPASSAGEQA_PASSAGES``)."""
    from axiomatic.data.readers.wikipassageqa import (
        candidates_for,
        passages_to_documents,
        read_wikipassageqa_questions,
    )

    path = wikipassageqa_passages_path(root)
    if path is None:
        from axiomatic.data.errors import DatasetUnavailableError

        raise DatasetUnavailableError(
            "WikiPassageQA passage texts (document_passages.json) are not there: download "
            "WikiPassageQA.zip from ciir.cs.umass.edu/downloads/wikipassageqa/ and put "
            f"document_passages.json into {root / 'wikipassageqa'} or set ${WIKIPASSAGEQA_ENV}"
        )
    questions = read_wikipassageqa_questions(root / "wikipassageqa" / "raw" / f"{split}.tsv")
    passages = _wpqa_passages(path)
    docs = passages_to_documents(passages)
    cands = candidates_for(questions, passages)
    return Dataset(
        name=f"wikipassageqa/{split}",
        queries=questions.queries,
        documents=docs,
        qrels=questions.qrels,
        candidates=cands,
        split=split,
        language="en",
        rel_threshold=1,
        description=f"WikiPassageQA {split}: all passages of the question's Wikipedia page",
        metadata={"source": "wikipassageqa", "passages_file": str(path)},
    )


@cached
def _wpqa_passages(path: Path) -> dict[str, dict[str, str]]:
    from axiomatic.data.readers.wikipassageqa import read_document_passages

    return read_document_passages(path)


def catalog_specs() -> list[dict[str, Any]]:
    """``_Entry`` keyword dicts of this family (order = listing order)."""
    specs: list[dict[str, Any]] = []
    add = spec_adder(specs)
    for split in ("train", "dev", "test"):
        add(
            f"wikiqa/{split}",
            f"WikiQA (Castor) {split}: answer-sentence ranking, binary",
            "wikiqa-castor",
            partial(load_wikiqa, split=split),
            (f"raw/{split}/a.toks",),
        )
    for split in ("train", "dev", "test"):
        add(
            f"wikipassageqa/{split}",
            f"WikiPassageQA {split} (needs the user-supplied document_passages.json)",
            "wikipassageqa",
            partial(load_wikipassageqa, split=split),
            (
                f"raw/{split}.tsv",
                f"document_passages.json|raw/document_passages.json|${WIKIPASSAGEQA_ENV}",
            ),
            note="Download WikiPassageQA.zip (ciir.cs.umass.edu/downloads/wikipassageqa/) and put "
            f"document_passages.json into the wikipassageqa folder or set ${WIKIPASSAGEQA_ENV}.",
        )
    return specs
