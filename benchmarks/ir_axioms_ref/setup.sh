#!/usr/bin/env bash
# Create an isolated venv with the reference implementation ir_axioms 1.2.5 (PyPI only, no Java use).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
python3 -m venv "$here/.venv"
"$here/.venv/bin/pip" install --quiet --upgrade pip
"$here/.venv/bin/pip" install --quiet "ir_axioms==1.2.5"
echo "ir_axioms 1.2.5 installed in $here/.venv"
