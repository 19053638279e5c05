# `make run` opens the app on the bundled sample; `make test` runs the whole suite.
# Any Python >= 3.11: PY if given, else the first of python3, python3.13, python3.12, python3.11
# that is new enough.
PY ?= $(shell for p in python3 python3.13 python3.12 python3.11 python; do \
	command -v $$p >/dev/null 2>&1 && $$p -c 'import sys; sys.exit(sys.version_info < (3, 11))' \
	2>/dev/null && { echo $$p; break; }; done)
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
TEST_STAMP := $(VENV)/.installed-test

.PHONY: run test lint bench clean

$(BIN)/python:
	@test -n "$(PY)" || { echo "need Python 3.11 or newer (make PY=/path/to/python3 ...)"; exit 2; }
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
