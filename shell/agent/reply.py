"""How one reply runs: pulled through the ``on_reply`` onion, in the caller's task.

Nothing here runs ahead of the caller. :meth:`Reply.events` pulls the outermost
``on_reply`` layer, which pulls the next, down to the loop (``Agent._core``): the
loop advances only when an event is asked for, so a layer that stops asking stops
the reply there. Events a hook emits (``ctx.emit``, approvals, tool progress) wait
in :attr:`Reply.queue` until the loop passes them on, in order.

One task group per reply holds what must run beside the caller: a turn's tool
calls (so their progress streams while they run) and the reading of the model's
stream (so a cancel stops it at once). ``cancel()`` stops both; the loop then ends
the reply with ``ReplyEnd(cancelled)`` through every ``on_reply`` layer. A layer
still busy after the grace period (``Agent.cancel_grace``) is cancelled where it
waits; the reply ends all the same. The history is repaired (every tool call gets
a result) before the ``ReplyEnd``.
"""

from __future__ import annotations

import uuid
from collections import deque
from collections.abc import AsyncGenerator, AsyncIterator, Callable, Mapping, Sequence
from contextlib import aclosing
from time import perf_counter
from typing import TYPE_CHECKING, Any

import anyio
import anyio.lowlevel
from anyio.abc import TaskGroup

from middleware.context import ReplyRun
from middleware.streaming_onion import StreamOnion
from middleware.types import ReplyCancelled, ReplyRequest, TurnAction
from shell.core.assembly import MessageBuilder
from shell.core.events import (
    Event,
    Notice,
    ReplyEnd,
    ReplyStart,
    StopReason,
    ToolExecutionEnd,
    with_reply_id,
)
from shell.core.messages import (
    AssistantMessage,
    Message,
    ToolCallBlock,
    ToolResult,
    ToolResultMessage,
    Usage,
    UserMessage,
    tool_result_message,
)
from shell.core.model import ModelChunk, model_label, notice_sink
from shell.core.tools import Tool

from .overflow import take_back
from .reporting import ask, report, tell

if TYPE_CHECKING:
    from .batch import ToolBatch
    from .loop import Agent


Shown = Callable[[], Mapping[str, int]]
"""How many characters of each text block (by block id) a front end has shown."""

READ_SLICE_S = 0.004
"""The model's stream is read this long at a time before the event loop gets a
turn: chunks that arrive together (a large network read, a scripted or local
model) were read all in one go, ~15 ms for a turn of 1,000 tool calls."""


