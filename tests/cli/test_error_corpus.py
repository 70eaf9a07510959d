"""The CLI error corpus: one bad input per reader and per spec kind, driven through
the real CLI (typer's CliRunner, as in test_errors.py). Every case must end as exactly one
``error:`` line with exit code 2: no traceback, no "internal error", no foreign exception.

Readers are reached through the commands that use them: ``evaluate --run`` (TREC runs, also
gzipped), ``--qrels``, ``--dataset FILE`` (descriptors and the topics, documents, qrels and
candidates files they name; rank_llm JSON) and ``--dataset NAME --data-root ROOT`` for every
built-in collection's reader, with a broken file where the catalog expects it.
"""

from __future__ import annotations

import gzip
import json
from collections.abc import Callable
from pathlib import Path

import pytest
from typer.testing import CliRunner

from axiomatic.cli.main import app
from axiomatic.data.instances import MANIFEST

runner = CliRunner()

RUN = "q1 Q0 d1 1 2.0 t\n"


def _expect_one_error(args: list[str], expect: str, env: dict[str, str] | None = None) -> None:
    """Exit code 2 and one ``error:`` line that contains ``expect`` and, when the command reads
    a file given on the command line, names it (checked by the callers' ``expect``)."""
    res = runner.invoke(app, args, env=env)
    out = res.output
    assert res.exception is None or isinstance(res.exception, SystemExit), (
        f"uncaught {type(res.exception).__name__}: {res.exception}\n{out}"
    )
    assert "Traceback" not in out, out
    assert "internal error" not in out, out
    assert res.exit_code == 2, out
    errors = [line for line in out.splitlines() if line.startswith("error:")]
    assert len(errors) == 1, out
    assert expect in out.replace("\n", ""), out


def _write(root: Path, files: dict[str, bytes | str]) -> None:
    for rel, data in files.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(data.encode("utf-8") if isinstance(data, str) else data)


def _truncated_gz(data: bytes) -> bytes:
    return gzip.compress(data, mtime=0)[:-12]


def _gz_bomb(unit: bytes, mib: int) -> bytes:
    """A run line, then ``mib`` MiB of ``unit`` (concatenated gzip members: ~1 KB per MiB)."""
    member = gzip.compress(unit * (1 << 20), compresslevel=9, mtime=0)
    return gzip.compress(RUN.encode(), mtime=0) + member * mib


# ----------------------------------------------------------------------- runs, qrels (evaluate)
RUN_CASES: dict[str, tuple[str, bytes, str]] = {
    "truncated-gz": ("r.trec.gz", _truncated_gz(RUN.encode() * 100), "gzip stream is truncated"),
    "not-gzip": ("r.trec.gz", RUN.encode(), "not a gzip file"),
    # bounded work and memory: 64 MiB in 64 KB, refused after a few MB
    "gzip-bomb-line-ends": (
        "r.trec.gz",
        _gz_bomb(b"\n", 64),
        "r.trec.gz:1000002: more than 1,000,000 blank lines",
    ),
    "gzip-bomb-no-line-end": (
        "r.trec.gz",
        _gz_bomb(b"x", 64),
        "decompresses to more than 16 MiB, over 100 times its compressed size of 65.72 KiB",
    ),
    "latin1": ("r.trec", b"q1 Q0 d\xe9 1 2.0 t\n", "is not valid utf-8"),
    "columns": ("r.trec", b"q1 Q0 d1 1 2.0\n", "found 5 column(s)"),
    "inf-score": ("r.trec", b"q1 Q0 d1 1 inf t\n", "is not a finite ASCII decimal"),
    "huge-score": ("r.trec", b"q1 Q0 d1 1 1" + b"0" * 400 + b" t\n", "is not a finite ASCII"),
    "conflict": ("r.trec", (RUN + "q1 Q0 d1 2 3.0 t\n").encode(), "again with score 3.0"),
    "empty": ("r.trec", b"\n\n", "no run lines"),
    # columns separated as trec_eval separates them: spaces and tabs only
    "no-break-space": (
        "r.trec",
        "q1 Q0 d1 1 2.0\u00a0t\n".encode(),
        "r.trec:1: character 15 is U+00A0 (NO-BREAK SPACE), whitespace that does not separate "
        "columns",
    ),
    "ideographic-space": ("r.trec", "q1\u3000Q0 d1 1 2.0 t\n".encode(), "U+3000"),
    "file-separator": ("r.trec", b"q1 Q0 d1 1 2.0\x1ct\n", "r.trec:1: character 15 is U+001C"),
    "next-line": ("r.trec", "q1 Q0 d1\u0085 1 2.0 t\n".encode(), "r.trec:1: character 9 is U+0085"),
    "only-odd-space": ("r.trec", (RUN + "\u00a0\n").encode(), "r.trec:2: character 1 is U+00A0"),
}


