"""Replay: timing, pacing, stepping and seeking (fake clock, no sleeping)."""

from __future__ import annotations

import bisect
import hashlib
import os
from pathlib import Path

import orjson
import pytest

from viewer.core.feed import records_of
from viewer.core.model import StreamModel
from viewer.core.record import Recorder, read_timing
from viewer.core.replay import (
    DEFAULT_TOOL_S,
    ERROR,
    READING_CHARS_PER_S,
    TOOL_START,
    Replay,
    Scheduler,
    parse_start_at,
    schedule,
)
from viewer.core.sources import SourceError

REPO = Path(__file__).resolve().parents[1]
REAL = REPO.parent / "shared" / "real_streams" / "cursor"


def line(obj) -> bytes:
    return orjson.dumps(obj) + b"\n"


def untimed_run() -> bytes:
    """A run without any timestamps: replay must invent a plausible pace."""
    sid = "s-1"
    return b"".join(
        [
            line({"type": "system", "subtype": "init", "session_id": sid, "model": "M", "cwd": "/w"}),
            line({"type": "user", "message": {"content": [{"type": "text", "text": "hi"}]}, "session_id": sid}),
            line({"type": "assistant", "message": {"content": [{"type": "text", "text": "x" * 120}]}, "session_id": sid}),
            line({"type": "tool_call", "subtype": "started", "call_id": "c1", "session_id": sid,
                  "tool_call": {"readToolCall": {"args": {"path": "a.py"}}}}),
            line({"type": "tool_call", "subtype": "completed", "call_id": "c1", "session_id": sid,
                  "tool_call": {"readToolCall": {"args": {"path": "a.py"}, "result": {"success": {"content": "1"}}}}}),
            line({"type": "result", "subtype": "success", "is_error": False, "result": "x", "session_id": sid}),
        ]
    )


def timed_run(gap_ms: int = 60_000, t0: int = 1_790_000_000_000, sid: str = "s-2") -> bytes:
    return b"".join(
        [
            line({"type": "system", "subtype": "init", "session_id": sid}),
            line({"type": "thinking", "subtype": "delta", "text": "a", "session_id": sid, "timestamp_ms": t0}),
            line({"type": "thinking", "subtype": "completed", "session_id": sid, "timestamp_ms": t0 + 500}),
            line({"type": "tool_call", "subtype": "started", "call_id": "c", "session_id": sid, "timestamp_ms": t0 + 600,
                  "tool_call": {"shellToolCall": {"args": {"command": "sleep"}}, "startedAtMs": str(t0 + 600)}}),
            line({"type": "tool_call", "subtype": "completed", "call_id": "c", "session_id": sid,
                  "timestamp_ms": t0 + 600 + gap_ms,
                  "tool_call": {"shellToolCall": {"args": {"command": "sleep"}, "result": {"success": {"exitCode": 1}}},
                                "startedAtMs": str(t0 + 600), "completedAtMs": str(t0 + 600 + gap_ms)}}),
        ]
    )


def test_the_time_between_two_runs_joined_is_no_pause_of_a_run_s():
    """(From a replay trial.)  Two runs joined, the second months later: at its start the
    header said "⏩ a 4402h35m pause, played shortened".  Within a run a long pause still
    says its length."""
    t0 = 1_790_000_000_000
    result = line({"type": "result", "subtype": "success", "session_id": "s-2", "duration_ms": 61_000})
    later = t0 + 4402 * 3600 * 1000
    index = _file_index(timed_run(gap_ms=60_000) + result + timed_run(gap_ms=500, t0=later, sid="s-3"))
    index.read()
    r = Replay(index=index, playing=False)
    r.seek(4)  # the first run's call, a minute long, played as 3 s
    assert r.shortened_pause() == pytest.approx(60.0)
    for at in (6, 7, 8):  # past its result, the second's init, and its first time
        r.seek(at)
        assert r.shortened_pause() is None, at
        assert r.run_now_ms() in (t0 + 61_000, later), at  # (the first run's end its result says)


def test_times_follow_the_stream_and_idle_gaps_are_capped():
    recs = records_of(timed_run(gap_ms=60_000))
    uncapped = schedule(recs, idle_limit=None)
    assert uncapped[2] - uncapped[1] == pytest.approx(0.5)  # thinking 500 ms apart
    assert uncapped[4] - uncapped[3] == pytest.approx(60.0)  # the tool really took a minute
    capped = schedule(recs, idle_limit=2.0)
    assert capped[4] - capped[3] == pytest.approx(2.0)
    assert capped[2] - capped[1] == pytest.approx(0.5)  # short gaps untouched
    assert all(b >= a for a, b in zip(capped, capped[1:]))


def test_a_shortened_pause_plays_the_runs_own_time_faster_and_says_how_long_it_was():
    """(From a third new-user trial.)  A 57 s build, played as 3 s, held the header's clock of
    the run at 00:03, then it jumped to 01:00.  Between two records the events' clock goes on,
    at the pace the pause is played at; a pause that is shortened says its own length."""
    t0 = 1_790_000_000_000
    index = _file_index(timed_run(gap_ms=60_000))  # (idle limit: 3 s)
    index.read()
    r = Replay(index=index, playing=True)
    r.tick(100.0)
    r.tick(100.0 + index.times[3] + 0.1)  # a tenth of a second into the call's pause
    assert r.position == 4 and r.shortened_pause() == pytest.approx(60.0)
    assert r.run_now_ms() == pytest.approx(t0 + 600 + 60_000 * 0.1 / 3.0)
    r.tick(100.0 + index.times[3] + 1.5)  # half way
    assert r.run_now_ms() == pytest.approx(t0 + 600 + 30_000)
    r.toggle(200.0)  # paused: the run's clock stays
    r.tick(300.0)
    assert r.run_now_ms() == pytest.approx(t0 + 600 + 30_000)
    r.seek(2)  # between the thinking's two events: half a second, played as it was
    assert r.shortened_pause() is None and r.run_now_ms() == pytest.approx(t0)
    r.seek(r.total)  # at the end: the last event's time
    assert r.shortened_pause() is None and r.run_now_ms() == pytest.approx(t0 + 600 + 60_000)


def _run_clock_over_play(r: Replay, step: float = 0.05) -> list[float]:
    """The run clock at every ``step`` of play time, from the start to the end."""
    out = []
    r.seek(0)
    r.playing, clock = True, 0.0
    r.tick(clock)
    while not r.at_end:
        clock += step
        r.tick(clock)
        now = r.run_now_ms()
        if now is not None:
            out.append(now)
    return out


def test_the_run_clock_never_goes_back_with_runs_interleaved_or_lines_without_a_time():
    """(Review.)  Anchored to the shown run's last event, the clock went back whenever the
    record before a pause was another run's, or a line with no time of its own (a --save
    copy's "npm WARN" line, 30 s into a 57 s build, made the pause 29 s then 28 s: right, but
    the clock dropped from 29 s to 2 s there)."""
    t0 = 1_790_000_000_000
    events = []
    for i in range(6):  # runs a and b, their events 4 s apart, interleaved
        sid = "ab"[i % 2]
        events.append(line({"type": "assistant", "session_id": sid, "timestamp_ms": t0 + 4000 * i,
                            "message": {"content": [{"type": "text", "text": f"{sid}{i}"}]}}))
    idx = _file_index(b"".join(events))
    idx.read()
    clocks = _run_clock_over_play(Replay(index=idx, playing=True))
    assert clocks and all(b >= a for a, b in zip(clocks, clocks[1:])), clocks
    assert clocks[-1] == t0 + 20_000

    started = line({"type": "tool_call", "subtype": "started", "call_id": "c", "session_id": "s",
                    "timestamp_ms": t0, "tool_call": {"shellToolCall": {"args": {"command": "make"}}}})
    warn = b"npm WARN deprecated foo@1.0\n"
    done = line({"type": "tool_call", "subtype": "completed", "call_id": "c", "session_id": "s",
                 "timestamp_ms": t0 + 57_000,
                 "tool_call": {"shellToolCall": {"args": {"command": "make"}, "result": {"success": {"exitCode": 0}}}}})
    data = started + warn + done
    # As a --save copy's timing file has them: each line's end, when it arrived (ms).
    timing = [(len(started), 0), (len(started + warn), 30_000), (len(data), 57_000)]
    idx = _file_index(data, timing=timing)
    idx.read()
    clocks = _run_clock_over_play(Replay(index=idx, playing=True))
    assert all(b >= a for a, b in zip(clocks, clocks[1:])), clocks
    assert clocks[0] < t0 + 5_000 and clocks[-1] == t0 + 57_000
    assert any(t0 + 25_000 < c < t0 + 35_000 for c in clocks)  # it went through, not jumped


