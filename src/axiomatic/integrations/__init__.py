"""Bridges to other toolkits (optional extras; each module imports its toolkit on import).

* :mod:`axiomatic.integrations.pyterrier`: rankers, axiomatic re-ranking and diagnosis as
  PyTerrier transformers and functions (``pip install 'axiomatic-ir[pyterrier]'``).
"""
