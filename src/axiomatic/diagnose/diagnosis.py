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

Each query's distinct documents are scored once per ranker, all queries in one
:func:`~axiomatic.rankers.base.score_lists` call (a neural model scores each distinct text or
text pair of the diagnosis once, in length-sorted batches across queries; another ranker gets
one ``score`` call per query); every instance is then evaluated with array operations. Rankers that declare
``can_score_unseen_documents = False`` (TREC run files; see :class:`axiomatic.rankers.base.Ranker`)
skip instances on artificial documents; the skip is counted per ranker and axiom and reported.
Any other ranker is asked for every document, and its errors propagate.

A pairwise ranker (one with ``both_orders``, e.g. ``prp:smollm2``) is asked about each pair
instance itself, in both orders (:mod:`axiomatic.diagnose.pairwise`): its fulfilment is that of
the mean preference, triples are skipped, and the share of position-biased answers per axiom
is ``metadata["position_bias"]``.

Reference: M. Rennings, *Axiomatic Thinking in Neural IR: An Axiomatic Approach to Diagnosing
Deep IR Models* (MSc thesis, TU Delft, 2019); Rennings, Moraes, Hauff, ECIR 2019.

This module is the engine (:func:`diagnose`: score each query's documents once per ranker, judge
every instance with array operations, count skips); each other name has one home:
:mod:`~axiomatic.diagnose.relations` (constants and how one instance is judged),
:mod:`~axiomatic.diagnose.oracle` (the qrels oracle), :mod:`~axiomatic.diagnose.result`
(:class:`~axiomatic.diagnose.result.Diagnosis`, :func:`~axiomatic.diagnose.result.instance_frame`
and their I/O) and :mod:`~axiomatic.diagnose.analyses` (McNemar, delta* sweep, correlation).
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from axiomatic.data.records import Dataset, Document, Qrels, Query
from axiomatic.diagnose.effects import (
    ABNIRML_TOP_K,
    SAMPLE_CHARS,
    SAMPLE_PREFIX,
    calibrate_band,
    check_band_test,
    instance_margins,
    resolve_band,
    sample_hash,
)
from axiomatic.diagnose.oracle import QrelsOracle
from axiomatic.diagnose.pairwise import (
    SKIP_TRIPLE,
    instance_preferences,
    is_pairwise,
    position_biased,
)
from axiomatic.diagnose.relations import (
    DEFAULT_TIE_TOLERANCE,
    MISSING_POLICIES,
    REQUIRED_COLUMNS,
    SKIP_ARTIFICIAL,
    SKIP_NO_SCORE,
    SKIP_UNRETRIEVED,
    SKIPPED,
    VIEW_OF_POLICY,
    evaluate_relations,
)
from axiomatic.diagnose.result import Diagnosis
from axiomatic.rankers.base import Ranker, ranker_can_score_unseen, score_lists

__all__ = ["AnalyzerMismatchWarning", "diagnose"]


def _checked(name: str, scores: np.ndarray, n_docs: int) -> np.ndarray:
    s = np.asarray(scores, dtype=np.float64)
    if s.shape != (n_docs,):
        raise ValueError(
            f"ranker {name!r} returned {s.shape} scores for {n_docs} documents; "
            "Ranker.score must return one float per document"
        )
    return s


def _score_queries(
    ranker: Ranker,
    lists: list[tuple[Query, list[Document], np.ndarray]],
    can_score_unseen: bool,
) -> tuple[list[np.ndarray], bool]:
    """Scores of each query's ``docs`` (NaN where not scorable) and whether artificial
    documents were left out; ``lists`` holds ``(query, docs, artificial mask)``.

    The ranker's declaration decides (:func:`axiomatic.rankers.base.ranker_can_score_unseen`),
    never its exceptions: a ranker that declares it can score unseen documents gets every
    document and whatever it raises propagates (a model failing on long LNC2 duplicates is an
    error, not a skip). A ranker that declares it cannot (a run file) is not asked for
    artificial documents, and returns NaN for the real documents it does not have.

    All queries are scored in one :func:`~axiomatic.rankers.base.score_lists` call: a neural
    model then scores each distinct text (bi-encoder) or text pair (cross-encoder) of the whole
    diagnosis once, in length-sorted batches across queries.
    """
    if can_score_unseen:
        got = score_lists(ranker, [(q, docs) for q, docs, _ in lists])
        return [
            _checked(ranker.name, s, len(docs)) for (_, docs, _), s in zip(lists, got, strict=True)
        ], False
    keep = [np.flatnonzero(~art) for _, _, art in lists]
    got = score_lists(
        ranker, [(q, [docs[i] for i in k]) for (q, docs, _), k in zip(lists, keep, strict=True)]
    )
    out = []
    for (_, docs, _), k, s in zip(lists, keep, got, strict=True):
        scores = np.full(len(docs), np.nan)
        scores[k] = _checked(ranker.name, s, k.size)
        out.append(scores)
    return out, any(bool(art.any()) for _, _, art in lists)


