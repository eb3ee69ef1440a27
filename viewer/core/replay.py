"""Replay a recorded stream as if it were live: timing, pacing, play/seek control.

:func:`schedule` gives every record a play time (seconds from the start):
arrival times from a ``--save`` sidecar when there is one, else the stream's
own times (``timestamp_ms``, ``startedAtMs``/``completedAtMs``), else a
plausible pace (text at reading speed, tools a short default).  Idle gaps
are capped like asciinema's ``--idle-time-limit``.

:class:`Replay` owns a :class:`~viewer.core.model.StreamModel` and moves it
to any position: forward by applying records, backward from the nearest
checkpoint (a copy of the model taken every ``checkpoint_every`` records),
so seeking on a 100k-event file never re-reads or re-applies everything.
"""

from __future__ import annotations

import math
import re
import sys
import threading
import time
from array import array
from bisect import bisect_left, bisect_right
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass

from viewer.core import actions as A
from viewer.core.decode import (
    PREVIEW_CHARS,
    Event,
    Malformed,
    Record,
    Restart,
    parse_span,
    preview_of,
)
from viewer.core.formats import DETECT_BYTES, Format, detect_first, detect_head, get_format
from viewer.core.model import Delta, StreamModel
from viewer.core.sources import CHUNK, Ingest, decode_chunks

SPEEDS = [0.25, 0.5, 1.0, 2.0, 4.0, 8.0, 16.0, 32.0, 64.0]
READING_CHARS_PER_S = 60.0
DEFAULT_TOOL_S = 1.0
DEFAULT_EVENT_S = 0.05
DEFAULT_IDLE_LIMIT = 3.0


def with_restarts(records: Iterable[Record], offsets: Sequence[int]) -> Iterator[Record]:
    """``records`` of a ``--save`` copy with a :class:`Restart` where the followed file started
    over (``offsets``, from the timing sidecar): the replay ends the runs before it, as the
    live view did."""
    marks = sorted(offsets)
    k = 0
    last_line = 0
    for rec in records:
        if not isinstance(rec, Restart):
            while k < len(marks) and rec.offset >= marks[k]:
                yield Restart(last_line, in_copy=True)
                k += 1
            last_line = rec.end_line if isinstance(rec, Event) else rec.line
        yield rec
    for _ in marks[k:]:  # at the very end (the viewer quit after it)
        yield Restart(last_line, in_copy=True)


def _pace(rec: Record, fmt: Format, action: A.Action | None = None) -> float:
    """A plausible time between the previous record and ``rec`` when the stream says nothing."""
    if isinstance(rec, Restart):
        return 0.0
    if isinstance(rec, Malformed):
        return DEFAULT_EVENT_S
    if action is None:
        action = fmt.interpret(rec)
    if type(action) is A.Batch:  # (as long as its slowest action: a call's result, say)
        return max((_pace(rec, fmt, a) for a in action.actions), default=DEFAULT_EVENT_S)
    if isinstance(action, A.AssistantText):
        return max(0.03, len(action.text) / READING_CHARS_PER_S)
    if isinstance(action, A.ToolCompleted):
        return DEFAULT_TOOL_S
    if isinstance(action, A.Thinking):
        return 0.03
    if isinstance(action, (A.Init, A.UserText)):
        return 0.3
    return DEFAULT_EVENT_S


#: A --save copy whose lines all arrived within this many ms, or faster than BURST_RATE on
#: average, is played by the events' own times, not by its timing sidecar.
BURST_MS = 1000
#: Bytes a second (an agent writes a few KB a second; `cat` of a big file, tens of MB).
BURST_RATE = 16 << 20


def _burst(timing: list[tuple[int, int]]) -> bool:
    span_ms = timing[-1][1] - timing[0][1]
    return span_ms < BURST_MS or timing[-1][0] * 1000 / span_ms > BURST_RATE


#: How far back a new run's first time must be for its clock to start again (see Scheduler).
RUN_BACK_MS = 60_000


