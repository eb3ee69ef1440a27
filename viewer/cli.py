"""Command line: ``agent-viewer [FILE|-]`` and the ``--print`` modes."""

from __future__ import annotations

import codecs
import math
import os
import re
import shlex
import stat
import sys
import threading
import time

import click

from viewer import __version__
from viewer.core.printer import EXIT_USAGE, PROG, make_printer, print_file_with_workers, tell
from viewer.core.sanitize import json_escape
from viewer.core.sources import (
    CHUNK,
    LineSplitter,
    SourceError,
    check_head,
    check_is_text,
    check_readable,
    fifo_chunks,
    follow_file,
    is_stream_path,
    reopenable_fifo,
)

OUTPUT_FORMATS = ("text", "json", "stream-json")


def demo_path() -> str:
    """The bundled demo stream (a copy of sample_streams/demo_session.ndjson)."""
    from importlib import resources  # here, not at the top: 13 ms of every --print start

    return str(resources.files("viewer") / "demo" / "demo_session.ndjson")


def say(message: str) -> None:
    """One line on stderr (a file's name may hold escape sequences: ``agent-viewer
    $'run\\e]0;title\\a.ndjson'`` set the window's title; see printer.tell)."""
    tell(message, sys.stderr)


def fail(message: str, code: int = EXIT_USAGE) -> None:
    say(f"error: {message}")
    sys.exit(code)


class _Number(click.FloatRange):
    """A number in a range, said in words: click's own said "'abc' is not a valid float
    range" (from a trial) and "100.0 is not in the range 0.25<=x<=64"."""

    def __init__(self, low: float, high: float | None = None, *, min_open: bool = False, words: str) -> None:
        super().__init__(low, high, min_open=min_open)
        self.words = words  # what the option takes: "0.25 to 64"

    def convert(self, value, param, ctx):
        try:
            number = float(value)
        except (TypeError, ValueError):
            number = math.nan
        if not math.isfinite(number):  # (FloatRange lets nan through: no comparison holds)
            self.fail(f"{value!r} is not a number (it takes {self.words})", param, ctx)
        try:
            return super().convert(number, param, ctx)
        except click.BadParameter:
            self.fail(f"{value} is out of range (it takes {self.words})", param, ctx)


#: Seconds a pipe may be silent before its reader is told (``b""``: text mode says so).
IDLE_TICK = 5.0
#: ... and with --until-result, once its last run has its result: so long with nothing more to
#: read, and the input is over (`cat a.ndjson b.ndjson |` may pause between two runs).
SETTLE_TICK = 0.25


def _read_chunks(fd: int, idle: float | None = None):
    """Chunks from ``fd`` until EOF; with ``idle``, ``b""`` after each ``idle`` seconds with
    nothing to read (a pipe's writer busy: a long command)."""
    sel = None
    if idle is not None:
        import selectors

        sel = selectors.DefaultSelector()
        try:
            sel.register(fd, selectors.EVENT_READ)
        except (ValueError, OSError):  # (not a file descriptor select takes)
            sel = None
    try:
        while True:
            if sel is not None and not sel.select(idle):
                yield b""
                continue
            try:
                chunk = os.read(fd, CHUNK)
            except InterruptedError:  # pragma: no cover
                continue
            if not chunk:
                return
            yield chunk
    finally:
        if sel is not None:
            sel.close()


def _follow_chunks(path: str, idle: float):
    """Chunks of ``path`` as it grows, ``None`` when it is truncated or replaced, ``b""`` when
    all it has is read (a named FIFO: one writer after another, ``b""`` as each closes it, or
    after ``idle`` seconds of a writer's silence)."""
    if is_stream_path(path):
        return fifo_chunks(path, on_wait=say, idle=idle)
    return follow_file(path, threading.Event(), poll_interval=0.2, on_error=lambda m: m and say(m), caught_up=True)


