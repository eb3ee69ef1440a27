"""Sources of stream bytes: files, pipes, followed files.

A source produces *chunks* of bytes; :class:`LineSplitter` cuts them into
physical lines with their byte offsets, and :class:`Ingest` runs them through
the :class:`~viewer.core.decode.Decoder`.  Every source also provides a
:class:`Store` so that heavy payloads (tool results, file contents) can be
re-read lazily by offset instead of being kept in memory.
"""

from __future__ import annotations

import errno
import os
import re
import select
import selectors
import shlex
import stat
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from typing import BinaryIO

import orjson

from viewer.core import decode
from viewer.core.decode import Decoder, LongLine, Record, RunLine

CHUNK = 1 << 20  # 1 MiB
#: A followed file (or a pipe) whose last line has no newline yet, and that has not grown for
#: this long: that line is read if it is a whole event (a run's result written without one
#: kept the run live for ever).  And lines kept back in case the next makes one event with
#: them (``{not json``) are told as malformed (they waited for the next event to be said).
SETTLE_SECONDS = 1.0


class SourceError(Exception):
    """A problem opening or reading an input, with a user-facing message."""


def settle_pending(decoder: Decoder, splitter: LineSplitter, quiet: float, arrival: float | None) -> list[Record]:
    """The input paused ``quiet`` seconds between lines (none part-way written): from
    SETTLE_SECONDS on, the lines ``decoder`` kept back in case the next makes one event with
    them (``{not json``) become malformed (a followed file's waited for the next event)."""
    if quiet >= SETTLE_SECONDS and decoder.has_pending and not splitter.partial_bytes:
        return decoder.flush_pending(arrival)
    return []


class LineSplitter:
    """Cut a byte stream into lines, remembering each line's offset.

    A line that spans chunks is gathered in a ``bytearray`` and handed on as
    one (``orjson`` parses it in place): a 64 MB line costs 64 MB here, not
    the 128 MB that joining a list of parts would peak at.
    """

    def __init__(self, offset: int = 0) -> None:
        self.offset = offset  # offset of the start of the partial line
        self._partial: bytes | bytearray = b""
        #: A line longer than MAX_LINE_BYTES so far, whose bytes are let go until its newline:
        #: (its first bytes, its length so far), or None.
        self._long: tuple[bytes, int] | None = None
        self._settled = False  # the last line was taken before its newline came (see settle)
        self._tried = 0  # the partial line's length when settle last found it unfinished

    def split(self, chunk: bytes) -> tuple[int, list[bytes]]:
        """The complete lines in ``chunk`` (with what was left over before) and
        the offset of the first one; consecutive lines are one byte apart."""
        if not chunk:
            return self.offset, []
        if self._long is not None:  # a line too long to keep: up to its newline
            nl = chunk.find(b"\n")
            head, length = self._long
            if nl < 0:
                self._long = (head, length + len(chunk))
                return self.offset, []
            self._long = None
            start = self.offset
            self.offset = start + length + nl + 1
            rest = chunk[nl + 1:]
            pieces = self.split(rest)[1] if rest else []
            return start, [LongLine(head, length + nl), *pieces]
        if self._settled:  # the line settle took may still get its end: "\n", "\r\n", " \n"
            n = len(chunk) - len(chunk.lstrip(b" \t\r"))
            if n == len(chunk):
                self.offset += n  # (only that yet: its newline may come next)
                return self.offset, []
            self._settled = False
            n += chunk[n : n + 1] == b"\n"
            self.offset += n
            chunk = chunk[n:]
            if not chunk:
                return self.offset, []
        pieces = chunk.split(b"\n")
        last = pieces.pop()
        start = self.offset
        partial = self._partial
        plen = len(partial)
        if pieces:
            if partial:
                if type(partial) is bytearray:
                    partial += pieces[0]
                    pieces[0] = partial
                else:
                    pieces[0] = partial + pieces[0]
            self.offset = start + plen + len(chunk) - len(last)
            partial = b""
            self._tried = 0
        if last:
            if not partial:
                partial = last
            else:
                if type(partial) is bytes:
                    partial = bytearray(partial)
                partial += last
            if len(partial) > decode.MAX_LINE_BYTES:  # (let go of, up to its newline)
                self._long = (bytes(partial[:decode.LONG_LINE_HEAD]), len(partial))
                partial = b""
        self._partial = partial
        return start, pieces

    def feed(self, chunk: bytes) -> list[tuple[int, bytes]]:
        """Like :meth:`split`, as ``(offset, line)`` pairs."""
        off, pieces = self.split(chunk)
        out = []
        for p in pieces:
            out.append((off, p))
            off += len(p) + 1
        return out

    @property
    def partial_bytes(self) -> int:
        return self._long[1] if self._long is not None else len(self._partial)

    def settle(self, quiet: float) -> list[tuple[int, bytes]]:
        """The input has paused ``quiet`` seconds with a line unfinished: from SETTLE_SECONDS
        on, that line, if it is one whole JSON object (no more of it can make a line of the same
        event); its newline, if it comes, is taken as its end.  Nothing otherwise (it waits for
        its end, as before)."""
        line = self._partial
        if not line or len(line) == self._tried or quiet < SETTLE_SECONDS:
            return []
        try:
            whole = type(orjson.loads(line)) is dict
        except orjson.JSONDecodeError:
            whole = False
        if not whole:
            self._tried = len(line)
            return []
        lines = self.flush()
        self._settled = True
        return lines

    def flush(self) -> list[tuple[int, bytes]]:
        """End of input: the unterminated last line, if any."""
        self._settled, self._tried = False, 0  # (what comes next is another line, or another stream)
        if self._long is not None:
            (head, length), self._long = self._long, None
            off = self.offset
            self.offset += length
            return [(off, LongLine(head, length))]
        line = self._partial
        if not line:
            return []
        self._partial = b""
        off = self.offset
        self.offset += len(line)
        return [(off, line)]


