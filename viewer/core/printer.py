"""``--print`` modes: the same understanding of a stream, without a TUI.

All three modes stream: records are handled as their bytes arrive and
nothing but the compact session model is kept, so memory stays flat.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable
from typing import BinaryIO, TextIO

import orjson

from viewer.core.decode import Event, Malformed, Record
from viewer.core.model import Change, Session, StreamModel, ToolCall
from viewer.core.sanitize import clean, one_line

RESULT_KEYS = (
    "type", "subtype", "is_error", "duration_ms", "duration_api_ms", "result", "session_id", "request_id",
)

EXIT_OK = 0
EXIT_RUN_FAILED = 1


def describe_malformed(m: Malformed) -> str:
    return f"line {m.line}: malformed line kept aside ({m.reason}): {one_line(m.preview, 80)}"


def tool_line(t: ToolCall) -> str:
    text = t.label
    if t.target:
        text += f" {one_line(t.target, 160)}"
    notes = []
    if t.status == "failed":
        notes.append(t.detail if t.detail.startswith("exit") else f"failed: {t.outcome}")
    elif t.status == "rejected":
        notes.append("rejected")
    elif t.status == "unknown":
        notes.append(f"outcome: {t.outcome or 'none'}")
    elif t.status == "unfinished":
        notes.append("unfinished")
    if t.error_text and t.status != "success":
        notes.append(one_line(t.error_text, 120))
    if notes:
        text += f" ({'; '.join(notes)})"
    return text


def session_problem(s: Session | None) -> str:
    if s is None:
        return "the input holds no events"
    if s.result is None:
        return "the run ended without a result"
    if s.state == "failed":
        msg = one_line(s.result.text, 300) or s.result.subtype or "error"
        return f"the run failed: {msg}"
    return ""


class TextPrinter:
    """One human line per action as it happens, then the final assistant text."""

    def __init__(self, out: TextIO, err: TextIO) -> None:
        self.out, self.err = out, err
        self.model = StreamModel()

    def handle(self, rec: Record) -> None:
        m = self.model
        delta = m.apply(rec)
        if isinstance(rec, Malformed):
            print(describe_malformed(rec), file=self.err)
            return
        s = m.sessions[delta.session]
        if delta.flags & Change.SESSIONS and len(m.sessions) > 1:
            print(f"--- session {s.index + 1} ---", file=self.out)
        if delta.tool >= 0:
            t = s.tools[delta.tool]
            if t.done:
                print(tool_line(t), file=self.out)
        if delta.flags & Change.RESULT:
            self._finish(s)
        elif delta.flags & Change.HEALTH and rec.type != "tool_call":
            print(f"(unknown event {one_line(rec.type or '(no type)', 60)} at line {rec.line})", file=self.out)
        self.out.flush()

    def _finish(self, s: Session) -> None:
        final = s.final_text()
        if final:
            print(file=self.out)
            print(clean(final), file=self.out)

    def close(self) -> int:
        m = self.model
        m.end()
        cur = m.current
        if cur is not None:
            for t in cur.tools:
                if t.status == "unfinished":
                    print(tool_line(t), file=self.out)
            if cur.result is None:
                self._finish(cur)
        self.out.flush()
        problem = session_problem(cur)
        if problem:
            print(f"agent-viewer: {problem}", file=self.err)
            return EXIT_RUN_FAILED
        return EXIT_OK


class JsonPrinter:
    """Exactly the agent CLI's single result object, when the run succeeded."""

    def __init__(self, out: TextIO, err: TextIO) -> None:
        self.out, self.err = out, err
        self.model = StreamModel()
        self._result_event: dict | None = None

    def handle(self, rec: Record) -> None:
        delta = self.model.apply(rec)
        if delta.flags & Change.RESULT and isinstance(rec, Event):
            self._result_event = rec.data

    def close(self) -> int:
        m = self.model
        m.end()
        cur = m.current
        problem = session_problem(cur)
        if problem or self._result_event is None:
            print(f"agent-viewer: {problem or 'no result'}; no JSON written", file=self.err)
            return EXIT_RUN_FAILED
        data = self._result_event
        obj = {k: data.get(k) for k in RESULT_KEYS}
        self.out.write(orjson.dumps(obj).decode() + "\n")
        self.out.flush()
        return EXIT_OK


class StreamJsonPrinter:
    """The events again, as clean stream-json: one compact object per line."""

    def __init__(self, out: BinaryIO, err: TextIO) -> None:
        self.out, self.err = out, err
        self.malformed = 0

    def handle(self, rec: Record) -> None:
        if isinstance(rec, Malformed):
            self.malformed += 1
            print(f"agent-viewer: {describe_malformed(rec)}", file=self.err)
            return
        self.out.write(orjson.dumps(rec.data) + b"\n")

    def handle_many(self, recs: Iterable[Record]) -> None:
        for r in recs:
            self.handle(r)
        self.out.flush()

    def close(self) -> int:
        self.out.flush()
        return EXIT_OK


def make_printer(fmt: str, out_text: TextIO | None = None, err: TextIO | None = None):
    out_text = out_text or sys.stdout
    err = err or sys.stderr
    if fmt == "text":
        return TextPrinter(out_text, err)
    if fmt == "json":
        return JsonPrinter(out_text, err)
    if fmt == "stream-json":
        return StreamJsonPrinter(out_text.buffer if hasattr(out_text, "buffer") else out_text, err)
    raise ValueError(f"unknown output format {fmt!r}")
