"""`--model` string -> a Model."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from forgetui.engine.base.errors import ForgeError
from forgetui.engine.folder.model_options import ModelOptions
from forgetui.engine.llm.base import Model
from forgetui.engine.llm.credentials import require_keys
from forgetui.engine.llm.human import HumanModel
from forgetui.engine.llm.replay import ReplayModel
from forgetui.engine.llm.server_findings import server_findings

DEFAULT_MODEL = "replay"
_TOOLS = {"on": True, "off": False, "auto": None}  # the `tools` option as LiteLLMModel's use_tools
REPLAY_SCRIPT = "replay.yaml"


def make_model(
    spec: str | None,
    *,
    api_base: str | None = None,
    task_dir: Path | None = None,
    sample_replay: Path | None = None,
    timeout_s: float | None = None,
    options: ModelOptions | None = None,
    human_input: Callable[[str], str] | None = None,
) -> Model:
    """`replay` (default), `replay:PATH`, `human`, or any litellm model string.

    A litellm model is bounded by `options` (the defaults when None); `timeout_s`, if given,
    takes the place of its timeout. Without `api_base`, a provider key that is not set fails
    here, before any call. With it, what a probe of that server found fills the options
    nobody set: probed (importing litellm) at the first run against it, then read from the
    user cache (server_findings.py).

    The default script is the sample's own replay.yaml, else <task_dir>/replay.yaml. A relative
    `replay:PATH` is taken from the working directory, else from the task folder.
    """
    spec = (spec or DEFAULT_MODEL).strip()
    if spec == "human":
        return HumanModel(human_input)
    if spec == "replay" or spec.startswith("replay:"):
        return ReplayModel(_replay_script(spec, task_dir, sample_replay), task_dir)
    if not spec or any(char.isspace() for char in spec):
        raise ForgeError(
            f"not a model name: {spec!r} (use replay, replay:PATH, human or a litellm model string)"
        )
    # litellm's model (and its HTTP stack) only for a litellm model: `model_problem` and the
    # replay and human models never need it
    from forgetui.engine.llm.litellm_model import LiteLLMModel, import_litellm

    bounds = (options or ModelOptions()).with_overrides(timeout_s=timeout_s)
    if not api_base:
        require_keys(import_litellm(), spec)
    else:
        # the server's probed findings fill the options nobody set (server_findings.py)
        found = server_findings(spec, api_base, timeout_s=bounds.timeout_s)
        if found is not None and found.source != "failed":
            bounds = found.apply(bounds)
    return LiteLLMModel(
        spec,
        api_base=api_base,
        timeout_s=bounds.timeout_s,
        max_output_tokens=bounds.max_output_tokens,
        temperature=bounds.temperature,
        use_tools=_TOOLS[bounds.tools],
        system_role=bounds.system_role,
        stream=bounds.stream,
        context_window=bounds.context_window,
    )


def _replay_script(spec: str, task_dir: Path | None, sample_replay: Path | None) -> Path:
    _, _, given = spec.partition(":")
    if given:
        path = Path(given).expanduser()
        if not path.is_absolute() and not path.exists() and task_dir is not None:
            return task_dir / path
        return path
    if sample_replay is not None:
        return sample_replay
    if task_dir is not None and (task_dir / REPLAY_SCRIPT).is_file():
        return task_dir / REPLAY_SCRIPT
    raise ForgeError(
        "the replay model needs a script: this task has no replay.yaml; "
        "pass --model replay:PATH, human, or a litellm model string"
    )


def model_problem(spec: str | None, task_dir: Path | None) -> str | None:
    """Why `spec` could not run a step here (a replay model without a script, a malformed
    name), found without building the model: the workbench asks for another one first."""
    spec = (spec or DEFAULT_MODEL).strip()
    if spec == "human":
        return None
    if spec == "replay":  # said as a front end asks for another, not as a flag to pass
        has_script = task_dir is not None and (task_dir / REPLAY_SCRIPT).is_file()
        return None if has_script else "the replay model needs a replay.yaml this task lacks"
    if spec.startswith("replay:"):
        script = _replay_script(spec, task_dir, None)
        return None if script.is_file() else f"the replay script {script} does not exist"
    if not spec or any(char.isspace() for char in spec):
        return f"not a model name: {spec!r}"
    return None
