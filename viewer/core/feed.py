"""Feeds: a source read off the UI thread, handed over in record batches.

A feed reads its source in a daemon thread, decodes it, and queues batches of
records.  The consumer (the TUI's frame timer, or a test) calls :meth:`poll`
to take whatever arrived; nothing in here blocks the caller.  The queue is
bounded so a slow consumer applies back-pressure instead of filling memory.
"""

from __future__ import annotations

import os
import queue
import stat
import threading
import time
from collections.abc import Callable, Iterable

from viewer.core.decode import Record
from viewer.core.formats import DETECT_BYTES, Format, detect_head
from viewer.core.parallel import (
    FIRST_BYTES,
    MIN_PARALLEL_BYTES,
    MIN_WORKER_BYTES,
    SEGMENT_BYTES,
    Segment,
    WorkerError,
    Workers,
    plan,
    take,
    worker_count,
    worth_it,
)
from viewer.core.sources import (
    CHUNK,
    FileFollower,
    FileStore,
    Ingest,
    MemoryStore,
    PipeReader,
    SpoolStore,
    Store,
)

Clock = Callable[[], float]


def still_written(fd: int, read: int | None, recent: float = 60.0, read_at: float | None = None) -> str:
    """Why the regular file open as ``fd`` looks like it is still being written ("" when it
    does not): it is longer than the ``read`` bytes read of it (None: not known), or it
    changed less than ``recent`` seconds before it was read (at ``read_at``, a wall-clock
    time; None: now)."""
    try:
        st = os.fstat(fd)
    except (OSError, ValueError):
        return ""
    if not stat.S_ISREG(st.st_mode):
        return ""
    if read is not None and st.st_size > read:
        return "it has grown since it was read"
    age = (time.time() if read_at is None else read_at) - st.st_mtime
    # (said once, and kept on screen: "ago" would go stale)
    return f"it changed {age:.0f} s before it was read" if 0 <= age < recent else ""


