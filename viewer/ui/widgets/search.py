"""The search box: an Input whose footer says how to find and how to leave."""

from __future__ import annotations

from textual.binding import Binding
from textual.widgets import Input


class SearchBox(Input):
    """While it is focused, the footer shows Enter (find) and Esc (close) instead of nothing:
    every app key is text here.  Esc runs ``close`` (the main screen's box: the app's
    close_search, which also closes the box when focus is elsewhere)."""

    BINDINGS = [
        Binding("enter", "submit", "Find"),
        Binding("escape", "close", "Close"),
    ]

    def __init__(self, *, close: str = "app.close_search", **kwargs) -> None:
        super().__init__(**kwargs)
        self._close = close

    async def action_close(self) -> None:
        await self.run_action(self._close)
