"""--follow: a growing file, truncated or rotated under the viewer; --save fidelity."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import time

import orjson

from tests.conftest import ChildOutput, viewer_process
from viewer.core.decode import Event
from viewer.core.feed import FollowFeed, PipeFeed


def ev(i: int) -> bytes:
    return orjson.dumps({"type": "assistant", "message": {"content": [{"type": "text", "text": f"m{i}"}]},
                         "session_id": "s", "timestamp_ms": i}) + b"\n"


def collect(feed, want: int, timeout: float = 5.0) -> list:
    out: list = []
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and len([r for r in out if isinstance(r, Event)]) < want:
        out.extend(feed.poll())
        time.sleep(0.01)
    return [r for r in out if isinstance(r, Event)]


def texts(events) -> list[str]:
    return [e.data["message"]["content"][0]["text"] for e in events]


def _until(cond, timeout: float = 5.0) -> bool:
    deadline = time.monotonic() + timeout
    while not cond() and time.monotonic() < deadline:
        time.sleep(0.01)
    return cond()


def test_a_followed_file_that_appears_empty_is_no_longer_waited_for(tmp_path):
    """(From a new-user trial.)  ``--follow`` of a file not there yet said "waiting for x to
    appear"; once it was made, empty, it still said so, for good, until a line came.  Once it
    is there, the header says the file is read ("waiting for events on x")."""
    path = tmp_path / "run.ndjson"
    feed = FollowFeed(str(path))
    feed._follower._poll = 0.01
    feed.start()
    try:
        assert _until(lambda: feed.error == "waiting for run.ndjson to appear"), feed.error
        path.write_bytes(b"")
        assert _until(lambda: feed.error is None), feed.error
        path.unlink()  # gone again: waited for again
        assert _until(lambda: feed.error == "waiting for run.ndjson to appear"), feed.error
        path.write_bytes(ev(0))
        assert texts(collect(feed, 1)) == ["m0"] and feed.error is None
    finally:
        feed.stop()


def test_follow_reads_growth_truncation_and_rotation(tmp_path):
    path = tmp_path / "run.ndjson"
    path.write_bytes(ev(0) + ev(1))
    from viewer.core.record import Recorder

    copy = Recorder(str(tmp_path / "copy.ndjson"))  # --save, wired as the TUI wires it
    feed = FollowFeed(str(path), tee=copy.write, on_restart=lambda: copy.restarted(str(path)))
    feed._follower._poll = 0.01
    feed.start()
    try:
        assert texts(collect(feed, 2)) == ["m0", "m1"]
        with open(path, "ab") as f:  # growth, including a line written in two parts
            line = ev(2)
            f.write(line[:10])
            f.flush()
            time.sleep(0.05)
            f.write(line[10:])
        assert texts(collect(feed, 1)) == ["m2"]
        path.write_bytes(ev(3))  # truncated and rewritten (shorter than before)
        assert texts(collect(feed, 1)) == ["m3"]
        os.rename(path, tmp_path / "run.ndjson.1")  # rotated: a new file appears
        path.write_bytes(ev(4) + ev(5))
        assert texts(collect(feed, 2)) == ["m4", "m5"]
        assert feed.resets >= 2
        with open(path, "ab") as f:
            f.write(ev(9)[:12])  # a line cut short by the producer's death
        time.sleep(0.1)
        resets = feed.resets
        os.remove(path)  # deleted: nothing breaks, the feed says it waits for the file
        deadline = time.monotonic() + 5
        while not feed.error and time.monotonic() < deadline:
            time.sleep(0.01)
        assert feed.error and "waiting" in feed.error
        assert not feed.finished
        path.write_bytes(b"\xef\xbb\xbf" + ev(6))  # back (with a BOM): read again, a new stream
        got = []
        deadline = time.monotonic() + 5
        while not any(isinstance(r, Event) for r in got) and time.monotonic() < deadline:
            got.extend(feed.poll())
            time.sleep(0.01)
        # The cut line is reported on its own, not glued to the new file's first line, and the
        # old stream ends (in order) before the new one begins.
        assert [type(r).__name__ for r in got] == ["Malformed", "Restart", "Event"]
        assert texts([got[2]]) == ["m6"] and feed.resets == resets + 1
        # In the copy too, the cut line does not run into the new file's first line.
        assert (tmp_path / "copy.ndjson").read_bytes().endswith(ev(9)[:12] + b"\n\xef\xbb\xbf" + ev(6))
    finally:
        feed.stop()
        copy.close()


def test_follow_sees_a_file_rewritten_in_place_by_a_longer_one(tmp_path):
    """(From a new-user trial.)  `cp other.ndjson run.ndjson` onto a followed file keeps its
    inode, and its new size is more than was read: it seemed to have grown, and the new run
    was read from the old offset, mid-line (one malformed line, then its events as unknown,
    read as the old run's format).  The bytes last read are checked after each wait."""
    import threading

    from viewer.core.sources import follow_file

    path = tmp_path / "run.ndjson"
    path.write_bytes(ev(0) + ev(1))
    stop = threading.Event()
    chunks = follow_file(str(path), stop, poll_interval=0.01, caught_up=True)
    try:
        assert next(chunks) == ev(0) + ev(1) and next(chunks) == b""
        fd = os.open(path, os.O_WRONLY)  # rewritten in place, never shorter than before
        os.pwrite(fd, b"".join(ev(i) for i in range(10, 20)), 0)
        os.close(fd)
        assert next(chunks) is None  # a new stream...
        assert next(chunks) == b"".join(ev(i) for i in range(10, 20))  # ...read from its start
        with open(path, "ab") as f:  # then growth is growth again
            f.write(ev(20))
        got = next(chunks)
        while got == b"":
            got = next(chunks)
        assert got == ev(20)
    finally:
        stop.set()
        chunks.close()


def test_follow_sees_a_rewrite_between_two_reads_of_a_big_file(tmp_path):
    """(From a review.)  The bytes last read were looked at again only after a wait: a file
    rewritten while a big one was read, a chunk after another, was taken for the same file."""
    import threading

    from viewer.core.sources import CHUNK, follow_file

    path = tmp_path / "run.ndjson"
    old = b"".join(ev(i) for i in range(CHUNK // len(ev(0)) * 3 // 2))
    path.write_bytes(old)
    stop = threading.Event()
    chunks = follow_file(str(path), stop, poll_interval=0.01, caught_up=True)
    try:
        first = next(chunks)
        assert first == old[:CHUNK]  # a chunk, and more to read at once
        new = b"\n".join([b'{"type":"system","subtype":"init","session_id":"new"}'] * (len(old) // 50)) + b"\n"
        fd = os.open(path, os.O_WRONLY)  # rewritten in place before the next read
        os.pwrite(fd, new, 0)
        os.close(fd)
        assert next(chunks) is None  # a new stream...
        assert next(chunks) == new[:CHUNK]  # ...read from its start
    finally:
        stop.set()
        chunks.close()


def test_pipe_feed_tee_saves_exact_bytes(tmp_path):
    from viewer.core.record import Recorder

    r, w = os.pipe()
    out = tmp_path / "saved.ndjson"
    rec = Recorder(str(out))
    feed = PipeFeed(r, tee=rec.write)
    feed.start()
    payload = b"".join(ev(i) for i in range(200)) + b'{"type":"truncated'  # no final newline
    os.write(w, payload[:5000])
    os.write(w, payload[5000:])
    os.close(w)
    collect(feed, 200)
    deadline = time.monotonic() + 5
    while not feed.finished and time.monotonic() < deadline:
        feed.poll()
        time.sleep(0.01)
    rec.close()
    assert hashlib.sha256(out.read_bytes()).digest() == hashlib.sha256(payload).digest()


def test_a_refused_pipe_leaves_the_save_file_as_it_was(tmp_path):
    """The TUI's wiring: a pipe refused at its first bytes (gzip) is not teed, and the copy
    saved before is still whole when the viewer closes the recorder."""
    import gzip

    from viewer.core.record import Recorder

    out = tmp_path / "saved.ndjson"
    out.write_bytes(ev(1))
    r, w = os.pipe()
    rec = Recorder(str(out))
    feed = PipeFeed(r, tee=rec.write)
    feed.start()
    os.write(w, gzip.compress(b"".join(ev(i) for i in range(50))))
    os.close(w)
    deadline = time.monotonic() + 5
    while not feed.finished and time.monotonic() < deadline:
        feed.poll()
        time.sleep(0.01)
    rec.close()
    assert "gzip" in feed.refused
    assert out.read_bytes() == ev(1)


def test_save_is_complete_when_the_viewer_stops_mid_stream(tmp_path):
    """--print --save while the producer is still writing; killing the viewer keeps what arrived."""
    out = tmp_path / "saved.ndjson"
    producer = subprocess.Popen(
        [sys.executable, "-c",
         "import sys,time\n"
         "for i in range(1000000):\n"
         "    sys.stdout.write('{\"type\":\"thinking\",\"subtype\":\"delta\",\"text\":\"%d\"}\\n' % i)\n"
         "    sys.stdout.flush()\n"
         "    time.sleep(0.001)\n"],
        stdout=subprocess.PIPE,
    )
    viewer = subprocess.Popen(
        [sys.executable, "-m", "viewer", "--print", "--save", str(out), "-"],
        stdin=producer.stdout, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
    )
    producer.stdout.close()
    deadline = time.monotonic() + 20  # start-up can be slow on a loaded machine
    while time.monotonic() < deadline and (not out.exists() or out.read_bytes().count(b"\n") <= 50):
        time.sleep(0.05)
    time.sleep(0.2)
    viewer.terminate()
    viewer.wait(5)
    producer.kill()
    producer.wait(5)
    data = out.read_bytes()
    assert data, "nothing was saved"
    lines = data.split(b"\n")
    complete, last = lines[:-1], lines[-1]
    # Every complete line is exactly what the producer wrote, in order, none missing.
    assert complete == [b'{"type":"thinking","subtype":"delta","text":"%d"}' % i for i in range(len(complete))]
    assert len(complete) > 50
    timing = (tmp_path / "saved.ndjson.timing").read_text().splitlines()
    assert timing[0].startswith("# agent-viewer timing")
    assert int(timing[-1].split("\t")[0]) == len(data)
    del last


def test_file_feed_gives_the_same_records_as_decoding_in_memory(tmp_path, h):
    """Lines cross the 1 MiB read size, and the last line has no newline."""
    from viewer.core.feed import FileFeed

    line = b'{"type":"assistant","message":{"content":[{"type":"text","text":"%s"}]}}'
    data = b"\n".join(line % (b"x" * (i * 997 % 70_000)) for i in range(100))
    data += b'\n\n{"type":"result","subtype":"success","result":"done"}'
    assert len(data) > 2 * (1 << 20)
    path = tmp_path / "run.ndjson"
    path.write_bytes(data)
    feed = FileFeed(str(path))
    feed.start()
    got = feed.wait(timeout=20)
    assert feed.finished
    want, _ = h.decode(data)
    assert [(type(r), r.line, r.offset, r.length) for r in got] == [
        (type(r), r.line, r.offset, r.length) for r in want
    ]
    assert got[-1].data["type"] == "result"
    assert feed.bytes_read == len(data)


def test_save_refuses_to_overwrite_the_file_it_reads(tmp_path):
    """`agent-viewer --save run.ndjson < run.ndjson` would empty the run before reading it."""
    run = tmp_path / "run.ndjson"
    data = b"".join(ev(i) for i in range(50))
    run.write_bytes(data)
    link = tmp_path / "same.ndjson"
    os.link(run, link)
    for args, stdin_path in (
        (["--print", "--save", str(run), "-"], run),  # stdin redirected from the file
        (["--print", "--save", str(link), "-"], run),  # another name of the same file
        (["--print", "--follow", "--save", str(run), str(link)], None),
    ):
        with open(stdin_path or os.devnull, "rb") as stdin:
            proc = subprocess.run([sys.executable, "-m", "viewer", *args], stdin=stdin,
                                  capture_output=True, timeout=20)
        assert proc.returncode == 2, args
        assert b"is the file being read" in proc.stderr
        assert b"Traceback" not in proc.stderr
        assert run.read_bytes() == data  # untouched
    other = tmp_path / "copy.ndjson"
    with open(run, "rb") as stdin:
        proc = subprocess.run([sys.executable, "-m", "viewer", "--print", "--save", str(other), "-"],
                              stdin=stdin, capture_output=True, timeout=20)
    assert proc.returncode != 2 and other.read_bytes() == data  # (1: this run has no result)
    # standard input from /dev/null is no stream: refused, the file is not emptied
    with open(os.devnull, "rb") as stdin:
        proc = subprocess.run([sys.executable, "-m", "viewer", "--print", "--save", str(run)], stdin=stdin,
                              capture_output=True, timeout=20)
    assert proc.returncode == 2 and run.read_bytes() == data
    # --follow waits for a file that is not there yet: saving to it would read back the copy
    # (a loop that filled the disk at ~35 MB/s)
    later = tmp_path / "later.ndjson"
    proc = subprocess.run([sys.executable, "-m", "viewer", "--print", "--follow", "--save", str(later),
                           str(later)], capture_output=True, timeout=20)
    assert proc.returncode == 2 and b"is the file being read" in proc.stderr and not later.exists()


def test_print_follow_reads_on_after_the_file_is_truncated_or_replaced(tmp_path):
    """`--print --follow` used to read on at the old offset (truncated) or the old file
    (replaced) and print nothing more, silently."""
    path = tmp_path / "run.ndjson"
    path.write_bytes(ev(0) + ev(1))
    proc = subprocess.Popen(
        [sys.executable, "-m", "viewer", "--print", "--output-format", "stream-json", "--follow",
         "--save", str(tmp_path / "copy.ndjson"), str(path)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )
    output = ChildOutput(proc)

    def wait_for(text: bytes) -> None:
        assert text in output.until(text), output.out

    try:
        wait_for(b'"m1"')
        with open(path, "ab") as f:
            f.write(ev(2)[:15])  # cut short, then the file is truncated and rewritten
        time.sleep(1.0)  # five polls: the viewer has read the cut line
        path.write_bytes(ev(3))
        wait_for(b'"m3"')
        new = tmp_path / "run.ndjson.new"
        new.write_bytes(ev(4) + ev(5))
        os.replace(new, path)  # replaced (rotated)
        wait_for(b'"m5"')
    finally:
        proc.terminate()
        _, err = proc.communicate(timeout=10)
    assert [orjson.loads(x)["message"]["content"][0]["text"] for x in output.out.splitlines()] == [
        "m0", "m1", "m3", "m4", "m5"]
    err_text = err.decode()
    assert err_text.count("truncated or replaced: reading it again from its start") == 2, err_text
    assert "line 3: malformed line, not an event" in err_text  # the cut line is reported, not lost
    # --save keeps what was read, the cut line on its own line
    assert (tmp_path / "copy.ndjson").read_bytes() == ev(0) + ev(1) + ev(2)[:15] + b"\n" + ev(3) + ev(4) + ev(5)


def _write_fifo(path, data: bytes, timeout: float = 10.0) -> None:
    """Write ``data`` to the FIFO once a reader has it open, then close it (bounded: never hang
    the suite)."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            fd = os.open(path, os.O_WRONLY | os.O_NONBLOCK)
            break
        except OSError:
            assert time.monotonic() < deadline, "the viewer never opened the FIFO"
            time.sleep(0.05)
    os.set_blocking(fd, True)
    os.write(fd, data)
    os.close(fd)


def test_print_reads_a_fifo_until_its_writer_closes_it_and_saves_it(tmp_path):
    """A FIFO is read live until its writer closes it, and --save may record it like standard
    input."""
    fifo = tmp_path / "run.fifo"
    os.mkfifo(fifo)
    copy = tmp_path / "copy.ndjson"
    data = ev(0) + ev(1)
    viewer = subprocess.Popen(
        [sys.executable, "-m", "viewer", "--print", "--output-format", "stream-json", "--save", str(copy), str(fifo)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )
    try:
        _write_fifo(fifo, data)
        out, err = viewer.communicate(timeout=20)
    finally:
        viewer.kill()
    assert [orjson.loads(x)["message"]["content"][0]["text"] for x in out.splitlines()] == ["m0", "m1"], err
    assert copy.read_bytes() == data
    # (From a review.)  A run without a result read from a FIFO ended in a traceback ("Illegal
    # seek": whether the file looks still written was asked of the FIFO).
    assert viewer.returncode == 1 and "Traceback" not in err.decode(), err
    assert err.decode().strip().splitlines()[-1] == "agent-viewer: the run ended without a result", err


def test_follow_reads_a_named_fifo_one_writer_after_another(tmp_path):
    """(From a fourth new-user trial.)  With --follow, a named FIFO was read for its first
    writer only: the second one hung, as nothing opened it again.  Now each next writer goes
    on with the stream, printing or in the app, as tail -F goes on with a file."""
    fifo = tmp_path / "run.fifo"
    os.mkfifo(fifo)
    copy = tmp_path / "copy.ndjson"
    proc = viewer_process("--print", "--output-format", "stream-json", "--follow", "--save", str(copy), str(fifo))
    try:
        _write_fifo(fifo, ev(0) + ev(9).rstrip(b"\n"))  # (its last line unfinished: it ends with it)
        time.sleep(0.3)  # (the first writer is gone before the second comes)
        _write_fifo(fifo, ev(1))
        out = ChildOutput(proc).until(lambda out: out.count(b"\n") >= 3)
        assert proc.poll() is None  # still there for the next one
        # A writer that leaves a file in the FIFO's place: not read again and again.
        os.unlink(fifo)
        fifo.write_bytes(ev(2))
        _, err = proc.communicate(timeout=10)
    finally:
        proc.kill()
    assert [orjson.loads(x)["message"]["content"][0]["text"] for x in out.splitlines()] == ["m0", "m9", "m1"]
    # (which of "deleted while waiting", "No such file" or "no longer a FIFO" it says depends
    # on when it looks; it stops, with a line on stderr)
    assert proc.returncode == 2 and b"agent-viewer: error: " + str(fifo).encode() in err, err
    assert copy.read_bytes() == ev(0) + ev(9) + ev(1)

    fifo.unlink()
    os.mkfifo(fifo)
    feed = PipeFeed(None, label=str(fifo), path=str(fifo), reopen=True)  # (the app's, with --follow)
    feed.start()
    try:
        _write_fifo(fifo, ev(2))
        got = collect(feed, 1)
        deadline = time.monotonic() + 5
        while "waiting for the next" not in (feed.error or "") and time.monotonic() < deadline:
            time.sleep(0.02)
        assert feed.error == "run.fifo: its writer closed it; waiting for the next (--follow)"  # (the header says it)
        _write_fifo(fifo, ev(3))
        got += collect(feed, 1)
        assert texts(got) == ["m2", "m3"] and not feed.finished
    finally:
        feed.stop()


def test_replay_refuses_a_pipe_with_a_clear_message(tmp_path):
    fifo = tmp_path / "run.fifo"
    os.mkfifo(fifo)
    r = subprocess.run([sys.executable, "-m", "viewer", "--replay", str(fifo)],
                       capture_output=True, text=True, timeout=20)
    assert r.returncode == 2 and "--replay needs a saved file, not a pipe" in r.stderr


def test_print_text_lists_the_calls_a_restart_cut_off_at_once():
    """`--print --follow` only ends with Ctrl+C, which skips the end-of-input listing: calls
    cut off by a truncation are listed when it happens."""
    import io

    from viewer.core.printer import make_printer
    from viewer.core.sources import LineSplitter

    out, err = io.StringIO(), io.StringIO()
    printer = make_printer("text", out, err)
    started = orjson.dumps({"type": "tool_call", "subtype": "started", "call_id": "c1", "session_id": "s",
                            "tool_call": {"shellToolCall": {"args": {"command": "make build"}}}}) + b"\n"
    printer.feed_lines(LineSplitter().feed(ev(0) + started))
    assert "make build" not in out.getvalue()
    printer.restart()
    assert "make build (unfinished)" in out.getvalue()
    printer.feed_lines(LineSplitter().feed(ev(1)))
    printer.finish()
    assert out.getvalue().count("make build") == 1  # not listed a second time at the end


def test_follow_on_dev_stdin_reads_standard_input_once():
    """(Review.)  `producer | agent-viewer --print --follow /dev/stdin` ended in a traceback:
    standard input, a pipe, is read until its writer closes it."""
    r = subprocess.run([sys.executable, "-m", "viewer", "--print", "--output-format", "stream-json", "--follow",
                        "/dev/stdin"], input=ev(0), capture_output=True, timeout=20)
    assert r.returncode == 1 and b"Traceback" not in r.stderr, r.stderr  # (1: a run without a result)
    assert [orjson.loads(x)["message"]["content"][0]["text"] for x in r.stdout.splitlines()] == ["m0"]


def test_print_follow_reads_a_fifo_made_at_the_path_after_it_started(tmp_path):
    path = tmp_path / "later.fifo"
    proc = viewer_process("--print", "--output-format", "stream-json", "--follow", str(path))
    try:
        time.sleep(0.8)
        os.mkfifo(path)
        _write_fifo(path, ev(0) + ev(1))  # once the viewer has it open for reading
        out = ChildOutput(proc).until(lambda out: out.count(b"\n") >= 2)
    finally:
        proc.terminate()
        proc.communicate(timeout=10)
    assert [orjson.loads(x)["message"]["content"][0]["text"] for x in out.splitlines()] == ["m0", "m1"]


def test_saving_stops_when_the_copy_becomes_the_followed_file(tmp_path):
    """`mv copy.ndjson run.ndjson` under `--follow run.ndjson --save copy.ndjson`: reading the
    copy while writing to it grew it without end (~35 MB/s)."""
    run, copy = tmp_path / "run.ndjson", tmp_path / "copy.ndjson"
    run.write_bytes(ev(0) + ev(1))
    proc = viewer_process("--print", "--output-format", "stream-json", "--follow", "--save", str(copy), str(run),
                          stdout=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 10
        while (not copy.exists() or copy.stat().st_size < len(ev(0) + ev(1))) and time.monotonic() < deadline:
            time.sleep(0.05)
        os.replace(copy, run)
        time.sleep(1.5)
        size = run.stat().st_size
        time.sleep(1.0)
        assert run.stat().st_size == size <= 2 * len(ev(0) + ev(1)), "the copy keeps growing"
    finally:
        proc.terminate()
        _, err = proc.communicate(timeout=10)
    assert b"stopped: it became the followed file" in err


# -- a last line without its newline -----------------------------------------------------------

def test_a_whole_last_line_without_its_newline_is_read_once_the_file_pauses(tmp_path, monkeypatch):
    """(From a trial of --follow.)  A run whose last line (its result) had no newline stayed
    LIVE for ever under --follow: the line waited for a newline that never came.  Once the
    file pauses, a last line that is a whole event is read; its newline, if it comes, ends it
    (no blank line, no shift of the lines after), and what follows is read as before."""
    import viewer.core.sources as sources

    monkeypatch.setattr(sources, "SETTLE_SECONDS", 0.2)
    path = tmp_path / "run.ndjson"
    path.write_bytes(ev(0) + ev(1).rstrip(b"\n"))
    feed = FollowFeed(str(path))
    feed._follower._poll = 0.01
    feed.start()
    try:
        first = collect(feed, 2, timeout=5)
        assert texts(first) == ["m0", "m1"]
        with open(path, "ab") as f:
            f.write(b"\n" + ev(2))
        later = collect(feed, 1)
        assert texts(later) == ["m2"]
        assert [e.line for e in first + later] == [1, 2, 3]
        assert later[0].offset == len(ev(0) + ev(1))  # (a payload is read back at its offset)
        assert feed.ingest.decoder.blank_lines == 0
    finally:
        feed.stop()


def test_an_unfinished_last_line_still_waits_for_the_rest_of_it(tmp_path, monkeypatch):
    import viewer.core.sources as sources

    monkeypatch.setattr(sources, "SETTLE_SECONDS", 0.1)
    path = tmp_path / "run.ndjson"
    line = ev(1)
    path.write_bytes(ev(0) + line[:15])  # (a writer part-way through its line)
    feed = FollowFeed(str(path))
    feed._follower._poll = 0.01
    feed.start()
    try:
        assert texts(collect(feed, 1)) == ["m0"]
        time.sleep(0.4)
        assert collect(feed, 1, timeout=0.3) == [] and feed.ingest.decoder.malformed == 0
        with open(path, "ab") as f:
            f.write(line[15:])
        assert texts(collect(feed, 1)) == ["m1"]
    finally:
        feed.stop()


def test_a_line_kept_back_to_be_joined_is_told_once_the_input_pauses():
    """(From a trial of --follow.)  ``{not json`` appended to a followed file was kept back in
    case the next line made one event with it, and not counted until the next event came.
    Once the input pauses, it is told as malformed; before, an object split over lines that
    come together is still read as one event."""
    from viewer.core.decode import Malformed
    from viewer.core.sources import SETTLE_SECONDS, Ingest

    ing = Ingest()
    # (a text's newline written as it is, not as \n: the event's line broken in two)
    split = ing.feed(b'{"type": "assistant", "message": {"content": [{"type": "text", "text": "m\n')
    assert split == [] and ing.settle(SETTLE_SECONDS / 2) == []  # (not yet)
    joined = ing.feed(b'1"}]}}\n')
    assert texts(joined) == ["m\n1"]
    assert ing.feed(b"{not json\n") == []
    told = ing.settle(SETTLE_SECONDS)
    assert [(type(r), r.line) for r in told] == [(Malformed, 3)] and ing.decoder.malformed == 1
    assert texts(ing.feed(ev(4))) == ["m4"] and ing.decoder.malformed == 1  # (said once)
    # A line part-way written is still waited for: it may be the rest of the kept line's event.
    ing.feed(b"{still not\n" + ev(6)[:10])
    assert ing.settle(SETTLE_SECONDS * 2) == [] and ing.decoder.has_pending


def test_print_follow_tells_a_line_that_is_not_an_event_once_the_file_pauses(tmp_path):
    path = tmp_path / "run.ndjson"
    path.write_bytes(ev(0))
    proc = viewer_process("--print", "--follow", str(path))
    try:
        time.sleep(1.0)
        with open(path, "ab") as f:
            f.write(b"{not json\n")
        time.sleep(2.5)
    finally:
        proc.terminate()
        _, err = proc.communicate(timeout=10)
    assert b"line 2: malformed line, not an event" in err and b"{not json" in err, err


def test_print_follow_reads_a_result_written_without_its_newline(tmp_path):
    """--print --follow --until-result on such a file ends, with the run's status."""
    path = tmp_path / "run.ndjson"
    result = orjson.dumps({"type": "result", "subtype": "success", "is_error": False, "result": "PONG",
                           "session_id": "s"})
    path.write_bytes(ev(0) + result)
    proc = viewer_process("--print", "--follow", "--until-result", str(path))
    try:
        out, err = proc.communicate(timeout=15)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0, err
    assert out.decode().splitlines()[-3:] == ["m0", "", "✓ succeeded"]  # (the result's text is the agent's: said once)


def test_a_settled_lines_end_in_crlf_or_after_spaces_is_no_blank_line():
    """(From a review.)  After a settled line, "\r\n" made the "\r" a blank line, and every
    line after it was numbered one too high."""
    from viewer.core.sources import SETTLE_SECONDS, Ingest

    ing = Ingest()
    recs = ing.feed(ev(0) + ev(1).rstrip(b"\n"))
    recs += ing.settle(SETTLE_SECONDS)
    for part in (b"\r", b" \n", ev(2)):  # (its end comes in pieces)
        recs += ing.feed(part)
    recs += ing.close()
    events = [r for r in recs if isinstance(r, Event)]
    assert texts(events) == ["m0", "m1", "m2"] and [e.line for e in events] == [1, 2, 3]
    assert ing.decoder.blank_lines == 0 and ing.decoder.malformed == 0


def test_settle_starts_afresh_after_the_input_starts_over():
    """(From a review.)  A partial line tried once, then a new stream whose last line had the
    same length: never settled."""
    from viewer.core.sources import SETTLE_SECONDS, LineSplitter

    sp = LineSplitter()
    sp.feed(b'{"a": "1')  # part-way: tried, not whole
    assert sp.settle(SETTLE_SECONDS) == []
    sp.flush()  # (the file was truncated: what was pending ends)
    sp.feed(b'{"b":"1"}')  # as long, and whole
    assert [line for _, line in sp.settle(SETTLE_SECONDS)] == [b'{"b":"1"}']


def test_follow_until_result_ends_a_fifo_whose_writer_keeps_it_open(tmp_path):
    """(From a review.)  A named FIFO under --follow was seen to be read through only when its
    writer closed it: with a writer that kept it open, --until-result never ended, and a result
    written without its newline was never read.  A silent writer now counts as all read."""
    fifo = tmp_path / "run.fifo"
    os.mkfifo(fifo)
    result = orjson.dumps({"type": "result", "subtype": "error", "is_error": True, "result": "no",
                           "session_id": "s"})
    proc = viewer_process("--print", "--output-format", "stream-json", "--follow", "--until-result", str(fifo))
    fd = -1
    try:
        deadline = time.monotonic() + 10
        while fd < 0:
            try:
                fd = os.open(fifo, os.O_WRONLY | os.O_NONBLOCK)  # (once the viewer has it open)
            except OSError:
                assert time.monotonic() < deadline, "the viewer never opened the FIFO"
                time.sleep(0.05)
        os.write(fd, ev(0) + result)  # and the writer stays
        out, err = proc.communicate(timeout=10)
    finally:
        if proc.poll() is None:
            proc.kill()
        if fd >= 0:
            os.close(fd)
    assert proc.returncode == 1, err  # the run's status: it failed
    assert [orjson.loads(x)["type"] for x in out.splitlines()] == ["assistant", "result"]


def test_a_pipe_read_live_reads_a_last_line_without_its_newline_once_it_pauses():
    """The app watching a pipe: a result written without its newline, by a producer that keeps
    the pipe open, was read only when the pipe closed; the run stayed LIVE until then."""
    r, w = os.pipe()
    feed = PipeFeed(r)
    feed.start()
    try:
        os.write(w, ev(1) + ev(2).rstrip(b"\n"))
        assert texts(collect(feed, 1)) == ["m1"]
        assert texts(collect(feed, 1, timeout=5)) == ["m2"]  # once the pipe is silent for a second
        os.write(w, b"\n" + ev(3))  # its newline ends that line: no blank line
        got = collect(feed, 1)
        assert texts(got) == ["m3"] and got[0].line == 3
    finally:
        feed.stop()
        feed._reader._thread.join(2)  # (before its descriptor is closed)
        os.close(w)
        os.close(r)
