"""Shared fixtures. Helpers register their fixture modules in pytest_plugins."""

from __future__ import annotations

import pytest

pytest_plugins: list[str] = ["tests.fake_openai"]

# pyproject's `timeout` bounds every test; a local_model test may load the model (up to 180 s
# on a busy machine) and then wait out two model calls of up to 210 s each before it fails on
# its own, so it gets the room to say why rather than a watchdog's stack dump (faulthandler's
# dump at 280 s still comes: a note, not a failure).
LOCAL_MODEL_TIMEOUT_S = 1500


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if not config.pluginmanager.hasplugin("timeout"):
        return  # pytest-timeout comes with the test extras; without it there is no limit
    for item in items:
        if item.get_closest_marker("local_model") and not item.get_closest_marker("timeout"):
            item.add_marker(pytest.mark.timeout(LOCAL_MODEL_TIMEOUT_S))


@pytest.fixture(autouse=True)
def _no_inherited_virtual_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """Commands run in the project's Python environment, and an active $VIRTUAL_ENV is one: a
    developer's shell must not change which interpreter the tests' commands get."""
    monkeypatch.delenv("VIRTUAL_ENV", raising=False)
