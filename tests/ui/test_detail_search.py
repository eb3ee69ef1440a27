"""Search inside the full-screen detail of a call (/, n, N): a long file read or a command's
output is searched where it is, not only the transcript and the calls' summaries."""

from __future__ import annotations

import unicodedata

import orjson
import pytest
from rich.cells import cell_len
from textual import events

from tests.ui.conftest import make_app, sample, screen_rows, settle
from viewer.ui.render import CURRENT_MATCH_STYLE, MATCH_STYLE
from viewer.ui.widgets.detail import LAZY_FROM

NEEDLES = (40, 1_500, 2_950)  # line numbers (1-based) of the file that hold the word


def _read_calls(lines: int = 3_000, pad: int = 0, second: str = "") -> bytes:
    """A run reading a file of ``lines`` lines (``pad`` more characters on each), with
    "NeedLe" on the lines NEEDLES; a second read whose content is ``second``."""
    sid = "s1"
    content = "\n".join(
        f"v{i} = {i}  # line {i}" + (" the NeedLe is here" if i in NEEDLES else "") + " y" * pad
        for i in range(1, lines + 1)
    )
    events = [{"type": "system", "subtype": "init", "session_id": sid, "model": "m", "cwd": "/proj"}]
    for cid, path, body in (("c1", "/proj/big.py", content), ("c2", "/proj/other.txt", second)):
        args = {"path": path}
        events += [
            {"type": "tool_call", "subtype": "started", "call_id": cid, "session_id": sid,
             "tool_call": {"readToolCall": {"args": args}}},
            {"type": "tool_call", "subtype": "completed", "call_id": cid, "session_id": sid,
             "tool_call": {"readToolCall": {"args": args, "result": {"success": {"content": body}}}}},
        ]
    events.append({"type": "result", "subtype": "success", "is_error": False, "result": "", "session_id": sid})
    return b"".join(orjson.dumps(e) + b"\n" for e in events)


def _rows(view) -> list[str]:
    return [view.render_line(y).text for y in range(view.size.height)]


def _marked(view, styles=(MATCH_STYLE, CURRENT_MATCH_STYLE)) -> list[str]:
    """The rows on screen with a part drawn in the search's match styles."""
    out = []
    for y in range(view.size.height):
        strip = view.render_line(y)
        if any(seg.style is not None and seg.style.bgcolor in [s.bgcolor for s in styles] for seg in strip):
            out.append(strip.text)
    return out


def _current(view) -> list[str]:
    """The rows on screen with the match gone to last."""
    return _marked(view, (CURRENT_MATCH_STYLE,))


async def _open_first_call(app, pilot):
    await settle(pilot)
    app.timeline.focus()
    await pilot.press("home", "enter")
    await pilot.pause()
    assert type(app.screen).__name__ == "DetailScreen"
    return app.screen.query_one("#zoom-detail")


async def _search(pilot, query: str) -> None:
    await pilot.press("slash", *query, "enter")
    await pilot.pause()


async def _search_pasted(pilot, query: str) -> None:
    await pilot.press("slash")
    pilot.app.screen.query_one("#zoom-search").post_message(events.Paste(query))
    await pilot.pause()
    await pilot.press("enter")
    await pilot.pause()


@pytest.mark.parametrize("pad", [0, 120], ids=["short lines", f"a body over {LAZY_FROM // 1024} KB"])
async def test_slash_finds_each_match_in_a_long_result_and_marks_it(pad):
    app = make_app(_read_calls(pad=pad))
    async with app.run_test(size=(100, 30)) as pilot:
        view = await _open_first_call(app, pilot)
        assert bool(view._rests) == bool(pad)  # (the body past LAZY_FROM is one block until seen)
        await _search(pilot, "needle")  # any case
        for k, expected in enumerate((*NEEDLES, NEEDLES[0])):  # n goes on, and wraps to the first
            marked = _marked(view)
            assert any(f"# line {expected} the NeedLe" in row for row in marked), (expected, marked)
            assert len(marked) == 1  # (the others are far away)
            turn = " (from the top)" if k == 3 else ""
            assert f"'needle': {k % 3 + 1} of 3{turn}, n N" in str(view.border_subtitle)
            assert len(_current(view)) == 1 and f"# line {expected} the NeedLe" in _current(view)[0]
            await pilot.press("n")
            await pilot.pause()
        await pilot.press("N", "N")  # back from the second: the first, then round to the last
        await pilot.pause()
        assert any(f"# line {NEEDLES[2]} the NeedLe" in row for row in _marked(view))
        assert "'needle': 3 of 3 (from the end), n N" in str(view.border_subtitle)


