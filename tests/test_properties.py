"""Property tests: whatever bytes arrive, the core neither raises nor loses lines.

Each test stays within a few seconds (bounded ``max_examples``, no deadline
because the first examples pay for imports and orjson warm-up).
"""

from __future__ import annotations

import io
import random

import orjson
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from viewer.core.decode import Event
from viewer.core.formats.cursor import RESULT_KEYS
from viewer.core.model import StreamModel
from viewer.core.printer import JsonPrinter, StreamJsonPrinter, TextPrinter
from viewer.core.sources import LineSplitter

FAST = settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])

# Pieces that make interesting streams when glued together at random.
FRAGMENTS = [
    b"\n", b"\r\n", b"\r", b"\xef\xbb\xbf", b"{", b"}", b"[", b"]", b'"', b"\\", b"\\n", b":", b",",
    b'{"type":"system","subtype":"init","session_id":"s1"}',
    b'{"type":"system","subtype":"init","session_id":"s2"}',
    b'{"type":"user","message":{"content":[{"type":"text","text":"hi"}]},"session_id":"s1"}',
    b'{"type":"assistant","message":{"content":[{"type":"text","text":"ok"}]},"session_id":"s1"}',
    b'{"type":"assistant","message":{"content":[{"type":"text","text":"o"}]},"timestamp_ms":5}',
    b'{"type":"tool_call","subtype":"started","call_id":"c1","tool_call":{"shellToolCall":{"args":{"command":"ls"}}},"session_id":"s1"}',
    b'{"type":"tool_call","subtype":"completed","call_id":"c1","tool_call":{"shellToolCall":{"result":{"success":{"exitCode":1}}}},"session_id":"s1"}',
    b'{"type":"tool_call","subtype":"completed","call_id":"c2","tool_call":{"xToolCall":{"result":{"rejected":{}}}},"session_id":"s2"}',
    b'{"type":"tool_call","subtype":"started","call_id":"a\nb","tool_call":{"readToolCall":{"args":{"path":"p"}}}}',
    b'{"type":"tool_call","subtype":"started","tool_call":null,"call_id":5}',
    b'{"type":"tool_call","subtype":"completed","tool_call":{"function":{"name":"f","arguments":"{\\"a\\":1}"}}}',
    b'{"type":"interaction_query","subtype":"request","query":{"id":"q","x":{"args":{"title":"T"}}}}',
    b'{"type":"interaction_query","subtype":"response","response":{"id":"q","x":{"result":{"rejected":{"reason":"no"}}}}}',
    b'{"type":"thinking","subtype":"delta","text":""}',
    b'{"type":"thinking","subtype":"completed"}',
    b'{"type":"result","subtype":"success","is_error":false,"result":"ok","session_id":"s1","duration_ms":"7"}',
    b'{"type":"result","subtype":"error","is_error":true,"result":null}',
    b'{"type":"retry","subtype":"starting","attempt":1}',
    b'{"type":"result","subtype":"success","is_error":false,"session_id":["x"],"result":"x"}',
    b'{"type":"system","subtype":"init","session_id":{"a":1}}',
    b'{"type":"result","subtype":"success","is_error":false,"session_id":7,"result":["x"]}',
    b'{"type":"assistant","message":"plain string","session_id":""}',
    b'{"type":"mystery"}', b"{}", b"[]", b"null", b'"str"', b"1e400", b'{"a":"\\ud800"}',
    b"\xff\xfe", b"\xc3", b"T: error text", b" ", b"\x00",
]

stream_bytes = st.lists(
    st.one_of(st.sampled_from(FRAGMENTS), st.binary(max_size=12)), max_size=40
).map(b"".join)


def run_model(recs, check_each=False, h=None):
    m = StreamModel()
    for r in recs:
        m.apply(r)
        if check_each:
            h.check_status_counts(m)
    m.end()
    return m


def _drive(printer, data: bytes, recs) -> int:
    """Feed a printer the way the CLI does (physical lines when it takes them, else records)."""
    if hasattr(printer, "feed_lines") and hasattr(printer, "finish"):
        sp = LineSplitter()
        for i in range(0, len(data), 7):
            printer.feed_lines(sp.feed(data[i : i + 7]))
        printer.feed_lines(sp.flush())
        return printer.finish()
    for r in recs:
        printer.handle(r)
    return printer.close()