class Feed:
    """Base feed: a queue of record batches plus progress counters."""

    live = False  # records arrive over time (pipe, follow) rather than from a finished file
    bulk = False  # a whole saved file, read as fast as it can be applied
    #: A pipe: when the viewer stops reading, its writer (the agent) gets a closed pipe.
    pipe = False
    label = ""

    def __init__(self, clock: Clock | None = None) -> None:
        self.store: Store = MemoryStore()
        self.ingest = Ingest(clock=clock if self.live else None)
        self._clock = clock or time.monotonic
        self._grew_at = self._clock()  # when the input last gave bytes (see _settle)
        self.total_bytes: int | None = None
        self.error: str | None = None
        #: Why the input was refused, not read (a pipe whose first bytes are compressed, say), or "".
        self.refused = ""
        self.eof = False
        self.resets = 0
        #: A followed file: when what it held as it was opened had been read (by the feed's
        #: clock).  Records that arrived by then were written before: their arrival says
        #: nothing of when (None: no such records, or not a followed file).
        self.caught_up_at: float | None = None
        # Record batches, or raw chunks still to decode (FileFeed), or None at the end.
        self._queue: queue.Queue[list[Record] | bytes | Segment | None] = queue.Queue(maxsize=16)
        self._stop = threading.Event()
        self._done = False  # the consumer saw the end marker
        self.format_name: str | None = None  # set by gather_runs
        self.segments_taken = 0  # segments decoded by worker processes (FileFeed)
        self.segments_redone = 0  # ... and decoded again here (a line across an edge)

    # -- producer side (reader thread) ----------------------------------------
    def _put(self, batch: list[Record] | None) -> None:
        while not self._stop.is_set():
            try:
                self._queue.put(batch, timeout=0.1)
                return
            except queue.Full:
                continue

    def _chunk(self, chunk: bytes) -> None:
        self._grew_at = self._clock()
        recs = self.ingest.feed(chunk)
        if recs:
            self._put(recs)

    def _settle(self) -> None:
        """All there is was read (a live source is silent): a last line without its newline,
        unchanged for a while, is read if it is a whole event (see LineSplitter.settle)."""
        recs = self.ingest.settle(self._clock() - self._grew_at)
        if recs:
            self._put(recs)

    def _eof(self) -> None:
        recs = self.ingest.close()
        if recs:
            self._put(recs)
        self._put(None)

    # -- consumer side --------------------------------------------------------
    def gather_runs(self, fmt: Format) -> None:
        """Gather consecutive text deltas into :class:`~viewer.core.decode.Run` records, using the
        format's classifier (before :meth:`start`).  The model applies a run at once: most events
        of a ``--stream-partial-output`` run are such deltas.  A feed may also have the format
        interpret its events (see :class:`FileFeed`)."""
        self.ingest.decoder.runs = fmt.run_line
        self.format_name = fmt.NAME

    def sniff_format(self) -> Format | None:
        """The format the input's first events tell, when they can be read before the input
        is (a saved file's); None otherwise (the model tells it as events come)."""
        return None

    def prepare(self) -> None:
        """Get ready to read, before :meth:`start` (e.g. start helper processes)."""

    def start(self) -> None:  # pragma: no cover - overridden
        pass

    def stop(self) -> None:
        self._stop.set()

    def still_written(self) -> str:
        """Why the input looks like a file still being written ("" when it does not; a saved
        file says, see :meth:`FileFeed.still_written`)."""
        return ""

    def unchanged_for(self) -> float | None:
        """Seconds since the input last changed, when a live source can tell (None)."""
        return None

    @property
    def source(self) -> str:
        """What is read, in words for the user: a path, or "standard input"."""
        return self.label

    @property
    def bytes_read(self) -> int:
        return self.ingest.bytes_read

    @property
    def finished(self) -> bool:
        """The consumer has received every record and the end of input."""
        return self._done

    def poll(self, max_batches: int = 64) -> list[Record]:
        out: list[Record] = []
        for _ in range(max_batches):
            try:
                batch = self._queue.get_nowait()
            except queue.Empty:
                break
            if type(batch) is bytes:  # a FileFeed chunk (b"" at the end): decoded here
                batch = self.ingest.feed(batch) if batch else self.ingest.close()
            elif type(batch) is Segment:  # decoded by a worker process (FileFeed)
                try:
                    recs = take(self.ingest, batch)
                except Exception:  # noqa: BLE001 - what a worker sent cannot be used: costs speed only
                    recs = None
                if recs is None:  # a line may go on across its edge: decoded here, in order
                    recs = []
                    for pos in range(batch.start, batch.end, CHUNK):  # (a MB at a time: a line past
                        # MAX_LINE_BYTES is let go of as it comes, not read whole)
                        recs.extend(self.ingest.feed(self.store.read(pos, min(CHUNK, batch.end - pos))))
                    self.segments_redone += 1
                else:
                    self.segments_taken += 1
                batch = recs
            if batch is None:
                self._done = True
                self.eof = True
                break
            out.extend(batch)
        return out

    def wait(self, timeout: float = 10.0) -> list[Record]:
        """Block until the end of input (tests and tools only); returns all records."""
        out: list[Record] = []
        deadline = time.monotonic() + timeout
        while not self._done and time.monotonic() < deadline:
            got = self.poll()
            out.extend(got)
            if not got:
                time.sleep(0.005)
        return out


class StoreFeed(Feed):
    """No reading at all: only random access to a file (``--replay`` reads it up front)."""

    def __init__(self, path: str) -> None:
        super().__init__()
        self.label = path
        self.store = FileStore(path)
        #: How much of the file the replay read, once it has read it to its end (None: not
        #: yet), and when (a replay tells it at the run's end, minutes later maybe).
        self.read_to: int | None = None
        self.read_at: float | None = None

    def still_written(self, recent: float = 60.0) -> str:
        """As :meth:`FileFeed.still_written`, once the replay has read the file to its end."""
        if self.read_to is None:
            return ""
        return still_written(self.store.fileno(), self.read_to, recent, self.read_at)