async def test_the_first_match_is_the_first_below_the_top_of_the_view():
    """As in less: a search from the middle of the text goes on from there."""
    app = make_app(_read_calls())
    async with app.run_test(size=(100, 30)) as pilot:
        view = await _open_first_call(app, pilot)
        view.scroll_to(y=1_000, animate=False, immediate=True, force=True)
        await pilot.pause()
        await _search(pilot, "NEEDLE")
        assert any(f"# line {NEEDLES[1]} the NeedLe" in row for row in _marked(view))


async def test_no_match_says_so_and_a_query_is_shown_as_typed():
    app = make_app(_read_calls(lines=50))
    async with app.run_test(size=(100, 30)) as pilot:
        view = await _open_first_call(app, pilot)
        top = _rows(view)
        await _search(pilot, "[bold]zz")
        assert _rows(view) == top  # not moved
        assert not app._notifications  # (said in the border: a notice covered it)
        assert "'[bold]zz': no match" in screen_rows(app)  # (in the view's bottom border)


async def test_slash_in_the_detail_pane_searches_that_call_full_screen():
    """(From a keyboard-only trial.)  / while reading a call's output in the detail pane
    searched the transcript and the calls' summaries, not the output being read."""
    app = make_app(_read_calls())
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        app.timeline.focus()
        await pilot.press("home")
        await settle(pilot)
        app.detail.focus()
        await _search(pilot, "needle")
        assert type(app.screen).__name__ == "DetailScreen"
        view = app.screen.query_one("#zoom-detail")
        assert "'needle': 1 of 3, n N" in str(view.border_subtitle)
        assert any(f"# line {NEEDLES[0]} the NeedLe" in row for row in _current(view))
        await pilot.press("escape", "escape")  # (the search, then the view)
        await pilot.pause()
        assert type(app.screen).__name__ != "DetailScreen" and app.timeline.search == ""


async def test_esc_closes_the_box_first_then_the_view():
    app = make_app(_read_calls(lines=50))
    async with app.run_test(size=(100, 30)) as pilot:
        view = await _open_first_call(app, pilot)
        await pilot.press("slash", "q", "n")  # typed into the box, not quit nor next match
        await pilot.pause()
        box = app.screen.query_one("#zoom-search")
        assert box.display and box.value == "qn"
        await pilot.press("escape")
        await pilot.pause()
        assert not box.display and app.focused is view and type(app.screen).__name__ == "DetailScreen"
        await pilot.press("escape")
        await pilot.pause()
        assert type(app.screen).__name__ != "DetailScreen"


async def test_esc_clears_a_search_made_in_the_view_before_closing_it_and_q_closes_at_once():
    """As in the panes, Esc clears the search first: it closed the view with its marks on."""
    app = make_app(_read_calls(lines=50))
    async with app.run_test(size=(100, 30)) as pilot:
        view = await _open_first_call(app, pilot)
        await _search(pilot, "needle")
        assert _marked(view) and "'needle': 1 of 1" in str(view.border_subtitle)
        await pilot.press("escape")
        await pilot.pause()
        assert type(app.screen).__name__ == "DetailScreen"
        assert not _marked(view) and "needle" not in str(view.border_subtitle)
        await pilot.press("escape")
        await pilot.pause()
        assert type(app.screen).__name__ != "DetailScreen"
        await _open_first_call(app, pilot)
        await _search(pilot, "needle")
        await pilot.press("q")
        await pilot.pause()
        assert type(app.screen).__name__ != "DetailScreen"


async def test_n_after_stepping_to_another_call_searches_that_call():
    app = make_app(_read_calls(lines=50, second="alpha\nbeta needle gamma\n"))
    async with app.run_test(size=(100, 30)) as pilot:
        view = await _open_first_call(app, pilot)
        await _search(pilot, "needle")
        await pilot.press("right_square_bracket")  # the second call
        await pilot.pause()
        assert view.tool.index == 1
        assert "n searches this call" in str(view.border_subtitle)
        await pilot.press("n")
        await pilot.pause()
        assert any("beta needle gamma" in r for r in _marked(view)), _marked(view)
        assert "'needle': 1 of 1" in str(view.border_subtitle)


