"""Large tool results are held as UTF-8 bytes, and nobody can tell: the model is sent
the same text, hooks read the same ``str``, sessions save and resume it exactly,
and the front end shares the history's copy instead of holding its own."""

from __future__ import annotations

import copy
import dataclasses
import json
import pickle
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from middleware.base import Middleware
from shell.agent import Agent, AssistantMessage, ToolCallBlock
from shell.core.messages import Message, TextBlock, ToolResult, ToolResultMessage, result_length
from shell.core.packed_text import PACK_MIN_CHARS, PackedText, pack, stored, unpack
from shell.core.tools import tool
from shell.frontend.reply import ReplyState
from shell.providers.anthropic import to_anthropic_messages
from shell.providers.openai import to_openai_messages
from shell.providers.scripted import ScriptedModel
from shell.sessions import SessionRecorder, SessionStore, load_session, resume
from shell.sessions.redact import NO_REDACTION

# README-like: mostly ASCII, one wide character (2 bytes a character as a str), and a
# lone surrogate (what a file name read with surrogateescape may carry).
LARGE = ("line of text ≤ 50 KB \udcff\n" * 3000)[: PACK_MIN_CHARS * 8]
SMALL = "small ≤ result"
CJK = "漢字のテキスト" * 3000  # UTF-8 would be larger than the str: kept a str
SAVED = LARGE.replace("\udcff", "—")  # session files are UTF-8: a lone surrogate is saved as U+FFFD


@tool(read_only=True)
async def big(which: str) -> str:
    """Return a large or a small text."""
    return {"large": LARGE, "small": SMALL, "cjk": CJK, "saved": SAVED}[which]


def _calls(*which: str) -> AssistantMessage:
    return AssistantMessage(tuple(ToolCallBlock(f"c_{w}", "big", {"which": w}) for w in which))


class Seen(Middleware):
    """Records what the hooks are given, as a middleware author would read it."""

    def __init__(self) -> None:
        self.tool_results: list[Any] = []
        self.history: list[Any] = []
        self.turn_results: list[Any] = []

    async def after_tool_call(self, ctx: Any, result: ToolResult) -> None:
        self.tool_results.append(result.content)

    async def transform_context(self, ctx: Any, messages: list[Message]) -> list[Message]:
        self.history.extend(m.content for m in messages if isinstance(m, ToolResultMessage))
        return messages

    async def after_turn(self, ctx: Any, results: Any) -> None:
        self.turn_results.extend(outcome.result.content for outcome in results)


async def _reply(agent: Agent, state: ReplyState | None = None) -> None:
    async for event in agent.reply("go"):
        if state is not None:
            state.apply(event)


@pytest.mark.anyio
async def test_the_model_is_sent_every_result_exactly_as_the_tool_returned_it() -> None:
    model = ScriptedModel([_calls("large", "small", "cjk"), "done"])
    agent = Agent(model, tools=[big])
    await _reply(agent)
    request = model.requests[-1]
    openai = {m["tool_call_id"]: m["content"] for m in to_openai_messages(request) if m["role"] == "tool"}
    assert openai == {"c_large": LARGE, "c_small": SMALL, "c_cjk": CJK}
    _, anthropic = to_anthropic_messages(request)
    sent = json.dumps(anthropic, ensure_ascii=False)
    assert json.dumps(LARGE, ensure_ascii=False)[1:-1] in sent
    # under the threshold (or where bytes save nothing) the history holds the tool's own str
    results = {m.call_id: m for m in agent.messages if isinstance(m, ToolResultMessage)}
    assert type(stored(results["c_small"], "content")) is str
    assert type(stored(results["c_cjk"], "content")) is str
    packed = stored(results["c_large"], "content")
    assert isinstance(packed, PackedText) and len(packed.data) < sys.getsizeof(LARGE) * 0.6
    assert [result_length(r) for r in results.values()] == [len(LARGE), len(SMALL), len(CJK)]


