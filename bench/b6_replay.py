#!/usr/bin/env python3
"""B6 - ``--replay`` of a big saved file (headless TUI).

The replay is built as ``agent-viewer --replay FILE`` builds it (a
:class:`~viewer.core.replay.FileIndex` read in the background, see
viewer/ui/launch.py) and run headless.  Reported:

* first paint: from process spawn and from app start, with how much of the
  file was read by then;
* read: until the whole file is indexed (records, play times, checkpoints);
* peak RSS of the process;
* seeks, each from the key event to the first frame after its handler
  returned (see bench/tui.py): ``end`` while the file is still being read,
  then, once it is read: ``end``, ``left`` x3 (steps back), ``home``,
  a click in the middle of the bar, and ``left`` x3 from there.

No target is set by the issue for replay; as for B2 and B4: first paint
<= 0.5 s whatever the size, seeks <= 100 ms where they can be (a seek back
re-applies the records from the nearest copy of the model).

    python bench/b6_replay.py --sizes 100k,1m
    python bench/b6_replay.py --sizes 2k --smoke
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time
from pathlib import Path

FIRST_PAINT_TARGET = 0.5
SEEK_TARGET = 0.100
EVENTS = {"2k": 2_000, "100k": 100_000, "1m": 1_000_000}


def child(ns) -> int:
    mono0 = time.monotonic()
    import os

    import tui

    from viewer.core.feed import StoreFeed
    from viewer.core.record import read_restarts, read_timing
    from viewer.core.replay import FileIndex, Replay
    from viewer.ui.replay import ReplayApp

    probe = tui.FrameProbe()
    t0 = tui.perf()
    path = ns.child
    feed = StoreFeed(path)
    size = os.fstat(feed.store.fileno()).st_size
    index = FileIndex(feed.store, size, timing=read_timing(path), restarts=read_restarts(path))
    replay = Replay(index=index, playing=False)
    index.start()
    app = ReplayApp(replay, feed)
    ops: list[dict] = []
    marks: dict = {}

    def on_frame(t: float) -> None:
        if "first" not in marks:
            marks["first"] = t
            marks["read_at_first"] = index.bytes_read

    probe.on_frame = on_frame

    async def op(name: str, fn) -> None:
        m = await tui.call_to_frame(probe, fn, timeout=60.0)
        m["op"] = name
        m["position"] = replay.position
        ops.append(m)

    async def go() -> dict:
        async with app.run_test(size=(120, 40)) as pilot:
            await pilot.pause()
            if not index.complete:
                await op("end, while the file is read", app.action_seek_end)
                await pilot.pause()
            deadline = tui.perf() + ns.timeout
            while not index.complete and tui.perf() < deadline:
                await asyncio.sleep(0.02)
            read_s = tui.perf() - t0
            await pilot.pause()
            await op("end", app.action_seek_end)
            for i in range(3):
                await pilot.pause()
                await op(f"left (step back) {i + 1}", lambda: app.action_step(-1))
            await pilot.pause()
            await op("home", app.action_seek_start)
            await pilot.pause()
            await op("click the middle of the bar", lambda: app._seek_time(replay.duration / 2))  # (a click goes to a time)
            for i in range(3):
                await pilot.pause()
                await op(f"left (step back) {i + 1}, from the middle", lambda: app.action_step(-1))
            return {"complete": index.complete, "read_s": read_s, "records": replay.total,
                    "checkpoints": len(index.checkpoints)}

    res = asyncio.run(go())
    spawn = mono0 - ns.spawned_at if ns.spawned_at else 0.0
    first = marks.get("first")
    res.update(ops=ops, bytes=size, rss_mb=tui.self_rss_mb(),
               first_paint_s=(first - t0) if first else None,
               first_paint_from_spawn_s=(first - t0 + spawn) if first else None,
               read_at_first=marks.get("read_at_first", 0), spawn_s=spawn)
    print(json.dumps(res), flush=True)
    return 0


def parent(ns) -> int:
    from common import (
        PYTHON,
        ensure_stream,
        log,
        mb,
        report,
        run_child,
        verdict,
    )

    rows, all_ok, notes = [], True, []
    for spec in [s.strip().lower() for s in ns.sizes.split(",") if s.strip()]:
        if spec not in EVENTS:
            raise SystemExit(f"unknown size {spec!r} (one of {', '.join(EVENTS)})")
        path = ensure_stream(f"stream-{spec}.ndjson", events=EVENTS[spec])
        log(f"B6 replay of {path.name}")
        cmd = [PYTHON, str(Path(__file__).resolve()), "--child", str(path), "--timeout", str(ns.timeout),
               "--spawned-at", "0"]
        cmd[cmd.index("--spawned-at") + 1] = repr(time.monotonic())
        r = run_child(cmd, timeout=ns.timeout + 300).check()
        res = r.json_tail()
        print(json.dumps(res), flush=True)
        fp = res.get("first_paint_from_spawn_s")
        ok_fp = fp is not None and fp <= FIRST_PAINT_TARGET
        all_ok &= ok_fp
        seeks = [o for o in res["ops"] if "while" not in o["op"]]
        worst = max((o["frame"] if o["frame"] is not None else 60.0) for o in seeks) if seeks else None
        ok_seek = worst is not None and worst <= SEEK_TARGET
        all_ok &= ok_seek

        def ms(x):
            return "timeout" if x is None else round(x * 1000)

        rows.append([
            f"{path.name} ({mb(res['bytes']):.0f} MB, {res['records']:,} records)",
            round(fp, 2) if fp is not None else "–",
            f"{100 * res['read_at_first'] / max(1, res['bytes']):.0f} %", verdict(ok_fp),
            round(res["read_s"], 1), round(mb(res["bytes"]) / max(res["read_s"], 1e-9), 1),
            round(res["rss_mb"]), res["checkpoints"],
            " · ".join(f"{o['op']} {ms(o['frame'])}" for o in res["ops"]), verdict(ok_seek),
        ])
        all_ok &= bool(res["complete"])
    notes.append("Built as `agent-viewer --replay FILE` builds it, headless 120×40, paused at the start. "
                 "First paint is from process spawn (interpreter start and imports included); "
                 "\"read at first paint\" is how much of the file the background index had read by then.")
    notes.append("Seeks: ms from the call to the first frame after it. A seek back starts from the nearest "
                 "copy of the model (every tenth of the position) and re-applies the records after it, "
                 "each parsed again from the file; a seek from afar leaves a copy 1,000 records before "
                 "where it went, so steps back from there are cheap, and the index keeps copies 1,000 "
                 "records apart near the file's end (its last 4,000 or so), for steps back from End. "
                 "End while the file is read copies the model the index has built so far. Reading "
                 "waits while a seek is made and drawn.")
    headers = ["file", "first paint s (spawn)", "read at first paint", f"≤ {FIRST_PAINT_TARGET} s",
               "whole file read s", "MB/s", "peak RSS MB", "checkpoints", "seeks (ms to next frame)",
               f"seeks ≤ {SEEK_TARGET * 1000:.0f} ms"]
    return report(ns, "B6", "B6 · --replay of a big file (headless)", headers, rows, notes, all_ok)


def main(argv: list[str] | None = None) -> int:
    from common import add_run_options

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", default="100k,1m", help="comma-separated: 2k, 100k, 1m")
    ap.add_argument("--timeout", type=float, default=600.0, help="seconds allowed for reading the file")
    add_run_options(ap)
    ap.add_argument("--child", help=argparse.SUPPRESS)
    ap.add_argument("--spawned-at", type=float, default=0.0, help=argparse.SUPPRESS)
    ns = ap.parse_args(argv)
    if ns.child:
        return child(ns)
    return parent(ns)


if __name__ == "__main__":
    sys.exit(main())
