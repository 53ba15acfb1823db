"""What a reply says when something fails, and how it asks: the ``ErrorEvent`` text
(whose fault it was, what to do), ``on_error`` told once per exception, and the
``ask`` that wraps approvals in their events.

One place for this so that the loop, the frame (:mod:`shell.agent.reply`) and the
tool calls report a failure the same way, and a failure passed up through several
of them reaches ``on_error`` only once.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from middleware.stack import HOOK_ATTR, error_source
from middleware.types import StopReply
from shell.core.approvals import ApprovalDecision, ApprovalRequest, unattended_rejection
from shell.core.events import ApprovalRequested, ApprovalResolved, ErrorEvent, Event
from shell.core.messages import Message
from shell.core.model import ModelError

from .overflow import withdrawn_advice

if TYPE_CHECKING:
    from .reply import Reply

REPORTED = "__agent_shell_reported__"
"""Set on an exception once ``on_error`` has heard of it."""


async def tell(reply: Reply, exc: Exception, source: str) -> None:
    """``on_error``, once per exception (a model error a fallback layer recovered from
    was told where it happened, and is not told again when it leaves the reply)."""
    if not getattr(exc, REPORTED, False):
        try:
            setattr(exc, REPORTED, True)
        except AttributeError:
            pass
        await reply.agent.middleware.on_error(reply.run, exc, source)


async def report(
    reply: Reply, exc: Exception, default: str, withdrawn: tuple[Message, ...] = ()
) -> list[Event]:
    """The ``ErrorEvent`` for a failure that ends the reply: a middleware's names it and
    says how to carry on without it, a model's gives the provider's message (and says
    so when the reply's input was taken back out of the history: ``withdrawn``)."""
    stack = reply.agent.middleware
    source = error_source(exc, default)
    if isinstance(exc, StopReply):
        text = str(exc)  # a deliberate stop (a policy said no), not a failure
    elif source in stack:
        hook = getattr(exc, HOOK_ATTR, "a hook")
        advice = (
            "It decides which calls may run, so nothing ran past it; try again, and report it if "
            "it goes on." if getattr(stack.get(source), "gate", False)
            else f"Switch it off (/middleware {source} off) to carry on without it."
        )
        said = str(exc).rstrip(".")
        text = f"Middleware {source} failed in {hook}: {type(exc).__name__}: {said}. {advice}"
    elif isinstance(exc, ModelError):
        text = exc.message
    else:
        text = f"{type(exc).__name__}: {exc}"
    if withdrawn:  # said whatever ended it: the user's next message goes out alone
        text = text.rstrip()
        text = f"{text}{'' if text.endswith(('.', '!', '?')) else '.'} {withdrawn_advice(exc)}"
    await tell(reply, exc, source)
    return [ErrorEvent(text, source, exc, withdrawn, reply_id=reply.run.reply_id)]


async def ask(reply: Reply, request: Any) -> Any:
    """``ctx.ask``: the agent's ``ask`` answers; an approval is announced before and after
    (with no one to ask, it is rejected with a message saying so)."""
    agent = reply.agent
    if not isinstance(request, ApprovalRequest):
        return await agent.ask(request) if agent.ask else None
    reply.emit(ApprovalRequested(request.call.id, request))
    try:
        decision = await agent.ask(request) if agent.ask else unattended_rejection(request)
    except BaseException:
        # the question ends unanswered (a cancel, or the asker failed): it is still
        # resolved, so every ApprovalRequested has its ApprovalResolved (a dialog, a
        # trace span or a watcher waiting for it is closed)
        reply.emit(ApprovalResolved(request.call.id, ApprovalDecision.reject(_unanswered(reply))))
        raise
    reply.emit(ApprovalResolved(request.call.id, decision))
    return decision


def _unanswered(reply: Reply) -> str:
    if reply.cancelled:
        return "The question was closed unanswered: the reply was cancelled."
    return "The question was closed unanswered: asking failed."
