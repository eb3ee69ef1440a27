"""The pure pieces of the UI's rendering: sanitizing and chunking long bodies."""

from __future__ import annotations

import os
import unicodedata

import orjson
import pytest
from hypothesis import given
from hypothesis import strategies as st

from viewer.core.sanitize import _TABLE, clean, json_safe, one_line
from viewer.ui.render import CHUNK_CHARS, CHUNK_LINES, LONG_LINE, chunk_lines, fold

LINE = st.one_of(
    st.text(alphabet="ab\t", max_size=12),
    st.integers(0, 3 * CHUNK_CHARS).map(lambda n: "x" * n),
    st.integers(LONG_LINE - 2, 2 * LONG_LINE + 2).map(lambda n: "y" * n),
)


def test_a_chunk_after_many_short_lines_is_no_wider_than_a_chunk():
    """(From a code review.)  After a cut at 100 short lines the window doubled past
    CHUNK_CHARS: 99-character lines then came as one 2,899-character chunk."""
    body = "\n".join(["ab" * 5] * 100 + ["y" * 99] * 40)
    assert all(end - start <= CHUNK_CHARS for _, start, end, _ in chunk_lines(body))


@given(st.lists(LINE, max_size=3 * CHUNK_LINES))
def test_chunks_hold_every_character_with_the_right_line_numbers(lines):
    body = "\n".join(lines)
    chunks = chunk_lines(body)
    rebuilt: list[str] = []
    for first, start, end, count in chunks:
        text = body[start:end]
        parts = text.split("\n")
        assert count == len(parts)
        assert len(parts) <= CHUNK_LINES
        # A line longer than CHUNK_CHARS is a chunk of its own, cut only past LONG_LINE.
        assert len(text) <= CHUNK_CHARS or (count == 1 and len(text) <= LONG_LINE)
        for k, part in enumerate(parts):
            n = first + k
            if len(rebuilt) < n:
                rebuilt.append(part)
            else:  # a piece of a line longer than LONG_LINE
                assert len(rebuilt) == n and k == 0 and len(rebuilt[-1]) >= LONG_LINE
                rebuilt[-1] += part
    assert rebuilt == body.split("\n")


def test_a_short_body_is_one_chunk():
    assert chunk_lines("a\nb") == [(1, 0, 3, 2)]
    assert chunk_lines("") == [(1, 0, 0, 1)]
    assert chunk_lines("a\n") == [(1, 0, 2, 2)]


#: Scripts written with zero-width (non-)joiners, by the start of their characters' names.
_JOINING = ("ARABIC", "SYRIAC", "THAANA", "NKO", "SAMARITAN", "MANDAIC", "DEVANAGARI", "BENGALI",
            "GURMUKHI", "GUJARATI", "ORIYA", "TAMIL", "TELUGU", "KANNADA", "MALAYALAM", "SINHALA",
            "MYANMAR", "KHMER")


def _joins(text: str, i: int) -> bool:
    """(Spelled out again, another way, for the properties below.)  A joiner between two letters
    or marks of a script written with joiners is kept."""
    import unicodedata

    def joining(c: str) -> bool:
        return (unicodedata.category(c)[0] in "LM" and ord(c) not in _TABLE
                and unicodedata.name(c, "").startswith(_JOINING))

    return 0 < i < len(text) - 1 and joining(text[i - 1]) and joining(text[i + 1])


def _between_emoji(text: str, i: int) -> bool:
    """A zero-width joiner between two emoji (the first may end in a skin tone or U+FE0F)."""
    import unicodedata

    def emoji(c: str) -> bool:  # by name: not the regional indicators, box drawing, ©, …
        name = unicodedata.name(c, "")
        return unicodedata.category(c) == "So" and (ord(c) >= 0x1F300 or 0x2600 <= ord(c) <= 0x27BF) \
            and not name.startswith("REGIONAL INDICATOR")

    if text[i] != "\u200d" or not 0 < i < len(text) - 1 or not emoji(text[i + 1]):
        return False
    j = i - 1
    if text[j] == "\ufe0f" or 0x1F3FB <= ord(text[j]) <= 0x1F3FF:
        j -= 1
    return j >= 0 and emoji(text[j])


def _check_escapes(raw: str) -> None:
    def shown(i: int, c: str, grid: bool) -> str:
        if c in "\u200c\u200d" and _joins(text, i):
            return c
        if _between_emoji(text, i):
            return "" if grid else c
        if grid and (c == "\ufe0f" or 0x1F3FB <= ord(c) <= 0x1F3FF):  # (widths terminals disagree on)
            return ""
        return _TABLE.get(ord(c), c)

    for grid in (True, False):
        text = unicodedata.normalize("NFC", raw) if grid else raw  # (the grid draws text composed)
        expected = "".join(shown(i, c, grid) for i, c in enumerate(text))
        assert clean(raw, grid) == expected
        assert one_line(raw, grid=grid) == expected.replace("\n", "⏎").replace("\t", " ")


@given(st.text())
def test_clean_escapes_exactly_the_table_but_joiners_inside_a_word(text):
    _check_escapes(text)


@given(st.text(alphabet=st.sampled_from(["\u200c", "\u200d", "a", "\u0628", "\u0915", "\u094d", "\n",
                                         "\U0001f468", "\u200b", "\u0434", "\u7ba1", "\u1ea1", "\u0301",
                                         "\u3164", "\u1780", "\u0710", "\ufe8d", "\U0001f469", "\ufe0f",
                                         "\U0001f3fd", "\u2500", "\U0001f1fa", "\u00a9"])))
