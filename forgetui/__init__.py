"""forgetui: supervise an LLM agent one compiled-context step at a time."""

__version__ = "0.1.0"
