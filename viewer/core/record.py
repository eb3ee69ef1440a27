"""``--save``: keep a byte-exact copy of a live stream, with arrival times.

The copy is written chunk by chunk as bytes arrive and flushed each time, so
it is complete up to the moment the viewer stops, however it stops.  It
replaces an existing file only once the input's first bytes are read: input
refused at its first bytes (compressed, say), or none at all, leaves the file
as it was (a new one is not left behind).  Arrival
times go to a sidecar ``PATH.timing`` that ``--replay`` picks up::

    # agent-viewer timing v1
    <end offset of the bytes received>\t<milliseconds since the first byte>
    <end offset>\t<milliseconds>\trestart      (--follow: the file started over here)

Readers that know only the first kind of line skip the third (it has three fields).

A write error (a full disk, say) stops the saving with a message; viewing
goes on.
"""

from __future__ import annotations

import os
import signal
import stat
import threading
import time
from collections.abc import Callable

from viewer.core.formats.common import human_bytes

TIMING_SUFFIX = ".timing"
TIMING_HEADER = "# agent-viewer timing v1\n"


def timing_path(path: str) -> str:
    return path + TIMING_SUFFIX


#: Signals held while a chunk and its time are written (see _hold_signals).
_HELD = {signal.SIGINT, signal.SIGTERM}


def _hold_signals() -> set[signal.Signals] | None:
    """Hold Ctrl+C and a kill until a chunk's bytes and its time are both written: one that
    came between the two left bytes with no time.  Returns the mask to restore (None: not
    held; only the main thread can hold them for the process: ``--print``, not the TUI's
    reading thread)."""
    if threading.current_thread() is not threading.main_thread() or not hasattr(signal, "pthread_sigmask"):
        return None
    return signal.pthread_sigmask(signal.SIG_BLOCK, _HELD)


class Recorder:
    def __init__(self, path: str, clock: Callable[[], float] = time.monotonic) -> None:
        self.path = path
        self.clock = clock
        self.error: str | None = None
        self.offset = 0
        self._closed = False
        self._mid_line = False  # the copy ends inside a line
        self._t0: float | None = None
        self._lock = threading.Lock()
        self._begun = False  # (the first bytes came: the files were emptied and the copy begun)
        # Open both now, so a bad path is reported before the UI starts, but empty them only
        # when the first bytes come.
        self._created: list[str] = []
        self._data = self._open(path, "wb")
        self._existed = not self._created
        try:
            self._timing = self._open(timing_path(path), "w")
        except OSError:
            self._data.close()
            self._remove_created()
            raise

    def _open(self, path: str, mode: str):
        """Open ``path`` to write, not emptied (see _begin); made if missing, and then noted
        (the file, a symlink's target: removed if nothing comes)."""
        try:  # (made here, by this open: not another process's file, made in between)
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
            self._created.append(path)
        except FileExistsError:  # (a symlink too, even one to nothing yet)
            existed = os.path.exists(path)
            fd = os.open(path, os.O_WRONLY | os.O_CREAT, 0o666)
            if not existed:
                self._created.append(os.path.realpath(path))
        if mode == "wb":
            return os.fdopen(fd, mode, buffering=0)
        return os.fdopen(fd, mode, encoding="ascii")

    def _begin(self) -> None:
        """The first bytes came: the copy replaces what the files held."""
        self._begun = True
        for f in (self._data, self._timing):
            f.flush()
            if stat.S_ISREG(os.fstat(f.fileno()).st_mode):  # (not a FIFO, /dev/null: as O_TRUNC)
                os.ftruncate(f.fileno(), 0)
        self._timing.write(TIMING_HEADER)
        self._timing.flush()

    def _remove_created(self) -> None:
        for path in self._created:
            try:
                os.unlink(path)
            except OSError:
                pass

    def write(self, chunk: bytes) -> None:
        if self.error is not None or not chunk:
            return
        with self._lock:
            if self._closed:  # a reader thread still teeing while the viewer quits
                return
            now = self.clock()
            if self._t0 is None:
                self._t0 = now
            mask = _hold_signals()
            try:
                if not self._begun:
                    self._begin()
                view = memoryview(chunk)
                while view:
                    n = self._data.write(view)
                    if n is None:  # pragma: no cover - blocking file
                        continue
                    view = view[n:]
                self.offset += len(chunk)
                self._mid_line = chunk[-1] != 10
                self._timing.write(f"{self.offset}\t{int((now - self._t0) * 1000)}\n")
                self._timing.flush()
            except OSError as exc:
                self._fail(exc)
            finally:
                if mask is not None:
                    signal.pthread_sigmask(signal.SIG_SETMASK, mask)

    def restarted(self, followed: str) -> None:
        """The followed file was truncated or replaced, and is read again from its start.
        If it is now this copy (``mv copy.ndjson run.ndjson``), stop saving, or every byte
        read would be written back.  Else end a line the old file left unfinished, so it does
        not run into the new file's first line (the copy is read the way the viewer read it)."""
        try:  # the copy as it is open (moved, it no longer has its name)
            mine, theirs = os.fstat(self._data.fileno()), os.stat(followed)
        except (OSError, ValueError):  # closed, or the followed file is gone
            theirs = None
        if theirs is not None and (mine.st_dev, mine.st_ino) == (theirs.st_dev, theirs.st_ino):
            with self._lock:
                if self.error is None:
                    self.error = f"saving to {self.path} stopped: it became the followed file"
                self._closed = True
                self._close_files()
        else:
            if self._mid_line:
                self.write(b"\n")
            self._mark("restart")

    def _mark(self, what: str) -> None:
        """A line in the timing sidecar saying ``what`` happened at this point of the copy."""
        with self._lock:
            if self._closed or self.error is not None or not self._begun:
                return  # (not begun: nothing was read before it)
            now = self.clock()
            ms = int((now - self._t0) * 1000) if self._t0 is not None else 0
            try:
                self._timing.write(f"{self.offset}\t{ms}\t{what}\n")
                self._timing.flush()
            except OSError as exc:
                self._fail(exc)

    def _fail(self, exc: OSError) -> None:
        """A write failed (a full disk, say): saving stops with a message, viewing goes on."""
        self.error = f"saving to {self.path} stopped: {os.strerror(exc.errno) if exc.errno else exc}"
        self._close_files()

    def _close_files(self) -> None:
        for f in (self._data, self._timing):
            try:
                f.close()
            except OSError:
                pass

    def outcome(self) -> str:
        """What was saved, said once the viewer stops ("saved 1.2 MB to run.ndjson")."""
        if not self._begun:  # (nothing came, or the input was refused at its first bytes)
            return f"nothing was saved: {self.path} was left as it was" if self._existed \
                else f"nothing was saved: {self.path} was not written"
        return f"saved {human_bytes(self.offset)} to {self.path}"

    def close(self) -> None:
        with self._lock:
            if self._closed:
                return
            self._closed = True
            self._close_files()
            if not self._begun and self.error is None:
                self._remove_created()  # (nothing came: no empty copy left behind)


