"""Axiomatic diagnosis: the fraction of diagnostic instances each ranker fulfils (Rennings 2019, ch. 4).

A *diagnostic instance* prescribes an order of two (or three) documents for a query, mined from
an axiom (see :mod:`axiomatic.diagnose.mining` for the table schema). A ranker *fulfils* an
instance when its scores respect the prescribed relation:

- ``">"``      : :math:`s(a) > s(b)` (a tie violates the instance),
- ``">="``     : :math:`s(a) \\ge s(b)` (a tie fulfils it),
- ``"="``      : :math:`s(a) = s(b)` (a *symmetric* instance: the preconditions hold in both
  directions, e.g. M-TDC on two terms of equal idf, so the axiom asks for ``s(a) >= s(b)`` and
  ``s(b) >= s(a)``; only a tie fulfils it; such instances form their own group, labelled
  :data:`SYMMETRIC_SUFFIX`, so that they never inflate the directional fulfilment),
- ``"diff>"``  : :math:`s(b) - s(a) > s(c) - s(b)` (TFC2 triples, strict).

Ties are judged with a relative tolerance (:data:`DEFAULT_TIE_TOLERANCE`): two scores tie when
``|s_a - s_b| <= tol * max(1, |s_a|, |s_b|)``, so that floating-point noise on mathematically
equal scores (BM25 with b = 1 on LNC2 duplicates) is a tie, not a violation.

Rankers that cannot score every document (TREC run files) are diagnosed in two *views*
(``missing="both"``): the **own-list** view keeps only instances whose documents are all in the
run's own list (how the run *ordered* what it retrieved), the **union** view ranks a missing
document below every retrieved one (what it *retrieved* mixed with how it ordered it).

The axiomatic performance of a ranker on an axiom is the fraction of fulfilled instances
(Rennings 2019, section 4.1, Tables 4.5 and 4.6), reported with a 95% Wilson interval, a
breakdown by relevance of the documents involved, McNemar tests between rankers, the delta*
document-length sweep (section 4.3.1, Figs 4.5-4.8) and the correlation with retrieval
effectiveness across rankers (Fig. 4.2).

Each query's distinct documents are scored once per ranker (one batched ``score`` call per
query); every instance is then evaluated with array operations. Rankers that declare
``can_score_unseen_documents = False`` (TREC run files; see :class:`axiomatic.rankers.base.Ranker`)
skip instances on artificial documents; the skip is counted per ranker and axiom and reported.
Any other ranker is asked for every document, and its errors propagate.

Reference: M. Rennings, *Axiomatic Thinking in Neural IR: An Axiomatic Approach to Diagnosing
Deep IR Models* (MSc thesis, TU Delft, 2019); Rennings, Moraes, Hauff, ECIR 2019.
"""

from __future__ import annotations

import itertools
import json
import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from axiomatic._atomic import atomic_path, atomic_write_text
from axiomatic.data.records import Dataset, Document, Qrels, Query
from axiomatic.diagnose import stats
from axiomatic.rankers.base import Ranker, ranker_can_score_unseen
from axiomatic._progress import track

RELATIONS = (">", ">=", "=", "diff>")
GROUP_KEYS = ["axiom", "variant", "spec"]
REQUIRED_COLUMNS = ["query_id", "axiom", "variant", "spec", "doc_a", "doc_b", "relation"]
REL_TYPES = (
    "both relevant",
    "relevant > non-relevant",
    "non-relevant > relevant",
    "both non-relevant",
    "unjudged",
)
"""Relevance-pair types of an instance, seen from ``doc_a`` (the document prescribed higher)."""

SKIP_ARTIFICIAL = "artificial document (ranker scores only the documents of its run)"
SKIP_NO_SCORE = "no score for a document (e.g. not in the ranker's run)"
SKIP_UNRETRIEVED = "order undetermined (documents not in the ranker's run)"
MISSING_POLICIES = ("skip", "below", "both")
VIEW_OWN = "own list"
"""View of ``missing="skip"``: instances whose documents are all in the ranker's own list."""
VIEW_UNION = "union"
"""View of ``missing="below"``: a document missing from a run ranks below all it retrieved."""
VIEW_OF_POLICY = {"skip": VIEW_OWN, "below": VIEW_UNION}
SYMMETRIC_SUFFIX = " [equal]"
"""Appended to the group spec of symmetric instances (relation ``=``): counted separately."""
DEFAULT_TIE_TOLERANCE = 1e-9
"""Relative tie tolerance: ``|s_a - s_b| <= tol * max(1, |s_a|, |s_b|)`` is a tie."""
SWEEP_EXCLUDED = ("LNC2",)
"""Axioms left out of delta* sweeps by default: they do not ask for equal document lengths."""

FULFILLED, VIOLATED, SKIPPED = 1, 0, -1


# ----------------------------------------------------------------------------- oracle
class QrelsOracle:
    """A "ranker" that scores a document by its relevance label (unjudged = 0): the upper bound.

    Artificial documents (e.g. LNC2 duplicates) are not in the qrels: ``sources`` maps them to the
    document they were made from, and ``extra`` gives labels per query
    (``{query_id: {doc_id: label}}``, e.g. those the miner recorded in ``rel_a``), so that they
    inherit a label.
    """

    can_score_unseen_documents = True  # artificial documents inherit their source's label

    def __init__(
        self,
        qrels: Qrels,
        name: str = "oracle",
        sources: Mapping[str, str] | None = None,
        extra: Qrels | None = None,
    ) -> None:
        self.qrels = qrels
        self.name = name
        self.sources = sources
        self.extra = extra

    def score(self, query: Query, documents: Sequence[Document]) -> np.ndarray:
        judged = self.qrels.get(query.query_id, {})
        extra = (self.extra or {}).get(query.query_id, {})
        sources = self.sources or {}
        out = np.empty(len(documents), dtype=np.float64)
        for i, doc in enumerate(documents):
            did = doc.doc_id
            if did in judged:
                out[i] = float(judged[did])
            elif did in extra:
                out[i] = float(extra[did])
            else:
                out[i] = float(judged.get(sources.get(did, did), 0))
        return out


