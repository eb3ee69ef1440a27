"""Textual's footer, rebuilt only when what it shows has changed, and showing whole keys."""

from __future__ import annotations

from collections.abc import Hashable

from textual.widget import Widget
from textual.widgets import Footer
from textual.widgets._footer import FooterLabel, KeyGroup


class KeysFooter(Footer):
    """Textual asks its footer to rebuild itself whenever the bindings may have changed: four
    times while the app starts, and at every change of focus.  Each rebuild mounts and styles a
    dozen keys (20-40 ms, a tenth of opening a 100k-event file); here it happens only when the
    keys shown, their state, or the footer's form differ from the last rebuild.

    Keys that do not fit the width are left out whole, the last ones first (Textual cuts the
    footer off at the edge, mid-word: "f Fol"); the help (?), among the first, lists them all."""

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
        self._refit()

    def on_resize(self) -> None:
        self._refit()

    def _refit(self) -> None:
        """Show every key, and once they are laid out, leave out those past the edge."""
        for child in self.children:
            child.display = True
        self.call_after_refresh(self._fit)

    def _fit(self) -> None:
        if not self.is_attached:
            return
        palette = [c for c in self.children if c.has_class("-command-palette")]
        limit = self.region.right - sum(c.outer_size.width for c in palette)
        units: list[list[Widget]] = []  # a key, or a group of keys and its label ("+ - Speed")
        for child in self.children:
            if child in palette:
                continue
            if isinstance(child, FooterLabel) and units and isinstance(units[-1][0], KeyGroup):
                units[-1].append(child)
            else:
                units.append([child])
        cut = False
        for unit in units:
            cut = cut or max(c.region.right for c in unit) > limit
            if cut:
                for c in unit:
                    c.display = False
