"""Axiomatic re-ranking (Hagen, Völske, Göring, Stein 2016, CIKM).

The top-``depth`` candidates of a base run are re-ordered by aggregated axiom preferences:

* ``majority``: ``pref(i, j) = sum_a P_a(i, j)`` (one vote per axiom, sign decides);
* ``weighted``: ``pref(i, j) = sum_a w_a P_a(i, j)`` with user weights;
* ``learned``: the weights of a logistic regression without intercept,
  ``P(d_i more relevant than d_j) = sigmoid(sum_a w_a P_a(i, j))``, fit on the pairwise
  preferences of a training split against its qrels (antisymmetric features, so the model is
  antisymmetric too).

The aggregated preference ``sign(pref(i, j))`` (+1, -1, or 0 for a tie) is turned into an
order (``order=``) by one of :data:`axiomatic.rankers.orders.ORDERS` (``kwiksort``, the
default, ``bradley-terry``, ``pagerank`` or ``wins``; see :mod:`axiomatic.rankers.orders`).
Documents below ``depth`` keep their base order after the re-ranked head.

The base run itself is resolved by :func:`base_ranking` from what ``axiomatic rerank --base``
takes (a ranker spec, a run file, standard input, a catalog system, or the dataset's own run),
so the Python API starts from the same ranking as the command.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from axiomatic._suggest import suggest
from axiomatic.axioms.context import QueryContext
from axiomatic.axioms.spec import Axiom, parse_axioms
from axiomatic.data.records import Dataset, Run
from axiomatic.index.collection import CollectionIndex
from axiomatic.rankers.orders import ORDERS, order_by

AGGREGATIONS = ("majority", "weighted", "learned")


def _ranked(run_q: dict[str, float]) -> list[str]:
    return [d for d, _ in sorted(run_q.items(), key=lambda x: (-x[1], x[0]))]


def preference_stack(ctx: QueryContext, axioms: Sequence[Axiom]) -> np.ndarray:
    """``int8[A, n, n]``: the preference matrix of every pairwise axiom (triples are skipped)."""
    mats = [ax.preferences(ctx) for ax in axioms if ax.arity == 2]
    if not mats:
        return np.zeros((0, ctx.n, ctx.n), dtype=np.int8)
    return np.stack(mats)


def _contexts(dataset: Dataset, run: Run, depth: int, index: CollectionIndex, similarity: Any):
    for qid, q in dataset.queries.items():
        ranked = _ranked(run.get(qid, {}))
        head = [d for d in ranked[:depth] if d in dataset.documents]
        docs = [dataset.documents[d] for d in head]
        scores = [run[qid][d] for d in head]
        ctx = QueryContext.build(q, docs, index, similarity=similarity, scores=scores)
        yield qid, ranked, head, ctx


def learn_weights(
    dataset: Dataset,
    axioms: str | Sequence[str | Axiom],
    base_run: Run,
    depth: int = 20,
    index: CollectionIndex | None = None,
    l2: float = 1e-2,
    iters: int = 500,
    seed: int = 0,
    similarity: Any = None,
    target: Run | None = None,
) -> np.ndarray:
    """Logistic-regression weights of the pairwise axioms on ``dataset``'s qrels (no intercept).

    Training pairs: candidate pairs of the top ``depth`` with different relevance labels;
    features ``P_a(i, j)``; target ``1[rel_i > rel_j]``. Gradient descent on the L2-regularized
    log loss, deterministic (``seed`` only orders the data). ``target``: imitate this run (any
    ranker's scores) instead of the qrels: pairs with different target scores, ``1[s_i > s_j]``.
    """
    axs = [a for a in parse_axioms(axioms) if a.arity == 2]
    if target is None and dataset.qrels is None:
        raise ValueError(f"dataset {dataset.name!r} has no qrels; learning weights needs labels")
    if index is None:
        from axiomatic.index.cache import dataset_index

        index = dataset_index(dataset)
    X_parts, y_parts = [], []
    for qid, _, head, ctx in _contexts(dataset, base_run, depth, index, similarity):
        if ctx.n < 2 or ctx.n_terms == 0:
            continue
        if target is None:
            rel = np.asarray([dataset.judged(qid).get(d, 0) for d in head], dtype=np.float64)
        else:  # a document the target did not score ranks below every one it did
            t = target.get(qid, {})
            rel = np.asarray([t.get(d, -np.inf) for d in head], dtype=np.float64)
        i, j = np.nonzero(rel[:, None] != rel[None, :])
        if not len(i):
            continue
        F = preference_stack(ctx, axs)
        X_parts.append(F[:, i, j].T.astype(np.float64))
        y_parts.append((rel[i] > rel[j]).astype(np.float64))
    if not X_parts:
        raise ValueError("no training pairs with different labels; use more queries or depth")
    X = np.concatenate(X_parts)
    y = np.concatenate(y_parts)
    order = np.random.default_rng(seed).permutation(len(y))
    X, y = X[order], y[order]
    w = np.zeros(X.shape[1])
    lr = 1.0
    for _ in range(iters):
        p = 1.0 / (1.0 + np.exp(-(X @ w)))
        grad = X.T @ (p - y) / len(y) + l2 * w
        w -= lr * grad
    return w


def learn_combination(
    dataset: Dataset,
    axioms: str | Sequence[str | Axiom],
    base_run: Run,
    target: Run | None = None,
    depth: int = 20,
    index: CollectionIndex | None = None,
    seed: int = 0,
    similarity: Any = None,
    digits: int = 4,
) -> Axiom:
    """A learned axiom combination: the weighted sum ``w_1 * A_1 + ... + w_k * A_k`` whose
    weights are the logistic regression of :func:`learn_weights` (the learned aggregation of
    re-ranking), fitted to imitate the qrels (``target=None``: the oracle) or any ranker's run
    (``target``) on the top ``depth`` of ``base_run``.

    The result is an axiom spec like any other (``.spec`` parses back to it; weights rounded
    to ``digits`` significant digits so that it does exactly); axioms with weight 0 are left
    out. Its preference is the sign of the weighted sum, the same decision as
    ``axiomatic_rerank(..., aggregation="learned")`` takes per pair.
    """
    axs = [a for a in parse_axioms(axioms) if a.arity == 2]
    if not axs:
        raise ValueError("a learned combination needs pairwise axioms (TFC2 is a triple axiom)")
    w = learn_weights(
        dataset, axs, base_run, depth, index=index, seed=seed, similarity=similarity, target=target
    )
    return weighted_combination(w, axs, digits)


def weighted_combination(
    weights: Sequence[float] | np.ndarray, axioms: Sequence[Axiom], digits: int = 4
) -> Axiom:
    """The weighted-sum axiom spec ``w_1 * A_1 + ...`` of re-ranking weights (rounded to
    ``digits`` significant digits so that its ``.spec`` parses back to it; weight-0 axioms
    left out): what a learned aggregation decides per pair, reusable as ``--axioms``."""
    ws = np.asarray(weights, dtype=np.float64).tolist()
    terms = [(float(f"{x:.{digits}g}"), a) for x, a in zip(ws, axioms, strict=True)]
    terms = [(x, a) for x, a in terms if x != 0]
    if not terms:
        raise ValueError("every learned weight is 0: the axioms do not separate any target pair")
    combo: Axiom = terms[0][0] * terms[0][1]
    for x, a in terms[1:]:
        combo = combo + x * a
    return combo


def axiomatic_rerank(
    dataset: Dataset,
    axioms: str | Sequence[str | Axiom],
    base_run: Run,
    depth: int = 20,
    aggregation: str = "majority",
    seed: int = 0,
    weights: Sequence[float] | np.ndarray | None = None,
    index: CollectionIndex | None = None,
    similarity: Any = None,
    train: Dataset | None = None,
    train_run: Run | None = None,
    order: str = "kwiksort",
) -> Run:
    """Re-rank the top ``depth`` of ``base_run`` with aggregated axiom preferences, ordered by
    ``order`` (one of :data:`~axiomatic.rankers.orders.ORDERS`: the module docstring).

    ``aggregation="learned"`` fits weights on ``train`` / ``train_run`` (:func:`learn_weights`)
    unless ``weights`` are given. Returns a run whose scores encode the new order (``depth``
    re-ranked documents first, the rest in base order).
    """
    if aggregation not in AGGREGATIONS:
        raise ValueError(
            f"unknown aggregation {aggregation!r}; expected one of {list(AGGREGATIONS)}"
            + suggest(aggregation, AGGREGATIONS, n=1, cutoff=0.6)
        )
    if depth < 1:
        raise ValueError(f"depth must be >= 1 (got {depth})")
    if order not in ORDERS:
        raise ValueError(
            f"unknown order {order!r}{suggest(order, ORDERS, n=1)}; expected one of "
            f"{', '.join(ORDERS)}"
        )
    axs = [a for a in parse_axioms(axioms) if a.arity == 2]
    if not axs:
        raise ValueError("re-ranking needs at least one pairwise axiom (TFC2 is a triple axiom)")
    if index is None:
        from axiomatic.index.cache import dataset_index

        index = dataset_index(dataset)
    if aggregation == "majority":
        w = np.ones(len(axs))
    elif weights is not None:
        w = np.asarray(weights, dtype=np.float64)
        if w.shape != (len(axs),):
            raise ValueError(f"got {w.shape[0] if w.ndim else 0} weights for {len(axs)} axioms")
    elif aggregation == "learned":
        if train is None or train_run is None:
            raise ValueError("aggregation='learned' needs train= and train_run= (or weights=)")
        from axiomatic.index.cache import dataset_index

        # the weights are learned on terms of the same analyzer as the re-ranked dataset's
        train_index = dataset_index(train, analyzer=index.analyzer)
        w = learn_weights(
            train, axs, train_run, depth, index=train_index, seed=seed, similarity=similarity
        )
    else:
        raise ValueError("aggregation='weighted' needs weights=, one per pairwise axiom")
    out: Run = {}
    for qid, ranked, head, ctx in _contexts(dataset, base_run, depth, index, similarity):
        if ctx.n >= 2 and ctx.n_terms > 0:
            F = preference_stack(ctx, axs).astype(np.float64)
            agg = np.tensordot(w, F, axes=1)
            pref = np.sign(agg)
            positions = order_by(pref, order, seed=seed)
            new_head = [head[o] for o in positions]
        else:
            new_head = list(head)
        tail = [d for d in ranked if d not in set(new_head)]
        final = new_head + tail
        out[qid] = {d: float(len(final) - r) for r, d in enumerate(final)}
    return out


# ------------------------------------------------------------------------------ base rankings
@dataclass(frozen=True)
class BaseRanking:
    """The ranking a re-ranker starts from (:func:`base_ranking`)."""

    label: str
    """What tables call it: the ``NAME=`` given, the ranker's name, the run's name (the naming
    rule of :mod:`axiomatic.data.runs`) or the run that defines the dataset."""
    run: Run
    """Restricted to the dataset's queries."""
    dataset: Dataset
    """The dataset, with the text of documents the run ranks outside its candidates."""
    kind: str
    """``dataset`` (the run defining it, else its candidate order), ``run`` (a file, standard
    input or a catalog system: its own ranking) or ``ranker`` (a spec scoring the candidates)."""
    added: int = 0
    """Documents whose text was taken from the collection (a run's documents outside the
    candidates)."""


def default_base(dataset: Dataset) -> str:
    """The base ranking when none is given: ``dataset`` for a dataset defined by a run (it
    starts from that run, e.g. Anserini's BM25 for ``trec-dl-2019/bm25``), else ``bm25``."""
    from axiomatic.data.runs import dataset_run

    return "dataset" if dataset_run(dataset) is not None else "bm25"


def base_ranking(
    dataset: Dataset,
    base: str | None = None,
    *,
    depth: int = 20,
    index: CollectionIndex | None = None,
    analyzer: Any = None,
    data_root: Any = None,
    skip_malformed: bool | None = None,
    option: str = "--base",
) -> BaseRanking:
    """Resolve ``base`` on ``dataset`` into the ranking :func:`axiomatic_rerank` re-ranks, as
    ``axiomatic rerank --base`` does:

    * ``None``: :func:`default_base`;
    * ``[NAME=]dataset``: the run that defines the dataset, else its candidate order;
    * a run argument (:mod:`axiomatic.data.runs`: a file, ``-`` for standard input, a catalog
      system such as ``trec-dl-2019/splade-pp``; also ``run:PATH``): its own ranking, not
      re-scored; documents of its top ``depth`` outside the candidates get their text from the
      collection (an error when no source has it); a run that ranks only some of the queries
      warns, one that ranks none is an error;
    * otherwise a ranker spec (``bm25``, ``[NAME=]ql:mu=1000``, ``minilm``, ...; with ``index``
      or ``analyzer`` for lexical rankers) scoring the dataset's candidates.
    """
    import warnings

    from axiomatic.data.runs import (
        base_of_dataset,
        dataset_with_documents,
        is_run_argument,
        read_runs,
        split_run_name,
    )
    from axiomatic.rankers.base import rerank as score_candidates
    from axiomatic.rankers.registry import make_ranker, parse_ranker_spec

    if base is None:
        base = default_base(dataset)
    given, spec = split_run_name(base)
    if spec.strip().lower() == "dataset":
        label, run = base_of_dataset(dataset)
        return BaseRanking(given or label, run, dataset, "dataset")
    value = base
    is_run = is_run_argument(base, data_root)
    if not is_run and spec.startswith("run:"):
        kind, params = parse_ranker_spec(spec)
        if kind == "run":
            is_run = True
            path = str(params["path"])
            value = f"{given}={path}" if given else path
    if not is_run:
        ranker = make_ranker(base, dataset, index=index, analyzer=analyzer)
        return BaseRanking(ranker.name, score_candidates(ranker, dataset), dataset, "ranker")
    named = read_runs([value], data_root=data_root, skip_malformed=skip_malformed, option=option)[0]
    run = {q: v for q, v in named.run.items() if q in dataset.queries}
    if not run:
        raise ValueError(
            f"{option} {base!r} ranks none of the {len(dataset.queries)} queries of dataset "
            f"{dataset.name!r} ({len(named.run)} other queries); is it a run of another dataset?"
        )
    if len(run) < len(dataset.queries):
        warnings.warn(
            f"{option} {base!r} ranks {len(run)} of the {len(dataset.queries)} queries of "
            f"{dataset.name}; the others stay empty",
            UserWarning,
            stacklevel=2,
        )
    with_docs, added = dataset_with_documents(dataset, run, depth, option, data_root)
    return BaseRanking(named.name, run, with_docs, "run", added)


# ------------------------------------------------------------------------- a whole re-ranking
def check_rerank_options(
    aggregation: str,
    order: str,
    *,
    weights: Any = None,
    train: Any = None,
    train_run: Any = None,
    imitate: Any = None,
) -> None:
    """Refuse impossible combinations of :func:`rerank_from_base`'s options before any data is
    loaded, naming the command's options (``--order``, ``--weights``, ...)."""
    if order not in ORDERS:
        raise ValueError(
            f"unknown --order {order!r}{suggest(order, ORDERS)}; expected one of {', '.join(ORDERS)}"
        )
    if aggregation not in AGGREGATIONS:
        raise ValueError(
            f"unknown --aggregation {aggregation!r}{suggest(aggregation, AGGREGATIONS)}; "
            f"expected one of {', '.join(AGGREGATIONS)}"
        )
    if weights is not None and aggregation != "weighted":
        raise ValueError("--weights is for --aggregation weighted")
    if aggregation == "weighted" and weights is None:
        raise ValueError(
            "--aggregation weighted needs --weights, e.g. --weights 'TFC1=2,M-TDC=1' "
            "(one weight per pairwise axiom; unnamed ones weigh 1)"
        )
    if train_run is not None and aggregation != "learned":
        raise ValueError("--train-run is for --aggregation learned (with --train-dataset)")
    if imitate is not None and aggregation != "learned":
        raise ValueError("--imitate is for --aggregation learned (with --train-dataset)")
    if aggregation == "learned" and train is None:
        raise ValueError(
            "--aggregation learned needs --train-dataset NAME (a dataset with qrels to "
            "fit the axiom weights on), e.g. --train-dataset msmarco-dev-top20/train"
        )


@dataclass
class Reranking:
    """What :func:`rerank_from_base` did."""

    run: Run
    """The re-ranked run."""
    base: BaseRanking
    """The base ranking (its ``dataset`` holds the documents a base run brought)."""
    index: CollectionIndex
    """The index the axioms read (its analyzer is the re-ranking's)."""
    weights: list[float] | None = None
    """The axiom weights (given, or learned)."""
    combination: Axiom | None = None
    """The learned weights as an axiom spec, reusable as ``--axioms``."""
    train_run: Run | None = None
    """The base run of the training dataset (learned weights)."""


def _resolve_base(
    dataset: Dataset, base: str, depth: int, index: Any, analyzer: Any, data_root: Any,
    skip_malformed: bool | None, option: str, echo: Any,
) -> BaseRanking:  # fmt: skip
    try:
        resolved = base_ranking(
            dataset, base, depth=depth, index=index, analyzer=analyzer, data_root=data_root,
            skip_malformed=skip_malformed, option=option,
        )  # fmt: skip
    except (KeyError, ValueError, FileNotFoundError, ImportError) as exc:
        message = str(exc.args[0] if exc.args else exc)
        raise ValueError(
            message if message.startswith(option) else f"{option} {base!r}: {message}"
        ) from None
    if resolved.added and echo is not None:
        echo(
            f"note: {resolved.added} documents of the top {depth} of {option} {base} are "
            "outside the dataset's candidates; their text comes from the collection"
        )
    return resolved


def rerank_from_base(
    dataset: Dataset,
    axioms: Sequence[Axiom],
    base: str | None = None,
    *,
    depth: int = 20,
    aggregation: str = "majority",
    weights: Sequence[float] | None = None,
    order: str = "kwiksort",
    seed: int = 0,
    analyzer: Any = None,
    train: Dataset | None = None,
    train_run: str | None = None,
    imitate: str | None = None,
    train_label: str | None = None,
    data_root: Any = None,
    skip_malformed: bool | None = None,
    echo: Any = None,
) -> Reranking:
    """A whole axiomatic re-ranking as ``axiomatic rerank`` does it: the base ranking
    (:func:`base_ranking`; ``None``: :func:`default_base`), for ``aggregation="learned"`` the
    weights learned on ``train`` (its base: ``train_run``, a run argument, else ``base`` applied
    to it; ``imitate``: a run of ``train`` whose pairwise order the weights imitate instead of
    the qrels; ``train_label``: how messages name ``train``), then :func:`axiomatic_rerank`.
    ``echo`` receives one line per note. Errors name the command's options (``--base``)."""
    from axiomatic.data.runs import dataset_run
    from axiomatic.diagnose.inputs import imitate_run
    from axiomatic.index.cache import dataset_index

    check_rerank_options(
        aggregation, order, weights=weights, train=train, train_run=train_run, imitate=imitate
    )
    found = dataset_run(dataset) if base is None else None
    if found is not None and echo is not None:
        echo(
            f"note: base ranking: the run that defines {dataset.name} ({found[0]}); "
            "--base bm25 re-scores its candidates with the project's BM25 instead"
        )
    base = base if base is not None else default_base(dataset)
    index = dataset_index(dataset, analyzer=analyzer)
    resolved = _resolve_base(
        dataset, base, depth, index, None, data_root, skip_malformed, "--base", echo
    )
    if resolved.kind == "run" and aggregation == "learned" and train_run is None:
        raise ValueError(
            "--base is a run of this dataset; --aggregation learned also needs the base run "
            "of --train-dataset: pass it with --train-run FILE"
        )
    out = Reranking({}, resolved, index, list(weights) if weights is not None else None)
    extra: dict[str, Any] = {}
    if aggregation == "learned":
        assert train is not None  # checked above
        trained = _resolve_base(
            train,
            train_run if train_run is not None else base,
            depth,
            None,
            analyzer,
            data_root,
            skip_malformed,
            "--train-run" if train_run is not None else f"--base (on {train_label or train.name})",
            echo,
        )
        train, out.train_run = trained.dataset, trained.run
        target = imitate_run(imitate, train, skip_malformed=False) if imitate else None
        extra.update(train=train, train_run=out.train_run)
        if out.weights is None:  # learned once here (as axiomatic_rerank would) to name them
            pairwise = [a for a in axioms if a.arity == 2]
            learned = learn_weights(
                train,
                pairwise,
                out.train_run,
                depth,
                index=dataset_index(train, analyzer=index.analyzer),
                seed=seed,
                target=target,
            )
            out.combination = weighted_combination(learned, pairwise)
            out.weights = [float(w) for w in learned]
    out.run = axiomatic_rerank(
        resolved.dataset,
        axioms,
        resolved.run,
        depth=depth,
        aggregation=aggregation,
        seed=seed,
        index=index,
        order=order,
        weights=out.weights,
        **extra,
    )
    return out