class BytesFeed(Feed):
    """Everything at once from bytes in memory (tests, snapshots).

    With ``eof=False`` the feed never ends, like a producer that is still
    running; with ``live=True`` it behaves as a live source (arrival times
    from ``clock``).
    """

    def __init__(
        self, data: bytes, label: str = "stream", *, eof: bool = True, live: bool = False,
        clock: Clock | None = None,
    ) -> None:
        self.live = live
        super().__init__(clock=clock or time.monotonic)
        self.label = label
        self._send_eof = eof
        self.store = MemoryStore(data)
        self.total_bytes = len(data)
        self._data = data
        self._queue = queue.Queue()  # filled synchronously: must not be bounded

    def start(self) -> None:
        for i in range(0, len(self._data), CHUNK):
            recs = self.ingest.feed(self._data[i : i + CHUNK])
            if recs:
                self._queue.put(recs)
        if self._send_eof:
            self._queue.put(self.ingest.close())
            self._queue.put(None)


class FileFeed(Feed):
    """A saved file, read in a background thread; payloads are re-read by offset.

    The thread only reads: chunks are decoded by :meth:`poll`, in the thread
    that applies them.  Decoding is pure Python work that holds the GIL, so a
    second thread would not make it faster, only hand every record across
    threads (measured: 10-15 % slower to open a 70 MB file).  A second
    *process* does: once the format is known (:meth:`gather_runs`), a big
    regular file is decoded by worker processes, a segment each, after the first
    segment (decoded here, so the first screen does not wait for them to start).
    See :mod:`viewer.core.parallel`.
    """

    bulk = True

    def __init__(self, path: str, *, workers: int | None = None, segment: int = SEGMENT_BYTES,
                 first: int = FIRST_BYTES, min_parallel: int = MIN_PARALLEL_BYTES, fd: int | None = None) -> None:
        """``workers``: how many worker processes (None: one per core, see
        :func:`~viewer.core.parallel.worker_count`; 0: none); files under ``min_parallel``
        bytes are decoded here alone, and so are the first ``first`` bytes of bigger ones;
        ``fd``: the file, open already (``path`` then only names it)."""
        super().__init__()
        self.label = path
        self.path = path
        self._named = fd is None  # (else standard input, or a descriptor: --follow cannot reopen it)
        self.store = FileStore(path, fd)
        try:
            self.total_bytes = os.fstat(self.store.fileno()).st_size  # (the file that is read)
        except OSError:
            self.total_bytes = None
        self._workers_wanted = workers
        self._segment = segment
        self._first = first
        self._min_parallel = min_parallel
        self._prepared = False
        self._pool: Workers | None = None
        self._queued_to = 0  # (parallel reading) bytes of the file queued so far
        self._todo: list[tuple[int, int]] = []  # the segments planned by prepare()
        self.workers = 0  # worker processes started
        self.worker_error = ""  # why the workers stopped helping, if they did
        self.worker_rss_kb = 0  # the biggest worker's peak RSS
        self._thread = threading.Thread(target=self._run, name="agent-viewer-file", daemon=True)

    def still_written(self, recent: float = 60.0) -> str:
        """Why the file looks like it is still being written ("" when it does not): it is
        longer than what was read, or it changed less than ``recent`` seconds ago.  Not for
        standard input (``< run.ndjson``): --follow needs a FILE."""
        if not self._named:
            return ""
        try:
            fd = self.store.fileno()
        except (OSError, AttributeError, ValueError):
            return ""
        return still_written(fd, self.bytes_read, recent)

    def sniff_format(self) -> Format | None:
        try:
            fd = self.store.fileno()  # type: ignore[attr-defined]
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                return None
            return detect_head(os.pread(fd, DETECT_BYTES, 0))
        except OSError:
            return None

    def prepare(self) -> None:
        """Start the worker processes, if the file is big enough to want them, so that they
        are ready when reading starts (the CLI calls this before it imports the UI).  They get
        the store's open file: they, the reading thread and the detail view all read one file."""
        if self._prepared:
            return
        self._prepared = True
        if self.format_name is None:
            return
        count = self._workers_wanted if self._workers_wanted is not None else worker_count()
        if count <= 0:
            return
        fd = self.store.fileno()  # type: ignore[attr-defined]
        try:
            st = os.fstat(fd)
            if not stat.S_ISREG(st.st_mode) or st.st_size < self._min_parallel:
                return
            todo = plan(fd, st.st_size, self._segment, self._first)  # (read as planned: see _run)
            if not worth_it(todo, st.st_size, min(MIN_WORKER_BYTES, self._min_parallel)):
                return
            fmt = self.sniff_format()
            if fmt is None:  # (the model tells it later: workers would read in another one)
                return
            if fmt.NAME != self.format_name:
                self.gather_runs(fmt)  # (its start tells its format: the workers read it in that one)
            self._pool = Workers(fd, self.format_name, count)
            self._todo = todo
        except (OSError, WorkerError) as exc:
            self.worker_error = str(exc)
            return
        self.workers = count

    def start(self) -> None:
        self.prepare()
        self._thread.start()

    def stop(self) -> None:
        super().stop()
        pool = self._pool
        if pool is None:
            return
        if self._thread.ident is None:  # never started: nothing else will close them
            pool.close()
        else:
            pool.kill()  # (the reading thread closes their pipes: it may be reading one)

    def _run(self) -> None:
        pool = self._pool
        try:
            fd = self.store.fileno()  # type: ignore[attr-defined]
            if pool is not None and pool.format_name == self.format_name:
                self._run_parallel(pool, fd)
            else:  # (workers started for another format than the one now asked for: not used)
                if pool is not None:
                    pool.close()
                if stat.S_ISREG(os.fstat(fd).st_mode):
                    self._read_range(fd, 0, -1)
                else:  # a FIFO or a device: read in order, as it comes
                    with open(self.path, "rb", buffering=0) as f:
                        while not self._stop.is_set():
                            chunk = f.read(CHUNK)
                            if not chunk:
                                break
                            self._put(chunk)
        except OSError as exc:
            self.error = f"{self.path}: {exc.strerror}"
        finally:
            if pool is not None:
                pool.close()
            self._put(b"")  # poll() closes the decoder after the last chunk
            self._put(None)

    def _run_parallel(self, pool: Workers, fd: int) -> None:
        """The first segment read here, the others (as planned by :meth:`prepare`) by the
        workers, in order; whatever they do not give back (a worker failed), and whatever was
        appended since, is read here, from where they stopped."""
        todo = self._todo
        self._queued_to = 0  # bytes queued so far, read here or by workers
        try:
            pool.submit(todo[1:])
            self._read_range(fd, 0, todo[0][1])
            for seg in pool.segments(self._stop.is_set):
                self._put(seg)  # type: ignore[arg-type]
                self._queued_to = seg.end
                self.worker_rss_kb = pool.peak_rss_kb
        except Exception as exc:  # noqa: BLE001 - a worker failing (or a bug there) costs speed, not data
            if self._stop.is_set():
                return
            self.worker_error = str(exc) or type(exc).__name__
            pool.close()
        self._read_range(fd, self._queued_to, -1)  # the rest, if any: here

    def _read_range(self, fd: int, start: int, end: int) -> None:
        """Queue the bytes of ``[start, end)`` (``end`` -1: to the end of the file)."""
        pos = start
        while not self._stop.is_set() and (end < 0 or pos < end):
            chunk = os.pread(fd, CHUNK if end < 0 else min(CHUNK, end - pos), pos)
            if not chunk:
                break
            pos += len(chunk)
            self._put(chunk)
            self._queued_to = pos


