"""Device and precision choice, in one place.

:func:`choose_device` turns what a user or caller asks for (``"auto"``, ``"cpu"``, ``"cuda"``,
``"cuda:N"``, a ``torch.device`` or ``None``) into a ``torch.device``: ``auto`` is CUDA when
present, else the CPU; under torchrun (``local_rank``) it is that rank's GPU. A GPU asked for
where there is none is a one-line error, never a silent fall-back to the CPU.

:func:`use_bf16` decides whether inference runs in bf16: only when the caller asks for it
(``bf16=True``). The default is float32 on every device, whatever it is fast at: under bf16 a
score depends on the batch it was computed in (the other inputs change the padding and the
order of the sums), by up to ~2e-3, so the same ranker would give other numbers in ``rank`` and
``diagnose`` and on another machine; in float32 the differences stay ~1e-7.
:func:`bf16_supported` says where asking for bf16 pays (AMX CPUs, bf16 GPUs).
"""

from __future__ import annotations

import contextlib

import torch

__all__ = [
    "DEVICE_CHOICES",
    "autocast",
    "bf16_supported",
    "choose_device",
    "inference_dtype",
    "use_bf16",
]

#: the device strings :func:`choose_device` accepts (``cuda:N`` with any index N)
DEVICE_CHOICES = ("auto", "cpu", "cuda", "cuda:N")


def choose_device(
    requested: str | torch.device | None = None, local_rank: int | None = None
) -> torch.device:
    """The device to run on: ``None`` / ``"auto"`` is CUDA when present (``cuda:local_rank``
    under torchrun, else ``cuda``), otherwise the CPU; ``"cpu"``, ``"cuda"`` and ``"cuda:N"``
    are taken as asked, after checking that CUDA (and GPU ``N``) is there."""
    if requested is None or (isinstance(requested, str) and requested.strip().lower() == "auto"):
        if not torch.cuda.is_available():
            return torch.device("cpu")
        return torch.device("cuda" if local_rank is None else f"cuda:{int(local_rank)}")
    text = str(requested).strip().lower() if isinstance(requested, str) else None
    try:
        device = torch.device(text if text is not None else requested)
    except (RuntimeError, TypeError, ValueError):
        device = None
    if device is None or device.type not in ("cpu", "cuda"):
        raise ValueError(
            f"unknown device {str(requested)!r}; expected one of {', '.join(DEVICE_CHOICES)} "
            "(e.g. 'cuda:0')"
        )
    if device.type == "cuda":
        if not torch.cuda.is_available():
            raise ValueError(
                f"device {str(requested)!r} asked for, but this torch sees no CUDA GPU "
                f"(torch {torch.__version__}, CUDA build: {torch.version.cuda or 'none'}); "
                "use 'cpu' or 'auto', or install a CUDA build of torch on a GPU machine"
            )
        count = torch.cuda.device_count()
        if device.index is not None and device.index >= count:
            raise ValueError(
                f"device {str(requested)!r} asked for, but only {count} CUDA GPU(s) are "
                f"visible (cuda:0 .. cuda:{count - 1}); pick one of them or 'cuda'"
            )
    return device


def bf16_supported(device: torch.device | str) -> bool:
    """Whether bf16 autocast is fast on ``device`` (AVX512-BF16/AMX CPUs, bf16-capable GPUs)."""
    device = torch.device(device)
    if device.type == "cuda":
        return bool(torch.cuda.is_available() and torch.cuda.is_bf16_supported())
    if device.type == "cpu":
        check = getattr(torch.cpu, "_is_avx512_bf16_supported", None)
        amx = getattr(torch.cpu, "_is_amx_tile_supported", None)
        return bool((check is not None and check()) or (amx is not None and amx()))
    return False


def use_bf16(requested: bool | None) -> bool:
    """Whether to run inference in bf16: only when ``requested`` is true; ``None`` (the
    default) and ``False`` are float32, on every device. bf16 is faster where the device is
    fast at it (:func:`bf16_supported`), but its scores depend on the batch composition by up
    to ~2e-3, so it is opt-in (``bf16=True``, ``minilm:bf16=true``)."""
    return bool(requested)


def inference_dtype(requested: bool | None = None) -> str:
    """The dtype inference runs in for a ``bf16`` option (:func:`use_bf16`): ``"bfloat16"`` or
    ``"float32"``; what a cached result records so that it is never reused for the other."""
    return "bfloat16" if use_bf16(requested) else "float32"


def autocast(device: torch.device | str, enabled: bool = True) -> contextlib.AbstractContextManager:
    """bf16 autocast on ``device`` (a no-op context when not ``enabled``)."""
    device = torch.device(device)
    if not enabled or device.type not in ("cpu", "cuda"):
        return contextlib.nullcontext()
    return torch.autocast(device_type=device.type, dtype=torch.bfloat16)
