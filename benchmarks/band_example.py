"""The calibrated-effects example of docs/diagnosis.md, from the commands themselves (issue 28).

Mines ``trec-dl-2019/bm25`` (relaxed TFC1, M-TDC and LNC2, at most 200 instances per query and
axiom, seed 0), runs ``axiomatic diagnose --band auto`` with BM25 and QL, ``axiomatic probe``
(every text probe) with BM25 and QL on the same dataset and with BM25 and the MiniLM
bi-encoder on the demo, and writes the section
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
PROBE_DL19 = ["probe", "-d", "trec-dl-2019/bm25", "-r", "bm25", "-r", "ql", "--probes", "all",
              "--depth", "10", "--seed", "0"]  # fmt: skip
PROBE_DEMO = ["probe", "-d", "demo", "-r", "bm25", "-r", "minilm", "--probes", "all",
              "--depth", "10", "--seed", "0"]  # fmt: skip


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


def _rows(table: pd.DataFrame) -> list[str]:
    rows = [
        "| ranker | axiom | n | fulfilled % | δ | pos | neg | neutral | effect [95% CI] | sign p |",
        "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for r in table.itertuples(index=False):
        eff = (
            "-"
            if pd.isna(r.effect)
            else f"{r.effect:+.3f} [{r.effect_ci_low:+.3f}, {r.effect_ci_high:+.3f}]"
        )
        p = "-" if pd.isna(r.sign_p) else ("< 1e-300" if r.sign_p == 0 else f"{r.sign_p:.2g}")
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


def section(
    table: pd.DataFrame,
    data: dict,
    mine_cmd: str,
    diag_cmd: str,
    wall: float,
    probes: list[tuple[pd.DataFrame, dict, str, float]],
) -> str:
    band = data["summary"]["band"]
    rows = _rows(table)
    bands = ", ".join(f"{k} δ = {v:.4f}" for k, v in band.items())
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
            "separates two good documents*. `axiomatic diagnose --band auto|VALUE` "
            '(`diagnose(..., band="auto" | VALUE | {ranker: VALUE})`) adds, next to the '
            "fraction of every (axiom, ranker) row:",
            "",
            "- `delta`: the ranker's no-difference band. `auto` calibrates it per ranker on the "
            "diagnosed dataset itself: for each query of the instances the ranker scores the "
            "query's candidate list (the dataset's candidates; a full-retrieval dataset: the "
            "query's documents among the instances), and δ is the **median over queries of "
            "|s(rank 1) − s(rank 2)|**, the gap between its two top-ranked candidates. The "
            "candidates are scored in the same batched call as the instances' documents. A "
            "number gives every ranker that band (ABNIRML calibrates on a reference run: pass "
            "that run's median gap).",
            "- `pos` / `neg` / `neutral`: the margin is s(a) − s(b) for a pair (`doc_a` is the "
            "document the axiom prefers) and (s(b) − s(a)) − (s(c) − s(b)) for a TFC2 triple; "
            "pos: margin > δ, neg: margin < −δ, neutral: |margin| ≤ δ. n = pos + neg + neutral "
            "is the fraction's n.",
            "- `effect` = (pos − neg) / n in [−1, 1], with a 95% interval "
            "(`effect_ci_low`/`effect_ci_high`: Agresti & Min's adjusted Wald interval for a "
            "difference of matched proportions, 1/2 added to pos and neg and 2 to n) and "
            "`sign_p`, the two-sided sign test of pos against neg (exact binomial, p = 1/2; "
            "neutral instances carry no sign). Symmetric (`[equal]`) groups expect no "
            "direction: their effect and test are empty.",
            "",
            "Every table, CSV, the JSON and the HTML header also carry the **probe sample's "
            "hash**, `sample` = `sha256:` + 16 hex digits (full digest: "
            "`summary.sample_sha256` in diagnosis.json), with or without a band: the SHA-256 "
            "of the sorted lines `query_id, axiom, relation, doc_a, doc_b, doc_c` of the "
            "instances (a symmetric instance's two documents sorted), so it does not depend on "
            "row order and changes when one pair, its direction or its count changes; variant "
            "and parameters are not part of it. Two reports with the same hash judged the same "
            "pairs.",
            "",
            "Example (numbers from the commands, 2 shared cores):",
            "",
            "```bash",
            f"axiomatic {mine_cmd}",
            f"axiomatic {diag_cmd}",
            "```",
            "",
            f"Bands: {bands}; probe sample `{data['summary']['sample']}` "
            f"({data['summary']['instances']:,} instances over {data['summary']['queries']} "
            f"queries); diagnosis wall time {wall:.1f} s.",
            "",
            *rows,
            "",
            _reading(table),
            "",
            "### Text probes",
            "",
            "`axiomatic probe` (API: `axiomatic.diagnose.probes.probe_instances`, then "
            "`diagnose(..., band=...)`) applies ABNIRML's text manipulations to the first "
            "`--depth` candidates of each query of any re-ranking dataset, for any ranker that "
            "scores text: `shuffle-words`, `shuffle-sentences` (never the original order), "
            "`typos` (in each word of 4+ letters, with probability 0.2, two adjacent inner "
            "letters swapped), `remove-stopwords` (the packaged English list), `case-fold`, "
            "`add-sentence` (a random sentence of a candidate of another query appended), "
            "`remove-sentence` (one random sentence dropped). Every manipulation is seeded by "
            "(seed, probe, query, document); one that leaves a text unchanged gives no pair. "
            "Each pair is (original, manipulated) with the relation `>`: **a positive effect "
            "means the ranker prefers the original by more than its band**, a negative one the "
            "manipulated text; the probes make no claim about which is more relevant. The "
            "manipulated document ids carry a digest of their text, so the sample hash covers "
            "the texts judged. It is its own command rather than `diagnose --probes` because "
            "`diagnose` reads instances that `mine` wrote (`--instances`), while probes are "
            "generated from a dataset in a second: `probe` takes `--dataset`, `--ranker`, "
            "`--probes`, `--depth`, `--seed` and `--band` (default `auto`) and writes the same "
            "report files as `diagnose`.",
            "",
            *[line for part in probes for line in _probe_part(*part)],
            "BM25 and QL see a bag of analyzed terms (lowercased, stopwords removed), so word "
            "and sentence order, case and stopwords leave every score exactly equal: those "
            "probes are all neutral, the check that the probes change nothing else. A typo "
            "removes a term occurrence, which they never reward. Appending a sentence is "
            "fulfilled (the original scores higher) almost always for both, but beyond its band "
            "only for BM25: QL's smoothed length normalization moves the score by less than its "
            "typical top-two gap. The MiniLM bi-encoder (demo) moves its score beyond its band "
            "on many shuffled texts, in both directions: it reads word order, without a "
            "significant preference on these 10 queries; its tokenizer lowercases, so case "
            "folding leaves it neutral too.",
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
    probes = []
    for args_, name in ((PROBE_DL19, "probe-dl19"), (PROBE_DEMO, "probe-demo")):
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
    text = section(table, data, mine_cmd, diag_cmd, wall, probes)
    (work / "effects.md").write_text(text + "\n", encoding="utf-8")
    print(text)
    if args.write_docs:
        doc = REPO / "docs" / "diagnosis.md"
        old = doc.read_text(encoding="utf-8")
        doc.write_text(keep_section(text, old), encoding="utf-8")


if __name__ == "__main__":
    main()
