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


#: In JSON text (UTF-8), the characters of the table that JSON itself leaves as they are
#: (it escapes those below U+0020 only): DEL, the C1 controls (U+009B is a CSI to many
#: terminals), the invisible and bidi characters.
_JSON_RAW = re.compile(
    rb"\x7f|\xc2[\x80-\x9f]|\xd8\x9c|\xe2\x80[\x8b-\x8f\xa8-\xae]|\xe2\x81[\xa6-\xa9]|\xef\xbb\xbf")
#: The same, looked for piece by piece: a pattern that starts with a fixed byte string is
#: searched for as fast as ``in`` (the whole pattern above scans 5 times slower).
_JSON_RAW_PARTS = [re.compile(p) for p in (rb"\xc2[\x80-\x9f]", rb"\xe2\x80[\x8b-\x8f\xa8-\xae]", rb"\xe2\x81[\xa6-\xa9]")]


def _json_needs_escapes(raw: bytes) -> bool:
    if raw.isascii():  # most events
        return b"\x7f" in raw
    return (b"\x7f" in raw or any(p.search(raw) for p in _JSON_RAW_PARTS)
            or (b"\xd8" in raw and b"\xd8\x9c" in raw) or (b"\xef" in raw and b"\xef\xbb\xbf" in raw))


def json_safe(raw: bytes) -> bytes:
    """Serialized JSON with those characters as ``\\uXXXX`` escapes: the same JSON, which a
    terminal can show (they can only be in its strings, where such an escape is valid)."""
    if not _json_needs_escapes(raw):
        return raw
    return _JSON_RAW.sub(lambda m: b"\\u%04x" % ord(m.group().decode()), raw)


def is_clean(text: str) -> bool:
    return text == text.translate(_TABLE)
