"""The tool list, the transcript's call lines and the header's counts as calls change
(from a code review of the UI widgets)."""

from __future__ import annotations

import re

import orjson
import pytest
from rich.cells import cell_len

from tests.ui.conftest import make_app, sample, screen_rows, settle
from viewer.core.feed import BytesFeed
from viewer.ui.app import AgentViewerApp

SID = "11111111-2222-3333-4444-555555555555"
T0 = 1_790_000_000_000


def ev(**fields) -> bytes:
    fields.setdefault("session_id", SID)
    return orjson.dumps(fields) + b"\n"


HEAD = [
    ev(type="system", subtype="init", apiKeySource="login", cwd="/home/u/proj", model="Auto",
       permissionMode="default"),
    ev(type="user", message={"role": "user", "content": [{"type": "text", "text": "do it"}]}),
]
RESULT = ev(type="result", subtype="success", duration_ms=5000, duration_api_ms=5000, is_error=False,
            result="done", request_id="r")


def start(cid: str, key: str, args: dict, ts: int = T0) -> bytes:
    return ev(type="tool_call", subtype="started", call_id=cid, timestamp_ms=ts, tool_call={key: {"args": args}})


def done(cid: str, key: str, args: dict, result: dict, ts: int = T0 + 1000) -> bytes:
    return ev(type="tool_call", subtype="completed", call_id=cid, timestamp_ms=ts,
              tool_call={key: {"args": args, "result": result}})


def shell(cid: str) -> tuple[bytes, bytes]:
    args = {"command": f"echo {cid}"}
    ok = {"success": {"command": args["command"], "exitCode": 0, "stdout": "", "stderr": ""}}
    return start(cid, "shellToolCall", args), done(cid, "shellToolCall", args, ok)


def live():
    clock = lambda: 1000.0  # noqa: E731
    feed = BytesFeed(b"", live=True, eof=False, clock=clock)
    return feed, AgentViewerApp(feed, clock=clock)


def push(feed: BytesFeed, *lines: bytes) -> None:
    feed._queue.put(feed.ingest.feed(b"".join(lines)))


async def _running_under_the_running_filter(feed, app, pilot, ids=("c1", "c2", "c3")):
    """Shell calls ``ids`` started, the list focused and filtered to the running ones."""
    push(feed, *HEAD, *(shell(c)[0] for c in ids))
    await settle(pilot)
    tl = app.timeline
    app.set_focus(tl)
    tl.status_filter = "running"
    tl.refilter()
    await settle(pilot)
    assert tl.rows == list(range(len(ids)))
    return tl


async def test_the_selected_call_leaving_the_filter_gives_its_place_to_the_next():
    """With a status filter on and follow off, a selected call that left the filter (it
    completed) left the cursor on a row past the list: nothing selected."""
    feed, app = live()
    async with app.run_test(size=(140, 40)) as pilot:
        tl = await _running_under_the_running_filter(feed, app, pilot)
        await pilot.press("up", "down")  # the last row, following off
        await settle(pilot)
        assert not tl.follow and tl.selected_index() == 2
        push(feed, shell("c3")[1])
        await settle(pilot)
        assert tl.rows == [0, 1]
        assert tl.selected_index() == 1  # (the row before: none comes after it)
        assert app.detail.tool.index == 1


async def test_the_list_and_the_detail_show_one_call_when_rows_leave_the_filter():
    """A call above the cursor left the filter: the list highlighted the call after the
    selected one while the detail still showed the selected one (Enter opened another)."""
    feed, app = live()
    async with app.run_test(size=(140, 40)) as pilot:
        tl = await _running_under_the_running_filter(feed, app, pilot)
        await pilot.press("home", "down")
        await settle(pilot)
        assert tl.selected_index() == 1 and app.detail.tool.index == 1
        push(feed, shell("c1")[1])  # above the cursor
        await settle(pilot)
        assert tl.rows == [1, 2]
        assert tl.selected_index() == 1 and app.detail.tool.index == 1  # the same call
        push(feed, shell("c2")[1])  # the selected one: its place goes to the call after it
        await settle(pilot)
        assert tl.rows == [2]
        assert tl.selected_index() == 2 and app.detail.tool.index == 2


async def test_a_start_that_comes_after_its_completion_shows_the_calls_time():
    """An askQuestion call's start comes after its completion (stream-json.md): the model then
    knows its time, but the list's row and the transcript's line were drawn from a cache keyed
    without it and never showed it."""
    key, args = "askQuestionToolCall", {"title": "Which DB?", "questions": []}
    feed, app = live()
    async with app.run_test(size=(140, 30)) as pilot:
        push(feed, *HEAD, done("q1", key, args, {"success": {}}, ts=T0 + 4000))
        await settle(pilot)
        tl, tr = app.timeline, app.transcript
        assert "3.0 s" not in tl.render_line(0).text
        push(feed, start("q1", key, args, ts=T0 + 1000))
        await settle(pilot)
        assert len(app.session.tools) == 1 and app.session.tools[0].duration_ms == 3000
        assert "3.0 s" in tl.render_line(0).text
        marker = next(tr.render_line(y).text for y in range(tr.size.height)
                      if "question" in tr.render_line(y).text)
        assert "3.0 s" in marker, marker


async def test_a_call_of_an_unknown_outcome_is_not_counted_ok():
    """A completion whose outcome the viewer does not know ("?" in the list) was counted
    "1 ok" in the header."""
    args = {"command": "deploy"}
    data = b"".join([*HEAD, start("c1", "shellToolCall", args),
                     done("c1", "shellToolCall", args, {"needsConfirmation": {"command": "deploy"}}), RESULT])
    app = make_app(data)
    async with app.run_test(size=(140, 30)) as pilot:
        await settle(pilot)
        assert app.session.tools[0].status == "unknown"
        line2 = app.header.render().plain.split("\n")[1]
        assert "1 tool: 0 running · 0 ok · 0 failed · 1 of unknown outcome" in line2, line2


async def test_a_kind_of_wide_characters_keeps_the_lists_columns():
    """An unknown kind named in wide characters was sized by its characters, not its cells:
    its row was longer than the pane, and its time was cut off."""
    args = {"path": "/home/u/proj/a.txt"}
    data = b"".join([
        *HEAD,
        start("c1", "読込ファイルToolCall", args, ts=T0), done("c1", "読込ファイルToolCall", args, {"success": {}}, ts=T0 + 3000),
        start("c2", "readToolCall", args, ts=T0 + 4000),
        done("c2", "readToolCall", args, {"success": {"content": "x"}}, ts=T0 + 7000), RESULT,
    ])
    app = make_app(data)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        tl = app.timeline
        rows = [tl.render_line(y).text for y in range(2)]
        assert app.session.tools[0].short == "読込ファイル"
        assert all(cell_len(row) == tl.scrollable_content_region.width for row in rows), rows
        assert all(row.rstrip().endswith("3.0 s") for row in rows), rows
        assert len({cell_len(row[: row.index("a.txt")]) for row in rows}) == 1, rows  # one column


