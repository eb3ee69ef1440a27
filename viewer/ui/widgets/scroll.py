"""A scrolling pane's content grows without a layout of the whole screen."""

from __future__ import annotations

from textual.geometry import Size
from textual.scroll_view import ScrollView
from textual.widget import Widget


def set_virtual_size(view: ScrollView, size: Size) -> None:
    """``view.virtual_size = size``, without the layout of the whole screen that assignment
    asks for.

    ``virtual_size`` is a layout reactive: each time a pane's content grew (a new call, a
    longer transcript) Textual laid out every widget again, though the panes have fixed
    sizes and only their scrollbars change.  While a big file loaded that was 28 layouts
    and 0.44 s of the 5.8 s it took to open 1M events.  Here only the scrollbars are
    updated; a scrollbar that appears or goes asks for the layout itself (its visibility is a
    layout reactive too).
    """
    if size == view.virtual_size:
        return
    if not view.container_size:  # not laid out yet: the first layout reads it
        view.virtual_size = size
        return
    view.set_reactive(Widget.virtual_size, size)
    view._scroll_update(size)  # scrollbars and a scroll offset within the new bounds
    view.refresh()
