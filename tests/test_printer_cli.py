"""The command line and its --print modes, in-process and as a real subprocess.

Expected outputs are derived from the raw captures (parsed here with the
standard ``json`` module) and from the format reference, not copied from a
run of the viewer.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import random
import re
import subprocess
import sys
import time

import orjson
import pytest

from tests.conftest import SAMPLES_DIR, ChildOutput, viewer_process

RESULT_KEYS = ["type", "subtype", "is_error", "duration_ms", "duration_api_ms", "result", "session_id",
               "request_id"]
SID = "s-1"


def j(**fields) -> bytes:
    return orjson.dumps(fields) + b"\n"


def raw_events(data: bytes) -> list[dict]:
    return [json.loads(x) for x in data.splitlines() if x.strip()]


def run_main(capsys, *args: str) -> tuple[int, str, str]:
    """Run ``viewer.cli.main`` in-process; returns (exit code, stdout, stderr)."""
    from viewer.cli import main

    with pytest.raises(SystemExit) as exc:
        main(list(args))
    out, err = capsys.readouterr()
    code = exc.value.code
    return (0 if code is None else code), out, err


def run_cli(h, *args: str, input: bytes | None = None, timeout: float = 20) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "viewer", *args], input=input, capture_output=True,
        env=h.cli_env(), cwd=h.repo, timeout=timeout,
        stdin=None if input is not None else subprocess.DEVNULL,
    )


def shell_commands(data: bytes) -> list[str]:
    """Commands of the shell calls, in completion order (what text mode prints as they finish)."""
    cmd = {}
    done = []
    for e in raw_events(data):
        if e.get("type") != "tool_call":
            continue
        body = e["tool_call"].get("shellToolCall")
        if body is None:
            continue
        if e["subtype"] == "started":
            cmd[e["call_id"]] = body["args"]["command"]
        else:
            # `completed` may lack args (rejected shell): the result echoes the command.
            outcome = next(iter(body.get("result", {}).values()), {})
            done.append(cmd.get(e["call_id"]) or body.get("args", {}).get("command") or outcome.get("command"))
    return done


def is_tool_line(line: str, prefix: str) -> bool:
    """``prefix`` alone, or followed by a parenthesized note such as ``(rejected)``."""
    return line == prefix or line.startswith(prefix + " (")


def final_assistant_text(data: bytes) -> str | None:
    """The last assistant segment, when nothing but the result follows it."""
    evs = raw_events(data)
    last = None
    for e in evs:
        if e.get("type") == "tool_call":
            last = None
        elif e.get("type") == "assistant" and "timestamp_ms" not in e:
            last = e["message"]["content"][0]["text"]
    return last


# -- text -----------------------------------------------------------------------


def test_text_mode_on_real_streams(capsys, real_stream_path):
    data = real_stream_path.read_bytes()
    code, out, err = run_main(capsys, "--print", str(real_stream_path))
    assert "Traceback" not in err
    lines = out.splitlines()
    for cmd in shell_commands(data):
        assert cmd
        # (a call that did not run, or did not end, is named by its kind: "Shell ls (rejected)")
        assert any(is_tool_line(x[2:], f"Ran terminal command {cmd}") or x[2:].startswith(f"Shell {cmd} (")
                   for x in lines), cmd
    shells = [x for x in lines if x[2:].startswith(("Ran terminal command", "Shell "))]
    assert len(shells) == len(shell_commands(data))
    for x in shells:  # each starts with its status's mark, which its words say too
        ran, note = x[2:].startswith("Ran "), x.rpartition(" (")[2]
        said = ("✓" if note.startswith("exit 0") else "✗") if ran else "⊘" if "rejected" in note else "◌"
        assert x[:2] == said + " ", x
    has_result = any(e.get("type") == "result" for e in raw_events(data))
    final = final_assistant_text(data)
    if final:
        assert final.strip() in out
        # The final text comes after every tool line.
        assert out.rindex(final.strip()) > max((out.rfind(x) for x in shells), default=-1)
    if has_result:
        assert code == 0, err
        assert err == ""
    else:
        assert code != 0
        assert "result" in err


def test_text_mode_rejected_and_truncated(capsys, real_dir):
    code, out, err = run_main(capsys, "--print", str(real_dir / "maestro__05_rejected_shell.ndjson"))
    assert code == 0
    # (From a daily-user trial.)  A rejected command said "Ran terminal command": it never ran.
    rejected = [x for x in out.splitlines() if x.startswith("⊘ Shell uname -a")]
    assert len(rejected) == 2 and all("rejected" in x for x in rejected)
    assert "Ran terminal command" not in out

    code, out, err = run_main(capsys, "--print", str(real_dir / "agentic-automation__head.ndjson"))
    assert code != 0
    tool_lines = [x for x in out.splitlines() if "unfinished" in x]
    assert out.splitlines()[-1] == "◌ ended without a result · 2 tool calls (2 unfinished)"
    tool_lines = tool_lines[:-1]
    assert len(tool_lines) == 2
    assert tool_lines[0].startswith("◌ Read specs/001-github-agent-automation/tasks.md")
    assert tool_lines[1].startswith("◌ List specs/001-github-agent-automation")
    assert err.strip().splitlines()[-1].startswith("agent-viewer:")


def test_text_mode_says_the_agents_words_before_the_question_they_lead_to_and_each_question_once(capsys, real_dir):
    """(From trials.)  The agent's text is held back until a call starts, but a question to the
    user was printed at once: above the words that led to it.  Its answer then said the
    questions again, and the call said them a third time.  Then its title was said three times,
    and the answer twice: by its own line, and by the line of the call it was asked for (the
    request names it), which now says it alone."""
    code, out, err = run_main(capsys, "--print", str(real_dir / "maestro__06_ask_question.ndjson"))
    assert code == 0, err
    lines = out.splitlines()
    words = "I’m going to clarify the payments feature’s intended behavior"
    (said,) = [i for i, x in enumerate(lines) if words in x]  # (once: not again at the call, nor at the end)
    asked = next(i for i, x in enumerate(lines) if x.startswith("(at line 46: Question: Payments feature"))
    call = next(i for i, x in enumerate(lines) if x.startswith("⊘ Ask Payments feature clarification"))
    assert said < asked < call, out
    assert lines[call].endswith("(rejected; Questions skipped by the user, continue with the information "
                                "you already have)"), lines[call]
    assert out.count("What payment flow should the feature support?") == 1, out
    assert out.count("Questions skipped by the user") == 1 and "(at line 47" not in out, out


@pytest.mark.parametrize("lines", [47, 48])
def test_text_mode_says_a_questions_answer_when_its_call_never_says_it(capsys, tmp_path, real_dir, lines):
    """The stream cut after the answer, before its call started (47) or ended (48): the answer
    held for the call's line is said at the run's end, before the call cut off."""
    p = tmp_path / "cut.ndjson"
    p.write_bytes(b"".join((real_dir / "maestro__06_ask_question.ndjson").read_bytes().splitlines(True)[:lines]))
    code, out, err = run_main(capsys, "--print", str(p))
    assert code == 1, err
    said = out.splitlines()
    answer = next(i for i, x in enumerate(said) if x.startswith("(at line 47: Question: Payments feature clarification"
                                                                 " → rejected: Questions skipped by the user"))
    if lines == 48:
        assert said[answer + 1].startswith("◌ Ask Payments feature clarification (2 questions) (unfinished)"), out


def test_text_mode_says_text_cut_by_a_notice_once_and_whole(capsys, tmp_path):
    """A notice that comes while the agent is still writing does not cut its text in two in a
    CI log, nor print its first part twice (text before a notice is said before it once the
    agent has finished writing it)."""
    def delta(text: str, ts: int) -> bytes:
        return j(type="assistant", session_id=SID, timestamp_ms=ts,
                 message={"content": [{"type": "text", "text": text}]})

    p = tmp_path / "notice.ndjson"
    p.write_bytes(j(type="system", subtype="init", session_id=SID) + delta("Hello", 1) + delta(" there", 2)
                  + j(type="retry", subtype="starting", attempt=1, session_id=SID) + delta(", world.", 3)
                  + j(type="result", subtype="success", is_error=False, result="Hello there, world.", session_id=SID))
    code, out, err = run_main(capsys, "--print", str(p))
    assert code == 0, err
    assert out.count("Hello") == 1 and "Hello there, world." in out.splitlines(), out
    assert "(at line 4: retry/starting: attempt 1)" in out.splitlines(), out


def test_text_mode_says_cursors_retries_and_reconnections_in_words(tmp_path, capsys):
    """The CLI reconnecting after the model's stream dropped reads as what happened; a field
    the words do not say is still shown, and a shape not known reads as its fields."""
    p = tmp_path / "retries.ndjson"
    p.write_bytes(j(type="system", subtype="init", session_id=SID)
                  + j(type="retry", subtype="starting", attempt=2, is_resume=True, session_id=SID)
                  + j(type="retry", subtype="resuming", attempt=2, checkpoint_turn_count=3, session_id=SID)
                  + j(type="connection", subtype="reconnecting", attempt=1, endpoint_url="https://api2.cursor.sh",
                      session_id=SID)
                  + j(type="connection", subtype="reconnected", attempt=1, endpoint_url="https://api2.cursor.sh",
                      region="eu", session_id=SID)
                  + j(type="retry", subtype="starting", attempt="two", session_id=SID)
                  + j(type="result", subtype="success", is_error=False, session_id=SID))
    code, out, err = run_main(capsys, "--print", str(p))
    assert code == 0, err
    lines = out.splitlines()
    for said in ("(at line 2: retry/starting: attempt 2, resuming the conversation)",
                 "(at line 3: retry/resuming: attempt 2, from a checkpoint of 3 turns)",
                 "(at line 4: connection/reconnecting: attempt 1, to https://api2.cursor.sh)",
                 "(at line 5: connection/reconnected: attempt 1, with https://api2.cursor.sh · region=eu)",
                 "(at line 6: retry/starting: attempt=two)"):
        assert said in lines, out


def test_text_mode_says_what_the_agent_said_before_each_call(capsys, tmp_path):
    """(From a new-user trial.)  A killed agent's CI log showed its calls only: the message
    before them, which says what it was doing, was printed nowhere.  (From a CI-user trial.)
    Nor was what it said between its calls: each message is printed as the call after it
    starts, apart from the call lines."""
    def say(text: str) -> bytes:
        return j(type="assistant", session_id=SID, message={"content": [{"type": "text", "text": text}]})

    def call(cid: str, cmd: str, done: bool) -> bytes:
        out = j(type="tool_call", subtype="started", call_id=cid, session_id=SID,
                tool_call={"shellToolCall": {"args": {"command": cmd}}})
        if done:
            out += j(type="tool_call", subtype="completed", call_id=cid, session_id=SID,
                     tool_call={"shellToolCall": {"args": {"command": cmd},
                                                  "result": {"success": {"exitCode": 0, "stdout": ""}}}})
        return out

    p = tmp_path / "cut.ndjson"
    head = j(type="system", subtype="init", session_id=SID) + say("First I look around.") + call("c1", "ls", True)
    p.write_bytes(head + say("Now the **slow** tests.") + call("c2", "make test", False))
    code, out, err = run_main(capsys, "--print", str(p))
    assert code == 1 and "the run ended without a result" in err
    assert out.splitlines() == [f"Cursor · session {SID}", "", "First I look around.", "", "✓ Ran terminal command ls (exit 0)", "",
                                "Now the **slow** tests.", "", "◌ Shell make test (unfinished)", "",
                                "◌ ended without a result · 2 tool calls (1 unfinished)"], out
    # A run whose result came with a call still running: that call, cut off, before the
    # summary, which counts it (it came after the summary, uncounted).
    p.write_bytes(head + say("Now the **slow** tests.") + call("c2", "make test", False)
                  + j(type="result", subtype="error", is_error=True, result="aborted", session_id=SID))
    code, out, err = run_main(capsys, "--print", str(p))
    assert code == 1 and "the run failed: aborted" in err
    assert out.splitlines()[-5:] == ["Now the **slow** tests.", "", "◌ Shell make test (unfinished)", "",
                                     "✗ failed · 2 tool calls (1 unfinished) · aborted"], out
    # Cut off after text that follows its last call: that text, as before, with no label.
    p.write_bytes(head + say("All done, writing the summary"))
    code, out, err = run_main(capsys, "--print", str(p))
    assert code == 1 and out.splitlines()[-3:] == ["All done, writing the summary", "",
                                                   "◌ ended without a result · 1 tool call"], out
    assert "(its last message" not in out


def test_text_mode_failed_run(capsys, tmp_path):
    p = tmp_path / "failed.ndjson"
    p.write_bytes(
        j(type="system", subtype="init", session_id=SID)
        + j(type="result", subtype="error", is_error=True, result="Model quota exceeded", session_id=SID)
    )
    code, out, err = run_main(capsys, "--print", str(p))
    assert code != 0
    assert "Model quota exceeded" in err


def test_text_mode_sanitizes_terminal_escapes(capsys, tmp_path):
    p = tmp_path / "evil.ndjson"
    cmd = "printf '\x1b[2J\x1b]0;pwned\x07'"
    p.write_bytes(
        j(type="system", subtype="init", session_id=SID)
        + j(type="tool_call", subtype="started", call_id="c\n1", session_id=SID,
            tool_call={"shellToolCall": {"args": {"command": cmd}}})
        + j(type="tool_call", subtype="completed", call_id="c\n1", session_id=SID,
            tool_call={"shellToolCall": {"args": {"command": cmd},
                                         "result": {"success": {"exitCode": 0, "stdout": "\x1b[31m"}}}})
        + j(type="assistant", session_id=SID,
            message={"content": [{"type": "text", "text": "Done \x1b]52;c;ZXZpbA==\x07 \u202eevil \x9b2J"}]})
        + j(type="result", subtype="success", is_error=False, result="x", session_id=SID)
    )
    code, out, err = run_main(capsys, "--print", str(p))
    assert code == 0
    assert "\x1b" not in out and "\x07" not in out and "\u202e" not in out and "\x9b" not in out
    assert "Ran terminal command printf" in out
    assert "Done" in out


def test_text_mode_unknown_outcome_shown_verbatim(capsys, tmp_path):
    p = tmp_path / "odd.ndjson"
    p.write_bytes(
        j(type="system", subtype="init", session_id=SID)
        + j(type="tool_call", subtype="started", call_id="c1", session_id=SID,
            tool_call={"shellToolCall": {"args": {"command": "make"}}})
        + j(type="tool_call", subtype="completed", call_id="c1", session_id=SID,
            tool_call={"shellToolCall": {"result": {"needsConfirmation": {}}}})
        + j(type="result", subtype="success", is_error=False, result="", session_id=SID)
    )
    code, out, err = run_main(capsys, "--print", str(p))
    (tool_line,) = [x for x in out.splitlines() if x.startswith("? Shell make")]  # (it may not have run)
    assert "needsConfirmation" in tool_line


def test_text_mode_reports_malformed_lines_on_stderr(capsys, tmp_path):
    p = tmp_path / "noisy.ndjson"
    p.write_bytes(
        j(type="system", subtype="init", session_id=SID)
        + b"T: You've hit your usage limit\n"
        + j(type="assistant", session_id=SID, message={"content": [{"type": "text", "text": "Hi."}]})
        + j(type="result", subtype="success", is_error=False, result="Hi.", session_id=SID)
    )
    code, out, err = run_main(capsys, "--print", str(p))
    assert code == 0
    assert "line 2" in err and "usage limit" in err
    assert "usage limit" not in out
    assert "Hi." in out


def test_text_mode_separates_sessions(capsys, tmp_path):
    def run(text):
        return (
            j(type="system", subtype="init", session_id=SID)
            + j(type="assistant", session_id=SID, message={"content": [{"type": "text", "text": text}]})
            + j(type="result", subtype="success", is_error=False, result=text, session_id=SID)
        )

    p = tmp_path / "resumed.ndjson"
    p.write_bytes(run("First answer.") + run("Second answer."))
    code, out, err = run_main(capsys, "--print", str(p))
    assert code == 0
    assert out.index("First answer.") < out.index("Second answer.")
    between = out[out.index("First answer.") : out.index("Second answer.")]
    assert "session" in between


def test_text_mode_doubled_stream_prints_like_the_original(capsys, real_dir, tmp_path):
    src = real_dir / "maestro__02_shell_tool_call.ndjson"
    doubled = tmp_path / "doubled.ndjson"
    doubled.write_bytes(b"".join(x + x for x in src.read_bytes().splitlines(keepends=True)))
    _, want, _ = run_main(capsys, "--print", str(src))
    _, got, _ = run_main(capsys, "--print", str(doubled))
    assert got == want


# -- json ------------------------------------------------------------------------


def test_json_mode_success(capsys, real_stream_path):
    data = real_stream_path.read_bytes()
    results = [e for e in raw_events(data) if e.get("type") == "result"]
    code, out, err = run_main(capsys, "--print", "--output-format", "json", str(real_stream_path))
    if not results:
        assert code != 0
        assert out == ""
        assert "result" in err and "Traceback" not in err
        return
    assert code == 0, err
    assert out.endswith("\n") and out.count("\n") == 1
    obj = json.loads(out)
    last = results[-1]
    assert list(obj)[: len(RESULT_KEYS)] == RESULT_KEYS  # the documented keys first, in order
    for k in RESULT_KEYS:
        assert obj[k] == last.get(k)  # (trimmed fixtures lack some keys: null)
    extra = [k for k in last if k not in RESULT_KEYS]
    assert list(obj)[len(RESULT_KEYS):] == extra and all(obj[k] == last[k] for k in extra)  # usage, …


def test_json_mode_key_order_does_not_depend_on_input(capsys, tmp_path):
    p = tmp_path / "r.ndjson"
    # Key order is not meaningful on input (Claude puts `type` near the end).
    p.write_bytes(
        b'{"request_id":"q","session_id":"s","usage":{"inputTokens":1},"result":"ok",'
        b'"duration_api_ms":2,"duration_ms":3,"is_error":false,"subtype":"success","type":"result"}\n'
    )
    code, out, err = run_main(capsys, "--output-format", "json", str(p))
    assert code == 0, err
    obj = json.loads(out)
    assert list(obj) == RESULT_KEYS + ["usage"]
    assert obj == {"type": "result", "subtype": "success", "is_error": False, "duration_ms": 3,
                   "duration_api_ms": 2, "result": "ok", "session_id": "s", "request_id": "q",
                   "usage": {"inputTokens": 1}}


def test_json_mode_truncated_run(h, real_dir):
    cp = run_cli(h, "--output-format", "json", str(real_dir / "agentic-automation__head.ndjson"))
    assert cp.returncode != 0
    assert cp.stdout == b""
    err = cp.stderr.decode()
    assert err.startswith("agent-viewer:")
    assert "result" in err
    assert "Traceback" not in err


def test_json_mode_writes_a_failed_runs_result_and_exits_1(capsys, tmp_path):
    """Like the agent CLI: the result object with is_error true, for a CI job to parse."""
    p = tmp_path / "failed.ndjson"
    p.write_bytes(j(type="result", subtype="error", is_error=True, result="boom", session_id=SID))
    code, out, err = run_main(capsys, "--output-format", "json", str(p))
    assert code == 1
    obj = json.loads(out)
    assert obj["is_error"] is True and obj["subtype"] == "error" and obj["result"] == "boom"
    assert "boom" in err and "no JSON written" not in err


def test_json_mode_writes_no_json_when_there_is_no_result(capsys, tmp_path):
    p = tmp_path / "cut.ndjson"
    p.write_bytes(j(type="system", subtype="init", session_id=SID))
    code, out, err = run_main(capsys, "--output-format", "json", str(p))
    assert code == 1 and out == ""
    assert "ended without a result; no JSON written" in err


# -- stream-json -----------------------------------------------------------------------


def test_stream_json_reemits_a_failed_run_and_exits_1(capsys):
    path = str(SAMPLES_DIR / "failed_run.ndjson")
    code, out, err = run_main(capsys, "--output-format", "stream-json", path)
    assert len(out.splitlines()) == len(raw_events((SAMPLES_DIR / "failed_run.ndjson").read_bytes()))
    assert code == 1 and err.startswith("agent-viewer: the run failed")


def test_stream_json_reemits_every_event(capsys, real_stream_path):
    data = real_stream_path.read_bytes()
    events = raw_events(data)
    code, out, err = run_main(capsys, "--output-format", "stream-json", str(real_stream_path))
    json_code, json_out, json_err = run_main(capsys, "--output-format", "json", str(real_stream_path))
    # Exit status and message as in json mode: 1 when the run did not end in success.  (A file
    # that changed a minute ago, as a fresh checkout's, is also said to be maybe still written,
    # with the command that reads on in this output format.)
    assert code == json_code
    said = json_err.replace("; no JSON written", "").replace("--output-format json ", "--output-format stream-json ")
    assert err == ("" if code == 0 else said)
    assert (json_out.strip() != "") == (b'"type":"result"' in data)  # a failed run's result too
    lines = out.splitlines()
    assert len(lines) == len(events)
    for line, ev in zip(lines, events, strict=True):
        assert json.loads(line) == ev
        assert line == json.dumps(ev, separators=(",", ":"), ensure_ascii=False)


def test_stream_json_malformed_lines_on_stderr(h):
    split = orjson.dumps({"type": "tool_call", "subtype": "started", "call_id": "call_x\nfc_y",
                          "session_id": SID}).replace(b"\\n", b"\n")
    data = (
        j(type="system", subtype="init", session_id=SID)
        + b"Reading additional input from stdin...\n"
        + split + b"\n"
        + b"\n"
        + j(type="result", subtype="success", is_error=False, result="", session_id=SID)
        + b'{"type":"assist'
    )
    cp = run_cli(h, "--output-format", "stream-json", "-", input=data)
    out = cp.stdout.decode().splitlines()
    assert [json.loads(x)["type"] for x in out] == ["system", "tool_call", "result"]
    assert json.loads(out[1])["call_id"] == "call_x\nfc_y"  # one physical line again, newline escaped
    err = cp.stderr.decode().splitlines()
    assert len(err) == 2
    assert "line 2" in err[0] and "Reading additional input" in err[0]
    assert "line 7" in err[1]
    assert "Traceback" not in cp.stderr.decode()


# -- how input and mode are chosen ------------------------------------------------------


def test_print_mode_inferred_when_stdout_is_not_a_terminal(h, real_dir):
    path = str(real_dir / "maestro__05_rejected_shell.ndjson")
    implicit = run_cli(h, path)
    explicit = run_cli(h, "--print", path)
    assert implicit.returncode == 0
    assert implicit.stdout == explicit.stdout
    assert b"Shell uname -a (rejected)" in implicit.stdout


@pytest.mark.parametrize("args", [["-"], []], ids=["dash", "no-file"])
def test_reads_stdin(h, real_dir, args):
    data = (real_dir / "cursor-hack__parallel-sleep.ndjson").read_bytes()
    cp = run_cli(h, "--print", *args, input=data)
    assert cp.returncode == 0, cp.stderr
    out = cp.stdout.decode().splitlines()
    four = next(i for i, x in enumerate(out) if is_tool_line(x, "✓ Ran terminal command sleep 4"))
    six = next(i for i, x in enumerate(out) if is_tool_line(x, "✓ Ran terminal command sleep 6"))
    assert four < six
    assert out[four].endswith("(exit 0; 4.2 s)")  # a CI log says how each command went and how long
    assert out[-3:] == ["done", "", "✓ succeeded in 13.0 s · 2 tool calls"]  # and how the run went


def test_streams_output_before_stdin_closes(h):
    start = time.monotonic()
    proc = subprocess.Popen(
        [sys.executable, "-m", "viewer", "--print"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, env=h.cli_env(), cwd=h.repo,
    )
    try:
        first = (
            j(type="system", subtype="init", session_id=SID)
            + j(type="user", session_id=SID, message={"content": [{"type": "text", "text": "go"}]})
            + j(type="tool_call", subtype="started", call_id="c1", session_id=SID,
                tool_call={"shellToolCall": {"args": {"command": "make build"}}})
            + j(type="tool_call", subtype="completed", call_id="c1", session_id=SID,
                tool_call={"shellToolCall": {"args": {"command": "make build"},
                                             "result": {"success": {"exitCode": 0}}}})
            + j(type="tool_call", subtype="started", call_id="c2", session_id=SID,
                tool_call={"shellToolCall": {"args": {"command": "make test"}}})
        )
        proc.stdin.write(first)
        proc.stdin.flush()
        got = ChildOutput(proc).until(b"Ran terminal command make build (exit 0)\n", timeout=4.0)
        assert b"Ran terminal command make build (exit 0)\n" in got, "no output while stdin was still open"
        assert proc.poll() is None  # still waiting for more input
        assert b"make test" not in got  # the second call has not finished
        rest = (
            j(type="tool_call", subtype="completed", call_id="c2", session_id=SID,
              tool_call={"shellToolCall": {"result": {"success": {"exitCode": 2, "stderr": "1 failed"}}}})
            + j(type="assistant", session_id=SID, message={"content": [{"type": "text", "text": "Tests fail."}]})
            + j(type="result", subtype="success", is_error=False, result="Tests fail.", session_id=SID)
        )
        out, err = proc.communicate(rest, timeout=4)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    full = (got + out).decode()
    assert proc.returncode == 0, err
    assert "Ran terminal command make test" in full
    # (A pipe's lines came as written: the second call and the run may be timed by that.)
    assert re.search(r"Tests fail\.\n\n✓ succeeded( in [^·]+)? · 2 tool calls \(1 failed\)$", full.rstrip()), full
    assert time.monotonic() - start < 5


# -- errors -----------------------------------------------------------------------------


def _check_usage_error(code: int, out: str, err: str) -> None:
    assert code == 2
    assert "Traceback" not in err
    lines = err.splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("agent-viewer: error:")
    assert out == ""


@pytest.mark.parametrize(
    "case", ["unknown-flag", "missing-file", "directory", "bad-output-format", "missing-value", "follow-stdin",
             "speed-without-replay", "follow-in-a-missing-directory", "two-files", "format-as-file"]
)
def test_error_paths_subprocess(h, tmp_path, case):
    sample = tmp_path / "ok.ndjson"
    sample.write_bytes(j(type="result", subtype="success", is_error=False, result="", session_id=SID))
    args = {
        "unknown-flag": ["--no-such-flag", str(sample)],
        "missing-file": [str(tmp_path / "nope.ndjson")],
        "directory": [str(tmp_path)],
        "bad-output-format": ["--output-format", "xml", str(sample)],
        "missing-value": ["--output-format"],
        "follow-stdin": ["--follow", "-"],
        "speed-without-replay": ["--speed", "4", str(sample)],  # was silently ignored
        "follow-in-a-missing-directory": ["--follow", str(tmp_path / "no" / "run.ndjson")],
        "two-files": [str(sample), str(sample), "x.ndjson"],
        "format-as-file": ["--print", "json", str(sample)],
    }[case]
    cp = run_cli(h, *args)
    _check_usage_error(cp.returncode, cp.stdout.decode(), cp.stderr.decode())
    msg = cp.stderr.decode()
    if case == "missing-file":
        assert "nope.ndjson" in msg
    if case == "directory":
        assert "directory" in msg
    if case == "bad-output-format":
        assert "xml" in msg
    if case == "speed-without-replay":
        assert "--speed applies to --replay" in msg
    if case == "two-files":  # (click's "Got unexpected extra arguments")
        assert f"one FILE at a time (extra: {sample} x.ndjson)" in msg
    if case == "format-as-file":  # (from a review: "extra: run.ndjson", of the one FILE given)
        assert "one FILE at a time (json was taken for one; the output format is --output-format json)" in msg


def test_error_unreadable_file(h, tmp_path):
    p = tmp_path / "secret.ndjson"
    p.write_bytes(j(type="result", subtype="success", is_error=False, result="", session_id=SID))
    p.chmod(0)
    try:
        if os.access(p, os.R_OK):
            pytest.skip("running as a user who can read a chmod 000 file (root)")
        cp = run_cli(h, str(p))
        _check_usage_error(cp.returncode, cp.stdout.decode(), cp.stderr.decode())
        assert "permission" in cp.stderr.decode().lower()
    finally:
        p.chmod(0o600)


def test_error_unreadable_file_in_process(capsys, tmp_path, monkeypatch):
    """Same as above, simulated so that it also runs as root."""
    p = tmp_path / "secret.ndjson"
    p.write_bytes(b"{}\n")
    real_open = os.open

    def fake_open(path, flags, *a, **kw):
        if os.fspath(path) == str(p):
            raise PermissionError(13, "Permission denied", str(p))
        return real_open(path, flags, *a, **kw)

    monkeypatch.setattr(os, "open", fake_open)
    code, out, err = run_main(capsys, "--print", str(p))
    monkeypatch.undo()
    _check_usage_error(code, out, err)
    assert "permission" in err.lower()


@pytest.mark.parametrize(
    "args",
    [["--bogus"], ["/definitely/not/here.ndjson"], ["--output-format", "yaml", "x"], ["a", "b"],
     ["--replay", "--speed", "nan", "x"], ["--replay", "--idle-limit", "nan", "x"],
     ["--replay", "--speed", "inf", "x"]],
    ids=["unknown-flag", "missing-file", "bad-format", "extra-arg", "speed-nan", "idle-nan", "speed-inf"],
)
def test_error_paths_in_process(capsys, args):
    code, out, err = run_main(capsys, *args)
    _check_usage_error(code, out, err)


def test_idle_limit_zero_is_refused(capsys):
    """--idle-limit 0 played the whole run at once: it must be more than 0."""
    code, out, err = run_main(capsys, "--replay", "--idle-limit", "0", str(SAMPLES_DIR / "demo_session.ndjson"))
    _check_usage_error(code, out, err)
    assert "--idle-limit': 0 is out of range (it takes seconds, more than 0)" in err, err


@pytest.mark.parametrize("value,said", [("abc", "'abc' is not a number (it takes 0.25 to 64)"),
                                        ("100", "100 is out of range (it takes 0.25 to 64)"),
                                        ("nan", "'nan' is not a number (it takes 0.25 to 64)")])
def test_a_bad_speed_is_said_in_words(capsys, value, said):
    """(From a replay trial.)  --speed abc said "'abc' is not a valid float range"."""
    code, out, err = run_main(capsys, "--replay", "--speed", value, str(SAMPLES_DIR / "demo_session.ndjson"))
    _check_usage_error(code, out, err)
    assert f"--speed': {said}" in err, err


def test_help_and_version(capsys):
    code, out, err = run_main(capsys, "--help")
    assert code == 0 and "--output-format" in out
    code, out, err = run_main(capsys, "--version")
    assert code == 0 and "agent-viewer" in out


def _read_head_then_close(h, path, fmt: str = "stream-json") -> subprocess.Popen:
    proc = subprocess.Popen(
        [sys.executable, "-m", "viewer", "--output-format", fmt, str(path)],
        stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=h.cli_env(),
        cwd=h.repo,
    )
    try:
        assert proc.stdout.read(100)
        proc.stdout.close()
        _, proc.err = proc.communicate(timeout=10)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    return proc


@pytest.fixture
def big_stream(real_dir, tmp_path):
    big = tmp_path / "big.ndjson"
    big.write_bytes((real_dir / "cursor-hack__direct-sleep.ndjson").read_bytes() * 50)  # > a pipe buffer
    return big


def test_closed_stdout_is_quiet(h, big_stream):
    """`agent-viewer --print big.ndjson | head -c 100`: no traceback when the reader goes away."""
    proc = _read_head_then_close(h, big_stream)
    assert proc.err == b""


def test_closed_stdout_exits_zero(h, big_stream):
    proc = _read_head_then_close(h, big_stream)
    assert proc.returncode == 0


@pytest.mark.parametrize("fmt", ["text", "stream-json"])
def test_a_cut_output_still_exits_with_how_the_run_went(h, tmp_path, fmt):
    """(From a new-user trial.)  `agent-viewer --print failed.ndjson | head -1` exited 0, so
    under `set -o pipefail` a failed run looked successful once the reader stopped early.  The
    input is still read to its end, quietly, and the exit status is the run's."""
    big = tmp_path / "failed.ndjson"
    big.write_bytes((SAMPLES_DIR / "failed_run.ndjson").read_bytes() * 40)  # > a pipe buffer
    proc = _read_head_then_close(h, big, fmt)
    assert proc.returncode == 1
    assert b"Traceback" not in proc.err and b"the run failed" in proc.err, proc.err


