"""The `local_model` tests' server: llama.cpp's OpenAI-compatible server serving Gemma 3 270M,
started once per session on a free loopback port and stopped at the end.

It skips, saying why, where there is no llama Python or no model (`make local-model` builds
them; FORGETUI_LLAMA_PYTHON and FORGETUI_LLAMA_MODEL point at others): see llama_server.py.
Where FORGETUI_REQUIRE_LOCAL_MODEL=1 (.ci/run sets it once the build succeeded) it fails
instead: a green run then means the real model was driven."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

from tests.local_model.llama_server import (
    LlamaServer,
    Unavailable,
    gguf_model,
    llama_python,
    running_server,
)

REQUIRE_VARIABLE = "FORGETUI_REQUIRE_LOCAL_MODEL"


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """On several workers (`make test` runs `-n 2 --dist loadgroup`) these tests share one
    worker, so the model is loaded into one server, once."""
    for item in items:
        if item.get_closest_marker("local_model") is not None:
            item.add_marker(pytest.mark.xdist_group("local_model"))


@pytest.fixture(scope="session")
def llama_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LlamaServer]:
    try:
        python = llama_python()
        model = gguf_model(python)
    except Unavailable as exc:
        if os.environ.get(REQUIRE_VARIABLE) == "1":
            pytest.fail(f"no local model, and {REQUIRE_VARIABLE}=1: {exc}")
        pytest.skip(f"no local model ({REQUIRE_VARIABLE} is not 1): {exc}")
    log = tmp_path_factory.mktemp("llama") / "server.log"
    with running_server(python, model, log) as server:
        yield server
