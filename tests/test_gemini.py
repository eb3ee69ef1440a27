"""Gemini CLI's stream-json, read in its own format (viewer.core.formats.gemini): what a user
sees of its messages, calls and result, in the model, --print and the detail view."""

from __future__ import annotations

import orjson
import pytest

from tests.conftest import REAL_CURSOR_DIR
from tests.test_codex import event_at
from tests.test_printer_cli import run_main
from viewer.core.formats import detect, gemini


def j(**fields) -> bytes:
    return orjson.dumps({"timestamp": "2026-03-05T20:42:50.000Z", **fields}) + b"\n"


def at(second: int, **fields) -> bytes:
    return j(**fields, timestamp=f"2026-03-05T20:42:{second:02d}.000Z")


INIT = j(type="init", session_id="c7f1e2a0-5b2d-4f0e-9a51-0d3e2b1c4a77", model="gemini-2.5-pro")
PROMPT = j(type="message", role="user", content="Why does tests/test_totals.py fail?")


def delta(text: str) -> bytes:
    return j(type="message", role="assistant", content=text, delta=True)


def use(tid: str, name: str, second: int = 51, **params) -> bytes:
    return at(second, type="tool_use", tool_name=name, tool_id=tid, parameters=params)


def res(tid: str, second: int = 53, **fields) -> bytes:
    return at(second, type="tool_result", tool_id=tid, **fields)


RESULT = j(type="result", status="success", stats={"total_tokens": 9400, "input_tokens": 9000, "output_tokens": 400,
                                                    "cached": 6000, "input": 3000, "duration_ms": 12_400,
                                                    "tool_calls": 2})

RUN = (INIT + PROMPT + delta("Let me run ") + delta("the tests.")
       + use("run_shell_command_1_0", "run_shell_command", command="pytest -q tests/test_totals.py")
       + res("run_shell_command_1_0", status="success", output="1 failed, 3 passed")
       + delta("The rounding is wrong. ") + delta("Fixing it.")
       + use("replace_2_0", "replace", 55, file_path="/w/src/totals.py", old_string="round(x)\n",
             new_string="round(x, 2)\n", instruction="Round to cents")
       + res("replace_2_0", 56, status="success", output="Successfully modified file: /w/src/totals.py (1 replacements).")
       + use("read_file_3_0", "read_file", 57, file_path="/w/missing.py")
       + res("read_file_3_0", 57, status="error", error={"type": "file_not_found", "message": "File not found: /w/missing.py"})
       + RESULT)


def model(h, data: bytes):
    m, _, _ = h.model_of(data)
    m.test_data = data
    return m


def sections(t, m):
    return {s.title: s.body for s in gemini.tool_sections(event_at(m.test_data, t.start_ref),
                                                          event_at(m.test_data, t.end_ref), t.call_id)}


def test_a_gemini_run_reads_as_prompt_text_calls_and_result(h):
    """Its text chunks grow one entry until a call; each call is paired by its tool_id and
    timed by the stream's own clock; its result says the tokens, the cached part apart."""
    m = model(h, RUN)
    assert m.format.NAME == "gemini" and m.unknown_events == 0
    (s,) = m.sessions
    assert (s.init.model, s.session_id) == ("gemini-2.5-pro", "c7f1e2a0-5b2d-4f0e-9a51-0d3e2b1c4a77")
    assert [b.kind for b in s.blocks] == ["prompt", "assistant", "tool", "assistant", "tool", "tool", "result"]
    assert s.blocks[1].text == "Let me run the tests." and s.blocks[3].text == "The rounding is wrong. Fixing it."
    shell, edit, read = s.tools
    assert (shell.short, shell.target, shell.status, shell.detail) == ("Shell", "pytest -q tests/test_totals.py",
                                                                      "success", "1 failed, 3 passed")
    assert shell.completed_ms is None and shell.end_ts - shell.start_ts == 2000
    assert (edit.short, edit.target, edit.status) == ("Edit", "/w/src/totals.py", "success")
    assert (read.status, read.error_text) == ("failed", "File not found: /w/missing.py")
    r = s.result
    assert not r.failed and r.duration_ms == 12_400
    assert (r.tokens.input, r.tokens.cache_read, r.tokens.output) == (3000, 6000, 400)


def test_a_gemini_calls_detail_shows_its_output_diff_and_error(h):
    m = model(h, RUN)
    shell, edit, read = m.sessions[0].tools
    assert sections(shell, m)["Output"] == "1 failed, 3 passed"
    diff = sections(edit, m)["Diff"]
    assert "-round(x)\n+round(x, 2)\n" in diff and "a/w/src/totals.py" in diff
    assert sections(edit, m)["Instruction"] == "Round to cents"
    assert sections(read, m)["Error"] == "File not found: /w/missing.py"
    assert gemini.copy_text(event_at(m.test_data, shell.start_ref), None) == "pytest -q tests/test_totals.py"