@contextlib.contextmanager
def _viewer_behind(h, producer_code: str, data: bytes, fmt: str, *more: str):
    """(producer, viewer): a producer (``python -c producer_code``, given ``data`` on its
    stdin) piped into ``agent-viewer --print --output-format fmt [MORE]``; both killed after."""
    producer = subprocess.Popen([sys.executable, "-c", producer_code], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    producer.stdin.write(data)
    producer.stdin.close()
    viewer = subprocess.Popen([sys.executable, "-m", "viewer", "--print", "--output-format", fmt, *more],
                              stdin=producer.stdout, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              env=h.cli_env(), cwd=h.repo)
    producer.stdout.close()
    try:
        yield producer, viewer
    finally:
        for p in (viewer, producer):
            if p.poll() is None:
                p.kill()
                p.wait()


@pytest.mark.parametrize("fmt", ["text", "stream-json"])
def test_a_cut_output_of_a_pipe_reads_on_and_leaves_the_agent_alive(h, fmt):
    """(From a CI-user trial.)  `agent | agent-viewer --print | head -1` exited 0 or 1 at
    random for the same failed run (as the reader's timing fell), and once the viewer stopped
    reading, the agent writing into the pipe was killed by SIGPIPE.  The pipe is read on,
    quietly, to its end: the agent finishes, and the status is its run's."""
    lines = (SAMPLES_DIR / "failed_run.ndjson").read_bytes().splitlines(keepends=True)
    agent = ("import sys, time\nlines = sys.stdin.buffer.read().splitlines(keepends=True)\n"
             "for i, line in enumerate(lines):\n    sys.stdout.buffer.write(line); sys.stdout.flush()\n"
             "    time.sleep(0.3 if i == 3 else 0)\n")  # (the rest comes after the reader has gone)
    with _viewer_behind(h, agent, b"".join(lines), fmt) as (producer, viewer):
        assert viewer.stdout.read(20)
        viewer.stdout.close()
        _, err = viewer.communicate(timeout=15)
        assert producer.wait(timeout=15) == 0  # (not killed: -13, SIGPIPE)
        assert viewer.returncode == 1 and b"Traceback" not in err, err
        assert b"the run failed" in err


@pytest.mark.parametrize("fmt,follow", [("text", False), ("json", False), ("stream-json", False), ("text", True)])
def test_output_that_cannot_be_written_is_one_line_not_a_traceback(h, fmt, follow):
    """(From a new-user trial.)  `--print ... > /dev/full` ended in a traceback (OSError: No
    space left on device).  (From a code review.)  With --follow it then waited for ever."""
    with open("/dev/full", "w") as full:
        cp = subprocess.run([sys.executable, "-m", "viewer", "--print", "--output-format", fmt,
                             *(["--follow"] if follow else []),
                             str(SAMPLES_DIR / "demo_session.ndjson")], stdout=full, stderr=subprocess.PIPE,
                            stdin=subprocess.DEVNULL, env=h.cli_env(), cwd=h.repo, timeout=20)
    err = cp.stderr.decode()
    assert cp.returncode == 2, err
    assert err.strip().splitlines() == ["agent-viewer: error: cannot write the output (No space left on device)"], err


def test_a_closed_standard_output_is_one_line_not_a_traceback(h):
    """(From a new-user trial.)  `agent-viewer --print run.ndjson >&-` ended in a traceback."""
    cp = subprocess.run(["sh", "-c", 'exec "$0" -m viewer --print "$1" >&-', sys.executable,
                         str(SAMPLES_DIR / "demo_session.ndjson")], stderr=subprocess.PIPE,
                        stdin=subprocess.DEVNULL, env=h.cli_env(), cwd=h.repo, timeout=20)
    err = cp.stderr.decode()
    assert cp.returncode == 2, err
    assert err.strip().splitlines() == ["agent-viewer: error: standard output is closed: nothing to print to"], err


# -- untrusted text reaching the terminal (stream-json.md 7.17) ------------------------


def _tool_pair(kind: str, args: dict, result: dict) -> bytes:
    return (
        j(type="tool_call", subtype="started", call_id="c1", session_id=SID, tool_call={kind: {"args": args}})
        + j(type="tool_call", subtype="completed", call_id="c1", session_id=SID,
            tool_call={kind: {"args": args, "result": result}})
    )


EVIL = "\x1b]0;owned\x07\x1b[2J\x9b31m"

ESCAPE_CASES = {
    # An unknown tool kind is labelled from its key, which comes from the stream.
    "unknown-kind-key": _tool_pair(f"my{EVIL}ToolCall", {"path": "p"}, {"success": {}}),
    # A failed shell call shows "exit N · <signal>"; the signal string comes from the stream.
    "shell-signal": _tool_pair("shellToolCall", {"command": "x"}, {"success": {"exitCode": 1, "signal": EVIL}}),
    # Unknown outcome keys are shown verbatim.
    "outcome-key": _tool_pair("shellToolCall", {"command": "x"}, {f"odd{EVIL}": {}}),
}


@pytest.mark.parametrize(
    "case",
    ESCAPE_CASES,
)
def test_text_mode_escapes_everything_from_the_stream(capsys, tmp_path, case):
    p = tmp_path / "evil.ndjson"
    p.write_bytes(
        j(type="system", subtype="init", session_id=SID) + ESCAPE_CASES[case]
        + j(type="result", subtype="success", is_error=False, result="", session_id=SID)
    )
    code, out, err = run_main(capsys, "--print", str(p))
    assert out.strip()  # the tool line was printed
    for ch in ("\x1b", "\x07", "\x9b"):
        assert ch not in out and ch not in err


def test_text_mode_keeps_an_emojis_joiners_and_its_picture_form(capsys, tmp_path):
    """(From a trial.)  Text mode left out the joiners between emoji, as the TUI does to keep its
    columns: a log has none, and a command it printed was not the one that ran."""
    family = "\U0001f468\u200d\U0001f469\u200d\U0001f467 \u26a0\ufe0f \U0001f44d\U0001f3fd"
    command = f"python3 -c \"print('{family}')\""
    p = tmp_path / "emoji.ndjson"
    p.write_bytes(
        j(type="system", subtype="init", session_id=SID)
        + j(type="assistant", session_id=SID, message={"content": [{"type": "text", "text": f"Done {family}"}]})
        + _tool_pair("shellToolCall", {"command": command}, {"success": {"exitCode": 0, "stdout": ""}})
        + j(type="result", subtype="success", is_error=False, result=f"Done {family}", session_id=SID)
    )
    code, out, err = run_main(capsys, "--print", str(p))
    assert code == 0, err
    assert f"Done {family}" in out and f"Ran terminal command {command}" in out, out
    assert "\\u200d" not in out


@pytest.mark.parametrize("fmt", ["json", "stream-json"])
def test_json_modes_escape_what_a_terminal_would_act_on(capsys, tmp_path, fmt):
    """JSON escapes control characters below U+0020 only: a C1 control (U+009B is a CSI to
    many terminals), DEL, bidi and invisible characters were written as they are.  They
    come out as \\u escapes: the same JSON, safe on a terminal."""
    nasty = "C1 \x9b31mRED \x9d0;TITLE\x9c \u202eevil\u202c \u200bzw \x7fdel \ufeff· é — ok"
    p = tmp_path / "c1.ndjson"
    p.write_bytes(
        j(type="system", subtype="init", session_id=SID)
        + j(type="assistant", session_id=SID, message={"content": [{"type": "text", "text": nasty}]})
        + j(type="result", subtype="success", is_error=False, result=nasty, session_id=SID)
    )
    code, out, err = run_main(capsys, "--output-format", fmt, str(p))
    assert code == 0, err
    for ch in ("\x9b", "\x9d", "\x9c", "\u202e", "\u202c", "\u200b", "\x7f", "\ufeff"):
        assert ch not in out, repr(ch)
    assert "\\u009b31mRED" in out and "\\u202eevil" in out
    objs = [json.loads(line) for line in out.splitlines()]
    assert objs[-1]["result"] == nasty  # the same data
    assert "· é — ok" in out  # other characters as they are


@pytest.mark.parametrize("fmt", ["text", "json", "stream-json"])
def test_failed_run_message_is_escaped(capsys, tmp_path, fmt):
    p = tmp_path / "evil.ndjson"
    p.write_bytes(j(type="result", subtype=f"error{EVIL}", is_error=True, result="", session_id=SID))
    code, out, err = run_main(capsys, "--output-format", fmt, str(p))
    assert code != 0 and "agent-viewer:" in err
    assert "\x1b" not in err and "\x07" not in err and "\x9b" not in err


@pytest.mark.parametrize("args", [["--print"], ["--print", "--output-format", "json"], []])
def test_print_with_no_input_is_an_error_not_the_demos_success(h, args):
    """(From a new-user trial.)  `agent-viewer --print --output-format json $LOG` with an empty
    $LOG, in a CI job: standard input is empty (or a terminal).  Printing the bundled demo's
    successful result made the job pass; it is an error (exit 2), and --demo prints the demo."""
    cp = run_cli(h, *args)  # standard input: /dev/null; standard output: a pipe (print mode)
    assert cp.returncode == 2 and cp.stdout == b"", cp
    assert b"no input" in cp.stderr and b"--demo" in cp.stderr and cp.stderr.count(b"\n") == 1
    # (From a trial: it said "standard input is empty", the words of an empty pipe, which is
    # read, and exits 1: "the input is empty".)
    assert b"(standard input is /dev/null;" in cp.stderr, cp.stderr


def test_demo_print(h):
    from viewer.cli import demo_path

    if not os.path.exists(demo_path()):
        pytest.skip("the bundled demo stream is not there yet")
    cp = run_cli(h, "--demo", "--print")
    assert cp.returncode in (0, 1), cp.stderr
    assert cp.stdout.strip()
    assert b"Traceback" not in cp.stderr
    named = run_cli(h, "--print", demo_path())  # the demo file named: an input like any other
    assert named.returncode == cp.returncode and named.stdout == cp.stdout, named.stderr
    # ... but --demo says, apart from the output, that this is the demo (the TUI's header
    # says DEMO; a log said nothing of it)
    assert b"the bundled demo run" in cp.stderr and b"demo run" not in named.stderr, cp.stderr


def test_demo_with_follow_is_refused_not_followed_for_good(capsys):
    """(From a trial: `--print --demo --follow` followed the bundled file, which never grows,
    and never exited.)"""
    code, out, err = run_main(capsys, "--print", "--demo", "--follow")
    assert code == 2 and not out
    assert "--demo cannot be combined with --follow" in err and "Traceback" not in err


def test_a_file_in_a_directory_that_may_not_be_searched_is_permission_denied(tmp_path, capsys, monkeypatch):
    """(From a trial, as a user without rights to a directory: "no such file", and --follow
    waited for the file to appear, for good.)  Root may search any directory: the denial is
    made here."""
    import viewer.cli as cli
    import viewer.core.sources as sources

    path = str(tmp_path / "locked" / "run.ndjson")
    real_stat, real_lstat = os.stat, os.lstat

    def denied(real):
        def stat(p, *a, **k):
            if str(p) == path:
                raise PermissionError(13, "Permission denied", p)
            return real(p, *a, **k)
        return stat

    os.mkdir(tmp_path / "locked")
    monkeypatch.setattr(sources.os, "stat", denied(real_stat))
    monkeypatch.setattr(cli.os, "lstat", denied(real_lstat))
    for args in (("--print", path), ("--print", "--follow", path)):
        code, out, err = run_main(capsys, *args)
        assert code == 2 and not out, (args, err)
        assert "permission denied (a directory on its path cannot be searched)" in err, (args, err)
    code, out, err = run_main(capsys, "--print", str(tmp_path / "locked" / "x" / "run.ndjson"))
    assert code == 2 and "no such file" in err, err
    (tmp_path / "afile").write_text("")
    code, out, err = run_main(capsys, "--print", str(tmp_path / "afile" / "run.ndjson"))
    assert code == 2 and "cannot open (Not a directory)" in err, err


def test_a_line_too_long_to_keep_is_told_and_the_run_read_on(tmp_path, capsys, monkeypatch):
    """(From a trial: no newline for ever, `cat /dev/zero | agent-viewer --print`, ran out of
    memory in a traceback.)  Here the limit is made small (a line read whole in one chunk, a
    MB, is not let go of)."""
    import viewer.core.decode as decode_module

    monkeypatch.setattr(decode_module, "MAX_LINE_BYTES", 2 << 20)
    p = tmp_path / "long.ndjson"
    p.write_bytes(j(type="system", subtype="init", session_id=SID) + b'{"type":"assistant","pad":"' + b"x" * (3 << 20)
                  + b'"}\n' + j(type="result", subtype="success", is_error=False, result="Done.", session_id=SID))
    code, out, err = run_main(capsys, "--print", str(p))
    assert code == 0, err
    assert "line 2: malformed line, not an event (a line of 3 MB, over the 2 MB limit: not read)" in err, err
    assert out.splitlines()[-1].startswith("✓ succeeded"), out


# -- json mode: which result is printed -------------------------------------------------


def _run(text: str, sid: str = SID, result: bool = True) -> bytes:
    out = (
        j(type="system", subtype="init", session_id=sid, model="Auto")
        + j(type="assistant", session_id=sid, message={"content": [{"type": "text", "text": text}]})
    )
    if result:
        out += j(type="result", subtype="success", is_error=False, duration_ms=1, duration_api_ms=1,
                 result=text, session_id=sid, request_id="r-" + text)
    return out


def test_json_mode_prints_the_last_runs_result(capsys, tmp_path):
    p = tmp_path / "two-runs.ndjson"
    p.write_bytes(_run("first") + _run("second"))
    code, out, err = run_main(capsys, "--output-format", "json", str(p))
    assert code == 0, err
    assert json.loads(out)["result"] == "second"


def test_json_mode_resumed_run_without_result(capsys, tmp_path):
    """A --resume run (same session_id, new init) that was cut short has no result of its own."""
    p = tmp_path / "resumed-cut.ndjson"
    p.write_bytes(_run("first") + _run("second", result=False))
    code, out, err = run_main(capsys, "--output-format", "json", str(p))
    assert code != 0
    assert out == ""
    assert "result" in err


def test_json_mode_noisy_input(capsys, tmp_path, real_dir):
    src = (real_dir / "maestro__02_shell_tool_call.ndjson").read_bytes()
    want = [e for e in raw_events(src) if e.get("type") == "result"][-1]
    noisy = tmp_path / "noisy.ndjson"
    lines = src.splitlines(keepends=True)
    noisy.write_bytes(
        b"\xef\xbb\xbf" + b"".join(x.replace(b"\n", b"\r\n") + x for x in lines[:-1])
        + b"T: some warning\n\n" + lines[-1].rstrip(b"\n")
    )
    code, out, err = run_main(capsys, "--output-format", "json", str(noisy))
    assert code == 0, err
    assert json.loads(out) == want


def test_json_mode_only_garbage(capsys, tmp_path):
    p = tmp_path / "garbage.ndjson"
    p.write_bytes(b"not json\nstill not\n")
    code, out, err = run_main(capsys, "--output-format", "json", str(p))
    assert code != 0 and out == ""
    assert err.startswith("agent-viewer:")


@pytest.mark.parametrize("fmt", ["json", "text", "stream-json"])
@pytest.mark.parametrize("sid", ['["x"]', '{"a":1}', "7", "null"], ids=["list", "dict", "int", "null"])
def test_non_string_session_id_does_not_crash(h, fmt, sid):
    data = (
        b'{"type":"system","subtype":"init","session_id":%s}\n' % sid.encode()
        + b'{"type":"result","subtype":"success","is_error":false,"result":"ok","session_id":%s}\n'
        % sid.encode()
    )
    cp = run_cli(h, "--output-format", fmt, "-", input=data)
    assert b"Traceback" not in cp.stderr, cp.stderr.decode()[-300:]
    assert cp.returncode in (0, 1)


def test_json_mode_doubled_stream(capsys, real_dir, tmp_path):
    """2>&1 doubles every line (stream-json.md 7.8): the result object is still printed once."""
    src = real_dir / "maestro__02_shell_tool_call.ndjson"
    doubled = tmp_path / "doubled.ndjson"
    doubled.write_bytes(b"".join(x + x for x in src.read_bytes().splitlines(keepends=True)))
    _, want, _ = run_main(capsys, "--output-format", "json", str(src))
    code, got, err = run_main(capsys, "--output-format", "json", str(doubled))
    assert code == 0, err
    assert got == want and got.count("\n") == 1


def test_bundled_demo_is_the_sample_demo():
    """The package ships a copy of sample_streams/demo_session.ndjson (opened with no input)."""
    from pathlib import Path

    from viewer.cli import demo_path

    repo = Path(__file__).resolve().parents[1]
    assert Path(demo_path()).read_bytes() == (repo / "sample_streams" / "demo_session.ndjson").read_bytes()


def test_text_mode_says_when_the_stream_is_no_agents_it_knows(capsys, tmp_path):
    from tests.test_model import UNKNOWN_STREAM

    p = tmp_path / "spans.ndjson"
    p.write_bytes(UNKNOWN_STREAM)
    code, out, err = run_main(capsys, "--print", str(p))
    assert code == 1
    assert "(unknown at line 1: span.start" in out
    assert "none of the 3 events is in a known format (agent-viewer reads the JSON streams of Cursor, Claude Code, Codex and Gemini CLI)" in err
    # (From a new-user trial.)  A long text in it is read whole, as the transcript shows it:
    # it was cut at 160 characters.
    answer = "The file prints “Hello World”. " * 20
    p.write_bytes(b'{"type":"span.end","item":{"type":"note","text":"%s"}}\n' % answer.encode())
    code, out, err = run_main(capsys, "--print", str(p))
    assert f"item.text={answer})" in out, out


def test_text_mode_lets_go_of_text_it_will_not_print():
    """Memory stays flat on an endless run: thinking is never stored, and assistant text
    before a tool call is printed and let go once the call starts."""
    import io

    from viewer.core.printer import TextPrinter
    from viewer.core.sources import LineSplitter

    sid = "s"
    lines = [j(type="system", subtype="init", session_id=sid, model="m"),
             j(type="user", message={"content": [{"type": "text", "text": "go"}]}, session_id=sid)]
    for i in range(300):
        lines += [j(type="thinking", subtype="delta", text="hmm " * 50, session_id=sid, timestamp_ms=i)] * 20
        lines.append(j(type="assistant", message={"content": [{"type": "text", "text": f"step {i} " * 100}]},
                       session_id=sid))
        call = {"shellToolCall": {"args": {"command": f"echo {i}"}}}
        lines.append(j(type="tool_call", subtype="started", call_id=f"c{i}", tool_call=call, session_id=sid))
        done = {"shellToolCall": {"args": {"command": f"echo {i}"},
                                  "result": {"success": {"exitCode": 0, "stdout": f"{i}"}}}}
        lines.append(j(type="tool_call", subtype="completed", call_id=f"c{i}", tool_call=done, session_id=sid))
    lines.append(j(type="assistant", message={"content": [{"type": "text", "text": "All done."}]}, session_id=sid))
    lines.append(j(type="result", subtype="success", is_error=False, result="...", session_id=sid))
    out = io.StringIO()
    p = TextPrinter(out, io.StringIO())
    sp = LineSplitter()
    p.feed_lines(sp.feed(b"".join(lines)))
    assert p.finish() == 0
    printed = out.getvalue().splitlines()
    assert printed[:6] == ["Cursor · m · session s", "> go", "", "step 0 " * 100, "", "✓ Ran terminal command echo 0 (exit 0)"]
    assert printed[-3:] == ["All done.", "", "✓ succeeded in 299 ms · 300 tool calls"] and len(printed) == 300 * 4 + 6
    kept = sum(len(b.text) for s in p.model.sessions for b in s.blocks)
    kept += sum(len(b.text) for s in p.model.sessions for b in s.blocks_let_go)
    assert kept < 100, f"{kept} characters of text kept"


def test_text_mode_lets_go_of_finished_calls_but_not_of_running_ones():
    """Flat memory with many tool calls: finished calls are let go when the next call
    starts, while a call that is still running (here one that never completes, among
    parallel calls finishing out of order) is kept and reported unfinished at the end."""
    import io

    from viewer.core.printer import TextPrinter
    from viewer.core.sources import LineSplitter

    sid = "s"

    def call(i, phase):
        body = {"args": {"command": f"echo {i}"}}
        if phase == "completed":
            body["result"] = {"success": {"exitCode": 0, "stdout": f"{i}"}}
        return j(type="tool_call", subtype=phase, call_id=f"c{i}", tool_call={"shellToolCall": body},
                 session_id=sid)

    lines = [j(type="system", subtype="init", session_id=sid, model="m")]
    want = []
    for r in range(300):
        a, b = 2 * r, 2 * r + 1
        lines += [call(a, "started"), call(b, "started")]
        if r == 5:
            continue  # both stay running: the stream never completes them
        lines += [call(b, "completed"), call(a, "completed")]
        want += [f"✓ Ran terminal command echo {b} (exit 0)", f"✓ Ran terminal command echo {a} (exit 0)"]
    lines.append(j(type="assistant", message={"content": [{"type": "text", "text": "Done."}]}, session_id=sid))
    out = io.StringIO()
    p = TextPrinter(out, io.StringIO())
    p.feed_lines(LineSplitter().feed(b"".join(lines)))
    assert p.finish() == 1  # no result event
    printed = out.getvalue().splitlines()
    assert printed[:2] == ["Cursor · m · session s", ""]  # (whose run it is)
    printed = printed[2:]
    assert printed[: len(want)] == want
    assert printed[len(want):] == ["◌ Shell echo 10 (unfinished)", "◌ Shell echo 11 (unfinished)", "", "Done.", "",
                                   "◌ ended without a result · 600 tool calls (2 unfinished)"]
    s = p.model.sessions[0]
    assert s.tool_count == 600 and s.done_tools == 598 and s.status_counts["unfinished"] == 2
    assert len(s.tools) <= 4 and len(s.blocks) <= 6, (len(s.tools), len(s.blocks))


def test_text_mode_prints_the_result_text_of_a_run_without_assistant_text(capsys, tmp_path):
    path = tmp_path / "only-result.ndjson"
    path.write_bytes(j(type="result", subtype="success", is_error=False, result="hi there", session_id="s"))
    code, out, err = run_main(capsys, "--print", str(path))
    assert code == 0 and out.strip() == "Cursor · session s\n\nhi there\n\n✓ succeeded", (out, err)


def test_print_follow_waits_for_a_file_that_is_not_there_yet(tmp_path):
    """Like tail -F: `--follow run.ndjson` before the agent has created it."""
    path = tmp_path / "later.ndjson"
    proc = viewer_process("--print", "--output-format", "stream-json", "--follow", str(path))
    try:
        time.sleep(1.0)
        assert proc.poll() is None  # waiting, not refused
        path.write_bytes(j(type="result", subtype="success", is_error=False, result="x", session_id=SID))
        assert b'"result"' in ChildOutput(proc).until(b'"result"'), "nothing printed after the file appeared"
    finally:
        proc.terminate()
        _, err = proc.communicate(timeout=10)
    assert b"waiting for later.ndjson to appear" in err


def test_text_mode_does_not_reprint_the_narration_of_a_run_that_ended_on_a_tool_call(capsys, tmp_path):
    """Cursor's result text is all the run's assistant text joined: printed only when the run
    said nothing else, not whenever its last segment came before a tool call (that segment is
    printed once, before its call)."""
    path = tmp_path / "ends-on-a-tool.ndjson"
    msg = {"role": "assistant", "content": [{"type": "text", "text": "Looking around."}]}
    path.write_bytes(
        j(type="assistant", message=msg, session_id=SID)
        + j(type="tool_call", subtype="started", call_id="c1", session_id=SID,
            tool_call={"shellToolCall": {"args": {"command": "ls"}}})
        + j(type="tool_call", subtype="completed", call_id="c1", session_id=SID,
            tool_call={"shellToolCall": {"args": {"command": "ls"}, "result": {"success": {
                "command": "ls", "exitCode": 0, "stdout": "a", "stderr": ""}}}})
        + j(type="result", subtype="success", is_error=False, result="Looking around.", session_id=SID)
    )
    code, out, err = run_main(capsys, "--print", str(path))
    assert code == 0 and out.splitlines() == [f"Cursor · session {SID}", "", "Looking around.", "", "✓ Ran terminal command ls (exit 0)", "",
                                              "✓ succeeded · 1 tool call"], out


def test_json_follow_writes_each_result_as_it_comes(tmp_path):
    """`--print --output-format json --follow` has no end of input: it used to print nothing."""
    path = tmp_path / "run.ndjson"
    path.write_bytes(j(type="result", subtype="success", is_error=False, result="first", session_id=SID))
    proc = viewer_process("--print", "--output-format", "json", "--follow", str(path))
    output = ChildOutput(proc)
    try:
        output.until(b"first")
        with open(path, "ab") as f:
            f.write(j(type="result", subtype="success", is_error=False, result="second", session_id=SID))
        out = output.until(b"second")
    finally:
        proc.terminate()
        proc.communicate(timeout=10)
    assert [json.loads(x)["result"] for x in out.splitlines()] == ["first", "second"]


def test_json_follow_does_not_say_no_json_written_after_writing_results():
    """--follow writes each result as it comes: a last run without one is reported, but not as
    if nothing had been written."""
    import io

    from viewer.core.printer import JsonPrinter

    out, err = io.StringIO(), io.StringIO()
    p = JsonPrinter(out, err, each_result=True)
    data = (j(type="system", subtype="init", session_id="a") + j(type="result", subtype="success",
            is_error=False, result="ok", session_id="a") + j(type="system", subtype="init", session_id="b"))
    from viewer.core.sources import LineSplitter

    p.feed_lines(LineSplitter().feed(data))
    assert p.finish() == 1
    assert json.loads(out.getvalue())["result"] == "ok"
    assert "ended without a result" in err.getvalue() and "no JSON written" not in err.getvalue()


def test_text_follow_says_a_run_failed_as_its_result_comes(tmp_path):
    """(From a new-user trial.)  `--print --follow` has no end of input, so text mode must say a
    run failed when its result arrives (it said so only at the end, which never came); once."""
    import io

    from viewer.core.printer import make_printer
    from viewer.core.sources import LineSplitter

    out, err = io.StringIO(), io.StringIO()
    p = make_printer("text", out, err, follow=True)
    p.feed_lines(LineSplitter().feed((SAMPLES_DIR / "failed_run.ndjson").read_bytes()))
    assert err.getvalue().count("the run failed: ") == 1, err.getvalue()
    p.feed_lines(LineSplitter().feed((SAMPLES_DIR / "reference_example.ndjson").read_bytes()))
    assert p.finish() == 0
    assert err.getvalue().count("the run failed: ") == 1, err.getvalue()  # not told again at the end
    out2, err2 = io.StringIO(), io.StringIO()
    p = make_printer("text", out2, err2, follow=True)
    p.feed_lines(LineSplitter().feed((SAMPLES_DIR / "failed_run.ndjson").read_bytes()))
    assert p.finish() == 1 and err2.getvalue().count("the run failed: ") == 1, err2.getvalue()


def test_text_mode_heads_each_sessions_lines_when_runs_are_interleaved(capsys, tmp_path):
    """(From a new-user trial.)  Two runs written into one file line by line: each line printed
    comes under its own session's heading ("--- session 2 ---" headed them all)."""
    a = (SAMPLES_DIR / "failed_run.ndjson").read_bytes().splitlines(keepends=True)
    b = (SAMPLES_DIR / "reference_example.ndjson").read_bytes().splitlines(keepends=True)
    mixed = [x for pair in zip(a, b) for x in pair] + a[len(b):] + b[len(a):]
    p = tmp_path / "mixed.ndjson"
    p.write_bytes(b"".join(mixed))
    code, out, err = run_main(capsys, str(p))
    section, where = 0, {}
    for line in out.splitlines():
        if line.startswith("--- session "):
            section = int(line.split()[2])
        elif line[2:].startswith(("Read file", "Created new file", "Ran terminal command", "Shell ")):
            for name in ("Dockerfile", "docker system prune", "README.md", "SUMMARY.md"):
                if name in line.split(" (")[0]:
                    where[name] = section
    assert where["Dockerfile"] == where["docker system prune"] == 1, out
    assert where["README.md"] == where["SUMMARY.md"] == 2, out
    assert out.count("--- session ") >= 4  # it goes back and forth


def test_text_mode_names_an_earlier_run_that_failed(capsys, tmp_path):
    """Two runs in one file, the first failed: the exit status is the last run's, and stderr says
    which earlier run did not succeed (a CI log must not hide it)."""
    p = tmp_path / "two.ndjson"
    p.write_bytes((SAMPLES_DIR / "failed_run.ndjson").read_bytes() + (SAMPLES_DIR / "reference_example.ndjson").read_bytes())
    code, out, err = run_main(capsys, str(p))
    assert code == 0
    assert err.startswith("agent-viewer: session 1 of 2: the run failed: ConnectError")


def test_messages_on_stderr_show_names_and_ids_escaped(h, tmp_path):
    """(From an adversarial trial.)  A file's name, a --save path and a session id reached
    stderr raw: `agent-viewer $'run\\e]0;PWN\\a.ndjson'` set the window's title."""
    bad = "\x1b]0;PWN\x07\x1b[2J\u202e"
    missing = run_cli(h, "--print", str(tmp_path / f"nope{bad}.ndjson"))
    (tmp_path / f"dir{bad}").mkdir()
    directory = run_cli(h, "--print", str(tmp_path / f"dir{bad}"))
    run = tmp_path / "two.ndjson"
    run.write_bytes(_run("first", sid="\x1b]0;PWN\x07", result=False) + _run("second"))
    json_mode = run_cli(h, "--print", "--output-format", "json", str(run))
    saved = run_cli(h, "--print", "--save", str(tmp_path / f"dir{bad}"), input=_run("x"))
    for cp in (missing, directory, json_mode, saved):
        err = cp.stderr.decode()
        assert err and "\x1b" not in err and "\x07" not in err and "\u202e" not in err, err
        assert "\\x1b" in err, err  # shown, escaped


def test_text_mode_starts_with_its_first_line_and_sets_the_text_off_by_one_blank_line(capsys, tmp_path):
    """(From a new-user trial.)  A run without calls printed a blank line before its answer, and
    a text that began with blank lines was two or three lines below the last call."""
    p = tmp_path / "run.ndjson"
    p.write_bytes(_run("\n\nPONG"))
    code, out, err = run_main(capsys, str(p))
    assert out == f"Cursor · Auto · session {SID}\n\nPONG\n\n✓ succeeded in 1 ms\n", out
    p.write_bytes(_run("\n\nPONG").replace(b'{"type":"assistant"', _tool_pair(
        "shellToolCall", {"command": "ls"}, {"success": {"exitCode": 0}}) + b'{"type":"assistant"', 1))
    code, out, err = run_main(capsys, str(p))
    assert out.splitlines()[2:] == ["✓ Ran terminal command ls (exit 0)", "", "PONG", "", "✓ succeeded in 1 ms · 1 tool call"], out


def test_json_mode_names_an_earlier_run_that_failed(capsys, tmp_path):
    """(From a new-user trial.)  json mode writes the last run's result object; a failed run
    before it was dropped without a word (text mode names it on stderr)."""
    p = tmp_path / "two.ndjson"
    p.write_bytes((SAMPLES_DIR / "failed_run.ndjson").read_bytes() + (SAMPLES_DIR / "reference_example.ndjson").read_bytes())
    code, out, err = run_main(capsys, "--output-format", "json", str(p))
    assert code == 0
    assert [o["is_error"] for o in map(json.loads, out.splitlines())] == [False]  # the last run's, as before
    sid = raw_events((SAMPLES_DIR / "failed_run.ndjson").read_bytes())[0]["session_id"]
    assert err.startswith(f"agent-viewer: an earlier run (session {sid[:8]}): the run failed: ConnectError"), err
    # (From a code review.)  And one that ended without a result, as text mode names it.
    p.write_bytes((SAMPLES_DIR / "truncated_run.ndjson").read_bytes() + (SAMPLES_DIR / "reference_example.ndjson").read_bytes())
    code, out, err = run_main(capsys, "--output-format", "json", str(p))
    assert code == 0 and "an earlier run (session " in err and "): the run ended without a result" in err, err
    code, out, err = run_main(capsys, "--output-format", "json", str(SAMPLES_DIR / "reference_example.ndjson"))
    assert code == 0 and err == ""  # one run: nothing earlier to name
    # (From a code review.)  Every event twice (2>&1) is one run, as the model tells it.
    p.write_bytes(b"".join(ln + ln for ln in (SAMPLES_DIR / "reference_example.ndjson").read_bytes().splitlines(True)))
    code, out, err = run_main(capsys, "--output-format", "json", str(p))
    assert code == 0 and err == "", err


@pytest.mark.parametrize("mode", ["text", "stream-json", "json"])
def test_a_file_that_is_not_ndjson_is_told_in_a_few_lines_not_one_per_line(capsys, tmp_path, mode):
    """40 MB of something else wrote 40 MB of messages: the first malformed lines are listed,
    then only their count, and the last line says what the input seems to be."""
    from viewer.core.printer import MALFORMED_LISTED

    p = tmp_path / "notes.txt"
    p.write_bytes(b"".join(b"plain text, line %d\n" % i for i in range(500)))
    code, out, err = run_main(capsys, "--print", "--output-format", mode, str(p))
    lines = err.splitlines()
    assert code == 1 and out == ""
    assert "not one of its lines is a JSON object (500 malformed; is it an NDJSON stream?)" in lines[-1]
    if mode != "json":  # (json mode never lists them: its stdout is one result object)
        listed = [x for x in lines if "malformed line, not an event" in x]
        assert len(listed) == MALFORMED_LISTED and "line 1:" in listed[0]
        assert "500 malformed lines in all; the first 20 are listed above" in err
        assert len(lines) == MALFORMED_LISTED + 3


def test_ctrl_c_while_the_command_starts_is_an_exit_status_not_a_traceback():
    """A Ctrl-C during the first tenth of a second (the imports) printed a traceback."""
    code = (
        "import builtins\n"
        "real = builtins.__import__\n"
        "def imp(name, *a, **k):\n"
        "    if name == 'viewer.cli':\n"
        "        raise KeyboardInterrupt\n"
        "    return real(name, *a, **k)\n"
        "builtins.__import__ = imp\n"
        "from viewer.__main__ import run\n"
        "run()\n"
    )
    cp = subprocess.run([sys.executable, "-c", code], capture_output=True, timeout=30)
    assert cp.returncode == 130
    assert cp.stderr == b""


def test_text_mode_gives_a_failed_calls_time_too(capsys):
    """A CI log reader wants the time of a failed command as much as of one that passed."""
    code, out, err = run_main(capsys, "--print", str(SAMPLES_DIR / "failed_run.ndjson"))
    docker = next(line for line in out.splitlines() if "docker build" in line)
    assert docker.startswith("✗ Ran terminal command docker build") and "(exit 1;" in docker
    assert docker.endswith("; 57.4 s)"), docker
    assert "(rejected)" in out  # a rejected call never ran: no time


def test_text_mode_says_each_call_as_the_panes_do(capsys):
    """(From a new user's trial.)  A CI log said "Edited file /private/tmp/…/hello.py" where the
    panes said "Edited file hello.py · +1 −0": paths under the run's directory are relative to it
    there, and only a shell's exit code was given of a call's summary."""
    code, out, err = run_main(capsys, "--print", str(SAMPLES_DIR / "demo_session.ndjson"))
    lines = out.splitlines()
    for want in ("✓ Listed directory . (17 files; 618 ms)",
                 "✓ Read file src/invoice_tool/totals.py (49 lines · 1.5 KB; 655 ms)",
                 "✓ Grepped round\\( in src (2 matches; 377 ms)",
                 "✓ Found files tests/**/test_*.py in . (4 files; 251 ms)",
                 "✓ Edited file src/invoice_tool/totals.py (+14 −10; 1.6 s)",
                 "✓ Ran terminal command git status --short (exit 0; 1.2 s)"):
        assert want in lines, (want, out)
    assert "/home/maya/code/invoice-tool/src" not in out.split("## Root cause")[0]  # (the agent's own words may name it)
    # (From a review.)  The log says what those paths are under, in the run's heading.
    assert lines[0] == ("Cursor · Composer 2.5 Fast · in /home/maya/code/invoice-tool · "
                        "session 903961c6-8e9e-47cf-ab5d-ed549d452bf9"), lines[:3]
    assert lines[1].startswith("> CI is red on main for invoice-tool (Linear INV-142). Find out why"), lines[:3]
    assert out.count("/home/maya/code/invoice-tool") == 1


def test_text_mode_keeps_a_command_as_it_ran_and_a_path_with_a_space_relative(capsys, tmp_path):
    """(From a review.)  A run directory with a space in it ("My Project") showed every path
    whole; a command that starts with the run's directory is shown as it ran."""
    cwd = "/home/u/My Project"
    build = {"command": f"{cwd}/build.sh --fast"}
    read = {"path": f"{cwd}/src/a.py"}
    p = tmp_path / "space.ndjson"
    p.write_bytes(
        j(type="system", subtype="init", session_id=SID, cwd=cwd, model="m")
        + j(type="tool_call", subtype="started", call_id="c1", session_id=SID, tool_call={"shellToolCall": {"args": build}})
        + j(type="tool_call", subtype="completed", call_id="c1", session_id=SID, tool_call={"shellToolCall": {
            "args": build, "result": {"success": {"exitCode": 0, "stdout": ""}}}})
        + j(type="tool_call", subtype="started", call_id="c2", session_id=SID, tool_call={"readToolCall": {"args": read}})
        + j(type="tool_call", subtype="completed", call_id="c2", session_id=SID, tool_call={"readToolCall": {
            "args": read, "result": {"success": {"content": "x\n"}}}})
        + j(type="result", subtype="success", is_error=False, result="ok", session_id=SID))
    code, out, err = run_main(capsys, "--print", str(p))
    lines = out.splitlines()
    assert lines[:4] == [f"Cursor · m · in {cwd} · session {SID}", "",
                         f"✓ Ran terminal command {cwd}/build.sh --fast (exit 0)", "✓ Read file src/a.py (1 line)"], out


@pytest.mark.parametrize("fmt", ["text", "json", "stream-json"])
def test_an_event_whose_type_is_an_object_is_an_unknown_event_not_a_crash(capsys, tmp_path, fmt):
    """(Found by the mutation property test.)  {"type": {...}} made json and stream-json raise
    (unhashable type) where they asked whether the type is known, and a content part so typed
    made the other-agent sniffing raise."""
    p = tmp_path / "odd.ndjson"
    p.write_bytes(j(type={"x": 1}, session_id=SID) + j(type=["a"])
                  + j(type="assistant", session_id=SID, message={"content": [{"type": {"a": 1}}]})
                  + j(type="result", subtype="success", is_error=False, result="ok", session_id=SID))
    code, out, err = run_main(capsys, "--output-format", fmt, str(p))
    assert code == 0 and "Traceback" not in err, err
    assert out.strip()


@pytest.mark.parametrize("compress", ["gzip", "bzip2", "xz"])
def test_a_compressed_file_is_named_not_printed_as_garbage(capsys, tmp_path, compress):
    """(From a new-user trial.)  A .gz run printed 20 lines of escaped binary to stderr before
    asking "is it an NDJSON stream?"; it is told what the file is and how to read it."""
    import bz2
    import gzip
    import lzma

    data = (SAMPLES_DIR / "demo_session.ndjson").read_bytes()
    packed = {"gzip": gzip.compress, "bzip2": bz2.compress, "xz": lzma.compress}[compress](data)
    p = tmp_path / "run.ndjson.z"
    p.write_bytes(packed)
    code, out, err = run_main(capsys, "--print", str(p))
    assert code == 2 and out == ""
    assert f"is {compress}-compressed" in err and "| agent-viewer" in err and len(err.splitlines()) == 1, err


@pytest.mark.parametrize("kind, enc", [
    ("binary", ""), ("UTF-16 with a mark", "UTF-16LE"), ("UTF-16BE with a mark", "UTF-16BE"),
    ("UTF-16LE", "UTF-16LE"), ("UTF-16BE", "UTF-16BE"), ("UTF-32 with a mark", "UTF-32LE"), ("UTF-32BE", "UTF-32BE"),
])
def test_a_binary_or_utf16_file_is_named_not_printed_as_garbage(capsys, tmp_path, kind, enc):
    """(From a new-user trial.)  A binary file printed 20 lines of mojibake on stderr, and the
    TUI's header one more.  UTF-16 (what PowerShell's > writes) is told with its converter."""
    data = (SAMPLES_DIR / "demo_session.ndjson").read_bytes()
    text = data.decode()
    p = tmp_path / "run.ndjson"
    p.write_bytes({
        "binary": b"\x7fELF\x02\x01\x01\x00" + bytes(range(256)) * 8,
        "UTF-16 with a mark": text.encode("utf-16"),  # (Python's: a mark, then little-endian)
        "UTF-16BE with a mark": b"\xfe\xff" + text.encode("utf-16-be"),
        "UTF-16LE": text.encode("utf-16-le"),
        "UTF-16BE": text.encode("utf-16-be"),
        "UTF-32 with a mark": text.encode("utf-32"),
        "UTF-32BE": text.encode("utf-32-be"),
    }[kind])
    code, out, err = run_main(capsys, "--print", str(p))
    assert code == 2 and out == "" and len(err.splitlines()) == 1, err
    if kind == "binary":
        assert err == f"agent-viewer: error: {p}: looks like a binary file, not an NDJSON stream (it holds NUL bytes)\n"
    else:
        assert f"is {enc} text, not UTF-8; read it with iconv -f {enc} -t UTF-8 {p} | agent-viewer" in err, err
        converted = subprocess.run(["iconv", "-f", enc, "-t", "UTF-8", str(p)], capture_output=True).stdout
        assert converted.lstrip(b"\xef\xbb\xbf") == data  # (the command it gives reads it)


def test_a_stream_with_a_nul_in_one_line_is_read_and_random_bytes_are_refused(capsys, tmp_path):
    """(From a trial.)  One NUL byte in line 14 refused the whole stream as binary (the same
    byte further in was one malformed line); random bytes with no NUL gave a screen of
    mojibake as malformed lines."""
    lines = (SAMPLES_DIR / "demo_session.ndjson").read_bytes().splitlines(keepends=True)
    p = tmp_path / "run.ndjson"
    p.write_bytes(b"".join(lines[:3]) + b"abc\x00def\n" + b"".join(lines[3:]))
    code, out, err = run_main(capsys, "--print", str(p))
    assert code == 0 and "✓ succeeded" in out, err
    assert "line 4: malformed line, not an event (not JSON: a line of text): abc\\x00def" in err, err
    # (From a review: an event line longer than the 4 KB looked at, as Claude Code's init is.)
    first = orjson.loads(lines[0])
    first["pad"] = "x" * 6000
    p.write_bytes(orjson.dumps(first) + b"\nabc\x00def\n" + b"".join(lines[1:]))
    code, out, err = run_main(capsys, "--print", str(p))
    assert code == 0 and "✓ succeeded" in out, err
    rng = random.Random(7)
    noise = bytes(rng.randrange(256) for _ in range(20_000)).replace(b"\0", b"\1")
    p.write_bytes(noise)
    code, out, err = run_main(capsys, "--print", str(p))
    assert code == 2 and not out
    assert err == (f"agent-viewer: error: {p}: is not UTF-8 text (binary, or text in another encoding: read it with "
                   f"iconv -f ENCODING -t UTF-8 {p} | agent-viewer)\n")
    # Text that is not JSON is still read (an agent's "Error: …" on its stdout), as is UTF-8 cut
    # at the head's end.
    p.write_bytes("Error: authentication required — run cursor-agent login\n".encode() * 200)
    code, out, err = run_main(capsys, "--print", str(p))
    assert code == 1 and "malformed line, not an event (not JSON: a line of text): Error: authentication" in err, err


@pytest.mark.parametrize("nuls", [1, 2000, 10_000])
def test_nul_bytes_before_the_text_are_read_as_before_not_refused(capsys, tmp_path, nuls):
    """(From a review.)  A file truncated under a writer that went on at its old offset
    (logrotate's copytruncate) starts with NUL bytes: it is read, the NULs one malformed line."""
    p = tmp_path / "run.ndjson"
    p.write_bytes(b"\0" * nuls + b"\n" + (SAMPLES_DIR / "demo_session.ndjson").read_bytes())
    code, out, err = run_main(capsys, "--print", "--output-format", "json", str(p))
    assert code == 0 and json.loads(out)["subtype"] == "success", err
    assert "line 1: malformed line, not an event" in err


@pytest.mark.parametrize(("content", "said"), [
    (b"", "the input is empty (not one line of text)"),
    (b"\n\n  \n", "the input holds no events: only 3 blank lines"),
])
@pytest.mark.parametrize("fmt", ["text", "json"])
def test_an_empty_input_is_said_to_be_empty(capsys, tmp_path, content, said, fmt):
    """(From new-user trials.)  An empty file said "the input holds no events"; a file of
    blank lines, that it was empty, "not one line of text"."""
    p = tmp_path / "run.ndjson"
    p.write_bytes(content)
    code, out, err = run_main(capsys, "--print", "--output-format", fmt, str(p))
    assert code == 1 and err.startswith(f"agent-viewer: {said}"), err


def test_follow_of_a_file_in_a_missing_directory_names_the_directory(capsys, tmp_path):
    """--follow waits for a missing file, as tail -F does, but not for a missing directory: the
    error says which is missing (it said "no such file" as if --follow should have waited)."""
    code, out, err = run_main(capsys, "--print", "--follow", str(tmp_path / "nowhere" / "run.ndjson"))
    assert code == 2 and f"nor directory {tmp_path / 'nowhere'}" in err, err


@pytest.mark.parametrize("args", [["--print"], ["--print", "--follow"], ["--replay"]])
def test_an_empty_file_name_is_said_to_be_empty(capsys, args):
    """(From a new-user trial.)  `agent-viewer -p "$RUN"` with RUN unset said ": no such file",
    and --follow waited for " " to appear."""
    code, out, err = run_main(capsys, *args, "")
    assert code == 2 and out == "" and err == "agent-viewer: error: the file name is empty\n", err


def test_a_compressed_standard_input_is_named_too(h, tmp_path):
    """`agent-viewer --print < run.ndjson.gz`: standard input is that file, read as it is."""
    import gzip

    p = tmp_path / "run.ndjson.gz"
    p.write_bytes(gzip.compress((SAMPLES_DIR / "demo_session.ndjson").read_bytes()))
    with open(p, "rb") as f:
        cp = subprocess.run([sys.executable, "-m", "viewer", "--print"], stdin=f, capture_output=True,
                            env=h.cli_env(), cwd=h.repo, timeout=20)
    assert cp.returncode == 2 and cp.stdout == b"", cp
    assert b"standard input: is gzip-compressed; read it with zcat FILE | agent-viewer" in cp.stderr, cp.stderr


@pytest.mark.parametrize("kind", ["gzip", "UTF-16LE", "binary"])
def test_a_compressed_binary_or_utf16_pipe_is_named_not_printed_as_garbage(h, kind):
    """(From a new-user trial.)  `cat run.ndjson.gz | agent-viewer --print` printed 20 lines of
    mojibake and "60 malformed lines", where the file by its name was refused in one line."""
    import gzip

    data = (SAMPLES_DIR / "demo_session.ndjson").read_bytes()
    piped = {"gzip": gzip.compress(data), "UTF-16LE": data.decode().encode("utf-16-le"),
             "binary": b"\x7fELF\x02\x01\x01\x00" + bytes(range(256)) * 8}[kind]
    cp = subprocess.run([sys.executable, "-m", "viewer", "--print"], input=piped, capture_output=True,
                        env=h.cli_env(), cwd=h.repo, timeout=20)
    said = {"gzip": "is gzip-compressed; read it with … | zcat | agent-viewer",
            "UTF-16LE": "is UTF-16LE text, not UTF-8; read it with … | iconv -f UTF-16LE -t UTF-8 | agent-viewer",
            "binary": "looks like a binary file, not an NDJSON stream (it holds NUL bytes)"}[kind]
    assert cp.returncode == 2 and cp.stdout == b"", cp
    assert cp.stderr.decode() == f"agent-viewer: error: standard input: {said}\n"


@pytest.mark.parametrize("before", [True, False])
def test_save_leaves_its_file_as_it_was_when_the_input_is_refused_or_empty(h, tmp_path, before):
    """(Noticed in the last session.)  `cat run.ndjson.gz | agent-viewer --print --save
    copy.ndjson` refused the input, but had already emptied copy.ndjson, a run saved before.
    The copy replaces the file only once the input's first bytes are read; with none, a new
    file is not left behind either."""
    import gzip

    copy = tmp_path / "copy.ndjson"
    timing = tmp_path / "copy.ndjson.timing"
    old = (SAMPLES_DIR / "demo_session.ndjson").read_bytes()
    if before:
        copy.write_bytes(old)
        timing.write_text("# agent-viewer timing v1\n100\t0\n")
    for piped in (gzip.compress(old), b""):
        cp = run_cli(h, "--print", "--save", str(copy), input=piped)
        assert cp.returncode == (2 if piped else 1), cp  # (1: "the input is empty")
        if before:
            assert copy.read_bytes() == old and timing.read_text() == "# agent-viewer timing v1\n100\t0\n"
        else:
            assert not copy.exists() and not timing.exists()
    cp = run_cli(h, "--print", "--save", str(copy), input=_run("hello"))  # read: replaced
    assert cp.returncode == 0 and copy.read_bytes() == _run("hello"), cp
    assert timing.read_text().startswith("# agent-viewer timing v1\n") and "100\t0" not in timing.read_text()


def test_save_names_its_timing_file_when_that_cannot_be_written(h, tmp_path):
    """(From a new-user trial.)  With FILE.timing a directory, the error named FILE, which
    was fine, and had emptied it."""
    copy = tmp_path / "copy.ndjson"
    copy.write_bytes(b"old\n")
    (tmp_path / "copy.ndjson.timing").mkdir()
    cp = run_cli(h, "--print", "--save", str(copy), input=_run("hello"))
    assert cp.returncode == 2, cp
    assert cp.stderr.decode() == f"agent-viewer: error: --save {copy}: cannot write {copy}.timing (Is a directory)\n"
    assert copy.read_bytes() == b"old\n"


@pytest.mark.parametrize("at", [1, 8])
def test_a_piped_stream_with_a_line_of_nul_bytes_is_read_not_refused(h, at):
    """(From a review.)  A pipe's first read (up to a MB) was checked whole: a line of NULs in
    it (left where a file was cut short under its writer) refused the stream as binary, while
    the same file by its name was read, the NULs one malformed line."""
    lines = (SAMPLES_DIR / "demo_session.ndjson").read_bytes().splitlines(keepends=True)
    data = b"".join(lines[:at]) + b"\0" * 200 + b"\n" + b"".join(lines[at:])
    cp = subprocess.run([sys.executable, "-m", "viewer", "--print", "--output-format", "json"], input=data,
                        capture_output=True, env=h.cli_env(), cwd=h.repo, timeout=20)
    assert cp.returncode == 0 and json.loads(cp.stdout)["subtype"] == "success", cp.stderr
    assert f"line {at + 1}: malformed line, not an event (only NUL bytes".encode() in cp.stderr, cp.stderr


def test_the_command_a_compressed_file_is_read_with_is_quoted_for_the_shell(capsys, tmp_path):
    import gzip
    import shlex

    p = tmp_path / "my run's.ndjson.gz"
    p.write_bytes(gzip.compress(b'{"type":"x"}\n'))
    code, out, err = run_main(capsys, "--print", str(p))
    assert code == 2 and f"zcat {shlex.quote(str(p))} | agent-viewer" in err, err


@pytest.mark.parametrize("fmt", ["text", "json"])
def test_a_result_with_status_error_is_a_failed_run(capsys, tmp_path, fmt):
    """(From a second new-user trial.)  Gemini CLI's failed result says `"status": "error"` and
    carries `error.message`: it was shown as SUCCEEDED, and --print exited 0."""
    p = tmp_path / "gemini.ndjson"
    p.write_bytes(b'{"type":"init","session_id":"g","model":"gemini"}\n'
                  b'{"type":"result","status":"error","error":{"message":"quota exceeded"},"stats":{}}\n')
    code, out, err = run_main(capsys, "--print", "--output-format", fmt, str(p))
    assert code == 1 and "the run failed: quota exceeded" in err, err
    from viewer.core.model import StreamModel
    from viewer.core.sources import iter_records

    m = StreamModel()
    for rec in iter_records(p.open("rb")):
        m.apply(rec)
    m.end()
    assert m.sessions[-1].state == "failed" and m.sessions[-1].result_text == "quota exceeded"


def test_a_coloured_line_that_is_not_an_event_is_listed_without_its_colours(capsys, tmp_path):
    """An agent's coloured stderr line is listed as it reads ("Error: bad token"), any other
    escape still shown escaped."""
    path = tmp_path / "run.ndjson"
    path.write_bytes(b"\x1b[31mError:\x1b[0m bad token\x1b]0;t\x07\n")
    code, out, err = run_main(capsys, "--print", str(path))
    assert code == 1
    assert "line 1: malformed line, not an event" in err and "Error: bad token\\x1b]0;t\\x07" in err, err
    assert "[31m" not in err and "\x1b" not in err


@pytest.mark.parametrize("fmt", ["text", "json", "stream-json"])
def test_a_time_no_clock_holds_is_no_time_not_a_traceback(capsys, tmp_path, fmt):
    """(From a code review.)  ``completedAtMs`` of "1" and 400 zeros (times may be strings)
    made a call's duration no float holds: text mode failed with a traceback."""
    big = "1" + "0" * 400
    p = tmp_path / "big.ndjson"
    tc = {"readToolCall": {"args": {"path": "a.txt"}, "result": {"success": {"content": "x"}}},
          "startedAtMs": "0", "completedAtMs": big}
    p.write_bytes(j(type="system", subtype="init", session_id=SID)
                  + j(type="tool_call", subtype="started", call_id="c1", session_id=SID,
                      tool_call={"readToolCall": {"args": {"path": "a.txt"}}, "startedAtMs": "0"})
                  + j(type="tool_call", subtype="completed", call_id="c1", session_id=SID, tool_call=tc)
                  + j(type="result", subtype="success", is_error=False, result="done", session_id=SID,
                      duration_ms=big))
    code, out, err = run_main(capsys, "--output-format", fmt, str(p))
    assert code == 0 and "Traceback" not in err, err
    if fmt == "text":
        assert "Read file a.txt" in out and "done" in out


@pytest.mark.parametrize("encoding", ["ascii", "latin-1"])
def test_an_output_that_cannot_encode_a_character_gets_its_escape_not_a_traceback(h, tmp_path, encoding):
    """(From a code review.)  Standard output in ASCII (``PYTHONIOENCODING``, an old locale)
    failed on "—" with a UnicodeEncodeError traceback.  What it cannot encode is written as
    JSON writes it, ``\\u2014``: json mode stays valid JSON."""
    text = "Done — café ✓ 😀"
    p = tmp_path / "uni.ndjson"
    p.write_bytes(j(type="system", subtype="init", session_id=SID)
                  + j(type="assistant", message={"content": [{"type": "text", "text": text}]}, session_id=SID)
                  + j(type="result", subtype="success", is_error=False, result=text, session_id=SID))
    env = {**h.cli_env(), "PYTHONIOENCODING": encoding}
    for fmt in ("text", "json"):
        r = subprocess.run([sys.executable, "-m", "viewer", "-p", "--output-format", fmt, str(p)],
                           capture_output=True, env=env, cwd=h.repo, timeout=20, stdin=subprocess.DEVNULL)
        assert r.returncode == 0 and b"Traceback" not in r.stderr, r.stderr.decode()
        out = r.stdout.decode(encoding)
        if fmt == "json":
            assert json.loads(out)["result"] == text
        else:
            assert "Done \\u2014 caf" in out and "\\u2713 \\ud83d\\ude00" in out


def test_an_mcp_call_that_reports_an_error_says_what_the_error_is(capsys, tmp_path):
    """(From a code review.)  An MCP tool's error comes as a "success" outcome with
    ``isError``: text mode printed "(failed: success)" and left out what the tool said."""
    tc = {"mcpToolCall": {"args": {"name": "gh-create_issue"},
                          "result": {"success": {"content": [{"text": {"text": "401 Unauthorized\nretry later"}}],
                                                 "isError": True}}}}
    p = tmp_path / "mcp.ndjson"
    p.write_bytes(j(type="system", subtype="init", session_id=SID)
                  + j(type="tool_call", subtype="started", call_id="c1", session_id=SID,
                      tool_call={"mcpToolCall": {"args": {"name": "gh-create_issue"}}})
                  + j(type="tool_call", subtype="completed", call_id="c1", session_id=SID, tool_call=tc)
                  + j(type="result", subtype="success", is_error=False, result="", session_id=SID))
    code, out, err = run_main(capsys, str(p))
    (line,) = [x for x in out.splitlines() if "gh-create_issue" in x]
    assert "failed" in line and "401 Unauthorized" in line and "success" not in line, line


@pytest.mark.parametrize("subtype", [{"x": 1}, ["error"], 7, None])
def test_a_result_whose_subtype_is_not_a_string_gives_one_exit_status_in_every_mode(capsys, tmp_path, subtype):
    """(From a code review.)  ``"subtype": {"x": 1}``: text mode read it as no subtype (exit 0),
    json and stream-json as a failure (exit 1)."""
    p = tmp_path / "r.ndjson"
    p.write_bytes(j(type="system", subtype="init", session_id=SID)
                  + j(type="result", subtype=subtype, is_error=False, result="hi", session_id=SID))
    codes = {fmt: run_main(capsys, "--output-format", fmt, str(p))[0] for fmt in ("text", "json", "stream-json")}
    assert set(codes.values()) == {0}, codes


def test_text_mode_shows_events_of_a_known_type_that_are_shown_by_their_fields(capsys, tmp_path):
    """(From a new-user trial.)  Claude Code's ``system/permission_denied`` (a known type,
    shown by its fields in the transcript) was left out of text mode, which listed the unknown
    lines around it."""
    p = tmp_path / "claude.ndjson"
    p.write_bytes(j(type="system", subtype="init", session_id=SID, model="m")
                  + j(type="system", subtype="permission_denied", tool_name="Write", session_id=SID,
                      message="Claude requested permissions to write to /tmp/x")
                  + j(type="retry", attempt=2, session_id=SID)
                  + j(type="result", subtype="success", is_error=False, result="no permission", session_id=SID))
    code, out, err = run_main(capsys, "--print", str(p))
    lines = out.splitlines()
    assert lines[:2] == [f"Cursor · m · session {SID}", ""], lines
    assert "(at line 2: system/permission_denied: tool_name=Write message=Claude requested permissions" in lines[2]
    assert lines[3] == "(at line 3: retry: attempt=2)", lines


def test_text_mode_prints_a_call_once_when_its_start_comes_after_its_completion(capsys, tmp_path):
    """(From a code review.)  It printed the call, then the same call again as "unfinished"."""
    started = j(type="tool_call", subtype="started", call_id="c1", session_id=SID,
                tool_call={"shellToolCall": {"args": {"command": "ls"}}})
    done = j(type="tool_call", subtype="completed", call_id="c1", session_id=SID,
             tool_call={"shellToolCall": {"args": {"command": "ls"},
                                          "result": {"success": {"exitCode": 0, "stdout": "a"}}}})
    p = tmp_path / "late.ndjson"
    p.write_bytes(j(type="system", subtype="init", session_id=SID) + done + started
                  + j(type="result", subtype="success", is_error=False, result="done", session_id=SID))
    code, out, err = run_main(capsys, str(p))
    assert code == 0 and out.splitlines() == [f"Cursor · session {SID}", "", "✓ Ran terminal command ls (exit 0)", "",
                                              "done", "", "✓ succeeded · 1 tool call"], out


def test_interleaved_runs_give_one_exit_status_in_every_mode(capsys, tmp_path):
    """(From a code review.)  Run A starts, run B starts, B succeeds, then A fails: json and
    stream-json exited 1 (the input's last result), text mode 0 (the run started last)."""
    p = tmp_path / "inter.ndjson"
    p.write_bytes(j(type="system", subtype="init", session_id="A") + j(type="system", subtype="init", session_id="B")
                  + j(type="result", subtype="success", is_error=False, result="ok", session_id="B")
                  + j(type="result", subtype="error", is_error=True, result="boom", session_id="A"))
    codes = {fmt: run_main(capsys, "--output-format", fmt, str(p))[0] for fmt in ("text", "json", "stream-json")}
    assert set(codes.values()) == {1}, codes


def test_json_follow_writes_a_mirrored_result_once(tmp_path):
    """(From a code review.)  A stream with stderr merged into stdout (2>&1: every event twice)
    under --follow wrote its result object twice (once without --follow)."""
    path = tmp_path / "run.ndjson"
    events = (j(type="system", subtype="init", session_id=SID)
              + j(type="result", subtype="success", is_error=False, result="first", session_id=SID))
    path.write_bytes(b"".join(x + x for x in events.splitlines(keepends=True)))
    proc = viewer_process("--print", "--output-format", "json", "--follow", str(path))
    output = ChildOutput(proc)
    try:
        output.until(b"first")
        with open(path, "ab") as f:  # (the next run: a result must come after the first's copies)
            f.write(j(type="system", subtype="init", session_id=SID)
                    + j(type="result", subtype="success", is_error=False, result="second", session_id=SID))
        out = output.until(b"second")
    finally:
        proc.terminate()
        proc.communicate(timeout=10)
    assert [json.loads(x)["result"] for x in out.splitlines()] == ["first", "second"]


def test_json_follow_tells_a_run_the_file_starting_over_cut_off(tmp_path):
    """(From a code review.)  Under --follow, a run cut off without a result by the file
    starting over was said in text mode, never in json mode."""
    from viewer.core.printer import make_printer
    from viewer.core.sources import LineSplitter

    first = (j(type="system", subtype="init", session_id="s1")
             + j(type="tool_call", subtype="started", call_id="c1", session_id="s1",
                 tool_call={"shellToolCall": {"args": {"command": "make"}}}))
    second = (j(type="system", subtype="init", session_id="s2")
              + j(type="result", subtype="success", is_error=False, result="second", session_id="s2"))
    out, err = io.StringIO(), io.StringIO()
    p = make_printer("json", out, err, follow=True)
    split = LineSplitter()
    p.feed_lines(split.feed(first))
    p.restart()
    split = LineSplitter(len(first))
    p.feed_lines(split.feed(second))
    assert p.finish() == 0
    assert [json.loads(x)["result"] for x in out.getvalue().splitlines()] == ["second"]
    assert err.getvalue() == ("agent-viewer: an earlier run (session s1): the run ended without a result "
                              "(the file started over)\n")


def test_json_follow_tells_a_cut_off_run_once_and_does_not_take_an_old_result_for_a_new_run():
    """(From a review.)  A run cut off, then the file starting over twice: it was told at each
    restart and again at the end.  A run with a result, the file replaced by more of that session
    with no result: the old result hid it (exit 0, where text mode said it ended without one)."""
    from viewer.core.printer import make_printer
    from viewer.core.sources import LineSplitter

    def follow(*parts):
        out, err = io.StringIO(), io.StringIO()
        p = make_printer("json", out, err, follow=True)
        split = LineSplitter()
        for part in parts:
            if part is None:
                p.restart()
            else:
                p.feed_lines(split.feed(part))
        return p.finish(), err.getvalue()

    init_a = j(type="system", subtype="init", session_id="a")
    said = j(type="assistant", message={"content": [{"type": "text", "text": "working"}]}, session_id="a")
    code, err = follow(init_a + said, None, None)
    assert code == 1 and err.count("ended without a result") == 1, err
    done = j(type="result", subtype="success", is_error=False, result="done", session_id="a")
    code, err = follow(init_a + done, None, said, None)
    assert code == 1 and err.count("ended without a result") == 1, err


def test_json_follow_says_a_failed_run_the_file_started_over_after():
    """(The change above, reread.)  A failed run, then the file starting over and nothing more:
    the exit status said it failed, stderr did not."""
    from viewer.core.printer import make_printer
    from viewer.core.sources import LineSplitter

    out, err = io.StringIO(), io.StringIO()
    p = make_printer("json", out, err, follow=True)
    p.feed_lines(LineSplitter().feed(j(type="system", subtype="init", session_id="a")
                                     + j(type="result", subtype="error", is_error=True, result="quota", session_id="a")))
    p.restart()
    assert p.finish() == 1 and "the run failed: quota" in err.getvalue(), err.getvalue()


def test_text_mode_heads_only_what_it_prints_and_prints_every_runs_last_words(capsys, tmp_path):
    """(From a code review and a CI-user trial.)  A second run's init printed an empty
    "--- session 2 ---" at once, then "--- session 1 ---" for the first run's line; and what a
    run cut off without a result said last was lost unless its run was the input's last."""
    def say(sid: str, text: str) -> bytes:
        return j(type="assistant", session_id=sid, message={"content": [{"type": "text", "text": text}]})

    shell = {"shellToolCall": {"args": {"command": "make a"}}}
    done = {"shellToolCall": {"args": {"command": "make a"}, "result": {"success": {"exitCode": 0, "stdout": ""}}}}
    p = tmp_path / "two.ndjson"
    p.write_bytes(
        j(type="system", subtype="init", session_id="a", model="A")
        + j(type="system", subtype="init", session_id="b", model="B")
        + j(type="tool_call", subtype="started", call_id="c1", session_id="a", tool_call=shell)
        + j(type="tool_call", subtype="completed", call_id="c1", session_id="a", tool_call=done)
        + say("b", "B was here")  # (a run cut off: its words are not the input's last run's)
        + say("a", "A done")
        + j(type="result", subtype="success", is_error=False, result="A done", session_id="a"))
    code, out, err = run_main(capsys, str(p))
    assert out.splitlines() == ["Cursor · A · session a", "", "✓ Ran terminal command make a (exit 0)", "", "A done", "",
                                "✓ succeeded · 1 tool call", "", "--- session 2 ---", "Cursor · B · session b", "",
                                "B was here", "", "◌ ended without a result"], out
    assert code == 0 and "session 2 of 2: the run ended without a result" in err


def test_json_mode_with_stderr_closed_writes_only_json(h):
    """(From a CI-user trial.)  `--print --output-format json failed.ndjson 2>&-`: with no
    stderr, "the run failed: …" went to stdout, after the JSON (Python's print to a None file)."""
    cp = subprocess.run([sys.executable, "-m", "viewer", "--print", "--output-format", "json",
                         str(SAMPLES_DIR / "failed_run.ndjson")], stdout=subprocess.PIPE,
                        stdin=subprocess.DEVNULL, env=h.cli_env(), cwd=h.repo, timeout=20,
                        preexec_fn=lambda: os.close(2))
    assert cp.returncode == 1
    assert json.loads(cp.stdout)["is_error"] is True


def test_text_mode_says_what_runs_while_a_pipe_is_silent():
    """(From a CI-user trial.)  A 40 s test run printed nothing for 40 s in text mode, like a
    hung agent (some CI systems kill a job that prints nothing for a while)."""
    import io

    from viewer.core.printer import QUIET_EVERY, QUIET_FIRST, TextPrinter
    from viewer.core.sources import LineSplitter

    p = TextPrinter(out := io.StringIO(), io.StringIO())
    p.feed_lines(LineSplitter().feed(
        j(type="system", subtype="init", session_id=SID)
        + j(type="tool_call", subtype="started", call_id="c1", session_id=SID,
            tool_call={"shellToolCall": {"args": {"command": "make test"}}})))
    heard = p._heard
    p.idle(heard + QUIET_FIRST - 1)
    assert out.getvalue() == f"Cursor · session {SID}\n"  # (headed as it began: nothing quiet to say yet)
    p.idle(heard + QUIET_FIRST)
    p.idle(heard + QUIET_FIRST + 1)  # (said once per QUIET_EVERY)
    p.idle(heard + QUIET_FIRST + QUIET_EVERY)
    assert out.getvalue().splitlines() == [f"Cursor · session {SID}", "", "(no event for 30 s; running: Shell make test)",
                                           "(no event for 1m30s; running: Shell make test)"]


def test_text_mode_heads_a_run_and_quotes_its_prompt_as_they_come(h):
    """(From a trial: a live run's heading and prompt came only with its first call, or its
    first silence of 30 s: a CI log showed nothing for as long.)  Once the run is headed, its
    prompt is still said right under the heading."""
    import io

    from viewer.core.printer import TextPrinter
    from viewer.core.sources import LineSplitter

    p = TextPrinter(out := io.StringIO(), io.StringIO())
    split = LineSplitter()
    p.feed_lines(split.feed(j(type="system", subtype="init", session_id=SID, model="gpt-5", cwd="/w")))
    assert out.getvalue() == f"Cursor · gpt-5 · in /w · session {SID}\n"
    p.feed_lines(split.feed(j(type="user", session_id=SID, message={"content": [{"type": "text", "text": "fix it"}]})))
    assert out.getvalue().splitlines() == [f"Cursor · gpt-5 · in /w · session {SID}", "> fix it"]
    p.feed_lines(split.feed(j(type="tool_call", subtype="started", call_id="c1", session_id=SID,
                                tool_call={"shellToolCall": {"args": {"command": "make"}}})))
    p.feed_lines(split.feed(j(type="tool_call", subtype="completed", call_id="c1", session_id=SID,
                                tool_call={"shellToolCall": {"args": {"command": "make"},
                                                             "result": {"success": {"exitCode": 0}}}})))
    assert out.getvalue().splitlines()[2:] == ["", "✓ Ran terminal command make (exit 0)"]


def test_text_mode_speaks_up_during_a_silent_pipe_end_to_end(h):
    """The CLI asks the printer at each IDLE_TICK of a pipe's silence (here made short)."""
    agent = ("import sys, time\n"
             "sys.stdout.write(sys.argv[1]); sys.stdout.flush(); time.sleep(3)\n")
    start = (j(type="system", subtype="init", session_id=SID)
             + j(type="tool_call", subtype="started", call_id="c1", session_id=SID,
                 tool_call={"shellToolCall": {"args": {"command": "sleep 3"}}})).decode()
    code = ("import sys, viewer.cli as c, viewer.core.printer as p\n"
            "c.IDLE_TICK = 0.2; p.QUIET_FIRST = 1\n"
            "sys.argv = ['agent-viewer', '--print']\n"
            "c.main()\n")
    producer = subprocess.Popen([sys.executable, "-c", agent, start], stdout=subprocess.PIPE)
    try:
        cp = subprocess.run([sys.executable, "-c", code], stdin=producer.stdout, capture_output=True,
                            env=h.cli_env(), cwd=h.repo, timeout=20)
    finally:
        producer.kill()
        producer.wait()
    assert "(no event for 1 s; running: Shell sleep 3)" in cp.stdout.decode(), cp.stdout + cp.stderr


@pytest.mark.parametrize("fmt", ["text", "stream-json"])  # (json writes only at the end)
def test_a_cut_output_of_a_pipe_that_never_ends_stops_at_its_runs_result(h, fmt):
    """(From a review of the change before.)  Once a pipe was read on after its reader went,
    `tail -f run.ndjson | agent-viewer --print | head` never ended: the pipe is read on to its
    run's result, not for ever."""
    run = (SAMPLES_DIR / "failed_run.ndjson").read_bytes() * 200  # (more than a pipe holds)
    tail = ("import sys, time\ndata = sys.stdin.buffer.read()\nsys.stdout.buffer.write(data); sys.stdout.flush()\n"
            "while True:\n    time.sleep(1)\n")  # (tail -f: never ends, never writes again)
    with _viewer_behind(h, tail, run, fmt) as (_, viewer):
        assert viewer.stdout.read(1)
        viewer.stdout.close()
        _, err = viewer.communicate(timeout=15)
        assert viewer.returncode == 1 and b"the run failed" in err, err


def test_text_mode_tells_a_cut_off_runs_last_words_when_the_next_run_begins(capsys, tmp_path):
    """(From a review of this session's change.)  A run killed mid-way, then resumed: its last
    words came at the input's end, after the next run's answer (where `| tail -1` read them as
    the result), and never under --follow (Ctrl+C skips the end)."""
    def say(text: str) -> bytes:
        return j(type="assistant", session_id=SID, message={"content": [{"type": "text", "text": text}]})

    shell = {"shellToolCall": {"args": {"command": "pytest"}}}
    done = {"shellToolCall": {"args": {"command": "pytest"}, "result": {"success": {"exitCode": 0, "stdout": ""}}}}
    init = j(type="system", subtype="init", session_id=SID)
    p = tmp_path / "resumed.ndjson"
    p.write_bytes(init + j(type="tool_call", subtype="started", call_id="c1", session_id=SID, tool_call=shell)
                  + j(type="tool_call", subtype="completed", call_id="c1", session_id=SID, tool_call=done)
                  + say("Two tests fail, fixing them next.")
                  + init + say("All tests pass.")
                  + j(type="result", subtype="success", is_error=False, result="All tests pass.", session_id=SID))
    code, out, err = run_main(capsys, "--print", str(p))
    assert out.splitlines() == [f"Cursor · session {SID}", "", "✓ Ran terminal command pytest (exit 0)", "",
                                "Two tests fail, fixing them next.", "", "◌ ended without a result · 1 tool call",
                                "", "--- session 2 (resumed) ---", f"Cursor · session {SID}", "", "All tests pass.",
                                "", "✓ succeeded"], out
    assert code == 0


# -- --until-result: a log that ends with its run ------------------------------------------

_NEVER_ENDS = ("import sys, time\n"
               "data = sys.stdin.buffer.read(); time.sleep(1)\n"  # (the viewer reads from the first part)
               "for part in data.split(b'PAUSE\\n'):\n"
               "    sys.stdout.buffer.write(part); sys.stdout.flush(); time.sleep(0.1)\n"
               "while True:\n    time.sleep(1)\n")  # (tail -f: never ends, never writes again)


def _shell_run(sid: str, command: str, ok: bool = True) -> bytes:
    shell = {"shellToolCall": {"args": {"command": command}}}
    done = {"shellToolCall": {"args": {"command": command},
                              "result": {"success": {"exitCode": 0, "stdout": ""}}}}
    return (j(type="system", subtype="init", session_id=sid)
            + j(type="tool_call", subtype="started", call_id=f"{sid}-c", session_id=sid, tool_call=shell)
            + j(type="tool_call", subtype="completed", call_id=f"{sid}-c", session_id=sid, tool_call=done)
            + j(type="result", subtype="success" if ok else "error", is_error=not ok, result=f"{command} done",
                session_id=sid))


@pytest.mark.parametrize("fmt", ["text", "json", "stream-json"])
def test_until_result_ends_a_pipe_that_stays_open_with_the_runs_status(h, fmt):
    """(From a CI user's trial.)  `tail -f run.ndjson | agent-viewer --print` never ended, so a
    CI step that logs the agent's run hung after it.  --until-result ends with the run, with
    its status."""
    run = _shell_run("a", "make test", ok=False)
    with _viewer_behind(h, _NEVER_ENDS, run, fmt, "--until-result") as (_, viewer):
        out, err = viewer.communicate(timeout=15)
    assert viewer.returncode == 1, err
    assert b"make test" in out and b"Traceback" not in err


def test_until_result_waits_for_the_run_that_comes_next_without_a_pause(h):
    """A run's result is not the input's end when the next run follows at once (two runs in
    one log): it ends at the last run's result."""
    runs = _shell_run("a", "first") + _shell_run("b", "second") + b"PAUSE\n" + _shell_run("c", "third")
    with _viewer_behind(h, _NEVER_ENDS, runs, "text", "--until-result") as (_, viewer):
        out, err = viewer.communicate(timeout=15)
    assert viewer.returncode == 0, err
    assert [x for x in out.decode().splitlines() if "Ran" in x] == [
        "✓ Ran terminal command first (exit 0)", "✓ Ran terminal command second (exit 0)",
        "✓ Ran terminal command third (exit 0)"], out


def test_follow_until_result_ends_once_the_growing_file_has_its_result(tmp_path):
    """`agent > run.ndjson & agent-viewer --print --follow --until-result run.ndjson` ends
    when the agent's run does, where --follow went on for ever."""
    path = tmp_path / "run.ndjson"
    run = _shell_run("a", "pytest", ok=False).splitlines(keepends=True)
    path.write_bytes(b"".join(run[:2]))  # (the call runs)
    proc = viewer_process("--print", "--follow", "--until-result", str(path))
    try:
        output = ChildOutput(proc)
        time.sleep(1.0)
        assert proc.poll() is None  # a running call: it waits
        with open(path, "ab") as f:
            f.write(b"".join(run[2:]))
        out = output.until(lambda o: False, timeout=8)  # (to its end)
        assert proc.wait(timeout=8) == 1
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.communicate(timeout=10)
    assert b"Ran terminal command pytest (exit 0)" in out


def test_until_result_on_a_file_without_follow_is_refused_saying_what_to_add(capsys):
    """(From a trial.)  `--print --until-result run.ndjson` was accepted and did nothing: the
    file was read as it was, not on to its run's end."""
    code, out, err = run_main(capsys, "--print", "--until-result", str(SAMPLES_DIR / "demo_session.ndjson"))
    assert code == 2 and out == "" and "--until-result reads a file on to its run's end with --follow: add --follow" in err


def test_until_result_is_refused_for_the_tui(capsys, monkeypatch):
    """The TUI keeps a run on screen until q: the flag is said to be for --print."""
    monkeypatch.setattr(sys.stdout, "isatty", lambda: True)
    code, out, err = run_main(capsys, "--until-result", str(SAMPLES_DIR / "demo_session.ndjson"))
    assert code == 2 and "--until-result applies to --print" in err


def test_text_mode_speaks_up_when_a_followed_file_is_silent(h, tmp_path):
    """The silence line ("no event for 30 s; running: ...") was said for a pipe, not for a
    followed file: a long command in a CI log read as a hung agent there too."""
    path = tmp_path / "run.ndjson"
    path.write_bytes(_shell_run("a", "sleep 30").splitlines(keepends=True)[0]
                     + _shell_run("a", "sleep 30").splitlines(keepends=True)[1])
    code = ("import sys, viewer.cli as c, viewer.core.printer as p\n"
            "p.QUIET_FIRST = 1\n"
            f"sys.argv = ['agent-viewer', '--print', '--follow', {str(path)!r}]\n"
            "c.main()\n")
    proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            env=h.cli_env(), cwd=h.repo)
    try:
        out = ChildOutput(proc).until(b"(no event", timeout=10)
    finally:
        proc.kill()
        proc.communicate(timeout=10)
    assert b"(no event for 1 s; running: Shell sleep 30)" in out, out


