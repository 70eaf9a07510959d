"""Probe instances value by value: the instance and manipulated-document tables on small
datasets written out by hand, the donor each document draws (against a plain reference of the
documented seeding), the skipped counts, and every refusal word for word."""

from __future__ import annotations

import hashlib
import zlib
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from axiomatic.data.records import Dataset, Document, Query
from axiomatic.diagnose.probes import dataset_probes, parse_probes, probe_instances
from axiomatic.perturb.text_probes import PROBES, manipulate

ALL = ", ".join(PROBES)
COLUMNS = [
    "query_id", "axiom", "variant", "spec", "doc_a", "doc_b", "doc_c", "relation", "len_a",
    "len_b", "len_diff_abs", "len_diff_rel", "rel_a", "rel_b", "rel_c", "split", "artificial",
    "symmetric",
]  # fmt: skip
ART_COLUMNS = ["doc_id", "text", "source_doc_id", "query_id", "k"]


def art_id(doc: str, probe: str, text: str) -> str:
    """The documented id of a manipulated text: ``DOC~probe:NAME~`` and 12 hex digits of its
    SHA-256."""
    return f"{doc}~probe:{probe}~{hashlib.sha256(text.encode('utf-8')).hexdigest()[:12]}"


def probe_rng(seed: int, probe: str, query: str, doc: str) -> np.random.Generator:
    """The documented seeding: one generator per (seed, probe, query, document), the names as
    CRC-32 of their UTF-8 bytes."""
    key = [zlib.crc32(s.encode("utf-8")) for s in (probe, query, doc)]
    return np.random.default_rng([seed, *key])


def records(inst: pd.DataFrame) -> list[tuple[object, ...]]:
    """The instance rows as tuples in :data:`COLUMNS` order, ``<NA>`` / ``None`` as ``None``."""
    assert list(inst.columns) == COLUMNS
    return [
        tuple(None if v is None or v is pd.NA else v for v in row)
        for row in inst.itertuples(index=False, name=None)
    ]


# --------------------------------------------------------------------------- the tables

TABLE_DOCS = {
    "a": "The Cat sat. It purred.",
    "b": "Dogs bark loudly.",  # a candidate of both queries
    "e": "Eels swim.",
    "f": "Frogs jump.",  # q1's fifth candidate: beyond depth 4
    "g": "Geese honk.",  # q2's fifth candidate, and one of qz, a query the dataset lacks
    "n": "Newts crawl.",  # judged, no candidate
    "s": "the",  # already lower-case; every word a stopword
    "w": "  ",  # no word at all
}


def table_dataset(split: str | None = "test") -> Dataset:
    return Dataset(
        "tiny",
        {"q1": Query("q1", "cats"), "q2": Query("q2", "dogs"), "q3": Query("q3", "no list")},
        {d: Document(d, t) for d, t in TABLE_DOCS.items()},
        {"q1": {"n": 0, "a": 2, "b": 0, "x": 0}, "q2": {"e": 1, "s": 0}},
        # x has no text: left out, but it still takes one of the first four places
        {"q2": ["e", "b", "s", "x", "g"], "q1": ["a", "x", "b", "w", "f"], "qz": ["g"]},
        split=split,
    )


def test_the_instance_and_text_tables_row_by_row() -> None:
    inst, art = probe_instances(table_dataset(), "case-fold, remove-stopwords", depth=4, seed=5)
    cf, rs = "case-fold", "remove-stopwords"
    new = {
        ("a", cf): "the cat sat. it purred.",
        ("a", rs): "Cat sat. purred.",
        ("b", cf): "dogs bark loudly.",
        ("w", rs): "",
        ("e", cf): "eels swim.",
        ("s", rs): "",
    }
    ids = {k: art_id(k[0], k[1], t) for k, t in new.items()}

    def row(q: str, d: str, p: str, la: int, lb: int, rel: int | None) -> tuple[object, ...]:
        return (
            q, f"probe:{p}", "probe", f"probe:{p}(seed=5)", d, ids[d, p], None,
            "=" if p == cf else ">", la, lb, abs(la - lb), abs(la - lb) / max(la, lb, 1),
            rel, rel, None, "test", True, False,
        )  # fmt: skip

    # queries in sorted order, then candidates in list order, then probes as named; q3 (no
    # candidate list) and qz (no query) have no rows; unchanged texts have none either
    assert records(inst) == [
        row("q1", "a", cf, 5, 5, 2),
        row("q1", "a", rs, 5, 3, 2),
        row("q1", "b", cf, 3, 3, 0),
        row("q1", "w", rs, 0, 0, None),  # no word: the length ratio divides by 1, not 0
        row("q2", "e", cf, 2, 2, 1),
        row("q2", "b", cf, 3, 3, None),  # b is judged for q1, not for q2
        row("q2", "s", rs, 1, 0, 0),  # one word removed of one: a relative change of 1
    ]
    assert inst["len_diff_rel"].tolist() == [0.0, 0.4, 0.0, 0.0, 0.0, 0.0, 1.0]
    assert [str(inst[c].dtype) for c in ("rel_a", "rel_b", "rel_c")] == ["Int64"] * 3
    # unchanged texts: case-fold of w and s; remove-stopwords of b (twice) and e
    assert inst.attrs["skipped"] == {cf: 2, rs: 3}
    assert list(inst.attrs["skipped"]) == [cf, rs]
    # one row per text: q2's case-folded b is q1's (the same id)
    assert list(art.columns) == ART_COLUMNS
    order = [("a", cf), ("a", rs), ("b", cf), ("w", rs), ("e", cf), ("s", rs)]
    queries = ["q1", "q1", "q1", "q1", "q2", "q2"]
    assert art.values.tolist() == [
        [ids[k], new[k], k[0], q, 0] for k, q in zip(order, queries, strict=True)
    ]
    assert art.index.tolist() == list(range(6))