class Store:
    """Random access to the bytes of a source (for lazy payloads)."""

    def read(self, offset: int, length: int) -> bytes:  # pragma: no cover - interface
        raise NotImplementedError

    def close(self) -> None:
        pass


class FileStore(Store):
    def __init__(self, path: str, fd: int | None = None) -> None:
        """``fd``: the file, open already (standard input redirected from it: it may not be
        open-able again by name); the store owns it from now on."""
        self._fd = os.open(path, os.O_RDONLY) if fd is None else fd

    def fileno(self) -> int:
        """The open file (a saved file is read through it too: one file, even if its path is
        replaced meanwhile)."""
        return self._fd

    def read(self, offset: int, length: int) -> bytes:
        return os.pread(self._fd, length, offset)

    def close(self) -> None:
        try:
            os.close(self._fd)
        except OSError:
            pass


class MemoryStore(Store):
    def __init__(self, data: bytes = b"") -> None:
        self.data = bytearray(data)

    def append(self, chunk: bytes) -> None:
        self.data += chunk

    def read(self, offset: int, length: int) -> bytes:
        return bytes(self.data[offset : offset + length])


class SpoolStore(Store):
    """Keeps a copy of piped input in an anonymous temporary file."""

    def __init__(self) -> None:
        import tempfile  # only pipes need it: not imported by every --print start

        self._file = tempfile.TemporaryFile(prefix="agent-viewer-")
        self._lock = threading.Lock()
        self.size = 0

    def append(self, chunk: bytes) -> None:
        with self._lock:
            self._file.seek(0, os.SEEK_END)
            self._file.write(chunk)
            self._file.flush()
            self.size += len(chunk)

    def read(self, offset: int, length: int) -> bytes:
        with self._lock:
            return os.pread(self._file.fileno(), length, offset)

    def close(self) -> None:
        self._file.close()


class Ingest:
    """Chunks -> lines -> records, with line accounting."""

    def __init__(self, offset: int = 0, clock: Callable[[], float] | None = None,
                 runs: RunLine | None = None) -> None:
        """``runs``: the format's classifier of run lines (see :class:`~viewer.core.decode.Run`)."""
        self.splitter = LineSplitter(offset)
        self.decoder = Decoder()
        self.decoder.runs = runs
        self.bytes_read = 0
        self._clock = clock

    def feed(self, chunk: bytes) -> list[Record]:
        self.bytes_read += len(chunk)
        now = self._clock() if self._clock else None
        offset, pieces = self.splitter.split(chunk)
        return self.decoder.feed_run(offset, pieces, now)

    def settle(self, quiet: float) -> list[Record]:
        """The input paused ``quiet`` seconds: its last line, unfinished, may be read (see
        :meth:`LineSplitter.settle`); from SETTLE_SECONDS on, lines kept back in case the next
        would make one event with them (``{not json``) are told as malformed, not held until
        the next event comes (from a trial: a followed file's line was not counted for good)."""
        now = self._clock() if self._clock else None
        out = self._lines(self.splitter.settle(quiet), now)
        out.extend(settle_pending(self.decoder, self.splitter, quiet, now))
        return out

    def close(self, restart: bool = False) -> list[Record]:
        """End of input (or, with ``restart``, of one stream: see :meth:`Decoder.restart`)."""
        now = self._clock() if self._clock else None
        out = self._lines(self.splitter.flush(), now)
        out.extend(self.decoder.restart(now) if restart else self.decoder.close(now))
        return out

    def _lines(self, lines: list[tuple[int, bytes]], now: float | None) -> list[Record]:
        out: list[Record] = []
        for off, line in lines:
            out.extend(self.decoder.feed(line, off, now))
        return out


