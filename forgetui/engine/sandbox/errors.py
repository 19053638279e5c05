"""What the sandbox refuses (the model reads it) and what stops it from running at all (the
operator reads it)."""

from __future__ import annotations

from forgetui.engine.base.errors import ForgeError


class SandboxError(ForgeError):
    """A path or command the sandbox refuses; the message says why, for the model to read."""

    title = "refused by the sandbox"


class SandboxUnavailable(ForgeError):
    """The sandbox the operator asked for (FORGETUI_SANDBOX) cannot run here: exit 2, not a
    silent fallback to weaker confinement."""

    title = "sandbox unavailable"
