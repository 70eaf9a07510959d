"""Bring your own collection: TOML dataset descriptors and rank_llm result files as datasets.

Every command that takes ``--dataset`` (and :func:`axiomatic.data.catalog.load_dataset`) accepts,
besides catalog names and ``irds:<id>``:

* a **descriptor** file (``*.toml``)::

      [dataset]
      name = "my-dl20"
      queries = "topics.dl20.txt"        # TREC topics (tab-separated, <top> SGML or XML), TSV, JSONL
      documents = "passages.tsv"         # TSV id<TAB>text, JSONL {doc_id, text}, TREC <DOC>, rank_llm JSON
      qrels = "qrels.dl20-passage.txt"   # optional: TREC qrels
      candidates = "run.bm25.trec"       # optional: a TREC run or rank_llm JSON (re-ranking sets)
      rel_threshold = 2                  # optional (default 1)
      language = "en"                    # optional (default "en")

  Paths are relative to the descriptor. ``axiomatic datasets init FILE`` writes a commented
  template (:func:`write_descriptor_template`);
* a **rank_llm retrieve-results JSON** (``*.json``): queries, candidate lists and passage texts
  in one file; qrels come from ``qrels=`` (CLI ``--qrels FILE``).

Every file goes through the existing readers (:mod:`axiomatic.data.trec`,
:mod:`axiomatic.data.readers`); this module only chooses the reader and checks that the parts fit
together: ids in the candidates or qrels that the queries or documents lack are an error with
counts (or, with ``missing_ids = "drop"``, dropped and counted in a warning).
"""

from __future__ import annotations

import re
import tomllib
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from axiomatic._suggest import suggest
from axiomatic.data.errors import DataError, DataWarning
from axiomatic.data.records import Dataset, Document, Qrels, Query

__all__ = [
    "DESCRIPTOR_KEYS",
    "DatasetDescriptor",
    "DescriptorError",
    "is_dataset_file",
    "load_dataset_file",
    "load_descriptor",
    "load_rankllm_dataset",
    "read_descriptor",
    "write_descriptor_template",
]


class DescriptorError(DataError, ValueError):
    """A dataset descriptor (or a file it names) that cannot make a dataset; the message names
    the descriptor, the key, what was wrong and how to fix it."""


DESCRIPTOR_KEYS: dict[str, str] = {
    "name": "dataset name shown in tables and reports (default: the descriptor's file name)",
    "description": "one line shown by tables and reports",
    "queries": "TREC topics (id<TAB>text, <top> SGML or <topics> XML), TSV or JSONL",
    "documents": "TSV id<TAB>text, JSONL {doc_id, text}, TREC <DOC> SGML or a rank_llm JSON",
    "qrels": "TREC qrels (query 0 doc grade)",
    "candidates": "TREC run or rank_llm JSON: the candidate lists of a re-ranking set",
    "rel_threshold": "minimum grade counted as relevant by binary measures (default 1)",
    "language": "query language (default 'en')",
    "doc_language": "document language (default: language)",
    "query_field": "topic field(s) used as query text for SGML/XML topics (default 'title')",
    "missing_ids": "'error' (default) or 'drop': ids in candidates/qrels without a query or text",
}
"""The keys of the ``[dataset]`` table and what each holds."""

_PATH_KEYS = ("queries", "documents", "qrels", "candidates")
_MISSING_POLICIES = ("error", "drop")

