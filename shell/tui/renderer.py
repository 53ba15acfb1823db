"""Turns the events of a reply into widgets: the one place that knows both.

One :class:`ReplyRenderer` per reply. What the reply *is* (each tool call's
status, arguments, decision and result; the phase; how it ended) is the
front-end core's :class:`~shell.frontend.reply.ReplyState`, the same reducer the
line mode and headless mode use; this module only mounts and redraws widgets
from it. Events are dispatched by type through a table (a reply can carry tens
of thousands of text deltas, so no isinstance chains); widgets are mounted in
order as their blocks start. Deltas are drawn once per frame however fast they
come (text and thinking by their widgets, tool arguments here), and
:meth:`ReplyRenderer.cancel` (Esc) stops all drawing at once: what was received
but not drawn is dropped, later deltas are ignored, so the reply ends on screen
within a frame however large the backlog.

Everything outside the conversation (the status line, the panel, the todo list,
the trace view, auto-play) hears about the reply through the messages of
:mod:`.messages`, posted from the conversation: the renderer never reaches into
the app.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Container
from typing import Any

from shell.core import events as ev
from shell.frontend.reply import CallView, ReplyState, end_notice
from shell.speech.playback import Clip

from . import messages as msg
from .entries import AssistantEntry, AudioEntry, Entry, GroupEntry, NoticeEntry, SpanEntry, ThinkingEntry
from .grouping import FOLD_EVERY_S, Run
from .widgets.assistant_message import AssistantMessage
from .widgets.audio_block import AudioBlock
from .widgets.call_group import CallGroup
from .widgets.conversation import Conversation
from .widgets.thinking import ThinkingBlock
from .widgets.tool_span import ToolSpan

Handler = Callable[[Any], Awaitable[None]]
_DELTAS = frozenset({ev.TextBlockDelta, ev.ThinkingBlockDelta, ev.ToolCallDelta, ev.DataBlockDelta})
_CALL_EVENTS = frozenset({
    ev.ToolCallStart, ev.ToolCallDelta, ev.ToolCallEnd, ev.PermissionChecking, ev.ApprovalRequested,
    ev.ApprovalResolved,
    ev.ToolExecutionStart, ev.ToolArgsChanged, ev.ToolExecutionUpdate, ev.ToolExecutionEnd,
})
"""Events the reducer turns into a call's new state: the span is redrawn from it."""
ARGS_FRAME_S = 1 / 30
"""Streaming tool arguments are redrawn at most this often; new spans mounted too."""
SPANS_PER_FRAME = 40
"""More new spans than this are mounted at once, not a frame later (at most a
window's worth is built: the rest is above it)."""
BURST_CALLS = 40
"""Past this many calls in one reply, new spans come in less often..."""
BURST_FRAME_S = 0.25
"""...this often (each mount moves the window's spans and lays out the screen, a
frame of 20-50 ms: in a burst of hundreds of calls those frames were most of the
work, and the calls streamed slower for it)..."""
BURST_SPANS = 1000
"""...or once this many wait (the window's worth of them is built, the rest is
only counted above it)."""
RESTYLE_SLICE_S = 0.008
"""Longest stretch of redrawing ended spans before the loop gets a turn."""


