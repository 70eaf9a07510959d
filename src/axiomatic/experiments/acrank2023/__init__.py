"""Bo et al. (2023), "ACRank: contrastive learning of axiomatic matching signals" (in Chinese;
English summary in docs/acrank.md, "The method in English"), at the scale of the staged data.

What runs (every part configurable in a plan TOML, ``[plan]`` table):

- Tables 3 / 4: rows KNRM, Conv-KNRM, the MiniLM cross-encoder ("BERT"), AP(TFC-A / TFC-D /
  TFC-A&D) and ACRank(TFC-A / TFC-D / TFC-A&D) per setting (English MS MARCO with zero-shot TREC
  DL 2019, English SciFact, Chinese QBQTC); NDCG@1, NDCG@10, MAP; paired t-test of every row
  against each ACRank variant over the test queries, Holm-corrected per ACRank variant and
  measure.
- Tables 5 / 6: ablations w/E() (signal extraction + baseline hinge loss), w/L() ([CLS] + MLP
  with the contrastive loss), w/E()&L() (= ACRank) on original and on augmented data.
- Figure 4: the effect of p for one rule.
- Diagnosis of the trained models (TFC1, TFC2, M-TDC, LNC2 relaxed, mined on the test queries)
  and the Rosset perturbation agreement (TFC1-A, TFC1-D, TFC3, LNC), next to the plain
  cross-encoder: does ACRank raise TFC fulfilment?

A row is a *unit* ``(model, rule, loss, p, seed)``; units shared by rows (ACRank(TFC-A&D) is also
"w/E()&L() TFC-A&D") train once. Each unit has its own folder
(``runs/<setting>/<unit>/seed<k>``), is reused when finished and resumed from its checkpoint
when interrupted, both only when its record (``unit.json``: every setting and the data's
fingerprints, :mod:`axiomatic.experiments.units`) equals the plan's: a unit of other settings
is refused, naming what differs (``--overwrite`` redoes it). ``--report-only`` summarizes the
finished units of the plan's settings.

The package splits along its seams: :mod:`.plan` (what to run: ``ACRankPlan``, ``SettingPlan``,
the row units), :mod:`.run` (``ACRankRun``: data, units, diagnosis and their computation) and
:mod:`.report` (the registered runner ``ACRank2023``: tables, tests, figures, Markdown, the docs
block). The names are importable from the package as before.
"""

from axiomatic.experiments.acrank2023.plan import (
    ACRANK_ROWS,
    CANDIDATES_ROW,
    DOCS_BEGIN,
    DOCS_END,
    LABELS,
    MAIN_ROWS,
    MEASURES,
    UNIT_CODE,
    ACRankPlan,
    SettingPlan,
    Unit,
    row_unit,
)
from axiomatic.experiments.acrank2023.report import ACRank2023
from axiomatic.experiments.acrank2023.run import ACRankRun

__all__ = [
    "ACRANK_ROWS",
    "CANDIDATES_ROW",
    "DOCS_BEGIN",
    "DOCS_END",
    "LABELS",
    "MAIN_ROWS",
    "MEASURES",
    "UNIT_CODE",
    "ACRank2023",
    "ACRankPlan",
    "ACRankRun",
    "SettingPlan",
    "Unit",
    "row_unit",
]