class Output:
    """Standard output for ``--print``, whose writes never raise.

    When the reader goes away (``| head``), what follows is dropped and :attr:`cut` says so:
    the input is still read to its end, quietly, so that the exit status says how the run went
    (a failed run exited 0 under ``set -o pipefail``, or 1, as the reader's timing fell), and
    so that an agent writing into a pipe is not killed by the log reader's going (it got
    SIGPIPE once the viewer stopped reading).  A pipe is read on to its run's result (or its
    end), not for ever: ``tail -f log | agent-viewer --print | head`` ends.  A followed file,
    which never ends and has no writer to keep alive, is not read on.  Any other failure (a
    full disk) is kept in :attr:`error`, and the caller stops."""

    def __init__(self, stream) -> None:
        self.cut = False
        self.error = ""
        self.text = _Writer(stream, self)
        binary = getattr(stream, "buffer", None)  # (stream-json writes bytes)
        self.text.buffer = _Writer(binary, self) if binary is not None else None

    @property
    def stopped(self) -> bool:
        return self.cut or bool(self.error)

    def flush(self) -> None:
        self.text.flush()

    def failed(self, exc: OSError) -> None:
        if isinstance(exc, BrokenPipeError):
            self.cut = True
        elif not self.error:
            self.error = exc.strerror or str(exc)
        _silence_stdout()  # (what is still buffered goes nowhere, not to a traceback at exit)


class _Writer:
    def __init__(self, stream, out: Output) -> None:
        self.stream, self.out = stream, out
        self.buffer: _Writer | None = None

    def write(self, data):
        if not self.out.stopped:
            try:
                self.stream.write(data)
            except OSError as exc:
                self.out.failed(exc)
        return len(data)

    def flush(self) -> None:
        if not self.out.stopped:
            try:
                self.stream.flush()
            except OSError as exc:
                self.out.failed(exc)


def _json_escapes(exc: UnicodeError) -> tuple[str, int]:
    """An encoding error handler: what cannot be encoded becomes ``\\uXXXX`` (a surrogate pair
    past U+FFFF), the escape JSON itself uses, and plain to read in text."""
    if not isinstance(exc, UnicodeEncodeError):
        raise exc
    return "".join(map(json_escape, exc.object[exc.start : exc.end])), exc.end


def _escape_what_stdout_cannot_encode() -> None:
    """Standard output in ASCII or Latin-1 (``PYTHONIOENCODING``, an old locale): a character it
    has no code for ("—", "✓") is written as a JSON escape (``\\u2014``), not a traceback."""
    stream = sys.stdout
    if (getattr(stream, "encoding", None) or "utf-8").lower().replace("-", "").replace("_", "") not in ("utf8", "utf8sig"):
        codecs.register_error("agent_viewer.json_escapes", _json_escapes)
        try:
            stream.reconfigure(errors="agent_viewer.json_escapes")
        except (AttributeError, ValueError, OSError):
            pass


def run_print(path: str | None, output_format: str, follow: bool, save: str | None = None,
              until_result: bool = False) -> int:
    _escape_what_stdout_cannot_encode()
    out = Output(sys.stdout)
    printer = make_printer(output_format, out_text=out.text, follow=follow)
    splitter = LineSplitter()
    recorder = open_recorder(save)
    try:  # --follow reads the path itself (and waits for it to appear)
        fd = -1 if follow else 0 if path is None else os.open(path, os.O_RDONLY)
    except OSError as exc:
        raise SourceError(f"{path}: cannot open ({exc.strerror})") from None
    try:
        if (output_format == "json" and path is not None and recorder is None and not follow
                and print_file_with_workers(printer, fd)):  # a big file: read on every core
            code = printer.finish()
        else:
            code = _print_loop(printer, splitter, fd, path, follow, recorder, out, until_result)
        out.flush()
        if code and path is not None and fd > 0 and printer.run_unended:
            _tell_if_still_written(fd, path, output_format)
        if out.error:
            raise SourceError(f"cannot write the output ({out.error})")
        # The reader went away (`| head`): quiet, like other Unix filters.  The input was read
        # on (see Output), so the status is still the run's; a followed file stopped there.
        return 0 if out.cut and follow and not until_result else code
    finally:
        if fd > 0:
            os.close(fd)
        if recorder is not None:
            recorder.close()


