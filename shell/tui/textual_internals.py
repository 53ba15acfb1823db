"""Every private part of Textual the TUI relies on, in one list.

Why: a few speed-ups and fixes reach past Textual's public API (the split frame, keys
taken in the order typed, the cycle cutting that spares full garbage collections, the
Markdown that streams in place). Textual may rename any of them in a minor release:
pyproject pins the range we test (``textual>=8.2.8,<9``), ``tests/tui/
test_textual_internals.py`` fails naming the one that went (and fails too when code
here starts using one that is not listed), and the cheap ones fall back at run time
(:func:`lacks`): the shell then works as plain Textual does, without the optimisation.

An entry is ``module:Class.name`` (a method, class attribute or an attribute Textual's
``__init__`` sets), or ``module`` for a private module imported whole.
"""

from __future__ import annotations

SPLIT_FRAME = (
    "textual.app:App._batch_count", "textual.app:App._begin_batch",
    "textual.screen:Screen._update_timer", "textual.screen:Screen._on_timer_update",
    "textual.screen:Screen._refresh_layout", "textual.screen:Screen._compositor_refresh",
    "textual.screen:Screen._compositor", "textual.screen:Screen._dirty_widgets",
    "textual.screen:Screen._invoke_and_clear_callbacks",
)
"""``screens/split_frame.py``: a frame's layout and render in two loop turns.
Without them: frames drawn whole, as Textual does."""

KEYS_IN_ORDER = (
    "textual.dom:DOMNode._bindings", "textual.widgets:TextArea._on_key", "textual.widgets:Input._on_key",
    "textual.widgets:TextArea._on_paste",
)
"""``widgets/keys_in_order.py`` (a field's own binding run when the field reads the key)
and ``widgets/prompt_input.py`` (``_on_key``/``_on_paste`` run along the MRO before the
field's own). Without ``_bindings``: bound keys bubble to the app as in plain Textual."""

FULL_MAP = (
    "textual._compositor:Compositor.reflow", "textual._compositor:Compositor.update_widgets",
    "textual._compositor:Compositor._full_map", "textual._compositor:Compositor._full_map_invalidated",
)
"""``full_map.py``: the compositor's full map kept while it is right (Textual's rules
otherwise: the same screen, more layout work)."""

UNLINK = (
    "textual._compositor",
    "textual._compositor:Compositor._arrange_root", "textual._compositor:Compositor._full_map",
    "textual._compositor:Compositor._visible_map", "textual._compositor:Compositor._full_map_invalidated",
    "textual.widget:Widget._message_loop_exit",
    "textual.css.stylesheet:Stylesheet._process_component_classes",
    "textual.dom:DOMNode._component_styles", "textual.dom:DOMNode._css_styles",
    "textual.dom:DOMNode._inline_styles", "textual.dom:DOMNode._parent", "textual.dom:DOMNode._nodes",
    "textual.cache:LRUCache._cache",
)
"""``unlink.py``: the reference cycles of finished widgets cut, so reference counting
frees them. Without the methods: not installed (full collections free them, later)."""

MARKDOWN = (
    "textual.widgets._markdown", "textual.widgets._markdown:Markdown._parse_markdown",
    "textual.widgets._markdown:Markdown._markdown", "textual.widgets._markdown:Markdown._last_parsed_line",
    "textual.widgets._markdown:Markdown._open_links", "textual.widgets._markdown:MarkdownBlock._blocks",
    "textual.widgets._markdown:MarkdownBlock._token", "textual.widgets._markdown:MarkdownBlock._content",
    "textual.widgets._markdown:MarkdownBlock._inline_token",
    "textual.widgets._markdown:MarkdownBlock._token_to_content",
    "textual.widgets._markdown:MarkdownBlock._update_from_block",
    "textual.widgets._markdown:MarkdownFence._highlighted_code", "textual._styles_cache",
)
"""``widgets/chat_markdown.py``, ``list_lines.py``, ``assistant_message.py``: a reply's
Markdown appended and updated in place (no fallback: these are how replies are drawn)."""

WIDGETS = (
    "textual.widgets._collapsible", "textual.widgets._collapsible:Collapsible._watch_collapsed",
    "textual.widget:Widget._vertical_scrollbar", "textual.widget:Widget._anchor_released",
    "textual.app:App._start_widget", "textual.app:App._handle_exception", "textual.widgets._tabbed_content",
)
"""Tool spans, call groups and thinking blocks (``_collapsible``), the conversation's
steady scroll bar and anchoring, a stream's error shown as Textual shows a timer's,
and the side panel imported ahead (``_tabbed_content``, ``screens/main_startup.py``)."""

RICH = ("rich.style:Style._meta",)
"""``widgets/strip_selection.py``: whether a segment's style carries an offset, read
without building its ``meta`` dict for every segment (Rich, which Textual pins)."""

ALL = SPLIT_FRAME + KEYS_IN_ORDER + UNLINK + FULL_MAP + MARKDOWN + WIDGETS + RICH


def lacks(obj: object, internals: tuple[str, ...]) -> list[str]:
    """The entries of ``internals`` owned by a class of ``obj``'s that neither that
    class (ours overriding it does not count) nor ``obj``'s own attributes have: cheap,
    for a fallback at run time."""
    classes = {f"{c.__module__}:{c.__qualname__}": c for c in type(obj).__mro__}
    short = {key.partition(":")[2]: c for key, c in classes.items()}  # listed where imported from
    gone = []
    for entry in internals:
        owner, _, name = entry.rpartition(".")
        cls = classes.get(owner) or short.get(owner.partition(":")[2]) if ":" in owner else None
        if cls is not None and not hasattr(cls, name) and name not in getattr(obj, "__dict__", {}):
            gone.append(entry)
    return gone
