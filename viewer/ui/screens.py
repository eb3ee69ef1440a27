"""Modal screens: help, stream health, a full-screen tool-call detail."""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Callable, Iterable

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult, SystemCommand
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Input, Static

from viewer.core.model import StreamModel
from viewer.core.sanitize import one_line
from viewer.ui.widgets.detail import MAX_HITS, DetailView
from viewer.ui.widgets.footer import KeysFooter
from viewer.ui.widgets.search import SearchBox

HELP_ROWS = [
    ("Moving", ""),
    ("Tab / Shift+Tab", "next / previous pane"),
    ("↑ ↓  j k", "move in the tool list (the transcript shows its line); scroll the other panes"),
    (PAGE_KEYS := "PgUp PgDn  Home End  g G", "page, first, last"),
    (CALL_KEYS := "] [  (transcript)", "next / previous call line: the tool list and the detail go to it (marked ▶)"),
    ("Enter", "open the selected tool call full screen (q closes it, Esc too once a search made there is cleared; r: raw JSON, ] [: next, previous call, "
              "/: search it, n N: next, previous match, y: copy the section in view)"),
    ("Seeing", ""),
    ("t", "show / hide thinking"),
    ("r", "raw JSON of the selected call's events"),
    ("y", "copy the selected call's command, path or pattern, whole (in the transcript: the message "
          "on screen; in the detail: the section being read (its output, say) or the search match's, "
          "and y again the next section)"),
    ("f", "follow the newest output (on by default)"),
    ("< >", "previous / next session (a search on: the nearest with a match)"),
    ("h", "stream health: malformed lines, unknown events"),
    ("┌ ├ └  (tool list)", "calls the agent started together, before any ended (the detail names the others)"),
    ("↳5", "a sub-agent's call or words (tool list, transcript), under call 5, where it runs (Claude Code's Task)"),
    ("Finding", ""),
    ("/", "search the transcript and the tool calls' summaries (in the detail pane: that call, full screen)"),
    ("n N", "next / previous match; with none, the calls whose output has it, in turn, full screen "
             "(Esc clears the search)"),
    ("s", "filter tool calls by status (cycles)"),
    ("c", "filter tool calls by kind (cycles)"),
    ("x", "clear filters and search"),
    ("App", ""),
    ("Ctrl+P", "command palette"),
    ("?", "this help"),
    ("q  Ctrl+Q", "quit, with the run's exit status (as --print: 1 if it failed or had not ended); "
          "Ctrl+C: quit with exit status 130, as interrupted"),
]
#: ... in a replay (which exits 0 whatever its run did: --print says how a run went).
REPLAY_QUIT = ("q  Ctrl+Q", "quit (a replay exits 0: --print FILE exits with how the run went); "
                    "Ctrl+C: quit with exit status 130, as interrupted")


class _ScrollingModal(ModalScreen[None]):
    """A modal page of text in a VerticalScroll, with the list keys the help names: j k as
    well as the arrows, and Home End g G at once (the scroll's own Home/End animate, half a
    second over hundreds of rows)."""

    # (priority: before the scroll's own arrows and pages, which move after the next refresh)
    BINDINGS = [
        Binding("j,down", "lines(1)", "Down", show=False, priority=True),
        Binding("k,up", "lines(-1)", "Up", show=False, priority=True),
        Binding("pagedown", "pages(1)", "Page down", show=False, priority=True),
        Binding("pageup", "pages(-1)", "Page up", show=False, priority=True),
        Binding("home,g", "jump(0)", "Top", show=False, priority=True),
        Binding("end,G", "jump(1)", "Bottom", show=False, priority=True),
    ]

    # Each moves at once, from where the last one went (``immediate``): a scroll waits for the
    # next refresh, so five keys that came together all went from the same line, one line down.
    def action_lines(self, n: int) -> None:
        self.query_one(VerticalScroll).scroll_relative(y=n, animate=False, immediate=True)

    def action_pages(self, n: int) -> None:
        view = self.query_one(VerticalScroll)
        view.scroll_relative(y=n * max(1, view.scrollable_content_region.height - 1), animate=False, immediate=True)

    def action_jump(self, end: int) -> None:
        view = self.query_one(VerticalScroll)
        if end:
            view.scroll_end(animate=False, immediate=True)
        else:
            view.scroll_home(animate=False, immediate=True)


