#!/usr/bin/env python3
"""Run the benchmarks B1-B6 one after the other (never two at once).

    python bench/run_all.py --smoke     # tiny inputs, < 60 s, for CI; writes bench/data/RESULTS-smoke.md
    python bench/run_all.py             # full sizes; appends to bench/RESULTS.md
    python bench/run_all.py --only b1,b3

Targets missed do not fail the run (they are reported); ``--strict`` makes
them fail.  A benchmark that crashes or hangs always fails the run.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from pathlib import Path

from common import PYTHON, log, machine_markdown, results_path, today

BENCH = Path(__file__).resolve().parent

FULL = {
    "b1": ["b1_ingest.py", "--sizes", "100k,1m", "--repeat", "3"],
    "b2": ["b2_open.py", "--sizes", "100k,1m,1g"],
    "b3": ["b3_live.py", "--rate", "5000", "--duration", "20"],
    "b3m": ["b3_live.py", "--message-kb", "100", "--rate", "250"],
    "b4": ["b4_interact.py", "--events", "100000", "--huge-mb", "10"],
    "b5": ["b5_huge_line.py", "--mb", "64"],
    "b6": ["b6_replay.py", "--sizes", "100k,1m"],
}
SMOKE = {
    "b1": ["b1_ingest.py", "--sizes", "2k", "--repeat", "1", "--smoke"],
    "b2": ["b2_open.py", "--sizes", "2k", "--smoke", "--timeout", "60"],
    "b3": ["b3_live.py", "--rate", "1000", "--duration", "2", "--timeout", "30", "--smoke"],
    "b3m": ["b3_live.py", "--message-kb", "8", "--rate", "500", "--timeout", "30", "--smoke"],
    "b4": ["b4_interact.py", "--events", "2000", "--huge-mb", "0.25", "--timeout", "60", "--smoke"],
    "b5": ["b5_huge_line.py", "--mb", "2", "--timeout", "60", "--smoke"],
    "b6": ["b6_replay.py", "--sizes", "2k", "--timeout", "60", "--smoke"],
}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--smoke", action="store_true", help="tiny inputs (CI)")
    ap.add_argument("--only", default="", help="comma-separated subset, e.g. b1,b4")
    ap.add_argument("--strict", action="store_true", help="fail when a target is missed")
    ns = ap.parse_args(argv)
    plan = SMOKE if ns.smoke else FULL
    names = [n.strip().lower() for n in ns.only.split(",") if n.strip()] or list(plan)
    unknown = [n for n in names if n not in plan]
    if unknown:
        ap.error(f"unknown benchmark(s): {', '.join(unknown)}")
    out = results_path(ns.smoke)
    out.parent.mkdir(parents=True, exist_ok=True)
    if not out.exists():
        out.write_text("# agent-viewer benchmark results\n\n"
                       "Appended by the scripts in `bench/` (see bench/README.md). Newest sections last.\n")
    with open(out, "a", encoding="utf-8") as f:
        f.write(f"\n---\n\n# {'Smoke' if ns.smoke else 'Full'} run, {today()}\n\n"
                f"Machine: {machine_markdown()}\n")
    failed = []
    t_all = time.perf_counter()
    for name in names:
        cmd = [PYTHON, str(BENCH / plan[name][0]), *plan[name][1:]]
        if ns.strict:
            cmd.append("--strict")
        log(f"=== {name}: {' '.join(cmd[1:])}")
        t0 = time.perf_counter()
        rc = subprocess.call(cmd, cwd=BENCH.parent)
        log(f"=== {name}: exit {rc} after {time.perf_counter() - t0:.1f} s")
        if rc != 0:
            failed.append(name)
    log(f"all done in {time.perf_counter() - t_all:.1f} s; results in {out}")
    if failed:
        log(f"FAILED: {', '.join(failed)}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
