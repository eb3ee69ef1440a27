#!/usr/bin/env python3
"""B2 - open a saved file in the (headless) TUI.

Each file is opened in a fresh child process (``FileFeed`` + ``AgentViewerApp``
under ``app.run_test(size=(120, 40))``) so peak RSS is per run.  Measured:

* first paint: the first frame (compositor refresh) in which the header shows
  a session, from app start, and from process spawn (interpreter + imports);
* indexed: until every record is applied and the end seen
  (``feed.finished``, ``model.ended``, ``app.loaded``), and the MB/s that gives;
* peak RSS of the child.

Targets: first paint <= 0.5 s; indexing >= 100 MB/s; peak RSS <= 400 MB on a 1 GB file.

    python bench/b2_open.py                      # 100k, 1m events and a 1 GB file
    python bench/b2_open.py --sizes 2k --smoke
    python bench/b2_open.py --sizes 100k --profile 100k
"""

from __future__ import annotations

import time

_T_MODULE = time.monotonic()  # before the heavy imports (child mode measures them)

import argparse  # noqa: E402
import asyncio  # noqa: E402
import io  # noqa: E402
import json  # noqa: E402
import pstats  # noqa: E402
import sys  # noqa: E402
from pathlib import Path  # noqa: E402

FIRST_PAINT_TARGET = 0.5
MBS_TARGET = 100.0
RSS_TARGET_MB = 400.0
GB = 1 << 30


# -- child ----------------------------------------------------------------------


def child(ns) -> int:
    t_imp0 = time.monotonic()
    import cProfile

    from viewer.core.feed import FileFeed
    from viewer.core.formats import get_format

    # As the CLI does (viewer.ui.launch): the feed first, so that a big file's decoding
    # workers start while the UI is imported.
    path = ns.child
    feed = FileFeed(path)
    feed.gather_runs(get_format())
    feed.prepare()

    import tui

    from viewer.ui.app import AgentViewerApp

    t_imp1 = time.monotonic()
    size = Path(path).stat().st_size
    probe = tui.FrameProbe()
    app = AgentViewerApp(feed)
    marks: dict[str, float] = {}
    samples: list[tuple[float, int, int, float]] = []
    prof_main = prof_reader = None
    if ns.profile:
        prof_main, prof_reader = cProfile.Profile(), cProfile.Profile()
        run = feed._run

        def profiled_run() -> None:
            prof_reader.enable()
            try:
                run()
            finally:
                prof_reader.disable()

        feed._thread._target = profiled_run  # type: ignore[attr-defined]

    def on_frame(t: float) -> None:
        if "first_frame" not in marks:
            marks["first_frame"] = t
        if "first_session" not in marks and app.header.session is not None:
            marks["first_session"] = t
            marks["first_session_events"] = app.model.events

    probe.on_frame = on_frame
    last_sample = [0.0]

    def sample() -> None:
        t = tui.perf()
        if t - last_sample[0] >= 0.5:
            last_sample[0] = t
            samples.append((round(t - t0, 2), feed.bytes_read, app.model.events, round(tui.current_rss_mb(), 1)))

    async def go() -> dict:
        async with app.run_test(size=(ns.width, ns.height)) as pilot:
            ok = await tui.wait_loaded(app, ns.timeout, on_poll=sample)
            t_loaded = tui.perf()
            await pilot.pause()
            t_settled = tui.perf()
            s = app.session
            return {
                "ok": ok, "t_loaded": t_loaded, "t_settled": t_settled, "bytes_read": feed.bytes_read,
                "events": app.model.events, "malformed": len(app.model.malformed),
                "tools": len(s.tools) if s else 0, "blocks": len(s.blocks) if s else 0,
                "state": s.state if s else None, "frames": probe.count,
            }

    if prof_main is not None:
        prof_main.enable()
    t0 = tui.perf()
    mono0 = time.monotonic()
    res = asyncio.run(go())
    if prof_main is not None:
        prof_main.disable()
        prof_main.dump_stats(ns.profile + "-main.prof")
        prof_reader.dump_stats(ns.profile + "-reader.prof")
    spawn_to_app = mono0 - ns.spawned_at if ns.spawned_at else None
    first = marks.get("first_session")
    index_s = res["t_loaded"] - t0
    out = {
        "file": Path(path).name, "bytes": size,
        **{k: v for k, v in res.items() if k not in ("t_loaded", "t_settled")},
        "settled_s": res["t_settled"] - t0,
        "imports_s": t_imp1 - t_imp0,
        "spawn_to_app_s": spawn_to_app,
        "first_frame_s": marks["first_frame"] - t0 if "first_frame" in marks else None,
        "first_paint_s": first - t0 if first else None,
        "first_paint_events": marks.get("first_session_events"),
        "first_paint_from_spawn_s": (first - t0 + spawn_to_app) if first and spawn_to_app else None,
        "index_s": index_s,
        "mbs": (res["bytes_read"] / (1 << 20)) / index_s if index_s > 0 else None,
        "rss_self_mb": tui.self_rss_mb(),
        "workers": feed.workers, "worker_rss_mb": feed.worker_rss_kb / 1024, "worker_error": feed.worker_error,
        "index_from_spawn_s": index_s + spawn_to_app if spawn_to_app else None,
        "cpu_s": tui.cpu_seconds(),
        "samples": samples[-40:],
    }
    print(json.dumps(out), flush=True)
    return 0


