"""Array kernels of the axioms, grouped by family.

- :mod:`.term_frequency`: TFC1, TFC2 (triples), TFC3, TDC, M-TDC, LB1, LB2, ORIG
- :mod:`.length`: LNC1, LNC2, TF-LNC
- :mod:`.proximity`: PROX1-5 (on the context's positional index)
- :mod:`.semantic`: STMC1-3, REG (on the context's term similarity)
- :mod:`.aspects`: AND, M-AND, DIV (and their LEN- forms)
- :mod:`.queries`: ARES' query-pair axioms Q-* (two queries for one document; on a
  :class:`~axiomatic.axioms.query_pairs.QueryPairContext`)

Kernels compute the axiom-specific preconditions only; :mod:`axiomatic.axioms.engine` applies the
length precondition once, from the catalogue definition, and turns kernels into preferences and
instances. The definitions with their citations live in :mod:`axiomatic.axioms.catalogue`.
"""

from axiomatic.axioms.kernels._common import BLOCK_ELEMENTS, length_ok, row_blocks

__all__ = ["BLOCK_ELEMENTS", "length_ok", "row_blocks"]
