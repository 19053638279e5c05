"""What every command's flags share: the parser class, the argparse types that refuse a bad value
in one line, and the model-bound flags."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from forgetui.engine.api import ForgeError

if TYPE_CHECKING:
    Subcommands = argparse._SubParsersAction[argparse.ArgumentParser]


class ArgParser(argparse.ArgumentParser):
    """argparse, but a usage error is one line and exit 2 like every other bad input."""

    def error(self, message: str) -> None:  # type: ignore[override]
        # the command's name, once: every error line starts "forgetui: " already
        where = self.prog.removeprefix("forgetui").strip()
        raise ForgeError(f"{where}: {message}" if where else message)


def positive(kind: type[int] | type[float]) -> Callable[[str], float]:
    """An argparse type: a number above zero, else one line naming the value."""

    def parse(text: str) -> float:
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
        if not value > 0 or value == float("inf"):  # nan and inf are no bound
            raise argparse.ArgumentTypeError(f"must be a number above 0, not {text}")
        return value

    return parse


def model_name(text: str) -> str:
    """An argparse type: a model named, never a blank or a `replay:` without its script (a
    script's unset "$MODEL" would otherwise mean the default model)."""
    if not text.strip():
        raise argparse.ArgumentTypeError("an empty model name")
    if text.strip() == "replay:":
        raise argparse.ArgumentTypeError(
            "replay: without a script path (replay alone for the default)"
        )
    return text


def _named(what: str) -> Callable[[str], str]:
    """An argparse type: a path named, never a blank (a script's unset "$TASK" or "$DIR" would
    otherwise mean the current directory, and whatever task it holds)."""

    def parse(text: str) -> str:
        if not text.strip():
            raise argparse.ArgumentTypeError(f"an empty path; name {what}")
        return text

    return parse


task_path = _named("a task folder or a workspace")
named_dir = _named("the directory")


def _temperature(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not 0 <= value <= 2:
        raise argparse.ArgumentTypeError(f"must be between 0 and 2, not {text}")
    return value


def add_model_bounds(p: argparse.ArgumentParser) -> None:
    """The bounds of every real model call; each wins over task.yaml's `model_options`."""
    p.add_argument(
        "--max-output-tokens",
        type=positive(int),
        metavar="N",
        help="cap on each answer's tokens (default 1024)",
    )
    p.add_argument("--temperature", type=_temperature, help="sampling temperature (default 0)")
    p.add_argument(
        "--timeout",
        type=positive(float),
        metavar="SECONDS",
        help="bound on the wait for the server to start answering, then on the answer from"
        " there to its last token; a timed-out answer is not retried (default 60)",
    )
    p.add_argument(
        "--system-role",
        choices=["system", "merge"],
        help="merge: send the system prompt inside the user message, for models whose chat"
        " template has no system role (default: system, unless litellm knows the model has none)",
    )
    p.add_argument(
        "--no-stream",
        action="store_true",
        help="ask for whole answers, for a server that breaks on streaming or reports no token"
        " counts on a stream (default: answers stream)",
    )
    p.add_argument(
        "--tools",
        choices=["auto", "on", "off"],
        help="send the actions as tool schemas (on), or ask for a fenced block (off); auto: when"
        " litellm says the model calls functions, or with --api-base (default auto)",
    )


def model_bounds(args: argparse.Namespace) -> dict[str, Any]:
    """The model-bound flags the user gave (`add_model_bounds`), by ModelOptions field."""
    given = {
        "max_output_tokens": getattr(args, "max_output_tokens", None),
        "temperature": getattr(args, "temperature", None),
        "timeout_s": getattr(args, "timeout", None),
        "system_role": getattr(args, "system_role", None),
        "tools": getattr(args, "tools", None),
        "stream": False if getattr(args, "no_stream", False) else None,
    }
    return {name: value for name, value in given.items() if value is not None}
