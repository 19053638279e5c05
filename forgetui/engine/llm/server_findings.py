"""What `forgetui doctor` found out about a model at a server, kept per server and model in the
user cache, so the first run against a server probes it and the later ones just read it.

A local server rarely says what matters (no system role in Gemma's chat template, tools dropped
without a word, a window no model table knows), and a run that does not know it silently sends
the system prompt into nowhere. The run applies the findings to every option the user did not
set (a flag, the user config or task.yaml win); `forgetui doctor` probes again and replaces them.

Only a complete, usable probe is kept: a server that was down, timed out or answered nothing
is probed again next time, and in a long-lived process (the workbench) once RETRY_AFTER_S has
passed: a server started after the workbench is found by a later run. The file holds the
server's URL (without any user:password in it), the model name, the options and why: never a
key. A file broken by hand is ignored, said once, and rewritten by the next probe.
FORGETUI_PROBE=0 turns probing and the cached findings off.
"""

from __future__ import annotations

import contextlib
import json
import os
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, ConfigDict, ValidationError

from forgetui.engine.base.clock import now_iso
from forgetui.engine.base.errors import ForgeError
from forgetui.engine.base.small_file import read_small
from forgetui.engine.base.yamlio import atomic_write_text
from forgetui.engine.folder.model_options import ModelOptions
from forgetui.engine.llm.server_url import checked_api_base, scrub_url, server_url, url_tag

if TYPE_CHECKING:  # a step reads the cache; only a probe needs the doctor and litellm's model
    from forgetui.engine.llm.doctor import DoctorReport

CACHE_NAME = "servers.json"
PROBE_VARIABLE = "FORGETUI_PROBE"
# the options a probe may set for a run, in the order a line names them
APPLIED = ("system_role", "tools", "context_window", "max_output_tokens", "timeout_s")
Source = Literal["probed", "cached", "failed"]
MAX_CACHE_BYTES = 1 << 20  # thousands of servers; more is not a file forgetui wrote
# a failed or unfinished probe stands this long in one process: the CLI's line and its run
# share it, and a server that was down is not asked at every run start while it stays down
RETRY_AFTER_S = 60.0


class ServerEntry(BaseModel):
    """One server and model in the cache file."""

    model_config = ConfigDict(extra="forbid")

    model: str
    api_base: str
    probed_at: str
    verdict: str
    options: dict[str, Any]
    reasons: dict[str, str]


class CacheFile(BaseModel):
    """The cache file: `servers.json` in the user cache directory."""

    model_config = ConfigDict(extra="forbid")

    version: Literal[1] = 1
    servers: dict[str, ServerEntry] = {}


@dataclass(frozen=True)
class Findings:
    """The options a probe advises for one model at one server, and where they come from."""

    model: str
    api_base: str
    source: Source
    options: Mapping[str, Any] = field(default_factory=dict)
    reasons: Mapping[str, str] = field(default_factory=dict)
    probed_at: str = ""
    seconds: float = 0.0
    why_not: str = ""  # a failed probe: why
    warning: str = ""  # the cache file was broken and is ignored

    def applied(self, options: ModelOptions) -> tuple[dict[str, Any], dict[str, Any]]:
        """(the findings this run takes, those a setting of the user's overrides): a field
        the user set (a flag, the config, task.yaml: `model_fields_set`) keeps its value."""
        taken: dict[str, Any] = {}
        kept: dict[str, Any] = {}
        for name in APPLIED:
            if name not in self.options:
                continue
            if name in options.model_fields_set:
                if getattr(options, name) != self.options[name]:
                    kept[name] = getattr(options, name)
            else:
                taken[name] = self.options[name]
        return taken, kept

    def apply(self, options: ModelOptions) -> ModelOptions:
        taken, _ = self.applied(options)
        return options.with_overrides(**taken) if taken else options

    def tag(self, options: ModelOptions) -> str:
        """The workbench header's few words: what the probe changed in this run."""
        taken, _ = self.applied(options)
        return ", ".join(_short(name, value) for name, value in taken.items())

    def line(self, options: ModelOptions) -> str:
        """The run's one line: where the findings come from and what they change."""
        where = f"{self.model} at {self.api_base}"
        prefix = f"{self.warning}; " if self.warning else ""
        if self.source == "failed":
            return (
                f"{prefix}could not probe {where} ({self.why_not}): running with the options as"
                " given; nothing cached"
            )
        taken, kept = self.applied(options)
        said = [_long(name, value) for name, value in taken.items()]
        said += [f"your {name} {_value(value)} kept" for name, value in kept.items()]
        what = "; ".join(said) if said else "no option needed"
        if self.source == "probed":
            head = f"probed {where} in {self.seconds:.1f} s"
            tail = "kept for later runs (forgetui doctor probes again)"
        else:
            head = f"{where} as probed {self.probed_at}"
            tail = "forgetui doctor probes again"
        return f"{prefix}{head}: {what}; {tail}"