@pytest.mark.parametrize("case", sorted(RUN_CASES))
def test_bad_runs(tmp_path: Path, case: str) -> None:
    name, data, expect = RUN_CASES[case]
    _write(tmp_path, {name: data})
    _expect_one_error(["evaluate", "-d", "demo", "--run", str(tmp_path / name)], expect)


def test_a_gzip_bomb_run(tmp_path: Path) -> None:
    _write(tmp_path, {"bomb.trec.gz": gzip.compress(RUN.encode() + b"\n" * (1 << 20))})
    _expect_one_error(
        ["evaluate", "-d", "demo", "--run", str(tmp_path / "bomb.trec.gz")],
        "decompresses to more than 256 KiB",
        env={"AXIOMATIC_MAX_DECOMPRESSED": "256K"},
    )


def test_a_line_without_end(tmp_path: Path) -> None:
    _write(tmp_path, {"r.trec": RUN + "q1 Q0 " + "d" * 5000})
    _expect_one_error(
        ["evaluate", "-d", "demo", "--run", str(tmp_path / "r.trec")],
        "r.trec:2: the line is longer than 4 KiB",
        env={"AXIOMATIC_MAX_LINE": "4K"},
    )


def test_bad_qrels(tmp_path: Path) -> None:
    _write(tmp_path, {"r.trec": RUN, "q.txt": "q1 0 d1 1.5\n"})
    args = ["evaluate", "-d", "demo", "--run", str(tmp_path / "r.trec")]
    _expect_one_error([*args, "--qrels", str(tmp_path / "q.txt")], "q.txt:1: relevance '1.5'")
    _write(tmp_path, {"q2.txt": "q1 0 d1 1\nq1\u00a00 d2 1\n"})
    _expect_one_error(
        [*args, "--qrels", str(tmp_path / "q2.txt")], "q2.txt:2: character 3 is U+00A0"
    )


# ----------------------------------------------------------------------- dataset files (-d FILE)
TOPICS, DOCS, QRELS = "1\tcats\n", "d1\tcats purr\nd2\tdogs\n", "1 0 d1 1\n"


def _descriptor(root: Path, extra: str = "", **files: str | tuple[str, str]) -> Path:
    """A descriptor of good topics, documents and qrels; ``key=TEXT`` (or ``key=(NAME, TEXT)``)
    replaces the file of ``key`` by a bad one (named ``bad-KEY.txt`` or NAME)."""
    names = {"queries": "t.tsv", "documents": "d.tsv", "qrels": "q.txt"}
    content: dict[str, bytes | str] = {"t.tsv": TOPICS, "d.tsv": DOCS, "q.txt": QRELS}
    lines = ["[dataset]"]
    for key, value in files.items():
        name, text = value if isinstance(value, tuple) else (f"bad-{key}.txt", value)
        names[key] = name
        content[name] = text
    for key, name in names.items():
        lines.append(f'{key} = "{name}"')
    _write(root, content)
    path = root / "my.toml"
    path.write_text("\n".join(lines) + "\n" + extra, encoding="utf-8")
    return path


def _rankllm(*entries: tuple[str, int, str, object]) -> str:
    return json.dumps(
        [
            {"query": q, "hits": [{"content": "t", "qid": qid, "docid": d, "rank": 1, "score": s}]}
            for q, qid, d, s in entries
        ]
    )


