"""ContextEditing / ClearToolUses: which tool results are cleared, and only in the view."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from middleware.context_editing import ClearToolUses, ContextEditing, approximate_tokens
from shell.agent import AssistantMessage, Message, ToolCallBlock, ToolResultMessage, UserMessage, tool
from shell.agent.loop import Agent
from shell.core.events import Notice
from shell.providers.scripted import ScriptedModel

BIG = "x" * 400  # ~100 tokens


def history(names: Sequence[str]) -> list[Message]:
    """A user message, then one call + result per name (ids c0, c1, ...)."""
    out: list[Message] = [UserMessage("start")]
    for i, name in enumerate(names):
        out.append(AssistantMessage((ToolCallBlock(f"c{i}", name, {"path": f"file{i}.txt"}),)))
        out.append(ToolResultMessage(f"c{i}", name, f"{i}:{BIG}"))
    return out


def results(messages: Sequence[Message]) -> list[ToolResultMessage]:
    return [m for m in messages if isinstance(m, ToolResultMessage)]


def test_below_trigger_nothing_changes() -> None:
    messages = history(["read"] * 5)
    out, report = ClearToolUses(trigger=10_000).apply(messages, approximate_tokens)
    assert out is messages and report.cleared == 0


def test_newest_keep_results_stay_intact() -> None:
    messages = history(["read"] * 5)
    out, report = ClearToolUses(trigger=100, keep=3).apply(messages, approximate_tokens)
    texts = [r.text for r in results(out)]
    assert texts[:2] == ["[cleared]", "[cleared]"]
    assert texts[2:] == [f"{i}:{BIG}" for i in (2, 3, 4)]
    assert report.cleared == 2 and report.tokens_freed > 150
    assert out[1] == messages[1]  # tool call arguments kept by default


def test_keep_zero_clears_all_and_custom_placeholder() -> None:
    edit = ClearToolUses(trigger=0, keep=0, placeholder="<gone>")
    out, _ = edit.apply(history(["a", "b"]), approximate_tokens)
    assert [r.text for r in results(out)] == ["<gone>", "<gone>"]


def test_excluded_tools_untouched() -> None:
    messages = history(["read", "memory", "read", "read", "read", "read"])
    edit = ClearToolUses(trigger=100, keep=2, exclude_tools=("memory",))
    out, report = edit.apply(messages, approximate_tokens)
    texts = [r.text for r in results(out)]
    assert texts[1] == f"1:{BIG}"
    assert texts[0] == texts[2] == texts[3] == "[cleared]"
    assert texts[4:] == [f"4:{BIG}", f"5:{BIG}"]
    assert report.cleared == 3


def test_clear_tool_inputs_empties_matching_call_args() -> None:
    messages = history(["read"] * 4)
    out, _ = ClearToolUses(trigger=100, keep=1, clear_tool_inputs=True).apply(messages, approximate_tokens)
    calls = [m.tool_calls[0] for m in out if isinstance(m, AssistantMessage)]
    assert [c.args for c in calls] == [{}, {}, {}, {"path": "file3.txt"}]
    assert [c.id for c in calls] == ["c0", "c1", "c2", "c3"]


def test_clear_at_least_stops_once_enough_was_freed() -> None:
    messages = history(["read"] * 6)
    out, report = ClearToolUses(trigger=100, keep=1, clear_at_least=150).apply(messages, approximate_tokens)
    texts = [r.text for r in results(out)]
    assert texts[:2] == ["[cleared]", "[cleared]"]  # oldest first, ~100 tokens each
    assert texts[2:] == [f"{i}:{BIG}" for i in range(2, 6)]
    assert report.cleared == 2


def test_already_cleared_results_are_not_counted_again() -> None:
    edit = ClearToolUses(trigger=100, keep=1)
    once, _ = edit.apply(history(["read"] * 3), approximate_tokens)
    twice, report = edit.apply(once, approximate_tokens)
    assert twice == once and report.cleared == 0


def test_bad_options_rejected() -> None:
    with pytest.raises(ValueError):
        ClearToolUses(keep=-1)
    with pytest.raises(ValueError):
        ContextEditing(token_count_method="exact")  # type: ignore[arg-type]


@tool(read_only=True)
def read(path: str) -> str:
    """Read a file."""
    return f"{path}:{BIG}"


@pytest.mark.anyio
async def test_the_model_sees_the_edit_the_history_is_unchanged() -> None:
    turns: list[str | AssistantMessage] = [
        AssistantMessage((ToolCallBlock(f"c{i}", "read", {"path": f"f{i}"}),)) for i in range(4)
    ]
    model = ScriptedModel([*turns, "done"])
    mw = ContextEditing(edits=[ClearToolUses(trigger=150, keep=2)])
    agent = Agent(model, tools=[read], middleware=[mw])
    events = [e async for e in agent.reply("read four files")]
    last_view = results(model.requests[-1].messages)
    assert [r.text for r in last_view] == ["[cleared]", "[cleared]", f"f2:{BIG}", f"f3:{BIG}"]
    assert [r.text for r in results(agent.messages)] == [f"f{i}:{BIG}" for i in range(4)]
    notices = [e for e in events if isinstance(e, Notice) and e.source == "ContextEditing"]
    assert len(notices) == 1 and "Cleared" in notices[0].text


class CountingModel(ScriptedModel):
    """A model that counts tokens its own way: huge once there are more than 3 messages."""

    def count_tokens(self, messages: list[Message]) -> int:
        return 1_000_000 if len(messages) > 3 else 0


@pytest.mark.anyio
async def test_token_count_method_model() -> None:
    calls = [AssistantMessage((ToolCallBlock(f"c{i}", "read", {"path": f"f{i}"}),)) for i in range(2)]
    model = CountingModel([*calls, "ok"])
    mw = ContextEditing(edits=[ClearToolUses(trigger=10, keep=1)], token_count_method="model")
    agent = Agent(model, tools=[read], middleware=[mw])
    [e async for e in agent.reply("go")]
    assert [r.text for r in results(model.requests[1].messages)] == [f"f0:{BIG}"]  # 3 messages: under
    assert [r.text for r in results(model.requests[2].messages)] == ["[cleared]", f"f1:{BIG}"]


@pytest.mark.anyio
async def test_token_count_method_callable() -> None:
    seen: list[int] = []

    def counter(messages: Sequence[Message]) -> int:
        seen.append(len(messages))
        return 0

    agent = Agent(ScriptedModel(["ok"]), middleware=[ContextEditing(token_count_method=counter)])
    [e async for e in agent.reply("hi")]
    assert seen == [1]


def test_edits_from_config_tables() -> None:
    mw = ContextEditing(edits=[{"trigger": 500, "keep": 1, "exclude_tools": ["memory"]}])
    assert mw.edits == [ClearToolUses(trigger=500, keep=1, exclude_tools=("memory",))]
    assert ContextEditing().edits == [ClearToolUses()]
