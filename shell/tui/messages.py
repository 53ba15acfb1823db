"""What the reply renderer tells the screen around the conversation.

The renderer draws a reply into the conversation and knows nothing else of the
app: the status line's phase, the token counts, the side panel's marks, the todo
list, the trace view and auto-play hear about a reply through these messages,
posted from the conversation and handled by the main screen.
"""

from __future__ import annotations

from typing import Any

from textual.message import Message

from shell.speech.playback import Clip


class PhaseChanged(Message):
    """The reply moved on: ``thinking``, ``streaming``, ``approval``, ``tool``, ``idle``."""

    def __init__(self, phase: str) -> None:
        super().__init__()
        self.phase = phase


class UsageReported(Message):
    """A model call ended (the session's counts changed)."""


class MiddlewareFailed(Message):
    """A middleware raised: the panel marks it."""

    def __init__(self, name: str, error: str) -> None:
        super().__init__()
        self.name = name
        self.error = error


class TodosChanged(Message):
    def __init__(self, todos: Any) -> None:
        super().__init__()
        self.todos = todos


class AudioFinished(Message):
    """A spoken reply's audio block is complete (``/speak auto`` plays it)."""

    def __init__(self, clip: Clip) -> None:
        super().__init__()
        self.clip = clip


class TraceChanged(Message):
    """Tracing's tree moved on (the trace view redraws on its own clock)."""
