"""The command line: a stable contract whose JSON shapes are public.

Headless commands never import textual; litellm is imported only when a real model is called."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from forgetui.engine.api import EXIT_OK, ForgeError
from forgetui.render import print_json


class _Parser(argparse.ArgumentParser):
    """argparse, but a usage error is one line and exit 2 like every other bad input."""

    def error(self, message: str) -> None:  # type: ignore[override]
        raise ForgeError(f"{self.prog}: {message}")


def _positive(kind: type[int] | type[float]) -> Callable[[str], float]:
    """An argparse type: a number above zero, else one line naming the value."""

    def parse(text: str) -> float:
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
        if not value > 0 or value == float("inf"):  # nan and inf are no bound
            raise argparse.ArgumentTypeError(f"must be a number above 0, not {text}")
        return value

    return parse


def _model_name(text: str) -> str:
    """An argparse type: a model named, never a blank or a `replay:` without its script (a
    script's unset "$MODEL" would otherwise mean the default model)."""
    if not text.strip():
        raise argparse.ArgumentTypeError("an empty model name")
    if text.strip() == "replay:":
        raise argparse.ArgumentTypeError(
            "replay: without a script path (replay alone for the default)"
        )
    return text


def _named_dir(text: str) -> str:
    """An argparse type: a directory named, never a blank (a script's unset "$DIR" would
    otherwise mean the current directory)."""
    if not text.strip():
        raise argparse.ArgumentTypeError("an empty path; name the directory")
    return text


def _temperature(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not 0 <= value <= 2:
        raise argparse.ArgumentTypeError(f"must be between 0 and 2, not {text}")
    return value


def _add_model_bounds(p: argparse.ArgumentParser) -> None:
    """The bounds of every real model call; each wins over task.yaml's `model_options`."""
    p.add_argument(
        "--max-output-tokens",
        type=_positive(int),
        metavar="N",
        help="cap on each answer's tokens (default 1024)",
    )
    p.add_argument("--temperature", type=_temperature, help="sampling temperature (default 0)")
    p.add_argument(
        "--timeout",
        type=_positive(float),
        metavar="SECONDS",
        help="bound on the wait for the server to start answering, then on the answer from"
        " there to its last token; a timed-out answer is not retried (default 60)",
    )
    p.add_argument(
        "--system-role",
        choices=["system", "merge"],
        help="merge: send the system prompt inside the user message, for models whose chat"
        " template has no system role (default: system, unless litellm knows the model has none)",
    )
    p.add_argument(
        "--no-stream",
        action="store_true",
        help="ask for whole answers, for a server that breaks on streaming or reports no token"
        " counts on a stream (default: answers stream)",
    )
    p.add_argument(
        "--tools",
        choices=["auto", "on", "off"],
        help="send the actions as tool schemas (on), or ask for a fenced block (off); auto: when"
        " litellm says the model calls functions, or with --api-base (default auto)",
    )


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="forgetui", description="Supervise an LLM agent one step at a time.")
    parser.add_argument("--theme", help="theme name for the TUI (remembered)")
    sub = parser.add_subparsers(dest="command", parser_class=_Parser)

    p = sub.add_parser("open", help="open the TUI on a task folder, a workspace or a sample")
    p.add_argument("path")
    p.add_argument("--model", type=_model_name, help="litellm model string, replay[:PATH] or human")
    p.add_argument("--api-base")
    _add_model_bounds(p)
    p.add_argument("--theme", default=argparse.SUPPRESS)

    p = sub.add_parser("init", help="instantiate a sample task; prints the task folder")
    p.add_argument("sample")
    p.add_argument("--into", type=Path)

    p = sub.add_parser("runs", help="list the run copies samples were opened in; --prune old ones")
    p.add_argument("--prune", action="store_true", help="remove old copies (not those in use)")
    p.add_argument("--keep", type=int, metavar="N", help="with --prune: the newest N stay (10)")
    p.add_argument(
        "--older-than", type=float, metavar="DAYS", help="with --prune: only copies older than this"
    )
    p.add_argument("--json", action="store_true")

    p = sub.add_parser("new", help="create a task in a workspace; prints the task folder")
    p.add_argument(
        "--workspace", default=".", help="the directory the agent works in (default: this one)"
    )
    p.add_argument("--goal", required=True)
    p.add_argument(
        "--type",
        dest="task_type",
        default="generic",
        choices=["generic", "fix_violation", "implement_feature", "write_tests"],
    )
    p.add_argument("--criterion", action="append", default=[])
    p.add_argument(
        "--check-cmd",
        action="append",
        default=[],
        help="a command check; without one, the project's own test command is proposed",
    )
    p.add_argument(
        "--no-check", action="store_true", help="no proposed test command (and no checks run)"
    )
    p.add_argument("--id", dest="task_id")

    p = sub.add_parser("run", help="run steps headless")
    p.add_argument("task")
    p.add_argument("--model", type=_model_name)
    p.add_argument("--api-base")
    _add_model_bounds(p)
    p.add_argument("--max-steps", type=int)
    p.add_argument("--until", choices=["escalation", "complete"], default="complete")
    p.add_argument(
        "--on-interrupt",
        choices=["rerun", "skip", "ask"],
        default="ask",
        help="a step a crash or Ctrl+C interrupted: re-run it, skip it, or stop and ask",
    )
    p.add_argument("--json", action="store_true")
    p.add_argument(
        "--stream", action="store_true", help="print each answer to stderr as it arrives"
    )

    p = sub.add_parser("context", help="the compiled context of the next step (or of step N)")
    p.add_argument("task")
    p.add_argument("--step", type=_positive(int), metavar="N")
    p.add_argument("--model", type=_model_name)
    p.add_argument("--json", action="store_true")

    p = sub.add_parser("status", help="phase, status, step, verification")
    p.add_argument("task")
    p.add_argument("--json", action="store_true")

    p = sub.add_parser("log", help="the action log, one line per step")
    p.add_argument("task")
    p.add_argument("--tail", type=_positive(int), metavar="N")
    p.add_argument("--json", action="store_true")

    p = sub.add_parser("answer", help="answer the pending escalation")
    p.add_argument("task")
    p.add_argument("text")

    p = sub.add_parser("inbox", help="every question asked in this task and its answer")
    p.add_argument("task")
    p.add_argument(
        "--promote",
        metavar="STEP",
        help="pin the answer to step STEP's question as a working-memory note (answer@STEP)",
    )
    p.add_argument("--json", action="store_true")

    p = sub.add_parser(
        "accept-task-change", help="accept an edited task.yaml, so steps run again (logged)"
    )
    p.add_argument("task")

    p = sub.add_parser(
        "repair", help="make a task's damaged or disagreeing files agree again (dry run)"
    )
    p.add_argument("task")
    p.add_argument("--apply", action="store_true", help="do it (backups kept, logged)")

    p = sub.add_parser("unlock", help="remove a task's lock left by a process that is gone")
    p.add_argument("task")

    p = sub.add_parser(
        "doctor", help="probe a model and its server; say whether it is usable, with which options"
    )
    p.add_argument(
        "--model", required=True, type=_model_name, help="litellm model string, e.g. openai/NAME"
    )
    p.add_argument("--api-base", help="an OpenAI-compatible server, e.g. http://127.0.0.1:8080/v1")
    p.add_argument(
        "--timeout",
        type=_positive(float),
        metavar="SECONDS",
        help="per-request timeout (default 60); a probe is never retried",
    )
    p.add_argument("--json", action="store_true")

    p = sub.add_parser("rewind", help="back to step N: state, memory and files; --fork copies")
    p.add_argument("task")
    p.add_argument("--to", type=int, required=True, metavar="N", help="the step to go back to")
    p.add_argument("--fork", metavar="DIR", help="a new workspace for the fork; the task stays")
    p.add_argument("--force", action="store_true", help="overwrite files changed by hand")
    p.add_argument("--json", action="store_true")

    p = sub.add_parser("rerun", help="send step N's saved context to a model; nothing executes")
    p.add_argument("task")
    p.add_argument("--step", type=int, required=True, metavar="N")
    p.add_argument(
        "--model",
        required=True,
        type=_model_name,
        help="a litellm model string, replay:PATH or human",
    )
    p.add_argument("--api-base")
    _add_model_bounds(p)
    p.add_argument(
        "--adopt", metavar="DIR", type=_named_dir, help="fork at N into DIR and run the new action"
    )
    p.add_argument("--json", action="store_true")

    p = sub.add_parser("export-replay", help="the run as a replay script (a regression test)")
    p.add_argument("task")
    p.add_argument("--to", metavar="FILE", help="write here (default: stdout)")

    p = sub.add_parser("stats", help="tokens sent per step vs a naive growing conversation")
    p.add_argument("task")
    p.add_argument("--json", action="store_true")

    p = sub.add_parser("limits", help="set the step or cost limit mid-run")
    p.add_argument("task")
    p.add_argument("--max-steps", type=int)
    p.add_argument("--max-cost", type=float)

    p = sub.add_parser("memory", help="list or change working memory")
    p.add_argument("task")
    msub = p.add_subparsers(dest="memory_command", required=True, parser_class=_Parser)
    msub.add_parser("list").add_argument("--json", action="store_true")
    for name in ("pin", "unpin", "evict"):
        msub.add_parser(name).add_argument("key")
    msub.add_parser("note").add_argument("text")
    e = msub.add_parser("edit")
    e.add_argument("key")
    e.add_argument("text")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    try:
        args = build_parser().parse_args(argv)
        code = _dispatch(args)
        sys.stdout.flush()  # here, not at exit: a closed pipe (`| head`) ends quietly below
        return code
    except ForgeError as exc:
        sys.stderr.write(f"forgetui: {exc.message}\n")
        return exc.exit_code
    except KeyboardInterrupt:
        sys.stderr.write("forgetui: interrupted\n")
        return 130
    except BrokenPipeError:
        # The reader (`| head`) has all it wanted: stop quietly, as a Unix filter does.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return EXIT_OK


def _dispatch(args: argparse.Namespace) -> int:
    command = args.command
    if command in (None, "open"):
        from forgetui.tui.launch import launch

        return launch(
            getattr(args, "path", None),
            model=getattr(args, "model", None),
            api_base=getattr(args, "api_base", None),
            theme=args.theme,
            model_options=_model_bounds(args),
        )
    handler = _HANDLERS[command]
    return handler(args)


def _model_bounds(args: argparse.Namespace) -> dict[str, Any]:
    """The model-bound flags the user gave (`_add_model_bounds`), by ModelOptions field."""
    given = {
        "max_output_tokens": getattr(args, "max_output_tokens", None),
        "temperature": getattr(args, "temperature", None),
        "timeout_s": getattr(args, "timeout", None),
        "system_role": getattr(args, "system_role", None),
        "tools": getattr(args, "tools", None),
        "stream": False if getattr(args, "no_stream", False) else None,
    }
    return {name: value for name, value in given.items() if value is not None}


def _cmd_init(args: argparse.Namespace) -> int:
    from forgetui.engine import api

    folder = api.init_sample(args.sample, into=args.into)
    print(folder.path)
    return EXIT_OK


def _cmd_runs(args: argparse.Namespace) -> int:
    from forgetui.engine import api

    if not args.prune:
        if args.keep is not None or args.older_than is not None:
            raise ForgeError("runs: --keep and --older-than only go with --prune")
        copies = api.run_copies()
        if args.json:
            for copy in copies:
                print_json(copy.to_json())
        elif copies:
            from forgetui.render import print_runs

            print_runs(copies)
        else:
            sys.stderr.write(f"forgetui: no run copies in {api.runs_root()}\n")
        return EXIT_OK
    keep = api.DEFAULT_KEEP if args.keep is None else args.keep
    copies = api.run_copies()
    doomed = api.to_prune(copies, keep, args.older_than)  # bad --keep/--older-than: exit 2 here
    from forgetui.render import print_prune_summary, print_pruned

    results = []
    for copy in doomed:
        result = api.remove_run(copy)
        results.append(result)
        if args.json:
            print_json(result.to_json())
        else:
            print_pruned(result)
    if args.json:
        removed = sum(1 for r in results if r.removed)
        print_json(
            {"final": True, "removed": removed, "kept": len(copies) - removed,
             "freed_bytes": sum(r.freed for r in results)}
        )  # fmt: skip
    else:
        print_prune_summary(results, len(copies))
    return EXIT_OK


def _cmd_new(args: argparse.Namespace) -> int:
    from forgetui.engine import api

    if args.no_check and args.check_cmd:
        raise ForgeError("--no-check and --check-cmd: give one or the other")
    folder = api.create_task(
        args.workspace,
        args.goal,
        args.task_type,
        args.criterion,
        args.check_cmd,
        args.task_id,
        propose_check=not args.no_check,
        on_notice=lambda notice: sys.stderr.write(f"forgetui: {notice}\n"),
    )
    print(folder.path)  # stdout is the task folder alone: `cd "$(forgetui new ...)"` works
    return EXIT_OK


def _cmd_context(args: argparse.Namespace) -> int:
    from forgetui.engine import api

    folder = api.open_task(args.task)
    if args.step is not None:
        saved = api.saved_context(folder, args.step)
        if args.json:
            print_json(saved)
        else:
            for message in saved["messages"]:
                print(f"===== {message['role']} =====\n{message['content']}")
            # why memory differs from the step before, and what each section gave up to fit
            for entry in api.context_diff(folder, args.step):
                print(entry.describe())
            for name, notes in (saved.get("compressions") or {}).items():
                print(f"compressed {name} ({'; '.join(notes)})")
        return EXIT_OK
    ctx = api.preview_context(folder, args.model)
    if args.json:
        print_json(ctx.to_json())
        return EXIT_OK
    from forgetui.render import print_context

    print_context(ctx)
    return EXIT_OK


def _cmd_status(args: argparse.Namespace) -> int:
    from forgetui.engine import api

    folder = api.open_task(args.task)
    info = api.status(folder)
    if args.json:
        print_json(info)
        return EXIT_OK
    from forgetui.render import print_status

    print_status(info)
    return EXIT_OK


def _cmd_log(args: argparse.Namespace) -> int:
    from forgetui.engine import api

    folder = api.open_task(args.task)
    entries = api.log_entries(folder, args.tail)
    if args.json:
        for entry in entries:
            print_json(entry)
        return EXIT_OK
    from forgetui.render import print_log

    print_log(entries)
    return EXIT_OK


def _cmd_memory(args: argparse.Namespace) -> int:
    from forgetui.engine import api

    folder = api.open_task(args.task)
    sub = args.memory_command
    if sub == "list":
        rows = api.memory_rows(folder)
        if args.json:
            for row in rows:
                print_json(row.to_json())
        else:
            from forgetui.render import print_memory

            print_memory(rows)
        return EXIT_OK
    if sub in ("pin", "unpin"):
        ref = api.pin(folder, args.key, pinned=sub == "pin")
    elif sub == "evict":
        ref = api.evict(folder, args.key)
    elif sub == "edit":
        ref = api.edit_memory(folder, args.key, args.text)
    else:
        ref = api.add_note(folder, args.text)
    print(f"{sub}: {ref}")
    return EXIT_OK


def _cmd_run(args: argparse.Namespace) -> int:
    from forgetui.engine import api
    from forgetui.render import run_output

    out = run_output(as_json=args.json, stream=args.stream)
    outcome = api.run(
        Path(args.task),
        model=args.model,
        api_base=args.api_base,
        bounds=_model_bounds(args),
        max_steps=args.max_steps,
        until=args.until,
        on_interrupt=args.on_interrupt,
        on_step=out.step,
        on_event=out.event,
        on_notice=lambda notice: sys.stderr.write(f"forgetui: {notice}\n"),
    )
    out.final(outcome.final)
    return outcome.exit_code


def _cmd_answer(args: argparse.Namespace) -> int:
    from forgetui.engine import api

    folder = api.open_task(args.task)
    decision = api.answer(folder, args.text)
    print(f"answered step {decision.step}: {decision.answer}")
    return EXIT_OK


def _cmd_inbox(args: argparse.Namespace) -> int:
    from forgetui.engine import api

    folder = api.open_task(args.task)
    if args.promote is not None:
        said = api.promote_answer(folder, args.promote)
        if not args.json:
            print(said)
            return EXIT_OK
    entries = api.escalation_inbox(folder)
    if args.promote is not None:  # --json: the promoted entry
        entries = [api.find_entry(entries, args.promote)]
    if args.json:
        for entry in entries:
            print_json(entry.to_json())
    else:
        from forgetui.render import print_inbox

        print_inbox(entries, args.task)
    return EXIT_OK


def _cmd_limits(args: argparse.Namespace) -> int:
    from forgetui.engine import api

    folder = api.open_task(args.task)
    decision = api.set_limits(folder, args.max_steps, args.max_cost)
    print(f"limits set at step {decision.step}: {decision.answer}")
    return EXIT_OK


def _cmd_accept_task_change(args: argparse.Namespace) -> int:
    from forgetui.engine import api

    folder = api.open_task(args.task)
    change = api.task_change(folder)
    if change is not None and change.diff:
        sys.stdout.write(change.diff if change.diff.endswith("\n") else change.diff + "\n")
    print(api.accept_task_change(folder))
    return EXIT_OK


def _cmd_repair(args: argparse.Namespace) -> int:
    import shlex

    from forgetui.engine import api

    done = api.repair_task(args.task, apply=args.apply)
    task = shlex.quote(args.task)
    if not done.fixes:
        if done.unfixable_error() is None:
            print("nothing to repair: state.yaml, working_memory.yaml and actions.yaml agree")
    elif args.apply:
        print(f"repaired (backups: {', '.join(done.backups) or 'none needed'}):")
    else:
        print(f"`forgetui repair {task} --apply` would (keeping a backup of each file it changes):")
    for fix in done.fixes:
        print(f"  {fix.text}")
    error = done.unfixable_error()
    if error is not None:
        raise error
    return EXIT_OK


def _cmd_unlock(args: argparse.Namespace) -> int:
    from forgetui.engine import api

    print(api.unlock_task(args.task))
    return EXIT_OK


def _cmd_doctor(args: argparse.Namespace) -> int:
    from forgetui.engine import api
    from forgetui.render import print_doctor_probe, print_doctor_report

    report = api.doctor(
        args.model,
        api_base=args.api_base,
        timeout_s=args.timeout,
        on_probe=None if args.json else print_doctor_probe,
    )
    if args.json:
        print_json(report.to_json())
    else:
        print_doctor_report(report)
    return report.exit_code


def _cmd_rewind(args: argparse.Namespace) -> int:
    from forgetui.engine import api
    from forgetui.render import print_rewind

    if not args.task.strip():  # a script's unset "$TASK" is not the current directory
        raise ForgeError("rewind: an empty TASK; name a task folder or workspace")
    fork = args.fork is not None  # an empty --fork is refused as such, not an in-place rewind
    if fork and args.force:
        raise ForgeError("rewind: --force is for an in-place rewind; a fork changes no file here")
    folder = api.open_task(args.task)
    try:
        if fork:
            report = api.fork_task(folder, args.to, args.fork)
        else:
            report = api.rewind_task(folder, args.to, force=args.force)
    except api.RewindConflict as conflict:  # one file a line, then what to do
        plan = conflict.report
        if args.json:
            print_json({**plan.to_json(), "error": conflict.message})
        sys.stderr.write(
            f"forgetui: rewind to step {plan.to} stopped: changed by hand since the run wrote "
            "them:\n" + "".join(f"  {rel}\n" for rel in plan.conflicts)
        )
        sys.stderr.write("forgetui: nothing changed; --force overwrites them\n")
        return conflict.exit_code
    if args.json:
        print_json(report.to_json())
    else:
        print_rewind(report)
    return EXIT_OK


def _cmd_rerun(args: argparse.Namespace) -> int:
    from forgetui.engine import api

    folder = api.open_task(args.task)
    rerun = api.rerun_step(
        folder, args.step, args.model, api_base=args.api_base, bounds=_model_bounds(args)
    )
    why_not = rerun.not_adoptable if args.adopt is not None else None
    adopted = None
    if args.adopt is not None and why_not is None:
        adopted = api.adopt_rerun(folder, rerun, args.adopt)
    if args.json:
        print_json({**rerun.to_json(), "adopted": adopted.to_json() if adopted else None})
    else:
        from forgetui.render import print_rerun

        print_rerun(rerun, adopted)
    if why_not is not None:
        sys.stderr.write(f"forgetui: nothing adopted: {why_not}\n")
        return 1
    return rerun.exit_code


def _cmd_export_replay(args: argparse.Namespace) -> int:
    from forgetui.engine import api
    from forgetui.render import print_export_notes

    folder = api.open_task(args.task)
    export = api.export_replay(folder)
    if args.to is None:
        sys.stdout.write(export.text)
        sys.stdout.flush()  # here, so a closed pipe (`| head`) ends quietly in main
    else:
        target = Path(args.to)
        if target.is_dir():
            raise ForgeError(f"--to {args.to}: a directory, not a file")
        try:  # an existing file is replaced whole: re-exporting updates the regression test
            api.atomic_write_text(target, export.text)
        except OSError as exc:
            raise ForgeError(f"--to {args.to}: {exc.strerror or exc}") from None
    print_export_notes(export, args.to)
    return EXIT_OK


def _cmd_stats(args: argparse.Namespace) -> int:
    from forgetui.engine import api

    stats = api.task_stats(api.open_task(args.task))
    if args.json:
        print_json(stats)
        return EXIT_OK
    from forgetui.render import print_stats

    print_stats(stats)
    return EXIT_OK


_HANDLERS = {
    "rewind": _cmd_rewind,
    "rerun": _cmd_rerun,
    "export-replay": _cmd_export_replay,
    "stats": _cmd_stats,
    "init": _cmd_init,
    "runs": _cmd_runs,
    "new": _cmd_new,
    "context": _cmd_context,
    "status": _cmd_status,
    "log": _cmd_log,
    "memory": _cmd_memory,
    "run": _cmd_run,
    "answer": _cmd_answer,
    "inbox": _cmd_inbox,
    "limits": _cmd_limits,
    "accept-task-change": _cmd_accept_task_change,
    "repair": _cmd_repair,
    "unlock": _cmd_unlock,
    "doctor": _cmd_doctor,
}
