"""`forgetui doctor` run in a copied checkout whose .venv's editable install names the old one:
its first line says which file names which path, and how to fix it; a sound environment adds
no line. The model is probed at a port where nothing listens: the answer comes at once.
Without `--model`, doctor says which Python commands run with and whether it is sound; `new`
warns of the same install as it creates a task there."""

from __future__ import annotations

import socket
from pathlib import Path
from typing import Any

from tests.cli.project_env import make_venv, site_packages

LABEL_WIDTH = 16


def nothing_listens() -> str:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{sock.getsockname()[1]}/v1"


def editable_install(workspace: Path, source: Path) -> Path:
    make_venv(workspace / ".venv")
    pth = site_packages(workspace / ".venv") / "__editable__.demo-0.1.pth"
    pth.write_text(f"{source}\n")
    return pth


def doctor(cli_in_process: Any, *flags: str) -> Any:
    return cli_in_process(
        "doctor", "--model", "openai/gemma", "--api-base", nothing_listens(), *flags, timeout=60
    )


def test_doctor_names_an_editable_install_of_another_checkout(
    cli_in_process: Any, tmp_path: Path
) -> None:
    pth = editable_install(tmp_path, Path("/home/me/old-checkout/src"))
    result = doctor(cli_in_process)
    assert result.code == 1, result.err  # the model: nothing listens
    first = result.out.splitlines()[0]
    label, text = first[:LABEL_WIDTH].strip(), first[LABEL_WIDTH:]
    assert label == "environment"
    assert text.startswith(str(pth.relative_to(tmp_path)))
    assert "/home/me/old-checkout/src" in text
    assert text.endswith(".venv/bin/pip install -e .")
    assert doctor(cli_in_process, "--json").json()["environment"] == [text]


def test_doctor_says_nothing_of_a_sound_environment(cli_in_process: Any, tmp_path: Path) -> None:
    editable_install(tmp_path, tmp_path / "src")
    result = doctor(cli_in_process)
    assert result.code == 1, result.err
    assert "environment" not in result.out
    assert result.out.splitlines()[0].startswith("reachable")
    assert doctor(cli_in_process, "--json").json()["environment"] == []


def test_doctor_without_a_model_names_the_python_and_its_problem(
    cli_in_process: Any, tmp_path: Path
) -> None:
    pth = editable_install(tmp_path, Path("/home/me/old-checkout/src"))
    result = cli_in_process("doctor", timeout=60)
    assert result.code == 1, result.err  # the checks would fail to import the project
    labels = [line[:LABEL_WIDTH].strip() for line in result.out.splitlines()]
    assert labels == ["python", "environment", "model"]
    python, environment, model = (line[LABEL_WIDTH:] for line in result.out.splitlines())
    assert python.startswith(str(tmp_path / ".venv" / "bin" / "python"))
    assert environment.startswith(str(pth.relative_to(tmp_path)))
    assert model.startswith("none probed")
    shown = cli_in_process("doctor", "--json", timeout=60).json()
    assert shown["model"] is None and shown["environment"] == [environment]
    assert shown["python"]["python"] == str(tmp_path / ".venv" / "bin" / "python")


def test_doctor_without_a_model_in_a_sound_environment(cli_in_process: Any, tmp_path: Path) -> None:
    editable_install(tmp_path, tmp_path / "src")
    result = cli_in_process("doctor", timeout=60)
    assert result.code == 0, result.err
    assert result.out.splitlines()[1][LABEL_WIDTH:] == "no problem found"


def test_new_warns_of_an_editable_install_of_another_checkout(
    cli_in_process: Any, tmp_path: Path
) -> None:
    pth = editable_install(tmp_path, Path("/home/me/old-checkout/src"))
    result = cli_in_process("new", "--goal", "add a flag", "--no-check", timeout=60)
    assert result.code == 0, result.err
    assert Path(result.out.strip()).is_dir()  # stdout is still the task folder alone
    warned = [line for line in result.err.splitlines() if str(pth.relative_to(tmp_path)) in line]
    assert len(warned) == 1 and "/home/me/old-checkout/src" in warned[0]
