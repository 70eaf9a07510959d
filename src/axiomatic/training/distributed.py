"""Data-parallel training over several processes launched by ``torchrun``; nothing otherwise.

``torchrun --nproc_per_node N -m axiomatic.cli.main train ...`` starts N processes (ranks) and
sets torch.distributed's ``env://`` variables (``RANK``, ``WORLD_SIZE``, ``LOCAL_RANK``,
``MASTER_ADDR``, ``MASTER_PORT``). :func:`distributed_context` sees them, joins the process
group (``gloo`` on CPU, ``nccl`` when CUDA is present, one GPU per ``LOCAL_RANK``) and returns a
:class:`DistributedContext`; without them (``WORLD_SIZE`` unset or 1) it returns the
single-process context, whose every method is a no-op, so the trainer runs exactly as before.

How the :class:`~axiomatic.training.trainer.Trainer` uses it (one global batch per step):

* every rank walks the same seeded :class:`~axiomatic.training.samplers.PairSampler`, draws the
  same global batch of ``batch_size`` pairs and trains on its slice ``batch[rank::world_size]``
  (:meth:`DistributedContext.shard`; ``batch_size`` must divide by the world size). Over an
  epoch each rank sees its own ``1 / world_size`` of the pair pool, and the global batch is the
  single-process batch, pair for pair;
* each rank's loss is the mean over its slice; :meth:`DistributedContext.average_gradients`
  all-reduces the gradients and divides by the world size, which is the gradient of the mean
  loss over the global batch (slices of equal size). Optimizer, clipping and learning-rate
  schedule then see the same gradient on every rank and keep the replicas identical;
* rank 0 alone evaluates on dev, writes checkpoints, logs, metrics and the final model; the
  other ranks wait for it (:meth:`barrier`, :meth:`broadcast`).

Why not :class:`torch.nn.parallel.DistributedDataParallel`: DDP synchronizes gradients only
for passes through the wrapper's ``forward``, but the loss strategies call the model's other
methods (``encode_batch``; ARES's :meth:`~axiomatic.ares.pretrain.AresCrossEncoder.
scores_and_mlm_loss` runs the encoder, the scoring head and the MLM head in one custom call),
and some strategies train parameters outside the model (the learned cut points of the graded
``po`` loss). Averaging the gradients of every parameter the optimizer holds after
``backward()`` works for all of them with torch.distributed's public API; what it gives up is
DDP's overlap of communication with the backward pass (a ranking model's step is dominated by
its forward and backward, one all-reduce per 64 MiB bucket follows).
"""

from __future__ import annotations

import contextlib
import datetime
import os
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

import torch

T = TypeVar("T")

TIMEOUT = datetime.timedelta(hours=2)
"""How long a rank waits in a collective (e.g. while rank 0 evaluates on a large dev set)
before the process group gives up; torchrun ends every rank as soon as one of them fails."""

BUCKET_BYTES = 64 * 2**20
"""Gradients are all-reduced in flat buckets of at most this size (one call per bucket)."""


def launched() -> bool:
    """Whether this process is one of several started by ``torchrun`` (or another launcher
    that sets torch.distributed's ``env://`` variables): ``WORLD_SIZE`` > 1 and ``RANK`` set."""
    try:
        world = int(os.environ.get("WORLD_SIZE", "1"))
    except ValueError:
        return False
    return world > 1 and "RANK" in os.environ


def local_world_size() -> int:
    """Processes of this launch on this machine (``LOCAL_WORLD_SIZE``; 1 when not launched)."""
    if not launched():
        return 1
    try:
        return max(1, int(os.environ.get("LOCAL_WORLD_SIZE", os.environ["WORLD_SIZE"])))
    except ValueError:
        return 1


