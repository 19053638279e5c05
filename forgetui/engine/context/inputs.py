"""What a context is compiled from and what compiling it gives: the public types, and the one
place that reads a task folder into `ContextInputs` (the API and the executor both preview and
send through it, so what the operator sees is what the model gets)."""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from forgetui.engine.folder.memory import WorkingMemory
from forgetui.engine.folder.model_options import DEFAULT_MAX_OUTPUT_TOKENS, ModelOptions
from forgetui.engine.folder.records import ResultRecord
from forgetui.engine.folder.task_folder import TaskFolder
from forgetui.engine.folder.task_spec import TaskSpec
from forgetui.engine.folder.task_state import TaskState, superseded_steps

RECENT_RESULTS = 3
# Budgets are counted with tiktoken, the model's server counts with its own tokenizer: Gemma's
# counted 16% more than tiktoken for the same prompt. The context is kept this much
# under the window so that a context forgetui counts as fitting fits the server's count too.
TOKENIZER_MARGIN = 0.20


@dataclass(frozen=True)
class ModelFit:
    """What the model a context goes to takes: its window (None: not known, or a replay or
    human model), its answer's cap, and whether tool schemas go with the request (then
    available_actions names the actions only and the schemas count against the total). The
    executor asks its model; a preview reads the task's options (`planned_fit`)."""

    window: int | None = None
    max_output_tokens: int = DEFAULT_MAX_OUTPUT_TOKENS
    tools_sent: bool = False

    def window_cap(self) -> WindowCap | None:
        if self.window is None:
            return None
        room = (self.window - self.max_output_tokens) * (1 - TOKENIZER_MARGIN)
        return WindowCap(self.window, self.max_output_tokens, max(0, int(room)))


@dataclass(frozen=True)
class WindowCap:
    """How the model's window bounds the context: what is left of `window` once the answer's
    cap is kept out, less TOKENIZER_MARGIN."""

    window: int
    max_output_tokens: int
    cap: int

    def describe(self) -> str:
        margin = round(TOKENIZER_MARGIN * 100)
        return f"{self.window:,} - {self.max_output_tokens:,} output, less {margin}%"

    def to_json(self) -> dict[str, int]:
        return {"tokens": self.window, "max_output_tokens": self.max_output_tokens, "cap": self.cap}


@dataclass(frozen=True)
class ContextInputs:
    spec: TaskSpec
    state: TaskState
    memory: WorkingMemory
    recent: Sequence[ResultRecord]  # newest last; the compiler uses the last 3
    workspace: Path  # target-file excerpts are read from here
    model: str | None = None  # picks the token encoding (else spec.model)
    fit: ModelFit = ModelFit()  # what the model takes
    # the usage tier of the context sent at the step before (tiers.py): given by the step, so
    # its 90% alert fires once as a context crosses into it; None in a preview (no alert)
    previous_tier: int | None = None


@dataclass(frozen=True)
class Section:
    name: str
    budget: int
    text: str
    tokens: int
    compressions: tuple[str, ...] = ()


@dataclass(frozen=True)
class CompiledContext:
    """The two messages and their accounting. `total_tokens` counts the messages (what
    validate_context recounts); tool schemas sent with the request are `tool_tokens`, and
    max_tokens bounds the two together (`request_tokens`)."""

    step: int
    format: str
    sections: tuple[Section, ...]
    total_tokens: int
    max_tokens: int  # limits.max_tokens, or less when the model's window is smaller
    messages: tuple[dict[str, str], ...]  # exactly (system, user)
    memory_refs: tuple[str, ...]  # MemoryItem.ref of the items shown, in order
    over_budget: tuple[str, ...]  # reasons the step must not go out; empty when it may
    tool_tokens: int = 0  # the tool schemas sent with the request (in no message)
    window: WindowCap | None = None  # the model's window, when it is known
    # Why this context cannot go to the model at all (its window leaves too little room), with
    # the numbers and what to change; the step escalates "context_window" before the call.
    window_problem: str | None = None
    # the usage tier the first build reached (tiers.py: 0, 50, 70, 80 or 90) and its percent
    # of the cap; `alert` is the operator's notice when this context crosses into 90%
    usage_tier: int = 0
    usage_percent: float = 0.0
    alert: str | None = None

    @property
    def request_tokens(self) -> int:
        """The request by forgetui's count: the messages and the tool schemas."""
        return self.total_tokens + self.tool_tokens

    def section(self, name: str) -> Section:
        return next(section for section in self.sections if section.name == name)

    def to_json(self) -> dict[str, Any]:
        return {
            "step": self.step,
            "total_tokens": self.total_tokens,
            "max_tokens": self.max_tokens,
            "tool_tokens": self.tool_tokens,
            "request_tokens": self.request_tokens,
            "window": self.window.to_json() if self.window else None,
            "window_problem": self.window_problem,
            "usage_tier": self.usage_tier,
            "usage_percent": self.usage_percent,
            "alert": self.alert,
            "format": self.format,
            "sections": [
                {
                    "name": section.name,
                    "tokens": section.tokens,
                    "budget": section.budget,
                    "text": section.text,
                    "compressions": list(section.compressions),
                }
                for section in self.sections
            ],
            "messages": [dict(message) for message in self.messages],
            "memory_refs": list(self.memory_refs),
            "over_budget": list(self.over_budget),
        }


