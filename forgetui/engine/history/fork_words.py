"""How a fork's errors name what the user gave and what to do instead: a command's flags on
the command line, the dialog's field and the workbench's keys there. One set of rules
(fork.py, rerun.py), two vocabularies."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ForkWords:
    fork_dir: str  # the fork's directory, as the user gave it: a flag or a field
    adopt: str  # what refuses an adoption
    fork_by_hand: str  # how to fork at step {step} instead ({step} is filled in)
    then: str  # what to do once the fork's question is answered


COMMAND_LINE = ForkWords(
    fork_dir="--fork",
    adopt="rerun --adopt",
    fork_by_hand="`forgetui rewind TASK --to {step} --fork DIR`",
    then="then run",
)
WORKBENCH = ForkWords(
    fork_dir="the fork's directory",
    adopt="adopt",
    fork_by_hand="step {step}'s row: r, then f",
    then="then step it",
)
ADOPT_FLAGS = ForkWords(  # `forgetui rerun --adopt DIR`: the fork's directory is that flag's
    fork_dir="--adopt",
    adopt=COMMAND_LINE.adopt,
    fork_by_hand=COMMAND_LINE.fork_by_hand,
    then=COMMAND_LINE.then,
)
