"""The codec round-trips every message and block type and reads newer files leniently."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from shell.core.messages import (
    AssistantMessage,
    DataBlock,
    HintBlock,
    Message,
    SystemMessage,
    TextBlock,
    ThinkingBlock,
    ToolCallBlock,
    ToolResultMessage,
    Usage,
    UserMessage,
)
from shell.sessions.codec import CodecError, message_from_dict, message_to_dict

EVERY_KIND: list[Message] = [
    SystemMessage("be brief"),
    UserMessage("hi"),
    UserMessage((TextBlock("look"), DataBlock("image/png", b"\x89PNG\x00\xff"), HintBlock("hint"))),
    AssistantMessage(
        (
            ThinkingBlock("hmm", signature="sig=="),
            ThinkingBlock("no signature"),
            ThinkingBlock("", signature="ENCRYPTED==", redacted=True),
            TextBlock("ok"),
            ToolCallBlock("c1", "read", {"path": "a.txt", "n": [1, 2, {"x": None}]}),
            DataBlock("audio/wav", bytes(range(256))),
            HintBlock("budget: 3 rounds left"),
        ),
        Usage(10, 20, 3, 4),
        "tool_use",
    ),
    AssistantMessage(),
    ToolResultMessage("c1", "read", "contents", False),
    ToolResultMessage("c2", "shot", (TextBlock("see"), DataBlock("image/jpeg", b"\x00\x01")), True),
]


def through_json(message: Message) -> Message:
    return message_from_dict(json.loads(json.dumps(message_to_dict(message))))


@pytest.mark.parametrize("message", EVERY_KIND, ids=lambda m: type(m).__name__)
def test_round_trip_of_every_kind(message: Message) -> None:
    assert through_json(message) == message


def test_bytes_are_base64_and_unknown_fields_are_ignored() -> None:
    d = message_to_dict(AssistantMessage((DataBlock("audio/wav", b"\x00\x01"),)))
    assert d["content"][0]["data"] == "AAE="
    d["future_field"] = {"x": 1}
    d["content"][0]["loudness"] = 0.5
    d["usage"]["reasoning_tokens"] = 7
    assert message_from_dict(d) == AssistantMessage((DataBlock("audio/wav", b"\x00\x01"),))


def test_unknown_block_types_are_dropped_and_reported() -> None:
    d = {"role": "assistant", "content": [{"type": "text", "text": "a"}, {"type": "hologram", "x": 1}]}
    problems: list[str] = []
    assert message_from_dict(d, problems) == AssistantMessage((TextBlock("a"),))
    assert problems and "hologram" in problems[0]
    with pytest.raises(CodecError):
        message_from_dict(d)


@pytest.mark.parametrize(
    "bad",
    [None, [], {"role": "wizard"}, {"role": "user"}, {"role": "tool", "name": "x"},
     {"role": "assistant", "content": "text"}, {"role": "system", "text": 3},
     {"role": "assistant", "content": [{"type": "data", "media_type": "a/b", "data": "!!"}]}],
)
def test_malformed_messages_raise_codec_error(bad: Any) -> None:
    with pytest.raises(CodecError):
        message_from_dict(bad)


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(),
    lambda children: st.lists(children, max_size=3) | st.dictionaries(st.text(), children, max_size=3),
    max_leaves=8,
)
blocks = st.one_of(
    st.builds(TextBlock, st.text()),
    st.builds(ThinkingBlock, st.text(), st.none() | st.text()),
    st.builds(ToolCallBlock, st.text(), st.text(), st.dictionaries(st.text(), json_values, max_size=3)),
    st.builds(DataBlock, st.text(), st.binary()),
    st.builds(HintBlock, st.text()),
)
usages = st.builds(Usage, *[st.integers(0, 10**9)] * 4)
messages = st.one_of(
    st.builds(SystemMessage, st.text()),
    st.builds(UserMessage, st.text() | st.tuples(blocks, blocks)),
    st.builds(AssistantMessage, st.lists(blocks, max_size=4).map(tuple), usages, st.text()),
    st.builds(
        ToolResultMessage, st.text(), st.text(),
        st.text() | st.lists(st.builds(TextBlock, st.text()) | st.builds(DataBlock, st.text(), st.binary()),
                             max_size=3).map(tuple),
        st.booleans(),
    ),
)


@settings(max_examples=200, deadline=None)
@given(messages)
def test_round_trip_of_generated_messages(message: Message) -> None:
    assert through_json(message) == message