DATASET_FILE_CASES: dict[str, tuple[Callable[[Path], Path], str]] = {
    "descriptor-toml": (
        lambda r: _write(r, {"my.toml": "[dataset\n"}) or r / "my.toml",
        "not valid TOML",
    ),
    "descriptor-rel-threshold-0": (
        lambda r: _descriptor(r, "rel_threshold = 0\n"),
        "rel_threshold must be a positive grade",
    ),
    "descriptor-unknown-key": (lambda r: _descriptor(r, "qrles = 'x'\n"), "unknown key 'qrles'"),
    "descriptor-deep": (
        lambda r: _descriptor(r, "x = " + "[" * 5000 + "]" * 5000 + "\n"),
        "my.toml: not valid TOML (arrays or inline tables nest too deep to read)",
    ),
    "descriptor-language-name": (
        lambda r: _descriptor(r, 'language = "english"\n'),
        "my.toml:5: language: unknown language 'english' (did you mean 'en'?); expected an ISO "
        "639-1 code, one of ar, de,",
    ),
    "descriptor-language-german": (
        lambda r: _descriptor(r, 'language = "german"\n'),
        "unknown language 'german' (did you mean 'de'?)",
    ),
    "descriptor-language-garbage": (
        lambda r: _descriptor(r, 'language = "???"\n'),
        "unknown language '???'; expected an ISO 639-1 code, one of",
    ),
    "descriptor-doc-language": (
        lambda r: _descriptor(r, 'doc_language = "deutsch"\n'),
        "my.toml:5: doc_language: unknown language 'deutsch'",
    ),
    "descriptor-symlink-loop": (
        lambda r: (r / "loop.toml").symlink_to(r / "loop.toml") or r / "loop.toml",
        "symbolic link",
    ),
    "topics-tsv": (lambda r: _descriptor(r, queries="no tab here\n"), "no tab-separated query id"),
    "topics-sgml": (
        lambda r: _descriptor(r, queries="<top>\n<num> 1\n<title> x\n"),
        "<top> is not closed",
    ),
    "topics-xml": (
        lambda r: _descriptor(r, queries='<topics><topic number="1"><query>x</topics>'),
        "not well-formed XML",
    ),
    "documents-tsv": (lambda r: _descriptor(r, documents="d1 no tab\n"), "bad-documents.txt:1"),
    "documents-jsonl": (
        lambda r: _descriptor(r, documents=("d.jsonl", '{"doc_id": "d1", "text": \n')),
        "invalid JSON",
    ),
    "documents-trec": (
        lambda r: _descriptor(r, documents="<DOC>\n<DOCNO> d1 </DOCNO>\ntext\n"),
        "bad-documents.txt",
    ),
    "qrels": (lambda r: _descriptor(r, qrels="1 0 d1 x\n"), "bad-qrels.txt:1"),
    "candidates-run": (
        lambda r: _descriptor(r, candidates="1 Q0 d1 1 nan t\n"),
        "bad-candidates.txt:1",
    ),
    "rankllm-huge-integer": (
        lambda r: _write(r, {"r.json": _rankllm(("q", 1, "d1", 10**400))}) or r / "r.json",
        "out of the range of a float",
    ),
    "rankllm-query-twice": (
        lambda r: (
            _write(r, {"r.json": _rankllm(("q", 1, "d1", 1.0), ("q", 1, "d1", 2.0))})
            or r / "r.json"
        ),
        "repeats query '1' of entry 0 with other hits",
    ),
    "rankllm-truncated-gz": (
        lambda r: (
            _write(r, {"r.json.gz": _truncated_gz(_rankllm(("q", 1, "d", 1.0)).encode())})
            or r / "r.json.gz"
        ),
        "gzip stream is truncated",
    ),
}


@pytest.mark.parametrize("case", sorted(DATASET_FILE_CASES))
def test_bad_dataset_files(tmp_path: Path, case: str) -> None:
    make, expect = DATASET_FILE_CASES[case]
    dataset = make(tmp_path)
    _write(tmp_path, {"r.trec": RUN})
    _expect_one_error(["evaluate", "-d", str(dataset), "--run", str(tmp_path / "r.trec")], expect)


