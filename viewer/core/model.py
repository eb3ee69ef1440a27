"""The session model: an incremental reducer over decoded records.

``StreamModel.apply(record)`` updates the state and returns a :class:`Delta`
saying what changed, so a UI can refresh only the parts that moved.  Format
knowledge stays in :mod:`viewer.core.formats`; this module sees
format-neutral :mod:`~viewer.core.actions` only.
"""

from __future__ import annotations

import copy
import operator
from collections import Counter
from dataclasses import dataclass, field, fields

from viewer.core import actions as A
from viewer.core.decode import Event, Malformed, Record, Restart, Run
from viewer.core.formats import (
    DETECT_EVENTS,
    RUN_START_TYPES,
    Format,
    begins_run,
    detect,
    get_format,
    sniff_agent,
)

#: How far back a completion without a call id looks for the call it completes.
NO_ID_LOOKBACK = 256


class Change:
    """Bit flags telling what a :class:`Delta` changed (plain ints: this is a hot path)."""

    NONE = 0
    SESSIONS = 1  # a session was added
    HEADER = 2  # init info, state, counters
    TRANSCRIPT = 4  # transcript blocks added or grown
    TOOLS = 8  # a tool call was added or changed
    HEALTH = 16  # malformed lines, unknown events
    RESULT = 32  # the run's result arrived
    THINKING = 64  # thinking text grew (hidden by default)
    UNKNOWN = 128  # an event of a type the format does not know
    ENDED = 256  # every run ended at once (the source started over): redraw all of it


def arrival_ms(start: float, end: float) -> int | None:
    """The time between two arrivals, in ms; None under 1 ms: events that came at once (a
    file piped in whole, read in one go) tell no time ("0 ms" was said of every call)."""
    ms = int((end - start) * 1000)
    return ms if ms > 0 else None


@dataclass(slots=True)
class Delta:
    flags: int
    session: int = -1
    tool: int = -1  # index of the tool call that changed, -1 if none
    block: int = -1  # index of the transcript block that changed, -1 if none
    closed: int = -1  # a block before it that this event closed (open text or thinking), -1 if none
    #: For an event of several actions (see actions.Batch), each action's delta, with its own
    #: flags, tool and block; ``flags`` above has all of theirs.
    more: list[Delta] | None = None

    def each(self) -> list[Delta]:
        """The delta of each action of the event (this one, when it had one)."""
        return [self] if self.more is None else self.more


@dataclass(slots=True, eq=False)
class Block:
    """One entry of the transcript."""

    # prompt | assistant | thinking | tool | query | notice | alert | unknown | malformed | result | end;
    # subprompt | subagent: the agent's prompt to a sub-agent and its words (ref: the call they run in)
    kind: str
    line: int
    parts: list[str] = field(default_factory=list)
    ref: int = -1  # tool index for kind == "tool"
    open: bool = False  # still receiving deltas
    cut: bool = False  # the run ended while it was still open (no closing event)
    version: int = 0
    size: int = 0  # len(text), kept without joining the parts
    _text: str | None = None

    def __post_init__(self) -> None:
        self.size = sum(map(len, self.parts))

    @property
    def text(self) -> str:
        if self._text is None:
            self._text = "".join(self.parts)
            if self.kind != "malformed":  # (its parts are lines, the first and last kept: see append_kept)
                self.parts = [self._text] if self._text else []
        return self._text

    def append(self, s: str) -> None:
        self.parts.append(s)
        self.size += len(s)
        self._text = None
        self.version += 1

    def append_kept(self, s: str, head: int, tail: int) -> None:
        """Append ``s`` as a part, keeping only the first ``head`` parts and the last ``tail``
        (``ref`` counts every part appended)."""
        if len(self.parts) >= head + tail:
            self.size -= len(self.parts.pop(head))  # (the oldest of the last ones)
        self.append(s)
        self.ref += 1

    def replace(self, s: str) -> None:
        self.parts = [s] if s else []
        self.size = len(s)
        self._text = s
        self.version += 1

    def close(self) -> None:
        """No more deltas: its parts become one string (a thinking block gathers thousands of
        few-character deltas, 50 bytes each for the string objects alone)."""
        self.open = False
        if len(self.parts) > 1:
            self.text  # noqa: B018 - joins the parts


@dataclass(slots=True, eq=False)
class ToolCall:
    index: int
    call_id: str
    kind_key: str = "unknown"
    label: str = "Tool call"
    short: str = "Call"  # the label in a column of calls
    target: str = ""
    detail: str = ""
    status: str = "running"  # running | success | failed | rejected | unknown | unfinished
    outcome: str = ""
    error_text: str = ""
    turn_id: str = ""
    started_ms: int | None = None  # tool-reported (startedAtMs)
    completed_ms: int | None = None
    start_ts: int | None = None  # event timestamp_ms
    end_ts: int | None = None
    start_arrival: float | None = None
    end_arrival: float | None = None
    start_line: int = 0
    end_line: int = 0
    start_ref: int | None = None  # where its events are in the source store (see ref_span)
    end_ref: int | None = None
    duplicates: int = 0
    block: int = -1  # index of its marker in the session's transcript
    #: Calls started together (one after another, of one model turn, before any call ended)
    #: share a group number (Session.groups counts them); 0: it was started alone.
    group: int = 0
    #: A sub-agent's call: the id of the call it runs under (Claude Code's Task); "" if none.
    parent: str = ""
    #: Shown while its arguments are written (ToolStarted.early): its start is still to come.
    early: bool = False

    def __copy__(self) -> ToolCall:
        # Every call of a run is copied at each replay checkpoint: field by field is about
        # five times faster than copy.copy's generic way for a slotted class.
        return ToolCall(*_tool_fields(self))

    @property
    def done(self) -> bool:
        return self.status not in ("running", "unfinished")

    @property
    def heading(self) -> str:
        """The call named as a heading: by what it did once it did it ("Ran terminal command"),
        else by its kind ("Shell"): a call running, rejected, cut off or of an outcome not
        known is not told in the past tense."""
        return self.label if self.status in ("success", "failed") else self.short

    @property
    def duration_ms(self) -> int | None:
        """Tool-reported times first, then event timestamps, then arrival times."""
        if self.started_ms is not None and self.completed_ms is not None:
            return max(0, self.completed_ms - self.started_ms)
        if self.start_ts is not None and self.end_ts is not None:
            return max(0, self.end_ts - self.start_ts)
        if self.start_arrival is not None and self.end_arrival is not None:
            return arrival_ms(self.start_arrival, self.end_arrival)
        return None

    @property
    def summary(self) -> str:
        parts = [p for p in (self.target, self.detail) if p]
        return " · ".join(parts)


#: An event's place in the source, (offset, length), as one int: a tuple of two ints took 116
#: bytes, the int 36 (two a call: 14 MB on a 1 GB run's 85k calls).
_REF_SPAN = 1 << 40


def make_ref(offset: int, length: int) -> int:
    return offset * _REF_SPAN + length


def ref_span(ref: int) -> tuple[int, int]:
    """(offset, length) of a :func:`make_ref`."""
    return divmod(ref, _REF_SPAN)  # type: ignore[return-value]


_tool_fields = operator.attrgetter(*(f.name for f in fields(ToolCall)))


@dataclass(slots=True)
class ResultInfo:
    subtype: str
    is_error: bool
    duration_ms: int | None
    duration_api_ms: int | None
    #: The result's text, or "" when it is the transcript's assistant text word for word
    #: (``in_transcript``; :attr:`Session.result_text` has it either way): a long run's result
    #: repeats all it said, 5 MB on a 1 GB file.
    text: str
    request_id: str
    tokens: A.Tokens | None
    line: int
    session_id: str | None
    in_transcript: bool = False
    cost_usd: float | None = None

    @property
    def failed(self) -> bool:
        return A.failed_result(self.is_error, self.subtype)


