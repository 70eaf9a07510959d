"""Subpackages that are also functions: ``axiomatic.diagnose(...)`` and ``axiomatic.evaluate(...)``.

The top-level API offers the functions ``diagnose`` and ``evaluate``, but ``axiomatic.diagnose``
and ``axiomatic.evaluate`` are also subpackages, and Python binds a subpackage to its parent's
attribute as soon as anything imports it. Making the subpackage callable (forwarding to the
function) keeps ``axiomatic.diagnose(...)`` working whichever import ran first, and keeps
``import axiomatic.diagnose.mining`` and friends untouched.
"""

from __future__ import annotations

import importlib
import os
import sys
import types
from typing import Any


class _CallablePackage(types.ModuleType):
    _call_target: tuple[str, str]

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        module, attr = type(self)._call_target
        return getattr(importlib.import_module(module), attr)(*args, **kwargs)


def make_callable(package: str, module: str, attr: str) -> None:
    """Let ``sys.modules[package](...)`` call ``module.attr(...)`` (imported on the first call)."""
    cls = type(
        "CallablePackage",
        (_CallablePackage,),
        {"_call_target": (module, attr), "__doc__": f"Callable: forwards to {module}.{attr}."},
    )
    sys.modules[package].__class__ = cls


_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__)) + os.sep


def user_stacklevel() -> int:
    """The ``stacklevel`` that attributes a warning to the user's line: the first frame outside
    the axiomatic package, counted from the function that calls this and then
    ``warnings.warn(..., stacklevel=user_stacklevel())``. A fixed ``stacklevel`` names
    ``_callable.py`` when the call came through ``axiomatic.evaluate(...)``, or another of our
    modules when the function is called from within the package."""
    import inspect

    here = inspect.currentframe()
    frame = here.f_back if here is not None else None
    level = 1
    while frame is not None and os.path.abspath(frame.f_code.co_filename).startswith(_PACKAGE_DIR):
        frame = frame.f_back  # type: ignore[assignment]
        level += 1
    return level if frame is not None else 1
