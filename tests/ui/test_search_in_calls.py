"""The main view's search does not look in calls' output and arguments (their detail does):
when it finds nothing in the transcript, it says which calls' detail has the query, and n opens
them, full screen, at their first match."""

from __future__ import annotations

import orjson

from tests.ui.conftest import make_app, sample, settle
from tests.ui.test_pilot import _one_shell_call
from viewer.ui.screens import DetailScreen
from viewer.ui.widgets.detail import DetailView


def _notices(app) -> list[str]:
    return [str(n.message) for n in app._notifications]


async def _search(app, pilot, query: str) -> list[str]:
    app.clear_notifications()
    app.run_search(query)
    await settle(pilot)
    return _notices(app)


async def _open_first_found(app, pilot, query: str) -> DetailView:
    """A search of the demo's transcript that names calls, and n: the first, full screen."""
    await settle(pilot)
    await _search(app, pilot, query)
    await pilot.press("n")
    await settle(pilot)
    return app.screen.query_one(DetailView)


async def test_a_word_only_in_a_command_s_output_names_the_call_and_n_opens_it_at_the_match():
    """(From a new-user trial: the error pytest printed was "No match", with no word of where
    it was.)"""
    app = make_app(sample("demo_session.ndjson"))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert await _search(app, pilot, "AssertionError") == [
            "No match for 'AssertionError' in the transcript; call 4's detail has it: n opens it"]
        # (Said on the transcript's border too, where a search's place is, once the notice goes.)
        assert str(app.transcript.border_subtitle) == "'AssertionError': in the detail of call 4, n N"
        await pilot.press("n")
        await settle(pilot)
        assert isinstance(app.screen, DetailScreen)
        view = app.screen.query_one(DetailView)
        assert view.tool.index == 3 and view.hits and view.hit_pos == 0
        assert "'AssertionError': 1 of " in str(view.border_subtitle)
        assert not app._notifications  # (the search's notice covered that border)
        top = int(view.scroll_y)
        rows = [view.render_line(y).text for y in range(view.size.height)]
        assert any("AssertionError" in row for row in rows), rows  # (the match is in view)
        assert top > 0  # (scrolled to it: the call's output starts below its facts)
        await pilot.press("escape")
        await settle(pilot)
        assert not isinstance(app.screen, DetailScreen)
        assert app.timeline.selected_index() == 3  # the list is on the call that was opened


async def test_n_opens_each_call_whose_detail_has_it_in_turn():
    app = make_app(sample("demo_session.ndjson"))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert await _search(app, pilot, "def line_total") == [
            "No match for 'def line_total' in the transcript; calls 5 and 14 have it in their detail: n opens them"]
        opened = []
        for _ in range(3):
            await pilot.press("n")
            await settle(pilot)
            assert isinstance(app.screen, DetailScreen)
            view = app.screen.query_one(DetailView)
            assert view.hits, view.tool.index
            opened.append(view.tool.index + 1)
            await pilot.press("escape")
            await settle(pilot)
        assert opened == [5, 14, 5]
        assert str(app.transcript.border_subtitle) == "'def line_total': in the detail of calls 5 and 14, n N"
        await pilot.press("N")  # (back, from call 5: the last one)
        await settle(pilot)
        assert app.screen.query_one(DetailView).tool.index + 1 == 14


async def test_n_in_a_found_call_goes_on_to_the_next_found_call_past_its_last_match():
    """(From a trial: n stopped in the first call opened, "1 of 1 (from the top)" again and
    again; the other call named was reached only by Esc, then n.)"""
    app = make_app(sample("demo_session.ndjson"))
    async with app.run_test(size=(120, 40)) as pilot:
        view = await _open_first_found(app, pilot, "def line_total")
        first = len(view.hits)
        assert view.tool.index + 1 == 5 and view.hit_pos == 0
        for _ in range(first - 1):  # this call's own matches first
            await pilot.press("n")
            await settle(pilot)
        assert view.tool.index + 1 == 5 and view.hit_pos == first - 1
        await pilot.press("n")
        await settle(pilot)
        assert view.tool.index + 1 == 14 and view.hits and view.hit_pos == 0
        sub = str(view.border_subtitle)
        assert sub.startswith("call 14 of 18 (2 of the 2 the search named)"), sub
        assert "'def line_total': 1 of " in sub and "from the top" not in sub, sub
        rows = [view.render_line(y).text for y in range(view.size.height)]
        assert any("def line_total" in row for row in rows), rows  # (at the match)
        await pilot.press("N")  # back: the last match of call 5
        await settle(pilot)
        assert view.tool.index + 1 == 5 and view.hit_pos == first - 1
        assert "(1 of the 2 the search named)" in str(view.border_subtitle)
        for _ in range(1 + len(view.hits)):  # on through call 14's, and round: said so
            await pilot.press("n")
            await settle(pilot)
        assert view.tool.index + 1 == 5 and view.hit_pos == 0 and "(from the top)" in str(view.border_subtitle)
        await pilot.press("N")
        await settle(pilot)
        assert view.tool.index + 1 == 14 and "(from the end)" in str(view.border_subtitle)
        await pilot.press("escape")
        await settle(pilot)
        assert app.timeline.selected_index() + 1 == 14  # the list is on the call left open
        await pilot.press("n")  # and the panes' n goes on from it
        await settle(pilot)
        assert app.screen.query_one(DetailView).tool.index + 1 == 5


