"""Liu et al. (smooth cross-lingual retrieval): tables, significance, figures and Markdown of
the finished units."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from axiomatic._report import markdown_table
from axiomatic.evaluate.clir_metrics import (
    CLIR_MEASURE_NAMES,
)
from axiomatic.experiments.common import read_json
from axiomatic.experiments.engine import register_experiment
from axiomatic.experiments.liu_smooth.figures import FIGURES, LiuFigures
from axiomatic.experiments.liu_smooth.plan import (
    SIG,
    Unit,
    _fmt,
    _resource,
)
from axiomatic.training.smooth import DISPLAY


@register_experiment(
    "liu-smooth",
    summary="smooth cosine + Smooth Ordinal Search Loss for cross-lingual graded retrieval",
    paper="Liu et al., Cross-Lingual Document Retrieval with Smooth Learning",
    dask=True,
    options=("sasaki",),
)
class LiuSmooth(LiuFigures):
    """Runner (see the package docstring): the engine's ``run()`` computes every unit not done
    yet (:class:`~axiomatic.experiments.liu_smooth.run.LiuRun`), then reports."""

    # ------------------------------------------------------------------ report
    def _load(self, units: Sequence[Unit]) -> list[dict[str, Any]]:
        """The results of the finished units computed with this plan's settings (a unit of
        another plan in the same folder is not reported under this one)."""
        out = []
        for u in units:
            f = self.out_dir / "runs" / u.path() / "test_metrics.json"
            if f.exists() and self.store.matches(f.parent, self.unit_settings(u)):
                out.append(read_json(f))
        return out

    @staticmethod
    def _seed_mean(results: Sequence[dict[str, Any]]) -> dict[str, dict[str, float]]:
        """Per-query values averaged over the seeds (paired tests run on these)."""
        ok = [r for r in results if not r.get("diverged")]
        if not ok:
            return {}
        out: dict[str, dict[str, float]] = {}
        for m in CLIR_MEASURE_NAMES:
            qids = ok[0]["test_per_query"][m].keys()
            out[m] = {q: float(np.mean([r["test_per_query"][m][q] for r in ok])) for q in qids}
        return out

    def _row(self, label: dict[str, Any], results: Sequence[dict[str, Any]]) -> dict[str, Any]:
        row = dict(label)
        ok = [r for r in results if not r.get("diverged")]
        row["seeds"] = ",".join(str(r["unit"]["seed"]) for r in ok) or "-"
        row["diverged"] = sum(1 for r in results if r.get("diverged"))
        for m in CLIR_MEASURE_NAMES:
            vals = [r["test"][m] for r in ok]
            row[m] = float(np.mean(vals)) if vals else None
        return row

    def _compare(
        self,
        rows: list[dict[str, Any]],
        groups: dict[Any, list[dict[str, Any]]],
        ref_of: Callable[[Any], Any],
        ref_name: str,
        noun: str,
        scope: str = "",
    ) -> str:
        """Paired t-test of each row against its reference row (per-query values averaged over
        seeds), Holm over the rows compared with the same reference on one measure
        (:func:`~axiomatic.evaluate.significance.compare_to_baseline`); returns the caption line
        naming the family ("" when nothing was compared). ``p X`` holds the adjusted p-value,
        ``_d X`` the reference's mean minus the row's."""
        from axiomatic.evaluate.significance import compare_to_baseline

        index = {key: i for i, key in enumerate(groups)}
        by_ref: dict[Any, dict[str, dict[str, dict[str, float]]]] = {}
        for key, res in groups.items():
            ref = ref_of(key)
            if ref is None or ref == key or ref not in groups:
                continue
            b = self._seed_mean(groups[ref])
            a = self._seed_mean(res)
            if not a or not b:
                continue
            # rows are named by their index: a reference name is never all digits
            by_ref.setdefault(ref, {ref_name: b})[str(index[key])] = a
        families: list[str] = []
        for comparison in (
            compare_to_baseline(vals, ref_name, test="t", noun=noun, scope=scope)
            for vals in by_ref.values()
        ):
            families.append(comparison.family)
            for c in comparison:
                i = int(c.system)
                rows[i][f"p {c.measure}"] = float(c.p_holm)
                rows[i][f"_d {c.measure}"] = -float(c.diff)
        for r in rows:
            sig = [
                ("ref+ " if r[f"_d {m}"] > 0 else "ref- ") + m
                for m in CLIR_MEASURE_NAMES
                if r.get(f"p {m}") is not None and r[f"p {m}"] < 0.05
            ]
            if any(f"p {m}" in r for m in CLIR_MEASURE_NAMES):
                r[SIG] = ", ".join(sig) or "none"
        return " | ".join(dict.fromkeys(families))

    def results(self) -> dict[str, Any]:
        p = self.plan
        summary: dict[str, Any] = {"plan": p.to_dict()}
        # per table: the caption line of its p-values (test, reference, Holm family)
        families: dict[str, str] = {}
        summary["significance"] = families
        # Table 2
        groups: dict[Any, list[dict[str, Any]]] = {}
        for u in self.table2_units():
            groups.setdefault((u.language, u.loss), []).extend(self._load([u]))
        groups = {k: v for k, v in groups.items() if v}
        for lang in p.languages:
            f = self._zero_shot_file(lang)
            current = self.store.matches(
                f.parent, self._zero_shot_settings(lang), record_name=f.stem + ".unit.json"
            )
            if f.exists() and current and any(k[0] == lang for k in groups):
                groups[(lang, "untrained")] = [read_json(f)]
        groups = dict(
            sorted(
                groups.items(),
                key=lambda kv: (
                    p.languages.index(kv[0][0]) if kv[0][0] in p.languages else 99,
                    kv[0][1] == "untrained",
                ),
            )
        )
        rows = [
            self._row(
                {"language": k[0], "resource": _resource(k[0]), "loss": DISPLAY.get(k[1], k[1])}, v
            )
            for k, v in groups.items()
        ]
        families["table2"] = self._compare(
            rows, groups, lambda k: (k[0], "sosl"), "SOSL", "rows", "per language"
        )
        summary["table2"] = rows
        # Table 3
        groups = {}
        for u in self.table3_units():
            groups.setdefault((u.language, u.encoder), []).extend(self._load([u]))
        groups = {k: v for k, v in groups.items() if v}
        rows = [
            self._row({"language": k[0], "resource": _resource(k[0]), "encoder": k[1]}, v)
            for k, v in groups.items()
        ]
        families["table3"] = self._compare(
            rows, groups, lambda k: (k[0], "avg"), "average pooling", "encoders", "per language"
        )
        summary["table3"] = rows
        # Figure 4: thresholds chosen on dev per eps
        fig4 = []
        for e in p.eps_grid:
            cands = [
                r
                for r in self._load([u for u in self.fig4_units() if u.eps == e])
                if not r.get("diverged")
            ]
            if not cands:
                continue
            best = max(cands, key=lambda r: r["dev"][p.selection_measure])
            unreachable = [th for (e2, th) in self.unreachable() if e2 == e]
            fig4.append(
                {
                    "eps": e,
                    "thresholds (dev)": best["unit"]["thresholds"],
                    "unreachable thresholds": ", ".join(str(list(t)) for t in unreachable)
                    or "none",
                    f"dev {p.selection_measure}": best["dev"][p.selection_measure],
                    **best["test"],
                }
            )
        if fig4:
            groups4 = {}
            for e in p.eps_grid:
                chosen = [r for r in fig4 if r["eps"] == e]
                if chosen:
                    th = tuple(chosen[0]["thresholds (dev)"])
                    groups4[e] = self._load(
                        [u for u in self.fig4_units() if u.eps == e and u.thresholds == th]
                    )
            base_eps = 0.0 if 0.0 in groups4 else None
            families["fig4"] = self._compare(
                fig4, groups4, lambda k: base_eps, "eps = 0", "eps values"
            )
        summary["fig4"] = fig4
        # Figure 5
        summary["fig5"] = [
            {"NR per query": r["unit"]["nr"], **r["test"]}
            for r in self._load(self.fig5_units())
            if not r.get("diverged")
        ]
        # stability
        summary["stability"] = self._stability()
        # NFCorpus / Sasaki
        for part, units in (
            ("nfcorpus", self.nfcorpus_units() if "nfcorpus" in p.parts else []),
            ("sasaki", self.sasaki_units() if p.sasaki else []),
        ):
            groups = {}
            for u in units:
                groups.setdefault(u.loss, []).extend(self._load([u]))
            groups = {k: v for k, v in groups.items() if v}
            rows = [self._row({"loss": DISPLAY.get(k, k)}, v) for k, v in groups.items()]
            families[part] = self._compare(rows, groups, lambda k: "sosl", "SOSL", "losses")
            summary[part] = rows
        summary["unit_seconds"] = round(
            sum(
                read_json(f).get("seconds_total", 0.0)
                for f in (self.out_dir / "runs").glob("**/test_metrics.json")
            ),
            1,
        )
        summary["table2_seconds"] = round(
            sum(r.get("seconds_total", 0.0) for r in self._load(self.table2_units())), 1
        )
        return summary

    def _stability(self) -> list[dict[str, Any]]:
        from axiomatic.training.checkpoint import read_log

        p = self.plan
        out = []
        for e in p.stability_eps:
            for c in p.stability_clip:
                units = [u for u in self.stability_units() if u.eps == e and u.clip == c]
                res = self._load(units)
                if not res:
                    continue
                logs = [read_log(self.out_dir / "runs" / u.path() / "log.jsonl") for u in units]
                gn = [x["grad_norm"] for log in logs for x in log if "grad_norm" in x]
                ok = [r for r in res if not r.get("diverged")]
                mrr = [r["test"]["MRRmr"] for r in ok]
                ndcg = [r["test"]["NDCG@5"] for r in ok]
                final_loss = [log[-1]["loss"] for log in logs if log]
                out.append(
                    {
                        "eps": e,
                        "clip": c if c > 0 else "none",
                        "seeds": len(res),
                        "diverged": sum(1 for r in res if r.get("diverged")),
                        "MRRmr mean": float(np.mean(mrr)) if mrr else None,
                        "MRRmr sd": float(np.std(mrr, ddof=1)) if len(mrr) > 1 else None,
                        "NDCG@5 mean": float(np.mean(ndcg)) if ndcg else None,
                        "NDCG@5 sd": float(np.std(ndcg, ddof=1)) if len(ndcg) > 1 else None,
                        "final loss sd": float(np.std(final_loss, ddof=1))
                        if len(final_loss) > 1
                        else None,
                        "grad norm median": float(np.median(gn)) if gn else None,
                        "grad norm max": float(np.max(gn)) if gn else None,
                        "grad norm p99": float(np.percentile(gn, 99)) if gn else None,
                    }
                )
        return out

    def summary(self, results: Mapping[str, Any]) -> str:
        return self._markdown(results).replace("IMG/", "")

    def docs_page(self, results: Mapping[str, Any], page: Path) -> str:
        return self._markdown(results).replace("IMG/", "img/")

    def _markdown(self, summary: Mapping[str, Any]) -> str:
        drawn = self.drawn(summary)
        figs = {key: name for key, name in FIGURES.items() if name in drawn}
        p = self.plan
        emb = {
            "word2vec": "word2vec trained per language on the collection",
            "minilm": "MiniLM word-piece embedding means",
            "random": "random",
        }.get(p.embeddings, p.embeddings)
        emb += (
            ", one table shared by both towers" if p.shared_embeddings else ", per-language tables"
        )
        m = summary["machine"]
        timing = summary.get("timing", {}).get("invocations", [])
        cols = list(CLIR_MEASURE_NAMES)
        pcols = [f"p {c}" for c in cols]

        def fam(part: str) -> str:
            return summary.get("significance", {}).get(part) or "nothing compared"

        text = [
            "# Smooth cross-lingual retrieval (Liu et al.) - reproduction",
            "",
            "Generated by `axiomatic experiment liu-smooth --config FILE` with the configuration named below (do not edit by hand; rerun the command).",
            "",
            f"- setting: **{p.setting}**, queries in `{p.query_language}`; embeddings: **{emb}**, "
            f"dim {p.embedding_dim}; score = smooth cosine r_eps; thresholds {p.thresholds}",
            f"- training: Adam lr {p.lr}, batch {p.batch_size}, {_fmt(p.epochs)} epochs (main runs), "
            f"gradient clipping {'none' if p.grad_clip <= 0 else p.grad_clip}; model selection: best dev "
            "MRRmr@10 checkpoint (evaluated once per epoch); seeds " + ",".join(map(str, p.seeds)),
            f"- machine: {m['cpu']}, {m['cpus']} CPUs, torch threads {p.threads}, "
            f"torch {m['torch']}, python {m['python']}; device: {m['device']}",
            f"- budget: sum of unit wall times {summary['unit_seconds']:.0f} s; Table 2 units "
            f"{summary['table2_seconds']:.0f} s; invocations: "
            + ", ".join(f"{t['wall_seconds']:.0f} s ({t['when']})" for t in timing),
            "- significance: paired t-test over test queries (per-query values averaged over seeds) "
            "against the reference row (SOSL / average pooling / eps = 0), Holm-adjusted over the "
            "rows compared with that reference on one measure (each table states its family); "
            "`p X` columns hold the adjusted p-values",
            "- measures: Pmr@1 = P(rel=2)@1, Pmr@5 = Success(rel=2)@5, Pr@5 = P(rel=1)@5, NDCG@5, "
            "MAP = AP(rel=1), MRRmr = RR(rel=2), MRRr = RR(rel=1) (ir_measures; "
            "see `axiomatic.evaluate.clir_metrics`)",
        ]
        if p.note:
            text += ["", p.note]
        if summary["table2"]:
            text += [
                "",
                f"## Table 2: losses x languages (eps = {_fmt(p.eps)}, average pooling, {emb})",
                "",
                markdown_table(
                    summary["table2"], ["language", "resource", "loss", "seeds", "diverged", *cols]
                ),
                "",
                f"Adjusted p-values ({fam('table2')}):",
                "",
                markdown_table(
                    [r for r in summary["table2"] if "p NDCG@5" in r],
                    ["language", "loss", *pcols, SIG],
                ),
            ]
        if summary["table3"]:
            text += [
                "",
                f"## Table 3: encoders with SOSL (eps = {_fmt(p.eps)}, {emb})",
                "",
                "Encoder settings: "
                + "; ".join(f"{k}: {v}" for k, v in p.encoder_settings.items()),
                "",
                markdown_table(
                    summary["table3"],
                    ["language", "resource", "encoder", "seeds", "diverged", *cols],
                ),
                "",
                f"Adjusted p-values ({fam('table3')}):",
                "",
                markdown_table(
                    [r for r in summary["table3"] if "p NDCG@5" in r],
                    ["language", "encoder", *pcols, SIG],
                ),
            ]
        if "fig3" in figs:
            text += [
                "",
                "## Figure 3: predicted score density per grade (training examples)",
                "",
                f"![fig3](IMG/{figs['fig3']})",
            ]
        if summary["fig4"]:
            text += [
                "",
                f"## Figure 4: eps sweep (en-{p.sweep_language}, SOSL, thresholds grid-searched on dev by {p.selection_measure} over {p.threshold_grid}, {emb})",
                "",
                markdown_table(
                    summary["fig4"],
                    [
                        "eps",
                        "thresholds (dev)",
                        "unreachable thresholds",
                        f"dev {p.selection_measure}",
                        *cols,
                    ],
                ),
                "",
                "Unreachable thresholds: grid points whose top grade no score can reach at this "
                f"eps (tanh towers, p = {p.embedding_dim}: every score < p/(sqrt(p)+eps)^2).",
                "",
                f"Adjusted p-values ({fam('fig4')}):",
                "",
                markdown_table([r for r in summary["fig4"] if "p NDCG@5" in r], ["eps", *pcols]),
                "",
            ]
            if "fig4" in figs:
                text += [f"![fig4](IMG/{figs['fig4']})"]
        if summary["fig5"]:
            text += [
                "",
                f"## Figure 5: NR documents per query (en-{p.sweep_language}, SOSL, {emb})",
                "",
                markdown_table(
                    sorted(summary["fig5"], key=lambda r: r["NR per query"]),
                    ["NR per query", *cols],
                ),
                "",
            ]
            if "fig5" in figs:
                text += [f"![fig5](IMG/{figs['fig5']})"]
        if summary["stability"]:
            text += [
                "",
                f"## Training stability (en-{p.sweep_language}, SOSL, lr {p.stability_lr}, {_fmt(p.stability_epochs)} epochs, seeds {p.stability_seeds})",
                "",
                markdown_table(summary["stability"], list(summary["stability"][0])),
                "",
            ]
            if "stability" in figs:
                text += [f"![stability](IMG/{figs['stability']})"]
        for part, title in (
            (
                "nfcorpus",
                f"NFCorpus (monolingual, grades 0-3, thresholds {p.nfcorpus_thresholds}, BM25 top-{p.nfcorpus_depth}, {p.nfcorpus_train_queries} training queries, {emb})",
            ),
            ("sasaki", f"Sasaki et al. 2018 files ({p.sasaki}, {emb})"),
        ):
            if summary.get(part):
                text += [
                    "",
                    f"## {title}",
                    "",
                    markdown_table(summary[part], ["loss", "seeds", "diverged", *cols]),
                    "",
                    f"Adjusted p-values ({fam(part)}):",
                    "",
                    markdown_table([r for r in summary[part] if "p NDCG@5" in r], ["loss", *pcols]),
                ]
        return "\n".join(text) + "\n"