@dataclass(frozen=True)
class DistributedContext:
    """The process's place in a data-parallel run (``world_size == 1``: a single process).

    Every collective method is a no-op in a single process, so callers need no branches.
    """

    rank: int = 0
    world_size: int = 1
    local_rank: int = 0
    backend: str | None = None

    @property
    def active(self) -> bool:
        """Several processes train together."""
        return self.world_size > 1

    @property
    def is_main(self) -> bool:
        """Rank 0: the one process that writes files and evaluates."""
        return self.rank == 0

    @property
    def device(self) -> torch.device:
        """This rank's device: ``cuda:LOCAL_RANK`` when CUDA is present, else the CPU
        (:func:`~axiomatic.models.device.choose_device`)."""
        from axiomatic.models.device import choose_device

        return choose_device("auto", local_rank=self.local_rank if self.active else None)

    def check_batch_size(self, batch_size: int) -> None:
        """A ``ValueError`` unless the global batch splits evenly over the ranks (unequal
        slices would weight the pairs of the smaller ones more in the averaged gradient)."""
        if batch_size % self.world_size:
            lower = batch_size - batch_size % self.world_size
            raise ValueError(
                f"batch_size {batch_size} does not split over {self.world_size} processes: "
                f"each trains on an equal slice of the global batch. Use a multiple of "
                f"{self.world_size} (e.g. {max(lower, self.world_size)} or "
                f"{lower + self.world_size}) or another --nproc_per_node"
            )

    def shard(self, batch: Sequence[T]) -> list[T]:
        """This rank's slice of the global batch: every ``world_size``-th item from ``rank``
        (strided, so that each pool of a mixed batch is spread over the ranks)."""
        return list(batch[self.rank :: self.world_size])

    def barrier(self) -> None:
        """Wait until every rank got here."""
        if self.active:
            import torch.distributed as dist

            dist.barrier()

    def broadcast(self, obj: T) -> T:
        """Rank 0's ``obj`` on every rank (any picklable value)."""
        if not self.active:
            return obj
        import torch.distributed as dist

        box = [obj]
        dist.broadcast_object_list(box, src=0)
        return box[0]

    def gather(self, obj: T) -> list[T]:
        """Every rank's ``obj``, in rank order, on every rank (any picklable value)."""
        if not self.active:
            return [obj]
        import torch.distributed as dist

        out: list[Any] = [None] * self.world_size
        dist.all_gather_object(out, obj)
        return out

    def broadcast_tensors(self, tensors: Iterable[torch.Tensor]) -> None:
        """Overwrite ``tensors`` (parameters, buffers) in place with rank 0's values."""
        if not self.active:
            return
        import torch.distributed as dist

        with torch.no_grad():
            for t in tensors:
                dist.broadcast(t.detach(), src=0)

    def average_gradients(self, params: Iterable[torch.Tensor]) -> None:
        """Replace each parameter's gradient by its mean over the ranks (all-reduce, then
        divide by ``world_size``).

        A parameter without a gradient on some ranks (a branch their slice did not take)
        counts as zero there; one without a gradient on every rank keeps ``grad = None``, as
        in a single process (Adam then skips it). Sparse gradients are made dense.
        """
        if not self.active:
            return
        import torch.distributed as dist

        params = [p for p in params if p.requires_grad]
        if not params:
            return
        has = torch.tensor(
            [float(p.grad is not None) for p in params], dtype=torch.float32, device=self.device
        )
        dist.all_reduce(has)
        used = [p for p, h in zip(params, has.tolist(), strict=True) if h > 0]
        for p in used:
            if p.grad is None:
                p.grad = torch.zeros_like(p)
            elif p.grad.is_sparse:
                p.grad = p.grad.to_dense()
        grads = [p.grad for p in used if p.grad is not None]  # all of them (set above)
        for bucket in _buckets(grads):
            flat = torch.cat([g.reshape(-1) for g in bucket])
            dist.all_reduce(flat)
            flat.div_(self.world_size)
            offset = 0
            for g in bucket:
                g.copy_(flat[offset : offset + g.numel()].view(g.shape))
                offset += g.numel()

    def reduce_step(
        self, loss: float, info: Mapping[str, float], counts: Iterable[str] = ()
    ) -> tuple[float, dict[str, float]]:
        """The global batch's loss (the mean of the ranks' losses, each the mean over an equal
        slice) and log values: keys in ``counts`` (e.g. perturbed documents) summed over the
        ranks, every other key averaged over the ranks that report it."""
        if not self.active:
            return float(loss), dict(info)
        gathered = self.gather((float(loss), dict(info)))
        total = sum(v for v, _ in gathered) / self.world_size
        count_keys = set(counts)
        merged: dict[str, float] = {}
        for _, part in gathered:
            for key in part:
                if key in merged:
                    continue
                values = [float(p[key]) for _, p in gathered if key in p]
                merged[key] = sum(values) if key in count_keys else sum(values) / len(values)
        return total, merged

    @contextlib.contextmanager
    def main_first(self) -> Iterator[None]:
        """Rank 0 runs the block first (it downloads, builds and caches), the other ranks
        after it (they find the cached files); a no-op in a single process."""
        if self.active and not self.is_main:
            self.barrier()
        yield
        if self.active and self.is_main:
            self.barrier()


