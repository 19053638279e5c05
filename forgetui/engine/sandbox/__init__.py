"""The sandbox every action goes through: paths resolve inside the workspace; commands run in
the project's own Python environment from an allow-list, with a timeout, an output cap and an
allow-listed environment, under bubblewrap where it works (read-only system and environment,
hidden home, private /tmp, PID and network namespaces, resource limits, shell strings allowed),
and secret values are cut from what they print.

The names load on first use, as the context package's do: a view value (the sandbox mode,
the project's environment) is read without the process runner and the probe's imports."""

from __future__ import annotations

from typing import TYPE_CHECKING

from forgetui.engine.base.lazy_names import lazy_getattr

# loaded at once (it is small): the function `redact` has its module's name, and any import of
# the module sets the package's `redact` to the module, where a lazy name would never be asked
from forgetui.engine.sandbox.redact import redact, redaction_note, secrets_of

if TYPE_CHECKING:
    from forgetui.engine.sandbox.argv import (
        check_allowed,
        program_argv,
        shell_syntax,
        split_command,
    )
    from forgetui.engine.sandbox.environment import child_env
    from forgetui.engine.sandbox.errors import SandboxError, SandboxUnavailable
    from forgetui.engine.sandbox.limits import ResourceLimits
    from forgetui.engine.sandbox.mode import (
        MODE_VARIABLE,
        SandboxMode,
        SandboxName,
        sandbox_mode,
        start_probe,
    )
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
    from forgetui.engine.sandbox.setup import CommandSetup

_MODULES = {
    "check_allowed": "argv",
    "program_argv": "argv",
    "shell_syntax": "argv",
    "split_command": "argv",
    "child_env": "environment",
    "SandboxError": "errors",
    "SandboxUnavailable": "errors",
    "ResourceLimits": "limits",
    "MODE_VARIABLE": "mode",
    "SandboxMode": "mode",
    "SandboxName": "mode",
    "sandbox_mode": "mode",
    "start_probe": "mode",
    "TASK_DIR_NAME": "paths",
    "refuse_environment_write": "paths",
    "resolve_path": "paths",
    "workspace_relative": "paths",
    "DEFAULT_OUTPUT_CAP": "process",
    "DEFAULT_TIMEOUT_S": "process",
    "CommandResult": "process",
    "cap_text": "process",
    "command_name": "process",
    "run_command": "process",
    "run_in": "process",
    "undone_note": "process",
    "EnvSource": "project_env",
    "ProjectEnvironment": "project_env",
    "PythonEnvError": "project_env",
    "find_environment": "project_env",
    "CommandSetup": "setup",
}


__getattr__ = lazy_getattr(globals(), {name: f".{module}" for name, module in _MODULES.items()})


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
    "start_probe",
    "undone_note",
    "workspace_relative",
]
