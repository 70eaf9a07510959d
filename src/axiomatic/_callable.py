"""Where a warning is attributed: :func:`user_stacklevel`, the first frame outside the package."""

from __future__ import annotations

import os

_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__)) + os.sep


def user_stacklevel() -> int:
    """The ``stacklevel`` that attributes a warning to the user's line: the first frame outside
    the axiomatic package, counted from the function that calls this and then
    ``warnings.warn(..., stacklevel=user_stacklevel())``. A fixed ``stacklevel`` names
    another of our modules when the function is called from within the package."""
    import inspect

    here = inspect.currentframe()
    frame = here.f_back if here is not None else None
    level = 1
    while frame is not None and os.path.abspath(frame.f_code.co_filename).startswith(_PACKAGE_DIR):
        frame = frame.f_back  # type: ignore[assignment]
        level += 1
    return level if frame is not None else 1
