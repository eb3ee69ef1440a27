"""A virtualised list of variable-height blocks (Line API).

Each block renders to a list of strips at the current width; only the
visible lines are drawn, rendered blocks are cached by (block, version,
width), and a change to one block re-measures that block only.  The
transcript and the detail view are both BlockViews.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Hashable
from itertools import accumulate
from time import perf_counter

from rich.console import RenderableType
from textual.actions import SkipAction
from textual.binding import Binding
from textual.cache import LRUCache
from textual.geometry import Size
from textual.scroll_view import ScrollView
from textual.strip import Strip

from viewer.ui.render import fold, line_showing
from viewer.ui.widgets.scroll import set_virtual_size


class BlockView(ScrollView, can_focus=True):
    """Subclasses implement ``block_count``, ``block_version`` and ``render_block``."""

    #: Up to this many new blocks are measured by rendering them; more (a bulk load) are
    #: estimated until they come on screen.
    EXACT_NEW = 32

    BINDINGS = [
        Binding("j", "scroll_down", "Down", show=False),
        Binding("k", "scroll_up", "Up", show=False),
        Binding("g", "scroll_home", "Top", show=False),
        Binding("G", "scroll_end", "Bottom", show=False),
    ]

    DEFAULT_CSS = """
    BlockView {
        overflow-x: hidden;
        overflow-y: auto;
    }
    """

    def __init__(self, *, name: str | None = None, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self._heights: list[int] = []
        self._versions: list[Hashable] = []
        self._starts: list[int] = [0]
        self._exact: list[bool] = []  # height measured by rendering (else estimated)
        self._kept_first = False  # blocks after some were dropped: sync measures again (keep_first)
        self._width = 0
        self._laid_out_height = 0  # the view's height as the last resize left it
        self._cache: LRUCache[tuple[int, Hashable, int], list[Strip]] = LRUCache(512)
        self.follow = True
        #: The bottom of the view is at the end.  Kept as the user left it, so a window made
        #: shorter (the end is then below the view) does not stop a following view.
        self._pinned = True

    # -- subclass API -------------------------------------------------------------
    def block_count(self) -> int:
        return 0

    def block_version(self, index: int) -> Hashable:
        return 0

    def render_block(self, index: int, width: int) -> RenderableType | list[Strip]:
        raise NotImplementedError

    def block_height(self, index: int) -> int | None:
        """The block's height when known without rendering it (one-line blocks), else None."""
        return None

    def estimate_height(self, index: int, width: int) -> int:
        """A cheap guess at the block's height, used until it is rendered."""
        return 1

    def block_versions(self, start: int, stop: int) -> list[Hashable]:
        return [self.block_version(i) for i in range(start, stop)]

    def estimate_heights(self, start: int, stop: int, width: int) -> tuple[list[int], list[bool]]:
        """Heights of blocks ``start..stop`` (a bulk of new ones) and whether each is exact:
        known ones (``block_height``) exactly, the others estimated."""
        heights: list[int] = []
        exact: list[bool] = []
        for i in range(start, stop):
            h = self.block_height(i)
            exact.append(h is not None)
            heights.append(self.estimate_height(i, width) if h is None else h)
        return heights, exact

    def _measure(self, index: int, width: int, exact: bool) -> int:
        """Height of a block; renders it only when ``exact`` and the height is not known."""
        h = self.block_height(index)
        if h is not None:
            self._exact[index] = True
            return h
        if exact:
            self._exact[index] = True
            return len(self._render_strips(index, width))
        self._exact[index] = False
        return self.estimate_height(index, width)

    def _rebuild_starts(self, lowest: int) -> None:
        starts = self._starts[:lowest]
        starts.extend(accumulate(self._heights[lowest:], initial=self._starts[lowest]))
        self._starts = starts
        set_virtual_size(self, Size(self._width, self._starts[-1]))

    def _exact_top(self, i: int) -> int:
        """The first line of block ``i``, once it is drawn (if its height was an estimate)."""
        if not self._exact[i]:
            h = self._measure(i, self._width, exact=True)
            if h != self._heights[i]:
                self._heights[i] = h
                self._rebuild_starts(i)
        return self._starts[i]

    def _make_visible_exact(self) -> None:
        """Render the blocks on screen so their heights are exact (estimates elsewhere)."""
        if not self._heights:
            return
        top = self.scroll_offset.y
        bottom = top + self.size.height
        i = max(0, self.block_at_line(min(top, self.total_lines - 1)))
        lowest = -1
        shift = 0  # growth of blocks that start above the top line: keep the view still
        n = len(self._heights)
        while i < n and self._starts[i] < bottom:
            if not self._exact[i]:
                h = self._measure(i, self._width, exact=True)
                if h != self._heights[i]:
                    if self._starts[i] < top:
                        shift += h - self._heights[i]
                    self._heights[i] = h
                    if lowest < 0:
                        lowest = i
            i += 1
        if lowest >= 0:
            at_end = self.is_vertical_scroll_end  # at the bottom (End, or following): stay there
            self._rebuild_starts(lowest)
            if self.app.animator.is_being_animated(self, "scroll_y"):
                return  # the user is scrolling (Home, PgUp, …): do not undo it
            if at_end:
                self.scroll_end(animate=False, immediate=True, x_axis=False, force=True)
            elif shift:
                self.scroll_to(y=top + shift, animate=False, immediate=True, force=True)

    def render_lines(self, crop):
        if self._content_width() != self._width:  # e.g. the scrollbar appeared
            self.sync(reset=True)
        self._make_visible_exact()
        return super().render_lines(crop)

    # -- measuring -----------------------------------------------------------------
    @property
    def total_lines(self) -> int:
        return self._starts[-1]

    def _render_strips(self, index: int, width: int) -> list[Strip]:
        version = self._versions[index] if index < len(self._versions) else self.block_version(index)
        key = (index, version, width)
        cached = self._cache.get(key)
        if cached is not None:
            return cached
        t0 = perf_counter()
        rendered = self.render_block(index, width)
        strips = rendered if isinstance(rendered, list) else self.strips_of(rendered, width)
        self._cache[key] = strips
        self.drawn(index, perf_counter() - t0)
        return strips

    def drawn(self, index: int, seconds: float) -> None:
        """Block ``index`` was just drawn, in ``seconds`` (a hook)."""

    def strips_of(self, renderable: RenderableType, width: int) -> list[Strip]:
        """A renderable drawn at ``width`` in this view's style."""
        console = self.app.console
        options = console.options.update_width(width).update(highlight=False)
        lines = console.render_lines(renderable, options, style=self.rich_style, pad=True)
        return [Strip(line, width) for line in lines]

    def _content_width(self) -> int:
        return max(1, self.scrollable_content_region.width)

    def remeasure(self, indices: set[int]) -> None:
        """Blocks whose height changed although their content did not (thinking shown or
        hidden): estimate them again, draw only those that come on screen, and keep the
        block at the top of the view where it is."""
        exact = self._exact
        for i in indices:
            if i < len(exact):
                exact[i] = False
        self.sync(indices, keep_place=True)

    def sync(self, changed: set[int] | None = None, reset: bool = False, keep_place: bool = False) -> None:
        """Bring measurements up to date: new blocks, ``changed`` blocks, or all (``reset``).
        After a reset, or with ``keep_place``, the block at the top of the view stays there."""
        width = self._content_width()
        if width != self._width:
            reset = True
            self._width = width
        count = self.block_count()
        was_at_end = self.follow and (
            self._pinned or self.is_vertical_scroll_end or self.total_lines <= self.size.height
        )
        anchor = anchor_offset = -1  # the block at the top of the view, kept where it is
        if reset or count < len(self._heights) or keep_place:
            top = self.scroll_offset.y
            if self.app.animator.is_being_animated(self, "scroll_y"):
                top = round(self.scroll_target_y)  # where the user is going (Home, PgUp, …)
            anchor = self.block_at_line(top)
            if anchor >= 0:
                anchor_offset = top - self._starts[anchor]
        if reset or count < len(self._heights):
            reset = True
            self._heights.clear()
            self._versions.clear()
            self._exact.clear()
            self._starts = [0]
            first_dirty = 0
        else:
            first_dirty = len(self._heights)
        # Few new blocks (live streaming): measure them exactly; a bulk load estimates.
        exact_new = count - len(self._heights) <= self.EXACT_NEW
        # Re-measure changed blocks whose version moved.
        lowest = first_dirty
        for i in sorted(changed or ()):
            if i >= len(self._heights):
                break
            v = self.block_version(i)
            if v != self._versions[i]:
                self._versions[i] = v
                h = self._measure(i, width, exact=self._exact[i] or i >= count - 32)
                if h != self._heights[i]:
                    self._heights[i] = h
                    lowest = min(lowest, i)
                else:
                    self.refresh_block(i)
        first_new = len(self._heights)
        if count > first_new:
            self._versions.extend(self.block_versions(first_new, count))
            if exact_new:
                for i in range(first_new, count):
                    self._exact.append(True)
                    self._heights.append(self._measure(i, width, exact=True))
            else:
                heights, exact = self.estimate_heights(first_new, count, width)
                self._heights.extend(heights)
                self._exact.extend(exact)
        if reset or lowest < count or len(self._starts) != count + 1 or self._kept_first:
            self._kept_first = False
            self._rebuild_starts(lowest)
            self.refresh()
        if was_at_end:
            self.scroll_end(animate=False, immediate=True, x_axis=False, force=True)
        elif 0 <= anchor < count:
            # (an estimate may be shorter than the place in it: drawn)
            y = self._exact_top(anchor) + min(anchor_offset, max(0, self._heights[anchor] - 1))
            self.scroll_to(y=y, animate=False, immediate=True, force=True)

    def keep_first(self, n: int) -> None:
        """Forget the measurements and drawings of blocks ``n`` and after (they are other
        blocks now); :meth:`sync` measures them again."""
        if n >= len(self._heights):
            return
        del self._heights[n:], self._versions[n:], self._exact[n:], self._starts[n + 1:]
        for key in [k for k in self._cache.keys() if k[0] >= n]:
            self._cache.discard(key)
        # Measured and drawn again at the next sync (its callers' next step) even if no block
        # comes after (a replay stepped back to before the first block still showed the
        # prompt); not resized here: the view would be pulled back inside the smaller size,
        # and lose its place.
        self._kept_first = True

    def stale_blocks(self) -> set[int]:
        """Blocks measured at a version they no longer have (one pass over all of them)."""
        versions = self._versions
        return {i for i, v in enumerate(self.block_versions(0, len(versions))) if v != versions[i]}

    def refresh_block(self, index: int) -> None:
        if index + 1 >= len(self._starts):
            return
        start = self._starts[index]
        top = start - self.scroll_offset.y
        height = self._heights[index]
        if top + height < 0 or top > self.size.height:
            return
        self.refresh_lines(start, height)  # (a virtual line: Textual takes the scroll off itself)

    def block_at_line(self, line: int) -> int:
        """Index of the block covering virtual line ``line`` (-1 if none)."""
        if not self._heights or line < 0 or line >= self.total_lines:
            return -1
        return bisect_right(self._starts, line) - 1

    def place(self) -> tuple[int, int]:
        """Where the view is: the block at its top and the line of it there.  (Its line
        number moves when a block above is measured again, the place kept: see :meth:`sync`.)"""
        y = int(self.scroll_y)
        block = self.block_at_line(y)
        return (block, y - self._starts[block]) if block >= 0 else (-1, y)

    def block_top(self, index: int) -> int:
        return self._starts[index] if index < len(self._starts) else self.total_lines

    def _lead(self) -> int:
        """Lines shown above a block or line gone to: two, fewer in a view a few lines high
        (from a trial at 40×12: two lines down in a view of two is below it)."""
        return min(2, max(0, (self.size.height - 1) // 3))

    def scroll_to_block(self, index: int, top: bool = True) -> None:
        if 0 <= index < len(self._heights):
            self.scroll_to(y=self._starts[index] - (0 if top else self._lead()), animate=False, immediate=True,
                           force=True)

    def scroll_to_text(self, index: int, text: str) -> None:
        """After :meth:`scroll_to_block` (``top=False``): when block ``index``'s first line that
        shows ``text`` (any case) is below the view, to that line, two lines down (a hit at the
        end of a 100 KB message was thousands of lines below the view)."""
        if not 0 <= index < len(self._heights) or not text:
            return
        lead = self._lead()
        room = self.size.height - lead  # (the block starts that far down)
        width = self._content_width()
        if len(self._render_strips(index, width)) <= room:  # (drawn: its height may be an estimate)
            return
        k = self.line_with(index, text, width)
        if k is not None and k >= room:
            # Its height made exact first: measured on screen later, a block that starts above
            # the view and grew moves the view down by as much (from a trial: the line gone to
            # was one row above a view two rows high).
            self.scroll_to(y=self._exact_top(index) + k - lead, animate=False, immediate=True, force=True)

    def line_with(self, index: int, text: str, width: int) -> int | None:
        """The first line of block ``index`` drawn at ``width`` that shows ``text`` (any case),
        or begins it across a wrap, counted from the block's top; None if none does."""
        return line_showing([fold(strip.text) for strip in self._render_strips(index, width)], fold(text))

    def action_scroll_home(self) -> None:
        """To the top at once (an animation over a long transcript took most of a second)."""
        if not self.allow_vertical_scroll:
            return
        self.scroll_home(animate=False, immediate=True, x_axis=False, force=True)

    def action_scroll_end(self) -> None:
        """To the real end, at once: the heights of blocks far below are estimates that
        change when they are drawn, and an animation would land on the estimated end (then
        corrections were skipped while it ran).  Once at the bottom, the view stays there
        while the blocks on screen are measured (see ``_make_visible_exact``)."""
        if not self.allow_vertical_scroll:
            return
        self.scroll_end(animate=False, immediate=True, x_axis=False, force=True)

    def action_page_up(self) -> None:
        self._page(-1)

    def action_page_down(self) -> None:
        self._page(1)

    def _page(self, pages: int) -> None:
        """A page from where a scroll under way is going, not from where it has got to:
        Textual pages from the animated position, so PgUp pressed again before the last one
        had finished went part of a page (four quick presses: 51 lines of 92)."""
        if not self.allow_vertical_scroll:
            raise SkipAction()  # (as Textual's own: the key goes on to the bindings above)
        animating = self.app.animator.is_being_animated(self, "scroll_y")
        base = self.scroll_target_y if animating else self.scroll_y
        self.scroll_to(y=base + pages * self.scrollable_content_region.height)

    def watch_scroll_y(self, old_value: float, new_value: float) -> None:
        super().watch_scroll_y(old_value, new_value)
        self._pinned = new_value >= self.max_scroll_y

    # -- drawing -------------------------------------------------------------------
    def on_resize(self) -> None:
        self.resized()  # (a subclass's own on_resize would be called too, Textual calls each class's)

    def resized(self) -> None:
        self.sync()  # blocks are measured again only when the width changed
        self._laid_out_height = self.scrollable_content_region.height

    def render_line(self, y: int) -> Strip:
        width = self.size.width
        line = self.scroll_offset.y + y
        index = self.block_at_line(line)
        if index < 0:
            return Strip.blank(width, self.rich_style)
        strips = self._render_strips(index, self._width)
        offset = line - self._starts[index]
        if offset >= len(strips):
            return Strip.blank(width, self.rich_style)
        return strips[offset].extend_cell_length(width, self.rich_style).crop(0, width)

    def clear_cache(self) -> None:
        self._cache.clear()
        self.sync(reset=True)

    def on_mount(self) -> None:
        # Drawn lines are cached in the colours of the theme they were drawn in: a new theme
        # (palette: Theme) left the panes, and the full-screen detail, dark on a light screen.
        self.app.theme_changed_signal.subscribe(self, self._theme_changed)

    def _theme_changed(self, _theme) -> None:
        self.clear_cache()
        self.refresh()
