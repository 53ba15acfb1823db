"""A stand-in for content scrolled far out of view: empty, but just as tall.

Textual reflows every mounted widget whenever the layout changes (each streamed
frame does), so the cost of a frame grows with the number of widgets, not with
what is on screen. Markdown documents far from the viewport are swapped for one
``Parked`` widget of the same height and come back when scrolled near, which
keeps the widget count — and the frame time — bounded however long the
conversation or the reply.
"""

from __future__ import annotations

from textual.widget import Widget


class Parked(Widget):
    """Holds the Markdown ``source`` it replaced; renders nothing."""

    DEFAULT_CSS = """
    Parked { width: 1fr; }
    """

    def __init__(self, source: str, height: int) -> None:
        super().__init__()
        self.source = source
        self.styles.height = max(1, height)