def probing_enabled() -> bool:
    return os.environ.get(PROBE_VARIABLE, "1").strip().lower() not in ("0", "off", "no", "false")


def cache_file() -> Path:
    """FORGETUI_HOME/cache/servers.json where FORGETUI_HOME is set (tests), else the platform's
    user cache directory."""
    env = os.environ.get("FORGETUI_HOME")
    if env:
        return Path(env) / "cache" / CACHE_NAME
    import platformdirs

    return platformdirs.user_cache_path("forgetui") / CACHE_NAME


def _key(model: str, api_base: str) -> str:
    """The shown URL and the model; a URL's user or query (two keys for one proxy, say) adds
    a hash of them, never their text."""
    tag = url_tag(api_base)
    return f"{server_url(api_base)}{' #' + tag if tag else ''} {model.strip()}"


def _safe_key(model: str, api_base: str) -> str | None:
    try:
        return _key(model, api_base)
    except ValueError:  # not a URL: nothing was kept for it
        return None


_lock = threading.Lock()
# this process's probes, read after the file, with when each ended: a failed or unfinished
# probe is not sent again when the same run builds its model a second time (the CLI's line,
# then the run), nor before RETRY_AFTER_S
_this_process: dict[str, tuple[Findings, float]] = {}
_clock = time.monotonic  # a test moves it on


def _recent(key: str) -> Findings | None:
    """This process's probe of `key`, while it still stands."""
    known = _this_process.get(key)
    if known is None or _clock() - known[1] >= RETRY_AFTER_S:
        return None
    return known[0]


def server_findings(
    model: str,
    api_base: str | None,
    *,
    timeout_s: float | None = None,
) -> Findings | None:
    """The findings for `model` at `api_base`: the cache's, else this process's earlier probe
    (for RETRY_AFTER_S), else a new probe's (kept when complete). None without a server or with
    probing off. An `api_base` that is not a URL is bad input (ForgeError naming --api-base);
    past that it never raises: a probe that cannot be sent is a failed one."""
    if not api_base:
        return None
    checked_api_base(api_base)
    if not probing_enabled() or _not_a_server_model(model):
        return None
    key = _key(model, api_base)
    with _lock:
        entries, warning = read_cache()
        entry = entries.get(key)
        if entry is not None:
            return _from_entry(entry, "cached")
        known = _recent(key)
        if known is not None:
            return known
        found = _probe(model, api_base, timeout_s, warning)
        _this_process[key] = (found, _clock())
        return found


def remember(report: DoctorReport) -> str:
    """`forgetui doctor`'s report into the cache (replacing what was there); the line to say."""
    if not report.api_base or not probing_enabled():
        return ""
    key = _key(report.model, report.api_base)
    with _lock:
        _this_process.pop(key, None)
        if report.why_not_usable:
            return "nothing kept for runs: the model is not usable"
        if not _complete(report):
            return "nothing kept for runs: not every probe got its answer"
        _, warning = read_cache()
        write_entry(_entry(report), key)
    kept = f"kept for runs in {cache_file()}"
    return f"{warning}; {kept}" if warning else kept


def cached_findings(model: str | None, api_base: str | None) -> Findings | None:
    """The cache's findings without probing (the workbench header reads them)."""
    if not model or not api_base or not probing_enabled() or _not_a_server_model(model):
        return None
    key = _safe_key(model, api_base)
    if key is None:
        return None
    entry = read_cache()[0].get(key)
    if entry is not None:
        return _from_entry(entry, "cached")
    known = _this_process.get(key)
    return known[0] if known is not None else None


def server_options(model: str | None, api_base: str | None, options: ModelOptions) -> ModelOptions:
    """`options` with the cached findings in the fields nobody set, without probing: what the
    workbench's preview compiles with, as the step will."""
    found = cached_findings(model, api_base)
    return found.apply(options) if found is not None and found.source != "failed" else options


def server_tag(model: str | None, api_base: str | None, options: ModelOptions) -> str:
    found = cached_findings(model, api_base)
    return found.tag(options) if found is not None and found.source != "failed" else ""


