"""The agent's actions, executed in the sandboxed workspace.

A package so that each concern reads on its own: the argument check every caller shares
(`args`), the environment and outcome types (`outcome`), the handlers by kind (`files`,
`commands`, `load_context`) and the one entry point that runs them (`dispatch`). Import from
here; the submodules' layout is not part of the interface."""

from __future__ import annotations

from forgetui.engine.actions.args import ActionArgsError, action_signature, validate_args
from forgetui.engine.actions.dispatch import CONTROL_ACTIONS, WORKSPACE_ACTIONS, execute
from forgetui.engine.actions.files import cap_lines
from forgetui.engine.actions.load_context import imported_modules, markdown_sections
from forgetui.engine.actions.outcome import SUMMARY_CHARS, ActionEnv, ActionOutcome, Snapshot

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
