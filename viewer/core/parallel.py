"""Decoding a big saved file on every core.

Parsing JSON and interpreting events is pure Python work that holds the GIL, so
a thread cannot share it; a second process can.  For a big regular file,
:class:`Workers` starts a few worker processes (``python -m
viewer.core.parallel FORMAT PATH``) and hands each a *segment*: a byte range of
whole lines, a few MB long.  A worker decodes its lines exactly as the
:class:`~viewer.core.decode.Decoder` would, interprets the events with the
format (so the model does not have to), and sends back compact tuples, which
:func:`take` turns into records again, in file order, in the process that
applies them.

Segments are independent except at their edges, and those are handled exactly:

* line numbers are counted from the segment's start and shifted by the lines
  before it (:func:`take` knows them);
* a segment's first line is never joined to a run of text deltas, which the
  model applies the same either way;
* whether its first line repeats the line before (``Event.repeat``) is decided
  by :func:`take`, which has that line (a digest of the first line comes back);
* a line broken across a segment's edge (the decoder still had lines pending,
  waiting to be glued to what follows) makes :func:`take` decode that segment
  in the applying process instead, from the bytes, where the decoder has the
  whole context.

A worker that fails or exits leaves the rest of the file to the applying
process: the file is still read whole, only slower.
"""

from __future__ import annotations

import functools
import marshal
import os
import selectors
import struct
import sys
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass, fields, is_dataclass
from typing import TYPE_CHECKING, Any, get_args, get_origin, get_type_hints

from viewer.core import actions as A
from viewer.core.decode import Event, Malformed, Record, Run
from viewer.core.sources import Ingest

if TYPE_CHECKING:
    import subprocess

#: Bytes per segment: big enough that per-segment costs vanish, small enough that the
#: first results come soon and a slow segment does not hold the others up for long.
SEGMENT_BYTES = 4 << 20
#: Bytes the applying process decodes itself at the start of a file, before the workers'
#: first segments are back (the app starts them before it imports its UI, about 0.1 s ahead).
FIRST_BYTES = 4 << 20
#: Below this size one process decodes the file sooner than workers can help.
MIN_PARALLEL_BYTES = 16 << 20
#: ... and below this many bytes after the first segment, too.
MIN_WORKER_BYTES = 8 << 20
MAX_WORKERS = 3
#: Segments requested ahead of the one the applying process waits for (bounds memory).
AHEAD = 6
#: ``AGENT_VIEWER_WORKERS=0`` decodes every file in one process (``=N``: N workers).
ENV_WORKERS = "AGENT_VIEWER_WORKERS"

#: A reply: this magic, its length, then the marshal bytes.
_MAGIC = b"AVw1"
_HEADER = struct.Struct("<4sQ")
_READ = 1 << 20
#: A worker that sends nothing for this long while a segment is awaited is given up on.
STALL_SECONDS = 30.0
#: Bumped when requests or replies change shape (see :func:`layout`).
PROTOCOL = 2

# -- actions as tuples ----------------------------------------------------------------
# marshal is several times faster than pickle, but knows only plain values: a dataclass
# (an action, a ToolInfo) travels as a tuple of a tag and its fields.  The packing and
# unpacking functions are generated per class, as dataclasses generates ``__init__``:
# a generic loop of getattr/setattr took half of the applying process's share.

_TYPES: list[type] = [
    v for _, v in sorted(vars(A).items()) if isinstance(v, type) and is_dataclass(v) and v.__module__ == A.__name__
]
_TAG = {cls: i for i, cls in enumerate(_TYPES)}
#: Actions whose event object the model never reads again (only their action).
_LEAN = (A.Thinking, A.AssistantText, A.ToolStarted, A.ToolCompleted)