_CALIBRATION_SET = (
    "its scores of the query's candidates (for a full-retrieval dataset: the query's documents "
    "among the instances)"
)
_CALIBRATION_NOTES = {
    "top-gap": "top-gap: per ranker, the median over the diagnosed queries of "
    f"|s(rank 1) - s(rank 2)| of {_CALIBRATION_SET}",
    "abnirml": "abnirml: per ranker, the median of the gaps s(rank i) - s(rank i + 1) of the top "
    f"{ABNIRML_TOP_K}, pooled over the diagnosed queries, of {_CALIBRATION_SET} (ABNIRML)",
}


def _calibration_docs(dataset: Dataset, query_id: str, docs: list[Document]) -> list[Document]:
    """Candidates of ``query_id`` that are not among ``docs`` (scored with them, for the band)."""
    if not dataset.is_reranking or query_id not in (dataset.candidates or {}):
        return []
    have = {d.doc_id for d in docs}
    extra = []
    for d in dataset.candidate_ids(query_id):
        if d not in have and d in dataset.documents:
            have.add(d)
            extra.append(dataset.documents[d])
    return extra


def _candidate_scores(
    dataset: Dataset, query_id: str, docs: list[Document], scores: np.ndarray
) -> np.ndarray:
    """The scores (aligned with ``docs`` + the calibration extra) of the query's candidates."""
    if not dataset.is_reranking or query_id not in (dataset.candidates or {}):
        return scores[: len(docs)]  # full retrieval: the query's documents among the instances
    cands = set(dataset.candidate_ids(query_id))
    keep = np.fromiter((d.doc_id in cands for d in docs), dtype=bool, count=len(docs))
    return np.r_[scores[: len(docs)][keep], scores[len(docs) :]]


def _band_of(spec: object, name: str, top_lists: list[np.ndarray]) -> float:
    if isinstance(spec, str):
        delta, n_q = calibrate_band(spec, top_lists)
        if n_q == 0:
            raise ValueError(
                f"cannot calibrate the band of ranker {name!r}: no query has two scored "
                "candidates; pass a number as band (e.g. band=0.1)"
            )
        return delta
    if isinstance(spec, dict):
        if name not in spec:
            raise ValueError(
                f"band has no value for ranker {name!r} (it has {sorted(spec)}); give every "
                "ranker a value or use band='top-gap'"
            )
        return float(spec[name])
    return float(spec)  # type: ignore[arg-type]


def _sample_meta(
    inst: pd.DataFrame, per_query: list[tuple[Query, np.ndarray, list[Document], list[Document]]]
) -> dict[str, str]:
    """The sample hash (short and full) over the instances and the texts the rankers scored."""
    queries = {query.query_id: query.text for query, _, _, _ in per_query}
    docs = {d.doc_id: d.text for _, _, ds, _ in per_query for d in ds}
    full = sample_hash(inst, full=True, query_texts=queries, doc_texts=docs)
    return {"sample": full[: len(SAMPLE_PREFIX) + SAMPLE_CHARS], "sample_sha256": full}


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
                    "source_doc_id as in _artificial_docs.parquet)"
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
            "relation, len_*, rel_*, split, artificial); read it with axiomatic.read_instances"
        )


class AnalyzerMismatchWarning(UserWarning):
    """A lexical ranker analyzes text otherwise than the instances were mined (e.g. instances
    of the ``thesis`` analyzer, which keeps stopwords, and the ``default`` BM25): the instances
    then speak of terms the ranker does not see, and its fulfilment is not comparable."""


