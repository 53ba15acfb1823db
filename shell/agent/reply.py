"""The loop's private state of one reply: the event stream between the core task and
the caller, the cancel scopes, and what a cancel must repair. Hooks never see this;
they see its ``run`` (a :class:`middleware.context.ReplyRun`)."""

from __future__ import annotations

import itertools
import math
import uuid
from collections import deque
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING, Any

import anyio
from anyio.abc import TaskGroup
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream

from middleware.context import ReplyRun
from middleware.types import ReplyRequest
from shell.core.events import Event, StopReason, with_reply_id
from shell.core.messages import AssistantMessage, Message, ToolResultMessage, Usage
from shell.core.tools import Tool

from .assembly import MessageBuilder

if TYPE_CHECKING:
    from .loop import Agent


class Reply:
    """The loop's private state of one reply (hooks see ``run``, a ReplyRun)."""

    def __init__(self, agent: Agent, input: tuple[Message, ...]) -> None:
        self.agent = agent
        self.input = input
        self.run = ReplyRun(agent, f"reply_{uuid.uuid4().hex[:12]}", self.emit, self._ask)
        self.block_ids = itertools.count(1)
        self.send: MemoryObjectSendStream[Event]
        self.receive: MemoryObjectReceiveStream[Event]
        self.send, self.receive = anyio.create_memory_object_stream[Event](math.inf)
        self.local: deque[Event] = deque()
        self.task_group: TaskGroup | None = None
        self.core_scope: anyio.CancelScope | None = None
        self.outer_scope: anyio.CancelScope | None = None
        self.core_started = False
        self.core_done = anyio.Event()
        self.finished = anyio.Event()
        self.cancelled = False
        self.builder: MessageBuilder | None = None
        self.tool_map: dict[str, Tool] = {}
        self.pending: tuple[AssistantMessage, dict[str, tuple[ToolResultMessage, bool]]] | None = None
        self.started: dict[str, float] = {}  # call id -> when the tool started running
        self.fatal: Exception | None = None
        self.last_message: AssistantMessage | None = None
        self.usage = Usage()
        self.stop: StopReason | None = None

    async def _ask(self, request: Any) -> Any:
        return await self.agent._ask(self, request)

    def emit(self, event: Event) -> None:
        event = with_reply_id(event, self.run.reply_id)
        if self.core_started and not self.core_done.is_set():
            try:
                self.send.send_nowait(event)
            except (anyio.BrokenResourceError, anyio.ClosedResourceError):
                pass  # the caller stopped listening
        else:
            self.local.append(event)

    def start_core(self, request: ReplyRequest) -> AsyncIterator[Event]:
        """The innermost ``next`` of ``on_reply``: starts the core, streams its events."""
        if self.core_started:
            raise RuntimeError("on_reply may call next() once per reply")
        assert self.task_group is not None
        self.core_started = True
        self.task_group.start_soon(self.agent._core, self, request)
        return self._drain()

    async def _drain(self) -> AsyncIterator[Event]:
        receive = self.receive
        with receive:
            while True:
                try:
                    event = receive.receive_nowait()
                except anyio.WouldBlock:
                    try:
                        event = await receive.receive()
                    except anyio.EndOfStream:
                        return
                except anyio.EndOfStream:
                    return
                yield event

    def close(self) -> None:
        self.core_done.set()
        self.send.close()

    def cancel(self, *, deadline: bool) -> None:
        if self.finished.is_set() and deadline:
            return
        self.cancelled = self.run.cancelled = True
        if self.core_scope is not None:
            self.core_scope.cancel()
        if not self.core_started:
            self.core_done.set()
        if deadline and self.task_group is not None:
            self.task_group.start_soon(self._deadline)

    async def _deadline(self) -> None:
        with anyio.move_on_after(self.agent.cancel_grace):
            await self.finished.wait()
            return
        if self.outer_scope is not None:
            self.outer_scope.cancel()

    def final_stop(self) -> StopReason:
        if self.stop is not None and not (self.cancelled and self.stop == "end_turn"):
            return self.stop
        return "cancelled" if self.cancelled else "end_turn"
