"""The prompt: a multi-line TextArea where Enter sends.

Shift+Enter or Ctrl+J inserts a new line; Up on the first line and Down on the
last walk the history; a leading ``/`` completes slash commands inline (Right or
Tab accepts the suggestion). A word starting with ``@`` at the cursor asks for
the file picker (:class:`PromptInput.Mention`); while the picker is open
(``picking``), Up, Down, Tab, Enter and Esc are the picker's.
"""

from __future__ import annotations

from collections.abc import Callable

from textual import events
from textual.binding import Binding
from textual.message import Message
from textual.widgets import TextArea

from shell.context.attachments import MENTION_AT_CURSOR
from shell.core.textsafety import path_text
from shell.frontend.paste import Pastes, is_long_paste

from .keys_in_order import KeysInOrder

PICKER_KEYS = {"up": "up", "down": "down", "tab": "accept", "enter": "send", "escape": "close"}


PLACEHOLDERS = (
    "Message the agent — Enter sends, Shift+Enter new line, / commands, @ files",
    "Message the agent — Enter sends, / commands, @ files",
    "Message — Enter sends, / commands",
    "Message the agent",
)
"""What the empty prompt says, longest first (the first that fits is shown)."""


class PromptInput(KeysInOrder, TextArea):
    """Posts :class:`PromptInput.Submitted` with the text when the user presses Enter."""

    DEFAULT_CSS = """
    PromptInput { height: auto; min-height: 3; max-height: 12; border: round $primary 50%; padding: 0 1; }
    PromptInput:focus { border: round $primary; }
    """

    BINDINGS = [
        Binding("pageup", "page_conversation(-1)", "Scroll up", show=False),
        Binding("pagedown", "page_conversation(1)", "Scroll down", show=False),
    ]
    """A prompt is a few lines: Page Up/Down scroll the conversation instead, so
    reading back needs neither the mouse nor a change of focus."""

    class Submitted(Message):
        def __init__(self, text: str) -> None:
            super().__init__()
            self.text = text

    class Page(Message):
        """Page Up (``direction`` -1) or Page Down (1) pressed in the prompt."""

        def __init__(self, direction: int) -> None:
            super().__init__()
            self.direction = direction

    class Mention(Message):
        """The ``@`` word at the cursor changed: ``query`` is what follows ``@``, or
        None when the cursor is no longer in such a word (the picker closes)."""

        def __init__(self, query: str | None) -> None:
            super().__init__()
            self.query = query

    class PickerKey(Message):
        """A key meant for the open picker: ``up``, ``down``, ``accept`` (Tab), ``send``
        (Enter: accept, or send the message when there is nothing to pick) or ``close``."""

        def __init__(self, action: str) -> None:
            super().__init__()
            self.action = action

    def action_page_conversation(self, direction: int) -> None:
        self.post_message(self.Page(direction))

    def __init__(self, *, commands: Callable[[], list[str]] | None = None, id: str | None = None) -> None:
        super().__init__(id=id, soft_wrap=True, show_line_numbers=False, tab_behavior="focus")
        self.sent_history: list[str] = []
        self._history_pos: int | None = None
        self._draft = ""
        self._commands = commands or (lambda: [])
        self.newline_sends = False
        """While the shell starts: what was typed before the app took the terminal
        arrives as the terminal's cooked mode left it, where Enter became a line
        feed (Ctrl+J). Then a line feed sends."""
        self.placeholder = PLACEHOLDERS[0]
        self.picking = False
        """The ``@`` picker is open: its keys are forwarded to it."""
        self._mention: str | None = None
        self.pastes = Pastes()
        """Long pastes, shown as tokens (see :mod:`shell.frontend.paste`)."""

    def on_resize(self, event: events.Resize) -> None:
        """The longest placeholder that fits: at 60 columns (or with the side panel
        open) the one sentence was cut after "new line, /"."""
        room = self.content_size.width - 1  # the cursor's cell
        self.placeholder = next((p for p in PLACEHOLDERS if len(p) <= room), PLACEHOLDERS[-1])

    async def _on_paste(self, event: events.Paste) -> None:
        """A long paste becomes a short token here; it is the whole text again when sent."""
        text = event.text.replace("\r\n", "\n").replace("\r", "\n")  # terminals paste lines with CR
        if self.read_only or not is_long_paste(text):
            return  # TextArea's own handler runs next (Textual calls each class's in turn)
        event.stop()
        event.prevent_default()
        result = self.replace(self.pastes.add(text), *self.selection)
        self.move_cursor(result.end_location)

    async def _on_key(self, event: events.Key) -> None:
        key = event.key
        if self.picking and key in PICKER_KEYS:
            event.stop()
            event.prevent_default()
            self.post_message(self.PickerKey(PICKER_KEYS[key]))
            return
        if key == "enter":
            event.stop()
            event.prevent_default()
            self._submit()
            return
        if key == "ctrl+j" and self.newline_sends:
            event.stop()
            event.prevent_default()
            self._submit()
            return
        if key in ("shift+enter", "ctrl+j"):
            event.stop()
            event.prevent_default()
            self.insert("\n")
            return
        if key in ("backspace", "delete") and self.selection.is_empty and self._remove_paste(key):
            event.stop()
            event.prevent_default()
            return
        if key == "tab" and self.suggestion:
            event.stop()
            event.prevent_default()
            self.insert(self.suggestion)
            return
        if key == "up" and self.cursor_location[0] == 0 and self.sent_history:
            event.stop()
            event.prevent_default()
            self._walk(-1)
            return
        if (
            key == "down"
            and self._history_pos is not None
            and self.cursor_location[0] == self.document.line_count - 1
        ):
            event.stop()
            event.prevent_default()
            self._walk(1)
            return
        if key in ("left", "right", "home", "end", "ctrl+left", "ctrl+right"):
            self.call_next(self._check_mention)  # once the key has moved the cursor
        # Not ``super()._on_key``: Textual calls every class's ``_on_key`` along the MRO
        # itself, so KeysInOrder (then TextArea) still gets the key, once. Calling it here
        # too looked the key up in KeysInOrder twice.

    def _remove_paste(self, key: str) -> bool:
        """Backspace after a paste's token, or Delete before it, removes the token whole
        (Ctrl+Z brings it back): the paste is one thing in the prompt."""
        row, column = self.cursor_location
        line = self.document.get_line(row)
        if key == "backspace":
            size = self.pastes.token_before(line[:column])
            where = ((row, column - size), (row, column))
        else:
            size = self.pastes.token_after(line[column:])
            where = ((row, column), (row, column + size))
        if not size:
            return False
        self.delete(*where)
        self.app.notify("Paste removed from the message (Ctrl+Z brings it back).", timeout=3)
        return True

    def _check_mention(self) -> None:
        row, column = self.cursor_location
        line = self.document.get_line(row)[:column] if row < self.document.line_count else ""
        found = MENTION_AT_CURSOR.search(line)
        query = found.group(1) if found else None
        if query != self._mention:
            self._mention = query
            self.post_message(self.Mention(query))

    def replace_mention(self, path: str, *, keep_open: bool = False) -> None:
        """Put ``@path`` in place of the ``@`` word at the cursor (quoted when it
        holds a space); a space follows unless ``keep_open`` (a folder, to go on).
        A name holding a newline or another control goes in escaped, as the tools
        show it (``nl\\nx.txt``, :func:`~shell.core.textsafety.path_text`), which the
        attachment resolver reads back: picked raw, it broke the prompt's line."""
        row, column = self.cursor_location
        line = self.document.get_line(row)[:column]
        found = MENTION_AT_CURSOR.search(line)
        if found is None:
            return
        path = path_text(path)
        shown = f'"{path}"' if any(c.isspace() or c == '"' for c in path) else path
        self.replace(f"@{shown}{'' if keep_open else ' '}", (row, found.start()), (row, column))
        self._check_mention()

    def action_submit(self) -> None:
        self._submit()

    def _submit(self) -> None:
        text = self.text
        if not text.strip():
            return
        if broken := self.pastes.broken(text):
            self.app.notify(
                f"Pasted text #{broken[0]}'s placeholder was edited, so the paste is no longer attached: "
                "Ctrl+Z undoes the edit; or delete the rest of the placeholder to send without the paste.",
                severity="warning", timeout=8,
            )
            return  # nothing sent, nothing lost
        if not self.sent_history or self.sent_history[-1] != text:
            self.sent_history.append(text)
        self._history_pos = None
        self.clear()
        self.post_message(self.Submitted(self.pastes.expand(text)))

    def _walk(self, step: int) -> None:
        if self._history_pos is None:
            if step > 0:
                return
            self._draft = self.text
            self._history_pos = len(self.sent_history)
        pos = self._history_pos + step
        if pos >= len(self.sent_history):
            self._history_pos = None
            self.load_text(self._draft)
        else:
            self._history_pos = max(0, pos)
            self.load_text(self.sent_history[self._history_pos])
        self.move_cursor(self.document.end)

    def update_suggestion(self) -> None:
        self._check_mention()
        text = self.text
        if not text.startswith("/") or " " in text or "\n" in text:
            self.suggestion = ""
            return
        for name in self._commands():
            if name.startswith(text) and name != text:
                self.suggestion = name[len(text) :]
                return
        self.suggestion = ""
