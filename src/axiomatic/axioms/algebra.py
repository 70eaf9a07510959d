"""Axiom algebra: combinations of axioms with ir_axioms' operators, on preference matrices.

Users of ir_axioms combine axioms with Python operators; the same meanings here, on the
per-query ``int8[n, n]`` preference matrices of the engine (array operations only, never a
Python loop over pairs):

===========  ==========================================================================
``A & B``    conjunction: +1 where every operand prefers +1, -1 where every one prefers -1,
             else 0 (decisive only where all agree)
``A | B``    cascade: the first operand with a non-zero preference decides (``TFC1 | ORIG``)
``A % B``    majority vote: the side with more votes wins if it has at least ``ceil(k/2)``
             of the ``k`` votes (a tie is 0); ``A % B % C`` is one vote of three
``A + B``    sum of the preferences (``A - B`` = ``A + -B``); ``0.5 * A`` weights one
``-A``       negation (flips every preference); ``+A``: sign normalization
===========  ==========================================================================

Intermediate values are kept raw (a sum can be 2.5) exactly as ir_axioms does; a combination
used as an axiom is then sign-normalized (``+(...)`` in ir_axioms) to the ternary preferences
every consumer (mining, diagnosis, re-ranking) expects, with the diagonal cleared. Chains
flatten like ir_axioms' Python objects: ``A & B & C`` is one conjunction, ``A % B % C`` one
vote of three, while ``A % (B % C)`` votes between ``A`` and the vote of ``B`` and ``C``.
ir_axioms' product of two axioms (``A * B``) is refused: it is not antisymmetric (``A * A``
prefers both documents of a pair, as ir_axioms' own docstring warns), so it is no axiom any
consumer here could use; a number times an axiom is a weight.

Strings are parsed with :mod:`ast` (never ``eval``): ``"TFC1 & LNC1"``,
``"(TFC1 | ORIG) % PROX1"``, ``"0.5*TFC1 + 2*LNC1(variant='extended')"``. Hyphenated axiom
names (``M-TDC``, ``TF-LNC``) are names, not subtractions; a subtraction needs an operand that
is no axiom name on one side (``TFC1-LNC1`` subtracts: ``TFC1-LNC1`` names no axiom).

ARES' query-pair axioms (``Q-*``, two queries for one document) combine with the same operators
and meanings on their per-pair preference vectors (``"Q-REP-QL + 0.5*Q-PROX-1"``); one
expression combines axioms of one kind (:meth:`Combination.build
<axiomatic.axioms.spec.Combination.build>` refuses a mix, so a mixed string fails when parsed).

The value object (:class:`axiomatic.axioms.spec.Combination`) lives with :class:`Axiom` so that
a combination *is* an axiom spec; this module holds the parser and the evaluation and imports
nothing of the spec module (leaves are built by callables the spec module hands in).
"""

from __future__ import annotations

import ast
import itertools
import math
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from axiomatic._suggest import suggest
from axiomatic.axioms.catalogue import (
    QUERIES,
    AxiomDef,
    PairAxiomDef,
    QueryPairAxiomDef,
    get_definition,
    list_axioms,
)

__all__ = [
    "OPERATORS",
    "combination_definition",
    "evaluate",
    "is_expression",
    "make_node",
    "parse_expression",
    "render",
]

#: operator -> (symbol, meaning): what ``axiomatic axioms`` and the docs list
OPERATORS: dict[str, tuple[str, str]] = {
    "and": ("A & B", "decisive only where all operands agree (else no preference)"),
    "or": ("A | B", "cascade: the first decisive operand wins (e.g. TFC1 | ORIG)"),
    "vote": ("A % B % C", "majority vote (ties and minorities: no preference)"),
    "sum": ("0.5*A + 2*B", "weighted sum, sign-normalized (A - B = A + -B)"),
    "neg": ("-A", "negation: every preference flipped"),
    "norm": ("+A", "sign normalization"),
}

_EXAMPLE = "(TFC1 | ORIG) % PROX1"
_PREC = {"or": 1, "and": 3, "sum": 5, "scale": 6, "vote": 6, "neg": 7, "norm": 7}
_FLATTEN = {"and", "or", "sum"}  # associative: nested chains are one node
_HYPHENATED = re.compile(r"(?<![\w.])[A-Za-z_]\w*(?:-\w+)+")
_WORD = re.compile(r"[A-Za-z_]\w*")
_QUOTED = re.compile(r"'[^']*'|\"[^\"]*\"")


# ---------------------------------------------------------------------- nodes
def _op(node: Any) -> str:
    return getattr(node, "op", "axiom")


