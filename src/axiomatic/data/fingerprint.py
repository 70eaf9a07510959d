"""Content fingerprints of collections: what cached artifacts (indexes, mined instances) key on.

A fingerprint hashes what a result depends on (ids *and* texts, in order), not file names, paths
or sizes: a changed text with the same ids is another collection.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping

from axiomatic.data.records import Document

__all__ = ["documents_fingerprint", "hash_fields"]


def hash_fields(rows: Iterable[Iterable[str]], digest_size: int = 16) -> str:
    """A BLAKE2b hex digest of string fields, streamed; each field is length-prefixed and each
    row ends with a marker, so no two different inputs share a byte stream."""
    h = hashlib.blake2b(digest_size=digest_size)
    update = h.update
    for row in rows:
        for part in row:
            raw = part.encode("utf-8", "surrogatepass")
            update(len(raw).to_bytes(8, "little"))
            update(raw)
        update(b"\xff" * 8)  # row end: no field length can be 2**64 - 1
    return h.hexdigest()


def documents_fingerprint(documents: Mapping[str, Document]) -> str:
    """A 32-hex-digit BLAKE2b of the documents' ids and texts, in iteration order (streamed).

    Read-only collections that already know their fingerprint (a ``content_fingerprint()``
    method, e.g. :class:`axiomatic.data.catalog.ReadOnlyDocuments`) are not hashed again.
    """
    known = getattr(documents, "content_fingerprint", None)
    if callable(known):
        return str(known())
    return hash_fields((doc.doc_id, doc.text) for doc in documents.values())
