"""The axiom catalogue: every definition with its family, citation, variants and parameters.

A definition (:class:`AxiomDef`) says *what* an axiom is and what it relates
(:attr:`AxiomDef.relates` and :attr:`AxiomDef.arity`):

- two documents for one query (:class:`PairAxiomDef`, ``<q, d1, d2>``: TFC1, M-TDC, ...) or
  three (:class:`TripleAxiomDef`, ``<q, d1, d2, d3>``: TFC2): their kernels compute the
  axiom-specific preconditions on a :class:`~axiomatic.axioms.context.QueryContext`, and the
  engine (:mod:`axiomatic.axioms.engine`) applies the shared length precondition and turns
  kernels into preferences and instances;
- two queries for one document (:class:`QueryPairAxiomDef`, ``<q1, q2, d>``: ARES' Table 1,
  family ``query-pair``, names prefixed ``Q-``): their kernels compare the queries on a
  :class:`~axiomatic.axioms.query_pairs.QueryPairContext`
  (:func:`~axiomatic.axioms.query_pairs.pair_preferences`).

:class:`~axiomatic.axioms.spec.Axiom` values name a definition of any kind, parsed by the one
grammar of :mod:`axiomatic.axioms.spec` (an expression combines axioms of one kind only).

No registration at import (DESIGN section 4, item 9): the default catalogue is built on first
use from the family modules listed in :data:`FAMILY_MODULES` (each exposes ``definitions()``).
A new family adds its module to that tuple; a user adds a definition at run time with
:func:`register` (or builds an own :class:`Catalogue`).

Definitions of the ir_axioms family follow ir_axioms 1.2.5 (Bondarenko et al. 2022) where it
implements them and the cited papers otherwise; ``ours`` says where the definition is our choice.
"""

from __future__ import annotations

import dataclasses
import importlib
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar, Protocol

import numpy as np

from axiomatic._params import ParamInfo, param_dicts
from axiomatic._suggest import suggest
from axiomatic.axioms.context import QueryContext

# ---------------------------------------------------------------------- citations (one place)
THESIS = "Rennings 2019, MSc thesis 'Axiomatic diagnosis of neural IR models', ch. 3"
FANG04 = "Fang, Tao, Zhai 2004, A formal study of information retrieval heuristics (SIGIR)"
FANG11 = "Fang, Tao, Zhai 2011, Diagnostic evaluation of information retrieval models (TOIS)"
SHI05 = "Shi, Wen, Yu, Song, Ma 2005, Gravitation-based model for IR (SIGIR)"
LV11 = "Lv, Zhai 2011, Lower-bounding term frequency normalization (CIKM)"
FANG06 = "Fang, Zhai 2006, Semantic term matching in axiomatic approaches to IR (SIGIR)"
TAO07 = "Tao, Zhai 2007, An exploration of proximity measures in IR (SIGIR)"
HAGEN16 = "Hagen, Völske, Göring, Stein 2016, Axiomatic result re-ranking (CIKM)"
ZHENG10 = "Zheng, Fang 2010, Query aspect based term weighting regularization (ECIR)"
GOLLAPUDI09 = "Gollapudi, Sharma 2009, An axiomatic approach for result diversification (WWW)"
IRAX = "Bondarenko et al. 2022, Axiomatic retrieval experimentation with ir_axioms (SIGIR)"
CHEN22 = "Chen, Liu, Fang, Mao, Fang, Yang, Xie, Zhang, Ma 2022, ARES (SIGIR), Table 1"

VARIANTS = ("strict", "extended", "relaxed")
LENGTH_PARAMS = ("delta", "delta_rel")
THESIS_VARIANTS = VARIANTS
FAMILY_VARIANTS = ("extended", "relaxed")
ONE = ("extended",)

#: families of the built-in definitions (``AxiomDef.family``); the last relates queries
FAMILIES = (
    "term frequency",
    "length",
    "lower bound",
    "proximity",
    "semantic",
    "query aspects",
    "query-pair",
)