async def test_n_in_the_only_call_found_starts_over_in_it():
    app = make_app(sample("demo_session.ndjson"))
    async with app.run_test(size=(120, 40)) as pilot:
        view = await _open_first_found(app, pilot, "AssertionError")
        for _ in range(len(view.hits)):
            await pilot.press("n")
            await settle(pilot)
        assert view.tool.index == 3 and view.hit_pos == 0 and "(from the top)" in str(view.border_subtitle)


async def test_what_the_detail_would_not_find_is_not_named_and_escaped_json_is_read():
    """A call's output as the detail searches it: a colour code's letters are no match there
    (nor here), and an event written by an encoder that escapes "<" (Go's) still has "<div>"."""
    data = _one_shell_call("make page", {"success": {
        "command": "make page", "exitCode": 0, "stdout": "\x1b[32mok\x1b[0m wrote <div class=page>", "stderr": ""}})
    data = data.replace(b"<", b"\\u003c").replace(b">", b"\\u003e")
    assert b"<div" not in data and orjson.loads(data.splitlines()[-1])  # (still JSON)
    app = make_app(data)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        assert await _search(app, pilot, "<div class=page>") == [
            "No match for '<div class=page>' in the transcript; call 1's detail has it: n opens it"]
        assert await _search(app, pilot, "32m") == ["No match for '32m'"]
        await pilot.press("n")
        await settle(pilot)
        assert not isinstance(app.screen, DetailScreen)  # (nothing to open)
        assert await _search(app, pilot, "nowhere at all") == ["No match for 'nowhere at all'"]
        assert not str(app.transcript.border_subtitle)


async def test_a_long_look_through_the_calls_says_what_it_found_when_it_is_done(monkeypatch):
    """A big run's calls are looked in a slice at a time between frames: "No match" is said at
    once, and the calls found once the look is done (n opens them from then on)."""
    import viewer.ui.app as app_module

    monkeypatch.setattr(app_module, "CALLS_SLICE_S", 0.0)  # (one call a slice)
    monkeypatch.setattr(app_module, "CALLS_FIRST_S", 0.0)
    # No slice comes by itself: the test runs them (the pilot's key press waits for the app to
    # be idle, which a look paced by the clock let it be only once done, on a slow machine).
    monkeypatch.setattr(app_module, "CALLS_GAP_S", 60.0)
    app = make_app(sample("demo_session.ndjson"))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        app.clear_notifications()
        app.run_search("def line_total")
        look = app._search_calls
        assert not look.done and look.next == 1  # (one call looked in, in the key press)
        await pilot.press("k")  # (keys are taken meanwhile)
        assert _notices(app)[0] == "No match for 'def line_total' in the transcript; looking in the calls' detail…"
        for _ in range(100):  # (bounded: a failing test, not a hung one)
            if look.done:
                break
            app._look_in_calls(look)
        assert look.done
        await settle(pilot)
        assert look.slices == len(app.session.tools) and app.timeline.selected_index() == 16
        # (the notice that said it was looking is gone: it stood beside the one that tells)
        assert _notices(app) == ["'def line_total' is not in the transcript; calls 5 and 14 have it in "
                                 "their detail: n opens them"]
        assert str(app.transcript.border_subtitle) == "'def line_total': in the detail of calls 5 and 14, n N"
        await pilot.press("n")
        await settle(pilot)
        assert app.screen.query_one(DetailView).tool.index + 1 == 5


def _run(*events: dict) -> bytes:
    sid = "s"
    head = [{"type": "system", "subtype": "init", "session_id": sid, "model": "m", "cwd": "/w"}]
    return b"".join(orjson.dumps({"session_id": sid, **e}) + b"\n" for e in head + list(events))


def _shell(call_id: str, command: str, stdout: str) -> list[dict]:
    args = {"command": command}
    done = {"shellToolCall": {"args": args, "result": {"success": {
        "command": command, "exitCode": 0, "stdout": stdout, "stderr": ""}}}}
    return [{"type": "tool_call", "subtype": "started", "call_id": call_id, "tool_call": {"shellToolCall": {"args": args}}},
            {"type": "tool_call", "subtype": "completed", "call_id": call_id, "tool_call": done}]


