"""Finding X3: an MCP server's answer dropped the run's known keys only as written and
block by block. A key cut over two text blocks (OpenAI's API joins them: the provider
gets it whole), base64-, hex-encoded or reversed, in a ``text/plain`` resource blob, in a
resource link's URI or cut over structured content's keys reached the model; a key in
a tool's description or its parameter's description went to the provider with every
request. A real stdio server (tests/tools/spelled_mcp_server.py) says them all."""

from __future__ import annotations

import base64
import json
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest

from shell.core.messages import DataBlock, TextBlock, ToolResult
from shell.tools import mcp_redaction
from shell.tools.mcp import McpManager

from .conftest import Recorder

SERVER = Path(__file__).with_name("spelled_mcp_server.py")
KEY = "sk-test-OUTERKEY0123456789abcdefgh"


@pytest.fixture(autouse=True)
def known_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(mcp_redaction, "known_secret_values", lambda: frozenset({KEY}))


def spellings(text: str) -> list[str]:
    raw = KEY.encode()
    return [s for s in (KEY, KEY[:16], KEY[16:], base64.b64encode(raw).decode(), raw.hex(), KEY[::-1])
            if s in text]


def everything(result: ToolResult) -> str:
    parts = [result.content] if isinstance(result.content, str) else [
        b.text if isinstance(b, TextBlock) else b.data.decode("latin-1") for b in result.content]
    return "".join(parts) + json.dumps(result.details)


@pytest.mark.anyio
@pytest.mark.slow
async def test_a_servers_key_in_any_spelling_reaches_neither_model_nor_provider(recorder: Recorder) -> None:
    spec = {"command": sys.executable, "args": [str(SERVER)], "env": {"MY_API_KEY": KEY}}
    mcp = McpManager({"spelled": spec}, connect_timeout=60)
    await mcp.__aenter__()
    try:
        await mcp.wait_settled(90)
        tools = {t.name: t for t in mcp.tools()}
        leak, plain = tools["spelled__leak"], tools["spelled__plain"]
        offered = leak.description + json.dumps(leak.parameters)
        assert spellings(offered) == [] and "[REDACTED]" in leak.description
        assert plain.description == "answers plainly"
        with anyio.fail_after(60):
            result = await leak.run({"x": "1"}, recorder.context(leak.name, {}))
            ordinary = await plain.run({}, recorder.context(plain.name, {}))
        seen = everything(result)
        assert spellings(seen) == [], seen
        assert base64.b64encode(b"BLOB " + KEY.encode()).decode() not in seen
        assert not any(isinstance(b, DataBlock) for b in result.content)  # the text blob is read as text
        assert "kept line" in seen  # the lines around a withheld one are kept
        assert "this run's own keys" in seen and "were redacted from this result" in seen
        assert ordinary.text.startswith("A:half\nother:B\nB64:")  # nothing known: as the server sent it
        assert "redacted" not in everything(ordinary)
    finally:
        await mcp.__aexit__(None, None, None)


def test_a_key_cut_over_text_blocks_is_redacted_in_each() -> None:
    cut = ToolResult((TextBlock("A:" + KEY[:10]), TextBlock(KEY[10:] + ":B")), details={})
    out = mcp_redaction.without_known_secrets(cut)
    texts = [b.text for b in out.content if isinstance(b, TextBlock)]
    assert texts[:2] == ["A:[REDACTED]", "[REDACTED]:B"]
    assert texts[2].startswith("[agent-shell: 1 value of this run's own keys")


def test_structured_content_cut_over_its_keys_is_withheld() -> None:
    result = ToolResult("ok", details={"structured": {"a": KEY[:12], "b": KEY[12:]}, "server": "s"})
    out = mcp_redaction.without_known_secrets(result)
    assert out.details is not None and spellings(json.dumps(out.details)) == []
    assert out.details["server"] == "s" and "redacted" in str(out.content)


def test_ordinary_answers_pass_as_they_are() -> None:
    samples: list[Any] = [
        ToolResult((TextBlock("sk-test-"), TextBlock("OUTER and more")), details={"structured": {"a": "sk"}}),
        ToolResult("aGVsbG8gd29ybGQsIHBsYWlubHk= 68656c6c6f20776f726c64 dlrow olleh", details=None),
        ToolResult((TextBlock("[resource file:///x.txt, text/plain, 11 bytes]"),
                    DataBlock("text/plain", b"hello world")), details=None),
    ]
    for result in samples:
        assert mcp_redaction.without_known_secrets(result) is result
