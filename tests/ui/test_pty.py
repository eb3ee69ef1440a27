"""The real console script in a pseudo-terminal, fed by a piped producer.

This is the path users take (`cursor-agent ... | agent-viewer`): fd 0 is the
pipe, the keyboard must still work, and quitting while the producer is still
running must return at once.
"""

from __future__ import annotations

import fcntl
import os
import pty
import re
import select
import shutil
import signal
import struct
import sys
import termios
import textwrap
import time
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
ANSI = re.compile(rb"\x1b\[[0-9;?<>=]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(\x07|\x1b\\)|\x1b[@-Z\\-_]")

PRODUCER = textwrap.dedent(
    """
    import sys, time
    lines = open(sys.argv[1], "rb").read().splitlines(keepends=True)
    for line in lines[: int(sys.argv[2])]:
        sys.stdout.buffer.write(line)
        sys.stdout.flush()
        time.sleep(0.01)
    time.sleep(60)  # a producer that is still running
    """
)


class Pty:
    def __init__(self, command: str, cols: int = 120, rows: int = 40) -> None:
        self.pid, self.fd = pty.fork()
        if self.pid == 0:  # child: a session with the pty as controlling terminal
            env = dict(os.environ, TERM="xterm-256color", TEXTUAL_ANIMATIONS="none")
            os.execvpe("/bin/sh", ["/bin/sh", "-c", command], env)
        fcntl.ioctl(self.fd, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))
        self.buffer = b""

    def read_until(self, pattern: bytes, timeout: float) -> bool:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if pattern in ANSI.sub(b"", self.buffer):
                return True
            r, _, _ = select.select([self.fd], [], [], 0.05)
            if r:
                try:
                    chunk = os.read(self.fd, 65536)
                except OSError:
                    break
                if not chunk:
                    break
                self.buffer += chunk
        return pattern in ANSI.sub(b"", self.buffer)

    def send(self, data: bytes) -> None:
        os.write(self.fd, data)

    def wait_exit(self, timeout: float) -> int | None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            pid, status = os.waitpid(self.pid, os.WNOHANG)
            if pid:
                return os.waitstatus_to_exitcode(status)
            try:  # keep draining so the child never blocks on output
                r, _, _ = select.select([self.fd], [], [], 0.05)
                if r:
                    self.buffer += os.read(self.fd, 65536)
            except OSError:
                time.sleep(0.05)
        return None

    def kill(self) -> None:
        try:
            os.killpg(self.pid, signal.SIGKILL)
        except OSError:
            pass
        try:
            os.kill(self.pid, signal.SIGKILL)
            os.waitpid(self.pid, 0)
        except OSError:
            pass


@pytest.fixture
def producer(tmp_path):
    script = tmp_path / "producer.py"
    script.write_text(PRODUCER)
    return script


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="pty + /dev/tty test for Linux")
@pytest.mark.parametrize("arg", ["", "/dev/stdin"])  # `producer | agent-viewer /dev/stdin` too
@pytest.mark.parametrize("key, status", [(b"qq", 1), (b"\x03", 130)], ids=["q", "ctrl+c"])
def test_piped_producer_keys_work_and_quit_is_prompt(producer, tmp_path, arg, key, status):
    """Quit with q, q again as the first one asks (the run is still going): status 1, the run
    had not ended.  (From a new-user trial.)  Ctrl+C gave 0, so ``producer | agent-viewer &&
    next`` went on; it is 130, as an interrupted program's, at once."""
    stream = REPO / "sample_streams" / "demo_session.ndjson"
    viewer = shutil.which("agent-viewer") or f"{sys.executable} -m viewer"
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    # The producer writes into a pipe (a FIFO) that becomes the viewer's stdin; `exec` makes
    # the viewer the process we watch, so its exit is measured, not the producer's.
    cmd = f"{sys.executable} {producer} {stream} 60 > {fifo} & exec {viewer} {arg} < {fifo}"
    p = Pty(cmd)
    try:
        # The stream shows up live: the prompt and the first tool calls.
        assert p.read_until(b"LIVE", 15), ANSI.sub(b"", p.buffer)[-2000:]
        assert p.read_until(b"Tool calls", 5)
        # Keys reach the app although stdin is a pipe: open help, close it.
        p.send(b"?")
        assert p.read_until(b"agent-viewer keys", 5), "help did not open: keys not read from the terminal"
        p.send(b"\x1b")
        time.sleep(0.3)
        # Quit while the producer still runs (it sleeps 60 s): must exit at once.
        start = time.monotonic()
        mark = len(p.buffer)
        p.send(key)
        code = p.wait_exit(5)
        elapsed = time.monotonic() - start
        assert code == status, f"viewer did not exit with {status} within 5 s of pressing {key!r}: {code}"
        assert elapsed < 3
        # The terminal is given back: alternate screen left, echo and line input on again.
        assert b"\x1b[?1049l" in p.buffer[mark:]
        attrs = termios.tcgetattr(p.fd)
        assert attrs[3] & termios.ECHO and attrs[3] & termios.ICANON
    finally:
        p.kill()


