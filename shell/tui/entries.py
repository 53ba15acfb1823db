"""What the conversation holds: entries that can build their widget again.

The conversation keeps every entry but mounts only the newest ones; an entry
that leaves the tree keeps its data (``capture``) and ``build`` makes an
identical widget when the user scrolls back to it.
"""

from __future__ import annotations

import abc
from dataclasses import dataclass, field
from typing import ClassVar

from textual.widget import Widget

from shell.frontend.reply import CallView

from .widgets.audio_block import AudioBlock, new_key
from .widgets.call_group import CallGroup
from .widgets.notice_line import NoticeLine
from .widgets.thinking import ThinkingBlock
from .widgets.tool_span import ToolSpan
from .widgets.user_message import UserMessage
from .widgets.welcome import Part, Welcome


@dataclass(eq=False)
class Entry(abc.ABC):
    widget: Widget | None = field(default=None, init=False, repr=False)
    live: bool = field(default=False, init=False)

    rebuilt_live: ClassVar[bool] = False
    """Its widget can be dropped while it is live and built again showing the same:
    everything it shows lives in the entry (a tool span's call), not in the widget
    (a streaming text's Markdown stream)."""

    def can_leave(self) -> bool:
        """Its widget may leave the window now (the conversation keeps only the newest
        entries mounted, and stops at the first one that may not). A finished entry
        always may; a live one if it is rebuilt from the entry, or says so."""
        return not self.live or self.rebuilt_live

    @abc.abstractmethod
    def build(self) -> Widget:
        """A fresh widget showing this entry (again, when scrolled back into view)."""

    def capture(self) -> None:  # noqa: B027 (a hook: most entries have nothing to copy)
        """Copy what the widget learnt back into the entry before it is dropped."""

    def take(self, widget: Widget) -> bool:
        """Show this entry in ``widget``, one that an older entry leaves behind (no
        new widget built, mounted and laid out); False when it cannot."""
        return False


@dataclass(eq=False)
class UserEntry(Entry):
    text: str
    queued: bool = False
    chips: tuple[str, ...] = ()
    """What the message carried: ``@`` files and folders, images (one line each)."""

    def build(self) -> Widget:
        return UserMessage(self.text, queued=self.queued, chips=self.chips)


@dataclass(eq=False)
class AssistantEntry(Entry):
    text: str = ""

    def build(self) -> Widget:
        # Imported here: the Markdown widget and its parser are not on the way to the
        # first ready screen (see widgets.welcome); they load in the background then.
        from .widgets.assistant_message import AssistantMessage

        return AssistantMessage(self.text, streaming=self.live)

    def capture(self) -> None:
        from .widgets.assistant_message import AssistantMessage

        if isinstance(self.widget, AssistantMessage):
            self.text = self.widget.text

    def can_leave(self) -> bool:
        """Live, once everything it received is drawn: a model's text before its tool
        calls stays live until the last call has streamed (the closing events come
        together), and while it could not leave, every span after it stayed mounted
        (500 calls: each frame laid out 500 spans, 260 s). Its text is kept here,
        and what still comes is added here (see ``ReplyRenderer``)."""
        from .widgets.assistant_message import AssistantMessage

        widget = self.widget
        return not self.live or (isinstance(widget, AssistantMessage) and widget.quiet)


@dataclass(eq=False)
class WelcomeEntry(Entry):
    parts: tuple[Part, ...]

    def build(self) -> Widget:
        return Welcome(self.parts)


@dataclass(eq=False)
class ThinkingEntry(Entry):
    text: str = ""

    def build(self) -> Widget:
        return ThinkingBlock(self.text, done=not self.live)

    def capture(self) -> None:
        if isinstance(self.widget, ThinkingBlock):
            self.text = self.widget.text

    def can_leave(self) -> bool:
        """Always: its text is all in the widget (``text`` takes what waits for the frame),
        and it is built again from it (see ``AssistantEntry.can_leave`` for why it matters)."""
        return True


@dataclass(eq=False)
class SpanEntry(Entry):
    state: CallView
    args_shown: bool = field(default=False, init=False)
    """Some streamed arguments were drawn (the rest are drawn once per frame)."""
    expanded: bool = field(default=False, init=False)
    folded: bool = field(default=False, init=False)
    """Out of the conversation, counted in its run's group row (see :mod:`.grouping`)."""

    rebuilt_live: ClassVar[bool] = True

    def build(self) -> Widget:
        return ToolSpan(self.state, collapsed=not self.expanded)

    def opened(self) -> bool:
        """The user opened it (it is not folded away under their eyes)."""
        widget = self.widget
        return self.expanded or (isinstance(widget, ToolSpan) and not widget.collapsed)

    def capture(self) -> None:
        if isinstance(self.widget, ToolSpan):
            self.expanded = not self.widget.collapsed

    def take(self, widget: Widget) -> bool:
        """A collapsed span (the usual, in a turn of many calls) shows this call."""
        if self.expanded or not isinstance(widget, ToolSpan) or not widget.collapsed:
            return False
        widget.show(self.state)
        self.widget = widget
        return True


@dataclass(eq=False)
class GroupEntry(Entry):
    """A run of calls of one tool, as one row (see :mod:`.grouping`)."""

    name: str
    calls: list[CallView]
    """Every call of the run, in order (the run adds to it)."""
    expanded: bool = field(default=False, init=False)

    rebuilt_live: ClassVar[bool] = True

    def build(self) -> Widget:
        return CallGroup(self.name, self.calls, collapsed=not self.expanded)

    def capture(self) -> None:
        if isinstance(self.widget, CallGroup):
            self.expanded = not self.widget.collapsed


@dataclass(eq=False)
class AudioEntry(Entry):
    block_id: str
    media_type: str
    data: bytes = b""
    key: str = ""
    """Unique in the app (block ids repeat across replies); the player knows clips by it."""

    def __post_init__(self) -> None:
        self.key = self.key or new_key(self.block_id)

    def build(self) -> Widget:
        return AudioBlock(self.block_id, self.media_type, self.data, done=not self.live, key=self.key)

    def capture(self) -> None:
        if isinstance(self.widget, AudioBlock):
            self.data = bytes(self.widget.data)


@dataclass(eq=False)
class NoticeEntry(Entry):
    level: str
    text: str
    middleware: str | None = None

    def build(self) -> Widget:
        return NoticeLine(self.level, self.text, middleware=self.middleware)