def test_a_dataset_without_split_writes_an_empty_split() -> None:
    inst, _ = probe_instances(table_dataset(split=None), "case-fold", depth=1)
    assert inst["split"].tolist() == ["", ""] and inst["doc_a"].tolist() == ["a", "e"]


def test_nothing_changed_gives_empty_tables_and_the_counts() -> None:
    inst, art = probe_instances(table_dataset(), ["shuffle-sentences", "Typo"], depth=2)
    # q1: a (two sentences) is shuffled, x has no text; q2: e and b have one sentence each;
    # no text has a listed misspelling
    assert inst["doc_a"].tolist() == ["a"]
    assert inst.attrs["skipped"] == {"shuffle-sentences": 2, "Typo": 3}
    inst, art = probe_instances(table_dataset(), "Typo", depth=2)
    assert inst.empty and inst.attrs["skipped"] == {"Typo": 3}
    assert list(art.columns) == ART_COLUMNS and art.empty


def test_the_default_depth_is_ten() -> None:
    ds = Dataset(
        "eleven",
        {"q": Query("q", "q")},
        {f"d{i:02}": Document(f"d{i:02}", f"Word{i}") for i in range(11)},
        None,
        {"q": [f"d{i:02}" for i in range(11)]},
    )
    inst, art = probe_instances(ds, "case-fold")
    assert inst["doc_a"].tolist() == [f"d{i:02}" for i in range(10)]
    assert art["text"].tolist() == [f"word{i}" for i in range(10)]
    assert inst["spec"].tolist() == ["probe:case-fold(seed=0)"] * 10


# --------------------------------------------------------------------------- the donors

FRUIT = {
    "a": "Apples.",
    "b": "Bananas.",
    "c": "Cherries.",
    "d": "Dates.",
    "e": "Elderberries.",
    "f": "Figs.",
    "g": "Grapes.",
    "h": "Honeydew.",  # beyond depth 3 for q2: no donor
}


def fruit_dataset() -> Dataset:
    return Dataset(
        "fruit",
        {q: Query(q, q) for q in ("q1", "q2", "q3")},
        {d: Document(d, t) for d, t in FRUIT.items()},
        None,
        # x has no text: neither probed nor a donor
        {"q1": ["a", "x", "b"], "q2": ["c", "d", "e", "h"], "q3": ["f", "g"]},
    )


def test_append_other_query_sentence_draws_a_candidate_of_another_query() -> None:
    p = "append-other-query-sentence"
    # the first three candidates with a text, sorted, less the query's own
    donors = {"q1": "cdefg", "q2": "abfg", "q3": "abcde"}
    tops = {"q1": "ab", "q2": "cde", "q3": "fg"}
    by_seed = {}
    for seed in range(6):
        inst, art = probe_instances(fruit_dataset(), p, depth=3, seed=seed)
        texts = dict(zip(art["doc_id"], art["text"], strict=True))
        got = {(r.query_id, r.doc_a): texts[r.doc_b] for r in inst.itertuples(index=False)}
        expected = {}
        for q, top in tops.items():
            for d in top:
                rng = probe_rng(seed, p, q, d)
                donor = donors[q][int(rng.integers(len(donors[q])))]
                expected[q, d] = f"{FRUIT[d]} {FRUIT[donor]}"
        assert got == expected, seed
        assert inst["split"].tolist() == [""] * 7
        # one word becomes two: the change relative to the longer text
        assert inst[["len_a", "len_b", "len_diff_abs"]].values.tolist() == [[1, 2, 1]] * 7
        assert inst["len_diff_rel"].tolist() == [0.5] * 7
        assert inst.attrs["skipped"] == {p: 0}
        by_seed[seed] = tuple(t.split()[1][0] for t in got.values())
        again, _ = probe_instances(fruit_dataset(), p, depth=3, seed=seed)
        assert again.equals(inst)  # reproducible
    # seed 0 by hand: (q1, a) draws index 4 of c..g, ...
    assert by_seed[0] == ("G", "F", "F", "A", "F", "D", "E")
    assert len(set(by_seed.values())) == 6  # every seed another choice


