"""Shared fixtures. Helpers register their fixture modules in pytest_plugins."""

from __future__ import annotations

import subprocess
from collections.abc import Generator, Iterator

import pytest

from tests import fuzz_seed

pytest_plugins: list[str] = ["tests.fake_openai"]

# pyproject's `timeout` bounds every test; a local_model test may load the model (up to 180 s
# on a busy machine) and then wait out two model calls of up to 210 s each before it fails on
# its own, so it gets the room to say why rather than a watchdog's stack dump (faulthandler's
# dump at 280 s still comes: a note, not a failure).
LOCAL_MODEL_TIMEOUT_S = 1500


def pytest_configure(config: pytest.Config) -> None:
    """Every test has a time limit: without pytest-timeout (the test extras) none would."""
    if not config.pluginmanager.hasplugin("timeout"):
        raise pytest.UsageError(
            "pytest-timeout is not loaded, so no test would have a time limit: install the test"
            " extras (`make venv`), and do not pass `-p no:timeout`"
        )


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        if item.get_closest_marker("local_model") and not item.get_closest_marker("timeout"):
            item.add_marker(pytest.mark.timeout(LOCAL_MODEL_TIMEOUT_S))


@pytest.fixture(autouse=True)
def _no_inherited_virtual_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """Commands run in the project's Python environment, and an active $VIRTUAL_ENV is one: a
    developer's shell must not change which interpreter the tests' commands get."""
    monkeypatch.delenv("VIRTUAL_ENV", raising=False)


@pytest.fixture(autouse=True)
def _no_server_probe(monkeypatch: pytest.MonkeyPatch) -> None:
    """A run against a server probes it first (server_findings.py), which would take the
    scripted replies of a fake server meant for the run; the tests of probing turn it on."""
    monkeypatch.setenv("FORGETUI_PROBE", "0")


@pytest.fixture(autouse=True)
def _no_kept_token_counts(monkeypatch: pytest.MonkeyPatch) -> None:
    """Counts come from tiktoken, and nothing is kept in the user's folders (token_store.py);
    the store's own tests turn it on."""
    monkeypatch.setenv("FORGETUI_TOKEN_CACHE", "0")


def pytest_report_header() -> str:
    return f"fuzz seed: {fuzz_seed.SEED} ({fuzz_seed.SEED_VARIABLE}=N replays run N)"


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """The seed at the end of every run, -q included (which hides the header)."""
    terminalreporter.write_line(
        f"fuzz seed: {fuzz_seed.SEED}; replay: {fuzz_seed.replay_command()}"
    )


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    """A failing fuzz test names the seed it drew from, and how to replay it."""
    report = yield
    if item.get_closest_marker("fuzz") is not None:
        report.user_properties.append(("fuzz_seed", fuzz_seed.SEED))
        if report.failed:
            report.sections.append(
                ("fuzz seed", f"seed {fuzz_seed.SEED}: {fuzz_seed.replay_command(item.nodeid)}")
            )
    return report


@pytest.fixture
def unrelated() -> Iterator[subprocess.Popen[bytes]]:
    """A live process that is not forgetui: what a reused pid names after a restart."""
    proc = subprocess.Popen(["sleep", "300"])
    yield proc
    proc.kill()
    proc.wait()
