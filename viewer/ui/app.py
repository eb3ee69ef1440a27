"""The agent-viewer Textual app: header, transcript, tool-call timeline, detail."""

from __future__ import annotations

import asyncio
import gc
import os
import re
import shlex
import signal
import subprocess
import sys
import tempfile
import threading
import time
from bisect import bisect_left, bisect_right
from collections import Counter, deque
from collections.abc import Callable, Iterable
from typing import Any

from textual.app import App, ComposeResult, SystemCommand
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.notifications import SeverityLevel
from textual.screen import Screen
from textual.timer import Timer
from textual.widget import Widget
from textual.widgets import Footer, Input

from viewer.core.decode import Record, parse_span
from viewer.core.detail import call_target
from viewer.core.feed import Feed
from viewer.core.formats import agents_read, get_format
from viewer.core.model import Change, Session, StreamModel, ref_span
from viewer.core.record import timing_path
from viewer.core.sanitize import clean, one_line, uncoloured
from viewer.ui.launch import THEME_ENV
from viewer.ui.render import (
    LIGHT_ANSI,
    StillWritten,
    fold,
    markup_literal,
    use_code_theme,
)
from viewer.ui.screens import DetailScreen, HealthScreen, HelpScreen
from viewer.ui.widgets.detail import DetailView, events_lines, sections_show, shown_sections
from viewer.ui.widgets.footer import KeysFooter
from viewer.ui.widgets.header import SessionHeader
from viewer.ui.widgets.search import SearchBox
from viewer.ui.widgets.timeline import STATUS_COMMANDS, STATUS_FILTERS, Timeline, kind_name
from viewer.ui.widgets.transcript import Transcript

FRAME = 1 / 30  # UI batches model changes at ~30 frames per second
APPLY_BUDGET = 0.025  # seconds of model work per frame while loading big inputs
MAX_PENDING = 4096  # records taken from the feed but not yet applied
LOAD_BUDGET = 0.1  # seconds of decoding and model work per pump while a saved file loads
LOAD_REDRAW = 0.4  # and redraw at most this often meanwhile
LOAD_SWITCH_INTERVAL = 0.0005  # sys.setswitchinterval while a saved file loads
#: A load waits at most this long for the first screen to be painted (see pump).
FIRST_PAINT_WAIT = 0.5
#: A live source this many records behind (a finished run piped in: ``cat run.ndjson |
#: agent-viewer``) is read as a saved file is, a budget of LOAD_BUDGET at a time and redrawn
#: every LOAD_REDRAW, until it has caught up (frame by frame it was 5-8 times slower).  At
#: 5,000 events/s a frame brings about 170.
CATCH_UP = 500
#: While the timeline follows a live run, the detail view catches up with the newest call at
#: most this often: a fast run starts calls faster than anyone reads them, and redrawing the
#: detail for each took a tenth of the CPU at 5,000 events/s.  A call the user selects is
#: shown at once.
LIVE_DETAIL_EVERY = 0.25
#: The same while a saved file loads: the newest call changes at every redraw, and drawing its
#: detail each time was 3-4 % of the time to open 1M events. It is drawn once the file is read.
LOAD_DETAIL_EVERY = 2.0
_now = time.perf_counter  # the clock of those waits, and of QUIT_CONFIRM's (tests replace it)
#: The most characters y copies (see copy_out).
COPY_MAX = 1 << 20
#: y again in a call's detail within this many seconds, the view unmoved, copies its next
#: section (a call that fits in the view could not be scrolled to its output).
COPY_AGAIN_S = 8.0
#: Seconds a second q has to quit a piped run still going (see action_quit).
QUIT_CONFIRM = 5.0
QUIT_AGAIN = "q again to quit."  # (how that notice ends: it is taken back once the run ends)
#: Runs' search hits kept (see _hits_in) before they are all let go.
HITS_KEPT = 4096
#: A search spends at most this long drawing a run's messages to tell where a query with
#: Markdown's characters shows (see _look_in): 2,000 messages took 1.2 s for "_".
DRAW_TO_SEARCH_S = 0.25
#: A search that finds nothing in the transcript looks in the calls' detail (their arguments
#: and output, which it does not search), as the detail's own search finds it: CALLS_SLICE_S
#: at a time, CALLS_GAP_S apart (the 6,000 calls of a 70 MB run took 0.9 s), for at most
#: CALLS_TO_SEARCH_S, and names at most CALLS_FOUND_MOST of the calls whose detail has it (n
#: opens them).  A call of CALLS_BIG_BYTES or more has a slice of its own (a 20 MB output
#: took 0.2-0.4 s).  The first slice is taken at once, so that the search's notice may say
#: what it found: CALLS_FIRST_S long, and of calls under CALLS_FIRST_BYTES (the 18 calls of
#: the demo took 1 ms; with 20 ms, a search that found nothing in a 100k-event run took 107
#: ms to the next frame, 53-94 ms before).
CALLS_FIRST_S = 0.005
CALLS_FIRST_BYTES = 64 << 10
CALLS_SLICE_S = 0.02
CALLS_GAP_S = 0.02
CALLS_TO_SEARCH_S = 3.0
CALLS_FOUND_MOST = 50
CALLS_BIG_BYTES = 1 << 20
#: The end of a no-match notice said while the calls are still looked in (when the first
#: slice did not end the look): the notice goes when the look ends, and its end is said.
LOOKING = "; looking in the calls' detail…"
#: After SIGTERM, SIGINT or SIGHUP the app exits cleanly (terminal restored) within this many
#: seconds, or the process ends regardless (see ``_install_signal_handlers``).
EXIT_GRACE = 3.0
_EXIT_SIGNALS = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP)
#: The model keeps many small long-lived objects (blocks, tool calls); with the default
#: thresholds (700, 10, 10) the collector rescans them all over and over while a big file
#: loads (measured: a third of the time to open a 70 MB file).  Young collections stay as
#: frequent as before.
GC_THRESHOLDS = (700, 50, 100)
#: While a saved file loads (``feed.bulk``) the collector is off altogether: the records in
#: flight and the model's new objects are freed by reference counting, yet young collections
#: kept scanning them (measured on 1M events: 2.2 s of 14.5 s; opening took 12.8 s instead of
#: 14.6 s, for 20 MB more peak RSS).  It is switched back on once the file is read.


#: Markdown marks that are not shown (emphasis, code, headings): search finds what is on screen.
_MD_MARKS = re.compile(r"[*`~]|^#+[ \t]*", re.M)


def _as_shown(markdown_text: str) -> str:
    if "*" in markdown_text or "`" in markdown_text or "~" in markdown_text or "#" in markdown_text:
        return _MD_MARKS.sub("", markdown_text)
    return markdown_text


#: Characters Markdown may draw as something else, or not at all (marks, escapes, links,
#: entities, quotes, tables, a list's "-" and "1."): a query with one is looked for in the
#: block as drawn.
_MD_SYNTAX = re.compile(r"[*`~#\\_\[\]<>&|+-]|\d\.")


def _without_syntax(text: str) -> str:
    return _MD_SYNTAX.sub("", text) if _MD_SYNTAX.search(text) else text


def _may_show(q: str, markdown_text: str) -> bool:
    """Whether a query with Markdown's characters may be in the text as drawn (then drawn to
    tell): it is in the text as written, or its letters are, among the text's.  (Its letters
    alone, when they are few, are in most texts: "_" has none, and drew every message.)"""
    if q in markdown_text:
        return True
    core = _without_syntax(q)
    return len(core) >= 3 and core in _without_syntax(markdown_text)


#: A load of this many bytes or more is frozen when it is over (see freeze_loaded).
FREEZE_BYTES = 16 * 1024 * 1024


def freeze_loaded(size: int | None) -> None:
    """A big load (``size`` bytes) is over: what it built lives as long as the app, so the
    collector leaves it alone from now on (else each full collection walks every loaded
    object: 180-350 ms pauses at random moments, measured on a 1M-event run; nothing loaded
    makes cycles)."""
    if size is not None and size >= FREEZE_BYTES:
        gc.freeze()


class _CallsSearch:
    """A search's look through a session's calls' detail (see AgentViewerApp._look_in_calls)."""

    __slots__ = ("session", "query", "folded", "raw", "found", "next", "done", "whole", "since", "slices",
                 "opened", "notice")

    def __init__(self, session: Session, query: str, folded: str, raw: bool) -> None:
        self.session, self.query, self.folded = session, query, folded
        self.raw = raw  # the detail shows calls' raw JSON: that is looked in
        self.found: list[int] = []  # the calls whose detail has it, by index
        self.opened = -2  # the call n opened last (-2: none yet: from the one selected)
        self.notice = ""  # what the search's notice said of the calls found
        self.next = 0  # the call to look in next
        self.done = False
        self.whole = False  # every call was looked in
        self.since = time.perf_counter()
        self.slices = 0


def _calls_named(calls: list[int], whole: bool) -> str:
    """The calls whose detail has a query (indexes, in order), as a search's notice names them
    ("call 12's detail has it: n opens it"); ``whole``: every call was looked in."""
    nums = [f"{i + 1:,}" for i in calls]
    if len(nums) == 1 and whole:
        return f"call {nums[0]}'s detail has it: n opens it"
    more = len(nums) - 2
    if more <= 0 and whole:
        return f"calls {nums[0]} and {nums[1]} have it in their detail: n opens them"
    rest = f"{more:,} more" if whole else "more"
    return f"calls {', '.join(nums[:2])} and {rest} have it in their detail: n opens them"


def tmux_set_clipboard() -> str:
    """tmux's ``set-clipboard`` option, when this runs inside tmux ("" outside it, or when
    tmux does not answer)."""
    if not os.environ.get("TMUX"):
        return ""
    try:
        done = subprocess.run(["tmux", "show-options", "-sv", "set-clipboard"], capture_output=True, text=True,
                              timeout=1, stdin=subprocess.DEVNULL)
    except (OSError, subprocess.SubprocessError):
        return ""
    return done.stdout.strip() if done.returncode == 0 else ""


def _quoted(query: str, width: int) -> str:
    r"""A search's query as typed, in quotes, on one line (shortened to ``width``): repr() showed
    ``round\\(`` for ``round\(``, and switched quotes for "it's"."""
    return f"'{one_line(query, width)}'"


