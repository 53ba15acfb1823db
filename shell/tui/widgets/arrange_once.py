"""Containers whose children sit the same at any height are arranged once per change.

Why: a container of ``height: auto`` (the reply, each of its Markdown documents) is
arranged by Textual twice in every frame that changes it: once to measure its height
(``Layout.get_content_height`` arranges it at height 0, or at its parent's height), and
once more by the compositor at the height that measure gave. Each arrangement is keyed
by the size it was asked for, so the second one measured every block again: round 11's
profile of a streaming frame had the live documents' blocks arranged twice.

When no child's height depends on the container's (no ``fr``, ``%``, ``vh`` heights or
bounds, nothing docked, the container aligned to the top), an arrangement does not
depend on the height it was asked for: here every height maps to one, so the second
request is the cached first. Anything else is arranged as Textual would.
"""

from __future__ import annotations

from textual.css.scalar import Scalar, Unit
from textual.geometry import Size
from textual.layout import DockArrangeResult
from textual.widget import Widget

_RELATIVE = frozenset({Unit.FRACTION, Unit.PERCENT, Unit.HEIGHT, Unit.VIEW_HEIGHT})
"""Units of a child's height that follow its container's height (``auto`` does not)."""


def _relative(scalar: Scalar | None) -> bool:
    return scalar is not None and scalar.unit in _RELATIVE


def heights_are_own(container: Widget) -> bool:
    """True when every child of ``container`` gets the same place whatever height the
    container is arranged at (see the module's docstring)."""
    styles = container.styles
    if styles.align_vertical != "top" or container.layout.name != "vertical":
        return False
    for child in container._nodes:
        child_styles = child.styles
        if child_styles.is_docked or child_styles.overlay == "screen" or child_styles.position == "absolute":
            return False
        heights = (child_styles.height, child_styles.min_height, child_styles.max_height)
        if any(_relative(height) for height in heights):
            return False
    return True


class ArrangedOnce(Widget):
    """A widget mixin: ``arrange`` at any height is the arrangement at height 0 when
    :func:`heights_are_own` holds (same cache, same invalidation as Textual's).
    List it after the Textual class (``class ChatMarkdown(Markdown, ArrangedOnce)``):
    Textual takes a widget's CSS type names from its first bases only, so listed first
    it hid ``Markdown`` from queries and styles."""

    def arrange(self, size: Size, optimal: bool = False) -> DockArrangeResult:
        if size.height and heights_are_own(self):
            size = Size(size.width, 0)
        return super().arrange(size, optimal)