TEMPLATE = """\
# axiomatic dataset descriptor: use it wherever a command takes --dataset, e.g.
#   axiomatic mine --dataset {file} --out instances/
#   axiomatic diagnose --instances instances/ --dataset {file} --run my.run --out report/
#   axiomatic evaluate --dataset {file} --run my.run
# Paths are relative to this file. Only `queries` and `documents` are required (a rank_llm JSON
# as `documents` or `candidates` also provides the query texts). See docs/datasets.md.

[dataset]
name = "{name}"
# description = "my topics x my passages"

# Queries: TREC topics (id<TAB>text, <top> SGML or <topics> XML), TSV or JSONL {{"query_id", "text"}}
queries = "topics.tsv"
# query_field = "title"          # SGML/XML topics: title, desc, narr or e.g. "title+desc"

# Documents: TSV id<TAB>text, JSONL {{"doc_id", "text"}} (BEIR's _id/title/text too),
# TREC <DOC> SGML, or a rank_llm retrieve-results JSON (texts of its retrieved passages)
documents = "passages.tsv"

# Optional: TREC qrels (query_id 0 doc_id grade)
# qrels = "qrels.txt"

# Optional: candidate lists of a re-ranking set: a TREC run or a rank_llm JSON
# (without it, rankers retrieve from all documents)
# candidates = "run.bm25.trec"

# rel_threshold = 1              # minimum grade counted as relevant (TREC DL: 2)
# language = "en"                # query language; doc_language defaults to it
# missing_ids = "error"          # or "drop": drop candidates/qrels whose ids are unknown
"""


@dataclass(frozen=True)
class DatasetDescriptor:
    """A parsed descriptor: resolved (absolute) paths and settings; no file read yet."""

    path: Path
    name: str
    queries: Path | None = None
    documents: Path | None = None
    qrels: Path | None = None
    candidates: Path | None = None
    rel_threshold: int = 1
    language: str = "en"
    doc_language: str | None = None
    description: str = ""
    query_field: str = "title"
    missing_ids: str = "error"
    lines: dict[str, int] = field(default_factory=dict, compare=False)

    def where(self, key: str) -> str:
        """``descriptor.toml:LINE`` of ``key`` (for error messages)."""
        line = self.lines.get(key)
        return f"{self.path}:{line}" if line else str(self.path)

    def files(self) -> list[Path]:
        """The data files this descriptor names."""
        return [p for p in (self.queries, self.documents, self.qrels, self.candidates) if p]


# ------------------------------------------------------------------------------- recognizing
_DATASET_SUFFIXES = (".toml", ".json", ".json.gz")


def is_dataset_file(spec: str | Path) -> bool:
    """Whether ``spec`` names a dataset file rather than a catalog name: a descriptor
    (``.toml``), a rank_llm JSON (``.json`` / ``.json.gz``) or any existing file."""
    text = str(spec)
    if text.lower().endswith(_DATASET_SUFFIXES):
        return True
    p = Path(text).expanduser()
    return p.is_file()


def _is_rankllm(path: Path) -> bool:
    return path.name.lower().endswith((".json", ".json.gz"))


def _is_jsonl(path: Path) -> bool:
    return path.name.lower().endswith((".jsonl", ".jsonl.gz"))


def _head(path: Path, n: int = 512) -> str:
    """The first non-blank characters of a (possibly gzipped) text file, for format sniffing
    (reads, and inflates, only the first 4 KiB)."""
    from axiomatic.data._io import read_head

    return read_head(path, 4096).decode("utf-8", errors="replace").lstrip("\ufeff").lstrip()[:n]


# ------------------------------------------------------------------------------- descriptors
def _key_lines(text: str) -> dict[str, int]:
    lines: dict[str, int] = {}
    for i, line in enumerate(text.split("\n"), start=1):
        m = re.match(r"\s*([A-Za-z0-9_\-\"']+)\s*=", line)
        if m:
            lines.setdefault(m.group(1).strip("\"'"), i)
        m = re.match(r"\s*\[\s*([^\]]+?)\s*\]", line)
        if m:
            lines.setdefault("[" + m.group(1) + "]", i)
    return lines