async def test_n_before_any_search_says_how_to_search():
    app = make_app(_read_calls(lines=50))
    async with app.run_test(size=(100, 30)) as pilot:
        await _open_first_call(app, pilot)
        await pilot.press("n")
        await pilot.pause()
        assert "No search yet: / searches this call." in [str(n.message) for n in app._notifications]


WORDS = "alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu".split()


def _long_lines(n: int, every: int) -> list[str]:
    """``n`` lines wider than the window (they wrap), with NEEDLE000, NEEDLE001, … on every
    ``every``-th line, at a place that moves along the line."""
    out, k = [], 0
    for i in range(n):
        words = [WORDS[(i * 7 + j) % len(WORDS)] for j in range(30)]
        if i % every == 5:
            words.insert((i * 3) % 30, f"NEEDLE{k:03d}")
            k += 1
        out.append(" ".join(words))
    return out


KINDS = {  # a call of each kind of body: its key, arguments and result
    "code": lambda lines: ("readToolCall", {"path": "/p/a.py"}, {"success": {"content": "\n".join(lines)}}),
    "text": lambda lines: ("readToolCall", {"path": "/p/a.txt"}, {"success": {"content": "\n".join(lines)}}),
    "terminal": lambda lines: ("shellToolCall", {"command": "x"}, {"success": {
        "stdout": "\n".join(f"\x1b[31m{line}\x1b[0m" for line in lines), "exitCode": 0}}),
    "diff": lambda lines: ("editToolCall", {"path": "/p/a.py"}, {"success": {
        "diffString": "\n".join(("+" if i % 2 else "-") + line for i, line in enumerate(lines))}}),
    "json": lambda lines: ("fooToolCall", {"x": lines}, {"success": {"y": 1}}),
}


def _one_call(key: str, args: dict, result: dict) -> bytes:
    sid = "s1"
    events = [
        {"type": "system", "subtype": "init", "session_id": sid, "model": "m", "cwd": "/proj"},
        {"type": "tool_call", "subtype": "started", "call_id": "c", "session_id": sid, "tool_call": {key: {"args": args}}},
        {"type": "tool_call", "subtype": "completed", "call_id": "c", "session_id": sid,
         "tool_call": {key: {"args": args, "result": result}}},
        {"type": "result", "subtype": "success", "is_error": False, "result": "", "session_id": sid},
    ]
    return b"".join(orjson.dumps(e) + b"\n" for e in events)


@pytest.mark.parametrize("kind", list(KINDS))
async def test_each_match_is_a_third_down_the_view_in_every_kind_of_body(kind):
    """Wrapped lines, line numbers, colours, a diff, indented JSON: n puts each match's row a
    third of the way down (the rows before it in its chunk are drawn to count them)."""

    app = make_app(_one_call(*KINDS[kind](_long_lines(600, 97))))  # (7 matches, over 6 chunks)
    async with app.run_test(size=(100, 30)) as pilot:
        view = await _open_first_call(app, pilot)
        third = view.scrollable_content_region.height // 3
        await _search(pilot, "needle")
        assert len(view.hits) == 7
        for k in range(7):
            rows = _rows(view)
            at = [y for y, row in enumerate(rows) if f"NEEDLE{k:03d}" in row]
            assert at and abs(at[0] - third) <= 1, (k, at, third)
            assert _current(view) == [rows[at[0]]], (k, _current(view))  # (not the row above: its word wraps whole)
            if kind == "json":  # (a chunk of JSON ended with a blank row: one every 100 lines)
                assert "" not in [r.strip(" │") for r in rows], rows
            await pilot.press("n")
            await pilot.pause()


async def test_a_match_in_a_wrapped_argument_is_marked_on_the_row_it_is_drawn_on():
    """A call's arguments wrap under their values (not at column 0): n marks each match on the
    row it is drawn on, a continuation row as well."""
    args = {}
    for i in range(10):
        words = [WORDS[(i * 5 + j) % len(WORDS)] for j in range(40)]
        if i in (2, 5, 8):
            words.insert(20 + i, f"NEEDLE{i:03d}")
        args[f"arg{i}"] = " ".join(words)
    app = make_app(_one_call("fooToolCall", args, {"success": {"y": 1}}))
    async with app.run_test(size=(100, 30)) as pilot:
        view = await _open_first_call(app, pilot)
        await _search(pilot, "needle")
        assert len(view.hits) == 3
        for i in (2, 5, 8):
            rows = _rows(view)
            at = [row for row in rows if f"NEEDLE{i:03d}" in row]
            first = next(row for row in rows if row.strip(" │").startswith(f"arg{i} "))
            value_at = first.index(" " + WORDS[(i * 5) % len(WORDS)]) + 1
            assert at and not at[0][:value_at].strip(" │") and at[0][value_at] != " ", at  # under the value
            assert _current(view) == at, (i, _current(view))
            await pilot.press("n")
            await pilot.pause()


