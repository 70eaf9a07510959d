"""PyTerrier integration: axiomatic rankers, axiomatic re-ranking and diagnosis in pipelines.

Needs the optional extra (``pip install 'axiomatic-ir[pyterrier]'``, PyTerrier 1.x). Only the
transformer API is used (``pt.Transformer``, ``>>``, ``%``, ``pt.Experiment``): no Java, no
Terrier index, nothing downloaded. Frames use PyTerrier's column names: ``qid``, ``query``,
``docno``, ``text``, ``score``, ``rank`` (qrels: ``label``).

* :class:`AxiomaticRanker`: any axiomatic ranker spec (``bm25``, ``ql:mu=1000``, ``rm3``,
  ``model:DIR``, ``run:FILE`` ...) as a re-ranker: scores the ``(query, text)`` rows of a result
  frame;
* :class:`AxiomaticReRanker`: re-ranking of the top ``depth`` by aggregated axiom preferences
  (KwikSort; majority, weighted or learned aggregation: :mod:`axiomatic.diagnose.rerank`);
* :func:`diagnose_frames`: the diagnosis ``axiomatic diagnose`` prints and writes, for the result
  frames (or transformers) of several systems;
* :func:`topics_frame`, :func:`qrels_frame`, :func:`results_frame`: axiomatic datasets (catalog
  names, descriptors, rank_llm JSON) as PyTerrier frames; :func:`frame_to_run` the other way.

A dataset given as ``dataset=`` supplies what a result frame lacks: document texts (when the
frame has no ``text`` column) and the collection statistics of the lexical rankers and axioms
(idf, average length). Without it they come from the documents in the frame.

The operators keep PyTerrier's meanings: ``bm25 >> AxiomaticReRanker()`` re-ranks BM25's
results, ``% 10`` cuts to the top 10 (see ``pyterrier/_ops.py``).
"""

from __future__ import annotations

import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from axiomatic.data.records import Dataset, Document, Query, Run

PYTERRIER_EXTRA = "pip install 'axiomatic-ir[pyterrier]'"


def _require_pyterrier() -> Any:
    try:
        import pyterrier as pt
    except ImportError as exc:
        raise ImportError(
            f"axiomatic.integrations.pyterrier needs PyTerrier 1.x, which is not installed "
            f"({exc}). Install the extra: {PYTERRIER_EXTRA}"
        ) from None
    return pt


pt = _require_pyterrier()

__all__ = [
    "PYTERRIER_EXTRA",
    "AxiomaticRanker",
    "AxiomaticReRanker",
    "FrameDiagnosis",
    "diagnose_frames",
    "frame_to_run",
    "measures",
    "qrels_frame",
    "results_frame",
    "topics_frame",
]

DEFAULT_AXIOMS = "TFC1,TFC2,M-TDC,LNC2"


def measures(text: str) -> list[Any]:
    """ir_measures measures from an ir_measures string (``"nDCG@10 RR@10 AP"``) for
    ``pt.Experiment``, which reads plain strings as trec_eval names (``"ndcg_cut_10"``); unknown
    names fail with close matches, as everywhere in axiomatic."""
    from axiomatic.evaluate.metrics import parse_measures

    return list(parse_measures(text))


# ---------------------------------------------------------------------------------- datasets
def _as_dataset(dataset: Dataset | str | Path | None) -> Dataset | None:
    if dataset is None or isinstance(dataset, Dataset):
        return dataset
    from axiomatic.data.catalog import load_dataset

    return load_dataset(dataset)


def _need_dataset(dataset: Dataset | str | Path) -> Dataset:
    ds = _as_dataset(dataset)
    if ds is None:
        raise TypeError("a dataset is needed: a Dataset, a catalog name or a descriptor path")
    return ds


def topics_frame(dataset: Dataset | str | Path) -> pd.DataFrame:
    """The dataset's queries as a PyTerrier topics frame (``qid``, ``query``)."""
    ds = _need_dataset(dataset)
    return pd.DataFrame(
        {
            "qid": [q.query_id for q in ds.queries.values()],
            "query": [q.text for q in ds.queries.values()],
        }
    )