class DeltaBatch:
    """Model deltas gathered over one frame, for the session on screen."""

    __slots__ = ("view", "follow", "flags", "blocks", "tools", "new_unseen")

    def __init__(self, view: int, follow: bool) -> None:
        self.view = view
        self.follow = follow
        #: A run began that is not put on show (the list does not follow): the user is told.
        self.new_unseen = -1
        self.flags = Change.NONE
        self.blocks: set[int] = set()
        self.tools: set[int] = set()

    def add(self, d) -> None:
        if d.flags & Change.SESSIONS and (self.view < 0 or self.follow):
            self.view = d.session
            self.flags |= Change.SESSIONS
        elif d.flags & Change.SESSIONS and d.session > self.view:
            self.new_unseen = d.session
        if d.session == self.view or d.flags & Change.ENDED:
            self.flags |= d.flags
            if d.block >= 0:
                self.blocks.add(d.block)
            if d.closed >= 0:  # (an open text or thinking it ended: drawn as ended)
                self.blocks.add(d.closed)
            if d.tool >= 0:
                self.tools.add(d.tool)
            for part in d.more or ():  # (an event of several actions: each its own block and call)
                if part.block >= 0:
                    self.blocks.add(part.block)
                if part.tool >= 0:
                    self.tools.add(part.tool)
        else:
            self.flags |= d.flags & (Change.HEADER | Change.HEALTH)