# ----------------------------------------------------------------------------- result
@dataclass
class Diagnosis:
    """Outcome of :func:`diagnose`: one outcome per (instance, ranker), plus what was skipped.

    ``instances`` holds the instance metadata (schema of :mod:`axiomatic.diagnose.mining`);
    ``outcomes`` has one int8 column per ranker, aligned with ``instances``: 1 fulfilled,
    0 violated, -1 skipped. ``skips[ranker][reason]`` counts skipped instances.
    """

    instances: pd.DataFrame
    outcomes: pd.DataFrame
    rankers: list[str]
    skips: dict[str, dict[str, int]] = field(default_factory=dict)
    references: list[str] = field(default_factory=list)
    rel_threshold: int = 1
    dataset_name: str = ""
    confidence: float = 0.95
    metadata: dict[str, Any] = field(default_factory=dict)
    view: str = ""
    """Name of the view of ``outcomes`` (:data:`VIEW_OWN` / :data:`VIEW_UNION`; "" = n/a)."""
    views: dict[str, pd.DataFrame] = field(default_factory=dict)
    """Outcomes of the other views, by name, aligned with ``instances`` (see :meth:`in_view`)."""
    view_skips: dict[str, dict[str, dict[str, int]]] = field(default_factory=dict)

    # ------------------------------------------------------------------ views
    def view_names(self) -> list[str]:
        """Every view held: the primary one first (own list before union)."""
        return ([self.view] if self.view or not self.views else [""]) + list(self.views)

    def in_view(self, name: str) -> Diagnosis:
        """The diagnosis seen in view ``name`` (one of :meth:`view_names`), without other views."""
        if name == self.view:
            return Diagnosis(**{**self.__dict__, "views": {}, "view_skips": {}})
        if name not in self.views:
            raise KeyError(f"no view {name!r} in this diagnosis; it has {self.view_names()}")
        return Diagnosis(
            **{
                **self.__dict__,
                "outcomes": self.views[name],
                "skips": self.view_skips.get(name, {}),
                "view": name,
                "views": {},
                "view_skips": {},
            }
        )

    def _view_outcomes(self, name: str) -> pd.DataFrame:
        if not self.view or name == self.view:
            return self.outcomes
        if name in self.views:
            return self.views[name]
        raise KeyError(f"no view {name!r} in this diagnosis; it has {self.view_names()}")

    # ------------------------------------------------------------------ helpers
    def _keys(self) -> pd.DataFrame:
        keys = self.instances[GROUP_KEYS].astype(str)
        sym = (self.instances["relation"].astype(str) == "=").to_numpy().copy()
        if "symmetric" in self.instances:
            sym |= self.instances["symmetric"].fillna(False).to_numpy(dtype=bool)
        if sym.any():
            keys = keys.copy()
            keys.loc[sym, "spec"] = keys.loc[sym, "spec"] + SYMMETRIC_SUFFIX
        return keys

    def groups(self) -> list[tuple[str, str, str]]:
        """(axiom, variant, spec) of every instance group, in first-seen order."""
        k = self._keys().drop_duplicates()
        return [tuple(r) for r in k.itertuples(index=False, name=None)]

    def _aggregate(self, extra: pd.DataFrame | None = None) -> pd.DataFrame:
        keys = self._keys()
        if extra is not None:
            keys = pd.concat([keys, extra], axis=1)
        cols = list(keys.columns)
        frames = []
        for name in self.rankers:
            out = self.outcomes[name].to_numpy()
            df = keys.assign(_valid=out >= 0, _ok=out == FULFILLED, _skip=out == SKIPPED)
            agg = (
                df.groupby(cols, sort=False, observed=True)
                .agg(n=("_valid", "sum"), fulfilled=("_ok", "sum"), skipped=("_skip", "sum"))
                .reset_index()
            )
            agg.insert(0, "ranker", name)
            frames.append(agg)
        res = pd.concat(frames, ignore_index=True)
        res[["n", "fulfilled", "skipped"]] = res[["n", "fulfilled", "skipped"]].astype(np.int64)
        n = res["n"].to_numpy()
        k = res["fulfilled"].to_numpy()
        with np.errstate(divide="ignore", invalid="ignore"):
            res["fraction"] = np.where(n > 0, k / np.where(n > 0, n, 1), np.nan)
        lo, hi = stats.wilson_interval(k, n, self.confidence)
        res["ci_low"] = np.where(n > 0, lo, np.nan)
        res["ci_high"] = np.where(n > 0, hi, np.nan)
        return res

    # ------------------------------------------------------------------ views
    def table(self) -> pd.DataFrame:
        """Per ranker and axiom group: ``n`` scored instances, ``fulfilled``, ``skipped``,
        ``fraction`` and its Wilson interval ``ci_low``/``ci_high``."""
        return self._aggregate()

    def pivot(self, by: str = "axiom", value: str = "fraction") -> pd.DataFrame:
        """Rankers x axiom groups (``by`` = "axiom", "spec" or "axiom/variant")."""
        t = self.table()
        if by == "axiom/variant":
            t["col"] = t["axiom"] + " (" + t["variant"] + ")"
        elif by in ("axiom", "spec"):
            t["col"] = t[by]
        else:
            raise ValueError(f"by must be 'axiom', 'spec' or 'axiom/variant' (got {by!r})")
        p = t.pivot_table(index="ranker", columns="col", values=value, aggfunc="first", sort=False)
        return p.reindex(index=[r for r in self.rankers if r in p.index])

    def relevance_types(self) -> np.ndarray:
        """Relevance-pair type of every instance (one of :data:`REL_TYPES`), from doc_a's view."""
        inst = self.instances
        t = self.rel_threshold

        def col(name: str) -> np.ndarray:
            if name not in inst:
                return np.full(len(inst), np.nan)
            return pd.to_numeric(inst[name], errors="coerce").to_numpy(
                dtype=np.float64, na_value=np.nan
            )

        ra, rb, rc = col("rel_a"), col("rel_b"), col("rel_c")
        has_c = inst["doc_c"].notna().to_numpy() if "doc_c" in inst else np.zeros(len(inst), bool)
        unjudged = np.isnan(ra) | np.isnan(rb) | (has_c & np.isnan(rc))
        a_rel = np.nan_to_num(ra, nan=-1) >= t
        b_rel = np.nan_to_num(rb, nan=-1) >= t
        out = np.select(
            [unjudged, a_rel & b_rel, a_rel & ~b_rel, ~a_rel & b_rel],
            [REL_TYPES[4], REL_TYPES[0], REL_TYPES[1], REL_TYPES[2]],
            default=REL_TYPES[3],
        )
        return out

    def by_relevance(self) -> pd.DataFrame:
        """:meth:`table` broken down by relevance-pair type (column ``rel_type``)."""
        extra = pd.DataFrame({"rel_type": self.relevance_types()}, index=self.instances.index)
        return self._aggregate(extra)

    def mcnemar(self, exact: bool | None = None, alpha: float = 0.05) -> pd.DataFrame:
        """McNemar test between every two rankers on the instances both scored, per axiom group.

        p-values are Holm-corrected within each axiom group (the family is the set of ranker
        pairs compared on that group's instances). ``exact=None``: exact binomial test when
        fewer than 25 instances are discordant.
        """
        keys = self._keys()
        codes, uniques = pd.factorize(pd.MultiIndex.from_frame(keys), sort=False)
        rows: list[dict[str, Any]] = []
        outs = {r: self.outcomes[r].to_numpy() for r in self.rankers}
        for g, key in enumerate(uniques):
            sel = codes == g
            start = len(rows)
            for i, ra in enumerate(self.rankers):
                for rb in self.rankers[i + 1 :]:
                    oa, ob = outs[ra][sel], outs[rb][sel]
                    both = (oa >= 0) & (ob >= 0)
                    res = stats.mcnemar(oa[both] == FULFILLED, ob[both] == FULFILLED, exact=exact)
                    frac_a = float(np.mean(oa[both] == FULFILLED)) if both.any() else np.nan
                    frac_b = float(np.mean(ob[both] == FULFILLED)) if both.any() else np.nan
                    rows.append(
                        dict(zip(GROUP_KEYS, key, strict=True))
                        | {
                            "ranker_a": ra,
                            "ranker_b": rb,
                            "fraction_a": frac_a,
                            "fraction_b": frac_b,
                        }
                        | res.to_dict()
                    )
            if len(rows) > start:
                adj = stats.holm([r["pvalue"] for r in rows[start:]])
                for r, p in zip(rows[start:], adj, strict=True):
                    r["pvalue_holm"] = float(p)
                    r["significant"] = bool(p < alpha)
        cols = [
            *GROUP_KEYS,
            "ranker_a",
            "ranker_b",
            "fraction_a",
            "fraction_b",
            "n",
            "a_only",
            "b_only",
            "statistic",
            "pvalue",
            "exact",
            "pvalue_holm",
            "significant",
        ]
        return pd.DataFrame(rows, columns=cols)

    def delta_sweep(
        self,
        deltas: Sequence[float] = stats.DELTA_GRID,
        exclude_artificial: bool = True,
        exclude_axioms: Sequence[str] = SWEEP_EXCLUDED,
    ) -> pd.DataFrame:
        """Fulfilment among instances with ``len_diff_rel <= delta*`` for each delta*.

        Rennings (2019) section 4.3.1, Figs 4.5-4.8: columns ``delta``, ``n`` (instances at that
        delta*), ``fulfilled``, ``fraction`` and ``diff_vs_0`` (absolute difference from the
        fraction at the smallest delta*, Figs 4.7/4.8). Instances without a length difference
        and, with ``exclude_artificial``, instances on artificial documents are left out, and so
        are the axioms in ``exclude_axioms`` (LNC2, which does not ask for equal lengths), as in
        the thesis.
        """
        if "len_diff_rel" not in self.instances:
            raise ValueError("instances lack the 'len_diff_rel' column needed for a delta* sweep")
        ldr = pd.to_numeric(self.instances["len_diff_rel"], errors="coerce").to_numpy(
            dtype=np.float64, na_value=np.nan
        )
        if exclude_artificial and "artificial" in self.instances:
            art = self.instances["artificial"].fillna(False).to_numpy(dtype=bool)
            ldr = np.where(art, np.nan, ldr)
        if exclude_axioms:
            ldr = np.where(self.instances["axiom"].isin(list(exclude_axioms)), np.nan, ldr)
        cols = [
            "delta",
            "ranker",
            *GROUP_KEYS,
            "n",
            "fulfilled",
            "skipped",
            "fraction",
            "ci_low",
            "ci_high",
            "diff_vs_0",
        ]
        codes, uniq = pd.factorize(pd.MultiIndex.from_frame(self._keys()), sort=False)
        n_groups = len(uniq)
        rows = []
        # Counts per (delta, group) by bincount: one pass per ranker and delta, no regrouping.
        for name in self.rankers:
            out = self.outcomes[name].to_numpy()
            base: np.ndarray = np.full(n_groups, np.nan)
            for d in sorted(deltas):
                mask = ldr <= float(d) + 1e-9
                if not mask.any():
                    continue
                g = codes[mask]
                o = out[mask]
                total = np.bincount(g, minlength=n_groups)
                n = np.bincount(g[o >= 0], minlength=n_groups)
                k = np.bincount(g[o == FULFILLED], minlength=n_groups)
                with np.errstate(divide="ignore", invalid="ignore"):
                    frac = np.where(n > 0, k / np.maximum(n, 1), np.nan)
                lo, hi = stats.wilson_interval(k, n, self.confidence)
                base = np.where(np.isnan(base), frac, base)
                for gi in np.flatnonzero(total > 0):
                    rows.append(
                        (
                            float(d),
                            name,
                            *uniq[gi],
                            int(n[gi]),
                            int(k[gi]),
                            int(total[gi] - n[gi]),
                            frac[gi],
                            lo[gi] if n[gi] else np.nan,
                            hi[gi] if n[gi] else np.nan,
                            abs(frac[gi] - base[gi]),
                        )
                    )
        if not rows:
            return pd.DataFrame(columns=cols)
        return pd.DataFrame(rows, columns=cols)

    def correlation(
        self,
        effectiveness: pd.DataFrame | Mapping[str, Any],
        measure: str | None = None,
    ) -> pd.DataFrame:
        """Correlation across rankers of axiomatic performance with retrieval effectiveness.

        ``effectiveness``: a DataFrame indexed by ranker name with one column per measure, or a
        mapping ranker -> {measure: value} (or ranker -> value). One row per axiom group plus a
        row ``axiom="mean"`` (mean fulfilment over the groups, as Rennings 2019 section 4.2.1),
        with Pearson, Spearman and Kendall coefficients, p-values and the trend line. Reference
        rankers (the oracle) are left out.
        """
        eff = effectiveness_series(effectiveness, measure)
        piv = self.pivot(by="spec")
        keep = [r for r in piv.index if r in eff.index and r not in self.references]
        piv = piv.loc[keep]
        y = eff.loc[keep].to_numpy(dtype=np.float64)
        rows = []
        spec_to_group = {g[2]: g for g in self.groups()}
        for spec in piv.columns:
            axiom, variant, _ = spec_to_group.get(spec, (spec, "", spec))
            rows.append(
                {"axiom": axiom, "variant": variant, "spec": spec, "measure": eff.name}
                | stats.correlation(piv[spec].to_numpy(dtype=np.float64), y)
            )
        directional = [c for c in piv.columns if not str(c).endswith(SYMMETRIC_SUFFIX)]
        if len(directional) > 1:
            # the mean is over the axioms' directional instances; symmetric groups stay apart
            mean = piv[directional].mean(axis=1).to_numpy(dtype=np.float64)
            rows.append(
                {"axiom": "mean", "variant": "", "spec": "mean", "measure": eff.name}
                | stats.correlation(mean, y)
            )
        return pd.DataFrame(rows)

    @property
    def partial(self) -> str | None:
        """``"partial: k of n shards"`` when diagnosed on an unfinished mining output, else None
        (see :func:`axiomatic.diagnose.mining.read_instances`); every table and report says so."""
        label = self.metadata.get("partial")
        return str(label) if label else None

    def labelled(self, frame: pd.DataFrame) -> pd.DataFrame:
        """``frame`` with a leading ``partial`` column when :attr:`partial` (for written tables)."""
        if not self.partial:
            return frame
        out = frame.copy()
        out.insert(0, "partial", self.partial)
        return out

    def summary(self) -> dict[str, Any]:
        """Counts of the instances diagnosed: per axiom group, queries, skips."""
        inst = self.instances
        per_group = (
            self._keys()
            .value_counts(sort=False)
            .rename("instances")
            .reset_index()
            .to_dict(orient="records")
        )
        return {
            "dataset": self.dataset_name,
            "instances": len(inst),
            "queries": int(inst["query_id"].nunique()) if len(inst) else 0,
            "artificial": int(inst["artificial"].sum()) if "artificial" in inst else 0,
            "groups": per_group,
            "rankers": list(self.rankers),
            "references": list(self.references),
            "skips": self.skips,
            "rel_threshold": self.rel_threshold,
            "partial": self.partial,
        }

    # ------------------------------------------------------------------ I/O
    def to_csv(self, path: str | os.PathLike[str]) -> Path:
        """Write :meth:`table` as CSV (atomically; labelled when :attr:`partial`)."""
        return atomic_write_text(Path(path), self.labelled(self.table()).to_csv(index=False))

    def to_dict(self) -> dict[str, Any]:
        return {
            "summary": self.summary(),
            "table": _records(self.table()),
            "by_relevance": _records(self.by_relevance()),
            "mcnemar": _records(self.mcnemar()),
            "delta_sweep": _records(self.delta_sweep()) if "len_diff_rel" in self.instances else [],
            "metadata": self.metadata,
        }

    def to_json(self, path: str | os.PathLike[str] | None = None) -> str:
        """The summary and all tables as JSON; written atomically to ``path`` when given."""
        text = json.dumps(self.to_dict(), indent=2, default=_json_default)
        if path is not None:
            atomic_write_text(Path(path), text)
        return text

    def save(self, directory: str | os.PathLike[str]) -> Path:
        """Save everything needed to rebuild this object (Parquet + JSON) to ``directory``."""
        d = Path(directory)
        d.mkdir(parents=True, exist_ok=True)
        frame = self.instances.reset_index(drop=True).copy()
        for i, r in enumerate(self.rankers):
            frame[f"__outcome_{i}"] = self.outcomes[r].to_numpy(dtype=np.int8)
        for j, v in enumerate(self.views):
            for i, r in enumerate(self.rankers):
                frame[f"__view{j}_outcome_{i}"] = self.views[v][r].to_numpy(dtype=np.int8)
        with atomic_path(d / "outcomes.parquet") as tmp:
            frame.to_parquet(tmp, index=False)
        meta = {
            "format": 1,
            "rankers": self.rankers,
            "skips": self.skips,
            "references": self.references,
            "rel_threshold": self.rel_threshold,
            "dataset_name": self.dataset_name,
            "confidence": self.confidence,
            "metadata": self.metadata,
            "view": self.view,
            "views": list(self.views),
            "view_skips": self.view_skips,
        }
        atomic_write_text(d / "diagnosis.json", json.dumps(meta, indent=2, default=_json_default))
        return d

    @classmethod
    def load(cls, directory: str | os.PathLike[str]) -> Diagnosis:
        d = Path(directory)
        meta_path, data_path = d / "diagnosis.json", d / "outcomes.parquet"
        if not meta_path.is_file() or not data_path.is_file():
            raise FileNotFoundError(
                f"{d} is not a saved diagnosis (expected diagnosis.json and outcomes.parquet; "
                "create one with Diagnosis.save)"
            )
        meta = json.loads(meta_path.read_text(encoding="utf-8"))
        frame = pd.read_parquet(data_path)
        rankers = list(meta["rankers"])
        out_cols = [f"__outcome_{i}" for i in range(len(rankers))]
        outcomes = pd.DataFrame(
            {r: frame[c].to_numpy(dtype=np.int8) for r, c in zip(rankers, out_cols, strict=True)}
        )
        views: dict[str, pd.DataFrame] = {}
        for j, v in enumerate(meta.get("views", [])):
            cols = [f"__view{j}_outcome_{i}" for i in range(len(rankers))]
            views[str(v)] = pd.DataFrame(
                {r: frame[c].to_numpy(dtype=np.int8) for r, c in zip(rankers, cols, strict=True)}
            )
            out_cols += cols
        return cls(
            view=str(meta.get("view", "")),
            views=views,
            view_skips={
                v: {r: dict(x) for r, x in sk.items()}
                for v, sk in meta.get("view_skips", {}).items()
            },
            instances=frame.drop(columns=out_cols),
            outcomes=outcomes,
            rankers=rankers,
            skips={k: dict(v) for k, v in meta.get("skips", {}).items()},
            references=list(meta.get("references", [])),
            rel_threshold=int(meta.get("rel_threshold", 1)),
            dataset_name=str(meta.get("dataset_name", "")),
            confidence=float(meta.get("confidence", 0.95)),
            metadata=dict(meta.get("metadata", {})),
        )

    def merge(self, other: Diagnosis) -> Diagnosis:
        """Rankers of ``other`` added to this diagnosis (same instances, same order)."""
        if (
            len(other.instances) != len(self.instances)
            or not (
                other.instances[["query_id", "doc_a", "doc_b"]].to_numpy()
                == self.instances[["query_id", "doc_a", "doc_b"]].to_numpy()
            ).all()
        ):
            raise ValueError("merge needs diagnoses of the same instances in the same order")
        clash = set(self.rankers) & set(other.rankers)
        if clash:
            raise ValueError(f"both diagnoses contain rankers {sorted(clash)}; rename one")
        names = [v for v in dict.fromkeys(self.view_names() + other.view_names()) if v]
        if names:
            # a diagnosis without views (every document scored) is the same in every view
            views = [
                (v, pd.concat([self._view_outcomes(v), other._view_outcomes(v)], axis=1))
                for v in names
            ]
            skips = [
                (v, self.view_skips.get(v, self.skips) | other.view_skips.get(v, other.skips))
                for v in names
            ]
            return Diagnosis(
                instances=self.instances,
                outcomes=views[0][1],
                rankers=self.rankers + other.rankers,
                skips=skips[0][1],
                references=self.references + other.references,
                rel_threshold=self.rel_threshold,
                dataset_name=self.dataset_name,
                confidence=self.confidence,
                metadata=self.metadata | other.metadata,
                view=names[0],
                views=dict(views[1:]),
                view_skips=dict(skips[1:]),
            )
        return Diagnosis(
            instances=self.instances,
            outcomes=pd.concat([self.outcomes, other.outcomes], axis=1),
            rankers=self.rankers + other.rankers,
            skips=self.skips | other.skips,
            references=self.references + other.references,
            rel_threshold=self.rel_threshold,
            dataset_name=self.dataset_name,
            confidence=self.confidence,
            metadata=self.metadata | other.metadata,
        )


