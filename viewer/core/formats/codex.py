"""OpenAI Codex ``codex exec --json``.

Everything this project knows about Codex's stream lives here.  A run is a thread
(``thread.started``, whose ``thread_id`` is the only id the stream gives) and a turn
(``turn.started`` ... ``turn.completed`` or ``turn.failed``).  What happens in between is
items, each with an id: ``item.started`` (a command or a call begins), ``item.updated`` (a
to-do list changes) and ``item.completed``.  A message, a reasoning summary and a file
change come only as ``item.completed``.  No event carries a time.  Builds before about 0.44
name an item's type ``item_type`` and an agent message ``assistant_message``.  See
``shared/stream-json.md`` section 5 for the evidence.
"""

from __future__ import annotations

import re
import shlex
from typing import Any

import orjson

from viewer.core import actions as A
from viewer.core.decode import Event
from viewer.core.detail import Section
from viewer.core.formats.common import (
    args_section,
    as_dict,
    as_int,
    as_list,
    as_str,
    content_text,
    first_arg,
    first_line,
    json_text,
    last_line,
    notice_text,
    output_lines,
    part_count,
    plural,
    run_marker_for,
    short_name,
    todo_summary,
    token_counts,
)

NAME = "codex"
AGENT = "Codex"

#: The event types of ``codex exec --json``, every one dotted but ``error`` and
#: ``request_user_input``.
KNOWN_TYPES = frozenset((
    "thread.started", "turn.started", "turn.completed", "turn.failed", "item.started", "item.updated",
    "item.completed", "item.plan.delta", "request_user_input", "error",
))
#: The event that begins a run (see formats.RUN_START_TYPES).
INIT_TYPE = "thread.started"
#: Only the event that begins a run names it: every event after goes to the newest run, so a
#: new run ends the one before (it was still "live" until the input's end).
EVENTS_NAME_THEIR_RUN = False
#: Item types that are a call of a tool (a row of the list), and how each reads there:
#: (label, short name).  An item of a type not known here is shown as a call too.
CALLS: dict[str, tuple[str, str]] = {
    "command_execution": ("Ran terminal command", "Shell"),
    "file_change": ("Changed files", "Edit"),
    "mcp_tool_call": ("Called MCP tool", "MCP"),
    "web_search": ("Searched the web", "Web"),
    "todo_list": ("Updated todos", "Todos"),
    "collab_tool_call": ("Ran subagent", "Agent"),
}
#: How a kind's target reads where it is not a path (see detail.call_target).
TARGET_FORMS = {"command_execution": "command"}


def claims(data: dict[str, Any]) -> bool:
    """Whether the event, by its type, is Codex's: every type of its own is dotted
    (``thread.started``, ``item.completed``); ``error`` is anybody's."""
    t = data.get("type")
    return type(t) is str and t != "error" and t in KNOWN_TYPES


def event_time_ms(ev: Event) -> int | None:
    """No event of Codex's says when it happened."""
    return None


def run_line(data: dict[str, Any]) -> None:
    """No lines are gathered into runs: messages come whole."""
    return None


# -- items ------------------------------------------------------------------------


def item_type(item: dict[str, Any]) -> str:
    """An item's type, by either name (``item_type`` before about 0.44), the old name of an
    agent message made the new one."""
    t = as_str(item.get("type")) or as_str(item.get("item_type"))
    return "agent_message" if t == "assistant_message" else t


#: ``bash -lc 'cat x'``: the shell Codex runs every command in, and the command itself.
_WRAPPED = re.compile(r"^(?:/\S*/)?(?:ba|z|da)?sh -l?c (.+)$", re.S)


def inner_command(command: str) -> str:
    """The command a ``bash -lc '...'`` line runs (what the list shows), else the line itself."""
    m = _WRAPPED.match(command)
    if m is None:
        return command
    try:
        words = shlex.split(m.group(1))
    except ValueError:  # (an unclosed quote: not a shell line of Codex's)
        return command
    return words[0] if len(words) == 1 else command


def _todos(items: Any) -> str:
    return todo_summary(items, lambda t: t.get("completed") is True)


#: What a file change did to a file, as a word.
_CHANGED = {"add": "added", "delete": "deleted", "update": "updated"}


