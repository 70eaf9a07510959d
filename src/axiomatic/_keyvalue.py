"""The one grammar for ``NAME(key=value, ...)`` and ``key=value,key=value`` strings.

Axioms (``TFC1(delta_rel=0.1)``), regularizers (``ar(lambda=0.1, axioms=TFC1-A,TFC3)``),
augmentations, graded losses, ranker and analyzer specs all go through this module, so a value
means the same thing everywhere and every malformed value is an error (never silently a string).

Grammar (strict; :mod:`ast` parses every value, nothing is ``eval``-ed):

- a call is ``NAME`` or ``NAME(params)``; ``NAME`` is a letter or ``_`` followed by letters,
  digits, ``_`` or ``-`` (``M-TDC``, ``LEN-M-AND``);
- ``params`` are ``key=value`` items separated by commas outside quotes and brackets;
- a value is a Python literal (number, quoted string, ``True``/``False``/``None``, list, tuple,
  dict, set), a bare word (``porter``, ``min``; ``true``/``false``/``none`` in any case are the
  constants) or, where a caller allows it, a bare token of letters, digits and ``_ - . / : ~ * +``
  (``TFC1-A``, ``paired-delta``, ``/tmp/x``);
- with ``lists=True`` an item without ``=`` continues the previous key's value as a list
  (``axioms=TFC1-A,TFC3`` is ``["TFC1-A", "TFC3"]``);
- a parameter that is a number goes through :func:`as_number`, the one conversion: a finite
  ASCII number literal only (``true``, ``"0.1"``, ``inf``, ``nan``, ``1e400``, full-width
  digits and integers beyond float range are errors).

Size: a spec is at most :data:`MAX_SPEC_CHARS` characters and :data:`MAX_SPEC_DEPTH` levels
deep (brackets plus operators chained in one item, see :func:`spec_depth`); beyond either,
:func:`check_spec_size` refuses it with a message before :mod:`ast` could run out of stack or
memory on it (``k1=`` followed by 100,000 ``-``, ``TFC1|TFC1|...`` 10,000 times).

Kept in a bottom-layer module: ``text/``, ``rankers/``, ``axioms/`` and ``training/`` share it.
"""

from __future__ import annotations

import ast
import re
import warnings
from typing import Any

_CONSTANTS = {"true": True, "false": False, "none": None}
_NAME = re.compile(r"^[A-Za-z0-9_][\w-]*$")
"""A call name: letters, digits, `_` and `-` (`3partl2` too)."""
_KEY = re.compile(r"^\s*([A-Za-z_]\w*)\s*=(?!=)(.*)$", re.S)
_TOKEN = re.compile(r"^[\w./:~*+-]+$")

MAX_SPEC_CHARS = 10_000
"""The longest spec string accepted (ranker, axiom, analyzer, regularizer, ... specs)."""
MAX_SPEC_DEPTH = 200
"""The deepest nesting accepted (see :func:`spec_depth`); Python's parser gives up near 3,000
and the recursive walks over a parsed expression near 1,000."""
_OPERATORS = frozenset("+-*/%&|^~@<>")


def spec_depth(text: str) -> int:
    """How deeply :mod:`ast` would nest ``text`` at most: open brackets plus the operators
    chained within one comma-separated item of each (outside quotes). ``(TFC1 | ORIG) % PROX1``
    is 2, ``TFC1|TFC1|TFC1`` is 2, ``[-1, -2]`` is 2, 100 ``-`` signs in a row are 100."""
    chain = [0]  # operators in the current item of each open bracket level
    depth = best = 0  # open brackets + sum(chain)
    quote = ""
    for i, ch in enumerate(text):
        if quote:
            if ch == quote and text[i - 1] != "\\":
                quote = ""
            continue
        if ch in "'\"":
            quote = ch
        elif ch in "([{":
            chain.append(0)
            depth += 1
        elif ch in ")]}":
            if len(chain) > 1:
                depth -= 1 + chain.pop()
        elif ch == ",":
            depth -= chain[-1]
            chain[-1] = 0
        elif ch in _OPERATORS:
            chain[-1] += 1
            depth += 1
        best = max(best, depth)
    return best


def _clip(text: str, n: int = 60) -> str:
    return text if len(text) <= n else text[: n - 1] + "\u2026"