def test_text_mode_does_not_print_an_answer_again_when_a_call_comes_after_the_result(capsys, tmp_path):
    """A run's answer is printed at its result; a call of the same session after it printed
    the answer again, as the text said before that call."""
    def say(text: str) -> bytes:
        return j(type="assistant", session_id=SID, message={"content": [{"type": "text", "text": text}]})

    shell = {"shellToolCall": {"args": {"command": "ls"}}}
    done = {"shellToolCall": {"args": {"command": "ls"}, "result": {"success": {"exitCode": 0, "stdout": ""}}}}
    p = tmp_path / "more-after-result.ndjson"
    p.write_bytes(j(type="system", subtype="init", session_id=SID) + say("Answer one.")
                  + j(type="result", subtype="success", is_error=False, result="Answer one.", session_id=SID)
                  + say("Checking once more.")
                  + j(type="tool_call", subtype="started", call_id="c9", session_id=SID, tool_call=shell)
                  + j(type="tool_call", subtype="completed", call_id="c9", session_id=SID, tool_call=done)
                  + say("Answer two.")
                  + j(type="result", subtype="success", is_error=False, result="Answer two.", session_id=SID))
    code, out, err = run_main(capsys, "--print", str(p))
    assert out.splitlines() == [f"Cursor · session {SID}", "", "Answer one.", "", "✓ succeeded", "", "Checking once more.", "",
                                "✓ Ran terminal command ls (exit 0)", "", "Answer two.", "", "✓ succeeded · 1 tool call"], out
    assert code == 0


