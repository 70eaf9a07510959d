"""Which axiomatic training helps? Every method on the same data, start, budget and seeds.

``axiomatic experiment compare-training [--quick]`` trains a start with each way the toolkit
puts axioms into a ranker and compares each with *plain* training of the same start, selected
the same way:

- **regime A, from scratch with little data** (the papers' regime, on the CPU): KNRM /
  Conv-KNRM with word2vec embeddings trained on the training collection, at nested training
  sizes (50 / 200 / all queries): ``plain``, ``ar`` (Rosset et al. 2019), ``ap`` (Cheng & Fang
  2020), ``rennings`` (Rennings 2019, mined diagnostic instances), ``acrank`` (Bo et al. 2023,
  TFC-A/TFC-D contrastive learning on the kernel signal);
- **regime B, domain adaptation**: the MiniLM bi-encoder fine-tuned on SciFact;
- the MiniLM **cross-encoder** (GPU): ``acrank``, ``acrank-hinge``, ``infonce``, ``ares``.

Equal terms: the same training and dev queries, examples seen, dev evaluation (including the
start itself: a method whose training only hurts keeps the start), early stopping, seeds, and
grids of the same size per method, selected per start and size on dev only. The verdicts
(:mod:`.stats`) are helps / hurts / no detectable effect (with the minimal detectable effect) /
did not train / not robust over seeds, with positive controls (plain vs its untrained start;
plain at the largest vs the smallest size) and a manipulation check (how far the weights
moved). Units and folders: :mod:`.run`; the page: :mod:`.report`.
"""

from axiomatic.experiments.compare_training.plan import (
    INSTANCES,
    METHODS,
    STARTS,
    ComparePlan,
    apply_point,
    point_name,
    slug,
)
from axiomatic.experiments.compare_training.run import CompareTraining, weight_change
from axiomatic.experiments.compare_training.stats import minimal_detectable_effect, verdict

__all__ = [
    "INSTANCES",
    "METHODS",
    "STARTS",
    "ComparePlan",
    "CompareTraining",
    "apply_point",
    "minimal_detectable_effect",
    "point_name",
    "slug",
    "verdict",
    "weight_change",
]
