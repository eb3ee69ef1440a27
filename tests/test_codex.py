"""Codex's ``exec --json`` stream, read in its own format (viewer.core.formats.codex): what a
user sees of its items, turns and failures, in the model, --print and the detail view."""

from __future__ import annotations

import orjson
import pytest

from tests.conftest import REAL_CURSOR_DIR, SAMPLES_DIR
from tests.test_printer_cli import run_main
from viewer.core.formats import codex, detect

CODEX_DIR = REAL_CURSOR_DIR.parent / "codex"


def j(**fields) -> bytes:
    return orjson.dumps(fields) + b"\n"


def item(event: str, **fields) -> bytes:
    return j(type=f"item.{event}", item=fields)


START = j(type="thread.started", thread_id="019a2d7a-6455-7170-a661-c6d8b94c630a") + j(type="turn.started")
DONE = j(type="turn.completed", usage={"input_tokens": 6040, "cached_input_tokens": 4992, "output_tokens": 129})


def real(name: str) -> bytes:
    path = CODEX_DIR / name
    if not path.exists():
        pytest.skip(f"{path} not found")
    return path.read_bytes()


def event_at(data: bytes, ref: int | None) -> dict | None:
    """The event a call's ``start_ref`` or ``end_ref`` points at in ``data``."""
    from viewer.core.model import ref_span

    if ref is None:
        return None
    offset, length = ref_span(ref)
    return orjson.loads(data[offset:offset + length])


def sections(t, m):
    """The detail view's (title, body) pairs of call ``t`` of model ``m``."""
    return [(s.title, s.body) for s in codex.tool_sections(event_at(m.test_data, t.start_ref),
                                                             event_at(m.test_data, t.end_ref), t.call_id)]


def model(h, data: bytes):
    m, _, _ = h.model_of(data)
    m.test_data = data
    return m


def test_a_real_codex_run_reads_as_a_prompt_less_run_with_its_command_answer_and_tokens(h):
    """The shell wrapper Codex runs every command in is left out of the list; the turn's
    usage counts the cached input apart; the run succeeded."""
    m = model(h, real("agentcmd__stream-output-2.ndjson"))
    assert m.format.NAME == "codex" and m.unknown_events == 0 and not m.foreign
    (s,) = m.sessions
    assert s.session_id == "019a2d7a-6455-7170-a661-c6d8b94c630a"
    (t,) = s.tools
    assert (t.short, t.target, t.status, t.detail) == ("Shell", "ls", "success", "3 lines")
    assert [b.kind for b in s.blocks] == ["thinking", "tool", "assistant", "result"]
    assert "Files here" in s.blocks[2].text
    assert s.result is not None and not s.result.failed
    tok = s.result.tokens
    assert (tok.input, tok.cache_read, tok.output) == (6040 - 4992, 4992, 129)
    got = dict(sections(t, m))
    assert got["Command"] == "bash -lc ls" and "test.js" in got["Output (exit 0)"]


def test_a_file_change_that_comes_only_completed_is_one_finished_call(h):
    m = model(h, real("agentcmd__stream-output-3.ndjson"))
    (t,) = m.sessions[0].tools
    # (A file added only: "Create", as Cursor's file creation reads; a trial saw "Edit".)
    assert (t.short, t.label, t.target, t.detail, t.status) == (
        "Create", "Created new file", "/private/tmp/codex-research-test/hello.txt", "1 added", "success")
    assert dict(sections(t, m))["Files"] == "added  /private/tmp/codex-research-test/hello.txt"
    for kinds, short in ((["add", "add"], "Create"), (["add", "update"], "Edit"), (["delete"], "Edit")):
        m = model(h, START + item("completed", id="i", type="file_change", status="completed",
                                  changes=[{"path": f"/w/{i}.py", "kind": k} for i, k in enumerate(kinds)]) + DONE)
        assert m.sessions[0].tools[0].short == short, kinds
    # (A declined one added nothing: not "1 added".)
    m = model(h, START + item("completed", id="i", type="file_change", status="declined",
                              changes=[{"path": "/w/c.py", "kind": "add"}]) + DONE)
    (t,) = m.sessions[0].tools
    assert (t.status, t.detail) == ("rejected", "")
    # (A failed one changed no file: not "1 updated".)
    m = model(h, START + item("completed", id="i", type="file_change", status="failed",
                              changes=[{"path": "/w/c.py", "kind": "update"}]) + DONE)
    (t,) = m.sessions[0].tools
    assert (t.status, t.detail, t.error_text) == ("failed", "", "the patch was not applied")