#: The first bytes of compressed files (a user may pass a rotated, compressed log), and
#: the command that reads each.
_COMPRESSED = ((re.compile(rb"\x1f\x8b"), "gzip", "zcat"), (re.compile(rb"BZh[1-9]"), "bzip2", "bzcat"),
               (re.compile(rb"\xfd7zXZ\x00"), "xz", "xzcat"), (re.compile(rb"\x28\xb5\x2f\xfd"), "zstd", "zstdcat"))


def check_readable(path: str) -> None:
    """Raise SourceError with a clear message if ``path`` cannot be read as a stream."""
    if not path:  # (an unset variable: agent-viewer "$RUN")
        raise SourceError("the file name is empty")
    try:
        os.stat(path)
    except FileNotFoundError:
        folder = os.path.dirname(os.path.abspath(path))
        try:
            os.stat(folder)
        except FileNotFoundError:  # (--follow waits for a file, not for its directory)
            raise SourceError(f"{path}: no such file, nor directory {folder}") from None
        except OSError:  # (not allowed to look: that is all that can be said)
            pass
        raise SourceError(f"{path}: no such file") from None
    except PermissionError:  # (its directory may not be searched: it was "no such file")
        raise SourceError(f"{path}: permission denied (a directory on its path cannot be searched)") from None
    except OSError as exc:  # (a file on its path: "Not a directory"; a loop of links)
        raise SourceError(f"{path}: cannot open ({exc.strerror})") from None
    if os.path.isdir(path):
        raise SourceError(f"{path}: is a directory, expected an NDJSON stream file")
    if is_stream_path(path):
        # A FIFO (or /dev/fd/N of a pipe): opening it here would wait for a writer, and
        # closing it again would give that writer a broken pipe.
        if not os.access(path, os.R_OK):
            raise SourceError(f"{path}: permission denied")
        return
    try:
        fd = os.open(path, os.O_RDONLY)
    except PermissionError:
        raise SourceError(f"{path}: permission denied") from None
    except OSError as exc:
        raise SourceError(f"{path}: cannot open ({exc.strerror})") from None
    try:
        check_is_text(fd, path)
    finally:
        os.close(fd)


#: Bytes of a file's start looked at to tell it is not NDJSON text.
HEAD_BYTES = 4096
#: ... and for a whole event, which may hold NUL bytes elsewhere (a line of 5 KB or more).
PROBE_BYTES = 64 * 1024


def check_is_text(fd: int, name: str) -> None:
    """Raise SourceError when the regular file open on ``fd`` is not NDJSON text, which would
    only give malformed lines (a screen of mojibake): see :func:`check_head`.  Nothing for
    other files (a pipe's first bytes are checked as they come)."""
    try:
        head = os.pread(fd, PROBE_BYTES, 0) if stat.S_ISREG(os.fstat(fd).st_mode) else b""
    except OSError:
        return
    check_head(head, name)


