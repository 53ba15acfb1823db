"""Break the reference cycles Textual leaves in widgets it is done with, so that
reference counting frees them at once instead of a full garbage collection.

Why: a full (generation 2) collection stops the event loop for as long as it
takes to scan every object that survived the young collections. During a long
reply those are mostly widgets already gone (parked chunks, spans scrolled out
of the window) that only a full collection can free, because each is a cycle:

- a widget's own ``Styles`` (``_css_styles``, ``_inline_styles``) point back at
  it (``Styles.node``). Textual's ``Widget._message_loop_exit`` clears the
  render caches and children of a removed widget but keeps these;
- every layout pass (``Compositor._arrange_root``) builds a recursive closure,
  itself a cycle, whose cells hold the new map of every widget laid out and the
  set of them. Layout allocates enough that a young collection often runs in
  the middle of it, promoting that closure to the old generation: from there
  it kept the widgets of that frame (with their render caches) alive until a
  full collection, long after they were parked. When the compositor replaces a
  map or set with the next pass's, the old one is emptied here;
- each widget with ``COMPONENT_CLASSES`` (every Markdown block: ``strong``,
  ``em``, ``code_inline``, ``s``) holds a "virtual" ``DOMNode`` per component,
  whose ``Styles`` point back at it in the same way. Textual builds new ones
  each time the widget is restyled (mounted, a class or a sibling changed) and
  drops the old ones, cycles and all;
- a ``Strip`` (one rendered line) memoises what it derives from itself, and
  when that is itself (``divide`` at its own width, ``adjust_cell_length`` or
  ``crop_extend`` to its own length) it caches itself: a cycle per line drawn,
  holding its segments and caches. Those three answer ``self`` here before the
  cache is consulted, as the methods would have computed;
- Textual's ``LRUCache`` (a widget's box models, its query cache) is a ring of
  linked lists, a cycle by design, and ``clear`` dropped the ring whole (with
  the widgets and values in it): it now undoes the links first, and a removed
  widget's caches are cleared.

Measured on a 30 KB reply with only the young generations collected: ~175k
objects (~480 widgets, ~1,600 virtual nodes) were left for a full collection;
with the cycles cut here, see BENCHMARKS.md (tui_memory).

This reaches into private parts of Textual (pinned in pyproject; listed in
``textual_internals.UNLINK``), checked by ``tests/tui/test_unlink.py``:
``Widget._message_loop_exit`` (the widget has
left the DOM for good), ``Stylesheet._process_component_classes`` (where the
virtual nodes are replaced) and the compositor's ``reflow``,
``reflow_visible`` and ``full_map`` (where its maps are replaced). Nothing here
changes what a live widget shows.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any
from weakref import WeakKeyDictionary

from textual._compositor import Compositor
from textual.cache import LRUCache
from textual.css.styles import RenderStyles
from textual.css.stylesheet import Stylesheet
from textual.dom import DOMNode
from textual.strip import Strip
from textual.widget import Widget

_installed = False


def _cut(node: DOMNode) -> None:
    """Drop the links from ``node``'s own styles (and its parent) back to it."""
    node._css_styles.node = None
    node._inline_styles.node = None
    node._parent = None


def _empty_lru_caches(node: DOMNode) -> None:
    for value in vars(node).values():
        if isinstance(value, LRUCache):
            value.clear()


def _wrap_lru_cache() -> None:
    clear = LRUCache.clear

    def _clear(self: LRUCache[Any, Any]) -> None:
        for link in self._cache.values():
            link.clear()  # [previous, next, key, value]: the ring's links
        clear(self)

    patched: Any = LRUCache
    patched.clear = _clear


def _cut_virtual(styles: Iterable[RenderStyles]) -> None:
    for render_styles in styles:
        virtual = render_styles.node
        if virtual is not None:
            _cut(virtual)


_issued: WeakKeyDictionary[Compositor, list[Any]] = WeakKeyDictionary()
"""Per compositor: the maps and sets its layout passes returned, not emptied yet."""