@pytest.mark.parametrize("path", [REPO / "sample_streams" / "demo_session.ndjson", *sorted(REAL.glob("*.ndjson"))],
                         ids=lambda p: p.name)
def test_the_run_clock_never_passes_the_runs_own_length_at_its_end(path):
    """(From a new-user trial.)  A run's final message and its result have no time of their
    own: the pace made up for the message (its reading time) moved the run's clock, to 01:08,
    then the result said the run took 1m06s and the header went back.  A record without a
    time moves the play clock only."""
    idx = _file_index(path.read_bytes())
    idx.read()
    r = Replay(index=idx, playing=True)
    clocks = _run_clock_over_play(r)
    assert all(b >= a for a, b in zip(clocks, clocks[1:]))
    s = r.model.current
    if not clocks or s is None or s.result is None or s.result.duration_ms is None or s.first_ms is None:
        return
    # (first_ms is the run's first event time; duration_ms counts from a little before it)
    assert clocks[-1] - s.first_ms <= s.result.duration_ms, (clocks[-1] - s.first_ms, s.result.duration_ms)


def test_a_saved_copy_replays_its_pauses_by_when_its_lines_arrived():
    """(From a fourth new-user trial.)  A --save copy's 12 s Read played in 3 s with the clock
    standing still: its events' times (the tool's own start and end, 356 ms apart) disagreed
    with when the lines arrived.  The clock is the arrival's, as the header counted it live."""
    t0 = 1_790_000_000_000
    started = line({"type": "tool_call", "subtype": "started", "call_id": "c", "session_id": "s", "timestamp_ms": t0,
                    "tool_call": {"readToolCall": {"args": {"path": "a"}}, "startedAtMs": str(t0)}})
    done = line({"type": "tool_call", "subtype": "completed", "call_id": "c", "session_id": "s",
                 "timestamp_ms": t0 + 400, "tool_call": {"readToolCall": {"args": {"path": "a"}, "result": {
                     "success": {"content": "x"}}}, "startedAtMs": str(t0), "completedAtMs": str(t0 + 356)}})
    idx = _file_index(started + done, timing=[(len(started), 0), (len(started + done), 12_000)])
    idx.read()
    r = Replay(index=idx, playing=True)
    r.tick(100.0)
    r.tick(101.5)  # half way through the 3 s the pause is played in
    assert r.position == 1 and r.shortened_pause() == pytest.approx(12.0)
    assert r.run_now_ms() == pytest.approx(t0 + 6_000)


def test_untimed_stream_gets_reading_pace_and_default_tool_time():
    recs = records_of(untimed_run())
    t = schedule(recs, idle_limit=None)
    assert t[2] - t[1] == pytest.approx(120 / READING_CHARS_PER_S)  # 120 chars of text
    assert t[4] - t[3] == pytest.approx(DEFAULT_TOOL_S)
    assert all(b > a for a, b in zip(t, t[1:]))


def test_tick_with_fake_clock_plays_at_speed_and_pauses():
    recs = records_of(timed_run(gap_ms=1000))
    times = schedule(recs, idle_limit=None)
    r = Replay(recs, times, speed=1.0)
    r.tick(100.0)  # first tick only starts the clock
    assert r.position == 0
    r.tick(100.0 + times[2])  # after the thinking: three events due (t=0, 0, 0.5)
    assert r.position == 3
    r.toggle(100.0 + times[2])  # pause
    r.tick(1000.0)
    assert r.position == 3, "paused replay must not advance"
    r.toggle(1000.0)
    r.speed = 4.0
    r.tick(1000.0 + (times[4] - times[2]) / 4)  # 4x speed covers the rest in a quarter of the time
    assert r.at_end and not r.playing
    assert r.model.current.state == "ended"


def _state(model: StreamModel):
    s = model.current
    if s is None:
        return None
    return (
        len(model.sessions), [b.kind for b in s.blocks], [b.text for b in s.blocks],
        [(t.call_id, t.status, t.target) for t in s.tools], s.state, len(model.malformed),
    )


def _applied(recs, n: int) -> StreamModel:
    """A model that applied the first ``n`` records (and ended, when that is all of them)."""
    m = StreamModel()
    for rec in recs[:n]:
        m.apply(rec)
    if n == len(recs):
        m.end()
    return m


def _all_streams():
    streams = [untimed_run(), timed_run()]
    if REAL.is_dir():
        streams += [p.read_bytes() for p in sorted(REAL.glob("*.ndjson"))]
    return streams


