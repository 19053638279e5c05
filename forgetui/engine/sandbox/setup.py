"""Everything a task's commands run with, decided in one place: the workspace, the allow-list,
the project's Python environment, the network, the variables passed through and the resource
limits. Built once from task.yaml and handed to each command, so run_cmd, the checks and
load_context cannot disagree on which Python runs."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from forgetui.engine.sandbox.environment import child_env
from forgetui.engine.sandbox.limits import ResourceLimits
from forgetui.engine.sandbox.paths import MEMORY_PARTS, TASKS_PARTS
from forgetui.engine.sandbox.project_env import ProjectEnvironment, find_environment

if TYPE_CHECKING:
    from forgetui.engine.folder.task_spec import TaskSpec

# A project environment's interpreter must not be pointed at another installation's stdlib
# (PYTHONHOME) or another checkout's packages (PYTHONPATH: tests would pass on code the agent
# never touched); forgetui's own interpreter keeps them, as it ran with them. A task that
# wants them lists them in env_passthrough.
_FOREIGN = ("PYTHONHOME", "PYTHONPATH")


@dataclass(frozen=True)
class CommandSetup:
    workspace: Path
    allowed: tuple[str, ...]
    environment: ProjectEnvironment
    network: bool = False
    passthrough: tuple[str, ...] = ()
    limits: ResourceLimits = field(default_factory=ResourceLimits)
    environ: Mapping[str, str] = field(default_factory=lambda: os.environ)
    # workspace folders whose files a command must leave as they are (guard.py): the project
    # memory, and the task's own folder
    guarded: tuple[str, ...] = ("/".join(MEMORY_PARTS),)

    @classmethod
    def for_task(
        cls, spec: TaskSpec, workspace: Path, environ: Mapping[str, str] = os.environ
    ) -> CommandSetup:
        """The setup task.yaml describes; PythonEnvError if its python_env is not one."""
        options = spec.sandbox
        return cls(
            workspace=workspace,
            allowed=tuple(spec.allowed_commands),
            environment=find_environment(workspace, spec.python_env, environ),
            network=options.network,
            passthrough=tuple(spec.env_passthrough),
            limits=ResourceLimits(options.memory_mb, options.file_size_mb, options.processes),
            environ=environ,
            guarded=("/".join(MEMORY_PARTS), "/".join((*TASKS_PARTS, spec.id))),
        )

    @classmethod
    def plain(
        cls,
        workspace: Path,
        allowed: Sequence[str],
        *,
        network: bool = False,
        passthrough: Sequence[str] = (),
        environ: Mapping[str, str] = os.environ,
    ) -> CommandSetup:
        """A setup without a task: the workspace's environment, default limits."""
        return cls(
            workspace=workspace,
            allowed=tuple(allowed),
            environment=find_environment(workspace, None, environ),
            network=network,
            passthrough=tuple(passthrough),
            environ=environ,
        )

    def search_path(self) -> str:
        """The operator's PATH, where programs not in the environment are looked up."""
        return self.environ.get("PATH", os.defpath)

    def child_env(self, home: str | None = None) -> dict[str, str]:
        """The command's variables: the allow-listed ones, with the environment's bin/ first
        on PATH and VIRTUAL_ENV naming it (as `source .venv/bin/activate` would)."""
        env = child_env(self.environ, self.passthrough, home=home)
        project = self.environment
        if project.source != "forgetui":
            for name in _FOREIGN:
                if name not in self.passthrough:
                    env.pop(name, None)
        env.pop("VIRTUAL_ENV", None)
        if project.is_venv and project.prefix is not None:
            env["VIRTUAL_ENV"] = str(project.prefix)
        if project.bin_dir is not None:
            rest = [part for part in env.get("PATH", "").split(os.pathsep) if part]
            first = str(project.bin_dir)
            env["PATH"] = os.pathsep.join([first, *(part for part in rest if part != first)])
        return env
