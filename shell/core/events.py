"""The events of a reply: one closed union of frozen dataclasses.

Every event carries ``reply_id`` (keyword-only, so a middleware can build an event
positionally and leave it out; the agent fills it in).
"""

from __future__ import annotations

import base64
import dataclasses
from dataclasses import dataclass, field
from typing import Any, Literal, TypeAlias

from shell.core.textsafety import MAX_DEPTH, json_text, map_strings

from .approvals import ApprovalDecision, ApprovalRequest
from .messages import AssistantMessage, Message, ToolResult, Usage, UserMessage

StopReason: TypeAlias = Literal["end_turn", "max_rounds", "stopped", "cancelled", "error"]


@dataclass(frozen=True, slots=True)
class _Event:
    reply_id: str = field(default="", kw_only=True)


@dataclass(frozen=True, slots=True)
class ReplyStart(_Event):
    input: tuple[Message, ...] = ()


@dataclass(frozen=True, slots=True)
class ReplyEnd(_Event):
    message: AssistantMessage | None
    stop_reason: StopReason
    usage: Usage = field(default_factory=Usage)
    withdrawn: tuple[Message, ...] = ()
    """The reply's input, taken back out of the history because the reply was
    cancelled before any answer (Esc, Ctrl+C, an editor's Stop): the user took the
    request back, so it is not sent again with their next message; a front end gives
    its text back to the prompt to edit."""


@dataclass(frozen=True, slots=True)
class ModelCallStart(_Event):
    model: str


@dataclass(frozen=True, slots=True)
class ModelCallEnd(_Event):
    usage: Usage = field(default_factory=Usage)
    stop_reason: str = "end_turn"


@dataclass(frozen=True, slots=True)
class AttemptWithdrawn(_Event):
    """A failed attempt of this model call was withdrawn: an ``on_model_call`` layer
    called ``next`` again after the model's stream raised (or was left unfinished),
    so what the failed attempt streamed is not part of the message. Its blocks and
    calls (by id) are dropped from the message being assembled, none of its calls
    runs, and a front end takes them off the screen (or says they were withdrawn,
    where text already printed cannot be taken back)."""

    block_ids: tuple[str, ...] = ()
    call_ids: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class TextBlockStart(_Event):
    block_id: str


@dataclass(frozen=True, slots=True)
class TextBlockDelta(_Event):
    block_id: str
    delta: str


@dataclass(frozen=True, slots=True)
class TextBlockEnd(_Event):
    block_id: str
    text: str = ""


@dataclass(frozen=True, slots=True)
class ThinkingBlockStart(_Event):
    block_id: str


@dataclass(frozen=True, slots=True)
class ThinkingBlockDelta(_Event):
    block_id: str
    delta: str


@dataclass(frozen=True, slots=True)
class ThinkingBlockEnd(_Event):
    block_id: str
    text: str = ""
    signature: str | None = None
    redacted: bool = False
    """Encrypted thinking (no text; the data in ``signature``): nothing to show."""


@dataclass(frozen=True, slots=True)
class ToolCallStart(_Event):
    call_id: str
    name: str


@dataclass(frozen=True, slots=True)
class ToolCallDelta(_Event):
    call_id: str
    delta: str


@dataclass(frozen=True, slots=True)
class ToolCallEnd(_Event):
    call_id: str
    name: str
    args: dict[str, Any] = field(default_factory=dict)
    args_error: str | None = None
    """Set when the streamed arguments were not a JSON object; the call then fails."""


@dataclass(frozen=True, slots=True)
class PermissionChecking(_Event):
    """A call's permission check has run for a while (``checking``), or that slow check
    has ended (not ``checking``): the front ends say so on the call, which would
    otherwise sit silent while the policy reads files or runs git. A check that ends
    quickly announces nothing."""

    call_id: str
    checking: bool = True


@dataclass(frozen=True, slots=True)
class ApprovalRequested(_Event):
    call_id: str
    request: ApprovalRequest


@dataclass(frozen=True, slots=True)
class ApprovalResolved(_Event):
    call_id: str
    decision: ApprovalDecision


@dataclass(frozen=True, slots=True)
class ToolExecutionStart(_Event):
    call_id: str
    name: str
    args: dict[str, Any] = field(default_factory=dict)
    edited_by: str = ""
    """Who changed ``args`` from the model's: ``you`` (an edit in the approval), a
    middleware's name, or "" when they are the model's."""