def check_spec_size(text: str, what: str, error: type[Exception] = ValueError) -> None:
    """Refuse ``text`` (a spec described by ``what``, e.g. ``"ranker spec"``) when it is longer
    than :data:`MAX_SPEC_CHARS` or nests deeper than :data:`MAX_SPEC_DEPTH` (:func:`spec_depth`):
    such a string is pasted by mistake or hostile, and :mod:`ast` would fail on it with a
    ``MemoryError`` or ``RecursionError`` instead of a message."""
    what = _clip(what, 80)
    if len(text) > MAX_SPEC_CHARS:
        raise error(
            f"{what}: the spec {_clip(text)!r} is {len(text):,} characters long; at most "
            f"{MAX_SPEC_CHARS:,} are allowed"
        )
    depth = spec_depth(text)
    if depth > MAX_SPEC_DEPTH:
        raise error(
            f"{what}: the spec {_clip(text)!r} nests {depth:,} levels deep (brackets and chained "
            f"operators); at most {MAX_SPEC_DEPTH} are allowed"
        )


def split_top_level(text: str, sep: str = ",") -> list[str]:
    """Split on ``sep`` outside quotes and brackets; raise ``ValueError`` when they are unbalanced.

    Items are stripped; empty items are kept (callers decide whether ``a,,b`` is an error).
    """
    out: list[str] = []
    depth, quote, start = 0, "", 0
    pairs = {")": "(", "]": "[", "}": "{"}
    stack: list[str] = []
    for i, ch in enumerate(text):
        if quote:
            if ch == "\\":
                continue
            if ch == quote and text[i - 1] != "\\":
                quote = ""
            continue
        if ch in "'\"":
            quote = ch
        elif ch in "([{":
            stack.append(ch)
            depth += 1
        elif ch in ")]}":
            if not stack or stack.pop() != pairs[ch]:
                raise ValueError(f"unbalanced {ch!r} at character {i + 1}")
            depth -= 1
        elif ch == sep and depth == 0:
            out.append(text[start:i].strip())
            start = i + 1
    if quote:
        raise ValueError(f"unterminated {quote} quote")
    if stack:
        raise ValueError(f"unclosed {stack[-1]!r}")
    out.append(text[start:].strip())
    return out


def _closing_paren(text: str, start: int) -> int:
    """Index of the ``)`` closing the ``(`` at ``start`` (quotes respected); -1 when none does."""
    depth, quote = 0, ""
    for i in range(start, len(text)):
        ch = text[i]
        if quote:
            if ch == quote and text[i - 1] != "\\":
                quote = ""
        elif ch in "'\"":
            quote = ch
        elif ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
            if depth == 0:
                return i
    return -1


def parse_value(
    text: str,
    *,
    key: str,
    what: str,
    error: type[Exception] = ValueError,
    tokens: bool = False,
) -> Any:
    """One value of the grammar (see the module docstring); ``tokens`` allows bare tokens."""
    src = text.strip()
    if not src:
        raise error(f"cannot parse {what}: parameter {key!r} has no value (write {key}=VALUE)")
    check_spec_size(src, f"{what}: the value of {key!r}", error)
    try:
        with warnings.catch_warnings():
            # '\w' inside a quoted regex is an invalid escape for Python but the intended text.
            warnings.simplefilter("ignore", SyntaxWarning)
            warnings.simplefilter("ignore", DeprecationWarning)
            node = ast.parse(src, mode="eval").body
    except SyntaxError:
        node = None
    except (MemoryError, RecursionError):  # within the bounds above only by a parser change
        raise error(f"{what}: the value of {key!r} is nested too deeply to parse") from None
    if isinstance(node, ast.Name):  # bare word: a string (missing=min) or a constant
        return _CONSTANTS.get(node.id.lower(), node.id)
    if node is not None:
        try:
            return ast.literal_eval(node)
        except (ValueError, TypeError, MemoryError, RecursionError):
            # TypeError: an unhashable key such as {[]: 1}; the others: absurd nesting
            pass
    if tokens and _TOKEN.match(src):
        return src
    raise error(
        f"{what}: the value of {key!r} must be a literal "
        f"(number, string, True/False/None{', or a bare word' if tokens else ''}), got {src!r}"
    )