#: what a definition relates (``AxiomDef.relates``): documents for one query, or queries for
#: one document
DOCUMENTS = "documents"
QUERIES = "queries"
RELATES = (DOCUMENTS, QUERIES)


def relates_phrase(relates: str, arity: int) -> str:
    """``"two documents for one query"``, ``"three documents ..."``, ``"two queries for one
    document"``: how messages and ``axiomatic axioms`` say what an axiom relates."""
    count = {2: "two", 3: "three"}.get(arity, str(arity))
    one = "query" if relates == DOCUMENTS else "document"
    return f"{count} {relates} for one {one}"


# ---------------------------------------------------------------------- kernel protocols
class PairKernel(Protocol):
    """``kernel(ctx, variant, params, rows) -> bool[len(rows), n]``.

    Entry ``[a, j]`` is True when the axiom's own preconditions hold for the ordered pair
    ``(rows.start + a, j)``: the row document should rank above (``>``) or not below (``>=``)
    the column document. The length precondition is the engine's, never the kernel's.
    """

    def __call__(
        self, ctx: QueryContext, variant: str, params: Mapping[str, Any], rows: slice, /
    ) -> np.ndarray: ...


class PreferencesKernel(Protocol):
    """``preferences_kernel(ctx, variant, params, close) -> int8[n, n] | None`` (see
    :class:`PairAxiomDef`); called only with ``n >= 1`` candidates and ``|q| >= 1`` terms.

    ``close`` is the engine's length precondition, ``bool[n, n]`` and symmetric
    (:meth:`QueryContext.length_close`), or None where none applies: the result must be the
    preference matrix of ``holds & close``, i.e. ``close * (holds - holds.T)``.
    """

    def __call__(
        self,
        ctx: QueryContext,
        variant: str,
        params: Mapping[str, Any],
        close: np.ndarray | None = None,
        /,
    ) -> np.ndarray | None: ...


class TripleKernel(Protocol):
    """``kernel(ctx, variant, params, pairs_ok) -> (i, j, k)`` index arrays.

    ``pairs_ok(rows) -> bool[len(rows), n]`` is a necessary pairwise condition from the engine
    (kernels may use it to prune); the engine applies the triple's length precondition.
    """

    def __call__(
        self,
        ctx: QueryContext,
        variant: str,
        params: Mapping[str, Any],
        pairs_ok: Callable[[slice], np.ndarray] | None = None,
        /,
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]: ...


class QueryPairKernel(Protocol):
    """``kernel(ctx, axiom, i, j) -> int8[len(i)]`` on a
    :class:`~axiomatic.axioms.query_pairs.QueryPairContext`.

    Entry ``k`` is the preference of query ``i[k]`` over query ``j[k]`` for their (shared)
    document: +1 the axiom prefers ``i[k]``, -1 ``j[k]``, 0 neither (eq. 9 of ARES). ``axiom``
    is the :class:`~axiomatic.axioms.spec.Axiom` with every parameter filled (its spec keys the
    context's score cache).
    """

    def __call__(self, ctx: Any, axiom: Any, i: np.ndarray, j: np.ndarray, /) -> np.ndarray: ...


