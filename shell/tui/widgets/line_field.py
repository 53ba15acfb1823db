"""A one-line text field whose editing keys act in the order they were typed
(see :mod:`.keys_in_order`): the approval dialog's reason, the history search."""

from __future__ import annotations

from textual.widgets import Input

from .keys_in_order import KeysInOrder


class LineField(KeysInOrder, Input):
    """Textual's Input, with Backspace, arrows and Enter applied in typing order."""
