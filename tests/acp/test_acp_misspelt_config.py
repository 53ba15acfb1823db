"""An editor's user is told of a misspelt config key too (finding B10): the start-up
problems reach the editor with the first reply, one line a key."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from acp.schema import TextContentBlock

from .conftest import EditorClient, Spawn

pytestmark = pytest.mark.anyio

MISSPELT = '[permisions]\nallow = ["read_file"]\n[permissions]\nallwo = ["read_file"]\n'


def _write_config(acp_env: dict[str, str], text: str = MISSPELT) -> None:
    config = Path(acp_env["AGENT_SHELL_CONFIG_DIR"])
    config.mkdir(parents=True, exist_ok=True)
    (config / "config.toml").write_text(text)


async def test_a_misspelt_key_reaches_the_editor(
    spawn: Spawn, script: Any, workspace: Path, acp_env: dict[str, str]
) -> None:
    _write_config(acp_env)
    client = EditorClient()
    async with spawn(client, "--model", script(["Fine."])) as conn:
        session = await conn.new_session(cwd=str(workspace), mcp_servers=[])
        reply = await conn.prompt(
            session_id=session.session_id, prompt=[TextContentBlock(type="text", text="hi")]
        )
    assert reply.stop_reason == "end_turn"
    text = client.text()
    assert text.count("unknown key `permisions` is ignored; did you mean `permissions`?") == 1, text
    assert text.count("unknown key `allwo` under [permissions] is ignored; did you mean `allow`?") == 1, text


async def test_a_misspelt_deny_list_refuses_the_session(
    spawn: Spawn, script: Any, workspace: Path, acp_env: dict[str, str]
) -> None:
    """Finding E11: a deny rule under a misspelt key is not skipped in an editor either."""
    from acp import RequestError

    _write_config(acp_env, '[permission]\ndeny = ["run_shell(rm:*)"]\n')
    async with spawn(EditorClient(), "--model", script(["Fine."])) as conn:
        with pytest.raises(RequestError) as caught:
            await conn.new_session(cwd=str(workspace), mcp_servers=[])
    assert "unknown key `permission`" in str(caught.value.data or caught.value)
    assert "rename it to `permissions`" in str(caught.value.data or caught.value)
