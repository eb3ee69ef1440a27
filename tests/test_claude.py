"""Claude Code's stream-json, read in its own format (viewer.core.formats.claude): what a
user sees of its messages, calls and results, in the model, --print and the detail view."""

from __future__ import annotations

import io

import orjson
import pytest

from viewer.core.detail import NO_RESULT, call_sections
from viewer.core.formats import claude, detect, detect_head, get_format
from viewer.core.model import Change

SID = "db770ce2-618e-4385-94de-98d5ef2f9613"


def j(**fields) -> bytes:
    return orjson.dumps({**fields, "session_id": SID}) + b"\n"


def init() -> bytes:
    return j(type="system", subtype="init", cwd="/w", model="claude-opus-5", permissionMode="default",
             apiKeySource="none", tools=["Bash", "Read"], claude_code_version="2.1.224")


def assistant(*parts, mid="msg_1", parent=None) -> bytes:
    return j(type="assistant", message={"id": mid, "model": "claude-opus-5", "role": "assistant",
                                        "content": list(parts)}, parent_tool_use_id=parent)


def use(cid, name, **args) -> dict:
    return {"type": "tool_use", "id": cid, "name": name, "input": args}


def results(*parts, sidecar=None, ts="2026-08-14T02:08:08.711Z", parent=None) -> bytes:
    extra = {} if sidecar is None else {"tool_use_result": sidecar}
    return j(type="user", message={"role": "user", "content": list(parts)}, timestamp=ts,
             parent_tool_use_id=parent, **extra)


def res(cid, content, is_error=False) -> dict:
    return {"type": "tool_result", "tool_use_id": cid, "content": content, "is_error": is_error}


def delta(text, kind="text_delta", key="text") -> bytes:
    return j(type="stream_event", event={"type": "content_block_delta", "index": 0,
                                         "delta": {"type": kind, key: text}})


def result(text="done", is_error=False, subtype="success") -> bytes:
    return j(type="result", subtype=subtype, is_error=is_error, duration_ms=40, duration_api_ms=30,
             result=text, usage={"input_tokens": 2, "cache_creation_input_tokens": 10,
                                 "cache_read_input_tokens": 500, "output_tokens": 7})


TEXT = {"type": "text", "text": "I will look at both files."}


def test_one_message_with_text_and_two_calls_is_three_entries_and_two_calls(h):
    """A message may hold text and several calls side by side; a user message, the results of
    several: each is its own entry, and each result ends its own call."""
    data = (init() + assistant(TEXT, use("t1", "Read", file_path="/w/a.py"), use("t2", "Read", file_path="/w/b.py"))
            + results(res("t2", "     1\u2192b = 2\n"), res("t1", "Error: no such file", is_error=True))
            + result())
    m, recs, _ = h.model_of(data, end=False)
    (s,) = m.sessions
    assert [b.kind for b in s.blocks] == ["assistant", "tool", "tool", "result"]
    assert s.blocks[0].text == "I will look at both files."
    a, b = s.tools
    assert (a.call_id, a.target, a.status, a.error_text) == ("t1", "/w/a.py", "failed", "Error: no such file")
    assert (b.call_id, b.target, b.status) == ("t2", "/w/b.py", "success")
    assert a.start_line == b.start_line == 2 and a.end_line == b.end_line == 3


SUB_AGENT = (
    init() + assistant(use("t1", "Task", description="Find uses", prompt="Find every use of X"), mid="m1")
    + j(type="user", message={"role": "user", "content": [{"type": "text", "text": "Find every use of X"}]},
        parent_tool_use_id="t1")
    # the sub-agent's own messages while its Task runs
    + assistant({"type": "text", "text": "Looking in **both** files."}, mid="m2", parent="t1")
    + assistant(use("r1", "Read", file_path="/a"), mid="m2", parent="t1")
    + assistant(use("r2", "Read", file_path="/b"), mid="m2", parent="t1")  # (a line per part, one message)
    + results(res("r1", "a"), res("r2", "b"), parent="t1")
    + assistant({"type": "text", "text": "X is used twice."}, mid="m3", parent="t1")
    + results(res("t1", "X is used twice."))
    + assistant({"type": "text", "text": "The sub-agent found two uses."}, mid="m4")
    + result("The sub-agent found two uses."))


def test_calls_of_one_message_ran_side_by_side_but_a_sub_agents_calls_are_not_its_peers(h):
    (s,) = h.model_of(SUB_AGENT)[0].sessions
    assert [t.call_id for t in s.tools] == ["t1", "r1", "r2"]
    assert [t.group for t in s.tools] == [0, 1, 1]


def test_a_sub_agents_calls_and_words_are_shown_under_its_task(h):
    m = h.model_of(SUB_AGENT)[0]
    (s,) = m.sessions
    task, r1, r2 = s.tools
    assert (task.parent, r1.parent, r2.parent) == ("", "t1", "t1")
    assert s.subcalls == {"t1": 2} and s.subcalls_of(task) == [r1, r2] and s.parent_of(r1) is task
    assert s.subcalls_of(r1) == [] and s.parent_of(task) is None
    assert all(t.status == "success" for t in s.tools)
    # Its words are entries of their own, under the Task, not the agent's text.
    entries = [(b.kind, b.text, b.ref) for b in s.blocks if b.kind in ("assistant", "subagent")]
    assert entries == [("subagent", "Looking in **both** files.", 0), ("subagent", "X is used twice.", 0),
                       ("assistant", "The sub-agent found two uses.", -1)]
    assert s.final_texts() == ["The sub-agent found two uses."]
    assert m.unknown_events == 0


