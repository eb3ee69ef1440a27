"""The session model (reducer) on real captures, samples and synthetic streams.

Expectations come from shared/stream-json.md (section 1 and the edge cases in
section 7) and from reading the raw captures, not from the model's output.
"""

from __future__ import annotations

import json
import random
from collections import Counter

import orjson
import pytest

from viewer.core.decode import Event, Malformed
from viewer.core.model import Change, StreamModel

SID = "11111111-2222-3333-4444-555555555555"


# -- synthetic event builders ------------------------------------------------------


def j(**fields) -> bytes:
    return orjson.dumps(fields) + b"\n"


def init(sid=SID, model="Auto"):
    return j(type="system", subtype="init", apiKeySource="login", cwd="/w", session_id=sid,
             model=model, permissionMode="default")


def user(text="do it", sid=SID):
    return j(type="user", message={"role": "user", "content": [{"type": "text", "text": text}]},
             session_id=sid)


def assistant(text, sid=SID, mcid=None, ts=None):
    d = {"type": "assistant", "message": {"role": "assistant", "content": [{"type": "text", "text": text}]},
         "session_id": sid}
    if mcid is not None:
        d["model_call_id"] = mcid
    if ts is not None:
        d["timestamp_ms"] = ts
    return orjson.dumps(d) + b"\n"


def tool(phase, cid, sid=SID, kind="shellToolCall", args=None, result=None, ts=1000, extra=None,
         hook_first=False):
    body = {}
    if args is not None:
        body["args"] = args
    if result is not None:
        body["result"] = result
    tc = {}
    if hook_first:
        tc["hookAdditionalContexts"] = []
        tc["toolCallId"] = cid
    tc[kind] = body
    if extra:
        tc.update(extra)
    return j(type="tool_call", subtype=phase, call_id=cid, tool_call=tc, model_call_id="req-0-abcd",
             session_id=sid, timestamp_ms=ts)


def shell_started(cid, cmd="ls", sid=SID, ts=1000):
    return tool("started", cid, sid, args={"command": cmd, "workingDirectory": ""}, ts=ts)


def shell_completed(cid, cmd="ls", sid=SID, ts=2000, exit_code=0):
    return tool("completed", cid, sid, args={"command": cmd},
                result={"success": {"command": cmd, "exitCode": exit_code, "stdout": "out", "stderr": ""}},
                ts=ts)


def result(text="done", sid=SID, is_error=False, subtype="success"):
    return j(type="result", subtype=subtype, duration_ms=10, duration_api_ms=10, is_error=is_error,
             result=text, session_id=sid, request_id="req")


def apply_all(data: bytes, h, end=True):
    recs, dec = h.decode(data)
    m = StreamModel()
    deltas = [m.apply(r) for r in recs]
    if end:
        m.end()
    return m, deltas, recs


def raw_events(data: bytes) -> list[dict]:
    """The stream parsed independently of the decoder (real captures are clean NDJSON)."""
    return [json.loads(x) for x in data.splitlines() if x.strip()]


# -- real captures -------------------------------------------------------------------


def test_every_real_stream_decodes_cleanly(h, real_stream_path):
    data = real_stream_path.read_bytes()
    m, recs, dec = h.model_of(data)
    assert m.malformed == []
    assert dec.malformed == 0
    assert m.events == len(raw_events(data))
    assert m.lines_accounted(dec.blank_lines) == dec.lines_seen
    assert m.unknown_events == 0
    h.check_status_counts(m)
    for s in m.sessions:
        assert s.state != "live"  # the input ended
        assert all(t.status != "running" for t in s.tools)


def test_real_streams_tool_calls_match_the_raw_events(h, real_stream_path):
    """One tool call per distinct call_id; completed calls are done, others unfinished."""
    data = real_stream_path.read_bytes()
    m, _, _ = h.model_of(data)
    raw = raw_events(data)
    ids = [e["call_id"] for e in raw if e.get("type") == "tool_call"]
    completed = {e["call_id"] for e in raw if e.get("type") == "tool_call" and e.get("subtype") == "completed"}
    tools = [t for s in m.sessions for t in s.tools]
    assert [t.call_id for t in tools] == list(dict.fromkeys(ids))
    for t in tools:
        if t.call_id in completed:
            assert t.done, t
        else:
            assert t.status == "unfinished", t


def test_real_streams_results(h, real_stream_path):
    data = real_stream_path.read_bytes()
    m, _, _ = h.model_of(data)
    raw_results = [e for e in raw_events(data) if e.get("type") == "result"]
    got = [s for s in m.sessions if s.result is not None]
    assert len(got) == len(raw_results)
    for s, raw in zip(got, raw_results, strict=True):
        assert s.result_text == raw["result"]
        assert s.result.is_error is raw["is_error"]
        assert s.result.duration_ms == raw["duration_ms"]


def test_sample_streams(h, sample_stream_path):
    data = sample_stream_path.read_bytes()
    m, recs, dec = h.model_of(data)
    h.check_accounting(recs, dec)
    assert m.lines_accounted(dec.blank_lines) == dec.lines_seen
    h.check_status_counts(m)
    for s in m.sessions:
        assert s.state in ("succeeded", "failed", "ended")
        assert all(t.status != "running" for t in s.tools)


def test_rejected_shell_target_comes_from_started(h, real):
    data = real("maestro__05_rejected_shell")
    raw = raw_events(data)
    completed = [e for e in raw if e.get("type") == "tool_call" and e["subtype"] == "completed"]
    assert len(completed) == 2 and all("args" not in e["tool_call"]["shellToolCall"] for e in completed)
    m, _, _ = h.model_of(data)
    (s,) = m.sessions
    assert len(s.tools) == 2
    for t in s.tools:
        assert t.kind_key == "shellToolCall"
        assert t.label == "Ran terminal command"
        assert t.status == "rejected"
        assert t.outcome == "rejected"
        assert t.target == "uname -a"
    assert s.tools[0].turn_id != s.tools[1].turn_id  # two model turns
    assert s.state == "succeeded"


def test_completed_without_args_keeps_started_target(h):
    # The rejection payload here does not echo the command: only `started` knows it.
    data = (
        init() + user()
        + shell_started("c1", cmd="rm -rf build")
        + tool("completed", "c1", result={"rejected": {"reason": "", "isReadonly": False}})
        + result()
    )
    m, _, _ = apply_all(data, h)
    (t,) = m.sessions[0].tools
    assert t.target == "rm -rf build"
    assert t.status == "rejected"


def test_parallel_shell_calls(h, real):
    data = real("cursor-hack__parallel-sleep")
    m, _, _ = h.model_of(data)
    (s,) = m.sessions
    assert [t.target for t in s.tools] == ["sleep 6", "sleep 4"]
    a, b = s.tools
    # Both started before either completed: they ran in parallel, in the same model turn.
    assert max(a.start_line, b.start_line) < min(a.end_line, b.end_line)
    assert a.turn_id and a.turn_id == b.turn_id
    assert b.end_line < a.end_line  # completions arrive in finish order
    assert 6100 <= a.duration_ms <= 6300
    assert 4100 <= b.duration_ms <= 4300
    assert all(t.status == "success" for t in s.tools)


def test_calls_that_ran_at_the_same_time_share_a_group(h, real):
    (s,) = h.model_of(real("cursor-hack__parallel-sleep"))[0].sessions
    a, b = s.tools
    assert a.group and a.group == b.group
    assert s.alongside(a) == [b] and s.alongside(b) == [a]
    # Two calls of one model turn, one after the other: each ran alone.
    (s,) = h.model_of(real("cursor-hack__direct-sleep"))[0].sessions
    assert len(s.tools) == 2 and [t.group for t in s.tools] == [0, 0] and s.groups == 0
    assert s.alongside(s.tools[0]) == []


def parallel_stream(turns: list[str]) -> bytes:
    """Calls c0, c1, ...: c0 starts, then each next one starts while c0 runs, in the model turn
    given for it; then all complete."""
    out = init() + user()
    for i, turn in enumerate(turns):
        out += tool("started", f"c{i}", args={"command": f"cmd {i}"}).replace(b"req-0-abcd", turn.encode())
    for i in range(len(turns)):
        out += shell_completed(f"c{i}", cmd=f"cmd {i}")
    return out


def test_a_call_of_another_model_turn_does_not_join_a_running_call(h):
    # c0 never got its completion in time (cut short, or a long call of an earlier turn): c1, of
    # the next turn, did not run beside it as its peer; c2, of c1's turn, did run beside c1.
    (s,) = h.model_of(parallel_stream(["t-0", "t-1", "t-1"]))[0].sessions
    assert [t.group for t in s.tools] == [0, 1, 1]
    # Three calls of one turn started before any ended: one group of three.
    (s,) = h.model_of(parallel_stream(["t-0", "t-0", "t-0"]))[0].sessions
    assert [t.group for t in s.tools] == [1, 1, 1] and s.groups == 1
    assert [t.index for t in s.alongside(s.tools[1])] == [0, 2]


