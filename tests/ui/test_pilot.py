"""Behaviour of the running app, driven with Textual's pilot."""

from __future__ import annotations

import html
import os
import re
import tempfile
import time

import orjson
import pytest
from textual import events

from tests.conftest import real_capture
from tests.ui.conftest import make_app, make_replay_app, sample, screen_rows, settle
from viewer.core.detail import fmt_wait
from viewer.core.feed import BytesFeed
from viewer.ui.app import AgentViewerApp
from viewer.ui.render import MATCH_STYLE, SPINNER
from viewer.ui.widgets.timeline import STATUS_FILTERS


def live_demo(clock=lambda: 1000.0):
    """(the demo's lines, a live feed that never ends, an app on it): tests push lines in."""
    feed = BytesFeed(b"", live=True, eof=False, clock=clock)
    app = AgentViewerApp(feed, clock=clock)
    return sample("demo_session.ndjson").splitlines(keepends=True), feed, app


def push(feed: BytesFeed, lines: list[bytes]) -> None:
    """``lines`` arrive on a live feed (the app applies them at its next frames)."""
    feed._queue.put(feed.ingest.feed(b"".join(lines)))


def up_to_first_call(lines: list[bytes]) -> list[bytes]:
    """The lines up to the first tool call's start: that call is running."""
    return lines[: next(i for i, line in enumerate(lines) if b'"subtype":"started"' in line) + 1]


def replay_of_file(path, playing: bool = False):
    """``--replay`` of a file on disk as the CLI builds it, the file read to its end first:
    (the app, the file's index)."""
    from viewer.core.feed import StoreFeed
    from viewer.core.replay import FileIndex, Replay
    from viewer.ui.replay import ReplayApp

    feed = StoreFeed(str(path))
    index = FileIndex(feed.store, os.path.getsize(path))
    index.read()
    return ReplayApp(Replay(index=index, playing=playing), feed, clock=lambda: 0.0, start_reading=False), index


def _plain(app, widget) -> str:
    """What a widget shows, as plain text."""
    return "\n".join(widget.render_line(y).text for y in range(widget.size.height))


def _match_rows(app) -> list[str]:
    """The transcript's rows on screen of the block a search went to (a bar down its left)."""
    return [row.split("▌", 1)[1] for row in _plain(app, app.transcript).splitlines() if "▌" in row]


def _transcript_words(app) -> str:
    """The transcript on screen as one line of words (borders and wrapping left out)."""
    return " ".join(_plain(app, app.transcript).replace("│", " ").split())


async def _transcript_from_top(app, pilot) -> str:
    """The transcript's first screen (Home in it), as :func:`_transcript_words`."""
    app.set_focus(app.transcript)
    await pilot.press("home")
    await pilot.pause()
    return _transcript_words(app)


async def test_arrow_keys_move_the_selection_and_the_detail_follows():
    app = make_app(sample("demo_session.ndjson"))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        tl = app.timeline
        last = len(app.session.tools) - 1
        assert tl.selected_index() == last  # following: newest call selected
        await pilot.press("up", "up")
        assert tl.selected_index() == last - 2
        await pilot.pause()
        shown = app.session.tools[last - 2]
        assert app.detail.tool is shown
        await pilot.press("k", "j", "j")
        assert tl.selected_index() == last - 1
        await pilot.press("home")
        assert tl.selected_index() == 0


async def test_help_is_not_covered_by_the_demos_greeting():
    app = make_app(sample("demo_session.ndjson"))
    app.greeting = "This is the bundled demo run. ? lists the keys."
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert any("bundled demo" in n.message for n in app._notifications)
        await pilot.press("question_mark")
        await pilot.pause()
        assert type(app.screen).__name__ == "HelpScreen" and not list(app._notifications)
        # Its own footer: the main screen's offered keys that do nothing here (q closes it).
        from textual.widgets._footer import FooterKey

        assert [k.render().plain.strip() for k in app.screen.query(FooterKey)] == ["esc Close"]


async def test_a_narrow_full_screen_detail_keeps_search_and_help_in_its_footer():
    """(From a trial: at 60 columns its footer kept r Raw JSON and y Copy, and lost / Search
    and ? Help, which lists every key.)"""
    from textual.widgets._footer import FooterKey

    app = make_app(sample("demo_session.ndjson"))
    async with app.run_test(size=(60, 20)) as pilot:
        await settle(pilot)
        await pilot.press("enter")
        await settle(pilot)
        shown = [k.render().plain.strip() for k in app.screen.query(FooterKey) if k.display]
        assert shown[:3] == ["esc Close", "/ Search", "? Help"], shown
        assert screen_rows(app).splitlines()[-1].lstrip().startswith("esc Close  / Search  ? Help")


async def test_a_replays_help_says_what_q_exits_with_in_a_replay():
    """(From a new-user trial.)  The help said q quits "with the run's exit status (1 if it
    failed)": a replay of a failed run exited 0, as the README says."""
    app = make_replay_app(sample("failed_run.ndjson"))
    async with app.run_test(size=(120, 60)) as pilot:
        await settle(pilot)
        await pilot.press("end")
        await settle(pilot)
        assert app.session.result is not None and app.session.result.failed
        await pilot.press("question_mark")
        await pilot.pause()
        await pilot.press("end")  # (its last row, q's)
        await pilot.pause()
        rows = screen_rows(app)
        assert "quit (a replay exits 0" in rows and "the run's exit status" not in rows, rows
        await pilot.press("escape")
        await pilot.pause()
        await pilot.press("q")
        await pilot.pause()
    assert app.return_code == 0


async def test_keys_that_come_together_each_scroll_the_help():
    """(From a new user's trial.)  Five Downs sent at once (a held key, a fast typist) scrolled
    the help one line: each scroll waited for the next refresh and went from the same line."""
    from textual.containers import VerticalScroll
    from textual.events import Key

    app = make_app(sample("demo_session.ndjson"))
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("question_mark")
        await pilot.pause()
        view = app.screen.query_one(VerticalScroll)
        for key in ("down", "down", "j", "down", "j"):  # queued together, as a terminal's burst is read
            app.post_message(Key(key, None))
        await pilot.pause()
        assert view.scroll_y == 5
        for key in ("up", "k"):
            app.post_message(Key(key, None))
        await pilot.pause()
        assert view.scroll_y == 3
        app.post_message(Key("pagedown", None))
        await pilot.pause()
        assert view.scroll_y == min(view.max_scroll_y, 3 + view.scrollable_content_region.height - 1)


async def test_enter_opens_full_screen_detail_and_escape_closes_it():
    app = make_app(sample("demo_session.ndjson"))
    async with app.run_test(size=(80, 24)) as pilot:  # narrow: no detail pane
        await settle(pilot)
        assert not app.detail.display
        await pilot.press("enter")
        await pilot.pause()
        assert type(app.screen).__name__ == "DetailScreen"
        await pilot.press("question_mark")  # help works there too, and closes back to it
        await pilot.pause()
        assert type(app.screen).__name__ == "HelpScreen"
        await pilot.press("escape")
        await pilot.pause()
        assert type(app.screen).__name__ == "DetailScreen"
        await pilot.press("escape")
        await pilot.pause()
        assert type(app.screen).__name__ != "DetailScreen"
        await pilot.press("r")  # no detail pane to show it in: it says what r did
        await pilot.pause()
        assert app.detail.raw
        assert any(m.message.startswith("Raw JSON on") for m in app._notifications)


async def test_follow_mode_tracks_new_calls_until_the_user_moves_away():
    lines, feed, app = live_demo()
    async with app.run_test(size=(120, 40)) as pilot:
        half = len(lines) // 2
        for part, chunk in enumerate((lines[:half], lines[half:])):
            recs = feed.ingest.feed(b"".join(chunk))
            feed._queue.put(recs)
            await settle(pilot)
            assert app.timeline.selected_index() == len(app.session.tools) - 1
            if part == 0:
                calls_before = len(app.session.tools)
                await pilot.press("up")  # the user looks at an older call: follow stops
                selected = app.timeline.selected_index()
                assert not app.timeline.follow
                await pilot.press("f")  # and comes back
                assert app.timeline.follow
        assert len(app.session.tools) > calls_before
        assert selected == calls_before - 2


async def test_moving_up_stops_follow_so_new_calls_do_not_steal_the_cursor_and_end_follows_again():
    """Up in the list stops following: new calls do not move the cursor.  (From a new-user
    trial.)  As in the transcript, End in the list goes back to following."""
    lines, feed, app = live_demo()
    async with app.run_test(size=(120, 40)) as pilot:
        half, three_quarters = len(lines) // 2, 3 * len(lines) // 4
        push(feed, lines[:half])
        await settle(pilot)
        await pilot.press("up")
        assert not app.timeline.follow and "following" not in app.timeline.border_title
        kept = app.timeline.selected_index()
        push(feed, lines[half:three_quarters])
        await settle(pilot)
        assert app.timeline.selected_index() == kept
        await pilot.press("end")
        push(feed, lines[three_quarters:])
        await settle(pilot)
        assert app.timeline.selected_index() == len(app.session.tools) - 1
        assert "following" in app.timeline.border_title


async def test_up_with_no_older_call_to_go_to_leaves_the_list_following():
    """(From a new-user trial.)  k pressed before the first call came, or on the only one, moved
    nothing, and stopped the list following: the next calls came and the selection, and the
    detail, stayed on the first."""
    lines, feed, app = live_demo()
    async with app.run_test(size=(120, 40)) as pilot:
        starts = [i for i, line in enumerate(lines) if b'"subtype":"started"' in line]
        push(feed, lines[: starts[0]])  # no call yet
        await settle(pilot)
        app.timeline.focus()
        await pilot.press("k", "up", "pageup")
        assert app.timeline.follow and "following" in app.timeline.border_title
        push(feed, lines[: starts[1]][starts[0]:])  # the first call
        await settle(pilot)
        await pilot.press("k")
        assert app.timeline.follow
        push(feed, lines[starts[1]:])
        await settle(pilot)
        assert app.timeline.selected_index() == len(app.session.tools) - 1 > 0
        await pilot.press("k")  # (with older calls: it stops following, as before)
        assert not app.timeline.follow


async def test_a_filtered_lists_count_of_all_calls_moves_as_calls_arrive():
    """(From a new-user trial.)  "Tool calls (1/4)" under a filter stayed at /4 while the live
    run went on to 18 calls, when none of the new ones matched."""
    lines, feed, app = live_demo()
    async with app.run_test(size=(120, 40)) as pilot:
        starts = [i for i, line in enumerate(lines) if b'"subtype":"started"' in line]
        push(feed, lines[: starts[4]])  # four calls
        await settle(pilot)
        await pilot.press("c")
        shown = app.timeline.row_count
        assert app.timeline.border_title.startswith(f"Tool calls ({shown}/4)"), app.timeline.border_title
        push(feed, lines[starts[4]:])
        await settle(pilot)
        total = len(app.session.tools)
        assert app.timeline.border_title.startswith(f"Tool calls ({app.timeline.row_count}/{total})"), \
            app.timeline.border_title


async def test_status_and_kind_filters():
    app = make_app(sample("demo_session.ndjson"))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        tools = app.session.tools
        present = [st for st in STATUS_FILTERS if any(t.status == st for t in tools)]
        assert "failed" in present and "running" not in present  # a finished run with failures
        for status in present:  # s steps through the statuses calls have, not empty ones
            await pilot.press("s")
            assert app.timeline.status_filter == status
            chosen = [t.index for t in tools if t.status == status]
            assert app.timeline.row_count == len(chosen)
            assert app.timeline.selected_index() in chosen
        await pilot.press("s")
        assert app.timeline.status_filter == "all" and app.timeline.row_count == len(tools)
        await pilot.press("s", "s")
        # In the header's words ("17 ok · 1 failed"): it said "only: success".
        assert app.timeline.status_filter == "success" and app.timeline.border_subtitle == "only: ok"
        assert "17 ok" in screen_rows(app) and "only: ok" in screen_rows(app)
        await pilot.press("x")
        assert app.timeline.row_count == len(tools)
        await pilot.press("c")  # first kind, in the order their names in the list read
        kinds = sorted({t.kind_key for t in tools}, key=lambda k: next(t.short for t in tools if t.kind_key == k))
        assert app.timeline.kind_filter == kinds[0]
        assert app.timeline.row_count == sum(t.kind_key == kinds[0] for t in tools)
        assert app.timeline.border_subtitle.startswith("only: ")


async def test_session_switching():
    app = make_app(sample("two_sessions.ndjson"))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert len(app.model.sessions) == 2
        assert app.view_index == 1  # the newest run
        await pilot.press("less_than_sign")
        assert app.view_index == 0
        assert app.transcript.session is app.model.sessions[0]
        assert app.timeline.session is app.model.sessions[0]
        await pilot.press("greater_than_sign")
        assert app.view_index == 1
        await pilot.press("greater_than_sign")  # past the last: it says so (it did nothing)
        await pilot.pause()
        assert app.view_index == 1
        assert any(n.message == "This is the last of the 2 sessions." for n in app._notifications)


async def test_thinking_is_hidden_until_toggled():
    app = make_app(sample("demo_session.ndjson"))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        s = app.session
        thought = next(b.text for b in s.blocks if b.kind == "thinking" and len(b.text.split()) > 3)
        words = " ".join(thought.replace("*", "").split()[:3])  # shown as Markdown: no ** marks
        app.transcript.scroll_home(animate=False)
        await pilot.pause()
        def all_text():
            tr = app.transcript
            return "\n".join(
                strip.text for i in range(tr.block_count()) for strip in tr._render_strips(i, tr._width)
            )
        assert words not in all_text()
        await pilot.press("t")
        await pilot.pause()
        assert words in " ".join(all_text().split())


async def test_raw_toggle_shows_the_events_json():
    app = make_app(sample("reference_example.ndjson"))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("r")
        await pilot.pause()
        text = "\n".join(
            s.text for i in range(app.detail.block_count()) for s in app.detail._render_strips(i, app.detail._width)
        )
        assert '"type": "tool_call"' in text
        assert '"subtype": "completed"' in text


async def test_search_finds_tool_calls_and_transcript_text():
    app = make_app(sample("demo_session.ndjson"))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("slash", *"pytest", "enter")
        await pilot.pause()
        s = app.session
        hits = [s.blocks[i] for i in app._search_hits]
        kinds = {b.kind for b in hits}
        assert "tool" in kinds and "assistant" in kinds  # both the calls and the text
        first = hits[0]
        assert first.kind == "tool" and "pytest" in s.tools[first.ref].target
        assert app.timeline.selected_index() == first.ref  # the call is selected...
        await pilot.pause()
        assert any("pytest" in row for row in _match_rows(app))  # ...and marked in the transcript
        tr = app.transcript
        marked = [
            seg.text for strip in tr._render_strips(app._search_hits[0], tr._width) for seg in strip
            if seg.style and seg.style.bgcolor and seg.style.bgcolor == MATCH_STYLE.bgcolor
        ]
        assert marked == ["pytest"]  # the word itself stands out
        for k in range(1, len(hits)):
            await pilot.press("n")
            assert app._search_pos == k
            if hits[k].kind == "assistant":
                await pilot.pause()
                assert any("pytest" in row for row in _match_rows(app))
                break
        else:
            raise AssertionError("no text hit reached with n")


async def test_unknown_events_and_malformed_lines_are_visible():
    data = sample("reference_example.ndjson") + b'{"type":"brand_new","subtype":"thing","x":1}\nnot json at all\n'
    app = make_app(data)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert len(app.model.malformed) == 1
        assert app.model.unknown_events == 1
        assert any(b.kind == "unknown" and "brand_new" in b.text for b in app.session.blocks)
        assert "unknown event brand_new/thing" in _plain(app, app.transcript)
        assert "1 malformed · 1 unknown" in _plain(app, app.header)
        await pilot.press("h")
        await pilot.pause()
        assert type(app.screen).__name__ == "HealthScreen"
        shown = html.unescape(app.export_screenshot()).replace("\xa0", " ")
        assert "not json at all" in shown and "brand_new" in shown


HOSTILE = "\x1b]0;pwned\x07\x1b[2J[bold red]boom[/] [@click=app.quit]click[/] \u202eevil"


async def test_hostile_text_is_shown_literally():
    sid = "h"
    lines = [
        {"type": "system", "subtype": "init", "session_id": sid, "model": HOSTILE, "cwd": HOSTILE},
        {"type": "user", "message": {"content": [{"type": "text", "text": HOSTILE}]}, "session_id": sid},
        {"type": "assistant", "message": {"content": [{"type": "text", "text": HOSTILE}]}, "session_id": sid},
        {"type": "tool_call", "subtype": "started", "call_id": HOSTILE, "session_id": sid,
         "tool_call": {"shellToolCall": {"args": {"command": HOSTILE}}}},
        {"type": "tool_call", "subtype": "completed", "call_id": HOSTILE, "session_id": sid,
         "tool_call": {"shellToolCall": {"args": {"command": HOSTILE},
                                         "result": {"success": {"exitCode": 0, "stdout": HOSTILE}}}}},
    ]
    data = b"".join(orjson.dumps(x) + b"\n" for x in lines)
    app = make_app(data)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        screen_text = []
        for widget in (app.header, app.transcript, app.timeline, app.detail):
            for y in range(widget.size.height):
                strip = widget.render_line(y) if hasattr(widget, "render_line") else None
                if strip is not None:
                    screen_text.append(strip.text)
        text = "\n".join(screen_text)
        assert "\x1b" not in text and "\x07" not in text and "\u202e" not in text
        assert "\\x1b" in text  # the escape is shown, visibly
        assert "[@click=app.quit]" in text  # markup is literal text
        assert app.is_running  # nothing ran the quit action


async def test_a_replays_footer_shows_its_own_keys_first_in_a_narrow_window():
    """The replay's keys (play, speed) come first in the footer, so a narrow window cuts the
    app's other keys rather than these; each is whole on screen, with a space after it."""
    from textual.widgets._footer import FooterKey, FooterLabel

    app = make_replay_app(sample("demo_session.ndjson"))
    async with app.run_test(size=(80, 30)) as pilot:
        await settle(pilot)
        items = sorted([*app.query(FooterKey), *app.query(FooterLabel)], key=lambda w: w.region.x)
        shown = [(w.render().plain.strip(), w.region) for w in items if w.region.width]
        texts = [t for t, _ in shown]
        assert texts.index("space Play/pause") < texts.index("q Quit"), texts
        for text in ("space Play/pause", "Speed"):
            assert text in texts and dict(shown)[text].right <= 80, (text, shown)
        regions = [r for _, r in shown]
        assert all(a.right < b.x for a, b in zip(regions, regions[1:])), shown  # never abutting


async def test_a_paused_replay_says_paused_from_its_first_frame(monkeypatch):
    """--paused: the first frame, before any tick of the replay, says PAUSED (it said ▶ REPLAY)."""
    from viewer.core.replay import StartAt
    from viewer.ui.replay import ReplayApp

    monkeypatch.setattr(ReplayApp, "pump", lambda self: None)  # no tick: what the mount set up
    app = make_replay_app(sample("demo_session.ndjson"))
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        assert app.header.live_label == "❚❚ PAUSED"
        assert "PAUSED" in _plain(app, app.header)
    # A --start-at that waits for the file says so from the first frame too.
    app = make_replay_app(sample("demo_session.ndjson"), read=False)
    app.replay.begin_at(StartAt("300"))
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        assert "going to event 300" in _plain(app, app.header)


async def test_a_replay_played_to_the_end_of_a_file_still_written_says_so(tmp_path):
    """(From a new-user trial.)  Opening a file an agent was still writing said "⚠ still being
    written? agent-viewer --follow …"; replaying it said nothing at its end, under ENDED WITHOUT
    RESULT.  The file grows after it was read, as an agent's does."""
    lines = sample("demo_session.ndjson").splitlines(keepends=True)
    path = tmp_path / "run.ndjson"
    path.write_bytes(b"".join(lines[:30]))
    app, _ = replay_of_file(path)
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(pilot)
        assert app.header.still_written is None
        with open(path, "ab") as f:
            f.write(b"".join(lines[30:40]))
        await pilot.press("end")
        await settle(pilot)
        assert app.model.current.result is None and app.header.still_written is not None
        assert app.header.render_line(1).text.startswith("⚠ still being written? (--follow reads on)")
        # (From a trial: the badge above it said "◌ ENDED WITHOUT RESULT".)
        assert app.header.render_line(0).text.startswith(" ◌ NO RESULT YET ") and "ENDED" not in _plain(app, app.header)
        said = list(app._notifications)[-1].message
        assert said == f"The file may still be written (it has grown since it was read): agent-viewer --follow {path} keeps reading it."


async def test_a_replays_still_written_hint_tells_the_files_age_when_it_was_read(tmp_path):
    """(From a review.)  "It changed N s before it was read" was worked out as the replay reached
    its end: a file written 30 s before it was opened, played for two minutes, said nothing."""
    lines = sample("demo_session.ndjson").splitlines(keepends=True)
    path = tmp_path / "run.ndjson"
    path.write_bytes(b"".join(lines[:30]))
    app, index = replay_of_file(path)
    index.read_at -= 120  # read two minutes ago (the replay has played since)...
    os.utime(path, (index.read_at - 30, index.read_at - 30))  # ...half a minute after it changed
    async with app.run_test(size=(120, 30), notifications=True) as pilot:
        await settle(pilot)
        await pilot.press("end")
        await settle(pilot)
        said = [str(n.message) for n in app._notifications]
        assert any("(it changed 30 s before it was read)" in n for n in said), said


async def test_a_transcript_search_match_stays_in_view_when_the_window_gets_smaller():
    """(From a new-user trial.)  A match in view in a run that fitted the transcript went below
    the view of a smaller window, which showed the run's top until n."""
    lines, feed, app = live_demo()
    async with app.run_test(size=(120, 40)) as pilot:
        push(feed, lines[:60])
        await settle(pilot)
        await pilot.press("slash", *"todos", "enter")
        await settle(pilot)
        tr = app.transcript
        hit = tr.highlight_block
        assert hit >= 0 and tr.scroll_y == 0 and tr.block_top(hit) > 8  # in view: the run fits
        await pilot.resize_terminal(60, 20)
        await settle(pilot)
        assert tr.scrollable_content_region.height < tr.block_top(hit)  # (it would be out of view at the top)
        assert "Updated todos" in _plain(app, tr) and tr.highlight_block == hit


async def test_a_transcript_search_match_in_a_long_block_stays_in_view_when_the_window_gets_lower():
    """(From a review.)  The match's block was still in the lower view, its top, and the match
    line below it: the view is kept on the match's line, not its block."""
    app = make_app(sample("demo_session.ndjson"))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("slash", *"Nothing is committed", "enter")
        await settle(pilot)
        tr = app.transcript
        assert "Nothing is committed" in _plain(app, tr)
        await pilot.resize_terminal(120, 20)
        await settle(pilot)
        assert "Nothing is committed" in _plain(app, tr)
        await pilot.resize_terminal(120, 40)
        await settle(pilot)
        assert "Nothing is committed" in _plain(app, tr)


@pytest.mark.parametrize("name, at", [("demo_session.ndjson", 2), ("gemini_run.ndjson", 2),
                                      ("claude_code_run.ndjson", 4)])
async def test_a_step_back_to_before_the_first_block_clears_the_transcript(name, at):
    """(From a replay trial.)  A step back to the init alone left the prompt on screen, while
    a start there said "Nothing said yet."."""
    from viewer.core.replay import StartAt

    app = make_replay_app(sample(name))
    app.replay.begin_at(StartAt(str(at)))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert app.session.blocks and "Nothing said yet" not in _plain(app, app.transcript)
        await pilot.press("comma")
        await settle(pilot)
        assert app.replay.position == at - 1 and not app.session.blocks
        rows = screen_rows(app).splitlines()  # (as drawn: the view itself said it, undrawn)
        assert "Nothing said yet." in rows[3] and not any("Nothing" in r or "You" in r for r in rows[4:]), rows


@pytest.mark.parametrize("every", [50, 2000])
async def test_a_step_back_keeps_the_place_of_a_transcript_being_read(every):
    """(From a review of the fix above.)  Dropping the blocks after the step's point made the
    view smaller before the blocks were measured again: a transcript scrolled up to read went
    back to its top at a step back."""
    app = make_replay_app(sample("demo_session.ndjson"), checkpoint_every=every)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("end")
        await settle(pilot)
        tr = app.transcript
        tr.focus()
        await pilot.press("pageup", "pageup")  # reading: it stops following
        await settle(pilot)
        before = tr.scroll_offset.y
        assert before > 10 and not tr.follow
        await pilot.press("comma")
        await settle(pilot)
        assert app.replay.position == app.replay.total - 1 and tr.scroll_offset.y == before


async def test_a_long_result_dragged_to_its_middle_stays_there_once_it_is_cut():
    """(From the same review.)  The rest of a long body is cut into chunks once the view goes
    into it; the view lost its place (28,311 → 2,552) while they were measured."""
    from viewer.ui.widgets.detail import _Rest

    app = make_app(_big_read(20_000))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        detail = app.detail
        detail.focus()
        assert any(type(b) is _Rest for b in detail._blocks)
        target = detail.max_scroll_y // 2
        detail.scroll_to(y=target, animate=False, immediate=True)
        await pilot.pause()
        await pilot.pause()
        assert not any(type(b) is _Rest for b in detail._blocks)
        assert abs(detail.scroll_offset.y - target) < 200, (target, detail.scroll_offset.y)


@pytest.mark.parametrize("data, listed", [(b"", False), (b"hello\nworld\n", True)])
async def test_space_on_a_replay_with_no_event_says_there_is_nothing_to_play(data, listed):
    """(From a replay trial.)  An empty file "played" for good at event 0/0 after Space; one
    of lines that are not events said "Playing again from the start"."""
    app = make_replay_app(data)
    async with app.run_test(size=(100, 20)) as pilot:
        await settle(pilot)
        for _ in range(2):
            await pilot.press("space")
            await pilot.pause()
            assert not app.replay.playing
        said = [str(n.message) for n in app._notifications]
        assert said == ["Nothing to play: the file holds no events"
                        + (" (the transcript lists its lines)." if listed else ".")], said
        assert ("line 2: world" in _plain(app, app.transcript)) == listed


async def test_replay_controls_step_seek_and_speed():
    app = make_replay_app(sample("demo_session.ndjson"))
    replay = app.replay
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert replay.position == 0
        await pilot.press("full_stop", "full_stop", "full_stop")
        assert replay.position == 3
        await pilot.press("left")
        assert replay.position == 2
        await pilot.press("comma")  # (, and ., as a video player steps: from a trial)
        assert replay.position == 1
        await pilot.press("right_square_bracket")  # next tool call: its start is applied
        assert app.model.current.tools and app.model.current.tools[-1].status == "running"
        await pilot.press("end")
        assert replay.at_end
        assert app.model.current.state == "succeeded"
        assert app.header.session is app.model.current
        await pilot.press("end")
        await pilot.pause()
        assert "Run succeeded" in _plain(app, app.transcript)
        await pilot.press("home")
        assert replay.position == 0 and app.model.current is None
        await pilot.pause()
        assert _plain(app, app.transcript).strip() == ""
        # Measured anew, so the terminal is redrawn (not left with the finished run).
        assert app.transcript.virtual_size.height == 0, "the finished run is still on screen"
        assert _plain(app, app.timeline).strip() == ""
        await pilot.press("plus", "plus")
        assert replay.speed == 4.0
        await pilot.press("minus")
        assert replay.speed == 2.0
        await pilot.press("space")
        assert replay.playing
        await pilot.pause()
        assert app.header.live_label == "▶ REPLAY"
        await pilot.press("space")
        await pilot.pause()
        assert app.header.live_label == "❚❚ PAUSED"
        await pilot.press("question_mark")
        await pilot.pause()
        assert ("Space", "play / pause") in app.screen.rows  # the help lists the replay keys
        assert "loading" not in _plain(app, app.header)  # (a replay's file is not "loading")
        # Home and End are the replay's: the help does not also offer them for paging.
        assert [key for key, _ in app.screen.rows if "Home" in key] == ["Home End"]
        # ] and [ too (from a replay trial: the help offered them for the transcript's call lines
        # as well, but in a replay they seek, from any pane).
        assert [key for key, _ in app.screen.rows if key.startswith("]")] == ["] }"]


async def test_transcript_stays_where_the_user_scrolls_while_the_run_streams():
    lines, feed, app = live_demo()
    async with app.run_test(size=(120, 40)) as pilot:
        half = len(lines) // 2
        push(feed, lines[:half])
        await settle(pilot)
        tr = app.transcript
        assert tr.is_vertical_scroll_end and tr.scroll_offset.y > 0  # following the newest text
        app.set_focus(tr)
        await pilot.press("home")
        await pilot.pause()
        assert tr.scroll_offset.y == 0
        assert "› You" in _plain(app, tr)
        for step in range(half, len(lines), 20):  # the rest of the run arrives in bursts
            push(feed, lines[step : step + 20])
            await settle(pilot)
            assert tr.scroll_offset.y == 0, f"view moved after line {step}"
        await pilot.press("end")
        await pilot.pause()
        assert tr.is_vertical_scroll_end


async def test_the_first_home_goes_to_the_top_and_thinking_toggles_keep_it_there():
    app = make_app(sample("demo_session.ndjson"))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        tr = app.transcript
        app.set_focus(tr)
        await pilot.press("home")
        await pilot.pause()
        await pilot.pause()
        assert tr.scroll_offset.y == 0
        assert "› You" in _plain(app, tr)
        for shown in (True, False):
            await pilot.press("t")
            await pilot.pause()
            await pilot.pause()
            assert tr.show_thinking is shown
            assert tr.scroll_offset.y == 0
            assert "› You" in _plain(app, tr)
        await pilot.press("t", "home")
        await pilot.pause()
        assert tr.scroll_offset.y == 0


async def test_a_filter_that_hides_the_selected_call_moves_the_detail_too():
    app = make_app(sample("demo_session.ndjson"))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        tools = app.session.tools
        await pilot.press("home", "down")  # the second call
        await pilot.pause()
        hidden = tools[1]
        assert app.detail.tool is hidden
        await pilot.press("c")  # a kind filter that leaves the selected call out
        while app.timeline.kind_filter == hidden.kind_key:
            await pilot.press("c")
        await pilot.pause()
        await pilot.pause()
        shown = app.timeline.selected_index()
        assert shown >= 0 and tools[shown].kind_key == app.timeline.kind_filter
        assert app.detail.tool is tools[shown], "the detail still shows a call the list hides"


async def test_home_stops_following_even_while_everything_still_fits():
    """At the start of a run the transcript fits the pane: top and bottom are the same line.
    Home (the user moving up) must still stop the view from following the newest text."""
    lines, feed, app = live_demo()
    async with app.run_test(size=(120, 36)) as pilot:
        push(feed, lines[:40])
        await settle(pilot)
        tr = app.transcript
        app.set_focus(tr)
        await pilot.press("home")
        for step in range(40, len(lines), 10):
            push(feed, lines[step : step + 10])
            await settle(pilot)
            assert tr.scroll_offset.y == 0, f"the view moved after line {step}"
        await pilot.press("end")  # follow again
        await pilot.pause()
        assert tr.follow and tr.is_vertical_scroll_end


async def test_a_file_still_loading_shows_its_progress_in_the_header():
    data = sample("demo_session.ndjson")
    app = make_app(data, eof=False)  # a saved file whose end has not been read yet
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.pause(0.5)
        header = _plain(app, app.header)
        # (its run's end is told once the load is over: see the test of a loading file below)
        assert "LOADING" in header and "loading 100%" in header
        assert not app.header.loading  # Textual's own loading overlay would hide the header


