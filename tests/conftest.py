"""Shared fixtures for the core and CLI tests.

Real Cursor captures live beside the repository (``../shared/real_streams/cursor``:
CI clones the repo with ``shared/`` next to it).  Sample streams live in the
repo (``sample_streams/``).  Either may be missing: tests that need them skip.

Two parametrizing fixtures are generated here (see :func:`pytest_generate_tests`):

* ``real_stream_path`` - one test per real Cursor capture;
* ``sample_stream_path`` - one test per sample stream.

Helpers are exposed as fixtures (not imported from this module) so the test
files work whatever pytest import mode is used.
"""

from __future__ import annotations

import os
import selectors
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace

import orjson
import pytest

REPO = Path(__file__).resolve().parents[1]
REAL_CURSOR_DIR = Path(__file__).resolve().parents[1].parent / "shared" / "real_streams" / "cursor"
REAL_CURSOR: list[Path] = sorted(REAL_CURSOR_DIR.glob("*.ndjson")) if REAL_CURSOR_DIR.is_dir() else []
SAMPLES_DIR = REPO / "sample_streams"


class ChildOutput:
    """A child process's standard output, read as it comes; never a blocking read that could
    hang the suite."""

    def __init__(self, proc) -> None:
        self.fd = proc.stdout.fileno()
        self.out = b""
        self._sel = selectors.DefaultSelector()
        self._sel.register(self.fd, selectors.EVENT_READ)

    def until(self, done: bytes | Callable[[bytes], bool], timeout: float = 10.0) -> bytes:
        """Read until ``done`` is in the output (or holds of it), EOF, or ``timeout``."""
        ready = (lambda out: done in out) if isinstance(done, bytes) else done
        deadline = time.monotonic() + timeout
        while not ready(self.out) and time.monotonic() < deadline:
            if self._sel.select(timeout=0.2):
                chunk = os.read(self.fd, 65536)
                if not chunk:
                    break
                self.out += chunk
        return self.out


def viewer_process(*args: str, stdout: int = subprocess.PIPE) -> subprocess.Popen:
    """``python -m viewer ARGS`` as a child with its output piped (stdout may be DEVNULL)."""
    return subprocess.Popen([sys.executable, "-m", "viewer", *args], stdout=stdout, stderr=subprocess.PIPE)


def sample_paths() -> list[Path]:
    """Sample streams present now (another helper may add them while tests run)."""
    return sorted(SAMPLES_DIR.glob("*.ndjson")) if SAMPLES_DIR.is_dir() else []


SAMPLES: list[Path] = sample_paths()


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    for name, paths, what in (
        ("real_stream_path", REAL_CURSOR, f"no real Cursor streams in {REAL_CURSOR_DIR}"),
        ("sample_stream_path", sample_paths(), f"no sample streams in {SAMPLES_DIR} yet"),
    ):
        if name in metafunc.fixturenames:
            if paths:
                metafunc.parametrize(name, paths, ids=[p.stem for p in paths])
            else:
                metafunc.parametrize(
                    name, [pytest.param(None, marks=pytest.mark.skip(reason=what))], ids=["none"]
                )


# -- helpers -----------------------------------------------------------------


def decode_bytes(data: bytes, chunks: list[int] | None = None, runs: bool = False, clock: bool = False):
    """Decode ``data`` (optionally fed in chunks of the given sizes; with ``runs``, text deltas
    gathered into runs as the TUI's feeds do).

    Returns ``(records, decoder)``.
    """
    from viewer.core.formats import cursor
    from viewer.core.sources import Ingest

    ticks = iter(range(1, 1 << 30))  # a clock that moves at every chunk: arrival times are kept
    ing = Ingest(runs=cursor.run_line if runs else None, clock=(lambda: float(next(ticks))) if clock else None)
    recs = []
    if chunks is None:
        recs.extend(ing.feed(data))
    else:
        pos = 0
        for size in chunks:
            recs.extend(ing.feed(data[pos : pos + size]))
            pos += size
        recs.extend(ing.feed(data[pos:]))
    recs.extend(ing.close())
    return recs, ing.decoder


def model_of(data: bytes, end: bool = True, chunks: list[int] | None = None, runs: bool = False,
             clock: bool = False):
    """Decode ``data`` and reduce it: returns ``(model, records, decoder)``.  ``clock``: a live
    source's arrival times (one tick per chunk)."""
    from viewer.core.model import StreamModel

    recs, dec = decode_bytes(data, chunks, runs, clock)
    m = StreamModel()
    for r in recs:
        m.apply(r)
    if end:
        m.end()
    return m, recs, dec


