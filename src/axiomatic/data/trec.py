"""TREC file formats: qrels, runs and topics (read and write).

Formats
-------
- qrels: ``query_id iteration doc_id relevance`` (whitespace separated; ``iteration`` is ignored,
  usually ``0`` or ``Q0``; relevance an integer, ``1.0``-style integral floats are accepted).
- run: ``query_id Q0 doc_id rank score tag`` (the score decides the order; rank is informational).
- topics: the SGML ``<top> <num> <title> [<desc> <narr>] </top>`` format, the XML format of
  newer tracks (``<topics><topic number="1"><query>..</query><description>..</description>
  </topic></topics>``) or tab-separated ``query_id<TAB>text`` (one topic per line).
  ``read_topics`` detects which.

Malformed lines raise :class:`~axiomatic.data.errors.ParseError` with ``file:line``, the value and
the expected shape, or, with ``skip_malformed=True``, are skipped with a
:class:`~axiomatic.data.errors.DataWarning`; the returned dict then carries ``.skipped`` (count)
and ``.skipped_lines``. Blank lines are ignored (there is no comment syntax: ``#`` may start an
id). What the readers reject (see docs/datasets.md, "What the readers reject"):

- numbers that ``int()``/``float()`` would accept but no TREC tool writes: ``inf``, ``nan``,
  overflowing ``1e400``, ``1_0``, non-ASCII digits (``'１'``); grades outside ``|g| < 2**31``;
- a duplicate ``(query_id, doc_id)`` line with a *different* score or grade (a silent "last one
  wins" changes the evaluation); an *identical* repeat is ignored and counted (``.duplicates``,
  one warning). The same holds for a topic id given twice;
- a file without any record (empty, blank, or every line skipped);
- an SGML ``<top>`` that is not closed before the next ``<top>`` or the end of the file.

Empty topic texts are kept (a query with no text is still a query; rankers score it as matching
nothing). Writers validate everything before writing (:func:`check_trec_id`,
:func:`validate_run_tag` let callers validate ids and tags before expensive work), are atomic
(temporary file + ``os.replace``) and write ``.gz`` when the name ends in ``.gz``; ``-`` is
standard output, and a FIFO or character device (``/dev/stdout`` in a pipe) is written straight
into (:func:`axiomatic._atomic.write_output_text`).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable, Mapping
from contextvars import ContextVar
from pathlib import Path
from typing import Literal

from axiomatic._atomic import write_output_text
from axiomatic.data._io import (
    GRADE_LIMIT,
    ParsedDict,
    iter_lines,
    parse_float,
    parse_grade,
    parse_int,
    read_text,
    report_skipped,
    require_nonempty,
)
from axiomatic.data.errors import InvalidIdError, ParseError
from axiomatic.data.records import Query

__all__ = [
    "check_trec_id",
    "check_trec_ids",
    "read_qrels",
    "read_run",
    "read_run_text",
    "read_topics",
    "run_tag",
    "validate_run_tag",
    "write_qrels",
    "write_run",
    "write_topics",
]

_QRELS_EXPECTED = (
    "4 columns separated by spaces or tabs 'query_id iteration doc_id relevance' "
    f"(relevance an integer with |relevance| < 2**{GRADE_LIMIT.bit_length() - 1})"
)
_RUN_EXPECTED = (
    "6 columns separated by spaces or tabs 'query_id Q0 doc_id rank score tag' "
    "(rank an integer, score a finite number)"
)
_TOPICS_EXPECTED = "'query_id<TAB>text' (tab-separated topics)"


def _skip(line: str) -> bool:
    return not line.strip()


_ODD_SPACE = re.compile(r"[^\S \t\v\f\r]")
"""Whitespace that is no column separator of a TREC file: trec_eval splits on spaces and tabs
only, Python's ``str.split()`` also on U+00A0, U+3000, U+0085, \\x1c ... (a line trec_eval
rejects would be read with other columns)."""


def _odd_space(line: str, match: re.Match[str]) -> ValueError:
    import unicodedata

    ch = match.group()
    name = unicodedata.name(ch, "a control character")
    return ValueError(
        f"character {match.start() + 1} is U+{ord(ch):04X} ({name}), whitespace that does not "
        "separate columns: TREC files separate them with spaces or tabs only, as trec_eval "
        "reads them; replace it with a space (or remove it from the id)"
    )


class _Conflict(ValueError):
    """A duplicate key whose value differs from the first occurrence's."""


