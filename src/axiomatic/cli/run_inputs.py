"""Inputs shared by the commands that take runs: ``NAME=PATH`` run arguments and their default
names, the text of documents a run brings from outside a dataset's candidates, and axiom
weights.

Names: a run is what tables, plots and CSVs call it. ``--run splade=runs/x.trec`` names it; a
run given as a bare path is named by its tag column when every line has the same tag, else by
its file name, else (same file names) by its folder: two rank_llm ``trec_results_dl19.txt``
files tagged ``rank`` become ``BM25`` and ``SPLADE_P_P_ENSEMBLE_DISTIL``, not a collision.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any

import typer

from axiomatic._suggest import suggest
from axiomatic.cli.common import fail

FirstStageOpt = Annotated[
    str | None,
    typer.Option(
        "--first-stage",
        help="Candidates from a first stage: the top --depth documents a lexical ranker "
        "(bm25, ql, rm3, tfidf) retrieves from the whole collection; for full-retrieval "
        "datasets such as scifact/test, e.g. --first-stage bm25 --depth 100.",
    ),
]
CandidatesOpt = Annotated[
    str | None,
    typer.Option(
        "--candidates",
        help="Candidates from a run: the top --depth documents per query of a TREC run file "
        "or a catalog system (trec-dl-2019/bm25); replaces the dataset's candidate lists.",
    ),
]

__all__ = [
    "NamedPath",
    "NamedRun",
    "base_of_dataset",
    "candidate_order_run",
    "catalog_run",
    "dataset_run",
    "dataset_with_documents",
    "first_stage_of_manifest",
    "parse_named_paths",
    "parse_weights",
    "read_named_runs",
    "record_first_stage",
    "with_first_stage",
]


@dataclass(frozen=True)
class NamedPath:
    name: str
    path: Path
    spec: str  # what the user typed (the legend maps name -> spec)


def _split(value: str) -> tuple[str | None, Path]:
    from axiomatic.rankers.registry import split_name

    if Path(value).expanduser().is_file():  # a path that holds '=' is still a path
        return None, Path(value).expanduser()
    name, rest = split_name(value)
    return name, Path(rest if name else value).expanduser()


def parse_named_paths(
    values: list[str], option: str = "--run", tag_names: bool = True
) -> list[NamedPath]:
    """``[NAME=]PATH`` arguments as named paths (files checked). A missing file fails with the
    close matches in its folder.

    Default names, first that tells the unnamed runs apart: the tag column (when each run has
    one tag), the file name, the parent folder's name (``BM25`` for
    ``rank_llm/BM25/trec_results_dl19.txt``), then the path with as many parent folders as
    needed; a ``-2`` suffix only as the last resort."""
    parsed: list[tuple[str | None, Path, str]] = []
    for value in values:
        name, path = _split(value)
        if not path.is_file():
            siblings = sorted(p.name for p in path.parent.glob("*")) if path.parent.is_dir() else []
            what = "is a folder" if path.is_dir() else "does not exist"
            raise fail(
                f"{option} {value!r}: file {path}{suggest(path.name, siblings)} {what}; "
                "expected [NAME=]PATH of a TREC run"
            )
        parsed.append((name, path, value))
    given = [n for n, _, _ in parsed if n is not None]
    for n in given:
        if given.count(n) > 1:
            raise fail(f"{option}: the name {n!r} is given to two runs")
    bare = [(i, path) for i, (n, path, _) in enumerate(parsed) if n is None]
    defaults: dict[int, str] = {}
    if bare:
        levels: list[list[str]] = []
        if tag_names:
            from axiomatic.data.trec import run_tag

            tags = [run_tag(path) for _, path in bare]
            if all(tags):
                levels.append([str(t) for t in tags])
        depth = max(len(path.resolve().parts) for _, path in bare)
        levels.append([path.name for _, path in bare])
        levels.append([path.resolve().parent.name or path.name for _, path in bare])
        for k in range(2, depth + 1):
            levels.append(["/".join(path.resolve().parts[-k:]) for _, path in bare])
        for names in levels:
            if len(set(names)) == len(names) and not set(names) & set(given):
                defaults = {i: names[j] for j, (i, _) in enumerate(bare)}
                break
        else:  # the same file twice
            defaults = {i: path.name for i, path in bare}
    out: list[NamedPath] = []
    used: set[str] = set()
    for i, (name, path, value) in enumerate(parsed):
        name = name if name is not None else defaults[i]
        base, k = name, 2
        while name in used:
            name, k = f"{base}-{k}", k + 1
        used.add(name)
        out.append(NamedPath(name, path, value))
    return out


def parse_weights(text: str, axioms: list[Any]) -> list[float]:
    """``--weights`` as one float per pairwise axiom: ``"2,1,0.5"`` (axiom order) or
    ``"TFC1=2,M-TDC=1"`` (unnamed axioms get 1)."""
    from axiomatic.evaluate.metrics import split_measure_string

    names = [a.name for a in axioms]
    items = split_measure_string(text)
    if not items:
        raise fail(f"--weights {text!r} is empty; expected e.g. '2,1' or 'TFC1=2,M-TDC=1'")
    if all("=" in it for it in items):
        weights = dict.fromkeys(names, 1.0)
        for it in items:
            key, _, val = it.partition("=")
            key = key.strip()
            if key not in weights:
                raise fail(
                    f"--weights: {key!r}{suggest(key, names)} is not one of the pairwise "
                    f"--axioms ({', '.join(names)})"
                )
            weights[key] = _number(val, it)
        return [weights[n] for n in names]
    if any("=" in it for it in items):
        raise fail(f"--weights {text!r}: give either all weights by name or none by name")
    if len(items) != len(names):
        raise fail(
            f"--weights {text!r} gives {len(items)} weights for {len(names)} pairwise axioms "
            f"({', '.join(names)}); give one per axiom, or name them: "
            f"{','.join(f'{n}=1' for n in names)}"
        )
    return [_number(it, it) for it in items]


def _number(text: str, item: str) -> float:
    import math

    try:
        value = float(text)
    except ValueError:
        raise fail(f"--weights: {item!r} is not a number") from None
    if not math.isfinite(value):
        raise fail(f"--weights: {item!r} must be finite")
    return value


def _lookup_collection(ds: Any, ids: set[str], data_root: Path | None) -> dict[str, Any]:
    """Texts of ``ids`` from the collection behind ``ds``: an ir_datasets docs store, or the
    catalog's ``<collection>/union`` dataset (every system's candidates with their text)."""
    found: dict[str, Any] = {}
    irds_id = (ds.metadata or {}).get("irds_id")
    if irds_id:
        try:
            import ir_datasets

            from axiomatic.data.records import Document

            store = ir_datasets.load(irds_id).docs_store()
            for did, doc in store.get_many(ids).items():
                text = getattr(doc, "text", None) or getattr(doc, "body", "")
                found[did] = Document(did, " ".join(str(text).split()))
        except Exception:  # no local docs store: the caller reports the ids
            pass
    name = str(ds.name)
    if "/" in name and ids - found.keys():
        from axiomatic.data.catalog import dataset_names, load_dataset

        union = name.rsplit("/", 1)[0] + "/union"
        if union != name and union in dataset_names():
            try:
                docs = load_dataset(union, data_root=data_root).documents
            except (KeyError, FileNotFoundError, ValueError):
                docs = {}
            found.update({d: docs[d] for d in ids - found.keys() if d in docs})
    return found


def dataset_with_documents(
    ds: Any, run: dict[str, dict[str, float]], depth: int, option: str, data_root: Path | None
) -> tuple[Any, int]:
    """``ds`` with the text of every document among the top ``depth`` of ``run`` that its
    candidates lack (looked up in the collection); ``(ds, 0)`` when none is missing.

    Documents no source knows are an error naming how many and which, never a ``KeyError``.
    """
    missing: set[str] = set()
    for qid, scores in run.items():
        if qid not in ds.queries:
            continue
        head = sorted(scores.items(), key=lambda kv: (-kv[1], kv[0]))[:depth]
        missing.update(d for d, _ in head if d not in ds.documents)
    if not missing:
        return ds, 0
    found = _lookup_collection(ds, missing, data_root)
    still = sorted(missing - found.keys())
    if still:
        raise fail(
            f"{option}: {len(still)} of the {len(missing)} documents the run ranks in its top "
            f"{depth} outside dataset {ds.name!r}'s candidates have no text there or in its "
            f"collection (e.g. {', '.join(still[:5])}). Re-rank a dataset whose documents "
            "include them (e.g. a '<collection>/union' dataset, or an irds: dataset with a "
            "local docs store), or use a run of this dataset's candidates"
        )
    from dataclasses import replace

    docs = dict(ds.documents)
    docs.update(found)
    return replace(ds, documents=docs), len(found)


# ------------------------------------------------------------------ runs that define datasets
def dataset_run(ds: Any) -> tuple[str, dict[str, dict[str, float]]] | None:
    """The one run that defines ``ds``'s candidate lists, as ``(system name, run)``: the
    catalog's ``trec-dl-2019/bm25`` (Anserini's BM25 run, with its scores), a rank_llm file, a
    descriptor's run. ``None`` when the dataset records no run, or several (a ``union``)."""
    meta = ds.metadata if isinstance(getattr(ds, "metadata", None), dict) else {}
    runs = meta.get("runs")
    if isinstance(runs, dict) and len(runs) == 1:
        name, run = next(iter(runs.items()))
        systems = meta.get("systems")
        if isinstance(systems, list) and len(systems) == 1:
            name = systems[0]
    elif isinstance(meta.get("run"), dict):
        name, run = str(ds.name).rsplit("/", 1)[-1], meta["run"]
    else:
        return None
    if not isinstance(run, dict) or not run:
        return None
    return str(name), {q: dict(v) for q, v in run.items() if q in ds.queries}


