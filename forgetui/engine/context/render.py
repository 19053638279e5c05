"""Element trees as YAML or XML text, split into blocks that end with a newline and start with
text. tiktoken's pre-tokenizer never merges across such a boundary, so a section's token count
is the sum of its blocks' counts, and a block that did not change since the last preview costs
a cache lookup.

XML element text is not escaped: the model reads it, no XML parser does, and code full of
`&lt;` would cost tokens and clarity. Attribute values are escaped."""

from __future__ import annotations

import json
import re
from dataclasses import replace
from functools import lru_cache

from forgetui.engine.base import compress as cz
from forgetui.engine.context.tree import Block, El, Scalar

CACHED_TEXT_CHARS = 4000  # longer texts are cleaned and rendered afresh: few, and cheap per
# character, while caching them would hold megabytes over a long session
XML_SECTION_TAGS = {"available_actions": "tools"}
XML_WRAPPER = ("<task_context>\n", "</task_context>\n")

_PLAIN_START = re.compile(r"[A-Za-z_(/][^\t]*")
_YAML_WORDS = {"yes", "no", "true", "false", "on", "off", "null", "y", "n"}
_XML_NAME = re.compile(r"[A-Za-z_][\w.-]{0,63}")


def clean(text: str) -> str:
    return _clean_cached(text) if len(text) <= CACHED_TEXT_CHARS else cz.clean_text(text)


@lru_cache(maxsize=4096)
def _clean_cached(text: str) -> str:
    return cz.clean_text(text)


@lru_cache(maxsize=4096)
def _yaml_inline(text: str) -> str:
    """A one-line string as a plain scalar when that reads back unchanged, else JSON-quoted
    (every JSON string is a YAML double-quoted scalar)."""
    if (
        _PLAIN_START.fullmatch(text)
        and ": " not in text
        and " #" not in text
        and not text.endswith(":")
        and text.lower() not in _YAML_WORDS
    ):
        return text
    return json.dumps(text, ensure_ascii=False)


@lru_cache(maxsize=1024)
def _yaml_key(tag: str) -> str:
    return _yaml_inline(cz.one_line(clean(tag), 200) or "_")


def _yaml_scalar(head: str, value: Scalar, content_col: int) -> list[str]:
    if value is None:
        return [f"{head} null"]
    if isinstance(value, bool):
        return [f"{head} {'true' if value else 'false'}"]
    if isinstance(value, int | float):
        return [f"{head} {value}"]
    if len(value) > CACHED_TEXT_CHARS:
        return [f"{head} {_yaml_text(value, content_col)}"]
    return [f"{head} {_yaml_text_cached(value, content_col)}"]


def _yaml_text(value: str, content_col: int) -> str:
    """A string value after its key: inline, or a literal block indented to `content_col`."""
    text = clean(value)
    if "\n" not in text:
        return _yaml_inline(text)
    # A first line that starts with a space or a tab needs an explicit indentation indicator
    # (libyaml refuses a tab where it would guess the indentation).
    indicator = "|2-" if text[0] in " \t" else "|-"
    return f"{indicator}\n{cz.indent_lines(text, ' ' * content_col)}"


_yaml_text_cached = lru_cache(maxsize=4096)(_yaml_text)


def _is_leaf(el: El) -> bool:
    return not el.items and not el.attrs and not el.seq


def _fields(el: El) -> tuple[El, ...]:
    """A mapping element's entries in YAML: attributes, text, children."""
    fields = [El(name, text=value) for name, value in el.attrs if value is not None]
    if el.text is not None:
        fields.append(El(el.text_key, text=el.text))
    return (*fields, *el.items)


