"""Instance relations and outcomes: the constants of a diagnosis and how one instance is judged.

See :mod:`axiomatic.diagnose.diagnosis` for the meaning of each relation and of ties.
"""

from __future__ import annotations

import numpy as np

RELATIONS = (">", ">=", "=", "diff>")
GROUP_KEYS = ["axiom", "variant", "spec"]
REQUIRED_COLUMNS = ["query_id", "axiom", "variant", "spec", "doc_a", "doc_b", "relation"]
REL_TYPES = (
    "both relevant",
    "relevant > non-relevant",
    "non-relevant > relevant",
    "both non-relevant",
    "unjudged",
)
"""Relevance-pair types of an instance, seen from ``doc_a`` (the document prescribed higher)."""

SKIP_ARTIFICIAL = "artificial document (ranker scores only the documents of its run)"
SKIP_NO_SCORE = "no score for a document (e.g. not in the ranker's run)"
SKIP_UNRETRIEVED = "order undetermined (documents not in the ranker's run)"
MISSING_POLICIES = ("skip", "below", "both")
VIEW_OWN = "own list"
"""View of ``missing="skip"``: instances whose documents are all in the ranker's own list."""
VIEW_UNION = "union"
"""View of ``missing="below"``: a document missing from a run ranks below all it retrieved."""
VIEW_OF_POLICY = {"skip": VIEW_OWN, "below": VIEW_UNION}
SYMMETRIC_SUFFIX = " [equal]"
"""Appended to the group spec of symmetric instances (relation ``=``): counted separately."""
DEFAULT_TIE_TOLERANCE = 1e-9
"""Relative tie tolerance: ``|s_a - s_b| <= tol * max(1, |s_a|, |s_b|)`` is a tie."""
SWEEP_EXCLUDED = ("LNC2",)
"""Axioms left out of delta* sweeps by default: they do not ask for equal document lengths."""

FULFILLED, VIOLATED, SKIPPED = 1, 0, -1


def evaluate_relations(
    relation: np.ndarray,
    sa: np.ndarray,
    sb: np.ndarray,
    sc: np.ndarray | None = None,
    tie_tolerance: float = DEFAULT_TIE_TOLERANCE,
) -> np.ndarray:
    """Outcome (1 fulfilled, 0 violated, -1 skipped when a score is NaN) of every instance.

    ``relation[i]`` is one of :data:`RELATIONS`. Two scores tie when
    ``|s_a - s_b| <= tie_tolerance * max(1, |s_a|, |s_b|)`` (relative for scores above 1,
    absolute below; triples scale by the largest of their three scores); ``tie_tolerance=0`` is
    exact comparison.
    ``-inf`` ranks below every finite score; a pair whose scores are both ``-inf`` and a triple
    with a non-finite score are skipped (no order can be read from them).
    """
    relation = np.asarray(relation, dtype=object)
    sa = np.asarray(sa, dtype=np.float64)
    sb = np.asarray(sb, dtype=np.float64)
    sc = np.full_like(sa, np.nan) if sc is None else np.asarray(sc, dtype=np.float64)
    gt = relation == ">"
    ge = relation == ">="
    eq = relation == "="
    df = relation == "diff>"
    bad = ~(gt | ge | eq | df)
    if bad.any():
        seen = sorted({str(r) for r in relation[bad]})
        raise ValueError(f"unknown instance relation(s) {seen}; expected one of {list(RELATIONS)}")
    tie = float(tie_tolerance)
    if not tie >= 0:
        raise ValueError(f"tie_tolerance must be >= 0 (got {tie_tolerance!r})")

    def mag(x: np.ndarray) -> np.ndarray:
        return np.where(np.isfinite(x), np.abs(x), 0.0)

    scale = np.maximum(np.maximum(1.0, mag(sa)), mag(sb))
    tol = tie * scale
    tol3 = tie * np.maximum(scale, mag(sc))
    with np.errstate(invalid="ignore"):
        d_ab = sa - sb
        ok = np.where(gt, d_ab > tol, False)
        ok = np.where(ge, d_ab >= -tol, ok)
        ok = np.where(eq, np.abs(d_ab) <= tol, ok)
        ok = np.where(df, (sb - sa) - (sc - sb) > tol3, ok)
    skipped = np.isnan(sa) | np.isnan(sb) | (df & np.isnan(sc))
    with np.errstate(invalid="ignore"):
        # Two documents both scored -inf (e.g. both unretrieved by a run) have no order;
        # a triple needs finite score differences.
        skipped |= (gt | ge | eq) & np.isnan(d_ab)
        skipped |= df & ~(np.isfinite(sa) & np.isfinite(sb) & np.isfinite(sc))
    out = np.where(ok, FULFILLED, VIOLATED).astype(np.int8)
    out[skipped] = SKIPPED
    return out
