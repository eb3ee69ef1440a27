"""Stream formats, one module per agent CLI.

A format is a module exposing ``NAME``, ``interpret(event) -> Action``,
``tool_sections(started, completed) -> list[Section]`` (what the events hold: while a call has
no result, :func:`viewer.core.detail.call_sections` adds why, from the call's status),
``copy_text(started, completed) -> str`` (a call's main argument, whole),
``event_time_ms(event) -> int | None``, ``run_line(data)`` (which events are text
deltas the decoder may gather into runs) and, for ``--print --output-format
json``, ``run_marker(data)``, ``result_problem(data)`` and
``result_object(data)``; ``AGENT`` (the CLI's name) and ``claims(data)`` (whether an event,
by its shape, is of this format: see :func:`detect`), ``INIT_TYPE`` (the type of
the event that begins its run) and ``EVENTS_NAME_THEIR_RUN`` (whether its events each name
their run, so that runs in one file can interleave).  Cursor's and Claude Code's stream-json, Codex's
``exec --json`` and Gemini CLI's stream-json are implemented; another agent's is a sibling
module, registered in ``FORMATS`` and ``_DETECT_ORDER``.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from itertools import islice
from types import ModuleType
from typing import Any, Protocol

from viewer.core.formats import claude, codex, cursor, gemini


class Format(Protocol):  # pragma: no cover - typing only
    NAME: str
    AGENT: str
    INIT_TYPE: str
    EVENTS_NAME_THEIR_RUN: bool  # each event names its run: runs in one file may interleave
    TARGET_FORMS: dict[str, str]  # kinds whose target is not a path: "placed" (pattern in DIRECTORY), "command"

    def interpret(self, ev): ...

    def tool_sections(self, started, completed, call_id=""): ...

    def copy_text(self, started, completed, call_id=""): ...

    def claims(self, data): ...

    def event_time_ms(self, ev): ...

    def run_line(self, data): ...

    def run_marker(self, data): ...

    def result_problem(self, data): ...

    def result_object(self, data): ...


FORMATS: dict[str, ModuleType] = {f.NAME: f for f in (cursor, claude, codex, gemini)}
#: Formats in the order :func:`detect` asks them: Claude Code's events look like Cursor's, and
#: Cursor's claims any init.
_DETECT_ORDER = (claude, codex, gemini, cursor)
#: The types of the events that may begin a run of some format: the model tells the format
#: again at each (a file may hold runs of two agents).
RUN_START_TYPES = frozenset(f.INIT_TYPE for f in _DETECT_ORDER)


def agents_read() -> str:
    """The agent CLIs whose streams are read, in words: "Cursor, Claude Code, Codex and Gemini
    CLI"."""
    names = [f.AGENT for f in FORMATS.values()]
    return f"{', '.join(names[:-1])} and {names[-1]}" if len(names) > 1 else names[0]


def told_name(data: dict[str, Any]) -> str:
    """The name of the format :func:`detect` says the event is in, or ""."""
    fmt = detect(data)
    return fmt.NAME if fmt is not None else ""


def sniff_agent(data: dict[str, Any]) -> str:
    """The agent CLI that, by its shape, wrote this event when it is not a Cursor one:
    ``"Claude Code"``, ``"Codex"``, ``"Gemini CLI"``, or ``""`` (Cursor's, or cannot tell).

    Cheap, but meant for rare events (an init, an unknown type, unknown content) and an
    input's first events, not for every delta."""
    fmt = detect(data)
    return fmt.AGENT if fmt is not None and fmt is not cursor else ""


def begins_run(t: Any, subtype: Any, after_result: bool) -> bool:
    """Whether an event of type ``t`` may begin a run, of any format: an init (Cursor's and
    Claude Code's ``system/init``, Codex's ``thread.started``, Gemini CLI's ``init``), or a
    ``system`` event ``after_result`` (Claude Code's hooks come before its init).  The format
    is told again at such an event (by the model and the ``--print`` json printers alike)."""
    return type(t) is str and t in RUN_START_TYPES and (t != "system" or subtype == "init" or after_result)


def detect(data: dict[str, Any]) -> Format | None:
    """The format an event, by its shape, is written in; None when it cannot tell (a plain
    message, a result)."""
    for fmt in _DETECT_ORDER:
        if fmt.claims(data):
            return fmt  # type: ignore[return-value]
    return None


#: The first events of an input (and of each file after a restart) are looked at for the
#: format they are written in, until one tells.
DETECT_EVENTS = 200
#: Bytes of a file's start read to tell its format before it is read (see detect_head).
DETECT_BYTES = 1 << 20


def detect_first(objects: Iterable[Any]) -> Format | None:
    """The format the first of an input's ``objects`` (its first DETECT_EVENTS events) that can
    tell says, as the model would tell it reading them; None when nothing tells."""
    for data in islice(objects, DETECT_EVENTS):
        if type(data) is dict:
            fmt = detect(data)
            if fmt is not None:
                return fmt
    return None


def detect_head(head: bytes) -> Format | None:
    """:func:`detect_first` of the events in ``head``, a file's first bytes: a big file's
    worker processes interpret its events in that format."""
    import orjson

    def objects() -> Iterator[Any]:
        for line in head.split(b"\n", DETECT_EVENTS)[:DETECT_EVENTS]:
            try:
                yield orjson.loads(line)
            except orjson.JSONDecodeError:
                continue

    return detect_first(objects())


def get_format(name: str = "cursor") -> Format:
    try:
        return FORMATS[name]  # type: ignore[return-value]
    except KeyError:
        raise ValueError(f"unknown stream format {name!r} (known: {', '.join(FORMATS)})") from None