@dataclass(slots=True)
class NoticeRecord:
    line: int
    event_type: str
    subtype: str
    text: str
    known: bool


class Session:
    """One run: from a ``system/init`` (or the first event) to the next."""

    def __init__(self, index: int, session_id: str | None) -> None:
        self.index = index
        self.session_id = session_id
        #: The format its events are read in (a file may hold runs of two agents; a followed
        #: one may be replaced by another agent's): see StreamModel.format_of.
        self.format: Format | None = None
        self.init: A.Init | None = None
        self.init_line = 0
        self.blocks: list[Block] = []
        self.tools: list[ToolCall] = []
        self.tool_by_id: dict[str, int] = {}
        # Calls before this index may be shared with a copy of the session (see clone): one is
        # copied before it changes (own_tool), once; _copied says which were.
        self._shared_below = 0
        self._copied: set[int] = set()
        self.result: ResultInfo | None = None
        self.result_mismatch = False
        self.said_anything = False  # some assistant text arrived (kept when blocks are let go)
        #: keep_history=False: the assistant text blocks let go, in order, until the reader
        #: takes them (text mode prints what was said before each call, at its start, unless it
        #: said it before: it knows the blocks it said).
        self.blocks_let_go: list[Block] = []
        self.notices: list[NoticeRecord] = []
        self.malformed_shown = 0  # blocks of malformed lines (up to MAX_MALFORMED_SHOWN)
        self.malformed_last = -1  # the last of them
        self.events = 0
        self.first_line = 0
        self.last_line = 0
        self.first_ms: int | None = None
        self.last_ms: int | None = None
        #: When its first event came (a live source's; None when that event had no arrival: a
        #: followed file's lines read at once as it was opened, in text mode).
        self.first_arrival: float | None = None
        self.last_arrival: float | None = None
        #: When the run ended, by the arrival clock: the input's end, the next run's start, or
        #: its last event when the followed file started over (a live source's; None otherwise).
        self.end_arrival: float | None = None
        self.ended = False  # the input ended (or a new session started after this one)
        #: A followed file that started over: the lines read before this run's part of it (its
        #: line n is line n - line_base of the file now), and whether it started over since
        #: (this run's lines are of what the file was before).
        self.line_base = 0
        self.before_restart = False
        self.after_restart = False  # the first run read after the file started over
        #: Ids of calls let go of (see forget_finished) that had no start yet.
        self.started_late: set[str] = set()
        #: Ids of calls that are updated once done (Codex's to-do list, ticked off): kept when
        #: finished calls are let go of, or each update was a call more.
        self.updated: set[str] = set()
        self.status_counts: Counter[str] = Counter()  # tool calls per status
        self.empty_deltas = 0
        self._open_text: Block | None = None
        self._open_text_idx = -1
        self._open_thinking_idx = -1
        self._open_thinking: Block | None = None
        self._queries: dict[str, int] = {}  # query id -> block index
        self.forgotten_tools = 0  # keep_history=False: finished calls let go of
        self.groups = 0  # groups of calls started together (ToolCall.group)
        #: No call ended since the last one started: the next start joins its group.
        self.starting = False
        #: Calls of sub-agents by the id of the call they run under (read or not, yet).
        self.subcalls: dict[str, int] = {}

    # -- derived -------------------------------------------------------------
    @property
    def state(self) -> str:
        """live | succeeded | failed | ended (without result)."""
        if self.result is not None:
            return "failed" if self.result.failed else "succeeded"
        return "ended" if self.ended else "live"

    @property
    def running(self) -> int:
        return self.status_counts["running"]

    @property
    def tool_count(self) -> int:
        return len(self.tools) + self.forgotten_tools

    @property
    def done_tools(self) -> int:
        c = self.status_counts
        return self.tool_count - c["running"] - c["unfinished"]

    def forget_finished(self, keep_ids: set[int] | None = None) -> None:
        """Let go of finished tool calls and every transcript block except the markers of
        calls still running (``StreamModel(keep_history=False)``, called when a call
        starts: no text block is open then).  Running calls are renumbered.  ``keep_ids``:
        the ``id()`` of calls and of blocks other than text to keep all the same (what an
        event of several actions touched before: see StreamModel._batch)."""
        keep = [t for t in self.tools if not t.done or t.call_id in self.updated or (keep_ids and id(t) in keep_ids)]
        # (A call whose completion came before its start: its start, when it comes, is no new
        # call; its id is kept, a few thousand at most.)
        if len(self.started_late) > 4096:
            self.started_late.clear()
        self.started_late.update(t.call_id for t in self.tools if t.done and t.start_ref is None and t.call_id)
        if self._shared_below:  # (not with a copy of this session: renumbered here)
            keep = [copy.copy(t) for t in keep]
            self._shared_below, self._copied = 0, set()
        self.forgotten_tools += len(self.tools) - len(keep)
        blocks = self.blocks
        self.blocks_let_go.extend(b for b in blocks if b.kind == "assistant" and b.text)
        renumbered = {t.index: i for i, t in enumerate(keep)}  # (old index: new)
        self.tools, self.blocks, self.tool_by_id = keep, [], {}
        for i, t in enumerate(keep):
            t.index = i
            if t.call_id:
                self.tool_by_id[t.call_id] = i
            if 0 <= t.block < len(blocks):
                b = blocks[t.block]
                b.ref = i
                self.blocks.append(b)
                t.block = len(self.blocks) - 1
        if keep_ids:
            for b in blocks:
                if b.kind not in ("tool", "assistant") and id(b) in keep_ids:
                    if b.ref >= 0:  # (a sub-agent's entry: under its call, renumbered)
                        b.ref = renumbered.get(b.ref, -1)
                    self.blocks.append(b)
        self.notices.clear()
        self._open_text_idx = self._open_thinking_idx = -1
        self._queries.clear()

    def own_tool(self, i: int) -> ToolCall:
        """Call ``i``, to be changed: a copy of it, if it is shared with a clone."""
        t = self.tools[i]
        if i < self._shared_below and i not in self._copied:
            t = self.tools[i] = copy.copy(t)
            self._copied.add(i)
        return t

    def set_status(self, t: ToolCall, status: str) -> None:
        c = self.status_counts
        c[t.status] -= 1
        c[status] += 1
        t.status = status

    @property
    def assistant_segments(self) -> list[str]:
        return [b.text for b in self.blocks if b.kind == "assistant" and b.text]

    @property
    def result_text(self) -> str:
        """The text of the run's result ("" without one)."""
        r = self.result
        if r is None:
            return ""
        return "".join(self.assistant_segments) if r.in_transcript else r.text

    @property
    def took_ms(self) -> int | None:
        """How long the run took: its result's duration, else the span of its events' times,
        else of their arrival (a live source's: Codex's stream has neither); None when not
        known (events that came at once, as a file piped in whole gives them, tell no time)."""
        r = self.result
        if r is not None and r.duration_ms is not None and r.duration_ms >= 0:
            return r.duration_ms
        if self.first_ms is not None and self.last_ms is not None and self.last_ms > self.first_ms:
            return self.last_ms - self.first_ms
        if self.first_arrival is not None and self.last_arrival is not None:
            return arrival_ms(self.first_arrival, self.last_arrival)
        return None

    @property
    def prompt(self) -> str:
        return next((b.text for b in self.blocks if b.kind == "prompt"), "")

    @property
    def is_empty(self) -> bool:
        return self.events == 0

    def clone(self) -> Session:
        """An independent copy, cheap enough to take every few thousand events (replay
        checkpoints).  What can still change is copied: open text blocks and query blocks (a
        response rewrites them).  Finished blocks are shared: nothing changes them any more.
        Tool calls are shared until one changes (a late or repeated completion may change any
        of them): this copy and the original then each copy it first (:meth:`own_tool`).  On
        a 1M-event run, copying every call made a copy take 300 ms."""
        c = copy.copy(self)
        # (a group of malformed lines takes in the next ones: it changes after it was added)
        c.blocks = [copy.copy(b) if b.open or b.kind in ("query", "malformed") else b for b in self.blocks]
        for b in c.blocks:
            if b.open or b.kind == "malformed":
                b.parts = list(b.parts)
        c.tools = list(self.tools)
        self._shared_below = c._shared_below = len(self.tools)
        self._copied, c._copied = set(), set()
        c.tool_by_id = dict(self.tool_by_id)
        c.started_late = set(self.started_late)
        c.updated = set(self.updated)
        c.notices = list(self.notices)
        c.status_counts = Counter(self.status_counts)
        c._queries = dict(self._queries)
        c.subcalls = dict(self.subcalls)
        c._open_text = c.blocks[self._open_text_idx] if self._open_text is not None else None
        c._open_thinking = c.blocks[self._open_thinking_idx] if self._open_thinking is not None else None
        return c

    def alongside(self, t: ToolCall) -> list[ToolCall]:
        """The other calls of ``t``'s group, in order (started together: a group's calls are
        side by side in the list, see StreamModel._join_group)."""
        if not t.group:
            return []
        tools, lo, hi = self.tools, t.index, t.index + 1
        while lo > 0 and tools[lo - 1].group == t.group:
            lo -= 1
        while hi < len(tools) and tools[hi].group == t.group:
            hi += 1
        return [o for o in tools[lo:hi] if o is not t]

    def subcalls_of(self, t: ToolCall) -> list[ToolCall]:
        """The calls that ran under ``t`` (its sub-agent's), in order (they may have come before
        it: a run joined mid-way has its Task only from its result)."""
        n = self.subcalls.get(t.call_id, 0) if t.call_id else 0
        out: list[ToolCall] = []
        for o in self.tools if n else ():
            if o.parent == t.call_id:
                out.append(o)
                if len(out) == n:
                    break
        return out

    def ref_of(self, call_id: str) -> int:
        """The index of call ``call_id``, -1 if not read (a Block's ``ref``)."""
        return self.tool_by_id.get(call_id, -1)

    def called(self, b: Block) -> ToolCall | None:
        """The call a block is about or under (a call's line, a sub-agent's entry), if read."""
        return self.tools[b.ref] if 0 <= b.ref < len(self.tools) else None

    def parent_of(self, t: ToolCall) -> ToolCall | None:
        """The call ``t`` ran under, if it was read."""
        i = self.tool_by_id.get(t.parent) if t.parent else None
        return self.tools[i] if i is not None else None

    def alerted(self, text: str) -> bool:
        """Whether the run's last entries before its result show ``text`` as an error already
        (Claude Code's message of an API error, then its result of the same words)."""
        for b in reversed(self.blocks):
            if b.kind == "alert":
                return b.text.endswith(text)
            if b.kind not in ("result", "end", "notice"):
                return False
        return False

    def final_texts(self) -> list[str]:
        """The assistant's texts after the last tool call or prompt (what a text-mode run
        prints last: before the user's next prompt, the answer to the one before)."""
        return [b.text for b in self.final_blocks()]

    def final_blocks(self, settled: bool = False) -> list[Block]:
        """The blocks of :meth:`final_texts`; ``settled``: not one still being written."""
        out: list[Block] = []
        for b in reversed(self.blocks):
            if b.kind == "tool" or b.kind == "prompt":
                break
            if b.kind == "assistant" and b.text and not (settled and b.open):
                out.append(b)
        return out[::-1]


