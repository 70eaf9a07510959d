"""``id<TAB>text`` document files (NFCorpus ``*.docs``, NovelEval ``corpus.tsv``, MS MARCO
``collection.tsv``)."""

from __future__ import annotations

from pathlib import Path

from axiomatic.data._io import ParsedDict, iter_lines, report_skipped, require_nonempty
from axiomatic.data.errors import ParseError
from axiomatic.data.records import Document

DOC_ID_HEADERS = frozenset(
    {"docid", "doc_id", "doc-id", "docno", "id", "_id", "did", "pid", "passage_id", "passageid"}
)
DOC_TEXT_HEADERS = frozenset(
    {"text", "body", "contents", "content", "passage", "document", "doc", "doc_text", "title"}
)
QUERY_ID_HEADERS = frozenset(
    {"qid", "query_id", "query-id", "queryid", "id", "_id", "topic", "topic_id", "num", "number"}
)
QUERY_TEXT_HEADERS = frozenset({"query", "text", "question", "title", "query_text", "topic"})


def header_line(
    key: str, value: str, path: str | Path, ids: frozenset[str], texts: frozenset[str], what: str
) -> bool:
    """Whether the first line ``key<TAB>value`` of a TSV file is a column header
    (``docid<TAB>text``, ``qid<TAB>query``) rather than a record: then warn
    (:class:`~axiomatic.data.errors.DataWarning`) that it is skipped, instead of reading a
    document or query named ``docid``."""
    if key.strip().lower() not in ids or value.strip().lower() not in texts:
        return False
    import warnings

    from axiomatic._callable import user_stacklevel
    from axiomatic.data.errors import DataWarning

    warnings.warn(
        f"{path}: line 1 ({key.strip()}<TAB>{value.strip()}) looks like a column header, not "
        f"a {what}: skipped (remove it, or rename the first {what} if it really is one)",
        DataWarning,
        stacklevel=user_stacklevel(),
    )
    return True


def _first_line(path: str | Path, did: str) -> int | None:
    """Where ``did`` first occurs; only to word an error (rescans the file, keeps no index)."""
    for lineno, line in iter_lines(path):
        if line.partition("\t")[0].strip() == did:
            return lineno
    return None


def read_tsv_documents(path: str | Path, *, skip_malformed: bool = False) -> ParsedDict:
    """Documents from ``doc_id<TAB>text`` lines (text may be empty; it is kept).

    A first line that is a column header (``docid<TAB>text``) is skipped with a
    :class:`~axiomatic.data.errors.DataWarning`. A line without a tab-separated id (or an id
    with whitespace), a doc id given twice with
    different texts and a file without any document raise :class:`ParseError`;
    ``skip_malformed=True`` skips (counts, warns about) the malformed lines instead. An identical
    repeated line is kept once and counted (``.duplicates``).
    """
    expected = "'doc_id<TAB>text'"
    docs: ParsedDict = ParsedDict()
    first = True
    for lineno, line in iter_lines(path):
        if not line.strip():
            continue
        did, sep, text = line.partition("\t")
        did, text = did.strip(), text.strip()
        if first:
            first = False
            if sep and header_line(did, text, path, DOC_ID_HEADERS, DOC_TEXT_HEADERS, "document"):
                continue
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
