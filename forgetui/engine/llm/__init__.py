"""The model layer: one action per response from a real LLM (litellm), a replay script or the
operator. Importing this package never imports litellm; the first real call does.

Each name is imported from its module the first time it is asked for: a reader that needs one
module of the layer (the workbench's first view asks what a server's findings change) does
not load the parsers, the replay reader and the model classes with it."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from forgetui.engine.llm.base import Model, ModelReply
    from forgetui.engine.llm.factory import make_model
    from forgetui.engine.llm.human import HumanModel, parse_human
    from forgetui.engine.llm.litellm_model import LiteLLMModel
    from forgetui.engine.llm.parse import ParsedAction, parse_text, parse_tool_call, tool_schemas
    from forgetui.engine.llm.replay import EXHAUSTED, ReplayModel, load_script

_WHERE: dict[str, tuple[str, ...]] = {
    "forgetui.engine.llm.base": ("Model", "ModelReply"),
    "forgetui.engine.llm.factory": ("make_model",),
    "forgetui.engine.llm.human": ("HumanModel", "parse_human"),
    "forgetui.engine.llm.litellm_model": ("LiteLLMModel",),
    "forgetui.engine.llm.parse": ("ParsedAction", "parse_text", "parse_tool_call", "tool_schemas"),
    "forgetui.engine.llm.replay": ("EXHAUSTED", "ReplayModel", "load_script"),
}
_MODULE_OF = {name: module for module, names in _WHERE.items() for name in names}


def __getattr__(name: str) -> Any:
    """A name of the layer, imported from its module the first time it is asked for."""
    module = _MODULE_OF.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


__all__ = [
    "EXHAUSTED",
    "HumanModel",
    "LiteLLMModel",
    "Model",
    "ModelReply",
    "ParsedAction",
    "ReplayModel",
    "load_script",
    "make_model",
    "parse_human",
    "parse_text",
    "parse_tool_call",
    "tool_schemas",
]
