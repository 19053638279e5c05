import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).parent


def test_prints_greeting() -> None:
    out = subprocess.run(
        [sys.executable, str(HERE / "hello.py")], capture_output=True, text=True, check=True
    ).stdout
    assert out == "Hello, world!\n"