async def test_a_long_kind_of_wide_characters_is_cut_with_no_space_before_its_ellipsis():
    """A kind's name past the column's 16 cells was cut with its last wide character made a
    space before the "…" ("データベース検 …"); the space that fills the column comes after it."""
    args = {"path": "/home/u/proj/a.txt"}
    key = "データベース検索ツールToolCall"
    data = b"".join([*HEAD, start("c1", key, args), done("c1", key, args, {"success": {}}), RESULT])
    app = make_app(data)
    async with app.run_test(size=(140, 30)) as pilot:  # (narrower, the kind gives room to the file)
        await settle(pilot)
        tl = app.timeline
        row = tl.render_line(0).text
        assert "データベース検…  a.txt" in row, row
        assert cell_len(row) == tl.scrollable_content_region.width


async def test_a_kinds_name_is_shown_as_it_is_in_the_filter_and_the_palette():
    """The kind filter's line on the border was Textual markup with the kind's name escaped,
    and the escape lets ``[$error]`` through: "only: Deploy", the rest taken for a style.
    The command palette's filter commands too."""
    key, args = "deploy[$error]ToolCall", {"path": "x"}
    data = b"".join([*HEAD, start("c1", key, args), done("c1", key, args, {"success": {}}), RESULT])
    app = make_app(data)
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(pilot)
        tl = app.timeline
        assert app.session.tools[0].short == "Deploy[$error]"
        tl.kind_filter = key
        tl.refilter()
        await settle(pilot)
        assert "only: Deploy[$error]" in screen_rows(app)
        await pilot.press("ctrl+p")
        await settle(pilot)
        await pilot.press(*"kind")
        await settle(pilot)
        await pilot.pause(0.3)
        assert "Filter: kind Deploy[$error] (deploy[$error]ToolCall)" in screen_rows(app)


def test_a_file_that_grows_as_it_is_read_is_never_more_than_all_read():
    """(From a code review.)  The share read was bytes read over the size at open: a file
    that grew while it loaded read "104%"."""
    from viewer.ui.widgets.header import SessionHeader

    header = SessionHeader(clock=lambda: 1000.0)
    header.progress = (52, 100)
    assert header.percent_loaded == 52
    header.progress = (104, 100)
    assert header.percent_loaded == 100


async def test_y_copies_a_calls_whole_command_as_shown():
    """(From a daily-user trial.)  There was no way to copy a command the agent ran: the
    terminal's selection took the borders and line numbers, a wrapped line at a time, and
    the list shows a command's first line only.  y copies it whole, in the list and full
    screen, with control characters escaped as the detail shows them."""
    command = "cd /work && \\\n  pytest -q \x1b]52;c;AAAA\x07tests/"
    args = {"command": command}
    ok = {"success": {"command": command, "exitCode": 0, "stdout": "", "stderr": ""}}
    data = b"".join([*HEAD, start("c1", "shellToolCall", args), done("c1", "shellToolCall", args, ok),
                     start("c2", "readToolCall", {"path": "/home/u/proj/a.txt"}),
                     done("c2", "readToolCall", {"path": "/home/u/proj/a.txt"}, {"success": {"content": "x"}}), RESULT])
    app = make_app(data)
    async with app.run_test(size=(120, 30), notifications=True) as pilot:
        await settle(pilot)
        await pilot.press("home", "y")
        assert app.clipboard == "cd /work && \\\n  pytest -q \\x1b]52;c;AAAA\\x07tests/"
        assert any(n.message.startswith("Copied (2 lines): cd /work") for n in app._notifications)
        await pilot.press("enter", "right_square_bracket", "y")  # full screen, the next call
        assert app.clipboard == "/home/u/proj/a.txt"
        assert app.timeline.selected_index() == 0  # (the call shown there, not the list's)


async def test_y_in_a_calls_detail_copies_the_section_being_read():
    """(From a trial.)  There was no way to copy a call's output: y copied its command, even
    full screen on a search match in the output.  In the detail, y copies the section being
    read: at the top (the call's facts), the command as before; scrolled down, or on a search
    match, that section whole (its output), in the pane and full screen."""
    args = {"command": "make test"}
    output = "\n".join(f"test_{i} PASSED" for i in range(60)) + "\nFAILED test_totals - assert 64.91 == 64.92"
    failed = {"failure": {"command": "make test", "exitCode": 2, "stdout": output, "stderr": ""}}
    data = b"".join([*HEAD, start("c1", "shellToolCall", args), done("c1", "shellToolCall", args, failed), RESULT])
    app = make_app(data)
    async with app.run_test(size=(120, 30), notifications=True) as pilot:
        await settle(pilot)
        await pilot.press("home", "tab", "y")  # (the detail pane, at its top)
        assert app.focused is app.detail and app.clipboard == "make test"
        await pilot.press("G", "y")  # its end: the output
        assert app.clipboard == output, app.clipboard
        assert list(app._notifications)[-1].message.startswith("Copied stdout (61 lines): test_0 PASSED")
        await pilot.press("shift+tab", "enter")  # full screen: the same
        await settle(pilot)
        await pilot.press("y")
        assert app.clipboard == "make test"
        # A match on the output's first line: the view's top is at the call's facts, where y
        # alone copies the command; the match is in the output.
        await pilot.press("/", *"test_0 PASSED", "enter")
        await settle(pilot)
        app.copy_to_clipboard("")
        await pilot.press("y")
        assert app.clipboard == output
        app.copy_out("a\nb", what="Output (exit 1)")  # (Codex's title: not "(exit 1) (2 lines)")
        await pilot.pause()
        assert list(app._notifications)[-1].message == "Copied Output (exit 1), 2 lines: a⏎b"
        # (From a trial: a file of 73 lines, its last ending in a newline, as the detail counts
        # them, was "74 lines" copied.)
        app.copy_out("a\nb\n", what="x.py")
        await pilot.pause()
        assert list(app._notifications)[-1].message == "Copied x.py (2 lines): a⏎b⏎"


async def test_y_copies_a_coloured_output_as_drawn_and_y_again_copies_the_next_section(monkeypatch):
    """(From a trial.)  A command's coloured output (pytest --color=yes) was copied with its
    colour codes, pasted as "\\x1b[32m.\\x1b[0m…"; and a call that fits in the view cannot
    be scrolled to its output, so y there only ever copied the command.  y again goes on to
    the next section (not one that only repeats the command), round to the command."""
    import viewer.ui.app as app_module

    args = {"command": "pytest --color=yes"}
    stdout = "\x1b[32m.\x1b[0m\x1b[31mF\x1b[0m\n\x1b[31m\x1b[1m1 failed\x1b[0m, 1 passed"
    failed = {"failure": {"command": "pytest --color=yes", "exitCode": 1, "stdout": stdout, "stderr": ""}}
    data = b"".join([*HEAD, start("c1", "shellToolCall", args), done("c1", "shellToolCall", args, failed),
                     start("c2", "shellToolCall", {"command": "ls"}),
                     done("c2", "shellToolCall", {"command": "ls"}, {"success": {"command": "ls", "exitCode": 0,
                                                                                  "stdout": "a.py"}}), RESULT])
    app = make_app(data)
    async with app.run_test(size=(120, 40), notifications=True) as pilot:
        await settle(pilot)
        await pilot.press("home", "tab")
        assert app.detail.max_scroll_y == 0  # (it all fits: no scrolling to the output)
        titles = [sec.title for sec in app.detail.sections()]
        assert titles == ["Command", "stdout", "Outcome: failure"], titles
        copied, said = [], []

        async def y() -> None:
            app.clear_notifications()
            await pilot.press("y")
            await pilot.pause()
            copied.append(app.clipboard)
            said.append(str(list(app._notifications)[-1].message))

        for _ in range(4):
            await y()
        assert copied[0] == "pytest --color=yes" and said[0].endswith("\ny again: stdout"), said
        assert copied[1] == ".F\n1 failed, 1 passed", copied  # (no colour codes)
        assert said[1].startswith("Copied stdout (2 lines): .F⏎1 failed") and said[1].endswith("y again: Outcome: failure")
        assert said[2].startswith("Copied Outcome: failure") and said[2].endswith("y again: pytest --color=yes")
        assert copied[3] == "pytest --color=yes"  # round
        # Another call and back: y is the section in view again (the command), not the next.
        await y()
        await pilot.press("shift+tab", "down", "up", "tab")
        await settle(pilot)
        await y()
        assert copied[-1] == "pytest --color=yes" and said[-1].endswith("y again: stdout"), said
        # Later, the same.
        monkeypatch.setattr(app_module, "COPY_AGAIN_S", 0.0)
        await y()
        assert said[-1].startswith("Copied: pytest --color=yes") and said[-1].endswith("y again: stdout"), said
        # Inside tmux with its default set-clipboard (external), the copy never reaches the
        # clipboard: the notice says so, until it is set on.
        monkeypatch.setattr(app_module, "tmux_set_clipboard", lambda: "external")
        await pilot.press("shift+tab")
        await y()
        assert "inside tmux, set-clipboard is external" in said[-1], said[-1]
        monkeypatch.setattr(app_module, "tmux_set_clipboard", lambda: "on")
        await y()
        assert "tmux" not in said[-1]


