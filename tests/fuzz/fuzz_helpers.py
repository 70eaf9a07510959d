"""Shared machinery of the reader fuzz tests: profiles, file mutations, the "only our errors" check.

Profiles (hypothesis settings, registered here, applied per test with ``@FUZZ``):

- ``axiomatic-ci`` (default): 50 examples per reader, derandomized, so that CI stays fast and
  stable;
- ``axiomatic-fuzz``: 1,000 examples per reader, random seed: the measurement run. Select it with
  ``AXIOMATIC_FUZZ=1`` or ``HYPOTHESIS_PROFILE=fuzz`` (``AXIOMATIC_FUZZ_EXAMPLES=N`` overrides the
  count), e.g. ``AXIOMATIC_FUZZ=1 pytest tests/fuzz --hypothesis-show-statistics``.

Every generated file is a *valid* file of the reader's format (drawn from a structured strategy)
put through 0-4 mutations: truncation, random bytes, deleted / duplicated / swapped lines, wrong
column counts, bad numbers (``inf``, ``1e400``, ``1_0``, ``'１'`` ...), invalid UTF-8, and for
``.gz`` names: gzip of the content, truncated or corrupted gzip streams, gzip of garbage, a plain
file named ``.gz``, or the content followed by a gzip bomb (17-40 MiB of line ends, whitespace
lines or one endless line in ~1 KB per MiB). :func:`check_reader` asserts that the reader either returns or raises one of
*our* errors (:class:`axiomatic.data.errors.DataError`: ``ParseError`` and friends) whose message
names the file, and that every :class:`~axiomatic.data.errors.DataWarning` names it too. Anything
else escaping (``KeyError``, ``TypeError``, ``EOFError``, ``RecursionError`` ...) fails the test.
"""

from __future__ import annotations

import gzip
import json
import os
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, event, settings
from hypothesis import strategies as st

from axiomatic.data.errors import DataError, DataWarning

_COMMON = dict(
    deadline=None,
    suppress_health_check=[
        HealthCheck.function_scoped_fixture,
        HealthCheck.too_slow,
        HealthCheck.data_too_large,
        HealthCheck.filter_too_much,
    ],
)
settings.register_profile("axiomatic-ci", max_examples=50, derandomize=True, **_COMMON)
settings.register_profile(
    "axiomatic-fuzz",
    max_examples=int(os.environ.get("AXIOMATIC_FUZZ_EXAMPLES", "1000")),
    database=None,
    **_COMMON,
)

FUZZ_ON = os.environ.get("AXIOMATIC_FUZZ", "") not in ("", "0") or os.environ.get(
    "HYPOTHESIS_PROFILE"
) in ("fuzz", "axiomatic-fuzz")
PROFILE = "axiomatic-fuzz" if FUZZ_ON else "axiomatic-ci"
FUZZ = settings(settings.get_profile(PROFILE))

# ------------------------------------------------------------------------------------ values
BAD_NUMBERS = [
    "inf", "-inf", "Infinity", "nan", "NaN", "1e400", "-1e400", "1_0", "1_000.5", "\uff11",
    "\u0663", "1e23", "2147483648", "-2147483648", "9" * 40, "0x1F", "", "-", "+", ".", "1.5",
    "1e", "--1", "true", "null", "[]", "{}", '""', "1,5", "1" + "0" * 400, "-" + "9" * 400,
]  # fmt: skip
SPECIAL = [
    "<top>", "</top>", "<num>", "<title>", "<", ">", "<DOC>", "</DOC>", "<DOCNO>", ".I", ".W",
    ".T", "PN", "RN", "QN", "RD", "\t", "\r", "\x00", "\x1c", "\u2028", "\u00a0", '"', "'", ",",
    "[", "]", "{", "}", "\\",
]  # fmt: skip
INVALID_UTF8 = [b"\xff", b"\xfe", b"\xc3", b"\xe2\x82", b"\xed\xa0\x80", b"\xc0\xaf", b"\x80"]