def make_node(op: str, operands: Sequence[Any], weight: float = 1.0) -> tuple[str, tuple, float]:
    """``(op, operands, weight)`` with ir_axioms' chaining: an associative operator absorbs a
    nested node of the same operator; a vote absorbs a vote on its *left* only (``A % B % C``
    is one vote of three, ``A % (B % C)`` is not)."""
    flat: list[Any] = []
    for k, o in enumerate(operands):
        if _op(o) == op and (op in _FLATTEN or (op == "vote" and k == 0)):
            flat.extend(o.operands)
        else:
            flat.append(o)
    return op, tuple(flat), float(weight)


# ---------------------------------------------------------------------- evaluation
def evaluate(node: Any, leaf_matrix: Callable[[Any], np.ndarray]) -> np.ndarray:
    """``float64[n, n]`` raw values of ``node`` (ir_axioms' meaning of each operator).

    ``leaf_matrix(axiom)`` gives a single axiom's preference matrix; it is called at most once
    per distinct leaf, and a cascade stops asking once every pair is decided.
    """
    memo: dict[Any, np.ndarray] = {}

    def leaf(a: Any) -> np.ndarray:
        if a not in memo:
            memo[a] = np.asarray(leaf_matrix(a), dtype=np.float64)
        return memo[a]

    def ev(x: Any) -> np.ndarray:
        op = _op(x)
        if op == "axiom":
            return leaf(x)
        kids = x.operands
        if op == "or":
            out = ev(kids[0]).copy()
            for k in kids[1:]:
                undecided = out == 0
                if undecided.ndim == 2:  # a matrix (documents); query pairs come as vectors
                    np.fill_diagonal(undecided, False)
                if not undecided.any():
                    break
                out[undecided] = ev(k)[undecided]
            return out
        if op in ("neg", "scale", "norm"):
            v = ev(kids[0])
            return -v if op == "neg" else x.weight * v if op == "scale" else np.sign(v)
        stack = np.stack([ev(k) for k in kids])
        if op == "sum":
            return stack.sum(axis=0)
        if op == "and":
            return np.asarray((stack > 0).all(axis=0), np.float64) - (stack < 0).all(axis=0)
        if op == "vote":
            need = math.ceil(0.5 * len(kids))
            pos, neg = (stack > 0).sum(axis=0), (stack < 0).sum(axis=0)
            return ((pos > neg) & (pos >= need)).astype(np.float64) - ((neg > pos) & (neg >= need))
        raise ValueError(f"unknown operator {op!r} in an axiom combination")

    return ev(node)


def preferences(node: Any, leaf_matrix: Callable[[Any], np.ndarray]) -> np.ndarray:
    """``int8[n, n]``: the sign-normalized combination, diagonal cleared (a document is never
    compared with itself)."""
    out = np.sign(evaluate(node, leaf_matrix)).astype(np.int8)
    np.fill_diagonal(out, 0)
    return out


# ---------------------------------------------------------------------- rendering
def _number(w: float) -> str:
    """A weight written exactly: the short ``%g`` form when it reads back to the same float
    (``0.5``, ``2``), else ``repr`` (the shortest string that does: ``1.0000001``); infinite
    weights as ``1e999`` (a literal that parses to inf). Rendering and parsing round-trip."""
    w = float(w)
    if math.isinf(w):
        return "1e999" if w > 0 else "-1e999"
    short = f"{w:g}"
    return short if float(short) == w else repr(w)


def render(node: Any, leaf: Callable[[Any], str]) -> str:
    """The expression as a string that parses back to the same combination (``leaf(axiom)``
    writes a single axiom: its short name or its full spec)."""
    op = _op(node)
    if op == "axiom":
        return leaf(node)
    p = _PREC[op]

    def sub(x: Any, strict: bool = False) -> str:
        s = render(x, leaf)
        q = _PREC.get(_op(x), 9)
        return f"({s})" if q < p or (q == p and (strict or _op(x) != op)) else s

    kids = node.operands
    if op == "neg":
        return "-" + sub(kids[0], strict=True)
    if op == "norm":
        return "+" + sub(kids[0], strict=True)
    if op == "scale":
        return f"{_number(node.weight)} * {sub(kids[0], strict=True)}"
    if op == "sum":
        out = sub(kids[0])
        for k in kids[1:]:
            if _op(k) == "neg":
                out += " - " + sub(k.operands[0], strict=True)
            else:
                out += " + " + sub(k)
        return out
    sym = {"and": " & ", "or": " | ", "vote": " % "}[op]
    first = sub(kids[0], strict=op == "vote" and _op(kids[0]) == "vote")
    return sym.join([first] + [sub(k, strict=True) for k in kids[1:]])


