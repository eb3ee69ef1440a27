"""Gemini CLI ``gemini -p ... --output-format stream-json``.

Everything this project knows about Gemini CLI's stream lives here.  Its events are few and
flat: ``init`` (session id and model), ``message`` (the user's prompt, then the model's text
in chunks marked ``delta``), ``tool_use`` and ``tool_result`` (paired by ``tool_id``),
``error`` (a warning, or an error that does not stop the run) and ``result``.  Every event
carries an ISO ``timestamp``; only the init carries the session id.  See
``shared/stream-json.md`` section 4 for the evidence.
"""

from __future__ import annotations

import re
from typing import Any

from viewer.core import actions as A
from viewer.core.decode import Event
from viewer.core.detail import Section
from viewer.core.formats.common import (
    args_section,
    as_dict,
    as_int,
    as_list,
    as_str,
    diff_from,
    first_arg,
    first_arg_line,
    first_line,
    iso_ms,
    last_line,
    notice_text,
    part_count,
    plural,
    run_marker_for,
    short_name,
    todo_summary,
    token_counts,
    written_lines,
)

NAME = "gemini"
AGENT = "Gemini CLI"

KNOWN_TYPES = frozenset(("init", "message", "tool_use", "tool_result", "error", "result"))
#: The event that begins a run (see formats.RUN_START_TYPES).
INIT_TYPE = "init"
#: Only the event that begins a run names it: every event after goes to the newest run, so a
#: new run ends the one before (it was still "live" until the input's end).
EVENTS_NAME_THEIR_RUN = False


def claims(data: dict[str, Any]) -> bool:
    """Whether the event, by its shape, is Gemini CLI's: an ``init`` (Cursor's and Claude
    Code's are ``system`` events), a ``message`` with a role, a ``tool_use`` or
    ``tool_result`` event of its own (the others' are parts of a message)."""
    t = data.get("type")
    if t == "init":
        return "subtype" not in data
    if t == "message":
        return "role" in data
    if t in ("tool_use", "tool_result"):
        return "tool_id" in data
    return False


def event_time_ms(ev: Event) -> int | None:
    return iso_ms(ev.data.get("timestamp"))


def run_line(data: dict[str, Any]) -> None:
    """No lines are gathered into runs: the model's text comes in a few chunks per answer."""
    return None


# -- tool kinds -----------------------------------------------------------------


_first = first_arg_line


_PATH = ("file_path", "absolute_path", "path")  # (absolute_path, path: older builds)
_DIR = ("dir_path", "path", "directory")


def _placed(args: dict[str, Any]) -> str:
    pattern = as_str(args.get("pattern"))
    place = first_arg(*_DIR)(args)
    return f"{pattern} in {place}" if pattern and place else pattern or place


def _todos(args: dict[str, Any]) -> str:
    return todo_summary(args.get("todos"), lambda t: t.get("status") == "completed")


def _listed(args: dict[str, Any], *names: str) -> str:
    """The first of ``names`` that is set, a list of paths or patterns read as one line."""
    for n in names:
        v = args.get(n)
        items = [as_str(x) for x in as_list(v) if as_str(x)] if type(v) is list else [as_str(v)] if as_str(v) else []
        if items:
            return ", ".join(items)
    return ""


def _asked(args: dict[str, Any]) -> str:
    questions = [as_dict(q) for q in as_list(args.get("questions"))]
    return first_line(as_str(questions[0].get("question"))) if questions else ""


_GENERIC = _first(*_PATH, "command", "pattern", "query", "url", "prompt", "description", "name")

#: Tool name -> (label, short name, target).
KINDS: dict[str, tuple[str, str, Any]] = {
    "run_shell_command": ("Ran terminal command", "Shell", _first("command")),
    "read_file": ("Read file", "Read", _first(*_PATH)),
    "read_many_files": ("Read files", "Read", lambda args: _listed(args, "include", "paths", "file_paths")),
    "write_file": ("Wrote file", "Write", _first(*_PATH)),
    "replace": ("Edited file", "Edit", _first(*_PATH)),
    "list_directory": ("Listed directory", "List", _first(*_DIR)),
    "glob": ("Found files", "Glob", _placed),
    "grep_search": ("Grepped", "Grep", _placed),
    "search_file_content": ("Grepped", "Grep", _placed),
    "web_fetch": ("Fetched web page", "Fetch", _first("prompt", "url")),
    "google_web_search": ("Searched the web", "Web", _first("query")),
    "write_todos": ("Updated todos", "Todos", _todos),
    "save_memory": ("Saved a memory", "Memory", _first("fact")),
    "ask_user": ("Asked the user", "Ask", _asked),
    "activate_skill": ("Activated skill", "Skill", _first("name")),
}
#: How a kind's target reads where it is not a path (see detail.call_target).
TARGET_FORMS = {"glob": "placed", "grep_search": "placed", "search_file_content": "placed",
                "run_shell_command": "command"}