def test_a_failed_and_a_declined_command(h):
    """A command that exits non-zero failed (its exit code and its output's last line); one the
    user declined was refused, not failed."""
    data = (START
            + item("started", id="item_1", type="command_execution", command="bash -lc 'pytest -q'",
                   aggregated_output="", status="in_progress")
            + item("completed", id="item_1", type="command_execution", command="bash -lc 'pytest -q'",
                   aggregated_output="..F\n1 failed, 2 passed\n", exit_code=1, status="failed")
            + item("started", id="item_2", type="command_execution", command="bash -lc 'rm -rf build'",
                   aggregated_output="", status="in_progress")
            + item("completed", id="item_2", type="command_execution", command="bash -lc 'rm -rf build'",
                   aggregated_output="", status="declined")
            + DONE)
    m = model(h, data)
    failed, declined = m.sessions[0].tools
    assert (failed.target, failed.status, failed.detail, failed.error_text) == (
        "pytest -q", "failed", "exit 1", "1 failed, 2 passed")
    assert "Output (exit 1)" in dict(sections(failed, m))
    assert (declined.target, declined.status) == ("rm -rf build", "rejected")
    # (An old build's sandbox refusal: exit_code -1 with status completed.)
    m = model(h, START + item("completed", id="i", item_type="command_execution", command="ls",
                              aggregated_output="denied", exit_code=-1, status="completed") + DONE)
    (t,) = m.sessions[0].tools
    assert (t.status, t.detail) == ("failed", "exit -1")


def test_a_running_command_is_running_until_its_item_completes(h):
    m, _, _ = h.model_of(START + item("started", id="item_1", type="command_execution", command="sleep 9",
                                      aggregated_output="", status="in_progress"), end=False)
    (t,) = m.sessions[0].tools
    assert t.status == "running" and m.sessions[0].state == "live"


def test_a_todo_list_updated_as_it_runs_is_one_call_showing_its_latest_list(h):
    """A to-do list is a plan, not a process: done as it is written (a silence is not blamed on
    it, nor is it "running" for the whole turn), then ticked off by item.updated, which is no
    duplicate; the detail view shows the newest list, and its raw view that event."""
    todos = [{"text": "Read the failing test", "completed": False}, {"text": "Fix totals", "completed": False}]
    ticked = [{**todos[0], "completed": True}, todos[1]]
    data = (START + item("started", id="item_0", type="todo_list", items=todos)
            + item("updated", id="item_0", type="todo_list", items=ticked))
    m, _, _ = h.model_of(data, end=False)
    m.test_data = data
    (t,) = m.sessions[0].tools
    assert (t.target, t.status, t.duplicates) == ("2 todos, 1 done", "success", 0)
    assert m.sessions[0].status_counts["running"] == 0
    assert dict(sections(t, m))["Todos"] == "[x] Read the failing test\n[ ] Fix totals"
    assert event_at(data, t.end_ref)["type"] == "item.updated"
    done = data + item("completed", id="item_0", type="todo_list", items=[{**x, "completed": True} for x in todos])
    m = model(h, done + DONE)
    (t,) = m.sessions[0].tools
    assert (t.target, t.status, t.duplicates) == ("2 todos, 2 done", "success", 0)
    # (Without ids, as a broken stream may send them: still one list.)
    noid = START + b"".join(item(e, type="todo_list", items=x) for e, x in (("started", todos), ("updated", ticked)))
    m, _, _ = h.model_of(noid, end=False)
    assert [t.target for t in m.sessions[0].tools] == ["2 todos, 1 done"]


