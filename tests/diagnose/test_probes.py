"""Text probes (ABNIRML's Typo and AddSent, and this project's manipulations): what each one
changes, seeding, and their diagnosis with the calibrated band."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from axiomatic.data.catalog import load_dataset
from axiomatic.data.records import Dataset, Document, Query
from axiomatic.diagnose.diagnosis import diagnose
from axiomatic.diagnose.effects import sample_hash
from axiomatic.diagnose.probes import parse_probes, probe_instances
from axiomatic.perturb.text_probes import PROBES, manipulate, misspellings, sentences
from axiomatic.rankers.registry import make_ranker
from axiomatic.text.analyzer import load_stopwords

TEXT = "The Quick brown fox jumps. It jumped over lazy dogs! Then everything slept quietly?"
DONOR = "Bananas are yellow. Apples are red."


def _rng(seed: int = 0) -> np.random.Generator:
    return np.random.default_rng(seed)


def test_each_manipulation_changes_what_it_says() -> None:
    out = manipulate("shuffle-words", TEXT, _rng())
    assert out != TEXT and Counter(out.split()) == Counter(TEXT.split())
    out = manipulate("shuffle-sentences", TEXT, _rng(1))
    assert out != TEXT and sorted(sentences(out)) == sorted(sentences(TEXT))
    assert manipulate("shuffle-sentences", "One sentence only.", _rng()) == "One sentence only."
    out = manipulate("remove-sentence", TEXT, _rng())
    assert len(sentences(out)) == 2 and set(sentences(out)) < set(sentences(TEXT))
    out = manipulate("append-other-query-sentence", TEXT, _rng(), DONOR)
    assert out.startswith(TEXT) and out[len(TEXT) + 1 :] in sentences(DONOR)
    assert manipulate("case-fold", TEXT, _rng()) == TEXT.lower()
    stop = load_stopwords("en")
    out = manipulate("remove-stopwords", TEXT, _rng())
    assert "The" not in out.split() and "It" not in out.split() and "fox" in out.split()
    assert all(w.lower().strip(".!?") not in stop for w in out.split())


def test_swap_letters_swaps_two_inner_letters_of_long_words() -> None:
    text = " ".join(["information"] * 200 + ["cat"] * 50)
    out = manipulate("swap-letters", text, _rng()).split()
    changed = [w for w in out[:200] if w != "information"]
    assert out[200:] == ["cat"] * 50  # words under four letters are left alone
    assert 0.1 < len(changed) / 200 < 0.3  # TYPO_RATE = 0.2
    for w in changed:
        assert w[0] == "i" and w[-1] == "n" and sorted(w) == sorted("information")
        diff = [i for i, (a, b) in enumerate(zip(w, "information", strict=True)) if a != b]
        assert len(diff) == 2 and diff[1] == diff[0] + 1


def test_abnirmls_typo_replaces_every_listed_word_with_a_common_misspelling() -> None:
    text = "The library will receive a weird rhythm on Wednesday; the Weird library. Libraries."
    out = manipulate("Typo", text, _rng())
    # whole words as listed (case-sensitive: "Wednesday" is listed so, "weird" is not): The,
    # Weird and Libraries stay; every occurrence of a listed word is replaced, here by its one
    # misspelling, "the" by one of two
    assert out.split()[0] == "The" and out.split()[1] == "libary"
    expected = "The libary will recieve a wierd rythm on wensday; {} Weird libary. Libraries."
    assert out in {expected.format("teh"), expected.format("hte")}
    # Typo-nostops leaves stopwords (of the packaged list) alone
    assert manipulate("Typo-nostops", text, _rng()) == expected.format("the")
    assert manipulate("Typo", "Nothing listed here.", _rng()) == "Nothing listed here."
    # a word with several misspellings draws one per occurrence from the generator
    drawn = {manipulate("Typo", "because", _rng(seed)) for seed in range(40)}
    assert drawn == {"becuase", "becasue", "beacuse"}
    table = misspellings()
    assert table["receive"] == ("recieve",) and set(table["because"]) == drawn
    # no misspelling is itself a listed word (one pass equals ABNIRML's search-and-replace loop)
    wrong = {w for ws in table.values() for w in ws}
    assert not wrong & set(table) and len(wrong) == 309


def test_abnirmls_add_sent_takes_a_sentence_of_a_non_relevant_document_of_the_query() -> None:
    out = manipulate("AddSent-start", TEXT, _rng(), DONOR)
    assert out.endswith(" " + TEXT) and out[: -len(TEXT) - 1] in sentences(DONOR)
    out = manipulate("AddSent-end", TEXT, _rng(), DONOR)
    assert out.startswith(TEXT + " ") and out[len(TEXT) + 1 :] in sentences(DONOR)
    docs = {
        "c1": "Cats purr. Cats sleep.",
        "c2": "Dogs bark.",
        "c3": "Birds sing. Birds fly.",
        "n1": "Off topic one. Off topic two.",  # judged 0 for q1, not a candidate
        "r1": "Relevant text.",  # judged 1 for q1
        "o1": "Other query text.",  # judged 0 for q2 only
    }
    ds = Dataset(
        "tiny",
        {"q1": Query("q1", "cats"), "q2": Query("q2", "dogs")},
        {d: Document(d, t) for d, t in docs.items()},
        {"q1": {"c2": 0, "n1": 0, "r1": 1}, "q2": {"o1": 0}},
        {"q1": ["c1", "c2", "c3"], "q2": ["c2"]},
    )
    donor_sents = {
        "q1": set(sentences(docs["c2"]) + sentences(docs["n1"])),
        "q2": set(sentences(docs["o1"])),
    }
    for probe, start in (("AddSent-start", True), ("AddSent-end", False)):
        inst, art = probe_instances(ds, probe, depth=3, seed=1)
        texts = dict(zip(art["doc_id"], art["text"], strict=True))
        for r in inst.itertuples(index=False):
            orig, new = docs[r.doc_a], texts[r.doc_b]
            added = new[: -len(orig) - 1] if start else new[len(orig) + 1 :]
            assert new.endswith(" " + orig) if start else new.startswith(orig + " "), new
            # a sentence of a document judged 0 for the same query (c2 itself included)
            assert added in donor_sents[r.query_id], added
        # q2's documents judged 0 (o1) are q2's own: its candidate c2 draws from o1
        q2 = inst[inst["query_id"] == "q2"]
        assert [texts[b] for b in q2["doc_b"]] == (
            ["Other query text. Dogs bark."] if start else ["Dogs bark. Other query text."]
        )
        assert len(inst) == 4 and r.relation == ">"
    ds.qrels = {"q1": {"r1": 1}}
    inst, _ = probe_instances(ds, "AddSent-start,case-fold", depth=3)
    assert inst.attrs["skipped"]["AddSent-start"] == 4  # no donor: no pair
    ds.qrels = None
    with pytest.raises(ValueError, match=r"no relevance judgments; .* append-other-query"):
        probe_instances(ds, "AddSent-end", depth=3)
    inst, _ = probe_instances(ds, "all", depth=3)  # all: without the probes that need qrels
    assert not inst["axiom"].str.startswith("probe:AddSent").any()


def test_probes_are_seeded_and_do_not_depend_on_the_other_probes() -> None:
    ds = load_dataset("demo")
    a, art_a = probe_instances(ds, "swap-letters,shuffle-words", depth=5, seed=3)
    b, art_b = probe_instances(ds, "shuffle-words", depth=5, seed=3)
    c, art_c = probe_instances(ds, "shuffle-words", depth=5, seed=4)
    shuf_a = art_a[art_a["doc_id"].str.contains("shuffle-words")].reset_index(drop=True)
    assert shuf_a.equals(art_b.reset_index(drop=True))
    assert not art_b["text"].equals(art_c["text"])  # another seed, other texts...
    assert sample_hash(b) != sample_hash(c)  # ... and another sample
    again, _ = probe_instances(ds, "shuffle-words", depth=5, seed=3)
    assert sample_hash(again) == sample_hash(b)
    # every pair is (original, manipulated) of the same query, and every manipulated text exists
    assert set(a["doc_b"]) == set(art_a["doc_id"])
    src = dict(zip(art_a["doc_id"], art_a["source_doc_id"], strict=True))
    assert all(src[b] == d for d, b in zip(a["doc_a"], a["doc_b"], strict=True))
    # an invariance probe (shuffle-words) expects an unchanged score, the others a preference
    expected = a["axiom"].map({"probe:shuffle-words": "=", "probe:swap-letters": ">"})
    assert (a["relation"] == expected).all()
    for q, g in a.groupby("query_id"):
        assert set(g["doc_a"]) <= set(ds.candidate_ids(q)[:5])


def test_a_bag_of_words_ranker_is_exactly_neutral_on_order_and_case() -> None:
    ds = load_dataset("demo")
    inst, art = probe_instances(
        ds, "shuffle-words,case-fold,remove-stopwords,swap-letters", depth=10
    )
    diag = diagnose(inst, [make_ranker("bm25", ds)], ds, art, band="auto")
    t = diag.table().set_index("axiom")
    for p in ("probe:shuffle-words", "probe:case-fold", "probe:remove-stopwords"):
        # BM25 (default analyzer: lowercase, stopwords removed) sees the same bag of terms
        assert (t.loc[p, "pos"], t.loc[p, "neg"], t.loc[p, "effect"]) == (0, 0, 0.0), p
        assert t.loc[p, "neutral"] == t.loc[p, "n"] > 0
    # a typo removes a term occurrence: BM25 never prefers the misspelt text
    assert t.loc["probe:swap-letters", "neg"] == 0 and t.loc["probe:swap-letters", "pos"] > 0


def test_unknown_probe_names_are_refused_with_a_suggestion() -> None:
    assert parse_probes("all") == list(PROBES)
    with pytest.raises(ValueError, match="unknown probe 'typo' \\(did you mean 'Typo'\\?\\)"):
        parse_probes("typo")
    # the former names of this project's probes say what replaced them
    with pytest.raises(ValueError, match=r"'typos' was renamed: use swap-letters .* or Typo"):
        parse_probes("typos")
    with pytest.raises(ValueError, match="'add-sentence' was renamed: use append-other-query"):
        parse_probes("add-sentence")


def test_cli_probe_writes_a_report_with_effects_and_the_sample(tmp_path: Path) -> None:
    from axiomatic.cli.main import app

    res = CliRunner().invoke(app, ["probe", "-d", "demo", "-r", "bm25", "--probes",
                                   "shuffle-words,swap-letters", "--no-plots", "-o", str(tmp_path / "r")])  # fmt: skip
    assert res.exit_code == 0, res.output
    import pandas as pd

    table = pd.read_csv(tmp_path / "r" / "diagnosis.csv")
    assert set(table["axiom"]) == {"probe:shuffle-words", "probe:swap-letters"}
    assert {"delta", "effect", "effect_test", "effect_p", "sample"} <= set(table.columns)
    res = CliRunner().invoke(app, ["probe", "-d", "demo", "-r", "bm25", "--probes", "typo",
                                   "-o", str(tmp_path / "x")])  # fmt: skip
    assert res.exit_code != 0 and "unknown --probes 'typo'" in res.output
    res = CliRunner().invoke(app, ["probe", "-d", "demo", "-r", "bm25", "--probes", "typos",
                                   "-o", str(tmp_path / "x")])  # fmt: skip
    assert res.exit_code != 0 and "--probes 'typos' was renamed" in " ".join(res.output.split())


def test_invariance_probes_count_a_tie_as_the_desired_outcome(tmp_path: Path) -> None:
    """shuffle-words and case-fold leave a bag-of-words, lowercasing BM25 unchanged: every pair
    is a tie, which is what an invariance probe looks for (100% unchanged, not 0% fulfilled),
    and the report names text probes, not the thesis table's δ* or effectiveness measures."""
    import pandas as pd

    from axiomatic.cli.main import app

    ds = load_dataset("demo")
    inst, art = probe_instances(ds, "shuffle-words,case-fold,swap-letters", depth=5)
    bm25 = make_ranker("bm25", ds)
    texts = dict(zip(art["doc_id"], art["text"], strict=True))
    outcomes: dict[str, list[str]] = {}
    for r in inst.itertuples(index=False):
        docs = [ds.documents[r.doc_a], Document(r.doc_b, texts[r.doc_b])]
        sa, sb = bm25.score(ds.queries[r.query_id], docs)
        tie = abs(sa - sb) <= 1e-9 * max(1, abs(sa), abs(sb))
        outcomes.setdefault(r.axiom, []).append("tie" if tie else (">" if sa > sb else "<"))
    assert set(outcomes["probe:shuffle-words"]) == set(outcomes["probe:case-fold"]) == {"tie"}
    res = CliRunner().invoke(app, ["probe", "-d", "demo", "-r", "bm25", "--depth", "5",
                                   "--probes", "shuffle-words,case-fold,swap-letters", "--no-plots",
                                   "-o", str(tmp_path / "r")])  # fmt: skip
    assert res.exit_code == 0, res.output
    table = pd.read_csv(tmp_path / "r" / "diagnosis.csv").set_index("axiom")
    for p, wanted in (
        ("probe:shuffle-words", "tie"),
        ("probe:case-fold", "tie"),
        ("probe:swap-letters", ">"),
    ):
        expected = np.mean([o == wanted for o in outcomes[p]])
        assert table.loc[p, "fraction"] == pytest.approx(expected), p
    assert set(table.loc[["probe:shuffle-words", "probe:case-fold"], "relation"]) == {"="}
    assert table.loc["probe:swap-letters", "relation"] == ">"
    out = " ".join(res.output.split())
    assert "δ* = 1.0" not in out and "text probes" in out
    assert "measures, then" not in out and "% of pairs scored unchanged" in out
    page = (tmp_path / "r" / "report.html").read_text(encoding="utf-8")
    assert "Effectiveness measures" not in page and "δ* = 1.0" not in page
