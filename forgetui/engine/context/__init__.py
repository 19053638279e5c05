"""The compiled context: what one step sends the model, rebuilt from the
task's state every step, never a history. compiler.py tells how; this package re-exports what
the rest of the engine uses."""

from forgetui.engine.context.compiler import compile_context
from forgetui.engine.context.inputs import (
    RECENT_RESULTS,
    CompiledContext,
    ContextInputs,
    Section,
    context_inputs,
    effective_phase,
)
from forgetui.engine.context.render import render_el
from forgetui.engine.context.tree import El
from forgetui.engine.context.validate import validate_context

__all__ = [
    "RECENT_RESULTS",
    "CompiledContext",
    "ContextInputs",
    "El",
    "Section",
    "compile_context",
    "context_inputs",
    "effective_phase",
    "render_el",
    "validate_context",
]
