"""Rosset et al. (2019), "An Axiomatic Approach to Regularizing Neural Ranking Models".

Reproduces, at the scale of the staged collections:

- Figure 1: KNRM / Conv-KNRM with and without axiomatic regularization (AR) on nested training
  subsets, each point the score-averaged ensemble of the seeds' models, MRR@10 and MAP on the
  test split, with a paired t-test of AR against the non-regularized ensemble;
- Table 2: the add-one-in ablation (each perturbation alone, then all); its p-values are
  Holm-adjusted over the ablation variants compared with the same non-regularized model on one
  measure (Figure 1's over its AR variant), as every table states;
- Figure 2: training curves (hinge loss without the AR term, dev MRR@10) of both variants;
- lambda / mu tuned over {0.001, 0.01, 0.1, 0.25, 0.5, 1.0} on the dev queries only.

Every training run has its own directory (``runs/<dataset>/n<size>/<model>/<variant>/seed<k>``)
and is reused when finished, resumed from its checkpoint when interrupted, so the whole
experiment can be stopped and restarted at any point; both only when its record (``unit.json``:
every setting and the data's fingerprints) equals the plan's, else it is refused, naming what
differs (``--overwrite`` redoes it).

The package splits along its seams: :mod:`.plan` (what to run: ``RossetPlan``), :mod:`.run`
(the runner ``Rosset2019``) and :mod:`.report` (summaries, figures, Markdown); import each name
from its module. Run it with :func:`axiomatic.experiments.engine.run_experiment`
(``run_experiment("rosset2019", out, quick=True)``).
"""