# ---------------------------------------------------------------------- definitions
@dataclass(frozen=True, kw_only=True)
class AxiomDef:
    """One catalogue entry: what an axiom is, which variants and parameters it takes.

    ``length``: the axiom takes the length tolerance ``delta`` / ``delta_rel`` and the engine
    applies it (``|L_i - L_j|`` over pairs; shortest vs longest over triples). ``needs`` names
    the optional context inputs (``positions``, ``similarity``, ``scores``, ``vocabulary``).
    ``check(name, params)`` (optional) validates the filled parameters (raises ``ValueError``). What an
    axiom relates is its class's: ``relates`` (:data:`DOCUMENTS` or :data:`QUERIES`) and
    ``arity`` (how many of them).
    """

    name: str
    family: str
    relation: str  # ">", ">=" or "diff>" (triples)
    variants: tuple[str, ...]
    default_variant: str
    description: str
    citation: str
    params: Mapping[str, Any] = field(default_factory=dict)  # extra params -> default
    param_docs: Mapping[str, str] = field(default_factory=dict)  # extra params -> description
    # extra params -> a record of their range (or choices): parse_axiom checks a value with it
    param_ranges: Mapping[str, ParamInfo] = field(default_factory=dict)
    length: bool = True
    needs: tuple[str, ...] = ()
    ours: str = ""  # where the definition is our own choice
    check: Callable[[str, Mapping[str, Any]], None] | None = None

    arity: ClassVar[int] = 0
    relates: ClassVar[str] = DOCUMENTS

    def param_names(self) -> tuple[str, ...]:
        base = ("variant",) + (LENGTH_PARAMS if self.length else ())
        return base + tuple(self.params)

    def param_info(self) -> dict[str, ParamInfo]:
        """The records of the parameters an axiom spec may set (``TFC1(variant=relaxed,
        delta_rel=0.2)``): the variant (one of :attr:`variants`), the length tolerances where
        the axiom takes them (their default depends on the variant: ``None`` here) and the
        definition's own parameters (type and default from :attr:`params`, description from
        :attr:`param_docs`, range or choices from :attr:`param_ranges`)."""
        out: dict[str, ParamInfo] = {}
        if self.variants:
            out["variant"] = ParamInfo(
                "variant",
                "str",
                self.default_variant,
                choices=tuple(self.variants),
                description="the form of the axiom (strict, extended or relaxed)",
            )
        if self.length:
            for key, default, text in (
                ("delta", "strict and extended variants: 0", "absolute"),
                ("delta_rel", "relaxed variant: 0.1", "relative"),
            ):
                out[key] = ParamInfo(
                    key,
                    "float | None",
                    None,
                    low=0,
                    description=f"{text} length tolerance of the documents compared "
                    f"(default for the {default})",
                )
        for key, default in self.params.items():
            if key.startswith("_"):
                continue
            kind = type(default).__name__ if default is not None else "Any"
            out[key] = dataclasses.replace(
                self.param_ranges.get(key, ParamInfo(key)),
                name=key,
                type="float" if kind == "int" else kind,
                default=default,
                description=self.param_docs.get(key, ""),
            )
        return out


@dataclass(frozen=True, kw_only=True)
class PairAxiomDef(AxiomDef):
    """A pairwise axiom: its kernel is a :class:`PairKernel`.

    ``preferences_kernel`` (optional) computes the whole ``int8[n, n]`` preference matrix
    directly, for an axiom whose matrix has a cheaper form than ``holds - holds.T`` (LB1: a
    score band times a subset relation; most others: one compiled pass over the pairs instead
    of a dozen ``n x n`` numpy calls, see :mod:`axiomatic.axioms.kernels._jit`). It must return
    exactly what the engine derives from ``kernel`` (length precondition included, passed as
    ``close``), or None to decline (the engine then takes the kernel path, the reference).
    """

    kernel: PairKernel
    preferences_kernel: PreferencesKernel | None = None
    arity: ClassVar[int] = 2


@dataclass(frozen=True, kw_only=True)
class TripleAxiomDef(AxiomDef):
    """A triple axiom (TFC2): its kernel is a :class:`TripleKernel`."""

    kernel: TripleKernel
    arity: ClassVar[int] = 3


@dataclass(frozen=True, kw_only=True)
class QueryPairAxiomDef(AxiomDef):
    """A query-pair axiom (``<q1, q2, d>``: which of two queries fits one document better; ARES,
    Chen et al. 2022): its kernel is a :class:`QueryPairKernel`.

    ``score`` names the per-query score (``QueryPairContext.score_<score>``) the kernel compares,
    ``higher_is_better`` its direction. No variants and no length precondition: the parameters
    are the definition's own (``params``).
    """

    kernel: QueryPairKernel
    score: str
    higher_is_better: bool
    relation: str = "q1>q2|d"
    variants: tuple[str, ...] = ()
    default_variant: str = ""
    length: bool = False
    arity: ClassVar[int] = 2
    relates: ClassVar[str] = QUERIES

    def param_names(self) -> tuple[str, ...]:
        return tuple(self.params)


