"""Decoding a saved file with worker processes (viewer.core.parallel).

Whatever the file, and wherever the segments' edges fall, the model must end up exactly as
when one process decodes the file line after line; a worker that fails must cost speed, never
data.  Small segments put an edge between almost every two lines.
"""

from __future__ import annotations

import marshal
import os
import sys
from pathlib import Path

import orjson
import pytest
from conftest import REAL_CURSOR, SAMPLES, SAMPLES_DIR, check_accounting, model_of, model_state
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from viewer.core import parallel
from viewer.core.decode import Event
from viewer.core.feed import FileFeed
from viewer.core.model import StreamModel, ref_span

SHARED = Path(__file__).resolve().parents[1].parent / "shared" / "real_streams"
OTHER_AGENTS = sorted(p for d in ("claude", "codex", "gemini") for p in (SHARED / d).glob("*.ndjson"))


def open_with_workers(path: Path, segment: int = 1, first: int = 1, workers: int = 2):
    """(model, records, feed) of ``path`` read by a FileFeed with workers; ``segment=1``
    makes every line after the first ``first`` bytes a segment of its own."""
    m = StreamModel()
    feed = FileFeed(str(path), workers=workers, segment=segment, first=first, min_parallel=0)
    feed.gather_runs(m.format)
    feed.start()
    try:
        recs = feed.wait(timeout=60)
    finally:
        feed.stop()
    assert feed.finished, "the feed did not finish"
    for r in recs:
        m.apply(r)
    m.end()
    return m, recs, feed


def same_as_one_process(path: Path, **kw) -> FileFeed:
    m, recs, feed = open_with_workers(path, **kw)
    alone, _, _ = model_of(path.read_bytes())
    assert model_state(m) == model_state(alone)
    lines = [r.line for r in recs]
    assert lines == sorted(lines), "records out of file order"
    check_accounting(recs, feed.ingest.decoder)
    assert feed.bytes_read == path.stat().st_size
    return feed


def write(tmp_path: Path, data: bytes, name: str = "run.ndjson") -> Path:
    p = tmp_path / name
    p.write_bytes(data)
    return p


def ev(**obj) -> bytes:
    return orjson.dumps(obj)


INIT = ev(type="system", subtype="init", session_id="s1", model="m", cwd="/w")


def thinking(text: str, ts: int = 1) -> bytes:
    return ev(type="thinking", subtype="delta", text=text, session_id="s1", timestamp_ms=ts)


def started(call: str, path: str = "a.py") -> bytes:
    return ev(type="tool_call", subtype="started", call_id=call, session_id="s1",
              tool_call={"readToolCall": {"args": {"path": path}}})


def completed(call: str, text: str = "x\ny\n") -> bytes:
    return ev(type="tool_call", subtype="completed", call_id=call, session_id="s1",
              tool_call={"readToolCall": {"args": {"path": "a.py"},
                                          "result": {"success": {"content": text, "totalLines": 2}}}})


RESULT = ev(type="result", subtype="success", is_error=False, duration_ms=5, result="done", session_id="s1")


