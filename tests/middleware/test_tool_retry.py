"""ToolRetry: retry counts, which failures retry, what happens when they run out,
and the backoff schedule (bounds, cap, jitter range)."""

from __future__ import annotations

import random
from typing import Any

import pytest

from middleware.tool_retry import ToolRetry
from middleware.types import StopReply
from shell.agent import AssistantMessage, Tool, ToolCallBlock, ToolResultMessage, tool
from shell.agent.loop import Agent
from shell.core.events import ErrorEvent, Event, Notice, ReplyEnd
from shell.providers.scripted import ScriptedModel

pytestmark = pytest.mark.anyio


class Flaky:
    """A tool that raises ``exc`` for its first ``failures`` calls."""

    def __init__(self, failures: int, exc: Exception | None = None, name: str = "fetch") -> None:
        self.calls = 0
        self.failures = failures
        self.exc = exc or ConnectionError("connection reset")

        async def fetch(url: str) -> str:
            """Fetch a URL."""
            self.calls += 1
            if self.calls <= self.failures:
                raise self.exc
            return "page"

        self.tool: Tool = tool(name=name)(fetch)


class Sleeps:
    def __init__(self) -> None:
        self.waits: list[float] = []

    async def __call__(self, seconds: float) -> None:
        self.waits.append(seconds)


def agent_for(flaky: Flaky, mw: ToolRetry) -> Agent:
    model = ScriptedModel(
        [AssistantMessage((ToolCallBlock("c1", flaky.tool.name, {"url": "http://x"}),)), "done"]
    )
    return Agent(model, tools=[flaky.tool], middleware=[mw])


async def run(agent: Agent) -> tuple[list[Event], ToolResultMessage]:
    events = [e async for e in agent.reply("go")]
    result = next(m for m in agent.messages if isinstance(m, ToolResultMessage))
    return events, result


async def test_transient_failure_retried_until_success() -> None:
    flaky, sleeps = Flaky(2), Sleeps()
    events, result = await run(agent_for(flaky, ToolRetry(jitter=False, sleep=sleeps)))
    assert flaky.calls == 3
    assert not result.is_error and result.text == "page"
    assert sleeps.waits == [1.0, 2.0]
    notices = [e for e in events if isinstance(e, Notice)]
    assert len(notices) == 2 and "retry 1/2" in notices[0].text


async def test_retries_run_out_returns_message() -> None:
    flaky, sleeps = Flaky(10), Sleeps()
    _, result = await run(agent_for(flaky, ToolRetry(max_retries=3, jitter=False, sleep=sleeps)))
    assert flaky.calls == 4
    assert len(sleeps.waits) == 3
    assert result.is_error
    assert "fetch failed after 4 attempts: ConnectionError: connection reset" in result.text


async def test_zero_retries_means_one_attempt() -> None:
    flaky, sleeps = Flaky(10), Sleeps()
    _, result = await run(agent_for(flaky, ToolRetry(max_retries=0, sleep=sleeps)))
    assert flaky.calls == 1 and sleeps.waits == []
    assert "after 1 attempt:" in result.text


async def test_only_listed_tools_retry() -> None:
    flaky, sleeps = Flaky(1), Sleeps()
    _, result = await run(agent_for(flaky, ToolRetry(tools=["other"], sleep=sleeps)))
    assert flaky.calls == 1 and result.is_error
    flaky2 = Flaky(1)
    _, result2 = await run(agent_for(flaky2, ToolRetry(tools=[flaky2.tool], sleep=sleeps)))
    assert flaky2.calls == 2 and not result2.is_error


async def test_retry_on_exception_types() -> None:
    flaky, sleeps = Flaky(1, ValueError("bad input")), Sleeps()
    _, result = await run(agent_for(flaky, ToolRetry(retry_on=(ConnectionError,), sleep=sleeps)))
    assert flaky.calls == 1 and sleeps.waits == []
    assert result.is_error and "ValueError: bad input" in result.text


