"""ACRank (Bo et al. 2023): tables, significance, figures, Markdown and the docs block of the
finished units."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from axiomatic._report import markdown_table, new_figure
from axiomatic.experiments.acrank2023.plan import (
    ACRANK_ROWS,
    CANDIDATES_ROW,
    DOCS_BEGIN,
    DOCS_END,
    LABELS,
    MEASURES,
    SettingPlan,
    Unit,
    _slug,
    row_unit,
)
from axiomatic.experiments.acrank2023.run import ACRankRun
from axiomatic.experiments.common import (
    per_query,
    read_json,
)
from axiomatic.experiments.diagnosis import diagnosis_tables
from axiomatic.experiments.engine import candidate_run, register_experiment


@register_experiment(
    "acrank2023",
    summary="contrastive learning of axiomatic matching signals (Tables 3-6, Figure 4)",
    paper="Bo et al., 2023 (ACRank)",
    dask=True,
)
class ACRank2023(ACRankRun):
    """Runner (see the package docstring): the engine's ``run()`` computes every unit not done
    yet (:class:`~axiomatic.experiments.acrank2023.run.ACRankRun`), then reports."""

    # ------------------------------------------------------------------ reporting
    def _current(self, sp: SettingPlan, unit: Unit, seed: int, stale: set[Path]) -> bool:
        """Whether the unit is finished with this plan's settings (a unit of another plan in
        the same folder is not reported under this one; it is added to ``stale``)."""
        d = self._unit_dir(sp, unit, seed)
        if not (d / "test_metrics.json").exists():
            return False
        if self.store.matches(d, self.unit_settings(sp, unit, seed)):
            return True
        stale.add(d)
        return False

    def _zero_shot_done(self, run_file: Path, name: str) -> bool:
        """Whether ``run_file`` was scored at the plan's ``zero_shot_depth`` (an unrecorded or
        other depth is an earlier plan's run, not comparable with this plan's rows)."""
        f = run_file.parent / "test_metrics.json"
        depths = read_json(f).get("zero_shot_depth", {}) if f.exists() else {}
        return bool(depths.get(name) == self.plan.zero_shot_depth)

    def results(self) -> dict[str, Any]:
        """Summarize every finished unit on disk (works while units are still missing)."""
        from axiomatic.evaluate.significance import compare_to_baseline

        p = self.plan
        tables: list[dict[str, Any]] = []
        # "setting|test set|ACRank variant" -> the caption line of its p-values
        families: dict[str, str] = {}
        sweep: list[dict[str, Any]] = []
        diagnosis: dict[str, Any] = {}
        total_train = 0.0
        aug_stats: dict[str, dict[str, int]] = {}
        stale: set[Path] = set()
        for sp in p.settings:
            row_names = [*sp.rows, *sp.ablation_rows]
            units = {r: row_unit(r, p.p) for r in row_names}
            metrics: dict[str, list[dict[str, Any]]] = {}
            for r, u in units.items():
                ms = []
                for seed in p.seeds:
                    f = self._unit_dir(sp, u, seed) / "test_metrics.json"
                    if self._current(sp, u, seed, stale):
                        ms.append(read_json(f))
                metrics[r] = ms
            for u in self.units_of(sp):
                for seed in p.seeds:
                    f = self._unit_dir(sp, u, seed) / "test_metrics.json"
                    if self._current(sp, u, seed, stale):
                        m = read_json(f)
                        total_train += float(m.get("train_seconds", 0.0))
                        if u.rule != "none":
                            aug_stats[f"{sp.name} {u.slug} seed{seed}"] = _log_counts(
                                f.parent / "log.jsonl", p.batch_size
                            )
            test_sets: list[str] = [sp.test, *sp.zero_shot]
            needs_data = any(metrics.values())
            data = self._data(sp) if needs_data else None
            for ts in test_sets:
                if data is None:
                    break
                ds = data.test if ts == sp.test else data.zero_shot[ts]
                pq: dict[str, dict[str, dict[str, float]]] = {}
                for r in row_names:
                    vals = []
                    for seed in p.seeds:
                        f = self._unit_dir(sp, units[r], seed) / f"run_{_slug(ts)}.json"
                        if not self._current(sp, units[r], seed, stale):
                            continue
                        if f.exists() and (ts == sp.test or self._zero_shot_done(f, ts)):
                            vals.append(per_query(read_json(f), ds, MEASURES))
                    if vals:  # mean over seeds, per query
                        pq[r] = {
                            m: {q: float(np.mean([v[m][q] for v in vals])) for q in vals[0][m]}
                            for m in MEASURES
                        }
                if pq:  # the first-stage order the models re-rank (BM25 for MS MARCO, DL19)
                    pq = {CANDIDATES_ROW: per_query(candidate_run(ds), ds, MEASURES), **pq}
                for r, vals_r in pq.items():
                    row: dict[str, Any] = {
                        "setting": sp.name,
                        "test": ts,
                        "row": r,
                        "table": "ablation" if r in sp.ablation_rows else "main",
                        "seeds": len(metrics[r]) if r in metrics else None,
                        "queries": len(next(iter(vals_r.values()))),
                    }
                    for m in MEASURES:
                        row[LABELS[m]] = float(np.mean(list(vals_r[m].values())))
                    tables.append(row)
                # paired t-tests of every row against each ACRank variant: Holm over the rows
                # compared with that variant on one measure (the project's one policy)
                for ac in ACRANK_ROWS:
                    if ac not in pq:
                        continue
                    cmp = compare_to_baseline(pq, ac, test="t", noun="rows")
                    families[f"{sp.name}|{ts}|{ac}"] = cmp.family
                    for c in cmp:
                        row = next(
                            x
                            for x in tables
                            if x["test"] == ts and x["row"] == c.system and x["setting"] == sp.name
                        )
                        row[f"p {LABELS[c.measure]} vs {ac}"] = float(c.p_holm)
                        row[f"diff {LABELS[c.measure]} vs {ac}"] = float(c.diff)
            if data is not None:
                for pv in sorted({*sp.p_sweep, p.p}):
                    u = Unit("acrank", sp.p_sweep_rule, "infonce", float(pv))
                    f = self._unit_dir(sp, u, p.seeds[0]) / "test_metrics.json"
                    if sp.p_sweep and self._current(sp, u, p.seeds[0], stale):
                        m = read_json(f)["test"][sp.test]
                        sweep.append(
                            {"setting": sp.name, "rule": sp.p_sweep_rule, "p": pv}
                            | {LABELS[k]: v for k, v in m.items()}
                        )
            dfile = self.out_dir / "diagnosis" / sp.name / "diagnosis.json"
            if dfile.exists() and self.store.matches(dfile.parent, self._diagnosis_settings(sp)):
                diagnosis[sp.name] = read_json(dfile)
        if stale:
            self.note(
                f"{len(stale)} finished unit(s) in {self.out_dir} were computed with other "
                "settings than this plan's and are not reported (e.g. "
                f"{self.store._name(min(stale))}); run the experiment with --overwrite to redo them"
            )
        return {
            "rows": tables,
            "significance": families,
            "p_sweep": sweep,
            "diagnosis": diagnosis,
            "augmentation_stats": aug_stats,
            "train_seconds_total": round(total_train, 1),
        }

    def figures(self, results: Mapping[str, Any]) -> dict[str, Any]:
        """The main rows per (setting, test set), the p sweep and the diagnosis per setting."""
        summary = results
        out: dict[str, Any] = {}
        rows = [r for r in summary["rows"] if r["table"] == "main"]
        for setting, ts in sorted({(r["setting"], r["test"]) for r in rows}):
            sel = [r for r in rows if r["setting"] == setting and r["test"] == ts]
            fig, ax = new_figure(figsize=(7, 3.4))
            x = np.arange(len(sel))
            for i, m in enumerate(("NDCG@1", "NDCG@10", "MAP")):
                ax.bar(x + (i - 1) * 0.27, [r[m] for r in sel], width=0.27, label=m)
            ax.set_xticks(x, [r["row"] for r in sel], rotation=35, ha="right", fontsize=7)
            ax.set_title(f"ACRank rows: {setting}, test {ts}", fontsize=9)
            ax.legend(fontsize=7)
            fig.tight_layout()
            out[f"acrank_main_{setting}_{_slug(ts)}.png"] = fig
        if summary["p_sweep"]:
            for setting in sorted({r["setting"] for r in summary["p_sweep"]}):
                pts = sorted(
                    (r for r in summary["p_sweep"] if r["setting"] == setting),
                    key=lambda r: r["p"],
                )
                fig, ax = new_figure(figsize=(4.5, 3.2))
                for m in ("NDCG@1", "NDCG@10", "MAP"):
                    ax.plot([r["p"] for r in pts], [r[m] for r in pts], marker="o", label=m)
                ax.set_xlabel(f"p ({pts[0]['rule']})")
                ax.set_title(f"Fig. 4 analogue: effect of p, {setting}", fontsize=9)
                ax.legend(fontsize=7)
                fig.tight_layout()
                out[f"acrank_p_{setting}.png"] = fig
        for setting, diag in summary["diagnosis"].items():
            ful = diag.get("fulfilment") or {}
            agr = diag.get("agreement") or {}
            if not ful and not agr:
                continue
            fig, (a1, a2) = new_figure(1, 2, figsize=(9, 3.2))
            for ax, data, title in ((a1, ful, "mined axioms"), (a2, agr, "perturbation agreement")):
                names = list(data)
                cols = sorted({c for v in data.values() for c in v})
                x = np.arange(len(cols))
                w = 0.8 / max(1, len(names))
                for i, n in enumerate(names):
                    ax.bar(x + i * w, [data[n].get(c, np.nan) for c in cols], width=w, label=n)
                ax.set_xticks(x + 0.4 - w / 2, cols, fontsize=7)
                ax.set_ylim(0, 1)
                ax.set_title(title, fontsize=9)
            a2.legend(fontsize=6)
            fig.suptitle(f"Diagnosis of trained models: {setting}", fontsize=9)
            fig.tight_layout()
            out[f"acrank_diagnosis_{setting}.png"] = fig
        return out

    def summary(self, results: Mapping[str, Any]) -> str:
        summary, figs = results, list(self.drawn(results))
        p = self.plan
        text = [
            "# ACRank (Bo et al. 2023) - reproduction at the staged data's scale",
            "",
            f"Seeds {p.seeds}; p = {p.p}; {p.steps} steps (per model: {p.steps_per_model or 'same'}), "
            f"batch {p.batch_size} queries, {p.negatives} sampled negatives (InfoNCE), max length "
            f"{p.max_length} word pieces (per setting: "
            + ", ".join(f"{s.name} {s.max_length or p.max_length}" for s in p.settings)
            + f"), lr {p.lr} (transformers) / {p.lr_word} (word models), threads {p.threads}. "
            f"Training time of all finished units: {summary['train_seconds_total']:.0f} s. "
            + (p.budget_note or ""),
            "",
            "Metric values are means over test queries (per-query values averaged over seeds). "
            "p: paired t-test over test queries against the named ACRank variant, Holm-corrected "
            "over the rows compared with that variant on one measure (main and ablation rows of "
            "a test set together; each table states its family); diff = row - ACRank.",
        ]
        for table, title in (
            ("main", "Tables 3/4: main rows"),
            ("ablation", "Tables 5/6: ablations"),
        ):
            rows = [r for r in summary["rows"] if r["table"] == table]
            if not rows:
                continue
            text += ["", f"## {title}", ""]
            for setting, ts in sorted({(r["setting"], r["test"]) for r in rows}):
                sel = [r for r in rows if r["setting"] == setting and r["test"] == ts]
                text += [f"### {setting}: test {ts} ({sel[0]['queries']} queries)", ""]
                cols = ["row", "seeds", "NDCG@1", "NDCG@10", "MAP"]
                stated = []
                for ac in ACRANK_ROWS:
                    if any(f"p NDCG@10 vs {ac}" in r for r in sel):
                        cols.append(f"p NDCG@10 vs {ac}")
                        fam = summary.get("significance", {}).get(f"{setting}|{ts}|{ac}")
                        if fam:
                            stated.append(fam)
                text += [markdown_table(sel, cols), ""]
                if stated:
                    text += ["p: " + " | ".join(stated) + ".", ""]
        if summary["p_sweep"]:
            text += [
                "## Figure 4: effect of p",
                "",
                markdown_table(
                    summary["p_sweep"], ["setting", "rule", "p", "NDCG@1", "NDCG@10", "MAP"]
                ),
                "",
            ]
        for setting, diag in summary["diagnosis"].items():
            text += [
                f"## Diagnosis of the trained models: {setting}",
                "",
                f"{diag.get('queries')} test queries, first {p.diagnose_depth} candidates; "
                f"instances per axiom: {diag.get('instances')}. Fraction of instances each "
                "model orders as the axiom says (LNC2 relaxed, default variants of the "
                "catalogue):",
                "",
                *diagnosis_tables(diag, "test pairs"),
            ]
        if summary["augmentation_stats"]:
            text += [
                "## Augmentation counts (summed over each unit's log.jsonl)",
                "",
                "documents: relevant documents drawn for training; plus / minus: TFC-A / TFC-D "
                "edits made (the rest: no term drawn, or for TFC-D no visible query-term "
                "occurrence = no_query_term); all_stopword_queries: no edit possible. Items "
                "without an edit were trained on their original list only.",
                "",
                markdown_table(
                    [{"unit": k, **v} for k, v in summary["augmentation_stats"].items()],
                    [
                        "unit",
                        "documents",
                        "plus",
                        "minus",
                        "no_query_term",
                        "all_stopword_queries",
                    ],
                ),
                "",
            ]
        m = summary["machine"]
        text += [
            "## Machine",
            "",
            f"{m['platform']}; {m['cpus']} CPUs ({m['cpu']}); torch {m['torch']} "
            f"({m['device']}); load average at report time {m['load']}.",
            "",
            "Figures: " + ", ".join(figs),
        ]
        return "\n".join(text) + "\n"

    docs_notes = False  # the page's own text surrounds the generated block

    def docs_page(self, results: Mapping[str, Any], page: Path) -> str:
        """``page`` (created when missing) with its generated block replaced by the report
        (figures in the page's ``img/``) and the plan as run."""
        body = self.summary(results).replace(
            "# ACRank (Bo et al. 2023) - reproduction", "### Reproduction", 1
        )
        for name in self.drawn(results):
            body += f"\n![{Path(name).stem}](img/{name})\n"
        cfg = (self.out_dir / "config.toml").read_text(encoding="utf-8")
        block = f"{DOCS_BEGIN}\n\n{body}\nPlan (as run):\n\n```toml\n{cfg}```\n\n{DOCS_END}"
        old = page.read_text(encoding="utf-8") if page.exists() else "# ACRank\n\n"
        if DOCS_BEGIN in old and DOCS_END in old:
            head, rest = old.split(DOCS_BEGIN, 1)
            tail = rest.split(DOCS_END, 1)[1]
            return head + block + tail
        return old.rstrip() + "\n\n" + block + "\n"


def _log_counts(log: Path, batch_size: int) -> dict[str, int]:
    """Augmentation counts summed over a unit's ``log.jsonl`` (every step, across resumes)."""
    from axiomatic.training.checkpoint import read_log

    recs = read_log(log)
    out = {"documents": len(recs) * batch_size}
    for key in ("aug_plus", "aug_minus", "aug_no_query_term", "aug_all_stopword_queries"):
        out[key.removeprefix("aug_")] = int(sum(r.get(key, 0) for r in recs))
    return out
