"""Writing activation-patching results (:mod:`axiomatic.explain.patching`): CSV tables, heat
maps (layer x head, layer x position role), a JSON record, and Markdown / HTML pages in the
diagnosis report's style. Every table names the pair sample's hash."""

from __future__ import annotations

import base64
import hashlib
import html
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from axiomatic._atomic import atomic_write_text
from axiomatic._report import figure_bytes, html_page, markdown_frame, new_figure
from axiomatic.explain.patching import ROLES, PatchResult
from axiomatic.explain.report import html_frame  # the explanations page's table style
from axiomatic.perturb.minimal_pairs import MinimalPair

__all__ = [
    "EXPLAINER",
    "colour_limit",
    "head_matrix",
    "pair_sample_hash",
    "role_matrix",
    "summary_frame",
    "write_patching",
]

EXPLAINER = (
    "Restored share: when one component's activation in the baseline run is replaced by its "
    "activation in the perturbed run, the pair's score moves by s(baseline, patched) - "
    "s(baseline); its fraction of the pair's difference s(perturbed) - s(baseline), averaged "
    "over the minimal pairs weighted by the size of that difference, with a 95 % bootstrap "
    "interval over pairs (the tables and heat maps). 1: the component alone carries the whole "
    "score difference; 0: none of it. The CSV also has the unweighted mean with its t-interval "
    "(noisier: a pair with a tiny difference weighs as much as the others) and "
    "patch_fractions.csv every pair's fraction. Heads and MLPs are patched at every position; "
    "the residual stream after each layer (0 = embeddings) at the positions of one role."
)


def pair_sample_hash(pairs: Sequence[MinimalPair]) -> str:
    """SHA-256 over the pairs' axiom, query, document ids and both texts, in any order: two
    runs with the same hash patched the same minimal pairs."""
    rows = sorted(
        "\x1f".join((p.axiom, p.query_id, p.doc_id, p.query, p.baseline, p.perturbed))
        for p in pairs
    )
    h = hashlib.sha256()
    for r in rows:
        h.update(r.encode("utf-8"))
        h.update(b"\x1e")
    return h.hexdigest()


def head_matrix(result: PatchResult, axiom: str) -> pd.DataFrame:
    """Mean restored fraction of every head: layers x heads."""
    e = result.effects
    e = e[(e["axiom"] == axiom) & (e["component"] == "head")]
    return e.pivot(index="layer", columns="head", values="aggregate").sort_index()


def role_matrix(result: PatchResult, axiom: str) -> pd.DataFrame:
    """Mean restored fraction of the residual stream: layers (0 = embeddings) x roles."""
    e = result.effects
    e = e[(e["axiom"] == axiom) & (e["component"] == "residual")]
    w = e.pivot(index="layer", columns="role", values="aggregate").sort_index()
    return w[[r for r in ROLES if r in w.columns]]


def summary_frame(result: PatchResult, k: int = 3) -> pd.DataFrame:
    """Per axiom: pairs patched, mean score difference, share of pairs where the perturbed
    document scores higher, and the ``k`` heads and the MLP with the largest restored
    fraction (with intervals)."""
    rows = []
    for ax, g in result.pairs.groupby("axiom", sort=False):
        kept = g[g["kept"]]
        e = result.effects[result.effects["axiom"] == ax]
        heads = e[e["component"] == "head"].sort_values("aggregate", ascending=False).head(k)
        mlps = e[e["component"] == "mlp"].sort_values("aggregate", ascending=False).head(1)
        rows.append(
            {
                "model": result.model,
                "axiom": ax,
                "pairs": len(g),
                "patched": len(kept),
                "mean_delta": float(g["delta"].mean()),
                "perturbed_higher": float((g["delta"] > 0).mean()),
                "top_heads": "; ".join(
                    f"{int(r.layer)}.{int(r.head)} {r.aggregate:.2f} "
                    f"[{r.agg_low:.2f}, {r.agg_high:.2f}]"
                    for r in heads.itertuples()
                ),
                "top_mlp": "; ".join(
                    f"{int(r.layer)} {r.aggregate:.2f} [{r.agg_low:.2f}, {r.agg_high:.2f}]"
                    for r in mlps.itertuples()
                ),
            }
        )
    return pd.DataFrame(rows)