def _shows_then_quits(command: str, *shown: bytes) -> None:
    """``command`` in a pseudo-terminal (``{viewer}``: the console script, ``{demo}``: the demo
    run) shows each of ``shown`` in turn, then q quits it, with status 0."""
    viewer = shutil.which("agent-viewer") or f"{sys.executable} -m viewer"
    p = Pty(command.format(viewer=viewer, demo=REPO / "sample_streams" / "demo_session.ndjson"))
    try:
        assert p.read_until(shown[0], 15), ANSI.sub(b"", p.buffer)[-2000:]
        for more in shown[1:]:
            assert p.read_until(more, 5), ANSI.sub(b"", p.buffer)[-2000:]
        time.sleep(0.3)
        p.send(b"q")
        assert p.wait_exit(5) == 0
    finally:
        p.kill()


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="pty + /dev/tty test for Linux")
@pytest.mark.parametrize("args,stdin", [  # (each way to open a file, and each such stdin, once: 2 s each)
    ("{run}", "<&-"), ("--replay {run}", "< /dev/null"), ("--follow {run}", "< {other}"), ("{run}", "< {other}"),
], ids=["open-closed", "replay-dev-null", "follow-another file", "open-another file"])
def test_keys_work_when_standard_input_is_not_the_terminal(tmp_path, stdin, args):
    """(From a new-user trial.)  Started from a script with standard input closed, the TUI
    failed with a traceback; with it on /dev/null or another file, no key reached it (q did
    not quit).  The keyboard is read from the terminal, and the run is read (with fd 0 closed,
    the file opened took its place, then the keyboard's: "Illegal seek")."""
    run = REPO / "sample_streams" / "demo_session.ndjson"
    other = tmp_path / "other.txt"
    other.write_text("q" * 10_000)  # (were its bytes read as keys, the first would quit)
    viewer = shutil.which("agent-viewer") or f"{sys.executable} -m viewer"
    p = Pty(f"exec {viewer} {args.format(run=run)} {stdin.format(other=other)} 2>&1")
    try:
        assert p.read_until(b"Composer 2.5", 15), ANSI.sub(b"", p.buffer)[-2000:]  # (the run's model)
        assert p.wait_exit(0.5) is None  # (still running)
        p.send(b"?")
        assert p.read_until(b"agent-viewer keys", 5), "help did not open: keys not read from the terminal"
        p.send(b"\x1b")
        time.sleep(0.3)
        p.send(b"q")
        assert p.wait_exit(5) == 0
        assert b"Traceback" not in p.buffer
    finally:
        p.kill()


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="pty + /dev/tty test for Linux")
def test_a_replay_of_standard_input_redirected_from_a_file_plays_that_file():
    """(From a new-user trial.)  `agent-viewer --replay < run.ndjson` said "--replay needs a
    FILE", though the README says such input is opened as fast as by its name."""
    run = REPO / "sample_streams" / "failed_run.ndjson"
    events = len(run.read_bytes().splitlines())
    _shows_then_quits(f"exec {{viewer}} --replay --start-at {events} < {run} 2>&1",
                      b"FAILED", b"event " + str(events).encode())  # (the replay bar, at its end)


@pytest.mark.skipif(not sys.platform.startswith("linux") or not shutil.which("setsid"),
                    reason="pty + setsid test for Linux")