def run_printers(data: bytes, recs) -> None:
    text_out = io.StringIO()
    assert _drive(TextPrinter(text_out, io.StringIO()), data, recs) in (0, 1)
    json_out = io.StringIO()
    code = _drive(JsonPrinter(json_out, io.StringIO()), data, recs)
    assert code in (0, 1)
    # One result object when the stream has a result (a failed run's too), else nothing; a
    # success always has one.
    out = json_out.getvalue()
    # Cursor's keys first, in order; or (a stream another agent's by its first event: Gemini
    # CLI's init is {"type": "init"}) a result event as it came.
    assert out == "" or list(orjson.loads(out))[: len(RESULT_KEYS)] == list(RESULT_KEYS) or any(
        isinstance(r, Event) and r.data == orjson.loads(out) for r in recs)
    assert out or code == 1
    sj_out = io.BytesIO()
    # Every event again, and the same verdict on the run as json mode.
    assert _drive(StreamJsonPrinter(sj_out, io.StringIO()), data, recs) == code
    # stream-json re-emits every event as exactly one line of JSON.
    lines = sj_out.getvalue().splitlines()
    assert len(lines) == sum(1 for r in recs if isinstance(r, Event))
    for line in lines:
        assert isinstance(orjson.loads(line), dict)


@FAST
@given(data=st.binary(max_size=400))
def test_arbitrary_bytes(h, data):
    recs, dec = h.decode(data)
    h.check_accounting(recs, dec)
    m = run_model(recs)
    assert m.lines_accounted(dec.blank_lines) == dec.lines_seen
    h.check_status_counts(m)


@FAST
@given(data=stream_bytes)
def test_structured_noise(h, data):
    recs, dec = h.decode(data)
    h.check_accounting(recs, dec)
    m = run_model(recs, check_each=True, h=h)
    assert m.lines_accounted(dec.blank_lines) == dec.lines_seen
    for s in m.sessions:
        assert s.running == 0
        assert s.state in ("succeeded", "failed", "ended")
    run_printers(data, recs)


@FAST
@given(data=stream_bytes, seed=st.integers(0, 2**32 - 1))
def test_chunking_never_changes_records(h, data, seed):
    whole, _ = h.decode(data)
    rng = random.Random(seed)
    sizes = [rng.randint(1, 9) for _ in range(len(data) // 3 + 1)]
    parts, _ = h.decode(data, chunks=sizes)

    def fp(recs):
        return [(type(r).__name__, r.line, r.offset, r.length,
                 orjson.dumps(r.data) if isinstance(r, Event) else r.reason) for r in recs]

    assert fp(parts) == fp(whole)


def mutate(data: bytes, ops: list[tuple[int, int, int]]) -> bytes:
    """Apply (kind, position, amount) edits, positions taken modulo the current size."""
    buf = bytearray(data)
    for kind, pos, amount in ops:
        if not buf:
            buf = bytearray(data[:1])
        p = pos % len(buf)
        if kind == 0:  # flip a byte
            buf[p] ^= 1 << (amount % 8)
        elif kind == 1:  # delete a run of bytes
            del buf[p : p + amount % 64 + 1]
        elif kind == 2:  # insert a newline (splits a line)
            buf[p:p] = b"\n"
        elif kind == 3:  # drop a whole line
            lines = bytes(buf).splitlines(keepends=True)
            del lines[p % len(lines)]
            buf = bytearray(b"".join(lines))
        elif kind == 4:  # duplicate a line
            lines = bytes(buf).splitlines(keepends=True)
            i = p % len(lines)
            lines.insert(i, lines[i])
            buf = bytearray(b"".join(lines))
        elif kind == 5:  # truncate
            del buf[p:]
        elif kind == 6:  # insert random garbage
            buf[p:p] = bytes([amount % 256]) * (amount % 5 + 1)
    return bytes(buf)


ops_strategy = st.lists(
    st.tuples(st.integers(0, 6), st.integers(0, 10**7), st.integers(0, 255)), min_size=1, max_size=12
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(pick=st.integers(0, 10**6), ops=ops_strategy)
def test_mutated_real_streams(h, real_streams, pick, ops):
    names = sorted(real_streams)
    data = mutate(real_streams[names[pick % len(names)]], ops)
    recs, dec = h.decode(data)
    h.check_accounting(recs, dec)
    m = run_model(recs)
    h.check_status_counts(m)
    assert m.lines_accounted(dec.blank_lines) == dec.lines_seen
    for s in m.sessions:
        assert s.running == 0
    run_printers(data, recs)


@settings(max_examples=100, deadline=None)
@given(pick=st.integers(0, 10**6), seed=st.integers(0, 2**32 - 1))
def test_status_counts_stay_consistent_while_streaming(h, real_streams, pick, seed):
    """Interleave two real streams line by line, checking the counters after every record."""
    names = sorted(real_streams)
    a = real_streams[names[pick % len(names)]].splitlines(keepends=True)
    b = real_streams[names[(pick // len(names)) % len(names)]].splitlines(keepends=True)
    rng = random.Random(seed)
    merged = []
    while a or b:
        src = a if (a and (not b or rng.random() < 0.5)) else b
        merged.append(src.pop(0))
    recs, dec = h.decode(b"".join(merged))
    h.check_accounting(recs, dec)
    run_model(recs, check_each=True, h=h)