def _yaml_lines(el: El, col: int, item: bool) -> list[str]:
    pad = " " * col
    head = f"{pad}-" if item else f"{pad}{_yaml_key(el.tag)}:"
    if _is_leaf(el):
        return _yaml_scalar(head, el.text, col + 2)
    if el.seq and not item:
        if not el.items:
            return [f"{head} []"]
        lines = [head]
        for child in el.items:
            lines += _yaml_lines(child, col + 2, True)
        return lines
    fields = (el,) if el.seq else _fields(el)
    if not fields:
        return [f"{head} {{}}"]
    lines = [] if item else [head]
    for entry in fields:
        lines += _yaml_lines(entry, col + 2, False)
    if item:
        lines[0] = f"{pad}- {lines[0][col + 2 :]}"
    return lines


def _xml_value(value: Scalar) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    return clean(str(value))


def _xml_attr(value: Scalar) -> str:
    text = _xml_value(value)
    for raw, escaped in (("&", "&amp;"), ("<", "&lt;"), ('"', "&quot;"), ("\n", "&#10;")):
        text = text.replace(raw, escaped)
    return text


def _xml_open(el: El) -> tuple[str, str]:
    """(`<tag attrs`, tag); a name that is not a valid XML name becomes <entry key="...">."""
    tag, extra = el.tag, ""
    if not _XML_NAME.fullmatch(tag) or tag.lower().startswith("xml"):
        tag, extra = "entry", f' key="{_xml_attr(cz.one_line(el.tag, 200))}"'
    attrs = "".join(f' {name}="{_xml_attr(v)}"' for name, v in el.attrs if v is not None)
    return f"<{tag}{extra}{attrs}", tag


def _xml_lines(el: El) -> list[str]:
    opening, tag = _xml_open(el)
    text = _xml_value(el.text)
    if not el.items:
        if not text:
            return [f"{opening}/>"]
        if "\n" in text:
            return [f"{opening}>", text, f"</{tag}>"]
        return [f"{opening}>{text}</{tag}>"]
    lines = [f"{opening}>", *([text] if text else [])]
    for child in el.items:
        lines += _xml_lines(child)
    lines.append(f"</{tag}>")
    return lines


def render_el(el: El, fmt: str, col: int = 0, item: bool = False) -> str:
    """One element as text ending in a newline."""
    lines = _xml_lines(el) if fmt == "xml" else _yaml_lines(el, col, item)
    return "\n".join(lines) + "\n"


def _blocks(el: El, fmt: str, col: int = 0, item: bool = False, depth: int = 0) -> list[Block]:
    """A section split into blocks down to its grandchildren (one per memory item, decision,
    file excerpt...), so unchanged blocks are counted once across previews."""
    if fmt == "xml":
        if depth >= 2 or not el.items:
            return [Block(render_el(el, fmt), el, 0, False)]
        opening, tag = _xml_open(el)
        text = _xml_value(el.text)
        blocks = [Block(f"{opening}>\n" + (f"{text}\n" if text else ""), el, 0, False)]
        for child in el.items:
            blocks += _blocks(child, fmt, 0, False, depth + 1)
        return [*blocks, Block(f"</{tag}>\n", el, 0, False)]
    if depth >= 2 or item or _is_leaf(el) or not (el.items or el.attrs):
        return [Block(render_el(el, fmt, col, item), el, col, item)]
    blocks = [Block(f"{' ' * col}{_yaml_key(el.tag)}:\n", el, col, False)]
    if el.seq:
        for child in el.items:
            blocks += _blocks(child, fmt, col + 2, True, depth + 1)
    else:
        for entry in _fields(el):
            blocks += _blocks(entry, fmt, col + 2, False, depth + 1)
    return blocks


def section_blocks(el: El, fmt: str) -> list[Block]:
    if fmt == "xml":
        el = replace(el, tag=XML_SECTION_TAGS.get(el.tag, el.tag))
    return _blocks(el, fmt)


def content_prefix(fmt: str, block: Block) -> str:
    """The indentation of a text field's lines inside `block` (an element with a text)."""
    return "" if fmt == "xml" else " " * (block.col + (4 if block.item else 2))