def qrels_frame(dataset: Dataset | str | Path) -> pd.DataFrame:
    """The dataset's qrels as a PyTerrier qrels frame (``qid``, ``docno``, ``label``)."""
    ds = _need_dataset(dataset)
    if not ds.qrels:
        raise ValueError(f"dataset {ds.name!r} has no qrels (give it a qrels file: qrels=...)")
    rows = [(q, d, int(g)) for q, v in ds.qrels.items() for d, g in v.items()]
    return pd.DataFrame(rows, columns=["qid", "docno", "label"])


def results_frame(
    dataset: Dataset | str | Path,
    run: Run | None = None,
    *,
    depth: int | None = None,
    text: bool = True,
) -> pd.DataFrame:
    """A result frame (``qid``, ``query``, ``docno``, [``text``], ``score``, ``rank``) of ``run``
    or, without it, of the dataset's candidate lists (scores descend with the list order).

    It is the first stage of a re-ranking pipeline that needs no Terrier index (no Java):
    ``pt.Experiment([results_frame(ds) >> ranker, ...], ...)`` or a frame passed directly.
    """
    ds = _need_dataset(dataset)
    rows = []
    for qid, q in ds.queries.items():
        if run is not None:
            ranked = sorted(run.get(qid, {}).items(), key=lambda x: (-x[1], x[0]))
        else:
            if ds.candidates is None:
                raise ValueError(
                    f"dataset {ds.name!r} has no candidate lists (a full-retrieval collection); "
                    "give a run=, or retrieve first"
                )
            ids = ds.candidates.get(qid, [])
            ranked = [(d, float(len(ids) - r)) for r, d in enumerate(ids)]
        if depth is not None:
            ranked = ranked[:depth]
        for r, (d, s) in enumerate(ranked):
            row = {"qid": qid, "query": q.text, "docno": d, "score": float(s), "rank": r}
            if text:
                doc = ds.documents.get(d)
                row["text"] = doc.text if doc is not None else ""
            rows.append(row)
    cols = ["qid", "query", "docno", *(["text"] if text else []), "score", "rank"]
    return pd.DataFrame(rows, columns=cols)


def frame_to_run(frame: pd.DataFrame) -> Run:
    """``{qid: {docno: score}}`` of a result frame (the first score of a repeated docno)."""
    _require_columns(frame, ["qid", "docno", "score"], "frame_to_run")
    run: Run = {}
    for qid, docno, score in zip(
        frame["qid"].astype(str), frame["docno"].astype(str), frame["score"], strict=True
    ):
        run.setdefault(qid, {}).setdefault(docno, float(score))
    return run


def _require_columns(frame: pd.DataFrame, columns: Sequence[str], who: str) -> None:
    if not isinstance(frame, pd.DataFrame):
        raise TypeError(f"{who} expects a pandas DataFrame (got {type(frame).__name__})")
    missing = [c for c in columns if c not in frame.columns]
    if missing:
        raise ValueError(
            f"{who}: the frame lacks column(s) {missing}; it has {list(frame.columns)}. "
            "PyTerrier result frames carry qid, query, docno, score (and text after "
            "pt.text.get_text); topics frames carry qid, query."
        )