def _nested(cls: type) -> set[str]:
    """Fields of ``cls`` that hold one of these dataclasses (or None).  Anything else travels
    as it is: marshal takes plain values, and a value it cannot take fails the segment, which
    is then decoded by the applying process (slower, nothing lost)."""
    try:
        hints = get_type_hints(cls)
    except Exception:  # noqa: BLE001 - an annotation that cannot be resolved: assume none
        return set()
    out = set()
    for f in fields(cls):
        hint = hints.get(f.name)
        parts = set(get_args(hint)) - {type(None)} if get_args(hint) else {hint}
        if len(parts) == 1 and next(iter(parts)) in _TAG and (not get_args(hint) or type(None) in get_args(hint)):
            out.add(f.name)
    return out


def _listed(cls: type) -> set[str]:
    """Fields of ``cls`` that hold a list of these dataclasses (a Batch's actions)."""
    try:
        hints = get_type_hints(cls)
    except Exception:  # noqa: BLE001 - as in _nested
        return set()
    return {f.name for f in fields(cls)
            if get_origin(hints.get(f.name)) is list and all(x in _TAG for x in get_args(hints[f.name]))}


def _codec(cls: type) -> tuple[Callable[[Any], tuple], Callable[[tuple], Any]]:
    """(pack, unpack) for one dataclass of :mod:`viewer.core.actions`.  Unpacking sets the
    fields on a bare instance (no ``__init__``, so no ``__post_init__`` runs twice)."""
    nested, listed = _nested(cls), _listed(cls)
    names = [f.name for f in fields(cls)]
    frozen = cls.__dataclass_params__.frozen  # type: ignore[attr-defined]

    def get(name: str) -> str:
        if name in listed:
            return f"tuple(map(_pack, o.{name}))"
        return f"(None if o.{name} is None else _pack(o.{name}))" if name in nested else f"o.{name}"

    def put(i: int, name: str) -> str:
        if name in listed:
            v = f"list(map(_unpack, t[{i}]))"
        else:
            v = f"(None if t[{i}] is None else _unpack(t[{i}]))" if name in nested else f"t[{i}]"
        return f"    setattr_(o, {name!r}, {v})\n" if frozen else f"    o.{name} = {v}\n"

    src = (
        f"def pack(o):\n    return ({_TAG[cls]}, {', '.join(get(n) for n in names)})\n"
        f"def unpack(t):\n    o = new(cls)\n" + "".join(put(i + 1, n) for i, n in enumerate(names)) + "    return o\n"
    )
    scope: dict[str, Any] = {"cls": cls, "new": cls.__new__, "setattr_": object.__setattr__,
                             "_pack": _pack, "_unpack": _unpack}
    exec(src, scope)  # noqa: S102 - generated from the dataclass's own field names
    return scope["pack"], scope["unpack"]


def _pack(obj: Any) -> tuple:
    return _PACK[type(obj)](obj)


def _unpack(t: tuple) -> Any:
    return _UNPACK[t[0]](t)


_PACK: dict[type, Callable[[Any], tuple]] = {}
_UNPACK: list[Callable[[tuple], Any]] = []


def _codecs() -> None:
    """Generate the codecs, once, when first needed (not at every ``--print`` start)."""
    if not _UNPACK:
        codecs = [_codec(cls) for cls in _TYPES]
        _PACK.update((cls, c[0]) for cls, c in zip(_TYPES, codecs))
        _UNPACK.extend(c[1] for c in codecs)


@functools.cache
def layout() -> bytes:
    """The classes and fields the tags stand for: a worker running other code (another version
    of the package) is told by its replies, which carry this."""
    import hashlib

    return hashlib.blake2b(
        repr((PROTOCOL, [(cls.__name__, [f.name for f in fields(cls)]) for cls in _TYPES])).encode(),
        digest_size=8,
    ).digest()


# -- the worker's side ----------------------------------------------------------------


def _digest(raw: bytes) -> bytes:
    import hashlib

    return hashlib.blake2b(raw, digest_size=16).digest()


