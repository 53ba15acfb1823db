"""Switching HumanInTheLoop off in an editor means what it means in the other front
ends: every call that would ask runs unasked (as bypass; deny rules and plan mode
hold). The editor's mode picker must say so, not keep reading "Ask" (finding B13)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from acp.schema import ConfigOptionUpdate, TextContentBlock

from .conftest import EditorClient, Spawn

pytestmark = pytest.mark.anyio

RUN = {"tool_calls": [{"name": "run_shell", "args": {"command": "true"}, "id": "r1"}]}


def prompt_text(text: str) -> list[TextContentBlock]:
    return [TextContentBlock(type="text", text=text)]


def options_by_id(options: Any) -> dict[str, Any]:
    return {o.id: o for o in options}


async def test_approvals_switched_off_are_named_in_the_mode_and_said_before_the_reply(
    spawn: Spawn, script: Any, workspace: Path
) -> None:
    client = EditorClient()
    async with spawn(client, "--model", script([RUN, "Done."])) as conn:
        session = await conn.new_session(cwd=str(workspace), mcp_servers=[])
        before = options_by_id(session.config_options)
        assert "approvals off" not in before["mode"].options[0].name
        gate = before["middleware.HumanInTheLoop"]
        off = next(v for v in gate.options if v.value == "off")
        assert "nothing asks" in off.name  # what Off does, on the value the user picks
        changed = await conn.set_config_option(
            config_id="middleware.HumanInTheLoop", session_id=session.session_id, value="off"
        )
        mode = options_by_id(changed.config_options)["mode"]
        current = next(v for v in mode.options if v.value == mode.current_value)
        assert mode.current_value == "default" and current.name.endswith("approvals off")
        assert "runs unasked" in (mode.description or "")
        await client.wait_for(lambda: any(isinstance(u, ConfigOptionUpdate) for u in client.updates))
        reply = await conn.prompt(session_id=session.session_id, prompt=prompt_text("go"))
    assert reply.stop_reason == "end_turn"
    assert client.permission_requests == []  # off means off ...
    assert "Approvals are off" in client.text()  # ... and the editor was told so


async def test_approvals_switched_back_on_ask_again_and_the_mode_reads_as_before(
    spawn: Spawn, script: Any, workspace: Path
) -> None:
    client = EditorClient()
    client.answer = "allow_once"
    async with spawn(client, "--model", script([RUN, "Done."])) as conn:
        session = await conn.new_session(cwd=str(workspace), mcp_servers=[])
        for value in ("off", "on"):
            changed = await conn.set_config_option(
                config_id="middleware.HumanInTheLoop", session_id=session.session_id, value=value
            )
        mode = options_by_id(changed.config_options)["mode"]
        assert not any("approvals off" in v.name for v in mode.options)
        reply = await conn.prompt(session_id=session.session_id, prompt=prompt_text("go"))
    assert reply.stop_reason == "end_turn"
    assert len(client.permission_requests) == 1
    assert "Approvals are off" not in client.text()


@pytest.fixture
def gate_left_out(acp_env: dict[str, str]) -> None:
    """The user's config enables middleware and leaves HumanInTheLoop out."""
    config = Path(acp_env["AGENT_SHELL_CONFIG_DIR"])
    config.mkdir(parents=True, exist_ok=True)
    (config / "config.toml").write_text('[middleware]\nenabled = ["Timing"]\n')


@pytest.mark.usefixtures("gate_left_out")
async def test_a_config_that_leaves_the_gate_out_is_said_at_the_session_and_its_first_reply(
    spawn: Spawn, script: Any, workspace: Path
) -> None:
    client = EditorClient()
    async with spawn(client, "--model", script([RUN, "Done."])) as conn:
        session = await conn.new_session(cwd=str(workspace), mcp_servers=[])
        current = next(m for m in session.modes.available_modes if m.id == session.modes.current_mode_id)
        assert current.name.endswith("approvals off")
        reply = await conn.prompt(session_id=session.session_id, prompt=prompt_text("go"))
    assert reply.stop_reason == "end_turn"
    assert client.permission_requests == []
    assert "Approvals are off" in client.text()