def test_a_call_whose_end_never_comes_is_joined_only_by_the_call_started_with_it(h):
    # (From a review.)  c0 never ends: the calls started one after another later were taken for
    # its peers, all of them, and named "alongside" each other.
    data = init() + user() + shell_started("c0", "stuck") + shell_started("c1", "a") + shell_completed("c1", "a")
    for i in range(2, 6):
        data += shell_started(f"c{i}", f"cmd {i}") + shell_completed(f"c{i}", f"cmd {i}")
    (s,) = h.model_of(data)[0].sessions
    assert [t.group for t in s.tools] == [1, 1, 0, 0, 0, 0]
    assert s.alongside(s.tools[5]) == [] and [t.index for t in s.alongside(s.tools[0])] == [1]


def test_a_model_copy_keeps_its_calls_apart_when_one_joins_a_group(h):
    # A replay's checkpoints share calls with the model: the call a new one joins is copied first.
    recs, _ = h.decode(parallel_stream(["t", "t"]))
    m = StreamModel()
    starts = [i for i, r in enumerate(recs) if getattr(r, "subtype", "") == "started"]
    for r in recs[: starts[1]]:
        m.apply(r)
    copy = m.clone()
    for r in recs[starts[1]:]:
        m.apply(r)
    assert [t.group for t in m.sessions[0].tools] == [1, 1]
    assert [t.group for t in copy.sessions[0].tools] == [0] and copy.sessions[0].groups == 0


def test_duration_prefers_tool_reported_times(h, real):
    data = real("maestro__02_shell_tool_call")
    tc = [e for e in raw_events(data) if e.get("type") == "tool_call"]
    started_ms = int(tc[-1]["tool_call"]["startedAtMs"])
    completed_ms = int(tc[-1]["tool_call"]["completedAtMs"])
    assert completed_ms - started_ms != tc[1]["timestamp_ms"] - tc[0]["timestamp_ms"]
    m, _, _ = h.model_of(data)
    (t,) = m.sessions[0].tools
    assert t.duration_ms == completed_ms - started_ms
    assert t.detail == "exit 0"


def test_truncated_stream_ends_with_unfinished_calls(h, real):
    data = real("agentic-automation__head")
    m, _, _ = h.model_of(data, end=False)
    (s,) = m.sessions
    assert s.state == "live"
    assert [t.status for t in s.tools] == ["running", "running"]
    m.end()
    assert s.state == "ended"
    assert s.result is None
    assert [t.status for t in s.tools] == ["unfinished", "unfinished"]
    assert [t.kind_key for t in s.tools] == ["readToolCall", "lsToolCall"]
    assert not any(t.done for t in s.tools)
    assert s.running == 0 and s.done_tools == 0


def test_completed_without_started_creates_the_call(h, real):
    data = real("agentic-automation__tail")
    first = raw_events(data)[0]
    assert (first["type"], first["subtype"]) == ("tool_call", "completed")
    m, _, _ = h.model_of(data)
    s = m.sessions[0]
    t = s.tools[0]
    assert t.call_id == first["call_id"]
    assert t.kind_key == "grepToolCall"
    assert t.status == "success"
    assert t.start_line == 0 and t.end_line == 1
    assert s.blocks[t.block].kind == "tool" and s.blocks[t.block].ref == 0
    assert s.state == "succeeded"


@pytest.mark.parametrize("stem", ["maestro__04_partial_output", "maestro__06_ask_question"])
def test_partial_output_segments_are_not_doubled(h, real, stem):
    data = real(stem)
    m, _, _ = h.model_of(data)
    (s,) = m.sessions
    final = [e for e in raw_events(data) if e.get("type") == "assistant"][-1]
    final_text = final["message"]["content"][0]["text"]
    assert "".join(s.assistant_segments) == s.result_text
    assert s.result_mismatch is False
    assert s.result.in_transcript and s.result.text == ""  # kept once: in the transcript
    assert len(s.assistant_segments) == 2
    assert s.assistant_segments[-1] == final_text
    assert s.final_texts() == [final_text]
    assert not any(b.open for b in s.blocks)


def test_whole_segments_are_separate_blocks(h, real):
    data = real("maestro__02_shell_tool_call")
    m, _, _ = h.model_of(data)
    s = m.sessions[0]
    texts = [e["message"]["content"][0]["text"] for e in raw_events(data) if e.get("type") == "assistant"]
    assert s.assistant_segments == texts
    assert "".join(texts) == s.result_text and not s.result_mismatch
    # Transcript order: first segment, the tool, then the final segment.
    kinds = [b.kind for b in s.blocks if b.kind in ("assistant", "tool")]
    assert kinds == ["assistant", "tool", "assistant"]


def test_partial_deltas_then_resend_before_tool(h):
    data = (
        init() + user()
        + assistant("Look", ts=1) + assistant("ing.", ts=2)
        + assistant("Looking.", ts=3, mcid="req-0-aaaa")
        + shell_started("c1") + shell_completed("c1")
        + assistant("Do", ts=4) + assistant("ne", ts=5) + assistant("Done")
        + result("Looking.Done")
    )
    m, _, _ = apply_all(data, h)
    s = m.sessions[0]
    assert s.assistant_segments == ["Looking.", "Done"]
    assert not s.result_mismatch


def test_result_text_mismatch_is_flagged(h):
    data = init() + user() + assistant("Hello") + result("Something else")
    m, _, _ = apply_all(data, h)
    assert m.sessions[0].result_mismatch is True


# -- synthetic ----------------------------------------------------------------------


def test_reused_call_id_after_completion_is_a_new_call(h):
    data = (
        init() + user()
        + shell_started("c1", "echo one") + shell_completed("c1", "echo one")
        + shell_started("c1", "echo two")
    )
    m, _, _ = apply_all(data, h)
    s = m.sessions[0]
    assert [(t.target, t.status) for t in s.tools] == [("echo one", "success"), ("echo two", "unfinished")]
    h.check_status_counts(m)


def test_duplicate_started_and_completed_do_not_double_calls(h):
    lines = [
        init(), user(),
        shell_started("c1", "sleep 1"), shell_started("c2", "sleep 2"),
        shell_completed("c2", "sleep 2"), shell_completed("c1", "sleep 1", exit_code=3),
        result(),
    ]
    data = b"".join(x + x for x in lines[2:6])  # only the tool events doubled
    m, _, _ = apply_all(lines[0] + lines[1] + data + lines[6], h)
    (s,) = m.sessions
    assert [(t.call_id, t.status) for t in s.tools] == [("c1", "failed"), ("c2", "success")]
    assert [t.duplicates for t in s.tools] == [2, 2]
    h.check_status_counts(m)
    assert s.state == "succeeded"


@pytest.mark.parametrize("stem", ["maestro__02_shell_tool_call", "cursor-hack__parallel-sleep",
                                  "maestro__05_rejected_shell"])
def test_doubled_real_stream_does_not_double_tool_calls(h, real, stem):
    """`2>&1` with stderr mirroring stdout: every line arrives twice (stream-json.md 7.8)."""
    data = real(stem)
    doubled = b"".join(x + x for x in data.splitlines(keepends=True))
    base, _, _ = h.model_of(data)
    m, _, _ = h.model_of(doubled)
    h.check_status_counts(m)
    tools = [(t.call_id, t.status, t.target) for s in m.sessions for t in s.tools]
    assert tools == [(t.call_id, t.status, t.target) for t in base.sessions[0].tools]
    assert m.sessions[-1].state == base.sessions[0].state


def test_doubled_real_stream_reads_like_the_original(h, real):
    data = real("maestro__02_shell_tool_call")
    doubled = b"".join(x + x for x in data.splitlines(keepends=True))
    base, _, _ = h.model_of(data)
    m, _, _ = h.model_of(doubled)
    assert len(m.sessions) == 1
    assert m.sessions[0].assistant_segments == base.sessions[0].assistant_segments
    assert m.sessions[0].result_mismatch is False


def test_new_init_with_same_session_id_starts_a_second_run(h):
    data = (
        init() + user("first") + assistant("one") + result("one")
        + init() + user("second") + shell_started("c1") + shell_completed("c1") + assistant("two")
        + result("two")
    )
    m, deltas, _ = apply_all(data, h)
    assert len(m.sessions) == 2
    a, b = m.sessions
    assert a.session_id == b.session_id == SID
    assert (a.prompt, b.prompt) == ("first", "second")
    assert (len(a.tools), len(b.tools)) == (0, 1)
    assert a.state == b.state == "succeeded"
    assert a.result_text == "one" and b.result_text == "two"
    assert sum(1 for d in deltas if d.flags & Change.SESSIONS) == 2


def test_interleaved_sessions_route_back(h):
    A, B = "aaaa", "bbbb"
    data = (
        init(A) + user("task A", A)
        + init(B) + user("task B", B)
        + shell_started("a1", "make a", A)
        + shell_started("b1", "make b", B)
        + shell_completed("a1", "make a", A)
        + result("A done", A)
        + shell_completed("b1", "make b", B, exit_code=1)
        + result("B failed", B, is_error=True, subtype="error")
    )
    m, deltas, _ = apply_all(data, h)
    assert [s.session_id for s in m.sessions] == [A, B]
    a, b = m.sessions
    assert [t.call_id for t in a.tools] == ["a1"] and [t.call_id for t in b.tools] == ["b1"]
    assert a.tools[0].status == "success" and b.tools[0].status == "failed"
    assert (a.prompt, b.prompt) == ("task A", "task B")
    assert a.state == "succeeded" and b.state == "failed"
    # Deltas name the session the event went to.
    assert [d.session for d in deltas] == [0, 0, 1, 1, 0, 1, 0, 0, 1, 1]
    h.check_status_counts(m)