@pytest.mark.parametrize("path", REAL_CURSOR + SAMPLES + OTHER_AGENTS, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_every_real_and_sample_stream_reads_the_same_with_workers(path):
    size = path.stat().st_size
    feed = same_as_one_process(path, segment=max(1, size // 7), first=max(1, size // 9))
    assert feed.workers == 2 and feed.worker_error == ""
    assert feed.segments_taken + feed.segments_redone >= 1


@pytest.mark.parametrize("path", REAL_CURSOR[:3] + SAMPLES[:3], ids=lambda p: p.stem)
def test_a_segment_per_line_still_reads_the_same(path):
    """Every edge case of an edge at once: runs cut, repeats across edges, lines counted."""
    feed = same_as_one_process(path)
    assert feed.segments_taken > 5


def test_an_event_split_over_lines_across_an_edge_is_decoded_here(tmp_path):
    """An unescaped newline inside a string splits an event over two lines; with an edge
    between them the worker cannot rejoin them, so that segment is decoded here instead."""
    split = b'{"type":"thinking","subtype":"delta","text":"one\ntwo","session_id":"s1","timestamp_ms":3}'
    data = b"\n".join([INIT, thinking("a"), split, thinking("b"), started("c1"), completed("c1"), RESULT]) + b"\n"
    feed = same_as_one_process(write(tmp_path, data))
    assert feed.segments_redone >= 1 and feed.segments_taken >= 1
    m, _, _ = open_with_workers(write(tmp_path, data, "again.ndjson"))
    assert m.sessions[0].blocks[0].text == "aone\ntwob"


def test_a_mirrored_stream_is_told_across_edges(tmp_path):
    """stderr merged into stdout doubles every line; with every line its own segment, the
    copy's repeat is told from the line before the edge (a digest of it comes back)."""
    lines = [INIT, thinking("a"), thinking("b"), started("c1"), completed("c1"), RESULT]
    data = b"".join(x + b"\n" + x + b"\n" for x in lines)
    m, recs, feed = open_with_workers(write(tmp_path, data))
    assert m.mirrored and m.duplicates == len(lines)  # every second copy is dropped
    assert model_state(m) == model_state(model_of(data)[0])
    assert sum(1 for r in recs if isinstance(r, Event) and r.repeat) == len(lines)


def test_bom_crlf_blank_malformed_and_an_unterminated_last_line(tmp_path):
    data = (b"\xef\xbb\xbf" + INIT + b"\r\n" + thinking("a") + b"\r\n\r\n" + b"not json\n"
            + b"\xef\xbb\xbf" + thinking("b") + b"\n" + b"{\"broken\n" + started("c1") + b"\r\n"
            + completed("c1") + b"\n\n" + RESULT)
    feed = same_as_one_process(write(tmp_path, data))
    assert feed.ingest.decoder.blank_lines == 2
    m, _, _ = open_with_workers(write(tmp_path, data, "again.ndjson"))
    assert m.malformed_lines == 3  # a BOM is only skipped on the first line
    assert m.sessions[0].result is not None


def test_a_worker_that_cannot_start_leaves_the_file_to_this_process(tmp_path, monkeypatch):
    data = b"\n".join([INIT, thinking("a"), started("c1"), completed("c1"), RESULT]) + b"\n"
    monkeypatch.setattr(parallel.Workers, "command", (sys.executable, "-c", "import sys; sys.exit(3)"))
    feed = same_as_one_process(write(tmp_path, data))
    assert feed.worker_error and feed.segments_taken == 0


def test_workers_already_gone_when_reading_starts_leave_the_file_to_this_process(tmp_path, monkeypatch):
    """(Found in review.)  The CLI starts the workers before it imports the UI; if they are gone
    by the time reading starts, the whole file is still read, and the feed ends."""
    data = b"\n".join([INIT] + [thinking(str(i), ts=i) for i in range(30)] + [RESULT]) + b"\n"
    path = write(tmp_path, data)
    monkeypatch.setattr(parallel.Workers, "command", (sys.executable, "-c", "import sys; sys.exit(3)"))
    m = StreamModel()
    feed = FileFeed(str(path), workers=2, segment=1, first=1, min_parallel=0)
    feed.gather_runs(m.format)
    feed.prepare()
    for w in feed._pool._workers:  # type: ignore[union-attr]
        w.proc.wait(timeout=10)
    feed.start()
    recs = feed.wait(timeout=10)
    feed.stop()
    assert feed.finished and feed.worker_error
    for r in recs:
        m.apply(r)
    m.end()
    assert model_state(m) == model_state(model_of(data)[0])


def test_the_workers_read_the_file_they_were_started_on(tmp_path):
    """(Found in review.)  A file replaced between starting the workers and reading is not
    mixed with its new version: everything is read from the one opened."""
    old = b"\n".join([INIT] + [thinking(f"old{i}", ts=i) for i in range(40)] + [RESULT]) + b"\n"
    new = b"\n".join([INIT] + [thinking(f"NEW{i}", ts=i) for i in range(40)] + [RESULT]) + b"\n"
    path = write(tmp_path, old)
    m = StreamModel()
    feed = FileFeed(str(path), workers=2, segment=100, first=100, min_parallel=0)
    feed.gather_runs(m.format)
    feed.prepare()
    write(tmp_path, new, "new.ndjson").replace(path)
    feed.start()
    recs = feed.wait(timeout=30)
    feed.stop()
    for r in recs:
        m.apply(r)
    assert "NEW" not in m.sessions[0].blocks[0].text and feed.segments_taken > 3


def test_a_worker_that_fails_mid_way_costs_speed_not_data(tmp_path, monkeypatch):
    """The workers answer the first segments, then one reports an error: what was taken
    stands, the rest is read here."""
    data = b"\n".join([INIT] + [thinking(str(i), ts=i) for i in range(40)] + [RESULT]) + b"\n"
    path = write(tmp_path, data)
    calls = {"n": 0}
    real = parallel.Segment.from_reply

    def flaky(start, end, reply):
        calls["n"] += 1
        if calls["n"] == 5:
            return parallel.Segment(start, end, False, error="ValueError: injected")
        return real(start, end, reply)

    monkeypatch.setattr(parallel.Segment, "from_reply", staticmethod(flaky))
    feed = same_as_one_process(path)
    assert feed.worker_error == "ValueError: injected"
    assert feed.segments_taken == 4


def test_stopping_the_feed_ends_its_workers(tmp_path):
    data = b"\n".join([INIT] + [thinking(str(i), ts=i) for i in range(200)]) + b"\n"
    feed = FileFeed(str(write(tmp_path, data)), workers=2, segment=1, first=1, min_parallel=0)
    feed.gather_runs(StreamModel().format)
    feed.prepare()
    procs = [w.proc for w in feed._pool._workers]  # type: ignore[union-attr]
    assert len(procs) == 2 and all(p.poll() is None for p in procs)
    feed.start()
    feed.stop()
    for p in procs:
        assert p.wait(timeout=5) is not None
    feed._thread.join(timeout=5)
    assert not feed._thread.is_alive()


def test_small_files_and_unknown_formats_use_no_workers(tmp_path):
    path = write(tmp_path, INIT + b"\n")
    feed = FileFeed(str(path), workers=2)  # under MIN_PARALLEL_BYTES
    feed.gather_runs(StreamModel().format)
    feed.prepare()
    assert feed.workers == 0
    feed = FileFeed(str(path), workers=2, min_parallel=0)  # no format: nothing to interpret with
    feed.prepare()
    assert feed.workers == 0


def test_worker_count_follows_the_environment(monkeypatch):
    monkeypatch.setenv(parallel.ENV_WORKERS, "0")
    assert parallel.worker_count() == 0
    monkeypatch.setenv(parallel.ENV_WORKERS, "3")
    assert parallel.worker_count() == 3
    monkeypatch.setenv(parallel.ENV_WORKERS, "lots")
    assert parallel.worker_count() in range(0, parallel.MAX_WORKERS + 1)


def test_segments_are_whole_lines_and_cover_the_file(tmp_path):
    data = b"".join(b"x" * n + b"\n" for n in (5, 300, 0, 70000, 12, 1))
    path = write(tmp_path, data)
    fd = os.open(path, os.O_RDONLY)
    try:
        todo = parallel.plan(fd, len(data), segment=100, first=10)
    finally:
        os.close(fd)
    starts = [a for a, _ in todo]
    assert starts[0] == 0 and todo[-1][1] == len(data)
    assert all(data[s - 1 : s] == b"\n" for s in starts[1:])
    assert [b for _, b in todo[:-1]] == starts[1:]
    # The first line start at or past 10 bytes, then at or past 100 bytes further on.
    assert starts == [0, 6 + 301, 6 + 301 + 1 + 70001]


def test_actions_travel_as_tuples_and_come_back_equal():
    from viewer.core import actions as A

    info = A.ToolInfo("readToolCall", "Read", "a.py", "2 lines", "success", "success", 1, 2, True, "")
    for a in (A.ToolCompleted("s", call_id="c", info=info, timestamp_ms=3, turn_id="t"),
              A.ToolStarted("s", call_id="c", info=None), A.Init("s", model="m", extra={"k": [1, {"a": None}]}),
              A.AssistantText(None, text="hi", unknown_parts=["x"]), A.Result("s", tokens=A.Tokens(1, 2, 3))):
        a.time_ms = 7
        parallel._codecs()
        back = parallel._unpack(marshal.loads(marshal.dumps(parallel._pack(a))))
        assert back == a and type(back) is type(a)


def test_a_mirrored_copy_of_a_split_event_is_told_inside_a_segment(tmp_path):
    """A rejoined event is compared with the event before it by content: the worker keeps
    both objects (it drops the others' once interpreted)."""
    split = b'{"type":"thinking","subtype":"delta","text":"one\ntwo","session_id":"s1","timestamp_ms":3}'
    data = b"\n".join([INIT, INIT, split, split, thinking("b"), thinking("b"), RESULT, RESULT]) + b"\n"
    m, _, feed = open_with_workers(write(tmp_path, data), segment=1 << 20, first=1)
    assert feed.segments_taken == 1
    assert m.mirrored and m.duplicates == 4 and m.sessions[0].blocks[0].text == "one\ntwob"
    assert model_state(m) == model_state(model_of(data)[0])


def test_a_split_copy_with_crlf_of_a_plain_event_is_told_inside_a_segment(tmp_path):
    """With CRLF line ends, an event split over two lines spans as many bytes as the same
    event on one line (``\\r\\n`` against ``\\n`` escaped): the model compares their objects,
    so the worker keeps the object of the event before a rejoined one, lean as it is."""
    one = b'{"type":"thinking","subtype":"delta","text":"one\\ntwo","session_id":"s1","timestamp_ms":3}'
    split = one.replace(b"\\n", b"\r\n")
    data = INIT + b"\r\n" + INIT + b"\r\n" + one + b"\r\n" + split + b"\r\n" + RESULT + b"\r\n"
    alone, _, _ = model_of(data)
    assert alone.duplicates == 2  # the init's copy and the split copy
    m, _, feed = open_with_workers(write(tmp_path, data), segment=1 << 20, first=1)
    assert feed.segments_taken == 1
    assert model_state(m) == model_state(alone)
    # The same with an edge just before the split copy: the plain event ends one worker's
    # segment, the split copy starts the next one's.
    path = write(tmp_path, data, "edge.ndjson")
    segment = len(INIT) + 2 + len(one) + 2
    fd = os.open(path, os.O_RDONLY)
    try:
        starts = [a for a, _ in parallel.plan(fd, len(data), segment=segment, first=1)]
    finally:
        os.close(fd)
    assert data.index(split) in starts
    m, _, feed = open_with_workers(path, segment=segment, first=1)
    assert feed.segments_taken == len(starts) - 1
    assert model_state(m) == model_state(alone)


# -- --print --output-format json with workers ---------------------------------------------


def print_json(path: Path, workers: int, **kw) -> tuple[str, str, int, bool]:
    """(stdout, stderr, exit code, whether workers read it) of json mode on ``path``."""
    import io

    from viewer.core.printer import make_printer, print_file_with_workers
    from viewer.core.sources import LineSplitter

    out, err = io.StringIO(), io.StringIO()
    printer = make_printer("json", out, err)
    fd = os.open(path, os.O_RDONLY)
    try:
        kw.setdefault("min_parallel", 0)
        used = workers > 0 and print_file_with_workers(printer, fd, workers=workers, **kw)
        if not used:
            splitter = LineSplitter()
            printer.feed_lines(splitter.feed(path.read_bytes()))
            printer.feed_lines(splitter.flush())
        code = printer.finish()
    finally:
        os.close(fd)
    return out.getvalue(), err.getvalue(), code, used


@pytest.mark.parametrize("bad", [2, 30])
def test_json_mode_lists_malformed_lines_the_same_with_workers(tmp_path, bad):
    """(From a new-user trial: json mode did not say a line was malformed.)  Lines a worker
    read are listed with their line in the file, the first 20, then counted, as when read here."""
    demo = (SAMPLES_DIR / "demo_session.ndjson").read_bytes().splitlines(keepends=True)
    step = len(demo) // bad
    parts = []
    for i in range(bad):
        parts += demo[i * step:(i + 1) * step] + [f"garbage {i}\n".encode()]
    path = tmp_path / "bad.ndjson"
    path.write_bytes(b"".join(parts + demo[bad * step:]))
    alone = print_json(path, 0)
    assert alone[1].count("malformed line, not an event") == min(bad, 20)
    assert f"line {step + 1}: malformed line, not an event" in alone[1] and "garbage 0" in alone[1]
    if bad > 20:
        assert f"{bad} malformed lines in all; the first 20 are listed above" in alone[1]
    got = print_json(path, 2, segment=3000, first=3000)
    assert got[3] and got[:3] == alone[:3]


@pytest.mark.parametrize("path", REAL_CURSOR + SAMPLES + OTHER_AGENTS, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_json_mode_prints_the_same_with_workers(path):
    size = path.stat().st_size
    alone = print_json(path, 0)
    assert not alone[3]
    for segment, first in ((1, 1), (max(1, size // 5), max(1, size // 7))):
        got = print_json(path, 2, segment=segment, first=first)
        assert got[3] and got[:3] == alone[:3]


def test_json_mode_with_workers_sniffs_the_first_events_only_and_reads_split_lines_here(tmp_path):
    """Another agent's sign among the first 200 events is seen wherever the edges fall; one
    after them is not, as without workers; an event split across an edge is read here."""
    claude = ev(type="assistant", session_id="s1", message={"role": "assistant", "content": [
        {"type": "tool_use", "id": "t", "name": "Bash", "input": {}}]})
    split = b'{"type":"thinking","subtype":"delta","text":"one\ntwo","session_id":"s1","timestamp_ms":3}'
    for at, named in ((150, True), (250, False)):
        lines = [INIT] + [thinking(str(i), ts=i) for i in range(400)] + [RESULT]
        lines[at] = claude
        lines[300] = split
        path = write(tmp_path, b"\n".join(lines) + b"\n", f"run{at}.ndjson")
        alone = print_json(path, 0)
        assert ("Claude Code" in alone[1]) is named
        for segment in (1, 3000, 10_000):
            assert print_json(path, 2, segment=segment, first=500)[:3] == alone[:3]


def test_json_mode_with_a_failing_worker_still_prints_the_result(tmp_path, monkeypatch):
    lines = [INIT] + [thinking(str(i), ts=i) for i in range(60)] + [RESULT]
    path = write(tmp_path, b"\n".join(lines) + b"\n")
    alone = print_json(path, 0)
    monkeypatch.setattr(parallel.Workers, "command", (sys.executable, "-c", "import sys; sys.exit(3)"))
    got = print_json(path, 2, segment=1, first=1)
    assert got[3] and got[:3] == alone[:3] and '"result":"done"' in got[0]


def test_json_mode_with_workers_counts_every_event_and_follows_the_session(tmp_path):
    """Past a segment's first 200 events, plain events come back only as a count and the last
    session id among them: the count decides whether a stream is all unknown events, the
    session id which run the input ends in."""
    unknown = ev(type="mystery", session_id="s1")
    mostly_unknown = [unknown] * 201 + [thinking(str(i), ts=i) for i in range(300)]
    other = ev(type="thinking", subtype="delta", text="x", session_id="s2", timestamp_ms=9)
    moves_on = [INIT] + [thinking(str(i), ts=i) for i in range(200)] + [RESULT] + [other] * 300
    for name, lines in (("unknown", mostly_unknown), ("moves", moves_on)):
        path = write(tmp_path, b"\n".join(lines) + b"\n", f"{name}.ndjson")
        alone = print_json(path, 0)
        assert alone[2] == 1 and "ended without a result" in alone[1]
        assert print_json(path, 2, segment=1 << 20, first=1)[:3] == alone[:3]


def test_a_repeat_at_an_edge_then_a_malformed_line_stays_in_order(tmp_path):
    """(Found in review.)  A segment that starts with a copy of the line before its edge and
    goes on with a malformed line: records stay in file order, the copy is told."""
    data = INIT + b"\n" + thinking("a") + b"\n" + thinking("a") + b"\nnot json\n" + RESULT + b"\n"
    first = len(INIT) + 1 + len(thinking("a")) + 1  # the edge falls just before the copy
    same_as_one_process(write(tmp_path, data), segment=1 << 20, first=first)


# -- a property: any stream, any edges, any chunking inside the workers ----------------------

LINES = [INIT, thinking("a"), thinking("a"), thinking("b", ts=2), started("c1"), completed("c1"), RESULT,
         b"", b"   ", b"not json", b"\xef\xbb\xbf" + thinking("bom"), b'{"type":"thinking","subtype":"delta"',
         b',"text":"x","session_id":"s1"}', b'{"type":"mystery","session_id":"s2"}', b"[1, 2]",
         ev(type="assistant", session_id="s1", timestamp_ms=4,
            message={"role": "assistant", "content": [{"type": "text", "text": "hi"}]})]


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(picks=st.lists(st.integers(0, len(LINES) - 1), min_size=1, max_size=40),
       crlf=st.lists(st.booleans(), min_size=40, max_size=40),
       edges=st.lists(st.integers(1, 400), min_size=1, max_size=6), read=st.integers(1, 64))
def test_any_stream_cut_anywhere_gives_the_same_model(picks, crlf, edges, read):
    """Segments decoded in this process (as a worker does, chunk size ``read``) and taken as
    the feed takes them, against the same bytes decoded line after line."""
    import tempfile

    from viewer.core.formats import get_format
    from viewer.core.sources import Ingest

    data = b"".join(LINES[i] + (b"\r\n" if crlf[k] else b"\n") for k, i in enumerate(picks))
    fmt = get_format()
    with tempfile.TemporaryFile() as f:
        f.write(data)
        f.flush()
        fd = f.fileno()
        todo = parallel.plan(fd, len(data), segment=edges[0], first=edges[-1])
        ing = Ingest(runs=fmt.run_line)
        recs = ing.feed(data[: todo[0][1]])
        saved, parallel._READ = parallel._READ, read
        try:
            for start, end in todo[1:]:
                seg = parallel.Segment.from_reply(start, end, marshal.dumps(
                    parallel.decode_segment(fd, start, end, fmt)))
                got = parallel.take(ing, seg)
                recs += got if got is not None else ing.feed(data[seg.start:seg.end])
        finally:
            parallel._READ = saved
        recs += ing.close()
    lines = [r.line for r in recs]
    assert lines == sorted(lines)
    check_accounting(recs, ing.decoder)
    m = StreamModel()
    for r in recs:
        m.apply(r)
    m.end()
    assert model_state(m) == model_state(model_of(data)[0])


def test_a_file_that_is_mostly_its_first_line_is_read_without_workers(tmp_path):
    """Workers start only when there is enough for them after the first segment (a 64 MB
    first line is the app's to read anyway: workers would only cost memory)."""
    big = ev(type="tool_call", subtype="completed", call_id="c", session_id="s1",
             tool_call={"readToolCall": {"args": {"path": "a"}, "result": {"success": {"content": "x" * 5000}}}})
    for rest, want in ((1, 0), (60, 2)):
        data = b"\n".join([big] + [thinking(str(i), ts=i) for i in range(rest)]) + b"\n"
        path = write(tmp_path, data, f"run{rest}.ndjson")
        feed = FileFeed(str(path), workers=2, segment=100, first=10, min_parallel=2000)
        feed.gather_runs(StreamModel().format)
        feed.prepare()
        assert feed.workers == want
        feed.stop()
        assert print_json(path, 2, segment=100, first=10, min_parallel=2000)[3] is (want > 0)


WORKER = "from viewer.core.parallel import worker_main; sys.exit(worker_main(sys.argv[1:]))"


@pytest.mark.parametrize("how", ["prints first", "sends garbage", "stalls"])
def test_a_worker_that_prints_sends_garbage_or_stalls_never_hangs_the_reading(tmp_path, monkeypatch, how):
    """(Found in review.)  Replies come on a pipe of their own (what a worker prints goes
    nowhere), start with a magic and a length, and a worker silent for STALL_SECONDS is given
    up on: the rest is read here, by the app and by --print alike."""
    code = {
        "prints first": f"import sys; print('hello from a sitecustomize'); {WORKER}",
        "sends garbage": "import os, sys, time; os.write(int(sys.argv[3]), b'garbage, not a reply'); time.sleep(30)",
        "stalls": "import time; time.sleep(30)",
    }[how]
    monkeypatch.setattr(parallel.Workers, "command", (sys.executable, "-c", code))
    monkeypatch.setattr(parallel, "STALL_SECONDS", 1.0)
    data = b"\n".join([INIT] + [thinking(str(i), ts=i) for i in range(50)] + [RESULT]) + b"\n"
    path = write(tmp_path, data)
    feed = same_as_one_process(path)
    assert (feed.segments_taken > 0) is (how == "prints first")
    assert bool(feed.worker_error) is (how != "prints first")
    alone = print_json(path, 0)
    assert print_json(path, 2, segment=1, first=1)[:3] == alone[:3]


def test_a_file_replaced_before_reading_is_read_as_it_was_opened(tmp_path):
    """(Found in review.)  Without workers too: the records and the payloads the detail view
    reads again both come from the file as it was when the feed opened it."""
    old = b"\n".join([INIT, thinking("old"), started("c1"), completed("c1", "old text"), RESULT]) + b"\n"
    new = b"\n".join([INIT, thinking("NEW"), started("c1"), completed("c1", "NEW TEXT, LONGER"), RESULT]) + b"\n"
    path = write(tmp_path, old)
    m = StreamModel()
    feed = FileFeed(str(path), workers=0)
    feed.gather_runs(m.format)
    write(tmp_path, new, "new.ndjson").replace(path)
    feed.start()
    for r in feed.wait(timeout=10):
        m.apply(r)
    tool = m.sessions[0].tools[0]
    assert m.sessions[0].blocks[0].text == "old"
    assert b"old text" in feed.store.read(*ref_span(tool.end_ref))
