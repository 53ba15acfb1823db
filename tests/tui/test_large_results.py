"""A large tool result (held packed, see shell.core.packed_text) opens in its span as
any other: the first lines, then how many more."""

from __future__ import annotations

import pytest
from textual.widgets import Static

from shell.agent import AssistantMessage, ToolCallBlock
from shell.core.messages import ToolResultMessage
from shell.core.packed_text import PackedText, stored
from shell.core.tools import tool
from shell.tui.widgets.tool_span import RESULT_LINES, ToolSpan

from .helpers import SIZE, scripted_app, send, wait_for

pytestmark = pytest.mark.anyio

LINES = [f"line {i} ≤ the limit — of a long file" for i in range(2000)]


@tool(read_only=True)
async def long_file() -> str:
    """Return a long text with wide characters."""
    return "\n".join(LINES)


async def test_a_large_result_opens_in_its_span_from_the_historys_copy() -> None:
    app, agent, _ = scripted_app([AssistantMessage((ToolCallBlock("c1", "long_file", {}),)), "read"],
                                 tools=[long_file])
    async with app.run_test(size=SIZE) as pilot:
        await send(pilot, "go")
        await wait_for(pilot, lambda: app.last_reply is not None)
        span = app.query_one(ToolSpan)
        span.collapsed = False
        await pilot.pause()
        shown = span.query_one(".span-result", Static).visual.plain  # type: ignore[union-attr]
        assert shown.splitlines()[:2] == LINES[:2]
        assert f"{len(LINES) - RESULT_LINES} more lines" in shown
        message = next(m for m in agent.messages if isinstance(m, ToolResultMessage))
        held = stored(span.state, "result")
        assert isinstance(held, PackedText) and held is stored(message, "content")