def test_a_sub_agents_calls_are_its_tasks_when_the_task_comes_after_them(h):
    """(From a review.)  Joined while a sub-agent ran, the Task is read only from its result,
    after its sub-agent's calls: they are still its."""
    data = (init() + assistant(use("r1", "Read", file_path="/a"), mid="m2", parent="t1")
            + results(res("r1", "a"), parent="t1") + results(res("t1", "found")) + result())
    (s,) = h.model_of(data)[0].sessions
    r1, task = s.tools
    assert task.call_id == "t1" and s.subcalls_of(task) == [r1] and s.parent_of(r1) is task


def test_text_mode_names_the_task_of_a_sub_agents_message_that_also_starts_a_call(capsys):
    """(From a review.)  Text mode lets go of finished calls as the next one starts: a
    sub-agent's words in the same message kept the number of a call that had moved, and were
    said to be another call's ("sub-agent · ls -la")."""
    from viewer.core.printer import TextPrinter
    from viewer.core.sources import Ingest

    data = (init() + assistant(use("t0", "Task", description="Alpha task", prompt="a"), mid="m1")
            + assistant(use("t1", "Task", description="Beta task", prompt="b"), mid="m1")
            + results(res("t0", "alpha done"))
            + assistant({"type": "text", "text": "Looking around now."}, use("s1", "Bash", command="ls -la"),
                        mid="a1", parent="t1")
            + results(res("s1", "files"), parent="t1") + results(res("t1", "beta done")) + result("ok"))
    out, err = io.StringIO(), io.StringIO()
    printer, ingest = TextPrinter(out, err), Ingest()
    for rec in [*ingest.feed(data), *ingest.close()]:
        printer.handle(rec)
    printer.close()
    assert "(sub-agent · Beta task, at line 5: Looking around now.)" in out.getvalue(), out.getvalue()


def test_a_sub_agents_thought_is_under_its_task_not_the_agents(h):
    data = (init() + assistant(use("t1", "Task", description="Find", prompt="p"), mid="m1")
            + delta("Let me ", kind="thinking_delta", key="thinking")  # (the agent's own, still open)
            + assistant({"type": "thinking", "thinking": "Its own thought", "signature": "x"}, mid="a1", parent="t1")
            + results(res("t1", "done")) + result("ok"))
    (s,) = h.model_of(data)[0].sessions
    assert [(b.text, b.ref) for b in s.blocks if b.kind == "thinking"] == [("Let me ", -1), ("Its own thought", 0)]


def test_a_sub_agents_partial_text_waits_for_its_whole_message(h):
    """With --include-partial-messages a sub-agent's deltas would run into the agent's own open
    text: they are counted, and its whole message is shown under its Task."""
    sub_delta = j(type="stream_event", event={"type": "content_block_delta", "index": 0,
                                               "delta": {"type": "text_delta", "text": "Look"}},
                  parent_tool_use_id="t1")
    data = (init() + assistant(use("t1", "Task", description="Find uses"), mid="m1") + delta("I ")
            + sub_delta + assistant({"type": "text", "text": "Looking."}, mid="m2", parent="t1")
            + delta("wait.") + results(res("t1", "done")) + result())
    (s,) = h.model_of(data)[0].sessions
    assert [(b.kind, b.text) for b in s.blocks if b.kind in ("assistant", "subagent")] == [
        ("assistant", "I "), ("subagent", "Looking."), ("assistant", "wait.")]


def test_text_mode_prints_a_sub_agents_words_as_its_own(tmp_path, capsys):
    from viewer.cli import main

    p = tmp_path / "sub.ndjson"
    p.write_bytes(SUB_AGENT)
    with pytest.raises(SystemExit) as end:
        main(["--print", str(p)])
    assert end.value.code == 0
    out = capsys.readouterr().out
    assert "(prompt to the sub-agent · Find uses, at line 3: Find every use of X)" in out
    assert "(sub-agent · Find uses, at line 4: Looking in **both** files.)" in out
    assert "\n↳ ✓ Read file /a (under Find uses)\n↳ ✓ Read file /b (under Find uses)\n" in out
    assert "\n✓ Ran subagent Find uses\n" in out
    assert out.rstrip().endswith("The sub-agent found two uses.\n\n✓ succeeded in 40 ms · 3 tool calls · "
                                 "2 in / 7 out tokens · 500 cache read · 10 cache write")


#: Two sub-agents at once, their messages interleaved (from a Claude Code user's trial).
TWO_SUB_AGENTS = (
    init() + assistant(use("ta", "Task", description="Audit coupons", prompt="a"),
                       use("tb", "Task", description="Audit tax", prompt="b"), mid="m1")
    + assistant({"type": "thinking", "thinking": "tax.py has it"}, mid="m2", parent="tb")
    + assistant(use("r1", "Read", file_path="/w/tax.py"), mid="m2", parent="tb")
    + assistant(use("g1", "Grep", pattern="coupon", path="/w"), mid="m3", parent="ta")
    + results(res("r1", "x"), parent="tb") + results(res("g1", "y"), parent="ta")
    + results(res("tb", "tax ok")) + results(res("ta", "coupons ok"))
    + assistant({"type": "text", "text": "Both audits are done."}, mid="m4") + result("Both audits are done."))