QUERY_PAIR_PARAM_DOCS: dict[tuple[str, str], str] = {
    ("Q-RANK", "depth"): "BM25 ranks of d deeper than this count as +inf (a positive integer)",
    ("Q-RANK", "k1"): "BM25's term-frequency saturation k1",
    ("Q-RANK", "b"): "BM25's length normalization b",
    ("Q-REP-QL", "mu"): "Dirichlet smoothing mu of the query likelihood",
    ("Q-STM-2", "threshold"): "Q-STM-1 similarity difference below which the term counts decide",
    ("Q-STM-3", "threshold"): "similarity to d above which a query term counts",
}
"""What each query-pair axiom's own parameter means (every one is a number >= 0)."""
_AT_LEAST_0 = ParamInfo("", low=0)
QUERY_PAIR_PARAM_RANGES = {"depth": ParamInfo("depth", low=1)}
"""The query-pair parameters' ranges other than ``>= 0`` (:func:`Q.check_params` enforces the
same, and that Q-RANK's depth is an integer)."""


def _canon(name: str) -> str:
    return name.upper().replace("-", "").replace("_", "").replace(" ", "")


class Catalogue:
    """An explicit store of definitions, looked up case-, ``-`` and ``_``-insensitively."""

    def __init__(self, definitions: Iterable[AxiomDef] = ()) -> None:
        self.entries: dict[str, AxiomDef] = {}
        for d in definitions:
            self.register(d)

    def register(self, definition: AxiomDef, *, replace: bool = False) -> AxiomDef:
        """Add ``definition``; a second definition of the same (canonical) name is an error
        unless ``replace``."""
        if not isinstance(definition, (PairAxiomDef, TripleAxiomDef, QueryPairAxiomDef)):
            raise TypeError(
                "expected a PairAxiomDef, TripleAxiomDef or QueryPairAxiomDef, got "
                f"{type(definition).__name__}"
            )
        if definition.variants and definition.default_variant not in definition.variants:
            raise ValueError(
                f"{definition.name}: default variant {definition.default_variant!r} is not one "
                f"of its variants {list(definition.variants)}"
            )
        key = _canon(definition.name)
        old = next((n for n in self.entries if _canon(n) == key), None)
        if old is not None and not replace:
            raise ValueError(
                f"axiom {definition.name!r} is already in the catalogue (as {old!r}); pass "
                "replace=True to redefine it"
            )
        if old is not None:
            del self.entries[old]
        self.entries[definition.name] = definition
        return definition

    def get(self, name: str) -> AxiomDef:
        exact = self.entries.get(name)  # Axiom.name is the canonical spelling: the hot path
        if exact is not None:
            return exact
        key = _canon(str(name))
        for n, d in self.entries.items():
            if _canon(n) == key:
                return d
        raise ValueError(
            f"unknown axiom {name!r}; known axioms: {', '.join(self.entries)}"
            + suggest(name, self.entries, loose=True)
        )

    def __iter__(self):  # type: ignore[no-untyped-def]
        return iter(self.entries.values())

    def __len__(self) -> int:
        return len(self.entries)

    def by_family(self, family: str) -> list[AxiomDef]:
        return [d for d in self.entries.values() if d.family == family]


#: modules exposing ``definitions() -> list[AxiomDef]``, loaded in order on first use
FAMILY_MODULES: tuple[str, ...] = ("axiomatic.axioms.catalogue",)

_DEFAULT: list[Catalogue] = []


def default_catalogue() -> Catalogue:
    """The catalogue built from :data:`FAMILY_MODULES` (on first use, then kept)."""
    if not _DEFAULT:
        cat = Catalogue()
        for mod in FAMILY_MODULES:
            for d in importlib.import_module(mod).definitions():
                cat.register(d)
        _DEFAULT.append(cat)
    return _DEFAULT[0]


