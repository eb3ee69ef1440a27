"""Textual's footer, rebuilt only when what it shows has changed."""

from __future__ import annotations

from collections.abc import Hashable

from textual.widgets import Footer


class KeysFooter(Footer):
    """Textual asks its footer to rebuild itself whenever the bindings may have changed: four
    times while the app starts, and at every change of focus.  Each rebuild mounts and styles a
    dozen keys (20-40 ms, a tenth of opening a 100k-event file); here it happens only when the
    keys shown, their state, or the footer's form differ from the last rebuild."""

    _shown: Hashable = None

    def _what_is_shown(self) -> Hashable:
        if not self._bindings_ready or not self.is_attached:
            return None
        active = self.screen.active_bindings
        keys = tuple(
            (binding.key, binding.description, binding.action, binding.group, enabled, tooltip)
            for (_, binding, enabled, tooltip) in active.values()
            if binding.show
        )
        palette = active.get(self.app.COMMAND_PALETTE_BINDING)
        palette_key = None if palette is None else (palette[1].key, palette[1].description, palette[2])
        return keys, palette_key, self.compact, self.show_command_palette, self.combine_groups

    async def recompose(self) -> None:
        shown = self._what_is_shown()
        if shown is not None and shown == self._shown:
            return
        self._shown = shown
        await super().recompose()