def duplicate_heads(result: PatchResult, k: int = 5) -> pd.DataFrame:
    """Per axiom, the ``k`` heads that attend most from a perturbed position to the other
    occurrences of its token in the document, with their restored fraction beside."""
    a = result.attention
    if a.empty:
        return a
    e = result.effects[result.effects["component"] == "head"]
    e = e[["axiom", "layer", "head", "aggregate", "agg_low", "agg_high"]]
    m = a.merge(e, on=["axiom", "layer", "head"], how="left")
    m["ratio"] = m["dup_doc"] / m["dup_doc_uniform"].where(m["dup_doc_uniform"] > 0)
    m = m.rename(columns={"aggregate": "restored"})
    out = m.sort_values(["axiom", "dup_doc"], ascending=[True, False]).groupby("axiom").head(k)
    cols = ["axiom", "layer", "head", "positions", "dup_doc", "dup_doc_uniform", "ratio",
            "dup_query", "restored", "agg_low", "agg_high"]  # fmt: skip
    return out[cols].reset_index(drop=True)


def colour_limit(results: Sequence[PatchResult]) -> float:
    """The one symmetric colour limit of every heat map compared (all models, axioms, heads and
    residual roles): the largest absolute restored share, at least 1, so that one colour means
    one value on every map."""
    vals = [
        np.abs(r.effects.loc[r.effects["component"].isin(["head", "residual"]), "aggregate"])
        for r in results
    ]
    top = max((float(np.nanmax(v)) for v in vals if len(v) and np.isfinite(v).any()), default=1.0)
    return max(1.0, top)


def _heatmaps(result: PatchResult, axioms: Sequence[str], lim: float | None = None) -> bytes:
    """The heat maps of one model (heads, residual roles; one column per axiom), all on the
    colour scale [-lim, lim] (default: :func:`colour_limit` of this model)."""
    lim = colour_limit([result]) if lim is None else lim
    n = len(axioms)
    fig, grid = new_figure(2, n, figsize=(4.2 * n, 6.4), squeeze=False)
    for i, ax_name in enumerate(axioms):
        hm = head_matrix(result, ax_name)
        rm = role_matrix(result, ax_name)
        for row, (mat, xlabel) in enumerate(((hm, "head"), (rm, "position role"))):
            ax = grid[row][i]
            if mat.empty:  # that component was not patched
                ax.set_axis_off()
                continue
            vals = mat.to_numpy(dtype=float)
            im = ax.imshow(vals, cmap="RdBu_r", vmin=-lim, vmax=lim, aspect="auto")
            ax.set_yticks(range(len(mat.index)), [str(x) for x in mat.index])
            ax.set_xticks(range(len(mat.columns)), [str(c) for c in mat.columns],
                          rotation=90 if row else 0, fontsize=7)  # fmt: skip
            ax.set_xlabel(xlabel)
            ax.set_ylabel("layer" if row == 0 else "layer (0 = embeddings)")
            if row == 0:
                ax.set_title(f"{ax_name}: restored share", fontsize=9)
            fig.colorbar(im, ax=ax, fraction=0.046)
    fig.suptitle(f"{result.model} ({result.kind})", fontsize=10)
    fig.tight_layout()
    return figure_bytes(fig)


def _md(frame: pd.DataFrame) -> str:
    return markdown_frame(frame, floats="{:.3f}")


def _settings_line(result: PatchResult, sample: str, extra: dict[str, Any]) -> str:
    t = result.timing
    dropped = ", ".join(f"{k}: {v:,}" for k, v in result.dropped.items() if v)
    return (
        f"{result.model} ({result.kind}, {result.settings['layers']} layers x "
        f"{result.settings['heads']} heads) · {int(t['pairs'])} pairs patched"
        + (f" ({dropped} left out)" if dropped else "")
        + " · "
        f"pair sample {sample[:12]} · {t['pairs_per_second']:.3f} pairs/s, "
        f"{t['seconds_per_component']:.2f} s per component, "
        f"{int(t['forward_passes'])} forward passes · "
        + ", ".join(f"{k} {v}" for k, v in extra.items())
    )


