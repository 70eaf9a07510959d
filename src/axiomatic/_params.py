"""One record of a parameter: :class:`ParamInfo` (name, type, default, range or choices,
description), after ir_measures' ``ParamInfo``.

The training settings (:class:`~axiomatic.training.config.TrainConfig`), every experiment
plan and the ranker families describe their parameters with it: the validation, the
``--describe`` tables and the listings read the same record. A dataclass declares a field's
range with ``field(metadata=param_meta(ge=1))`` (or ``metadata=OTHER.meta()`` to share another
record's range, as the plans share :class:`TrainConfig`'s), and :func:`dataclass_params`
derives the records: the type is the field's annotation, the default the field's default, the
description the metadata's, else the field's docstring or comment.

Numbers are checked through :func:`axiomatic._keyvalue.as_number`, the one conversion: a
boolean is no number, numbers are finite. A refusal is one line naming the setting, what it
must be (with the bound it broke) and what it got::

    setting 'steps' must be an integer >= 1 (got -5, an integer)
"""

from __future__ import annotations

import ast
import dataclasses
import inspect
import io
import numbers
import textwrap
import tokenize
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from axiomatic._keyvalue import as_number
from axiomatic._report import markdown_table
from axiomatic._suggest import suggest

__all__ = [
    "PARAM_COLUMNS",
    "REQUIRED",
    "ParamInfo",
    "dataclass_params",
    "param_dicts",
    "param_meta",
    "param_rows",
    "param_table",
    "shown",
]

META_KEY = "axiomatic:param"
"""The key of a dataclass field's metadata holding its (partial) :class:`ParamInfo`."""


class _Required:
    def __repr__(self) -> str:
        return "REQUIRED"


REQUIRED: Any = _Required()
"""The default of a parameter that has none (it must be given)."""

_KINDS = {
    "int": ("an integer", "integers"),
    "float": ("a finite number", "finite numbers"),
    "str": ("a string", "strings"),
    "bool": ("true or false", "true/false values"),
}


def _pow2(x: float) -> str:
    """A bound as written: ``2**31`` for large powers of two, else ``%g``-style."""
    if isinstance(x, int) and x >= 2**16 and x & (x - 1) == 0:
        return f"2**{x.bit_length() - 1}"
    return f"{x:g}"


def _cap(x: float) -> bool:
    """Whether an upper bound is a machine limit (``2**31``), named alone when broken."""
    return _pow2(x).startswith("2**")


def shown(value: Any) -> str:
    """``value`` as a config file spells it, with its type (``true, a boolean``)."""
    if isinstance(value, bool):
        return f"{str(value).lower()}, a boolean"
    kinds = {str: "a string", int: "an integer", float: "a number", list: "a list", dict: "a table"}
    kind = next((k for t, k in kinds.items() if isinstance(value, t)), type(value).__name__)
    text = repr(value)
    if len(text) > 60:
        text = text[:59] + "\u2026"
    return f"{text}, {kind}"


