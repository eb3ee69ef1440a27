"""The tool-call timeline: one row per call, virtualised for 100k+ rows."""

from __future__ import annotations

import time
from bisect import bisect_left
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from rich.cells import cell_len, set_cell_size
from rich.style import Style
from rich.text import Text
from textual.binding import Binding
from textual.cache import LRUCache
from textual.content import Content
from textual.events import Click, MouseScrollUp
from textual.geometry import Size
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip

from viewer.core.detail import SUB_MARK, call_target, sub_mark, under_mark
from viewer.core.model import Session, ToolCall
from viewer.core.sanitize import one_line
from viewer.ui.messages import ToolMessage
from viewer.ui.render import (
    call_time,
    cut_end,
    fit_before,
    keep_end,
    own_since,
    pathlike,
    status_glyph,
)
from viewer.ui.widgets.scroll import set_virtual_size

#: The kind column: as wide as the longest known kind ("Create", "Delete", "Search"), and at
#: most as wide as this for an unknown one ("Quantum leap").
LABEL_MIN, LABEL_MAX = 6, 16
#: Cells a row's summary (its file, its command) keeps before a long kind's name is cut for it,
#: down to KIND_FLOOR cells (the agents' own kinds: "TodoWrite", a sub-agent's "↳5 Grep").
SUMMARY_MIN = 16
KIND_FLOOR = 10
#: A row's cells besides its kind, its summary and its number's digits: the status glyph and a
#: space, the space after the number, the group mark, the space after the kind, the time column.
_ROW_FIXED = 2 + 1 + 2 + 1 + 9
NUMBER_MIN = 2  # digits of the call-number column

STATUS_FILTERS = ["all", "running", "failed", "rejected", "success", "unfinished", "unknown"]
#: A status filter in words, as the header counts the calls ("17 ok · 1 failed"): the filter
#: said "only: success" beside "ok" (from a trial).
STATUS_WORDS = {"success": "ok", "unknown": "unknown outcome"}


#: ... and in the command palette: its command's words, and what its calls did.
STATUS_COMMANDS = {
    "running": ("running calls", "are still running"), "failed": ("failed calls", "failed"),
    "rejected": ("rejected calls", "were rejected"), "success": ("ok calls", "succeeded"),
    "unfinished": ("unfinished calls", "never finished"), "unknown": ("calls of unknown outcome", "ended with an outcome not known"),
}


def status_word(status: str) -> str:
    return STATUS_WORDS.get(status, status)


def kind_name(session: Session | None, kind: str) -> str:
    """What a kind filter reads as: the kinds its calls show in the list (editToolCall is shown
    as both "Edit" and "Create"), their full labels when another kind shows as the same ("Todos":
    "Updated todos" and "Read todos"), or the raw kind key when no call has it yet."""
    if session is None:
        return kind
    tools = session.tools
    names = dict.fromkeys(t.short for t in tools if t.kind_key == kind)
    if any(t.short in names for t in tools if t.kind_key != kind):  # "Todos" names three kinds
        names = dict.fromkeys(t.label for t in tools if t.kind_key == kind)
    return " / ".join(names) or kind