def read_descriptor(path: str | Path) -> DatasetDescriptor:
    """Parse and check a descriptor: TOML syntax, known keys (close matches suggested), value
    types, and that every named file exists (close matches among its folder's files)."""
    path = Path(path).expanduser()
    if not path.is_file():
        if path.is_symlink():  # a dangling link or a link loop: is_file() is False for both
            raise DescriptorError(
                f"dataset descriptor {path} is a symbolic link to no readable file (its target "
                "is missing, or it points back to itself: a link loop); point it at the real file"
            )
        raise DescriptorError(
            f"dataset descriptor {path}{_near_files(path)} does not exist; write a template "
            f"with `axiomatic datasets init {path}`"
        )
    raw = path.read_bytes()
    try:
        text = raw.decode("utf-8")
        data = tomllib.loads(text)
    except UnicodeDecodeError as exc:
        raise DescriptorError(f"{path}: not UTF-8 text ({exc})") from None
    except tomllib.TOMLDecodeError as exc:
        raise DescriptorError(
            f"{path}: not valid TOML ({exc}); expected a [dataset] table of key = value lines "
            f"(`axiomatic datasets init FILE` writes a template)"
        ) from None
    except RecursionError:  # tomllib recurses once per nested array or inline table
        raise DescriptorError(
            f"{path}: not valid TOML (arrays or inline tables nest too deep to read); expected a "
            "[dataset] table of key = value lines (`axiomatic datasets init FILE` writes a "
            "template)"
        ) from None
    lines = _key_lines(text)
    extra_tables = [k for k in data if k != "dataset"]
    if extra_tables or "dataset" not in data:
        bad = extra_tables[0] if extra_tables else None
        if bad is not None and not isinstance(data[bad], dict):
            raise DescriptorError(
                f"{path}:{lines.get(bad, '?')}: key {bad!r}{suggest(bad, DESCRIPTOR_KEYS)} is "
                "outside the [dataset] table; put every key below a `[dataset]` line"
            )
        if bad is not None:
            raise DescriptorError(
                f"{path}:{lines.get('[' + bad + ']', '?')}: unknown table [{bad}]"
                f"{suggest(bad, ['dataset'])}; a descriptor has one table, [dataset]"
            )
        raise DescriptorError(
            f"{path}: no [dataset] table; expected lines such as\n[dataset]\n"
            'queries = "topics.tsv"\ndocuments = "passages.tsv"\n'
            f"(`axiomatic datasets init {path.name}` writes a commented template)"
        )
    table = data["dataset"]
    for key in table:
        if key not in DESCRIPTOR_KEYS:
            raise DescriptorError(
                f"{path}:{lines.get(key, '?')}: unknown key {key!r}"
                f"{suggest(key, DESCRIPTOR_KEYS)} in [dataset]; expected one of "
                f"{', '.join(DESCRIPTOR_KEYS)}"
            )

    def get_str(key: str, default: str | None) -> str | None:
        v = table.get(key, default)
        if v is not None and not isinstance(v, str):
            raise DescriptorError(
                f"{path}:{lines.get(key, '?')}: {key} must be a string in quotes "
                f"(got {v!r}, a {type(v).__name__})"
            )
        return v

    paths: dict[str, Path | None] = {}
    for key in _PATH_KEYS:
        value = get_str(key, None)
        if value is None:
            paths[key] = None
            continue
        if not value.strip():
            raise DescriptorError(f"{path}:{lines.get(key, '?')}: {key} is empty; name a file")
        p = Path(value).expanduser()
        p = p if p.is_absolute() else path.parent / p
        if not p.is_file():
            what = "is a folder, not a file" if p.is_dir() else "does not exist"
            raise DescriptorError(
                f"{path}:{lines.get(key, '?')}: {key} = {value!r}: {p}{_near_files(p)} {what}; "
                "paths are relative to the descriptor's folder"
            )
        paths[key] = p
    rel = check_rel_threshold(
        table.get("rel_threshold", 1), f"{path}:{lines.get('rel_threshold', '?')}"
    )
    missing = get_str("missing_ids", "error") or "error"
    if missing not in _MISSING_POLICIES:
        raise DescriptorError(
            f"{path}:{lines.get('missing_ids', '?')}: unknown missing_ids {missing!r}"
            f"{suggest(missing, _MISSING_POLICIES)}; expected one of "
            f"{', '.join(map(repr, _MISSING_POLICIES))}"
        )
    if paths["documents"] is None and not (
        paths["candidates"] and _is_rankllm(paths["candidates"])
    ):
        raise DescriptorError(
            f'{path}: no documents: set documents = "passages.tsv" (TSV, JSONL, TREC <DOC> or a '
            "rank_llm JSON), or candidates = a rank_llm JSON that carries the passage texts"
        )
    text_sources = [p for p in (paths["documents"], paths["candidates"]) if p and _is_rankllm(p)]
    if paths["queries"] is None and not text_sources:
        raise DescriptorError(
            f'{path}: no queries: set queries = "topics.tsv" (TREC topics, TSV or JSONL), or '
            "use a rank_llm JSON (documents or candidates) that carries the query texts"
        )
    from axiomatic.data.languages import check_language

    def get_language(key: str, default: str | None) -> str | None:
        value = get_str(key, default)
        if value is None:
            return None
        try:
            return check_language(value, f"{path}:{lines.get(key, '?')}: {key}")
        except ValueError as exc:
            raise DescriptorError(f'{exc}; e.g. {key} = "en"') from None

    language = get_language("language", "en") or "en"
    doc_language = get_language("doc_language", None)
    return DatasetDescriptor(
        path=path,
        name=get_str("name", None) or path.stem,
        queries=paths["queries"],
        documents=paths["documents"],
        qrels=paths["qrels"],
        candidates=paths["candidates"],
        rel_threshold=rel,
        language=language,
        doc_language=doc_language,
        description=get_str("description", "") or "",
        query_field=get_str("query_field", "title") or "title",
        missing_ids=missing,
        lines=lines,
    )


