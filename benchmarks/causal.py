"""docs/causal.md from the commands themselves.

Runs ``axiomatic patch`` on MS MARCO passages (``msmarco-dev-top20/test``, minimal pairs from
each query's top 10 candidates, ``--pairs`` per axiom, seed 0) for each ranker given, then
writes docs/causal.md: the setting and cost, per ranker the effect of each axiom's minimal
pairs, the components that carry it (heads, MLPs, the residual stream by layer and position
role), the duplicate-token heads, and whether Chen et al.'s TAS-B picture (early heads that
attend from a repeated query term to its other occurrences, feeding the score) appears.

    .venv/bin/python benchmarks/causal.py \
        --ranker minilm-bi-encoder=minilm \
        --ranker minilm-cross-encoder=model:outputs/causal-ce/model \
        [--pairs 40] [--threads 2] [--work outputs/causal] [--write-docs]

The cross-encoder is trained first (``configs/causal-ce.toml``; the packaged MiniLM has no
trained cross-encoder head):

    .venv/bin/axiomatic train --config configs/causal-ce.toml --out outputs/causal-ce
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

REPO = Path(__file__).resolve().parents[1]
DATASET = "msmarco-dev-top20/test"
EARLY = 2  # layers 0..EARLY count as early (MiniLM has 6)
DUP_RATIO = 5.0  # a duplicate-token head attends >= 5x more to its token's copies than uniform


def _cli(args: list[str]) -> tuple[float, str]:
    exe = Path(sys.executable).with_name("axiomatic")
    t0 = time.perf_counter()
    proc = subprocess.run([str(exe), *args], capture_output=True, text=True)
    if proc.returncode:
        raise SystemExit(f"axiomatic {' '.join(args)} failed:\n{proc.stdout}\n{proc.stderr}")
    return time.perf_counter() - t0, proc.stdout


def _md(frame: pd.DataFrame, floats: str = "{:.3f}") -> str:
    sys.path.insert(0, str(REPO / "src"))
    from axiomatic._report import markdown_frame

    return markdown_frame(frame, floats=floats)


def _fmt_ci(row: pd.Series) -> str:
    return f"{row['aggregate']:.2f} [{row['agg_low']:.2f}, {row['agg_high']:.2f}]"


def residual_flow(effects: pd.DataFrame, axiom: str) -> pd.DataFrame:
    """Layers x roles of the residual stream's restored share (with intervals)."""
    e = effects[(effects["axiom"] == axiom) & (effects["component"] == "residual")]
    rows = []
    for layer, g in e.groupby("layer"):
        row: dict[str, object] = {"layer": "embeddings" if layer == 0 else str(layer)}
        for _, r in g.iterrows():
            row[r["role"]] = _fmt_ci(r) if r["n"] > 1 else f"{r['aggregate']:.2f}"
        rows.append(row)
    return pd.DataFrame(rows)


def duplicate_reading(effects: pd.DataFrame, attention: pd.DataFrame, axiom: str) -> dict:
    """The duplicate-token heads of one axiom and how much of the score difference each
    carries: Spearman correlation over heads of duplicate attention and restored share."""
    from scipy import stats

    a = attention[attention["axiom"] == axiom].copy()
    if a.empty:
        return {}
    e = effects[(effects["axiom"] == axiom) & (effects["component"] == "head")]
    m = a.merge(e[["layer", "head", "aggregate", "agg_low", "agg_high"]], on=["layer", "head"])
    m["ratio"] = m["dup_doc"] / m["dup_doc_uniform"].where(m["dup_doc_uniform"] > 0)
    dup = m[m["ratio"] >= DUP_RATIO].sort_values("ratio", ascending=False)
    early = dup[dup["layer"] <= EARLY]
    rho, p = stats.spearmanr(m["dup_doc"], m["aggregate"])
    top = e.sort_values("aggregate", ascending=False).head(5)
    return {
        "positions": int(m["positions"].max()),
        "dup_heads": dup,
        "early_dup_heads": early,
        "early_dup_carrying": early[early["agg_low"] > 0],
        "spearman": float(rho),
        "spearman_p": float(p),
        "top_heads": top,
        "top_dup_overlap": sorted(
            set(map(tuple, top[["layer", "head"]].to_numpy().tolist()))
            & set(map(tuple, dup[["layer", "head"]].to_numpy().tolist()))
        ),
    }


