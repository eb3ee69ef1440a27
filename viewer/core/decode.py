"""Bytes -> records.

The decoder turns physical lines of NDJSON into :class:`Event` records (one
parsed JSON object, possibly spanning several physical lines when a producer
wrote an unescaped newline inside a string) or :class:`Malformed` records (a
line that could not be parsed, with its line number and the reason).  Blank
lines are counted.  Every physical line is accounted for exactly once::

    sum(event.line_count) + len(malformed) + blank_lines == lines_seen

The decoder is a push parser (``feed`` a line, ``close`` at end of input), so
the same code serves files, pipes and followed files.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

import orjson

#: How many following physical lines we try to glue to a line that fails to
#: parse (real Cursor streams sometimes carry an unescaped newline in a call_id).
MAX_JOIN_LINES = 8
#: Do not try to glue lines when the pending text is bigger than this.
MAX_JOIN_BYTES = 4 * 1024 * 1024
#: Characters of a malformed line kept for display.
PREVIEW_CHARS = 240

_BOM = b"\xef\xbb\xbf"
_JSON_TYPE_NAMES = {type(None): "null", str: "string", int: "number", float: "number", bool: "boolean",
                    list: "array"}
_OBJECT_START = re.compile(rb"\s*\{")  # matched in place: a line can be 64 MB
#: How a JSON object or array begins ("[debug] step 1", "[2026-11-24 10:00] INFO ..." and
#: "npm WARN ..." do not): after "[", a value that is a JSON one, up to what may follow it.
_JSON_START = re.compile(
    rb"\s*(\{|\[\s*($|[\[{\"\]]|(-?[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)?|true|false|null)\s*($|[,\]])))")
_LONE_SURROGATE = re.compile(
    rb"\\u[dD][89abAB][0-9a-fA-F]{2}(?!\\u[dD][c-fC-F][0-9a-fA-F]{2})"
    rb"|(?<!\\u[dD][89abAB][0-9a-fA-F]{2})\\u[dD][c-fC-F][0-9a-fA-F]{2}"
)


class Event:
    """One parsed JSON object from the stream."""

    __slots__ = ("line", "line_count", "offset", "length", "data", "arrival", "type", "subtype", "repeat", "action")

    def __init__(
        self, line: int, line_count: int, offset: int, length: int, data: dict[str, Any],
        arrival: float | None = None,
    ) -> None:
        self.line = line  # first physical line, 1-based
        self.line_count = line_count  # physical lines it spans (>1 when rejoined)
        self.offset = offset  # byte offset of the first line in the source
        self.length = length  # bytes from offset to the end of the last line (no newline)
        self.data = data
        self.arrival = arrival  # monotonic arrival time for live sources
        t = data.get("type")
        self.type: str = t if type(t) is str else ""
        t = data.get("subtype")
        self.subtype: str = t if type(t) is str else ""
        #: The line is byte-for-byte the previous physical line (e.g. stderr merged into stdout).
        self.repeat = False
        #: What the format made of it, when that was done before (a decoding worker process
        #: interprets the events it decodes: see :mod:`viewer.core.parallel`); else None.
        self.action: Any = None

    @property
    def end_line(self) -> int:
        return self.line + self.line_count - 1

    def __repr__(self) -> str:
        return f"Event(line={self.line}, type={self.type!r}, subtype={self.subtype!r})"


@dataclass(slots=True)
class Malformed:
    """A physical line that is not a JSON object."""

    line: int
    offset: int
    length: int
    reason: str
    preview: str
    arrival: float | None = None


@dataclass(slots=True)
class Restart:
    """The source started over (a followed file was truncated or replaced): what was read
    before has ended, whatever comes next is a new stream.  ``line``: the last line before.
    ``in_copy``: marked in a ``--save`` copy, whose lines are all there, numbered on across it
    (a followed file's line numbers start again after it)."""

    line: int
    in_copy: bool = False


@dataclass(slots=True)
class Run:
    """Lines that go on with the event just before them: text deltas of the same kind and the
    same session (a :data:`RunLine` classifier of the format says which).  A
    ``--stream-partial-output`` run is mostly such deltas, token by token; gathered, the model
    applies them at once instead of as one event each.  ``texts`` holds one text per line
    (lines ``line`` to ``line + count - 1``; nothing re-reads them, so no offsets are kept)."""

    kind: str  # "thinking" (like A.Thinking) or "assistant" (like A.AssistantText, a delta)
    type: str  # the events' type
    session_id: str | None
    line: int
    texts: list[str]
    first_ms: int | None  # the first and the highest timestamp_ms of the lines
    last_ms: int | None
    arrival: float | None = None
    #: The last line's object and length (the model compares the next event with that line).
    last_data: dict[str, Any] | None = None
    last_length: int = 0

    @property
    def count(self) -> int:
        return len(self.texts)

    @property
    def end_line(self) -> int:
        return self.line + len(self.texts) - 1


class LongLine(bytes):
    """A line longer than MAX_LINE_BYTES, in place of its bytes, which were not kept (see
    :class:`~viewer.core.sources.LineSplitter`): empty as bytes (no JSON), its ``len()`` the
    line's length (offsets are counted on over it), its first bytes in ``head``."""

    head: bytes
    length: int

    def __new__(cls, head: bytes, length: int) -> LongLine:
        obj = super().__new__(cls, b"")
        obj.head, obj.length = head, length
        return obj

    def __len__(self) -> int:
        return self.length


#: A line longer than this is not read, but counted as a malformed line (an input without a
#: newline, such as /dev/zero, grew in memory until it ran out).  A 64 MB tool result is read.
MAX_LINE_BYTES = 256 << 20
#: Bytes of such a line kept, for its preview.
LONG_LINE_HEAD = 4 * PREVIEW_CHARS


Record = Event | Malformed | Restart | Run
#: A format's classifier of run lines: parsed object -> (kind, session id, text, timestamp_ms),
#: or None for an event that is not a plain text delta.
RunLine = Callable[[dict[str, Any]], "tuple[str, str | None, str, int | None] | None"]


def _size(n: int) -> str:
    """``300 MB``, ``256.4 MB``; ``5,008 bytes`` below a MB."""
    if n < 1 << 20:
        return f"{n:,} bytes"
    return f"{n / (1 << 20):,.1f}".removesuffix(".0") + " MB"


def preview_of(raw: bytes, limit: int = PREVIEW_CHARS) -> str:
    text = raw[: limit * 4].decode("utf-8", errors="replace")
    if len(text) > limit:
        text = text[:limit] + "…"
    return text


def _clean(raw: bytes) -> bytes:
    if raw.endswith(b"\r"):
        raw = raw[:-1]
    return raw


def parse_line(raw: bytes) -> tuple[dict[str, Any] | None, str]:
    """Parse one logical line. Returns (object, "") or (None, reason)."""
    try:
        obj = orjson.loads(raw)
    except orjson.JSONDecodeError as exc:
        msg = str(exc)
        if "depth limit" in msg or "recursion" in msg.lower():
            return None, "nesting too deep to parse"
        if "UTF-8" in msg or _invalid_utf8(raw):
            # Retry with replacement characters: keep the event, lose the bad bytes.
            try:
                obj = orjson.loads(raw.decode("utf-8", errors="replace"))
            except orjson.JSONDecodeError:
                return None, "invalid JSON (and invalid UTF-8)"
        elif "surrogate" in msg:
            # JavaScript producers can write a lone UTF-16 surrogate escape ("\ud83d"):
            # keep the event, with U+FFFD in place of the broken character.
            fixed = _LONE_SURROGATE.sub(rb"\\ufffd", raw)
            try:
                obj = orjson.loads(fixed)
            except orjson.JSONDecodeError:
                return None, "invalid JSON (a broken \\u escape)"
        else:
            return None, f"invalid JSON: {msg.split(':', 1)[0]}"
    except RecursionError:  # pragma: no cover - orjson reports this itself
        return None, "nesting too deep to parse"
    if not isinstance(obj, dict):
        return None, f"valid JSON but not an object (a JSON {_JSON_TYPE_NAMES.get(type(obj), 'value')})"
    return obj, ""


def _invalid_utf8(raw: bytes) -> bool:
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError:
        return True
    return False


def parse_span(raw: bytes) -> dict[str, Any] | None:
    """Re-parse a stored event span (used for lazy payload access).

    ``raw`` is the bytes between an event's offset and offset+length; when the
    event was rejoined from several physical lines, the newlines are escaped
    again exactly as the decoder did.
    """
    if raw.startswith(_BOM):
        raw = raw[len(_BOM) :]
    obj, _ = parse_line(_clean(raw))
    if obj is not None:
        return obj
    parts = [_clean(p) for p in raw.split(b"\n")]
    obj, _ = parse_line(b"\\n".join(parts))
    return obj


class Decoder:
    """Push decoder: ``feed(line_bytes, offset)`` -> list of records."""

    def __init__(self) -> None:
        self.lines_seen = 0
        self.blank_lines = 0
        self.events = 0
        self.malformed = 0
        self.rejoined = 0
        # Lines that failed to parse and may be the start of a split event.
        self._pending: list[tuple[int, int, bytes, str]] = []  # (line, offset, raw, reason)
        self._pending_bytes = 0
        #: The last line that was an event, without a trailing CR (``repeat`` compares with it).
        self._prev_raw: bytes | None = None
        self.first_line = 1  # the line a stream starts on (may carry a BOM); later after a restart
        #: The format's classifier of run lines (None: every line is an :class:`Event`).
        self.runs: RunLine | None = None
        self._run_key: tuple[str, str | None, str] | None = None

    # -- public API -----------------------------------------------------
    def feed_run(self, offset: int, pieces: list[bytes], arrival: float | None = None) -> list[Record]:
        """Feed consecutive physical lines, the first starting at ``offset``.

        This is the hot path of every source: a line that is one whole JSON
        object is handled inline; anything else (the first line, blank or broken
        lines, a pending split event) goes through :meth:`feed`.  With a
        :attr:`runs` classifier, lines that go on with the event before them are
        gathered into a :class:`Run` (the first of them stays an :class:`Event`).
        """
        out: list[Record] = []
        append = out.append
        loads, JSONDecodeError = orjson.loads, orjson.JSONDecodeError
        runs = self.runs
        key = self._run_key  # (kind, session id, type) of the line before, if a run may go on from it
        run: Run | None = None
        texts: list[str] = []  # the run's texts (appended to directly)
        # The counters live in locals here (this loop runs for every line of a big file) and
        # are written back before feed() and at the end.
        seen, events, prev = self.lines_seen, self.events, self._prev_raw
        fast = bool(seen) and not self._pending  # a line may be parsed alone
        off = offset
        for raw in pieces:
            n = len(raw)
            obj = None
            if n and fast:
                try:
                    obj = loads(raw)
                except JSONDecodeError:
                    pass
            if type(obj) is dict:
                seen += 1
                events += 1
                if raw[-1] == 13:
                    length = n - 1
                    raw = raw[:-1]  # as feed() compares it: only the content counts
                else:
                    length = n
                repeat = raw == prev
                prev = raw
                r = runs(obj) if runs is not None and not repeat else None
                if r is not None and key is not None and r[0] == key[0] and r[1] == key[1]:
                    ts = r[3]
                    if run is None:
                        texts = [r[2]]
                        run = Run(r[0], key[2], r[1], seen, texts, ts, ts, arrival, obj, length)
                    else:
                        texts.append(r[2])
                        run.last_data = obj
                        run.last_length = length
                        if ts is not None:
                            if run.first_ms is None:
                                run.first_ms = ts
                            if run.last_ms is None or ts > run.last_ms:
                                run.last_ms = ts
                    off += n + 1
                    continue
                if run is not None:
                    append(run)
                    run = None
                ev = Event(seen, 1, off, length, obj, arrival)
                ev.repeat = repeat
                append(ev)
                key = (r[0], r[1], ev.type) if r is not None else None
            else:
                if run is not None:
                    append(run)
                    run = None
                self.lines_seen, self.events, self._prev_raw = seen, events, prev
                out.extend(self.feed(raw, off, arrival))
                seen, events, prev = self.lines_seen, self.events, self._prev_raw
                fast = not self._pending
                key = None
            off += n + 1
        if run is not None:
            append(run)
        self.lines_seen, self.events, self._prev_raw = seen, events, prev
        self._run_key = key
        return out

    def feed_objects(self, lines: Iterable[tuple[int, bytes]], on_object: Callable[[dict[str, Any]], object],
                     on_record: Callable[[Record], object]) -> None:
        """``(offset, line)`` pairs, as lean as reading can be (``--print`` json and its
        workers): a line that is one whole JSON object goes to ``on_object`` as parsed (counted
        as an event, no record built); any other line goes through :meth:`feed`, its records to
        ``on_record`` (line 1 always does: it may carry a BOM)."""
        loads, JSONDecodeError = orjson.loads, orjson.JSONDecodeError
        feed = self.feed
        for off, raw in lines:
            if self.lines_seen and not self._pending:
                try:
                    obj = loads(raw)
                except JSONDecodeError:
                    obj = None
                if type(obj) is dict:
                    self.lines_seen += 1
                    self.events += 1
                    on_object(obj)
                    continue
            for rec in feed(raw, off):
                on_record(rec)

    def feed(self, raw: bytes, offset: int, arrival: float | None = None) -> list[Record]:
        """Feed one physical line (without its trailing newline)."""
        self._run_key = None  # a run goes on only from a line of feed_run's own
        self.lines_seen += 1
        line_no = self.lines_seen
        if type(raw) is LongLine:
            out = self._flush_pending(arrival)
            self._prev_raw = None
            self.malformed += 1
            reason = f"a line of {_size(len(raw))}, over the {_size(MAX_LINE_BYTES)} limit: not read"
            out.append(Malformed(line_no, offset, len(raw), reason, preview_of(raw.head), arrival))
            return out
        if line_no == self.first_line and raw.startswith(_BOM):
            raw = raw[len(_BOM) :]
            offset += len(_BOM)
        raw = _clean(raw)
        out: list[Record] = []

        if not raw or raw.isspace():
            self._prev_raw = None
            out.extend(self._flush_pending(arrival))
            self.blank_lines += 1
            return out

        if self._pending:
            # Try the longest run of pending lines first: pending[k:] + this line.
            for k in range(len(self._pending)):
                tail = self._pending[k:]
                obj, _ = parse_line(b"\\n".join([p[2] for p in tail] + [raw]))
                if obj is None:
                    continue
                self._prev_raw = None
                head = self._pending[:k]
                self._pending = head
                out.extend(self._flush_pending(arrival))
                first_line, first_off = tail[0][0], tail[0][1]
                self.rejoined += 1
                self.events += 1
                out.append(
                    Event(
                        first_line, len(tail) + 1, first_off,
                        offset + len(raw) - first_off, obj, arrival,
                    )
                )
                return out

        obj, reason = parse_line(raw)
        if obj is None and raw[:1] == b"\0":
            # NUL bytes before an event: a file truncated under a writer that went on at its
            # old offset (logrotate's copytruncate).  The event after them is kept.
            rest = raw.lstrip(b"\0")
            kept = parse_line(rest)[0] if rest else None
            if kept is not None:
                offset += len(raw) - len(rest)
                raw, obj = rest, kept
            else:  # (said as "not JSON: a line of text", which a row of NULs is not)
                reason = ("only NUL bytes, as left where a file was cut short under its writer"
                          if not rest else "NUL bytes, then invalid JSON (truncated or split object?)"
                          if _OBJECT_START.match(rest) else "NUL bytes, then not JSON")
        if obj is not None:
            out.extend(self._flush_pending(arrival))
            self.events += 1
            ev = Event(line_no, 1, offset, len(raw), obj, arrival)
            ev.repeat = raw == self._prev_raw
            self._prev_raw = raw
            out.append(ev)
            return out
        self._prev_raw = None

        # Failed alone. Keep it pending when it could be part of a split event.
        if self._pending and (
            len(self._pending) >= MAX_JOIN_LINES
            or self._pending_bytes + len(raw) > MAX_JOIN_BYTES
        ):
            out.extend(self._flush_pending(arrival))
        if self._pending or (len(raw) <= MAX_JOIN_BYTES and _OBJECT_START.match(raw)):
            self._pending.append((line_no, offset, raw, reason))
            self._pending_bytes += len(raw)
        else:
            out.append(self._malformed(line_no, offset, raw, reason, arrival))
        return out

    def close(self, arrival: float | None = None) -> list[Record]:
        """End of input: whatever is pending becomes malformed."""
        self._run_key = None
        return self._flush_pending(arrival)

    def restart(self, arrival: float | None = None) -> list[Record]:
        """The input starts over (a followed file was truncated or replaced): what is pending
        becomes malformed, then a :class:`Restart`.  Lines go on being numbered and counted;
        the next one is a first line again (it may carry a BOM), never a repeat."""
        out = self.close(arrival)
        out.append(Restart(self.lines_seen))
        self._prev_raw = None
        self.first_line = self.lines_seen + 1
        return out

    def flush_pending(self, arrival: float | None = None) -> list[Record]:
        """The input paused: lines kept back to be joined with the next become malformed."""
        return self._flush_pending(arrival)

    @property
    def has_pending(self) -> bool:
        return bool(self._pending)

    @property
    def prev_raw(self) -> bytes | None:
        """The last line that was an event (what the next line is compared with for ``repeat``)."""
        return self._prev_raw

    def skip(self, lines: int, blank: int, events: int, malformed: int, rejoined: int,
             prev_raw: bytes | None) -> None:
        """Lines decoded elsewhere (by a worker process: see :mod:`viewer.core.parallel`) with
        nothing pending before or after them: count them and go on after them.  ``prev_raw``
        is the last of them that was an event (without a trailing CR), or None."""
        self.lines_seen += lines
        self.blank_lines += blank
        self.events += events
        self.malformed += malformed
        self.rejoined += rejoined
        self._prev_raw = prev_raw
        self._run_key = None

    # -- helpers ----------------------------------------------------------
    def _malformed(
        self, line: int, offset: int, raw: bytes, reason: str, arrival: float | None
    ) -> Malformed:
        self.malformed += 1
        if reason.startswith("invalid JSON"):
            if _OBJECT_START.match(raw):
                reason = "invalid JSON (truncated or split object?)"
            elif reason.startswith("invalid JSON: ") and not _JSON_START.match(raw):
                # orjson's reason for "npm WARN ..." was "invalid literal, expected 'null'"
                reason = "not JSON: a line of text"
        return Malformed(line, offset, len(raw), reason, preview_of(raw), arrival)

    def _flush_pending(self, arrival: float | None) -> list[Record]:
        if not self._pending:
            self._pending_bytes = 0  # also after a rejoin that used every pending line
            return []
        out: list[Record] = [
            self._malformed(line, off, raw, reason, arrival)
            for (line, off, raw, reason) in self._pending
        ]
        self._pending.clear()
        self._pending_bytes = 0
        return out
