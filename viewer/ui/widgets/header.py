"""Session header: who ran what, where, and how it is going."""

from __future__ import annotations

import re
import time
from collections.abc import Callable

from rich.cells import cell_len
from rich.text import Text
from textual.widget import Widget

from viewer.core.detail import fmt_cache, fmt_cost, fmt_duration, fmt_tokens, fmt_wait
from viewer.core.formats.common import plural
from viewer.core.model import Session, StreamModel
from viewer.core.sanitize import one_line, uncoloured
from viewer.ui.render import BADGE, StillWritten, fmt_clock, keep_end, own_since, safe_line

STATE_STYLES = {
    "live": ("● LIVE", f"bold black on {BADGE['yellow']}"),
    "succeeded": ("✓ SUCCEEDED", f"bold black on {BADGE['green']}"),
    "failed": ("✗ FAILED", f"bold white on {BADGE['red']}"),
    "ended": ("◌ ENDED WITHOUT RESULT", f"bold black on {BADGE['grey']}"),
    "loading": ("… LOADING", f"bold black on {BADGE['cyan']}"),
    "foreign": ("? UNKNOWN FORMAT", f"bold black on {BADGE['yellow']}"),
}


#: The shortest form of the hint that a file may still be written (a narrow window's).
STILL_WRITTEN_SHORT = "⚠ still written? (--follow)   "

#: A live run that has sent nothing for this many seconds says so in the header.
QUIET_AFTER = 30
#: Cells a run's working directory is given before the fields after it in KEEP are shown.
CWD_ROOM = 24
#: The most cells a working directory's last folder needs to be shown (a longer one is cut).
CWD_MIN = 16
#: The agent's name, a field of the header's first line with no prefix and not bold.
AGENT_FIELD = "agent"
#: The working directory's place in KEEP (it is not one of the fields: it goes last, and
#: takes the room left).
CWD = "cwd"
#: What a narrow header keeps, first to last: the model (or the agent, when the run names
#: none: Codex's), the session, the working directory, then the agent, the mode and the key.
KEEP = ("", "session ", CWD, AGENT_FIELD, "mode ", "key ")


def _fields_width(fields: list[tuple[str, str]]) -> int:
    """The cells the header's fields take on its first line, with the gaps before them."""
    width, before = 0, ""
    for prefix, value in fields:
        width += 3 if before == AGENT_FIELD and not prefix else 2  # (" · " after the agent)
        width += (0 if prefix == AGENT_FIELD else cell_len(prefix)) + safe_line(value, 80).cell_len
        before = prefix
    return width


def _cwd_min(cwd: str) -> int:
    """The fewest cells a working directory (with no "/" at its end) is shown in: its last
    folder after "…/" (up to CWD_MIN); "…sor-spike" said less than the fields it had pushed off."""
    last = cwd.rsplit("/", 1)[-1]
    return min(cell_len(cwd), cell_len(last) + 2, CWD_MIN)


def _cwd_in(cwd: str, room: int) -> str:
    """A working directory in ``room`` cells: cut from its start, at a folder's
    ("…/invoice-tool")."""
    shown = keep_end(cwd, room)
    if shown.startswith("…") and shown[1:2] != "/" and "/" in shown[2:]:
        shown = "…" + shown[shown.index("/", 2):]
    return shown


def _keep(fields: list[tuple[str, str]], cwd: str, avail: int) -> tuple[list[tuple[str, str]], int | None]:
    """The fields of the header's first line that fit in ``avail`` cells with the working
    directory, taken in KEEP's order until one has no room, and shown in theirs; and the fewest
    cells the directory may be shown in (None: it is not shown).  A wider window only adds
    fields.  (From trials: at 80 columns the working directory was gone while "key login" and
    "mode def…" stayed; at 50 to 70, the agent, the key and the mode gave way to a directory
    that then did not fit either; passing over a field that had no room for the next, the agent
    came and went four times as a window widened.)"""
    cwd_min = _cwd_min(cwd) if cwd else None
    if _fields_width(fields) + (min(cell_len(cwd), CWD_ROOM) + 2 if cwd else 0) <= avail:
        return fields, cwd_min
    # (the agent ranks as the model when the run names none: Codex's, the agent is its name)
    named = any(p == "" for p, _ in fields)
    rank = {p: KEEP.index("" if p == AGENT_FIELD and not named else p) for p, _ in fields if p in KEEP}
    kept: list[tuple[str, str]] = []
    reserve = 0  # cells kept for the working directory, once its turn has come
    shown = None  # (the directory's turn has not come)
    for r in sorted(set(rank.values()) | ({KEEP.index(CWD)} if cwd else set())):
        if KEEP[r] == CWD:
            left = avail - _fields_width(kept) - 2
            if cwd_min is None or left < cwd_min:
                break
            shown = cwd_min
            # (Up to CWD_ROOM, and not its length once cut at a folder: that grows a folder at a
            # time, and a field after it came and went as a window widened, from a review.)
            reserve = min(left, CWD_ROOM, cell_len(cwd)) + 2
            continue
        trial = [f for f in fields if f in kept or rank.get(f[0]) == r]
        if r and _fields_width(trial) + reserve > avail:  # (the first is kept: cut if it must be)
            break
        kept = trial
    return [f for f in fields if f in kept or f[0] not in KEEP], shown


