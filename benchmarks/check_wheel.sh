#!/usr/bin/env bash
# The wheel outside the checkout: build wheel + sdist, twine check, install the wheel
# (not editable) into a fresh venv with the lock as constraints, and run `axiomatic demo` from
# a directory outside the repository. Not part of CI (a full install, ~4 minutes).
# Usage: bash benchmarks/check_wheel.sh [WORKDIR]   (default: a new temporary directory)
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
WORK="${1:-$(mktemp -d)}"
PY="${PY:-python3}"
cd "$ROOT"
make dist
"$PY" -m venv "$WORK/venv"
"$WORK/venv/bin/pip" install --quiet "pip==$(sed -n 's/^PIP_VERSION := //p' Makefile)"
"$WORK/venv/bin/pip" install --quiet -c requirements/lock.txt "torch==2.13.0"
"$WORK/venv/bin/pip" install --quiet -c requirements/lock.txt dist/axiomatic_ir-*.whl
cd "$WORK"
start=$(date +%s)
"$WORK/venv/bin/axiomatic" demo --out "$WORK/demo-output"
echo "wheel demo: $(( $(date +%s) - start )) s in $WORK (report: $WORK/demo-output/report/report.html)"
test -s "$WORK/demo-output/report/report.html"
"$WORK/venv/bin/python" -c "import axiomatic, pathlib; p = pathlib.Path(axiomatic.__file__); assert 'site-packages' in str(p), p; print('imported from', p)"
