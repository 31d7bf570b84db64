# langchain-tepa: the two commands.
#   make demo   set up .venv and run the drift-reversal benchmark (embedded Chroma, offline)
#   make test   set up .venv and run ruff, mypy and the whole pytest suite
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: demo test lint typecheck unit integration venv clean

venv: $(STAMP)

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e ".[test,lint,typing,plot,notebooks,classic]"
	touch $(STAMP)

demo: $(STAMP)
	$(BIN)/tepa-bench demo --out bench-results

lint: $(STAMP)
	$(BIN)/ruff check langchain_tepa tests examples
	$(BIN)/ruff format --check langchain_tepa tests examples

typecheck: $(STAMP)
	$(BIN)/mypy

unit: $(STAMP)
	$(BIN)/pytest tests/unit_tests -q -p no:cacheprovider
	$(BIN)/pytest --doctest-modules langchain_tepa -q -p no:cacheprovider

integration: $(STAMP)
	$(BIN)/pytest tests/integration_tests -q -p no:cacheprovider

test: lint typecheck unit integration

clean:
	rm -rf $(VENV) bench-results .mypy_cache .ruff_cache .pytest_cache