# ----------------------------------------------------------------------------- engine
def evaluate_relations(
    relation: np.ndarray,
    sa: np.ndarray,
    sb: np.ndarray,
    sc: np.ndarray | None = None,
    tie_tolerance: float = DEFAULT_TIE_TOLERANCE,
) -> np.ndarray:
    """Outcome (1 fulfilled, 0 violated, -1 skipped when a score is NaN) of every instance.

    ``relation[i]`` is one of :data:`RELATIONS`. Two scores tie when
    ``|s_a - s_b| <= tie_tolerance * max(1, |s_a|, |s_b|)`` (relative for scores above 1,
    absolute below; triples scale by the largest of their three scores); ``tie_tolerance=0`` is
    exact comparison.
    ``-inf`` ranks below every finite score; a pair whose scores are both ``-inf`` and a triple
    with a non-finite score are skipped (no order can be read from them).
    """
    relation = np.asarray(relation, dtype=object)
    sa = np.asarray(sa, dtype=np.float64)
    sb = np.asarray(sb, dtype=np.float64)
    sc = np.full_like(sa, np.nan) if sc is None else np.asarray(sc, dtype=np.float64)
    gt = relation == ">"
    ge = relation == ">="
    eq = relation == "="
    df = relation == "diff>"
    bad = ~(gt | ge | eq | df)
    if bad.any():
        seen = sorted({str(r) for r in relation[bad]})
        raise ValueError(f"unknown instance relation(s) {seen}; expected one of {list(RELATIONS)}")
    tie = float(tie_tolerance)
    if not tie >= 0:
        raise ValueError(f"tie_tolerance must be >= 0 (got {tie_tolerance!r})")

    def mag(x: np.ndarray) -> np.ndarray:
        return np.where(np.isfinite(x), np.abs(x), 0.0)

    scale = np.maximum(np.maximum(1.0, mag(sa)), mag(sb))
    tol = tie * scale
    tol3 = tie * np.maximum(scale, mag(sc))
    with np.errstate(invalid="ignore"):
        d_ab = sa - sb
        ok = np.where(gt, d_ab > tol, False)
        ok = np.where(ge, d_ab >= -tol, ok)
        ok = np.where(eq, np.abs(d_ab) <= tol, ok)
        ok = np.where(df, (sb - sa) - (sc - sb) > tol3, ok)
    skipped = np.isnan(sa) | np.isnan(sb) | (df & np.isnan(sc))
    with np.errstate(invalid="ignore"):
        # Two documents both scored -inf (e.g. both unretrieved by a run) have no order;
        # a triple needs finite score differences.
        skipped |= (gt | ge | eq) & np.isnan(d_ab)
        skipped |= df & ~(np.isfinite(sa) & np.isfinite(sb) & np.isfinite(sc))
    out = np.where(ok, FULFILLED, VIOLATED).astype(np.int8)
    out[skipped] = SKIPPED
    return out