@pytest.mark.parametrize("data", _all_streams(), ids=lambda d: hashlib.sha1(d).hexdigest()[:8])
def test_seek_to_n_equals_applying_n_records(data):
    recs = records_of(data)
    times = schedule(recs)
    r = Replay(recs, times, checkpoint_every=3)
    n = len(recs)
    # forward to the end, then back and forth through every position
    r.seek(n)
    for target in [n // 2, 1, n - 1, 0, n // 3, n]:
        r.seek(target)
        assert _state(r.model) == _state(_applied(recs, target)), f"state differs after seeking to {target}"


def test_step_back_and_forward_one_event():
    recs = records_of(timed_run())
    r = Replay(recs, schedule(recs), checkpoint_every=2)
    r.seek(4)
    assert r.model.current.tools and r.model.current.tools[0].status == "running"
    r.step(1)
    assert r.model.current.tools[0].status == "failed"  # exit 1
    r.step(-1)
    assert r.model.current.tools[0].status == "running"
    assert not r.playing


def test_jump_to_next_tool_and_next_error():
    recs = records_of(timed_run())
    fmt = StreamModel().format
    r = Replay(recs, schedule(recs))
    assert r.next_marked(TOOL_START, fmt.interpret) == 3
    assert r.next_marked(ERROR, fmt.interpret) == 4  # the shell exited 1


def test_jump_to_previous_tool_and_previous_error():
    """[ and { (from a new-user trial: only ] and } went anywhere, and back was one event at a
    time): the last marked record before the one the replay is on, from a list of records and
    from a file index alike."""
    data = timed_run() + line({"type": "result", "subtype": "success", "is_error": False, "session_id": "s-2"})
    index = _file_index(data)
    index.read()
    fmt = StreamModel().format
    for r in (Replay(records_of(data), schedule(records_of(data))), Replay(index=index, playing=False)):
        r.seek(r.total)
        assert r.prev_marked(TOOL_START, fmt.interpret) == 3
        assert r.prev_marked(ERROR, fmt.interpret) == 4  # the shell exited 1
        r.seek(5)  # on that error: none before it
        assert r.prev_marked(ERROR, fmt.interpret) is None
        r.seek(4)  # on the call's start: no call before it
        assert r.prev_marked(TOOL_START, fmt.interpret) is None
        assert r.prev_marked(ERROR, fmt.interpret) is None
        r.seek(0)
        assert r.prev_marked(TOOL_START, fmt.interpret) is None


def test_start_at_accepts_events_and_times():
    times = [0.0, 1.0, 2.0, 65.0, 91.0]
    assert parse_start_at("3", times) == 3
    assert parse_start_at("90s", times) == 4
    assert parse_start_at("1:30", times) == 4
    with pytest.raises(ValueError):
        parse_start_at("soon", times)
    with pytest.raises(ValueError):
        parse_start_at("1:99", times)  # seconds of a minute
    assert parse_start_at("5", times) == 5 and parse_start_at("1:31", times) == 5  # the very end
    # Past the end is an error that says how long the run is, not a silent jump to the end.
    with pytest.raises(ValueError, match="the run has 5 events"):
        parse_start_at("9999", times)
    with pytest.raises(ValueError, match="the run plays for 1:31"):
        parse_start_at("2:00", times)
    times = [0.0, 90.6]  # the bar shows 01:30: 1:30 is the end, 1:31 is past it and says 1:30
    assert parse_start_at("1:30", times) == 1
    with pytest.raises(ValueError, match="the run plays for 1:30"):
        parse_start_at("1:31", times)
    # The advice about --idle-limit only when a pause was shortened (from a trial: at
    # --idle-limit 1000, and for a run with no pause, it sent the user after the wrong cause).
    with pytest.raises(ValueError, match=r"^--start-at 5m: the run plays for 1:30$"):
        parse_start_at("5m", times, idle_limit=1000)
    with pytest.raises(ValueError, match=r"plays for 1:30 \(pauses longer than 3 s are shortened to 3 s"):
        parse_start_at("5m", [0.0, 87.6, 90.6], idle_limit=3)


def test_an_empty_recording_ends_at_once_instead_of_waiting_for_events():
    r = Replay([], [], playing=False)
    assert r.model.ended and r.at_end
    r.seek(0)
    assert r.model.ended


def test_speed_steps_are_bounded():
    r = Replay([], [])
    for _ in range(20):
        r.faster(1)
    assert r.speed == 64
    for _ in range(20):
        r.faster(-1)
    assert r.speed == 0.25


@pytest.mark.parametrize("start, step, expected", [
    (3.0, -1, 2.0), (3.0, 1, 4.0), (5.0, -1, 4.0), (1.5, -1, 1.0), (48.0, -1, 32.0), (0.3, 1, 0.5),
    (2.0, -1, 1.0), (2.0, 1, 4.0),
])
def test_speed_steps_from_a_speed_between_two_go_to_the_next_one(start, step, expected):
    """(From a code review.)  --speed 3, then -: 1×, skipping 2× (the nearest step was taken
    first, then one more)."""
    r = Replay([], [], speed=start)
    assert r.faster(step) == expected


@pytest.mark.parametrize("value", ["0s", "0:00", "0"])
def test_start_at_nought_is_the_start(value):
    """(From a code review.)  --start-at 0s applied the first record (its play time is 0),
    where --start-at 0 and Home apply none; a file of one line was over at once."""
    assert parse_start_at(value, [0.0, 0.0, 1.5]) == 0
    from viewer.core.replay import StartAt

    for data in (timed_run(), timed_run().splitlines(keepends=True)[0]):  # (one line too)
        recs = records_of(data)
        r = Replay(recs, schedule(recs), playing=False)
        assert r.begin_at(StartAt(value)) == "" and r.position == 0 and not r.at_end


def test_recorder_timing_sidecar_drives_replay(tmp_path):
    clock_values = iter([10.0, 12.5])
    path = tmp_path / "run.ndjson"
    rec = Recorder(str(path), clock=lambda: next(clock_values))
    data = untimed_run()
    first, second = data[:200], data[200:]
    rec.write(first)
    rec.write(second)
    rec.close()
    assert path.read_bytes() == data
    timing = read_timing(str(path))
    assert timing == [(200, 0), (len(data), 2500)]
    recs = records_of(data)
    t = schedule(recs, timing, idle_limit=None)
    # lines wholly inside the first 200 bytes arrived at 0 s, the rest at 2.5 s
    for r_, when in zip(recs, t):
        assert when == (0.0 if r_.offset + r_.length < 200 else 2.5)


def test_a_timing_file_left_by_another_run_is_not_used_and_is_said(tmp_path, monkeypatch):
    """(From a replay trial.)  A run saved again under the same name (``agent … >
    run.ndjson``) left the old run's sidecar beside it: the replay played the 115 KB file
    by a 10 KB run's times, in 8 s instead of 52 s, and said nothing."""
    from viewer.core.record import timing_mismatch
    from viewer.ui import launch
    from viewer.ui.replay import ReplayApp

    clock_values = iter([10.0, 12.5])
    path = tmp_path / "run.ndjson"
    rec = Recorder(str(path), clock=lambda: next(clock_values))
    data = untimed_run()
    rec.write(data[:200])
    rec.write(data[200:])
    rec.close()
    timing = read_timing(str(path))
    assert timing_mismatch(str(path), len(data), timing) == ""  # its own
    started: list[ReplayApp] = []
    monkeypatch.setattr(ReplayApp, "run", lambda self, *a, **k: started.append(self))
    monkeypatch.setenv("TEXTUAL_DRIVER", "headless")  # (launch wants a terminal on stderr)
    launch.launch_replay(str(path))
    assert started[-1].notices == [] and started[-1].replay.index.arrivals is not None
    # A copy still being written, or cut short, is its own (from a review: the size read a
    # chunk before or after the sidecar's end)
    assert timing_mismatch(str(path), 200, timing) == ""  # (the sidecar a chunk ahead)
    with open(path, "ab") as f:
        f.write(b'{"type": "assistant"')  # (a chunk whose time was not written yet, or never)
    assert timing_mismatch(str(path), len(data) + 20, timing) == ""
    later = timed_run(gap_ms=2_000)
    sidecar = str(path) + ".timing"
    os.utime(sidecar, (os.stat(sidecar).st_atime, os.stat(sidecar).st_mtime - 60))  # saved a minute ago
    path.write_bytes(later)  # another run, the old sidecar left
    why = timing_mismatch(str(path), len(later), timing)
    assert why.startswith(f"run.ndjson.timing holds the times of {len(data)} B of events, and run.ndjson holds "
                          f"{len(later)} B, written after them: it is not this file's"), why
    launch.launch_replay(str(path))
    app = started[-1]
    assert app.notices == [("Timing file", why)]
    assert app.replay.index.arrivals is None  # (played by the events' own times)


def test_a_copy_saved_from_a_burst_replays_by_the_events_own_times(tmp_path):
    """(From a new-user trial.)  `cat run.ndjson | agent-viewer --save copy.ndjson`: every line
    arrived at once, and the copy replayed in no time at all.  Its events' times are used."""
    clock_values = iter([10.0, 10.002])
    path = tmp_path / "copy.ndjson"
    rec = Recorder(str(path), clock=lambda: next(clock_values))
    data = timed_run(gap_ms=2_000)
    rec.write(data[:300])
    rec.write(data[300:])
    rec.close()
    timing = read_timing(str(path))
    assert timing is not None and timing[-1][1] - timing[0][1] < 1000  # a burst
    recs = records_of(data)
    assert schedule(recs, timing, idle_limit=None) == schedule(recs, None, idle_limit=None)
    assert schedule(recs, timing, idle_limit=None)[-1] >= 2.0  # the call's two seconds
    spread = [(300, 0), (len(data), 1500)]  # arrivals that say something are still used
    assert schedule(recs, spread, idle_limit=None)[-1] == 1.5
    # (From a review.)  A big file piped in takes more than a second, but comes far faster
    # than an agent writes: 46 MB in 1.2 s.
    fast = [(300, 0), (46 << 20, 1200)]
    assert schedule(recs, fast, idle_limit=None) == schedule(recs, None, idle_limit=None)


def test_recorder_reports_a_full_disk_and_stops(tmp_path):
    if not Path("/dev/full").exists():
        pytest.skip("no /dev/full")
    rec = Recorder.__new__(Recorder)
    Recorder.__init__(rec, str(tmp_path / "ok.ndjson"))
    rec.write(b'{"type":"x"}\n')  # (the disk fills during the run)
    rec._data.close()
    rec._data = open("/dev/full", "wb", buffering=0)
    rec.write(b'{"type":"y"}\n')
    assert rec.error and "No space left" in rec.error
    rec.write(b"more\n")  # no exception after the failure
    rec.close()


def test_recorder_says_what_it_saved(tmp_path):
    """What the TUI says on stderr as it exits with --save: the size saved, or that the file
    was left as it was (or not made) when nothing was read."""
    path = tmp_path / "copy.ndjson"
    rec = Recorder(str(path))
    rec.close()
    assert rec.outcome() == f"nothing was saved: {path} was not written" and not path.exists()
    path.write_bytes(b"old\n")
    rec = Recorder(str(path))
    rec.close()
    assert rec.outcome() == f"nothing was saved: {path} was left as it was" and path.read_bytes() == b"old\n"
    rec = Recorder(str(path))
    rec.write(b'{"type":"x"}\n' * 200)
    rec.close()
    assert rec.outcome() == f"saved 2.5 KB to {path}" and path.stat().st_size == 2600


def test_recorder_saves_to_a_fifo_and_leaves_no_file_through_a_dangling_symlink(tmp_path):
    """(From a review.)  Emptying the copy at the first bytes (ftruncate) failed on a FIFO:
    "saving to f stopped: Invalid argument".  And a symlink to nothing yet, with nothing read,
    left its target behind, said to be "left as it was"."""
    import threading

    fifo = tmp_path / "f"
    os.mkfifo(fifo)
    got = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_bytes()))
    reader.start()
    rec = Recorder(str(fifo))
    rec.write(b'{"type":"x"}\n')
    rec.close()
    reader.join(5)
    assert rec.error is None and got == [b'{"type":"x"}\n']

    link = tmp_path / "link.ndjson"
    link.symlink_to(tmp_path / "target.ndjson")
    rec = Recorder(str(link))
    rec.close()
    assert not (tmp_path / "target.ndjson").exists() and link.is_symlink()
    assert rec.outcome() == f"nothing was saved: {link} was not written"