Lines = Callable[[], Iterable[tuple[int, str]]]
"""A source of ``(line_number, line)`` pairs that can be read again (to word an error)."""


def _first_line(lines: Lines, qid: str, did: str) -> int | None:
    """Line of the first ``(qid, did)`` line; only called to word an error (rescans the file)."""
    for lineno, line in lines():
        parts = line.split()
        if len(parts) >= 3 and parts[0] == qid and parts[2] == did:
            return lineno
    return None


def _read_pairs(
    path: str | Path,
    skip_malformed: bool,
    n_columns: int,
    expected: str,
    what: str,
    value_of: Callable[[list[str]], float | int],
    value_name: str,
    lines: Lines | None = None,
) -> ParsedDict:
    """Shared body of :func:`read_qrels` and :func:`read_run`: ``{qid: {did: value}}`` from
    the file ``path`` or, given ``lines``, from those (``path`` then names them in errors)."""
    source: Lines = lines if lines is not None else (lambda: iter_lines(path))
    out: ParsedDict = ParsedDict()
    for lineno, line in source():
        odd = _ODD_SPACE.search(line)
        parts = line.split()  # only spaces and tabs split when ``odd`` is None
        if not parts and odd is None:
            continue
        try:
            if odd is not None:
                raise _odd_space(line, odd)
            if len(parts) != n_columns:
                raise ValueError(f"found {len(parts)} column(s) in {line.strip()[:80]!r}")
            qid, did = parts[0], parts[2]
            value = value_of(parts)
            docs = out.get(qid)
            if docs is None:
                docs = out[qid] = {}
            elif did in docs:
                if docs[did] == value:
                    out.duplicates += 1
                    continue
                first = _first_line(source, qid, did)
                raise _Conflict(
                    f"({qid!r}, {did!r}) again with {value_name} {value!r}; line "
                    f"{first if first is not None else '?'} gave {docs[did]!r}"
                )
        except ValueError as exc:
            if skip_malformed:
                out.skipped += 1
                out.skipped_lines.append(lineno)
                continue
            hint = (
                "Remove one of the two lines (which one is right cannot be guessed)"
                if isinstance(exc, _Conflict)
                else "Fix the line or pass skip_malformed=True (CLI: --skip-malformed) to "
                "skip such lines"
            )
            raise ParseError(str(exc), path, lineno, expected, hint=hint) from None
        docs[did] = value
    report_skipped(out, path, what)
    require_nonempty(len(out), path, what, expected)
    return out


# Fast paths first (plain ASCII digits / a float that is finite and ASCII without '_'): a
# 1M-line run must not pay much for the strictness; anything else goes to the strict parsers,
# which accept or raise with the message.
def _qrels_value(parts: list[str]) -> int:
    g = parts[3]
    if g.isdigit() and g.isascii() and len(g) < 10:
        return int(g)
    return parse_grade(g)


def _run_value(parts: list[str]) -> float:
    rank, score = parts[3], parts[4]
    if not (rank.isdigit() and rank.isascii() and len(rank) < 19):
        parse_int(rank, "rank")
    try:
        value = float(score)
    except ValueError:
        return parse_float(score, "score")
    if _isfinite(value) and score.isascii() and "_" not in score:
        return value
    return parse_float(score, "score")


_isfinite = math.isfinite


_SKIP_DEFAULT: ContextVar[bool] = ContextVar("axiomatic_skip_malformed", default=False)


def skip_malformed_default() -> bool:
    """What ``skip_malformed=None`` means for the TREC readers (``False`` unless changed by
    :func:`set_skip_malformed_default`)."""
    return _SKIP_DEFAULT.get()


def set_skip_malformed_default(enabled: bool) -> None:
    """Make ``skip_malformed=None`` mean ``enabled`` in the current context.

    For a command line, whose ``--skip-malformed`` must also reach files that are read later
    and deep down (a ``run:FILE`` ranker reads its run on first use). Library code passes
    ``skip_malformed=`` explicitly instead.
    """
    _SKIP_DEFAULT.set(bool(enabled))


def _skip_flag(flag: bool | None) -> bool:
    return _SKIP_DEFAULT.get() if flag is None else flag


