"""Count tables of diagnostic datasets (Rennings 2019, Tables 3.6-3.11).

* :func:`variant_counts`: instances satisfying the original (strict), the extended, the extended
  with only document-length relaxation, and the extended + relaxed axiom, out of all candidate
  tuples (Tables 3.6 and 3.7, plus the relaxed counts of 3.8/3.9);
* :func:`split_counts`: instances per axiom and split (Tables 3.8/3.9);
* :func:`presence_table`: how often the document an axiom prefers is relevant (Tables 3.10/3.11).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

import numpy as np
import pandas as pd

from axiomatic.axioms.spec import Axiom, parse_axiom
from axiomatic.data.records import Dataset
from axiomatic.diagnose.artificial import ArtificialConfig
from axiomatic.diagnose.mining import mine_query
from axiomatic.index.collection import CollectionIndex
from axiomatic.text.analyzer import Analyzer, parse_analyzer

THESIS_AXIOMS = ("TFC1", "TFC2", "M-TDC", "LNC2")


def _stages(name: str | Axiom, delta_rel: float, delta: float | None) -> list[tuple[str, Axiom]]:
    """The conversion stages of one axiom as parsed values (never by editing spec strings)."""
    d = parse_axiom(name).definition
    tol: dict[str, float | None] = (
        {"delta": delta, "delta_rel": None} if delta is not None else {"delta_rel": delta_rel}
    )
    stages = [
        ("original", Axiom.create(d.name, "strict")),
        ("extended", Axiom.create(d.name, "extended")),
    ]
    if d.length:
        stages.append(("extended+length", Axiom.create(d.name, "extended", **tol)))
        stages.append(("relaxed", Axiom.create(d.name, "relaxed", **tol)))
    else:
        stages.append(("relaxed", Axiom.create(d.name, "relaxed")))
    return stages


def variant_counts(
    dataset: Dataset,
    axioms: Sequence[str | Axiom] = THESIS_AXIOMS,
    index: CollectionIndex | None = None,
    depth: int | None = None,
    delta_rel: float = 0.1,
    delta: float | None = None,
    artificial: ArtificialConfig | None = ArtificialConfig(),
    analyzer: Analyzer | str | None = None,
) -> pd.DataFrame:
    """Instances per axiom and conversion stage (original / extended / +length / relaxed).

    Columns: axiom, stage, spec, instances, tuples (ordered candidate pairs, or triples for
    TFC2), fraction, analyzer (its spec). LNC2's relaxed stage includes the artificial
    duplicates (the thesis's only source of LNC2 instances); the other stages count real
    duplicate pairs only.

    ``analyzer`` (an :class:`Analyzer` or a spec string) builds the default index; it defaults to
    the project's one default analyzer (``"default"``: stopwords removed + Snowball), as
    :func:`~axiomatic.diagnose.mining.mine` and the rankers. The thesis' own tables used its
    text processing (section 3.4.1: stemming, no stopword removal, alphanumeric tokens): pass
    ``analyzer="thesis"`` to reproduce them. Stopword removal changes the counts 1.5-3.7x and
    turns multi-word queries into one-term ones. Ignored when ``index`` is given.
    """
    if index is None:
        from axiomatic.index.cache import dataset_index

        lang = dataset.doc_language or dataset.language
        index = dataset_index(dataset, analyzer=parse_analyzer(analyzer, language=lang))
    plan = [(ax.name, st, ax) for name in axioms for st, ax in _stages(name, delta_rel, delta)]
    unique = list(dict.fromkeys(ax for _, _, ax in plan))
    art = artificial if any(n == "LNC2" and st == "relaxed" for n, st, _ in plan) else None
    counts: Counter = Counter()
    pairs = triples = 0
    for qid, q in dataset.queries.items():
        ids = dataset.candidate_ids(qid) if dataset.candidates is not None else []
        ids = [d for d in (ids[:depth] if depth else ids) if d in dataset.documents]
        n = len(ids)
        pairs += n * (n - 1)
        triples += n * (n - 1) * (n - 2)
        if n == 0:
            continue
        docs = [dataset.documents[d] for d in ids]
        # one context per query for every axiom and stage (not one per stage); artificial LNC2
        # duplicates count for the relaxed LNC2 stage only, as in the thesis' tables
        res = mine_query(q, docs, index, unique, dataset.judged(qid), dataset.split, art)
        if res.table.num_rows == 0:
            continue
        spec = np.asarray(res.table.column("spec").to_pylist(), dtype=object)
        is_art = np.asarray(res.table.column("artificial").to_pylist(), dtype=bool)
        for name, stage, ax in plan:
            rows = spec == ax.spec
            if not (name == "LNC2" and stage == "relaxed"):
                rows &= ~is_art
            counts[(name, stage)] += int(rows.sum())
    rows = []
    for name, stage, ax in plan:
        tuples = triples if ax.arity == 3 else pairs
        k = counts[(name, stage)]
        rows.append(
            {
                "axiom": name,
                "stage": stage,
                "spec": ax.spec,
                "instances": k,
                "tuples": tuples,
                "fraction": k / tuples if tuples else 0.0,
                "analyzer": index.analyzer.spec,
            }
        )
    return pd.DataFrame(rows)


def split_counts(instances: pd.DataFrame) -> pd.DataFrame:
    """Instances per split (rows) and axiom spec (columns), with a Total row (Tables 3.8/3.9)."""
    if instances.empty:
        return pd.DataFrame()
    split = instances["split"].fillna("all")
    table = pd.crosstab(split, instances["spec"])
    table.loc["Total"] = table.sum()
    return table


def _label(rel: pd.Series, threshold: int) -> pd.Series:
    out = pd.Series(np.where(rel.isna(), "?", "N"), index=rel.index)
    out[rel.fillna(-1).astype(int) >= threshold] = "R"
    return out


def presence_table(instances: pd.DataFrame, rel_threshold: int = 1) -> pd.DataFrame:
    """Relevance of the documents in each instance (Tables 3.10/3.11).

    ``pattern`` is the relevance of (doc_a, doc_b[, doc_c]) in the order the axiom prescribes:
    ``R`` relevant (grade >= ``rel_threshold``), ``N`` judged non-relevant or unjudged when the
    dataset has no judgment for it is shown as ``?``. E.g. ``R>N``: the preferred document is
    relevant and the other one not. Columns: spec, pattern, instances, percent (per spec).
    """
    if instances.empty:
        return pd.DataFrame(columns=["spec", "pattern", "instances", "percent"])
    a = _label(instances["rel_a"], rel_threshold)
    b = _label(instances["rel_b"], rel_threshold)
    c = _label(instances["rel_c"], rel_threshold)
    triple = instances["doc_c"].notna()
    rel = instances["relation"].to_numpy()
    sep = np.select([rel == ">=", rel == "="], [">=", "="], ">")
    pattern = np.where(triple, a + "," + b + "," + c, a + pd.Series(sep, index=a.index) + b)
    df = pd.DataFrame({"spec": instances["spec"], "pattern": pattern})
    out = df.groupby(["spec", "pattern"]).size().rename("instances").reset_index()
    out["percent"] = 100.0 * out["instances"] / out.groupby("spec")["instances"].transform("sum")
    return out.sort_values(["spec", "instances"], ascending=[True, False]).reset_index(drop=True)
