# The two entry points of the README.  Both build .venv from the project's own files, so a fresh
# machine with only Python 3.11 needs nothing else.
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
# Re-install when the dependency list changes.
STAMP_RUN := $(VENV)/.installed-run
STAMP_TEST := $(VENV)/.installed-test

.PHONY: demo test check lint docs outputs clean bench

$(BIN)/python:
	$(PYTHON) -c 'import sys; assert sys.version_info >= (3, 11), "bayescal needs Python >= 3.11; saw " + sys.version'
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

# --no-compile, then compileall on every core: pip byte-compiles the packages (jax, scipy, dask,
# sphinx, ...) one file at a time, a minute of a fresh clone's `make test`; on two cores it takes
# half that.  The bytecode must be written here: where PYTHONDONTWRITEBYTECODE is set (CI), no
# import writes it, and every test process would compile the modules it imports again.
SITE_PACKAGES = $(BIN)/python -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])'
COMPILE = $(BIN)/python -m compileall -q -j 0 "$$($(SITE_PACKAGES))" >/dev/null

# setuptools' note on every editable install ("Editable installation ... folders with the same
# name as your package"), which pip shows even with --quiet: it warns of nothing this layout does
# (models/ is mapped to bayescal.models by the finder it installs), and a new user took it for a
# fault.  The filter matches that one message only.
EDITABLE_NOTE := PYTHONWARNINGS="ignore:Editable installation:UserWarning"

$(STAMP_RUN): pyproject.toml | $(BIN)/python
	$(EDITABLE_NOTE) $(BIN)/python -m pip install --quiet --no-compile -e .
	$(COMPILE)
	touch $@

$(STAMP_TEST): pyproject.toml | $(BIN)/python
	$(EDITABLE_NOTE) $(BIN)/python -m pip install --quiet --no-compile -e ".[test]"
	$(COMPILE)
	touch $@ $(STAMP_RUN)

demo: $(STAMP_RUN)
	$(BIN)/bayescal demo

# Lint and format (ruff, configured in pyproject.toml), then the whole suite on two workers
# (pytest-xdist), one per core of the CI machine.  ``loadgroup``: tests marked with one
# ``xdist_group`` run in one process, so a session fixture they share is built once (the crowd
# fit of tests/conftest.py); the 25 slowest tests are listed at the end, to keep an eye on the
# 20-minute budget.
PYTEST := $(BIN)/python -m pytest -n 2 --dist loadgroup --durations=25

# One OpenBLAS thread a process: the two workers already fill the two cores, and OpenBLAS's
# extra threads (numpy's and scipy's) spin while they wait, taking a core from the other worker
# (measured: tests/correction's quick tests 22% faster).  Every process the tests start inherits
# it, and `make outputs` stores the notebooks' outputs under the same setting.
test check outputs: export OPENBLAS_NUM_THREADS = 1

test: lint
	$(PYTEST)

# The quick loop while editing: lint, then the tests not marked slow.
check: lint
	$(PYTEST) -m "not slow"

# The documentation site into docs/_build/html, strict: every warning, a broken cross-reference
# included, fails the build (tests/test_docs.py runs the same build).
# Store a fresh run of every output the project shows: the getting-started command's (in the
# README and docs/getting-started.md) and every notebook's, with the numerical stack that made
# them.  tests/shown_outputs.py says how the tests compare them (exactly on that stack).
outputs: $(STAMP_TEST)
	$(BIN)/python -m tests.shown_outputs

docs: $(STAMP_TEST)
	$(BIN)/python -m sphinx -b html -W -n --keep-going -q docs docs/_build/html
	@echo "Open docs/_build/html/index.html"

lint: $(STAMP_TEST)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache .hypothesis docs/_build

# Side-by-side benchmarks against peers, in their own environment so that peers never enter
# the test environment.  Results go in benchmarks/RESULTS.md with this command.
BENCH_VENV := .venv-bench
bench:
	$(PYTHON) -m venv $(BENCH_VENV)
	$(BENCH_VENV)/bin/python -m pip install --quiet --upgrade pip
	$(EDITABLE_NOTE) $(BENCH_VENV)/bin/python -m pip install --quiet -e . -r benchmarks/requirements.txt
	$(BENCH_VENV)/bin/python benchmarks/bench_dawid_skene.py
	$(BENCH_VENV)/bin/python benchmarks/metric_core.py
	$(BENCH_VENV)/bin/python benchmarks/multiclass_metrics.py
	$(BENCH_VENV)/bin/python benchmarks/fit_end_to_end.py
	$(BENCH_VENV)/bin/python benchmarks/crowd_em.py
	$(BENCH_VENV)/bin/python benchmarks/crowd_em.py --items 20000 --workers 200 --spammers 0.4 --mace --repeats 3
	$(BENCH_VENV)/bin/python benchmarks/gold_ppi_agreement.py