def model_section(name: str, folder: Path, img: str) -> list[str]:
    rec = json.loads((folder / "patching.json").read_text())
    (m,) = rec["models"]
    effects = pd.read_csv(folder / "patch_effects.csv")
    attention = pd.read_csv(folder / "patch_attention.csv")
    pairs = pd.read_csv(folder / "patch_pairs.csv")
    t = m["timing"]
    out = [
        f"## {name} ({m['kind']})",
        "",
        f"{int(t['pairs'])} pairs patched in {t['seconds']:.0f} s: "
        f"{t['pairs_per_second']:.3f} pairs/s, {int(t['forward_passes'])} batched forward "
        f"passes; per component {t.get('seconds_per_head', 0):.2f} s a head, "
        f"{t.get('seconds_per_residual', 0):.2f} s a residual position role, "
        f"{t.get('seconds_per_mlp', 0):.2f} s an MLP (all pairs). Left out: "
        + (", ".join(f"{v} {k}" for k, v in m["dropped"].items() if v) or "none")
        + ".",
        "",
        "**Effect of each axiom's minimal pairs and the components that carry it** (restored "
        "share over the patched pairs, with its 95 % bootstrap interval; the unweighted mean "
        "with its t-interval is in `patch_effects.csv`):",
        "",
    ]
    rows = []
    for s in m["summary"]:
        g = pairs[pairs["axiom"] == s["axiom"]]
        d = g["delta"].to_numpy()
        rows.append(
            {
                "axiom": s["axiom"],
                "pairs": s["pairs"],
                "patched": s["patched"],
                "mean score difference": float(np.mean(d)),
                "perturbed scores higher": float(np.mean(d > 0)),
                "top heads (layer.head)": s["top_heads"],
                "top MLP": s["top_mlp"],
            }
        )
    out += [_md(pd.DataFrame(rows)), "", f"![{name}: heat maps](img/{img})", ""]
    out += [
        "**Residual stream of TFC1-I by layer and position role** (where the injected term's "
        "information sits on its way to the score):",
        "",
        _md(residual_flow(effects, "TFC1-I")),
        "",
    ]
    for axiom in ("TFC1-I", "TFC1-R", "LNC2"):
        r = duplicate_reading(effects, attention, axiom)
        if not r:
            continue
        dup = r["dup_heads"]
        out.append(
            f"**Duplicate-token heads, {axiom}** ({r['positions']} perturbed positions whose "
            "token occurs elsewhere in the document; a head counts when its attention from "
            f"there to the other occurrences is at least {DUP_RATIO:g}x what uniform attention "
            "would give):"
        )
        out.append("")
        if dup.empty:
            out += ["none.", ""]
        else:
            show = dup.head(8)[["layer", "head", "dup_doc", "dup_doc_uniform", "ratio"]].copy()
            show["restored"] = [_fmt_ci(x) for _, x in dup.head(8).iterrows()]
            out += [_md(show), ""]
        out += [
            f"Spearman correlation over all {len(effects[(effects.axiom == axiom) & (effects.component == 'head')])} "
            f"heads between duplicate attention and restored share: {r['spearman']:.2f} "
            f"(p = {r['spearman_p']:.3g}). Of the five heads that carry most of {axiom}, "
            + (
                "1 is a duplicate-token head"
                if len(r["top_dup_overlap"]) == 1
                else f"{len(r['top_dup_overlap'])} are duplicate-token heads"
            )
            + (
                f" ({', '.join(f'{a}.{b}' for a, b in r['top_dup_overlap'])})"
                if r["top_dup_overlap"]
                else ""
            )
            + ".",
            "",
        ]
    return out


