"""What current_state shows at one compression step: the task-type inputs, the target files,
working memory, decisions, progress, the plan and the probe. Lists that grow with the task show
their newest entries only, so step 1,000 costs what step 10 does. Fitting the result to its
budget is current_state.py's job."""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import replace
from functools import partial
from typing import Any, Literal, NamedTuple

from forgetui.engine.base import compress as cz
from forgetui.engine.base.tokens import MAX_BYTES_PER_TOKEN, TokenCounter
from forgetui.engine.context.inputs import ContextInputs
from forgetui.engine.context.memory_items import (
    elastic_text,
    items_phrase,
    memory_attrs,
    trace_lines,
)
from forgetui.engine.context.overlap import (
    memory_content,
    missing_targets,
    probe_view,
    progress_view,
    recent_steps,
    tree_overlap,
    whole_reads,
)
from forgetui.engine.context.squeeze import Squeeze, spans_lines
from forgetui.engine.context.state_parts import decisions_el, escalation_el, plan_el
from forgetui.engine.context.target_files import lines_matching, target_files
from forgetui.engine.context.tree import El, Elastic, drop_empty, seq, value_el
from forgetui.engine.context.workspace_tree import tree_budget, workspace_tree
from forgetui.engine.folder.memory import MemoryItem, visible_items

TRACES_SHOWN = 5  # dropped outputs: the newest 5, a line each
COMPLETED_SHOWN = 10  # progress.completed: the context shows the last 10
# The files touched show their last 5; the scratchpad as many of its newest notes as fit this
# share of current_state's budget.
PROBE_SHOWN = 5
SCRATCHPAD_SHARE = 30


class Shown(NamedTuple):
    """current_state at one compression step: its tree, the refs of the memory items it shows,
    and how many of the older tool results it shows went to one line, of how many."""

    tree: El
    refs: list[str]
    collapsed: int = 0
    older: int = 0


