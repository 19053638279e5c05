"""The compiled context: what one step sends the model, rebuilt from the
task's state every step, never a history. compiler.py tells how; this package re-exports what
the rest of the engine uses.

The names load on first use: `status` reads context/health.py, which must not pay for the
compiler (the model layer and the actions come with it)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from forgetui.engine.base.lazy_names import lazy_getattr

if TYPE_CHECKING:
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

_MODULES = {
    "compile_context": "compiler",
    "RECENT_RESULTS": "inputs",
    "CompiledContext": "inputs",
    "ContextInputs": "inputs",
    "Section": "inputs",
    "context_inputs": "inputs",
    "effective_phase": "inputs",
    "render_el": "render",
    "El": "tree",
    "validate_context": "validate",
}


__getattr__ = lazy_getattr(globals(), {name: f".{module}" for name, module in _MODULES.items()})


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