def test_joiners_are_escaped_unless_inside_a_word_of_a_non_latin_script(text):
    _check_escapes(text)


def test_persian_and_hindi_keep_their_joiners_while_a_hidden_one_is_shown():
    persian = "\u0645\u06cc\u200c\u062e\u0648\u0627\u0647\u0645"  # "I want": a ZWNJ inside the word
    hindi = "\u0915\u094d\u200d\u0937"  # a half form: virama, then ZWJ
    for text in (persian, hindi, f"{persian} and {hindi}"):
        assert clean(text) == text
        assert one_line(text) == text
    assert clean("ad\u200dmin") == "ad\\u200dmin"  # hides a difference in a Latin word
    # Emoji show side by side (terminals disagree on a joined sequence's width), not "\\u200d".
    assert one_line("\U0001f468\u200d\U0001f4bb") == "\U0001f468\U0001f4bb"
    assert clean("\U0001f3f3\ufe0f\u200d\U0001f308 done") == "\U0001f3f3\U0001f308 done"
    assert clean("\U0001f3f3\ufe0f\u200d\U0001f308 done", grid=False) == "\U0001f3f3\ufe0f\u200d\U0001f308 done"
    assert clean("a\u200d\U0001f44d") == "a\\u200d\U0001f44d"  # not between two emoji
    for symbols in ("\u2500\u200d\u2500", "\u00a9\u200d\u00ae", "\U0001f1fa\u200d\U0001f1f8", "a\ufe0f\u200d\U0001f44d"):
        assert "\\u200d" in clean(symbols), symbols  # box drawing, ©®, regional indicators
    assert clean("\u200c\u0628") == "\\u200c\u0628"  # not between two letters
    for word in ("\u0430\u0434\u200d\u043c\u0438\u043d", "\u7ba1\u200d\u7406", "\u1ea1\u200d\u1ea1", "\uff41\u200d\uff42",
                 "\u3164\u200d\u3164"):  # Cyrillic, CJK, Vietnamese, fullwidth: nothing to join
        assert "\\u200d" in clean(word) and "\\u200d" in one_line(word), word
    assert one_line(persian, 3) == persian[:3] + "…"  # decided on the whole text, not the cut


def test_emoji_whose_width_terminals_disagree_on_take_the_cells_every_terminal_gives_them():
    """(From a trial in tmux.)  ⚠️ and ✔️ (a symbol, then U+FE0F) are two cells to Rich and to
    some terminals, one to tmux and xterm; a skin tone is none to Rich, two to most terminals.
    Rows came out a cell too long or short, leaving stray borders.  On the TUI's grid the symbol
    is drawn without them (one cell everywhere); a log (``--print``) keeps the text whole."""
    import unicodedata

    from rich.cells import cell_len

    said = "⚠\ufe0f 2 warnings \u2714\ufe0f ok \U0001f469\U0001f3fd\u200d\U0001f4bb 1\ufe0f\u20e3"
    for shown in (clean(said), one_line(said)):
        assert shown == "⚠ 2 warnings \u2714 ok \U0001f469\U0001f4bb 1\u20e3"
        # Each character's own width (what tmux and xterm draw) is what Rich counts.
        per_char = sum(0 if unicodedata.combining(c) or unicodedata.category(c) == "Me"
                       else 2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in shown)
        assert cell_len(shown) == per_char
    assert clean(said, grid=False) == said and one_line(said, grid=False) == said


def test_hidden_characters_are_shown_escaped():
    """Tag characters (text hidden in plain sight), word joiners, fillers and the soft hyphen
    are shown as escapes, like zero-width and bidi characters."""
    hidden = "".join(chr(0xE0000 + ord(ch)) for ch in "run rm -rf")
    shown = clean(f"ok{hidden}\u2060\u00ad\u3164\ufff9")
    assert shown.startswith("ok\\U000e0072\\U000e0075") and "\\u2060\\u00ad\\u3164\\ufff9" in shown
    assert shown.isascii()


def test_clean_leaves_ordinary_text_alone_and_shows_escapes():
    plain = "naïve café — 日本語 🎉\n\tindented"
    assert clean(plain) is plain
    assert clean("\x1b]0;pwned\x07 \u202e") == "\\x1b]0;pwned\\x07 \\u202e"


def test_terminal_output_keeps_colours_and_escapes_everything_else():
    from viewer.ui.render import terminal_text

    t = terminal_text("\x1b[31mFAILED\x1b[0m x \x1b[1A\x1b]0;title\x07\x1b[2J\n\x1b[1;32m3 passed\x1b[0m")
    assert t.plain == "FAILED x \\x1b[1A\\x1b]0;title\\x07\\x1b[2J\n3 passed"
    styled = {t.plain[s.start : s.end]: s.style for s in t.spans}
    assert styled["FAILED"].color.name == "color(1)"  # red
    assert styled["3 passed"].bold and styled["3 passed"].color.name == "color(2)"
    assert "\x1b" not in t.plain


