"""Mutation testing of the modules that carry the papers' science (``make mutate``; not in CI).

Each module is mutated by mutmut (3.x) and each mutant is run against only the tests relevant
to that module (:data:`MODULES`), which keeps a campaign feasible on two cores. Every module
gets its own work folder ``build/mutate/<name>/``: links to ``src/`` and ``tests/`` and a
generated ``pyproject.toml`` holding the module's ``[tool.mutmut]`` section and the project's
pytest settings. mutmut copies what it mutates into ``<work>/mutants/``, so the working tree is
never modified (others may edit or test it meanwhile). Per module it prints mutants, killed,
survived (and timeouts, mutants no selected test reaches, other outcomes) and writes
``build/mutate/summary.md`` / ``summary.json``, the survivors listed by name (``mutmut show
NAME`` inside the work folder prints the diff of one).

Usage::

    python benchmarks/mutate.py                       # every module of MODULES
    python benchmarks/mutate.py models/similarity.py  # some of them
    python benchmarks/mutate.py --jobs 2 --resume     # 2 workers; keep earlier results

(``make mutate`` runs the first form; ``make mutate MUTATE_MODULES="models/similarity.py"
MUTATE_JOBS=2`` the others.) Exit status 0 whatever the score: the table is the result.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
import tomllib
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
PKG = "src/axiomatic"
OUT = REPO / "build" / "mutate"

#: module (under src/axiomatic) -> the tests that exercise it (pytest arguments: files, node
#: ids, ``-k`` expressions); mutmut then runs, per mutant, those of them that reach its function
MODULES: dict[str, list[str]] = {
    "diagnose/effects.py": [
        "tests/diagnose/test_effects_values.py",
        "tests/diagnose/test_effects.py",
        "tests/cli/test_band_cli.py",
    ],
    "diagnose/probes.py": [
        "tests/diagnose/test_probes.py",
        "tests/diagnose/test_probe_instances_values.py",
    ],
    "training/contrastive.py": [
        "tests/training/test_contrastive_strategy.py",
        "tests/training/test_acrank.py",
        "tests/training/test_infonce_negatives.py",
        "tests/training/test_acrank_negatives_relevance.py",
        "tests/training/test_loss_shapes.py",
    ],
    "training/smooth.py": [
        "tests/clir/test_smooth.py",
        "tests/clir/test_smooth_science.py",
        "tests/clir/test_smooth_losses_values.py",
        "tests/training/test_graded_loss_numbers.py",
    ],
    "training/samplers.py": [
        "tests/training/test_samplers_values.py",
        "tests/training/test_infonce_negatives.py",
        "tests/training/test_trainer.py",
    ],
    "perturb/acrank.py": [
        "tests/training/test_acrank.py",
        "tests/perturb/test_acrank_edit_rate.py",
        "tests/perturb/test_acrank_augmenter.py",
        "-k",  # the augmentation's own tests, not the training runs that use it
        "not training_runs and not hinge_variant and not strategy_builds",
    ],
    "models/acrank.py": [
        "tests/models/test_acrank_model.py",
        "tests/models/test_acrank_signal.py",
        "tests/models/test_acrank_scorer.py",
    ],
    "models/similarity.py": [
        "tests/clir/test_smooth.py",
        "tests/clir/test_smooth_science.py",
    ],
    "models/clir.py": [
        "tests/clir/test_clir_model.py",
        "tests/clir/test_smooth_science.py",
        "tests/clir/test_clir_model_init.py",
        "tests/clir/test_clir_towers.py",
    ],
    "data/readers/xquad.py": [
        "tests/data/test_xquad_candidates.py",
        "tests/data/test_xquad_split.py",
        "tests/clir/test_xquad_no_leak.py",
        "tests/data/test_data_readers.py",
        "tests/data/test_xquad_inputs.py",
    ],
    "ares/sampling.py": [
        "tests/ares/test_ares_sampling.py",
        "tests/ares/test_rank_corpus_and_sampler_mu.py",
        "tests/ares/test_pseudo_query_sampler.py",
    ],
    "ares/predictor.py": [
        "tests/ares/test_ares_predictor.py",
        "tests/ares/test_ares_pretrain.py",
        "tests/ares/test_rank_corpus_and_sampler_mu.py",
        "tests/ares/test_predictor_values.py",
    ],
    "ares/pipeline.py": [  # stages 1-3 (collections, cache key, real queries, setting rows)
        "tests/ares/test_pipeline_stages.py",
        "tests/ares/test_ares_predictor.py",
        "tests/ares/test_ares_fulfilment.py",
        "tests/ares/test_rank_corpus_and_sampler_mu.py",
        "tests/axioms/test_query_pair_reference.py",
    ],
    "ares/pairs.py": [  # hand-computed value tests; not the ARES quick experiment (~40 s)
        "tests/ares/test_pairs_axiom_agreement.py",
        "tests/ares/test_ares_pretrain.py::test_rank_and_rep_variants_order_pairs_by_their_axioms",
    ],
    "ares/pretrain.py": [  # the fast value tests (tiny BERT); the slow MiniLM runs stay out
        "tests/ares/test_pretrain_values.py",
        "tests/ares/test_ares_pretrain.py::test_bert_masking_rates_and_specials",
        "tests/ares/test_ares_pretrain.py::test_unknown_variant_is_a_clear_error",
    ],
    "axioms/query_pairs.py": [
        "tests/axioms/test_query_pairs.py",
        "tests/axioms/test_query_pair_reference.py",
        "tests/axioms/test_query_pair_axioms.py",
    ],
    "axioms/kernels/queries.py": [
        "tests/axioms/test_query_pair_kernels.py",
        "tests/axioms/test_query_pair_reference.py",
        "tests/axioms/test_query_pairs.py",
    ],
    "explain/model.py": [  # the stub-based value tests, and the real pipeline's fast tests
        "tests/explain/test_explanation_model.py",
        "tests/explain/test_query_grouped_folds.py",
        "tests/explain/test_explain.py::test_query_folds_keep_each_query_in_one_fold",
        "tests/explain/test_explain.py::test_depth_and_empty_inputs",
        "tests/explain/test_explain.py::test_a_ranking_no_axiom_describes_is_barely_explained",
    ],
    # the pairwise training science: hinge / MSE / listwise losses and Rosset's AR (losses.py),
    # the AR and AP steps and the graded strategy (strategies.py), Rennings' augmentation
    # (augment.py); the bit-identical lambda = 0 training run (3 s) stays out
    "training/losses.py": [
        "tests/training/test_loss_shapes.py",
        "tests/training/test_losses_config.py",
        "tests/training/test_pairwise_strategy_science.py",
        "-k",
        "not bit_identical",
    ],
    "training/strategies.py": [
        "tests/training/test_pairwise_strategy_science.py",
        "tests/training/test_trainer_strategies.py",
        "tests/training/test_step_context.py",
        "tests/training/test_infonce_negatives.py",
        "tests/training/test_mixing_rates.py",
        "-k",
        "not bit_identical",
    ],
    "training/augment.py": [
        "tests/training/test_diagnostic_augment_reference.py",
        "tests/training/test_augment.py",
        "tests/test_keyvalue_grammar.py",
        "tests/training/test_mixing_rates.py",
    ],
    # the comparison's statistics: verdicts, MDE, seed check, controls (fast value tests only)
    "experiments/compare_training/stats.py": [
        "tests/experiments/test_compare_training.py",
        "-k",
        "minimal_detectable or verdicts or answer_sentence or positive_control or boundaries",
    ],
    # activation patching: the minimal pairs and the patching engine
    "perturb/minimal_pairs.py": ["tests/perturb/test_minimal_pairs.py"],
    "explain/patching.py": [
        "tests/explain/test_patching.py",
        "tests/explain/test_patching_batched.py",
    ],
}

#: mutmut's exit-code reading (mutmut.stats.status_by_exit_code), folded into our columns
KILLED = {1, 3, 37}  # a failing test (3: pytest internal error), or the type checker
SURVIVED = {0}
TIMEOUT = {36, -24, 24, 152, 255}
NO_TESTS = {5, 33}


def _toml_value(v: object) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return repr(v)
    if isinstance(v, str):
        return json.dumps(v)
    if isinstance(v, list):
        return "[" + ", ".join(_toml_value(x) for x in v) + "]"
    raise TypeError(f"cannot write {v!r} as TOML")


def _section(name: str, values: dict[str, object]) -> str:
    lines = [f"[{name}]"]
    lines += [f"{k} = {_toml_value(v)}" for k, v in values.items()]
    return "\n".join(lines) + "\n"


def slug(module: str) -> str:
    return module.removesuffix(".py").replace("/", ".")


def prepare(module: str, tests: list[str], fresh: bool) -> Path:
    """The module's work folder (links to src/ and tests/, its pyproject.toml)."""
    work = OUT / slug(module)
    if fresh and (work / "mutants").exists():
        shutil.rmtree(work / "mutants")
    work.mkdir(parents=True, exist_ok=True)
    for name in ("src", "tests"):
        link = work / name
        if not link.is_symlink():
            if link.exists():
                shutil.rmtree(link)
            link.symlink_to(REPO / name, target_is_directory=True)
    pytest_cfg = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    ini = dict(pytest_cfg.get("tool", {}).get("pytest", {}).get("ini_options", {}))
    ini.pop("testpaths", None)
    mutmut = {
        "source_paths": ["src"],
        "only_mutate": [f"src/axiomatic/{module}"],
        "pytest_add_cli_args": ["-p", "no:cacheprovider", "-q", "-x"],
        "pytest_add_cli_args_test_selection": list(tests),
        "process_isolation": "forkserver",  # torch is not fork-safe after it ran tests
        "use_git_change_detection": False,
        "timeout_multiplier": 10.0,
    }
    text = (
        f"# generated by benchmarks/mutate.py for src/axiomatic/{module}; not the project's\n\n"
        + _section("tool.mutmut", mutmut)
        + "\n"
        + _section("tool.pytest.ini_options", ini)
    )
    (work / "pyproject.toml").write_text(text, encoding="utf-8")
    return work


