"""Calibrated effects (ABNIRML) and the probe sample's hash.

A ranker's score difference on a diagnostic instance is compared with a *no-difference band*
``delta`` calibrated per ranker (MacAvaney, Feldman, Goharian, Downey, Cohan, *ABNIRML: Analyzing
the Behavior of Neural IR Models*, TACL 2022): the instance counts as

- ``pos``     when the ranker prefers the document the axiom expects by more than ``delta``,
- ``neg``     when it prefers the other one by more than ``delta``,
- ``neutral`` otherwise (``|margin| <= delta``),

where the *margin* is ``s(a) - s(b)`` for a pair (``doc_a`` is the document the axiom
prescribes higher) and ``(s(b) - s(a)) - (s(c) - s(b))`` for a TFC2 triple (the relation
``diff>``). The *effect* is ``(pos - neg) / n`` with ``n = pos + neg + neutral`` (the scored
instances), in ``[-1, 1]``: +1 when every instance moves the score the axiom's way by more than
the band, -1 the other way, 0 when the ranker is indifferent or split.

``delta="auto"`` calibrates the band per ranker as ABNIRML does, on the ranker's own top-ranked
documents: for each query of the diagnosed instances, the ranker scores the query's candidate
list (the dataset's candidates; for a full-retrieval dataset, the query's documents among the
instances) and ``delta`` is the median over queries of ``|s(rank 1) - s(rank 2)|`` (queries
with fewer than two scored candidates are left out).

The paired test is the two-sided sign test of ``pos`` against ``neg`` (neutral instances carry
no sign): ``binomtest(pos, pos + neg, 1/2)``. The 95% interval of the effect is Agresti and
Min's adjusted Wald interval for a difference of matched proportions (:func:`effect_interval`).

The *sample hash* (:func:`sample_hash`) is a digest of what the instances ask: per instance the
query id, the documents, the axiom and the expected direction, independent of row order, so
two reports can show that they judged the same pairs.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping

import numpy as np
import pandas as pd
from scipy import stats as _st

__all__ = [
    "BAND_COLUMNS",
    "band_counts",
    "effect_interval",
    "instance_margins",
    "median_top_gap",
    "resolve_band",
    "sample_hash",
    "sign_test",
]

BAND_COLUMNS = (
    "delta",
    "pos",
    "neg",
    "neutral",
    "effect",
    "effect_ci_low",
    "effect_ci_high",
    "sign_p",
)
"""Columns a diagnosis table gains with a band, after the fulfilment fraction's interval."""

SAMPLE_PREFIX = "sha256:"
SAMPLE_CHARS = 16
"""Hex digits of the SHA-256 shown in tables (64 bits: enough to tell two samples apart)."""


def _ids(col: pd.Series) -> np.ndarray:
    return col.astype(object).where(col.notna(), "").astype(str).to_numpy()


def sample_hash(instances: pd.DataFrame, full: bool = False) -> str:
    """Digest of the probe sample: ``"sha256:"`` + 16 hex digits (all 64 with ``full``).

    Each instance becomes the line ``query_id, axiom, relation, doc_a, doc_b, doc_c`` (unit
    separators between fields); a symmetric instance (relation ``=``, or ``symmetric`` true)
    has no direction, so its two documents are written in sorted order. The lines are sorted
    (the hash does not depend on row order; a repeated instance counts twice) and hashed with
    SHA-256. Variant and parameters (the ``spec``) are not part of it: the same pairs mined
    under two labels are the same sample.
    """
    n = len(instances)
    if n == 0:
        digest = hashlib.sha256(b"").hexdigest()
        return SAMPLE_PREFIX + (digest if full else digest[:SAMPLE_CHARS])
    rel = instances["relation"].astype(str).to_numpy().astype(object)
    if "symmetric" in instances:
        sym = instances["symmetric"].fillna(False).to_numpy(dtype=bool)
        rel = np.where(sym, "=", rel).astype(object)
    a = _ids(instances["doc_a"])
    b = _ids(instances["doc_b"])
    c = _ids(instances["doc_c"]) if "doc_c" in instances else np.full(n, "", dtype=object)
    eq = rel == "="
    first = np.where(eq & (b < a), b, a)
    second = np.where(eq & (b < a), a, b)
    cols = [
        _ids(instances["query_id"]),
        instances["axiom"].astype(str).to_numpy(),
        rel.astype(str),
        first,
        second,
        c,
    ]
    lines = sorted("\x1f".join(map(str, row)) for row in zip(*cols, strict=True))
    digest = hashlib.sha256("\n".join(lines).encode("utf-8")).hexdigest()
    return SAMPLE_PREFIX + (digest if full else digest[:SAMPLE_CHARS])