def read_qrels(path: str | Path, *, skip_malformed: bool | None = None) -> ParsedDict:
    """Read TREC qrels into ``{query_id: {doc_id: relevance}}`` (see module docstring)."""
    return _read_pairs(
        path, _skip_flag(skip_malformed), 4, _QRELS_EXPECTED, "qrels", _qrels_value, "relevance"
    )


def read_run(path: str | Path, *, skip_malformed: bool | None = None) -> ParsedDict:
    """Read a TREC run into ``{query_id: {doc_id: score}}`` (see module docstring)."""
    return _read_pairs(
        path, _skip_flag(skip_malformed), 6, _RUN_EXPECTED, "run", _run_value, "score"
    )


def read_run_text(
    text: str, source: str = "<stdin>", *, skip_malformed: bool | None = None
) -> ParsedDict:
    """Read a TREC run from ``text`` (e.g. standard input), as :func:`read_run` reads a file;
    errors and warnings name ``source`` and the line."""
    split = [line.rstrip("\r") for line in text.split("\n")]

    def lines() -> Iterable[tuple[int, str]]:
        return enumerate(split, start=1)

    return _read_pairs(
        source, _skip_flag(skip_malformed), 6, _RUN_EXPECTED, "run", _run_value, "score", lines
    )


# ---------------------------------------------------------------------------------------- topics
_TOP_TAG_RE = re.compile(r"<(/?)top>", re.IGNORECASE)
_NUM_RE = re.compile(r"<num>\s*(?:Number:)?\s*([^\s<]+)", re.IGNORECASE)
_FIELD_PREFIX = {"title": r"(?:Topic:)?", "desc": r"(?:Description:)?", "narr": r"(?:Narrative:)?"}
_SGML_EXPECTED = "<top> <num>ID</num> <title>TEXT</title> ... </top>"


def _field_re(field: str) -> re.Pattern[str]:
    # A field runs until the next complete tag (``<desc>``, ``</title>``): a bare ``<`` inside a
    # text (``x<y``, ``a <b``) is text, not the start of a tag.
    prefix = _FIELD_PREFIX.get(field, "")
    return re.compile(
        rf"<{re.escape(field)}>\s*{prefix}(.*?)(?=</?[a-z][a-z0-9_-]*>|\Z)",
        re.IGNORECASE | re.DOTALL,
    )


def _looks_like_sgml(text: str) -> bool:
    return text.lstrip()[:5].lower() == "<top>"


def _add_topic(
    topics: ParsedDict, first_line: dict[str, int], qid: str, text: str, lineno: int
) -> None:
    """Store a topic; an identical repeat is counted, a repeat with other text is refused."""
    old = topics.get(qid)
    if old is None:
        topics[qid] = Query(qid, text)
        first_line[qid] = lineno
    elif old.text == text:
        topics.duplicates += 1
    else:
        raise _Conflict(
            f"topic {qid!r} again with text {text[:60]!r}; line {first_line[qid]} gave "
            f"{old.text[:60]!r}"
        )