# ----------------------------------------------------------------------- built-in collections
_TOP20_ROW = {
    "query_id": 1,
    "passage_id": 2,
    "ranking": 1,
    "query_text": "q",
    "passage_text": "p",
    "bm25_label": "high",
    "relevance_label": 1.0,
}
_MS = "msmarco-passage-dev-bm25top20-graded/raw/firebase"
_DL = "msmarco-passage-trecdl/raw"
COLLECTION_CASES: dict[str, tuple[str, dict[str, bytes | str], str]] = {
    "sasaki": (
        "sasaki-sw/test",
        {"wikiclir-sasaki2018-sw-sample/raw/test1_sw_l100.txt": "1\tonly two\n"},
        "test1_sw_l100.txt:1",
    ),
    "xquad": (
        "xquad-clir/en-de/test",
        {"xquad-clir/raw/xquad.en.json": "{not json", "xquad-clir/raw/xquad.de.json": "{}"},
        "xquad.en.json",
    ),
    "qbqtc": (
        "qbqtc/dev",
        {"qbqtc-zh-listwise-2021-10/raw/dev.json": '{"id": 1}\n'},
        "dev.json",
    ),
    "qbqtc-pointwise": (
        "qbqtc-pointwise/dev",
        {"qbqtc-zh/raw/dataset/dev.json": "[\n"},
        "dev.json",
    ),
    "rag24": (
        "trec-rag24",
        {
            "trec-rag24-retrieval-top20/raw/study1_retrieval.jsonl.gz": _truncated_gz(b"{}\n" * 99),
            "trec-rag24-retrieval-top20/raw/2024-retrieval-qrels.txt": "1 0 d 1\n",
        },
        "gzip stream is truncated",
    ),
    "msmarco-top20": (
        "msmarco-dev-top20",
        {f"{_MS}/sampled_files/1.json": "[{"},
        "1.json",
    ),
    "msmarco-graded": (
        "msmarco-dev-top20-graded",
        {
            f"{_MS}/sampled_files/1.json": json.dumps([_TOP20_ROW]),
            f"{_MS}/relevance_labels/data.json": '{"1": {"2": 5}}',
        },
        "data.json",
    ),
    "trec-dl-rankllm": (
        "trec-dl-2019/bm25",
        {
            f"{_DL}/anserini-tools/qrels/qrels.dl19-passage.txt": "1 0 d1 2\n",
            f"{_DL}/rank_llm/BM25/retrieve_results_dl19.json": _rankllm(("q", 1, "d1", 10**400)),
        },
        "out of the range of a float",
    ),
    "scifact": (
        "scifact/test",
        {
            "scifact/raw/claims_validation.csv": "id,claim,cited_doc_ids\n1,a claim,[ 1]\n",
            "scifact/raw/corpus_train.csv": "doc_id,title\n1,x\n",
        },
        "corpus_train.csv",
    ),
    "smart": (
        "cisi",
        {
            "cisi/raw/CISI.ALL": "text before any record\n",
            "cisi/raw/CISI.QRY": "",
            "cisi/raw/CISI.REL": "",
        },
        "CISI.ALL",
    ),
    "cranfield": (
        "cranfield",
        {
            "cranfield/raw/cran.all.1400": ".I 1\n.W\ntext\n",
            "cranfield/raw/cran.qry": ".I 1\n.W\nquery\n",
            "cranfield/raw/cranqrel": "1 1 x\n",
        },
        "cranqrel:1",
    ),
    "trec-docs": (
        "vaswani",
        {
            "vaswani-npl/raw/query-text.trec": "1\tquery\n",
            "vaswani-npl/raw/corpus/doc-text.trec": "<DOC>\n<DOCNO> 1 </DOCNO>\ntext\n",
            "vaswani-npl/raw/qrels": "1 0 1 1\n",
        },
        "doc-text.trec",
    ),
    "cystic-fibrosis": (
        "cystic-fibrosis",
        {"cystic-fibrosis-cf/raw/cf74": "garbage\n", "cystic-fibrosis-cf/raw/cfquery": "garbage\n"},
        "cystic-fibrosis-cf",
    ),
    "tsv-documents": (
        "nfcorpus/test",
        {
            "nfcorpus-original/raw/test.titles.queries": "q1\tquery\n",
            "nfcorpus-original/raw/test.3-2-1.qrel": "q1 0 d1 1\n",
            "nfcorpus-original/raw/test.docs": "d1 no tab\n",
        },
        "test.docs:1",
    ),
    "noveleval": (
        "noveleval",
        {
            "noveleval-2306/raw/corpus.tsv": "d1 no tab\n",
            "noveleval-2306/raw/queries.tsv": "1\tq\n",
            "noveleval-2306/raw/qrels.txt": "1 0 d1 1\n",
            "noveleval-2306/raw/data.json": "[]",
        },
        "corpus.tsv:1",
    ),
    "wikiqa": (
        "wikiqa/dev",
        {
            "wikiqa-castor/raw/dev/a.toks": "q one\nq two\n",
            "wikiqa-castor/raw/dev/b.toks": "a one\n",
            "wikiqa-castor/raw/dev/id.txt": "1\n2\n",
            "wikiqa-castor/raw/dev/sim.txt": "1\n0\n",
        },
        "wikiqa-castor",
    ),
    "wikipassageqa": (
        "wikipassageqa/dev",
        {"wikipassageqa/raw/dev.tsv": "garbage\n", "wikipassageqa/document_passages.json": "[1"},
        "wikipassageqa",
    ),
}


@pytest.mark.parametrize("case", sorted(COLLECTION_CASES))
def test_bad_collection_files(tmp_path: Path, case: str, monkeypatch) -> None:
    monkeypatch.delenv("AXIOMATIC_WIKIPASSAGEQA_PASSAGES", raising=False)
    name, files, expect = COLLECTION_CASES[case]
    root = tmp_path / "data"
    _write(root, {**files, "../r.trec": RUN})
    args = ["evaluate", "-d", name, "--data-root", str(root), "--run", str(tmp_path / "r.trec")]
    _expect_one_error(args, expect)


