"""IR axioms as specifications: value objects, a safe parser, a catalogue, an engine, kernels.

- :mod:`.spec`: :class:`Axiom` (name, variant, params) and the one parser of axiom strings;
- :mod:`.catalogue`: every :class:`AxiomDef` with family, citation and typed kernel, and what it
  relates: two or three documents for one query, or two queries for one document (ARES' ``Q-*``
  axioms, computed by :mod:`.query_pairs`);
- :mod:`.engine`: holds / preferences / instances, the length precondition applied once;
- :mod:`.kernels`: array kernels by family (term frequency, length, proximity, semantic, aspects);
- :mod:`.context`: the per-query arrays every kernel reads.

>>> from axiomatic.axioms import parse_axiom
>>> parse_axiom("TFC1(delta_rel=0.1)").spec
"TFC1(variant='relaxed', delta_rel=0.1)"
"""

from axiomatic.axioms.catalogue import (
    AxiomDef,
    Catalogue,
    PairAxiomDef,
    QueryPairAxiomDef,
    TripleAxiomDef,
    get_definition,
    list_axioms,
    register,
)
from axiomatic.axioms.context import QueryContext
from axiomatic.axioms.engine import Instances
from axiomatic.axioms.spec import Axiom, parse_axiom, parse_axioms

__all__ = [
    "Axiom",
    "AxiomDef",
    "Catalogue",
    "Instances",
    "PairAxiomDef",
    "QueryContext",
    "QueryPairAxiomDef",
    "TripleAxiomDef",
    "get_definition",
    "list_axioms",
    "parse_axiom",
    "parse_axioms",
    "register",
]