# -- parent -----------------------------------------------------------------------


def stream_for(spec: str) -> Path:
    from b1_ingest import events_of
    from common import ensure_stream

    s = spec.lower()
    if s.endswith("g") or s.endswith("gb"):
        gb = float(s.rstrip("gb"))
        return ensure_stream(f"stream-{s}.ndjson", bytes_target=int(gb * GB))
    return ensure_stream(f"stream-{s}.ndjson", events=events_of(s))


def run_one(path: Path, timeout: float, profile: str = "", width: int = 120, height: int = 40) -> dict:
    from common import PYTHON, run_child

    cmd = [PYTHON, str(Path(__file__).resolve()), "--child", str(path), "--timeout", str(timeout),
           "--width", str(width), "--height", str(height), "--spawned-at", "0"]
    if profile:
        cmd += ["--profile", profile]
    # The child computes spawn->app from this monotonic stamp (same clock, same machine).
    cmd[cmd.index("--spawned-at") + 1] = repr(time.monotonic())
    r = run_child(cmd, timeout=timeout + 120).check()
    res = r.json_tail()
    res["rss_mb"] = r.maxrss_mb
    res["rss_tree_mb"] = r.tree_rss_mb
    res["wall_s"] = r.wall
    return res


def profile_text(prefix: str, top: int = 25) -> str:
    out = []
    for part in ("main", "reader"):
        for key in ("cumulative", "tottime"):
            buf = io.StringIO()
            pstats.Stats(f"{prefix}-{part}.prof", stream=buf).strip_dirs().sort_stats(key).print_stats(top)
            out.append(f"### B2 cProfile, {part} thread, sorted by {key}\n{buf.getvalue().strip()}\n")
    return "\n".join(out)


def row(res: dict, spec: str, is_gb: bool, prof: str) -> bool:
    """One table row for one run (appended to ROWS); whether every target was met."""
    from common import mb, verdict

    fp = res.get("first_paint_s")
    ok_fp = fp is not None and fp <= FIRST_PAINT_TARGET
    ok_mbs = bool(res["ok"]) and res["mbs"] is not None and res["mbs"] >= MBS_TARGET
    rss = res.get("rss_tree_mb") or res["rss_mb"]
    ok_rss = rss <= RSS_TARGET_MB if is_gb else None
    done = "" if res["ok"] else f" (timed out: {res['bytes_read'] / (1 << 20):.0f} MB read)"
    workers = res.get("workers", 0)
    rss_text = (f"{rss:.0f} (app {res['rss_mb']:.0f}, each worker ≤ {res.get('worker_rss_mb', 0):.0f})"
                if workers else f"{rss:.0f}")
    ROWS.append([
        f"{spec} ({mb(res['bytes']):.0f} MB)", res["events"], fp, res.get("first_paint_from_spawn_s"),
        verdict(ok_fp), round(res["index_s"], 2), res.get("index_from_spawn_s"), f"{res['mbs']:.1f}{done}",
        verdict(ok_mbs), workers, rss_text, verdict(ok_rss),
    ])
    if prof:
        ROWS_NOTES.append(f"{spec} was run under cProfile (main + reader thread): its times are inflated.")
    return bool(ok_fp and ok_mbs and ok_rss is not False)


