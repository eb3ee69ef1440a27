"""What the detail view of a tool call shows, as plain data (no UI)."""

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