def _checked(ranker: Ranker, query: Query, docs: Sequence[Document]) -> np.ndarray:
    s = np.asarray(ranker.score(query, docs), dtype=np.float64)
    if s.shape != (len(docs),):
        raise ValueError(
            f"ranker {ranker.name!r} returned {s.shape} scores for {len(docs)} documents; "
            "Ranker.score must return one float per document"
        )
    return s


def _score_query(
    ranker: Ranker,
    query: Query,
    docs: list[Document],
    artificial: np.ndarray,
    can_score_unseen: bool,
) -> tuple[np.ndarray, bool]:
    """Scores of ``docs`` (NaN where not scorable) and whether artificial docs were left out.

    The ranker's declaration decides (:func:`axiomatic.rankers.base.ranker_can_score_unseen`),
    never its exceptions: a ranker that declares it can score unseen documents gets every
    document and whatever it raises propagates (a model failing on long LNC2 duplicates is an
    error, not a skip). A ranker that declares it cannot (a run file) is not asked for
    artificial documents, and returns NaN for the real documents it does not have.
    """
    if can_score_unseen:
        return _checked(ranker, query, docs), False
    scores = np.full(len(docs), np.nan)
    idx = np.flatnonzero(~artificial)
    if idx.size:
        scores[idx] = _checked(ranker, query, [docs[i] for i in idx])
    return scores, bool(artificial.any())