async def test_retry_on_callable() -> None:
    def transient(exc: Exception) -> bool:
        return "temporary" in str(exc)

    flaky, sleeps = Flaky(1, RuntimeError("temporary glitch")), Sleeps()
    _, result = await run(agent_for(flaky, ToolRetry(retry_on=transient, sleep=sleeps)))
    assert flaky.calls == 2 and not result.is_error
    flaky2 = Flaky(1, RuntimeError("permanent"))
    _, result2 = await run(agent_for(flaky2, ToolRetry(retry_on=transient, sleep=sleeps)))
    assert flaky2.calls == 1 and result2.is_error


async def test_on_failure_callable() -> None:
    def explain(exc: Exception) -> str:
        return f"The site is down ({exc}). Try later."

    flaky = Flaky(10)
    _, result = await run(agent_for(flaky, ToolRetry(max_retries=1, on_failure=explain, sleep=Sleeps())))
    assert result.is_error and result.text == "The site is down (connection reset). Try later."


async def test_on_failure_raise_stops_the_reply() -> None:
    flaky = Flaky(10)
    agent = agent_for(flaky, ToolRetry(max_retries=1, on_failure="raise", sleep=Sleeps()))
    events, result = await run(agent)
    assert flaky.calls == 2
    errors = [e for e in events if isinstance(e, ErrorEvent)]
    assert len(errors) == 1 and errors[0].source == "ToolRetry"
    assert errors[0].error == "fetch failed after 2 attempts: ConnectionError: connection reset"
    assert isinstance(errors[0].exception, StopReply)
    assert isinstance(errors[0].exception.__cause__, ConnectionError)
    end = events[-1]
    assert isinstance(end, ReplyEnd) and end.stop_reason == "error"
    assert result.is_error  # the history stays valid: the call has a result
    assert len(agent.model.requests) == 1  # type: ignore[attr-defined]  # the model was not called again


async def test_real_sleep_is_used_by_default() -> None:
    flaky = Flaky(1)
    _, result = await run(agent_for(flaky, ToolRetry(initial_delay=0.01, jitter=False)))
    assert flaky.calls == 2 and not result.is_error


def test_backoff_grows_and_is_capped() -> None:
    mw = ToolRetry(initial_delay=1.0, backoff_factor=2.0, max_delay=5.0, jitter=False)
    assert [mw.delay(n) for n in range(6)] == [1.0, 2.0, 4.0, 5.0, 5.0, 5.0]
    constant = ToolRetry(initial_delay=0.5, backoff_factor=0.0, jitter=False)
    assert [constant.delay(n) for n in range(3)] == [0.5, 0.5, 0.5]
    assert ToolRetry(initial_delay=0.0).delay(3) == 0.0


def test_jitter_stays_within_a_quarter() -> None:
    mw = ToolRetry(initial_delay=2.0, backoff_factor=3.0, max_delay=10.0, rng=random.Random(7))
    for n, base in [(0, 2.0), (1, 6.0), (2, 10.0), (5, 10.0)]:
        samples = [mw.delay(n) for _ in range(300)]
        assert all(0.75 * base <= s <= 1.25 * base for s in samples)
        assert max(samples) - min(samples) > 0.3 * base  # it really varies


@pytest.mark.parametrize(
    "kwargs",
    [{"max_retries": -1}, {"initial_delay": -1}, {"on_failure": "explode"}],
)
def test_bad_options_rejected(kwargs: dict[str, Any]) -> None:
    with pytest.raises(ValueError):
        ToolRetry(**kwargs)


async def test_a_tools_name_that_is_no_tool_is_said_once() -> None:
    """A typo in ``tools`` retried nothing and said nothing (finding V5, the check
    ToolCallLimit and LLMToolEmulator share)."""
    flaky = Flaky(1)
    model = ScriptedModel([AssistantMessage((ToolCallBlock("c1", "fetch", {"url": "u"}),)), "done"])
    retry = ToolRetry(tools=["fecth"], sleep=Sleeps())
    events = [e async for e in Agent(model, tools=[flaky.tool], middleware=[retry]).reply("go")]
    told = [e for e in events if isinstance(e, Notice)]
    assert [(n.level, n.source) for n in told] == [("warning", "ToolRetry")]
    assert "no tool is named 'fecth' (tools: fetch)" in told[0].text
    assert "it retries nothing under that name" in told[0].text