async def test_the_first_match_is_below_the_top_within_a_chunk_too():
    """(From a code review.)  A chunk holds up to 100 lines: with the top of the view inside
    one, a match in it above the top was gone to (up), not the next one below."""
    from viewer.ui.render import CHUNK_LINES

    content = "\n".join(f"line {i}" + (" NEEDLE" if i in (3, 60) else "") for i in range(1, 400))
    app = make_app(_one_call("readToolCall", {"path": "/p/a.txt"}, {"success": {"content": content}}))
    async with app.run_test(size=(100, 30)) as pilot:
        view = await _open_first_call(app, pilot)
        assert CHUNK_LINES > 60  # (both matches in one chunk)
        for y in range(200):  # line 30 at the top of the view
            view.scroll_to(y=y, animate=False, immediate=True, force=True)
            if " line 30" in view.render_line(0).text:
                break
        await pilot.pause()
        assert " line 30" in _rows(view)[0]
        await _search(pilot, "needle")
        assert any("line 60 NEEDLE" in row for row in _marked(view)), _rows(view)


async def test_n_goes_on_from_the_match_shown_when_the_call_is_drawn_again():
    """(From a code review.)  The call drawn again (a new theme; its completion) made n search
    it again from the top of the view, where the match already shown was: n stayed there."""
    app = make_app(_read_calls())
    async with app.run_test(size=(100, 30)) as pilot:
        view = await _open_first_call(app, pilot)
        await _search(pilot, "needle")
        await pilot.press("n")  # the second
        await pilot.pause()
        app.theme = "textual-light"
        await pilot.pause()
        await pilot.pause()
        await pilot.press("n")
        await pilot.pause()
        assert any(f"# line {NEEDLES[2]} the NeedLe" in row for row in _marked(view)), _marked(view)
        assert "'needle': 3 of 3" in screen_rows(app)


async def test_a_search_with_too_many_matches_says_only_the_first_are_listed():
    app = make_app(_read_calls(lines=12_000))
    async with app.run_test(size=(100, 30), notifications=True) as pilot:
        await _open_first_call(app, pilot)
        await _search(pilot, "line")
        notices = [str(n.message) for n in app._notifications]
        assert "Only the first 10,000 matches are listed: n and N go through those (a longer search finds fewer)." in notices
        assert "'line': 1 of 10,000+" in str(app.screen.query_one("#zoom-detail").border_subtitle)


async def test_esc_closes_a_search_box_that_lost_the_focus_before_the_view():
    """(From a code review.)  A click in the view with the box open, then Esc: the whole view
    closed.  And the footer does not offer / while the box is typed in."""
    app = make_app(_read_calls(lines=50))
    async with app.run_test(size=(100, 30)) as pilot:
        view = await _open_first_call(app, pilot)
        await pilot.press("slash")
        await pilot.pause()
        assert "/ Search" not in screen_rows(app).splitlines()[-1]
        view.focus()
        await pilot.pause()
        await pilot.press("escape")
        await pilot.pause()
        assert type(app.screen).__name__ == "DetailScreen" and not app.screen.query_one("#zoom-search").display


async def test_the_palette_over_the_full_screen_detail_offers_its_own_commands():
    """(From a new-user trial.)  Ctrl+P, Search over the full-screen detail opened the main
    screen's search box, hidden under it: the keys went into a box no one could see."""
    app = make_app(_read_calls(lines=50))
    async with app.run_test(size=(100, 30)) as pilot:
        await _open_first_call(app, pilot)
        commands = {c.title: c for c in app.get_system_commands(app.screen)}
        assert {"Search this call", "Next match", "Next call", "Toggle raw JSON", "Close"} <= set(commands)
        assert "Search" not in commands and not any(t.startswith("Filter") for t in commands)
        # (From a trial: Maximize did nothing there, then it took two Escs to close it.)
        assert "Maximize" not in commands and "Minimize" not in commands
        commands["Search this call"].callback()
        await pilot.pause()
        assert app.focused is app.screen.query_one("#zoom-search")