def test_a_failed_gemini_run_says_why_and_print_exits_1(capsys, tmp_path, h):
    data = INIT + PROMPT + j(type="error", severity="warning", message="Loop detected, stopping execution") + j(
        type="result", status="error", error={"type": "INVALID_STREAM", "message": "The model returned an empty response."})
    m = model(h, data)
    s = m.sessions[0]
    assert s.result.failed and s.result.text == "The model returned an empty response."
    assert any(b.kind == "alert" and b.text == "warning: Loop detected, stopping execution" for b in s.blocks)
    p = tmp_path / "gemini.ndjson"
    p.write_bytes(data)
    code, out, err = run_main(capsys, "--print", str(p))
    assert code == 1 and "The model returned an empty response." in err
    code, out, err = run_main(capsys, "--print", "--output-format", "json", str(p))
    assert code == 1 and orjson.loads(out)["status"] == "error"


def test_every_print_mode_reads_a_gemini_run(capsys, tmp_path):
    p = tmp_path / "gemini.ndjson"
    p.write_bytes(RUN)
    code, out, err = run_main(capsys, "--print", str(p))
    assert code == 0 and err == "", err
    assert "Let me run the tests." in out and "Ran terminal command pytest -q tests/test_totals.py" in out
    code, out, err = run_main(capsys, "--print", "--output-format", "json", str(p))
    assert code == 0 and orjson.loads(out)["stats"]["tool_calls"] == 2


def test_the_real_gemini_fragment_is_the_models_text(h):
    """Three real chunks, joined mid-stream: one entry of the model's text, nothing unknown."""
    path = REAL_CURSOR_DIR.parent / "gemini" / "gke-labs-issue-740__message-deltas.ndjson"
    if not path.exists():
        pytest.skip(f"{path} not found")
    chunks = [orjson.loads(x)["content"] for x in path.read_bytes().splitlines()]
    m, _, _ = h.model_of(path.read_bytes())
    assert m.format.NAME == "gemini" and m.unknown_events == 0
    (b,) = m.sessions[0].blocks[:1]
    assert b.kind == "assistant" and b.text == "".join(chunks)


def test_text_mode_names_the_agent_of_a_fragment_with_no_init(capsys):
    """(From a trial: the real fragment printed from mid-sentence, with no word of whose run
    it was.)"""
    path = REAL_CURSOR_DIR.parent / "gemini" / "gke-labs-issue-740__message-deltas.ndjson"
    if not path.exists():
        pytest.skip(f"{path} not found")
    code, out, err = run_main(capsys, "--print", str(path))
    assert code == 1 and out.splitlines()[:2] == ["Gemini CLI", ""], out


def test_what_tells_gemini_and_what_does_not():
    assert detect({"type": "init", "session_id": "s", "model": "m"}) is gemini
    assert detect({"type": "message", "role": "assistant", "content": "x", "delta": True}) is gemini
    assert detect({"type": "tool_result", "tool_id": "t", "status": "success"}) is gemini
    assert detect({"type": "tool_use", "id": "toolu_1", "name": "Bash"}) is None  # (a Claude part's shape)
    assert detect({"type": "result", "status": "success"}) is None  # (alike in every format)


def test_a_call_the_policy_refused_is_rejected_not_failed(h):
    data = (INIT + use("run_shell_command_9_0", "run_shell_command", command="rm -rf /")
            + res("run_shell_command_9_0", status="error",
                  error={"type": "policy_violation", "message": "Tool execution denied by policy."}) + RESULT)
    (t,) = model(h, data).sessions[0].tools
    assert (t.status, t.error_text) == ("rejected", "Tool execution denied by policy.")


def test_odd_gemini_shapes_are_read_not_dropped(h, capsys, tmp_path):
    """A call without a tool_id pairs with its result by order; a read_many_files lists its
    patterns; an MCP tool is named so, and a long tool name is cut in the list; a message
    with no text is shown as unknown; a failed call says its error's type."""
    data = (INIT + at(51, type="tool_use", tool_name="run_shell_command", parameters={"command": "ls"})
            + at(52, type="tool_result", status="success", output="a\nb")
            + use("r1", "read_many_files", include=["src/**/*.py", "README.md"]) + res("r1", status="success")
            + use("m1", "mcp_github_list_issues", repo="x/y") + res("m1", status="success", output="[]")
            + use("x1", "a_tool_with_a_very_long_name") + res("x1", status="success")
            + j(type="message", role="assistant", content={"parts": ["?"]})
            + use("f1", "read_file", file_path="/w/x") + res("f1", status="error",
                                                              error={"type": "file_not_found", "message": "no /w/x"})
            + RESULT)
    m = model(h, data)
    shell, many, mcp, long, failed = m.sessions[0].tools
    assert (shell.status, shell.detail) == ("success", "2 lines")
    assert many.target == "src/**/*.py, README.md"
    assert (mcp.short, mcp.label, mcp.target) == ("MCP", "Called MCP tool", "github_list_issues")
    assert long.short == "a_tool_with_a…"
    assert m.unknown_events == 1 and any("parts" in b.text for b in m.sessions[0].blocks if b.kind == "unknown")
    p = tmp_path / "odd.ndjson"
    p.write_bytes(data)
    out = run_main(capsys, "--print", str(p))[1]
    assert "(failed: file_not_found; no /w/x" in out, out


