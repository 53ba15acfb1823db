"""Tool-call ids another provider made reach OpenAI and Anthropic in a form their APIs
take (finding Y11), checked on the bodies aimock received.

A llama.cpp id is 61 characters (OpenAI's API refuses more than 40) and Kimi's
"functions.get_weather:1" breaks Anthropic's ^[a-zA-Z0-9_-]+$: after /model,
--continue onto another provider or a ModelFallback, every later request of the
session was refused. aimock does not check ids itself; the rules are asserted here.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from shell.core.messages import (
    AssistantMessage,
    Message,
    TextBlock,
    ToolCallBlock,
    ToolResultMessage,
    UserMessage,
)
from shell.core.model import ModelRequest
from shell.providers.anthropic import AnthropicModel
from shell.providers.base import HTTPProvider
from shell.providers.openai import OpenAIModel
from tests.aimock import run_aimock

from .helpers import Assembled

FIXTURES = Path(__file__).parent / "aimock_fixtures.json"
LLAMA_ID = "call__0_run_shell_cmpl-05eca141-68ab-498a-9b7a-1afb2d49f12e"
KIMI_ID = "functions.get_weather:1"
OPENAI_ID = "call_abc123"


@pytest.fixture(scope="module")
def aimock() -> Iterator[str]:
    with run_aimock(FIXTURES) as url:
        yield url


def history(*ids: str) -> tuple[Message, ...]:
    """A turn that called get_weather once per id, each with its result."""
    calls = tuple(ToolCallBlock(i, "get_weather", {"city": f"c{n}"}) for n, i in enumerate(ids))
    results = tuple(ToolResultMessage(i, "get_weather", f"r{n}") for n, i in enumerate(ids))
    asked = AssistantMessage((TextBlock("Checking."), *calls))
    return (UserMessage("weather in two cities"), asked, *results)


async def sent_body(url: str, model: HTTPProvider, messages: tuple[Message, ...]) -> dict[str, Any]:
    """Stream one request (it must succeed) and return the body aimock recorded."""
    async with httpx.AsyncClient() as client:
        await client.delete(f"{url}/__aimock/journal")
        got = Assembled([c async for c in model.stream(ModelRequest(model=model, messages=messages))])
        assert got.text == "Paris is sunny and London is rainy."
        journal = (await client.get(f"{url}/__aimock/journal")).json()
    body: dict[str, Any] = journal[-1]["body"]
    return body


def sent_ids(body: dict[str, Any]) -> tuple[list[str], list[str]]:
    """The call ids and the result ids, in order (aimock's journal records an
    Anthropic body in chat-completions form too)."""
    calls = [c["id"] for m in body["messages"] for c in m.get("tool_calls", ())]
    results = [m["tool_call_id"] for m in body["messages"] if m["role"] == "tool"]
    return calls, results


@pytest.mark.anyio
async def test_openai_gets_ids_of_at_most_40_characters(aimock: str) -> None:
    model = OpenAIModel("gpt-4o", base_url=f"{aimock}/v1", api_key="test")
    messages = history(LLAMA_ID, KIMI_ID, OPENAI_ID)
    calls, results = sent_ids(await sent_body(aimock, model, messages))
    assert all(len(i) <= 40 for i in calls)
    assert calls == results and len(set(calls)) == 3  # each result answers its call
    assert calls[1:] == [KIMI_ID, OPENAI_ID]  # ids OpenAI takes go as they are
    again, _ = sent_ids(await sent_body(aimock, model, messages))
    assert again == calls  # the same form in every request


@pytest.mark.anyio
async def test_anthropic_gets_ids_that_match_its_pattern(aimock: str) -> None:
    model = AnthropicModel("claude-sonnet-4-5", base_url=aimock, api_key="test")
    messages = history(KIMI_ID, LLAMA_ID, OPENAI_ID)
    calls, results = sent_ids(await sent_body(aimock, model, messages))
    assert all(re.fullmatch(r"[A-Za-z0-9_-]{1,64}", i) for i in calls)
    assert calls == results and len(set(calls)) == 3
    assert calls[1:] == [LLAMA_ID, OPENAI_ID]
    again, _ = sent_ids(await sent_body(aimock, model, messages))
    assert again == calls


def test_the_history_keeps_the_ids_it_had() -> None:
    from shell.providers.anthropic import to_anthropic_messages
    from shell.providers.openai import to_openai_messages

    messages = history(KIMI_ID)
    request = ModelRequest(model=OpenAIModel("gpt-4o", api_key="test"), messages=messages)
    to_openai_messages(request)
    to_anthropic_messages(request)
    assert messages == history(KIMI_ID)


def test_an_id_that_copies_a_mapped_one_does_not_collide() -> None:
    """A model that wrote the very id another id is sent as gets a third form: two
    calls never share an id in one request."""
    from shell.providers.call_ids import ANTHROPIC_IDS, CallIds, mapped

    ids = CallIds(ANTHROPIC_IDS)
    first = ids.wire(KIMI_ID)
    assert first == mapped(KIMI_ID)
    copied = ids.wire(mapped(KIMI_ID))
    assert copied != first and ANTHROPIC_IDS.takes(copied)
    assert ids.wire(KIMI_ID) == first and ids.wire(mapped(KIMI_ID)) == copied


GPT_OSS_NAME = "repo_browser.open_file"
HOSTILE_NAME = "evil\x1b]52;c;aGk=\x07\u202ename"


def named_history(*names: str) -> tuple[Message, ...]:
    """A turn whose calls the model named ``names`` (each answered, as the loop
    answers a tool it does not know, with an error result)."""
    calls = tuple(ToolCallBlock(f"call_{n}", name, {"path": "app.py"}) for n, name in enumerate(names))
    results = tuple(
        ToolResultMessage(f"call_{n}", name, f"Unknown tool {name!r}", is_error=True)
        for n, name in enumerate(names)
    )
    asked = AssistantMessage((TextBlock("Checking."), *calls))
    return (UserMessage("weather in two cities"), asked, *results)


def sent_names(body: dict[str, Any]) -> list[str]:
    return [c["function"]["name"] for m in body["messages"] for c in m.get("tool_calls", ())]


@pytest.mark.anyio
@pytest.mark.parametrize("provider", ["openai", "anthropic"])
async def test_a_tool_name_the_api_refuses_is_sent_in_a_form_it_takes(aimock: str, provider: str) -> None:
    """Finding B6: gpt-oss's "repo_browser.open_file" (or a name with ESC and U+202E)
    stayed in the history as written, and OpenAI's API refused every later request
    of the session (400 "function.name: string does not match pattern")."""
    model: HTTPProvider = (
        OpenAIModel("gpt-4o", base_url=f"{aimock}/v1", api_key="test")
        if provider == "openai"
        else AnthropicModel("claude-sonnet-4-5", base_url=aimock, api_key="test")
    )
    messages = named_history(GPT_OSS_NAME, HOSTILE_NAME, "get_weather")
    names = sent_names(await sent_body(aimock, model, messages))
    assert all(re.fullmatch(r"[A-Za-z0-9_-]{1,64}", n) for n in names), names
    assert names[0].startswith("repo_browser_open_file_") and names[1].startswith("evil_52_c_aGk_name_")
    assert names[2] == "get_weather"  # a name the API takes goes as it is
    assert sent_names(await sent_body(aimock, model, messages)) == names  # the same in every request
    assert messages == named_history(GPT_OSS_NAME, HOSTILE_NAME, "get_weather")  # the history is untouched


def test_a_mapped_name_is_never_a_real_tool_name_by_accident() -> None:
    """Two names that differ only in the characters replaced get different forms;
    a name too long for the APIs is cut and still told apart."""
    from shell.providers.call_ids import wire_name

    assert wire_name("a.b") != wire_name("a/b") != wire_name("a_b") == "a_b"
    long_a, long_b = "x" * 70 + "a", "x" * 70 + "b"
    assert len(wire_name(long_a)) <= 64 and wire_name(long_a) != wire_name(long_b)
    assert re.fullmatch(r"[A-Za-z0-9_-]{1,64}", wire_name(""))