def _tell_if_still_written(fd: int, path: str, output_format: str) -> None:
    """A file whose run has no result, that changed moments ago, is likely still being written
    by the agent: say which command reads on (the TUI says it in its header)."""
    from viewer.core.feed import still_written

    try:
        read = os.lseek(fd, 0, os.SEEK_CUR)  # (read to here; decoding workers read with pread: 0)
    except OSError:  # a FIFO, `<(producer)`: no file to be written
        return
    why = still_written(fd, read or None)
    if why:
        command = ["agent-viewer", "--print"] + (["--output-format", output_format] if output_format != "text" else [])
        command = shlex.join([*command, "--follow", "--until-result", path])
        tell(f"the file may still be written ({why}): {command} reads on to the run's end", sys.stderr)


def _silence_stdout() -> None:
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError):
        pass


def _from_a_writer(fd: int, follow: bool) -> bool:
    """Whether ``fd`` is a pipe (or the like) whose writer may pause, not a saved file read at
    once (``--follow`` reads its file itself)."""
    try:
        return not follow and not stat.S_ISREG(os.fstat(fd).st_mode)
    except OSError:
        return False


def _print_loop(printer, splitter, fd, path, follow, recorder, out: Output, until_result: bool = False) -> int:
    """Once the output is cut, a file is read on to its end and a pipe to its run's result;
    a followed file stops (see :class:`Output`).  With ``until_result``, a followed file or a
    pipe stops once its last run has its result and nothing more is there to read."""
    warned = False
    writer = _from_a_writer(fd, follow)
    # When lines came times a run whose stream has no times (Codex's): a pipe's as they come,
    # a followed file's once what it held as it was opened is read (those came at once).
    timed = writer
    tick = SETTLE_TICK if until_result else IDLE_TICK  # (a writer's silence: see _read_chunks)
    grew = time.monotonic()  # when the input last gave bytes
    checked = not writer and not follow  # (a saved file's first bytes were checked as it was opened)
    for chunk in _follow_chunks(path, tick) if follow else _read_chunks(fd, tick if writer else None):
        if chunk == b"":  # all there is was read (a pipe: silent for a tick)
            # (a last line without its newline: its bytes came when the input last grew)
            quiet = time.monotonic() - grew
            printer.feed_lines(splitter.settle(quiet), grew if timed else None)
            printer.settle(splitter, quiet, grew if timed else None)
            timed = timed or follow
            if until_result and printer.run_over and not splitter.partial_bytes:
                return printer.finish()  # (not while the next run's first line is part-way written)
            if hasattr(printer, "idle"):  # text mode may say what runs
                printer.idle()
            out.flush()
            continue
        if chunk is None:  # --follow: the file was truncated or replaced
            if recorder is not None:
                recorder.restarted(path)
                if recorder.error and not warned:
                    warned = True
                    say(recorder.error)
            printer.feed_lines(splitter.flush())
            printer.restart()
            say(f"{path} was truncated or replaced: reading it again from its start")
            continue
        if not checked:  # the first bytes: a pipe's, a FIFO's under --follow
            checked = True
            check_head(chunk, "-" if path is None else path, piped=path is None)
        grew = time.monotonic()
        if recorder is not None:
            recorder.write(chunk)
            if recorder.error and not warned:
                warned = True
                say(recorder.error)
        printer.feed_lines(splitter.feed(chunk), grew if timed else None)
        out.flush()
        if out.error or (out.cut and follow and not until_result):
            return 0  # (checked here, not when a next chunk comes: it may never come)
        if out.cut and writer and printer.run_over:
            # A pipe is read on to its run's result, not for ever: `tail -f log | agent-viewer
            # --print | head` ended with head, and must still (the run's status is known).
            return printer.finish()
    printer.feed_lines(splitter.flush())
    return printer.finish()


def open_recorder(save: str | None):
    if save is None:
        return None
    from viewer.core.record import Recorder

    if os.path.isdir(save):
        raise SourceError(f"--save {save}: is a directory")
    try:
        return Recorder(save)
    except OSError as exc:  # (the timing sidecar's name, if it is the one: a directory, say)
        which = "" if exc.filename in (None, save) else f" {exc.filename}"
        raise SourceError(f"--save {save}: cannot write{which} ({exc.strerror})") from None