def test_events_without_init_make_a_session(h):
    data = shell_started("c1") + shell_completed("c1") + result()
    m, _, _ = apply_all(data, h)
    (s,) = m.sessions
    assert s.session_id == SID and s.init is None
    assert s.state == "succeeded"


@pytest.mark.parametrize(
    ("is_error", "subtype", "state"),
    [(True, "error", "failed"), (True, "success", "failed"), (False, "success", "succeeded")],
)
def test_result_state(h, is_error, subtype, state):
    data = init() + user() + result("Model not available", is_error=is_error, subtype=subtype)
    m, _, _ = apply_all(data, h)
    s = m.sessions[0]
    assert s.state == state
    assert s.result.is_error is is_error


def test_tool_kind_found_after_hook_contexts(h):
    data = init() + tool(
        "started", "c1", hook_first=True, args={"command": "git status"},
        extra={"startedAtMs": "1786676122259"},
    ) + tool(
        "completed", "c1", hook_first=True, args={"command": "git status"},
        result={"success": {"exitCode": 0, "stdout": ""}},
        extra={"startedAtMs": "1786676122259", "completedAtMs": "1786676123500"},
    )
    first_key = next(iter(orjson.loads(data.splitlines()[1])["tool_call"]))
    assert first_key == "hookAdditionalContexts"
    m, _, _ = apply_all(data, h)
    (t,) = m.sessions[0].tools
    assert t.kind_key == "shellToolCall"
    assert t.label == "Ran terminal command" and t.short == "Shell"
    assert t.target == "git status"
    assert t.duration_ms == 1241


def test_unknown_tool_kind_is_labelled_from_its_key(h):
    data = init() + tool("started", "c1", kind="fooBarToolCall", args={"path": "/x/y"}) + tool(
        "completed", "c1", kind="fooBarToolCall", result={"success": {}})
    m, _, _ = apply_all(data, h)
    (t,) = m.sessions[0].tools
    assert t.kind_key == "fooBarToolCall"
    assert t.label == t.short == "Foo bar"  # shown in the list as it is named
    assert t.target == "/x/y"
    data = init() + tool("started", "c2", kind="quantumLeapToolCall", args={"target": "/x/z.py"})
    m, _, _ = apply_all(data, h)
    assert m.sessions[0].tools[0].target == "/x/z.py"  # (From a new-user trial: it showed none.)
    assert t.status == "success"


def test_an_edit_that_made_a_new_file_is_listed_as_create(h):
    """An editToolCall is "Edit" while it runs, and "Create" (label "Created new file") when
    it completes without a file before it."""
    data = init() + tool("started", "c1", kind="editToolCall", args={"path": "/x/new.py"})
    m, _, _ = apply_all(data, h)
    (t,) = m.sessions[0].tools
    assert (t.short, t.label) == ("Edit", "Edited file")
    data += tool("completed", "c1", kind="editToolCall", args={"path": "/x/new.py"},
                 result={"success": {"afterFullFileContent": "x = 1\n"}})
    m, _, _ = apply_all(data, h)
    (t,) = m.sessions[0].tools
    assert (t.short, t.label) == ("Create", "Created new file")


def test_unknown_outcome_is_kept_verbatim(h):
    data = init() + shell_started("c1") + tool("completed", "c1", result={"stillPending": {"x": 1}})
    m, _, _ = apply_all(data, h)
    (t,) = m.sessions[0].tools
    assert t.outcome == "stillPending"
    assert t.status not in ("success", "running")


@pytest.mark.parametrize(
    ("outcome", "status"),
    [("error", "failed"), ("timeout", "failed"), ("rejected", "rejected"), ("success", "success")],
)
def test_outcome_status(h, outcome, status):
    data = init() + shell_started("c1") + tool("completed", "c1", result={outcome: {"reason": "r"}})
    m, _, _ = apply_all(data, h)
    assert m.sessions[0].tools[0].status == status


def test_shell_nonzero_exit_is_a_failure(h):
    data = init() + shell_started("c1", "false") + shell_completed("c1", "false", exit_code=1)
    m, _, _ = apply_all(data, h)
    t = m.sessions[0].tools[0]
    assert t.outcome == "success" and t.status == "failed"
    assert "1" in t.detail


def test_unknown_event_types_are_kept_as_notices(h):
    data = (
        init() + user()
        + j(type="rate_limit_event", session_id=SID, status="ok")
        + j(type="brand_new_thing", subtype="x", session_id=SID)
        + j(type="retry", subtype="starting", attempt=1, is_resume=True, session_id=SID)
        + j(session_id=SID, hello="no type")
        + result()
    )
    m, deltas, _ = apply_all(data, h)
    s = m.sessions[0]
    assert m.unknown_events == 3
    # Cursor's retry reads in words; an unknown event's fields as the stream wrote them
    # (JSON true, not Python's True).
    texts = [b.text for b in s.blocks]
    assert "retry/starting: attempt 1, resuming the conversation" in texts, texts
    assert "brand_new_thing/x" in texts and "rate_limit_event: status=ok" in texts, texts
    assert [(n.event_type, n.known) for n in s.notices] == [
        ("rate_limit_event", False), ("brand_new_thing", False), ("retry", True), ("", False)]
    assert [b.kind for b in s.blocks if b.kind in ("unknown", "notice")] == [
        "unknown", "unknown", "notice", "unknown"]
    assert m.event_types["rate_limit_event"] == 1
    assert deltas[2].flags & Change.HEALTH and not deltas[4].flags & Change.HEALTH
    assert s.state == "succeeded"


def test_interaction_query_pairs_into_one_block(h, real):
    m, _, _ = h.model_of(real("maestro__06_ask_question"))
    s = m.sessions[0]
    queries = [b for b in s.blocks if b.kind == "query"]
    assert len(queries) == 1
    # (From a new user's trial.)  What it asked was shown nowhere: the questions and their
    # options, a line each, under the line its answer ends.
    head, *asked = queries[0].text.split("\n")
    assert head.startswith("Question: Payments feature clarification → rejected: Questions skipped")
    assert asked == [
        "What payment flow should the feature support? (One-time payments / Recurring subscriptions / "
        "Both one-time payments and subscriptions)",
        "Which payment provider and environment should be used initially? (Stripe test mode (Recommended) / "
        "Stripe production mode / Another provider or a provider-agnostic integration)"]


# -- deltas ----------------------------------------------------------------------


def test_delta_flags(h):
    lines = [
        init(),                                              # 0
        user(),                                              # 1
        j(type="thinking", subtype="delta", text="hmm", session_id=SID, timestamp_ms=1),  # 2
        assistant("Plan.", mcid="req-0-a", ts=2),            # 3
        shell_started("c1"),                                 # 4
        shell_started("c2"),                                 # 5
        shell_completed("c2"),                               # 6
        b"not json\n",                                       # 7
        shell_completed("c1"),                               # 8
        assistant("Done."),                                  # 9
        result("Plan.Done."),                                # 10
    ]
    m, deltas, recs = apply_all(b"".join(lines), h, end=False)
    assert isinstance(recs[7], Malformed)
    d = deltas
    assert d[0].flags & Change.SESSIONS and d[0].session == 0
    assert not d[1].flags & Change.SESSIONS
    assert d[1].flags & Change.TRANSCRIPT and m.sessions[0].blocks[d[1].block].kind == "prompt"
    assert d[2].flags & Change.THINKING
    assert d[3].flags & Change.TRANSCRIPT and m.sessions[0].blocks[d[3].block].text == "Plan."
    assert d[4].flags & Change.TOOLS and d[4].tool == 0
    assert d[5].flags & Change.TOOLS and d[5].tool == 1
    assert d[6].flags & Change.TOOLS and d[6].tool == 1
    assert d[7].flags & Change.HEALTH and d[7].tool == -1
    assert d[8].flags & Change.TOOLS and d[8].tool == 0
    assert d[9].flags & Change.TRANSCRIPT and not d[9].flags & Change.TOOLS
    assert d[10].flags & Change.RESULT
    for i in (0, 1, 2, 3, 9, 10):
        assert d[i].tool == -1
    assert len(m.malformed) == 1
    end = m.end()
    assert end.flags & Change.TOOLS


# -- status counts ------------------------------------------------------------------


def _random_stream(rng: random.Random) -> bytes:
    ids = [f"c{i}" for i in range(4)]
    sids = ["s1", "s2"]
    out = []
    for _ in range(rng.randint(0, 40)):
        sid = rng.choice(sids)
        cid = rng.choice(ids)
        kind = rng.randrange(7)
        if kind == 0:
            out.append(init(sid))
        elif kind == 1:
            out.append(shell_started(cid, sid=sid))
        elif kind == 2:
            out.append(shell_completed(cid, sid=sid, exit_code=rng.choice([0, 1])))
        elif kind == 3:
            out.append(tool("completed", cid, sid, result={rng.choice(["rejected", "error", "odd"]): {}}))
        elif kind == 4:
            out.append(result(sid=sid, is_error=rng.random() < 0.3))
        elif kind == 5:
            out.append(assistant("x", sid=sid, ts=rng.choice([None, 5])))
        else:
            out.append(b"garbage\n")
    return b"".join(out)