@dataclass(frozen=True, slots=True)
class ToolArgsChanged(_Event):
    """A running call's arguments changed after its start (an ``on_acting`` layer's
    ``request.override(args=...)``) and the gates let the new ones run: what is shown
    and recorded as having run is these, not ``ToolExecutionStart``'s."""

    call_id: str
    name: str
    args: dict[str, Any] = field(default_factory=dict)
    edited_by: str = ""
    """Who changed them (a middleware's name; ``you`` when the user edited them when
    asked again)."""


@dataclass(frozen=True, slots=True)
class ToolExecutionUpdate(_Event):
    call_id: str
    progress: Any


@dataclass(frozen=True, slots=True)
class ToolExecutionEnd(_Event):
    call_id: str
    result: ToolResult
    duration_s: float = 0.0
    blocked: bool = False


@dataclass(frozen=True, slots=True)
class DataBlockStart(_Event):
    block_id: str
    media_type: str


@dataclass(frozen=True, slots=True)
class DataBlockDelta(_Event):
    block_id: str
    data: bytes


@dataclass(frozen=True, slots=True)
class DataBlockEnd(_Event):
    block_id: str


@dataclass(frozen=True, slots=True)
class Notice(_Event):
    level: Literal["info", "warning", "error"]
    text: str
    source: str = ""


@dataclass(frozen=True, slots=True)
class ErrorEvent(_Event):
    error: str
    source: str
    """``model``, ``tool``, ``agent`` or the name of the middleware that raised."""
    exception: BaseException | None = field(default=None, compare=False, repr=False)
    withdrawn: tuple[Message, ...] = ()
    """The reply's input, taken back out of the history because the provider said it
    does not fit the model's context (a message kept there would make every later
    request fail too), or kept out of it by an ``on_reply`` layer's ``StopReply`` (PII's
    block): a front end gives its text back to the user to edit and send again."""


@dataclass(frozen=True, slots=True)
class Steered(_Event):
    """A message the user sent while the reply ran (``Agent.steer``) joined the
    history here, at a tool boundary, before the next model call: front ends
    show it at this point of the reply."""

    message: UserMessage


@dataclass(frozen=True, slots=True)
class CustomEvent(_Event):
    name: str
    data: Any = None


Event: TypeAlias = (
    ReplyStart
    | ReplyEnd
    | ModelCallStart
    | ModelCallEnd
    | AttemptWithdrawn
    | TextBlockStart
    | TextBlockDelta
    | TextBlockEnd
    | ThinkingBlockStart
    | ThinkingBlockDelta
    | ThinkingBlockEnd
    | ToolCallStart
    | ToolCallDelta
    | ToolCallEnd
    | PermissionChecking
    | ApprovalRequested
    | ApprovalResolved
    | ToolExecutionStart
    | ToolArgsChanged
    | ToolExecutionUpdate
    | ToolExecutionEnd
    | DataBlockStart
    | DataBlockDelta
    | DataBlockEnd
    | Notice
    | ErrorEvent
    | Steered
    | CustomEvent
)

EVENT_TYPES: tuple[type[Event], ...] = Event.__args__


def is_event(value: object) -> bool:
    """Whether ``value`` is one of the events (what a streaming hook must yield)."""
    return isinstance(value, _Event)


def with_reply_id(event: Event, reply_id: str) -> Event:
    """Fill in ``reply_id`` on an event a middleware built without one."""
    if event.reply_id:
        return event
    return dataclasses.replace(event, reply_id=reply_id)


def to_jsonable(value: Any, _depth: int = 0) -> Any:
    """Events, messages and results as plain JSON values (bytes as base64).

    Dataclasses become dicts tagged with ``type``; this is what ``--output-format
    jsonl`` prints and what sessions store. Nesting deeper than
    ``shell.core.textsafety.MAX_DEPTH`` (hostile tool arguments) becomes its JSON text
    rather than a ``RecursionError``.
    """
    if _depth > MAX_DEPTH:
        return json_text(map_strings(value, str))
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        out: dict[str, Any] = {"type": type(value).__name__}
        for f in dataclasses.fields(value):
            if f.name == "exception":
                continue
            out[f.name] = to_jsonable(getattr(value, f.name), _depth + 1)
        return out
    if isinstance(value, bytes):
        return base64.b64encode(value).decode("ascii")
    if isinstance(value, (list, tuple)):
        return [to_jsonable(v, _depth + 1) for v in value]
    if isinstance(value, dict):
        return {str(k): to_jsonable(v, _depth + 1) for k, v in value.items()}
    if isinstance(value, (str, int, float, bool)) or value is None:
        return value
    name = getattr(value, "name", None)
    return name if isinstance(name, str) else repr(value)
