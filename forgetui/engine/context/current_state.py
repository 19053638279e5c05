"""Fitting current_state to its budget: the compression table (base/compress.py) one step at a
time, and at each step the elastic parts (file excerpts, loaded files) water-filled into the
room the rest of the section leaves. Pinned items and operator decisions give way last; when
they cannot fit, the step is marked over budget and must not go out."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import replace

from forgetui.engine.base import compress as cz
from forgetui.engine.base.tokens import TokenCounter
from forgetui.engine.context.inputs import ContextInputs, Section
from forgetui.engine.context.project_memory import ProjectStateTree
from forgetui.engine.context.render import content_prefix, render_el, section_blocks
from forgetui.engine.context.sections import LIST_CAPS, body_text, hard_section
from forgetui.engine.context.squeeze import COLLAPSE_ALL, Squeeze
from forgetui.engine.context.state_tree import Shown, StateTree
from forgetui.engine.context.target_files import measured, numbered_text
from forgetui.engine.context.tiers import at_least
from forgetui.engine.context.tree import Block

MIN_EXCERPT_TOKENS = 160  # a file excerpt smaller than this is not worth keeping over others
# once long texts are cut, a long memory item (a note) needs no more room than the cut would
# leave it (500 characters), so sizing it by lines never drops an item the cut would have kept
MIN_MEMORY_EXCERPT_TOKENS = 96
EXCERPT_QUANTUM = 32  # excerpt budgets are rounded down to this, so a preview rebuilt after a
# small change elsewhere finds the same excerpt (and its count) in the cache
FILE_CONTENT = "file content: "  # the label of the table's first step


class CurrentState:
    """Builds current_state within its budget: the least compressed step whose tree
    (`StateTree`) fits, with `memory_refs` the items it shows and `over_budget` why the step
    must not go out, if it must not."""

    def __init__(self, inputs: ContextInputs, counter: TokenCounter, fmt: str) -> None:
        self.inputs = inputs
        self.counter = counter
        self.fmt = fmt
        self.state_tree: StateTree = ProjectStateTree(inputs, counter, fmt)  # project memory first
        self.elastic = self.state_tree.elastic
        self.items = self.state_tree.items
        self.memory_refs: list[str] = []
        self.over_budget: list[str] = []
        self._headers: dict[tuple[int, int, bool], int] = {}
        self._rigid_key: Squeeze | None = None
        self._rigid_blocks: tuple[list[Block], Shown] | None = None

    def build(self, budget: int, floor: Squeeze | None = None) -> Section:
        """`floor`: the least compression a usage tier asks for (tiers.py)."""
        self.over_budget, floor = [], floor or Squeeze()
        has_pinned = any(item.pinned for item in self.items)
        said = self.state_tree.said_elsewhere  # cost nothing: never worth dropping
        unpinned = sum(not item.pinned and item.ref not in said for item in self.items)
        need = 0
        has_tree = self.state_tree.tree is not None
        newest = self.state_tree.newest_result() is not None
        collapsed = floor.collapse  # how many older results the step before had on one line
        for sq in dict.fromkeys(
            at_least(sq, floor) for sq in self._squeezes(unpinned, has_pinned, has_tree, newest)
        ):
            if sq.omit_pinned and not self.over_budget:
                refs = ", ".join(item.ref for item in self.items if item.pinned)
                self.over_budget.append(
                    f"context over budget: pinned items {refs} need {need} tokens, "
                    f"current_state budget {budget}"
                )
            section, need = self._attempt(sq, budget)
            if section is not None and sq.collapse and not collapsed:
                return self._fewest_collapsed(sq, budget, section)
            if section is not None:
                return section
            collapsed = sq.collapse
        shown = self.state_tree.at(Squeeze(cut=True, list_cap=LIST_CAPS[-1]), {})
        self.memory_refs = shown.refs
        body = body_text(section_blocks(shown.tree, self.fmt), self.fmt)
        section = hard_section("current_state", budget, body, (), self.counter, self.fmt)
        if not self.over_budget:
            self.over_budget.append(
                f"context over budget: {len(self.inputs.state.decisions)} operator decisions "
                f"and the task inputs need {need} tokens, current_state budget {budget}"
            )
        return section

    @staticmethod
    def _squeezes(
        unpinned: int, has_pinned: bool, has_tree: bool = False, newest: bool = False
    ) -> Iterator[Squeeze]:
        sq = Squeeze()
        yield sq
        for change in ({"files": True}, {"collapse": COLLAPSE_ALL}, {"cut": True}):
            sq = replace(sq, **change)
            yield sq
        for cap in LIST_CAPS:
            sq = replace(sq, list_cap=cap)
            yield sq
        if has_tree:
            sq = replace(sq, no_tree=True)
            yield sq
        for dropped in range(1, unpinned + 1):
            if newest and dropped == unpinned:  # the newest result: compressed, then dropped
                sq = replace(sq, newest=True)
                yield sq
            sq = replace(sq, dropped=dropped)
            yield sq
        if newest and not sq.newest:
            sq = replace(sq, newest=True)
            yield sq
        if has_pinned:
            sq = replace(sq, pinned=True)
            yield sq
        sq = replace(sq, starve=True)
        yield sq
        if has_pinned:
            yield replace(sq, omit_pinned=True)

    def _fewest_collapsed(self, sq: Squeeze, budget: int, fitted: Section) -> Section:
        """The step that puts older tool results on one line fits (`fitted`, every one
        collapsed): the fewest, oldest first, that still fit. Each one collapsed frees room,
        so a binary search finds them in a few renderings however large memory is; whatever
        count it settles on was rendered and fits."""
        fails, fits, best = 0, self.state_tree.collapsible, fitted
        while fits - fails > 1:
            middle = (fails + fits) // 2
            section, _ = self._attempt(replace(sq, collapse=middle), budget)
            if section is None:
                fails = middle
            else:
                fits, best = middle, section
        return best

    def _rigid(self, sq: Squeeze) -> tuple[list[Block], Shown]:
        """The section's blocks with the elastic parts left empty, and what it shows of
        memory. Steps that change only how files are cut share one rendering."""
        key = replace(sq, files=False, starve=False)
        if key != self._rigid_key or self._rigid_blocks is None:
            shown = self.state_tree.at(sq, {})
            self._rigid_key, self._rigid_blocks = key, (section_blocks(shown.tree, self.fmt), shown)
        return self._rigid_blocks

    def _attempt(self, sq: Squeeze, budget: int) -> tuple[Section | None, int]:
        """current_state at one compression step if it fits, and the tokens its pinned items
        and decisions need."""
        count = self.counter.count
        blocks, shown = self._rigid(sq)
        rigid = sum(count(block.text) for block in blocks if block.el.slot < 0)
        need = sum(count(b.text) for b in blocks if b.el.mark and b.el.slot < 0)
        placed = [block for block in blocks if block.el.slot >= 0]
        need += sum(self._floor(b, sq) for b in placed if self.elastic[b.el.slot].pinned)
        allotted = self._allot(placed, budget - rigid, sq)
        if allotted is None:
            return None, need
        fills, excerpted = allotted
        texts = [fills[b.el.slot] if b.el.slot >= 0 else b.text for b in blocks]
        tokens = sum(count(text) for text in texts)
        if tokens > budget:
            return None, need
        labels = sq.labels(shown.collapsed, shown.older)
        if excerpted:
            kept = "first and last lines"
            if any(part.focus for part in self.elastic):
                kept += " (around each violation where one is known)"
            labels = (f"{FILE_CONTENT}{kept} kept", *labels)
        self.memory_refs = shown.refs
        return Section("current_state", budget, "".join(texts), tokens, labels), need

    def _render(self, block: Block, text: str) -> str:
        """An elastic part's block holding `text`."""
        el = self.elastic[block.el.slot].make(text, block.el.slot)
        return render_el(el, self.fmt, block.col, block.item)

    def _header(self, block: Block) -> int:
        """Tokens of an elastic element without its text lines."""
        key = (block.el.slot, block.col, block.item)
        if key not in self._headers:
            prefix = content_prefix(self.fmt, block)
            sample = self.counter.count(self._render(block, "x\nx"))
            self._headers[key] = sample - 2 * self.counter.count(f"{prefix}x\n")
        return self._headers[key]

    def _measure(self, block: Block) -> cz.LineCosts:
        part = self.elastic[block.el.slot]
        prefix = content_prefix(self.fmt, block)
        return measured(part.text, part.numbered, self.counter.encoding_name, prefix)

    def _full(self, block: Block) -> str:
        part = self.elastic[block.el.slot]
        if part.whole is not None:
            return self._render(block, part.whole)
        return self._render(block, numbered_text(part.text) if part.numbered else part.text)

    def _compressible(self, slot: int, sq: Squeeze) -> bool:
        return sq.files and (not self.elastic[slot].pinned or sq.pinned)

    def _floor(self, block: Block, sq: Squeeze) -> int:
        full = self._header(block) + self._measure(block).total_tokens
        if not self._compressible(block.el.slot, sq):
            return full
        part = self.elastic[block.el.slot]
        if sq.starve and not part.memory:
            return min(full, self._header(block))
        least = MIN_MEMORY_EXCERPT_TOKENS if part.memory and sq.cut else MIN_EXCERPT_TOKENS
        return min(full, self._header(block) + least)

    def _allot(
        self, placed: list[Block], room: int, sq: Squeeze
    ) -> tuple[dict[int, str], bool] | None:
        """The elastic parts' blocks within `room` tokens (and whether any was excerpted), or
        None when they cannot fit."""
        fulls = [self._header(b) + self._measure(b).total_tokens for b in placed]
        if sum(fulls) <= room:
            return {b.el.slot: self._full(b) for b in placed}, False
        floors = [self._floor(b, sq) for b in placed]
        if sum(floors) > room:
            return None
        shares = _water_fill(room, fulls, floors)
        fills: dict[int, str] = {}
        for block, full, floor, share in zip(placed, fulls, floors, shares, strict=True):
            if share >= full:
                fills[block.el.slot] = self._full(block)
                continue
            text = self._fit(block, max(floor, share - share % EXCERPT_QUANTUM))
            if text is None:
                return None
            fills[block.el.slot] = text
        return fills, True

    def _fit(self, block: Block, allotment: int) -> str | None:
        """The block of the longest first/last-lines excerpt that fits `allotment`."""
        costs = self._measure(block)
        body = allotment - self._header(block)
        for _ in range(4):
            focus = self.elastic[block.el.slot].focus
            excerpt = cz.fit_lines(costs, max(0, body), self.counter, focus)
            text = self._render(block, excerpt.text)
            tokens = self.counter.count(text)
            if tokens <= allotment:
                return text
            body -= tokens - allotment
        return None


