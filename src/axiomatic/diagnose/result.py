"""The result of a diagnosis (:class:`Diagnosis`): outcomes per instance and ranker, views,
aggregate tables, and its I/O (CSV/JSON, save/load, merge)."""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from axiomatic._atomic import INCOMPLETE_MARKER, atomic_path, atomic_write_text, incomplete_note
from axiomatic.diagnose import analyses, effects, stats
from axiomatic.diagnose.probes import PROBE_PREFIX
from axiomatic.diagnose.relations import (
    FULFILLED,
    GROUP_KEYS,
    SKIPPED,
    SWEEP_EXCLUDED,
    SYMMETRIC_SUFFIX,
)


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
    margins: pd.DataFrame | None = None
    """With a band (``diagnose(..., band=...)``): the signed score margin of every instance and
    ranker in the direction the axiom expects (NaN where skipped), aligned with ``instances``;
    the no-difference band of each ranker is ``metadata["band"]``."""
    view_margins: dict[str, pd.DataFrame] = field(default_factory=dict)
    """Margins of the other views, by name (as :attr:`views`)."""

    # ------------------------------------------------------------------ views
    def view_names(self) -> list[str]:
        """Every view held: the primary one first (own list before union)."""
        return ([self.view] if self.view or not self.views else [""]) + list(self.views)

    def in_view(self, name: str) -> Diagnosis:
        """The diagnosis seen in view ``name`` (one of :meth:`view_names`), without other views."""
        if name == self.view:
            return Diagnosis(**{**self.__dict__, "views": {}, "view_skips": {}, "view_margins": {}})
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
                "margins": self.view_margins.get(name) if self.margins is not None else None,
                "view_margins": {},
            }
        )

    def _view_outcomes(self, name: str) -> pd.DataFrame:
        if not self.view or name == self.view:
            return self.outcomes
        if name in self.views:
            return self.views[name]
        raise KeyError(f"no view {name!r} in this diagnosis; it has {self.view_names()}")

    def _view_margins(self, name: str) -> pd.DataFrame:
        assert self.margins is not None
        if not self.view or not name or name == self.view:
            return self.margins
        return self.view_margins[name]

    # ------------------------------------------------------------------ helpers
    def group_keys(self) -> pd.DataFrame:
        """The group of every instance, one row per instance: ``axiom``, ``variant`` and
        ``spec`` (as strings), the spec of a symmetric instance (relation ``=``, or flagged
        ``symmetric``) suffixed so that it forms a group of its own."""
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
        k = self.group_keys().drop_duplicates()
        return [tuple(r) for r in k.itertuples(index=False, name=None)]

    def _aggregate(self, extra: pd.DataFrame | None = None) -> pd.DataFrame:
        keys = self.group_keys()
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
        """Per ranker and axiom group: ``relation`` (what the instances expect: the axiom's
        ``>`` order, or ``=`` for the symmetric instances whose preconditions hold both ways,
        which expect equal scores and form their own row, ``spec`` marked ``[equal]``), ``n``
        scored instances, ``fulfilled``, ``skipped``, ``fraction`` and its Wilson interval
        ``ci_low``/``ci_high``."""
        res = self._aggregate()
        res.insert(res.columns.get_loc("spec") + 1, "relation", self._group_relations(res))
        if self.band is not None:
            res = self._with_effects(res)
        res["sample"] = self.sample
        return res

    @property
    def band(self) -> dict[str, float] | None:
        """The no-difference band of each ranker (``diagnose(..., band=...)``), else None."""
        if self.margins is None or "band" not in self.metadata:
            return None
        return {str(k): float(v) for k, v in dict(self.metadata["band"]).items()}

    @property
    def band_test(self) -> str:
        """The test of the effect (``diagnose(..., band_test=...)``): ``sign`` or ``t``."""
        return str(self.metadata.get("band_test", "sign"))

    @property
    def sample(self) -> str:
        """Hash of the probe sample (:func:`axiomatic.diagnose.effects.sample_hash`, over the
        instances and the texts scored): the same for two diagnoses of the same instances on
        the same texts, whatever their order (ids only for a diagnosis built without texts)."""
        value = self.metadata.get("sample")
        if isinstance(value, str) and value:
            return value
        return effects.sample_hash(self.instances)

    @property
    def sample_sha256(self) -> str | None:
        """:attr:`sample` with all 64 hex digits (None for a diagnosis saved before the hash
        covered the texts, whose full digest was not kept)."""
        value = self.metadata.get("sample_sha256")
        if isinstance(value, str) and value:
            return value
        full = effects.sample_hash(self.instances, full=True)
        return full if full.startswith(self.sample) else None

    def _with_effects(self, table: pd.DataFrame) -> pd.DataFrame:
        """``table`` with the band columns (:data:`~axiomatic.diagnose.effects.BAND_COLUMNS`)
        after the fraction's interval: counts against each ranker's band, the effect
        (pos - neg) / n with its interval and the p-value of the band's test (``band_test``:
        the two-sided sign test, or ABNIRML's t-test of the margins; NaN effect and test for
        symmetric axiom groups, which expect no direction; an invariance probe's pair keeps it)."""
        band = self.band or {}
        test = self.band_test
        assert self.margins is not None
        keys = self.group_keys()
        codes, uniques = pd.factorize(pd.MultiIndex.from_frame(keys), sort=False)
        index = {tuple(k): g for g, k in enumerate(uniques)}
        rows = []
        for r in table.itertuples(index=False):
            rec = r._asdict()
            delta = band.get(rec["ranker"], float("nan"))
            g = index[(rec["axiom"], rec["variant"], rec["spec"])]
            m = self.margins[rec["ranker"]].to_numpy(dtype=np.float64)[codes == g]
            pos, neg, neutral = effects.band_counts(m, delta)
            n = pos + neg + neutral
            eff, lo, hi = effects.effect_interval(pos, neg, n, self.confidence)
            p = effects.effect_test(test, m, pos, neg) if n else float("nan")
            if rec["relation"] == "=" and not str(rec["axiom"]).startswith(PROBE_PREFIX):
                # a symmetric axiom instance has no direction; a probe's pair (original,
                # manipulated) has one even when a tie is what it looks for
                eff = lo = hi = p = float("nan")
            rows.append((delta, pos, neg, neutral, eff, lo, hi, test, p))
        extra = pd.DataFrame(rows, columns=list(effects.BAND_COLUMNS), index=table.index)
        for c in ("pos", "neg", "neutral"):
            extra[c] = extra[c].astype(np.int64)
        at = table.columns.get_loc("ci_high") + 1
        return pd.concat([table.iloc[:, :at], extra, table.iloc[:, at:]], axis=1)

    def _group_relations(self, table: pd.DataFrame) -> list[str]:
        """The relation of each row's group: ``=`` for a symmetric group, else the relation
        its instances carry (``>`` for most axioms)."""
        inst = self.instances
        firsts = inst[["spec", "relation"]].drop_duplicates()
        firsts = firsts[firsts["relation"].astype(str) != "="]
        by_spec = dict(zip(firsts["spec"].astype(str), firsts["relation"].astype(str), strict=True))
        return [
            "=" if spec.endswith(SYMMETRIC_SUFFIX) else by_spec.get(spec, ">")
            for spec in table["spec"].astype(str)
        ]

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
        return analyses.relevance_types(self)

    def by_relevance(self) -> pd.DataFrame:
        """:meth:`table` broken down by relevance-pair type (column ``rel_type``)."""
        extra = pd.DataFrame({"rel_type": self.relevance_types()}, index=self.instances.index)
        return self._sampled(self._aggregate(extra))

    def _sampled(self, frame: pd.DataFrame) -> pd.DataFrame:
        """``frame`` with the probe sample's hash as its last column ``sample``."""
        frame = frame.copy()
        frame["sample"] = self.sample
        return frame

    def mcnemar(self, exact: bool | None = None, alpha: float = 0.05) -> pd.DataFrame:
        """McNemar test between every two rankers on the instances both scored, per axiom group.

        p-values are Holm-corrected within each axiom group (the family is the set of ranker
        pairs compared on that group's instances). ``exact=None``: exact binomial test when
        fewer than 25 instances are discordant.
        """
        return self._sampled(analyses.mcnemar(self, exact, alpha))

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
        return self._sampled(analyses.delta_sweep(self, deltas, exclude_artificial, exclude_axioms))

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
        return analyses.correlation(self, effectiveness, measure)

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
            self.group_keys()
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
            "sample": self.sample,
            "sample_sha256": self.sample_sha256,
            "band": self.band,
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
        text = json.dumps(self.to_dict(), indent=2, default=json_default)
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
        if self.margins is not None:
            for i, r in enumerate(self.rankers):
                frame[f"__margin_{i}"] = self.margins[r].to_numpy(dtype=np.float64)
            for j, v in enumerate(self.views):
                for i, r in enumerate(self.rankers):
                    frame[f"__view{j}_margin_{i}"] = self.view_margins[v][r].to_numpy(np.float64)
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
        atomic_write_text(d / "diagnosis.json", json.dumps(meta, indent=2, default=json_default))
        return d

    @classmethod
    def load(cls, directory: str | os.PathLike[str]) -> Diagnosis:
        d = Path(directory)
        for folder in (d, d.parent):  # a report's diagnosis_state/ is in the report folder
            if incomplete_note(folder) is not None:
                raise ValueError(
                    f"{d}: {folder / INCOMPLETE_MARKER} marks the folder incomplete (a report "
                    "was being written into it when the writer stopped, so its files may mix "
                    "two runs); write the report again into it (that repairs it), or delete it"
                )
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
        margins = None
        view_margins: dict[str, pd.DataFrame] = {}
        if "__margin_0" in frame:
            cols = [f"__margin_{i}" for i in range(len(rankers))]
            margins = pd.DataFrame(
                {r: frame[c].to_numpy(np.float64) for r, c in zip(rankers, cols, strict=True)}
            )
            out_cols += cols
            for j, v in enumerate(meta.get("views", [])):
                cols = [f"__view{j}_margin_{i}" for i in range(len(rankers))]
                view_margins[str(v)] = pd.DataFrame(
                    {r: frame[c].to_numpy(np.float64) for r, c in zip(rankers, cols, strict=True)}
                )
                out_cols += cols
        return cls(
            margins=margins,
            view_margins=view_margins,
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
        metadata = self.metadata | other.metadata
        banded = self.band is not None and other.band is not None
        if banded:  # both with a band: each ranker keeps its own
            if self.band_test != other.band_test:
                raise ValueError(
                    f"the diagnoses test their effects differently ({self.band_test!r} and "
                    f"{other.band_test!r}); diagnose both with the same band_test"
                )
            metadata["band"] = (self.band or {}) | (other.band or {})
            notes = dict.fromkeys(
                str(d.metadata.get("band_calibration", "")) for d in (self, other)
            )
            metadata["band_calibration"] = "; ".join(n for n in notes if n)
        else:  # effects need every ranker's margins
            metadata.pop("band", None)
            metadata.pop("band_calibration", None)
            metadata.pop("band_test", None)

        def margins(v: str) -> pd.DataFrame | None:
            if not banded:
                return None
            return pd.concat([self._view_margins(v), other._view_margins(v)], axis=1)

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
                metadata=metadata,
                view=names[0],
                views=dict(views[1:]),
                view_skips=dict(skips[1:]),
                margins=margins(names[0]),
                view_margins={v: m for v in names[1:] if (m := margins(v)) is not None},
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
            metadata=metadata,
            margins=margins(""),
        )


def _records(df: pd.DataFrame) -> list[dict[str, Any]]:
    return json.loads(df.to_json(orient="records"))


def json_default(o: Any) -> Any:
    """``json.dumps(..., default=json_default)``: numpy scalars and arrays, paths (NaN as null)."""
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