# ----------------------------------------------------------------------- specs and configs
DASHES = "-" * 100_000
SPEC_CASES: dict[str, tuple[list[str], str]] = {
    "ranker-too-long": (["rank", "-d", "demo", "-r", f"bm25:k1={DASHES}"], "characters long"),
    "ranker-too-deep": (["rank", "-d", "demo", "-r", "bm25:k1=" + "-" * 5000 + "1"], "levels deep"),
    "ranker-unknown": (["rank", "-d", "demo", "-r", "bm52"], "bm52"),
    "ranker-value": (["rank", "-d", "demo", "-r", "bm25:k1={[]:1}"], "must be a literal"),
    "axiom-or-chain": (["mine", "-d", "demo", "-a", "TFC1|" * 9999 + "TFC1"], "characters long"),
    "axiom-and-chain": (["mine", "-d", "demo", "-a", "TFC1 & " * 5000 + "TFC1"], "characters"),
    "axiom-deep": (["mine", "-d", "demo", "-a", "TFC1|" * 1500 + "TFC1"], "levels deep"),
    "axiom-params": (["mine", "-d", "demo", "-a", f"TFC1(delta_rel={DASHES})"], "characters"),
    "axiom-unknown": (["mine", "-d", "demo", "-a", "TFX1"], "TFX1"),
    "axiom-list-and": (
        ["mine", "-d", "demo", "-a", "DIV and LNC1"],
        "'and' between axioms in 'DIV and LNC1' would be mined as one more axiom (the AND axiom)"
        ", not read as a connective: list the axioms with commas ('DIV,LNC1')",
    ),
    "axiom-listed-twice": (
        ["mine", "-d", "demo", "-a", "TFC1 LNC2 TFC1(variant='relaxed')"],
        "axiom TFC1(variant='relaxed', delta_rel=0.1) is listed 2 times; list each axiom once",
    ),
    "axiom-listed-20000-times": (["mine", "-d", "demo", "-a", "TFC1 " * 20_000], "20000 times"),
    "axiom-list-AND": (["mine", "-d", "demo", "-a", "TFC1 DIV AND LNC1"], "'TFC1,DIV,AND,LNC1'"),
    "analyzer": (["rank", "-d", "demo", "--analyzer", f"stopwords={DASHES}"], "characters long"),
    "analyzer-unknown": (["rank", "-d", "demo", "--analyzer", "thesys"], "unknown analyzer"),
    "analyzer-language": (
        ["rank", "-d", "demo", "--analyzer", "language=english"],
        "unknown language 'english' (did you mean 'en'?)",
    ),
    "regularizer": (["train", "-d", "demo", "--regularizer", f"ar(lambda={DASHES})"], "characters"),
    "augmentation": (
        ["train", "-d", "demo", "--augmentation", "perturb(axioms=" + "-" * 5000 + "1)"],
        "levels deep",
    ),
    "measures": (["evaluate", "-d", "demo", "--run", "RUN", "--measures", "P@0"], "--measures"),
    # a number parameter takes a finite ASCII number literal only
    "regularizer-bool": (
        ["train", "-d", "demo", "--regularizer", "ar(lambda=true, mu=True)"],
        "regularizer lambda in 'ar(lambda=true, mu=True)' must be a number (got true, a boolean)",
    ),
    "regularizer-full-width": (
        ["train", "-d", "demo", "--regularizer", "ar(lambda=\uff10.\uff11)"],
        "non-ASCII digits; write ASCII digits 0-9",
    ),
    "regularizer-quoted": (
        ["train", "-d", "demo", "--regularizer", 'ar(lambda="0.1")'],
        "(got '0.1': a string; write the number without quotes)",
    ),
    "regularizer-huge-integer": (
        ["train", "-d", "demo", "--regularizer", f"ar(mu=1{'0' * 400})"],
        "regularizer mu in 'ar(mu=1000",
    ),
    "regularizer-huge-integer-range": (
        ["train", "-d", "demo", "--regularizer", f"ar(mu=1{'0' * 400})"],
        "must be a finite number (got an integer of about 401 digits, out of the range of a float)",
    ),
    "regularizer-negative": (
        ["train", "-d", "demo", "--regularizer", "ar(lambda=-1)"],
        "regularizer lambda in 'ar(lambda=-1)' must be a finite number >= 0 (got -1.0, a number)",
    ),
    "regularizer-nan": (
        ["train", "-d", "demo", "--regularizer", "ar(lambda=nan)"],
        "(got 'nan': not a finite number)",
    ),
    "augmentation-delta-inf": (
        ["train", "-d", "demo", "--augmentation", "diagnostic(instances=x, delta_max=1e400)"],
        "diagnostic delta_max must be a finite number (got inf)",
    ),
    "axiom-weight-inf": (
        ["mine", "-d", "demo", "-a", "1e400*DIV + TFC3"],
        "the weight '1e400' must be a finite number (got inf)",
    ),
    "axiom-weight-overflow": (
        ["mine", "-d", "demo", "-a", "TFC3/1e-310"],
        "1 / 1e-310 must be a finite number (got inf)",
    ),
    "axiom-param-inf": (
        ["mine", "-d", "demo", "-a", "TFC3(delta_rel=1e400)"],
        "TFC3: parameter delta_rel must be a finite number (got inf)",
    ),
    "axiom-param-bool": (
        ["mine", "-d", "demo", "-a", "TFC1(delta_rel=True)"],
        "TFC1: parameter delta_rel must be a number (got true, a boolean)",
    ),
    "ranker-param-bool": (
        ["rank", "-d", "demo", "-r", "bm25:k1=true"],
        "parameter 'k1' of ranker 'bm25'",
    ),
    "ranker-k1-huge-integer": (
        ["rank", "-d", "demo", "-r", f"bm25:k1=1{'0' * 400}"],
        "out of the range of a float",
    ),
    "axiom-weight-huge-integer": (
        ["mine", "-d", "demo", "-a", f"1{'0' * 400}*DIV + TFC3"],
        "must be a finite number",
    ),
    "ranker-param-huge-integer": (
        ["rank", "-d", "demo", "-r", f"bm25:b=1{'0' * 400}"],
        "out of the range of a float",
    ),
    "weights": (
        ["rerank", "-d", "demo", "-o", "OUT", "-a", "TFC1", "--weights", "x"],
        "--weights",
    ),
}


