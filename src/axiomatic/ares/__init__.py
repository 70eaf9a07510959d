"""ARES: axiomatically regularized pre-training for ad hoc search (Chen et al., SIGIR 2022).

Stages, one module each: :mod:`~axiomatic.ares.sampling` (pseudo-query sampling, section 4.1),
:mod:`axiomatic.axioms.query_pairs` (the query-centric axioms of Table 1 and the preference
feature matrix of eq. 9), :mod:`~axiomatic.ares.predictor` (the preference predictor, section
4.2). Nothing is imported here: the stages pull in their own (optional) dependencies lazily.
"""