def check_head(head: bytes, name: str, piped: bool = False) -> None:
    """Raise SourceError when ``head``, the start of input ``name`` ("-": standard input), is
    not NDJSON text: compressed (naming the command that reads it), UTF-16 text (PowerShell's
    ``>`` writes it), or binary (NUL bytes after text on a line, which JSON text never holds);
    only its first HEAD_BYTES are looked at.  ``piped``: the first bytes through a pipe (the
    command goes into the pipe)."""
    where = "standard input" if name == "-" else name
    # (Only its first HEAD_BYTES: a pipe's first read may be a MB, and a NUL line far in is no
    # sign; the first PROBE_BYTES for an event, whose line may be longer: Claude Code's init.)

    def read_with(command: str) -> str:
        if piped:
            return f"read it with … | {command} | agent-viewer"
        return f"read it with {command} {'FILE' if name == '-' else shlex.quote(name)} | agent-viewer"

    for magic, kind, reader in _COMPRESSED:
        if magic.match(head):
            raise SourceError(f"{where}: is {kind}-compressed; {read_with(reader)}")
    probe, head = head[:PROBE_BYTES], head[:HEAD_BYTES]
    if b"\0" not in head:
        # Not UTF-8 text, and not one event: random bytes (they gave a screen of mojibake), or
        # text in another encoding.
        if _not_utf8(head) and not _holds_an_event(probe):
            raise SourceError(f"{where}: is not UTF-8 text (binary, or text in another encoding: "
                              f"{read_with('iconv -f ENCODING -t UTF-8')})")
        return
    wide = _wide_encoding(head)
    if wide:
        raise SourceError(f"{where}: is {wide} text, not UTF-8; {read_with(f'iconv -f {wide} -t UTF-8')}")
    # NUL bytes before a line's text: a file truncated under a writer that went on at its old
    # offset (copytruncate); read as before (malformed lines), not refused.  NULs after text
    # on a line are binary (an ELF header, a PNG's chunks), unless other lines are events (one
    # NUL in a stream refused all of it).
    if any(b"\0" in line.lstrip(b"\0") for line in head.split(b"\n")) and not _holds_an_event(probe):
        raise SourceError(f"{where}: looks like a binary file, not an NDJSON stream (it holds NUL bytes)")


def _holds_an_event(head: bytes) -> bool:
    """Whether a whole line of ``head`` is a JSON object."""
    for line in head.split(b"\n")[:-1]:
        try:
            if type(orjson.loads(line)) is dict:
                return True
        except orjson.JSONDecodeError:
            pass
    return False


def _not_utf8(head: bytes) -> bool:
    """Whether ``head`` is not UTF-8 text: bytes that are not, more than a character cut at
    its end would leave."""
    try:
        head.decode("utf-8")
    except UnicodeDecodeError as exc:
        return exc.start < len(head) - 4 and head.decode("utf-8", "replace").count("\ufffd") > 4
    return False


_BOMS = ((b"\xff\xfe\0\0", "UTF-32LE"), (b"\0\0\xfe\xff", "UTF-32BE"), (b"\xff\xfe", "UTF-16LE"),
         (b"\xfe\xff", "UTF-16BE"))


def _wide_encoding(head: bytes) -> str:
    """The encoding of UTF-16 or UTF-32 text ("UTF-16LE", ...), by its byte-order mark or by
    where ASCII's NUL bytes are (every other byte; three of four), else ""."""
    for bom, name in _BOMS:
        if head.startswith(bom):
            return name
    n = len(head) // 4
    if n < 2:
        return ""
    zeros = [head[i : n * 4 : 4].count(0) / n for i in range(4)]  # at each place of four bytes
    if zeros[0] < 0.1 and min(zeros[1:]) > 0.9:
        return "UTF-32LE"
    if zeros[3] < 0.1 and min(zeros[:3]) > 0.9:
        return "UTF-32BE"
    even, odd = (zeros[0] + zeros[2]) / 2, (zeros[1] + zeros[3]) / 2
    if odd > 0.9 and even < 0.1:
        return "UTF-16LE"
    if even > 0.9 and odd < 0.1:
        return "UTF-16BE"
    return ""


def is_stream_path(path: str) -> bool:
    """Is ``path`` a pipe or device rather than a regular file (read once, never re-read)?"""
    try:
        return not stat.S_ISREG(os.stat(path).st_mode) and not os.path.isdir(path)
    except OSError:
        return False


_PROCESS_PIPES = ("/dev/stdin", "/dev/fd/", "/proc/")


def reopenable_fifo(path: str) -> bool:
    """Is ``path`` a named FIFO that a next writer can open again (``--follow``)?  Not the
    pipes behind /dev/stdin, /dev/fd/N or /proc (``<(producer)``): they end with their writer,
    and opening them again would only read their end over and over."""
    if path.startswith(_PROCESS_PIPES):
        return False
    try:
        return stat.S_ISFIFO(os.stat(path).st_mode) and not os.path.realpath(path).startswith(_PROCESS_PIPES)
    except OSError:
        return False