def test_status_counts_match_tools_after_every_event(h):
    rng = random.Random(7)
    for _ in range(150):
        data = _random_stream(rng)
        recs, _ = h.decode(data)
        m = StreamModel()
        for r in recs:
            m.apply(r)
            h.check_status_counts(m)
        m.end()
        h.check_status_counts(m)
        for s in m.sessions:
            assert s.running == 0


def test_status_counts_on_real_streams(h, real_streams):
    for name, data in real_streams.items():
        m, _, _ = h.model_of(data)
        h.check_status_counts(m)
        total = Counter()
        for s in m.sessions:
            total.update(t.status for t in s.tools)
        assert sum(total.values()) == sum(len(s.tools) for s in m.sessions), name


def test_model_accepts_records_from_any_source(h):
    m = StreamModel()
    ev = Event(1, 1, 0, 10, {"type": "system", "subtype": "init", "session_id": "x"})
    m.apply(ev)
    m.apply(Malformed(2, 11, 3, "invalid JSON", "abc"))
    assert len(m.sessions) == 1 and len(m.malformed) == 1
    assert m.lines_accounted() == 2


def test_interleaved_session_is_live_while_it_still_receives_events(h):
    A, B = "aaaa", "bbbb"
    data = init(A) + user("task A", A) + init(B) + user("task B", B) + shell_started("a1", "make a", A)
    m, _, _ = apply_all(data, h, end=False)
    a = m.sessions[0]
    assert a.tools[0].status == "running"
    assert a.state == "live"


def thinking(text, sid=SID):
    return j(type="thinking", subtype="delta", text=text, session_id=sid, timestamp_ms=1000)


def thinking_text(s):
    return "".join(b.text for b in s.blocks if b.kind == "thinking")


def test_mirrored_stream_a_third_identical_line_is_a_real_event(h):
    """With 2>&1 every line comes twice; a line the agent itself sent twice comes four times."""
    lines = [init(), user(), thinking("hm "), thinking("hm "), result()]
    m, _, _ = apply_all(b"".join(x + x for x in lines), h)
    (s,) = m.sessions
    assert m.mirrored
    assert thinking_text(s) == "hm hm "
    assert m.duplicates == len(lines)


def test_identical_lines_are_kept_when_the_stream_is_not_mirrored(h):
    m, _, _ = apply_all(init() + user() + thinking("hm ") * 3 + result(), h)
    (s,) = m.sessions
    assert not m.mirrored and m.duplicates == 0
    assert thinking_text(s) == "hm hm hm "


def _fingerprint(m):
    """Everything a view can show of a model."""
    return [
        (s.session_id, s.state, s.events, s.first_line, s.last_line, s.first_ms, s.last_ms,
         dict(s.status_counts), s.result_mismatch, len(s.notices),
         [(b.kind, b.text, b.open, b.ref) for b in s.blocks],
         [(t.call_id, t.kind_key, t.label, t.target, t.detail, t.status, t.duplicates, t.duration_ms,
           t.end_ref) for t in s.tools])
        for s in m.sessions
    ] + [len(m.malformed), m.events, m.duplicates, dict(m.event_types), m.mirrored]


@pytest.mark.parametrize("cut", [0.1, 0.35, 0.5, 0.8, 0.97])
def test_a_clone_is_independent_and_complete(h, sample_stream_path, cut):
    """Replay checkpoints are clones: applying more to the original must not leak into a
    clone, and the clone must carry on exactly as the original would."""
    data = sample_stream_path.read_bytes()
    recs, _ = h.decode(data)
    k = int(len(recs) * cut)
    m = StreamModel()
    for r in recs[:k]:
        m.apply(r)
    clone = m.clone()
    at_k = _fingerprint(clone)
    for r in recs[k:]:
        m.apply(r)
    m.end()
    assert _fingerprint(clone) == at_k, "the original's later events changed the clone"
    for r in recs[k:]:
        clone.apply(r)
    clone.end()
    assert _fingerprint(clone) == _fingerprint(m)


def _other_agent(name: str) -> bytes:
    from tests.conftest import REAL_CURSOR_DIR

    p = REAL_CURSOR_DIR.parent / name
    if not p.exists():
        pytest.skip(f"{p} not found")
    return p.read_bytes()


def test_a_claude_code_stream_is_read_in_its_own_format(h):
    """Claude Code's stream looks like Cursor's, but its tool calls are message content: a
    tool_use part starts a call, the tool_result part of a later user message ends it."""
    m, _, _ = h.model_of(_other_agent("claude/maestro__03_tool_use_denied.ndjson"))
    assert m.format.NAME == "claude" and m.other_agent == "" and m.unknown_events == 0
    assert len(m.sessions) == 1  # the hooks before the init belong to the same run
    (s,) = m.sessions
    (t,) = s.tools
    assert (t.kind_key, t.label, t.status) == ("Write", "Wrote file", "rejected")
    assert t.target.endswith("/spike.txt") and "requested permissions" in t.error_text
    assert [b.kind for b in s.blocks] == ["thinking", "tool", "assistant", "result"]  # (its refusal: said by the call)
    assert not any(b.kind == "prompt" and not b.text for b in s.blocks)  # no empty "You"
    assert s.result is not None and not s.result.failed and s.result.tokens.output == 186


def test_another_agents_content_in_a_cursor_run_is_shown_as_unknown_not_dropped(h):
    """Once a Cursor init has told the format, content of another agent's is not read as its
    own: it is listed as unknown, and the stream is named."""
    part = {"type": "tool_use", "id": "toolu_1", "name": "Write", "input": {"file_path": "/w/x"}}
    data = init() + j(type="assistant", session_id=SID, message={"role": "assistant", "content": [part]}) \
        + result("done")
    m, _, _ = apply_all(data, h)
    assert m.format.NAME == "cursor" and m.other_agent == "Claude Code" and not m.foreign
    (s,) = m.sessions
    assert not s.tools
    assert any("content tool_use" in b.text and "Write" in b.text for b in s.blocks if b.kind == "unknown")


def test_every_real_stream_is_read_in_its_agents_format(h, real_streams):
    """Each agent's captured streams, and every sample, are read in that agent's format, and
    none is named another agent's."""
    from tests.conftest import REAL_CURSOR_DIR, sample_paths

    seen = set()
    for folder in ("claude", "codex", "gemini"):
        for path in sorted((REAL_CURSOR_DIR.parent / folder).glob("*.ndjson")):
            m, _, _ = h.model_of(path.read_bytes())
            assert (m.format.NAME, m.other_agent, m.unknown_events) == (folder, "", 0), path.name
            seen.add(folder)
    assert seen == {"claude", "codex", "gemini"}
    for name, data in list(real_streams.items()) + [(p.name, p.read_bytes()) for p in sample_paths()]:
        m = h.model_of(data)[0]
        want = next((f for f in ("claude", "codex", "gemini") if name.startswith(f)), "cursor")
        assert m.other_agent == "" and m.format.NAME == want, name


def test_every_real_claude_code_stream_is_read_whole(h):
    """Every captured Claude Code stream: read as Claude Code's, nothing unknown, every call
    started and ended, and every run has its result."""
    from tests.conftest import REAL_CURSOR_DIR, SAMPLES_DIR

    paths = sorted((REAL_CURSOR_DIR.parent / "claude").glob("*.ndjson")) + [SAMPLES_DIR / "claude_code_run.ndjson"]
    if len(paths) == 1:
        pytest.skip("no Claude Code streams")
    for path in paths:
        m, _, _ = h.model_of(path.read_bytes())
        assert (m.format.NAME, m.other_agent, m.unknown_events, m.malformed_lines) == ("claude", "", 0, 0), path
        for s in m.sessions:
            assert s.result is not None and not s.result.failed, path
            assert all(t.start_ref is not None and t.end_ref is not None for t in s.tools), path
            assert not any(b.kind in ("unknown", "end") for b in s.blocks), path


#: Events of no agent's format agent-viewer knows (a tracing tool's, say).
UNKNOWN_STREAM = b"".join(orjson.dumps(x) + b"\n" for x in [
    {"type": "span.start", "span": "t1"},
    {"type": "span.event", "span": "t1", "item": {"type": "note", "text": "Files here: a, b"}},
    {"type": "span.end", "span": "t1"},
])


def test_a_stream_of_only_unknown_events_is_called_foreign(h):
    m, recs, _ = h.model_of(UNKNOWN_STREAM)
    assert m.foreign and m.other_agent == ""
    assert m.unknown_types == m.events == len(recs) == 3
    # nested fields are shown too: its text is readable
    assert any("item.text=Files here" in b.text for s in m.sessions for b in s.blocks)
    # every event listed as unknown, and no "ended without a result": runs of a format
    # agent-viewer does not know cannot be told (the header says UNKNOWN FORMAT instead)
    assert all(b.kind == "unknown" for s in m.sessions for b in s.blocks)


