"""Claude Code ``claude -p --output-format stream-json --verbose``.

Everything this project knows about Claude Code's stream lives here.  Its events look
like Cursor's (``system/init``, ``assistant``, ``user``, ``result``), but a message's
content is a list of parts: text, thinking and ``tool_use`` in an assistant message, the
``tool_result`` of a call in a user message.  One event may so hold several actions (an
:class:`~viewer.core.actions.Batch`).  ``--include-partial-messages`` adds
``stream_event`` lines (the API's own events: text and thinking deltas), and the whole
message still follows them.  See ``shared/stream-json.md`` section 3 for the evidence.
"""

from __future__ import annotations

import re
from typing import Any

from viewer.core import actions as A
from viewer.core.decode import Event
from viewer.core.detail import Section
from viewer.core.formats.common import (
    args_section,
    as_cost,
    as_dict,
    as_int,
    as_list,
    as_str,
    content_text,
    describe_item,
    diff_from,
    first_arg,
    first_arg_line,
    first_line,
    iso_ms,
    json_line,
    last_line,
    media_text,
    notice_text,
    output_lines,
    part_count,
    plural,
    run_marker_for,
    short_name,
    todo_summary,
    token_counts,
    written_lines,
)

NAME = "claude"
AGENT = "Claude Code"

KNOWN_TYPES = {"system", "assistant", "user", "result", "stream_event", "rate_limit_event"}
#: The event that begins a run (see formats.RUN_START_TYPES): its init, or a hook before it.
INIT_TYPE = "system"
#: Its events each name their run (session_id): runs written into one file at once can be
#: told apart, so a new run does not end the one before.
EVENTS_NAME_THEIR_RUN = True

#: ``system`` subtypes only Claude Code writes (hooks come before the init).
SYSTEM_SUBTYPES = frozenset((
    "hook_started", "hook_response", "thinking_tokens", "status", "permission_denied", "compact_boundary",
    "task_started", "task_progress", "task_updated", "api_retry",
))  # (not task_notification: Cursor writes it too)
#: ... of which these are progress, counted but not shown (a run writes hundreds); a task's
#: start repeats its call's (a sub-agent's Task, a command run in the background).
QUIET_SYSTEM = frozenset(("hook_started", "thinking_tokens", "status", "task_progress", "task_started"))
#: A task's end that is a warning (a sub-agent or a background command that failed).
_TASK_FAILED = frozenset(("failed", "error", "killed"))
#: Message parts only Claude Code's messages hold (Cursor's hold text).
PARTS = frozenset(("tool_use", "tool_result", "thinking", "redacted_thinking", "server_tool_use"))
#: The partial stream's events that only frame the deltas.
QUIET_STREAM = frozenset((
    "message_start", "message_delta", "message_stop", "content_block_start", "content_block_stop", "ping",
))
#: Fields an event shown by its fields leaves out: ids nobody reads.
_NOTICE_SKIP = frozenset(("uuid", "parent_tool_use_id", "hook_id", "tool_use_id"))


def claims(data: dict[str, Any]) -> bool:
    """Whether the event, by its shape, is Claude Code's (and not Cursor's, which looks alike):
    its init's fields, a ``system`` subtype or an event type of its own, a message part or a
    message object of the API's, a result's cost or turns."""
    t = data.get("type")
    if type(t) is not str:
        return False
    if t in ("stream_event", "rate_limit_event"):
        return True
    if t == "result":  # (alone: ``claude -p --output-format json``, read as Cursor's, lost its cost)
        return "total_cost_usd" in data or "num_turns" in data or "modelUsage" in data
    if t == "system":
        st = data.get("subtype")
        if st == "init":
            return "claude_code_version" in data or "mcp_servers" in data or type(data.get("tools")) is list
        return type(st) is str and st in SYSTEM_SUBTYPES
    if t in ("assistant", "user"):
        msg = data.get("message")
        if type(msg) is not dict:
            return False
        if type(msg.get("id")) is str and "model" in msg:  # (an API message; Cursor's has neither)
            return True
        content = msg.get("content")
        return type(content) is list and any(
            type(p) is dict and type(p.get("type")) is str and p["type"] in PARTS for p in content
        )
    return False


# -- time -----------------------------------------------------------------------


