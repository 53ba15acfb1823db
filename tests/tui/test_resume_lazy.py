"""A resumed long session draws its last screenful at once and the rest lazily:
the prompt takes input right away, and scrolling back shows every message once, in
order (nothing lost, nothing doubled where the lazy parts meet)."""

from __future__ import annotations

import pytest

from shell.agent import AssistantMessage, TextBlock, ToolCallBlock, ToolResultMessage, UserMessage
from shell.core.messages import Message
from shell.tui.app import AgentShellApp
from shell.tui.entries import AssistantEntry, SpanEntry, UserEntry
from shell.tui.widgets import conversation as conv

from .helpers import SIZE, make_agent, repeat_until, send, shown_entries, wait_for

pytestmark = pytest.mark.anyio


def _history(turns: int) -> list[Message]:
    out: list[Message] = []
    for i in range(turns):
        out.append(UserMessage(f"question {i}"))
        if i % 3 == 0:
            call = ToolCallBlock(f"c{i}", "read_note", {"path": f"n{i}"})
            out.append(AssistantMessage((TextBlock(f"Reading {i}."), call)))
            out.append(ToolResultMessage(f"c{i}", "read_note", f"contents of n{i}", False))
        out.append(AssistantMessage((TextBlock(f"Answer {i}:\n\n" + f"line of answer {i}\n" * 6),)))
    return out


def _expected(turns: int) -> list[str]:
    """What each entry shows, oldest first."""
    out: list[str] = []
    for i in range(turns):
        out.append(f"user:question {i}")
        if i % 3 == 0:
            out += [f"reply:Reading {i}.", f"span:c{i}"]
        out.append(f"reply:Answer {i}:\n\n" + f"line of answer {i}\n" * 6)
    return out


async def test_a_resumed_session_shows_its_end_at_once_and_takes_input() -> None:
    agent, _ = make_agent(["Fresh answer."])
    agent.messages.extend(_history(120))
    app = AgentShellApp(agent, model_label="scripted")
    async with app.run_test(size=SIZE) as pilot:
        conversation = app.conversation
        newest = conversation.entries[-1].widget
        assert newest is not None and newest.is_mounted  # the last screenful is there from the start
        assert conversation.mounted_count < conv.WINDOW  # and only about a screenful at first
        await pilot.pause()
        assert newest.region.overlaps(conversation.region)  # on screen
        await send(pilot, "and now?")  # the prompt takes input at once
        await wait_for(pilot, lambda: not app.busy)
        assert shown_entries(app)[-2:] == ["user:and now?", "reply:Fresh answer."]
        assert conversation.max_scroll_y > 0 and conversation.first_mounted > 0  # the rest waits above


async def test_scrolling_back_after_resume_shows_every_message_once_in_order() -> None:
    agent, _ = make_agent([])
    agent.messages.extend(_history(60))
    app = AgentShellApp(agent, model_label="scripted")
    async with app.run_test(size=SIZE) as pilot:
        conversation = app.conversation
        # each scroll to the top brings one more batch back
        await repeat_until(pilot, lambda: conversation.scroll_home(animate=False),
                           lambda: conversation.first_mounted == 0, timeout=120)  # 60 turns, under load
        await pilot.pause()
        assert shown_entries(app) == _expected(60)
        kinds = [type(e) for e in conversation.entries]
        assert kinds.count(UserEntry) == 60 and kinds.count(SpanEntry) == 20
        assert kinds.count(AssistantEntry) == 80
