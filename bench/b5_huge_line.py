#!/usr/bin/env python3
"""B5 - one 64 MB line (a ``readToolCall`` result) in an otherwise small session.

* ``agent-viewer --print --output-format json FILE`` (and ``--print`` text
  mode, which builds the session model) must finish and print the result;
* the headless app must open the file: first paint, fully indexed, and the
  detail pane shows the huge call (it is the newest call, selected by
  follow mode) - see b2_open.py for how the app is timed.

And the headless app on one huge assistant message (an eighth of the line's size: of many
short lines, and of one line dense with escapes), which the transcript draws as Markdown to
64 KB, then as plain text, then counts: it must finish (a 7.7 MB message took minutes).

Reported: time and peak RSS of each.  Target: no hang, and what the line adds to the
peak RSS (over the same run on a 5-event file) at most 1.25x what it adds to B1's bare loop
(``orjson.loads`` of each line): parsing the line at all is the floor.  (It was 4x the line's
size, below that floor when the line's text is not ASCII: the generated line's is CJK, two
bytes a character once parsed, and the bare loop alone peaked at 282 MB for a 67 MB line.)

    python bench/b5_huge_line.py
    python bench/b5_huge_line.py --mb 4 --smoke
"""

from __future__ import annotations

import argparse
import json
import sys

#: What the line may add to a run's peak RSS, times what it adds to the bare loop's.
RSS_FACTOR = 1.25