def event_time_ms(ev: Event) -> int | None:
    """When the event happened by the stream's own clock: user messages (tool results) and
    some others carry an ISO ``timestamp``; most lines carry none."""
    return iso_ms(ev.data.get("timestamp"))


# -- tool kinds -----------------------------------------------------------------


def _placed(args: dict[str, Any]) -> str:
    pattern, path = as_str(args.get("pattern")), as_str(args.get("path"))
    return f"{pattern} in {path}" if pattern and path else pattern or path


_first = first_arg_line


def _todos(args: dict[str, Any]) -> str:
    return todo_summary(args.get("todos"), lambda t: t.get("status") == "completed")


def _mcp(name: str) -> str:
    server, _, tool = name[len("mcp__"):].partition("__")
    return f"{server}: {tool}" if tool else server


_GENERIC = _first("file_path", "path", "notebook_path", "command", "pattern", "url", "query", "description",
                  "prompt", "name")

#: Tool name -> (label, target).  A column of calls names each by the tool's own name (Bash,
#: Task); other tools read as their own name.
KINDS: dict[str, tuple[str, Any]] = {
    "Bash": ("Ran terminal command", _first("command")),
    "BashOutput": ("Read command output", _first("bash_id", "shell_id")),
    "KillBash": ("Stopped command", _first("shell_id", "bash_id")),
    "KillShell": ("Stopped command", _first("shell_id", "bash_id")),
    "Read": ("Read file", _first("file_path")),
    "Write": ("Wrote file", _first("file_path")),
    "Edit": ("Edited file", _first("file_path")),
    "MultiEdit": ("Edited file", _first("file_path")),
    "NotebookEdit": ("Edited notebook", _first("notebook_path")),
    "Glob": ("Found files", _placed),
    "Grep": ("Grepped", _placed),
    "LS": ("Listed directory", _first("path")),
    "WebFetch": ("Fetched web page", _first("url")),
    "WebSearch": ("Searched the web", _first("query")),
    "Task": ("Ran subagent", _first("description", "subagent_type")),
    "Agent": ("Ran subagent", _first("description", "subagent_type")),
    "TodoWrite": ("Updated todos", _todos),
    "ExitPlanMode": ("Proposed plan", _first("plan")),
}
#: How a kind's target reads where it is not a path (see detail.call_target).
TARGET_FORMS = {"Grep": "placed", "Glob": "placed", "Bash": "command"}


def _kind(name: str) -> tuple[str, str, Any]:
    known = KINDS.get(name)
    if known is not None:
        return known[0], name, known[1]
    if name.startswith("mcp__"):
        return "Called MCP tool", "MCP", lambda args: _mcp(name)
    return name or "Tool call", short_name(name) or "Tool", _GENERIC


# -- tool results ---------------------------------------------------------------


#: A tool result that says the call was refused, not that it failed.
_REFUSED = re.compile(
    r"Claude requested permissions|The user doesn't want to proceed|Permission to use .+ (?:has been|was) denied"
    r"|.+ but you haven't granted it"
)
_EXIT = re.compile(r"Exit code (\d+)")


def _completed_info(part: dict[str, Any], sidecar: Any) -> A.ToolInfo:
    """What a ``tool_result`` says of its call (its kind and target came with its start)."""
    text = content_text(part.get("content"))
    failed = part.get("is_error") is True
    if failed:
        refused = bool(_REFUSED.match(text))
        status, outcome = ("rejected", "rejected") if refused else ("failed", "error")
        code = _EXIT.match(text)
        detail = f"exit {code.group(1)}" if code else ""
        error = first_line(text) if refused or not code else last_line(text) or first_line(text)
    else:
        status, outcome, error = "success", "success", ""
        detail = _output_size(sidecar)
    return A.ToolInfo("", "", "", detail, outcome, status, has_args=False, error_text=error)


def _output_size(sidecar: Any) -> str:
    """How much a call that went well gave back, by its result's side-car (``tool_use_result``,
    which says what kind of output it is): a command's lines, a file's, the files found.
    "" for the others (a Write's "File created successfully" is no size)."""
    side = as_dict(sidecar)
    if "stdout" in side:
        return output_lines(as_str(side.get("stdout")) + as_str(side.get("stderr")))
    lines = as_int(as_dict(side.get("file")).get("numLines"))
    if lines is not None:
        return plural(lines, "line")
    files = as_int(side.get("numFiles"))
    if files is not None:
        return plural(files, "file")
    return ""


