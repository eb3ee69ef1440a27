"""Helpers for timing the headless Textual app (imported by benchmark children only).

A *frame* here is one compositor refresh of a screen: Textual renders the
dirty widgets' lines into strips (``Screen._compositor_refresh``).  Headless,
nothing is written to a terminal, but every line is rendered exactly as it
would be.  :class:`FrameProbe` patches that method (in this process only) to
timestamp frames.

Key latency is measured without ``pilot.press``/``pilot.pause``: those sleep
at least 20 ms and then wait until the CPU is idle (up to 1 s), which under
a live load measures "busy", not latency.  Instead :func:`key_to_frame`
posts the key event, waits until a marked handler has returned (see
:func:`mark_done`), then waits for the first frame after that.
"""

from __future__ import annotations

import asyncio
import functools
import resource
import time
import unicodedata
from collections import deque
from collections.abc import Callable

from common import percentile  # noqa: F401  (re-exported for the children)
from textual import events
from textual.keys import REPLACED_KEYS, _character_to_key, _get_unicode_name_from_key
from textual.screen import Screen

perf = time.perf_counter


class FrameProbe:
    """Timestamps of compositor refreshes, plus an optional per-frame callback."""

    def __init__(self) -> None:
        self.count = 0
        self.first: float | None = None
        self.last = 0.0
        self.times: deque[float] = deque(maxlen=512)
        self.on_frame: Callable[[float], None] | None = None
        self._event: asyncio.Event | None = None
        probe = self
        orig = Screen._compositor_refresh

        def _compositor_refresh(screen: Screen) -> None:
            orig(screen)
            t = perf()
            probe.count += 1
            probe.last = t
            probe.times.append(t)
            if probe.first is None:
                probe.first = t
            if probe.on_frame is not None:
                probe.on_frame(t)
            if probe._event is not None:
                probe._event.set()

        Screen._compositor_refresh = _compositor_refresh  # type: ignore[method-assign]

    async def frame_after(self, t: float, timeout: float = 10.0) -> float | None:
        """Time of the first frame that ends after ``t`` (None on timeout)."""
        deadline = perf() + timeout
        while self.last <= t:
            left = deadline - perf()
            if left <= 0:
                return None
            self._event = asyncio.Event()
            try:
                await asyncio.wait_for(self._event.wait(), left)
            except asyncio.TimeoutError:
                return None
            finally:
                self._event = None
        return next(x for x in self.times if x > t)


class Done:
    """Set by a wrapped handler when it returns."""

    def __init__(self) -> None:
        self.count = 0
        self.t = 0.0
        self._event: asyncio.Event | None = None

    def hit(self) -> None:
        self.count += 1
        self.t = perf()
        if self._event is not None:
            self._event.set()

    async def wait_past(self, count: int, timeout: float = 10.0) -> float | None:
        deadline = perf() + timeout
        while self.count <= count:
            left = deadline - perf()
            if left <= 0:
                return None
            self._event = asyncio.Event()
            try:
                await asyncio.wait_for(self._event.wait(), left)
            except asyncio.TimeoutError:
                return None
            finally:
                self._event = None
        return self.t


def mark_done(obj, name: str, done: Done | None = None) -> Done:
    """Wrap ``obj.name`` (an instance attribute) so ``done.hit()`` runs when it returns."""
    done = done or Done()
    orig = getattr(obj, name)
    if asyncio.iscoroutinefunction(orig):
        @functools.wraps(orig)
        async def awrapper(*a, **k):
            try:
                return await orig(*a, **k)
            finally:
                done.hit()

        setattr(obj, name, awrapper)
    else:
        @functools.wraps(orig)
        def wrapper(*a, **k):
            try:
                return orig(*a, **k)
            finally:
                done.hit()

        setattr(obj, name, wrapper)
    return done


def key_event(key: str) -> events.Key:
    """The event ``pilot.press(key)`` would send (same key/char mapping)."""
    if len(key) == 1 and not key.isalnum():
        key = _character_to_key(key)
    original = REPLACED_KEYS.get(key, key)
    try:
        char: str | None = unicodedata.lookup(_get_unicode_name_from_key(original))
    except KeyError:
        char = key if len(key) == 1 else None
    return events.Key(key, char)


def send_key(app, key: str) -> None:
    ev = key_event(key)
    ev.set_sender(app)
    app.post_message(ev)


async def key_to_frame(
    app, probe: FrameProbe, key: str, done: Done, timeout: float = 10.0, settle: Done | None = None,
    settle_if: Callable[[], bool] | None = None,
) -> dict:
    """Press ``key``; seconds until ``done`` fires and until the next frame after that.

    With ``settle`` (e.g. the detail pane's update, which runs later from a
    posted message), also the first frame after ``settle`` fired (``settled``);
    ``settle_if()`` is asked after the frame: False means nothing will settle
    (e.g. the cursor did not move) and ``settled`` is None.
    """
    n = done.count
    ns = settle.count if settle is not None else 0
    t0 = perf()
    send_key(app, key)
    t_done = await done.wait_past(n, timeout)
    if t_done is None:
        return {"key": key, "handled": None, "frame": None, "settled": None}
    t_frame = await probe.frame_after(t_done, timeout)
    out = {"key": key, "handled": t_done - t0, "frame": None if t_frame is None else t_frame - t0}
    if settle is not None:
        if settle_if is not None and not settle_if():
            out["settled"] = None
            return out
        t_s = await settle.wait_past(ns, timeout)
        t_sf = await probe.frame_after(t_s, timeout) if t_s is not None else None
        out["settled"] = None if t_sf is None else t_sf - t0
    return out


async def call_to_frame(probe: FrameProbe, fn: Callable[[], object], timeout: float = 10.0) -> dict:
    """Call ``fn`` on the loop; time until it returns and until the next frame."""
    t0 = perf()
    fn()
    t_done = perf()
    t_frame = await probe.frame_after(t_done, timeout)
    return {"handled": t_done - t0, "frame": None if t_frame is None else t_frame - t0}


async def wait_loaded(app, timeout: float, poll: float = 0.01, on_poll: Callable[[], None] | None = None) -> bool:
    """Until the whole input is applied and the end seen (``model.end()`` ran)."""
    deadline = perf() + timeout
    while perf() < deadline:
        if app.feed.finished and app.model.ended and app.loaded:
            return True
        if on_poll is not None:
            on_poll()
        await asyncio.sleep(poll)
    return False


def self_rss_mb() -> float:
    """Peak RSS of this process so far."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def current_rss_mb() -> float:
    try:
        with open("/proc/self/status", encoding="ascii") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


def cpu_seconds() -> float:
    ru = resource.getrusage(resource.RUSAGE_SELF)
    return ru.ru_utime + ru.ru_stime
