"""A multi-line text box whose editing keys act in the order they were typed
(see :mod:`.keys_in_order`): the approval dialog's argument editor and rules."""

from __future__ import annotations

from textual.widgets import TextArea

from .keys_in_order import KeysInOrder


class TextBox(KeysInOrder, TextArea):
    """Textual's TextArea, with Backspace, arrows and Ctrl+W applied in typing order."""