def _is_pipe(fd: int | None) -> bool:
    try:
        mode = os.fstat(fd).st_mode if fd is not None else 0
    except OSError:
        return False
    return stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode)


class PipeFeed(Feed):
    """Live data from a file descriptor (usually the producer's pipe)."""

    live = True

    def __init__(self, fd: int | None, label: str = "stdin", clock: Clock | None = None,
                 tee: Callable[[bytes], None] | None = None, path: str | None = None,
                 reopen: bool = False) -> None:
        """Read ``fd``, or (fd None) ``path``: a FIFO opened in the reader thread, so the UI
        is up while it waits for a writer (``reopen``, --follow: and for each next writer)."""
        super().__init__(clock=clock or time.monotonic)
        # A pipe gives at most 64 KB a read: a batch each.  Room for 16 MB of them, so that a
        # finished run piped in is not read 16 batches per frame (see the app's CATCH_UP).
        self._queue = queue.Queue(maxsize=256)
        self.label = label
        self._named = path is not None  # (else a descriptor: standard input)
        self.pipe = self._named or _is_pipe(fd)  # (standard input may be a file: --save < run.ndjson)
        self.store = SpoolStore()
        self._tee = tee
        self._reader = PipeReader(fd, self._on_chunk, self._eof, path=path, on_error=self._on_error, reopen=reopen,
                                  on_idle=self._settle)

    @property
    def source(self) -> str:
        return self.label if self._named else "standard input"

    def _on_error(self, message: str | None) -> None:
        self.error = message
        self.refused = self._reader.refused

    def _on_chunk(self, chunk: bytes) -> None:
        if self._tee is not None:
            self._tee(chunk)
        self.store.append(chunk)  # type: ignore[attr-defined]
        self._chunk(chunk)

    def start(self) -> None:
        self._reader.start()

    def stop(self) -> None:
        super().stop()
        self._reader.stop()


