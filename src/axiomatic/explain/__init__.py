"""Axiomatic explanations of rankers (Völske et al. 2021, "Towards Axiomatic Explanations for
Neural Ranking Models"): a random forest over the axioms' pairwise preferences imitates a
ranker's order on its top documents; its held-out accuracy (*fidelity*) says how much of the
ranking the axioms explain, its importances say which axioms do.

>>> from axiomatic.data.catalog import load_dataset
>>> from axiomatic.explain import explain
>>> from axiomatic.rankers.registry import make_ranker
>>> ds = load_dataset("demo")
>>> expl = explain(ds, {"bm25": make_ranker("bm25", ds)}, depth=10)  # doctest: +SKIP
>>> expl.summary[["system", "fidelity", "random_fidelity"]]  # doctest: +SKIP

- :mod:`.features`: the pair table (ternary preference per axiom, the ranker's order as target);
- :mod:`.model`: query-grouped held-out fidelity, buckets, importances, random baseline;
- :mod:`.report`: CSV, PNG, markdown and HTML output.

Activation patching (Chen et al. 2024; needs torch, so not imported here):
:mod:`.patching` (which components carry an axiom's score difference on minimal pairs) and
:mod:`.patching_report` (its tables, heat maps and pages); ``axiomatic patch`` on the CLI.
"""

from axiomatic.explain.features import (
    EXCLUDED,
    default_axioms,
    explanation_axioms,
    pair_table,
)
from axiomatic.explain.model import Explanation, explain, explain_run, fit_predict, query_folds
from axiomatic.explain.report import markdown_section, plot_explanation, write_explanation

__all__ = [
    "EXCLUDED",
    "Explanation",
    "default_axioms",
    "explain",
    "explain_run",
    "explanation_axioms",
    "fit_predict",
    "markdown_section",
    "pair_table",
    "plot_explanation",
    "query_folds",
    "write_explanation",
]
