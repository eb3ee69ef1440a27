"""What the detail view of a tool call shows, as plain data (no UI), and how long a call took
in words (the TUI and the text printer say it alike)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(slots=True)
class Section:
    """One block of a tool call's detail view.

    ``kind`` tells the UI how to render ``body``:
    ``code`` (syntax-highlighted, ``lang`` is a file name or language),
    ``diff`` (unified diff), ``text`` (literal text, may be long output),
    ``json`` (pretty JSON), ``markdown`` (agent-written Markdown), ``terminal`` (a
    command's output: its colours are shown, every other escape sequence is escaped).
    """

    title: str
    body: str
    kind: str = "text"
    lang: str = ""


def fmt_wait(seconds: int) -> str:
    """A wait in whole seconds, as a clock of silence reads it: ``45 s``, then ``1m30s``."""
    return f"{seconds} s" if seconds < 60 else fmt_duration(seconds * 1000)


def fmt_duration(ms: int | None) -> str:
    """``812 ms``, ``12.2 s``, ``1m41s``, ``2h05m``; "" when not known (or negative: no time
    a run or a call can take)."""
    if ms is None or ms < 0:
        return ""
    if ms < 1000:
        return f"{ms} ms"
    s = ms / 1000
    if ms < 59_950:  # (not "60.0 s": 59.95 s rounds up to a minute)
        return f"{s:.1f} s"
    m, sec = divmod(int(s + 0.5), 60)  # (rounded half up, as the tenths above are: 59.95 s is "1m00s")
    if m < 60:
        return f"{m}m{sec:02d}s"
    h, m = divmod(m, 60)
    return f"{h}h{m:02d}m"