def check_rel_threshold(rel: object, where: str) -> int:
    """``rel`` if it is a usable relevance threshold: an integer grade ``1 <= rel < 2**31``.

    0 or a negative threshold counts unjudged and non-relevant documents as relevant (the
    evaluation providers then disagree: RR@10 1.0 next to AP 0.0 for one run), and pytrec_eval
    cannot take one beyond a C int, so these are refused at load time, before any ranking."""
    from axiomatic.data._io import GRADE_LIMIT

    if isinstance(rel, bool) or not isinstance(rel, int):
        raise DescriptorError(
            f"{where}: rel_threshold must be an integer grade such as 1 or 2 (got {rel!r})"
        )
    if not 1 <= rel < GRADE_LIMIT:
        raise DescriptorError(
            f"{where}: rel_threshold must be a positive grade, 1 <= rel_threshold < 2**31 (got "
            f"{rel}): it is the lowest grade counted as relevant (1 for binary qrels, 2 for "
            "TREC DL); 0 or less would count non-relevant and unjudged documents as relevant"
        )
    return rel


def warn_unreachable_threshold(qrels: Qrels | None, rel: int, where: str) -> None:
    """Warn (:class:`DataWarning`) when no judged document reaches ``rel``: every binary
    measure (P, R, AP, RR, ...) would be 0 for every run, which looks like a result."""
    if not qrels:
        return
    grades = [g for docs in qrels.values() for g in docs.values()]
    if grades and max(grades) < rel:
        warnings.warn(
            f"{where}: rel_threshold = {rel} but no judged document has a grade >= {rel} (the "
            f"highest is {max(grades)}): binary measures (P, R, AP, RR, ...) will be 0 for "
            "every run; lower rel_threshold to the grade that means relevant",
            DataWarning,
            stacklevel=3,
        )


def _near_files(p: Path) -> str:
    """`` (did you mean 'a.tsv'?)`` naming the files of ``p``'s folder close to its name (a
    missing folder is said instead); follows the path in a message."""
    parent = p.parent
    if not parent.is_dir():
        return f" (its folder {parent} does not exist)"
    return suggest(p.name, sorted(c.name for c in parent.iterdir()))


# ------------------------------------------------------------------------------------ reading
def _read_queries(
    desc: DatasetDescriptor, skip_malformed: bool, parsed: dict[Path, Any]
) -> dict[str, Query]:
    from axiomatic.data.readers.jsonl import read_jsonl_queries
    from axiomatic.data.trec import read_topics

    path = desc.queries
    if path is None:
        return {}
    if _is_rankllm(path):
        return dict(_rankllm(path, parsed).queries)
    if _is_jsonl(path):
        return dict(read_jsonl_queries(path, skip_malformed=skip_malformed))
    return dict(read_topics(path, field=desc.query_field, skip_malformed=skip_malformed))


