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

import re
from bisect import bisect_left, bisect_right
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from viewer.core import actions as A
from viewer.core.decode import Event, Malformed, Record, Restart
from viewer.core.formats import Format, get_format
from viewer.core.model import Delta, StreamModel

SPEEDS = [0.25, 0.5, 1.0, 2.0, 4.0, 8.0, 16.0, 32.0, 64.0]
READING_CHARS_PER_S = 60.0
DEFAULT_TOOL_S = 1.0
DEFAULT_EVENT_S = 0.05
DEFAULT_IDLE_LIMIT = 3.0


def with_restarts(records: list[Record], offsets: Sequence[int]) -> list[Record]:
    """``records`` of a ``--save`` copy with a :class:`Restart` where the followed file started
    over (``offsets``, from the timing sidecar): the replay ends the runs before it, as the
    live view did."""
    if not offsets:
        return records
    out: list[Record] = []
    marks = sorted(offsets)
    k = 0
    last_line = 0
    for rec in records:
        if not isinstance(rec, Restart):
            while k < len(marks) and rec.offset >= marks[k]:
                out.append(Restart(last_line))
                k += 1
            last_line = rec.end_line if isinstance(rec, Event) else rec.line
        out.append(rec)
    out.extend(Restart(last_line) for _ in marks[k:])  # at the very end (the viewer quit after it)
    return out


def _pace(rec: Record, fmt: Format) -> float:
    """A plausible time between the previous record and ``rec`` when the stream says nothing."""
    if isinstance(rec, Restart):
        return 0.0
    if isinstance(rec, Malformed):
        return DEFAULT_EVENT_S
    action = fmt.interpret(rec)
    if isinstance(action, A.AssistantText):
        return max(0.03, len(action.text) / READING_CHARS_PER_S)
    if isinstance(action, A.ToolCompleted):
        return DEFAULT_TOOL_S
    if isinstance(action, A.Thinking):
        return 0.03
    if isinstance(action, (A.Init, A.UserText)):
        return 0.3
    return DEFAULT_EVENT_S


def schedule(
    records: Sequence[Record],
    timing: list[tuple[int, int]] | None = None,
    idle_limit: float | None = DEFAULT_IDLE_LIMIT,
    fmt: Format | None = None,
) -> list[float]:
    """Play time in seconds for each record (non-decreasing, gaps capped at ``idle_limit``)."""
    fmt = fmt or get_format()
    raw: list[float] = []
    if timing:
        ends = [e for e, _ in timing]
        for rec in records:
            if isinstance(rec, Restart):  # at the time of what came before it
                raw.append(raw[-1] if raw else 0.0)
                continue
            end = rec.offset + rec.length
            i = bisect_left(ends, end)
            raw.append(timing[min(i, len(timing) - 1)][1] / 1000)
    else:
        prev_t = 0.0
        shift: float | None = None
        first = True
        for rec in records:
            nat = fmt.event_time_ms(rec) if isinstance(rec, Event) else None
            pace = 0.0 if first else _pace(rec, fmt)
            if nat is not None:
                if shift is None:
                    shift = prev_t + pace - nat / 1000
                t = max(prev_t, nat / 1000 + shift)
            else:
                t = prev_t + pace
            raw.append(t)
            prev_t, first = t, False
    out: list[float] = []
    last_raw = raw[0] if raw else 0.0
    now = 0.0
    for t in raw:
        gap = max(0.0, t - last_raw)
        if idle_limit is not None and idle_limit >= 0:
            gap = min(gap, idle_limit)
        now += gap
        out.append(now)
        last_raw = t
    return out


def _clock(seconds: float) -> str:
    s = int(seconds)  # rounded down, like the replay bar's clock
    return f"{s // 60}:{s % 60:02d}"


def parse_start_at(value: str, times: Sequence[float], idle_limit: float | None = None) -> int:
    """``--start-at``: an event number (``120``) or a time (``90s``, ``1:30``) -> records to apply.
    Times are replay times: with ``idle_limit``, longer pauses were shortened (the error says so)."""
    v = value.strip()
    if re.fullmatch(r"\d+", v):
        if int(v) > len(times):
            raise ValueError(f"--start-at {v}: the run has {len(times):,} events")
        return int(v)
    m = re.fullmatch(r"(?:(\d+):)?(\d+(?:\.\d+)?)(s?)", v)
    if m and (m.group(1) is not None or m.group(3)) and (m.group(1) is None or float(m.group(2)) < 60):
        seconds = float(m.group(2)) + 60 * int(m.group(1) or 0)
        end = times[-1] if times else 0.0
        if int(seconds) > int(end):  # in whole seconds, as the replay bar shows the duration
            if idle_limit is None:
                why = ""
            elif idle_limit == 0:
                why = " (--idle-limit 0 leaves every pause out)"
            else:
                why = (f" (pauses longer than {idle_limit:g} s are shortened to {idle_limit:g} s; "
                       "a larger --idle-limit keeps more of them)")
            raise ValueError(f"--start-at {v}: the run plays for {_clock(end)}{why}")
        return bisect_right(times, seconds)
    raise ValueError(f"--start-at expects an event number (120) or a time (90s, 1:30), not {value!r}")


