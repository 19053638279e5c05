"""The action log pane: one row per step (its intent and result merged), a Line API view that
renders only what is on screen and loads windows of a 10,000-record log by index, follows new
rows, filters by text, jumps to a step, and moves the context pane to the step it rests on."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from forgetui.engine.base.clock import now_iso
from forgetui.engine.folder.action_log import encode_record
from forgetui.engine.folder.records import IntentRecord, OperatorRecord, ResultRecord
from forgetui.engine.start.samples import init_sample
from forgetui.tui.app import ForgeApp
from forgetui.tui.modals.record_detail import RecordDetailScreen
from forgetui.tui.panes.action_log import CACHE_ROWS, REST_DELAY, ActionLogPane, LogView
from forgetui.tui.panes.context import ContextPane
from forgetui.tui.panes.log_filter_bar import FILTER_DELAY, FilterInput, LogFilterBar
from forgetui.tui.snapshot import TAIL_ROWS

from .conftest import SIZE, press, screen_text, settle, type_into

pytestmark = pytest.mark.anyio

SIZES = [(80, 24), (120, 40), (160, 48)]


def big_log_task(root: Path, steps: int) -> Path:
    """A hello_world instance whose log holds `steps` steps (2 * steps records), written in
    one go."""
    folder = init_sample("hello_world", into=root / "big")
    with open(folder.path / "actions.yaml", "wb") as log:
        for step in range(1, steps + 1):
            args = {"path": f"src/module_{step:05d}.py"}
            log.write(
                encode_record(
                    IntentRecord(
                        step=step,
                        at=now_iso(),
                        action="read_file",
                        args=args,
                        context_tokens=1000 + step,
                    )
                )
            )
            log.write(encode_record(ResultRecord(step=step, at=now_iso(), action="read_file",
                                                 args=args, result="success",
                                                 summary=f"read module {step}")))  # fmt: skip
    return folder.path


def log_text(app: ForgeApp) -> str:
    """The action log pane as on screen, border and subtitle included."""
    region = app.workbench.query_one(ActionLogPane).region
    lines = screen_text(app).splitlines()[region.y : region.bottom]
    return "\n".join(line[region.x : region.right] for line in lines)


async def test_a_big_log_loads_only_the_rows_on_screen(
    workbench: Callable[..., ForgeApp], tmp_path: Path
) -> None:
    app = workbench(big_log_task(tmp_path, 5000))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        view = app.workbench.query_one(LogView)
        assert (view.count, view.records) == (5000, 10_000)  # one row per step
        assert len(view.rows) <= TAIL_ROWS  # the tail came with the snapshot, nothing more
        assert view.cursor == 4999  # following the newest row
        text = screen_text(app)
        assert "read module 5000" in text and "5,000 rows · 10,000 records" in text

        view.focus()
        await press(pilot, "home")
        assert view.cursor == 0
        assert "read module 1 " in screen_text(app)
        assert "…" not in screen_text(app)  # the window arrived
        assert len(view.rows) < 3 * TAIL_ROWS

        await press(pilot, *["pagedown"] * 3)
        assert view.cursor > 0
        assert not view.following
        assert len(view.rows) <= CACHE_ROWS


async def test_one_row_per_step(workbench: Callable[..., ForgeApp], quick_hello: Path) -> None:
    app = workbench(quick_hello)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await press(pilot, "s", "s")
        text = log_text(app)
        lines = [line for line in text.splitlines() if "list_dir" in line or "read_file" in line]
        assert len(lines) == 2  # no separate intent rows
        assert "success" in lines[0] and "test_hello.py" in lines[1]
        assert " intent " not in text and "2 rows · 4 records" in text

        view = app.workbench.query_one(LogView)
        view.focus()
        await press(pilot, "up", "enter")  # a step's row opens its result, then its intent
        assert isinstance(app.screen, RecordDetailScreen)
        text = screen_text(app)
        assert "step 1 result list_dir" in text and "summary: 'listed ." in text
        assert "# its intent, record 1" in text and "context_tokens:" in text


def test_rows_fold_results_into_intents_as_the_log_grows(tmp_path: Path) -> None:
    """The engine's row index: a result folds into its intent's row even past an operator
    record (an approval); appended records extend it; a rewritten log is indexed afresh."""
    from forgetui.engine import api

    folder = init_sample("hello_world", into=tmp_path / "rows")
    folder.acquire("test")
    args = {"path": "a.py", "content": "x"}
    intent = IntentRecord(step=1, at=now_iso(), action="write_file", args=args,
                          context_tokens=900, cost=0.01, model_ms=1200)  # fmt: skip
    folder.log.append(intent)
    [row] = api.log_rows(folder, 0, 10)
    assert (row.kind, row.step, row.result, row.target) == ("step", 1, "in flight", "a.py")
    folder.log.append(OperatorRecord(step=1, at=now_iso(), op="approve"))
    result = ResultRecord(step=1, at=now_iso(), action="write_file", args=args,
                          result="success", summary="wrote a.py", duration_ms=30)  # fmt: skip
    folder.log.append(result)
    assert api.log_row_count(folder) == 2
    step, approval = api.log_rows(folder, 0, 2)
    assert (step.result, step.summary, step.tokens, step.cost, step.ms, step.record) == (
        "success", "wrote a.py", 900, 0.01, 1230, 2,
    )  # fmt: skip
    assert approval.action == "operator:approve"
    assert api.log_row_of_step(folder, 1) == 0 and api.log_row_of_step(folder, 2) is None
    count, found = api.find_log_rows(folder, "WROTE")
    assert count == 2 and [r.index for r in found] == [0]

    lone_result = ResultRecord(step=7, at=now_iso(), action="list_dir", result="failure",
                               summary="no such dir")  # fmt: skip
    (folder.path / "actions.yaml").write_bytes(encode_record(lone_result))
    [lone] = api.log_rows(folder, 0, 10)
    assert (lone.step, lone.result, lone.record) == (7, "failure", 0)


async def test_new_rows_are_followed(workbench: Callable[..., ForgeApp], quick_hello: Path) -> None:
    app = workbench(quick_hello)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        view = app.workbench.query_one(LogView)
        assert "no actions yet" in screen_text(app)
        await press(pilot, "s", "s")
        assert view.count == 2 and view.cursor == 1
        view.focus()
        await press(pilot, "up")  # the user moved: stop following
        await press(pilot, "s")
        assert view.count == 3 and view.cursor == 0
        await press(pilot, "end", "s")
        assert view.count == 4 and view.cursor == 3  # back at the end: follow again
        text = screen_text(app)
        assert "wrote hello.py (1 line, new file)" in text


async def test_the_step_in_flight_has_a_row_until_its_result_folds_in(
    workbench: Callable[..., ForgeApp], quick_hello: Path, gated: Callable[..., list[Any]]
) -> None:
    models = gated(free_calls=2)
    app = workbench(quick_hello, engine="thread")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await press(pilot, "s", "s")
        await pilot.press("s")
        assert models[-1].entered.wait(10)
        await pilot.pause()
        row = next(line for line in log_text(app).splitlines() if "asking the model" in line)
        assert "3" in row and "in flight" in row
        models[-1].gate.set()
        await settle(pilot)
        text = log_text(app)
        assert "in flight" not in text and "asking the model" not in text
        assert "wrote hello.py" in text and "3 rows · 6 records" in text


def odd_log_task(root: Path) -> Path:
    """A log whose step 2 never got its result and whose step 3 waits for it now, with an
    operator's note between."""
    folder = init_sample("hello_world", into=root / "odd")
    records: list[IntentRecord | ResultRecord | OperatorRecord] = [
        IntentRecord(step=1, at=now_iso(), action="list_dir", args={"path": "."}),
        ResultRecord(step=1, at=now_iso(), action="list_dir", args={"path": "."},
                     result="success", summary="listed ."),
        IntentRecord(step=2, at=now_iso(), action="read_file", args={"path": "a.py"}),
        OperatorRecord(step=2, at=now_iso(), op="note", text="look at b.py"),
        IntentRecord(step=3, at=now_iso(), action="read_file", args={"path": "b.py"}),
    ]  # fmt: skip
    (folder.path / "actions.yaml").write_bytes(b"".join(map(encode_record, records)))
    return folder.path


