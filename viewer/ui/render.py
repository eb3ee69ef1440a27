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

from rich.markdown import Markdown
from rich.syntax import Syntax
from rich.text import Text

from viewer.core.sanitize import clean, one_line

#: Longest body the detail view renders in full (lines); the rest is summarised.
MAX_DETAIL_LINES = 3000
MAX_DETAIL_CHARS = 400_000
CODE_THEME = "monokai"

STATUS_GLYPHS = {
    "success": ("✓", "green"),
    "failed": ("✗", "red"),
    "rejected": ("⊘", "magenta"),
    "unknown": ("?", "yellow"),
    "unfinished": ("◌", "bright_black"),
}
SPINNER = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"


def status_glyph(status: str, frame: int = 0) -> tuple[str, str]:
    if status == "running":
        return SPINNER[frame % len(SPINNER)], "yellow"
    return STATUS_GLYPHS.get(status, ("?", "yellow"))


def fmt_duration(ms: int | None) -> str:
    if ms is None:
        return ""
    if ms < 1000:
        return f"{ms} ms"
    s = ms / 1000
    if s < 60:
        return f"{s:.1f} s"
    m, s = divmod(int(s), 60)
    if m < 60:
        return f"{m}m{s:02d}s"
    h, m = divmod(m, 60)
    return f"{h}h{m:02d}m"


def fmt_clock(seconds: float) -> str:
    seconds = max(0, int(seconds))
    h, rem = divmod(seconds, 3600)
    m, s = divmod(rem, 60)
    return f"{h}:{m:02d}:{s:02d}" if h else f"{m:02d}:{s:02d}"


def safe_text(text: str, style: str = "") -> Text:
    return Text(clean(text), style=style)


def safe_line(text: str, limit: int | None = None, style: str = "") -> Text:
    return Text(one_line(text, limit), style=style, no_wrap=True, overflow="ellipsis")


def markdown(text: str) -> Markdown:
    return Markdown(clean(text), code_theme=CODE_THEME, hyperlinks=False, inline_code_theme=CODE_THEME)


def truncate_body(body: str) -> tuple[str, str]:
    """(body to render, note about what was left out)."""
    note = ""
    if len(body) > MAX_DETAIL_CHARS:
        cut = body[:MAX_DETAIL_CHARS]
        rest = body.count("\n", MAX_DETAIL_CHARS) + 1
        note = f"… {len(body) - MAX_DETAIL_CHARS:,} more characters ({rest:,} lines) not shown"
        body = cut
    lines = body.split("\n")
    if len(lines) > MAX_DETAIL_LINES:
        extra = len(lines) - MAX_DETAIL_LINES
        body = "\n".join(lines[:MAX_DETAIL_LINES])
        note = f"… {extra:,} more lines not shown" + (f"; {note[2:]}" if note else "")
    return body, note


def lexer_for(name: str, code: str) -> str:
    """A Pygments lexer name from a file name or language, 'text' when unknown."""
    if not name:
        return "text"
    if "/" not in name and "." not in name:
        return name
    try:
        from pygments.lexers import get_lexer_for_filename
        from pygments.util import ClassNotFound

        try:
            return get_lexer_for_filename(name).aliases[0]
        except ClassNotFound:
            return "text"
    except Exception:  # pragma: no cover - pygments always ships with rich
        return "text"


def code(body: str, name: str, line_numbers: bool = True) -> Syntax:
    return Syntax(
        clean(body), lexer_for(name, body), theme=CODE_THEME, line_numbers=line_numbers,
        word_wrap=True, background_color="default",
    )


def diff(body: str) -> Syntax:
    return Syntax(clean(body), "diff", theme=CODE_THEME, word_wrap=True, background_color="default")
