"""The sandbox every action goes through: paths resolve inside the workspace; commands run in
the project's own Python environment from an allow-list, with a timeout, an output cap and an
allow-listed environment, under bubblewrap where it works (read-only system and environment,
hidden home, private /tmp, PID and network namespaces, resource limits, shell strings allowed),
and secret values are cut from what they print."""

from __future__ import annotations

from forgetui.engine.sandbox.argv import check_allowed, program_argv, shell_syntax, split_command
from forgetui.engine.sandbox.environment import child_env
from forgetui.engine.sandbox.errors import SandboxError, SandboxUnavailable
from forgetui.engine.sandbox.limits import ResourceLimits
from forgetui.engine.sandbox.mode import MODE_VARIABLE, SandboxMode, SandboxName, sandbox_mode
from forgetui.engine.sandbox.paths import (
    TASK_DIR_NAME,
    refuse_environment_write,
    resolve_path,
    workspace_relative,
)
from forgetui.engine.sandbox.process import (
    DEFAULT_OUTPUT_CAP,
    DEFAULT_TIMEOUT_S,
    CommandResult,
    cap_text,
    command_name,
    run_command,
    run_in,
    undone_note,
)
from forgetui.engine.sandbox.project_env import (
    EnvSource,
    ProjectEnvironment,
    PythonEnvError,
    find_environment,
)
from forgetui.engine.sandbox.redact import redact, redaction_note, secrets_of
from forgetui.engine.sandbox.setup import CommandSetup

__all__ = [
    "DEFAULT_OUTPUT_CAP",
    "DEFAULT_TIMEOUT_S",
    "MODE_VARIABLE",
    "TASK_DIR_NAME",
    "CommandResult",
    "CommandSetup",
    "EnvSource",
    "ProjectEnvironment",
    "PythonEnvError",
    "ResourceLimits",
    "SandboxError",
    "SandboxMode",
    "SandboxName",
    "SandboxUnavailable",
    "cap_text",
    "check_allowed",
    "child_env",
    "command_name",
    "find_environment",
    "program_argv",
    "redact",
    "redaction_note",
    "refuse_environment_write",
    "resolve_path",
    "run_command",
    "run_in",
    "sandbox_mode",
    "secrets_of",
    "shell_syntax",
    "split_command",
    "undone_note",
    "workspace_relative",
]
