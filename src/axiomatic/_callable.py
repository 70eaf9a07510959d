"""Subpackages that are also functions: ``axiomatic.diagnose(...)`` and ``axiomatic.evaluate(...)``.

The top-level API offers the functions ``diagnose`` and ``evaluate``, but ``axiomatic.diagnose``
and ``axiomatic.evaluate`` are also subpackages, and Python binds a subpackage to its parent's
attribute as soon as anything imports it. Making the subpackage callable (forwarding to the
function) keeps ``axiomatic.diagnose(...)`` working whichever import ran first, and keeps
``import axiomatic.diagnose.mining`` and friends untouched.
"""

from __future__ import annotations

import importlib
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
