"""Cursor Agent CLI ``--output-format stream-json``.

Everything this project knows about Cursor's stream lives here: event types,
the ``tool_call`` object, tool kinds (labels, one-line summaries, the content
a detail view shows), result outcomes and the assistant-text rules.
See ``shared/stream-json.md`` section 1 for the evidence behind each rule.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
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
    describe_item,
    diff_from,
    first_arg,
    first_line,
    human_bytes,
    json_text,
    last_line,
    notice_text,
    part_count,
    plural,
    run_marker_for,
    token_counts,
)

NAME = "cursor"
AGENT = "Cursor"

def _tokens(usage: Any) -> A.Tokens | None:
    """A result's ``usage`` (2026 builds on): ``inputTokens``, ``outputTokens``,
    ``cacheReadTokens`` and ``cacheWriteTokens``; None without both of the first two (or with a
    negative one)."""
    if not isinstance(usage, dict):
        return None
    counts = token_counts(usage, "inputTokens", "outputTokens")
    if counts is None:
        return None
    tin, tout = counts
    return A.Tokens(tin, tout, part_count(usage, "cacheReadTokens"), part_count(usage, "cacheWriteTokens"))


def message_text(message: Any, unknown: list[str] | None = None) -> str:
    """Text of a ``message{content:[{type:text,text}]}`` (or a bare string).

    Content items that are not text (Cursor sends none; other agents send ``tool_use``,
    ``tool_result``, images) are described one line each into ``unknown``."""
    if isinstance(message, str):
        return message
    content = as_dict(message).get("content")
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return ""
    parts = []
    for item in content:
        if isinstance(item, dict) and item.get("type", "text") == "text":
            parts.append(as_str(item.get("text")))
        elif isinstance(item, str):
            parts.append(item)
        elif unknown is not None:
            unknown.append(describe_item(item))
    return "".join(parts)


# -- outcomes ------------------------------------------------------------------

SUCCESS_OUTCOMES = {"success", "complete", "registered", "startSuccess", "saveSuccess", "discardSuccess"}
FAILED_OUTCOMES = {
    "error", "failure", "timeout", "spawnError", "permissionDenied", "readPermissionDenied",
    "writePermissionDenied", "fileNotFound", "invalidFile", "notFile", "fileBusy", "noSpace",
    "sandboxUnsupported", "notFound", "serverNotFound", "toolNotFound",
}
RESULT_SIBLINGS = {"isBackground"}


def split_result(result: Any) -> tuple[str, dict[str, Any]]:
    """(outcome key, payload) of a protobuf-oneof ``result`` object."""
    r = as_dict(result)
    keys = [k for k in r if k not in RESULT_SIBLINGS]
    if not keys:
        return "", {}
    for k in keys:
        if k in SUCCESS_OUTCOMES or k in FAILED_OUTCOMES or k == "rejected":
            return k, as_dict(r[k])
    return keys[0], as_dict(r[keys[0]])


def status_of(outcome: str, payload: dict[str, Any], kind_key: str) -> str:
    if not outcome:
        return "unknown"
    if outcome in SUCCESS_OUTCOMES:
        exit_code = as_int(payload.get("exitCode"))
        if exit_code not in (None, 0):
            return "failed"
        if payload.get("isError") is True:
            return "failed"
        return "success"
    if outcome == "rejected":
        return "rejected"
    if outcome in FAILED_OUTCOMES:
        return "failed"
    return "unknown"


def error_text(outcome: str, payload: dict[str, Any]) -> str:
    if outcome in SUCCESS_OUTCOMES:
        if as_int(payload.get("exitCode")) not in (None, 0):
            return last_line(as_str(payload.get("stderr"))) or last_line(as_str(payload.get("stdout")))
        if payload.get("isError") is True:  # an MCP tool's error ("401 Unauthorized") is its answer
            return first_line(_mcp_text(payload))
        return ""
    for key in ("reason", "error", "message", "stderr", "detail"):
        v = payload.get(key)
        if isinstance(v, str) and v:
            return last_line(v) if key == "stderr" else first_line(v)
        if isinstance(v, dict):
            msg = as_str(v.get("message"))
            if msg:
                return first_line(msg)
    return ""


# -- tool kinds ----------------------------------------------------------------

Summary = Callable[[dict[str, Any]], str]
Detail = Callable[[dict[str, Any], str, dict[str, Any]], str]


@dataclass(frozen=True, slots=True)
class ToolKind:
    key: str
    label: str  # as Cursor's own UI says it: "Ran terminal command"
    short: str  # the tool list's kind column: "Shell"
    target: Summary
    detail: Detail


def _no_detail(args: dict[str, Any], outcome: str, res: dict[str, Any]) -> str:
    return ""


def _read_detail(args: dict[str, Any], outcome: str, res: dict[str, Any]) -> str:
    parts = []
    total = as_int(res.get("totalLines"))
    if total is not None:
        parts.append(plural(total, "line"))
    elif "content" in res:
        content = as_str(res.get("content"))
        parts.append(plural(content.count(chr(10)) + (1 if content and not content.endswith(chr(10)) else 0), "line"))
    size = as_int(res.get("fileSize")) or as_int(res.get("totalChars"))
    if size is not None:
        parts.append(human_bytes(size))
    if not parts:
        off, lim = as_int(args.get("offset")), as_int(args.get("limit"))
        if off is not None or lim is not None:
            start = off or 1
            parts.append(f"lines {start:,}–{start + lim - 1:,}" if lim else f"from line {start:,}")
    return " · ".join(parts)


def _write_detail(args: dict[str, Any], outcome: str, res: dict[str, Any]) -> str:
    lines = as_int(res.get("linesCreated"))
    text = as_str(args.get("fileText"))
    if lines is None and text:
        lines = text.count("\n") + (0 if text.endswith("\n") else 1)
    size = as_int(res.get("fileSize"))
    if size is None and text:
        size = len(text.encode())
    return " · ".join(p for p in (plural(lines, "line") if lines is not None else "", human_bytes(size)) if p)


def _edit_detail(args: dict[str, Any], outcome: str, res: dict[str, Any]) -> str:
    added, removed = as_int(res.get("linesAdded")), as_int(res.get("linesRemoved"))
    if added is None and removed is None:
        return ""
    return f"+{added or 0} −{removed or 0}"


def _shell_target(args: dict[str, Any]) -> str:
    return first_line(as_str(args.get("command")))


def _shell_detail(args: dict[str, Any], outcome: str, res: dict[str, Any]) -> str:
    code = as_int(res.get("exitCode"))
    if code is not None:
        sig = as_str(res.get("signal"))
        return f"exit {code}" + (f" · {sig}" if sig else "")
    return "background" if args.get("isBackground") is True else ""


def _ls_detail(args: dict[str, Any], outcome: str, res: dict[str, Any]) -> str:
    root = as_dict(res.get("directoryTreeRoot"))
    n = as_int(root.get("numFiles"))
    if n is None and root:
        n = len(as_list(root.get("childrenFiles")))
    return plural(n, "file") if n is not None else ""


def _grep_target(args: dict[str, Any]) -> str:
    pattern, path = as_str(args.get("pattern")), as_str(args.get("path"))
    return f"{pattern} in {path}" if pattern and path else pattern or path


def _grep_detail(args: dict[str, Any], outcome: str, res: dict[str, Any]) -> str:
    total = 0
    found = False
    for ws in as_dict(res.get("workspaceResults")).values():
        ws = as_dict(ws)
        content = as_dict(ws.get("content"))
        if content:
            n = as_int(content.get("totalMatchedLines"))
            if n is None:
                n = sum(len(as_list(as_dict(m).get("matches"))) for m in as_list(content.get("matches")))
            total += n
            found = True
        files = as_dict(ws.get("files"))
        if files:
            total += len(as_list(files.get("files")))
            found = True
        count = as_dict(ws.get("count"))
        if count:
            total += sum(as_int(as_dict(c).get("count")) or 0 for c in as_list(count.get("counts")))
            found = True
    return plural(total, "match", "matches") if found else ""


def _glob_target(args: dict[str, Any]) -> str:
    pattern, d = as_str(args.get("globPattern")), as_str(args.get("targetDirectory"))
    return f"{pattern} in {d}" if pattern and d else pattern or d


#: How a kind's target reads, where it is not a path (see detail.call_target): "placed",
#: "pattern in DIRECTORY" (see _grep_target, _glob_target), whose directory is shown relative
#: to the run's; "command", shown as it ran.
TARGET_FORMS = {"grepToolCall": "placed", "globToolCall": "placed", "shellToolCall": "command"}


def _glob_detail(args: dict[str, Any], outcome: str, res: dict[str, Any]) -> str:
    n = as_int(res.get("totalFiles"))
    if n is None and isinstance(res.get("files"), list):
        n = len(res["files"])
    return plural(n, "file") if n is not None else ""


def _todos_target(args: dict[str, Any]) -> str:
    """The item being worked on, else the first one sent."""
    todos = [as_dict(t) for t in as_list(args.get("todos")) if isinstance(t, dict)]
    current = next((t for t in todos if "IN_PROGRESS" in as_str(t.get("status"))), None)
    if current is None and todos:
        current = todos[0]
    return as_str(current.get("content")) if current else ""


def _todos_detail(args: dict[str, Any], outcome: str, res: dict[str, Any]) -> str:
    """Progress over the whole list: the result has it all, ``args`` may be a merge."""
    todos = res.get("todos") if isinstance(res.get("todos"), list) else args.get("todos")
    if not isinstance(todos, list) or not todos:
        return ""
    done = sum(1 for t in todos if "COMPLETED" in as_str(as_dict(t).get("status")))
    return f"{done}/{len(todos)} done"


def _mcp_target(args: dict[str, Any]) -> str:
    return as_str(args.get("name")) or as_str(args.get("toolName"))


def _mcp_text(res: dict[str, Any]) -> str:
    """What an MCP tool answered: its content's texts, an image by its type."""
    texts = []
    for c in as_list(res.get("content")):
        c = as_dict(c)
        if "text" in c:
            texts.append(as_str(as_dict(c.get("text")).get("text")) or as_str(c.get("text")))
        elif "image" in c:
            texts.append(f"(image, {as_str(as_dict(c.get('image')).get('mimeType'))})")
    return "\n".join(texts)


