"""Axioms as value objects: ``Axiom(name, variant, params)`` plus a safe string parser.

Specification apart from engine (as ir_measures separates a measure from its providers): an
:class:`Axiom` only names a definition from the catalogue and its parameters; the array kernels in
:mod:`axiomatic.axioms.kernels` and :mod:`axiomatic.axioms.kernels_ext` compute it on a
:class:`~axiomatic.axioms.context.QueryContext`.

Strings such as ``"TFC1(delta_rel=0.1)"`` or ``"TFC2(variant='relaxed', delta=5)"`` are parsed with
:mod:`ast` (never ``eval``); unknown axiom or parameter names get close-match suggestions.
"""

from __future__ import annotations

import ast
import difflib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, NamedTuple

import numpy as np

from axiomatic.axioms.context import QueryContext

VARIANTS = ("strict", "extended", "relaxed")
LENGTH_PARAMS = ("delta", "delta_rel")


@dataclass(frozen=True)
class AxiomDef:
    """One catalogue entry: what an axiom is, which variants and parameters it takes."""

    name: str
    arity: int
    relation: str  # ">", ">=" or "diff>" (triples)
    variants: tuple[str, ...]
    default_variant: str
    description: str
    citation: str
    kernel: Callable[..., Any]
    params: Mapping[str, Any] = field(default_factory=dict)  # extra params -> default
    length: bool = True  # takes the length tolerance parameters delta / delta_rel
    needs: tuple[str, ...] = ()  # "positions", "similarity", "scores"
    ours: str = ""  # where the definition is our own choice

    def param_names(self) -> tuple[str, ...]:
        base = ("variant",) + (LENGTH_PARAMS if self.length else ())
        return base + tuple(self.params)


class Instances(NamedTuple):
    """Index arrays of the tuples where an axiom's preconditions hold.

    ``i`` should rank above ``j`` (pairs); for triples (TFC2) ``k`` is the third document and
    the relation is ``S(j) - S(i) > S(k) - S(j)``.
    """

    i: np.ndarray
    j: np.ndarray
    k: np.ndarray | None
    relation: str
    symmetric: np.ndarray | None = None
    """``bool`` per tuple: the preconditions also hold for ``(j, i)``, so the axiom asks for
    ``S(i) >= S(j)`` *and* ``S(j) >= S(i)``, i.e. equal scores (``None``: none is)."""