def instance_margins(
    relation: np.ndarray, sa: np.ndarray, sb: np.ndarray, sc: np.ndarray
) -> np.ndarray:
    """Signed score margin of every instance in the direction the axiom expects.

    ``s(a) - s(b)`` for pairs (``>``, ``>=``, ``=``), ``(s(b) - s(a)) - (s(c) - s(b))`` for
    triples (``diff>``). Positive: the ranker moves the score the axiom's way.
    """
    relation = np.asarray(relation, dtype=object)
    with np.errstate(invalid="ignore"):
        pair = np.asarray(sa, np.float64) - np.asarray(sb, np.float64)
        triple = (np.asarray(sb, np.float64) - np.asarray(sa, np.float64)) - (
            np.asarray(sc, np.float64) - np.asarray(sb, np.float64)
        )
    return np.where(relation == "diff>", triple, pair)


def median_top_gap(score_lists: list[np.ndarray]) -> tuple[float, int]:
    """Median over queries of ``|s(rank 1) - s(rank 2)|`` (NaN scores left out) and the number
    of queries it is over (those with at least two scores). NaN when there is none."""
    gaps = []
    for s in score_lists:
        s = np.asarray(s, dtype=np.float64)
        s = s[np.isfinite(s)]
        if s.size < 2:
            continue
        top = np.sort(s)[::-1][:2]
        gaps.append(abs(float(top[0] - top[1])))
    if not gaps:
        return float("nan"), 0
    return float(np.median(gaps)), len(gaps)


def resolve_band(band: object) -> str | float | dict[str, float] | None:
    """Check ``band``: ``None``, ``"auto"``, a number >= 0 or a mapping ranker -> number."""
    if band is None:
        return None
    if isinstance(band, str):
        if band == "auto":
            return "auto"
        try:
            band = float(band)
        except ValueError:
            raise ValueError(
                f"band must be 'auto' or a number >= 0 (got {band!r}); e.g. band='auto' "
                "calibrates it per ranker, band=0.5 uses 0.5 for every ranker"
            ) from None
    if isinstance(band, Mapping):
        out = {str(k): float(v) for k, v in band.items()}
        bad = {k: v for k, v in out.items() if not v >= 0}
        if bad:
            raise ValueError(f"band values must be numbers >= 0 (got {bad})")
        return out
    if isinstance(band, (int, float, np.integer, np.floating)) and not isinstance(band, bool):
        value = float(band)
        if not value >= 0:
            raise ValueError(f"band must be a number >= 0 or 'auto' (got {band!r})")
        return value
    raise ValueError(
        f"band must be None, 'auto', a number >= 0 or a mapping ranker -> number "
        f"(got {type(band).__name__})"
    )


def band_counts(margins: np.ndarray, delta: float) -> tuple[int, int, int]:
    """``(pos, neg, neutral)`` of the finite-or-infinite, non-NaN ``margins`` against ``delta``."""
    m = np.asarray(margins, dtype=np.float64)
    m = m[~np.isnan(m)]
    pos = int(np.count_nonzero(m > delta))
    neg = int(np.count_nonzero(m < -delta))
    return pos, neg, int(m.size - pos - neg)


def sign_test(pos: int, neg: int) -> float:
    """Two-sided sign test of ``pos`` against ``neg`` (exact binomial, p = 1/2); 1 when both 0."""
    if pos + neg == 0:
        return 1.0
    return float(_st.binomtest(int(pos), int(pos + neg), 0.5).pvalue)


def effect_interval(
    pos: int, neg: int, n: int, confidence: float = 0.95
) -> tuple[float, float, float]:
    r"""``(effect, low, high)``: the effect ``(pos - neg) / n`` and its Agresti-Min interval.

    The effect is a difference of matched proportions (``pos`` and ``neg`` play the discordant
    cells of McNemar's table), so the interval is Agresti & Min's (2005, *Biometrics* 61:515)
    adjusted Wald interval for it: with :math:`b = pos + 1/2`, :math:`c = neg + 1/2`,
    :math:`m = n + 2`,

    .. math::
        \tilde\theta = (b - c) / m, \quad
        se = \sqrt{(b + c) - (b - c)^2 / m} \,/\, m, \quad
        \tilde\theta \pm z\, se

    clipped to ``[-1, 1]``. Unlike a Wald interval it does not collapse when every instance
    falls on one side, and unlike an interval conditional on ``pos + neg`` it carries the
    uncertainty of the neutral share. ``n == 0``: NaN.
    """
    if n <= 0:
        return float("nan"), float("nan"), float("nan")
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must be in (0, 1) (got {confidence!r}); use e.g. 0.95")
    z = float(_st.norm.ppf(0.5 + confidence / 2.0))
    b, c, m = pos + 0.5, neg + 0.5, n + 2.0
    centre = (b - c) / m
    se = np.sqrt(max((b + c) - (b - c) ** 2 / m, 0.0)) / m
    lo, hi = max(-1.0, centre - z * se), min(1.0, centre + z * se)
    return (pos - neg) / n, float(lo), float(hi)