def _mcp_detail(args: dict[str, Any], outcome: str, res: dict[str, Any]) -> str:
    return "tool reported an error" if res.get("isError") is True else ""


def _ask_target(args: dict[str, Any]) -> str:
    title = as_str(args.get("title"))
    qs = args.get("questions") if isinstance(args.get("questions"), list) else []
    if qs:
        n = plural(len(qs), "question")
        return f"{title} ({n})" if title else n
    return title


def _fetch_detail(args: dict[str, Any], outcome: str, res: dict[str, Any]) -> str:
    md = as_str(res.get("markdown"))
    return human_bytes(len(md.encode())) if md else ""


def _semsearch_detail(args: dict[str, Any], outcome: str, res: dict[str, Any]) -> str:
    results = as_str(res.get("results"))
    n = results.count("<search_result")
    return plural(n, "result") if results else ""


def _delete_detail(args: dict[str, Any], outcome: str, res: dict[str, Any]) -> str:
    return first_line(as_str(res.get("error"))) if res.get("error") else ""


_GENERIC_TARGET = first_arg(
    "path", "command", "query", "name", "url", "pattern", "searchTerm", "title", "targetDirectory",
    "target", "file", "filePath", "file_path",
)


def _humanize_key(key: str) -> str:
    base = key[: -len("ToolCall")] if key.endswith("ToolCall") and key != "ToolCall" else key
    words = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", " ", base).split()
    if not words:
        return key or "Tool call"
    text = " ".join(w.lower() for w in words)
    return text[0].upper() + text[1:]