def _frame_dataset(frame: pd.DataFrame, collection: Dataset | None, name: str) -> Dataset:
    """The queries, texts and candidate lists (frame order) of a result frame as a Dataset."""
    _require_columns(frame, ["qid", "query", "docno"], name)
    qids = frame["qid"].astype(str).tolist()
    docnos = frame["docno"].astype(str).tolist()
    queries: dict[str, Query] = {}
    for qid, text in zip(qids, frame["query"].astype(str), strict=True):
        queries.setdefault(qid, Query(qid, text))
    documents: dict[str, Document] = {}
    if "text" in frame.columns:
        for d, t in zip(docnos, frame["text"], strict=True):
            if d not in documents and isinstance(t, str):
                documents[d] = Document(d, t)
    missing = [d for d in dict.fromkeys(docnos) if d not in documents]
    if missing and collection is not None:
        for d in missing:
            doc = collection.documents.get(d)
            if doc is not None:
                documents[d] = doc
        missing = [d for d in missing if d not in documents]
    if missing:
        where = "the frame has no text column" if "text" not in frame.columns else "no text"
        raise ValueError(
            f"{name}: {len(missing)} documents have no text ({where}; e.g. {missing[:3]}). Add "
            "a text column (pt.text.get_text(...)) or pass dataset= (its documents give the "
            "texts)"
        )
    candidates: dict[str, list[str]] = {}
    for qid, d in zip(qids, docnos, strict=True):
        cands = candidates.setdefault(qid, [])
        cands.append(d)
    candidates = {q: list(dict.fromkeys(v)) for q, v in candidates.items()}
    return Dataset(
        name=collection.name if collection is not None else name,
        queries=queries,
        documents=documents,
        qrels=None if collection is None else collection.qrels,
        candidates=candidates,
        language=collection.language if collection is not None else "en",
        doc_language=collection.doc_language if collection is not None else None,
        rel_threshold=collection.rel_threshold if collection is not None else 1,
    )


def _result_columns(columns: Sequence[str], added: Sequence[str]) -> list[str]:
    """``columns`` followed by those of ``added`` it lacks (in that order)."""
    return [*columns, *(c for c in added if c not in columns)]


def _check_input_columns(columns: Sequence[str], required: Sequence[str], who: Any) -> None:
    """PyTerrier's ``InputValidationError`` when ``columns`` lack one of ``required``."""
    missing = [c for c in required if c not in columns]
    if missing:
        pt.validate.columns(list(columns), includes=list(required), context=who)


def _with_scores(frame: pd.DataFrame, scores: np.ndarray) -> pd.DataFrame:
    out = frame.copy()
    out["score"] = scores
    return pt.model.add_ranks(out)


