"""The programs a shell string would run, so the allow-list still applies to each of them.

Under bubblewrap a command may be a shell string (`pytest -q 2>&1 | tail -20`, `cd src &&
python -m mypkg`): the OS sandbox is what confines it. The allow-list keeps saying which tools
the task uses: every simple command's program (in pipelines, lists, `$(...)` and backticks) must
be allowed or a shell builtin that runs nothing (`| tail` needs tail listed; the output cap
keeps a command's start and end anyway). It is a statement of intent that catches
`pytest; rm -rf src`, not a boundary: an allowed `python -c` can do the same."""

from __future__ import annotations

from collections.abc import Iterator

from forgetui.engine.sandbox.errors import SandboxError

SHELL = "/bin/sh"
# Builtins that run no other program; `eval`, `exec`, `source`, `command` and `trap` do, so they
# are not here and count as programs.
BUILTINS = frozenset(
    ("cd", "echo", "printf", "true", "false", "test", "[", ":", "pwd", "export", "unset",
     "set", "exit", "return", "wait", "shift", "read")
)  # fmt: skip
_RESERVED = frozenset(
    ("if", "then", "else", "elif", "fi", "do", "done", "while", "until", "!", "{", "}", "time")
)
_HEADERS = frozenset(("for", "select"))  # `for NAME in WORDS`: no program in that part
_UNSUPPORTED = frozenset(("case", "function", "coproc"))
_CONTROL = ";&|\n()"
_REDIRECT = "<>"
# A program word holding these is made when the shell runs it (`$x/pytest` with x="curl -s"
# runs curl): its name says nothing of what runs. The reader writes `$(...)` for a substitution.
_EXPANDED = ("$", "`")


def _closing(text: str, start: int, close: str) -> int:
    """The index of the `close` that ends a `$(` or backtick opened before `start`, skipping
    quoted text and nested parentheses."""
    depth = 0
    i = start
    while i < len(text):
        ch = text[i]
        if ch == "\\":
            i += 2
            continue
        if ch == "'" and close == ")":
            end = text.find("'", i + 1)
            if end < 0:
                break
            i = end + 1
            continue
        if ch == close and depth == 0:
            return i
        if close == ")" and ch == "(":
            depth += 1
        elif close == ")" and ch == ")":
            depth -= 1
        i += 1
    raise SandboxError(f"cannot read shell command {text!r}: unbalanced {close!r}")


def _simple_commands(text: str, nested: list[str]) -> Iterator[list[str]]:
    """The words of each simple command in `text` (redirections and their targets left out);
    commands inside `$(...)` and backticks go to `nested` as strings to read the same way.
    One pass with its state (quotes, the word, a redirection's target) in locals: split into
    functions, that state would have to travel with every call."""
    words: list[str] = []
    word: list[str] = []
    started = False
    target = False  # the next word is a redirection's target, not part of the command
    i = 0

    def end_word() -> None:
        nonlocal word, started, target
        if started:
            if target:
                target = False
            else:
                words.append("".join(word))
        word, started = [], False

    while i < len(text):
        ch = text[i]
        if ch == "\\":
            word.append(text[i + 1 : i + 2])
            started, i = True, i + 2
        elif ch == "'":
            end = text.find("'", i + 1)
            if end < 0:
                raise SandboxError(f"cannot read shell command {text!r}: unbalanced quote")
            word.append(text[i + 1 : end])
            started, i = True, end + 1
        elif ch == '"':
            i += 1
            while i < len(text) and text[i] != '"':
                if text[i] == "\\":
                    word.append(text[i + 1 : i + 2])
                    i += 2
                elif text.startswith("$(", i) or text[i] == "`":
                    i = _substitution(text, i, nested)
                    word.append("$(...)")
                else:
                    word.append(text[i])
                    i += 1
            if i >= len(text):
                raise SandboxError(f"cannot read shell command {text!r}: unbalanced quote")
            started, i = True, i + 1
        elif text.startswith("$(", i) or ch == "`":
            i = _substitution(text, i, nested)
            word.append("$(...)")
            started = True
        elif ch == "#" and not started:
            end = text.find("\n", i)
            i = len(text) if end < 0 else end
        elif ch in " \t":
            end_word()
            i += 1
        elif ch in _CONTROL:
            end_word()
            if words:
                yield words
            words = []
            i += 1
        elif ch in _REDIRECT:
            if started and "".join(word).isdigit():  # `2>`: a descriptor, not a word
                word, started = [], False
            end_word()
            if text.startswith("<<", i) and not text.startswith("<<<", i):
                raise SandboxError(
                    "here-documents (<<) are not supported in commands; write the input to a "
                    "file in the workspace and redirect it with <"
                )
            end = i
            while end < len(text) and text[end] in "<>&|":
                end += 1
            operator, i = text[i:end], end
            if operator.endswith("&") and i < len(text) and (text[i].isdigit() or text[i] == "-"):
                while i < len(text) and (text[i].isdigit() or text[i] == "-"):
                    i += 1  # `2>&1`, `>&-`: a descriptor, no file
            else:
                target = True
        else:
            word.append(ch)
            started, i = True, i + 1
    end_word()
    if words:
        yield words


def _substitution(text: str, i: int, nested: list[str]) -> int:
    """Read the `$(...)` (or `$((...))`, arithmetic: no command) or backtick at `i`; its
    command goes to `nested`. Returns the index after it."""
    if text[i] == "`":
        end = _closing(text, i + 1, "`")
        nested.append(text[i + 1 : end])
        return end + 1
    if text.startswith("$((", i):
        end = _closing(text, i + 3, ")")
        _arithmetic(text[i + 3 : end], nested)  # `$(( $(curl) + 1 ))` runs curl
        return _closing(text, end + 1, ")") + 1
    end = _closing(text, i + 2, ")")
    nested.append(text[i + 2 : end])
    return end + 1


def _arithmetic(body: str, nested: list[str]) -> None:
    """The command substitutions inside an arithmetic expansion's `body` go to `nested`."""
    i = 0
    while i < len(body):
        if body.startswith("$(", i) or body[i] == "`":
            i = _substitution(body, i, nested)
        else:
            i += 1


def _program(words: list[str]) -> str | None:
    """The program a simple command runs: after `NAME=value` assignments and reserved words;
    None for a loop's header (`for x in a b`) and a bare assignment. `for x do curl` has no
    separator before its body, so the body's program is read after the `do`."""
    for index, word in enumerate(words):
        name, eq, _ = word.partition("=")
        if eq and name.isidentifier():
            continue
        if word in _UNSUPPORTED:
            raise SandboxError(f"shell `{word}` is not supported in commands")
        if word in _HEADERS:
            rest = words[index + 1 :]
            return _program(rest[rest.index("do") + 1 :]) if "do" in rest else None
        if word in _RESERVED:
            continue
        if word.startswith("~") or any(mark in word for mark in _EXPANDED):
            raise SandboxError(
                f"program {word!r} is made by an expansion; the shell would run what it "
                "expands to, which the allow-list cannot check: name the program itself"
            )
        return word
    return None


def shell_programs(text: str) -> list[str]:
    """Every program the shell string `text` would run, in order, nested substitutions
    included. Raises SandboxError for what it cannot read (an unbalanced quote or paren, a
    here-document, `case`)."""
    programs: list[str] = []
    pending = [text]
    while pending:
        nested: list[str] = []
        for words in _simple_commands(pending.pop(0), nested):
            program = _program(words)
            if program is not None:
                programs.append(program)
        pending.extend(nested)
    return programs