@dataclass(frozen=True)
class Axiom:
    """An axiom variant with its parameters (immutable, hashable, comparable).

    Build with :func:`parse_axiom` or :meth:`Axiom.create`; ``params`` holds every parameter
    including defaults, so two axioms are equal exactly when they compute the same relation.
    """

    name: str
    variant: str
    params: tuple[tuple[str, Any], ...] = ()

    # ------------------------------------------------------------------ construction
    @classmethod
    def create(cls, name: str, variant: str | None = None, **params: Any) -> Axiom:
        """Validate ``name``/``variant``/``params`` against the catalogue and fill defaults."""
        d = get_definition(name)
        if variant is None:
            variant = d.default_variant
        if variant not in d.variants:
            raise ValueError(
                f"{d.name} has no variant {variant!r}; expected one of {list(d.variants)}"
                + _did_you_mean(variant, d.variants)
            )
        allowed = {k for k in d.param_names() if not k.startswith("_")} - {"variant"}
        for key in params:
            if key not in allowed:
                raise ValueError(
                    f"unknown parameter {key!r} for axiom {d.name}; it takes "
                    f"{sorted(allowed) or 'no parameters'}" + _did_you_mean(key, allowed)
                )
        full: dict[str, Any] = {}
        if d.length:
            given = {k: params.get(k) for k in LENGTH_PARAMS if k in params}
            if not given:
                given = (
                    {"delta": None, "delta_rel": 0.1}
                    if variant == "relaxed"
                    else {"delta": 0, "delta_rel": None}
                )
            for k in LENGTH_PARAMS:
                v = given.get(k)
                if v is not None:
                    v = _number(d.name, k, v)
                    if v < 0:
                        raise ValueError(f"{d.name}: {k} must be >= 0 (got {v})")
                full[k] = v
        for k, default in d.params.items():
            v = params.get(k, default)
            if isinstance(default, (int, float)) and not isinstance(default, bool):
                v = _number(d.name, k, v)
            full[k] = v
        return cls(d.name, variant, tuple(sorted(full.items())))

    # ------------------------------------------------------------------ views
    @property
    def definition(self) -> AxiomDef:
        return get_definition(self.name)

    @property
    def arity(self) -> int:
        return self.definition.arity

    @property
    def relation(self) -> str:
        return self.definition.relation

    def param(self, key: str, default: Any = None) -> Any:
        return dict(self.params).get(key, default)

    @property
    def spec(self) -> str:
        """Canonical string, parseable by :func:`parse_axiom` (``None`` params omitted)."""
        parts = [f"variant={self.variant!r}"]
        parts += [f"{k}={v!r}" for k, v in self.params if v is not None and not k.startswith("_")]
        return f"{self.name}({', '.join(parts)})"

    def __str__(self) -> str:
        return self.spec

    # ------------------------------------------------------------------ computation
    def holds(self, ctx: QueryContext) -> np.ndarray:
        """``bool[n, n]``: preconditions hold for ordered pair ``(i, j)`` (i should rank higher)."""
        d = self.definition
        if d.arity != 2:
            raise TypeError(
                f"{self.name} is a triple axiom: use .instances(ctx) for its (i, j, k) triples"
            )
        from axiomatic.axioms.kernels import row_blocks

        n = ctx.n
        out = np.zeros((n, n), dtype=bool)
        if n == 0 or ctx.n_terms == 0:
            return out
        p = dict(self.params)
        for blk in row_blocks(n, n * max(ctx.n_terms, 1)):
            out[blk] = d.kernel(ctx, self.variant, p, blk)
        np.fill_diagonal(out, False)
        return out

    def preferences(self, ctx: QueryContext) -> np.ndarray:
        """``int8[n, n]``: +1 row doc should rank above column doc, -1 below, 0 none.

        Antisymmetric by construction (``P - P.T``): where the preconditions hold in both
        directions (possible for ``>=`` axioms) there is no preference.
        """
        P = self.holds(ctx)
        return P.astype(np.int8) - P.T.astype(np.int8)

    def instances(
        self, ctx: QueryContext, max_instances: int | None = None, seed: int = 0
    ) -> Instances:
        """Tuples where the preconditions hold (the rows of a diagnostic dataset).

        Pairs: ``(i, j)`` with ``holds[i, j]``; a pair that holds in both directions (a ``>=``
        axiom on two documents it cannot tell apart, e.g. M-TDC on two terms of equal idf) is
        listed once, as ``i < j``, like the thesis counts it (Table 3.7), and flagged in
        ``symmetric``: the axiom then prescribes equal scores, not an order.

        ``max_instances`` keeps a seeded uniform sample (candidate order preserved), never the
        first ones: candidate lists are ranked, so a prefix favours the top documents and biases
        every fulfilment measured on it.
        """
        d = self.definition
        if d.arity == 3:
            i, j, k = d.kernel(ctx, self.variant, dict(self.params))
            keep = uniform_sample(len(i), max_instances, seed)
            return Instances(i[keep], j[keep], k[keep], d.relation, np.zeros(len(keep), bool))
        P = self.holds(ctx)
        n = ctx.n
        keep = P & (~P.T | np.triu(np.ones((n, n), dtype=bool), 1))
        i, j = np.nonzero(keep)
        sym = P[j, i]
        sel = uniform_sample(len(i), max_instances, seed)
        return Instances(
            i[sel].astype(np.int64), j[sel].astype(np.int64), None, d.relation, sym[sel]
        )


def uniform_sample(m: int, cap: int | None, seed: Any) -> np.ndarray:
    """Sorted indices of a uniform sample of ``min(m, cap)`` of ``range(m)`` (all when uncapped).

    ``seed`` is anything :func:`numpy.random.default_rng` takes (an int, a sequence of ints).
    """
    if cap is None or m <= cap:
        return np.arange(m)
    if cap < 0:
        raise ValueError(f"max_instances must be >= 0 (got {cap})")
    rng = np.random.default_rng(seed)
    return np.sort(rng.choice(m, size=int(cap), replace=False))


# ---------------------------------------------------------------------- catalogue
def _canon(name: str) -> str:
    return name.upper().replace("-", "").replace("_", "").replace(" ", "")


@lru_cache(maxsize=1)
def _catalogue() -> dict[str, AxiomDef]:
    from axiomatic.axioms.catalogue import definitions

    return {d.name: d for d in definitions()}


@lru_cache(maxsize=1)
def _canon_map() -> dict[str, str]:
    return {_canon(n): n for n in _catalogue()}


def get_definition(name: str) -> AxiomDef:
    """The catalogue entry for ``name`` (case, ``-`` and ``_`` insensitive: ``m_tdc`` = M-TDC)."""
    real = _canon_map().get(_canon(name))
    if real is None:
        raise ValueError(
            f"unknown axiom {name!r}; known axioms: {', '.join(_catalogue())}"
            + _did_you_mean(name, _catalogue())
        )
    return _catalogue()[real]


