"""Axiomatic diagnosis: the fraction of diagnostic instances each ranker fulfils (Rennings 2019, ch. 4).

A *diagnostic instance* prescribes an order of two (or three) documents for a query, mined from
an axiom (see :mod:`axiomatic.diagnose.mining` for the table schema). A ranker *fulfils* an
instance when its scores respect the prescribed relation:

- ``">"``      : :math:`s(a) > s(b)` (a tie violates the instance),
- ``">="``     : :math:`s(a) \\ge s(b)` (a tie fulfils it),
- ``"="``      : :math:`s(a) = s(b)` (a *symmetric* instance: the preconditions hold in both
  directions, e.g. M-TDC on two terms of equal idf, so the axiom asks for ``s(a) >= s(b)`` and
  ``s(b) >= s(a)``; only a tie fulfils it; such instances form their own group, labelled
  :data:`SYMMETRIC_SUFFIX`, so that they never inflate the directional fulfilment),
- ``"diff>"``  : :math:`s(b) - s(a) > s(c) - s(b)` (TFC2 triples, strict).

Ties are judged with a relative tolerance (:data:`DEFAULT_TIE_TOLERANCE`): two scores tie when
``|s_a - s_b| <= tol * max(1, |s_a|, |s_b|)``, so that floating-point noise on mathematically
equal scores (BM25 with b = 1 on LNC2 duplicates) is a tie, not a violation.

Rankers that cannot score every document (TREC run files) are diagnosed in two *views*
(``missing="both"``): the **own-list** view keeps only instances whose documents are all in the
run's own list (how the run *ordered* what it retrieved), the **union** view ranks a missing
document below every retrieved one (what it *retrieved* mixed with how it ordered it).

The axiomatic performance of a ranker on an axiom is the fraction of fulfilled instances
(Rennings 2019, section 4.1, Tables 4.5 and 4.6), reported with a 95% Wilson interval, a
breakdown by relevance of the documents involved, McNemar tests between rankers, the delta*
document-length sweep (section 4.3.1, Figs 4.5-4.8) and the correlation with retrieval
effectiveness across rankers (Fig. 4.2).

Each query's distinct documents are scored once per ranker (one batched ``score`` call per
query); every instance is then evaluated with array operations. Rankers that declare
``can_score_unseen_documents = False`` (TREC run files; see :class:`axiomatic.rankers.base.Ranker`)
skip instances on artificial documents; the skip is counted per ranker and axiom and reported.
Any other ranker is asked for every document, and its errors propagate.

Reference: M. Rennings, *Axiomatic Thinking in Neural IR: An Axiomatic Approach to Diagnosing
Deep IR Models* (MSc thesis, TU Delft, 2019); Rennings, Moraes, Hauff, ECIR 2019.

The module is the public face of four seams: :mod:`~axiomatic.diagnose.relations` (constants and
how one instance is judged), :mod:`~axiomatic.diagnose.oracle` (the qrels oracle),
:mod:`~axiomatic.diagnose.result` (:class:`Diagnosis` and its I/O),
:mod:`~axiomatic.diagnose.analyses` (McNemar, delta* sweep, correlation) and
:mod:`~axiomatic.diagnose.engine` (:func:`diagnose`); every name stays importable from here.
"""

from __future__ import annotations

from axiomatic.diagnose.analyses import effectiveness_series
from axiomatic.diagnose.engine import (
    _artificial_inputs,
    _artificial_labels,
    _checked,
    _score_query,
    _validate,
    diagnose,
)
from axiomatic.diagnose.oracle import QrelsOracle
from axiomatic.diagnose.relations import (
    DEFAULT_TIE_TOLERANCE,
    FULFILLED,
    GROUP_KEYS,
    MISSING_POLICIES,
    REL_TYPES,
    RELATIONS,
    REQUIRED_COLUMNS,
    SKIP_ARTIFICIAL,
    SKIP_NO_SCORE,
    SKIP_UNRETRIEVED,
    SKIPPED,
    SWEEP_EXCLUDED,
    SYMMETRIC_SUFFIX,
    VIEW_OF_POLICY,
    VIEW_OWN,
    VIEW_UNION,
    VIOLATED,
    evaluate_relations,
)
from axiomatic.diagnose.result import Diagnosis, _json_default, _records, instance_frame

__all__ = [
    "DEFAULT_TIE_TOLERANCE",
    "FULFILLED",
    "GROUP_KEYS",
    "MISSING_POLICIES",
    "RELATIONS",
    "REL_TYPES",
    "REQUIRED_COLUMNS",
    "SKIPPED",
    "SKIP_ARTIFICIAL",
    "SKIP_NO_SCORE",
    "SKIP_UNRETRIEVED",
    "SWEEP_EXCLUDED",
    "SYMMETRIC_SUFFIX",
    "VIEW_OF_POLICY",
    "VIEW_OWN",
    "VIEW_UNION",
    "VIOLATED",
    "Diagnosis",
    "QrelsOracle",
    "_artificial_inputs",
    "_artificial_labels",
    "_checked",
    "_json_default",
    "_records",
    "_score_query",
    "_validate",
    "diagnose",
    "effectiveness_series",
    "evaluate_relations",
    "instance_frame",
]
