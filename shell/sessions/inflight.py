"""What is shown but not yet in the history: the model's text while it streams, and
the live output of a running tool.

Text in flight is not a message yet. :class:`InFlight` rebuilds it from the block
events (the engine's ``MessageBuilder``) and writes a ``checkpoint`` record of it at
most every ``interval`` seconds while it changes; a timer thread writes the last one
even when the stream stalls, so what was shown is on disk within about a second. The
final message makes the checkpoint obsolete (the loader drops a checkpoint that a later
assistant message follows). A running tool's string progress is kept the same way, in
``tool_progress`` records (the tail, :data:`MAX_PROGRESS` characters).

It shares the recorder's file and lock: the recorder tells it what happened (a reply
or a model call started, a block event, a call's output, a message landed), and it
decides when a record is due. A token cut mid-stream (``ghp_12…``) is never written
until it is whole and the redactor can recognise it.
"""

from __future__ import annotations

import threading
import time
from typing import TYPE_CHECKING

from shell.agent.assembly import MessageBuilder
from shell.core.events import (
    Event,
    TextBlockEnd,
    TextBlockStart,
    ThinkingBlockEnd,
    ThinkingBlockStart,
    ToolCallEnd,
)
from shell.core.messages import TextBlock, ThinkingBlock

from .codec import blocks_to_json

if TYPE_CHECKING:
    from .redact import Redactor
    from .writer import SessionWriter

SHARE = 0.05
"""At most this share of the CPU goes to checkpointing the text in flight. A
checkpoint writes all of it (redacted, encoded, fsynced): well under a millisecond of
CPU for a reply of common size, but ~130 ms once a flooding server had sent ten
seconds of text, and it was due again as soon as it ended, so the TUI did little else
and Esc and typing waited behind one checkpoint after another, longer the longer the
flood had run (F9). The next one is due after ``interval`` or twenty times the CPU
time the last one took, whichever is longer (CPU, not wall time: a slow disk's fsync
or a busy machine does not space them out)."""
MAX_PROGRESS = 64_000
"""Characters of a running tool's output kept in a ``tool_progress`` record (the tail)."""
_BLOCK_ENDS = (TextBlockEnd, ThinkingBlockEnd, ToolCallEnd)


