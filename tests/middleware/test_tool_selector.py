"""LLMToolSelector: the selector model's choice decides which tools the main call offers."""

from __future__ import annotations

import pytest

from middleware.tool_selector import LLMToolSelector, parse_tool_names
from shell.agent import AssistantMessage, ModelError, ToolCallBlock, UserMessage, tool
from shell.agent.loop import Agent
from shell.core.events import Event, Notice
from shell.providers.scripted import ScriptedModel

pytestmark = pytest.mark.anyio


@tool(read_only=True)
def search(query: str) -> str:
    """Search the web for a query."""
    return f"results for {query}"


@tool(read_only=True)
def read_file(path: str) -> str:
    """Read a file from the workspace."""
    return "contents"


@tool
def write_file(path: str, text: str) -> str:
    """Write a file in the workspace."""
    return "written"


TOOLS = [search, read_file, write_file]


async def run(agent: Agent, text: str) -> list[Event]:
    return [e async for e in agent.reply(text)]


def offered(model: ScriptedModel, i: int = 0) -> list[str]:
    return [t.name for t in model.requests[i].tools]


async def test_only_selected_tools_are_offered() -> None:
    selector = ScriptedModel(['["search"]'])
    main = ScriptedModel(["Here you go."])
    agent = Agent(main, tools=TOOLS, middleware=[LLMToolSelector(model=selector)])
    await run(agent, "What is the weather in Paris?")
    assert offered(main) == ["search"]
    asked = selector.requests[0]
    assert asked.tools == ()
    prompt = asked.messages[0]
    assert isinstance(prompt, UserMessage)
    for name in ("search", "read_file", "write_file", "What is the weather in Paris?", "Read a file"):
        assert name in prompt.text
    assert "JSON array" in asked.system_prompt


async def test_always_include_and_max_tools() -> None:
    selector = ScriptedModel(['["write_file", "read_file", "search"]'])
    main = ScriptedModel(["ok"])
    mw = LLMToolSelector(model=selector, max_tools=1, always_include=["search"])
    agent = Agent(main, tools=TOOLS, middleware=[mw])
    await run(agent, "save a note")
    assert offered(main) == ["search", "write_file"]  # agent's order; search always, 1 chosen
    prompt = selector.requests[0].messages[0]
    assert isinstance(prompt, UserMessage)
    assert "- search:" not in prompt.text  # always-included tools are not up for selection
    assert "at most 1" in prompt.text


async def test_defaults_to_the_agents_model() -> None:
    main = ScriptedModel(['["read_file"]', "done"])
    agent = Agent(main, tools=TOOLS, middleware=[LLMToolSelector()])
    await run(agent, "open a.txt")
    assert len(main.requests) == 2
    assert main.requests[0].tools == ()  # the selection call
    assert offered(main, 1) == ["read_file"]


async def test_selection_cached_per_reply() -> None:
    selector = ScriptedModel(['["read_file"]', '["search"]'])
    main = ScriptedModel(
        [AssistantMessage((ToolCallBlock("c1", "read_file", {"path": "a"}),)), "round two", "next reply"]
    )
    agent = Agent(main, tools=TOOLS, middleware=[LLMToolSelector(model=selector)])
    await run(agent, "read a")
    assert len(selector.requests) == 1
    assert offered(main, 0) == offered(main, 1) == ["read_file"]
    await run(agent, "search something")
    assert len(selector.requests) == 2
    assert offered(main, 2) == ["search"]


async def test_failure_offers_every_tool_with_a_warning() -> None:
    selector = ScriptedModel([ModelError("selector down")])
    main = ScriptedModel(["ok"])
    agent = Agent(main, tools=TOOLS, middleware=[LLMToolSelector(model=selector)])
    events = await run(agent, "hi")
    assert offered(main) == ["search", "read_file", "write_file"]
    notices = [e for e in events if isinstance(e, Notice)]
    assert notices and "selector down" in notices[0].text


async def test_no_selection_call_without_candidates() -> None:
    selector = ScriptedModel([])
    main = ScriptedModel(["ok"])
    mw = LLMToolSelector(model=selector, always_include=["search"])
    agent = Agent(main, tools=[search], middleware=[mw])
    await run(agent, "hi")
    assert selector.requests == []
    assert offered(main) == ["search"]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('["search", "read_file"]', ["search", "read_file"]),
        ('Sure!\n```json\n["read_file"]\n```', ["read_file"]),
        ('{"tools": ["write_file", "nope"]}', ["write_file"]),
        ('[{"name": "search"}, "SEARCH", "search"]', ["search"]),
        ("I would use read_file, then search.", ["read_file", "search"]),
        ("[not json] but write_file", ["write_file"]),
        ("[]", []),
        ("nothing relevant", []),
    ],
)
def test_parse_is_tolerant(text: str, expected: list[str]) -> None:
    assert parse_tool_names(text, ["search", "read_file", "write_file"]) == expected


async def test_an_always_include_name_that_is_no_tool_is_said_once() -> None:
    """The same check as ToolCallLimit's and the emulator's (finding V5): a typo in
    always_include offered nothing and said nothing."""
    selector = ScriptedModel(['["search"]', '["search"]'])
    main = ScriptedModel(["one", "two"])
    chooser = LLMToolSelector(model=selector, always_include=["read_flie"])
    agent = Agent(main, tools=TOOLS, middleware=[chooser])
    told = [e for e in await run(agent, "a") + await run(agent, "b") if isinstance(e, Notice)]
    assert [(n.level, n.source) for n in told] == [("warning", "LLMToolSelector")]
    assert "no tool is named 'read_flie'" in told[0].text
    assert "'read_flie' looks like 'read_file'" in told[0].text


async def test_names_that_are_no_tool_are_said_and_none_at_all_offers_every_tool() -> None:
    """A selector naming only tools that do not exist left the main model with no
    tools, silently (finding V17): it is said, and treated as a failed selection."""
    main = ScriptedModel(["ok"])
    agent = Agent(main, tools=TOOLS, middleware=[LLMToolSelector(model=ScriptedModel(['["read", "nope"]']))])
    told = [e for e in await run(agent, "read a.txt") if isinstance(e, Notice)]
    assert offered(main) == ["search", "read_file", "write_file"]
    assert len(told) == 1 and "named tools that are not there ('read', 'nope'" in told[0].text
    assert "offering all tools" in told[0].text

    main = ScriptedModel(["ok"])
    chooser = LLMToolSelector(model=ScriptedModel(['["search", "nope"]']))
    agent = Agent(main, tools=TOOLS, middleware=[chooser])
    told = [e for e in await run(agent, "find it") if isinstance(e, Notice)]
    assert offered(main) == ["search"] and len(told) == 1 and "'nope'" in told[0].text

    main = ScriptedModel(["ok"])
    agent = Agent(main, tools=TOOLS, middleware=[LLMToolSelector(model=ScriptedModel(["[]"]))])
    assert not [e for e in await run(agent, "hi") if isinstance(e, Notice)] and offered(main) == []
