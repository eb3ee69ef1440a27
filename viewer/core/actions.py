"""Format-neutral actions.

A format module (one per agent CLI, see :mod:`viewer.core.formats`) turns a
decoded :class:`~viewer.core.decode.Event` into one of these actions; the
session model (:mod:`viewer.core.model`) only ever sees actions.  Adding a
format means writing a new interpreter, not editing the model.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(slots=True)
class Action:
    session_id: str | None
    #: When the event happened by the stream's own clock (ms since the epoch), if it says.
    time_ms: int | None = field(default=None, kw_only=True)


@dataclass(slots=True)
class Init(Action):
    model: str = ""
    cwd: str = ""
    api_key_source: str = ""
    permission_mode: str = ""
    extra: dict[str, Any] = field(default_factory=dict)
    #: A turn's start (Codex's ``turn.started``): it begins a run only after the current run's
    #: result, as the same session's next run (its first turn is the thread's run).
    turn: bool = False


@dataclass(slots=True)
class UserText(Action):
    text: str = ""
    #: Message content the format does not know (e.g. another agent's tool_use), one line each.
    unknown_parts: list[str] = field(default_factory=list)
    #: The agent's prompt to a sub-agent, not the user's: the id of the call it runs under.
    parent_id: str = ""


@dataclass(slots=True)
class AssistantText(Action):
    text: str = ""
    #: The format knows this line is a consolidated copy of the whole segment.
    consolidated: bool = False
    #: The format knows this line is a delta (never the consolidated copy).
    delta_only: bool = False
    turn_id: str = ""
    unknown_parts: list[str] = field(default_factory=list)
    #: A sub-agent's words: the id of the call it runs under (Claude Code's Task), "" for the
    #: agent's own.
    parent_id: str = ""


@dataclass(slots=True)
class Thinking(Action):
    text: str = ""
    done: bool = False
    #: ``text`` is the whole thought (Claude Code's thinking part), not a delta: it replaces
    #: what deltas of it came before (``--include-partial-messages``) and ends it.
    whole: bool = False
    parent_id: str = ""  # a sub-agent's (whole) thought: the id of the call it runs under


@dataclass(slots=True)
class ToolInfo:
    """What a format knows of one tool-call event."""

    kind_key: str  # raw key, e.g. "shellToolCall"
    label: str  # "Ran terminal command"
    target: str  # the main argument: a path, a command, a pattern ("" if none)
    detail: str  # extra summary: "54 lines · 1.2 KB", "exit 1"
    outcome: str  # "" while running; "success", "error", "failure", "rejected", or any other key
    status: str  # "running", "success", "error", "failed", "rejected", "unknown"
    started_ms: int | None = None
    completed_ms: int | None = None
    has_args: bool = True
    error_text: str = ""
    short: str = ""  # "Shell": the kind in a column of calls ("": the label)


@dataclass(slots=True)
class ToolStarted(Action):
    call_id: str = ""
    info: ToolInfo | None = None
    timestamp_ms: int | None = None
    turn_id: str = ""
    parent_id: str = ""  # a sub-agent's call: the id of the call it runs under
    #: Its arguments are still being written (Claude Code's partial messages: a call shown as
    #: its input streams in): the next start with its id is its start, not the same again.
    early: bool = False


@dataclass(slots=True)
class ToolCompleted(Action):
    call_id: str = ""
    info: ToolInfo | None = None
    timestamp_ms: int | None = None
    turn_id: str = ""
    #: The call as it is now (Codex's to-do list, ticked off as the turn goes on), not the same
    #: completion again: what it says, and its event, replace what came before.
    update: bool = False
    #: Its event is the call's start as well (Codex's to-do list, done as it is written: its
    #: ``item.started``): where the call began, for the detail view's events and raw view.
    start: bool = False


@dataclass(slots=True)
class Query(Action):
    phase: str = ""  # "request" / "response"
    query_type: str = ""
    #: What it is, in words ("Question"): the transcript's line begins with it.
    label: str = ""
    query_id: str = ""
    title: str = ""  # one-line description
    call_id: str = ""
    #: What it asks, a line each ("What payment flow? (One-time / Recurring)"): the request's
    #: questions and their options.
    details: str = ""


def failed_result(is_error: bool, subtype: str) -> bool:
    """Whether a result says its run failed: ``is_error``, or a subtype other than success
    (Claude Code's ``error_max_turns`` comes with ``is_error`` false).  The one rule for the
    run's state, the exit status of every ``--print`` mode and the replay's next error."""
    return is_error or subtype not in ("success", "")


def failure_subtype(subtype: str) -> str:
    """What a failed run's subtype says of why ("" for none, and for "success": Claude Code's
    API errors come with it, and "Run failed (success)" read as nonsense)."""
    return "" if subtype in ("", "success") else subtype


@dataclass(slots=True)
class Tokens:
    """What a run's model calls used, as its format counts it (read by the format's module:
    each agent names these counts its own way)."""

    input: int
    output: int
    cache_read: int = 0  # tokens read from the prompt cache (often more than ``input``)
    cache_write: int = 0  # tokens written to it (Claude Code's cache creation, Cursor's cache write)


@dataclass(slots=True)
class Result(Action):
    subtype: str = ""
    is_error: bool = False
    duration_ms: int | None = None
    duration_api_ms: int | None = None
    text: str = ""
    request_id: str = ""
    tokens: Tokens | None = None
    #: ``text`` is the run's last message (Claude Code's), not all its messages joined (Cursor's).
    last_only: bool = False
    cost_usd: float | None = None  # what the run cost, when the agent says (Claude Code)

    @property
    def failed(self) -> bool:
        return failed_result(self.is_error, self.subtype)


@dataclass(slots=True)
class Notice(Action):
    """An event the viewer shows generically: retry, connection, unknown types."""

    event_type: str = ""
    subtype: str = ""
    text: str = ""
    known: bool = True  # False for event types the format does not know
    #: Progress the format knows and counts but does not show in the transcript (Claude Code's
    #: ``system/thinking_tokens``, the partial stream's ``message_start``): hundreds a run.
    quiet: bool = False
    #: An error or warning the agent reported without ending the run (Codex's ``error``,
    #: Gemini CLI's): shown as a warning, not as dim progress.
    alert: bool = False


@dataclass(slots=True)
class Batch(Action):
    """Several actions of one event, in order: a Claude Code message holds text, thinking and
    tool calls side by side; a user message, the results of calls run side by side."""

    actions: list[Action] = field(default_factory=list)