def test_a_todo_lists_start_is_its_item_started_though_it_is_done_as_written(h):
    """(From a review: its detail read "(no start) → line 15".)  A to-do list is done as it is
    written, so its item.started is no ToolStarted; but it is where the list began: the detail
    view's events row and raw view have it, and no update nor its completion moves it.  It has
    no duration for all that (a plan is not a process)."""
    from rich.console import Console

    from viewer.ui.widgets.detail import DetailView

    todos = [{"text": "Read the failing test", "completed": False}, {"text": "Fix totals", "completed": False}]
    ticked = [{**todos[0], "completed": True}, todos[1]]
    data = (START + item("started", id="item_0", type="todo_list", items=todos)
            + item("started", id="item_1", type="command_execution", command="ls", status="in_progress")
            + item("updated", id="item_0", type="todo_list", items=ticked)
            + item("completed", id="item_1", type="command_execution", command="ls", exit_code=0, status="completed")
            + item("completed", id="item_0", type="todo_list", items=[{**x, "completed": True} for x in todos])
            + DONE)
    m = model(h, data)
    s = m.sessions[0]
    t = s.tools[0]
    assert (t.start_line, t.end_line, t.status, t.duplicates) == (3, 7, "success", 0)
    assert event_at(data, t.start_ref)["type"] == "item.started"
    assert event_at(data, t.end_ref)["type"] == "item.completed"
    assert t.duration_ms is None
    console = Console(width=160)
    with console.capture() as c:
        console.print(DetailView._facts(t, t.target, s))
    assert " ".join(next(x for x in c.get().splitlines() if "events" in x).split()) == "events line 3 → line 7"
    # (The sample's list too: started at line 4, completed at line 15.)
    sample = model(h, (SAMPLES_DIR / "codex_run.ndjson").read_bytes())
    (todo,) = [x for x in sample.sessions[0].tools if x.kind_key == "todo_list"]
    assert (todo.start_line, todo.end_line) == (4, 15)


def test_a_threads_next_turn_is_its_next_run(h, capsys, tmp_path):
    """A turn.started after a turn's end begins the thread's next run (as a resumed session):
    its answer is said once, and each run has its own tokens."""
    def turn(text: str, out: int) -> bytes:
        return (j(type="turn.started") + item("completed", id=text[:3], type="agent_message", text=text)
                + j(type="turn.completed", usage={"input_tokens": 10, "output_tokens": out}))

    data = j(type="thread.started", thread_id="t1") + turn("AAA first turn.", 5) + turn("BBB second turn.", 7)
    m = model(h, data)
    first, second = m.sessions
    assert first.session_id == second.session_id == "t1"
    assert (first.result.tokens.output, second.result.tokens.output) == (5, 7)
    assert [b.text for b in second.blocks if b.kind == "assistant"] == ["BBB second turn."]
    p = tmp_path / "turns.ndjson"
    p.write_bytes(data)
    code, out, err = run_main(capsys, "--print", str(p))
    assert code == 0 and out.count("AAA first turn.") == 1 and out.count("BBB second turn.") == 1, out


def test_a_failed_turn_fails_the_run_with_the_apis_own_message(capsys, tmp_path, h):
    """turn.failed's message is often the API's error as JSON in a string: its message is
    what is said, in the transcript and on stderr, and --print exits 1."""
    api = orjson.dumps({"error": {"type": "invalid_request_error", "message": "model gpt-9 does not exist"}}).decode()
    data = START + j(type="error", message="Reconnecting... 1/5") + j(type="turn.failed", error={"message": api})
    m = model(h, data)
    s = m.sessions[0]
    assert s.result is not None and s.result.failed and s.result.text == "model gpt-9 does not exist"
    assert any(b.kind == "alert" and b.text == "error: Reconnecting... 1/5" for b in s.blocks)
    p = tmp_path / "codex.ndjson"
    p.write_bytes(data)
    for fmt in ("text", "json"):
        code, out, err = run_main(capsys, "--print", "--output-format", fmt, str(p))
        assert code == 1 and "model gpt-9 does not exist" in err, err
    code, out, err = run_main(capsys, "--print", "--output-format", "json", str(p))
    assert orjson.loads(out)["type"] == "turn.failed"  # (Codex has no result object: the turn's end, as it came)


def test_every_print_mode_reads_a_codex_stream_in_its_format(capsys):
    path = CODEX_DIR / "agentcmd__stream-output-4.ndjson"
    if not path.exists():
        pytest.skip(f"{path} not found")
    code, out, err = run_main(capsys, "--print", str(path))
    assert code == 0 and err == "", err
    assert "Ran terminal command cat test.js (1 line)" in out and "console.log('Hello World');" in out
    code, out, err = run_main(capsys, "--print", "--output-format", "json", str(path))
    assert code == 0 and orjson.loads(out)["usage"]["output_tokens"] == 204


def test_a_cut_off_codex_run_ended_without_a_result(h):
    m = model(h, real("agentcmd__stream-output-multi-1.ndjson"))
    assert m.format.NAME == "codex" and m.sessions[0].result is None
    assert any(b.kind == "end" for b in m.sessions[0].blocks)