def list_axioms() -> list[dict[str, Any]]:
    """One row per axiom: name, arity, relation, variants, params, citation, description."""
    rows = []
    for d in _catalogue().values():
        params = {"variant": d.default_variant}
        if d.length:
            params.update({"delta": "0 (strict/extended)", "delta_rel": "0.1 (relaxed)"})
        params.update({k: v for k, v in d.params.items() if not k.startswith("_")})
        rows.append(
            {
                "name": d.name,
                "arity": d.arity,
                "relation": d.relation,
                "variants": list(d.variants),
                "params": params,
                "needs": list(d.needs),
                "citation": d.citation,
                "description": d.description,
            }
        )
    return rows


# ---------------------------------------------------------------------- parser
def _did_you_mean(word: str, choices: Any) -> str:
    close = difflib.get_close_matches(str(word), [str(c) for c in choices], n=3, cutoff=0.5)
    if not close:
        canon = {_canon(str(c)): str(c) for c in choices}
        close = [canon[c] for c in difflib.get_close_matches(_canon(str(word)), canon, n=3)]
    return f" (did you mean {', '.join(repr(c) for c in close)}?)" if close else ""


def _number(axiom: str, key: str, v: Any) -> float:
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        raise ValueError(f"{axiom}: parameter {key} must be a number (got {v!r})")
    return v


def _literal(node: ast.AST, text: str) -> Any:
    try:
        return ast.literal_eval(node)
    except (ValueError, TypeError, MemoryError, RecursionError):
        # TypeError: an unhashable key such as {[]: 1}; the others: absurd nesting
        raise ValueError(
            f"axiom parameter values must be literals (numbers, strings, True/False/None); "
            f"got {ast.unparse(node)!r} in {text!r}"
        ) from None


def parse_axiom(text: str | Axiom) -> Axiom:
    """Parse ``"NAME"`` or ``"NAME(key=value, ...)"`` into an :class:`Axiom`.

    ``variant`` is a parameter like the others: ``TFC1(variant='strict')``. Names are matched
    case-insensitively ignoring ``-``/``_`` (``m_tdc``, ``mtdc`` and ``M-TDC`` are the same).
    """
    if isinstance(text, Axiom):
        return text
    if not isinstance(text, str) or not text.strip():
        raise ValueError(f"expected an axiom string like 'TFC1(delta_rel=0.1)' (got {text!r})")
    s = text.strip()
    paren = s.find("(")
    name = s if paren < 0 else s[:paren].strip()
    args = "" if paren < 0 else s[paren:]
    if args and not args.endswith(")"):
        raise ValueError(f"unbalanced parentheses in axiom {text!r}; expected NAME(key=value)")
    kwargs: dict[str, Any] = {}
    if args:
        try:
            tree = ast.parse("f" + args, mode="eval")
        except SyntaxError as exc:
            raise ValueError(
                f"cannot parse axiom {text!r}: {exc.msg}; expected NAME(key=value, ...)"
            ) from None
        call = tree.body
        if not isinstance(call, ast.Call):
            raise ValueError(f"cannot parse axiom {text!r}; expected NAME(key=value, ...)")
        if call.args:
            raise ValueError(
                f"axiom parameters must be named in {text!r} (e.g. TFC1(delta_rel=0.1))"
            )
        for kw in call.keywords:
            if kw.arg is None:
                raise ValueError(f"'**' is not allowed in axiom strings ({text!r})")
            kwargs[kw.arg] = _literal(kw.value, text)
    variant = kwargs.pop("variant", None)
    return Axiom.create(name, variant, **kwargs)


def split_top_level(text: str, sep: str = ",") -> list[str]:
    """Split on ``sep`` outside parentheses and quotes."""
    out, depth, quote, cur = [], 0, "", []
    for ch in text:
        if quote:
            cur.append(ch)
            if ch == quote:
                quote = ""
            continue
        if ch in "'\"":
            quote = ch
        elif ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        elif ch == sep and depth == 0:
            out.append("".join(cur))
            cur = []
            continue
        cur.append(ch)
    out.append("".join(cur))
    return [p.strip() for p in out if p.strip()]


def parse_axioms(text: str | Any) -> list[Axiom]:
    """Parse a comma-separated list (``"TFC1,TFC2(variant='relaxed'),M-TDC"``) or a sequence."""
    if isinstance(text, Axiom):
        return [text]
    if isinstance(text, str):
        parts: list[Any] = split_top_level(text)
    else:
        parts = list(text)
    if not parts:
        raise ValueError("no axioms given; expected e.g. 'TFC1,TFC2,M-TDC,LNC2'")
    return [parse_axiom(p) for p in parts]