def candidate_order_run(ds: Any) -> dict[str, dict[str, float]]:
    """The dataset's candidate lists as a run: score ``n - rank`` (the list's own order)."""
    if ds.candidates is None:
        raise fail(
            f"dataset {ds.name!r} has no candidate lists: 'dataset' as a base ranking needs a "
            "re-ranking dataset (or --first-stage / --candidates)"
        )
    return {
        q: {d: float(len(c) - i) for i, d in enumerate(c)}
        for q, c in ds.candidates.items()
        if q in ds.queries
    }


def base_of_dataset(ds: Any) -> tuple[str, dict[str, dict[str, float]]]:
    """``--base dataset``: the run that defines the dataset when it has one (its scores and
    order), else its candidate order. Returns ``(label, run)``."""
    found = dataset_run(ds)
    if found is not None:
        return found
    return f"{ds.name} candidate order", candidate_order_run(ds)


@dataclass(frozen=True)
class NamedRun:
    """A run given by the user: read from a file, or a catalog system's run."""

    name: str
    run: dict[str, dict[str, float]]
    source: str  # the file path, or the catalog name ("trec-dl-2019/splade-pp")
    path: Path | None = None


def catalog_run(
    value: str, data_root: Path | None, option: str = "--run"
) -> tuple[str | None, str, dict[str, dict[str, float]]] | None:
    """``[NAME=]trec-dl-2019/splade-pp``: a catalog dataset defined by one system's run, as
    ``(given name or None, catalog name, run)``; ``None`` when ``value`` is not a catalog name
    (a file path, which wins when both exist)."""
    from axiomatic.rankers.registry import split_name

    if Path(value).expanduser().exists():
        return None
    given, rest = split_name(value)
    target = (rest if given else value).strip()
    if "/" not in target or Path(target).expanduser().exists():
        return None
    from axiomatic.data.catalog import dataset_names

    names = dataset_names(data_root)
    if target not in names:
        return None
    from axiomatic.cli.collection_cmds import load_dataset_cli

    ds = load_dataset_cli(target, data_root)
    found = dataset_run(ds)
    if found is None:
        systems = [n for n in names if n.startswith(target.rsplit("/", 1)[0] + "/")]
        raise fail(
            f"{option} {value!r}: catalog dataset {target!r} is not defined by one system's run "
            f"(a union of several, or no run); name one system, e.g. {', '.join(systems[:4])}"
        )
    return given, target, found[1]


