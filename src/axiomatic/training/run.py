"""One-call training from a :class:`TrainConfig`: load data, build the model, fit, save."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from axiomatic.training.checkpoint import write_json
from axiomatic.training.config import TrainConfig
from axiomatic.training.trainer import Trainer, TrainResult


def build_model_for(cfg: TrainConfig, texts: list[str]) -> Any:
    """``axiomatic.models.build_model`` with the vocabulary built from ``texts`` for word models."""
    from axiomatic.models import build_model
    from axiomatic.models.io import is_word_model

    if is_word_model(cfg.model):
        return build_model(cfg.model, texts=texts, seed=cfg.seed, **cfg.model_config)
    return build_model(cfg.model, seed=cfg.seed, **cfg.model_config)


def finished_run(cfg: TrainConfig, out_dir: str | Path) -> TrainResult | None:
    """What ``out_dir`` holds, checked before any data is loaded: ``None`` when it has no
    checkpoint or an unfinished one (resumed by the trainer, which then also compares the data
    fingerprint); a ``ValueError`` naming what differs when its checkpoint was written with
    another configuration; and for a finished run with this configuration its result, read
    from ``metrics.json`` and ``log.jsonl`` with ``reused=True`` (:func:`train_model` reuses it
    only when the dataset still hashes as recorded, :data:`SOURCE_FILE`)."""
    from axiomatic.training.checkpoint import load_checkpoint_state, read_log

    out = Path(out_dir)
    path = out / "checkpoint.pt"
    if not path.is_file():
        return None
    state = load_checkpoint_state(path, "cpu", cfg.to_dict())  # refuses another config
    metrics = out / "metrics.json"
    model = out / "model"
    if not state.get("finished") or not metrics.is_file():
        return None
    if not (model.is_dir() or (out / "model.pt").is_file()):
        return None
    import json

    try:
        m = json.loads(metrics.read_text(encoding="utf-8"))
        return TrainResult(
            out,
            int(m["steps"]),
            m.get("best_step"),
            m.get("best_dev"),
            bool(m.get("stopped_early", False)),
            float(m.get("seconds", 0.0)),
            read_log(out / "log.jsonl"),
            dict(m.get("pools") or {}),
            reused=True,
        )
    except (ValueError, KeyError, TypeError):
        return None  # an unreadable record: the trainer resumes (and rewrites it)


def train_model(
    cfg: TrainConfig,
    out_dir: str | Path,
    data_root: str | Path | None = None,
    resume: bool = True,
) -> TrainResult:
    """Train ``cfg.model`` on catalog dataset ``cfg.dataset`` into ``out_dir``.

    With ``resume``, a checkpoint in ``out_dir`` is checked first (:func:`finished_run`):
    one written with another configuration is refused before any data is loaded, and a
    finished run with this configuration on the same data (:func:`dataset_fingerprint`) is
    returned as it is (``reused``) without building the index, candidates or model.

    Full-retrieval datasets get BM25 top-``candidate_depth`` candidates; ``dev_queries``
    training queries (seeded) are held out for model selection. Under torchrun every rank
    calls this (:mod:`axiomatic.training.distributed`); the ranks' model replicas start from
    rank 0's weights.
    """
    from axiomatic.data.catalog import load_dataset
    from axiomatic.index.cache import dataset_index
    from axiomatic.text.analyzer import parse_analyzer
    from axiomatic.training.distributed import distributed_context
    from axiomatic.training.samplers import split_dev, with_bm25_candidates

    # under torchrun rank 0 loads first (downloads, caches the index), the others then read
    # a checkpoint of another configuration is refused before any data is loaded
    done = finished_run(cfg, out_dir) if resume else None
    with distributed_context().main_first():
        full = load_dataset(cfg.dataset, data_root=data_root)
        source = dataset_fingerprint(full)
        if done is not None and done_source(out_dir) == source:
            # a finished run of these settings on this very data: nothing to train, no
            # index, candidates or model to build
            return done
        index = None
        if full.candidates is None:  # BM25 candidates with the configured analyzer
            lang = full.doc_language or full.language
            index = dataset_index(full, analyzer=parse_analyzer(cfg.analyzer, language=lang))
        dataset = with_bm25_candidates(full, cfg.candidate_depth, index=index)
        if not dataset.qrels:
            raise ValueError(
                f"dataset {cfg.dataset!r} has no relevance judgments; training needs qrels "
                "(pick a train split, e.g. scifact/train or msmarco-dev-top20/train)"
            )
        # word models may train and cache embeddings
        model = build_model_for(cfg, [d.text for d in dataset.documents.values()])
    train, dev = split_dev(dataset, cfg.dev_queries, seed=cfg.seed)
    result = Trainer(model, cfg, out_dir, train, dev).fit(resume=resume)
    if distributed_context().is_main:  # what a re-run compares before reusing the run
        write_json(Path(out_dir) / SOURCE_FILE, {"dataset": cfg.dataset, "fingerprint": source})
    return result


SOURCE_FILE = "dataset_fingerprint.json"
"""Written beside a finished run: the fingerprint of the dataset it was trained from."""


def dataset_fingerprint(dataset: Any) -> str:
    """A hash of a loaded dataset's queries, documents, judgments and candidate lists (ids and
    texts): a finished run is reused only when the dataset hashes as it did."""
    from axiomatic.data.fingerprint import documents_fingerprint, hash_fields

    def rows() -> Any:
        yield ("docs", documents_fingerprint(dataset.documents))
        for q in sorted(dataset.queries):
            yield ("q", q, dataset.queries[q].text)
        for q, judged in sorted((dataset.qrels or {}).items()):
            yield ("j", q, *(f"{d}={g}" for d, g in sorted(judged.items())))
        for q, cands in sorted((dataset.candidates or {}).items()):
            yield ("c", q, *map(str, cands))

    return hash_fields(rows())


def done_source(out_dir: str | Path) -> str | None:
    """The dataset fingerprint recorded beside a finished run (``None``: none recorded)."""
    import json

    try:
        rec = json.loads((Path(out_dir) / SOURCE_FILE).read_text(encoding="utf-8"))
        return str(rec["fingerprint"])
    except (OSError, ValueError, KeyError, TypeError):
        return None
