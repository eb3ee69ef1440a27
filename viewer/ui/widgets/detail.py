"""Detail view of one tool call: arguments, result, highlighted content, raw JSON."""

from __future__ import annotations

import itertools
import re
from bisect import bisect_left, bisect_right
from collections.abc import Callable, Hashable
from typing import Any

import orjson
from rich.cells import cell_len
from rich.console import Console, ConsoleOptions, Group, RenderableType, RenderResult
from rich.table import Table
from rich.text import Text
from textual.events import MouseScrollDown, MouseScrollUp
from textual.message import Message
from textual.strip import Strip

from viewer.core.detail import Section, call_sections, call_target, fmt_duration, fmt_wait
from viewer.core.model import Session, ToolCall
from viewer.core.sanitize import SGR, composed, one_line
from viewer.ui.render import (
    COMPOSE_MAX,
    CURRENT_MATCH_STYLE,
    MATCH_STYLE,
    chunk_lines,
    chunks_resume,
    code,
    diff,
    field_rows,
    fold,
    json_text,
    lexer_for,
    mark_matches,
    safe_line,
    safe_text,
    status_glyph,
    terminal_text,
    truncate_body,
)
from viewer.ui.widgets.blockview import BlockView

#: Loads the parsed event at (offset, length) in the source, or None.
Loader = Callable[[int | None], "dict[str, Any] | None"]  # an event, by its ref (model.make_ref)

#: A body longer than this is cut into chunks as far as HEAD_CHARS when the call is shown;
#: the rest is one block, estimated, cut when it comes on screen (cutting a 10 MB body took
#: 15-30 ms of selecting its call, and most are never scrolled through).
LAZY_FROM = 256 * 1024
HEAD_CHARS = 64 * 1024

#: A body shorter than this is drawn when the call is shown (cheap, and its height is exact).
DRAW_AT_ONCE = 4096

#: A big body is folded for searches this many characters at a time (about 6 ms), every
#: FOLD_IDLE seconds, while the full-screen view is open.
FOLD_PIECE = 1 << 20
FOLD_IDLE = 0.02

_WORD_END = re.compile(r"\S*")

#: A search lists at most this many matches (n and N go through them); more are counted as
#: "10,000+".
MAX_HITS = 10_000


#: Numbers for what a DetailView shows (see DetailView.generation), unique across views.
_GENERATIONS = itertools.count(1)

class _Heading:
    """A call's label and target (sanitized).  A path too long for the width is broken after
    a "/", not mid-name as Rich would fold it ("tests/test" / "_totals.py")."""

    def __init__(self, lead: Text | Callable[[], Text], target: str, style: str = "cyan", words: bool = False) -> None:
        """``words``: the target is a path with words after it ("src/a.py (new file)"), broken
        after a "/" or a space; else one with a space (a command) is left to Rich."""
        self.lead, self.target = lead, target  # (a callable: made when drawn, a running call's spinner)
        self.style = style
        self.words = words

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        width, target = options.max_width, self.target
        line = self.lead() if callable(self.lead) else self.lead.copy()
        line.overflow = "fold"  # (a piece wider than the window; in a table's cell it was cut, "…")
        if line.cell_len + cell_len(target) <= width or "/" not in target or (" " in target and not self.words):
            line.append(target, style=self.style)
            yield line
            return
        for piece in re.findall(r"[^/ ]*/|[^/ ]+ *| +" if self.words else r"[^/]*/|[^/]+", target):
            if line.cell_len and line.cell_len + cell_len(piece) > width:
                yield line
                line = Text(overflow="fold")
            line.append(piece, style=self.style)  # (a piece wider than the window is folded)
        yield line


def events_lines(t: ToolCall, s: Session | None) -> str:
    """Where call ``t``'s events are in the input: "line 7 → line 10" (r shows them raw).
    After a followed file started over, the lines read count on across that (as in a --save
    copy): the file's own line numbers are those less the lines before."""
    base = s.line_base if s is not None else 0
    lines = f"line {t.start_line - base:,}" if t.start_line else "(no start)"
    if t.end_line:
        lines += f" → line {t.end_line - base:,}"
    else:
        lines += " → (running)" if t.status == "running" else " → (no completion)"
    if s is not None and s.before_restart:
        lines += ", of the file before it started over"
    elif base:
        lines += f" of the file now ({base:,} lines were read before it started over)"
    return lines


