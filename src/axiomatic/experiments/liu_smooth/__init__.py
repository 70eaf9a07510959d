"""Liu et al., "Cross-Lingual Document Retrieval with Smooth Learning" (smooth cosine similarity
+ Smooth Ordinal Search Loss), reproduced at the scale of the staged collections.

Parts (``plan.parts``):

- ``table2``: losses (SOSL, 3PartL2, MSE, PO) x document languages, eps = 1, average pooling;
- ``table3``: encoders (average pooling, DSSM-CNN, DSSM-LSTM) with SOSL;
- ``fig3``: density of the predicted scores on training examples, per grade and loss;
- ``fig4``: eps sweep 0 .. 2 with the thresholds grid-searched on **dev** (test never used);
- ``fig5``: number of NR documents per query (20 .. 100);
- ``stability``: loss and gradient-norm curves, eps = 0 vs eps > 0, with and without gradient
  clipping, over several seeds (variance across seeds, divergences counted);
- ``nfcorpus``: the losses on NFCorpus (monolingual, grades 3-2-1 + unjudged 0: K = 4);
- ``sasaki``: SOSL vs MSE on a user's Sasaki et al. (2018) files (``--sasaki DIR``).

Every training run is a unit with its own folder (``runs/<setting>/<language>/<encoder>/<loss>/
<variant>/seed<k>``) holding the trainer's checkpoint, log and model (loadable as
``model:DIR/model``); finished units are reused and interrupted ones resumed, so the command
can be stopped and restarted at any point, both only when the unit's record (``unit.json``:
every setting and the data's fingerprints, :mod:`axiomatic.experiments.units`) equals the
plan's: a unit of other settings is refused, naming what differs (``--overwrite`` redoes it).
The engine's ``report()`` summarizes whatever is finished with the plan's settings.

The package splits along its seams: :mod:`.plan` (what to run: ``LiuPlan``, ``Unit``),
:mod:`.parts` (``LiuParts``: the units of each part), :mod:`.run` (``LiuRun``: data and
the units' computation), :mod:`.figures` (``LiuFigures``)
and :mod:`.report` (the registered runner ``LiuSmooth``: tables, tests, Markdown). The names are importable
from the package as before.
"""

from axiomatic.experiments.liu_smooth.plan import (
    DEFAULT_NR,
    EMBEDDING_SETTINGS,
    HIGH_RESOURCE,
    PARTS,
    SIG,
    UNIT_CODE,
    LiuPlan,
    Unit,
)
from axiomatic.experiments.liu_smooth.report import LiuSmooth
from axiomatic.experiments.liu_smooth.run import LiuRun

__all__ = [
    "DEFAULT_NR",
    "EMBEDDING_SETTINGS",
    "HIGH_RESOURCE",
    "PARTS",
    "SIG",
    "UNIT_CODE",
    "LiuPlan",
    "LiuRun",
    "LiuSmooth",
    "Unit",
]
