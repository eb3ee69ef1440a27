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
import unicodedata

_CONTROLS = [*range(0, 9), 11, 12, 13, *range(14, 32), 127, *range(0x80, 0xA0)]
_INVISIBLE = [
    *range(0x200B, 0x2010),  # zero-width space/joiners, LRM, RLM
    *range(0x202A, 0x202F),  # bidi embeddings and overrides
    *range(0x2060, 0x2065),  # word joiner, invisible operators
    *range(0x2066, 0x206A),  # bidi isolates
    *range(0x206A, 0x2070),  # deprecated format controls
    0x2028, 0x2029, 0xFEFF, 0x061C,
    0x00AD, 0x034F, 0x115F, 0x1160, 0x180E, 0x3164, 0xFFA0,  # soft hyphen, fillers, blanks
    *range(0xFFF9, 0xFFFC),  # interlinear annotation
    0xE0001, *range(0xE0020, 0xE0080),  # tags: text hidden in plain sight ("ASCII smuggling")
    *range(0xD800, 0xE000),  # lone surrogates (a punycode host decodes to one): no character at all
]

_TABLE: dict[int, str] = {c: f"\\x{c:02x}" for c in _CONTROLS}
_TABLE.update({c: f"\\u{c:04x}" if c <= 0xFFFF else f"\\U{c:08x}" for c in _INVISIBLE})

_ONE_LINE = dict(_TABLE)
_ONE_LINE[10] = "⏎"
_ONE_LINE[9] = " "


_NEEDS_ESCAPE = re.compile("[" + "".join(re.escape(chr(c)) for c in _TABLE) + "]")

#: On a grid of cells (the TUI), what terminals disagree on the width of is left out: U+FE0F,
#: which asks for an emoji's picture (⚠️, ✔️: two cells to Rich and to some terminals, one to
#: tmux and xterm), and the skin tones (none to Rich, two more to most terminals).  Without them
#: the symbol takes the cells every terminal gives it.  A log (``--print``) keeps them.
_VS16 = "\ufe0f"
_TONES = "\U0001f3fb-\U0001f3ff"
_GRID_ONLY = re.compile(f"[{_VS16}{_TONES}]")
_NEEDS_GRID = re.compile(_NEEDS_ESCAPE.pattern[:-1] + _VS16 + _TONES + "]")
_ONE_LINE_GRID = {**_ONE_LINE, 0xFE0F: None, **{c: None for c in range(0x1F3FB, 0x1F400)}}
#: The same two tables for a text whose joiners are decided apart (see one_line).
_ONE_LINE_BUT_JOINERS = {c: v for c, v in _ONE_LINE.items() if c not in (0x200C, 0x200D)}
_ONE_LINE_GRID_BUT_JOINERS = {c: v for c, v in _ONE_LINE_GRID.items() if c not in (0x200C, 0x200D)}

#: The zero-width non-joiner and joiner (U+200C, U+200D) are part of how the Arabic scripts
#: (Persian, Urdu), Syriac and the scripts of India and South-East Asia are written: between two
#: letters or marks of those scripts they stay as they are.  Between two emoji the joiner is
#: left out (see :func:`_joiner`).  Anywhere else (in a Latin, Cyrillic, Greek or CJK word,
#: where they change nothing shown and so hide a difference) they are escaped like the others.
_ZWNJ, _ZWJ = "\u200c", "\u200d"
_JOINERS = re.compile("[\u200c\u200d]")
_JOINING_SCRIPTS = (
    (0x0600, 0x08FF),  # Arabic, Syriac, Thaana, N'Ko, Samaritan, Mandaic, Arabic Extended
    (0x0900, 0x0DFF),  # Devanagari to Sinhala
    (0x1000, 0x109F),  # Myanmar
    (0x1780, 0x17FF),  # Khmer
    (0xFB50, 0xFDFF), (0xFE70, 0xFEFF),  # Arabic presentation forms
)


def _joining_letter(c: str) -> bool:
    o = ord(c)
    return (any(lo <= o <= hi for lo, hi in _JOINING_SCRIPTS) and o not in _TABLE
            and unicodedata.category(c)[0] in "LM")


