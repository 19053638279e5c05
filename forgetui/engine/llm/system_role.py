"""Models without a system role: their chat template (Gemma's) has none, and the
server drops or mangles the system message, so the agent never sees its instructions.

For them the request carries ONE user message holding both logical parts: the system prompt
wrapped in `<system>` ... `</system>` lines, a blank line, then the context. The tags are
plain text any model reads as a heading, and the split stays visible in the server's logs.
The saved context (artifacts/contexts/step-N.yaml) keeps the two messages as compiled.
"""

from __future__ import annotations

from collections.abc import Sequence
from types import ModuleType

from forgetui.engine.folder.model_options import SystemRole

SYSTEM_OPEN = "<system>"
SYSTEM_CLOSE = "</system>"


def resolve_system_role(litellm: ModuleType, model: str, given: SystemRole | None) -> SystemRole:
    """`given` when set; else "merge" only where litellm's model info says no system messages.

    `supports_system_messages` answers False for a model it does not know, which would merge
    for every local server; the model info itself raises there, and an unknown model keeps
    "system"."""
    if given is not None:
        return given
    try:
        info = litellm.get_model_info(model=model)
    except Exception:
        return "system"
    return "merge" if info.get("supports_system_messages") is False else "system"


def merge_system(messages: Sequence[dict[str, str]]) -> list[dict[str, str]]:
    """The system messages folded into the first user message (see the module docstring)."""
    system = [m["content"] for m in messages if m.get("role") == "system"]
    rest = [dict(m) for m in messages if m.get("role") != "system"]
    if not system:
        return rest
    head = f"{SYSTEM_OPEN}\n" + "\n\n".join(system).strip("\n") + f"\n{SYSTEM_CLOSE}"
    for message in rest:
        if message.get("role") == "user":
            message["content"] = f"{head}\n\n{message.get('content', '')}"
            return rest
    return [{"role": "user", "content": head}, *rest]