def test_keys_work_without_a_controlling_terminal():
    """(From a code review.)  With no /dev/tty (``setsid``: no controlling terminal) and
    standard input not a terminal, the keys are read from the terminal standard error is on
    (it refused to start: "no terminal for the keyboard")."""
    _shows_then_quits("exec setsid -w {viewer} {demo} < /dev/null", b"Composer 2.5")


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="pty + /dev/tty test for Linux")
@pytest.mark.parametrize("args", ["/dev/stdin", "--follow /dev/stdin", "--replay /dev/fd/0"])
def test_a_file_named_as_standard_input_is_read_although_the_keys_take_fd_0(args):
    """(From a code review.)  `--follow /dev/stdin < run.ndjson` opened /dev/stdin after the
    keyboard was put on fd 0: it read the terminal ("waiting for events"), and ate a q."""
    _shows_then_quits(f"exec {{viewer}} {args} < {{demo}} 2>&1", b"Composer 2.5",
                      b"demo_session.ndjson" if "follow" in args else b"Composer 2.5")


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="pty + /dev/tty test for Linux")
def test_quitting_gives_a_still_writing_producer_a_broken_pipe(tmp_path):
    """Like `cursor-agent ... | agent-viewer`, then q: the agent is not left blocked on a full pipe."""
    viewer = shutil.which("agent-viewer") or f"{sys.executable} -m viewer"
    fifo, status = tmp_path / "pipe", tmp_path / "producer-status"
    os.mkfifo(fifo)
    writer = tmp_path / "writer.py"
    writer.write_text(
        "import signal, sys, time\n"
        "signal.signal(signal.SIGHUP, signal.SIG_IGN)  # the test's pty closes with the viewer\n"
        f"status = open({str(status)!r}, 'w')\n"
        "try:\n"
        "    for i in range(10**9):\n"
        "        sys.stdout.write('{\"type\":\"thinking\",\"subtype\":\"delta\",\"text\":\"%d \"}\\n' % i)\n"
        "        sys.stdout.flush()\n"
        "        time.sleep(0.002)\n"
        "except BrokenPipeError:\n"
        "    status.write('broken pipe'); status.close()\n"
    )
    p = Pty(f"{sys.executable} {writer} > {fifo} & exec {viewer} < {fifo}")
    try:
        assert p.read_until(b"LIVE", 15), ANSI.sub(b"", p.buffer)[-2000:]
        p.send(b"qq")  # (the first q says the run is going, the second one quits)
        assert p.wait_exit(5) is not None
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline and not status.read_text():
            time.sleep(0.05)
        assert status.read_text() == "broken pipe", "the producer was not told the viewer is gone"
    finally:
        p.kill()


HOSTILE_LINES = [
    {"type": "system", "subtype": "init", "session_id": "h", "model": "\x1b]0;PWNED-TITLE\x07M", "cwd": "/w"},
    {"type": "user", "message": {"content": [{"type": "text", "text": "hi \x1b[2J\x1b[H cleared?"}]},
     "session_id": "h"},
    {"type": "assistant", "message": {"content": [{"type": "text", "text":
        "copy \x1b]52;c;cHduZWQ=\x07 link \x1b]8;;http://evil.example\x07click\x1b]8;;\x07 "
        "[@click=app.quit]quit[/] [bold red]markup[/]"}]}, "session_id": "h"},
    {"type": "tool_call", "subtype": "started", "call_id": "c1", "session_id": "h",
     "tool_call": {"shellToolCall": {"args": {"command": "printf '\x1b[31mred\x1b[0m'"}}}},
    {"type": "tool_call", "subtype": "completed", "call_id": "c1", "session_id": "h",
     "tool_call": {"shellToolCall": {"args": {"command": "printf '\x1b[31mred\x1b[0m'"},
                                     "result": {"success": {"exitCode": 0, "stdout": "\x1b[31mred\x1b[0m\x1b[1A"}}}}},
    {"type": "assistant", "message": {"content": [{"type": "text", "text":
        "rtl \u202eevil.exe\u202c zw a\u200bb $HOME ${PATH} 日本語 🎉 cafe\u0301"}]}, "session_id": "h"},
    {"type": "result", "subtype": "success", "is_error": False, "result": "done", "session_id": "h"},
]