def write_patching(
    results: Sequence[PatchResult],
    pairs: Sequence[MinimalPair],
    out_dir: str | Path,
    title: str = "Activation patching",
    extra: dict[str, Any] | None = None,
) -> dict[str, Path]:
    """``patch_effects.csv``, ``patch_pairs.csv``, ``patch_attention.csv``, one heat-map PNG per
    model, ``patching.json``, ``patching.md`` and ``patching.html`` in ``out_dir`` (atomically);
    returns the paths by kind."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    sample = pair_sample_hash(pairs)
    extra = dict(extra or {})
    files: dict[str, Path] = {}
    for name, attr in (
        ("effects", "effects"),
        ("pairs", "pairs"),
        ("attention", "attention"),
        ("fractions", "fractions"),
    ):
        frame = pd.concat(
            [getattr(r, attr).assign(model=r.model, pair_sample=sample[:12]) for r in results],
            ignore_index=True,
        )
        p = out / f"patch_{name}.csv"
        atomic_write_text(p, frame.to_csv(index=False))
        files[name] = p
    images: dict[str, bytes] = {}
    lim = colour_limit(results)  # one colour scale across every model's maps
    for i, r in enumerate(results):
        axioms = list(dict.fromkeys(r.pairs["axiom"]))
        png = _heatmaps(r, axioms, lim)
        p = out / f"patching_{i}.png"
        tmp = p.with_suffix(".png.tmp")
        tmp.write_bytes(png)
        tmp.replace(p)
        files[f"heatmap_{i}"] = p
        images[r.model] = png
    record = {
        "title": title,
        "pair_sample_sha256": sample,
        "pairs": len(pairs),
        **extra,
        "models": [
            {
                "model": r.model,
                "kind": r.kind,
                "timing": r.timing,
                "dropped": r.dropped,
                "settings": r.settings,
                "summary": summary_frame(r).to_dict(orient="records"),
            }
            for r in results
        ],
    }
    p = out / "patching.json"
    atomic_write_text(p, json.dumps(record, indent=2, default=float) + "\n")
    files["json"] = p
    md = [f"# {title}", "", EXPLAINER, ""]
    for i, r in enumerate(results):
        md += [
            f"## {r.model}",
            "",
            _settings_line(r, sample, extra),
            "",
            _md(summary_frame(r)),
            "",
            f"![{r.model}](patching_{i}.png)",
            "",
        ]
        dup = duplicate_heads(r)
        if not dup.empty:
            md += [
                "Heads attending most from a perturbed position to the other occurrences of its "
                "token in the document (`dup_doc`, against uniform attention `dup_doc_uniform`):",
                "",
                _md(dup),
                "",
            ]
    p = out / "patching.md"
    atomic_write_text(p, "\n".join(md))
    files["markdown"] = p
    p = out / "patching.html"
    atomic_write_text(p, _html(results, images, sample, title, extra))
    files["html"] = p
    return files


def _html(
    results: Sequence[PatchResult],
    images: dict[str, bytes],
    sample: str,
    title: str,
    extra: dict[str, Any],
) -> str:
    esc = html.escape
    body = [f"<div class='note'>{esc(EXPLAINER)}</div>"]
    for r in results:
        b64 = base64.b64encode(images[r.model]).decode("ascii")
        body += [
            f"<h2>{esc(r.model)}</h2>",
            f"<p class='meta'>{esc(_settings_line(r, sample, extra))}</p>",
            html_frame(summary_frame(r)),
            f'<img alt="{esc(r.model)} heat maps" src="data:image/png;base64,{b64}">',
        ]
        dup = duplicate_heads(r)
        if not dup.empty:
            body += ["<h3>Duplicate-token attention</h3>", html_frame(dup)]
    body.append(f"<p class='meta'>pair sample SHA-256 {esc(sample)}</p>")
    return html_page(title, body)
