#!/bin/bash
# On the lent GPU machine, from the repo root (copied to .gpu/ by benchmarks/device/prepare.sh):
#     bash .gpu/run_compare_ce.sh [SECONDS]
# The cross-encoder start of compare-training (configs/compare-training-cross-encoder.toml; ~8 min
# on one H200), stopped after SECONDS (default 540) so that what is done still comes back: the
# output folder without weights, split into 15 MB parts under $OUT (cat ce.tgz.part-* | tar xz).
set -o pipefail
T0=$(date +%s)
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .gpu/whl/*.whl || exit 1
export PYTHONPATH=/tmp/site:$PWD/.gpu/site:$PWD/src PYTHONUNBUFFERED=1 HF_HUB_OFFLINE=1 AXIOMATIC_NO_PROGRESS=1
mkdir -p /tmp/data && tar xJf .gpu/data.tar.xz -C /tmp/data || exit 1
python3 .gpu/restore_model.py || exit 1
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader
python3 -c "import torch, transformers, lightgbm; print('torch', torch.__version__, 'transformers', transformers.__version__, 'cuda', torch.cuda.is_available())" || exit 1
echo "setup $(( $(date +%s) - T0 )) s"
timeout "${1:-540}" python3 -m axiomatic.cli.main experiment compare-training \
  --config configs/compare-training-cross-encoder.toml --data-root /tmp/data --threads 8 \
  --out /tmp/ce 2>&1 | grep -v "it/s" | tee "$OUT/log.txt"
echo "rc ${PIPESTATUS[0]} total $(( $(date +%s) - T0 )) s"
mkdir -p /tmp/ce/page && cp -r docs/comparison-cross-encoder.md docs/img /tmp/ce/page/ 2>/dev/null
tar czf - --exclude='*.safetensors' --exclude='*.pt' --exclude='*.bin' -C /tmp ce \
  | split -b 15M - "$OUT/ce.tgz.part-"
ls -la "$OUT"