def test_a_new_codex_run_ends_the_one_before_it_in_a_file(h, capsys, tmp_path):
    """Codex's events do not name their run (only thread.started does): no event can go to
    an earlier run once the next began.  A cut-off run followed by another ended there; it
    was "live" to the input's end, and text mode told its end after the next run's lines."""
    first, second = real("agentcmd__stream-output-multi-1.ndjson"), real("agentcmd__stream-output-2.ndjson")
    m = model(h, first + second)
    cut, ok = m.sessions
    assert cut.ended and cut.result is None and cut.blocks[-1].kind == "end"
    assert cut.blocks[-1].text == "The next run began here"
    assert ok.result is not None and not ok.result.failed
    path = tmp_path / "two.ndjson"
    path.write_bytes(first + second)
    code, out, err = run_main(capsys, "--print", str(path))
    assert code == 0 and "session 1 of 2: the run ended without a result" in err  # (the last run succeeded)
    assert out.index("◌ ended without a result") < out.index("--- session 2 ---") < out.index("✓ succeeded")


def test_text_mode_marks_each_call_once_and_a_to_do_lists_updates_with_a_dot(capsys):
    """(From a trial.)  A to-do list ticked off printed a ✓ line at each update: 8 lines with a
    mark for "5 tool calls", so grepping the marks miscounted.  Its updates say "·"."""
    code, out, err = run_main(capsys, "--print", str(SAMPLES_DIR / "codex_run.ndjson"))
    lines = out.splitlines()
    marked = [line for line in lines if line and line[0] in "✓✗⊘◌?" and not line.startswith("✓ succeeded")]
    assert len(marked) == 5 and "5 tool calls (1 failed)" in out, marked
    assert [line for line in lines if line.startswith("· Updated todos")] == [
        "· Updated todos 3 todos, 1 done", "· Updated todos 3 todos, 2 done", "· Updated todos 3 todos, 3 done"]


def test_an_mcp_call_a_web_search_and_an_unknown_item_are_calls(h):
    """Every item that is not text is a call; one of a type not known is listed by its type
    (never dropped), and its detail shows the item."""
    data = (START
            + item("started", id="i1", type="mcp_tool_call", server="github", tool="create_issue",
                   arguments={"title": "x"}, result=None, error=None, status="in_progress")
            + item("completed", id="i1", type="mcp_tool_call", server="github", tool="create_issue",
                   arguments={"title": "x"}, result=None, error={"message": "401 Unauthorized"}, status="failed")
            + item("completed", id="i2", type="web_search", query="textual line api", action={"type": "search"})
            + item("completed", id="i3", type="image_generation", prompt="a cat", status="completed")
            + DONE)
    m = model(h, data)
    mcp, web, other = m.sessions[0].tools
    assert (mcp.short, mcp.target, mcp.status, mcp.error_text) == ("MCP", "github: create_issue", "failed",
                                                                   "401 Unauthorized")
    assert dict(sections(mcp, m))["Error"] == "401 Unauthorized"
    assert (web.short, web.target, web.status) == ("Web", "textual line api", "success")
    assert (other.short, other.label, other.target) == ("image_generat…", "Image generation", "a cat")
    assert '"prompt": "a cat"' in dict(sections(other, m))["Item"]


def test_an_old_builds_item_names_are_read():
    """Builds before about 0.44: ``item_type`` and ``assistant_message``."""
    from viewer.core import actions as A
    from viewer.core.decode import Event

    data = {"type": "item.completed", "item": {"id": "item_1", "item_type": "assistant_message", "text": "hi"}}
    a = codex.interpret(Event(1, 1, 0, 0, data))
    assert type(a) is A.AssistantText and a.text == "hi" and a.consolidated


def test_codex_and_cursor_runs_in_one_file_are_each_read_in_their_format(h):
    """``cat cursor.log codex.log``: the thread.started tells the format again.  A Cursor run
    joined mid-way (no init) stays Cursor's: the next run's init told the format of the run
    it begins, not of the one before (its calls' details read as Codex items)."""
    from tests.conftest import SAMPLES_DIR

    tail = REAL_CURSOR_DIR / "agentic-automation__tail.ndjson"
    if tail.exists():
        m = model(h, tail.read_bytes() + real("agentcmd__stream-output-2.ndjson"))
        assert [m.format_of(s).NAME for s in m.sessions] == ["cursor", "codex"]

    cursor = (SAMPLES_DIR / "demo_session.ndjson").read_bytes()
    m = model(h, cursor + real("agentcmd__stream-output-2.ndjson"))
    first, second = m.sessions
    assert m.format_of(first).NAME == "cursor" and m.format_of(second).NAME == "codex"
    assert second.tools[0].target == "ls" and m.unknown_events == 0
    m = model(h, real("agentcmd__stream-output-2.ndjson") + cursor)
    assert [m.format_of(s).NAME for s in m.sessions] == ["codex", "cursor"] and m.unknown_events == 0


