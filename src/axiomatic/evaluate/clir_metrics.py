"""The ranking measures of Liu et al. (smooth CLIR), through ir_measures with explicit
relevance levels.

Graded labels: MR (most relevant) documents have grade >= ``mr`` (2 by default; the top grade of
the collection, :func:`relevance_levels`: NFCorpus 3), "relevant" (MR + SR) documents grade >=
``r`` (1). Reading of the paper's measures (section 5, Table 2):

============  ==========================  ======================================================
name          ir_measures                 definition (mean over judged queries)
============  ==========================  ======================================================
Pmr@1         ``P(rel=mr)@1``             1 if the top document is MR
Pmr@5         ``Success(rel=mr)@5``       1 if an MR document is in the top 5. The paper's
                                          values (0.83 with one MR per query) exceed the 0.2 a
                                          precision P@5 could reach, so it is the hit rate
Pr@5          ``P(rel=r)@5``              fraction of the top 5 that is MR or SR
NDCG@5        ``nDCG@5``                  graded gains = the grades (2, 1, 0)
MAP           ``AP(rel=r)``               average precision with MR + SR relevant (AP at
                                          rel=mr would equal MRRmr with one MR per query; the
                                          paper's MAP and MRRmr differ, so rel=r)
MRRmr         ``RR(rel=mr)``              1 / rank of the first MR document
MRRr          ``RR(rel=r)``               1 / rank of the first MR or SR document
============  ==========================  ======================================================
"""

from __future__ import annotations

from collections.abc import Mapping

from axiomatic.data.records import Run

CLIR_MEASURE_NAMES = ("Pmr@1", "Pmr@5", "Pr@5", "NDCG@5", "MAP", "MRRmr", "MRRr")


def clir_measures(mr: int = 2, r: int = 1) -> dict[str, str]:
    """Display name -> ir_measures measure string, for MR grade ``>= mr`` and relevant ``>= r``."""
    if not (isinstance(mr, int) and isinstance(r, int)) or not 1 <= r <= mr:
        raise ValueError(
            f"relevance levels must be integers with 1 <= r <= mr (got mr={mr!r}, r={r!r})"
        )
    return {
        "Pmr@1": f"P(rel={mr})@1",
        "Pmr@5": f"Success(rel={mr})@5",
        "Pr@5": f"P(rel={r})@5",
        "NDCG@5": "nDCG@5",
        "MAP": f"AP(rel={r})",
        "MRRmr": f"RR(rel={mr})",
        "MRRr": f"RR(rel={r})",
    }


def relevance_levels(*qrels: Mapping[str, Mapping[str, int]] | None) -> tuple[int, int]:
    """``(mr, r)`` from a collection's grades: MR is the top grade that occurs (XQuAD 2,
    NFCorpus 3), R is 1 (every positive grade: ``rel=1`` keeps the documents of the lowest
    positive grade and up). Takes one or more qrels (e.g. every split of a collection). Raises
    ``ValueError`` when no grade above 1 occurs (MR and R would be the same level)."""
    grades = {int(g) for q in qrels if q for judged in q.values() for g in judged.values()}
    top = max(grades, default=0)
    if top < 2:
        raise ValueError(
            f"MR / R levels need a graded collection (top grade {top}; MR = the top grade, "
            "R = grade >= 1 must differ)"
        )
    return top, 1


def evaluate_clir_per_query(
    run: Run, qrels: Mapping[str, Mapping[str, int]], mr: int = 2, r: int = 1
) -> dict[str, dict[str, float]]:
    """``{display name: {query_id: value}}`` over the judged queries (missing queries count 0)."""
    from axiomatic.evaluate.metrics import evaluate_per_query, measure_name, parse_measures

    names = clir_measures(mr, r)
    # ir_measures prints a default parameter away ("P(rel=1)@5" -> "P@5"): key by its spelling
    back = {measure_name(parse_measures(v)[0]): k for k, v in names.items()}
    df = evaluate_per_query(run, {q: dict(v) for q, v in qrels.items()}, list(names.values()))
    out: dict[str, dict[str, float]] = {k: {} for k in names}
    for m, q, v in zip(df["measure"], df["query_id"], df["value"], strict=True):
        out[back[str(m)]][str(q)] = float(v)
    return out


def evaluate_clir(
    run: Run, qrels: Mapping[str, Mapping[str, int]], mr: int = 2, r: int = 1
) -> dict[str, float]:
    """Mean of each of :data:`CLIR_MEASURE_NAMES` over the judged queries."""
    per = evaluate_clir_per_query(run, qrels, mr, r)
    return {k: (sum(v.values()) / len(v) if v else 0.0) for k, v in per.items()}
