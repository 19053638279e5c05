"""Which tasks `forgetui open PATH` (or `forgetui`) opens: the launcher's answer, and the one the
child counting the first view finds on its own before the launcher has read anything."""

from __future__ import annotations

from pathlib import Path

from forgetui.engine.api import ForgeError


def tasks_to_open(path: str | None, runs: bool = False) -> list[Path] | None:
    """The tasks PATH (or `runs`, or the current directory) holds; None when a sample is to be
    instantiated. Bad PATH: a ForgeError (exit 2)."""
    from forgetui.engine import api

    if runs:
        if path is not None:
            raise ForgeError("open: give PATH or --runs, not both")
        return api.tasks_at(api.runs_root())
    if path is None:
        try:
            return api.tasks_at(Path.cwd(), nested=False)
        except ForgeError:
            return None  # not a workspace: the sample
    if api.find_sample(path) is not None:
        return None
    return api.tasks_at(path)
