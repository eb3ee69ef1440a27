"""Helpers for UI tests: deterministic apps over sample streams."""

from __future__ import annotations

import html
import re
from pathlib import Path

import pytest

from viewer.core.feed import BytesFeed
from viewer.ui.app import AgentViewerApp

REPO = Path(__file__).resolve().parents[2]
SAMPLES = REPO / "sample_streams"
FIXED_CLOCK = 1_000.0


def sample(name: str) -> bytes:
    return (SAMPLES / name).read_bytes()


def first_lines(data: bytes, n: int) -> bytes:
    return b"".join(data.splitlines(keepends=True)[:n])


def make_app(data: bytes, *, label: str = "stream", live: bool = False, eof: bool = True) -> AgentViewerApp:
    """An app over ``data`` with a frozen clock (no ticking time, fixed spinner)."""
    clock = lambda: FIXED_CLOCK  # noqa: E731
    feed = BytesFeed(data, label=label, live=live, eof=eof, clock=clock)
    return AgentViewerApp(feed, clock=clock)


def make_replay_app(data: bytes, *, read: bool = True, checkpoint_every: int = 2000, **replay_options):
    """A replay of ``data`` (paused unless ``playing=True``), frozen clock, as in make_app.
    As ``--replay`` plays a file: from a :class:`FileIndex`, here read to the end first
    (``read=False``: not read at all; the test reads it).  ``checkpoint_every``: copies of the
    model every so many records, as a big file has them."""
    from viewer.core.replay import FileIndex, Replay
    from viewer.core.sources import MemoryStore
    from viewer.ui.replay import ReplayApp

    feed = BytesFeed(data, eof=False)
    index = FileIndex(MemoryStore(data), len(data), checkpoint_every=checkpoint_every)
    if read:
        index.read()
    replay = Replay(index=index, **{"playing": False, **replay_options})
    return ReplayApp(replay, feed, clock=lambda: FIXED_CLOCK, start_reading=read)


def screen_rows(app) -> str:
    """The whole screen (modal screens too) as plain text, a line per row."""
    rows: dict[float, list[tuple[float, str]]] = {}
    for x, y, t in re.findall(r'<text class="[^"]*" x="([\d.]+)" y="([\d.]+)"[^>]*>(.*?)</text>',
                              app.export_screenshot()):
        rows.setdefault(float(y), []).append((float(x), html.unescape(t).replace("\xa0", " ")))
    return "\n".join("".join(t for _, t in sorted(r)) for _, r in sorted(rows.items()))


async def settle(pilot, timeout: float = 10.0) -> None:
    """Wait until everything that arrived is applied and drawn."""
    app = pilot.app
    waited = 0.0
    await pilot.pause()
    while not app.loaded and waited < timeout:
        await pilot.pause(0.02)
        waited += 0.02
    await pilot.pause()
    await pilot.pause()


@pytest.fixture(autouse=True)
def _no_animations(monkeypatch):
    monkeypatch.setenv("TEXTUAL_ANIMATIONS", "none")
    # (Run inside tmux, a copy's notice says what tmux's set-clipboard is: see the test of it.)
    monkeypatch.delenv("TMUX", raising=False)


@pytest.fixture(autouse=True)
def _calls_looked_in_within_the_key_press(monkeypatch):
    """A search that finds nothing in the transcript looks in the calls' detail, its first
    slice (5 ms) in the key press: the demo's 18 calls take 1 ms, but not always in a loaded
    suite (four processes on two cores), and a test then read what was said before the look
    ended.  Tests of the slices set their own."""
    import viewer.ui.app as app_module

    monkeypatch.setattr(app_module, "CALLS_FIRST_S", 5.0)