def read_topics(
    path: str | Path,
    *,
    format: Literal["auto", "trec", "tsv", "xml"] = "auto",
    field: str = "title",
    skip_malformed: bool | None = None,
) -> ParsedDict:
    """Read topics into ``{query_id: Query}``.

    ``format="auto"`` picks the SGML ``<top>`` reader when the file starts with ``<top>``, the
    XML reader when it starts with ``<?xml`` or ``<topics``, else the tab-separated one. ``field`` selects the SGML field used as query text (``title``,
    ``desc``, ``narr``; several joined with ``+``, e.g. ``"title+desc"``: the first is required,
    the others are appended when present). Whitespace inside a
    text is collapsed to single spaces and the text is stripped.
    """
    text = read_text(path)
    skip_malformed = _skip_flag(skip_malformed)
    if format not in ("auto", "trec", "tsv", "xml"):
        raise ValueError(
            f"unknown topics format {format!r}; expected 'auto', 'trec', 'xml' or 'tsv'"
        )
    if format == "xml" or (format == "auto" and _looks_like_xml(text)):
        return _read_xml_topics(text, path, field, skip_malformed)
    if format == "trec" or (format == "auto" and _looks_like_sgml(text)):
        return _read_sgml_topics(text, path, field, skip_malformed)
    topics: ParsedDict = ParsedDict()
    first_line: dict[str, int] = {}
    first = True
    for lineno, raw in enumerate(text.split("\n"), start=1):
        line = raw.rstrip("\r")
        if _skip(line):
            continue
        qid, sep, qtext = line.partition("\t")
        qid = qid.strip()
        if first:
            first = False
            from axiomatic.data.readers.tsv import (
                QUERY_ID_HEADERS,
                QUERY_TEXT_HEADERS,
                header_line,
            )

            if sep and header_line(qid, qtext, path, QUERY_ID_HEADERS, QUERY_TEXT_HEADERS, "query"):
                continue
        try:
            if not sep or not qid or any(c.isspace() for c in qid):
                raise ValueError(f"no tab-separated query id in {line[:60]!r}")
            _add_topic(topics, first_line, qid, " ".join(qtext.split()), lineno)
        except ValueError as exc:
            if skip_malformed:
                topics.skipped += 1
                topics.skipped_lines.append(lineno)
                continue
            hint = (
                "Remove one of the two topics"
                if isinstance(exc, _Conflict)
                else "Separate id and text with a TAB, or pass format='trec' for <top> files"
            )
            raise ParseError(str(exc), path, lineno, _TOPICS_EXPECTED, hint=hint) from None
    report_skipped(topics, path, "topic")
    require_nonempty(len(topics), path, "topic", _TOPICS_EXPECTED)
    return topics


def _read_sgml_topics(text: str, path: str | Path, field: str, skip_malformed: bool) -> ParsedDict:
    """Scan ``<top>``/``</top>`` tags in order, so that a block left open is reported (with the
    line where it opened) instead of swallowing the next topic."""
    fields = [f.strip().lower() for f in field.split("+") if f.strip()]
    if not fields:
        raise ValueError(f"field {field!r} names no SGML field; expected e.g. 'title'")
    patterns = [_field_re(f) for f in fields]
    topics: ParsedDict = ParsedDict()
    first_line: dict[str, int] = {}

    def line_of(pos: int) -> int:
        return text.count("\n", 0, pos) + 1  # only on error / per topic: cheap

    def bad(message: str, pos: int, hint: str) -> None:
        if skip_malformed:
            topics.skipped += 1
            topics.skipped_lines.append(line_of(pos))
            return
        raise ParseError(message, path, line_of(pos), _SGML_EXPECTED, hint=hint)

    open_tag: re.Match[str] | None = None
    for tag in _TOP_TAG_RE.finditer(text):
        if not tag.group(1):  # <top>
            if open_tag is not None:
                bad(
                    f"<top> is not closed before the next <top> (line {line_of(tag.start())})",
                    open_tag.start(),
                    "Add the missing </top>",
                )
            open_tag = tag
            continue
        if open_tag is None:  # </top> without <top>
            bad("</top> without a matching <top>", tag.start(), "Remove it or add the <top>")
            continue
        body = text[open_tag.end() : tag.start()]
        start, open_tag = open_tag.start(), None
        num = _NUM_RE.search(body)
        found = [p.search(body) for p in patterns]
        if num is None or found[0] is None:
            missing = "<num>" if num is None else f"<{fields[0]}>"
            bad(
                f"topic without {missing}",
                start,
                f"Choose another field (field={field!r} was asked for) or fix the topic",
            )
            continue
        qid = num.group(1)
        qtext = " ".join(" ".join(f.group(1).split()) for f in found if f is not None).strip()
        try:
            _add_topic(topics, first_line, qid, qtext, line_of(start))
        except _Conflict as exc:
            bad(str(exc), start, "Remove one of the two topics")
    if open_tag is not None:
        bad(
            "<top> is not closed (the file ends first)",
            open_tag.start(),
            "The file may be truncated; add the missing </top>",
        )
    report_skipped(topics, path, "topic")
    if not topics and not topics.skipped and text.strip():
        raise ParseError("no <top> ... </top> block found", path, 1, "TREC SGML topics")
    require_nonempty(len(topics), path, "topic", _SGML_EXPECTED)
    return topics


_XML_EXPECTED = '<topics><topic number="ID"><query>TEXT</query> ... </topic></topics>'
_XML_FIELD_ALIASES = {
    "title": ("title", "query"),
    "desc": ("desc", "description"),
    "narr": ("narr", "narrative"),
}
_XML_ID_ATTRS = ("number", "id", "qid", "query_id")


