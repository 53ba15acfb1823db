"""``ReplyBudgetControl``: a weighted token budget per reply (AgentScope's
ReplyBudgetControlMiddleware).

Long tool-heavy ReAct loops are where cost and latency run away. Each model call
costs ``input_token_weight * input_tokens + output_token_weight * output_tokens``;
once the reply's total reaches ``token_budget`` the next rounds:

1. show the model a ``HintBlock`` on the last assistant message of its view (a new
   assistant message if there is none) asking it to conclude now, and
2. run with ``tool_choice="none"`` so it cannot call tools any more.

Many OpenAI-compatible servers ignore ``tool_choice`` (aimock, some vLLM and TGI
templates), and a budget is a cost guard, so it does not rely on the server obeying
(finding V4): a call the model makes anyway in such a round is not run (its result
says the budget is used up and asks for the answer), and if the model calls tools
again in the round after that, the reply ends there (``stop_reason="stopped"``)
with an assistant message saying why. The calls are refused in
``before_tool_batch``, before any ``before_tool_call`` gate: nobody is asked to
approve a call that will be refused anyway.

Why these hooks: usage is read from the ``ModelCallEnd`` events that come out of
``on_reasoning`` (the same numbers the UI shows, and one per model call however
many retries happened inside); the tool choice is overridden in the same onion
(AgentScope's shape, ``next(request.override(tool_choice="none"))``). The hint goes
in through ``transform_context``, a view for this call only, so the history (and
the saved session) never carries it; ``convert_to_llm`` is single-owner and is left
to whoever renders messages.

A server that does not report usage (llama-cpp-python ignores ``include_usage``;
the call's ``Usage.unknown`` is set) cannot be counted exactly. Then the cost is
*estimated*, about four characters to a token, from the history sent (input) and
what the model streamed (output), and the middleware says so once per reply
instead of silently counting zero and never firing.

State lives in ``ctx.reply_state``: kept across an approval wait, gone when the
reply ends, so every reply starts with a fresh budget and one instance can serve
several agents.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Sequence
from typing import ClassVar

from shell.core.events import (
    Event,
    ModelCallEnd,
    Notice,
    TextBlockDelta,
    ThinkingBlockDelta,
    ToolCallDelta,
)
from shell.core.messages import (
    AssistantMessage,
    HintBlock,
    Message,
    SystemMessage,
    TextBlock,
    ToolCallBlock,
    Usage,
    content_text,
)

from .base import Middleware, ReasoningNext
from .context import HookContext
from .types import BeforeToolCallResult, ReasoningRequest, TurnAction
from .watching import watch

CHARS_PER_TOKEN = 4

DEFAULT_HINT = (
    "The token budget for this reply is used up. Do not call any more tools. "
    "Give your final answer now: conclude with what you have found so far and say "
    "briefly what is left to do, if anything."
)

REFUSED = (
    "Not run: the token budget for this reply is used up, so no more tools run. "
    "Give your final answer now with what you have."
)

ENDED = "Stopped: the token budget for this reply is used up and the model kept calling tools."


class ReplyBudgetControl(Middleware):
    """Cap each reply's weighted token cost: once spent, the model must wrap up without tools."""

    builtin: ClassVar[bool] = True

    def __init__(
        self,
        token_budget: float,
        input_token_weight: float = 1.0,
        output_token_weight: float = 1.0,
        hint_message: str = DEFAULT_HINT,
    ) -> None:
        if token_budget <= 0:
            raise ValueError("token_budget must be positive")
        if input_token_weight < 0 or output_token_weight < 0:
            raise ValueError("token weights must not be negative")
        self.token_budget = token_budget
        self.input_token_weight = input_token_weight
        self.output_token_weight = output_token_weight
        self.hint_message = hint_message

    def cost(self, usage: Usage) -> float:
        """The weighted cost of one model call."""
        return self.input_token_weight * usage.input_tokens + self.output_token_weight * usage.output_tokens

    def spent(self, ctx: HookContext) -> bool:
        """True once this reply's cost has reached the budget."""
        return float(ctx.reply_state.get("cost", 0.0)) >= self.token_budget

    def on_reasoning(
        self, ctx: HookContext, request: ReasoningRequest, next: ReasoningNext
    ) -> AsyncIterator[Event]:
        # It only reads the events (deltas, the call's usage): a watcher, not a
        # generator layer, so the reply's events cross no frame of ours.
        state = ctx.reply_state
        if self.spent(ctx):
            state["refusing"] = True  # this round's calls, made anyway, are not run
            request = request.override(tool_choice="none")
        streamed = 0  # characters of output in this model call, for an estimate

        def each(event: Event) -> None:
            nonlocal streamed
            if isinstance(event, (TextBlockDelta, ThinkingBlockDelta, ToolCallDelta)):
                streamed += len(event.delta)
            elif isinstance(event, ModelCallEnd):
                usage = event.usage
                if usage.unknown:
                    usage = self.estimate(ctx.messages, streamed)
                    self._say_estimated(ctx)
                state["cost"] = float(state.get("cost", 0.0)) + self.cost(usage)
                streamed = 0

        def end(error: BaseException | None) -> None:
            if error is None and self.spent(ctx) and not state.get("announced"):
                state["announced"] = True
                ctx.emit(
                    Notice(
                        "info",
                        f"Reply budget spent ({state['cost']:g} of {self.token_budget:g} weighted tokens); "
                        "asking the model to wrap up without tools.",
                        self.name,
                    )
                )

        return watch(next(request), each, end=end)

    async def after_model_response(self, ctx: HookContext, response: AssistantMessage) -> TurnAction | None:
        """The second round in a row that calls tools after the budget was spent ends
        the reply: the first was told its calls did not run."""
        state = ctx.reply_state
        if not state.get("refusing") or not response.tool_calls:
            return None
        state["ignored"] = int(state.get("ignored", 0)) + 1
        if state["ignored"] < 2:
            return None
        state["end"] = True  # after this turn's calls got their "not run" results
        return TurnAction(inject_messages=(AssistantMessage((TextBlock(ENDED),)),))

    async def before_tool_batch(
        self, ctx: HookContext, calls: tuple[ToolCallBlock, ...]
    ) -> dict[str, BeforeToolCallResult | None] | None:
        """Before any gate of the turn (so nobody is asked to approve a call that will
        be refused anyway, wherever this middleware sits in the list)."""
        if not ctx.reply_state.get("refusing"):
            return None
        return {call.id: BeforeToolCallResult(block=True, reason=REFUSED) for call in calls}

    async def should_stop_after_turn(self, ctx: HookContext) -> bool:
        return bool(ctx.reply_state.get("end"))

    @staticmethod
    def estimate(messages: Sequence[Message], output_chars: int) -> Usage:
        """Token counts guessed at ~4 characters a token, for servers that report none."""
        chars = 0
        for m in messages:
            if isinstance(m, AssistantMessage):
                chars += len(m.text)
                for block in m.content:
                    if isinstance(block, ToolCallBlock):
                        chars += len(json.dumps(block.args, ensure_ascii=False, default=str))
            elif isinstance(m, SystemMessage):
                chars += len(m.text)
            else:
                chars += len(content_text(m.content))
        return Usage(input_tokens=chars // CHARS_PER_TOKEN, output_tokens=output_chars // CHARS_PER_TOKEN)

    def _say_estimated(self, ctx: HookContext) -> None:
        if ctx.reply_state.get("estimating"):
            return
        ctx.reply_state["estimating"] = True
        ctx.emit(
            Notice(
                "info",
                "The model's server does not report token usage, so the reply budget counts an "
                f"estimate (about {CHARS_PER_TOKEN} characters a token).",
                self.name,
            )
        )

    async def transform_context(self, ctx: HookContext, messages: list[Message]) -> list[Message]:
        if not self.spent(ctx):
            return messages
        hint = HintBlock(self.hint_message)
        for i in range(len(messages) - 1, -1, -1):
            message = messages[i]
            if isinstance(message, AssistantMessage):
                view = list(messages)
                view[i] = AssistantMessage((*message.content, hint), message.usage, message.stop_reason)
                return view
        return [*messages, AssistantMessage((hint,))]