class _Encoder:
    """Records as tuples, in file order, events interpreted, a chunk at a time (a worker holds
    the parsed objects of one chunk, not of its whole segment).

    An event's object is dropped when the model will not read it again.  It does for rare
    events (an init, a notice, unknown content), for a rejoined event and the event or run
    before one (to tell a mirrored copy), and for the segment's last event or run (the next
    segment may start with a rejoined one).  So the last event or run keeps its record until
    the next one is known, and gets its object back then if it needs it."""

    def __init__(self, interpret: Callable[[Event], Any]) -> None:
        self.interpret = interpret
        self.items: list[tuple] = []
        self._at = -1  # index in items of the last event or run
        self._rec: Event | Run | None = None  # ... and its record
        self.first: Event | None = None  # the segment's first record, when an event

    def add(self, recs: list[Record]) -> None:
        items = self.items
        if recs and not items and type(recs[0]) is Event:
            self.first = recs[0]  # type: ignore[assignment]
        for r in recs:
            t = type(r)
            if t is Event:
                a = self.interpret(r)
                multi = r.line_count > 1
                if multi:
                    self._keep()
                keep = multi or type(a) not in _LEAN or getattr(a, "unknown_parts", None)
                self._at, self._rec = len(items), r  # type: ignore[assignment]
                items.append((0, r.line, r.line_count, r.offset, r.length, r.type, r.subtype, r.repeat, _pack(a),
                              r.data if keep else None))
            elif t is Run:
                self._at, self._rec = len(items), r  # type: ignore[assignment]
                items.append((1, r.kind, r.type, r.session_id, r.line, r.texts, r.first_ms, r.last_ms, None,
                              r.last_length))
            elif t is Malformed:
                items.append((2, r.line, r.offset, r.length, r.reason, r.preview))
            else:  # pragma: no cover - a file has no restarts
                raise TypeError(f"unexpected record {r!r}")

    def _keep(self) -> None:
        """The last event or run gets its object (a run: its last line's)."""
        if self._at < 0:
            return
        item, r = self.items[self._at], self._rec
        if item[0] == 0:
            self.items[self._at] = item[:9] + (r.data,)  # type: ignore[union-attr]
        else:
            self.items[self._at] = item[:8] + (r.last_data,) + item[9:]  # type: ignore[union-attr]

    def finish(self) -> list[tuple]:
        self._keep()
        self._rec = None
        return self.items


#: Malformed lines a segment sends back in mode ``markers`` (the printer lists the first 20
#: of a file on stderr, and counts the rest).
MALFORMED_SENT = 32


class _Markers:
    """For ``--print --output-format json`` (mode ``markers``): what the format's
    ``run_marker`` says of each event, read as lean as the printer itself reads a line.

    Items are ``(session id, marker, result object or None, told)`` for an init, a result or
    an unknown type, and for the segment's first ``keep_first`` events; ``told`` is the name
    of the format ``formats.detect`` says the event is in, or "" (the printer looks at inits,
    unknown types and the input's first events for the format and for another agent's signs),
    so only a result's object travels.  The
    other events in between only count: they come as ``(how many, the last session id among
    them)``.  A malformed line comes as ``(line within the segment, offset, length, reason,
    preview)``."""

    def __init__(self, run_marker: Callable[[dict], tuple[str | None, str]], keep_first: int,
                 sniff: Callable[[dict], str]) -> None:
        self.run_marker = run_marker
        self.keep_first = keep_first
        self.sniff = sniff
        self.items: list[tuple] = []
        self.first: Event | None = None  # (no repeat to tell: the printer counts every event)
        self._seen = 0  # events so far
        self._count = 0  # plain events not yet in items
        self._sid: str | None = None  # the last session id among them
        self._malformed = 0  # malformed lines in items

    def event(self, data: dict) -> None:
        sid, marker = self.run_marker(data)
        self._seen += 1
        if marker or self._seen <= self.keep_first:
            self._flush()
            if marker == "result":
                self.items.append((sid, marker, data, ""))
            else:
                self.items.append((sid, marker, None, self.sniff(data)))
        else:
            self._count += 1
            if sid is not None:
                self._sid = sid

    def add(self, recs: list[Record]) -> None:
        for r in recs:
            self._record(r)

    def _flush(self) -> None:
        if self._count:
            self.items.append((self._count, self._sid))
            self._count, self._sid = 0, None

    def finish(self) -> list[tuple]:
        self._flush()
        return self.items

    def read(self, ing: Ingest, chunk: bytes) -> None:
        """The lines of ``chunk``, read as the printer reads them (see
        :meth:`~viewer.core.decode.Decoder.feed_objects`)."""
        ing.bytes_read += len(chunk)
        ing.decoder.feed_objects(ing.splitter.feed(chunk), self.event, self._record)

    def _record(self, r: Record) -> None:
        if type(r) is Event:
            self.event(r.data)
        elif type(r) is Malformed and self._malformed < MALFORMED_SENT:
            # (line within the segment, offset, length, reason, preview): the printer lists them
            self._flush()
            self.items.append((r.line, r.offset, r.length, r.reason, r.preview))
            self._malformed += 1