def _empty_replaced(compositor: Compositor) -> None:
    """Empty what the layout passes returned that the compositor no longer holds."""
    held = {id(compositor._full_map), id(compositor._visible_map), id(compositor.widgets)}
    issued = _issued.get(compositor, [])
    for old in issued:
        if id(old) not in held:
            old.clear()
    issued[:] = [kept for kept in issued if id(kept) in held]


def _wrap_compositor() -> None:
    arrange_root = Compositor._arrange_root
    reflow = Compositor.reflow
    reflow_visible = Compositor.reflow_visible
    full_map = Compositor.full_map.fget  # type: ignore[attr-defined]

    def _arrange_root(self: Compositor, *args: Any, **kwargs: Any) -> Any:
        layout, widgets = arrange_root(self, *args, **kwargs)
        _issued.setdefault(self, []).extend((layout, widgets))
        return layout, widgets

    def _reflow(self: Compositor, *args: Any, **kwargs: Any) -> Any:
        result = reflow(self, *args, **kwargs)
        _empty_replaced(self)
        return result

    def _reflow_visible(self: Compositor, *args: Any, **kwargs: Any) -> Any:
        result = reflow_visible(self, *args, **kwargs)
        _empty_replaced(self)
        return result

    def _full_map(self: Compositor) -> Any:
        if not self._full_map_invalidated:
            return full_map(self)
        result = full_map(self)
        _empty_replaced(self)
        return result

    patched: Any = Compositor
    patched._arrange_root = _arrange_root
    patched.reflow = _reflow
    patched.reflow_visible = _reflow_visible
    patched.full_map = property(_full_map)


def discard(widget: DOMNode) -> None:
    """``widget`` was built but will never be mounted (a Markdown block built only
    to give its content to the one on screen): cut its cycles, and those of the
    child blocks it was to compose, so that dropping it frees it."""
    pending = [widget]
    while pending:
        node = pending.pop()
        pending.extend(getattr(node, "_blocks", ()))
        pending.extend(node._nodes)
        _cut(node)


def _wrap_strip() -> None:
    divide = Strip.divide
    adjust_cell_length = Strip.adjust_cell_length
    crop_extend = Strip.crop_extend

    def _divide(self: Strip, cuts: Iterable[int]) -> Any:
        length = self.cell_length
        kept = [cut for cut in cuts if cut <= length]
        if kept == [length]:
            return [self]
        return divide(self, kept)

    def _adjust_cell_length(self: Strip, cell_length: int, style: Any = None) -> Strip:
        if cell_length == self.cell_length:
            return self
        return adjust_cell_length(self, cell_length, style)

    def _crop_extend(self: Strip, start: int, end: int, style: Any) -> Strip:
        if start == 0 and end == self.cell_length:
            return self
        return crop_extend(self, start, end, style)

    patched: Any = Strip
    patched.divide = _divide
    patched.adjust_cell_length = _adjust_cell_length
    patched.crop_extend = _crop_extend


_WRAPPED = ((Widget, "_message_loop_exit"), (Stylesheet, "_process_component_classes"),
            (Compositor, "_arrange_root"), (LRUCache, "clear"))
"""What :func:`install` wraps (listed in ``textual_internals.UNLINK``)."""


def install() -> None:
    """Wrap the two Textual methods (once per process)."""
    global _installed
    if _installed:
        return
    _installed = True
    if not all(hasattr(cls, name) for cls, name in _WRAPPED):
        return  # a Textual that renamed them: cycles are left to the full collections
    loop_exit = Widget._message_loop_exit
    process_components = Stylesheet._process_component_classes

    async def _message_loop_exit(self: Widget) -> None:
        virtual = list(self._component_styles.values())
        await loop_exit(self)
        _cut_virtual(virtual)
        _empty_lru_caches(self)
        _cut(self)

    def _process_component_classes(self: Stylesheet, node: DOMNode) -> None:
        old = list(node._component_styles.values())
        process_components(self, node)
        if old:
            kept = {id(styles) for styles in node._component_styles.values()}
            _cut_virtual(styles for styles in old if id(styles) not in kept)

    _wrap_compositor()
    _wrap_strip()
    _wrap_lru_cache()
    patched: Any = Widget
    patched._message_loop_exit = _message_loop_exit
    patched = Stylesheet
    patched._process_component_classes = _process_component_classes