def main(argv: list[str] | None = None) -> int:
    from common import add_run_options

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--mb", type=float, default=64.0, help="size of the huge line in MiB")
    ap.add_argument("--timeout", type=float, default=600.0, help="seconds before a run counts as hung")
    add_run_options(ap)
    ns = ap.parse_args(argv)

    from b2_open import run_one
    from common import (
        ensure_stream,
        log,
        mb,
        report,
        run_child,
        verdict,
        viewer_cmd,
    )

    tag = f"{ns.mb:g}".replace(".", "_")
    # 300 events: one ordinary turn, then the huge call as the last tool call, then the answer.
    path = ensure_stream(f"huge-{tag}mb.ndjson", events=300, huge_mb=ns.mb, huge_at=1.0)
    size = path.stat().st_size
    line = max(len(x) for x in path.read_bytes().split(b"\n"))
    tiny = ensure_stream("stream-tiny.ndjson", events=5)
    from b1_ingest import bare
    parse_cost = bare(path).maxrss_mb - bare(tiny).maxrss_mb  # what parsing the line costs at all
    bound = RSS_FACTOR * parse_cost
    rows, all_ok = [], True
    for fmt in ("json", "text"):
        log(f"B5 --print --output-format {fmt} on {path.name}")
        base = run_child([*viewer_cmd(), "--print", "--output-format", fmt, str(tiny)], timeout=60).tree_rss_mb
        r = run_child([*viewer_cmd(), "--print", "--output-format", fmt, str(path)], timeout=ns.timeout,
                      keep_stdout=fmt == "json")
        ok_run = r.rc == 0 and not r.timed_out and (fmt != "json" or r.json_tail().get("type") == "result")
        ok_rss = r.tree_rss_mb - base <= bound
        all_ok &= ok_run and ok_rss
        status = "ok" if ok_run else ("hung (killed)" if r.timed_out else f"exit {r.rc}")
        rows.append([f"`--print --output-format {fmt}`", status, round(r.wall, 2), "", "",
                     round(r.tree_rss_mb, 1), round(r.tree_rss_mb - base, 1), verdict(ok_run and ok_rss)])
    log(f"B5 headless app on {path.name}")
    base = run_one(tiny, 60)["rss_mb"]
    try:
        res = run_one(path, ns.timeout)
        ok_run = bool(res.get("ok"))
        timed_out = False
    except RuntimeError as exc:
        res, ok_run, timed_out = {"rss_mb": float("nan"), "wall_s": None}, False, True
        log(f"B5 app run failed: {exc}")
    print(json.dumps(res), flush=True)
    ok_rss = res["rss_mb"] - base <= bound
    all_ok &= ok_run and ok_rss
    rows.append([
        "headless app (open, index, paint the huge call's detail)",
        "ok" if ok_run else ("hung (killed)" if timed_out else "did not finish"),
        None if res.get("settled_s") is None else round(res["settled_s"], 2),
        res.get("first_paint_s"), res.get("first_paint_from_spawn_s"),
        round(res["rss_mb"], 1), round(res["rss_mb"] - base, 1), verdict(ok_run and ok_rss),
    ])
    # And one huge assistant message (the transcript draws Markdown to 64 KB, then plain text,
    # then counts what is left): of many short lines, and of one line dense with escapes.
    for shape, unit in (("lines", "line of text with words\n"), ("escapes", "\x1b]0;T\x07[b]")):
        msg = _message_stream(f"message-{tag}mb-{shape}.ndjson", unit * int(ns.mb / 8 * (1 << 20) / len(unit)))
        log(f"B5 headless app on {msg.name}")
        try:
            res = run_one(msg, ns.timeout)
            ok_run, timed_out = bool(res.get("ok")), False
        except RuntimeError as exc:
            res, ok_run, timed_out = {"rss_mb": float("nan")}, False, True
            log(f"B5 app run failed: {exc}")
        print(json.dumps(res), flush=True)
        all_ok &= ok_run
        rows.append([
            f"headless app: one {mb(msg.stat().st_size):.0f} MB assistant message ({shape})",
            "ok" if ok_run else ("hung (killed)" if timed_out else "did not finish"),
            None if res.get("settled_s") is None else round(res["settled_s"], 2),
            res.get("first_paint_s"), res.get("first_paint_from_spawn_s"),
            round(res["rss_mb"], 1), round(res["rss_mb"] - base, 1), verdict(ok_run) + " (finishes)",
        ])
    headers = ["run", "result", "time s", "first paint s (app)", "first paint s (from spawn)",
               "peak RSS MB", "RSS − same run on a 5-event file", f"finishes, RSS − 5-event run ≤ {RSS_FACTOR:g}× the bare loop's ({bound:.0f} MB)"]
    notes = [
        f"File: {path.name}, {mb(size):.1f} MB, 300 events; its longest line is {mb(line):.1f} MB "
        "(a readToolCall result: file content as one JSON string). For --print the time is the whole "
        "process; for the app it is app start → fully indexed and painted (the huge call is the newest "
        "call, so follow mode selects it and the detail pane renders it while loading).",
        f"App fully indexed (model) after {res.get('index_s') or float('nan'):.2f} s.",
        f"The line adds {parse_cost:.0f} MB to B1's bare loop (`orjson.loads` of each line: the peak RSS on "
        "this file less that on the 5-event file): parsing it at all costs that much.",
    ]
    return report(ns, "B5", f"B5 · one {ns.mb:g} MB line", headers, rows, notes, all_ok)


def _message_stream(name: str, text: str):
    """``bench/data/<name>``: a run whose one assistant message is ``text`` (cached)."""
    import orjson
    from common import DATA

    path = DATA / name
    if not path.exists():
        sid = "bench-message"
        events = [
            {"type": "system", "subtype": "init", "session_id": sid, "model": "m", "cwd": "/w"},
            {"type": "user", "session_id": sid, "message": {"role": "user", "content": [{"type": "text", "text": "go"}]}},
            {"type": "assistant", "session_id": sid,
             "message": {"role": "assistant", "content": [{"type": "text", "text": text}]}},
            {"type": "result", "subtype": "success", "is_error": False, "result": "done", "session_id": sid},
        ]
        path.write_bytes(b"".join(orjson.dumps(e) + b"\n" for e in events))
    return path


if __name__ == "__main__":
    sys.exit(main())