def _kind(name: str) -> tuple[str, str, Any]:
    known = KINDS.get(name)
    if known is not None:
        return known
    if name.startswith("mcp_"):  # (mcp_<server>_<tool>: where the server's name ends is not known)
        return "Called MCP tool", "MCP", lambda args: name[4:]
    return name or "Tool call", short_name(name) or "Tool", _GENERIC


def _start_detail(name: str, args: dict[str, Any]) -> str:
    """What a call's arguments say of its size: the lines a write_file writes."""
    if name == "write_file":
        return written_lines(as_str(args.get("content")))
    return ""


def _error(data: dict[str, Any]) -> str:
    """A tool result's or a result's error, in words: its message, else its type."""
    err = as_dict(data.get("error"))
    return as_str(err.get("message")) or as_str(err.get("type"))


#: What run_shell_command says of a command that failed with no output (with output, only
#: the output comes: its tool_result says "success" with nothing of its exit code).
_SHELL_FAILED = re.compile(r"Command (?:exited with code: (-?\d+)|terminated by signal: \S+|failed: .*)")


def _shell_failure(data: dict[str, Any]) -> tuple[str, str] | None:
    """A failed command's detail and error ("exit 2", "" / "", "Command terminated by signal:
    SIGKILL"), or None: its output is only what Gemini CLI says of a failed command that
    printed nothing."""
    output = as_str(data.get("output")).strip()
    found = _SHELL_FAILED.fullmatch(output)
    if found is None or not as_str(data.get("tool_id")).startswith("run_shell_command"):
        return None
    code = found.group(1)
    return (f"exit {code}", "") if code else ("", output)


def _completed_info(data: dict[str, Any]) -> A.ToolInfo:
    shell = _shell_failure(data)
    if shell is not None:
        return A.ToolInfo("", "", "", shell[0], "error", "failed", has_args=False, error_text=shell[1])
    if data.get("status") == "error" or as_dict(data.get("error")):
        error = _error(data)
        kind = as_str(as_dict(data.get("error")).get("type"))
        refused = kind == "policy_violation"  # (the policy did not allow it: refused, not failed)
        status, outcome = ("rejected", "rejected") if refused else ("failed", kind or "error")
        return A.ToolInfo("", "", "", "", outcome, status, has_args=False, error_text=first_line(error)
                          or last_line(as_str(data.get("output"))))
    return A.ToolInfo("", "", "", _output_detail(as_str(data.get("output"))), "success", "success", has_args=False)


def _output_detail(output: str) -> str:
    """What a call's output says of it in the list: its lines when it has several (a
    command's), itself when it is one short line ("Found 2 matches"); "" for a long one (an
    edit's "Successfully modified file: <its path>" says nothing the row does not)."""
    text = output.strip()
    if "\n" in text:
        return plural(text.count("\n") + 1, "line")
    return text if len(text) <= 40 else ""


# -- events -> actions ----------------------------------------------------------


def _tokens(stats: Any) -> A.Tokens | None:
    """A result's ``stats``: ``input`` is the input not read from the cache (``cached``)."""
    st = as_dict(stats)
    counts = token_counts(st, "input_tokens", "output_tokens")
    if counts is None:
        return None
    tin, tout = counts
    cached = part_count(st, "cached", tin)
    fresh = as_int(st.get("input"))
    return A.Tokens(fresh if fresh is not None and 0 <= fresh <= tin else tin - cached, tout, cached)


