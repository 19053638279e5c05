"""A package's names imported from their modules the first time they are asked for.

The engine's packages (and the door) name far more than any one command uses; importing every
module behind them at the first `import` costs a start what it never uses (the workbench's
first view loads no file model, the CLI no sandbox until a command runs one)."""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import Any


def lazy_getattr(
    namespace: dict[str, Any], module_of: Mapping[str, str], renamed: Mapping[str, str] = {},
) -> Callable[[str], Any]:  # fmt: skip
    """A module `__getattr__` for `namespace` (the package's globals()): `name` imported from
    `module_of[name]` (a dotted path; relative to the package when it starts with "."), under
    `renamed[name]` there if it goes by another name, and kept in the package."""
    package = namespace["__name__"]

    def __getattr__(name: str) -> Any:
        module = module_of.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module, package), renamed.get(name, name))
        namespace[name] = value
        return value

    return __getattr__