def test_chunks_of_one_body_share_the_line_number_column():
    """Chunk 1 ends at line 60-something, chunk 2 goes past 100: the code must not shift right."""
    from rich.console import Console

    from viewer.core.detail import Section
    from viewer.ui.widgets.detail import DetailView

    body = "\n".join(f"value_{i:04d} = compute({i}) + 1" for i in range(1, 400))
    parts = DetailView._section(Section("big.py", body, "code", "big.py"))
    chunks = [p for p in parts if hasattr(p, "renderable")]
    assert len(chunks) > 2 and chunks[0].first < 100 < chunks[1].first + chunks[1].lines
    console = Console(width=80, file=None, color_system=None)
    starts = set()
    for c in chunks:
        for line in console.render_lines(c.renderable(), console.options.update_width(80)):
            text = "".join(seg.text for seg in line)
            starts.add(text.index("value_"))
    assert len(starts) == 1, starts


FILE_NAMES = [
    "src/app.py", "/repo/web/index.ts", "App.tsx", "lib.rs", "main.go", "x.h", "y.hpp",
    "CMakeLists.txt", "notes.txt", "Makefile", "/repo/Dockerfile", "Gemfile", "setup.cfg",
    "pyproject.toml", "package.json", ".bashrc", ".bash_profile", "a.php5", "doc.1",
    "README.md", "data.yml", "weird.zzz", "archive.tar.gz", ".gitignore", "query.sql",
]


def test_code_is_highlighted_as_pygments_would_choose_from_the_file_name():
    from pygments.lexers import get_lexer_for_filename
    from pygments.util import ClassNotFound

    from viewer.ui.render import lexer_for

    def pygments_choice(name: str) -> str:
        try:
            return get_lexer_for_filename(name).aliases[0]
        except ClassNotFound:
            return "text"

    assert {n: lexer_for(n) for n in FILE_NAMES} == {n: pygments_choice(n) for n in FILE_NAMES}
    assert lexer_for("python") == "python"  # a language name is taken as it is
    assert lexer_for("") == "text"


def test_search_matches_are_marked_where_they_are_on_the_line():
    from rich.segment import Segment
    from textual.strip import Strip

    from viewer.ui.render import MATCH_STYLE, mark_matches

    line = Strip([Segment("漢字 Pytest and "), Segment("pytest", None), Segment(" done")])
    (marked,) = mark_matches([line], "PYTEST", MATCH_STYLE)
    assert marked.text == line.text and marked.cell_length == line.cell_length
    lit = "".join(seg.text for seg in marked if seg.style and seg.style.bgcolor == MATCH_STYLE.bgcolor)
    assert lit == "Pytestpytest"  # both, case-insensitively, after two wide characters
    untouched = Strip([Segment("nothing here")])
    assert mark_matches([untouched], "pytest", MATCH_STYLE) == [untouched]


def test_markdown_with_its_shared_parser_renders_as_richs_own():
    """render.markdown reuses one parser; what it draws must not differ from Rich's Markdown
    with the same settings (a table, code, emphasis, a link, the README as a long case)."""
    from pathlib import Path

    from rich.console import Console
    from rich.markdown import Markdown
    from rich.text import Text

    from viewer.ui.render import CODE_THEME, markdown

    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text()
    sample = "# T\n\n*a* **b** ~~c~~ `d` [e](http://x)\n\n| h | i |\n|---|---|\n| 1 | 2 |\n\n```py\nx = 1\n```\n"
    for text in (sample, readme):
        out = []
        for md in (Markdown(text, code_theme=CODE_THEME, hyperlinks=False, inline_code_theme=CODE_THEME,
                            style="italic"), markdown(text, style="italic")):
            console = Console(width=70, record=True, color_system="truecolor", file=open("/dev/null", "w"))
            console.print(md)
            out.append(console.export_text(styles=True))
        assert out[0] == out[1]
        assert text is readme or "x = 1" in Text.from_ansi(out[1]).plain


def test_wrapped_raw_json_keeps_its_indentation():
    """A long value in the raw JSON view wraps under itself, two columns deeper than its line,
    so the nesting stays readable; nothing of the text is lost."""
    import orjson
    from rich.console import Console

    from viewer.ui.render import json_text

    obj = {"a": {"b": {"command": "word " * 30, "blob": "x" * 100}}, "z": 1}
    body = orjson.dumps(obj, option=orjson.OPT_INDENT_2).decode()
    console = Console(width=40, record=True, file=open("/dev/null", "w"))
    console.print(json_text(body))
    rows = console.export_text().splitlines()
    assert all(len(r) <= 40 for r in rows)
    at = next(i for i, r in enumerate(rows) if '"command"' in r)
    depth = len(rows[at]) - len(rows[at].lstrip())
    cont = rows[at + 1]
    assert cont.startswith(" " * (depth + 2)) and cont.strip().startswith("word")
    assert "".join(rows).replace(" ", "") == body.replace("\n", "").replace(" ", "")


def test_wrapped_json_never_fails_at_tiny_widths_and_wraps_wide_characters_by_cells():
    import orjson
    from rich.cells import cell_len
    from rich.console import Console

    from viewer.ui.render import json_text

    body = orjson.dumps({"k": "x" * 28, "cjk": "漢字" * 20, "d": {"e": "w " * 40}},
                        option=orjson.OPT_INDENT_2).decode()
    for width in (2, 3, 10, 40):
        console = Console(width=width, record=True, file=open("/dev/null", "w"))
        console.print(json_text(body))
        rows = console.export_text().splitlines()
        assert all(cell_len(r) <= width for r in rows)
        assert "".join(rows).replace(" ", "") == body.replace("\n", "").replace(" ", "")
        if width == 40:
            assert '  "k": "' + "x" * 28 + '",' in rows  # 39 columns: fits, not wrapped
            at = next(i for i, r in enumerate(rows) if r.strip().startswith('"漢字') or '"cjk"' in r)
            assert rows[at + 1].startswith("    ")  # wide characters hang under their key too


