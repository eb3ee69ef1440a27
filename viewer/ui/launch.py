"""Start the TUI: pick the feed, free fd 0 for the keyboard, run the app."""

from __future__ import annotations

import os
import sys

from viewer.core.feed import Feed, FileFeed, FollowFeed, PipeFeed
from viewer.core.sources import SourceError


def detach_stdin() -> int | None:
    """If fd 0 carries data, keep it on a new fd and give fd 0 to the terminal.

    Textual's Linux driver reads keys from fd 0; with ``producer | agent-viewer``
    that is the producer's pipe.  Moving the pipe aside and opening
    ``/dev/tty`` on fd 0 keeps the keyboard working.
    """
    if os.isatty(0):
        return None
    data_fd = os.dup(0)
    try:
        tty_fd = os.open("/dev/tty", os.O_RDWR)
    except OSError:
        os.close(data_fd)
        raise SourceError(
            "no terminal for the keyboard (stdin is a pipe and there is no /dev/tty); "
            "use --print to read the stream without the TUI"
        ) from None
    os.dup2(tty_fd, 0)
    os.close(tty_fd)
    return data_fd


def make_feed(path: str | None, follow: bool) -> Feed:
    if path is None:
        fd = detach_stdin()
        if fd is None:  # pragma: no cover - the CLI opens the demo instead
            raise SourceError("nothing to read: stdin is a terminal")
        return PipeFeed(fd, label="stdin")
    if follow:
        return FollowFeed(path)
    return FileFeed(path)


def launch(path: str | None, follow: bool = False) -> int:
    if not os.isatty(2) and not os.environ.get("TEXTUAL_DRIVER"):
        raise SourceError("the TUI needs a terminal on stderr; use --print for plain output")
    feed = make_feed(path, follow)
    from viewer.ui.app import AgentViewerApp

    app = AgentViewerApp(feed)
    saved_stdout = None
    if not os.isatty(1) and not os.environ.get("TEXTUAL_DRIVER"):
        # The UI draws on stderr but sizes itself from stdout: point stdout at the terminal.
        saved_stdout = os.dup(1)
        os.dup2(2, 1)
    try:
        app.run()
    finally:
        feed.stop()
        if saved_stdout is not None:
            os.dup2(saved_stdout, 1)
            os.close(saved_stdout)
    return app.return_code or 0