def decode_segment(fd: int, start: int, end: int, fmt: Any, mode: str = "events", keep_first: int = 0) -> tuple:
    """Decode the lines of ``[start, end)`` (``end`` -1: to the end of the file) as the
    decoder would if they came after a line that was whole.  Returns the reply tuple that
    :func:`take` (mode ``events``) or a printer (mode ``markers``) reads (see :class:`Segment`)."""
    markers = mode == "markers"
    if not markers:
        _codecs()
    ing = Ingest(offset=start, runs=None if markers else fmt.run_line)
    dec = ing.decoder
    if start > 0:
        dec.first_line = 0  # only the file's own first line may carry a BOM
    if markers:
        from viewer.core.formats import told_name

        enc: _Encoder | _Markers = _Markers(fmt.run_marker, keep_first, told_name)
    else:
        enc = _Encoder(fmt.interpret)
    final = end < 0
    pos = start
    while final or pos < end:
        chunk = os.pread(fd, _READ if final else min(_READ, end - pos), pos)
        if not chunk:
            break
        pos += len(chunk)
        if markers:
            enc.read(ing, chunk)  # type: ignore[union-attr]
        else:
            enc.add(ing.feed(chunk))
    pending = dec.has_pending or ing.splitter.partial_bytes > 0
    if final:
        enc.add(ing.close())
        pending = False
    first = None
    ev = enc.first
    if ev is not None and ev.line == 1 and ev.line_count == 1:
        raw = os.pread(fd, ev.length, ev.offset)
        first = (len(raw), _digest(raw))
    prev = dec.prev_raw
    items = enc.finish()
    rss = _peak_rss_kb()
    return (True, layout(), start, pos, dec.lines_seen, dec.blank_lines, dec.events, dec.malformed, dec.rejoined,
            pending, None if prev is None else bytes(prev), first, items, rss)


def _peak_rss_kb() -> int:
    """This process's peak RSS (VmHWM: ``ru_maxrss`` would count the parent's, from before
    the exec)."""
    try:
        with open("/proc/self/status", "rb") as f:
            for line in f:
                if line.startswith(b"VmHWM:"):
                    return int(line.split()[1])
    except (OSError, ValueError, IndexError):  # pragma: no cover - not on Linux
        pass
    return 0


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        n = os.write(fd, view)
        view = view[n:]


def worker_main(argv: list[str]) -> int:
    """``worker FORMAT FD REPLY_FD``: read ``START END [MODE KEEP_FIRST]`` lines on stdin,
    answer each on REPLY_FD (a pipe of its own: nothing else the process prints can be taken
    for a reply); end at end of input."""
    import gc

    from viewer.core.formats import get_format

    gc.disable()  # nothing here makes cycles; collections would only cost time
    trim = _malloc_trim()
    fmt = get_format(argv[0])
    fd = int(argv[1])  # the file, opened once by the applying process (the same one it reads)
    out = int(argv[2]) if len(argv) > 2 else sys.stdout.fileno()
    for line in sys.stdin.buffer:
        try:
            words = line.split()
            mode, keep_first = (words[2].decode(), int(words[3])) if len(words) > 2 else ("events", 0)
            reply = marshal.dumps(decode_segment(fd, int(words[0]), int(words[1]), fmt, mode, keep_first))
        except Exception as exc:  # noqa: BLE001 - reported to the applying process, which goes on alone
            reply = marshal.dumps((False, f"{type(exc).__name__}: {exc}"))
        try:
            _write_all(out, _HEADER.pack(_MAGIC, len(reply)))
            _write_all(out, reply)
        except BrokenPipeError:
            return 0
        del reply
        trim()  # give the segment's memory back: the worker waits with about 25 MB, not its peak
    return 0