def test_a_wrapped_json_value_keeps_its_closing_comma():
    import orjson
    from rich.console import Console

    from viewer.ui.render import json_text

    body = orjson.dumps({"call_id": "call-cfd2a8a0-0eb3-4b37-8cbb-22e7c0af305e-1\nfc_3e48061c-9d6d-9748-d1d9-48e0783c4549_0",
                         "x": 1}, option=orjson.OPT_INDENT_2).decode()
    console = Console(width=50, record=True, file=open("/dev/null", "w"))
    console.print(json_text(body))
    rows = [r.strip() for r in console.export_text().splitlines()]
    assert "," not in rows and '",' not in rows
    assert any(r.endswith('_0",') for r in rows)



def test_a_wrapped_argument_value_goes_on_under_its_value_not_under_the_names():
    """A call's arguments are "name  value" rows: a long command wrapped at column 0, under
    the names, and read as a name of its own."""
    from rich.cells import cell_len
    from rich.console import Console

    from viewer.core.formats.common import args_section
    from viewer.ui.render import field_rows

    command = "git commit -m 'fix the parser' && pytest -q tests/test_parser.py --maxfail=1 [bold]x[/] \x1b[2J"
    sec = args_section({"command": command, "cwd": "/tmp", "is_background": False})
    assert sec.kind == "fields"
    for width in (2, 10, 30, 50, 200):
        console = Console(width=width, record=True, file=open("/dev/null", "w"))
        console.print(field_rows(sec.body))
        rows = console.export_text().splitlines()
        assert all(cell_len(r) <= width for r in rows)
        assert "".join(rows).replace(" ", "") == sec.body.replace("\n", "").replace(" ", "").replace("\x1b", "\\x1b")
        if width == 50:
            value_at = len("is_background  ")
            assert rows[0].startswith("command        git commit")
            assert rows[1].startswith(" " * value_at) and rows[1][value_at] != " "  # under the value
            cwd = next(r for r in rows if r.startswith("cwd"))
            assert cwd.rstrip() == "cwd            /tmp"
            assert any("[bold]x[/]" in r for r in rows)  # (literal: not markup)
        if width == 200:
            assert rows[0].rstrip() == f"command        {command}".replace("\x1b", "\\x1b")


def test_json_safe_escapes_every_character_clean_escapes_and_no_other():
    """Each character the terminal table escapes and JSON leaves raw (U+007F and up) comes out
    as a \\u escape; nothing else changes; the JSON means the same."""
    import json

    import orjson

    for c in [*range(0x7F, 0x10000), *range(0x1F600, 0x1F610), *range(0xE0000, 0xE0100)]:
        if 0xD800 <= c < 0xE000:
            continue
        value = f"a{chr(c)}b"
        raw = orjson.dumps({"k": value})
        out = json_safe(raw)
        assert json.loads(out) == {"k": value}
        assert (out != raw) == (c in _TABLE), hex(c)
        if c in _TABLE:
            assert chr(c).encode() not in out and b"\\u" in out  # (past U+FFFF: a surrogate pair)


def test_the_rest_of_a_long_body_is_estimated_like_its_chunks():
    from viewer.ui.widgets.detail import DetailView, _Rest

    body = "x" * 100 + "\n" + "y\n" * 10
    view = DetailView()
    view._blocks = [_Rest("text", body, "", "", 12, 101, 2)]
    assert view.estimate_height(0, 50) == 11 + (len(body) - 101) // 50
    assert view.estimate_heights(0, 1, 50)[0] == [view.estimate_height(0, 50)]


def test_a_long_path_in_the_detail_heading_breaks_after_a_slash_not_mid_name():
    """(From a new-user trial.)  "…/tests/test" then "_totals.py" on the next line."""
    from rich.console import Console
    from rich.text import Text

    from viewer.ui.widgets.detail import _Heading

    console = Console(width=50, record=True, color_system=None)
    path = "/home/maya/code/invoice-tool/tests/test_totals_with_discounts.py"
    console.print(_Heading(Text("✓ Read file "), path))
    lines = console.export_text().splitlines()
    assert lines == ["✓ Read file /home/maya/code/invoice-tool/tests/", "test_totals_with_discounts.py"], lines
    console.print(_Heading(Text("✓ Ran terminal command "), "echo " + "x" * 60))  # not a path: wrapped
    assert "echo" in console.export_text()
    console.print(_Heading(Text("✓ Read file "), "a/" + "b" * 70))  # a name wider than the window
    out = console.export_text().splitlines()
    assert out[0] == "✓ Read file a/" and "".join(out[1:]) == "b" * 70


def _drawn_lines(renderable, width: int = 80) -> list[str]:
    """What ``renderable`` draws at ``width``, a string per row."""
    from rich.console import Console

    with open(os.devnull, "w") as devnull:
        console = Console(width=width, file=devnull, color_system="truecolor")
        return ["".join(seg.text for seg in line) for line in console.render_lines(renderable, console.options)]