def _artificial_inputs(
    artificial_docs: Mapping[str, Document] | pd.DataFrame | None,
) -> tuple[dict[str, Document], dict[str, str]]:
    if artificial_docs is None:
        return {}, {}
    if isinstance(artificial_docs, pd.DataFrame):
        for c in ("doc_id", "text"):
            if c not in artificial_docs:
                raise ValueError(
                    f"artificial_docs DataFrame lacks column {c!r} (expected doc_id, text, "
                    "source_doc_id as in artificial_docs.parquet)"
                )
        docs = {
            str(d): Document(str(d), str(t))
            for d, t in zip(artificial_docs["doc_id"], artificial_docs["text"], strict=True)
        }
        sources = {}
        if "source_doc_id" in artificial_docs:
            sources = {
                str(d): str(s)
                for d, s in zip(
                    artificial_docs["doc_id"], artificial_docs["source_doc_id"], strict=True
                )
                if s is not None and not (isinstance(s, float) and np.isnan(s))
            }
        return docs, sources
    return dict(artificial_docs), {}


def _artificial_labels(instances: pd.DataFrame, art_docs: Mapping[str, Document]) -> Qrels:
    """Labels the miner recorded for artificial documents (``rel_*`` of their instance rows)."""
    extra: Qrels = {}
    if not art_docs:
        return extra
    for dcol, rcol in (("doc_a", "rel_a"), ("doc_b", "rel_b"), ("doc_c", "rel_c")):
        if dcol not in instances or rcol not in instances:
            continue
        docs = instances[dcol]
        rels = pd.to_numeric(instances[rcol], errors="coerce")
        mask = (
            np.fromiter((d in art_docs for d in docs), dtype=bool, count=len(docs))
            & rels.notna().to_numpy()
        )
        for q, d, r in zip(instances["query_id"][mask], docs[mask], rels[mask], strict=True):
            extra.setdefault(str(q), {})[str(d)] = int(r)
    return extra


