"""``--replay``: the live UI driven by a :class:`~viewer.core.replay.Replay`."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable

from rich.text import Text
from textual.app import App, ComposeResult, SystemCommand
from textual.binding import Binding
from textual.events import Click
from textual.message import Message
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Footer, Input

from viewer.core.decode import Malformed
from viewer.core.detail import fmt_duration
from viewer.core.feed import Feed, StoreFeed
from viewer.core.model import Change, StreamModel
from viewer.core.replay import ERROR, TOOL_START, Replay
from viewer.ui.app import AgentViewerApp, DeltaBatch, freeze_loaded
from viewer.ui.render import fmt_clock
from viewer.ui.screens import REPLAY_QUIT, DetailScreen, HelpScreen

#: The progress bar's length, at least, before the counters make room for it.
BAR_MIN = 24


class ReplayBar(Widget):
    """Play state, speed, position and a clickable progress bar."""

    DEFAULT_CSS = """
    ReplayBar {
        height: 1;
        background: $panel;
        padding: 0 1;
    }
    """

    class Seek(Message):
        def __init__(self, fraction: float) -> None:
            self.fraction = fraction
            super().__init__()

    class Toggle(Message):
        """The play/pause mark was clicked."""

    def __init__(self, replay: Replay, **kwargs) -> None:
        super().__init__(**kwargs)
        self.replay = replay
        self._bar = (0, 0)  # x range of the bar

    def render(self) -> Text:
        p = self.replay.progress()
        state = "▶" if p.playing else ("■" if p.position >= p.total else "❚❚")
        speed = f"{p.speed:g}×"
        left = f"{state:<2} {speed:>5}  "  # ▶ ■ and ❚❚: one width, the bar does not move
        # Events, as h counts them (a malformed line is a record the replay passes over).
        done, of = (p.position, p.total) if p.events is None else (p.events, p.event_total)
        total = f"{of:,}"
        # The position is padded to the width of the total: the bar keeps its length as it plays.
        count = f"{done:>{len(total)},}/{total}"
        duration = fmt_clock(p.duration)
        clock = f"  {fmt_clock(p.time):>{len(duration)}} / {duration}"  # (the bar keeps its length)
        # The file is still being read: the total and duration grow.
        reading = "" if p.reading is None else f"  reading {int(p.reading * 100)}%"
        room = self.size.width - 2 - len(left)
        # A narrow window keeps the bar long enough to click on: the words go first, then the times.
        for right in (f"  event {count}{clock}{reading}", f"  {count}{clock}{reading}", f"  {count}{reading}"):
            if room - len(right) >= BAR_MIN:
                break
        width = max(10, room - len(right))
        filled = int(round(p.played * width))  # (a click goes to a play time too)
        self._bar = (1 + len(left), 1 + len(left) + width)
        t = Text(no_wrap=True)
        t.append(left, style="bold")
        t.append("━" * filled, style="bold green")
        t.append("━" * (width - filled), style="bright_black")
        t.append(right)
        return t

    def on_click(self, event: Click) -> None:
        start, end = self._bar
        if end > start and start <= event.x < end:  # the first cell is the start, the last the end
            self.post_message(self.Seek((event.x - start) / max(1, end - start - 1)))
        elif event.x < start - 1:  # ▶ ❚❚ ■ and the speed: as Space (it did nothing)
            self.post_message(self.Toggle())


#: The replay's jumps: ] } [ {.
_JUMPS = ("next_tool", "next_error", "prev_tool", "prev_error")
#: The replay's priority keys that are also an Input's editing keys.
_REPLAY_MOVES = frozenset({"play_pause", "step", "skip", "seek_start", "seek_end", "speed",
                           *_JUMPS})

_SPEED = Binding.Group("Speed")

REPLAY_HELP = [
    ("Replay", ""),
    ("Space", "play / pause"),
    ("+ -", "faster / slower (0.25× to 64×)"),
    (". →  , ←", "one event forward / back (over the full-screen detail, forward only: Esc first to step back)"),
    ("Shift+→  Shift+←", "ten seconds of play time on / back"),
    ("] }", "next tool call / next error (a seek, from any pane)"),
    ("[ {", "previous tool call / previous error"),
    ("Home End", "start / end of the run, End following again (in the full-screen detail: its top and bottom)"),
    ("click the bar", "seek (any move pauses the replay; Space plays on from there)"),
    ("click ▶ ❚❚", "play / pause (the palette, Ctrl+P, has the replay's keys too)"),
    ("", "the bar's clock is play time: pauses longer than --idle-limit (3 s) are shortened; "
         "the header's is the run's own (it runs fast through a shortened pause, and says so)"),
]


#: A replay that plays in less than this says so (its events all came at once).
INSTANT_S = 0.5
#: A seek holds the file's reading until the view is drawn there, or at most this long.
HOLD_MOST_S = 0.5


class ReplayApp(AgentViewerApp, inherit_bindings=False):
    """Plays a saved stream through the same model and UI as a live run."""

    # Notifications ("No error after this point") stand above the replay bar, not over it.
    # The compact footer (narrow windows) has no room after a group's label ("+ - Speed"):
    # one column, as after the other keys.
    CSS = """
    ToastRack { margin-bottom: 2; }
    Footer.-compact FooterLabel { margin-right: 1; }
    """

    BINDINGS = [
        Binding("space", "play_pause", "Play/pause", priority=True),
        # One footer entry, "+ - Speed": the footer has no room for two at 120 columns.
        # (Priority, as the other replay keys: over the full-screen detail they did nothing.)
        Binding("plus,equals_sign", "speed(1)", "Faster", group=_SPEED, priority=True),
        Binding("minus", "speed(-1)", "Slower", group=_SPEED, priority=True),
        Binding("full_stop,right", "step(1)", "Step", show=False, priority=True),
        Binding("comma,left", "step(-1)", "Back", show=False, priority=True),  # (, and .: a video player's)
        # (From a keyboard-only trial: a seek by time needed the mouse, on the bar.)
        Binding("shift+right", "skip(10)", "10 s on", show=False, priority=True),
        Binding("shift+left", "skip(-10)", "10 s back", show=False, priority=True),
        # (Priority, as ← and →: a key that is not went round the widgets first, and a ← typed
        # just after ] was done before it, then ] undid it: from a trial.)
        Binding("right_square_bracket", "next_tool", "Next tool", show=False, priority=True),
        Binding("right_curly_bracket", "next_error", "Next error", show=False, priority=True),
        Binding("left_square_bracket", "prev_tool", "Previous tool", show=False, priority=True),
        Binding("left_curly_bracket", "prev_error", "Previous error", show=False, priority=True),
        Binding("home", "seek_start", "Start", show=False, priority=True),
        Binding("end", "seek_end", "End", show=False, priority=True),
        # Then the app's (not inherited: the footer lists the replay's keys first, so a narrow
        # window cuts the others).
        *App.BINDINGS,
        *AgentViewerApp.BINDINGS,
    ]

    def __init__(self, replay: Replay, feed: Feed, clock: Callable[[], float] | None = None,
                 frame_interval: float | None = None, start_reading: bool = True) -> None:
        """``start_reading``: read the rest of the replay's file (its index) once the app is on
        screen (tests that read it themselves say no)."""
        kwargs = {} if frame_interval is None else {"frame_interval": frame_interval}
        super().__init__(feed, clock=clock, model=replay.model, **kwargs)
        self.replay = replay
        self._generation = replay.generation
        self._read = False  # the whole file has been read
        self._start_reading = start_reading
        self._drawn = None  # what the bar showed last
        self._elapsed_drawn = ""  # and the header's clock
        self._told_changed = False
        self._looked_if_written = False  # (the file, once played to its end: see pump)
        self._end_pending = False  # End was pressed while the file was read: the end, once it is
        self._holds = 0  # seeks that hold the file's reading (see _seek_by)
        self._held_at = 0.0

    def quit_status(self) -> tuple[int, str]:
        """A replay is not the run: quitting it says nothing of how the run went."""
        return 0, ""

    def compose(self) -> ComposeResult:
        for widget in super().compose():
            if isinstance(widget, Footer):
                yield ReplayBar(self.replay, id="replaybar")
            yield widget

    @property
    def loaded(self) -> bool:
        return True

    def _health_state(self) -> tuple[StreamModel, int, str]:
        """The health screen counts what is played (from a trial: at event 36 of 88 it read "36
        events · Every line parsed into a known event." as if of the whole file): so it says."""
        model, blank, reading = super()._health_state()
        p = self.replay.progress()
        done, of = (p.position, p.total) if p.events is None else (p.events, p.event_total)
        if done < of or p.reading is not None:
            more = f" read so far ({int(p.reading * 100)}% of the file)" if p.reading is not None else ""
            reading = (f"The replay is at event {done:,} of the {of:,}{more}: this is what was played "
                       "so far (Esc, then End plays to the end).")
        return model, blank, reading

    def blank_lines(self) -> int:
        """The blank lines among those played (h said a file's 7 blank lines at its start, from
        a trial): the lines up to the last one played that no record holds."""
        r, index = self.replay, self.replay.index
        if index is None:
            return 0
        if r.at_end and index.complete:  # (with those after the last record)
            return index.ingest.decoder.blank_lines
        records, i = r.records, r.position - 1
        while i >= 0 and not records.line_at(i):  # (a restart has no line)
            i -= 1
        m = self.model
        return max(0, records.end_line_at(i) - m.lines_in_events - m.malformed_lines) if i >= 0 else 0

    @property
    def bar(self) -> ReplayBar:
        return self._panes["bar"]  # type: ignore[return-value]

    def after_mount(self) -> None:
        self._panes["bar"] = self.query_one(ReplayBar)
        self.transcript.call_keys = False  # (] and [ play to the next call, the transcript's focus or not)
        self.header.live_label = "▶ REPLAY" if self.replay.playing else "❚❚ PAUSED"  # (as pump sets it)
        self._show_going_to()
        self.header.live_source = True
        self.header.run_now = self.timeline.run_now = self.replay.run_now_ms
        if self.replay.arrivals is not None:
            # A --save copy: its records come with their arrival times, and the clocks that
            # read the time live (a run's so far, a call's running time) read the recording's.
            self.header.clock = self.timeline.clock = self.replay.arrival_now
        self.timeline.start_ms = lambda t: self.replay.event_ms_at_line(t.start_line)
        self.replay.tick(self.clock())
        self._sync_after_seek()
        index = self.replay.index
        if index is not None and self._start_reading:
            # After the first paint: reading a big file competes for the one interpreter
            # with starting the app (the first screen of 1M events came after 1.5-5 s).
            self.call_after_refresh(index.start)
        if self.replay.start is not None:
            self.notify(f"Going to --start-at {self.replay.start.value} once the file is read that far.",
                        title="Replay", timeout=4, markup=False)

    def action_help(self) -> None:
        self.clear_notifications()
        self.push_screen(HelpScreen(REPLAY_HELP, page_keys="PgUp PgDn  g G", call_keys=False,
                                    instead=dict([REPLAY_QUIT])))

    def pump(self) -> None:
        self._ticks += 1
        if self._holds and time.monotonic() - self._held_at > HOLD_MOST_S:
            self._release(self._holds)
        label = "▶ REPLAY" if self.replay.playing else "❚❚ PAUSED"
        if label != self.header.live_label:
            self.header.live_label = label
            self.header.refresh()
        ended = self.model.ended
        index = self.replay.index
        if index is not None:
            self._check_index(index)
            self._go_on_to_the_end()
        if self.replay.start is not None:
            why = self.replay.settle_start()  # (once there, the new model is shown just below)
            if why:
                where = "played from the start" if self.replay.playing else "at the start, paused"
                self.notify(f"{why}: {where}.", title="--start-at", severity="error", timeout=8, markup=False)
                self.header.start_missed = why  # (and in the header, until a move)
                self.header.refresh()
        self._show_going_to()
        deltas = self.replay.tick(self.clock())
        self._absorb_deltas(deltas)
        if deltas and not self._focus_placed:
            self._place_focus()
        if self.model.ended and not ended and not deltas:
            # The file was read to its end while the replay waited at the last record read.
            self._refresh_all(self._end_flags(), None, None)
            if self.view_index < 0:  # no run at all (the detail pane says so, not "yet")
                self._show_no_run()
        if self._read and self.replay.at_end and not self._looked_if_written and self.model.current is not None:
            # Played to the end of a run without a result: the file may still be written (a
            # trial replayed one an agent was writing, and was not told).
            self._looked_if_written = True
            if index is not None and not index.error and isinstance(self.feed, StoreFeed):
                self.feed.read_to = index.bytes_read  # (read cut short by an error: not "grown")
                self.feed.read_at = index.read_at
            self._tell_if_still_written()
        if not deltas and self.replay.playing:  # (paused, a spinner that turns says it plays)
            self._tick_animations()
        s = self.session
        elapsed = self.header.elapsed(s) if s is not None else ""
        pause = self.replay.shortened_pause() if self.replay.playing else None
        # A pause played shortened says so (its clock runs fast: it seemed to stop, then jump).
        note = "" if pause is None else f"⏩ a {fmt_duration(int(pause * 1000))} pause, played shortened"
        if elapsed != self._elapsed_drawn or note != self.header.note:  # (the run's clock goes on between events)
            self._elapsed_drawn = elapsed
            self.header.note = note
            self.header.refresh()
        self._sync_layout()
        self._refresh_bar()

    def _show_going_to(self) -> None:
        """The header says where a --start-at, or End, that waits for the file is going."""
        going_to = self.replay.start.value if self.replay.start is not None else "end" if self._end_pending else ""
        if going_to != self.header.going_to:
            self.header.going_to = going_to
            self.header.refresh()

    def _refresh_bar(self) -> None:
        """Only when what it shows changed (a paused replay redrew it every frame: 7 % CPU)."""
        p = self.replay.progress()
        shown = (p.position, p.total, int(p.time), int(p.duration), round(p.played * self.bar.size.width),
                 p.speed, p.playing,
                 None if p.reading is None else int(p.reading * 100), self.bar.size)
        if shown != self._drawn:
            self._drawn = shown
            self.bar.refresh()

    def _check_index(self, index) -> None:
        if not self._read and self.replay.input_ended:
            self._read = True
            freeze_loaded(index.total_bytes)  # the index and its copies stay to the end
            if index.error:
                self.header.extra = index.error
                self.header.refresh()
                self.notify(f"Reading stopped: {index.error}. What was read plays on.", title="Replay",
                            severity="error", timeout=10, markup=False)
            elif self.replay.total > 2 and self.replay.duration < INSTANT_S:
                # (From a new-user trial: it was at its end at once, and said nothing.)
                self.notify(f"This run plays in {self.replay.duration:.1f} s: its events came almost at once. "
                            "← and → step through it, an event at a time.", title="Replay",
                            timeout=8, markup=False)
        if index.records.changed and not self._told_changed:
            self._told_changed = True
            self.header.extra = "the file changed since it was read"
            self.header.refresh()
            self.notify("The file changed since it was read: events read from it again are shown as "
                        "malformed lines (h).", title="Replay", severity="warning", timeout=10, markup=False)

    def _absorb_deltas(self, deltas) -> None:
        if self.replay.generation != self._generation:
            self._sync_after_seek()
            return
        if not deltas:
            return
        batch = DeltaBatch(self.view_index, self.timeline.follow)
        for d in deltas:
            batch.add(d)
        self.absorb(batch)
        if self.replay.input_ended and self.replay.at_end:  # (not at the end of what is read so far)
            self._refresh_all(batch.flags | self._end_flags(), None, None)
            if self.view_index < 0:
                self._show_no_run()
        elif self.view_index < 0 and self.model.malformed_lines:
            self._show_unplaced()

    def _show_unplaced(self) -> None:
        """Before the first run: its lines that are not events, as the live view lists them (a
        jump to one, }, left the transcript empty: from a trial)."""
        self.transcript.set_session(self.model.unplaced_view())

    @staticmethod
    def _end_flags() -> Change:
        return Change.HEADER | Change.TOOLS | Change.TRANSCRIPT

    def _sync_after_seek(self) -> None:
        """The replay moved back, or far forward from a copy of the model: show its new model
        from scratch, as a step there would have left the view: the newest run if that was on
        show and followed, and the call the user had selected (not following) if it is there."""
        if any(isinstance(screen, DetailScreen) for screen in self.screen_stack):
            while len(self.screen_stack) > 1:  # it showed a call of the old model (maybe under the help)
                self.pop_screen()
        tl = self.timeline
        newest = self.view_index < 0 or (tl.follow and self.view_index == len(self.model.sessions) - 1)
        picked = -1 if tl.follow else tl.selected_index()
        self._generation = self.replay.generation
        self.model = self.replay.model
        self.header.model = self.model
        n = len(self.model.sessions)
        view = n - 1 if newest else self.view_index if 0 <= self.view_index < n else n - 1
        same = view == self.view_index and view >= 0
        if same:
            self.show_session(view, same_run=True)
        else:
            self.show_session(view)
        if view < 0 and self.model.ended:
            self._show_no_run()
        elif view < 0 and self.model.malformed_lines:
            self._show_unplaced()
        if not (same and picked >= 0 and tl.select_tool(picked)):
            tl.action_last()
        self.search_kept()  # (Space playing again from the start, too: not only a seek's key)
        self.bar.refresh()

    # -- controls ------------------------------------------------------------------------------
    def _go_on_to_the_end(self) -> None:
        """End was pressed while the file was read: once it is, to its end."""
        if self._end_pending and self.replay.input_ended:
            self.action_seek_end()

    def _give_up_start(self) -> None:
        """The user moved (or played) while --start-at waited for the file: theirs wins.  (Once
        the file was read and it could not go there, the header stops saying so.)"""
        if self.header.start_missed:
            self.header.start_missed = ""
            self.header.refresh()
        if self._end_pending:  # (a move after End: it goes where the move went)
            self._end_pending = False
            self._show_going_to()
        start = self.replay.start
        if start is not None:
            self.replay.start = None
            self.notify(f"--start-at {start.value} given up: you took over first.", title="Replay", timeout=5,
                        markup=False)
            self._show_going_to()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in _REPLAY_MOVES and isinstance(self.focused, Input):
            return False  # ← → Home End Space + - edit the text of the search box or the palette
        if len(self.screen_stack) > 1 and action in ("seek_start", "seek_end", *_JUMPS):
            # Over the full-screen detail, the help or the health screen, Home and End are
            # theirs (top, bottom), and ] [ the detail's (the next call).  Space and a step
            # forward still play on behind it; a step back says why it does not (see
            # _back_over_a_screen).
            return False
        return super().check_action(action, parameters)

    def _back_over_a_screen(self) -> bool:
        """A step back over the full-screen detail, the help or the health screen: it would show
        an earlier copy of the run, and close the detail; said, where the key did nothing."""
        if len(self.screen_stack) > 1:
            self.notify_once("A step back plays in the panes: Esc first.", timeout=2)
            return True
        return False

    def _seek(self, n: int) -> None:
        """To ``n`` records applied (paused)."""
        self._seek_by(lambda: self.replay.seek(n))

    def _seek_time(self, seconds: float) -> None:
        """To play time ``seconds`` (paused)."""
        self._seek_by(lambda: self.replay.seek_time(seconds))

    def _seek_by(self, seek: Callable[[], list]) -> None:
        self._give_up_start()
        self.replay.playing = False
        index = self.replay.index
        if index is not None and not index.complete:
            # Reading waits until the view is drawn there (see FileIndex.hold): released after
            # the next frame, or at a pump HOLD_MOST_S later (a callback never run must not
            # stop reading for good).
            index.hold += 1
            self._holds += 1
            self._held_at = time.monotonic()
            self.call_after_refresh(self._release, 1)
        self._absorb_deltas(seek())
        self.search_kept()
        self.bar.refresh()

    def _release(self, n: int) -> None:
        n = min(n, self._holds)
        index = self.replay.index
        if n and index is not None:
            self._holds -= n
            index.hold -= n

    def action_play_pause(self) -> None:
        self._give_up_start()
        r = self.replay
        if r.input_ended and not r.playing and not r.events().count:
            # (From a trial: an empty file "played" for good at event 0/0; one of lines that are
            # not events said "Playing again from the start".)
            if r.position < r.total:
                self._seek(r.total)  # (its lines are listed, as at the end of a play)
            self.notify_once("Nothing to play: the file holds no events"
                             + (" (the transcript lists its lines)." if r.total else "."), timeout=4)
            return
        was_generation = self.replay.generation
        again = self.replay.toggle(self.clock())
        if self.replay.generation != was_generation:
            self._sync_after_seek()
        if again:  # (at 64x a run plays again in a second: it looked as if Space did nothing)
            self.notify(f"Playing again from the start, at {self.replay.speed:g}×.", title="Replay",
                        timeout=3)
        self.bar.refresh()

    def action_speed(self, step: int) -> None:
        before = self.replay.speed
        if self.replay.faster(step) == before:  # (the key did nothing, and said nothing)
            self.notify_once(f"{before:g}× is the {'fastest' if step > 0 else 'slowest'} speed.", timeout=2)
        self.bar.refresh()

    def action_step(self, n: int) -> None:
        if n < 0 and self._back_over_a_screen():
            return
        to = self.replay.step_target(n)
        if to < 0:
            self.notify_once("This is the start of the run.", timeout=2)
        elif to > self.replay.total:
            more = "" if self.replay.input_ended else " read so far (the file is still being read)"
            self.notify_once(f"This is the end of the run{more}.", timeout=2)
        self._seek(to)

    def action_seek_start(self) -> None:
        self._seek(0)

    def action_seek_end(self) -> None:
        self._seek_by(self.replay.seek_end)
        if not self.replay.input_ended:
            # (the end of what is read so far: at once, the first events not read yet, End
            # left the replay at its start, paused: from a trial)
            self._end_pending = True
            self._show_going_to()
        # The end is asked to be seen: both panes follow again (a search, or a move up, had
        # stopped them, and End was no way back, as it is outside a replay).
        self._follow(transcript=True, tools=True)

    def action_skip(self, seconds: float) -> None:
        """Shift+→ and Shift+←: ten seconds of play time on or back (paused, as a click on
        the bar)."""
        r = self.replay
        if seconds < 0 and self._back_over_a_screen():
            return
        if r.duration <= 0:  # (no event has a time: there is no play time to move in)
            self.notify_once("This recording has no times: → and ← step an event at a time.", timeout=2)
            return
        to = min(max(0.0, r.clock_time + seconds), r.duration)
        if to <= 0:
            self._seek(0)  # the start, before the first event (as Home)
        else:
            self._seek_time(to)

    def _jump(self, mark: int, what: str, back: bool = False) -> None:
        find = self.replay.prev_marked if back else self.replay.next_marked
        i = find(mark, self.model.format.interpret)
        if i is None:
            more = "" if back or self.replay.input_ended else " yet (the file is still being read)"
            self.notify_once(f"No {what} {'before' if back else 'after'} this point{more}", timeout=2)
            return
        ev = self.replay.events()
        # (with the lines after it that are not events, as a step goes; a line before the first
        # event, on its own: a step takes it with that event)
        self._seek(max(i + 1, ev.after(ev.within(i + 1))))
        # Show the run that record went to, and select the call it is of: with calls running
        # side by side, following selects the newest one, not the one that failed.  (Once a
        # key press: a scan of the run's calls from the newest.)
        # (the run of the record gone to: with runs interleaved, not always the latest started;
        # a line that is not an event is shown in the latest)
        m = self.model
        line = self.replay.line_of(i)
        s = (m.current if isinstance(self.replay.records[i], Malformed) else m.last_run) or m.current
        if not line or s is None:
            return
        if s.index != self.view_index:
            self.show_session(s.index)
            self.search_kept()  # (another run: its border says the search is on)
        tl = self.timeline
        for t in reversed(s.tools):
            if line in (t.start_line, t.end_line):
                hidden = tl.filtered and not tl.shows(t)
                if hidden:  # (the detail showed another call, and the failure was nowhere in the list)
                    tl.status_filter, tl.kind_filter = "all", ""
                    tl.refilter()
                    self.notify_once("The tool list's filter is off: it hid the call gone to.", timeout=3)
                newest = t.index == len(s.tools) - 1
                if hidden or not (newest and tl.follow):  # (the newest, while following: selected anyway)
                    tl.follow = newest  # (not following, ] went on and the list stayed where it was)
                    tl.select_tool(t.index)
                break

    def action_next_tool(self) -> None:
        self._jump(TOOL_START, "tool call")

    def action_next_error(self) -> None:
        self._jump(ERROR, "error")

    def action_prev_tool(self) -> None:
        self._jump(TOOL_START, "tool call", back=True)

    def action_prev_error(self) -> None:
        self._jump(ERROR, "error", back=True)

    def on_replay_bar_toggle(self, message: ReplayBar.Toggle) -> None:
        self.action_play_pause()

    def get_system_commands(self, screen: Screen) -> Iterable[SystemCommand]:
        yield from super().get_system_commands(screen)
        # (The replay's keys, in the palette too: it offered none.)
        yield SystemCommand("Replay: play / pause", "Space", self.action_play_pause)
        yield SystemCommand("Replay: faster speed", "+", lambda: self.action_speed(1))
        yield SystemCommand("Replay: slower speed", "-", lambda: self.action_speed(-1))
        yield SystemCommand("Replay: start", "Home", self.action_seek_start)
        yield SystemCommand("Replay: end", "End", self.action_seek_end)
        yield SystemCommand("Replay: step forward", ". or →", lambda: self.action_step(1))
        yield SystemCommand("Replay: step back", ", or ←", lambda: self.action_step(-1))
        yield SystemCommand("Replay: next tool call", "]", self.action_next_tool)
        yield SystemCommand("Replay: previous tool call", "[", self.action_prev_tool)
        yield SystemCommand("Replay: 10 s on", "Shift+→", lambda: self.action_skip(10))
        yield SystemCommand("Replay: 10 s back", "Shift+←", lambda: self.action_skip(-10))
        yield SystemCommand("Replay: next error", "}", self.action_next_error)
        yield SystemCommand("Replay: previous error", "{", self.action_prev_error)

    def on_replay_bar_seek(self, message: ReplayBar.Seek) -> None:
        r = self.replay
        if message.fraction <= 0 or r.duration <= 0:  # (the first cell: before the first event)
            self._seek(int(round(message.fraction * r.total)))
        else:
            self._seek_time(message.fraction * r.duration)
