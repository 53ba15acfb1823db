"""An editor switches the model to a cloud API whose key is not set (round 21, E18):
the switch was accepted without a word and the next prompt failed with a JSON-RPC
error of "the reply failed", the reason only in the transcript. The next reply now
starts by saying the key is missing, and the error's message carries the reason."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from acp import RequestError
from acp.schema import TextContentBlock

from .conftest import EditorClient, Spawn

pytestmark = pytest.mark.anyio


async def test_a_model_without_its_key_is_said_and_the_error_names_it(
    spawn: Spawn, script: Any, workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    client = EditorClient()
    async with spawn(client, "--model", script(["Hello."])) as conn:
        session = await conn.new_session(cwd=str(workspace), mcp_servers=[])
        await conn.set_config_option(config_id="model", session_id=session.session_id, value="openai:gpt-4o")
        hi = [TextContentBlock(type="text", text="hi")]
        with pytest.raises(RequestError) as failed:
            await conn.prompt(session_id=session.session_id, prompt=hi)
    assert "OPENAI_API_KEY" in str(failed.value)
    assert "the next message will fail until it is set" in client.text()
