"""Device and bf16 choice in one place: models/device.py."""

from __future__ import annotations

import pytest
import torch

from axiomatic.models.device import bf16_supported, choose_device, use_bf16
from axiomatic.training.distributed import DistributedContext


@pytest.fixture
def two_gpus(monkeypatch):
    """A machine with two CUDA GPUs, as far as device choice can tell."""
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.cuda, "device_count", lambda: 2)


@pytest.fixture
def no_gpu(monkeypatch):
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    monkeypatch.setattr(torch.cuda, "device_count", lambda: 0)


def test_auto_is_cuda_when_present_else_cpu(no_gpu) -> None:
    assert choose_device() == choose_device("auto") == choose_device(" AUTO ")
    assert choose_device() == torch.device("cpu")
    assert choose_device("auto", local_rank=1) == torch.device("cpu")
    assert choose_device("cpu") == choose_device(torch.device("cpu")) == torch.device("cpu")


def test_auto_on_gpus_and_under_torchrun(two_gpus) -> None:
    assert choose_device() == torch.device("cuda")
    assert choose_device(None, local_rank=1) == torch.device("cuda:1")
    assert choose_device("cuda:1") == torch.device("cuda", 1)
    assert choose_device("CUDA") == torch.device("cuda")
    assert choose_device("cpu") == torch.device("cpu")  # asked for: taken as asked
    assert DistributedContext().device == torch.device("cuda")
    assert DistributedContext(rank=1, world_size=2, local_rank=1).device == torch.device("cuda:1")


def test_a_gpu_that_is_not_there_is_one_line(no_gpu) -> None:
    with pytest.raises(ValueError) as info:
        choose_device("cuda")
    msg = str(info.value)
    assert "\n" not in msg
    assert msg.startswith("device 'cuda' asked for, but this torch sees no CUDA GPU")
    assert "use 'cpu' or 'auto'" in msg
    assert DistributedContext(rank=1, world_size=2, local_rank=1).device == torch.device("cpu")


def test_a_gpu_index_out_of_range_names_the_visible_ones(two_gpus) -> None:
    with pytest.raises(ValueError, match=r"'cuda:2' asked for, but only 2 CUDA GPU\(s\) are "):
        choose_device("cuda:2")


@pytest.mark.parametrize("bad", ["gpu", "tpu", "cuda:x", "mps", "", "meta"])
def test_an_unknown_device_lists_the_choices(bad: str) -> None:
    with pytest.raises(ValueError) as info:
        choose_device(bad)
    assert str(info.value) == (
        f"unknown device {bad!r}; expected one of auto, cpu, cuda, cuda:N (e.g. 'cuda:0')"
    )


@pytest.mark.parametrize("fast", [True, False])
def test_bf16_only_when_asked_for(monkeypatch, fast: bool) -> None:
    """Float32 unless bf16 is asked for, whatever the device is fast at (the same spec gives
    the same numbers on every machine); the full check is in test_float32_default.py."""
    import axiomatic.models.device as device

    monkeypatch.setattr(device, "bf16_supported", lambda d: fast)
    assert use_bf16(True) is True  # asked for: as asked
    assert use_bf16(False) is False
    assert use_bf16(None) is False


def test_a_model_without_bf16_scores_in_float32_by_default(monkeypatch) -> None:
    """score_pairs leaves autocast off by default for every model, with or without
    ``supports_bf16``, even where the device is fast at bf16; ``bf16=True`` turns it on."""
    import axiomatic.models.device as device
    from axiomatic.models.base import NeuralRankingModel

    seen = []
    monkeypatch.setattr(device, "bf16_supported", lambda d: True)

    class Probe(NeuralRankingModel):
        def __init__(self, allows: bool) -> None:
            super().__init__()
            self.supports_bf16 = allows
            self.w = torch.nn.Parameter(torch.ones(1))

        def encode_batch(self, queries, documents):
            return {"x": torch.ones(len(queries), 4)}

        def forward(self, x):
            seen.append(torch.is_autocast_enabled("cpu"))
            return (x @ torch.ones(4, 1)).squeeze(-1) * self.w

    Probe(False).score_pairs(["q"], ["d"])
    Probe(True).score_pairs(["q"], ["d"])
    Probe(True).score_pairs(["q"], ["d"], bf16=True)
    Probe(True).score_pairs(["q"], ["d"], bf16=False)
    assert seen == [False, False, True, False]
    assert isinstance(bf16_supported("cpu"), bool)


#: modules that ask torch about CUDA for something other than choosing a device: the trainer
#: saves every GPU's random state, torchrun's set-up picks NCCL and checks the GPU count, the
#: experiment units record the machine they ran on
NOT_A_CHOICE = {
    "training/trainer.py",
    "training/distributed.py",
    "experiments/units.py",
}


def test_devices_are_chosen_in_one_place() -> None:
    """No module but models/device.py picks a device: no ``torch.cuda.is_available()``
    outside the modules above, no ``torch.device("cuda...")`` / ``.to("cuda")`` literal."""
    import ast
    from pathlib import Path

    src = Path(__file__).resolve().parents[2] / "src" / "axiomatic"
    bad = []
    for path in sorted(src.rglob("*.py")):
        rel = path.relative_to(src).as_posix()
        if rel == "models/device.py":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Call):
                continue
            name = ast.unparse(node.func)
            args = [a.value for a in node.args if isinstance(a, ast.Constant)]
            gpu_literal = any(isinstance(a, str) and a.startswith(("cuda", "mps")) for a in args)
            if (name.endswith("cuda.is_available") and rel not in NOT_A_CHOICE) or (
                (name == "torch.device" or name.endswith(".to")) and gpu_literal
            ):
                bad.append(f"{rel}:{node.lineno} {ast.unparse(node)}")
    assert not bad, "choose devices with axiomatic.models.device.choose_device:\n" + "\n".join(bad)
