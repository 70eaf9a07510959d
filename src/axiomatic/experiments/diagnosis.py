"""Axiomatic diagnosis of trained models, shared by the experiments (acrank2023, ares2022).

Two views of whether a model behaves as the axioms say, on the same test queries:

- *fulfilment*: document-pair axiom instances mined on the test candidates (real documents),
  the fraction of each axiom's instances the model orders as the axiom prefers
  (:func:`axiomatic.diagnose.diagnosis.diagnose`), with McNemar tests between the models;
- *perturbation agreement* (Rosset et al. 2019): for a document and a controlled edit of it
  (add / drop a query term, ...), the fraction of pairs scored in the axiom's direction
  (:func:`axiomatic.training.analysis.perturbation_agreement`).

One function so that every experiment diagnoses the same way (no per-experiment copy).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from axiomatic._atomic import atomic_write_text

ROSSET_AXIOMS = ("TFC1-A", "TFC1-D", "TFC3", "LNC")

__all__ = ["ROSSET_AXIOMS", "diagnose_models", "diagnosis_tables"]


def diagnose_models(
    test: Any,
    models: Mapping[str, Any],
    out_dir: Path,
    axioms: str,
    depth: int,
    agreement_pairs: int,
    agreement_axioms: Sequence[str] = ROSSET_AXIOMS,
    analyzer: Any = None,
) -> dict[str, Any]:
    """Fulfilment of the mined ``axioms`` and perturbation agreement of each model on ``test``.

    ``test``: a dataset whose candidates are already cut to what should be diagnosed (the
    first ``depth``); instances are mined into ``out_dir/instances`` and the McNemar table is
    written to ``out_dir/mcnemar.csv``. ``analyzer``: the mining analyzer (spec or object;
    default: the dataset's default index); the perturbations use the default analyzer, as the
    models see raw text. Returns ``{"instances", "fulfilment", "agreement"}`` (plain dicts,
    JSON-ready)."""
    from axiomatic.data.instances import read_instances
    from axiomatic.diagnose.diagnosis import diagnose
    from axiomatic.diagnose.mining import mine
    from axiomatic.models.ranker import NeuralRanker
    from axiomatic.perturb import DocumentPerturber, build_vocabulary
    from axiomatic.text.analyzer import parse_analyzer
    from axiomatic.training.analysis import perturbation_agreement
    from axiomatic.training.augmenters import visible_tokens

    out_dir = Path(out_dir)
    inst_dir = out_dir / "instances"
    mine(test, axioms, inst_dir, depth=depth, analyzer=analyzer, progress=False)
    instances, artificial = read_instances(inst_dir)
    rankers = {r: NeuralRanker(m, name=r) for r, m in models.items()}
    result: dict[str, Any] = {"instances": {}, "fulfilment": {}, "agreement": {}}
    if len(instances):
        counts = instances.groupby("axiom").size()
        result["instances"] = {str(k): int(v) for k, v in counts.items()}
        diag = diagnose(instances, rankers, test, artificial)
        piv = diag.pivot("axiom")
        result["fulfilment"] = {
            str(r): {str(c): float(piv.loc[r, c]) for c in piv.columns} for r in piv.index
        }
        atomic_write_text(out_dir / "mcnemar.csv", diag.mcnemar().to_csv(index=False))
    an = parse_analyzer("default", language=test.language)
    texts = [test.documents[d].text for q in test.queries for d in test.candidate_ids(q)]
    vocab = build_vocabulary(texts, an, min_count=1)
    for r, m in models.items():
        pert = DocumentPerturber(an, vocab, lnc_terms=3, max_position=visible_tokens(m))
        result["agreement"][r] = perturbation_agreement(
            m, test, pert, agreement_axioms, n_pairs=agreement_pairs, depth=depth
        )
    return result


def diagnosis_tables(diag: Mapping[str, Any], pairs: str) -> list[str]:
    """Markdown lines of a :func:`diagnose_models` result: the fulfilment table (model x
    axiom) and the perturbation agreement table, whose caption names the ``pairs`` counted."""
    from axiomatic._report import markdown_table

    lines: list[str] = []
    ful = diag.get("fulfilment") or {}
    if ful:
        cols = sorted({c for v in ful.values() for c in v})
        lines += [markdown_table([{"model": k, **v} for k, v in ful.items()], ["model", *cols]), ""]
    agr = diag.get("agreement") or {}
    if agr:
        lines += [
            f"Rosset perturbation agreement (fraction of {pairs} where delta * (s(d) - s(d')) > 0):",
            "",
            markdown_table([{"model": k, **v} for k, v in agr.items()], ["model", *ROSSET_AXIOMS]),
            "",
        ]
    return lines
