"""Records of actions.yaml: an intent before each action, a result after, operator changes
between steps. One JSON object per `--- ` line."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, SerializationInfo, TypeAdapter, field_serializer

from forgetui.engine.folder.stored_args import INLINE_RAW_CHARS, serialized

UNPARSED = "(unparsed)"  # the action of a step whose answer named none
STOPPED = "(stopped)"  # the action of a step whose answer the operator stopped

ResultKind = Literal["success", "failure", "blocked", "refused", "error", "escalated", "skipped"]


class _Record(BaseModel):
    # the log outlives versions: keep unknown keys; built at first use, as Strict is
    model_config = ConfigDict(extra="allow", defer_build=True)

    step: int
    at: str


class IntentRecord(_Record):
    kind: Literal["intent"] = "intent"
    action: str
    args: dict[str, Any] = Field(default_factory=dict)
    model: str | None = None
    raw_response: str | None = None
    context_tokens: int = 0
    prompt_tokens: int = 0
    # who counted prompt_tokens: server (its usage), tokenize (its tokenizer: no usage came)
    prompt_tokens_by: str | None = None
    completion_tokens: int = 0
    cost: float = 0.0
    model_ms: float = 0.0
    # the provider's; "length": cut off at max_output_tokens; "stopped": the operator stopped
    # the streamed answer, and raw_response holds what had arrived
    finish_reason: str | None = None
    system_role: str | None = None  # "merge": the system prompt went inside the user message
    tools_sent: bool | None = None  # tool schemas went with the request
    tool_tokens: int | None = None  # their tokens, counted into the context's budget
    streamed: bool | None = None  # the answer arrived as a stream
    context_file: str | None = None  # artifacts/contexts/step-000007.yaml
    # as the context file keeps them, so `log --json` needs no file per step; absent when empty:
    # the memory items out of the context and why (memory.Exclusion's fields) ...
    exclusions: list[dict[str, Any]] | None = None
    # ... and section name -> what it gave up to fit its budget
    compressions: dict[str, list[str]] | None = None

    @field_serializer("args")
    def _args_by_reference(self, args: dict[str, Any], info: SerializationInfo) -> Any:
        return serialized(args, info)  # a long argument is kept once, beside the log

    @field_serializer("raw_response")
    def _raw_by_reference(self, raw: str | None, info: SerializationInfo) -> Any:
        return serialized(raw, info, INLINE_RAW_CHARS)


class ResultRecord(_Record):
    kind: Literal["result"] = "result"
    action: str
    args: dict[str, Any] = Field(default_factory=dict)
    result: ResultKind
    summary: str
    error: str | None = None
    output: str | None = None  # capped tool output
    files_changed: list[str] = Field(default_factory=list)
    snapshots: list[str] = Field(default_factory=list)
    duration_ms: float = 0.0
    redacted: list[str] | None = None  # variables whose secret values were cut from the output
    # the model call itself failed (no key, refused, timeout) or the operator stopped the answer:
    # the operator's business, kept out of the agent's memory, last errors and recent actions;
    # None (absent) for every other step
    transport: bool | None = None

    @field_serializer("args")
    def _args_by_reference(self, args: dict[str, Any], info: SerializationInfo) -> Any:
        return serialized(args, info)


class OperatorRecord(_Record):
    kind: Literal["operator"] = "operator"
    op: str  # pin | unpin | evict | edit | note | answer | approve | modify | reject | resume ...
    key: str | None = None
    text: str | None = None
    detail: dict[str, Any] = Field(default_factory=dict)


Record = Annotated[IntentRecord | ResultRecord | OperatorRecord, Field(discriminator="kind")]
RECORD_ADAPTER: TypeAdapter[IntentRecord | ResultRecord | OperatorRecord] = TypeAdapter(Record)
