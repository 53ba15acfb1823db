"""How one turn's tool calls run: in the model's order where order matters.

Calls that change things (``tool.read_only`` False) run one after another in the
order the model gave; a contiguous run of read-only calls runs in parallel. A
mutating call waits for every call before it and holds back every call after it,
so ``write a.txt``, ``write b.txt``, ``read a.txt b.txt`` reads both files written.
Between two steps the batch waits until the caller has taken the events of the
step before (the reply stays pulled: a layer that stops at a result stops the
next call from starting).

The batch runs in the reply's task group, beside the caller, so tool progress and
approval requests stream while tools run; ``before_tool_batch`` (HPD's
BeforeParallelBatch) sees every call before any runs.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable, Sequence

import anyio
import anyio.lowlevel

from middleware.stack import BatchVerdict
from middleware.types import CallOutcome
from shell.core.messages import AssistantMessage, ToolCallBlock, ToolResultMessage, tool_result_message

from .reply import Reply

SPAWN_SLICE_S = 0.002
"""A run of read-only calls starts this long's worth of calls, then lets the event
loop turn: every call started in one go takes its first step in the loop's next
turn, so 1,000 calls started at once were one ~40 ms turn (a frame and the keys
waited behind it)."""

RunCall = Callable[
    [Reply, AssistantMessage, ToolCallBlock, BatchVerdict | None], Awaitable[CallOutcome]
]


def steps(
    calls: Sequence[ToolCallBlock], read_only: Callable[[ToolCallBlock], bool], parallel: bool
) -> list[list[ToolCallBlock]]:
    """The calls in the order they may run: each step is one mutating call, or a run
    of read-only calls that may overlap (when ``parallel``)."""
    out: list[list[ToolCallBlock]] = []
    open_run = False  # the last step is a run of read-only calls that may grow
    for call in calls:
        looks = parallel and read_only(call)
        if looks and open_run:
            out[-1].append(call)
        else:
            out.append([call])
        open_run = looks  # linear: 5,000 calls in a turn once took 12.5 M checks here
    return out


clock = time.perf_counter


class ToolBatch:
    """The tool calls of one turn, run beside the caller."""

    def __init__(self, reply: Reply, assistant: AssistantMessage, run_call: RunCall) -> None:
        self.reply = reply
        self.assistant = assistant
        self.run_call = run_call
        self.outcomes: dict[str, CallOutcome] = {}
        self.messages: dict[str, ToolResultMessage] = {}
        self.scope = anyio.CancelScope()
        self.finished = anyio.Event()
        self.fatal: Exception | None = None

    def start(self) -> None:
        reply = self.reply
        reply.batch = self
        reply.pending = (self.assistant, self.messages)
        assert reply.task_group is not None
        reply.task_group.start_soon(self._run)

    async def _run(self) -> None:
        reply, agent = self.reply, self.reply.agent
        calls = self.assistant.tool_calls
        try:
            with self.scope:
                early = await agent.middleware.before_tool_batch(reply.run, calls)
                parallel = agent.tool_execution == "parallel"
                for i, step in enumerate(steps(calls, self._read_only, parallel)):
                    if i:
                        await reply.idle()  # the caller has taken the last step's events
                    if len(step) == 1:
                        await self._one(step[0], early.get(step[0].id), None)
                    else:
                        async with anyio.create_task_group() as group:
                            turn = clock() + SPAWN_SLICE_S
                            for call in step:
                                group.start_soon(self._one, call, early.get(call.id), group)
                                if clock() >= turn:  # a slice at a time (see SPAWN_SLICE_S)
                                    await anyio.lowlevel.checkpoint()
                                    turn = clock() + SPAWN_SLICE_S
                    if self.fatal is not None:
                        break
        except Exception as exc:  # before_tool_batch failed
            self.fatal = self.fatal or exc
        finally:
            self.finished.set()
            reply.wake()

    def _read_only(self, call: ToolCallBlock) -> bool:
        tool = self.reply.tool_map.get(call.name)
        return tool is None or tool.read_only  # an unknown tool only gets an error result

    async def _one(
        self, call: ToolCallBlock, early: BatchVerdict | None, group: anyio.abc.TaskGroup | None
    ) -> None:
        try:
            outcome = await self.run_call(self.reply, self.assistant, call, early)
        except Exception as exc:  # a middleware failed: the reply ends with it
            self.fatal = self.fatal or exc
            if group is not None:
                group.cancel_scope.cancel()
            return
        self.outcomes[call.id] = outcome
        self.messages[call.id] = tool_result_message(call.id, call.name, outcome.result)

    async def stop(self) -> None:
        """Cancel what still runs and wait for it to end (the calls get results)."""
        if not self.finished.is_set():
            self.scope.cancel()
            await self.finished.wait()