def counts(work: Path, module: str) -> dict[str, object]:
    """Mutants, killed, survived, ... of the module's last run, from mutmut's ``.meta``."""
    meta = work / "mutants" / PKG / (module + ".meta")
    if not meta.exists():
        return {"mutants": 0, "error": f"no results ({meta} missing)"}
    codes: dict[str, int | None] = json.loads(meta.read_text(encoding="utf-8")).get(
        "exit_code_by_key", {}
    )
    out: dict[str, object] = {"mutants": len(codes)}
    out["killed"] = sum(1 for c in codes.values() if c in KILLED)
    out["survived"] = sum(1 for c in codes.values() if c in SURVIVED)
    out["timeout"] = sum(1 for c in codes.values() if c in TIMEOUT)
    out["no_tests"] = sum(1 for c in codes.values() if c in NO_TESTS)
    out["not_checked"] = sum(1 for c in codes.values() if c is None)
    known = KILLED | SURVIVED | TIMEOUT | NO_TESTS | {None}
    out["other"] = sum(1 for c in codes.values() if c not in known)
    # killed share of all mutants: a mutant no selected test reaches counts as not killed
    caught = sum(1 for c in codes.values() if c in KILLED | TIMEOUT)
    out["score"] = round(100 * caught / len(codes), 1) if codes else None
    out["survivors"] = sorted(k for k, c in codes.items() if c in SURVIVED)
    out["untested"] = sorted(k for k, c in codes.items() if c in NO_TESTS)
    return out


