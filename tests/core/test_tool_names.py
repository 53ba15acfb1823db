"""A tool name model APIs refuse is refused where it is written (finding Y14).

``@tool(name="notes.search")`` or an 80-character name was accepted, and every
request that offered it came back 400 from OpenAI and Anthropic (their pattern:
``^[a-zA-Z0-9_-]{1,64}$``) while the middleware that listed it was on.
"""

from __future__ import annotations

from typing import Any

import pytest

from shell.core.messages import ToolResult
from shell.core.tools import Tool, ToolContext, tool
from shell.tools.mcp_results import tool_name


def search(query: str) -> str:
    """Search the notes."""
    return query


@pytest.mark.parametrize("name", ["notes.search", "x" * 65, "two words", "café"])
def test_tool_refuses_a_name_the_apis_refuse_and_says_the_rule(name: str) -> None:
    with pytest.raises(ValueError, match=r"\^\[a-zA-Z0-9_-\]\{1,64\}\$") as raised:
        tool(name=name)(search)
    assert "would be refused by model APIs" in str(raised.value)


def test_a_subclassed_tool_is_held_to_the_same_rule() -> None:
    class Dotted(Tool):
        async def run(self, args: dict[str, Any], context: ToolContext) -> ToolResult:
            return ToolResult("")

    with pytest.raises(ValueError, match="notes_search"):  # what it could be called instead
        Dotted("notes.search")


def test_names_the_apis_take_are_kept() -> None:
    assert tool(name="notes_search-2")(search).name == "notes_search-2"
    assert tool(name="x" * 64)(search).name == "x" * 64
    assert tool(search).name == "search"


def test_mcp_names_are_still_made_to_fit_rather_than_refused() -> None:
    assert tool_name("notes", "search") == "notes__search"
    fitted = tool_name("notes", "a.b" + "c" * 80)
    assert len(fitted) == 64 and "." not in fitted