@pytest.mark.parametrize("text", [
    "See <http://x/%1b]0;TITLE%1b%5c%1b[2J%1b]52;c;cHduZWQ=%1b%5c%c2%9b7m> here",
    "[link](http://x/%1b[2J) and ![img](%1b]0;T%07)",
    "&#x202E;gpj.exe&#x202C; hid&#xE0041;&#xE0042;den z&#x200B;w &#27; &#x9b;",
    "`&#x202E;code` and\n\n```&#x202E;\n&#x202E;fenced\n```\n",
    "| a | b |\n|---|---|\n| &#x202E; | <http://x/%1b> |\n",
    # (From a code review.)  An autolink's host is decoded from punycode: no % nor & needed.
    "<http://xn--zvg/> <http://xn--1a/> <http://xn--0m-lca/> <http://xn--v626e/> <mailto:a@xn--zvg>",
    "<http://xn--ib9b/> and <https://ok.xn--zvg.example/>",  # (a lone surrogate, a bidi override)
])
def test_markdown_never_gives_back_what_was_cleaned(text):
    """(From an adversarial trial.)  markdown-it decodes what stream text held encoded after
    clean() had seen it: an autolink's address is shown percent-decoded (a real ESC set the
    window title, cleared the screen and wrote the clipboard), an entity gives a bidi override
    or a tag character.  Nothing drawn may hold a character clean() escapes."""
    from viewer.ui.render import markdown

    drawn = "".join(_drawn_lines(markdown(text), 70))
    assert clean(drawn) == drawn, [c for c in drawn if clean(c) != c]


