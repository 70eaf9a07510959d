"""Effectiveness measures through ir_measures, with per-dataset relevance thresholds.

Measures are ir_measures value objects (``nDCG@10``, ``RR@10``, ``AP``, ``P@5``, ``R@100``, ...),
parsed safely by ir_measures (``ast``, never ``eval``). Graded qrels are used as follows:

* **binary measures** (AP, RR, P, R, Success, ...) count a document as relevant when its grade is
  ``>= rel_threshold`` (ir_measures' ``rel=`` parameter; e.g. 2 for TREC DL). A threshold written
  explicitly in the measure (``AP(rel=3)``) wins;
* **graded measures** (nDCG) use the grades themselves, as linear gains (trec_eval's nDCG:
  ``gain = grade``, not ``2^grade - 1``; ``nDCG(gains=...)`` maps grades to other gains).

The query set is that of the **qrels**: a query that has judgments but is missing from the run
(or has an empty ranking) scores 0 on every measure, as ``trec_eval -c`` does; run queries without
judgments are ignored. Averages are arithmetic means over that query set. A run that matches
none of the judged queries is almost always a mistake (another dataset's run, other query ids), so
it raises a :class:`NoMatchingQueriesWarning` with the counts instead of silently scoring 0.

Measures and grades are validated before they reach pytrec_eval, whose C code aborts the whole
process on a cutoff of 0 and raises ``SystemError`` on a grade beyond 64 bits: cutoffs must be
integers >= 1, ``rel`` and grades integers within +-(2**31 - 1), and the measure must have an
ir_measures provider.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterable, Mapping
from typing import Any

import numpy as np
import pandas as pd

from axiomatic._suggest import suggest
from axiomatic.data.records import Qrels, Run

__all__ = [
    "COMMON_MEASURES",
    "NoMatchingQueriesWarning",
    "evaluate",
    "evaluate_per_query",
    "is_run_collection",
    "measure_name",
    "parse_measures",
    "per_query_matrix",
    "run_coverage",
]

MAX_INT = 2**31 - 1
"""Largest cutoff, ``rel`` or |grade| passed to pytrec_eval (its C code uses fixed-width ints)."""


class NoMatchingQueriesWarning(UserWarning):
    """A run that shares no query id with the judged queries: every measure is 0."""


COMMON_MEASURES = (
    "nDCG@10",
    "nDCG@20",
    "nDCG@100",
    "nDCG",
    "RR@10",
    "RR",
    "AP",
    "MAP",
    "AP@100",
    "P@1",
    "P@5",
    "P@10",
    "P@20",
    "R@10",
    "R@100",
    "R@1000",
    "Success@1",
    "Success@10",
    "Rprec",
    "Judged@10",
    "NumRet",
    "NumRel",
    "NumRelRet",
)

MeasureLike = Any  # an ir_measures Measure


def _ir_measures() -> Any:
    import ir_measures

    return ir_measures


def split_measure_string(text: str) -> list[str]:
    """Split on whitespace and commas that are not inside parentheses."""
    out: list[str] = []
    depth = 0
    cur: list[str] = []
    for ch in text:
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        if depth == 0 and (ch.isspace() or ch == ","):
            if cur:
                out.append("".join(cur))
                cur = []
            continue
        cur.append(ch)
    if cur:
        out.append("".join(cur))
    return out


def parse_measures(measures: str | MeasureLike | Iterable[str | MeasureLike]) -> list[MeasureLike]:
    """Parse ``"nDCG@10 RR@10 AP"`` (space/comma separated), a list of names, or Measure objects.

    trec_eval names are accepted as ir_measures reads them (``ndcg_cut_10`` is ``nDCG@10``,
    ``map`` is ``AP``, ``recip_rank`` is ``RR``, ``P_5`` is ``P@5``); results carry the
    ir_measures name.

    Raises ``ValueError`` naming the unknown measure with close matches, e.g.
    ``unknown measure 'nDGC@10' (did you mean 'nDCG@10'?) ...``.
    """
    im = _ir_measures()
    if isinstance(measures, str):
        items: list[Any] = split_measure_string(measures)
    elif hasattr(measures, "NAME"):
        items = [measures]
    else:
        items = list(measures)
    if not items:
        raise ValueError(
            "no measures given; expected names such as 'nDCG@10 RR@10 AP' "
            f"(known: {', '.join(COMMON_MEASURES[:8])}, ...)"
        )
    out = []
    for item in items:
        if hasattr(item, "NAME"):
            out.append(item)
            continue
        if not isinstance(item, str):
            raise TypeError(f"measures must be strings or ir_measures measures (got {item!r})")
        try:
            out.append(im.parse_measure(item))
        except Exception as exc:  # ir_measures raises several types for bad names
            trec = _trec_eval_measure(item)
            if trec is not None:
                out.append(trec)
                continue
            known = list(dict.fromkeys([*COMMON_MEASURES, *sorted(im.measures.registry.keys())]))
            # the name without its cutoff or parameters when the whole is close to nothing
            hint = suggest(item, known) or suggest(item.split("@")[0].split("(")[0], known)
            raise ValueError(
                f"unknown measure {item!r}{hint} (expected ir_measures syntax such as "
                f"'nDCG@10', 'RR@10', 'AP', 'P@5', 'R@100', 'AP(rel=2)'; error: {exc})"
            ) from None
    for measure in out:
        _check_measure(measure)
    return out


def _trec_eval_measure(name: str) -> MeasureLike | None:
    """A trec_eval measure name (``ndcg_cut_10``, ``map``, ``recip_rank``, ``P_5``,
    ``recall_100``) as the one ir_measures measure it denotes (``nDCG@10``, ``AP``, ``RR``,
    ``P@5``, ``R@100``), as ir_measures reads trec_eval names; ``None`` when it is not one. A
    family without its cutoff (``ndcg_cut``: nine cutoffs) is an error naming them."""
    try:
        found = list(_ir_measures().parse_trec_measure(name))
    except Exception:  # not a trec_eval name
        return None
    if len(found) == 1:
        return found[0]
    if len(found) > 1:
        raise ValueError(
            f"trec_eval measure {name!r} stands for {len(found)} measures "
            f"({', '.join(map(str, found[:9]))}); name one, e.g. {name}_10 or {found[1]}"
        )
    return None


def _is_int(value: Any) -> bool:
    return isinstance(value, (int, np.integer)) and not isinstance(value, bool)


def _check_measure(measure: MeasureLike) -> None:
    """Reject parameter values that pytrec_eval cannot take (a cutoff of 0 aborts the process)."""
    params = getattr(measure, "params", {}) or {}
    cutoff = params.get("cutoff")
    if cutoff is not None and (not _is_int(cutoff) or not 1 <= cutoff <= MAX_INT):
        base = getattr(measure, "NAME", str(measure))
        raise ValueError(
            f"measure {str(measure)!r}: the cutoff after '@' must be a whole number >= 1 "
            f"(got {cutoff!r}); e.g. '{base}@10', or '{base}' for the whole ranking"
        )
    rel = params.get("rel")
    if rel is not None and (not _is_int(rel) or abs(rel) > MAX_INT):
        raise ValueError(
            f"measure {str(measure)!r}: rel must be an integer grade (got {rel!r}); "
            f"e.g. '{getattr(measure, 'NAME', 'AP')}(rel=2)'"
        )
    im = _ir_measures()
    try:
        supported = bool(im.DefaultPipeline.supports(measure))
    except Exception:  # a provider that cannot even check it cannot compute it either
        supported = False
    if not supported:
        raise ValueError(
            f"measure {str(measure)!r} has no installed ir_measures provider that can compute "
            f"it with these parameters; use one of {', '.join(COMMON_MEASURES[:10])}, ..."
        )


def _check_grade(qid: str, doc_id: str, grade: Any) -> int:
    """A grade as a machine int; a float must be integral, and |grade| <= 2**31 - 1."""
    if isinstance(grade, bool) or not isinstance(grade, (int, float, np.integer, np.floating)):
        raise ValueError(f"qrels grade of ({qid!r}, {doc_id!r}) must be an integer (got {grade!r})")
    if isinstance(grade, (float, np.floating)) and not float(grade).is_integer():
        raise ValueError(
            f"qrels grade of ({qid!r}, {doc_id!r}) must be a whole number (got {grade!r})"
        )
    value = int(grade)
    if abs(value) > MAX_INT:
        raise ValueError(
            f"qrels grade of ({qid!r}, {doc_id!r}) is {value}, outside the supported range "
            f"+-{MAX_INT}; relevance grades are small integers such as 0-3"
        )
    return value


def run_coverage(run: Run, qrels: Qrels) -> dict[str, int]:
    """How a run's queries meet the judged ones: ``judged`` (queries with judgments),
    ``matched`` (judged queries the run ranks documents for), ``missing`` (judged queries the run
    lacks; they score 0) and ``unjudged`` (run queries without judgments; ignored)."""
    judged = {q for q, docs in qrels.items() if docs}
    ranked = {q for q, docs in run.items() if docs}
    matched = judged & ranked
    return {
        "judged": len(judged),
        "matched": len(matched),
        "missing": len(judged - ranked),
        "unjudged": len(ranked - judged),
    }


def measure_name(measure: MeasureLike) -> str:
    """The display name of a measure, as written by ir_measures (``nDCG@10``, ``AP(rel=2)``)."""
    return str(measure)


def _with_threshold(measure: MeasureLike, rel_threshold: int) -> MeasureLike:
    """Binary measures get ``rel=rel_threshold`` unless they carry an explicit ``rel``."""
    if "rel" in measure.SUPPORTED_PARAMS and "rel" not in measure.params and rel_threshold != 1:
        return measure(rel=int(rel_threshold))
    return measure


def relevance_threshold(qrels: Any, rel_threshold: int | None = None) -> int:
    """The grade from which binary measures (AP, RR, P, R, ...) count a document as relevant:
    the one rule of ``axiomatic evaluate`` and ``axiomatic.evaluate(...)``.

    An explicit ``rel_threshold`` wins; else the threshold of the dataset the judgments come
    from: ``qrels`` may be a :class:`~axiomatic.data.records.Dataset` or its ``qrels``
    (a :class:`~axiomatic.data.records.DatasetQrels`, which carries it; 2 for TREC DL); else 1,
    trec_eval's rule for a plain dict.
    """
    if rel_threshold is not None:
        return rel_threshold
    found = getattr(qrels, "rel_threshold", None)
    return 1 if found is None else found


def _check_inputs(run: Run, qrels: Qrels, rel_threshold: int) -> None:
    if not isinstance(run, Mapping):
        raise TypeError(
            f"run must be a dict {{query_id: {{doc_id: score}}}} (got {type(run).__name__}); "
            "read TREC run files with axiomatic.data.trec.read_run"
        )
    if not isinstance(qrels, Mapping):
        raise TypeError(
            f"qrels must be a dict {{query_id: {{doc_id: grade}}}} (got {type(qrels).__name__}); "
            "read TREC qrels with axiomatic.data.trec.read_qrels"
        )
    if isinstance(rel_threshold, bool) or not isinstance(rel_threshold, (int, np.integer)):
        raise TypeError(f"rel_threshold must be an int grade (got {rel_threshold!r})")
    if abs(int(rel_threshold)) > MAX_INT:
        raise ValueError(
            f"rel_threshold {rel_threshold} is outside the supported range +-{MAX_INT}; "
            "relevance thresholds are small grades such as 1 or 2"
        )


def evaluate_per_query(
    run: Run,
    qrels: Qrels,
    measures: str | Iterable[str | MeasureLike],
    rel_threshold: int | None = None,
) -> pd.DataFrame:
    """Per-query values: a DataFrame with columns ``query_id``, ``measure``, ``value``.

    One row per (judged query, measure), sorted by measure then query id; ``measure`` is the name
    as requested (``AP``, not ``AP(rel=2)``). Judged queries missing from the run get 0.
    ``rel_threshold`` defaults to the dataset's (:func:`relevance_threshold`).
    """
    rel_threshold = relevance_threshold(qrels, rel_threshold)
    _check_inputs(run, qrels, rel_threshold)
    im = _ir_measures()
    parsed = parse_measures(measures)
    names = [measure_name(m) for m in parsed]
    if len(set(names)) != len(names):
        dup = sorted({n for n in names if names.count(n) > 1})
        raise ValueError(f"measure(s) requested twice: {dup}")
    actual = [_with_threshold(m, rel_threshold) for m in parsed]
    back = {a: n for a, n in zip(actual, names, strict=True)}
    qids = sorted(q for q, judged in qrels.items() if judged)
    clean_qrels = {q: {d: _check_grade(q, d, g) for d, g in qrels[q].items()} for q in qids}
    clean_run = {
        q: {d: float(s) for d, s in docs.items()}
        for q, docs in run.items()
        if q in clean_qrels and docs
    }
    if qids and not clean_run:
        from axiomatic._callable import user_stacklevel

        cov = run_coverage(run, qrels)
        warnings.warn(
            f"the run matches none of the {cov['judged']} judged queries (it ranks documents "
            f"for {cov['unjudged']} other queries); every measure is 0. Is it a run of "
            "another dataset or split, or are its query ids written differently?",
            NoMatchingQueriesWarning,
            stacklevel=user_stacklevel(),  # the caller's line, not ours or _callable.py's
        )
    values: dict[tuple[str, str], float] = {}
    if clean_run:
        for metric in im.iter_calc(actual, clean_qrels, clean_run):
            values[(back[metric.measure], str(metric.query_id))] = float(metric.value)
    rows = [(q, name, values.get((name, q), 0.0)) for name in names for q in qids]
    return pd.DataFrame(rows, columns=["query_id", "measure", "value"])


def is_run_collection(runs: Any) -> bool:
    """Whether ``runs`` is ``{name: run}`` (several named runs) rather than one run
    ``{query_id: {doc_id: score}}``: its values' values are mappings, not scores."""
    if not isinstance(runs, Mapping):
        return False
    for per_query in runs.values():
        if not isinstance(per_query, Mapping):
            return False
        for inner in per_query.values():  # the first score, or the first run's first query
            return isinstance(inner, Mapping)
    return False


