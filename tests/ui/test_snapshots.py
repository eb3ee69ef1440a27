"""Screens a user sees, guarded by SVG snapshots (fixed size, frozen clock)."""

from __future__ import annotations

import pytest

from tests.ui.conftest import first_lines, make_app, make_replay_app, sample, settle

WIDE = (120, 40)


def test_demo_finished(snap_compare):
    assert snap_compare(make_app(sample("demo_session.ndjson")), run_before=settle, terminal_size=WIDE)


def test_demo_mid_stream(snap_compare):
    data = sample("demo_session.ndjson")
    n = len(data.splitlines()) * 55 // 100
    app = make_app(first_lines(data, n), live=True, eof=False)
    assert snap_compare(app, run_before=settle, terminal_size=WIDE)


def test_failed_run(snap_compare):
    assert snap_compare(make_app(sample("failed_run.ndjson")), run_before=settle, terminal_size=WIDE)


def test_truncated_run(snap_compare):
    assert snap_compare(make_app(sample("truncated_run.ndjson")), run_before=settle, terminal_size=WIDE)


def test_claude_code_run(snap_compare):
    """A Claude Code run: its calls in the list, its thought and text in the transcript, the
    failed test run's output in the detail."""
    async def select(pilot):
        await settle(pilot)
        app = pilot.app
        app.timeline.follow = False
        app.timeline.select_tool(0)
        await pilot.pause()

    assert snap_compare(make_app(sample("claude_code_run.ndjson")), run_before=select, terminal_size=WIDE)


def test_claude_code_sub_agent(snap_compare):
    """A Claude Code sub-agent's call selected: marked ↳ in the list, "under" its Task in the
    detail; the sub-agent's words apart in the transcript, under its Task's description."""
    async def select(pilot):
        await settle(pilot)
        app = pilot.app
        call = next(t for t in app.session.tools if t.parent)
        app.timeline.follow = False
        app.timeline.select_tool(call.index)
        await pilot.pause()
        app.transcript.scroll_to_block(app.session.tools[call.index].block - 3)
        await pilot.pause()

    assert snap_compare(make_app(sample("claude_code_run.ndjson")), run_before=select, terminal_size=WIDE)


def _select_failed_shell(pilot):
    async def select(pilot):
        await settle(pilot)
        app = pilot.app
        call = next(t for t in app.session.tools if t.short == "Shell" and t.status == "failed")
        app.timeline.follow = False
        app.timeline.select_tool(call.index)
        await pilot.pause()
    return select(pilot)


def test_codex_run(snap_compare):
    """A Codex run (codex exec --json): the agent named where a model would be, the to-do list
    ticked off, the failed test run's output in the detail."""
    assert snap_compare(make_app(sample("codex_run.ndjson")), run_before=_select_failed_shell, terminal_size=WIDE)


def test_gemini_run(snap_compare):
    """A Gemini CLI run: its prompt, its text chunks joined, its calls timed by its own clock,
    the edit's diff in the detail."""
    async def select(pilot):
        await settle(pilot)
        app = pilot.app
        app.timeline.follow = False
        app.timeline.select_tool(next(t.index for t in app.session.tools if t.short == "Edit"))
        await pilot.pause()

    assert snap_compare(make_app(sample("gemini_run.ndjson")), run_before=select, terminal_size=WIDE)


def test_two_sessions_shows_the_latest(snap_compare):
    assert snap_compare(make_app(sample("two_sessions.ndjson")), run_before=settle, terminal_size=WIDE)


@pytest.mark.parametrize(
    "kind",
    ["shellToolCall", "readToolCall", "editToolCall", "grepToolCall", "lsToolCall", "globToolCall",
     "updateTodosToolCall", "mcpToolCall", "readLintsToolCall"],
)
def test_detail_of_each_tool_kind(snap_compare, kind):
    async def select(pilot):
        await settle(pilot)
        app = pilot.app
        tools = app.session.tools
        first = next(t for t in tools if t.kind_key == kind)
        app.timeline.follow = False
        app.timeline.select_tool(first.index)
        await pilot.pause()

    assert snap_compare(make_app(sample("demo_session.ndjson")), run_before=select, terminal_size=WIDE)


def test_raw_json_toggle(snap_compare):
    async def raw(pilot):
        await settle(pilot)
        await pilot.press("r")

    assert snap_compare(make_app(sample("reference_example.ndjson")), run_before=raw, terminal_size=WIDE)


def test_thinking_shown(snap_compare):
    """t shows the model's thinking, in Markdown like the answer, dimmed; the transcript stays
    where it was going (here: its top, still on the way there when t is pressed)."""

    async def run(pilot):
        await settle(pilot)
        pilot.app.transcript.action_scroll_home()
        await pilot.press("t")
        await pilot.pause()

    assert snap_compare(make_app(sample("demo_session.ndjson")), run_before=run, terminal_size=WIDE)


def test_help(snap_compare):
    async def run(pilot):
        await settle(pilot)
        await pilot.press("question_mark")

    assert snap_compare(make_app(sample("demo_session.ndjson")), run_before=run, terminal_size=WIDE)


def test_search(snap_compare):
    async def run(pilot):
        await settle(pilot)
        await pilot.press("slash", *"pytest", "enter")
        await pilot.pause()

    assert snap_compare(make_app(sample("demo_session.ndjson")), run_before=run, terminal_size=WIDE)


def test_narrow_80x24(snap_compare):
    assert snap_compare(make_app(sample("demo_session.ndjson")), run_before=settle, terminal_size=(80, 24))


def test_replay_paused_mid_run(snap_compare):
    app = make_replay_app(sample("demo_session.ndjson"), speed=4.0)
    app.replay.seek(app.replay.total // 2)
    assert snap_compare(app, run_before=settle, terminal_size=WIDE)


def test_filtered_timeline(snap_compare):
    """Both filters set: the count stays on the top border, the filters read on the bottom one."""
    async def filtered(pilot):
        await settle(pilot)
        for _ in range(20):  # bounded: a failing snapshot, not a hung suite
            if pilot.app.timeline.kind_filter == "editToolCall":
                break
            await pilot.press("c")
        await pilot.press("s")
        await pilot.pause()

    assert snap_compare(make_app(sample("demo_session.ndjson")), run_before=filtered, terminal_size=WIDE)
