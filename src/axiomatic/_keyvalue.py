"""Safe parsing of ``key=value,key=value`` option strings (ranker and analyzer specs).

The text is parsed as the keyword arguments of a call with :mod:`ast` and every value goes
through :func:`ast.literal_eval` (never ``eval``). Bare words are strings (``missing=min``,
``stemmer=porter``); ``true``/``false``/``none`` in any case are the Python constants. Kept in a
bottom-layer module so that ``text/`` and ``rankers/`` share one parser.
"""

from __future__ import annotations

import ast
import warnings
from typing import Any

_CONSTANTS = {"true": True, "false": False, "none": None}


def parse_keyvalues(
    text: str, *, what: str, example: str, error: type[Exception] = ValueError
) -> dict[str, Any]:
    """``"k1=0.9,b=0.4"`` -> ``{"k1": 0.9, "b": 0.4}``; raise ``error`` naming ``what``.

    ``what`` names the string in messages (e.g. ``"ranker spec 'bm25:k1='"``) and ``example`` is
    a well-formed instance shown in every message.
    """
    text = text.strip()
    if not text:
        return {}
    try:
        with warnings.catch_warnings():
            # '\w' inside a quoted regex is an invalid escape for Python but the intended text.
            warnings.simplefilter("ignore", SyntaxWarning)
            warnings.simplefilter("ignore", DeprecationWarning)
            tree = ast.parse(f"f({text})", mode="eval")
    except SyntaxError:
        raise error(
            f"cannot parse {what}: expected key=value pairs separated by commas "
            f"(e.g. {example!r}); quote values holding ',' '(' or ')'"
        ) from None
    call = tree.body
    if not isinstance(call, ast.Call) or call.args:
        raise error(f"{what}: parameters must be given as key=value pairs (e.g. {example!r})")
    out: dict[str, Any] = {}
    for kw in call.keywords:
        if kw.arg is None:
            raise error(f"{what}: '**' is not allowed in parameters (e.g. {example!r})")
        if kw.arg in out:
            raise error(f"{what}: parameter {kw.arg!r} is given twice")
        node = kw.value
        if isinstance(node, ast.Name):  # bare word: a string (missing=min)
            value: Any = _CONSTANTS.get(node.id.lower(), node.id)
        else:
            try:
                value = ast.literal_eval(node)
            except (ValueError, TypeError, MemoryError, RecursionError):
                # TypeError: an unhashable key such as {[]: 1}; the others: absurd nesting
                raise error(
                    f"{what}: the value of {kw.arg!r} must be a literal "
                    f"(number, string, True/False/None), got {ast.unparse(node)!r}"
                ) from None
        out[kw.arg] = value
    return out