def as_number(
    value: Any,
    *,
    what: str,
    integer: bool = False,
    error: type[Exception] = ValueError,
) -> Any:
    """``value`` (a parsed spec or config value) as a float, or an int with ``integer=True``:
    the one conversion of every numeric parameter (ranker, axiom, regularizer, augmentation,
    schedule and graded-loss specs, weights of axiom expressions, plan fields).

    Only a finite ASCII number literal passes: not a boolean (``true`` is no 1.0), not a string
    (``"0.1"`` quoted, ``inf``, ``nan``, full-width ``０.１``), not an infinite or NaN float
    (``1e400`` reads as infinity) and not an integer beyond float range (``10**400``). With
    ``integer=True`` a float must have an integral value (``3.0`` -> ``3``). ``what`` names the
    parameter in the message (``"parameter 'k1' of ranker 'bm25'"``).
    """
    import math

    kind = "an integer" if integer else "a number"
    if isinstance(value, bool):
        word = "true" if value else "false"
        raise error(f"{what} must be {kind} (got {word}, a boolean); write a number, e.g. 0.1")
    if isinstance(value, str):
        if any(ch.isdigit() and not ch.isascii() for ch in value):
            why = "non-ASCII digits; write ASCII digits 0-9"
        elif value.strip().lower().lstrip("+-") in ("inf", "infinity", "nan"):
            why = "not a finite number"
        else:
            why = "a string; write the number without quotes"
        raise error(f"{what} must be {kind} (got {value!r}: {why})")
    if not isinstance(value, (int, float)):
        raise error(f"{what} must be {kind} (got {value!r}, a {type(value).__name__})")
    if isinstance(value, int):
        if integer:
            return value
        try:
            return float(value)
        except OverflowError:
            digits = int(value.bit_length() * math.log10(2)) + 1  # str() refuses 4,300+
            raise error(
                f"{what} must be a finite number (got an integer of about {digits} digits, out "
                "of the range of a float)"
            ) from None
    if not math.isfinite(value):
        raise error(f"{what} must be a finite number (got {value!r})")
    if integer:
        if not value.is_integer():
            raise error(f"{what} must be an integer (got {value!r})")
        return int(value)
    return value


def _parse_items(
    text: str,
    *,
    what: str,
    example: str,
    error: type[Exception],
    tokens: bool,
    lists: bool,
) -> dict[str, Any]:
    try:
        items = split_top_level(text)
    except ValueError as exc:
        raise error(
            f"cannot parse {what}: {exc}; expected key=value pairs separated by commas "
            f"(e.g. {example!r}); quote values holding ',' '(' or ')'"
        ) from None
    out: dict[str, Any] = {}
    last: str | None = None
    continued: set[str] = set()
    for item in items:
        if not item:
            raise error(f"cannot parse {what}: an empty item between commas (e.g. {example!r})")
        m = _KEY.match(item)
        if m is None:
            if item.startswith("**"):
                raise error(f"{what}: '**' is not allowed in parameters (e.g. {example!r})")
            if not lists or last is None:
                raise error(
                    f"{what}: {item!r} is not key=value; parameters must be named, as key=value "
                    f"pairs (e.g. {example!r})"
                )
            value = parse_value(item, key=last, what=what, error=error, tokens=tokens)
            prev = out[last]
            if last not in continued:
                prev = [prev]
                continued.add(last)
            out[last] = [*prev, value]
            continue
        key, raw = m.group(1), m.group(2)
        if key in out:
            raise error(f"{what}: parameter {key!r} is given twice")
        out[key] = parse_value(raw, key=key, what=what, error=error, tokens=tokens)
        last = key
    return out


def parse_keyvalues(
    text: str,
    *,
    what: str,
    example: str,
    error: type[Exception] = ValueError,
    tokens: bool = False,
    lists: bool = False,
) -> dict[str, Any]:
    """``"k1=0.9,b=0.4"`` -> ``{"k1": 0.9, "b": 0.4}``; raise ``error`` naming ``what``.

    ``what`` names the string in messages (e.g. ``"ranker spec 'bm25:k1='"``) and ``example`` is
    a well-formed instance shown in every message.
    """
    text = text.strip()
    if not text:
        return {}
    check_spec_size(text, what, error)
    return _parse_items(text, what=what, example=example, error=error, tokens=tokens, lists=lists)


def parse_call(
    text: str,
    *,
    what: str,
    example: str,
    error: type[Exception] = ValueError,
    tokens: bool = False,
    lists: bool = False,
) -> tuple[str, dict[str, Any]]:
    """``"NAME(k=v, ...)"`` or ``"NAME"`` -> ``(NAME, {k: v})`` with the grammar above."""
    if not isinstance(text, str) or not text.strip():
        raise error(f"expected a {what} such as {example!r} (got {text!r})")
    s = text.strip()
    check_spec_size(s, what, error)
    paren = s.find("(")
    name = s if paren < 0 else s[:paren].strip()
    if not _NAME.match(name):
        raise error(
            f"cannot parse {what} {text!r}: expected NAME or NAME(key=value, ...), e.g. {example!r}"
        )
    if paren < 0:
        return name, {}
    close = _closing_paren(s, paren)
    if close != len(s) - 1:
        raise error(
            f"cannot parse {what} {text!r}: "
            + ("unbalanced parentheses" if close < 0 else "text after the closing parenthesis")
            + f"; expected NAME(key=value, ...), e.g. {example!r}"
        )
    inner = s[paren + 1 : -1]
    params = parse_keyvalues(
        inner, what=f"{what} {text!r}", example=example, error=error, tokens=tokens, lists=lists
    )
    return name, params
