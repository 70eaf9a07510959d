"""User-facing output: progress bars, result tables, plots and HTML reports.

``write_report`` and the table helpers are imported lazily (matplotlib and rich load on use).
"""

from __future__ import annotations

from typing import Any

__all__ = ["print_tables", "write_report"]


def __getattr__(name: str) -> Any:
    if name == "write_report":
        from axiomatic.report.writer import write_report

        return write_report
    if name == "print_tables":
        from axiomatic.report.tables import print_tables

        return print_tables
    raise AttributeError(f"module 'axiomatic.report' has no attribute {name!r}")