def test_until_result_does_not_stop_while_the_next_runs_first_line_is_part_way_written(tmp_path):
    """(From a review.)  A finished run, then the first bytes of the next run's first line: it
    stopped at once, that line reported as malformed, with the first run's status."""
    path = tmp_path / "run.ndjson"
    second = _shell_run("b", "make", ok=False)
    path.write_bytes(_shell_run("a", "ls") + second[:20])
    proc = viewer_process("--print", "--follow", "--until-result", str(path))
    try:
        time.sleep(1.5)
        assert proc.poll() is None
        with open(path, "ab") as f:
            f.write(second[20:])
        out, err = proc.communicate(timeout=10)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 1 and b"malformed" not in err, err
    assert b"Ran terminal command make (exit 0)" in out


#: A Cursor run with another agent's message parts in it (Claude Code's): read as far as it goes.
PARTLY_READ = b"".join(orjson.dumps(x) + b"\n" for x in [
    {"type": "system", "subtype": "init", "apiKeySource": "login", "cwd": "/w", "session_id": "s1", "model": "m"},
    {"type": "assistant", "session_id": "s1", "message": {"role": "assistant", "content": [
        {"type": "tool_use", "id": "toolu_1", "name": "Bash", "input": {"command": "ls"}}]}},
    {"type": "user", "session_id": "s1", "message": {"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": "toolu_1", "content": "a.txt"}]}},
    {"type": "result", "subtype": "success", "is_error": False, "result": "done", "session_id": "s1"},
])


