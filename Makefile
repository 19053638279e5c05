# `make run` opens the app on the bundled sample; `make test` runs the whole suite.
PY ?= python3.11
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
TEST_STAMP := $(VENV)/.installed-test

.PHONY: run test lint bench clean

$(BIN)/python:
	@command -v $(PY) >/dev/null 2>&1 || { echo "need $(PY) (Python 3.11)"; exit 2; }
	$(PY) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip

$(STAMP): $(BIN)/python pyproject.toml
	$(BIN)/python -m pip install -q -e .
	touch $@

$(TEST_STAMP): $(BIN)/python pyproject.toml
	$(BIN)/python -m pip install -q -e '.[test]'
	touch $@ $(STAMP)

run: $(STAMP)
	$(BIN)/forgetui

test: $(TEST_STAMP)
	$(BIN)/ruff check forgetui tests bench
	$(BIN)/mypy forgetui
	$(BIN)/python -m pytest

lint: $(TEST_STAMP)
	$(BIN)/ruff check forgetui tests bench
	$(BIN)/ruff format --check forgetui tests bench

bench: $(TEST_STAMP)
	for b in bench/bench_*.py; do $(BIN)/python $$b || exit 1; done

clean:
	rm -rf $(VENV) runs