TOOL_KINDS: dict[str, ToolKind] = {
    k.key: k
    for k in [
        ToolKind("readToolCall", "Read file", "Read", first_arg("path"), _read_detail),
        ToolKind("writeToolCall", "Created new file", "Create", first_arg("path"), _write_detail),
        ToolKind("editToolCall", "Edited file", "Edit", first_arg("path"), _edit_detail),
        ToolKind("deleteToolCall", "Deleted file", "Delete", first_arg("path"), _delete_detail),
        ToolKind("shellToolCall", "Ran terminal command", "Shell", _shell_target, _shell_detail),
        ToolKind("lsToolCall", "Listed directory", "List", first_arg("path"), _ls_detail),
        ToolKind("grepToolCall", "Grepped", "Grep", _grep_target, _grep_detail),
        ToolKind("globToolCall", "Found files", "Glob", _glob_target, _glob_detail),
        ToolKind("updateTodosToolCall", "Updated todos", "Todos", _todos_target, _todos_detail),
        ToolKind("todoToolCall", "Updated todos", "Todos", _todos_target, _todos_detail),
        ToolKind("readTodosToolCall", "Read todos", "Todos", first_arg("path"), _no_detail),
        ToolKind("mcpToolCall", "Called MCP tool", "MCP", _mcp_target, _mcp_detail),
        ToolKind("askQuestionToolCall", "Asked question", "Ask", _ask_target, _no_detail),
        ToolKind("semSearchToolCall", "Searched codebase", "Search", first_arg("query"), _semsearch_detail),
        ToolKind("webFetchToolCall", "Fetched web page", "Fetch", first_arg("url"), _fetch_detail),
        ToolKind("webSearchToolCall", "Searched the web", "Web", first_arg("searchTerm", "query"), _no_detail),
        ToolKind("createPlanToolCall", "Created plan", "Plan", first_arg("name", "overview"), _no_detail),
        ToolKind("readLintsToolCall", "Read lints", "Lints", first_arg("paths", "path"), _no_detail),
        ToolKind("function", "Called function", "Call", first_arg("name"), _no_detail),
    ]
}


def kind_for(key: str) -> ToolKind:
    known = TOOL_KINDS.get(key)
    if known is not None:
        return known
    name = _humanize_key(key)
    return ToolKind(key, name, name, _GENERIC_TARGET, _no_detail)


