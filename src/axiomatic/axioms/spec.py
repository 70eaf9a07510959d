"""Axioms as value objects: ``Axiom(name, variant, params)`` and the one parser of axiom strings.

Specification apart from engine (as ir_measures separates a measure from its providers): an
:class:`Axiom` only names a definition of the catalogue (:mod:`axiomatic.axioms.catalogue`) and
its parameters; the engine (:mod:`axiomatic.axioms.engine`) computes it on a
:class:`~axiomatic.axioms.context.QueryContext` with the family kernels
(:mod:`axiomatic.axioms.kernels`). ``Axiom.holds`` / ``preferences`` / ``instances`` are
shortcuts to the engine.

Strings such as ``"TFC1(delta_rel=0.1)"`` or ``"TFC2(variant='relaxed', delta=5)"`` are parsed
with the shared strict grammar of :mod:`axiomatic._keyvalue` (ast-based, never ``eval``);
unknown axiom or parameter names get close-match suggestions.

One grammar for every kind of axiom in the catalogue: ARES' query-pair axioms
(``"Q-STM-3(threshold=0.4)"``, ``"Q-RANK + 0.5*Q-PROX-1"``) parse here too; they have no
variant (``Axiom.variant`` is ``""``). An expression combines axioms of one kind: a
document-pair axiom and a query-pair axiom in one expression is refused at parse time, and
``parse_axioms(..., relates=...)`` refuses axioms of another kind than its consumer computes.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from axiomatic._keyvalue import parse_call, split_top_level
from axiomatic._suggest import suggest
from axiomatic.axioms.catalogue import (
    LENGTH_PARAMS,
    RELATES,
    VARIANTS,
    AxiomDef,
    get_definition,
    list_axioms,
    relates_phrase,
)

if TYPE_CHECKING:
    import numpy as np

    from axiomatic.axioms.context import QueryContext
    from axiomatic.axioms.engine import Instances

__all__ = [
    "LENGTH_PARAMS",
    "VARIANTS",
    "Axiom",
    "AxiomDef",
    "Combination",
    "check_relates",
    "get_definition",
    "leaves",
    "list_axioms",
    "parse_axiom",
    "parse_axioms",
    "parse_combination",
    "split_axiom_list",
    "split_top_level",
]

_EXAMPLE = "TFC1(delta_rel=0.1)"


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
        if not d.variants:  # query-pair axioms: no variants
            if variant not in (None, ""):
                raise ValueError(
                    f"{d.name} has no variants (it relates {relates_phrase(d.relates, d.arity)}"
                    f"); got variant={variant!r}: drop it"
                )
            variant = ""
        if variant is None:
            variant = d.default_variant
        if variant not in d.variants and d.variants:
            raise ValueError(
                f"{d.name} has no variant {variant!r}; expected one of {list(d.variants)}"
                + suggest(variant, d.variants, loose=True)
            )
        allowed = {k for k in d.param_names() if not k.startswith("_")} - {"variant"}
        for key in params:
            if key not in allowed:
                raise ValueError(
                    f"unknown parameter {key!r} for axiom {d.name}; it takes "
                    f"{sorted(allowed) or 'no parameters'}"
                    + suggest(key, sorted(allowed), loose=True)
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
        records = d.param_info()
        for k, default in d.params.items():
            v = params.get(k, default)
            if isinstance(default, (int, float)) and not isinstance(default, bool):
                v = _number(d.name, k, v)
            if k in params and k in records:
                records[k].check(v, f"{d.name}: parameter {k}")  # its range, where it has one
            full[k] = v
        if d.check is not None:
            d.check(d.name, full)
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

    @property
    def relates(self) -> str:
        """``"documents"`` or ``"queries"`` (see :data:`axiomatic.axioms.catalogue.RELATES`)."""
        return self.definition.relates

    def param(self, key: str, default: Any = None) -> Any:
        return dict(self.params).get(key, default)

    @property
    def spec(self) -> str:
        """Canonical string, parseable by :func:`parse_axiom` (``None`` params omitted; an
        axiom without variant or parameters is its name: ``Q-REG``)."""
        parts = [f"variant={self.variant!r}"] if self.variant else []
        parts += [f"{k}={v!r}" for k, v in self.params if v is not None and not k.startswith("_")]
        return f"{self.name}({', '.join(parts)})" if parts else self.name

    def __str__(self) -> str:
        return self.spec

    # ------------------------------------------------------------------ algebra (ir_axioms operators)
    def __and__(self, other: Axiom) -> Combination:
        return Combination.build("and", [self, other])

    def __or__(self, other: Axiom) -> Combination:
        return Combination.build("or", [self, other])

    def __mod__(self, other: Axiom) -> Combination:
        return Combination.build("vote", [self, other])

    def __add__(self, other: Axiom) -> Combination:
        return Combination.build("sum", [self, other])

    def __sub__(self, other: Axiom) -> Combination:
        return Combination.build("sum", [self, -other])

    def __mul__(self, other: float) -> Combination:
        if isinstance(other, (int, float)) and not isinstance(other, bool):
            return Combination.build("scale", [self], other)
        raise TypeError(
            f"cannot multiply {self.name} by {other!r}: a weight is a number (a product of two "
            "axioms is not antisymmetric, so it is no axiom)"
        )

    def __rmul__(self, other: float) -> Combination:
        return self * other

    def __neg__(self) -> Combination:
        return Combination.build("neg", [self])

    def __pos__(self) -> Combination:
        return Combination.build("norm", [self])

    # ------------------------------------------------------------------ computation (engine)
    def holds(self, ctx: QueryContext) -> np.ndarray:
        """``bool[n, n]``: preconditions hold for ordered pair ``(i, j)`` (see the engine)."""
        from axiomatic.axioms import engine

        return engine.holds(self, ctx)

    def preferences(self, ctx: QueryContext) -> np.ndarray:
        """``int8[n, n]``: +1 row doc should rank above column doc, -1 below, 0 none."""
        from axiomatic.axioms import engine

        return engine.preferences(self, ctx)

    def instances(
        self, ctx: QueryContext, max_instances: int | None = None, seed: Any = 0
    ) -> Instances:
        """Tuples where the preconditions hold (see :func:`axiomatic.axioms.engine.instances`)."""
        from axiomatic.axioms import engine

        return engine.instances(self, ctx, max_instances, seed)


def _number(axiom: str, key: str, v: Any) -> float:
    """A finite number (:func:`axiomatic._keyvalue.as_number`); an int stays an int (the spec
    string keeps ``delta=0``), once known to fit a float, as the kernels compute with it."""
    from axiomatic._keyvalue import as_number

    checked = as_number(v, what=f"{axiom}: parameter {key}")
    return v if isinstance(v, int) else checked  # type: ignore[no-any-return]


# ---------------------------------------------------------------------- parser
def parse_axiom(text: str | Axiom, default_variant: str | None = None) -> Axiom:
    """Parse ``"NAME"`` or ``"NAME(key=value, ...)"`` into an :class:`Axiom`.

    ``variant`` is a parameter like the others: ``TFC1(variant='strict')``; a string that does
    not set one gets ``default_variant`` where the definition has that variant, else its own
    default (a global ``--variant relaxed`` must not fail on LNC1, which has only ``extended``;
    an explicit ``LNC1(variant='relaxed')`` is still an error). Names are matched
    case-insensitively ignoring ``-``/``_`` (``m_tdc``, ``mtdc`` and ``M-TDC`` are the same).
    """
    if isinstance(text, Axiom):
        return text
    if not isinstance(text, str) or not text.strip():
        raise ValueError(f"expected an axiom string like {_EXAMPLE!r} (got {text!r})")
    from axiomatic.axioms.algebra import is_expression

    if is_expression(text):  # "TFC1 & LNC1": a Combination (axioms/algebra.py)
        return parse_combination(text, default_variant)
    if default_variant is not None and default_variant not in VARIANTS:
        raise ValueError(
            f"unknown default variant {default_variant!r}; expected one of {list(VARIANTS)}"
            + suggest(default_variant, VARIANTS, loose=True)
        )
    name, kwargs = parse_call(text, what="axiom", example=_EXAMPLE)
    variant = kwargs.pop("variant", None)
    if variant is None and default_variant in get_definition(name).variants:
        variant = default_variant
    if variant is not None and not isinstance(variant, str):
        raise ValueError(f"{name}: variant must be one of {list(VARIANTS)} (got {variant!r})")
    return Axiom.create(name, variant, **kwargs)


def split_axiom_list(text: str) -> list[str]:
    """Split ``"TFC1,TFC2(variant='relaxed'),M-TDC"`` into the axiom strings (commas inside
    parentheses and quotes stay); raise ``ValueError`` on unbalanced brackets or quotes."""
    try:
        parts = split_top_level(text)
    except ValueError as exc:
        raise ValueError(f"cannot split axiom list {text!r}: {exc}") from None
    return [p for p in parts if p]


def parse_axioms(
    text: str | Axiom | Iterable[str | Axiom],
    default_variant: str | None = None,
    *,
    relates: str | None = None,
) -> list[Axiom]:
    """Parse a comma-separated list (``"TFC1,TFC2(variant='relaxed'),M-TDC"``) or a sequence;
    ``default_variant`` applies to the strings that set no variant and whose axiom has it (the
    others keep their own default; parsed ``Axiom`` values are kept as they are).

    ``relates`` (``"documents"`` or ``"queries"``): the kind the caller computes; an axiom of
    the other kind is a ``ValueError`` naming the close matches of the right kind."""
    if relates is not None and relates not in RELATES:
        raise ValueError(f"relates must be one of {list(RELATES)} (got {relates!r})")
    if isinstance(text, Axiom):
        parsed = [text]
    else:
        parts: list[Any] = split_axiom_list(text) if isinstance(text, str) else list(text)
        if not parts:
            raise ValueError("no axioms given; expected e.g. 'TFC1,TFC2,M-TDC,LNC2'")
        parsed = [parse_axiom(p, default_variant) for p in parts]
    if relates is not None:
        for a in parsed:
            check_relates(a, relates)
    return parsed


def check_relates(axiom: Axiom, relates: str) -> Axiom:
    """``axiom`` when it relates ``relates``, else a ``ValueError`` (one line) that says what
    it relates and suggests the close names of the wanted kind (``REG`` -> ``Q-REG``)."""
    if axiom.relates == relates:
        return axiom
    wanted = [r["name"] for r in list_axioms(relates)]
    one = "query" if relates == "documents" else "document"
    raise ValueError(
        f"{axiom.name} relates {relates_phrase(axiom.relates, axiom.arity)}, but axioms "
        f"relating {relates} for one {one} are needed here (see `axiomatic axioms`)"
        + suggest(axiom.name, wanted, loose=True)
    )


def leaves(spec: Any) -> list[Axiom]:
    """The single axioms a spec is built from: itself for an :class:`Axiom`, the operands of a
    combination (:mod:`axiomatic.axioms.algebra`) otherwise, in order of appearance."""
    if isinstance(spec, Combination):
        return spec.leaves()
    return [spec]


@dataclass(frozen=True)
class Combination(Axiom):
    """A combination of axioms with ir_axioms' operators (``&``, ``|``, ``%``, ``+``, ``-``,
    a number ``*``, unary ``-``/``+``): itself an axiom spec, usable wherever one is (mine, diagnose, rerank).

    Built by :func:`parse_axiom` from strings such as ``"(TFC1 | ORIG) % PROX1"`` or with the
    operators on :class:`Axiom` values; the meanings and the array evaluation are
    :mod:`axiomatic.axioms.algebra`. ``name`` is the expression with short leaf names,
    ``spec`` the exact one (full leaf specs), ``variant`` is ``'combined'``. Preferences are
    sign-normalized (ternary), so the relation is ``>`` and no pair is symmetric.
    """

    op: str = ""
    operands: tuple[Any, ...] = ()
    weight: float = 1.0

    @classmethod
    def build(cls, op: str, operands: Iterable[Any], weight: float = 1.0) -> Combination:
        """The node ``op(operands)``, flattening chains as ir_axioms does; every leaf must be a
        pairwise axiom (a triple axiom has no preference matrix)."""
        from axiomatic.axioms.algebra import make_node, render

        ops = [parse_axiom(o) if isinstance(o, str) else o for o in operands]
        for o in ops:
            if not isinstance(o, Axiom):
                raise TypeError(f"cannot combine {o!r} with an axiom; expected an Axiom")
            if o.arity != 2:
                raise ValueError(
                    f"{o.name} is a triple axiom (arity 3) and has no preference matrix; "
                    "combinations take pairwise axioms"
                )
        for o in ops[1:]:
            if o.relates != ops[0].relates:
                a, b = ops[0], o
                raise ValueError(
                    f"cannot combine {_kind_leaf(a).name} (relates "
                    f"{relates_phrase(a.relates, 2)}) with {_kind_leaf(b).name} (relates "
                    f"{relates_phrase(b.relates, 2)}): an axiom expression combines axioms of "
                    "one kind"
                )
        op, flat, w = make_node(op, ops, weight)
        probe = cls("", "combined", (), op, flat, w)
        return cls(render(probe, _short), "combined", (), op, flat, w)

    def leaves(self) -> list[Axiom]:
        """The single axioms combined, in order of appearance, each once."""
        out: dict[Axiom, None] = {}
        for o in self.operands:
            for leaf in leaves(o):
                out.setdefault(leaf, None)
        return list(out)

    @property
    def definition(self) -> AxiomDef:
        from axiomatic.axioms.algebra import combination_definition

        return combination_definition(self, self.name)

    @property
    def arity(self) -> int:
        return 2

    @property
    def relation(self) -> str:
        return ">" if self.relates == "documents" else "q1>q2|d"

    @property
    def relates(self) -> str:
        """What the leaves relate (all of them the same: :meth:`build` refuses a mix)."""
        return self.leaves()[0].relates

    @property
    def spec(self) -> str:
        from axiomatic.axioms.algebra import render

        return render(self, lambda a: a.spec)

    def preferences(self, ctx: QueryContext) -> np.ndarray:
        from axiomatic.axioms import algebra

        return algebra.preferences(self, lambda a: a.preferences(ctx))

    def holds(self, ctx: QueryContext) -> np.ndarray:
        return self.preferences(ctx) > 0

    def instances(
        self, ctx: QueryContext, max_instances: int | None = None, seed: Any = 0
    ) -> Instances:
        import numpy as np

        from axiomatic.axioms.engine import Instances, uniform_sample

        i, j = np.nonzero(self.holds(ctx))
        sel = uniform_sample(len(i), max_instances, seed)
        return Instances(
            i[sel].astype(np.int64), j[sel].astype(np.int64), None, ">", np.zeros(len(sel), bool)
        )


def _kind_leaf(a: Axiom) -> Axiom:
    """The first single axiom of ``a`` (itself for a single axiom): the one a message names."""
    return leaves(a)[0]


def _short(a: Axiom) -> str:
    """A leaf's name when it has its default variant and parameters, else its full spec."""
    return a.name if a == Axiom.create(a.name) else a.spec


def parse_combination(text: str, default_variant: str | None = None) -> Axiom:
    """Parse an axiom expression (``"TFC1 & LNC1"``, ``"(TFC1 | ORIG) % PROX1"``,
    ``"0.5*TFC1 + 2*LNC1"``); ``default_variant`` applies to its leaves as in
    :func:`parse_axiom`. Raises ``ValueError`` for anything but axioms, operators, numbers as
    weights and parentheses (parsed with :mod:`ast`, never evaluated)."""
    from axiomatic.axioms.algebra import parse_expression

    node = parse_expression(text, lambda s: parse_axiom(s, default_variant), Combination.build)
    return node  # "(TFC1)" is the axiom itself
