"""A long text still being written is drawn in pieces, and exactly as it would be whole."""

from __future__ import annotations

import random

import orjson
import pytest

import viewer.ui.widgets.transcript as transcript_mod
from tests.ui.conftest import FIXED_CLOCK, settle
from viewer.core.feed import BytesFeed
from viewer.ui.app import AgentViewerApp

SID = "s-1"


def long_markdown(seed: int, size: int, link_definition: bool = False) -> str:
    """A model's long answer: paragraphs, headings, fenced code (with blank lines in it),
    lists tight and loose, tables, quotes, rules."""
    rnd = random.Random(seed)
    words = "the agent reads files runs tests edits `code()` with **bold** _it_ [a link](http://x.y) 3.5".split()

    def para(n: int) -> str:
        return " ".join(rnd.choice(words) for _ in range(n))

    parts = []
    while sum(map(len, parts)) < size:
        r = rnd.random()
        if r < 0.1:
            parts.append(rnd.choice(["# ", "## ", "### "]) + para(5))
        elif r < 0.2:
            parts.append("```python\n" + "\n\n".join(f"x = {i}  # {para(4)}" for i in range(6)) + "\n```")
        elif r < 0.3:
            parts.append("\n".join("- " + para(8) for _ in range(3)))
        elif r < 0.37:
            parts.append("\n\n".join(f"{i + 1}. " + para(8) for i in range(3)))
        elif r < 0.42:
            parts.append("| a | b |\n|---|---|\n| 1 | 2 |")
        elif r < 0.47:
            parts.append("> " + para(10))
        elif r < 0.5:
            parts.append("---")
        else:
            parts.append(para(rnd.randint(10, 70)))
    if link_definition:  # a definition at the end changes a link at the start
        parts.insert(0, "See [the docs][ref] first.")
        parts.append("[ref]: http://example.com/docs")
    return "\n\n".join(parts)


def _events(text: str, kind: str, step: int) -> list[bytes]:
    if kind == "assistant":
        make = lambda t: {"type": "assistant", "session_id": SID, "timestamp_ms": 1,  # noqa: E731
                          "message": {"role": "assistant", "content": [{"type": "text", "text": t}]}}
    else:
        make = lambda t: {"type": "thinking", "subtype": "delta", "session_id": SID, "text": t}  # noqa: E731
    return [orjson.dumps(make(text[i : i + step])) + b"\n" for i in range(0, len(text), step)]


def live_app() -> tuple[BytesFeed, AgentViewerApp]:
    clock = lambda: FIXED_CLOCK  # noqa: E731
    feed = BytesFeed(b"", live=True, eof=False, clock=clock)
    app = AgentViewerApp(feed, clock=clock)
    return feed, app


def push(feed: BytesFeed, lines: list[bytes]) -> None:
    feed._queue.put(feed.ingest.feed(b"".join(lines)))


def cells(strips) -> list[list[tuple[str, object]]]:
    """Each line as (character, style) pairs, so that two drawings split into segments
    differently compare equal when they look the same."""
    return [[(ch, seg.style) for seg in strip for ch in seg.text] for strip in strips]


def whole(app, index: int, width: int):
    """The block drawn whole, as it is once the text is complete."""
    t = app.transcript
    settle_from, transcript_mod.SETTLE_FROM = transcript_mod.SETTLE_FROM, float("inf")
    try:
        return t._strips(app.session, app.session.blocks[index], width)
    finally:
        transcript_mod.SETTLE_FROM = settle_from


@pytest.mark.parametrize("kind,link_definition", [("assistant", False), ("thinking", False), ("assistant", True)])
async def test_a_long_text_still_streaming_is_drawn_as_it_would_be_whole(kind, link_definition):
    text = long_markdown(7, 40_000, link_definition)
    lines = _events(text, kind, 97)
    init = orjson.dumps({"type": "system", "subtype": "init", "session_id": SID, "model": "m", "cwd": "/w"}) + b"\n"
    feed, app = live_app()
    async with app.run_test(size=(100, 40)) as pilot:
        app.transcript.set_show_thinking(True)
        push(feed, [init])
        await settle(pilot)
        steps = 0
        for n in (60, 150, 260, len(lines)):  # a few frames as the text grows
            push(feed, lines[steps:n])
            steps = n
            await settle(pilot)
            t = app.transcript
            index = next(i for i, b in enumerate(app.session.blocks) if b.kind == kind)
            block = app.session.blocks[index]
            assert block.open
            width = t._width
            strips = t._strips(app.session, block, width)
            # In pieces once it is long; whole once a link definition came (it may change
            # the links of any piece).
            pieces = len(block.text) >= transcript_mod.SETTLE_FROM and "[ref]:" not in block.text
            settled = t._pieces.get(id(block))
            assert (settled is not None and bool(settled.lines)) == pieces
            assert cells(strips) == cells(whole(app, index, width)), f"after {n} deltas"
        if link_definition:  # (drawn whole: the first line's link is one)
            assert "the docs (http://example.com/docs)" in "".join(s.text for s in strips)


