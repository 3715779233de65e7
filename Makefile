# Two entry points, both idempotent: `make demo` (install + main job on the built-in demo table)
# and `make test` (install everything the tests need + the default test suite + the strict docs
# build). `make docs` builds the documentation site alone (into site/).
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
# torch first and pinned: the CPU wheel; an unpinned torch pulls a multi-GB CUDA build.
TORCH  ?= torch==2.13.0
# pytest-xdist workers for `make test`: one per core (`make test PYTEST_WORKERS=0` runs serially)
PYTEST_WORKERS ?= auto

.PHONY: demo test test-all lint docs bench clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(VENV)/.core: pyproject.toml | $(BIN)/python
	$(BIN)/pip install --quiet -e .
	touch $@

# the demo's AIM step needs mbi and JAX (the pgm extra), its audit gate dp-accounting (audit);
# neither pulls torch
$(VENV)/.demo: pyproject.toml | $(BIN)/python
	$(BIN)/pip install --quiet -e ".[pgm,audit]"
	touch $@ $(VENV)/.core

$(VENV)/.test: pyproject.toml | $(BIN)/python
	$(BIN)/pip install --quiet "$(TORCH)"
	$(BIN)/pip install --quiet -e ".[all,report,test,docs]"
	touch $@ $(VENV)/.core $(VENV)/.docs $(VENV)/.demo

$(VENV)/.docs: pyproject.toml | $(BIN)/python
	$(BIN)/pip install --quiet -e ".[docs]"
	touch $@ $(VENV)/.core

demo: $(VENV)/.demo
	$(BIN)/synthcert demo --out demo-output

test: $(VENV)/.test
	$(BIN)/ruff check src tests benchmarks
	$(BIN)/ruff format --check src tests benchmarks
	$(BIN)/pytest -n $(PYTEST_WORKERS)
	$(MAKE) docs

# --strict: a broken link, a missing page or a docstring the API reference cannot render fails.
docs: $(VENV)/.docs
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict

test-all: $(VENV)/.test
	$(BIN)/pytest -n $(PYTEST_WORKERS) -m "slow or not slow"

lint: $(VENV)/.test
	$(BIN)/ruff check --fix src tests benchmarks
	$(BIN)/ruff format src tests benchmarks

clean:
	rm -rf $(VENV) demo-output .pytest_cache site