def _changes(item: dict[str, Any]) -> tuple[str, str]:
    """A file change's (target, detail): its one path, or how many files; what was done to them."""
    changes = [as_dict(c) for c in as_list(item.get("changes"))]
    paths = [as_str(c.get("path")) for c in changes]
    target = paths[0] if len(paths) == 1 else plural(len(paths), "file") if paths else ""
    kinds: dict[str, int] = {}
    for c in changes:
        k = as_str(c.get("kind")) or "changed"
        kinds[k] = kinds.get(k, 0) + 1
    return target, ", ".join(f"{n} {_CHANGED.get(k, k)}" for k, n in kinds.items())


_GENERIC = first_arg("command", "path", "query", "text", "prompt", "tool", "name", "message", shape=first_line)


def _target(t: str, item: dict[str, Any]) -> str:
    if t == "command_execution":
        return first_line(inner_command(as_str(item.get("command"))))
    if t == "mcp_tool_call":
        server, tool = as_str(item.get("server")), as_str(item.get("tool"))
        return f"{server}: {tool}" if server and tool else server or tool
    if t == "web_search":
        return first_line(as_str(item.get("query")))
    if t == "todo_list":
        return _todos(item.get("items"))
    if t == "collab_tool_call":
        tool = as_str(item.get("tool")).replace("_", " ")
        prompt = first_line(as_str(item.get("prompt")))
        return f"{tool}: {prompt}" if tool and prompt else tool or prompt
    if t == "file_change":
        return _changes(item)[0]
    return _GENERIC(item)


def _info(t: str, item: dict[str, Any], done: bool) -> A.ToolInfo:
    """What an item that is a call says of it; ``done``: it came in ``item.completed``."""
    label, short = CALLS.get(t) or (t.replace("_", " ").capitalize(), short_name(t))
    status_word = as_str(item.get("status"))
    detail = error = ""
    if t == "file_change":
        detail = _changes(item)[1]
        changes = as_list(item.get("changes"))
        if changes and all(as_dict(c).get("kind") == "add" for c in changes):
            # (as Cursor's file creation reads: a trial saw "Edit … · 1 added" beside it)
            label, short = "Created new file" if len(changes) == 1 else "Created files", "Create"
    if not done and status_word in ("", "in_progress"):
        status, outcome = "running", ""
    elif status_word == "declined":
        status, outcome = "rejected", "rejected"
        error = "declined"
    elif status_word == "failed":
        status, outcome = "failed", "error"
        if t == "command_execution":
            out = as_str(item.get("aggregated_output"))
            code = as_int(item.get("exit_code"))
            detail = f"exit {code}" if code is not None else ""
            error = last_line(out)
        elif t == "file_change":  # (the patch was not applied: no file was changed)
            detail, error = "", "the patch was not applied"
        else:
            error = first_line(as_str(as_dict(item.get("error")).get("message")))
    else:  # completed, or a completion without a status
        status, outcome = "success", "success"
        if t == "command_execution":
            code = as_int(item.get("exit_code"))
            out = as_str(item.get("aggregated_output"))
            if code not in (0, None):  # (-1: refused by the sandbox, in old builds)
                status, outcome = "failed", "error"
                detail, error = f"exit {code}", last_line(out)
            else:
                detail = output_lines(out)
        elif t == "mcp_tool_call" and as_dict(item.get("error")):
            status, outcome = "failed", "error"
            error = first_line(as_str(as_dict(item.get("error")).get("message")))
    return A.ToolInfo(t, label, _target(t, item), detail, outcome, status,
                      has_args=True, error_text=error, short=short)