def _start_detail(name: str, args: dict[str, Any]) -> str:
    """What a call's arguments say of its size: the lines a Write writes, a MultiEdit's edits."""
    if name == "Write":
        return written_lines(as_str(args.get("content")))
    if name == "MultiEdit":
        return plural(len(as_list(args.get("edits"))), "edit")
    return ""


# -- events -> actions ----------------------------------------------------------


def _sid(data: dict[str, Any]) -> str | None:
    sid = data.get("session_id")
    return sid if type(sid) is str and sid else None


def _key_source(v: Any) -> str:
    """Where the API key comes from; "" for ``"none"``, which a subscription's login writes (the
    header read "key none", as if the run had no way in)."""
    key = as_str(v)
    return "" if key == "none" else key


def _notice(data: dict[str, Any], sid: str | None, t: str, st: str, quiet: bool = False) -> A.Notice:
    shown = {k: v for k, v in data.items() if k not in _NOTICE_SKIP}
    return A.Notice(sid, t, st, "" if quiet else notice_text(shown), known=t in KNOWN_TYPES, quiet=quiet)


def _assistant(data: dict[str, Any], sid: str | None, ts: int | None) -> A.Action:
    message = as_dict(data.get("message"))
    content = message.get("content")
    parent = as_str(data.get("parent_tool_use_id"))  # (a sub-agent's message: its Task's id)
    if type(data.get("error")) is str or message.get("model") == "<synthetic>":
        # Claude Code's own message of an API error (a rate limit, a login that failed), not
        # the model's words: shown as the error it is, not taken for the agent's answer.
        said = content_text(content)
        return A.Notice(sid, "API error", as_str(data.get("error")), said or notice_text(message), alert=True)
    if isinstance(content, str):
        return A.AssistantText(sid, content, consolidated=True, parent_id=parent)
    acts: list[A.Action] = []
    for p in as_list(content):
        pt = p.get("type") if type(p) is dict else None
        if pt == "text":
            text = as_str(p.get("text"))
            last = acts[-1] if acts else None
            if type(last) is A.AssistantText and not last.unknown_parts:
                last.text += text  # (parts side by side: one segment)
            else:
                acts.append(A.AssistantText(sid, text, consolidated=True, parent_id=parent))
        elif pt in ("thinking", "redacted_thinking"):
            acts.append(A.Thinking(sid, as_str(p.get("thinking")), done=True, whole=True, parent_id=parent))
        elif type(pt) is str and pt.endswith("_tool_result") and "tool_use_id" in p:
            # (a server tool's result, in the message that called it: web_search_tool_result)
            acts.append(A.ToolCompleted(sid, call_id=as_str(p.get("tool_use_id")),
                                        info=_completed_info(p, None), timestamp_ms=ts))
        elif pt in ("tool_use", "server_tool_use"):
            name = as_str(p.get("name"))
            label, short, target = _kind(name)
            args = as_dict(p.get("input"))
            info = A.ToolInfo(name or "unknown", label, target(args), _start_detail(name, args), "", "running",
                              has_args=bool(args),
                              short=short)
            # (calls of one message run side by side; a sub-agent's calls are of its own messages)
            acts.append(A.ToolStarted(sid, call_id=as_str(p.get("id")), info=info, timestamp_ms=ts,
                                      turn_id=as_str(message.get("id")), parent_id=parent))
        else:
            acts.append(A.AssistantText(sid, "", unknown_parts=[describe_item(p)]))
    if not acts:
        return A.AssistantText(sid, "", consolidated=True)
    return acts[0] if len(acts) == 1 else A.Batch(sid, actions=acts)