def find_tool_key(tool_call: dict[str, Any]) -> str:
    """The key naming the tool kind: the one ending in ``ToolCall`` (or ``function``)."""
    for k, v in tool_call.items():
        if k.endswith("ToolCall") and isinstance(v, dict):
            return k
    if isinstance(tool_call.get("function"), dict):
        return "function"
    for k, v in tool_call.items():  # unknown shape: first object-valued key
        if isinstance(v, dict) and k not in ("hookAdditionalContexts",):
            return k
    return ""


def tool_parts(tool_call: Any) -> tuple[str, dict[str, Any], dict[str, Any] | None, dict[str, Any]]:
    """(kind key, args, result-or-None, the kind's object) of a ``tool_call``."""
    tc = as_dict(tool_call)
    key = find_tool_key(tc)
    body = as_dict(tc.get(key)) if key else {}
    if key == "function":
        raw_args = body.get("arguments")
        args: dict[str, Any] = {"name": as_str(body.get("name"))}
        if isinstance(raw_args, str):
            try:
                parsed = orjson.loads(raw_args)
                args.update(parsed if isinstance(parsed, dict) else {"arguments": parsed})
            except orjson.JSONDecodeError:
                args["arguments"] = raw_args
        elif isinstance(raw_args, dict):
            args.update(raw_args)
        result = body.get("result")
        return key, args, result if isinstance(result, dict) or result is None else {"success": {"value": result}}, body
    args = as_dict(body.get("args"))
    result = body.get("result")
    return key, args, result if isinstance(result, dict) else None, body


def tool_info(data: dict[str, Any], completed: bool) -> A.ToolInfo:
    tc = as_dict(data.get("tool_call"))
    key, args, result, _body = tool_parts(tc)
    kind = kind_for(key)
    outcome, payload = split_result(result) if result is not None else ("", {})
    target = kind.target(args)
    if not target and payload:  # completed without args: fall back on the result's echo
        target = kind.target(payload)
    if completed:
        status = status_of(outcome, payload, key)
    else:
        status = "running"
    label, short = kind.label, kind.short
    if key == "editToolCall" and completed and outcome == "success" and "beforeFullFileContent" not in payload:
        label, short = "Created new file", "Create"
    return A.ToolInfo(
        kind_key=key or "unknown",
        label=label,
        short=short,
        target=target,
        detail=kind.detail(args, outcome, payload) if (payload or not completed) else "",
        outcome=outcome,
        status=status,
        started_ms=as_int(tc.get("startedAtMs")),
        completed_ms=as_int(tc.get("completedAtMs")),
        has_args=bool(args),
        error_text=error_text(outcome, payload) if completed else "",
    )


# -- events -> actions ----------------------------------------------------------

KNOWN_TYPES = {
    "system", "user", "assistant", "thinking", "tool_call", "interaction_query", "result",
    "retry", "connection",
}
#: The event that begins a run (see formats.RUN_START_TYPES): ``system/init``.
INIT_TYPE = "system"
#: Its events each name their run (session_id): runs written into one file at once can be
#: told apart, so a new run does not end the one before.
EVENTS_NAME_THEIR_RUN = True


def _sid_and_time(data: dict[str, Any]) -> tuple[str | None, int | None]:
    """An event's session id (None when missing or empty) and ``timestamp_ms``."""
    sid = data.get("session_id")
    if type(sid) is not str or not sid:
        sid = None
    ts = data.get("timestamp_ms")
    if type(ts) is not int:
        ts = as_int(ts)
    return sid, ts


def _reconnect_words(data: dict[str, Any], t: str, st: str) -> tuple[str, tuple[str, ...]]:
    """Cursor's retry and connection events (the CLI reconnecting after the model's stream
    dropped) in words, and the keys they say; ("", ()) for another event, or when none of
    the keys is there as expected."""
    words: list[str] = []
    said: list[str] = []

    def say(key: str, ok: bool, text: str) -> None:
        if ok:
            words.append(text)
            said.append(key)

    attempt = data.get("attempt")
    say("attempt", type(attempt) is int, f"attempt {attempt}")
    if t == "retry" and st == "starting":
        say("is_resume", data.get("is_resume") is True, "resuming the conversation")
    elif t == "retry" and st == "resuming":
        turns = data.get("checkpoint_turn_count")
        say("checkpoint_turn_count", type(turns) is int, f"from a checkpoint of {turns} turn{'' if turns == 1 else 's'}")
    elif t == "connection" and st in ("reconnecting", "reconnected"):
        url = data.get("endpoint_url")  # (a long one stays a field, cut as fields are)
        say("endpoint_url", type(url) is str and 0 < len(url) <= 300, f"{'to' if st == 'reconnecting' else 'with'} {url}")
    else:
        return "", ()
    return ", ".join(words), tuple(said)