def test_text_mode_names_the_task_of_each_sub_agents_call(tmp_path, capsys):
    """(From a Claude Code user's trial.)  With two sub-agents at once their calls read "↳ Read
    file …" alike; each now says whose it is."""
    from viewer.cli import main

    p = tmp_path / "two.ndjson"
    p.write_bytes(TWO_SUB_AGENTS)
    with pytest.raises(SystemExit) as end:
        main(["--print", str(p)])
    assert end.value.code == 0
    out = capsys.readouterr().out.splitlines()
    assert "↳ ✓ Read file tax.py (under Audit tax)" in out and "↳ ✓ Grepped coupon in . (under Audit coupons)" in out, out


def test_the_delta_of_an_event_of_several_actions_names_each_call(h):
    """The view redraws what a delta names: both calls a message starts, and both its results end."""
    from viewer.core.model import StreamModel

    recs, _ = h.decode(init() + assistant(use("t1", "Bash", command="ls"), use("t2", "Bash", command="pwd"))
                       + results(res("t1", "a"), res("t2", "/w")))
    m = StreamModel()
    deltas = [m.apply(r) for r in recs]
    assert [d.tool for d in deltas[1].each()] == [0, 1]
    assert deltas[1].flags & Change.TOOLS and deltas[1].flags & Change.TRANSCRIPT
    assert [d.tool for d in deltas[2].each()] == [0, 1]
    assert [t.status for t in m.sessions[0].tools] == ["success", "success"]


def test_text_mode_says_every_call_of_a_message(h, tmp_path):
    from viewer.core.printer import TextPrinter
    from viewer.core.sources import LineSplitter

    data = (init() + assistant(use("t1", "Bash", command="make"), use("t2", "Grep", pattern="TODO", path="/w/src"))
            + results(res("t1", "Exit code 2\nmake: *** [all] Error 2", is_error=True), res("t2", "a.py:3: TODO"))
            + result())
    p = TextPrinter(out := io.StringIO(), io.StringIO())
    p.feed_lines(LineSplitter().feed(data))
    assert p.close() == 0
    lines = out.getvalue().splitlines()
    assert lines[0].startswith("Claude Code · claude-opus-5 · in /w · session "), lines  # (whose run)
    assert lines[2] == "✗ Ran terminal command make (exit 2; make: *** [all] Error 2)", lines
    assert lines[3].startswith("✓ Grepped TODO in src"), lines


def test_partial_messages_stream_into_one_entry_that_the_whole_message_replaces(h):
    """--include-partial-messages: the text grows delta by delta; the whole message that
    follows is the same text, not a second copy."""
    data = init() + delta("The quick") + delta(" brown fox.")
    m, _, _ = h.model_of(data, end=False)
    (b,) = m.sessions[0].blocks
    assert (b.kind, b.text, b.open) == ("assistant", "The quick brown fox.", True)
    m, _, _ = h.model_of(data + assistant({"type": "text", "text": "The quick brown fox."}) + result("The quick brown fox."))
    kinds = [(b.kind, b.text) for b in m.sessions[0].blocks]
    assert kinds == [("assistant", "The quick brown fox."), ("result", "")], kinds


def test_thinking_deltas_and_the_whole_thought_are_one_thought(h):
    data = (init() + delta("Let me", "thinking_delta", "thinking") + delta(" think.", "thinking_delta", "thinking")
            + assistant({"type": "thinking", "thinking": "Let me think.", "signature": "EpAC" * 40}))
    m, _, _ = h.model_of(data, end=False)
    (b,) = m.sessions[0].blocks
    assert (b.kind, b.text, b.open) == ("thinking", "Let me think.", False)
    # A thought that came whole, without deltas (no partial messages), is one too.
    m, _, _ = h.model_of(init() + assistant({"type": "thinking", "thinking": "Hmm.", "signature": "x"}), end=False)
    (b,) = m.sessions[0].blocks
    assert (b.kind, b.text, b.open) == ("thinking", "Hmm.", False)


def test_progress_events_are_counted_not_shown_and_others_are_shown(h):
    """Hooks that went well, the partial stream's frames and an allowed rate limit are
    progress: counted (the health screen), not entries.  A failed hook, a refused rate limit
    and an event type nobody knows are shown.  (Token estimates: see the next test.)"""
    quiet = (j(type="system", subtype="hook_started", hook_name="SessionStart:startup")
             + j(type="system", subtype="hook_response", hook_name="SessionStart:startup", exit_code=0,
                 outcome="success", stdout="", stderr="")
             + init() + j(type="system", subtype="status", status="requesting")
             + j(type="stream_event", event={"type": "message_start", "message": {}})
             + j(type="rate_limit_event", rate_limit_info={"status": "allowed"}))
    shown = (j(type="system", subtype="hook_response", hook_name="PreToolUse", exit_code=1, outcome="error",
               stderr="lint failed")
             + j(type="rate_limit_event", rate_limit_info={"status": "rejected", "resetsAt": 1786689600})
             + j(type="brand_new_event", detail="x"))
    m, _, _ = h.model_of(quiet + shown, end=False)
    (s,) = m.sessions
    assert m.events == 9 and sum(m.event_types.values()) == 9
    texts = [(b.kind, b.text) for b in s.blocks]
    assert [k for k, _ in texts] == ["notice", "alert", "unknown"], texts
    assert "stderr=lint failed" in texts[0][1] and "status=rejected" in texts[1][1]
    assert "uuid" not in texts[0][1]
    assert m.unknown_types == 1 and m.other_agent == ""