def read_named_runs(
    values: list[str],
    option: str = "--run",
    data_root: Path | None = None,
    skip_malformed: bool = False,
) -> list[NamedRun]:
    """``--run`` values as named runs, in the order given: ``[NAME=]PATH`` files (named as
    :func:`parse_named_paths` does) and ``[NAME=]<collection>/<system>`` catalog systems (named
    by the system's short name, ``splade-pp`` for ``trec-dl-2019/splade-pp``)."""
    from axiomatic.cli.collection_cmds import read_run_cli

    catalog: dict[int, tuple[str | None, str, dict[str, dict[str, float]]]] = {}
    files: list[tuple[int, str]] = []
    for i, value in enumerate(values):
        found = catalog_run(value, data_root, option)
        if found is None:
            files.append((i, value))
        else:
            catalog[i] = found
    parsed = dict(
        zip(
            (i for i, _ in files),
            parse_named_paths([v for _, v in files], option) if files else [],
            strict=True,
        )
    )
    out: list[NamedRun] = []
    used: set[str] = set()
    for i in range(len(values)):
        if i in catalog:
            given, target, run = catalog[i]
            name, source, path = given or target.rsplit("/", 1)[-1], target, None
        else:
            item = parsed[i]
            run = read_run_cli(item.path, skip_malformed)
            name, source, path = item.name, str(item.path), item.path
        base, k = name, 2
        while name in used:
            name, k = f"{base}-{k}", k + 1
        used.add(name)
        out.append(NamedRun(name, run, source, path))
    return out