@pytest.mark.parametrize(("output", "detail", "error", "printed"), [
    ("Command exited with code: 2", "exit 2", "", "(exit 2; 2.0 s)"),
    ("Command terminated by signal: SIGKILL", "", "Command terminated by signal: SIGKILL",
     "(failed: error; Command terminated by signal: SIGKILL; 2.0 s)")])
def test_a_command_that_failed_silently_is_failed_though_its_result_says_success(h, output, detail, error, printed,
                                                                                 capsys, tmp_path):
    # Gemini CLI's tool_result says "success" for any command that ran; with no output, its
    # output is the only word of the failure.
    data = (INIT + use("run_shell_command_4_0", "run_shell_command", command="test -f build/app")
            + res("run_shell_command_4_0", status="success", output=output) + RESULT)
    m = model(h, data)
    (t,) = m.sessions[0].tools
    assert (t.status, t.detail, t.error_text) == ("failed", detail, error)
    got = sections(t, m)
    assert (got["Output"], got["Error"]) == ("(no output)", output)
    f = tmp_path / "run.ndjson"
    f.write_bytes(data)
    code, out, err = run_main(capsys, "--print", "--output-format", "text", str(f))
    (line,) = [x for x in out.splitlines() if "test -f build/app" in x]
    assert line.endswith(f"test -f build/app {printed}")


def test_a_commands_output_that_only_quotes_the_words_is_not_a_failure(h):
    data = (INIT + use("run_shell_command_5_0", "run_shell_command", command="grep -r exited logs/")
            + res("run_shell_command_5_0", status="success", output="log.txt: Command exited with code: 2")
            + use("read_file_6_0", "read_file", file_path="/w/notes.txt")
            + res("read_file_6_0", status="success", output="Command exited with code: 2") + RESULT)
    assert [t.status for t in model(h, data).sessions[0].tools] == ["success", "success"]


def test_a_new_gemini_run_ends_the_one_before_it_in_a_file(h):
    """Gemini CLI's events do not name their run (only init does): a run cut off before its
    result, followed by another, ended where the next began (not live to the input's end)."""
    from tests.conftest import SAMPLES_DIR

    whole = (SAMPLES_DIR / "gemini_run.ndjson").read_bytes()
    cut = b"".join(line for line in whole.splitlines(keepends=True) if b'"type":"result"' not in line)
    again = whole.replace(b"c7f1e2a0-5b2d-4f0e-9a51-0d3e2b1c4a77", b"00000000-0000-4000-8000-000000000002")
    assert again != whole
    m = model(h, cut + again)
    first, second = m.sessions
    assert first.ended and first.result is None and first.blocks[-1].text == "The next run began here"
    assert second.result is not None and not second.result.failed


def test_a_calls_plain_arguments_read_as_rows_not_json(h):
    """(From a trial: a grep's pattern read "round\\\\(" in its Arguments, escaped as JSON.)
    Arguments that are each one line of text, a number or true/false are rows; any other
    shape (an object, a line break) is JSON, as before."""
    data = (at(50, type="init", session_id="s", model="m")
            + use("grep_1", "grep_search", pattern="round\\(", dir_path="/w/src", limit=5, fixed=False)
            + res("grep_1", output="src/a.py:3: round(x)")
            + use("x_2", "brand_new_tool", spec={"deep": [1, 2]}) + res("x_2", output="ok")
            + use("x_3", "brand_new_tool", text="two\nlines") + res("x_3", output="ok") + RESULT)
    m = model(h, data)
    grep, deep, lines = m.sessions[0].tools
    assert sections(grep, m)["Arguments"].splitlines() == [
        "pattern   round\\(", "dir_path  /w/src", "limit     5", "fixed     false"]
    assert orjson.loads(sections(deep, m)["Arguments"]) == {"spec": {"deep": [1, 2]}}
    assert orjson.loads(sections(lines, m)["Arguments"]) == {"text": "two\nlines"}
