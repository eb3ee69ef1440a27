"""The headless app over random and mutated real streams: no crash, every line accounted for."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from tests.ui.conftest import make_app, settle

REPO = Path(__file__).resolve().parents[2]
SOURCES = sorted((REPO / "sample_streams").glob("*.ndjson")) + sorted(
    (REPO.parent / "shared" / "real_streams" / "cursor").glob("*.ndjson")
)


def mutate(data: bytes, rng: random.Random) -> bytes:
    lines = data.splitlines(keepends=True)
    for _ in range(rng.randint(1, 12)):
        if not lines:
            break
        i = rng.randrange(len(lines))
        op = rng.choice(["flip", "cut", "dup", "drop", "split", "garbage", "swap", "nul"])
        line = lines[i]
        if op == "flip" and line:
            j = rng.randrange(len(line))
            line = line[:j] + bytes([rng.randrange(256)]) + line[j + 1 :]
        elif op == "cut":
            line = line[: rng.randrange(len(line) + 1)]
        elif op == "dup":
            lines.insert(i, line)
        elif op == "drop":
            line = b""
        elif op == "split" and len(line) > 2:
            j = rng.randrange(1, len(line) - 1)
            line = line[:j] + b"\n" + line[j:]
        elif op == "garbage":
            line = bytes(rng.randrange(256) for _ in range(rng.randrange(1, 80))) + b"\n"
        elif op == "swap" and len(lines) > 1:
            k = rng.randrange(len(lines))
            lines[k], line = line, lines[k]
        elif op == "nul":
            line = line.replace(b":", b":\x00", 1)
        lines[i] = line
    return b"".join(lines)


CASES = [(i, SOURCES[i % len(SOURCES)].name) for i in range(12)] if SOURCES else []


@pytest.mark.parametrize("seed,name", CASES, ids=[f"{n}-{s}" for s, n in CASES])
async def test_app_survives_mutated_streams(seed, name):
    rng = random.Random(seed)
    source = next(p for p in SOURCES if p.name == name)
    data = mutate(source.read_bytes(), rng)
    app = make_app(data)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        # Poke at everything a user can reach.
        for key in ["up", "enter", "escape", "r", "t", "tab", "s", "c", "x", "h", "escape",
                    "less_than_sign", "greater_than_sign", "slash", "a", "enter", "n"]:
            await pilot.press(key)
        await pilot.pause()
        assert app.is_running
        m = app.model
        dec = app.feed.ingest.decoder
        assert m.lines_in_events + len(m.malformed) + dec.blank_lines == dec.lines_seen
        assert dec.lines_seen == len(data.split(b"\n")) - (1 if data.endswith(b"\n") else 0) or not data


async def test_random_bytes_stream():
    rng = random.Random(7)
    data = bytes(rng.randrange(256) for _ in range(20_000))
    app = make_app(data)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("h")
        await pilot.pause()
        assert app.is_running
        dec = app.feed.ingest.decoder
        assert app.model.lines_in_events + len(app.model.malformed) + dec.blank_lines == dec.lines_seen


async def test_no_json_at_all_says_so():
    data = b"Workspace Trust Required\nDo you trust the files in this folder?\n[y/N]\n"
    app = make_app(data)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        header = "\n".join(app.header.render().plain.splitlines())
        assert "NO EVENTS" in header
        assert "3 malformed lines (h)" in header
