"""Safe rendering of untrusted stream text into Rich renderables.

Rules, applied everywhere in the UI:
- stream text goes through :func:`viewer.core.sanitize.clean` first, so
  escape sequences and other controls are shown as ``\\x1b`` and never reach
  the terminal;
- stream text is never parsed as Rich/Textual markup: we build ``Text``
  objects (or Markdown/Syntax from plain source), never ``Text.from_markup``;
- Markdown links are rendered as text (``hyperlinks=False``) so nothing opens
  on a click.
"""

from __future__ import annotations

import copy
import fnmatch
import functools
import re
from collections.abc import Callable
from itertools import accumulate
from typing import NamedTuple

from markdown_it import MarkdownIt
from rich.cells import cell_len, chop_cells
from rich.console import Console, Group, RenderableType
from rich.markdown import Markdown
from rich.segment import Segment
from rich.style import Style
from rich.syntax import Syntax
from rich.terminal_theme import TerminalTheme
from rich.text import Text
from rich.theme import Theme
from textual.strip import Strip

from viewer.core.detail import STATUS_MARKS, fmt_duration, fmt_wait
from viewer.core.model import Session, ToolCall
from viewer.core.sanitize import SGR, clean, composed, joined, one_line

#: The detail view renders a body in chunks of at most this many lines and characters, so
#: only the chunks on screen are highlighted and wrapped (a 10 MB file opens at once).
CHUNK_LINES = 100
CHUNK_CHARS = 2_048
#: A line up to this long is one chunk, however long (cut at CHUNK_CHARS, its second piece
#: began a row of its own, numbered again); a longer one (minified code) is cut in pieces.
LONG_LINE = 16_384
#: Longest body the detail view shows at all; the rest is summarised.
MAX_DETAIL_CHARS = 32 << 20
#: Tabs stop every this many columns, as a terminal's do, in all stream text: a command's
#: output (Rich's Text: every 8 cells), a file, a diff, code in a message (Rich's Syntax:
#: every 4 characters, its default, not a choice) alike.
TAB_SIZE = 8
#: Pygments styles for code, in a dark and in a light theme (palette: Theme): monokai's plain
#: text is near white, unreadable on a light pane; every colour of xcode's is readable there.
CODE_THEMES = {True: "monokai", False: "xcode"}
CODE_THEME = CODE_THEMES[True]
#: ... and for a diff: xcode gives added and removed lines no colour at all (a light theme
#: showed an edit's diff all in black); Pygments' own style gives them green and red.
DIFF_THEMES = {True: "monokai", False: "default"}
DIFF_THEME = DIFF_THEMES[True]
#: The named colours ("yellow" warnings, "cyan" paths, a command's green and red) on a light
#: theme.  Textual's own (ALABASTER) gave 1.3:1 to 3.2:1 on textual-light's grey (bright green
#: pytest output, yellow warnings): these give 4.6:1 or more there, on white 6:1, and black on
#: them (the header's badges) 3.4:1.  The bright ones are the same (a light theme's "bright"
#: colours are paler, the wrong way).
_LIGHT_COLOURS = [(196, 16, 10), (24, 112, 6), (126, 91, 7), (11, 87, 218), (168, 10, 183), (7, 107, 126)]
LIGHT_ANSI = TerminalTheme((247, 247, 247), (0, 0, 0), [(0, 0, 0), *_LIGHT_COLOURS, (247, 247, 247)],
                           [(97, 97, 97), *_LIGHT_COLOURS, (255, 255, 255)])
#: Backgrounds of the header's badges and of search matches: the colours the dark theme gives
#: these names, fixed.  A light theme draws named colours dark, to be read as text
#: (LIGHT_ANSI): black words on them were hard to read.
BADGE = {"yellow": "#fd971f", "green": "#98e024", "red": "#f4005f", "magenta": "#f4005f", "cyan": "#58d1eb",
         "grey": "#625e4c"}
#: A search match, drawn over whatever style the text had.
MATCH_STYLE = Style(color="black", bgcolor=BADGE["yellow"], bold=True)
#: The left edge of the transcript's block that a search went to.
MATCH_BAR = Style(color=BADGE["yellow"], bold=True)
#: The match a search went to last, where several are on screen.
CURRENT_MATCH_STYLE = Style(color="white", bgcolor=BADGE["magenta"], bold=True, underline=True)