def _joins_letters(text: str, i: int) -> bool:
    """The joiner at ``text[i]`` stands between two letters (or marks) of a script written
    with joiners."""
    return 0 < i < len(text) - 1 and _joining_letter(text[i - 1]) and _joining_letter(text[i + 1])


def _emoji(c: str) -> bool:
    """A pictographic emoji (the blocks from U+1F300, and the symbols and dingbats of
    U+2600-27BF): not the regional indicators, which two of side by side make a flag."""
    return ("\U0001f300" <= c <= "\U0001faff" or "\u2600" <= c <= "\u27bf") and unicodedata.category(c) == "So"


def _joiner(text: str, i: int, grid: bool = True) -> str:
    """How the joiner at ``text[i]`` is shown: as it is inside a word of a script written with
    joiners; between two emoji, left out on a ``grid`` (they show side by side: terminals
    disagree on the width of a joined sequence, so the screen's columns would shift) and kept in
    a log; escaped anywhere else.  The emoji before it may end in a skin tone or U+FE0F (the
    white flag, U+FE0F, the joiner, the rainbow)."""
    c = text[i]
    if _joins_letters(text, i):
        return c
    if c == _ZWJ and 0 < i < len(text) - 1 and _emoji(text[i + 1]):
        j = i - 1
        if text[j] == "\ufe0f" or "\U0001f3fb" <= text[j] <= "\U0001f3ff":
            j -= 1
        if j >= 0 and _emoji(text[j]):
            return "" if grid else c
    return _TABLE[ord(c)]


def _escape(m: re.Match[str]) -> str:
    c = m.group()
    if c == _ZWNJ or c == _ZWJ:
        return _joiner(m.string, m.start())
    if _GRID_ONLY.match(c):
        return ""
    return _TABLE[ord(c)]


def _escape_for_log(m: re.Match[str]) -> str:
    c = m.group()
    if c == _ZWNJ or c == _ZWJ:
        return _joiner(m.string, m.start(), grid=False)
    return _TABLE[ord(c)]


def composed(text: str) -> str:
    """``text`` in its composed form (NFC): an "é" written as "e" and a combining accent (as
    macOS writes file names) is the one letter "é", drawn the same.  What the TUI draws is in
    this form, so that a search (which composes its query) finds and marks a word however its
    accents were written.  (1.5 ms a MB to check, when not ASCII.)"""
    if text.isascii() or unicodedata.is_normalized("NFC", text):
        return text
    return unicodedata.normalize("NFC", text)


def clean(text: str, grid: bool = True) -> str:
    """Escape control and invisible characters; keep newlines and tabs.  ``grid``: for the
    TUI's cells, also compose it (see composed) and leave out what terminals give different
    widths (see _GRID_ONLY)."""
    # str.translate with a dict costs ~150 ns a character on non-ASCII text; finding the
    # (usually zero) characters to escape is 30x faster, so only rewrite around them.
    if grid:
        text = composed(text)
        return text if _NEEDS_GRID.search(text) is None else _NEEDS_GRID.sub(_escape, text)
    return text if _NEEDS_ESCAPE.search(text) is None else _NEEDS_ESCAPE.sub(_escape_for_log, text)


#: A terminal's colour and style codes (SGR: ``ESC [ 31 m``).
SGR = re.compile(r"\x1b\[[0-9;:]*m")


def uncoloured(text: str) -> str:
    """What a program wrote for a terminal, without its colour codes: an agent's coloured
    stderr reads "Error: ...", not "\\x1b[31mError". Every other escape sequence stays, to be
    shown escaped by :func:`clean` or :func:`one_line`."""
    return SGR.sub("", text) if "\x1b[" in text else text


def joined(text: str, i: int) -> bool:
    """Whether ``text[i]`` is drawn with the character before it, so that no cut may come
    before it: a combining mark (any category M: an accent, a vowel sign, a variation
    selector), a zero-width joiner, or what follows one."""
    c = text[i]
    return unicodedata.category(c)[0] == "M" or c == _ZWJ or (i > 0 and text[i - 1] == _ZWJ)


def _cut(text: str, limit: int) -> str:
    """``text`` (longer than ``limit``) cut to at most ``limit`` characters and "…": before a
    letter whose marks would be cut off (``resume`` for ``résumé`` in NFD)."""
    while 0 < limit < len(text) and joined(text, limit):
        limit -= 1
    return text[:limit] + "…"