async def test_y_on_the_blank_row_above_a_section_copies_that_section():
    """(From a trial.)  Scrolled so that the view's top row is the blank one between two
    sections, the next section's title just below it, y copied the section above, out of view
    ("Copied Description"), not the one read."""
    app = make_app(sample("claude_code_run.ndjson"))
    async with app.run_test(size=(120, 40), notifications=True) as pilot:
        await settle(pilot)
        await pilot.press("home", "tab")
        d = app.detail
        titles = {sec.title: sec for sec in d._titles.values()}
        later = list(titles)[1:]  # (not the first: above it are the call's facts, where y copies the command)
        assert later, titles
        for _ in range(200):  # down a row at a time, to a blank row over a later section's title
            if not d.render_line(0).text.strip() and d.render_line(1).text.strip() in later:
                break
            await pilot.press("j")
            await pilot.pause()
        else:
            raise AssertionError("no blank row above a section's title came to the top")
        sec = titles[d.render_line(1).text.strip()]
        await pilot.press("y")
        assert app.clipboard == sec.body, (sec.title, app.clipboard)


async def test_a_long_command_gives_way_to_its_exit_code_and_time():
    """(From a daily-user trial.)  A command longer than the room pushed "· exit 0" and the
    time off the row: the list showed "ls -1 | wc -l; ls -1 …", the transcript "· ex…".
    The command is cut instead (y copies it whole)."""
    command = "python -m pytest -q --maxfail=1 " + " ".join(f"tests/test_module_{i}.py" for i in range(12))
    args = {"command": command}
    ok = {"success": {"command": command, "exitCode": 0, "stdout": "", "stderr": ""}}
    data = b"".join([*HEAD, start("c1", "shellToolCall", args, ts=T0),
                     done("c1", "shellToolCall", args, ok, ts=T0 + 1000), RESULT])
    app = make_app(data)
    async with app.run_test(size=(160, 30)) as pilot:
        await settle(pilot)
        row = app.timeline.render_line(0).text.rstrip()
        assert "python -m pytest" in row and row.endswith("… · exit 0    1.0 s"), row
        tr = app.transcript
        line = next(tr.render_line(y).text for y in range(tr.size.height) if "Ran terminal" in tr.render_line(y).text)
        assert "python -m pytest" in line and line.rstrip().endswith("… · exit 0 · 1.0 s"), line


async def test_the_header_counts_the_tokens_read_from_the_cache():
    """(From a daily-user trial.)  A run that read 22,528 tokens from the cache, more than its
    18,377 of input, showed only "tokens 18,377 in / 122 out"."""
    from tests.conftest import real_capture

    data = real_capture("maestro__02_shell_tool_call.ndjson")
    app = make_app(data)
    async with app.run_test(size=(160, 30)) as pilot:
        await settle(pilot)
        assert "tokens 18,377 in / 122 out · 22,528 cache read" in app.header.render_line(1).text


async def test_the_header_says_what_a_claude_code_run_cost():
    from tests.test_claude import init, j

    def run(**cost) -> bytes:
        return init() + j(type="result", subtype="success", is_error=False, result="ok", **cost,
                          usage={"input_tokens": 5, "output_tokens": 7, "cache_read_input_tokens": 300})

    # (In --print's order: from a trial, the header had the cost between the counts.)
    for data, said in ((run(total_cost_usd=0.1184), " · 300 cache read · $0.118"),
                       (run(total_cost_usd="lots"), " · 300 cache read"), (run(), " · 300 cache read")):
        app = make_app(data)
        async with app.run_test(size=(140, 30)) as pilot:
            await settle(pilot)
            line = app.header.render_line(1).text.rstrip()
            assert line.endswith("tokens 5 in / 7 out" + said), line
            if "$" in said:  # narrow: the cache's count goes first, the cost stays
                await pilot.resize_terminal(len(line) - 2, 30)
                await settle(pilot)
                line = app.header.render_line(1).text.rstrip()
                assert line.endswith("tokens 5 in / 7 out · $0.118"), line


async def test_a_narrow_header_still_says_what_the_run_cost_when_its_token_counts_do_not_fit():
    """(From a Claude Code user's trial.)  At 80 columns a run with a few calls lost its token
    counts and its cost with them, with room left for the cost."""
    from tests.test_claude import assistant, init, j

    data = init() + assistant({"type": "text", "text": "ok"}) + j(type="result", subtype="success", is_error=False, result="ok", total_cost_usd=0.4213,
                      usage={"input_tokens": 123_456_789, "output_tokens": 7_654_321})
    # (and at a width with room for the counts, not the cost after them: the cost, from a trial)
    for width, said in ((90, "no tool calls   tokens 123,456,789 in / 7,654,321 out · $0.421"),
                        (60, "no tool calls   $0.421"), (50, "no tool calls   $0.421")):
        app = make_app(data)
        async with app.run_test(size=(width, 20)) as pilot:
            await settle(pilot)
            assert app.header.render_line(1).text.strip() == said


async def test_an_api_errors_words_are_shown_once_above_the_failed_result():
    """(From a Claude Code user's trial.)  Claude Code's message of an API error, then its
    failed result of the same words: the transcript showed them twice; a failed result whose
    words are not above it still shows them."""
    from tests.test_claude import assistant, init, j, result

    said = "API Error: 529 Overloaded"
    synthetic = j(type="assistant", error="rate_limit", message={
        "id": "m9", "model": "<synthetic>", "role": "assistant", "content": [{"type": "text", "text": said}]})
    for data, times in ((init() + assistant({"type": "text", "text": "Checking."}) + synthetic
                         + result(said, is_error=True), 1),
                        (init() + assistant({"type": "text", "text": "Checking."}) + result(said, is_error=True), 1)):
        app = make_app(data)
        async with app.run_test(size=(120, 30)) as pilot:
            await settle(pilot)
            rows = screen_rows(app)
            assert rows.count("API Error: 529") == times and "✗ Run failed" in rows, rows