class ReplyRenderer:
    """Renders one reply into ``conversation``; ``middleware`` names the stack's
    middleware (an error from one of them offers to switch it off)."""

    def __init__(self, conversation: Conversation, middleware: Container[str] = ()) -> None:
        self.conversation = conversation
        self.middleware = middleware
        self.reply = ReplyState()
        self.blocks: dict[str, Entry] = {}
        self._ending: dict[str, Entry] = {}
        """Text blocks ended by the model whose backlog is still being drawn, by block id."""
        self.spans: dict[str, SpanEntry] = {}
        self._phase = ""
        self._args_due: set[str] = set()  # calls whose streamed arguments are not drawn yet
        self._args_scheduled = False
        self._new_spans: list[SpanEntry] = []
        """Spans of calls that started since the last frame: mounted together."""
        self._spans_scheduled = False
        self._restyling: asyncio.Future[None] | None = None
        """Spans a cancelled turn ended, redrawn after the reply (see :meth:`finish_all`)."""
        self._spans_lock = asyncio.Lock()
        self._spans_mounted_at = 0.0
        self._run: Run | None = None
        """The calls of one tool in a row that the next call of that tool joins."""
        self._runs: dict[str, Run] = {}
        """Each call's run, by call id."""
        self._fold_due: list[Run] = []
        self._fold_scheduled = False
        self._fold_lock = asyncio.Lock()
        self._cut: dict[str, AssistantMessage | ThinkingBlock] = {}
        """The text and thinking blocks Esc cut, by block id (:meth:`shown`)."""
        self._ended_on_screen = False
        """Esc has ended the reply (:meth:`end_now` draws it): nothing new is mounted."""
        self.end_shown = asyncio.Event()
        """Set once the end Esc drew is on screen (or drawing it failed)."""
        self._table: dict[type, Handler] = {
            ev.ModelCallEnd: self._model_call_end,
            ev.AttemptWithdrawn: self._attempt_withdrawn,
            ev.TextBlockStart: self._text_start,
            ev.TextBlockDelta: self._text_delta,
            ev.TextBlockEnd: self._text_end,
            ev.ThinkingBlockStart: self._thinking_start,
            ev.ThinkingBlockDelta: self._thinking_delta,
            ev.ThinkingBlockEnd: self._thinking_end,
            ev.ToolCallStart: self._call,
            ev.ToolCallDelta: self._call_delta,
            ev.ToolCallEnd: self._call,
            ev.PermissionChecking: self._call,
            ev.ApprovalRequested: self._call,
            ev.ApprovalResolved: self._call,
            ev.ToolExecutionStart: self._call,
            ev.ToolArgsChanged: self._call,
            ev.ToolExecutionUpdate: self._call,
            ev.ToolExecutionEnd: self._call,
            ev.DataBlockStart: self._data_start,
            ev.DataBlockDelta: self._data_delta,
            ev.DataBlockEnd: self._data_end,
            ev.Notice: self._notice,
            ev.ErrorEvent: self._error,
            ev.CustomEvent: self._custom,
            ev.ReplyEnd: self._reply_end,
        }

    @property
    def cancelled(self) -> bool:
        return self.reply.cancelled

    @property
    def ended_on_screen(self) -> bool:
        return self._ended_on_screen

    @property
    def stop_reason(self) -> str:
        return self.reply.end.stop_reason if self.reply.end is not None else ""

    def _post(self, message: Any) -> None:
        self.conversation.post_message(message)

    async def handle(self, event: Any) -> None:
        if self.reply.cancelled and type(event) in _DELTAS:
            return  # cancelled: nothing more is drawn of what was in flight
        call = self.reply.apply(event)
        handler = self._table.get(type(event))
        if handler is not None:
            await handler(call if type(event) in _CALL_EVENTS else event)
        if self.reply.phase != self._phase:
            self._phase = self.reply.phase
            self._post(msg.PhaseChanged(self._phase))

    def cancel(self) -> None:
        """Esc: stop drawing now. Backlogs are dropped (each text block says how much)."""
        self.reply.cancel()
        self._ended_on_screen = True  # (drawn by end_now)
        self._args_due.clear()
        # a block the model ended is still drawing its backlog (a reply sent as one delta
        # had all of it there): it is dropped too, or Esc waited for all of it; and it is
        # cut in the history too (all of it had arrived, the user saw only the start)
        for block_id, entry in [*self.blocks.items(), *self._ending.items()]:
            if isinstance(entry.widget, (AssistantMessage, ThinkingBlock)):
                entry.widget.drop_backlog()
                self._cut[block_id] = entry.widget

    def shown(self) -> dict[str, int]:
        """How many characters of each text or thinking block still streaming or being
        drawn at Esc were drawn (``Agent.cancel``'s ``shown``): the history keeps those,
        not the backlog Esc dropped. Read when the engine makes the partial message, after :meth:`end_now`
        (the reply worker waits for it), so a frame Esc stopped midway is counted."""
        return {block_id: max(0, widget.received - widget.dropped) for block_id, widget in self._cut.items()}

    async def end_now(self) -> None:
        """Esc, once :meth:`cancel` has stopped the drawing: end the reply on screen now
        (its text blocks say what was not shown, then "Reply cancelled."), without
        waiting for the engine's ``ReplyEnd``. That comes after the partial message is
        made, which under a flood joins all the text received before it is cut to what
        was drawn (tens of MB after a few seconds; ~120 ms of CPU per 14 MB when all of
        it was kept): the screen waited for it, longer the longer the flood had run
        (F9). The engine's end then only settles the state."""
        await self._mount_spans()
        for block_id in list(self.blocks):
            await self._end_block(block_id, self.blocks.pop(block_id))
        await self._add(NoticeEntry("warning", end_notice("cancelled")))

    async def _model_call_end(self, event: ev.ModelCallEnd) -> None:
        self._post(msg.UsageReported())

    async def _attempt_withdrawn(self, event: ev.AttemptWithdrawn) -> None:
        """A middleware retried a model call that failed part way: the text the failed
        attempt streamed is not in the message, so it leaves the screen (its calls end
        with the ``ToolExecutionEnd`` that follows)."""
        for block_id in event.block_ids:
            entry = self.blocks.pop(block_id, None) or self._ending.pop(block_id, None)
            if entry is not None:
                entry.live = False
                await self.conversation.drop(entry)

    # -- text and thinking ------------------------------------------------------------
    async def _add(self, entry: Entry) -> None:
        """Into the conversation, after the spans still waiting for their frame (the
        calls after it start a new run: see :mod:`.grouping`)."""
        self._run = None
        await self._mount_spans()
        await self.conversation.add(entry)

    async def _start_block(self, block_id: str, entry: Entry) -> None:
        if self._ended_on_screen:
            return  # a block that started as Esc ended the reply: nothing of it is drawn
        entry.live = True
        self.blocks[block_id] = entry
        await self._add(entry)

    async def _text_start(self, event: ev.TextBlockStart) -> None:
        await self._start_block(event.block_id, AssistantEntry())

    async def _text_delta(self, event: ev.TextBlockDelta) -> None:
        entry = self.blocks.get(event.block_id)
        if entry is not None and isinstance(entry.widget, AssistantMessage):
            entry.widget.append(event.delta)
        elif isinstance(entry, AssistantEntry):  # out of the window (see AssistantEntry.can_leave)
            entry.text += event.delta

    async def _text_end(self, event: ev.TextBlockEnd) -> None:
        entry = self.blocks.pop(event.block_id, None)
        if entry is not None:
            await self._end_block(event.block_id, entry, event.text)

    async def _thinking_start(self, event: ev.ThinkingBlockStart) -> None:
        await self._start_block(event.block_id, ThinkingEntry())

    async def _thinking_delta(self, event: ev.ThinkingBlockDelta) -> None:
        entry = self.blocks.get(event.block_id)
        if entry is not None and isinstance(entry.widget, ThinkingBlock):
            entry.widget.append(event.delta)
        elif isinstance(entry, ThinkingEntry):  # out of the window
            entry.text += event.delta

    async def _thinking_end(self, event: ev.ThinkingBlockEnd) -> None:
        entry = self.blocks.pop(event.block_id, None)
        if entry is not None:
            await self._end_block(event.block_id, entry, event.text)

    async def _end_block(self, block_id: str, entry: Entry, text: str | None = None) -> None:
        entry.live = False
        widget = entry.widget
        if isinstance(widget, AssistantMessage):
            self._ending[block_id] = entry
            if widget.backlog and not self.reply.cancelled and self._phase != "showing":
                # the model is done with this text; the screen is still drawing what it
                # sent ("waiting for the model" here blamed the model for the TUI's work)
                self._phase = "showing"
                self._post(msg.PhaseChanged("showing"))
            try:
                await widget.finish(text, cancelled=self.reply.cancelled)
            finally:
                self._ending.pop(block_id, None)
        elif isinstance(widget, ThinkingBlock):
            if not widget.finish(text or "", cancelled=self.reply.cancelled):
                # nothing thought, or nothing drawn before Esc
                await self.conversation.drop(entry)
                return
        elif isinstance(widget, AudioBlock):
            widget.finish()
        elif isinstance(entry, (AssistantEntry, ThinkingEntry)) and text:
            entry.text = text  # out of the window: built from this when scrolled back to
        elif isinstance(entry, ThinkingEntry) and not entry.text.strip():
            await self.conversation.drop(entry)
            return
        entry.capture()

    # -- tool calls: the reducer has the facts, the span shows them ----------------------
    async def _call(self, call: CallView | None) -> None:
        if call is None:
            return
        entry = self.spans.get(call.call_id)
        if entry is None:
            if self._ended_on_screen:
                return  # a call in flight when Esc ended the reply: not drawn under its end
            entry = self.spans[call.call_id] = SpanEntry(call)
            entry.live = True
            run = self._run
            if run is None or run.name != call.name:
                run = self._run = Run(call.name)
            run.add(entry)
            self._runs[call.call_id] = run
            self._new_spans.append(entry)
            burst = len(self.spans) > BURST_CALLS
            every = BURST_FRAME_S if burst else ARGS_FRAME_S
            quiet = time.monotonic() - self._spans_mounted_at >= every
            if len(self._new_spans) >= (BURST_SPANS if burst else SPANS_PER_FRAME) or (
                quiet and len(self._new_spans) == 1
            ):
                await self._mount_spans()  # the first of a burst at once, the rest a frame later
            elif not self._spans_scheduled:
                self._spans_scheduled = True
                self.conversation.set_timer(every, self._mount_spans)
        entry.live = call.live
        self._args_due.discard(call.call_id)
        self._redraw(entry)
        if not call.live:
            self._fold_soon(self._runs[call.call_id])

    def _fold_soon(self, run: Run) -> None:
        if run not in self._fold_due:
            self._fold_due.append(run)
        if not self._fold_scheduled:
            self._fold_scheduled = True
            self.conversation.set_timer(FOLD_EVERY_S, self._fold)

    async def _fold(self) -> None:
        """The calls that went well since the last time, into their run's group row
        (its counts redrawn), in one pass over the conversation per run."""
        self._fold_scheduled = False
        await self._mount_spans()  # (a call that ended before its span was mounted)
        async with self._fold_lock:
            due, self._fold_due = self._fold_due, []
            for run in due:
                spans = run.foldable()
                if spans:
                    group = None if run.group is not None else GroupEntry(run.name, run.calls)
                    at = run.first_shown()
                    for span in spans:
                        span.folded = True
                    if group is not None:
                        run.group = group
                    await self.conversation.fold(spans, group, at)
                if run.group is not None and isinstance(run.group.widget, CallGroup):
                    run.group.widget.update_calls()

    async def _mount_spans(self) -> None:
        """The spans that started since the last frame, mounted in one go: a turn of
        1,000 calls was 1,000 mounts and as many layout passes."""
        self._spans_scheduled = False
        async with self._spans_lock:
            new, self._new_spans = self._new_spans, []
            if new:
                self._spans_mounted_at = time.monotonic()
                await self.conversation.add_batch(list(new))

    async def _call_delta(self, call: CallView | None) -> None:
        """The first piece at once, the rest once per frame."""
        entry = self.spans.get(call.call_id) if call is not None else None
        if entry is None:
            return
        if not entry.args_shown:
            entry.args_shown = True
            self._redraw(entry)
            return
        self._args_due.add(entry.state.call_id)
        if not self._args_scheduled:
            self._args_scheduled = True
            self.conversation.set_timer(ARGS_FRAME_S, self._draw_args)

    def _draw_args(self) -> None:
        """Once per frame: each span whose arguments grew, redrawn once."""
        self._args_scheduled = False
        due, self._args_due = self._args_due, set()
        for call_id in due:
            entry = self.spans.get(call_id)
            if entry is not None:
                self._redraw(entry)

    @staticmethod
    def _redraw(entry: SpanEntry) -> None:
        if isinstance(entry.widget, ToolSpan):
            entry.widget.update_state()

    # -- data blocks ------------------------------------------------------------------
    async def _data_start(self, event: ev.DataBlockStart) -> None:
        await self._start_block(event.block_id, AudioEntry(event.block_id, event.media_type))

    async def _data_delta(self, event: ev.DataBlockDelta) -> None:
        entry = self.blocks.get(event.block_id)
        if entry is not None and isinstance(entry.widget, AudioBlock):
            entry.widget.append(event.data)
        elif isinstance(entry, AudioEntry):  # not mounted: the entry keeps the bytes
            entry.data += event.data

    async def _data_end(self, event: ev.DataBlockEnd) -> None:
        entry = self.blocks.pop(event.block_id, None)
        if isinstance(entry, AudioEntry):
            await self._end_block(event.block_id, entry)
            self._post(msg.AudioFinished(Clip(entry.key, entry.media_type, entry.data)))

    # -- notices, errors, custom ------------------------------------------------------
    async def _notice(self, event: ev.Notice) -> None:
        await self._add(NoticeEntry(event.level, event.text))

    async def _error(self, event: ev.ErrorEvent) -> None:
        culprit = event.source if event.source in self.middleware else None
        await self._add(NoticeEntry("error", event.error, culprit))
        if culprit:
            self._post(msg.MiddlewareFailed(culprit, event.error))

    async def _custom(self, event: ev.CustomEvent) -> None:
        if event.name == "todos":
            self._post(msg.TodosChanged(event.data))
        elif event.name == "trace":  # the view redraws on its own clock, never here
            self._post(msg.TraceChanged())

    async def _reply_end(self, event: ev.ReplyEnd) -> None:
        await self.finish_all()
        said = end_notice(event.stop_reason)
        if said and not (self._ended_on_screen and event.stop_reason == "cancelled"):  # said at Esc
            await self._add(NoticeEntry("warning", said))

    async def _redraw_in_slices(self, entries: list[SpanEntry]) -> None:
        """Redraw ``entries`` (the newest, those in view, first) a slice at a time,
        letting the loop run between: restyling a span costs several milliseconds, and
        a cancelled turn of 10,000 calls kept the screen "cancelling" for 4-12 s."""
        clock = time.perf_counter
        turn = clock() + RESTYLE_SLICE_S
        for entry in entries:
            self._redraw(entry)
            if clock() >= turn:
                await asyncio.sleep(0)
                turn = clock() + RESTYLE_SLICE_S

    async def finish_all(self) -> None:
        """End whatever is still live (a cancelled or failed reply leaves some)."""
        await self._mount_spans()
        for block_id in list(self.blocks):
            await self._end_block(block_id, self.blocks.pop(block_id))
        ended = [e for e in (self.spans.get(c.call_id) for c in self.reply.finish()) if e is not None]
        for entry in ended:
            entry.live = False
        if len(ended) <= SPANS_PER_FRAME:
            for entry in ended:
                self._redraw(entry)
        else:  # Esc with thousands of calls queued: the reply ends now, the spans follow
            self._restyling = asyncio.ensure_future(self._redraw_in_slices(ended[::-1]))
        for run in self._runs.values():  # the last calls that went well, folded now
            if run not in self._fold_due:
                self._fold_due.append(run)
        await self._fold()
        if self._phase != "idle":
            self._phase = "idle"
            self._post(msg.PhaseChanged("idle"))