CONTEXT = {"help_option_names": ["-h", "--help"], "max_content_width": 100}


@click.command(context_settings=CONTEXT)
@click.argument("file", required=False, metavar="[FILE|-]")
@click.option("-p", "--print", "print_mode", is_flag=True,
              help="Print instead of opening the TUI (implied when stdout is not a terminal).")
@click.option("--output-format", type=click.Choice(OUTPUT_FORMATS), default=None,
              help="Output of --print: human lines (text, the default), the final result object "
                   "(json) or the cleaned events (stream-json).")
@click.option("-f", "--follow", is_flag=True, help="Keep reading FILE as it grows (like tail -F).")
@click.option("--until-result", is_flag=True,
              help="--print: stop once the run has its result and nothing more has come (for --follow, "
                   "or a pipe that stays open); the exit status is the run's.")
@click.option("--demo", is_flag=True, help="Open the bundled demo run.")
@click.option("--save", metavar="PATH",
              help="Save the live input byte for byte to PATH, replacing it (plus PATH.timing "
                   "for --replay).")
@click.option("--replay", is_flag=True, help="Play FILE back as if it were live.")
@click.option("--speed", type=_Number(0.25, 64, words="0.25 to 64"), default=1.0, show_default=True,
              help="Replay speed (0.25 to 64).")
@click.option("--start-at", metavar="EVENT|TIME", help="Replay from an event number (120) or a time (90s, 1:30, 1:02:30, 5m, 1h30m).")
@click.option("--paused", is_flag=True, help="Start the replay paused.")
@click.option("--idle-limit", type=_Number(0, min_open=True, words="seconds, more than 0"), default=3.0, show_default=True,
              metavar="SECONDS",
              help="Replay: cap idle gaps to this many seconds (more than 0; a big number keeps "
                   "every pause as it was).")