def test_thinking_token_estimates_show_the_agent_thinking_until_its_thought_comes(h):
    """(From a live-watching trial.)  While Claude Code thought, the screen stayed blank (the
    stream sends only token estimates then): a Cursor run shows "✻ Thinking…"."""
    thinks = j(type="system", subtype="thinking_tokens", estimated_tokens=50, estimated_tokens_delta=50)
    m, _, _ = h.model_of(init() + thinks + thinks, end=False)
    (b,) = m.sessions[0].blocks
    assert (b.kind, b.text, b.open) == ("thinking", "", True)  # (drawn as "✻ Thinking…")
    m, _, _ = h.model_of(init() + thinks + assistant({"type": "thinking", "thinking": "Hmm.", "signature": "x"})
                         + assistant(TEXT), end=False)
    assert [(b.kind, b.text, b.open) for b in m.sessions[0].blocks] == [
        ("thinking", "Hmm.", False), ("assistant", TEXT["text"], False)]
    assert m.events == 4 and m.event_types["system"] == 2


def test_a_failed_result_and_its_tokens(h):
    m, _, _ = h.model_of(init() + result("API Error: 529 overloaded", is_error=True))
    r = m.sessions[0].result
    assert r.failed and r.text == "API Error: 529 overloaded"
    # (Cache writes are counted apart, as Cursor's are: they were added to the input.)
    assert (r.tokens.input, r.tokens.output, r.tokens.cache_read, r.tokens.cache_write) == (2, 7, 500, 10)
    m, _, _ = h.model_of(init() + j(type="result", subtype="error_max_turns", is_error=False, errors=["max turns"]))
    assert m.sessions[0].result.failed and m.sessions[0].result.text == "max turns"
    # (From a trial: with no words of its own, the reason read "error_max_turns" in a CI log.)
    m, _, _ = h.model_of(init() + j(type="result", subtype="error_max_turns", is_error=True, num_turns=3))
    assert m.sessions[0].result.text == "it reached its turn limit (error_max_turns)"
    m, _, _ = h.model_of(init() + j(type="result", subtype="error_brand_new", is_error=True, num_turns=3))
    assert m.sessions[0].result.failed and m.sessions[0].result.text == ""  # (its subtype says it, as before)


def _sections(started: bytes, completed: bytes | None, call_id: str):
    fmt = get_format("claude")
    return [(s.title, s.kind, s.body) for s in fmt.tool_sections(
        orjson.loads(started), orjson.loads(completed) if completed else None, call_id)]


def test_the_detail_of_a_call_shows_its_own_arguments_and_result():
    started = assistant(use("t1", "Read", file_path="/w/a.py"), use("t2", "Bash", command="ls -l", description="List"))
    done = results(res("t1", "     1\u2192x = 1\n     2\u2192y = 2"), res("t2", "total 0"))
    assert _sections(started, done, "t1") == [("/w/a.py", "code", "x = 1\ny = 2")]  # (no line numbers)
    assert _sections(started, done, "t2") == [("Command", "code", "ls -l"), ("Description", "text", "List"),
                                              ("Output", "terminal", "total 0")]
    # Without its result, the events' sections alone: why there is none is the call's status's
    # to say (viewer.core.detail.call_sections: test_model's test of a call without a result).
    assert _sections(started, None, "t2") == [("Command", "code", "ls -l"), ("Description", "text", "List")]


def test_the_detail_of_an_edit_is_a_diff_and_a_commands_output_is_its_own():
    started = assistant(use("e1", "Edit", file_path="/w/a.py", old_string="x = 1\n", new_string="x = 2\n"))
    (title, kind, body), said = _sections(started, results(res("e1", "The file has been updated.")), "e1")
    assert (title, kind) == ("Diff", "diff") and "-x = 1\n+x = 2\n" in body and "+++ b/w/a.py" in body
    assert said == ("Result", "text", "The file has been updated.")
    started = assistant(use("b1", "Bash", command="make"))
    done = results(res("b1", "built"), sidecar={"stdout": "built\n", "stderr": "warning: x\n", "interrupted": False})
    assert _sections(started, done, "b1")[1:] == [("stdout", "terminal", "built\n"), ("stderr", "terminal", "warning: x\n")]
    assert get_format("claude").copy_text(orjson.loads(started), None, "b1") == "make"


def test_every_print_mode_ends_with_a_failed_runs_status(tmp_path, capsys):
    from viewer.cli import main

    path = tmp_path / "failed.ndjson"
    path.write_bytes(init() + result("Invalid API key · Please run /login", is_error=True))
    for fmt in ("text", "json", "stream-json"):
        with pytest.raises(SystemExit) as exc:
            main(["--print", "--output-format", fmt, str(path)])
        err = capsys.readouterr().err
        assert exc.value.code == 1 and "Invalid API key" in err, (fmt, err)


def test_the_format_is_told_by_the_first_event_that_can_tell():
    assert detect(orjson.loads(j(type="system", subtype="hook_started"))) is claude
    assert detect(orjson.loads(init())) is claude
    assert detect(orjson.loads(delta("x"))) is claude
    assert detect(orjson.loads(j(type="system", subtype="init", apiKeySource="login", cwd="/w"))).NAME == "cursor"
    assert detect({"type": "result", "subtype": "success"}) is None  # (alike in both)
    assert detect({"type": "item.completed"}).NAME == "codex"
    head = b"not json\n" + j(type="result", subtype="success") + init()
    assert detect_head(head) is claude and detect_head(b"garbage\n") is None


