"""Syntax highlighting that follows the app's theme.

Rich's ``Syntax`` needs a background colour; "default" shows the terminal's own
(black squares on a light theme). We take the theme's ``$panel`` colour and a
light or dark ANSI palette according to the theme, so code stays readable in
every theme and no colour is hard-coded here.
"""

from __future__ import annotations

from rich.syntax import Syntax
from textual.widget import Widget


def syntax(widget: Widget, code: str, lexer: str) -> Syntax:
    try:
        app = widget.app
        dark = app.current_theme.dark
        background = app.theme_variables.get("panel", "default")
    except Exception:  # not attached yet: a neutral default, fixed at the next update
        dark, background = True, "default"
    return Syntax(
        code, lexer, theme="ansi_dark" if dark else "ansi_light", background_color=background, word_wrap=True
    )