async def test_n_goes_to_the_transcripts_match_once_t_shows_it_before_the_calls():
    """(From a review.)  "(it is in the hidden thinking: t shows it); call 1's detail has it":
    t, then n opened the call, as if the thought were not shown."""
    app = make_app(_run({"type": "thinking", "subtype": "delta", "text": "I should look at zqword first."},
                        {"type": "thinking", "subtype": "completed"}, *_shell("c1", "cat notes", "zqword is here")))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        (notice,) = await _search(app, pilot, "zqword")
        assert "hidden thinking: t shows it" in notice and "call 1's detail has it" in notice, notice
        await pilot.press("t", "n")
        await settle(pilot)
        assert not isinstance(app.screen, DetailScreen)
        assert app._search_hits and app.session.blocks[app.transcript.highlight_block].kind == "thinking"


async def test_what_the_detail_writes_itself_and_its_raw_json_are_looked_in_as_shown():
    """(From a review.)  Words the detail makes ("(no output)") were not in the event's bytes, and
    a call shown as raw JSON (r) is looked in as that JSON ('"exitCode": 0', spaced)."""
    app = make_app(_run(*_shell("c1", "make quiet", "")))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        for query in ("no output", '"exitCode": 0'):
            raw = query.startswith('"')
            if raw:
                await pilot.press("r")
                await settle(pilot)
                assert app.detail.raw
            assert await _search(app, pilot, query) == [
                f"No match for '{query}' in the transcript; call 1's detail has it: n opens it"], query
            await pilot.press("n")
            await settle(pilot)
            view = app.screen.query_one(DetailView)
            assert view.raw == raw and view.hits, query
            await pilot.press("escape")
            await settle(pilot)


async def test_n_goes_through_found_calls_a_filter_hides():
    """(From a review.)  A filter hid the calls found: the list's selection could not move to
    them, and n opened the first one again and again."""
    app = make_app(sample("demo_session.ndjson"))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("s")  # (failed calls only: not 5 nor 14)
        await settle(pilot)
        assert app.timeline.status_filter == "failed" and not {4, 13} & set(app.timeline.rows)
        await _search(app, pilot, "def line_total")
        opened = []
        for _ in range(2):
            await pilot.press("n")
            await settle(pilot)
            opened.append(app.screen.query_one(DetailView).tool.index + 1)
            await pilot.press("escape")
            await settle(pilot)
        assert opened == [5, 14]


async def test_a_cleared_search_says_nothing_of_the_calls_it_was_looking_in(monkeypatch):
    """(From a review.)  x cleared the search, and the calls' look went on, and said
    "... n opens them", where n then said "No search yet".  And n while the look goes on says
    so, without starting it again."""
    import viewer.ui.app as app_module

    monkeypatch.setattr(app_module, "CALLS_SLICE_S", 0.0)
    monkeypatch.setattr(app_module, "CALLS_FIRST_S", 0.0)
    monkeypatch.setattr(app_module, "CALLS_GAP_S", 0.1)  # (18 calls: 1.8 s, not over before n, on a busy machine)
    app = make_app(sample("demo_session.ndjson"))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        app.run_search("def line_total")
        look = app._search_calls
        await pilot.press("n")
        assert app._search_calls is look and not look.done  # (not started again)
        assert any("Looking for 'def line_total' in the calls' output" in m for m in _notices(app))
        await pilot.press("x")
        await pilot.pause(0.5)
        await settle(pilot)
        assert app._search_calls is None and not look.done
        assert not [m for m in _notices(app) if "n opens" in m]


async def test_a_look_out_of_time_says_how_far_it_went(monkeypatch):
    """A look through many big calls that runs out of time said nothing more than "No match":
    as if no call had it.  It says how many calls it looked in."""
    import viewer.ui.app as app_module

    monkeypatch.setattr(app_module, "CALLS_SLICE_S", 0.0)
    monkeypatch.setattr(app_module, "CALLS_FIRST_S", 0.0)
    monkeypatch.setattr(app_module, "CALLS_TO_SEARCH_S", 0.1)
    app = make_app(sample("demo_session.ndjson"))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        app.run_search("nowhere at all")
        look = app._search_calls
        while not look.done:
            await pilot.pause(0.02)
        await settle(pilot)
        assert 1 < look.next < len(app.session.tools) and not look.found
        assert _notices(app)[-1] == (f"'nowhere at all' is not in the transcript, nor in the detail of its first "
                                     f"{look.next} calls (of 18: the rest was not looked in)")
        # In time: the look that said it was looking says it found nothing.
        monkeypatch.setattr(app_module, "CALLS_TO_SEARCH_S", 30.0)
        monkeypatch.setattr(app_module, "CALLS_GAP_S", 0.1)  # (18 calls: 1.8 s, on a busy machine too)
        app.run_search("nowhere else")
        look = app._search_calls
        await pilot.pause()
        assert _notices(app)[-1] == "No match for 'nowhere else' in the transcript; looking in the calls' detail…"
        while not look.done:
            await pilot.pause(0.02)
        await settle(pilot)
        assert look.whole and not look.found
        assert _notices(app)[-1] == "'nowhere else' is not in the transcript, nor in any call's detail"
        assert not [m for m in _notices(app) if "looking" in m]  # (it stood beside the one that tells)
