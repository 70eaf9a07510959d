"""WikiQA as processed by Castor (``castorini/data``): four line-aligned files per split,
``a.toks`` (question), ``b.toks`` (candidate sentence), ``id.txt`` (question number), ``sim.txt``
(label 1/0). Candidate sentences get ids ``<question id>-<position>`` (a sentence text that
occurs for two questions is two documents)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from axiomatic.data._io import parse_grade, read_text, require_nonempty
from axiomatic.data.errors import ParseError
from axiomatic.data.records import Document, Qrels, Query


@dataclass
class PairwiseSet:
    queries: dict[str, Query]
    documents: dict[str, Document]
    candidates: dict[str, list[str]]
    qrels: Qrels


def _lines(path: Path) -> list[str]:
    lines = read_text(path).split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return [ln.rstrip("\r") for ln in lines]


def read_wikiqa_castor(folder: str | Path) -> PairwiseSet:
    folder = Path(folder)
    cols = {n: _lines(folder / n) for n in ("a.toks", "b.toks", "id.txt", "sim.txt")}
    sizes = {n: len(v) for n, v in cols.items()}
    if len(set(sizes.values())) != 1:
        raise ParseError(
            f"files are not line-aligned: {sizes}",
            folder,
            None,
            "a.toks, b.toks, id.txt and sim.txt with the same number of lines",
        )
    out = PairwiseSet({}, {}, {}, {})
    for i, (q, b, qid, sim) in enumerate(
        zip(cols["a.toks"], cols["b.toks"], cols["id.txt"], cols["sim.txt"], strict=True)
    ):
        qid = qid.strip()
        if not qid or any(c.isspace() for c in qid):
            raise ParseError(
                f"question id {qid!r} is empty or contains whitespace",
                folder / "id.txt",
                i + 1,
                "one question id per line",
            )
        try:
            label = parse_grade(sim.strip(), "label")
        except ValueError as exc:
            raise ParseError(
                str(exc), folder / "sim.txt", i + 1, "one integer label (0/1) per line"
            ) from None
        out.queries.setdefault(qid, Query(qid, q.strip()))
        cands = out.candidates.setdefault(qid, [])
        did = f"{qid}-{len(cands)}"
        cands.append(did)
        out.documents[did] = Document(did, b.strip())
        out.qrels.setdefault(qid, {})[did] = label
    require_nonempty(len(out.queries), folder / "id.txt", "question", "one question per line")
    return out
