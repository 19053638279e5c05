"""How every real model call is bounded: its output cap, temperature and timeout.

One pydantic model serves task.yaml's `model_options:` and the CLI flags, so both are checked
by the same rules. Without a cap a local model writes until its window is full; without a
timeout a stalled server stalls the step."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from forgetui.engine.base.errors import ForgeError

DEFAULT_MAX_OUTPUT_TOKENS = 1024
DEFAULT_TEMPERATURE = 0.0
DEFAULT_TIMEOUT_S = 60.0

SystemRole = Literal["system", "merge"]
ToolsMode = Literal["auto", "on", "off"]


class ModelOptions(BaseModel):
    """task.yaml `model_options:`; a CLI flag overrides one field (`with_overrides`)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    max_output_tokens: int = Field(DEFAULT_MAX_OUTPUT_TOKENS, ge=1)
    temperature: float = Field(DEFAULT_TEMPERATURE, ge=0, le=2)
    timeout_s: float = Field(DEFAULT_TIMEOUT_S, gt=0)
    # Some chat templates (Gemma's) have no system role and servers drop the system message:
    # "merge" sends the system prompt inside the one user message. None decides per model:
    # "merge" where litellm's model info says the model takes no system messages, else "system".
    system_role: SystemRole | None = None
    # auto: tool schemas go with the request where litellm says the model calls functions, or
    # to an `api_base` server; on/off decide it. Sent schemas count against the context budget.
    tools: ToolsMode = "auto"
    # The model's context window in tokens, when litellm does not know it (a local server):
    # the context is capped under it minus max_output_tokens (`forgetui doctor` finds it out).
    context_window: int | None = Field(None, ge=256)
    # Stream answers (the workbench shows them as they arrive); off for a server that breaks
    # on streaming.
    stream: bool = True

    @field_validator("tools", mode="before")
    @classmethod
    def _yaml_switch(cls, value: Any) -> Any:
        """YAML 1.1 reads a bare `tools: off` as False and `on` as True: take them as meant."""
        if isinstance(value, bool):
            return "on" if value else "off"
        return value

    def with_overrides(self, **given: Any) -> ModelOptions:
        """These options with the given (not None) values in their place, checked again."""
        update = {name: value for name, value in given.items() if value is not None}
        if not update:
            return self
        try:
            # unset fields stay unset: a server's probed findings fill only those (model_fields_set)
            return ModelOptions.model_validate({**self.model_dump(exclude_unset=True), **update})
        except ValidationError as exc:
            error = exc.errors()[0]
            field = ".".join(str(part) for part in error["loc"])
            raise ForgeError(f"model option {field}: {error['msg']}") from None


__all__ = [
    "DEFAULT_MAX_OUTPUT_TOKENS",
    "DEFAULT_TEMPERATURE",
    "DEFAULT_TIMEOUT_S",
    "ModelOptions",
    "SystemRole",
    "ToolsMode",
]
