"""Runs: consecutive text deltas gathered by the decoder and applied at once by the model.

The TUI's feeds gather them (most events of a ``--stream-partial-output`` run are deltas);
whatever the stream, the model must end up exactly as if every line were applied alone.
"""

from __future__ import annotations

import random

import orjson
from conftest import check_accounting, model_of, model_state
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from viewer.core.decode import Event, Malformed, Run
from viewer.core.feed import BytesFeed
from viewer.core.model import StreamModel


def line(obj: dict) -> bytes:
    return orjson.dumps(obj) + b"\n"


def thinking(text: str, sid: str | None = "s1", ts: int | None = 1) -> bytes:
    obj: dict = {"type": "thinking", "subtype": "delta", "text": text}
    if sid is not None:
        obj["session_id"] = sid
    if ts is not None:
        obj["timestamp_ms"] = ts
    return line(obj)


def said(text: str, sid: str | None = "s1", ts: int | None = 2, call: str = "") -> bytes:
    obj: dict = {"type": "assistant", "message": {"role": "assistant", "content": [{"type": "text", "text": text}]}}
    if sid is not None:
        obj["session_id"] = sid
    if call:
        obj["model_call_id"] = call
    if ts is not None:
        obj["timestamp_ms"] = ts
    return line(obj)


INIT = line({"type": "system", "subtype": "init", "session_id": "s1", "model": "m"})


def test_deltas_become_one_event_and_a_run_and_every_line_is_counted():
    data = INIT + b"".join(thinking(t, ts=10 + i) for i, t in enumerate(["a", "", "b", "c"])) + said("x") + said("y")
    recs, dec = _decode(data)
    kinds = [type(r).__name__ for r in recs]
    assert kinds == ["Event", "Event", "Run", "Event", "Run"]
    run = recs[2]
    assert (run.kind, run.line, run.count, run.texts) == ("thinking", 3, 3, ["", "b", "c"])
    assert (run.first_ms, run.last_ms, run.session_id) == (11, 13, "s1")
    check_accounting(recs, dec)
    m, _, _ = model_of(data, runs=True)
    s = m.sessions[0]
    assert [(b.kind, b.text) for b in s.blocks] == [("thinking", "abc"), ("assistant", "xy"), ("end", "")]
    assert (s.events, s.last_line, s.first_ms, s.last_ms, s.empty_deltas) == (7, 7, 10, 13, 1)
    assert m.events == 7 and m.event_types["thinking"] == 4


def _decode(data: bytes, chunks=None):
    from conftest import decode_bytes

    return decode_bytes(data, chunks, runs=True)


def test_a_run_stops_at_another_session_kind_repeat_or_broken_line():
    data = (
        INIT + thinking("a") + thinking("b") + thinking("c", sid="s2") + thinking("d", sid="s2")
        + said("e") + said("e") + b'{"type":"thinking","subtype":"delta","text":"f\n' + said("g") + said("h")
        + said("i")
    )
    recs, dec = _decode(data)
    shape = [(type(r).__name__, r.line) for r in recs]
    assert shape == [
        ("Event", 1), ("Event", 2), ("Run", 3),  # s1
        ("Event", 4), ("Run", 5),  # s2
        ("Event", 6), ("Event", 7),  # a line repeated byte for byte is never in a run
        # nor is a line that is not JSON, nor the one after (it was tried as its second half)
        ("Malformed", 8), ("Event", 9), ("Event", 10), ("Run", 11),
    ]
    assert isinstance(recs[7], Malformed)
    check_accounting(recs, dec)


def test_consolidated_copies_and_resends_keep_their_meaning_inside_runs():
    # "ab" re-sent without model_call_id (before a query or retry): it replaces the deltas.
    data = INIT + said("a") + said("b") + said("ab") + said("c") + said("d") + said("cd", call="t1") + said("e")
    m, recs, _ = model_of(data, runs=True)
    assert any(isinstance(r, Run) for r in recs)
    texts = [(b.kind, b.text, b.open) for b in m.sessions[0].blocks if b.kind == "assistant"]
    assert texts == [("assistant", "ab", False), ("assistant", "cd", False), ("assistant", "e", False)]
    assert model_state(m) == model_state(model_of(data)[0])


