"""Rosset et al. (2019): summaries, figures and the Markdown report of finished runs."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, ClassVar

from axiomatic._report import markdown_table, new_figure
from axiomatic.data.records import Dataset, Run
from axiomatic.experiments.common import (
    ensemble,
    mean_values,
    per_query,
    read_json,
)
from axiomatic.experiments.engine import candidate_run, smooth
from axiomatic.experiments.rosset2019.plan import ALL_AXIOMS, MEASURES, RossetPlan, _slug


class RossetReport:
    """The reporting half of :class:`~axiomatic.experiments.rosset2019.run.Rosset2019`."""

    plan: RossetPlan
    out_dir: Path
    echo: Callable[[str], None]

    def unit_groups(self) -> tuple[dict[tuple[str, int, str, str], list[Path]], list[Path]]:
        raise NotImplementedError

    def summarize(
        self,
        groups: dict[tuple[str, int, str, str], list[Path]],
        tests: dict[str, Dataset],
        chosen: dict[str, Any],
    ) -> dict[str, Any]:
        from axiomatic.evaluate.significance import compare_to_baseline

        rows: list[dict[str, Any]] = []
        for key, dirs in groups.items():
            ds_name, size, model, variant = key
            test = tests[ds_name]
            runs: list[Run] = [read_json(d / "test_run.json") for d in dirs]
            values = per_query(ensemble(runs), test, MEASURES)
            seed_vals = [read_json(d / "test_metrics.json")["test"]["RR@10"] for d in dirs]
            rows.append(
                {
                    "dataset": ds_name,
                    "size": size,
                    "model": model,
                    "variant": variant,
                    "seeds": len(dirs),
                    "MRR@10": mean_values(values)["RR@10"],
                    "MAP": mean_values(values)["AP"],
                    "MRR@10 per-seed mean": sum(seed_vals) / len(seed_vals),
                    **{f"agree {ax}": _mean_key(dirs, ax) for ax in ALL_AXIOMS},
                }
            )
        rows.sort(
            key=lambda r: (
                r["dataset"],
                r["size"],
                r["model"],
                r["variant"] != "base",
                r["variant"],
            )
        )

        def seeds_of(dirs: Sequence[Path]) -> dict[int, Path]:
            return {int(read_json(d / "test_metrics.json")["seed"]): d for d in dirs}

        # per (dataset, size, model): the AR variants' per-query values and, for each, the
        # non-regularized ensemble over the seeds both finished
        mine_of: dict[tuple[str, int, str], dict[str, Any]] = {}
        base_of: dict[tuple[str, int, str], dict[str, Any]] = {}
        by_variant: dict[tuple[str, int, str, str], dict[str, Any]] = {}
        for r in rows:
            key = (r["dataset"], r["size"], r["model"], r["variant"])
            base_key = (*key[:3], "base")
            if r["variant"] == "base" or base_key not in groups:
                continue
            mine_s, base_s = seeds_of(groups[key]), seeds_of(groups[base_key])
            common = sorted(set(mine_s) & set(base_s))
            if not common:
                continue
            # compare ensembles over the same seeds (a finished AR seed without its base twin
            # would otherwise bias the comparison)
            test = tests[r["dataset"]]
            mine_of.setdefault(key[:3], {})[r["variant"]] = per_query(
                ensemble([read_json(mine_s[k] / "test_run.json") for k in common]), test, MEASURES
            )
            base_of.setdefault(key[:3], {})[r["variant"]] = per_query(
                ensemble([read_json(base_s[k] / "test_run.json") for k in common]), test, MEASURES
            )
            by_variant[key] = r
            r["seeds compared"] = len(common)
        # the project's one policy, one Holm family per table, (dataset, size, model) and
        # measure: the AR variants of that table compared with the non-regularized model
        families: dict[str, dict[str, str]] = {"main": {}, "ablation": {}}
        for (group, table), mine in (
            ((g, t), {v: x for v, x in vs.items() if _table_of(v) == t})
            for g, vs in mine_of.items()
            for t in ("main", "ablation")
        ):
            if not mine:
                continue
            cmp = compare_to_baseline(
                mine,
                "base",
                test="t",
                baseline_values=base_of[group],
                noun="AR variants",
                scope="per dataset, size and model",
            )
            families[table]["|".join(map(str, group))] = cmp.family
            for c in cmp:
                r = by_variant[(*group, c.system)]
                label = {"RR@10": "MRR@10", "AP": "MAP"}[c.measure]
                r[f"{label} diff"] = c.diff
                r[f"{label} p"] = c.p_holm
                r[f"{label} p raw"] = c.p
        bm25 = []
        for test in tests.values():
            means = mean_values(per_query(candidate_run(test), test, MEASURES))
            bm25.append({"dataset": test.name, "MRR@10": means["RR@10"], "MAP": means["AP"]})
        return {
            "rows": rows,
            "bm25": bm25,
            "chosen_lambda_mu": chosen,
            "significance": families,
        }

    figure_dpi: ClassVar[float] = 120

    def figures(self, results: Mapping[str, Any]) -> dict[str, Any]:
        """Figure 1 (MRR@10 by training size) per dataset and Figure 2 (training curves of the
        first seed at the largest size) per dataset and model."""
        rows = results["rows"]
        groups = self.unit_groups()[0]
        out: dict[str, Any] = {}
        main = [r for r in rows if _table_of(r["variant"]) == "main"]
        for ds in sorted({r["dataset"] for r in main}):
            fig, ax = new_figure(figsize=(5, 3.5))
            for model in sorted({r["model"] for r in main}):
                for kind in ("base", "ar"):
                    pts = sorted(
                        (r["size"], r["MRR@10"])
                        for r in main
                        if r["dataset"] == ds
                        and r["model"] == model
                        and (r["variant"] == "base") == (kind == "base")
                    )
                    if pts:
                        ax.plot(
                            *zip(*pts, strict=True),
                            marker="o",
                            ls="-" if kind == "ar" else "--",
                            label=f"{model} {kind}",
                        )
            ax.set_xscale("log")
            ax.set_xlabel("training queries")
            ax.set_ylabel("MRR@10 (ensemble)")
            ax.set_title(f"Fig. 1 analogue: {ds}")
            ax.legend(fontsize=7)
            fig.tight_layout()
            out[f"fig1_{_slug(ds)}.png"] = fig
        # Fig. 2: training curves of seed 0 at the largest size run for each model
        from axiomatic.training.checkpoint import read_log

        for (ds, size, model, variant), dirs in groups.items():
            if variant != "base":
                continue
            ar_key = next(
                (k for k in groups if k[:3] == (ds, size, model) and k[3].startswith("ar-all")),
                None,
            )
            if ar_key is None or size != max(k[1] for k in groups if k[0] == ds):
                continue
            fig, (a1, a2) = new_figure(1, 2, figsize=(8, 3.2))
            for label, d in (("base", dirs[0]), ("AR", groups[ar_key][0])):
                log = read_log(d / "log.jsonl")
                steps = [r["step"] for r in log]
                a1.plot(steps, smooth([r["base_loss"] for r in log], window=10), label=label)
                ev = [(r["step"], r["dev_mrr@10"]) for r in log if "dev_mrr@10" in r]
                if ev:
                    a2.plot(*zip(*ev, strict=True), marker="o", label=label)
            a1.set_xlabel("step")
            a1.set_ylabel("hinge loss (no AR term)")
            a2.set_xlabel("step")
            a2.set_ylabel("dev MRR@10")
            a1.legend()
            a2.legend()
            fig.suptitle(f"Fig. 2 analogue: {model}, {ds}, {size} queries")
            fig.tight_layout()
            out[f"fig2_{_slug(ds)}_{model}.png"] = fig
        return out

    def summary(self, results: Mapping[str, Any]) -> str:
        summary = results
        rows = summary["rows"]
        main = [r for r in rows if _table_of(r["variant"]) == "main"]
        abl = [r for r in rows if r not in main]
        fams = summary.get("significance", {})

        def stated(table: str) -> str:
            descs = list(dict.fromkeys(fams.get(table, {}).values()))
            return "p (Holm-adjusted): " + (" | ".join(descs) or "nothing compared") + "."

        cols = [
            "dataset",
            "size",
            "model",
            "variant",
            "seeds",
            "MRR@10",
            "MAP",
            "seeds compared",
            "MRR@10 diff",
            "MRR@10 p",
            "MAP p",
            "MRR@10 per-seed mean",
        ]
        agree_cols = ["dataset", "size", "model", "variant"] + [f"agree {a}" for a in ALL_AXIOMS]
        text = [
            "# Rosset et al. 2019 - axiomatic regularization (reproduction)",
            "",
            "Ensembles average the z-normalized scores of the seeds' models. p: paired t-test "
            "of the AR ensemble against the non-regularized ensemble ('base') over test queries, "
            "both ensembles built from the seeds finished for both ('seeds compared'), "
            "Holm-adjusted over the AR variants of the same table, dataset, size and model "
            "compared on one measure (each table states its family; results.json keeps the "
            f"unadjusted 'p raw'). Re-ranking depth {self.plan.test_depth} (BM25 candidates).",
            "",
            "## Figure 1 (MRR@10 / MAP by training-set size)",
            "",
            markdown_table(main, cols),
            "",
            stated("main"),
            "",
            "BM25 (candidate order): "
            + "; ".join(
                f"{b['dataset']}: MRR@10 {b['MRR@10']:.4f}, MAP {b['MAP']:.4f}"
                for b in summary["bm25"]
            ),
        ]
        if abl:
            text += [
                "",
                "## Table 2 (add-one-in ablation)",
                "",
                markdown_table(abl, cols),
                "",
                stated("ablation"),
            ]
        text += [
            "",
            "## Do the models follow the perturbation axioms? (test pairs, mean over seeds)",
            "",
            "Fraction of 200 (query, candidate) test pairs where delta * (s(d) - s(d')) > 0.",
            "",
            markdown_table(rows, agree_cols),
        ]
        text += [
            "",
            "lambda, mu per (dataset, size, model): "
            + ", ".join(f"{k}: {v}" for k, v in summary["chosen_lambda_mu"].items()),
        ]
        return "\n".join(text) + "\n"


def _table_of(variant: str) -> str:
    """The table a variant's row is in: ``main`` (Figure 1: the non-regularized model and AR
    with every axiom) or ``ablation`` (Table 2: one axiom at a time)."""
    return "main" if variant == "base" or variant.startswith("ar-all") else "ablation"


def _mean_key(dirs: Sequence[Path], axiom: str) -> float | None:
    vals = [read_json(d / "test_metrics.json").get("agreement", {}).get(axiom) for d in dirs]
    vals = [v for v in vals if v is not None]
    return sum(vals) / len(vals) if vals else None
