"""The agent: what one reply does. Turns of reasoning and acting, wrapped in middleware.

Read ``Agent._core`` first: it is the whole loop on one screen, a turn being the model
call (:mod:`.reasoning`), its tool calls (:mod:`.acting`, each one by
:mod:`.tool_call`) and their results, then the next turn. The path to the model:
``Agent.reply`` -> ``Reply.events`` (the ``on_reply`` onion, :mod:`.reply`) ->
``_core`` -> ``reason`` (the ``on_reasoning`` onion) -> ``reasoning_core`` (the
``on_model_call`` onion) -> ``call_model``. All of it is pulled by the caller, in the
caller's task; only a turn's tool calls run beside it (:mod:`.batch`). Failures are
worded in one place (:mod:`.reporting`).
"""

from __future__ import annotations

from collections import deque
from collections.abc import AsyncGenerator, AsyncIterator, Awaitable, Callable, Sequence
from contextlib import aclosing
from typing import Any, Literal

from middleware.base import Middleware
from middleware.stack import MiddlewareStack
from middleware.types import ReplyCancelled, ReplyRequest
from shell.core.events import Event, Notice, ReplyStart, Steered
from shell.core.messages import (
    AssistantMessage,
    Message,
    SystemMessage,
    ToolResultMessage,
    Usage,
    UserMessage,
    to_message,
)
from shell.core.model import ChatModel, ModelRequest
from shell.core.tools import Tool

from .acting import act
from .compression import compress_context
from .overflow import take_back
from .reasoning import reason
from .reply import Reply, Shown
from .reporting import report

Ask = Callable[[Any], Awaitable[Any]]