async def test_a_saved_file_before_its_first_event_says_loading_not_waiting(tmp_path, monkeypatch):
    """'waiting for events' is what a live source says; a saved file being read says how far,
    from the first frame (before its reading starts)."""
    from viewer.core.feed import FileFeed

    path = tmp_path / "run.ndjson"
    path.write_bytes(sample("demo_session.ndjson"))
    monkeypatch.setattr(AgentViewerApp, "_start_feed", lambda self: None)  # the first frame only
    first = AgentViewerApp(FileFeed(str(path), workers=0))
    async with first.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        assert "LOADING" in _plain(first, first.header) and "waiting" not in _plain(first, first.header)
    monkeypatch.undo()
    app = make_app(b"not an event yet\n", eof=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        header = _plain(app, app.header)
        assert "LOADING" in header and "100%" in header and "waiting" not in header, header
        assert "… LOADING  100%" in app.header.render_line(0).text  # (two spaces after the badge, not three)
    live = make_app(b"", live=True, eof=False)
    async with live.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert "waiting for events" in _plain(live, live.header)


def _big_read(lines: int = 3000) -> bytes:
    sid = "s1"
    content = "\n".join(f"def f{i}(x):  # line {i + 1} " + "x" * (i % 90) for i in range(lines))
    args = {"path": "/proj/big.py"}
    events = [
        {"type": "system", "subtype": "init", "session_id": sid, "model": "m", "cwd": "/proj"},
        {"type": "tool_call", "subtype": "started", "call_id": "c1", "tool_call": {"readToolCall": {"args": args}},
         "session_id": sid},
        {"type": "tool_call", "subtype": "completed", "call_id": "c1", "session_id": sid,
         "tool_call": {"readToolCall": {"args": args, "result": {"success": {"content": content}}}}},
        {"type": "result", "subtype": "success", "is_error": False, "result": "", "session_id": sid},
    ]
    return b"".join(orjson.dumps(e) + b"\n" for e in events)


async def test_quick_page_keys_each_move_a_whole_page():
    """(Noticed in a new-user trial.)  PgUp pressed again while the last one's scroll still ran
    went on from where that scroll had got to: four quick presses moved about 52 lines, not 92."""
    app = make_app(_big_read())
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        view = app.detail
        view.focus()
        await pilot.press("home")
        for action, step in ((view.action_page_down, 1), (view.action_page_up, -1)):
            start, page = view.scroll_y, view.scrollable_content_region.height
            for _ in range(4):  # each before the last one's scroll has finished
                action()
                await pilot.pause(0.02)
            await pilot.wait_for_scheduled_animations()
            await pilot.pause()
            assert view.scroll_y == start + step * 4 * page


async def test_end_in_a_long_detail_lands_on_its_real_last_line():
    """Heights below the screen are estimates; End must still show the very end (the closing
    brace of the raw JSON), not where the estimate said the end was."""
    app = make_app(_big_read())
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        for keys in (("end",), ("r", "end")):  # the formatted file, then the raw JSON (long lines)
            app.detail.focus()
            await pilot.press(*keys)
            for _ in range(5):
                await pilot.pause()
            shown = [line.strip() for line in _plain(app, app.detail).splitlines() if line.strip()]
            if keys == ("end",):  # the last line of the file (it wraps: 89 x's)
                assert shown[-2].startswith("3000 def f2999(x):  # line 3000"), shown[-3:]
            else:
                assert shown[-1] == "}", shown[-3:]
            assert app.detail.is_vertical_scroll_end


async def test_a_very_long_result_is_cut_into_chunks_only_where_it_is_scrolled_to():
    """A body over LAZY_FROM is cut into chunks as far as HEAD_CHARS when shown; the rest is
    cut when it comes on screen.  Wherever the view goes, each line shows with its own number,
    and End lands on the real last line."""
    import re

    from viewer.ui.widgets.detail import LAZY_FROM, _Rest

    lines = 20_000
    data = _big_read(lines)
    assert len(data) > 2 * LAZY_FROM
    app = make_app(data)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        detail = app.detail
        assert any(type(b) is _Rest for b in detail._blocks), "the whole body was cut at once"
        assert len(detail._blocks) < 100
        shown = _plain(app, detail)
        assert re.search(r"^\s*1 def f0\(x\):", shown, re.M), shown

        def numbered_lines_agree() -> int:
            """Each numbered line on screen is the line of that number; how many there are."""
            found = re.findall(r"^\s*(\d+) def f(\d+)\(x\):  # line (\d+)", _plain(app, detail), re.M)
            assert all(int(n) == int(f) + 1 == int(ln) for n, f, ln in found), found
            return len(found)

        detail.focus()
        await pilot.press("end")
        for _ in range(3):
            await pilot.pause()
        assert not any(type(b) is _Rest for b in detail._blocks)  # cut, now that it was on screen
        assert numbered_lines_agree() > 5
        rows = [line.strip() for line in _plain(app, detail).splitlines() if line.strip()]
        assert rows[-2].startswith(f"{lines} def f{lines - 1}(x):"), rows[-3:]
        await pilot.press("home")
        await pilot.pause()
        assert re.search(r"^\s*1 def f0\(x\):", _plain(app, detail), re.M)
        await pilot.press("r", "r")  # the raw JSON and back: shown anew, its rest not cut
        await pilot.pause()
        assert any(type(b) is _Rest for b in detail._blocks)
        detail.scroll_to(y=detail.max_scroll_y // 2, animate=False, immediate=True)  # a drag to the middle
        await pilot.pause()
        assert not any(type(b) is _Rest for b in detail._blocks)
        assert numbered_lines_agree() > 5
        await pilot.press("r", "end")  # the raw JSON: the content is one line of 1.2 MB
        for _ in range(3):
            await pilot.pause()
        rows = [line.strip() for line in _plain(app, detail).splitlines() if line.strip()]
        assert rows[-1] == "}" and detail.is_vertical_scroll_end, rows[-3:]


async def test_a_long_cwd_keeps_its_end_in_the_header():
    """The project is at the end of the path: a cwd too long for the header is shortened
    from the start, not cut off by the line's ellipsis."""
    cwd = "/home/someone/" + "/".join(f"nested-directory-{i}" for i in range(8)) + "/the-project"
    init = {"type": "system", "subtype": "init", "session_id": "s", "model": "gpt-5", "cwd": cwd,
            "permissionMode": "default", "apiKeySource": "login"}
    app = make_app(orjson.dumps(init) + b"\n")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        first = app.header.render_line(0).text.rstrip()
        assert first.endswith("/the-project") and "…" in first, first
        assert len(first) <= 120


@pytest.mark.parametrize(("agent", "stream", "says"), [
    ("cursor", "maestro__02_shell_tool_call.ndjson", " Cursor · "),
    ("claude", "maestro__02_tool_use_allowed.ndjson", " Claude Code · claude-sonnet-5 "),
    ("codex", "agentcmd__stream-output-1.ndjson", " Codex "),
])
async def test_the_header_names_the_agent_before_its_model(agent, stream, says):
    """(From a new-user trial.)  The header named a Claude Code run by its model alone, where
    --print says "Claude Code · claude-sonnet-5": a Cursor run can be of a Claude model too.
    (When narrow: see the next test.)"""
    data = real_capture(stream, agent)
    app = make_app(data)
    async with app.run_test(size=(140, 30)) as pilot:
        await settle(pilot)
        head = app.header.render_line(0).text
        assert says in head and "?" not in head, head


@pytest.mark.parametrize(("agent", "stream", "agent_name", "cwd_end"), [
    ("cursor", "maestro__02_shell_tool_call.ndjson", "Cursor", "/cursor-spike"),
    ("claude", "maestro__02_tool_use_allowed.ndjson", "Claude Code", "/claude-spike"),
])
async def test_a_narrow_header_drops_a_field_only_when_it_has_no_room_for_it(agent, stream, agent_name, cwd_end):
    """(From trials.)  At 50 to 70 columns the agent, the key and the mode gave way to a working
    directory that then did not fit either, and left the room empty; at 60, the directory was
    shown as "…sor-spike"; widening a window, the agent came and went four times.  At every
    width, the fields are the first ones of an order (the model, the session, the directory,
    the agent, the mode, the key) and the next one had no room; a wider window only adds to
    them; a directory is shown with its last folder whole."""
    data = real_capture(stream, agent)
    app = make_app(data)
    async with app.run_test(size=(160, 30)) as pilot:
        await settle(pilot)
        wide = app.header.render_line(0).text.rstrip()
        order = [f for f in ("session ", cwd_end, f"{agent_name} · ", "mode ", "key ") if f in wide]
        assert len(order) >= 4, wide
        # The cells each adds: "session 5545ce80" and the gap before it; "Cursor · "; the
        # directory's last folder after "…".
        need = {f: len(f) if " · " in f else len("…" + f) + 2 if f == cwd_end
                else len(wide[wide.index(f):].split("  ")[0]) + 2 for f in order}
        before: list[str] = []
        for width in range(44, 124, 3):  # (every third column: each takes a redraw)
            await pilot.resize_terminal(width, 30)
            await settle(pilot)
            line = app.header.render_line(0).text.rstrip()
            free = width - 2 - len(line)  # (the header's padding)
            shown = [f for f in order if f in line]
            assert shown == order[:len(shown)], f"{width} columns: {line!r}"  # (the first ones)
            if len(shown) < len(order):
                # (the directory is given up to 24 cells of the room, and may show fewer: cut at
                # a folder; the room it was given and left empty is no room for the next field)
                cwd = len(line.rsplit("  ", 1)[-1]) if cwd_end in line else 0
                given = min(cwd + free, 24, len(wide.rsplit("  ", 1)[-1])) if cwd else 0
                assert need[order[len(shown)]] > free - (given - cwd), \
                    f"{width} columns: {order[len(shown)]!r} left out of {line!r}"
            assert not line.endswith(cwd_end[-9:]) or line.endswith(cwd_end), f"{width} columns: {line!r}"
            assert shown[:len(before)] == before, f"{width} columns: {line!r} after {before}"  # (wider: none goes)
            before = shown


async def test_a_wider_header_never_drops_a_field_for_its_directorys_next_folder():
    """(From a review.)  The room kept for the directory was its length cut at a folder, which
    grows a folder at a time: at 81 columns "/opt/payments-api/src" took "…/payments-api/src"
    and the agent went, to come back at 93."""
    data = sample("demo_session.ndjson").replace(b'"cwd":"/home/maya/code/invoice-tool"',
                                                 b'"cwd":"/opt/payments-api/src"', 1)
    app = make_app(data)
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(pilot)
        assert "/opt/payments-api/src" in app.header.render_line(0).text
        had: set[str] = set()
        for width in range(74, 98, 2):
            await pilot.resize_terminal(width, 30)
            await settle(pilot)
            line = app.header.render_line(0).text
            now = {f for f in ("Cursor · ", "session ", "/src", "mode ") if f in line}
            assert had <= now, f"{width} columns: {had - now} gone from {line!r}"
            had = now
        assert "Cursor · " in had


async def test_a_working_directory_ending_in_a_slash_keeps_its_last_folder_when_narrow():
    """(From a review.)  "/home/u/projects/proj/" was shown as "…/" in a narrow header."""
    data = b"".join(orjson.dumps({"session_id": "5545ce80-aaaa", **f}) + b"\n" for f in (
        {"type": "system", "subtype": "init", "model": "Auto", "cwd": "/home/u/projects/proj/"},
        {"type": "result", "subtype": "success", "is_error": False, "result": "ok", "duration_ms": 8300},
    ))
    app = make_app(data)
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(pilot)
        assert "  /home/u/projects/proj" in app.header.render_line(0).text
        for width in range(36, 80, 3):
            await pilot.resize_terminal(width, 30)
            await settle(pilot)
            line = app.header.render_line(0).text.rstrip()
            assert not line.endswith("/") and (line.endswith("/proj") or "proj" not in line), f"{width}: {line!r}"


async def test_the_screen_says_a_copy_is_being_saved(tmp_path):
    """(From a new-user trial.)  `... | agent-viewer --save run.ndjson`: nothing on screen said
    a copy was being kept, nor where."""
    from viewer.core.record import Recorder

    rec = Recorder(str(tmp_path / "copy.ndjson"))
    clock = lambda: 0.0  # noqa: E731
    app = AgentViewerApp(BytesFeed(sample("demo_session.ndjson"), live=True, clock=clock), clock=clock, recorder=rec)
    try:
        async with app.run_test(size=(120, 40)) as pilot:
            await settle(pilot)
            said = [n.message for n in app._notifications]
            assert f"What is read is saved to {tmp_path}/copy.ndjson (its times to {tmp_path}/copy.ndjson.timing, " \
                "for --replay)." in said, said
    finally:
        rec.close()


async def test_a_header_line_that_just_fits_keeps_all_its_fields():
    """(From a review.)  The fields gave way 4 columns early: the agent's was counted with its
    internal name, and the " · " after it as a 2-cell gap."""
    data = real_capture("maestro__02_shell_tool_call.ndjson")
    app = make_app(data)
    async with app.run_test(size=(160, 30)) as pilot:
        await settle(pilot)
        wide = app.header.render_line(0).text.rstrip()
        assert "Cursor · " in wide and "key login" in wide and "cursor-spike" in wide, wide
        await pilot.resize_terminal(len(wide) + 2, 30)  # (the header's padding)
        await settle(pilot)
        assert app.header.render_line(0).text.rstrip() == wide


async def test_the_agent_gives_way_only_to_a_model_that_names_the_run():
    """(From a review.)  A run that names no model, only a working directory: the agent is its
    only name, and it gave way to the directory when narrow."""
    init = {"type": "system", "subtype": "init", "session_id": "s", "cwd": "/home/someone/code/the-project"}
    app = make_app(orjson.dumps(init) + b"\n")
    async with app.run_test(size=(60, 20)) as pilot:
        await settle(pilot)
        head = app.header.render_line(0).text
        assert " Cursor " in head and "?" not in head, head


async def test_a_big_file_shows_its_first_screen_before_most_of_it_is_decoded(tmp_path, monkeypatch):
    """The first screen of a saved file comes after its first chunk, and is painted before
    the load goes on.  (A saved file's chunks are decoded as the app takes them: taking 64 at
    once, as from a live pipe whose chunks come decoded, made that screen wait for them; and
    each step of a load holds the screen back for up to 0.1 s.)  That first screen leaves out
    the detail of a call (drawn at the next step: its highlighted content took up to 0.1 s)."""
    from viewer.core.feed import FileFeed
    from viewer.core.sources import CHUNK
    from viewer.ui.widgets.header import SessionHeader

    path = tmp_path / "big.ndjson"
    path.write_bytes(sample("demo_session.ndjson") * 200)  # 23 MB, read a MB (CHUNK) at a time
    app = AgentViewerApp(FileFeed(str(path), workers=0))
    at_show: list[tuple[int, int]] = []  # (bytes read, events applied) when the run was put on screen
    at_paint: list[tuple[int, str]] = []  # (events applied, the detail) when the header drew it
    show = app.show_session

    def recorded(*args, **kwargs):
        if not at_show:
            at_show.append((app.feed.bytes_read, app.model.events))
        return show(*args, **kwargs)

    header_render = SessionHeader.render

    def render(header):
        if header.session is not None and not at_paint:
            at_paint.append((app.model.events, _plain(app, app.detail)))
        return header_render(header)

    app.show_session = recorded  # type: ignore[method-assign]
    monkeypatch.setattr(SessionHeader, "render", render)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert app.loaded
        assert app.detail.tool is app.session.tools[-1]  # then the detail shows the last call
    (read, events), (painted, detail) = at_show[0], at_paint[0]
    assert read <= CHUNK, (read, path.stat().st_size)
    assert painted == events, "the load went on before the first screen was painted"
    assert "Loading" in detail and "call id" not in detail


@pytest.mark.parametrize("where", ["first", "after the first event"])
async def test_a_long_line_is_read_in_one_go_not_a_chunk_a_frame(tmp_path, where):
    """The pieces of a line longer than a chunk give no records; the load took one piece a
    frame (a 64 MB line: 64 frames, 2 s of waiting) and now takes them back to back."""
    from viewer.core.feed import FileFeed
    from viewer.core.sources import CHUNK

    def j(**fields) -> bytes:
        return orjson.dumps(fields) + b"\n"

    init = j(type="system", subtype="init", session_id="s", model="m")
    args = {"path": "/p/big.txt"}
    huge = j(type="tool_call", subtype="completed", call_id="c", session_id="s",
             tool_call={"readToolCall": {"args": args, "result": {"success": {"content": "x" * (8 * CHUNK)}}}})
    rest = j(type="result", subtype="success", is_error=False, result="ok", session_id="s")
    path = tmp_path / "long.ndjson"
    path.write_bytes(huge + init + rest if where == "first" else init + huge + rest)
    app = AgentViewerApp(FileFeed(str(path), workers=0))
    piece_pumps = 0  # pumps that took some of the line and stopped there (no record out yet)
    pump = app.pump

    def counted() -> None:
        nonlocal piece_pumps
        before, events = app.feed.bytes_read, app.model.events
        pump()
        if app.feed.bytes_read != before and app.model.events == events:
            piece_pumps += 1

    app.pump = counted  # type: ignore[method-assign]
    async with app.run_test(size=(120, 40)) as pilot:
        for _ in range(100):
            await pilot.pause(0.02)
            if app._ended:
                break
        assert app._ended and app.session.state == "succeeded"
    assert piece_pumps <= 3, piece_pumps  # (8 before: a piece each)


async def test_the_collector_is_off_only_while_a_saved_file_loads(tmp_path):
    """Opening a big file runs with gc off (it only rescanned live objects); it is back on
    once the file is read, and after quitting, also when quitting mid-load."""
    import gc

    from viewer.core.feed import FileFeed

    path = tmp_path / "big.ndjson"
    path.write_bytes(sample("demo_session.ndjson") * 300)
    assert gc.isenabled()
    app = AgentViewerApp(FileFeed(str(path)))
    pumps_with_gc: list[bool] = []  # the collector's state in each pump, seen from inside
    pump = app.pump

    def watched_pump() -> None:
        pumps_with_gc.append(gc.isenabled())
        pump()

    app.pump = watched_pump
    async with app.run_test(size=(120, 40)) as pilot:
        while not app.loaded or not app.feed.finished:
            await pilot.pause(0.01)
        await settle(pilot)
        assert False in pumps_with_gc  # off while the file loaded
        assert gc.isenabled()  # and on again once it was read
    # A "file" whose end never comes (a FIFO held open), so the app quits mid-load.
    fifo = tmp_path / "never-ends.ndjson"
    os.mkfifo(fifo)
    held = os.open(fifo, os.O_RDWR)  # a writer that stays: the reader never sees the end
    try:
        os.write(held, sample("demo_session.ndjson")[:30_000])
        app = AgentViewerApp(FileFeed(str(fifo)))
        async with app.run_test(size=(120, 40)) as pilot:
            for _ in range(500):
                if not gc.isenabled() and app.model.events:
                    break
                await pilot.pause(0.01)
            assert not gc.isenabled() and not app.feed.finished  # still loading: quit now
        assert gc.isenabled()
    finally:
        os.close(held)


async def test_following_a_live_run_the_detail_catches_up_but_a_picked_call_shows_at_once(monkeypatch):
    import viewer.ui.app as app_module

    clock = [100.0]
    monkeypatch.setattr(app_module, "_now", lambda: clock[0])
    lines, feed, app = live_demo()
    async with app.run_test(size=(120, 40)) as pilot:
        shown: list[int] = []
        show = app.detail.show

        def record(session, tool, *args):
            shown.append(-1 if tool is None else tool.index)
            show(session, tool, *args)

        app.detail.show = record
        selections = 0
        for at in range(0, len(lines), 3):  # calls start and end faster than the detail may follow them
            before = app.timeline.selected_index()
            push(feed, lines[at : at + 3])
            await pilot.pause(0.01)
            selections += app.timeline.selected_index() != before
        newest = len(app.session.tools) - 1
        assert app.timeline.selected_index() == newest and selections > 4
        assert app.detail.tool is not app.session.tools[newest]  # held back
        assert set(shown) <= {-1, 0}  # only what came before the clock stopped
        clock[0] += app_module.LIVE_DETAIL_EVERY
        await pilot.pause(app_module.LIVE_DETAIL_EVERY + 0.1)
        assert app.detail.tool is app.session.tools[newest]  # caught up with the newest call
        await pilot.press("up")  # the user's own pick is shown at once
        await pilot.pause()
        assert app.detail.tool is app.session.tools[newest - 1]


async def test_the_scrollbars_show_where_the_panes_are_while_a_run_grows():
    """The thumb of a following pane's scrollbar is at the bottom, as its view is (it stayed
    at the top when the transcript first outgrew its pane: the bar missed the scroll)."""
    lines, feed, app = live_demo()
    async with app.run_test(size=(120, 40)) as pilot:
        for step in range(0, len(lines), 25):
            push(feed, lines[step : step + 25])
            await settle(pilot)
            for pane in (app.transcript, app.timeline):
                if pane.show_vertical_scrollbar:
                    bar = pane.vertical_scrollbar
                    assert pane.is_vertical_scroll_end, (step, pane.id)
                    assert bar.position == pane.scroll_y, (step, pane.id)
                    assert bar.window_virtual_size == pane.virtual_size.height, (step, pane.id)
        assert app.transcript.show_vertical_scrollbar and app.timeline.show_vertical_scrollbar


async def test_a_following_transcript_stays_at_the_end_when_the_window_is_resized():
    lines, feed, app = live_demo()
    async with app.run_test(size=(120, 40)) as pilot:
        half = len(lines) // 2
        push(feed, lines[:half])
        await settle(pilot)
        await pilot.resize_terminal(120, 30)  # shorter: the end is now below the view
        await pilot.pause()
        push(feed, lines[half:])
        await settle(pilot)
        tr = app.transcript
        assert tr.follow and tr.is_vertical_scroll_end
        assert "Run succeeded" in _plain(app, tr)
        for size in ((70, 20), (100, 30), (120, 40)):  # narrow, then wide again
            await pilot.resize_terminal(*size)
            await settle(pilot)
            assert tr.is_vertical_scroll_end, size
            assert "Run succeeded" in _plain(app, tr), size


async def test_the_detail_says_why_no_call_is_shown():
    lines, feed, app = live_demo()
    async with app.run_test(size=(120, 40)) as pilot:
        push(feed, lines[:2])  # init and prompt: no calls yet
        await settle(pilot)
        assert "No tool calls in this run yet" in _plain(app, app.detail)
        push(feed, lines[2:])
        await settle(pilot)
        app._set_status_filter("running")  # a filter that nothing matches any more
        await pilot.pause(0.3)
        assert app.timeline.row_count == 0
        assert "No call matches the filter (x clears it)." in " ".join(_plain(app, app.detail).split())
        await pilot.press("x")
        await pilot.pause()
        assert app.detail.tool is not None


async def test_following_a_file_tells_when_it_disappears_and_when_it_is_replaced(tmp_path):
    from viewer.core.feed import FollowFeed

    path = tmp_path / "run.ndjson"
    lines = sample("demo_session.ndjson").splitlines(keepends=True)
    path.write_bytes(b"".join(lines[:5]))
    feed = FollowFeed(str(path), clock=lambda: 1000.0)  # (the app's clock: arrivals are read by it)
    feed._follower._poll = 0.01
    app = AgentViewerApp(feed, clock=lambda: 1000.0)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause(0.3)
        assert app.model.events == 5
        path.unlink()
        await pilot.pause(0.5)
        assert "waiting for run.ndjson to appear" in app.header.render_line(1).text
        path.write_bytes(b"".join(lines[:3]))  # back, shorter: a new file
        await pilot.pause(0.5)
        assert app.model.events == 8
        assert any("truncated or replaced" in n.message for n in app._notifications)
        assert "waiting" not in app.header.render_line(1).text
        assert [s.state for s in app.model.sessions] == ["ended", "live"]  # read again: a new run
        other = sample("failed_run.ndjson").splitlines(keepends=True)
        new = tmp_path / "run.ndjson.new"
        new.write_bytes(b"".join(other[:4]))
        os.replace(new, path)  # replaced by another run (log rotation), also cut short
        await pilot.pause(0.5)
        # The runs read before have ended (their calls are unfinished), none stays live forever.
        assert [s.state for s in app.model.sessions] == ["ended", "ended", "live"]
        assert app.view_index == 2
        await pilot.press("less_than_sign")
        await pilot.pause()
        assert "ENDED" in app.header.render_line(0).text


async def test_following_a_file_written_long_ago_says_how_long_it_has_been_quiet(tmp_path):
    """(From a new-user trial.)  --follow of a run whose agent died two hours ago said "no
    event for 32 s", counted from when the viewer read it: its events all came at once."""
    from viewer.core.feed import FollowFeed

    path = tmp_path / "run.ndjson"
    lines = sample("demo_session.ndjson").splitlines(keepends=True)
    path.write_bytes(b"".join(up_to_first_call(lines)[:-1]))  # (no call running)
    hours_ago = os.stat(path).st_mtime - 2 * 3600
    os.utime(path, (hours_ago, hours_ago))
    feed = FollowFeed(str(path), clock=lambda: 1000.0)  # (the app's clock: arrivals are read by it)
    feed._follower._poll = 0.01
    app = AgentViewerApp(feed, clock=lambda: 1000.0)  # (read at once: "no event" only from the file)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause(0.3)
        assert app.model.events and app.session.state == "live"
        app.header.refresh()
        await pilot.pause()
        assert "no event for 2h00m" in (t := app.header.render_line(0).text), t
        with open(path, "ab") as f:  # it writes again: quiet no more
            f.write(lines[len(up_to_first_call(lines)) - 1])
        await pilot.pause(0.3)
        app.header.refresh()
        await pilot.pause()
        assert "no event" not in (t := app.header.render_line(0).text), t


async def test_shown_thinking_is_rendered_as_markdown():
    app = make_app(sample("demo_session.ndjson"))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("t")
        await pilot.pause()
        tr = app.transcript
        blocks = app.session.blocks
        i = next(i for i, b in enumerate(blocks) if b.kind == "thinking" and "**Two failures**" in b.text)
        shown = "\n".join(strip.text for strip in tr._render_strips(i, tr._width))
        assert "Two failures" in shown and "**" not in shown


async def test_a_search_without_a_match_takes_the_last_ones_mark_away():
    """(From a new-user trial.)  /zzqq after /pytest said "No match" while the transcript
    still marked the pytest hit."""
    app = make_app(sample("demo_session.ndjson"))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("slash", *"pytest", "enter")
        await pilot.pause()
        assert _match_rows(app)
        await pilot.press("slash", *"zzqq", "enter")
        await settle(pilot)
        assert app.transcript.highlight_block == -1
        assert not _match_rows(app)
        await pilot.press("slash", *"pytest", "enter", "x")  # x clears the search and its mark
        await settle(pilot)
        assert not _match_rows(app)


def _one_shell_call(command: str, result: dict) -> bytes:
    """A run of one shell call of ``command``, started and completed with ``result``."""
    sid = "s"
    shell = {"shellToolCall": {"args": {"command": command}}}
    done = {"shellToolCall": {"args": {"command": command}, "result": result}}
    events = [{"type": "system", "subtype": "init", "session_id": sid, "model": "m", "cwd": "/w"},
              {"type": "tool_call", "subtype": "started", "call_id": "c", "session_id": sid, "tool_call": shell},
              {"type": "tool_call", "subtype": "completed", "call_id": "c", "session_id": sid, "tool_call": done}]
    return b"".join(orjson.dumps(e) + b"\n" for e in events)


@pytest.mark.parametrize("query", ["zqneedle", "boom"])
async def test_a_search_hit_in_the_cut_off_end_of_a_call_s_line_is_shown(query):
    """(From a new-user trial.)  A search found a call by its command's end, or its error,
    which its one-row line cut off ("…"): the call was marked as the hit and nothing on it
    was.  The call's line is then drawn whole, wrapped, with the match marked."""
    command = "cd /work && " + "echo step && " * 12 + "zqneedle --now"
    app = make_app(_one_shell_call(command, {"failure": {
        "command": command, "exitCode": 127, "stdout": "", "stderr": "bash: boom: command not found"}}))
    async with app.run_test(size=(80, 30)) as pilot:
        await settle(pilot)
        assert query not in _plain(app, app.transcript)  # (cut off)
        app.run_search(query)
        await settle(pilot)
        assert app._search_hits and query in _plain(app, app.transcript)
        strips = app.transcript._render_strips(app.transcript.highlight_block, app.transcript._width)
        marked = ["".join(seg.text for seg in strip if seg.style and seg.style.bgcolor == MATCH_STYLE.bgcolor)
                  for strip in strips]
        assert query in marked, marked
        app.run_search("")  # (cleared: one row again)
        await settle(pilot)
        assert query not in _plain(app, app.transcript)


def _one_message(text: str, thinking: str = "") -> bytes:
    sid = "s"
    events = [{"type": "system", "subtype": "init", "session_id": sid, "model": "m", "cwd": "/w"}]
    if thinking:
        events += [{"type": "thinking", "subtype": "delta", "text": thinking, "session_id": sid},
                   {"type": "thinking", "subtype": "completed", "session_id": sid}]
    events.append({"type": "assistant", "session_id": sid,
                   "message": {"role": "assistant", "content": [{"type": "text", "text": text}]}})
    return b"".join(orjson.dumps(e) + b"\n" for e in events)


def _marked(app) -> list[str]:
    """The marked pieces of the search's block, line by line."""
    tr = app.transcript
    strips = tr._render_strips(tr.highlight_block, tr._width)
    return [m for m in ("".join(seg.text for seg in strip if seg.style and seg.style.bgcolor == MATCH_STYLE.bgcolor)
                        for strip in strips) if m]


@pytest.mark.parametrize("query", ["tax_amount is", "taxamount is"])
@pytest.mark.parametrize("shift", [0, 1, 2])
async def test_a_search_marks_a_match_a_line_s_wrap_cuts_in_two(query, shift):
    """(From a review.)  A match that a line's wrap cut in two counted as a hit, and nothing
    was marked; a query with Markdown's characters was looked for at another width than its
    block is drawn at, beside the search's bar.  Both halves are marked now."""
    app = make_app(_one_message("x"))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        width = app.transcript._width - 1  # (a hit's block is drawn beside a bar)
    app = make_app(_one_message("x" * (width - len(query) + shift) + " " + query + " done"))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        app.run_search(query)
        await settle(pilot)
        assert app._search_hits, query
        head, tail = query.split(" ")
        assert _marked(app) in ([query], [head, tail], [head + " ", tail]), _marked(app)


@pytest.mark.parametrize("query,found", [("- fix the", False), ("• fix the", False), ("fix the bug", True),
                                         ("1. run", False), ("run tests", True)])
async def test_a_search_finds_a_list_s_items_as_drawn(query, found):
    """(From a review.)  "- fix the" found "- fix the bug", drawn "• fix the bug", and "1. run"
    found "1. run tests", drawn " 1 run tests": hits with nothing marked."""
    app = make_app(_one_message("Plan:\n\n- fix the bug\n- then:\n\n1. lint\n2. run tests"))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        drawn = _plain(app, app.transcript)
        app.run_search(query)
        await settle(pilot)
        assert bool(app._search_hits) == found, drawn
        if found:
            assert _marked(app) == [query]


async def test_a_search_draws_messages_to_tell_only_for_so_long(monkeypatch):
    """(From a review.)  "_" may be in every message, and each was drawn to tell whether it
    shows it: 1.2 s for 2,000 messages.  Past DRAW_TO_SEARCH_S, the text as written less the
    marks never drawn tells it."""
    import viewer.ui.app as A

    app = make_app(_one_message("Call `tax_amount` on **sub_total**, then run_tests."))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        drawn = []
        shows = app.transcript.shows
        monkeypatch.setattr(app.transcript, "shows", lambda *a, **k: drawn.append(1) or shows(*a, **k))
        app.run_search("tax_amount")
        assert app._search_hits and drawn
        monkeypatch.setattr(A, "DRAW_TO_SEARCH_S", 0.0)
        drawn.clear()
        for query, found in (("run_tests", True), ("**sub", False), ("tax_amount`", False)):
            app.run_search(query)
            assert bool(app._search_hits) == found and not drawn, query


async def test_a_hint_that_the_match_is_in_the_hidden_thinking_holds_once_it_is_shown():
    """(From a review.)  "__init__" (drawn "init", bold) in a hidden thought: the hint said it
    was there, and once shown (t) it was not found."""
    app = make_app(_one_message("Done.", thinking="I should edit __init__ and then run_tests"))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        app.run_search("__init__")
        await settle(pilot)
        assert [str(n.message) for n in app._notifications] == ["No match for '__init__'"]
        app.clear_notifications()
        app.run_search("run_tests")
        await settle(pilot)
        assert any("hidden thinking: t shows it" in str(n.message) for n in app._notifications)
        await pilot.press("t")
        app.run_search("run_tests")
        await settle(pilot)
        assert app._search_hits and _marked(app) == ["run_tests"]


async def test_search_finds_text_as_shown_not_as_its_markdown():
    app = make_app(sample("demo_session.ndjson"))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        s = app.session
        for query in ("Fixed INV-142 — all", "([bold]Total:"):
            app.run_search(query)
            await pilot.pause()
            assert app._search_hits, query  # found as it reads on screen
            assert all(s.blocks[i].kind == "assistant" for i in app._search_hits)
        # Not as written: nothing on screen shows the marks, to mark where it was found (see
        # test_a_search_finds_a_message_s_text_as_drawn_not_its_markdown).
        for query in ("Fixed **INV-142", "Fixed INV-142 — none of this"):
            app.run_search(query)
            assert app._search_hits == [], query


async def test_search_finds_a_word_however_its_accents_are_written():
    """(From a tester.)  /café found the prompt's "Café" (é one letter) but not the answer's
    "café" written as e and a combining accent (U+0301, as macOS writes file names), nor
    "naïve" alike: text the same under canonical equivalence is found, written either way in
    the query or the text, and marked with its accent."""
    sid = "s"
    events = [
        {"type": "system", "subtype": "init", "session_id": sid, "model": "m", "cwd": "/w"},
        {"type": "user", "session_id": sid, "message": {"role": "user", "content": [
            {"type": "text", "text": "Café na\u00efve, please"}]}},
        {"type": "assistant", "session_id": sid, "message": {"role": "assistant", "content": [
            {"type": "text", "text": "Combining: cafe\u0301 nai\u0308ve"}]}},
        {"type": "result", "subtype": "success", "is_error": False, "result": "", "session_id": sid},
    ]
    app = make_app(b"".join(orjson.dumps(e) + b"\n" for e in events))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        s = app.session
        for query in ("café", "cafe\u0301", "NAÏVE", "nai\u0308ve"):
            app.run_search(query)
            await pilot.pause()
            assert len(app._search_hits) == 2, query  # the prompt and the answer
        app.run_search("café")
        await pilot.press("n")
        await pilot.pause()
        assert s.blocks[app._search_hits[app._search_pos]].kind == "assistant"
        tr = app.transcript
        marked = [
            seg.text for strip in tr._render_strips(app._search_hits[app._search_pos], tr._width) for seg in strip
            if seg.style and seg.style.bgcolor and seg.style.bgcolor == MATCH_STYLE.bgcolor
        ]
        assert marked == ["caf\u00e9"]  # the accent with its letter (drawn composed: the same to see)


async def test_a_load_waiting_for_data_does_not_spin(tmp_path):
    """A "saved file" that is a FIFO (agent-viewer <(producer)): while the reader waits for
    data the app pumps at its frame rate, not in a busy loop."""
    from viewer.core.feed import FileFeed

    fifo = tmp_path / "slow.ndjson"
    os.mkfifo(fifo)
    held = os.open(fifo, os.O_RDWR)
    try:
        os.write(held, sample("demo_session.ndjson")[:30_000])
        app = AgentViewerApp(FileFeed(str(fifo)))
        async with app.run_test(size=(120, 40)) as pilot:
            await pilot.pause(0.5)
            assert app.model.events and app.bulk_loading
            ticks = app._ticks
            await pilot.pause(1.0)
            assert app._ticks - ticks < 100  # ~30 a second; a busy loop makes thousands
    finally:
        os.close(held)


async def test_an_error_while_a_file_loads_stops_the_app_instead_of_vanishing(tmp_path):
    import gc

    import pytest

    from viewer.core.feed import FileFeed

    path = tmp_path / "big.ndjson"
    path.write_bytes(sample("demo_session.ndjson") * 100)
    # A slow frame timer: the load goes on in the pumps chained between frames.
    app = AgentViewerApp(FileFeed(str(path)), frame_interval=0.5)
    apply = app.model.apply

    raised = []

    def broken(rec):
        if app.model.events >= 20_000 and not raised:  # one bad record, once
            raised.append(rec)
            raise RuntimeError("boom in apply")
        return apply(rec)

    app.model.apply = broken
    with pytest.raises(RuntimeError, match="boom in apply"):
        async with app.run_test(size=(120, 40)) as pilot:
            for _ in range(500):
                if raised and not app.is_running:
                    break
                await pilot.pause(0.01)
    assert app.model.events < 21_000  # it stopped there, rather than skipping the record
    assert raised
    assert gc.isenabled()  # and the collector, off while the file loaded, is on again


async def test_while_a_file_loads_the_detail_waits_and_then_shows_the_last_call(tmp_path, monkeypatch):
    import viewer.ui.app as app_module
    from viewer.core.feed import FileFeed

    monkeypatch.setattr(app_module, "_now", lambda: 100.0)  # the hold-back never runs out
    monkeypatch.setattr(app_module, "LOAD_REDRAW", 0.0)  # redraw after every pump
    monkeypatch.setattr(app_module, "LOAD_BUDGET", 0.002)  # and pump in small steps
    sid = "one-long-run"

    def ev(**fields) -> bytes:
        return orjson.dumps({**fields, "session_id": sid}) + b"\n"

    lines = [ev(type="system", subtype="init", model="m", cwd="/w")]
    for i in range(15_000):
        call = {"shellToolCall": {"args": {"command": f"echo {i}"}}}
        done = {"shellToolCall": {"args": {"command": f"echo {i}"},
                                  "result": {"success": {"exitCode": 0, "stdout": f"{i}\n"}}}}
        lines += [ev(type="tool_call", subtype="started", call_id=f"c{i}", tool_call=call),
                  ev(type="tool_call", subtype="completed", call_id=f"c{i}", tool_call=done)]
    path = tmp_path / "big.ndjson"
    path.write_bytes(b"".join(lines))
    app = AgentViewerApp(FileFeed(str(path)))
    shown: list[int] = []
    async with app.run_test(size=(120, 40)) as pilot:
        show = app.detail.show

        def record(session, tool, *args):
            if not app.loaded:
                shown.append(-1 if tool is None else tool.index)
            show(session, tool, *args)

        app.detail.show = record
        await settle(pilot)
        assert len(app.session.tools) == 15_000 and app.timeline.follow
        assert app.detail.tool is app.session.tools[-1]  # drawn once the file is read
    # Not once per redraw while it loaded: the first screen says "Loading…", and with the
    # hold-back never running out no call's detail is drawn before the end (not even right
    # after the first screen: that took 50 ms of the 0.7 s a 70 MB file takes to open).
    assert shown and set(shown) == {-1}


async def test_replay_messages_do_not_cover_the_replay_bar():
    app = make_replay_app(sample("demo_session.ndjson"))
    async with app.run_test(size=(120, 40), notifications=True) as pilot:
        await settle(pilot)
        await pilot.press("end", "right_curly_bracket")  # at the end: "No error after this point"
        await pilot.pause(0.2)
        toasts = list(app.screen.query("Toast"))
        assert toasts and any("No error" in str(t.render()) for t in toasts)
        bar = app.bar.region
        for toast in toasts:
            assert toast.region.bottom <= bar.y  # above the bar: the counter stays readable


async def test_a_fifo_is_read_once_as_a_live_stream_and_its_writer_is_not_cut_off(tmp_path):
    """`agent-viewer some.fifo` (or `<(producer)`): the UI is up while it waits for a writer,
    the writer gets all its lines through, and call details are read back from the spool."""
    import threading

    from viewer.core.sources import check_readable
    from viewer.ui.launch import make_feed

    fifo = tmp_path / "run.fifo"
    os.mkfifo(fifo)
    checked = threading.Thread(target=check_readable, args=(str(fifo),), daemon=True)
    checked.start()  # must not open it (that would wait, then break the writer)
    checked.join(5)
    assert not checked.is_alive(), "check_readable waited for a writer"
    data = sample("demo_session.ndjson")
    written: list[object] = []

    def writer() -> None:
        try:
            with open(fifo, "wb") as f:
                f.write(data)
            written.append(len(data))
        except OSError as exc:  # a broken pipe: the viewer let go of the FIFO
            written.append(exc)

    app = AgentViewerApp(make_feed(str(fifo), follow=False), clock=lambda: 1000.0)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause(0.3)
        said = _plain(app, app.header)
        assert "… waiting for a writer to open run.fifo" in said and "events" not in said, said  # (not "waiting" twice)
        thread = threading.Thread(target=writer, daemon=True)
        thread.start()
        await pilot.pause(0.5)
        await settle(pilot)
        thread.join(5)
        assert written == [len(data)]
        assert app.session.state == "succeeded" and len(app.session.tools) == 18
        assert "waiting" not in _plain(app, app.header)
        await pilot.pause(0.3)
        assert app.detail.tool is app.session.tools[-1]
        assert "Todos" in _plain(app, app.detail)  # the payload, read back from the spool


async def test_f_brings_back_a_transcript_scrolled_up_while_the_timeline_still_follows():
    lines, feed, app = live_demo()
    async with app.run_test(size=(120, 36)) as pilot:
        push(feed, lines[: len(lines) // 2])
        await settle(pilot)
        tr = app.transcript
        app.set_focus(tr)
        await pilot.press("home")  # the transcript stops following; the timeline still does
        assert not tr.follow and app.timeline.follow
        await pilot.press("f")
        await pilot.pause()
        assert tr.follow and app.timeline.follow and tr.is_vertical_scroll_end
        await pilot.press("f")  # and f again turns both off
        assert not tr.follow and not app.timeline.follow


async def test_kind_filter_names_every_label_of_its_kind_and_s_keeps_to_that_kind():
    app = make_app(sample("demo_session.ndjson"))
    async with app.run_test(size=(160, 40)) as pilot:
        await settle(pilot)
        tools = app.session.tools
        edits = [t for t in tools if t.kind_key == "editToolCall"]
        labels = sorted({t.short for t in edits})
        assert labels == ["Create", "Edit"]  # the demo both creates and edits files
        for _ in range(20):  # c steps through the kinds: bounded, in case it never gets there
            if app.timeline.kind_filter == "editToolCall":
                break
            await pilot.press("c")
        assert app.timeline.kind_filter == "editToolCall"
        title = app.timeline.border_subtitle
        assert all(label in title for label in labels), title
        names = [c.title for c in app.get_system_commands(app.screen) if "editToolCall" in c.title]
        assert names and all(label in names[0] for label in labels)
        # s steps only through statuses the shown (edit) calls have: never to an empty list
        statuses = {t.status for t in edits}
        seen = []
        for _ in range(len(statuses)):
            await pilot.press("s")
            seen.append(app.timeline.status_filter)
            assert app.timeline.row_count > 0
        assert set(seen) == statuses
        await pilot.press("s")
        assert app.timeline.status_filter == "all"


async def test_when_the_input_ends_the_transcript_stops_spinning_for_calls_cut_off():
    """A call still running when the stream ends is unfinished: its transcript marker must be
    redrawn as such, not left spinning from the cached drawing."""
    from viewer.ui.render import SPINNER, status_glyph

    lines, feed, app = live_demo()
    async with app.run_test(size=(120, 40)) as pilot:
        push(feed, up_to_first_call(lines))
        await settle(pilot)
        t = app.session.tools[-1]
        assert t.status == "running"
        tr = app.transcript
        before = "".join(s.text for s in tr._render_strips(t.block, tr._width))
        assert any(ch in before for ch in SPINNER)
        feed._queue.put(feed.ingest.close())
        feed._queue.put(None)  # the producer is gone
        await settle(pilot)
        assert t.status == "unfinished"
        after = "".join(s.text for s in tr._render_strips(t.block, tr._width))
        assert not any(ch in after for ch in SPINNER) and status_glyph("unfinished")[0] in after


async def test_a_result_text_the_transcript_does_not_show_is_shown_under_the_result():
    sid = "2b1c9a4e-0000-4000-8000-000000000001"
    data = b"".join(orjson.dumps(e) + b"\n" for e in (
        {"type": "system", "subtype": "init", "session_id": sid, "model": "m", "cwd": "/w"},
        {"type": "user", "message": {"role": "user", "content": [{"type": "text", "text": "say hi"}]},
         "session_id": sid},
        {"type": "result", "subtype": "success", "is_error": False, "duration_ms": 5,
         "result": "Hello from the **result** only", "session_id": sid},
    ))
    app = make_app(data)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        shown = _plain(app, app.transcript)
        assert "Run succeeded" in shown and "Hello from the result only" in shown  # as Markdown
        assert "No tool calls in this run." in _plain(app, app.detail)  # not "yet": it ended
        app.run_search("from the result")
        await pilot.pause()
        assert app._search_hits  # and search finds it


async def test_a_run_without_calls_that_ended_no_longer_says_yet():
    """(From a new user's trial.)  A followed run without a call that succeeded: the detail
    still said "No tool calls in this run yet.", and so did ] in any finished run."""
    feed = BytesFeed(b"", live=True, eof=False, clock=lambda: 1000.0)
    app = AgentViewerApp(feed, clock=lambda: 1000.0)
    lines = real_capture("maestro__01_simple_no_tool.ndjson").splitlines(keepends=True)
    result = next(i for i, line in enumerate(lines) if b'"type":"result"' in line)
    async with app.run_test(size=(120, 40), notifications=True) as pilot:
        push(feed, lines[:result])
        await settle(pilot)
        assert "No tool calls in this run yet." in _plain(app, app.detail)
        push(feed, lines[result:])
        await settle(pilot)
        assert app.session.state == "succeeded"
        assert "No tool calls in this run." in _plain(app, app.detail)
        app.set_focus(app.transcript)
        await pilot.press("right_square_bracket")
        await pilot.pause()
        assert [m.message for m in app._notifications] == ["No tool calls in this run."]
        # c and s, the list's filters: "No tool calls to filter yet." there, and s said nothing
        app.clear_notifications()
        await pilot.press("c")
        await pilot.pause()
        assert [m.message for m in app._notifications] == ["Nothing to filter. No tool calls in this run."]
        app.clear_notifications()
        await pilot.press("s")
        await pilot.pause()
        assert [m.message for m in app._notifications] == ["Nothing to filter. No tool calls in this run."]
    # A run with calls, whose filters leave none of a kind or status: not said to have none
    app = make_app(sample("demo_session.ndjson"))
    async with app.run_test(size=(120, 40), notifications=True) as pilot:
        await settle(pilot)
        app.timeline.status_filter = "running"  # (chosen live: since then every call ended)
        await pilot.press("c")  # (the kind filter, among the calls of that status: none)
        await pilot.pause()
        assert not [m for m in app._notifications if "Nothing to filter" in m.message]


async def test_a_search_finds_a_message_s_text_as_drawn_not_its_markdown():
    """(From a new-user trial.)  "**Tax", "## Root" and ".*" (in "subtotal.**") were found
    in a message's Markdown, where nothing on screen showed them: "block 1 of 1", and no mark.
    A query with Markdown's characters is looked for as the message is drawn."""
    app = make_app(sample("demo_session.ndjson"))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        for query, found in [("**Tax", False), ("## Root", False), (".*", False), ("`src/", False), (r"\`", False),
                             ("Tax is computed", True), ("Root cause", True), ("invoice_tool/totals.py", True),
                             ("tax_amount(sub", True)]:
            app.clear_notifications()
            app.run_search(query)
            await settle(pilot)
            notices = [str(n.message) for n in app._notifications]
            if not found:
                assert not app._search_hits and notices == [f"No match for '{query}'"], (query, notices)
                continue
            assert str(app.transcript.border_subtitle).startswith(f"'{query}': block 1 of "), query
            assert app.transcript.highlight_block in app._search_hits
            assert query.lower() in [m.lower() for m in _marked(app)], (query, _marked(app))


async def test_a_search_that_only_hidden_thinking_matches_says_so():
    app = make_app(sample("demo_session.ndjson"))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert not app.transcript.show_thinking
        app.run_search("double-checking")  # only in the model's thinking, hidden by default
        await pilot.pause()
        assert not app._search_hits
        assert any("hidden thinking: t shows it" in n.message for n in app._notifications)
        await pilot.press("t")
        await pilot.press("n")  # n searches again now that the thinking is shown
        await pilot.pause()
        assert app._search_hits and str(app.transcript.border_subtitle).startswith("'double-checking': block 1 of ")


async def test_a_paused_replay_at_its_start_says_so_not_waiting_for_events():
    app = make_replay_app(sample("demo_session.ndjson"))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        top = app.header.render_line(0).text
        assert "PAUSED" in top and "at the start of the run" in top and "waiting" not in top


async def test_the_bundled_demo_says_it_is_a_demo(monkeypatch):
    """A greeting says so at the start, and the header all along (from a new-user trial: 12 s
    later nothing on screen told the demo from a real run)."""
    from viewer.cli import demo_path
    from viewer.ui import launch

    started: list[AgentViewerApp] = []
    monkeypatch.setattr(AgentViewerApp, "run", lambda self, *a, **k: started.append(self))
    monkeypatch.setenv("TEXTUAL_DRIVER", "headless")  # (launch wants a terminal on stderr)
    launch.launch(demo_path(), demo=True)
    from tests.ui.conftest import SAMPLES

    launch.launch(str(SAMPLES / "demo_session.ndjson"))  # the same run, not as the demo
    for app, shown in zip(started, (True, False)):  # the apps launch made, run as it would
        async with app.run_test(size=(120, 40), notifications=True) as pilot:
            await settle(pilot)
            assert any("bundled demo run" in n.message for n in app._notifications) == shown
            app.clear_notifications()
            await pilot.pause()
            assert app.header.render_line(0).text.startswith(" DEMO ") == shown


async def test_a_running_call_of_a_live_run_shows_how_long_it_has_been_running():
    now = [1000.0]
    lines, feed, app = live_demo(clock=lambda: now[0])
    async with app.run_test(size=(120, 40)) as pilot:
        push(feed, up_to_first_call(lines))
        await settle(pilot)
        t = app.session.tools[-1]
        assert t.status == "running"
        row = lambda: _plain(app, app.timeline).splitlines()[t.index]  # noqa: E731
        # ... and its line in the transcript (from a trial: only the list's row had a time)
        said = lambda: next(ln for ln in _plain(app, app.transcript).splitlines() if f" {t.heading} " in ln)  # noqa: E731
        assert "…" not in row() and " s…" not in said()  # under a second: nothing yet
        now[0] += 12.4
        await pilot.pause(0.4)  # a few frame ticks
        assert row().rstrip().endswith("12 s…"), row()
        assert said().rstrip().endswith(" · 12 s…"), said()
        now[0] += 60
        await pilot.pause(0.4)
        assert row().rstrip().endswith("1m12s…"), row()
        assert said().rstrip().endswith(" · 1m12s…"), said()
        # (From a new user's trial.)  The detail of that call said nothing of its time.
        assert app.detail.tool is t
        facts = lambda: [r.strip() for r in _plain(app, app.detail).splitlines()]  # noqa: E731
        assert "running for 1m12s" in facts(), facts()
        now[0] += 3
        await pilot.pause(0.4)
        assert "running for 1m15s" in facts(), facts()
        # Its spinner turns as the list's does: it stood still, as if the call had hung.
        spinner = lambda: facts()[0][0]  # noqa: E731
        before = spinner()
        assert before in SPINNER and row().lstrip().startswith(before), (facts()[0], row())
        now[0] += 0.1
        await pilot.pause(0.4)
        assert spinner() != before and row().lstrip().startswith(spinner()), (facts()[0], row())
        await pilot.press("enter")  # full screen too
        await pilot.pause()
        zoom = app.screen.query_one("#zoom-detail")
        now[0] += 2
        await pilot.pause(0.4)
        zoomed = lambda: [r.strip() for r in _plain(app, zoom).splitlines()]  # noqa: E731
        assert "running for 1m17s" in zoomed()
        before = zoomed()[0][0]
        now[0] += 0.1
        await pilot.pause(0.4)
        assert before in SPINNER and zoomed()[0][0] in SPINNER and zoomed()[0][0] != before  # (its spinner too)


@pytest.mark.parametrize("cut_by", ["the input's end", "the next run"])
async def test_a_live_runs_clock_stops_where_it_was_when_it_is_cut_off(cut_by):
    """A live run cut off (its pipe closed, no result) kept counting to 01:35, then stepped back
    to the span of its events' own timestamps (00:02) when the pipe closed.  (From a code
    review.)  A run cut off by the next one (the same session resumed) did the same."""
    now = [1000.0]
    lines, feed, app = live_demo(clock=lambda: now[0])
    async with app.run_test(size=(120, 40)) as pilot:
        push(feed, up_to_first_call(lines))
        await settle(pilot)
        now[0] += 95
        await pilot.pause(0.4)
        assert "01:35" in _plain(app, app.header)
        if cut_by == "the input's end":
            now[0] += 2
            feed._queue.put(feed.ingest.close())
            feed._queue.put(None)  # the producer ends, 97 s after the first event came
            shown = "01:37"
        else:
            push(feed, lines[:1])  # the init again: the next run begins
            shown = "01:35"
        await settle(pilot)
        if cut_by == "the next run":
            assert len(app.model.sessions) == 2
            app.show_session(0)
            await pilot.pause()
        header = _plain(app, app.header)
        assert "ENDED" in header and shown in header, header
        now[0] += 60
        await pilot.pause(0.4)
        assert shown in _plain(app, app.header)  # stopped


async def test_a_live_runs_clock_stops_at_its_last_event_when_the_followed_file_starts_over():
    """(From a code review.)  A run cut off by a --follow restart stepped back too."""
    now = [1000.0]
    lines, feed, app = live_demo(clock=lambda: now[0])
    async with app.run_test(size=(120, 40)) as pilot:
        first = up_to_first_call(lines)
        push(feed, first[:3])
        await settle(pilot)
        now[0] += 30
        push(feed, first[3:])  # its last event, 30 s after its first
        await settle(pilot)
        now[0] += 95
        feed._queue.put(feed.ingest.close(restart=True))
        push(feed, lines[:3])
        await settle(pilot)
        app.show_session(0)
        await pilot.pause()
        header = _plain(app, app.header)
        assert "ENDED" in header and "00:30" in header, header


async def test_the_replay_bar_keeps_its_length_as_the_counter_grows():
    app = make_replay_app(sample("demo_session.ndjson"))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        app.bar.render()
        at_start = app.bar._bar
        await pilot.press("end")  # 0 → 337: a counter three digits wider
        app.bar.render()
        assert app.bar._bar == at_start  # a click lands on the same fraction of the run
        # (From a new-user trial.)  The first cell is the start, the last one the end.
        start, end = at_start
        await pilot.click(app.bar, offset=(start, 0))
        await settle(pilot)
        assert app.replay.position == 0
        await pilot.click(app.bar, offset=(end - 1, 0))
        await settle(pilot)
        assert app.replay.position == app.replay.total


async def test_the_replay_bar_keeps_its_length_as_the_clock_grows():
    """(From a new-user trial.)  "0:05 / 1:08:47" then "1:00:00 / 1:08:47": the bar shrank by
    three cells as the clock grew, so the same click went to another event."""
    from viewer.core.replay import Progress

    app = make_replay_app(sample("demo_session.ndjson"))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        lengths = set()
        for t in (5.0, 65.0, 3600.0, 4127.0):
            app.replay.progress = lambda t=t: Progress(10, 337, t, 4127.0, 1.0, True)
            app.bar.render()
            lengths.add(app.bar._bar)
        assert len(lengths) == 1, lengths


async def test_the_header_names_another_agents_stream():
    """A Cursor run with Claude Code's calls in it is read as far as it goes, a stream of no
    format known not at all: the header says which agent's stream it looks like, so what is
    listed as unknown is no surprise."""
    from tests.test_model import UNKNOWN_STREAM
    from tests.test_printer_cli import PARTLY_READ

    cases = [(PARTLY_READ, "⚠ Claude Code stream, partly read (h)",
              "This looks like a Claude Code stream whose first events did not say so: it was read as Cursor's"),
             (UNKNOWN_STREAM, "⚠ another agent's stream? (h)", "agent-viewer reads the tool calls of Cursor, "
                                                               "Claude Code, Codex and Gemini CLI: this stream's")]
    for data, want, detail in cases:
        app = make_app(data)
        async with app.run_test(size=(60, 30)) as pilot:  # kept in a narrow window
            await settle(pilot)
            assert want in _plain(app, app.header), _plain(app, app.header)
            # (From a new-user trial.)  Both runs called tools, which agent-viewer cannot read
            # yet: not "no tool calls", nor "No tool calls in this run."
            await pilot.resize_terminal(120, 30)
            await settle(pilot)
            assert "tool calls not read" in _plain(app, app.header)
            assert "no tool calls" not in _plain(app, app.header)
            shown = " ".join(_plain(app, app.detail).split())
            assert "are in the transcript" in shown and detail in shown, shown


async def test_an_unknown_format_says_whether_it_is_still_coming():
    """(From a new-user trial.)  A stream of no known format piped in showed "? UNKNOWN
    FORMAT" while it came and after it ended: only a clock told them apart."""
    lines = [orjson.dumps({"type": "span.start", "span": "t"}) + b"\n",
             orjson.dumps({"type": "span.end", "item": {"type": "note", "text": "hi"}}) + b"\n"]
    feed = BytesFeed(b"", live=True, eof=False, clock=lambda: 1000.0)
    app = AgentViewerApp(feed, clock=lambda: 1000.0)
    async with app.run_test(size=(120, 30)) as pilot:
        push(feed, lines)
        await settle(pilot)
        assert "? UNKNOWN FORMAT · LIVE" in _plain(app, app.header)
        feed._queue.put(feed.ingest.close())
        feed._queue.put(None)  # the producer ends
        await settle(pilot)
        assert "? UNKNOWN FORMAT" in _plain(app, app.header)
        assert "LIVE" not in _plain(app, app.header)


@pytest.mark.parametrize("outcome,status", [("failure", "failed"), ("timeout", "failed (timeout)"),
                                            ("success", "success")])
async def test_a_call_s_status_names_its_outcome_only_when_it_says_more(outcome, status):
    """(From a new-user trial.)  A failed command's detail read "status failed (failure)"."""
    app = make_app(_one_shell_call("make", {outcome: {"command": "make", "exitCode": 0, "stdout": "", "stderr": ""}}))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        row = next(r for r in _plain(app, app.detail).splitlines() if r.strip().startswith("status"))
        assert row.split(None, 1)[1].rstrip(" │") == status, row


async def test_an_unknown_format_names_no_agent_and_every_format_read():
    """(From a new-user trial.)  A stream of no known format read "? UNKNOWN FORMAT  Cursor"
    (it is read as the default format), and its detail said agent-viewer reads only Cursor's
    and Claude Code's calls."""
    app = make_app(b'{"a":1}\n{"b":2}\n')
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(pilot)
        header = _plain(app, app.header)
        assert "? UNKNOWN FORMAT" in header and "Cursor" not in header, header
        assert "reads the tool calls of Cursor, Claude Code, Codex and Gemini CLI" in " ".join(
            _plain(app, app.detail).split())


@pytest.mark.parametrize("sid,shown", [("sess-t93", "session sess-t93 "), ("run_2026_11_26_a_long_id", "session run_2026_11_26_… "),
                                       ("088d7e12-a739-4041-955e-fac989f5b13f", "session 088d7e12 ")])
async def test_a_session_id_is_cut_short_only_when_it_is_a_uuid(sid, shown):
    """(From a new-user trial.)  "sess-t93" read "session sess": cut at its first "-", as a
    UUID is, it looked like another id."""
    init = {"type": "system", "subtype": "init", "session_id": sid, "model": "m", "cwd": "/w"}
    app = make_app(orjson.dumps(init) + b"\n")
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(pilot)
        assert shown in _plain(app, app.header) + " ", _plain(app, app.header)


@pytest.mark.parametrize("query,found", [(r"round\(", True), ("zq's", False), ('zq "hi"', False)])
async def test_a_search_s_query_is_quoted_as_typed(query, found):
    """(From a new-user trial.)  A search for round\\( read "'round\\\\(': block 1 of 2" (Python's
    repr), and one for it's said "No match for \"it's\"" (its quotes changed)."""
    app = make_app(sample("demo_session.ndjson"))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        app.run_search(query)
        await settle(pilot)
        if found:
            assert str(app.transcript.border_subtitle).startswith(f"'{query}': block 1 of ")
        else:
            assert [str(n.message) for n in app._notifications] == [f"No match for '{query}'"]


async def test_back_on_the_newest_run_its_tool_list_follows_again():
    """(From a new-user trial.)  < then > on a stream of two runs: the newest run's list had
    stopped following (its title lost "· following") and sat on its first call."""
    app = make_app(sample("two_sessions.ndjson"))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert app.timeline.border_title.endswith("· following")
        await pilot.press("less_than_sign")
        await settle(pilot)
        assert not app.timeline.follow  # an earlier run: nothing new comes there
        await pilot.press("greater_than_sign")
        await settle(pilot)
        assert app.timeline.border_title.endswith("· following")
        assert app.timeline.selected_index() == len(app.session.tools) - 1
        app.timeline.focus()
        await pilot.press("home")  # the user stops it following ...
        await pilot.press("less_than_sign", "greater_than_sign")
        await settle(pilot)
        assert not app.timeline.follow  # ... and it stays stopped


async def test_a_key_pressed_again_where_it_cannot_go_says_so_once():
    """(From a code review.)  > three times on the last session stacked three identical toasts,
    as Enter did with no call to open."""
    app = make_app(sample("two_sessions.ndjson"))
    async with app.run_test(size=(120, 40), notifications=True) as pilot:
        await settle(pilot)
        await pilot.press("greater_than_sign", "greater_than_sign", "greater_than_sign")
        await pilot.pause()
        assert [n.message for n in app._notifications] == ["This is the last of the 2 sessions."]


async def test_a_run_newer_than_the_one_left_follows():
    """(From a code review.)  Home in the newest run's list, <, a third run arrives, > >: the
    third run, never touched, did not follow (the second's choice was applied to it)."""
    lines, feed, app = live_demo()
    second = [orjson.dumps({**orjson.loads(ln), "session_id": "second"}) + b"\n"
              if b'"session_id"' in ln else ln for ln in lines]
    third = [ln.replace(b'"second"', b'"third"') for ln in second]
    async with app.run_test(size=(120, 40)) as pilot:
        push(feed, lines + second)
        await settle(pilot)
        assert len(app.model.sessions) == 2 and app.view_index == 1
        app.timeline.focus()
        await pilot.press("home", "less_than_sign")
        push(feed, third)
        await settle(pilot)
        await pilot.press("greater_than_sign", "greater_than_sign")
        await settle(pilot)
        assert app.view_index == 2 and app.timeline.follow
        assert app.timeline.selected_index() == len(app.session.tools) - 1


async def test_the_footer_offers_open_and_raw_only_once_there_is_a_call():
    """(From a new-user trial.)  A stream with no tool call (another agent's; a run that has not
    called one yet) offered ⏎ Open and r Raw in the footer, and they did nothing.  So did the
    transcript's ] Next call; pressed there, ] says why it does nothing."""
    lines, feed, app = live_demo()
    async with app.run_test(size=(120, 40), notifications=True) as pilot:
        first_call = len(up_to_first_call(lines)) - 1
        push(feed, lines[:first_call])
        await settle(pilot)
        footer = screen_rows(app).splitlines()[-1]
        assert "Quit" in footer and "Open" not in footer and "Raw" not in footer, footer
        app.set_focus(app.transcript)
        await pilot.pause()
        footer = screen_rows(app).splitlines()[-1]
        assert "Quit" in footer and "Next call" not in footer, footer
        await pilot.press("right_square_bracket")
        await pilot.pause()
        assert [m.message for m in app._notifications] == ["No tool calls in this run yet."]
        push(feed, lines[first_call:first_call + 1])
        await settle(pilot)
        footer = screen_rows(app).splitlines()[-1]
        assert "⏎ Open" in footer and "r Raw" in footer and "] Next call" in footer, footer


async def test_a_maximized_pane_says_how_to_restore_the_layout():
    """(From a new-user trial.)  Palette → Maximize: nothing on screen said that Esc brings the
    other panes back."""
    app = make_app(sample("demo_session.ndjson"))
    async with app.run_test(size=(120, 40), notifications=True) as pilot:
        await settle(pilot)
        app.screen.action_maximize()
        await pilot.pause()
        assert app.screen.maximized is app.timeline
        assert any("Esc restores the layout" in n.message for n in app._notifications)
        await pilot.press("escape")
        await pilot.pause()
        assert app.screen.maximized is None


async def test_each_pane_maximized_fills_the_screen_with_its_borders():
    """(From a trial.)  The transcript maximized was five screens wide (its share of the row,
    5fr, alone in the maximized view): no right border, its lines cut at the screen's edge."""
    app = make_app(sample("demo_session.ndjson"))
    async with app.run_test(size=(120, 40), notifications=True) as pilot:
        await settle(pilot)
        for pane in (app.transcript, app.timeline, app.detail):
            pane.focus()
            await pilot.pause()
            app.screen.action_maximize()
            await settle(pilot)
            assert app.screen.maximized is pane
            assert pane.region.width == 120, (pane.id, pane.region)
            rows = screen_rows(app).splitlines()
            assert rows[0].startswith("╭") and rows[0].endswith("╮"), rows[0]
            assert rows[5].endswith("│"), rows[5]
            await pilot.press("escape")
            await settle(pilot)
            assert app.screen.maximized is None


async def test_moving_in_the_tool_list_brings_the_calls_line_into_the_transcript():
    """(From a trial on a big run.)  The list found the failed call (s, then g), and the
    transcript stayed at the run's end: nothing showed what the agent said around it."""
    app = make_app(sample("demo_session.ndjson"))
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(pilot)
        tr = app.transcript
        assert tr.follow and app.focused is app.timeline
        for keys in (("g",), ("j", "j", "j", "j"), ("s", "g")):
            await pilot.press(*keys)
            await settle(pilot)
            t = app.session.tools[app.timeline.selected_index()]
            rows = _plain(app, tr).splitlines()
            marked = [i for i, row in enumerate(rows) if "▶" in row]
            assert len(marked) == 1 and not tr.follow, (keys, rows)
            assert f"▶ {'✗' if t.status == 'failed' else '✓'} {t.label}" in rows[marked[0]], (keys, rows[marked[0]])
            # (a third of the way down: what led to it above, what came of it below)
            third = tr.scrollable_content_region.height // 3
            assert marked[0] == third or tr.scroll_y in (0, tr.max_scroll_y), (marked, third, tr.scroll_y)
        assert t.status == "failed"
        await pilot.press("x", "j")  # (the call below, in view already: the transcript stays)
        await settle(pilot)
        place = tr.scroll_y
        await pilot.press("k")
        await settle(pilot)
        assert app.session.tools[app.timeline.selected_index()] is t and tr.scroll_y == place
        # A filter alone, the list following: the newest call it shows, in the transcript too (the
        # list followed every call, and the transcript the run's end, before it).
        await pilot.press("x", "end", "f")
        await settle(pilot)
        assert app.timeline.follow and tr.follow and not [r for r in _plain(app, tr).splitlines() if "✗" in r]
        await pilot.press("s")
        await settle(pilot)
        assert app.timeline.follow and app.session.tools[app.timeline.selected_index()].status == "failed"
        assert any("▶ ✗" in r for r in _plain(app, tr).splitlines()) and not tr.follow
        # ... and a move while the list follows every call leaves the transcript following.
        await pilot.press("x", "end", "f")
        await settle(pilot)
        assert app.timeline.follow and tr.follow
        await pilot.press("end")
        await settle(pilot)
        assert tr.follow


async def test_the_transcript_title_says_whether_it_follows():
    """Scrolling up stops the transcript following new text; its title says so, as the tool
    list's does, and f (or End) brings it back."""
    app = make_app(sample("demo_session.ndjson"))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert app.transcript.border_title == "Transcript · following"
        app.transcript.focus()
        await pilot.press("pageup")
        await pilot.pause()
        assert app.transcript.border_title == "Transcript"
        await pilot.press("f")
        await pilot.pause()
        assert app.transcript.border_title == "Transcript · following"


async def test_the_full_screen_detail_of_a_running_call_shows_its_completion():
    """Enter on a call still running, then its completion arrives: the full-screen view (like the
    pane) shows the outcome instead of 'running' for ever."""
    from tests.conftest import decode_bytes

    lines = sample("demo_session.ndjson").splitlines(keepends=True)
    start = next(i for i, ln in enumerate(lines) if b'"subtype":"started"' in ln and b"shellToolCall" in ln)
    call_id = orjson.loads(lines[start])["call_id"]
    done = next(i for i, ln in enumerate(lines) if b'"subtype":"completed"' in ln
                and orjson.loads(ln).get("call_id") == call_id)
    app = make_app(b"".join(lines[: start + 1]), live=True, eof=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        s = app.session
        app.timeline.follow = False
        app.timeline.select_tool(len(s.tools) - 1)
        await pilot.press("enter")
        await pilot.pause()
        view = app.screen.query_one("#zoom-detail")
        assert "running" in _plain(app, view)
        recs, _ = decode_bytes(b"".join(lines[: done + 1]))
        app.model.apply(recs[-1])  # the completion arrives
        assert s.tools[-1].status != "running"
        await pilot.pause(0.4)
        shown = _plain(app, view)
        assert "running" not in shown.split("kind")[0] and s.tools[-1].status in shown, shown


async def test_the_detail_pane_catches_up_when_a_narrow_window_is_widened():
    app = make_app(sample("demo_session.ndjson"))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.resize_terminal(80, 24)  # no room for the detail pane
        await pilot.pause()
        assert not app.detail.display
        app.timeline.follow = False
        app.timeline.select_tool(2)
        await pilot.pause()
        await pilot.resize_terminal(120, 40)
        await pilot.pause(0.2)
        assert app.detail.display and app.detail.tool is app.session.tools[2]


async def test_n_takes_in_what_arrived_or_was_shown_since_the_search():
    """n searches again when the run grew or the thinking was shown, and goes on from the
    block it showed last; stepping past the last hit says it starts from the top again."""
    from tests.conftest import decode_bytes

    data = sample("demo_session.ndjson")
    lines = data.splitlines(keepends=True)
    half = len(lines) // 2
    app = make_app(b"".join(lines[:half]), live=True, eof=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        app.run_search("decimal")
        await pilot.pause()
        first = list(app._search_hits)
        assert first and app._search_pos == 0
        for r in decode_bytes(data)[0]:  # the rest of the run arrives
            if r.line > half:
                app.model.apply(r)
        await pilot.press("t")  # and the thinking is shown
        await pilot.press("n")
        await pilot.pause()
        hits = app._search_hits
        assert len(hits) > len(first) and hits[app._search_pos] > first[0]
        assert hits[app._search_pos] == min(h for h in hits if h > first[0])
        for _ in range(len(hits)):  # to the last hit
            if app._search_pos == len(hits) - 1:
                break
            await pilot.press("n")
        await pilot.press("n")
        await pilot.pause()
        assert app._search_pos == 0
        assert str(app.transcript.border_subtitle).endswith(" (from the top), n N")


async def test_a_binary_file_says_one_line_could_not_be_parsed_in_plain_words():
    elf = b"\x7fELF\x02\x01\x01\x00" + bytes(b for b in range(256) if b != 10) * 4
    app = make_app(elf)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert "⚠ 1 malformed line (h)   line 1: \\x7fELF" in _plain(app, app.header), _plain(app, app.header)
        await pilot.press("h")
        await pilot.pause()
        shown = screen_rows(app)
        assert "0 events · 1 malformed line · 0 unknown events" in shown
        assert "Event types" not in shown and "0 lines" not in shown


async def test_the_health_screen_says_how_many_unknown_events_it_does_not_list():
    """(From a code review.)  The list of unknown events stops at 2,000 rows: the header said
    "2,100 unknown" and the list ended at the 2,000th without a word."""
    events = [{"type": "system", "subtype": "init", "session_id": "s1", "model": "m"}]
    events += [{"type": "mystery", "n": i, "session_id": "s1"} for i in range(2100)]
    app = make_app(b"".join(orjson.dumps(e) + b"\n" for e in events))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("h")
        await pilot.pause()
        health = "\n".join(_plain(app, w) for w in app.screen.query("Static"))
        assert "n=1999" in health and "100 more" in health and "n=2000" not in health


async def test_the_health_screen_shows_each_bad_line_on_one_row_and_end_reaches_the_last():
    """Each malformed line is one clipped row (a wrapped excerpt broke into pieces from all
    over the line), and End goes to the last of hundreds at once, not partway."""
    words = " ".join(f"word{i}" for i in range(25))  # all within the excerpt (200 characters)
    bad = b"".join(f"not json {n} {words}\n".encode() for n in range(1, 401))
    app = make_app(sample("reference_example.ndjson") + bad)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("h")
        await pilot.pause()
        rows = screen_rows(app)
        assert "not json 1 word0 word1" in rows and "not json 2 word0" in rows
        health = "\n".join(_plain(app, w) for w in app.screen.query("Static"))
        assert "not json 1 word0 word1" in health
        assert "word24" not in health  # clipped, not wrapped onto more rows (the transcript wraps them)
        await pilot.press("end")
        view = app.screen.query_one("VerticalScroll")
        assert view.scroll_y == view.max_scroll_y > 0  # at once, not animated over half a second
        await pilot.pause()
        rows = screen_rows(app)
        assert "not json 400 word0" in rows and "Esc closes this view." in rows, rows[-800:]
        await pilot.press("g")
        assert view.scroll_y == 0
        await pilot.press("j", "j", "j")
        assert view.scroll_y == 3
        await pilot.press("k")
        assert view.scroll_y == 2


async def test_j_and_k_scroll_the_help_as_the_help_says():
    """(From a new-user trial.)  The help names j k for moving; in the help they did nothing."""
    app = make_app(sample("demo_session.ndjson"))
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("question_mark")
        await pilot.pause()
        view = app.screen.query_one("VerticalScroll")
        assert view.max_scroll_y > 2  # 24 rows: the help does not fit
        await pilot.press("j", "j")
        assert view.scroll_y == 2
        await pilot.press("G")
        assert view.scroll_y == view.max_scroll_y
        await pilot.press("k")
        assert view.scroll_y == view.max_scroll_y - 1


async def test_the_help_in_a_narrow_window_wraps_its_keys_rather_than_its_words():
    """(From a new-user trial.)  At 40 columns the keys kept 26 of them: the descriptions came
    one word a line, cut ("tool-ca…")."""
    app = make_app(sample("demo_session.ndjson"))
    async with app.run_test(size=(40, 15)) as pilot:
        await settle(pilot)
        await pilot.press("question_mark")
        await pilot.pause()
        help_text = app.screen.query_one("VerticalScroll").query("Static").first()
        rows = [strip.text.rstrip() for strip in help_text.render_lines(help_text.region.reset_offset)]
        assert "move in the tool list (the transcript" in " ".join(" ".join(rows).split()) and not any("…" in r for r in rows), rows


async def test_a_file_with_no_run_says_so_in_the_detail_pane_too():
    app = make_app(b"not json\n\nstill not json\n")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert "No tool calls: the input held no run." in _plain(app, app.detail)


async def test_the_health_screen_of_a_file_still_loading_says_it_is_a_snapshot():
    app = make_app(sample("demo_session.ndjson"), eof=False)  # the end not read yet
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("h")
        await settle(pilot)
        shown = screen_rows(app)  # (on screen: Textual's loading indicator covered it)
        assert "The file is still being read (100% read): this is what was read so far." in shown
        assert "Every line parsed into a known event so far." in shown


async def test_the_health_screen_counts_system_events_by_what_they_are():
    """(From a trial.)  "Event types: system 6, assistant 3, …": hooks, the init, a permission
    denied, thinking tokens, all "system"."""
    from tests.conftest import real_capture

    app = make_app(real_capture("maestro__03_tool_use_denied.ndjson", "claude"))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("h")
        await settle(pilot)
        shown = " ".join(screen_rows(app).split())  # (wrapped: one line)
        assert ("system 6 (thinking_tokens 2, hook_started 1, hook_response 1, init 1, permission_denied 1)"
                in shown), shown


async def test_a_rejected_write_says_no_size_and_its_message_is_whole():
    """(From a trial.)  A Write that was refused read "⊘ Write spike.txt · 1 line", as if the
    file had been written; its message cut the path in its middle ("…/scratchpad/claude-spi…
    but you haven't granted it yet"), in the pane and full screen."""
    from tests.conftest import real_capture

    app = make_app(real_capture("maestro__03_tool_use_denied.ndjson", "claude"))
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(pilot)
        row = next(r for r in screen_rows(app).splitlines() if "Write" in r and "spike.txt" in r)
        assert "⊘" in row and "line" not in row.split("╭")[0].split("││")[-1], row
        for opened in (False, True):
            if opened:
                await pilot.press("enter")
                await settle(pilot)
            rows = [r.strip("│ ") for r in screen_rows(app).splitlines()]
            if not opened:
                rows = [r.split("││")[-1].strip("│ ") for r in screen_rows(app).splitlines() if "││" in r]
            top = next(i for i, r in enumerate(rows) if r.startswith("message"))
            end = next(i for i, r in enumerate(rows) if r.startswith("kind"))
            said = "".join(rows[top:end]).replace(" ", "")
            assert "…" not in said, rows[top:end]
            assert "scratchpad/claude-spike/spike.txt,butyouhaven'tgrantedityet." in said, rows[top:end]
            assert not any(r.startswith("summary") for r in rows[top - 4 : end]), rows[top - 4 : end]


async def test_the_health_screen_says_whose_stream_it_is():

    from tests.test_printer_cli import PARTLY_READ

    app = make_app(PARTLY_READ)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("h")
        await pilot.pause()
        shown = screen_rows(app)
        assert "This looks like a Claude Code stream" in shown


async def test_a_replay_catches_up_the_detail_and_the_footer_after_a_resize():
    app = make_replay_app(sample("demo_session.ndjson"))
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("end")  # the whole run
        await pilot.pause()
        await pilot.resize_terminal(80, 24)
        await pilot.pause(0.2)
        assert app._footer.compact and not app._footer.show_command_palette
        app.timeline.follow = False
        app.timeline.select_tool(2)
        await pilot.resize_terminal(120, 40)
        await pilot.pause(0.2)
        assert app.detail.tool is app.session.tools[2]
        assert not app._footer.compact and app._footer.show_command_palette


async def test_the_palette_key_follows_the_window_width():
    app = make_app(sample("demo_session.ndjson"))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert "palette" in screen_rows(app).splitlines()[-1]
        await pilot.resize_terminal(80, 24)
        await pilot.pause(0.2)
        last = screen_rows(app).splitlines()[-1]
        assert "palette" not in last and "h Health" in last
        await pilot.resize_terminal(120, 40)
        await pilot.pause(0.2)
        assert "palette" in screen_rows(app).splitlines()[-1]


async def test_n_finds_text_that_grew_inside_a_block_it_already_searched():
    from tests.conftest import decode_bytes

    def said(text: str, ts: int) -> bytes:
        return orjson.dumps({"type": "assistant", "session_id": "s", "timestamp_ms": ts,
                             "message": {"content": [{"type": "text", "text": text}]}}) + b"\n"

    head = orjson.dumps({"type": "user", "session_id": "s",
                         "message": {"content": [{"type": "text", "text": "find the needle"}]}}) + b"\n"
    data = head + said("working on it", 1)
    app = make_app(data, live=True, eof=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        app.run_search("needle")
        await pilot.pause()
        assert app._search_hits == [0]
        more = decode_bytes(data + said(" ... found the needle", 2))[0][-1]
        app.model.apply(more)  # the open block grows; no block is added
        await pilot.press("n")
        await pilot.pause()
        assert app._search_hits == [0, 1] and app._search_pos == 1


async def test_the_tool_lists_columns_stay_put_as_a_live_run_brings_longer_kinds():
    """The kind column is as wide as the longest known kind from the first call on, and the
    number column holds two digits: as calls arrive (a shell call after an MCP one, the 10th
    call), the rows already shown do not move.  The kind is its short name ("Shell"); the
    detail pane keeps the full label."""
    lines, feed, app = live_demo()
    first = up_to_first_call(lines)
    async with app.run_test(size=(120, 40)) as pilot:
        push(feed, first)
        await settle(pilot)
        before = _plain(app, app.timeline).splitlines()[0]
        assert " 1   MCP    linear-get_issue" in before, before
        push(feed, lines[len(first):])
        await settle(pilot)
        rows = _plain(app, app.timeline).splitlines()
        app.timeline.action_first()
        await settle(pilot)
        after = _plain(app, app.timeline).splitlines()[0]
        # The glyph changed (it finished), and so did the bracket (two calls started beside
        # it): nothing moved.
        assert after[1:5] + after[6:30] == before[1:5] + before[6:30], (before, after)
        assert after[5] == "┌" and before[5] == " "
        assert any(" 16   Shell  python -m pytest" in r for r in rows), rows
        app.timeline.cursor = 3
        await settle(pilot)
        assert "Ran terminal command" in _plain(app, app.detail)


async def test_paths_show_their_file_name_relative_to_the_runs_directory():
    """Paths under the run's cwd (shown in the header) are relative; a path too long for the
    tool list keeps its end, so the file name stays readable."""
    app = make_app(sample("demo_session.ndjson"))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        rows = _plain(app, app.timeline)
        (row,) = [line for line in rows.splitlines() if " 14   Edit " in line]
        assert "Edit   …e_tool/totals.py · +14 −10" in row, row
        s = app.session
        edit = next(t for t in s.tools if t.label == "Edited file")
        assert edit.target.startswith("/home/maya/code/invoice-tool/")  # the model keeps it whole
        marker = app.transcript._render(s, s.blocks[edit.block]).plain
        assert "Edited file src/invoice_tool/totals.py" in marker and "/home" not in marker


async def test_a_new_run_not_put_on_show_while_a_call_is_read_is_announced():
    """(From a trial of --follow.)  Reading a call stops the list following; a second run then
    streamed in unseen, under "Transcript · following", with nothing said of it."""
    feed = BytesFeed(b"", live=True, eof=False)
    app = AgentViewerApp(feed)
    async with app.run_test(size=(120, 40)) as pilot:
        push(feed, sample("reference_example.ndjson").splitlines(keepends=True))
        await settle(pilot)
        app.detail.focus()
        await pilot.press("k")  # reading the call: the list stops following
        push(feed, sample("codex_run.ndjson").splitlines(keepends=True)[:4])
        await pilot.pause(0.2)
        assert len(app.model.sessions) == 2 and app.view_index == 0  # (the call read stays)
        said = [str(n.message) for n in app._notifications]
        assert "A new run began (session 2 of 2): f goes to it and follows the newest." in said, said
        await pilot.press("f")
        await pilot.pause(0.2)
        assert app.view_index == 1
        push(feed, sample("gemini_run.ndjson").splitlines(keepends=True)[:2])  # followed: shown, not said
        await pilot.pause(0.2)
        assert app.view_index == 2 and not any("session 3" in str(n.message) for n in app._notifications)


async def test_reading_the_detail_pane_stops_following_and_enter_opens_it_full_screen():
    """While a run is live, the detail pane shows the newest call; scrolling it to read means
    the user is reading: the list stops following (f brings it back). Enter there opens the
    call full screen, raw JSON too if the pane shows raw JSON."""
    app = make_app(sample("demo_session.ndjson"), live=True, eof=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert app.timeline.follow
        shown = app.detail.tool
        app.detail.focus()
        await pilot.press("down")
        await pilot.pause()
        assert not app.timeline.follow and app.detail.tool is shown
        # ... and says so, with the key that follows again (its title alone changed, unnoticed)
        assert "f follows the newest again" in str(list(app._notifications)[-1].message)
        await pilot.press("down")
        await pilot.pause()
        assert len([n for n in app._notifications if "f follows" in str(n.message)]) == 1  # once
        await pilot.press("r")
        await pilot.press("enter")
        await pilot.pause()
        assert type(app.screen).__name__ == "DetailScreen"
        zoom = app.screen.query_one("#zoom-detail")
        assert zoom.raw and zoom.tool is shown
        await pilot.press("enter")  # not a second full-screen view on top
        await pilot.pause()
        assert len(app.screen_stack) == 2


async def test_the_palette_offers_search_open_and_help():
    app = make_app(sample("demo_session.ndjson"))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        commands = {c.title: c for c in app.get_system_commands(app.screen)}
        assert {"Search", "Open the selected tool call", "Help: keys"} <= set(commands)
        assert not any(t.startswith("Session ") for t in commands)  # (from a fourth trial: one run, nowhere to go)
        commands["Open the selected tool call"].callback()
        await pilot.pause()
        assert type(app.screen).__name__ == "DetailScreen"
    app = make_app(sample("two_sessions.ndjson"))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        commands = {c.title: c for c in app.get_system_commands(app.screen)}
        assert {"Session 1", "Session 2"} <= set(commands)


async def test_the_footers_keys_keep_their_order_whichever_pane_has_the_focus():
    """(From a trial, with the mouse.)  The tool list's "⏎ Open" came first, the transcript's
    and the detail's last: the same place in the footer was another key from one moment to
    the next."""
    app = make_app(sample("demo_session.ndjson"))
    async with app.run_test(size=(160, 40)) as pilot:
        await settle(pilot)
        orders = []
        for pane in (app.timeline, app.transcript, app.detail):
            pane.focus()
            await settle(pilot)
            footer = screen_rows(app).splitlines()[-1]
            words = [w for w in ("Open", "Quit", "Help", "Search", "Thinking", "Raw", "Follow", "Health") if w in footer]
            assert footer.count("Open") == 1, footer
            orders.append(sorted(words, key=footer.index))
        assert orders[0] == orders[1] == orders[2] == ["Open", "Quit", "Help", "Search", "Thinking", "Raw", "Follow",
                                                        "Health"], orders


async def test_the_footer_is_rebuilt_only_when_its_keys_change():
    """Textual asks the footer to rebuild itself at every change of focus (and four times at
    start-up); it does so only when the keys it shows change."""
    from textual.widgets._footer import FooterKey

    app = make_app(sample("demo_session.ndjson"))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)

        def keys() -> list[FooterKey]:
            return list(app.screen.query(FooterKey))

        app.set_focus(app.detail)
        await settle(pilot)
        before = keys()
        assert "/ Search" in [k.render().plain.strip() for k in before]
        app.refresh_bindings()  # (as a change of focus does) with the same keys
        await settle(pilot)
        assert keys() == before, "rebuilt with the same keys"
        assert [k.render().plain.strip() for k in before].count("⏎ Open") == 1  # Enter opens the call from here too
        app.set_focus(app.transcript)  # its own ] Next call
        await settle(pilot)
        assert "] Next call" in [k.render().plain.strip() for k in keys()]
        app.set_focus(app.timeline)  # its own ⏎ Open, once
        await settle(pilot)
        assert [k.render().plain.strip() for k in keys()].count("⏎ Open") == 1
        await pilot.press("slash")  # the search box: / is text there, not a key
        await settle(pilot)
        shown = [k.render().plain.strip() for k in keys()]
        assert keys() != before and "/ Search" not in shown, shown
        assert "⏎ Find" in shown and "esc Close" in shown  # what can be done in the box


async def test_esc_closes_textuals_keys_panel():
    """The palette's "Keys" opens Textual's keys panel; Esc closes it, as it closes
    everything else here (it stayed open until the palette was used again)."""
    app = make_app(sample("demo_session.ndjson"))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        app.action_show_help_panel()
        await pilot.pause()
        assert app.screen.query("HelpPanel")
        await pilot.press("escape")
        await pilot.pause()
        assert not app.screen.query("HelpPanel")
        assert app.is_running and len(app.screen_stack) == 1


async def test_a_run_cut_by_a_restart_says_why_it_ended():
    """--follow: the file was truncated or replaced. The transcript says so where the run ends,
    not only in a toast that goes away."""
    from viewer.core.decode import Restart

    lines = sample("demo_session.ndjson").splitlines(keepends=True)[:40]
    app = make_app(b"".join(lines), live=True, eof=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        app.model.apply(Restart(40))
        s = app.session
        end = s.blocks[-1]
        assert end.kind == "end" and s.ended
        shown = app.transcript._render(s, end).plain
        assert shown.startswith("◌ The file started over here (truncated or replaced)") and "without a result" in shown
        app.model.end()
        assert [b.kind for b in s.blocks].count("end") == 1


async def test_the_full_screen_detail_steps_to_the_next_and_previous_call():
    app = make_app(sample("demo_session.ndjson"))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        app.timeline.follow = False
        app.timeline.select_tool(3)
        await pilot.press("enter")
        await pilot.pause()
        zoom = app.screen.query_one("#zoom-detail")
        assert zoom.tool.index == 3
        await pilot.press("right_square_bracket")
        await pilot.pause()
        assert zoom.tool.index == 4
        await pilot.press("left_square_bracket", "left_square_bracket")
        await pilot.pause()
        assert zoom.tool.index == 2
        n = len(app.session.tools)
        assert zoom.border_subtitle.startswith(f"call 3 of {n}")  # where it is among the calls
        await pilot.press("r")  # raw JSON there: the pane shows it raw too when back
        await pilot.pause()
        await pilot.press("escape")  # back in the list: the call last shown is selected
        await pilot.pause()
        assert app.timeline.selected_index() == 2 and "#zoom-detail" not in [f"#{w.id}" for w in app.screen.walk_children()]
        assert app.detail.tool.index == 2
        assert app.detail.raw and app.detail.border_title == "Detail · raw JSON"
        app.action_toggle_raw()
        app.timeline.select_tool(n - 1)
        await pilot.press("enter", "right_square_bracket")  # past the last: says so
        await pilot.pause()
        assert any("This is the last call." in m.message for m in app._notifications)


async def test_closing_the_full_screen_detail_of_a_followed_live_run_keeps_following():
    """Enter, new calls arrive (the list follows them behind the full-screen view), Esc: with no
    ] or [ used there, the list stays on the newest call and keeps following."""
    lines, feed, app = live_demo()
    calls = [i for i, line in enumerate(lines) if b'"subtype":"started"' in line]
    async with app.run_test(size=(120, 40)) as pilot:
        push(feed, lines[: calls[1]])
        await settle(pilot)
        tl = app.timeline
        opened = tl.selected_index()
        await pilot.press("enter")
        await pilot.pause()
        assert type(app.screen).__name__ == "DetailScreen"
        await pilot.press("right_square_bracket")  # the newest call of a run still going
        await pilot.pause()
        assert any(n.message == "This is the last call so far." for n in app._notifications)
        push(feed, lines[calls[1]:])
        await settle(pilot)
        newest = len(app.session.tools) - 1
        assert newest > opened
        await pilot.press("escape")
        await pilot.pause()
        assert tl.follow and tl.selected_index() == newest


async def test_the_full_screen_detail_steps_through_the_calls_the_filter_shows():
    """With a filter on, ] and [ go to the next and previous call the list shows (they went
    through hidden ones), the border says where it is among them, and Esc selects it."""
    app = make_app(sample("demo_session.ndjson"))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        tl = app.timeline
        tl.follow = False
        tl.kind_filter = "readToolCall"  # calls 5, 6 and 10
        tl.refilter()
        rows = list(tl.rows)
        assert len(rows) >= 3 and rows != list(range(rows[0], rows[0] + len(rows)))  # others between
        tl.select_tool(rows[0])
        await pilot.press("enter")
        await pilot.pause()
        zoom = app.screen.query_one("#zoom-detail")
        await pilot.press("right_square_bracket", "right_square_bracket")
        await pilot.pause()
        assert zoom.tool.index == rows[2]
        assert f"(3 of {len(rows)} shown by the filter)" in zoom.border_subtitle
        app.notify("The file was truncated or replaced", timeout=10)  # someone else's notice
        await pilot.press("right_square_bracket", "right_square_bracket", "right_square_bracket")
        await pilot.pause()
        assert zoom.tool.index == rows[-1]
        # Past the end: one notice, which says it is the last the filter shows (not a stack),
        # and the other notices stay.
        assert [n.message for n in app._notifications] == [
            "The file was truncated or replaced", "This is the last call the filter shows."]
        for _ in range(len(rows) - 2):
            await pilot.press("left_square_bracket")
        await pilot.pause()
        assert zoom.tool.index == rows[1]
        await pilot.press("escape")
        await pilot.pause()
        assert tl.selected_index() == rows[1]
        tl.kind_filter = "lsToolCall"  # one call
        tl.refilter()
        tl.select_tool(tl.rows[0])
        await pilot.press("enter")
        await pilot.pause()
        assert "(the only one the filter shows)" in app.screen.query_one("#zoom-detail").border_subtitle


async def test_thinking_cut_off_by_a_failure_says_so():
    """failed_run.ndjson: the run failed while the model was still thinking; the thought stops
    mid-sentence, and the transcript says it was cut off rather than letting it look finished."""
    app = make_app(sample("failed_run.ndjson"))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        s = app.session
        cut = [b for b in s.blocks if b.cut]
        assert [b.kind for b in cut] == ["thinking"] and cut[0].text.endswith("or raise the")
        assert "cut off, t to show" in app.transcript._render(s, cut[0]).plain
        await pilot.press("t")
        await pilot.pause()
        shown = app.transcript.strips_of(app.transcript._render(s, cut[0]), 100)
        assert any("cut off: the stream ended here" in strip.text for strip in shown)
        assert not any(b.cut for b in model_of_sample("demo_session.ndjson").sessions[0].blocks)


def model_of_sample(name: str):
    from tests.conftest import model_of

    return model_of(sample(name))[0]


async def test_the_wheel_scrolls_as_far_up_as_down_and_up_stops_following():
    """The panes add to Textual's own wheel handling (which runs anyway): a notch up and a notch
    down come back to the same line, and scrolling up means reading, not following."""
    from textual.events import MouseScrollDown, MouseScrollUp

    app = make_app(sample("demo_session.ndjson"))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        for w in (app.transcript, app.timeline):
            w.scroll_to(y=10, animate=False, immediate=True, force=True)
            await pilot.pause()
            y0 = w.scroll_y
            w.post_message(MouseScrollUp(w, 1, 1, 0, -1, 0, False, False, False))
            await pilot.pause(0.1)
            up = y0 - w.scroll_y
            w.post_message(MouseScrollDown(w, 1, 1, 0, 1, 0, False, False, False))
            await pilot.pause(0.1)
            assert up > 0 and w.scroll_y == y0, type(w).__name__
            assert not w.follow


async def test_paths_odd_cases_doubled_slash_wide_characters_and_very_long():
    """A doubled slash after the run's directory is not shown as an absolute path; a path of
    wide characters is cut by columns and keeps its file name; so does one over 400 characters."""
    from viewer.core.detail import under_cwd
    from viewer.ui.render import keep_end

    class S:  # a session's init, as under_cwd reads it
        class init:
            cwd = "/work/proj/"

    assert under_cwd("/work/proj//b.py", S) == "b.py"
    assert under_cwd("/work/project/b.py", S) == "/work/project/b.py"
    # (From a new user's trial.)  The directory itself: "." as a Glob's "in ." (a List of it
    # showed it whole, cut at its start in the list).
    assert under_cwd("/work/proj", S) == under_cwd("/work/proj/", S) == "."
    # (From a review.)  A path with a space in it (the run's directory "My Project") is a path.
    assert under_cwd("/work/proj/My Docs/a.py", S) == "My Docs/a.py"
    wide = "深い/" * 10 + "ファイル名前.py"
    cut = keep_end(wide, 20)
    from rich.cells import cell_len

    assert cell_len(cut) <= 20 and cut.endswith("名前.py") and cut.startswith("…")
    app = make_app(sample("demo_session.ndjson"))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        t = app.session.tools[9]
        t.target = "/work/x/" + "node_modules/pkg/" * 30 + "index.js"
        app.timeline._cache.clear()
        app.timeline.refresh()
        await pilot.pause()
        (row,) = [line for line in _plain(app, app.timeline).splitlines() if " 10   Read" in line]
        assert "/pkg/index.js" in row and "…" in row, row


async def _replay_at_its_end_with_the_detail_open(app, pilot) -> None:
    """A replay moved to its end, its selected call open full screen."""
    await pilot.press("end")
    await pilot.pause()
    app.action_open_selected()
    await pilot.pause()


async def test_a_replay_seeking_back_closes_the_full_screen_detail_of_the_old_state():
    app = make_replay_app(sample("demo_session.ndjson"))
    async with app.run_test(size=(120, 40)) as pilot:
        await _replay_at_its_end_with_the_detail_open(app, pilot)
        assert type(app.screen).__name__ == "DetailScreen"
        view = app.screen.query_one("#zoom-detail")
        await pilot.press("pagedown", "home")  # (From a new-user trial.)  Home is the detail's: its top
        await pilot.pause()
        assert type(app.screen).__name__ == "DetailScreen" and view.scroll_y == 0
        assert app.replay.position == app.replay.total
        await pilot.press("left", "end")  # neither moves the replay from here (a step forward does)
        await pilot.pause()
        assert type(app.screen).__name__ == "DetailScreen" and app.replay.position == app.replay.total
        app.action_seek_start()  # a seek back (a click on the bar, Space at the end)
        await pilot.pause()
        assert type(app.screen).__name__ != "DetailScreen"


async def test_the_replays_speed_keys_work_over_the_full_screen_detail_and_a_step_back_says_why_not():
    """(From a trial of the replay.)  Over the full-screen detail, + and - did nothing, and ←
    did nothing without a word, where Space and → played on."""
    app = make_replay_app(sample("demo_session.ndjson"))
    async with app.run_test(size=(120, 40)) as pilot:
        await _replay_at_its_end_with_the_detail_open(app, pilot)
        speed = app.replay.speed
        await pilot.press("plus")
        await pilot.pause()
        assert app.replay.speed > speed
        await pilot.press("minus")
        await pilot.pause()
        assert app.replay.speed == speed
        await pilot.press("left")
        await pilot.pause()
        assert type(app.screen).__name__ == "DetailScreen" and app.replay.position == app.replay.total
        assert any("A step back plays in the panes: Esc first." in n.message for n in app._notifications)


async def test_plus_and_minus_are_text_in_the_replays_search_box():
    app = make_replay_app(sample("demo_session.ndjson"))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        speed = app.replay.speed
        await pilot.press("slash", *"a+b-c")
        await pilot.pause()
        assert app.query_one("#search").value == "a+b-c" and app.replay.speed == speed


async def test_end_in_a_replay_follows_again_after_a_search_stopped_the_transcript():
    """(From a trial of the replay.)  A search's step stopped the transcript following; played
    to its end, End (the replay's end) left it at the hit, away from the run's last words."""
    app = make_replay_app(sample("demo_session.ndjson"))
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("end")
        await settle(pilot)
        await pilot.press("slash", *"INV-142", "enter")
        await settle(pilot)
        tr = app.transcript
        assert not tr.follow and tr.scroll_y < tr.max_scroll_y
        await pilot.press("end")
        await settle(pilot)
        assert tr.follow and app.timeline.follow and tr.scroll_y == tr.max_scroll_y


async def test_next_error_in_a_replay_goes_to_the_run_it_is_in_and_next_tool_keeps_following():
    """(From a code review.)  } into a later run selected nothing in the run on show; ] onto
    the newest call turned following off, so playing on left the list behind."""
    def ev(sid: str, **f) -> bytes:
        return orjson.dumps({"session_id": sid, **f}) + b"\n"

    def call(sid: str, sub: str, cid: str, result=None) -> bytes:
        body = {"args": {"command": cid}, **({"result": result} if result else {})}
        return ev(sid, type="tool_call", subtype=sub, call_id=cid, tool_call={"shellToolCall": body})

    ok, bad = {"success": {"exitCode": 0}}, {"failure": {"exitCode": 2}}
    data = (ev("A", type="system", subtype="init", model="m", cwd="/w") + call("A", "started", "a1")
            + call("A", "completed", "a1", ok) + call("A", "started", "a2") + call("A", "completed", "a2", ok)
            + ev("B", type="system", subtype="init", model="m", cwd="/w") + call("B", "started", "b1")
            + call("B", "completed", "b1", bad) + call("B", "started", "b2") + call("B", "completed", "b2", ok))
    app = make_replay_app(data)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("right_square_bracket")
        await settle(pilot)
        assert app.timeline.follow and app.timeline.selected_index() == 0
        await pilot.press("right_square_bracket")
        await settle(pilot)
        assert app.timeline.follow and app.timeline.selected_index() == 1  # the newest: still following
        await pilot.press("right_curly_bracket")
        await settle(pilot)
        assert app.view_index == 1 and app.session is app.model.sessions[1]
        assert app.timeline.selected_index() == 0 and app.session.tools[0].status == "failed"


async def test_a_replays_clock_shows_from_its_first_event():
    """(From a new-user trial.)  The replay's header had no clock at events 1 and 2 (the init and
    the prompt carry no time) and showed 00:00 from event 3.  A stream with no times at all
    still shows none."""
    import re

    def clock_at(app) -> str:
        m = re.search(r"PAUSED  (\d\d:\d\d)", _plain(app, app.header))
        return m.group(1) if m else ""

    app = make_replay_app(sample("demo_session.ndjson"))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        for _ in range(3):
            await pilot.press("full_stop")
            await settle(pilot)
            assert clock_at(app) == "00:00", _plain(app, app.header)
    def strip_times(v):
        if isinstance(v, dict):
            return {k: strip_times(x) for k, x in v.items() if k not in ("timestamp_ms", "startedAtMs", "completedAtMs")}
        return v

    untimed = b"".join(orjson.dumps(strip_times(orjson.loads(ln))) + b"\n"
                       for ln in sample("demo_session.ndjson").splitlines())
    app = make_replay_app(untimed)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("full_stop", "full_stop", "full_stop")
        await settle(pilot)
        assert clock_at(app) == "", _plain(app, app.header)


async def test_a_replay_plays_from_a_click_on_its_mark_and_from_the_palette():
    """(From a new-user trial.)  Clicking the bar's ❚❚ did nothing, and the palette had no
    replay entries."""
    app = make_replay_app(sample("demo_session.ndjson"))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert not app.replay.playing
        await pilot.click(app.bar, offset=(1, 0))
        await pilot.pause()
        assert app.replay.playing
        await pilot.click(app.bar, offset=(1, 0))
        await pilot.pause()
        assert not app.replay.playing
        titles = {c.title: c for c in app.get_system_commands(app.screen)}
        # (From a new-user trial.)  Every key of the replay's, as help says: stepping and going
        # back were missing.
        assert {"Replay: play / pause", "Replay: faster speed", "Replay: slower speed", "Replay: start", "Replay: end",
                "Replay: step forward", "Replay: step back", "Replay: next tool call",
                "Replay: previous tool call", "Replay: next error", "Replay: previous error"} <= set(titles)
        titles["Replay: end"].callback()
        await settle(pilot)
        assert app.replay.at_end
        end = app.replay.position
        titles["Replay: step back"].callback()
        await settle(pilot)
        assert app.replay.position == end - 1
        titles["Replay: previous tool call"].callback()
        await settle(pilot)
        assert app.session.tools[-1].status == "running"  # (at the last call's start)


async def test_previous_call_and_previous_error_in_a_replay():
    """(From a new-user trial.)  [ and { did nothing in a replay: back was one event at a time.
    And } pressed again at the last error stacked one toast per press."""
    app = make_replay_app(sample("demo_session.ndjson"))
    async with app.run_test(size=(120, 40), notifications=True) as pilot:
        await settle(pilot)
        await pilot.press("end", "left_square_bracket")
        await settle(pilot)
        s = app.session
        last = s.tools[-1]
        assert last.status == "running" and app.timeline.selected_index() == last.index  # its start
        await pilot.press("left_square_bracket")
        await settle(pilot)
        assert len(app.session.tools) == last.index and app.session.tools[-1].status == "running"
        await pilot.press("end", "left_curly_bracket")
        await settle(pilot)
        failed = [t for t in app.session.tools if t.status == "failed"]
        assert failed and app.timeline.selected_index() == failed[-1].index
        await pilot.press("home", "left_curly_bracket", "left_curly_bracket", "left_curly_bracket")
        await pilot.pause(0.1)
        said = [n.message for n in app._notifications]
        assert said == ["No error before this point"], said
        app.clear_notifications()  # (a search step clears them): pressed again, it is said again
        await pilot.press("left_curly_bracket")
        await pilot.pause(0.1)
        assert [n.message for n in app._notifications] == ["No error before this point"]


async def test_next_error_in_a_replay_selects_the_call_that_failed_not_the_newest():
    """(From a new-user trial.)  With calls running side by side, } stopped at a failure but
    the list (following) selected the newest call, still running."""
    def ev(**f) -> bytes:
        return orjson.dumps({"session_id": "s", **f}) + b"\n"

    def call(sub: str, cid: str, cmd: str, result=None) -> bytes:
        body = {"args": {"command": cmd}, **({"result": result} if result else {})}
        return ev(type="tool_call", subtype=sub, call_id=cid, tool_call={"shellToolCall": body})

    data = (ev(type="system", subtype="init", model="m", cwd="/w") + call("started", "a", "make")
            + call("started", "b", "sleep 9")
            + call("completed", "a", "make", {"failure": {"exitCode": 2, "stderr": "no rule"}})
            + call("completed", "b", "sleep 9", {"success": {"exitCode": 0}}))
    app = make_replay_app(data)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("right_curly_bracket")
        await settle(pilot)
        assert app.replay.position == 4  # just after the failure: b still runs
        assert [t.status for t in app.session.tools] == ["failed", "running"]
        assert app.timeline.selected_index() == 0 and app.detail.tool.index == 0


async def test_the_detail_pane_shows_the_completion_of_the_call_on_show_at_once():
    """(From a new-user trial.)  While newer calls wait their turn for the pane, the call it
    shows completes: the pane says so at the next frame, not 'running' until its turn."""
    lines, feed, app = live_demo()
    first = up_to_first_call(lines)
    call_id = orjson.loads(first[-1])["call_id"]
    done = next(i for i, ln in enumerate(lines) if b'"subtype":"completed"' in ln
                and orjson.loads(ln).get("call_id") == call_id)
    async with app.run_test(size=(120, 40)) as pilot:
        feed.store.append(b"".join(lines[: done + 1]))  # (payloads are read back from the store)
        push(feed, first)
        await pilot.pause(0.3)
        assert app.detail.tool is not None and app.detail.tool.status == "running"
        app._detail_at = 1e12  # a newer call would wait its turn for long
        push(feed, lines[len(first) : done + 1])
        await pilot.pause(0.3)
        assert app.detail.tool.index == 0 and app.detail.tool.status != "running"
        shown = _plain(app, app.detail)
        assert "No completion event" not in shown and app.detail.tool.status in shown, shown


async def test_the_replay_bar_counts_the_events_h_counts():
    """From a trial: with 4 malformed lines among 30 events, the bar read "event 34/34" at the
    end and h said 30 events; a step onto a malformed line moved the count and nothing else."""
    lines = sample("demo_session.ndjson").splitlines(keepends=True)
    data = b"".join([lines[0], b"Error: not json\n", b"{half\n", *lines[1:-1], b"oops\n", lines[-1]])
    app = make_replay_app(data)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("end")
        await settle(pilot)
        events = app.model.events
        assert events == len(lines) and app.model.malformed_lines == 3
        assert f"event {events}/{events}" in app.bar.render().plain
        await pilot.press("h")
        await settle(pilot)
        assert f"{events} events" in screen_rows(app)
        await pilot.press("escape")
        await pilot.press("home")
        await pilot.press("right")  # the init
        await settle(pilot)
        assert f"event   1/{events}" in app.bar.render().plain
        await pilot.press("right")  # the prompt, past the two malformed lines before it
        await settle(pilot)
        assert f"event   2/{events}" in app.bar.render().plain
        assert app.model.malformed_lines == 2 and app.session.blocks[-1].kind == "prompt"


async def test_a_jump_to_a_malformed_line_goes_where_a_step_goes():
    """(From a trial.)  } stopped on a line that is not an event, "event 17" with 2 malformed
    lines, and ← → came back to "event 17" with 1: one label, two places.  A line that is not
    an event comes with the event before it, for a jump as for a step; one before the first
    event is shown on its own (the transcript was empty: } seemed to do nothing)."""
    lines = sample("demo_session.ndjson").splitlines(keepends=True)
    data = b"".join([b"Error: warming up\n", *lines[:17], b"junk after 17\n", *lines[17:]])
    app = make_replay_app(data)
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(pilot)

        async def keys(*names):
            for k in names:
                await pilot.press(k)
            await settle(pilot)
            return app.replay.position, app.model.malformed_lines, app.bar.render().plain

        pos, bad, bar = await keys("right_curly_bracket")
        assert (pos, bad) == (1, 1) and "event   0/337" in bar
        assert "line 1 is not an event (h): Error: warming up" in _plain(app, app.transcript)
        jumped = await keys("right_curly_bracket")
        assert jumped[1] == 2 and "event  17/337" in jumped[2], jumped
        assert await keys("left", "right") == jumped
        assert await keys("home", *["right"] * 17) == jumped
        assert (await keys("left_curly_bracket"))[:2] == (1, 1)


async def test_a_replay_starts_before_its_file_is_read_and_says_how_far_reading_is():
    """--replay of a big file plays at once: the bar says how much of the file is read, End
    goes to the end of what is read, and once the whole file is, the run ends there."""
    lines = sample("demo_session.ndjson").splitlines(keepends=True)
    started = [i for i, x in enumerate(lines) if b'"started"' in x and b'"tool_call"' in x]
    data = b"".join(lines[: started[3] + 1])  # a recording cut while a call runs
    app = make_replay_app(data, read=False)
    index, replay = app.replay.index, app.replay
    async with app.run_test(size=(120, 40)) as pilot:
        index.read(until=lambda: len(index.records) >= 20)
        await settle(pilot)
        bar = app.bar.render().plain
        share = int(100 * (index.records[19].offset + index.records[19].length) / len(data))
        assert "event  0/20" in bar and f"reading {share}%" in bar and share < 50, bar
        await pilot.press("end")
        await settle(pilot)
        assert replay.position == 20 and not app.model.ended
        index.read(until=lambda: len(index.records) >= started[3] + 1)  # all, but not the end
        await pilot.press("end")
        await settle(pilot)
        assert app.model.current.tools[-1].status == "running"
        index.read()  # the end of the file: the replay waiting there ends the run
        await pilot.pause(0.3)
        await settle(pilot)
        total = replay.total
        bar = app.bar.render().plain
        assert f"event {total:,}/{total:,}" in bar and "reading" not in bar, bar
        assert app.model.ended and app.model.current.tools[-1].status == "unfinished"
        assert _plain(app, app.timeline).splitlines()[3].startswith("◌  4")  # redrawn as unfinished
        assert "ENDED WITHOUT RESULT" in app.header.render_line(0).text


async def test_a_replay_moving_back_and_forth_shows_what_a_fresh_view_of_that_point_shows():
    """After a seek the transcript keeps the measurements of the blocks the two states share
    (a reset took half a second on 1M events); what it shows is what a view drawn from scratch
    at that point shows."""
    app = make_replay_app(sample("demo_session.ndjson"), checkpoint_every=3)  # (as a big file has them)
    replay = app.replay
    shared = []
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        real = app.transcript.keep_first
        app.transcript.keep_first = lambda n: shared.append(n) or real(n)  # type: ignore[method-assign]
        n = replay.total
        done = [i + 1 for i in range(n) if getattr(replay.records[i], "subtype", "") == "completed"
                and replay.records[i].type == "tool_call"]
        steps = [p for d in done[-2:] + done[:1] for p in (d, d - 1)]  # a call completes, then not
        for target in [n, n - 1, n - 2, n - 3, n // 2, n // 2 - 1, n // 2 + 40, 120, 119, 3, n, n - 60, *steps]:
            app._seek(target)
            await settle(pilot)
            shown = _plain(app, app.transcript)
            app.transcript.set_session(app.session)  # from scratch
            await settle(pilot)
            assert _plain(app, app.transcript) == shown, f"at {target}"
        assert max(shared) > 20, "the seeks kept the measurements of blocks the states share"


def test_stdin_redirected_from_a_saved_file_is_opened_as_that_file(tmp_path):
    """`agent-viewer < run.ndjson`: read as the file it is (whole, by offset, as fast as by
    name), not as a pipe; a pipe, a file read part-way, or a copy being saved stay live."""
    from viewer.core.feed import FileFeed, PipeFeed
    from viewer.ui.launch import stdin_feed

    data = sample("demo_session.ndjson")
    path = tmp_path / "run.ndjson"
    path.write_bytes(data)
    fd = os.open(path, os.O_RDONLY)
    mine = os.dup(fd)
    feed = stdin_feed(mine)
    assert isinstance(feed, FileFeed) and feed.label == "stdin" and feed.total_bytes == len(data)
    # Read through that descriptor, not by a name: another user's file may not open again.
    assert feed.store.fileno() == mine
    feed.start()
    by_stdin = feed.wait()
    by_name = FileFeed(str(path))
    by_name.start()
    expected = by_name.wait()
    assert [(type(r), r.line) for r in by_stdin] == [(type(r), r.line) for r in expected]
    assert feed.store.read(expected[-1].offset, expected[-1].length) == by_name.store.read(
        expected[-1].offset, expected[-1].length)

    os.lseek(fd, 10, os.SEEK_SET)  # a shell script read some of it first: what is left, live
    assert isinstance(stdin_feed(fd), PipeFeed)
    os.lseek(fd, 0, os.SEEK_SET)
    assert isinstance(stdin_feed(fd, tee=lambda chunk: None), PipeFeed)  # --save copies chunks
    r, w = os.pipe()
    assert isinstance(stdin_feed(r), PipeFeed)
    for x in (fd, r, w):
        os.close(x)


async def test_a_far_start_at_is_reached_on_screen_once_the_file_is_read_that_far():
    from viewer.core.replay import StartAt

    app = make_replay_app(sample("demo_session.ndjson"), read=False, playing=True)
    index, replay = app.replay.index, app.replay
    index.read(until=lambda: len(index.records) >= 10)
    assert replay.begin_at(StartAt("200")) is None  # not read that far: the app goes there
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert any("Going to --start-at 200" in n.message for n in app._notifications)
        assert replay.position == 0 and not replay.playing
        # The header says where it is going while it waits (not "at the start of the run").
        assert "going to event 200 once the file is read that far" in _plain(app, app.header)
        assert app.header.going_to == "200"
        index.read()
        await pilot.pause(0.2)
        await settle(pilot)
        assert replay.start is None and replay.position >= 200 and replay.playing
        assert "event" in app.bar.render().plain
        assert "going to" not in _plain(app, app.header)


async def test_a_start_at_past_the_end_found_on_screen_says_so():
    from viewer.core.replay import StartAt

    app = make_replay_app(sample("demo_session.ndjson"), read=False)
    index, replay = app.replay.index, app.replay
    replay.begin_at(StartAt("99999"))
    async with app.run_test(size=(120, 40)) as pilot:
        index.read()
        await pilot.pause(0.2)
        await settle(pilot)
        said = [str(n.message) for n in app._notifications]
        assert "--start-at 99999: the run has 337 events: at the start, paused." in said, said
        assert replay.position == 0 and replay.start is None
        # (From a trial: once the notice went, nothing said the start was not the one asked for.)
        head = _plain(app, app.header)
        assert "--start-at 99999: the run has 337 events: at the start of the run (Space plays" in head, head
        await pilot.press("right")  # a move: the header is the run's again
        await settle(pilot)
        assert "99999" not in _plain(app, app.header)
        await pilot.press("home")
        await settle(pilot)
        assert "99999" not in _plain(app, app.header)


async def test_a_paused_replay_does_not_redraw_its_bar_every_frame():
    """Idle and paused, it used 7 % of a core redrawing the bar each frame."""
    app = make_replay_app(sample("demo_session.ndjson"))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        drawn = []
        real = app.bar.render
        app.bar.render = lambda: drawn.append(1) or real()  # type: ignore[method-assign]
        ticks = app._ticks
        await pilot.pause(0.5)
        assert app._ticks - ticks >= 5 and not drawn
        await pilot.press("right")
        await settle(pilot)
        assert drawn  # a step redraws it


async def test_a_replayed_file_that_changed_since_it_was_read_says_so():
    app = make_replay_app(sample("demo_session.ndjson"))
    store = app.replay.index.store
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        store.data[:] = b"x" * len(store.data)  # overwritten in place
        await pilot.press("end")
        await settle(pilot)
        assert any("changed since it was read" in n.message for n in app._notifications)
        assert "changed since it was read" in app.header.render_line(0).text


async def test_the_full_screen_detail_in_a_replay_shows_the_calls_completion_when_it_is_played():
    """A replay's model shares calls with its copies and copies one before changing it: the
    full-screen detail showed the call it opened with, running for ever."""
    from viewer.ui.screens import DetailScreen

    app = make_replay_app(sample("demo_session.ndjson"), checkpoint_every=2)
    replay = app.replay
    recs = replay.records
    start = next(i for i in range(len(recs)) if getattr(recs[i], "subtype", "") == "started")
    cid = recs[start].data["call_id"]
    end = next(i for i in range(start + 1, len(recs)) if getattr(recs[i], "subtype", "") == "completed"
               and recs[i].data.get("call_id") == cid)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        app._seek(replay.total)
        await settle(pilot)
        app._seek(end)  # back: the call started, not completed (the model is a copy)
        await settle(pilot)
        k = app.session.tool_by_id[cid]
        assert app.session.tools[k].status == "running"
        app.timeline.follow = False
        app.timeline.select_tool(k)
        await settle(pilot)
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, DetailScreen)
        await pilot.press("right")  # its completion is played
        await pilot.pause(0.6)
        assert app.session.tools[k].status == "success"
        view = app.screen.query_one("#zoom-detail")
        shown = "\n".join(view.render_line(y).text for y in range(view.size.height))
        assert "running" not in shown and "success" in shown.lower(), shown


async def test_keys_typed_right_after_slash_go_into_the_search_box():
    """/quit typed in one burst quit the app: the box got the focus after the keys that
    followed the / had been taken as shortcuts."""
    from textual import events

    app = make_app(sample("demo_session.ndjson"))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        for key, char in [("slash", "/"), ("q", "q"), ("u", "u"), ("i", "i"), ("t", "t")]:
            app.post_message(events.Key(key, char))  # one burst, nothing awaited in between
        await settle(pilot)
        assert app.is_running
        assert app._panes["search"].value == "quit"


async def test_a_slash_in_the_search_box_is_text_and_elsewhere_opens_no_search():
    app = make_app(sample("demo_session.ndjson"))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("/", "s", "r", "c", "/", "a")
        await settle(pilot)
        assert app._panes["search"].value == "src/a"
        await pilot.press("escape", "question_mark")
        await settle(pilot)
        await pilot.press("/")  # in the help screen: nothing opens behind it
        await settle(pilot)
        assert not app._panes["search"].display


async def test_in_a_replay_the_arrow_keys_edit_the_search_box_not_the_replay():
    app = make_replay_app(sample("demo_session.ndjson"))
    replay = app.replay
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        app._seek(100)
        await settle(pilot)
        await pilot.press("/", "a", "b", "left", "left", "x", "home", "end", "space", "y")
        await settle(pilot)
        assert replay.position == 100
        assert app._panes["search"].value == "xab y"
        await pilot.press("escape", "left")  # out of the box: a step back again
        await settle(pilot)
        assert replay.position == 99


@pytest.mark.parametrize("keys,where", [
    ((("right_square_bracket", "]"), ("left", None)), 28), ((("right_square_bracket", "]"), ("full_stop", ".")), 30),
    ((("right_curly_bracket", "}"), ("left", None)), "}-1"), ((("left", None), ("right_square_bracket", "]")), 29),
])
async def test_keys_typed_ahead_of_a_jump_are_played_in_order(keys, where):
    """(From a replay trial.)  ] then ← typed at once (a held key, a fast hand, a slow
    terminal) landed where ] alone goes: ← was done first (its binding has priority, and ]'s
    went round the widgets), then ] went on from there."""
    app = make_replay_app(sample("demo_session.ndjson"))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        if where == "}-1":
            await pilot.press("right_curly_bracket")
            await settle(pilot)
            where = app.replay.position - 1
            await pilot.press("home")
            await settle(pilot)
        for key, character in keys:  # (one after the other, as a terminal's burst of input comes)
            app.post_message(events.Key(key, character))
        await settle(pilot)
        assert app.replay.position == where


@pytest.mark.parametrize("read_first", [0, 100])
@pytest.mark.parametrize("then", ["", "home"])
async def test_end_while_the_file_is_read_goes_on_to_its_end_once_it_is(read_first, then):
    """(From a replay trial.)  End pressed before the first event was read left the replay at
    its start, paused ("at the start of the run"), while the file was read.  End goes to the
    end of what is read, and on to the file's end once it is read, unless a move came since."""
    app = make_replay_app(sample("demo_session.ndjson"), read=False)
    index, replay = app.replay.index, app.replay
    if read_first:
        index.read(until=lambda: len(index.records) >= read_first)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("end")
        await settle(pilot)
        assert replay.position == read_first
        assert "going to the end once the file is read" in _plain(app, app.header)
        if then:
            await pilot.press(then)
            await settle(pilot)
            assert "going to the end" not in _plain(app, app.header)
        index.read()
        await pilot.pause(0.1)
        await settle(pilot)
        assert replay.total > read_first and replay.position == (0 if then else replay.total)
        header = _plain(app, app.header)
        assert "going to the end" not in header and ("SUCCEEDED" in header) != bool(then), header


async def test_reading_goes_on_once_the_view_is_drawn_where_end_went():
    """While a seek is drawn, reading the rest of the file waits (it took half the CPU: End
    while a 100k-event file was read took 100-130 ms to draw, 50 ms without): it goes on once
    the view is drawn, and the whole file is read."""
    app = make_replay_app(sample("demo_session.ndjson"), read=False)
    index, replay = app.replay.index, app.replay
    index.read(until=lambda: len(index.records) >= 100)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        app.action_seek_end()
        assert index.hold == 1  # (until the next frame)
        index.start()  # reading goes on, in its thread: a record, then it waits for the view
        time.sleep(0.1)  # (no frame meanwhile: this holds the app's loop)
        assert len(index.records) <= 101
        await settle(pilot)
        assert index.hold == 0
        index._thread.join(10)
        assert index.complete
        await pilot.pause(0.1)
        await settle(pilot)  # (and End, pressed while it was read, goes on to the end)
        assert replay.position == replay.total > 100 and "SUCCEEDED" in _plain(app, app.header)


async def test_a_seek_s_hold_on_reading_ends_even_if_its_frame_never_comes(monkeypatch):
    """The hold a seek puts on reading is released after the next frame; if that callback
    were lost, at a pump HOLD_MOST_S later (from a review: else reading stopped for good)."""
    import viewer.ui.replay as UR

    monkeypatch.setattr(UR, "HOLD_MOST_S", 0.05)
    app = make_replay_app(sample("demo_session.ndjson"), read=False)
    index = app.replay.index
    index.read(until=lambda: len(index.records) >= 100)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        monkeypatch.setattr(app, "call_after_refresh", lambda *a, **k: True)  # (lost)
        app.action_seek_end()
        assert index.hold == 1
        for _ in range(200):
            if index.hold == 0:
                break
            await pilot.pause(0.01)
        assert index.hold == 0


async def test_a_move_while_a_start_at_waits_for_the_file_wins_over_it():
    from viewer.core.replay import StartAt

    app = make_replay_app(sample("demo_session.ndjson"), read=False)
    index, replay = app.replay.index, app.replay
    index.read(until=lambda: len(index.records) >= 100)
    replay.begin_at(StartAt("250"))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert "going to event 250" in _plain(app, app.header)
        await pilot.press("full_stop")  # a step: to 1
        await settle(pilot)
        assert "going to" not in _plain(app, app.header)
        index.read()
        await pilot.pause(0.2)
        await settle(pilot)
        assert replay.position == 1 and replay.start is None
        assert any("given up" in n.message for n in app._notifications)


@pytest.mark.parametrize("replay,size", [(False, (60, 20)), (True, (100, 30)), (True, (80, 24))])
async def test_the_footer_leaves_out_whole_keys_that_do_not_fit(replay, size):
    """(From a new-user trial.)  The footer was cut off at the edge, mid-word ("f Fol"): keys
    that do not fit are left out whole, the first ones kept, and they come back when the window
    is wide again."""
    from textual.widgets._footer import FooterKey

    app = (make_replay_app if replay else make_app)(sample("demo_session.ndjson"))
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        if replay:
            await pilot.press("end")  # (at its start the run has no call yet: no Enter, no r)
            await settle(pilot)
        footer = app.screen.query_one("KeysFooter")
        keys = [k for k in footer.query(FooterKey) if not k.has_class("-command-palette")]
        shown = [k.display for k in keys]
        assert shown[0] and not all(shown) and shown == sorted(shown, reverse=True), shown
        for k in keys:
            if k.display:
                assert k.region.right <= footer.region.right
        last_row = screen_rows(app).splitlines()[-1].split("▏")[0].rstrip()  # (then the palette key)
        visible = [k.description for k in keys if k.display and k.description]
        assert last_row.endswith(visible[-1]), (last_row, visible)
        await pilot.resize_terminal(200, size[1])
        for _ in range(20):  # (the footer is rebuilt in its wide form, then laid out, then fitted)
            await pilot.pause(0.05)
            keys = [k for k in footer.query(FooterKey) if not k.has_class("-command-palette")]
            if all(k.display for k in keys):
                break
        assert all(k.display for k in keys)


@pytest.mark.parametrize("width", [80, 100, 160])
async def test_the_replay_bar_stays_long_enough_to_click_in_a_narrow_window(width):
    """(From a new-user trial.)  At 80 columns, a big file's counters left the bar 10 cells
    (each a tenth of the run, and a click beside it hit the counters): the words, then the
    times give way first; the count and the reading share stay."""
    from viewer.core.replay import Progress

    app = make_replay_app(sample("demo_session.ndjson"))
    async with app.run_test(size=(width, 24)) as pilot:
        await settle(pilot)
        app.replay.progress = lambda: Progress(140_561, 596_068, 13_633.0, 57_657.0, 64.0, True, 0.55)
        bar = app.bar.render().plain
        start, end = app.bar._bar
        assert end - start >= 24 and len(bar) <= width - 2, (bar, end - start)
        assert "140,561/596,068" in bar and "reading 55%" in bar
        if width >= 160:
            assert "event 140,561/596,068   3:47:13 / 16:00:57  reading 55%" in bar


async def test_a_click_selects_the_call_on_the_row_clicked_and_a_double_click_opens_it():
    """(From a new-user trial.)  A click selected the call one row below the one clicked: the
    pane's border row was counted as a row of calls.  (From a trial with the mouse.)  A double
    click opened a call from the tool list; on its line in the transcript it only selected it."""
    app = make_app(sample("demo_session.ndjson"))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        for pane, shown in ((app.timeline, " 2 ├ List "), (app.transcript, "✓ Listed directory")):
            pane.scroll_home(animate=False)
            await settle(pilot)
            row = next(i for i, line in enumerate(_plain(app, pane).splitlines()) if shown in line)
            top = pane.content_region.y - pane.region.y  # the border
            await pilot.click(pane, offset=(8, top + row))  # once: selected, not opened
            await settle(pilot)
            assert app.timeline.selected_index() == 1 and len(app.screen_stack) == 1, (pane, row)  # List
            await pilot.click(pane, offset=(8, 0))  # on the border: nothing
            await settle(pilot)
            assert app.timeline.selected_index() == 1
            await pilot.double_click(pane, offset=(8, top + row))
            await settle(pilot)
            assert type(app.screen).__name__ == "DetailScreen", pane
            assert app.screen.query_one("#zoom-detail").tool.index == 1
            await pilot.press("escape")
            await settle(pilot)
            assert len(app.screen_stack) == 1


async def test_a_finished_call_with_no_time_lends_its_column_and_no_doubled_ellipsis():
    """(From a new-user trial.)  A call with no duration left 9 empty cells while its summary
    was cut; a command of several lines ("cat <<'EOF' > x.txt …") cut just after its own "…"
    showed "……"."""
    def ev(**f) -> bytes:
        return orjson.dumps({"session_id": "s", **f}) + b"\n"

    command = "cat <<'EOF' > notes/summary-of-the-day.txt\nhello\nEOF"
    data = ev(type="system", subtype="init", model="m", cwd="/w")
    data += ev(type="tool_call", subtype="started", call_id="a",
               tool_call={"shellToolCall": {"args": {"command": command}}})
    data += ev(type="tool_call", subtype="completed", call_id="a",
               tool_call={"shellToolCall": {"args": {"command": command}, "result": {"success": {"exitCode": 0}}}})
    app = make_app(data)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert app.session.tools[0].duration_ms is None
        tl = app.timeline
        for width in range(32, 82):
            row = "".join(seg.text for seg in tl._render_row(app.session.tools[0], width, False))
            assert "……" not in row, (width, row)
            # "✓  1   Shell  " then the summary: it fits from 67 columns on, with no column kept
            # for a time (that left it cut at 67 to 75).  (From a daily-user trial.)  Narrower,
            # the command gives way to its exit code.
            fits = len("✓  1   Shell  cat <<'EOF' > notes/summary-of-the-day.txt … · exit 0")
            assert fits == 67 and ("summary-of-the-day.txt … · exit 0" in row) == (width >= fits), (width, row)
            assert row.rstrip().endswith("… · exit 0") and "cat <<'E" in row, (width, row)


async def test_the_header_says_only_the_counts_that_are_not_zero_and_warnings_before_tokens():
    """(From a new-user trial.)  At 80 columns "0 tools: 0 running · 0 ok · 0 failed   ⚠ 0
    malformed …" cut off the unknown count it was warning about, and a run's session switcher
    came after its token counts."""
    data = b"".join(orjson.dumps({"type": "span.start", "n": i}) + b"\n" for i in range(5))
    app = make_app(data)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        line2 = _plain(app, app.header).splitlines()[1]
        assert "tool calls not read" in line2 and "5 unknown (h)" in line2 and "malformed" not in line2, line2
        assert "0 running" not in line2, line2
    app = make_app(sample("two_sessions.ndjson"))
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        line2 = _plain(app, app.header).splitlines()[1]
        assert "session 2/2 resumed (< >)" in line2, line2


async def test_the_health_screen_says_the_file_started_over_and_how_lines_are_counted():
    """(From a new-user trial.)  After a followed file was truncated, "line 177" named no line
    of the file; the health screen said nothing of the restarts."""
    from viewer.core.decode import Restart

    app = make_app(sample("demo_session.ndjson"))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("h")
        await pilot.pause()
        assert "started over" not in screen_rows(app)
        await pilot.press("escape")
        app.model.apply(Restart(line=230))
        await pilot.press("h")
        await pilot.pause()
        rows = screen_rows(app)
        assert "The file started over (truncated or replaced) once, after line 230." in rows, rows
        assert "line n + 230 here" in rows


async def test_an_unknown_kinds_long_name_is_cut_with_an_ellipsis():
    data = b"".join(orjson.dumps({"session_id": "s", **f}) + b"\n" for f in (
        {"type": "system", "subtype": "init", "model": "m", "cwd": "/w"},
        {"type": "tool_call", "subtype": "started", "call_id": "a",
         "tool_call": {"quantumLeapGeneratorToolCall": {"args": {"path": "/w/a.txt"}}}},
    ))
    app = make_app(data)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert app.session.tools[0].short == "Quantum leap generator"
        row = _plain(app, app.timeline).splitlines()[0]
        assert " 1   Quantum leap ge… a.txt" in row, row  # 16 columns at most, and it says it is cut


async def test_a_narrow_tool_list_cuts_a_long_kind_before_the_file_names():
    """(From a new-user trial.)  At 40 columns, an unknown kind's long name widened the kind
    column for every row, and left a Read's file name 4 cells: "…e.js".  (Not the agents' own
    names, from a review: "TodoW…", "↳5 Gr…"; see the Claude Code sample below.)"""
    data = b"".join(orjson.dumps({"session_id": "s", **f}) + b"\n" for f in (
        {"type": "system", "subtype": "init", "model": "m", "cwd": "/w"},
        {"type": "tool_call", "subtype": "started", "call_id": "a",
         "tool_call": {"quantumLeapGeneratorToolCall": {"args": {}}}},
        {"type": "tool_call", "subtype": "started", "call_id": "b",
         "tool_call": {"readToolCall": {"args": {"path": "/w/src/components/invoice_table.js"}}}},
    ))
    app = make_app(data)
    async with app.run_test(size=(40, 15)) as pilot:
        await settle(pilot)
        rows = _plain(app, app.timeline).splitlines()
        assert "invoice_table.js" in rows[1], rows
        assert "Quantum l…" in rows[0], rows  # (cut, and says so)
        await pilot.resize_terminal(120, 30)  # wide again: the name whole
        await settle(pilot)
        assert "Quantum leap ge…" in _plain(app, app.timeline).splitlines()[0]
    app = make_app(sample("claude_code_run.ndjson"))
    async with app.run_test(size=(40, 30)) as pilot:
        await settle(pilot)
        rows = _plain(app, app.timeline)
        assert " TodoWrite " in rows and " ↳5 Grep " in rows, rows
    # Narrower still, the times give their column to the file names, in every row (at 36
    # columns totals.py and test_totals.py both read "…otals.py", from a trial).
    app = make_app(sample("demo_session.ndjson"))
    async with app.run_test(size=(36, 30)) as pilot:
        await settle(pilot)
        app.timeline.focus()
        await pilot.press("home")
        await settle(pilot)
        rows = _plain(app, app.timeline).splitlines()
        reads = [r for r in rows if " Read " in r]
        assert any("/totals.py" in r for r in reads) and any("/test_totals.py" in r for r in reads), reads
        assert not any(r.rstrip().endswith((" ms", " s")) for r in rows), rows


async def test_a_kind_filter_names_the_full_label_when_two_kinds_share_a_short_name():
    """(From a code review.)  Reading and updating todos both show as "Todos" in the list: their
    filters say "Read todos" and "Updated todos", not "only: Todos" twice."""
    data = b"".join(orjson.dumps({"session_id": "s", **f}) + b"\n" for f in (
        {"type": "system", "subtype": "init", "model": "m", "cwd": "/w"},
        {"type": "tool_call", "subtype": "started", "call_id": "a",
         "tool_call": {"updateTodosToolCall": {"args": {"todos": []}}}},
        {"type": "tool_call", "subtype": "started", "call_id": "b",
         "tool_call": {"readTodosToolCall": {"args": {}}}},
    ))
    app = make_app(data)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert [t.short for t in app.session.tools] == ["Todos", "Todos"]
        seen = set()
        for _ in range(2):
            await pilot.press("c")
            seen.add(app.timeline.border_subtitle)
        assert seen == {"only: Updated todos", "only: Read todos"}, seen


async def test_a_long_line_in_a_file_shown_in_the_detail_is_one_numbered_line():
    """(From a new-user trial.)  A 3,000-character line was cut at 2 KB: a short row part-way,
    then the rest numbered again as the same line."""
    content = "".join(f"line {i}\n" for i in range(1, 10)) + "x" * 3000 + "\nlast line\n"
    data = b"".join(orjson.dumps({"session_id": "s", **f}) + b"\n" for f in (
        {"type": "system", "subtype": "init", "model": "m", "cwd": "/w"},
        {"type": "tool_call", "subtype": "started", "call_id": "a",
         "tool_call": {"readToolCall": {"args": {"path": "/w/a.txt"}}}},
        {"type": "tool_call", "subtype": "completed", "call_id": "a",
         "tool_call": {"readToolCall": {"args": {"path": "/w/a.txt"},
                                        "result": {"success": {"content": content}}}}},
    ))
    app = make_app(data)
    async with app.run_test(size=(120, 80)) as pilot:
        await settle(pilot)
        await pilot.press("enter")
        await settle(pilot)
        view = app.screen.query_one("#zoom-detail")
        rows = [view.render_line(y).text for y in range(view.size.height)]
        numbered = [r.split()[0] for r in rows if r.split() and r.split()[0].isdigit()]
        # 10 once; 11 the last ("last line\n": (from a live-watching trial) no empty line 12 after its newline)
        assert numbered == [str(n) for n in range(1, 12)], numbered
        xs = [r for r in rows if "xxxx" in r]
        assert all(len(r.rstrip()) >= len(xs[0].rstrip()) for r in xs[:-1]), xs  # no short row midway


async def test_a_new_theme_redraws_the_panes_in_its_colours():
    """(From a new-user trial.)  Ctrl+P → Theme → textual-light: the space between the panes
    turned light, the panes' lines (kept drawn in caches) stayed dark."""
    app = make_app(sample("demo_session.ndjson"))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)

        def backgrounds(pane) -> set:
            return {seg.style.bgcolor for y in range(3) for seg in pane.render_line(y)
                    if seg.style is not None and seg.style.bgcolor is not None}

        before = {pane: backgrounds(pane) for pane in (app.timeline, app.transcript, app.detail)}
        app.theme = "textual-light"
        await settle(pilot)
        for pane, old in before.items():
            now = backgrounds(pane)
            assert now != old and pane.rich_style.bgcolor in now, (pane, old, now)
        await pilot.press("enter")  # the full-screen detail, open when the theme changes
        await settle(pilot)
        zoom = app.screen.query_one("#zoom-detail")
        old = backgrounds(zoom)
        app.theme = "textual-dark"
        await settle(pilot)
        now = backgrounds(zoom)
        assert now != old and zoom.rich_style.bgcolor in now, (old, now)


def _contrast(fg, bg) -> float:
    """WCAG contrast ratio of two Rich colours (1 to 21)."""

    def luminance(color) -> float:
        def channel(c: int) -> float:
            c /= 255
            return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4

        r, g, b = color.get_truecolor()
        return 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b)

    hi, lo = sorted((luminance(fg), luminance(bg)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


@pytest.mark.parametrize("theme", ["textual-light", "solarized-light", "textual-dark"])
@pytest.mark.parametrize("order", ["theme, then call", "call, then theme", "full screen, then theme"])
async def test_highlighted_code_is_readable_in_every_theme(theme, order):
    """(From a new-user trial.)  In a light theme (palette: Theme) the detail's code kept the
    dark theme's colours: plain code and names near white on a white pane.  (From a code
    review.)  Also code already on screen when the theme changes, in the pane or full screen."""
    app = make_app(sample("demo_session.ndjson"))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        if order == "theme, then call":
            app.theme = theme
        read = next(t for t in app.session.tools if t.kind_key == "readToolCall" and "totals.py" in t.target)
        app.timeline.select_tool(read.index)
        await settle(pilot)
        view = app.detail
        if order == "full screen, then theme":
            await pilot.press("enter")
            await settle(pilot)
            view = app.screen.query_one("#zoom-detail")
        if order != "theme, then call":
            app.theme = theme
            await settle(pilot)
        pane = view.rich_style.bgcolor
        segments = [seg for y in range(view.size.height) for seg in view.render_line(y)
                    if seg.text.strip() and seg.style is not None and seg.style.color is not None]
        assert any("import" in seg.text for seg in segments)  # the file's code is on screen
        def background(style):  # ("default": the pane's, when Textual draws the line)
            return pane if style.bgcolor is None or style.bgcolor.is_default else style.bgcolor

        poor = {(seg.text, seg.style.color.name) for seg in segments
                if _contrast(seg.style.color, background(seg.style)) < 3}
        assert not poor, poor


@pytest.mark.parametrize("theme", ["textual-light", "solarized-light"])
async def test_named_colours_and_the_selected_calls_line_are_readable_on_a_light_theme(theme):
    """(From a new user's trial.)  On textual-light, pytest's bright green output read 1.6:1,
    yellow warnings 2.1:1 and the selected call's whole line (in the accent) 1.5:1; the search's
    place under a pane 2.1:1."""
    from rich.color import Color as RichColor
    from textual.color import Color

    app = make_app(sample("demo_session.ndjson"))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        app.theme = theme
        await settle(pilot)
        pane = Color.parse(app.current_theme.background).rich_color
        for name in ("red", "green", "yellow", "blue", "magenta", "cyan", "bright_red", "bright_green",
                     "bright_yellow", "bright_blue", "bright_magenta", "bright_cyan", "bright_black"):
            rgb = RichColor.parse(name).get_truecolor(app.ansi_theme)
            assert _contrast(RichColor.from_rgb(*rgb), pane) >= 4.5, name
        # The selected call's line: its mark in a readable accent, its words in the text's colours.
        s = app.session
        block = s.tools[app.timeline.selected_index()].block
        app.transcript.scroll_to_block(block, top=True)
        await settle(pilot)
        strip = app.transcript.render_line(0)
        assert strip.text.lstrip().startswith("▶")
        mark = next(seg for seg in strip if "▶" in seg.text)
        words = [seg for seg in strip if seg.text.strip() and "▶" not in seg.text and seg.style and seg.style.color]
        assert _contrast(mark.style.color, pane) >= 3
        assert all(_contrast(seg.style.color, pane) >= 3 for seg in words), [(seg.text, seg.style) for seg in words]
        await pilot.press("slash", *"pytest", "enter")
        await settle(pilot)
        assert "block 1 of" in str(app.transcript.border_subtitle)
        svg = app.export_screenshot()  # (as drawn: "auto" colours are worked out against the pane)
        fills = dict(re.findall(r"\.(terminal-[\d-]*r\d+) \{ fill: (#[0-9a-f]{6})", svg))
        place = re.search(r'<text class="(terminal-[\d-]*r\d+)"[^>]*>[^<]*block&#160;1&#160;of', svg)
        assert place, "the search's place is not drawn"
        assert _contrast(RichColor.parse(fills[place.group(1)]), pane) >= 4.5


@pytest.mark.parametrize("theme", ["textual-light", "solarized-light", "textual-dark"])
async def test_an_edits_added_and_removed_lines_have_their_colours_in_every_theme(theme):
    """(From a new-user trial.)  In a light theme an edit's diff was all black on white: the
    light code style gives added and removed lines no colour."""
    app = make_app(sample("demo_session.ndjson"))
    async with app.run_test(size=(120, 60)) as pilot:
        await settle(pilot)
        app.theme = theme
        edit = next(t for t in app.session.tools if t.kind_key == "editToolCall" and "totals.py" in t.target)
        app.timeline.select_tool(edit.index)
        await settle(pilot)
        await pilot.press("enter")
        await settle(pilot)
        view = app.screen.query_one("#zoom-detail")
        pane = view.rich_style.bgcolor
        colours = {}
        for y in range(view.size.height):
            strip = view.render_line(y)
            text = strip.text.lstrip()
            if text[:1] in "+-" and text[:3] not in ("+++", "---") and text[1:].strip():
                colours.setdefault(text[0], set()).update(
                    seg.style.color for seg in strip if seg.text.strip() and seg.style and seg.style.color)
        assert set(colours) == {"+", "-"}, colours
        added, removed = colours["+"], colours["-"]
        assert added and removed and not added & removed, colours  # told apart
        assert all(_contrast(c, pane) >= 2 for c in added | removed), colours


@pytest.mark.parametrize("theme", ["textual-light", "solarized-light", "textual-dark"])
async def test_inline_code_is_readable_and_no_black_box_in_a_light_theme(theme):
    """(From a new-user trial.)  Inline code in the transcript kept Rich's bold cyan on black:
    black boxes on a light theme's page."""
    app = make_app(sample("demo_session.ndjson"))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        app.theme = theme
        await settle(pilot)
        tr = app.transcript
        code = [seg for y in range(tr.size.height) for seg in tr.render_line(y)
                if "invoice_total()" in seg.text and seg.style is not None and seg.style.bgcolor is not None]
        assert code, _plain(app, tr)
        style = code[0].style
        assert _contrast(style.color, style.bgcolor) >= 3  # (bold)
        if app.current_theme.dark:
            return
        page = tr.rich_style.bgcolor
        assert _contrast(style.bgcolor, page) < 1.5, (style.bgcolor, page)  # a light box on a light page


@pytest.mark.parametrize("theme", ["textual-light", "solarized-light", "textual-dark"])
async def test_the_panes_borders_show_in_every_theme(theme):
    """(From a new-user trial.)  In a light theme the borders of the panes not focused were
    drawn lighter than the panes: white on white, the panes ran into each other."""
    app = make_app(sample("demo_session.ndjson"))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        app.theme = theme
        await settle(pilot)
        assert app.focused is app.timeline  # (its border: the theme's accent)
        for pane in (app.transcript, app.detail):
            border = pane.styles.border_top[1].rich_color
            assert _contrast(border, pane.rich_style.bgcolor) >= 1.5, (pane, border)


async def test_a_replay_seeking_back_closes_a_full_screen_detail_under_the_help_too():
    """(From a code review.)  Detail, then help over it, then Space at the end (the replay
    starts over): the detail of the old state stayed under the help."""
    from viewer.ui.screens import DetailScreen

    app = make_replay_app(sample("demo_session.ndjson"))
    async with app.run_test(size=(120, 40)) as pilot:
        await _replay_at_its_end_with_the_detail_open(app, pilot)
        await pilot.press("question_mark")
        await pilot.pause()
        assert [type(s).__name__ for s in app.screen_stack][-2:] == ["DetailScreen", "HelpScreen"]
        await pilot.press("space")  # at the end: plays again from the start
        await settle(pilot)
        assert not any(isinstance(s, DetailScreen) for s in app.screen_stack)


async def test_a_search_says_what_the_other_sessions_hold():
    """(From a new-user trial.)  Search covers the session on show: a word only in the other
    run said just "No match"; a hit here did not say the other run has more."""
    app = make_app(sample("two_sessions.ndjson"))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert app.view_index == 1
        await pilot.press("slash", *"columns does", "enter")  # only in session 1's prompt
        await pilot.pause()
        said = [n.message for n in app._notifications]
        assert any(m.startswith("No match for 'columns does' in this session (session 1 has 1: < goes there)")
                   for m in said), said
        await pilot.press("slash", *"csv", "enter")  # in both
        await pilot.pause()
        place = str(app.transcript.border_subtitle)
        assert place.startswith("'csv': block 1 of ") and "(session 1 has " in place, place
        # (From a fourth trial.)  The key named is the one that goes there.
        app.clear_notifications()
        await pilot.press("escape")
        await pilot.press("less_than_sign")
        await pilot.press("slash", *"VAT number", "enter")
        await pilot.pause()
        place = str(app.transcript.border_subtitle)
        assert "(session 2 has 2: > goes there)" in place, place


def _runs_saying(words: list[str]) -> bytes:
    """One short run per word: its prompt and its answer say it."""
    out = []
    for i, word in enumerate(words):
        sid = f"run-{i}"
        out += [orjson.dumps(e) + b"\n" for e in (
            {"type": "system", "subtype": "init", "session_id": sid, "model": "m", "cwd": "/w"},
            {"type": "user", "session_id": sid, "message": {"role": "user", "content": [{"type": "text", "text": f"ask {word}"}]}},
            {"type": "assistant", "session_id": sid, "message": {"role": "assistant", "content": [{"type": "text", "text": f"said {word}"}]}},
            {"type": "result", "subtype": "success", "is_error": False, "result": f"said {word}", "session_id": sid})]
    return b"".join(out)


async def test_a_search_over_many_sessions_goes_to_the_next_that_has_a_match():
    """(From a new user's trial, 300 runs in one file.)  The search's place listed three other
    sessions and was cut off ("session 2 h…"); "< goes there" took the user to the run before,
    which had no match; and the search's place was gone there until n."""
    words = ["quantize" if i % 3 == 0 else "other" for i in range(12)]  # runs 1, 4, 7, 10 have it
    app = make_app(_runs_saying(words))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert app.view_index == 11
        await pilot.press("slash", *"quantize", "enter")
        await settle(pilot)
        said = [n.message for n in app._notifications]
        assert any(m.startswith("No match for 'quantize' in this session (4 other sessions have matches: "
                                "< goes there)") for m in said), said
        looked = []  # (From a review.)  Each < looked through every run again: 0.6 s on 400k lines.
        look_in = app._look_in
        app._look_in = lambda s, q: looked.append(s.index) or look_in(s, q)
        await pilot.press("less_than_sign")
        await settle(pilot)
        assert app.view_index == 9  # session 10, the nearest with a match, not session 11
        place = str(app.transcript.border_subtitle)
        assert place == "'quantize': block 1 of 2, n N (3 other sessions have matches: < goes there)", place
        await pilot.press("less_than_sign")
        await settle(pilot)
        assert app.view_index == 6
        assert looked == []  # (the runs unchanged since the search: what it found in each is kept)
        await pilot.press("greater_than_sign")
        await settle(pilot)
        assert app.view_index == 9
        await pilot.press("greater_than_sign")  # none that way: the next session, as without a search
        await settle(pilot)
        assert app.view_index == 10
        await pilot.press("escape", "less_than_sign")  # no search: one session at a time
        await settle(pilot)
        assert app.view_index == 9


async def test_a_search_hit_is_not_marked_in_another_run_shown_after_it():
    """(From a trial of --follow.)  A run appended to a followed file was shown with the hit of
    the run before marked on its block of the same number: its prompt, which held no match."""
    app = make_app(sample("two_sessions.ndjson"))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("slash", *"customer_vat", "enter")  # (session 2: its answer)
        await settle(pilot)
        hit = app.transcript.highlight_block
        assert hit >= 0 and "customer_vat" in app.transcript.shown_text(app.session.blocks[hit])
        await pilot.press("less_than_sign")  # session 1, with blocks of those numbers too
        await settle(pilot)
        assert len(app.session.blocks) > hit
        assert app.transcript.highlight_block == -1
        assert not _match_rows(app)


async def test_another_agents_events_can_be_read_in_full_in_the_transcript():
    """(From a new-user trial.)  A run of an agent whose format is not known has its text in
    events agent-viewer does not know; cut to a line each, none of it could be read, even at
    250 columns."""
    data = real_capture("gke-labs-issue-740__message-deltas.ndjson", "gemini")
    lines = data.splitlines(keepends=True)
    first = orjson.loads(lines[0])["content"]
    data = b"".join(line.replace(b'"type":"message"', b'"type":"chunk"') for line in lines)
    app = make_app(data)
    async with app.run_test(size=(100, 40)) as pilot:
        await settle(pilot)
        shown = await _transcript_from_top(app, pilot)
        assert "◆ unknown event chunk:" in shown
        assert " ".join(first.split()) in shown, shown[:600]


async def test_a_run_joined_mid_way_without_a_session_id_is_not_called_session_question_mark():
    """(From a trial.)  The Gemini capture starts mid-run: no init, no session id; the header
    said "session ?", a field with nothing in it.  It names the agent, and no session."""
    data = real_capture("gke-labs-issue-740__message-deltas.ndjson", "gemini")
    app = make_app(data)
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(pilot)
        head = app.header.render_line(0).text
        assert app.session.session_id in (None, "") and "Gemini" in head, head
        assert "session" not in head, head


async def test_a_notice_looks_like_a_retry_only_when_it_is_one():
    """(From a new-user trial.)  A hook starting showed ↻, as a retry does."""
    events = [
        {"type": "system", "subtype": "init", "session_id": "s", "model": "m", "cwd": "/w"},
        {"type": "retry", "subtype": "starting", "session_id": "s", "attempt": 1},
        {"type": "system", "subtype": "hook_started", "session_id": "s", "hook": "pre"},
    ]
    app = make_app(b"".join(orjson.dumps(e) + b"\n" for e in events))
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(pilot)
        rows = [r.strip("│ ") for r in _plain(app, app.transcript).splitlines()]
        assert any(r.startswith("↻ retry/starting: attempt 1") for r in rows), rows
        assert any(r.startswith("· system/hook_started: hook=pre") for r in rows), rows


async def test_the_header_says_when_a_live_run_has_gone_quiet():
    """(From a new-user trial.)  A followed run whose agent died said "● LIVE" with spinners
    for ever: nothing told it from one that thinks."""
    now = [1000.0]
    lines, feed, app = live_demo(clock=lambda: now[0])
    async with app.run_test(size=(120, 40)) as pilot:
        push(feed, up_to_first_call(lines))
        await settle(pilot)
        async def top(seconds: float) -> str:
            now[0] += seconds
            app.header.refresh()  # (as its timer does, a few times a second)
            await pilot.pause()
            return app.header.render_line(0).text

        assert "LIVE" in (t := await top(29)) and "no event" not in t, t
        # Its first call runs: the silence is that call's, and the header says so.
        kind = app.model.current.tools[0].short
        assert f"{kind} running, no event for 45 s" in (t := await top(16)), t
        assert "no event for 1m45s" in (t := await top(60)), t
        top_now = lambda: app.header.render_line(0).text  # noqa: E731
        push(feed, lines[len(up_to_first_call(lines)):][:1])  # it speaks again
        await settle(pilot)
        assert "no event" not in top_now(), top_now()


async def test_a_quiet_run_with_no_call_running_says_only_how_long():
    """A run that sends nothing while no call runs (an agent thinking, or dead) is not said to
    wait on a call; one with two calls running says how many."""
    now = [1000.0]
    sid = {"session_id": "s"}
    def call(cid: str, sub: str) -> dict:
        body = {"shellToolCall": {"args": {"command": "make"}, **({"result": {"success": {"exitCode": 0}}}
                                                                    if sub == "completed" else {})}}
        return {"type": "tool_call", "subtype": sub, "call_id": cid, "tool_call": body, **sid}
    head = [{"type": "system", "subtype": "init", "model": "m", "cwd": "/w", **sid},
            call("a", "started"), call("b", "started")]
    clock = lambda: now[0]  # noqa: E731
    feed = BytesFeed(b"", live=True, eof=False, clock=clock)
    app = AgentViewerApp(feed, clock=clock)
    async with app.run_test(size=(120, 30)) as pilot:
        push(feed, [orjson.dumps(e) + b"\n" for e in head])
        await settle(pilot)
        now[0] += 45
        app.header.refresh()
        await pilot.pause()
        assert "2 calls running, no event for 45 s" in (t := app.header.render_line(0).text), t
        push(feed, [orjson.dumps(call(c, "completed")) + b"\n" for c in "ab"])
        await settle(pilot)
        now[0] += 45
        app.header.refresh()
        await pilot.pause()
        t = app.header.render_line(0).text
        assert "no event for 45 s" in t and "running" not in t, t


async def test_the_palette_screenshot_says_where_it_went_and_its_keys_entry_is_ours(tmp_path, monkeypatch):
    """(From a new-user trial.)  "Screenshot" failed with no reason where ~/Downloads does not
    exist, and "Keys" opened Textual's panel of stock keys beside our own help."""
    monkeypatch.setenv("HOME", str(tmp_path))  # no ~/Downloads
    monkeypatch.chdir(tmp_path)
    app = make_app(sample("demo_session.ndjson"))
    async with app.run_test(size=(120, 40), notifications=True) as pilot:
        await settle(pilot)
        titles = [c.title for c in app.get_system_commands(app.screen)]
        assert "Keys" not in titles and "Help: keys" in titles and titles.count("Screenshot") == 1
        path = app.save_screen_picture()
        assert path is not None and os.path.dirname(path) == str(tmp_path) and os.path.getsize(path) > 1000
        await pilot.pause()
        assert any(path in n.message for n in app._notifications)
        # The current directory cannot take it (gone, or not writable): the temporary one does.
        monkeypatch.setattr(os, "getcwd", lambda: str(tmp_path / "gone"))
        monkeypatch.setattr(tempfile, "gettempdir", lambda: str(tmp_path / "tmp"))
        (tmp_path / "tmp").mkdir()
        other = app.save_screen_picture()
        monkeypatch.undo()
        assert other is not None and os.path.dirname(other) == str(tmp_path / "tmp")
        assert app.save_screen_picture(str(tmp_path / "missing" / "dir")) is None
        await pilot.pause()
        assert any("Could not save the screenshot" in n.message for n in app._notifications)


async def test_enter_with_no_tool_call_says_so():
    data = b"".join(orjson.dumps(e) + b"\n" for e in (
        {"type": "system", "subtype": "init", "session_id": "s", "model": "m", "cwd": "/w"},
        {"type": "user", "session_id": "s", "message": {"role": "user", "content": [{"type": "text", "text": "hi"}]}},
    ))
    app = make_app(data)
    async with app.run_test(size=(120, 40), notifications=True) as pilot:
        await settle(pilot)
        app.timeline.focus()  # (a run without calls starts in the transcript: Enter in the list too)
        await pilot.press("enter")
        await pilot.pause()
        assert any("No tool call to open" in n.message for n in app._notifications)
        app.clear_notifications()
        app.transcript.focus()
        await pilot.press("enter")
        await pilot.pause()
        assert any("No tool call to open" in n.message for n in app._notifications)


async def test_a_short_window_keeps_a_transcript_and_the_selected_call_in_view():
    """(From a new-user trial.)  At 40x12 the tool list took the whole body: the transcript had
    no row, and the list ran under the footer, its selected call out of view."""
    app = make_app(sample("demo_session.ndjson"))
    async with app.run_test(size=(40, 12)) as pilot:
        await settle(pilot)
        tr, tl = app.transcript, app.timeline
        assert tr.size.height >= 2 and tl.size.height >= 2, (tr.size, tl.size)
        assert tl.region.bottom <= app._footer.region.y  # above the footer, not under it
        assert tl.scroll_y <= tl.cursor < tl.scroll_y + tl.size.height  # the selected call shows


async def test_a_line_that_is_not_an_event_shows_where_it_came_in_the_transcript():
    """(From a new-user trial.)  With the agent's stderr mixed in, its closing "Error: ..." line
    was only counted in the header ("⚠ 2 malformed"): it is shown where it came."""
    lines = sample("reference_example.ndjson").splitlines(keepends=True)
    data = (b"Warning: update available\n" + b"".join(lines[:3]) + b"Note: retrying\n" + b"".join(lines[3:])
            + b"Error: something odd\n")
    app = make_app(data)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        kinds = [b.kind for b in app.session.blocks]
        # The line before the run's first event opens its transcript; the others where they came.
        assert kinds.count("malformed") == 3 and kinds[0] == kinds[-1] == "malformed", kinds
        shown = _transcript_words(app)
        assert f"⚠ line {len(lines) + 3} is not an event (h): Error: something odd" in shown, shown
        shown = await _transcript_from_top(app, pilot)
        assert shown.startswith("⚠ line 1 is not an event (h): Warning: update available"), shown


async def test_a_running_call_is_not_told_in_the_past_tense():
    """(From a new-user trial.)  "⠧ Called MCP tool linear-get_issue" while it was still being
    called: a running call is named by its kind, and by what it did once it is done."""
    lines, feed, app = live_demo()
    async with app.run_test(size=(120, 40)) as pilot:
        first = up_to_first_call(lines)
        push(feed, first)
        await settle(pilot)
        t = app.session.tools[0]
        assert t.status == "running" and t.label == "Called MCP tool"
        shown = lambda: " ".join(_plain(app, app.transcript).split())  # noqa: E731
        assert f"{t.short} linear-get_issue" in shown() and "Called MCP tool" not in shown(), shown()
        push(feed, lines[len(first):])
        await settle(pilot)
        assert t.done and "Called MCP tool linear-get_issue" in " ".join(
            " ".join(s.text for s in app.transcript._render_strips(t.block, 80)[:1]).split())


async def test_a_file_of_blank_lines_is_said_to_hold_only_those():
    """(From a new-user trial.)  Three blank lines were "the input was empty (not one line of
    text)"; q's exit line said it too."""
    app = make_app(b"\n \n\n")
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(pilot)
        assert "◌ NO EVENTS  the input held only 3 blank lines" in app.header.render_line(0).text
        assert app.quit_status()[1] == "the input holds no events: only 3 blank lines"
    with tempfile.TemporaryDirectory() as tmp:  # (from a review: --replay said "empty")
        path = os.path.join(tmp, "blank.ndjson")
        with open(path, "wb") as f:
            f.write(b"\n \n\r\n")
        app, _ = replay_of_file(path, playing=True)
        await _blank_replay_says_so(app)


async def _blank_replay_says_so(app) -> None:
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(pilot)
        assert "◌ NO EVENTS  the input held only 3 blank lines" in app.header.render_line(0).text
        await pilot.press("h")
        await settle(pilot)
        assert "3 blank lines" in screen_rows(app)


async def test_a_replays_h_counts_the_blank_lines_played_so_far():
    """(From a trial.)  At a replay's start, h said "0 events … 7 blank lines": the whole file's
    blank lines, where everything else counts what has been played.  (From another: it did not
    say that it counts only what is played, "Every line parsed" reading as of the whole file.)"""
    lines = sample("demo_session.ndjson").splitlines(keepends=True)
    data = b"".join([*lines[:5], b"\n", *lines[5:100], b"\n\n", *lines[100:], b"\n" * 4])
    app = make_replay_app(data)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)

        async def health() -> str:
            await pilot.press("h")
            await settle(pilot)
            rows = screen_rows(app)
            await pilot.press("escape")
            await settle(pilot)
            return rows

        assert "blank line" not in await health()
        for _ in range(10):  # past the first blank line
            await pilot.press("right")
        await settle(pilot)
        shown = await health()
        assert "1 blank line" in shown
        total = app.replay.progress().event_total
        assert f"The replay is at event 10 of the {total:,}: this is what was played so far" in shown
        assert "Every line parsed into a known event so far." in shown
        await pilot.press("end")
        await settle(pilot)
        shown = await health()
        assert "7 blank lines" in shown and "The replay is at" not in shown
        assert "Every line parsed into a known event." in shown


async def test_a_replay_of_an_empty_file_says_it_held_no_run_in_the_detail_too():
    """(From a new-user trial.)  The header said NO EVENTS, the detail "No tool calls in this run
    yet.": the file is read after the first screen, and the detail was not told it ended."""
    app = make_replay_app(b"", read=False, playing=True)
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(pilot)
        assert "No tool calls" in _plain(app, app.detail)  # drawn before the file is read
        app.replay.index.read()
        await settle(pilot)
        assert "NO EVENTS" in app.header.render_line(0).text
        # (from a trial: not "without an event"; two spaces after the badge, as after any badge)
        assert "◌ NO EVENTS  the input was empty" in app.header.render_line(0).text
        assert "the input held no run" in _plain(app, app.detail)


async def test_a_file_still_being_written_suggests_follow(tmp_path, monkeypatch):
    """(From a new-user trial.)  A run's file opened while the agent still wrote it said only
    "ENDED WITHOUT RESULT (the agent may have been stopped)"."""
    from viewer.core.feed import FileFeed

    lines = sample("demo_session.ndjson").splitlines(keepends=True)
    codex = real_capture("agentcmd__stream-output-1.ndjson", "codex").splitlines(True)
    cases = [("fresh", lines[:40], None, True), ("old", lines[:40], 3600, False), ("done", lines, None, False),
             ("codex", codex, None, False),  # another agent's runs never have a result
             ("stdin", lines[:40], None, False)]  # agent-viewer < run.ndjson: --follow needs a FILE
    monkeypatch.chdir(tmp_path)
    for name, part, age, told in cases:
        path = tmp_path / f"{name} run.ndjson"  # (a name the shell needs quoted)
        path.write_bytes(b"".join(part))
        if age:
            os.utime(path, (os.path.getmtime(path) - age,) * 2)
        if name == "stdin":
            app = AgentViewerApp(FileFeed("stdin", fd=os.open(path, os.O_RDONLY), workers=0))
        else:
            app = AgentViewerApp(FileFeed(path.name, workers=0))
        async with app.run_test(size=(120, 30), notifications=True) as pilot:  # (it fits, and the counts after it)
            await settle(pilot)
            notes = [n.message for n in app._notifications]
            command = f"agent-viewer --follow '{path.name}'"
            assert any(f"{command} keeps reading it" in n for n in notes) == told, (name, notes)
            # The header says it for as long as the run shows, and the transcript's end agrees.
            header = app.header.render_line(1).text
            assert (f"⚠ still being written? {command}" in header) == told, header
            if name == "codex":
                continue
            end = _transcript_words(app)
            assert ("The file ends here for now, without a result: it may still be written" in end) == told, end
            assert ("the agent may have been stopped" in end) == (not told and name != "done"), end
            # (From a new-user trial.)  It said "it changed 1 s ago" for as long as it was open.
            assert ("changed 0 s before it was read" in end or "changed 1 s before it was read" in end) == told, end


async def test_a_long_still_written_hint_leaves_room_for_the_malformed_lines_warning(tmp_path, monkeypatch):
    """(From a new-user trial.)  The "still being written?" command, first on the line, pushed
    "⚠ 1 malformed (h)" off its end at 120 columns."""
    from viewer.core.feed import FileFeed

    lines = sample("demo_session.ndjson").splitlines(keepends=True)
    monkeypatch.chdir(tmp_path)
    path = tmp_path / ("a run of the agent, saved with a long name " * 2 + ".ndjson")
    path.write_bytes(b"".join(lines[:40]) + b'{"type":"tool_call","subtype":"star\n')
    app = AgentViewerApp(FileFeed(path.name, workers=0))
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(pilot)
        header = app.header.render_line(1).text
        assert header.startswith("⚠ still being written? (--follow reads on)") and "⚠ 1 malformed (h)" in header, header
        assert f"agent-viewer --follow '{path.name}'" in _transcript_words(app)  # (the whole command there)


async def test_notices_show_a_files_name_escaped(tmp_path, monkeypatch):
    """(From an adversarial trial.)  A run's file named with escape sequences, still being
    written: its notice set the window's title, cleared the screen and wrote the clipboard."""
    from viewer.core.feed import FileFeed
    from viewer.core.sanitize import clean

    monkeypatch.chdir(tmp_path)
    name = "evil\x1b]0;PWN\x07\x1b[2J\x1b]52;c;cHduZWQ=\x07[@click=app.quit]q[b]\u202e.ndjson"
    (tmp_path / name).write_bytes(b"".join(sample("demo_session.ndjson").splitlines(keepends=True)[:40]))
    app = AgentViewerApp(FileFeed(name, workers=0))
    async with app.run_test(size=(120, 30), notifications=True) as pilot:
        await settle(pilot)
        notes = [n.message for n in app._notifications]
        assert any("keeps reading it" in n for n in notes), notes
        assert all(clean(n) == n for n in notes) and any("\\x1b]0;PWN" in n for n in notes), notes


async def test_search_finds_only_what_a_huge_message_draws():
    """(From a code review.)  Past 64 KB a message is plain text, and past 512 KB more it is only
    counted: a word there was "Block 1 of 1", and could not be shown."""
    text = "word " * 20_000 + "NEEDLEONE " + "word " * 100_000 + "NEEDLETWO " + "word " * 200_000
    events = [{"type": "system", "subtype": "init", "session_id": "s", "model": "m", "cwd": "/w"},
              {"type": "assistant", "session_id": "s", "message": {"content": [{"type": "text", "text": text}]}}]
    app = make_app(b"".join(orjson.dumps(e) + b"\n" for e in events))
    async with app.run_test(size=(120, 40), notifications=True) as pilot:
        await settle(pilot)
        app.run_search("needleone")
        await pilot.pause()
        assert app.transcript.highlight_block >= 0 and "NEEDLEONE" in _plain(app, app.transcript)
        app.clear_notifications()
        app.run_search("needletwo")
        await pilot.pause()
        assert any("No match for 'needletwo'" in n.message for n in app._notifications)
        # (From a code review.)  Its height is estimated from what is drawn, not from all of it
        # (the scrollbar jumped when it was measured: 45,000 rows estimated for 6,000).
        block = next(i for i, b in enumerate(app.session.blocks) if b.kind == "assistant")
        drawn_rows = len(app.transcript._strips(app.session, app.session.blocks[block], 100))
        assert abs(app.transcript.estimate_height(block, 100) - drawn_rows) < drawn_rows // 10
    # (From a code review.)  Hidden thinking: "t shows it" only for a word t would show.
    events[1] = {"type": "thinking", "subtype": "delta", "session_id": "s", "text": text}
    app = make_app(b"".join(orjson.dumps(e) + b"\n" for e in events))
    async with app.run_test(size=(120, 40), notifications=True) as pilot:
        await settle(pilot)
        for word, hinted in (("needleone", True), ("needletwo", False)):
            app.clear_notifications()
            app.run_search(word)
            await pilot.pause()
            said = " ".join(n.message for n in app._notifications)
            assert ("it is in the hidden thinking: t shows it" in said) == hinted, said


async def test_an_input_with_no_run_shows_its_lines_in_the_transcript():
    """(From a new-user trial.)  A file of text showed an empty transcript: its lines that are
    not events were only in the header (the last one) and the health screen."""
    app = make_app(b"".join(b"garbage line %d\n" % i for i in range(1, 1001)))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        words = _transcript_words(app)
        assert "1,000 lines are not events (h):" in words, words
        assert "line 1: garbage line 1 " in words and "line 1,000: garbage line 1000" in words, words
        assert "… 995 more" in words, words
        assert app.view_index < 0 and not app.model.sessions  # (not a run)
    # (From a code review.)  A replay of it too.
    app = make_replay_app(b"".join(b"garbage line %d\n" % i for i in range(1, 1001)))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("end")
        await settle(pilot)
        assert "1,000 lines are not events (h):" in _transcript_words(app)


async def test_a_failed_runs_result_text_shows_even_when_it_repeats_the_transcript():
    """A result that repeats the transcript is kept once (in the transcript); a failed one is
    shown under "Run failed" in red, so it must be kept whole (review of that change)."""
    sid = "s"
    events = [
        {"type": "system", "subtype": "init", "session_id": sid, "model": "m", "cwd": "/w"},
        {"type": "assistant", "session_id": sid, "message": {"role": "assistant", "content": [
            {"type": "text", "text": "Gave up halfway"}]}},
        {"type": "result", "subtype": "error_during_execution", "is_error": False, "result": "Gave up halfway",
         "session_id": sid, "duration_ms": 5},
    ]
    app = make_app(b"".join(orjson.dumps(e) + b"\n" for e in events))
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(pilot)
        assert app.session.state == "failed"
        shown = _plain(app, app.transcript)
        assert "Run failed (error_during_execution)" in shown
        assert shown.split("Run failed")[1].count("Gave up halfway") == 1, shown


async def test_a_smaller_window_keeps_the_selected_call_in_view():
    """(From a new-user trial.)  Call 7 selected at 120x40, then 60x20: the list showed calls 1-6
    (Enter still opened call 7)."""
    app = make_app(sample("demo_session.ndjson"))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("home", *["down"] * 6)
        await pilot.pause()
        tl = app.timeline
        assert tl.selected_index() == 6 and not tl.follow
        for size in ((60, 20), (40, 12)):
            await pilot.resize_terminal(*size)
            await settle(pilot)
            assert tl.scroll_y <= tl.cursor < tl.scroll_y + tl.size.height, (size, tl.scroll_y, tl.size)


async def test_the_demo_says_demo_in_a_replay_too(monkeypatch):
    """(From a new-user trial.)  `agent-viewer --demo --replay` never said DEMO."""
    from viewer.cli import demo_path
    from viewer.ui import launch
    from viewer.ui.replay import ReplayApp

    started: list[ReplayApp] = []
    monkeypatch.setattr(ReplayApp, "run", lambda self, *a, **k: started.append(self))
    monkeypatch.setenv("TEXTUAL_DRIVER", "headless")  # (launch wants a terminal on stderr)
    launch.launch_replay(demo_path(), demo=True)
    assert started and started[0].demo
    app = make_replay_app(sample("demo_session.ndjson"), playing=True)
    app.demo = True
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert app.header.render_line(0).text.startswith(" DEMO ")


async def test_many_lines_that_are_not_events_are_one_entry_and_a_stream_of_only_them_says_the_last():
    """(From a second new-user trial.)  150 debug lines before the init took 300 rows; a run
    that failed before its first event ("Error: Authentication required") showed an empty
    transcript and only a count."""
    noise = b"".join(b"[debug] step %d\n" % i for i in range(150))
    app = make_app(noise + sample("reference_example.ndjson"))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        app.set_focus(app.transcript)
        await pilot.press("home")
        await pilot.pause()
        rows = [r.strip("│ ") for r in _plain(app, app.transcript).splitlines()]
        assert rows[:6] == ["⚠ 150 lines are not events (h):", "line 1: [debug] step 0", "line 2: [debug] step 1",
                            "line 3: [debug] step 2", "… 145 more", "line 149: [debug] step 148"], rows[:8]
        assert "› You" in rows[7:10], rows[:10]
    app = make_app(b"Warning: trust this workspace? [y/N]\nError: Authentication required. Run cursor-agent login\n")
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(pilot)
        header = _plain(app, app.header)
        assert "NO EVENTS" in header and "line 2: Error: Authentication required" in header, header


async def test_the_health_screen_gives_a_bad_lines_excerpt_more_room_than_its_reason():
    """(From a second new-user trial.)  "npm WARN deprecated foo@1.0: use …" was cut at about 33
    characters beside its long reason, even with a wide screen."""
    line = b"npm WARN deprecated foo@1.0: use bar@2 instead, see the changelog for the details"
    app = make_app(sample("reference_example.ndjson") + line + b"\n")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("h")
        await pilot.pause()
        health = "\n".join(_plain(app, w) for w in app.screen.query("Static"))
        assert line.decode()[:60] in health, health  # (it showed 33 characters)
    # (From a third.)  A wide window has room for a whole reason beside a short excerpt.
    app = make_app(sample("reference_example.ndjson") + b'["cut", \n')
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        await pilot.press("h")
        await pilot.pause()
        health = "\n".join(_plain(app, w) for w in app.screen.query("Static"))
        assert "invalid JSON: unexpected end of data" in health, health


async def test_an_agents_coloured_stderr_reads_without_its_colour_codes():
    """(From a second new-user trial.)  An agent's coloured "Error:" line read
    "\\x1b[31mError:\\x1b[0m ..." in the transcript and the header.  Colour codes are left out;
    any other escape sequence is still shown escaped, never sent to the terminal."""
    red = b"\x1b[1;31mError:\x1b[0m bad token\x1b[2K\n"
    app = make_app(sample("reference_example.ndjson") + red)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        shown = _transcript_words(app)
        assert "is not an event (h): Error: bad token\\x1b[2K" in shown, shown
        assert "[1;31m" not in shown and "\x1b" not in shown
    app = make_app(red)
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(pilot)
        header = _plain(app, app.header)
        assert "line 1: Error: bad token\\x1b[2K" in header, header


async def test_a_claude_code_thinking_part_shows_as_a_thought_not_its_signature():
    """(From a second new-user trial.)  Claude Code's thinking parts are empty but signed: each
    showed 300 characters of base64 signature in the transcript.  Read as Claude Code's, the
    part is a thought without text, and its signature is not shown at all."""

    data = real_capture("maestro__02_tool_use_allowed.ndjson", "claude")
    signature = next(p["signature"] for line in data.splitlines() if b'"signature"' in line
                     for p in orjson.loads(line)["message"]["content"] if p.get("type") == "thinking")
    app = make_app(data)
    async with app.run_test(size=(160, 40)) as pilot:
        await settle(pilot)
        shown = await _transcript_from_top(app, pilot)
        assert "✻ Thought (no text)" in shown, shown[:2000]
        assert signature[:12] not in shown


async def test_the_full_screen_detail_says_whether_the_run_goes_on():
    """(From a second new-user trial.)  The full-screen detail hides the header: a live run's
    end could not be seen from it."""
    now = [1000.0]
    lines, feed, app = live_demo(clock=lambda: now[0])
    async with app.run_test(size=(100, 30)) as pilot:
        first = up_to_first_call(lines)
        push(feed, first)
        await settle(pilot)
        app.set_focus(app.timeline)
        await pilot.press("enter")
        await pilot.pause()
        top = lambda: screen_rows(app).splitlines()[0]  # noqa: E731 - the border, with its title
        # (and the running call is named by its kind, not in the past tense, here too)
        heading = screen_rows(app).splitlines()[1]
        assert f"⠋ {app.session.tools[0].short}" in heading and "Called" not in heading, heading
        now[0] += 75
        await pilot.pause(0.3)  # (the screen looks again four times a second)
        assert "Detail" in top() and "● LIVE  01:15" in top(), top()
        push(feed, lines[len(first):])
        await settle(pilot)
        await pilot.pause(0.3)
        assert "✓ SUCCEEDED" in top() and "LIVE" not in top(), top()


async def test_a_run_cut_short_by_the_next_says_so_not_that_the_stream_ended():
    """(From a third new-user trial.)  Two runs of one session piped in one after the other: the
    first said "The stream ended without a result (the agent may have been stopped)", though
    the stream went on with the next."""
    lines = sample("demo_session.ndjson").splitlines(keepends=True)
    app = make_app(b"".join(lines[:20] + lines))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert len(app.model.sessions) == 2 and app.view_index == 1
        await pilot.press("less_than_sign")
        await pilot.pause()
        shown = _transcript_words(app)
        assert ("◌ The next run began here (the same session, resumed): this run ended without a result."
                in shown), shown
        assert "stream ended" not in shown and "stopped" not in shown, shown


async def test_space_at_the_end_of_a_replay_plays_it_again_and_says_so():
    """(From a third new-user trial.)  At 64x a run played again in under a second after Space
    at its end, and ended again: it looked as if Space did nothing."""
    now = [1000.0]
    app = make_replay_app(sample("demo_session.ndjson"), playing=True, speed=64.0)
    app.clock = lambda: now[0]
    async with app.run_test(size=(120, 40), notifications=True) as pilot:
        await settle(pilot)
        for _ in range(500):
            if app.replay.at_end and not app.replay.playing:
                break
            now[0] += 1
            await pilot.pause(0.01)
        assert app.bar.render_line(0).text.startswith("■")
        await pilot.press("space")
        await pilot.pause()
        assert app.replay.playing and app.replay.position < 5
        assert any(n.message == "Playing again from the start, at 64×." for n in app._notifications)
        await pilot.press("space")  # a pause mid-run is only a pause
        await pilot.pause()
        assert not app.replay.playing
        assert sum("Playing again" in n.message for n in app._notifications) == 1


async def test_a_replay_plays_a_long_pause_shortened_with_the_runs_clock_going_on():
    """(From a third new-user trial.)  During a 57 s docker build, played as 3 s, the header's
    clock stayed at 00:03, then jumped to 01:00, and the running call showed no time: it looked
    like a hang.  The run's clock goes on (fast), the header says the pause is shortened, and
    the call shows how long it has run, in the run's own time."""
    now = [1000.0]
    app = make_replay_app(sample("failed_run.ndjson"), playing=True)
    app.clock = lambda: now[0]
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(pilot)
        clocks = []
        for _ in range(40):
            now[0] += 0.25
            await pilot.pause(0.02)
            if app.replay.shortened_pause():
                break
        header = lambda: app.header.render_line(0).text  # noqa: E731
        assert "⏩ a 57.3 s pause, played shortened" in header(), header()
        running = [t for t in app.session.tools if t.status == "running"]
        assert running, "a call runs through the pause"
        for _ in range(4):  # through the pause, a second of play time at a time
            now[0] += 0.6
            for _ in range(40):  # (the next frame: under load it came after 50 ms, and the clock was read twice)
                await pilot.pause(0.05)
                clock = header().split("REPLAY", 1)[1].split()[0]
                if not clocks or clock != clocks[-1]:
                    break
            clocks.append(clock)
            row = app.timeline.render_line(running[-1].index - app.timeline.scroll_offset.y).text
            assert row.rstrip().endswith("s…"), row  # how long it has run
        minutes = [int(c[:2]) * 60 + int(c[3:5]) for c in clocks]
        assert all(b - a >= 5 for a, b in zip(minutes, minutes[1:])), clocks  # 0.6 s of play: ~11 s of the run
        await pilot.press("space")  # paused, nothing is played shortened (review)
        await pilot.pause(0.1)
        assert "PAUSED" in header() and "pause, played shortened" not in header(), header()
        await pilot.press("space")
        await pilot.pause(0.1)
        for _ in range(20):
            if not app.replay.shortened_pause():
                break
            now[0] += 0.5
            await pilot.pause(0.02)
        assert "pause" not in header(), header()


async def test_a_live_source_with_no_event_yet_says_what_it_waits_on_and_for_how_long():
    """(From a third new-user trial.)  `(sleep 35; cat run) | agent-viewer` said only "… waiting
    for events" for 35 s: not what it read, nor for how long."""
    from viewer.core.feed import PipeFeed

    now = [1000.0]
    read, write = os.pipe()
    feed = PipeFeed(read, clock=lambda: now[0])  # (as agent-viewer reads standard input)
    app = AgentViewerApp(feed, clock=lambda: now[0])
    try:
        async with app.run_test(size=(120, 30)) as pilot:
            await pilot.pause()
            top = lambda: app.header.render_line(0).text  # noqa: E731
            assert "waiting for events" in top() and "on standard input" in top() and "·" not in top(), top()
            now[0] += 35
            await pilot.pause(0.3)  # (a few frames: the header is drawn again every third)
            assert "waiting for events on standard input · 35 s" in top(), top()
            os.write(write, b"".join(sample("demo_session.ndjson").splitlines(keepends=True)[:3]))
            for _ in range(50):
                await pilot.pause(0.05)
                if "LIVE" in top():
                    break
            assert "waiting" not in top() and "LIVE" in top(), top()
    finally:
        os.close(write)


async def test_an_unknown_events_lists_are_shown_and_its_json_breaks_between_values():
    """(From a second new-user trial.)  A file change listed no file: its item.changes=[...]
    was left out of the unknown event's fields.  JSON in them is written with spaces, so a
    wrapped line breaks between values, not inside one."""
    change = {"type": "span.end", "item": {"id": "item_1", "type": "file_change", "status": "completed",
                                           "changes": [{"path": "/private/tmp/codex-research-test/hello.txt",
                                                        "kind": "add"}]}}
    app = make_app(orjson.dumps(change) + b"\n")
    async with app.run_test(size=(200, 60)) as pilot:
        await settle(pilot)
        shown = await _transcript_from_top(app, pilot)
        assert ('item.changes=[{"path": "/private/tmp/codex-research-test/hello.txt", "kind": "add"}]'
                in shown), shown[:3000]


async def test_a_loading_file_is_not_said_to_have_succeeded_before_its_panes_show_it():
    """(From a third new-user trial.)  Opening 100k events, the header said "✓ SUCCEEDED" for
    half a second while the tool list showed half the calls: the model has the result as soon
    as it is read, the panes catch up at the next redraw.  Until the load is over it says
    LOADING."""
    app = make_app(sample("demo_session.ndjson"), eof=False)  # (read, but not over)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert app.model.current.result is not None
        top = app.header.render_line(0).text
        assert "LOADING" in top and "SUCCEEDED" not in top, top
    app = make_app(sample("demo_session.ndjson"))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert "SUCCEEDED" in app.header.render_line(0).text


async def test_the_keys_start_in_the_transcript_when_the_run_has_no_call_to_move_through():
    """(From a fourth new-user trial.)  In a run without calls the keys started in the empty
    tool list: g, j and PgUp did nothing, and the transcript was two Tabs away."""

    captured = real_capture("maestro__01_simple_no_tool.ndjson", "claude")
    for data, where in [(captured, "transcript"),
                        (sample("demo_session.ndjson"), "timeline"),  # a run with calls: the list
                        (sample("demo_session.ndjson").split(b'"type":"tool_call"')[0].rsplit(b"\n", 1)[0] + b"\n",
                         "transcript")]:  # a finished run without a call
        app = make_app(data)
        async with app.run_test(size=(120, 40)) as pilot:
            await settle(pilot)
            assert app.focused is getattr(app, where), (where, app.focused)
            if where == "transcript":
                before = app.transcript.scroll_y
                await pilot.press("g")  # the start of the run
                await pilot.pause()
                assert app.transcript.scroll_y < before or before == 0


async def test_a_search_hit_far_down_a_long_message_is_brought_into_view():
    """(From a fourth new-user trial.)  A word at the end of a 100 KB message: the view went
    to the message's start, thousands of lines above the marked word."""
    words = " ".join(f"word{i}" for i in range(6000))
    events = [
        {"type": "system", "subtype": "init", "session_id": "s", "model": "m", "cwd": "/w"},
        {"type": "assistant", "session_id": "s", "message": {"role": "assistant", "content": [
            {"type": "text", "text": f"BIGMSG start {words} BIGMSG end"}]}},
        {"type": "result", "subtype": "success", "is_error": False, "result": "", "session_id": "s"},
    ]
    app = make_app(b"".join(orjson.dumps(e) + b"\n" for e in events))
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(pilot)
        await pilot.press("slash", *"BIGMSG end", "enter")
        await pilot.pause()
        shown = _plain(app, app.transcript)
        assert "BIGMSG end" in shown, shown


async def test_a_search_with_no_match_says_so_once_and_short():
    """(From a new-user trial.)  A 3,200-character query's "No match" notice covered the whole
    screen until it went, and n pressed again after it stacked the same notice four times."""
    app = make_app(sample("demo_session.ndjson"))
    async with app.run_test(size=(120, 40), notifications=True) as pilot:
        await settle(pilot)
        app.run_search("abc " * 800)
        app.action_search_next(1)
        app.action_search_next(1)
        await pilot.pause()
        notices = [str(n.message) for n in app._notifications]
        assert len(notices) == 1, notices
        assert notices[0].startswith("No match for 'abc abc") and len(notices[0]) < 100, notices
        rows = screen_rows(app).splitlines()
        assert sum("abc abc" in row for row in rows) <= 3  # (a toast of a few lines, not the screen)


async def test_replay_keys_that_can_go_no_further_say_so():
    """(From a new-user trial.)  ← at the start, → at the end and - at the slowest speed did
    nothing, silently (] and } said so already)."""
    app = make_replay_app(sample("demo_session.ndjson"))
    async with app.run_test(size=(120, 40), notifications=True) as pilot:
        await settle(pilot)
        app.action_seek_start()
        await pilot.press("left")
        await pilot.press("end", "right")
        for _ in range(6):
            await pilot.press("minus")
        await pilot.pause()
        notices = [str(n.message) for n in app._notifications]
        assert notices == ["This is the start of the run.", "This is the end of the run.",
                           "0.25× is the slowest speed."], notices
        assert app.replay.position == app.replay.total and app.replay.speed == 0.25


async def test_a_replay_whose_events_came_at_once_says_it_plays_at_once():
    """(From a new-user trial.)  A real stream whose events' times span 3 ms was at its end as
    soon as it opened, and said nothing."""
    app = make_replay_app(real_capture("maestro__01_simple_no_tool.ndjson"))
    async with app.run_test(size=(120, 40), notifications=True) as pilot:
        await settle(pilot)
        notices = [str(n.message) for n in app._notifications]
        assert any(n.startswith("This run plays in 0.4 s: its events came almost at once.") for n in notices), notices
    app = make_replay_app(sample("demo_session.ndjson"))  # (a run that plays for 52 s does not)
    async with app.run_test(size=(120, 40), notifications=True) as pilot:
        await settle(pilot)
        assert not any("almost at once" in str(n.message) for n in app._notifications)


async def test_a_call_that_completes_is_redrawn_in_a_transcript_scrolled_to_its_end():
    """(From a new-user trial.)  In a transcript taller than its pane, a call that completed
    kept its frozen spinner until something else redrew the pane (t): the rows refreshed were
    those of the call less the scroll, above it.  Seen live, under --follow, and after a seek.
    What is on screen is what a redraw of the whole pane shows."""
    lines, feed, app = live_demo()
    calls = len(up_to_first_call(lines)) + 2  # (the demo starts three calls at once)
    assert all(b'"started"' in line for line in lines[calls - 3 : calls])
    async with app.run_test(size=(120, 14)) as pilot:
        push(feed, lines[:calls])
        await settle(pilot)
        assert app.transcript.max_scroll_y > 0 and app.transcript.scroll_y > 0  # (taller than its pane, at its end)
        push(feed, [lines[calls]])  # the last call started completes: nothing is added
        assert b'"completed"' in lines[calls]
        await settle(pilot)
        shown = screen_rows(app)
        app.transcript.refresh()
        await pilot.pause()
        assert shown == screen_rows(app)
        assert "│✓ Updated todos" in shown  # (the transcript's row: its kind in full once done)


async def test_after_a_followed_file_starts_over_the_detail_gives_the_files_own_line_numbers():
    """(From a new-user trial.)  After a --follow truncation the detail said "events line 218
    → line 219" of a file of 35 lines: lines count on across the restart (as in a --save copy),
    and only the health screen said so."""
    lines, feed, app = live_demo()
    first = up_to_first_call(lines)
    before = len(first) + 1  # (the file's lines before it started over: those, and a line left over)
    async with app.run_test(size=(120, 40)) as pilot:
        push(feed, first + [b"not json\n"])
        await settle(pilot)
        feed._queue.put(feed.ingest.close(restart=True))
        push(feed, first)  # the run again, in the file as it is now
        await settle(pilot)
        assert len(app.model.sessions) == 2 and app.view_index == 1
        app.timeline.select_tool(0)
        await settle(pilot)
        line = len(first)  # the call's start: the last line pushed
        facts = " ".join(_plain(app, app.detail).split())
        assert f"line {line} → (running) of the file now ({before} lines were read before it started over)" in facts, facts
        app.show_session(0)  # the run before: its lines are of the file as it was
        app.timeline.select_tool(0)
        await settle(pilot)
        facts = " ".join(_plain(app, app.detail).split())
        assert f"line {line} → (no completion), of the file before it started over" in facts, facts


async def test_next_error_in_a_replay_of_interleaved_runs_shows_the_run_that_failed():
    """(From a code review.)  Runs A and B interleaved, A's call fails after B started: } went
    to the failure but showed run B, with no call selected."""
    def started(cid, sid, cmd):
        return orjson.dumps({"type": "tool_call", "subtype": "started", "call_id": cid, "session_id": sid,
                             "tool_call": {"shellToolCall": {"args": {"command": cmd}}}}) + b"\n"

    def completed(cid, sid, cmd, code):
        return orjson.dumps({"type": "tool_call", "subtype": "completed", "call_id": cid, "session_id": sid,
                             "tool_call": {"shellToolCall": {"args": {"command": cmd},
                                                             "result": {"success": {"exitCode": code}}}}}) + b"\n"

    data = (b'{"type":"system","subtype":"init","session_id":"A"}\n' + started("a1", "A", "make test")
            + started("a2", "A", "sleep 1") + b'{"type":"system","subtype":"init","session_id":"B"}\n'
            + started("b1", "B", "ls") + completed("a1", "A", "make test", 2) + completed("a2", "A", "sleep 1", 0)
            + completed("b1", "B", "ls", 0))
    app = make_replay_app(data)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("right_curly_bracket")
        await settle(pilot)
        assert app.replay.position == 6
        assert app.session.session_id == "A"
        assert app.session.tools[app.timeline.selected_index()].target == "make test"


async def test_next_error_under_a_filter_that_hides_the_failed_call_turns_the_filter_off():
    """(From a new-user trial.)  With the tool list showing only successes, } went to the
    failed pytest run, but the list could not select it: the detail showed another call, with
    nothing said."""
    app = make_replay_app(sample("demo_session.ndjson"))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("end")
        await settle(pilot)
        app.timeline.status_filter = "success"
        app.timeline.refilter()
        await pilot.press("home", "right_curly_bracket")
        await settle(pilot)
        t = app.session.tools[app.timeline.selected_index()]
        assert t.status == "failed" and app.detail.tool is t
        assert not app.timeline.filtered
        assert any("filter is off" in str(n.message) for n in app._notifications)


async def test_a_paused_replay_does_not_turn_its_spinners():
    """(From a new-user trial.)  Paused at a running call, the spinners went on turning: it
    looked as if the replay still played."""
    from viewer.core.replay import FileIndex, Replay
    from viewer.core.sources import MemoryStore
    from viewer.ui.replay import ReplayApp

    data = sample("demo_session.ndjson")
    index = FileIndex(MemoryStore(data), len(data))
    index.read()
    now = [1000.0]
    app = ReplayApp(Replay(index=index, playing=False), BytesFeed(data, eof=False), clock=lambda: now[0])
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        app._seek(len(up_to_first_call(data.splitlines(keepends=True))))
        await pilot.pause(0.2)
        assert app.session.running
        shown = screen_rows(app)
        for _ in range(6):
            now[0] += 0.35
            await pilot.pause(0.1)
        assert screen_rows(app) == shown


async def test_n_in_a_replay_back_at_its_start_says_why_nothing_is_found():
    """(From a new-user trial.)  A search at the end of a replay, Home, then n: nothing
    happened and nothing was said (no run is shown at the start)."""
    app = make_replay_app(sample("demo_session.ndjson"))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("end")
        await settle(pilot)
        app.run_search("quantize")
        await pilot.press("home")
        await settle(pilot)
        app.clear_notifications()
        await pilot.press("n")
        await pilot.pause()
        assert [str(n.message) for n in app._notifications] == ["No match for 'quantize': no run is shown yet."]


async def test_following_a_run_under_way_shows_its_clock_from_its_first_event(tmp_path):
    """(From a new-user trial.)  --follow of a run under way showed "LIVE 00:02" (counted from
    when the viewer read the file) beside "no event for 31m51s".  A run the file held as it was
    opened counts from its own first event (this machine's clock); one written to after that,
    from when its first event came."""
    from viewer.core.feed import FollowFeed

    lines = sample("demo_session.ndjson").splitlines(keepends=True)
    first = up_to_first_call(lines)
    first_ms = next(orjson.loads(x)["timestamp_ms"] for x in first if b"timestamp_ms" in x)
    path = tmp_path / "run.ndjson"
    path.write_bytes(b"".join(first))
    feed = FollowFeed(str(path), clock=lambda: 1000.0)  # (the app's clock: arrivals are read by it)
    feed._follower._poll = 0.01
    app = AgentViewerApp(feed, clock=lambda: 1000.0)
    async with app.run_test(size=(120, 40)) as pilot:
        app.header.wall = app.timeline.wall = lambda: first_ms / 1000 + 754.4  # 12m34s after its first event
        await pilot.pause(0.3)
        assert app.session.state == "live" and feed.caught_up_at is not None
        app.header.refresh()
        await pilot.pause()
        assert "LIVE  12:34" in (t := app.header.render_line(0).text), t
        # (From a replay trial.)  Its silence is told by its own times too: a file copied (its
        # time of change now) read "no event for 30 s" of a run whose last event was minutes old.
        last_ms = max(orjson.loads(x).get("timestamp_ms") or 0 for x in first)
        assert f"no event for {fmt_wait(int(754.4 - (last_ms - first_ms) / 1000))}" in t, t
        # (From a trial.)  Its call running as the file was opened counted from then ("10 s…"
        # beside "LIVE 02:10"): it counts from its own start too.
        (t,) = app.session.tools
        started = fmt_wait(int(754.4 - (orjson.loads(first[-1])["timestamp_ms"] - first_ms) / 1000))
        assert t.status == "running" and len(started) > 4
        app.timeline.refresh()
        await pilot.pause()
        assert app.timeline.render_line(0).text.rstrip().endswith(f"{started}…"), app.timeline.render_line(0).text
        app.header.wall = app.timeline.wall = lambda: first_ms / 1000 - 3600  # the agent's clock is not this machine's
        app.header.refresh()
        app.timeline.refresh()
        await pilot.pause()
        assert "LIVE  00:00" in (t := app.header.render_line(0).text), t
        assert not app.timeline.render_line(0).text.rstrip().endswith("…")  # (from when it was read: now)


async def test_the_detail_shows_a_start_that_came_after_its_completion():
    """(From a review.)  The model took a late start in, but the detail kept "(no start)": the
    call's drawing was keyed by its completion only."""
    lines, feed, app = live_demo()
    head = lines[:2]
    started = up_to_first_call(lines)[-1]
    cid = orjson.loads(started)["call_id"]
    done = next(x for x in lines if b'"completed"' in x and orjson.loads(x).get("call_id") == cid)
    async with app.run_test(size=(120, 40)) as pilot:
        push(feed, head + [done])
        await settle(pilot)
        assert "(no start)" in _plain(app, app.detail)
        push(feed, [started])
        await settle(pilot)
        assert "(no start)" not in (shown := _plain(app, app.detail)) and "line 4 → line 3" in shown, shown


@pytest.mark.parametrize("theme", ["textual-light", "solarized-light", "textual-dark"])
async def test_the_selected_calls_status_glyph_keeps_the_panes_background(theme):
    """(From a new-user trial.)  On the selected row the status glyph was drawn on the cursor's
    colour: a running call's yellow spinner on amber, a green tick on amber, hard to read.  It
    keeps its colour on a cell of the pane's background; the rest of the row is the cursor's."""
    app = make_app(sample("demo_session.ndjson"))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        app.theme = theme
        await settle(pilot)
        tl = app.timeline
        assert app.focused is tl
        pane = tl.rich_style.bgcolor
        for row, selected in ((tl.cursor, True), (tl.cursor - 1, False)):
            segments = [s for s in tl.render_line(row - tl.scroll_offset.y) if s.text.strip()]
            glyph, after = segments[0], segments[1]
            assert glyph.text in "✓✗", segments
            assert glyph.style.color.name in ("green", "red")  # (its status colour)
            assert glyph.style.bgcolor == pane
            if selected:
                assert after.style.bgcolor != pane  # (the cursor row)
            else:
                assert after.style.bgcolor in (None, pane)


async def test_a_time_to_start_at_is_where_the_clocks_read():
    """(From a new-user trial.)  --start-at 0:30 showed "PAUSED 00:29" and "00:29 / 00:52":
    the clock stood at the last event before 0:30."""
    from viewer.core.replay import StartAt

    app = make_replay_app(sample("demo_session.ndjson"))
    assert app.replay.begin_at(StartAt("0:30")) == ""
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        r = app.replay
        assert r.times[r.position - 1] < 30 <= r.times[r.position]  # (no event at 0:30 itself)
        assert "00:30 / 00:52" in _plain(app, app.bar)
        # (The header's is the run's own clock: from its first event with a time, 0.33 s of
        # play time after the init, which has none.)
        assert "PAUSED  00:29" in _plain(app, app.header)
        assert 29.6 < (r.run_now_ms() - r.event_times[2]) / 1000 < 29.7


async def test_the_replay_bar_is_filled_and_clicked_by_its_clock():
    """(From a new-user trial.)  The bar was filled by events, its clock by time: at event
    216/337 (64 % of the bar) it read 00:26 / 00:52, and a click in the middle of the bar
    went to the middle event, not the middle of the run."""
    app = make_replay_app(sample("demo_session.ndjson"))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        start, end = app.bar._bar
        await pilot.click(app.bar, offset=((start + end - 1) // 2, 0))
        await settle(pilot)
        r = app.replay
        half = r.duration / 2
        assert abs(r.clock_time - half) <= r.duration / (end - start)  # (a cell's worth)
        assert r.times[r.position - 1] <= r.clock_time < r.times[r.position]
        bar = app.bar.render()
        filled = sum(len(s.text) for s in bar.render(app.console) if "━" in s.text and s.style and s.style.bold)
        assert abs(filled - (end - start) / 2) <= 1, filled
        await pilot.press("full_stop")  # a step from there: the clock is that event's again
        assert r.clock_time == r.times[r.position - 1]


def _two_runs(b_calls: int) -> bytes:
    def ev(sid, **f):
        return orjson.dumps({"session_id": sid, **f}) + b"\n"

    out = [ev("A", type="system", subtype="init", model="m", cwd="/w"),
           ev("A", type="user", message={"content": [{"type": "text", "text": "hi"}]}),
           ev("A", type="result", subtype="success", is_error=False, result="ok"),
           ev("B", type="system", subtype="init", model="m", cwd="/w")]
    for i in range(b_calls):
        body = {"args": {"command": f"c{i}"}}
        out.append(ev("B", type="tool_call", subtype="started", call_id=f"c{i}", tool_call={"shellToolCall": body}))
        out.append(ev("B", type="tool_call", subtype="completed", call_id=f"c{i}",
                      tool_call={"shellToolCall": {**body, "result": {"success": {"exitCode": 0}}}}))
    return b"".join(out)


@pytest.mark.parametrize("b_calls", [10, 700])  # 700 calls: 1,404 records, a jump from a copy of the model
async def test_a_far_seek_forward_shows_the_newest_run_as_a_near_one_does(b_calls):
    """(From a code review.)  End from the first of two runs, the list following: a seek of
    a few records showed run 2, one far enough to start from a copy of the model kept run 1."""
    app = make_replay_app(_two_runs(b_calls), checkpoint_every=100)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("full_stop", "full_stop")
        await settle(pilot)
        assert app.view_index == 0 and app.timeline.follow
        await pilot.press("end")
        await settle(pilot)
        assert app.replay.position == app.replay.total and len(app.model.sessions) == 2
        assert app.view_index == 1


async def test_a_step_back_keeps_the_call_the_user_selected():
    """(From a code review.)  Call 14 of 18 selected (the list not following), then ←: the
    list and the detail went to call 17."""
    app = make_replay_app(sample("demo_session.ndjson"))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("end")
        await settle(pilot)
        tl = app.timeline
        tl.focus()
        await pilot.press("up", "up", "up")
        await settle(pilot)
        picked = tl.selected_index()
        assert not tl.follow and picked == len(app.session.tools) - 4
        await pilot.press("left")
        await settle(pilot)
        assert tl.selected_index() == picked and app.detail.tool.index == picked
        assert not tl.follow


async def test_the_replay_bar_fills_as_its_clock_goes_between_events(monkeypatch):
    """(From a code review.)  The bar is filled by play time, but it was drawn again only when
    the clock's whole second changed: on a 2.9 s run it showed 29 cells where 54 were due."""
    from viewer.core.replay import FileIndex, Replay
    from viewer.core.sources import MemoryStore
    from viewer.ui.replay import ReplayApp, ReplayBar

    drawn = []
    real_render = ReplayBar.render
    monkeypatch.setattr(ReplayBar, "render", lambda self: drawn.append(real_render(self)) or drawn[-1])
    t0 = 1_790_000_000_000
    data = b"".join(orjson.dumps({"type": "thinking", "subtype": "delta", "text": text, "session_id": "s",
                                  "timestamp_ms": t0 + ms}) + b"\n" for text, ms in (("a", 0), ("b", 2_900)))
    index = FileIndex(MemoryStore(data), len(data))
    index.read()
    now = [0.0]
    replay = Replay(index=index, playing=True)
    app = ReplayApp(replay, BytesFeed(data, eof=False), clock=lambda: now[0], frame_interval=3600,
                    start_reading=False)

    def filled(text) -> int:
        return sum(s.end - s.start for s in text.spans if str(s.style) == "bold green")

    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        for t in (1.05, 1.95):  # one whole second, no event between
            now[0] = t
            app.pump()
            await pilot.pause()
        assert replay.position == 1 and abs(replay.clock_time - 1.95) < 1e-9
        assert filled(drawn[-1]) == filled(real_render(app.bar)) > 0


async def test_space_on_an_empty_recording_does_not_say_it_plays_it_again():
    """(From a code review.)  An empty file is at its end: Space said "Playing again from the
    start"."""
    app = make_replay_app(b"")
    async with app.run_test(size=(120, 40), notifications=True) as pilot:
        await settle(pilot)
        await pilot.press("space")
        await settle(pilot)
        said = [n.message for n in app._notifications]
        assert not any("Playing again" in m for m in said), said


async def test_stepping_through_search_hits_piles_no_notices_over_the_panes():
    """(From a new-user trial.)  / then n n n: a toast a step, and the terminal kept the
    removed ones on screen over the tool list.  Where the search is shows on the transcript's
    border, as in the full-screen detail; a new search or x clears it."""
    from textual.widgets._toast import Toast

    app = make_app(sample("demo_session.ndjson"))
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await settle(pilot)
        await pilot.press("slash", *"total", "enter", "n", "n")
        await pilot.pause()
        assert not app.screen.query(Toast)
        place = str(app.transcript.border_subtitle)
        assert place.startswith("'total': block 3 of ") and place.endswith(", n N"), place
        assert "'total': block 3 of" in screen_rows(app)
        await pilot.press("x")
        await pilot.pause()
        assert not str(app.transcript.border_subtitle)


async def test_a_replayed_save_copy_times_a_running_call_on_the_clock_it_plays_by():
    """(From a daily-user trial.)  A real run piped at its own pace with --save, then replayed:
    the call just started read "27 s…".  The copy's arrival times set the replay's clock, and
    the call's start was taken from its event's own time, another clock."""
    from viewer.core.replay import FileIndex, Replay
    from viewer.core.sources import MemoryStore
    from viewer.ui.replay import ReplayApp

    data = real_capture("cursor-hack__direct-sleep.ndjson")
    ends, at = [], 0
    for line in data.splitlines(keepends=True):
        at += len(line)
        ends.append(at)
    timing = [(end, 150 * i) for i, end in enumerate(ends)]  # a line every 0.15 s
    index = FileIndex(MemoryStore(data), len(data), timing=timing)
    index.read()
    app = ReplayApp(Replay(index=index, playing=False), BytesFeed(data, eof=False), clock=lambda: 1000.0)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("right_square_bracket")  # the first call's start
        await settle(pilot)
        t = app.session.tools[0]
        assert t.status == "running"
        row = app.timeline.render_line(0).text
        assert " s…" not in row, row  # (it has just started)
        await pilot.press("right_square_bracket")  # the second one's
        await settle(pilot)
        assert app.session.tools[1].status == "running"
        row = app.timeline.render_line(1).text
        assert " s…" not in row, row


async def test_a_replayed_save_copy_of_a_codex_run_has_the_times_the_live_view_had():
    """(From a trial.)  A Codex run piped in with --save showed "✓ SUCCEEDED in 11.2 s" and its
    calls' times, timed by when its events came (its stream has no times of its own); replayed,
    the copy had no clock and no call a time, though its timing sidecar has the arrivals."""
    from viewer.core.replay import FileIndex, Replay
    from viewer.core.sources import MemoryStore
    from viewer.ui.replay import ReplayApp

    data = sample("codex_run.ndjson")
    ends, at = [], 0
    for line in data.splitlines(keepends=True):
        at += len(line)
        ends.append(at)
    timing = [(end, 700 * i) for i, end in enumerate(ends)]  # a line every 0.7 s, as it was piped
    index = FileIndex(MemoryStore(data), len(data), timing=timing)
    index.read()
    app = ReplayApp(Replay(index=index, playing=False), BytesFeed(data, eof=False), clock=lambda: 1000.0)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        header = lambda: app.header.render_line(0).text  # noqa: E731
        await pilot.press("right_square_bracket")  # the first command's start: line 5, at 2.8 s
        await settle(pilot)
        t = next(t for t in app.session.tools if t.status == "running")
        assert t.start_line == 5 and "00:02" in header(), header()  # the run's clock, from its first event
        await pilot.press("full_stop")  # its completion, 0.7 s later
        await settle(pilot)
        assert app.session.tools[t.index].duration_ms == 700
        await pilot.press("end")
        await settle(pilot)
        assert app.model.ended and "SUCCEEDED  in 11.2 s" in header(), header()
        rows = _plain(app, app.timeline).splitlines()
        assert "700 ms" in rows[t.index], rows


async def test_the_still_written_hint_leaves_room_for_the_calls_counts(tmp_path, monkeypatch):
    """(From a daily-user trial.)  At 80 columns the whole command pushed the counts off the
    line ("2 tools: 0…"); the README promises the short form in a narrow window."""
    from viewer.core.feed import FileFeed

    lines = sample("demo_session.ndjson").splitlines(keepends=True)
    monkeypatch.chdir(tmp_path)
    path = tmp_path / "partial-run.ndjson"
    path.write_bytes(b"".join(up_to_first_call(lines)))
    app = AgentViewerApp(FileFeed(path.name, workers=0))
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await settle(pilot)
        header = app.header.render_line(1).text
        # (the counts that are not 0, with room for the hint's longer form)
        assert header.rstrip() == "⚠ still being written? (--follow reads on)   1 tool: 1 unfinished", header
        # (From a live-watching trial.)  Beside it, the footer's "f Follow" read as the key that
        # follows the file: f says what it does, and what reads on.
        await pilot.press("f")
        await pilot.pause()
        said = [n.message for n in app._notifications][-1]
        assert said == "Follow off: f only scrolls to the newest output; agent-viewer --follow partial-run.ndjson reads on", said
    app = AgentViewerApp(FileFeed(path.name, workers=0))
    async with app.run_test(size=(100, 24)) as pilot:
        await settle(pilot)
        assert app.header.render_line(1).text.startswith("⚠ still being written? (--follow reads on)")
    app = AgentViewerApp(FileFeed(path.name, workers=0))
    async with app.run_test(size=(60, 24)) as pilot:  # (no room for every count beside it: not 0s)
        await settle(pilot)
        assert app.header.render_line(1).text.rstrip() == "⚠ still written? (--follow)   1 tool: 1 unfinished"
    app = AgentViewerApp(FileFeed(path.name, workers=0))
    async with app.run_test(size=(140, 24)) as pilot:  # (room for it: the command itself)
        await settle(pilot)
        assert app.header.render_line(1).text.startswith("⚠ still being written? agent-viewer --follow partial-run")


async def test_the_transcript_shows_what_an_ask_question_asked(real):
    """(From a new user's trial.)  The questions the agent asked, and their options, were
    shown nowhere: a line each under the query's."""
    app = make_app(real("maestro__06_ask_question"))
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        rows = [r.strip("│ ") for r in screen_rows(app).splitlines()]
        at = next(i for i, r in enumerate(rows) if "? Question: Payments feature clarification" in r)
        assert rows[at + 1].startswith("· What payment flow should the feature support? (One-time payments")
        assert rows[at + 2].startswith("· Which payment provider and environment should be used initially?")


@pytest.mark.parametrize("stream,replay,code,note", [
    ("demo_session.ndjson", False, 0, ""),
    ("failed_run.ndjson", False, 1, "the run failed: "),
    ("truncated_run.ndjson", False, 1, "the run ended without a result"),
    ("failed_run.ndjson", True, 0, ""),  # (a replay is not the run)
])
async def test_q_exits_with_the_status_print_gives(stream, replay, code, note):
    """(From a new user's trial.)  q exited 0 after a failed run: `agent | agent-viewer && next`
    went on.  Now as --print: 1 when the run failed or had no result, and why on stderr."""
    app = (make_replay_app if replay else make_app)(sample(stream))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("q")
        await pilot.pause()
    assert app.return_code == code and app.exit_note.startswith(note) and bool(app.exit_note) == bool(note)


async def test_q_on_a_piped_run_still_going_asks_first():
    """(From a new user's trial.)  One q closed the agent's pipe part way through its run (it
    died of a broken pipe) without a word.  Now a first q says so; a second one quits, with
    status 1: the run had not ended."""
    lines, feed, app = live_demo()
    feed.pipe = True  # (as a PipeFeed is)
    async with app.run_test(size=(120, 40), notifications=True) as pilot:
        push(feed, up_to_first_call(lines))
        await settle(pilot)
        await pilot.press("q")
        await pilot.pause()
        assert app.is_running and [n.title for n in app._notifications] == ["Quit?"]
        assert "closes the agent's pipe" in next(iter(app._notifications)).message
        await pilot.press("q")
        await pilot.pause()
    assert app.return_code == 1 and app.exit_note == "quit before the run ended"


async def test_the_quit_question_goes_once_the_run_ends():
    """(From a trial.)  "Quit? The run is still going" stayed on screen under the header's
    "✓ SUCCEEDED", for the rest of its time."""
    lines, feed, app = live_demo()
    feed.pipe = True
    async with app.run_test(size=(120, 40), notifications=True) as pilot:
        first = up_to_first_call(lines)
        push(feed, first)
        await settle(pilot)
        await pilot.press("q")
        await pilot.pause()
        assert [n.title for n in app._notifications] == ["Quit?"]
        push(feed, lines[len(first):])  # the rest, to the result
        await pilot.pause(0.3)
        assert app.model.last_run.result is not None and app.is_running
        assert [n.title for n in app._notifications] == []


async def test_q_on_a_pipe_before_any_event_asks_first_and_says_so():
    """(From a review.)  Before the first event, q closed the pipe of an agent still starting,
    and said "the input is empty"."""
    lines, feed, app = live_demo()
    feed.pipe = True
    async with app.run_test(size=(120, 40), notifications=True) as pilot:
        await settle(pilot)
        await pilot.press("q")
        await pilot.pause()
        # (From a live-watching trial: it said "The run is still going" of no run.)
        assert next(iter(app._notifications)).message.startswith("The pipe is open, no event yet: quitting closes")
        await pilot.press("q")
        await pilot.pause()
    assert app.return_code == 1 and app.exit_note == "quit before any event came"


async def test_a_second_q_after_the_wait_or_once_the_pipe_ended(monkeypatch):
    """A second q more than QUIT_CONFIRM later asks again; once the pipe has ended, q quits."""
    from viewer.ui import app as app_module

    clock = [100.0]
    monkeypatch.setattr(app_module, "_now", lambda: clock[0])
    lines, feed, app = live_demo()
    feed.pipe = True
    async with app.run_test(size=(120, 40), notifications=True) as pilot:
        push(feed, up_to_first_call(lines))
        await settle(pilot)
        await pilot.press("q")
        clock[0] += app_module.QUIT_CONFIRM + 0.1
        await pilot.press("q")  # too late: asks again
        await pilot.pause()
        assert app.is_running and [n.title for n in app._notifications] == ["Quit?", "Quit?"]
        feed._queue.put(None)  # the agent closed its end
        await settle(pilot)
        clock[0] += app_module.QUIT_CONFIRM + 0.1
        await pilot.press("q")  # nothing to close any more: at once
        await pilot.pause()
    assert app.return_code == 1 and app.exit_note == "the run ended without a result"


async def test_q_on_a_piped_run_that_has_its_result_quits_at_once():
    lines, feed, app = live_demo()
    feed.pipe = True
    async with app.run_test(size=(120, 40)) as pilot:
        push(feed, lines)  # the result came; the pipe is still open
        await settle(pilot)
        await pilot.press("q")
        await pilot.pause()
    assert app.return_code == 0 and not app.exit_note


async def test_a_run_cut_mid_thought_by_its_failure_says_so_on_screen():
    """(From a new user's trial.)  Under --follow, a run that failed while thinking kept
    "✻ Thinking…" above "✗ Run failed": the result ended the thought, and no delta said so."""
    lines, feed, app = live_demo()
    first = real_capture("maestro__02_shell_tool_call.ndjson").splitlines(keepends=True)
    failed = sample("failed_run.ndjson").splitlines(keepends=True)
    result = next(i for i, line in enumerate(failed) if b'"type":"result"' in line)
    async with app.run_test(size=(120, 40)) as pilot:
        push(feed, first)
        await settle(pilot)
        push(feed, failed[:result])
        await settle(pilot)
        assert "✻ Thinking…" in _plain(app, app.transcript)  # (being written)
        push(feed, failed[result:])
        await settle(pilot)
        shown = _plain(app, app.transcript)
        assert app.session.state == "failed" and "Run failed" in shown
        assert "✻ Thinking…" not in shown and "cut off, t to show)" in shown, shown


async def test_a_replays_next_call_selects_it_after_the_list_was_moved():
    """(From a new user's trial.)  After } (or a move in the list), ] played on to the next
    call but the list and the detail stayed on the old one: only a list that followed moved."""
    app = make_replay_app(sample("demo_session.ndjson"))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("right_square_bracket", "right_square_bracket")
        await settle(pilot)
        await pilot.press("k")  # the first call: the list stops following
        await settle(pilot)
        assert app.timeline.selected_index() == 0 and not app.timeline.follow
        for want in (2, 3):
            await pilot.press("right_square_bracket")
            await settle(pilot)
            assert len(app.session.tools) == want + 1
            assert app.timeline.selected_index() == want and app.detail.tool.index == want


async def test_an_agents_reported_error_is_a_warning_and_a_run_without_init_names_its_agent():
    """(From a trial.)  Gemini CLI's "error" events (a 429, a loop) were dim, like progress;
    and a Gemini run joined mid-way named no agent in its header."""
    lines = [{"type": "message", "timestamp": "2026-03-05T20:42:53.931Z", "role": "assistant",
              "content": "Working on it.", "delta": True},
             {"type": "error", "timestamp": "2026-03-05T20:42:54.000Z", "severity": "error",
              "message": "API Error: 429 Resource exhausted"}]
    app = make_app(b"".join(orjson.dumps(x) + b"\n" for x in lines))
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(pilot)
        assert "Gemini CLI" in _plain(app, app.header).splitlines()[0], _plain(app, app.header)
        shown = await _transcript_from_top(app, pilot)
        assert "⚠ error: API Error: 429 Resource exhausted" in shown, shown


async def test_keys_that_step_through_the_call_lines_in_one_burst_each_take_a_step():
    """(From a daily-user trial.)  `] ] ]` typed fast in the transcript went one call on, not
    three: each key stepped from the call the list had selected, which it had not yet."""
    app = make_app(sample("demo_session.ndjson"))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        app.set_focus(app.transcript)
        await pilot.press("g")
        await settle(pilot)
        app.post_message(events.Key("right_square_bracket", "]"))  # three keys, no frame between
        app.post_message(events.Key("right_square_bracket", "]"))
        app.post_message(events.Key("right_square_bracket", "]"))
        await settle(pilot)
        assert app.timeline.selected_index() == 2 and app.transcript.selected_tool == 2
        for _ in range(2):
            app.post_message(events.Key("left_square_bracket", "["))
        await settle(pilot)
        assert app.timeline.selected_index() == 0 and app.detail.tool.index == 0


async def test_an_open_health_screen_follows_a_replay_as_it_moves_on_and_back():
    """(From a replay trial.)  Opened at the start and played on, the health screen said "0
    events · 0 malformed lines" under a header that said the run had ended with one: it was
    drawn once, from the model of the moment (a replay's changes as it seeks)."""
    from viewer.ui.screens import HealthScreen

    app = make_replay_app(sample("truncated_run.ndjson"))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("h")
        await pilot.pause()
        assert isinstance(app.screen, HealthScreen)
        assert "0 events · 0 malformed lines" in screen_rows(app)
        app.action_seek_end()
        await pilot.pause(HealthScreen.CHECK_EVERY + 0.2)
        await pilot.pause()
        rows = screen_rows(app)
        assert f"{app.model.events:,} events (on" in rows and "1 malformed line" in rows, rows
        assert app.model.events > 0 and "Every line parsed" not in rows
        app.action_seek_start()
        await pilot.pause(HealthScreen.CHECK_EVERY + 0.2)
        await pilot.pause()
        assert "0 events · 0 malformed lines" in screen_rows(app)


async def test_a_search_found_only_in_hidden_thinking_still_names_the_other_sessions_matches():
    """(From a replay trial.)  "No match for 'columns' (it is in the hidden thinking: t shows
    it)": session 1's two matches were left unsaid, as they are when nothing here matches."""
    def run(sid: str, said: str, thought: str) -> list[dict]:
        return [{"type": "system", "subtype": "init", "session_id": sid, "model": "m"},
                {"type": "thinking", "subtype": "delta", "session_id": sid, "text": thought},
                {"type": "thinking", "subtype": "completed", "session_id": sid},
                {"type": "assistant", "session_id": sid, "message": {"role": "assistant", "content": [
                    {"type": "text", "text": said}]}},
                {"type": "result", "subtype": "success", "is_error": False, "result": said, "session_id": sid}]
    events = run("s1", "The columns line up now.", "Hmm.") + run("s2", "Done.", "The columns may move.")
    app = make_app(b"".join(orjson.dumps(e) + b"\n" for e in events))
    async with app.run_test(size=(120, 40), notifications=True) as pilot:
        await settle(pilot)
        assert app.session.index == 1
        app.run_search("columns")
        await pilot.pause()
        said = " ".join(n.message for n in app._notifications)
        assert "session 1 has" in said and "< goes there" in said, said
        assert "it is in the hidden thinking: t shows it" in said, said


async def test_lines_that_are_not_events_before_any_run_are_listed_as_they_come():
    """(From a live-watching trial.)  An agent's "Error: Authentication required" before its
    first event was only in the header's last line: the transcript stayed empty until the
    input ended.  Then the run, once it comes, is shown with them."""
    lines, feed, app = live_demo()
    async with app.run_test(size=(120, 40)) as pilot:
        push(feed, [b"Warning: update available\n", b"Error: Authentication required\n"])
        await pilot.pause(0.3)
        shown = _plain(app, app.transcript)
        assert "2 lines are not events" in shown and "line 2: Error: Authentication required" in shown, shown
        assert "⚠ 2 malformed lines so far (h)" in screen_rows(app)
        push(feed, lines[:20])
        await pilot.pause(0.3)
        shown = _plain(app, app.transcript)
        assert app.session is not None and "CI is red on main" in shown, shown


async def test_a_heading_inside_cursors_thinking_is_a_paragraph_of_its_own():
    """(From a live-watching trial.)  Cursor's thinking puts a heading on the line right under
    the last one's end: it was drawn as one more line of that paragraph, where the first
    heading of the same thought is a paragraph of its own."""
    text = ("**Planning the run**\n\nI will run them without additional actions.\n"
            "**Executing commands sequentially**\n\nFirst the tests.")
    data = b"".join(orjson.dumps({"session_id": "s", **e}) + b"\n" for e in (
        {"type": "system", "subtype": "init", "model": "m", "cwd": "/w"},
        {"type": "thinking", "subtype": "delta", "text": text},
        {"type": "thinking", "subtype": "completed"},
        {"type": "assistant", "message": {"content": [{"type": "text", "text": "Done."}]}},
    ))
    app = make_app(data)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        await pilot.press("t")
        await settle(pilot)
        rows = [r.strip(" │") for r in _plain(app, app.transcript).splitlines()]
        at = rows.index("Executing commands sequentially")
        assert rows[at - 2].endswith("without additional actions.") and rows[at - 1] == "", rows
        assert rows[rows.index("Planning the run") + 1] == "", rows


async def test_a_live_run_that_has_said_nothing_yet_says_so_in_the_transcript():
    """(Codex does not echo the prompt: its transcript was blank, under a header saying LIVE,
    until the agent's first item.)  The note goes once something is said."""
    lines = sample("codex_run.ndjson").splitlines(keepends=True)
    feed = BytesFeed(b"", live=True, eof=False, clock=lambda: 1000.0)
    app = AgentViewerApp(feed, clock=lambda: 1000.0)
    async with app.run_test(size=(100, 20)) as pilot:
        push(feed, lines[:2])  # thread.started, turn.started
        await settle(pilot)
        assert app.session is not None and not app.session.blocks
        assert _plain(app, app.transcript).splitlines()[0].strip() == "Nothing said yet."
        push(feed, lines[2:3])  # its first item: a thought
        await settle(pilot)
        shown = _plain(app, app.transcript)
        assert "Nothing said" not in shown and "Thought" in shown


async def test_a_gzip_piped_in_is_refused_with_the_command_that_reads_it():
    """(From a new-user trial.)  `cat run.ndjson.gz | agent-viewer` filled the transcript with
    mojibake under "⚠ 60 malformed lines"; a .gz by its name is refused before the screen opens.
    Now the header and a notice say what it is and how to read it; q exits 2 saying so."""
    import gzip

    from viewer.core.feed import PipeFeed

    read, write = os.pipe()
    feed = PipeFeed(read, clock=lambda: 1000.0)
    app = AgentViewerApp(feed, clock=lambda: 1000.0)
    said = "standard input: is gzip-compressed; read it with … | zcat | agent-viewer"
    try:
        async with app.run_test(size=(120, 30), notifications=True) as pilot:
            os.write(write, gzip.compress(sample("demo_session.ndjson"))[:30_000])
            for _ in range(100):
                await pilot.pause(0.05)
                if app.header.refused:
                    break
            await pilot.pause()
            top = app.header.render_line(0).text
            assert "NOT READ" in top and said in top, top
            assert said in [n.message for n in app._notifications]
            assert app.model.malformed_lines == 0 and app.session is None  # (nothing read of it)
            await pilot.press("q")
        assert app.return_code == 2 and app.exit_note == said
    finally:
        os.close(write)



async def test_a_call_left_running_at_a_live_runs_result_is_drawn_unfinished_at_once():
    """(From a review.)  The result made the call unfinished in the list, but the transcript
    drew its spinner on, until the input ended: on an open pipe, for good."""
    from viewer.core.feed import PipeFeed

    def j(**f) -> bytes:
        return orjson.dumps(f) + b"\n"

    def call(phase: str, cid: str, cmd: str) -> bytes:
        body = {"args": {"command": cmd}}
        if phase == "completed":
            body["result"] = {"success": {"command": cmd, "exitCode": 0, "stdout": ""}}
        return j(type="tool_call", subtype=phase, call_id=cid, session_id="s", timestamp_ms=1000,
                 tool_call={"shellToolCall": body})

    read, write = os.pipe()
    feed = PipeFeed(read, clock=lambda: 1000.0)
    app = AgentViewerApp(feed, clock=lambda: 1000.0)
    try:
        async with app.run_test(size=(140, 30)) as pilot:
            os.write(write, j(type="system", subtype="init", session_id="s", model="m", cwd="/w")
                     + call("started", "c1", "pytest") + call("started", "c2", "sleep 9")
                     + call("completed", "c1", "pytest"))
            for _ in range(60):
                await pilot.pause(0.05)
                if app.session is not None and len(app.session.tools) == 2:
                    break
            await settle(pilot)
            assert "⠋ Shell" in _plain(app, app.transcript)
            os.write(write, j(type="result", subtype="error", is_error=True, result="aborted", session_id="s"))
            for _ in range(60):
                await pilot.pause(0.05)
                if app.session.result is not None:
                    break
            await settle(pilot)
            rows = [r.strip("│ ") for r in _plain(app, app.transcript).splitlines()]
            assert any(r.lstrip("▶ ").startswith("◌ Shell (unfinished)") and "sleep 9" in r for r in rows), rows
            assert not feed.finished  # (still open: not the input's end)
    finally:
        os.close(write)


async def test_a_narrow_header_keeps_the_counts_that_are_not_zero():
    """(From a trial.)  At 40 columns the header said "1 tool: 0 running · 0 ok · 0 failed ·…":
    the one count that was not 0, "1 rejected", was cut.  Without room for them all, the zeros go."""
    data = real_capture("maestro__05_rejected_shell.ndjson")
    for width, shown in ((120, "2 tools: 0 running · 0 ok · 0 failed · 2 rejected"), (40, "2 tools: 2 rejected")):
        app = make_app(data)
        async with app.run_test(size=(width, 20)) as pilot:
            await settle(pilot)
            line = app.header.render_line(1).text
            assert line.strip().startswith(shown), (width, line)


async def test_a_search_stays_on_while_a_replay_steps_and_seeks():
    """(From a new-user trial.)  A step back or a seek of a paused replay took the search's
    place off the transcript's border and its mark off the block, while ``n`` still went on
    with it.  It stays: on the block marked while that block is there, with its place; else
    the border says the search is on, and ``n`` searches the run as it is there."""
    app = make_replay_app(sample("demo_session.ndjson"))
    async with app.run_test(size=(100, 30)) as pilot:
        app._seek(100)
        await settle(pilot)
        await pilot.press("slash", *"pytest", "enter")
        await settle(pilot)
        tr = app.transcript
        marked, label = tr.highlight_block, str(tr.border_subtitle)
        assert marked >= 0 and label.startswith("'pytest': block 1 of "), label
        await pilot.press("comma")  # a step back
        await settle(pilot)
        assert tr.highlight_block == marked and str(tr.border_subtitle) == label
        assert "▌" in _plain(app, tr)  # (the marked block's bar)
        app._seek(app.replay.total)  # to the end, then on from the block marked
        await settle(pilot)
        hits = app._hits_in(app.session, "pytest")
        assert tr.highlight_block == marked and len(hits) > 1
        await pilot.press("n")
        await settle(pilot)
        assert tr.highlight_block == hits[hits.index(marked) + 1]
        assert str(tr.border_subtitle).startswith(f"'pytest': block {hits.index(marked) + 2} of {len(hits)}")
        app._seek(3)  # back before the block: no mark, and the border says the search is on
        await settle(pilot)
        assert tr.highlight_block == -1
        assert str(tr.border_subtitle) == "'pytest': n N searches again", tr.border_subtitle
        await pilot.press("n")  # none there: n says so, as it did
        await settle(pilot)
        assert "No match for 'pytest'" in " ".join(n.message for n in app._notifications)
        app._seek(app.replay.total)
        await settle(pilot)
        await pilot.press("n")  # and at the end, the first
        await settle(pilot)
        assert tr.highlight_block == hits[0]


async def test_each_search_match_is_in_view_in_a_transcript_two_rows_high():
    """(From a trial at 40×12.)  A replay's transcript there is two rows high: a match was put
    two rows down, below the view, or one row above it once the block gone to was measured on
    screen.  Each match that ``n`` goes to is on screen."""
    app = make_replay_app(sample("demo_session.ndjson"))
    async with app.run_test(size=(40, 12)) as pilot:
        app.action_seek_end()
        await settle(pilot)
        tr = app.transcript
        for query in ("totals", "rounding"):
            await pilot.press("slash", *query, "enter")
            await settle(pilot)
            assert tr.size.height == 2 and len(app._search_hits) > 1
            for i in range(len(app._search_hits)):
                if i:
                    await pilot.press("n")
                    await settle(pilot)
                shown = [tr.render_line(y).text.lower() for y in range(tr.size.height)]
                assert any(query in row for row in shown), (query, i, shown)