def _user(data: dict[str, Any], sid: str | None, ts: int | None) -> A.Action:
    content = as_dict(data.get("message")).get("content")
    if isinstance(content, str):
        content = [{"type": "text", "text": content}]
    texts: list[str] = []
    unknown: list[str] = []
    calls: list[A.Action] = []
    results = [p for p in as_list(content) if type(p) is dict and p.get("type") == "tool_result"]
    sidecar = data.get("tool_use_result") if len(results) == 1 else None  # (whose, with several?)
    for p in as_list(content):
        pt = p.get("type") if type(p) is dict else None
        if pt == "text":
            texts.append(as_str(p.get("text")))
        elif pt == "tool_result":
            calls.append(A.ToolCompleted(sid, call_id=as_str(p.get("tool_use_id")),
                                         info=_completed_info(p, sidecar), timestamp_ms=ts))
        elif pt in ("image", "document"):  # (attached to the prompt: named, not shown)
            texts.append(media_text(p))
        else:
            unknown.append(describe_item(p))
    acts: list[A.Action] = calls
    if texts or unknown or not calls:
        # (with parent_tool_use_id: the main agent's words to a sub-agent, not the user's)
        acts = [A.UserText(sid, "\n".join(texts), unknown_parts=unknown,
                           parent_id=as_str(data.get("parent_tool_use_id"))), *calls]
    return acts[0] if len(acts) == 1 else A.Batch(sid, actions=acts)


#: What a call whose arguments are still being written says of itself (in the list, the transcript).
WRITING = "writing its arguments…"


def _stream(data: dict[str, Any], sid: str | None) -> A.Action:
    """A ``stream_event`` (``--include-partial-messages``): a text or thinking delta, or the
    frame around them (quiet)."""
    e = as_dict(data.get("event"))
    et = as_str(e.get("type"))
    block = as_dict(e.get("content_block"))
    if et == "content_block_start" and block.get("type") == "tool_use" and not data.get("parent_tool_use_id"):
        # A call whose arguments stream in (a big Write's take a while): shown now, its whole
        # message (and its start) follows.
        name = as_str(block.get("name"))
        label, short, _ = _kind(name)
        info = A.ToolInfo(name or "unknown", label, "", WRITING, "", "running", has_args=False, short=short)
        return A.ToolStarted(sid, call_id=as_str(block.get("id")), info=info, early=True)
    if et == "content_block_delta":
        d = as_dict(e.get("delta"))
        dt = d.get("type")
        if data.get("parent_tool_use_id"):  # (a sub-agent's: its whole message follows, shown apart)
            return _notice(data, sid, "stream_event", et, quiet=True)
        if dt == "text_delta":
            return A.AssistantText(sid, as_str(d.get("text")), delta_only=True)
        if dt == "thinking_delta":
            return A.Thinking(sid, as_str(d.get("thinking")))
        return _notice(data, sid, "stream_event", et, quiet=True)  # (a call's arguments, a signature)
    return _notice(data, sid, "stream_event", et, quiet=et in QUIET_STREAM)


def _tokens(usage: Any) -> A.Tokens | None:
    u = as_dict(usage)
    counts = token_counts(u, "input_tokens", "output_tokens")
    if counts is None:
        return None
    tin, tout = counts
    # (Its input is what was neither read from the cache nor written to it, as Cursor's is.)
    return A.Tokens(tin, tout, part_count(u, "cache_read_input_tokens"), part_count(u, "cache_creation_input_tokens"))


#: Why a run stopped, by its result's subtype, in words (when the result says no more).
STOPPED = {
    "error_max_turns": "it reached its turn limit",
    "error_max_budget_usd": "it reached its budget",
    "error_during_execution": "an error during execution",
    "error_max_structured_output_retries": "its structured output failed validation too often",
}


def _result_message(data: dict[str, Any]) -> str:
    """What a result says: its ``result`` text, else its ``errors``, else what its subtype
    means ("error_max_turns" read as a code in a CI log)."""
    text = as_str(data.get("result"))
    if text:
        return text
    said = "\n".join(as_str(e) or json_line(e, 2000) for e in as_list(data.get("errors")))
    if said:
        return said
    subtype = data.get("subtype")
    words = STOPPED.get(subtype) if type(subtype) is str else None
    return f"{words} ({subtype})" if words else ""


