PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
STAMP_DEV := $(VENV)/.installed-dev

.PHONY: demo test lint format bench clean

$(BIN)/python:
	$(PY) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip

# torch is installed first and pinned to the local CPU build so that no resolver ever
# reaches for a CUDA wheel.
$(STAMP): $(BIN)/python pyproject.toml
	$(BIN)/pip install --quiet "torch>=2.2,<2.14"
	$(BIN)/pip install --quiet -e .
	touch $(STAMP)

$(STAMP_DEV): $(STAMP)
	$(BIN)/pip install --quiet -e ".[dev]"
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

clean:
	rm -rf $(VENV) demo-output