#: A --save copy's sidecar is written just after each chunk of the copy: a copy changed more
#: than this after its sidecar last was has been written again since, by something else.
REWRITTEN_AFTER_S = 2.0


def timing_mismatch(path: str, size: int, timing: list[tuple[int, int]] | None) -> str:
    """Why the timing sidecar of ``path`` (``size`` bytes) is not its copy's ("" when it is, or
    there is none).  Another run saved under the same name later (``agent … > run.ndjson``)
    left the old sidecar beside it, and a replay played the new file by the old times.  A copy
    still being written (its sidecar a chunk behind, or ahead of the size read), or cut short
    (saving stopped, the viewer killed between the two writes), is its own: it was written
    along with its sidecar, not after it."""
    if not timing or size in {end for end, _ in timing}:
        return ""
    try:
        rewritten = os.stat(path).st_mtime - os.stat(timing_path(path)).st_mtime > REWRITTEN_AFTER_S
    except OSError:
        return ""
    if not rewritten:
        return ""
    end = timing[-1][0]
    sidecar = os.path.basename(timing_path(path))
    said, holds = human_bytes(end), human_bytes(size)
    if said == holds:  # (close: "1.2 MB" and "1.2 MB")
        said, holds = f"{end:,} bytes", f"{size:,} bytes"
    return (f"{sidecar} holds the times of {said} of events, and {os.path.basename(path)} holds {holds}, "
            "written after them: it is not this file's. The replay plays by the events' own times.")


def read_restarts(path: str) -> list[int]:
    """Offsets in a ``--save`` copy where the followed file started over (truncated or replaced),
    from its timing sidecar; a replay ends every run read before each."""
    out: list[int] = []
    try:
        with open(timing_path(path), encoding="ascii", errors="replace") as f:
            if not f.readline().startswith("# agent-viewer timing"):
                return []
            for line in f:
                parts = line.rstrip("\n").split("\t")
                if len(parts) == 3 and parts[2] == "restart" and parts[0].isdigit():
                    out.append(int(parts[0]))
    except OSError:
        return []
    return out


def read_timing(path: str) -> list[tuple[int, int]] | None:
    """(end offset, ms) pairs from a timing sidecar, or None when there is none or it is unusable."""
    try:
        with open(timing_path(path), encoding="ascii", errors="replace") as f:
            first = f.readline()
            if not first.startswith("# agent-viewer timing"):
                return None
            out: list[tuple[int, int]] = []
            for line in f:
                parts = line.split("\t")
                if len(parts) != 2:
                    continue
                try:
                    out.append((int(parts[0]), int(parts[1])))
                except ValueError:
                    continue
            return out or None
    except OSError:
        return None
