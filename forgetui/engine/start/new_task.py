"""`forgetui new`: a task made in a workspace as it is. The checks are the ones given, else the
project's own test command; the allow-list comes from the project's files
(workspace/project_files.py) and takes in every check's program; the checks then run once, as
step 0 (layout_checks.py). What was chosen, and why, goes to the caller one line at a time."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from pydantic import ValidationError

from forgetui.engine.base import compress as cz
from forgetui.engine.base.errors import ForgeError, first_error
from forgetui.engine.folder.task_folder import TaskFolder
from forgetui.engine.folder.task_spec import DEFAULT_ALLOWED_COMMANDS, TaskSpec
from forgetui.engine.folder.task_state import Verification
from forgetui.engine.sandbox import SandboxError, split_command
from forgetui.engine.sandbox.project_env import ProjectEnvironment, find_environment
from forgetui.engine.start.layout_checks import check_at_layout
from forgetui.engine.workspace.project_files import ProjectFiles, TestCommand, read_project

Notice = Callable[[str], object]
FLAGS = {"id": "--id", "goal": "--goal", "task_type": "--type", "checks": "--check-cmd"}


def new_task(
    workspace: Path | str,
    goal: str,
    task_type: str = "generic",
    criteria: Sequence[str] = (),
    check_cmds: Sequence[str] = (),
    task_id: str | None = None,
    *,
    propose_check: bool = True,
    run_checks: bool = True,
    on_notice: Notice | None = None,
) -> TaskFolder:
    """The task folder made; bad input is a ForgeError naming the flag, nothing written."""
    notice: Notice = on_notice or (lambda line: None)
    if not str(workspace).strip():  # Path("") would be the current directory
        raise ForgeError("--workspace: empty; give a directory")
    workspace = Path(workspace)
    if not workspace.is_dir():
        raise ForgeError(f"--workspace {workspace}: not a directory")
    if not goal.strip():
        raise ForgeError("--goal: empty; say in one sentence what the task is to achieve")
    argvs = [_argv(cmd) for cmd in check_cmds]
    project = read_project(workspace)
    test = project.test_command if propose_check and not argvs else None
    allowed = list(project.tools or DEFAULT_ALLOWED_COMMANDS)
    programs = [Path(argv[0]).name for argv in argvs] + ([test.argv[0]] if test else [])
    added = [name for name in dict.fromkeys(programs) if name not in allowed]
    try:
        spec = TaskSpec.from_goal(
            goal,
            task_type,
            criteria,
            argvs,
            task_id,
            test_cmd=test.argv if test else None,
            allowed_commands=[*allowed, *added],
        )
    except ValidationError as exc:
        field, _, message = first_error(exc)
        raise ForgeError(f"{FLAGS.get(field.split('.')[0], field)}: {message}") from None
    _say_choices(notice, project, spec, test, added, propose_check)
    notice(_environment_line(find_environment(workspace.resolve(), spec.python_env)))
    folder = TaskFolder.create(workspace, spec)
    if run_checks and spec.checks:
        notice(f"running the checks once (step 0) in {folder.workspace}")
        try:
            _say_results(notice, check_at_layout(folder))
        except KeyboardInterrupt:
            notice(f"checks interrupted: task {spec.id} is laid out with its checks not run")
            raise
    return folder


def _argv(cmd: str) -> list[str]:
    """A --check-cmd as the sandbox will read it: shell rules, no shell syntax."""
    try:
        return split_command(cmd)
    except SandboxError as exc:
        named = "" if repr(cmd) in exc.message else f" {cmd!r}"  # a parse error names it
        raise ForgeError(f"--check-cmd{named}: {exc.message}") from None


def _say_choices(
    notice: Notice,
    project: ProjectFiles,
    spec: TaskSpec,
    test: TestCommand | None,
    added: Sequence[str],
    propose_check: bool,
) -> None:
    for problem in project.problems:
        notice(f"{problem}; detection went on without it")
    source = f"from {project.tools_source}" if project.tools else "the default: no project files"
    also = f"; {', '.join(added)} for the checks" if added else ""
    notice(f"allowed commands: {', '.join(spec.allowed_commands)} ({source}{also})")
    if test is not None:
        notice(
            f"check tests: {test.text} (the project's test command: {test.source}); "
            "--check-cmd gives another, --no-check none"
        )
    elif not spec.checks:
        why = "--no-check" if not propose_check else "no test command in the project's files"
        notice(f"no checks ({why}); add them to task.yaml's `checks`")


def _environment_line(environment: ProjectEnvironment) -> str:
    """Which Python the commands will run with; forgetui's own is named as a fallback, since a
    project's tests usually cannot import the project from it."""
    line = f"python: {environment.python} ({environment.label})"
    if environment.source == "forgetui":
        line += (
            " (no .venv/ or venv/ in the workspace, no $VIRTUAL_ENV, no python_env in task.yaml):"
            " the checks import only what it has installed"
        )
    return line


def _say_results(notice: Notice, verification: Verification | None) -> None:
    for name, result in (verification.checks if verification else {}).items():
        detail = cz.one_line(result.details, 200)
        state = "passing" if result.passing else "failing"
        notice(f"check {name}: {state}" + (f" ({detail})" if detail else ""))
