"""Does a trained model agree with the perturbation axioms? (a check of what AR teaches)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from axiomatic.data.records import Dataset
from axiomatic.models.base import NeuralRankingModel
from axiomatic.perturb import PERTURBATIONS, DocumentPerturber


def perturbation_agreement(
    model: NeuralRankingModel,
    dataset: Dataset,
    perturber: DocumentPerturber,
    axioms: Sequence[str] = tuple(PERTURBATIONS),
    n_pairs: int = 200,
    depth: int = 10,
    seed: int = 0,
) -> dict[str, float]:
    """Fraction of (query, candidate) pairs where the model orders a document and its
    perturbation as the axiom says: ``delta * (s(d) - s(d^(i))) > 0`` (a tie is a violation).

    Pairs are drawn (seeded) from the first ``depth`` candidates of ``dataset``'s queries.
    """
    rng = np.random.default_rng([seed, 31337])
    pool = [(q, d) for q in sorted(dataset.queries) for d in dataset.candidate_ids(q)[:depth]]
    if not pool:
        return {}
    pick = rng.choice(len(pool), size=min(n_pairs, len(pool)), replace=False)
    out: dict[str, float] = {}
    for ax in axioms:
        qs, orig, pert, deltas = [], [], [], []
        for i in pick:
            qid, did = pool[int(i)]
            q = dataset.queries[qid].text
            text = dataset.documents[did].text
            res = perturber.perturb(q, text, ax, rng)
            if res is None:
                continue
            qs.append(q)
            orig.append(text)
            pert.append(res.text)
            deltas.append(res.direction)
        if not qs:
            continue
        s = model.score_pairs(qs + qs, orig + pert).numpy()
        diff = s[: len(qs)] - s[len(qs) :]
        out[ax] = float(np.mean(np.asarray(deltas) * diff > 0))
    return out