@click.version_option(__version__, "-V", "--version", prog_name=PROG)
def cli(
    file: str | None, print_mode: bool, output_format: str | None, follow: bool, until_result: bool, demo: bool,
    save: str | None, replay: bool, speed: float, start_at: str | None, paused: bool, idle_limit: float,
) -> int:
    """Watch a coding-agent run (Cursor's, Claude Code's or Gemini CLI's stream-json, or
    Codex's exec --json) live, or open a saved one.

    \b
      cursor-agent -p --output-format stream-json "fix the tests" | agent-viewer
      claude -p --output-format stream-json --verbose "fix the tests" | agent-viewer
      codex exec --json "fix the tests" | agent-viewer
      gemini -p "fix the tests" --output-format stream-json | agent-viewer
      agent-viewer run.ndjson
      agent-viewer --follow run.ndjson
      agent-viewer --print --output-format json run.ndjson
      agent-viewer --print --follow --until-result run.ndjson
      cursor-agent ... | agent-viewer --save run.ndjson
      agent-viewer --replay --speed 4 run.ndjson

    With no FILE, reads standard input when it is a pipe or a file, and
    opens the bundled demo run otherwise (--print then needs --demo).
    """
    stdin_is_data = _stdin_is_data()
    no_input = False  # no FILE and nothing on standard input: the demo is opened instead
    if demo:
        if file:
            raise click.UsageError("--demo takes no FILE")
        if follow:  # (it followed the bundled file for good, which never grows)
            raise click.UsageError("--demo cannot be combined with --follow (the demo run is a finished file)")
        file = demo_path()
    if file == "-":
        file = None
        if follow:
            raise click.UsageError("--follow needs a FILE, not standard input")
    elif file is None:
        if follow:
            raise click.UsageError("--follow needs a FILE")
        if not stdin_is_data or os.environ.get("TEXTUAL_DRIVER"):
            file, no_input = demo_path(), not stdin_is_data
    file = _named_stdin(file)
    if file is not None and not (follow and _may_appear(file)):
        check_readable(file)  # (--follow waits for a file that is not there yet, like tail -F)
    elif file is None and stdin_is_data:
        check_is_text(sys.stdin.fileno(), "-")  # agent-viewer < run.ndjson.gz
    stream = file is not None and is_stream_path(file)  # a FIFO, /dev/stdin, <(producer)
    if stream and stdin_is_data and _reads_from(file, None):
        file = None  # `producer | agent-viewer /dev/stdin`: standard input, read as such
    if stream:
        # A pipe is read live until its writer closes it; --follow goes on with the next writer
        # of a named FIFO (other pipes end with theirs).
        follow = follow and file is not None and reopenable_fifo(file)
    if replay:
        if file is None:
            file = _stdin_file_name()  # agent-viewer --replay < run.ndjson
        if file is None:
            raise click.UsageError("--replay needs a FILE" + (
                " (standard input is a pipe: --save keeps a stream to replay)" if stdin_is_data else ""))
        if stream:
            raise click.UsageError("--replay needs a saved file, not a pipe (save a stream with --save)")
        if follow or save:
            raise click.UsageError("--replay cannot be combined with --follow or --save")
    else:
        ctx = click.get_current_context()
        given = [f"--{name.replace('_', '-')}" for name in ("speed", "start_at", "paused", "idle_limit")
                 if ctx.get_parameter_source(name) is not click.core.ParameterSource.DEFAULT]
        if given:
            raise click.UsageError(f"{' and '.join(given)} {'apply' if len(given) > 1 else 'applies'} "
                                   "to --replay")
    if save is not None and file is not None and not follow and not stream:
        raise click.UsageError("--save records a live stream: standard input, or FILE with --follow")
    if save is not None and _reads_from(save, file):
        # Opening PATH for writing would empty the very file being read.
        raise click.UsageError(f"--save {save} is the file being read; save to another path")

    if sys.stdout is None:  # (`>&-`: Python has no sys.stdout at all)
        raise SourceError("standard output is closed: nothing to print to")
    if print_mode or output_format is not None or not sys.stdout.isatty():
        if replay:
            why = "" if print_mode or output_format else " and standard output is not a terminal"
            raise click.UsageError(f"--replay plays in the TUI{why}; use --print without --replay")
        if no_input:
            # A script whose log variable came out empty must not print the demo's success.
            raise SourceError(f"no input: give a FILE or pipe a stream in (standard input is {_stdin_kind()}; "
                              "--demo prints the bundled demo run)")
        if until_result and file is not None and not follow and not stream:
            # (From a trial: accepted, it did nothing; the file was read as it was.)
            raise click.UsageError("--until-result reads a file on to its run's end with --follow: add --follow")
        if demo:  # (said apart from the output: stdout is the run's, as for any other file)
            tell(f"the bundled demo run, a recorded Cursor CLI session ({file})", sys.stderr)
        return run_print(file, output_format or "text", follow, save, until_result)
    if until_result:
        raise click.UsageError("--until-result applies to --print (the TUI keeps the run on screen until q)")

    from viewer.ui import launch  # Textual is imported only for the TUI

    if replay:
        assert file is not None
        code = launch.launch_replay(file, speed=speed, start_at=start_at, paused=paused, idle_limit=idle_limit,
                                    demo=file == demo_path())
    else:
        code = launch.launch(file, follow=follow, save=save, demo=file == demo_path())
    # The screen is closed and the terminal restored: leave without taking apart a heap that may
    # hold millions of objects (a 1M-event replay took 2-3 s to exit, after its screen was gone).
    sys.stdout.flush()
    if sys.stderr is not None:  # (2>&-)
        sys.stderr.flush()
    os._exit(code)


def _stdin_is_data() -> bool:
    """Is standard input a pipe, a file or a socket (not a terminal, not /dev/null)?"""
    try:
        mode = os.fstat(sys.stdin.fileno()).st_mode
    except (OSError, ValueError, AttributeError):
        return False
    return stat.S_ISFIFO(mode) or stat.S_ISREG(mode) or stat.S_ISSOCK(mode)


def _stdin_file_name() -> str | None:
    """The name of the saved file standard input is redirected from, if it still has it."""
    try:
        regular = stat.S_ISREG(os.fstat(0).st_mode)
        name = os.readlink("/proc/self/fd/0")
    except (OSError, ValueError):
        return None
    return name if regular and _reads_from(name, None) else None  # (not a file since renamed or deleted)