@pytest.mark.anyio
async def test_hooks_read_plain_strings_equal_to_the_result() -> None:
    seen = Seen()
    agent = Agent(ScriptedModel([_calls("large"), "done"]), tools=[big], middleware=[seen])
    await _reply(agent)
    for texts in (seen.tool_results, seen.history, seen.turn_results):
        assert texts == [LARGE] and type(texts[0]) is str


def test_a_packed_message_behaves_as_the_dataclass_it_is() -> None:
    message = ToolResultMessage("c1", "big", LARGE)
    assert isinstance(stored(message, "content"), PackedText)
    assert message == ToolResultMessage("c1", "big", LARGE) and message.text == LARGE
    assert hash(message) == hash(ToolResultMessage("c1", "big", LARGE))
    assert message != ToolResultMessage("c1", "big", LARGE + "x")
    edited = dataclasses.replace(message, is_error=True)
    assert edited.content == LARGE and edited.is_error
    assert dataclasses.replace(message, content="short").content == "short"
    assert pickle.loads(pickle.dumps(message)) == message == copy.deepcopy(message)
    with pytest.raises(dataclasses.FrozenInstanceError):
        message.content = "changed"  # type: ignore[misc]


@given(st.text(max_size=200))
def test_any_text_round_trips(text: str) -> None:
    """Any characters (astral, surrogates, NUL) in a large, mostly-ASCII text."""
    wide = text + "≤" + "a" * PACK_MIN_CHARS + text
    message = ToolResultMessage("c", "t", wide)
    assert isinstance(stored(message, "content"), PackedText)
    assert message.content == wide and unpack(pack(wide)) == wide
    assert unpack(pack(text)) is text  # short: kept as it is


@pytest.mark.anyio
async def test_the_front_end_shares_the_historys_copy() -> None:
    state = ReplyState()
    agent = Agent(ScriptedModel([_calls("large"), "done"]), tools=[big])
    await _reply(agent, state)
    call = state.calls["c_large"]
    assert call.result == LARGE and call.first_result_line() == "line of text ≤ 50 KB \udcff"
    message = next(m for m in agent.messages if isinstance(m, ToolResultMessage))
    assert stored(call, "result") is stored(message, "content")  # one copy, not two