@pytest.mark.parametrize("fmt", ["text", "json", "stream-json"])
def test_every_print_mode_calls_a_stream_of_no_known_format_foreign(capsys, tmp_path, fmt):
    from viewer.cli import main

    path = tmp_path / "spans.ndjson"
    path.write_bytes(UNKNOWN_STREAM)
    with pytest.raises(SystemExit) as exc:
        main(["--print", "--output-format", fmt, str(path)])
    err = capsys.readouterr().err
    assert exc.value.code == 1 and "none of the 3 events is in a known format (agent-viewer reads the JSON streams of Cursor, Claude Code, Codex and Gemini CLI)" in err, err


@pytest.mark.parametrize("fmt", ["text", "json", "stream-json"])
def test_every_print_mode_reads_a_claude_code_stream_in_its_format(capsys, fmt):
    """Claude Code's stream is read as its own: its call is said, its result object is
    written as the CLI wrote it, and no note calls it another agent's."""
    from tests.conftest import REAL_CURSOR_DIR
    from viewer.cli import main

    path = REAL_CURSOR_DIR.parent / "claude" / "maestro__02_tool_use_allowed.ndjson"
    if not path.exists():
        pytest.skip(f"{path} not found")
    with pytest.raises(SystemExit) as exc:
        main(["--print", "--output-format", fmt, str(path)])
    out, err = capsys.readouterr()
    assert exc.value.code == 0, err
    assert "looks like" not in err, err
    if fmt == "text":
        heading, out = out.split("\n\n", 1)  # (whose run it is: as the TUI's header says)
        assert heading == ("Claude Code · claude-sonnet-5 · in /tmp/claude-1000/-home-saurabh-Projects-maestro/"
                           "9afe9e75-89bb-404f-b3d6-b1280cab2cda/scratchpad/claude-spike · "
                           "session 088d7e12-a739-4041-955e-fac989f5b13f"), heading
        assert out.startswith("✓ Ran terminal command ls (4 lines"), out
        answer, summary = out.rstrip().rsplit("\n\n", 1)
        assert answer.endswith("`stream2.raw.jsonl`.") and summary.startswith("✓ succeeded in "), out
    elif fmt == "json":
        last = path.read_bytes().splitlines()[-1]
        assert list(orjson.loads(out)) == list(orjson.loads(last)), out  # (its own key order: not Cursor's)
    else:
        assert out.count("\n") == path.read_bytes().count(b"\n")


def test_a_cursor_stream_gets_no_note(capsys):
    from tests.conftest import SAMPLES_DIR
    from viewer.cli import main

    with pytest.raises(SystemExit) as exc:
        main(["--print", str(SAMPLES_DIR / "demo_session.ndjson")])
    assert exc.value.code == 0 and "looks like" not in capsys.readouterr().err


def test_cursor_streams_are_not_foreign(h, real_stream_path):
    m, _, _ = h.model_of(real_stream_path.read_bytes())
    assert not m.foreign


def test_a_flood_of_malformed_lines_is_counted_but_not_all_kept():
    """A 1 GB file of garbage must not become gigabytes of previews: every bad line is counted
    (and the accounting holds), the first MAX_MALFORMED_KEPT are kept to be listed."""
    from viewer.core.decode import Decoder
    from viewer.core.model import MAX_MALFORMED_KEPT, StreamModel

    n = MAX_MALFORMED_KEPT + 50
    dec, m = Decoder(), StreamModel()
    for i in range(n):
        for rec in dec.feed(b"garbage %d" % i, i * 10):
            m.apply(rec)
    for rec in dec.close():
        m.apply(rec)
    assert m.malformed_lines == n and len(m.malformed) == MAX_MALFORMED_KEPT
    assert m.malformed[0].line == 1 and m.malformed[-1].line == MAX_MALFORMED_KEPT
    assert m.lines_accounted(dec.blank_lines) == dec.lines_seen == n


def test_a_restart_ends_every_run_read_so_far_and_the_next_event_begins_a_new_one(h):
    """A followed file truncated or replaced: what was read has ended, even a run with
    another id (which would otherwise stay live, waiting for interleaved events)."""
    from viewer.core.decode import Restart

    other = "9b0c5a1e-0000-4000-8000-000000000002"
    first, _, _ = apply_all(init() + user() + shell_started("c1") + init(other) + user(sid=other), h,
                            end=False)
    assert [s.state for s in first.sessions] == ["live", "live"]
    kept = first.clone()
    d = first.apply(Restart(line=5))
    assert d.flags & Change.ENDED and d.flags & Change.TOOLS
    assert first.restarts == [5] and kept.restarts == []  # (the health screen explains line numbers)
    assert [s.state for s in first.sessions] == ["ended", "ended"]
    assert first.sessions[0].tools[0].status == "unfinished"
    recs, _ = h.decode(init() + user("again"))  # the same run read again from its start
    for r in recs:
        first.apply(r)
    assert len(first.sessions) == 3 and first.sessions[2].state == "live"
    assert first.sessions[2].prompt == "again" and first.sessions[0].prompt == "do it"
    # The other run goes on writing into the new file, without an init: a new run too,
    # not the ended one (whose calls would then stay running for ever).
    recs, _ = h.decode(shell_started("c9", sid=other))
    d = first.apply(recs[0])
    assert d.flags & Change.SESSIONS and len(first.sessions) == 4
    assert first.sessions[3].tools[0].status == "running" and not first.sessions[1].tools
    first.end()
    assert first.sessions[3].tools[0].status == "unfinished"


def test_a_run_read_again_after_the_file_started_over_is_not_called_resumed(h):
    """(From a trial.)  A followed file truncated and written anew with the same run read
    "session 2/2 resumed" in the header: a new init of the same id is a --resume only when the
    file did not start over in between."""
    from viewer.core.decode import Restart

    m, _, _ = apply_all(init() + user() + init() + user("go on"), h, end=False)
    assert m.resumed(m.sessions[1])  # (--resume: the same id, a new init)
    m, _, _ = apply_all(init() + user(), h, end=False)
    m.apply(Restart(line=2))
    recs, _ = h.decode(init() + user())
    for r in recs:
        m.apply(r)
    assert len(m.sessions) == 2 and m.sessions[0].session_id == m.sessions[1].session_id
    assert not m.resumed(m.sessions[1])
    recs, _ = h.decode(init() + user("go on"))  # and then resumed, in the new file
    for r in recs:
        m.apply(r)
    assert m.resumed(m.sessions[2])


def test_a_failed_commands_output_is_shown_as_output_not_as_escaped_json():
    from viewer.core.formats.cursor import tool_sections

    failed = {"failure": {"command": "make", "exitCode": 2, "stdout": "",
                          "stderr": "cc -c a.c\na.c:1: error: oops\n"}}
    started = orjson.loads(tool("started", "c1", args={"command": "make"}))
    completed = orjson.loads(tool("completed", "c1", args={"command": "make"}, result=failed))
    sections = {s.title: s for s in tool_sections(started, completed)}
    assert sections["stderr"].kind == "terminal" and sections["stderr"].body == "cc -c a.c\na.c:1: error: oops\n"
    outcome = sections["Outcome: failure"].body
    # (Its fields as rows: they are plain.)
    assert "exitCode  2" in outcome.splitlines() and "oops" not in outcome  # the output is not shown twice
    assert "stdout" not in sections  # nothing on stdout: only stderr is shown


def test_a_result_block_holds_only_what_the_transcript_does_not_show(h):
    m, _, _ = apply_all(init() + user() + assistant("Second part.", ts=1)
                        + result("First part. Second part."), h)
    (s,) = m.sessions
    assert s.result_mismatch
    assert s.blocks[-1].kind == "result" and s.blocks[-1].text == "First part."
    m, _, _ = apply_all(init() + user() + assistant("Same.", ts=1) + result("Same."), h)
    assert not m.sessions[0].result_mismatch and m.sessions[0].blocks[-1].text == ""


@pytest.mark.parametrize("fmt", ["text", "json", "stream-json"])
def test_a_claude_code_stream_joined_midway_is_read_by_every_print_mode(tmp_path, capsys, fmt):
    """No init and no hooks: only the messages' content tells (tool_use, tool_result parts)."""
    from viewer.cli import main

    data = _other_agent("claude/maestro__02_tool_use_allowed.ndjson")
    keep = [ln for ln in data.splitlines(keepends=True)
            if b'"subtype":"init"' not in ln and b"hook_" not in ln and b"rate_limit" not in ln]
    path = tmp_path / "midway.ndjson"
    path.write_bytes(b"".join(keep))
    with pytest.raises(SystemExit) as exc:
        main(["--print", "--output-format", fmt, str(path)])
    out, err = capsys.readouterr()
    assert exc.value.code == 0 and "looks like" not in err, err
    if fmt == "text":
        assert "Ran terminal command ls" in out


