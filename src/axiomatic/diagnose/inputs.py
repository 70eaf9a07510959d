"""What a diagnosis, an evaluation or a re-ranking starts from, assembled as the commands do it.

The commands only parse their options and print; what they assemble is here, for Python too:

* rankers and run files by display name (:func:`make_rankers`: ``NAME=SPEC``, run arguments,
  short names for tables and plots, the legend of what was typed);
* ``--axioms`` / ``--variant`` / ``--weights`` / ``--measure`` values (:func:`axiom_list`,
  :func:`parse_axiom_option`, :func:`kept_default_variant`, :func:`parse_weights`,
  :func:`correlation_measure`);
* candidate lists from a first stage (:func:`with_first_stage`) and what ``mine`` records of it
  (:func:`record_first_stage`, :func:`first_stage_of_manifest`);
* the scores of a neural ranker's effectiveness run reused by its diagnosis
  (:class:`RunScores`); the ``--imitate`` run of a learned re-ranking (:func:`imitate_run`).

Errors are ``ValueError`` (or ``KeyError`` / ``FileNotFoundError``) with one line naming the
option, the value and the fix, as the commands print them.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from axiomatic._suggest import suggest

VARIANTS = ("strict", "extended", "relaxed")
"""The axiom variants ``--variant`` takes."""

SHORT_NAME = 24
"""Longest ranker name shown as is in tables and plots; longer ones are shortened and the
legend maps them to their spec."""

FIRST_STAGE_KEY = "first_stage"
"""Manifest key (outside ``config``) recording the first stage ``mine`` drew its candidates
from, so that ``diagnose`` rebuilds the same candidate lists."""


# ------------------------------------------------------------------------------- axioms
def axiom_list(text: str) -> str:
    """``--axioms`` with the separators ``--measures`` accepts (commas and/or spaces outside
    parentheses) as the comma-separated list the axiom parser reads; a comma-separated item
    that combines axioms (``"TFC1 & LNC1"``, see ``axioms/algebra.py``) stays whole, spaces
    included."""
    from axiomatic._keyvalue import split_top_level
    from axiomatic.axioms.algebra import is_expression
    from axiomatic.evaluate.metrics import split_measure_string

    try:
        items = split_top_level(text)
    except ValueError:
        return ",".join(split_measure_string(text))  # the parser reports the imbalance
    out: list[str] = []
    for item in items:
        words = [item] if is_expression(item) else split_measure_string(item)
        for word in words[1:-1]:
            if word.lower() == "and":  # the AND axiom, though the user meant a connective
                rest = [w for w in words if w.lower() != "and"]
                also = dict.fromkeys("AND" if w.lower() == "and" else w for w in words)
                raise ValueError(
                    f"{word!r} between axioms in {item!r} would be mined as one more axiom (the "
                    f"AND axiom), not read as a connective: list the axioms with commas "
                    f"({','.join(rest)!r}), combine them with an operator "
                    f"({' & '.join(rest)!r}), or, to mine the AND axiom too, name it in a "
                    f"comma-separated list ({','.join(also)!r})"
                )
        out += words
    return ",".join(out)


def check_variant(variant: str | None, option: str = "--variant") -> str | None:
    """``variant`` when it is one of :data:`VARIANTS` (or ``None``), else a ``ValueError``."""
    if variant is not None and variant not in VARIANTS:
        raise ValueError(
            f"unknown {option} {variant!r}{suggest(variant, VARIANTS)}; "
            f"expected one of {', '.join(VARIANTS)}"
        )
    return variant


def parse_axiom_option(
    text: str, variant: str | None = None, option: str = "--axioms"
) -> list[Any]:
    """The document axioms of an ``--axioms`` value (:func:`axiom_list`'s separators);
    ``variant`` (``--variant``) applies to every axiom whose string does not set its own
    (decided on the parsed parameters, not the text)."""
    from axiomatic.axioms import parse_axioms

    default = check_variant(variant)
    try:
        return parse_axioms(axiom_list(text), default_variant=default, relates="documents")
    except (KeyError, ValueError, SyntaxError) as exc:
        raise ValueError(f"bad {option} {text!r}: {exc.args[0] if exc.args else exc}") from None


def kept_default_variant(axioms: Sequence[Any], variant: str | None) -> list[Any]:
    """The axioms (leaves of combinations included) that lack the global ``--variant`` and so
    kept their own default: the user asked for it and should see where it did not apply."""
    if variant is None:
        return []
    from axiomatic.axioms.spec import leaves

    seen: dict[str, Any] = {}
    for a in axioms:
        for leaf in leaves(a):
            if variant not in leaf.definition.variants:
                seen.setdefault(leaf.name, leaf)
    return list(seen.values())


def parse_weights(text: str, axioms: Sequence[Any], option: str = "--weights") -> list[float]:
    """``--weights`` as one float per pairwise axiom: ``"2,1,0.5"`` (axiom order) or
    ``"TFC1=2,M-TDC=1"`` (unnamed axioms get 1)."""
    from axiomatic.evaluate.metrics import split_measure_string

    names = [a.name for a in axioms]
    items = split_measure_string(text)
    if not items:
        raise ValueError(f"{option} {text!r} is empty; expected e.g. '2,1' or 'TFC1=2,M-TDC=1'")
    if all("=" in it for it in items):
        weights = dict.fromkeys(names, 1.0)
        for it in items:
            key, _, val = it.partition("=")
            key = key.strip()
            if key not in weights:
                raise ValueError(
                    f"{option}: {key!r}{suggest(key, names)} is not one of the pairwise "
                    f"--axioms ({', '.join(names)})"
                )
            weights[key] = _weight(val, it, option)
        return [weights[n] for n in names]
    if any("=" in it for it in items):
        raise ValueError(f"{option} {text!r}: give either all weights by name or none by name")
    if len(items) != len(names):
        raise ValueError(
            f"{option} {text!r} gives {len(items)} weights for {len(names)} pairwise axioms "
            f"({', '.join(names)}); give one per axiom, or name them: "
            f"{','.join(f'{n}=1' for n in names)}"
        )
    return [_weight(it, it, option) for it in items]


def _weight(text: str, item: str, option: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise ValueError(f"{option}: {item!r} is not a number") from None
    if not math.isfinite(value):
        raise ValueError(f"{option}: {item!r} must be finite")
    return value


def correlation_measure(measure: str, measures: str) -> tuple[str, str]:
    """``measure`` under its ir_measures name, and ``measures`` with it added if missing."""
    from axiomatic.evaluate.metrics import parse_measures

    name = str(parse_measures(measure)[0])
    if name not in {str(m) for m in parse_measures(measures)}:
        measures = f"{measures} {name}"
    return name, measures


# ------------------------------------------------------------------------------ rankers
def short_name(name: str, spec: str) -> str:
    """A table/plot label for ``name``: itself when short, else the last part of a path spec
    (``model:/long/path/knrm-ar/model`` -> ``knrm-ar/model``) or a cut with an ellipsis."""
    if len(name) <= SHORT_NAME:
        return name
    from axiomatic.rankers.registry import parse_ranker_spec

    try:
        params = parse_ranker_spec(spec)[1]
    except ValueError:
        params = {}
    if "path" in params:
        parts = Path(params["path"]).parts
        tail = "/".join(parts[-2:]) if len(parts) > 1 else parts[-1]
        return tail if len(tail) <= SHORT_NAME else "…" + tail[-(SHORT_NAME - 1) :]
    return name[: SHORT_NAME - 1] + "…"


@dataclass
class NamedRankers:
    """Rankers by display name (:func:`make_rankers`)."""

    rankers: dict[str, Any]
    legend: dict[str, str] = field(default_factory=dict)
    """Display name -> what the user typed (a spec, ``run:PATH`` or a catalog system)."""
    full_names: dict[str, str] = field(default_factory=dict)
    """Shortened display name -> the ranker's full name (for the CSVs)."""

    def baseline(self, name: str | None, option: str = "--baseline") -> str | None:
        """``name`` as one of the display names: itself, or the one ranker whose typed spec
        it is (``-r ql`` -> ``ql``); ``None`` stays ``None``. A ``ValueError`` otherwise."""
        if name is None or name in self.rankers:
            return name
        typed = [n for n, s in self.legend.items() if name in (s, s.removeprefix("run:"))]
        if len(typed) == 1:
            return typed[0]
        raise ValueError(
            f"{option} {name!r}{suggest(name, self.rankers)} is not one of the rankers "
            f"and runs ({', '.join(self.rankers)}); give a name as shown in the table"
        )


def make_rankers(
    specs: Sequence[str],
    runs: Sequence[str],
    dataset: Any,
    analyzer: Any = None,
    *,
    data_root: Path | None = None,
    skip_malformed: bool = False,
    shorten: bool = True,
    option: str = "--ranker",
    run_option: str = "--run",
) -> NamedRankers:
    """The rankers of ``specs`` (``[NAME=]SPEC``, through the ranker registry) and the run
    files of ``runs`` (run arguments: files, ``-``, catalog systems such as
    ``trec-dl-2019/splade-pp``) by display name. ``shorten``: names longer than
    :data:`SHORT_NAME` are cut for tables and plots (the legend keeps the spec, ``full_names``
    the full name); ``evaluate`` keeps them whole. Runs are read now: a malformed line fails
    before any work."""
    from axiomatic.data.runs import read_runs
    from axiomatic.rankers.registry import make_ranker, split_name, with_name
    from axiomatic.rankers.runfile import RunFileRanker

    out = NamedRankers({})
    for spec in specs:
        try:
            r = make_ranker(spec, dataset, analyzer=analyzer)
        except (KeyError, ValueError, FileNotFoundError, ImportError) as exc:
            raise ValueError(f"bad {option} {spec!r}: {exc.args[0] if exc.args else exc}") from None
        given, bare = split_name(spec)
        if given is not None:
            if given in out.rankers:
                raise ValueError(f"{option} {spec!r}: the name {given!r} is already used")
            name = given
        else:
            name = short_name(r.name, bare) if shorten else r.name
            name = _free_name(name, out.rankers)
            if name != r.name:
                if shorten:
                    out.full_names[name] = r.name
                r = with_name(r, name)
        out.rankers[name] = r
        out.legend[name] = spec if given is None else bare
    named = read_runs(
        list(runs), data_root=data_root, skip_malformed=skip_malformed, option=run_option
    )
    for item in named:
        name = _free_name(item.name, out.rankers)
        out.rankers[name] = RunFileRanker(item.run, name=name)  # NaN where it lacks a document
        out.legend[name] = f"run:{item.path}" if item.path is not None else item.source
    return out


def _free_name(name: str, taken: Any) -> str:
    base, k = name, 2
    while name in taken:
        name, k = f"{base}-{k}", k + 1
    return name


def uses_analyzer(ranker: Any) -> bool:
    """Whether ``ranker`` analyzes text with the command's analyzer (the lexical rankers,
    which score through the dataset's index); a neural model or a run file does not."""
    from axiomatic.index.collection import CollectionIndex

    return isinstance(getattr(ranker, "index", None), CollectionIndex)


def is_neural(ranker: Any) -> bool:
    """Whether ``ranker`` scores with a neural model (a ``model`` attribute), the expensive
    scoring that :class:`RunScores` does once."""
    return getattr(ranker, "model", None) is not None and not callable(
        getattr(ranker, "both_orders", None)
    )


def run_of(ranker: Any) -> dict[str, dict[str, float]] | None:
    """The run a run-file ranker holds (``None`` for a ranker that scores)."""
    run = getattr(ranker, "run", None)
    return None if run is None or callable(run) else run


class RunScores:
    """A neural ranker as the diagnosis sees it after its effectiveness run was scored: the
    real documents of that run take their scores from it (the same numbers, not a second pass
    of the model over the same pairs), and only the others (artificial documents, documents
    outside the candidate lists) are scored with the model, in one batched call."""

    def __init__(self, ranker: Any, run: dict[str, dict[str, float]]) -> None:
        self.ranker = ranker
        self.known = run
        self.name = ranker.name
        self.can_score_unseen_documents = getattr(ranker, "can_score_unseen_documents", True)

    def score(self, query: Any, documents: Any) -> Any:
        return self.score_lists([(query, documents)])[0]

    def score_lists(self, lists: Any) -> list[Any]:
        import numpy as np

        from axiomatic.rankers.base import score_lists

        out, todo, where = [], [], []
        for i, (q, docs) in enumerate(lists):
            known = self.known.get(q.query_id, {})
            s = np.array([known.get(d.doc_id, np.nan) for d in docs], dtype=np.float64)
            missing = [j for j, d in enumerate(docs) if d.doc_id not in known]
            if missing:
                todo.append((q, [docs[j] for j in missing]))
                where.append((i, missing))
            out.append(s)
        if todo:
            for (i, missing), got in zip(where, score_lists(self.ranker, todo), strict=True):
                out[i][missing] = got
        return out


# --------------------------------------------------------------------------- first stage
def with_first_stage(
    dataset: Any,
    *,
    first_stage: str | None,
    candidates: str | None,
    depth: int,
    analyzer: Any = None,
    data_root: Path | None = None,
    skip_malformed: bool = False,
) -> Any:
    """``dataset`` with candidate lists from a first stage: the top ``depth`` of
    ``first_stage`` (a lexical ranker spec retrieving from the whole collection, e.g.
    ``bm25``) or of ``candidates`` (a run argument: a run file or a catalog system).
    ``dataset`` itself when neither is given.

    This is how a model trained on ``scifact/train`` is evaluated and diagnosed on
    ``scifact/test`` (a full-retrieval dataset): ``--first-stage bm25 --depth 100``.
    """
    if first_stage is None and candidates is None:
        return dataset
    if first_stage is not None and candidates is not None:
        raise ValueError("give --first-stage SPEC or --candidates RUN, not both")
    from axiomatic.data.runs import dataset_with_documents, read_runs

    if candidates is not None:
        run = read_runs(
            [candidates], data_root=data_root, skip_malformed=skip_malformed, option="--candidates"
        )[0].run
        label = f"--candidates {candidates} top {depth}"
    else:
        from axiomatic._progress import track
        from axiomatic.rankers.registry import make_ranker

        try:
            assert first_stage is not None  # one of the two is given
            ranker = make_ranker(first_stage, replace(dataset, candidates=None), analyzer=analyzer)
        except (KeyError, ValueError, FileNotFoundError, ImportError) as exc:
            raise ValueError(
                f"bad --first-stage {first_stage!r}: {exc.args[0] if exc.args else exc}"
            ) from None
        retrieve = getattr(ranker, "retrieve", None)
        if retrieve is None:
            raise ValueError(
                f"--first-stage {first_stage!r}: {ranker.name} cannot retrieve from the whole "
                "collection; use a lexical ranker (bm25, ql, rm3, tfidf), or give the "
                "candidates as a run with --candidates RUN"
            )
        run = {}
        for q in track(list(dataset.iter_queries()), description=f"first stage {ranker.name}"):
            run[q.query_id] = dict(retrieve(q, depth))
        label = f"--first-stage {first_stage} top {depth}"
    cands: dict[str, list[str]] = {}
    for qid in dataset.queries:
        ranked = sorted(run.get(qid, {}).items(), key=lambda kv: (-kv[1], kv[0]))[:depth]
        cands[qid] = [d for d, _ in ranked]
    if not any(cands.values()):
        raise ValueError(
            f"{label.split(' top ')[0]}: no candidates for any of the {len(dataset.queries)} "
            f"queries of {dataset.name!r}; is it a run of another dataset?"
        )
    meta = dict(dataset.metadata) if isinstance(dataset.metadata, dict) else {}
    meta["first_stage"] = label
    staged, _ = dataset_with_documents(
        replace(dataset, candidates=cands, metadata=meta),
        {q: {d: float(len(c) - i) for i, d in enumerate(c)} for q, c in cands.items()},
        depth,
        label.split(" top ")[0].split(" ")[0],
        data_root,
    )
    return staged


def record_first_stage(
    folder: Path, first_stage: str | None, candidates: str | None, depth: int, analyzer: Any
) -> None:
    """After mining with a first stage: note it in the folder's manifest."""
    if first_stage is None and candidates is None:
        return
    import json

    from axiomatic._atomic import atomic_write_text
    from axiomatic.data.instances import manifest_path

    manifest = manifest_path(folder)
    try:
        data = json.loads(manifest.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return
    if candidates is not None and Path(candidates).expanduser().exists():
        candidates = str(Path(candidates).expanduser().resolve())
    data[FIRST_STAGE_KEY] = {
        "first_stage": first_stage,
        "candidates": candidates,
        "depth": depth,
        "analyzer": analyzer.spec,
    }
    atomic_write_text(manifest, json.dumps(data, indent=2))


def first_stage_of_manifest(manifest: dict[str, Any]) -> dict[str, Any] | None:
    """The first stage ``mine`` recorded (``None`` when the candidates were the dataset's)."""
    info = manifest.get(FIRST_STAGE_KEY)
    return info if isinstance(info, dict) and isinstance(info.get("depth"), int) else None


# ------------------------------------------------------------------------------- imitate
def imitate_run(
    value: str, train: Any, option: str = "--imitate", skip_malformed: bool | None = None
) -> dict[str, dict[str, float]]:
    """The ``--imitate`` run (a run argument, ``run:`` allowed), restricted to ``train``'s
    queries: the learned weights imitate its pairwise order (``learn_weights(target=)``). A
    run of another dataset is refused here, not later as "no training pairs"."""
    from axiomatic.data.runs import read_runs

    name, sep, rest = value.partition("=run:")
    value = f"{name}={rest}" if sep else value.removeprefix("run:")
    item = read_runs([value], option=option, skip_malformed=skip_malformed)[0]
    run = item.run
    matched = {q: v for q, v in run.items() if q in train.queries}
    if not matched:
        raise ValueError(
            f"{option} {item.source} ranks none of the {len(train.queries)} queries of "
            f"--train-dataset {train.name!r} ({len(run)} other queries, e.g. "
            f"{', '.join(sorted(run)[:3])}); pass a run of the training dataset"
        )
    return matched
