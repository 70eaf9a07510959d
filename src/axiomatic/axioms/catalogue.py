"""The axiom catalogue: every definition with its citation, variants and parameters.

Built on first use (no registration at import). Definitions of the ir_axioms family follow
ir_axioms 1.2.5 (Bondarenko et al. 2022) where it implements them and the cited papers otherwise.
"""

from __future__ import annotations

from axiomatic.axioms import kernels as K
from axiomatic.axioms.spec import AxiomDef

THESIS = "Rennings 2019, MSc thesis 'Axiomatic diagnosis of neural IR models', ch. 3"
FANG04 = "Fang, Tao, Zhai 2004, A formal study of information retrieval heuristics (SIGIR)"
FANG11 = "Fang, Tao, Zhai 2011, Diagnostic evaluation of information retrieval models (TOIS)"
SHI05 = "Shi, Wen, Yu, Song, Ma 2005, Gravitation-based model for IR (SIGIR)"
LV11 = "Lv, Zhai 2011, Lower-bounding term frequency normalization (CIKM)"
FANG06 = "Fang, Zhai 2006, Semantic term matching in axiomatic approaches to IR (SIGIR)"
TAO07 = "Tao, Zhai 2007, An exploration of proximity measures in IR (SIGIR)"
HAGEN16 = "Hagen, Völske, Göring, Stein 2016, Axiomatic result re-ranking (CIKM)"
WU12 = "Wu, Fang 2012, Relation based term weighting regularization (ECIR)"
ZHENG10 = "Zheng, Fang 2010, Query aspect based term weighting regularization (ECIR)"
GOLLAPUDI09 = "Gollapudi, Sharma 2009, An axiomatic approach for result diversification (WWW)"

THESIS_VARIANTS = ("strict", "extended", "relaxed")
FAMILY_VARIANTS = ("extended", "relaxed")


def definitions() -> list[AxiomDef]:
    from axiomatic.axioms import kernels_ext as X

    defs = [
        AxiomDef(
            "TFC1",
            2,
            ">",
            THESIS_VARIANTS,
            "relaxed",
            "favour the document with more query-term occurrences (equal length)",
            f"{FANG04}; {THESIS} eqs. 3.1-3.3",
            K.tfc1,
        ),
        AxiomDef(
            "TFC2",
            3,
            "diff>",
            THESIS_VARIANTS,
            "relaxed",
            "the score gain of one more query-term occurrence shrinks as the count grows",
            f"{FANG04}; {THESIS} eqs. 3.4-3.6",
            K.tfc2,
        ),
        AxiomDef(
            "M-TDC",
            2,
            ">=",
            THESIS_VARIANTS,
            "relaxed",
            "favour occurrences of the rarer query term (counts swapped across documents)",
            f"{SHI05}; {THESIS} eqs. 3.7-3.9",
            K.m_tdc,
        ),
        AxiomDef(
            "LNC2",
            2,
            ">=",
            THESIS_VARIANTS,
            "relaxed",
            "a document concatenated k times must not score lower than the original",
            f"{FANG11}; {THESIS} eqs. 3.10-3.12",
            K.lnc2,
            length=False,
        ),
    ]
    defs += X.definitions()
    return defs
