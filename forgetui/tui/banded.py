"""A frame that renders only the lines that changed, band by band.

Textual's partial update renders every widget overlapping the union of the changed regions,
each in full: a changed header line at the top and a changed log line at the bottom make that
union the whole screen, and the frame then costs what a full repaint does. While steps run back
to back every frame changes a few lines far apart (the header, a log row, memory rows, a meter),
so each cost a full repaint, and a key pressed meanwhile waited for it. Here the changed regions
are grouped into bands of adjacent lines; each band renders only the widgets it overlaps, and
only their lines inside it. What goes to the terminal is the same as Textual's update: the same
spans, the same strips on them (tests/tui/test_banded.py compares the two on the workbench).

This builds on the compositor of the Textual version pinned in pyproject.toml (its cuts, chops
and spans); the test above fails if an upgrade changes them."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from itertools import pairwise
from typing import Any

from textual._compositor import ChopsUpdate, Compositor
from textual.geometry import Region
from textual.screen import Screen
from textual.strip import Strip


def bands(regions: Iterable[Region]) -> Iterator[Region]:
    """The regions merged into bands of lines: each band the union of the regions whose lines
    overlap or touch, so no line is in two bands."""
    band: Region | None = None
    for region in sorted(regions, key=lambda r: r.y):
        if band is not None and region.y <= band.bottom:
            band = band.union(region)
            continue
        if band is not None:
            yield band
        band = region
    if band is not None:
        yield band


class BandedCompositor(Compositor):
    """Renders a partial update band by band (see the module's docstring)."""

    def render_partial_update(self) -> ChopsUpdate | None:
        screen = self.size.region
        regions = self._dirty_regions.copy()
        self._dirty_regions.clear()
        if not regions:
            return None
        spans = list(self._regions_to_spans(regions))
        cuts = self.cuts
        # per line, the cuts of the chops a span writes to the terminal (as ChopsUpdate picks
        # them, the chop starting where the span ends included): only those are rendered
        needed: dict[int, list[int]] = {}
        for y, x1, x2 in spans:
            line = cuts[y]
            needed.setdefault(y, []).extend(
                cut for cut, end in pairwise(line) if cut <= x2 and end > x1
            )
        chops: list[dict[int, Strip | None]] = [dict.fromkeys(line[:-1]) for line in cuts]
        for band in bands(regions):
            crop = band.intersection(screen)
            if crop:
                self._fill_band(chops, crop, needed)
        return ChopsUpdate(chops, spans, [line[1:] for line in cuts])

    def _fill_band(
        self, chops: list[dict[int, Strip | None]], crop: Region, needed: dict[int, list[int]]
    ) -> None:
        """Textual's `_render_chops` for the lines of `crop`: each widget it overlaps renders
        only those lines, front to back (the first strip for a cut wins), and not at all where
        it has no chop left to write (the widgets in front of it cover it, as children cover
        their container, or the spans do not reach it)."""
        cuts = self.cuts
        rows = Region(0, crop.y, self.size.width, crop.height)
        for widget, (region, clip) in self.visible_widgets.items():
            if not crop.overlaps(clip):
                continue
            x, y, width, height = region.intersection(clip.intersection(rows))
            last = x + width
            lines = [
                line for line in range(y, y + height)
                if any(x <= cut < last and chops[line][cut] is None for cut in needed.get(line, ()))
            ]  # fmt: skip
            if not lines:
                continue
            top = lines[0]
            strips = widget.render_lines(
                Region(x - region.x, top - region.y, width, lines[-1] - top + 1)
            )
            for line, strip in zip(range(top, lines[-1] + 1), strips, strict=False):
                if line not in needed:
                    continue
                chops_line = chops[line]
                final = [cut for cut in cuts[line] if last >= cut >= x]
                pieces = strip.divide([cut - x for cut in final[1:]])
                for cut, piece in zip(final, pieces, strict=False):
                    if chops_line.get(cut) is None:
                        chops_line[cut] = piece


class BandedFrames(Screen[None]):
    """A screen whose frames render band by band: the workbench, whose frames while steps
    run back to back change a few lines far apart."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._compositor = BandedCompositor()