def read_cache() -> tuple[dict[str, ServerEntry], str]:
    """(the entries, a warning when the file is broken and so ignored)."""
    path = cache_file()
    try:
        data = read_small(path, MAX_CACHE_BYTES)  # not a pipe (it would hang), not a huge file
    except FileNotFoundError:
        return {}, ""
    except OSError as exc:
        return {}, f"{path}: ignored, it does not read ({exc.strerror or exc}); a probe rewrites it"
    try:
        loaded = CacheFile.model_validate(json.loads(data.decode("utf-8")))
        for entry in loaded.servers.values():
            ModelOptions().with_overrides(**entry.options)
    except (ValueError, ValidationError, ForgeError, TypeError, RecursionError) as exc:
        why = exc.message if isinstance(exc, ForgeError) else type(exc).__name__
        why = f"not a server cache forgetui wrote ({why})"
        return {}, f"{path}: ignored, {why}; a probe rewrites it"
    return dict(loaded.servers), ""


def write_entry(entry: ServerEntry, key: str) -> None:
    """One entry in under `key` (a broken file is replaced whole); a cache that cannot be
    written only means the next run probes again."""
    entries, _ = read_cache()
    entries[key] = entry
    data = CacheFile(servers=entries).model_dump(mode="json")
    with contextlib.suppress(OSError):
        atomic_write_text(cache_file(), json.dumps(data, indent=2, sort_keys=True) + "\n")


def _probe(
    model: str,
    api_base: str,
    timeout_s: float | None,
    warning: str,
) -> Findings:
    from forgetui.engine.llm.doctor import doctor
    from forgetui.engine.llm.litellm_model import redact_secrets

    started = time.monotonic()
    url = server_url(api_base)
    try:
        report = doctor(model, api_base=api_base, timeout_s=timeout_s)
    except ForgeError as exc:
        why = scrub_url(exc.message, api_base)
        return Findings(model, url, "failed", why_not=why, warning=warning)
    except Exception as exc:  # a probe must never take the run down
        why = redact_secrets(scrub_url(f"{type(exc).__name__}: {exc}", api_base))
        return Findings(model, url, "failed", why_not=why, warning=warning)
    if report.why_not_usable:
        why = scrub_url(report.why_not_usable, api_base)
        return Findings(model, url, "failed", why_not=why, warning=warning)
    entry = _entry(report)
    found = _from_entry(entry, "probed", time.monotonic() - started, warning)
    if not _complete(report):
        return found  # this run takes what was found; the next probes again
    write_entry(entry, _key(model, api_base))
    return found


def _complete(report: DoctorReport) -> bool:
    """A usable verdict from probes that all ran: nothing timed out, failed or was skipped."""
    return (
        report.why_not_usable is None
        and not report.timed_out
        and all(probe.status not in ("failed", "skipped") for probe in report.probes)
    )


def _entry(report: DoctorReport) -> ServerEntry:
    from forgetui.engine.llm.litellm_model import redact_secrets

    assert report.api_base is not None
    return ServerEntry(
        model=report.model,
        api_base=server_url(report.api_base),
        probed_at=now_iso(),
        verdict=report.verdict,
        options={k: v for k, v in report.options.items() if k in APPLIED},
        reasons={k: redact_secrets(v) for k, v in report.reasons.items() if k in APPLIED},
    )


def _from_entry(
    entry: ServerEntry, source: Source, seconds: float = 0.0, warning: str = ""
) -> Findings:
    return Findings(
        entry.model,
        entry.api_base,
        source,
        dict(entry.options),
        dict(entry.reasons),
        entry.probed_at,
        seconds,
        warning=warning,
    )


def _not_a_server_model(model: str) -> bool:
    spec = model.strip()
    return spec in ("replay", "human") or spec.startswith("replay:")


def _value(value: Any) -> str:
    return f"{value:g}" if isinstance(value, float) else str(value)


def _long(name: str, value: Any) -> str:
    if name == "system_role" and value == "merge":
        return "system prompt merged into the user message"
    return {
        "system_role": f"system_role {value}",
        "tools": f"tools {value}",
        "context_window": f"context window {value} tokens",
        "max_output_tokens": f"answers capped at {value} tokens",
        "timeout_s": f"timeout {_value(value)} s",
    }[name]


def _short(name: str, value: Any) -> str:
    if name == "system_role":
        return "merged system" if value == "merge" else f"system {value}"
    if name == "context_window" and isinstance(value, int) and value >= 1000:
        return f"{value // 1000}K window"
    return {
        "tools": f"tools {value}",
        "context_window": f"{value} window",
        "max_output_tokens": f"cap {value}",
        "timeout_s": f"{_value(value)} s",
    }[name]


__all__ = [
    "CACHE_NAME",
    "PROBE_VARIABLE",
    "Findings",
    "cache_file",
    "cached_findings",
    "remember",
    "server_findings",
    "server_options",
    "server_tag",
    "server_url",
]