_STATUS_COLOURS = {"success": "green", "failed": "red", "rejected": "magenta", "unknown": "yellow",
                   "unfinished": "bright_black"}
STATUS_GLYPHS = {status: (mark, _STATUS_COLOURS[status]) for status, mark in STATUS_MARKS.items()}
SPINNER = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"


def status_glyph(status: str, frame: int = 0) -> tuple[str, str]:
    if status == "running":
        return SPINNER[frame % len(SPINNER)], "yellow"
    return STATUS_GLYPHS.get(status, ("?", "yellow"))


def call_time(t: ToolCall, running_for: Callable[[ToolCall], int]) -> str:
    """A call's time as the tool list and the transcript say it: its duration once it is over
    (or cut off), else how long it has run, from a second on ("12 s…": is it stuck?); "" when
    not known."""
    if t.status != "running":
        return fmt_duration(t.duration_ms)
    secs = running_for(t)
    return f"{fmt_wait(secs)}…" if secs else ""


def fit_before(target: str, rest: int, cells: int) -> str:
    """``target`` cut at its end ("…") so that ``rest`` cells after it fit in ``cells``, when
    they take at most half: a call's summary after a long command ("· exit 1", its time) is
    what says how it went, and was the part cut off."""
    room = cells - rest
    if cell_len(target) <= room or rest > cells // 2 or room < 2:
        return target
    if pathlike(target):  # (its end, the file's name, says most)
        return keep_end(target, room)
    return cut_end(target, room)


def pathlike(target: str) -> bool:
    """A call's target that is a path, cut at its start to fit (a URL keeps its host: it is cut
    at its end, as a command is)."""
    return "/" in target and " " not in target and "://" not in target


def keep_end(text: str, cells: int) -> str:
    """``text`` cut from the left to ``cells`` columns, "…" first (wide characters count two).
    A letter keeps its marks: a cut between them left the accent of a name in NFD (as macOS
    writes them) on the "…"."""
    if cell_len(text) <= cells:
        return text
    room = cells - 1
    if text.isascii():
        return "…" + text[len(text) - max(0, room):]
    start = len(text)
    while start > 0:
        i = start - 1
        while i > 0 and joined(text, i):
            i -= 1
        w = cell_len(text[i:start])
        if w > room:
            break
        room -= w
        start = i
    return "…" + text[start:]


def cut_end(text: str, cells: int) -> str:
    """``text`` cut at its end to at most ``cells`` columns, "…" last.  A wide character that
    does not fit is left out, not made a space (``echo '全部 …`` read as part of the command),
    and a letter keeps its marks."""
    if cell_len(text) <= cells:
        return text
    room = max(0, cells - 1)
    if text.isascii():
        return text[:room] + "…"
    end, n = 0, len(text)
    while end < n:
        i = end + 1
        while i < n and joined(text, i):
            i += 1
        w = cell_len(text[end:i])
        if w > room:
            break
        room -= w
        end = i
    return text[:end] + "…"


def expand_tabs(text: str, size: int = TAB_SIZE) -> str:
    """``text`` with each tab made the spaces to the next stop, every ``size`` columns counted
    in cells, as the terminal draws them.  (``str.expandtabs`` counts characters: in a file's
    table, a column after ``りんご`` came out one cell left of the one after ``apple``.)"""
    if "\t" not in text:
        return text
    if text.isascii():
        return text.expandtabs(size)
    lines = text.split("\n")
    for k, line in enumerate(lines):
        if "\t" not in line or line.isascii():
            lines[k] = line.expandtabs(size)
            continue
        pieces = line.split("\t")
        column = 0
        for p, piece in enumerate(pieces[:-1]):
            column += cell_len(piece)
            pad = size - column % size
            pieces[p] = piece + " " * pad
            column += pad
        lines[k] = "".join(pieces)
    return "\n".join(lines)


#: A followed run's clock from its own times, when they are at most this long ago (a week;
#: else the agent's clock is not this machine's, and it counts from when the viewer read it).
MAX_WALL_ELAPSED = 7 * 86400


def own_since(ms: float | None, wall: float) -> float | None:
    """Seconds from ``ms`` (an event's own time, ms since the epoch) to ``wall`` (now, seconds
    since the epoch), when the agent's clock is this machine's (0 to MAX_WALL_ELAPSED ago); else
    None.  What a followed file held as it was opened came at once, whenever it was written:
    a run or call under way then is timed from its own start."""
    if ms is None:
        return None
    since = wall - ms / 1000
    return since if 0 <= since <= MAX_WALL_ELAPSED else None