def _read_documents(
    path: Path, skip_malformed: bool, parsed: dict[Path, Any]
) -> dict[str, Document]:
    from axiomatic.data.readers.jsonl import read_jsonl_documents
    from axiomatic.data.readers.tsv import read_tsv_documents

    if _is_rankllm(path):
        return dict(_rankllm(path, parsed).documents)
    if _is_jsonl(path):
        return dict(read_jsonl_documents(path, skip_malformed=skip_malformed))
    if _head(path, 5).upper() == "<DOC>":
        from axiomatic.data.readers.trecdocs import read_trec_documents

        return dict(read_trec_documents(path))
    return dict(read_tsv_documents(path, skip_malformed=skip_malformed))


def _rankllm(path: Path, parsed: dict[Path, Any]) -> Any:
    """One parse per rank_llm file and load (a descriptor may name a file twice); ``parsed``
    belongs to one :func:`load_descriptor` call (no module-level cache)."""
    from axiomatic.data.readers.rankllm import read_rankllm_results

    key = path.resolve()
    if key not in parsed:
        parsed[key] = read_rankllm_results(path)
    return parsed[key]


def _candidates_of(
    path: Path, skip_malformed: bool, parsed: dict[Path, Any]
) -> tuple[dict[str, list[str]], dict[str, dict[str, float]]]:
    """Candidate lists (best first) and scores of a TREC run or rank_llm JSON."""
    if _is_rankllm(path):
        res = _rankllm(path, parsed)
        return {q: list(v) for q, v in res.candidates.items()}, res.run
    from axiomatic.data.trec import read_run

    run = read_run(path, skip_malformed=skip_malformed)
    cands = {
        q: sorted(v, key=v.__getitem__, reverse=True) for q, v in run.items()
    }  # ties: file order
    return cands, {q: dict(v) for q, v in run.items()}


def _examples(pairs: list[str]) -> str:
    return ", ".join(pairs[:5]) + (" ..." if len(pairs) > 5 else "")


def _check_ids(
    where: str,
    policy: str,
    queries: dict[str, Query],
    documents: dict[str, Document],
    candidates: dict[str, list[str]] | None,
    qrels: Qrels | None,
    names: dict[str, str],
) -> tuple[dict[str, list[str]] | None, Qrels | None]:
    """Refuse (or drop, counted) candidate and qrels ids that the queries/documents lack."""
    problems: list[str] = []
    if candidates is not None:
        cq = [q for q in candidates if q not in queries]
        if cq:
            problems.append(
                f"{len(cq)} of the {len(candidates)} queries in {names['candidates']} have no "
                f"text in {names['queries']} (first: {_examples(cq)})"
            )
        n_all = sum(len(v) for v in candidates.values())
        missing = [f"{q}/{d}" for q, v in candidates.items() for d in v if d not in documents]
        if missing:
            n_docs = len({m.split("/", 1)[1] for m in missing})
            problems.append(
                f"{len(missing)} of the {n_all} candidates ({n_docs} distinct documents) in "
                f"{names['candidates']} have no text in {names['documents']} "
                f"(first query/doc: {_examples(missing)})"
            )
        if policy == "drop" and (cq or missing):
            candidates = {
                q: [d for d in v if d in documents] for q, v in candidates.items() if q in queries
            }
            candidates = {q: v for q, v in candidates.items() if v}
    if qrels is not None:
        qq = [q for q in qrels if q not in queries]
        if qq:
            problems.append(
                f"{len(qq)} of the {len(qrels)} judged queries in {names['qrels']} are not in "
                f"{names['queries']} (first: {_examples(qq)})"
            )
        judged = [(q, d) for q, v in qrels.items() for d in v]
        absent = [f"{q}/{d}" for q, d in judged if d not in documents]
        # A re-ranking set's texts cover the retrieved documents only: judged documents that no
        # system retrieved are normal there. A full-retrieval collection must hold them all,
        # and qrels matching no document at all are the wrong file either way.
        if absent and (candidates is None or len(absent) == len(judged)):
            problems.append(
                f"{len(absent)} of the {len(judged)} judgments in {names['qrels']} name documents "
                f"that {names['documents']} lacks (first query/doc: {_examples(absent)})"
            )
        else:
            absent = []
        if policy == "drop" and (qq or absent):
            qrels = {
                q: {d: g for d, g in v.items() if candidates is not None or d in documents}
                for q, v in qrels.items()
                if q in queries
            }
            qrels = {q: v for q, v in qrels.items() if v}
    if problems:
        if policy == "error":
            raise DescriptorError(
                f"{where}: the files do not fit together: "
                + "; ".join(problems)
                + ". Check that they belong to the same collection (id formats such as "
                "'D123' vs '123' must match), or set missing_ids = \"drop\" in the descriptor "
                "to drop such entries."
            )
        warnings.warn(
            f"{where}: dropped entries with unknown ids: " + "; ".join(problems),
            DataWarning,
            stacklevel=3,
        )
    return candidates, qrels