def test_what_tells_codex_and_what_does_not():
    assert detect({"type": "thread.started", "thread_id": "t"}) is codex
    assert detect({"type": "error", "message": "x"}) is None  # (anybody's)
    assert codex.inner_command("bash -lc 'cat a.txt'") == "cat a.txt"
    assert codex.inner_command("/bin/zsh -lc ls") == "ls"
    assert codex.inner_command("bash -lc 'unclosed") == "bash -lc 'unclosed"
    assert codex.inner_command("python -c 'print(1)'") == "python -c 'print(1)'"


def test_a_question_to_the_user_is_shown_with_its_options_in_the_transcript_and_text_mode(h):
    data = START + j(type="request_user_input", id="turn_1", call_id="c1", questions=[
        {"question": "Which database?", "header": "DB", "options": [{"label": "Postgres"}, {"label": "SQLite"}]}])
    m, _, _ = h.model_of(data, end=False)
    assert any(b.kind == "query" and "Which database? (Postgres / SQLite)" in b.text for b in m.sessions[0].blocks)
    # (From a trial.)  A CI log has it too.
    import io

    from viewer.core.printer import TextPrinter
    from viewer.core.sources import LineSplitter

    p = TextPrinter(out := io.StringIO(), io.StringIO())
    p.feed_lines(LineSplitter().feed(data))
    assert "(at line 3: Question: Which database? (Postgres / SQLite))" in out.getvalue(), out.getvalue()


FAILED_CODEX = START + j(type="turn.failed", error={"message": "The 'gpt-5-codex' model is not supported."})


@pytest.mark.parametrize("first", ["codex_run", "gemini_run", "claude_code_run", "demo_session"])
@pytest.mark.parametrize("last", ["failed_run", "codex_failed"])
def test_a_file_of_two_agents_runs_ends_in_its_last_runs_result_in_every_print_mode(capsys, tmp_path, first, last):
    """``cat a.log b.log``: every print mode reads each run in its own format, so the exit
    status and json's result object are the last run's (json and stream-json kept the first
    run's format: a failed last run exited 0), with worker processes too."""
    from tests.conftest import SAMPLES_DIR
    from tests.test_parallel import print_json

    if first == "codex_run" and last == "codex_failed":
        pytest.skip("one agent")
    tail = FAILED_CODEX if last == "codex_failed" else (SAMPLES_DIR / "failed_run.ndjson").read_bytes()
    p = tmp_path / "both.ndjson"
    p.write_bytes((SAMPLES_DIR / f"{first}.ndjson").read_bytes() + tail)
    why = "not supported" if last == "codex_failed" else "ConnectError"
    for fmt in ("text", "json", "stream-json"):
        code, out, err = run_main(capsys, "--print", "--output-format", fmt, str(p))
        assert code == 1 and why in err and "looks like" not in err, (fmt, err)
    obj = orjson.loads(run_main(capsys, "--print", "--output-format", "json", str(p))[1])
    assert obj["type"] == ("turn.failed" if last == "codex_failed" else "result"), obj
    alone = print_json(p, 0)
    for segment in (64, 2000):
        got = print_json(p, 2, segment=segment, first=segment)
        assert got[3] and got[:3] == alone[:3]


def test_a_replays_index_interprets_each_event_of_a_codex_file_once(monkeypatch):
    """The index's model reads in the format the file's start tells from its first event: it
    made each action twice (first in Cursor's format, then again after the switch)."""
    from tests.conftest import SAMPLES_DIR
    from viewer.core.replay import FileIndex
    from viewer.core.sources import MemoryStore

    calls = []
    real_interpret = codex.interpret
    monkeypatch.setattr(codex, "interpret", lambda ev: calls.append(ev.line) or real_interpret(ev))
    data = (SAMPLES_DIR / "codex_run.ndjson").read_bytes()
    index = FileIndex(MemoryStore(data), len(data))
    index.read()
    assert index.complete and len(calls) == data.count(b"\n")


