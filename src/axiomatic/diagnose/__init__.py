"""Mining diagnostic instances, diagnosing rankers, axiomatic re-ranking.

The package is callable: ``axiomatic.diagnose(...)`` is
:func:`axiomatic.diagnose.diagnosis.diagnose` (the top-level API, see ``axiomatic/__init__.py``).
"""

from axiomatic._callable import make_callable

make_callable(__name__, "axiomatic.diagnose.diagnosis", "diagnose")