def _is_fifo(fd: int) -> bool:
    try:
        return stat.S_ISFIFO(os.fstat(fd).st_mode)
    except OSError:
        return False


def open_next_writer(path: str, stopped: Callable[[], bool], interval: float = 0.2) -> int | None:
    """A named FIFO opened again for its next writer (``--follow``): its descriptor, blocking,
    once that writer has come; None when ``stopped()``.  The wait does not block in ``open``
    (a FIFO deleted meanwhile would hold it for ever): it looks again every ``interval``, and
    opens the path anew if it was replaced.  :class:`SourceError` when it is gone or no longer a
    FIFO (read again, a file would repeat for ever)."""
    while True:
        try:
            fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
        except OSError as exc:
            raise SourceError(f"{path}: {exc.strerror}") from None
        try:
            if not _is_fifo(fd):
                raise SourceError(f"{path}: no longer a FIFO; not read again")
            inode = os.fstat(fd).st_ino
            while not stopped():
                if select.select([fd], [], [], interval)[0]:  # (a writer came: data, or its close)
                    os.set_blocking(fd, True)
                    fd, opened = -1, fd
                    return opened
                try:
                    if os.stat(path).st_ino != inode:
                        break  # replaced: open the new one
                except OSError:
                    raise SourceError(f"{path}: deleted while waiting for its next writer") from None
            else:
                return None
        finally:
            if fd >= 0:
                os.close(fd)


def fifo_chunks(path: str, on_wait: Callable[[str], None] | None = None,
                idle: float | None = None) -> Iterator[bytes]:
    """Chunks of a named FIFO, one writer after another (``--print --follow``): the first
    open waits for a writer, then :func:`open_next_writer` for each next one (``on_wait`` says
    so); a line a writer left unfinished ends with it.  ``b""`` says all there was is read: a
    writer closed it, or (with ``idle``) a writer that keeps it open sent nothing for ``idle``
    seconds.  :class:`SourceError` when the FIFO cannot be read on."""
    first = True
    while True:
        if first:
            try:
                fd = os.open(path, os.O_RDONLY)
            except OSError as exc:
                raise SourceError(f"{path}: {exc.strerror}") from None
        else:
            if on_wait is not None:
                on_wait(f"{os.path.basename(path)}: its writer closed it; waiting for the next")
            fd = open_next_writer(path, lambda: False)  # type: ignore[assignment]
        try:
            last = b""
            try:
                while True:
                    if idle is not None and not select.select([fd], [], [], idle)[0]:
                        yield b""  # (the writer is there, silent: a long command, or done)
                        continue
                    chunk = os.read(fd, CHUNK)
                    if not chunk:
                        break
                    last = chunk
                    yield chunk
            except OSError as exc:
                raise SourceError(f"{path}: {exc.strerror}") from None
            if last and not last.endswith(b"\n"):
                yield b"\n"  # (not glued to the next writer's first line)
        finally:
            os.close(fd)
        first = False
        yield b""


def iter_file_chunks(f: BinaryIO, size: int = CHUNK) -> Iterator[bytes]:
    while True:
        chunk = f.read(size)
        if not chunk:
            return
        yield chunk


def decode_chunks(chunks: Iterable[bytes], ingest: Ingest | None = None) -> Iterator[Record]:
    """Decode a whole input given as chunks of bytes, yielding records as they are found
    (``ingest``: the one to decode with, whose counts the caller reads: blank lines)."""
    ingest = ingest or Ingest()
    for chunk in chunks:
        yield from ingest.feed(chunk)
    yield from ingest.close()


def iter_records(f: BinaryIO, chunk_size: int = CHUNK) -> Iterator[Record]:
    """Decode a whole binary stream, yielding records as they are found."""
    return decode_chunks(iter_file_chunks(f, chunk_size))


class _ReaderThread:
    """``_run`` in a daemon thread; :meth:`stop` returns at once (``_run`` checks ``_stop``)."""

    thread_name = "agent-viewer-reader"

    def __init__(self) -> None:
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name=self.thread_name, daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()

    def _run(self) -> None:  # pragma: no cover - overridden
        raise NotImplementedError