def fmt_clock(seconds: float) -> str:
    seconds = max(0, int(seconds))
    h, rem = divmod(seconds, 3600)
    m, s = divmod(rem, 60)
    return f"{h}:{m:02d}:{s:02d}" if h else f"{m:02d}:{s:02d}"


#: Inline code in Markdown (Rich's "markdown.code"): its bold cyan on black was a black box on
#: a light theme's page.
INLINE_CODE = {True: Style(bold=True, color="cyan", bgcolor="black"),
               False: Style(bold=True, color="#0a3069", bgcolor="#dde3ea")}


def use_code_theme(dark: bool, console: Console | None = None) -> None:
    """Code is highlighted from now on for a dark (or a light) theme, and ``console`` draws
    inline code in its colours; drawn lines are not redrawn here (the panes clear their caches
    when the theme changes)."""
    global CODE_THEME, DIFF_THEME
    if CODE_THEME != CODE_THEMES[dark]:
        CODE_THEME, DIFF_THEME = CODE_THEMES[dark], DIFF_THEMES[dark]
        _SharedParser.template = None
    if console is not None:
        if getattr(console, "_inline_code_theme", None) is not None:
            console.pop_theme()  # (the last one this pushed: one on the stack at a time)
        console.push_theme(Theme({"markdown.code": INLINE_CODE[dark]}, inherit=False))  # (the rest from below)
        console._inline_code_theme = dark  # type: ignore[attr-defined]


class StillWritten(NamedTuple):
    """A saved file whose run has no result looks still written: the header and the
    transcript's end say so."""

    run: Session  # its last run
    why: str  # "it changed 3 s before it was read"
    command: str  # what reads on: agent-viewer --follow 'my run.ndjson'


def safe_text(text: str, style: str = "") -> Text:
    return Text(clean(text), style=style)


def terminal_text(text: str) -> Text:
    """A command's output: SGR colour codes become styles; every other escape sequence
    and control character is shown escaped (``\\x1b[2J``), as everywhere else."""
    if "\x1b[" not in text:
        return safe_text(text)
    pieces: list[str] = []
    pos = 0
    for m in SGR.finditer(text):
        pieces.append(clean(text[pos : m.start()]))
        pieces.append(m.group())
        pos = m.end()
    pieces.append(clean(text[pos:]))
    # Only SGR sequences are left unescaped: the decoder turns them into styles.
    out = Text.from_ansi("".join(pieces), end="")
    if text.endswith("\n"):  # (its decoder splits lines and drops the last newline: a text
        out.append("\n")  # ending in a blank line was drawn a row short, as plain text is not)
    for i, span in enumerate(out.spans):  # (shown, never hidden nor blinking: SGR 8 hid text)
        style = span.style
        if not isinstance(style, Style):
            continue
        if style.conceal or style.blink or style.blink2:
            style = style + _SHOWN
        if style.color is not None and style.color == style.bgcolor:  # (black on black)
            style = style + _DEFAULT_BACKGROUND
        if style is not span.style:
            out.spans[i] = span._replace(style=style)
    return out


_SHOWN = Style(conceal=False, blink=False, blink2=False)
_DEFAULT_BACKGROUND = Style(bgcolor="default")


def markup_literal(text: str) -> str:
    """``text`` as Textual markup that reads as ``text`` itself, for the few places that take
    only markup (the command palette's titles).  Every ``[`` is escaped (a backslash before
    one stays as it is): ``textual.markup.escape`` lets ``[$error]`` (a variable) through."""
    return text.replace("[", "\\[")


def safe_line(text: str, limit: int | None = None, style: str = "") -> Text:
    return Text(one_line(text, limit), style=style, no_wrap=True, overflow="ellipsis")


