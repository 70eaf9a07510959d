"""``id<TAB>text`` document files (NFCorpus ``*.docs``, NovelEval ``corpus.tsv``, MS MARCO
``collection.tsv``)."""

from __future__ import annotations

from pathlib import Path

from axiomatic.data._io import iter_lines
from axiomatic.data.errors import ParseError
from axiomatic.data.records import Document


def read_tsv_documents(path: str | Path, *, skip_malformed: bool = False) -> dict[str, Document]:
    """Documents from ``doc_id<TAB>text`` lines (text may be empty; it is kept)."""
    docs: dict[str, Document] = {}
    for lineno, line in iter_lines(path):
        if not line.strip():
            continue
        did, sep, text = line.partition("\t")
        if not sep or not did.strip():
            if skip_malformed:
                continue
            raise ParseError(
                f"no tab-separated doc id in {line[:50]!r}", path, lineno, "'doc_id<TAB>text'"
            )
        docs[did.strip()] = Document(did.strip(), text.strip())
    return docs