def _notice_text(data: dict[str, Any], t: str, st: str) -> str:
    """A notice's text: words for the events Cursor's CLI is known to write, then any field
    they do not say (as fields); else the event's fields."""
    words, said = _reconnect_words(data, t, st) if t in ("retry", "connection") else ("", ())
    if not words:
        return notice_text(data)
    rest = notice_text({k: v for k, v in data.items() if k not in said})
    return f"{words} · {rest}" if rest else words


def interpret(ev: Event) -> A.Action:
    data = ev.data
    t = ev.type
    st = ev.subtype
    sid, ts = _sid_and_time(data)
    a: A.Action
    # Most frequent first: thinking and assistant deltas come by the thousand.
    if t == "thinking":
        if st == "completed":
            a = A.Thinking(sid, "", done=True)
        else:
            text = data.get("text")
            a = A.Thinking(sid, text if type(text) is str else "")
    elif t == "assistant":
        turn = as_str(data.get("model_call_id"))
        unknown: list[str] = []
        a = A.AssistantText(
            sid,
            message_text(data.get("message"), unknown),
            consolidated=bool(turn) or "timestamp_ms" not in data,
            turn_id=turn,
            unknown_parts=unknown,
        )
    elif t == "system" and st == "init":
        a = A.Init(
            sid,
            model=as_str(data.get("model")),
            cwd=as_str(data.get("cwd")),
            api_key_source=as_str(data.get("apiKeySource")),
            permission_mode=as_str(data.get("permissionMode")),
        )
    elif t == "user":
        unknown = []
        a = A.UserText(sid, message_text(data.get("message"), unknown), unknown_parts=unknown)
    elif t == "tool_call" and st in ("started", "completed"):
        call_id = as_str(data.get("call_id")) or as_str(as_dict(data.get("tool_call")).get("toolCallId"))
        cls = A.ToolStarted if st == "started" else A.ToolCompleted
        a = cls(
            sid,
            call_id=call_id,
            info=tool_info(data, completed=st == "completed"),
            timestamp_ms=ts,
            turn_id=as_str(data.get("model_call_id")),
        )
    elif t == "interaction_query":
        a = _query(data, sid, st)
    elif t == "result":
        a = A.Result(
            sid,
            subtype=st,
            is_error=_failed(data),
            duration_ms=as_int(data.get("duration_ms")),
            duration_api_ms=as_int(data.get("duration_api_ms")),
            text=as_str(data.get("result")) or _error_message(data),
            request_id=as_str(data.get("request_id")),
            tokens=_tokens(data.get("usage")),
        )
    else:
        a = A.Notice(sid, t, st, _notice_text(data, t, st), known=t in KNOWN_TYPES)
    a.time_ms = ts
    return a


def claims(data: dict[str, Any]) -> bool:
    """Whether the event, by its shape, is Cursor's: an event type of its own, a text delta
    (``timestamp_ms``), or an init (asked after the formats that look alike: see
    formats.detect)."""
    t = data.get("type")
    if t in ("tool_call", "thinking", "interaction_query"):
        return True
    if t == "assistant":
        return "timestamp_ms" in data
    return t == "system" and data.get("subtype") == "init"


def run_line(data: dict[str, Any]) -> tuple[str, str | None, str, int | None] | None:
    """``(kind, session id, text, timestamp_ms)`` when the event is a text delta that
    :func:`interpret` would turn into a plain ``A.Thinking`` (not ``done``) or ``A.AssistantText``
    (neither consolidated nor with unknown parts), else None.

    The decoder gathers consecutive such lines of one kind and session into a
    :class:`~viewer.core.decode.Run` (thinking and assistant deltas are most of the events of a
    ``--stream-partial-output`` run); the model applies it as the same actions one by one would.
    """
    t = data.get("type")
    if t == "thinking":
        if data.get("subtype") == "completed":
            return None
        text = data.get("text")
        if type(text) is not str:
            text = ""
    elif t == "assistant":
        if "timestamp_ms" not in data or as_str(data.get("model_call_id")):
            return None  # the consolidated copy of a segment
        msg = data.get("message")
        content = msg.get("content") if type(msg) is dict else None
        item = content[0] if type(content) is list and len(content) == 1 else None
        if type(item) is dict and item.get("type", "text") == "text":
            text = as_str(item.get("text"))
        else:  # other shapes: as interpret reads them, unless some part is unknown
            unknown: list[str] = []
            text = message_text(msg, unknown)
            if unknown:
                return None
    else:
        return None
    sid = data.get("session_id")  # (_sid_and_time, inline: this runs for every delta)
    if type(sid) is not str or not sid:
        sid = None
    ts = data.get("timestamp_ms")
    if type(ts) is not int:
        ts = as_int(ts)
    return t, sid, text, ts


_SEARCH_RESULT = re.compile(r"<search_result((?:\s+\w+=\"[^\"]*\")*)\s*>\n?(.*?)\n?</search_result>", re.S)
_ATTR = re.compile(r"(\w+)=\"([^\"]*)\"")
#: A semantic search's results shown as a section each, up to this many (the rest in one).
SEARCH_RESULTS_SHOWN = 40