def run_module(module: str, jobs: int, fresh: bool) -> dict[str, object]:
    tests = MODULES[module]
    files = [t.split("::")[0] for t in tests if t.startswith("tests/")]
    missing = [t for t in files if not (REPO / t).exists()]
    if missing:
        raise SystemExit(f"{module}: test files missing: {missing}")
    work = prepare(module, tests, fresh)
    mutmut = shutil.which("mutmut", path=str(Path(sys.executable).parent)) or "mutmut"
    env = dict(os.environ, AXIOMATIC_NO_PROGRESS="1")
    # the tests run from <work>/mutants, where tests/shared_data.py's ../shared/data is not the
    # repository's: name it, or every test that needs a shared collection skips (and kills none)
    shared = REPO.parent / "shared" / "data"
    if "AXIOMATIC_DATA" not in env and shared.is_dir():
        env["AXIOMATIC_DATA"] = str(shared)
    t0 = time.perf_counter()
    log = work / "mutmut.log"
    with log.open("w", encoding="utf-8") as fh:
        proc = subprocess.run(
            [mutmut, "run", "--max-children", str(jobs)],
            cwd=work,
            env=env,
            stdout=fh,
            stderr=subprocess.STDOUT,
            check=False,
        )
    res = {"module": module, "tests": tests, **counts(work, module)}
    res["seconds"] = round(time.perf_counter() - t0, 1)
    if proc.returncode != 0:
        res["error"] = f"mutmut exited {proc.returncode} (see {log.relative_to(REPO)})"
    return res


