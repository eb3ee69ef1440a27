"""Decoder and line splitting: bytes -> Event / Malformed records.

What a user relies on: every physical line of the input is accounted for
(an event line, a malformed line with its number and a reason, or a blank
line), events survive encoding noise, and the result does not depend on how
the bytes were chunked when they arrived.
"""

from __future__ import annotations

import json
import random

import orjson
import pytest

from viewer.core.decode import PREVIEW_CHARS, Decoder, Event, Malformed, parse_span
from viewer.core.sources import LineSplitter

INIT = b'{"type":"system","subtype":"init","session_id":"s1","model":"Auto","cwd":"/tmp"}'
USER = b'{"type":"user","message":{"role":"user","content":[{"type":"text","text":"hi"}]},"session_id":"s1"}'
RESULT = (
    b'{"type":"result","subtype":"success","is_error":false,"duration_ms":5,"duration_api_ms":5,'
    b'"result":"done","session_id":"s1","request_id":"r1"}'
)


def events(recs):
    return [r for r in recs if isinstance(r, Event)]


def malformed(recs):
    return [r for r in recs if isinstance(r, Malformed)]


def fingerprint(recs):
    """Everything a consumer sees of the records (arrival times aside)."""
    out = []
    for r in recs:
        if isinstance(r, Event):
            out.append(("E", r.line, r.line_count, r.offset, r.length, orjson.dumps(r.data)))
        else:
            out.append(("M", r.line, r.offset, r.length, r.reason, r.preview))
    return out


# -- encoding noise -------------------------------------------------------------


def test_utf8_bom_is_ignored(h):
    data = b"\xef\xbb\xbf" + INIT + b"\n" + USER + b"\n"
    recs, dec = h.decode(data)
    h.check_accounting(recs, dec)
    assert not malformed(recs)
    evs = events(recs)
    assert [e.type for e in evs] == ["system", "user"]
    assert [e.line for e in evs] == [1, 2]
    # The offset points past the BOM, at the JSON object itself.
    assert data[evs[0].offset : evs[0].offset + evs[0].length] == INIT


def test_nul_bytes_before_an_event_leave_the_event(h):
    """A file truncated under a writer that went on at its old offset (logrotate's
    copytruncate) has NUL bytes where the old content was: the next event was lost in a
    malformed line with them.  A line of NULs alone stays malformed."""
    data = INIT + b"\n" + b"\0" * 5000 + USER + b"\n" + b"\0" * 8 + b"\n" + b"\0\0not json\n" + RESULT + b"\n"
    recs, dec = h.decode(data)
    h.check_accounting(recs, dec)
    evs = events(recs)
    assert [e.type for e in evs] == ["system", "user", "result"] and [e.line for e in evs] == [1, 2, 5]
    assert data[evs[1].offset : evs[1].offset + evs[1].length] == USER  # (its bytes, not the NULs)
    assert [m.line for m in malformed(recs)] == [3, 4]
    # ... and the reasons say what they hold ("not JSON: a line of text" said nothing of NULs)
    assert [m.reason for m in malformed(recs)] == [
        "only NUL bytes, as left where a file was cut short under its writer", "NUL bytes, then not JSON"]


def test_crlf_line_endings(h):
    data = INIT + b"\r\n" + USER + b"\r\n\r\n" + RESULT + b"\r\n"
    recs, dec = h.decode(data)
    h.check_accounting(recs, dec)
    assert not malformed(recs)
    assert [e.type for e in events(recs)] == ["system", "user", "result"]
    assert [e.line for e in events(recs)] == [1, 2, 4]
    assert dec.blank_lines == 1
    for e in events(recs):
        assert not data[e.offset : e.offset + e.length].endswith(b"\r")
    assert events(recs)[2].data["result"] == "done"


def test_blank_lines_are_counted_not_malformed(h):
    data = b"\n\n" + INIT + b"\n   \n\t\n\r\n" + USER + b"\n\n"
    recs, dec = h.decode(data)
    h.check_accounting(recs, dec)
    assert not malformed(recs)
    assert dec.blank_lines == 6
    assert dec.lines_seen == 8
    assert [e.line for e in events(recs)] == [3, 7]