# ------------------------------------------------------------------------------ transformers
class AxiomaticRanker(pt.Transformer):  # type: ignore[misc,name-defined]
    """An axiomatic ranker as a PyTerrier transformer.

    On a result frame (``qid``, ``query``, ``docno`` ...) it is a re-ranker: it replaces
    ``score`` (and ``rank``) of every row with ``ranker.score(query, text)``. On a topics frame
    (``qid``, ``query``, no ``docno``) it is a first stage over ``dataset``: it scores the
    dataset's candidate lists (a re-ranking dataset) or retrieves the top ``depth`` documents of
    the collection (a full-retrieval one, lexical rankers), and adds their ``text`` so that
    re-rankers can follow with ``>>``.

    ``spec`` is any ranker spec of :func:`axiomatic.rankers.registry.make_ranker` (``bm25``,
    ``ql:mu=1000``, ``rm3``, ``tfidf``, ``model:DIR``, ``run:FILE,missing=min``, ``st:DIR`` ...).
    ``dataset`` (a :class:`~axiomatic.data.records.Dataset`, catalog name or descriptor path)
    gives collection statistics and missing texts. Nothing is loaded before the first
    :meth:`transform` (constructors only store parameters).
    """

    def __init__(
        self,
        spec: str = "bm25",
        dataset: Dataset | str | Path | None = None,
        *,
        analyzer: str | None = None,
        name: str | None = None,
        depth: int = 1000,
    ) -> None:
        self.spec = spec
        self.dataset = dataset
        self.analyzer = analyzer
        self.name = name or spec
        self.depth = depth
        self._collection: Dataset | None = None
        self._ranker: Any = None

    def __repr__(self) -> str:
        return f"AxiomaticRanker({self.spec!r})"

    def _ranker_for(self, frame_ds: Dataset) -> Any:
        from axiomatic.rankers.registry import make_ranker
        from axiomatic.text.analyzer import parse_analyzer

        if self.dataset is not None and self._collection is None:
            self._collection = _as_dataset(self.dataset)
        base = self._collection if self._collection is not None else frame_ds
        if self._ranker is not None and self._collection is not None:
            return self._ranker
        an = parse_analyzer(self.analyzer, language=base.doc_language) if self.analyzer else None
        ranker = make_ranker(self.spec, base, analyzer=an)
        if self._collection is not None:
            self._ranker = ranker  # statistics of a fixed collection: build once
        return ranker

    # PyTerrier's inspection protocol (pyterrier.inspect): the columns without running
    def transform_inputs(self) -> list[list[str]]:
        """Accepted inputs: a result frame (re-ranking) or a topics frame (first stage)."""
        return [["qid", "query", "docno"], ["qid", "query"]]

    def transform_outputs(self, input_columns: Sequence[str]) -> list[str]:
        """The output columns for a frame of ``input_columns``: a result frame gets ``score``
        and ``rank``; a topics frame (first stage) becomes a result frame with ``text``."""
        cols = list(input_columns)
        if "docno" in cols:
            _check_input_columns(cols, ["qid", "query", "docno"], self)
            return _result_columns(cols, ["score", "rank"])
        _check_input_columns(cols, ["qid", "query"], self)
        return _result_columns(cols, ["docno", "text", "score", "rank"])

    def transform(self, inp: pd.DataFrame) -> pd.DataFrame:
        """Score the rows of ``inp`` (``qid``, ``query``, ``docno`` [, ``text``])."""
        if len(inp) == 0:  # the columns a non-empty frame would get (pt.Experiment checks them)
            return pd.DataFrame(columns=self.transform_outputs(list(inp.columns)))
        if self.dataset is not None and self._collection is None:
            self._collection = _as_dataset(self.dataset)
        if "docno" not in inp.columns:
            return self._first_stage(inp)
        frame_ds = _frame_dataset(inp, self._collection, f"AxiomaticRanker({self.spec!r})")
        ranker = self._ranker_for(frame_ds)
        scores = np.full(len(inp), np.nan)
        docnos = inp["docno"].astype(str).to_numpy()
        for qid, idx in inp.groupby(inp["qid"].astype(str), sort=False).indices.items():
            docs = [frame_ds.documents[d] for d in docnos[idx]]
            scores[idx] = np.asarray(ranker.score(frame_ds.queries[qid], docs), dtype=np.float64)
        if np.isnan(scores).any():
            bad = docnos[np.isnan(scores)][:3].tolist()
            raise ValueError(
                f"ranker {self.spec!r} gave no score for {int(np.isnan(scores).sum())} rows "
                f"(e.g. {bad}): a run-file ranker lacks those documents; use "
                f"'{self.spec},missing=min' to rank them below the run's lowest score"
            )
        return _with_scores(inp, scores)

    def _first_stage(self, topics: pd.DataFrame) -> pd.DataFrame:
        _require_columns(topics, ["qid", "query"], repr(self))
        coll = self._collection
        if coll is None:
            raise ValueError(
                f"{self!r} got a topics frame (no docno column): as a first stage it needs "
                "dataset= (the collection to rank); as a re-ranker, feed it a result frame"
            )
        ranker = self._ranker_for(coll)
        rows = []
        for qid, text in dict(
            zip(topics["qid"].astype(str), topics["query"].astype(str), strict=True)
        ).items():
            query = Query(qid, text)
            if coll.candidates is not None:
                ids = coll.candidates.get(qid, [])[: self.depth]
                scores = np.asarray(
                    ranker.score(query, [coll.documents[d] for d in ids]), dtype=np.float64
                )
                ranked = list(zip(ids, scores.tolist(), strict=True))
            elif hasattr(ranker, "retrieve"):
                ranked = ranker.retrieve(query, self.depth)
            else:
                raise ValueError(
                    f"{self!r} cannot retrieve from the whole of {coll.name!r} (a full-retrieval "
                    "collection): use a lexical ranker (bm25, ql, rm3, tfidf) as the first stage"
                )
            rows += [
                {"qid": qid, "query": text, "docno": d, "text": coll.documents[d].text, "score": s}
                for d, s in ranked
            ]
        frame = pd.DataFrame(rows, columns=["qid", "query", "docno", "text", "score"])
        return pt.model.add_ranks(frame)