async def test_a_resumed_run_is_said_to_be_resumed_in_the_header_and_in_text_mode(tmp_path, capsys):
    """(From a Claude Code user's trial.)  ``claude --resume`` writes a new init of the same
    session: the header called it "session 2/2" as if it were another session."""
    from tests.test_claude import assistant, init, result
    from viewer.cli import main

    def run(sid: str) -> bytes:
        return (init() + assistant({"type": "text", "text": "ok"}) + result("ok")).replace(
            b"db770ce2-618e-4385-94de-98d5ef2f9613", sid.encode())

    for data, said in ((run("s-1") + run("s-1"), "session 2/2 resumed (< >)"),
                       (run("s-1") + run("s-2"), "session 2/2 (< >)")):
        app = make_app(data)
        async with app.run_test(size=(140, 30)) as pilot:
            await settle(pilot)
            assert f"no tool calls   {said}   tokens" in app.header.render_line(1).text
        p = tmp_path / "runs.ndjson"
        p.write_bytes(data)
        with pytest.raises(SystemExit):
            main(["--print", str(p)])
        heading = "--- session 2 (resumed) ---" if "resumed" in said else "--- session 2 ---"
        assert heading in capsys.readouterr().out.splitlines()


async def test_a_failed_long_command_keeps_its_exit_code_too():
    """(From a review.)  The command gave way only when all that follows it took at most half
    the room: a failed call's error text is part of that, so its "· exit 2", what says most,
    was still pushed off, in the list and the transcript."""
    command = "python -m pytest -q --maxfail=1 " + " ".join(f"tests/test_module_{i}.py" for i in range(12))
    args = {"command": command}
    bad = {"failure": {"command": command, "exitCode": 2, "stdout": "",
                       "stderr": "ERROR: file or directory not found: tests/test_module_11.py (and more)"}}
    app = make_app(b"".join([*HEAD, start("c1", "shellToolCall", args, ts=T0),
                             done("c1", "shellToolCall", args, bad, ts=T0 + 1000), RESULT]))
    async with app.run_test(size=(160, 30)) as pilot:
        await settle(pilot)
        assert app.session.tools[0].detail == "exit 2"
        row = app.timeline.render_line(0).text
        # (the list, narrower, leaves the error to the detail: it was cut to "· …")
        assert "python -m pytest" in row and re.search(r"… · exit 2 +1\.0 s$", row.rstrip()), row
        tr = app.transcript
        line = next(tr.render_line(y).text for y in range(tr.size.height) if "Ran terminal" in tr.render_line(y).text)
        assert line.rstrip().endswith("… · exit 2 · 1.0 s"), line  # (its error: in the detail)


async def test_the_selected_call_stays_in_view_when_rows_above_it_leave_the_filter():
    """(From a review.)  It stayed selected, but the list kept its scroll: the call was off
    screen (row 26, rows 33 to 39 in view)."""
    feed, app = live()
    ids = [f"c{i}" for i in range(60)]
    async with app.run_test(size=(140, 30)) as pilot:
        tl = await _running_under_the_running_filter(feed, app, pilot, ids)
        h = tl.scrollable_content_region.height
        assert h < 20
        await pilot.press(*["up"] * (2 * h - 1))  # following off; the selected call at the top of the view
        await settle(pilot)
        picked = tl.selected_index()
        assert tl.cursor == tl.scroll_offset.y
        push(feed, *(shell(c)[1] for c in ids[:20]))  # 20 calls above it leave the filter
        await settle(pilot)
        assert tl.selected_index() == picked and app.detail.tool.index == picked
        assert tl.scroll_offset.y <= tl.cursor < tl.scroll_offset.y + h


async def test_the_search_place_goes_when_the_search_finds_nothing_any_more():
    """(From a review.)  A search that matched only the thinking, then t hid it and n found
    nothing: the border still said "'migration': block 1 of 1", and the block stayed marked."""
    data = b"".join([
        *HEAD,
        ev(type="thinking", subtype="delta", text="first plan the migration", timestamp_ms=T0),
        ev(type="thinking", subtype="completed", timestamp_ms=T0 + 10),
        ev(type="assistant", message={"role": "assistant", "content": [{"type": "text", "text": "All done."}]}),
        RESULT,
    ])
    app = make_app(data)
    async with app.run_test(size=(120, 30), notifications=True) as pilot:
        await settle(pilot)
        await pilot.press("t", "slash", *"migration", "enter")
        await settle(pilot)
        assert str(app.transcript.border_subtitle).startswith("'migration': block 1 of 1")
        await pilot.press("t", "n")
        await settle(pilot)
        assert any(n.message.startswith("No match for 'migration'") for n in app._notifications)
        assert not str(app.transcript.border_subtitle) and app.transcript.highlight_block == -1


async def test_y_with_no_call_says_there_is_none_to_copy():
    """(From a review.)  It said "No tool call to open."."""
    app = make_app(b"".join([*HEAD, RESULT]))
    async with app.run_test(size=(120, 30), notifications=True) as pilot:
        await settle(pilot)
        app.timeline.focus()  # (a run without calls starts in the transcript, where y copies a message)
        await pilot.press("y")
        await settle(pilot)
        assert [n.message for n in app._notifications] == ["No tool call to copy."]


async def test_a_searchs_directory_is_shown_relative_to_the_runs():
    """(From a daily-user trial.)  File paths were shown relative to the run's directory, but
    not the directory a Grep or a Glob searched: "round\\( in /home/maya/code/invoice-to…" hid
    the part that says where ("src").  A command that names a path is left as it is."""
    grep = {"pattern": "round\\(", "path": "/home/u/proj/src"}
    glob = {"globPattern": "tests/**/test_*.py", "targetDirectory": "/home/u/proj"}
    other = {"pattern": "x", "path": "/elsewhere/src"}
    shell = {"command": "ls /home/u/proj/src"}
    calls = [("grepToolCall", grep, {"success": {}}), ("globToolCall", glob, {"success": {"totalFiles": 4}}),
             ("grepToolCall", other, {"success": {}}),
             ("shellToolCall", shell, {"success": {"command": shell["command"], "exitCode": 0}})]
    data = b"".join([*HEAD, *(start(f"c{i}", k, a) + done(f"c{i}", k, a, r) for i, (k, a, r) in enumerate(calls)),
                     RESULT])
    app = make_app(data)
    async with app.run_test(size=(160, 30)) as pilot:
        await settle(pilot)
        rows = [app.timeline.render_line(y).text for y in range(4)]
        assert "Grep   round\\( in src " in rows[0], rows
        assert "Glob   tests/**/test_*.py in . · 4 files" in rows[1], rows
        assert "x in /elsewhere/src" in rows[2], rows
        assert "ls /home/u/proj/src" in rows[3], rows
        shown = "\n".join(app.transcript.render_line(y).text for y in range(app.transcript.size.height))
        assert "Grepped round\\( in src" in shown, shown
        app.run_search("( in src")  # (found as shown)
        assert app._search_hits


async def test_a_long_line_that_is_not_an_event_wraps_under_its_text():
    """(From a daily-user trial.)  In the transcript's list of lines that are not events, a
    wrapped line went on under "line 4:", not under its own text."""
    noise = b"WARN: some stderr noise from the cli that goes on and on about what it was doing then\n"
    app = make_app(b"".join([*HEAD, noise, b"ERROR: second\n", RESULT]))
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        tr = app.transcript
        rows = [tr.render_line(y).text for y in range(tr.size.height)]
        first = next(i for i, r in enumerate(rows) if "line 3: WARN" in r)
        column = rows[first].index("WARN")
        assert rows[first + 1][:column].strip() == "" and rows[first + 1][column:].strip(), rows[first:first + 3]