@dataclass(frozen=True)
class ParamInfo:
    """What one parameter is: ``type`` is its annotation as written (``int``, ``float | None``,
    ``list[int]``); ``low`` / ``high`` bound a number (or every number of a list), inclusive
    unless ``low_open`` / ``high_open``; ``choices`` are the values a string (or every item of
    a list) may take; ``nonempty`` refuses an empty string."""

    name: str
    type: str = "Any"
    default: Any = REQUIRED
    low: float | None = None
    high: float | None = None
    low_open: bool = False
    high_open: bool = False
    choices: tuple[Any, ...] | None = None
    nonempty: bool = False
    description: str = ""

    # ------------------------------------------------------------------ text
    def _low_text(self) -> str:
        return "" if self.low is None else f"{'>' if self.low_open else '>='} {_pow2(self.low)}"

    def _high_text(self) -> str:
        return "" if self.high is None else f"{'<' if self.high_open else '<='} {_pow2(self.high)}"

    def range_text(self) -> str:
        """The allowed values in words: ``>= 1``, ``> 0, < 1``, ``one of 'a', 'b'``, or ``""``."""
        if self.choices is not None:
            return "one of " + ", ".join(repr(c) for c in self.choices)
        parts = ("non-empty" if self.nonempty else "", self._low_text(), self._high_text())
        return ", ".join(t for t in parts if t)

    def default_text(self) -> str:
        return "required" if self.default is REQUIRED else repr(self.default)

    def row(self) -> tuple[str, str, str, str, str]:
        """``(name, type, default, range, description)``: one line of a parameters table."""
        return (self.name, self.type, self.default_text(), self.range_text(), self.description)

    def meta(self, **changes: Any) -> dict[str, ParamInfo]:
        """This record's range, choices and description as a dataclass field's metadata
        (``field(default=300, metadata=TRAIN_PARAMS["steps"].meta())``): the field shares
        them; its own name, type and default replace this record's."""
        return {META_KEY: dataclasses.replace(self, **changes)}

    # ------------------------------------------------------------------ checking
    def _parts(self) -> tuple[bool, str, str | None]:
        """(may be None, the container ``list``/``dict``/``""``, the item's kind or None)."""
        parts = [p.strip() for p in self.type.split("|")]
        optional = "None" in parts
        parts = [p for p in parts if p != "None"]
        if len(parts) != 1:
            return optional, "", None
        t = parts[0]
        base, _, inner = t.partition("[")
        if base in ("list", "tuple") and inner:
            item = inner.rstrip("]").split(",")[0].strip()
            return optional, "list", item if item in _KINDS else None
        if base == "dict":
            return optional, "dict", None
        return optional, "", t if t in _KINDS else None

    def _item_ok(self, kind: str, value: Any) -> tuple[bool, str]:
        """Whether one value of ``kind`` is allowed, and the bound it broke (for the message)."""
        if kind == "bool":
            return isinstance(value, bool), ""
        if kind == "str":
            ok = isinstance(value, str) and (not self.nonempty or bool(value.strip()))
            if ok and self.choices is not None and value not in self.choices:
                return False, self.range_text()
            return ok, ""
        try:
            if kind == "int" and isinstance(value, float):  # a typed setting: 3.0 is no count
                raise ValueError("not an integer")
            if not isinstance(value, bool) and isinstance(value, numbers.Integral):
                value = int(value)  # numpy integers are counts too
            elif not isinstance(value, bool) and isinstance(value, numbers.Real):
                value = float(value)
            number = as_number(value, what=self.name, integer=kind == "int")
        except ValueError:
            return False, self._low_text() or self._high_text()
        if self.low is not None and (number <= self.low if self.low_open else number < self.low):
            return False, self._low_text()
        if self.high is not None and (
            number >= self.high if self.high_open else number > self.high
        ):
            return False, self._high_text()
        if self.choices is not None and number not in self.choices:
            return False, self.range_text()
        return True, ""

    def check(self, value: Any, what: str | None = None) -> None:
        """Refuse ``value`` in one line when it is not of this parameter's type and range:
        ``{what} must be an integer >= 1 (got -5, an integer)`` (``what`` defaults to
        ``parameter 'NAME'``). Types it does not know (nested tables, ``Any``) pass."""
        what = what or f"parameter {self.name!r}"
        optional, container, kind = self._parts()
        if value is None and optional:
            return
        none = " (or left out)" if optional else ""
        if container == "dict":
            if not (isinstance(value, dict) and all(isinstance(k, str) for k in value)):
                raise ValueError(f"{what} must be a table of settings{none} (got {shown(value)})")
            return
        if container == "list":
            if not isinstance(value, (list, tuple)):
                raise ValueError(f"{what} must be a list{none} (got {shown(value)})")
            if kind is None:
                return
            for item in value:
                ok, bound = self._item_ok(kind, item)
                if not ok:
                    if self.choices is not None and bound == self.range_text():
                        want = f"a list whose items are {bound}"
                    else:
                        want = f"a list of {_KINDS[kind][1]}{' ' + bound if bound else ''}"
                    raise ValueError(f"{what} must be {want}{none} (got {shown(list(value))})")
            return
        if kind is None:
            return
        ok, bound = self._item_ok(kind, value)
        if not ok:
            noun = _KINDS[kind][0]
            if kind == "str" and bound:  # a choice: "must be one of 'a', 'b'"
                noun, bound = bound, ""
            elif kind == "str":
                noun = "a non-empty string" if self.nonempty else noun
            elif bound and self.low is not None and self.high is not None and not _cap(self.high):
                bound = f"{self._low_text()} and {self._high_text()}"  # "> 0 and < 1"
            elif kind == "float" and bound and bound == self._high_text():
                noun = "a number"  # "a number < 2**31": finiteness is not what broke
            want = f"{noun} {bound}" if bound else noun
            hint = ""
            if kind == "str" and self.choices is not None and isinstance(value, str):
                close = suggest(value, [str(c) for c in self.choices], n=1, cutoff=0.6)
                hint = f"; {close.strip()[1:-1]}" if close else ""  # "; did you mean 'a'?"
            raise ValueError(f"{what} must be {want}{none} (got {shown(value)}{hint})")

    def coerce(self, value: Any, what: str | None = None) -> Any:
        """``value`` as read from a spec string (``ar(lambda=0.1)``), converted and checked:
        a number (or each number of a list) goes through
        :func:`axiomatic._keyvalue.as_number` (a boolean, a quoted number or ``nan`` is
        refused there, in its words), a single value given for a list becomes a one-item list,
        then :meth:`check` refuses it in one line naming ``what``, the bound it broke and the
        value. Returns the converted value."""
        what = what or f"parameter {self.name!r}"
        optional, container, kind = self._parts()
        if value is None and optional:
            return None
        if container == "list" and not isinstance(value, (list, tuple)):
            value = [value]
        if kind in ("int", "float"):
            integer = kind == "int"
            if container == "list":
                value = [as_number(v, what=what, integer=integer) for v in value]
            else:
                value = as_number(value, what=what, integer=integer)
        self.check(value, what)
        return value


