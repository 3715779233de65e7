# Two entry points, both idempotent: `make demo` (install + main job on the built-in demo table)
# and `make test` (install everything the tests need + the default test suite).
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
# torch first and pinned: the CPU wheel; an unpinned torch pulls a multi-GB CUDA build.
TORCH  ?= torch==2.13.0

.PHONY: demo test test-all lint bench clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(VENV)/.core: pyproject.toml | $(BIN)/python
	$(BIN)/pip install --quiet -e .
	touch $@

$(VENV)/.test: pyproject.toml | $(BIN)/python
	$(BIN)/pip install --quiet "$(TORCH)"
	$(BIN)/pip install --quiet -e ".[all,report,test]"
	touch $@ $(VENV)/.core

demo: $(VENV)/.core
	$(BIN)/synthcert demo --out demo-output

test: $(VENV)/.test
	$(BIN)/ruff check src tests benchmarks
	$(BIN)/ruff format --check src tests benchmarks
	$(BIN)/pytest

test-all: $(VENV)/.test
	$(BIN)/pytest -m "slow or not slow"

lint: $(VENV)/.test
	$(BIN)/ruff check --fix src tests benchmarks
	$(BIN)/ruff format src tests benchmarks

clean:
	rm -rf $(VENV) demo-output .pytest_cache
