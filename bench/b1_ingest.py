#!/usr/bin/env python3
"""B1 - ingest speed of ``agent-viewer --print --output-format json FILE``.

Compared, in the same run and on the same file, with a bare loop in the same
Python that only ``orjson.loads`` every line.  Both run as child processes;
wall time is the median of ``--repeat`` runs, peak RSS the maximum.

Targets: viewer wall time <= 1.3x the bare loop; viewer peak RSS <= 150 MB.

    python bench/b1_ingest.py                   # 100k and 1M events
    python bench/b1_ingest.py --sizes 2k --repeat 1 --smoke
    python bench/b1_ingest.py --sizes 100k --profile-only
"""

from __future__ import annotations

import argparse
import io
import pstats
import statistics
import sys
from pathlib import Path

from common import (
    DATA,
    PYTHON,
    append_section,
    drop_caches_hint,
    ensure_stream,
    log,
    mb,
    md_table,
    results_path,
    run_child,
    verdict,
    viewer_cmd,
)

RATIO_TARGET = 1.3
RSS_TARGET_MB = 150.0

BARE_LOOP = """
import sys, orjson
loads = orjson.loads
n = 0
with open(sys.argv[1], "rb") as f:
    for line in f:
        if len(line) > 1:
            loads(line)
            n += 1
print(n)
"""


def events_of(spec: str) -> int:
    s = spec.strip().lower()
    mult = 1
    if s.endswith("k"):
        s, mult = s[:-1], 1000
    elif s.endswith("m"):
        s, mult = s[:-1], 1_000_000
    return int(float(s) * mult)


def stream_for(spec: str) -> Path:
    return ensure_stream(f"stream-{spec.lower()}.ndjson", events=events_of(spec))


def bare(path: Path):
    return run_child([PYTHON, "-c", BARE_LOOP, str(path)], timeout=1800).check()


def viewer(path: Path):
    r = run_child([*viewer_cmd(), "--print", "--output-format", "json", str(path)], timeout=1800).check()
    out = r.json_tail()
    if out.get("type") != "result":
        raise RuntimeError(f"viewer printed no result object: {r.stdout[:300]!r}")
    return r


def other_modes(path: Path) -> dict[str, tuple[float, float]]:
    """Wall time and peak RSS of the text and stream-json modes (output thrown away)."""
    out = {}
    for fmt in ("text", "stream-json"):
        log(f"B1 {path.name} --output-format {fmt}")
        r = run_child([*viewer_cmd(), "--print", "--output-format", fmt, str(path)], timeout=1800,
                      keep_stdout=False)
        if r.rc not in (0, 1):  # text mode exits 1 when the run has no result
            raise RuntimeError(f"--output-format {fmt} failed: {r.stderr[-300:]!r}")
        out[fmt] = (r.wall, r.tree_rss_mb)
    return out


def measure(path: Path, repeat: int) -> dict:
    drop_caches_hint(path)
    size = path.stat().st_size
    b_runs, v_runs = [], []
    for i in range(repeat):
        log(f"B1 {path.name} run {i + 1}/{repeat}")
        b_runs.append(bare(path))
        v_runs.append(viewer(path))
    bw = statistics.median(r.wall for r in b_runs)
    vw = statistics.median(r.wall for r in v_runs)
    return {
        "file": path.name, "bytes": size, "bare_s": bw, "viewer_s": vw,
        "bare_mbs": mb(size) / bw, "viewer_mbs": mb(size) / vw, "ratio": vw / bw,
        "bare_rss": max(r.maxrss_mb for r in b_runs), "viewer_rss": max(r.tree_rss_mb for r in v_runs),
        "viewer_cpu": statistics.median(r.cpu for r in v_runs),
        "bare_cpu": statistics.median(r.cpu for r in b_runs),
        "runs": [(round(b.wall, 3), round(v.wall, 3)) for b, v in zip(b_runs, v_runs)],
    }


def startup() -> tuple[float, float]:
    """Median wall time of each command on a 5-event file (interpreter + imports)."""
    tiny = ensure_stream("stream-tiny.ndjson", events=5)
    b = statistics.median(bare(tiny).wall for _ in range(3))
    v = statistics.median(viewer(tiny).wall for _ in range(3))
    return b, v