def _validate(instances: pd.DataFrame) -> None:
    missing = [c for c in REQUIRED_COLUMNS if c not in instances.columns]
    if missing:
        raise ValueError(
            f"instance table lacks columns {missing}; expected the schema of "
            "axiomatic.diagnose.mining (query_id, axiom, variant, spec, doc_a, doc_b, doc_c, "
            "relation, len_*, rel_*, split, artificial); read it with mining.read_instances"
        )


def diagnose(
    instances: pd.DataFrame,
    rankers: Ranker | Sequence[Ranker] | Mapping[str, Ranker],
    dataset: Dataset,
    artificial_docs: Mapping[str, Document] | pd.DataFrame | None = None,
    *,
    oracle: bool = False,
    artificial_sources: Mapping[str, str] | None = None,
    rel_threshold: int | None = None,
    tie_tolerance: float = DEFAULT_TIE_TOLERANCE,
    confidence: float = 0.95,
    missing: str = "both",
) -> Diagnosis:
    """Diagnose ``rankers`` on diagnostic ``instances`` mined from ``dataset``.

    Parameters
    ----------
    instances: instance table (schema of :mod:`axiomatic.diagnose.mining`).
    rankers: one ranker, a sequence (named by ``.name``) or a mapping name -> ranker.
    dataset: gives the query texts and the documents (``dataset.documents``).
    artificial_docs: documents that are not in the dataset (LNC2 duplicates): a mapping
        ``doc_id -> Document`` or the ``artificial_docs.parquet`` table (then its
        ``source_doc_id`` column lets the oracle label them).
    oracle: add :class:`QrelsOracle` (named ``"oracle"``) as a reference ranker.
    rel_threshold: minimum relevant grade for the relevance breakdown (default:
        ``dataset.rel_threshold``).
    tie_tolerance: relative tie tolerance: ``|s_a - s_b| <= tie_tolerance * max(1, |s_a|,
        |s_b|)`` is a tie (default :data:`DEFAULT_TIE_TOLERANCE` = 1e-9, which absorbs
        floating-point noise only; 0 compares exactly).
    missing: a real document a ranker cannot score (absent from a run file): ``"skip"`` skips
        its instances (the *own-list* view: only how the run ordered what it retrieved);
        ``"below"`` ranks it below every scored document (the *union* view: a run ranks what it
        did not retrieve lower, so retrieval and ordering are mixed), so only pairs of two
        unscored documents and triples with one are skipped; ``"both"`` (default) gives the
        own-list view as ``outcomes`` and the union view in ``views["union"]`` when some ranker
        missed a document (otherwise both views are the same and only one is kept).
        Artificial documents are always skipped for run files.

    Instances flagged ``symmetric`` (or with relation ``=``) expect equal scores: only a tie
    fulfils them, and they are grouped apart (:data:`SYMMETRIC_SUFFIX`).

    Each query's distinct documents are scored once per ranker; all instances are then
    evaluated with array operations (:func:`evaluate_relations`).
    """
    _validate(instances)
    if missing not in MISSING_POLICIES:
        raise ValueError(f"missing must be one of {MISSING_POLICIES} (got {missing!r})")
    if isinstance(rankers, Mapping):
        named = [(str(k), v) for k, v in rankers.items()]
    elif isinstance(rankers, Sequence):
        named = [(r.name, r) for r in rankers]
    else:
        named = [(rankers.name, rankers)]
    names = [n for n, _ in named]
    if len(set(names)) != len(names):
        dup = sorted({n for n in names if names.count(n) > 1})
        raise ValueError(
            f"ranker names must be unique (duplicates: {dup}); pass a mapping "
            "{name: ranker} to name them"
        )
    art_docs, sources = _artificial_inputs(artificial_docs)
    if artificial_sources:
        sources.update(artificial_sources)
    references: list[str] = []
    if oracle:
        if not dataset.qrels:
            raise ValueError(
                f"oracle=True needs relevance judgments, dataset {dataset.name!r} has none"
            )
        if "oracle" in names:
            raise ValueError("a ranker is already named 'oracle'; rename it or pass oracle=False")
        named.append(
            (
                "oracle",
                QrelsOracle(
                    dataset.qrels,
                    name="oracle",
                    sources=sources,
                    extra=_artificial_labels(instances, art_docs),
                ),
            )
        )
        references.append("oracle")

    inst = instances.reset_index(drop=True)
    n = len(inst)
    qid = inst["query_id"].astype(str).to_numpy()
    cols = [inst["doc_a"], inst["doc_b"]]
    has_c = np.zeros(n, dtype=bool)
    if "doc_c" in inst:
        has_c = inst["doc_c"].notna().to_numpy()
        cols.append(inst["doc_c"])
    # One slot per distinct (query, document): scored once per ranker.
    q_all = np.concatenate([qid] * len(cols))
    d_all = np.concatenate([c.astype(object).to_numpy() for c in cols])
    present = np.concatenate(
        [np.ones(n, bool), np.ones(n, bool)] + ([has_c] if len(cols) > 2 else [])
    )
    codes = np.full(q_all.size, -1, dtype=np.int64)
    mi = pd.MultiIndex.from_arrays([q_all[present], d_all[present].astype(str)])
    codes[present], uniq = pd.factorize(mi, sort=False)
    ia, ib = codes[:n], codes[n : 2 * n]
    ic = codes[2 * n : 3 * n] if len(cols) > 2 else np.full(n, -1)
    slot_q = uniq.get_level_values(0).to_numpy()
    slot_d = uniq.get_level_values(1).to_numpy()
    slot_art = np.fromiter((d in art_docs for d in slot_d), dtype=bool, count=slot_d.size)

    # Resolve queries and documents once.
    order = np.argsort(slot_q, kind="stable")
    bounds = np.flatnonzero(np.r_[True, slot_q[order][1:] != slot_q[order][:-1], True])
    per_query: list[tuple[Query, np.ndarray, list[Document]]] = []
    for s, e in itertools.pairwise(bounds):
        slots = order[s:e]
        q = str(slot_q[slots[0]])
        if q not in dataset.queries:
            raise KeyError(
                f"instance query {q!r} is not in dataset {dataset.name!r}; diagnose instances "
                "with the dataset they were mined from"
            )
        docs = []
        for d in slot_d[slots]:
            doc = art_docs.get(d)
            if doc is None:
                try:
                    doc = dataset.documents[d]
                except KeyError:
                    raise KeyError(
                        f"document {d!r} of query {q!r} is neither in dataset {dataset.name!r} nor "
                        "among the artificial documents; pass artificial_docs from "
                        "mining.read_instances"
                    ) from None
            docs.append(doc)
        per_query.append((dataset.queries[q], slots, docs))

    relation = inst["relation"].astype(str).to_numpy()
    if "symmetric" in inst:
        # preconditions hold both ways: S(a) >= S(b) and S(b) >= S(a), i.e. a tie
        sym = inst["symmetric"].fillna(False).to_numpy(dtype=bool)
        relation = np.where(sym & (relation == ">="), "=", relation).astype(object)
    policies = ["skip", "below"] if missing == "both" else [missing]
    by_policy: dict[str, dict[str, np.ndarray]] = {p: {} for p in policies}
    skips_by: dict[str, dict[str, dict[str, int]]] = {p: {} for p in policies}
    any_missing = False
    for name, ranker in named:
        scores = np.full(slot_d.size, np.nan)
        unseen_ok = ranker_can_score_unseen(ranker)
        dropped_art = False
        for query, slots, docs in track(
            per_query, description=f"diagnosing {name}", total=len(per_query)
        ):
            q_scores, dropped = _score_query(ranker, query, docs, slot_art[slots], unseen_ok)
            scores[slots] = q_scores
            dropped_art |= dropped
        unscored = np.isnan(scores) & ~slot_art
        any_missing |= bool(unscored.any())
        inst_art = slot_art[ia] | slot_art[ib] | ((ic >= 0) & slot_art[np.maximum(ic, 0)])
        for policy in policies:
            s_pol = np.where(unscored, -np.inf, scores) if policy == "below" else scores
            sc = np.where(ic >= 0, s_pol[np.maximum(ic, 0)], np.nan)
            out = evaluate_relations(relation, s_pol[ia], s_pol[ib], sc, tie_tolerance)
            skipped = out == SKIPPED
            reasons: dict[str, int] = {}
            if dropped_art and (skipped & inst_art).any():
                reasons[SKIP_ARTIFICIAL] = int((skipped & inst_art).sum())
            other = skipped & ~(inst_art if dropped_art else np.zeros(n, bool))
            if other.any():
                why = SKIP_UNRETRIEVED if policy == "below" else SKIP_NO_SCORE
                reasons[why] = int(other.sum())
            by_policy[policy][name] = out
            skips_by[policy][name] = reasons

    if missing == "both" and not any_missing:
        policies = ["skip"]  # every ranker scored every document: the two views coincide
    main = policies[0]
    rt = dataset.rel_threshold if rel_threshold is None else int(rel_threshold)
    return Diagnosis(
        instances=inst,
        outcomes=pd.DataFrame(by_policy[main]),
        rankers=[n for n, _ in named],
        skips=skips_by[main],
        references=references,
        rel_threshold=rt,
        dataset_name=dataset.name,
        confidence=confidence,
        metadata={"tie_tolerance": tie_tolerance, "missing": missing}
        # read_instances(allow_partial=True) labels an unfinished mining output
        | ({"partial": str(instances.attrs["partial"])} if instances.attrs.get("partial") else {}),
        view=VIEW_OF_POLICY[main] if any_missing else "",
        views={VIEW_OF_POLICY[p]: pd.DataFrame(by_policy[p]) for p in policies[1:]},
        view_skips={VIEW_OF_POLICY[p]: skips_by[p] for p in policies[1:]},
    )


