"""Probe instances: (original, manipulated) document pairs for a dataset's top candidates.

:func:`probe_instances` applies the text probes of :mod:`axiomatic.perturb.text_probes` to the
first ``depth`` candidates of every query and returns an instance table (the schema of
:mod:`axiomatic.diagnose.mining`) and the manipulated documents, ready for
:func:`axiomatic.diagnose.diagnosis.diagnose` with a band (ABNIRML's effect): ``doc_a`` is the
original, ``doc_b`` the manipulated text, relation ``>``, so a positive effect means the ranker
prefers the original by more than its band, a negative one the manipulated text. The invariance
probes (:data:`~axiomatic.perturb.text_probes.INVARIANT_PROBES`: shuffle-words, case-fold) have
relation ``=`` instead: an unchanged score (a tie) fulfils them, and they form ``[equal]``
groups whose fulfilment is the share of pairs scored unchanged (their effect still says which
text the ranker prefers). Axiom names are ``probe:NAME``; the ``spec`` records the seed.

Each manipulation draws from its own generator seeded by ``(seed, probe, query, document)``,
so a document's probe does not depend on which other queries, documents or probes are drawn.
A manipulation that leaves the text unchanged (one sentence to shuffle, no stopword, no listed
word) is skipped and counted, and so is a document whose query has no donor.

Donors: ``append-other-query-sentence`` takes a sentence of a random candidate (among the
first ``depth``, with a text) of another query (of the query's own candidates, the document
itself included, when the dataset has no other query); ABNIRML's ``AddSent-start`` / ``AddSent-end`` take one of a
random document judged 0 for the same query (the document itself included when it is judged 0,
as in ABNIRML) among those whose text the dataset holds (for a re-ranking dataset such as
``trec-dl-2019/bm25``: its candidates), so they need relevance judgments.
"""

from __future__ import annotations

import hashlib
import zlib
from collections.abc import Sequence

import numpy as np
import pandas as pd

from axiomatic.data.records import Dataset
from axiomatic.perturb.text_probes import (
    DONOR_PROBES,
    INVARIANT_PROBES,
    NON_RELEVANT_DONOR_PROBES,
    PROBES,
    manipulate,
    unknown_probe,
)

__all__ = ["PROBE_PREFIX", "dataset_probes", "parse_probes", "probe_instances"]

PROBE_PREFIX = "probe:"
"""Axiom name prefix of probe instances (``probe:shuffle-words``)."""


def _names(text: str | Sequence[str]) -> list[str]:
    """The names of ``"a, b"`` or a list, stripped, empty ones dropped."""
    names = [p.strip() for p in (text.split(",") if isinstance(text, str) else text)]
    return [p for p in names if p]


def parse_probes(text: str | Sequence[str]) -> list[str]:
    """Probe names from ``"a,b"`` or a list (``all``: every probe); unknown names refused (a
    former name with what replaced it)."""
    from axiomatic.perturb.text_probes import RENAMED_PROBES as RENAMED

    names = _names(text)
    if names == ["all"]:
        return list(PROBES)
    for p in names:
        if p not in PROBES:
            raise ValueError(unknown_probe(p) + ("" if p in RENAMED else " (or all)"))
    if not names:
        raise ValueError(f"no probe given; expected one or more of {', '.join(PROBES)}")
    return list(dict.fromkeys(names))


def dataset_probes(text: str | Sequence[str], dataset: Dataset) -> list[str]:
    """:func:`parse_probes` for ``dataset``: ``all`` leaves out the probes that need relevance
    judgments (``AddSent-start``, ``AddSent-end``) when the dataset has none; named ones are
    refused then (by :func:`probe_instances`)."""
    names = parse_probes(text)
    if _names(text) == ["all"] and not dataset.qrels:
        names = [p for p in names if p not in NON_RELEVANT_DONOR_PROBES]
    return names


def _key(s: str) -> int:
    return zlib.crc32(s.encode("utf-8"))