def table(rows: list[dict[str, object]]) -> str:
    head = "| module | mutants | killed | survived | timeout | no tests | score % | seconds |"
    lines = [head, "|" + "---|" * 8]
    for r in rows:
        cells = [
            f"`{r['module']}`",
            *(str(r.get(k, "-")) for k in ("mutants", "killed", "survived", "timeout", "no_tests")),
            str(r.get("score") if r.get("score") is not None else "-"),
            str(r.get("seconds", "-")),
        ]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("modules", nargs="*", help=f"modules under {PKG}/ (default: all)")
    ap.add_argument("--jobs", type=int, default=1, help="mutmut workers (default 1)")
    ap.add_argument("--resume", action="store_true", help="keep the results of earlier runs")
    args = ap.parse_args(argv)
    chosen = args.modules or list(MODULES)
    unknown = [m for m in chosen if m not in MODULES]
    if unknown:
        ap.error(f"unknown module(s) {unknown}; expected some of {list(MODULES)}")
    OUT.mkdir(parents=True, exist_ok=True)
    summary_file = OUT / "summary.json"
    done = json.loads(summary_file.read_text()) if summary_file.exists() else {}
    for module in chosen:
        print(f"[mutate] {module}: pytest {' '.join(MODULES[module])}", flush=True)
        res = run_module(module, args.jobs, fresh=not args.resume)
        done[module] = res
        print(
            f"[mutate] {module}: {res.get('mutants')} mutants, {res.get('killed')} killed, "
            f"{res.get('survived')} survived ({res.get('seconds')} s)"
            + (f"; {res['error']}" if res.get("error") else ""),
            flush=True,
        )
        summary_file.write_text(json.dumps(done, indent=1), encoding="utf-8")
    rows = [done[m] for m in MODULES if m in done]
    text = table(rows)
    survivors = [
        f"- `{r['module']}`: " + ", ".join(f"`{s}`" for s in r.get("survivors", []))  # type: ignore[union-attr]
        for r in rows
        if r.get("survivors")
    ]
    md = text + ("\n\nSurvivors:\n\n" + "\n".join(survivors) if survivors else "") + "\n"
    (OUT / "summary.md").write_text(md, encoding="utf-8")
    print()
    print(md)
    return 0


if __name__ == "__main__":
    sys.exit(main())
