"""The per-reply run and the ``ctx`` every hook receives.

One :class:`ReplyRun` exists per reply; it owns the reply's state. Each middleware
gets its own :class:`HookContext` on that run (so ``reply_state`` and
``session_state`` are that middleware's own dicts), created on first use.
"""

from __future__ import annotations

import itertools
from collections.abc import Awaitable, Callable, Iterator, Sequence
from time import perf_counter
from typing import TYPE_CHECKING, Any, Protocol, overload

from shell.core.approvals import ApprovalDecision
from shell.core.events import Event, with_reply_id
from shell.core.messages import AssistantMessage, Message, ToolCallBlock
from shell.core.model import ChatModel
from shell.core.tools import Tool

if TYPE_CHECKING:
    from .stack import MiddlewareStack
    from .stack_slots import Slot
    from .stats import MiddlewareStats


class Agent(Protocol):
    """What hooks may read of the agent that runs them (``ctx.agent``).

    A protocol, not the class: the loop (``shell.agent``) sits above this package,
    so naming it here would make the two packages import each other.
    """

    name: str
    model: ChatModel
    tools: list[Tool]
    messages: list[Message]
    system_prompt: str
    session_state: dict[str, dict[str, Any]]

    @property
    def middleware(self) -> MiddlewareStack: ...


class MessagesView(Sequence[Message]):
    """A read-only view of the history: no copy per access, no way to mutate it."""

    __slots__ = ("_items",)

    def __init__(self, items: list[Message]) -> None:
        self._items = items

    @overload
    def __getitem__(self, index: int) -> Message: ...
    @overload
    def __getitem__(self, index: slice) -> Sequence[Message]: ...
    def __getitem__(self, index: int | slice) -> Message | Sequence[Message]:
        if isinstance(index, slice):
            return tuple(self._items[index])
        return self._items[index]

    def __len__(self) -> int:
        return len(self._items)

    def __iter__(self) -> Iterator[Message]:
        return iter(tuple(self._items))

    def __repr__(self) -> str:
        return f"MessagesView({len(self._items)} messages)"


class ReplyRun:
    """The state of one reply, shared by the loop and every hook context."""

    def __init__(
        self,
        agent: Agent,
        reply_id: str,
        emit: Callable[[Event], None],
        ask: Callable[[Any], Awaitable[Any]],
    ) -> None:
        self.agent = agent
        self.reply_id = reply_id
        self.round = 0
        self.history: list[Message] = agent.messages
        self.messages = MessagesView(self.history)
        self.tools: list[Tool] = []
        """The tools the current model call offers (``transform_context`` may replace)."""
        self.run_values: dict[str, Any] = {}
        """One dict shared by every middleware for this reply (Eino's run-local values)."""
        self.block_ids: Iterator[int] = itertools.count(1)
        """Block ids unique in the reply (the loop's and a middleware's own answers)."""
        self.cancelled = False
        self.core_started = False
        """Whether the innermost ``on_reply`` ``next`` ran (the loop started)."""
        self._emit = emit
        self._ask = ask
        self.contexts: dict[Slot, HookContext] = {}
        """Each middleware's context, made on first use (:meth:`context`)."""

    def emit(self, event: Event) -> None:
        self._emit(with_reply_id(event, self.reply_id))

    async def ask(self, request: Any) -> Any:
        return await self._ask(request)

    def clear_reply_state(self) -> None:
        """The reply is over (every layer saw its ``ReplyEnd``): each middleware's
        ``reply_state`` is emptied, so a dict a hook kept holds nothing of it."""
        for ctx in self.contexts.values():
            ctx.reply_state.clear()

    def context(self, slot: Slot) -> HookContext:
        ctx = self.contexts.get(slot)
        if ctx is None:
            ctx = self.contexts[slot] = HookContext(self, slot.name, slot.stats)
        return ctx


