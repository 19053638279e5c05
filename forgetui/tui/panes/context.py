"""The compiled-context pane: a meter per section (tokens against budget, coloured by how full),
each expandable to its exact text; the next step's preview, with what the next step takes out of
it, or the context as sent at step N, with a diff against step N-1 saying why each memory item
entered or left (with the rule or the budget squeeze behind a departure) and what each section
gave up to fit. Both say why in the engine's words, so a preview's "pushed out" is the diff's."""

from __future__ import annotations

from typing import ClassVar

from textual import events
from textual.actions import SkipAction
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.content import Content
from textual.timer import Timer
from textual.widget import Widget
from textual.widgets import Static

from forgetui.tui.markup import fmt, lines
from forgetui.tui.pane_title import set_pane_title
from forgetui.tui.panes.context_blocks import DIFF_MARKS, ContextSection, Expandable, MessageBlock
from forgetui.tui.snapshot import ContextView
from forgetui.tui.steady import set_subtitle, update_static

PREMOUNT_DELAY_S = 1.0  # after the first view: the start's own work is done by then


class ContextPane(VerticalScroll):
    """Shows a ContextView; the workbench decides which (preview or a saved step). Its
    sections and messages are one list: arrows go from one to the next, the page keys scroll
    (an expanded section's text can be long), escape collapses."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("up", "move(-1)", "up", show=False),
        Binding("down", "move(1)", "down", show=False),
        Binding("home", "move(-1000)", "first", show=False),
        Binding("end", "move(1000)", "last", show=False),
        Binding("escape", "collapse", "collapse", show=False),
    ]

    def __init__(self, **kwargs: object) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self.view: ContextView | None = None
        self._problems: tuple[str, ...] | None = None
        self._visited: Expandable | None = None  # the block focus returns to
        self._premount: Timer | None = None

    def compose(self) -> ComposeResult:
        yield Static("", id="context-total")
        yield Vertical(id="context-sections")
        yield Static("", id="context-problems")
        yield Static("", id="context-diff")
        yield Vertical(id="context-messages")

    def on_mount(self) -> None:
        set_pane_title(self, "compiled context")

    def show_error(self, title: str, error: str) -> None:
        set_pane_title(self, f"compiled context: {title}")
        self.query_one("#context-total", Static).update(fmt("[$error]$error[/]", error=error))

    async def show_view(self, view: ContextView) -> None:
        if view == self.view:
            return
        self.view = view
        set_pane_title(self, f"compiled context: {view.title}")
        set_subtitle(self, Content(view.steps_hint))
        total = self.query_one("#context-total", Static)
        level = view.level
        total.update(  # one line: no layout pass (this runs after every step)
            Content.assemble(
                ("total", "bold"), f" {view.total_tokens:,} of {view.max_tokens:,} tokens  ",
                ("· enter opens a section and its diff" if view.saved
                 else "· enter expands a section", "$foreground-muted"),
            ),
            layout=False,
        )  # fmt: skip
        self.set_class(level == "over" or bool(view.over_budget), "-over-budget")
        await self._sync_sections(view)
        problems = self.query_one("#context-problems", Static)
        window = (view.window_problem,) if view.window_problem else ()
        if window + view.over_budget != self._problems:
            self._problems = window + view.over_budget
            problems.update(
                lines(
                    [fmt("[$error]context window:[/] $problem", problem=p) for p in window]
                    + [fmt("[$error]over budget:[/] $problem", problem=p) for p in view.over_budget]
                )
            )
            problems.display = bool(self._problems)
        diff = self.query_one("#context-diff", Static)
        shown = view.saved or bool(view.leaving)
        if diff.display != shown:
            diff.display = shown
        if view.saved:
            update_static(diff, self._diff_content(view))
        elif view.leaving:
            update_static(diff, self._leaving_content(view))
        await self._sync_messages(view)

    async def _sync_sections(self, view: ContextView) -> None:
        box = self.query_one("#context-sections", Vertical)
        existing = {w.section_name: w for w in box.query(ContextSection)}
        wanted = [s.name for s in view.sections]
        if list(existing) != wanted:
            await box.remove_children()
            widgets = [ContextSection(name, id=f"section-{name}") for name in wanted]
            await box.mount_all(widgets)
            existing = {w.section_name: w for w in widgets}
        note = "(saved per message: expand the messages below)" if view.saved else ""
        for section in view.sections:
            tools = view.tool_tokens if section.name == "available_actions" else 0
            existing[section.name].show(section, note, tools)

    async def _sync_messages(self, view: ContextView) -> None:
        """The messages as sent, for a saved step. The preview hides them without removing
        them: the next saved step shown fills the same blocks (mounting them again at every
        step the log's cursor rests on took a layout pass and a frame of the whole pane)."""
        box = self.query_one("#context-messages", Vertical)
        if box.display != view.saved:
            box.display = view.saved
        roles = [role for role, _ in view.messages]
        if not view.saved:
            if isinstance(self.screen.focused, MessageBlock):  # hidden now: keys go elsewhere
                self.focus_entry()
            elif roles and not box.children and self._premount is None:
                # the blocks a saved step will fill, mounted hidden a moment after the first
                # view: mounted by the first step the log's cursor rests on, they held that
                # key's repaint (tens of milliseconds, a run going on)
                self._premount = self.set_timer(PREMOUNT_DELAY_S, lambda: self._mount(roles))
            return
        await self._mount(roles)
        blocks = list(box.query(MessageBlock))
        for block, (_, content) in zip(blocks, view.messages, strict=False):
            block.show(content)

    async def _mount(self, roles: list[str]) -> None:
        box = self.query_one("#context-messages", Vertical)
        if [block.role for block in box.query(MessageBlock)] != roles:
            await box.remove_children()
            await box.mount_all(MessageBlock(role) for role in roles)

    @staticmethod
    def _diff_content(view: ContextView) -> Content:
        """What entered, changed or left memory since step N-1 and why (a departure with the
        rule or the squeeze behind it), then what each section gave up to fit its budget."""
        since = view.step - 1 if view.diff_since is None else view.diff_since
        head = fmt("[b]changes since step $step[/]", step=since)
        squeezed = [
            fmt(" [$warning]⇣[/] $name  [$foreground-muted]compressed: $notes[/]",
                name=section.name, notes="; ".join(section.compressions))
            for section in view.sections
            if section.compressions
        ]  # fmt: skip
        if view.diff_error:
            return lines([head, fmt(" [$error]$error[/]", error=view.diff_error), *squeezed])
        if not view.diff:
            unchanged = fmt(" [$foreground-muted](working memory shown unchanged)[/]")
            return lines([head, unchanged, *squeezed])
        return lines(
            [head]
            + [
                fmt(f" {DIFF_MARKS[entry.change]} $ref  "
                    "[$foreground-muted]$change ($reason)$why[/]",
                    ref=entry.ref, change=entry.change, reason=entry.reason,
                    why=f" · {entry.detail}" if entry.detail else "")
                for entry in view.diff
            ]
            + squeezed
        )  # fmt: skip

    @staticmethod
    def _leaving_content(view: ContextView) -> Content:
        """The preview's memory items the next step takes out, each with the rule that does."""
        return lines(
            [fmt("[b]leaving at the next step[/]")]
            + [
                fmt(f" {DIFF_MARKS['left']} $ref  [$foreground-muted]leaves ($reason) · $why[/]",
                    ref=entry.ref, reason=entry.reason, why=entry.why)
                for entry in view.leaving
            ]
        )  # fmt: skip

    def blocks(self) -> list[Expandable]:
        """The sections, then the messages as sent, in screen order (those shown)."""
        messages = self.query_one("#context-messages", Vertical).display
        return [
            block for block in self.query(Expandable)
            if block.display and (messages or not isinstance(block, MessageBlock))
        ]  # fmt: skip

    def on_descendant_focus(self, event: events.DescendantFocus) -> None:
        if isinstance(event.widget, Expandable):
            self._visited = event.widget

    def focus_entry(self) -> None:
        """Entering the pane: the block last visited, else the first, else the pane."""
        blocks = self.blocks()
        if self._visited in blocks and self._visited is not None:
            self._focus_now(self._visited)
        elif blocks:
            self._focus_now(blocks[0])
        else:
            self._focus_now(self)

    def _focus_now(self, widget: Widget) -> None:
        """Focus moves before the next key is read: `Widget.focus` waits for a callback, so
        keys arriving together (a burst from the terminal) all started from the old block."""
        if isinstance(widget, Expandable):
            self._visited = widget  # the focus message comes later: a key may come first
        self.screen.set_focus(widget)

    def action_move(self, delta: int) -> None:
        """To the block `delta` away (clamped); with none to go to, the pane scrolls."""
        blocks = self.blocks()
        if not blocks:
            self.scroll_relative(y=delta, animate=False)
            return
        block = self.focused_block()
        index = blocks.index(block) + delta if block in blocks else 0
        self._focus_now(blocks[max(0, min(len(blocks) - 1, index))])

    def action_collapse(self) -> None:
        """Escape: the focused block collapses; on a collapsed one, every expanded block does.
        With none expanded, escape goes on (the zoom, then the app)."""
        block = self.focused_block()
        expanded = [each for each in self.blocks() if each.expanded]
        if block is not None and block.expanded:
            block.toggle()
        elif expanded:
            for each in expanded:
                each.toggle()
        else:
            raise SkipAction()

    def focused_block(self) -> Expandable | None:
        focused = self.screen.focused
        if isinstance(focused, Expandable) and self in focused.ancestors:
            return focused
        return None