async def test_an_intent_without_result_is_in_flight_only_if_newest(
    workbench: Callable[..., ForgeApp], tmp_path: Path
) -> None:
    app = workbench(odd_log_task(tmp_path))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        lines = log_text(app).splitlines()
        a_py = next(line for line in lines if "a.py" in line)
        b_py = next(line for line in lines if "b.py" in line and "read_file" in line)
        assert "interrupted" in a_py and "in flight" in b_py
        assert any("operator:note" in line and "look at b.py" in line for line in lines)


async def typed(pilot: Any) -> None:
    """Let typing rest long enough for the bar to filter, then the search finish."""
    await pilot.pause(FILTER_DELAY + 0.1)
    for _ in range(3):  # the filter asks for a search, whose rows come back as a message
        await pilot.pause()
        await settle(pilot)


async def test_the_filter_bar_filters_as_you_type_enter_keeps_escape_clears(
    workbench: Callable[..., ForgeApp], quick_hello: Path
) -> None:
    app = workbench(quick_hello)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await press(pilot, "s", "s", "s")
        await press(pilot, "slash")
        assert app.screen is app.workbench  # a bar above the log, not a dialog
        bar = app.workbench.query_one(LogFilterBar)
        assert bar.display and isinstance(app.focused, FilterInput)
        await type_into(pilot, "WRITE_file")
        await typed(pilot)  # no enter: the rows follow the typing
        text = log_text(app)
        assert "action log · filter “WRITE_file” · 1 of 3 rows" in text
        assert "wrote hello.py" in text and "list_dir" not in text
        assert isinstance(app.focused, FilterInput)

        await press(pilot, "enter")  # kept; the keys go back to the log, the bar stays
        assert isinstance(app.focused, LogView) and bar.display
        assert "filter: WRITE_file" in log_text(app) and "1 of 3 rows" in log_text(app)

        await press(pilot, "slash")  # `/` again edits the filter in force
        assert isinstance(app.focused, FilterInput) and app.focused.value == "WRITE_file"
        app.focused.clear()
        await typed(pilot)
        text = log_text(app)
        assert "list_dir" in text and "3 rows · 6 records" in text and "filter “" not in text

        await type_into(pilot, "failure")
        await typed(pilot)
        await press(pilot, "enter")
        assert "no row holds “failure”" in log_text(app)
        assert isinstance(app.focused, LogView)
        await press(pilot, "escape")  # escape on the log clears it too, and the bar goes
        assert app.workbench.query_one(LogView).filter is None
        assert "list_dir" in log_text(app) and not bar.display

        await press(pilot, "slash")
        await type_into(pilot, "success")
        await typed(pilot)
        assert "3 of 3 rows" in log_text(app)
        await press(pilot, "escape")  # escape in the bar: cleared, hidden, back to the log
        assert app.workbench.query_one(LogView).filter is None
        assert not bar.display and isinstance(app.focused, LogView)
        assert "action log" in log_text(app) and "filter" not in log_text(app)

        await press(pilot, "slash")
        await type_into(pilot, "success")
        await press(pilot, "enter", "s")  # enter filters at once; a filter keeps up
        assert "filter “success” · 4 of 4 rows" in log_text(app)
        assert "checks: 2/2 passing" in log_text(app)