# ---------------------------------------------------------------------- parsing
def _mask_quotes(text: str) -> str:
    return _QUOTED.sub(lambda m: "_" * len(m.group()), text)


def _is_name(word: str) -> bool:
    try:
        get_definition(word)
    except (KeyError, ValueError):
        return False
    return True


def _protect_names(text: str) -> tuple[str, dict[str, str]]:
    """Replace hyphenated axiom names (``M-TDC``, ``Q-PROX-1``) by placeholders so that ``-`` is
    subtraction only between operands; an unknown hyphenated word whose parts are no axioms is
    an error naming the close catalogue matches.

    A hyphenated word is cut at its longest prefix that names an axiom (``Q-PROX-1-0.5*Q-REG``
    is ``Q-PROX-1`` minus ``0.5*Q-REG``); a part after a hyphen may start with a digit only
    inside a name (``PROX1-0.5*TFC1`` subtracts)."""
    masked = _mask_quotes(text)
    names: dict[str, str] = {}
    out, last, pos = [], 0, 0
    while (m := _HYPHENATED.search(masked, pos)) is not None:
        parts = text[m.start() : m.end()].split("-")
        prefix = next(
            (
                "-".join(parts[:k])
                for k in range(len(parts), 1, -1)
                if _is_name("-".join(parts[:k]))
            ),
            None,
        )
        if prefix is not None:
            key = f"__ax{len(names)}__"
            names[key] = prefix
            out += [text[last : m.start()], key]
            last = pos = m.start() + len(prefix)
            continue
        words = list(itertools.takewhile(lambda p: _WORD.fullmatch(p) is not None, parts))
        if len(words) > 1 and not all(_is_name(p) for p in words):
            word = "-".join(words)
            raise ValueError(
                f"unknown axiom {word!r}"
                + suggest(word, [r["name"] for r in list_axioms()], loose=True)
                + "; a subtraction of axioms is written with spaces: 'A - B'"
            )
        pos = m.end()
    out.append(text[last:])
    return "".join(out), names


def is_expression(text: str) -> bool:
    """Whether ``text`` combines axioms (an operator outside parentheses, or a leading
    parenthesis) rather than naming one axiom like ``"TFC1(delta_rel=0.1)"``."""
    s = text.strip()
    if s.startswith(("(", "-", "+")):
        return True
    try:
        s, _ = _protect_names(s)
    except ValueError:
        return True  # a hyphenated unknown name: let the expression parser report it
    depth = 0
    for ch in _mask_quotes(s):
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif depth == 0 and ch in "&|%+-*/":
            return True
    return False