class HelpScreen(_ScrollingModal):
    BINDINGS = [Binding("escape,q,question_mark", "dismiss", "Close")]

    DEFAULT_CSS = """
    HelpScreen { align: center middle; }
    HelpScreen > VerticalScroll {
        width: 76; max-width: 100%; height: auto; max-height: 100%;  /* (90%: the pane under it showed its border below, as a second one, in a short window) */
        border: round $accent; background: $surface; padding: 0 1;
    }
    """

    def __init__(self, extra_rows: list[tuple[str, str]] | None = None,
                 page_keys: str = PAGE_KEYS, call_keys: bool = True,
                 instead: dict[str, str] | None = None) -> None:
        """``extra_rows`` come first; ``page_keys`` are the keys that page the lists (a
        replay takes Home and End for itself); ``call_keys``: ] and [ go from call line to call
        line in the transcript (a replay takes them: its extra rows say what they do);
        ``instead``: what some keys do instead (a replay's q)."""
        super().__init__()
        instead = instead or {}
        self.rows = (extra_rows or []) + [
            (page_keys if key == PAGE_KEYS else key, instead.get(key, what)) for key, what in HELP_ROWS
            if call_keys or key != CALL_KEYS]

    def compose(self) -> ComposeResult:
        table = Table.grid(padding=(0, 2))
        table.add_column(style="bold cyan")  # (wraps in a narrow window, as the words do)
        table.add_column()
        for key, what in self.rows:
            if not what:
                table.add_row(Text(key, style="bold underline"), "")
            else:
                table.add_row(key, what)
        with VerticalScroll() as vs:
            vs.border_title = "agent-viewer keys"
            yield Static(table)
            yield Static(Text("Esc or ? closes this help.", style="dim"))
        yield KeysFooter()  # (under it, the main screen's footer offered keys that do not work here)


