"""The trainer: pairwise / pointwise / listwise losses, axiomatic regularization, augmentation,
dev-based model selection, early stopping, atomic checkpoints and exact resume.

Output directory layout (everything a run needs to be inspected or resumed)::

    config.toml     the TrainConfig
    log.jsonl       one JSON record per logged step: loss, base loss, AR loss, dev metric
    checkpoint.pt   model + optimizer + sampler state + torch RNG + step (written atomically)
    best.pt         weights with the best dev metric so far
    model/          the final (best) model, via axiomatic.models.save_model when available
    metrics.json    written last: marks the run as finished
    summary.md      a short human-readable summary
    dataset_fingerprint.json  (by :func:`axiomatic.training.run.train_model`) the hash of the
                    dataset trained from: a re-run with the same settings on the same data
                    reuses the finished run instead of training again

Under ``torchrun`` (several processes, :mod:`axiomatic.training.distributed`) every rank
trains on its slice of the same global batch with averaged gradients, and rank 0 alone
evaluates and writes these files.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import math
import os
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import torch

from axiomatic._atomic import atomic_write_text, clean_stale_temp_files
from axiomatic.data.records import Dataset, Document, Run
from axiomatic.models.base import NeuralRankingModel
from axiomatic.models.scoring import score_candidates
from axiomatic.training.checkpoint import (
    atomic_torch_save,
    load_checkpoint_state,
    read_log,
    truncate_log,
    write_json,
)
from axiomatic.training.config import DiagnosticAugmentSpec, TrainConfig, write_toml
from axiomatic.training.distributed import (
    DistributedContext,
    distributed_context,
    local_world_size,
    rank_seed,
)
from axiomatic.training.samplers import Pair, PairSampler, qrels_pairs
from axiomatic.training.strategies import default_strategy
from axiomatic.training.strategy_base import LossStrategy, StepContext

__all__ = [
    "NonFiniteLossError",
    "TrainResult",
    "Trainer",
    "default_threads",
    "mrr_at_k",
    "set_training_threads",
]


class NonFiniteLossError(RuntimeError):
    """The loss became NaN or infinite; the message names the step and the batch."""


MAX_DEFAULT_THREADS = 4


def default_threads() -> int:
    """Intra-op threads for CPU training when none are asked for: the idle cores (cores minus
    the 1-minute load average), at least 1 and at most :data:`MAX_DEFAULT_THREADS`; under
    torchrun that share divided by the processes on this machine.

    Why: torch's default (one thread per core) oversubscribes a busy machine; measured under
    load, 1,500 steps took 138 s with the default threads and 16 s with one thread, and small
    ranking models gain little beyond 4 threads even on an idle machine.
    """
    cores = os.cpu_count() or 1
    try:
        idle = cores - os.getloadavg()[0]
    except (OSError, AttributeError):  # no load average (Windows)
        idle = cores
    return max(1, min(MAX_DEFAULT_THREADS, cores, int(idle + 0.5)) // local_world_size())


def set_training_threads(threads: int | None = None) -> int:
    """Set torch's intra-op threads to ``threads`` (default :func:`default_threads`) and its
    inter-op threads to 1; returns the number of intra-op threads."""
    n = default_threads() if threads is None else int(threads)
    if n < 1:
        raise ValueError(f"threads must be >= 1 (got {threads!r})")
    torch.set_num_threads(n)
    # only settable before the first inter-op parallel work; later calls keep what was set
    with contextlib.suppress(RuntimeError):
        torch.set_num_interop_threads(1)
    return n


@dataclass
class TrainResult:
    out_dir: Path
    steps: int
    best_step: int | None
    best_dev: float | None
    stopped_early: bool
    seconds: float
    history: list[dict[str, Any]] = field(default_factory=list)
    pools: dict[str, int] = field(default_factory=dict)
    reused: bool = False
    """True when the folder held a finished run with these settings, returned as it was
    (:func:`axiomatic.training.run.train_model`): nothing was trained, ``seconds`` is the
    original run's."""

    def to_dict(self) -> dict[str, Any]:
        return {
            "pools": self.pools,
            "out_dir": str(self.out_dir),
            "steps": self.steps,
            "best_step": self.best_step,
            "best_dev": self.best_dev,
            "stopped_early": self.stopped_early,
            "seconds": round(self.seconds, 2),
        }


