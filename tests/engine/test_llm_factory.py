"""`--model` strings, and the import boundary: the model layer never imports litellm early."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from forgetui.engine.base.errors import ForgeError
from forgetui.engine.llm import HumanModel, LiteLLMModel, ReplayModel, make_model
from forgetui.engine.step.runner import model_for
from tests.engine.helpers import make_task


def test_importing_the_model_layer_does_not_import_litellm() -> None:
    code = (
        "import sys\n"
        "import forgetui.engine.llm as llm\n"
        "model = llm.make_model('openai/gpt-4o-mini', api_base='http://127.0.0.1:9/v1')\n"
        "assert model.name == 'openai/gpt-4o-mini'\n"
        "heavy = {'litellm', 'openai', 'textual'}\n"
        "print(sorted(name for name in sys.modules if name.split('.')[0] in heavy))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    )
    assert result.stdout.strip() == "[]"


def write_script(path: Path) -> Path:
    path.write_text("- action: run_check\n")
    return path


def test_replay_is_the_default_and_prefers_the_sample_script(tmp_path: Path) -> None:
    task_dir = tmp_path / "task"
    task_dir.mkdir()
    write_script(task_dir / "replay.yaml")
    sample = write_script(tmp_path / "sample.yaml")
    from_task = make_model(None, task_dir=task_dir)
    assert isinstance(from_task, ReplayModel)
    assert from_task.script_path == task_dir / "replay.yaml"
    from_sample = make_model("replay", task_dir=task_dir, sample_replay=sample)
    assert isinstance(from_sample, ReplayModel) and from_sample.script_path == sample


def test_replay_path_relative_to_the_task_folder(tmp_path: Path) -> None:
    task_dir = tmp_path / "task"
    task_dir.mkdir()
    write_script(task_dir / "alt.yaml")
    model = make_model("replay:alt.yaml", task_dir=task_dir)
    assert isinstance(model, ReplayModel) and model.script_path == task_dir / "alt.yaml"


def test_replay_without_a_script_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(ForgeError, match="needs a script"):
        make_model("replay", task_dir=tmp_path)


def test_human_and_litellm_strings(tmp_path: Path) -> None:
    assert isinstance(make_model("human", human_input=lambda prompt: "run_check"), HumanModel)
    model = make_model("ollama/qwen2.5-coder", api_base="http://127.0.0.1:11434", timeout_s=7)
    assert isinstance(model, LiteLLMModel)
    assert (model.name, model.api_base, model.timeout_s, model.max_output_tokens) == (
        "ollama/qwen2.5-coder", "http://127.0.0.1:11434", 7, 1024,
    )  # fmt: skip
    with pytest.raises(ForgeError, match="not a model name"):
        make_model("gpt 4")


def test_model_bounds_default_then_task_yaml_then_flags(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-factory")
    (tmp_path / "plain").mkdir()
    (tmp_path / "tuned").mkdir()
    plain = make_task(tmp_path / "plain", [])
    model = model_for(plain, "openai/gpt-4o-mini", None)
    assert isinstance(model, LiteLLMModel)
    assert (model.max_output_tokens, model.temperature, model.timeout_s) == (1024, 0, 60)

    tuned = make_task(
        tmp_path / "tuned", [], model_options={"max_output_tokens": 300, "temperature": 0.2}
    )
    model = model_for(tuned, "openai/gpt-4o-mini", None, timeout_s=5)
    assert isinstance(model, LiteLLMModel)
    assert (model.max_output_tokens, model.temperature, model.timeout_s) == (300, 0.2, 5)
    model = model_for(tuned, "openai/gpt-4o-mini", None, max_output_tokens=50, temperature=0)
    assert isinstance(model, LiteLLMModel)
    assert (model.max_output_tokens, model.temperature, model.timeout_s) == (50, 0, 60)


def test_model_for_keeps_its_positional_signature(tmp_path: Path) -> None:
    """The workbench calls model_for(folder, spec, api_base[, human_input=...])."""
    folder = make_task(tmp_path, [{"action": "run_check"}])
    assert isinstance(model_for(folder, None, None), ReplayModel)
    assert isinstance(model_for(folder, "human", None, human_input=lambda p: ""), HumanModel)


def test_system_role_default_then_task_yaml_then_flag(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-factory")
    (tmp_path / "plain").mkdir()
    (tmp_path / "merged").mkdir()
    plain = make_task(tmp_path / "plain", [])
    model = model_for(plain, "openai/gpt-4o-mini", None)
    assert isinstance(model, LiteLLMModel) and model.system_role is None  # decided per model
    merged = make_task(tmp_path / "merged", [], model_options={"system_role": "merge"})
    model = model_for(merged, "openai/gemma", "http://127.0.0.1:9/v1")
    assert isinstance(model, LiteLLMModel) and model.system_role == "merge"
    model = model_for(merged, "openai/gemma", "http://127.0.0.1:9/v1", system_role="system")
    assert isinstance(model, LiteLLMModel) and model.system_role == "system"
    with pytest.raises(ForgeError, match="model option system_role"):
        model_for(plain, "openai/gemma", "http://127.0.0.1:9/v1", system_role="user")  # type: ignore[arg-type]


def test_a_missing_key_fails_before_any_call(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    with pytest.raises(ForgeError) as raised:
        make_model("openai/gpt-4o-mini")
    assert raised.value.message == (
        "OPENAI_API_KEY is not set: export it, or point --api-base at an OpenAI-compatible server"
    )
    with pytest.raises(ForgeError, match=r"^ANTHROPIC_API_KEY is not set"):
        make_model("anthropic/claude-3-5-sonnet-20240620")
    # a local server needs no key, and neither does Ollama
    assert isinstance(make_model("openai/gemma", api_base="http://127.0.0.1:9/v1"), LiteLLMModel)
    assert isinstance(make_model("ollama/qwen2.5-coder"), LiteLLMModel)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-factory")
    assert isinstance(make_model("openai/gpt-4o-mini"), LiteLLMModel)
