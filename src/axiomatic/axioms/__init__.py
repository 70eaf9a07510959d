"""IR axioms as specifications: value objects, a safe parser and array kernels.

>>> from axiomatic.axioms import parse_axiom
>>> parse_axiom("TFC1(delta_rel=0.1)").spec
"TFC1(variant='relaxed', delta_rel=0.1)"
"""

from axiomatic.axioms.context import QueryContext
from axiomatic.axioms.spec import (
    Axiom,
    AxiomDef,
    Instances,
    get_definition,
    list_axioms,
    parse_axiom,
    parse_axioms,
)

__all__ = [
    "Axiom",
    "AxiomDef",
    "Instances",
    "QueryContext",
    "get_definition",
    "list_axioms",
    "parse_axiom",
    "parse_axioms",
]