def evaluate(
    run: Run,
    qrels: Qrels,
    measures: str | Iterable[str | MeasureLike],
    rel_threshold: int | None = None,
) -> dict[str, float]:
    """Mean of each measure over the judged queries, ``{name: value}`` in the requested order.

    Judged queries that the run lacks count as 0 (see the module docstring). Several named
    runs (``{"bm25": run1, "ql": run2}``) are compared by ``axiomatic.evaluate(...)``
    (:func:`axiomatic.evaluate.api.evaluate`), which returns the table of ``axiomatic evaluate``.
    """
    if is_run_collection(run):
        raise TypeError(
            "evaluate got several named runs ({name: run}); compare them with "
            "axiomatic.evaluate(runs, qrels, measures, baseline=...) or "
            "axiomatic.evaluate.evaluation_table, which return one row per run and measure"
        )
    per_q = evaluate_per_query(run, qrels, measures, rel_threshold)
    names = (
        list(dict.fromkeys(per_q["measure"]))
        if len(per_q)
        else [measure_name(m) for m in parse_measures(measures)]
    )
    # the plain sum over the queries in id order, as evaluation_table (the CLI's table) takes
    # it: one run evaluated alone or among others gives the same float, to the last bit
    sums: dict[str, list[float]] = {}
    for m, v in zip(per_q["measure"], per_q["value"], strict=True):
        sums.setdefault(m, []).append(float(v))
    return {n: sum(sums[n]) / len(sums[n]) if sums.get(n) else 0.0 for n in names}


def per_query_matrix(per_query: pd.DataFrame, measure: str) -> pd.Series:
    """Values of one measure indexed by query id (from :func:`evaluate_per_query` output)."""
    sel = per_query[per_query["measure"] == measure]
    if sel.empty:
        known = sorted(set(per_query["measure"]))
        hint = suggest(measure, known, n=1, cutoff=0.6)
        raise KeyError(f"measure {measure!r} is not in the table{hint} (has {known})")
    return sel.set_index("query_id")["value"].sort_index()