def _spells(text: str, parts: list[str]) -> bool:
    """Whether ``text == "".join(parts)``, without joining them (a long run's are megabytes)."""
    at = 0
    for p in parts:
        if not text.startswith(p, at):
            return False
        at += len(p)
    return at == len(text)


def _unsaid(result: str, said: str) -> str:
    """The part of a result's text that the transcript (``said``) does not show: the whole
    text, or only its start or end when the transcript holds the rest (a stream joined late)."""
    if said and result.endswith(said):
        return result[: -len(said)].strip()
    if said and result.startswith(said):
        return result[len(said):].strip()
    return result


#: Malformed lines kept with their preview; past this many only the count grows (a 1 GB file
#: of garbage must not become gigabytes of previews).  The health screen lists 2,000.
MAX_MALFORMED_KEPT = 10_000
#: Blocks of malformed lines in a run's transcript; past this many its last one takes the rest.
MAX_MALFORMED_SHOWN = 200
#: A block of malformed lines shows this many of its first lines, and of its last.
MALFORMED_HEAD, MALFORMED_TAIL = 3, 2
#: An unknown event or a notice is shown up to this many characters, in the transcript and
#: in --print's text (its text is already a few fields, each cut by the format).
NOTICE_CHARS = 4000


class StreamModel:
    """All sessions of one input stream, plus what could not be parsed."""

    def __init__(self, fmt: Format | None = None, keep_history: bool = True) -> None:
        """``keep_history=False`` (``--print`` text mode) keeps only what a streaming
        printer still needs, so memory stays flat on endless runs: thinking is counted,
        not stored; when a tool call starts, the assistant text before it is let go, and
        so are the finished calls, the transcript blocks and the notices before it
        (counters stay exact).  Indices in a :class:`Delta` are valid until the next
        ``apply``."""
        self.keep_history = keep_history
        #: One object for equal strings of calls (see :meth:`_share`); none kept without history.
        self._strings: dict[str, str] | None = {} if keep_history else None
        self.format = fmt or get_format("cursor")
        self._interpret = self.format.interpret
        self._detect_left = DETECT_EVENTS  # events still looked at for their format
        self._own_actions = False  # the format changed: actions a worker made are another format's
        #: Without history, the calls and blocks an event of several actions touched so far: a
        #: call one of them starts must not let go of them (see _batch).
        self._batch_keep: set[int] | None = None
        self.sessions: list[Session] = []
        self.malformed: list[Malformed] = []  # the first MAX_MALFORMED_KEPT of them
        self.malformed_lines = 0  # all of them
        self.unknown_events = 0  # unknown events and unknown content inside known ones
        self.unknown_types = 0  # events whose type the format does not know at all
        self.event_types: Counter[str] = Counter()
        #: ... and the system events' subtypes (init, hooks, status: the health screen lists them).
        self.system_subtypes: Counter[str] = Counter()
        self.events = 0
        self.lines_in_events = 0
        self.ended = False
        self.mirrored = False  # every event arrives twice (stderr merged into stdout)
        #: Another agent whose content is in a run of this format, by the shape of its events
        #: ("" when none, or nothing tells): see formats.sniff_agent and _sniff.
        self.other_agent = ""
        self.duplicates = 0  # events skipped as mirrored copies
        self._prev: Event | None = None
        self._current: Session | None = None
        #: The run the latest event went to: with runs interleaved in one input, an earlier run
        #: than the latest started (whose result may be the input's last word).
        self.last_run: Session | None = None
        self._closed = -1  # the first block the event being applied closed (see _close_open)
        self._restarted_at = 0  # sessions before this index were read before a restart
        self._line_base = 0  # the lines before the file's part a new run is in (see Session.line_base)
        #: Malformed lines read while no run was current (before the first, after a restart):
        #: the next run shows them first (an agent's "Warning: ..." on stderr, before its init).
        self._unplaced: list[Malformed] = []
        self.last_malformed: Malformed | None = None  # (the header shows it while no run is)
        #: The last line read before each restart (a followed file truncated or replaced): line
        #: numbers go on counting across them, as in a --save copy of the input.
        self.restarts: list[int] = []

    def clone(self) -> StreamModel:
        """An independent copy of the whole state (see :meth:`Session.clone`)."""
        c = copy.copy(self)
        c.sessions = [s.clone() for s in self.sessions]
        c.malformed = list(self.malformed)
        c.restarts = list(self.restarts)
        c._unplaced = list(self._unplaced)
        c.event_types = Counter(self.event_types)
        c.system_subtypes = Counter(self.system_subtypes)
        c._current = c.sessions[self._current.index] if self._current is not None else None
        c.last_run = c.sessions[self.last_run.index] if self.last_run is not None else None
        return c

    def format_of(self, s: Session | None) -> Format:
        """The format run ``s``'s events are read in (its calls' details, their targets)."""
        return s.format if s is not None and s.format is not None else self.format

    def resumed(self, s: Session) -> bool:
        """Run ``s`` goes on with the session of the run before it (``--resume``: a new init
        of the same session id), rather than being another session.  Not the same run read
        again after the file started over (from a trial: a truncated followed file, written
        anew, read "session 3/3 resumed")."""
        return (s.index > 0 and bool(s.session_id) and not s.after_restart
                and self.sessions[s.index - 1].session_id == s.session_id)

    # -- routing -----------------------------------------------------------------
    @property
    def current(self) -> Session | None:
        """The latest run started (after a restart, until the next event: the last); the one
        an event of no run goes to.  (With runs interleaved, the latest event may have gone to
        an earlier one: :attr:`last_run`.)"""
        return self._current or (self.sessions[-1] if self.sessions else None)

    def _new_session(self, session_id: str | None, arrival: float | None = None) -> Session:
        cur = self._current
        if cur is not None and (session_id is None or cur.session_id == session_id
                                or not self.format_of(cur).EVENTS_NAME_THEIR_RUN):
            # A resumed run (same id), an anonymous one, or one of a format whose events do not
            # name their run (no later event can go to the one before): the previous run is over.
            # Runs with other ids may still be interleaved with this one; they end with the input.
            # Its end says so: the stream did not end there, nor was the agent seen to stop.
            resumed = session_id is not None and cur.session_id == session_id
            self._finish(cur, why="The next run began here" + (" (the same session, resumed)" if resumed else ""),
                         arrival=arrival)
        s = Session(len(self.sessions), session_id)
        s.format = self.format
        s.line_base = self._line_base
        s.after_restart = bool(self.restarts) and s.index == self._restarted_at
        self.sessions.append(s)
        self._current = s
        self._show_unplaced(s)
        self._unplaced = []
        return s

    def _show_unplaced(self, s: Session) -> None:
        """The lines that are not events read while no run was current, shown first in ``s``."""
        for rec in self._unplaced:
            self._show_malformed(s, rec)

    def _route(self, session_id: str | None, is_init: bool, arrival: float | None = None) -> tuple[Session, bool]:
        """The run an event goes to, and whether it is new (``arrival``: the event's, at which
        a run it ends ended)."""
        cur = self._current
        if cur is None:
            return self._new_session(session_id, arrival), True
        if is_init:
            if cur.init is None and cur.session_id in (None, session_id) and (
                cur.is_empty or (not cur.tools and cur.result is None and not cur.prompt)
            ):  # only notices so far (e.g. hooks that run before the init): the same run
                cur.session_id = session_id
                return cur, False
            return self._new_session(session_id, arrival), True
        if session_id is None or cur.session_id == session_id:
            return cur, False
        if cur.session_id is None:
            cur.session_id = session_id
            return cur, False
        # Interleaved or appended runs: go back to the latest run of that id (since the last
        # restart: runs read before it have ended).
        sessions = self.sessions
        for i in range(len(sessions) - 1, self._restarted_at - 1, -1):
            if sessions[i].session_id == session_id:
                return sessions[i], False
        return self._new_session(session_id, arrival), True

    # -- reducer -------------------------------------------------------------------
    def apply(self, rec: Record) -> Delta:
        if type(rec) is Event:
            return self.apply_event(rec)
        if type(rec) is Run:
            return self.apply_run(rec)
        if type(rec) is Restart:
            return self.restart(rec.line, rec.in_copy)
        self.malformed_lines += 1
        self.last_malformed = rec
        if len(self.malformed) < MAX_MALFORMED_KEPT:
            self.malformed.append(rec)
        s = self._current
        if s is None:
            if len(self._unplaced) < MAX_MALFORMED_SHOWN and self.keep_history:
                self._unplaced.append(rec)
            return Delta(Change.HEALTH | Change.HEADER)
        idx = self._show_malformed(s, rec)
        if idx >= 0:
            return Delta(Change.HEALTH | Change.HEADER | Change.TRANSCRIPT, s.index, block=idx)
        return Delta(Change.HEALTH | Change.HEADER, s.index)

    def _show_malformed(self, s: Session, rec: Malformed) -> int:
        """Show a malformed line where it came in its run (the index of its block; -1 without
        history): an agent's stderr mixed in ("Error: ...") is what a watcher most needs to
        see, and the header's count did not show it.  Why it is malformed: the health screen.

        Lines with nothing shown between them are one block (150 debug lines before the init
        are one entry, not 300 rows); past MAX_MALFORMED_SHOWN blocks a run's last block takes
        the rest, so the newest such line is always shown.  A block keeps its first
        MALFORMED_HEAD lines and its last MALFORMED_TAIL (``ref`` counts them all)."""
        if not self.keep_history:
            return -1
        last = len(s.blocks) - 1
        if last >= 0 and s.blocks[last].kind == "malformed":
            idx = last
        elif s.malformed_shown >= MAX_MALFORMED_SHOWN:
            idx = s.malformed_last
        else:
            s.malformed_shown += 1
            idx = s.malformed_last = self._add_block(s, "malformed", rec.line, ref=0)
        s.blocks[idx].append_kept(f"{rec.line}:{rec.preview}\n", MALFORMED_HEAD, MALFORMED_TAIL)
        return idx

    def unplaced_view(self) -> Session | None:
        """For an input that held no run at all: its lines that are not events, as a run's
        transcript shows them (a file of text showed an empty transcript).  The first of them,
        the last one, and the count of all.  Not a run: no session is added."""
        if self.sessions or not self._unplaced:
            return None
        s = Session(-1, None)
        self._show_unplaced(s)
        last = self.last_malformed
        if last is not None and last is not self._unplaced[-1]:
            self._show_malformed(s, last)
        s.blocks[0].ref = self.malformed_lines  # (one block: nothing came between them)
        return s

    def restart(self, line: int = 0, in_copy: bool = False) -> Delta:
        """The source started over: every run read so far has ended (open calls become
        unfinished), and the next event begins a new run even if its id was seen before."""
        for s in self.sessions:  # (a clock stops at the run's last event: when the file changed is not known)
            self._finish(s, why="The file started over here (truncated or replaced)", arrival=s.last_arrival)
            s.before_restart = s.before_restart or not in_copy  # (a copy holds its lines: they stay its)
        self._current = None
        self._restarted_at = len(self.sessions)
        self.restarts.append(line)
        self._line_base = 0 if in_copy else line  # (a copy's lines are numbered on across it)
        self._prev = None
        self.other_agent = ""  # another file now: whose stream it is is told again
        self._detect_left = DETECT_EVENTS  # ... and in which format
        return Delta(Change.ENDED | Change.HEADER | Change.TOOLS | Change.TRANSCRIPT, len(self.sessions) - 1)

    def _detect(self, ev: Event) -> None:
        """Read the input in the format its event says it is written in, from this event on
        (a pipe's first events; a file's, when its start did not tell: see feed.sniff_format;
        and every init, or ``system`` event after a run's result (Claude Code's hooks come
        before its init): a file may hold runs of two agents)."""
        if self._detect_left:
            self._detect_left -= 1
        fmt = detect(ev.data) if ev.data is not None else None  # (a worker's lean event: see below)
        if fmt is None:
            return
        self._detect_left = 0
        if fmt is not self.format:
            self.format, self._interpret = fmt, fmt.interpret
            self._own_actions = True
            if self.other_agent == fmt.AGENT:  # (its signs seen in another format's run before)
                self.other_agent = ""
            cur = self._current
            if cur is not None and cur.init is None and not begins_run(ev.type, ev.subtype, cur.result is not None):
                # (joined mid-way: its first events did not tell; an init begins a run of its own)
                cur.format = fmt

    def _tells_format(self, ev: Event) -> bool:
        """Whether the format is told again at this event: one of the input's first, an init
        of any format, or a ``system`` event after a result (a hook before the next run's
        init): a file may hold runs of two agents."""
        cur = self._current
        return bool(self._detect_left) or begins_run(ev.type, ev.subtype, cur is not None and cur.result is not None)

    def reads_in(self, ev: Event) -> Format:
        """The format :meth:`apply_event` will read ``ev`` in (it may tell another): a replay's
        index interprets an event before the model applies it."""
        if ev.data is not None and self._tells_format(ev):
            fmt = detect(ev.data)
            if fmt is not None:
                return fmt
        return self.format

    def apply_event(self, ev: Event) -> Delta:
        if self._detect_left or (ev.type in RUN_START_TYPES and self._tells_format(ev)):  # (inline: every event)
            self._detect(ev)
        if self._own_actions and ev.data is not None:
            # (A worker's action of an event whose object it kept: made in the format the
            # file's start told, which may not be this one.  One it let go of is one this
            # format makes alike: see feed.sniff_format.)
            ev.action = None
        self.events += 1
        self.lines_in_events += ev.line_count
        prev, self._prev = self._prev, ev
        if prev is not None and (
            ev.repeat if ev.line_count == 1 else prev.length == ev.length and prev.data == ev.data
        ):
            # The same event twice in a row.  An init is never repeated by the CLI itself:
            # when it is, stderr was merged into stdout (2>&1) and every event comes twice.
            if type(self._interpret(ev) if ev.action is None else ev.action) is A.Init:
                self.mirrored = True
            if self.mirrored:
                self.duplicates += 1
                self._prev = None  # a third copy is a real event again
                return Delta(Change.HEALTH | Change.HEADER, self._current.index if self._current else -1)
        action = self._interpret(ev) if ev.action is None else ev.action  # (a worker may have done it)
        self.event_types[ev.type or "(no type)"] += 1
        if ev.type == "system":
            self.system_subtypes[ev.subtype or "(no subtype)"] += 1
        is_init = type(action) is A.Init
        if is_init and action.turn:  # type: ignore[union-attr]
            action, is_init = self._next_turn(action)  # type: ignore[arg-type]
        session, created = self._route(action.session_id, is_init, ev.arrival)
        self.last_run = session
        session.events += 1
        if not session.first_line:
            session.first_line = ev.line
        session.last_line = ev.line + ev.line_count - 1
        ts = action.time_ms
        # (What comes after its result does not make the run longer: an event read minutes
        # after a Codex run's end, whose time is its events' arrival, took it from 0.8 s to 14 s.)
        if ts is not None and session.result is None:
            if session.first_ms is None:
                session.first_ms = ts
            if session.last_ms is None or ts > session.last_ms:
                session.last_ms = ts
        if ev.arrival is not None and session.result is None:
            if session.first_arrival is None and session.events == 1:  # (see took_ms)
                session.first_arrival = ev.arrival
            session.last_arrival = ev.arrival
        # (Only what the handler closes, in this run: _route may have ended the run before, and
        # a restart or the input's end closed runs with no event to say it.)
        self._closed = -1
        delta = self._handlers[type(action)](self, session, action, ev)
        if created:
            delta.flags |= Change.SESSIONS
        delta.session = session.index
        if self._closed >= 0:
            delta.closed, self._closed = self._closed, -1
        return delta

    def apply_run(self, run: Run) -> Delta:
        """Text deltas that go on with the event before them (see :class:`Run`): the same as
        applying them one by one, at once.  The delta names the first block they touched;
        any block after it is new."""
        n = len(run.texts)
        self.events += n
        self.lines_in_events += n
        self.event_types[run.type or "(no type)"] += n
        # The next event is compared with the run's last line, as it would be without runs.
        self._prev = Event(run.end_line, 1, 0, run.last_length, run.last_data or {})
        session, created = self._route(run.session_id, False, run.arrival)
        self.last_run = session
        session.events += n
        if not session.first_line:
            session.first_line = run.line
        session.last_line = run.line + n - 1
        if run.first_ms is not None and session.result is None:  # (see apply_event)
            if session.first_ms is None:
                session.first_ms = run.first_ms
            if session.last_ms is None or run.last_ms > session.last_ms:  # type: ignore[operator]
                session.last_ms = run.last_ms
        if run.arrival is not None and session.result is None:
            if session.first_arrival is None and session.events == n:  # (see took_ms)
                session.first_arrival = run.arrival
            session.last_arrival = run.arrival
        if run.kind == "thinking":
            delta = self._thinking_run(session, run)
        else:
            delta = self._assistant_run(session, run)
        if created:
            delta.flags |= Change.SESSIONS
        delta.session = session.index
        return delta

    def end(self, arrival: float | None = None) -> Delta:
        """The input ended (at ``arrival``, a live source's clock): open calls become
        unfinished, open text closes."""
        self.ended = True
        for s in self.sessions:
            self._finish(s, arrival=arrival)
        return Delta(Change.HEADER | Change.TOOLS | Change.TRANSCRIPT, self._current.index if self._current else -1)

    def _finish(self, s: Session, why: str = "", arrival: float | None = None) -> None:
        """No more events for this run: open calls are unfinished, open text closes.  ``why``
        (shown in the "end" block) says why it ended, when the stream says; ``arrival``: when,
        by a live source's clock (where the header's clock of the run stops)."""
        if s.ended:
            return
        s.ended = True
        s.end_arrival = arrival
        self._mark_cut(s)
        self._close_open(s)
        self._cut_running(s)
        if s.result is None and s.events and not self.foreign:
            # Shown as "ended without a result"; not for another agent's stream, whose runs
            # this format cannot tell (the header says UNKNOWN FORMAT).
            self._add_block(s, "end", s.last_line, why)

    @staticmethod
    def _cut_running(s: Session) -> list[int]:
        """Run ``s``'s calls still running become unfinished (its end, or its result, came
        before theirs): their indices."""
        if not s.status_counts["running"]:
            return []
        cut = [i for i, t in enumerate(s.tools) if t.status == "running"]
        for i in cut:
            s.set_status(s.own_tool(i), "unfinished")
        return cut

    # -- per action ----------------------------------------------------------------
    def _add_block(self, s: Session, kind: str, line: int, text: str = "", ref: int = -1, open_: bool = False) -> int:
        b = Block(kind, line, [text] if text else [], ref, open_)
        s.blocks.append(b)
        return len(s.blocks) - 1

    @staticmethod
    def _mark_cut(s: Session) -> None:
        """The run stopped while text was still being written: it ends there, unfinished."""
        for b in (s._open_text, s._open_thinking):
            if b is not None:
                b.cut = True

    def _open_text_block(self, s: Session, line: int, text: str) -> int:
        """A new assistant segment that deltas go on appending to."""
        idx = self._add_block(s, "assistant", line, text, open_=True)
        s._open_text, s._open_text_idx = s.blocks[idx], idx
        return idx

    def _open_thinking_block(self, s: Session, line: int, text: str) -> int:
        """A new thinking block that deltas go on appending to (text kept only with history)."""
        idx = self._add_block(s, "thinking", line, text if self.keep_history else "", open_=True)
        s._open_thinking, s._open_thinking_idx = s.blocks[idx], idx
        return idx

    def _close_open(self, s: Session) -> None:
        """The open text and thinking end (an event came that is neither).  Their drawing
        changes ("Thinking…" becomes "Thought (…)"): the event's delta names the first of them
        (see apply_event), or a run cut mid-thought kept "Thinking…" on screen."""
        if s._open_text is not None:
            s._open_text.close()
            s._open_text.version += 1
            s._open_text = None
            self._closed = s._open_text_idx
        if s._open_thinking is not None:
            s._open_thinking.close()
            s._open_thinking.version += 1
            s._open_thinking = None
            i = s._open_thinking_idx
            self._closed = i if self._closed < 0 else min(self._closed, i)

    def _sniff(self, ev: Event) -> None:
        """Name another agent whose content is in a run of this format, from an event the
        format marks as rare (an init, an unknown type or content): a Cursor run holding Claude
        Code's message parts (its first events told Cursor's) is read as far as it goes."""
        if not self.other_agent:
            agent = sniff_agent(ev.data)
            self.other_agent = "" if agent == self.format.AGENT else agent

    def _next_turn(self, a: A.Init) -> tuple[A.Action, bool]:
        """A turn's start (``Init.turn``): the next run of the current one's session when that
        run has its result (a thread's next turn), else nothing more than progress (its first
        turn: the thread's run)."""
        cur = self._current
        if cur is None or cur.result is None:
            return A.Notice(a.session_id, "", "", quiet=True), False
        init = cur.init
        return A.Init(cur.session_id, model=init.model if init else "", cwd=init.cwd if init else "", turn=True,
                      time_ms=a.time_ms), True

    def _init(self, s: Session, a: A.Init, ev: Event) -> Delta:
        s.init = a
        s.init_line = ev.line
        s.format = self.format  # (the run it begins, or the one of only notices it joins, is in its format)
        self._sniff(ev)
        return Delta(Change.HEADER)

    def _user(self, s: Session, a: A.UserText, ev: Event) -> Delta:
        self._close_open(s)
        kind, ref = "prompt", -1
        if a.parent_id:  # the agent's prompt to a sub-agent, under the call it runs in
            kind, ref = "subprompt", s.ref_of(a.parent_id)
        if a.unknown_parts:
            if a.text:
                self._add_block(s, kind, ev.line, a.text, ref=ref)
            return self._unknown_parts(s, a.unknown_parts, ev, Change.TRANSCRIPT)
        return Delta(Change.TRANSCRIPT, block=self._add_block(s, kind, ev.line, a.text, ref=ref))

    def _unknown_parts(self, s: Session, parts: list[str], ev: Event, flags: int) -> Delta:
        """Content the format could not read: shown as unknown, never dropped."""
        self._sniff(ev)
        idx = -1
        for text in parts:
            self.unknown_events += 1
            s.notices.append(NoticeRecord(ev.line, ev.type, "content", text, False))
            idx = self._add_block(s, "unknown", ev.line, f"{ev.type or '(no type)'} {text}")
        return Delta(flags | Change.TRANSCRIPT | Change.HEALTH | Change.UNKNOWN | Change.HEADER, block=idx)

    def _notice(self, s: Session, a: A.Notice, ev: Event) -> Delta:
        if a.quiet:  # (counted among the event types: the health screen)
            return Delta(Change.NONE)
        s.notices.append(NoticeRecord(ev.line, a.event_type, a.subtype, a.text, a.known))
        flags = Change.TRANSCRIPT | Change.HEADER
        if not a.known:
            self._sniff(ev)
            self.unknown_events += 1
            self.unknown_types += 1
            flags |= Change.HEALTH | Change.UNKNOWN
        kind = "unknown" if not a.known else "alert" if a.alert else "notice"
        label = a.event_type + (f"/{a.subtype}" if a.subtype else "") or "(no type)"
        text = f"{label}: {a.text}" if a.text else label
        return Delta(flags, block=self._add_block(s, kind, ev.line, text))

    def _assistant(self, s: Session, a: A.AssistantText, ev: Event) -> Delta:
        if a.parent_id and not a.unknown_parts:
            return self._subagent_text(s, a, ev)
        if a.unknown_parts:
            d = self._assistant_text(s, a, ev) if a.text else Delta(Change.NONE)
            self._close_open(s)  # an unknown part ends the text segment, like a tool call
            return self._unknown_parts(s, a.unknown_parts, ev, d.flags)
        return self._assistant_text(s, a, ev)

    def _subagent_text(self, s: Session, a: A.AssistantText, ev: Event) -> Delta:
        """A sub-agent's message: an entry of its own, under the call it runs in (``ref``), not
        the agent's text (whole messages only: see the format)."""
        if not a.text:
            s.empty_deltas += 1
            return Delta(Change.NONE)
        self._close_open(s)
        return Delta(Change.TRANSCRIPT, block=self._add_block(s, "subagent", ev.line, a.text, ref=s.ref_of(a.parent_id)))

    def _assistant_text(self, s: Session, a: A.AssistantText, ev: Event) -> Delta:
        if s._open_thinking is not None:
            s._open_thinking.close()
            s._open_thinking = None
        open_b = s._open_text
        if not a.text:
            s.empty_deltas += 1
            return Delta(Change.NONE)
        s.said_anything = True
        if open_b is not None and not a.delta_only and (
            a.consolidated or (len(a.text) == open_b.size and a.text == open_b.text)
        ):
            # The CLI re-sent the whole buffered segment: replace the deltas with it.
            open_b.replace(a.text)
            open_b.close()
            s._open_text = None
            return Delta(Change.TRANSCRIPT, block=s._open_text_idx)
        if a.consolidated and not a.delta_only:
            return Delta(Change.TRANSCRIPT, block=self._add_block(s, "assistant", ev.line, a.text))
        if open_b is None:
            idx = self._open_text_block(s, ev.line, a.text)
            return Delta(Change.TRANSCRIPT, block=idx)
        open_b.append(a.text)
        return Delta(Change.TRANSCRIPT, block=s._open_text_idx)

    def _thinking(self, s: Session, a: A.Thinking, ev: Event) -> Delta:
        if a.parent_id:  # a sub-agent's whole thought: apart from the agent's own, under its call
            self._close_open(s)
            text = a.text if self.keep_history else ""
            return Delta(Change.THINKING, block=self._add_block(s, "thinking", ev.line, text, ref=s.ref_of(a.parent_id)))
        if a.whole:  # the whole thought: what its deltas wrote so far, if any, becomes it; it ends
            if s._open_thinking is None:
                self._open_thinking_block(s, ev.line, a.text)
            elif a.text and self.keep_history:
                s._open_thinking.replace(a.text)
        if a.done or a.whole:
            idx = s._open_thinking_idx
            if s._open_thinking is not None:
                s._open_thinking.close()
                s._open_thinking.version += 1
                s._open_thinking = None
            return Delta(Change.THINKING, block=idx)
        if not a.text:
            s.empty_deltas += 1
        if s._open_thinking is None:
            idx = self._open_thinking_block(s, ev.line, a.text)
            return Delta(Change.THINKING, block=idx)
        if a.text and self.keep_history:
            s._open_thinking.append(a.text)
        return Delta(Change.THINKING, block=s._open_thinking_idx)

    def _thinking_run(self, s: Session, run: Run) -> Delta:
        """Like :meth:`_thinking` for each text of the run."""
        texts = run.texts
        s.empty_deltas += texts.count("")
        if s._open_thinking is None:  # (the delta before the run opened it; kept for safety)
            self._open_thinking_block(s, run.line, texts[0])
            texts = texts[1:]
        if self.keep_history:
            joined = "".join(texts)
            if joined:
                s._open_thinking.append(joined)
        return Delta(Change.THINKING, block=s._open_thinking_idx)

    def _assistant_run(self, s: Session, run: Run) -> Delta:
        """Like :meth:`_assistant_text` for each text of the run (deltas: never consolidated),
        with one append for the texts that only go on with the open segment."""
        if s._open_thinking is not None:
            s._open_thinking.close()
            s._open_thinking = None
        first = -1
        b = s._open_text
        size = b.size if b is not None else 0  # the open segment's length, pending texts included
        pending: list[str] = []
        said = False
        for i, text in enumerate(run.texts):
            if not text:
                s.empty_deltas += 1
                continue
            said = True
            if b is None:
                idx = self._open_text_block(s, run.line + i, text)
                b = s._open_text
                size = len(text)
                if first < 0:
                    first = idx
                continue
            if first < 0:
                first = s._open_text_idx
            if len(text) == size:  # maybe the CLI re-sent the whole segment (see _assistant_text)
                if pending:
                    b.append("".join(pending))
                    pending = []
                if text == b.text:
                    b.replace(text)
                    b.close()
                    s._open_text = b = None
                    continue
            pending.append(text)
            size += len(text)
        if pending:
            b.append("".join(pending))  # type: ignore[union-attr]
        if said:
            s.said_anything = True
        return Delta(Change.TRANSCRIPT if first >= 0 else Change.NONE, block=first)

    def _new_tool(self, s: Session, call_id: str, ev: Event) -> ToolCall:
        self._close_open(s)
        if not self.keep_history:
            s.forget_finished(self._batch_keep)
        t = ToolCall(len(s.tools), call_id)
        s.tools.append(t)
        s.status_counts["running"] += 1
        if call_id:  # (calls without one are told apart by their order: see _running_without_id)
            s.tool_by_id[call_id] = t.index
        t.block = self._add_block(s, "tool", ev.line, ref=t.index)
        return t

    @staticmethod
    def _running_without_id(s: Session, info: A.ToolInfo | None, update: bool = False) -> int | None:
        """The call a completion without a call id completes, among the last NO_ID_LOOKBACK
        calls without one, of its kind: the running one of its target (calls side by side
        finish in any order), else the first started still running; else one that completed
        with that target already (the same completion again: 2>&1).  Two such calls were one
        before: the second start was taken for a repeat of the first.  A completion that says
        no kind (Claude Code's, Gemini CLI's: the start has it) is of any kind; an ``update``
        (the call as it is now) is of the latest call of its kind."""
        kind = (info.kind_key or None) if info is not None else None
        target = info.target if info is not None else ""
        first = same = done = None
        tools = s.tools
        for i in range(len(tools) - 1, max(-1, len(tools) - 1 - NO_ID_LOOKBACK), -1):
            t = tools[i]
            if t.call_id or (kind is not None and t.kind_key != kind):
                continue
            if update:
                return i
            if t.status == "running":
                first = i
                if target and t.target == target:
                    same = i
            elif done is None and target and t.target == target:
                done = i
        return same if same is not None else first if first is not None else done

    def _share(self, text: str) -> str:
        """One object for equal strings: a run repeats its paths, commands, summaries, labels
        and turn ids, and each event (each worker's reply) brings its own copy (a 1 GB run's
        85k calls kept about 15 MB of copies).  A dict of the model's own, not sys.intern:
        interned strings are never freed on some Python versions (3.12.0 to 3.12.5)."""
        cache = self._strings
        if cache is None or type(text) is not str:
            return text
        return cache.setdefault(text, text)

    def _fill(self, t: ToolCall, info: A.ToolInfo | None) -> None:
        share = self._share
        if info is None:
            return
        if info.kind_key and (info.kind_key != "unknown" or t.kind_key == "unknown"):
            t.kind_key = share(info.kind_key)
            t.label = share(info.label)
            t.short = share(info.short or info.label)
        if info.target:
            t.target = share(info.target)
        if info.detail:
            t.detail = share(info.detail)
        if info.started_ms is not None:
            t.started_ms = info.started_ms
        if info.completed_ms is not None:
            t.completed_ms = info.completed_ms

    def _tool_started(self, s: Session, a: A.ToolStarted, ev: Event) -> Delta:
        idx = s.tool_by_id.get(a.call_id) if a.call_id else None  # (no id: a call of its own)
        if idx is None and a.call_id in s.started_late:  # (let go of: its completion came first)
            s.started_late.discard(a.call_id)
            return Delta(Change.NONE)
        if idx is not None and (s.tools[idx].status == "running" or (
                s.tools[idx].status == "unfinished" and s.tools[idx].start_ref is not None)):
            # (unfinished: by its run's result, then started again: the same call, a copy)
            t = s.own_tool(idx)
            if t.early and not a.early:
                # Its arguments, whole: its start (the call was shown as they were written, since
                # the arrival it keeps).  Its event is this one; what the first said goes.
                t.early, t.detail = False, ""
                t.start_line, t.start_ref = ev.line, make_ref(ev.offset, ev.length)
                t.start_ts = a.timestamp_ms if a.timestamp_ms is not None else t.start_ts
                t.turn_id = self._share(a.turn_id) or t.turn_id
                self._fill(t, a.info)
                return Delta(Change.TOOLS | Change.HEADER, tool=idx)
            t.duplicates += 1  # the same start again (e.g. stderr mirrored into stdout)
            self._fill(t, a.info)
            return Delta(Change.TOOLS | Change.HEALTH, tool=idx)
        if idx is not None and s.tools[idx].start_ref is None:
            # Its completion came first (out of order): this is its start, not another call's
            # (which stayed "unfinished" for ever).  What the completion said stays.
            t = s.own_tool(idx)
            t.start_ts, t.start_arrival, t.start_line = a.timestamp_ms, ev.arrival, ev.line
            t.start_ref = make_ref(ev.offset, ev.length)
            if a.info is not None:
                t.target = t.target or self._share(a.info.target)
                if t.started_ms is None:
                    t.started_ms = a.info.started_ms
                if t.kind_key == "unknown" and a.info.kind_key != "unknown":  # (a result says no kind: Claude Code's)
                    t.kind_key, t.label = self._share(a.info.kind_key), self._share(a.info.label)
                    t.short = self._share(a.info.short or a.info.label)
            return Delta(Change.TOOLS | Change.HEADER, tool=idx)
        t = self._new_tool(s, a.call_id, ev)
        t.turn_id = self._share(a.turn_id)
        t.start_ts = a.timestamp_ms
        t.start_arrival = ev.arrival
        t.start_line = ev.line
        t.start_ref = make_ref(ev.offset, ev.length)
        t.early = a.early
        self._fill(t, a.info)
        if a.parent_id:  # a sub-agent's call
            t.parent = self._share(a.parent_id)
            s.subcalls[t.parent] = s.subcalls.get(t.parent, 0) + 1
        if s.starting:
            self._join_group(s, t)
        s.starting = True
        return Delta(Change.TOOLS | Change.TRANSCRIPT | Change.HEADER, tool=t.index)

    @staticmethod
    def _join_group(s: Session, t: ToolCall) -> None:
        """``t`` started right after another call, before any call ended: it joins that call's
        group, if that one still runs and is of its model turn (when both say theirs: the
        sub-agent's first call after its Task is not the Task's peer).  A call whose end never
        comes is joined only by the next one, not by every later call."""
        if not t.index:
            return
        o = s.tools[t.index - 1]
        if o.status == "running" and (o.turn_id == t.turn_id or not o.turn_id or not t.turn_id):
            if not o.group:
                o = s.own_tool(o.index)
                s.groups += 1
                o.group = s.groups
            t.group = o.group

    def _tool_completed(self, s: Session, a: A.ToolCompleted, ev: Event) -> Delta:
        idx = s.tool_by_id.get(a.call_id) if a.call_id else self._running_without_id(s, a.info, a.update)
        flags = Change.TOOLS | Change.HEADER
        if not a.update:  # (a to-do list ticked off is no call ending)
            s.starting = False
        if idx is None:
            t = self._new_tool(s, a.call_id, ev)  # joined mid-stream: no start seen
            t.turn_id = self._share(a.turn_id)
            flags |= Change.TRANSCRIPT
        else:
            t = s.own_tool(idx)
            if t.end_ref is not None and not a.update:
                t.duplicates += 1  # the same completion again
                flags |= Change.HEALTH
        if a.update and t.call_id:
            s.updated.add(t.call_id)
        if a.start and t.start_ref is None:  # (begun done: where it began, not when: no duration)
            t.start_line, t.start_ref = ev.line, make_ref(ev.offset, ev.length)
        self._fill(t, a.info)
        if a.info is not None:
            if a.info.status == "rejected" or (a.info.status == "failed" and not a.info.detail):
                # What its arguments said it would do ("1 line", a Write's; a declined Codex
                # change's "1 added") was not done: read "⊘ Write spike.txt · 1 line" as if the
                # file had been written (a trial).  A rejected call did nothing; a failed one
                # keeps what its completion says of it ("exit 1").
                t.detail = ""
            s.set_status(t, a.info.status)
            t.outcome = self._share(a.info.outcome)
            t.error_text = a.info.error_text
        else:  # pragma: no cover - the format always gives info
            s.set_status(t, "unknown")
        t.end_ts = a.timestamp_ms
        t.end_arrival = ev.arrival
        t.end_line = ev.line
        t.end_ref = make_ref(ev.offset, ev.length)
        return Delta(flags, tool=t.index)

    def _query(self, s: Session, a: A.Query, ev: Event) -> Delta:
        self._close_open(s)
        kind_name = a.label or a.query_type or "Query"
        if a.phase == "response" and a.query_id in s._queries:
            bi = s._queries[a.query_id]
            b = s.blocks[bi]
            head, sep, asked = b.text.partition("\n")  # (the answer goes on its first line)
            b.replace(f"{head} → {a.title or 'answered'}{sep}{asked}")
            return Delta(Change.TRANSCRIPT, block=bi)
        text = f"{kind_name}: {a.title}" if a.title else kind_name
        if a.phase == "response":
            text = f"{kind_name} answered: {a.title or '(no details)'}"
        elif a.details:  # what it asks, a line each under it
            text += "\n" + a.details
        idx = self._add_block(s, "query", ev.line, text)
        if a.phase == "request" and a.query_id:
            s._queries[a.query_id] = idx
        return Delta(Change.TRANSCRIPT, block=idx)

    def _result(self, s: Session, a: A.Result, ev: Event) -> Delta:
        if a.failed:
            self._mark_cut(s)  # the failure stopped the text being written
        self._close_open(s)
        s.result = r = ResultInfo(
            a.subtype, a.is_error, a.duration_ms, a.duration_api_ms, a.text, a.request_id,
            a.tokens, ev.line, a.session_id, cost_usd=a.cost_usd,
        )
        unsaid = ""
        if a.text and not a.is_error and self.keep_history:
            said = s.assistant_segments[-1:] if a.last_only else s.assistant_segments
            s.result_mismatch = not _spells(a.text, said)
            if s.result_mismatch:
                unsaid = _unsaid(a.text, "".join(said))
            elif a.subtype in ("success", "") and not a.last_only:
                # Kept once, in the transcript.  (A failure's text is shown with it, and a last
                # message is small: kept.)
                r.text, r.in_transcript = "", True
        # The block holds what the result says that the transcript does not (an error, or the
        # part of its text the transcript lacks): shown under the result line, and searchable.
        idx = self._add_block(s, "result", ev.line, a.text if a.is_error else unsaid)
        d = Delta(Change.RESULT | Change.HEADER | Change.TRANSCRIPT, s.index, block=idx)
        # The run is over: a call it left running will not end (it ran on, its clock too, in
        # the list; and text mode told it after the run's summary).  A late completion of one
        # still says how it went (see _tool_completed).  Each is a change of its own (the
        # transcript redraws its line).
        cut = [Delta(Change.TOOLS, s.index, tool=i) for i in self._cut_running(s)]
        return Delta(d.flags | Change.TOOLS, tool=-1, block=idx, more=[d, *cut]) if cut else d

    def _batch(self, s: Session, a: A.Batch, ev: Event) -> Delta:
        """Each action of the event in turn: a delta with all their flags, the first one's tool
        and block, and each action's own delta in ``more``.

        Without history, a call an action starts lets go of finished calls and blocks, and
        renumbers the rest (see Session.forget_finished): what the actions before it touched is
        kept, and their deltas are renumbered after the last (the text printer says each)."""
        handlers = self._handlers
        if self.keep_history:
            parts = [handlers[type(part)](self, s, part, ev) for part in a.actions]
        else:
            parts, touched = [], []
            self._batch_keep = keep = set()
            try:
                for part in a.actions:
                    d = handlers[type(part)](self, s, part, ev)
                    t = s.tools[d.tool] if 0 <= d.tool < len(s.tools) else None
                    b = s.blocks[d.block] if 0 <= d.block < len(s.blocks) else None
                    keep.update(id(x) for x in (t, b) if x is not None)
                    parts.append(d)
                    touched.append((t, b))
            finally:
                self._batch_keep = None
            where = {id(x): i for i, x in enumerate(s.tools)}
            where.update((id(x), i) for i, x in enumerate(s.blocks))
            for d, (t, b) in zip(parts, touched):
                d.tool = where.get(id(t), -1) if t is not None else -1
                d.block = where.get(id(b), -1) if b is not None else -1
        if not parts:
            return Delta(Change.NONE)
        flags = 0
        for d in parts:
            d.session = s.index
            flags |= d.flags
        first = parts[0]
        return Delta(flags, tool=first.tool, block=first.block, more=parts)

    _handlers = {
        A.Batch: _batch,
        A.AssistantText: _assistant,
        A.Thinking: _thinking,
        A.ToolStarted: _tool_started,
        A.ToolCompleted: _tool_completed,
        A.Init: _init,
        A.UserText: _user,
        A.Result: _result,
        A.Query: _query,
        A.Notice: _notice,
    }

    # -- queries for views -----------------------------------------------------------
    @property
    def foreign(self) -> bool:
        """Events arrived, and the format knows none of their types: another agent's stream."""
        return self.events > self.duplicates and self.unknown_types >= self.events - self.duplicates

    def lines_accounted(self, blank_lines: int = 0) -> int:
        return self.lines_in_events + self.malformed_lines + blank_lines