def _two_lines(a: Text, b: Text) -> Text:
    out = Text("\n", no_wrap=True, overflow="ellipsis").join([a, b])
    out.no_wrap = True
    out.overflow = "ellipsis"
    return out


#: A replay's End, pressed while the file is read, said until it is (see ReplayApp.action_seek_end).
GOING_TO_END = "going to the end once the file is read (a move or Space gives it up)"

_UUID = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-([0-9a-fA-F])[0-9a-fA-F]{3}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")
#: An id that is not a UUID is shown whole up to this many characters (then cut, with "…").
SHORT_ID = 16


def short_id(session_id: str | None) -> str:
    """A session id's start, as the agents' own lists show it: a UUID's first group.  A
    time-ordered UUID's (version 7: Codex's threads) is a timestamp that runs a minute
    apart share, so its second group is kept too ("019a2d7b-231d").  Another id is shown
    as it is, up to SHORT_ID characters: "sess-t93" read "sess", another id, as it seemed."""
    sid = session_id or "?"
    uuid = _UUID.fullmatch(sid)
    if uuid is None:
        return sid if len(sid) <= SHORT_ID else sid[:SHORT_ID - 1] + "…"
    return sid[:13] if uuid.group(1) == "7" else sid[:8]


class SessionHeader(Widget):
    DEFAULT_CSS = """
    SessionHeader {
        height: 2;
        padding: 0 1;
        background: $panel;
        text-wrap: nowrap;
        text-overflow: ellipsis;
    }
    """

    def __init__(self, clock: Callable[[], float], **kwargs) -> None:
        super().__init__(**kwargs)
        self.clock = clock
        self.model: StreamModel | None = None
        self.session: Session | None = None
        self.live_source = False
        #: Seconds since the input last changed (a followed file), when known.
        self.unchanged_for: Callable[[], float | None] | None = None
        self.blank_lines: Callable[[], int] = lambda: 0  # (the input's: see NO EVENTS)
        #: When the records a followed file held as it was opened had been read (see
        #: Feed.caught_up_at), and the wall clock (seconds since the epoch) to set a run's own
        #: times against, for such a run's clock.
        self.caught_up_at: Callable[[], float | None] | None = None
        self.wall: Callable[[], float] = time.time
        # (bytes read, total) while a saved file loads.  Not "loading": that is Textual's own
        # attribute, and setting it covers the widget with a loading animation.
        self.progress: tuple[int, int | None] | None = None
        self.started_at: float | None = None  # when a live source was opened
        self.source = ""  # and what it is ("standard input", a FIFO's path)
        self.extra = ""  # e.g. replay position, follow state
        self.refused = ""  # why the input was not read (a pipe of gzip, say): see Feed.refused
        self.live_label = ""  # replaces "● LIVE" (the replay says "▶ REPLAY")
        self.drawn: Session | None = None  # the session it drew last (the app waits for the first)
        self.going_to = ""  # a replay's --start-at that waits for the file to be read that far
        self.start_missed = ""  # why it could not go there, once the file was read (until a move)
        self.demo = False  # the bundled demo run: said first, so it is never taken for a real one
        #: A saved file that looks still written, and the command that reads on (None: not).
        self.still_written: StillWritten | None = None
        #: A replay's "now" by the events' clock (ms since the epoch), between its events too:
        #: a run's clock goes on through a pause (None: a live run's is the wall clock).
        self.run_now: Callable[[], float | None] | None = None
        self.note = ""  # said after the clock (a replay's "⏩ a 57.3 s pause, played shortened")

    @property
    def percent_loaded(self) -> int | None:
        """How much of a saved file is read, while it loads and its size is known."""
        if self.progress is None or not self.progress[1]:
            return None
        read, total = self.progress
        return min(100, read * 100 // total)  # (a file that grows as it is read: not "104%")

    def elapsed(self, s: Session) -> str:
        """The run's time, said after its badge: a clock ("00:28") while it runs or where it
        stopped, or the result's own duration ("in 21.5 s": said as a duration, since it is
        one and a clock that turned into "21.5 s" looked like another reading)."""
        if s.result is not None:
            took = fmt_duration(s.took_ms)
            if took:  # (else the clock below, if any)
                return f"in {took}"
        # A run that began in what a followed file held as it was opened: its events came at
        # once, whenever they were written (when it had been read, else None).
        read_at_open = self._read_at_open(s)
        if s.state == "live" and self.live_source and s.first_arrival is not None:
            # (--follow of a run under way: its clock from its first event, not from when the
            # viewer read it, when the run's times are this machine's)
            since = own_since(s.first_ms, self.wall()) if read_at_open is not None else None
            if since is not None:
                return fmt_clock(since)
            return fmt_clock(self.clock() - s.first_arrival)
        if s.state == "ended" and s.end_arrival is not None and s.first_arrival is not None and not (
            read_at_open is not None and s.first_ms is not None and s.last_ms is not None  # (its own, below)
        ):
            return fmt_clock(s.end_arrival - s.first_arrival)  # where the live clock stopped
        if s.state == "live" and self.run_now is not None:
            now = self.run_now()
            if now is not None:  # (before the run's first time: its clock has not started)
                return fmt_clock(max(0.0, now - s.first_ms) / 1000 if s.first_ms is not None else 0.0)
        if s.first_ms is not None and s.last_ms is not None:
            return fmt_clock((s.last_ms - s.first_ms) / 1000)
        return ""

    def _read_at_open(self, s: Session) -> float | None:
        at = self.caught_up_at() if self.caught_up_at is not None else None
        return at if at is not None and s.first_arrival is not None and s.first_arrival <= at else None

    def quiet_for(self, s: Session) -> str:
        """How long a live run has sent nothing, once that is QUIET_AFTER or more ("" before):
        a crashed agent and one that thinks look alike otherwise."""
        if s.state != "live" or not self.live_source or self.live_label or s.last_arrival is None:
            return ""
        gap = self.clock() - s.last_arrival
        unchanged = self.unchanged_for() if self.unchanged_for is not None else None
        if unchanged is not None:  # (a followed file's events read at the start came at once:
            gap = max(gap, unchanged)  # its last was written when the file last changed)
        read_at_open = self._read_at_open(s)
        if read_at_open is not None and s.last_arrival <= read_at_open:
            # ... and by its own time, as its clock is told (it read "02:00 · no event for 30 s"
            # of a run whose last event was written 1m47s before: from a trial)
            own = own_since(s.last_ms, self.wall())
            if own is not None:
                gap = max(gap, own)
        gap = int(gap)
        if gap < QUIET_AFTER:
            return ""
        return fmt_wait(gap)

    def state_of(self, s: Session) -> str:
        """The run's state as the header tells it: a key of STATE_STYLES."""
        m = self.model
        state = s.state
        if state == "live" and not self.live_source and self.progress is None and m is not None and m.ended:
            state = "ended"
        if m is not None and m.foreign and state in ("live", "ended"):
            state = "foreign"
        return state

    def badge(self, s: Session) -> tuple[str, str]:
        """The run's state badge: its words ("● LIVE", "▶ REPLAY", "✓ SUCCEEDED") and style."""
        state = self.state_of(s)
        # While a saved file loads, its run's end is not told before the panes show it: the
        # result is read at once, the tool list and transcript catch up at the next redraw.
        label, style = STATE_STYLES["loading"] if self.progress else STATE_STYLES[state]
        if state == "foreign" and s.state == "live" and self.live_source:
            label += " · LIVE"  # (without it a stream still coming and one that ended looked alike)
        if state == "live" and self.live_label:
            label = self.live_label
        if state == "ended" and self.still_written is not None and self.still_written.run is s:
            label = "◌ NO RESULT YET"  # (from a trial: "ENDED" above "still being written?")
        return label, style

    def render(self) -> Text:
        m, s = self.model, self.session
        self.drawn = s
        line1 = Text(no_wrap=True, overflow="ellipsis")
        line2 = Text(no_wrap=True, overflow="ellipsis")
        if self.demo:
            line1.append(" DEMO ", style=f"bold white on {BADGE['magenta']}")
        if m is None or s is None:
            # (A badge's own last space is the first of the two after it, as below.)
            if m is not None and m.ended and self.refused:  # (what it is, and the command that reads it)
                line1.append(" ✗ NOT READ ", style=STATE_STYLES["failed"][1])
                line1.append(f" {one_line(self.refused, 300)}")
            elif m is not None and m.ended:
                line1.append(" ◌ NO EVENTS ", style=STATE_STYLES["ended"][1])
                blank = self.blank_lines()
                line1.append(" the input ended without a single JSON event" if m.malformed_lines
                             else f" the input held only {plural(blank, 'blank line')}" if blank
                             else " the input was empty (not one line of text)")
                if self.extra:  # e.g. a replayed file that changed since it was read
                    line1.append(f"  ({one_line(self.extra, 200)})", style="cyan")
                if m.malformed_lines:
                    n = m.malformed_lines
                    line2.append(f"⚠ {n:,} malformed line{'' if n == 1 else 's'} (h)",
                                 style="bold yellow")
                    self._last_malformed(line2, m)
            elif self.live_label:  # a replay at its start
                line1.append(f" {self.live_label} ", style=STATE_STYLES["live"][1])
                if self.going_to == "end":  # (End, before the first event was read)
                    line1.append(f" {GOING_TO_END}", style="cyan")
                elif self.going_to:
                    where = f"event {int(self.going_to):,}" if self.going_to.isdigit() else one_line(self.going_to, 40)
                    line1.append(f" going to {where} once the file is read that far"
                                 " (a move or Space gives it up)", style="cyan")
                else:
                    paused = "PAUSED" in self.live_label
                    if self.start_missed:  # (a notice said it, and went: the start looked chosen)
                        line1.append(f" {one_line(self.start_missed, 200)}:", style="yellow")
                    line1.append(" at the start of the run" + (" (Space plays, → steps)" if paused else ""),
                                 style="dim")
            elif self.progress is not None and not self.live_source:  # a saved file, before its first event
                line1.append(" … LOADING ", style=STATE_STYLES["loading"][1])
                if self.percent_loaded is not None:
                    line1.append(f" {self.percent_loaded}%", style="cyan")
            else:
                waits = self.extra.startswith("waiting for ")  # (a writer for a FIFO, a file to appear)
                line1.append(" … waiting " if waits else " … waiting for events ", style=STATE_STYLES["loading"][1])
                if self.extra:  # ("… waiting for events waiting for run.ndjson to appear", before)
                    said = self.extra.removeprefix("waiting ") if waits else f"· {self.extra}"
                    line1.append(one_line(said, 200), style="cyan")
                elif self.source and self.started_at is not None:  # (else it looked stuck)
                    waited = int(self.clock() - self.started_at)
                    line1.append(f"on {one_line(self.source, 200)}", style="cyan")
                    if waited >= 2:
                        line1.append(f" · {fmt_wait(waited)}", style="cyan")
                if m is not None and m.malformed_lines:
                    line2.append(f"⚠ {m.malformed_lines:,} malformed line{'' if m.malformed_lines == 1 else 's'} so far (h)", style="yellow")
                    self._last_malformed(line2, m)
            return _two_lines(line1, line2)
        state = self.state_of(s)
        label, style = self.badge(s)
        line1.append(f" {label} ", style=style)
        # The badge's own last space is the first of the gap after it, as before the clock:
        # with no clock (Codex's runs have no times) "✓ SUCCEEDED  Codex", not three spaces.
        after_badge = line1.cell_len

        def gap() -> str:
            return " " if line1.cell_len == after_badge else "  "

        el = self.elapsed(s)
        if el:
            line1.append(f" {el}", style="bold")
        note = GOING_TO_END if self.going_to == "end" else self.note  # (End, while the file is read)
        if note:
            line1.append(f"{gap()}{note}", style="cyan")
        quiet = self.quiet_for(s)
        if quiet:
            busy = self._running_call(s)
            if busy:  # the silence has a reason the user can see: a long command, say
                line1.append(f"{gap()}{busy} running, no event for {quiet}", style="cyan")
            else:  # an agent that thinks long, or one that died
                line1.append(f"{gap()}no event for {quiet}", style="yellow")
        init = s.init
        fields: list[tuple[str, str]] = []
        # Whose run it is (a Cursor run can be of a Claude model too), then its model (Codex's
        # stream never names its: the agent alone, not "?"), also for a run joined mid-way.
        # (a stream in no format it knows is read as the default one: it names no agent then)
        agent = m.format_of(s).AGENT if m is not None and not m.other_agent and not m.foreign else ""
        if agent:
            fields.append((AGENT_FIELD, agent))
        if init is not None and (init.model or not agent):
            fields.append(("", init.model or "?"))
        if s.session_id:  # (a stream joined mid-way may name none: not "session ?")
            fields.append(("session ", short_id(s.session_id)))
        if init is not None:
            if init.api_key_source:
                fields.append(("key ", init.api_key_source))
            if init.permission_mode:
                fields.append(("mode ", init.permission_mode))
        cwd = one_line(init.cwd) if init is not None and init.cwd else ""
        cwd = cwd.rstrip("/") or cwd  # ("/home/u/proj/" showed as "…/" when narrow; "/" stays)
        # (right after the badge, the gap before the first field is its one space: see gap())
        avail = self.content_region.width - line1.cell_len + (line1.cell_len == after_badge)
        fields, cwd_min = _keep(fields, cwd, avail)
        before = ""
        for prefix, value in fields:  # (as _fields_width counts them)
            line1.append(" · " if before == AGENT_FIELD and not prefix else gap())  # ("Cursor · Auto")
            before = prefix
            if prefix == AGENT_FIELD:
                line1.append_text(safe_line(value, 80))
                continue
            if prefix:
                line1.append(prefix, style="dim")
            line1.append_text(safe_line(value, 80, style="bold" if not prefix else ""))
        if cwd:
            # The end of a path says most (the project): shorten it from the start to the room
            # left, rather than letting the line's ellipsis cut that end off.
            room = self.content_region.width - line1.cell_len - 2
            if cwd_min is not None and room >= cwd_min:
                line1.append("  ")
                line1.append_text(safe_line(_cwd_in(cwd, min(60, room)), style="cyan"))

        # Another agent's stream: said first on the line, so a narrow window keeps it.
        # Short: the badge on the first line says UNKNOWN FORMAT; h says the rest.
        if state == "foreign":
            guess = f"a {m.other_agent} stream" if m.other_agent else "another agent's stream"
            line2.append(f"⚠ {guess}? (h)   ", style="bold yellow")
        elif m.other_agent:  # partly readable (Claude Code's types are Cursor's): its calls are not counted
            line2.append(f"⚠ {m.other_agent} stream, partly read (h)   ", style="bold yellow")
        sw = self.still_written
        hinted = sw is not None and sw.run is s  # (said first on the line: see below)
        if s.tool_count:  # (room left for the hint's shortest form)
            self._counts(line2, s, self.content_region.width - (cell_len(STILL_WRITTEN_SHORT) if hinted else 0))
        elif state == "foreign" or m.other_agent:  # its calls are there, as unknown events
            line2.append("tool calls not read", style="dim")
        else:  # (not "0 tools: 0 running · 0 ok · 0 failed")
            line2.append("no tool calls", style="dim")
        # Then what needs the user, before the token counts: a narrow window cuts the line's end.
        bad = m.malformed_lines
        unknown = m.unknown_events
        if bad or unknown:
            line2.append("   ⚠ ", style="bold yellow")
            parts = [f"{bad:,} malformed" if bad else "", f"{unknown:,} unknown" if unknown else ""]
            line2.append(f"{' · '.join(p for p in parts if p)} (h)", style="yellow")
        warned_to = line2.cell_len  # (the line up to its counts and warning: what must show)
        if len(m.sessions) > 1:
            resumed = " resumed" if m.resumed(s) else ""
            line2.append(f"   session {s.index + 1}/{len(m.sessions)}{resumed} (< >)", style="bold cyan")
        if self.progress is not None:
            pct = "" if self.percent_loaded is None else f" {self.percent_loaded}%"
            line2.append(f"   loading{pct}", style="cyan")
        if self.extra:
            line2.append(f"   {one_line(self.extra, 200)}", style="cyan")
        if s.result_mismatch:
            line2.append("   result text differs from transcript", style="yellow")
        r = s.result
        tokens = r.tokens if r is not None else None
        # Whole or not at all: a number cut by the line's end ("612,8…") read as another.
        width = self.content_region.width
        cost = fmt_cost(r.cost_usd) if r is not None and r.cost_usd is not None else ""
        counts = fmt_tokens(tokens) if tokens is not None else ""
        # In --print's order; the cache's count goes first when narrow, then the counts: the
        # cost stays (at 80 columns the counts stayed and the cost went).
        paid = 3 + len(cost) if cost else 0
        if counts and line2.cell_len + 10 + len(counts) + paid <= width:
            line2.append("   tokens ", style="dim")
            line2.append(counts)
            cached = fmt_cache(tokens)
            cached = f" · {cached}" if cached else ""
            if cached and line2.cell_len + len(cached) + paid <= width:
                line2.append(cached, style="dim")
            if cost:
                line2.append(f" · {cost}")
        elif cost and line2.cell_len + 3 + len(cost) <= width:  # (narrow: what the run cost, at least)
            line2.append(f"   {cost}")
        if hinted:  # first: the command is what matters, and is long
            # Shorter as the window narrows: it hid the counts and the warning after it.
            for hint in (f"⚠ still being written? {one_line(sw.command, 300)}   ",
                         "⚠ still being written? (--follow reads on)   ", STILL_WRITTEN_SHORT):
                if cell_len(hint) + warned_to <= self.content_region.width:
                    break
            line2 = Text.assemble((hint, "bold yellow"), line2, no_wrap=True, overflow="ellipsis")
        return _two_lines(line1, line2)

    @staticmethod
    def _running_call(s: Session) -> str:
        """What a run waits on while calls run: the call's kind ("Shell"), or how many ("2
        calls"); "" when none runs."""
        n = s.status_counts["running"]
        if n != 1:
            return f"{n:,} calls" if n else ""
        for call in reversed(s.tools):
            if call.status == "running":
                return one_line(call.short, 24)
        return "a call"  # pragma: no cover - counted, so it is there

    @staticmethod
    def _last_malformed(line2: Text, m: StreamModel) -> None:
        """With no run to show, the last line that is not an event is said here (an agent that
        failed before its first event, "Error: Authentication required", writes only that)."""
        rec = m.last_malformed
        if rec is not None:
            line2.append(f"   line {rec.line:,}: ", style="dim")
            line2.append_text(safe_line(uncoloured(rec.preview), 200, style="yellow"))

    @staticmethod
    def _counts(line2: Text, s: Session, width: int) -> None:
        """"18 tools: 0 running · 17 ok · 1 failed": the first three always (they stay put),
        unless the line has no room for them all in ``width`` cells: then only those not 0 (at
        40 columns, "1 tool: 0 running · 0 ok · 0 failed ·…" cut the one that was: 1 rejected)."""
        counts = s.status_counts
        running, failed, rejected = counts["running"], counts["failed"], counts["rejected"]
        unknown = counts["unknown"]  # (an outcome the viewer does not know: "?" in the list)
        done = s.done_tools - failed - rejected - unknown  # each call counted once: the parts add up
        parts = [
            (running, f"{running:,} running", "yellow", True),
            (done, f"{done:,} ok", "green", True),
            (failed, f"{failed:,} failed", "bold red", True),
            (rejected, f"{rejected:,} rejected", "magenta", False),
            # (not the events: "⚠ 3 unknown")
            (unknown, f"{unknown:,} of unknown outcome", "yellow", False),
            (counts["unfinished"], f"{counts['unfinished']:,} unfinished", "bright_black", False),
        ]
        shown = [p for p in parts if p[0] or p[3]]
        head = f"{s.tool_count:,} tool{'' if s.tool_count == 1 else 's'}: "
        if line2.cell_len + len(head) + sum(len(p[1]) + 3 for p in shown) - 3 > width:
            shown = [p for p in shown if p[0]]
        line2.append(head, style="dim")
        for i, (n, text, style, _always) in enumerate(shown):
            if i:
                line2.append(" · ")
            line2.append(text, style=style if n else "dim")
