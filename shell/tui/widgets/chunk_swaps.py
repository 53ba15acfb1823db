"""Swapping a reply's pieces in place: a live chunk for a ``Parked`` spacer and back,
with no frame showing both (see ``parked``).

Kept apart from the reply's streaming (``assistant_message``): these take the reply's
column of children and change only which widget stands for which text; when to park
and what is near the view stay the reply's decisions.
"""

from __future__ import annotations

import asyncio

from textual._styles_cache import StylesCache
from textual.await_remove import AwaitRemove
from textual.containers import ScrollableContainer
from textual.geometry import Region
from textual.widget import AwaitMount, Widget

from .chat_markdown import ChatMarkdown, chained
from .parked import Parked
from .rendered_chunk import RenderedChunk

Chunk = ChatMarkdown | RenderedChunk
"""A piece of the reply: live Markdown widgets, or the lines they rendered to."""


def release_render_caches() -> None:
    """Let go of the render caches of widgets that left the screen.

    Textual memoises ``StylesCache.get_inner_outer`` per *instance* (an
    ``lru_cache`` on a method), so the last 1,024 widgets ever drawn stay alive
    through their styles caches, each with a strip per line it rendered: with a
    long reply that was most of the memory a parked chunk should have given
    back. Clearing it costs the widgets on screen one small lookup each."""
    StylesCache.get_inner_outer.cache_clear()


def retire(widget: Widget) -> AwaitRemove:
    """Hide ``widget`` and remove it: a removal ends turns of the loop later, and a frame
    drawn meanwhile showed it and what the caller put in its place in this turn."""
    widget.display = False
    return widget.remove()


def following(container: ScrollableContainer) -> bool:
    """The view follows the end (anchored, and the user has not scrolled away).
    Read from the anchor, not the scroll offsets, which lag while a reply streams."""
    return container.is_anchored and not getattr(container, "_anchor_released", False)


def source_before(column: Widget, widget: Widget) -> str | None:
    """The source of the reply's piece before ``widget`` (None at the reply's start)."""
    children = column.children
    previous = children[children.index(widget) - 1] if widget is not children[0] else None
    return previous.source if isinstance(previous, (ChatMarkdown, RenderedChunk, Parked)) else None


async def mount_hidden(column: Widget, chunks: list[ChatMarkdown], **where: Widget) -> None:
    """Mount live chunks hidden, shown once mounted (their blocks come turns later):
    the caller hides what they replace in the same turn, so no frame shows both."""
    for chunk in chunks:
        chunk.display = False
    await column.mount_all(chunks, **where)
    for chunk in chunks:
        chunk.display = True


async def park(column: Widget, chunk: Chunk, height: int = 0) -> None:
    """Replace ``chunk`` by a spacer, joining a spacer next to it if there is one.
    ``height``: its rows if no layout has measured it yet (an estimate)."""
    siblings = list(column.children)
    if chunk not in siblings or not chunk.is_attached:
        return  # parked already by another pass (the widget's and the conversation's can overlap)
    segment = (chunk.source, chunk.outer_size.height or height)
    at = siblings.index(chunk)
    before, after = siblings[at - 1] if at else None, next(iter(siblings[at + 1 :]), None)
    # in the turn the chunk is hidden, a spacer takes its height (no mount needed)
    waits: list[AwaitMount | AwaitRemove] = []
    if isinstance(before, Parked):
        before.add(*segment)
        if isinstance(after, Parked):  # the chunk was all that kept two spacers apart
            before.keep(before.segments + after.segments)
            waits.append(retire(after))
    elif isinstance(after, Parked):
        after.add(*segment, first=True)
    else:
        waits.append(column.mount(Parked([segment]), before=chunk))
    waits.append(retire(chunk))
    await asyncio.gather(*waits)
    release_render_caches()


async def unpark_within(column: Widget, viewport: Region) -> bool:
    """Bring back the parked chunks within ``viewport`` (the rest of a spacer stays
    parked). True if any came back: regions mean nothing until the next layout, so
    parking must wait."""
    unparked = False
    for parked in list(column.query_children(Parked)):
        if not parked.region.overlaps(viewport):
            continue
        above, near, below = parked.split(viewport)
        if not near:
            continue
        before = above[-1][0] if above else source_before(column, parked)
        chunks = chained([source for source, _ in near], before)
        unparked = True
        await mount_hidden(column, chunks, after=parked)
        waits: list[AwaitMount | AwaitRemove] = []  # in this turn, the spacer gives way
        if below:
            waits.append(column.mount(Parked(below), after=chunks[-1]))
        chunks[-1].mark_end()  # mounted last, it took the reply's end: a spacer may follow
        if above:
            parked.keep(above)
        else:
            waits.append(retire(parked))
        await asyncio.gather(*waits)
    return unparked