class Agent:
    """A model, tools and middleware; ``reply(input)`` is an async iterator of events.

    ``messages`` is the history, ``middleware`` the :class:`MiddlewareStack`,
    ``session_state`` each middleware's saved state, ``cancel()`` ends the reply in
    flight. One reply at a time.
    """

    def __init__(
        self,
        model: ChatModel,
        *,
        tools: Sequence[Tool] = (),
        middleware: Sequence[Middleware] | MiddlewareStack = (),
        system_prompt: str = "",
        max_rounds: int = 50,
        tool_execution: Literal["parallel", "sequential"] = "parallel",
        ask: Ask | None = None,
        name: str = "agent",
        cancel_grace: float = 0.4,
        tool_timeout: float | None = 600.0,
    ) -> None:
        if tool_execution not in ("parallel", "sequential"):
            raise ValueError("tool_execution must be 'parallel' or 'sequential'")
        self.model = model
        self.tools = list(tools)
        self.middleware = (
            middleware if isinstance(middleware, MiddlewareStack) else MiddlewareStack(middleware)
        )
        self.system_prompt = system_prompt
        self.max_rounds = max_rounds
        self.tool_execution = tool_execution
        self.ask = ask
        self.name = name
        self.cancel_grace = cancel_grace
        self.missing_tool: Callable[[str], str | None] | None = None
        """Why a tool the agent no longer has is gone (its MCP server exited), for the
        model to read instead of "Unknown tool" and a list of every tool: the shell
        sets it; None, or None returned, when nothing is known."""
        """How long closing the middleware may take after a cancel."""
        self.tool_timeout = tool_timeout
        self.messages: list[Message] = []
        self.session_state: dict[str, dict[str, Any]] = {}
        self.usage = Usage()
        self.last_request: ModelRequest | None = None
        """The request the model last received, after every ``on_model_call`` layer
        (``/context`` sets the usage the provider reported against it)."""
        self.steering: deque[UserMessage] = deque()
        """Messages given with :meth:`steer`, waiting for the next tool boundary."""
        self._reply: Reply | None = None

    @property
    def busy(self) -> bool:
        return self._reply is not None

    def cancel(self, shown: Shown | None = None) -> None:
        """End the reply in flight: running tools and the model call stop at once;
        the history stays valid (a "cancelled" result for every unfinished call).

        The message being streamed keeps the text handed out before this call, never
        what comes after, at most ``CANCELLED_KEEP`` characters (:mod:`shell.core.partial`).
        ``shown``, from a front end that draws slower than it receives (the TUI under
        a flood), says how many characters of each text block (by block id) it had
        drawn; it is called when the partial message is made (after the front end's
        next pull), and the history keeps only that: what the user saw is what the
        model reads next turn and what a resumed session shows."""
        if self._reply is not None:
            self._reply.cancel(shown)

    def live_message(self) -> AssistantMessage | None:
        """The model's message of the reply in flight as far as it has streamed (None
        when none is): it joins :attr:`messages` only once its stream has ended, while
        front ends show its text as it comes (``/copy`` copies what is on screen)."""
        builder = self._reply.builder if self._reply is not None else None
        if builder is None or builder.empty:
            return None
        return builder.message(partial_reason="streaming")  # unfinished text kept, as it is

    def steer(self, message: str | UserMessage) -> bool:
        """Give the reply in flight a message without stopping it: it joins the
        history at the next tool boundary (once the turn's tools are done, before
        the next model call; a reply about to end goes on for it), announced by a
        ``Steered`` event where it landed. False when no reply runs (send it as a
        message instead). What a reply could not take (it was cancelled, stopped,
        or ended first) stays for :meth:`take_steering`."""
        if self._reply is None or self._reply.done or self._reply.cancelled:
            return False
        self.steering.append(message if isinstance(message, UserMessage) else UserMessage(message))
        return True

    def take_steering(self) -> list[UserMessage]:
        """The steering messages no reply took (front ends send them as messages)."""
        taken = list(self.steering)
        self.steering.clear()
        return taken

    async def reply(self, input: str | Message | Sequence[Message]) -> AsyncGenerator[Event, None]:
        if self._reply is not None:
            raise RuntimeError("Agent.reply: a reply is already running (one reply at a time)")
        reply = self._reply = Reply(self, _as_messages(input))
        try:
            async with aclosing(reply.events()) as events:
                async for event in events:
                    yield event
        finally:
            self.usage = self.usage + reply.usage
            self._reply = None

    # -- the loop -----------------------------------------------------------------------
    async def _core(self, reply: Reply, request: ReplyRequest) -> AsyncIterator[Event]:
        """What a reply does (the innermost ``on_reply``): turns of model call, tool calls
        and their results, until the model answers without tools, a hook stops it, or
        max_rounds. Each step says how the reply ends by setting ``reply.stop``."""
        run = reply.run
        run.history.extend(request.input)
        reply.input_kept = True
        yield ReplyStart(request.input, reply_id=run.reply_id)
        try:
            while not reply.ended():
                reply.check()
                if run.round >= self.max_rounds:
                    said = f"Stopped after {self.max_rounds} rounds (max_rounds)."
                    reply.emit(Notice("warning", said, "agent"))
                    reply.stop = "max_rounds"
                    break
                await compress_context(reply)  # on_compress_context may replace the history
                async with aclosing(reason(reply)) as reasoning:  # the model call: its message, the turn
                    async for event in reasoning:
                        yield event
                if reply.ended():
                    break
                async with aclosing(act(reply)) as acting:  # its tool calls, their results
                    async for event in acting:
                        yield event
                for event in [*reply.drain(), *self._steer(reply)]:  # a tool boundary
                    yield event
                run.round += 1
        except ReplyCancelled:
            reply.stop = "cancelled"
        except Exception as exc:
            withdrawn = take_back(run.history, request.input, exc)  # unanswered: not kept
            for event in await report(reply, exc, "model", withdrawn):
                yield event
            reply.stop = "error"
        reply.settle("end_turn")  # every tool call has a result
        for event in reply.drain():
            yield event
        reply.core_ended = True
        yield reply.end_event()

    def _steer(self, reply: Reply) -> list[Event]:
        """A tool boundary: the user's steering messages join the history before the
        next model call. A reply that was about to end goes on so the model hears
        them; one stopped on purpose (a hook, a limit) or cancelled does not."""
        if not self.steering or reply.cancelled or reply.stop not in (None, "end_turn"):
            return []
        if reply.run.round + 1 >= self.max_rounds:
            return []  # no model call is left to hear them
        messages = self.take_steering()
        reply.run.history.extend(messages)
        reply.stop = None
        return [Steered(m, reply_id=reply.run.reply_id) for m in messages]


def _as_messages(input: str | Message | Sequence[Message]) -> tuple[Message, ...]:
    if isinstance(input, (str, SystemMessage, UserMessage, AssistantMessage, ToolResultMessage)):
        return (to_message(input),)
    return tuple(to_message(m) for m in input)
