"""``id<TAB>text`` document files (NFCorpus ``*.docs``, NovelEval ``corpus.tsv``, MS MARCO
``collection.tsv``)."""

from __future__ import annotations

from pathlib import Path

from axiomatic.data._io import ParsedDict, iter_lines, report_skipped, require_nonempty
from axiomatic.data.errors import ParseError
from axiomatic.data.records import Document


def _first_line(path: str | Path, did: str) -> int | None:
    """Where ``did`` first occurs; only to word an error (rescans the file, keeps no index)."""
    for lineno, line in iter_lines(path):
        if line.partition("\t")[0].strip() == did:
            return lineno
    return None


def read_tsv_documents(path: str | Path, *, skip_malformed: bool = False) -> ParsedDict:
    """Documents from ``doc_id<TAB>text`` lines (text may be empty; it is kept).

    A line without a tab-separated id (or an id with whitespace), a doc id given twice with
    different texts and a file without any document raise :class:`ParseError`;
    ``skip_malformed=True`` skips (counts, warns about) the malformed lines instead. An identical
    repeated line is kept once and counted (``.duplicates``).
    """
    expected = "'doc_id<TAB>text'"
    docs: ParsedDict = ParsedDict()
    for lineno, line in iter_lines(path):
        if not line.strip():
            continue
        did, sep, text = line.partition("\t")
        did, text = did.strip(), text.strip()
        try:
            if not sep or not did or any(c.isspace() for c in did):
                raise ValueError(f"no tab-separated doc id in {line[:50]!r}")
            old = docs.get(did)
            if old is not None:
                if old.text != text:
                    raise ValueError(
                        f"doc id {did!r} again with another text (first at line "
                        f"{_first_line(path, did)})"
                    )
                docs.duplicates += 1
                continue
        except ValueError as exc:
            if skip_malformed:
                docs.skipped += 1
                docs.skipped_lines.append(lineno)
                continue
            raise ParseError(str(exc), path, lineno, expected) from None
        docs[did] = Document(did, text)
    report_skipped(docs, path, "document")
    require_nonempty(len(docs), path, "document", expected)
    return docs
