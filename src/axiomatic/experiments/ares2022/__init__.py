"""Chen et al. (2022), "Axiomatically Regularized Pre-training for Ad hoc Search" (ARES).

``axiomatic experiment ares2022 [--quick]`` runs, each stage cached and resumable:

1. pseudo queries and query-centric axiom scores for the pre-training collections
   (:mod:`axiomatic.ares.pipeline`);
2. the preference predictor per negative-sampling setting I-IV: AUC (9:1 split, two-fold CV,
   several seeds) next to Table 2 of the paper, gain importances (Figure 2, plotted);
3. ARES pre-training of the MiniLM cross-encoder (:mod:`axiomatic.ares.pretrain`), checkpoint
   selected on zero-shot dev queries (``msmarco-dev-top20/train``, never a test split);
4. zero-shot re-ranking of BM25 candidates (MRR@10, nDCG@10) of BM25, the un-pre-trained MiniLM
   cross-encoder, the zero-shot MiniLM bi-encoder and ARES, with paired t-tests (Holm).
5. few-shot fine-tuning curves (Figure 3);
6. the axiomatic diagnosis of ARES vs the un-pre-trained cross-encoder (mined document-pair
   axiom fulfilment and Rosset perturbation agreement, shared with acrank2023).

all-MiniLM-L6-v2 was itself trained contrastively on about a billion sentence pairs including
MS MARCO: "zero-shot" here means "no training on our qrels", not "never saw MS MARCO-like data".

The package splits along its seams: :mod:`.plan` (``AresPlan``), :mod:`.pretraining` (the
predictor, pre-training and zero-shot stages), :mod:`.evaluation` (few-shot, ablation,
diagnosis), :mod:`.report` (figures, Markdown) and :mod:`.run` (the registered runner
``Ares2022``). The names are importable from the package as before.
"""

from axiomatic.experiments.ares2022.evaluation import (
    few_shot_tests,
    run_ablation,
    run_diagnosis,
    run_few_shot,
)
from axiomatic.experiments.ares2022.plan import (
    MEASURES,
    PAPER_TABLE2,
    UNIT_CODE,
    AresPlan,
)
from axiomatic.experiments.ares2022.pretraining import (
    dev_subset,
    run_predictor_stage,
    run_pretrain_stage,
    run_zero_shot,
)
from axiomatic.experiments.ares2022.report import (
    few_shot_figure,
    importances_figure,
    plot_few_shot,
    plot_importances,
    render_markdown,
)
from axiomatic.experiments.ares2022.run import (
    STAGES,
    Ares2022,
)

__all__ = [
    "MEASURES",
    "PAPER_TABLE2",
    "STAGES",
    "UNIT_CODE",
    "Ares2022",
    "AresPlan",
    "dev_subset",
    "few_shot_figure",
    "few_shot_tests",
    "importances_figure",
    "plot_few_shot",
    "plot_importances",
    "render_markdown",
    "run_ablation",
    "run_diagnosis",
    "run_few_shot",
    "run_predictor_stage",
    "run_pretrain_stage",
    "run_zero_shot",
]
