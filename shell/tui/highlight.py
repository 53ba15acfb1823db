"""Syntax highlighting in the theme's own colours.

Textual's ``highlight`` turns code into ``Content`` whose styles are theme
variables (``$text-accent``, ``$text-success`` …), so highlighted arguments,
results and diffs follow the theme, including a ``/theme`` switch while they are
on screen, and sit on the widget's own background. We add what diffs need:
Textual's theme leaves inserted and deleted lines uncoloured.
"""

from __future__ import annotations

from pygments.token import Token
from rich.text import Text
from textual.content import Content
from textual.highlight import HighlightTheme, highlight


class ShellHighlightTheme(HighlightTheme):
    STYLES = {
        **HighlightTheme.STYLES,
        Token.Generic.Inserted: "$text-success",
        Token.Generic.Deleted: "$text-error",
        Token.Generic.Subheading: "$text-primary bold",
        Token.Generic.Heading: "$text-primary bold",
    }


def syntax(code: str, lexer: str) -> Content:
    """``code`` highlighted as ``lexer`` (``json``, ``diff``, ``text`` …)."""
    return highlight(code, language=lexer, theme=ShellHighlightTheme)


def diff_text(diff: str) -> Text:
    """A unified diff, coloured line by line, every character (indentation too) kept."""
    text = Text()
    for i, line in enumerate(diff.split("\n")):
        if i:
            text.append("\n")
        if line.startswith(("+++", "---")):
            style = "bold"
        elif line.startswith("@@"):
            style = "cyan"
        elif line.startswith("+"):
            style = "green"
        elif line.startswith("-"):
            style = "red"
        else:
            style = ""
        text.append(line, style=style)
    return text
