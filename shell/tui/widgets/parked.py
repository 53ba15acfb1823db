"""A stand-in for content scrolled far out of view: empty, but just as tall.

Textual reflows every mounted widget whenever the layout changes (each streamed
frame does), so the cost of a frame grows with the number of widgets, not with
what is on screen. Markdown documents far from the viewport are swapped for a
``Parked`` spacer of the same height and come back when scrolled near.

Neighbouring chunks share one spacer (its ``segments``, each a chunk's source and
height): a 100 KB reply would otherwise leave a hundred spacers behind, and the
frame time would again grow with the reply.
"""

from __future__ import annotations

from textual.geometry import Region
from textual.widget import Widget

Segment = tuple[str, int]
"""A parked chunk: its Markdown source and its height in lines."""


class Parked(Widget):
    """Holds the Markdown sources of the chunks it replaced, in order; renders nothing."""

    DEFAULT_CSS = """
    Parked { width: 1fr; }
    """

    def __init__(self, segments: list[Segment]) -> None:
        super().__init__()
        self.segments = list(segments)
        self._resize()

    def render(self) -> str:
        """Nothing: a widget with no ``render`` of its own draws its class name, and a
        spacer in view for a moment (a resize, before its chunks come back) said
        "Parked" in the middle of a reply."""
        return ""

    @property
    def source(self) -> str:
        return "".join(source for source, _ in self.segments)

    def add(self, source: str, height: int, *, first: bool = False) -> None:
        """Take one more chunk, above (``first``) or below the ones held."""
        if first:
            self.segments.insert(0, (source, height))
        else:
            self.segments.append((source, height))
        self._resize()

    def split(self, viewport: Region) -> tuple[list[Segment], list[Segment], list[Segment]]:
        """The segments above ``viewport``, overlapping it, and below it."""
        return split_segments(self.segments, self.region.y, viewport)

    def rescale(self, factor: float) -> None:
        """The width changed by ``1 / factor``: wrapped text grows or shrinks about as
        much. An estimate (a chunk is measured again when it comes back), so that the
        scroll bar and the place of what is on screen stay about right meanwhile."""
        self.keep([(source, max(1, round(height * factor))) for source, height in self.segments])

    def keep(self, segments: list[Segment]) -> None:
        self.segments = list(segments)
        self._resize()

    def _resize(self) -> None:
        self.styles.height = max(1, sum(height for _, height in self.segments))


def split_segments(
    segments: list[Segment], top: int, viewport: Region
) -> tuple[list[Segment], list[Segment], list[Segment]]:
    """Segments stacked from screen row ``top``: those above ``viewport``, those
    overlapping it, and those below it."""
    above: list[Segment] = []
    near: list[Segment] = []
    below: list[Segment] = []
    y = top
    for source, height in segments:
        if y + height <= viewport.y:
            above.append((source, height))
        elif y >= viewport.bottom:
            below.append((source, height))
        else:
            near.append((source, height))
        y += height
    return above, near, below