def register(definition: AxiomDef, *, replace: bool = False) -> AxiomDef:
    """Add ``definition`` to the default catalogue (at call time, never at import)."""
    return default_catalogue().register(definition, replace=replace)


def get_definition(name: str) -> AxiomDef:
    """The catalogue entry for ``name`` (case, ``-`` and ``_`` insensitive: ``m_tdc`` = M-TDC)."""
    return default_catalogue().get(name)


def list_axioms(relates: str | None = None) -> list[dict[str, Any]]:
    """One row per axiom: name, family, relates, arity, relation, variants, params (name ->
    default), parameters (the records of :meth:`AxiomDef.param_info`: name, type, default,
    range, description), citation, ...; ``relates`` (:data:`DOCUMENTS` or :data:`QUERIES`)
    keeps the axioms of one kind."""
    if relates is not None and relates not in RELATES:
        raise ValueError(
            f"unknown kind {relates!r}; an axiom relates one of {list(RELATES)}"
            + suggest(relates, RELATES, loose=True)
        )
    rows = []
    for d in default_catalogue():
        if relates is not None and d.relates != relates:
            continue
        params: dict[str, Any] = {"variant": d.default_variant} if d.variants else {}
        if d.length:
            params.update({"delta": "0 (strict/extended)", "delta_rel": "0.1 (relaxed)"})
        params.update({k: v for k, v in d.params.items() if not k.startswith("_")})
        rows.append(
            {
                "name": d.name,
                "family": d.family,
                "relates": d.relates,
                "arity": d.arity,
                "relation": d.relation,
                "variants": list(d.variants),
                "params": params,
                "parameters": param_dicts(d.param_info()),
                "needs": list(d.needs),
                "citation": d.citation,
                "description": d.description,
            }
        )
    return rows