def test_invalid_utf8_keeps_the_event_with_replacement_chars(h):
    data = b'{"type":"assistant","message":{"content":[{"type":"text","text":"caf\xe9 \xff ok"}]}}\n' + USER + b"\n"
    recs, dec = h.decode(data)
    h.check_accounting(recs, dec)
    assert not malformed(recs)
    ev = events(recs)[0]
    text = ev.data["message"]["content"][0]["text"]
    assert "\ufffd" in text
    assert text.startswith("caf") and text.endswith(" ok")
    assert events(recs)[1].type == "user"


@pytest.mark.parametrize(
    ("raw", "pytype"),
    [(b"[1, 2, 3]", "list"), (b'"just a string"', "str"), (b"42", "int"), (b"null", "NoneType"),
     (b"true", "bool")],
)
def test_valid_json_that_is_not_an_object_is_malformed(h, raw, pytype):
    recs, dec = h.decode(INIT + b"\n" + raw + b"\n" + USER + b"\n")
    h.check_accounting(recs, dec)
    (m,) = malformed(recs)
    assert m.line == 2
    assert "not an object" in m.reason
    assert m.preview == raw.decode()
    assert [e.line for e in events(recs)] == [1, 3]


@pytest.mark.parametrize(
    ("raw", "reason"),
    [(b"npm WARN deprecated foo@1.0", "not JSON: a line of text"),  # (was: "expected 'null'")
     (b"[debug] step 1", "not JSON: a line of text"),
     (b"2026-11-24 10:00:01 INFO started", "not JSON: a line of text"),
     (b"[nodemon] restarting due to changes", "not JSON: a line of text"),  # (review: "[n" is not null)
     (b"[2026-11-24 10:00] INFO started", "not JSON: a line of text"),
     (b"[1, 2", "invalid JSON: unexpected end of data"),  # an array cut short is broken JSON
     (b'{"type": "assistant", "message": ', "invalid JSON (truncated or split object?)")],
)
def test_a_line_that_is_not_an_event_is_given_a_reason_a_user_can_read(h, raw, reason):
    """(From a second new-user trial.)  The health screen gave orjson's reason for an agent's
    "npm WARN" line: "invalid literal, expected 'null'"."""
    recs, dec = h.decode(INIT + b"\n" + raw + b"\n" + USER + b"\n")
    h.check_accounting(recs, dec)
    (m,) = malformed(recs)
    assert m.reason == reason


def test_object_without_type_is_kept_as_an_event(h):
    recs, dec = h.decode(b'{"session_id":"s1","hello":1}\n')
    h.check_accounting(recs, dec)
    (ev,) = events(recs)
    assert ev.type == ""
    assert ev.data == {"session_id": "s1", "hello": 1}


def test_non_string_type_is_kept_and_reads_as_empty(h):
    recs, dec = h.decode(b'{"type":7,"subtype":["x"]}\n')
    (ev,) = events(recs)
    assert ev.type == "" and ev.subtype == ""
    assert ev.data["type"] == 7


def test_unknown_types_are_events(h):
    recs, dec = h.decode(b'{"type":"rate_limit_event","subtype":"whatever","x":1}\n')
    (ev,) = events(recs)
    assert (ev.type, ev.subtype) == ("rate_limit_event", "whatever")


def test_nesting_too_deep_is_malformed_with_a_reason(h):
    deep = b'{"type":"tool_call","x":' + b"[" * 100_000 + b"]" * 100_000 + b"}"
    recs, dec = h.decode(INIT + b"\n" + deep + b"\n" + USER + b"\n")
    h.check_accounting(recs, dec)
    (m,) = malformed(recs)
    assert m.line == 2
    assert "nest" in m.reason.lower()
    assert len(m.preview) <= PREVIEW_CHARS + 1
    assert [e.type for e in events(recs)] == ["system", "user"]


def test_moderate_nesting_is_fine(h):
    nested = b'{"type":"x","v":' + b"[" * 200 + b"]" * 200 + b"}"
    recs, _ = h.decode(nested + b"\n")
    assert len(events(recs)) == 1


