"""Which sandbox commands run in: bubblewrap where it works, else the allow-list alone.

The probe runs bwrap once per process with the very mounts and namespaces a command gets, so a
kernel without user namespaces or a container that forbids mounts is found before the first
step, with its error line as the reason."""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from forgetui.engine.sandbox.bwrap import home_to_hide, wrap
from forgetui.engine.sandbox.errors import SandboxUnavailable

MODE_VARIABLE = "FORGETUI_SANDBOX"
MODES = ("bwrap", "allow-list")
INSTALL_HINT = "install it with `sudo apt-get install bubblewrap`"
PROBE_TIMEOUT_S = 10.0

SandboxName = Literal["bwrap", "allow-list"]


@dataclass(frozen=True)
class SandboxMode:
    name: SandboxName
    reason: str  # why this mode: for `status` and the workbench
    bwrap: str | None = None  # the bwrap executable, in bwrap mode


@dataclass
class _Probe:
    """A probe under way: bwrap's path, the confined command's process, its scratch folder."""

    bwrap: str
    proc: subprocess.Popen[bytes]
    scratch: tempfile.TemporaryDirectory[str]


_started: _Probe | None = None


def start_probe() -> None:
    """Start the probe now, for `probe_bwrap` to collect: a process that will need the mode
    soon (the workbench's first view) runs the probe beside its own start, not after it."""
    global _started
    forced = os.environ.get(MODE_VARIABLE, "").strip() == "allow-list"  # it never probes
    if _started is None and not forced and probe_bwrap.cache_info().currsize == 0:
        started = _start(nice=True)
        _started = started if isinstance(started, _Probe) else None


@functools.cache
def probe_bwrap() -> tuple[str | None, str]:
    """(bwrap's path, "") if a confined `python -c pass` runs, else (None, why not)."""
    global _started
    probe, _started = _started or _start(), None
    return probe if isinstance(probe, tuple) else _finish(probe)


def _start(nice: bool = False) -> _Probe | tuple[None, str]:
    found = shutil.which("bwrap")
    if found is None:
        return None, f"bwrap not found: {INSTALL_HINT}"
    scratch = tempfile.TemporaryDirectory(prefix="forgetui-probe-")
    argv = wrap(
        found,
        [sys.executable, "-c", "pass"],
        Path(scratch.name),
        network=False,
        home=home_to_hide(os.environ),
    )
    try:
        proc = subprocess.Popen(
            argv,
            cwd=scratch.name,
            env={"PATH": os.environ.get("PATH", "/usr/bin:/bin")},
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            preexec_fn=(lambda: os.nice(19)) if nice else None,
        )
    except OSError as exc:
        scratch.cleanup()
        return None, f"bwrap probe failed: {exc}"
    return _Probe(found, proc, scratch)


def _finish(probe: _Probe) -> tuple[str | None, str]:
    try:
        _, stderr = probe.proc.communicate(timeout=PROBE_TIMEOUT_S)
    except subprocess.TimeoutExpired as exc:
        probe.proc.kill()
        probe.proc.communicate()
        return None, f"bwrap probe failed: {exc}"
    finally:
        probe.scratch.cleanup()
    if probe.proc.returncode != 0:
        lines = stderr.decode("utf-8", "replace").strip().splitlines()
        why = lines[-1] if lines else f"exit code {probe.proc.returncode}"
        return None, f"bwrap probe failed: {why}"
    return probe.bwrap, ""


def sandbox_mode(environ: Mapping[str, str] = os.environ) -> SandboxMode:
    """The mode commands run in now. FORGETUI_SANDBOX=allow-list forces the weaker mode;
    FORGETUI_SANDBOX=bwrap makes a bwrap that cannot run an error (exit 2) instead of a
    silent fallback."""
    choice = environ.get(MODE_VARIABLE, "").strip()
    if choice == "allow-list":
        return SandboxMode("allow-list", f"{MODE_VARIABLE}=allow-list")
    if choice not in ("", "bwrap"):
        raise SandboxUnavailable(
            f"{MODE_VARIABLE}={choice!r} is not a sandbox mode (modes: {', '.join(MODES)})"
        )
    found, problem = probe_bwrap()
    if found is not None:
        return SandboxMode("bwrap", f"bubblewrap at {found}", bwrap=found)
    if choice == "bwrap":
        raise SandboxUnavailable(f"{MODE_VARIABLE}=bwrap, but {problem}")
    return SandboxMode("allow-list", problem)
