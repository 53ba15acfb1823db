"""A forced tool choice naming a tool the request does not carry (finding B7).

A layer that narrows the tools (LLMToolSelector) can remove the tool a provider's
``tool_choice`` option forces: llama.cpp answered such a request with an empty stream.
"""

from __future__ import annotations

from shell.core.messages import UserMessage
from shell.core.model import ModelRequest
from shell.core.tools import Tool, tool
from shell.providers.anthropic import AnthropicModel
from shell.providers.base import HTTPProvider
from shell.providers.openai import OpenAIModel


@tool
def read_file(path: str) -> str:
    """Read a file."""
    return path


@tool
def run_shell(command: str) -> str:
    """Run a command."""
    return command


FORCED = {"tool_choice": "run_shell"}


def ask(model: HTTPProvider, *tools: Tool) -> ModelRequest:
    return ModelRequest(model=model, messages=(UserMessage("what is in app.py"),), tools=tools)


def test_openai_forced_tool_left_out_is_not_sent_and_is_said_once() -> None:
    notices: list[str] = []
    model = OpenAIModel("m", base_url="http://h/v1", options=FORCED, on_notice=notices.append)
    body = model.build_body(ask(model, read_file))
    assert [t["function"]["name"] for t in body["tools"]] == ["read_file"]
    assert "tool_choice" not in body  # llama-cpp-python: "Tool choice not found in tools", empty stream
    assert len(notices) == 1 and "'run_shell'" in notices[0] and "the model chooses" in notices[0]
    model.build_body(ask(model, read_file))
    assert len(notices) == 1  # once, not at every request


def test_openai_forced_tool_offered_is_still_forced() -> None:
    notices: list[str] = []
    model = OpenAIModel("m", base_url="http://h/v1", options=FORCED, on_notice=notices.append)
    body = model.build_body(ask(model, read_file, run_shell))
    assert body["tool_choice"] == {"type": "function", "function": {"name": "run_shell"}}
    assert notices == []


def test_a_middlewares_choice_of_a_missing_tool_is_not_sent_either() -> None:
    model = AnthropicModel("m", base_url="http://h", on_notice=lambda _: None)
    request = ask(model, read_file).override(tool_choice="run_shell")
    assert "tool_choice" not in model.build_body(request)


def test_a_call_with_no_tools_says_nothing() -> None:
    """LLMToolSelector's own call carries no tools: no choice is sent, so nothing is said
    (it used up the one notice, and the main call's went unsaid)."""
    notices: list[str] = []
    model = OpenAIModel("m", base_url="http://h/v1", options=FORCED, on_notice=notices.append)
    assert "tool_choice" not in model.build_body(ask(model))
    assert notices == []
    model.build_body(ask(model, read_file))
    assert len(notices) == 1