@dataclass
class Progress:
    position: int
    total: int
    time: float
    duration: float
    speed: float
    playing: bool


class Replay:
    """Play control over a list of records with their play times."""

    def __init__(
        self,
        records: Sequence[Record],
        times: Sequence[float],
        *,
        speed: float = 1.0,
        playing: bool = True,
        ended: bool = True,
        checkpoint_every: int = 2000,
        model_factory: Callable[[], StreamModel] = StreamModel,
    ) -> None:
        if len(records) != len(times):
            raise ValueError("one play time per record")
        self.records = records
        self.times = times
        self.speed = speed
        self.playing = playing
        self.input_ended = ended  # the recording is complete: end the model at the last record
        self.checkpoint_every = max(1, checkpoint_every)
        self._factory = model_factory
        self.model = self._fresh_model()
        self.position = 0  # records applied
        self.clock_time = 0.0  # play time reached
        self._wall: float | None = None
        self._checkpoints: dict[int, StreamModel] = {}
        self._next_checkpoint = self.checkpoint_every
        self.generation = 0  # bumps whenever the model object is replaced (a seek back)

    # -- inspection -------------------------------------------------------------------------
    @property
    def total(self) -> int:
        return len(self.records)

    @property
    def duration(self) -> float:
        return self.times[-1] if self.times else 0.0

    @property
    def at_end(self) -> bool:
        return self.position >= self.total

    def progress(self) -> Progress:
        return Progress(self.position, self.total, self.clock_time, self.duration, self.speed, self.playing)

    # -- applying -------------------------------------------------------------------------------
    def _fresh_model(self) -> StreamModel:
        m = self._factory()
        if not self.records and self.input_ended:
            m.end()  # nothing to play: the recording is empty, not "waiting for events"
        return m

    def _apply_next(self) -> Delta:
        rec = self.records[self.position]
        d = self.model.apply(rec)
        self.position += 1
        if self.position >= self._next_checkpoint:
            self._checkpoints[self.position] = self.model.clone()
            # Spaced wider as the run grows (a fifth of the position): a few dozen checkpoints
            # even on 1M events, and a seek back re-applies at most that many records.
            self._next_checkpoint = self.position + max(self.checkpoint_every, self.position // 5)
        if self.position == self.total and self.input_ended:
            self.model.end()
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
            return []
        self.clock_time += (wall_now - self._wall) * self.speed
        self._wall = wall_now
        if self.position < self.total:
            n = bisect_right(self.times, self.clock_time)
            deltas = self._forward_to(n)
        else:
            deltas = []
        if self.at_end:
            self.clock_time = min(self.clock_time, self.duration)
            self.playing = False
        return deltas

    def seek(self, n: int) -> list[Delta]:
        """Move to ``n`` records applied.  Returns deltas when moving forward step by step;
        after a jump from a checkpoint the model is a new object (``generation`` changes)."""
        n = max(0, min(n, self.total))
        base = max((k for k in self._checkpoints if k <= n), default=0)
        if self.position <= n and (base <= self.position or n - self.position < 1000):
            deltas = self._forward_to(n)
        else:  # back, or far forward past a checkpoint: start from the nearest one
            self.model = self._checkpoints[base].clone() if base else self._fresh_model()
            self.position = base
            self._forward_to(n)
            self.generation += 1
            deltas = []
        self.clock_time = self.times[n - 1] if n > 0 else 0.0
        return deltas

    def seek_time(self, seconds: float) -> list[Delta]:
        return self.seek(bisect_right(self.times, seconds))

    # -- controls -------------------------------------------------------------------------------
    def toggle(self, wall_now: float) -> None:
        if not self.playing and self.at_end:
            self.seek(0)
        self.playing = not self.playing
        self._wall = wall_now

    def faster(self, step: int) -> float:
        i = min(range(len(SPEEDS)), key=lambda k: abs(SPEEDS[k] - self.speed))
        self.speed = SPEEDS[max(0, min(len(SPEEDS) - 1, i + step))]
        return self.speed

    def step(self, n: int) -> list[Delta]:
        self.playing = False
        return self.seek(self.position + n)

    def next_matching(self, predicate: Callable[[Record, A.Action | None], bool], interpret) -> int | None:
        """Index of the next record after the current position for which ``predicate`` holds."""
        for i in range(self.position, self.total):
            rec = self.records[i]
            action = interpret(rec) if isinstance(rec, Event) else None
            if predicate(rec, action):
                return i
        return None


def is_tool_start(rec: Record, action: A.Action | None) -> bool:
    return isinstance(action, A.ToolStarted)


def is_error(rec: Record, action: A.Action | None) -> bool:
    if isinstance(rec, Malformed):
        return True
    if isinstance(action, A.ToolCompleted) and action.info is not None:
        return action.info.status in ("failed", "rejected")
    if isinstance(action, A.Result):
        return action.is_error
    return False