def test_text_mode_says_another_agents_stream_before_the_lines_it_explains(h, tmp_path):
    """(From a new user's trial.)  The note that a stream is another agent's came last, after
    a screen of "(unknown ...)" lines; it comes as soon as the stream is told, once."""
    path = tmp_path / "partly.ndjson"
    path.write_bytes(PARTLY_READ)
    first_unknown = b"(unknown at line 2:"
    cp = subprocess.run([sys.executable, "-m", "viewer", "--print", str(path)], stdout=subprocess.PIPE,
                        stderr=subprocess.STDOUT, env=h.cli_env(), cwd=h.repo, timeout=20, stdin=subprocess.DEVNULL)
    both = cp.stdout
    assert both.count(b"agent-viewer: note: this looks like a") == 1, both.decode()
    assert both.index(b"agent-viewer: note: this looks like a") < both.index(first_unknown), both.decode()
    assert b"as far as it goes" in both, both.decode()


def test_text_mode_says_whose_stream_it_is_again_after_a_followed_file_started_over():
    """(From a review.)  After a restart onto another agent's file, nothing was said of it."""
    import io

    from viewer.core.decode import Restart
    from viewer.core.printer import TextPrinter
    from viewer.core.sources import LineSplitter

    p = TextPrinter(io.StringIO(), err := io.StringIO())
    p.feed_lines(LineSplitter().feed(PARTLY_READ))
    p.handle(Restart(PARTLY_READ.count(b"\n")))
    p.feed_lines(LineSplitter().feed(PARTLY_READ))
    notes = [x for x in err.getvalue().splitlines() if "note: this looks like a Claude Code stream" in x]
    assert len(notes) == 2, err.getvalue()


