"""The calibrated-effects example of docs/diagnosis.md, from the commands themselves.

Mines ``trec-dl-2019/bm25`` (relaxed TFC1, M-TDC and LNC2, at most 200 instances per query and
axiom, seed 0), runs ``axiomatic diagnose --band auto`` (and ``--band abnirml --band-test t``)
with BM25 and QL, ``axiomatic probe`` (every text probe) with BM25 and QL on the same dataset
and with BM25 and the MiniLM bi-encoder on the demo, and ABNIRML's probes with ABNIRML's band
and test on the demo, and writes the section
between the markers ``<!-- calibrated effects: begin -->`` and ``<!-- calibrated effects: end -->``
into ``--out``/effects.md; with ``--write-docs`` also into docs/diagnosis.md (replacing the
section there, or appending it; ``benchmarks/dl19_diagnosis.py --write-docs`` keeps it).

    .venv/bin/python benchmarks/band_example.py [--work outputs/band-example] [--write-docs]
"""

from __future__ import annotations

import argparse
import json
import shlex
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd

REPO = Path(__file__).resolve().parents[1]
BEGIN = "<!-- calibrated effects: begin -->"
END = "<!-- calibrated effects: end -->"
MINE = ["mine", "--dataset", "trec-dl-2019/bm25", "--axioms", "TFC1,M-TDC,LNC2",
        "--variant", "relaxed", "--max-per-query", "200", "--seed", "0"]  # fmt: skip
DIAGNOSE = ["diagnose", "-r", "bm25", "-r", "ql", "--band", "auto", "--no-oracle"]
DIAGNOSE_ABNIRML = ["diagnose", "-r", "bm25", "-r", "ql", "--band", "abnirml", "--band-test", "t",
                    "--no-oracle"]  # fmt: skip
PROBE_DL19 = ["probe", "-d", "trec-dl-2019/bm25", "-r", "bm25", "-r", "ql", "--probes", "all",
              "--depth", "10", "--seed", "0"]  # fmt: skip
PROBE_DEMO = ["probe", "-d", "demo", "-r", "bm25", "-r", "minilm", "--probes", "all",
              "--depth", "10", "--seed", "0"]  # fmt: skip
PROBE_DEMO_ABNIRML = ["probe", "-d", "demo", "-r", "bm25", "--probes",
                      "Typo,Typo-nostops,AddSent-start,AddSent-end,remove-sentence", "--depth",
                      "10", "--seed", "0", "--band", "abnirml", "--band-test", "t"]  # fmt: skip


def _cli(args: list[str]) -> float:
    exe = Path(sys.executable).with_name("axiomatic")
    t0 = time.perf_counter()
    proc = subprocess.run([str(exe), *args], capture_output=True, text=True)
    if proc.returncode:
        raise SystemExit(f"axiomatic {' '.join(args)} failed:\n{proc.stdout}\n{proc.stderr}")
    return time.perf_counter() - t0


def keep_section(old: str, new: str) -> str:
    """``new`` with the calibrated-effects section of ``old`` (if any) replacing or appended."""
    if BEGIN not in old or END not in old:
        return new
    block = old[old.index(BEGIN) : old.index(END) + len(END)]
    if BEGIN in new and END in new:
        return new[: new.index(BEGIN)] + block + new[new.index(END) + len(END) :]
    return new.rstrip("\n") + "\n\n" + block + "\n"


def _reading(table: pd.DataFrame) -> str:
    """One paragraph read off the table: fraction against effect per axiom and ranker."""
    t = table[table["relation"] != "="]
    parts = []
    for axiom, g in t.groupby("axiom", sort=False):
        cells = "; ".join(
            f"{r.ranker}: {100 * r.fraction:.1f}% fulfilled, effect {r.effect:+.3f} "
            f"({r.neutral:,} of {r.n:,} neutral)"
            for r in g.itertuples(index=False)
        )
        parts.append(f"{axiom}: {cells}")
    return (
        "Reading: a fulfilled instance is neutral when its margin lies within the ranker's "
        "own top-two gap, so the effect sits below the fraction by the share of such small "
        "margins, and rankers with equal fractions can differ in effect. "
        + ". ".join(parts)
        + ". The band is per ranker, so the comparison is on each ranker's own scale."
    )


_TEST = {"sign": "sign p", "t": "t-test p"}


