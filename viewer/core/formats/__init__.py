"""Stream formats, one module per agent CLI.

A format is a module exposing ``NAME``, ``interpret(event) -> Action``,
``tool_sections(started, completed) -> list[Section]``,
``event_time_ms(event) -> int | None``, ``run_line(data)`` (which events are text
deltas the decoder may gather into runs) and, for ``--print --output-format
json``, ``run_marker(data)``, ``result_problem(data)`` and
``result_object(data)``.  Today only Cursor's
stream-json is implemented; Claude Code, Gemini CLI and Codex streams will be
added as sibling modules and registered in ``FORMATS``.
"""

from __future__ import annotations

from types import ModuleType
from typing import Protocol

from viewer.core.formats import cursor


class Format(Protocol):  # pragma: no cover - typing only
    NAME: str

    def interpret(self, ev): ...

    def tool_sections(self, started, completed): ...

    def event_time_ms(self, ev): ...

    def run_line(self, data): ...

    def run_marker(self, data): ...

    def result_problem(self, data): ...

    def result_object(self, data): ...


FORMATS: dict[str, ModuleType] = {cursor.NAME: cursor}


def get_format(name: str = "cursor") -> Format:
    try:
        return FORMATS[name]  # type: ignore[return-value]
    except KeyError:
        raise ValueError(f"unknown stream format {name!r} (known: {', '.join(FORMATS)})") from None