class _SharedParser:
    """Rich's Markdown with one parser for all.  ``Markdown()`` builds a new ``MarkdownIt``
    each time: 0.4 ms, ten times the parse of a short segment, and the open segment of a live
    run is drawn again at every frame.  A parser keeps no state between ``parse`` calls.  Each
    Markdown is a copy of one built once (so it has every attribute Rich's ``__init__`` sets),
    given its own text; a test checks that both render alike."""

    template: Markdown | None = None
    parser: MarkdownIt | None = None

    @classmethod
    def get_parser(cls) -> MarkdownIt:
        if cls.parser is None:
            # No HTML: Rich draws none of it, so "in <module>" read "in", and a <details> or
            # <!-- --> block hid its text.  Nesting deeper than markdown-it's 20 levels dropped
            # the rest of the message.
            cls.parser = MarkdownIt("commonmark", {"html": False, "maxNesting": 100}).enable(
                "strikethrough").enable("table")
        return cls.parser

    @classmethod
    def markdown(cls, markup: str, style: str) -> Markdown:
        if cls.template is None:
            cls.template = Markdown("", code_theme=CODE_THEME, hyperlinks=False, inline_code_theme=CODE_THEME)
        md = copy.copy(cls.template)
        md.markup = markup
        md.parsed = cls.get_parser().parse(markup)
        _clean_tokens(md.parsed)
        md.style = style
        return md


def _clean_tokens(tokens) -> None:
    """The text of parsed Markdown, cleaned again: markdown-it decodes what the text held
    encoded, after :func:`clean` had seen it.  An autolink shows its address percent-decoded
    (``<http://x/%1b]0;title%07>`` gave a real ESC: the window's title was set, the screen
    cleared, the clipboard written), an autolink's host is decoded from punycode
    (``<http://xn--zvg/>`` gives U+202E, ``xn--1a`` a C1 CSI), and an entity (``&#x202E;``)
    gives the character."""
    for tok in tokens:
        if tok.content:
            tok.content = clean(tok.content)
            if tok.type in ("fence", "code_block"):  # (Rich's Syntax would count characters)
                tok.content = expand_tabs(tok.content)
        if tok.attrs:
            tok.attrs = {k: clean(v) if isinstance(v, str) else v for k, v in tok.attrs.items()}
        if tok.children:
            _clean_tokens(tok.children)


def markdown(text: str, style: str = "none") -> Markdown:
    return _SharedParser.markdown(clean(text), style)


#: A transcript text longer than this (a message, a prompt, thinking) is drawn as Markdown up
#: to here, and the rest as plain text (see :func:`prose`) ...
BIG_TEXT = 64 * 1024
#: ... or this many lines (16,000 one-line headings within 64 KB took 1 s to draw).
MARKDOWN_LINES = 2_000
#: ... up to this many more lines or characters: a block is drawn whole to be measured, and
#: 600,000 lines took 12 s.  What is past them is counted, not drawn.
PLAIN_LINES, PLAIN_CHARS = 10_000, 512 * 1024


def prose(text: str, style: str = "none", as_markdown: bool = True) -> RenderableType:
    """Text of the transcript: Markdown (or plain), and past BIG_TEXT (or MARKDOWN_LINES of
    Markdown) plain and cheaply wrapped, PLAIN_LINES or PLAIN_CHARS at most, then counted.
    (From an adversarial trial.)  One message of 1.5 MB froze the app for 16 s, one of 7.7 MB
    for minutes: Rich's Markdown and its wrapping of a very long line cost seconds a MB
    (escapes cost ten times more), and the block is drawn whole to be measured."""
    head_end, rest_end = prose_parts(text, as_markdown)
    if head_end == len(text):
        return markdown(text, style) if as_markdown else safe_text(text, style="" if style == "none" else style)
    return Group(prose(text[:head_end], style, as_markdown), *prose_rest(text, head_end, rest_end, style))


def prose_rest(text: str, head_end: int, rest_end: int, style: str = "none") -> list[RenderableType]:
    """What :func:`prose` draws of a big text after its first part (see :func:`prose_parts`)."""
    if head_end == len(text):
        return []
    parts: list[RenderableType] = [
        Text(f"(the rest, {len(text) - head_end:,} characters, as plain text)", style="dim italic"),
        _Wrapped(clean(text[head_end:rest_end]), "" if style == "none" else style),
    ]
    if rest_end < len(text):
        parts.append(Text(f"… {len(text) - rest_end:,} more characters, not drawn here", style="bold yellow"))
    return parts


#: Blocks a piece of Markdown may begin with (see settle_points); not an empty heading (drawn
#: with a line more at a text's start: found by a property test).
_PIECE_STARTS = frozenset({"paragraph_open", "heading_open", "fence"})