class AgentViewerApp(App[int]):
    """Watch one stream: live (pipe, --follow) or a saved file."""

    CSS_PATH = "app.tcss"
    TITLE = "agent-viewer"
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (100, "-wide")]

    BINDINGS = [
        # From the transcript or detail pane (see check_action); first, as the tool list's own
        # Enter is: the footer's keys stay in their places whichever pane has the focus (a
        # trial saw "⏎ Open" first, then last, in the same spot another key).
        Binding("enter", "open_selected", "Open"),
        Binding("q", "quit", "Quit"),
        Binding("ctrl+c", "interrupt", "Quit", show=False, priority=True),
        Binding("y", "copy", "Copy", show=False),
        Binding("question_mark", "help", "Help"),
        # A priority key: handled as it arrives, so the keys typed right after it go into the box
        # (as an ordinary binding it ran after they had been taken as shortcuts: /quit quit).
        Binding("slash", "search", "Search", priority=True),
        Binding("n", "search_next(1)", "Next match", show=False),
        Binding("N", "search_next(-1)", "Previous match", show=False),
        Binding("t", "toggle_thinking", "Thinking"),
        Binding("r", "toggle_raw", "Raw"),
        Binding("f", "toggle_follow", "Follow"),
        Binding("s", "cycle_status", "Status filter", show=False),
        Binding("c", "cycle_kind", "Kind filter", show=False),
        Binding("x", "clear_filters", "Clear filters", show=False),
        Binding("h", "health", "Health"),
        # Enter and r are not offered while the run has no call (see check_action); pressed,
        # they say so.
        Binding("enter,r", "no_call", show=False),
        Binding("less_than_sign", "session(-1)", "Prev session", show=False),
        Binding("greater_than_sign", "session(1)", "Next session", show=False),
    ]

    def __init__(
        self,
        feed: Feed,
        clock: Callable[[], float] | None = None,
        model: StreamModel | None = None,
        frame_interval: float = FRAME,
        recorder=None,
    ) -> None:
        super().__init__()
        self.ansi_theme_light = LIGHT_ANSI
        self.feed = feed
        self.recorder = recorder  # --save: reported here if writing fails
        self._save_error_shown = False
        self._tmux_clipboard: str | None = None  # (see _clipboard_caveat)
        #: The last y in a call's detail: ((what the view showed, where), which section, when).
        self._copied: tuple[tuple, int, float] | None = None
        self.clock = clock or time.monotonic
        # (In the format the feed's start was found in, if it was: see launch; the model goes on
        # telling it from the first events.)
        self.model = model or StreamModel(get_format(feed.format_name) if feed.format_name else None)
        feed.gather_runs(self.model.format)  # text deltas applied a run at a time
        self.frame_interval = frame_interval
        self.view_index = -1  # session on screen
        self._pending: deque[Record] = deque()
        self._batch: DeltaBatch | None = None  # deltas applied but not yet shown
        self._last_absorb = 0.0
        self._ticks = 0
        self._search_hits: list[int] = []  # transcript block indices
        self._searched_from: Widget | None = None  # the pane focused when / was pressed
        self._search_elsewhere = ""  # what the last search found in the other sessions
        #: The calls' detail looked in for what the last search did not find in the transcript
        #: (n opens the calls found in turn).
        self._search_calls: _CallsSearch | None = None
        self._hits_kept: dict[tuple[int, str, bool], tuple[tuple[int, int, bool], list[int]]] = {}  # (see _hits_in)
        self._search_seen: tuple[int, int, bool] = (0, 0, False)  # session, its events, thinking shown
        self._search_pos = -1
        self._quit_asked_at = -QUIT_CONFIRM * 2  # (see action_quit)
        self._quit_asked = False  # ... and its question may be on screen
        #: Why a quit's exit status is not 0, said on stderr once the screen is given back.
        self.exit_note = ""
        #: (transcript, tool list) following when a search's step stopped them (Esc and x give it back)
        self._followed_before_search: tuple[bool, bool] | None = None
        #: ... and where the last step left them (transcript's scroll, list's selection): a pane
        #: moved since is not taken from where the user put it
        self._search_left: tuple[tuple[int, int], int] = ((-1, 0), -1)
        self._ended = False
        self._payload_cache: dict[tuple[int, int], dict[str, Any] | None] = {}
        self._gc_before = gc.get_threshold()
        self._gc_paused = False  # collector off while a saved file loads
        self._switch_before: float | None = None  # the GIL switch interval before the load
        self._chained = False  # a pump is scheduled right after the current one (bulk load)
        self._focus_placed = False  # (see _place_focus)
        self._last_notice, self._last_notice_at = "", 0.0  # (see notify_once)
        self._offered_calls = True  # the footer offers Enter and r (see _has_calls)
        self._left_newest = (-1, True)  # the newest run when it was left, and whether it followed
        self._catching_up = False  # a live source far behind (see CATCH_UP)
        self._first_paint_at: float | None = None  # the first run was shown, its frame not yet painted
        self._detail_at = 0.0  # when the detail view was last brought up to date
        self._detail_timer: Timer | None = None
        self._detail_stale = False  # the selection moved while the detail pane was hidden
        self._detail_for: tuple[Session | None, int] | None = None  # the run and call it was last shown for
        self._narrow = False  # the footer is in its narrow form (see _sync_layout)
        self._resets = 0  # truncations/replacements of a followed file seen so far
        self._unplaced_shown = 0  # lines that are not events shown before any run (see pump)
        self.greeting = ""  # shown once the screen is up (e.g. "this is the bundled demo")
        #: ... and these (title, message): what the command line could not say on screen
        self.notices: list[tuple[str, str]] = []
        self.demo = False  # the bundled demo run (the header says so)
        self._exit_requested = threading.Event()  # a termination signal arrived
        self._exit_done = threading.Event()  # run() returned
        self.sub_title = feed.label

    # -- layout --------------------------------------------------------------------
    def compose(self) -> ComposeResult:
        yield SessionHeader(self.clock, id="header")
        with Horizontal(id="body"):
            yield Transcript(id="transcript")
            with Vertical(id="side"):
                yield Timeline(id="timeline")
                yield DetailView(id="detail")
        yield SearchBox(placeholder="search transcript and tool calls, Enter to find, Esc to close", id="search")
        yield KeysFooter()

    # The main panes, found once (App.query_one searches the active screen, which may be a modal).
    @property
    def header(self) -> SessionHeader:
        return self._panes["header"]  # type: ignore[return-value]

    @property
    def transcript(self) -> Transcript:
        return self._panes["transcript"]  # type: ignore[return-value]

    @property
    def timeline(self) -> Timeline:
        return self._panes["timeline"]  # type: ignore[return-value]

    @property
    def detail(self) -> DetailView:
        return self._panes["detail"]  # type: ignore[return-value]

    @property
    def session(self) -> Session | None:
        m = self.model
        return m.sessions[self.view_index] if 0 <= self.view_index < len(m.sessions) else None

    @property
    def loaded(self) -> bool:
        """Every record that has arrived so far is applied (and the end seen, if any)."""
        return (
            not self._pending and self._batch is None
            and (self._ended or not self.feed.finished) and self.feed._queue.empty()
        )

    def watch_theme(self) -> None:
        use_code_theme(self.current_theme.dark, self.console)  # (before the panes are redrawn in the theme)

    #: The theme the user asked for (``AGENT_VIEWER_THEME``, set by the launcher; None: the
    #: default).  (From a keyboard-only trial: a light terminal's user chose one at every run.)
    theme_asked: str | None = None

    def _use_theme_asked(self) -> None:
        name = self.theme_asked
        if not name:
            return
        if name in self.available_themes:
            self.theme = name
        else:
            self.notify(f"{THEME_ENV}={name}: no such theme. Themes: {', '.join(sorted(self.available_themes))}.",
                        severity="warning", timeout=10, markup=False)

    def on_mount(self) -> None:
        use_code_theme(self.current_theme.dark, self.console)  # (not another app's: the styles are the module's)
        self._panes = {
            "header": self.query_one(SessionHeader),
            "transcript": self.query_one(Transcript),
            "timeline": self.query_one(Timeline),
            "detail": self.query_one("#detail", DetailView),
            "search": self.query_one("#search", Input),
        }
        self._footer = self.query_one(Footer)
        self.watch(self.screen, "maximized", self._maximized, init=False)
        self._panes["search"].cursor_blink = False
        self.header.live_source = self.feed.live
        self.header.unchanged_for = self.feed.unchanged_for
        self.header.blank_lines = self.blank_lines
        self.header.caught_up_at = self.timeline.caught_up_at = lambda: self.feed.caught_up_at
        if self.feed.live:  # (what it waits on, and since when, until the first event)
            self.header.started_at = self.clock()
            self.header.source = self.feed.source
        self.header.model = self.model
        self.header.demo = self.demo
        self.timeline.clock = self.clock
        self.detail.running_for = self.transcript.running_for = self.timeline.running_for
        self._sync_forms()
        self.transcript.listed = self.timeline.shows  # (] [ in the transcript skip calls the filter hides)
        self.timeline.focus()
        if not self.is_headless:
            self._install_signal_handlers()
        gc.set_threshold(*GC_THRESHOLDS)
        if self.greeting:
            self.notify(self.greeting, title="Demo", timeout=10, markup=False)
        for title, message in self.notices:
            self.notify(message, title=title, severity="warning", timeout=10, markup=False)
        if self.recorder is not None:  # (a trial: nothing on screen said a copy was being kept)
            self.notify(f"What is read is saved to {self.recorder.path} (its times to "
                        f"{timing_path(self.recorder.path)}, for --replay).", title="Saving", timeout=6, markup=False)
        self._use_theme_asked()
        self.after_mount()
        # Start reading after the first paint: the screen comes up at once, whatever the size
        # (worker processes that decode a big file start now, to be ready by then).
        self.feed.prepare()
        if self.feed.bulk:  # a saved file: "LOADING 0%" from the first frame, not "waiting for events"
            self.header.progress = (0, self.feed.total_bytes)
        self.call_after_refresh(self._start_feed)

    def after_mount(self) -> None:
        """Hook for subclasses (Textual calls every class's on_mount, so do not override it)."""

    def _start_feed(self) -> None:
        if self.feed.bulk:
            # While a saved file loads: no cyclic collections (nothing loaded makes cycles,
            # and each pass over the growing heap costs more), and a short GIL switch interval,
            # so that the feed's thread, which reads and hands over the workers' segments,
            # gets its turn within a millisecond rather than five (measured: the first data
            # came 60-110 ms sooner).
            if gc.isenabled():
                gc.disable()
                self._gc_paused = True
            self._switch_before = sys.getswitchinterval()
            sys.setswitchinterval(LOAD_SWITCH_INTERVAL)
        self.feed.start()
        self.pump()
        self.set_interval(self.frame_interval, self.pump)

    def _install_signal_handlers(self) -> None:
        """SIGTERM, SIGINT and SIGHUP end the app cleanly so the terminal is restored, or,
        when it cannot within EXIT_GRACE, end the process anyway.

        A plain ``signal.signal`` handler, not the event loop's: when the terminal goes away
        (SIGHUP), Textual's output thread dies on the write error and the loop can block for
        ever on that thread's full queue, where a loop callback would never run.  The
        watchdog thread is started here, not in the handler (starting a thread takes a lock
        the interrupted code may hold).  :meth:`run` puts the previous handlers back."""
        loop = asyncio.get_running_loop()
        requested, code = self._exit_requested, [0]

        def watchdog() -> None:
            requested.wait()
            if not self._exit_done.wait(EXIT_GRACE):
                self._restore_terminal_modes()
                os._exit(code[0])

        def on_signal(signum: int, frame: object) -> None:
            code[0] = 128 + signum
            requested.set()
            if not loop.is_closed():
                loop.call_soon_threadsafe(lambda: self.exit(return_code=128 + signum))

        try:
            for sig in _EXIT_SIGNALS:
                signal.signal(sig, on_signal)
        except ValueError:  # pragma: no cover - not the main thread
            return
        threading.Thread(target=watchdog, name="agent-viewer-exit-watchdog", daemon=True).start()

    def _restore_terminal_modes(self) -> None:
        """Best effort, from the watchdog: the terminal's modes as they were before the app (an
        ioctl, which does not wait on Textual's stuck output queue)."""
        driver = self._driver
        attrs = getattr(driver, "attrs_before", None)
        if attrs is not None:
            try:
                import termios

                termios.tcsetattr(driver.fileno, termios.TCSANOW, attrs)
            except Exception:  # noqa: BLE001 - best effort in a process about to end
                pass

    def run(self, *args: Any, **kwargs: Any) -> int | None:
        # The handlers from before the app (and its event loop, which installs its own).
        before = {sig: signal.getsignal(sig) for sig in _EXIT_SIGNALS}
        try:
            return super().run(*args, **kwargs)
        finally:
            self._exit_done.set()  # a clean exit: the watchdog stands down
            try:
                for sig, handler in before.items():
                    signal.signal(sig, handler if handler is not None else signal.SIG_DFL)
            except ValueError:  # pragma: no cover - not the main thread
                pass

    def on_unmount(self) -> None:
        self.feed.stop()
        self._resume_gc()
        gc.set_threshold(*self._gc_before)

    def _resume_gc(self) -> None:
        """The load is over: the collector and the switch interval are as they were."""
        if self._gc_paused:
            self._gc_paused = False
            freeze_loaded(self.feed.total_bytes)
            gc.enable()
        if self._switch_before is not None:
            sys.setswitchinterval(self._switch_before)
            self._switch_before = None

    # -- the frame loop ---------------------------------------------------------------
    @property
    def bulk_loading(self) -> bool:
        """Reading a saved file that is not finished, or a live source far behind (see
        CATCH_UP): favour reading over redrawing."""
        if self.feed.live:
            return self._catching_up
        return not self.feed.finished

    def pump(self) -> None:
        """Take what arrived, apply it within a time budget, refresh what changed."""
        if self.return_code is not None or not self.is_running:
            # closing (after an error, a pump already under way would apply on: 13k records; a
            # timer's pump while the screens close found none: ScreenStackError, seen in a test)
            return
        if self._first_paint_at is not None:
            if self.header.drawn is None and time.perf_counter() - self._first_paint_at < FIRST_PAINT_WAIT:
                return  # the first screen is painted before a load goes on (see below)
            self._first_paint_at = None
        self._ticks += 1
        bulk = self.bulk_loading and self.view_index >= 0  # show the first session at once
        first = self.view_index < 0
        took = 0  # records taken from the feed by this pump (bulk load)
        read_on = False  # and whether it took any of the file (bulk load)
        if bulk:
            # Decoding and applying share one budget, a chunk at a time, so a key pressed
            # while a big file loads waits at most about LOAD_BUDGET (a live source: it is
            # decoded by its reading thread).
            deadline = time.perf_counter() + LOAD_BUDGET
            while True:
                moved = False  # a chunk was taken, records or not (a long line's pieces give none)
                if len(self._pending) < MAX_PENDING:  # else leave it queued: back-pressure
                    got, moved = self._poll_one()
                    took += got
                    read_on = read_on or moved
                left = deadline - time.perf_counter()
                if not self._pending:
                    if moved and left > 0:
                        continue  # the middle of a long line: take the next chunk now, not a frame later
                    break
                if left <= 0:
                    break
                self.apply_pending(left)
        else:
            if len(self._pending) < MAX_PENDING:
                # A live source's batches come decoded (by its reading thread): many a frame
                # are cheap to take.  A saved file's are decoded as they are taken (here: until
                # its first session is on screen), a MB each: one, or the first screen waits
                # for them (64 took 0.5 s); more while they give no records (a long line).
                if self.feed.live:
                    self._pending.extend(self.feed.poll(max_batches=64))
                else:
                    deadline = time.perf_counter() + LOAD_BUDGET
                    while True:
                        got, moved = self._poll_one()
                        if got or not moved or time.perf_counter() > deadline:
                            break
            self.apply_pending(APPLY_BUDGET)
        if self.feed.live:
            self._catching_up = (len(self._pending) >= CATCH_UP) if not bulk else bool(took or self._pending)
        changed = self._batch is not None
        now = time.perf_counter()
        redraw = not bulk or now - self._last_absorb >= LOAD_REDRAW
        if self._batch is not None and redraw:
            batch, self._batch = self._batch, None
            self._last_absorb = now
            self.absorb(batch)
            if self.view_index < 0 and self.model.malformed_lines != self._unplaced_shown:
                # No run yet: its lines that are not events, as they come (an agent's "Error:
                # Authentication required" showed only once the input ended).
                self._unplaced_shown = self.model.malformed_lines
                self.transcript.set_session(self.model.unplaced_view())
            if first and self.view_index >= 0 and self.bulk_loading:
                # The first run is on show.  Its frame takes a few turns of the event loop
                # (layout, then paint), and each chained pump of a load holds the loop for up to
                # LOAD_BUDGET: the first screen came 0.5 s late, after most of a 70 MB file.  The
                # load goes on once the header has drawn the run: right after that frame (a
                # timer tick later, it lost 30-60 ms), or at a tick if it came another way.
                self._first_paint_at = now
                if not self._chained:  # (one chain of pumps at a time)
                    self._chained = True
                    self.call_after_refresh(self._pump_chained)
        if self.feed.finished and not self._pending and not self._ended and self._batch is None:
            self._ended = True
            self._resume_gc()
            self.model.end(self.clock() if self.feed.live else None)
            changed = True
            self._refresh_all(Change.HEADER | Change.TOOLS | Change.TRANSCRIPT, None, None)
            if self.view_index < 0:
                self._show_no_run()
            self._tell_if_still_written()
        if not self._focus_placed and changed:
            self._place_focus()
        if changed:
            self._withdraw_quit_question()
        self._update_loading(redraw)
        self._sync_layout()
        self._check_feed_error()
        self._check_save()
        if not changed:
            self._tick_animations()
        if bulk and (took or read_on or self._pending) and not self._chained and self._first_paint_at is None:
            # Go on at once rather than at the next frame tick (a third of the time went
            # idle waiting for it); keys, timers and redraws still run in between.  When the
            # reader had nothing ready (a FIFO, a slow disk), wait for the tick: no busy loop.
            self._chained = True
            asyncio.get_running_loop().call_soon(self._pump_chained)

    def _show_no_run(self) -> None:
        """The input ended without a run: the detail pane says so, and the transcript lists its
        lines that are not events."""
        self._show_detail()
        self.transcript.set_session(self.model.unplaced_view())

    def _place_focus(self) -> None:
        """The keys start in the tool list; where a run has no call to move through, they go to
        the transcript, once (another agent's stream, whose calls are not read; a finished run
        without calls): j, k, g and PgUp did nothing there.  Not if the user moved first."""
        s, m = self.session, self.model
        if s is None:
            return
        if s.tools or self.focused is not self.timeline:
            self._focus_placed = True
        elif m.foreign or m.other_agent or self._ended:
            self._focus_placed = True
            self.transcript.focus()

    def _tell_if_still_written(self) -> None:
        """A saved file whose run ended without a result, and that changed moments ago, is
        likely still being written by the agent: --follow would show the rest."""
        s = self.model.current
        m = self.model
        if s is None or s.result is not None or m.foreign or m.other_agent:  # (theirs never have one)
            return
        why = self.feed.still_written()
        if why:
            command = f"agent-viewer --follow {shlex.quote(self.feed.label)}"
            # Said in the header for as long as the run is on show (a notice went away, and
            # left "ENDED WITHOUT RESULT" as the last word), and once as a notice.
            self.header.still_written = self.transcript.still_written = StillWritten(s, why, command)
            self.header.refresh()
            self.transcript.update_blocks({len(s.blocks) - 1} if s is self.session and s.blocks else set())
            self.notify(f"The file may still be written ({why}): {command} keeps reading it.",
                        title="Still being written?", timeout=10, markup=False)

    def _poll_one(self) -> tuple[int, bool]:
        """One batch of the feed into the pending records: how many records it gave, and
        whether it took any of the input (the pieces of a line longer than a batch give none)."""
        before = self.feed.bytes_read
        got = self.feed.poll(max_batches=1)
        self._pending.extend(got)
        return len(got), self.feed.bytes_read != before

    def _sync_layout(self) -> None:
        """At every pump: Enter and r are offered once the run on show has a call.  After a
        resize: the detail pane catches up if it was hidden while the selection moved; below
        100 columns the footer is compact and has no palette key, so every key stays in view
        (it is rebuilt only when that changes)."""
        if self._has_calls() != self._offered_calls:  # Enter and r are offered once there is a call
            self._offered_calls = not self._offered_calls
            self.refresh_bindings()
        shown = self.detail.display
        if self._detail_stale and shown:
            self._show_detail()
        if shown == self._narrow:
            self._narrow = not shown
            footer = self._footer
            footer.compact = self._narrow
            footer.show_command_palette = shown
            footer.refresh(recompose=True)

    def _pump_chained(self) -> None:
        self._chained = False
        if self.is_running and self.bulk_loading:
            try:
                self.pump()
            except Exception as exc:  # outside Textual's callbacks: report it as Textual would
                self._handle_exception(exc)

    def _check_feed_error(self) -> None:
        if self.feed.refused:
            if not self.header.refused:  # (said in full too: a narrow header cuts the command)
                self.header.refused = self.feed.refused
                self.header.refresh()
                self.notify(self.feed.refused, title="Not read", severity="error", timeout=30, markup=False)
            return
        err = self.feed.error or ""
        if err != self.header.extra and not self._save_error_shown:
            self.header.extra = err
            self.header.refresh()
        if self.feed.resets != self._resets:  # --follow: the file was truncated or replaced
            self._resets = self.feed.resets
            self.notify("The file was truncated or replaced: reading it again from its start.",
                        title="Follow", timeout=6)

    def _check_save(self) -> None:
        rec = self.recorder
        if rec is not None and rec.error and not self._save_error_shown:
            self._save_error_shown = True
            self.header.extra = "saving stopped"
            self.notify(f"{rec.error}. Viewing continues.", severity="error", timeout=10, markup=False)

    def apply_pending(self, budget: float = APPLY_BUDGET) -> None:
        """Apply pending records to the model for up to ``budget`` seconds, gathering deltas."""
        if not self._pending:
            return
        m = self.model
        deadline = time.perf_counter() + budget
        if self._batch is None:
            self._batch = DeltaBatch(self.view_index, self.timeline.follow)
        batch = self._batch
        n = 0
        pending = self._pending
        while pending:
            batch.add(m.apply(pending.popleft()))
            n += 1
            if n % 256 == 0 and time.perf_counter() > deadline:
                break

    def _sync_forms(self) -> None:
        """The list, the transcript and the detail show calls' targets as the run on show's
        format says."""
        forms = self.model.format_of(self.session).TARGET_FORMS
        if self.timeline.target_forms is not forms:
            self.timeline.target_forms = self.transcript.target_forms = self.detail.target_forms = forms

    def absorb(self, batch: DeltaBatch) -> None:
        """Refresh the widgets for a batch of model deltas."""
        self._sync_forms()  # (the model may have told the run's format by now)
        if batch.new_unseen > batch.view and self.feed.live:
            # (From a trial: a new run streamed in unseen under "Transcript · following" while
            # the list had stopped following, for the call being read.)
            n = len(self.model.sessions)
            self.notify(f"A new run began (session {batch.new_unseen + 1:,} of {n:,}): f goes to it and "
                        "follows the newest.", title="New run", timeout=6, markup=False)
        if batch.view != self.view_index:
            self.show_session(batch.view)
        elif batch.flags & Change.ENDED:  # calls and blocks of every run may have changed
            self._refresh_all(batch.flags, None, None)
        else:
            self._refresh_all(batch.flags, batch.blocks, batch.tools)

    def _refresh_all(self, flags: Change, blocks: set[int] | None, tools: set[int] | None) -> None:
        s = self.session
        if s is None:
            self.header.refresh()
            return
        if tools:  # a tool call's marker in the transcript changes with it
            calls = s.tools
            marks = {calls[i].block for i in tools} - {-1}
            for i in tools:  # (a Task read after its sub-agent's calls: their marks name it now)
                if calls[i].call_id in s.subcalls and calls[i].status != "running":
                    marks.update(c.block for c in s.subcalls_of(calls[i]) if c.index < i and c.block >= 0)
            blocks = marks | blocks if blocks else marks
        if flags & (Change.TRANSCRIPT | Change.THINKING | Change.RESULT) or blocks:
            # tools None: any call may have changed (the run ended), and its marker with it
            self.transcript.update_blocks(blocks, recheck=tools is None, streamed=True)
        if flags & Change.TOOLS:
            if tools is None:
                self.timeline.refresh()
                self.timeline.calls_added_or_changed(set())
                self._show_detail()
            else:
                self.timeline.calls_added_or_changed(tools)
                shown = self.detail.tool
                if shown is not None and self.detail.session is s and self.detail.display:
                    # The call on show may have changed (its completion came, a call started
                    # alongside it or under it; show() tells by what it shows): show that now, in
                    # place, even while a newer call waits its turn (LOAD_DETAIL_EVERY).
                    # (s.tools, not the object on show: a replay's model copies a call it shares
                    # with a checkpoint before changing it.)
                    self.detail.show(s, s.tools[shown.index], self.load_event, self.model.format_of(s).tool_sections)
        if flags & Change.RESULT and not s.tools:
            self._show_detail()  # not "No tool calls in this run yet." any more: it ended
        self.header.session = s
        self.header.refresh()

    def _update_loading(self, redraw: bool) -> None:
        feed = self.feed
        if not feed.live and not feed.finished:
            self.header.progress = (feed.bytes_read, feed.total_bytes)
            if redraw:
                self.header.refresh()
        elif self.header.progress is not None and not self._pending:
            self.header.progress = None
            self.header.refresh()

    def _tick_animations(self) -> None:
        """Spinner and elapsed time: a few redraws per second, only while something runs."""
        s = self.session
        if self._ticks % 3:
            return
        if s is None:
            if self.feed.live and not self.model.ended:  # "waiting for events on standard input · 35 s"
                self.header.refresh()
            return
        frame = int(self.clock() * 10)
        if s.running:
            self.timeline.frame = frame
            self.transcript.frame = frame
            self.timeline.refresh()
            running_blocks = {t.block for t in s.tools[-64:] if t.status == "running"}
            self.transcript.update_blocks(running_blocks)
            self.detail.tick(frame)
            if isinstance(self.screen, DetailScreen):
                for view in self.screen.query(DetailView):  # (none yet: a tick before it mounted)
                    view.tick(frame)
        if s.state == "live" and self.feed.live:
            self.header.refresh()

    # -- sessions -------------------------------------------------------------------------
    def show_session(self, index: int, same_run: bool = False) -> None:
        """Show run ``index`` (``same_run``: the run on show, in another state of the model:
        a replay moved)."""
        self.view_index = index
        s = self.session
        self.header.session = s
        self._sync_forms()
        if same_run:
            self.transcript.replace_session(s)  # (the search's mark and place: see search_kept)
        else:
            # The hit marked was a block of the run left (its number marked another block here).
            self.transcript.highlight_block, self.transcript.highlight_query = -1, ""
            self.transcript.set_session(s)
            self._search_place("")
        self.timeline.set_session(s)
        self._search_hits = []
        self._show_detail()
        self.header.refresh()

    def search_kept(self) -> None:
        """A replay moved with a search on (from a trial: the border lost it and the block its
        mark, while ``n`` went on with it).  The block marked keeps its mark while it is there
        and still has the words (an earlier state's blocks are the first of a later one's), and
        the border its place; else the border says the search is still on.  Only that block is
        looked at: a seek is a key held down, and the whole run searched again at each step
        took a quarter of a second for some words (see _markdown_has); ``n`` searches it."""
        query, tr, s = self.timeline.search, self.transcript, self.session
        if not query or s is None:
            return
        self._search_seen = (0, 0, False)  # (n searches the run as it is now)
        at = tr.highlight_block
        if 0 <= at < len(s.blocks) and self._look_in(s, fold(query), [at]):
            if not self._search_hits:  # (and its hits: n goes on from the block marked)
                self._search_hits, self._search_pos = [at], 0
            return
        self._unmark_search_hit()
        self._search_pos = -1
        look = self._search_calls
        if look is not None and look.session is s and look.done and look.found:
            self._place_calls_found(look)  # (a step on in place: the calls it named have it still)
        else:
            self._search_place(f"{_quoted(query, 40)}: n N searches again")

    def action_session(self, step: int) -> None:
        n = len(self.model.sessions)
        if n < 2:
            self.notify_once("This stream holds one session." if n else "No session yet.", timeout=2)
            return
        target = max(0, min(self.view_index + step, n - 1))
        searched = self._session_with_hits(step)
        if searched is not None:  # a search on: to the nearest run it finds something in, that way
            target = searched
        if target != self.view_index:
            # Only the newest run's list follows new calls; back to it, it follows again
            # unless it had stopped when it was left (it stayed on its first call, "following"
            # gone).  A run newer than the one left follows.
            if self.view_index == n - 1:
                self._left_newest = (self.view_index, self.timeline.follow)
            left, followed = self._left_newest
            self.timeline.follow = target == n - 1 and (followed or left != target)
            self.show_session(target)
            if searched is not None:
                self.run_search(self.timeline.search)  # its first match, and where it is on the border
        else:
            self.notify_once(f"This is the {'first' if step < 0 else 'last'} of the {n:,} sessions.", timeout=2)

    # -- detail -----------------------------------------------------------------------------
    def load_event(self, ref: int | None) -> dict[str, Any] | None:
        if ref is None:
            return None
        cache = self._payload_cache
        if ref in cache:
            return cache[ref]
        data = self._read_event(ref)
        if len(cache) > 32:
            cache.clear()
        cache[ref] = data
        return data

    def _read_event(self, ref: int | None) -> dict[str, Any] | None:
        """The event at ``ref`` (see model.make_ref), read from the input and parsed; None when
        it cannot be."""
        if ref is None:
            return None
        try:
            return parse_span(self.feed.store.read(*ref_span(ref)))
        except (OSError, ValueError):
            return None

    def _show_detail(self) -> None:
        detail = self.detail
        if not detail.display:  # a narrow window: shown when it is wide again (pump)
            self._detail_stale = True
            return
        self._detail_stale = False
        s = self.session
        idx = self.timeline.selected_index()
        self._detail_for = (s, idx)
        tool = s.tools[idx] if s is not None and idx >= 0 else None
        empty = ""
        if tool is None:
            if s is None or not s.tools:
                empty = self.no_calls_text()
            elif self.timeline.filtered and not self.timeline.row_count:
                empty = "No call matches the filter (x clears it)."
        if tool is not None and self.header.drawn is None and self.bulk_loading:
            # The first screen of a load is drawn without the call's detail (its highlighted
            # content took up to 0.1 s of it).  While the list follows, the detail then waits
            # LOAD_DETAIL_EVERY as every later one does, or for the end of a shorter load (drawn
            # at the next pump, it took 50 ms of the 0.7 s a 70 MB file takes to open).
            self._detail_at = _now()
            detail.show(s, None, self.load_event, self.model.format_of(s).tool_sections, "Loading…")
            if not self._detail_waits():
                self._detail_stale = True  # the next pump shows it
            return
        self._detail_at = _now()
        detail.show(s, tool, self.load_event, self.model.format_of(s).tool_sections, empty)

    def no_calls_text(self) -> str:
        """Why the run on show has no call to show (the detail says it, and ] and [ do)."""
        s = self.session
        if s is None and self.model.ended:
            return "No tool calls: the input held no run."
        if self.model.other_agent:  # (read as another format's: its first events did not say)
            return (f"This looks like a {self.model.other_agent} stream whose first events did not say so: it "
                    f"was read as {self.model.format_of(s).AGENT}'s, and its tool calls are in the transcript, "
                    "as events it does not know.")
        if self.model.foreign:
            return (f"agent-viewer reads the tool calls of {agents_read()}: this stream's are in the transcript, "
                    "as events it does not know.")
        ended = s is not None and (s.ended or s.result is not None)
        return "No tool calls in this run." if ended else "No tool calls in this run yet."

    def on_timeline_selected(self, message: Timeline.Selected) -> None:
        self.transcript.mark_selected(message.tool_index)
        if message.by_user and (not self.timeline.follow or self.timeline.filtered):
            # (A key, a click or a filter moved the list away from the newest call, or to the
            # newest the filter shows: what was said around the call it selected.  Not while it
            # follows every call: the transcript follows too.)
            self.transcript.show_call(message.tool_index)
        if (self.session, message.tool_index) == self._detail_for:
            return  # that call's detail was brought up to date (or held back) since: show_session
        if not (message.by_data and self._detail_waits()):
            self._show_detail()

    def _detail_waits(self) -> bool:
        """While following a live run (or a saved file still loading), hold the detail back
        until LIVE_DETAIL_EVERY (LOAD_DETAIL_EVERY) has passed since it was last brought up to
        date; then it shows the newest call."""
        if not self.timeline.follow:
            return False
        if self.feed.bulk and not self._ended:  # reading a saved file, or applying its tail
            every = LOAD_DETAIL_EVERY
        elif self.feed.live and not self.feed.eof:
            every = LIVE_DETAIL_EVERY
        else:
            return False
        wait = self._detail_at + every - _now()
        if wait <= 0:
            return False
        if self._detail_timer is None:
            self._detail_timer = self.set_timer(wait, self._deferred_detail)
        return True

    def _deferred_detail(self) -> None:
        self._detail_timer = None
        if not self._detail_waits():
            self._show_detail()

    def on_timeline_opened(self, message: Timeline.Opened) -> None:
        s = self.session
        if s is None or message.tool_index < 0:
            self._nothing_to_open()
            return
        self._open_full_screen(s, message.tool_index)

    def action_open_selected(self) -> None:
        """Enter outside the tool list: the selected call full screen (not from a modal screen)."""
        s = self.session
        idx = self.timeline.selected_index()
        if self.screen is not self.screen_stack[0]:
            return
        if s is not None and idx >= 0:
            self._open_full_screen(s, idx)
        else:
            self._nothing_to_open()

    def notify(self, message: str, *, title: str = "", severity: SeverityLevel = "information",
               timeout: float | None = None, markup: bool = True) -> None:
        """Every notice, cleaned: they name files, and a file's name may hold escape sequences
        (a "still being written" notice of one set the window's title and cleared the screen).
        (Stream or file text in a notice is also never markup: those give markup=False.)"""
        super().notify(clean(message), title=clean(title), severity=severity, timeout=timeout, markup=markup)

    def notify_once(self, message: str, timeout: float, severity: SeverityLevel = "information") -> None:
        """A notice, unless the same one is still on screen: a key pressed again where it
        cannot go (} at the last error, ] at the last call) stacked one toast per press."""
        now = time.monotonic()
        if message == self._last_notice and now - self._last_notice_at < timeout:
            return
        self._last_notice, self._last_notice_at = message, now
        self.notify(message, timeout=timeout, severity=severity, markup=False)

    def clear_notifications(self) -> None:
        super().clear_notifications()
        self._last_notice = ""  # (gone: the same notice again is shown again)

    def _maximized(self, widget: Widget | None) -> None:
        """(Palette: Maximize.)  Nothing on screen said how to get the other panes back."""
        if widget is not None:
            self.notify("Esc restores the layout.", title="Maximized", timeout=4)

    def action_no_call(self) -> None:
        if self.screen is self.screen_stack[0]:
            self._nothing_to_open()

    def _nothing_to_open(self, verb: str = "open") -> None:
        """Enter (or y: ``verb`` "copy") with no call selected said nothing."""
        s = self.session
        if s is None or not s.tools:
            self.notify_once(f"No tool call to {verb}.", timeout=3)
        elif self.timeline.filtered and not self.timeline.row_count:
            self.notify_once("No call matches the filter (x clears it).", timeout=3)
        else:
            self.notify_once("No call is selected.", timeout=3)

    def _open_full_screen(self, s: Session, index: int, search: bool = False, query: str = "",
                          next_found: Callable[[int, int], int | None] | None = None,
                          named: Callable[[], list[int]] | None = None) -> None:
        def closed(shown: int | None) -> None:
            if screen.raw != self.detail.raw:  # r there: the pane shows the call the same way
                self.action_toggle_raw()
            # ] and [ stepped to another call there: the list selects it (and stops following).
            # Not stepped: the list stays as it is (it may have followed newer calls meanwhile).
            if shown is None or shown == index or self.session is not s:
                return
            if self.timeline.select_tool(shown):
                self.timeline.follow = False

        timeline = self.timeline
        screen = DetailScreen(s, s.tools[index], self.load_event, self.model.format_of(s).tool_sections,
                              raw=self.detail.raw, shown=lambda: timeline.rows, search=search, query=query,
                              next_found=next_found, named=named)
        self.push_screen(screen, closed)

    def on_detail_view_reading(self, message: DetailView.Reading) -> None:
        if self.timeline.follow and message.view is self.detail:
            self.timeline.follow = False  # the pane keeps the call being read; f follows again
            if self.feed.live:  # (from a trial: the list had stopped following, unsaid but for its title)
                self.notify_once("The detail keeps this call while you read it: f follows the newest again.", timeout=3)

    def on_transcript_tool_clicked(self, message: Transcript.ToolClicked) -> None:
        self.timeline.follow = False
        self.timeline.select_tool(message.tool_index)
        s = self.session
        if message.opened and s is not None and 0 <= message.tool_index < len(s.tools):
            self._open_full_screen(s, message.tool_index)  # (a double click, as in the tool list)

    # -- actions --------------------------------------------------------------------------------
    def action_help(self) -> None:
        self.clear_notifications()  # (the demo's greeting sat over the help it points to)
        self.push_screen(HelpScreen())

    def action_health(self) -> None:
        self.push_screen(HealthScreen(self._health_state))

    def _health_state(self) -> tuple[StreamModel, int, str]:
        """What the health screen shows: the model, the blank lines read, and whether the file
        is still being read."""
        loading = ""
        if self.header.progress is not None:  # a saved file still loading
            pct = self.header.percent_loaded
            loading = "" if pct is None else f" ({pct}% read)"
            loading = f"The file is still being read{loading}: this is what was read so far."
        return self.model, self.blank_lines(), loading

    def blank_lines(self) -> int:
        """The input's blank lines read so far."""
        return self.feed.ingest.decoder.blank_lines

    def action_toggle_thinking(self) -> None:
        t = self.transcript
        t.set_show_thinking(not t.show_thinking)
        self.notify(f"Thinking {'shown' if t.show_thinking else 'hidden'}", timeout=1.5)

    def save_screen_picture(self, folder: str | None = None) -> str | None:
        """An SVG of the screen, in ``folder`` (default: ~/Downloads if there is one, else the
        current directory, else the temporary directory); says where, or why it could not."""
        if folder is None:
            downloads = os.path.expanduser("~/Downloads")
            folders = [downloads] if os.path.isdir(downloads) else []
            folders += [os.getcwd(), tempfile.gettempdir()]
        else:
            folders = [folder]
        why = ""
        for place in folders:
            try:
                path = self.save_screenshot(path=place)
            except OSError as exc:
                why = why or f"in {place}: {exc.strerror or exc}"
                continue
            self.notify(f"Screenshot saved: {path}", timeout=8, markup=False)
            return path
        self.notify(f"Could not save the screenshot {why}", severity="error", timeout=8, markup=False)
        return None

    def action_copy(self) -> None:
        s, idx = self.session, self.timeline.selected_index()
        if s is None or idx < 0:
            self._nothing_to_open("copy")
            return
        if self.focused is self.detail:  # (the call it shows: it may lag the list's selection)
            self.copy_section(self.detail)
        else:
            self.copy_call(s, idx)

    def copy_section(self, view: DetailView) -> None:
        """y in a call's detail: the section being read (its output, a file's contents, the
        search match's), whole, as the stream gave it; at the call's facts, above its sections,
        its command, as in the tool list.  y again, the view unmoved, copies the next section
        (round to the command): a call that fits in the view cannot be scrolled to its output."""
        s, t = view.session, view.tool
        if s is None or t is None:
            self._nothing_to_open("copy")
            return
        command = self._command_of(s, t.index)
        # What y copies in turn: the command, then each section but one that only repeats it.
        secs = [sec for sec in view.sections() if not command or sec.body != command]
        at = view.section_in_view()
        i = next((k for k, sec in enumerate(secs) if sec is at), -1)
        key = (view.generation, int(view.scroll_y), view.hit_pos)  # (the same call, shown the same, unmoved)
        last, now = self._copied, time.monotonic()
        if last is not None and last[0] == key and now - last[2] < COPY_AGAIN_S:
            i = last[1] + 1 if last[1] + 1 < len(secs) else -1
        self._copied = (key, i, now)
        after = i + 1 if i + 1 < len(secs) else -1
        # (What comes next by its title, or the argument itself: "the command" read wrong for a
        # read's path or a grep's pattern.)
        then = "" if not secs else f"y again: {one_line(command, 40) if after < 0 else one_line(secs[after].title, 40)}"
        if i < 0:
            self.copy_call(s, t.index, then=then)
        else:  # (a command's output as drawn: without its colour codes, pasted as "\x1b[32m")
            sec = secs[i]
            body = uncoloured(sec.body) if sec.kind == "terminal" else sec.body
            # (Not "--print writes a run's text": text mode leaves a call's output out.)
            where = f"the call's events in the input: {events_lines(t, s)} (r shows them raw)"
            self.copy_out(body, what=one_line(sec.title, 60), then=then, instead=where)

    def _command_of(self, s: Session, index: int) -> str:
        """Call ``index``'s main argument, whole (its command, path, pattern), or its target."""
        t = s.tools[index]
        load = self.load_event
        return self.model.format_of(s).copy_text(load(t.start_ref), load(t.end_ref), t.call_id) or t.target

    def copy_call(self, s: Session, index: int, then: str = "") -> None:
        """Copy a call's main argument whole (its command, path, pattern) to the clipboard: the
        terminal's own selection takes the borders and line numbers, and one line of a wrapped
        command at a time.  As shown: control characters escaped (pasted into a shell, an escape
        sequence from the stream would be keys)."""
        text = self._command_of(s, index)
        if not text:
            self.notify_once(f"Call {index + 1} has no command, path or pattern to copy." + (f"\n{then}" if then else ""),
                             timeout=3)
            return
        self.copy_out(text, then=then)

    def copy_out(self, text: str, what: str = "", then: str = "", instead: str = "") -> None:
        """``text`` to the clipboard, control characters escaped, and a note saying so (and
        ``what`` it was, and ``then`` what y would copy next).  Not past COPY_MAX characters:
        the terminal gets the text in one escape sequence, which many cap (and a big one
        stalls); the note then says where it is whole (``instead``)."""
        if len(text) > COPY_MAX:
            instead = instead or "agent-viewer --print writes a run's text out"
            self.notify(f"Not copied: {what or 'it'} is {len(text):,} characters, more than a terminal takes "
                        f"at once ({COPY_MAX:,}); {instead}.", title="Clipboard",
                        severity="warning", timeout=6, markup=False)
            return
        self.copy_to_clipboard(clean(text))
        lines = text.count("\n") + (not text.endswith("\n"))  # (a file's last newline ends a line: the detail's count)
        more = "" if lines < 2 else f", {lines:,} lines" if what.endswith(")") else f" ({lines:,} lines)"
        # (a section titled "Output (exit 1)": no "(exit 1) (17 lines)")
        # (Through the terminal, OSC 52: some terminals do not take it, or ask first.)
        notes = "".join(f"\n{note}" for note in (self._clipboard_caveat(), then) if note)
        self.notify(f"Copied{' ' + what if what else ''}{more}: {one_line(text, 60)}{notes}",
                    title="Clipboard", timeout=4 if notes else 3, markup=False)

    def _clipboard_caveat(self) -> str:
        """Why the copy may not reach the clipboard, when that can be told: inside tmux, whose
        default (``set-clipboard external``) drops what a program sends to the clipboard (OSC
        52), and said "Copied" all the same.  Asked of tmux at each copy until it is "on" (a
        few ms; none outside tmux)."""
        if self._tmux_clipboard != "on":  # (asked again until it is: the user may have set it since)
            self._tmux_clipboard = tmux_set_clipboard()
        if self._tmux_clipboard in ("", "on"):
            return ""
        return (f"(inside tmux, set-clipboard is {self._tmux_clipboard}: the copy reaches the clipboard only "
                "after tmux set -s set-clipboard on)")

    def action_quit(self) -> None:
        """q: quit, with the exit status ``--print`` would give (0: the run succeeded; 1: it
        failed, or had not ended), and one line on stderr saying why when not 0 (see
        launch).  While a piped run is still going, a first q only says that quitting closes
        the agent's pipe, which may stop it: one key ended a run part way, without a word."""
        s = self.model.last_run
        going = self._piped_run_going()
        now = _now()
        if going and now - self._quit_asked_at > QUIT_CONFIRM:
            self._quit_asked_at = now
            self._quit_asked = True
            what = "The run is still going" if s is not None else "The pipe is open, no event yet"
            self.notify(f"{what}: quitting closes the agent's pipe, which may stop it. {QUIT_AGAIN}",
                        title="Quit?", severity="warning", timeout=QUIT_CONFIRM, markup=False)
            return
        code, self.exit_note = self.quit_status()
        self.exit(return_code=code)

    def _piped_run_going(self) -> bool:
        """Whether quitting would close the pipe of a run still going (see action_quit)."""
        s = self.model.last_run
        return self.feed.pipe and not self.feed.finished and (s is None or (s.result is None and not s.ended))

    def _withdraw_quit_question(self) -> None:
        """The run ended while "Quit? The run is still going" was on screen: it is withdrawn
        (from a trial: it stayed under the header's SUCCEEDED)."""
        if self._quit_asked and not self._piped_run_going():
            self._quit_asked = False
            self._take_back(QUIT_AGAIN)

    def quit_status(self) -> tuple[int, str]:
        """The exit status of a quit, and why it is not 0 (as ``--print`` says it)."""
        from viewer.core.printer import (
            EXIT_OK,
            EXIT_RUN_FAILED,
            EXIT_USAGE,
            foreign_problem,
            session_problem,
        )

        m = self.model
        if m.foreign:
            return EXIT_RUN_FAILED, foreign_problem(m.events - m.duplicates, m.format, m.other_agent)
        s = m.last_run
        if self.feed.refused:  # (as a file of it is refused before the screen opens)
            return EXIT_USAGE, self.feed.refused
        if not self.feed.live and not self.feed.finished:
            return EXIT_RUN_FAILED, f"quit before {self.feed.source} was read to its end"
        if s is None and not m.ended:
            return EXIT_RUN_FAILED, "quit before any event came"
        if s is not None and s.result is None and not s.ended:
            return EXIT_RUN_FAILED, "quit before the run ended"
        problem = session_problem(s, m.malformed_lines, self.blank_lines())
        return (EXIT_RUN_FAILED, problem) if problem else (EXIT_OK, "")

    def action_interrupt(self) -> None:
        """Ctrl+C quits, with the status of a program interrupted (130), as the shell's ^C
        gives: ``agent | agent-viewer && next`` does not go on."""
        self.exit(return_code=130)

    def action_toggle_raw(self) -> None:
        self.detail.raw = not self.detail.raw
        self._show_detail()
        if not self.detail.display:  # a narrow window has no detail pane: say what changed
            self.notify(f"Raw JSON {'on' if self.detail.raw else 'off'}: Enter shows the selected call "
                        "full screen.", timeout=3)

    def action_toggle_follow(self) -> None:
        # Off only when both follow: after scrolling the transcript up, `f` brings it back.
        on = not (self.timeline.follow and self.transcript.follow)
        self._followed_before_search = None  # (the user says how it follows: a search's end does not)
        self.timeline.follow = on
        self.transcript.follow = on
        if on:
            n = len(self.model.sessions)
            if n and self.view_index != n - 1:
                self.show_session(n - 1)
            self._follow(transcript=True, tools=True)
        said = f"Follow {'on' if on else 'off'}"
        if self.header.still_written is not None:
            # (From a live-watching trial: next to "still written? (--follow)", f read as the
            # key that follows the file.)
            said += f": f only scrolls to the newest output; {self.header.still_written.command} reads on"
        self.notify(said, timeout=4 if self.header.still_written is not None else 1.5, markup=False)

    def _follow(self, transcript: bool, tools: bool) -> None:
        """These panes follow, and are at the newest output."""
        if transcript:
            self.transcript.follow = True
            self.transcript.scroll_end(animate=False, immediate=True, force=True)
        if tools:
            self.timeline.follow = True
            self.timeline.action_last()

    def _statuses(self) -> list[str]:
        """The statuses some call of this session has, in filter order (among the calls of the
        kind filter, if one is set: the other statuses would show an empty list)."""
        s = self.session
        if s is None:
            return []
        kind = self.timeline.kind_filter
        counts = Counter(t.status for t in s.tools if t.kind_key == kind) if kind else s.status_counts
        return [st for st in STATUS_FILTERS[1:] if counts.get(st)]

    def _kinds(self) -> list[str]:
        """The kinds some call of this session has (among the calls of the status filter)."""
        s = self.session
        if s is None:
            return []
        status = self.timeline.status_filter
        first_label: dict[str, str] = {}  # one pass: a run can have 60k calls
        for t in s.tools:
            if status == "all" or t.status == status:
                first_label.setdefault(t.kind_key, t.short)
        return sorted(first_label, key=lambda k: (first_label[k].casefold(), k))  # as they read

    def action_cycle_status(self) -> None:
        """Next status that some call has (then all calls again)."""
        tl = self.timeline
        order = ["all", *self._statuses()]
        cur = order.index(tl.status_filter) if tl.status_filter in order else 0
        tl.status_filter = order[(cur + 1) % len(order)]
        tl.refilter(by_user=True)
        self._say_if_nothing_to_filter()

    def _say_if_nothing_to_filter(self) -> None:
        """c or s in a run without calls says so ("No tool calls to filter yet." in a run that
        had ended; s said nothing)."""
        if self.session is None or not self.session.tool_count:
            self.notify_once(f"Nothing to filter. {self.no_calls_text()}", timeout=2)

    def action_cycle_kind(self) -> None:
        kinds = ["", *self._kinds()]
        self._say_if_nothing_to_filter()
        tl = self.timeline
        cur = kinds.index(tl.kind_filter) if tl.kind_filter in kinds else 0
        tl.kind_filter = kinds[(cur + 1) % len(kinds)]
        tl.refilter(by_user=True)

    def action_clear_filters(self) -> None:
        tl = self.timeline
        tl.status_filter, tl.kind_filter, tl.search = "all", "", ""
        self._unmark_search_hit()
        self._search_hits = []
        self._search_calls = None
        tl.refilter(by_user=True)
        self._follow_again()

    def _follow_again(self) -> None:
        """The search is cleared: the panes its steps stopped following follow again (a live
        run's transcript stayed on the last hit for good; in a replay, End did not help).  Not
        once the input has ended: nothing new comes to follow, and the panes went back to the
        end, away from the call just found (from a trial on a big saved run)."""
        was, self._followed_before_search = self._followed_before_search, None
        if was is None or self._ended:
            return
        transcript, tools = was
        place, selected = self._search_left
        self._follow(transcript=transcript and not self.transcript.follow and self.transcript.place() == place,
                     tools=tools and not self.timeline.follow and self.timeline.selected_index() == selected)

    # -- search -----------------------------------------------------------------------------------
    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "search":
            # On the main screen only, and not while typing in the box: a / there is text.
            stack = self.screen_stack
            box = getattr(self, "_panes", {}).get("search")
            return len(stack) == 1 and box is not None and self.focused is not box
        if action in ("open_selected", "toggle_raw") and not self._has_calls():
            return False  # (not offered in the footer: with no call they did nothing; no_call says so)
        if action == "no_call":
            return not self._has_calls()
        if action == "open_selected":
            # The tool list has its own Enter (and footer entry); the search box submits.
            panes = getattr(self, "_panes", {})
            return self.focused is not panes.get("timeline") and self.focused is not panes.get("search")
        return True

    def _has_calls(self) -> bool:
        """The run on show has a call to open (another agent's stream has none, a run may have
        none yet)."""
        s = self.session if getattr(self, "model", None) is not None else None
        return bool(s is not None and s.tool_count)

    def action_search(self) -> None:
        detail = self.detail
        if (self.focused is detail and detail.tool is not None and detail.session is self.session
                and self.screen is self.screen_stack[0]):
            # Reading a call's output: / searches that (full screen, where n N go through it),
            # not the transcript and the list.
            self._open_full_screen(detail.session, detail.tool.index, search=True)
            return
        box = self._panes["search"]
        box.display = True
        self._searched_from = self.focused  # (focus goes back there: the box gave it to the list)
        # At once, not after the keys already queued (Widget.focus() waits for them): /quit
        # typed in one burst went to the shortcuts and quit.
        self.screen.set_focus(box)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        if event.input.id != "search":
            return
        query = event.value.strip()
        event.input.display = False
        self._focus_after_search()
        self.run_search(query)

    def action_close_search(self) -> None:
        box = self._panes["search"]
        if box.display:
            box.display = False
            self._focus_after_search()

    def _focus_after_search(self) -> None:
        """Back to the pane the search was started from (the tool list when it was none, or
        one hidden since): j and k scrolled the list, not the transcript around the hit."""
        pane = self._searched_from
        self._searched_from = None
        if pane is None or not pane.display or not pane.focusable or pane.screen is not self.screen:
            pane = self.timeline
        pane.focus()

    def on_key(self, event) -> None:
        box = self._panes["search"]
        if event.key == "escape" and box.display:
            self.action_close_search()
            event.stop()
        elif event.key == "escape" and self.timeline.search and len(self.screen_stack) == 1:
            self.run_search("")  # (From a keyboard-only trial: only x cleared it, filters too.)
            event.stop()
        elif event.key == "escape" and self.screen.query("HelpPanel"):
            self.action_hide_help_panel()  # Textual's keys panel (palette: "Keys")
            event.stop()

    def _unmark_search_hit(self) -> None:
        """The transcript no longer marks the last search's hit (a new search, or none)."""
        tr = self.transcript
        old, tr.highlight_block, tr.highlight_query = tr.highlight_block, -1, ""
        if old >= 0:
            tr.update_blocks({old})
        self._search_place("")

    def run_search(self, query: str) -> None:
        s = self.session
        if query != self.timeline.search:
            self._unmark_search_hit()
        self._search_calls = None
        self.timeline.search = query
        self.timeline.refresh()
        if not query or s is None:
            self._search_hits = []
            if not query:
                self._follow_again()
            return
        q = fold(query)
        hits = self._find_hits(s, q)
        self._search_hits = hits
        self._search_elsewhere = self._elsewhere(s, q)
        self._search_pos = -1
        if not hits:
            self._unmark_search_hit()  # (a hit of before, and where it was on the border)
            draw_until = time.perf_counter() + DRAW_TO_SEARCH_S
            in_thinking = not self.transcript.show_thinking and any(
                b.kind == "thinking" and self._thought_has(s, b, q, draw_until) for b in s.blocks
            )
            # Not in the transcript, but maybe in a call's output or arguments, which the detail
            # shows and searches (a trial looked for an error a command printed: "No match").
            # Said at once when a first slice of looking tells; else when it is done.
            look = self._search_calls = _CallsSearch(s, query, q, self.detail.raw)
            self._look_in_calls(look)
            calls = look.found if look.done else []
            look.notice = _calls_named(calls, look.whole) if calls else ""
            # Not done in the key press (a big run): said, and what it finds said when it is
            # (from a trial: a bare "No match", then calls named 2 s later, read as wrong).
            looking = not look.done
            where = " in this session" if self._search_elsewhere else ""
            if calls or looking:
                where = " in this session's transcript" if where else " in the transcript"
            hint = where + self._search_elsewhere
            if in_thinking:  # (and the other sessions' matches too: they were left unsaid)
                hint += " (it is in the hidden thinking: t shows it)"
            if calls:
                hint += f"; {look.notice}"
            elif looking:
                hint += LOOKING
            # (a long query is shortened: 3,200 characters covered the screen; and said once
            # while it shows: n pressed again stacked the same notice)
            self.notify_once(f"No match for {_quoted(query, 60)}{hint}",
                             timeout=5 if calls or looking else 3 if hint else 2, severity="warning")
            self._place_calls_found(look)
            return
        self.action_search_next(1)

    def _look_in_calls(self, look: _CallsSearch) -> None:
        """A slice of ``look`` (see CALLS_SLICE_S); the next one after the next frames, or, once
        done, what it found said (unless another search came since)."""
        if look is not self._search_calls:
            return  # (another search since, or none)
        if look.session is not self.session or look.query != self.timeline.search:
            # Another run on show (< >, a replay's seek makes a new one), or the search cleared
            # (x): n searches again.
            self._search_calls = None
            return
        now = time.perf_counter()
        self._calls_showing(look, now + (CALLS_SLICE_S if look.slices else CALLS_FIRST_S))
        if not look.done and now - look.since >= CALLS_TO_SEARCH_S:
            look.done = True
        if not look.done:
            self.set_timer(CALLS_GAP_S, lambda: self._look_in_calls(look))
            return
        if look.slices > 1:  # (the search's notice said it was looking: it is over)
            self._take_back(LOOKING)
        if look.found and look.slices > 1:  # (after the first: the search's notice is out)
            look.notice = f"{_quoted(look.query, 60)} is not in the transcript; {_calls_named(look.found, look.whole)}"
            self.notify_once(look.notice, timeout=5, severity="warning")
            self._place_calls_found(look)
        elif not look.whole and look.slices > 1:  # (out of time: "No match" said less than it seems)
            total = len(look.session.tools)
            self.notify_once(f"{_quoted(look.query, 60)} is not in the transcript, nor in the detail of its first "
                             f"{look.next:,} calls (of {total:,}: the rest was not looked in)", timeout=4)
        elif look.slices > 1:  # (the search's notice said it was looking)
            self.notify_once(f"{_quoted(look.query, 60)} is not in the transcript, nor in any call's detail",
                             timeout=3)

    def _take_back(self, ending: str) -> None:
        """The notices on screen that end with ``ending`` go (none when it is "")."""
        for n in [n for n in self._notifications if ending and str(n.message).endswith(ending)]:
            self._unnotify(n)

    def _place_calls_found(self, look: _CallsSearch) -> None:
        """The calls found, on the transcript's border where a search's place is ("'total':
        block 3 of 9, n N"), for as long as the search is on: the notice goes."""
        if look.done and look.found:
            calls = look.found
            which = (f"call {calls[0] + 1:,}" if len(calls) == 1 else
                     f"calls {calls[0] + 1:,} and {calls[1] + 1:,}" if len(calls) == 2 and look.whole else
                     f"calls {calls[0] + 1:,}, {calls[1] + 1:,} and more")
            self._search_place(f"{_quoted(look.query, 40)}: in the detail of {which}, n N")

    def _calls_showing(self, look: _CallsSearch, until: float) -> None:
        """The calls of the search's session whose detail shows its query where the transcript
        does not (a command's output, a file read, an edit's text), in order, from where it
        was: until ``until`` (one call at least), or CALLS_FOUND_MOST of them."""
        s, q = look.session, look.folded
        look.slices += 1
        big = CALLS_FIRST_BYTES if look.slices == 1 else CALLS_BIG_BYTES  # (the first: in the key press)
        sections = self.model.format_of(s).tool_sections
        found = look.found
        tools = s.tools
        taken = 0
        while look.next < len(tools) and len(found) < CALLS_FOUND_MOST:
            t = tools[look.next]
            size = sum(ref_span(ref)[1] for ref in (t.start_ref, t.end_ref) if ref is not None)
            if size >= big and (taken or big < CALLS_BIG_BYTES):
                break  # (a slice of its own; not the first)
            look.next += 1
            taken += 1
            shown = shown_sections(t, self._read_event(t.start_ref), self._read_event(t.end_ref), sections, look.raw)
            if sections_show(shown, q):
                found.append(t.index)
            if time.perf_counter() >= until:
                break
        look.whole = look.next >= len(tools)
        look.done = look.whole or len(found) >= CALLS_FOUND_MOST

    def _open_call_found(self, step: int) -> bool:
        """n (N) after a search that found nothing in the transcript but in calls' detail: the
        next (previous) of those calls after the one selected, full screen, its matches found.
        False when there are none for this search."""
        s, look = self.session, self._search_calls
        if (s is None or look is None or look.session is not s or look.query != self.timeline.search
                or look.raw != self.detail.raw):  # (r since: the calls were looked in as they were shown)
            return False
        calls = self._calls_named(s)
        if not calls:
            if look.done:
                return False
            self.notify_once(f"Looking for {_quoted(look.query, 40)} in the calls' output…", timeout=2)
            return True  # (not searched again: that would start the look over)
        i = self._next_call_found(s, -2, step)
        if i is None:  # pragma: no cover - calls is not empty
            return False
        if self.timeline.select_tool(i):
            self.timeline.follow = False
        # (Said: the notice covered the view's border, where its matches are counted.)
        self._take_back(look.notice)
        self._open_full_screen(s, i, query=self.timeline.search,
                               next_found=lambda at, step: self._next_call_found(s, at, step),
                               named=lambda: self._calls_named(s))
        return True

    def _calls_named(self, s: Session) -> list[int]:
        """The calls the search of session ``s`` found in their detail, in order ([] when the
        search is another's now)."""
        look = self._search_calls
        if look is None or look.session is not s or look.query != self.timeline.search:
            return []
        return [c for c in look.found if c < len(s.tools)]  # (a replay's seek back may have taken some)

    def _next_call_found(self, s: Session, at: int, step: int) -> int | None:
        """The call after (``step`` 1) or before (-1) call ``at`` among those the search of
        session ``s`` found in their detail, round (``at`` -2: the call opened last, else the
        one selected); None when the search is another's now, or found no other call."""
        calls = self._calls_named(s)
        if not calls or (at != -2 and all(c == at for c in calls)):
            return None
        look = self._search_calls
        assert look is not None  # (calls are its)
        if at == -2:  # from the call opened last (a filter may hide it: the list's selection did not move)
            at = look.opened if look.opened > -2 else self.timeline.selected_index()
        if step > 0:
            i = next((c for c in calls if c > at), calls[0])
        else:
            i = next((c for c in reversed(calls) if c < at), calls[-1])
        look.opened = i
        return i

    def _thought_has(self, s: Session, b, q: str, draw_until: float) -> bool:
        """Whether a hidden thought, once shown (t), is a hit for ``q`` (folded), as
        :meth:`_look_in` tells it (a hint said "__init__" was in one, drawn "init")."""
        return self._markdown_has(s, b, q, fold(self.transcript.shown_text(b)), draw_until, thinking=True)

    def _markdown_has(self, s: Session, b, q: str, hay: str, draw_until: float,
                      thinking: bool | None = None) -> bool:
        """Whether ``q`` (folded) is in block ``b``, drawn from Markdown (its text, folded:
        ``hay``), as it is drawn: "**Tax" and ".*" (in "subtotal.**") were found where the
        Markdown's own marks are, drawn as "Tax" and "subtotal.", and nothing was marked.  A
        query with Markdown's characters draws the block to tell, until ``draw_until`` ("_" may
        be in every message); then, and for another query, its text less the marks that are
        never drawn tells it.  ``thinking``: a thought drawn shown (see Transcript.shows)."""
        if _MD_SYNTAX.search(q) is None or time.perf_counter() >= draw_until:
            return q in _as_shown(hay) or (_MD_SYNTAX.search(q) is None and q in hay)
        return _may_show(q, hay) and self.transcript.shows(s, b, q, thinking=thinking)

    def _find_hits(self, s: Session, q: str) -> list[int]:
        """Blocks of ``s`` whose shown text contains ``q`` (folded, as it is marked: see render.fold); tool calls by their
        label, target, summary and error."""
        self._search_seen = (id(s), s.events, self.transcript.show_thinking)
        return self._hits_in(s, q)

    def _elsewhere(self, s: Session, q: str) -> str:
        """" (session 2 has 3: > goes there)": the search covers the session on show only; the
        keys named go to the nearest other session with a match (see :meth:`_session_with_hits`),
        on either side.  Past two such sessions, their number ("299 other sessions": a list of
        them was cut off on the border)."""
        if len(self.model.sessions) < 2:
            return ""
        found = [(o.index, n) for o in self.model.sessions if o is not s and (n := len(self._hits_in(o, q)))]
        if not found:
            return ""
        if len(found) <= 2:
            others = ", ".join(f"session {i + 1} has {n:,}" for i, n in found)
        else:
            others = f"{len(found):,} other sessions have matches"
        sides = {i < s.index for i, _ in found}
        keys = "< > go" if len(sides) == 2 else ("< goes" if True in sides else "> goes")
        return f" ({others}: {keys} there)"

    def _session_with_hits(self, step: int) -> int | None:
        """While a search is on, the nearest session before (``step`` -1) or after this one in
        which it finds something (None: no search, or none that way)."""
        q, s = self.timeline.search, self.session
        if not q or s is None:
            return None
        sessions = self.model.sessions
        order = range(s.index - 1, -1, -1) if step < 0 else range(s.index + 1, len(sessions))
        folded = fold(q)
        return next((i for i in order if self._hits_in(sessions[i], folded)), None)

    def _hits_in(self, s: Session, q: str) -> list[int]:
        """Blocks of ``s`` that ``q`` (folded) is found in; kept while the run does not change,
        for < and > to go from run to run at once (each looked through every run again: 0.6 s a
        key on a 400k-line file)."""
        key = (s.index, q, self.transcript.show_thinking)
        state = (s.events, len(s.blocks), s.ended)
        kept = self._hits_kept.get(key)
        if kept is not None and kept[0] == state:
            return kept[1]
        hits = self._look_in(s, q)
        if len(self._hits_kept) > HITS_KEPT:
            self._hits_kept.clear()
        self._hits_kept[key] = (state, hits)
        return hits

    def _look_in(self, s: Session, q: str, only: list[int] | None = None) -> list[int]:
        """Blocks of ``s`` (``only`` these) that ``q`` (folded) is found in."""
        hits = []
        draw_until = time.perf_counter() + DRAW_TO_SEARCH_S  # (see _markdown_has)
        for i in range(len(s.blocks)) if only is None else only:
            b = s.blocks[i]
            if b.kind == "tool":
                t = s.tools[b.ref]
                shown = call_target(t, s, self.model.format_of(s).TARGET_FORMS)
                hay = f"{t.heading} {t.short} {shown} {t.detail} {t.error_text}"  # as shown
            elif b.kind == "thinking" and not self.transcript.show_thinking:
                continue
            else:
                hay = self.transcript.shown_text(b)  # (not what a huge text leaves undrawn)
            hay = fold(hay)
            markdown = self.transcript.as_markdown(b)
            if self._markdown_has(s, b, q, hay, draw_until) if markdown else q in hay:
                hits.append(i)
        return hits

    def action_search_next(self, step: int) -> None:
        hits = self._search_hits
        s = self.session
        if not hits and s is not None and self._search_calls is not None:
            if self._search_seen != (id(s), s.events, self.transcript.show_thinking):
                # Shown since (t) or arrived: the transcript first, then the calls.
                hits = self._search_hits = self._find_hits(s, fold(self.timeline.search))
                self._search_pos = -1
            if not hits and self._open_call_found(step):
                return
        if not hits and self.timeline.search and s is not None:
            # No match before; what is shown may have changed since (t showed the thinking,
            # more of the run arrived): search again.
            self.run_search(self.timeline.search)
            return
        if not hits or s is None:
            if not self.timeline.search:
                self.notify("No search yet: / searches.", timeout=1.5)
            elif s is None:  # (a replay at its start; a stream before its first event)
                self.notify_once(f"No match for {_quoted(self.timeline.search, 60)}: no run is shown yet.",
                                 timeout=2, severity="warning")
            return
        if self._search_seen != (id(s), s.events, self.transcript.show_thinking):
            # More of the run arrived (new blocks, or text or a call's summary that grew in
            # place), or the thinking was shown or hidden: search again, and go on from the
            # block the last step showed.
            at = hits[self._search_pos] if 0 <= self._search_pos < len(hits) else -1
            hits = self._search_hits = self._find_hits(s, fold(self.timeline.search))
            if not hits:
                self.run_search(self.timeline.search)
                return
            # From the last hit at or before it (forward) or the first at or after it (back), the
            # step lands on the hit after (before) that block, whether or not it is still a hit.
            self._search_pos = (bisect_right(hits, at) - 1) if step > 0 else bisect_left(hits, at)
        wrapped = not 0 <= self._search_pos + step < len(hits) and self._search_pos >= 0
        self._search_pos = (self._search_pos + step) % len(hits)
        bi = hits[self._search_pos]
        tr = self.transcript
        old = tr.highlight_block
        tr.highlight_block = bi
        tr.highlight_query = self.timeline.search
        if self._followed_before_search is None:
            self._followed_before_search = (tr.follow, self.timeline.follow)
        tr.follow = False
        tr.update_blocks({bi, old} - {-1})
        tr.scroll_to_block(bi, top=False)
        tr.scroll_to_text(bi, self.timeline.search)
        b = s.blocks[bi]
        if b.kind == "tool":
            self.timeline.follow = False
            self.timeline.select_tool(b.ref)
        # Where the step left the panes, once laid out: the search box it closed gave the
        # transcript its rows back, and a place past the new end moved up (read at once, a
        # cleared search took it for the user's own scrolling and did not follow again).
        self.call_after_refresh(self._note_search_left)
        # Hits are blocks (a message, a call), each with its matches marked: say so, on the
        # transcript's border (as the full-screen detail does).  Toasts, one a step, piled up
        # over the panes: a terminal keeps a removed toast's cells until they are drawn over.
        where = (" (from the top)" if step > 0 else " (from the end)") if wrapped else ""
        self._search_place(f"{_quoted(self.timeline.search, 40)}: block {self._search_pos + 1:,} of {len(hits):,}{where}, n N"
                           f"{self._search_elsewhere}")

    def _note_search_left(self) -> None:
        self._search_left = (self.transcript.place(), self.timeline.selected_index())

    def _search_place(self, text: str) -> None:
        """Where the transcript's search is, on its bottom border ("" clears it)."""
        self.transcript.border_subtitle = Content(text)

    # -- command palette ----------------------------------------------------------------------------
    def get_system_commands(self, screen: Screen) -> Iterable[SystemCommand]:
        for command in super().get_system_commands(screen):
            # Textual's key panel lists its own stock keys (our help lists ours), and its
            # screenshot goes to ~/Downloads, failing where there is none: replaced below.
            if command.title not in ("Keys", "Screenshot") and not (
                    isinstance(screen, DetailScreen) and command.title in ("Maximize", "Minimize")):
                # (the full-screen detail is one view already: Maximize did nothing there, but
                # then Esc restored it, and a second Esc closed it)
                yield command
        yield SystemCommand("Screenshot", "Save an SVG picture of the screen (to ~/Downloads, or here)",
                            lambda: self.set_timer(0.1, self.save_screen_picture))
        if isinstance(screen, DetailScreen):
            # Its own commands: the main screen's (its search box, its filters) went to a pane
            # hidden under it, and the keys were caught in a box no one could see.
            yield from screen.system_commands()
            yield SystemCommand("Help: keys", "Every key of agent-viewer (?)", self.action_help)
            return
        yield SystemCommand("Toggle thinking", "Show or hide the model's thinking", self.action_toggle_thinking)
        yield SystemCommand("Toggle raw JSON", "Raw events of the selected call", self.action_toggle_raw)
        yield SystemCommand("Toggle follow", "Keep the newest output in view", self.action_toggle_follow)
        yield SystemCommand("Stream health", "Malformed lines and unknown events", self.action_health)
        yield SystemCommand("Search", "Search the transcript and the tool calls (/)", self.action_search)
        yield SystemCommand("Open the selected tool call", "Full screen, with its arguments and output (Enter)",
                            self.action_open_selected)
        yield SystemCommand("Help: keys", "Every key of agent-viewer (?)", self.action_help)
        yield SystemCommand("Copy the selected call's command", "Its command, path or pattern, whole, to the clipboard (y)",
                            self.action_copy)
        yield SystemCommand("Copy the message on screen", "The transcript's last message in view, or its search "
                            "match, as written (y in the transcript)", self.transcript.action_copy_message)
        yield SystemCommand("Clear filters", "Show every tool call", self.action_clear_filters)
        for status in self._statuses():
            words, did = STATUS_COMMANDS.get(status, (f"{status} calls", f"are {status}"))
            yield SystemCommand(f"Filter: {words}", f"Only the tool calls that {did}",
                                lambda st=status: self._set_status_filter(st))
        for kind in self._kinds():
            name = markup_literal(one_line(f"{kind_name(self.session, kind)} ({kind})", 80))
            yield SystemCommand(
                f"Filter: kind {name}", f"Only {name} calls", lambda k=kind: self._set_kind_filter(k)
            )
        for s2 in self.model.sessions if len(self.model.sessions) > 1 else ():  # (one: nowhere to go)
            yield SystemCommand(
                f"Session {s2.index + 1}", f"{s2.state}, {len(s2.tools):,} tool call{'' if len(s2.tools) == 1 else 's'}",
                lambda i=s2.index: self.show_session(i),
            )

    def _set_status_filter(self, status: str) -> None:
        self.timeline.status_filter = status
        self.timeline.refilter(by_user=True)

    def _set_kind_filter(self, kind: str) -> None:
        self.timeline.kind_filter = kind
        self.timeline.refilter(by_user=True)