def interpret(ev: Event) -> A.Action:
    data = ev.data
    t = ev.type
    st = ev.subtype
    sid = _sid(data)
    ts = iso_ms(data.get("timestamp"))
    a: A.Action
    if t == "stream_event":
        a = _stream(data, sid)
    elif t == "assistant":
        a = _assistant(data, sid, ts)
    elif t == "user":
        a = _user(data, sid, ts)
    elif t == "system" and st == "init":
        a = A.Init(sid, model=as_str(data.get("model")), cwd=as_str(data.get("cwd")),
                   api_key_source=_key_source(data.get("apiKeySource")),
                   permission_mode=as_str(data.get("permissionMode")))
    elif t == "system" and st == "task_notification" and as_str(data.get("summary")):
        # A task's end, in its own words ("Background command "npm run dev" completed (exit
        # code 0)"), not by its fields.
        status, said = as_str(data.get("status")), as_str(data.get("summary"))
        if status not in ("completed", "") and status not in said.lower():
            said += f" ({status})"
        a = A.Notice(sid, t, st, said, alert=status in _TASK_FAILED)
    elif t == "system" and st == "thinking_tokens" and not data.get("parent_tool_use_id"):
        # The model thinks (its thought comes whole in the message after): "✻ Thinking…", as
        # Cursor's deltas show it.  A blank screen looked like a stalled run.
        a = A.Thinking(sid, "")
    elif t == "system":
        quiet = st in QUIET_SYSTEM or (
            # (its call, rejected by the result that follows, says the same words: said twice)
            st == "permission_denied" and bool(as_str(data.get("tool_use_id")))
        ) or (
            st == "hook_response" and as_int(data.get("exit_code")) in (0, None)
            and as_str(data.get("outcome")) in ("success", "")
        )
        a = _notice(data, sid, t, st, quiet=quiet)
    elif t == "rate_limit_event":
        status = as_dict(data.get("rate_limit_info")).get("status")
        a = _notice(data, sid, t, st, quiet=status == "allowed")
        a.alert = status == "rejected"  # (the run waits, or fails: a warning, not dim progress)
    elif t == "result":
        a = A.Result(
            sid,
            subtype=st,
            is_error=data.get("is_error") is True,
            duration_ms=as_int(data.get("duration_ms")),
            duration_api_ms=as_int(data.get("duration_api_ms")),
            text=_result_message(data),
            tokens=_tokens(data.get("usage")),
            last_only=True,
            cost_usd=as_cost(data.get("total_cost_usd")),
        )
    else:
        a = _notice(data, sid, t, st)
    a.time_ms = ts
    return a


def run_line(data: dict[str, Any]) -> None:
    """No lines are gathered into runs: each delta is applied on its own."""
    return None


# -- ``--print --output-format json`` -------------------------------------------


#: Its session id, and "init", "result", "" or "unknown" (see common.run_marker_for).
run_marker = run_marker_for(KNOWN_TYPES)


def result_problem(data: dict[str, Any]) -> str:
    """Why a result event is a failed run ("" when it succeeded): ``is_error`` (which comes
    with subtype ``success`` on an API error), or a subtype such as ``error_max_turns``."""
    subtype = data.get("subtype")
    if type(subtype) is not str:
        subtype = ""
    if not A.failed_result(data.get("is_error") is True, subtype):
        return ""
    return _result_message(data) or A.failure_subtype(subtype) or "error"


def result_object(data: dict[str, Any]) -> dict[str, Any]:
    """What ``claude -p --output-format json`` prints: the result event itself."""
    return dict(data)


# -- detail view ----------------------------------------------------------------


def _parts(started: dict[str, Any] | None, completed: dict[str, Any] | None,
           call_id: str) -> tuple[dict[str, Any], dict[str, Any] | None, Any]:
    """(the ``tool_use`` part, the ``tool_result`` part or None, the result's side-car) of
    call ``call_id`` in its two events (a message may hold several calls)."""
    use: dict[str, Any] = {}
    for p in as_list(as_dict(as_dict(started).get("message")).get("content")):
        if type(p) is dict and p.get("type") in ("tool_use", "server_tool_use") and (
            not call_id or p.get("id") == call_id
        ):
            use = p
            break
    result = None
    parts = [p for p in as_list(as_dict(as_dict(completed).get("message")).get("content"))
             if type(p) is dict and p.get("type") == "tool_result"]
    for p in parts:
        if not call_id or p.get("tool_use_id") == call_id:
            result = p
            break
    sidecar = as_dict(completed).get("tool_use_result") if len(parts) == 1 else None
    return use, result, sidecar


_NUMBERED = re.compile(r"^ *\d+\u2192", re.M)


