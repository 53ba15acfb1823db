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

from ..pacing import VIEW_MARGIN

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


def beyond_the_fold(
    sources: list[str], last: str, view: Widget | None, width: int
) -> tuple[list[Segment], list[str]]:
    """Of the documents a caught-up frame finishes (``sources``, then ``last`` still
    streaming), those certain to land above the view and its margin while it follows
    the end, as segments for a spacer, and the rest, to mount live. Mounted live,
    a frame catching up with a flood laid out every one (12-20 documents: a 12-17 ms
    layout, issue 21's worst stalls) only for the next parking pass to park them. The
    heights are :func:`least_height` (they are measured when scrolled back), so what
    is parked is above the fold even where the estimate is short. ``view``: the
    container, if the view follows the end (None: nothing is parked)."""
    if view is None:
        return [], sources
    keep = view.region.height * (1 + VIEW_MARGIN)
    width = text_width(width, view)
    heights = [least_height(source, width) for source in sources]
    below = least_height(last, width)
    cut = len(sources)
    while cut and below <= keep:
        cut -= 1
        below += heights[cut]
    return list(zip(sources[:cut], heights[:cut], strict=True)), sources[cut:]


def text_width(width: int, view: Widget) -> int:
    """The width a reply's text wraps at, for :func:`least_height`: the reply's
    (``width``, 0 before its first layout: the view's), less its padding and a margin."""
    return max(20, (width or view.region.width) - 4)


def least_height(source: str, width: int) -> int:
    """Rows a Markdown document takes at ``width``, at least: a paragraph's text
    wrapped full (its line breaks are soft), a line per line of any other block (list
    items, quotes, table rows, headings, fences); no margins."""
    rows = 0
    for block in source.split("\n\n"):
        lines = [line for line in block.splitlines() if line.strip()]
        if not lines:
            continue
        first = lines[0].lstrip()
        if first[:1] in "-*+>|#`~" or first[:1].isdigit():
            rows += len(lines)
        else:
            rows += -(-sum(map(len, lines)) // width)
    return max(1, rows)
