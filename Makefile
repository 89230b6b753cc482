# Quickstart targets: each one sets up .venv itself (idempotent) and then runs.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo test lint bench clean venv

venv: $(STAMP)

# Re-install only when pyproject.toml changes; a no-op re-run costs one stat.
$(STAMP): pyproject.toml
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	@touch $(STAMP)

demo: $(STAMP)
	$(BIN)/assay score examples/finsearch_t1_sample.json --by answer_kind --db sqlite:///.assay/demo.db --out .assay/demo-scores.jsonl

test: $(STAMP)
	$(BIN)/ruff check src tests bench examples
	$(BIN)/mypy
	$(BIN)/python -m pytest

bench: $(STAMP)
	$(BIN)/python bench/score_bench.py

clean:
	rm -rf $(VENV) .assay .pytest_cache .mypy_cache .ruff_cache