class Scheduler:
    """Play times one record at a time, in order (what :func:`schedule` does for a list; a
    :class:`FileIndex` uses it as it reads)."""

    def __init__(self, timing: list[tuple[int, int]] | None = None,
                 idle_limit: float | None = DEFAULT_IDLE_LIMIT, fmt: Format | None = None) -> None:
        self.fmt = fmt or get_format()
        if timing and _burst(timing):
            # Everything arrived at once (`cat run.ndjson | agent-viewer --save`, a producer
            # whose output is block-buffered): the arrival times say nothing, the events' do.
            timing = None
        self.timing = timing or None
        self._ends = [e for e, _ in timing] if timing else []
        self.idle_limit = idle_limit if idle_limit is not None and idle_limit >= 0 else None
        self._raw: float | None = None  # the stream's time of the record before (uncapped)
        #: With a timing sidecar: when the record before arrived, by the recording's clock
        #: (seconds), as the live viewer saw it come.
        self.arrival: float | None = None
        self._shift: float | None = None  # stream clock -> play time, from the first timed event
        self._now = 0.0  # play time of the record before (capped)
        #: The events' clock at the record before (ms, NaN before the first timed event), and
        #: its offset from the stream's time (set by the first timed record).
        self._event_ms = math.nan
        self._offset_ms: float | None = None
        self.first_event_ms: float | None = None  # the events' clock at the first record with a time
        self._new_run = False  # a run started after another: its first time may go back
        self._run_first_ms: float | None = None  # the events' clock at the run's first time
        self._pushed = False  # ... taken on to its result's end (see time)
        self._rewind = False  # the next time sets the clock, earlier or not

    def time(self, rec: Record, action: A.Action | None = None) -> float:
        """Play time of ``rec``, the record after the ones given so far (``action``: what the
        format makes of it, if that is known already)."""
        prev = self._raw
        nat = self.fmt.event_time_ms(rec) if isinstance(rec, Event) else None
        if not self.timing:
            if action is None and type(rec) is Event:
                action = self.fmt.interpret(rec)
            if type(action) is A.Init:
                self._run_first_ms = None
                self._new_run = prev is not None
                # A run's clock taken on to its result's end may be past the next run's start
                # (Cursor's duration is the agent's, longer than its events' span): that run's
                # first time sets it, earlier or not (it started part way, and stood still).
                self._rewind, self._pushed = self._pushed, False
            if self._new_run and nat is not None:
                # A run that started before the one before it (`cat new.ndjson old.ndjson`):
                # its events' times go back.  Its clock starts again from its first time, and
                # its play time from there (it played at once, and its clock read "892:22:34",
                # from a trial).  Only at a run's start, and by more than runs side by side
                # differ (a call's start time is often a little before the event before it):
                # otherwise the clock never goes back.
                self._new_run = False
                if nat < self._event_ms - RUN_BACK_MS:  # (NaN before: not less)
                    self._shift = None
                    self._event_ms = math.nan
        if self.timing:
            if isinstance(rec, Restart):  # at the time of what came before it
                t = prev if prev is not None else 0.0
            else:
                i = bisect_left(self._ends, rec.offset + rec.length)
                t = self.timing[min(i, len(self.timing) - 1)][1] / 1000
            self.arrival = t
        else:
            base = prev if prev is not None else 0.0
            pace = 0.0 if prev is None else _pace(rec, self.fmt, action)
            if nat is not None:
                if self._shift is None:
                    self._shift = base + pace - nat / 1000
                t = max(base, nat / 1000 + self._shift)
            else:
                t = base + pace
        if prev is not None:
            gap = max(0.0, t - prev)
            if self.idle_limit is not None:
                gap = min(gap, self.idle_limit)
            self._now += gap
        self._raw = t
        # The events' clock at this record: the stream's time (the events' own, or with a
        # timing file their arrival, as the header counted it live), set to the events' clock
        # by the first record that has a time.  It never goes back, as the stream's time does
        # not (runs interleave; a tool's own start and end times need not agree with the
        # events' timestamps).  A record with no time of its own (the final message, the
        # result) does not move it: a pace made up for it is play time, not the run's (the
        # final message's put the clock at 01:08, then the result's own duration said 1m06s).
        # (Inline: this runs for every record of a replayed file.)
        if self._offset_ms is None and nat is not None:
            self._offset_ms = nat - t * 1000
            self.first_event_ms = float(nat)
        if self._offset_ms is not None:
            if self.timing:
                self._event_ms = t * 1000 + self._offset_ms
            elif nat is not None and (not self._event_ms > nat or self._rewind):  # (NaN before: not greater)
                self._event_ms = float(nat)
                self._rewind = False
            elif nat is None and type(action) is A.Result and action.duration_ms and self._run_first_ms is not None:
                # A result without a time of its own says how long the run took: its clock
                # goes on to that end through the records before it (Cursor's final message:
                # the header stood at 00:49 for the message's 18 s, then said "in 1m06s").
                end = self._run_first_ms + action.duration_ms
                if not self._event_ms > end:
                    self._event_ms = end
                    self._pushed = True
            if self._run_first_ms is None and nat is not None:
                self._run_first_ms = self._event_ms
        return self._now

    @property
    def event_ms(self) -> float:
        """The events' own clock at the last record given (ms since the epoch; NaN before the
        first record with a time): what a replay's run clock shows, between records too."""
        return self._event_ms


def schedule(
    records: Sequence[Record],
    timing: list[tuple[int, int]] | None = None,
    idle_limit: float | None = DEFAULT_IDLE_LIMIT,
    fmt: Format | None = None,
) -> list[float]:
    """Play time in seconds for each record (non-decreasing, gaps capped at ``idle_limit``);
    ``fmt``: the records' format (None: the one their first events tell, as the model tells it)."""
    if fmt is None:
        fmt = detect_first(r.data for r in records if type(r) is Event)
    s = Scheduler(timing, idle_limit, fmt)
    return [s.time(rec) for rec in records]


#: How many records on a replay's run clock looks for the next time known (see Replay._gap).
UNTIMED_AHEAD = 5_000