def profile(path: Path, top: int = 25) -> str:
    """cProfile of the --print json run; returns the top lines by cumtime and by tottime."""
    prof = DATA / f"profile-b1-{path.stem}.prof"
    run_child(
        [PYTHON, "-m", "cProfile", "-o", str(prof), "-m", "viewer", "--print", "--output-format", "json",
         str(path)], timeout=1800,
    ).check()
    out = []
    for key in ("cumulative", "tottime"):
        buf = io.StringIO()
        pstats.Stats(str(prof), stream=buf).strip_dirs().sort_stats(key).print_stats(top)
        out.append(f"### B1 cProfile, {path.name}, sorted by {key}\n{buf.getvalue().strip()}\n")
    text = "\n".join(out)
    (DATA / f"profile-b1-{path.stem}.txt").write_text(text)
    return text


def main(argv: list[str] | None = None) -> int:
    from common import add_run_options

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", default="100k,1m", help="comma-separated event counts (2k, 100k, 1m)")
    ap.add_argument("--repeat", type=int, default=3)
    add_run_options(ap)
    ap.add_argument("--profile", default="", metavar="SIZE", help="also profile the run on this size (e.g. 100k)")
    ap.add_argument("--profile-only", action="store_true")
    ns = ap.parse_args(argv)

    if ns.profile or ns.profile_only:
        spec = ns.profile or ns.sizes.split(",")[0]
        print(profile(stream_for(spec)))
        if ns.profile_only:
            return 0

    sb, sv = startup()
    rows, results, ok_all, mode_rows = [], [], True, []
    for spec in ns.sizes.split(","):
        path = stream_for(spec)
        res = measure(path, ns.repeat)
        results.append(res)
        ok_ratio = res["ratio"] <= RATIO_TARGET
        ok_rss = res["viewer_rss"] <= RSS_TARGET_MB
        ok_all &= ok_ratio and ok_rss
        rows.append([
            f"{spec} events", round(mb(res["bytes"]), 1), round(res["bare_s"], 2), round(res["bare_mbs"], 1),
            round(res["viewer_s"], 2), round(res["viewer_mbs"], 1), round(res["ratio"], 2),
            verdict(ok_ratio), round(res["bare_cpu"], 2), round(res["viewer_cpu"], 2),
            round(res["bare_rss"], 1), round(res["viewer_rss"], 1), verdict(ok_rss),
        ])
        print(res, flush=True)
        for fmt, (wall, rss) in other_modes(path).items():
            ok_all &= rss <= RSS_TARGET_MB
            mode_rows.append([f"{spec} events", fmt, round(wall, 2), round(mb(res["bytes"]) / wall, 1),
                              round(rss, 1), verdict(rss <= RSS_TARGET_MB)])
    headers = [
        "file", "MB", "bare loop s", "bare MB/s", "viewer s", "viewer MB/s", "ratio",
        f"ratio ≤ {RATIO_TARGET}", "bare CPU s", "viewer CPU s", "bare RSS MB", "viewer RSS MB",
        f"RSS ≤ {RSS_TARGET_MB:.0f} MB",
    ]
    notes = [
        f"Median of {ns.repeat} run(s) per command, alternating, warm page cache; RSS is the peak "
        "of the child (os.wait4); the viewer's is the peak of its own RSS plus its decoding workers' "
        "(sampled every 20 ms), and its CPU includes theirs.",
        "A file of 16 MB or more is read by worker processes, a segment each (viewer.core.parallel): "
        "on two cores the viewer's wall time can be below the bare loop's, its CPU time is not.",
        f"Start-up alone (5-event file): bare loop {sb:.3f} s, viewer {sv:.3f} s "
        "(interpreter + imports; included in the times above).",
        "bare loop = `for line in open(f, 'rb'): orjson.loads(line)` in the same Python; "
        f"viewer = `{' '.join(Path(c).name for c in viewer_cmd())} --print --output-format json FILE`.",
    ]
    mode_headers = ["file", "--output-format", "s (one run)", "MB/s", "peak RSS MB",
                    f"RSS ≤ {RSS_TARGET_MB:.0f} MB"]
    print(md_table(mode_headers, mode_rows))
    if not ns.no_write:
        p = append_section("B1 · ingest (`--print --output-format json`)", headers, rows, notes,
                           path=results_path(ns.smoke))
        append_section("B1 · the other `--print` modes (output to /dev/null)", mode_headers, mode_rows,
                       ["Memory must stay flat in every print mode, not only json."],
                       path=results_path(ns.smoke))
        log(f"B1 results appended to {p}")
    return 1 if ns.strict and not ok_all else 0


if __name__ == "__main__":
    sys.exit(main())