def test_after_a_restart_the_new_files_format_is_told_again(h):
    """--follow: a Claude Code, Codex or Gemini CLI file replaced by a Cursor one is read as
    Cursor's again."""
    from tests.conftest import SAMPLES_DIR

    demo = (SAMPLES_DIR / "demo_session.ndjson").read_bytes()
    for name in ("claude/maestro__01_simple_no_tool.ndjson", "codex/agentcmd__stream-output-1.ndjson",
                 "gemini/gke-labs-issue-740__message-deltas.ndjson"):
        m, _, _ = h.model_of(_other_agent(name), end=False)
        assert m.format.NAME == name.split("/")[0] and m.other_agent == ""
        m.restart()
        for r in h.decode(demo)[0]:
            m.apply(r)
        assert m.other_agent == "" and m.format.NAME == "cursor"
        assert m.sessions[-1].tools and all(t.kind_key.endswith("ToolCall") for t in m.sessions[-1].tools)


def test_big_counts_in_call_summaries_have_thousands_separators(h):
    """'274,567 lines · 10.0 MB', as every other count on screen (it said 274567)."""
    args = {"path": "/p/big.txt", "offset": 1200, "limit": 1000}
    data = (
        j(type="system", subtype="init", session_id="s")
        + j(type="tool_call", subtype="started", call_id="a", session_id="s", tool_call={"readToolCall": {"args": args}})
        + j(type="tool_call", subtype="completed", call_id="a", session_id="s", tool_call={"readToolCall": {
            "args": args, "result": {"success": {"totalLines": 274567, "fileSize": 10485760}}}})
        + j(type="tool_call", subtype="started", call_id="b", session_id="s", tool_call={"readToolCall": {"args": args}})
        + j(type="tool_call", subtype="completed", call_id="b", session_id="s", tool_call={"readToolCall": {
            "args": args, "result": {"success": {}}}})
    )
    m, _, _ = h.model_of(data)
    a, b = m.sessions[0].tools
    assert a.detail == "274,567 lines · 10.0 MB"
    assert b.detail == "lines 1,200–2,199"


def test_a_closed_thinking_block_keeps_its_text_as_one_string(h):
    """Thousands of few-character deltas cost 50 bytes each as string objects (a 1 GB run's
    model was 30 MB bigger for it): once the block closes its parts are one string."""
    words = [f"w{i} " for i in range(50)]
    data = init() + user() + b"".join(thinking(w) for w in words)
    data += j(type="thinking", subtype="completed", session_id=SID, timestamp_ms=2000)
    m, _, _ = apply_all(data + result(), h, end=False)
    (b,) = [b for b in m.sessions[0].blocks if b.kind == "thinking"]
    assert not b.open and b.parts == ["".join(words)] and b.text == "".join(words)


def test_calls_share_one_string_for_equal_paths_labels_and_turns(h):
    """A run repeats its paths, summaries and labels; each event brings its own copy of them
    (85k calls of a 1 GB run kept about 15 MB of copies): the model keeps one of each."""
    data = init()
    for cid in ("c1", "c2"):
        data += tool("started", cid, kind="readToolCall", args={"path": "/w/same.py"}, extra={"model_call_id": "turn-1"})
        data += tool("completed", cid, kind="readToolCall", args={"path": "/w/same.py"},
                     result={"success": {"content": "x\n"}})
    m, _, _ = apply_all(data, h)
    a, b = m.sessions[0].tools
    assert a.target == "/w/same.py" and a.target is b.target
    assert a.detail is b.detail and a.label is b.label and a.outcome is b.outcome


@pytest.mark.parametrize("value", [5, "text", {"a": 1}, None])
def test_a_list_field_that_is_not_a_list_does_not_crash_any_tool_kind(h, value):
    """(Found by a reviewer's fuzzing.)  {"todos": 5} raised TypeError in the model and in
    every --print mode; so did any list field of a result that was a number."""
    from viewer.core.formats.cursor import TOOL_KINDS, copy_text, tool_sections

    fields = ("todos", "questions", "options", "content", "matches", "files", "counts", "childrenFiles",
              "childrenDirs", "paths")
    payload = {f: value for f in fields}
    payload["workspaceResults"] = {"w": {"content": {"matches": value}, "files": {"files": value},
                                         "count": {"counts": value}}}
    payload["directoryTreeRoot"] = {"childrenFiles": value, "childrenDirs": value}
    for kind in TOOL_KINDS:
        data = init() + tool("started", "c1", kind=kind, args=payload) + tool(
            "completed", "c1", kind=kind, args=payload, result={"success": payload})
        m, _, _ = apply_all(data, h)
        (t,) = m.sessions[0].tools
        assert t.kind_key == kind and t.status == "success"
        started, completed = (orjson.loads(x) for x in data.splitlines()[1:])
        assert isinstance(tool_sections(started, completed), list)  # the detail view's sections: no exception
        assert isinstance(copy_text(started, completed), str)  # (y: what it copies)


def test_an_events_place_is_kept_as_one_int_and_given_back_whole():
    """A call's two event places were a tuple of two ints each (116 bytes; 14 MB on a 1 GB run)."""
    from viewer.core.model import make_ref, ref_span

    for offset, length in ((0, 0), (0, 1), (73_858_531, 70_116_104), (5 << 40, (1 << 40) - 1)):
        assert ref_span(make_ref(offset, length)) == (offset, length)


def test_a_result_that_repeats_the_transcript_is_kept_once_and_a_different_one_whole(h):
    """A long run's result repeats everything it said (5 MB on a 1 GB file): kept once, in the
    transcript.  A result that says something else is kept as it is, and its unsaid part shown."""
    same = init() + user("q") + assistant("Hello ") + assistant("world") + result("Hello world")
    m, _, _ = apply_all(same, h)
    (s,) = m.sessions
    assert s.result.in_transcript and s.result.text == "" and not s.result_mismatch
    assert s.result_text == "Hello world"
    other = init() + user("q") + assistant("Hello ") + assistant("world") + result("Hello world!")
    m, _, _ = apply_all(other, h)
    (s,) = m.sessions
    assert not s.result.in_transcript and s.result_mismatch
    assert s.result_text == s.result.text == "Hello world!"
    prefix = init() + user("q") + assistant("Hello") + result("Hello world")
    m, _, _ = apply_all(prefix, h)
    assert m.sessions[0].result_mismatch and m.sessions[0].result_text == "Hello world"


def test_lines_that_are_not_events_are_shown_in_groups_and_the_newest_always(h):
    """(From two new-user trials.)  Lines with nothing shown between them are one block that
    keeps its first and last lines and counts them all; past MAX_MALFORMED_SHOWN blocks a run's
    last block takes the rest, so the newest line (an agent's final "Error: ...") is never
    dropped; lines before the first event open the run."""
    from viewer.core.model import MALFORMED_HEAD, MALFORMED_TAIL, MAX_MALFORMED_SHOWN

    garbage = b"".join(b"garbage %d\n" % i for i in range(150))
    m, _, _ = apply_all(garbage + init() + user("q"), h)
    (s,) = m.sessions
    (group,) = [b for b in s.blocks if b.kind == "malformed"]
    assert s.blocks[0] is group and group.ref == 150 and m.malformed_lines == 150
    kept = group.text.splitlines()
    assert len(kept) == MALFORMED_HEAD + MALFORMED_TAIL
    assert kept[0] == "1:garbage 0" and kept[-1] == "150:garbage 149"

    # One line between every two events: a block each, up to the limit; then the last takes them.
    data = init() + user("q")
    for i in range(MAX_MALFORMED_SHOWN + 30):
        data += assistant(f"t{i}") + b"noise %d\n" % i
    data += b"Error: the end\n"
    m, _, _ = apply_all(data, h)
    (s,) = m.sessions
    blocks = [b for b in s.blocks if b.kind == "malformed"]
    assert len(blocks) == MAX_MALFORMED_SHOWN and sum(b.ref for b in blocks) == MAX_MALFORMED_SHOWN + 31
    assert blocks[-1].text.splitlines()[-1].endswith(":Error: the end")


def test_another_agents_event_shows_its_nested_text_and_long_values(h):
    """(From a second new-user trial.)  An event's text two levels down (an unknown event's
    item.details.text) was left out; a text of 1,500 characters was cut at 300."""
    words = " ".join(f"word{i}" for i in range(150)) + " THE-END"
    data = (b'{"type":"span.end","item":{"id":"item_0","details":{"type":"agent_message",'
            b'"text":"The quick brown fox"}}}\n'
            + orjson.dumps({"type": "note", "role": "assistant", "content": words}) + b"\n")
    m, _, _ = apply_all(data, h)
    texts = [b.text for s in m.sessions for b in s.blocks if b.kind == "unknown"]
    assert any("item.details.text=The quick brown fox" in t for t in texts), texts
    assert any(t.endswith("THE-END") for t in texts), texts