def _search_results(text: str) -> list[Section]:
    """A semantic search's results, one section each, titled by its file and lines ("src/a.py,
    lines 30-40") and highlighted as its file, from the ``<search_result path=… startLine=…
    endLine=…>`` blocks Cursor writes them in (read raw, tags and all); text in no such
    block is kept, in a section of its own."""
    out: list[Section] = []
    pos = 0
    rest: list[str] = []
    for m in _SEARCH_RESULT.finditer(text):
        if len(out) >= SEARCH_RESULTS_SHOWN:
            break
        if text[pos:m.start()].strip():
            rest.append(text[pos:m.start()].strip("\n"))
        attrs = dict(_ATTR.findall(m.group(1)))
        path = attrs.get("path", "")
        first, last = attrs.get("startLine", ""), attrs.get("endLine", "")
        lines = (f"line {first}" if first == last or not last else f"lines {first}-{last}") if first else ""
        title = ", ".join(x for x in (path or "Result", lines) if x)
        out.append(Section(title, m.group(2), "code", path))
        pos = m.end()
    if text[pos:].strip():
        rest.append(text[pos:].strip("\n"))
    if rest:
        out.append(Section("Results" if not out else "More results", "\n".join(rest)))
    return out


def _flat(text: str) -> str:
    """``text`` on one line: its line breaks (and runs of spaces) become one space."""
    return " ".join(text.split()) if "\n" in text or "\r" in text else text


#: Interaction queries in words (others: their type's words, "fooBarRequestQuery" "Foo bar").
QUERY_LABELS = {
    "askQuestionInteractionQuery": "Question",
    "webSearchRequestQuery": "Web search",
    "createPlanRequestQuery": "Plan",
    "switchModeRequestQuery": "Mode switch",
}


def _query_label(qtype: str) -> str:
    """An interaction query's type in words: "pickColorRequestQuery" "Pick color"."""
    name = qtype.removesuffix("InteractionQuery").removesuffix("RequestQuery").replace("_", " ")
    return _humanize_key(name) if name.strip() else "Query"


def _query(data: dict[str, Any], sid: str | None, st: str) -> A.Query:
    qtype = as_str(data.get("query_type"))
    body = as_dict(data.get("query")) if st == "request" else as_dict(data.get("response"))
    inner = next((v for k, v in body.items() if k != "id" and isinstance(v, dict)), {})
    args = as_dict(inner.get("args"))
    title = _flat(as_str(args.get("title")) or as_str(args.get("searchTerm")) or as_str(args.get("url")))
    details = []  # what it asks: a line a question (a line break in one would start another)
    questions = args.get("questions")
    for q in questions if isinstance(questions, list) else ():
        q = as_dict(q)
        options = q.get("options")
        labels = [x for o in (options if isinstance(options, list) else ()) if (x := _flat(as_str(as_dict(o).get("label"))))]
        said = [_flat(as_str(q.get("prompt")) or as_str(q.get("id"))), f"({' / '.join(labels)})" if labels else ""]
        if any(said):
            details.append(" ".join(x for x in said if x))
    if st == "response":
        outcome, payload = split_result(inner.get("result"))
        reason = _flat(as_str(payload.get("reason")))
        title = outcome + (f": {reason}" if reason else "") if outcome else ""
    return A.Query(
        sid,
        phase=st,
        query_type=qtype,
        label=QUERY_LABELS.get(qtype) or _query_label(qtype),
        query_id=as_str(body.get("id")),
        title=title,
        call_id=as_str(inner.get("toolCallId")) or as_str(args.get("toolCallId")),  # (beside its args: [R])
        details="\n".join(details),
    )


# -- the CLI's own ``--output-format json`` -----------------------------------------

#: The keys of the single object ``cursor-agent --output-format json`` prints, in order.
RESULT_KEYS = (
    "type", "subtype", "is_error", "duration_ms", "duration_api_ms", "result", "session_id", "request_id",
)


#: What a raw event says about runs (see common.run_marker_for).
run_marker = run_marker_for(KNOWN_TYPES)


def _failed(data: dict[str, Any]) -> bool:
    """A result that says it failed: ``is_error``, or (another agent's, Gemini CLI's)
    ``status: "error"``."""
    return data.get("is_error") is True or data.get("status") == "error"


def _error_message(data: dict[str, Any]) -> str:
    """A failed result's ``error.message`` (Gemini CLI's), when it has no ``result`` text."""
    return as_str(as_dict(data.get("error")).get("message")) if _failed(data) else ""