def _numbers(calls: list[ToolCall], most: int = 6) -> str:
    """Calls named by their numbers in the list: "call 9", "calls 9, 10 and 12", "calls 9 to
    20" (a long run of them without a gap), "calls 9, 10, … and 40 (12 calls)"."""
    nums = [t.index + 1 for t in calls]
    if len(nums) == 1:
        return f"call {nums[0]}"
    if len(nums) > most and nums[-1] - nums[0] == len(nums) - 1:
        return f"calls {nums[0]} to {nums[-1]}"
    if len(nums) > most:
        return f"calls {', '.join(map(str, nums[:most - 1]))}, … and {nums[-1]} ({len(nums)} calls)"
    return f"calls {', '.join(map(str, nums[:-1]))} and {nums[-1]}"


def _running_text(secs: int) -> str:
    return f"for {fmt_wait(secs)}" if secs else "for less than a second"


class _Drawn:
    """Text made when it is drawn (a running call's time)."""

    def __init__(self, make: Callable[[], str]) -> None:
        self.make = make

    def __rich_console__(self, console, options):
        yield Text(self.make())


class DetailView(BlockView):
    """Shows the selected tool call; ``r`` toggles the raw JSON of both events."""

    BORDER_TITLE = "Detail"
    EXACT_NEW = 0  # a call's chunks are drawn when they come on screen

    class Reading(Message):
        """The user scrolled the detail: while they read it, the newest call must not replace it."""

        def __init__(self, view: DetailView) -> None:
            super().__init__()
            self.view = view

    # Scrolling by key or wheel says so (the app then stops following the newest call).
    def _reading(self) -> None:
        self.post_message(self.Reading(self))

    def action_scroll_down(self) -> None:
        self._reading()
        super().action_scroll_down()

    def action_scroll_up(self) -> None:
        self._reading()
        super().action_scroll_up()

    def action_page_down(self) -> None:
        self._reading()
        super().action_page_down()

    def action_page_up(self) -> None:
        self._reading()
        super().action_page_up()

    # Textual runs Widget's own wheel handler as well (every class's handler is called): these
    # only add to it, they must not call it a second time.
    def on_mouse_scroll_down(self, event: MouseScrollDown) -> None:
        self._reading()

    def on_mouse_scroll_up(self, event: MouseScrollUp) -> None:
        self._reading()

    DEFAULT_CSS = """
    DetailView {
        padding: 0 1;
    }
    """

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.follow = False
        self.raw = False
        self.prefold = False  # fold big bodies for searches while idle (the full-screen view)
        self._fold_pending = False  # (a timer to fold the next piece is set)
        self.tool: ToolCall | None = None
        self.session: Session | None = None
        self.target_forms: dict[str, str] = {}  # (the format's: see detail.call_target)
        self._titles: dict[int, Section] = {}  # id() of a section's first block: the section
        self._blocks: list[RenderableType | _Chunk | _Rest] = []
        self._key: Hashable = None
        self._rests: list[int] = []  # indices of the _Rest blocks
        self._generation = 0
        #: For how long a running call has run, in seconds (the app gives the tool list's);
        #: and the beat that draws it again (see tick).
        self.running_for: Callable[[ToolCall], int] | None = None
        self._beat, self._beat_secs = 0, -1
        self._frame = 0  # the spinner's (the app's animation frame, as the tool list's)
        #: What a search looks for (marked wherever a line shows it), its matches, as
        #: (body, offset) in a section's body or (block, line) in any other block, and which
        #: one was gone to last.
        self.highlight_query = ""
        self.hits: list[tuple[object, int]] = []
        self.hits_capped = False
        self.hit_pos = -1
        self._hits_of = -1  # the drawing (generation) they were found in
        self._hits_for: tuple | None = None  # and the call: (session id, call index, raw)
        self.wrapped = 0  # the last step went round: 1 to the first match, -1 to the last
        self._current_line = -1  # the line of the match gone to last (drawn in its own style)
        self._synced_height = 0  # the view's height at the last sync (see sync)
        self._rows: dict[tuple[int, int, int], int] = {}  # rows before a match in its chunk, by width
        self._resyncing = False
        #: Each body of the call on show, folded for searches (see fold): a body, and its
        #: folded pieces so far (a big one is folded a piece at a time while the view is idle).
        self._folded: dict[int, tuple[str, list[str]]] = {}
        self._current_at: tuple[object, int, int] | None = None  # its block, the block's index, its row
        self._current_nth = 0  # which of the matches on its row

    @property
    def pane_title(self) -> str:
        """"Detail", and whether it shows the raw JSON."""
        return "Detail" + (" · raw JSON" if self.raw else "")

    def show(
        self, session: Session | None, tool: ToolCall | None, loader: Loader, sections_fn,
        empty: str = "",
    ) -> None:
        """Show ``tool``; with no tool, ``empty`` says why (else: how to select one)."""
        key = (
            id(session), tool.index if tool else -1, tool.status if tool else empty,
            tool.end_ref if tool else None, tool.start_ref if tool else None,
            tool.duplicates if tool else 0,  # (a start again may bring new arguments)
            # (a call started beside it, or under it; the call it runs under was read)
            (len(session.alongside(tool)), session.subcalls.get(tool.call_id, 0),
             tool.parent in session.tool_by_id) if tool and session else None,
            session.before_restart if session is not None else False, self.raw,
        )
        if key == self._key:
            return
        # The same call updated (a completion arrived): keep the place; another call or the
        # raw view toggled: start at the top.
        same_call = self._call == (key[0], key[1], key[-1])
        self._key = key
        self.session, self.tool = session, tool
        self._generation = next(_GENERATIONS)
        self._cache.clear()
        self._folded.clear()
        if self.prefold and not self._fold_pending:
            self._fold_pending = True
            self.set_timer(FOLD_IDLE, self._fold_a_piece)
        self._titles = {}
        self._blocks = self._build(tool, loader, sections_fn, empty)
        self._rests = [i for i, b in enumerate(self._blocks) if type(b) is _Rest]
        self.border_title = self.pane_title
        if not same_call:
            self.scroll_to(y=0, animate=False, immediate=True, force=True)
            self.hit_pos, self._current_at, self._current_line = -1, None, -1  # (n goes on from the top)
        self.sync(reset=True)

    def _build(self, t: ToolCall | None, loader: Loader, sections_fn, empty: str = "") -> list[RenderableType]:
        if t is None:
            why = empty or "No tool call selected. Move in the tool-call list (Tab, ↑/↓)."
            return [Text(why, style="dim")]
        # (its target as the list shows it: a path under the run's directory relative to it; the
        # section of its contents, a diff, names it whole)
        target = call_target(t, self.session, self.target_forms)
        blocks: list[RenderableType] = [self._facts(t, target, self.session, self.running_for, lambda: self._frame)]
        started = loader(t.start_ref)
        completed = loader(t.end_ref)
        for sec in shown_sections(t, started, completed, sections_fn, self.raw):
            if isinstance(sec, str):  # (raw: an event not read)
                blocks.append(Text(sec, style="dim"))
            else:
                blocks.extend(self._titled(sec))
        return blocks

    def _titled(self, sec: Section) -> list[RenderableType | _Chunk]:
        parts = self._section(sec)
        self._titles[id(parts[0])] = sec  # (its title block: see section_in_view)
        return parts

    def sections(self) -> list[Section]:
        """The sections shown, in order."""
        return list(self._titles.values())

    @property
    def generation(self) -> int:
        """What it shows, as a number no other state of any DetailView has: another call, the
        raw view, a completion that came, each give another."""
        return self._generation

    def section_in_view(self) -> Section | None:
        """The section being read: the current search match's, when it is in view, else the
        one at the top of the view; None above the first (the call's facts at the top: what y
        copies there is the call's command, as in the tool list)."""
        top = int(self.scroll_y)
        hit = self._current_at is not None and self.hit_pos >= 0 and (
            top <= self._current_line < top + self.scrollable_content_region.height)
        if hit:
            i = self._current_at[1]  # type: ignore[index]
        else:  # (a blank row at the top ends the section above: the one read is below it)
            below = self.block_at_line(top + 1) if not self.render_line(0).text.strip() else -1
            i = below if below >= 0 else self.place()[0]
        blocks, titles = self._blocks, self._titles
        for k in range(min(i, len(blocks) - 1), -1, -1):
            sec = titles.get(id(blocks[k]))
            if sec is not None:
                return sec
        return None

    @staticmethod
    def _section(sec: Section) -> list[RenderableType | _Chunk]:
        """A title, then the body in chunks (each drawn only when on screen), then a note."""
        body, note = _drawn_body(sec)
        title = one_line(sec.title, 500)
        # A path (a file's contents, a listed directory) wraps after a "/", whole: cut at the
        # row's end, a long one lost its file name ("/tmp/claude-1000/-home-…").  Relative too,
        # and with words after it ("… (new file)").
        path = "/" in title.split(" ", 1)[0]
        parts: list[RenderableType | _Chunk] = [
            _Heading(Text(), title, style="bold underline", words=True) if path
            else safe_line(title, 200, style="bold underline")]
        lexer = lexer_for(sec.lang, body) if sec.kind == "code" else ""
        kind, lang = sec.kind, sec.lang
        lazy = len(body) > LAZY_FROM
        spans = chunk_lines(body, limit=HEAD_CHARS if lazy else None)
        last = body.count("\n") + 1 if lazy else spans[-1][0] + spans[-1][3] - 1  # the last line number
        at_once = len(body) < DRAW_AT_ONCE
        parts.extend(_Chunk(kind, span, body, lang, lexer, last, at_once) for span in spans)
        if not at_once:
            start, line = chunks_resume(body, spans[-1])
            if lazy and line <= last:
                parts.append(_Rest(kind, body, lang, lexer, last, start, line))
        if note:
            parts.append(Text(note, style="italic yellow"))
        parts.append(Text(""))
        return parts

    @staticmethod
    def _facts(t: ToolCall, target: str, s: Session | None = None,
               running_for: Callable[[ToolCall], int] | None = None,
               frame: Callable[[], int] | None = None) -> RenderableType:
        glyph, style = status_glyph(t.status)
        heading = one_line(t.heading, 100)

        def lead() -> Text:  # (made when drawn: a running call's spinner turns, see tick)
            g = status_glyph(t.status, frame())[0] if frame is not None else glyph
            return Text.assemble((f"{g} ", style), (heading, "bold"), " ")

        head = _Heading(lead if t.status == "running" else lead(), one_line(target, 500))
        grid = Table.grid(padding=(0, 1))
        grid.add_column(style="dim", no_wrap=True)
        grid.add_column()
        # (the outcome only where it says more: not "failed (failure)", from a new-user trial)
        said = t.outcome and t.outcome not in (t.status, "success", "failure")
        status = t.status + (f" ({t.outcome})" if said else "")
        grid.add_row("status", safe_line(status, 200, style=style))
        if t.detail:
            grid.add_row("summary", safe_line(t.detail, 300))
        dur = fmt_duration(t.duration_ms)
        if dur:
            grid.add_row("duration", dur)
        elif t.status == "running" and running_for is not None:  # (drawn again each second: see tick)
            grid.add_row("running", _Drawn(lambda: _running_text(running_for(t))))
        if t.error_text:
            # (A path in it was cut in its middle, "…/scratchpad/claude-spi… but": broken
            # after a "/" as a heading's, and folded where a piece is wider than the column.)
            message = safe_text(t.error_text, style="red")
            message.overflow = "fold"
            grid.add_row("message", message if "\n" in message.plain
                         else _Heading(Text(), message.plain, style="red", words=True))
        peers = s.alongside(t) if s is not None else []
        if peers:
            grid.add_row("alongside", Text(_numbers(peers)))
        if t.parent:  # a sub-agent's call
            parent = s.parent_of(t) if s is not None else None
            under = Text(_numbers([parent]) if parent is not None else "a call not read")
            if parent is not None and parent.target:
                under.append(f" ({one_line(parent.short, 40)}: {one_line(parent.target, 100)})")
            grid.add_row("under", under)
        subcalls = s.subcalls_of(t) if s is not None else []
        if subcalls:
            grid.add_row("sub-agent", Text("ran " + _numbers(subcalls)))
        # As the stream names it, after the tool list's name when that is another: "Shell
        # (command_execution)" (a trial matched the list's Shell to nothing here).
        kind = t.kind_key if one_line(t.short) == one_line(t.kind_key) else f"{one_line(t.short)} ({t.kind_key})"
        grid.add_row("kind", safe_line(kind, 100))
        grid.add_row("call id", safe_line(t.call_id, 120))
        grid.add_row("events", events_lines(t, s))
        if t.duplicates:
            grid.add_row("duplicates", f"{t.duplicates} repeated event(s)")
        return Group(head, grid, Text(""))

    def block_count(self) -> int:
        return len(self._blocks)

    def block_version(self, index: int) -> Hashable:
        return (self._generation, self._beat) if index == 0 else self._generation

    def tick(self, frame: int) -> None:
        """Time passed: a running call's facts are drawn again, its spinner at ``frame`` and its
        time (the tool list's clock says it, as its row does), as the tool list's row is."""
        t = self.tool
        if t is None or t.status != "running" or self.running_for is None or not self._blocks:
            return
        secs = self.running_for(t)
        if secs != self._beat_secs or frame != self._frame:
            self._beat_secs, self._frame = secs, frame
            self._beat += 1
            self.sync({0})

    def render_block(self, index: int, width: int) -> RenderableType:
        block = self._blocks[index]
        return block.renderable() if isinstance(block, (_Chunk, _Rest)) else block

    def _make_visible_exact(self) -> None:
        self._cut_rests()
        super()._make_visible_exact()
        if self._current_at is not None and not self.hits_stale:
            # (blocks above it drawn since, their heights exact: its line moved with them; its
            # block found again by its place, and nothing measured here: every frame)
            block, i, rows = self._current_at
            if not (i < len(self._blocks) and self._blocks[i] is block):
                i = next((k for k, b in enumerate(self._blocks) if b is block), -1)
                self._current_at = (block, i, rows) if i >= 0 else None
            self._current_line = self._starts[i] + rows if i >= 0 and i < len(self._starts) - 1 else -1

    def _cut_rests(self) -> None:
        """Cut the rest of a long body (see LAZY_FROM) into chunks once it is on screen."""
        if not self._rests or len(self._heights) != len(self._blocks):
            return
        for i in reversed(self._rests):  # (cutting one moves only the blocks after it)
            top = self.scroll_offset.y
            if self._starts[i] < top + self.size.height and self._starts[i] + self._heights[i] > top:
                self._cut_rest(i)

    def _cut_rest(self, i: int) -> None:
        """Cut the rest at block ``i`` into chunks, and measure them (estimates)."""
        rest = self._blocks[i]
        assert type(rest) is _Rest
        at_end = self.is_vertical_scroll_end
        spans = chunk_lines(rest.body, rest.start, rest.first)
        self._blocks[i : i + 1] = [_Chunk(rest.kind, span, rest.body, rest.lang, rest.lexer, rest.last_line)
                                   for span in spans]
        grown = len(spans) - 1
        self._rests = [r if r < i else r + grown for r in self._rests if r != i]
        self.keep_first(i)
        self.sync()
        if at_end:  # End was pressed: the chunks' estimates differ from the rest's (a long
            # line past 16 KB is cut into pieces, a row each at least), and the view stays at the end
            self.scroll_end(animate=False, immediate=True, x_axis=False, force=True)

    # -- search (the full-screen detail's /) ---------------------------------------
    def _fold_entry(self, body: str) -> list[str]:
        """The folded pieces of ``body`` so far (see ``_folded``)."""
        entry = self._folded.get(id(body))
        if entry is None or entry[0] is not body:
            entry = self._folded[id(body)] = (body, [])
        return entry[1]

    def _folded_body(self, body: str) -> str:
        """``body`` folded (see fold), the pieces not yet folded while idle folded now."""
        pieces = self._fold_entry(body)
        done = sum(map(len, pieces))
        if done < len(body) or not pieces:
            pieces.append(fold(body[done:], len(body) < COMPOSE_MAX))
        if len(pieces) > 1:
            pieces[:] = ["".join(pieces)]
        return pieces[0]

    def _fold_a_piece(self) -> None:
        """While the full-screen view waits for a search, its big bodies are folded a piece
        at a time, between frames (10 MB of non-ASCII text took 66 ms to fold: the first
        search of such a result took 100 ms to the next frame)."""
        self._fold_pending = False
        for block in self._blocks:
            if isinstance(block, (_Chunk, _Rest)) and len(block.body) > FOLD_PIECE:
                pieces = self._fold_entry(block.body)
                done = sum(map(len, pieces))
                if done < len(block.body):
                    pieces.append(fold(block.body[done : done + FOLD_PIECE], False))  # (bigger than COMPOSE_MAX)
                    self._fold_pending = True
                    self.set_timer(FOLD_IDLE, self._fold_a_piece)
                    return

    def find(self, query: str) -> int:
        """List the matches of ``query`` (any case) in the call as it is drawn now, and mark
        them wherever a line shows them; how many there are (at most MAX_HITS).  The same
        call drawn again (its completion came, a new theme): the last match gone to stays the
        one n goes on from."""
        call = self._call
        again = query == self.highlight_query and self._hits_for == call and self.hit_pos >= 0
        pos = self.hit_pos
        self.highlight_query = query
        self.hits, self.hits_capped = self._find(fold(query)) if query else ([], False)
        self.hit_pos = min(pos, len(self.hits) - 1) if again else -1
        self._hits_of = self._generation
        self._hits_for = call
        self._rows.clear()
        self.wrapped = 0
        self.refresh()
        return len(self.hits)

    @property
    def _call(self) -> tuple | None:
        """The call on show, however drawn: (session id, call index, raw or not)."""
        return (self._key[0], self._key[1], self._key[-1]) if self._key is not None else None

    @property
    def same_call_as_hits(self) -> bool:
        """The call on show is the one the matches were found in (drawn again since, maybe)."""
        return self._key is not None and self._hits_for == self._call

    @property
    def hits_stale(self) -> bool:
        """The call on show is not the one the matches were found in (or it changed)."""
        return self._hits_of != self._generation

    def _find(self, q: str) -> tuple[list[tuple[object, int]], bool]:
        hits: list[tuple[object, int]] = []
        searched: set[int] = set()  # bodies (each is cut into many chunks)
        width = self._content_width()
        for i, block in enumerate(self._blocks):
            if isinstance(block, (_Chunk, _Rest)):
                if id(block.body) not in searched:
                    searched.add(id(block.body))
                    found, full = _body_matches(block.body, self._folded_body(block.body), block.kind, q,
                                                MAX_HITS + 1 - len(hits))
                    if full:
                        return hits + [(block.body, at) for at in found][:MAX_HITS], True
                    hits.extend((block.body, at) for at in found)
            else:  # a heading, the facts, a note: small, searched as drawn, each match on a row
                # (two on the title's row were marked, and counted as one: n never went to the second)
                for k, strip in enumerate(self._render_strips(i, width)):
                    hits.extend([(block, k)] * fold(strip.text).count(q))
            if len(hits) > MAX_HITS:
                return hits[:MAX_HITS], True
        return hits, False

    def go_to_hit(self, step: int) -> None:
        """Scroll to the next (``step`` 1) or previous (-1) match, a third of the way down the
        view.  The first step, or one after the match gone to was scrolled out of view, goes
        from the top of the view: to the first match at or below it (the last above it)."""
        hits = self.hits
        if not hits:
            return
        to = self._hit_to(step)
        self.wrapped = 0 if 0 <= to < len(hits) else step
        self.hit_pos = to % len(hits)
        self._scroll_to_current()

    def hit_wraps(self, step: int) -> bool:
        """Whether the next ``step`` goes past the last match (or before the first) and
        :meth:`go_to_hit` would start over from the other end."""
        return bool(self.hits) and not 0 <= self._hit_to(step) < len(self.hits)

    def _hit_to(self, step: int) -> int:
        """The index in :attr:`hits` a step goes to (out of their range: past an end)."""
        hits = self.hits
        if self.hit_pos >= 0 and self._current_visible():
            return self.hit_pos + step
        top = self.scroll_offset.y
        first = self.block_at_line(top)
        k = 0  # the first match in the top block or after it (both lists are in order)
        for block in self._blocks[: max(0, first)]:
            while k < len(hits) and _holds(block, hits[k]):
                k += 1
        if 0 <= first < len(self._blocks):  # and in the top block, the first at or below the top
            top_block = self._blocks[first]
            end = k
            while end < len(hits) and _holds(top_block, hits[end]):
                end += 1
            k = bisect_left(hits, top, k, end, key=self._hit_line)
        return k if step > 0 else k - 1

    def _scroll_to_current(self) -> None:
        self.follow = False
        hit = self.hits[self.hit_pos]
        for _ in range(3):  # (the blocks above it on screen drawn, their heights exact: again)
            y = self._current_line = self._hit_line(hit)
            self.scroll_to(y=max(0, y - self.scrollable_content_region.height // 3),
                           animate=False, immediate=True, force=True)
            BlockView._make_visible_exact(self)
            if self._hit_line(hit) == y:
                break
        i, rows = self._hit_place(hit)
        self._current_at = (self._blocks[i], i, rows) if i >= 0 else None
        # Which of the matches on its row it is: those before it in its block, on its row
        # (nothing measured: measuring blocks above moved it).
        k = self.hit_pos
        while k > 0 and i >= 0 and _holds(self._blocks[i], self.hits[k - 1]) and self._hit_place(self.hits[k - 1]) == (i, rows):
            k -= 1
        self._current_nth = self.hit_pos - k
        self.refresh()

    def _current_visible(self, height: int | None = None) -> bool:
        """The match gone to last is on screen (the user has not scrolled it away); ``height``:
        in a view that many rows high (the height it had, in a resize)."""
        if not 0 <= self.hit_pos < len(self.hits) or self.hits_stale:
            return False
        top = self.scroll_offset.y
        height = self.scrollable_content_region.height if height is None else height
        return top <= self._hit_line(self.hits[self.hit_pos]) < top + height

    def sync(self, changed: set[int] | None = None, reset: bool = False, keep_place: bool = False) -> None:
        """(After a resize or a new theme, a match on screen stays on screen: the blocks above
        it are measured anew, estimated until drawn.  On screen as it was: a lower view had
        it below its bottom row, and kept its old top.)"""
        keep = False
        height = self.scrollable_content_region.height
        rewrapped = reset or self._content_width() != self._width
        if not self._resyncing and self._width and (rewrapped or height != self._synced_height):
            self._resyncing = True  # (finding the match's line may cut a rest, which syncs)
            try:
                keep = self._current_visible(self._synced_height or height)
                # (only lower or taller: moved only if it is now out of view, not to a third down)
                keep = keep and (rewrapped or not self._current_visible(height))
            finally:
                self._resyncing = False
        self._synced_height = height
        super().sync(changed, reset, keep_place)
        if keep:
            self._scroll_to_current()

    def _hit_line(self, hit: tuple[object, int]) -> int:
        """The virtual line a match is on (its block drawn, its height made exact)."""
        i, rows = self._hit_place(hit)
        return self._exact_top(i) + rows if i >= 0 else 0

    def _hit_place(self, hit: tuple[object, int]) -> tuple[int, int]:
        """The block a match is in, and its row in that block (-1, 0 when gone)."""
        key, at = hit
        width = self._width
        for i, block in enumerate(self._blocks):
            if block is key:  # a block searched as drawn: ``at`` is its line
                return i, at
            if _holds(block, hit):
                if type(block) is _Rest:
                    self._cut_rest(i)
                    return self._hit_place(hit)
                rows = self._rows.get((id(block), at, width))
                if rows is None:
                    body = block.body
                    line = max(block.start, body.rfind("\n", block.start, at) + 1)  # the match's line
                    rows = len(self.strips_of(block.part(block.start, line - 1).renderable(), width)) if line > block.start else 0
                    # Its row in that line, as the line is drawn up to the end of the word it is
                    # in: a word is wrapped whole (drawn up to the match, its start fitted the
                    # row above).
                    word = _WORD_END.match(body, at + len(fold(self.highlight_query)), block.end).end()
                    rows += len(self.strips_of(block.part(line, word).renderable(), width)) - 1
                    self._rows[(id(block), at, width)] = rows
                return i, rows
        return -1, 0

    def render_line(self, y: int) -> Strip:
        strip = super().render_line(y)
        if self.highlight_query:
            current = self.scroll_offset.y + y == self._current_line and self.hit_pos >= 0 and not self.hits_stale
            return mark_matches([strip], self.highlight_query, MATCH_STYLE, self._current_nth if current else -1,
                                CURRENT_MATCH_STYLE)[0]
        return strip

    def block_versions(self, start: int, stop: int) -> list[Hashable]:
        return [self._generation] * (stop - start)

    def estimate_heights(self, start: int, stop: int, width: int) -> tuple[list[int], list[bool]]:
        """One pass over a call's blocks (a 10 MB body is thousands of chunks): chunks are
        estimated, the few other blocks drawn."""
        heights: list[int] = []
        exact: list[bool] = []
        code_w = max(1, width - 8)
        w = max(1, width)
        for i, block in enumerate(self._blocks[start:stop], start):
            if (type(block) is _Chunk and not block.at_once) or type(block) is _Rest:
                heights.append(block.lines + (block.end - block.start) // (code_w if block.kind == "code" else w))
                exact.append(False)
            else:
                heights.append(len(self._render_strips(i, width)))
                exact.append(True)
        return heights, exact

    def estimate_height(self, index: int, width: int) -> int:
        """Lines of a chunk plus a guess at wrapping (exact once the chunk is drawn)."""
        block = self._blocks[index]
        if not isinstance(block, (_Chunk, _Rest)) or getattr(block, "at_once", False):
            return len(self._render_strips(index, width))
        w = max(1, width - (8 if block.kind == "code" else 0))
        return block.lines + block.chars // w


def _drawn_body(sec: Section) -> tuple[str, str]:
    """A section's body as the view draws it and searches it, and the note after it (a huge
    one is cut: see truncate_body)."""
    # (composed as it is drawn, and searched so; but a big one: see COMPOSE_MAX)
    body = sec.body.removesuffix("\n")  # (a file's last newline ends its last line: no line after it)
    return truncate_body(composed(body) if len(body) < COMPOSE_MAX else body)


def shown_sections(t: ToolCall, started: dict[str, Any] | None, completed: dict[str, Any] | None,
                   sections_fn, raw: bool) -> list[Section | str]:
    """What the view shows of call ``t`` below its facts: its sections, or with ``raw`` its
    events as JSON (a note for one not read)."""
    if not raw:
        return list(call_sections(t, started, completed, sections_fn))
    out: list[Section | str] = []
    for title, ev in (("started event", started), ("completed event", completed)):
        if ev is None:
            out.append(f"({title}: not in the stream)")
        else:
            out.append(Section(title, orjson.dumps(ev, option=orjson.OPT_INDENT_2).decode(), "json"))
    return out


def sections_show(sections: list[Section | str], q: str) -> bool:
    """Whether the view's search (:meth:`DetailView.find`) finds ``q`` (folded) in what
    :func:`shown_sections` gave, without drawing it (the main view's search says which calls'
    detail has what it did not find in the transcript)."""
    for sec in sections:
        if isinstance(sec, str):
            if q in fold(sec):
                return True
            continue
        if q in fold(one_line(sec.title, 200)):  # (as safe_line draws it)
            return True
        body, _ = _drawn_body(sec)
        if _body_matches(body, fold(body, len(body) < COMPOSE_MAX), sec.kind, q, MAX_HITS)[0]:
            return True
    return False


def _body_matches(body: str, low: str, kind: str, q: str, most: int) -> tuple[list[int], bool]:
    """Where ``q`` is in a section's ``body`` (``low``: it folded), as the view finds it: the
    first ``most`` places, less those in a command's colour codes; and whether more may follow
    (``most`` were found before those in colour codes were taken out)."""
    found = _find_all(low, q, most)
    if kind == "terminal" and "\x1b[" in body:
        full = len(found) == most  # (the matches after these were not looked for)
        return _outside_colour_codes(body, found, len(q)), full
    return found, False


def _holds(block: object, hit: tuple[object, int]) -> bool:
    """Whether a search's match is in ``block`` (see DetailView.hits)."""
    key, at = hit
    if block is key:
        return True
    return type(block) in (_Chunk, _Rest) and block.body is key and block.start <= at < block.end  # type: ignore[attr-defined]


def _find_all(low: str, q: str, most: int) -> list[int]:
    """Where ``q`` is in ``low`` (both folded, see :func:`fold`: the offsets are the body's):
    at most ``most`` offsets."""
    out: list[int] = []
    at = low.find(q)
    while at >= 0 and len(out) < most:
        out.append(at)
        at = low.find(q, at + len(q))
    return out


def _outside_colour_codes(body: str, found: list[int], length: int) -> list[int]:
    """The matches of ``found`` (offsets in ``body``, ``length`` long) that touch no colour
    code: a command's output draws those as colours, so a match in "\x1b[32m" was counted,
    and gone to, where nothing showed it (a search for "32m" in pytest's coloured output)."""
    codes = [(m.start(), m.end()) for m in SGR.finditer(body)]
    starts = [a for a, _ in codes]
    out = []
    for at in found:
        i = bisect_right(starts, at + length - 1) - 1  # the last code starting within or before it
        if i < 0 or codes[i][1] <= at:
            out.append(at)
    return out


class _Rest:
    """The rest of a long body, from ``start`` (line ``first``), until it is cut into chunks
    (see DetailView._cut_rests)."""

    __slots__ = ("kind", "body", "lang", "lexer", "last_line", "start", "first", "end", "lines")

    def __init__(self, kind: str, body: str, lang: str, lexer: str, last_line: int, start: int, first: int) -> None:
        self.kind, self.body, self.lang, self.lexer, self.last_line = kind, body, lang, lexer, last_line
        self.start, self.first, self.end = start, first, len(body)
        self.lines = last_line - first + 1

    @property
    def chars(self) -> int:
        return self.end - self.start

    def renderable(self) -> RenderableType:
        """(Its first chunk only: it is cut before it is drawn.)"""
        return _Chunk(self.kind, chunk_lines(self.body, self.start, self.first, self.start + 1)[0], self.body,
                      self.lang, self.lexer, self.last_line).renderable()


class _Chunk:
    """A span of a section's body, sliced, escaped and highlighted only when drawn."""

    __slots__ = ("kind", "first", "body", "start", "end", "lines", "lang", "lexer", "last_line", "at_once")

    def __init__(
        self, kind: str, span: tuple[int, int, int, int], body: str, lang: str, lexer: str, last_line: int,
        at_once: bool = False,
    ) -> None:
        """``at_once``: drawn when the call is shown (a small body), not when on screen."""
        self.kind, self.body, self.lang, self.lexer, self.last_line = kind, body, lang, lexer, last_line
        self.first, self.start, self.end, self.lines = span
        self.at_once = at_once

    def part(self, start: int, end: int) -> _Chunk:
        """The chunk's text from ``start`` to ``end`` (a line start, or within one line), as a
        chunk of its own: drawn alone, its lines are as many as they are inside the chunk."""
        body = self.body
        first = self.first + body.count("\n", self.start, start)
        return _Chunk(self.kind, (first, start, end, body.count("\n", start, end) + 1), body, self.lang,
                      self.lexer, self.last_line)

    @property
    def chars(self) -> int:
        return self.end - self.start

    def renderable(self) -> RenderableType:
        text = self.body[self.start : self.end]
        if self.kind == "code":
            return code(text, self.lang, start_line=self.first, lexer=self.lexer, last_line=self.last_line)
        if self.kind == "diff":
            return diff(text)
        if self.kind == "terminal":
            return terminal_text(text)
        if self.kind == "json":
            return json_text(text)
        if self.kind == "fields":
            return field_rows(text)
        return safe_text(text)
