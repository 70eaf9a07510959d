"""MS MARCO passage files: the dev-top20 JSON files of Gielen's thesis and the graded
re-assessments (``relevance_labels/data.json``), plus ``qid<TAB>text`` TSVs.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from axiomatic.data._io import (
    STRUCTURE_ERRORS,
    json_id,
    json_int,
    json_str,
    malformed,
    parse_grade,
    read_json,
)
from axiomatic.data.errors import ParseError
from axiomatic.data.records import Document, Qrels, Query

_TOP20_EXPECTED = (
    "a JSON list of {query_id, passage_id, ranking, query_text, passage_text, relevance_label}"
)


@dataclass
class Top20:
    queries: dict[str, Query]
    documents: dict[str, Document]
    candidates: dict[str, list[str]]
    qrels: Qrels
    bm25_labels: dict[str, dict[str, str]] = field(default_factory=dict)


def read_top20_folder(folder: str | Path) -> Top20:
    """Read every ``<qid>.json`` of ``sampled_files/`` (candidates ordered by ``ranking``).

    Qrels hold the MS MARCO label (0/1) of all 20 candidates of each query.
    """
    folder = Path(folder)
    files = sorted(folder.glob("*.json"), key=lambda p: (len(p.stem), p.stem))
    if not files:
        raise FileNotFoundError(f"{folder}: no <query_id>.json files found")
    out = Top20({}, {}, {}, {})
    for path in files:
        rows = read_json(path, _TOP20_EXPECTED)
        try:
            if not isinstance(rows, list) or not rows:
                raise ValueError("the file is not a non-empty JSON list of rows")
            if not all(isinstance(r, dict) for r in rows):
                raise ValueError("every row must be a JSON object")
            ranked = sorted(rows, key=lambda r: json_int(r["ranking"], "ranking"))
            for r in ranked:
                qid = json_id(r["query_id"], "query_id")
                did = json_id(r["passage_id"], "passage_id")
                qtext = " ".join(json_str(r["query_text"], "query_text").split())
                ptext = json_str(r["passage_text"], "passage_text")
                label = parse_grade(r["relevance_label"], "relevance_label")
                bm25 = r.get("bm25_label", "")
                out.queries.setdefault(qid, Query(qid, qtext))
                if did not in out.documents:
                    out.documents[did] = Document(did, ptext)
                cands = out.candidates.setdefault(qid, [])
                if did not in out.qrels.get(qid, {}):
                    cands.append(did)
                out.qrels.setdefault(qid, {})[did] = label
                out.bm25_labels.setdefault(qid, {})[did] = "" if bm25 is None else str(bm25)
        except STRUCTURE_ERRORS as exc:
            raise ParseError(
                f"malformed row ({malformed(exc)})", path, None, _TOP20_EXPECTED
            ) from None
    return out


@dataclass
class GradedLabels:
    """Graded (1-5) re-assessments: per pair the MS MARCO label and every assessor's grade.

    ``"no_input"`` entries (an assessor skipped the pair) are not grades and are dropped; a pair
    without any grade is absent from ``grades``.
    """

    msmarco_label: dict[str, dict[str, int]]
    grades: dict[str, dict[str, list[int]]]

    def aggregated(self, how: str = "median") -> Qrels:
        """One grade per pair: ``median`` (upper median: an actual grade, ties towards the higher
        one; it reproduces the thesis' own aggregation, ``thesis_dataset_graded_relevance.tsv``,
        on 762 of its 800 pairs), ``max`` or ``min``."""
        if how not in ("median", "max", "min"):
            raise ValueError(f"unknown aggregation {how!r}; expected 'median', 'max' or 'min'")
        out: Qrels = {}
        for qid, docs in self.grades.items():
            for did, gs in docs.items():
                s = sorted(gs)
                g = s[len(s) // 2] if how == "median" else (s[-1] if how == "max" else s[0])
                out.setdefault(qid, {})[did] = g
        return out


def read_graded_labels(path: str | Path) -> GradedLabels:
    """Read ``relevance_labels/data.json``:
    ``{qid: {pid: ["relevant"|"irrelevant", uid, grade, uid, grade, ...]}}``.
    """
    expected = '{qid: {pid: ["relevant"|"irrelevant", assessor, "grade", ...]}}'
    data = read_json(path, expected)
    if not isinstance(data, dict) or not all(isinstance(v, dict) for v in data.values()):
        raise ParseError("top-level JSON is not an object of objects", path, None, expected)
    labels = GradedLabels({}, {})
    for qid, docs in data.items():
        for did, value in docs.items():
            try:
                if not isinstance(value, list) or not value:
                    raise ValueError("not a non-empty list")
                label = {"relevant": 1, "irrelevant": 0}[value[0]]
                # assessors who skipped a pair are recorded as "no_input": not a grade
                grades = [parse_grade(g, "grade") for g in value[2::2] if g != "no_input"]
            except (*STRUCTURE_ERRORS,):
                raise ParseError(
                    f"pair ({qid}, {did}) is malformed: {value!r}"[:200], path, None, expected
                ) from None
            labels.msmarco_label.setdefault(str(qid), {})[str(did)] = label
            if grades:
                labels.grades.setdefault(str(qid), {})[str(did)] = grades
    if not labels.msmarco_label:
        raise ParseError("no labelled pair", path, None, expected)
    return labels