def test_unknown_content_shows_a_token_by_its_length_and_leaves_text_as_it_is():
    """Claude Code's empty thinking parts showed 300 characters of signature; an image in a
    tool result, its base64 data.  Paths, URLs, long names and text are not tokens."""
    from viewer.core.formats.cursor import message_text

    sig = "EpACCokBCBAYAipA/nFPT4Wqj6COofjp9O+5cZ+kMb411TBNyLoWRobq3kkqm2nn9ZZZTv/3ue2uvdWNLcs+k4dXY1a7" * 2
    image = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==" * 2
    sha = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"  # (a hash is kept)
    kept = {"path": "/home/maya/code/invoice-tool/src/invoice_tool/very/deep/module/totals_and_taxes.py",
            "url": "https://example.com/" + "a" * 50,
            "name": "a_really_long_but_perfectly_readable_identifier_that_goes_on_and_on",
            "text": "words " * 4}
    unknown: list[str] = []
    message_text({"content": [
        {"type": "thinking", "thinking": "", "signature": sig},
        {"type": "tool_result", "content": [{"type": "image", "source": {"type": "base64", "data": image}}]},
        {"type": "tool_use", "input": kept},
        {"type": "hash", "sha256": sha},
    ]}, unknown)
    thinking, result, use, digest = unknown
    assert sha in digest, digest
    assert f'"signature": "{sig[:12]}… ({len(sig)} characters)"' in thinking and sig[:20] not in thinking
    assert f'"data": "{image[:12]}… ({len(image)} characters)"' in result and image[:20] not in result
    for value in kept.values():
        assert value[:60] in use, use


def test_an_unknown_events_token_fields_show_by_their_length():
    """Claude Code's partial messages send each thinking block's signature as an unknown
    stream_event: its fields showed up to 2,000 characters of base64."""
    from viewer.core.formats.common import notice_text

    sig = "EpACCokBCBAYAipA/nFPT4Wqj6COofjp9O+5cZ+kMb411TBNyLoWRobq3kkqm2nn9ZZZTv/3ue2uvdWNLcs+k4dXY1a7" * 4
    text = notice_text({"type": "stream_event", "event": {"type": "content_block_delta", "index": 0,
                                                           "delta": {"type": "signature_delta", "signature": sig}},
                         "extra": [{"data": sig}]})
    assert f"event.delta.signature={sig[:12]}… ({len(sig)} characters)" in text, text
    assert f'extra=[{{"data": "{sig[:12]}… ({len(sig)} characters)"}}]' in text, text
    assert sig[:20] not in text


def test_a_group_of_lines_that_are_not_events_stays_capped_while_it_is_drawn(h):
    """(From a code review.)  Reading a group's text (the transcript draws it at every frame
    while garbage streams in) joined its lines into one part, and from then on every line was
    kept: memory grew with the garbage, and what the model kept depended on what was drawn."""
    from viewer.core.model import MALFORMED_HEAD, MALFORMED_TAIL

    recs, _ = h.decode(init() + user("q") + b"".join(b"garbage %d\n" % i for i in range(500)))
    m = StreamModel()
    for rec in recs:
        m.apply(rec)
        for b in m.current.blocks:
            b.text  # noqa: B018 - as the transcript reads them
    (group,) = [b for b in m.current.blocks if b.kind == "malformed"]
    kept = group.text.splitlines()
    assert len(kept) == MALFORMED_HEAD + MALFORMED_TAIL and group.ref == 500
    assert kept[0].endswith(":garbage 0") and kept[-1].endswith(":garbage 499")


def test_calls_without_a_call_id_are_each_a_call(h):
    """(From a code review.)  Two calls with no call id (nor toolCallId) were one: the second
    start was taken for a repeat of the first, and the first call was gone.  Each completion
    goes to the first call of its kind still running."""
    read = tool("started", "", kind="readToolCall", args={"path": "a.txt"})
    shell = tool("started", "", args={"command": "make", "workingDirectory": ""})
    read_done = tool("completed", "", kind="readToolCall", args={"path": "a.txt"},
                     result={"success": {"content": "x"}})
    shell_done = tool("completed", "", args={"command": "make"},
                      result={"success": {"command": "make", "exitCode": 2, "stdout": "", "stderr": "boom"}})
    m, _, _ = apply_all(init() + read + shell + shell_done + read_done + result(), h)
    (s,) = m.sessions
    assert [(t.kind_key, t.target, t.status) for t in s.tools] == [
        ("readToolCall", "a.txt", "success"), ("shellToolCall", "make", "failed")]
    assert all(t.start_line and t.end_line for t in s.tools) and not any(t.duplicates for t in s.tools)


def test_a_completion_before_its_start_is_one_call(h):
    """(From a code review.)  A call's completion, then its start: the start made a second call,
    "unfinished" for ever (and printed as such)."""
    m, _, _ = apply_all(init() + shell_completed("c1") + shell_started("c1") + result(), h)
    (s,) = m.sessions
    (t,) = s.tools
    assert (t.status, t.target, t.start_line, t.end_line) == ("success", "ls", 3, 2)
    assert [b.kind for b in s.blocks].count("tool") == 1


def test_calls_without_an_id_side_by_side_complete_by_their_target_and_a_repeat_is_one(h):
    """(From a review of the change above.)  Two calls without ids side by side: the one started
    second finished first and took the first one's start; the same completion again made a
    second call with no start."""
    sleep = tool("started", "", args={"command": "sleep 10", "workingDirectory": ""}, ts=1000)
    false = tool("started", "", args={"command": "false", "workingDirectory": ""}, ts=2000)
    false_done = tool("completed", "", args={"command": "false"},
                      result={"success": {"command": "false", "exitCode": 1, "stdout": "", "stderr": ""}}, ts=3000)
    sleep_done = tool("completed", "", args={"command": "sleep 10"},
                      result={"success": {"command": "sleep 10", "exitCode": 0, "stdout": "", "stderr": ""}}, ts=11000)
    m, _, _ = apply_all(init() + sleep + false + false_done + assistant("x") + sleep_done + false_done + result(), h)
    (s,) = m.sessions
    assert [(t.target, t.status, t.start_line, t.end_line) for t in s.tools] == [
        ("sleep 10", "success", 2, 6), ("false", "failed", 3, 7)]
    assert s.tools[1].duplicates == 1


def test_text_mode_prints_a_call_once_when_its_completion_comes_again_or_its_start_after_others(h):
    """(From a review.)  A completion seen again, later, printed the call twice; a start that
    came after its completion, once another call had started, printed it again as unfinished
    (text mode lets go of finished calls)."""
    import io

    from viewer.core.printer import make_printer

    data = (init() + shell_completed("c1", "first") + shell_started("c2", "second") + shell_started("c1", "first")
            + shell_completed("c2", "second") + assistant("x") + shell_completed("c2", "second") + result("bye"))
    out, err = io.StringIO(), io.StringIO()
    p = make_printer("text", out, err)
    recs, _ = h.decode(data)
    for r in recs:
        p.handle(r)
    p.close()
    calls = [x for x in out.getvalue().splitlines() if "Ran terminal command" in x]
    assert [x.split(" (")[0] for x in calls] == ["✓ Ran terminal command first", "✓ Ran terminal command second"], calls
    assert "unfinished" not in out.getvalue()


def test_copying_a_call_gives_its_main_argument_whole(real_stream_path):
    """y copies a call's command with all its lines (the list shows the first), or its path or
    pattern; in every real Cursor stream, each call that has one gives it."""
    from viewer.core.formats.cursor import copy_text

    events = [orjson.loads(x) for x in real_stream_path.read_bytes().splitlines() if x.strip().startswith(b"{")]
    calls: dict[str, dict] = {}
    for ev in events:
        if ev.get("type") == "tool_call":
            calls.setdefault(ev.get("call_id"), {})[ev.get("subtype")] = ev
    for pair in calls.values():
        started, completed = pair.get("started"), pair.get("completed")
        text = copy_text(started, completed)
        body = next(iter((started or completed)["tool_call"].values()))
        args = body.get("args", {})
        for field in ("command", "pattern", "globPattern", "path"):  # (a grep's: its pattern)
            if field in args:
                assert text == args[field], (text, args)
                break
    assert copy_text(None, None) == ""


def test_copying_a_todo_call_gives_its_list():
    """(From a trial.)  y on a to-do call copied the one item its row names; the list is what
    the detail shows, marks and all."""
    from tests.conftest import SAMPLES_DIR
    from viewer.core.formats.cursor import copy_text, tool_sections

    events = [orjson.loads(x) for x in (SAMPLES_DIR / "demo_session.ndjson").read_bytes().splitlines()]
    started, completed = [e for e in events if "updateTodosToolCall" in e.get("tool_call", {})][:2]
    text = copy_text(started, completed)
    assert text.splitlines() == ["[~] Reproduce the failing tests locally", "[ ] Find the root cause in totals.py",
                                 "[ ] Fix the tax/discount calculation without changing test expectations",
                                 "[ ] Run the full suite and review the diff"]
    assert dict((s.title, s.body) for s in tool_sections(started, completed))["Todos"] == text