def effective_phase(folder: TaskFolder, state: TaskState) -> str:
    """A task with `decompose: true` and no plan yet spends its first step decomposing."""
    if folder.spec.decompose and state.plan is None:
        return "decompose"
    return state.phase


def agent_results(
    folder: TaskFolder, n: int, superseded: Collection[int] = frozenset()
) -> list[ResultRecord]:
    """The last n results of the agent's own actions, oldest first: a failed model call
    (`transport`) is the operator's, and showing it to the model only costs tokens; the steps
    of a branch a rewind superseded (`superseded`) are history the agent never sees again."""
    found: list[ResultRecord] = []
    for record in folder.log.iter_backwards(("result",)):
        if (
            isinstance(record, ResultRecord)
            and not record.transport
            and record.step not in superseded
        ):
            found.append(record)
            if len(found) == n:
                break
    return found[::-1]


def planned_fit(model: str | None, options: ModelOptions, api_base: str | None = None) -> ModelFit:
    """What a step with `model` will most likely send, decided without importing litellm (a
    preview must stay fast): a replay script or the operator has no window and takes no tools;
    a real model has the task's `context_window` and `max_output_tokens`, and tools when
    `tools: on`, or with `tools: auto` when an `api_base` is given (litellm's rule for such a
    server). `auto` without one previews no tools: whether litellm lists the model as calling
    functions is only known to the step, which counts and saves what it really sends."""
    name = (model or "replay").strip()
    if name == "human" or name == "replay" or name.startswith("replay:"):
        return ModelFit()
    tools = options.tools == "on" or (options.tools == "auto" and bool(api_base))
    return ModelFit(options.context_window, options.max_output_tokens, tools)


def asked_fit(model: object) -> ModelFit:
    """What a model says it takes, asked the way the executor asks before a step: a litellm
    model knows its window and whether it sends tools; a replay script or the operator has
    neither method, so no window and no tools."""
    window_of = getattr(model, "context_window", None)
    sends_tools = getattr(model, "sends_tools", None)
    return ModelFit(
        window=window_of() if callable(window_of) else None,
        max_output_tokens=getattr(model, "max_output_tokens", DEFAULT_MAX_OUTPUT_TOKENS),
        tools_sent=bool(sends_tools()) if callable(sends_tools) else False,
    )


def context_inputs(
    folder: TaskFolder,
    model: str | None = None,
    state: TaskState | None = None,
    memory: WorkingMemory | None = None,
    fit: ModelFit | None = None,
) -> ContextInputs:
    """Everything the next step's context is compiled from, read from disk (or given: a
    reader that already holds state and memory does not read them again). `fit` is what the
    model takes; without it, what the task's options plan for `model` (`planned_fit`)."""
    state = state or folder.load_state()
    phase = effective_phase(folder, state)
    if phase != state.phase:
        state = state.model_copy(update={"phase": phase})
    model = model or folder.spec.model
    return ContextInputs(
        spec=folder.spec,
        state=state,
        memory=memory or folder.load_memory(),
        recent=agent_results(folder, RECENT_RESULTS, superseded_steps(state.rewinds)),
        workspace=folder.workspace,
        model=model,
        fit=fit or planned_fit(model, folder.spec.model_options),
    )
