"""Timing: per-call durations (model, first chunk, tool), totals and the reply summary."""

from __future__ import annotations

import pytest

from middleware.timing import Timing
from shell.agent import AssistantMessage, ModelError, ModelRequest, ToolCallBlock, tool
from shell.agent.loop import Agent
from shell.core.events import CustomEvent, Event, Notice, ReplyEnd
from shell.providers.scripted import ScriptedModel

pytestmark = pytest.mark.anyio


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


clock = Clock()


def slow_turn(seconds: float, turn: str | AssistantMessage) -> object:
    def answer(request: ModelRequest) -> str | AssistantMessage:
        clock.now += seconds
        return turn

    return answer


@tool(read_only=True)
def lookup(key: str) -> str:
    """Look a key up (takes two seconds on the fake clock)."""
    clock.now += 2.0
    return "value"


def agent_for(mw: Timing, *turns: object) -> Agent:
    return Agent(ScriptedModel(list(turns)), tools=[lookup], middleware=[mw])  # type: ignore[arg-type]


def timings(events: list[Event]) -> list[dict[str, object]]:
    return [e.data for e in events if isinstance(e, CustomEvent) and e.name == "timing"]


CALL = AssistantMessage((ToolCallBlock("c1", "lookup", {"key": "k"}),))


async def test_reports_each_call_and_a_reply_summary() -> None:
    mw = Timing(clock=clock)
    agent = agent_for(mw, slow_turn(1.5, CALL), slow_turn(0.5, "done"))
    events = [e async for e in agent.reply("go")]
    data = timings(events)
    assert [d["kind"] for d in data] == ["model", "tool", "model", "reply"]
    model, tool_, model2, summary = data
    assert model == {"kind": "model", "name": "scripted", "duration_s": 1.5, "ok": True, "first_chunk_s": 1.5}
    assert tool_ == {"kind": "tool", "name": "lookup", "duration_s": 2.0, "ok": True, "call_id": "c1"}
    assert model2["duration_s"] == 0.5
    assert summary == {"kind": "reply", "model_calls": 2, "model_s": 2.0, "tool_calls": 1, "tool_s": 2.0}
    summary_at = next(i for i, e in enumerate(events) if isinstance(e, CustomEvent) and e.data is summary)
    assert isinstance(events[summary_at + 1], ReplyEnd)
    assert mw.totals == {"model_calls": 2, "model_s": 2.0, "tool_calls": 1, "tool_s": 2.0}


async def test_totals_add_up_over_replies_reply_totals_restart() -> None:
    mw = Timing(clock=clock)
    agent = agent_for(mw, slow_turn(1.0, "a"), slow_turn(3.0, "b"))
    [e async for e in agent.reply("one")]
    second = [e async for e in agent.reply("two")]
    expected = {"kind": "reply", "model_calls": 1, "model_s": 3.0, "tool_calls": 0, "tool_s": 0.0}
    assert timings(second)[-1] == expected
    assert mw.totals["model_calls"] == 2 and mw.totals["model_s"] == 4.0


async def test_failed_model_call_is_reported_as_not_ok() -> None:
    agent = agent_for(Timing(clock=clock), ModelError("down"))
    events = [e async for e in agent.reply("go")]
    model = timings(events)[0]
    assert model["ok"] is False and model["first_chunk_s"] is None


async def test_notice_mode() -> None:
    agent = agent_for(Timing(report="notice", clock=clock), slow_turn(1.25, CALL), "ok")
    events = [e async for e in agent.reply("go")]
    texts = [e.text for e in events if isinstance(e, Notice)]
    assert texts[0] == "model scripted: 1.25s (first chunk after 1.25s)"
    assert texts[1] == "tool lookup: 2.00s"
    assert timings(events) == []


def test_bad_report_rejected() -> None:
    with pytest.raises(ValueError):
        Timing(report="log")  # type: ignore[arg-type]