def test_a_threads_cut_off_second_turn_fails_the_input_in_every_print_mode(capsys, tmp_path):
    """(From a review.)  json and stream-json kept the first turn's result when the second was
    cut off: they exited 0 where text mode and the TUI say the run ended without a result."""
    from tests.test_parallel import print_json

    data = (START + item("completed", id="a", type="agent_message", text="one") + DONE
            + j(type="turn.started") + item("started", id="b", type="command_execution", command="make",
                                            aggregated_output="", status="in_progress"))
    p = tmp_path / "cut.ndjson"
    p.write_bytes(data)
    for fmt in ("text", "json", "stream-json"):
        code, out, err = run_main(capsys, "--print", "--output-format", fmt, str(p))
        assert code == 1 and "ended without a result" in err, (fmt, err)
    alone = print_json(p, 0)
    assert alone[2] == 1 and print_json(p, 2, segment=64, first=64)[:3] == alone[:3]
    # (A second turn that ends well is the input's last run: 0.)
    p.write_bytes(data + item("completed", id="b", type="command_execution", command="make",
                              aggregated_output="ok\n", exit_code=0, status="completed") + DONE)
    for fmt in ("text", "json", "stream-json"):
        assert run_main(capsys, "--print", "--output-format", fmt, str(p))[0] == 0, fmt


def test_a_run_joined_mid_way_keeps_its_format_when_another_agents_run_follows(h):
    """A Cursor run without its init, then a Claude Code run (hooks first) or a Codex one: the
    next run's first events tell their own run's format, not the one before's (its calls'
    details read as the other agent's)."""
    from tests.conftest import SAMPLES_DIR

    cursor_tail = b"".join((SAMPLES_DIR / "demo_session.ndjson").read_bytes().splitlines(keepends=True)[1:])
    for other, name in (("claude_code_run.ndjson", "claude"), ("codex_run.ndjson", "codex")):
        m = model(h, cursor_tail + (SAMPLES_DIR / other).read_bytes())
        assert [m.format_of(s).NAME for s in m.sessions] == ["cursor", name], other


def test_print_modes_agree_on_odd_inputs(capsys, tmp_path):
    """(From a review.)  stream-json's --follow start-over forgot nothing; json kept telling the
    format after the first 200 events (the model does not); a 2>&1 init split between a
    worker's segment and one read here counted as a run without a result."""
    import io

    from tests.conftest import SAMPLES_DIR
    from tests.test_parallel import print_json
    from viewer.core.decode import Restart
    from viewer.core.printer import StreamJsonPrinter
    from viewer.core.sources import LineSplitter

    demo = (SAMPLES_DIR / "demo_session.ndjson").read_bytes()
    p = StreamJsonPrinter(io.BytesIO(), err := io.StringIO())
    p.feed_lines(LineSplitter().feed(demo))
    p.handle(Restart(demo.count(b"\n")))
    p.feed_lines(LineSplitter().feed(b"".join(demo.splitlines(keepends=True)[1:20])))
    assert p.finish() == 1 and "ended without a result" in err.getvalue()

    late = tmp_path / "late.ndjson"
    late.write_bytes(b"".join(j(type="user", message={"content": "x"}) for _ in range(250))
                     + item("completed", id="a", type="agent_message", text="hi") + DONE)
    codes = {fmt: run_main(capsys, "--print", "--output-format", fmt, str(late))[0] for fmt in ("text", "json")}
    assert codes["text"] == codes["json"], codes

    doubled = tmp_path / "doubled.ndjson"
    doubled.write_bytes(b"".join(line + line for line in demo.splitlines(keepends=True)))
    alone = print_json(doubled, 0)
    for segment in (64, 500, 3000):
        assert print_json(doubled, 2, segment=segment, first=segment)[:3] == alone[:3], segment


def test_an_error_the_agent_reported_is_a_replay_stop():
    from viewer.core import actions as A
    from viewer.core.replay import is_error

    assert is_error(None, A.Notice(None, "error", "", "Reconnecting... 1/5", alert=True))
    assert not is_error(None, A.Notice(None, "retry", "", "attempt=1"))


