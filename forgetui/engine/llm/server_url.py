"""A server's URL as forgetui shows and keeps it: without the user:password or the query a
token may ride in. An `--api-base` can carry credentials; text that names the server (an error
line, an escalation, doctor's output, the server cache) names it in this form only."""

from __future__ import annotations

import hashlib
import re
import urllib.parse

from forgetui.engine.base.errors import ForgeError

_MIN_SECRET_CHARS = 4  # shorter pieces are cut only as part of the whole URL


def checked_api_base(api_base: str | None) -> str | None:
    """The URL stripped, or a ForgeError naming --api-base (bad input, before any request)."""
    if api_base is None:
        return None
    url = api_base.strip()
    try:
        parts = urllib.parse.urlsplit(url)
        parts.port  # noqa: B018 - a port that is not a number raises here
    except ValueError as exc:
        raise ForgeError(f"--api-base {shown_url(api_base)!r}: not a URL ({exc})") from None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ForgeError(
            f"--api-base {shown_url(api_base)!r}: not an http(s) URL"
            " (e.g. http://127.0.0.1:8080/v1)"
        )
    return url


def server_url(api_base: str) -> str:
    """scheme://host:port/path; a port that is not a number raises ValueError."""
    parts = urllib.parse.urlsplit(api_base.strip())
    host = parts.hostname or ""
    if ":" in host:  # an IPv6 address
        host = f"[{host}]"
    netloc = f"{host}:{parts.port}" if parts.port else host
    return urllib.parse.urlunsplit((parts.scheme, netloc, parts.path.rstrip("/"), "", ""))


def shown_url(api_base: str) -> str:
    """server_url's form for any text, even one that is not a URL (never raises)."""
    try:
        return server_url(api_base)
    except ValueError:
        text = api_base.strip()
        scheme, sep, rest = text.partition("://")
        if not sep:
            scheme, rest = "", text
        rest = re.split(r"[?#]", rest, maxsplit=1)[0]
        netloc, slash, path = rest.partition("/")
        shown = netloc.rpartition("@")[2] + slash + path
        return f"{scheme}://{shown}".rstrip("/") if sep else shown.rstrip("/")


def url_tag(api_base: str) -> str:
    """Tells apart servers whose shown URLs are alike but whose user or query differ (two keys
    for one proxy), without keeping either: the first 12 hex digits of a SHA-256; "" for none."""
    parts = urllib.parse.urlsplit(api_base.strip())
    if not parts.username and not parts.query:
        return ""
    data = f"{parts.username or ''}\0{parts.query}".encode("utf-8", "surrogatepass")
    return hashlib.sha256(data).hexdigest()[:12]


def scrub_url(text: str, api_base: str | None) -> str:
    """`text` with `api_base` in its shown form, and its password and query cut out wherever
    else they appear (an error may quote the request's URL, encoded or not)."""
    if not api_base:
        return text
    raw = api_base.strip()
    shown = shown_url(raw)
    for form in sorted({raw, raw.rstrip("/")}, key=len, reverse=True):
        if form and form != shown:
            text = text.replace(form, shown)
    for piece in sorted(_secrets(raw), key=len, reverse=True):
        text = text.replace(piece, "***")
    return text


def _secrets(url: str) -> set[str]:
    try:
        parts = urllib.parse.urlsplit(url)
        password = parts.password
    except ValueError:
        parts, password = None, None
    if parts is None:
        netloc = url.partition("://")[2].partition("/")[0]
        userinfo = netloc.rpartition("@")[0]
        password = userinfo.partition(":")[2] or None
        query = url.partition("?")[2].partition("#")[0]
    else:
        query = parts.query
    pieces = {query} if query else set()
    if password:
        pieces |= {password, urllib.parse.unquote(password)}
    for _, value in urllib.parse.parse_qsl(query, keep_blank_values=True):
        pieces.add(value)
    return {piece for piece in pieces if len(piece) >= _MIN_SECRET_CHARS}


__all__ = ["checked_api_base", "scrub_url", "server_url", "shown_url", "url_tag"]
