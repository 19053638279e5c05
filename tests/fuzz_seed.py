"""The run's fuzz seed: every fuzz test draws its cases from it, so each run explores new cases
and a failing one replays exactly.

FORGETUI_FUZZ_SEED=N replays run N; unset, a fresh seed is drawn. The first process to import
this (pytest's main process) puts the seed it drew into the environment, so xdist's workers,
started after, draw from the same one. The seed is printed at the end of every run and with
each failing fuzz test (tests/conftest.py):

    FORGETUI_FUZZ_SEED=N .venv/bin/python -m pytest tests/engine/test_fuzz_files.py -p no:xdist
"""

from __future__ import annotations

import os
import random
from collections.abc import Callable
from typing import TypeVar

import pytest

SEED_VARIABLE = "FORGETUI_FUZZ_SEED"

T = TypeVar("T", bound=Callable[..., object])


def _the_seed() -> int:
    given = os.environ.get(SEED_VARIABLE, "").strip()
    if not given:
        return random.SystemRandom().randrange(2**32)
    try:
        return int(given)
    except ValueError:
        raise pytest.UsageError(f"{SEED_VARIABLE}={given!r} is not a whole number") from None


SEED = _the_seed()
os.environ[SEED_VARIABLE] = str(SEED)


def replay_command(nodeid: str = "tests") -> str:
    path = nodeid.split("::")[0]
    return f"{SEED_VARIABLE}={SEED} .venv/bin/python -m pytest {path} -p no:xdist"


def fuzzed(test: T) -> T:
    """Draw `test`'s cases from the run's seed (outside @given), and mark it `fuzz`."""
    from hypothesis import seed  # here: conftest imports this module, and every run with it

    marked: T = pytest.mark.fuzz(seed(SEED)(test))
    return marked