class HookContext:
    """What every hook gets as ``ctx``: the agent, the reply, this middleware's state,
    ``emit`` (an event into the reply stream, in order) and ``ask`` (the UI answers;
    with no UI the configured policy does)."""

    __slots__ = ("_run", "_stats", "name", "reply_state")

    def __init__(self, run: ReplyRun, name: str, stats: MiddlewareStats | None = None) -> None:
        self._run = run
        self._stats = stats
        self.name = name
        self.reply_state: dict[str, Any] = {}
        """This middleware's dict for the current reply; gone when the reply ends."""

    @property
    def agent(self) -> Agent:
        return self._run.agent

    @property
    def reply_id(self) -> str:
        return self._run.reply_id

    @property
    def round(self) -> int:
        return self._run.round

    @property
    def messages(self) -> Sequence[Message]:
        return self._run.messages

    @property
    def run_values(self) -> dict[str, Any]:
        """One dict shared by all middleware for this reply (Eino's Set/GetRunLocalValue);
        ``reply_state`` is this middleware's own."""
        return self._run.run_values

    @property
    def session_state(self) -> dict[str, Any]:
        """This middleware's dict, saved with the session (JSON values only)."""
        return self._run.agent.session_state.setdefault(self.name, {})

    @property
    def tools(self) -> list[Tool]:
        """The tools this model call offers; ``transform_context`` may assign a new list."""
        return self._run.tools

    @tools.setter
    def tools(self, tools: Sequence[Tool]) -> None:
        self._run.tools = list(tools)

    @property
    def cancelled(self) -> bool:
        """True once the user cancelled this reply: long-running hooks should stop."""
        return self._run.cancelled

    def emit(self, event: Event) -> None:
        self._run.emit(event)

    async def ask(self, request: Any) -> Any:
        started = perf_counter()
        try:
            return await self._run.ask(request)
        finally:
            if self._stats is not None:  # waiting for the user is not this middleware's time
                self._stats.waiting_s += perf_counter() - started


class CallState:
    """One tool call as the tool hooks see it; ``args`` changes as gates edit it."""

    __slots__ = (
        "args", "assistant_message", "call", "contexts", "edited", "edited_by", "error", "failed_after",
        "run", "tool", "users_args",
    )

    def __init__(
        self,
        run: ReplyRun,
        call: ToolCallBlock,
        tool: Tool,
        args: dict[str, Any],
        assistant_message: AssistantMessage,
    ) -> None:
        self.run = run
        self.call = call
        self.tool = tool
        self.args = args
        self.assistant_message = assistant_message
        self.edited = False
        self.edited_by = ""
        """Who last changed ``args`` (a middleware's name, ``you`` for the user's edit
        in an approval); "" while they are the model's."""
        self.users_args: dict[str, Any] | None = None
        """The arguments the user gave in an approval's "edit" (:meth:`ToolCallContext.ask`):
        an edit to exactly these is the user's, any other a middleware's."""
        self.error: BaseException | None = None
        self.failed_after: Exception | None = None
        """The first error an ``after_tool_call`` layer raised (its change dropped):
        the reply ends with it, the call keeps its result."""
        self.contexts: dict[Slot, ToolCallContext] = {}
        """Each middleware's context for this call, made on first use (:meth:`context`)."""

    def context(self, slot: Slot) -> ToolCallContext:
        ctx = self.contexts.get(slot)
        if ctx is None:
            ctx = self.contexts[slot] = ToolCallContext(self.run.context(slot), self)
        return ctx


class ToolCallContext(HookContext):
    """The context of the tool hooks: also ``call``, ``tool``, ``args`` (as edited
    by the gates so far) and the ``assistant_message`` that made the call."""

    __slots__ = ("_call",)

    def __init__(self, base: HookContext, call: CallState) -> None:
        super().__init__(base._run, base.name, base._stats)
        self.reply_state = base.reply_state
        self._call = call

    @property
    def call(self) -> ToolCallBlock:
        return self._call.call

    @property
    def tool(self) -> Tool:
        return self._call.tool

    @property
    def args(self) -> dict[str, Any]:
        return self._call.args

    @property
    def assistant_message(self) -> AssistantMessage:
        return self._call.assistant_message

    @property
    def edited_by(self) -> str:
        """Who changed ``args`` from the model's so far: a middleware's name, ``you``
        (the user's edit in an approval), or "" (they are the model's)."""
        return self._call.edited_by

    async def ask(self, request: Any) -> Any:
        """As :meth:`HookContext.ask`; an "edit" answer's arguments are kept, so the
        edit that returns them is shown as the user's, not the asking middleware's."""
        answer = await super().ask(request)
        if isinstance(answer, ApprovalDecision) and answer.type == "edit" and answer.args is not None:
            self._call.users_args = dict(answer.args)
        return answer

    @property
    def error(self) -> BaseException | None:
        """In ``after_tool_call``: the exception the tool raised, if it raised (HPD's
        AfterFunction ``Exception``); the result is then the error result made of it."""
        return self._call.error
