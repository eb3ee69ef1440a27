"""Helpers every stream format uses: defensive accessors for untrusted JSON, short
summaries (a first line, a size), and text for events shown by their fields."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from datetime import datetime, timezone
from typing import Any

import orjson

from viewer.core.detail import Section
from viewer.core.sanitize import uncoloured

# -- small defensive accessors (stream content is untrusted and drifts) -----


def as_dict(v: Any) -> dict[str, Any]:
    return v if type(v) is dict or isinstance(v, dict) else {}


def as_list(v: Any) -> list[Any]:
    """A list, or an empty one for anything else (``"todos": 5`` crashed what iterated it)."""
    return v if type(v) is list else []


def as_str(v: Any) -> str:
    if type(v) is str:  # (the common case first: these run for every event)
        return v
    if v is None:
        return ""
    if isinstance(v, str):
        return v
    if isinstance(v, (int, float, bool)):
        return str(v)
    return ""


#: A number past a 64-bit integer is no time, duration or count a stream means ("1" and 400
#: zeros as ``completedAtMs`` made a duration no float holds: a traceback).
INT_LIMIT = 1 << 63


def as_cost(v: Any) -> float | None:
    """A cost in dollars (Claude Code's ``total_cost_usd``): a finite number, not below 0."""
    if isinstance(v, (int, float)) and not isinstance(v, bool) and 0 <= v < 1e12:
        return float(v)
    return None


def as_int(v: Any) -> int | None:
    if type(v) is int:
        return v if -INT_LIMIT < v < INT_LIMIT else None
    if v is None or isinstance(v, bool):
        return None
    if isinstance(v, float):
        return int(v) if -INT_LIMIT < v < INT_LIMIT else None  # (not inf, not nan)
    if isinstance(v, int):
        n = v
    elif isinstance(v, str):
        try:
            n = int(v.strip())
        except ValueError:
            return None
    else:
        return None
    return n if -INT_LIMIT < n < INT_LIMIT else None


def first_arg(*names: str, shape: Callable[[str], str] | None = None) -> Callable[[dict[str, Any]], str]:
    """A call's target: the first of its arguments ``names`` that is a non-empty string
    (``shape``: made into what the list shows, e.g. its first line)."""
    def get(args: dict[str, Any]) -> str:
        for n in names:
            v = as_str(args.get(n))
            if v:
                return shape(v) if shape is not None else v
        return ""

    return get


def run_marker_for(known_types: set[str] | frozenset[str], init: tuple[str, str | None] = ("system", "init"),
                   result: str = "result", sid_key: str = "session_id") -> Callable[[dict[str, Any]], tuple[str | None, str]]:
    """A format's ``run_marker``: what a raw event says about runs, read cheaply (no action
    built): its session id (or None), and ``"init"``, ``"result"``, ``""`` (another event of
    ``known_types``) or ``"unknown"``.  ``init``: the type (and subtype, or None) of the event
    that begins a run; ``result``: the type of the one that ends it; ``sid_key``: the field
    that holds the session id."""
    init_type, init_subtype = init

    def run_marker(data: dict[str, Any]) -> tuple[str | None, str]:
        sid = data.get(sid_key)
        t = data.get("type")
        if t == result:
            kind = "result"
        elif t == init_type and (init_subtype is None or data.get("subtype") == init_subtype):
            kind = "init"
        else:
            kind = "" if type(t) is str and t in known_types else "unknown"  # ({"type": {...}}: unhashable)
        return (sid if type(sid) is str and sid else None), kind

    return run_marker


def short_name(name: str, limit: int = 14) -> str:
    """A tool's own name as a column of calls shows it (the column is as wide as its longest:
    "mcp_github_list_issues" squeezed every row's summary)."""
    return name if len(name) <= limit else name[: limit - 1] + "…"


def first_line(text: str, limit: int = 200) -> str:
    line = text.strip().split("\n", 1)[0]
    more = "\n" in text.strip()
    if len(line) > limit:
        return line[:limit] + "…"
    return line + (" …" if more else "")


def plural(n: int, word: str, words: str = "") -> str:
    return f"{n} {word}" if n == 1 else f"{n:,} {words or word + 's'}"


def human_bytes(n: int | None) -> str:
    if n is None:
        return ""
    size = float(n)
    for unit in ("B", "KB", "MB", "GB"):
        if size < 1024 or unit == "GB":
            if unit == "B":
                return f"{int(size)} B"
            return f"{size:.1f} {unit}"
        size /= 1024
    return f"{n} B"  # pragma: no cover


def describe_item(item: Any) -> str:
    if not isinstance(item, dict):
        return f"content item {json_line(item, 200)}"
    kind = as_str(item.get("type")) or "(no type)"
    rest = {k: opaque(v) for k, v in item.items() if k != "type"}
    return f"content {kind}: {json_line(rest, 300)}"


#: A string this long of base64 or hex characters only, digits among them, is a token (a
#: signature, image data), not text: not a path (it starts with "/" or has a dot), a URL, a
#: long readable name (no digit), nor a hash (a SHA-256 is 64 hex digits).
OPAQUE_CHARS = 100
_TOKEN = re.compile(r"[A-Za-z0-9+=_-][A-Za-z0-9+/=_-]*")
_DIGIT = re.compile(r"[0-9]")


def opaque(v: Any, depth: int = 0) -> Any:
    """A token is shown by its start and length (Claude Code's empty thinking part was 300
    characters of its signature, an image part is its base64 data), a few levels deep, in
    objects and lists; text is left as it is."""
    if isinstance(v, str):
        if len(v) >= OPAQUE_CHARS and _TOKEN.fullmatch(v) and _DIGIT.search(v):
            return f"{v[:12]}… ({len(v):,} characters)"
    elif isinstance(v, dict) and depth < 3:
        return {k: opaque(x, depth + 1) for k, x in v.items()}
    elif isinstance(v, list) and depth < 3:  # (a tool result's content: [{"type": "image", ...}])
        return [opaque(x, depth + 1) for x in v]
    return v


def last_line(text: str, limit: int = 200) -> str:
    """The last non-empty line, without colour codes: where commands print their verdict."""
    lines = [ln for ln in uncoloured(text).splitlines() if ln.strip()]
    if not lines:
        return ""
    line = _RULE.sub("", lines[-1].strip()) or lines[-1].strip()
    return line[:limit] + "…" if len(line) > limit else line


#: The rules a verdict is drawn between ("===== 1 failed, 3 passed in 0.08s =====", pytest's).
_RULE = re.compile(r"^[=\-*]{3,}\s*|\s*[=\-*]{3,}$")


#: An event shown by its fields (an unknown one, a notice): this many, each cut at this length.
NOTICE_FIELDS, NOTICE_VALUE = 12, 2000


def notice_text(data: dict[str, Any]) -> str:
    """The fields of an event shown as text: ``key=value``, two levels into nested objects
    (another agent's ``item={"type": ..., "text": ...}`` reads ``item.type=... item.text=...``;
    Claude Code's ``event.delta.text=...``)."""
    # (Its type and subtype are said before these, when they are text: {"type": 123} read
    # "(no type)", its 123 not said.)
    skip = {k for k in ("type", "subtype") if type(data.get(k)) is str} | {"session_id", "timestamp_ms"}
    parts: list[str] = []

    def add(key: str, v: Any, depth: int) -> None:
        if len(parts) >= NOTICE_FIELDS:
            return
        if isinstance(v, bool):
            parts.append(f"{key}={'true' if v else 'false'}")  # as the stream wrote it
        elif isinstance(v, str):  # (a long text, not a payload; a token by its length)
            v = opaque(v)
            parts.append(f"{key}={v[:NOTICE_VALUE] + '…' if len(v) > NOTICE_VALUE else v}")
        elif isinstance(v, (int, float)):
            parts.append(f"{key}={v}")
        elif isinstance(v, dict) and depth < 2:
            for k2, v2 in v.items():
                add(f"{key}.{k2}", v2, depth + 1)
        elif isinstance(v, (dict, list)):  # (a list was left out: Codex's item.changes=[...])
            parts.append(f"{key}={json_line(opaque(v), NOTICE_VALUE)}")
        elif v is None:
            parts.append(f"{key}=null")

    for k, v in data.items():
        if k not in skip:
            add(k, v, 0)
    return " ".join(parts)


def args_section(args: Any, title: str = "Arguments") -> Section:
    """A call's arguments, as "name  value" rows when each value is one short line of text, a
    number, true, false or null (a grep's pattern ``round\\(`` read ``"round\\\\("`` in JSON),
    else as JSON."""
    if isinstance(args, dict) and 0 < len(args) <= 12 and all(
        v is None or type(v) in (int, float, bool) or (type(v) is str and len(v) <= 300 and "\n" not in v)
        for v in args.values()
    ):
        width = min(24, max(len(str(k)) for k in args))

        def said(v: Any) -> str:
            if type(v) is str:
                return v if v.strip() else json.dumps(v)  # ("" and "  " shown as such)
            return json.dumps(v)  # (true, false, null, numbers as JSON writes them)

        return Section(title, "\n".join(f"{str(k).ljust(width)}  {said(v)}" for k, v in args.items()), "fields")
    return Section(title, json_text(args), "json")


def json_text(v: Any) -> str:
    try:
        return orjson.dumps(v, option=orjson.OPT_INDENT_2).decode()
    except TypeError:  # pragma: no cover - data came from JSON
        return repr(v)


def json_line(v: Any, limit: int) -> str:
    """JSON on one line, cut at ``limit`` characters, with a space after each comma and colon
    (as Python writes it): a wrapped line breaks between values, not inside a word."""
    compact = orjson.dumps(v).decode()
    if len(compact) <= 8 * limit:  # (a huge value: its start, as it is)
        compact = json.dumps(v, ensure_ascii=False)
    return compact[:limit] + "…" if len(compact) > limit else compact


def diff_from(before: str, after: str, path: str) -> str:
    """A unified diff of two texts.  A last line without its newline gets one, as ``diff``'s
    "\\ No newline at end of file" would: the line after it was drawn on the same line
    ("-old+new"), for an edit of a fragment (Claude Code's ``old_string``) most of all."""
    import difflib

    def lines(text: str) -> list[str]:
        out = text.splitlines(keepends=True)
        if out and not out[-1].endswith(("\n", "\r")):
            out[-1] += "\n"
        return out

    return "".join(
        difflib.unified_diff(
            lines(before), lines(after),
            fromfile=f"a/{path.lstrip('/')}", tofile=f"b/{path.lstrip('/')}",
        )
    )


def iso_ms(v: Any) -> int | None:
    """An ISO 8601 ``timestamp`` ("2026-08-14T02:08:08.711Z") in ms since the epoch."""
    if type(v) is not str or not 19 <= len(v) <= 40:
        return None
    try:
        dt = datetime.fromisoformat(v[:-1] + "+00:00" if v.endswith(("Z", "z")) else v)
    except ValueError:
        return None
    if dt.tzinfo is None:
        dt = dt.replace(tzinfo=timezone.utc)
    return int(dt.timestamp() * 1000)


def media_text(part: dict[str, Any]) -> str:
    """An image or a document of the Messages API (a prompt's attachment, a tool's result) named
    by what it is, not shown: "(image, image/png, 12.4 KB)", "(document, report.pdf,
    https://…)".  "" for a part of another type."""
    kind = part.get("type")
    if kind not in ("image", "document"):
        return ""
    src = as_dict(part.get("source"))
    how = src.get("type")
    bits = [kind, first_line(as_str(part.get("title")), 80), first_line(as_str(src.get("media_type")), 80)]
    if how == "base64":
        bits.append(human_bytes(len(as_str(src.get("data"))) * 3 // 4))
    elif how == "url":
        bits.append(first_line(as_str(src.get("url")), 200))
    elif how == "file":
        bits.append("file " + first_line(as_str(src.get("file_id")), 80))
    elif how == "text":
        bits.append(plural(line_count(as_str(src.get("data"))), "line"))
    return f"({', '.join(b for b in bits if b)})"


def content_text(content: Any) -> str:
    """A tool result's content as text (Claude Code's ``tool_result``, an MCP tool's result in
    Codex): a string, or a list of parts (text parts joined, an image named by its type and
    size, others by their fields)."""
    if isinstance(content, str):
        return content
    out = []
    for p in as_list(content):
        p = as_dict(p)
        if p.get("type") == "text":
            out.append(as_str(p.get("text")))
        elif p:
            out.append(media_text(p) or f"({describe_item(p)})")
    return "\n".join(out)


# -- summaries every format writes alike ---------------------------------------


def line_count(text: str) -> int:
    """A text's lines, a last one without its newline counted."""
    return text.count("\n") + (not text.endswith("\n")) if text else 0


def output_lines(text: str) -> str:
    """A command's output in the list: its lines, or "no output"."""
    n = line_count(text)
    return plural(n, "line") if n else "no output"


def written_lines(text: str) -> str:
    """A file's text a call writes, in the list: its lines, or "empty"."""
    return plural(line_count(text), "line") if text else "empty"


def first_arg_line(*names: str) -> Callable[[dict[str, Any]], str]:
    """A call's target: the first line of the first of its arguments ``names`` that is set."""
    return first_arg(*names, shape=first_line)


def todo_summary(todos: Any, done: Callable[[dict[str, Any]], bool]) -> str:
    """A to-do list in the list: "3 todos, 1 done" (``done``: whether an item is)."""
    items = [as_dict(t) for t in as_list(todos)]
    return f"{plural(len(items), 'todo')}, {sum(1 for t in items if done(t))} done" if items else ""


def part_count(usage: dict[str, Any], key: str, most: int | None = None) -> int:
    """A part of a usage object's tokens (those read from the cache, say): not below 0, 0 when
    absent, and at most ``most`` (the input they are a part of) when given."""
    n = max(as_int(usage.get(key)) or 0, 0)
    return n if most is None else min(n, most)


def token_counts(usage: Any, input_key: str, output_key: str) -> tuple[int, int] | None:
    """A usage object's input and output counts; None without both (or with a negative one)."""
    u = as_dict(usage)
    tin, tout = as_int(u.get(input_key)), as_int(u.get(output_key))
    if tin is None or tout is None or tin < 0 or tout < 0:
        return None
    return tin, tout
