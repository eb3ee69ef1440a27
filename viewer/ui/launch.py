"""Start the TUI: pick the feed, free fd 0 for the keyboard, run the app."""

from __future__ import annotations

import os
import stat
import sys
import time
from collections.abc import Callable
from contextlib import contextmanager

from viewer.core.feed import Feed, FileFeed, FollowFeed, PipeFeed, StoreFeed
from viewer.core.formats import get_format
from viewer.core.printer import tell
from viewer.core.sources import SourceError, is_stream_path


def _open_keyboard(why: str) -> int:
    """A descriptor of the terminal, for the keys: /dev/tty, or (no controlling terminal:
    ``setsid``) the terminal standard error is on, which the TUI draws on anyway."""
    try:
        return os.open("/dev/tty", os.O_RDWR)
    except OSError:
        pass
    try:
        return os.open(os.ttyname(2), os.O_RDWR)
    except OSError:
        raise SourceError(f"no terminal for the keyboard ({why} and there is no /dev/tty); "
                          "use --print to read the stream without the TUI") from None


def _keyboard_on_fd0(why: str) -> None:
    tty_fd = _open_keyboard(why)  # (on fd 0 itself when it was closed)
    if tty_fd != 0:
        os.dup2(tty_fd, 0)
        os.close(tty_fd)


def detach_stdin() -> int | None:
    """If fd 0 carries data, keep it on a new fd and give fd 0 to the terminal.

    Textual's Linux driver reads keys from fd 0; with ``producer | agent-viewer``
    that is the producer's pipe.  Moving the pipe aside and opening
    ``/dev/tty`` on fd 0 keeps the keyboard working.
    """
    if os.isatty(0):
        return None
    data_fd = os.dup(0)
    try:
        _keyboard_on_fd0("stdin is a pipe")
    except SourceError:
        os.close(data_fd)
        raise
    return data_fd


def keyboard_on_stdin() -> None:
    """Textual's Linux driver reads keys from fd 0 (``sys.__stdin__``).  When that is not the
    terminal (``< /dev/null`` or another file besides FILE: no key worked, q did not quit;
    ``<&-``: Python has no stdin, and the driver failed with a traceback), the terminal is put
    there.  After :func:`make_feed` (standard input read as data is moved aside first; a FILE
    that names it, /dev/stdin, is given by its own name: see the CLI's ``_named_stdin``)."""
    if os.environ.get("TEXTUAL_DRIVER"):
        return  # (headless, tests)
    try:
        if os.isatty(0):
            return
    except OSError:
        pass
    _keyboard_on_fd0("standard input is not one")
    if sys.__stdin__ is None or sys.stdin is None:
        sys.stdin = sys.__stdin__ = open(0, closefd=False)  # noqa: SIM115 - (fd 0 stays open)


def make_feed(path: str | None, follow: bool, tee: Callable[[bytes], None] | None = None,
              on_restart: Callable[[], None] | None = None) -> Feed:
    if path is None:
        fd = detach_stdin()
        if fd is None:  # pragma: no cover - the CLI opens the demo instead
            raise SourceError("nothing to read: stdin is a terminal")
        return stdin_feed(fd, tee)
    if is_stream_path(path):  # a FIFO, /dev/stdin, <(producer): read live, spooled
        # (--follow: a named FIFO is opened again for each next writer; the CLI says when)
        return PipeFeed(None, label=path, tee=tee, path=path, reopen=follow)
    if follow:
        return FollowFeed(path, tee=tee, on_restart=on_restart)
    return FileFeed(path)


def stdin_feed(fd: int, tee: Callable[[bytes], None] | None = None) -> Feed:
    """Standard input, moved to ``fd``: a pipe is read live; a saved file (``agent-viewer <
    run.ndjson``) is opened as a file, read whole by offset (and by worker processes when it
    is big), as fast as by its name (read as a pipe, 8-10 times slower)."""
    try:
        regular = stat.S_ISREG(os.fstat(fd).st_mode) and os.lseek(fd, 0, os.SEEK_CUR) == 0
    except OSError:
        regular = False
    if regular and tee is None:
        # Read through the descriptor itself (by name it may not be open-able: another user's
        # file, or one whose permissions changed since the shell opened it).
        return FileFeed("stdin", fd=fd)
    return PipeFeed(fd, label="stdin", tee=tee)