def one_line(text: str, limit: int | None = None, grid: bool = True) -> str:
    """Like :func:`clean`, and show newlines as ⏎ so the text stays on one line."""
    longer = False
    if limit is not None and len(text) > limit + 2:
        # (What is past the cut, but the neighbours of its last characters, changes nothing
        # shown: a line of a 10 MB result was composed and searched whole for its first 200.
        # A letter keeps its marks; composed, what is kept may be shorter than the limit: it
        # is cut still.)
        end = limit + 2
        while end < len(text) and joined(text, end):
            end += 1
        longer = end < len(text)
        text = text[:end]
    if grid:
        text = composed(text)
    cut = limit is not None and (longer or len(text) > limit)
    if _ZWNJ in text or _ZWJ in text:
        # Which joiners stay is decided on the whole text (a cut must not change it); their
        # escapes are ASCII, which translate leaves as they are.
        shown = {m.start(): _joiner(text, m.start(), grid) for m in _JOINERS.finditer(text)}
        if cut:
            text = _cut(text, limit)
        out = _JOINERS.sub(lambda m: shown[m.start()], text)
        return out.translate(_ONE_LINE_GRID_BUT_JOINERS if grid else _ONE_LINE_BUT_JOINERS)
    if cut:
        text = _cut(text, limit)
    return text.translate(_ONE_LINE_GRID if grid else _ONE_LINE)


#: In JSON text (UTF-8), the characters of the table that JSON itself leaves as they are
#: (it escapes those below U+0020 only): DEL, the C1 controls (U+009B is a CSI to many
#: terminals), the invisible and bidi characters.
_JSON_RAW = re.compile(
    rb"\x7f|\xc2[\x80-\x9f\xad]|\xcd\x8f|\xd8\x9c|\xe1\x85[\x9f\xa0]|\xe1\xa0\x8e"
    rb"|\xe2\x80[\x8b-\x8f\xa8-\xae]|\xe2\x81[\xa0-\xa4\xa6-\xaf]|\xe3\x85\xa4"
    rb"|\xef\xbb\xbf|\xef\xbe\xa0|\xef\xbf[\xb9-\xbb]|\xf3\xa0\x80[\x81\xa0-\xbf]|\xf3\xa0\x81[\x80-\xbf]")
#: The same, looked for piece by piece: a pattern that starts with a fixed byte string is
#: searched for as fast as ``in`` (the whole pattern above scans 5 times slower).
_JSON_RAW_PARTS = [re.compile(p) for p in (
    rb"\xc2[\x80-\x9f\xad]", rb"\xe2\x80[\x8b-\x8f\xa8-\xae]", rb"\xe2\x81[\xa0-\xa4\xa6-\xaf]")]
#: The lead bytes of the others, rare in text: the whole pattern is searched only when one is there.
_JSON_RARE_LEADS = (b"\xcd", b"\xd8", b"\xe1", b"\xe3", b"\xef", b"\xf3")


def _json_needs_escapes(raw: bytes) -> bool:
    if raw.isascii():  # most events
        return b"\x7f" in raw
    if b"\x7f" in raw or any(p.search(raw) for p in _JSON_RAW_PARTS):
        return True
    return any(lead in raw for lead in _JSON_RARE_LEADS) and _JSON_RAW.search(raw) is not None


def json_escape(c: str) -> str:
    """A character as JSON writes it escaped: ``\\uXXXX``, or a surrogate pair past U+FFFF."""
    o = ord(c)
    if o <= 0xFFFF:
        return f"\\u{o:04x}"
    o -= 0x10000
    return f"\\u{0xD800 + (o >> 10):04x}\\u{0xDC00 + (o & 0x3FF):04x}"


def _json_escape(m: re.Match[bytes]) -> bytes:
    return json_escape(m.group().decode()).encode()


def json_safe(raw: bytes) -> bytes:
    """Serialized JSON with those characters as ``\\uXXXX`` escapes: the same JSON, which a
    terminal can show (they can only be in its strings, where such an escape is valid)."""
    if not _json_needs_escapes(raw):
        return raw
    return _JSON_RAW.sub(_json_escape, raw)