def _malloc_trim() -> Callable[[], object]:
    """glibc's ``malloc_trim(0)`` (a no-op elsewhere): freed memory goes back to the system."""
    try:
        import ctypes

        return functools.partial(ctypes.CDLL("libc.so.6").malloc_trim, 0)
    except (OSError, AttributeError, ImportError):  # pragma: no cover - not glibc
        return lambda: None


# -- the applying process's side ----------------------------------------------------


@dataclass(slots=True)
class Segment:
    """A worker's reply for the lines of ``[start, end)``."""

    start: int
    end: int  # where the worker stopped (the end of the file, for the last segment)
    ok: bool
    error: str = ""
    lines: int = 0
    blank: int = 0
    events: int = 0
    malformed: int = 0
    rejoined: int = 0
    #: Lines were still pending at the end: the next line may belong to them.
    pending: bool = False
    prev_raw: bytes | None = None  # the segment's last event line, for the next one's repeat
    first: tuple[int, bytes] | None = None  # length and digest of the first line, when an event
    items: list[tuple] | None = None
    rss_kb: int = 0

    @classmethod
    def from_reply(cls, start: int, end: int, reply: bytes) -> Segment:
        r = marshal.loads(reply)
        if not r[0]:
            return cls(start, end, False, error=r[1])
        if r[1] != layout():
            return cls(start, end, False, error="a worker runs another version of agent-viewer")
        return cls(r[2], r[3], True, "", *r[4:])


def take(ingest: Ingest, seg: Segment) -> list[Record] | None:
    """The records of a worker's segment, numbered after the lines the ingest has seen; the
    ingest goes on after them.  None when the segment cannot be taken as it is (lines pending
    at one of its edges may be glued to the other side): the caller decodes its bytes."""
    dec = ingest.decoder
    if not seg.ok or seg.pending or dec.has_pending or ingest.splitter.partial_bytes:
        return None
    _codecs()
    base = dec.lines_seen
    out: list[Record] = []
    append = out.append
    new_event = Event.__new__
    for t in seg.items or ():
        kind = t[0]
        if kind == 0:
            ev = new_event(Event)
            ev.line = t[1] + base
            ev.line_count = t[2]
            ev.offset = t[3]
            ev.length = t[4]
            ev.type = t[5]
            ev.subtype = t[6]
            ev.repeat = t[7]
            ev.action = _unpack(t[8])
            ev.data = t[9]
            ev.arrival = None
            append(ev)
        elif kind == 1:
            append(Run(t[1], t[2], t[3], t[4] + base, t[5], t[6], t[7], None, t[8], t[9]))
        else:
            append(Malformed(t[1] + base, t[2], t[3], t[4], t[5]))
    first = out[0] if out else None
    if seg.first is not None and type(first) is Event and first.line == base + 1:
        prev = dec.prev_raw
        n, digest = seg.first
        if prev is not None and len(prev) == n and _digest(prev) == digest:
            first.repeat = True
    dec.skip(seg.lines, seg.blank, seg.events, seg.malformed, seg.rejoined, seg.prev_raw)
    ingest.splitter.offset = seg.end
    ingest.bytes_read += seg.end - seg.start
    return out


def worker_count() -> int:
    """How many workers to start: none on one core, else one per core up to MAX_WORKERS
    (the applying process is often waiting for them, so two cores take two)."""
    env = os.environ.get(ENV_WORKERS, "").strip()
    if env:
        try:
            return max(0, min(int(env), 8))
        except ValueError:
            pass
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not on Linux
        cores = os.cpu_count() or 1
    return 0 if cores < 2 else min(cores, MAX_WORKERS)


