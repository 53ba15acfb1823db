"""User messages in a row (a reply that failed before its first word leaves one
without an answer) reach the server as one user turn, because strict chat templates
(Mistral, Gemma, Llama 2 on llama.cpp) refuse two in a row with HTTP 500, and then
refuse every later request of the session the same way. A reply cancelled before its
first word takes its message back instead (Y9): it is not sent at all."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest

from shell.agent import Agent
from shell.core.events import TextBlockStart
from shell.core.messages import AssistantMessage, DataBlock, TextBlock, UserMessage
from shell.core.model import ModelRequest
from shell.providers.ollama import OllamaModel, to_ollama_messages
from shell.providers.openai import OpenAIModel, to_openai_messages

from .helpers import mock_client

pytestmark = pytest.mark.anyio

REPLY = (
    b'data: {"choices": [{"index": 0, "delta": {"content": "Hello"}, "finish_reason": "stop"}]}\n\n'
    b"data: [DONE]\n\n"
)


def roles(body: dict[str, Any]) -> list[str]:
    return [m["role"] for m in body["messages"]]


async def test_after_esc_before_the_first_word_the_next_message_is_sent_alone() -> None:
    seen: list[httpx.Request] = []
    model = OpenAIModel("m", base_url="http://h/v1", api_key="k", client=mock_client(REPLY, seen=seen))
    agent = Agent(model)
    async for event in agent.reply("Write a poem."):
        if isinstance(event, TextBlockStart):
            agent.cancel()  # Esc as the first word arrives: nothing of the reply is kept
    assert agent.messages == []  # withdrawn: the user took the request back
    async for _ in agent.reply("A short one, please."):
        pass
    body = json.loads(seen[1].content)
    users = [m for m in body["messages"] if m["role"] == "user"]
    assert roles(body)[-1] == "user" and len(users) == 1
    assert users[0]["content"] == "A short one, please."  # not glued to the withdrawn one
    assert isinstance(agent.messages[-1], AssistantMessage)
    said = [m.text for m in agent.messages if isinstance(m, UserMessage)]
    assert said == ["A short one, please."]


def test_ollama_merges_too_and_keeps_every_image() -> None:
    png = DataBlock("image/png", b"\x89PNG")
    request = ModelRequest(
        model=OllamaModel("m"),
        messages=(UserMessage((TextBlock("look"), png)), UserMessage((TextBlock("and this"), png))),
    )
    (merged,) = to_ollama_messages(request)
    assert merged["content"] == "look\n\nand this" and len(merged["images"]) == 2


def test_content_parts_are_concatenated_and_other_roles_untouched() -> None:
    png = DataBlock("image/png", b"\x89PNG")
    request = ModelRequest(
        model=None,  # type: ignore[arg-type]
        messages=(
            UserMessage("first"),
            UserMessage((TextBlock("see"), png)),
            AssistantMessage((TextBlock("I see."),)),
            UserMessage("next"),
        ),
    )
    out = to_openai_messages(request)
    assert [m["role"] for m in out] == ["user", "assistant", "user"]
    parts = out[0]["content"]
    assert [p["type"] for p in parts] == ["text", "text", "text", "image_url"]
    assert [p.get("text") for p in parts[:3]] == ["first", "\n\n", "see"]
    assert out[2] == {"role": "user", "content": "next"}