def test_real_and_sample_streams_give_the_same_model_with_runs(real_streams):
    from conftest import sample_paths

    streams = dict(real_streams)
    streams.update((p.stem, p.read_bytes()) for p in sample_paths())
    gathered = 0
    for name, data in streams.items():
        want = model_state(model_of(data)[0])
        for size in (1 << 20, 997, 61):
            chunks = [size] * (len(data) // size)
            m, recs, dec = model_of(data, runs=True, chunks=chunks, clock=True)
            check_accounting(recs, dec)
            assert model_state(m) == model_state(model_of(data, chunks=chunks, clock=True)[0]), (name, size)
            assert model_state(model_of(data, runs=True, chunks=chunks)[0]) == want
            gathered += sum(r.count for r in recs if isinstance(r, Run))
    assert gathered > 1000  # the streams do have runs: the comparison means something


# Lines that make runs, break them, and test the model's rules for text at random.
DELTAS = [
    thinking("a"), thinking(""), thinking("b c"), thinking("a", sid="s2"), thinking("x", sid=None),
    thinking("t", ts=None), line({"type": "thinking", "subtype": "delta", "text": 5, "session_id": "s1"}),
    said("a"), said(""), said("ab"), said("b"), said("a", sid="s2"), said("z", sid=None), said("ab", call="t1"),
    said("a", ts=None), said("", ts=4), said("", ts=5), thinking("d", ts=9), thinking("e", ts=0),
    line({"type": "assistant", "message": "plain", "session_id": "s1", "timestamp_ms": 3}),
    line({"type": "assistant", "message": {"content": [{"type": "text", "text": "p"}, {"type": "image"}]},
          "session_id": "s1", "timestamp_ms": 3}),
    line({"type": "assistant", "message": {"content": [{"type": "text", "text": "q"}, {"text": "r"}]},
          "session_id": "s1", "timestamp_ms": 3}),
    line({"type": "thinking", "subtype": "completed", "session_id": "s1"}),
    INIT, line({"type": "system", "subtype": "init", "session_id": "s2"}),
    line({"type": "user", "message": {"content": [{"type": "text", "text": "hi"}]}, "session_id": "s1"}),
    line({"type": "tool_call", "subtype": "started", "call_id": "c1", "session_id": "s1",
          "tool_call": {"shellToolCall": {"args": {"command": "ls"}}}}),
    line({"type": "result", "subtype": "success", "is_error": False, "result": "ab", "session_id": "s1"}),
    b"\n", b"not json\n", b'{"type":"assistant","message":\n',
]


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(picks=st.lists(st.integers(0, len(DELTAS) - 1), max_size=60), seed=st.integers(0, 2**32 - 1))
def test_runs_never_change_the_model(picks, seed):
    data = b"".join(DELTAS[i] for i in picks)
    rnd = random.Random(seed)
    chunks = [rnd.randint(1, 200) for _ in range(len(data) // 50 + 1)]
    m, recs, dec = model_of(data, runs=True, chunks=chunks, clock=True)
    check_accounting(recs, dec)
    assert model_state(m) == model_state(model_of(data, chunks=chunks, clock=True)[0])


def test_the_app_feeds_gather_runs_and_a_plain_model_applies_them():
    """BytesFeed (like every feed) gathers runs once the app asks for them; the records apply
    to a fresh model like the lines would."""
    data = INIT + b"".join(thinking(t) for t in "abcdef") + said("x") + said("y") + said("z")
    feed = BytesFeed(data)
    feed.gather_runs(StreamModel().format)
    feed.start()
    recs = feed.wait()
    assert [type(r) for r in recs] == [Event, Event, Run, Event, Run]
    m = StreamModel()
    for r in recs:
        m.apply(r)
    assert [b.text for b in m.sessions[0].blocks] == ["abcdef", "xyz"]


def test_a_copy_of_a_runs_last_line_is_still_a_mirrored_duplicate():
    """stderr merged into stdout (2>&1) doubles every line, shown by a doubled init: a copy
    right after a run is dropped like any other copy."""
    data = INIT + INIT + thinking("a") + thinking("b") + thinking("c") + thinking("c")
    m, recs, _ = model_of(data, runs=True)
    assert any(isinstance(r, Run) for r in recs) and m.mirrored
    assert m.sessions[0].blocks[0].text == "abc" and m.duplicates == 2
    assert model_state(m) == model_state(model_of(data)[0])


def test_a_rejoined_copy_of_a_runs_last_line_is_a_mirrored_duplicate_too():
    """An event split over two lines (an unescaped newline) is compared with the event before by
    its object: after a run, that is the run's last line."""
    split = b'{"type":"thinking","subtype":"delta","text":"a\nb","session_id":"s1","timestamp_ms":1} \n'
    data = INIT + INIT + thinking("x") + thinking("y") + thinking("a\nb") + split
    m, recs, _ = model_of(data, runs=True)
    assert isinstance(recs[3], Run) and m.mirrored
    assert m.sessions[0].blocks[0].text == "xya\nb" and m.duplicates == 2
    assert model_state(m) == model_state(model_of(data)[0])


def test_a_run_names_the_first_block_it_touched_and_any_later_one_is_new():
    """The UI redraws the block a delta names and measures new blocks itself: a re-send in the
    middle of a run closes the open block (it must be named) and opens a new one after it."""
    m = StreamModel()
    recs, _ = _decode(INIT + said("a") + said("b") + said("ab") + said("c"))
    assert isinstance(recs[-1], Run) and recs[-1].texts == ["b", "ab", "c"]
    for r in recs[:-1]:
        m.apply(r)
    before = len(m.sessions[0].blocks)
    d = m.apply(recs[-1])
    blocks = m.sessions[0].blocks
    assert d.block == 0 and blocks[0].text == "ab" and not blocks[0].open
    assert len(blocks) == before + 1 and blocks[1].text == "c" and blocks[1].open


def test_live_arrival_times_are_the_same_with_runs():
    data = INIT + b"".join(thinking(t) for t in "abcdefgh") + said("x") + said("y")
    chunks = [40] * (len(data) // 40)
    m = model_of(data, runs=True, chunks=chunks, clock=True)[0]
    s = m.sessions[0]
    assert s.first_arrival is not None and s.last_arrival > s.first_arrival + 3
    assert model_state(m) == model_state(model_of(data, chunks=chunks, clock=True)[0])
