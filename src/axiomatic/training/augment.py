"""Training-data augmentation with mined diagnostic instances (Rennings 2019, section 4.4).

An axiom instance ``(q, d_a, d_b)`` with relation ``>`` says ``d_a`` should outrank ``d_b``; it
becomes a weak pairwise label. Three schemes (Table 4.9):

``multi-graded``
    Relevant documents get the strong label 2, non-relevant documents an axiom prefers get the
    weak label 1, all others 0; train on every pair of different labels (ratio unconstrained).
``paired``
    Train on the axiom pairs themselves (label 1 over 0), mixed 1:1 with the regular pairs.
``paired-delta``
    As ``paired``, keeping only instances whose relative length difference
    ``delta* = len_diff_rel <= delta_max`` (0.1 in the thesis).

Two counter-intuitive instance types are always excluded (section 4.4.2): a non-relevant
``d_a`` preferred over a relevant ``d_b``, and a relevant ``d_a`` preferred over another relevant
``d_b`` -- i.e. every instance whose ``d_b`` is relevant.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from axiomatic.data.records import Dataset, Document
from axiomatic.training.config import DiagnosticAugmentSpec
from axiomatic.training.samplers import Pair


def filter_instances(
    instances: pd.DataFrame,
    dataset: Dataset,
    axioms: Sequence[str] = (),
    delta_max: float | None = None,
    artificial_docs: Mapping[str, Document] | None = None,
) -> pd.DataFrame:
    """Pairwise ``>``/``>=`` instances of ``dataset``'s queries usable as weak labels.

    Drops triples (TFC2), instances whose ``doc_b`` is relevant (the two counter-intuitive
    types), instances with documents that have no text, and (optionally) instances with
    ``len_diff_rel > delta_max`` or of axioms not in ``axioms``.
    """
    df = instances
    keep = df["query_id"].astype(str).isin(set(dataset.queries))
    keep &= df["relation"].isin([">", ">="])
    if "doc_c" in df:
        keep &= df["doc_c"].isna()
    if axioms:
        wanted = {a.upper() for a in axioms}
        keep &= df["axiom"].astype(str).str.upper().isin(wanted)
    if delta_max is not None:
        keep &= df["len_diff_rel"].astype(float) <= float(delta_max)
    df = df[keep]
    qrels = dataset.qrels or {}
    thr = dataset.rel_threshold
    rel_b = np.fromiter(
        (
            qrels.get(q, {}).get(b, 0) >= thr
            for q, b in zip(df["query_id"], df["doc_b"], strict=True)
        ),
        dtype=bool,
        count=len(df),
    )
    df = df[~rel_b]
    known = set(dataset.documents.keys()) if len(dataset.documents) < 2_000_000 else None
    extra = set(artificial_docs or {})

    def has_text(d: Any) -> bool:
        return d in extra or (d in known if known is not None else d in dataset.documents)

    ok = np.fromiter(
        (has_text(a) and has_text(b) for a, b in zip(df["doc_a"], df["doc_b"], strict=True)),
        dtype=bool,
        count=len(df),
    )
    return df[ok]


def axiom_pairs(instances: pd.DataFrame, dataset: Dataset) -> list[Pair]:
    """Weak pairs ``(d_a > d_b)`` labelled 1 over 0 (2 over 0 when ``d_a`` is relevant)."""
    qrels = dataset.qrels or {}
    thr = dataset.rel_threshold
    out = []
    for q, a, b, ax in zip(
        instances["query_id"],
        instances["doc_a"],
        instances["doc_b"],
        instances["axiom"],
        strict=True,
    ):
        la = 2.0 if qrels.get(q, {}).get(a, 0) >= thr else 1.0
        out.append(Pair(str(q), str(a), str(b), la, 0.0, source=str(ax)))
    return out


def multi_graded_pairs(
    instances: pd.DataFrame, dataset: Dataset, regular: Sequence[Pair]
) -> list[Pair]:
    """Labels 2 (relevant) / 1 (non-relevant but preferred by an axiom) / 0; all label pairs.

    Relevant grades above the threshold keep their order (grade g -> 2 + g - threshold), so
    graded collections lose nothing.
    """
    qrels = dataset.qrels or {}
    thr = dataset.rel_threshold

    def strong(q: str, d: str) -> float:
        g = qrels.get(q, {}).get(d, 0)
        return float(2 + g - thr) if g >= thr else 0.0

    labels: dict[str, dict[str, float]] = {}
    for p in regular:
        lab = labels.setdefault(p.query_id, {})
        lab[p.doc_hi] = strong(p.query_id, p.doc_hi)
        lab.setdefault(p.doc_lo, strong(p.query_id, p.doc_lo))
    for q, a, b in zip(instances["query_id"], instances["doc_a"], instances["doc_b"], strict=True):
        q, a, b = str(q), str(a), str(b)
        lab = labels.setdefault(q, {})
        lab[a] = max(strong(q, a), 1.0)
        lab.setdefault(b, strong(q, b))
    out = []
    for q, lab in labels.items():
        ids = sorted(lab)
        for hi in ids:
            for lo in ids:
                if lab[hi] > lab[lo]:
                    src = "qrels" if lab[hi] >= 2.0 else "multi-graded"
                    out.append(Pair(q, hi, lo, lab[hi], lab[lo], source=src))
    return out


def diagnostic_pools(
    dataset: Dataset, spec: DiagnosticAugmentSpec, regular: Sequence[Pair]
) -> tuple[dict[str, list[Pair]], dict[str, float], dict[str, Document]]:
    """Pools, batch weights and artificial documents for a diagnostic augmentation spec."""
    if not spec.instances:
        raise ValueError(
            "diagnostic augmentation needs the mined instances directory: "
            "diagnostic(mode=paired, instances=PATH) (write one with `axiomatic mine`)"
        )
    from axiomatic.data.instances import read_instances

    instances, artificial = read_instances(spec.instances)
    return pools_from_instances(dataset, spec, regular, instances, artificial)


def pools_from_instances(
    dataset: Dataset,
    spec: DiagnosticAugmentSpec,
    regular: Sequence[Pair],
    instances: pd.DataFrame,
    artificial: Mapping[str, Document] | None = None,
) -> tuple[dict[str, list[Pair]], dict[str, float], dict[str, Document]]:
    delta = spec.delta_max  # None unless paired-delta (DiagnosticAugmentSpec refuses it)
    df = filter_instances(instances, dataset, spec.axioms, delta, artificial)
    docs = dict(artificial or {})
    if spec.mode == "multi-graded":
        return {"qrels": multi_graded_pairs(df, dataset, regular)}, {"qrels": 1.0}, docs
    pairs = axiom_pairs(df, dataset)
    if not pairs:
        raise ValueError(
            f"no usable axiom instances for {spec.mode} augmentation of {dataset.name!r} "
            f"(axioms={list(spec.axioms) or 'all'}, delta_max={delta}); mine more queries or "
            "relax the filter"
        )
    weights = {"qrels": 1.0, "axiom": float(spec.rate)}
    return {"qrels": list(regular), "axiom": pairs}, weights, docs