def load_descriptor(
    path: str | Path, *, qrels: str | Path | None = None, skip_malformed: bool = False
) -> Dataset:
    """The dataset a descriptor describes (``qrels`` overrides its ``qrels`` key).

    ``skip_malformed`` is passed to the line readers (TREC topics/qrels/run, TSV, JSONL): they
    then skip, count and warn about malformed lines instead of raising.
    """
    from axiomatic.data.trec import read_qrels

    desc = read_descriptor(path)
    qrels_path = Path(qrels).expanduser() if qrels is not None else desc.qrels
    rankllm_sources = [p for p in (desc.candidates, desc.documents) if p and _is_rankllm(p)]
    parsed: dict[Path, Any] = {}
    queries: dict[str, Query] = {}
    if desc.queries is not None:
        queries = _read_queries(desc, skip_malformed, parsed)
    for src in rankllm_sources:  # a query the topics lack takes the run file's text
        for q, query in _rankllm(src, parsed).queries.items():
            queries.setdefault(q, query)
    documents: dict[str, Document] = {}
    if desc.documents is not None:
        documents = _read_documents(desc.documents, skip_malformed, parsed)
    if desc.candidates is not None and _is_rankllm(desc.candidates):
        for did, doc in _rankllm(desc.candidates, parsed).documents.items():
            documents.setdefault(did, doc)
    cand_path = desc.candidates
    if cand_path is None and desc.documents is not None and _is_rankllm(desc.documents):
        cand_path = desc.documents  # a rank_llm file as documents is a re-ranking set
    candidates: dict[str, list[str]] | None = None
    runs: dict[str, dict[str, dict[str, float]]] = {}
    if cand_path is not None:
        candidates, run = _candidates_of(cand_path, skip_malformed, parsed)
        runs[cand_path.name] = run
    qrels_: Qrels | None = None
    if qrels_path is not None:
        qrels_ = {
            q: dict(v) for q, v in read_qrels(qrels_path, skip_malformed=skip_malformed).items()
        }
    names = {
        "queries": desc.queries.name if desc.queries else "the rank_llm file",
        "documents": desc.documents.name if desc.documents else "the rank_llm file",
        "candidates": cand_path.name if cand_path else "",
        "qrels": qrels_path.name if qrels_path else "",
    }
    candidates, qrels_ = _check_ids(
        str(desc.path), desc.missing_ids, queries, documents, candidates, qrels_, names
    )
    warn_unreachable_threshold(qrels_, desc.rel_threshold, desc.where("rel_threshold"))
    without: list[str] = []
    if candidates is not None:
        # a re-ranking set holds the queries that have a candidate list: topics files often
        # list more (TREC DL 2019: 200 topics, 43 judged and retrieved)
        without = [q for q in queries if q not in candidates]
        queries = {q: v for q, v in queries.items() if q in candidates}
        if qrels_ is not None:
            qrels_ = {q: v for q, v in qrels_.items() if q in candidates}
    return Dataset(
        name=desc.name,
        queries=queries,
        documents=documents,
        qrels=qrels_,
        candidates=candidates,
        split=None,
        language=desc.language,
        doc_language=desc.doc_language,
        rel_threshold=desc.rel_threshold,
        description=desc.description or f"dataset described by {desc.path.name}",
        metadata={
            "source": str(desc.path.resolve()),
            "files": {k: str(getattr(desc, k)) for k in _PATH_KEYS if getattr(desc, k)},
            "runs": runs,
            "queries_without_candidates": len(without),
        },
    )


