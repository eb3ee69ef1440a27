"""Helpers for UI tests: deterministic apps over sample streams."""

from __future__ import annotations

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


def make_replay_app(data: bytes, **replay_options):
    """A replay of ``data`` (paused unless ``playing=True``), frozen clock, as in make_app."""
    from viewer.core.feed import records_of
    from viewer.core.replay import Replay, schedule
    from viewer.ui.replay import ReplayApp

    records = records_of(data)
    replay = Replay(records, schedule(records), **{"playing": False, **replay_options})
    return ReplayApp(replay, BytesFeed(data, eof=False), clock=lambda: FIXED_CLOCK)


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
