"""LLM rankers (models/llm.py, rankers/llm.py) on a tiny random Llama (conftest): every score
against a plain forward pass of the hand-written prompt alone (the logits at its last token),
the pairwise orders against hand aggregation, the GGUF cache against a stand-in converter, and
each bad input as one ``error:`` line of the CLI."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import numpy as np
import pytest
import torch
from typer.testing import CliRunner

from axiomatic.data.records import Document, Query
from axiomatic.models.llm import (
    LLMPairwiseScorer,
    LLMRanker,
    gguf_model_folder,
)
from axiomatic.rankers.llm import PairwiseLLMRanker
from axiomatic.rankers.orders import order_by
from axiomatic.rankers.registry import make_ranker

QUESTION = "Is the passage relevant to the query? Answer yes or no."


def _reference(tiny, prompt: str, first: str, second: str, special: bool = True) -> float:
    """One plain forward pass (conftest: ``tiny_llama["reference"]``)."""
    return float(tiny["reference"](prompt, first, second, special))


QUERIES = ["what is the boiling point of water", "who wrote hamlet"]
DOCS = [
    "Water boils at 100 degrees Celsius at sea level.",
    "Hamlet is a tragedy written by William Shakespeare around 1600.",
    "The stock market fell sharply on Monday.",
    "Water",
]


def test_pointwise_plain_template_is_the_plain_forward_pass(tiny_llama) -> None:
    r = LLMRanker(tiny_llama["plain"], batch_size=3)
    lists = [
        (Query(str(i), q), [Document(str(j), d) for j, d in enumerate(DOCS)])
        for i, q in enumerate(QUERIES)
    ]
    got = r.score_lists(lists)
    for (q, docs), s in zip(lists, got, strict=True):
        want = [
            _reference(
                tiny_llama,
                f"Query: {q.text}\nPassage: {d.text}\n{QUESTION}\nAnswer:",
                " yes",
                " no",
            )
            for d in docs
        ]
        np.testing.assert_allclose(s, want, atol=1e-4)
    assert np.ptp(got[0]) > 0.05  # the documents are told apart
    one = r.score(lists[1][0], lists[1][1][:2])
    np.testing.assert_allclose(one, got[1][:2], atol=1e-4)


def test_chat_template_wraps_the_question_and_reads_the_assistant_token(tiny_llama) -> None:
    r = LLMRanker(tiny_llama["chat"])
    assert r.chat_template()
    q, d = QUERIES[0], DOCS[0]
    body = f"Query: {q}\nPassage: {d}\n{QUESTION}"
    prompt = f"<user> {body} <assistant>"
    assert r.prompts([q], [d])[0] == [prompt]
    want = _reference(tiny_llama, prompt, "yes", "no", special=False)
    got = r.score(Query("q", q), [Document("d", d)])
    np.testing.assert_allclose(got, [want], atol=1e-4)


def test_monot5_and_user_templates(tiny_llama) -> None:
    q, d = QUERIES[1], DOCS[1]
    mono = LLMRanker(tiny_llama["chat"], template="monot5")
    want = _reference(tiny_llama, f"Query: {q} Document: {d} Relevant:", " true", " false")
    np.testing.assert_allclose(mono.score(Query("q", q), [Document("d", d)]), [want], atol=1e-4)
    text = "Does {document} answer {query}? {braces} kept:"
    user = LLMRanker(tiny_llama["plain"], template=text, yes=" maybe", no=" never")
    prompt = f"Does {d} answer {q}? {{braces}} kept:"
    assert user.prompts([q], [d])[0] == [prompt]
    want = _reference(tiny_llama, prompt, " maybe", " never")
    np.testing.assert_allclose(user.score(Query("q", q), [Document("d", d)]), [want], atol=1e-4)
    # a document holding a placeholder is not filled again
    assert user.prompts([q], ["{query}"])[0] == [f"Does {{query}} answer {q}? {{braces}} kept:"]


def test_documents_are_cut_to_max_doc_tokens(tiny_llama) -> None:
    r = LLMRanker(tiny_llama["plain"], max_doc_tokens=5)
    long = "alpha beta gamma delta epsilon zeta eta theta"
    tok = tiny_llama["tok"]
    assert len(tok.encode("alpha beta gamma delta epsilon", add_special_tokens=False)) == 5
    assert r.truncate([long, "short text"]) == ["alpha beta gamma delta epsilon", "short text"]
    full = LLMRanker(tiny_llama["plain"])
    q = Query("q", QUERIES[0])
    np.testing.assert_allclose(
        r.score(q, [Document("d", long)]),
        full.score(q, [Document("d", "alpha beta gamma delta epsilon")]),
        atol=1e-5,
    )


def test_each_distinct_prompt_runs_once(tiny_llama) -> None:
    r = LLMRanker(tiny_llama["plain"], batch_size=2)
    rows = []
    _, model, _ = r.components()
    hook = model.base_model.register_forward_hook(
        lambda _m, _a, kw, out: rows.append(kw["input_ids"].shape[0]), with_kwargs=True
    )
    try:
        docs = [Document("a", DOCS[0]), Document("b", DOCS[0]), Document("c", DOCS[2])]
        got = r.score_lists([(Query("1", QUERIES[0]), docs), (Query("2", QUERIES[0]), docs[::-1])])
    finally:
        hook.remove()
    assert sum(rows) == 2  # two distinct (query, document) texts
    assert got[0][0] == got[0][1] == got[1][1] == got[1][2]


def test_pairwise_prompts_both_orders_and_preference(tiny_llama) -> None:
    s = LLMPairwiseScorer(tiny_llama["plain"])
    q, a, b = QUERIES[0], DOCS[0], DOCS[2]

    def prp(x: str, y: str) -> str:
        return (
            f'Given a query "{q}", which of the following two passages is more relevant to the '
            f'query?\n\nPassage A: "{x}"\n\nPassage B: "{y}"\n\nAnswer A or B.\nAnswer:'
        )

    d_ab, d_ba = s.both_orders([q], [a], [b])
    np.testing.assert_allclose(d_ab, [_reference(tiny_llama, prp(a, b), " A", " B")], atol=1e-4)
    np.testing.assert_allclose(d_ba, [_reference(tiny_llama, prp(b, a), " A", " B")], atol=1e-4)
    chat = LLMPairwiseScorer(tiny_llama["chat"])
    prompt = f"<user> {prp(a, b).removesuffix(chr(10) + 'Answer:')} <assistant>"
    np.testing.assert_allclose(
        chat.compare([q], [a], [b]),
        [_reference(tiny_llama, prompt, "A", "B", special=False)],
        atol=1e-4,
    )


def _hand_matrix(tiny, q: str, docs: list[str]) -> np.ndarray:
    n = len(docs)
    D = np.full((n, n), np.nan)
    for i, j in itertools.permutations(range(n), 2):
        D[i, j] = _reference(
            tiny,
            f'Given a query "{q}", which of the following two passages is more relevant to the '
            f'query?\n\nPassage A: "{docs[i]}"\n\nPassage B: "{docs[j]}"\n\nAnswer A or B.'
            "\nAnswer:",
            " A",
            " B",
        )
    return D


@pytest.mark.parametrize("order", ["wins", "bradley-terry", "kwiksort"])
def test_pairwise_ranker_orders_the_top_k_by_hand(tiny_llama, order: str) -> None:
    scorer = LLMPairwiseScorer(tiny_llama["plain"], batch_size=4)
    r = PairwiseLLMRanker(scorer, k=3, order=order, seed=1)
    q = Query("q", QUERIES[0])
    docs = [Document(str(i), t) for i, t in enumerate([*DOCS, "A fifth passage."])]
    got = r.score(q, docs)
    D = _hand_matrix(tiny_llama, q.text, DOCS[:3])
    np.testing.assert_allclose(r.last_comparisons[0], D, atol=1e-4)
    pref = np.sign((D - D.T) / 2)
    np.fill_diagonal(pref, 0)
    head = order_by(pref, order, seed=1).tolist()
    final = [*head, 3, 4]  # the documents below the head keep their order
    want = np.empty(5)
    want[final] = [5.0, 4.0, 3.0, 2.0, 1.0]
    np.testing.assert_array_equal(got, want)
    assert r.prompts_per_query(5) == 6 and r.prompts_per_query(2) == 2


def test_sliding_window_is_bubble_sort_by_hand(tiny_llama) -> None:
    scorer = LLMPairwiseScorer(tiny_llama["plain"])
    r = PairwiseLLMRanker(scorer, k=4, method="sliding", passes=2)
    q = Query("q", QUERIES[1])
    docs = [Document(str(i), t) for i, t in enumerate(DOCS)]
    got = r.score(q, docs)
    D = _hand_matrix(tiny_llama, q.text, DOCS)
    cur = [0, 1, 2, 3]
    asked = 0
    for _ in range(2):
        for p in (2, 1, 0):
            u, w = cur[p], cur[p + 1]
            asked += 2
            if (D[w, u] - D[u, w]) / 2 > 0:
                cur[p], cur[p + 1] = w, u
    want = np.empty(4)
    want[cur] = [4.0, 3.0, 2.0, 1.0]
    np.testing.assert_array_equal(got, want)
    assert r.prompts_per_query(4) == asked == 12
    assert np.isfinite(r.last_comparisons[0]).sum() <= 12


def test_rank_batches_prompts_across_queries(tiny_llama) -> None:
    """``rerank`` (``axiomatic rank``) asks an LLM ranker once for every query's list: with two
    candidates per query and ``batch_size=4`` the forward passes hold four prompts of two
    queries (query by query they held two), and each score is the plain forward pass of its
    prompt, the one of the ranker's own ``score`` of that query (exactly so with
    ``batch_size=1``). Broken check: scoring query by query fails the batch rows."""
    import dataclasses

    from axiomatic.data.demo import demo_dataset
    from axiomatic.rankers.base import rerank

    demo = demo_dataset()
    ids = ["q1", "q2", "q3", "q4", "q5"]
    ds = dataclasses.replace(
        demo,
        queries={q: demo.queries[q] for q in [*ids, "q6"]},
        candidates={**{q: list(demo.candidate_ids(q))[:2] for q in ids}, "q6": []},
    )
    r = LLMRanker(tiny_llama["plain"], batch_size=4, max_doc_tokens=24)
    rows: list[int] = []
    _, model, _ = r.components()
    hook = model.base_model.register_forward_hook(
        lambda _m, _a, kw, out: rows.append(kw["input_ids"].shape[0]), with_kwargs=True
    )
    try:
        run = rerank(r, ds, depth=2)
    finally:
        hook.remove()
    assert sorted(rows, reverse=True) == [4, 4, 2]
    assert run["q6"] == {}
    for q in ids:
        docs = [ds.documents[d] for d in ds.candidate_ids(q)]
        got = [run[q][d.doc_id] for d in docs]
        prompts = r.prompts([ds.queries[q].text] * 2, [d.text for d in docs])[0]
        want = [_reference(tiny_llama, p, " yes", " no") for p in prompts]
        np.testing.assert_allclose(got, want, atol=1e-4)
        np.testing.assert_allclose(got, r.score(ds.queries[q], docs), rtol=0, atol=1e-6)
    one = LLMRanker(tiny_llama["plain"], batch_size=1, max_doc_tokens=24)
    run_one = rerank(one, ds, depth=2)
    for q in ids:
        docs = [ds.documents[d] for d in ds.candidate_ids(q)]
        alone = one.score(ds.queries[q], docs)
        np.testing.assert_array_equal([run_one[q][d.doc_id] for d in docs], alone)
    prp = PairwiseLLMRanker(LLMPairwiseScorer(tiny_llama["plain"], max_doc_tokens=24), k=2)
    run_prp = rerank(prp, ds, depth=3)
    for q in ids:
        docs = [ds.documents[d] for d in ds.candidate_ids(q)]
        alone = prp.score(ds.queries[q], docs)
        np.testing.assert_array_equal([run_prp[q][d.doc_id] for d in docs], alone)


def test_specs_build_the_rankers(tiny_llama, tmp_path) -> None:
    from axiomatic.data.catalog import load_dataset

    ds = load_dataset("demo")
    r = make_ranker(f"llm:{tiny_llama['plain']},template=monot5,max_doc_tokens=64", ds)
    assert isinstance(r, LLMRanker)
    assert (r.template, r.max_doc_tokens, r.name) == ("monot5", 64, tiny_llama["plain"].name)
    t = "'Q: {query}, D: {document}. Relevant:'"
    assert make_ranker(f"llm:{tiny_llama['plain']},template={t}", ds).template == t.strip("'")
    p = make_ranker(f"mine=prp:{tiny_llama['chat']},k=5,order=pagerank,method=sliding", ds)
    assert p.name == "mine"
    assert (p.k, p.order, p.method, p.scorer.template) == (5, "pagerank", "sliding", "auto")
    comma = tmp_path / "a,b"
    comma.mkdir()
    for f in tiny_llama["plain"].iterdir():
        (comma / f.name).write_bytes(f.read_bytes())
    assert make_ranker(f"llm:{comma},batch_size=4", ds).source == comma


def test_llm_specs_go_through_the_registrys_one_parser() -> None:
    """``llm:``, ``smollm2`` and ``prp:`` are registry families: their specs are split by
    :func:`parse_ranker_spec` (a path with commas, a quoted value with commas, numbers) and
    ``axiomatic rankers`` lists them with every parameter. Broken check: the old trailing-pair
    regex of path specs cuts the quoted template at its comma."""
    import json

    from axiomatic.cli.main import app
    from axiomatic.rankers.registry import list_rankers, parse_ranker_spec

    t = "Q: {query}, A: {document_a}, B: {document_b}"
    assert parse_ranker_spec(f"prp:/m/a,b,k=5,template='{t}',order=kwiksort") == (
        "prp",
        {"path": "/m/a,b", "k": 5, "template": t, "order": "kwiksort"},
    )
    assert parse_ranker_spec("SmolLM2:max_doc_tokens=128,bf16=true") == (
        "smollm2",
        {"max_doc_tokens": 128, "bf16": True},
    )
    assert parse_ranker_spec("llm:smollm2") == ("llm", {"path": "smollm2"})
    infos = {i.name: i for i in list_rankers()}
    common = {"max_doc_tokens": 256, "batch_size": 16, "device": "auto", "bf16": None}
    pointwise = {"template": "auto", "yes": None, "no": None, **common}
    assert infos["llm"].params == infos["smollm2"].params == pointwise
    assert infos["prp"].params == {
        "template": "auto",
        "first": None,
        "second": None,
        "k": 10,
        "method": "allpairs",
        "passes": 3,
        "order": "wins",
        "seed": 0,
        **common,
    }
    assert all(
        p.description for i in ("llm", "smollm2", "prp") for p in infos[i].param_info.values()
    )
    res = runner.invoke(app, ["rankers", "--format", "json"])
    assert res.exit_code == 0, res.output
    rows = {r["name"]: r for r in json.loads(res.output)}
    assert (
        "order: str = 'wins', one of 'kwiksort', 'bradley-terry', 'pagerank', 'wins' "
        "(wins, kwiksort, bradley-terry or pagerank)" in rows["prp"]["params"]
    )
    assert "max_doc_tokens: int = 256" in rows["smollm2"]["params"]
    assert rows["llm"]["example"] == "llm:models/qwen3-0.6b,template=monot5"


runner = CliRunner()


def _one_error(args: list[str]) -> str:
    from axiomatic.cli.main import app

    res = runner.invoke(app, args)
    out = res.output
    assert "Traceback" not in out, out
    assert res.exit_code == 2, out
    errors = [ln for ln in out.splitlines() if ln.startswith("error:")]
    assert len(errors) == 1, out
    return out.replace("\n", "")


def test_bad_llm_inputs_are_one_error_line(tiny_llama, tiny_bert, tmp_path) -> None:
    out = tmp_path / "run.trec"
    base = ["rank", "-d", "demo", "-o", str(out), "-r"]
    msg = _one_error([*base, f"llm:{tiny_bert}"])
    assert "is not a causal language model (config.json names BertModel)" in msg
    assert str(tiny_bert) in msg
    msg = _one_error([*base, f"llm:{tiny_llama['plain']},template='Query: {{query}} Relevant:'"])
    assert "lacks {document}" in msg
    bad = tmp_path / "weights.gguf"
    bad.write_bytes(b"PK\x03\x04 not a model")
    msg = _one_error([*base, f"llm:{bad}"])
    assert "is a file but not a GGUF model" in msg and "weights.gguf" in msg
    msg = _one_error([*base, f"llm:{tmp_path / 'nothing'}"])
    assert "does not exist" in msg
    msg = _one_error([*base, f"llm:{tiny_llama['plain']},tempate=monot5"])
    assert "unknown parameter 'tempate'" in msg and "did you mean 'template'" in msg
    msg = _one_error([*base, f"llm:{tiny_llama['plain']},template=mono5"])
    assert "unknown LLM template 'mono5'" in msg and "monot5" in msg
    msg = _one_error([*base, f"prp:{tiny_llama['plain']},order=copeland"])
    assert "parameter 'order' of ranker 'prp'" in msg and "(got 'copeland', a string)" in msg
    msg = _one_error([*base, "llm:,template=monot5"])
    assert "needs a path: 'llm:PATH' with PATH a causal LM folder or a .gguf file" in msg
    msg = _one_error([*base, f"prp:{tiny_llama['plain']},k=2.5"])
    assert "parameter 'k' of ranker 'prp'" in msg and "must be an integer" in msg
    msg = _one_error([*base, "smollm2:device=0"])
    assert "parameter 'device' of ranker 'smollm2'" in msg and "must be a string" in msg
    msg = _one_error([*base, f"llm:{tiny_llama['plain']},max_doc_tokens=0"])
    assert "parameter 'max_doc_tokens' of ranker 'llm'" in msg and "integer >= 1 (got 0" in msg
    assert not out.exists()


def test_a_gguf_file_that_is_not_a_model_fails_when_loaded(tiny_llama, tmp_path) -> None:
    pytest.importorskip("gguf")
    bad = tmp_path / "broken.gguf"
    bad.write_bytes(b"GGUF" + b"\x00" * 64)
    msg = _one_error(["rank", "-d", "demo", "-o", str(tmp_path / "r.trec"), "-r", f"llm:{bad}"])
    assert "could not be read as a causal language model" in msg and "broken.gguf" in msg


def test_gguf_conversion_is_cached_by_the_files_hash(tiny_llama, tmp_path, monkeypatch) -> None:
    """The converted folder is named by the file's SHA-256, holds a plain model (no
    quantization entry) that scores as the loaded one, and is reused without converting."""
    import hashlib

    from transformers import LlamaForCausalLM

    import axiomatic.models.hf_loader as hf_loader

    calls = []

    def fake_load_gguf(path):
        calls.append(Path(path))
        model = LlamaForCausalLM(tiny_llama["model"].config)
        model.load_state_dict(tiny_llama["model"].state_dict())
        model.config.quantization_config = {"quant_method": "gguf"}
        return tiny_llama["tok"], model

    monkeypatch.setattr(hf_loader, "load_gguf", fake_load_gguf)
    file = tmp_path / "My Model.Q4.gguf"
    file.write_bytes(b"GGUF" + b"\x01" * 100)
    digest = hashlib.sha256(file.read_bytes()).hexdigest()
    folder = gguf_model_folder(file, cache_dir=tmp_path / "cache")
    assert folder == tmp_path / "cache" / "llm" / f"My_Model.Q4-{digest[:16]}"
    assert "quantization_config" not in json.loads((folder / "config.json").read_text())
    assert (folder / "model.safetensors").is_file()
    assert json.loads((folder / "gguf_source.json").read_text())["sha256"] == digest
    assert gguf_model_folder(file, cache_dir=tmp_path / "cache") == folder
    assert len(calls) == 1  # reused
    file.write_bytes(b"GGUF" + b"\x02" * 100)
    assert gguf_model_folder(file, cache_dir=tmp_path / "cache") != folder
    assert len(calls) == 2
    assert not [p for p in (tmp_path / "cache" / "llm").iterdir() if p.name.startswith(".")]
    r = LLMRanker(file, cache_dir=tmp_path / "cache")
    q, d = QUERIES[0], DOCS[0]
    want = _reference(tiny_llama, f"Query: {q}\nPassage: {d}\n{QUESTION}\nAnswer:", " yes", " no")
    np.testing.assert_allclose(r.score(Query("q", q), [Document("d", d)]), [want], atol=1e-4)
    assert r.name == "My Model.Q4"


def test_device_is_chosen_like_the_other_neural_rankers(tiny_llama) -> None:
    r = LLMRanker(tiny_llama["plain"], device="cpu")
    assert r.components()[2] == torch.device("cpu")
    if not torch.cuda.is_available():
        with pytest.raises(ValueError, match="this torch sees no CUDA GPU"):
            LLMRanker(tiny_llama["plain"], device="cuda").components()
