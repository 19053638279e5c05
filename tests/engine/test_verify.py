"""Verification: each check kind, pytest's summary, when checks change and what regressed."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from forgetui.engine.checks.verify import UnknownCheckError, pytest_summary, run_checks
from forgetui.engine.folder.task_spec import TaskSpec
from forgetui.engine.folder.task_state import CheckResult, Verification

FLAG_CHECK = {
    "name": "flag",
    "kind": "command",
    "cmd": [
        "python",
        "-c",
        "import pathlib, sys; sys.exit(pathlib.Path('flag').read_text() != 'ok')",
    ],
}


def make_spec(*checks: dict[str, Any], allowed: list[str] | None = None) -> TaskSpec:
    extra = {"allowed_commands": allowed} if allowed is not None else {}
    return TaskSpec.model_validate({"id": "t", "goal": "g", "checks": list(checks), **extra})


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    return tmp_path


@pytest.fixture
def fast_child_pytest(monkeypatch: pytest.MonkeyPatch) -> None:
    """A child pytest without this venv's plugins (hypothesis alone costs ~1.5 s to import)."""
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")


# ----------------------------------------------------------------------------- pytest summary


@pytest.mark.parametrize(
    ("output", "passed", "total", "line"),
    [
        ("..F\n=== 1 failed, 2 passed in 0.12s ===\n", 2, 3, "1 failed, 2 passed"),
        ("1 passed, 1 warning in 0.01s\n", 1, 1, "1 passed, 1 warning"),
        ("3 passed, 1 skipped, 2 errors in 1.50s (0:00:01)", 3, 5, None),
        ("5 passed, 2 xfailed, 1 deselected in 0.3s", 5, 5, None),
        ("2 errors in 0.10s", 0, 2, "2 errors"),
        ("no tests ran in 0.01s", 0, 0, "no tests ran"),
    ],
)
def test_pytest_summary_gives_passed_of_total(
    output: str, passed: int, total: int, line: str | None
) -> None:
    summary = pytest_summary(output)
    assert summary is not None
    assert (summary.passed, summary.total) == (passed, total)
    if line:
        assert summary.line == line


def test_a_summary_drops_the_wall_time_so_the_same_result_reads_the_same() -> None:
    for output in ("== 1 failed, 2 passed in 0.12s ==", "1 failed, 2 passed in 65.10s (0:01:05)"):
        summary = pytest_summary(output)
        assert summary is not None and summary.line == "1 failed, 2 passed"


def test_pytest_summary_takes_the_last_summary_and_ignores_other_output() -> None:
    assert pytest_summary("hello\nworld\n") is None
    output = "printed: 9 passed in 1s\n...\n== 4 passed in 0.20s =="
    summary = pytest_summary(output)
    assert summary is not None and summary.passed == 4


# ----------------------------------------------------------------------------- command checks


@pytest.mark.usefixtures("fast_child_pytest")
def test_real_pytest_run_is_parsed_to_passed_of_total(workspace: Path) -> None:
    (workspace / "test_math.py").write_text(
        "def test_one():\n    assert 1 + 1 == 2\n\n"
        "def test_two():\n    assert 2 * 2 == 4\n\n"
        "def test_three():\n    assert 3 - 1 == 1\n"
    )
    spec = make_spec(
        {"name": "tests", "kind": "command", "cmd": ["pytest", "-q", "-p", "no:cacheprovider"]}
    )
    failing = run_checks(spec, workspace, Verification(), step=1)
    result = failing.checks["tests"]
    assert not result.passing
    assert (result.passed, result.total) == (2, 3)
    assert "1 failed, 2 passed" in result.details
    assert not failing.ready_for_completion

    text = (workspace / "test_math.py").read_text().replace("== 1\n", "== 2\n")
    (workspace / "test_math.py").write_text(text)
    passing = run_checks(spec, workspace, failing, step=4)
    result = passing.checks["tests"]
    assert result.passing
    assert (result.passed, result.total) == (3, 3)
    assert result.changed_at_step == 4
    assert passing.ready_for_completion


def test_command_without_pytest_summary_shows_exit_code_and_last_lines(workspace: Path) -> None:
    code = "import sys; print('\\n'.join(f'line {i}' for i in range(20))); sys.exit(2)"
    spec = make_spec({"name": "script", "kind": "command", "cmd": ["python", "-c", code]})
    result = run_checks(spec, workspace, Verification(), step=1).checks["script"]
    assert not result.passing
    assert result.details.startswith("exit 2")
    assert "line 19" in result.details and "line 10" not in result.details
    assert result.passed is None and result.total is None


def test_a_failing_check_names_workspace_files_relative_to_it(workspace: Path) -> None:
    """`python greeting.py` on a missing file prints its absolute path; the context says
    `greeting.py`, and the interpreter `python`, wherever the checkout and its venv live."""
    spec = make_spec({"name": "runs", "kind": "command", "cmd": ["python", "greeting.py"]})
    result = run_checks(spec, workspace, Verification(), step=1).checks["runs"]
    assert not result.passing and "python: can't open file 'greeting.py'" in result.details
    assert str(workspace.resolve()) not in result.details