def param_meta(
    *,
    ge: float | None = None,
    gt: float | None = None,
    le: float | None = None,
    lt: float | None = None,
    choices: tuple[Any, ...] | None = None,
    nonempty: bool = False,
    description: str = "",
) -> dict[str, ParamInfo]:
    """A dataclass field's metadata declaring its range (``ge``/``gt`` the lower bound,
    ``le``/``lt`` the upper one), ``choices`` and ``description``:
    ``steps: int = field(default=300, metadata=param_meta(ge=1))``."""
    if (ge is not None and gt is not None) or (le is not None and lt is not None):
        raise TypeError("give one lower bound (ge or gt) and one upper bound (le or lt)")
    return ParamInfo(
        "",
        low=gt if gt is not None else ge,
        low_open=gt is not None,
        high=lt if lt is not None else le,
        high_open=lt is not None,
        choices=tuple(choices) if choices is not None else None,
        nonempty=nonempty,
        description=description,
    ).meta()


def _clean(text: str) -> str:
    return " ".join(text.split())


def field_docs(cls: type) -> dict[str, str]:
    """The documentation of ``cls``' own annotated fields: the string literal under a field
    (its docstring), else the comment on its line, else the comment lines right above it."""
    try:
        source = textwrap.dedent(inspect.getsource(cls))
    except (OSError, TypeError):
        return {}
    tree = ast.parse(source)
    body = tree.body[0].body if tree.body and isinstance(tree.body[0], ast.ClassDef) else []
    comments: dict[int, tuple[bool, str]] = {}  # line -> (the line holds only the comment, text)
    lines = source.splitlines()
    try:
        for tok in tokenize.generate_tokens(io.StringIO(source).readline):
            if tok.type == tokenize.COMMENT:
                alone = not lines[tok.start[0] - 1][: tok.start[1]].strip()
                comments[tok.start[0]] = (alone, tok.string.lstrip("#").strip())
    except (tokenize.TokenError, IndentationError):
        pass
    out: dict[str, str] = {}
    for i, node in enumerate(body):
        if not (isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name)):
            continue
        nxt = body[i + 1] if i + 1 < len(body) else None
        if (
            isinstance(nxt, ast.Expr)
            and isinstance(nxt.value, ast.Constant)
            and isinstance(nxt.value.value, str)
        ):
            out[node.target.id] = _clean(inspect.cleandoc(nxt.value.value))
            continue
        end = node.end_lineno or node.lineno
        if end in comments and not comments[end][0]:
            out[node.target.id] = _clean(comments[end][1])
            continue
        above: list[str] = []
        line = node.lineno - 1
        while line in comments and comments[line][0]:
            above.insert(0, comments[line][1])
            line -= 1
        if above:
            out[node.target.id] = _clean(" ".join(above))
    return out