class PipeReader(_ReaderThread):
    """Read a file descriptor in a daemon thread without ever blocking quit.

    ``on_chunk(bytes)`` is called from the reader thread for every chunk and
    ``on_eof()`` once at the end.  ``stop()`` returns at once: the thread polls
    with a timeout and is a daemon, so a producer that never closes its end
    cannot hold the viewer open.
    """

    def __init__(
        self,
        fd: int | None,
        on_chunk: Callable[[bytes], None],
        on_eof: Callable[[], None],
        poll_interval: float = 0.1,
        path: str | None = None,
        on_error: Callable[[str | None], None] | None = None,
        reopen: bool = False,
        on_idle: Callable[[], None] | None = None,
    ) -> None:
        """``reopen`` (a named FIFO, ``--follow``): when a writer closes it, wait for the next
        one, rather than end.  ``on_idle()``: at each ``poll_interval`` with nothing to read."""
        self.fd = fd
        self.path = path  # with fd None: opened in the thread (a FIFO waits there for a writer)
        self.reopen = reopen and fd is None and path is not None
        self._on_chunk = on_chunk
        self._on_eof = on_eof
        self._on_error = on_error or (lambda message: None)
        self._poll = poll_interval
        self._on_idle = on_idle or (lambda: None)
        self._last = b""  # the end of the last chunk read
        #: Why the input was refused at its first bytes (compressed, UTF-16, binary), or "".
        self.refused = ""
        self._checked = False  # (its first bytes were)
        super().__init__()

    def _on_writer_closed(self) -> None:
        if self._last and not self._last.endswith(b"\n"):
            self._on_chunk(b"\n")  # (not glued to the next writer's first line)
        self._last = b""

    def _open(self, next_writer: bool = False) -> bool:
        """Open the path (a FIFO: once a writer opens it; a next writer: see
        :func:`open_next_writer`); False, said, when it cannot be (or the app stopped)."""
        assert self.path is not None
        name = os.path.basename(self.path)
        self._on_error(f"{name}: its writer closed it; waiting for the next (--follow)" if next_writer
                       else f"waiting for a writer to open {name}")
        try:
            if next_writer:
                fd = open_next_writer(self.path, self._stop.is_set)
                if fd is None:
                    return False
                self.fd = fd
            else:
                self.fd = os.open(self.path, os.O_RDONLY)  # blocks until a writer opens it
        except (OSError, SourceError) as exc:
            self._on_error(str(exc) if isinstance(exc, SourceError) else f"{self.path}: {exc.strerror}")
            return False
        self._on_error(None)
        return True

    def _run(self) -> None:
        owned = self.fd is None
        try:
            if owned and not self._open():
                return
            while True:
                try:
                    writer_closed = self._read_all()
                finally:
                    if owned:
                        os.close(self.fd)  # type: ignore[arg-type]
                if not (writer_closed and self.reopen) or self._stop.is_set():
                    return
                # --follow on a named FIFO: the next writer goes on with the stream (this open
                # waits for it, as the first did); a line the last one left unfinished ends.
                self._on_writer_closed()
                if not self._open(next_writer=True):
                    return
        finally:  # (also when a chunk's handling failed: the stream ends, it does not hang)
            if not self._stop.is_set():
                self._on_eof()

    def _read_all(self) -> bool:
        """Read until the end of input (True) or a stop or read error (False)."""
        assert self.fd is not None
        sel = selectors.DefaultSelector()
        try:
            sel.register(self.fd, selectors.EVENT_READ)
            selectable = True
        except (ValueError, OSError):  # regular files cannot be registered with epoll
            selectable = False
        try:
            while not self._stop.is_set():
                if selectable and not sel.select(self._poll):
                    self._on_idle()
                    continue
                try:
                    chunk = os.read(self.fd, CHUNK)
                except InterruptedError:
                    continue
                except OSError as exc:
                    if exc.errno == errno.EAGAIN:
                        continue
                    return False
                if not chunk:
                    return True
                if selectable and not self._checked:  # a pipe's first bytes (a file's were checked)
                    self._checked = True  # (the first writer's: a FIFO's next writer goes on with it)
                    try:
                        check_head(chunk, "-" if self.path is None else self.path, piped=self.path is None)
                    except SourceError as exc:  # (refused whole, as a file: not a screen of mojibake)
                        self.refused = str(exc)
                        self._on_error(self.refused)
                        return False
                self._last = chunk
                self._on_chunk(chunk)
            return False
        finally:
            sel.close()


#: Bytes at the end of what ``follow_file`` read that it checks are still there after a wait.
TAIL_CHECK = 128


