"""Stream formats, one module per agent CLI.

A format is a module exposing ``NAME``, ``interpret(event) -> Action``,
``tool_sections(started, completed) -> list[Section]``,
``copy_text(started, completed) -> str`` (a call's main argument, whole),
``event_time_ms(event) -> int | None``, ``run_line(data)`` (which events are text
deltas the decoder may gather into runs) and, for ``--print --output-format
json``, ``run_marker(data)``, ``result_problem(data)`` and
``result_object(data)``.  Today only Cursor's
stream-json is implemented; Claude Code, Gemini CLI and Codex streams will be
added as sibling modules and registered in ``FORMATS``.
"""

from __future__ import annotations

from types import ModuleType
from typing import Any, Protocol

from viewer.core.formats import cursor


class Format(Protocol):  # pragma: no cover - typing only
    NAME: str
    TARGET_FORMS: dict[str, str]  # kinds whose target is not a path: "placed" (pattern in DIRECTORY), "command"

    def interpret(self, ev): ...

    def tool_sections(self, started, completed): ...

    def copy_text(self, started, completed): ...

    def event_time_ms(self, ev): ...

    def run_line(self, data): ...

    def run_marker(self, data): ...

    def result_problem(self, data): ...

    def result_object(self, data): ...


FORMATS: dict[str, ModuleType] = {cursor.NAME: cursor}

#: Event types that only another agent's CLI writes.
_OTHER_TYPES = {
    **dict.fromkeys(("thread.started", "turn.started", "turn.completed", "turn.failed", "item.started",
                     "item.updated", "item.completed"), "Codex"),
    **dict.fromkeys(("stream_event", "rate_limit_event"), "Claude Code"),
    **dict.fromkeys(("init", "message", "tool_use", "tool_result"), "Gemini CLI"),
}
_CLAUDE_PARTS = frozenset(("tool_use", "tool_result", "thinking", "redacted_thinking", "server_tool_use"))


def sniff_agent(data: dict[str, Any]) -> str:
    """The agent CLI that, by its shape, wrote this event when it is not a Cursor one:
    ``"Claude Code"``, ``"Codex"``, ``"Gemini CLI"``, or ``""`` (Cursor's, or cannot tell).

    For naming a stream the viewer cannot read yet; when those formats come, the same
    signs choose the format module.  Cheap, but meant for rare events (an init, an unknown
    type, unknown content), not for every delta."""
    t = data.get("type")
    if type(t) is not str:
        return ""
    name = _OTHER_TYPES.get(t)
    if name:
        return name
    if t == "system":
        if data.get("subtype") == "init" and (
            "claude_code_version" in data or "mcp_servers" in data or type(data.get("tools")) is list
        ):
            return "Claude Code"
    elif t in ("assistant", "user"):
        msg = data.get("message")
        content = msg.get("content") if type(msg) is dict else None
        if type(content) is list and any(type(p) is dict and type(p.get("type")) is str
                                         and p["type"] in _CLAUDE_PARTS for p in content):
            return "Claude Code"
    return ""


def get_format(name: str = "cursor") -> Format:
    try:
        return FORMATS[name]  # type: ignore[return-value]
    except KeyError:
        raise ValueError(f"unknown stream format {name!r} (known: {', '.join(FORMATS)})") from None