def test_the_only_query_draws_among_its_own_candidates() -> None:
    p = "append-other-query-sentence"
    ds = fruit_dataset().subset(["q3"])
    for seed in range(8):
        _, art = probe_instances(ds, p, depth=3, seed=seed)
        expected = []
        for d in "fg":  # no other query: every candidate is a donor, the document itself too
            donor = "fg"[int(probe_rng(seed, p, "q3", d).integers(2))]
            expected.append(f"{FRUIT[d]} {FRUIT[donor]}")
        assert art["text"].tolist() == expected
    # by hand: f draws g under seed 0, itself under seed 3; g draws itself, f under seed 7
    texts = {s: probe_instances(ds, p, depth=3, seed=s)[1]["text"].tolist() for s in (0, 3, 7)}
    assert texts == {
        0: ["Figs. Grapes.", "Grapes. Grapes."],
        3: ["Figs. Figs.", "Grapes. Grapes."],
        7: ["Figs. Grapes.", "Grapes. Figs."],
    }


def test_a_candidate_without_text_is_never_a_donor() -> None:
    # x (a candidate of q1 with no text) sorts last among q2's donors: were it in the pool,
    # some draw would pick it and fail
    ds = Dataset(
        "gaps",
        {"q1": Query("q1", "a"), "q2": Query("q2", "b")},
        {d: Document(d, FRUIT[d]) for d in "abc"},
        None,
        {"q1": ["a", "x"], "q2": ["b", "c"]},
    )
    p = "append-other-query-sentence"
    for seed in range(8):
        _, art = probe_instances(ds, p, depth=2, seed=seed)
        assert art["text"].tolist()[1:] == ["Bananas. Apples.", "Cherries. Apples."]


def test_addsent_draws_a_document_judged_zero_for_the_same_query() -> None:
    docs = {
        "a": "Ants dig. Ants march.",
        "b": "Bees buzz. Bees sting.",  # judged 0 for q1: its own donor too
        "c": "Crows caw.",
        "n": "Newts crawl. Newts swim.",  # judged 0 for q1, no candidate
        "d": "Doves coo.",
        "e": "Emus run.",
    }
    ds = Dataset(
        "judged",
        {q: Query(q, q) for q in ("q1", "q2", "q3")},
        {d: Document(d, t) for d, t in docs.items()},
        # q1's donors: b and n (sorted), not x (no text), not a or c (judged 1 and 2);
        # q2: none judged 0; q3: no judgments
        {"q1": {"n": 0, "x": 0, "a": 1, "b": 0, "c": 2}, "q2": {"d": 1, "n": 3}},
        {"q1": ["a", "b", "c"], "q2": ["d"], "q3": ["e"]},
    )
    probes = ["AddSent-start", "AddSent-end"]
    seen = set()
    for seed in range(5):
        inst, art = probe_instances(ds, probes, depth=3, seed=seed)
        texts = dict(zip(art["doc_id"], art["text"], strict=True))
        got = [(r.doc_a, r.axiom, texts[r.doc_b]) for r in inst.itertuples(index=False)]
        expected = []
        for d in "abc":
            for p in probes:
                rng = probe_rng(seed, p, "q1", d)
                donor = "bn"[int(rng.integers(2))]
                seen.add(donor)
                expected.append((d, f"probe:{p}", manipulate(p, docs[d], rng, docs[donor])))
        assert got == expected, seed
        assert set(inst["query_id"]) == {"q1"} and set(inst["relation"]) == {">"}
        assert inst["rel_a"].tolist() == [1, 1, 0, 0, 2, 2]
        assert inst.attrs["skipped"] == {"AddSent-start": 2, "AddSent-end": 2}  # d and e
    assert seen == {"b", "n"}
    # seed 0 by hand: a draws n for AddSent-start, b for AddSent-end, ...
    inst, art = probe_instances(ds, probes, depth=3, seed=0)
    assert art["text"].tolist()[:2] == [
        "Newts crawl. Ants dig. Ants march.",
        "Ants dig. Ants march. Bees sting.",
    ]


