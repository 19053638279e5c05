"""Which model steps the task: the header names it. This workbench's own choice (its flag,
config or `m`) only steps the task while this workbench writes it; while another process holds
the task, that process's model is the one answering."""

from __future__ import annotations

import shlex

from forgetui.engine import api
from forgetui.tui.task_views import LockHolder


def flagged_model(command: str) -> str | None:
    """The `--model` a holder's command line names, if it names one."""
    try:
        words = shlex.split(command)
    except ValueError:  # a command line cut at its length limit
        words = command.split()
    for index, word in enumerate(words):
        if word == "--model" and index + 1 < len(words):
            return words[index + 1]
        if word.startswith("--model="):
            return word.partition("=")[2]
    return None


def model_in_use(folder: api.TaskFolder, holder: LockHolder | None, own: str | None) -> str:
    """This workbench's model (`own`, else task.yaml's) unless another process holds the task;
    then the model of the last step it recorded, else the one its command line names, else
    task.yaml's (what `forgetui run` falls back to). Reads the log's tail: only while another
    process writes, which is when the header needs it."""
    fallback = folder.spec.model or "replay"  # api.model_for's own fallback
    if holder is None:
        return own or fallback
    last = folder.log.last_intents(1)
    if last and last[0].model and holder.since and last[0].at >= holder.since:
        return last[0].model
    return flagged_model(holder.command) or fallback