class HealthScreen(_ScrollingModal):
    """Lines that could not be parsed and events the viewer does not know."""

    BINDINGS = [Binding("escape,q,h", "dismiss", "Close")]

    DEFAULT_CSS = """
    HealthScreen { align: center middle; }
    HealthScreen > VerticalScroll {
        width: 90%; height: 80%;
        border: round $warning; background: $surface; padding: 0 1;
    }
    """

    #: How often an open health screen looks whether the input has moved on (a live run, a
    #: replay playing or seeking, a file still loading): it is drawn anew if it has.
    CHECK_EVERY = 0.5

    def __init__(self, state: Callable[[], tuple[StreamModel, int, str]]) -> None:
        """``state``: the model on show (a replay's changes as it seeks), the blank lines read,
        and what to say when the file is still being read ("" when it is not)."""
        super().__init__()
        self.state = state
        # (Not ``loading``: Widget.loading, set to some words, covered the screen with Textual's
        # loading indicator.)
        self.model, self.blank_lines, self.reading = state()
        self._drawn = self._signature()

    def _signature(self) -> tuple:
        m = self.model
        return (id(m), m.events, m.malformed_lines, m.unknown_events, m.lines_in_events, len(m.restarts),
                self.blank_lines, self.reading)

    def on_mount(self) -> None:
        self.set_interval(self.CHECK_EVERY, self._check)

    def _check(self) -> None:
        """(From a replay trial: opened at the start and played on, it said "0 events" under a
        header that said 91.)"""
        self.model, self.blank_lines, self.reading = self.state()
        seen = self._signature()
        if seen == self._drawn:
            return
        self._drawn = seen
        y = self.query_one(VerticalScroll).scroll_y
        self.refresh(recompose=True)
        self.call_after_refresh(lambda: self.query_one(VerticalScroll).scroll_to(y=y, animate=False, immediate=True))

    def compose(self) -> ComposeResult:
        m = self.model
        def count(n: int, what: str) -> str:
            return f"{n:,} {what}{'' if n == 1 else 's'}"

        summary = Text()
        summary.append(count(m.events, "event"), style="bold")
        if m.events:
            summary.append(f" (on {count(m.lines_in_events, 'line')})")
        summary.append(" · ")
        summary.append(count(m.malformed_lines, "malformed line"), style="bold yellow" if m.malformed_lines else "")
        summary.append(" · ")
        summary.append(count(m.unknown_events, "unknown event"), style="bold yellow" if m.unknown_events else "")
        if self.blank_lines:
            summary.append(f" · {count(self.blank_lines, 'blank line')}")
        with VerticalScroll() as vs:
            vs.border_title = "Stream health"
            yield Static(summary)
            if self.reading:
                yield Static(Text(self.reading, style="cyan"))
            if m.restarts:
                n = len(m.restarts)
                times = "once, after line" if n == 1 else f"{n:,} times, after lines"
                after = ", ".join(f"{x:,}" for x in m.restarts[:5]) + (", …" if n > 5 else "")
                yield Static(Text(
                    f"The file started over (truncated or replaced) {times} {after}. Line numbers "
                    "count on across that, as in a --save copy: line n of the file as it is now is "
                    f"line n + {m.restarts[-1]:,} here.", style="cyan"))
            if m.event_types:
                types = Text("Event types: ", style="dim")
                said = []
                for k, v in m.event_types.most_common():
                    said.append(f"{one_line(k, 40)} {v:,}")
                    subs = m.system_subtypes  # (from a trial: "system 6", of hooks, an init, a status…)
                    if k == "system" and subs:
                        each = ", ".join(f"{one_line(x, 40)} {n:,}" for x, n in subs.most_common(12))
                        said[-1] += f" ({each}{', …' if len(subs) > 12 else ''})"
                types.append(", ".join(said))
                yield Static(types)
            own = f"{m.format.AGENT} stream-json"
            if m.other_agent or m.foreign:
                who = f"a {m.other_agent} stream" if m.other_agent else "another agent's stream"
                what = "None of its events is" if m.foreign else "Not all of it is"
                yield Static(Text(
                    f"This looks like {who}. {what} {own}, the format agent-viewer reads it in: "
                    "what it cannot read is listed below as unknown.", style="bold yellow"))
            if m.malformed:
                t = Table(title="Malformed lines", expand=True, title_justify="left")
                t.add_column("line", justify="right", no_wrap=True)
                # (a reason can be long, "invalid JSON: unexpected character, expected a JSON
                # value", and left the excerpt 33 columns: it gives way first, but not below
                # REASON_COLUMNS, nor while a wide window has room: it is the longest reason's width)
                wide = max(REASON_COLUMNS, self.app.size.width * 45 // 100)
                t.add_column("reason", no_wrap=True, max_width=wide, overflow="ellipsis")
                # One row a line, clipped (wrapped, the excerpt broke in pieces: and the view's
                # height changed as rows were measured, so End stopped short).
                t.add_column("content", ratio=1, no_wrap=True, overflow="ellipsis")
                for rec in m.malformed[:2000]:
                    t.add_row(f"{rec.line:,}", rec.reason, Text(one_line(rec.preview, 200)))
                if m.malformed_lines > 2000:
                    t.add_row("…", f"{m.malformed_lines - 2000:,} more", "")
                yield Static(t)
            unknown = [(s.index, n) for s in m.sessions for n in s.notices if not n.known]
            if unknown:
                t = Table(title="Unknown events (shown in the transcript too)", expand=True, title_justify="left")
                t.add_column("line", justify="right", no_wrap=True)
                t.add_column("type", no_wrap=True)
                t.add_column("fields", ratio=1, no_wrap=True, overflow="ellipsis")
                for _, n in unknown[:2000]:
                    name = n.event_type + (f"/{n.subtype}" if n.subtype else "")
                    t.add_row(f"{n.line:,}", Text(one_line(name or "(no type)", 60)), Text(one_line(n.text, 200)))
                if len(unknown) > 2000:  # (as the malformed lines say it: the list ended without a word)
                    t.add_row("…", f"{len(unknown) - 2000:,} more", "")
                yield Static(t)
            if not m.malformed_lines and not unknown:
                so_far = " so far" if self.reading else ""
                yield Static(Text(f"Every line parsed into a known event{so_far}.", style="green"))
            yield Static(Text("Esc closes this view.", style="dim"))
        yield KeysFooter()


#: The health screen's reason column is at most this wide (the excerpt matters more).
REASON_COLUMNS = 24

#: How long the full-screen detail's "first/last call" notice shows.
NOTICE_S = 2.0


class DetailScreen(ModalScreen[int]):
    """The selected tool call, full screen (Enter in the tool-call list).  Closed, it gives the
    index of the call it showed last (] and [ step through the calls)."""

    # (In the footer's order: a narrow one leaves out the last; at 60 columns / and ? went.)
    BINDINGS = [
        Binding("escape", "escape", "Close"),
        Binding("q", "dismiss", "Close", show=False),
        Binding("slash", "search", "Search"),
        Binding("question_mark", "app.help", "Help"),
        Binding("right_square_bracket", "step(1)", "Next call"),
        Binding("left_square_bracket", "step(-1)", "Previous call"),
        Binding("r", "toggle_raw", "Raw JSON"),
        Binding("y", "copy", "Copy"),
        Binding("n", "search_next(1)", "Next match", show=False),
        Binding("N", "search_next(-1)", "Previous match", show=False),
    ]

    DEFAULT_CSS = """
    DetailScreen > DetailView {
        width: 100%; height: 1fr; border: round $accent; background: $surface;
        border-title-color: $text;  /* (its default, the border's orange, read 1.4:1 on a light theme) */
        border-subtitle-color: $text;  /* (the search's place: the same) */
    }
    DetailScreen > SearchBox {
        display: none; dock: bottom; margin-bottom: 1;
    }
    /* Notices stand above the view's bottom border, where the search's place and match count
       are (a notice covered them). */
    DetailScreen ToastRack { margin-bottom: 2; }
    """

    def __init__(self, session, tool, loader, sections_fn, raw: bool = False,
                 shown: Callable[[], list[int] | None] | None = None, search: bool = False,
                 query: str = "", next_found: Callable[[int, int], int | None] | None = None,
                 named: Callable[[], list[int]] | None = None) -> None:
        """``shown``: the calls the list shows (a filter's), in order; None: all of them.
        ``search``: open with the search box (/ in the detail pane); ``query``: open at the
        first match of this search (n in the panes after one that found it in calls' detail);
        ``next_found(index, step)``: then, the call n (N) goes on to past this call's last
        (first) match, of the others found (None: none, it starts over in this one); ``named``:
        those calls, in order (the border says which of them this is)."""
        super().__init__()
        self._session, self._index, self._loader, self._sections = session, tool.index, loader, sections_fn
        self._raw = raw  # as the pane shows it (r toggles here too)
        self._shown = shown or (lambda: None)
        self._search_at_once = search
        self._query = query
        self._next_found = next_found
        self._named = named or list

    def compose(self) -> ComposeResult:
        yield DetailView(id="zoom-detail")
        yield SearchBox(placeholder="search this call, Enter to find, Esc to close", id="zoom-search",
                        close="screen.close_search")
        yield KeysFooter()

    def on_mount(self) -> None:
        view = self.query_one(DetailView)
        view.raw = self._raw
        view.prefold = True
        self._show()
        if self._query:
            view.find(self._query)
            self._next_match(view, 1)
            self._show()
        if self._search_at_once:
            self.action_search()  # (view.focus() would come after, and take the focus from the box)
        else:
            view.focus()
        # The call may still be running: its completion is drawn when it arrives (show() does
        # nothing while the call is unchanged).
        self.set_interval(0.25, self._show)

    def _show(self) -> None:
        """The call as the session holds it now, by its index (a replay's model copies a call it
        shares with a checkpoint before changing it: an object kept would be an old state)."""
        s = self._session
        view = self.query_one(DetailView)
        view.running_for = self.app.detail.running_for  # type: ignore[attr-defined]  # (the pane's: a running call's time)
        view.target_forms = self.app.detail.target_forms  # type: ignore[attr-defined]
        view.show(s, s.tools[self._index], self._loader, self._sections)
        if view.highlight_query and view.hits_stale and view.same_call_as_hits:
            view.find(view.highlight_query)  # (drawn again: its completion came; the place is kept)
        rows = self._shown()
        where = f"call {self._index + 1:,} of {len(s.tools):,}"
        if rows is not None:
            at, shown = self._place(rows)
            if shown:
                where += (" (the only one the filter shows)" if len(rows) == 1 else
                          f" ({at + 1:,} of {len(rows):,} shown by the filter)")
        found = self._found(view)
        named = self._named() if found else []
        if len(named) > 1 and self._index in named:  # (n goes on through them: which one this is)
            where += f" ({named.index(self._index) + 1:,} of the {len(named):,} the search named)"
        keys = " · ] [ next, previous"
        room = max(0, view.size.width - 6)  # (the border's corners and padding)
        if found and len(where) + len(keys) + len(found) + 3 > room:
            keys = ""  # (narrow: the match counts, not the keys the footer shows)
        view.border_subtitle = Text(where + keys + (f" · {found}" if found else ""))
        self._title(view)

    @staticmethod
    def _found(view: DetailView) -> str:
        """What the search found, for the border ("'needle': 2 of 3, n N"; "" before one)."""
        if not view.highlight_query:
            return ""
        query = "'" + one_line(view.highlight_query, 30) + "'"
        n = len(view.hits)
        many = f"{n:,}+" if view.hits_capped else f"{n:,}"
        if view.hits_stale:
            return f"{query}: n searches this call"  # (not searched yet: "finds it here" promised a match)
        if view.hit_pos >= 0:
            turn = {1: " (from the top)", -1: " (from the end)"}.get(view.wrapped, "")
            return f"{query}: {view.hit_pos + 1:,} of {many}{turn}, n N"
        return f"{query}: no match" if not n else f"{query}: {many} match{'es' if n > 1 else ''}, n N"

    def _title(self, view: DetailView) -> None:
        """The run's state, as the header (hidden here) says it: a live run is seen to go on,
        or to end, from the full-screen detail too."""
        header = self.app.header  # type: ignore[attr-defined] - (opened by AgentViewerApp only)
        s = self._session
        label, style = header.badge(s)
        elapsed = header.elapsed(s)
        # (With no clock, the border's own space after the title ends it: with the badge's
        # last one too, "✓ SUCCEEDED  ───" had a space too many.)
        badge = f" {label} " if elapsed else f" {label}"
        # ("run": the call's own status is in its rows; "Detail ✓ SUCCEEDED" over a failed
        # call read as the call's.)
        view.border_title = Text.assemble(f"{view.pane_title} · run ", (badge, style), f" {elapsed}" if elapsed else "")

    def _place(self, rows: list[int]) -> tuple[int, bool]:
        """Where the call shown is among the filter's ``rows`` (in start order), and whether
        the filter shows it at all (else where it would be)."""
        at = bisect_left(rows, self._index)
        return at, at < len(rows) and rows[at] == self._index

    async def action_dismiss(self, result: int | None = None) -> None:
        box = self.query_one(SearchBox)
        if box.display:  # (Esc closes the search box first, focused or not)
            self.action_close_search()
            return
        await super().action_dismiss(self._index)

    async def action_escape(self) -> None:
        """Esc: as q, but a search made here is cleared first, as Esc does in the panes (it
        closed the view with its marks on).  The panes' own, carried here by n, is theirs."""
        view = self.query_one(DetailView)
        if not self.query_one(SearchBox).display and view.highlight_query and view.highlight_query != self._query:
            view.find("")
            self._show()
            return
        await self.action_dismiss()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "search":  # (not offered while typing in the box: a / there is text)
            return self.focused is not self.query_one(SearchBox)
        return True

    @property
    def raw(self) -> bool:
        """Whether it shows the raw JSON (r toggles it)."""
        return self._raw

    def action_copy(self) -> None:
        self.app.copy_section(self.query_one(DetailView))  # type: ignore[attr-defined]

    def action_toggle_raw(self) -> None:
        view = self.query_one(DetailView)
        view.raw = self._raw = not view.raw
        self._show()

    def system_commands(self) -> Iterable[SystemCommand]:
        """The command palette's commands here: this view's keys."""
        yield SystemCommand("Search this call", "Find a word in its arguments and output (/)", self.action_search)
        yield SystemCommand("Copy what is in view", "The section being read (its output, a file's contents, the "
                            "search match's), or at the top the call's command, whole, to the clipboard (y)",
                            self.action_copy)
        yield SystemCommand("Next match", "Of the search in this call (n)", lambda: self.action_search_next(1))
        yield SystemCommand("Previous match", "Of the search in this call (N)", lambda: self.action_search_next(-1))
        yield SystemCommand("Next call", "The next tool call, full screen (])", lambda: self.action_step(1))
        yield SystemCommand("Previous call", "The previous tool call, full screen ([)", lambda: self.action_step(-1))
        yield SystemCommand("Toggle raw JSON", "The call's events as they were read (r)", self.action_toggle_raw)
        yield SystemCommand("Close", "Back to the panes (q; Esc clears a search made here first)", self.action_dismiss)

    # -- search ----------------------------------------------------------------------
    def action_search(self) -> None:
        box = self.query_one(SearchBox)
        box.display = True
        self.set_focus(box)  # at once, not after the keys already queued (see the app's search)

    def action_close_search(self) -> None:
        box = self.query_one(SearchBox)
        box.display = False
        self.query_one(DetailView).focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.action_close_search()
        query = event.value.strip()
        view = self.query_one(DetailView)
        view.find(query)
        if query:
            self._next_match(view, 1)
        if view.hits_capped:
            self.app.notify_once(f"Only the first {MAX_HITS:,} matches are listed: n and N go through "  # type: ignore[attr-defined]
                                 "those (a longer search finds fewer).", timeout=4)
        self._show()

    def action_search_next(self, step: int) -> None:
        view = self.query_one(DetailView)
        if not view.highlight_query:
            self.app.notify_once("No search yet: / searches this call.", timeout=NOTICE_S)  # type: ignore[attr-defined]
            return
        if view.hits_stale:  # another call is on show (] [), or it changed: search it
            view.find(view.highlight_query)
        if (self._next_found is not None and view.highlight_query == self._query
                and (not view.hits or view.hit_wraps(step)) and self._to_next_found(view, step)):
            return
        self._next_match(view, step)
        self._show()

    def _to_next_found(self, view: DetailView, step: int) -> bool:
        """Past this call's last match (before its first), the next (previous) call the search
        found in the panes, at its first (last) match, as the panes' n opens them in turn;
        False when it was the only one."""
        i = self._next_found(self._index, step) if self._next_found is not None else None
        if i is None or i == self._index or not 0 <= i < len(self._session.tools):
            return False
        went_round = (i < self._index) if step > 0 else (i > self._index)
        self._index = i
        self._show()
        view.find(view.highlight_query)
        self._next_match(view, step)
        view.wrapped = step if went_round else 0  # (its first match: "from the top" only back at the first call)
        self._show()
        return True

    def _next_match(self, view: DetailView, step: int) -> None:
        """(Said in the border, where the count is: a notice covered it.)"""
        if not view.hits:
            self.app.bell()
            return
        view.go_to_hit(step)

    def action_step(self, step: int) -> None:
        """The next or previous call of the run, in start order (of those the list's filter
        shows), without leaving this view."""
        rows = self._shown()
        if rows is None:
            i = self._index + step
        else:
            at, shown = self._place(rows)
            k = at + step if step < 0 or shown else at
            i = rows[k] if 0 <= k < len(rows) else -1
        if not 0 <= i < len(self._session.tools):
            self.app.bell()
            ended = self._session.ended or self._session.result is not None
            which = "first" if step < 0 else "last"
            shown = " the filter shows" if rows is not None else ""
            so_far = " so far" if step > 0 and not ended else ""
            notice = f"This is the {which} call{shown}{so_far}."
            self.app.notify_once(notice, timeout=NOTICE_S)  # type: ignore[attr-defined]
            return
        self._index = i
        self._show()