async def test_a_long_message_streaming_draws_only_its_last_piece_again(monkeypatch):
    """A 64 KB message took 150 ms to draw, and it was drawn again at every frame while it
    streamed: the app fell to a few frames a second.  Only its last piece is drawn again."""
    monkeypatch.setattr(transcript_mod, "SLOW_DRAW", float("inf"))  # (drawn at every frame, however slow)
    text = long_markdown(3, 60_000)
    lines = _events(text, "assistant", 101)
    init = orjson.dumps({"type": "system", "subtype": "init", "session_id": SID, "model": "m", "cwd": "/w"}) + b"\n"
    feed, app = live_app()
    drawn_chars: list[int] = []
    real_markdown = transcript_mod.markdown

    def counting_markdown(source: str, style: str = "none"):
        drawn_chars.append(len(source))
        return real_markdown(source, style)

    async with app.run_test(size=(100, 40)) as pilot:
        push(feed, [init, *lines[:-10]])
        await settle(pilot)
        transcript_mod.markdown = counting_markdown
        try:
            for line in lines[-10:]:
                drawn_chars.clear()
                push(feed, [line])
                await settle(pilot)
                assert app.session.blocks[-1].open and len(app.session.blocks[-1].text) > 55_000
                assert drawn_chars and sum(drawn_chars) < 3 * transcript_mod.PIECE_CHARS, drawn_chars
        finally:
            transcript_mod.markdown = real_markdown
        # Once it is complete (the run ends), it is drawn whole, as before.
        feed._queue.put(feed.ingest.feed(orjson.dumps(
            {"type": "result", "subtype": "success", "session_id": SID, "result": text}) + b"\n"))
        await settle(pilot)
        index = next(i for i, b in enumerate(app.session.blocks) if b.kind == "assistant")
        assert not app.session.blocks[index].open
        assert not isinstance(app.transcript._render(app.session, app.session.blocks[index]),
                              transcript_mod._PiecedProse)


async def test_an_open_text_slow_to_draw_is_drawn_less_often_and_its_last_words_still_come(monkeypatch):
    """A long fenced code block still being written is one piece: it took 150 ms to draw, at
    every frame.  An open text slow to draw waits DRAW_SPACING times as long before it is
    drawn again; what came meanwhile is drawn then, even when nothing more comes."""
    import itertools

    import viewer.ui.widgets.blockview as blockview_mod

    ticks = itertools.count(0.0, 0.75)  # every drawing takes 0.75 s, by the clock that times them
    monkeypatch.setattr(blockview_mod, "perf_counter", lambda: next(ticks))
    fence = "```python\n" + "".join(f"value_{i} = compute({i})\n" for i in range(300))
    lines = _events(fence, "assistant", 50)
    init = orjson.dumps({"type": "system", "subtype": "init", "session_id": SID, "model": "m", "cwd": "/w"}) + b"\n"
    feed, app = live_app()
    async with app.run_test(size=(100, 40)) as pilot:
        push(feed, [init, *lines[:-1]])  # (its first drawing in pieces: not a slow frame)
        await settle(pilot)
        push(feed, lines[-1:])
        await settle(pilot)
        assert "value_299 = compute(299)" in _words(app)
        push(feed, _events("value_300 = LAST_WORDS\n", "assistant", 100))
        await pilot.pause(0.3)
        assert app.session.blocks[-1].text.endswith("LAST_WORDS\n")  # (applied, not yet drawn)
        assert "LAST_WORDS" not in _words(app)
        for _ in range(100):  # drawn 3 s (4 x 0.75 s) after the last drawing, with nothing more coming
            await pilot.pause(0.1)
            if "LAST_WORDS" in _words(app):
                break
        assert "LAST_WORDS" in _words(app)


def _words(app) -> str:
    t = app.transcript
    return " ".join("\n".join(t.render_line(y).text for y in range(t.size.height)).split())


async def test_a_message_still_written_ends_in_the_cursor_not_under_it():
    """(From a replay trial.)  The cursor sat on a line of its own under the text, which read as
    one line more of it; it goes at the end of the last line, as an editor draws it, unless that
    line is full or a code block's (whose background goes on to the edge)."""
    init = orjson.dumps({"type": "system", "subtype": "init", "session_id": SID, "model": "m", "cwd": "/w"}) + b"\n"
    feed, app = live_app()
    async with app.run_test(size=(100, 30)) as pilot:
        push(feed, [init, *_events("Running the **tests** now", "assistant", 7)])
        await settle(pilot)
        t = app.transcript
        index = next(i for i, b in enumerate(app.session.blocks) if b.kind == "assistant")
        rows = [s.text.rstrip() for s in t._render_strips(index, t._width)]
        assert rows == ["Running the tests now▍"], rows
        push(feed, _events("\n\n```python\nx = 1\n```", "assistant", 100))
        await settle(pilot)
        rows = [s.text.rstrip() for s in t._render_strips(index, t._width)]
        assert rows[-1] == "▍" and "x = 1" in rows[-3] and not any("▍" in row for row in rows[:-1]), rows
