"""Axiomatic document perturbations (Rosset et al. 2019): TFC1-A, TFC1-D, TFC3, LNC."""

from axiomatic.perturb.perturbations import (
    PERTURBATIONS,
    DocumentPerturber,
    PerturbedText,
    apply_edits,
    build_vocabulary,
    canonical_perturbation,
    perturbation_direction,
)

__all__ = [
    "PERTURBATIONS",
    "DocumentPerturber",
    "PerturbedText",
    "apply_edits",
    "build_vocabulary",
    "canonical_perturbation",
    "perturbation_direction",
]