def drop_strategy(section: Section, pinned: bool = False) -> str:
    """Which squeeze of current_state left memory items out, in a user's words: its budget and
    the steps of the table tried before items were dropped (the section's labels up to the
    drop, in the order they were applied)."""
    head = f"current_state over its {section.budget:,}-token budget"
    if pinned:
        return f"{head}: pinned items omitted after every unpinned one (the step must not go out)"
    before: list[str] = []
    for label in section.compressions:
        if label.endswith(" omitted"):
            break
        if label.startswith(FILE_CONTENT):  # "first and last lines of file content kept"
            label = label.removeprefix(FILE_CONTENT).replace(" kept", " of file content kept", 1)
        before.append(label)
    tried = f", after {', '.join(before)}" if before else ""
    return f"{head}: oldest unpinned items dropped first{tried}"


def _water_fill(room: int, fulls: Sequence[int], floors: Sequence[int]) -> list[int]:
    """Share `room` so that small parts get all they need and large ones split the rest evenly,
    none below its floor (the floors must fit)."""
    shares = [0] * len(fulls)
    pending = sorted(range(len(fulls)), key=lambda index: fulls[index])
    left = room
    while pending:
        share = left // len(pending)
        smallest = pending[0]
        if fulls[smallest] <= share:
            shares[smallest] = fulls[smallest]
            left -= fulls[smallest]
            pending.pop(0)
            continue
        above = next((index for index in pending if floors[index] > share), None)
        if above is not None:
            shares[above] = floors[above]
            left -= floors[above]
            pending.remove(above)
            continue
        for index in pending:
            shares[index] = share
        break
    return shares