async def test_the_header_says_a_results_duration_as_a_duration():
    """(From a daily-user trial.)  A live run's clock read "00:28", then its result made it
    "21.5 s" in the same place: another reading, it seemed, not the run's time."""
    data = b"".join(HEAD) + ev(type="assistant", message={"role": "assistant", "content": [
        {"type": "text", "text": "ok"}]}, timestamp_ms=T0) + ev(
        type="result", subtype="success", duration_ms=21_500, duration_api_ms=21_500, is_error=False,
        result="ok", request_id="r", timestamp_ms=T0 + 28_000)
    app = make_app(data)
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(pilot)
        assert app.header.render_line(0).text.startswith(" ✓ SUCCEEDED  in 21.5 s  Cursor · Auto")


async def test_a_run_with_no_time_has_no_gap_too_wide_in_the_header_nor_the_full_screen_title():
    """(From a review.)  A Codex run has no times, so no clock after its badge: the header read
    "✓ SUCCEEDED   Codex" (the clock's gap left, three spaces where fields are two apart) and
    the full-screen detail's title "✓ SUCCEEDED  ───" (a space too many at its end)."""
    from tests.ui.conftest import sample

    app = make_app(sample("codex_run.ndjson"))
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(pilot)
        assert app.header.elapsed(app.session) == ""
        assert app.header.render_line(0).text.startswith(" ✓ SUCCEEDED  Codex  session "), \
            app.header.render_line(0).text
        app.set_focus(app.timeline)
        await pilot.press("enter")
        await pilot.pause()
        top = app.screen._compositor.render_strips()[0].text  # the border, with its title
        assert "Detail · run  ✓ SUCCEEDED ───" in top, top  # (screen_rows drops a space of no colour)


async def test_the_detail_shows_a_running_calls_start_again():
    """(From a code review.)  The same start again, with new arguments, changed the list's
    row but not the detail: it kept "sleep 100" and no "duplicates" until the call ended."""
    from tests.ui.test_pilot import push

    clock = lambda: 1000.0  # noqa: E731
    feed = BytesFeed(b"", live=True, eof=False, clock=clock)
    app = AgentViewerApp(feed, clock=clock)
    async with app.run_test(size=(120, 40)) as pilot:
        push(feed, [*HEAD, start("c1", "shellToolCall", {"command": "sleep 100"}),
                    ev(type="assistant", message={"role": "assistant", "content": [{"type": "text", "text": "…"}]})])
        await settle(pilot)
        push(feed, [start("c1", "shellToolCall", {"command": "make test"})])
        await settle(pilot)
        d = app.detail
        shown = [d.render_line(y).text for y in range(d.size.height)]
        assert "make test" in shown[0] and "sleep 100" not in "\n".join(shown)
        assert any("duplicate" in row for row in shown)


async def test_square_brackets_in_the_transcript_go_to_its_call_lines_and_enter_opens_one():
    """(From a keyboard-only trial.)  No key went from a call line of the transcript to its
    call: Enter opened the tool list's selection (the run's last call), whatever the
    transcript showed.  ] and [ go from call line to call line, from the view's top when the
    marked call is out of view; the list and the detail follow, and Enter opens that call."""
    from tests.ui.conftest import sample

    app = make_app(sample("demo_session.ndjson"))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        last = len(app.session.tools) - 1
        assert app.timeline.selected_index() == last  # (following: the newest call)
        app.transcript.focus()
        await pilot.press("g", "right_square_bracket")
        await settle(pilot)
        assert app.timeline.selected_index() == 0  # the first call line in view
        marked = [line for line in screen_rows(app).splitlines() if "▶" in line]
        assert len(marked) == 1 and "linear-get_issue" in marked[0]
        await pilot.press("right_square_bracket", "right_square_bracket", "left_square_bracket")
        await settle(pilot)
        assert app.timeline.selected_index() == 1
        assert "Listed directory" in app.detail.render_line(0).text
        await pilot.press("G", "left_square_bracket")  # the marked call is out of view now
        await settle(pilot)
        assert app.timeline.selected_index() == last  # the last call line in view
        await pilot.press("enter")
        await settle(pilot)
        assert f"call {last + 1} of {last + 1}" in screen_rows(app)


async def test_a_replays_square_brackets_still_play_to_a_call_from_the_transcript():
    from tests.ui.conftest import make_replay_app, sample

    app = make_replay_app(sample("demo_session.ndjson"))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        app.transcript.focus()
        await pilot.press("right_square_bracket")
        assert app.model.current.tools and app.model.current.tools[-1].status == "running"


@pytest.mark.parametrize("closed_by", ["enter", "escape"])
async def test_a_search_gives_the_focus_back_to_the_pane_it_was_started_from(closed_by):
    """(From a keyboard-only trial.)  The search box gave the focus to the tool list, from
    the transcript too, so j and k moved the list's selection instead of scrolling the text
    around the hit."""
    from tests.ui.conftest import sample

    app = make_app(sample("demo_session.ndjson"))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        for pane in (app.transcript, app.timeline):
            pane.focus()
            await pilot.press("slash", *"total", closed_by)
            await settle(pilot)
            assert app.focused is pane


async def test_escape_clears_the_transcripts_search():
    """(From a keyboard-only trial.)  Only x cleared a search, and the filters with it."""
    from tests.ui.conftest import sample

    app = make_app(sample("demo_session.ndjson"))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("s", "slash", *"total", "enter")  # (s: a status filter, kept)
        await settle(pilot)
        assert "'total': block 1 of" in str(app.transcript.border_subtitle)
        await pilot.press("escape")
        await settle(pilot)
        assert app.timeline.search == "" and not str(app.transcript.border_subtitle)
        assert app.transcript.highlight_block == -1 and app.timeline.status_filter != "all"


@pytest.mark.parametrize("live", [True, False])
@pytest.mark.parametrize("key", ["escape", "x"])
async def test_clearing_a_search_follows_again_where_its_steps_had_stopped_following(key, live):
    """(From a trial of --follow.)  A search's step stops the panes following (the hit stays in
    view); cleared, they stayed stopped for good, away from a live run's new output.  Once the
    input has ended they stay where the search left them (from a trial on a big saved run:
    back at the end, the call just found was lost)."""
    from tests.ui.conftest import sample

    app = make_app(sample("demo_session.ndjson"), live=live, eof=not live)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        tr = app.transcript
        assert tr.follow and app.timeline.follow
        await pilot.press("slash", *"git status", "enter")  # (a call: the list goes to it)
        await settle(pilot)
        assert not tr.follow and not app.timeline.follow and tr.scroll_y < tr.max_scroll_y
        found, place = app.timeline.selected_index(), tr.scroll_y
        await pilot.press(key)
        await settle(pilot)
        if live:
            assert tr.follow and app.timeline.follow and tr.scroll_y == tr.max_scroll_y
            assert app.timeline.selected_index() == len(app.session.tools) - 1
        else:
            assert not tr.follow and not app.timeline.follow
            assert (app.timeline.selected_index(), tr.scroll_y) == (found, place)
            assert not app.transcript.highlight_query  # (cleared all the same)