class Timeline(ScrollView, can_focus=True):
    """Rows of tool calls in start order, with a cursor, filters and follow mode."""

    BORDER_TITLE = "Tool calls"

    DEFAULT_CSS = """
    Timeline {
        overflow-x: hidden;
    }
    Timeline > .timeline--cursor {
        background: $accent 40%;
    }
    Timeline:focus > .timeline--cursor {
        background: $accent;
        color: $text;
    }
    """
    COMPONENT_CLASSES = {"timeline--cursor"}

    BINDINGS = [
        Binding("up,k", "cursor(-1)", "Up", show=False),
        Binding("down,j", "cursor(1)", "Down", show=False),
        Binding("pageup", "page(-1)", "Page up", show=False),
        Binding("pagedown", "page(1)", "Page down", show=False),
        Binding("home,g", "first", "First", show=False),
        Binding("end,G", "end", "Last", show=False),
        Binding("enter", "open", "Open"),  # in a narrow window the only way to a call's detail
    ]

    cursor = reactive(0, always_update=True, init=False)

    class Selected(ToolMessage):
        """The cursor moved to a tool call; ``by_data`` when new data moved it (following),
        ``by_user`` when a key or a click in the list did, or a filter the user set."""

        def __init__(self, tool_index: int, by_data: bool = False, by_user: bool = False) -> None:
            super().__init__(tool_index)
            self.by_data = by_data
            self.by_user = by_user

    class Opened(ToolMessage):
        """Enter (or a double click) on a tool call."""

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.session: Session | None = None
        self.rows: list[int] | None = None  # None: every call, in order
        self.status_filter = "all"
        self.kind_filter = ""
        self.search = ""
        self._follow = True
        self.frame = 0
        self.clock = time.monotonic  # the app's clock: how long a live call has been running
        #: A replay's "now" by the events' clock (see SessionHeader.run_now): how long a call runs.
        self.run_now: Callable[[], float | None] | None = None
        #: ... and a call's start on that clock (None: its start event's own time).
        self.start_ms: Callable[[ToolCall], float | None] | None = None
        #: When what a followed file held as it was opened had been read (None: not such a file
        #: or not yet), and the wall clock: a call under way then is timed from its own start.
        self.caught_up_at: Callable[[], float | None] = lambda: None
        self.wall: Callable[[], float] = time.time
        self.target_forms: dict[str, str] = {}  # (the format's: see detail.call_target)
        self._cache: LRUCache[tuple, Strip] = LRUCache(1024)
        self._last_selected = -2
        self._by_data = False  # the cursor is being moved by new data, not by the user
        self._by_user = False  # ... by a key or a click in the list
        self._label_w = LABEL_MIN
        self._scanned = 0
        self._titled_total = 0  # the count of calls the title shows

    # -- data -------------------------------------------------------------------------
    @property
    def row_count(self) -> int:
        if self.rows is not None:
            return len(self.rows)
        return len(self.session.tools) if self.session else 0

    def tool_at(self, row: int) -> ToolCall | None:
        s = self.session
        if s is None or not (0 <= row < self.row_count):
            return None
        return s.tools[self.rows[row] if self.rows is not None else row]

    def selected_index(self) -> int:
        t = self.tool_at(self.cursor)
        return t.index if t is not None else -1

    def shows(self, t: ToolCall) -> bool:
        """Whether the filters let ``t`` be listed."""
        if self.status_filter != "all":
            want = self.status_filter
            if want == "running":
                if t.status != "running":
                    return False
            elif t.status != want:
                return False
        if self.kind_filter and t.kind_key != self.kind_filter:
            return False
        return True

    @property
    def filtered(self) -> bool:
        return self.status_filter != "all" or bool(self.kind_filter)

    def set_session(self, session: Session | None) -> None:
        self.session = session
        self._cache.clear()
        self._label_w, self._scanned = LABEL_MIN, 0
        self.refilter(keep_selection=False)

    def refilter(self, keep_selection: bool = True, by_user: bool = False) -> None:
        """The rows again, after a filter changed (``by_user``: a key or a command did it, as a
        move in the list; see Selected)."""
        with self._moved(by_user):
            self._rows_again(keep_selection)

    def _rows_again(self, keep_selection: bool) -> None:
        selected = self.selected_index() if keep_selection else -1
        s = self.session
        if s is None or not self.filtered:
            self.rows = None
        else:
            self.rows = [t.index for t in s.tools if self.shows(t)]
        self._update_size()
        if not (selected >= 0 and self.select_tool(selected, scroll=True)):
            if self.follow:
                self.action_last()
            else:
                self.cursor = min(self.cursor, max(0, self.row_count - 1))
        self._announce_selection()  # the same cursor row can be another call now
        self.refresh()
        self._update_title()

    def _update_size(self) -> None:
        set_virtual_size(self, Size(self.scrollable_content_region.width, self.row_count))

    def _update_title(self) -> None:
        """Count and follow state on the top border; the filters on the bottom one, so that
        both stay readable in a narrow pane."""
        s = self.session
        total = self._titled_total = len(s.tools) if s else 0
        title = f"Tool calls ({self.row_count:,}/{total:,})" if self.filtered else f"Tool calls ({total:,})"
        only = []
        if self.status_filter != "all":
            only.append(status_word(self.status_filter))
        if self.kind_filter:
            only.append(one_line(kind_name(s, self.kind_filter), 60))
        # Border titles given as strings are Textual markup (escape() lets "[$error]" through):
        # stream text goes in as Content, drawn as it is.
        self.border_title = Content(title + (" · following" if self.follow else ""))
        self.border_subtitle = Content("only: " + " · ".join(only)) if only else ""

    def calls_added_or_changed(self, changed: set[int]) -> None:
        """New calls were appended and/or ``changed`` calls moved (session tool indices)."""
        s = self.session
        if s is None:
            return
        moved = False
        if self.filtered:
            # A status change can move a call in or out of the filter: rebuild the rows.
            before, selected = self.rows, self.selected_index()
            self.rows = [t.index for t in s.tools if self.shows(t)]
            moved = self.rows != before
            grew = len(self.rows) != len(before or ())
        else:
            grew = self.virtual_size.height != self.row_count
        if grew:
            self._update_size()
        if grew or (self.filtered and self._titled_total != len(s.tools)):  # "(1/18)": 18 moved
            self._update_title()
        if self.follow and (grew or moved):
            self._by_data = True
            try:
                self.action_last()
            finally:
                self._by_data = False
        else:
            if moved:
                # The cursor's row may hold another call now, or none: the selected call stays
                # selected, and one that left the filter gives its place to the call after it.
                if not (selected >= 0 and self.select_tool(selected, scroll=False)):
                    self.cursor = min(bisect_left(self.rows, selected), max(0, self.row_count - 1))
                self.scroll_to_cursor()  # (rows above it left: it moved up, maybe out of view)
                self._announce_selection()
            self.refresh()
        if self.selected_index() in changed:
            self.post_message(self.Selected(self.selected_index(), by_data=True))

    # -- cursor -------------------------------------------------------------------------
    def select_tool(self, tool_index: int, scroll: bool = True) -> bool:
        if self.rows is None:
            row = tool_index if 0 <= tool_index < self.row_count else -1
        else:
            try:
                row = self.rows.index(tool_index)
            except ValueError:
                row = -1
        if row < 0:
            return False
        self.cursor = row
        if scroll:
            self.scroll_to_cursor(center=True)
        return True

    def watch_cursor(self, old: int, new: int) -> None:
        n = self.row_count
        if n and not (0 <= new < n):
            self.cursor = max(0, min(new, n - 1))
            return
        self.refresh()
        self._announce_selection()

    def _announce_selection(self) -> None:
        """Tell the app when the selected call changed (the detail view follows it)."""
        idx = self.selected_index()
        if idx != self._last_selected:
            self._last_selected = idx
            self.post_message(self.Selected(idx, by_data=self._by_data, by_user=self._by_user))

    def scroll_to_cursor(self, center: bool = False) -> None:
        h = self.scrollable_content_region.height
        y = self.scroll_offset.y
        if center and not (y <= self.cursor < y + h):
            self.scroll_to(y=max(0, self.cursor - h // 2), animate=False, immediate=True, force=True)
        elif self.cursor < y:
            self.scroll_to(y=self.cursor, animate=False, immediate=True, force=True)
        elif self.cursor >= y + h:
            self.scroll_to(y=self.cursor - h + 1, animate=False, immediate=True, force=True)

    @property
    def follow(self) -> bool:
        """Keep the newest call selected and in view."""
        return self._follow

    @follow.setter
    def follow(self, on: bool) -> None:
        if self._follow != on:
            self._follow = on
            if self.is_mounted:
                self._update_title()

    @contextmanager
    def _moved(self, by_user: bool = True) -> Iterator[None]:
        """What moves the cursor meanwhile, the user moved (see Selected.by_user)."""
        self._by_user = by_user
        try:
            yield
        finally:
            self._by_user = False

    def action_cursor(self, step: int) -> None:
        to = max(0, min(self.cursor + step, self.row_count - 1))
        moved = to != self.cursor
        with self._moved():
            self.cursor = to
        self.scroll_to_cursor()
        if moved:  # (k with nowhere to go, before the first call came, stopped the list following)
            self.follow = self.cursor >= self.row_count - 1 and step > 0 and self.follow

    def action_page(self, step: int) -> None:
        self.action_cursor(step * max(1, self.scrollable_content_region.height - 1))

    def action_first(self) -> None:
        self.follow = False
        with self._moved():
            self.cursor = 0
        self.scroll_to(y=0, animate=False, immediate=True, force=True)

    def action_end(self) -> None:
        """The newest call, and follow the calls that come (as End does in the transcript)."""
        self.follow = True
        with self._moved():
            self.action_last()

    def action_last(self) -> None:
        if self.row_count:
            self.cursor = self.row_count - 1
            self.scroll_to(y=max(0, self.row_count - self.scrollable_content_region.height), animate=False, immediate=True, force=True)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        # (A run with no call to open: not offered in the footer; the app refreshes the
        # bindings when its first call comes.)
        return action != "open" or bool(self.session is not None and self.session.tool_count)

    def action_open(self) -> None:
        self.post_message(self.Opened(self.selected_index()))  # (-1: none; the app says why)

    def on_click(self, event: Click) -> None:
        at = event.get_content_offset(self)  # (event.y counts the border row)
        if at is None:
            return
        row = self.scroll_offset.y + at.y
        if 0 <= row < self.row_count:
            self.follow = False
            if row == self.cursor and event.chain >= 2:
                self.action_open()
            with self._moved():
                self.cursor = row

    def on_mouse_scroll_up(self, event: MouseScrollUp) -> None:
        # Reading back: the newest call must not pull the list down.  (Widget's own handler
        # scrolls: it is called as well, so not from here.)
        self.follow = False

    # -- drawing -----------------------------------------------------------------------
    def on_mount(self) -> None:
        # (See BlockView: drawn rows are cached in the theme's colours.)
        self.app.theme_changed_signal.subscribe(self, self._theme_changed)

    def _theme_changed(self, _theme) -> None:
        self._cache.clear()
        self.refresh()

    def on_resize(self) -> None:
        self._cache.clear()
        self._update_size()
        if self.follow:
            self.action_last()
        else:  # the selected call stays in view (a smaller window left it below the list)
            self.call_after_refresh(self.scroll_to_cursor)

    def render_line(self, y: int) -> Strip:
        width = self.scrollable_content_region.width
        row = self.scroll_offset.y + y
        t = self.tool_at(row)
        if t is None:
            return Strip.blank(width, self.rich_style)
        selected = row == self.cursor
        frame = (self.frame, self.running_for(t)) if t.status == "running" else 0
        side = self._side_by_side(row, t)
        key = (t.index, t.status, t.target, t.detail, t.short, t.duration_ms, t.error_text, frame, selected,
               width, self.search, self.has_focus, id(self.session), self._column_widths(), side,
               sub_mark(t, self.session))  # (its Task's number: read after it, when joined mid-way)
        strip = self._cache.get(key)
        if strip is None:
            strip = self._render_row(t, width, selected, side)
            self._cache[key] = strip
        return strip

    def _side_by_side(self, row: int, t: ToolCall) -> str:
        """The bracket that joins calls started together (ToolCall.group) on the rows shown:
        "┌ ", "├ ", "└ " down the group's rows; "  " for a call started alone, or whose peers a
        filter hides (the column is there from the first call: rows do not move when the first
        group comes)."""
        if not t.group:
            return "  "
        before, after = self.tool_at(row - 1) if row else None, self.tool_at(row + 1)
        first = before is None or before.group != t.group
        last = after is None or after.group != t.group
        return "  " if first and last else "┌ " if first else "└ " if last else "├ "

    def _column_widths(self) -> tuple[int, int]:
        """Widths of the call-number and kind columns.  They are set wide enough for the
        first 99 calls and every known kind, so that rows do not shift as a run goes on; only
        the 100th call or an unknown kind with a longer name widens them."""
        s = self.session
        if s is None:
            return NUMBER_MIN, LABEL_MIN
        tools = s.tools
        for t in tools[self._scanned:]:
            mark = sub_mark(t, s)
            if mark == SUB_MARK:  # (its Task not read yet: when it is, it is numbered after these)
                mark = under_mark(len(tools))
            self._label_w = max(self._label_w, min(cell_len(mark + t.short), LABEL_MAX))
        self._scanned = len(tools)
        return max(NUMBER_MIN, len(str(len(tools)))), self._label_w

    def running_for(self, t: ToolCall) -> int:
        """Whole seconds a call has been running, of a live source or a replay (0 when not
        known: a saved file's running calls are unfinished)."""
        if t.start_arrival is not None:
            at = self.caught_up_at()
            if at is not None and t.start_arrival <= at:  # (running in a followed file as it was opened)
                since = own_since(t.start_ts, self.wall())
                if since is not None:
                    return int(since)
            return max(0, int(self.clock() - t.start_arrival))
        start = self.start_ms(t) if self.start_ms is not None else None
        if start is None:
            start = t.start_ts
        if self.run_now is None or start is None:
            return 0
        now = self.run_now()
        return 0 if now is None else max(0, int((now - start) / 1000))

    def _render_row(self, t: ToolCall, width: int, selected: bool, side: str = "  ") -> Strip:
        glyph, gstyle = status_glyph(t.status, self.frame)
        dur = call_time(t, self.running_for)
        num_w, label_w = self._column_widths()
        # (From a trial: at 40 columns an unknown kind's long name left the file names 4 cells.)
        label_w = min(label_w, max(KIND_FLOOR, width - _ROW_FIXED - num_w - SUMMARY_MIN))
        num = f"{t.index + 1:>{num_w}} "
        kind = sub_mark(t, self.session) + one_line(t.short)
        if cell_len(kind) > label_w:  # (an unknown kind's long name; wide characters count two)
            kind = cut_end(kind, label_w)  # (then padded: after its "…")
        label = set_cell_size(kind, label_w) + " "
        # A finished call with no time to show lends its column to the summary (a running one
        # keeps it: its time appears after a second, and the row must not move then).
        right = f"  {dur:>7}" if dur or not (t.done or t.status == "unfinished") else ""
        if width - _ROW_FIXED - num_w - label_w < SUMMARY_MIN:
            # Narrower still, the times go, for every row: the file names need the room more
            # (at 36 columns totals.py and test_totals.py both read "…otals.py", from a trial).
            # The detail has the time.
            right = ""
        text = Text(no_wrap=True, overflow="ellipsis")
        if selected:
            # The status colours are read against the pane's background; on the cursor's
            # (amber in most themes) green, red and yellow are hard to tell, so the glyph keeps
            # a cell of the pane's own background.
            gstyle = Style.parse(gstyle) + Style(bgcolor=self.rich_style.bgcolor)
        text.append(glyph, style=gstyle)
        text.append(" ")
        text.append(num, style="dim")
        text.append(side, style="dim")
        text.append(label, style="bold")
        summary_width = max(0, width - 2 - len(num) - len(side) - cell_len(label) - len(right))
        target = one_line(call_target(t, self.session, self.target_forms))
        rest = [one_line(t.detail, 200)] if t.detail else []
        error = one_line(t.error_text, 200)
        if t.status in ("failed", "rejected") and error and error not in (t.target, t.detail):
            rest.append(error)
        if not target and not rest and error:
            rest.append(error)
        tail = " · ".join(rest)
        if target and tail:
            tail = f" · {tail}"
        if cell_len(target) + cell_len(tail) > summary_width and pathlike(target):
            # A path: its end (the file name) says most.  It keeps the room the rest leaves, or
            # the whole column when that is too little (the rest is in the detail pane).
            room = summary_width - cell_len(tail)
            if room < 12:
                room, tail = summary_width, ""
            if room >= 2:
                target = keep_end(target, room)
        elif tail:
            # Room for the summary's first part (a failed call's exit code); a command cut for
            # it leaves out its error too (that was cut to a bare "· …", the command cut shorter
            # for it: the detail says the error).
            keep = cell_len(f" · {rest[0]}") if target else cell_len(tail)
            whole = one_line(target, 400)
            target = fit_before(whole, keep, summary_width)
            if target != whole and len(rest) > 1:
                tail = f" · {rest[0]}"
        elif len(target) > 400:
            target = one_line(target, 400)
        summary = target + tail
        stext = Text(summary, no_wrap=True, overflow="ellipsis")
        if self.search:
            stext.highlight_words([self.search], style="reverse", case_sensitive=False)
        stext.truncate(summary_width, overflow="ellipsis", pad=True)
        if cell_len(summary) > summary_width and stext.plain.endswith("……"):
            # cut just after the summary's own "…" (a command of more lines)
            stext.right_crop(1)
            stext.pad_right(1)
        text.append_text(stext)
        text.append(right, style="dim")
        base = self.rich_style
        if selected:
            base = base + self.get_component_rich_style("timeline--cursor", partial=False)
        segments = list(text.render(self.app.console))
        strip = Strip(segments).apply_style(base)
        return strip.extend_cell_length(width, base).crop(0, width)