def test_a_document_draws_the_same_whatever_else_is_probed() -> None:
    ds = table_dataset()
    full, _ = probe_instances(ds, "shuffle-words,swap-letters", depth=4, seed=2)
    one, _ = probe_instances(ds.subset(["q2"]), "shuffle-words", depth=4, seed=2)
    q2 = full[(full["query_id"] == "q2") & (full["axiom"] == "probe:shuffle-words")]
    assert q2["doc_b"].tolist() == one["doc_b"].tolist() and len(one) == 2


# --------------------------------------------------------------------------- refusals


def test_probe_instances_refusals_word_for_word() -> None:
    ds = table_dataset()
    with pytest.raises(ValueError) as exc:
        probe_instances(ds, "case-fold", depth=0)
    assert str(exc.value) == "depth must be >= 1 (got 0)"
    assert probe_instances(ds, "case-fold", depth=1)[0]["doc_a"].tolist() == ["a", "e"]
    full = Dataset("full", ds.queries, ds.documents, ds.qrels, None)
    with pytest.raises(ValueError) as exc:
        probe_instances(full, "case-fold")
    assert str(exc.value) == (
        "dataset 'full' has no candidate lists; probe a re-ranking dataset "
        "(e.g. trec-dl-2019/bm25) or give it a first stage"
    )
    ds.qrels = None
    with pytest.raises(ValueError) as exc:
        probe_instances(ds, "AddSent-end,case-fold,AddSent-start")
    assert str(exc.value) == (
        "probe AddSent-end, AddSent-start takes a sentence of a document judged non-relevant "
        "for the same query, but dataset 'tiny' has no relevance judgments; probe a judged "
        "dataset or use append-other-query-sentence"
    )


def test_parse_probes_reads_names_and_refuses_word_for_word() -> None:
    assert parse_probes(" case-fold, Typo ,case-fold,, ") == ["case-fold", "Typo"]
    assert parse_probes([" Typo", "", "case-fold "]) == ["Typo", "case-fold"]
    for every in ("all", " all ", "all,", ["all"], [" all", ""]):
        assert parse_probes(every) == list(PROBES)
    cases = {
        "typo": f"unknown probe 'typo' (did you mean 'Typo'?); expected one of {ALL} (or all)",
        "case-fold,zzz": f"unknown probe 'zzz'; expected one of {ALL} (or all)",
        "all,case-fold": f"unknown probe 'all'; expected one of {ALL} (or all)",
        "typos": "probe 'typos' was renamed: use swap-letters (this project's adjacent-letter "
        "swaps) or Typo (ABNIRML's common misspellings)",
        "": f"no probe given; expected one or more of {ALL}",
        " , ": f"no probe given; expected one or more of {ALL}",
    }
    for text, message in cases.items():
        with pytest.raises(ValueError) as exc:
            parse_probes(text)
        assert str(exc.value) == message, text
    with pytest.raises(ValueError) as exc:
        parse_probes([])
    assert str(exc.value) == f"no probe given; expected one or more of {ALL}"


def test_all_leaves_out_the_judged_probes_only_without_judgments() -> None:
    judged = table_dataset()
    plain = table_dataset()
    plain.qrels = None
    without = [p for p in PROBES if not p.startswith("AddSent")]
    for every in ("all", " all ", "all,", ["all"], [" all", ""]):
        assert dataset_probes(every, judged) == list(PROBES)
        assert dataset_probes(every, plain) == without
    plain.qrels = {}  # no judgment at all counts as none
    assert dataset_probes("all", plain) == without
    # named: kept (probe_instances refuses them)
    assert dataset_probes("AddSent-end,case-fold", plain) == ["AddSent-end", "case-fold"]
    inst, _ = probe_instances(plain, ["all"], depth=1)  # not refused
    assert list(inst.attrs["skipped"]) == without


def test_cli_probe_refusals_are_one_error_line(tmp_path: Path) -> None:
    from axiomatic.cli.main import app

    cases = {
        "typo": f"error: unknown --probes 'typo' (did you mean 'Typo'?); expected one of {ALL} "
        "(or all)",
        "typos": "error: --probes 'typos' was renamed: use swap-letters (this project's "
        "adjacent-letter swaps) or Typo (ABNIRML's common misspellings)",
        ",": f"error: no probe given; expected one or more of {ALL}",
    }
    for probes, line in cases.items():
        res = CliRunner().invoke(
            app, ["probe", "-d", "demo", "-r", "bm25", "--probes", probes, "-o", str(tmp_path)]
        )
        assert res.exit_code == 2 and res.output.strip() == line, res.output