def follow_file(
    path: str,
    stop: threading.Event,
    poll_interval: float = 0.05,
    on_error: Callable[[str | None], None] | None = None,
    caught_up: bool = False,
) -> Iterator[bytes | None]:
    """Chunks of a growing file, like ``tail -F``; ``None`` when the file was truncated or
    replaced (what comes after is a new stream); with ``caught_up``, ``b""`` each time all the
    file has is read, before waiting for more.  A missing file is waited for (``on_error`` says
    so once, and ``None`` once it is there).  Ends when ``stop`` is set."""
    opened: tuple[int, os.stat_result] | None = None
    pos = 0
    missing_reported = False
    lost = False  # the file was deleted after it had been read
    # The last bytes read (up to TAIL_CHECK), looked at again before each read: a file replaced
    # in place by a longer one (`cp other.ndjson run.ndjson`: the same inode, truncated and
    # rewritten between two looks) only seems to have grown.  Before each read, not only after
    # a wait: a big file is read a chunk after another, and a rewrite can come in between.
    tail = b""
    try:
        while not stop.is_set():
            if opened is None:
                opened = _open_stat(path)
                if opened is None:
                    if not missing_reported and on_error:
                        # Short: the header has room for a few words, the path is in the title.
                        on_error(f"waiting for {os.path.basename(path)} to appear")
                        missing_reported = True
                    stop.wait(poll_interval * 4)
                    continue
                if missing_reported and on_error:
                    on_error(None)  # there now (empty, maybe): no longer waited for
                missing_reported = False
                pos = 0
                tail = b""
                if lost:  # deleted, now back: another file, another stream
                    lost = False
                    yield None
            fd, st = opened
            if not stat.S_ISREG(st.st_mode):  # a FIFO made at the path: read it as a pipe
                try:
                    chunk = os.read(fd, CHUNK)
                except OSError:
                    chunk = b""
                if chunk:
                    yield chunk
                else:  # its writer closed it: wait for the next one (reopening waits)
                    os.close(fd)
                    opened = None
                continue
            if tail:
                try:
                    same = os.pread(fd, len(tail), pos - len(tail)) == tail
                except OSError:
                    same = False
                if not same:  # rewritten since: a new stream, read from its start
                    pos, tail = 0, b""
                    yield None
                    continue
            try:
                chunk = os.pread(fd, CHUNK, pos)
            except OSError:
                chunk = b""
            if chunk:
                pos += len(chunk)
                tail = (tail + chunk)[-TAIL_CHECK:] if len(chunk) < TAIL_CHECK else chunk[-TAIL_CHECK:]
                yield chunk
                continue
            # At EOF: look for truncation or rotation.
            try:
                cur = os.stat(path)
            except OSError:
                cur = None
            if cur is None or cur.st_ino != st.st_ino or cur.st_dev != st.st_dev:
                # Rotated or deleted: drain what is left, then reopen when it reappears.
                os.close(fd)
                opened = None
                if cur is not None:
                    yield None
                else:
                    lost = True
                continue
            if cur.st_size < pos:
                pos, tail = 0, b""
                yield None
                continue
            if caught_up and cur.st_size <= pos:  # (not when it grew since the read)
                yield b""
            stop.wait(poll_interval)
    finally:
        if opened is not None:
            os.close(opened[0])


def _open_stat(path: str) -> tuple[int, os.stat_result] | None:
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return None
    return fd, os.fstat(fd)


class FileFollower(_ReaderThread):
    """Tail a growing file in a thread (:func:`follow_file`): chunks, resets when the file is
    truncated or replaced, and (``on_caught_up``) each time all it holds is read."""

    thread_name = "agent-viewer-follow"

    def __init__(
        self,
        path: str,
        on_chunk: Callable[[bytes], None],
        on_reset: Callable[[], None],
        poll_interval: float = 0.05,
        on_error: Callable[[str | None], None] | None = None,
        on_caught_up: Callable[[], None] | None = None,
    ) -> None:
        self.path = path
        self._on_chunk = on_chunk
        self._on_reset = on_reset
        self._on_error = on_error
        self._on_caught_up = on_caught_up
        self._poll = poll_interval
        super().__init__()

    def _run(self) -> None:
        caught_up = self._on_caught_up
        for chunk in follow_file(self.path, self._stop, self._poll, self._on_error, caught_up is not None):
            if chunk is None:
                self._on_reset()
            elif chunk:
                self._on_chunk(chunk)
            elif caught_up is not None:
                caught_up()


def monotonic() -> float:
    return time.monotonic()
