"""``axiomatic.evaluate(...)``: one run, or several named runs compared as the CLI does.

* ``evaluate(run, qrels, measures)`` is :func:`axiomatic.evaluate.metrics.evaluate`:
  ``{measure: mean}``;
* ``evaluate({"bm25": run1, "ql": run2}, qrels, measures, baseline="bm25", test="t")`` is
  :func:`axiomatic.evaluate.significance.evaluation_table`: the table of ``axiomatic evaluate``
  (one row per run and measure: mean, difference to the baseline, paired test p-values with
  Holm's correction over the runs compared with the baseline on each measure, significance,
  baseline flag; ``attrs["family"]`` states the test and family for a caption).

Binary measures (AP, RR, P, R) count a document as relevant from the grade the CLI uses
(:func:`axiomatic.evaluate.metrics.relevance_threshold`): the dataset's ``rel_threshold`` (2 on
TREC DL), which ``ds.qrels`` carries (pass ``ds`` itself or ``ds.qrels``); 1 for a plain dict;
``rel_threshold=N`` overrides it. So ``axiomatic.evaluate(run, ds.qrels, "AP")`` and
``axiomatic evaluate -d DATASET --run RUN`` give the same numbers.

Warnings (a run that matches no judged query) name the caller's line, not ours.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from axiomatic.data.records import Dataset, Qrels, Run
from axiomatic.evaluate.metrics import evaluate as evaluate_run
from axiomatic.evaluate.metrics import is_run_collection
from axiomatic.evaluate.significance import evaluation_table

__all__ = ["evaluate"]


def evaluate(
    run: Run | Mapping[str, Run],
    qrels: Qrels | Dataset,
    measures: str | Iterable[Any],
    rel_threshold: int | None = None,
    *,
    baseline: str | None = None,
    test: str = "t",
) -> Any:
    """Mean of each measure for one run (``{name: value}``), or, for several named runs
    (``{name: run}``), the table of ``axiomatic evaluate`` with paired tests against
    ``baseline`` (a run name; default the first run) as a DataFrame: Holm over the runs compared
    with the baseline on each measure (:func:`~axiomatic.evaluate.significance.compare_to_baseline`),
    described in ``table.attrs["family"]``.

    ``qrels``: a dataset's ``qrels`` (or the :class:`~axiomatic.data.records.Dataset`), or any
    ``{query_id: {doc_id: grade}}`` dict. ``rel_threshold``: the lowest grade binary measures
    count as relevant; by default the dataset's, as ``axiomatic evaluate`` uses
    (:func:`~axiomatic.evaluate.metrics.relevance_threshold`; 1 for a plain dict)."""
    from axiomatic.evaluate.metrics import relevance_threshold

    if isinstance(qrels, Dataset):
        if qrels.qrels is None:
            raise ValueError(
                f"dataset {qrels.name!r} has no relevance judgments to evaluate against"
            )
        qrels = qrels.qrels
    rel_threshold = relevance_threshold(qrels, rel_threshold)
    if is_run_collection(run):
        return evaluation_table(
            run,  # type: ignore[arg-type]
            qrels,
            measures,  # type: ignore[arg-type]
            baseline=baseline,
            test=test,  # type: ignore[arg-type]
            rel_threshold=rel_threshold,
        )
    if baseline is not None:
        raise TypeError(
            "baseline= compares several runs: pass them as a dict, e.g. "
            "evaluate({'bm25': run1, 'ql': run2}, qrels, measures, baseline='bm25')"
        )
    return evaluate_run(run, qrels, measures, rel_threshold)  # type: ignore[arg-type]