async def test_clearing_a_search_leaves_a_pane_the_user_moved_since_where_it_is():
    """(From a review.)  Esc, to drop the highlight, took the list's selection and the
    transcript's place from where the user had moved them after the search."""
    from tests.ui.conftest import sample

    app = make_app(sample("demo_session.ndjson"))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("slash", *"git status", "enter")
        await settle(pilot)
        app.timeline.focus()
        await pilot.press("home")
        app.transcript.scroll_home(animate=False, immediate=True)
        await settle(pilot)
        await pilot.press("escape")
        await settle(pilot)
        assert app.timeline.selected_index() == 0 and app.transcript.scroll_y == 0
        assert not app.timeline.follow and not app.transcript.follow


async def test_clearing_a_search_does_not_follow_where_following_was_off_before_it():
    from tests.ui.conftest import sample

    app = make_app(sample("demo_session.ndjson"))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("f", "slash", *"total", "enter")  # (f: following off first)
        await settle(pilot)
        await pilot.press("escape")
        await settle(pilot)
        assert not app.transcript.follow and not app.timeline.follow


async def test_shift_arrows_move_a_replay_ten_seconds_of_play_time():
    """(From a keyboard-only trial.)  Only a click on the bar moved a replay by time: the
    middle of a long run was reached by holding →."""
    from tests.ui.conftest import make_replay_app, sample

    app = make_replay_app(sample("demo_session.ndjson"))
    r = app.replay
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("shift+right", "shift+right", "shift+right")
        assert r.clock_time == pytest.approx(30.0) and not r.playing
        assert r.times[r.position - 1] <= 30.0 < r.times[r.position]  # the events up to 00:30 applied
        await pilot.press("shift+left")
        assert r.clock_time == pytest.approx(20.0)
        await pilot.press("shift+left", "shift+left", "shift+left")
        assert r.position == 0
        await pilot.press("end", "shift+right")
        assert r.at_end


async def test_a_narrow_header_keeps_the_working_directory_and_whole_numbers():
    """(From a keyboard-only trial.)  At 80 columns the working directory was gone while
    "key login" and "mode def…" stayed, and "612,8…" cut a count into another number."""
    from tests.ui.conftest import sample

    app = make_app(sample("demo_session.ndjson"))
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        first, second = app.header.render_line(0).text, app.header.render_line(1).text
        assert first.rstrip().endswith("…/invoice-tool") and "key login" not in first
        assert "…" not in second and second.rstrip().endswith("38,412 in / 4,987 out")
    app = make_app(sample("demo_session.ndjson"))
    async with app.run_test(size=(160, 24)) as pilot:  # (room for all of it)
        await settle(pilot)
        first = app.header.render_line(0).text
        assert "key login  mode default  /home/maya/code/invoice-tool" in first
        assert "612,864 cache read" in app.header.render_line(1).text


async def test_the_search_does_not_find_a_running_calls_past_tense_label():
    """(From a code review.)  A running call is drawn "Shell", in the transcript and the list,
    yet /Ran terminal found it, with nothing marked."""
    clock = lambda: 1000.0  # noqa: E731
    feed = BytesFeed(b"", live=True, eof=False, clock=clock)
    app = AgentViewerApp(feed, clock=clock)
    async with app.run_test(size=(120, 40)) as pilot:
        from tests.ui.test_pilot import push

        push(feed, [*HEAD, start("c1", "shellToolCall", {"command": "sleep 100"})])
        await settle(pilot)
        await pilot.press("slash", *"ran terminal", "enter")
        await settle(pilot)
        assert app._search_hits == []
        push(feed, [done("c1", "shellToolCall", {"command": "sleep 100"},
                         {"success": {"exitCode": 0, "stdout": ""}})])
        await settle(pilot)
        await pilot.press("n")  # (what arrived since is searched again)
        await settle(pilot)
        assert len(app._search_hits) == 1


async def test_the_full_screen_details_title_reads_on_a_light_theme():
    """(From a keyboard-only trial.)  On textual-light, "Detail" and the run's time on the
    full-screen detail's border were orange on grey, a contrast of 1.4:1."""
    from tests.ui.conftest import sample

    def luminance(c) -> float:
        def part(v: int) -> float:
            v /= 255
            return v / 12.92 if v <= 0.03928 else ((v + 0.055) / 1.055) ** 2.4
        return 0.2126 * part(c.red) + 0.7152 * part(c.green) + 0.0722 * part(c.blue)

    app = make_app(sample("demo_session.ndjson"))
    async with app.run_test(size=(120, 40)) as pilot:
        app.theme = "textual-light"
        await settle(pilot)
        await pilot.press("enter")
        await settle(pilot)
        view = app.screen.query_one("#zoom-detail")
        title = [seg for seg in app.screen._compositor.render_strips()[view.region.y] if "Detail" in seg.text]
        style = title[0].style
        fg, bg = style.color.get_truecolor(), style.bgcolor.get_truecolor()
        light, dark = sorted((luminance(fg), luminance(bg)), reverse=True)
        assert (light + 0.05) / (dark + 0.05) >= 4.5


async def test_the_app_starts_in_the_theme_asked_for():
    from tests.ui.conftest import sample

    app = make_app(sample("demo_session.ndjson"))
    app.theme_asked = "textual-light"
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert app.theme == "textual-light" and not app.current_theme.dark


async def test_square_brackets_in_the_transcript_skip_calls_the_filter_hides():
    """(From a review of this session's change.)  Under a kind filter, ] went to the next call
    whatever its kind: the list could not select it, and every ] stopped there."""
    from tests.ui.conftest import sample

    app = make_app(sample("demo_session.ndjson"))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        tl = app.timeline
        tl.kind_filter = "shellToolCall"
        tl.refilter()
        await settle(pilot)
        shells = [t.index for t in app.session.tools if t.kind_key == "shellToolCall"]
        tl.select_tool(shells[0])
        await settle(pilot)
        app.transcript.focus()
        app.transcript.scroll_to_block(app.session.tools[shells[0]].block, top=True)
        await settle(pilot)
        seen = []
        for _ in range(len(shells) - 1):
            await pilot.press("right_square_bracket")
            await settle(pilot)
            seen.append((tl.selected_index(), app.transcript.selected_tool))
        assert seen == [(i, i) for i in shells[1:]]


@pytest.mark.parametrize(("width", "end"), [(80, "…/invoice-tool"), (82, "…/code/invoice-tool"), (87, "…/maya/code/invoice-tool")])
async def test_a_narrow_headers_working_directory_keeps_every_directory_that_fits(width, end):
    """(From a review of this session's change.)  Cut already at a "/", the working directory
    lost one directory more ("…/invoice-tool" where "…/code/invoice-tool" fitted)."""
    from tests.ui.conftest import sample

    app = make_app(sample("demo_session.ndjson"))
    async with app.run_test(size=(width, 24)) as pilot:
        await settle(pilot)
        assert app.header.render_line(0).text.rstrip().endswith(f"  {end}")


def _said(text: str) -> bytes:
    return ev(type="assistant", message={"role": "assistant", "content": [{"type": "text", "text": text}]})