def _item(data: dict[str, Any], et: str) -> A.Action:
    item = as_dict(data.get("item"))
    t = item_type(item)
    iid = as_str(item.get("id"))
    done = et == "item.completed"
    if t == "agent_message":
        if done:
            return A.AssistantText(None, as_str(item.get("text")), consolidated=True)
        return _notice(data, et, quiet=True)
    if t == "plan":  # (plan mode's proposal; its text may come first as item.plan.delta)
        if done:
            return A.AssistantText(None, as_str(item.get("text")), consolidated=True)
        return _notice(data, et, quiet=True)
    if t == "reasoning":
        if done:
            return A.Thinking(None, as_str(item.get("text")), done=True, whole=True)
        return _notice(data, et, quiet=True)
    if t == "error":  # (a non-fatal error, as an item)
        return A.Notice(None, "error", "", as_str(item.get("message")) or notice_text(item), alert=True)
    if not t:  # (no item, or one of no type: shown by its fields)
        return A.Notice(None, et, "", notice_text(data), known=False)
    if t == "todo_list":  # (a plan, not a process: done as it is written, then ticked off)
        return A.ToolCompleted(None, call_id=iid, info=_info(t, item, True), update=True,
                               start=et == "item.started")
    if et == "item.updated":  # (no other item is updated in the builds seen; its completion says all)
        return _notice(data, et, quiet=True)
    info = _info(t, item, done)
    if done:
        return A.ToolCompleted(None, call_id=iid, info=info)
    return A.ToolStarted(None, call_id=iid, info=info)


# -- events -> actions ----------------------------------------------------------


def _notice(data: dict[str, Any], t: str, quiet: bool = False) -> A.Notice:
    return A.Notice(None, t, "", "" if quiet else notice_text(data), known=t in KNOWN_TYPES, quiet=quiet)


def _tokens(usage: Any) -> A.Tokens | None:
    """A turn's usage: its ``input_tokens`` count the cached ones too (OpenAI's way); the
    model's Tokens count them apart."""
    u = as_dict(usage)
    counts = token_counts(u, "input_tokens", "output_tokens")
    if counts is None:
        return None
    tin, tout = counts
    cached = part_count(u, "cached_input_tokens", tin)
    return A.Tokens(tin - cached, tout, cached)


def error_message(v: Any) -> str:
    """What a ``turn.failed``'s or an ``error`` event's message says: often the API's own error
    as JSON in a string, whose ``message`` is the words to show."""
    text = as_str(as_dict(v).get("message")) if isinstance(v, dict) else as_str(v)
    if text.startswith("{"):
        try:
            obj = orjson.loads(text)
        except orjson.JSONDecodeError:
            return text
        inner = as_dict(obj.get("error")) if isinstance(obj, dict) else {}
        said = as_str(inner.get("message")) or (as_str(obj.get("message")) if isinstance(obj, dict) else "")
        return said or text
    return text


def _query(data: dict[str, Any]) -> A.Query:
    """The model asks the user (``request_user_input``): its questions, a line each, with
    their options."""
    lines = []
    for q in (as_dict(q) for q in as_list(data.get("questions"))):
        line = as_str(q.get("question")) or as_str(q.get("header"))
        options = [o for o in (as_str(as_dict(o).get("label")) for o in as_list(q.get("options"))) if o]
        lines.append(f"{line} ({' / '.join(options)})" if options else line)
    title = first_line(lines[0]) if len(lines) == 1 else plural(len(lines), "question")
    return A.Query(None, phase="request", query_type="question", label="Question", query_id=as_str(data.get("id")), title=title,
                   call_id=as_str(data.get("call_id")), details="\n".join(lines) if len(lines) > 1 else "")


def interpret(ev: Event) -> A.Action:
    data = ev.data
    t = ev.type
    if t in ("item.started", "item.updated", "item.completed"):
        return _item(data, t)
    if t == "item.plan.delta":
        return A.AssistantText(None, as_str(data.get("delta")), delta_only=True)
    if t == "thread.started":
        tid = as_str(data.get("thread_id"))
        return A.Init(tid or None)
    if t == "turn.started":  # (a thread's next turn is its next run)
        return A.Init(None, turn=True)
    if t == "turn.completed":
        return A.Result(None, subtype="success", tokens=_tokens(data.get("usage")), last_only=True)
    if t == "turn.failed":
        return A.Result(None, subtype="error", is_error=True, text=error_message(data.get("error")), last_only=True)
    if t == "error":
        return A.Notice(None, "error", "", error_message(data.get("message")) or notice_text(data), alert=True)
    if t == "request_user_input":
        return _query(data)
    return _notice(data, t)


# -- ``--print --output-format json`` -------------------------------------------


#: Its thread id, and "init" (thread.started), "result" (the turn's end), "" or "unknown".
_marker = run_marker_for(KNOWN_TYPES, init=("thread.started", None), result="turn.completed", sid_key="thread_id")


