"""How long an MCP tool call may go unanswered, and what the user hears meanwhile.

A server that never answers (a tool stuck in a loop, or one the SDK on the other side
could not encode, as with a lone surrogate in its result) held the call, the reply and
a ``-p`` run for the SDK's own 600 s, saying nothing. Here a call has a deadline
(``[mcp_servers.NAME] timeout`` in seconds, :data:`CALL_TIMEOUT` by default) that each
progress notification from the server moves on (a server that reports is working),
and every :data:`WAIT_NOTE_EVERY` seconds the call reports that it is still waiting
(the TUI's span shows it; ``-p`` prints it on stderr), naming the server and the tool.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import anyio

CALL_TIMEOUT = 300.0
WAIT_NOTE_EVERY = 30.0


class Deadline:
    """The call's deadline; :meth:`extend` on each sign of life from the server."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.scope = anyio.move_on_after(seconds)

    def extend(self) -> None:
        self.scope.deadline = anyio.current_time() + self.seconds

    @property
    def expired(self) -> bool:
        return self.scope.cancelled_caught


async def within(
    deadline: Deadline, call: Callable[[], Awaitable[Any]], waiting: Callable[[float], None]
) -> Any:
    """``call()``'s answer, or None when ``deadline`` passed first (see
    :attr:`Deadline.expired`); ``waiting(seconds)`` every :data:`WAIT_NOTE_EVERY` s (a
    third of a shorter deadline)."""
    answer: list[Any] = []
    failure: list[BaseException] = []
    async with anyio.create_task_group() as tg:

        async def notes() -> None:
            start, every = anyio.current_time(), min(WAIT_NOTE_EVERY, deadline.seconds / 3)
            while True:
                await anyio.sleep(every)
                waiting(anyio.current_time() - start)

        tg.start_soon(notes)
        with deadline.scope:
            try:
                answer.append(await call())
            except Exception as exc:  # raised after the task group, as it came
                failure.append(exc)
        tg.cancel_scope.cancel()
    if failure:
        raise failure[0]
    return answer[0] if answer else None


def expired_text(server: str, label: str, seconds: float) -> str:
    return (f"The MCP server {server!r} did not answer the call to {label} within {seconds:g} s (and sent no "
            "progress meanwhile), so the call was given up; the server may still be working on it. If its "
            f"tools need longer, the user can raise `timeout` under [mcp_servers.{server}] in the config.")


def waiting_reports(
    report: Callable[[Any], None], server: str, label: str, deadline: Deadline
) -> Callable[[float], None]:
    """What a waiting call reports, through the tool's progress (``waiting`` marks it for
    front ends that print only this, as ``-p`` does on stderr)."""

    def note(seconds: float) -> None:
        message = (f"waiting for the MCP server {server!r} ({label}) for {seconds:.0f} s; it is given up "
                   f"after {deadline.seconds:g} s without an answer or progress; Esc or Ctrl+C cancels")
        report({"message": message, "waiting": round(seconds)})

    return note