# ---------------------------------------------------------------------- the built-in entries
def definitions() -> list[AxiomDef]:
    """Every built-in definition (thesis axioms first, then the ir_axioms family, then ARES'
    query-pair axioms)."""
    from axiomatic.axioms.kernels import aspects as A
    from axiomatic.axioms.kernels import length as L
    from axiomatic.axioms.kernels import proximity as P
    from axiomatic.axioms.kernels import semantic as S
    from axiomatic.axioms.kernels import term_frequency as T

    pair, triple = PairAxiomDef, TripleAxiomDef
    TF, LN, LB, PX, SM, QA, _QP = FAMILIES
    return [
        # --- the thesis axioms (Rennings 2019, ch. 3): strict / extended / relaxed
        pair(
            name="TFC1",
            family=TF,
            relation=">",
            variants=THESIS_VARIANTS,
            default_variant="relaxed",
            description="favour the document with more query-term occurrences (equal length)",
            citation=f"{FANG04}; {THESIS} eqs. 3.1-3.3",
            kernel=T.tfc1,
            preferences_kernel=T.tfc1_preferences,
        ),
        triple(
            name="TFC2",
            family=TF,
            relation="diff>",
            variants=THESIS_VARIANTS,
            default_variant="relaxed",
            description="the score gain of one more query-term occurrence shrinks as the count "
            "grows",
            citation=f"{FANG04}; {THESIS} eqs. 3.4-3.6",
            kernel=T.tfc2,
        ),
        pair(
            name="M-TDC",
            family=TF,
            relation=">=",
            variants=THESIS_VARIANTS,
            default_variant="relaxed",
            description="favour occurrences of the rarer query term (counts swapped across "
            "documents)",
            citation=f"{SHI05}; {THESIS} eqs. 3.7-3.9",
            kernel=T.m_tdc,
            preferences_kernel=T.m_tdc_preferences,
        ),
        pair(
            name="LNC2",
            family=LN,
            relation=">=",
            variants=THESIS_VARIANTS,
            default_variant="relaxed",
            description="a document concatenated k times must not score lower than the original",
            citation=f"{FANG11}; {THESIS} eqs. 3.10-3.12",
            kernel=L.lnc2,
            length=False,
        ),
        # --- term frequency
        pair(
            name="TFC3",
            family=TF,
            relation=">",
            variants=FAMILY_VARIANTS,
            default_variant="relaxed",
            description="covering more distinct (equally rare) query terms beats repeating one",
            citation=f"{FANG04}; {IRAX}",
            kernel=T.tfc3,
            preferences_kernel=T.tfc3_preferences,
            params={"idf_margin": 0.1},
            param_docs={
                "idf_margin": "relative tolerance within which two query terms' idf count as equal (equally rare terms)"
            },
        ),
        pair(
            name="TDC",
            family=TF,
            relation=">",
            variants=FAMILY_VARIANTS,
            default_variant="relaxed",
            description="with equal query-term mass, favour occurrences of rarer query terms",
            citation=FANG04,
            kernel=T.tdc,
            ours="multi-term form: idf-weighted count comparison",
        ),
        # --- length normalisation
        pair(
            name="LNC1",
            family=LN,
            relation=">",
            variants=ONE,
            default_variant="extended",
            description="with (nearly) equal query-term counts, prefer the shorter document",
            citation=f"{FANG04}; {IRAX}",
            kernel=L.lnc1,
            preferences_kernel=L.lnc1_preferences,
            params={"margin": 0.1},
            param_docs={
                "margin": "relative tolerance within which each query term's counts in the two documents count as equal"
            },
            length=False,
        ),
        pair(
            name="TF-LNC",
            family=LN,
            relation=">",
            variants=ONE,
            default_variant="extended",
            description="more query-term occurrences at equal length without them",
            citation=f"{FANG04}; {IRAX}",
            kernel=L.tf_lnc,
            preferences_kernel=L.tf_lnc_preferences,
            length=False,
        ),
        # --- lower bounds and the base ranking
        pair(
            name="LB1",
            family=LB,
            relation=">",
            variants=ONE,
            default_variant="extended",
            description="among similarly scored documents, prefer the one with a query term the "
            "other lacks",
            citation=f"{LV11}; {IRAX}",
            kernel=T.lb1,
            preferences_kernel=T.lb1_preferences,
            params={"margin": 0.1},
            param_docs={
                "margin": "relative tolerance within which the two documents' base scores count as close"
            },
            length=False,
            needs=("scores",),
        ),
        pair(
            name="ORIG",
            family=LB,
            relation=">",
            variants=ONE,
            default_variant="extended",
            description="the base ranking: prefer the higher base score",
            citation=f"{HAGEN16}; {IRAX}",
            kernel=T.orig,
            length=False,
            needs=("scores",),
        ),
        pair(
            name="LB2",
            family=LB,
            relation=">",
            variants=FAMILY_VARIANTS,
            default_variant="relaxed",
            description="the first occurrence of a missing query term is worth more than a "
            "repeated one",
            citation=LV11,
            kernel=T.lb2,
            params={"idf_margin": 0.1},
            param_docs={
                "idf_margin": "relative tolerance within which two query terms' idf count as equal"
            },
            ours="pairwise form on real documents",
        ),
        # --- semantic matching
        pair(
            name="STMC1",
            family=SM,
            relation=">",
            variants=ONE,
            default_variant="extended",
            description="prefer documents whose terms are more similar to the query terms",
            citation=f"{FANG06}; {IRAX}",
            kernel=S.stmc1,
            preferences_kernel=S.stmc1_preferences,
            length=False,
            needs=("similarity",),
        ),
        pair(
            name="STMC2",
            family=SM,
            relation=">",
            variants=ONE,
            default_variant="extended",
            description="an exact query-term match beats proportionally many matches of a "
            "similar term",
            citation=f"{FANG06}; {IRAX}",
            kernel=S.stmc2,
            preferences_kernel=S.stmc2_preferences,
            params={"margin": 0.2},
            param_docs={
                "margin": "relative tolerance of the ratio test: |d_j| / |d_i| against c(t*, d_j) / c(q*, d_i)"
            },
            length=False,
            needs=("similarity",),
            ours="ratio test on the most similar (query, non-query) pair",
        ),
        pair(
            name="STMC3",
            family=SM,
            relation=">",
            variants=FAMILY_VARIANTS,
            default_variant="relaxed",
            description="softly covering more query terms (exactly or by similar terms) is better",
            citation=FANG06,
            kernel=S.stmc3,
            params={"threshold": 0.5},
            param_docs={
                "threshold": "similarity at or above which a document term softly covers a query term"
            },
            needs=("similarity",),
            ours="soft coverage with a similarity threshold",
        ),
        # --- proximity
        pair(
            name="PROX1",
            family=PX,
            relation=">",
            variants=ONE,
            default_variant="extended",
            description="query terms closer together (first occurrences)",
            citation=f"{TAO07}; {IRAX}",
            kernel=P.prox1,
            preferences_kernel=P.prox1_preferences,
            length=False,
            needs=("positions",),
        ),
        pair(
            name="PROX2",
            family=PX,
            relation=">",
            variants=ONE,
            default_variant="extended",
            description="query terms occur earlier",
            citation=f"{TAO07}; {IRAX}",
            kernel=P.prox2,
            preferences_kernel=P.prox2_preferences,
            length=False,
            needs=("positions",),
        ),
        pair(
            name="PROX3",
            family=PX,
            relation=">",
            variants=ONE,
            default_variant="extended",
            description="the query occurs as a phrase, earlier",
            citation=f"{HAGEN16}; {IRAX}",
            kernel=P.prox3,
            preferences_kernel=P.prox3_preferences,
            length=False,
            needs=("positions",),
        ),
        pair(
            name="PROX4",
            family=PX,
            relation=">",
            variants=ONE,
            default_variant="extended",
            description="fewer non-query words inside the closest query-term grouping",
            citation=f"{HAGEN16}; {IRAX}",
            kernel=P.prox4,
            preferences_kernel=P.prox4_preferences,
            length=False,
            needs=("positions",),
        ),
        pair(
            name="PROX5",
            family=PX,
            relation=">",
            variants=ONE,
            default_variant="extended",
            description="smaller average span of query-term groups",
            citation=f"{HAGEN16}; {IRAX}",
            kernel=P.prox5,
            preferences_kernel=P.prox5_preferences,
            length=False,
            needs=("positions",),
        ),
        # --- query aspects (REG needs term similarity)
        pair(
            name="REG",
            family=QA,
            relation=">",
            variants=FAMILY_VARIANTS,
            default_variant="relaxed",
            description="more occurrences of the query term that forms its own aspect (least "
            "similar)",
            citation=f"{ZHENG10}; {IRAX}",
            kernel=S.reg,
            preferences_kernel=S.reg_preferences,
            needs=("similarity",),
        ),
        pair(
            name="AND",
            family=QA,
            relation=">",
            variants=ONE,
            default_variant="extended",
            description="contains all query terms",
            citation=f"{ZHENG10}; {IRAX}",
            kernel=A.and_,
            preferences_kernel=A.and_preferences,
            length=False,
        ),
        pair(
            name="LEN-AND",
            family=QA,
            relation=">",
            variants=("relaxed",),
            default_variant="relaxed",
            description="AND for documents of similar length",
            citation=f"{ZHENG10}; {IRAX}",
            kernel=A.and_,
            preferences_kernel=A.and_preferences,
        ),
        pair(
            name="M-AND",
            family=QA,
            relation=">",
            variants=ONE,
            default_variant="extended",
            description="contains more distinct query terms",
            citation=IRAX,
            kernel=A.m_and,
            preferences_kernel=A.m_and_preferences,
            length=False,
        ),
        pair(
            name="LEN-M-AND",
            family=QA,
            relation=">",
            variants=("relaxed",),
            default_variant="relaxed",
            description="M-AND for documents of similar length",
            citation=IRAX,
            kernel=A.m_and,
            preferences_kernel=A.m_and_preferences,
        ),
        pair(
            name="DIV",
            family=QA,
            relation=">",
            variants=ONE,
            default_variant="extended",
            description="smaller vocabulary overlap with the query (diversity)",
            citation=f"{GOLLAPUDI09}; {IRAX}",
            kernel=A.div,
            preferences_kernel=A.div_preferences,
            length=False,
            needs=("vocabulary",),
        ),
        pair(
            name="LEN-DIV",
            family=QA,
            relation=">",
            variants=("relaxed",),
            default_variant="relaxed",
            description="DIV for documents of similar length",
            citation=f"{GOLLAPUDI09}; {IRAX}",
            kernel=A.div,
            preferences_kernel=A.div_preferences,
            needs=("vocabulary",),
        ),
        # --- ARES' query-pair axioms (two queries for one document)
        *query_pair_definitions(),
    ]


