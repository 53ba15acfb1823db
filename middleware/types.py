"""What hooks receive and return: requests (for the onions), results (for the
gates and chains) and the per-reply run that contexts read from.

Requests are frozen with ``.override(**changes)``, the HPD/LangChain way: an onion
passes ``next(request.override(...))`` instead of mutating what the outer layers hold.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, TypeAlias

from shell.core.messages import AssistantMessage, Message, ToolCallBlock, ToolResult
from shell.core.model import ToolChoice
from shell.core.tools import Tool

Decision: TypeAlias = Literal["natural", "stop", "loop_to_model"]


class _Override:
    __slots__ = ()

    def override(self, **changes: Any) -> Any:
        return dataclasses.replace(self, **changes)  # type: ignore[type-var]


@dataclass(frozen=True, slots=True)
class ReplyRequest(_Override):
    """``on_reply``: the new input of this reply (appended to the history)."""

    input: tuple[Message, ...] = ()


@dataclass(frozen=True, slots=True)
class CompressRequest(_Override):
    """``on_compress_context``: the history; the onion's result replaces it."""

    messages: tuple[Message, ...] = ()


@dataclass(frozen=True, slots=True)
class ReasoningRequest(_Override):
    """``on_reasoning``: one round's knobs (AgentScope's ``tool_choice``)."""

    tool_choice: ToolChoice = None
    options: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class ToolRequest(_Override):
    """``on_acting``: one tool execution."""

    call: ToolCallBlock
    tool: Tool
    args: dict[str, Any]


@dataclass(frozen=True, slots=True)
class BeforeToolCallResult:
    """``block`` ends the call with an error result carrying ``reason``; ``result``
    answers it without executing (a ``ToolResult``, or plain text: HPD's
    ``OverrideResult``); ``args`` replaces the arguments (re-validated)."""

    block: bool = False
    reason: str | None = None
    args: dict[str, Any] | None = None
    result: ToolResult | str | None = None

    def tool_result(self) -> ToolResult | None:
        """``result`` as a ToolResult (plain text becomes its content)."""
        if self.result is None or isinstance(self.result, ToolResult):
            return self.result
        return ToolResult(str(self.result))


@dataclass(frozen=True, slots=True)
class AfterToolCallResult:
    """Each non-None field overrides that field of the tool result.
    ``terminate=True`` ends the reply with this result as the answer (Eino's
    ReturnDirectly)."""

    content: Any = None
    is_error: bool | None = None
    details: Any = None
    terminate: bool | None = None


@dataclass(frozen=True, slots=True)
class TurnAction:
    """``after_model_response``'s answer: replace the message, inject messages
    (after any tool results of the turn), and decide what happens next."""

    response: AssistantMessage | None = None
    inject_messages: tuple[Message, ...] = ()
    decision: Decision | None = None


@dataclass(frozen=True, slots=True)
class CallOutcome:
    """One call of a turn as ``after_turn`` sees it (HPD's AfterIteration
    ``ToolResults``): its result, the exception the tool raised (if any), and
    whether a gate blocked it."""

    call: ToolCallBlock
    result: ToolResult
    error: BaseException | None = None
    blocked: bool = False


BLOCKED_REASON = "Tool execution was blocked"


class StopReply(Exception):
    """Raise from a hook to end the reply on purpose (a policy said no).

    The reply ends as an error, reported with this message alone: unlike any other
    exception from a middleware, it is not a failure to offer switching off.
    """


class ReplyCancelled(BaseException):
    """The user cancelled the reply (Esc, ``agent.cancel()``).

    Raised where the loop was waiting (the model's stream, a turn's tools) and
    passed out through the ``on_model_call`` and ``on_reasoning`` layers; the loop
    then ends the reply with ``ReplyEnd(stop_reason="cancelled")``, which every
    ``on_reply`` layer sees. A ``BaseException``, like a cancellation, so that
    ``except Exception`` (a fallback, a retry) lets it through: do the same.
    """
