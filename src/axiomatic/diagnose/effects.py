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

The band is calibrated per ranker on the ranker's own top-ranked documents: for each query
of the diagnosed instances, the ranker scores the query's candidate list (the dataset's
candidates; for a full-retrieval dataset, the query's documents among the instances), and

- ``band="top-gap"`` (``"auto"`` is its alias; this project's definition): ``delta`` is the
  median over queries of ``|s(rank 1) - s(rank 2)|`` (:func:`median_top_gap`; queries with
  fewer than two scored candidates are left out);
- ``band="abnirml"`` (ABNIRML's ``topk_diffs``): ``delta`` is the median of the gaps
  ``s(rank i) - s(rank i + 1)`` of the top :data:`ABNIRML_TOP_K` = 10, pooled over queries
  (:func:`median_adjacent_gap`).

The test of the effect (``band_test``, :data:`BAND_TESTS`) is

- ``"sign"`` (default): the two-sided sign test of ``pos`` against ``neg`` (neutral instances
  carry no sign), ``binomtest(pos, pos + neg, 1/2)`` (:func:`sign_test`);
- ``"t"`` (ABNIRML's): the two-sided one-sample t-test of the signed margins of every scored
  instance against 0, ``scipy.stats.ttest_1samp(margins, 0)`` (:func:`t_test`).

The 95% interval of the effect is Agresti and Min's adjusted Wald interval for a difference of
matched proportions (:func:`effect_interval`).

The *sample hash* (:func:`sample_hash`) is a digest of what the instances ask: per instance the
query id, the documents, the axiom, the expected direction and (as ABNIRML's hash) the texts of
the query and the documents, independent of row order, so two reports can show that they
judged the same pairs of the same texts.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Mapping

import numpy as np
import pandas as pd
from scipy import stats as _st

from axiomatic.data.records import Dataset, Document

__all__ = [
    "ABNIRML_TOP_K",
    "BAND_ALIASES",
    "BAND_CALIBRATIONS",
    "BAND_COLUMNS",
    "BAND_TESTS",
    "band_counts",
    "calibrate_band",
    "check_band_test",
    "effect_interval",
    "effect_test",
    "instance_margins",
    "median_adjacent_gap",
    "median_top_gap",
    "resolve_band",
    "sample_hash",
    "sample_texts",
    "sign_test",
    "t_test",
]

BAND_COLUMNS = (
    "delta",
    "pos",
    "neg",
    "neutral",
    "effect",
    "effect_ci_low",
    "effect_ci_high",
    "effect_test",
    "effect_p",
)
"""Columns a diagnosis table gains with a band, after the fulfilment fraction's interval
(``effect_test`` names the test whose p-value ``effect_p`` is: ``sign`` or ``t``)."""

BAND_CALIBRATIONS = ("top-gap", "abnirml")
"""Named band calibrations: this project's median top-two gap, ABNIRML's pooled top-10 gaps."""

BAND_ALIASES = {"auto": "top-gap"}
"""Other names of a calibration (``auto``: the default calibration, ``top-gap``)."""

BAND_TESTS = ("sign", "t")
"""Tests of the effect: the sign test of pos against neg, ABNIRML's one-sample t-test."""

ABNIRML_TOP_K = 10
"""Depth of the ranking whose adjacent score gaps ABNIRML pools into its band."""

SAMPLE_PREFIX = "sha256:"
SAMPLE_CHARS = 16
"""Hex digits of the SHA-256 shown in tables (64 bits: enough to tell two samples apart)."""


def _ids(col: pd.Series) -> np.ndarray:
    return col.astype(object).where(col.notna(), "").astype(str).to_numpy()


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _text_digests(ids: np.ndarray, texts: Mapping[str, str], what: str) -> np.ndarray:
    """SHA-256 of the text of each id (``""`` for an empty id: no third document)."""
    cache: dict[str, str] = {"": ""}
    out = np.empty(ids.size, dtype=object)
    for i, key in enumerate(ids):
        d = cache.get(key)
        if d is None:
            try:
                d = cache[key] = _digest(texts[key])
            except KeyError:
                raise KeyError(
                    f"no text for {what} {key!r}: the sample hash covers the texts, so give "
                    f"every {what} of the instances a text (see sample_texts)"
                ) from None
        out[i] = d
    return out


def sample_hash(
    instances: pd.DataFrame,
    full: bool = False,
    *,
    query_texts: Mapping[str, str] | None = None,
    doc_texts: Mapping[str, str] | None = None,
) -> str:
    """Digest of the probe sample: ``"sha256:"`` + 16 hex digits (all 64 with ``full``).

    Each instance becomes the line ``query_id, axiom, relation, doc_a, doc_b, doc_c`` (unit
    separators between fields), followed, when ``query_texts`` and ``doc_texts`` (id -> text)
    are given, by the SHA-256 of the query's text and of each document's text: like ABNIRML's
    hash, it then changes when a text changes under the same ids (a re-processed corpus, another
    manipulation). A symmetric instance (relation ``=``, or ``symmetric`` true) has no
    direction, so its two documents (with their texts) are written in sorted order. The lines
    are sorted (the hash does not depend on row order; a repeated instance counts twice) and
    hashed with SHA-256. Variant and parameters (the ``spec``) are not part of it: the same
    pairs mined under two labels are the same sample. :func:`sample_texts` gives the texts of
    a dataset; a diagnosis hashes the texts its rankers scored.
    """
    if (query_texts is None) != (doc_texts is None):
        raise ValueError("give both query_texts and doc_texts, or neither")
    n = len(instances)
    if n == 0:
        digest = hashlib.sha256(b"").hexdigest()
        return SAMPLE_PREFIX + (digest if full else digest[:SAMPLE_CHARS])
    rel = instances["relation"].astype(str).to_numpy().astype(object)
    if "symmetric" in instances:
        col = instances["symmetric"]  # bool, or float/object with gaps as read from a file
        sym = (col.notna() & col.astype(object).ne(0)).to_numpy(dtype=bool)
        rel = np.where(sym, "=", rel).astype(object)
    qid = _ids(instances["query_id"])
    a = _ids(instances["doc_a"])
    b = _ids(instances["doc_b"])
    c = _ids(instances["doc_c"]) if "doc_c" in instances else np.full(n, "", dtype=object)
    swap = (rel == "=") & (b < a)
    cols = [
        qid,
        instances["axiom"].astype(str).to_numpy(),
        rel.astype(str),
        np.where(swap, b, a),
        np.where(swap, a, b),
        c,
    ]
    if query_texts is not None and doc_texts is not None:
        ta = _text_digests(a, doc_texts, "document")
        tb = _text_digests(b, doc_texts, "document")
        cols += [
            _text_digests(qid, query_texts, "query"),
            np.where(swap, tb, ta),
            np.where(swap, ta, tb),
            _text_digests(c, doc_texts, "document"),
        ]
    lines = sorted("\x1f".join(map(str, row)) for row in zip(*cols, strict=True))
    digest = hashlib.sha256("\n".join(lines).encode("utf-8")).hexdigest()
    return SAMPLE_PREFIX + (digest if full else digest[:SAMPLE_CHARS])


def sample_texts(
    instances: pd.DataFrame,
    dataset: Dataset,
    artificial_docs: Mapping[str, Document] | pd.DataFrame | None = None,
) -> tuple[dict[str, str], dict[str, str]]:
    """``(query_texts, doc_texts)`` of the instances' queries and documents, from ``dataset``
    and the artificial documents (a mapping id -> Document or the ``doc_id, text`` table of
    ``_artificial_docs.parquet``), for :func:`sample_hash`."""
    art: dict[str, str] = {}
    if isinstance(artificial_docs, pd.DataFrame):
        art = dict(
            zip(
                artificial_docs["doc_id"].astype(str),
                artificial_docs["text"].astype(str),
                strict=True,
            )
        )
    elif artificial_docs is not None:
        art = {str(k): v.text for k, v in artificial_docs.items()}
    queries = {q: dataset.queries[q].text for q in set(_ids(instances["query_id"]))}
    docs: dict[str, str] = {}
    for col in ("doc_a", "doc_b", "doc_c"):
        if col not in instances:
            continue
        for d in set(_ids(instances[col])) - {""} - docs.keys():
            docs[d] = art[d] if d in art else dataset.documents[d].text
    return queries, docs


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


def median_adjacent_gap(score_lists: list[np.ndarray], k: int = ABNIRML_TOP_K) -> tuple[float, int]:
    """ABNIRML's band: the median of the gaps ``s(rank i) - s(rank i + 1)`` between adjacent
    documents of each query's top ``k`` (NaN scores left out), pooled over queries, and the
    number of queries that gave a gap (those with at least two scores). NaN when there is none.

    A query contributes ``min(k, n) - 1`` gaps, so the median is over gaps, not queries
    (MacAvaney et al. 2022, section 3.3; ``topk_diffs`` in their code)."""
    gaps: list[np.ndarray] = []
    for s in score_lists:
        s = np.asarray(s, dtype=np.float64)
        s = s[np.isfinite(s)]
        if s.size < 2:
            continue
        top = np.sort(s)[::-1][:k]
        gaps.append(top[:-1] - top[1:])
    if not gaps:
        return float("nan"), 0
    return float(np.median(np.concatenate(gaps))), len(gaps)


def calibrate_band(calibration: str, score_lists: list[np.ndarray]) -> tuple[float, int]:
    """The band of ``calibration`` (:data:`BAND_CALIBRATIONS` or an alias) from each query's
    candidate scores, and the number of queries it rests on."""
    name = BAND_ALIASES.get(calibration, calibration)
    if name == "top-gap":
        return median_top_gap(score_lists)
    if name == "abnirml":
        return median_adjacent_gap(score_lists)
    raise ValueError(
        f"unknown band calibration {calibration!r}; expected one of "
        f"{', '.join(BAND_CALIBRATIONS)} (or {', '.join(BAND_ALIASES)})"
    )


def _band_error(band: object) -> ValueError:
    return ValueError(
        f"band must be 'auto', 'top-gap', 'abnirml' or a finite number >= 0 (got {band!r}); e.g. "
        "band='top-gap' (or 'auto') calibrates it per ranker on the median gap between its top "
        "two candidates, band='abnirml' on the median gap between adjacent documents of its "
        "top 10 (ABNIRML), band=0.5 uses 0.5 for every ranker"
    )


def resolve_band(band: object) -> str | float | dict[str, float] | None:
    """Check ``band``: ``None``, a calibration (``"top-gap"``, its alias ``"auto"``,
    ``"abnirml"``), a number >= 0 or a mapping ranker -> number. A calibration is returned by
    its name in :data:`BAND_CALIBRATIONS`."""
    if band is None:
        return None
    if isinstance(band, str):
        name = BAND_ALIASES.get(band, band)
        if name in BAND_CALIBRATIONS:
            return name
        try:
            number = float(band)
        except ValueError:
            raise _band_error(band) from None
        if not 0 <= number < math.inf:  # shown as the user wrote it
            raise _band_error(band)
        return number
    if isinstance(band, Mapping):
        out = {str(k): float(v) for k, v in band.items()}
        bad = {k: v for k, v in out.items() if not 0 <= v < math.inf}
        if bad:
            raise ValueError(f"band values must be finite numbers >= 0 (got {bad})")
        return out
    if isinstance(band, (int, float, np.integer, np.floating)) and not isinstance(band, bool):
        value = float(band)
        if not 0 <= value < math.inf:
            raise _band_error(band)
        return value
    raise ValueError(
        f"band must be None, 'auto', 'top-gap', 'abnirml', a number >= 0 or a mapping "
        f"ranker -> number (got {type(band).__name__})"
    )


def check_band_test(test: object) -> str:
    """``test`` if it is one of :data:`BAND_TESTS`, else one clear error."""
    if test in BAND_TESTS:
        return str(test)
    from axiomatic._suggest import suggest

    raise ValueError(
        f"band_test must be one of {', '.join(BAND_TESTS)} (got {test!r})"
        f"{suggest(str(test), BAND_TESTS)}; 'sign' tests pos against neg, 't' is ABNIRML's "
        "one-sample t-test of the score margins"
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


def t_test(margins: np.ndarray) -> float:
    """ABNIRML's test: two-sided one-sample t-test of the non-NaN ``margins`` against 0
    (``scipy.stats.ttest_1samp``); NaN with fewer than two margins or when they do not vary."""
    m = np.asarray(margins, dtype=np.float64)
    m = m[~np.isnan(m)]
    if m.size < 2 or not np.isfinite(m).all() or np.ptp(m) == 0:
        return float("nan")
    return float(_st.ttest_1samp(m, 0.0).pvalue)


def effect_test(test: str, margins: np.ndarray, pos: int, neg: int) -> float:
    """p-value of ``test`` (:data:`BAND_TESTS`) for one group: the sign test of ``pos``
    against ``neg`` or the t-test of its ``margins``."""
    if check_band_test(test) == "t":
        return t_test(margins)
    return sign_test(pos, neg)


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