def with_first_stage(
    ds: Any,
    *,
    first_stage: str | None,
    candidates: str | None,
    depth: int,
    analyzer: Any = None,
    data_root: Path | None = None,
    skip_malformed: bool = False,
) -> Any:
    """``ds`` with candidate lists from a first stage: the top ``depth`` of ``--first-stage
    SPEC`` (a lexical ranker retrieving from the whole collection, e.g. ``bm25``) or of
    ``--candidates RUN`` (a run file or a catalog system). ``ds`` itself when neither is given.

    This is how a model trained on ``scifact/train`` is evaluated and diagnosed on
    ``scifact/test`` (a full-retrieval dataset): ``--first-stage bm25 --depth 100``.
    """
    if first_stage is None and candidates is None:
        return ds
    if first_stage is not None and candidates is not None:
        raise fail("give --first-stage SPEC or --candidates RUN, not both")
    from dataclasses import replace

    if candidates is not None:
        run = read_named_runs([candidates], "--candidates", data_root, skip_malformed)[0].run
        label = f"--candidates {candidates} top {depth}"
    else:
        from axiomatic._progress import track
        from axiomatic.rankers.registry import make_ranker

        assert first_stage is not None  # one of the two is given
        try:
            ranker = make_ranker(first_stage, replace(ds, candidates=None), analyzer=analyzer)
        except (KeyError, ValueError, FileNotFoundError, ImportError) as exc:
            raise fail(
                f"bad --first-stage {first_stage!r}: {exc.args[0] if exc.args else exc}"
            ) from None
        retrieve = getattr(ranker, "retrieve", None)
        if retrieve is None:
            raise fail(
                f"--first-stage {first_stage!r}: {ranker.name} cannot retrieve from the whole "
                "collection; use a lexical ranker (bm25, ql, rm3, tfidf), or give the "
                "candidates as a run with --candidates RUN"
            )
        run = {}
        for q in track(list(ds.iter_queries()), description=f"first stage {ranker.name}"):
            run[q.query_id] = dict(retrieve(q, depth))
        label = f"--first-stage {first_stage} top {depth}"
    cands: dict[str, list[str]] = {}
    for qid in ds.queries:
        ranked = sorted(run.get(qid, {}).items(), key=lambda kv: (-kv[1], kv[0]))[:depth]
        cands[qid] = [d for d, _ in ranked]
    if not any(cands.values()):
        raise fail(
            f"{label.split(' top ')[0]}: no candidates for any of the {len(ds.queries)} "
            f"queries of {ds.name!r}; is it a run of another dataset?"
        )
    meta = dict(ds.metadata) if isinstance(ds.metadata, dict) else {}
    meta["first_stage"] = label
    ds2, _ = dataset_with_documents(
        replace(ds, candidates=cands, metadata=meta),
        {q: {d: float(len(c) - i) for i, d in enumerate(c)} for q, c in cands.items()},
        depth,
        label.split(" top ")[0].split(" ")[0],
        data_root,
    )
    return ds2


FIRST_STAGE_KEY = "first_stage"
"""Manifest key (outside ``config``) recording the first stage ``mine`` drew its candidates
from, so that ``diagnose`` rebuilds the same candidate lists."""


def record_first_stage(
    folder: Path, first_stage: str | None, candidates: str | None, depth: int, analyzer: Any
) -> None:
    """After ``mine --first-stage/--candidates``: note them in ``folder/manifest.json``."""
    if first_stage is None and candidates is None:
        return
    import json

    from axiomatic._atomic import atomic_write_text

    manifest = folder / "manifest.json"
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