def parse_expression(
    text: str,
    parse_leaf: Callable[[str], Any],
    build: Callable[[str, Sequence[Any], float], Any],
) -> Any:
    """Parse an axiom expression; ``parse_leaf`` parses one axiom string, ``build(op,
    operands, weight)`` makes a node. Raises ``ValueError`` naming what is not allowed, and for
    an expression longer or deeper than the spec bounds of :mod:`axiomatic._keyvalue` (the
    parse and the walks below recurse once per level)."""
    from axiomatic._keyvalue import as_number, check_spec_size

    check_spec_size(text.strip(), "axiom expression")
    src, names = _protect_names(text.strip())
    try:
        tree = ast.parse(src, mode="eval")
    except SyntaxError as exc:
        raise ValueError(
            f"cannot parse axiom expression {text!r}: {exc.msg} (at character "
            f"{exc.offset}); expected e.g. {_EXAMPLE!r}"
        ) from None

    def restore(s: str) -> str:
        for k, v in names.items():
            s = s.replace(k, v)
        return s

    def number(n: ast.AST) -> float | None:
        if isinstance(n, ast.Constant) and isinstance(n.value, (int, float)):
            if isinstance(n.value, bool):
                return None
            seg = restore(ast.get_source_segment(src, n) or "")
            return as_number(n.value, what=f"axiom expression {text!r}: the weight {seg!r}")  # type: ignore[no-any-return]
        if isinstance(n, ast.UnaryOp) and isinstance(n.op, (ast.USub, ast.UAdd)):
            v = number(n.operand)
            return None if v is None else (-v if isinstance(n.op, ast.USub) else v)
        if isinstance(n, ast.BinOp) and isinstance(n.op, ast.Mult):  # 2 * 0.5 * TFC1
            a, b = number(n.left), number(n.right)
            if a is None or b is None:
                return None
            seg = restore(ast.get_source_segment(src, n) or "")
            return as_number(a * b, what=f"axiom expression {text!r}: the weight {seg!r}")  # type: ignore[no-any-return]
        return None

    def bad(n: ast.AST, why: str) -> ValueError:
        seg = restore(ast.get_source_segment(src, n) or "")
        return ValueError(
            f"axiom expression {text!r}: {why} in {seg!r}; allowed are axioms "
            "(TFC1, LNC1(variant='extended')), the operators & | % + - and unary -/+, "
            f"numbers as weights (0.5*TFC1) and parentheses, e.g. {_EXAMPLE!r}"
        )

    def walk(n: ast.AST) -> Any:
        if isinstance(n, (ast.Name, ast.Call)):
            if isinstance(n, ast.Call) and not isinstance(n.func, ast.Name):
                raise bad(n, "not an axiom call")
            return parse_leaf(restore(ast.get_source_segment(src, n) or ""))
        if isinstance(n, ast.UnaryOp) and isinstance(n.op, (ast.USub, ast.UAdd)):
            if number(n) is not None:
                raise bad(n, "a number alone is no axiom (use it as a weight: 0.5*TFC1)")
            return build("neg" if isinstance(n.op, ast.USub) else "norm", [walk(n.operand)], 1.0)
        if isinstance(n, ast.BinOp):
            if isinstance(n.op, (ast.Mult, ast.Div)):
                wl, wr = number(n.left), number(n.right)
                if isinstance(n.op, ast.Div):
                    if wr is None or wl is not None:
                        raise bad(n, "only division by a number is allowed")
                    if wr == 0:
                        raise bad(n, "division by zero")
                    seg = restore(ast.get_source_segment(src, n.right) or "")
                    w = as_number(1.0 / wr, what=f"axiom expression {text!r}: 1 / {seg}")
                    return build("scale", [walk(n.left)], w)
                if wl is not None and wr is not None:
                    raise bad(n, "a number alone is no axiom (use it as a weight: 0.5*TFC1)")
                if wl is not None:
                    return build("scale", [walk(n.right)], wl)
                if wr is not None:
                    return build("scale", [walk(n.left)], wr)
                raise bad(
                    n,
                    "a product of two axioms is not antisymmetric (A * A prefers both "
                    "documents of a pair), so it is no axiom; multiply by a number to weight",
                )
            ops: dict[type, str] = {ast.BitAnd: "and", ast.BitOr: "or", ast.Mod: "vote"}
            if isinstance(n.op, (ast.Add, ast.Sub)):
                right = walk(n.right)
                if isinstance(n.op, ast.Sub):
                    right = build("neg", [right], 1.0)
                return build("sum", [walk(n.left), right], 1.0)
            if type(n.op) in ops:
                return build(ops[type(n.op)], [walk(n.left), walk(n.right)], 1.0)
            raise bad(n, f"operator {type(n.op).__name__} is not an axiom operator")
        if number(n) is not None:
            raise bad(n, "a number alone is no axiom (use it as a weight: 0.5*TFC1)")
        raise bad(n, f"{type(n).__name__} is not allowed")

    return walk(tree.body)


# ---------------------------------------------------------------------- catalogue view
def combination_definition(node: Any, name: str) -> AxiomDef:
    """A catalogue-style entry for a combination (family ``combination``, no length
    precondition of its own: the operands apply theirs), of the kind its leaves relate.

    Documents: relation ``>``; its kernel slices the combined preference matrix, so the
    engine's ``holds`` works on a combination as on any pair axiom. Queries: its kernel
    combines the leaves' query-pair preferences (a vector over the pairs ``(i[k], j[k])``) and
    sign-normalizes them, as :func:`preferences` does for a matrix."""
    if node.relates == QUERIES:

        def query_kernel(ctx: Any, axiom: Any, i: np.ndarray, j: np.ndarray) -> np.ndarray:
            """Sign of the combined leaf preferences of the query pairs ``(i[k], j[k])``."""
            values = evaluate(node, lambda a: a.definition.kernel(ctx, a, i, j))
            return np.sign(values).astype(np.int8)

        return QueryPairAxiomDef(
            name=name,
            family="combination",
            description="combination of query-pair axioms (ir_axioms operators)",
            citation="ir_axioms (Bondarenko et al., 2022) axiom arithmetic",
            kernel=query_kernel,
            score="",
            higher_is_better=True,
        )

    def kernel(ctx: Any, variant: str, params: Mapping[str, Any], rows: slice) -> np.ndarray:
        return np.asarray(ctx.cache(("combination", node), lambda: node.preferences(ctx)) > 0)[rows]

    return PairAxiomDef(
        name=name,
        family="combination",
        relation=">",
        variants=("combined",),
        default_variant="combined",
        description="combination of axioms (ir_axioms operators)",
        citation="ir_axioms (Bondarenko et al., 2022) axiom arithmetic",
        length=False,
        kernel=kernel,
    )
