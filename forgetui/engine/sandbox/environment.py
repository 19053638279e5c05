"""The environment a command runs with: built from an allow-list, never from the operator's
environment minus what looks secret, since a scrub misses names nobody thought of
(NPM_AUTH, SLACK_HOOK_URL, DOCKER_AUTH_CONFIG...)."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

# What a program needs to find itself, speak the locale and use the venv; none of it is secret.
# PYTEST_DISABLE_PLUGIN_AUTOLOAD is the operator's choice of how checks run, like LANG.
KEPT_NAMES = frozenset(
    (
        "PATH",
        "HOME",
        "LANG",
        "LANGUAGE",
        "TERM",
        "TZ",
        "VIRTUAL_ENV",
        "PYTHONPATH",
        "PYTHONHOME",
        "PYTEST_DISABLE_PLUGIN_AUTOLOAD",
    )
)
ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def child_env(
    environ: Mapping[str, str], passthrough: Iterable[str] = (), home: str | None = None
) -> dict[str, str]:
    """The variables of `environ` a command may see: the basics above, LC_*, and the names the
    task lists in `env_passthrough`. `home` replaces HOME (the sandbox's empty home)."""
    allowed = KEPT_NAMES | set(passthrough)
    env = {
        name: value for name, value in environ.items() if name in allowed or name.startswith("LC_")
    }
    if home is not None:
        env["HOME"] = home
    env["TMPDIR"] = "/tmp"
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    return env
