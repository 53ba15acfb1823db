"""Editing keys take effect in the order they were typed.

Textual hands a key bound in the focused field (Backspace, Left, Ctrl+W, an
Input's Enter) to its binding only after the key has bubbled up to the app,
through one message queue per ancestor; a letter is inserted by the field as soon
as the field reads it. When a terminal delivers several keys in one read (a slow
ssh or mosh link, a text expander, a password manager's auto-type), the letters
after a Backspace land before the Backspace does, and Enter can send the text
before the corrections typed ahead of it (finding J2: "hello wrold", four
Backspaces, "orld", Enter sent "hello wroldorld").

:class:`KeysInOrder` runs the field's own binding for such a key when the field
reads it, as the app would have later: the same bindings, looked up the same way
(first match whose action is allowed), so nothing but the timing changes. Keys the
field does not bind still bubble as before (Esc, F2, the screen's keys).
"""

from __future__ import annotations

from typing import cast

from textual import events
from textual.widget import Widget

BINDINGS = "_bindings"
"""Textual's private map of a node's bindings (``textual_internals.KEYS_IN_ORDER``)."""


class KeysInOrder:
    """Mix in before a text field's class: ``class Field(KeysInOrder, Input)``.

    Textual calls each class's ``_on_key`` in turn (most derived first) until one
    prevents the default, so this one runs before the field's own and ends the
    walk when a binding took the key. Not a Widget itself: Textual gathers a
    widget's CSS and component classes along its Widget bases, which a Widget
    mixin would cut short."""

    async def _on_key(self, event: events.Key) -> None:
        if event.is_printable:
            return  # the field inserts it itself, at once
        field = cast(Widget, self)
        bindings = getattr(field, BINDINGS, None)
        if bindings is None:
            return  # a Textual without it: the key bubbles to the app, in order or not
        for binding in bindings.key_to_bindings.get(event.key, ()):
            if binding.priority:
                continue  # the app ran the priority ones before the key came here
            if await field.app.run_action(binding.action, field):
                event.stop()
                event.prevent_default()
                return
