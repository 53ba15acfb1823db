"""What each hook must return: the one place that checks it.

A hook that returns the wrong kind of value is that middleware's mistake, so it is
reported as that middleware's failure (``ErrorEvent.source`` is its name, and the
shell offers to switch it off), with what to return instead. Unchecked, the value
failed later, inside the loop, and was blamed on the model or the agent; or, worse,
a gate that returned ``False`` or ``"deny"`` was read as "no objection" and the tool
ran. A gate's wrong answer now ends the reply before the call runs (it fails closed).

Each check is one ``isinstance`` on the value (not on every item of a history), so it
costs nothing next to the hook itself. Where the seeds accept a shorthand, so does
the check: plain text for a tool result (as ``BeforeToolCallResult.result`` takes
it), a whole ``ToolResult`` from ``after_tool_call``, ``None`` from
``on_compress_context`` (AgentScope's ``compress_context`` returns nothing).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from shell.core.messages import ToolResult
from shell.core.tools import Tool

from .types import AfterToolCallResult, BeforeToolCallResult, TurnAction


def _wrong(hook: str, value: Any, instead: str) -> TypeError:
    return TypeError(f"{hook} returned {type(value).__name__}; it must return {instead}")


def prompt(value: Any) -> str:
    if isinstance(value, str):
        return value
    raise _wrong("transform_system_prompt", value, "the prompt as a str")


def _messages(hook: str) -> Callable[[Any], Any]:
    def check(value: Any) -> Any:
        if isinstance(value, (list, tuple)):
            return value
        raise _wrong(hook, value, "a list of messages")

    return check


context_view = _messages("transform_context")
llm_messages = _messages("convert_to_llm")


def compressed(value: Any) -> Any:
    if value is None or isinstance(value, (list, tuple)):
        return value
    raise _wrong("on_compress_context", value, "a list of messages (or None to keep the history)")


def turn_action(value: Any) -> TurnAction | None:
    if value is None or isinstance(value, TurnAction):
        return value
    raise _wrong("after_model_response", value, "a TurnAction or None (TurnAction(response=...) replaces it)")


def gate(value: Any) -> BeforeToolCallResult | None:
    if isinstance(value, BeforeToolCallResult) and value.block and value.result is not None:
        # which one was meant? the result was dropped silently (finding V15)
        raise TypeError("before_tool_call returned BeforeToolCallResult with both block=True and a result; "
                        "return block=True with a reason to refuse the call, or result=... to answer it "
                        "without running; the call was not run")
    if value is None or isinstance(value, BeforeToolCallResult):
        return value
    raise _wrong(
        "before_tool_call",
        value,
        "a BeforeToolCallResult or None (BeforeToolCallResult(block=True, reason=...) refuses the call); "
        "the call was not run",
    )


def batch_answers(value: Any, ids: Sequence[str]) -> Mapping[str, Any] | Sequence[Any] | None:
    """Also the answer's shape against the turn's calls: a dict keyed by something that
    is not a call id of this turn (the tool's name is the natural slip) or a list of
    the wrong length was read as "no objection" for the calls it meant to block, and
    they ran (finding T1). Refused as that middleware's error: no call of the turn runs."""
    if value is None:
        return None
    if isinstance(value, Mapping):
        items: Any = value.values()
    elif isinstance(value, (list, tuple)):
        items = value
    else:
        items = None
    if items is None or not all(v is None or isinstance(v, BeforeToolCallResult) for v in items):
        raise _wrong(
            "before_tool_batch",
            value,
            "None, or a BeforeToolCallResult (or None) per call: a dict by call id or a list in call order; "
            "no call of the turn was run",
        )
    known = ", ".join(ids)
    if isinstance(value, Mapping):
        strangers = [repr(key) for key in value if key not in ids]
        if strangers:
            raise ValueError(
                f"before_tool_batch answered for {', '.join(strangers)}, which is not a call id of this turn "
                f"({known}); key the dict by ToolCallBlock.id. No call of the turn was run"
            )
    elif len(value) != len(ids):
        raise ValueError(
            f"before_tool_batch answered a list of {len(value)} for {len(ids)} call(s) ({known}); a list "
            "holds one answer (or None) per call, in call order. No call of the turn was run"
        )
    return value  # type: ignore[no-any-return]


def after_call(value: Any) -> AfterToolCallResult | ToolResult | None:
    if value is None or isinstance(value, (AfterToolCallResult, ToolResult)):
        return value
    raise _wrong("after_tool_call", value, "an AfterToolCallResult, a ToolResult or None")


def tool_result(value: Any) -> ToolResult:
    if isinstance(value, ToolResult):
        return value
    if isinstance(value, str):
        return ToolResult(value)
    raise _wrong("on_acting", value, "a ToolResult (return await next(request)) or plain text")


def tools(value: Any) -> Sequence[Tool]:
    if isinstance(value, (list, tuple)):
        odd = next((t for t in value if not isinstance(t, Tool)), None)
        if odd is None:
            return value
        value = odd  # name what is wrong in it
    raise _wrong("list_tools", value, "a list of tools (made with @tool, or Tool subclasses)")


AWAITED_RESULT: dict[str, Callable[[Any], Any]] = {
    "on_acting": tool_result,
    "on_compress_context": compressed,
}
"""The awaited onions' checks, applied to what the outermost layer returned."""
