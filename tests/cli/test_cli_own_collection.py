"""End to end through the CLI on a collection written by the test: a dataset
descriptor and a rank_llm JSON (+ --qrels) work wherever --dataset is taken: mine, diagnose a
run file, evaluate; `datasets init`, `models`, `--skip-malformed`."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from axiomatic.cli.main import app
from axiomatic.data.instances import MANIFEST

runner = CliRunner()

TEXTS = {
    "d1": "cats purr when they are content cats purr",
    "d2": "cats purr when they are content and calm",
    "d3": "dogs bark when they are content and calm",
    "d4": "a bicycle balances when it steers into the fall",
    "d5": "a bicycle balances when the rider steers and leans",
    "d6": "bicycles and cats and dogs in the city park",
}
QUERIES = {"1": "why do cats purr", "2": "how does a bicycle balance"}
QRELS = "1 0 d1 2\n1 0 d2 1\n2 0 d4 2\n2 0 d5 1\n"
RUN = "".join(
    f"{q} Q0 {d} {r + 1} {10 - r} mysys\n"
    for q, docs in {"1": ["d3", "d1", "d2", "d6"], "2": ["d6", "d5", "d4", "d1"]}.items()
    for r, d in enumerate(docs)
)


def _ok(args: list[str]) -> str:
    res = runner.invoke(app, args)
    assert res.exit_code == 0, (args, res.output)
    return res.output


def _collection(tmp_path: Path) -> Path:
    (tmp_path / "topics.tsv").write_text("".join(f"{q}\t{t}\n" for q, t in QUERIES.items()))
    (tmp_path / "passages.jsonl").write_text(
        "".join(json.dumps({"doc_id": d, "text": t}) + "\n" for d, t in TEXTS.items())
    )
    (tmp_path / "qrels.txt").write_text(QRELS)
    (tmp_path / "run.trec").write_text(RUN)
    desc = tmp_path / "mine.toml"
    out = _ok(["datasets", "init", str(desc)])
    assert "wrote" in out and desc.is_file()
    text = desc.read_text()
    text = text.replace('queries = "topics.tsv"', 'queries = "topics.tsv"')
    text = text.replace('documents = "passages.tsv"', 'documents = "passages.jsonl"')
    text = text.replace('# qrels = "qrels.txt"', 'qrels = "qrels.txt"')
    text = text.replace('# candidates = "run.bm25.trec"', 'candidates = "run.trec"')
    text = text.replace("# rel_threshold = 1 ", "rel_threshold = 1 ")
    desc.write_text(text)
    return desc


def _rankllm(tmp_path: Path) -> Path:
    data = []
    for q, docs in {"1": ["d3", "d1", "d2", "d6"], "2": ["d6", "d5", "d4", "d1"]}.items():
        hits = [
            {"content": TEXTS[d], "qid": int(q), "docid": d, "rank": r + 1, "score": 10.0 - r}
            for r, d in enumerate(docs)
        ]
        data.append({"query": QUERIES[q], "hits": hits})
    path = tmp_path / "retrieve_results_mine.json"
    path.write_text(json.dumps(data))
    return path


def _mine_diagnose_evaluate(tmp_path: Path, dataset_args: list[str]) -> None:
    inst = tmp_path / "inst"
    out = _ok(
        [
            "mine",
            *dataset_args,
            "--out",
            str(inst),
            "--axioms",
            "TFC1,M-TDC,LNC2,TFC2",
            "--variant",
            "relaxed",
        ]
    )
    manifest = json.loads((inst / MANIFEST).read_text())
    assert sum(s["instances"] for s in manifest["shards"].values()) > 0, out
    # diagnose without --dataset: mine recorded the descriptor / rank_llm file (and --qrels)
    assert manifest["dataset_files"]["dataset"].endswith((".toml", ".json"))
    rep = tmp_path / "report"
    out = _ok(
        [
            "diagnose",
            "--instances",
            str(inst),
            "--run",
            str(tmp_path / "run.trec"),
            "--ranker",
            "bm25",
            "--out",
            str(rep),
            "--no-plots",
        ]
    )
    assert "run.trec" in out and (rep / "report.html").is_file()
    per_query = tmp_path / "per_query.csv"
    out = _ok(
        [
            "evaluate",
            *dataset_args,
            "--run",
            str(tmp_path / "run.trec"),
            "--per-query",
            str(per_query),
        ]
    )
    assert "nDCG@10" in out
    import pandas as pd

    values = pd.read_csv(per_query, dtype={"query_id": str})
    ndcg = values[values["measure"] == "nDCG@10"].set_index("query_id")["value"]
    assert set(ndcg.index) == {"1", "2"} and 0 < ndcg["1"] < 1


def test_descriptor_mine_diagnose_evaluate(tmp_path: Path) -> None:
    desc = _collection(tmp_path)
    _mine_diagnose_evaluate(tmp_path, ["--dataset", str(desc)])


def test_rankllm_json_with_qrels(tmp_path: Path) -> None:
    _collection(tmp_path)
    js = _rankllm(tmp_path)
    _mine_diagnose_evaluate(
        tmp_path, ["--dataset", str(js), "--qrels", str(tmp_path / "qrels.txt")]
    )


def test_bad_descriptor_is_a_clean_error(tmp_path: Path) -> None:
    desc = _collection(tmp_path)
    desc.write_text(desc.read_text().replace("candidates =", "candidate ="))
    res = runner.invoke(
        app, ["evaluate", "--dataset", str(desc), "--run", str(tmp_path / "run.trec")]
    )
    assert res.exit_code == 2
    assert "unknown key 'candidate' (did you mean 'candidates'" in res.output
    assert "Traceback" not in res.output
    res = runner.invoke(app, ["datasets", "init", str(desc)])
    assert res.exit_code == 2 and "--force" in res.output


def test_skip_malformed_flag_reports_the_count(tmp_path: Path) -> None:
    desc = _collection(tmp_path)
    bad = tmp_path / "bad.trec"
    bad.write_text(RUN + "1 Q0 d9 broken\n")
    res = runner.invoke(app, ["evaluate", "--dataset", str(desc), "--run", str(bad)])
    assert res.exit_code == 2 and "--skip-malformed" in res.output
    assert "skip_malformed=True" not in res.output
    res = runner.invoke(
        app, ["evaluate", "--dataset", str(desc), "--run", str(bad), "--skip-malformed"]
    )
    assert res.exit_code == 0, res.output
    assert "skipped 1 malformed run line" in res.output
    # a run: ranker reads its file on first use: the flag reaches it too
    out = tmp_path / "ranked.trec"
    args = ["rank", "--dataset", str(desc), "--ranker", f"run:{bad}", "--out", str(out)]
    res = runner.invoke(app, args)
    assert res.exit_code == 2 and "--skip-malformed" in res.output
    res = runner.invoke(app, [*args, "--skip-malformed"])
    assert res.exit_code == 0, res.output
    assert out.is_file()
    from axiomatic.data.trec import skip_malformed_default

    assert not skip_malformed_default()  # the flag ends with its command


def test_models_lists_the_zoo_and_train_help_points_to_it() -> None:
    out = _ok(["models"])
    lines = [ln for ln in out.splitlines() if ln.strip()]
    names = [ln.split()[0] for ln in lines]
    assert {"knrm", "conv-knrm", "cross-encoder", "bi-encoder"} <= set(names)
    knrm = next(ln for ln in lines if ln.startswith("knrm"))
    assert "Xiong" in knrm and "n_kernels=11" in knrm
    assert "axiomatic models" in _ok(["train", "--help"])