def test_command_check_goes_through_the_allow_list(workspace: Path) -> None:
    spec = make_spec(
        {"name": "lint", "kind": "command", "cmd": ["ruff", "check", "."]}, allowed=["python"]
    )
    result = run_checks(spec, workspace, Verification(), step=1).checks["lint"]
    assert not result.passing
    assert "refused" in result.details and "not allowed" in result.details


def test_command_check_timeout_fails_the_check(workspace: Path) -> None:
    spec = make_spec(
        {"name": "slow", "kind": "command", "cmd": ["python", "-c", "import time; time.sleep(60)"]}
    )
    result = run_checks(spec, workspace, Verification(), step=1, timeout_s=0.5).checks["slow"]
    assert not result.passing
    assert "timed out after 0.5s" in result.details


def test_command_check_does_not_see_secrets(
    workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-secret-456")
    code = "import os, sys; sys.exit('sk-ant-secret-456' in str(os.environ))"
    spec = make_spec({"name": "env", "kind": "command", "cmd": ["python", "-c", code]})
    assert run_checks(spec, workspace, Verification(), step=1).checks["env"].passing


# ----------------------------------------------------------------------------- regex checks


def test_must_not_match_names_the_offending_file_and_line(workspace: Path) -> None:
    cli = workspace / "cli" / "commands"
    cli.mkdir(parents=True)
    (cli / "good.py").write_text("@click.command(help='x')\ndef good():\n    pass\n")
    (cli / "bad.py").write_text("import click\n\n@click.command()\ndef bad():\n    pass\n")
    spec = make_spec(
        {
            "name": "help-param",
            "kind": "regex",
            "path": "cli/commands/*.py",
            "must_not_match": "@click.command\\(\\)\\s*\\ndef",
        }
    )
    result = run_checks(spec, workspace, Verification(), step=2).checks["help-param"]
    assert not result.passing
    assert "cli/commands/bad.py:3: @click.command()" in result.details
    assert "good.py" not in result.details

    (cli / "bad.py").write_text("import click\n\n@click.command(help='y')\ndef bad():\n    pass\n")
    fixed = run_checks(spec, workspace, Verification(), step=3).checks["help-param"]
    assert fixed.passing


def test_a_regex_check_quoting_a_secret_value_keeps_it_out_of_state(
    workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The agent wrote the operator's key into a file; the check that quotes the offending
    line must not carry it into state.yaml and the next context."""
    monkeypatch.setenv("OPENAI_API_KEY", "sk-live-abcdef0123456789")
    (workspace / "config.py").write_text("KEY = 'sk-live-abcdef0123456789'\n")
    spec = make_spec(
        {"name": "no-keys", "kind": "regex", "path": "*.py", "must_not_match": "KEY = "}
    )
    result = run_checks(spec, workspace, Verification(), step=1).checks["no-keys"]
    assert not result.passing
    assert "sk-live-abcdef0123456789" not in result.details
    assert "config.py:1: KEY = '[redacted $OPENAI_API_KEY]'" in result.details
    assert "output redacted (OPENAI_API_KEY)" in result.details


def test_must_match_needs_one_file_to_match(workspace: Path) -> None:
    (workspace / "src").mkdir()
    (workspace / "src" / "a.py").write_text("x = 1\n")
    (workspace / "src" / "deep").mkdir()
    (workspace / "src" / "deep" / "b.py").write_text("def main():\n    return 0\n")
    spec = make_spec(
        {"name": "main", "kind": "regex", "path": "src/**/*.py", "must_match": r"^def main\("}
    )
    result = run_checks(spec, workspace, Verification(), step=1).checks["main"]
    assert result.passing
    assert "src/deep/b.py:1" in result.details

    (workspace / "src" / "deep" / "b.py").write_text("def other():\n    return 0\n")
    result = run_checks(spec, workspace, Verification(), step=2).checks["main"]
    assert not result.passing
    assert "matches none of 2 file(s)" in result.details


def test_regex_check_with_no_matching_files_fails(workspace: Path) -> None:
    spec = make_spec({"name": "r", "kind": "regex", "path": "nowhere/*.py", "must_not_match": "x"})
    result = run_checks(spec, workspace, Verification(), step=1).checks["r"]
    assert not result.passing
    assert "no files match nowhere/*.py" in result.details


def test_regex_check_ignores_the_task_folder(workspace: Path) -> None:
    contexts = workspace / ".agentforge" / "tasks" / "t" / "artifacts" / "contexts"
    contexts.mkdir(parents=True)
    (contexts / "step-000001.yaml").write_text("must_not_match: forbidden\n")
    (workspace / "notes.yaml").write_text("clean: true\n")
    spec = make_spec(
        {"name": "r", "kind": "regex", "path": "**/*.yaml", "must_not_match": "forbidden"}
    )
    assert run_checks(spec, workspace, Verification(), step=1).checks["r"].passing


def test_check_globs_match_one_component_per_star_and_enter_hidden_dirs_only_by_name(
    workspace: Path,
) -> None:
    for rel in ("top.yml", "a/one.yml", "a/b/two.yml", ".github/ci.yml", "node_modules/m.yml"):
        (workspace / rel).parent.mkdir(parents=True, exist_ok=True)
        (workspace / rel).write_text("on: push\n")
    expected = {
        "*.yml": "top.yml exists",
        "*/*.yml": "a/one.yml exists",
        "**/*.yml": "a/b/two.yml, a/one.yml, top.yml exists",
        "a/**/*.yml": "a/b/two.yml, a/one.yml exists",
        ".github/*.yml": ".github/ci.yml exists",
        "node_modules/*.yml": "node_modules/m.yml exists",
        "a/**": "a/** does not exist",
    }
    spec = make_spec(
        *({"name": pattern, "kind": "file_exists", "path": pattern} for pattern in expected)
    )
    checks = run_checks(spec, workspace, Verification(), step=1).checks
    assert {name: result.details for name, result in checks.items()} == expected


def test_invalid_regex_fails_with_a_reason(workspace: Path) -> None:
    (workspace / "a.py").write_text("x\n")
    spec = make_spec({"name": "r", "kind": "regex", "path": "a.py", "must_match": "("})
    result = run_checks(spec, workspace, Verification(), step=1).checks["r"]
    assert not result.passing
    assert result.details.startswith("invalid regex")


# ----------------------------------------------------------------------------- file_exists


def test_file_exists(workspace: Path) -> None:
    spec = make_spec({"name": "module", "kind": "file_exists", "path": "mathx/__init__.py"})
    missing = run_checks(spec, workspace, Verification(), step=1)
    assert not missing.checks["module"].passing
    assert "mathx/__init__.py does not exist" in missing.checks["module"].details

    (workspace / "mathx").mkdir()
    (workspace / "mathx" / "__init__.py").write_text("")
    present = run_checks(spec, workspace, missing, step=2)
    assert present.checks["module"].passing
    assert present.checks["module"].changed_at_step == 2
    assert present.ready_for_completion


# ----------------------------------------------------------------------------- over time


def test_changed_at_step_moves_only_when_passing_flips(workspace: Path) -> None:
    spec = make_spec(FLAG_CHECK)
    (workspace / "flag").write_text("no")
    first = run_checks(spec, workspace, Verification(), step=1)
    assert first.checks["flag"].changed_at_step == 1  # first time seen
    same = run_checks(spec, workspace, first, step=5)
    assert same.checks["flag"].changed_at_step == 1
    (workspace / "flag").write_text("ok")
    flipped = run_checks(spec, workspace, same, step=8)
    assert flipped.checks["flag"].passing
    assert flipped.checks["flag"].changed_at_step == 8
    assert flipped.step == 8
    assert flipped.checked_at is not None and flipped.checked_at.endswith("Z")


def test_regression_is_reported_at_the_step_it_happens(workspace: Path) -> None:
    spec = make_spec(FLAG_CHECK, {"name": "readme", "kind": "file_exists", "path": "flag"})
    (workspace / "flag").write_text("ok")
    good = run_checks(spec, workspace, Verification(), step=6)
    assert good.regressions == []
    assert good.ready_for_completion
    (workspace / "flag").write_text("broken")
    bad = run_checks(spec, workspace, good, step=7)
    assert bad.regressions == ["flag regressed at step 7"]
    assert not bad.ready_for_completion
    still_bad = run_checks(spec, workspace, bad, step=8)
    assert still_bad.regressions == []  # only the step where it went from passing to failing
    assert still_bad.checks["flag"].changed_at_step == 7


def test_no_checks_is_never_ready(workspace: Path) -> None:
    verification = run_checks(make_spec(), workspace, Verification(), step=1)
    assert verification.checks == {}
    assert not verification.ready_for_completion


def test_only_runs_one_check_and_keeps_the_others(workspace: Path) -> None:
    spec = make_spec(
        {"name": "a", "kind": "file_exists", "path": "a.txt"},
        {"name": "b", "kind": "file_exists", "path": "b.txt"},
    )
    previous = Verification(
        step=3,
        checks={"b": CheckResult(passing=True, details="earlier", changed_at_step=2)},
    )
    (workspace / "a.txt").write_text("")
    result = run_checks(spec, workspace, previous, step=4, only="a")
    assert result.checks["a"].passing and result.checks["a"].changed_at_step == 4
    assert result.checks["b"] == previous.checks["b"]  # not re-run: b.txt does not exist
    assert result.ready_for_completion

    partial = run_checks(spec, workspace, Verification(), step=5, only="a")
    assert "b" not in partial.checks
    assert not partial.ready_for_completion  # b was never run


def test_only_with_an_unknown_name_says_which_checks_exist(workspace: Path) -> None:
    spec = make_spec({"name": "a", "kind": "file_exists", "path": "a.txt"})
    with pytest.raises(UnknownCheckError, match=r"no check named 'zzz' \(checks: a\)"):
        run_checks(spec, workspace, Verification(), step=1, only="zzz")