def test_20mb_line(h):
    content = "x" * (20 * 1024 * 1024)
    big = orjson.dumps({
        "type": "tool_call", "subtype": "completed", "call_id": "c1", "session_id": "s1",
        "tool_call": {"readToolCall": {"args": {"path": "big.txt"},
                                       "result": {"success": {"content": content}}}},
    })
    data = INIT + b"\n" + big + b"\n" + RESULT + b"\n"
    # Fed in 1 MiB pieces, like a pipe would deliver it.
    recs, dec = h.decode(data, chunks=[1 << 20] * (len(data) // (1 << 20) + 1))
    h.check_accounting(recs, dec)
    assert not malformed(recs)
    evs = events(recs)
    assert [e.type for e in evs] == ["system", "tool_call", "result"]
    assert evs[1].length == len(big)
    assert len(evs[1].data["tool_call"]["readToolCall"]["result"]["success"]["content"]) == len(content)


def test_20mb_garbage_line_has_a_bounded_preview(h):
    data = b"{" + b"y" * (20 * 1024 * 1024) + b"\n" + USER + b"\n"
    recs, dec = h.decode(data)
    h.check_accounting(recs, dec)
    (m,) = malformed(recs)
    assert m.line == 1 and m.length == 20 * 1024 * 1024 + 1
    assert len(m.preview) <= PREVIEW_CHARS + 1
    assert events(recs)[0].type == "user"


# -- split events (unescaped newline inside call_id) ------------------------------


def _split_call_event() -> tuple[bytes, dict]:
    obj = {
        "type": "tool_call", "subtype": "started", "call_id": "call_abc\nfc_def",
        "tool_call": {"shellToolCall": {"args": {"command": "ls"}}}, "session_id": "s1",
        "timestamp_ms": 1,
    }
    escaped = orjson.dumps(obj)
    raw = escaped.replace(b"\\n", b"\n")  # what the CLI sometimes writes
    assert raw.count(b"\n") == 1
    return raw, obj


@pytest.mark.parametrize("eol", [b"\n", b"\r\n"])
def test_event_split_by_unescaped_newline_is_rejoined(h, eol):
    raw, obj = _split_call_event()
    raw = raw.replace(b"\n", eol)
    data = INIT + eol + raw + eol + RESULT + eol
    recs, dec = h.decode(data)
    h.check_accounting(recs, dec)
    assert not malformed(recs)
    evs = events(recs)
    assert len(evs) == 3
    ev = evs[1]
    assert (ev.line, ev.line_count, ev.end_line) == (2, 2, 3)
    assert ev.data["call_id"] == "call_abc\nfc_def"
    assert ev.data == obj
    assert evs[2].line == 4
    assert dec.rejoined == 1
    # The stored span can be parsed again later (lazy payload access).
    assert parse_span(data[ev.offset : ev.offset + ev.length]) == obj


def test_real_cursor_line_split_by_its_call_id(h, real):
    data = real("maestro__02_shell_tool_call")
    lines = data.splitlines(keepends=True)
    idx = next(i for i, ln in enumerate(lines) if b'"tool_call"' in ln and b"\\nfc_" in ln)
    original = json.loads(lines[idx])
    assert "\n" in original["call_id"]
    broken = list(lines)
    cid_escaped = json.dumps(original["call_id"])[1:-1].encode()
    broken[idx] = lines[idx].replace(cid_escaped, original["call_id"].encode(), 1)
    assert broken[idx].count(b"\n") == 2  # one inside, one at the end
    recs, dec = h.decode(b"".join(broken))
    h.check_accounting(recs, dec)
    assert not malformed(recs)
    assert len(events(recs)) == len(lines)  # nothing lost, nothing extra
    ev = events(recs)[idx]
    assert ev.data == original
    assert ev.line_count == 2


def test_garbage_before_a_split_event_stays_malformed(h):
    raw, obj = _split_call_event()
    data = b"T: some error text\n" + raw + b"\n" + RESULT + b"\n"
    recs, dec = h.decode(data)
    h.check_accounting(recs, dec)
    (m,) = malformed(recs)
    assert m.line == 1
    evs = events(recs)
    assert evs[0].data == obj and evs[0].line == 2
    assert evs[1].type == "result"


def test_truncated_object_followed_by_good_line_does_not_swallow_it(h):
    data = b'{"type":"assistant","message":{"content":[{"type":"text","text":"half\n' + USER + b"\n"
    recs, dec = h.decode(data)
    h.check_accounting(recs, dec)
    (m,) = malformed(recs)
    assert m.line == 1
    (ev,) = events(recs)
    assert ev.type == "user" and ev.line == 2
    # Records come out in line order.
    assert [r.line for r in recs] == [1, 2]


def test_many_broken_lines_in_a_row_are_all_reported(h):
    broken = [b'{"type":"x","n":%d,' % i for i in range(30)]
    data = b"\n".join(broken) + b"\n" + USER + b"\n"
    recs, dec = h.decode(data)
    h.check_accounting(recs, dec)
    assert [m.line for m in malformed(recs)] == list(range(1, 31))
    assert events(recs)[0].line == 31
    assert [r.line for r in recs] == sorted(r.line for r in recs)


def test_garbage_lines_then_good_ones(h):
    data = (
        b"T: You've hit your usage limit\n"
        b"Do you trust the files in this folder?\n"
        b"\x00\x01\x02 binary\n"
        b"{not json}\n"
        + INIT + b"\n" + USER + b"\n" + RESULT + b"\n"
    )
    recs, dec = h.decode(data)
    h.check_accounting(recs, dec)
    assert [m.line for m in malformed(recs)] == [1, 2, 3, 4]
    for m in malformed(recs):
        assert m.reason
    assert malformed(recs)[0].preview == "T: You've hit your usage limit"
    assert [(e.type, e.line) for e in events(recs)] == [("system", 5), ("user", 6), ("result", 7)]


def test_truncated_last_line_without_newline_is_malformed(h):
    data = INIT + b"\n" + USER + b"\n" + RESULT[:40]
    recs, dec = h.decode(data)
    h.check_accounting(recs, dec)
    (m,) = malformed(recs)
    assert m.line == 3
    assert m.offset == len(INIT) + 1 + len(USER) + 1
    assert m.length == 40
    assert len(events(recs)) == 2


def test_complete_last_line_without_newline_is_an_event(h):
    recs, dec = h.decode(INIT + b"\n" + RESULT)
    h.check_accounting(recs, dec)
    assert not malformed(recs)
    assert [e.type for e in events(recs)] == ["system", "result"]


def test_offsets_point_at_each_event(h):
    raw, obj = _split_call_event()
    data = b"\xef\xbb\xbf" + INIT + b"\r\n\n" + raw + b"\n" + b"junk\n" + USER + b"\n" + RESULT
    recs, dec = h.decode(data)
    h.check_accounting(recs, dec)
    for r in recs:
        span = data[r.offset : r.offset + r.length]
        if isinstance(r, Event):
            assert parse_span(span) == r.data
        else:
            assert span == b"junk"


# -- chunking ------------------------------------------------------------------


def _mixed_stream(real_bytes: bytes = b"") -> bytes:
    raw, _ = _split_call_event()
    return (
        b"\xef\xbb\xbf" + INIT + b"\r\n"
        + b"\n  \n"
        + USER + b"\n"
        + b"garbage line\n"
        + b'{"type":"assistant","message":{"content":[{"type":"text","text":"\xe2\x82\xac\xff"}]}}\r\n'
        + raw + b"\n"
        + b'{"type":"tool_call","half":\n'
        + b"[1,2]\n"
        + real_bytes
        + RESULT + b"\n"
        + b'{"type":"after","cut":'
    )


def test_chunk_boundaries_anywhere_give_identical_records(h, request):
    try:  # a real capture makes the stream longer and more varied, when there is one
        extra = request.getfixturevalue("real")("maestro__04_partial_output")
    except pytest.skip.Exception:
        extra = b""
    data = _mixed_stream(extra)
    whole, dec = h.decode(data)
    h.check_accounting(whole, dec)
    expected = fingerprint(whole)
    rng = random.Random(1234)
    for trial in range(60):
        hi = rng.choice([2, 7, 64, 1000])
        sizes = []
        total = 0
        while total < len(data):
            n = rng.randint(1, hi)
            sizes.append(n)
            total += n
        recs, dec2 = h.decode(data, chunks=sizes)
        assert fingerprint(recs) == expected, f"trial {trial}"
        assert (dec2.lines_seen, dec2.blank_lines) == (dec.lines_seen, dec.blank_lines)


def test_byte_at_a_time(h):
    data = _mixed_stream()
    whole, _ = h.decode(data)
    recs, dec = h.decode(data, chunks=[1] * len(data))
    h.check_accounting(recs, dec)
    assert fingerprint(recs) == fingerprint(whole)


def test_line_splitter_offsets():
    sp = LineSplitter()
    out = sp.feed(b"ab") + sp.feed(b"c\nd") + sp.feed(b"\n\nef") + sp.flush()
    assert out == [(0, b"abc"), (4, b"d"), (6, b""), (7, b"ef")]
    assert sp.flush() == []


def test_empty_input(h):
    recs, dec = h.decode(b"")
    assert recs == [] and dec.lines_seen == 0


def test_decoder_close_flushes_pending_once():
    d = Decoder()
    assert d.feed(b'{"type":"x",', 0) == []  # may be the first half of a split event
    assert d.has_pending
    (m,) = d.close()
    assert isinstance(m, Malformed) and m.line == 1
    assert d.close() == []
    assert d.malformed == 1 and d.lines_seen == 1


def test_accounting_on_every_real_stream(h, real_stream_path):
    recs, dec = h.decode(real_stream_path.read_bytes())
    h.check_accounting(recs, dec)
    assert not malformed(recs)


def test_event_split_over_three_lines(h):
    obj = {"type": "tool_call", "subtype": "started", "call_id": "a\nb\nc", "session_id": "s1"}
    raw = orjson.dumps(obj).replace(b"\\n", b"\n")
    recs, dec = h.decode(INIT + b"\n" + raw + b"\n" + USER + b"\n")
    h.check_accounting(recs, dec)
    assert not malformed(recs)
    ev = events(recs)[1]
    assert ev.data == obj and (ev.line, ev.line_count) == (2, 3)
    assert events(recs)[2].line == 5


def test_split_events_are_rejoined_after_megabytes_of_earlier_rejoins(h):
    """The join budget is per split event, not spent for good by earlier ones."""

    def split(i: int, pad: int, newlines: int) -> bytes:
        text = "p" * pad + "".join(f"\nl{k}" for k in range(newlines))  # raw newlines: split lines
        return b'{"type":"assistant","message":{"content":[{"type":"text","text":"%s"}]},"n":%d}\n' % (
            text.encode(), i)

    data = b"".join(split(i, 100_000, 1) for i in range(45)) + split(99, 10, 2)
    recs, dec = h.decode(data)
    h.check_accounting(recs, dec)
    assert not malformed(recs)
    assert [e.data["n"] for e in events(recs)] == [*range(45), 99]
    assert events(recs)[-1].line_count == 3


def test_a_line_too_long_to_keep_is_let_go_and_counted_malformed_with_its_place(monkeypatch):
    """(From a trial: an input with no newline, /dev/zero, grew in memory until it ran out,
    then a traceback.)  A line past MAX_LINE_BYTES is let go of as it comes, up to its
    newline: a malformed line, with its number, offset, length and first bytes; the lines
    after it are read, at their offsets."""
    import viewer.core.decode as decode_module
    from viewer.core.decode import Event, Malformed
    from viewer.core.sources import Ingest

    monkeypatch.setattr(decode_module, "MAX_LINE_BYTES", 1000)
    data = (b'{"type":"a"}\n' + b'{"x":"' + b"y" * 5000 + b'"}\n' + b'{"type":"b"}\n'
            + b'{"type":"c","pad":"' + b"p" * 500 + b'"}\n' + b"z" * 3000)
    ing = Ingest()
    recs = []
    for i in range(0, len(data), 700):
        recs += ing.feed(data[i:i + 700])
        assert ing.splitter._partial == b"" or len(ing.splitter._partial) <= 1000 + 700  # (not kept)
    recs += ing.close()
    got = [(type(r).__name__, r.line, r.offset, r.length) for r in recs]
    assert got == [("Event", 1, 0, 12), ("Malformed", 2, 13, 5008), ("Event", 3, 5022, 12),
                   ("Event", 4, 5035, 521), ("Malformed", 5, 5557, 3000)], got
    long = [r for r in recs if type(r) is Malformed]
    assert long[0].reason == "a line of 5,008 bytes, over the 1,000 bytes limit: not read"
    assert long[0].preview.startswith('{"x":"yyy')
    assert long[1].preview.startswith("zzz")  # (the last line, with no newline, at the input's end)
    assert [r.data["type"] for r in recs if type(r) is Event] == ["a", "b", "c"]
    d = ing.decoder
    assert d.lines_seen == 5 and d.malformed == 2 and d.events == 3