def result_problem(data: dict[str, Any]) -> str:
    """Why a result event is a failed run ("" when it succeeded)."""
    subtype = data.get("subtype")
    if type(subtype) is not str:  # (as the decoder reads it: {"x": 1} is no subtype)
        subtype = ""
    if not A.failed_result(_failed(data), subtype):
        return ""
    msg = data.get("result")
    return as_str(msg) or _error_message(data) or as_str(subtype) or "error"


def result_object(data: dict[str, Any]) -> dict[str, Any]:
    """The CLI's own json output for a result event: its documented keys first, in their
    order (null when the event lacks one), then every other field the event carries
    (``usage`` and whatever newer CLIs add), as they came."""
    out = {k: data.get(k) for k in RESULT_KEYS}
    out.update((k, v) for k, v in data.items() if k not in out)
    return out


def event_time_ms(ev: Event) -> int | None:
    """When the event happened by the stream's own clock (ms since epoch), if it says.

    Tool calls carry the tool's own start/finish times (``startedAtMs``/``completedAtMs``),
    which are more accurate than the event's ``timestamp_ms``.
    """
    d = ev.data
    if ev.type == "tool_call":
        tc = d.get("tool_call")
        if isinstance(tc, dict):
            t = as_int(tc.get("completedAtMs" if ev.subtype == "completed" else "startedAtMs"))
            if t is not None:
                return t
    return as_int(d.get("timestamp_ms"))


# -- detail view ----------------------------------------------------------------


def _tree_lines(node: dict[str, Any], indent: str = "", depth: int = 0, out: list[str] | None = None) -> list[str]:
    out = [] if out is None else out
    if depth > 20 or len(out) > 5000:
        return out
    for d in as_list(node.get("childrenDirs")):
        d = as_dict(d)
        name = as_str(d.get("absPath")).rstrip("/").rsplit("/", 1)[-1] or as_str(d.get("name"))
        out.append(f"{indent}{name}/")
        _tree_lines(d, indent + "  ", depth + 1, out)
    for f in as_list(node.get("childrenFiles")):
        out.append(f"{indent}{as_str(as_dict(f).get('name'))}")
    return out


def _call_parts(started: dict[str, Any] | None,
                completed: dict[str, Any] | None) -> tuple[str, dict[str, Any], str, dict[str, Any]]:
    """(kind key, args, outcome, result payload) of a call from its two events (either may be
    None): the completion's args when it has them."""
    key, args, result, _ = tool_parts(as_dict((started or {}).get("tool_call")))
    if completed is not None:
        ckey, cargs, result, _ = tool_parts(as_dict(completed.get("tool_call")))
        key = key or ckey
        if cargs:
            args = cargs
    outcome, res = split_result(result) if result is not None else ("", {})
    return key, args, outcome, res


def copy_text(started: dict[str, Any] | None, completed: dict[str, Any] | None, call_id: str = "") -> str:
    """What copying a call gives: its main argument whole (a command of many lines, a path, a
    pattern, a URL, a to-do list), where the list shows it cut to a line; "" when it has none."""
    key, args, _outcome, res = _call_parts(started, completed)
    if key in _TODO_KEYS:  # (the list, as the detail shows it: not the one item the row names)
        return _todo_list(args, res)
    field = _COPIED.get(key)
    if field:  # (not "pattern in directory", as the list shows them)
        return as_str(args.get(field)) or as_str(res.get(field))
    kind = kind_for(key)
    return kind.target(args) or kind.target(res)


_TODO_KEYS = ("updateTodosToolCall", "todoToolCall")


def _todo_list(args: dict[str, Any], res: dict[str, Any]) -> str:
    """A to-do call's list, an item a line, marked as done ``[x]``, under way ``[~]`` or not
    begun ``[ ]`` ("" when it has none)."""
    todos = res.get("todos") if isinstance(res.get("todos"), list) else as_list(args.get("todos"))
    marks = {"COMPLETED": "[x]", "IN_PROGRESS": "[~]"}
    lines = []
    for t in todos if isinstance(todos, list) else []:
        t = as_dict(t)
        st = as_str(t.get("status"))
        mark = next((v for k, v in marks.items() if k in st), "[ ]")
        lines.append(f"{mark} {as_str(t.get('content'))}")
    return "\n".join(lines)


#: What copy_text gives of the kinds whose target is not the whole of it.
_COPIED = {"shellToolCall": "command", "grepToolCall": "pattern", "globToolCall": "globPattern"}


