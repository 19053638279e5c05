"""`forgetui init SAMPLE --into DIR` where DIR cannot hold the sample: one line naming it,
exit 2, nothing left behind."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest


@pytest.mark.parametrize("into", ["/dev/null", "afile", "afile/sub", "/proc/self/forgetui-x"])
def test_init_into_a_place_that_is_no_directory(cli: Any, tmp_path: Path, into: str) -> None:
    (tmp_path / "afile").write_text("x\n")
    done = cli("init", "hello_world", "--into", into)
    assert done.code == 2
    assert done.err.startswith("forgetui: ") and len(done.err.splitlines()) == 1, done.err
    assert into in done.err
    assert (tmp_path / "afile").read_text() == "x\n"
    assert sorted(p.name for p in tmp_path.iterdir() if p.name != "home") == ["afile"]