ids = st.sampled_from(["1", "2", "3", "10", "q1", "d1", "a", "b", "c", "007", "x-y"])
words = st.text(
    alphabet=st.characters(blacklist_categories=("Cs",)), min_size=0, max_size=12
) | st.sampled_from(["alpha", "beta", "x<y", "a <b", "C<D", "caf\u00e9", "\u67e5\u8be2"])
texts = st.lists(words, max_size=5).map(" ".join)
_finite = st.floats(allow_nan=False, allow_infinity=False, width=64).map(repr)
scores = st.one_of(_finite, _finite, _finite, st.sampled_from(BAD_NUMBERS))  # 3:1 good:bad
_small = st.integers(-3, 5).map(str)
grades = st.one_of(_small, _small, _small, st.sampled_from(["1.0", *BAD_NUMBERS]))
good_grades = st.integers(0, 2).map(str)  # for valid templates; mutations bring the bad ones


# --------------------------------------------------------------------------------- mutations
def _lines(data: bytes) -> list[bytes]:
    return data.split(b"\n")


@st.composite
def mutate(draw: st.DrawFn, data: bytes, max_ops: int = 4) -> bytes:
    """Apply 0..max_ops random mutations to ``data``."""
    for _ in range(draw(st.integers(0, max_ops))):
        op = draw(
            st.sampled_from(
                [
                    "truncate", "insert", "overwrite", "delete_span", "token", "drop_token",
                    "add_token", "dup_line", "del_line", "swap_lines", "utf8", "special",
                ]
            )
        )  # fmt: skip
        n = len(data)
        if op == "truncate":
            data = data[: draw(st.integers(0, n))]
        elif op == "insert":
            i = draw(st.integers(0, n))
            data = data[:i] + draw(st.binary(min_size=1, max_size=8)) + data[i:]
        elif op == "overwrite" and n:
            i = draw(st.integers(0, n - 1))
            data = data[:i] + bytes([draw(st.integers(0, 255))]) + data[i + 1 :]
        elif op == "delete_span" and n:
            i = draw(st.integers(0, n - 1))
            data = data[:i] + data[i + draw(st.integers(1, 16)) :]
        elif op == "utf8":
            i = draw(st.integers(0, n))
            data = data[:i] + draw(st.sampled_from(INVALID_UTF8)) + data[i:]
        elif op == "special":
            i = draw(st.integers(0, n))
            data = data[:i] + draw(st.sampled_from(SPECIAL)).encode() + data[i:]
        elif op in ("token", "drop_token", "add_token"):
            lines = _lines(data)
            li = draw(st.integers(0, len(lines) - 1))
            sep = b"\t" if b"\t" in lines[li] else b" "
            toks = lines[li].split(sep)
            ti = draw(st.integers(0, len(toks) - 1))
            bad = draw(st.sampled_from(BAD_NUMBERS)).encode()
            if op == "token":
                toks[ti] = bad
            elif op == "drop_token":
                del toks[ti]
            else:
                toks.insert(ti, bad or b"x")
            lines[li] = sep.join(toks)
            data = b"\n".join(lines)
        elif op in ("dup_line", "del_line", "swap_lines"):
            lines = _lines(data)
            i = draw(st.integers(0, len(lines) - 1))
            j = draw(st.integers(0, len(lines) - 1))
            if op == "dup_line":
                lines.insert(j, lines[i])
            elif op == "del_line":
                del lines[i]
            else:
                lines[i], lines[j] = lines[j], lines[i]
            data = b"\n".join(lines)
    return data


@st.composite
def file_bytes(draw: st.DrawFn, valid: st.SearchStrategy[bytes]) -> bytes:
    """A valid file, a mutated one, or (rarely) pure random bytes."""
    kind = draw(st.sampled_from(["valid", "mutated", "mutated", "mutated", "random"]))
    if kind == "random":
        return draw(st.binary(max_size=200))
    data = draw(valid)
    return data if kind == "valid" else draw(mutate(data))