@pytest.mark.anyio
async def test_a_session_saves_and_resumes_large_results_exactly(tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AGENT_SHELL_DATA_DIR", str(tmp_path / "data"))
    store = SessionStore()
    agent = Agent(ScriptedModel([_calls("saved", "small"), "done"]), tools=[big])
    with SessionRecorder(store, agent, redactor=NO_REDACTION) as rec:
        async for _ in rec.record(agent.reply("go")):
            pass
    loaded = load_session(rec.path)
    assert loaded.messages == agent.messages and not loaded.problems
    again_model = ScriptedModel(["more"])
    again = Agent(again_model, tools=[big])
    resume(again, loaded)
    result = next(m for m in again.messages if isinstance(m, ToolResultMessage) and m.call_id == "c_saved")
    assert isinstance(stored(result, "content"), PackedText) and result.content == SAVED
    await _reply(again)
    sent = {m["tool_call_id"]: m["content"] for m in to_openai_messages(again_model.requests[-1])
            if m["role"] == "tool"}
    assert sent == {"c_saved": SAVED, "c_small": SMALL}


@dataclasses.dataclass(frozen=True)
class MyResult(ToolResult):
    """A user's own result class (not slotted, one more field)."""

    source: str = "mine"


@tool(read_only=True)
async def mine() -> MyResult:
    """Return a large result of a subclass."""
    return MyResult(LARGE, source="disk")


@pytest.mark.anyio
async def test_a_subclassed_result_is_packed_and_keeps_its_fields() -> None:
    seen = Seen()
    state = ReplyState()
    model = ScriptedModel([AssistantMessage((ToolCallBlock("c1", "mine", {}),)), "done"])
    agent = Agent(model, tools=[mine], middleware=[seen])
    async for event in agent.reply("go"):
        state.apply(event)
    assert seen.tool_results == seen.turn_results == [LARGE] and state.calls["c1"].result == LARGE
    assert isinstance(stored(state.calls["c1"], "result"), PackedText)
    sent = [m["content"] for m in to_openai_messages(model.requests[-1]) if m["role"] == "tool"]
    assert sent == [LARGE]


@tool(read_only=True)
async def shot() -> ToolResult:
    """Return what an MCP tool returns: text blocks next to an image (the MCP client's
    own conversion of a real SDK result)."""
    from mcp.types import CallToolResult, ImageContent, TextContent

    from shell.tools.mcp_results import convert_result

    png = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
    result = CallToolResult(content=[TextContent(type="text", text=LARGE[:25_000]),
                                     ImageContent(type="image", data=png, mimeType="image/png")])
    return convert_result(result, server="srv", tool="shot")


@pytest.mark.anyio
async def test_an_mcp_result_of_blocks_has_its_large_text_packed() -> None:
    """A result of blocks (text and an image) was held as it came: 50 KB for 25,000
    characters with one wide one, where a plain text result of the same is packed."""
    seen = Seen()
    state = ReplyState()
    model = ScriptedModel([AssistantMessage((ToolCallBlock("c_shot", "shot", {}),)), "done"])
    agent = Agent(model, tools=[shot], middleware=[seen])
    await _reply(agent, state)
    message = next(m for m in agent.messages if isinstance(m, ToolResultMessage))
    blocks = message.content
    assert not isinstance(blocks, str)
    assert [type(b).__name__ for b in blocks] == ["PackedTextBlock", "DataBlock"]
    assert isinstance(blocks[0], TextBlock) and blocks[0] == TextBlock(LARGE[:25_000])
    text = blocks[0]
    packed = stored(text, "text")
    assert isinstance(packed, PackedText) and len(packed.data) < sys.getsizeof(LARGE[:25_000]) * 0.6
    assert text.text == LARGE[:25_000] and type(text.text) is str  # read as the same str
    assert seen.tool_results[0][0].text == LARGE[:25_000]  # hooks read it before it was packed
    sent = json.dumps(to_anthropic_messages(model.requests[-1])[1], ensure_ascii=False)
    assert json.dumps(LARGE[:25_000], ensure_ascii=False)[1:-1] in sent
    assert state.calls["c_shot"].result.startswith(LARGE[:100])
    assert pickle.loads(pickle.dumps(message)) == message


def test_only_a_packed_text_block_reads_through_the_descriptor() -> None:
    """Every text block of every reply was read through the packed field's descriptor
    (~1.3 us a read instead of ~0.17; a provider reads each one per request): now a
    block turns into a PackedTextBlock only when its text is packed, and both compare,
    hash, copy, replace and pickle as the same block."""
    from shell.core.messages import PackedTextBlock

    assert type(TextBlock.__dict__["text"]).__name__ == "member_descriptor"  # a plain slot
    small, large = TextBlock(SMALL), TextBlock(LARGE)
    result = ToolResult((small, large))
    compact_result = ToolResultMessage("c", "t", result.content)  # entering the history packs
    kept_small, packed = compact_result.content  # type: ignore[misc]
    assert type(kept_small) is TextBlock and type(packed) is PackedTextBlock and packed is large
    assert isinstance(stored(packed, "text"), PackedText) and packed.text == LARGE
    assert packed == TextBlock(LARGE) and TextBlock(LARGE) == packed
    assert hash(packed) == hash(TextBlock(LARGE))
    assert packed != TextBlock(SMALL) and packed != LARGE
    assert dataclasses.replace(packed, text="x") == TextBlock("x")
    assert copy.deepcopy(packed) == packed and pickle.loads(pickle.dumps(packed)).text == LARGE
    assert {packed: 1}[TextBlock(LARGE)] == 1