#: Names of standard input itself.
STDIN_NAMES = ("/dev/stdin", "/dev/fd/0", "/proc/self/fd/0")


def _named_stdin(file: str | None) -> str | None:
    """FILE naming standard input redirected from a saved file (``--follow /dev/stdin <
    run.ndjson``): that file's own name.  The TUI puts the keyboard on fd 0: opened after
    that (a followed file is opened by its reader), /dev/stdin was the terminal."""
    if file in STDIN_NAMES:
        return _stdin_file_name() or file
    return file


def _stdin_kind() -> str:
    """What standard input is, when it is no stream to read (see _stdin_is_data).  (From a
    trial: ``< /dev/null`` said "standard input is empty", the words of an empty pipe, which
    is read, and exits 1.)"""
    try:
        fd = sys.stdin.fileno()
        if os.isatty(fd):
            return "a terminal"
        st = os.fstat(fd)
    except (OSError, ValueError, AttributeError):
        return "closed"
    try:
        null = os.stat(os.devnull)
        if stat.S_ISCHR(st.st_mode) and st.st_rdev == null.st_rdev:
            return os.devnull
    except OSError:
        pass
    return "not a pipe nor a file"


def _may_appear(path: str) -> bool:
    """Is ``path`` missing from a directory that exists (a file that may be created soon)?  Not
    when the directory may not be searched (it waited for good: check_readable says why)."""
    if not path:
        return False
    try:
        os.lstat(path)
    except FileNotFoundError:
        return os.path.isdir(os.path.dirname(os.path.abspath(path)))
    except OSError:
        return False
    return False


def _reads_from(path: str, file: str | None) -> bool:
    """Is ``path`` the input: FILE, or the file standard input is redirected from?"""
    try:
        target = os.stat(path)
    except OSError:  # a new file: the input only if it is the same path (--follow waits for it)
        return file is not None and os.path.realpath(path) == os.path.realpath(file)
    try:
        source = os.stat(file) if file is not None else os.fstat(sys.stdin.fileno())
    except (OSError, ValueError, AttributeError):
        return False
    return (source.st_dev, source.st_ino) == (target.st_dev, target.st_ino)


def _hold_fd0() -> None:
    """With standard input closed (``<&-``), the next file opened would be fd 0, and be taken
    for standard input (the TUI puts the keyboard there): /dev/null holds its place.  Python
    still has no ``sys.stdin``, so it is still said to be closed."""
    try:
        os.fstat(0)
    except OSError:
        fd = os.open(os.devnull, os.O_RDONLY)
        if fd != 0:  # pragma: no cover - (the lowest free descriptor is 0)
            os.dup2(fd, 0)
            os.close(fd)


def _usage_words(message: str, argv: list[str]) -> str:
    """Click's message, said as this tool's ("Got unexpected extra argument (b.ndjson)": it
    reads one FILE at a time; ``--print json run.ndjson``: json was taken for the FILE)."""
    extra = re.fullmatch(r"Got unexpected extra arguments? \((.*)\)", message)
    if not extra:
        return message
    fmt = next((a for i, a in enumerate(argv) if a in OUTPUT_FORMATS and (i == 0 or argv[i - 1] != "--output-format")), None)
    if fmt is not None:
        return f"one FILE at a time ({fmt} was taken for one; the output format is --output-format {fmt})"
    return f"one FILE at a time (extra: {extra.group(1)})"


def main(argv: list[str] | None = None) -> None:
    """Entry point: one clear line on stderr for any usage or input error."""
    _hold_fd0()
    try:
        code = cli.main(args=argv, prog_name=PROG, standalone_mode=False)
    except click.exceptions.NoSuchOption as exc:
        fail(f"{exc.format_message()} (see {PROG} --help)")
    except click.ClickException as exc:
        fail(f"{_usage_words(exc.format_message(), sys.argv[1:] if argv is None else argv)} (see {PROG} --help)")
    except click.exceptions.Abort:
        sys.exit(130)
    except SourceError as exc:
        fail(str(exc))
    except KeyboardInterrupt:
        sys.exit(130)
    except BrokenPipeError:
        _silence_stdout()
        sys.exit(0)
    sys.exit(code if isinstance(code, int) else 0)