def settle_points(text: str, start: int = 0) -> list[int] | None:
    """Where Markdown ``text`` can be cut into pieces that are drawn the same apart as
    together (each piece drawn alone, a blank line between them): where a block of the text's
    top level begins, after a blank line, and not after a rule (Rich puts no blank line after
    one), as the Markdown parser reads it.  From ``start``, a place returned before; not at
    the last line while it may be unfinished.  None when the text defines a link reference
    (it may change a link anywhere).  Lets a long text that is still streaming draw only its
    last piece again (see Transcript)."""
    src = text[start:]
    env: dict = {}
    tokens = _SharedParser.get_parser().parse(clean(src), env)  # (as markdown() reads it)
    if env.get("references"):
        return None
    lines = src.split("\n")  # (clean() keeps every newline, and makes no other)
    offsets = list(accumulate((len(line) + 1 for line in lines), initial=start))
    points: list[int] = []
    after_rule = False
    for i, tok in enumerate(tokens):
        if tok.level or tok.nesting < 0 or tok.map is None:
            continue
        begin = tok.map[0]
        if (tok.type in _PIECE_STARTS and 0 < begin < len(lines) - 1 and not after_rule
                and not lines[begin - 1].strip(" \t")
                and (tok.type != "heading_open" or tokens[i + 1].content.strip())):
            points.append(offsets[begin])
        after_rule = tok.type == "hr"
    return points


def drawn(text: str, as_markdown: bool = True) -> str:
    """What :func:`prose` draws of ``text`` (search finds only that: a hit past it was said,
    and could not be shown)."""
    return text[: prose_parts(text, as_markdown)[1]]


def prose_parts(text: str, as_markdown: bool = True) -> tuple[int, int]:
    """Where :func:`prose` ends its Markdown (or its first part of plain text), and its plain
    text.  (The line limit is Markdown's: plain text is cheap by the line.)"""
    lines = MARKDOWN_LINES if as_markdown else None
    if len(text) <= BIG_TEXT and (lines is None or text.count("\n", 0, BIG_TEXT) <= lines):
        return len(text), len(text)
    head_end = _cut(text, 0, BIG_TEXT, lines)
    return head_end, _cut(text, head_end, PLAIN_CHARS, PLAIN_LINES)