@pytest.mark.parametrize(("usage", "expected"), [
    ({"inputTokens": 14948, "outputTokens": 103}, (14948, 103, 0, 0)),  # before cache counts
    ({"inputTokens": 18377, "outputTokens": 122, "cacheReadTokens": 22528, "cacheWriteTokens": 0},
     (18377, 122, 22528, 0)),
    # (From a trial: the cache writes were left out, a run's cost looked far less.)
    ({"inputTokens": 6, "outputTokens": 258, "cacheReadTokens": 19705, "cacheWriteTokens": 19965},
     (6, 258, 19705, 19965)),
    ({"inputTokens": "12", "outputTokens": 3.0, "cacheReadTokens": True, "cacheWriteTokens": -4}, (12, 3, 0, 0)),  # lenient
    ({"inputTokens": -1, "outputTokens": 3}, None),  # no count a run can have
    ({"outputTokens": 3}, None),
    ("lots", None),
])
def test_a_results_token_counts_are_read_by_the_format(h, usage, expected):
    """The format module reads Cursor's usage keys: the header shows what the model holds,
    with no knowledge of how an agent names them."""
    data = init() + json.dumps({"type": "result", "subtype": "success", "is_error": False, "result": "",
                                "session_id": SID, "usage": usage}).encode() + b"\n"
    m, _, _ = h.model_of(data)
    t = m.sessions[0].result.tokens
    assert (None if t is None else (t.input, t.output, t.cache_read, t.cache_write)) == expected


@pytest.mark.parametrize(("ms", "said"), [
    (812, "812 ms"), (12_240, "12.2 s"), (59_949, "59.9 s"),
    (59_950, "1m00s"), (59_999, "1m00s"),  # (was "60.0 s")
    (101_000, "1m41s"), (60_500, "1m01s"), (61_500, "1m02s"), (7_500_000, "2h05m"),
    (-5000, ""), (None, ""),  # (a negative one was shown: "Run succeeded · -5000 ms")
])
def test_durations_are_said_in_the_unit_that_fits(ms, said):
    from viewer.core.detail import fmt_duration

    assert fmt_duration(ms) == said


def test_line_breaks_in_a_question_do_not_make_more_questions(h):
    """(From a review.)  A line break in a question's title, prompt, option or answer made it
    several questions, and put the answer in the middle of the title."""
    def q(phase: str, body: dict) -> bytes:
        key = "query" if phase == "request" else "response"
        return orjson.dumps({"type": "interaction_query", "subtype": phase, "query_type": "askQuestionInteractionQuery",
                             key: {"id": 1, **body}, "session_id": "s"}) + b"\n"

    data = (q("request", {"askQuestionInteractionQuery": {"args": {
                "title": "Line one\nline two",
                "questions": [{"prompt": "Multi\nline?", "options": [{"label": "A\nB"}, {"label": "C"}]},
                              {"options": [{"label": "only options"}]}]}}})
            + q("response", {"askQuestionInteractionResponse": {"result": {"rejected": {"reason": "skipped\nby user"}}}}))
    m, _, _ = h.model_of(data)
    (b,) = [b for b in m.sessions[0].blocks if b.kind == "query"]
    assert b.text.split("\n") == ["Question: Line one line two → rejected: skipped by user",
                                  "Multi line? (A B / C)", "(only options)"]


def test_a_question_is_named_in_words_not_by_its_type(h):
    """(From a trial.)  "? askQuestion: Payments feature clarification": the stream's type name."""
    def q(qtype: str | None) -> bytes:
        return orjson.dumps({"type": "interaction_query", "subtype": "request", "query_type": qtype,
                             "query": {"id": 1, "x": {"args": {"title": "T"}}}, "session_id": "s"}) + b"\n"

    m, _, _ = h.model_of(q("askQuestionInteractionQuery") + q("webSearchRequestQuery")
                         + q("pickColorRequestQuery") + q("pick_colorRequestQuery") + q("InteractionQuery") + q(None))
    assert [b.text for b in m.sessions[0].blocks if b.kind == "query"] == [
        "Question: T", "Web search: T", "Pick color: T", "Pick color: T", "Query: T", "Query: T"]


def test_a_delta_names_the_open_text_its_event_closed_in_its_own_run_only(h):
    """The event that ends an open text names it (the view draws it as ended); a run ended by
    the next run's start, or by a restart, is not named in the next run's delta (its block
    numbers are another run's)."""
    m, deltas, _ = apply_all(init() + user() + assistant("Hel", ts=1) + assistant("lo", ts=2) + result(), h, end=False)
    text = next(i for i, b in enumerate(m.sessions[0].blocks) if b.kind == "assistant")
    assert deltas[-1].flags & Change.RESULT and deltas[-1].closed == text
    assert all(d.closed == -1 for d in deltas[:-1])
    m, deltas, _ = apply_all(init() + user() + assistant("Hel", ts=1) + init() + user(), h, end=False)  # (resumed)
    assert m.sessions[0].ended and [d.closed for d in deltas[-2:]] == [-1, -1] and deltas[-2].session == 1
    recs, _ = h.decode(assistant("Hel", ts=1) + init())
    m = StreamModel()
    m.apply(recs[0])
    m.restart(1)
    assert m.apply(recs[1]).closed == -1


@pytest.mark.parametrize("name", ["demo_session", "claude_code_run", "codex_run", "gemini_run"])
def test_a_calls_detail_without_its_result_says_why_by_its_status_in_every_format(h, name):
    """A call whose result has not been read: its detail ends by saying whether it is still
    running (the run goes on) or never ended (the run did); one with its result says neither.
    Cut each agent's sample right before its first command's result."""
    from tests.conftest import SAMPLES_DIR
    from viewer.core.detail import NO_RESULT, call_sections
    from viewer.core.model import ref_span

    whole = (SAMPLES_DIR / f"{name}.ndjson").read_bytes()
    m, _, _ = h.model_of(whole)
    t = next(t for t in m.sessions[0].tools if t.short in ("Shell", "Bash") and t.status == "success")
    fmt = m.format_of(m.sessions[0])

    def event(data, ref):
        offset, length = ref_span(ref)
        return orjson.loads(data[offset:offset + length])

    said = [s.body for s in call_sections(t, event(whole, t.start_ref), event(whole, t.end_ref), fmt.tool_sections)]
    assert said and not set(said) & set(NO_RESULT.values())
    cut = whole[:ref_span(t.end_ref)[0]]  # (up to the line of its result)
    for end, status in ((False, "running"), (True, "unfinished")):
        m, _, _ = h.model_of(cut, end=end)
        (u,) = [u for u in m.sessions[0].tools if u.call_id == t.call_id]
        assert u.status == status
        sections = call_sections(u, event(cut, u.start_ref), None, fmt.tool_sections)
        assert (sections[-1].title, sections[-1].body) == ("Status", NO_RESULT[status])
        assert [s.body for s in sections].count(NO_RESULT[status]) == 1


def test_a_call_left_running_at_the_runs_result_is_unfinished_and_a_late_end_still_counts(h):
    """(From a trial: a failed run's call still running at its result went on running, its
    clock too, and text mode said it after the run's summary, which did not count it.)"""
    data = init() + user() + shell_started("c1", "pytest") + shell_started("c2", "sleep 9", ts=1100) \
        + shell_completed("c1", "pytest") + result("aborted", is_error=True, subtype="error")
    m, deltas, _ = apply_all(data, h, end=False)
    s = m.sessions[0]
    assert deltas[-1].flags & Change.TOOLS
    assert [t.status for t in s.tools] == ["success", "unfinished"]
    assert s.running == 0 and s.status_counts["unfinished"] == 1
    h.check_status_counts(m)
    assert [(d.tool, s.tools[d.tool].status) for d in deltas[-1].each() if d.tool >= 0] == [(1, "unfinished")]
    m.apply(h.decode(shell_started("c2", "sleep 9", ts=1100))[0][0])  # (its start again: a copy, not a call)
    assert len(s.tools) == 2 and s.tools[1].duplicates == 1
    m.apply(h.decode(shell_completed("c2", "sleep 9", ts=9000))[0][0])  # (a completion that came after all)
    assert s.tools[1].status == "success" and s.status_counts["unfinished"] == 0
    h.check_status_counts(m)


def test_an_event_whose_type_is_not_text_says_what_it_is(h):
    """(From a trial: {"type": 123} read "(no type)", its 123 not said.)"""
    m, _, _ = apply_all(init() + j(type=123, subtype=["x"], session_id=SID) + result(), h)
    texts = [b.text for b in m.sessions[0].blocks if b.kind == "unknown"]
    assert texts == ['(no type): type=123 subtype=["x"]'], texts


def test_a_semantic_searchs_results_are_a_section_each_by_file_and_lines():
    """(From a trial: its results read as Cursor writes them, <search_result path=…> tags and
    all.)  Text in no such block is kept."""
    from viewer.core.formats import cursor

    results = ('<search_result path="src/a.py" startLine="30" endLine="32">\ndef f():\n    return 1\n</search_result>\n'
               '<search_result path="src/b.py" startLine="7" endLine="7">\nX = 2\n</search_result>\n(2 results)')
    tc = {"semSearchToolCall": {"args": {"query": "where is f"}, "result": {"success": {"results": results}}}}
    done = {"type": "tool_call", "subtype": "completed", "call_id": "c1", "tool_call": tc}
    secs = cursor.tool_sections(None, done, "c1")
    assert [(s.title, s.body, s.kind, s.lang) for s in secs] == [
        ("Query", "where is f", "text", ""),
        ("src/a.py, lines 30-32", "def f():\n    return 1", "code", "src/a.py"),
        ("src/b.py, line 7", "X = 2", "code", "src/b.py"),
        ("More results", "(2 results)", "text", ""),
    ]