@pytest.mark.parametrize(("sample", "code", "summary"), [
    # (why a run failed, too: stderr says it, but a log sent to a file kept only stdout)
    ("failed_run.ndjson", 1, "✗ failed in 1m42s · 4 tool calls (2 failed, 1 rejected) · ConnectError: [unavailable] "
                             "upstream connect error or disconnect/reset before headers. reset reason: connection "
                             "termination"),
    ("claude_code_run.ndjson", 0, "✓ succeeded in 13.2 s · 8 tool calls (1 failed) · 21 in / 672 out tokens · "
                                  "127,428 cache read · 2,884 cache write · $0.118"),
    ("demo_session.ndjson", 0, "✓ succeeded in 1m06s · 18 tool calls (1 failed) · 38,412 in / 4,987 out tokens · "
                               "612,864 cache read"),
    # (a run cut off said so only on stderr)
    ("truncated_run.ndjson", 1, "◌ ended without a result · 2 tool calls (1 unfinished)"),
    # (Codex's to-do list, ticked off three times, was counted as four calls: text mode let it go)
    ("codex_run.ndjson", 0, "✓ succeeded · 5 tool calls (1 failed) · 6,226 in / 1,874 out tokens · 41,984 cache read"),
])
def test_text_mode_ends_a_run_with_how_it_went_as_the_header_says_it(capsys, sample, code, summary):
    """A CI log said how each call went but not the run: whether it succeeded, how long it took,
    its calls that failed (text mode lets finished calls go: counted all the same), its tokens
    and what it cost."""
    got, out, err = run_main(capsys, "--print", str(SAMPLES_DIR / sample))
    assert got == code and out.splitlines()[-2:] == ["", summary], out


