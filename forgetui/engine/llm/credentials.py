"""API keys: a missing key fails before any call, naming the variable, instead of
coming back from the provider as a server error that is retried; an OpenAI-compatible server
given with `--api-base` needs no key, so it gets a placeholder where none is set.

litellm says which variables a provider needs (`validate_environment`); only its verdict on
variables that hold a secret counts: Ollama's OLLAMA_API_BASE is optional, not a key."""

from __future__ import annotations

import os
import re
from types import ModuleType

from forgetui.engine.base.errors import ForgeError

PLACEHOLDER_API_KEY = "not-needed"
_KEY_NAME = re.compile(r"KEY|TOKEN|SECRET", re.IGNORECASE)
_KEYLESS_PROVIDERS = frozenset({"ollama", "ollama_chat"})


def missing_key_variables(litellm: ModuleType, model: str) -> list[str]:
    """The variables litellm wants for `model` and does not find, if any of them is a key."""
    if model.split("/", 1)[0] in _KEYLESS_PROVIDERS:
        return []
    try:
        verdict = litellm.validate_environment(model=model)
    except Exception:  # a model litellm cannot place: let the call say what is wrong
        return []
    missing = [str(name) for name in verdict.get("missing_keys") or []]
    # litellm counts a variable set to "" as set; the server then says "missing credentials"
    conventional = f"{model.split('/', 1)[0].upper()}_API_KEY"
    if os.environ.get(conventional) == "" and conventional not in missing:
        missing.append(conventional)
    return missing if any(_KEY_NAME.search(name) for name in missing) else []


def require_keys(litellm: ModuleType, model: str) -> None:
    """Raise the one-line error a run without the provider's key must stop with."""
    missing = missing_key_variables(litellm, model)
    if not missing:
        return
    names = missing[0] if len(missing) == 1 else ", ".join(missing[:-1]) + f" and {missing[-1]}"
    verb = "is" if len(missing) == 1 else "are"
    raise ForgeError(
        f"{names} {verb} not set: export it, or point --api-base at an OpenAI-compatible server"
    )
