"""TREC SGML document files: ``<DOC> <DOCNO>id</DOCNO> text </DOC>`` (e.g. Vaswani/NPL)."""

from __future__ import annotations

import re
from pathlib import Path

from axiomatic.data._io import read_text
from axiomatic.data.errors import ParseError
from axiomatic.data.records import Document

_DOC = re.compile(r"<DOC>(.*?)</DOC>", re.DOTALL | re.IGNORECASE)
_DOCNO = re.compile(r"<DOCNO>\s*(.*?)\s*</DOCNO>", re.DOTALL | re.IGNORECASE)
_TAGS = re.compile(r"</?[A-Za-z][A-Za-z0-9]*>")


def read_trec_documents(path: str | Path) -> dict[str, Document]:
    """Documents of a TREC SGML file; the text is everything but ``<DOCNO>`` with tags removed
    and whitespace collapsed."""
    text = read_text(path)
    docs: dict[str, Document] = {}
    for m in _DOC.finditer(text):
        body = m.group(1)
        no = _DOCNO.search(body)
        if no is None:
            raise ParseError(
                "<DOC> without <DOCNO>",
                path,
                text.count("\n", 0, m.start()) + 1,
                "<DOC><DOCNO>id</DOCNO> text</DOC>",
            )
        content = _TAGS.sub(" ", body[: no.start()] + " " + body[no.end() :])
        docs[no.group(1)] = Document(no.group(1), " ".join(content.split()))
    return docs