def tool_sections(started: dict[str, Any] | None, completed: dict[str, Any] | None,
                  call_id: str = "") -> list[Section]:
    """Sections for a tool call's detail view from its two events (either may be None; one
    event is one call: ``call_id`` is not needed)."""
    key, args, outcome, res = _call_parts(started, completed)
    path = as_str(args.get("path")) or as_str(res.get("path"))
    out: list[Section] = []
    add = out.append

    if key == "shellToolCall":
        add(Section("Command", as_str(args.get("command")) or as_str(res.get("command")), "code", "bash"))
        cwd = as_str(args.get("workingDirectory")) or as_str(res.get("workingDirectory"))
        if cwd:
            add(Section("Working directory", cwd))
        stdout, stderr = as_str(res.get("stdout")), as_str(res.get("stderr"))
        if outcome == "success" or stdout or stderr:  # a failed command's output too
            if stdout or not stderr:
                add(Section("stdout", stdout or as_str(res.get("interleavedOutput")) or "(no output)", "terminal"))
            if stderr:
                add(Section("stderr", stderr, "terminal"))
            if outcome not in SUCCESS_OUTCOMES:  # the rest of the outcome, without the output again
                res = {k: v for k, v in res.items() if k not in ("stdout", "stderr", "interleavedOutput")}
    elif key == "readToolCall":
        if outcome == "success":
            if "data" in res and not res.get("content"):
                add(Section("Content", f"(binary data, {human_bytes(len(as_str(res.get('data'))))} base64)"))
            else:
                add(Section(path or "Content", as_str(res.get("content")), "code", path))
    elif key == "writeToolCall":
        add(Section(path or "File text", as_str(args.get("fileText")), "code", path))
    elif key == "editToolCall":
        diff = as_str(res.get("diffString"))
        before, after = res.get("beforeFullFileContent"), res.get("afterFullFileContent")
        if not diff and isinstance(before, str) and isinstance(after, str):
            diff = diff_from(before, after, path)
        if diff:
            add(Section("Diff", diff, "diff"))
        if isinstance(after, str) and before is None:
            add(Section(f"{path} (new file)", after, "code", path))
        elif not diff and as_str(args.get("streamContent")):
            add(Section("New content", as_str(args.get("streamContent")), "code", path))
        msg = as_str(res.get("message"))
        if msg:
            add(Section("Message", msg))
    elif key == "lsToolCall":
        root = as_dict(res.get("directoryTreeRoot"))
        if root:
            add(Section(as_str(root.get("absPath")) or path or "Directory", "\n".join(_tree_lines(root)) or "(empty)"))
    elif key == "grepToolCall":
        lines: list[str] = []
        for ws in as_dict(res.get("workspaceResults")).values():
            ws = as_dict(ws)
            for m in as_list(as_dict(ws.get("content")).get("matches")):
                m = as_dict(m)
                for hit in as_list(m.get("matches")):
                    hit = as_dict(hit)
                    lines.append(f"{as_str(m.get('file'))}:{as_str(hit.get('lineNumber'))}: {as_str(hit.get('content'))}")
            for f in as_list(as_dict(ws.get("files")).get("files")):
                lines.append(as_str(f))
            for c in as_list(as_dict(ws.get("count")).get("counts")):
                lines.append(f"{as_str(as_dict(c).get('file'))}: {as_str(as_dict(c).get('count'))}")
        if outcome == "success":
            add(Section("Matches", "\n".join(lines) or "(no matches)"))
    elif key == "globToolCall":
        files = res.get("files") if isinstance(res.get("files"), list) else []
        if outcome == "success":
            add(Section("Files", "\n".join(as_str(f) for f in files) or "(no files)"))
    elif key in _TODO_KEYS:
        add(Section("Todos", _todo_list(args, res) or "(none)"))
    elif key == "askQuestionToolCall":
        lines = []
        for q in as_list(args.get("questions")):
            q = as_dict(q)
            lines.append(f"? {as_str(q.get('prompt'))}")
            for o in as_list(q.get("options")):
                lines.append(f"    - {as_str(as_dict(o).get('label'))}")
        add(Section(as_str(args.get("title")) or "Questions", "\n".join(lines)))
    elif key == "webFetchToolCall":
        add(Section("URL", as_str(args.get("url")) or as_str(res.get("url"))))
        if as_str(res.get("markdown")):
            add(Section("Page", as_str(res.get("markdown")), "text"))
    elif key == "semSearchToolCall":
        add(Section("Query", as_str(args.get("query"))))
        if as_str(res.get("results")):
            for sec in _search_results(as_str(res.get("results"))):
                add(sec)
    elif key == "mcpToolCall":
        add(Section(f"Arguments of {_mcp_target(args) or 'MCP tool'}", json_text(args.get("args", args)), "json"))
        text = _mcp_text(res)
        if text:
            add(Section("Result", text))
    else:
        if args:
            add(args_section(args))
        if outcome == "success" and res:
            add(Section("Result", json_text(res), "json"))

    if outcome and outcome not in SUCCESS_OUTCOMES:
        # (its fields as rows when they are plain: a rejected command's read as a JSON object)
        add(args_section(res, f"Outcome: {outcome}") if res else Section(f"Outcome: {outcome}", "(no details)"))
    elif completed is not None and not outcome:  # (none yet: call_sections says why, from its status)
        add(Section("Outcome", "The completion event carries no result."))
    return out