def _warn_analyzer_mismatch(
    instances: pd.DataFrame, named: Sequence[tuple[str, Ranker]], dataset: Dataset
) -> None:
    """Warn once per diagnosis when a lexical ranker's analyzer differs from the one recorded
    with the instances (``instances.attrs["analyzer"]``, set by ``read_instances``)."""
    mined = instances.attrs.get("analyzer")
    if not isinstance(mined, str):
        return
    from axiomatic.index.collection import CollectionIndex
    from axiomatic.text.analyzer import AnalyzerSpecError, parse_analyzer

    try:
        mined_an = parse_analyzer(mined, language=dataset.doc_language)
    except AnalyzerSpecError:
        return
    indexes = [(name, getattr(r, "index", None)) for name, r in named]
    other = [
        (name, index.analyzer)
        for name, index in indexes
        if isinstance(index, CollectionIndex) and index.analyzer != mined_an
    ]
    if other:
        import warnings

        from axiomatic._callable import user_stacklevel

        an = other[0][1]
        warnings.warn(
            f"ranker {', '.join(n for n, _ in other)} analyzes text with "
            f"'{an.preset or an.spec}' but the instances were mined with "
            f"'{mined_an.preset or mined_an.spec}': they see different terms, so fulfilment is "
            "not comparable; build the ranker with the instances' analyzer "
            f"(make_ranker(spec, ds, analyzer=parse_analyzer({mined_an.preset or mined!r}))) or "
            "mine with the ranker's",
            AnalyzerMismatchWarning,
            stacklevel=user_stacklevel(),
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
    band: str | float | Mapping[str, float] | None = None,
    band_test: str = "sign",
) -> Diagnosis:
    """Diagnose ``rankers`` on diagnostic ``instances`` mined from ``dataset``.

    Parameters
    ----------
    instances: instance table (schema of :mod:`axiomatic.diagnose.mining`).
    rankers: one ranker, a sequence (named by ``.name``) or a mapping name -> ranker.
    dataset: gives the query texts and the documents (``dataset.documents``).
    artificial_docs: documents that are not in the dataset (LNC2 duplicates): a mapping
        ``doc_id -> Document`` or the ``_artificial_docs.parquet`` table (then its
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

    band: the no-difference band of calibrated effects (ABNIRML; :mod:`axiomatic.diagnose.effects`):
        ``None`` (default) adds nothing; a number >= 0 is the band of every ranker; a mapping
        ranker -> number gives each its own; a calibration computes it per ranker on the
        dataset's candidates of the diagnosed queries (one more scoring of those lists, in the
        same batched call): ``"top-gap"`` (alias ``"auto"``) the median over queries of the
        score gap between the ranker's top two candidates, ``"abnirml"`` ABNIRML's median of
        the gaps between adjacent documents of the top 10, pooled over queries. Each table row
        then also gets ``delta``, ``pos`` / ``neg`` / ``neutral`` counts, the ``effect``
        (pos - neg) / n with its interval and the test's p-value.
    band_test: the test of the effect: ``"sign"`` (default; pos against neg) or ``"t"``
        (ABNIRML's one-sample t-test of the score margins against 0).

    Instances flagged ``symmetric`` (or with relation ``=``) expect equal scores: only a tie
    fulfils them, and they are grouped apart (:data:`SYMMETRIC_SUFFIX`).

    Each query's distinct documents are scored once per ranker, all queries in one
    :func:`~axiomatic.rankers.base.score_lists` call (a neural model: each distinct text, or
    text pair, of the whole diagnosis once, in length-sorted batches); all instances are then
    evaluated with array operations (:func:`evaluate_relations`).
    """
    _validate(instances)
    band_spec = resolve_band(band)
    band_test = check_band_test(band_test)
    if band_spec is None and band_test != "sign":
        raise ValueError(
            f"band_test={band_test!r} tests the calibrated effects, which need a band; give "
            "band='top-gap', 'abnirml' or a number as well"
        )
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
    _warn_analyzer_mismatch(instances, named, dataset)
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
    per_query: list[tuple[Query, np.ndarray, list[Document], list[Document]]] = []
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
                        "axiomatic.read_instances"
                    ) from None
            docs.append(doc)
        extra = _calibration_docs(dataset, q, docs) if isinstance(band_spec, str) else []
        per_query.append((dataset.queries[q], slots, docs, extra))

    relation = inst["relation"].astype(str).to_numpy()
    if "symmetric" in inst:
        # preconditions hold both ways: S(a) >= S(b) and S(b) >= S(a), i.e. a tie
        sym = inst["symmetric"].fillna(False).to_numpy(dtype=bool)
        relation = np.where(sym & (relation == ">="), "=", relation).astype(object)
    policies = ["skip", "below"] if missing == "both" else [missing]
    by_policy: dict[str, dict[str, np.ndarray]] = {p: {} for p in policies}
    skips_by: dict[str, dict[str, dict[str, int]]] = {p: {} for p in policies}
    margins_by: dict[str, dict[str, np.ndarray]] = {p: {} for p in policies}
    deltas: dict[str, float] = {}
    any_missing = False
    bias_by: dict[str, dict[str, float]] = {}
    for name, ranker in named:
        if is_pairwise(ranker):
            # asked about each pair instance itself, both orders (diagnose/pairwise.py)
            if band_spec is not None:
                raise ValueError(
                    f"ranker {name!r} compares pairs of documents and has no scores to "
                    "calibrate a band on; diagnose it without band"
                )
            d_ab, d_ba = instance_preferences(ranker, inst, dataset, art_docs)
            out = evaluate_relations(relation, (d_ab - d_ba) / 2, np.zeros(n), None, tie_tolerance)
            pair_skips = {SKIP_TRIPLE: int(has_c.sum())} if has_c.any() else {}
            for policy in policies:
                by_policy[policy][name] = out
                skips_by[policy][name] = dict(pair_skips)
            biased = pd.Series(position_biased(d_ab, d_ba)[~has_c])
            bias_by[name] = {
                str(k): float(v)
                for k, v in biased.groupby(inst["spec"].astype(str).to_numpy()[~has_c])
                .mean()
                .items()
            }
            continue
        scores = np.full(slot_d.size, np.nan)
        top_lists: list[np.ndarray] = []
        per_list, dropped_art = _score_queries(
            ranker,
            [
                (query, docs + extra, np.r_[slot_art[slots], np.zeros(len(extra), bool)])
                for query, slots, docs, extra in per_query
            ],
            ranker_can_score_unseen(ranker),
        )
        for (query, slots, docs, _extra), all_scores in zip(per_query, per_list, strict=True):
            scores[slots] = all_scores[: len(docs)]
            if isinstance(band_spec, str):
                top_lists.append(_candidate_scores(dataset, query.query_id, docs, all_scores))
        if band_spec is not None:
            deltas[name] = _band_of(band_spec, name, top_lists)
        unscored = np.isnan(scores) & ~slot_art
        any_missing |= bool(unscored.any())
        inst_art = slot_art[ia] | slot_art[ib] | ((ic >= 0) & slot_art[np.maximum(ic, 0)])
        for policy in policies:
            s_pol = np.where(unscored, -np.inf, scores) if policy == "below" else scores
            sc = np.where(ic >= 0, s_pol[np.maximum(ic, 0)], np.nan)
            out = evaluate_relations(relation, s_pol[ia], s_pol[ib], sc, tie_tolerance)
            skipped = out == SKIPPED
            if band_spec is not None:
                marg = instance_margins(relation, s_pol[ia], s_pol[ib], sc)
                margins_by[policy][name] = np.where(skipped, np.nan, marg)
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
    band_meta: dict[str, object] = {}
    if band_spec is not None:
        band_meta = {
            "band": deltas,
            "band_calibration": _CALIBRATION_NOTES[band_spec]
            if isinstance(band_spec, str)
            else ("given per ranker" if isinstance(band_spec, dict) else "given"),
            "band_test": band_test,
        }
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
        | _sample_meta(inst, per_query)
        | band_meta
        | ({"position_bias": bias_by} if bias_by else {})
        # read_instances(allow_partial=True) labels an unfinished mining output
        | ({"partial": str(instances.attrs["partial"])} if instances.attrs.get("partial") else {}),
        view=VIEW_OF_POLICY[main] if any_missing else "",
        views={VIEW_OF_POLICY[p]: pd.DataFrame(by_policy[p]) for p in policies[1:]},
        view_skips={VIEW_OF_POLICY[p]: skips_by[p] for p in policies[1:]},
        margins=pd.DataFrame(margins_by[main]) if band_spec is not None else None,
        view_margins={VIEW_OF_POLICY[p]: pd.DataFrame(margins_by[p]) for p in policies[1:]}
        if band_spec is not None
        else {},
    )
