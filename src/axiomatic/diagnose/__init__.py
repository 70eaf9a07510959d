"""Mining diagnostic instances, diagnosing rankers, axiomatic re-ranking.

The top-level ``axiomatic.diagnose(...)`` is :func:`axiomatic.diagnose.diagnosis.diagnose`
(see ``axiomatic/__init__.py``); this package imports nothing itself.
"""
