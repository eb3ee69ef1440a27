"""Make untrusted stream text safe to put on a terminal.

Agent output can hold escape sequences (clear screen, set title, OSC 52
clipboard writes, OSC 8 links), other C0/C1 controls, and bidi or
zero-width characters that reorder or hide text.  Every string from a
stream goes through :func:`clean` (multi-line text) or :func:`one_line`
before it reaches a terminal, so these show up as visible escapes such as
``\\x1b`` instead of acting.  Rich/Textual markup is a separate concern: the
UI never parses stream text as markup (it builds ``Text``/``Content``).
"""

from __future__ import annotations

import re

_CONTROLS = [*range(0, 9), 11, 12, 13, *range(14, 32), 127, *range(0x80, 0xA0)]
_INVISIBLE = [
    *range(0x200B, 0x2010),  # zero-width space/joiners, LRM, RLM
    *range(0x202A, 0x202F),  # bidi embeddings and overrides
    *range(0x2066, 0x206A),  # bidi isolates
    0x2028, 0x2029, 0xFEFF, 0x061C,
]

_TABLE: dict[int, str] = {c: f"\\x{c:02x}" for c in _CONTROLS}
_TABLE.update({c: f"\\u{c:04x}" for c in _INVISIBLE})

_ONE_LINE = dict(_TABLE)
_ONE_LINE[10] = "⏎"
_ONE_LINE[9] = " "


_NEEDS_ESCAPE = re.compile("[" + "".join(re.escape(chr(c)) for c in _TABLE) + "]")


def clean(text: str) -> str:
    """Escape control and invisible characters; keep newlines and tabs."""
    # str.translate with a dict costs ~150 ns a character on non-ASCII text; finding the
    # (usually zero) characters to escape is 30x faster, so only rewrite around them.
    if _NEEDS_ESCAPE.search(text) is None:
        return text
    return _NEEDS_ESCAPE.sub(lambda m: _TABLE[ord(m.group())], text)


def one_line(text: str, limit: int | None = None) -> str:
    """Like :func:`clean`, and show newlines as ⏎ so the text stays on one line."""
    if limit is not None and len(text) > limit:
        text = text[:limit] + "…"
    return text.translate(_ONE_LINE)


def is_clean(text: str) -> bool:
    return text == text.translate(_TABLE)
