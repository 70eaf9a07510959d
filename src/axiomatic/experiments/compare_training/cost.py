"""What a compare-training run costs: peak memory of a block, the device, the plan's rough
time estimate."""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from axiomatic.experiments.compare_training.plan import DOCS_PER_PAIR, ComparePlan


@contextmanager
def peak_memory(device: Any) -> Iterator[dict[str, float]]:
    """Peak memory while the block runs, in MiB, into the yielded dict's ``"peak_mib"``.

    On CUDA the peak of allocated tensor memory (``torch.cuda.max_memory_allocated``, reset on
    entry); on CPU the peak growth of the process' resident set over its size on entry, sampled
    every 20 ms from ``/proc/self/statm`` (``nan`` where that file does not exist)."""
    import torch

    out: dict[str, float] = {"peak_mib": float("nan")}
    if getattr(device, "type", str(device)) == "cuda":
        torch.cuda.reset_peak_memory_stats(device)
        yield out
        out["peak_mib"] = torch.cuda.max_memory_allocated(device) / 2**20
        out["kind"] = "CUDA allocated"  # type: ignore[assignment]
        return
    statm = Path("/proc/self/statm")
    if not statm.is_file():
        yield out
        return
    page = os.sysconf("SC_PAGE_SIZE")
    _release_freed_memory()  # so that the growth counts this block's allocations

    def rss() -> int:
        return int(statm.read_text().split()[1]) * page

    base = rss()
    peak = [base]
    stop = threading.Event()

    def sample() -> None:
        while not stop.wait(0.02):
            peak[0] = max(peak[0], rss())

    thread = threading.Thread(target=sample, daemon=True)
    thread.start()
    try:
        yield out
    finally:
        stop.set()
        thread.join()
        peak[0] = max(peak[0], rss())
        out["peak_mib"] = (peak[0] - base) / 2**20
        out["kind"] = "CPU resident-set growth"  # type: ignore[assignment]


# ---------------------------------------------------------------------- helpers
def _release_freed_memory() -> None:
    """Collect garbage and hand freed heap pages back to the OS (glibc's ``malloc_trim``;
    nothing elsewhere), so that a resident-set growth measured next starts from what is live."""
    import contextlib
    import ctypes
    import ctypes.util
    import gc

    gc.collect()
    name = ctypes.util.find_library("c")
    if name is None:
        return
    with contextlib.suppress(OSError, AttributeError):  # not glibc: nothing to trim
        ctypes.CDLL(name).malloc_trim(0)


CPU_SECONDS_PER_PAIR = {"knrm": 0.004, "conv-knrm": 0.012, "transformer": 0.6}
"""CPU seconds per training pair (2 documents) of one step at 128 word pieces, as measured on
this 2-core machine under its usual shared load (load average 4-5, one torch thread): a MiniLM
cross-encoder hinge step of 16 pairs at 96 word pieces took 7.4 s (AR: 14.4 s), a bi-encoder
step 18-20 s (a quiet core: 3.4 s at 128, docs/training.md "Speed"). Scaled linearly with
``max_length``."""
CPU_SCORES_PER_SECOND = {
    "knrm": 2000.0, "conv-knrm": 800.0, "transformer": 12.0, "bi-encoder": 15.0,
}  # fmt: skip
"""CPU (query, document) pairs scored per second at 128 word pieces under the same load (the
MiniLM cross-encoder 15-17 pairs/s at 96 pieces, the bi-encoder 11-25; 21 pairs/s on a quieter
core, docs/acrank.md)."""


def estimate(p: ComparePlan) -> str:
    """Rough CPU hours of a plan: training steps (scaled by each method's documents per pair),
    dev evaluations (the start and every ``eval_every`` steps, without early stopping), ARES
    pre-training and the test scoring of the selected runs and the starts."""
    from axiomatic.models.io import is_word_model, resolve_model_name

    steps = max(1, p.examples // p.batch_size)
    evals = 1 + steps // max(1, p.eval_every)
    sizes = max(1, len(p.sizes))
    test_pairs = len(p.test_sets) * (p.test_queries or 200) * p.test_depth
    total = 0.0
    for s in p.starts:
        scale = 1.0
        if not is_word_model(s):
            kind = "transformer"
            scale = float(p.model_config.get(s, {}).get("max_length", 128)) / 128
        else:
            kind = s if s in CPU_SECONDS_PER_PAIR else "conv-knrm"
        pair = CPU_SECONDS_PER_PAIR[kind] * scale
        bi = resolve_model_name(s) == "bi-encoder"
        rate = CPU_SCORES_PER_SECOND["bi-encoder" if bi else kind] / scale
        for m in p.methods.get(s, []):
            runs = len(p.grid(s, m)) * len(p.seeds) * sizes
            train = steps * p.batch_size * pair * DOCS_PER_PAIR[m] / 2
            dev = evals * p.dev_queries * p.depth / rate
            total += runs * (train + dev) + sizes * len(p.seeds) * test_pairs / rate
            if m == "ares":
                total += len(p.seeds) * p.ares_steps * p.ares_batch_size * pair * 2
        total += len(p.seeds) * test_pairs / rate  # the untrained start
    return (
        f"~{total / 3600:.1f} h on this 2-core CPU under its shared load (rough: {steps} "
        "steps x documents per pair, "
        f"{evals} dev evaluations per run without early stopping, test scoring; one H100 is "
        "several hundred times faster: 1,500 MiniLM steps of 32 pairs took ~70 s there)"
    )


def device() -> Any:
    from axiomatic.models.device import choose_device

    return choose_device("auto")
