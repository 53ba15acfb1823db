"""The greeting at the top of a new conversation: the shell's own fixed text, with
a little emphasis, drawn without a Markdown parser.

The replies are Markdown (``assistant_message``), but importing Textual's
Markdown widget and its parser costs ~40 ms of the start-up thread and parsing
the greeting another ~15 ms of the event loop, all on the way to the first ready
screen. The greeting is known in advance, so it is given as parts already styled
(plain, strong, emphasis, inline code) and looks as the same text in Markdown
would: paragraphs apart by a blank line, inline code in the Markdown colours.
The replies' Markdown loads in the background once this is on screen.
"""

from __future__ import annotations

from collections.abc import Sequence

from textual.content import Content
from textual.widget import Widget

from shell.core.textsafety import sanitize

Part = tuple[str, str]
"""Some text and how it is shown: ``""`` (plain), ``"strong"``, ``"em"`` or ``"code"``."""

KINDS = ("strong", "em", "code")


class Welcome(Widget):
    """The greeting; ``parts`` are ``(text, kind)`` pairs (see :data:`Part`)."""

    COMPONENT_CLASSES = {f"welcome--{kind}" for kind in KINDS}
    DEFAULT_CSS = """
    Welcome { height: auto; margin: 1 0 0 0; padding: 0 1; color: $foreground; }
    Welcome > .welcome--strong { text-style: bold; }
    Welcome > .welcome--em { text-style: italic; }
    Welcome:dark > .welcome--code { background: $warning 10%; color: $text-warning 95%; }
    Welcome:light > .welcome--code { background: $error 5%; color: $text-error 95%; }
    Welcome:ansi > .welcome--code { background: ansi_default; }
    """

    def __init__(self, parts: Sequence[Part]) -> None:
        unknown = {kind for _, kind in parts if kind and kind not in KINDS}
        if unknown:
            raise ValueError(f"unknown kinds of text: {sorted(unknown)}")
        super().__init__()
        self.parts: tuple[Part, ...] = tuple((sanitize(text), kind) for text, kind in parts)

    @property
    def text(self) -> str:
        """What it says, without the styling (tests, copying)."""
        return "".join(text for text, _ in self.parts)

    def render(self) -> Content:
        styles = {kind: self.get_visual_style(f"welcome--{kind}") for kind in KINDS}
        return Content.assemble(*((text, styles[kind]) if kind else text for text, kind in self.parts))