def _cut(text: str, start: int, chars: int, lines: int | None = None) -> int:
    """Where a piece of ``text`` from ``start`` ends: after at most ``chars`` characters (and
    ``lines`` lines), at the end of a line if one ends in its second half."""
    end = min(len(text), start + chars)
    if lines is not None:
        at = start
        for _ in range(lines):
            at = text.find("\n", at, end) + 1
            if not at:
                break
        else:
            end = at
    if end == len(text):
        return end
    nl = text.rfind("\n", start + (end - start) // 2, end)
    return end if nl < 0 else nl + 1


class _Wrapped:
    """Plain text cut at the width (its words too): a line of megabytes (minified code, base64)
    takes Rich's word wrap seconds; here it is sliced."""

    def __init__(self, text: str, style: str = "") -> None:
        self.text, self.style = text, style

    def __rich_console__(self, console, options):
        width = max(1, options.max_width)
        style = console.get_style(self.style) if self.style else None
        new_line = Segment.line()
        lines = self.text.split("\n")
        if len(lines) > 1 and not lines[-1]:
            lines.pop()  # (a last newline ends the last line: no empty one after it)
        for line in lines:
            line = expand_tabs(line) if "\t" in line else line
            if line.isascii():
                pieces = [line[i : i + width] for i in range(0, len(line), width)] or [""]
            else:
                pieces = chop_cells(line, width) or [""]
            for piece in pieces:
                yield Segment(piece, style)
                yield new_line


def truncate_body(body: str) -> tuple[str, str]:
    """(body to render, note about what was left out)."""
    if len(body) <= MAX_DETAIL_CHARS:
        return body, ""
    rest = body.count("\n", MAX_DETAIL_CHARS) + 1
    return body[:MAX_DETAIL_CHARS], f"… {len(body) - MAX_DETAIL_CHARS:,} more characters ({rest:,} lines) not shown"


def chunk_lines(body: str, start: int = 0, line: int = 1, limit: int | None = None) -> list[tuple[int, int, int, int]]:
    """Cut a body into chunks of at most CHUNK_LINES lines and CHUNK_CHARS characters, as
    ``(first line number, start, end, lines)`` spans of ``body`` (sliced only when drawn).

    Chunks end at a newline, which belongs to neither chunk; a line longer than CHUNK_CHARS
    is a chunk of its own, and one longer than LONG_LINE is cut into pieces, each numbered
    with the line it belongs to.  Boundaries
    are found with ``rfind``/``count`` over the string, so a 10 MB body is never split into
    a list of its lines (that alone took 40 ms and 15 MB).

    From ``start`` (line number ``line``) on; with a ``limit``, it stops at the first chunk
    that ends at or past it (:func:`chunks_resume` says where the next one starts)."""
    n = len(body)
    out: list[tuple[int, int, int, int]] = []
    window = CHUNK_CHARS  # narrower while lines are short, so each character is scanned ~once
    while True:
        end, sep = start + window, False
        if end >= n:
            end = n
        else:
            nl = body.rfind("\n", start, end + 1)  # a newline right after a full chunk will do
            if nl < 0:  # one line longer than the window: all of it, up to LONG_LINE
                nl = body.find("\n", end, start + LONG_LINE + 1)
                if nl < 0:
                    end = min(n, start + LONG_LINE)
            if nl >= 0:
                end, sep = nl, True
        newlines = body.count("\n", start, end)
        if newlines >= CHUNK_LINES:  # many short lines: cut after CHUNK_LINES of them
            head = body[start:end].split("\n", CHUNK_LINES)
            end = start + sum(map(len, head[:CHUNK_LINES])) + CHUNK_LINES - 1
            sep, newlines = True, CHUNK_LINES - 1
            window = min(CHUNK_CHARS, max(256, 2 * (end - start)))
        elif window < CHUNK_CHARS:
            window = min(CHUNK_CHARS, 2 * window)
        out.append((line, start, end, newlines + 1))
        if not sep and end == n:
            return out
        line += newlines + sep
        start = end + sep
        if limit is not None and start >= limit:
            return out


def chunks_resume(body: str, span: tuple[int, int, int, int]) -> tuple[int, int]:
    """Where the chunk after ``span`` starts: (offset, line number)."""
    first, _, end, lines = span
    sep = end < len(body) and body[end] == "\n"
    return end + sep, first + lines - 1 + sep


def lexer_for(name: str, code: str = "") -> str:
    """A Pygments lexer name from a file name or language, 'text' when unknown."""
    if not name:
        return "text"
    if "/" not in name and "." not in name and name not in _lexer_table()[0]:
        # A language name ("python"), not a file name like "Makefile".  (A long one is no
        # language: Pygments took a second to look up a 5 MB "path".)
        return name if len(name) <= 40 else "text"
    return _lexer_for_file(name.rsplit("/", 1)[-1])


@functools.lru_cache(maxsize=512)
def _lexer_for_file(base: str) -> str:
    """Pygments' choice for a file name. Its own lookup compiles every lexer's file pattern
    the first time (~140 ms, felt as a stall when the first file opens), so names that only
    one lexer claims (or none does), by a plain ``*.ext`` or an exact name, are answered
    from a table built from Pygments' mapping; anything ambiguous goes to Pygments."""
    exact, simple, globs = _lexer_table()
    claims = set(exact.get(base, ()))
    dot = base.find(".")
    while dot != -1:
        claims.update(simple.get(base[dot + 1:], ()))
        dot = base.find(".", dot + 1)
    if not any(fnmatch.fnmatchcase(base, g) for g in globs):
        if not claims:
            return "text"
        if len(claims) == 1:
            return claims.pop()
    try:
        from pygments.lexers import get_lexer_for_filename
        from pygments.util import ClassNotFound

        try:
            return get_lexer_for_filename(base).aliases[0]
        except ClassNotFound:
            return "text"
    except Exception:  # pragma: no cover - pygments always ships with rich
        return "text"


@functools.lru_cache(maxsize=1)
def _lexer_table() -> tuple[dict[str, list[str]], dict[str, list[str]], list[str]]:
    """(exact file name -> lexers, extension -> lexers, the remaining glob patterns)."""
    exact: dict[str, list[str]] = {}
    simple: dict[str, list[str]] = {}
    globs: list[str] = []
    try:
        from pygments.lexers._mapping import LEXERS
    except Exception:  # pragma: no cover - a Pygments without its mapping: always ask it
        return exact, simple, ["*"]
    for _module, _name, aliases, patterns, _mimes in LEXERS.values():
        if not aliases:
            globs.extend(patterns)  # a lexer without a name: let Pygments decide
            continue
        for pattern in patterns:
            if pattern.startswith("*.") and not _GLOB.search(pattern[2:]):
                simple.setdefault(pattern[2:], []).append(aliases[0])
            elif not _GLOB.search(pattern):
                exact.setdefault(pattern, []).append(aliases[0])
            else:
                globs.append(pattern)
    return exact, simple, globs


_GLOB = re.compile(r"[*?\[\]]")


class _Code(Syntax):
    """Syntax whose line-number column is as wide as the whole body's last number, so the
    chunks of one body line up (Rich sizes it from the chunk's own last line)."""

    last_line = 0

    @property
    def _numbers_column_width(self) -> int:
        width = super()._numbers_column_width
        if width and self.last_line:
            width = max(width, len(str(self.last_line)) + 2)  # Rich's padding
        return width


def code(
    body: str, name: str, line_numbers: bool = True, start_line: int = 1, lexer: str = "",
    last_line: int = 0,
) -> Syntax:
    """Highlighted source; ``last_line`` is the last line number of the whole body when this
    is one chunk of it."""
    syntax = _Code(
        expand_tabs(clean(body)), lexer or lexer_for(name, body), theme=CODE_THEME,
        line_numbers=line_numbers, word_wrap=True, background_color="default", start_line=start_line,
        tab_size=TAB_SIZE,
    )
    syntax.last_line = last_line
    return syntax


class _HangingLines:
    """Highlighted lines whose wrapped parts keep the line's indentation, two columns deeper:
    a long value in indented JSON does not break the shape of the nesting around it."""

    def __init__(self, text: Text) -> None:
        self.text = text

    @staticmethod
    def head(plain: str) -> tuple[int, int] | None:
        """Where a line too long for its row is wrapped from (a character), and how many cells
        its next rows are indented by; None: Rich wraps it whole."""
        indent = len(plain) - len(plain.lstrip(" "))
        return indent, indent + 2

    def __rich_console__(self, console, options):
        width = max(1, options.max_width)
        for line in self.text.split("\n", allow_blank=True):
            plain = line.plain
            place = self.head(plain) if cell_len(plain) > width else None
            if place is None or place[1] + 20 > width:  # too deep for this width (or a tiny one)
                yield line
                continue
            start, hang = place
            body = line[start:]
            parts = body.wrap(console, width - hang)
            tail = parts[-1].plain.strip()
            if len(parts) > 1 and len(tail) <= 2 and tail and not tail[0].isalnum():
                # Only the closing '",' or ',' was left for the last row: wrap a little
                # narrower so that it goes with the end of the value.
                parts = body.wrap(console, width - hang - len(tail) - 1)
            for i, part in enumerate(parts):
                # (before the body: as written, unstyled; a highlighter's indentation has a background)
                yield Text.assemble(plain[:start] if i == 0 else " " * hang, part, no_wrap=True)


class _FieldRows(_HangingLines):
    """"name  value" rows (a call's arguments): a value too long for its row goes on under
    the value's start, so that the names stay a column of their own (it went on at column 0,
    under the names)."""

    @staticmethod
    def head(plain: str) -> tuple[int, int] | None:
        m = _VALUE_AT.match(plain)
        return (m.end(), cell_len(m.group())) if m else None


#: Where a row's value starts: after its name and the two spaces (or more: names are padded)
#: that follow it.
_VALUE_AT = re.compile(r"\S.*?  +(?=\S)")


def field_rows(body: str) -> _FieldRows:
    """"name  value" rows (see :class:`_FieldRows`), as literal text."""
    return _FieldRows(safe_text(body))


def json_text(body: str) -> _HangingLines:
    """Indented JSON, highlighted; wrapped lines keep their indentation."""
    syntax = Syntax("", "json", theme=CODE_THEME, background_color="default", tab_size=TAB_SIZE)
    text = syntax.highlight(expand_tabs(clean(body)))
    if text.plain.endswith("\n") and not body.endswith("\n"):
        text.right_crop(1)  # (Syntax ends it with a newline: a blank row after every chunk of JSON)
    return _HangingLines(text)


def diff(body: str) -> Syntax:
    return Syntax(expand_tabs(clean(body)), "diff", theme=DIFF_THEME, word_wrap=True, background_color="default",
                  tab_size=TAB_SIZE)


#: A body this long or longer is not composed to be drawn and searched (see fold): checking a
#: 10 MB result took 22 ms of the 60 ms it took to show.  A search in it finds an accent
#: written as it is written there.
COMPOSE_MAX = 1 << 20


def fold(text: str, compose: bool = True) -> str:
    """``text`` as a search compares it: composed (see sanitize.composed: an accent written
    either way) and in lower case, a character for a character, so that an offset in it is one
    in ``text`` when that is composed already, as all the TUI draws is (``str.lower`` makes İ
    two characters, ``casefold`` ß two, ﬁ two: a line with one was never marked, and the
    offsets of matches after it were off)."""
    if text.isascii():
        return text.lower()
    if compose:
        text = composed(text)
    if "\u0130" in text:  # (İ: the one such letter; found in one pass, not lowered twice)
        low = "\u0130".join(part.lower() for part in text.split("\u0130"))
    else:
        low = text.lower()
    if len(low) == len(text):
        return low
    return "".join(c if len(c.lower()) != 1 else c.lower() for c in text)  # pragma: no cover


def across_wrap(above: str, below: str, q: str) -> tuple[int, int] | None:
    """Where ``q`` (folded) runs from the end of line ``above`` on to the start of line
    ``below`` (both folded: a wrap, which took the space between two words, or cut a long
    one): (its start in ``above``, its end in ``below``), the first such; None if it does not."""
    a_end = len(above.rstrip())
    b_start = len(below) - len(below.lstrip())
    head, tail = above[:a_end], below[b_start:]
    for sep in (" ", ""):
        joined = head + sep + tail
        at = joined.find(q, max(0, a_end - len(q) + 1))
        if 0 <= at < a_end and at + len(q) > a_end + len(sep):
            return at, b_start + at + len(q) - a_end - len(sep)
    return None


def line_showing(lows: list[str], q: str) -> int | None:
    """The first of ``lows`` (the folded lines of one text, as drawn) that ``q`` (folded) is
    on, or runs from on to the next across a wrap (where :func:`mark_matches` marks it with
    ``across``); None if none."""
    for k, low in enumerate(lows):
        if q in low or (k + 1 < len(lows) and across_wrap(low, lows[k + 1], q) is not None):
            return k
    return None


def mark_matches(strips: list[Strip], query: str, style: Style, current: int = -1,
                 current_style: Style | None = None, across: bool = False) -> list[Strip]:
    """``strips`` with every occurrence of ``query`` in any case (see :func:`fold`) drawn in
    ``style``; the ``current``-th of the first strip in ``current_style``.  ``across``: the
    strips are the lines of one text, and an occurrence cut by a line's wrap is marked too,
    on both lines (else it is not)."""
    q = fold(query)
    if not q:
        return strips
    texts = [strip.text for strip in strips]
    lows = [fold(text) for text in texts]
    spans: list[list[tuple[int, int]]] = [[] for _ in strips]  # (start, end) in each line's text
    for k, low in enumerate(lows):
        i = low.find(q)
        while i != -1:
            spans[k].append((i, i + len(q)))
            i = low.find(q, i + len(q))
    if across:
        for k in range(len(strips) - 1):
            cut = across_wrap(lows[k], lows[k + 1], q)
            if cut is not None:
                spans[k].append((cut[0], len(lows[k].rstrip())))
                spans[k + 1].insert(0, (len(lows[k + 1]) - len(lows[k + 1].lstrip()), cut[1]))
    out = []
    for k, strip in enumerate(strips):
        found = sorted(spans[k])
        if not found:
            out.append(strip)
            continue
        merged: list[list[int]] = []
        for a, b in found:  # (an occurrence at a line's end and one across its wrap may overlap)
            if merged and a <= merged[-1][1]:
                merged[-1][1] = max(merged[-1][1], b)
            else:
                merged.append([a, b])
        text = texts[k]
        cuts: list[int] = []
        for a, b in merged:
            start = cell_len(text[:a])
            cuts += (start, start + cell_len(text[a:b]))
        cuts.append(strip.cell_length)
        parts = strip.divide(cuts)
        nth = current if k == 0 and current_style is not None else -1  # (that one is current)
        out.append(Strip.join(
            Strip(Segment.apply_style(part, post_style=current_style if j // 2 == nth else style), part.cell_length)
            if j % 2 else part
            for j, part in enumerate(parts)
        ))
    return out