def test_a_big_claude_code_file_is_read_alike_by_worker_processes(tmp_path, h):
    """Worker processes interpret a big file's events in the format its start tells: one of
    several actions travels as well as one."""
    from tests.test_parallel import same_as_one_process

    calls = b"".join(assistant(TEXT, use(f"a{i}", "Bash", command=f"echo {i}"), use(f"b{i}", "Read", file_path=f"/w/{i}"))
                     + results(res(f"a{i}", str(i)), res(f"b{i}", "x")) for i in range(200))
    path = tmp_path / "big.ndjson"
    path.write_bytes(init() + calls + result())
    feed = same_as_one_process(path, segment=len(calls) // 5, first=len(calls) // 9)
    assert feed.format_name == "claude" and feed.workers == 2 and feed.segments_taken >= 1


def test_a_replay_plays_a_claude_code_run_by_its_own_clock():
    """Its tool results carry ISO times: a command that took 2 s plays as 2 s (the Cursor
    format, which the replay started in, reads no time from them)."""
    from tests.test_replay import _file_index

    data = (init() + assistant(use("t1", "Bash", command="sleep 2"))
            + results(res("t1", ""), ts="2026-08-14T02:08:08.000Z")
            + assistant(use("t2", "Bash", command="true"))
            + results(res("t2", ""), ts="2026-08-14T02:08:10.000Z") + result())
    idx = _file_index(data)
    idx.read()
    assert idx.times[4] - idx.times[2] == pytest.approx(2.0), list(idx.times)


def test_a_result_that_repeats_the_last_message_is_not_called_different(h):
    """Claude Code's result text is its last message, where Cursor's joins them all: a run
    of several messages said "result text differs from transcript" and showed it twice."""
    data = (init() + assistant({"type": "text", "text": "First I look."}) + assistant(use("t1", "Bash", command="ls"))
            + results(res("t1", "a")) + assistant({"type": "text", "text": "Done: one file."}, mid="msg_2")
            + result("Done: one file."))
    m, _, _ = h.model_of(data)
    s = m.sessions[0]
    assert not s.result_mismatch and s.blocks[-1].kind == "result" and s.blocks[-1].text == ""
    assert s.result_text == "Done: one file."
    m, _, _ = h.model_of(data.replace(b'"result":"Done: one file."', b'"result":"Something else."'))
    assert m.sessions[0].result_mismatch and m.sessions[0].blocks[-1].text == "Something else."


def test_an_edit_of_lines_without_their_newline_is_a_diff_of_lines():
    """(From a new user's trial.)  Claude Code's old_string and new_string rarely end in a
    newline: the removed and the added line were drawn as one ("-old+new"), and a MultiEdit's
    next header was glued on too."""
    started = assistant(use("m1", "MultiEdit", file_path="/w/a.py", edits=[
        {"old_string": "x = 1", "new_string": "x = 2"}, {"old_string": "y = 1", "new_string": "y = 3"}]))
    (_, _, body), said = _sections(started, results(res("m1", "Applied 2 edits:\n     1\u2192x = 2")), "m1")
    assert "\n-x = 1\n+x = 2\n--- a/w/a.py\n" in body and body.endswith("\n-y = 1\n+y = 3\n"), body
    assert said == ("Result", "text", "Applied 2 edits:\nx = 2")  # (its "cat -n" numbers left out)


def test_a_refused_call_reads_rejected_whatever_the_wording():
    """(From a new user's trial.)  "Permission to use Bash with command npm test has been
    denied." read as a failed call."""
    for said in ("Permission to use Bash with command npm test has been denied.",
                 "Claude requested permissions to write to /w/x, but you haven't granted it yet.",
                 "The user doesn't want to proceed with this tool use."):
        m, _, _ = h_model(init() + assistant(use("t1", "Bash", command="npm test"))
                          + results(res("t1", said, is_error=True)))
        assert m.sessions[0].tools[0].status == "rejected", said
    m, _, _ = h_model(init() + assistant(use("t1", "Bash", command="npm test"))
                      + results(res("t1", "Exit code 1\nFAIL", is_error=True)))
    assert m.sessions[0].tools[0].status == "failed"


def h_model(data: bytes):
    from tests.conftest import model_of

    return model_of(data, end=False)


def test_what_the_header_and_the_list_say_of_a_claude_code_run():
    """(From a new user's trial.)  The list named Bash "Shell" and Task "Agent"; the header read
    "key none" for a subscription's login, as if the run had no key."""
    m, _, _ = h_model(init() + assistant(use("t1", "Bash", command="ls"), use("t2", "Task", description="Find uses"),
                                         use("t3", "mcp__github__get_issue", number=3)))
    assert [(t.short, t.label, t.target) for t in m.sessions[0].tools] == [
        ("Bash", "Ran terminal command", "ls"), ("Task", "Ran subagent", "Find uses"),
        ("MCP", "Called MCP tool", "github: get_issue")]
    assert m.sessions[0].init.api_key_source == ""


def test_a_sub_agents_prompt_is_not_the_users():
    """(From a new user's trial.)  The main agent's prompt to a sub-agent (a user message with
    parent_tool_use_id) was shown as "› You"."""
    prompt = j(type="user", message={"role": "user", "content": [{"type": "text", "text": "Find every use of X"}]},
               parent_tool_use_id="t2")
    m, _, _ = h_model(init() + assistant(use("t2", "Task", description="Find uses", prompt="Find every use of X"))
                      + prompt)
    kinds = [(b.kind, b.text, b.ref) for b in m.sessions[0].blocks]
    assert kinds == [("tool", "", 0), ("subprompt", "Find every use of X", 0)], kinds  # (under call 0)
    assert m.unknown_events == 0 and not m.sessions[0].notices


def test_a_server_tools_result_in_the_same_message_ends_its_call():
    """(From a new user's trial.)  A built-in web search's result comes in the message that
    called it: the call read "unfinished" and its result "unknown"."""
    m, _, _ = h_model(init() + assistant(
        {"type": "server_tool_use", "id": "srv_1", "name": "web_search", "input": {"query": "express session"}},
        {"type": "web_search_tool_result", "tool_use_id": "srv_1", "content": [
            {"type": "web_search_result", "url": "https://expressjs.com", "title": "Express"}]},
        {"type": "text", "text": "Found it."}))
    (t,) = m.sessions[0].tools
    assert (t.short, t.target, t.status) == ("web_search", "express session", "success")
    assert m.unknown_events == 0


def test_an_api_error_says_error_not_success(tmp_path, capsys):
    """(From a new user's trial.)  Claude Code reports an API error as subtype "success" with
    is_error: the transcript read "✗ Run failed (success)"."""
    from viewer.cli import main
    from viewer.ui.widgets.transcript import Transcript

    m, _, _ = h_model(init() + j(type="result", subtype="success", is_error=True, result=""))
    assert Transcript._result_line(m.sessions[0]).plain == "✗ Run failed (error)"
    path = tmp_path / "e.ndjson"
    path.write_bytes(init() + j(type="result", subtype="success", is_error=True, result=""))
    for fmt in ("text", "json"):
        with pytest.raises(SystemExit):
            main(["--print", "--output-format", fmt, str(path)])
        err = capsys.readouterr().err
        assert "the run failed: error" in err and "success" not in err, err


def test_text_mode_says_each_result_of_a_message_that_ends_several_calls(tmp_path):
    """(From a review.)  Without history (text mode), a call an action starts lets go of the
    finished ones and renumbers the rest: a message ending two calls it had not seen start
    said the second twice, and one ending three crashed (IndexError)."""
    from viewer.core.printer import TextPrinter
    from viewer.core.sources import LineSplitter

    data = (init() + assistant(use("t1", "Bash", command="echo 1")) + assistant(use("t2", "Bash", command="echo 2"))
            + results(res("t2", "B"), res("t9", "?"), res("t1", "A", is_error=True))
            + results({"type": "future_part", "x": 1}, res("t8", "zz")) + result())
    p = TextPrinter(out := io.StringIO(), io.StringIO())
    p.feed_lines(LineSplitter().feed(data))
    p.close()
    lines = [x for x in out.getvalue().splitlines() if x][1:]  # (under the run's heading)
    assert lines[:3] == ["✓ Ran terminal command echo 2", "✓ Tool call",
                         "✗ Ran terminal command echo 1 (failed: error; A)"], lines
    assert lines[3].startswith("(unknown at line 5: user content future_part:") and lines[4] == "✓ Tool call", lines


def test_a_file_of_a_claude_code_run_then_a_cursor_run_reads_each_in_its_format(h, tmp_path, capsys):
    """(From a review.)  Once told, the format never changed: a Cursor run after a Claude Code
    one (two logs joined with cat) was read as Claude Code's, every event unknown."""
    from tests.conftest import real_capture
    from viewer.cli import main

    cl = real_capture("maestro__02_tool_use_allowed.ndjson", "claude")
    cu = real_capture("maestro__02_shell_tool_call.ndjson")
    for data, names in ((cl + cu, ["claude", "cursor"]), (cu + cl, ["cursor", "claude"])):
        m, _, _ = h.model_of(data)
        assert [m.format_of(s).NAME for s in m.sessions] == names
        assert m.unknown_events == 0 and m.other_agent == ""
        assert all(t.status == "success" for s in m.sessions for t in s.tools) and all(s.tools for s in m.sessions)
        path = tmp_path / "both.ndjson"
        path.write_bytes(data)
        for fmt in ("text", "json"):
            with pytest.raises(SystemExit) as exc:
                main(["--print", "--output-format", fmt, str(path)])
            out, err = capsys.readouterr()
            assert exc.value.code == 0 and "looks like" not in err and "unknown" not in out, (names, fmt, out, err)


def test_what_tells_the_format_and_what_does_not():
    """Cursor writes system/task_notification too: it does not make a Cursor stream Claude
    Code's (every tool_call after it read as unknown).  A file's start with only another
    agent's events is read in that agent's format, as the model reads it; with nothing that
    tells, no worker process starts (it would read in a format the model may not)."""
    assert detect({"type": "system", "subtype": "task_notification", "task_id": "1"}) is None
    assert detect_head(b'{"type":"item.completed","item":{}}\n').NAME == "codex"
    assert detect_head(b'{"type":"user","message":{"role":"user","content":"hi"}}\n') is None


def test_no_worker_process_reads_a_file_whose_start_does_not_tell_its_format(tmp_path):
    from viewer.core.feed import FileFeed

    path = tmp_path / "late.ndjson"
    prompt = j(type="user", message={"role": "user", "content": "x" * (1 << 20)})
    path.write_bytes(prompt + init() + b"".join(assistant(use(f"t{i}", "Bash", command="ls")) for i in range(3000)))
    feed = FileFeed(str(path), workers=2, segment=1 << 16, first=1 << 16, min_parallel=0)
    feed.gather_runs(get_format())
    feed.prepare()
    try:
        assert feed.workers == 0
    finally:
        feed.stop()
    path.write_bytes(init() + prompt + b"".join(assistant(use(f"t{i}", "Bash", command="ls")) for i in range(3000)))
    feed = FileFeed(str(path), workers=2, segment=1 << 16, first=1 << 16, min_parallel=0)
    feed.gather_runs(get_format())
    feed.prepare()
    try:
        assert feed.workers == 2 and feed.format_name == "claude"
    finally:
        feed.stop()


def test_a_replay_stops_at_calls_and_failures_inside_a_message_of_several_actions():
    """(From a review.)  The replay's next-call and next-error stops looked at an event's one
    action: a message's text and calls, or results one of which failed, were skipped."""
    from tests.test_replay import _file_index
    from viewer.core.replay import ERROR, TOOL_START

    data = (init() + assistant(TEXT, use("t1", "Bash", command="a"), use("t2", "Bash", command="b"))
            + results(res("t1", "ok"), res("t2", "Exit code 2\nboom", is_error=True)) + result())
    idx = _file_index(data)
    idx.read()
    assert idx.marks[1] & TOOL_START and idx.marks[2] & ERROR, list(idx.marks)


def test_a_call_whose_result_came_first_gets_its_kind_from_its_start(h):
    """(From a review.)  A tool_use after its tool_result (joined mid-way, out of order) only
    filled in the target: the call stayed "Tool call"."""
    m, _, _ = h_model(init() + results(res("t1", "a.txt")) + assistant(use("t1", "Bash", command="ls")))
    (t,) = m.sessions[0].tools
    assert (t.kind_key, t.label, t.short, t.target, t.status) == ("Bash", "Ran terminal command", "Bash", "ls", "success")


def test_a_results_errors_are_said_on_one_line_each(h):
    m, _, _ = h_model(init() + j(type="result", subtype="error_during_execution", is_error=True,
                                 errors=[{"message": "boom", "code": 5}, "second"]))
    assert m.sessions[0].result.text == '{"message": "boom", "code": 5}\nsecond'


def test_an_image_in_the_prompt_or_a_result_is_named_not_taken_for_an_unknown_part(h):
    """(From a Claude Code user's trial.)  A screenshot pasted into the prompt is a part of the
    Messages API: the prompt names it by type and size; it is no unknown event (the header
    warned of one), and its base64 is not shown.  A tool's image result reads alike."""
    png = "iVBORw0KGgo" + "A" * 4085  # 4,096 characters of base64: 3,072 bytes
    prompt = j(type="user", message={"role": "user", "content": [
        {"type": "text", "text": "Why does this page look broken?"},
        {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": png}},
        {"type": "document", "title": "spec.pdf", "source": {"type": "url", "url": "https://x.test/spec.pdf"}},
    ]})
    data = (init() + prompt + assistant(use("s1", "Read", file_path="/w/shot.png"))
            + results(res("s1", [{"type": "image", "source": {"type": "base64", "media_type": "image/png",
                                                               "data": png}}])) + result())
    m = h.model_of(data)[0]
    (s,) = m.sessions
    assert m.unknown_events == 0
    ask = next(b for b in s.blocks if b.kind == "prompt")
    assert ask.text == ("Why does this page look broken?\n(image, image/png, 3.0 KB)\n"
                        "(document, spec.pdf, https://x.test/spec.pdf)")
    assert png not in ask.text
    (shot,) = s.tools
    assert shot.status == "success"
    shown = "\n".join(sec.body for sec in claude.tool_sections(
        orjson.loads(assistant(use("s1", "Read", file_path="/w/shot.png"))),
        orjson.loads(results(res("s1", [{"type": "image", "source": {"type": "base64", "media_type": "image/png",
                                                                      "data": png}}]))), "s1"))
    assert "(image, image/png, 3.0 KB)" in shown and png[:20] not in shown


def test_an_api_error_message_is_shown_as_an_error_once_not_as_the_agents_answer(h, tmp_path, capsys):
    """(From a Claude Code user's trial.)  On a rate limit or an overloaded API, Claude Code
    writes its own message (model "<synthetic>", an "error" field), then a result of the same
    words: the message read as the agent's answer, and the failed result said it again."""
    from viewer.cli import main

    said = 'API Error: 529 {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}'
    synthetic = j(type="assistant", error="rate_limit", message={
        "id": "msg_9", "model": "<synthetic>", "role": "assistant", "content": [{"type": "text", "text": said}]})
    data = (init() + assistant({"type": "text", "text": "Checking."})
            + j(type="rate_limit_event", rate_limit_info={"status": "rejected", "rateLimitType": "five_hour"})
            + synthetic + result(said, is_error=True))
    (s,) = h.model_of(data)[0].sessions
    assert [b.kind for b in s.blocks] == ["assistant", "alert", "alert", "result"]
    assert s.blocks[2].text == f"API error/rate_limit: {said}"
    assert s.final_texts() == ["Checking."]
    assert s.state == "failed"
    p = tmp_path / "limit.ndjson"
    p.write_bytes(data)
    with pytest.raises(SystemExit) as end:
        main(["--print", str(p)])
    out, err = capsys.readouterr()
    assert end.value.code == 1
    assert out.count("API Error: 529") == 1 and f"(at line 4: API error/rate_limit: {said})" in out
    assert err.strip() == f"agent-viewer: the run failed: {said}"


def test_a_tasks_start_is_its_calls_and_its_end_is_said_in_its_own_words(h, capsys, tmp_path):
    """system/task_started repeats its Task's start (counted, not shown); task_notification
    is shown by its summary, not by its fields, and a failed task is a warning."""
    from tests.test_printer_cli import run_main

    task = {"task_id": "t1", "tool_use_id": "toolu_T1"}
    data = (init() + assistant(use("toolu_T1", "Task", description="Audit tax", prompt="Look.",
                                   subagent_type="Explore"))
            + j(type="system", subtype="task_started", description="Audit tax", subagent_type="Explore", **task)
            + results(res("toolu_T1", "Tax is fine."))
            + j(type="system", subtype="task_notification", status="completed", summary="Audit tax done", **task)
            + j(type="system", subtype="task_notification", task_id="t2", tool_use_id="toolu_B2", status="failed",
                summary='Background command "npm run dev" failed with exit code 1')
            + j(type="system", subtype="task_notification", task_id="t3", tool_use_id="toolu_B3", status="killed",
                summary='Background command "tail -f log" stopped'))
    m, _, _ = h.model_of(data, end=False)
    (s,) = m.sessions
    notes = [(b.kind, b.text) for b in s.blocks if b.kind in ("notice", "alert")]
    said = "system/task_notification: "
    assert notes == [("notice", f"{said}Audit tax done"),
                     ("alert", f'{said}Background command "npm run dev" failed with exit code 1'),
                     ("alert", f'{said}Background command "tail -f log" stopped (killed)')]
    assert m.events == 7 and not any("task_started" in b.text for b in s.blocks)
    f = tmp_path / "run.ndjson"
    f.write_bytes(data)
    code, out, err = run_main(capsys, "--print", "--output-format", "text", str(f))
    assert "task_started" not in out and "task_id=" not in out
    assert "system/task_notification: Audit tax done)" in out


def _stream_event(event: dict) -> bytes:
    return j(type="stream_event", event=event, parent_tool_use_id=None)


def test_a_call_whose_arguments_stream_in_is_shown_as_they_are_written(h):
    """(Partial messages.)  A call's arguments stream in before its message comes whole: a big
    Write's for a minute, when nothing moved.  The call is listed from its block's start,
    "writing its arguments…"; its message is its start (one call, not two), and then it reads
    as any call does."""
    from tests.test_codex import event_at

    start = _stream_event({"type": "content_block_start", "index": 1,
                           "content_block": {"type": "tool_use", "id": "toolu_W", "name": "Bash", "input": {}}})
    deltas = b"".join(_stream_event({"type": "content_block_delta", "index": 1,
                                     "delta": {"type": "input_json_delta", "partial_json": part}})
                      for part in ('{"command": ', '"make test"}'))
    whole = assistant(use("toolu_W", "Bash", command="make test"))
    data = init() + start + deltas
    m, _, _ = h.model_of(data, end=False)
    (t,) = m.sessions[0].tools
    assert (t.status, t.short, t.target, t.detail) == ("running", "Bash", "", "writing its arguments…")
    args, status = call_sections(t, event_at(data, t.start_ref), None, claude.tool_sections)
    assert "Not all written yet" in args.body and status.body == NO_RESULT["running"]
    m, _, _ = h.model_of(data, end=True)
    (t,) = m.sessions[0].tools
    assert (t.status, t.detail) == ("unfinished", "writing its arguments…")
    args, status = call_sections(t, event_at(data, t.start_ref), None, claude.tool_sections)
    assert "Not all written yet" in args.body and status.body == NO_RESULT["unfinished"]

    data += whole + results(res("toolu_W", "ok"))
    m, _, _ = h.model_of(data)
    s = m.sessions[0]
    (t,) = s.tools
    assert (t.status, t.target, t.detail, t.duplicates, t.start_line) == ("success", "make test", "", 0, 5)
    assert claude.copy_text(event_at(data, t.start_ref), event_at(data, t.end_ref), t.call_id) == "make test"
    assert [b.kind for b in s.blocks].count("tool") == 1


def test_a_refusal_of_a_call_is_said_by_the_call_once(h):
    """(From a live-watching trial.)  ``system/permission_denied`` came before its call's
    result, in the same words: the transcript and text mode said the refusal twice.  One that
    names a call is counted; the call says it (rejected).  One that names none is shown."""
    said = "Claude requested permissions to write to /w/x, but you haven't granted it yet."
    data = (init() + assistant(use("t1", "Write", file_path="/w/x", content="hi"))
            + j(type="system", subtype="permission_denied", tool_name="Write", tool_use_id="t1", message=said)
            + results(res("t1", said, is_error=True)) + result("I may not write it."))
    m, _, _ = h.model_of(data)
    s = m.sessions[0]
    assert [b.kind for b in s.blocks] == ["tool", "result"], [(b.kind, b.text) for b in s.blocks]
    (t,) = s.tools
    assert t.status == "rejected" and said in t.error_text
    assert m.events == 5 and m.event_types["system"] == 2  # (counted)
    # One that names no call is shown, by its fields.
    m, _, _ = h.model_of(init() + j(type="system", subtype="permission_denied", tool_name="Write", message=said))
    assert [b.kind for b in m.sessions[0].blocks][:1] == ["notice"]


@pytest.mark.parametrize("fmt", ["text", "json"])
def test_a_result_alone_is_read_as_claude_codes(tmp_path, capsys, fmt):
    """``claude -p --output-format json`` writes its result alone: it was read as Cursor's (the
    heading said "Cursor", and its cost and tokens were lost, its json had Cursor's keys)."""
    from tests.conftest import real_capture
    from viewer.cli import main

    data = real_capture("maestro__03_tool_use_denied.ndjson", "claude")
    (line,) = [x for x in data.splitlines(keepends=True) if b'"type":"result"' in x]
    p = tmp_path / "result.json"
    p.write_bytes(line)
    with pytest.raises(SystemExit) as end:
        main(["--print", "--output-format", fmt, str(p)])
    assert end.value.code == 0
    out = capsys.readouterr().out
    if fmt == "text":
        assert out.startswith("Claude Code · session ec3b854f")
        assert out.rstrip().endswith("· $0.0746")
    else:
        assert orjson.loads(out) == orjson.loads(line)  # (as the CLI wrote it: no Cursor key added)