def test_recorder_ignores_writes_after_it_is_closed(tmp_path):
    """A reader thread may still tee a chunk while the viewer quits and closes the copy."""
    rec = Recorder(str(tmp_path / "copy.ndjson"))
    rec.write(b'{"type":"x"}\n')
    rec.close()
    rec.write(b'{"type":"late"}\n')  # used to raise ValueError (I/O on a closed file)
    assert (tmp_path / "copy.ndjson").read_bytes() == b'{"type":"x"}\n'


def test_start_at_past_the_end_says_pauses_were_shortened():
    """The run's own duration (the header) can be longer than the replay: --start-at counts
    replay time, and its error says why the two differ."""
    times = [0.0, 1.0, 4.0]
    with pytest.raises(ValueError, match=r"plays for 0:04 \(pauses longer than 3 s are shortened to 3 s"):
        parse_start_at("10s", times, idle_limit=3.0)


def test_a_saved_copy_of_a_replaced_followed_file_replays_with_the_old_run_ended(tmp_path):
    """--follow --save: the followed file was replaced by another run.  The timing sidecar marks
    the restart (old readers skip the line), and a replay ends the old run there, as the live view
    did: its call still running becomes unfinished instead of running on through the next run."""
    import orjson

    from viewer.core.model import StreamModel
    from viewer.core.record import Recorder, read_restarts, read_timing
    from viewer.core.replay import with_restarts
    from viewer.core.sources import iter_records

    def line(**kw) -> bytes:
        return orjson.dumps(kw) + b"\n"

    old = line(type="system", subtype="init", session_id="a") + line(
        type="tool_call", subtype="started", call_id="c1", session_id="a",
        tool_call={"shellToolCall": {"args": {"command": "sleep 99"}}})
    new = line(type="system", subtype="init", session_id="b") + line(
        type="user", session_id="b", message={"content": [{"type": "text", "text": "again"}]})
    path = tmp_path / "copy.ndjson"
    followed = tmp_path / "run.ndjson"
    followed.write_bytes(b"")
    rec = Recorder(str(path), clock=iter(range(100)).__next__)
    rec.write(old[:-1])  # the old file's last line has no newline yet: the copy gets one
    rec.restarted(str(followed))
    rec.write(new)
    rec.close()
    assert read_restarts(str(path)) == [len(old)]
    assert read_timing(str(path)) is not None and all(len(p) == 2 for p in read_timing(str(path)))

    with open(path, "rb") as f:
        records = with_restarts(list(iter_records(f)), read_restarts(str(path)))
    m = StreamModel()
    for r in records:
        m.apply(r)  # the whole copy, before the end of input
    first, second = m.sessions
    assert first.ended and first.tools[0].status == "unfinished"
    assert not second.ended and second.prompt == "again"


def test_a_restart_marked_at_the_very_end_of_a_copy_still_ends_its_runs():
    from viewer.core.decode import Restart
    from viewer.core.replay import with_restarts
    from viewer.core.sources import iter_records

    data = b'{"type":"system","subtype":"init","session_id":"a"}\n'
    import io

    records = list(iter_records(io.BytesIO(data)))
    out = with_restarts(records, [len(data), len(data) + 50])
    assert [type(r) for r in out] == [type(records[0]), Restart, Restart]


# -- a saved file, read by a FileIndex (what --replay plays) --------------------------------


def _file_index(data: bytes, **options):
    from viewer.core.replay import FileIndex
    from viewer.core.sources import MemoryStore

    return FileIndex(MemoryStore(data), len(data), **options)


def _samples():
    streams = _all_streams()
    streams += [p.read_bytes() for p in sorted((REPO / "sample_streams").glob("*.ndjson"))]
    # Mirrored (2>&1), CRLF, BOM, split and malformed lines: what the decoder keeps as they are.
    base = timed_run()
    lines = base.splitlines(keepends=True)
    streams.append(b"".join(x + x for x in lines))
    streams.append(b"\xef\xbb\xbf" + base.replace(b"\n", b"\r\n"))
    streams.append(lines[0] + b'{"type":"user","message":{"content":[{"type":"text","text":"a\nb"}]}}\n'
                   + b"not json\n\n" + b"".join(lines[1:]) + b'{"type":"cut')
    return streams


def _same_record(a, b) -> bool:
    from viewer.core.decode import Event

    if type(a) is not type(b):
        return False
    if type(a) is Event:
        return (a.line, a.line_count, a.offset, a.length, a.data, a.repeat) == (
            b.line, b.line_count, b.offset, b.length, b.data, b.repeat)
    return a == b


@pytest.mark.parametrize("data", _samples(), ids=lambda d: hashlib.sha1(d).hexdigest()[:8])
def test_a_file_index_holds_the_records_times_and_marks_of_the_whole_file(data):
    """What a replay plays from a file's compact index is what it played from the parsed
    records: the same records (events parsed again from the file), times and ]/} stops."""
    from viewer.core.replay import marks_of

    recs = records_of(data)
    index = _file_index(data, checkpoint_every=5)
    index.read()
    assert index.complete and index.fraction is None and index.error is None
    assert len(index.records) == len(recs)
    assert all(_same_record(a, b) for a, b in zip(index.records, recs))
    assert list(index.times) == schedule(recs)
    m = StreamModel()
    for r in recs:
        m.apply(r)
    fmt = m.format  # (the format the stream's first events tell)
    assert list(index.marks) == [marks_of(r, fmt.interpret(r) if hasattr(r, "data") else None) for r in recs]