async def test_lines_with_letters_whose_lower_case_is_longer_are_found_and_marked():
    """(From a new-user trial.)  A line with ß, İ or ﬁ: its matches were counted but never
    marked, and a query with such a letter found nothing."""
    text = "alpha HOME\nStraße beta HOME\nİstanbul ﬁle HOME\nerr ß HOME\nomega"
    app = make_app(_one_call("readToolCall", {"path": "/p/a.txt"}, {"success": {"content": text}}))
    async with app.run_test(size=(100, 30)) as pilot:
        view = await _open_first_call(app, pilot)
        await _search(pilot, "home")
        assert len(view.hits) == 4 and _marked_words(view) == ["HOME"] * 4, _marked_words(view)
        for query, word in (("straße", "Straße"), ("ﬁle", "ﬁle"), ("İSTANBUL", "İstanbul"), ("istanbul", None)):
            await _search(pilot, query)
            assert _marked_words(view) == ([word] if word else []), (query, _marked_words(view))


def _marked_words(view) -> list[str]:
    """The text drawn in the match styles, a string per run of marked cells."""
    words, styles = [], (MATCH_STYLE.bgcolor, CURRENT_MATCH_STYLE.bgcolor)
    for y in range(view.size.height):
        run = ""
        for seg in view.render_line(y):
            if seg.style is not None and seg.style.bgcolor in styles:
                run += seg.text
            elif run:
                words.append(run)
                run = ""
        if run:
            words.append(run)
    return words


async def test_the_match_gone_to_stays_on_screen_when_the_window_is_resized():
    """(From a new-user trial.)  After a resize the lines above the match wrapped anew, and it
    was scrolled out of view while the border still said which match it was."""
    app = make_app(_one_call(*KINDS["text"](_long_lines(1_200, 97))))
    async with app.run_test(size=(120, 40)) as pilot:
        view = await _open_first_call(app, pilot)
        await _search(pilot, "needle")
        for _ in range(4):
            await pilot.press("n")
        await pilot.pause()
        assert any("NEEDLE004" in row for row in _current(view))
        for size in ((60, 20), (100, 30), (120, 40)):
            await pilot.resize_terminal(*size)
            await pilot.pause()
            await pilot.pause()
            assert any("NEEDLE004" in row for row in _current(view)), (size, _rows(view))
        # Taller, the match still in view where it was: the view stays put (a review: it jumped
        # to put the match a third of the way down again)
        await pilot.press("j", "j", "j", "j", "j")
        await pilot.pause()
        top = view.scroll_offset.y
        await pilot.resize_terminal(120, 46)
        await pilot.pause()
        await pilot.pause()
        assert view.scroll_offset.y == top and any("NEEDLE004" in row for row in _current(view))
        await pilot.press("n")
        await pilot.pause()
        assert any("NEEDLE005" in row for row in _current(view))


async def test_a_match_near_the_bottom_of_an_unscrolled_view_stays_on_screen_when_it_gets_lower():
    """(From a trial.)  A match low in a view at its top (no scrolling needed to show it): a
    smaller window kept the view's top, and the match was below its bottom row."""
    from tests.ui.conftest import sample

    app = make_app(sample("claude_code_run.ndjson"))
    async with app.run_test(size=(120, 40)) as pilot:
        view = await _open_first_call(app, pilot)
        await _search(pilot, "Decimal")
        await pilot.press("n")
        await pilot.pause()
        assert view.scroll_offset.y == 0 and view._current_line > 20 and _current(view)
        await pilot.resize_terminal(70, 22)
        await pilot.pause()
        await pilot.pause()
        assert _current(view), _rows(view)


async def test_a_narrow_border_keeps_the_match_count_and_drops_the_keys():
    """(From a new-user trial.)  At 64 columns the count was cut ("1 of 5…" for 52), at 40 gone."""
    app = make_app(_read_calls())
    async with app.run_test(size=(64, 30)) as pilot:
        view = await _open_first_call(app, pilot)
        await _search(pilot, "needle")
        subtitle = str(view.border_subtitle)
        assert subtitle.endswith("'needle': 1 of 3, n N") and "] [" not in subtitle, subtitle
        assert "1 of 3, n N" in screen_rows(app)


