"""Format readers: pure functions from files to records (queries, documents, qrels, runs).

Each module reads one published format; :mod:`axiomatic.data.catalog` composes them into
:class:`~axiomatic.data.records.Dataset` objects with the project's canonical splits.
"""
