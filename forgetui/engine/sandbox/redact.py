"""Secret values cut from what the model and the log see.

A command can still print a secret it was given on purpose (env_passthrough) or found (a file,
/proc in allow-list mode); every output is cleaned of the values of the operator's
secret-looking variables before it is stored or shown."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

MIN_SECRET_CHARS = 8  # shorter values ("1", "true", "dev") would redact ordinary text

SECRET_NAME = re.compile(
    r"KEY|TOKEN|SECRET|PASSW|PASSPHRASE|CREDENTIAL|COOKIE|SESSION|DSN|ASKPASS"
    r"|AUTH(?!OR)|HOOK"  # NPM_AUTH, MYAPP_AUTH_HEADER, SLACK_HOOK_URL; not GIT_AUTHOR_NAME
    r"|^(AWS|AZURE|OPENAI|ANTHROPIC|GEMINI|COHERE|MISTRAL|GROQ|HUGGINGFACE)_"
    r"|^(SSH_AUTH_SOCK|GPG_AGENT_INFO)$",
    re.IGNORECASE,
)
SECRET_VALUE = re.compile(
    r"(?<![A-Za-z0-9])("
    r"sk-[A-Za-z0-9_\-]{8,}"  # OpenAI, Anthropic (sk-ant-...)
    r"|AKIA[0-9A-Z]{16}"  # AWS access key id
    r"|AIza[0-9A-Za-z_\-]{30,}"  # Google API key
    r"|(ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,}"
    r"|glpat-[A-Za-z0-9_\-]{16,}|hf_[A-Za-z0-9]{20,}|xox[abprs]-[A-Za-z0-9\-]{10,}"
    r"|eyJ[A-Za-z0-9_\-]{8,}\.eyJ[A-Za-z0-9_\-]{8,}"  # a JWT
    r")"
    r"|-----BEGIN [A-Z ]*PRIVATE KEY-----"
    r"|://[^/\s:@]+:[^/\s@]+@"  # credentials in a URL
)
# Values that are paths or locale names, whatever they look like.
_NEVER_SECRET = frozenset(("PATH", "HOME", "PWD", "OLDPWD", "TMPDIR", "LANG", "SHELL", "TERM"))


def looks_secret(name: str, value: str) -> bool:
    """A variable whose name (…KEY…, …AUTH…, AWS_…) or value (sk-…, user:pw@ in a URL) says
    it holds a secret."""
    if name in _NEVER_SECRET or name.startswith("LC_"):
        return False
    return bool(SECRET_NAME.search(name) or SECRET_VALUE.search(value))


def secrets_of(environ: Mapping[str, str]) -> dict[str, str]:
    """name -> value of every secret-looking variable long enough to redact safely."""
    return {
        name: value
        for name, value in environ.items()
        if len(value) >= MIN_SECRET_CHARS and looks_secret(name, value)
    }


def redact(
    text: str, secrets: Mapping[str, str], marker: str = "[redacted ${name}]"
) -> tuple[str, list[str]]:
    """`text` with each secret value replaced by `marker` (formatted with its name), and the
    names replaced. Longer values go first, so one that contains another is cut whole."""
    names: list[str] = []
    for name, value in sorted(secrets.items(), key=lambda item: -len(item[1])):
        if value in text:
            text = text.replace(value, marker.format(name=name))
            names.append(name)
    return text, sorted(names)


def redaction_note(names: list[str]) -> str:
    """What a summary says when output was cut: the model should know why text is missing."""
    return f"output redacted ({', '.join(names)})"


def redact_data(value: Any, secrets: Mapping[str, str]) -> Any:
    """`value` (strings, mappings, lists: what a record holds) with the secret values cut from
    every string, keys included, before it is written or sent. Cut from the data, not from the
    text it is written as: an escape or a line fold in YAML or JSON could split a value."""
    if not secrets:
        return value
    if isinstance(value, str):
        return redact(value, secrets)[0]
    if isinstance(value, Mapping):
        return {
            redact_data(key, secrets): redact_data(item, secrets) for key, item in value.items()
        }
    if isinstance(value, list | tuple):
        return [redact_data(item, secrets) for item in value]
    return value