class AxiomaticReRanker(pt.Transformer):  # type: ignore[misc,name-defined]
    """Axiomatic re-ranking (Hagen et al. 2016) of the top ``depth`` rows of each query.

    The input's ``score`` is the base ranking; the top ``depth`` documents are re-ordered by
    KwikSort over the aggregated preferences of the pairwise ``axioms`` (``majority``,
    ``weighted`` with ``weights=``, or ``learned`` on ``train=`` and ``train_run=``), the rest
    keep their base order below them. The output scores encode the new order. See
    :func:`axiomatic.diagnose.rerank.axiomatic_rerank`; ``seed`` fixes the KwikSort pivots.
    """

    def __init__(
        self,
        axioms: str = "TFC1,M-TDC,LNC2",
        dataset: Dataset | str | Path | None = None,
        *,
        depth: int = 20,
        aggregation: str = "majority",
        weights: Sequence[float] | None = None,
        seed: int = 0,
        analyzer: str = "default",
        train: Dataset | str | Path | None = None,
        train_run: Run | pd.DataFrame | None = None,
        order: str = "kwiksort",
    ) -> None:
        self.axioms = axioms
        self.order = order
        self.dataset = dataset
        self.depth = depth
        self.aggregation = aggregation
        self.weights = weights
        self.seed = seed
        self.analyzer = analyzer
        self.train = train
        self.train_run = train_run

    def __repr__(self) -> str:
        return f"AxiomaticReRanker({self.axioms!r}, depth={self.depth}, {self.aggregation!r})"

    # PyTerrier's inspection protocol (pyterrier.inspect): the columns without running
    def transform_inputs(self) -> list[list[str]]:
        """Accepted input: a result frame with the base ``score``."""
        return [["qid", "query", "docno", "score"]]

    def transform_outputs(self, input_columns: Sequence[str]) -> list[str]:
        """The output columns for a result frame of ``input_columns``: the same, with the new
        ``score`` and ``rank``."""
        cols = list(input_columns)
        _check_input_columns(cols, ["qid", "query", "docno", "score"], self)
        return _result_columns(cols, ["score", "rank"])

    def transform(self, inp: pd.DataFrame) -> pd.DataFrame:
        """Re-rank ``inp`` (``qid``, ``query``, ``docno``, ``score`` [, ``text``])."""
        from axiomatic.diagnose.rerank import axiomatic_rerank
        from axiomatic.index.cache import dataset_index
        from axiomatic.text.analyzer import parse_analyzer

        _require_columns(inp, ["qid", "query", "docno", "score"], repr(self))
        if len(inp) == 0:
            return pd.DataFrame(columns=self.transform_outputs(list(inp.columns)))
        collection = _as_dataset(self.dataset)
        frame_ds = _frame_dataset(inp, collection, "AxiomaticReRanker")
        an = parse_analyzer(self.analyzer, language=frame_ds.doc_language)
        index = dataset_index(
            collection if collection is not None else frame_ds,
            analyzer=an,
            cache_dir=None if collection is not None else False,
        )
        train = _as_dataset(self.train)
        train_run = self.train_run
        if isinstance(train_run, pd.DataFrame):
            train_run = frame_to_run(train_run)
        new_run = axiomatic_rerank(
            frame_ds,
            self.axioms,
            frame_to_run(inp),
            depth=self.depth,
            aggregation=self.aggregation,
            seed=self.seed,
            weights=self.weights,
            index=index,
            train=train,
            train_run=train_run,
            order=self.order,
        )
        scores = np.asarray(
            [
                new_run[q][d]
                for q, d in zip(inp["qid"].astype(str), inp["docno"].astype(str), strict=True)
            ],
            dtype=np.float64,
        )
        return _with_scores(inp, scores)


