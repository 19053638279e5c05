"""An --api-base may carry a user:password and a token in its query: no output and no file
names them. A broken server cache (not UTF-8, nested past Python's limit, a named pipe) is
ignored with a warning; a port that is not a number is bad input; two keys for one proxy keep
apart findings."""

from __future__ import annotations

import os
import socket
import threading
from pathlib import Path
from typing import Any

import pytest

from forgetui.engine.llm import server_findings

PASSWORD = "hunter2pass"
TOKEN = "QSECRET123"


@pytest.fixture(autouse=True)
def probing_on(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(server_findings.PROBE_VARIABLE, "1")
    monkeypatch.setattr(server_findings, "_this_process", {})


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _files_naming(root: Path, *secrets: str) -> list[Path]:
    found = []
    for path in root.rglob("*"):
        if path.is_file() and any(s.encode() in path.read_bytes() for s in secrets):
            found.append(path)
    return found


def test_credentials_in_the_api_base_are_never_shown_or_written(
    cli_in_process: Any, tmp_path: Path
) -> None:
    url = f"http://bob:{PASSWORD}@127.0.0.1:{_closed_port()}/v1?key={TOKEN}"
    task = Path(cli_in_process("init", "hello_world", "--into", tmp_path / "w").out.strip())
    result = cli_in_process(
        "run", task, "--model", "openai/m", "--api-base", url, "--max-steps", "1"
    )
    assert result.code == 3, result.err  # ran: the probe and the step's call both refused
    said = result.out + result.err
    assert "could not probe" in said and "refused" in said
    assert "127.0.0.1" in said  # the server is still named, without its credentials
    assert PASSWORD not in said and TOKEN not in said
    assert (task / "state.yaml").is_file()
    assert _files_naming(tmp_path, PASSWORD, TOKEN) == []

    doctor = cli_in_process("doctor", "--model", "openai/m", "--api-base", url, "--timeout", "5")
    assert "refused" in doctor.out and doctor.code == 1
    assert PASSWORD not in doctor.out + doctor.err and TOKEN not in doctor.out + doctor.err
    as_json = cli_in_process(
        "doctor", "--model", "openai/m", "--api-base", url, "--timeout", "5", "--json"
    )
    assert "refused" in as_json.out
    assert PASSWORD not in as_json.out + as_json.err and TOKEN not in as_json.out + as_json.err


def test_a_port_that_is_not_a_number_is_bad_input(cli_in_process: Any, tmp_path: Path) -> None:
    task = Path(cli_in_process("init", "hello_world", "--into", tmp_path / "w").out.strip())
    url = f"http://bob:{PASSWORD}@127.0.0.1:abc/v1"
    result = cli_in_process(
        "run", task, "--model", "openai/m", "--api-base", url, "--max-steps", "1"
    )
    assert result.code == 2, result.err
    assert "Traceback" not in result.err
    [line] = result.err.strip().splitlines()
    assert "--api-base" in line and PASSWORD not in line


def _read_cache_within(seconds: float) -> tuple[dict[str, Any], str]:
    got: list[tuple[dict[str, Any], str]] = []
    worker = threading.Thread(target=lambda: got.append(server_findings.read_cache()), daemon=True)
    worker.start()
    worker.join(seconds)
    assert not worker.is_alive(), "reading the server cache hung"
    return got[0]


@pytest.mark.parametrize("kind", ["not utf-8", "nested", "fifo", "huge"])
def test_a_broken_cache_file_is_ignored_with_a_warning(
    kind: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FORGETUI_HOME", str(tmp_path))
    path = server_findings.cache_file()
    path.parent.mkdir(parents=True)
    if kind == "not utf-8":
        path.write_bytes(b'{"version": 1, "servers": {"\xff\xfe": 1}}')
    elif kind == "nested":
        path.write_text("[" * 100_000)
    elif kind == "fifo":
        os.mkfifo(path)
    else:
        path.write_text('{"version": 1, "servers": {}}' + " " * (2 << 20))
    entries, warning = _read_cache_within(30)
    assert entries == {}
    assert str(path) in warning and "ignored" in warning


def test_two_keys_for_one_server_keep_apart_findings() -> None:
    first = server_findings._key("openai/m", "http://h/v1?api_key=AAAA1111")
    second = server_findings._key("openai/m", "http://h/v1?api_key=BBBB2222")
    user = server_findings._key("openai/m", "http://carol:pw@h/v1")
    assert len({first, second, user}) == 3
    assert "AAAA1111" not in first and "BBBB2222" not in second and "carol" not in user
    assert server_findings._key("openai/m", "http://h/v1/") == "http://h/v1 openai/m"