def _view_events(tmp_path, events: list[dict]) -> Pty:
    """The real console script in a pty, opening a file of these events."""
    import json

    stream = tmp_path / "stream.ndjson"
    stream.write_text("".join(json.dumps(x) + "\n" for x in events))
    viewer = shutil.which("agent-viewer") or f"{sys.executable} -m viewer"
    return Pty(f"exec {viewer} {stream}")


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="pty test for Linux")
def test_hostile_stream_cannot_reach_the_terminal(tmp_path):
    p = _view_events(tmp_path, HOSTILE_LINES)
    try:
        assert p.read_until(b"SUCCEEDED", 15), ANSI.sub(b"", p.buffer)[-2000:]
        p.send(b"\t")  # visit the detail of the shell call too
        time.sleep(0.5)
        p.read_until(b"never-there", 0.5)
        raw = p.buffer
        # None of the stream's control sequences reached the terminal...
        for seq in (b"\x1b]0;PWNED", b"\x1b]52;", b"\x1b]8;;http://evil", b"\x1b[2J\x1b[H cleared"):
            assert seq not in raw, f"{seq!r} was sent to the terminal"
        shown = ANSI.sub(b"", raw)
        # ...they are shown as visible text instead, and markup is literal.
        assert b"\\x1b]0;PWNED-TITLE" in shown
        assert b"[@click=app.quit]quit[/]" in shown
        # Reordering and invisible characters are shown as escapes; wide text and $vars as is.
        assert "\u202e".encode() not in raw and "\u200b".encode() not in raw
        assert b"\\u202eevil.exe" in shown and b"a\\u200bb" in shown
        assert "$HOME ${PATH} 日本語 🎉".encode() in shown
        p.send(b"q")
        assert p.wait_exit(5) == 0
    finally:
        p.kill()


HOSTILE_KIND = "x\x1b]0;KIND\x07[@click=app.quit]k[/]ToolCall"
HOSTILE_KEYS = [
    {"type": "system", "subtype": "init", "session_id": "h", "model": "m", "cwd": "/w"},
    {"type": "tool_call", "subtype": "started", "call_id": "c", "session_id": "h",
     "tool_call": {"shellToolCall": {"args": {"command": "ls"}}}},
    {"type": "tool_call", "subtype": "completed", "call_id": "c", "session_id": "h",
     "tool_call": {"shellToolCall": {"result": {"success": {"exitCode": 1, "signal": "\x1b[2J\x1b]0;SIG\x07"}}}}},
    {"type": "tool_call", "subtype": "completed", "call_id": "d", "session_id": "h",
     "tool_call": {HOSTILE_KIND: {"result": {"o\x1b]0;OUT\x07": {}}}}},
    {"type": "result", "subtype": "e\x1b]0;SUB\x07", "is_error": True, "result": "x\x1b]0;RES\x07", "session_id": "h"},
]


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="pty test for Linux")
def test_hostile_kinds_outcomes_and_subtypes_cannot_reach_the_terminal(tmp_path):
    """Keys and ids are stream text too: a tool kind, an outcome, a signal, a result subtype."""
    p = _view_events(tmp_path, HOSTILE_KEYS)
    try:
        assert p.read_until(b"FAILED", 15), ANSI.sub(b"", p.buffer)[-2000:]
        p.send(b"k")  # select the first call (exit 1, hostile signal) in the detail view
        time.sleep(0.3)
        p.send(b"cc")  # filter by kind until the hostile kind is in the list's title
        time.sleep(0.5)
        p.read_until(b"never-there", 0.5)
        raw = p.buffer
        for marker in (b"KIND", b"OUT", b"SIG", b"SUB"):
            assert b"\x1b]0;" + marker not in raw, f"the {marker.decode()} title escape reached the terminal"
        assert b"\x1b[2J\x1b]0;SIG" not in raw
        shown = ANSI.sub(b"", raw)
        assert b"\\x1b]0;SUB" in shown  # the failed run's subtype, shown as text
        assert b"[@click=app.quit]" in shown  # the kind key's markup is literal
        p.send(b"q")
        # Nothing in the stream turned into a quit action before; the status is the failed
        # run's, and the line that says why is plain text too.
        assert p.wait_exit(5) == 1
        p.read_until(b"never-there", 0.3)
        assert b"agent-viewer: the run failed: x\\x1b]0;RES" in p.buffer  # (shown escaped)
        assert b"\x1b]0;" not in p.buffer.replace(b"\x1b]0;agent-viewer", b"")
    finally:
        p.kill()


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="pty test for Linux")
@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_signals_end_the_viewer_and_restore_the_terminal(sig):
    stream = REPO / "sample_streams" / "demo_session.ndjson"
    viewer = shutil.which("agent-viewer") or f"{sys.executable} -m viewer"
    p = Pty(f"exec {viewer} {stream}")
    try:
        assert p.read_until(b"SUCCEEDED", 15)
        mark = len(p.buffer)
        os.kill(p.pid, sig)
        code = p.wait_exit(5)
        assert code == 128 + sig, f"exit status {code}"
        tail = p.buffer[mark:]
        assert b"\x1b[?1049l" in tail, "the alternate screen was not left"
        # The terminal is back in cooked mode: echo and canonical input are on again.
        attrs = termios.tcgetattr(p.fd)
        assert attrs[3] & termios.ECHO and attrs[3] & termios.ICANON
    finally:
        p.kill()


