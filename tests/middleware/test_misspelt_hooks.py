"""A method named one or two letters away from a hook is said once, as the
middleware's warning (finding Y10): ``before_tool_cal`` (a gate that blocks) was
never called, the write it was written to stop ran, and nothing said so."""

from __future__ import annotations

from typing import Any

import pytest

from middleware import BeforeToolCallResult, Middleware
from shell.agent import Agent, AssistantMessage, ToolCallBlock, tool
from shell.core.events import Notice
from shell.providers.scripted import ScriptedModel

RAN: list[str] = []


@tool
def write(path: str) -> str:
    """Write a file."""
    RAN.append(path)
    return f"wrote {path}"


class TypoGate(Middleware):
    async def before_tool_cal(self, ctx: Any) -> BeforeToolCallResult:
        return BeforeToolCallResult(block=True, reason="typo")

    def on_modelcall(self, ctx: Any, request: Any, next: Any) -> Any:
        return next(request)

    def helper(self) -> str:  # far from every hook: no warning
        return "help"

    def _before_tool_cal(self) -> None:  # private: a helper by its author's word
        return None


class Subclassed(TypoGate):
    name = "Subclassed"

    def after_tool_calls(self, ctx: Any, result: Any) -> None:
        return None


def replies() -> list[Any]:
    return [AssistantMessage((ToolCallBlock("c1", "write", {"path": "a"}),)), "done", "again"]


@pytest.mark.anyio
async def test_a_misspelt_hook_is_said_once_naming_the_hook_it_looks_like() -> None:
    agent = Agent(ScriptedModel(replies()), tools=[write], middleware=[TypoGate()])
    first = [e for e in [ev async for ev in agent.reply("go")] if isinstance(e, Notice)]
    texts = sorted(n.text for n in first)
    assert len(texts) == 2 and all(n.level == "warning" and n.source == "TypoGate" for n in first)
    assert "'before_tool_cal' is no hook" in texts[0] and "looks like the hook 'before_tool_call'" in texts[0]
    assert "'on_modelcall'" in texts[1] and "'on_model_call'" in texts[1]
    again = [e async for e in agent.reply("more")]
    assert not [e for e in again if isinstance(e, Notice)]


def test_inherited_and_own_lookalikes_are_found_and_nothing_else() -> None:
    from middleware.stack import MiddlewareStack

    stack = MiddlewareStack([Subclassed()])
    found = sorted((method, hook) for _, method, hook in stack.lookalikes)
    assert found == [("after_tool_calls", "after_tool_call"), ("before_tool_cal", "before_tool_call"),
                     ("on_modelcall", "on_model_call")]


def test_the_built_in_middleware_look_like_no_misspelt_hook() -> None:
    from middleware.hook_shapes import lookalike_hooks
    from middleware.registry import builtin_middleware

    found = builtin_middleware()
    assert len(found) > 10
    for cls in found.values():
        assert lookalike_hooks(cls, Middleware, Middleware.HOOKS) == [], cls