def plan(fd: int, size: int, segment: int = SEGMENT_BYTES, first: int = FIRST_BYTES) -> list[tuple[int, int]]:
    """Segments of whole lines: about ``first`` bytes, then about ``segment`` bytes each, up to
    ``size``.  A file still being written may have more by the time it is read, and its last
    line may be unfinished: whoever reads the segments reads what follows the last one."""
    bounds = [0]
    segment, pos = max(1, segment), max(1, first)
    while pos < size:
        start = _next_line_start(fd, pos, size)
        if start is None or start >= size:
            break
        bounds.append(start)
        pos = start + segment
    return [(a, b) for a, b in zip(bounds, bounds[1:])] + [(bounds[-1], size)]


def worth_it(todo: list[tuple[int, int]], size: int, min_bytes: int = MIN_WORKER_BYTES) -> bool:
    """Whether workers would have enough to do: at least ``min_bytes`` after the first segment
    (a file that is mostly one huge first line is read by the app alone, and no worker is
    started only to wait)."""
    return len(todo) > 1 and size - todo[1][0] >= min_bytes


def _next_line_start(fd: int, pos: int, size: int) -> int | None:
    """The first line start at or after ``pos`` (the byte after a newline), if any."""
    at = pos - 1
    while at < size:
        block = os.pread(fd, 1 << 16, at)
        if not block:
            return None
        i = block.find(b"\n")
        if i >= 0:
            return at + i + 1
        at += len(block)
    return None


class WorkerError(Exception):
    """A worker failed or went away: the rest of the file is decoded without workers."""


class _Worker:
    def __init__(self, proc: subprocess.Popen, fd: int) -> None:
        self.proc = proc
        self.fd = fd  # the read end of its reply pipe
        self.buf = bytearray()
        self.inflight: deque[int] = deque()