async def test_the_filter_bar_at_80x24_from_another_pane(
    workbench: Callable[..., ForgeApp], quick_hello: Path
) -> None:
    """Tabs: the keys are in the context pane; `/` opens the bar over the log below it."""
    app = workbench(quick_hello)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await press(pilot, "s", "s", "1")
        assert app.focused is not None and not isinstance(app.focused, (LogView, FilterInput))
        await press(pilot, "slash")
        assert isinstance(app.focused, FilterInput)
        await type_into(pilot, "list_dir")
        await press(pilot, "enter")
        assert isinstance(app.focused, LogView)
        assert "filter “list_dir” · 1 of 2 rows" in log_text(app)


@pytest.mark.parametrize("size", SIZES, ids=[f"{w}x{h}" for w, h in SIZES])
def test_filter_bar_snapshot(
    snap_compare: Any, workbench: Callable[..., ForgeApp], quick_hello: Path,
    size: tuple[int, int],
) -> None:  # fmt: skip
    """Three steps, the bar open on "write": the title says what the filter kept."""
    app = workbench(quick_hello)

    async def run_before(pilot: Any) -> None:
        await settle(pilot)
        await press(pilot, "s", "s", "s", "slash")
        await type_into(pilot, "write")
        await typed(pilot)
        app.clear_notifications()
        await pilot.pause()

    assert snap_compare(app, terminal_size=size, run_before=run_before)