class StateTree:
    """current_state's element tree at any compression step. The long texts (multi-line task
    inputs, target files, loaded file contents) are registered once as `elastic` parts, left
    empty in the tree and filled by the fitter with whatever fits."""

    def __init__(self, inputs: ContextInputs, counter: TokenCounter) -> None:
        self.inputs = inputs
        self.counter = counter
        self.elastic: list[Elastic] = []
        self.items = visible_items(inputs.memory, inputs.state.next_step)
        # what the recent actions show a line of, and the target files memory shows whole
        self._recent = recent_steps(inputs.recent)
        # unpinned items the recent actions say all of: shown at no cost, never dropped
        self.said_elsewhere = {
            item.ref
            for item in self.items
            if not item.pinned and memory_content(item, self._recent) is None
        }
        self._referenced: dict[int, tuple[str, El]] = {}
        self._inputs_els = self._task_inputs()
        violation = inputs.spec.violation
        named = violation.get("file_path") if isinstance(violation, dict) else None
        files = list(inputs.spec.target_files)
        if isinstance(named, str) and named not in files:
            files.insert(0, named)  # the file a violation names counts as a target file
        self._files_el = target_files(
            inputs.workspace, files, self._add_elastic, self._focus,
            whole_reads(self.items), self._referenced,
        )  # fmt: skip
        self._missing = missing_targets(self._files_el.items if self._files_el else ())
        budget = tree_budget(inputs.spec.limits.budgets()["current_state"])
        self.tree = workspace_tree(inputs.workspace, budget, counter)
        lines = self.tree.lines if self.tree else ()
        self._listed, self._tree_named = tree_overlap(lines, self.items)
        self._memory_slots = [self._memory_slot(item) for item in self.items]
        self._ranks = self._collapse_order()
        self._notes = self._scratchpad()
        self._traces = trace_lines(inputs.state, self.items)  # once, not per squeeze

    # -- the parts that do not depend on compression

    def _focus(self, rel: str, text: str) -> tuple[int, ...]:
        """Where a violation is in a target file: the lines the violation names, else where the
        check definition's pattern matches. An excerpt keeps their surroundings."""
        spec = self.inputs.spec
        violation, definition = spec.violation, spec.check_definition
        if isinstance(violation, dict) and violation.get("file_path") in (rel, None):
            lines = violation.get("lines") or violation.get("line")
            named = lines if isinstance(lines, list) else [lines]
            found = tuple(n for n in named if isinstance(n, int) and n > 0)
            if found:
                return found
        if isinstance(definition, dict) and isinstance(definition.get("pattern"), str):
            return lines_matching(text, definition["pattern"])
        return ()

    def _scratchpad(self) -> list[str]:
        """The agent's notes, newest first, as many as fit their budget, and how many more."""
        budget = self.inputs.spec.limits.budgets()["current_state"] // SCRATCHPAD_SHARE
        notes = self.inputs.state.scratchpad
        shown: list[str] = []
        used = 0
        for note in reversed(notes):
            too_long = len(note) > budget * MAX_BYTES_PER_TOKEN
            cost = budget + 1 if too_long else self.counter.count(note) + 3
            if used + cost > budget and shown:
                break
            shown.append(note if used + cost <= budget else cz.cut_error(note, 200))
            used += cost
        written = max(self.inputs.state.notes_count, len(notes))
        if len(shown) < written:
            shown.append(f"... and {written - len(shown)} earlier notes")
        return shown

    def _collapse_order(self) -> dict[str, int]:
        """ref -> place in the order older tool results go to one line: the unpinned ones
        whose content spans lines, oldest first (pinned items and the newest result are
        compressed later, each at its own step of the table)."""
        newest = self.newest_result()
        older = [
            item.ref
            for item, slot in zip(self.items, self._memory_slots, strict=True)
            if item.type == "action_result" and slot < 0 and not item.pinned
            and item is not newest and spans_lines(memory_content(item, self._recent))
        ]  # fmt: skip
        return {ref: rank for rank, ref in enumerate(older)}

    @property
    def collapsible(self) -> int:
        """How many older tool results can go to one line."""
        return len(self._ranks)

    def _collapsed(self, item: MemoryItem, sq: Squeeze) -> bool:
        """Whether `item` (a tool result compressed at `sq`) is on one line: the oldest
        `sq.collapse` of the ranked ones; any other once every ranked one is."""
        rank = self._ranks.get(item.ref)
        if rank is not None:
            return rank < sq.collapse
        return sq.collapse > 0 and sq.collapse >= len(self._ranks)

    def _add_elastic(self, part: Elastic) -> int:
        self.elastic.append(part)
        return len(self.elastic) - 1

    def _task_inputs(self) -> list[tuple[str, Any, int]]:
        """(key, value, slot) of the task-type inputs, type-specific ones first."""
        spec = self.inputs.spec
        order = {
            "fix_violation": ("violation", "check_definition"),
            "implement_feature": ("spec",),
            "write_tests": ("test_requirements", "test_patterns"),
            "generic": ("inputs",),
        }[spec.task_type]
        keys = (
            *order,
            "violation",
            "check_definition",
            "spec",
            "test_requirements",
            "test_patterns",
            "inputs",
        )
        found: list[tuple[str, Any, int]] = []
        for key in dict.fromkeys(keys):
            value = getattr(spec, key)
            if value in (None, "", [], {}):
                continue
            slot = -1
            if isinstance(value, str) and "\n" in value.strip():
                slot = self._add_elastic(Elastic(partial(_text_el, key), value, numbered=False))
            found.append((key, value, slot))
        return found

    def _memory_slot(self, item: MemoryItem) -> int:
        """An elastic slot for a long text item (a loaded file, a long note or decision): it
        gets the room current_state has left, cut by lines only as far as the budget needs,
        not to the 500 characters every long text is cut to under pressure."""
        content = elastic_text(item)
        if content is not None:
            whole = item.content if content != item.content else None
            attrs = memory_attrs(item, self.inputs.state.next_step)

            def make(text: str, slot: int) -> El:
                return El(
                    "item",
                    text=text,
                    attrs=attrs,
                    text_key="content",
                    slot=slot,
                    mark="pinned" if item.pinned else "",
                )

            part = Elastic(
                make, content, numbered=False, memory=True, pinned=item.pinned,
                whole=whole if isinstance(whole, str) else None,
            )  # fmt: skip
            return self._add_elastic(part)
        return -1

    # -- the tree at one compression step

    def at(self, sq: Squeeze, fills: Mapping[int, str]) -> Shown:
        """current_state at one compression step, with what it shows of memory.
        Long on purpose: it lists current_state's parts in the order the model reads them,
        so that order is stated once, here."""
        state = self.inputs.state
        cap = sq.list_cap

        def listed(
            values: Sequence[str],
            newest: int | None = None,
            cut: bool = sq.cut,
            total: int | None = None,
        ) -> list[str]:
            """A list under the lists rule: the first `cap` items, or for a list that grows
            with the task (`newest` given) its newest ones, of `total` in all."""
            values = [cz.cut_error(value) if cut else value for value in values]
            caps = [limit for limit in (newest, cap) if limit is not None]
            if not caps:
                return values
            end: Literal["first", "last"] = "first" if newest is None else "last"
            return cz.cap_list(values, min(caps), end=end, total=total)

        def elastic(slot: int) -> El:
            return self.elastic[slot].make(fills.get(slot, ""), slot)

        parts: list[El | None] = []
        for key, value, slot in self._inputs_els:
            if slot >= 0:
                parts.append(elastic(slot))
            elif isinstance(value, str):
                parts.append(El(key, text=cz.cut_error(value) if sq.cut else value))
            else:
                parts.append(value_el(key, value, cut=sq.cut, cap=cap))
        tree = self.tree.shown(cap) if self.tree is not None and not sq.no_tree else None
        whole_tree = tree is not None and self.tree is not None and tree == list(self.tree.lines)
        memory, refs, collapsed = self._memory(sq, elastic, self._listed if whole_tree else ())
        if self._files_el is not None:
            parts.append(self._files(self._files_el, sq, refs, elastic))
        if tree is not None:
            for index, (ref, line) in self._tree_named.items():
                if ref in refs and index < len(tree):
                    tree[index] = line
            parts.append(seq("workspace_tree", tree, "entry"))
        parts.append(memory)
        parts.append(seq("dropped_outputs", listed(self._traces, TRACES_SHOWN), "output"))
        parts.append(decisions_el(state, sq.cut))
        plan_listed = (state.plan or self.inputs.spec.plan) is not None and cap is None
        said = self._recent | {i.step for i in self.items if i.ref in refs and i.step is not None}
        progress = progress_view(state.progress, state, self.inputs.spec.goal, said, plan_listed)
        completed = listed(progress.completed, COMPLETED_SHOWN, total=progress.completed_total)
        parts.append(
            El(
                "progress",
                items=drop_empty(
                    El("objective", text=progress.objective),
                    seq("completed", completed, "step"),
                    seq("pending", listed(progress.pending), "step"),
                ),
            )
        )
        parts.append(seq("scratchpad", listed(self._notes), "note"))

        parts.append(plan_el(state.plan or self.inputs.spec.plan, cap))
        probe = probe_view(state.probe, said, state.progress.completed, completed, self._missing)
        parts.append(
            El(
                "probe",
                items=drop_empty(
                    seq("files_written", listed(probe.files_written, PROBE_SHOWN), "path"),
                    seq("files_missing", listed(probe.files_missing, PROBE_SHOWN), "path"),
                    seq("recent_commands", listed(probe.commands), "command"),
                    seq("last_errors", listed(probe.last_errors, cut=True), "error"),
                ),
            )
        )
        parts.append(seq("blocked", listed(state.loop_guard.blocked), "signature"))
        parts.append(escalation_el(state.pending_escalation, listed))
        return Shown(El("current_state", items=drop_empty(*parts)), refs, *collapsed)

    def _files(
        self, files_el: El, sq: Squeeze, shown: Sequence[str], elastic: Callable[[int], El]
    ) -> El:
        """target_files; a file a shown memory item holds whole names that item instead,
        until anything is compressed (the item may then no longer be whole)."""
        whole = not (sq.files or sq.collapse or sq.cut)
        files = []
        for el in files_el.items:
            named = self._referenced.get(el.slot)
            if named is not None and whole and named[0] in shown:
                files.append(named[1])
            else:
                files.append(elastic(el.slot) if el.slot >= 0 else el)
        return replace(files_el, items=tuple(files))

    def _memory(
        self, sq: Squeeze, elastic: Callable[[int], El], listed: Collection[str]
    ) -> tuple[El | None, list[str], tuple[int, int]]:
        """memory, the refs it shows, and (collapsed, of) the older tool results shown."""
        items: list[El] = []
        refs: list[str] = []
        dropped = collapsed = older = 0
        omitted_pinned: list[str] = []
        newest = self.newest_result()
        for item, slot in zip(self.items, self._memory_slots, strict=True):
            squeeze = (sq.pinned if item.pinned else True) and (item is not newest or sq.newest)
            el = elastic(slot) if slot >= 0 else self._memory_el(item, sq, squeeze, listed)
            if el is None:  # its recent line shows it all: nothing to drop
                refs.append(item.ref)
                continue
            if not item.pinned and dropped < sq.dropped:
                dropped += 1
                continue
            if item.pinned and sq.omit_pinned:
                omitted_pinned.append(item.ref)
                continue
            refs.append(item.ref)
            items.append(el)
            if item.ref in self._ranks:
                older += 1
                collapsed += self._collapsed(item, sq)
        if dropped:
            items.append(El("item", text=f"{items_phrase(dropped)} omitted (oldest first)"))
        if omitted_pinned:
            items.append(
                El(
                    "item",
                    text=f"pinned items omitted (context over budget): {', '.join(omitted_pinned)}",
                )
            )
        shown = El("memory", seq=True, items=tuple(items)) if items else None
        return shown, refs, (collapsed, older)

    def newest_result(self) -> MemoryItem | None:
        """The result of the step just taken, when memory holds it."""
        last = self.inputs.state.next_step - 1
        found = (i for i in self.items if i.type == "action_result" and i.step == last)
        return next(found, None)

    def _memory_el(
        self, item: MemoryItem, sq: Squeeze, squeeze: bool, listed: Collection[str]
    ) -> El | None:
        """The item's element (`squeeze`: under `sq`, else whole); None for a result the
        recent actions say all of (it counts as shown: its line is in the context)."""
        sq = sq if squeeze else Squeeze()
        attrs = memory_attrs(item, self.inputs.state.next_step)
        mark = "pinned" if item.pinned else ""
        content = memory_content(item, () if item.pinned else self._recent, listed)
        if content is None:
            return None
        if item.type == "action_result" and self._collapsed(item, sq):
            content = cz.one_line(content)
        elif sq.cut and isinstance(content, str):
            content = cz.cut_error(content)
        if isinstance(content, str):
            return El("item", text=content, attrs=attrs, text_key="content", mark=mark)
        value = value_el("content", content, cut=sq.cut, cap=sq.list_cap)
        if item.type == "action_result":  # its fields under the ref, one level up
            return El("item", attrs=attrs, items=value.items, mark=mark)
        return El("item", attrs=attrs, items=(value,), mark=mark)


def _text_el(tag: str, text: str, slot: int) -> El:
    return El(tag, text=text, slot=slot)
