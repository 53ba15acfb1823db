"""The agent's todo list (``CustomEvent("todos")`` from the TodoList middleware)."""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.widgets import Static

from shell.core.textsafety import sanitize

MARKS = {"completed": "☑", "done": "☑", "in_progress": "◐", "pending": "☐"}


class TodoList(Static):
    """Hidden until the first todo list arrives; each item shows its status."""

    DEFAULT_CSS = """
    TodoList { height: auto; max-height: 10; padding: 0 1; border-top: solid $panel; display: none; }
    TodoList.-shown { display: block; }
    """

    def set_todos(self, data: Any) -> None:
        items = data.get("todos", data) if isinstance(data, dict) else data
        if not isinstance(items, (list, tuple)):
            return
        text = Text()
        for item in items:
            if isinstance(item, dict):
                status = str(item.get("status", "pending"))
                label = str(item.get("content") or item.get("text") or item.get("title") or "")
            else:
                status, label = "pending", str(item)
            style = (
                "strike dim"
                if status in ("completed", "done")
                else ("bold" if status == "in_progress" else "")
            )
            text.append(f"{MARKS.get(status, '☐')} {sanitize(label)}\n", style=style)
        text.rstrip()
        self.update(text)
        self.set_class(bool(items), "-shown")