def interpret(ev: Event) -> A.Action:
    data = ev.data
    t = ev.type
    ts = iso_ms(data.get("timestamp"))
    a: A.Action
    if t == "message" and not isinstance(data.get("content"), str):  # (no text: shown by its fields)
        a = A.Notice(None, t, as_str(data.get("role")), notice_text(data), known=False)
    elif t == "message":
        role = data.get("role")
        text = as_str(data.get("content"))
        if role == "assistant":
            a = A.AssistantText(None, text, delta_only=True) if data.get("delta") is True else (
                A.AssistantText(None, text, consolidated=True))
        elif role == "user":
            a = A.UserText(None, text)
        else:
            a = A.Notice(None, t, as_str(role), notice_text(data), known=False)
    elif t == "tool_use":
        name = as_str(data.get("tool_name"))
        label, short, target = _kind(name)
        args = as_dict(data.get("parameters"))
        info = A.ToolInfo(name or "unknown", label, target(args), _start_detail(name, args), "", "running",
                          has_args=bool(args), short=short)
        a = A.ToolStarted(None, call_id=as_str(data.get("tool_id")), info=info, timestamp_ms=ts)
    elif t == "tool_result":
        a = A.ToolCompleted(None, call_id=as_str(data.get("tool_id")), info=_completed_info(data), timestamp_ms=ts)
    elif t == "init":
        sid = as_str(data.get("session_id"))
        a = A.Init(sid or None, model=as_str(data.get("model")))
    elif t == "result":
        stats = as_dict(data.get("stats"))
        failed = data.get("status") == "error"
        a = A.Result(None, subtype="error" if failed else "success", is_error=failed,
                     duration_ms=as_int(stats.get("duration_ms")), text=_error(data), tokens=_tokens(stats),
                     last_only=True)
    elif t == "error":  # ("warning: Loop detected, stopping execution", "error: ...")
        a = A.Notice(None, as_str(data.get("severity")) or t, "", as_str(data.get("message")) or notice_text(data),
                     alert=True)
    else:
        a = A.Notice(None, as_str(t), "", notice_text(data), known=False)
    a.time_ms = ts
    return a


# -- ``--print --output-format json`` -------------------------------------------


#: Its session id (the init's), and "init", "result", "" or "unknown".
run_marker = run_marker_for(KNOWN_TYPES, init=("init", None))


def result_problem(data: dict[str, Any]) -> str:
    """Why a result is a failed run ("" when it succeeded): status ``error``."""
    if data.get("status") != "error":
        return ""
    return _error(data) or "error"


def result_object(data: dict[str, Any]) -> dict[str, Any]:
    """The result event, as it came (Gemini CLI's own ``json`` output holds the whole answer,
    which a result event does not)."""
    return dict(data)


# -- detail view ----------------------------------------------------------------


#: A call's main argument, whole (copy_text).
_COPIED = first_arg("command", *_PATH, "pattern", "query", "url", "prompt", "dir_path")


def copy_text(started: dict[str, Any] | None, completed: dict[str, Any] | None, call_id: str = "") -> str:
    """A call's main argument, whole (a command of many lines, a path, a pattern, a query)."""
    return _COPIED(as_dict(as_dict(started).get("parameters")))


def tool_sections(started: dict[str, Any] | None, completed: dict[str, Any] | None,
                  call_id: str = "") -> list[Section]:
    """Sections for a tool call's detail view from its two events (either may be None)."""
    use, result = as_dict(started), as_dict(completed) if completed is not None else None
    name = as_str(use.get("tool_name"))
    args = as_dict(use.get("parameters"))
    path = first_arg(*_PATH)(args)
    output = as_str(result.get("output")) if result is not None else ""
    failed = result is not None and (result.get("status") == "error" or bool(as_dict(result.get("error")))
                                     or _shell_failure(result) is not None)
    out: list[Section] = []
    add = out.append
    shown = False  # the output is in a section already
    if name == "run_shell_command":
        add(Section("Command", as_str(args.get("command")), "code", "bash"))
        if as_str(args.get("description")):
            add(Section("Description", as_str(args.get("description"))))
        if result is not None:  # (a failed command's "Command exited with code: 2" is its error)
            add(Section("Output", "(no output)" if _shell_failure(result) is not None else output or "(no output)",
                        "terminal"))
            shown = True
    elif name == "write_file":
        add(Section(path or "File text", as_str(args.get("content")), "code", path))
    elif name == "replace":
        diff = diff_from(as_str(args.get("old_string")), as_str(args.get("new_string")), path)
        add(Section("Diff", diff or "(no change)", "diff" if diff else "text"))
        if as_str(args.get("instruction")):
            add(Section("Instruction", as_str(args.get("instruction"))))
    elif name == "write_todos":
        marks = {"completed": "[x]", "in_progress": "[~]", "cancelled": "[-]"}
        lines = [f"{marks.get(as_str(as_dict(t).get('status')), '[ ]')} {as_str(as_dict(t).get('description'))}"
                 for t in as_list(args.get("todos"))]
        add(Section("Todos", "\n".join(lines) or "(none)"))
    elif args:
        add(args_section(args))
    if result is None:
        return out  # (no result yet: viewer.core.detail.call_sections says why, from the call's status)
    if failed:
        add(Section("Error", _error(result) or output or "(no details)"))
        if output and not shown and output != _error(result):
            add(Section("Output", output))
    elif not shown:
        add(Section("Result", output or "(empty)"))
    return out
