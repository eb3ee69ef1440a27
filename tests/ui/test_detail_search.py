"""Search inside the full-screen detail of a call (/, n, N): a long file read or a command's
output is searched where it is, not only the transcript and the calls' summaries."""

from __future__ import annotations

import orjson
import pytest

from tests.ui.conftest import make_app, screen_rows, settle
from viewer.ui.render import MATCH_STYLE
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


def _marked(view) -> list[str]:
    """The rows on screen with a part drawn in the search's match style."""
    out = []
    for y in range(view.size.height):
        strip = view.render_line(y)
        if any(seg.style is not None and seg.style.bgcolor == MATCH_STYLE.bgcolor for seg in strip):
            out.append(strip.text)
    return out


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
            assert f"'needle': {k % 3 + 1} of 3, n N" in str(view.border_subtitle)
            await pilot.press("n")
            await pilot.pause()
        await pilot.press("N", "N")  # back from the second: the first, then round to the last
        await pilot.pause()
        assert any(f"# line {NEEDLES[2]} the NeedLe" in row for row in _marked(view))
        assert "'needle': 3 of 3, n N" in str(view.border_subtitle)


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
        notices = [str(n.message) for n in app._notifications]
        assert "No match for '[bold]zz' in this call." in notices, notices
        assert "'[bold]zz': no match" in screen_rows(app)  # (in the view's bottom border)


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


async def test_n_after_stepping_to_another_call_searches_that_call():
    app = make_app(_read_calls(lines=50, second="alpha\nbeta needle gamma\n"))
    async with app.run_test(size=(100, 30)) as pilot:
        view = await _open_first_call(app, pilot)
        await _search(pilot, "needle")
        await pilot.press("right_square_bracket")  # the second call
        await pilot.pause()
        assert view.tool.index == 1
        assert "n finds it here" in str(view.border_subtitle)
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