def load_rankllm_dataset(
    path: str | Path,
    *,
    qrels: str | Path | None = None,
    name: str | None = None,
    rel_threshold: int = 1,
    language: str = "en",
    skip_malformed: bool = False,
) -> Dataset:
    """A re-ranking dataset from one rank_llm retrieve-results JSON (queries, candidate lists in
    rank order, passage texts), with qrels from ``qrels`` (TREC qrels) when given."""
    from axiomatic.data.trec import read_qrels

    path = Path(path).expanduser()
    rel_threshold = check_rel_threshold(rel_threshold, f"rank_llm dataset {path}")
    if not path.is_file():
        raise DescriptorError(f"rank_llm results file {path}{_near_files(path)} does not exist")
    res = _rankllm(path, {})
    qrels_: Qrels | None = None
    qname = ""
    if qrels is not None:
        qpath = Path(qrels).expanduser()
        qname = qpath.name
        qrels_ = {q: dict(v) for q, v in read_qrels(qpath, skip_malformed=skip_malformed).items()}
    candidates: dict[str, list[str]] | None = {q: list(v) for q, v in res.candidates.items()}
    names = {"queries": path.name, "documents": path.name, "candidates": path.name, "qrels": qname}
    candidates, qrels_ = _check_ids(
        str(path), "error", dict(res.queries), dict(res.documents), candidates, qrels_, names
    )
    warn_unreachable_threshold(qrels_, rel_threshold, str(path))
    stem = path.name[: -len(".gz")] if path.name.endswith(".gz") else path.name
    return Dataset(
        name=name or Path(stem).stem,
        queries=dict(res.queries),
        documents=dict(res.documents),
        qrels=qrels_,
        candidates=candidates,
        split=None,
        language=language,
        rel_threshold=rel_threshold,
        description=f"rank_llm results {path.name}" + (f" with qrels {qname}" if qname else ""),
        metadata={"source": str(path.resolve()), "runs": {path.name: res.run}},
    )


def load_dataset_file(
    spec: str | Path, *, qrels: str | Path | None = None, skip_malformed: bool = False
) -> Dataset:
    """A dataset from a descriptor (``.toml``) or a rank_llm JSON (``.json``/``.json.gz``)."""
    path = Path(spec).expanduser()
    if path.name.lower().endswith((".json", ".json.gz")):
        return load_rankllm_dataset(path, qrels=qrels, skip_malformed=skip_malformed)
    if path.name.lower().endswith(".toml"):
        return load_descriptor(path, qrels=qrels, skip_malformed=skip_malformed)
    if path.is_file():
        head = _head(path, 1)
        if head in ("[", "{"):
            raise DescriptorError(
                f"{path}: a dataset file must be named *.toml (descriptor) or *.json (rank_llm "
                "results); rename it so that its format is clear"
            )
        return load_descriptor(path, qrels=qrels, skip_malformed=skip_malformed)
    raise DescriptorError(f"dataset file {path}{_near_files(path)} does not exist")


def write_descriptor_template(path: str | Path, *, overwrite: bool = False) -> Path:
    """Write a commented descriptor template to ``path`` (refusing to replace a file unless
    ``overwrite``); returns the path."""
    from axiomatic._atomic import atomic_write_text

    path = Path(path).expanduser()
    if path.exists() and not overwrite:
        raise DescriptorError(f"{path} exists; pass --force to replace it, or choose another name")
    if path.is_dir():
        raise DescriptorError(
            f"{path} is a folder; give a file name such as {path / 'dataset.toml'}"
        )
    name = path.stem if path.suffix == ".toml" else path.name
    atomic_write_text(path, TEMPLATE.format(file=path.name, name=name))
    return path