STUCK = textwrap.dedent(
    """
    import sys, threading
    from pathlib import Path
    import viewer.ui.app
    from viewer.core.feed import FileFeed
    from viewer.ui.app import AgentViewerApp

    viewer.ui.app.EXIT_GRACE = 1.0  # (3 s: the test's time)

    class Stuck(AgentViewerApp):
        CSS_PATH = str(Path(viewer.ui.app.__file__).with_name("app.tcss"))

        def after_mount(self):
            self.set_timer(0.5, self.block)

        def block(self):
            # What a dead terminal does: Textual's output thread died on the write error and
            # the loop waits for ever on its full queue.
            threading.Event().wait()

    app = Stuck(FileFeed(sys.argv[1]))
    app.run()
    sys.exit(app.return_code or 0)
    """
)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="pty test for Linux")
def test_a_hangup_ends_the_viewer_even_when_its_event_loop_is_stuck(tmp_path):
    """Closing the terminal window sent SIGHUP to a viewer whose loop was blocked on the dead
    terminal: it stayed behind for ever, deaf to TERM, INT and HUP."""
    script = tmp_path / "stuck.py"
    script.write_text(STUCK)
    stream = REPO / "sample_streams" / "demo_session.ndjson"
    p = Pty(f"cd {REPO} && exec {sys.executable} {script} {stream}")
    try:
        assert p.read_until(b"SUCCEEDED", 15), ANSI.sub(b"", p.buffer)[-2000:]
        time.sleep(1.0)  # the loop is stuck now
        os.kill(p.pid, signal.SIGHUP)
        assert p.wait_exit(10) == 128 + signal.SIGHUP
    finally:
        p.kill()


AFTER = textwrap.dedent(
    """
    import signal, sys, time
    import viewer.ui.app
    from viewer.core.feed import FileFeed
    from viewer.ui.app import AgentViewerApp

    viewer.ui.app.EXIT_GRACE = 1.0  # (3 s: the test's time)

    # (Compared with the handlers of before, not with Python's own: a process started with
    # Ctrl+C ignored, as a test runner's worker may start it, has SIG_IGN to begin with.)
    before = [signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)]
    app = AgentViewerApp(FileFeed(sys.argv[1]))
    app.run()
    # The app is gone: its handlers and its watchdog must be too.
    restored = [signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)] == before
    time.sleep(1.5)  # longer than the watchdog's grace
    print("AFTER-RUN", app.return_code, restored, flush=True)
    """
)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="pty test for Linux")
def test_after_a_signal_the_app_gives_back_the_signal_handlers_and_its_watchdog_stands_down(tmp_path):
    script = tmp_path / "after.py"
    script.write_text(AFTER)
    stream = REPO / "sample_streams" / "demo_session.ndjson"
    p = Pty(f"exec {sys.executable} {script} {stream}")
    try:
        assert p.read_until(b"SUCCEEDED", 15)
        os.kill(p.pid, signal.SIGTERM)
        assert p.wait_exit(10) == 0, ANSI.sub(b"", p.buffer)[-500:]  # not os._exit(143) mid-way
        assert b"AFTER-RUN 143 True" in ANSI.sub(b"", p.buffer)
    finally:
        p.kill()


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="pty test for Linux")
@pytest.mark.parametrize("args", ["{demo}", "--replay {demo}"], ids=["open", "replay"])
def test_the_theme_asked_for_in_the_environment_is_read(args):
    """AGENT_VIEWER_THEME names the theme to start in (from a keyboard-only trial: a light
    terminal's user chose one at every run); a name it does not know is said, not a crash."""
    _shows_then_quits(f"AGENT_VIEWER_THEME=no-such-theme {{viewer}} {args}", b"AGENT_VIEWER_THEME")  # (the toast wraps its words)
