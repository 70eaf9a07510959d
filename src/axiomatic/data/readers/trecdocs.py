"""TREC SGML document files: ``<DOC> <DOCNO>id</DOCNO> text </DOC>`` (e.g. Vaswani/NPL)."""

from __future__ import annotations

import re
from pathlib import Path

from axiomatic.data._io import read_text
from axiomatic.data.errors import ParseError
from axiomatic.data.records import Document

_DOC_TAG = re.compile(r"<(/?)DOC>", re.IGNORECASE)
_DOCNO = re.compile(r"<DOCNO>\s*(.*?)\s*</DOCNO>", re.DOTALL | re.IGNORECASE)
_TAGS = re.compile(r"</?[A-Za-z][A-Za-z0-9]*>")
_EXPECTED = "<DOC><DOCNO>id</DOCNO> text</DOC>"


def read_trec_documents(path: str | Path) -> dict[str, Document]:
    """Documents of a TREC SGML file; the text is everything but ``<DOCNO>`` with tags removed
    and whitespace collapsed.

    ``<DOC>``/``</DOC>`` tags are scanned in order, so a ``<DOC>`` left open (a truncated file)
    is an error at its line instead of swallowing the next document. A DOCNO that is empty or
    holds whitespace, one given twice with different texts, and a file without any document are
    errors too (an identical repeat is kept once).
    """
    text = read_text(path)
    docs: dict[str, Document] = {}

    def fail(message: str, pos: int) -> ParseError:
        return ParseError(message, path, text.count("\n", 0, pos) + 1, _EXPECTED)

    open_tag: re.Match[str] | None = None
    for tag in _DOC_TAG.finditer(text):
        if not tag.group(1):
            if open_tag is not None:
                raise fail("<DOC> is not closed before the next <DOC>", open_tag.start())
            open_tag = tag
            continue
        if open_tag is None:
            raise fail("</DOC> without a matching <DOC>", tag.start())
        body = text[open_tag.end() : tag.start()]
        start, open_tag = open_tag.start(), None
        no = _DOCNO.search(body)
        if no is None:
            raise fail("<DOC> without <DOCNO>", start)
        did = no.group(1)
        if not did or any(c.isspace() for c in did):
            raise fail(f"DOCNO {did[:40]!r} is empty or contains whitespace", start)
        content = _TAGS.sub(" ", body[: no.start()] + " " + body[no.end() :])
        doc = Document(did, " ".join(content.split()))
        old = docs.setdefault(did, doc)
        if old != doc:
            raise fail(f"DOCNO {did!r} again with another text", start)
    if open_tag is not None:
        raise fail("<DOC> is not closed (the file ends first)", open_tag.start())
    if not docs:
        raise ParseError("no <DOC> ... </DOC> block", path, None, _EXPECTED)
    return docs
