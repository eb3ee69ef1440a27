"""Shared helpers for the benchmarks (standard library only, plus bench/gen.py).

* :func:`machine_info` / :func:`machine_markdown`: CPU, cores, RAM, Python and
  package versions, date;
* :func:`run_child`: run a command as a child process and get its wall time,
  CPU time and **its own** peak RSS (``os.wait4`` returns the rusage of that
  one child, unlike ``RUSAGE_CHILDREN`` which keeps the maximum over all
  children so far);
* :func:`ensure_stream`: generate (once) a synthetic stream in ``bench/data``;
* :func:`append_section`: append a Markdown section with a table to
  ``bench/RESULTS.md`` (or another file).
"""

from __future__ import annotations

import json
import os
import platform
import signal
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from datetime import date
from importlib import metadata
from pathlib import Path

BENCH = Path(__file__).resolve().parent
REPO = BENCH.parent
DATA = BENCH / "data"
RESULTS = BENCH / "RESULTS.md"
PYTHON = sys.executable
PACKAGES = ("agent-viewer", "textual", "rich", "orjson", "click")
GEN_VERSION = 1  # bump when gen.py output changes, so cached data files are regenerated

if str(BENCH) not in sys.path:  # so `import gen` works from any bench script
    sys.path.insert(0, str(BENCH))


def viewer_cmd() -> list[str]:
    """The installed console script next to this Python, else ``python -m viewer``."""
    script = Path(PYTHON).with_name("agent-viewer")
    if script.exists():
        return [str(script)]
    return [PYTHON, "-m", "viewer"]


def today() -> str:
    """BENCH_DATE if set (runs on a machine whose clock is in another day), else today."""
    return os.environ.get("BENCH_DATE") or date.today().isoformat()


# -- machine -------------------------------------------------------------------