def _bomb(unit: bytes, mib: int) -> bytes:
    """``mib`` MiB of ``unit`` as gzip members (about 1 KB per MiB; a valid gzip stream)."""
    return gzip.compress(unit * ((1 << 20) // len(unit)), compresslevel=9, mtime=0) * mib


gzip_bombs = st.builds(
    _bomb, st.sampled_from([b"\n", b"x", b" \n", b"\r\n", b"\t"]), st.integers(17, 40)
)
"""Gzip members appended to a file: 17-40 MiB of line ends, one endless line, whitespace lines
(a 1000:1 bomb, refused by its ratio, its blank lines or its line length)."""


@st.composite
def gz_bytes(draw: st.DrawFn, valid: st.SearchStrategy[bytes]) -> bytes:
    """Content for a ``.gz`` name: gzip of a (mutated) file, a damaged gzip stream, gzip of
    garbage, or plain bytes that are not gzip at all."""
    data = draw(file_bytes(valid))
    kind = draw(
        st.sampled_from(["gzip", "gzip", "truncated", "corrupt", "garbage", "plain", "bomb"])
    )
    if kind == "plain":
        return data
    if kind == "bomb":
        return gzip.compress(data, mtime=0) + draw(gzip_bombs)
    if kind == "garbage":
        return gzip.compress(draw(st.binary(max_size=200)), mtime=0)
    packed = gzip.compress(data, mtime=0)
    if kind == "truncated":
        return packed[: draw(st.integers(0, len(packed) - 1))]
    if kind == "corrupt":
        i = draw(st.integers(0, len(packed) - 1))
        return packed[:i] + bytes([packed[i] ^ draw(st.integers(1, 255))]) + packed[i + 1 :]
    return packed


# JSON integer literals of every size: Python's json reads them exactly, so an integer beyond
# float range (10**400) reaches a reader that needs a float (an OverflowError must not escape)
json_ints = (
    st.integers(-(2**70), 2**70)
    | st.integers(-(10**400), 10**400)
    | st.sampled_from([10**400, -(10**400), 2**63, -(2**63) - 1, 2**64, 10**309, 2**1024])
)
json_leaves = (
    st.none()
    | st.booleans()
    | json_ints
    | st.floats()
    | st.text(max_size=8)
    | st.sampled_from(BAD_NUMBERS)
)
json_values = st.recursive(
    json_leaves,
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3)
    ),
    max_leaves=8,
)


@st.composite
def mutate_json(draw: st.DrawFn, value: Any, p: float = 0.15) -> Any:
    """``value`` with random subtrees replaced by random JSON values or removed (structure-aware
    mutation: the file stays valid JSON, its shape does not)."""
    if draw(st.floats(0, 1)) < p:
        return draw(json_values)
    if isinstance(value, dict):
        out = {}
        for k, v in value.items():
            if draw(st.floats(0, 1)) < p / 2:
                continue  # a missing key
            out[k] = draw(mutate_json(v, p))
        return out
    if isinstance(value, list):
        return [draw(mutate_json(v, p)) for v in value]
    return value


def json_file(template: st.SearchStrategy[Any]) -> st.SearchStrategy[bytes]:
    """Valid-by-template JSON, structurally mutated with a drawn intensity (0 keeps it valid),
    serialised (NaN/Infinity allowed: Python's ``json.dumps`` writes them and ``json.loads``
    reads them, so readers must cope)."""
    return template.flatmap(
        lambda v: st.sampled_from([0.0, 0.0, 0.03, 0.15]).flatmap(lambda p: mutate_json(v, p))
    ).map(lambda v: json.dumps(v, ensure_ascii=False).encode("utf-8"))


# ----------------------------------------------------------------------------------- checking
def check_reader(reader: Callable[[Path], Any], path: Path, names: str | None = None) -> Any:
    """Run ``reader(path)``; return its result, or ``None`` when it raised one of our errors.

    Our errors and warnings must name ``names`` (default: the path); any other exception escapes
    and fails the calling test.
    """
    where = str(path) if names is None else names
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            result = reader(path)
        except DataError as exc:
            assert where in str(exc), f"error does not name the file {where}: {exc}"
            event(f"outcome: {type(exc).__name__}")  # shown by --hypothesis-show-statistics
            return None
    event("outcome: read")
    for w in caught:
        if issubclass(w.category, DataWarning):
            assert where in str(w.message), f"warning does not name {where}: {w.message}"
    return result


def write(folder: Path, name: str, data: bytes) -> Path:
    p = folder / name
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_bytes(data)
    return p


def fresh(tmp_path: Path) -> Path:
    """A new empty folder per example (hypothesis reuses the function-scoped ``tmp_path``)."""
    import tempfile

    return Path(tempfile.mkdtemp(dir=tmp_path))
