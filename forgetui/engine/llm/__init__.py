"""The model layer: one action per response from a real LLM (litellm), a replay script or the
operator. Importing this package never imports litellm; the first real call does."""

from forgetui.engine.llm.base import Model, ModelReply
from forgetui.engine.llm.factory import make_model
from forgetui.engine.llm.human import HumanModel, parse_human
from forgetui.engine.llm.litellm_model import LiteLLMModel
from forgetui.engine.llm.parse import ParsedAction, parse_text, parse_tool_call, tool_schemas
from forgetui.engine.llm.replay import EXHAUSTED, ReplayModel, load_script

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
