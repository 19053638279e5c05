"""The agent's actions, executed in the sandboxed workspace.

A package so that each concern reads on its own: the argument check every caller shares
(`args`), the environment and outcome types (`outcome`), the handlers by kind (`files`,
`commands`, `load_context`) and the one entry point that runs them (`dispatch`). Import from
here; the submodules' layout is not part of the interface.

The names load on first use, as the sandbox package's do: the argument check (what the
context's tool schemas need) comes without the handlers and what they run."""

from __future__ import annotations

from typing import TYPE_CHECKING

from forgetui.engine.base.lazy_names import lazy_getattr

if TYPE_CHECKING:
    from forgetui.engine.actions.args import ActionArgsError, action_signature, validate_args
    from forgetui.engine.actions.dispatch import CONTROL_ACTIONS, WORKSPACE_ACTIONS, execute
    from forgetui.engine.actions.files import cap_lines
    from forgetui.engine.actions.load_context import imported_modules, markdown_sections
    from forgetui.engine.actions.outcome import (
        SUMMARY_CHARS,
        ActionEnv,
        ActionOutcome,
        Snapshot,
    )

_MODULES = {
    "ActionArgsError": "args",
    "action_signature": "args",
    "validate_args": "args",
    "CONTROL_ACTIONS": "dispatch",
    "WORKSPACE_ACTIONS": "dispatch",
    "execute": "dispatch",
    "cap_lines": "files",
    "imported_modules": "load_context",
    "markdown_sections": "load_context",
    "SUMMARY_CHARS": "outcome",
    "ActionEnv": "outcome",
    "ActionOutcome": "outcome",
    "Snapshot": "outcome",
}

__all__ = [
    "CONTROL_ACTIONS",
    "SUMMARY_CHARS",
    "WORKSPACE_ACTIONS",
    "ActionArgsError",
    "ActionEnv",
    "ActionOutcome",
    "Snapshot",
    "action_signature",
    "cap_lines",
    "execute",
    "imported_modules",
    "markdown_sections",
    "validate_args",
]

__getattr__ = lazy_getattr(globals(), {name: f".{module}" for name, module in _MODULES.items()})
