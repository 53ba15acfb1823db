"""Syntax highlighting in the theme's own colours.

Textual's ``highlight`` turns code into ``Content`` whose styles are theme
variables (``$text-accent``, ``$text-success`` …), so highlighted arguments,
results and diffs follow the theme, including a ``/theme`` switch while they are
on screen, and sit on the widget's own background. We add what diffs need:
Textual's theme leaves inserted and deleted lines uncoloured.
"""

from __future__ import annotations

from pygments.lexers import get_lexer_by_name
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


WARM_LEXERS = (
    "python", "bash", "json", "javascript", "typescript", "tsx", "diff", "yaml", "toml",
    "rust", "go", "c", "cpp", "java", "html", "css", "sql", "markdown", "text",
)
"""Languages whose lexers are made before the first reply (see :func:`warm_lexers`)."""


def warm_lexers(names: tuple[str, ...] = WARM_LEXERS) -> None:
    """Make the lexers of the languages replies show most, in a thread once the shell is
    ready. A Pygments lexer class compiles its regular expressions when its first
    instance is made, and a reply's first code fence made it on the loop, in the middle
    of a streaming frame: ~22 ms for Python here, the longest loop step of a 25 KB reply
    (issue 21's p99 row; CSS ~33, SQL ~14, JavaScript ~11). Compiled here, they stay on
    the class, so the fence finds them."""
    for name in names:
        get_lexer_by_name(name)


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
