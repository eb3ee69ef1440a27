"""What the detail view of a tool call shows, as plain data (no UI); how long a call took and
what it worked on, in words (the TUI and the text printer say them alike)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(slots=True)
class Section:
    """One block of a tool call's detail view.

    ``kind`` tells the UI how to render ``body``:
    ``code`` (syntax-highlighted, ``lang`` is a file name or language),
    ``diff`` (unified diff), ``text`` (literal text, may be long output),
    ``json`` (pretty JSON), ``markdown`` (agent-written Markdown), ``terminal`` (a
    command's output: its colours are shown, every other escape sequence is escaped),
    ``fields`` ("name  value" rows, a call's arguments: a value too long for its row goes on
    under the value, not under the name).
    """

    title: str
    body: str
    kind: str = "text"
    lang: str = ""


#: The last section of a call's detail while no result of it has been read (the format's sections
#: say what its events hold; its status, which only the model knows, says why nothing more).
NO_RESULT = {
    # live, or a replay that has not reached its end ("has not come", not "was lost")
    "running": "Its result has not come yet: the call is still running.",
    "unfinished": "Its result never came: the run ended before the call did.",
}


def call_sections(t, started, completed, tool_sections) -> list[Section]:
    """The detail of call ``t``: its format's sections (``tool_sections``, given the call's
    started and completed events), then, while it has no result, a Status section saying why."""
    out = list(tool_sections(started, completed, t.call_id))
    why = NO_RESULT.get(t.status)
    if why:
        out.append(Section("Status", why))
    return out


#: A finished call's status at the start of its line, wherever a call is listed (the panes
#: colour it; text mode prints it: a failed step in a CI log is found by its ✗).
STATUS_MARKS = {"success": "✓", "failed": "✗", "rejected": "⊘", "unknown": "?", "unfinished": "◌"}


#: Marks a sub-agent's call or words, under the call it runs in (ToolCall.parent), wherever
#: they are shown: the tool list, the transcript, text mode.
SUB_MARK = "↳ "


def under_mark(ref: int) -> str:
    """The mark of an entry under the call of index ``ref``, which names that call by its
    number in the tool list ("↳5 "): two sub-agents may run at once.  -1: that call was not
    read (yet): the mark alone."""
    return f"↳{ref + 1} " if ref >= 0 else SUB_MARK


def sub_mark(t, session) -> str:
    """The mark of a sub-agent's call (see under_mark), "" for the agent's own."""
    return under_mark(session.ref_of(t.parent)) if t.parent else ""


#: The transcript's entries of a sub-agent (Block kinds), by what they are called.
SUB_ENTRIES = {"subagent": "Sub-agent", "subprompt": "Prompt to the sub-agent"}


def fmt_cost(usd: float) -> str:
    """A run's cost: ``$0.0694``, ``$0.118``, ``$12.35``: up to three figures below a dollar,
    and cents at least (``$0.50``, ``$0.0012``: not ``$0.500``, ``$0.00120``)."""
    if not 0 <= usd < 1e12:  # (not NaN, not negative, not infinite: no cost a run has)
        return ""
    if usd >= 0.9995:
        return f"${usd:,.2f}"
    if usd < 0.001:
        return "< $0.001" if usd else "$0"
    figures = f"{usd:#.3g}".rstrip("0")
    return "$" + figures.ljust(len("0.00"), "0")


def fmt_tokens(tokens) -> str:
    """A run's token counts as the header and text mode's summary say them: ``38,412 in /
    4,987 out``."""
    return f"{tokens.input:,} in / {tokens.output:,} out"


def fmt_cache(tokens) -> str:
    """... and what was read from the prompt cache and written to it: ``612,864 cache read ·
    19,965 cache write`` ("" when neither)."""
    parts = [f"{n:,} cache {what}" for n, what in ((tokens.cache_read, "read"), (tokens.cache_write, "write")) if n]
    return " · ".join(parts)


def fmt_wait(seconds: int) -> str:
    """A wait in whole seconds, as a clock of silence reads it: ``45 s``, then ``1m30s``."""
    return f"{seconds} s" if seconds < 60 else fmt_duration(seconds * 1000)


def fmt_duration(ms: int | None) -> str:
    """``812 ms``, ``12.2 s``, ``1m41s``, ``2h05m``; "" when not known (or negative: no time
    a run or a call can take)."""
    if ms is None or ms < 0:
        return ""
    if ms < 1000:
        return f"{ms} ms"
    s = ms / 1000
    if ms < 59_950:  # (not "60.0 s": 59.95 s rounds up to a minute)
        return f"{s:.1f} s"
    m, sec = divmod(int(s + 0.5), 60)  # (rounded half up, as the tenths above are: 59.95 s is "1m00s")
    if m < 60:
        return f"{m}m{sec:02d}s"
    h, m = divmod(m, 60)
    return f"{h}h{m:02d}m"


def under_cwd(target: str, session, placed: bool = False) -> str:
    """A tool call's target shown relative to the run's working directory when it is a path
    under it (the header shows that directory): the file name stays in view in a narrow column.
    ``placed``: a target of the form "pattern in DIRECTORY" (a "placed" kind of the format's
    TARGET_FORMS): its directory is shown so ("round\\( in src", "*.py in ."), the pattern as it
    is."""
    init = getattr(session, "init", None)
    cwd = init.cwd.rstrip("/") if init is not None and init.cwd else ""
    if cwd and placed:
        head, sep, place = target.rpartition(" in ")
        if sep and head and (place.rstrip("/") == cwd or place.startswith(cwd + "/")):
            return f"{head} in {under_cwd(place, session) if place.rstrip('/') != cwd else '.'}"
    if cwd and target.startswith(cwd + "/"):
        rest = target[len(cwd) :].lstrip("/")  # (a doubled slash must not look absolute)
        return rest or "."
    return "." if cwd and target == cwd else target  # (a List of the directory itself, as a Glob's "in .")


def call_target(t, session, forms: dict[str, str]) -> str:
    """Call ``t``'s target as the panes show it (see :func:`under_cwd`); ``forms``: the format's
    TARGET_FORMS (a command is shown as it ran, even one that starts with the run's directory)."""
    form = forms.get(t.kind_key)
    return t.target if form == "command" else under_cwd(t.target, session, form == "placed")
