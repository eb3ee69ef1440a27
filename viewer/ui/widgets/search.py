"""The search box: an Input whose footer says how to find and how to leave."""

from __future__ import annotations

from textual.binding import Binding
from textual.widgets import Input


class SearchBox(Input):
    """While it is focused, the footer shows Enter (find) and Esc (close) instead of nothing:
    every app key is text here.  Esc itself is handled by the app (it also closes the box
    when focus is elsewhere)."""

    BINDINGS = [
        Binding("enter", "submit", "Find"),
        Binding("escape", "app.close_search", "Close"),
    ]
