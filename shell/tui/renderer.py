"""Turns the events of a reply into widgets: the one place that knows both.

One :class:`ReplyRenderer` per reply. Events are dispatched by type through a
table (a reply can carry tens of thousands of text deltas, so no isinstance
chains); widgets are mounted in order as their blocks start. Deltas are drawn
once per frame however fast they come (text and thinking by their widgets, tool
arguments here), and :meth:`ReplyRenderer.cancel` (Esc) stops all drawing at
once: what was received but not drawn is dropped, later deltas are ignored, so
the reply ends on screen within a frame however large the backlog.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from shell.core import events as ev

from .entries import AssistantEntry, AudioEntry, Entry, NoticeEntry, SpanEntry, ThinkingEntry
from .playback import Clip
from .spanstate import SpanState
from .widgets.assistant_message import AssistantMessage
from .widgets.audio_block import AudioBlock
from .widgets.thinking import ThinkingBlock
from .widgets.tool_span import ToolSpan

if TYPE_CHECKING:
    from .app import AgentShellApp

Handler = Callable[[Any], Awaitable[None]]
_DELTAS = frozenset({ev.TextBlockDelta, ev.ThinkingBlockDelta, ev.ToolCallDelta, ev.DataBlockDelta})
ARGS_FRAME_S = 1 / 30
"""Streaming tool arguments are redrawn at most this often."""


class ReplyRenderer:
    """Renders one reply into the app's conversation, status line and panel."""

    def __init__(self, app: AgentShellApp) -> None:
        self.app = app
        self.conversation = app.conversation
        self.blocks: dict[str, Entry] = {}
        self.spans: dict[str, SpanEntry] = {}
        self.stop_reason = ""
        self.cancelled = False
        self._args: dict[str, list[str]] = {}  # tool-call argument deltas not drawn yet
        self._args_scheduled = False
        self._table: dict[type, Handler] = {
            ev.ReplyStart: self._reply_start,
            ev.ModelCallStart: self._model_call_start,
            ev.ModelCallEnd: self._model_call_end,
            ev.TextBlockStart: self._text_start,
            ev.TextBlockDelta: self._text_delta,
            ev.TextBlockEnd: self._text_end,
            ev.ThinkingBlockStart: self._thinking_start,
            ev.ThinkingBlockDelta: self._thinking_delta,
            ev.ThinkingBlockEnd: self._thinking_end,
            ev.ToolCallStart: self._call_start,
            ev.ToolCallDelta: self._call_delta,
            ev.ToolCallEnd: self._call_end,
            ev.ApprovalRequested: self._approval_requested,
            ev.ApprovalResolved: self._approval_resolved,
            ev.ToolExecutionStart: self._exec_start,
            ev.ToolExecutionUpdate: self._exec_update,
            ev.ToolExecutionEnd: self._exec_end,
            ev.DataBlockStart: self._data_start,
            ev.DataBlockDelta: self._data_delta,
            ev.DataBlockEnd: self._data_end,
            ev.Notice: self._notice,
            ev.ErrorEvent: self._error,
            ev.CustomEvent: self._custom,
            ev.ReplyEnd: self._reply_end,
        }

    async def handle(self, event: Any) -> None:
        handler = self._table.get(type(event))
        if handler is not None:
            if self.cancelled and type(event) in _DELTAS:
                return  # cancelled: nothing more is drawn of what was in flight
            await handler(event)

    def cancel(self) -> None:
        """Esc: stop drawing now. Backlogs are dropped (each text block says how much)."""
        self.cancelled = True
        self._args.clear()
        for entry in self.blocks.values():
            if isinstance(entry.widget, (AssistantMessage, ThinkingBlock)):
                entry.widget.drop_backlog()

    def _state(self, state: str) -> None:
        self.app.status.state = state

    # -- reply and model calls ------------------------------------------------------
    async def _reply_start(self, event: ev.ReplyStart) -> None:
        self._state("thinking")

    async def _model_call_start(self, event: ev.ModelCallStart) -> None:
        self._state("thinking")

    async def _model_call_end(self, event: ev.ModelCallEnd) -> None:
        self.app.add_usage(event.usage.input_tokens, event.usage.output_tokens, event.usage.unknown)

    # -- text and thinking ------------------------------------------------------------
    async def _text_start(self, event: ev.TextBlockStart) -> None:
        entry = AssistantEntry()
        entry.live = True
        self.blocks[event.block_id] = entry
        await self.conversation.add(entry)
        self._state("streaming")

    async def _text_delta(self, event: ev.TextBlockDelta) -> None:
        entry = self.blocks.get(event.block_id)
        if entry is not None and isinstance(entry.widget, AssistantMessage):
            entry.widget.append(event.delta)

    async def _text_end(self, event: ev.TextBlockEnd) -> None:
        entry = self.blocks.pop(event.block_id, None)
        if entry is None:
            return
        entry.live = False
        if isinstance(entry.widget, AssistantMessage):
            await entry.widget.finish(event.text, cancelled=self.cancelled)
        entry.capture()

    async def _thinking_start(self, event: ev.ThinkingBlockStart) -> None:
        entry = ThinkingEntry()
        entry.live = True
        self.blocks[event.block_id] = entry
        await self.conversation.add(entry)
        self._state("thinking")

    async def _thinking_delta(self, event: ev.ThinkingBlockDelta) -> None:
        entry = self.blocks.get(event.block_id)
        if entry is not None and isinstance(entry.widget, ThinkingBlock):
            entry.widget.append(event.delta)

    async def _thinking_end(self, event: ev.ThinkingBlockEnd) -> None:
        entry = self.blocks.pop(event.block_id, None)
        if entry is not None and isinstance(entry.widget, ThinkingBlock):
            entry.live = False
            entry.widget.finish(event.text)
            entry.capture()

    # -- tool calls -------------------------------------------------------------------
    def _span(self, call_id: str) -> SpanEntry | None:
        return self.spans.get(call_id)

    @staticmethod
    def _redraw(entry: SpanEntry) -> None:
        if isinstance(entry.widget, ToolSpan):
            entry.widget.update_state()

    async def _call_start(self, event: ev.ToolCallStart) -> None:
        entry = SpanEntry(SpanState(event.call_id, event.name))
        entry.live = True
        self.spans[event.call_id] = entry
        await self.conversation.add(entry)
        self._state("streaming")

    async def _call_delta(self, event: ev.ToolCallDelta) -> None:
        entry = self._span(event.call_id)
        if entry is not None:
            if not entry.state.args_text:  # the first piece at once, the rest once per frame
                entry.state.args_text = event.delta
                self._redraw(entry)
                return
            self._args.setdefault(event.call_id, []).append(event.delta)
            if not self._args_scheduled:
                self._args_scheduled = True
                self.app.set_timer(ARGS_FRAME_S, self._draw_args)

    def _draw_args(self) -> None:
        """Once per frame: the argument deltas that came, each span redrawn once."""
        self._args_scheduled = False
        pending, self._args = self._args, {}
        for call_id, parts in pending.items():
            entry = self._span(call_id)
            if entry is not None and entry.state.args is None:
                entry.state.args_text += "".join(parts)
                self._redraw(entry)

    async def _call_end(self, event: ev.ToolCallEnd) -> None:
        self._args.pop(event.call_id, None)
        entry = self._span(event.call_id)
        if entry is None:
            entry = SpanEntry(SpanState(event.call_id, event.name))
            self.spans[event.call_id] = entry
            await self.conversation.add(entry)
        entry.state.args = dict(event.args)
        entry.state.status = "pending"
        if event.args_error:
            entry.state.args = None
            entry.state.result = event.args_error
        self._redraw(entry)

    async def _approval_requested(self, event: ev.ApprovalRequested) -> None:
        entry = self._span(event.call_id)
        if entry is not None:
            entry.state.status = "approval"
            self._redraw(entry)
        self._state("approval")

    async def _approval_resolved(self, event: ev.ApprovalResolved) -> None:
        entry = self._span(event.call_id)
        if entry is not None:
            decision = event.decision
            entry.state.decision = decision.type + (" (always)" if decision.always else "")
            entry.state.status = "pending"
            self._redraw(entry)
        self._state("tool")

    async def _exec_start(self, event: ev.ToolExecutionStart) -> None:
        entry = self._span(event.call_id)
        if entry is not None:
            state = entry.state
            if state.args is not None and dict(event.args) != state.args:
                state.modified = True
            state.args = dict(event.args)
            state.status = "running"
            self._redraw(entry)
        self._state("tool")

    async def _exec_update(self, event: ev.ToolExecutionUpdate) -> None:
        entry = self._span(event.call_id)
        if entry is not None:
            entry.state.progress = str(event.progress).replace("\n", " ")[:40]
            self._redraw(entry)

    async def _exec_end(self, event: ev.ToolExecutionEnd) -> None:
        entry = self._span(event.call_id)
        if entry is None:
            return
        state, result = entry.state, event.result
        state.result = result.text
        state.is_error = result.is_error
        details = result.details if isinstance(result.details, dict) else {}
        diff = details.get("diff")
        state.diff = diff if isinstance(diff, str) else ""
        state.duration_s = event.duration_s
        state.progress = ""
        if details.get("cancelled"):
            state.status = "cancelled"
        else:
            state.status = "blocked" if event.blocked else ("error" if result.is_error else "done")
        entry.live = False
        self._redraw(entry)
        self._state("thinking")

    # -- data blocks ------------------------------------------------------------------
    async def _data_start(self, event: ev.DataBlockStart) -> None:
        entry = AudioEntry(event.block_id, event.media_type)
        entry.live = True
        self.blocks[event.block_id] = entry
        await self.conversation.add(entry)

    async def _data_delta(self, event: ev.DataBlockDelta) -> None:
        entry = self.blocks.get(event.block_id)
        if entry is not None and isinstance(entry.widget, AudioBlock):
            entry.widget.append(event.data)
        elif isinstance(entry, AudioEntry):  # not mounted: the entry keeps the bytes
            entry.data += event.data

    async def _data_end(self, event: ev.DataBlockEnd) -> None:
        entry = self.blocks.pop(event.block_id, None)
        if entry is not None and isinstance(entry, AudioEntry):
            entry.live = False
            if isinstance(entry.widget, AudioBlock):
                entry.widget.finish()
            entry.capture()
            self.app.audio_finished(Clip(entry.key, entry.media_type, entry.data))

    # -- notices, errors, custom ------------------------------------------------------
    async def _notice(self, event: ev.Notice) -> None:
        await self.conversation.add(NoticeEntry(event.level, event.text))

    async def _error(self, event: ev.ErrorEvent) -> None:
        culprit = event.source if event.source in self.app.agent.middleware else None
        await self.conversation.add(NoticeEntry("error", event.error, culprit))
        if culprit:
            self.app.panel.mark_failed(culprit, event.error)

    async def _custom(self, event: ev.CustomEvent) -> None:
        if event.name == "todos":
            self.app.todos.set_todos(event.data)
        elif event.name == "trace":  # the view redraws on its own clock, never here
            self.app.trace_view.changed()

    async def _reply_end(self, event: ev.ReplyEnd) -> None:
        self.stop_reason = event.stop_reason
        await self.finish_all()
        if event.stop_reason == "cancelled":
            await self.conversation.add(NoticeEntry("warning", "Reply cancelled."))
        elif event.stop_reason == "max_rounds":
            await self.conversation.add(NoticeEntry("warning", "Stopped: too many rounds."))

    async def finish_all(self) -> None:
        """End whatever is still live (a cancelled or failed reply leaves some)."""
        self.cancelled = self.cancelled or self.stop_reason == "cancelled"
        for block_id in list(self.blocks):
            entry = self.blocks.pop(block_id)
            entry.live = False
            if isinstance(entry.widget, AssistantMessage):
                await entry.widget.finish(cancelled=self.cancelled)
            elif isinstance(entry.widget, (ThinkingBlock, AudioBlock)):
                entry.widget.finish()
            entry.capture()
        for entry in self.spans.values():
            if entry.state.status in ("streaming", "pending", "approval", "running"):
                entry.state.status = "cancelled"
                entry.live = False
                self._redraw(entry)
        self._state("idle")
