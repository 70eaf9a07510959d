"""User-facing output: result tables (:mod:`.tables`), plots (:mod:`.plots`), HTML pages
(:mod:`.html`) and report folders (:mod:`.writer`).

Import what you need from the submodules (``from axiomatic.report.writer import write_report``):
the package itself imports nothing, so the submodules can depend on each other without a cycle
through the package and matplotlib/rich load only when used. Progress bars live below every
layer, in :mod:`axiomatic._progress`.
"""