class FollowFeed(Feed):
    """A file that is still growing (``--follow``)."""

    live = True

    def __init__(self, path: str, clock: Clock | None = None,
                 tee: Callable[[bytes], None] | None = None,
                 on_restart: Callable[[], None] | None = None) -> None:
        super().__init__(clock=clock or time.monotonic)
        self.label = self.path = path
        self._quiet_since: float | None = None  # how long the file had not changed when opened
        self._opened_at = 0.0
        self._size_at_start = 0
        self._on_restart = on_restart  # e.g. the --save copy (Recorder.restarted)
        self.store = SpoolStore()
        self._tee = tee
        self._follower = FileFollower(path, self._on_chunk, self._on_reset, on_error=self._on_error,
                                      on_caught_up=self._settle)

    def _on_chunk(self, chunk: bytes) -> None:
        self.error = None
        if self._quiet_since is not None and self.ingest.bytes_read + len(chunk) > self._size_at_start:
            self._quiet_since = None  # written to since it was opened: arrivals tell from now on
        if self._tee is not None:
            self._tee(chunk)
        self.store.append(chunk)  # type: ignore[attr-defined]
        self._chunk(chunk)
        if self.caught_up_at is None and self._size_at_start and self.ingest.bytes_read >= self._size_at_start:
            self.caught_up_at = self._clock()

    def _on_reset(self) -> None:
        # Truncated or replaced: finish the old stream, continue with the new bytes.
        self._quiet_since = None
        if self._on_restart is not None:
            self._on_restart()
        self._put(self.ingest.close(restart=True))  # in order: the old runs end here
        self.resets += 1

    def _on_error(self, message: str | None) -> None:
        self.error = message

    def unchanged_for(self) -> float | None:
        """Seconds since the followed file was last written, until it is written again: the
        events in it when it was opened all came at once, however long ago they were written.
        (From its modification time, read once: another machine's clock may differ.)"""
        if self._quiet_since is None:
            return None
        return self._quiet_since + self._clock() - self._opened_at

    def start(self) -> None:
        try:
            st = os.stat(self.path)
            if stat.S_ISREG(st.st_mode):
                self._size_at_start = st.st_size
                self._quiet_since = max(0.0, time.time() - st.st_mtime)
                self._opened_at = self._clock()
        except OSError:  # (not there yet: it will be written)
            pass
        self._follower.start()

    def stop(self) -> None:
        super().stop()
        self._follower.stop()


def records_of(data: bytes) -> Iterable[Record]:
    feed = BytesFeed(data)
    feed.start()
    return feed.wait()