def _file_text(text: str, sidecar: Any) -> str:
    """A Read's file as it is: the side-car's copy, else the result without the line numbers
    Claude Code puts before each line ("    12→")."""
    content = as_dict(as_dict(sidecar).get("file")).get("content")
    if isinstance(content, str):
        return content
    return _NUMBERED.sub("", text)


#: A call's main argument, whole (copy_text).
_COPIED = first_arg("command", "file_path", "notebook_path", "pattern", "url", "query", "path", "description")


def copy_text(started: dict[str, Any] | None, completed: dict[str, Any] | None, call_id: str = "") -> str:
    """A call's main argument, whole (a command of many lines, a path, a pattern, a URL)."""
    use, _, _ = _parts(started, completed, call_id)
    return _COPIED(as_dict(use.get("input")))


def tool_sections(started: dict[str, Any] | None, completed: dict[str, Any] | None,
                  call_id: str = "") -> list[Section]:
    """Sections for a tool call's detail view from its two events (either may be None)."""
    if as_dict(started).get("type") == "stream_event" and completed is None:
        # (and then why it has no result: viewer.core.detail.call_sections, from its status)
        return [Section("Arguments", "Not all written yet: they are shown once the agent's message is complete.")]
    use, result, sidecar = _parts(started, completed, call_id)
    name = as_str(use.get("name"))
    args = as_dict(use.get("input"))
    text = content_text(result.get("content")) if result is not None else ""
    failed = result is not None and result.get("is_error") is True
    path = as_str(args.get("file_path")) or as_str(args.get("notebook_path"))
    out: list[Section] = []
    add = out.append
    shown = False  # the result's text is in a section already

    if name == "Bash":
        add(Section("Command", as_str(args.get("command")), "code", "bash"))
        if as_str(args.get("description")):
            add(Section("Description", as_str(args.get("description"))))
        side = as_dict(sidecar)
        stdout, stderr = as_str(side.get("stdout")), as_str(side.get("stderr"))
        if result is not None and not failed and (stdout or stderr):
            add(Section("stdout", stdout or "(no output)", "terminal"))
            if stderr:
                add(Section("stderr", stderr, "terminal"))
            shown = True
        elif result is not None:
            add(Section("Output", text or "(no output)", "terminal"))
            shown = True
    elif name == "Read":
        if result is not None and not failed:
            add(Section(path or "Content", _file_text(text, sidecar), "code", path))
            shown = True
    elif name == "Write":
        add(Section(path or "File text", as_str(args.get("content")), "code", path))
    elif name in ("Edit", "MultiEdit"):
        edits = as_list(args.get("edits")) if name == "MultiEdit" else [args]
        diff = "".join(diff_from(as_str(as_dict(e).get("old_string")), as_str(as_dict(e).get("new_string")), path)
                       for e in edits)
        add(Section("Diff", diff or "(no change)", "diff" if diff else "text"))
    elif name == "TodoWrite":
        marks = {"completed": "[x]", "in_progress": "[~]"}
        lines = [f"{marks.get(as_str(as_dict(t).get('status')), '[ ]')} {as_str(as_dict(t).get('content'))}"
                 for t in as_list(args.get("todos"))]
        add(Section("Todos", "\n".join(lines) or "(none)"))
    elif name in ("Task", "Agent"):
        add(Section(as_str(args.get("description")) or "Prompt", as_str(args.get("prompt")), "markdown"))
        if result is not None and not failed:
            add(Section("Answer", text, "markdown"))
            shown = True
    elif name in ("WebFetch", "WebSearch"):
        add(Section("URL" if name == "WebFetch" else "Query", as_str(args.get("url")) or as_str(args.get("query"))))
        if as_str(args.get("prompt")):
            add(Section("Prompt", as_str(args.get("prompt"))))
        if result is not None and not failed:
            add(Section("Result", text, "markdown"))
            shown = True
    elif args:
        add(args_section(args))

    if name in ("Edit", "MultiEdit", "Write", "NotebookEdit"):
        text = _NUMBERED.sub("", text)  # (its "cat -n" of the edited part: the diff has the lines)
    if result is None:
        return out  # (no result yet: viewer.core.detail.call_sections says why, from the call's status)
    if failed:
        if not shown:
            add(Section("Error", text or "(no details)"))
    elif not shown:
        add(Section("Result", text or "(empty)"))
    return out