# --------------------------------------------------------------------------------- diagnosis
@dataclass
class FrameDiagnosis:
    """What :func:`diagnose_frames` returns: the :class:`~axiomatic.diagnose.diagnosis.Diagnosis`
    (``.table()``, ``.pivot()``, ``.mcnemar()`` ...), the effectiveness table (when there are
    qrels), the dataset the instances were mined from and the report files (when ``out=``)."""

    diagnosis: Any
    effectiveness: pd.DataFrame | None
    dataset: Dataset
    paths: dict[str, Path] = field(default_factory=dict)

    def table(self) -> pd.DataFrame:
        """The fulfilment table of :meth:`Diagnosis.table`."""
        return self.diagnosis.table()

    def pivot(self, by: str = "axiom", value: str = "fraction") -> pd.DataFrame:
        return self.diagnosis.pivot(by=by, value=value)

    def print(self, console: Any = None) -> None:
        """Print the tables as ``axiomatic diagnose`` does."""
        from axiomatic.report.tables import print_tables

        print_tables(self.diagnosis, self.effectiveness, console=console)


def _system_frames(
    systems: Mapping[str, Any] | Sequence[Any], topics: pd.DataFrame | None
) -> dict[str, pd.DataFrame]:
    items = (
        list(systems.items())
        if isinstance(systems, Mapping)
        else [(getattr(s, "name", None) or f"system{i}", s) for i, s in enumerate(systems)]
    )
    if not items:
        raise ValueError(
            "diagnose_frames needs at least one system (a result frame or transformer)"
        )
    frames: dict[str, pd.DataFrame] = {}
    for name, s in items:
        if isinstance(s, pt.Transformer):
            if topics is None:
                raise ValueError(f"system {name!r} is a transformer: pass topics= to run it")
            s = s.transform(topics)
        _require_columns(s, ["qid", "docno", "score"], f"system {name!r}")
        if str(name) in frames:
            raise ValueError(f"two systems are named {name!r}; pass a dict with unique names")
        frames[str(name)] = s
    return frames


