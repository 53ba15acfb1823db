"""The compositor's map of every widget kept while it is still right, instead of
arranged again from the root in the middle of a frame.

Why: Textual's compositor keeps two maps, the widgets in view and all of them (the
full map, which ``Widget.region`` falls back to for a widget not in view, and which
a widget's repaint, its size and its render all ask for). Two of its rules threw a
right full map away while a reply streamed (issue 21, round 13, a 25 KB flood):

- a full layout (``reflow``) arranges every widget, which *is* the full map, and
  keeps it, but left it marked out of date: the first widget asked for its region
  afterwards (every resized widget, in the same layout pass) arranged the whole
  conversation again, ~1 ms, at 79 of ~110 layouts;
- a repaint of a widget out of view (``update_widgets``: a chunk being kept as
  lines, a parked one) marked it out of date as if the widget were new; the next
  widget drawn arranged the whole conversation again inside the render, ~4.6 ms
  each, at 25 of ~110 renders, and those were among the longest steps of the loop.

Here a full layout's map counts as the full map, and a repaint marks it out of date
only for a widget it does not hold: what Textual would have arranged again is the
same map. Reaches into private parts of Textual (pinned; listed in
``textual_internals.FULL_MAP``), checked by ``tests/tui/test_full_map.py``.
"""

from __future__ import annotations

from typing import Any

from textual._compositor import Compositor
from textual.widget import Widget

_installed = False


def install() -> None:
    """Wrap ``Compositor.reflow`` and ``Compositor.update_widgets`` (once per process)."""
    global _installed
    if _installed:
        return
    _installed = True
    if not all(hasattr(Compositor, name) for name in ("reflow", "update_widgets")):
        return  # a Textual that renamed them: its own rules, the same screen
    reflow = Compositor.reflow
    update_widgets = Compositor.update_widgets

    def _reflow(self: Compositor, parent: Widget, size: Any) -> Any:
        result = reflow(self, parent, size)
        self._full_map_invalidated = False  # arranged just now from the root, every widget
        return result

    def _update_widgets(self: Compositor, widgets: set[Widget]) -> None:
        known = not self._full_map_invalidated and widgets <= self._full_map.keys()
        update_widgets(self, widgets)
        if known:  # repaints of widgets the map holds: nothing new to place
            self._full_map_invalidated = False

    patched: Any = Compositor
    patched.reflow = _reflow
    patched.update_widgets = _update_widgets
