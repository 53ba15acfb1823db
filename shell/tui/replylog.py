"""The replies of this shell, numbered once: what the trace view lists.

Each reply the main screen starts gets the next number (a resumed conversation's
replies count: after five, the next is reply 6), its words, its start and end
time and the front-end core's :class:`~shell.frontend.reply.ReplyState`. The
trace view shows the ``Tracing`` middleware's span tree for a reply when there is
one and, for replies sent while Tracing was off or before the view was first
opened, what the reply state knows (its tools, time and tokens), so the view is
never empty of replies the user can see in the conversation, and reply 3 is
reply 3 however often the view is opened.
"""

from __future__ import annotations

import time
from collections import deque
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from shell.frontend.reply import ReplyState

KEEP = 50
"""Replies remembered (the oldest go first)."""


@dataclass(slots=True)
class ReplyRecord:
    number: int
    text: str
    state: ReplyState
    started: float = field(default_factory=time.time)
    ended: float | None = None
    tracing_on: bool = False
    """Whether the Tracing middleware was switched on when the reply started (when the
    view has no tree for it, the view says why: Tracing off, or only its tree)."""

    @property
    def reply_id(self) -> str:
        return self.state.reply_id


class ReplyLog:
    """The numbered replies, oldest first."""

    def __init__(self, earlier: int = 0) -> None:
        self.records: deque[ReplyRecord] = deque(maxlen=KEEP)
        self.count = earlier
        """Replies so far, those of a resumed conversation included."""

    def start(self, text: str, state: ReplyState, *, tracing_on: bool = False) -> ReplyRecord:
        self.count += 1
        record = ReplyRecord(self.count, text, state, tracing_on=tracing_on)
        self.records.append(record)
        return record

    def number_of(self, reply_id: str) -> int | None:
        return next((r.number for r in self.records if r.reply_id == reply_id and reply_id), None)
