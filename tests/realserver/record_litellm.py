"""Record LiteLLM's streams (OpenAI and Anthropic ``/v1/messages`` fronts, in front
of llama-cpp-python serving SmolLM2) into ``tests/providers/fixtures/litellm/``.

Run by hand, once, when LiteLLM's behaviour needs capturing again::

    # a llama server and a LiteLLM proxy in front of it (see README "Local models"):
    python -m tests.realserver.record_litellm http://127.0.0.1:4000 sk-local-master-key

The tests replay the recorded bodies byte for byte from a local HTTP server, so CI
needs no LiteLLM (its proxy extra is ~120 packages, 740 MB). Each scenario's
request mirrors one agent-shell sends (or sent, before a fix) so the recording is
what a user of that version met.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import httpx

from .tee import TeeProxy

OUT = Path(__file__).resolve().parent.parent / "providers" / "fixtures" / "litellm"
MODEL = "smollm2"
TIME_TOOL = {
    "name": "get_time",
    "description": "The current time in a city.",
    "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
}
NOTE_TOOL = {
    "name": "write_note",
    "description": "Save a short note for the user.",
    "parameters": {
        "type": "object",
        "properties": {"title": {"type": "string"}, "text": {"type": "string"}},
        "required": ["title", "text"],
    },
}
LONG = "Summarise this: " + " ".join(f"word{i}" for i in range(3000))


def openai_tools(*tools: dict[str, Any]) -> list[dict[str, Any]]:
    return [{"type": "function", "function": t} for t in tools]


def anthropic_tools(*tools: dict[str, Any]) -> list[dict[str, Any]]:
    return [
        {"name": t["name"], "description": t["description"], "input_schema": t["parameters"]} for t in tools
    ]


def chat(messages: list[dict[str, Any]], **extra: Any) -> dict[str, Any]:
    body = {"model": MODEL, "messages": messages, "stream": True, "stream_options": {"include_usage": True}}
    body.update(max_tokens=40, temperature=0.0)
    body.update(extra)
    return body


def messages(msgs: list[dict[str, Any]], **extra: Any) -> dict[str, Any]:
    body = {"model": MODEL, "messages": msgs, "stream": True, "max_tokens": 40, "temperature": 0.0}
    body.update(extra)
    return body


PARIS_CALL = {
    "id": "call_1",
    "type": "function",
    "function": {"name": "get_time", "arguments": '{"city": "Paris"}'},
}

SCENARIOS: list[tuple[str, str, dict[str, Any]]] = [
    (
        "openai_text",
        "/v1/chat/completions",
        chat(
            [
                {"role": "system", "content": "You are a helpful assistant."},
                {"role": "user", "content": "Say hello in five words."},
            ]
        ),
    ),
    (
        "openai_forced_tool",
        "/v1/chat/completions",
        chat(
            [{"role": "user", "content": "What time is it in Paris?"}],
            tools=openai_tools(TIME_TOOL),
            tool_choice={"type": "function", "function": {"name": "get_time"}},
        ),
    ),
    (
        "openai_tool_result",
        "/v1/chat/completions",
        chat(
            [
                {"role": "user", "content": "What time is it in Paris?"},
                {"role": "assistant", "content": "", "tool_calls": [PARIS_CALL]},
                {"role": "tool", "tool_call_id": "call_1", "content": "14:05"},
            ],
            tools=openai_tools(TIME_TOOL),
        ),
    ),
    (
        "openai_tool_result_null_content",
        "/v1/chat/completions",
        chat(
            [
                {"role": "user", "content": "What time is it in Paris?"},
                {"role": "assistant", "content": None, "tool_calls": [PARIS_CALL]},
                {"role": "tool", "tool_call_id": "call_1", "content": "14:05"},
            ],
            tools=openai_tools(TIME_TOOL),
        ),
    ),
    ("openai_context_overflow", "/v1/chat/completions", chat([{"role": "user", "content": LONG}])),
    (
        "anthropic_text",
        "/v1/messages",
        messages(
            [{"role": "user", "content": "Say hello in five words."}], system="You are a helpful assistant."
        ),
    ),
    (
        "anthropic_text_blocks",
        "/v1/messages",
        messages(
            [{"role": "user", "content": [{"type": "text", "text": "Say hello in five words."}]}],
            system=[{"type": "text", "text": "You are a helpful assistant."}],
        ),
    ),
    (
        "anthropic_forced_tool",
        "/v1/messages",
        messages(
            [
                {
                    "role": "user",
                    "content": "Write a note titled Shopping that lists milk, eggs, bread and apples.",
                }
            ],
            max_tokens=80,
            tools=anthropic_tools(NOTE_TOOL),
            tool_choice={"type": "tool", "name": "write_note"},
        ),
    ),
    (
        "anthropic_tool_result",
        "/v1/messages",
        messages(
            [
                {"role": "user", "content": "What time is it in Paris?"},
                {
                    "role": "assistant",
                    "content": [
                        {"type": "tool_use", "id": "call_1", "name": "get_time", "input": {"city": "Paris"}}
                    ],
                },
                {
                    "role": "user",
                    "content": [{"type": "tool_result", "tool_use_id": "call_1", "content": "14:05"}],
                },
            ],
            tools=anthropic_tools(TIME_TOOL),
        ),
    ),
    ("anthropic_context_overflow", "/v1/messages", messages([{"role": "user", "content": LONG}])),
]


def main(upstream: str, key: str) -> None:
    with TeeProxy(upstream) as tee:
        for name, path, body in SCENARIOS:
            headers = {"Authorization": f"Bearer {key}", "x-api-key": key, "anthropic-version": "2023-06-01"}
            with httpx.Client(timeout=httpx.Timeout(10.0, read=300.0)) as client:
                response = client.post(tee.url + path, json=body, headers=headers)
            for written in tee.save(OUT, name):
                print(
                    f"{written.relative_to(OUT.parent.parent.parent.parent)}: HTTP {response.status_code}, "
                    f"{len(written.read_bytes())} bytes"
                )
    print(json.dumps({"recorded": len(SCENARIOS), "into": str(OUT)}))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