class Reply:
    """The loop's private state of one reply (hooks see ``run``, a ReplyRun)."""

    def __init__(self, agent: Agent, input: tuple[Message, ...]) -> None:
        self.agent = agent
        self.input = input
        self.run = ReplyRun(agent, f"reply_{uuid.uuid4().hex[:12]}", self.emit, self._ask)
        self.queue: deque[Event] = deque()
        self.task_group: TaskGroup | None = None
        self.onion: StreamOnion | None = None
        self.answer: MessageBuilder | None = None
        """What the outermost layer streamed before the loop started: the answer of a
        layer that answers alone (kept in the history with the input)."""
        self.cancelled = False
        self.shown: Shown | None = None
        """What the front end had shown of each block when it cancelled (``Agent.cancel``)."""
        self.committed: tuple[AssistantMessage, MessageBuilder] | None = None
        """This round's message once in the history, with the builder that knows its
        blocks by id (:meth:`keep_shown`)."""
        self.pulling = False
        self.done = False
        self.core_ended = False
        """The loop has given its last event: what is emitted after it (an ``on_reply``
        layer's notice) is passed on here, not by the loop."""
        self.input_kept = False
        """The loop put the input in the history (a layer failing before that keeps it
        itself: the user's words are never lost to a middleware's failure)."""
        self.builder: MessageBuilder | None = None
        self.tool_map: dict[str, Tool] = {}
        self.offered: set[str] = set()
        """The tools the current model call was offered (a call to any other is refused)."""
        self.batch: ToolBatch | None = None
        self.pending: tuple[AssistantMessage, dict[str, ToolResultMessage]] | None = None
        self.started: dict[str, float] = {}  # call id -> when the tool started running
        self.last_message: AssistantMessage | None = None
        self.usage = Usage()
        self.stop: StopReason | None = None
        self.turn = TurnAction(decision="natural")
        """What ``after_model_response`` decided for the current turn."""
        self.settled = False
        self.withdrawn: tuple[Message, ...] = ()
        """The input, taken back: the reply was cancelled before any answer (:meth:`withdraw_unanswered`)."""
        self.hard = False
        """The grace period ran out: stop pulling the layers."""
        self.reading: set[anyio.CancelScope] = set()
        self.model_failures = 0
        """How many model streams of this reply raised or were left part way: a model
        call entered again after one was is a retry (:class:`.reasoning.Attempts`)."""
        self._arrived: anyio.Event | None = None
        self._idle: anyio.Event | None = None
        self._wanting = False

    # -- events from hooks, tools and approvals -----------------------------------------
    def emit(self, event: Event) -> None:
        self.queue.append(with_reply_id(event, self.run.reply_id))
        if self._arrived is not None:
            self._arrived.set()

    def drain(self) -> list[Event]:
        events = list(self.queue)
        self.queue.clear()
        return events

    async def wait(self) -> None:
        """The loop has passed every event on and wants more: let the tool batch go
        on (:meth:`idle`), and wait for an event or the batch's end.

        Events emitted while the loop was handing the last ones out (the caller held
        one and the event loop ran the tools meanwhile) are taken first: waiting with
        them queued hung the reply for good when the batch, before its next step,
        waited in :meth:`idle` for exactly those events to be taken."""
        if self.queue:
            return
        self._wanting = True
        if self._idle is not None:
            self._idle.set()
        arrived = self._arrived = anyio.Event()
        try:
            await arrived.wait()
        finally:
            self._arrived = None
            self._wanting = False

    async def idle(self) -> None:
        """For the tool batch: wait until the caller has taken what was produced."""
        if self._wanting and not self.queue:
            return
        idle = self._idle = anyio.Event()
        try:
            await idle.wait()
        finally:
            self._idle = None

    def wake(self) -> None:
        if self._arrived is not None:
            self._arrived.set()

    async def _ask(self, request: Any) -> Any:
        return await ask(self, request)

    # -- the frame ------------------------------------------------------------------------
    async def events(self) -> AsyncGenerator[Event, None]:
        """Pull the reply through the ``on_reply`` onion; always ends with one ``ReplyEnd``."""
        agent, run = self.agent, self.run
        token = notice_sink.set(lambda text, level: self.emit(Notice(level, text, model_label(agent.model))))
        end: Event | None = None
        closed = False
        try:
            async with anyio.create_task_group() as tg:
                self.task_group = tg
                onion = self.onion = agent.middleware.stream(
                    "on_reply", run, ReplyRequest(self.input), self._core, "agent", finish=self._ended_early
                )
                try:
                    step = onion.items.__anext__
                    # the outermost layer's own stream comes as it is: its ends are checked
                    # here (ReplyStart first, ReplyEnd last), not by a guard on the way
                    checking = onion.checked_at >= 0
                    last: Any = None
                    started = False  # a ReplyStart was passed on
                    ended = False
                    while not (self.hard or ended):
                        self.pulling = True
                        try:
                            event = await step()
                        except StopAsyncIteration:
                            if not checking or type(last) is ReplyEnd:
                                break
                            checking = False  # it ended without a ReplyEnd: the reply ends there
                            ended = True
                            event = await onion.ended_early()
                        finally:
                            self.pulling = False
                        if checking:
                            if last is None and type(event) is not ReplyStart:
                                for queued in self.drain():
                                    yield queued
                                yield with_reply_id(onion.start_event(), run.reply_id)
                                started = True
                            last = event
                        onion.check_event(event)
                        started = started or type(event) is ReplyStart
                        for queued in self._outside_the_loop(event):
                            yield queued
                        if type(event) is ReplyEnd:
                            end = with_reply_id(event, run.reply_id)  # last, after the layers finish
                        else:
                            yield with_reply_id(event, run.reply_id)
                except GeneratorExit:  # the caller stopped listening: end quietly
                    closed = True
                except Exception as exc:  # an on_reply layer failed (the loop reports its own)
                    onion.blame(exc)
                    # the input no answer came for (a policy refused it, a layer failed before
                    # the loop took it or before the model answered) leaves the history: the
                    # front ends give it back to the prompt, as for a message that did not fit
                    # (finding E1: kept, it went out glued to the user's next message)
                    kept = self.input_kept
                    refused = take_back(run.history, self.input, exc) if kept else tuple(self.input)
                    for failure in await report(self, exc, "agent", refused):
                        yield failure
                    self.stop = "error"
                    end = None
                finally:
                    await self._close(onion)
                self.done = True
                tg.cancel_scope.cancel()
        finally:
            notice_sink.reset(token)
            self.done = True
            self.settle("cancelled" if self.cancelled else "stopped")
            run.clear_reply_state()  # "cleared at ReplyEnd": every layer has seen it
        if closed:
            return
        for queued in self.drain():
            yield queued
        yield end if end is not None and not self.hard else self.end_event()

    def _answered(self, event: Event) -> None:
        """An event before the loop started: a layer answering alone (kept if the reply
        ends there)."""
        if self.answer is None:
            self.answer = MessageBuilder()
        self.answer.see(event)

    async def _close(self, onion: StreamOnion) -> None:
        with anyio.CancelScope() as closing:
            if self.hard:  # the layers had their grace period
                closing.cancel()
            with anyio.move_on_after(self.agent.cancel_grace):
                await onion.aclose()  # the loop repairs the history as it closes

    def _outside_the_loop(self, event: Event) -> Sequence[Event]:
        """What was emitted beside the loop, to pass on before ``event``: before the loop
        starts (a layer that answers alone), and after its last event. While the loop
        runs, the queue is the loop's: it passes each event through the layers in the
        order it was emitted. Taken here too, a tool's end (emitted while its start was
        on the way out) came out before that start, past the layers."""
        if not self.run.core_started:
            if type(event) is not ReplyEnd:
                self._answered(event)
            return self.drain()
        return self.drain() if self.core_ended else ()

    def _core(self, request: ReplyRequest) -> AsyncIterator[Event]:
        """The innermost ``next`` of ``on_reply``: the loop itself."""
        if self.run.core_started:
            raise RuntimeError("on_reply may call next() once per reply")
        self.run.core_started = True
        return self.agent._core(self, request)

    async def _ended_early(self) -> Event:
        """An ``on_reply`` layer ended the reply (returned early, or answered without
        calling ``next``): the inner layers and the loop are closed; say how it ended."""
        if not self.run.core_started and self.answer is not None and not self.answer.empty:
            answer = self.answer.message()  # the layer answered alone: keep the exchange
            self.agent.messages.extend([*self.input, answer])
            self.last_message = answer
        self.settle("cancelled" if self.cancelled else "stopped")
        return self.end_event()

    # -- endings ------------------------------------------------------------------------
    def cancel(self, shown: Shown | None = None) -> None:
        """Stop the model's stream and the running tools now; the loop ends the reply
        with ``ReplyEnd(cancelled)`` through the layers. After the grace period a
        layer still busy is cancelled where it waits. ``shown``: see ``Agent.cancel``."""
        if self.done or self.cancelled:
            return
        self.shown = shown
        self.cancelled = self.run.cancelled = True
        for scope in self.reading:
            scope.cancel()
        if self.batch is not None:
            self.batch.scope.cancel()
        self.wake()
        if self.task_group is not None:
            self.task_group.start_soon(self._deadline)

    async def _deadline(self) -> None:
        await anyio.sleep(self.agent.cancel_grace)
        if not self.done:
            self.hard = True
            if self.pulling and self.task_group is not None:
                self.task_group.cancel_scope.cancel()

    def ended(self) -> bool:
        """The loop decided how the reply ends (``stop`` is set)."""
        return self.stop is not None

    def check(self) -> None:
        """Raise :class:`ReplyCancelled` once the reply was cancelled (the loop calls
        this where it resumes)."""
        if self.cancelled:
            raise ReplyCancelled()

    async def model_stream(self, stream: AsyncIterator[ModelChunk]) -> AsyncIterator[ModelChunk]:
        """The model's chunks, read beside the caller so that a cancel stops the read
        at once (a cancel scope around each chunk would cost more than the chunk)."""
        items: deque[ModelChunk] = deque()
        failed: list[Exception] = []
        finished = anyio.Event()
        arrived: list[anyio.Event | None] = [None]
        scope = anyio.CancelScope()
        whole = False

        async def read() -> None:
            try:
                with scope:
                    async with aclosing(stream) as chunks:  # type: ignore[type-var]
                        turn = perf_counter() + READ_SLICE_S
                        async for chunk in chunks:
                            items.append(chunk)
                            if arrived[0] is not None:
                                arrived[0].set()
                            if perf_counter() >= turn:  # a burst (one network read, a local
                                await anyio.lowlevel.checkpoint()  # model) read a slice at a time
                                turn = perf_counter() + READ_SLICE_S
            except Exception as exc:
                failed.append(exc)
            finally:
                finished.set()
                if arrived[0] is not None:
                    arrived[0].set()

        assert self.task_group is not None
        self.reading.add(scope)
        self.task_group.start_soon(read)
        try:
            while True:
                self.check()
                if items:
                    yield items.popleft()
                    continue
                if finished.is_set():
                    break
                event = arrived[0] = anyio.Event()
                await event.wait()
                arrived[0] = None
            self.check()
            if failed:
                # on_error hears of a model failure where it happens, also when a layer
                # outside (a fallback, a retry) recovers from it
                await tell(self, failed[0], "model")
                raise failed[0]
            whole = True
        finally:
            if not whole:  # it raised, or a layer stopped reading it part way
                self.model_failures += 1
            if not finished.is_set():  # (a finished reader's scope is closed: anyio 4.16's cancel()
                scope.cancel()  # formats the task's repr, ~17 us, twice a round for nothing)
            self.reading.discard(scope)

    def settle(self, stop: StopReason) -> None:
        """Make the history valid for the next request (once): every tool call gets a
        result; fixes the stop reason if the loop did not."""
        if self.settled:
            return
        self.settled = True
        if self.stop is None or (self.cancelled and self.stop == "end_turn"):
            self.stop = "cancelled" if self.cancelled else stop
        if self.stop == "cancelled":
            self.keep_shown()
            self.skip_calls("the reply was cancelled", cancelled=True)
            self.withdraw_unanswered()
        else:
            self.skip_calls("the reply ended early")

    def withdraw_unanswered(self) -> None:
        """Cancelled before any answer: the user's input leaves the history (and the
        ``ReplyEnd`` carries it as ``withdrawn``, back to the prompt to edit).

        Why not keep it: Esc is how a user takes a request back ("delete the logs" —
        no, wait). Kept, it was sent again glued to their next message (user turns in
        a row are one turn, :mod:`shell.providers.turns`) with nothing saying it was
        withdrawn, and the model acted on it: a marker would still put the withdrawn
        words in every later request, and the user who wants them again has them at
        the prompt. Only while nothing of the reply joined the history after the
        input (a partial answer, a tool call, a thought kept: then the model did
        answer, and the cut message says it was interrupted, :mod:`shell.core.partial`)."""
        n = len(self.input)
        if not n or not all(isinstance(m, UserMessage) for m in self.input):
            return
        if not self.input_kept:  # cancelled before the loop took it: it never joined
            if self.answer is None or self.answer.empty:
                self.withdrawn = self.input
            return
        history = self.run.history
        if len(history) >= n and all(a is b for a, b in zip(history[-n:], self.input, strict=True)):
            del history[-n:]
            self.withdrawn = self.input

    def shown_now(self) -> Mapping[str, int] | None:
        """What the front end says it showed of each block (``Agent.cancel``'s
        ``shown``), asked now; None when it did not say, or miscounted (then all that
        was received is kept: nothing is lost)."""
        if self.shown is None:
            return None
        try:
            return self.shown()
        except Exception:
            return None

    def keep_shown(self) -> None:
        """Cancelled while the front end still drew this round's message, which had all
        arrived and is in the history whole (the TUI draws a reply sent in one piece
        frame by frame): the history keeps what was shown of it, as it does of a
        message cut mid-stream (:meth:`.MessageBuilder.shown_message`)."""
        if self.committed is None:
            return
        message, builder = self.committed
        self.committed = None
        shown = self.shown_now()
        cut = builder.shown_message(shown) if shown else None
        history = self.run.history
        at = next((i for i in range(len(history) - 1, -1, -1) if history[i] is message), None)
        if cut is None or at is None:
            return
        history[at] = cut
        if self.last_message is message:
            self.last_message = cut
        if self.pending is not None and self.pending[0] is message:
            self.pending = (cut, self.pending[1])

    def end_event(self) -> ReplyEnd:
        return ReplyEnd(self.last_message, self.stop or "end_turn", self.usage, self.withdrawn,
                        reply_id=self.run.reply_id)

    def keep_result(self, call: ToolCallBlock, result: ToolResult) -> None:
        """A call that ran keeps its result when the reply ends before its turn does (a
        middleware failed after it ran): :meth:`skip_calls` fills in only the others."""
        if self.pending is not None:
            self.pending[1][call.id] = tool_result_message(call.id, call.name, result)

    def skip_calls(self, why: str, *, cancelled: bool = False) -> None:
        """Tool calls that will not run (or were cut off) still get a result, so the
        history stays valid. A cancelled call is marked so (``details``), not blocked."""
        if self.pending is None:
            return
        assistant, done = self.pending
        from time import perf_counter

        now = perf_counter()
        for call in assistant.tool_calls:
            message = done.get(call.id)
            if message is None:
                details = {"cancelled": True} if cancelled else None
                result = ToolResult(f"The tool call did not complete: {why}.", True, details)
                message = ToolResultMessage(call.id, call.name, result.content, True)
                started = self.started.get(call.id)
                duration = now - started if started is not None else 0.0
                self.emit(ToolExecutionEnd(call.id, result, duration, blocked=not cancelled))
            self.run.history.append(message)
        self.pending = None