async def _scroll_to_line(view, pilot, line: int) -> None:
    """Scroll until the top row shows the file's line ``line`` (heights below are estimates)."""
    import re

    y = line
    for _ in range(10):
        view.scroll_to(y=y, animate=False, immediate=True, force=True)
        await pilot.pause()
        shown = re.search(r"# line (\d+)", view.render_line(0).text)
        if shown and int(shown.group(1)) == line:
            return
        y += line - int(shown.group(1)) if shown else 1
    raise AssertionError(_rows(view))


async def test_n_after_the_match_was_scrolled_away_goes_on_from_the_view():
    """(From a new-user trial.)  Search, End, n: it went back to the match after the one shown
    before, at the top; as in less, it goes on from the screen."""
    app = make_app(_read_calls())
    async with app.run_test(size=(100, 30)) as pilot:
        view = await _open_first_call(app, pilot)
        await _search(pilot, "needle")  # the first, line 40
        await _scroll_to_line(view, pilot, 1_700)  # past the second, line 1500
        await pilot.press("n")
        await pilot.pause()
        assert any(f"# line {NEEDLES[2]} the NeedLe" in row for row in _current(view)), _rows(view)
        await _scroll_to_line(view, pilot, 1_700)
        await pilot.press("N")
        await pilot.pause()
        assert any(f"# line {NEEDLES[1]} the NeedLe" in row for row in _current(view)), _rows(view)


@pytest.mark.parametrize("searched", [True, False], ids=["after a search", "no search"])
async def test_the_view_does_not_move_when_a_new_theme_comes_with_the_match_above_it(searched):
    """(From a code review.)  Paging down past the match, then a new theme: finding the match's
    line measured its block, above the view, and the text jumped under a still view.  Without
    a search too: the block at the top, estimated again, was shorter than the place in it."""
    app = make_app(_one_call(*KINDS["text"](_long_lines(500, 97))))
    app.animation_level = "none"  # (each page down is animated: 6 s of the test's 7)
    async with app.run_test(size=(120, 40)) as pilot:
        view = await _open_first_call(app, pilot)
        if searched:
            await _search(pilot, "needle")
            await pilot.press("n", "n")
        for _ in range(8):
            await pilot.press("pagedown")
        await pilot.pause()
        before = [r.strip() for r in _rows(view)]
        app.theme = "textual-light"
        await pilot.pause()
        await pilot.pause()
        assert [r.strip() for r in _rows(view)] == before


async def test_of_two_matches_on_a_row_only_the_one_gone_to_is_drawn_as_current():
    content = "a\nfoo NEEDLE bar NEEDLE baz\nb"
    app = make_app(_one_call("readToolCall", {"path": "/p/a.txt"}, {"success": {"content": content}}))
    async with app.run_test(size=(100, 30)) as pilot:
        view = await _open_first_call(app, pilot)
        await _search(pilot, "needle")

        def current_column() -> list[int]:
            cols = []
            for y in range(view.size.height):
                x = 0
                for seg in view.render_line(y):
                    if seg.style is not None and seg.style.bgcolor == CURRENT_MATCH_STYLE.bgcolor:
                        cols.append(x)
                    x += len(seg.text)
            return cols

        first = current_column()
        await pilot.press("n")
        await pilot.pause()
        second = current_column()
        assert len(first) == len(second) == 1 and second[0] - first[0] == len("NEEDLE bar "), (first, second)


async def test_back_on_a_call_after_another_n_goes_on_from_the_top():
    """(From a code review.)  ] then [: the view was at the top, the border still said 2 of 3,
    and n went to the first."""
    app = make_app(_read_calls(second="beta"))
    async with app.run_test(size=(100, 30)) as pilot:
        view = await _open_first_call(app, pilot)
        await _search(pilot, "needle")
        await pilot.press("n")
        await pilot.press("right_square_bracket", "left_square_bracket")
        await pilot.pause()
        await pilot.pause()
        assert "'needle': 3 matches, n N" in str(view.border_subtitle), str(view.border_subtitle)
        await pilot.press("n")
        await pilot.pause()
        assert "'needle': 1 of 3" in str(view.border_subtitle)


