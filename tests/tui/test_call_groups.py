"""Many calls of one tool in one reply read as one row, ``▶ read_page [times] 60 (58
ok, 2 failed)``, opened by a click or Enter; a call that failed, or one awaiting
approval, is never hidden inside it; a few calls stay spans of their own; a resumed
session shows the same."""

from __future__ import annotations

import pytest

from shell.agent import tool
from shell.agent.loop import Agent
from shell.core.messages import AssistantMessage, ToolCallBlock
from shell.providers.scripted import ScriptedModel
from shell.tui.app import AgentShellApp
from shell.tui.widgets import conversation as conv
from shell.tui.widgets.call_group import CallGroup
from shell.tui.widgets.tool_span import ToolSpan

from .helpers import SIZE, AskEverything, approval_dialog, read_note, send, wait_for, write_note

pytestmark = pytest.mark.anyio

TIMES = "\N{MULTIPLICATION SIGN}"


@tool(read_only=True)
def read_page(path: str) -> str:
    """Read a page; pages whose name has "bad" in it cannot be read.

    Args:
        path: which page
    """
    if "bad" in path:
        raise RuntimeError(f"cannot read {path}")
    return f"contents of {path}"


def _labels(app: AgentShellApp) -> list[str]:
    return [g.label for g in app.query(CallGroup)]


def _calls(n: int, bad: frozenset[int] = frozenset(), tool_name: str = "read_page") -> AssistantMessage:
    return AssistantMessage(tuple(
        ToolCallBlock(f"c{i}", tool_name, {"path": f"{'bad' if i in bad else 'p'}{i}.txt"}) for i in range(n)
    ))


async def test_sixty_calls_of_one_tool_are_one_row_and_the_failed_ones_stay_spans_of_their_own(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(conv, "WINDOW", 10)
    monkeypatch.setattr(conv, "SLACK", 2)
    agent = Agent(ScriptedModel([_calls(60, bad=frozenset({7, 41})), "Read them."]), tools=[read_page])
    app = AgentShellApp(agent, model_label="scripted")
    async with app.run_test(size=SIZE) as pilot:
        await send(pilot, "read")
        await wait_for(pilot, lambda: not app.busy, timeout=60)
        await wait_for(pilot, lambda: _labels(app) == [f"read_page {TIMES} 60 (58 ok, 2 failed)"])  # folded
        [group] = app.query(CallGroup)
        assert group.label == f"read_page {TIMES} 60 (58 ok, 2 failed)"
        spans = list(app.query(ToolSpan))
        assert [s.state.call_id for s in spans] == ["c7", "c41"]  # the failures, nothing else
        assert all(s.state.status == "error" for s in spans)
        # the row is where the calls were: after the text that asked, before the answer
        entries = app.conversation.entries
        assert len(entries) < 10 and app.conversation.first_mounted == 0
        assert "Read them." in str(app.query("AssistantMessage").last().text)

        await pilot.click(group._title)  # opened: a line per call, each with its path
        await wait_for(pilot, lambda: not group.collapsed)
        assert not group.collapsed
        body = str(group.query_one(".group-calls").content)
        assert all(f"p{i}.txt" in body for i in range(60) if i not in (7, 41))
        lines = body.splitlines()
        assert sum(line.startswith("✓") for line in lines) == 58
        failed = [line for line in lines if line.startswith("✗")]
        assert failed == [f"✗ read_page path=bad{i}.txt · {s.state.duration_s:.2f}s"
                          for i, s in ((7, spans[0]), (41, spans[1]))]  # (and under each, why it failed)

        group._title.focus()  # Enter closes it again (the header is a Tab stop)
        await pilot.press("enter")
        await wait_for(pilot, lambda: group.collapsed)
        assert group.collapsed


async def test_a_few_calls_stay_spans_and_another_tool_starts_its_own_row() -> None:
    calls = (*_calls(3).content, *(ToolCallBlock(f"n{i}", "read_note", {"path": f"n{i}"}) for i in range(6)))
    agent = Agent(ScriptedModel([AssistantMessage(calls), "done"]), tools=[read_page, read_note])
    app = AgentShellApp(agent, model_label="scripted")
    async with app.run_test(size=SIZE) as pilot:
        await send(pilot, "read")
        await wait_for(pilot, lambda: not app.busy)
        await wait_for(pilot, lambda: _labels(app) == [f"read_note {TIMES} 6 (6 ok)"])  # folded
        assert [s.state.call_id for s in app.query(ToolSpan)] == ["c0", "c1", "c2"]
        assert [g.label for g in app.query(CallGroup)] == [f"read_note {TIMES} 6 (6 ok)"]


async def test_calls_awaiting_approval_are_never_folded_and_the_dialog_asks_for_each() -> None:
    calls = tuple(ToolCallBlock(f"w{i}", "write_note", {"path": f"w{i}.txt", "text": "x"}) for i in range(6))
    agent = Agent(ScriptedModel([AssistantMessage(calls), "written"]), tools=[write_note],
                  middleware=[AskEverything()], tool_execution="sequential")
    app = AgentShellApp(agent, model_label="scripted")
    async with app.run_test(size=SIZE) as pilot:
        await send(pilot, "write")
        asked: list[str] = []
        for _ in range(6):
            await wait_for(pilot, lambda: approval_dialog(app) is not None, timeout=20)
            waiting = [s for s in app.query(ToolSpan) if s.state.status == "approval"]
            assert len(waiting) == 1  # on screen, its own line, whatever was folded before it
            asked.append(waiting[0].state.call_id)
            screen = app.screen
            await wait_for(pilot, lambda screen=screen: not screen.guarded())  # the dialog's typing guard
            await pilot.press("y")
            await wait_for(pilot, lambda screen=screen: app.screen is not screen or not app.busy, timeout=20)
        await wait_for(pilot, lambda: not app.busy)
        # folded once all of them are done
        await wait_for(pilot, lambda: _labels(app) == [f"write_note {TIMES} 6 (6 ok)"])
        assert asked == [f"w{i}" for i in range(6)]
        assert [g.label for g in app.query(CallGroup)] == [f"write_note {TIMES} 6 (6 ok)"]
        assert not app.query(ToolSpan)


async def test_a_resumed_session_shows_the_same_row_and_the_failed_call() -> None:
    from shell.core.messages import ToolResultMessage, UserMessage

    from .helpers import make_agent

    agent, _ = make_agent(["Fresh answer."])
    agent.messages.extend([
        UserMessage("read them"), _calls(8, bad=frozenset({3})),
        *(ToolResultMessage(f"c{i}", "read_page", "cannot read it" if i == 3 else f"page {i}", i == 3)
          for i in range(8)),
        AssistantMessage((ToolCallBlock("one", "read_note", {"path": "n.txt"}),)),
        ToolResultMessage("one", "read_note", "contents of n.txt", False),
        UserMessage("and?"),
    ])
    app = AgentShellApp(agent, model_label="scripted")
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: bool(_labels(app)) and len(app.query(ToolSpan)) >= 2)  # drawn
        assert [g.label for g in app.query(CallGroup)] == [f"read_page {TIMES} 8 (7 ok, 1 failed)"]
        assert [s.state.call_id for s in app.query(ToolSpan)] == ["c3", "one"]
