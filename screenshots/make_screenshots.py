"""Regenerate the README screenshots from sample_streams/ (SVG, deterministic).

    python screenshots/make_screenshots.py

Each shot opens the headless app over a sample stream with a frozen clock,
presses a few keys and saves the screen as SVG next to this script.
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(REPO))

from viewer.core.feed import BytesFeed  # noqa: E402
from viewer.ui.app import AgentViewerApp  # noqa: E402

FIXED = 1_000.0

def select_edit(app) -> None:
    """Select the call that edited an existing file (it has a before/after diff)."""
    call = next(t for t in app.session.tools if t.label == "Edited file")
    app.timeline.follow = False
    app.timeline.select_tool(call.index)


def select_failed_shell(app) -> None:
    """Select the failing test run: its output keeps pytest's colours."""
    call = next(t for t in app.session.tools if t.label == "Ran terminal command" and t.status == "failed")
    app.timeline.follow = False
    app.timeline.select_tool(call.index)


# name, sample file, fraction of lines to feed (None: all), live, size, keys, setup
SHOTS = [
    ("demo-finished", "demo_session.ndjson", None, False, (140, 44), [], None),
    ("demo-live", "demo_session.ndjson", 0.55, True, (140, 44), [], None),
    ("tool-detail-edit", "demo_session.ndjson", None, False, (140, 44), [], select_edit),
    ("shell-output", "demo_session.ndjson", None, False, (140, 44), [], select_failed_shell),
    ("failed-run", "failed_run.ndjson", None, False, (120, 36), [], None),
    ("truncated-run", "truncated_run.ndjson", None, False, (120, 36), [], None),
    ("help", "demo_session.ndjson", None, False, (120, 36), ["question_mark"], None),
    ("narrow-80x24", "demo_session.ndjson", None, False, (80, 24), [], None),
    ("claude-code-run", "claude_code_run.ndjson", None, False, (140, 44), [], select_failed_shell),
    ("codex-run", "codex_run.ndjson", None, False, (140, 44), [], select_failed_shell),
    ("gemini-run", "gemini_run.ndjson", None, False, (140, 44), [], select_edit),
]


def cut(data: bytes, fraction: float | None) -> bytes:
    if fraction is None:
        return data
    lines = data.splitlines(keepends=True)
    return b"".join(lines[: int(len(lines) * fraction)])


async def shoot(name, sample, fraction, live, size, keys, setup) -> Path:
    data = cut((REPO / "sample_streams" / sample).read_bytes(), fraction)
    feed = BytesFeed(data, label=sample, live=live, eof=not live, clock=lambda: FIXED)
    app = AgentViewerApp(feed, clock=lambda: FIXED)
    async with app.run_test(size=size) as pilot:
        for _ in range(200):
            await pilot.pause(0.02)
            if app.loaded:
                break
        if setup is not None:
            setup(app)
            await pilot.pause()
        for key in keys:
            await pilot.press(key)
        await pilot.pause(0.1)
        out = HERE / f"{name}.svg"
        app.save_screenshot(str(out))
    return out


async def main() -> None:
    for shot in SHOTS:
        print(await shoot(*shot))


if __name__ == "__main__":
    asyncio.run(main())