def verdict(name: str, folder: Path) -> str:
    effects = pd.read_csv(folder / "patch_effects.csv")
    attention = pd.read_csv(folder / "patch_attention.csv")
    r = duplicate_reading(effects, attention, "TFC1-I")
    if not r:
        return f"- **{name}**: no TFC1-I pair had the injected term elsewhere in the document."
    early, carrying = r["early_dup_heads"], r["early_dup_carrying"]
    names = ", ".join(f"{int(a)}.{int(b)}" for a, b in early[["layer", "head"]].to_numpy())
    carry = ", ".join(
        f"{int(x['layer'])}.{int(x['head'])} ({_fmt_ci(x)})" for _, x in carrying.iterrows()
    )
    if early.empty:
        return (
            f"- **{name}**: no early duplicate-token head (layers 0-{EARLY}); the TAS-B picture "
            "does not appear."
        )
    if carrying.empty:
        return (
            f"- **{name}**: early duplicate-token heads exist ({names}), but none carries a "
            "share of the TFC1-I score difference whose interval excludes 0: the attention "
            "pattern of the TAS-B picture appears, its causal role does not."
        )
    return (
        f"- **{name}**: early duplicate-token heads ({names}); of these {carry} carry a share "
        "of the TFC1-I score difference whose interval excludes 0: the TAS-B picture appears "
        f"in part (duplicate attention and restored share correlate at rho "
        f"{r['spearman']:.2f} over all heads)."
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--ranker", action="append", required=True, help="NAME=SPEC (repeatable)")
    ap.add_argument("--pairs", type=int, default=40)
    ap.add_argument("--depth", type=int, default=10)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--work", type=Path, default=REPO / "outputs" / "causal")
    ap.add_argument("--write-docs", action="store_true")
    ap.add_argument(
        "--reuse",
        action="store_true",
        help="Keep a ranker's finished patching output (its patching.json) instead of redoing it",
    )
    args = ap.parse_args()
    args.work.mkdir(parents=True, exist_ok=True)
    sections: list[str] = []
    verdicts: list[str] = []
    runs = []
    for item in args.ranker:
        name, _, spec = item.partition("=")
        folder = args.work / name
        cmd = ["patch", "-r", f"{name}={spec}", "-d", DATASET, "--pairs", str(args.pairs),
               "--depth", str(args.depth), "--seed", "0", "--threads", str(args.threads),
               "-o", str(folder)]  # fmt: skip
        if args.reuse and (folder / "patching.json").is_file():
            seconds = json.loads((folder / "patching.json").read_text())["models"][0]["timing"][
                "seconds"
            ]
        else:
            if folder.exists():
                shutil.rmtree(folder)
            _cli(cmd)
            seconds = json.loads((folder / "patching.json").read_text())["models"][0]["timing"][
                "seconds"
            ]
        runs.append((name, spec, seconds, " ".join(["axiomatic", *cmd[:-2]])))
        img = f"causal_{name}.png"
        if args.write_docs:
            shutil.copyfile(folder / "patching_0.png", REPO / "docs" / "img" / img)
        sections += model_section(name, folder, img)
        verdicts.append(verdict(name, folder))
    rec = json.loads((args.work / runs[0][0] / "patching.json").read_text())
    ev_cmd = ["evaluate", "-d", DATASET, "-r", "bm25",
              *[x for item in args.ranker for x in ("-r", item)],
              "--measures", "RR@10,nDCG@10", "--format", "csv"]  # fmt: skip
    ev_file = args.work / "effectiveness.csv"
    if not (args.reuse and ev_file.is_file()):
        _, ev_out = _cli(ev_cmd)
        ev_file.write_text(ev_out)
    ev = pd.read_csv(ev_file)
    ev_rows = []
    for ranker, g in ev.groupby("ranker", sort=False):
        row: dict[str, object] = {"ranker": ranker}
        for _, r in g.iterrows():
            row[r["measure"]] = r["value"]
            if pd.notna(r["diff"]):
                row[f"{r['measure']} vs BM25"] = f"{r['diff']:+.3f} (Holm p {r['pvalue_holm']:.3g})"
        ev_rows.append(row)
    ev_table = _md(pd.DataFrame(ev_rows).fillna(""))
    load = os.getloadavg()
    text = [
        "# Where in the model an axiom lives: activation patching",
        "",
        "<!-- generated by benchmarks/causal.py; edit that script, not this page -->",
        "",
        "Chen, Merullo & Eickhoff (SIGIR 2024) reverse-engineered TAS-B with *activation "
        "patching*: run a ranker on two documents that differ only where an axiom says, copy "
        "one component's activation from one run into the other, and see how much of the "
        "score difference it restores. `axiomatic patch` does this for any transformer ranker "
        "the toolkit loads (`minilm`, `model:DIR` of a MiniLM cross- or bi-encoder it trained, "
        "`st:DIR`, `cross-encoder:DIR`, `hf:DIR`; and the pointwise LLM rankers `llm:PATH` and "
        "`smollm2`, see [llm.md](llm.md)), with PyTorch forward hooks on the model "
        "as it is (no fork), over minimal pairs built from a dataset's passages "
        "(`axiomatic.perturb.minimal_pairs`):",
        "",
        "| axiom | perturbed document | baseline document |",
        "|---|---|---|",
        "| TFC1-I | a query term appended | as many filler word pieces (`a`) appended |",
        "| TFC1-R | one non-query, non-stopword word replaced by a query term of the same number of word pieces | the document |",
        "| TDC | the query term fewest candidates contain appended | the query term most candidates contain appended (padded to equal pieces) |",
        "| LNC2 | the document followed by a copy of itself | the document followed by as many fillers |",
        "",
        "Both texts of a pair have the same number of word pieces (pairs that do not, or that "
        "exceed 512, are left out and counted), so every position has a partner. The "
        "**restored share** of a component is its fraction (s(baseline, patched) - "
        "s(baseline)) / (s(perturbed) - s(baseline)) of each pair's difference, averaged over "
        "the pairs weighted by the size of that difference, with a 95 % bootstrap interval "
        "over pairs (the unweighted mean with its t-interval and every pair's fraction are in "
        "the CSVs; the unweighted mean is noisier, since a pair with a tiny difference weighs "
        "as much as one with a large difference); pairs whose score difference is below 5 % "
        "of their axiom's "
        "median absolute difference are left out. Components: the residual stream "
        "after each layer (0 = embeddings) at the positions of one role (`[CLS]`, the query "
        "segment of a cross-encoder, `[SEP]`, the `perturbed` positions, other occurrences "
        "of a query term in the document, the rest of the document), each attention head's "
        "output and each MLP's output at every position. Tests: a toy BERT with one planted "
        "head is recovered as the top component; the grouped, layer-skipping runs equal one "
        "plain forward pass per component; two identities hold exactly (the embeddings at the "
        "perturbed positions restore 1, so does the last layer's `[CLS]` of a cross-encoder).",
        "",
        "## Setting",
        "",
        f"- Data: `{DATASET}`, minimal pairs from each query's top {args.depth} candidates, "
        f"a seeded sample of {args.pairs} per axiom (seed 0); pair sample SHA-256 "
        f"`{rec['pair_sample_sha256'][:16]}…` (the first ranker's; a ranker's tokenizer "
        "decides how many fillers a term needs, so rankers with another vocabulary patch "
        "other pairs).",
        f"- Machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores, "
        f"{args.threads} torch threads, float32; load average at the end {load[0]:.1f} "
        "(other jobs were running: the timings are what this shared machine gave, not a "
        "benchmark).",
        "- Commands:",
        "",
    ]
    for _name, _spec, seconds, cmd in runs:
        text.append(f"  - `{cmd}` ({seconds:.0f} s of patching)")
    text += [
        "",
        f"How good the patched rankers are on the whole `{DATASET}` split, re-ranking its "
        f"BM25 top 20 (`axiomatic {' '.join(ev_cmd)}`; paired t-tests against BM25, Holm "
        "over the rankers per measure):",
        "",
        ev_table,
    ]
    text += [
        "",
        "- The cross-encoder: the packaged all-MiniLM-L6-v2 has no trained cross-encoder "
        "head, so it was fine-tuned here first, `axiomatic train --config "
        "configs/causal-ce.toml` (200 steps of 16 pairs, lr 5e-5, hinge, AdamW; on this "
        "CPU that is the budget this page was built with). At this budget it is a weak ranker "
        "(docs/training.md: the MiniLM cross-encoder needs tens of thousands of examples to "
        "approach BM25), so its mechanisms are those of a ranker early in training.",
        "",
        "## Does the TAS-B picture appear in MiniLM?",
        "",
        "Chen et al. found in TAS-B a few early attention heads that attend from a repeated "
        'query term to its other occurrences ("duplicate token heads") and feed later heads '
        "that write relevance to `[CLS]`. Read off the tables below:",
        "",
        *verdicts,
        "",
        *sections,
        "## What the method can and cannot say",
        "",
        "- It localizes the difference between *two* inputs: a component with a high restored "
        "share is sufficient to carry that difference given everything else of the "
        "baseline run, not the place where relevance is computed in general. Components "
        "that act only together (redundant heads, a head and the MLP that reads it) can each "
        "show a small share; shares of different components do not add up to 1.",
        "- The pairs are synthetic: appended terms and filler words are not natural text, and "
        "a ranker may treat the filler itself as a signal (the baseline is not neutral). "
        "TDC and LNC2 pairs compare two perturbations, not a perturbation with the original.",
        "- A restored share is a ratio: pairs with a tiny score difference are left out, and "
        "intervals over few pairs are wide; the pair counts are in the tables.",
        "- Residual patching by position *role* pools positions; it says which kind of "
        "position carries the difference after a layer, not which single token.",
        "- Duplicate-token attention is measured from the perturbed positions of pairs whose "
        "token also occurs elsewhere in the document; it is an attention pattern, the restored "
        "share is the causal test. A bi-encoder reads every position (mean pooling), a "
        "cross-encoder only `[CLS]`: their residual tables differ for that reason.",
        "- Costs scale with pairs x components x layers after the component: every patched "
        "forward starts at the patched layer from the cached baseline, and the components of "
        "one layer run stacked in one batch.",
        "",
        "Reproduce: the commands above (each writes `patching.html`, the heat maps and CSVs), "
        "or `.venv/bin/python benchmarks/causal.py --ranker ... --write-docs` for this page.",
        "",
    ]
    page = "\n".join(text)
    (args.work / "causal.md").write_text(page)
    if args.write_docs:
        (REPO / "docs" / "causal.md").write_text(page)
    print(page)


if __name__ == "__main__":
    main()
