"""`forgetui project-memory ...`: the workspace's lasting memory (.agentforge/memory/) listed,
added to, edited, pruned, or fed from a task (a note, a decision or an inbox answer)."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from forgetui.cli.args import ArgParser, named_dir, task_path
from forgetui.cli.render import console, print_json, table
from forgetui.engine import api
from forgetui.engine.api import EXIT_OK, ForgeError

if TYPE_CHECKING:
    from forgetui.cli.args import Subcommands
    from forgetui.engine.api import ProjectRow

NAME = "project-memory"
KINDS_HELP = "convention, command, lesson, preference or knowledge"


def add_parser(sub: Subcommands) -> None:
    p = sub.add_parser(
        NAME, help="the workspace's memory that outlives a task: list, add, promote, edit, remove"
    )
    msub = p.add_subparsers(dest="project_command", required=True, parser_class=ArgParser)
    listing = msub.add_parser("list", help="every entry, by kind")
    listing.add_argument("path", nargs="?", default=".", type=named_dir)
    listing.add_argument("--json", action="store_true")
    add = msub.add_parser("add", help="a new entry, written by hand")
    add.add_argument("path", type=named_dir)
    add.add_argument("text")
    add.add_argument("--kind", required=True, help=KINDS_HELP)
    promote = msub.add_parser("promote", help="a task's note, decision or inbox answer")
    promote.add_argument("task", type=task_path)
    source = promote.add_mutually_exclusive_group(required=True)
    source.add_argument("--item", metavar="REF", help="a working-memory note or decision")
    source.add_argument("--answer", metavar="ID", help="an answered inbox question (its step)")
    promote.add_argument("--kind", help=f"{KINDS_HELP} (default: knowledge for a note, "
                         "preference for a decision or an answer)")  # fmt: skip
    edit = msub.add_parser("edit", help="an entry's text replaced")
    edit.add_argument("path", type=named_dir)
    edit.add_argument("id")
    edit.add_argument("text")
    remove = msub.add_parser("remove", help="an entry removed")
    remove.add_argument("path", type=named_dir)
    remove.add_argument("id")


ARGUMENTS = {"text": "TEXT", "id": "ID", "kind": "--kind", "item": "--item", "answer": "--answer"}


def handle(args: argparse.Namespace) -> int:
    sub = args.project_command
    for name, shown in ARGUMENTS.items():
        value = getattr(args, name, None)
        if isinstance(value, str) and not _utf8(value):
            raise ForgeError(f"project-memory {sub}: argument {shown} is not UTF-8 text")
    if sub == "promote":
        service = api.TaskService(args.task)
        if args.item is not None:
            print(service.promote_to_project(args.item, args.kind))
        else:
            print(service.promote_answer_to_project(args.answer, args.kind))
        return EXIT_OK
    workspace = api.project_workspace(args.path)
    if sub == "list":
        rows = api.project_rows(workspace, strict=True)
        if args.json:
            for row in rows:
                print_json(row.to_json())
        else:
            print_rows(rows, workspace)
        return EXIT_OK
    if sub == "add":
        said = api.add_project_entry(workspace, args.kind, args.text)
    elif sub == "edit":
        said = api.edit_project_entry(workspace, args.id, args.text)
    elif sub == "remove":
        said = api.remove_project_entry(workspace, args.id)
    else:  # pragma: no cover - argparse allows only the names above
        raise ForgeError(f"unknown project-memory command {sub!r}")
    print(said)
    return EXIT_OK


def _utf8(value: str) -> bool:
    """False for an argument holding bytes that are not UTF-8 (Python keeps them as stray
    surrogates): nothing could write it to a file or a terminal."""
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def print_rows(rows: list[ProjectRow], workspace: object) -> None:
    """The entries as a table, each value shown as text: a hand-edited file's `[bold]` is not
    markup, and its escape character does not reach the terminal."""
    from rich.markup import escape

    if not rows:
        print(f"no project memory in {workspace} yet: promote a note with "
              "`forgetui project-memory promote TASK --item REF`")  # fmt: skip
        return
    grid = table()
    for column in ("id", "kind", "text", "source"):
        grid.add_column(column)
    for row in rows:
        values = (row.id, row.kind, row.text, row.source or "")
        grid.add_row(*(escape(api.printable(value)) for value in values))
    console().print(grid)
