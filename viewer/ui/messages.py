"""Messages the panes post to the app."""

from __future__ import annotations

from textual.message import Message


class ToolMessage(Message):
    """Something happened to one tool call (an index into ``session.tools``, -1 for none)."""

    def __init__(self, tool_index: int) -> None:
        self.tool_index = tool_index
        super().__init__()