# ---------------------------------------------------------------------- evaluation helpers
def mrr_at_k(run: Run, qrels: Mapping[str, Mapping[str, int]], k: int = 10, rel: int = 1) -> float:
    """``RR@k`` as :func:`axiomatic.evaluate.evaluate` reports it (ir_measures), so that early
    stopping optimizes the number that is reported.

    The mean is over the *judged* queries (those with qrels); a judged query the run lacks counts
    0, and run queries without judgments are ignored. A grade ``>= rel`` is relevant.
    """
    from axiomatic.evaluate.metrics import evaluate

    name = f"RR@{int(k)}"
    return float(evaluate(run, {q: dict(v) for q, v in qrels.items()}, name, int(rel))[name])


# ---------------------------------------------------------------------- trainer
class Trainer:
    """Trains a :class:`NeuralRankingModel` on a dataset (see the module docstring).

    Parameters
    ----------
    model: the model to train (moved to CUDA when available).
    config: a :class:`TrainConfig`.
    out_dir: where checkpoints, logs and the final model go.
    train: training dataset (needs qrels and candidate lists; see
        :func:`~axiomatic.training.samplers.with_bm25_candidates` for full-retrieval datasets).
    dev: dev dataset for model selection and early stopping (``None``: last step is kept).
    analyzer: analyzer deciding query-term membership for perturbations (default: the
        project default for the dataset language).
    pools, pool_weights: extra pair pools (e.g. mined axiom pairs) and their batch shares; the
        qrels pairs are always the pool ``"qrels"``.
    extra_documents: texts of artificial documents referenced by extra pools.
    callback: called as ``callback(step, record)`` after every step (tests use it to simulate
        a kill).
    loss_strategy: how a step's loss is computed (a :class:`~axiomatic.training.strategies.
        LossStrategy`); default: the one ``config`` asks for (:func:`~axiomatic.training.
        strategies.default_strategy`).
    """

    best_dev: float | None
    best_step: int | None

    def __init__(
        self,
        model: NeuralRankingModel,
        config: TrainConfig,
        out_dir: str | os.PathLike[str],
        train: Dataset,
        dev: Dataset | None = None,
        analyzer: Any = None,
        pools: Mapping[str, Sequence[Pair]] | None = None,
        pool_weights: Mapping[str, float] | None = None,
        extra_documents: Mapping[str, Document] | None = None,
        callback: Callable[[int, dict[str, Any]], None] | None = None,
        loss_strategy: LossStrategy | None = None,
    ) -> None:
        self.model = model
        self.config = config
        self.out_dir = Path(out_dir)
        self.train_data = train
        self.dev_data = dev
        self.analyzer = analyzer
        self.pools = pools
        self.pool_weights = pool_weights
        self.extra_documents = extra_documents
        self.callback = callback
        self.loss_strategy = loss_strategy

    # ------------------------------------------------------------------ setup
    def _setup(self) -> None:
        cfg = self.config
        self.__dict__.pop("_data_fingerprint", None)  # of this setup's pools and model
        self.dist: DistributedContext = distributed_context()
        self.dist.check_batch_size(cfg.batch_size)
        torch.manual_seed(cfg.seed)
        self.device = self.dist.device
        self.model.to(self.device)
        if cfg.loss == "graded":  # pointwise (query, document, grade) examples
            from axiomatic.training.smooth import graded_points

            pools: dict[str, list[Pair]] = {
                "qrels": graded_points(self.train_data, cfg.candidate_depth)
            }
        else:
            pools = {"qrels": qrels_pairs(self.train_data, cfg.candidate_depth)}
        weights = {"qrels": 1.0}
        aug = cfg.augment
        if isinstance(aug, DiagnosticAugmentSpec) and self.pools is None:
            from axiomatic.training.augment import diagnostic_pools

            extra, weights, docs = diagnostic_pools(self.train_data, aug, pools["qrels"])
            pools = extra
            self.extra_documents = {**(self.extra_documents or {}), **docs}
        if self.pools is not None:
            pools.update({k: list(v) for k, v in self.pools.items()})
            weights.update(dict(self.pool_weights or {}))
        self.sampler = PairSampler(pools, cfg.batch_size, seed=cfg.seed, weights=weights)
        decay = cfg.weight_decay
        params = [p for p in self.model.parameters() if p.requires_grad]
        if cfg.optimizer == "adamw":
            self.optimizer: torch.optim.Optimizer = torch.optim.AdamW(
                params, lr=cfg.lr, weight_decay=decay
            )
        else:
            self.optimizer = torch.optim.Adam(params, lr=cfg.lr, weight_decay=decay)
        self.context = StepContext(
            model=self.model,
            config=cfg,
            train_data=self.train_data,
            device=self.device,
            text=self._text,
            add_parameters=self._add_parameters,
            analyzer=self.analyzer,
            dist=self.dist,
        )
        self.strategy = self.loss_strategy or default_strategy(cfg)
        self.strategy.setup(self.context, pools)
        if self.dist.active:
            # one replica: rank 0's weights (and a strategy's own parameters) on every rank,
            # then a random stream of its own per rank (dropout on different slices)
            self.dist.broadcast_tensors(self._replicated_tensors())
            torch.manual_seed(rank_seed(cfg.seed, self.dist))
        self.total_steps = cfg.steps
        main = self.sampler.counts["qrels"]
        self.steps_per_epoch = max(1, math.ceil(len(pools["qrels"]) / max(main, 1)))
        if cfg.epochs is not None:
            self.total_steps = max(1, math.ceil(cfg.epochs * len(pools["qrels"]) / max(main, 1)))
        from axiomatic.training.schedules import parse_lr_schedule

        self.lr_schedule = parse_lr_schedule(cfg.lr_schedule)

    def _add_parameters(self, params: Sequence[torch.nn.Parameter]) -> None:
        """A strategy's own parameters join the optimizer (their own group, no weight decay)."""
        if params:
            self.optimizer.add_param_group({"params": list(params), "weight_decay": 0.0})

    def _trained_parameters(self) -> list[torch.Tensor]:
        """Every parameter the optimizer updates (the model's and a strategy's own)."""
        return [p for group in self.optimizer.param_groups for p in group["params"]]

    def _replicated_tensors(self) -> list[torch.Tensor]:
        """What every rank must hold alike: the model's parameters and buffers and the
        optimizer's other parameters (each once)."""
        seen: set[int] = set()
        out: list[torch.Tensor] = []
        for t in itertools.chain(
            self.model.parameters(), self.model.buffers(), self._trained_parameters()
        ):
            if id(t) not in seen:
                seen.add(id(t))
                out.append(t)
        return out

    def _rng_state(self) -> dict[str, Any]:
        """This rank's torch random state (CPU, and its GPU's when on CUDA)."""
        on_cuda = self.device.type == "cuda"
        return {
            "torch": torch.get_rng_state(),
            "cuda": torch.cuda.get_rng_state(self.device) if on_cuda else None,
        }

    def _text(self, doc_id: str) -> str:
        if self.extra_documents is not None and doc_id in self.extra_documents:
            return self.extra_documents[doc_id].text
        return self.train_data.documents[doc_id].text

    # ------------------------------------------------------------------ one step
    @property
    def perturber(self) -> Any:
        """The Rosset perturber of the pairwise strategy (None for other strategies)."""
        return getattr(self.__dict__.get("strategy"), "perturber", None)

    @property
    def perturb_axioms(self) -> tuple[str, ...]:
        return tuple(getattr(self.__dict__.get("strategy"), "perturb_axioms", ()))

    def _step_loss(self, batch: list[Pair], step: int) -> tuple[torch.Tensor, dict[str, float]]:
        """The step's loss and log values, from the loss strategy."""
        return self.strategy.step_loss(self.context, batch, step)

    # ------------------------------------------------------------------ checkpoints
    def _checkpoint_path(self) -> Path:
        return self.out_dir / "checkpoint.pt"

    def _save_checkpoint(self, step: int, finished: bool = False) -> None:
        """Called on every rank (under torchrun the ranks' random states are gathered);
        written by rank 0 only."""
        ranks = self.dist.gather(self._rng_state()) if self.dist.active else None
        if not self.dist.is_main:
            return
        state = {
            "step": step,
            "model": self.model.state_dict(),
            "optimizer": self.optimizer.state_dict(),
            "sampler": self.sampler.state_dict(),
            "torch_rng": torch.get_rng_state(),
            "cuda_rng": torch.cuda.get_rng_state_all() if torch.cuda.is_available() else None,
            "best_dev": self.best_dev,
            "best_step": self.best_step,
            "bad_evals": self.bad_evals,
            "finished": finished,
            "stopped_early": self.stopped_early,
            "config": self.config.to_dict(),
            "data": self.data_fingerprint(),
            # counters of the loss strategy (duck-typed strategies may lack the method)
            "strategy": getattr(self.strategy, "state_dict", dict)(),
        }
        if ranks is not None:
            state["rank_rng"] = ranks
        atomic_torch_save(state, self._checkpoint_path())

    def data_fingerprint(self) -> dict[str, str | None]:
        """Hashes of the data the weights are trained on, by field (recorded in the checkpoint
        and compared on resume: the config names the dataset, not its content).

        ``training pairs``: the sampler's pools (ids and labels); ``training texts``: the texts
        of their queries and documents; ``dev data``: the dev queries, candidates, judgments
        and texts (``None`` without dev data); ``vocabulary``: a word model's tokens and
        analyzer (``None`` for models without one). Computed once per run (after setup).
        """
        cached = self.__dict__.get("_data_fingerprint")
        if cached is not None:
            return dict(cached)
        from axiomatic.data.fingerprint import hash_fields

        pools = self.sampler.pools
        queries: dict[str, None] = {}
        docs: dict[str, None] = {}
        for pairs in pools.values():
            for p in pairs:
                queries[p.query_id] = None
                docs[p.doc_hi] = None
                if p.doc_lo:
                    docs[p.doc_lo] = None
        qtext = self.train_data.queries
        fp: dict[str, str | None] = {
            "training pairs": hash_fields(
                (name, p.query_id, p.doc_hi, str(p.doc_lo), repr(p.label_hi), repr(p.label_lo))
                for name in sorted(pools)
                for p in pools[name]
            ),
            "training texts": hash_fields(
                itertools.chain(
                    (("q", q, qtext[q].text if q in qtext else "\x00absent") for q in queries),
                    (("d", d, self._text(d)) for d in docs),
                )
            ),
            "dev data": None,
            "vocabulary": None,
        }
        dev = self.dev_data
        if dev is not None:
            depth = self.config.dev_depth

            def dev_rows():
                for q, query in dev.queries.items():
                    cands = dev.candidate_ids(q)
                    cands = list(cands if depth is None else cands[:depth])
                    judged = (dev.qrels or {}).get(q, {})
                    yield [q, query.text, *cands, *(f"{d}={judged[d]}" for d in sorted(judged))]
                    for d in cands:
                        doc = dev.documents.get(d)
                        yield [d, "\x00absent" if doc is None else doc.text]

            fp["dev data"] = hash_fields(dev_rows())
        vocab = getattr(self.model, "vocab", None)
        if vocab is not None and hasattr(vocab, "tokens"):
            analyzer: Any = getattr(vocab, "analyzer", None)
            config = analyzer.config() if analyzer is not None else None
            fp["vocabulary"] = hash_fields(
                [list(map(str, vocab.tokens)), [json.dumps(config, sort_keys=True, default=str)]]
            )
        self.__dict__["_data_fingerprint"] = fp
        return dict(fp)

    def _load_checkpoint(self) -> int:
        path = self._checkpoint_path()
        state = load_checkpoint_state(
            path, self.device, self.config.to_dict(), self.data_fingerprint()
        )
        try:
            self.model.load_state_dict(state["model"])
        except RuntimeError as exc:  # shapes or names differ, e.g. another vocabulary size
            first = str(exc).strip().splitlines() or [""]
            detail = " ".join(line.strip() for line in first[:3])[:300]
            raise ValueError(
                f"{path} holds weights that do not fit this model ({detail}): it was trained "
                "with another vocabulary or model settings. Resume with the same data and "
                "settings, or use a new output folder / --no-resume (resume=False) to train "
                "afresh"
            ) from exc
        self.optimizer.load_state_dict(state["optimizer"])
        self.sampler.load_state_dict(state["sampler"])
        restore = getattr(self.strategy, "load_state_dict", None)
        if restore is not None:
            restore(state.get("strategy") or {})
        # the checkpoint is loaded onto the training device; random states are CPU tensors
        torch.set_rng_state(state["torch_rng"].cpu())
        if state.get("cuda_rng") is not None and torch.cuda.is_available():
            torch.cuda.set_rng_state_all([s.cpu() for s in state["cuda_rng"]])
        if self.dist.active:
            self._restore_rank_rng(state.get("rank_rng"), int(state["step"]))
        self.best_dev = state["best_dev"]
        self.best_step = state["best_step"]
        self.bad_evals = state["bad_evals"]
        self.stopped_early = state.get("stopped_early", False)
        self._finished = state.get("finished", False)
        return int(state["step"])

    def _restore_rank_rng(self, saved: Any, step: int) -> None:
        """This rank's random state from the checkpoint when it was written by as many ranks;
        otherwise (another world size, or a single-process checkpoint) a fresh stream seeded
        from (seed, step, rank): the weights, optimizer and batches resume exactly, only the
        dropout draws differ from an uninterrupted run."""
        if isinstance(saved, list) and len(saved) == self.dist.world_size:
            mine = saved[self.dist.rank]
            torch.set_rng_state(mine["torch"].cpu())
            if mine.get("cuda") is not None and self.device.type == "cuda":
                torch.cuda.set_rng_state(mine["cuda"].cpu(), self.device)
        else:
            torch.manual_seed(rank_seed(self.config.seed * 1_000_003 + step, self.dist))

    # ------------------------------------------------------------------ dev
    def evaluate_dev(self) -> float | None:
        if self.dev_data is None or not self.dev_data.queries:
            return None
        run = score_candidates(self.model, self.dev_data, depth=self.config.dev_depth)
        return mrr_at_k(run, self.dev_data.qrels or {}, 10, self.dev_data.rel_threshold)

    def _evaluate_start(self, history: list[dict[str, Any]], log_path: Path) -> None:
        """The dev metric of the start (``eval_at_start``): logged as step 0 and saved as the
        best checkpoint so far, so that a run whose every step lowers the metric keeps the
        start (and early stopping counts from it)."""
        dist = self.dist
        dev = dist.broadcast(self.evaluate_dev() if dist.is_main else None)
        if dev is None:
            return
        record: dict[str, Any] = {"step": 0, "epoch": 0.0, "dev_mrr@10": dev}
        self.best_dev, self.best_step, self.bad_evals = dev, 0, 0
        if dist.is_main:
            atomic_torch_save(self.model.state_dict(), self.out_dir / "best.pt")
            with open(log_path, "a", encoding="utf-8") as log:
                log.write(json.dumps(record) + "\n")
        history.append(record)

    # ------------------------------------------------------------------ fit
    def fit(self, resume: bool = True) -> TrainResult:
        """Train (or resume) until ``steps``/``epochs`` or early stopping; returns a summary.

        Under torchrun every rank calls this (it returns the same summary on each); rank 0
        alone evaluates and writes the output folder, ``callback`` runs on every rank."""
        cfg = self.config
        t0 = time.perf_counter()
        self.out_dir.mkdir(parents=True, exist_ok=True)
        self._setup()
        dist = self.dist
        if dist.is_main:  # temporary files of a killed run: no writer of this run is started yet
            clean_stale_temp_files(self.out_dir)
            clean_stale_temp_files(self.out_dir / "model", recursive=True)
        self.best_dev = None
        self.best_step = None
        self.bad_evals = 0
        self.stopped_early = False
        self._finished = False
        log_path = self.out_dir / "log.jsonl"
        step = 0
        # rank 0 decides (the ranks must agree; it alone writes the checkpoint)
        if dist.broadcast(resume and self._checkpoint_path().exists()):
            # checked against the checkpoint first: a refused resume leaves the folder as it
            # was (its config.toml still describes its weights)
            step = self._load_checkpoint()
            if dist.is_main:
                truncate_log(log_path, step)
        elif dist.is_main and log_path.exists():
            log_path.unlink()
        if dist.is_main:
            write_toml(cfg.to_dict(), self.out_dir / "config.toml")
        dist.barrier()  # the log is truncated before the other ranks read it
        history = read_log(log_path)
        if step == 0 and cfg.eval_at_start and not self._finished:
            self._evaluate_start(history, log_path)
        if not self._finished:
            self.model.train()
            from axiomatic._progress import track

            steps = range(step + 1, self.total_steps + 1)
            counted: frozenset[str] = getattr(self.strategy, "count_keys", frozenset())
            log_file = (
                open(log_path, "a", encoding="utf-8")  # noqa: SIM115 (closed by the with)
                if dist.is_main
                else contextlib.nullcontext(None)
            )
            with log_file as log:
                for step in (
                    track(
                        steps,
                        description=f"training {cfg.model}",
                        total=len(steps),
                        status=lambda: history[-1] if history else None,  # loss, dev metric
                    )
                    if dist.is_main
                    else steps
                ):
                    batch = self.sampler.next_batch()  # the global batch, the same on every rank
                    loss, info = self._step_loss(dist.shard(batch), step)
                    # the global batch's loss: every rank sees the same number (and stops alike)
                    loss_value, info = dist.reduce_step(float(loss.detach()), info, counted)
                    if not math.isfinite(loss_value):
                        qids = sorted({p.query_id for p in batch})
                        ckpt = self._checkpoint_path()
                        where = (
                            f"the last good checkpoint is {ckpt}"
                            if ckpt.exists()
                            else "no checkpoint was written yet (the first comes at step "
                            f"{cfg.checkpoint_every})"
                        )
                        raise NonFiniteLossError(
                            f"loss became {loss_value} at step {step} (batch of "
                            f"{len(batch)} pairs, queries {qids[:8]}); {where}. Lower the "
                            f"learning rate (lr={cfg.lr}) or set grad_clip, then "
                            + ("resume." if ckpt.exists() else "train again.")
                        )
                    self.optimizer.zero_grad(set_to_none=True)
                    loss.backward()
                    dist.average_gradients(self._trained_parameters())
                    grad_norm = None
                    if cfg.grad_clip:
                        grad_norm = torch.nn.utils.clip_grad_norm_(
                            self.model.parameters(), cfg.grad_clip
                        )
                    elif cfg.log_grad_norm:
                        grad_norm = torch.nn.utils.get_total_norm(
                            [p.grad for p in self.model.parameters() if p.grad is not None]
                        )
                    lr = cfg.lr * self.lr_schedule.factor(
                        step, self.total_steps, self.steps_per_epoch
                    )
                    for group in self.optimizer.param_groups:
                        group["lr"] = lr
                    self.optimizer.step()
                    record: dict[str, Any] = {
                        "step": step,
                        "epoch": round(self.sampler.epochs_done, 4),
                        "loss": loss_value,
                        **info,
                    }
                    if self.lr_schedule.kind != "constant":
                        record["lr"] = lr
                    if cfg.log_grad_norm and grad_norm is not None:
                        record["grad_norm"] = float(grad_norm)
                    if step % cfg.eval_every == 0 or step == self.total_steps:
                        dev = dist.broadcast(self.evaluate_dev() if dist.is_main else None)
                        self.model.train()
                        if dev is not None:
                            record["dev_mrr@10"] = dev
                            if self.best_dev is None or dev > self.best_dev:
                                self.best_dev, self.best_step, self.bad_evals = dev, step, 0
                                if dist.is_main:
                                    atomic_torch_save(
                                        self.model.state_dict(), self.out_dir / "best.pt"
                                    )
                            else:
                                self.bad_evals += 1
                    if log is not None:
                        log.write(json.dumps(record) + "\n")
                    history.append(record)
                    stop = cfg.patience > 0 and self.bad_evals >= cfg.patience
                    if step % cfg.checkpoint_every == 0 or step == self.total_steps or stop:
                        if log is not None:
                            log.flush()
                        self.stopped_early = stop and step < self.total_steps
                        self._save_checkpoint(step, finished=stop or step == self.total_steps)
                    if self.callback is not None:
                        self.callback(step, record)
                    if stop:
                        break
        dist.barrier()  # best.pt is written
        if self.best_step is not None and (self.out_dir / "best.pt").exists():
            best = torch.load(self.out_dir / "best.pt", map_location=self.device, weights_only=True)
            self.model.load_state_dict(best)
        self.model.eval()
        if dist.is_main:
            self._save_final_model()
        last = history[-1]["step"] if history else step
        result = TrainResult(
            self.out_dir,
            int(last),
            self.best_step,
            self.best_dev,
            self.stopped_early,
            time.perf_counter() - t0,
            history,
            {k: len(v) for k, v in self.sampler.pools.items()},
        )
        if dist.is_main:
            write_json(self.out_dir / "metrics.json", result.to_dict())
            _write_summary(self.out_dir / "summary.md", cfg, result)
        dist.barrier()  # the run's files are complete when fit returns on any rank
        return result

    def _save_final_model(self) -> None:
        try:
            from axiomatic.models import save_model
        except ImportError:
            save_model = None
        if save_model is not None:
            try:
                save_model(self.model, self.out_dir / "model")
                return
            except (NotImplementedError, TypeError, KeyError, AttributeError, ValueError):
                pass  # a stand-in model the registry does not know: keep the state dict
        atomic_torch_save(self.model.state_dict(), self.out_dir / "model.pt")


# ---------------------------------------------------------------------- summary
def _write_summary(path: Path, cfg: TrainConfig, result: TrainResult) -> None:
    lines = [
        f"# Training run: {cfg.model} on {cfg.dataset}",
        "",
        f"- loss: {cfg.loss} (margin {cfg.margin}); regularizer: {cfg.regularizer or 'none'}; "
        f"augmentation: {cfg.augmentation or 'none'}",
        f"- optimizer: {cfg.optimizer} lr={cfg.lr} ({cfg.lr_schedule}) "
        f"weight_decay={cfg.weight_decay}, "
        f"batch {cfg.batch_size}, seed {cfg.seed}",
        f"- steps run: {result.steps}" + (" (stopped early)" if result.stopped_early else ""),
        f"- best dev MRR@10: {result.best_dev if result.best_dev is None else round(result.best_dev, 4)}"
        f" at step {result.best_step}",
        f"- wall time: {result.seconds:.1f} s",
        "",
        "Files: config.toml, log.jsonl (loss and dev metric per step), checkpoint.pt, best.pt, "
        "metrics.json.",
    ]
    atomic_write_text(path, "\n".join(lines) + "\n")
