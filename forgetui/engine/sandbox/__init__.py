"""The sandbox every action goes through (DESIGN.md section 6): paths resolve inside the
workspace; commands run without a shell from an allow-list, with a timeout, an output cap and an
allow-listed environment, under bubblewrap where it works (read-only system, hidden home, private
/tmp, PID and network namespaces), and secret values are cut from what they print."""

from __future__ import annotations

from forgetui.engine.sandbox.argv import program_argv, split_command
from forgetui.engine.sandbox.environment import child_env
from forgetui.engine.sandbox.errors import SandboxError, SandboxUnavailable
from forgetui.engine.sandbox.mode import MODE_VARIABLE, SandboxMode, SandboxName, sandbox_mode
from forgetui.engine.sandbox.paths import TASK_DIR_NAME, resolve_path, workspace_relative
from forgetui.engine.sandbox.process import (
    DEFAULT_OUTPUT_CAP,
    DEFAULT_TIMEOUT_S,
    CommandResult,
    cap_text,
    run_command,
)
from forgetui.engine.sandbox.redact import redact, redaction_note, secrets_of

__all__ = [
    "DEFAULT_OUTPUT_CAP",
    "DEFAULT_TIMEOUT_S",
    "MODE_VARIABLE",
    "TASK_DIR_NAME",
    "CommandResult",
    "SandboxError",
    "SandboxMode",
    "SandboxName",
    "SandboxUnavailable",
    "cap_text",
    "child_env",
    "program_argv",
    "redact",
    "redaction_note",
    "resolve_path",
    "run_command",
    "sandbox_mode",
    "secrets_of",
    "split_command",
    "workspace_relative",
]
