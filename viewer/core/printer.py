"""``--print`` modes: the same understanding of a stream, without a TUI.

All three modes stream: records are handled as their bytes arrive and
nothing but the compact session model is kept, so memory stays flat.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Iterable
from typing import TYPE_CHECKING, BinaryIO, TextIO

import orjson

from viewer.core import sanitize
from viewer.core.actions import Query, failure_subtype
from viewer.core.decode import Decoder, Event, Malformed, Record, Restart
from viewer.core.detail import (
    STATUS_MARKS,
    SUB_ENTRIES,
    SUB_MARK,
    call_target,
    fmt_cache,
    fmt_cost,
    fmt_duration,
    fmt_tokens,
    fmt_wait,
)
from viewer.core.formats import FORMATS, Format, agents_read, begins_run, detect, get_format
from viewer.core.formats.common import plural
from viewer.core.model import NOTICE_CHARS, Block, Change, Session, StreamModel, ToolCall
from viewer.core.sanitize import json_safe, uncoloured
from viewer.core.sources import CHUNK, LineSplitter, settle_pending

if TYPE_CHECKING:  # (imported when a file is big enough for workers: 15 ms of every start)
    from viewer.core.parallel import Segment

EXIT_OK = 0
EXIT_RUN_FAILED = 1
EXIT_USAGE = 2  # a bad flag, or input that is not a stream (a missing file, a gzip, ...)


# A log is no grid of cells: an emoji keeps its joiners, its U+FE0F and its skin tone (see
# sanitize._GRID_ONLY); what a terminal would act on is escaped as in the TUI.
def clean(text: str) -> str:
    return sanitize.clean(text, grid=False)


def one_line(text: str, limit: int | None = None) -> str:
    return sanitize.one_line(text, limit, grid=False)


PROG = "agent-viewer"


def tell(message: str, err: TextIO) -> None:
    """One line on stderr, for every message of the CLI: messages name files and quote the
    stream, which may hold escape sequences (shown escaped).  With no stderr (``2>&-``:
    Python's is None) it is not said: ``print`` would write it to stdout, into the JSON."""
    if err is not None:
        print(f"{PROG}: {one_line(message)}", file=err)


def describe_malformed(m: Malformed, base: int = 0) -> str:
    """``base``: the lines read before the file started over (see Printer.line_base)."""
    return f"line {m.line - base}: malformed line, not an event ({m.reason}): {one_line(uncoloured(m.preview), 80)}"


def tool_line(t: ToolCall, target: str, under: str = "", again: bool = False) -> str:
    """Call ``t`` in one line, as the panes say it: what it did, on what (``target``, as
    :func:`~viewer.core.detail.call_target` shows it), how it went (its summary, exit code,
    time), and the Task whose sub-agent made it (``under``: two may run at once); its status's
    mark first ("✗ Ran terminal command make (exit 2; …)"), or ``again`` (an update of a call
    said before: Codex's to-do list ticked off) "·", so that the marks count the calls."""
    mark = "·" if again else STATUS_MARKS.get(t.status, "?")
    text = f"{mark} {t.heading}"  # ("◌ Shell make (unfinished)", not "Ran …")
    if target:
        text += f" {one_line(target, 160)}"
    notes = []
    if t.status == "failed":
        # (a shell's exit code; a failure reported inside a "success", as an MCP tool's: "failed")
        notes.append(t.detail if t.detail.startswith("exit") else "failed" if t.outcome == "success"
                     else f"failed: {t.outcome}")
    elif t.status == "rejected":
        notes.append("rejected")
    elif t.status == "unknown":
        notes.append(f"outcome: {t.outcome or 'none'}")
    elif t.status == "unfinished":
        notes.append("unfinished")
    if t.error_text and t.status != "success":
        notes.append(t.error_text)
    if t.status == "success" and t.detail:  # "exit 0" (what a CI log reader checks), "+14 −10", "4 files"
        notes.append(t.detail)
    if t.status in ("success", "failed") and t.duration_ms is not None:  # and the time, failed or not
        notes.append(fmt_duration(t.duration_ms))
    if under:
        notes.append(f"under {under}")
    if notes:
        text += f" ({'; '.join(notes)})"
    return one_line(text, 400)  # labels, outcomes and signals come from the stream too


def run_summary(s: Session) -> str:
    """How a run went, as the TUI's header says it: "✓ succeeded in 1m05s · 12 tool calls (1
    failed) · 14,200 in / 900 out tokens · 41,984 cache read · $0.23"; "✗ failed in 57.4 s · …
    · ConnectError: …" (why, as stderr says it: a log sent to a file keeps it); "◌ ended without
    a result · 2 tool calls (1 unfinished)"."""
    r = s.result
    said = "◌ ended without a result" if r is None else "✗ failed" if r.failed else "✓ succeeded"
    took = fmt_duration(s.took_ms) if r is not None else ""
    if took:
        said += f" in {took}"
    parts = [said]
    if s.tool_count:  # (text mode lets finished calls go: counted all the same)
        c = s.status_counts
        bad = [f"{c[k]:,} {k}" for k in ("failed", "rejected", "unfinished") if c[k]]
        parts.append(plural(s.tool_count, "tool call") + (f" ({', '.join(bad)})" if bad else ""))
    if r is not None and r.tokens is not None:
        parts.append(f"{fmt_tokens(r.tokens)} tokens")
        cached = fmt_cache(r.tokens)
        if cached:
            parts.append(cached)
    if r is not None and r.cost_usd is not None and fmt_cost(r.cost_usd):
        parts.append(fmt_cost(r.cost_usd))
    if r is not None and r.failed:  # (not again after the same words said as an error: Claude Code's API error)
        why = failure_reason(s)
        if not s.alerted(why):
            parts.append(one_line(why, 300))
    return " · ".join(parts)


def run_heading(s: Session, agent: str) -> str:
    """Whose run ``s`` is, as the TUI's header says it: "Cursor · Claude 4 Sonnet · in
    /home/maya/code/invoice-tool · session c6b62c6f-…" (a CI user asked what a log was a run
    of: its session id is what ``--resume`` takes); the agent alone for a run joined with
    neither (a fragment of Gemini CLI's stream began mid-sentence, unlabelled)."""
    init = s.init
    if init is None and not s.session_id:
        return agent
    parts = [agent] if agent else []
    if init is not None and init.model:
        parts.append(one_line(init.model, 80))
    if init is not None and init.cwd:  # (the call lines' paths are shown relative to it)
        parts.append(f"in {one_line(init.cwd, 300)}")
    if s.session_id:
        parts.append(f"session {one_line(s.session_id, 80)}")
    return " · ".join(parts)


#: A prompt in text mode: its first lines (a prompt may hold a pasted file), each cut at
#: PROMPT_CHARS.
PROMPT_LINES = 6
PROMPT_CHARS = 300


def quoted(prompt: str) -> list[str]:
    """A prompt as text mode says it: its lines quoted ("> "), the first PROMPT_LINES."""
    lines = clean(prompt).strip("\n").splitlines() or [""]
    out = [f"> {one_line(x, PROMPT_CHARS)}".rstrip() for x in lines[:PROMPT_LINES]]
    if len(lines) > PROMPT_LINES:
        out.append(f"> … ({plural(len(lines) - PROMPT_LINES, 'more line')})")
    return out


#: Entries text mode prints as a note in brackets, as the transcript shows them.
_SAID_AS_NOTES = frozenset(("notice", "alert", "query", *SUB_ENTRIES))


def _whose(s: Session, b) -> str:
    """A sub-agent's note names its Task ("sub-agent · Check the callers, "), as the
    transcript's entry does: two sub-agents may run at once."""
    who = SUB_ENTRIES.get(b.kind, "").lower()
    if not who:
        return ""
    call = s.called(b)
    task = call.target if call is not None else ""
    return f"{who} · {one_line(task, 80)}, " if task else f"{who} "


def foreign_problem(events: int, fmt, agent: str = "") -> str:
    own = f"{fmt.AGENT} stream-json"
    if agent:  # (its signs came after the first events, which told no format: read as the default's)
        return f"none of the {events:,} events is {own}: it looks like a {agent} stream whose first events did not say so"
    return (f"none of the {events:,} events is in a known format (agent-viewer reads the JSON streams of "
            f"{agents_read()})")


def agent_note(agent: str, fmt) -> str:
    """What to say of a stream that is another agent's yet read in a format its first events
    told (a Cursor run holding Claude Code's message parts): it is read as far as it goes."""
    return (f"note: this looks like a {agent} stream; agent-viewer reads it as {fmt.AGENT} "
            "stream-json as far as it goes (what it cannot read is listed as unknown)")


#: Text mode, a pipe silent this many seconds: it says so (then every QUIET_EVERY more).
QUIET_FIRST = 30
QUIET_EVERY = 60

#: Malformed lines listed one by one on stderr; past this many only their count is given (a
#: file that is not NDJSON at all, 40 MB of it, wrote 40 MB of messages).
MALFORMED_LISTED = 20


def no_events(malformed: int, blank: int = 0) -> str:
    if malformed:
        return (f"the input holds no events: not one of its lines is a JSON object ({malformed:,} "
                "malformed; is it an NDJSON stream?)")
    if blank:  # (not "empty": a trial's file of three blank lines)
        return f"the input holds no events: only {plural(blank, 'blank line')}"
    return "the input is empty (not one line of text)"


def session_problem(s: Session | None, malformed: int = 0, blank: int = 0) -> str:
    if s is None:
        return no_events(malformed, blank)
    if s.result is None:
        return "the run ended without a result"
    if s.state == "failed":
        return f"the run failed: {one_line(failure_reason(s), 300)}"
    return ""


def failure_reason(s: Session) -> str:
    """Why run ``s`` failed, in its result's words, else its subtype's."""
    r = s.result
    return s.result_text or (failure_subtype(r.subtype) if r is not None else "") or "error"


class Printer:
    """Base: owns the decoder; ``feed_lines`` takes physical lines, ``finish`` ends input."""

    def __init__(self) -> None:
        self.decoder = Decoder()
        self._malformed_told = 0
        #: The lines read before a followed file last started over: line n read is line
        #: n - line_base of the file now (the decoder numbers on across it), as a log says it.
        self.line_base = 0

    def tell_malformed(self, rec: Malformed, err: TextIO) -> None:
        """Say on stderr that a line is not an event: the first MALFORMED_LISTED, then once
        that more are only counted (:meth:`tell_malformed_count` gives the count at the end)."""
        self._malformed_told += 1
        if self._malformed_told <= MALFORMED_LISTED:
            tell(describe_malformed(rec, self.line_base), err)
        elif self._malformed_told == MALFORMED_LISTED + 1:
            tell("more malformed lines: no longer listed, counted", err)

    def tell_malformed_count(self, err: TextIO, total: int | None = None) -> None:
        n = self._malformed_told if total is None else total
        if n > MALFORMED_LISTED:
            tell(f"{n:,} malformed lines in all; the first {MALFORMED_LISTED} are listed above", err)

    def handle(self, rec: Record) -> None:  # pragma: no cover - interface
        raise NotImplementedError

    def feed_lines(self, lines: Iterable[tuple[int, bytes]], arrival: float | None = None) -> None:
        """``arrival``: when a pipe or a followed file gave them (``time.monotonic()``): what
        times a run whose stream has none (Codex's) and its calls."""
        feed, handle = self.decoder.feed, self.handle
        for off, raw in lines:
            for rec in feed(raw, off, arrival):
                handle(rec)

    def settle(self, splitter: LineSplitter, quiet: float, arrival: float | None = None) -> None:
        """The input paused ``quiet`` seconds: see :func:`~viewer.core.sources.settle_pending`."""
        for rec in settle_pending(self.decoder, splitter, quiet, arrival):
            self.handle(rec)

    def finish(self) -> int:
        for rec in self.decoder.close():
            self.handle(rec)
        return self.close()

    def restart(self) -> None:
        """The input started over (``--follow``: the file was truncated or replaced): a line
        left unfinished is reported, and what comes next is a new stream."""
        for rec in self.decoder.restart():
            self.handle(rec)
        self.line_base = self.decoder.lines_seen

    def close(self) -> int:  # pragma: no cover - interface
        raise NotImplementedError

    @property
    def has_run(self) -> bool:  # pragma: no cover - interface
        """The input has a run with an event."""
        raise NotImplementedError

    @property
    def run_over(self) -> bool:  # pragma: no cover - interface
        """The input's last run has its result (a pipe read on after its reader went stops)."""
        raise NotImplementedError

    @property
    def run_unended(self) -> bool:
        """The input has a run, and its last one has no result (yet)."""
        return self.has_run and not self.run_over


class _RunsPrinter(Printer):
    """A printer that follows the runs cheaply, in :attr:`runs` (a :class:`RunOutcome`)."""

    runs: RunOutcome

    @property
    def has_run(self) -> bool:
        return self.runs.events > 0

    @property
    def run_over(self) -> bool:
        return self.runs.last_result() is not None


class TextPrinter(Printer):
    """One human line per call as it completes; what the agent said before its calls, as each
    starts; then the final assistant text."""

    def __init__(self, out: TextIO, err: TextIO, each_result: bool = False) -> None:
        super().__init__()
        self.out, self.err = out, err
        self.model = StreamModel(keep_history=False)  # only the final text is printed
        self._listed = 0  # sessions before this one had their unfinished calls listed
        #: Say on stderr how each run went as its result arrives (``--follow``: the input has
        #: no end at which to say it).
        self.each_result = each_result
        self._told: set[int] = set()  # sessions whose failure was told as their result came
        self._headed = 0  # the session the last "--- session N ---" heading named
        self._said = False  # a line was written (the output does not start with a blank one)
        self._gap = False  # a blank line is due before the next (the agent's text was written)
        self._wrapped: set[int] = set()  # runs whose end was told (see _wrap_up)
        self._cut_said: set[tuple[int, int, str]] = set()  # calls told unfinished (see _say_cut)
        #: The agent's text blocks said (as a run's answer, or before a note that came after
        #: them), by id(): the block, so that the id stays its.  Not said again when they are
        #: let go at the next call's start (and forgotten then).
        self._said_blocks: dict[int, Block] = {}
        self._introduced: set[int] = set()  # runs whose heading was said (see _heading)
        self._prompts: dict[int, list[str]] = {}  # the prompts of runs not yet introduced
        self._under_heading = -1  # the run whose heading was the last line said
        self._heard = time.monotonic()  # when the last record came (see idle)
        self._quiet_told = 0  # silences told since then
        self._agent_told = False  # another agent's stream: said when first seen (see handle)
        #: Questions said (by id(): the block, so the id stays its, and the call it is asked for).
        self._asked: dict[int, tuple[Block, str]] = {}
        #: Answers not said yet, by the call they were asked for: its line says how it went, and
        #: comes next (a question's title and its answer were said three times: the question,
        #: its answer, the call).  Said at the run's end if the call never is.
        self._answers: dict[tuple[int, str], str] = {}  # (by run and call id)

    def handle(self, rec: Record) -> None:
        m = self.model
        self._heard, self._quiet_told = time.monotonic(), 0
        delta = m.apply(rec)
        if m.other_agent and not self._agent_told:
            # Before the lines it explains (said at the end, it came after a screen of them).
            self._agent_told = True
            self.out.flush()
            tell(agent_note(m.other_agent, m.format), self.err)
        if isinstance(rec, Malformed):
            self.tell_malformed(rec, self.err)
            return
        if isinstance(rec, Restart):  # the runs read so far ended
            self._agent_told = False  # (another file now: whose stream it is is told again)
            self._wrap_up(m.sessions[self._listed:])
            self._listed = len(m.sessions)
            self.out.flush()
            return
        s = m.sessions[delta.session]
        if delta.flags & Change.SESSIONS:  # a run that the next one ended (resumed, say): now
            self._wrap_up([x for x in m.sessions[self._listed:] if x.ended and x is not s])
        if s.blocks_let_go:  # a call started: what was said before it (a CI log lacked it)
            said = self._said_blocks
            self._paragraphs(s, [b.text for b in s.blocks_let_go if said.pop(id(b), None) is None])
            s.blocks_let_go.clear()
        for d in delta.each():  # (an event of several actions: each said in turn)
            if d.tool >= 0:
                t = s.tools[d.tool]
                # As it completes: not at a start that came late, nor at the same completion again.
                if t.done and t.end_line == rec.line and not d.flags & Change.HEALTH:
                    self._heading(s)
                    self._say_call(s, t, again=t.call_id in s.updated and rec.line != t.start_line)
            if d.flags & Change.RESULT:
                self._say_answers(s)
                self._say_cut(s)  # (the calls the run left running: before its summary, which counts them)
                self._finish(s)
                self._say_summary(s)
                why = session_problem(s) if self.each_result else ""
                if why:
                    self.out.flush()
                    tell(why, self.err)
                    self._told.add(s.index)
            elif d.flags & Change.UNKNOWN:
                b = s.blocks[d.block] if 0 <= d.block < len(s.blocks) else None
                what = b.text if b is not None and b.kind == "unknown" else rec.type or "(no type)"
                self._heading(s)
                # (As the transcript shows it: an answer of another agent's was cut at 160.)
                self._say(f"(unknown at line {rec.line - self.line_base}: {one_line(what, NOTICE_CHARS)})")
            elif 0 <= d.block < len(s.blocks) and s.blocks[d.block].kind == "prompt":
                prompt = quoted(s.blocks[d.block].text)
                if self._under_heading == s.index:  # (right under the run's heading, as if said with it)
                    self._gap = False
                    for line in prompt:
                        self._say(line)
                    self._gap = True
                elif s.index in self._introduced:  # (a prompt later in the run: Claude Code's next turn)
                    self._say_apart(s, prompt)
                else:  # (said under the run's heading, with the run's first line)
                    self._prompts.setdefault(s.index, []).extend(prompt)
            elif 0 <= d.block < len(s.blocks) and s.blocks[d.block].kind in _SAID_AS_NOTES:
                # An event of a known type shown by its fields (a retry; Claude Code's
                # system/permission_denied), a question to the user, or a sub-agent's message or
                # prompt, as the transcript shows it.
                b = s.blocks[d.block]
                self._heading(s)
                self._say_text_so_far(s)  # (what the agent said before it came first: it was held back)
                text = b.text
                asked = self._asked.get(id(b)) if b.kind == "query" else None
                if asked is not None:  # an answer: its first line says it, the questions were said
                    answer = text.partition("\n")[0]
                    note = f"({_whose(s, b)}at line {rec.line - self.line_base}: {one_line(answer, NOTICE_CHARS)})"
                    call = s.tool_by_id.get(asked[1]) if asked[1] else None
                    if asked[1] and (call is None or not s.tools[call].done):
                        self._answers[(s.index, asked[1])] = note  # (its call's line will say it)
                    else:
                        self._say(note)
                    continue
                if b.kind == "query":
                    if len(self._asked) >= 64:
                        self._asked = {}
                    self._asked[id(b)] = (b, self._asked_for(rec))
                self._say(f"({_whose(s, b)}at line {rec.line - self.line_base}: {one_line(text, NOTICE_CHARS)})")
        if (s.index not in self._introduced and (s.init is not None or s.index in self._prompts)
                and all(x is s or x.ended or x.result is not None for x in m.sessions)):
            # Headed as it begins, with its prompt, when no other run is going on (a live run
            # showed nothing until its first call, or its first silence of 30 s); runs
            # interleaved in one input are headed where their lines come.
            self._heading(s)
        self.out.flush()

    def _asked_for(self, rec: Record) -> str:
        """The call a question's request names (Cursor's askQuestion is one), or ""."""
        if type(rec) is not Event:
            return ""
        a = rec.action if rec.action is not None else self.model.reads_in(rec).interpret(rec) if rec.data is not None else None
        return getattr(a, "call_id", "") if type(a) is Query else ""

    def _say_answers(self, s: Session) -> None:
        """The answers held for calls of run ``s`` that never came (see ``_answers``)."""
        for key, note in list(self._answers.items()):
            if key[0] == s.index:
                del self._answers[key]
                self._heading(s)
                self._say(note)

    @property
    def _last_run(self) -> Session | None:
        """The run of the input's last event (runs may be interleaved)."""
        return self.model.last_run or self.model.current

    @property
    def run_over(self) -> bool:
        s = self._last_run
        return s is not None and s.result is not None

    @property
    def has_run(self) -> bool:
        s = self._last_run
        return s is not None and s.events > 0

    def idle(self, now: float | None = None) -> None:
        """The input (a pipe) has been silent a while: after QUIET_FIRST seconds, and every
        QUIET_EVERY after, say so and what runs.  (From a CI-user trial: a 40 s test run
        printed nothing for 40 s, like a hung agent; some CI systems kill a silent job.)"""
        quiet = (time.monotonic() if now is None else now) - self._heard
        if quiet < QUIET_FIRST + self._quiet_told * QUIET_EVERY:
            return
        self._quiet_told += 1
        s = self._last_run
        if s is None or s.result is not None:
            return  # (nothing runs: a run over, or none begun)
        running = [t for t in s.tools if t.status == "running"]
        what = ""
        self._heading(s)
        if running:
            t = running[-1]
            target = self._target(s, t)  # (as its line will say it)
            what = f"; running: {t.heading}" + (f" {one_line(target, 80)}" if target else "")
            if len(running) > 1:
                what += f" and {len(running) - 1} more"
        self._say(f"(no event for {fmt_wait(int(quiet))}{what})")

    def _heading(self, s: Session) -> bool:
        """Before what is printed of session N: "--- session N ---" when the input holds more
        than one and the lines before were another's (runs can be interleaved in one file),
        and the first time, whose run it is (run_heading) and its prompt; whether a line was
        written.  (Not as a run begins: a run whose lines come later is headed where they do.)"""
        said = False
        if s.index != self._headed and len(self.model.sessions) > 1:
            self._headed = s.index
            self._say(f"--- session {s.index + 1}{' (resumed)' if self.model.resumed(s) else ''} ---")
            said = True
        if s.index not in self._introduced:
            self._introduced.add(s.index)
            heading = run_heading(s, "" if self.model.other_agent else self.model.format_of(s).AGENT)
            lines = ([heading] if heading else []) + self._prompts.pop(s.index, [])
            for line in lines:
                self._say(line)
            if lines:
                self._gap = said = True
                self._under_heading = s.index
        return said

    def _wrap_up(self, sessions: list[Session]) -> None:
        """Runs that ended: their calls cut off, and what a run without a result said after
        its last call; once each (a run cut off was told only at the input's end, after the
        runs that came after it)."""
        for s in sessions:
            if s.index in self._wrapped:
                continue
            self._wrapped.add(s.index)
            self._say_answers(s)  # (before a call cut off: its line does not say them)
            self._say_cut(s)
            if s.result is None:
                self._finish(s)
                if s.events:
                    self._say_summary(s)

    def _say_cut(self, s: Session) -> None:
        """The lines of run ``s``'s calls left unfinished, once each (at its result, then at
        the input's end for any cut off after it)."""
        for t in s.tools:
            if t.status == "unfinished":
                key = (s.index, t.start_line, t.call_id)
                if key not in self._cut_said:
                    self._cut_said.add(key)
                    self._heading(s)
                    self._say_call(s, t)

    def _target(self, s: Session, t: ToolCall) -> str:
        """Call ``t``'s target as its line says it (relative to the run's directory, which the
        run's heading said)."""
        return call_target(t, s, self.model.format_of(s).TARGET_FORMS)

    def _say_call(self, s: Session, t: ToolCall, again: bool = False) -> None:
        """Call ``t``'s line (paths relative to the run's directory, which its heading said);
        ``again``: an update of it (see tool_line)."""
        if t.status not in ("running", "unfinished"):
            self._answers.pop((s.index, t.call_id), None)  # (this line says how its question was answered)
        target = self._target(s, t)
        task = s.parent_of(t) if t.parent else None  # (a sub-agent's call: its Task, if read)
        under = one_line(task.target, 80) if task is not None else ""
        self._say((SUB_MARK if t.parent else "") + tool_line(t, target, under, again))

    def _say_summary(self, s: Session) -> None:
        """How run ``s`` went (run_summary)."""
        self._say_apart(s, [run_summary(s)])

    def _say_apart(self, s: Session, lines: list[str]) -> None:
        """Lines of run ``s`` apart from those around them by a blank line on each side, as the
        agent's text is (a run's summary, a prompt of its next turn)."""
        self._heading(s)
        self._gap = self._said
        for line in lines:
            self._say(line)
        self._gap = True

    def _say_text_so_far(self, s: Session) -> None:
        """The agent's text since its last call, not said yet: before a line that came after it
        (the text is held back until a call starts, or the run ends, and a question to the user
        was printed above the words that led to it)."""
        self._paragraphs(s, self._unsaid(s.final_blocks(settled=True)))  # (one still written: later)

    def _unsaid(self, blocks: list[Block]) -> list[str]:
        """The texts of ``blocks`` not said yet, now noted as said."""
        said = self._said_blocks
        new = [b for b in blocks if id(b) not in said]
        for b in new:
            said[id(b)] = b
        return [b.text for b in new]

    def _finish(self, s: Session) -> None:
        final = "\n\n".join(self._unsaid(s.final_blocks()))
        if not final and not s.said_anything and s.result is not None and not s.result.is_error:
            final = s.result_text  # a run whose answer is only in its result
        self._paragraphs(s, [final])

    def _paragraphs(self, s: Session, texts: list[str]) -> None:
        """The agent's text, apart from the call lines by a blank line on each side."""
        for text in texts:
            text = clean(text).strip("\n")  # (blank lines around it only pushed it apart)
            if text:
                if not self._heading(s) and self._said:
                    self._say("")
                self._say(text)
                self._gap = True

    def _say(self, line: str) -> None:
        self._under_heading = -1
        if self._gap:
            self._gap = False
            if line:
                print(file=self.out)
        print(line, file=self.out)
        self._said = True

    def close(self) -> int:
        m = self.model
        m.end()
        cur = self._last_run
        self._wrap_up(m.sessions[self._listed:])
        self.out.flush()
        self.tell_malformed_count(self.err)
        if not m.foreign:
            # Earlier runs of the input that did not succeed: the exit status is the last run's,
            # but a CI log must not hide them.
            for other in m.sessions:
                if other is not cur and other.events and other.index not in self._told:
                    why = session_problem(other)
                    if why:
                        tell(f"session {other.index + 1} of {len(m.sessions)}: {why}", self.err)
        problem = session_problem(cur, self.decoder.malformed, self.decoder.blank_lines)
        if m.foreign:
            problem = foreign_problem(m.events - m.duplicates, m.format, m.other_agent) + "; each is listed as unknown"
        elif m.other_agent and not self._agent_told:
            tell(agent_note(m.other_agent, m.format), self.err)
        if problem:
            if m.foreign or cur is None or cur.index not in self._told:
                tell(problem, self.err)
            return EXIT_RUN_FAILED
        return EXIT_OK


class JsonPrinter(_RunsPrinter):
    """Exactly the agent CLI's single result object: the last run's result, whether it
    succeeded or failed (the exit status says which).

    Only three things matter here: which session the input ends in, that
    session's latest result, and whether there were events at all.  So this
    printer skips the session model: it parses each line (which any reader
    must) and asks the format's cheap ``run_marker``.  Lines that do not parse
    go through the regular decoder, so split events are still rejoined and bad
    lines counted.
    """

    def __init__(self, out: TextIO, err: TextIO, each_result: bool = False) -> None:
        super().__init__()
        self.out, self.err = out, err
        #: (Earlier runs are told at the end, unless each result is written as it comes.)
        self.runs = RunOutcome(keep_runs=not each_result)
        #: --follow has no end of input to wait for: write each run's result object as it comes.
        self.each_result = each_result
        self.written = 0  # result objects written
        #: The format worker processes read the file in (see print_file_with_workers).
        self.workers_format: Format | None = None
        #: (--follow) The events read, and the old stream's problem, when the file last started over.
        self._before_restart: tuple[int, str, bool] | None = None  # (and whether it was told then)

    def restart(self) -> None:
        """(``--follow``: each run is told as it ends.)  A run the file's start over cut off,
        without a result, is told then: it was never said."""
        super().restart()
        runs = self.runs
        if not self.each_result or not runs.events:
            return
        if self._before_restart is not None and self._before_restart[0] == runs.events:
            return  # (nothing came since it last started over: that was told then)
        problem = runs.problem(self.decoder.malformed, self.decoder.blank_lines)
        cut = bool(problem) and runs.last_result() is None and runs.unknown < runs.events
        if cut:
            sid = runs.current
            tell(f"an earlier run{f' (session {one_line(sid[:8])})' if sid else ''}: the run ended without "
                 "a result (the file started over)", self.err)
        # What follows is a new stream: the old one's runs are not its (a result of the same
        # session from before hid a run cut off after it; one cut off was told at every restart).
        # Until an event comes, the input's last word is the old one's: its problem.
        self._before_restart = (runs.events, problem, cut)
        runs.new_stream()

    def _track(self, data: dict) -> None:
        if self.runs.track(data) == "result" and self.each_result and not self.runs.repeated:
            self._write_result(data)  # (a result twice in a row: stderr merged into stdout, written once)

    def _write_result(self, data: dict, fmt: Format | None = None) -> None:
        out = (fmt or self.runs.format).result_object(data)
        self.out.write(json_safe(orjson.dumps(out)).decode() + "\n")
        self.out.flush()
        self.written += 1

    def take(self, seg: Segment) -> bool:
        """A worker's segment (mode ``markers``): its events counted as if read here.  False
        when it must be read here instead: a line may go on across one of its edges."""
        dec = self.decoder
        items = seg.items or []
        if not seg.ok or seg.pending or dec.has_pending or any(
            type(it) is not tuple or len(it) not in (2, 4, 5) for it in items
        ):  # (checked first: taken in part, it could not be read here again)
            return False
        fmt = self.workers_format
        if fmt is not None and (self.runs.format is not fmt or any(
            len(it) == 4 and it[3] not in ("", fmt.NAME) for it in items
        )):  # (the workers read in another format than this segment's, or one of its events tells another)
            return False
        runs = self.runs
        note, each = runs.note, self.each_result
        before = dec.lines_seen  # the segment's lines are numbered from 1
        for item in items:
            n = len(item)
            if n == 2:  # (how many plain events, the last session id among them)
                runs.plain(*item)
            elif n == 5:
                line, offset, length, reason, preview = item
                self.tell_malformed(Malformed(before + line, offset, length, reason, preview), self.err)
            elif note(*item[:3], FORMATS.get(item[3])) == "result" and each and not runs.repeated:
                self._write_result(item[2])
        dec.skip(seg.lines, seg.blank, seg.events, seg.malformed, seg.rejoined, None)
        return True

    def feed_lines(self, lines: Iterable[tuple[int, bytes]], arrival: float | None = None) -> None:
        self.decoder.feed_objects(lines, self._track, self.handle)  # (a result's times are its own)

    def handle(self, rec: Record) -> None:
        if isinstance(rec, Event):
            self._track(rec.data)
        elif isinstance(rec, Malformed):  # (stderr: stdout holds only the JSON)
            self.tell_malformed(rec, self.err)

    def close(self) -> int:
        self.tell_malformed_count(self.err, self.decoder.malformed)  # (workers send only their first)
        problem = self.runs.problem(self.decoder.malformed, self.decoder.blank_lines)
        before = self._before_restart
        if before is not None and before[0] == self.runs.events:  # (nothing since the file started over)
            _, problem, told = before
            if problem and not told:  # (a failed run's result: written, its failure not yet said)
                tell(problem, self.err)
            return EXIT_RUN_FAILED if problem else EXIT_OK
        last = self.runs.last_result()
        if last is not None and not self.each_result:
            # The run's result object, also when it failed (is_error true: what a CI job parses).
            self._write_result(last, self.runs.last_format())
        for why in self.runs.earlier_problems():
            tell(why, self.err)
        if problem:
            why = "" if self.written else "; no JSON written"  # no result at all to write
            tell(f"{problem}{why}", self.err)
            return EXIT_RUN_FAILED
        self.runs.note_agent(self.err)
        return EXIT_OK


#: The format an input is read in until its events tell one.
DEFAULT = get_format()

#: ``--print`` json and stream-json look at this many first events for another agent's signs
#: (text mode, which builds the model, also sees them in unknown content later on).
SNIFF_EVENTS = 200


class RunOutcome:
    """How the run an input ends in went, from raw events read cheaply: which session the
    input ends in, that session's latest result, and whether there were events at all."""

    def __init__(self, keep_runs: bool = False) -> None:
        self.format = get_format()
        self.current: str | None = None  # session id of the latest event that had one
        #: session id -> (result of its latest run, the format it was read in)
        self.results: dict[str | None, tuple[dict, Format]] = {}
        #: With ``keep_runs``: every run (an init begins one) as [session id, its result or
        #: None, its format], in the input's order, and each session's latest.
        self.keep_runs = keep_runs
        self.history: list[list] = []
        self._latest: dict[str | None, list] = {}
        self._prev: tuple | None = None  # (marker, session id, object) of the event before
        self.repeated = False  # the last event noted was the init or result before it again (2>&1)
        self.events = 0
        self.unknown = 0  # events of a type the format does not know
        self.other_agent = ""  # another agent whose content is in a run of this format (see note)
        self._run_marker = self.format.run_marker
        self._told_format = False  # an event told which format the input is in (see track)
        self._window = SNIFF_EVENTS  # the events up to this count are looked at for the format (see track)

    def track(self, data: dict) -> str:
        """Take one raw event into account; returns what the format says of it (run_marker).
        This runs for every event of ``--print`` json and stream-json: most are neither an
        init, a result nor unknown, and cost one call and two tests.

        The format is told as the model tells it: by the first events, and again at each run's
        start (an init of any format, or a ``system`` event after a result): the event that
        tells another is marked again in it (another agent's init is "unknown" in this one)."""
        sid, marker = self._run_marker(data)
        told = None
        if marker or self.events < self._window:  # (rare events, and the first ones)
            told = detect(data)
            if told is not None and told is not self.format and self._starts_run(data):
                self.format, self._run_marker = told, told.run_marker
                sid, marker = self._run_marker(data)
        return self.note(sid, marker, data, told)

    def _starts_run(self, data: dict) -> bool:
        """Whether the format may be told again at this event (see track)."""
        if not self._told_format and self.events < self._window:
            return True
        return begins_run(data.get("type"), data.get("subtype"), self.results.get(self.current) is not None)

    def note(self, sid: str | None, marker: str, data: dict | None, told: Format | None = None) -> str:
        """Like :meth:`track`, with what ``run_marker`` said of the event already known (a
        worker process read it: see :func:`print_file_with_workers`).  There ``data`` is only
        a result's object, and ``told`` the format ``detect`` said of the event (a worker's
        segment with an event of another format than its own is read here instead)."""
        self.events += 1
        if sid is not None:
            self.current = sid
        if marker == "turn":  # (a thread's next turn, after a result, is its next run: see Init.turn)
            marker = "init" if self.results.get(self.current) is not None else ""
        if marker:
            # The same init or result twice in a row is stderr merged into stdout (2>&1: every
            # event comes twice), as the model tells it, not a run that ended without a result.
            # (An init's object is not compared: a worker does not send it.)
            key = (marker, self.current, data if marker == "result" else None)
            again, self._prev = self._prev == key, key
            self.repeated = again
            if marker == "result":
                self.results[self.current] = (data, self.format)  # type: ignore[assignment]
                if self.keep_runs and not again:
                    run = self._latest.get(self.current)
                    if run is None or run[1] is not None:  # (a result with no init before it)
                        run = self._begin()
                    run[1], run[2] = data, self.format
            elif marker == "init":
                self.results.pop(self.current, None)
                if self.keep_runs and not again:
                    self._begin()
            else:
                self.unknown += 1
        else:
            self._prev = None
            self.repeated = False
        if told is not None:
            self._told_format = True
            if told is self.format:
                if self.other_agent == told.AGENT:  # (its signs seen in another format's run before)
                    self.other_agent = ""
            elif told is not DEFAULT and not self.other_agent:  # (another agent's content in this run)
                self.other_agent = told.AGENT
        return marker

    def new_stream(self) -> None:
        """The input started over: what it said of its runs is not the new stream's."""
        self.results.clear()
        self.current, self._prev, self.repeated = None, None, False
        self._told_format = False
        self._window = self.events + SNIFF_EVENTS  # (the new stream's first events tell its format)
        self.other_agent = ""

    def plain(self, count: int, sid: str | None) -> None:
        """``count`` events that are neither an init, a result nor unknown (a worker counted
        them), the last session id among them ``sid``."""
        self.events += count
        self._prev = None
        self.repeated = False
        if sid is not None:
            self.current = sid

    def _begin(self) -> list:
        run = self._latest[self.current] = [self.current, None, self.format]
        self.history.append(run)
        return run

    def earlier_problems(self) -> list[str]:
        """What went wrong with each run before the last (``keep_runs``): the exit status is
        the last run's, but a CI log must not hide them."""
        last = self._latest.get(self.current)
        out = []
        for run in self.history:
            why = "" if run is last else self.why(run[1], run[2])
            if why:
                out.append(f"an earlier run{f' (session {one_line(run[0][:8])})' if run[0] else ''}: {why}")
        return out

    def why(self, result: dict | None, fmt: Format | None = None) -> str:
        """Why a run with this result, read in ``fmt``, did not succeed ("" when it did)."""
        if result is None:
            return "the run ended without a result"
        problem = (fmt or self.format).result_problem(result)
        return f"the run failed: {one_line(problem, 300)}" if problem else ""

    def last_result(self) -> dict | None:
        got = self.results.get(self.current)
        return got[0] if got is not None else None

    def last_format(self) -> Format:
        """The format the input's last run was read in (its result's)."""
        got = self.results.get(self.current)
        return got[1] if got is not None else self.format

    def note_agent(self, err: TextIO) -> None:
        """Say so when a run that went well is another agent's stream, read as far as it goes."""
        if self.other_agent:
            tell(agent_note(self.other_agent, self.format), err)

    def problem(self, malformed: int = 0, blank: int = 0) -> str:
        """Why the run did not succeed ("" when it did); ``malformed``, ``blank``: lines that
        were not events."""
        if not self.events:
            return no_events(malformed, blank)
        if self.unknown == self.events:
            return foreign_problem(self.events, self.format, self.other_agent)
        return self.why(self.last_result(), self.last_format())


class StreamJsonPrinter(_RunsPrinter):
    """The events again, as clean stream-json: one compact object per line."""

    def __init__(self, out: BinaryIO, err: TextIO) -> None:
        super().__init__()
        self.out, self.err = out, err
        self.runs = RunOutcome()

    def handle(self, rec: Record) -> None:
        if isinstance(rec, Malformed):
            self.tell_malformed(rec, self.err)
            return
        if isinstance(rec, Restart):  # (--follow: what the old stream said of its runs is not the new one's)
            self.runs.new_stream()
            return
        self.runs.track(rec.data)
        out = self.out
        out.write(json_safe(orjson.dumps(rec.data)))  # (not `+ b"\n"`: a copy of a 64 MB line)
        out.write(b"\n")

    def close(self) -> int:
        """Every event is out; the exit status says how the run went, as in the other modes."""
        self.out.flush()
        self.tell_malformed_count(self.err)
        problem = self.runs.problem(self.decoder.malformed, self.decoder.blank_lines)
        if problem:
            tell(problem, self.err)
            return EXIT_RUN_FAILED
        self.runs.note_agent(self.err)
        return EXIT_OK


def make_printer(fmt: str, out_text: TextIO | None = None, err: TextIO | None = None, follow: bool = False):
    """The printer for ``--output-format fmt``; ``follow``: the input has no end to wait for."""
    out_text = out_text or sys.stdout
    err = err or sys.stderr
    if fmt == "text":
        return TextPrinter(out_text, err, each_result=follow)
    if fmt == "json":
        return JsonPrinter(out_text, err, each_result=follow)
    if fmt == "stream-json":
        return StreamJsonPrinter(getattr(out_text, "buffer", None) or out_text, err)
    raise ValueError(f"unknown output format {fmt!r}")


def print_file_with_workers(printer: JsonPrinter, fd: int, *, workers: int | None = None,
                            segment: int | None = None, first: int | None = None,
                            min_parallel: int | None = None) -> bool:
    """``--print --output-format json`` on a big regular file, with worker processes reading
    segments of it (see :mod:`viewer.core.parallel`): the same output as reading it here, line
    after line.  False (nothing read) when workers would not help: a small file, one core,
    not a regular file.  The caller then reads it as usual; after True, it calls ``finish``."""
    import os
    import stat

    from viewer.core.formats import DETECT_BYTES, detect_head
    from viewer.core.parallel import (
        FIRST_BYTES,
        MIN_PARALLEL_BYTES,
        MIN_WORKER_BYTES,
        SEGMENT_BYTES,
        WorkerError,
        Workers,
        plan,
        worker_count,
        worth_it,
    )

    segment = SEGMENT_BYTES if segment is None else segment
    first = FIRST_BYTES if first is None else first
    min_parallel = MIN_PARALLEL_BYTES if min_parallel is None else min_parallel
    count = worker_count() if workers is None else workers
    st = os.fstat(fd)
    if count <= 0 or not stat.S_ISREG(st.st_mode) or st.st_size < min_parallel:
        return False
    todo = plan(fd, st.st_size, segment, first)
    if not worth_it(todo, st.st_size, min(MIN_WORKER_BYTES, min_parallel)):
        return False
    fmt = detect_head(os.pread(fd, DETECT_BYTES, 0))
    if fmt is None:  # (workers would read in a format the events, read here, may not tell)
        return False
    try:
        pool = Workers(fd, fmt.NAME, count, mode="markers", keep_first=SNIFF_EVENTS)
    except WorkerError:
        return False
    printer.workers_format = fmt
    splitter = LineSplitter()
    read_to = 0  # bytes taken into account so far, here or by the workers

    def read_here(start: int, end: int) -> None:
        nonlocal read_to
        splitter.offset = start  # (an edge is a line start: nothing is left over before it)
        pos = start
        while end < 0 or pos < end:
            chunk = os.pread(fd, CHUNK if end < 0 else min(CHUNK, end - pos), pos)
            if not chunk:
                break
            pos += len(chunk)
            printer.feed_lines(splitter.feed(chunk))
            read_to = pos

    try:
        try:
            pool.submit(todo[1:])
        except Exception:  # noqa: BLE001 - a worker gone: everything is read here
            pool.close()
        read_here(0, todo[0][1])
        segments = pool.segments(lambda: False)
        while True:
            try:
                seg = next(segments)
            except StopIteration:
                break
            except Exception:  # noqa: BLE001 - a worker, or what it sent back: the rest is read here
                pool.close()
                break
            if not printer.take(seg):
                read_here(seg.start, seg.end)
            read_to = seg.end
        read_here(read_to, -1)
        printer.feed_lines(splitter.flush())  # an unterminated last line read here
    finally:
        pool.close()
    return True