def check_accounting(recs, dec) -> None:
    """Every physical line is an event line, a malformed line or a blank line."""
    from viewer.core.decode import Event, Malformed, Run

    events = [r for r in recs if isinstance(r, Event)]
    malformed = [r for r in recs if isinstance(r, Malformed)]
    runs = [r for r in recs if isinstance(r, Run)]
    assert len(events) + len(malformed) + len(runs) == len(recs)
    in_runs = sum(r.count for r in runs)
    assert sum(e.line_count for e in events) + in_runs + len(malformed) + dec.blank_lines == dec.lines_seen
    assert dec.events == len(events) + in_runs
    assert dec.malformed == len(malformed)


def model_state(m) -> list:
    """Everything a view shows of a model, to compare two models."""
    out = [m.events, m.lines_in_events, dict(m.event_types), dict(m.system_subtypes), m.malformed_lines,
           m.unknown_events, m.mirrored, m.duplicates, m.ended]
    for s in m.sessions:
        out.append((s.index, s.session_id, s.events, s.first_line, s.last_line, s.first_ms, s.last_ms,
                    s.first_arrival, s.last_arrival, s.said_anything, s.empty_deltas, s.state, s.ended,
                    s.init_line, len(s.notices), s.after_restart))
        out.extend((b.kind, b.line, b.text, b.ref, b.open) for b in s.blocks)
        out.extend((t.call_id, t.status, t.label, t.target, t.detail, t.block, t.start_line, t.end_line,
                    t.start_arrival, t.end_arrival) for t in s.tools)
    return out


def check_status_counts(model) -> None:
    """Per session, the status counters agree with the tool list."""
    from collections import Counter

    for s in model.sessions:
        assert all(v >= 0 for v in s.status_counts.values()), s.status_counts
        counted = {k: v for k, v in s.status_counts.items() if v}
        assert counted == dict(Counter(t.status for t in s.tools))
        assert s.running == sum(1 for t in s.tools if t.status == "running")
        assert s.done_tools == sum(1 for t in s.tools if t.done)
        for i, t in enumerate(s.tools):
            assert t.index == i
            assert s.tool_by_id.get(t.call_id) is not None or not t.call_id  # (no id: by order)


def line(**fields) -> bytes:
    """One NDJSON line (with its newline) from keyword fields."""
    return orjson.dumps(fields) + b"\n"


def cli_env() -> dict[str, str]:
    """Environment for CLI subprocesses: no TUI driver, UTF-8 output, the repo importable."""
    env = dict(os.environ)
    env.pop("TEXTUAL_DRIVER", None)
    env["PYTHONIOENCODING"] = "utf-8"
    env["PYTHONPATH"] = str(REPO) + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    return env


class _Helpers(SimpleNamespace):
    def __repr__(self) -> str:
        return "<test helpers>"


HELPERS = _Helpers(
    decode=decode_bytes,
    model_of=model_of,
    check_accounting=check_accounting,
    check_status_counts=check_status_counts,
    line=line,
    cli_env=cli_env,
    python=sys.executable,
    repo=REPO,
)


@pytest.fixture(scope="session")
def h() -> SimpleNamespace:
    """Shared helpers (decode, model_of, line builders, invariant checks)."""
    return HELPERS


@pytest.fixture(scope="session")
def real_dir() -> Path:
    if not REAL_CURSOR:
        pytest.skip(f"no real Cursor streams in {REAL_CURSOR_DIR}")
    return REAL_CURSOR_DIR


def real_capture(name: str, agent: str = "cursor") -> bytes:
    """A real capture's bytes, by file name (``maestro__05_rejected_shell.ndjson``) and the
    agent whose folder holds it; the test is skipped when it is not here."""
    p = REAL_CURSOR_DIR.parent / agent / name
    if not p.exists():
        pytest.skip(f"real stream {agent}/{p.name} not found")
    return p.read_bytes()


@pytest.fixture(scope="session")
def real(real_dir: Path):
    """``real("maestro__05_rejected_shell")`` -> the capture's bytes (skips if absent)."""
    return lambda stem: real_capture(f"{stem}.ndjson")


class _Streams(dict):
    """name -> bytes, with a short repr (hypothesis prints the arguments of failing examples)."""

    def __repr__(self) -> str:
        return f"<{len(self)} streams: {', '.join(self)}>"


@pytest.fixture(scope="session")
def real_streams(real_dir: Path) -> dict[str, bytes]:
    """Every real Cursor capture: name -> bytes."""
    return _Streams((p.stem, p.read_bytes()) for p in REAL_CURSOR)