async def test_filter_a_big_log_off_the_ui_thread(
    workbench: Callable[..., ForgeApp], tmp_path: Path
) -> None:
    app = workbench(big_log_task(tmp_path, 5000))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        pane = app.workbench.query_one(ActionLogPane)
        pane.set_filter("module_0420")  # src/module_04200.py .. 04209.py and module_0420x
        assert "searching" in str(pane.border_title)
        await settle(pilot)
        assert "filter “module_0420” · 10 of 5,000 rows" in screen_text(app)
        assert "read module 4209" in screen_text(app)
        assert pane.view.selected is not None and pane.view.selected.step == 4209

        await press(pilot, "g")  # going to a step clears the filter: the row may not match
        await type_into(pilot, "10")
        await press(pilot, "enter")
        assert pane.view.filter is None and "5,000 rows · 10,000 records" in log_text(app)
        assert pane.view.selected is not None and pane.view.selected.step == 10
        assert "read module 10 " in log_text(app)


async def test_g_jumps_to_a_step(workbench: Callable[..., ForgeApp], tmp_path: Path) -> None:
    app = workbench(big_log_task(tmp_path, 5000))
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await settle(pilot)
        await press(pilot, "g")
        await type_into(pilot, "1234")
        await press(pilot, "enter")
        view = app.workbench.query_one(LogView)
        assert view.selected is not None and view.selected.step == 1234
        assert "read module 1234 " in screen_text(app)

        await press(pilot, "g")
        await type_into(pilot, "9999")
        await press(pilot, "enter")
        assert "step 9999 is not in the log" in screen_text(app)  # a toast says so
        assert view.selected is not None and view.selected.step == 1234


async def rest(pilot: Any) -> None:
    """Let the log cursor rest long enough for the context pane to follow it."""
    await pilot.pause(REST_DELAY * 2)
    await settle(pilot)


async def test_the_context_pane_follows_the_selected_step(
    workbench: Callable[..., ForgeApp], quick_hello: Path
) -> None:
    app = workbench(quick_hello)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await press(pilot, "s", "s")
        context = app.workbench.query_one(ContextPane)
        assert "compiled context: next step preview" in screen_text(app)

        app.workbench.query_one(LogView).focus()
        await press(pilot, "up")
        await rest(pilot)
        assert "compiled context: as sent at step 1" in screen_text(app)
        assert context.view is not None and context.view.saved and context.view.step == 1

        await press(pilot, "down")  # back on the newest row: the next step's preview
        await rest(pilot)
        assert "compiled context: next step preview" in screen_text(app)


@pytest.mark.parametrize(
    ("ms", "shown"),
    [(None, ""), (0.4, "<1ms"), (40.2, "40ms"), (2300, "2.3s"), (245_000, "4m05s")],
)
def test_a_steps_time_reads_short(ms: float | None, shown: str) -> None:
    from forgetui.tui.panes.log_columns import took

    assert took(ms) == shown


@pytest.mark.parametrize("width", [76, 100, 140])
def test_log_columns_fit_the_pane_and_keep_the_summary_readable(width: int) -> None:
    from forgetui.tui.panes.log_columns import COLUMNS, column_widths, format_line

    widths = column_widths(width)
    header = format_line([name for name, _ in COLUMNS], widths)
    assert len(header) < width
    assert widths[[name for name, _ in COLUMNS].index("summary")] >= 20
    assert ("cost" in header) == (width >= 120)