def _looks_like_xml(text: str) -> bool:
    head = text.lstrip()[:64].lower()
    return head.startswith("<?xml") or head.startswith("<topics")


def _read_xml_topics(text: str, path: str | Path, field: str, skip_malformed: bool) -> ParsedDict:
    """XML topics: every ``<topic>`` element; the id is its ``number``/``id``/``qid`` attribute
    or ``<number>``/``<num>`` child, the text its ``field`` child (``title`` also reads
    ``<query>``, ``desc`` ``<description>``, ``narr`` ``<narrative>``)."""
    import xml.etree.ElementTree as ET

    fields = [f.strip().lower() for f in field.split("+") if f.strip()]
    if not fields:
        raise ValueError(f"field {field!r} names no topic field; expected e.g. 'title'")
    try:
        root = ET.fromstring(text)
    except ET.ParseError as exc:
        line = exc.position[0] if getattr(exc, "position", None) else None
        raise ParseError(f"not well-formed XML ({exc})", path, line, _XML_EXPECTED) from None
    topics: ParsedDict = ParsedDict()
    first_line: dict[str, int] = {}
    elements = [root] if root.tag.lower() == "topic" else list(root.iter("topic"))
    # ElementTree keeps no line numbers: the n-th <topic> tag of the text is the n-th element
    starts = [m.start() for m in re.finditer(r"<topic[\s>/]", text, re.IGNORECASE)]
    if len(starts) != len(elements):
        starts = []
    for i, el in enumerate(elements, start=1):
        line = text.count("\n", 0, starts[i - 1]) + 1 if starts else None
        children = {c.tag.lower(): c for c in el}
        qid = next((el.attrib[a] for a in _XML_ID_ATTRS if a in el.attrib), None)
        if qid is None:
            child = children.get("number") if "number" in children else children.get("num")
            qid = (child.text or "").strip() if child is not None else None
        parts: list[str | None] = []
        for f in fields:
            names = _XML_FIELD_ALIASES.get(f, (f,))
            node = next((children[n] for n in names if n in children), None)
            parts.append(None if node is None else " ".join("".join(node.itertext()).split()))
        try:
            if not qid or any(c.isspace() for c in qid):
                raise ValueError(f"<topic> number {i} has no id (a number/id attribute)")
            if parts[0] is None:
                raise ValueError(f"topic {qid!r} has no <{fields[0]}> (field={field!r})")
            _add_topic(topics, first_line, qid, " ".join(p for p in parts if p).strip(), line or i)
        except ValueError as exc:
            if skip_malformed:
                topics.skipped += 1
                topics.skipped_lines.append(line or i)
                continue
            raise ParseError(str(exc), path, line, _XML_EXPECTED) from None
    report_skipped(topics, path, "topic")
    require_nonempty(len(topics), path, "topic", _XML_EXPECTED)
    return topics


# --------------------------------------------------------------------------------------- writers
_WHITESPACE = re.compile(r"\s")


def check_trec_id(value: object, what: str = "id") -> str:
    """``value`` as a string that a whitespace-separated TREC file can hold, else
    :class:`~axiomatic.data.errors.InvalidIdError` (a ``ValueError``).

    Call it (or :func:`check_trec_ids`, :func:`validate_run_tag`) *before* expensive work whose
    result goes through :func:`write_run`, so that a bad tag fails in a second, not after ranking.
    """
    text = str(value)
    if not text or _WHITESPACE.search(text):
        raise InvalidIdError(
            f"{what} {text!r} is empty or contains whitespace; TREC files are whitespace "
            "separated, so ids and tags must be non-empty and without spaces "
            "(replace spaces, e.g. with '_')"
        )
    return text


def check_trec_ids(values: Iterable[object], what: str = "id") -> None:
    """Check every id of ``values`` (e.g. ``dataset.queries`` / ``dataset.documents``) with
    :func:`check_trec_id`; the error names the first bad id and how many are bad."""
    bad = [v for v in values if not str(v) or _WHITESPACE.search(str(v))]
    if bad:
        more = f" ({len(bad)} {what}s in all are unusable)" if len(bad) > 1 else ""
        try:
            check_trec_id(bad[0], what)
        except InvalidIdError as exc:
            raise InvalidIdError(f"{exc}{more}") from None