class Workers:
    """Worker processes decoding segments of one file; replies come back in file order."""

    #: How a worker is started (followed by the format's name and the file's descriptor).  Run
    #: from the package's own directory: ``-c`` puts the current directory first on the path,
    #: and a user's directory may hold modules of the same names.
    command: tuple[str, ...] = (
        sys.executable, "-c",
        "import sys; from viewer.core.parallel import worker_main; sys.exit(worker_main(sys.argv[1:]))",
    )

    def __init__(self, fd: int, fmt_name: str, count: int, mode: str = "events", keep_first: int = 0) -> None:
        """Start ``count`` workers on the open file ``fd`` (they get the descriptor itself, so
        all read one file, even if its path is replaced meanwhile).  ``mode``: ``events``
        (records for the model) or ``markers`` (for ``--print`` json, see :class:`_Markers`)."""
        self.format_name = fmt_name
        self._mode = b"" if mode == "events" else b" %s %d" % (mode.encode(), keep_first)
        self.peak_rss_kb = 0  # the biggest worker's peak RSS so far
        self._lock = threading.Lock()
        self._workers: list[_Worker] = []
        self._todo: list[tuple[int, int]] = []
        self._sent = 0
        self._heard = 0.0  # when a worker last sent anything
        import subprocess  # (here: 2 ms of every start that needs no worker)

        env = dict(os.environ)
        # Importable from wherever the package is, installed or run from a source tree.
        root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
        env["PYTHONPATH"] = os.pathsep.join(p for p in (root, env.get("PYTHONPATH", "")) if p)
        try:
            for _ in range(count):
                r, w = os.pipe()
                try:
                    proc = subprocess.Popen(
                        [*self.command, fmt_name, str(fd), str(w)],
                        stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                        env=env, cwd=root, close_fds=True, pass_fds=(fd, w),
                    )
                except (OSError, ValueError):
                    os.close(r)
                    raise
                finally:
                    os.close(w)
                self._workers.append(_Worker(proc, r))
        except (OSError, ValueError) as exc:  # (ValueError: pass_fds where there is no such thing)
            self.close()
            raise WorkerError(f"cannot start a worker: {exc}") from None

    def submit(self, todo: list[tuple[int, int]]) -> None:
        """The segments to decode, in file order: the first requests go out at once."""
        self._todo = todo
        self._sent = 0
        self._heard = time.monotonic()
        self._send_more(0)

    def _send_more(self, want: int) -> None:
        """Keep every worker busy (two requests each), within AHEAD segments of ``want``."""
        todo = self._todo
        for w in self._workers:
            while len(w.inflight) < 2 and self._sent < len(todo) and self._sent < want + AHEAD:
                start, end = todo[self._sent]
                self._send(w, b"%d %d%s\n" % (start, end, self._mode))
                w.inflight.append(self._sent)
                self._sent += 1

    def segments(self, stopped: Callable[[], bool]) -> Iterator[Segment]:
        """Each submitted segment's reply, in order.  Raises :class:`WorkerError` when a
        worker fails (what was yielded before stands)."""
        if not self._workers:
            raise WorkerError("no workers")
        todo = self._todo
        sel = selectors.DefaultSelector()
        for w in self._workers:
            sel.register(w.fd, selectors.EVENT_READ, w)
        done: dict[int, bytes] = {}
        try:
            for want in range(len(todo)):
                while want not in done:
                    if stopped():
                        return
                    self._send_more(want)
                    for key, _ in sel.select(timeout=0.2):
                        self._read(key.data, done)
                    if time.monotonic() - self._heard > STALL_SECONDS:
                        raise WorkerError(f"the workers sent nothing for {STALL_SECONDS:.0f} s")
                reply = done.pop(want)
                try:
                    seg = Segment.from_reply(todo[want][0], todo[want][1], reply)
                except Exception as exc:  # noqa: BLE001 - not a reply of this code's
                    raise WorkerError(f"a worker sent something unexpected ({type(exc).__name__})") from None
                if not seg.ok:
                    raise WorkerError(seg.error)
                self.peak_rss_kb = max(self.peak_rss_kb, seg.rss_kb)
                yield seg
                self._heard = time.monotonic()  # (the consumer may have kept us waiting)
        finally:
            sel.close()

    @staticmethod
    def _send(w: _Worker, request: bytes) -> None:
        try:
            w.proc.stdin.write(request)  # type: ignore[union-attr]
            w.proc.stdin.flush()  # type: ignore[union-attr]
        except (OSError, ValueError) as exc:
            raise WorkerError(f"a worker went away ({exc})") from None

    def _read(self, w: _Worker, done: dict[int, bytes]) -> None:
        try:
            data = os.read(w.fd, _READ)
        except OSError as exc:
            raise WorkerError(f"a worker went away ({exc})") from None
        if not data:
            raise WorkerError("a worker exited")
        self._heard = time.monotonic()
        buf = w.buf
        buf += data
        head = _HEADER.size
        while len(buf) >= head:
            magic, size = _HEADER.unpack_from(buf)
            if magic != _MAGIC or not w.inflight:
                raise WorkerError("a worker sent something unexpected")
            if len(buf) < head + size:
                break
            done[w.inflight.popleft()] = bytes(buf[head : head + size])
            del buf[: head + size]

    def kill(self) -> None:
        """End every worker now, from any thread: the one reading their replies sees them
        gone and closes the rest (see :meth:`close`)."""
        for w in list(self._workers):
            try:
                w.proc.kill()
            except OSError:  # pragma: no cover - already reaped
                pass

    def close(self) -> None:
        """Stop every worker (at once: a worker mid-segment is killed) and close its pipes;
        by the thread that reads their replies."""
        import subprocess
        with self._lock:
            workers, self._workers = self._workers, []
        for w in workers:
            if w.proc.poll() is None:
                w.proc.kill()
            try:
                w.proc.stdin.close()  # type: ignore[union-attr]
            except OSError:
                pass
            try:
                os.close(w.fd)
            except OSError:
                pass
            try:
                w.proc.wait(timeout=1)
            except subprocess.TimeoutExpired:  # pragma: no cover - a kill is not refused
                pass