def _clock(seconds: float) -> str:
    s = int(seconds)  # rounded down, like the replay bar's clock
    h, m = divmod(s // 60, 60)
    return f"{h}:{m:02d}:{s % 60:02d}" if h else f"{m}:{s % 60:02d}"


_CLOCK = re.compile(r"(?:(\d+):)?(\d+):(\d+(?:\.\d+)?)")  # [h:]m:ss, as the replay bar shows times
_UNITS = re.compile(r"(?:(\d+)h)?(?:(\d+)m)?(?:(\d+(?:\.\d+)?)s)?")  # 1h30m, 5m, 90s


def _finite(seconds: float) -> float:
    if not math.isfinite(seconds):
        raise OverflowError
    return seconds


def start_at_target(value: str) -> tuple[str, float]:
    """``--start-at`` read: ("event", number) for ``120``, ("time", seconds) for ``90s``,
    ``1:30``, ``1:02:30``, ``5m`` or ``1h30m``; ValueError for anything else."""
    v = value.strip()
    if re.fullmatch(r"\d+", v):
        return "event", int(v)
    try:
        m = _CLOCK.fullmatch(v)
        if m and float(m.group(3)) < 60 and (m.group(1) is None or int(m.group(2)) < 60):
            return "time", _finite(float(m.group(3)) + 60 * int(m.group(2)) + 3600 * int(m.group(1) or 0))
        m = _UNITS.fullmatch(v)
        if v and m:
            return "time", _finite(float(m.group(3) or 0) + 60 * int(m.group(2) or 0) + 3600 * int(m.group(1) or 0))
    except OverflowError:  # (400 nines: no float holds them)
        pass
    raise ValueError("--start-at expects an event number (120) or a time (90s, 1:30, 1:02:30, 5m, 1h30m), "
                     f"not {value!r}")


class Events:
    """Between records and events.  A replay moves over records (each event, malformed line
    and restart of the input), and counts events, as ``h`` does (with 4 malformed lines among
    30 events, the bar counted 34, and ``--start-at 30`` stopped short of the end).
    ``others``: where the records that are not events are, in order."""

    def __init__(self, others: Sequence[int], total: int) -> None:
        self.others = others
        self.total = total  # records

    @classmethod
    def of(cls, records: Sequence[Record]) -> Events:
        if isinstance(records, RecordIndex):
            n = len(records)  # (first: a reading thread adds to `others` before the records)
            return cls(records.others, n)
        return cls([i for i, r in enumerate(records) if type(r) is not Event], len(records))

    def within(self, n: int) -> int:
        """Events among the first ``n`` records."""
        return n - bisect_left(self.others, n, 0, len(self.others))

    @property
    def count(self) -> int:
        return self.within(self.total)

    def after(self, k: int) -> int:
        """Records to apply for ``k`` events: through the k-th, and the lines that are not
        events after it, up to the next event (all of them after the last); 0 for 0 (those
        before the first event come with it).  So a step, a jump to a malformed line (}) and
        --start-at N reach the same places, one per count of events (from a trial: } and a
        step both showed "event 17", with 2 and 1 malformed lines)."""
        if k <= 0:  # (the start: lines before the first event come with it)
            return 0
        if k >= self.count:
            return self.total
        return self.index_of(k + 1)

    def index_of(self, e: int) -> int:
        """The record of the ``e``-th event (from 1; there must be that many)."""
        lo, hi = e - 1, self.total - 1
        while lo < hi:  # the fewest records with e events among them, less one
            mid = (lo + hi) // 2
            if self.within(mid + 1) >= e:
                hi = mid
            else:
                lo = mid + 1
        return lo


def parse_start_at(value: str, times: Sequence[float], idle_limit: float | None = None,
                   events: Events | None = None) -> int:
    """``--start-at``: an event number (``120``) or a time (``90s``, ``1:30``) -> records to apply.
    Times are replay times: with ``idle_limit``, longer pauses were shortened (the error says so).
    ``events``: which of the records are events (without it, all are)."""
    kind, target = start_at_target(value)
    v = value.strip()
    if kind == "event":
        count = len(times) if events is None else events.count
        if target > count:
            raise ValueError(f"--start-at {v}: the run has {count:,} events")
        return int(target) if events is None else events.after(int(target))
    end = times[-1] if len(times) else 0.0
    if int(target) > int(end):  # in whole seconds, as the replay bar shows the duration
        # (Only when a pause was shortened: "a larger --idle-limit keeps more" of a run with
        # none, or at --idle-limit 1000, sent the user after the wrong cause: from a trial.)
        if idle_limit is None or not any(b - a >= idle_limit - 1e-6 for a, b in zip(times, times[1:])):
            why = ""
        else:
            why = (f" (pauses longer than {idle_limit:g} s are shortened to {idle_limit:g} s; "
                   "a larger --idle-limit keeps more of them)")
        raise ValueError(f"--start-at {v}: the run plays for {_clock(end)}{why}")
    # (0s is the start, as event 0 is: the first record's play time is 0, and it is not applied)
    return bisect_right(times, target) if target > 0 else 0


class StartAt:
    """``--start-at``: where the replay goes first, once the file is read that far."""

    def __init__(self, value: str, idle_limit: float | None = None) -> None:
        self.value = value
        self.kind, self.target = start_at_target(value)  # (ValueError for a bad value)
        self.idle_limit = idle_limit

    def reached(self, records: Sequence[Record], times: Sequence[float]) -> bool:
        n = len(records)
        if self.kind == "event":  # (records first: never fewer than events, and cheap)
            return n >= self.target and Events.of(records).count >= self.target
        return n > 0 and times[n - 1] > self.target  # every record up to then is read


@dataclass
class Progress:
    position: int
    total: int
    time: float
    duration: float
    speed: float
    playing: bool
    #: Share of the file read so far while a :class:`FileIndex` is still reading it, else None.
    reading: float | None = None
    #: Events among the records applied, and among all (None: every record is an event).
    events: int | None = None
    event_total: int | None = None

    @property
    def played(self) -> float:
        """How much of the run has played (0 to 1): by play time, as the bar's clock reads;
        by events when the run has no length."""
        if self.duration > 0:
            return min(1.0, self.time / self.duration)
        return self.position / self.total if self.total else 0.0


class Checkpoints:
    """Copies of the model at some positions (append-only, in order: another thread may add
    while one looks)."""

    def __init__(self) -> None:
        self.positions: list[int] = []
        self.models: list[StreamModel] = []

    def add(self, position: int, model: StreamModel) -> None:
        self.models.append(model)
        self.positions.append(position)  # last: a reader sees a position only with its model

    def at_or_before(self, n: int) -> tuple[int, StreamModel | None]:
        i = bisect_right(self.positions, n)
        return (self.positions[i - 1], self.models[i - 1]) if i else (0, None)

    def __len__(self) -> int:
        return len(self.positions)


def next_checkpoint(position: int, every: int) -> int:
    """Where the checkpoint after one at ``position`` goes: spaced wider as the run grows (a
    tenth of the position), so about fifty copies cover even 1M events (a copy shares all
    but what may still change: 17 MB in all, measured), and a seek back re-applies at most
    that many records."""
    return position + max(every, position // 10)


#: A seek from afar keeps a copy of the model this many records before where it goes (the
#: last NEAR_KEPT such copies are kept).
NEAR_SPAN = 1000
NEAR_KEPT = 4
#: A file index takes a copy every NEAR_SPAN records over about this many records at the
#: file's end (told by its bytes left, against the size of the last NEAR_SPAN records), and
#: keeps the last two: a step back from End then re-applies at most NEAR_SPAN records, not up
#: to a tenth of the run (after those two, a step back keeps a copy of its own: see NEAR_SPAN).
TAIL_SPAN = 4 * NEAR_SPAN

#: ``marks`` of a record (bit flags): where ``]`` and ``}`` stop, and where a run starts or
#: ends (a run's clock does not go on across it).
TOOL_START = 1
ERROR = 2
RUN_EDGE = 4


#: The values of ``marks`` that have each mark.
_MARKED = {m: bytes(v for v in range(8) if v & m) for m in (TOOL_START, ERROR)}
_MARK_SEARCH = {m: re.compile(b"[" + values + b"]") for m, values in _MARKED.items()}


def marks_of(rec: Record, action: A.Action | None) -> int:
    return ((TOOL_START if is_tool_start(rec, action) else 0) | (ERROR if is_error(rec, action) else 0)
            | (RUN_EDGE if isinstance(action, (A.Init, A.Result)) or type(rec) is Restart else 0))


class RecordIndex(Sequence[Record]):
    """The records of a saved file, kept as numbers: an event is parsed again from the file
    when it is asked for (about 40 bytes a record instead of its parsed object; a 1M-event
    file's parsed records took 2.4 GB), and so is a malformed line's preview (its reason is
    kept).  Restarts are kept as they are: they are rare."""

    def __init__(self, read: Callable[[int, int], bytes], arrivals: array | None = None) -> None:
        self._read = read
        #: Each record's arrival (a --save copy's, from its timing sidecar), given back with it
        #: (the model times a run and its calls by them, as it did live: Codex's have no other).
        self.arrivals = arrivals
        self._offset = array("q")
        self._length = array("q")
        self._line = array("q")
        self._count = array("q")  # lines the event spans, negated when it repeats the line before
        self._reason: dict[int, str] = {}  # malformed lines: why (their preview is read again)
        self._other: dict[int, Record] = {}  # restarts
        self.others = array("q")  # where the records that are not events are (see Events)
        self.changed = False  # an event read again was not what it was: the file changed

    def add(self, rec: Record, arrival: float | None = None) -> None:
        """``arrival``: when it arrived (a --save copy's, see ``arrivals``)."""
        kind = type(rec)
        if kind is Restart:
            self._other[len(self._count)] = rec
            offset = length = line = 0
        else:
            offset, length, line = rec.offset, rec.length, rec.line
        if kind is Malformed:  # (a file of non-JSON lines kept 580 bytes a line as records)
            self._reason[len(self._count)] = sys.intern(rec.reason)
        if kind is not Event:
            self.others.append(len(self._count))  # (before the record: see Events.of)
        self._offset.append(offset)
        self._length.append(length)
        self._line.append(line)
        self._count.append(0 if kind is not Event else -rec.line_count if rec.repeat else rec.line_count)
        if self.arrivals is not None:
            self.arrivals.append(math.nan if arrival is None else arrival)

    def __len__(self) -> int:
        return len(self._count)

    def line_at(self, i: int) -> int:
        """The (first) line of record ``i``, without reading it again (0 for a restart)."""
        return self._line[i]

    def end_line_at(self, i: int) -> int:
        """The last line of record ``i`` (0 for a restart)."""
        return self._line[i] + max(0, abs(self._count[i]) - 1)

    def __getitem__(self, i):  # type: ignore[override]
        if isinstance(i, slice):
            return [self[k] for k in range(*i.indices(len(self)))]
        count = self._count[i]
        offset, length = self._offset[i], self._length[i]
        if count == 0:
            i = i if i >= 0 else len(self) + i
            reason = self._reason.get(i)
            if reason is None:
                return self._other[i]
            return Malformed(self._line[i], offset, length, reason,
                             preview_of(self._read(offset, min(length, PREVIEW_CHARS * 4))), self._arrival(i))
        data = parse_span(self._read(offset, length))
        if data is None:  # the file changed under us: shown as what it now is
            self.changed = True
            return Malformed(self._line[i], offset, length, "the file changed since it was read", "",
                             self._arrival(i))
        ev = Event(self._line[i], abs(count), offset, length, data, self._arrival(i))
        ev.repeat = count < 0
        return ev

    def _arrival(self, i: int) -> float | None:
        a = self.arrivals
        if a is None:
            return None
        t = a[i]
        return None if math.isnan(t) else t


class FileIndex:
    """What ``--replay`` plays, read from a saved file in one pass, in the background: its
    records (a :class:`RecordIndex`), their play times, where tool calls start and errors
    are, and copies of the model every so often (seeking applies records from the nearest
    one).  The replay starts at once and plays what has been read; :attr:`complete` says
    when the whole file has been."""

    def __init__(self, store, total_bytes: int | None = None, *, timing: list[tuple[int, int]] | None = None,
                 restarts: Sequence[int] = (), idle_limit: float | None = DEFAULT_IDLE_LIMIT,
                 fmt: Format | None = None, checkpoint_every: int = 2000,
                 model_factory: Callable[..., StreamModel] = StreamModel) -> None:
        self.store = store
        self.total_bytes = total_bytes
        self.times = array("d")
        self.event_times = array("d")  # the events' clock at each record (see Scheduler.event_ms)
        self.marks = bytearray()
        self.checkpoints = Checkpoints()
        #: Copies near the file's end, NEAR_SPAN records apart (the last two: see TAIL_SPAN).
        self.tail: list[tuple[int, StreamModel]] = []
        self._tail_mark = 0  # bytes_done at the last multiple of NEAR_SPAN records
        self.complete = False
        self.read_at: float | None = None  # when it was read to its end (the wall clock)
        self.error: str | None = None
        self.bytes_read = 0
        self.bytes_done = 0  # the end of the last record indexed
        self.ingest = Ingest()  # (what decodes it: its decoder counts the blank lines)
        if fmt is None:  # (the format the file's start tells: its model reads in it from the first event, so
            fmt = detect_head(store.read(0, DETECT_BYTES))  # no action is made twice, in two formats)
        self.format = fmt  # (None: the default one, until the events tell)
        self._model = model_factory(fmt) if fmt is not None else model_factory()
        self._scheduler = Scheduler(timing, idle_limit, self._model.format)
        #: When each record arrived, by the recording's clock (seconds), with a timing sidecar.
        self.arrivals = array("d") if self._scheduler.timing is not None else None
        self.records = RecordIndex(store.read, self.arrivals)
        self._restarts = sorted(restarts)
        self._every = max(1, checkpoint_every)
        self._next = self._every
        self._stop = threading.Event()
        self._lock = threading.Lock()  # one thread reads at a time
        #: Above 0 while the replay seeks, and until the view has drawn where it went: reading
        #: waits, so that they have the CPU to themselves (sharing it, a seek while a 1M-event
        #: file was read took 1-2 s instead of 0.3-0.7, and drawing the view after one took
        #: twice as long).  Changed by the replay's thread only.
        self.hold = 0
        self._step = threading.Lock()  # held by reading while it adds a record (see copy_now)
        self._steps = self._read()
        self._thread: threading.Thread | None = None

    # -- reading ----------------------------------------------------------------------------
    def _chunks(self) -> Iterator[bytes]:
        """The file's bytes, a chunk at a time (``bytes_read`` says how far)."""
        read, pos = self.store.read, 0
        while chunk := read(pos, CHUNK):
            pos += len(chunk)
            self.bytes_read = pos
            yield chunk

    def _read(self) -> Iterator[None]:
        """Read the file, a record per step."""
        for rec in with_restarts(decode_chunks(self._chunks(), self.ingest), self._restarts):
            self._add(rec)
            yield

    def _add(self, rec: Record) -> None:
        if type(rec) is not Restart:
            self.bytes_done = rec.offset + rec.length
        # (the format the model reads it in: its first events, and each run's start, tell it)
        fmt = self._model.reads_in(rec) if type(rec) is Event else self._model.format
        action = fmt.interpret(rec) if type(rec) is Event else None
        if action is not None:
            rec.action = action  # (the model and the schedule share one interpretation)
        sched = self._scheduler
        sched.fmt = fmt
        self.times.append(sched.time(rec, action))
        self.event_times.append(sched.event_ms)
        arrival = sched.arrival  # (None without a timing sidecar)
        if arrival is not None and type(rec) is not Restart:  # (as it came live: the times of a run and its calls)
            rec.arrival = arrival
        self.marks.append(marks_of(rec, action))
        self._model.apply(rec)
        self.records.add(rec, arrival)  # last: the replay plays it only once it is all there
        n = len(self.records)
        if n >= self._next:
            self.checkpoints.add(n, self._model.clone())
            self._next = next_checkpoint(n, self._every)
        if n % NEAR_SPAN == 0:
            self._near_the_end(n)

    def _near_the_end(self, n: int) -> None:
        """At every NEAR_SPAN records: a copy for :attr:`tail` when the bytes left to read are
        about TAIL_SPAN records, by the size of the last NEAR_SPAN (the mean of all of them was
        thrown by a big record at the start: a copy every NEAR_SPAN records, all the way)."""
        done = self.bytes_done
        recent, self._tail_mark = done - self._tail_mark, done
        if self.total_bytes is None or (self.checkpoints.positions and self.checkpoints.positions[-1] == n):
            return
        if 0 <= self.total_bytes - done <= recent * (TAIL_SPAN // NEAR_SPAN):  # (not once the file grew past it)
            self.tail = [*self.tail[-1:], (n, self._model.clone())]  # (a new list: read by the replay's thread)

    @property
    def first_event_ms(self) -> float | None:
        """The events' clock at the first record with a time, once one is read."""
        return self._scheduler.first_event_ms

    def read(self, until: Callable[[], bool] | None = None) -> None:
        """Read in this thread: to the end, or until ``until()`` holds."""
        with self._lock:
            if self.complete:
                return
            steps, step, end = self._steps, self._step, object()
            background = self._thread is threading.current_thread()  # (a seek can hold it)
            try:
                while True:
                    with step:  # (a record at a time: copy_now copies between two)
                        if next(steps, end) is end:
                            break
                    if self._stop.is_set() or (until is not None and until()):
                        return
                    while self.hold and background and not self._stop.is_set():  # the replay is seeking
                        time.sleep(0.002)
            except OSError as exc:  # what was read is played; the app says why the rest is not
                self.error = exc.strerror or str(exc)
            except Exception as exc:  # noqa: BLE001 - the same for anything else (a bug, no memory)
                self.error = f"{type(exc).__name__}: {exc}"
            with step:
                self._finish()

    def copy_now(self, wait: float = 0.05) -> tuple[int, StreamModel] | None:
        """While a seek holds reading (see :attr:`hold`): a copy of the model as read so far,
        and how many records it has applied, taken between two records (reading waits for
        it, up to ``wait`` seconds: else None)."""
        if self.complete or not self.hold or not self._step.acquire(timeout=wait):
            return None
        try:
            model = self._model
            return (len(self.records), model.clone()) if not self.complete and model is not None else None
        finally:
            self._step.release()

    def _finish(self) -> None:
        if self.complete:
            return
        if self.error is None and self.total_bytes is not None and self.bytes_read < self.total_bytes:
            self.error = (f"the file shrank while it was read ({self.bytes_read:,} of {self.total_bytes:,} "
                          "bytes: truncated?)")
        n = len(self.records)
        if n and (not self.checkpoints.positions or self.checkpoints.positions[-1] < n):
            self.checkpoints.add(n, self._model)  # the last one is the model itself: End is a copy away
        self._model = None  # type: ignore[assignment]
        self.read_at = time.time()  # (the file's age is told against it: see StoreFeed.still_written)
        self.complete = True

    def start(self) -> None:
        """Read the rest in a background thread."""
        if self.complete or self._thread is not None:
            return
        self._thread = threading.Thread(target=self.read, name="agent-viewer-replay-index", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()

    @property
    def fraction(self) -> float | None:
        """Share of the file read, while reading; None once complete."""
        if self.complete:
            return None
        return min(1.0, self.bytes_done / self.total_bytes) if self.total_bytes else 0.0


class Replay:
    """Play control over a list of records with their play times (or a :class:`FileIndex`,
    which may still be reading)."""

    def __init__(
        self,
        records: Sequence[Record] = (),
        times: Sequence[float] = (),
        *,
        speed: float = 1.0,
        playing: bool = True,
        ended: bool = True,
        checkpoint_every: int = 2000,
        model_factory: Callable[..., StreamModel] = StreamModel,
        index: FileIndex | None = None,
    ) -> None:
        if index is not None:
            records, times = index.records, index.times
        elif len(records) != len(times):
            raise ValueError("one play time per record")
        self.records = records
        self.times = times
        #: The events' clock at each record (a file index keeps it): the run clock.
        self.event_times: Sequence[float] | None = index.event_times if index is not None else None
        self.index = index
        self.speed = speed
        self.playing = playing
        self._ended = ended  # the recording is complete: end the model at the last record
        self.checkpoint_every = max(1, checkpoint_every)
        self._factory = model_factory
        self.position = 0  # records applied
        self.model = self._fresh_model()
        self.clock_time = 0.0  # play time reached
        self._wall: float | None = None
        # A file index takes its own copies as it reads; a list is copied as it is played.
        self._checkpoints = index.checkpoints if index is not None else Checkpoints()
        self._next_checkpoint = self.checkpoint_every
        self._near: list[tuple[int, StreamModel]] = []  # copies taken near where seeks went
        self.start: StartAt | None = None  # --start-at, until the file is read that far
        self._play_after_start = playing
        self.generation = 0  # bumps whenever the model object is replaced (a seek back)

    # -- inspection -------------------------------------------------------------------------
    @property
    def input_ended(self) -> bool:
        """Every record is known (a file index has read the whole file)."""
        return self.index.complete if self.index is not None else self._ended

    @property
    def total(self) -> int:
        return len(self.records)

    @property
    def duration(self) -> float:
        n = self.total  # (a file index may have the time of a record it is still adding)
        return self.times[n - 1] if n else 0.0

    @property
    def at_end(self) -> bool:
        return self.position >= self.total

    def progress(self) -> Progress:
        reading = self.index.fraction if self.index is not None else None
        ev = self.events()
        return Progress(self.position, ev.total, self.clock_time, self.duration, self.speed, self.playing,
                        reading, ev.within(self.position), ev.count)

    def events(self) -> Events:
        """The records read so far, as events (see :class:`Events`)."""
        return Events.of(self.records)

    def _gap(self, through_untimed: bool = False) -> tuple[float, float, float, float] | None:
        """The pause after the last record applied, before the next: (play time into it, its
        play length, the events' clock at its start, its length by that clock, in ms).
        ``through_untimed``: records with no time of their own are no end: the pause goes on
        to the next record that moves the events' clock (up to UNTIMED_AHEAD records on)."""
        p, et = self.position, self.event_times
        if et is None or not 0 < p < self.total or p >= len(et):
            return None
        e0 = et[p - 1]
        r, q = p - 1, p  # the pause's first and last records
        if through_untimed:  # (from the record that set the clock, past the untimed ones after it)
            first, last = max(0, p - 1 - UNTIMED_AHEAD), min(self.total, len(et), p + UNTIMED_AHEAD) - 1
            while r > first and et[r - 1] == e0:
                r -= 1
            while q < last and et[q] == e0:
                q += 1
            marks = self.index.marks if self.index is not None else None
            if marks is not None and any(m & RUN_EDGE for m in marks[r + 1 : q]):
                # A run ends or starts in between: the next time known is another run's.  (Not
                # at q: a result with a time of its own, from a --save copy's arrivals, is the
                # run's own end, its clock going on to it.)
                return None
        e1 = et[q]
        t0, t1 = self.times[r], self.times[q]
        if not e1 >= e0 or t1 <= t0 or not math.isfinite(e1 - e0):  # (NaN: no time known yet)
            return None
        return min(max(self.clock_time - t0, 0.0), t1 - t0), t1 - t0, e0, e1 - e0

    def run_now_ms(self) -> float | None:
        """The events' clock at the play clock (ms since the epoch; None when the stream has no
        times): the last record's time and as much of the pause after it as has played.  A
        shortened pause is played through faster: a run's clock goes on, faster, rather than
        stop and then jump (a 57 s build held the header at 00:03, then at 01:00)."""
        p, et = self.position, self.event_times
        if et is None or p == 0 or p > len(et):
            return None
        # Through records with no time of their own (a run's messages between two calls), the
        # clock goes on to the next time known, rather than stand still, then jump.
        g = self._gap(through_untimed=True)
        if g is not None:
            into, length, start, span = g
            return start + span * into / length
        e = et[p - 1]
        if math.isnan(e):  # before the first record with a time: that time, once it is known
            return self.index.first_event_ms if self.index is not None else None
        return e

    @property
    def arrivals(self) -> Sequence[float] | None:
        """When each record arrived, by the recording's clock (seconds; a --save copy's, from
        its timing sidecar), else None."""
        return self.index.arrivals if self.index is not None else None

    def arrival_now(self) -> float:
        """The recording's arrival clock at the play clock (see :attr:`arrivals`): the last
        record's arrival and as much of the pause after it as has played (a pause played
        shortened goes by faster).  What a replay's clocks read where the live view read the
        time: a run's time so far, a call's running time."""
        arr, p = self.arrivals, self.position
        if not arr or p == 0:
            return arr[0] if arr and math.isfinite(arr[0]) else 0.0
        p = min(p, len(arr))
        now = arr[p - 1]
        if p < min(len(arr), len(self.times)):
            t0, t1 = self.times[p - 1], self.times[p]
            if t1 > t0:
                now += (arr[p] - now) * min(max(self.clock_time - t0, 0.0), t1 - t0) / (t1 - t0)
        return now if math.isfinite(now) else 0.0  # (every record has one; a clock never reads NaN)

    def event_ms_at_line(self, line: int) -> float | None:
        """The events' clock (as :meth:`run_now_ms` tells it) when the record of ``line``
        played, if it has (None: not known).  A call's running time is measured on it: with a
        --save copy's arrival times, the events' own times are another clock (a run piped at
        its own pace: a call just started read "27 s…")."""
        et, p = self.event_times, min(self.position, len(self.event_times or ()))
        if et is None or line <= 0:
            return None
        i = bisect_left(range(p), line, key=self.line_of)
        if i >= p or self.line_of(i) != line or math.isnan(et[i]):
            return None
        return et[i]

    def shortened_pause(self) -> float | None:
        """The run's own length of the pause being played (seconds), when it is played
        shortened (else None).  As the run's clock goes (see :meth:`run_now_ms`): through
        records with no time of their own, and not across a run's end or start (two runs
        joined said "a 4402h35m pause" at the second's start, from a trial)."""
        g = self._gap(through_untimed=True)
        return g[3] / 1000 if g is not None and g[3] / 1000 - g[1] >= 1.0 else None

    # -- applying -------------------------------------------------------------------------------
    def _fresh_model(self) -> StreamModel:
        fmt = self.index.format if self.index is not None else None  # (as the index's checkpoints read)
        m = self._factory(fmt) if fmt is not None else self._factory()
        self._end_if_done(m)
        return m

    def _end_if_done(self, model: StreamModel) -> None:
        """At the last record of a complete recording, the model ends (nothing to play: the
        recording is empty, not "waiting for events")."""
        # (input_ended first: once the index is complete, its length is final)
        if self.input_ended and self.position >= len(self.records) and not model.ended:
            arr = self.arrivals
            model.end(arr[-1] if arr else None)  # (a recording's end: its last arrival)

    def _apply_next(self) -> Delta:
        rec = self.records[self.position]
        d = self.model.apply(rec)
        self.position += 1
        if self.index is None and self.position >= self._next_checkpoint:
            self._checkpoints.add(self.position, self.model.clone())
            self._next_checkpoint = next_checkpoint(self.position, self.checkpoint_every)
        self._end_if_done(self.model)
        return d

    def _forward_to(self, n: int) -> list[Delta]:
        out = []
        while self.position < n:
            out.append(self._apply_next())
        return out

    def tick(self, wall_now: float) -> list[Delta]:
        """Advance play time to ``wall_now`` (a clock reading) and apply what is due."""
        if self._wall is None or not self.playing:
            self._wall = wall_now
            self._end_if_done(self.model)
            return []
        self.clock_time += (wall_now - self._wall) * self.speed
        self._wall = wall_now
        complete = self.input_ended  # (first: once the index is complete, its length is final)
        if self.position < self.total:
            n = bisect_right(self.times, self.clock_time, 0, self.total)
            deltas = self._forward_to(n)
        else:
            deltas = []
        if self.at_end:  # (at the end of what has been read so far: it waits there for more)
            self.clock_time = min(self.clock_time, self.duration)
            if complete:
                self.playing = False
                self._end_if_done(self.model)
        return deltas

    def seek(self, n: int, *, end: bool = False) -> list[Delta]:
        """Move to ``n`` records applied (``end``: to the end of what is read, maybe a record
        past ``n`` by then).  Returns deltas when moving forward step by step; after a jump
        from a checkpoint the model is a new object (``generation`` changes)."""
        if self.index is None:
            return self._seek(n, end)
        self.index.hold += 1
        try:
            return self._seek(n, end)
        finally:
            self.index.hold -= 1

    def seek_end(self) -> list[Delta]:
        """To the last record read (End)."""
        return self.seek(self.total, end=True)

    def _seek(self, n: int, end: bool = False) -> list[Delta]:
        n = max(0, min(n, self.total))
        base, copy_ = self._checkpoints.at_or_before(n)
        mine = None
        for at, kept in (*self._near, *(self.index.tail if self.index is not None else ())):
            if base < at <= n:
                base, copy_ = at, kept
        if n - base > NEAR_SPAN and n == self.total and self.index is not None and n - self.position > NEAR_SPAN:
            # The end of what is read so far, while the rest is read: the index's own model is
            # there (End: maybe a record on, read while this seek asked reading to wait).
            live = self.index.copy_now()
            if live is not None and (live[0] == n or (end and live[0] > n)):
                n, (base, copy_) = live[0], live
                mine = copy_  # (a copy already: not copied again)
        if self.position <= n and (base <= self.position or n - self.position < NEAR_SPAN):
            deltas = self._forward_to(n)
        else:  # back, or far forward past a checkpoint: start from the nearest one
            self.position = base
            self.model = mine if mine is not None else copy_.clone() if copy_ is not None else self._fresh_model()
            if n - base > NEAR_SPAN:
                # Keep a copy a little before n: stepping back from there, event by event, then
                # re-applies at most NEAR_SPAN records, not the whole way from a checkpoint
                # (at 1M events, checkpoints are up to 200k records apart).
                self._forward_to(n - NEAR_SPAN)
                self._near = [*self._near[-(NEAR_KEPT - 1):], (self.position, self.model.clone())]
            self._forward_to(n)
            self._end_if_done(self.model)
            self.generation += 1
            deltas = []
        self.clock_time = self.times[n - 1] if n > 0 else 0.0
        return deltas

    def seek_time(self, seconds: float) -> list[Delta]:
        """Move to play time ``seconds``: the records up to it applied, and the clock there
        (not back at the last record's time: ``--start-at 0:30`` reads 00:30)."""
        deltas = self.seek(bisect_right(self.times, seconds, 0, self.total))
        self.clock_time = max(self.clock_time, min(seconds, self.duration))
        return deltas

    def begin_at(self, start: StartAt) -> str | None:
        """Go to ``start`` (paused until then): see :meth:`settle_start`."""
        self.start = start
        self._play_after_start, self.playing = self.playing, False
        return self.settle_start()

    def settle_start(self) -> str | None:
        """Go to the ``--start-at`` position if the file is read that far: "" when done (or
        nothing was waiting), why it cannot be when it is past the end, None while waiting."""
        st = self.start
        if st is None:
            return ""
        if not (st.reached(self.records, self.times) or self.input_ended):
            return None
        self.start = None
        try:
            n = parse_start_at(st.value, self.times[: self.total], st.idle_limit, self.events())
        except ValueError as exc:
            self.playing = self._play_after_start  # (from the start, as without --start-at)
            return str(exc)
        if st.kind == "time" and n:
            self.seek_time(st.target)
        else:
            self.seek(n)
        self.generation += 1  # (a view shows the model from scratch)
        self.playing = self._play_after_start
        return ""

    # -- controls -------------------------------------------------------------------------------
    def toggle(self, wall_now: float) -> bool:
        """Play or pause; paused at the end of a whole recording, play it again from its start
        (says whether it did)."""
        again = not self.playing and self.at_end and self.input_ended and self.total > 0
        if again:
            self.seek(0)
        self.playing = not self.playing
        self._wall = wall_now
        return again

    def faster(self, step: int) -> float:
        """The next speed of SPEEDS up (``step`` 1) or down (-1); from a speed between two
        of them (``--speed 3``), the one on that side (2 or 4)."""
        i = bisect_right(SPEEDS, self.speed) + step - 1 if step > 0 else bisect_left(SPEEDS, self.speed) + step
        self.speed = SPEEDS[max(0, min(len(SPEEDS) - 1, i))]
        return self.speed

    def step_target(self, n: int) -> int:
        """Where ``n`` events on (back, when negative) is, in records (see :meth:`Events.after`:
        a malformed line or a restart comes with the event before it).  Past either end: -1
        before the start, ``total + 1`` after the end."""
        ev = self.events()
        if n < 0 and self.position == 0:
            return -1
        if n > 0 and self.position >= ev.total:
            return ev.total + 1
        return ev.after(ev.within(self.position) + n)

    def step(self, n: int) -> list[Delta]:
        self.playing = False
        return self.seek(self.step_target(n))

    def line_of(self, i: int) -> int:
        """The (first) line of record ``i`` (for a restart: 0 in a file index, the line before
        it in a list of records)."""
        records = self.records
        if isinstance(records, RecordIndex):
            return records.line_at(i)
        return getattr(records[i], "line", 0)

    def next_marked(self, mark: int, interpret: Callable[[Event], A.Action]) -> int | None:
        """Index of the next record after the current position with ``mark`` (:data:`TOOL_START`
        or :data:`ERROR`), among those read so far."""
        if self.index is not None:
            found = _MARK_SEARCH[mark].search(self.index.marks, self.position, self.total)
            return found.start() if found else None
        for i in range(self.position, self.total):
            rec = self.records[i]
            if marks_of(rec, interpret(rec) if isinstance(rec, Event) else None) & mark:
                return i
        return None

    def prev_marked(self, mark: int, interpret: Callable[[Event], A.Action]) -> int | None:
        """Index of the last record with ``mark`` before the event the position is on (the
        last one applied; the lines after it that are not events come with it: see
        :meth:`Events.after`), or None."""
        ev = self.events()
        e = ev.within(self.position)
        # (before the first event, each line is a stop of its own, as } makes it)
        end = ev.index_of(e) if e else self.position - 1
        if self.index is not None:
            marks = self.index.marks
            found = max(marks.rfind(bytes([v]), 0, max(0, end)) for v in _MARKED[mark])
            return found if found >= 0 else None
        for i in range(min(end, self.total) - 1, -1, -1):
            rec = self.records[i]
            if marks_of(rec, interpret(rec) if isinstance(rec, Event) else None) & mark:
                return i
        return None


def is_tool_start(rec: Record, action: A.Action | None) -> bool:
    if type(action) is A.Batch:  # (a message's calls side by side)
        return any(is_tool_start(rec, a) for a in action.actions)
    return isinstance(action, A.ToolStarted)


def is_error(rec: Record, action: A.Action | None) -> bool:
    if isinstance(rec, Malformed):
        return True
    if type(action) is A.Batch:  # (the results of calls side by side: one failed)
        return any(is_error(rec, a) for a in action.actions)
    if isinstance(action, A.ToolCompleted) and action.info is not None:
        return action.info.status in ("failed", "rejected")
    if isinstance(action, A.Result):
        return action.failed
    return type(action) is A.Notice and action.alert  # (an error the agent reported: the run went on)
