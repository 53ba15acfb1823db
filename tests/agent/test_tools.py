"""``@tool``: schemas from type hints and docstrings, validation, sync and async."""

from __future__ import annotations

import threading
from typing import Literal

import pytest
from pydantic import BaseModel

from shell.agent import ToolArgumentError, ToolCallBlock, ToolContext, ToolResult, tool
from shell.core.tools import check_json_schema, parse_docstring


@tool
def greet(name: str, times: int = 1, style: Literal["plain", "loud"] = "plain") -> str:
    """Greet someone.

    A longer explanation that is still part of the description.

    Args:
        name: who to greet
        times: how many times,
            at least once
        style: how to say it
    """
    word = f"hello {name}"
    return " ".join([word.upper() if style == "loud" else word] * times)


def _context() -> ToolContext:
    async def ask(request: object) -> None:
        return None

    return ToolContext(ToolCallBlock("c1", "x", {}), lambda p: None, ask)


def test_schema_comes_from_hints_and_docstring() -> None:
    assert greet.name == "greet"
    assert greet.description.startswith("Greet someone.")
    assert "longer explanation" in greet.description
    props = greet.parameters["properties"]
    assert props["name"] == {"type": "string", "description": "who to greet"}
    assert props["times"]["type"] == "integer"
    assert props["times"]["description"] == "how many times, at least once"
    assert props["style"]["enum"] == ["plain", "loud"]
    assert greet.parameters["required"] == ["name"]
    assert greet.read_only is False


def test_decorator_options() -> None:
    @tool(name="lookup", read_only=True, description="Find a thing.")
    async def find(query: str) -> str:
        return query

    assert (find.name, find.description, find.read_only) == ("lookup", "Find a thing.", True)


def test_validation_names_every_problem() -> None:
    with pytest.raises(ToolArgumentError) as err:
        greet.validate({"times": "many", "style": "whisper"})
    message = str(err.value)
    assert message.startswith("Invalid arguments for greet:")
    assert "name: Field required" in message
    assert "times:" in message and "style:" in message
    with pytest.raises(ToolArgumentError, match="expected a JSON object"):
        greet.validate([1, 2])  # type: ignore[arg-type]


@pytest.mark.anyio
async def test_sync_tool_runs_in_a_worker_thread() -> None:
    seen: list[str] = []

    @tool
    def where() -> str:
        """Report the thread."""
        seen.append(threading.current_thread().name)
        return "ok"

    assert (await where.run({}, _context())).content == "ok"
    assert seen and seen[0] != threading.main_thread().name


@pytest.mark.anyio
async def test_async_tool_context_and_return_values() -> None:
    progress: list[object] = []

    class Point(BaseModel):
        x: int
        y: int

    @tool
    async def move(point: Point, ctx: ToolContext) -> dict[str, int]:
        """Move a point."""
        ctx.report("moving")
        return {"x": point.x + 1, "y": point.y}

    assert "ctx" not in move.parameters["properties"]
    context = ToolContext(ToolCallBlock("c1", "move", {}), progress.append, _context().ask)
    result = await move.run({"point": {"x": 1, "y": 2}}, context)
    assert result == ToolResult('{"x": 2, "y": 2}')
    assert progress == ["moving"]


@pytest.mark.anyio
async def test_greet_runs_with_defaults() -> None:
    assert (await greet.run({"name": "ada", "times": 2}, _context())).content == "hello ada hello ada"


def test_sphinx_docstrings() -> None:
    summary, args = parse_docstring("Do it.\n\n:param path: where\n:param int n: how many\n")
    assert summary == "Do it."
    assert args == {"path": "where", "n": "how many"}


def test_json_schema_check_for_schema_only_tools() -> None:
    schema = {
        "type": "object",
        "properties": {
            "q": {"type": "string"},
            "n": {"type": "integer"},
            "opt": {"type": ["string", "null"]},
        },
        "required": ["q"],
    }
    assert check_json_schema("s", schema, {"q": "a", "n": 2, "opt": None}) == {"q": "a", "n": 2, "opt": None}
    with pytest.raises(ToolArgumentError, match="q: Field required; n: expected integer"):
        check_json_schema("s", schema, {"n": True})