@pytest.mark.parametrize("case", sorted(SPEC_CASES))
def test_bad_specs(tmp_path: Path, case: str) -> None:
    args, expect = SPEC_CASES[case]
    _write(tmp_path, {"r.trec": RUN})
    subst = {"RUN": str(tmp_path / "r.trec"), "OUT": str(tmp_path / "o.trec")}
    args = [subst.get(a, a) for a in args]
    if args[0] in ("rank", "mine", "train"):
        args += ["-o", str(tmp_path / "out")]
    _expect_one_error(args, expect)


CONFIG_CASES: dict[str, tuple[str, str]] = {
    "lr-bool": (
        "lr = true",
        "train.toml: setting 'lr' must be a finite number > 0 (got true, a boolean)",
    ),
    "epochs-negative": ("epochs = -1", "train.toml: setting 'epochs' must be a finite number > 0"),
    "dev-depth-negative": (
        "dev_depth = -1",
        "train.toml: setting 'dev_depth' must be an integer >= 1",
    ),
    "steps-text": ("steps = 'many'", "train.toml: setting 'steps' must be an integer >= 1"),
    "model-config-number": (
        "model_config = 3",
        "train.toml: setting 'model_config' must be a table",
    ),
    "loss-unknown": ("loss = 'hnge'", "train.toml: unknown loss 'hnge'"),
    "regularizer-deep": (
        "regularizer = 'ar(lambda=" + "-" * 5000 + "1)'",
        "train.toml: regularizer: the spec",
    ),
    "graded-loss-scale": (
        "loss = 'graded'\ngraded_loss = 'po(scale=0)'",
        "train.toml: graded loss 'po' parameter 'scale' in 'po(scale=0)' must be a finite number "
        "> 0 (got 0.0, a number)",
    ),
    "lr-schedule-gamma": (
        "lr_schedule = 'exponential(gamma=0)'",
        "train.toml: gamma of the exponential schedule in 'exponential(gamma=0)' must be a finite "
        "number > 0 and <= 1 (got 0.0, a number)",
    ),
    "toml-syntax": ("[train", "train.toml: invalid TOML"),
    # internal errors before: RecursionError, OverflowError, a TypeError
    "toml-deep": (
        "x = " + "[" * 5000 + "]" * 5000,
        "train.toml: invalid TOML: arrays or inline tables nest too deep to read",
    ),
    "toml-deep-table": ("x = " + "{a = " * 5000 + "1" + "}" * 5000, "nest too deep to read"),
    "steps-beyond-toml": (
        f"steps = 1{'0' * 30}",
        "train.toml: setting 'train.steps' is an integer of 31 digits, beyond TOML's 64-bit",
    ),
    "steps-too-many": (
        "steps = 2147483648",
        "train.toml: setting 'steps' must be an integer < 2**31 (got 2147483648",
    ),
    "epochs-huge": (
        "epochs = 1e300",
        "setting 'epochs' must be a number < 2**31 (or left out) (got 1e+300",
    ),
    "regularizer-huge-integer": (
        f"regularizer = 'ar(lambda=1{'0' * 400})'",
        "train.toml: regularizer lambda in 'ar(lambda=1000",
    ),
    "model-config-unknown": (
        "model_config = {zzz = 1}",
        "model_config: KNRM has no option 'zzz'; options are ['embedding_dim',",
    ),
    "model-config-bool": (
        "model_config = {n_kernels = true}",
        "model_config: option 'n_kernels' of KNRM must be an integer >= 0 and < 2**31 (got True",
    ),
    "model-config-huge": (
        f"model_config = {{sigma = 1{'0' * 400}}}",
        "train.toml: setting 'train.model_config.sigma' is an integer of 401 digits",
    ),
    "model-config-inf": (
        "model_config = {sigma = inf}",
        "model_config: option 'sigma' of KNRM must be a finite number (got inf, float)",
    ),
}