ROWS: list[list] = []
ROWS_NOTES: list[str] = []


def parent(ns) -> int:
    from common import (
        DATA,
        free_disk_bytes,
        log,
        mb,
        remove_stream,
        report,
    )

    all_ok = True
    notes: list[str] = []
    for spec in [s for s in ns.sizes.split(",") if s]:
        is_gb = spec.lower().endswith(("g", "gb"))
        if is_gb:
            need = float(spec.lower().rstrip("gb")) * GB * 1.3
            if free_disk_bytes() < need:
                notes.append(f"{spec}: skipped, not enough free disk ({free_disk_bytes() / GB:.1f} GB).")
                continue
        path = stream_for(spec)
        runs = []
        try:
            for _ in range(max(1, ns.repeat)):
                log(f"B2 open {path.name} ({mb(path.stat().st_size):.0f} MB)")
                prof = str(DATA / f"profile-b2-{path.stem}") if ns.profile and ns.profile.lower() == spec.lower() else ""
                res = run_one(path, ns.timeout, prof)
                print(json.dumps(res), flush=True)
                runs.append(res)
                if prof:
                    text = profile_text(prof)
                    (DATA / f"profile-b2-{path.stem}.txt").write_text(text)
                    print(text, flush=True)
        finally:
            if is_gb and not ns.keep:
                remove_stream(path)
        for res in runs:
            all_ok &= row(res, spec, is_gb, prof)
        headers = [
        "file", "events", "first paint s (app)", "first paint s (from spawn)", f"≤ {FIRST_PAINT_TARGET} s",
        "indexed s (app)", "indexed s (from spawn)", "MB/s", f"≥ {MBS_TARGET:.0f} MB/s", "workers",
        "peak RSS MB (app + workers)", f"RSS ≤ {RSS_TARGET_MB:.0f} MB (1 GB)",
    ]
    notes = [
        "Headless `run_test(size=(120, 40))`, one child process per file; a frame is a compositor "
        "refresh (every visible line rendered, nothing written to a terminal).",
        "workers: decoding worker processes (viewer.core.parallel), started before the UI is "
        "imported, as the CLI does. Peak RSS is the peak of the app's and its workers' summed RSS "
        "(sampled every 20 ms); the app's own peak and the biggest worker's (VmHWM) are in brackets.",
        "first paint (app) = from app start to the first frame whose header shows a session; "
        "(from spawn) adds interpreter start and imports.",
        "indexed = until feed.finished, model.ended and app.loaded; MB/s = file size / that time.",
        *notes, *ROWS_NOTES,
    ]
    rows = ROWS
    return report(ns, "B2", "B2 · open a file in the TUI (headless)", headers, rows, notes, all_ok)


def main(argv: list[str] | None = None) -> int:
    from common import add_run_options

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", default="100k,1m,1g", help="comma-separated: 2k, 100k, 1m (events) or 1g (bytes)")
    ap.add_argument("--timeout", type=float, default=900.0, help="give up indexing after this many seconds")
    ap.add_argument("--repeat", type=int, default=1, help="open each file this many times (a row each)")
    add_run_options(ap)
    ap.add_argument("--keep", action="store_true", help="keep the generated GB-sized file")
    ap.add_argument("--profile", default="", help="(parent) run this size under cProfile; (child) output prefix")
    ap.add_argument("--child", help=argparse.SUPPRESS)
    ap.add_argument("--spawned-at", type=float, default=0.0, help=argparse.SUPPRESS)
    ap.add_argument("--width", type=int, default=120, help=argparse.SUPPRESS)
    ap.add_argument("--height", type=int, default=40, help=argparse.SUPPRESS)
    ns = ap.parse_args(argv)
    if ns.child:
        return child(ns)
    return parent(ns)


if __name__ == "__main__":
    sys.exit(main())