# ----------------------------------------------------------------------------- utils
def effectiveness_series(
    effectiveness: pd.DataFrame | Mapping[str, Any], measure: str | None
) -> pd.Series:
    """One effectiveness value per ranker (a Series named after the measure)."""
    if isinstance(effectiveness, pd.DataFrame):
        frame = effectiveness
    else:
        first = next(iter(effectiveness.values()), None)
        if isinstance(first, Mapping):
            frame = pd.DataFrame.from_dict(effectiveness, orient="index")
        else:
            return pd.Series(effectiveness, dtype=np.float64, name=measure or "value")
    if frame.empty:
        return pd.Series(dtype=np.float64, name=measure or "value")
    if measure is None:
        measure = str(frame.columns[0])
    if measure not in frame.columns:
        import difflib

        close = difflib.get_close_matches(measure, [str(c) for c in frame.columns], n=3)
        hint = f" Did you mean: {', '.join(close)}?" if close else ""
        raise KeyError(
            f"measure {measure!r} is not in the effectiveness table "
            f"(columns: {list(frame.columns)}).{hint}"
        )
    return frame[measure].astype(np.float64).rename(measure)


def _records(df: pd.DataFrame) -> list[dict[str, Any]]:
    return json.loads(df.to_json(orient="records"))


def _json_default(o: Any) -> Any:
    if isinstance(o, np.integer):
        return int(o)
    if isinstance(o, np.floating):
        return None if np.isnan(o) else float(o)
    if isinstance(o, np.ndarray):
        return o.tolist()
    if isinstance(o, Path):
        return str(o)
    raise TypeError(f"not JSON serializable: {type(o).__name__}")


def instance_frame(rows: Iterable[Mapping[str, Any]]) -> pd.DataFrame:
    """An instance table from dict rows, with the schema's dtypes (handy for tests and tools)."""
    df = pd.DataFrame(list(rows))
    for c in ("doc_c",):
        if c not in df:
            df[c] = None
    for c in ("rel_a", "rel_b", "rel_c"):
        if c in df:
            df[c] = df[c].astype("Int64")
    return df