@contextmanager
def terminal_stdout():
    """The UI draws on stderr but sizes itself from stdout: point stdout at the terminal."""
    if not os.isatty(2) and not os.environ.get("TEXTUAL_DRIVER"):
        raise SourceError(
            "the TUI draws on standard error, which is not a terminal (redirected with 2>?); "
            "keep stderr on the terminal, or use --print for plain output"
        )
    saved = None
    if not os.isatty(1) and not os.environ.get("TEXTUAL_DRIVER"):
        saved = os.dup(1)
        os.dup2(2, 1)
    try:
        yield
    finally:
        if saved is not None:
            os.dup2(saved, 1)
            os.close(saved)


DEMO_GREETING = (
    "This is the bundled demo run. Pipe an agent's stream in (cursor-agent -p --output-format "
    "stream-json ... | agent-viewer) or open a saved one (agent-viewer run.ndjson). ? lists the keys."
)


def launch(path: str | None, follow: bool = False, save: str | None = None, demo: bool = False) -> int:
    from viewer.cli import open_recorder

    recorder = open_recorder(save)
    with terminal_stdout():
        feed = make_feed(path, follow, tee=recorder.write if recorder else None,
                         on_restart=(lambda: recorder.restarted(path)) if recorder and path else None)
        try:
            keyboard_on_stdin()
            # A big file's decoding workers start now, while the UI is imported (in the format
            # its start is written in: the app's model starts in the one they read).
            feed.gather_runs(get_format())
            feed.prepare()
            from viewer.ui.app import AgentViewerApp

            app = AgentViewerApp(feed, recorder=recorder)
            app.theme_asked = os.environ.get(THEME_ENV)
            if demo:
                app.greeting, app.demo = DEMO_GREETING, True
            app.run()
        finally:
            feed.stop()
            if recorder is not None:
                recorder.close()
    if recorder is not None:  # (it names the --save path)
        tell(recorder.error or recorder.outcome(), sys.stderr)
    if app.exit_note:  # (why the exit status is not 0: the run failed, or had not ended)
        tell(app.exit_note, sys.stderr)
    return app.return_code or 0


#: The environment variable that names the theme to start in (textual-light, nord, ...).
THEME_ENV = "AGENT_VIEWER_THEME"

#: ``--start-at`` reads the file up to there for at most this long before the UI starts (so a
#: bad position is an error on the command line); the rest is done in the app, on screen.
START_AT_WAIT = 0.5


def launch_replay(path: str, speed: float = 1.0, start_at: str | None = None, paused: bool = False,
                  idle_limit: float | None = 3.0, demo: bool = False) -> int:
    from viewer.core.record import read_restarts, read_timing, timing_mismatch
    from viewer.core.replay import FileIndex, Replay

    feed = StoreFeed(path)
    size = os.fstat(feed.store.fileno()).st_size  # type: ignore[attr-defined]
    timing = read_timing(path)
    not_its_own = timing_mismatch(path, size, timing)
    if not_its_own:  # (played by another run's times, silently: from a trial)
        timing, restarts = None, []
    else:
        restarts = read_restarts(path)
    index = FileIndex(feed.store, size, timing=timing, restarts=restarts, idle_limit=idle_limit)
    try:
        replay = Replay(index=index, speed=speed, playing=not paused)
        if start_at is not None:
            begin_at(replay, index, path, start_at, idle_limit)
        with terminal_stdout():
            keyboard_on_stdin()
            from viewer.ui.replay import ReplayApp

            app = ReplayApp(replay, feed)  # it reads the rest of the file once it is on screen
            if not_its_own:
                app.notices.append(("Timing file", not_its_own))
            app.theme_asked = os.environ.get(THEME_ENV)
            app.demo = demo
            app.run()
    finally:
        index.stop()
    return app.return_code or 0


def begin_at(replay, index, path: str, start_at: str, idle_limit: float | None,
             wait: float = START_AT_WAIT) -> None:
    """``--start-at``: read the file up to there (for at most ``wait`` seconds) and go there;
    a position past the end is an error.  In a file too big to read that far in time, the
    replay goes there once it is read (see :meth:`Replay.settle_start`)."""
    from viewer.core.replay import StartAt

    try:
        start = StartAt(start_at, idle_limit)
    except ValueError as exc:
        raise SourceError(str(exc)) from None
    deadline = time.monotonic() + wait
    index.read(until=lambda: start.reached(index.records, index.times) or time.monotonic() > deadline)
    if index.error:
        raise SourceError(f"{path}: {index.error}")
    why = replay.begin_at(start)
    if why:
        raise SourceError(why)