async def test_a_big_result_is_folded_for_searches_while_the_view_waits(monkeypatch):
    """The first search of a 10 MB result took 100 ms to the next frame, most of it lowering
    the text: the full-screen view does it a piece at a time, between frames, before the
    search is typed.  The matches are the same."""
    from viewer.ui.widgets import detail

    monkeypatch.setattr(detail, "FOLD_PIECE", 4096)
    app = make_app(_read_calls(lines=3_000))  # (about 100 KB: 25 pieces)
    async with app.run_test(size=(100, 30)) as pilot:
        view = await _open_first_call(app, pilot)
        body = next(b.body for b in view._blocks if isinstance(b, (detail._Chunk, detail._Rest)) and len(b.body) > 4096)
        for _ in range(100):
            await pilot.pause(0.02)
            entry = view._folded.get(id(body))
            if entry and sum(map(len, entry[1])) == len(body):
                break
        entry = view._folded.get(id(body))
        assert entry and len(entry[1]) > 10 and sum(map(len, entry[1])) == len(body)
        await _search(pilot, "needle")
        assert len(view.hits) == 3 and "'needle': 1 of 3, n N" in str(view.border_subtitle)


def _shell_call(command: str, stdout: str, exit_code: int) -> bytes:
    """A run of one shell call that printed ``stdout``."""
    sid, args = "s1", {"command": command}
    events = [
        {"type": "system", "subtype": "init", "session_id": sid, "model": "m", "cwd": "/p"},
        {"type": "tool_call", "subtype": "started", "call_id": "c1", "session_id": sid,
         "tool_call": {"shellToolCall": {"args": args}}},
        {"type": "tool_call", "subtype": "completed", "call_id": "c1", "session_id": sid,
         "tool_call": {"shellToolCall": {"args": args, "result": {"success": {
             "exitCode": exit_code, "stdout": stdout, "stderr": ""}}}}},
    ]
    return b"".join(orjson.dumps(e) + b"\n" for e in events)


async def test_a_search_does_not_count_what_a_commands_colour_codes_hide():
    """(From a code review.)  In pytest's coloured output, /32m found "1 of 1" inside
    "\\x1b[32m", which the screen draws as green, and n went there: nothing showed it."""
    out = "\x1b[32m3 passed\x1b[0m, \x1b[31m1 failed\x1b[0m in 0.12s; 32m in all\n"
    app = make_app(_shell_call("pytest -q", out, exit_code=1))
    async with app.run_test(size=(100, 30)) as pilot:
        view = await _open_first_call(app, pilot)
        await _search(pilot, "32m")
        await settle(pilot)
        shown = out.removesuffix("\n")  # (its last newline ends its last line)
        in_output = [at for body, at in view.hits if body == shown]
        assert in_output == [out.index("32m in all")]  # the one drawn (the summary above has one too)
        await pilot.press("slash", *"passed", "enter")  # (text between codes is found)
        await settle(pilot)
        assert [at for body, at in view.hits if body == shown] == [out.index("passed")]


async def test_a_search_that_colour_codes_fill_to_the_cap_says_it_is_capped():
    """(From a review of this session's change.)  Matches inside colour codes counted toward
    the cap and were dropped after it: later matches that showed were never looked for, and
    the border did not say the list was cut."""
    out = "".join(f"tests/test_a.py::test_{i} \x1b[32mPASSED\x1b[0m\n" for i in range(12_000))
    visible = sum(str(i).count("32") for i in range(12_000))  # "32" as drawn: in the test numbers only
    app = make_app(_shell_call("pytest -v", out, exit_code=0))
    async with app.run_test(size=(100, 30)) as pilot:
        view = await _open_first_call(app, pilot)
        await _search(pilot, "32")
        await settle(pilot)
        in_output = [at for body, at in view.hits if body == out.removesuffix("\n")]
        assert len(in_output) == visible or view.hits_capped


def _current_places(view) -> list[tuple[int, int]]:
    """Where the match gone to last is on screen: (row, column) of each of its runs of cells."""
    places = []
    for y in range(view.size.height):
        x, was = 0, False
        for seg in view.render_line(y):
            now = seg.style is not None and seg.style.bgcolor == CURRENT_MATCH_STYLE.bgcolor
            if now and not was:
                places.append((y, x))
            was = now
            x += cell_len(seg.text)
    return places