class InFlight:
    """The unsaved part of a reply, checkpointed into the recorder's file."""

    def __init__(
        self, file: SessionWriter, redactor: Redactor, lock: threading.RLock, interval: float
    ) -> None:
        self.file = file
        self.redactor = redactor
        self.lock = lock
        self.interval = interval
        self.builder: MessageBuilder | None = None
        self.reply_id = ""
        self.calls = 0  # model calls started in this reply
        self.landed = 0  # of those, the ones whose message is in the file
        self.dirty = False  # text changed since the last checkpoint
        self.open_block = False  # a text or thinking block is streaming (the last one)
        self.progress: dict[str, list[str]] = {}
        self.progress_dirty: set[str] = set()
        self.last = 0.0
        self.gap = interval
        """Seconds from one text checkpoint's start to the next (see :data:`SHARE`)."""
        self.timer: threading.Timer | None = None
        self.closed = False

    # -- what happened --------------------------------------------------------------
    def reply_start(self, reply_id: str) -> None:
        self.calls = self.landed = 0
        self.builder = None
        self.reply_id = reply_id

    def model_call(self) -> None:
        self.calls += 1
        self.builder = MessageBuilder()
        self.dirty = False
        self.gap = self.interval

    def attempt_withdrawn(self) -> None:
        """A middleware retried the model call in flight: its next ``ModelCallStart`` is
        the same call again (one message lands for both), and what the failed attempt
        streamed is not part of it."""
        self.calls = max(self.landed, self.calls - 1)
        self.builder = None
        self.dirty = False

    def block(self, event: Event) -> None:
        if isinstance(event, (TextBlockStart, ThinkingBlockStart)):
            self.open_block = True
        elif isinstance(event, (TextBlockEnd, ThinkingBlockEnd)):
            self.open_block = False
        if self.builder is None:
            return
        self.builder.see(event)
        if self.calls > self.landed:
            self.dirty = True
            if isinstance(event, _BLOCK_ENDS) and self.gap <= self.interval:
                # A finished block is on screen before its message lands in the
                # history (the reply is pulled: the commit comes later), so it
                # is saved now, not at the next timed checkpoint. (Unless its
                # checkpoints have become costly: then it waits for its turn, and
                # a cancelled flood's block, which lands at once, is not written
                # twice while the user waits for the cancel.)
                self.cancel_timer()
                self.checkpoint()
            else:
                self.maybe_checkpoint()

    def tool_output(self, call_id: str, text: str) -> None:
        self.progress.setdefault(call_id, []).append(text)
        self.progress_dirty.add(call_id)
        self.maybe_checkpoint()

    def tool_done(self, call_id: str) -> None:
        self.progress.pop(call_id, None)
        self.progress_dirty.discard(call_id)

    def reply_end(self) -> None:
        self.cancel_timer()
        self.builder = None
        self.progress.clear()
        self.progress_dirty.clear()

    def message_landed(self, rewritten: bool = False) -> None:
        """An assistant message is in the file (``rewritten``: the whole history was
        written anew): the model call in flight, if any, is complete there."""
        self.landed = self.calls if rewritten else self.landed + 1
        self.dirty = False

    # -- when to write --------------------------------------------------------------
    def maybe_checkpoint(self) -> None:
        due = self.last + (self.gap if self.dirty else self.interval)
        now = time.monotonic()
        if now >= due:
            self.checkpoint()
        elif self.timer is None:
            timer = threading.Timer(due - now, self._on_timer)
            timer.daemon = True
            self.timer = timer
            timer.start()

    def _on_timer(self) -> None:
        with self.lock:
            self.timer = None
            if not self.closed:
                self.file.guarded(self.checkpoint)

    def cancel_timer(self) -> None:
        if self.timer is not None:
            self.timer.cancel()
            self.timer = None

    def checkpoint(self) -> None:
        """Write what is shown but not yet saved: the model's text in flight, the
        output of running tools."""
        if not self.file.started:
            return
        if self.progress_dirty:
            self.last = time.monotonic()
            for call_id in sorted(self.progress_dirty):
                output = "".join(self.progress.get(call_id, ()))[-MAX_PROGRESS:]
                self.progress[call_id] = [output]
                shown = self.redactor.text(whole_words(output))
                self.file.write({"kind": "tool_progress", "call_id": call_id, "output": shown})
                self.progress_dirty.discard(call_id)
        if not self.dirty or self.builder is None or self.calls <= self.landed:
            return
        self.last = time.monotonic()
        cpu = time.thread_time()
        partial = self.builder.message(partial_reason="interrupted")
        if not partial.content:
            self.dirty = False
            return
        blocks = list(partial.content)
        last = blocks[-1]
        if self.open_block and isinstance(last, (TextBlock, ThinkingBlock)):
            # A token cut mid-stream has no shape yet (``ghp_12…``): its start is not
            # written until it is whole and can be recognised.
            cut = whole_words(last.text)
            blocks[-1] = TextBlock(cut) if isinstance(last, TextBlock) else ThinkingBlock(cut, last.signature)
        content = tuple(self.redactor.block(b) for b in blocks)
        self.file.write({"kind": "checkpoint", "reply_id": self.reply_id, "content": blocks_to_json(content)})
        self.dirty = False
        self.gap = max(self.interval, (time.thread_time() - cpu) / SHARE)


def whole_words(text: str) -> str:
    """``text`` without a last word that may be the start of a secret still streaming
    (eight characters or more, anything but letters, or right after ``:`` / ``=``);
    a short plain word (``answer``) is kept, so a stalled stream's text is saved."""
    if not text or text[-1].isspace():
        return text
    start = max(text.rfind(c) for c in " \n\t") + 1
    word = text[start:]
    if len(word) < 8 and word.isalpha() and not text[max(0, start - 3) : start].rstrip().endswith((":", "=")):
        return text
    return text[:start]