@pytest.mark.parametrize("case", sorted(CONFIG_CASES))
def test_bad_train_configs(tmp_path: Path, case: str) -> None:
    line, expect = CONFIG_CASES[case]
    cfg = tmp_path / "train.toml"
    cfg.write_text(f"[train]\ndataset = 'demo'\n{line}\n", encoding="utf-8")
    out = tmp_path / "out"
    _expect_one_error(["train", "--config", str(cfg), "-o", str(out)], expect)
    assert not (out / "model.safetensors").exists()


PLAN_CASES: dict[str, tuple[str, str]] = {
    "lambda-nan": (
        "lambda_ = nan",
        "rosset2019 setting 'lambda_' must be a finite number (got nan)",
    ),
    "mu-inf": ("mu = inf", "rosset2019 setting 'mu' must be a finite number (got inf)"),
    "grid-nan": ("tune_grid = [0.1, nan]", "setting 'tune_grid' must be a finite number (got nan)"),
    "lambda-huge": (f"lambda_ = 1{'0' * 400}", "setting 'plan.lambda_' is an integer of 401"),
    "steps-beyond-toml": (
        f"steps = 1{'0' * 30}",
        "setting 'plan.steps' is an integer of 31 digits",
    ),
    "steps-too-many": (
        "steps = 4611686018427387904",
        "'steps' must be an integer < 2**31",
    ),
    "deep": ("x = " + "[" * 5000 + "]" * 5000, "plan.toml: invalid TOML: arrays or inline"),
}


@pytest.mark.parametrize("case", sorted(PLAN_CASES))
def test_bad_experiment_plans(tmp_path: Path, case: str) -> None:
    line, expect = PLAN_CASES[case]
    cfg = tmp_path / "plan.toml"
    cfg.write_text(f"[plan]\n{line}\n", encoding="utf-8")
    args = ["experiment", "rosset2019", "-c", str(cfg), "-o", str(tmp_path / "out")]
    _expect_one_error(args, expect)


PLAN_KINDS = {
    "5": "got 5 (int)",
    "true": "got True (bool)",
    "1.5": "got 1.5 (float)",
    "[1, 2]": "got [1, 2] (list)",
    "'x'": "got 'x' (str)",
}


@pytest.mark.parametrize("experiment", ["rosset2019", "rennings-augment", "liu-smooth"])
@pytest.mark.parametrize("value", sorted(PLAN_KINDS))
def test_a_plan_that_is_no_table(tmp_path: Path, experiment: str, value: str) -> None:
    cfg = tmp_path / "plan.toml"
    cfg.write_text(f"plan = {value}\n", encoding="utf-8")
    args = ["experiment", experiment, "-c", str(cfg), "-o", str(tmp_path / "out")]
    _expect_one_error(
        args,
        "plan.toml: 'plan' must be a table of settings ([plan] followed by key = value lines), "
        + PLAN_KINDS[value],
    )


# ----------------------------------------------------------------------- new inputs that work
def test_a_language_without_a_stemmer_is_mined_unstemmed_with_a_warning(tmp_path: Path) -> None:
    """sasaki-sw: PyStemmer has no swahili stemmer; mining used to end in an internal KeyError."""
    root = tmp_path / "data"
    _write(
        root,
        {
            "wikiclir-sasaki2018-sw-sample/raw/test1_sw_l100.txt": (
                "2\tchildren play\twatoto wanacheza mpira\n0\tchildren play\tmvua leo\n"
                "2\train today\tmvua inanyesha leo\n0\train today\twatoto\n"
            )
        },
    )
    args = ["mine", "-d", "sasaki-sw/test", "--data-root", str(root), "-a", "TFC1"]
    res = runner.invoke(app, [*args, "-o", str(tmp_path / "inst")])
    assert res.exit_code == 0, res.output
    assert "no Snowball stemmer for language 'sw'" in res.output.replace("\n", " ")


# ----------------------------------------------------------------------- mined folders (diagnose)
def _parquet_rows(path: Path, times: int = 2) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    table = pq.read_table(path)
    pq.write_table(pa.concat_tables([table] * times), path)


def _parquet_edit(path: Path) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    table = pq.read_table(path)
    i = table.schema.get_field_index("rel_a")
    pq.write_table(table.set_column(i, "rel_a", pa.array([9] * table.num_rows, pa.int64())), path)