async def test_two_matches_on_the_title_row_are_both_counted_and_gone_to():
    """(From a tester.)  /合计 in a command that said it twice: 8 matches were marked, the
    border said "1 of 7", and n never went to the second on the title row (a row of the call's
    heading and facts counted once, whatever it held)."""
    app = make_app(_shell_call("python -m pytest -q tests/测试_合计.py -k '含税合计'", "1 failed: test_含税合计\n",
                               exit_code=1))
    async with app.run_test(size=(120, 30)) as pilot:
        view = await _open_first_call(app, pilot)
        await _search(pilot, "合计")
        marked = _marked_words(view)
        assert marked == ["合计"] * 6, marked  # the title and the command (twice each), the message, the output
        assert len(view.hits) == 6 and "'合计': 1 of 6, n N" in str(view.border_subtitle)
        places = []
        for k in range(6):
            places += _current_places(view)
            assert len(places) == k + 1, places
            await pilot.press("n")
            await pilot.pause()
        assert len(set(places)) == 6 and places[0][0] == places[1][0], places  # each once; two on the title's row
        assert "'合计': 1 of 6 (from the top), n N" in str(view.border_subtitle)


@pytest.mark.parametrize("pad", [0, 120], ids=["short lines", f"a body over {LAZY_FROM // 1024} KB"])
async def test_a_word_is_found_however_its_accents_are_written(pad, monkeypatch):
    """(From a tester.)  "café" written as e and a combining accent (U+0301, as macOS writes file
    names) was not found by /café, with é one letter, nor the other way round: text the same
    under canonical equivalence is found, counted, gone to and marked, its accent with it (a
    big body too, made ready for searches a piece at a time)."""
    from viewer.ui.widgets import detail

    monkeypatch.setattr(detail, "FOLD_PIECE", 4096)
    nfd, nfc = "cafe\u0301", "caf\u00e9"
    words = {40: f"{nfd} au lait", 1_500: f"un {nfc}", 2_950: f"Re\u0301sume\u0301 {nfd.upper()}"}
    content = "\n".join(f"v{i} = {i}  # line {i} " + words.get(i, "") + " y" * pad for i in range(1, 3_001))
    app = make_app(_one_call("readToolCall", {"path": "/p/a.txt"}, {"success": {"content": content}}))
    async with app.run_test(size=(100, 30)) as pilot:
        view = await _open_first_call(app, pilot)
        for query in (nfc, nfd.upper()):
            await _search_pasted(pilot, query)  # (a combining mark is not a key: it comes pasted)
            assert len(view.hits) == 3, (query, view.hits)
            for k, (line, word) in enumerate(((40, nfd), (1_500, nfc), (2_950, nfd.upper()))):
                assert f"'{unicodedata.normalize('NFC', query)}': {k + 1} of 3" in str(view.border_subtitle)
                assert any(f"# line {line} " in row for row in _current(view)), (query, line, _rows(view))
                # (its accent with it: drawn composed, the same to see)
                assert _marked_words(view) == [unicodedata.normalize("NFC", word)], (query, _marked_words(view))
                await pilot.press("n")
                await pilot.pause()


async def test_a_notice_over_the_full_screen_detail_leaves_its_match_count_in_view():
    """A notice (a copy, say) stood over the view's bottom border, where the search says where
    it is and how many matches there are: it stands above it."""
    app = make_app(sample("demo_session.ndjson"))
    async with app.run_test(size=(100, 30), notifications=True) as pilot:
        view = await _open_first_call(app, pilot)
        await _search(pilot, "a")
        place = str(view.border_subtitle)
        assert " of " in place, place
        app.notify("A notice of some length, as a copy's is", timeout=30)
        await settle(pilot)
        border = screen_rows(app).splitlines()[view.region.bottom - 1]
        assert place in border, border


async def test_every_match_in_a_coloured_output_is_marked_when_gone_to():
    """(From a trial: in pytest's coloured output, n counted "2 of 6" and no match showed as
    the one gone to: on a line after a blank one, which the colours' decoder dropped when it
    ended what came before, so the match's row was counted one short.)"""
    app = make_app(sample("demo_session.ndjson"))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        app.timeline.focus()
        app.timeline.select_tool(3)  # (call 4: python -m pytest -q --color=yes)
        await pilot.press("enter")
        await settle(pilot)
        view = app.screen.query_one("#zoom-detail")
        await _search(pilot, "AssertionError")
        await settle(pilot)
        assert len(view.hits) == 6
        for n in range(6):
            current = _current(view)
            assert len(current) == 1 and "AssertionError" in current[0], (n, current)
            await pilot.press("n")
            await settle(pilot)