def _rows(table: pd.DataFrame) -> list[str]:
    test = _TEST[str(table["effect_test"].iloc[0])]
    rows = [
        f"| ranker | axiom | n | fulfilled % | δ | pos | neg | neutral | effect [95% CI] | {test} |",
        "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for r in table.itertuples(index=False):
        eff = (
            "-"
            if pd.isna(r.effect)
            else f"{r.effect:+.3f} [{r.effect_ci_low:+.3f}, {r.effect_ci_high:+.3f}]"
        )
        p = "-" if pd.isna(r.effect_p) else ("< 1e-300" if r.effect_p == 0 else f"{r.effect_p:.2g}")
        rows.append(
            f"| {r.ranker} | {r.spec} | {r.n} | {100 * r.fraction:.1f} | {r.delta:.4f} | "
            f"{r.pos} | {r.neg} | {r.neutral} | {eff} | {p} |"
        )
    return rows


def _probe_part(table: pd.DataFrame, data: dict, cmd: str, wall: float) -> list[str]:
    band = ", ".join(f"{k} δ = {v:.4f}" for k, v in data["summary"]["band"].items())
    return [
        "```bash",
        f"axiomatic {cmd}",
        "```",
        "",
        f"Bands: {band}; probe sample `{data['summary']['sample']}` "
        f"({data['summary']['instances']:,} pairs over {data['summary']['queries']} queries); "
        f"wall time {wall:.1f} s.",
        "",
        *_rows(table),
        "",
    ]


def _bands(data: dict) -> str:
    return ", ".join(f"{k} δ = {v:.4f}" for k, v in data["summary"]["band"].items())


READING_PROBES = (
    "BM25 and QL see a bag of analyzed terms (lowercased, stopwords removed), so word and "
    "sentence order, case and stopwords leave every score exactly equal: those probes are all "
    "neutral, the check that the probes change nothing else. A misspelt word (`swap-letters`, "
    "`Typo`) loses a term occurrence, which they never reward; `Typo-nostops` changes fewer "
    "documents (only those with a listed word that is no stopword) and fewer scores beyond the "
    "band. The two added-sentence probes point in opposite directions on TREC DL 2019: a "
    "sentence of another query's candidate (`append-other-query-sentence`) brings no query "
    "term, only length, so BM25 prefers the original beyond its band on many pairs (QL's "
    "smoothed length normalization moves its score by less than its band), while a sentence "
    "of a document judged non-relevant for the same query (`AddSent-start` / `AddSent-end`), "
    "a BM25 candidate of that query, usually brings query terms and raises both scores: a "
    "negative effect. The MiniLM bi-encoder (demo) moves its score beyond its band on many "
    "shuffled texts, in both directions: it reads word order, without a significant preference "
    "on these 10 queries; its tokenizer lowercases, so case folding leaves it neutral too. In "
    "ABNIRML's mode (last table) the band is narrower, so more pairs leave it, and the t-test "
    "of `remove-sentence`'s four pairs is far smaller than the sign test's p (next section)."
)
DIFFERENCES = [
    "**Band: `top-gap` (this project's, the default) and `abnirml`.** ABNIRML pools the gaps "
    "between adjacent documents of each query's top 10 and takes their median (its "
    "`topk_diffs`, from which it set its deltas on TREC DL 2019): a typical one-rank step "
    "inside the top 10. `top-gap` takes one gap per query, between ranks 1 and 2, and the "
    "median over queries. It stays the default because every query weighs the same (pooling "
    "weighs a query by how much of a top 10 it has and counts nine gaps of one ranking, which "
    "move together, as nine observations); because it is the score difference that decides "
    "the first result, so an effect beyond it is a change large enough to reorder the top of a "
    "typical ranking, a stricter claim that is easy to read; and because it has no depth to "
    "choose. The price: it rests on one gap per query and is wider (BM25 on TREC DL 2019: "
    "0.1872 against ABNIRML's 0.0641; on the demo 0.1467 against 0.0801), so fewer instances "
    "leave the band. `--band abnirml` gives ABNIRML's band, to compare with the paper. Both "
    "calibrate on the ranker's scores of the candidates of the diagnosed queries (ABNIRML: of "
    "the queries of its reference run; the same set when every query is diagnosed, as `probe` "
    "does).",
    "",
    "**Test: `sign` (the default) and `t`.** ABNIRML reports a one-sample t-test of the score "
    "differences against 0. The sign test stays the default: it tests the counts the effect is "
    "made of (pos against neg; neutral instances carry no sign), assumes nothing about the "
    "distribution of the margins (heavy-tailed and on each ranker's own scale, where one "
    "outlier can dominate a mean), and answers the effect's question (does the ranker move "
    "scores one way more often than the other?) instead of whether the mean margin is 0. A "
    "t-test can be significant for an effect of 0 (many margins inside the band with a "
    "shifted mean) and tiny on a handful of similar margins: `remove-sentence` on the demo "
    "moves 4 of 4 BM25 scores the same way; the sign test gives p = 0.125, the smallest four "
    "pairs can give, the t-test 1.2e-7. `--band-test t` gives ABNIRML's test; the column "
    "`effect_test` names the test of every row.",
    "",
    "**Sample hash.** ABNIRML hashes (MD5) the query and document texts of each record "
    "together with its position. This project's hash takes the texts from it (a changed text "
    "under the same ids is another sample) and keeps what ABNIRML's lacks: the document ids, "
    "the axiom and the expected direction are in it, and the order of the instances is not "
    "(sorted lines, SHA-256). The two digests cannot be compared with each other.",
    "",
    "**`Typo` and `swap-letters`.** `Typo` and `Typo-nostops` follow ABNIRML's mechanism: "
    "every occurrence of a listed word (whole word, case as listed) becomes one of its common "
    "misspellings, drawn when it has several; `-nostops` leaves the words of the packaged "
    "stopword list alone (ABNIRML: Terrier's). The list differs: ABNIRML uses Wikipedia's "
    "*Lists of common misspellings/For machines* (about 4,300 misspellings), which no "
    "installed package provides and which is not downloaded; the package ships "
    "`axiomatic/resources/misspellings_en.tsv`, 309 misspellings of 229 frequent English words "
    "compiled for this project (its header says so), so fewer words and documents change than "
    "with ABNIRML's list. This project's former `typos` is kept as `swap-letters`: it swaps two "
    "adjacent inner letters in a fixed share (0.2) of the words of four or more letters, so "
    "every document gets a comparable dose of errors whatever its vocabulary, including words "
    "no list covers (names, domain terms); ABNIRML's list gives errors people make, at a dose "
    "that depends on the text. They answer different questions, so both are offered.",
    "",
    "**`AddSent-start` / `AddSent-end` and `append-other-query-sentence`.** ABNIRML's probes "
    "put a random sentence of a random document judged 0 for the same query before (`-start`, "
    "the default of its code) or after (`-end`, the variant its tables report) the text; as in "
    "ABNIRML, the document itself is a possible donor when it is judged 0. Only documents whose "
    "text the dataset holds can give a sentence: on `trec-dl-2019/bm25` its candidates (885 of "
    "the 5,158 documents judged 0; two queries have none and give no pairs). Sentences end at "
    "`.`, `!` or `?` (ABNIRML: spaCy's sentences). This project's former `add-sentence` is kept "
    "as `append-other-query-sentence`: it needs no judgments and takes the sentence from a "
    "candidate of another query, so the added text is off-topic and the probe isolates what "
    "unrelated text costs (length normalization), where ABNIRML's sentence comes from a "
    "document retrieved for the same query, usually with its terms, and probes whether "
    "near-topic, non-relevant text is rewarded. The TREC DL 2019 table shows the difference.",
    "",
    "**The other probes, and which documents are probed.** `shuffle-words`, "
    "`shuffle-sentences`, `case-fold`, `remove-stopwords` and `remove-sentence` do what "
    "ABNIRML's ShufWords, ShufSents, CaseFold, DelStops and DelSent-rand do, but on whitespace "
    "tokens and the sentences above instead of spaCy's, with the packaged stopword list instead "
    "of Terrier's, and (the shuffles) never returning the original order: hence this project's "
    "names. ABNIRML probes every judged document of each query; `probe` the first `--depth` "
    "candidates, judged or not. Each manipulation draws from a generator seeded by (seed, "
    "probe, query, document), where ABNIRML draws from one generator in record order.",
    "",
]


def section(
    table: pd.DataFrame,
    data: dict,
    mine_cmd: str,
    diag_cmd: str,
    wall: float,
    abnirml: tuple[pd.DataFrame, dict, str, float],
    probes: list[tuple[pd.DataFrame, dict, str, float]],
) -> str:
    rows = _rows(table)
    a_table, a_data, a_cmd, a_wall = abnirml
    return "\n".join(
        [
            BEGIN,
            "## Calibrated effects: a no-difference band, the effect and the sample hash",
            "",
            "Generated by `.venv/bin/python benchmarks/band_example.py --write-docs` (this section "
            "only; `dl19_diagnosis.py --write-docs` keeps it).",
            "",
            "A fulfilment fraction counts an instance as fulfilled when the ranker's score moves "
            "the prescribed way by any amount above the tie tolerance (1e-9). ABNIRML (MacAvaney "
            "et al., TACL 2022) asks whether it moves *by more than the ranker usually "
            "separates two good documents*. `axiomatic diagnose --band top-gap|abnirml|VALUE "
            '--band-test sign|t` (`diagnose(..., band="top-gap" | "abnirml" | VALUE | '
            '{ranker: VALUE}, band_test="sign" | "t")`) adds, next to the fraction of every '
            "(axiom, ranker) row:",
            "",
            "- `delta`: the ranker's no-difference band, calibrated per ranker on the diagnosed "
            "dataset itself: for each query of the instances the ranker scores the query's "
            "candidate list (the dataset's candidates, also the documents no instance names; a "
            "full-retrieval dataset: the query's documents among the instances), in the same "
            "batched call as the instances' documents. `top-gap` (alias `auto`, the default of "
            "`probe`; this project's) takes the **median over queries of |s(rank 1) − s(rank "
            "2)|**, the gap between its two top-ranked candidates; `abnirml` (ABNIRML's) the "
            "**median of the gaps s(rank i) − s(rank i + 1) between adjacent documents of each "
            "query's top 10, pooled over queries**. A number gives every ranker that band.",
            "- `pos` / `neg` / `neutral`: the margin is s(a) − s(b) for a pair (`doc_a` is the "
            "document the axiom prefers) and (s(b) − s(a)) − (s(c) − s(b)) for a TFC2 triple; "
            "pos: margin > δ, neg: margin < −δ, neutral: |margin| ≤ δ. n = pos + neg + neutral "
            "is the fraction's n.",
            "- `effect` = (pos − neg) / n in [−1, 1] (ABNIRML's score), with a 95% interval "
            "(`effect_ci_low`/`effect_ci_high`: Agresti & Min's adjusted Wald interval for a "
            "difference of matched proportions, 1/2 added to pos and neg and 2 to n), the test "
            "`effect_test` and its p-value `effect_p`: `sign` (default), the two-sided sign test "
            "of pos against neg (exact binomial, p = 1/2; neutral instances carry no sign), or "
            "`t` (ABNIRML's), the two-sided one-sample t-test of the margins of all n instances "
            "against 0 (empty when the margins do not vary). Symmetric (`[equal]`) groups expect "
            "no direction: their effect and test are empty.",
            "",
            "Every table, CSV, the JSON and the HTML header also carry the **probe sample's "
            "hash**, `sample` = `sha256:` + 16 hex digits (full digest: "
            "`summary.sample_sha256` in diagnosis.json), with or without a band: the SHA-256 "
            "of the sorted lines `query_id, axiom, relation, doc_a, doc_b, doc_c` of the "
            "instances followed by the SHA-256 of the query's text and of each document's text "
            "(a symmetric instance's two documents sorted), so it does not depend on row order "
            "and changes when one pair, its direction, its count or one text under the same ids "
            "changes; variant and parameters are not part of it. Two reports with the same hash "
            "judged the same pairs of the same texts (API: "
            "`effects.sample_hash(instances, query_texts=..., doc_texts=...)`, the texts from "
            "`effects.sample_texts(instances, dataset, artificial_docs)`).",
            "",
            "Example (numbers from the commands, 2 shared cores):",
            "",
            "```bash",
            f"axiomatic {mine_cmd}",
            f"axiomatic {diag_cmd}",
            "```",
            "",
            f"Bands: {_bands(data)}; probe sample `{data['summary']['sample']}` "
            f"({data['summary']['instances']:,} instances over {data['summary']['queries']} "
            f"queries); diagnosis wall time {wall:.1f} s.",
            "",
            *rows,
            "",
            _reading(table),
            "",
            "The same instances with ABNIRML's band and test:",
            "",
            "```bash",
            f"axiomatic {a_cmd}",
            "```",
            "",
            f"Bands: {_bands(a_data)}; diagnosis wall time {a_wall:.1f} s.",
            "",
            *_rows(a_table),
            "",
            "### Text probes",
            "",
            "`axiomatic probe` (API: `axiomatic.diagnose.probes.probe_instances`, then "
            "`diagnose(..., band=...)`) manipulates the first `--depth` candidates of each "
            "query of any re-ranking dataset, for any ranker that scores text. ABNIRML's probes, "
            "under the names ABNIRML gives them: `Typo` (every occurrence of a word of the "
            "packaged list of common English misspellings replaced with one of its "
            "misspellings; whole words, case as listed), `Typo-nostops` (the same, stopwords "
            "left alone; ABNIRML's table reports this one), `AddSent-start` / `AddSent-end` (a "
            "random sentence of a random document judged 0 for the same query put before / "
            "after the text; they need relevance judgments, and `all` leaves them out on a "
            "dataset without). This project's: `shuffle-words`, `shuffle-sentences` (never the "
            "original order), `swap-letters` (in each word of 4+ letters, with probability 0.2, "
            "two adjacent inner letters swapped), `remove-stopwords` (the packaged English "
            "list), `case-fold`, `append-other-query-sentence` (a random sentence of a candidate "
            "of another query appended), `remove-sentence` (one random sentence dropped). "
            "Every manipulation is seeded by (seed, probe, query, document); one that leaves a "
            "text unchanged gives no pair. Each pair is (original, manipulated) with the "
            "relation `>`: **a positive effect means the ranker prefers the original by more "
            "than its band**, a negative one the manipulated text; the probes make no claim "
            "about which is more relevant. It is its own command rather than `diagnose "
            "--probes` because `diagnose` reads instances that `mine` wrote (`--instances`), "
            "while probes are generated from a dataset in a second: `probe` takes `--dataset`, "
            "`--ranker`, `--probes`, `--depth`, `--seed`, `--band` (default `auto`) and "
            "`--band-test` and writes the same report files as `diagnose`.",
            "",
            *[line for part in probes for line in _probe_part(*part)],
            READING_PROBES,
            "",
            "### ABNIRML's definitions and this project's",
            "",
            *DIFFERENCES,
            END,
        ]
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--work", type=Path, default=REPO / "outputs" / "band-example")
    ap.add_argument("--write-docs", action="store_true")
    args = ap.parse_args()
    work: Path = args.work
    work.mkdir(parents=True, exist_ok=True)
    inst, rep = work / "inst", work / "rep"
    _cli([*MINE, "--out", str(inst)])
    wall = _cli([*DIAGNOSE, "-i", str(inst), "-o", str(rep), "--no-plots"])
    table = pd.read_csv(rep / "diagnosis.csv")
    data = json.loads((rep / "diagnosis.json").read_text(encoding="utf-8"))
    mine_cmd = shlex.join([*MINE, "--out", "inst/"])
    diag_cmd = shlex.join([*DIAGNOSE, "-i", "inst/", "-o", "rep/"])
    a_rep = work / "rep-abnirml"
    a_wall = _cli([*DIAGNOSE_ABNIRML, "-i", str(inst), "-o", str(a_rep), "--no-plots"])
    abnirml = (
        pd.read_csv(a_rep / "diagnosis.csv"),
        json.loads((a_rep / "diagnosis.json").read_text(encoding="utf-8")),
        shlex.join([*DIAGNOSE_ABNIRML, "-i", "inst/", "-o", "rep-abnirml/"]),
        a_wall,
    )
    probes = []
    for args_, name in (
        (PROBE_DL19, "probe-dl19"),
        (PROBE_DEMO, "probe-demo"),
        (PROBE_DEMO_ABNIRML, "probe-demo-abnirml"),
    ):
        folder = work / name
        t = _cli([*args_, "-o", str(folder), "--no-plots"])
        probes.append(
            (
                pd.read_csv(folder / "diagnosis.csv"),
                json.loads((folder / "diagnosis.json").read_text(encoding="utf-8")),
                shlex.join([*args_, "-o", f"{name}/"]),
                t,
            )
        )
    text = section(table, data, mine_cmd, diag_cmd, wall, abnirml, probes)
    (work / "effects.md").write_text(text + "\n", encoding="utf-8")
    print(text)
    if args.write_docs:
        doc = REPO / "docs" / "diagnosis.md"
        old = doc.read_text(encoding="utf-8")
        doc.write_text(keep_section(text, old), encoding="utf-8")


if __name__ == "__main__":
    main()
