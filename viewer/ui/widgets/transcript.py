"""The transcript: prompt, assistant Markdown, compact tool markers.

Blocks come straight from the session model.  Each block is rendered once
per (version, width) and cached, so while text streams only the segment
being written is re-rendered; finished segments cost nothing per frame.
A long text still being written is drawn in pieces, and only its last piece
again at each frame (see :class:`_Pieces`).
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Callable, Hashable
from time import perf_counter

from rich.cells import cell_len
from rich.console import Group, RenderableType
from rich.padding import Padding
from rich.segment import Segment
from rich.style import Style
from rich.table import Table
from rich.text import Text
from textual.binding import Binding
from textual.cache import LRUCache
from textual.events import Click, MouseScrollUp
from textual.strip import Strip
from textual.timer import Timer

from viewer.core.actions import failure_subtype
from viewer.core.detail import (
    SUB_ENTRIES,
    call_target,
    fmt_duration,
    sub_mark,
    under_mark,
)
from viewer.core.model import MALFORMED_HEAD, NOTICE_CHARS, Block, Session, ToolCall
from viewer.core.sanitize import one_line, uncoloured
from viewer.ui.messages import ToolMessage
from viewer.ui.render import (
    MATCH_BAR,
    MATCH_STYLE,
    StillWritten,
    call_time,
    drawn,
    fit_before,
    fold,
    line_showing,
    mark_matches,
    markdown,
    prose,
    prose_parts,
    prose_rest,
    safe_line,
    settle_points,
    status_glyph,
)
from viewer.ui.widgets.blockview import BlockView

#: A text still being written (an open message, or thinking on show) longer than this is
#: drawn in pieces of at least PIECE_CHARS (see _Pieces).
SETTLE_FROM = 4 * 1024
PIECE_CHARS = 1024
#: An open text that took longer than this to draw is drawn again at most every DRAW_SPACING
#: times as long (a long fenced code block still being written: it is one piece).
SLOW_DRAW = 0.02
DRAW_SPACING = 4


class _Pieces:
    """The settled pieces of a text still being written, drawn once: Markdown blocks that
    more text cannot change (see :func:`~viewer.ui.render.settle_points`), drawn apart as they
    would be together.  Rich draws 64 KB of Markdown in 150 ms, and a message was drawn whole
    at every frame while it streamed: the app fell to a few frames a second.  Once the text is
    complete it is drawn whole, once."""

    __slots__ = ("block", "width", "text", "lines", "fresh")

    def __init__(self, block: Block, width: int) -> None:
        self.block, self.width = block, width
        self.text = ""  # the text of the pieces drawn
        self.lines: list[list[Segment]] = []  # their lines, a blank one between two pieces
        self.fresh = True  # not drawn yet: its first drawing draws every piece (not a slow frame)


class _PiecedProse:
    """What ``prose(text, style)`` draws, for an open text drawn in pieces: the lines of its
    settled pieces as they were drawn, then the rest drawn now."""

    def __init__(self, pieces: dict[int, _Pieces], block: Block, text: str, style: str) -> None:
        self.pieces, self.block, self.text, self.style = pieces, block, text, style

    def _settled(self, width: int) -> _Pieces:
        b, text = self.block, self.text
        p = self.pieces.get(id(b))
        if p is None or p.block is not b or p.width != width or not text.startswith(p.text):
            for k in [k for k, q in self.pieces.items() if not q.block.open]:
                del self.pieces[k]
            p = self.pieces[id(b)] = _Pieces(b, width)
        return p

    def __rich_console__(self, console, options):
        text, style = self.text, self.style
        head_end, rest_end = prose_parts(text)
        pieces = self._settled(options.max_width)
        cut = len(pieces.text)
        points = settle_points(text[:head_end], cut)
        if points is None:  # a link definition: it may change the links of any piece
            del self.pieces[id(self.block)]  # (and it stays: drawn whole from now on)
            yield prose(text, style)
            return
        whole = head_end < len(text)  # its Markdown part is complete: the rest is plain text
        for q in [*points, *([head_end] if whole else [])]:
            if q > cut and (q - cut >= PIECE_CHARS or q == head_end):
                if pieces.lines:
                    pieces.lines.append([])
                pieces.lines.extend(console.render_lines(markdown(text[cut:q], style), options, pad=False))
                cut = q
        pieces.text = text[:cut]
        new_line = Segment.line()
        for line in pieces.lines:
            yield from line
            yield new_line
        tail = text[cut:head_end]
        if tail.strip():
            if pieces.lines:
                yield new_line
            yield markdown(tail, style)
        yield from prose_rest(text, head_end, rest_end, style)


class Transcript(BlockView):
    """Transcript of one session."""

    BORDER_TITLE = "Transcript"

    DEFAULT_CSS = """
    Transcript {
        padding: 0 1;
    }
    Transcript > .transcript--selected {
        color: $text-accent;
        text-style: bold;
    }
    """
    COMPONENT_CLASSES = {"transcript--selected"}

    BINDINGS = [
        # (From a keyboard-only trial: no key went from a call line to its call; Enter opened
        # the tool list's selection, wherever the transcript was.)
        Binding("right_square_bracket", "to_call(1)", "Next call"),
        Binding("left_square_bracket", "to_call(-1)", "Prev call", show=False),
        # Not offered in a run with no call (the footer said "] Next call" there); pressed, they say so.
        Binding("right_square_bracket,left_square_bracket", "no_call_line", show=False),
        # (No key copied the agent's words: y copied the tool list's call, wherever the focus was.)
        Binding("y", "copy_message", "Copy", show=False),
    ]

    class ToolClicked(ToolMessage):
        """A tool-call marker was clicked (or gone to with ] and [); ``opened``: clicked twice,
        which opens it, as in the tool list."""

        def __init__(self, tool_index: int, opened: bool = False) -> None:
            super().__init__(tool_index)
            self.opened = opened

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.session: Session | None = None
        self.show_thinking = False
        self.frame = 0  # spinner frame for running tool markers
        #: Whole seconds a running call has run (the tool list's clock, set by the app).
        self.running_for: Callable[[ToolCall], int] = lambda t: 0
        self.highlight_block = -1  # a search hit
        self.highlight_query = ""  # and what was searched, marked wherever a line shows it
        self.selected_tool = -1  # the call the tool list has selected: its line is marked
        self.call_keys = True  # ] and [ go to call lines (a replay's own ] and [ play to a call)
        self.listed: Callable[[ToolCall], bool] = lambda t: True  # (the tool list's filter: see app)
        self._estimates: dict[int, tuple[int, int, int]] = {}  # block -> (version, width, lines)
        self._drawn: LRUCache[tuple, tuple[Block, list[str]]] = LRUCache(4096)  # (see shows)
        self._pieces: dict[int, _Pieces] = {}  # id(block) -> its settled pieces, while it is open
        self._slow: dict[int, float] = {}  # an open block slow to draw -> when it may be drawn again
        self._held: set[int] = set()  # ... and those whose new text waits for then
        self._held_timer: Timer | None = None
        #: The run whose file looks still written: its end is not said to be a stop.
        self.still_written: StillWritten | None = None
        self.target_forms: dict[str, str] = {}  # (the format's: see detail.call_target)

    # -- following ------------------------------------------------------------------
    # Moving up stops following the newest text (so streaming never pulls the view away);
    # End (or f) starts it again.  The title says which, like the tool list's.
    @property
    def follow(self) -> bool:
        return self._follow

    @follow.setter
    def follow(self, on: bool) -> None:
        self._follow = on
        self.border_title = "Transcript · following" if on else "Transcript"

    def action_scroll_up(self) -> None:
        self.follow = False
        super().action_scroll_up()

    def action_page_up(self) -> None:
        self.follow = False
        super().action_page_up()

    def action_scroll_home(self) -> None:
        self.follow = False
        super().action_scroll_home()

    def on_mouse_scroll_up(self, event: MouseScrollUp) -> None:
        self.follow = False  # Widget's own handler, called as well, scrolls

    def action_scroll_end(self) -> None:
        self.follow = True
        super().action_scroll_end()

    # -- data -----------------------------------------------------------------------
    def set_session(self, session: Session | None) -> None:
        self.session = session
        self._cache.clear()
        self._pieces.clear()
        self._slow.clear()
        self._held.clear()
        self._estimates.clear()
        self.update_blocks(reset=True)

    def replace_session(self, session: Session | None) -> None:
        """The run on show, in another state (a replay moved): the blocks both states share
        (the same objects: a copy of the model shares its finished blocks) keep their
        measurements, and so do the markers of calls that did not change; the rest are
        measured again.  A reset took half a second on a 1M-event run."""
        old = self.session
        if old is None or session is None or old is session or old.index != session.index:
            self.set_session(session)
            return
        ob, nb = old.blocks, session.blocks
        n = min(len(ob), len(nb))
        same = 0
        while same < n and ob[same] is nb[same]:
            same += 1
        ot = old.tools
        changed = {t.block for i, t in enumerate(session.tools[: len(ot)]) if t is not ot[i] and 0 <= t.block < same}
        self.session = session
        for k in [k for k in self._estimates if k >= same]:
            del self._estimates[k]
        self._slow.clear()  # (another block may be at a held one's index)
        self._held.clear()
        self.keep_first(same)
        self.update_blocks(changed)

    def set_show_thinking(self, show: bool) -> None:
        """Only the thinking blocks change height: the rest keep their measurements."""
        self.show_thinking = show
        s = self.session
        if s is not None:
            self.remeasure({i for i, b in enumerate(s.blocks) if b.kind == "thinking"})

    def update_blocks(self, changed_blocks: set[int] | None = None, reset: bool = False,
                      recheck: bool = False, streamed: bool = False) -> None:
        """Take new blocks from the session and re-measure ``changed_blocks`` (with
        ``recheck``, every block whose version moved: the run ended, its open calls and text
        closed).  ``streamed``: their text grew (an open one slow to draw may wait)."""
        if recheck and not reset:
            changed_blocks = set(changed_blocks or ()) | self.stale_blocks()
        if changed_blocks and self._slow and streamed and not reset:
            changed_blocks = self._hold_slow(changed_blocks)
        self.sync(changed_blocks, reset=reset)

    def drawn(self, index: int, seconds: float) -> None:
        s = self.session
        b = s.blocks[index] if s is not None and index < len(s.blocks) else None
        pieces = self._pieces.get(id(b))
        if pieces is not None and pieces.block is b and pieces.fresh:
            pieces.fresh = False  # (every piece was drawn: a new width, a new theme)
            self._slow.pop(index, None)
            return
        # (Not a short text: drawn slowly only when the machine is busy.)
        if seconds > SLOW_DRAW and b is not None and b.open and b.size >= SETTLE_FROM:
            self._slow[index] = perf_counter() + DRAW_SPACING * seconds
        else:
            self._slow.pop(index, None)

    def _hold_slow(self, changed: set[int]) -> set[int]:
        """Of the ``changed`` blocks, an open text that was slow to draw waits to be drawn
        again (its new text with it) until DRAW_SPACING times as long as its drawing took has
        passed; a timer draws it then.  (A 30 KB fenced code block still being written took
        150 ms to draw, at every frame.)"""
        s = self.session
        assert s is not None
        now = perf_counter()
        n = len(s.blocks)
        slow = self._slow
        held = {i for i in changed if i in slow and i < n and s.blocks[i].open and now < slow[i]}
        if not held:
            return changed
        self._held |= held
        if self._held_timer is None:
            self._held_timer = self.set_timer(min(slow[i] for i in held) - now, self._draw_held)
        return changed - held

    def _draw_held(self) -> None:
        self._held_timer = None
        held, self._held = self._held, set()
        n = self.block_count()
        self.update_blocks({i for i in held if i < n})
        self.refresh()

    def block_count(self) -> int:
        return len(self.session.blocks) if self.session is not None else 0

    def render_line(self, y: int) -> Strip:
        # A run under way that has said nothing yet (Codex does not echo the prompt: its
        # transcript was blank until the first item, while the header said LIVE).
        if y == 0 and self.session is not None and not self.session.blocks:
            width = self.size.width
            return self.strips_of(Text("  Nothing said yet.",
                                       style="dim italic", overflow="ellipsis", no_wrap=True), width)[0]
        return super().render_line(y)

    def block_version(self, index: int) -> Hashable:
        return self.block_versions(index, index + 1)[0]

    def block_versions(self, start: int, stop: int) -> list[Hashable]:
        """What a block's drawing depends on, for many blocks in one loop (all of them after a
        replay's seek from afar or a session switch: 111k blocks on 1M events)."""
        s = self.session
        if s is None:
            return [0] * (stop - start)
        blocks, tools = s.blocks, s.tools
        n_tools = len(tools)
        hb, hq, frame, thinking = self.highlight_block, self.highlight_query, self.frame, self.show_thinking
        sel = self.selected_tool
        out: list[Hashable] = []
        append = out.append
        for i in range(start, stop):
            b = blocks[i]
            kind = b.kind
            hl = i == hb and (True, hq)
            if kind == "tool" and 0 <= b.ref < n_tools:
                t = tools[b.ref]
                append((b.version, t.status, t.heading, t.target, t.detail, t.duration_ms, t.error_text,
                        frame if t.status == "running" else 0, hl, b.ref == sel, t.parent and sub_mark(t, s)))
            elif kind == "thinking":
                append((b.version, b.open, hl, thinking))
            elif kind == "end":
                append((b.version, hl, self._still_written(s)))
            else:
                append((b.version, b.open, hl))
        return out

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in ("to_call", "no_call_line"):
            if not self.call_keys:
                return False  # (the key goes on to the app's binding)
            has_calls = self.session is not None and bool(self.session.tools)
            return has_calls if action == "to_call" else not has_calls
        return super().check_action(action, parameters)

    def action_no_call_line(self) -> None:
        self.app.notify_once(self.app.no_calls_text(), timeout=3)  # type: ignore[attr-defined]

    def _tool_block(self, index: int) -> int:
        s = self.session
        return s.tools[index].block if s is not None and 0 <= index < len(s.tools) else -1

    def show_call(self, index: int) -> None:
        """Call ``index``'s line in view, a third of the way down (what was said before it, and
        after), unless it is in view already; moved, the view stops following.  For a move in
        the tool list: a trial found a failed call there, and nothing showed what the agent
        said around it."""
        bi = self._tool_block(index)
        if bi < 0 or bi >= len(self._starts):
            return
        top = self.scroll_offset.y
        start = self._starts[bi]
        if top <= start < top + self.scrollable_content_region.height:
            return
        self.follow = False
        self.scroll_to(y=max(0, start - self.scrollable_content_region.height // 3), animate=False, immediate=True,
                       force=True)

    def mark_selected(self, index: int) -> None:
        """Mark call ``index``'s line (the call the detail shows), and no other."""
        if index == self.selected_tool:
            return
        old, self.selected_tool = self.selected_tool, index
        self.update_blocks({b for b in (self._tool_block(old), self._tool_block(index)) if b >= 0})

    def action_to_call(self, step: int) -> None:
        """``]`` and ``[``: the next (previous) call line, from the marked one when it is in
        view, else from the view's top (bottom); the tool list and the detail go to it."""
        s = self.session
        if s is None or not s.tools:
            return self.action_no_call_line()
        top, bottom = self.scroll_offset.y, self.scroll_offset.y + self.scrollable_content_region.height
        tools = s.tools
        cur = self._tool_block(self.selected_tool)
        if cur >= 0 and top <= self.block_top(cur) < bottom:
            target = self.selected_tool + step
        else:  # (calls are in block order: a bisect over their lines)
            line = top if step > 0 else bottom
            at = bisect_left(tools, line, key=lambda t: self.block_top(t.block))
            target = at if step > 0 else at - 1
        while 0 <= target < len(tools) and not self.listed(tools[target]):
            target += step  # (a call the tool list's filter hides: the list could not select it)
        if not 0 <= target < len(tools):
            self.app.notify_once(  # type: ignore[attr-defined]
                "No call after this one." if step > 0 else "No call before this one.", timeout=2)
            return
        bi = tools[target].block
        if not top <= self.block_top(bi) < bottom:
            self.follow = False
            self.scroll_to_block(bi, top=False)
        # Marked now, not when the tool list has selected it: the next key of a burst steps on
        # from here (three keys went one call on).
        self.mark_selected(target)
        self.post_message(self.ToolClicked(target))

    def resized(self) -> None:
        """A search's match in view stays in view when the window gets smaller (a trial's went
        below a lower view, which showed the run's top until n)."""
        top = int(self.scroll_y)
        line = self._match_line()
        shown = line is not None and top <= line < top + self._laid_out_height
        super().resized()
        top = int(self.scroll_y)
        line = self._match_line() if shown else None
        if line is not None and not top <= line < top + self.scrollable_content_region.height:
            self.scroll_to_block(self.highlight_block, top=False)
            self.scroll_to_text(self.highlight_block, self.highlight_query)

    def _match_line(self) -> int | None:
        """The line of the search's match in the view as it is measured now (its block's
        first line that shows it), or None."""
        hb = self.highlight_block
        if not 0 <= hb < len(self._heights) or not self.highlight_query or not self._width:
            return None
        k = self.line_with(hb, self.highlight_query, self._width)
        return None if k is None else self.block_top(hb) + k

    def message_to_copy(self) -> tuple[str, str] | None:
        """What ``y`` copies here, and what it is: the search's match when it is on screen, else
        the last message on screen (when following: the newest, the run's answer once it has
        one).  A message's text as it was written (Markdown), not as it is drawn."""
        s = self.session
        if s is None or not s.blocks or not self.total_lines:
            return None
        top = self.scroll_offset.y
        first = max(0, self.block_at_line(top))
        last = self.block_at_line(min(top + self.scrollable_content_region.height, self.total_lines) - 1)
        shown = range(first, last + 1)
        order = [self.highlight_block] if self.highlight_block in shown else []
        for i in [*order, *reversed(shown)]:
            b = s.blocks[i]
            if b.kind == "thinking" and not self.show_thinking:
                continue
            text = b.text
            if b.kind == "result" and s.result is not None and s.state == "failed":
                text = s.result.text or ""  # (what its line shows: the run's error)
            what = _COPIED.get(b.kind)
            if what and text.strip():
                return what, text.strip("\n")
        return None

    def action_copy_message(self) -> None:
        got = self.message_to_copy()
        if got is None:
            self.app.notify_once("No message on screen to copy (y copies the last one in view).",  # type: ignore[attr-defined]
                                 timeout=3)
            return
        what, text = got
        self.app.copy_out(text, what)  # type: ignore[attr-defined]

    def on_click(self, event: Click) -> None:
        at = event.get_content_offset(self)  # (event.y counts the border row)
        if at is None:
            return
        pos = self.block_at_line(self.scroll_offset.y + at.y)
        s = self.session
        if s is None or pos < 0:
            return
        b = s.blocks[pos]
        if b.kind == "tool":
            self.post_message(self.ToolClicked(b.ref, opened=event.chain >= 2))

    ONE_LINE = frozenset({"tool", "query"})

    def block_height(self, index: int) -> int | None:
        s = self.session
        if s is None or index == self.highlight_block:
            return None
        b = s.blocks[index]
        if b.kind == "query":  # its line, and one a question under it
            return 1 + b.text.count("\n")
        if b.kind in self.ONE_LINE or (b.kind == "thinking" and not self.show_thinking):
            return 1
        return None

    def estimate_height(self, index: int, width: int) -> int:
        s = self.session
        if s is None:
            return 1
        b = s.blocks[index]
        known = self._estimates.get(index)
        if known is not None and known[0] == b.version and known[1] == width:
            lines = known[2]  # toggling thinking re-estimates every block: only new text is split
        else:
            text = self.shown_text(b)  # (a huge text is drawn in part: 45,000 rows estimated for 6,000)
            w = max(1, width - 2)
            lines = sum(len(line) // w + 1 for line in text.split("\n")) if text else 1
            self._estimates[index] = (b.version, width, lines)
        if b.kind == "prompt":
            return lines + 2
        if b.kind in ("assistant", "thinking"):
            return lines + 1
        if b.kind in SUB_ENTRIES:
            return lines + 2
        return lines

    #: Blocks drawn with prose(): whether their text is given to it as a thought (see
    #: thought()), else as it is, and whether as Markdown.
    _PROSE = {"assistant": (False, True), "subagent": (False, True), "thinking": (True, True),
              "prompt": (False, False), "subprompt": (False, False), "result": (False, True)}

    def as_markdown(self, b: Block) -> bool:
        """Whether a block's text is drawn as Markdown (search then finds it as drawn too)."""
        return self._PROSE.get(b.kind, (False, False))[1]

    def shows(self, s: Session, b: Block, q: str, thinking: bool | None = None) -> bool:
        """Whether block ``b`` of run ``s``, drawn as a search's hit is (beside its bar), has
        ``q`` (folded, see :func:`fold`) in its text: on a line, where the search marks it, or
        across a line's wrap.  ``thinking``: drawn with the thinking shown or not (else as it
        is)."""
        thinking = self.show_thinking if thinking is None else thinking
        width = max(1, (self._width or self.size.width - 2) - 1)
        key = (id(b), b.version, b.open, width, thinking)
        drawn = self._drawn.get(key)
        if drawn is None or drawn[0] is not b:  # (the block kept: its id is not another's since)
            if b.kind == "thinking" and thinking != self.show_thinking:
                strips = self.strips_of(self._render(s, b, width, thinking=thinking), width)
            else:
                strips = self._strips(s, b, width)
            drawn = self._drawn[key] = (b, [fold(strip.text) for strip in strips])
        return line_showing(drawn[1], q) is not None

    def shown_text(self, b: Block) -> str:
        """The text of a block as far as it is drawn: what search looks in, and what its height
        is estimated from (a huge text is drawn in part, see render.prose)."""
        how = self._PROSE.get(b.kind)
        if how is None:
            return b.text
        a_thought, as_markdown = how
        return drawn(thought(b.text) if a_thought else b.text, as_markdown)

    # -- rendering --------------------------------------------------------------------
    def render_block(self, index: int, width: int) -> RenderableType | list[Strip]:
        s = self.session
        assert s is not None
        b = s.blocks[index]
        if index != self.highlight_block:
            return self._strips(s, b, width)
        # A search went to it: a bar down its left side in the matches' colour (a "▶ search
        # match" line above it was taken for a line of the run's own).
        inner = max(1, width - 1)
        strips = self._strips(s, b, inner)
        q = fold(self.highlight_query)
        if b.kind == "tool" and q and not any(q in fold(strip.text) for strip in strips):
            # Its match is in what the call's line cuts off (a long command's end): the line
            # whole, wrapped, so that the match shows (the line read "…", and nothing was marked).
            strips = self.strips_of(self._render(s, b, inner, whole=True), inner)
        strips = mark_matches(strips, self.highlight_query, MATCH_STYLE, across=True)
        if width > 1:
            bar = Segment("▌", MATCH_BAR)
            strips = [Strip([bar, *line], width) for line in strips]
        return strips

    def _strips(self, s: Session, b: Block, width: int) -> list[Strip]:
        """Block ``b`` drawn; a message still written ends in the cursor (at the end of its last
        line, as an editor shows it: on a line of its own it read as a line more of the text)."""
        if b.kind != "assistant" or not b.open or b.cut:
            return self.strips_of(self._render(s, b, width), width)
        strips = self.strips_of(self._prose(b, b.text), width)
        base = self.rich_style
        cursor = Segment("▍", base + Style(bold=True))

        def plain(segments) -> bool:  # (not a code block's: its background goes on to the edge)
            return all(seg.style is None or seg.style.bgcolor == base.bgcolor for seg in segments)

        last = len(strips) - 1
        while last >= 0 and not strips[last].text.strip() and plain(strips[last]):
            last -= 1
        end = cell_len(strips[last].text.rstrip()) if last >= 0 else width
        if end < width and plain(strips[last].crop(end, width)):
            strips[last] = Strip([*strips[last].crop(0, end), cursor], end + 1).extend_cell_length(width, base)
        else:
            strips.insert(last + 1, Strip([cursor], 1).extend_cell_length(width, base))
        return strips

    def clear_cache(self) -> None:
        self._pieces.clear()  # (drawn in a theme's colours, as the rest)
        super().clear_cache()

    def _prose(self, b: Block, text: str, style: str = "none") -> RenderableType:
        """``prose(text, style)`` of block ``b``: in pieces while it is open and long (see
        :class:`_Pieces`)."""
        if b.open and len(text) >= SETTLE_FROM:
            return _PiecedProse(self._pieces, b, text, style)
        return prose(text, style)

    def _still_written(self, s: Session | None) -> str:
        """Why run ``s``'s file looks still written, when it is that run ("" else)."""
        sw = self.still_written
        return f"{sw.why}: {sw.command} reads on" if sw is not None and sw.run is s else ""

    def _render(self, s: Session, b: Block, width: int = 0, whole: bool = False,
                thinking: bool | None = None) -> RenderableType:
        """Block ``b``'s renderable; ``whole``: a call's line not cut to one row (wrapped);
        ``thinking``: a thought drawn shown or not (else as the view shows it)."""
        kind = b.kind
        if kind == "assistant":
            body = self._prose(b, b.text)
            if b.cut:
                return Padding(Group(body, Text("… (cut off: the stream ended here)", style="italic yellow")),
                               (0, 0, 1, 0))
            return Padding(body, (0, 0, 1, 0))  # (an open one is drawn by _strips: the cursor at its end)
        if kind == "tool":
            t = s.tools[b.ref]
            glyph, style = status_glyph(t.status, self.frame)
            line = Text()
            if b.ref == self.selected_tool:  # (the call the tool list and the detail show)
                line.append("▶ ", style=self.get_component_rich_style("transcript--selected"))
            else:  # (only the mark: the whole line in the accent read 1.5:1 on a light theme)
                line.append("  ")
            line.append(sub_mark(t, s), style="dim")
            line.append(glyph, style=style)
            # A call that has not run (yet, or ever) is named by its kind ("Shell"): its label
            # says what it did, in the past tense ("Ran terminal command").
            line.append(f" {one_line(t.heading, 100)}", style="bold")
            if t.status in ("rejected", "unfinished"):  # (it never ran, or never ended)
                line.append(f" ({t.status})", style=style)
            rest = Text()
            if t.detail:
                rest.append(f" · {one_line(t.detail, 200)}", style="dim")
            dur = call_time(t, self.running_for)  # (as the tool list says it)
            if dur:
                rest.append(f" · {dur}", style="dim")
            keep = rest.cell_len  # (the exit code and time; an error after them may be cut)
            error = t.status in ("failed", "rejected") and bool(t.error_text)
            if t.target:
                line.append(" ")
                target = one_line(call_target(t, s, self.target_forms), 300)
                shown = target if whole else fit_before(target, keep, width - line.cell_len)
                line.append(shown, style="cyan")
                # A command cut for its exit code leaves its error to the detail, as in the list
                # (it was cut to a bare "· …", the command cut shorter for it).
                error = error and shown == target
            if error:
                rest.append(" · ", style="dim")
                rest.append_text(safe_line(t.error_text, 200, style="red"))
            line.append_text(rest)
            line.no_wrap = not whole
            line.overflow = "fold" if whole else "ellipsis"
            return line
        if kind in SUB_ENTRIES:  # a sub-agent's words, or the agent's prompt to it
            head = Text(under_mark(b.ref) + SUB_ENTRIES[kind], style="bold")
            task = s.called(b)
            if task is not None and task.target:  # (its Task's description)
                head.append(" · ", style="dim")
                head.append_text(safe_line(task.target, 200, style="cyan"))
            body = self._prose(b, b.text) if kind == "subagent" else prose(b.text, as_markdown=False)
            return Padding(Group(head, body), (0, 0, 1, 2))
        if kind == "prompt":
            head = Text("› You", style="bold blue")
            return Padding(Group(head, prose(b.text, as_markdown=False)), (0, 0, 1, 0))
        if kind == "thinking":
            mark = under_mark(b.ref) if b.ref >= 0 else ""  # (a sub-agent's thought, under its call)
            if not (self.show_thinking if thinking is None else thinking):
                words = len(b.text.split())
                if b.open:
                    label = f"  {mark}✻ Thinking…"
                elif words:
                    cut = ", cut off" if b.cut else ""
                    label = f"  {mark}✻ Thought ({words:,} word{'' if words == 1 else 's'}{cut}, t to show)"
                else:
                    label = f"  {mark}✻ Thought (no text)"
                return Text(label, style="italic dim", no_wrap=True, overflow="ellipsis")
            body = thought(b.text)  # the model writes its thinking in Markdown too
            text = self._prose(b, body, "italic dim") if body else Text("(no thinking text)", style="italic dim")
            parts = [Text(f"{mark}✻ Thinking", style="italic dim"), text]
            if b.cut:
                parts.append(Text("… (cut off: the stream ended here)", style="italic yellow"))
            return Padding(Group(*parts), (0, 0, 1, 2))
        if kind == "query":
            head, *asked = b.text.split("\n")
            line = _one_line(Text.assemble(("  ? ", "bold yellow"), safe_line(head, 400)))
            if not asked:
                return line
            return Group(line, *(_one_line(Text.assemble(("      · ", "dim"), safe_line(q, 400))) for q in asked))
        if kind == "alert":  # an error the agent reported, the run going on
            return Padding(Text.assemble(("⚠ ", "bold yellow"), Text(one_line(b.text, NOTICE_CHARS), style="yellow")),
                           (0, 0, 0, 2))
        if kind in ("notice", "unknown"):
            # Wrapped, not cut to a line: another agent's whole stream may be such events (a
            # Gemini run's text is in them), and this is the only place they are read.  Their
            # text is bounded already (a few fields, each cut at 300 characters).
            if kind == "unknown":
                head, style = ("◆ unknown event ", "bold yellow"), ""
            else:  # a retry or reconnection, or a system event of no other use (a hook started)
                head, style = ("↻ " if b.text.startswith(_RETRIES) else "· ", "dim"), "dim"
            return Padding(Text.assemble(head, Text(one_line(b.text, NOTICE_CHARS), style=style)), (0, 0, 0, 2))
        if kind == "malformed":
            return self._malformed(b)
        if kind == "result":
            return self._result_line(s, b.text)
        if kind == "end":
            if b.text:  # why, when the stream says (e.g. a followed file started over)
                return Text.assemble("◌ ", one_line(b.text, 200), ": this run ended without a result.",
                                     style="bold yellow")
            why = self._still_written(s)
            if why:
                return Text(f"◌ The file ends here for now, without a result: it may still be written "
                            f"({one_line(why, 300)}).", style="bold yellow")
            return Text("◌ The stream ended without a result (the agent may have been stopped).",
                        style="bold yellow")
        return prose(b.text, as_markdown=False)  # pragma: no cover - all kinds handled

    @staticmethod
    def _malformed(b: Block) -> RenderableType:
        """Lines that are not events: one ("⚠ line 57 is not an event (h): Error: ..."), or a
        group: its count, its first lines, how many are left out, its last lines."""
        entries = [e.partition(":") for e in b.text.split("\n") if e]
        if b.ref <= 1 and entries:
            line, _, text = entries[0]
            return Padding(Text.assemble((f"⚠ line {int(line):,} is not an event (h): ", "yellow"),
                                         Text(one_line(uncoloured(text), NOTICE_CHARS), style="yellow")), (0, 0, 0, 2))
        rows: list[RenderableType] = [Text(f"⚠ {b.ref:,} lines are not events (h):", style="yellow")]
        hidden = b.ref - len(entries)
        for i, (line, _, text) in enumerate(entries):
            if hidden > 0 and i == MALFORMED_HEAD:
                rows.append(Text(f"  … {hidden:,} more", style="dim yellow"))
            # (a grid: a long line wraps under its text, not under its "line 4:")
            row = Table.grid()
            row.add_column(no_wrap=True)
            row.add_column()
            row.add_row(Text(f"  line {int(line):,}: ", style="dim yellow"),
                        Text(one_line(uncoloured(text), NOTICE_CHARS), style="yellow"))
            rows.append(row)
        return Padding(Group(*rows), (0, 0, 0, 2))

    @staticmethod
    def _result_line(s: Session, text: str = "") -> RenderableType:
        r = s.result
        if r is None:
            return Text("")
        if s.state == "failed":
            why = failure_subtype(r.subtype) or "error"
            head = Text(f"✗ Run failed ({one_line(why, 80)})", style="bold red")
            if r.text and not s.alerted(r.text):
                return Group(head, prose(r.text, style="red", as_markdown=False))
            return head
        took = fmt_duration(s.took_ms)
        parts = ["✓ Run succeeded", took] if took else ["✓ Run succeeded"]
        line = Text(" · ".join(parts), style="bold green")
        if text:  # the result's text says something the transcript does not: show it
            return Group(line, Text("Its result also says (not in the transcript):", style="dim"),
                         prose(text))
        return line


#: A line that is all bold right under a line of text: a heading of Cursor's thinking.
_THOUGHT_HEADING = re.compile(r"(?<=[^\n])\n(\*\*[^*\n]+\*\*)(?=\n|$)")


def thought(text: str) -> str:
    """A thought's text as it is drawn: Cursor's thinking puts a heading ("**Running the
    tests**") on the line under the last one's end, which Markdown joins to that paragraph
    ("…actions. Running the tests"): it is a paragraph of its own, as its first heading is."""
    return _THOUGHT_HEADING.sub(r"\n\n\1", text.strip())


#: The blocks ``y`` copies in the transcript, and what each is called when it does.
_COPIED = {"assistant": "the agent's message", "prompt": "the prompt", "thinking": "the agent's thinking",
           "result": "the run's result", "alert": "the error", "subagent": "the sub-agent's message",
           "subprompt": "the prompt to the sub-agent"}

#: Notices of these types are the agent trying again (shown with ↻).
_RETRIES = ("retry", "connection")


def _one_line(text: Text) -> Text:
    text.no_wrap = True
    text.overflow = "ellipsis"
    return text
