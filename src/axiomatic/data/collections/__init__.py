"""Loaders that turn the shared collections into :class:`Dataset` objects (canonical splits).

One module per collection family (:mod:`.msmarco`, :mod:`.trecdl`, :mod:`.scifact`,
:mod:`.classic`, :mod:`.nfcorpus`, :mod:`.noveleval`, :mod:`.rag24`, :mod:`.qa`, :mod:`.qbqtc`,
:mod:`.clir`, :mod:`.builtin`); each exports its ``load_*`` functions and a ``catalog_specs()``
listing its catalog entries. :func:`catalog_specs` concatenates them for
:mod:`axiomatic.data.catalog`. Parsing of a collection folder is cached so that its splits
(``/train``, ``/test`` ...) share one parse; :func:`clear_cache` empties those caches.

The names below are re-exported so that ``from axiomatic.data.collections import load_xquad_clir``
(and the other ``load_*`` / constants) keeps working.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from axiomatic.data.collections import (
    builtin,
    classic,
    clir,
    msmarco,
    nfcorpus,
    noveleval,
    qa,
    qbqtc,
    rag24,
    scifact,
    trecdl,
)
from axiomatic.data.collections._common import clear_cache
from axiomatic.data.collections.classic import (
    load_cranfield,
    load_cystic_fibrosis,
    load_smart,
    load_vaswani,
)
from axiomatic.data.collections.clir import (
    XQUAD_NEGATIVES,
    XQUAD_SEED,
    load_sasaki,
    load_xquad_clir,
)
from axiomatic.data.collections.msmarco import (
    MSMARCO_DIR,
    load_msmarco_top20,
    load_msmarco_top20_graded,
)
from axiomatic.data.collections.nfcorpus import NFCORPUS_DIR, load_nfcorpus
from axiomatic.data.collections.noveleval import load_noveleval
from axiomatic.data.collections.qa import (
    WIKIPASSAGEQA_ENV,
    load_wikipassageqa,
    load_wikiqa,
    wikipassageqa_passages_path,
)
from axiomatic.data.collections.qbqtc import load_qbqtc
from axiomatic.data.collections.rag24 import load_rag24
from axiomatic.data.collections.scifact import SCIFACT_DIR, load_scifact
from axiomatic.data.collections.trecdl import (
    TRECDL_DIR,
    TRECDL_EXTRA_DIR,
    TRECDL_RUNS,
    load_trecdl,
)

__all__ = [
    "MSMARCO_DIR",
    "NFCORPUS_DIR",
    "SCIFACT_DIR",
    "TRECDL_DIR",
    "TRECDL_EXTRA_DIR",
    "TRECDL_RUNS",
    "WIKIPASSAGEQA_ENV",
    "XQUAD_NEGATIVES",
    "XQUAD_SEED",
    "catalog_specs",
    "clear_cache",
    "load_cranfield",
    "load_cystic_fibrosis",
    "load_msmarco_top20",
    "load_msmarco_top20_graded",
    "load_nfcorpus",
    "load_noveleval",
    "load_qbqtc",
    "load_rag24",
    "load_sasaki",
    "load_scifact",
    "load_smart",
    "load_trecdl",
    "load_vaswani",
    "load_wikipassageqa",
    "load_wikiqa",
    "load_xquad_clir",
    "wikipassageqa_passages_path",
]


def catalog_specs(root: Path | None = None) -> list[dict[str, Any]]:
    """``_Entry`` keyword dicts for every catalog name (order = listing order).

    ``root`` (the data root) lets families whose entries are data find them on disk (TREC DL
    years and systems, see :mod:`.trecdl`); without it only the known entries are listed.
    """
    specs: list[dict[str, Any]] = []
    specs += builtin.catalog_specs()
    specs += msmarco.catalog_specs()
    specs += trecdl.catalog_specs(root)
    specs += scifact.catalog_specs()
    for family in (classic, nfcorpus, noveleval, rag24, qa, qbqtc, clir):
        specs += family.catalog_specs()
    return specs