def query_pair_definitions() -> list[AxiomDef]:
    """The nine adaptive axioms of ARES' Table 1 (Chen et al. 2022), in the paper's order:
    two queries for one document (``<q1, q2, d>``), names prefixed ``Q-`` (``Q-REG`` is not
    ``REG``), computed on a :class:`~axiomatic.axioms.query_pairs.QueryPairContext`."""
    from axiomatic.axioms.kernels import queries as Q

    c = CHEN22

    def q(
        name: str,
        score: str,
        higher: bool,
        description: str,
        citation: str,
        params: Mapping[str, Any] | None = None,
        needs: tuple[str, ...] = (),
        kernel: QueryPairKernel = Q.compare_scores,
    ) -> QueryPairAxiomDef:
        return QueryPairAxiomDef(
            name=name,
            family=FAMILIES[-1],
            description=description,
            citation=citation,
            params=dict(params or {}),
            param_docs={k: QUERY_PAIR_PARAM_DOCS[name, k] for k in params or {}},
            param_ranges={k: QUERY_PAIR_PARAM_RANGES.get(k, _AT_LEAST_0) for k in params or {}},
            needs=needs,
            check=Q.check_params,
            kernel=kernel,
            score=score,
            higher_is_better=higher,
        )

    return [
        q(
            "Q-RANK", "rank", False,
            "prefer the query under which BM25 ranks d higher in the whole corpus (+inf "
            "beyond depth)", f"{c}; sec. 3.2.1", {"depth": 50, "k1": 0.9, "b": 0.4}, ("corpus",),
        ),
        q(
            "Q-REP-QL", "rep_ql", True,
            "prefer the query with the higher length-normalized Dirichlet query likelihood",
            f"{c}; sec. 3.2.2", {"mu": 1000.0},
        ),
        q(
            "Q-REP-TFIDF", "rep_tfidf", True,
            "prefer the query with the higher length-normalized TF-IDF score", f"{c}; sec. 3.2.2",
        ),
        q(
            "Q-PROX-1", "prox1", False,
            "prefer the query whose terms occur closer to each other in d (eq. 1)",
            f"{c}; sec. 3.2.3, eq. 1", needs=("positions",),
        ),
        q(
            "Q-PROX-2", "prox2", False,
            "prefer the query whose terms first occur earlier in d (eq. 2)",
            f"{c}; sec. 3.2.3, eq. 2", needs=("positions",),
        ),
        q(
            "Q-REG", "reg", True,
            "prefer the query whose most diverse term occurs more often in d",
            f"{c}; sec. 3.2.4; Wu & Fang 2012", needs=("embeddings",),
        ),
        q(
            "Q-STM-1", "stm1", True,
            "prefer the query semantically closer to d (mean word vectors)",
            f"{c}; sec. 3.2.5; Fang & Zhai 2006", needs=("embeddings",),
        ),
        q(
            "Q-STM-2", "stm2", True,
            "when the Q-STM-1 similarities differ by less than threshold, prefer the query with "
            "more terms in d", f"{c}; sec. 3.2.5", {"threshold": 0.02}, ("embeddings",),
            kernel=Q.stm2,
        ),
        q(
            "Q-STM-3", "stm3", True,
            "prefer the query with more terms whose similarity to d exceeds threshold",
            f"{c}; sec. 3.2.5", {"threshold": 0.35}, ("embeddings",),
        ),
    ]  # fmt: skip