def validate_run_tag(tag: object) -> str:
    """The run tag if :func:`write_run` can write it (non-empty, no whitespace), else
    :class:`~axiomatic.data.errors.InvalidIdError`."""
    return check_trec_id(tag, "run tag")


_check_id = check_trec_id  # the writers' name for it


def write_qrels(qrels: Mapping[str, Mapping[str, int]], path: str | Path) -> Path:
    """Write ``qid 0 docid relevance`` lines (queries and docs in the mapping's order).

    Everything is validated before the file is touched: ids (:func:`check_trec_id`) and grades
    (integers with ``|grade| < 2**31``, what :func:`read_qrels` accepts)."""
    lines = []
    for qid, docs in qrels.items():
        q = _check_id(qid, "query id")
        for did, rel in docs.items():
            g = int(rel)
            if g != rel or not -GRADE_LIMIT < g < GRADE_LIMIT:
                raise ValueError(
                    f"relevance of ({qid!r}, {did!r}) is {rel!r}; expected an integer grade "
                    "with |grade| < 2**31"
                )
            lines.append(f"{q} 0 {_check_id(did, 'doc id')} {g}\n")
    return write_output_text(path, "".join(lines))


def write_run(
    run: Mapping[str, Mapping[str, float]], path: str | Path, tag: str = "axiomatic"
) -> Path:
    """Write a TREC run; per query, documents are sorted by score (desc), ties by doc id.

    Scores are written with ``repr`` so that reading the file back gives the same floats. The
    tag, every id and every score (finite: what :func:`read_run` accepts) are validated before
    the file is touched; validate the tag earlier with :func:`validate_run_tag`.
    """
    tag = validate_run_tag(tag)
    lines = []
    for qid, docs in run.items():
        q = _check_id(qid, "query id")
        ranked = sorted(docs.items(), key=lambda kv: (-float(kv[1]), kv[0]))
        for rank, (did, score) in enumerate(ranked, start=1):
            s = float(score)
            if not math.isfinite(s):
                raise ValueError(
                    f"score of ({qid!r}, {did!r}) is {s!r}; a run needs finite scores "
                    "(NaN and infinities cannot be read back)"
                )
            lines.append(f"{q} Q0 {_check_id(did, 'doc id')} {rank} {s!r} {tag}\n")
    return write_output_text(path, "".join(lines))


def write_topics(
    queries: Mapping[str, Query] | Mapping[str, str],
    path: str | Path,
    *,
    format: Literal["tsv", "trec"] = "tsv",
) -> Path:
    """Write topics as ``qid<TAB>text`` lines (``format="tsv"``) or SGML ``<top>`` blocks."""
    if format not in ("tsv", "trec"):
        raise ValueError(f"unknown topics format {format!r}; expected 'tsv' or 'trec'")
    out = []
    for qid, q in queries.items():
        text = q.text if isinstance(q, Query) else str(q)
        _check_id(qid, "query id")
        if format == "trec" and "<" in str(qid):
            raise ValueError(f"query id {qid!r} contains '<', which SGML topics cannot hold")
        if any(c in text for c in "\t\r\n") or (format == "trec" and "<" in text):
            raise ValueError(
                f"topic {qid!r}: text contains a tab, newline{' or <' if format == 'trec' else ''}"
                "; normalise it (e.g. ' '.join(text.split())) before writing"
            )
        if format == "tsv":
            out.append(f"{qid}\t{text}\n")
        else:
            out.append(f"<top>\n<num> Number: {qid}\n<title> {text}\n</top>\n\n")
    return write_output_text(path, "".join(out))


def run_tag(path: Path) -> str | None:
    """The run's tag when every line carries the same one (6th column), else ``None``.

    Read with the readers' own line reader (``iter_lines``), so a
    truncated or corrupt ``.gz`` run, a gzip bomb or a bad byte is the same
    :class:`~axiomatic.data.errors.ParseError` the run reader gives, never a foreign exception.
    """
    tags: set[str] = set()
    try:
        for _, line in iter_lines(path):
            parts = line.split()
            if len(parts) >= 6:
                tags.add(parts[5])
                if len(tags) > 1:
                    return None
    except OSError:  # unreadable: the run reader reports it
        return None
    return next(iter(tags)) if tags else None