def _parquet_spec(path: Path, spec: str) -> None:
    """Every row's spec replaced, and the manifest's hash updated to match (a consistent
    folder, but of axioms the manifest never mined)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from axiomatic.data.instances import file_sha256

    table = pq.read_table(path)
    i = table.schema.get_field_index("spec")
    pq.write_table(table.set_column(i, "spec", pa.array([spec] * table.num_rows)), path)
    manifest = path.parent / MANIFEST
    data = json.loads(manifest.read_text(encoding="utf-8"))
    data["shards"][path.stem]["sha256"] = file_sha256(path)
    manifest.write_text(json.dumps(data), encoding="utf-8")


def _deep_manifest(folder: Path) -> None:
    manifest = folder / MANIFEST
    text = manifest.read_text(encoding="utf-8")
    deep = '"complete": true, "x": ' + "[" * 1500 + "]" * 1500
    manifest.write_text(text.replace('"complete": true', deep, 1), encoding="utf-8")


MINED_CASES: dict[str, tuple[Callable[[Path], object], str]] = {
    "spec-not-mined": (
        lambda d: _parquet_spec(d / "shard-00000.parquet", "TFC9()"),
        "instances with axiom spec 'TFC9()' are not of the axioms",
    ),
    "spec-of-two-axioms": (
        lambda d: _parquet_spec(d / "shard-00000.parquet", "LNC2(variant='relaxed')"),
        "the axiom spec \"LNC2(variant='relaxed')\" is on rows of several axioms or variants",
    ),
    "manifest-deep": (_deep_manifest, "manifest.json is corrupt (its JSON nests too deep to read)"),
    "extra-shard": (
        lambda d: (d / "shard-00001.parquet").write_bytes((d / "shard-00000.parquet").read_bytes()),
        "shard-00001.parquet is not listed in",
    ),
    "duplicated-rows": (
        lambda d: _parquet_rows(d / "shard-00000.parquet"),
        "shard-00000.parquet holds 696 rows, the manifest recorded 348",
    ),
    "edited-shard": (
        lambda d: _parquet_edit(d / "shard-00000.parquet"),
        "shard-00000.parquet has other content than the manifest recorded",
    ),
    "missing-shard": (
        lambda d: (d / "shard-00000.parquet").unlink(),
        "shard-00000.parquet is listed in the manifest but missing",
    ),
}


@pytest.fixture(scope="module")
def mined_demo(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("mined") / "inst"
    res = runner.invoke(app, ["mine", "-d", "demo", "-a", "TFC1,LNC2", "-o", str(out)])
    assert res.exit_code == 0, res.output
    return out


@pytest.mark.parametrize("case", sorted(MINED_CASES))
def test_mined_folders_that_disagree_with_their_manifest(
    tmp_path: Path, case: str, mined_demo: Path
) -> None:
    import shutil

    damage, expect = MINED_CASES[case]
    inst = tmp_path / "inst"
    shutil.copytree(mined_demo, inst)
    damage(inst)
    args = ["diagnose", "-i", str(inst), "-r", "bm25", "--no-plots", "-o", str(tmp_path / "r")]
    _expect_one_error(args, expect)
    _expect_one_error(args, "--overwrite")


# ----------------------------------------------------------------------- outputs and echoes
def test_an_output_where_no_file_can_be_created_names_the_users_path(tmp_path: Path) -> None:
    res = runner.invoke(app, ["rank", "-d", "demo", "-r", "bm25", "-o", "/proc/x.trec"])
    assert res.exit_code == 2, res.output
    assert "error: cannot write /proc/x.trec: No such file or directory" in res.output
    assert ".tmp" not in res.output  # never the internal temporary file's name


@pytest.mark.parametrize(
    ("make", "expect"),
    [
        (lambda d: d.symlink_to(d), "is a symbolic link loop (it points back to itself)"),
        (lambda d: d.symlink_to(d.parent / "gone"), "which does not exist"),
    ],
)
def test_an_output_folder_that_is_a_broken_link(tmp_path: Path, make, expect: str) -> None:
    out = tmp_path / "out"
    make(out)
    _expect_one_error(["mine", "-d", "demo", "-a", "TFC1", "-o", str(out)], expect)
    _expect_one_error(["mine", "-d", "demo", "-a", "TFC1", "-o", str(out / "sub")], expect)


@pytest.mark.parametrize(
    "expression",
    ["X" * 120_000, "TFC1 & " * 20_000 + "TFC1", "1" * 50_000 + "*DIV + TFC3"],
)
def test_a_long_expression_is_not_echoed_back_whole(tmp_path: Path, expression: str) -> None:
    args = ["mine", "-d", "demo", "-a", expression, "-o", str(tmp_path / "o")]
    res = runner.invoke(app, args)
    assert res.exit_code == 2, res.output[:500]
    assert res.output.startswith("error: bad --axioms '"), res.output[:500]
    assert len(res.output) < 1200, len(res.output)
    assert "\u2026" in res.output