def probe_instances(
    dataset: Dataset, probes: str | Sequence[str], depth: int = 10, seed: int = 0
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Instances and manipulated documents for ``probes`` on each query's first ``depth``
    candidates (a full-retrieval dataset: its first ``depth`` documents per query in collection
    order is not meaningful, so it is refused).

    Returns ``(instances, artificial)``: the instance table and a table ``doc_id, text,
    source_doc_id, query_id, k`` of the manipulated documents (ids ``DOC~probe:NAME~DIGEST``,
    the first 12 hex digits of the SHA-256 of the manipulated text, so that the sample hash of
    :func:`axiomatic.diagnose.effects.sample_hash` covers the texts judged), as
    :func:`axiomatic.read_instances` gives them. ``instances.attrs["skipped"]`` counts the
    documents a probe left unchanged, per probe.
    """
    names = dataset_probes(probes, dataset)
    if depth < 1:
        raise ValueError(f"depth must be >= 1 (got {depth!r})")
    if not dataset.is_reranking:
        raise ValueError(
            f"dataset {dataset.name!r} has no candidate lists; probe a re-ranking dataset "
            "(e.g. trec-dl-2019/bm25) or give it a first stage"
        )
    if NON_RELEVANT_DONOR_PROBES & set(names) and not dataset.qrels:
        wanted = ", ".join(p for p in names if p in NON_RELEVANT_DONOR_PROBES)
        raise ValueError(
            f"probe {wanted} takes a sentence of a document judged non-relevant for the same "
            f"query, but dataset {dataset.name!r} has no relevance judgments; probe a judged "
            "dataset or use append-other-query-sentence"
        )
    qids = sorted(q for q in dataset.queries if dataset.candidates and q in dataset.candidates)
    # the first ``depth`` candidates whose text the dataset holds: the documents probed, and
    # the donors of append-other-query-sentence
    tops = {
        q: [d for d in dataset.candidate_ids(q)[:depth] if d in dataset.documents] for q in qids
    }
    pool = sorted({d for top in tops.values() for d in top})
    rows: list[dict[str, object]] = []
    arts: list[dict[str, object]] = []
    skipped = dict.fromkeys(names, 0)
    qrels = dataset.qrels or {}
    for q in qids:
        labels = qrels.get(q, {})
        top = tops[q]
        others = [d for d in pool if d not in set(top)] or pool
        # ABNIRML's AddSent donors: the documents judged 0 for this query (sorted: the draw
        # does not depend on the order of the judgments file)
        non_relevant = sorted(d for d, r in labels.items() if r == 0 and d in dataset.documents)
        for d in top:
            text = dataset.documents[d].text
            for p in names:
                rng = np.random.default_rng([seed, _key(p), _key(q), _key(d)])
                donor = ""
                if p in DONOR_PROBES:
                    donors = non_relevant if p in NON_RELEVANT_DONOR_PROBES else others
                    if not donors:
                        skipped[p] += 1
                        continue
                    donor = dataset.documents[donors[int(rng.integers(len(donors)))]].text
                new = manipulate(p, text, rng, donor)
                if new == text:
                    skipped[p] += 1
                    continue
                # the id carries a digest of the text, so the sample hash covers what was judged
                digest = hashlib.sha256(new.encode("utf-8")).hexdigest()[:12]
                art_id = f"{d}~{PROBE_PREFIX}{p}~{digest}"
                la, lb = len(text.split()), len(new.split())
                rel = labels.get(d)
                rows.append(
                    {
                        "query_id": q,
                        "axiom": PROBE_PREFIX + p,
                        "variant": "probe",
                        "spec": f"{PROBE_PREFIX}{p}(seed={seed})",
                        "doc_a": d,
                        "doc_b": art_id,
                        "doc_c": None,
                        "relation": "=" if p in INVARIANT_PROBES else ">",
                        "len_a": la,
                        "len_b": lb,
                        "len_diff_abs": abs(la - lb),
                        "len_diff_rel": abs(la - lb) / max(la, lb, 1),
                        "rel_a": rel,
                        "rel_b": rel,
                        "rel_c": None,
                        "split": dataset.split or "",
                        "artificial": True,
                        "symmetric": False,
                    }
                )
                arts.append(
                    {"doc_id": art_id, "text": new, "source_doc_id": d, "query_id": q, "k": 0}
                )
    inst = pd.DataFrame(rows)
    for c in ("rel_a", "rel_b", "rel_c"):
        if c in inst:
            inst[c] = inst[c].astype("Int64")
    inst.attrs["skipped"] = skipped
    art = pd.DataFrame(arts, columns=["doc_id", "text", "source_doc_id", "query_id", "k"])
    art = art.drop_duplicates("doc_id", ignore_index=True)  # the same text under two queries
    return inst, art