async def test_y_in_the_transcript_copies_the_last_message_on_screen_as_written():
    """(From the notes of several trials.)  No key copied what the agent said: y copied the
    tool list's call wherever the focus was, and the terminal's selection takes the borders.
    In the transcript y copies the last message on screen (following: the answer), as it was
    written (its Markdown), with control characters escaped; else the search's match."""
    answer = "## Fixed\n\nThe test now **passes**: run `pytest -q`.\x1b]52;c;AAAA\x07"
    data = b"".join([*HEAD, _said("Looking at the failing test first."),
                     start("c1", "readToolCall", {"path": "/home/u/proj/a.txt"}),
                     done("c1", "readToolCall", {"path": "/home/u/proj/a.txt"}, {"success": {"content": "x"}}),
                     _said(answer), ev(type="result", subtype="success", duration_ms=5000, is_error=False,
                                       result="Looking at the failing test first." + answer)])
    app = make_app(data)
    async with app.run_test(size=(120, 30), notifications=True) as pilot:
        await settle(pilot)
        await pilot.press("y")  # in the tool list: the call, as before
        assert app.clipboard == "/home/u/proj/a.txt"
        app.transcript.focus()
        await pilot.press("y")
        assert app.clipboard == "## Fixed\n\nThe test now **passes**: run `pytest -q`.\\x1b]52;c;AAAA\\x07"
        assert any(n.message.startswith("Copied the agent's message (3 lines): ## Fixed")
                   for n in app._notifications)
        await pilot.press("slash", *"do it", "enter")  # the prompt's match
        await settle(pilot)
        await pilot.press("y")
        assert app.clipboard == "do it"
        assert any(n.message == "Copied the prompt: do it" for n in app._notifications)


async def test_y_in_a_transcript_with_no_message_on_screen_says_so():
    app = make_app(b"".join([HEAD[0], start("c1", "readToolCall", {"path": "/home/u/proj/a.txt"})]))
    async with app.run_test(size=(120, 30), notifications=True) as pilot:
        await settle(pilot)
        app.transcript.focus()
        await pilot.press("y")
        await settle(pilot)
        assert app.clipboard == ""
        assert [n.message for n in app._notifications] == [
            "No message on screen to copy (y copies the last one in view)."]


async def test_y_does_not_send_a_huge_message_through_the_terminal():
    """(From a review.)  y sent a message of any size through the terminal (OSC 52), which many
    terminals cap, and a big one stalls: past COPY_MAX it says so instead."""
    from viewer.ui.app import COPY_MAX

    data = b"".join([*HEAD, _said("x" * (COPY_MAX + 1)), ev(type="result", subtype="success", is_error=False)])
    app = make_app(data)
    async with app.run_test(size=(120, 30), notifications=True) as pilot:
        await settle(pilot)
        app.transcript.focus()
        app.transcript.scroll_end(animate=False, immediate=True)
        await pilot.press("y")
        await settle(pilot)
        assert app.clipboard == ""
        assert any(n.message.startswith(f"Not copied: the agent's message is {COPY_MAX + 1:,} characters")
                   for n in app._notifications), [n.message for n in app._notifications]

        assert "--print writes a run's text" in str(list(app._notifications)[-1].message)


async def test_y_on_a_huge_output_says_which_line_of_the_input_holds_it():
    """(From a trial on a big run.)  y on a 10 MB file read said "agent-viewer --print writes a
    run's text out", but text mode leaves a call's output out."""
    from viewer.ui.app import COPY_MAX

    args = {"path": "/p/big.txt"}
    data = b"".join([*HEAD, start("c1", "readToolCall", args),
                     done("c1", "readToolCall", args, {"success": {"content": "x" * (COPY_MAX + 1)}}), RESULT])
    app = make_app(data)
    async with app.run_test(size=(120, 30), notifications=True) as pilot:
        await settle(pilot)
        await pilot.press("home", "tab", "y", "y")
        await settle(pilot)
        said = str(list(app._notifications)[-1].message)
        assert app.clipboard == "/p/big.txt", app.clipboard  # (the first y: its path)
        assert said.startswith(f"Not copied: /p/big.txt is {COPY_MAX + 1:,} characters") and said.endswith(
            f"; the call's events in the input: line {len(HEAD) + 1} → line {len(HEAD) + 2} (r shows them raw)."), said


async def test_calls_that_run_at_the_same_time_are_bracketed_and_named_in_each_others_detail():
    feed, app = live()
    async with app.run_test(size=(140, 40)) as pilot:
        push(feed, *HEAD, *shell("c1"), shell("c2")[0])
        await settle(pilot)
        assert app.timeline.render_line(1).text.startswith("⠋  2   Shell  echo c2")  # ran alone so far
        await pilot.press("up", "down")  # c2 on show, following off
        await settle(pilot)
        assert app.detail.tool.index == 1 and "alongside" not in screen_rows(app)
        push(feed, shell("c3")[0])  # c3 starts while c2 runs
        await settle(pilot)
        rows = [app.timeline.render_line(y).text for y in range(3)]
        assert rows[0].startswith("✓  1   Shell  echo c1")  # (a call that ran alone: the column blank)
        assert "2 ┌ Shell  echo c2" in rows[1] and "3 └ Shell  echo c3" in rows[2]
        screen = screen_rows(app)
        # The call on show names the one that started beside it, without being selected again.
        assert app.detail.tool.index == 1
        assert re.search(r"alongside\s*call 3\b", screen)
        # Filtered, the bracket joins the rows shown; a call whose peers are hidden has none.
        tl = app.timeline
        tl.status_filter = "running"
        tl.refilter()
        await settle(pilot)
        assert "2 ┌ Shell" in tl.render_line(0).text and "3 └ Shell" in tl.render_line(1).text
        push(feed, shell("c3")[1])
        await settle(pilot)
        assert tl.rows == [1] and "2   Shell  echo c2" in tl.render_line(0).text


async def test_a_sub_agents_calls_and_words_are_shown_under_its_task():
    from tests.test_claude import SUB_AGENT

    lines = SUB_AGENT.splitlines(keepends=True)
    feed, app = live()
    async with app.run_test(size=(140, 40)) as pilot:
        push(feed, *lines[:2])  # the Task starts
        await settle(pilot)
        await pilot.press("home")  # the Task on show, following off (up moves nothing: it stays on)
        await settle(pilot)
        assert app.detail.tool.short == "Task" and "ran call" not in screen_rows(app)
        push(feed, *lines[2:5])  # its sub-agent's prompt, words and first call
        await settle(pilot)
        # The Task on show names the call its sub-agent started, without being selected again.
        assert app.detail.tool.index == 0 and re.search(r"sub-agent\s*ran call 2\b", screen_rows(app))
        push(feed, *lines[5:])
        await settle(pilot)
        rows = [app.timeline.render_line(y).text for y in range(3)]
        assert rows[0].startswith("✓  1   Task    Find uses")
        assert rows[1].startswith("✓  2 ┌ ↳1 Read /a") and rows[2].startswith("✓  3 └ ↳1 Read /b")
        assert re.search(r"sub-agent\s*ran calls 2 and 3\b", screen_rows(app))
        await pilot.press("down")
        await settle(pilot)
        assert re.search(r"under\s*call 1 \(Task: Find uses\)", screen_rows(app))
        s = app.session
        shown = [app.transcript._render(s, b, 80) for b in s.blocks if b.kind == "subagent"]
        plain = ["".join(seg.text for seg in app.console.render(r, app.console.options.update_width(80)))
                 for r in shown]
        assert [x.rstrip() for x in plain[0].splitlines()[:2]] == [
            "  ↳1 Sub-agent · Find uses", "  Looking in both files."]  # (its Markdown drawn)
        (asked,) = [b for b in s.blocks if b.kind == "subprompt"]
        asked = "".join(seg.text for seg in app.console.render(app.transcript._render(s, asked, 80),
                                                              app.console.options.update_width(80)))
        assert [x.rstrip() for x in asked.splitlines()[:2]] == [
            "  ↳1 Prompt to the sub-agent · Find uses", "  Find every use of X"]
        marks = [app.transcript._render(s, s.blocks[t.block]).plain for t in s.tools]
        assert [m[:12] for m in marks] == ["  ✓ Ran suba", "▶ ↳1 ✓ Read ", "  ↳1 ✓ Read "], marks