def _buckets(tensors: Sequence[torch.Tensor]) -> Iterator[list[torch.Tensor]]:
    """Consecutive tensors of one dtype and device, at most :data:`BUCKET_BYTES` a bucket (a
    larger tensor is a bucket of its own)."""
    bucket: list[torch.Tensor] = []
    size = 0
    for p in tensors:
        nbytes = p.numel() * p.element_size()
        if bucket and (
            size + nbytes > BUCKET_BYTES
            or p.dtype != bucket[0].dtype
            or p.device != bucket[0].device
        ):
            yield bucket
            bucket, size = [], 0
        bucket.append(p)
        size += nbytes
    if bucket:
        yield bucket


def distributed_context() -> DistributedContext:
    """The context of this process: the joined process group's when one is initialized, a new
    one's when launched by ``torchrun`` (``gloo`` on CPU, ``nccl`` with CUDA, this process on
    GPU ``LOCAL_RANK``), else the single-process context. Safe to call repeatedly."""
    import torch.distributed as dist

    if dist.is_available() and dist.is_initialized():
        local = int(os.environ.get("LOCAL_RANK", dist.get_rank()))
        return DistributedContext(
            dist.get_rank(), dist.get_world_size(), local, str(dist.get_backend())
        )
    if not launched():
        return DistributedContext()
    if not dist.is_available():
        raise RuntimeError(
            "this process was launched by torchrun (WORLD_SIZE > 1) but this torch build has "
            "no torch.distributed; install a torch with distributed support or run one process"
        )
    rank = int(os.environ["RANK"])
    world = int(os.environ["WORLD_SIZE"])
    local = int(os.environ.get("LOCAL_RANK", rank))
    if torch.cuda.is_available():
        if local >= torch.cuda.device_count():
            raise RuntimeError(
                f"local rank {local} has no GPU ({torch.cuda.device_count()} visible): start "
                "at most one process per GPU (--nproc_per_node)"
            )
        torch.cuda.set_device(local)
        backend = "nccl"
    else:
        backend = "gloo"
    dist.init_process_group(backend=backend, timeout=TIMEOUT)
    return DistributedContext(rank, world, local, backend)


def rank_seed(seed: int, ctx: DistributedContext | None) -> int:
    """``seed`` in a single process; under torchrun a seed of its own per rank (``seed *
    1000 + rank``, distinct for every (seed, rank) with fewer than 1,000 ranks), so that the
    ranks' slices do not share one random stream (perturbations, MLM masks, dropout)."""
    if ctx is None or not ctx.active:
        return int(seed)
    return int(seed) * 1000 + int(ctx.rank)