def dataclass_params(cls: type) -> dict[str, ParamInfo]:
    """Field name -> :class:`ParamInfo` of the dataclass ``cls``: name, type (the annotation as
    written) and default from the field; range, choices and description from the field's
    metadata (:func:`param_meta`, :meth:`ParamInfo.meta`), where a subclass that redeclares a
    field without metadata keeps its base class's; a description missing there comes from the
    field's docstring or comment (the subclass's first)."""
    docs: dict[str, str] = {}
    metas: dict[str, ParamInfo] = {}
    for klass in reversed(cls.__mro__):
        if not dataclasses.is_dataclass(klass):
            continue
        docs.update(field_docs(klass))
        for f in klass.__dataclass_fields__.values():  # own and inherited; own win below
            if META_KEY in f.metadata:
                metas[f.name] = f.metadata[META_KEY]
    out: dict[str, ParamInfo] = {}
    for f in dataclasses.fields(cls):
        if f.default is not dataclasses.MISSING:
            default = f.default
        elif f.default_factory is not dataclasses.MISSING:
            default = f.default_factory()
        else:
            default = REQUIRED
        base = metas.get(f.name, ParamInfo(f.name))
        typ = f.type if isinstance(f.type, str) else getattr(f.type, "__name__", str(f.type))
        out[f.name] = dataclasses.replace(
            base,
            name=f.name,
            type=typ,
            default=default,
            description=base.description or docs.get(f.name, ""),
        )
    return out


PARAM_COLUMNS = ("name", "type", "default", "range", "description")
"""The columns of a parameters table (:meth:`ParamInfo.row`)."""


def param_rows(params: Mapping[str, ParamInfo]) -> list[tuple[str, str, str, str, str]]:
    """The rows of a parameters table (``name, type, default, range, description``)."""
    return [p.row() for p in params.values()]


def param_dicts(params: Mapping[str, ParamInfo]) -> list[dict[str, str]]:
    """The rows of a parameters table as mappings (:data:`PARAM_COLUMNS` -> text), for
    ``--format json`` / ``csv`` listings."""
    return [dict(zip(PARAM_COLUMNS, row, strict=True)) for row in param_rows(params)]


def param_table(
    params: Mapping[str, ParamInfo] | Mapping[str, Mapping[str, ParamInfo]],
    group: str | None = None,
) -> str:
    """A Markdown table of parameter records, one row each (:data:`PARAM_COLUMNS`). With
    ``group`` (a column title such as ``"axiom"``), ``params`` maps each group (an axiom, a
    ranker family, a loss) to its records, the table starts with that column and the records'
    ``name`` column is titled ``parameter``; a group without parameters gets one row saying
    so. The docs' parameter tables are written with
    it, so they are the records, not a copy of them."""
    if group is None:
        return markdown_table(param_rows(params), PARAM_COLUMNS)  # type: ignore[arg-type]
    rows: list[tuple[str, ...]] = []
    for name, records in params.items():
        own = param_rows(records)  # type: ignore[arg-type]
        rows += [(name, *row) for row in own] or [(name, "(none)", "", "", "", "")]
    return markdown_table(rows, (group, "parameter", *PARAM_COLUMNS[1:]))