async def test_two_sub_agents_at_once_are_told_apart_by_their_tasks_numbers():
    """(From a Claude Code user's trial.)  Two sub-agents running at once: their calls and
    thoughts all read "↳ Read", "↳ ✻ Thinking", in the list and the transcript.  Each mark now
    names the call it runs under by its number in the list, as the detail says "under call 2"."""
    from tests.test_claude import TWO_SUB_AGENTS

    app = make_app(TWO_SUB_AGENTS)
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        rows = [app.timeline.render_line(y).text for y in range(4)]
        assert [r[:21] for r in rows] == ["✓  1 ┌ Task    Audit ", "✓  2 └ Task    Audit ",
                                          "✓  3   ↳2 Read tax.py", "✓  4   ↳1 Grep coupon"], rows
        s = app.session
        app.transcript.show_thinking = True
        lines = [app.transcript._render(s, b, 80) for b in s.blocks]
        plain = [" ".join("".join(seg.text for seg in app.console.render(r, app.console.options.update_width(80)))
                          .split()) for r in lines]
        assert "↳2 ✻ Thinking tax.py has it" in plain, plain
        assert any(x.startswith("↳2 ✓ Read file tax.py") for x in plain), plain
        assert any(x.startswith("▶ ↳1 ✓ Grepped coupon in .") for x in plain), plain


async def test_a_sub_agents_call_names_its_task_once_the_task_is_read():
    """(From a review.)  Joined while a sub-agent ran, its call's Task is read only from its
    result: the call on show said "under a call not read" until selected again."""
    from tests.test_claude import assistant, init, res, results, use

    feed, app = live()
    async with app.run_test(size=(140, 40)) as pilot:
        push(feed, init(), assistant(use("r1", "Read", file_path="/a"), mid="m2", parent="t1"))
        await settle(pilot)
        assert re.search(r"under\s*a call not read", screen_rows(app))
        assert app.timeline.render_line(0).text[1:].startswith("  1   ↳ Read  /a")  # (running; room for its Task's number)
        app.timeline.follow = False  # (r1 stays on show)
        push(feed, results(res("r1", "a"), parent="t1"))
        await settle(pilot)
        push(feed, results(res("t1", "found")))  # (only the Task's result: r1 is as it was)
        await settle(pilot)
        assert app.detail.tool.index == 0 and re.search(r"under\s*call 2\b", screen_rows(app))
        # The list's and the transcript's marks name it too (their drawings were kept before).
        assert app.timeline.render_line(0).text.startswith("✓  1   ↳2 Read /a")
        assert re.search(r"↳2 ✓ Read file\s*/a", screen_rows(app))


async def test_clearing_a_search_follows_a_live_run_again_after_its_box_gave_the_rows_back():
    """(From a live-watching trial.)  While the search box was open the transcript had two rows
    less; the step's place, read before the box's rows came back, was past the end and moved up
    at the next layout, so Esc took it for the user's own scrolling: the transcript stayed on
    the hit while the run went on."""
    from tests.ui.test_pilot import live_demo, push

    lines, feed, app = live_demo()
    async with app.run_test(size=(120, 40)) as pilot:
        push(feed, lines[:150])
        await pilot.pause(0.3)
        await pilot.press("k", "k", "slash", *"tax", "enter")
        await pilot.pause(0.2)
        tr = app.transcript
        assert not tr.follow and "'tax': block 1 of" in str(tr.border_subtitle)
        push(feed, lines[150:200])
        await pilot.pause(0.3)
        assert tr.max_scroll_y > tr.scroll_y
        await pilot.press("escape")
        await pilot.pause(0.3)
        assert tr.follow and tr.scroll_y == tr.max_scroll_y


@pytest.mark.parametrize(("path", "kind"), [
    ("/tmp/claude-1000/-home-saurabh-Projects-maestro/9afe9e75-89bb-404f-b3d6-b1280cab2cda/scratchpad/spike.txt",
     "writeToolCall"),
    ("services/billing/src/main/java/com/example/invoice/totals/TaxAndDiscountCalculator.java",  # (relative)
     "writeToolCall"),
    ("/home/maya/code/invoice-tool/src/invoice_tool/formatting/currencies/money_and_tax.py", "editToolCall"),  # "(new file)" after
])
async def test_a_long_path_titling_a_files_contents_wraps_whole_in_the_detail(path, kind):
    """(From a trial.)  A written file's section, titled by its path, was cut at the row's end
    ("/tmp/claude-1000/-home-saurabh-Projects-maestro/9afe9e75-…"): its name was lost.  It
    wraps after a "/", whole, as the heading's target does; a relative path too, and one with
    words after it (a new file's: it was folded mid-name)."""
    args = {"path": path, "fileText": "HELLO\n"}
    done_ = {"success": {"path": path, "linesCreated": 1, "fileSize": 6}}
    if kind == "editToolCall":
        done_ = {"success": {"path": path, "afterFullFileContent": "HELLO\n", "linesAdded": 1}}
    data = b"".join([*HEAD, start("c1", kind, args), done("c1", kind, args, done_), RESULT])
    app = make_app(data)
    async with app.run_test(size=(80, 30)) as pilot:
        await settle(pilot)
        await pilot.press("home", "enter")
        await settle(pilot)
        view = app.screen.query_one("#zoom-detail")
        rows = [view.render_line(y).text.strip() for y in range(view.size.height)]
        at = next((i for i, row in enumerate(rows) if row.startswith(path[:12])), None)
        assert at is not None, "\n".join(rows)
        title = path + (" (new file)" if kind == "editToolCall" else "")
        assert rows[at] + rows[at + 1] == title and rows[at].endswith("/"), rows[at:at + 3]


@pytest.mark.parametrize("outcome", ["rejected", "success"])
def test_a_rejected_write_says_no_size_it_never_wrote(outcome):
    """(From a review.)  A Cursor write that was refused read "⊘ Create a.txt · 3 lines · 6 B",
    its arguments' size, as if written."""
    from tests.conftest import decode_bytes
    from viewer.core.formats import get_format
    from viewer.core.model import StreamModel

    args = {"path": "/p/a.txt", "fileText": "a\nb\nc\n"}
    result = {"rejected": {"reason": "no"}} if outcome == "rejected" else {"success": {"linesCreated": 3,
                                                                                        "fileSize": 6}}
    m = StreamModel(get_format())
    recs, _ = decode_bytes(b"".join([*HEAD, start("c1", "writeToolCall", args),
                                     done("c1", "writeToolCall", args, result), RESULT]))
    for rec in recs:
        m.apply(rec)
    (t,) = m.sessions[0].tools
    assert t.status == outcome
    assert (t.detail == "") == (outcome == "rejected"), t.detail