def _cpu_model() -> str:
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as f:
            for line in f:
                if line.lower().startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def _ram_bytes() -> int | None:
    try:
        with open("/proc/meminfo", encoding="ascii") as f:
            for line in f:
                if line.startswith("MemTotal:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError):
        pass
    return None


def machine_info() -> dict:
    versions = {}
    for p in PACKAGES:
        try:
            versions[p] = metadata.version(p)
        except metadata.PackageNotFoundError:
            versions[p] = "-"
    try:
        usable = len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not Linux
        usable = os.cpu_count()
    ram = _ram_bytes()
    try:
        rev = subprocess.run(
            ["git", "-C", str(REPO), "describe", "--always", "--dirty", "--exclude", "*"],
            capture_output=True, text=True, timeout=10,
        ).stdout.strip() or "-"
    except (OSError, subprocess.SubprocessError):
        rev = "-"
    try:
        load = "/".join(f"{x:.2f}" for x in os.getloadavg())
    except OSError:
        load = "-"
    return {
        "git": rev,
        "load": load,
        "date": today(),
        "cpu": _cpu_model(),
        "cores": os.cpu_count(),
        "usable_cores": usable,
        "ram_gb": round(ram / (1 << 30), 1) if ram else None,
        "os": f"{platform.system()} {platform.release()}",
        "python": platform.python_version(),
        "python_impl": platform.python_implementation(),
        "packages": versions,
    }


def machine_markdown(info: dict | None = None) -> str:
    m = info or machine_info()
    pk = ", ".join(f"{k} {v}" for k, v in m["packages"].items())
    return (
        f"{m['date']} · {m['cpu']} · {m['cores']} cores ({m['usable_cores']} usable) · "
        f"{m['ram_gb']} GB RAM · {m['os']} · {m['python_impl']} {m['python']} · {pk} · "
        f"code at git {m['git']} · load avg {m['load']}"
    )


# -- child processes -------------------------------------------------------------


@dataclass
class ChildResult:
    cmd: list[str]
    rc: int
    wall: float  # seconds
    user: float  # CPU seconds
    sys: float
    maxrss_mb: float  # peak resident set size of that child (the biggest of it and its children)
    #: Peak of the summed RSS of the child and every process it started (its decoding
    #: workers), sampled every 20 ms; at least maxrss_mb.
    tree_rss_mb: float = 0.0
    stdout: bytes = b""
    stderr: bytes = b""
    timed_out: bool = False
    extra: dict = field(default_factory=dict)

    @property
    def cpu(self) -> float:
        return self.user + self.sys

    def json_tail(self) -> dict:
        """The last stdout line that is a JSON object (children report that way)."""
        for line in reversed(self.stdout.splitlines()):
            line = line.strip()
            if line.startswith(b"{"):
                try:
                    return json.loads(line)
                except ValueError:
                    continue
        return {}

    def check(self) -> ChildResult:
        if self.rc != 0 or self.timed_out:
            tail = self.stderr.decode(errors="replace")[-3000:]
            why = "timed out" if self.timed_out else f"exit {self.rc}"
            raise RuntimeError(f"{' '.join(self.cmd)}: {why}\n{tail}")
        return self


TIME = "/usr/bin/time"

# A small launcher between us and the measured command.  Linux counts the
# address space a child had *before* exec in its peak RSS, and a Python parent
# that spawned it (via vfork) can be big; a fork from a tiny process is not.
_FORK_LAUNCHER = (
    "import os,sys\n"
    "pid=os.fork()\n"
    "if pid==0:\n os.execvp(sys.argv[1],sys.argv[1:])\n"
    "_,st=os.waitpid(pid,0)\n"
    "sys.exit(os.waitstatus_to_exitcode(st) if os.WIFEXITED(st) else 128+os.WTERMSIG(st))\n"
)


def _launcher(rss_file: str) -> tuple[list[str], bool]:
    if os.path.exists(TIME):
        try:
            v = subprocess.run([TIME, "--version"], capture_output=True, text=True, timeout=5)
            if "GNU" in (v.stdout + v.stderr):
                return [TIME, "-f", "%M", "-o", rss_file], True
        except (OSError, subprocess.SubprocessError):
            pass
    return [PYTHON, "-S", "-c", _FORK_LAUNCHER], False


def run_child(
    cmd: list[str], timeout: float = 600.0, stdin: int | None = None, env: dict | None = None,
    pass_fds: tuple[int, ...] = (), keep_stdout: bool = True,
) -> ChildResult:
    """Run ``cmd`` to completion; wall time, CPU and peak RSS of that command only.

    The command runs under GNU time (or a tiny forking launcher); ``os.wait4``
    on the launcher gives max(launcher, command) RSS and the summed CPU.
    """
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err, \
            tempfile.NamedTemporaryFile("r", suffix=".rss") as rss:
        full_env = dict(os.environ)
        # This machine sets PYTHONDONTWRITEBYTECODE=1, so every start would compile the
        # viewer's modules again (~50 ms); a normal install caches them. Measure that.
        full_env.pop("PYTHONDONTWRITEBYTECODE", None)
        if env:
            full_env.update(env)
        prefix, gnu_time = _launcher(rss.name)
        t0 = time.perf_counter()
        p = subprocess.Popen(
            [*prefix, *cmd], stdin=stdin if stdin is not None else subprocess.DEVNULL,
            stdout=out if keep_stdout else subprocess.DEVNULL, stderr=err, env=full_env,
            pass_fds=pass_fds, start_new_session=True,
        )
        timed_out = threading.Event()

        def kill() -> None:
            timed_out.set()
            try:
                os.killpg(p.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass

        timer = threading.Timer(timeout, kill)
        timer.daemon = True
        timer.start()
        done = threading.Event()
        tree_peak = [0]
        sampler = threading.Thread(target=_sample_tree, args=(p.pid, done, tree_peak), daemon=True)
        sampler.start()
        try:
            _, status, ru = os.wait4(p.pid, 0)
        finally:
            timer.cancel()
            done.set()
            sampler.join()
        wall = time.perf_counter() - t0
        p.returncode = os.waitstatus_to_exitcode(status)  # Popen must not wait again
        maxrss_kb = ru.ru_maxrss
        if gnu_time:
            try:
                lines = [ln for ln in open(rss.name).read().split() if ln.isdigit()]
                if lines:
                    maxrss_kb = int(lines[-1])
            except OSError:
                pass
        out.seek(0)
        err.seek(0)
        return ChildResult(
            cmd=cmd, rc=p.returncode, wall=wall, user=ru.ru_utime, sys=ru.ru_stime,
            maxrss_mb=maxrss_kb / 1024, stdout=out.read(), stderr=err.read(),
            timed_out=timed_out.is_set(), tree_rss_mb=max(tree_peak[0] / 1024, maxrss_kb / 1024),
        )


def _sample_tree(pgid: int, done: threading.Event, peak: list[int]) -> None:
    """Peak summed RSS (KB) of the processes of group ``pgid`` (the child runs in a session of
    its own; its workers stay in its group), minus the launcher's."""
    page_kb = os.sysconf("SC_PAGE_SIZE") // 1024
    while not done.wait(0.02):
        total = 0
        for entry in os.scandir("/proc"):
            if not entry.name.isdigit() or int(entry.name) == pgid:
                continue  # (the launcher itself: GNU time)
            try:
                with open(f"/proc/{entry.name}/stat", "rb") as f:
                    fields = f.read().rsplit(b")", 1)[1].split()
                if int(fields[2]) != pgid:  # pgrp
                    continue
                with open(f"/proc/{entry.name}/statm", "rb") as f:
                    total += int(f.read().split()[1]) * page_kb
            except (OSError, ValueError, IndexError):
                continue
        peak[0] = max(peak[0], total)


def drop_caches_hint(path: str | Path) -> None:
    """Read a file once so every timed run starts from a warm page cache."""
    with open(path, "rb", buffering=0) as f:
        while f.read(8 << 20):
            pass


# -- data --------------------------------------------------------------------------------


def ensure_stream(name: str, **kwargs) -> Path:
    """``bench/data/<name>`` generated by :func:`gen.generate` with ``kwargs`` (cached)."""
    import gen

    DATA.mkdir(parents=True, exist_ok=True)
    path = DATA / name
    meta = DATA / (name + ".meta.json")
    want = {"seed": 1, **kwargs, "gen_version": GEN_VERSION}
    if path.exists() and meta.exists():
        try:
            if json.loads(meta.read_text()).get("params") == want:
                return path
        except ValueError:
            pass
    params = {k: v for k, v in want.items() if k != "gen_version"}
    print(f"[gen] {name} {params}", file=sys.stderr, flush=True)
    stats = gen.generate(str(path), **params)
    meta.write_text(json.dumps({"params": want, "stats": stats}, indent=1))
    return path


def stream_stats(path: Path) -> dict:
    meta = path.with_name(path.name + ".meta.json")
    try:
        return json.loads(meta.read_text()).get("stats", {})
    except (OSError, ValueError):
        return {}


def remove_stream(path: Path) -> None:
    for p in (path, path.with_name(path.name + ".meta.json")):
        try:
            p.unlink()
        except FileNotFoundError:
            pass


def free_disk_bytes(path: Path = BENCH) -> int:
    st = os.statvfs(path)
    return st.f_bavail * st.f_frsize


# -- reporting -----------------------------------------------------------------------------


def percentile(values: list[float], q: float) -> float | None:
    """Linear-interpolated percentile (q in 0..1) of ``values``; None when empty."""
    if not values:
        return None
    v = sorted(values)
    k = (len(v) - 1) * q
    lo = int(k)
    hi = min(lo + 1, len(v) - 1)
    return v[lo] + (v[hi] - v[lo]) * (k - lo)


def mb(n: float) -> float:
    return n / (1 << 20)


def fmt(v, digits: int = 2) -> str:
    if v is None:
        return "–"
    if isinstance(v, bool):
        return "yes" if v else "**no**"
    if isinstance(v, float):
        return f"{v:,.{digits}f}"
    if isinstance(v, int):
        return f"{v:,}"
    return str(v)


def verdict(ok: bool | None) -> str:
    if ok is None:
        return "n/a"
    return "✅ met" if ok else "❌ **not met**"


def md_table(headers: list[str], rows: list[list]) -> str:
    out = ["| " + " | ".join(headers) + " |", "|" + "|".join("---" for _ in headers) + "|"]
    for r in rows:
        out.append("| " + " | ".join(fmt(c) for c in r) + " |")
    return "\n".join(out)


def append_section(
    title: str, headers: list[str], rows: list[list], notes: list[str] | None = None,
    path: Path | None = None, info: dict | None = None,
) -> Path:
    """Append ``## title`` with the machine line, a table and notes to RESULTS.md."""
    path = path or RESULTS
    if not path.exists():
        path.write_text(
            "# agent-viewer benchmark results\n\n"
            "Appended by the scripts in `bench/` (see bench/README.md). Newest sections last.\n"
        )
    parts = [f"\n## {title}\n", f"Machine: {machine_markdown(info)}\n", md_table(headers, rows), ""]
    for n in notes or []:
        parts.append(f"- {n}")
    with open(path, "a", encoding="utf-8") as f:
        f.write("\n".join(parts).rstrip() + "\n")
    return path


def results_path(smoke: bool) -> Path:
    """Smoke runs (CI) never touch the committed RESULTS.md."""
    return DATA / "RESULTS-smoke.md" if smoke else RESULTS


def log(msg: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


def add_run_options(ap) -> None:
    """The options every benchmark takes (an ``argparse.ArgumentParser``)."""
    ap.add_argument("--smoke", action="store_true", help="write to bench/data/RESULTS-smoke.md")
    ap.add_argument("--no-write", action="store_true", help="do not append to a results file")
    ap.add_argument("--strict", action="store_true", help="exit 1 when a target is not met")


def report(ns, tag: str, title: str, headers: list[str], rows: list[list], notes: list[str], ok: bool) -> int:
    """Append the table to the results file (unless ``--no-write``) and say where; the exit
    status: 1 when a target is missed and ``--strict`` was given."""
    if rows and not ns.no_write:
        p = append_section(title, headers, rows, notes, path=results_path(ns.smoke))
        log(f"{tag} results appended to {p}")
    return 1 if ns.strict and not ok else 0