def test_a_replay_reads_a_codex_file_alike_played_from_its_start_or_after_a_seek():
    """(From a review.)  Played from its start, a replay's model read the first event in
    Cursor's format (an unknown event); restored from the index's checkpoint, in Codex's."""
    from tests.conftest import SAMPLES_DIR
    from viewer.core.replay import FileIndex, Replay
    from viewer.core.sources import MemoryStore

    data = j(type="error", message="Reconnecting... 1/5") + (SAMPLES_DIR / "codex_run.ndjson").read_bytes()
    index = FileIndex(MemoryStore(data), len(data), checkpoint_every=5)
    index.read()
    n = data.count(b"\n")
    seen = []
    for target in (1, n, 1):
        r = Replay(index=index, playing=False)
        r.seek(target)
        seen.append((r.model.unknown_events, r.model.sessions[0].blocks[0].kind))
    assert seen == [(0, "alert")] * 3, seen


def test_a_codex_run_and_its_calls_are_timed_by_when_their_events_came(capsys, h):
    """(From a live-watching trial.)  Codex's stream has no times: a run piped in live showed
    its calls' times while it ran, then its header and its result line no time at all, and
    text mode of the same pipe none either.  When events came at once (a file piped in whole)
    that tells no time: it said "0 ms" of every call."""
    import io

    from viewer.core.printer import TextPrinter
    from viewer.core.sources import LineSplitter

    shell = dict(id="item_1", type="command_execution", command="bash -lc ls")
    lines = [*(START.splitlines(keepends=True)), item("started", **shell, aggregated_output="", status="in_progress"),
             item("completed", **shell, aggregated_output="a\nb\n", exit_code=0, status="completed"), DONE]
    p = TextPrinter(out := io.StringIO(), io.StringIO())
    split = LineSplitter()
    for at, line in zip((100.0, 100.5, 101.0, 103.5, 104.0), lines):  # (as a pipe gave them)
        p.feed_lines(split.feed(line), at)
    assert p.close() == 0
    said = out.getvalue().splitlines()
    assert "✓ Ran terminal command ls (2 lines; 2.5 s)" in said and said[-1] == "✓ succeeded in 4.0 s · 1 tool call · " \
        "1,048 in / 129 out tokens · 4,992 cache read", said
    s = p.model.sessions[0]
    assert s.took_ms == 4000
    # (From a trial of --follow.)  An event read long after the run's end does not make it
    # longer: it read "14 s" in the header, and the transcript still "4.0 s".
    p.feed_lines(split.feed(j(type="bogus_event", x=1)), 118.0)
    assert s.took_ms == 4000 and s.last_arrival == 104.0
    # All at once: no time, rather than "0 ms".
    p = TextPrinter(out := io.StringIO(), io.StringIO())
    p.feed_lines(LineSplitter().feed(b"".join(lines)), 100.0)
    assert p.close() == 0
    said = out.getvalue().splitlines()
    assert "✓ Ran terminal command ls (2 lines)" in said and said[-1].startswith("✓ succeeded · 1 tool call"), said
    assert p.model.sessions[0].took_ms is None
    # The detail says the exit code, 0 too (the list says the output's lines).
    m = model(h, b"".join(lines))
    assert "Output (exit 0)" in dict(sections(m.sessions[0].tools[0], m))


async def test_a_live_codex_runs_header_and_result_line_say_how_long_it_took():
    from tests.ui.conftest import screen_rows
    from tests.ui.test_pilot import push
    from viewer.core.feed import BytesFeed
    from viewer.ui.app import AgentViewerApp

    now = [100.0]
    feed = BytesFeed(b"", live=True, eof=False, clock=lambda: now[0])
    app = AgentViewerApp(feed, clock=lambda: now[0])
    shell = dict(id="item_1", type="command_execution", command="bash -lc ls")
    async with app.run_test(size=(120, 30)) as pilot:
        for at, line in zip((100.0, 100.5, 101.0, 103.5, 104.0),
                            [*(START.splitlines(keepends=True)),
                             item("started", **shell, aggregated_output="", status="in_progress"),
                             item("completed", **shell, aggregated_output="a\nb\n", exit_code=0, status="completed"),
                             DONE]):
            now[0] = at
            push(feed, [line])
            await pilot.pause(0.05)
        await pilot.pause(0.2)
        rows = screen_rows(app).splitlines()
        assert "✓ SUCCEEDED  in 4.0 s" in rows[0], rows
        assert any("✓ Run succeeded · 4.0 s" in r for r in rows) and any("ls · 2 lines · 2.5 s" in r for r in rows), rows