def run_marker(data: dict[str, Any]) -> tuple[str | None, str]:
    """As common.run_marker_for's, and "turn" for a turn's start (a thread's next turn is its
    next run once the one before has its result: see actions.Init.turn)."""
    sid, kind = _marker(data)
    t = data.get("type")
    return sid, "result" if t == "turn.failed" else "turn" if t == "turn.started" else kind


def result_problem(data: dict[str, Any]) -> str:
    """Why a turn's end is a failed run ("" when it succeeded)."""
    if data.get("type") != "turn.failed":
        return ""
    return error_message(data.get("error")) or "the turn failed"


def result_object(data: dict[str, Any]) -> dict[str, Any]:
    """Codex has no single result object of its own: the event that ended the turn, as it came."""
    return dict(data)


# -- detail view ----------------------------------------------------------------


def _item_of(started: dict[str, Any] | None, completed: dict[str, Any] | None) -> tuple[dict[str, Any], bool]:
    """The call's item as last seen, and whether it ended."""
    done = as_dict(as_dict(completed).get("item"))
    return (done, True) if done else (as_dict(as_dict(started).get("item")), False)


#: Any other item's main argument, whole (copy_text).
_COPIED = first_arg("query", "prompt", "tool")


def copy_text(started: dict[str, Any] | None, completed: dict[str, Any] | None, call_id: str = "") -> str:
    """A call's main argument, whole: the command as it ran, a path, a query."""
    item, _ = _item_of(started, completed)
    t = item_type(item)
    if t == "command_execution":
        return as_str(item.get("command"))
    if t == "file_change":
        return "\n".join(as_str(as_dict(c).get("path")) for c in as_list(item.get("changes")))
    return _COPIED(item)


def tool_sections(started: dict[str, Any] | None, completed: dict[str, Any] | None,
                  call_id: str = "") -> list[Section]:
    """Sections for a call's detail view from its two events (either may be None)."""
    item, done = _item_of(started, completed)
    t = item_type(item)
    out: list[Section] = []
    add = out.append
    status = as_str(item.get("status"))
    if t == "command_execution":
        add(Section("Command", as_str(item.get("command")), "code", "bash"))
        code = as_int(item.get("exit_code"))
        output = as_str(item.get("aggregated_output"))
        if done or output:
            title = "Output" + (f" (exit {code})" if code is not None else "")  # (0 too: as Cursor's call says it)
            add(Section(title, output or "(no output)", "terminal"))
    elif t == "file_change":
        lines = [f"{_CHANGED.get(as_str(as_dict(c).get('kind')), as_str(as_dict(c).get('kind')) or 'changed')}  "
                 f"{as_str(as_dict(c).get('path'))}" for c in as_list(item.get("changes"))]
        add(Section("Files", "\n".join(lines) or "(none)"))
    elif t == "mcp_tool_call":
        add(Section("Tool", _target(t, item)))
        add(args_section(item.get("arguments")))
        result = as_dict(item.get("result"))
        if result:
            text = content_text(result.get("content"))
            add(Section("Result", text or "(empty)"))
            if result.get("structured_content") is not None:
                add(Section("Structured result", json_text(result.get("structured_content")), "json"))
        error = as_str(as_dict(item.get("error")).get("message"))
        if error:
            add(Section("Error", error))
    elif t == "web_search":
        add(Section("Query", as_str(item.get("query"))))
        if item.get("action") is not None:
            add(Section("Action", json_text(item.get("action")), "json"))
    elif t == "todo_list":
        lines = [f"{'[x]' if as_dict(i).get('completed') is True else '[ ]'} {as_str(as_dict(i).get('text'))}"
                 for i in as_list(item.get("items"))]
        add(Section("Todos", "\n".join(lines) or "(none)"))
    elif t == "collab_tool_call":
        add(Section(as_str(item.get("tool")).replace("_", " ") or "Tool", as_str(item.get("prompt")) or "(no prompt)",
                    "markdown"))
        states = as_dict(item.get("agents_states"))
        if states:
            add(Section("Agents", json_text(states), "json"))
    else:
        add(Section("Item", json_text(item), "json"))
    if done and status == "declined":  # (not done: call_sections says why, from the call's status)
        add(Section("Status", "Declined: the command was not run."))
    return out