@pytest.mark.parametrize("shape", ["lines", "one line", "escapes", "wide"])
def test_a_huge_text_is_drawn_in_bounded_lines_with_what_is_left_counted(shape):
    """(From an adversarial trial.)  One assistant message of 1.5 MB froze the app for 16 s, one
    of 7.7 MB for minutes: it was drawn whole, as Markdown.  Past BIG_TEXT it is plain text, at
    most PLAIN_LINES more lines, and what is past them is counted."""
    from viewer.ui.render import BIG_TEXT, PLAIN_LINES, prose

    unit = {"lines": "line of text with words\n", "one line": "abcdefghij", "escapes": "\x1b]0;T\x07[b]",
            "wide": "漢字テキスト"}[shape]
    text = unit * (4_000_000 // len(unit))
    drawn = [line.rstrip() for line in _drawn_lines(prose(text))]
    assert len(drawn) < BIG_TEXT // 10 + PLAIN_LINES + 10  # (Markdown's head, then the plain lines)
    notes = [d for d in drawn if d.startswith("(the rest, ") or d.startswith("… ")]
    assert notes[0].startswith("(the rest, ") and notes[0].endswith(" characters, as plain text)")
    left = int(notes[-1].split()[1].replace(",", ""))
    assert notes[-1] == f"… {left:,} more characters, not drawn here" and 0 < left < len(text)
    assert all(clean(d) == d for d in drawn)
    # Nothing between the head and what is left out is lost: the plain lines hold the text as it is.
    plain = drawn[drawn.index(notes[0]) + 1: drawn.index(notes[-1])]
    assert "".join(plain).replace(" ", "") in clean(text).replace("\n", "").replace(" ", "")


def test_a_text_under_big_text_is_drawn_as_markdown():
    from viewer.ui.render import BIG_TEXT, prose

    text = "# Title\n\n" + "word " * ((BIG_TEXT - 20) // 5)
    drawn = _drawn_lines(prose(text))
    assert not any("as plain text" in d for d in drawn) and "#" not in drawn[0] and "Title" in drawn[0]


def test_a_commands_output_cannot_hide_or_blink_its_text():
    """(From an adversarial trial.)  A command's colour codes become styles, but SGR 8 (conceal)
    hid text from the reader in the detail pane, and 5 made it blink."""
    from viewer.ui.render import terminal_text

    text = terminal_text("ok \x1b[8mhidden\x1b[0m \x1b[5;31mblinking\x1b[0m \x1b[1;32mgreen\x1b[0m")
    assert text.plain == "ok hidden blinking green"
    styles = {text.plain[s.start:s.end]: s.style for s in text.spans}
    assert not styles["hidden"].conceal and not styles["blinking"].blink
    assert styles["blinking"].color.number == 1 and styles["green"].bold  # colours stay
    # (From a code review.)  Nor the same colour on the same colour.
    text = terminal_text("\x1b[30;40mblack\x1b[0m \x1b[38;2;1;2;3;48;2;1;2;3mrgb\x1b[0m \x1b[31;42mred\x1b[0m")
    styles = {text.plain[s.start:s.end]: s.style for s in text.spans}
    assert styles["black"].bgcolor.is_default and styles["rgb"].bgcolor.is_default
    assert styles["red"].bgcolor.number == 2  # a background of another colour stays


def test_a_long_name_is_not_taken_for_a_language():
    """(From a code review.)  A 5 MB "path" with no / nor . was looked up as a Pygments
    language: a second each time the call was drawn."""
    from viewer.ui.render import lexer_for

    assert lexer_for("python") == "python" and lexer_for("x" * 5_000_000) == "text"


@pytest.mark.parametrize("text,shown", [
    ("Traceback: in <module>, a Vec<String> and an Option<Box<T>>; press <Enter> to go on",
     "in <module>, a Vec<String> and an Option<Box<T>>; press <Enter> to go on"),
    ("before\n\n<!-- a hidden note -->\n\nafter", "<!-- a hidden note -->"),
    ("<details>\nsecret inside\n</details>", "secret inside"),
    ("".join("  " * i + f"- x{i}\n" for i in range(12)) + "\nafter the list\n\n# a heading", "after the list"),
    ("> " * 30 + "deep quote", "deep quote"),
])
def test_markdown_shows_all_of_its_text(text, shown):
    """(From a code review.)  Rich draws no HTML: "in <module>" read "in", and an HTML comment or
    a <details> block hid its text; nesting past 20 levels dropped the rest of the message."""
    from viewer.ui.render import markdown

    drawn = " ".join(line.strip() for line in _drawn_lines(markdown(text), 200))
    assert shown in " ".join(drawn.split()), drawn


def test_a_text_of_many_short_lines_is_markdown_only_for_its_first_lines():
    """(From a code review.)  Within 64 KB, 16,000 one-line headings took a second to draw as
    Markdown (at each streamed piece of an open block): past MARKDOWN_LINES, plain text."""
    from viewer.ui.render import MARKDOWN_LINES, PLAIN_LINES, prose

    text = "# h\n" * 16_000
    drawn = [line.rstrip() for line in _drawn_lines(prose(text))]
    note = next(i for i, d in enumerate(drawn) if d.startswith("(the rest, "))
    assert drawn[note + 1:] == ["# h"] * PLAIN_LINES + [  # the rest, as it is, then counted
        f"… {(16_000 - MARKDOWN_LINES - PLAIN_LINES) * 4:,} more characters, not drawn here"]


def test_plain_text_is_not_cut_by_markdowns_line_limit():
    """(From a code review.)  A prompt of 3,000 short lines (24 KB), drawn as plain text, was
    cut halfway by the line limit meant for Markdown, and wrapped differently after it."""
    from viewer.ui.render import drawn, prose

    text = "log line\n" * 3000
    lines = [line.rstrip() for line in _drawn_lines(prose(text, as_markdown=False))]
    assert not any("as plain text" in x for x in lines) and lines.count("log line") == 3000
    assert drawn(text, as_markdown=False) == text
    assert any("as plain text" in x for x in _drawn_lines(prose(text)))  # (as Markdown, past its line limit)


def _styled_lines(renderable, width: int = 70) -> list[list[tuple[str, object]]]:
    """What ``renderable`` draws at ``width``: each row as (character, style) pairs."""
    from rich.console import Console

    with open(os.devnull, "w") as devnull:
        console = Console(width=width, file=devnull, color_system="truecolor")
        return [[(ch, seg.style) for seg in line for ch in seg.text]
                for line in console.render_lines(renderable, console.options, pad=False)]


_WORDS = st.sampled_from("the agent reads `code()` **bold** _it_ [a link](http://x.y) [ref] 3.5 # x".split())
_PARA = st.lists(_WORDS, min_size=1, max_size=30).map(" ".join)
_BLOCKS = st.one_of(
    _PARA,
    _PARA.map(lambda p: "## " + p[:40]),
    st.tuples(st.sampled_from(["```", "~~~", "````"]), _PARA).map(lambda f: f"{f[0]}py\nx = 1\n\n{f[1]}\n\n{f[0]}"),
    st.lists(_PARA, min_size=1, max_size=3).map(lambda ps: "\n".join("- " + p for p in ps)),
    st.lists(_PARA, min_size=1, max_size=3).map(lambda ps: "\n\n".join(f"{i + 1}. {p}" for i, p in enumerate(ps))),
    _PARA.map(lambda p: "- item\n\n  " + p),  # a list item's second paragraph
    st.just("| a | b |\n|---|---|\n| 1 | 2 |"),
    _PARA.map(lambda p: "> " + p + "\n>\n> more"),
    st.just("    indented code\n    more"),
    st.sampled_from(["---", "***", "___", " - - -", "Title\n====="]),
    # (From a code review.)  What a line-by-line reading took wrongly: a carriage return, a
    # no-break space or a form feed on a "blank" line; a backtick fence's info string with a
    # backtick (not a fence); a fence in a list item that a line at column 0 ends; a link
    # definition in a quote; paragraphs that begin with bold or emphasis.
    _PARA.map(lambda p: p + "\r\n\r\n" + p),
    st.sampled_from(["\xa0", "\x0c", "\u2028", " \t"]).map(lambda b: f"para\n{b}\nmore"),
    st.just("```js``` is inline"),
    st.just("- make it:\n  ```sh\ncat <<EOF\nx\nEOF\n  ```"),
    st.just("> [ref]: http://example.com/q"),
    _PARA.map(lambda p: "**Summary**: " + p),
    _PARA.map(lambda p: "*Note*: " + p),
)


@given(st.lists(_BLOCKS, min_size=2, max_size=12), st.sampled_from(["\n\n", "\n\n\n"]), st.sampled_from(["", "\n"]))
def test_markdown_cut_at_its_settle_points_draws_as_it_does_whole(blocks, gap, end):
    """A long message still streaming is drawn in pieces, cut at settle_points (only its last
    piece is drawn again at each frame): drawn apart, a blank line between them, the pieces look
    exactly as the text drawn whole.  Not inside fenced code, not before a list item, a quote or
    indented code (they may belong to the block before), not after a rule (Rich puts no blank
    line after one)."""
    from viewer.ui.render import markdown, settle_points

    text = gap.join(blocks) + end
    points = settle_points(text)
    if points is None:  # a link definition: drawn whole
        assert "]: http" in text
        return
    cuts = [0, *points, len(text)]
    pieces: list = []
    for a, b in zip(cuts, cuts[1:]):
        if pieces:
            pieces.append([])
        pieces.extend(_styled_lines(markdown(text[a:b])))
    assert pieces == _styled_lines(markdown(text))


def test_settle_points_are_where_a_block_begins_that_cannot_join_the_one_before():
    from viewer.ui.render import settle_points

    text = ("para one\n\n## head\n\npara two\n\n- a\n- b\n\nafter list\n\n```\ncode\n\nin fence\n```\n\n"
            "---\n\nafter rule\n\n> quote\n\n1. item\n\n#\n\n**Bold** start\n\nlast, still being writ")
    firsts = ["## head", "para two", "after list", "```", "**Bold** start"]
    assert [text[p:].split("\n")[0] for p in settle_points(text)] == firsts
    # From a place returned before: the points after it.
    at = settle_points(text)[1]
    assert [text[p:].split("\n")[0] for p in settle_points(text, at)] == firsts[2:]
    # A link definition anywhere (in a quote too) may change a link anywhere: no cut.
    assert settle_points(text + "\n\n> [ref]: http://x\n") is None


@given(st.text(alphabet=st.sampled_from("aBßİıﬁΣςσ \u0307xYZ"), max_size=40))
def test_fold_lowers_a_character_for_a_character(text):
    """The search's case folding keeps every offset: a match's place in it is its place in the
    text (İ lowers to two characters, ß and ﬁ casefold to two), composed as the TUI draws it."""
    from viewer.ui.render import fold

    text = unicodedata.normalize("NFC", text)
    folded = fold(text)
    assert len(folded) == len(text)
    # (lower case as str.lower gives it, in context: a final Σ is ς; İ is kept as it is)
    assert folded == "\u0130".join(part.lower() for part in text.split("\u0130"))


def test_text_is_drawn_and_searched_composed_however_its_accents_are_written():
    """(From a tester.)  "café" written as e and a combining accent (as macOS writes file
    names) was not found by /café with é one letter: the TUI draws text composed (NFC, the same
    to see), and a search composes its query and what it looks in.  A log keeps the text."""
    nfd = "Re\u0301sume\u0301 cafe\u0301 \u1100\u1161"  # (Hangul jamo compose too)
    nfc = unicodedata.normalize("NFC", nfd)
    assert nfc != nfd and clean(nfd) == nfc and one_line(nfd) == nfc
    assert clean(nfd, grid=False) == nfd and one_line(nfd, grid=False) == nfd
    assert fold(nfd) == fold(nfc) == nfc.lower() and fold("CAFE\u0301") == "caf\u00e9"
    assert fold("ASCII Only") == "ascii only"
    # A long text cut to a limit says it was cut, though composing made what is kept shorter.
    assert one_line("e\u0301" * 300, 200).endswith("…") and one_line("e\u0301" * 3, 4) == "\u00e9" * 3


def test_a_calls_lines_are_those_of_its_file_after_a_second_restart_and_in_a_saved_copy():
    """(From a review.)  After the followed file started over twice, a run between the two gave
    its lines counted across both; a replay of a --save copy (all its lines there) gave them
    less the lines before the restart."""
    from rich.console import Console

    from viewer.core.decode import Decoder
    from viewer.core.model import StreamModel
    from viewer.core.replay import FileIndex, Replay
    from viewer.core.sources import MemoryStore
    from viewer.ui.widgets.detail import DetailView

    def run(sid: str) -> list[bytes]:
        return [orjson.dumps(o) + b"\n" for o in (
            {"type": "system", "subtype": "init", "session_id": sid},
            {"type": "tool_call", "subtype": "started", "call_id": "c" + sid, "session_id": sid,
             "tool_call": {"shellToolCall": {"args": {"command": "ls"}}}},
            {"type": "result", "subtype": "success", "is_error": False, "session_id": sid})]

    def events_row(s) -> str:
        console = Console(width=160)
        with console.capture() as c:
            console.print(DetailView._facts(s.tools[0], s.tools[0].target, s))
        return " ".join(next(x for x in c.get().splitlines() if "events" in x).split())

    dec, m, off = Decoder(), StreamModel(), 0
    for batch in (run("a"), None, run("b"), None):
        for raw in batch or []:
            for r in dec.feed(raw, off):
                m.apply(r)
            off += len(raw)
        if batch is None:
            for r in dec.restart():
                m.apply(r)
    assert events_row(m.sessions[1]) == "events line 2 → (no completion), of the file before it started over"

    data = b"".join(run("a") + run("b"))
    idx = FileIndex(MemoryStore(data), len(data), restarts=[len(b"".join(run("a")))])
    idx.read()
    r = Replay(index=idx)
    r.seek(r.total)
    assert events_row(r.model.sessions[1]) == "events line 5 → (no completion)"


@pytest.mark.parametrize("numbers, said", [
    ([9], "call 9"),
    ([9, 10], "calls 9 and 10"),
    ([2, 3, 5], "calls 2, 3 and 5"),
    (list(range(9, 21)), "calls 9 to 20"),
    ([*range(9, 16), 40], "calls 9, 10, 11, 12, 13, … and 40 (8 calls)"),
])
def test_the_calls_a_call_ran_alongside_are_named_by_their_numbers(numbers, said):
    from viewer.core.model import ToolCall
    from viewer.ui.widgets.detail import _numbers

    assert _numbers([ToolCall(n - 1, f"c{n}") for n in numbers]) == said


@pytest.mark.parametrize("usd, said", [
    (0, "$0"), (0.0004, "< $0.001"), (0.0694, "$0.0694"), (0.1184, "$0.118"), (0.5, "$0.50"), (0.99999, "$1.00"),
    (0.0012, "$0.0012"), (0.1, "$0.10"), (0.001, "$0.001"), (0.0100, "$0.01"), (0.9994, "$0.999"),
    (12.3456, "$12.35"), (1234.5, "$1,234.50"), (float("nan"), ""), (-1, ""), (float("inf"), ""),
])
def test_a_runs_cost_is_said_in_dollars_to_three_figures_below_one(usd, said):
    from viewer.core.detail import fmt_cost

    assert fmt_cost(usd) == said


def _drawn_rows(renderable, width: int = 80) -> list[str]:
    from rich.console import Console

    console = Console(width=width, file=open(os.devnull, "w"), color_system=None)
    return ["".join(seg.text for seg in row).rstrip()
            for row in console.render_lines(renderable, console.options.update_width(width), pad=False)]


def _column(rows: list[str], word: str) -> int:
    """The cell a word starts at, on the row that holds it."""
    from rich.cells import cell_len

    row = next(r for r in rows if word in r)
    return cell_len(row[: row.index(word)])


TSV = "item\tprice\tnote\napple\t100\tfresh\nりんご\t120\t青森産\n苹果汁\t80\t果汁100%\n"


@pytest.mark.parametrize("kind", ["file", "diff", "command output", "code in a message", "plain text"])
def test_tab_separated_columns_line_up_after_wide_characters_in_every_kind_of_text(kind):
    """(From a tester's trial.)  A Read of a .tsv with りんご in it showed 120 a column left
    of 100: Rich's Syntax expands tabs every 4 characters, not cells.  A command's output
    (every 8 cells, as a terminal) lined up; a file, a diff and code in a message now stop
    at the same columns as it."""
    from viewer.ui.render import _Wrapped, code, diff, markdown, terminal_text

    body = {
        "file": lambda: code(TSV, "prices.tsv"),
        "diff": lambda: diff("--- a/p.tsv\n+++ b/p.tsv\n@@ -1,4 +1,4 @@\n" + "".join(f" {line}\n" for line in TSV.splitlines())),
        "command output": lambda: terminal_text(TSV),
        "code in a message": lambda: markdown(f"Prices:\n\n```\n{TSV}```\n"),
        "plain text": lambda: _Wrapped(TSV),
    }[kind]()
    rows = _drawn_rows(body)
    line_start = _column(rows, "item") - (kind == "diff")  # (a diff's line begins with its " ")
    assert _column(rows, "price") - line_start == 8  # (a stop every 8 cells, as a terminal's)
    assert _column(rows, "100") == _column(rows, "120") == _column(rows, "80") == _column(rows, "price")
    assert _column(rows, "fresh") == _column(rows, "青森産") == _column(rows, "果汁100") == _column(rows, "note")


def test_a_cut_command_has_no_space_before_its_ellipsis():
    """(From a tester's trial.)  Where a wide character did not fit, the cut made it a space:
    ``echo '全部 …`` read as part of the command.  The "…" follows what is kept."""
    from rich.cells import cell_len

    from viewer.ui.render import fit_before

    target = "echo '全部完成了' && make"
    for room in range(8, 20):
        cut = fit_before(target, 0, room)
        assert cut.endswith("…") and target.startswith(cut[:-1]) and cell_len(cut) <= room, (room, cut)
    assert fit_before(target, 8, 20) == "echo '全部…"  # (完 would straddle the 12th cell: " · exit 1" after it)


_NFD_NAME = unicodedata.normalize("NFD", "/Users/dev/app/docs/résumé_notes.txt")  # (as macOS writes it)
_MARKED = [_NFD_NAME, "नमस्ते दुनिया/विकास.txt", "e\u0301" * 20, "x/⚠\ufe0f⚠\ufe0f⚠\ufe0f⚠\ufe0f/y"]


def _no_mark_cut_off(kept: str, whole: str, at_start: bool) -> None:
    """``kept`` (the end of ``whole``, or its start) neither starts with a mark (it would sit
    on the "…", or on nothing) nor leaves one off after it."""
    if kept:
        assert unicodedata.category(kept[0])[0] != "M", kept
    if not at_start:
        assert kept == whole or unicodedata.category(whole[len(kept)])[0] != "M", kept


@pytest.mark.parametrize("text", _MARKED)
def test_a_cut_never_parts_a_letter_from_its_marks(text):
    """(From a tester's trial.)  A path cut at its start (``…sumé.txt``) could be cut between
    an e and its accent (a name in NFD): the accent sat on the "…".  No cut leaves a mark
    without its letter, at its start or at its end, whatever the width."""
    from rich.cells import cell_len

    from viewer.ui.render import fit_before, keep_end, safe_line

    for cells in range(2, cell_len(text) + 2):
        kept = keep_end(text, cells)
        assert cell_len(kept) <= cells and text.endswith(kept.removeprefix("…"))
        if kept != text:
            _no_mark_cut_off(kept[1:], text, at_start=True)
        cut = fit_before(text.replace("/", " "), 0, cells)  # (a command: cut at its end)
        assert cell_len(cut) <= cells
        if cut.endswith("…") and cut != text.replace("/", " "):
            _no_mark_cut_off(cut[:-1], text.replace("/", " "), at_start=False)
    whole = one_line(text)  # (as the grid shows it: ⚠️ without its U+FE0F)
    for limit in range(1, len(text)):
        shown = safe_line(text, limit).plain
        _no_mark_cut_off(shown[:-1], whole, at_start=False)
    if text is _NFD_NAME:  # the tester's case: "…" then the accent, of the é cut off
        assert keep_end(text, 15) == "…" + unicodedata.normalize("NFD", "sumé_notes.txt")