@pytest.mark.parametrize("data", _samples()[:12], ids=lambda d: hashlib.sha1(d).hexdigest()[:8])
def test_seeking_a_file_index_replay_equals_applying_n_records(data):
    recs = records_of(data)
    index = _file_index(data, checkpoint_every=3)
    index.read()
    r = Replay(index=index)
    n = len(recs)
    for target in [n, n // 2, 1, n - 1, 0, n // 3, n, max(0, n - 2)]:
        r.seek(target)
        assert _state(r.model) == _state(_applied(recs, target)), f"state differs after seeking to {target}"
        assert r.model.ended == (target == n)


def test_a_replay_plays_what_is_read_and_ends_only_when_the_whole_file_is():
    data = timed_run(gap_ms=1000)
    index = _file_index(data)
    index.read(until=lambda: len(index.records) >= 3)
    assert not index.complete and 0 < index.fraction <= 1
    r = Replay(index=index, speed=64.0)
    r.tick(0.0)
    r.tick(1000.0)  # long past every record read so far
    assert r.position == 3 and r.playing, "it waits for more, still playing"
    assert not r.model.ended
    assert r.progress().reading is not None
    index.read()
    r.tick(1001.0)
    assert r.at_end and not r.playing
    assert r.model.ended and r.progress().reading is None


def test_the_end_of_the_file_ends_a_paused_replay_waiting_at_the_last_record():
    data = timed_run()
    n = len(records_of(data))
    index = _file_index(data)
    index.read(until=lambda: len(index.records) >= 2)
    r = Replay(index=index, playing=False)
    r.seek(r.total)  # End while reading: the end of what is read so far
    assert r.position == 2 and not r.model.ended
    index.read(until=lambda: len(index.records) >= n)  # every record, but the end not seen yet
    r.seek(r.total)
    assert r.position == n and not r.model.ended
    index.read()  # the end of the file
    r.tick(5.0)
    assert r.model.ended and r.model.current.state == "ended"


def test_next_tool_and_next_error_search_only_what_is_read():
    data = timed_run()
    index = _file_index(data)
    index.read(until=lambda: len(index.records) >= 3)
    r = Replay(index=index, playing=False)
    assert r.next_marked(TOOL_START, None) is None  # the tool call is the 4th record
    index.read()
    assert r.next_marked(TOOL_START, None) == 3
    assert r.next_marked(ERROR, None) == 4


def test_a_file_index_keeps_restarts_from_the_timing_sidecar():
    """A --follow --save copy whose followed file started over: the index puts the restart
    where the list path (with_restarts) does."""
    from viewer.core.replay import with_restarts

    data = untimed_run() + timed_run()
    mark = len(untimed_run())
    expected = list(with_restarts(records_of(data), [mark, len(data) + 10]))
    ends = [i + 1 for i in range(len(data)) if data[i] == 0x0A]
    # (and with its arrival times, as a copy has them: its records carry them; a restart stopped
    # the reading, from a review)
    for timing in (None, [(end, 250 * i) for i, end in enumerate(ends)]):
        index = _file_index(data, restarts=[mark, len(data) + 10], timing=timing)
        index.read()
        assert index.error is None and index.complete
        assert [type(r).__name__ for r in index.records] == [type(r).__name__ for r in expected]
        assert all(_same_record(a, b) for a, b in zip(index.records, expected))
        r = Replay(index=index)
        r.seek(r.total)
        assert r.model.ended and r.arrival_now() == (250 * (len(ends) - 1) / 1000 if timing else 0.0)


def test_an_event_of_a_file_changed_since_it_was_read_is_shown_as_such():
    from viewer.core.decode import Malformed
    from viewer.core.replay import FileIndex
    from viewer.core.sources import MemoryStore

    data = untimed_run()
    store = MemoryStore(data)
    index = FileIndex(store, len(data))
    index.read()
    store.data[:] = b"x" * len(data)  # overwritten in place
    rec = index.records[1]
    assert isinstance(rec, Malformed) and "changed" in rec.reason
    r = Replay(index=index)
    r.seek(r.total)  # plays on: no exception
    assert r.position == r.total


def test_start_at_reads_a_big_file_only_up_to_there(tmp_path):
    """--start-at 5 on a file of several MB: the replay is at event 5 before the UI starts,
    with the rest of the file still to read (in the background once the UI runs)."""
    from viewer.core.feed import StoreFeed
    from viewer.core.replay import FileIndex
    from viewer.ui.launch import begin_at

    one = timed_run()
    data = one * (3 * (1 << 20) // len(one) + 1)
    path = tmp_path / "big.ndjson"
    path.write_bytes(data)

    def fresh():
        index = FileIndex(StoreFeed(str(path)).store, len(data))
        return Replay(index=index, playing=True), index

    r, index = fresh()
    begin_at(r, index, str(path), "5", None, wait=60)
    assert r.position == 5 and r.playing and not index.complete and index.bytes_read < len(data)
    r, index = fresh()
    begin_at(r, index, str(path), "1s", None, wait=60)
    assert r.position == bisect.bisect_right(list(index.times), 1.0) and not index.complete
    r, index = fresh()
    with pytest.raises(SourceError, match="the run has"):
        begin_at(r, index, str(path), str(10**9), None, wait=60)
    assert index.complete  # to say how long the run is, it read all of it
    with pytest.raises(SourceError, match="expects an event number"):
        begin_at(*fresh(), str(path), "", None)


def test_start_at_in_a_file_too_big_to_read_that_far_at_once_goes_there_once_it_is_read(tmp_path):
    """The UI does not wait for a far --start-at: the replay waits, paused, and goes there
    when the file is read that far (or says why it cannot, at the end)."""
    from viewer.core.feed import StoreFeed
    from viewer.core.replay import FileIndex
    from viewer.ui.launch import begin_at

    data = timed_run() * 200
    path = tmp_path / "run.ndjson"
    path.write_bytes(data)
    for target, why in (("700", ""), ("99999", "the run has")):
        index = FileIndex(StoreFeed(str(path)).store, len(data))
        r = Replay(index=index, playing=True)
        begin_at(r, index, str(path), target, None, wait=0.0)
        assert r.start is not None and not r.playing and r.position == 0
        assert r.settle_start() is None  # not read that far yet
        index.read()
        said = r.settle_start()
        if why:
            # (From a code review.)  It stayed paused, though neither --paused nor a key said so.
            assert why in said and r.position == 0 and r.playing
        else:
            assert said == "" and r.position == 700 and r.playing and r.start is None


def test_start_at_takes_hours_as_the_bar_shows_them():
    from viewer.core.replay import start_at_target

    assert start_at_target("1:02:30") == ("time", 3750.0)
    assert start_at_target("5m") == ("time", 300.0) and start_at_target("1h30m") == ("time", 5400.0)
    for bad in ("", "1:60:00", "1:99", "soon", "-5"):
        with pytest.raises(ValueError):
            start_at_target(bad)
    with pytest.raises(ValueError, match=r"plays for 1:00:01"):
        parse_start_at("2h", [0.0, 3601.0])


def test_a_file_that_shrinks_while_it_is_read_says_so():
    from viewer.core.replay import FileIndex
    from viewer.core.sources import MemoryStore

    data = timed_run()
    index = FileIndex(MemoryStore(data[: len(data) // 2]), len(data))  # (as when cut after it was opened)
    index.read()
    assert index.complete and "shrank" in index.error


@pytest.mark.parametrize("every", [1, 2, 1000])
def test_the_end_of_a_cut_recording_does_not_change_the_copies_seeks_start_from(every):
    """A call still running when the recording ends is unfinished at the end, and running
    again one event before, however often the replay goes back and forth (copies of the model
    share calls until one changes)."""
    lines = timed_run().splitlines(keepends=True)
    data = b"".join(lines[:4]) + lines[1]  # cut while the call runs: its start, then a delta
    index = _file_index(data, checkpoint_every=every)
    index.read()
    r = Replay(index=index)
    for _ in range(3):
        r.seek(5)
        assert r.model.current.tools[0].status == "unfinished"
        r.seek(4)
        assert r.model.current.tools[0].status == "running"
        r.step(1)
        assert r.model.current.tools[0].status == "unfinished"
        r.seek(0)
        r.seek(5)
        r.step(-1)
        assert r.model.current.tools[0].status == "running"


def test_the_end_of_the_file_read_between_two_looks_does_not_end_the_run_a_record_early():
    """The reading thread may add the last records and finish between the replay's look at
    how many records there are and its look at whether the file is read: the run ended one
    record early, and its result came after "ended without a result" (seen 104 times in
    4,298 tries by a reviewer)."""
    data = untimed_run()
    index = _file_index(data)
    real = index.records
    n = len(records_of(data))

    class ReadInBetween:
        """index.records whose length is read just before the rest of the file is (what a
        thread switch at that moment does)."""

        armed = False

        def add(self, rec, arrival=None):
            real.add(rec, arrival)

        def __getitem__(self, i):
            return real[i]

        def __len__(self):
            k = len(real)
            if ReadInBetween.armed:
                ReadInBetween.armed = False
                index.read()
            return k

    index.records = ReadInBetween()
    index.read(until=lambda: len(real) >= n - 1)
    r = Replay(index=index, playing=False)
    r.seek(r.total)
    ReadInBetween.armed = True
    r.tick(1.0)
    ReadInBetween.armed = False
    assert not r.model.ended  # one record is still to play
    index.read()
    r.seek(n)
    assert r.model.ended and [b.kind for b in r.model.current.blocks][-1] == "result"


def test_seeks_from_the_copies_kept_near_where_seeks_went_give_the_same_model(monkeypatch):
    """A seek from afar keeps a copy NEAR_SPAN records before where it went; steps back start
    from it.  (NEAR_SPAN made small so that the demo run has room for such copies.)"""
    import viewer.core.replay as R

    monkeypatch.setattr(R, "NEAR_SPAN", 7)
    data = (REPO / "sample_streams" / "demo_session.ndjson").read_bytes()
    recs = records_of(data)
    index = _file_index(data, checkpoint_every=50)
    index.read()
    r = Replay(index=index)
    n = len(recs)
    near_used = 0
    for target in [n, n - 1, n - 2, n - 9, n // 2, n // 2 - 1, n // 2 - 3, 40, 39, n - 1, n // 2 - 2]:
        before = list(r._near)
        r.seek(target)
        near_used += any(at <= target and at > max(0, r._checkpoints.at_or_before(target)[0]) for at, _ in before)
        assert _state(r.model) == _state(_applied(recs, target)), f"state differs after seeking to {target}"
    assert near_used >= 3 and len(r._near) <= R.NEAR_KEPT


def _counting_applies(r) -> list[int]:
    """How many records ``r`` applies (a one-item list, counted as it goes)."""
    count = [0]
    apply = r._apply_next

    def counted():
        count[0] += 1
        return apply()

    r._apply_next = counted
    return count


def test_steps_back_from_the_end_start_from_a_copy_near_it(monkeypatch):
    """The index keeps copies NEAR_SPAN records apart near the file's end (the last two): a
    step back from End re-applies at most twice NEAR_SPAN records, not the way from the last
    checkpoint (up to a tenth of the run: 70 ms at 100k events, 8,000 records)."""
    import viewer.core.replay as R

    monkeypatch.setattr(R, "NEAR_SPAN", 7)
    monkeypatch.setattr(R, "TAIL_SPAN", 28)
    data = (REPO / "sample_streams" / "demo_session.ndjson").read_bytes()
    recs = records_of(data)
    n = len(recs)
    index = _file_index(data, checkpoint_every=200)
    index.read()
    assert n > 300 and index.checkpoints.at_or_before(n - 1)[0] < n - 100  # (the last one is far back)
    # (the last ones, 7 apart: within 14 of the end, as the bytes left tell it)
    assert len(index.tail) == 2 and all(n - 21 < at <= n for at, _ in index.tail), [at for at, _ in index.tail]
    r = Replay(index=index)
    r.seek(n)
    applied = _counting_applies(r)
    for target in range(n - 1, index.tail[0][0] - 1, -1):  # (back to the first of them)
        applied[0] = 0
        r.seek(target)
        assert applied[0] <= 14, f"{applied[0]} records applied to step back to {target}"
        assert _state(r.model) == _state(_applied(recs, target)), f"state differs after seeking to {target}"


def test_a_big_record_at_the_start_does_not_bring_copies_all_the_way(monkeypatch):
    """(From a review.)  Copies near the end were told by the mean record's size: a big
    record at the start made every record seem near the end, and a copy was taken every
    NEAR_SPAN records through the whole file (a copy takes 10 ms at 1M events).  The size of
    the last NEAR_SPAN records tells it."""
    import viewer.core.replay as R

    monkeypatch.setattr(R, "NEAR_SPAN", 7)
    monkeypatch.setattr(R, "TAIL_SPAN", 70)  # (the run's last line, its result, is 40 of its small lines)
    data = (REPO / "sample_streams" / "demo_session.ndjson").read_bytes()
    big = orjson.dumps({"type": "user", "message": {"content": [{"type": "text", "text": "x" * 400_000}]}}) + b"\n"
    copies = []
    clone = StreamModel.clone
    monkeypatch.setattr(StreamModel, "clone", lambda m: copies.append(1) or clone(m))
    index = _file_index(big + data, checkpoint_every=10_000)
    index.read()
    n = len(index.records)
    assert n > 300 and len(index.checkpoints) == 1  # (the model itself, at the end: no copy)
    assert 2 <= len(copies) <= 16, f"{len(copies)} copies near the end of {n} records"
    assert all(n - 21 < at <= n for at, _ in index.tail)


def _wait_for(condition, timeout: float = 10.0) -> None:
    import time

    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.001)


def test_a_copy_of_the_index_s_model_a_record_past_the_seek_is_taken_for_end_only(monkeypatch):
    """While a seek asks reading to wait, reading may add a record first: the index's model
    is then a record past where the seek goes.  End takes it (the end moved on); a seek to a
    place (``--start-at 160``) does not: it lands where it was asked to (from a review)."""
    import viewer.core.replay as R

    monkeypatch.setattr(R, "NEAR_SPAN", 7)
    monkeypatch.setattr(R, "TAIL_SPAN", 0)
    data = (REPO / "sample_streams" / "demo_session.ndjson").read_bytes()
    recs = records_of(data)
    index = _file_index(data, checkpoint_every=100)
    index.read(until=lambda: len(index.records) >= 160)
    r = Replay(index=index, playing=False)
    copy_now = index.copy_now

    def a_record_on():  # (reading added one more record before it waited)
        k = len(index.records) + 1
        index.read(until=lambda: len(index.records) >= k)
        return copy_now()

    monkeypatch.setattr(index, "copy_now", a_record_on)
    r.seek(160)
    assert r.position == 160 and _state(r.model) == _state(_applied(recs, 160))
    r.seek(0)
    applied = _counting_applies(r)
    r.seek_end()  # (the end of what is read: 161, and reading adds the 162nd meanwhile)
    assert r.position == 162 and applied[0] == 0
    assert _state(r.model) == _state(_applied(recs, 162))


def test_end_while_the_file_is_read_is_the_index_s_own_model_copied(monkeypatch):
    """End while the rest of the file is read: reading waits between two records, and the
    replay takes a copy of the model the index has built so far (it applied every record
    again from the last checkpoint: up to a tenth of what was read, a tenth of a second at
    70k records)."""
    import viewer.core.replay as R

    monkeypatch.setattr(R, "NEAR_SPAN", 7)
    monkeypatch.setattr(R, "TAIL_SPAN", 0)  # (no copies at the file's end: its start is read)
    data = (REPO / "sample_streams" / "demo_session.ndjson").read_bytes()
    recs = records_of(data)
    index = _file_index(data, checkpoint_every=100)
    index.read(until=lambda: len(index.records) >= 160)
    r = Replay(index=index, playing=False)
    index.hold += 1  # (as the app does while it seeks: reading waits after its next record)
    index.start()
    _wait_for(lambda: len(index.records) > 160)
    read = len(index.records)
    assert read < len(recs) and index.checkpoints.at_or_before(read)[0] <= 100
    applied = _counting_applies(r)
    r.seek(r.total)
    assert applied[0] == 0 and r.position == read
    assert _state(r.model) == _state(_applied(recs, read))
    assert r.model is not index._model  # (a copy: reading goes on in its own)
    index.hold -= 1
    index._thread.join(10)
    assert index.complete
    r.seek(len(recs))
    assert _state(r.model) == _state(_applied(recs, len(recs)))
    r.seek(read)  # (and the copy taken while reading was the model there)
    assert _state(r.model) == _state(_applied(recs, read))


def test_a_call_started_twice_keeps_each_copy_of_the_model_as_it_was():
    """The same start again (another target) changes the call: a copy of the model taken
    before must still show the first target."""
    sid = "s"
    start = {"type": "tool_call", "subtype": "started", "call_id": "c", "session_id": sid,
             "tool_call": {"readToolCall": {"args": {"path": "first.py"}}}}
    again = {**start, "tool_call": {"readToolCall": {"args": {"path": "second.py"}}}}
    data = b"".join(line(x) for x in (
        {"type": "system", "subtype": "init", "session_id": sid}, start,
        {"type": "thinking", "subtype": "delta", "text": "a", "session_id": sid}, again,
        {"type": "thinking", "subtype": "delta", "text": "b", "session_id": sid}))
    index = _file_index(data, checkpoint_every=1)
    index.read()
    r = Replay(index=index)
    r.seek(5)
    assert r.model.current.tools[0].target.endswith("second.py")
    r.seek(3)
    assert r.model.current.tools[0].target.endswith("first.py")


def test_the_run_clock_goes_on_through_records_with_no_time_of_their_own():
    """Between two calls a run's messages have no time of their own: the clock went on only
    at the next call, in one jump.  It now goes on through them, to that call's time."""
    t0 = 1_790_000_000_000
    started = {"type": "tool_call", "subtype": "started", "call_id": "c", "session_id": "s", "timestamp_ms": t0,
               "tool_call": {"shellToolCall": {"args": {"command": "make"}}}}
    msgs = [{"type": "assistant", "session_id": "s", "message": {"content": [{"type": "text", "text": "x" * 60}]}}
            for _ in range(4)]
    later = {"type": "thinking", "subtype": "completed", "session_id": "s", "timestamp_ms": t0 + 2_000}
    idx = _file_index(b"".join(line(e) for e in [started, *msgs, later]))
    idx.read()
    r = Replay(index=idx, playing=True)
    clocks = _run_clock_over_play(r, step=0.02)
    assert all(b >= a for a, b in zip(clocks, clocks[1:]))
    assert clocks[-1] == t0 + 2_000
    between = {c for c in clocks if t0 < c < t0 + 2_000}
    assert len(between) > 10, sorted(between)  # (it went through, not held then jumped)


def test_numbers_no_clock_holds_are_no_time_and_do_not_stop_the_replay():
    """(From a code review.)  A ``timestamp_ms`` of 400 nines (a string: the format allows
    numbers as strings) stopped the replay's reading at that line with an OverflowError, and
    the rest of the run was never played; one of -1.7e308 then 1.7e308 made the pause between
    them infinite, which the app could not draw."""
    huge = "9" * 400
    for first, second in ((1000, huge), (-1.7e308, 1.7e308)):
        data = (line({"type": "system", "subtype": "init", "session_id": "s"})
                + line({"type": "thinking", "subtype": "delta", "text": "x", "session_id": "s", "timestamp_ms": first})
                + line({"type": "thinking", "subtype": "completed", "session_id": "s", "timestamp_ms": second})
                + line({"type": "assistant", "message": {"content": [{"type": "text", "text": "after"}]},
                        "session_id": "s"})
                + line({"type": "result", "subtype": "success", "is_error": False, "result": "after",
                        "session_id": "s"}))
        idx = _file_index(data)
        idx.read()
        assert idx.error is None and idx.complete and len(idx.records) == 5
        r = Replay(index=idx, playing=True)
        for n in range(6):
            r.seek(n)
            pause = r.shortened_pause()
            assert pause is None or pause < 1e9
        assert r.model.current.state == "succeeded"


def test_a_start_at_time_too_big_for_a_float_is_an_error_not_a_traceback():
    """(From a code review.)  ``--start-at`` of 400 nines and an s raised OverflowError."""
    for value in ("9" * 400 + "s", "9" * 400 + ":00", "9" * 400 + "m", "1:" + "9" * 400 + ":00"):
        with pytest.raises(ValueError, match="--start-at"):
            parse_start_at(value, [0.0, 10.0])


def test_next_error_stops_at_a_result_that_failed_by_its_subtype():
    """(From a code review.)  A result of subtype ``error_max_turns`` with ``is_error`` false
    is a failed run to the header and the exit status; ``}`` went past it ("No error after this
    point")."""
    data = (line({"type": "system", "subtype": "init", "session_id": "s"})
            + line({"type": "assistant", "message": {"content": [{"type": "text", "text": "hi"}]}, "session_id": "s"})
            + line({"type": "result", "subtype": "error_max_turns", "is_error": False, "session_id": "s"}))
    recs = records_of(data)
    r = Replay(recs, schedule(recs), playing=False)
    fmt = StreamModel().format
    assert r.next_marked(ERROR, fmt.interpret) == 2  # (the index of the result's record)
    r.seek(3)
    assert r.model.current.state == "failed"


def test_a_runs_clock_does_not_count_the_wait_for_the_next_run():
    """(From a new-user trial.)  Two runs of one session, 4m41s apart: through the first run's
    final message (no time of its own) its clock went on toward the second run's first time,
    and showed 02:09 for a run of 2.2 s.  Between two runs it holds."""
    data = (REPO / "sample_streams" / "two_sessions.ndjson").read_bytes()
    idx = _file_index(data)
    idx.read()
    r = Replay(index=idx, playing=True)
    lines = data.splitlines()
    result = next(i for i, x in enumerate(lines) if orjson.loads(x)["type"] == "result")
    times = [t for x in lines[:result] if (t := orjson.loads(x).get("timestamp_ms"))]
    # (its clock goes on to the run's end its result says, 13 ms after its last time)
    last_time = max(max(times), min(times) + orjson.loads(lines[result])["duration_ms"])
    r.seek(0)
    r.tick(0.0)
    clock = 0.0
    while r.position <= result:  # up to the first run's result, not after it
        assert r.run_now_ms() is None or r.run_now_ms() <= last_time, (r.position, r.run_now_ms() - last_time)
        clock += 0.05
        r.tick(clock)


@pytest.mark.parametrize("idle_limit", [None, 1000.0])
def test_a_runs_clock_goes_on_to_the_end_its_result_says_through_its_final_message(idle_limit):
    """(From a replay trial.)  Cursor's final message and result have no time of their own:
    the header's clock stood at 00:49 while the message played (18 s), then said "in 1m06s",
    the result's duration; shortened to 3 s, the pause was not said either.  The clock goes
    on to the end the result says, faster when the pause is played shortened, and says so."""
    data = (REPO / "sample_streams" / "demo_session.ndjson").read_bytes()
    index = _file_index(data, **({} if idle_limit is None else {"idle_limit": idle_limit}))
    index.read()
    lines = data.splitlines()
    duration = orjson.loads(lines[-1])["duration_ms"]
    last_time = max(t for x in lines if (t := orjson.loads(x).get("timestamp_ms")))
    final = len(lines) - 2  # (the final message's record: the last but one)
    r = Replay(index=index, playing=True)
    r.tick(0.0)
    start, end = index.times[final - 1], index.times[final + 1]
    seen = []
    for k in range(1, 10):
        r.tick(start + (end - start) * k / 10)
        seen.append(r.run_now_ms())
    assert all(a < b for a, b in zip(seen, seen[1:])), seen  # it runs, not stands
    assert last_time < seen[0] and seen[-1] < index.first_event_ms + duration
    pause = r.shortened_pause()
    assert (pause is None) if idle_limit else pause == pytest.approx(17.0, abs=0.5)
    r.tick(end + 0.01)
    assert r.at_end and r.run_now_ms() == pytest.approx(index.first_event_ms + duration)


def test_a_runs_clock_taken_on_to_its_results_end_does_not_hold_back_the_next_runs():
    """(From a review of the change above.)  Cursor's duration is longer than its events' span
    (12.2 s against 2.2 s): the first run's end was past the next run's start, 4 s after its
    last time, and the second run's clock began 6 s in and stood still until it caught up."""
    objs = [orjson.loads(x) for x in (REPO / "sample_streams" / "two_sessions.ndjson").read_bytes().splitlines()]
    res1 = next(i for i, o in enumerate(objs) if o["type"] == "result")
    last1 = max(o["timestamp_ms"] for o in objs[:res1] if o.get("timestamp_ms"))
    first2 = min(o["timestamp_ms"] for o in objs[res1 + 1:] if o.get("timestamp_ms"))
    shift = first2 - (last1 + 4000)
    for o in objs[res1 + 1:]:
        if o.get("timestamp_ms"):
            o["timestamp_ms"] -= shift
    data = b"".join(orjson.dumps(o) + b"\n" for o in objs)
    index = _file_index(data)
    index.read()
    r = Replay(index=index, playing=False)
    first_timed = next(i for i, o in enumerate(objs) if i > res1 and o.get("timestamp_ms"))
    seen = []
    for p in (first_timed + 1, first_timed + 2):
        r.seek(p)
        seen.append(r.run_now_ms() - objs[first_timed]["timestamp_ms"])
    assert seen == [0, objs[first_timed + 1]["timestamp_ms"] - objs[first_timed]["timestamp_ms"]], seen


def test_a_saved_copys_run_clock_goes_on_to_a_result_with_a_time_of_its_own():
    """(From a review of the change above.)  With a --save copy's arrival times the result has
    a time of its own: the clock held through the run's final pause, then jumped."""
    t0 = 1_790_000_000_000
    objs = [({"type": "system", "subtype": "init", "session_id": "s"}, 0),
            ({"type": "tool_call", "subtype": "started", "call_id": "c", "session_id": "s", "timestamp_ms": t0 + 2000,
              "tool_call": {"shellToolCall": {"args": {"command": "make"}}}}, 2000),
            ({"type": "tool_call", "subtype": "completed", "call_id": "c", "session_id": "s", "timestamp_ms": t0 + 50_000,
              "tool_call": {"shellToolCall": {"args": {"command": "make"}, "result": {"success": {"exitCode": 0}}}}},
             50_000),
            ({"type": "result", "subtype": "success", "is_error": False, "session_id": "s"}, 60_000)]
    data, timing = b"", []
    for o, ms in objs:
        data += line(o)
        timing.append((len(data), ms))
    idx = _file_index(data, timing=timing)
    idx.read()
    r = Replay(index=idx, playing=True)
    r.seek(3)  # the call completed: its final pause, to the result, plays
    r.playing, r.clock_time = True, r.times[2]
    start = r.run_now_ms()
    r.tick(0.0)
    r.tick(1.0)  # a second into the pause
    assert r.position == 3 and r.run_now_ms() > start


def _with_malformed() -> bytes:
    """timed_run with a line that is not JSON at its start, two after its first event, and one
    at its end: 6 events among 10 lines."""
    lines = timed_run().splitlines(keepends=True)
    lines.append(line({"type": "result", "subtype": "success", "is_error": False, "session_id": "s-2"}))
    return b"".join([b"Error: warming up\n", lines[0], b"{oops\n", b"not json\n", *lines[1:], b"tail garbage\n"])


@pytest.mark.parametrize("from_file", [False, True], ids=["records", "file index"])
def test_the_replay_counts_events_as_h_does_not_malformed_lines(from_file):
    """From a trial: the bar read "event 6/34" where h said 30 events (4 malformed lines), and
    --start-at 30 stopped short of the last events.  The bar, a step and --start-at N count
    events; the lines that are not events come with the event before them."""
    data = _with_malformed()
    recs = records_of(data)
    if from_file:
        index = _file_index(data)
        index.read()
        r = Replay(index=index, playing=False)
    else:
        r = Replay(recs, schedule(recs), playing=False)
    full = _applied(recs, len(recs))
    assert full.events == 6 and full.malformed_lines == 4 and len(recs) == 10
    p = r.progress()
    assert (p.events, p.event_total, p.total) == (0, 6, 10)
    r.step(1)  # the init, with the malformed line before it and the two after it
    assert (r.position, r.progress().events) == (4, 1)
    assert r.model.malformed_lines == 3
    r.step(-1)
    assert r.position == 0  # the start: before every line
    r.step(1)
    r.step(1)  # the second event
    assert (r.position, r.progress().events) == (5, 2)
    r.step(-1)  # back to the first event, and the lines after it
    assert (r.position, r.progress().events) == (4, 1)
    r.seek(len(recs) - 2)  # the last event applied
    r.step(1)  # nothing but a malformed line left: it goes to the end
    assert r.at_end and (r.progress().events, r.progress().event_total) == (6, 6)
    assert r.model.malformed_lines == 4
    assert r.step_target(1) == len(recs) + 1  # past the end (the app says so)
    r.seek(0)
    assert r.step_target(-1) == -1
    # --start-at counts events too: 6 is the last (through the line after it, as a step goes),
    # 7 is past it
    assert parse_start_at("6", r.times, events=r.events()) == len(recs)
    assert parse_start_at("5", r.times, events=r.events()) == len(recs) - 2
    assert parse_start_at("1", r.times, events=r.events()) == 4  # (as a step there)
    assert parse_start_at("2", r.times, events=r.events()) == 5
    assert parse_start_at("0", r.times, events=r.events()) == 0
    with pytest.raises(ValueError, match="the run has 6 events"):
        parse_start_at("7", r.times, events=r.events())


@pytest.mark.parametrize("from_file", [False, True], ids=["records", "file index"])
def test_a_run_joined_after_a_later_one_plays_and_clocks_by_its_own_times(from_file):
    """(From a trial: `cat new.ndjson old.ndjson`.)  The second run's times are a day before the
    first's: it played at once (its play time stood still), and its clock read "24:26:56" (the
    events' clock, which never goes back, stayed at the first run's end)."""
    day = 86_400_000
    data = timed_run(gap_ms=2_000, sid="new") + timed_run(gap_ms=2_000, t0=1_790_000_000_000 - day, sid="old")
    recs = records_of(data)
    if from_file:
        index = _file_index(data)
        index.read()
        times, clock = list(index.times), list(index.event_times)
    else:
        s = Scheduler(None, 3.0, StreamModel().format)
        times, clock = zip(*[(s.time(r), s.event_ms) for r in recs])
    first, second = times[:5], times[5:]
    assert second[-1] - second[0] == pytest.approx(first[-1] - first[0])  # as long as the first
    assert clock[-1] - clock[6] == pytest.approx(2_600)  # its own clock: 2.6 s from its first time
    assert clock[6] == 1_790_000_000_000 - day


def test_back_jumps_reach_every_line_before_the_first_event():
    """(From a review.)  } stops at each line before the first event, and { found none of them
    (it searched before the first event's group, which starts at 0)."""
    fmt = StreamModel().format
    for data in (b"bad 1\nbad 2\nbad 3\n" + timed_run(), b"bad 1\nbad 2\nbad 3\n"):
        index = _file_index(data)
        index.read()
        r = Replay(index=index, playing=False)
        r.seek(3)  # after the third bad line
        assert r.prev_marked(ERROR, fmt.interpret) == 1
        r.seek(2)
        assert r.prev_marked(ERROR, fmt.interpret) == 0
        if r.total > 3:
            r.seek(4)  # after the init: the bad lines before it
            assert r.prev_marked(ERROR, fmt.interpret) == 2


def test_a_run_started_beside_another_does_not_set_the_clock_back():
    """(From a review.)  A second run's init, then the first run's call whose start time is a
    little before the event before it (as in two_sessions.ndjson): the events' clock went back
    92 ms.  Only a run's start a minute or more back starts the clock again."""
    t = 1_790_000_000_000
    data = b"".join([
        line({"type": "system", "subtype": "init", "session_id": "a"}),
        line({"type": "assistant", "session_id": "a", "timestamp_ms": t,
              "message": {"content": [{"type": "text", "text": "x"}]}}),
        line({"type": "system", "subtype": "init", "session_id": "b"}),
        line({"type": "tool_call", "subtype": "started", "call_id": "c", "session_id": "a", "timestamp_ms": t - 92,
              "tool_call": {"shellToolCall": {"args": {"command": "ls"}}, "startedAtMs": str(t - 92)}}),
    ])
    s = Scheduler(None, 3.0, StreamModel().format)
    clock = [(s.time(r), s.event_ms)[1] for r in records_of(data)]
    assert clock[-1] == t