def test_text_mode_names_a_silent_runs_file_as_its_call_lines_do():
    """(From a CI-user trial.)  "(no event for 30 s; running: Read /home/dev/notes-app/README.md)",
    then "Read file README.md": the silence line named the file by its whole path."""
    from viewer.core.printer import QUIET_FIRST, TextPrinter
    from viewer.core.sources import LineSplitter

    p = TextPrinter(out := io.StringIO(), io.StringIO())
    p.feed_lines(LineSplitter().feed(
        j(type="system", subtype="init", session_id=SID, cwd="/home/dev/notes-app")
        + j(type="tool_call", subtype="started", call_id="c1", session_id=SID,
            tool_call={"readToolCall": {"args": {"path": "/home/dev/notes-app/README.md"}}})))
    p.idle(p._heard + QUIET_FIRST)
    assert out.getvalue().splitlines() == [f"Cursor · in /home/dev/notes-app · session {SID}", "",
                                           "(no event for 30 s; running: Read README.md)"]


def test_text_mode_heads_each_run_with_whose_it_is_and_quotes_each_prompt(capsys, tmp_path):
    """(From a CI-user trial.)  A log did not say what it was a run of: no agent, model,
    directory, session id (what ``--resume`` takes) nor prompt.  A later prompt of the same
    session (a next turn) is quoted where it came, and its answer is not printed with the
    previous turn's."""
    def say(text: str) -> bytes:
        return j(type="assistant", session_id=SID, message={"content": [{"type": "text", "text": text}]})

    def user(text: str) -> bytes:
        return j(type="user", session_id=SID, message={"content": [{"type": "text", "text": text}]})

    def done(text: str) -> bytes:
        return j(type="result", subtype="success", is_error=False, result=text, session_id=SID)

    long = "\n".join(f"line {i} [red]\x1b[2J" for i in range(10))
    p = tmp_path / "turns.ndjson"
    p.write_bytes(j(type="system", subtype="init", session_id=SID, model="gpt-5", cwd="/w")
                  + user(f"Fix it.\n\n{long}\n") + say("Fixed.") + done("Fixed.")
                  + user("And the docs?") + say("Done too.") + done("Done too."))
    code, out, err = run_main(capsys, "--print", str(p))
    assert code == 0 and out.splitlines() == [
        f"Cursor · gpt-5 · in /w · session {SID}", "> Fix it.", ">", "> line 0 [red]\\x1b[2J",
        "> line 1 [red]\\x1b[2J", "> line 2 [red]\\x1b[2J", "> line 3 [red]\\x1b[2J", "> … (6 more lines)", "",
        "Fixed.", "", "✓ succeeded", "", "> And the docs?", "", "Done too.", "", "✓ succeeded"], out