def diagnose_frames(
    systems: Mapping[str, Any] | Sequence[Any],
    dataset: Dataset | str | Path | None = None,
    *,
    topics: pd.DataFrame | None = None,
    qrels: pd.DataFrame | None = None,
    axioms: str = DEFAULT_AXIOMS,
    variant: str | None = None,
    analyzer: str = "default",
    depth: int | None = None,
    max_per_query: int | None = None,
    seed: int = 0,
    measures: str = "nDCG@10 AP RR@10",
    oracle: bool = True,
    missing: str = "both",
    tie_tolerance: float = 1e-9,
    instances_dir: str | Path | None = None,
    out: str | Path | None = None,
    plots: bool = True,
) -> FrameDiagnosis:
    """Diagnose several systems from their PyTerrier result frames, as ``axiomatic diagnose``.

    ``systems``: ``{name: frame or transformer}`` (transformers are run on ``topics``). The
    instances are mined (``axioms``, ``variant``, ``analyzer``, ``depth``, ``max_per_query``,
    ``seed`` as ``axiomatic mine``) from the union of the systems' result lists (each document at
    its best rank over the systems), with query texts from ``topics``, the frames or
    ``dataset``, texts from the frames' ``text`` column or ``dataset``, and labels from
    ``qrels`` (``qid``, ``docno``, ``label``) or ``dataset``. Each system is then diagnosed as a
    run file (``missing``: own-list and/or union view) and, with qrels, evaluated with
    ``measures``. ``out`` writes the HTML/CSV/JSON report, with the report's figures unless
    ``plots=False``; ``instances_dir`` keeps the mined
    instances (default: a temporary folder).
    """
    from axiomatic.axioms.spec import parse_axioms
    from axiomatic.data.instances import read_instances
    from axiomatic.diagnose.diagnosis import diagnose
    from axiomatic.diagnose.mining import mine
    from axiomatic.rankers.runfile import RunFileRanker
    from axiomatic.report.tables import effectiveness_table
    from axiomatic.text.analyzer import parse_analyzer

    collection = _as_dataset(dataset)
    frames = _system_frames(systems, topics)
    runs = {name: frame_to_run(f) for name, f in frames.items()}
    # the union of the result lists, each document at its best rank over the systems
    best: dict[str, dict[str, tuple[int, int]]] = {}
    for si, run in enumerate(runs.values()):
        for qid, scores in run.items():
            slot = best.setdefault(qid, {})
            ranked = sorted(scores.items(), key=lambda x: (-x[1], x[0]))
            for rank, (d, _) in enumerate(ranked):
                if d not in slot or (rank, si) < slot[d]:
                    slot[d] = (rank, si)
    query_frames = [f for f in frames.values() if "query" in f.columns]
    if topics is not None:
        _require_columns(topics, ["qid", "query"], "topics")
        query_frames.insert(0, topics)  # the topics' texts win
    queries: dict[str, Query] = {}
    for f in query_frames:
        for qid, text in zip(f["qid"].astype(str), f["query"].astype(str), strict=True):
            queries.setdefault(qid, Query(qid, text))
    if collection is not None:
        for qid, q in collection.queries.items():
            queries.setdefault(qid, q)
    lacking = [q for q in best if q not in queries]
    if lacking:
        raise ValueError(
            f"{len(lacking)} queries of the systems have no text (e.g. {lacking[:3]}): give "
            "frames with a query column, topics= or dataset="
        )
    documents: dict[str, Document] = {}
    for f in frames.values():
        if "text" in f.columns:
            for d, t in zip(f["docno"].astype(str), f["text"], strict=True):
                if isinstance(t, str):
                    documents.setdefault(d, Document(d, t))
    needed = {d for slot in best.values() for d in slot}
    if collection is not None:
        for d in needed - documents.keys():
            doc = collection.documents.get(d)
            if doc is not None:
                documents[d] = doc
    no_text = sorted(needed - documents.keys())
    if no_text:
        raise ValueError(
            f"{len(no_text)} retrieved documents have no text (e.g. {no_text[:3]}): add a text "
            "column (pt.text.get_text) or pass dataset="
        )
    qrels_map = collection.qrels if collection is not None else None
    if qrels is not None:
        _require_columns(qrels, ["qid", "docno", "label"], "qrels")
        qrels_map = {}
        for q, d, g in zip(
            qrels["qid"].astype(str), qrels["docno"].astype(str), qrels["label"], strict=True
        ):
            qrels_map.setdefault(q, {})[d] = int(g)
    qids = [q for q in queries if q in best]
    ds = Dataset(
        name=collection.name if collection is not None else "pyterrier systems",
        queries={q: queries[q] for q in qids},
        documents=documents,
        qrels=None if qrels_map is None else {q: qrels_map[q] for q in qids if q in qrels_map},
        candidates={q: sorted(best[q], key=best[q].__getitem__) for q in qids},
        language=collection.language if collection is not None else "en",
        doc_language=collection.doc_language if collection is not None else None,
        rel_threshold=collection.rel_threshold if collection is not None else 1,
        description="union of the result lists of " + ", ".join(frames),
    )
    an = parse_analyzer(analyzer, language=ds.doc_language)
    axs = parse_axioms(axioms, default_variant=variant)
    with tempfile.TemporaryDirectory(prefix="axiomatic-pt-") as tmp:
        folder = Path(instances_dir) if instances_dir is not None else Path(tmp) / "instances"
        mine(
            ds,
            axs,
            folder,
            analyzer=an,
            depth=depth,
            max_instances_per_query=max_per_query,
            seed=seed,
            progress=False,
            overwrite=True,
        )
        inst, arts = read_instances(folder)
        from axiomatic.data.instances import artificial_file_path

        art_path = artificial_file_path(folder)
        art: Any = pd.read_parquet(art_path) if art_path.is_file() else (arts or None)
        rankers = {name: RunFileRanker(run, name=name) for name, run in runs.items()}
        diag = diagnose(
            inst,
            rankers,
            ds,
            art,
            oracle=oracle and bool(ds.qrels),
            missing=missing,
            tie_tolerance=tie_tolerance,
        )
    diag.metadata["analyzer"] = an.describe()
    eff = None
    if ds.qrels:
        eff = effectiveness_table(runs, ds.qrels, measures, rel_threshold=ds.rel_threshold)
    paths: dict[str, Path] = {}
    if out is not None:
        from axiomatic.report.writer import write_report

        paths = write_report(diag, eff, out, title=f"Axiomatic diagnosis: {ds.name}", plots=plots)
    return FrameDiagnosis(diagnosis=diag, effectiveness=eff, dataset=ds, paths=paths)
