"""A tiny command registry, standing in for click."""

from collections.abc import Callable

REGISTRY: dict[str, "Command"] = {}


class Command:
    def __init__(self, func: Callable[..., object], help: str | None) -> None:
        self.func = func
        self.name = func.__name__.replace("_", "-")
        self.help = help


def command(help: str | None = None) -> Callable[[Callable[..., object]], Command]:
    def register(func: Callable[..., object]) -> Command:
        cmd = Command(func, help)
        REGISTRY[cmd.name] = cmd
        return cmd

    return register