def test_text_mode_numbers_lines_of_a_followed_file_that_started_over_as_the_file_now_has_them():
    """(From a trial.)  `--print --follow` of a file truncated and written again said "(at line
    125: retry/starting …)" of a file of 88 lines: the lines read before it started over were
    counted in.  The TUI's detail says the file's own lines; so does the log now."""
    from viewer.core.printer import TextPrinter
    from viewer.core.sources import LineSplitter

    out, err = io.StringIO(), io.StringIO()
    p = TextPrinter(out, err, each_result=True)
    run = (j(type="system", subtype="init", session_id=SID) + j(type="retry", subtype="starting", attempt=1,
                                                                 session_id=SID) + b"not json\n")
    p.feed_lines(LineSplitter().feed(run + run))
    p.restart()  # (truncated, then written again)
    p.feed_lines(LineSplitter().feed(run))
    p.finish()
    said = out.getvalue().splitlines()
    assert [x.split(":")[0] for x in said if x.startswith("(at line")] == ["(at line 2", "(at line 5", "(at line 2"], said
    assert [x.split(": malformed")[0] for x in err.getvalue().splitlines() if "malformed line" in x] == [
        "agent-viewer: line 3", "agent-viewer: line 6", "agent-viewer: line 3"], err.getvalue()


def test_print_says_when_a_file_without_a_result_looks_still_written(capsys, tmp_path):
    """(From a trial.)  `--print` of a run the agent was still writing said only "the run ended
    without a result", where the TUI names the command that reads on."""
    p = tmp_path / "run.ndjson"
    p.write_bytes(SAMPLES_DIR.joinpath("demo_session.ndjson").read_bytes().splitlines(keepends=True)[0])
    code, out, err = run_main(capsys, "--print", "--output-format", "json", str(p))
    assert code == 1 and "the run ended without a result" in err
    assert re.search(r"the file may still be written \(it changed \d+ s before it was read\): agent-viewer --print "
                     rf"--output-format json --follow --until-result {re.escape(str(p))} reads on to the run's end",
                     err), err
    os.utime(p, (time.time() - 3600, time.time() - 3600))  # an hour old: a run cut off, not written
    code, out, err = run_main(capsys, "--print", str(p))
    assert code == 1 and "the run ended without a result" in err and "still be written" not in err, err
    p.write_bytes(SAMPLES_DIR.joinpath("demo_session.ndjson").read_bytes())  # (a run with its result)
    code, out, err = run_main(capsys, "--print", str(p))
    assert code == 0 and "still be written" not in err, err


def test_text_mode_says_each_turns_answer_once_when_a_later_turn_calls_a_tool(capsys, tmp_path):
    """(From a review.)  The text said before a call was told apart from what was said already
    by comparing lists of texts of different turns: an earlier turn's answer, and text said
    before a notice, were printed again at the next turn's first call."""
    def say(text: str) -> bytes:
        return j(type="assistant", session_id=SID, message={"content": [{"type": "text", "text": text}]})

    def prompt(text: str) -> bytes:
        return j(type="user", session_id=SID, message={"content": [{"type": "text", "text": text}]})

    done = j(type="result", subtype="success", is_error=False, result="ok", session_id=SID)
    args = {"command": "make docs"}
    p = tmp_path / "turns.ndjson"
    p.write_bytes(j(type="system", subtype="init", session_id=SID) + prompt("Fix it.") + say("Fixed.") + done
                  + prompt("And the docs?") + say("Looking at docs.")
                  + j(type="retry", subtype="starting", attempt=1, session_id=SID)
                  + j(type="tool_call", subtype="started", call_id="c1", session_id=SID,
                      tool_call={"shellToolCall": {"args": args}})
                  + j(type="tool_call", subtype="completed", call_id="c1", session_id=SID,
                      tool_call={"shellToolCall": {"args": args, "result": {"success": {"exitCode": 0}}}})
                  + say("Docs done.") + done)
    code, out, err = run_main(capsys, "--print", str(p))
    assert code == 0, err
    lines = out.splitlines()
    assert [lines.count(x) for x in ("Fixed.", "Looking at docs.", "Docs done.")] == [1, 1, 1], out
    order = [next(i for i, x in enumerate(lines) if x.startswith(w))
             for w in ("Fixed.", "> And the docs?", "Looking at docs.", "(at line 7: retry", "✓ Ran terminal command make docs",
                       "Docs done.")]
    assert order == sorted(order), out
