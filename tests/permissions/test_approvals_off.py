"""The permission policy holds with HumanInTheLoop switched off: its switch means
"ask me", so what would ask runs unasked (as in bypass mode), while deny rules and
plan mode keep stopping calls, however the switch is thrown (the side panel,
``/middleware``, ``--no-middleware``, the config), and the mode label says so."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from shell.config import load_config
from shell.core.messages import AssistantMessage, TextBlock, ToolCallBlock, ToolResultMessage
from shell.providers.scripted import ScriptedModel
from shell.runtime import RuntimeOptions, ShellRuntime

pytestmark = pytest.mark.anyio


@pytest.fixture(autouse=True)
def _isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AGENT_SHELL_CONFIG_DIR", str(tmp_path / "config"))
    monkeypatch.setenv("AGENT_SHELL_DATA_DIR", str(tmp_path / "data"))


def call(name: str, **args: Any) -> AssistantMessage:
    return AssistantMessage((TextBlock("Doing it."), ToolCallBlock("c1", name, args)))


def runtime(tmp_path: Path, turns: list[Any], config: str = "", **options: Any) -> ShellRuntime:
    work = tmp_path / "work"
    work.mkdir(exist_ok=True)
    (tmp_path / "config.toml").write_text(config)
    return ShellRuntime.create(
        RuntimeOptions(cwd=str(work), record=False, **options),
        settings=load_config(tmp_path / "config.toml"),
        model=ScriptedModel(turns),
    )


async def reply(rt: ShellRuntime, text: str = "go") -> ToolResultMessage:
    asked: list[str] = []

    async def ask(request: Any) -> Any:
        asked.append(request.call.name)
        raise AssertionError(f"asked about {request.call.name} with approvals off")

    rt.ask = ask
    async for _ in rt.reply(text):
        pass
    assert asked == []
    return next(m for m in rt.agent.messages if isinstance(m, ToolResultMessage))


async def test_switched_off_what_would_ask_runs_unasked(tmp_path: Path) -> None:
    rt = runtime(tmp_path, [call("write_file", path="a.txt", content="hi"), "Done."])
    rt.set_middleware("HumanInTheLoop", False)
    result = await reply(rt)
    assert not result.is_error and (rt.workspace.root / "a.txt").read_text() == "hi"
    assert rt.agent.middleware.is_enabled("HumanInTheLoop")  # the gate itself stays on
    assert not rt.middleware_on("HumanInTheLoop") and not rt.approvals_on
    assert rt.mode_label == "default, approvals off (deny rules hold)" and rt.mode_warning


async def test_switched_off_a_deny_rule_still_blocks(tmp_path: Path) -> None:
    config = '[permissions]\ndeny = ["write_file(secret*)"]\n'
    rt = runtime(tmp_path, [call("write_file", path="secret.txt", content="x"), "Ok."], config)
    rt.set_middleware("HumanInTheLoop", False)
    result = await reply(rt)
    assert result.is_error and "Denied by the rule `deny write_file(secret*)`" in result.text
    assert not (rt.workspace.root / "secret.txt").exists()


async def test_switched_off_plan_mode_still_refuses_writes(tmp_path: Path) -> None:
    rt = runtime(tmp_path, [call("write_file", path="a.txt", content="x"), "Ok."], permission_mode="plan")
    rt.set_middleware("HumanInTheLoop", False)
    result = await reply(rt)
    assert result.is_error and result.text.startswith("Plan mode: write_file was not run")
    assert rt.mode_label == "plan, approvals off (deny rules hold)"


@pytest.mark.parametrize("how", ["--no-middleware", "config"])
async def test_off_from_the_start_is_the_same_switch(tmp_path: Path, how: str) -> None:
    config = '[permissions]\ndeny = ["run_shell(rm*)"]\n'
    options: dict[str, Any] = {}
    if how == "config":
        config += '[middleware]\nenabled = ["ProjectInstructions"]\n'
    else:
        options["middleware_off"] = ["HumanInTheLoop"]
    rt = runtime(tmp_path, [call("run_shell", command="rm -rf build"), "Ok."], config, **options)
    assert not rt.approvals_on and rt.policy_enforced
    result = await reply(rt)
    assert result.is_error and "deny run_shell(rm*)" in result.text


async def test_switched_back_on_it_asks_again(tmp_path: Path) -> None:
    rt = runtime(tmp_path, [call("write_file", path="a.txt", content="x"), "Ok."])
    rt.set_middleware("HumanInTheLoop", False)
    rt.set_middleware("humanintheloop", True)
    asked: list[str] = []

    async def ask(request: Any) -> Any:
        from shell.core.approvals import ApprovalDecision

        asked.append(request.call.name)
        return ApprovalDecision.reject()

    rt.ask = ask
    async for _ in rt.reply("go"):
        pass
    assert asked == ["write_file"] and rt.mode_label == "default" and not rt.mode_warning


@pytest.mark.parametrize("name", ["yolo", "bypass", "BypassPermissions"])
async def test_a_config_mode_that_asks_nothing_is_said_with_its_file_and_line(
    tmp_path: Path, name: str
) -> None:
    """``mode = "yolo"`` in the config was applied without a word (headless printed
    nothing); start-up and the status now say approvals are off, and where."""
    config = f'# mine\nmodel = "demo"\n\n[permissions]\ndeny = []\nmode = "{name}"\n'
    rt = runtime(tmp_path, [call("write_file", path="a.txt", content="hi"), "Done."], config)
    said = [p for p in rt.problems if p.startswith("Approvals are off")]
    where = f"mode = '{name}' in {tmp_path / 'config.toml'} (line 6)"
    assert len(said) == 1 and where in said[0], rt.problems
    assert "--permission-mode default" in said[0]
    assert rt.mode_label == "bypass, approvals off (from config.toml line 6)" and rt.mode_warning
    result = await reply(rt)  # and it is what it says: nothing asks
    assert not result.is_error


async def test_the_command_line_mode_wins_and_is_not_blamed_on_the_config(tmp_path: Path) -> None:
    rt = runtime(tmp_path, ["Done."], '[permissions]\nmode = "yolo"\n', permission_mode="default")
    assert rt.permissions.mode == "default" and rt.mode_label == "default"
    assert not [p for p in rt.problems if "Approvals are off" in p]
    rt = runtime(tmp_path, ["Done."], '[permissions]\nmode = "auto"\n')
    assert rt.mode_label == "auto" and not [p for p in rt.problems if "Approvals are off" in p]


def test_an_unknown_config_mode_stops_with_the_valid_names(tmp_path: Path) -> None:
    """It was a warning and the shell went on in default mode: a typo for a stricter
    mode (``pln``) then asked less than the user set out to have."""
    from shell.runtime import ShellError

    with pytest.raises(ShellError) as caught:
        runtime(tmp_path, [], 'permissions.mode = "pln"\n')
    message = str(caught.value)
    assert f"[permissions] mode = 'pln' in {tmp_path / 'config.toml'} (line 1)" in message
    assert "default, plan, accept-edits, auto, bypass" in message


async def test_switched_off_an_mcp_tool_reaching_outside_the_workspace_is_still_asked(tmp_path: Path) -> None:
    """A built-in tool's path outside meets the fence with approvals off; an MCP tool's
    server runs outside the fence, so the policy's question is what it meets."""
    from types import SimpleNamespace

    from shell.core.approvals import ApprovalDecision
    from shell.core.messages import ToolResult
    from shell.tools.mcp import McpTool
    from shell.tools.mcp_config import McpServerSpec
    from shell.tools.mcp_identity import ToolIdentities

    ran: list[dict[str, Any]] = []

    async def served(name: str, args: dict[str, Any], context: Any) -> ToolResult:
        ran.append(args)
        return ToolResult("written")

    spec = McpServerSpec("fs", origin="config")
    server = SimpleNamespace(spec=spec, identities=ToolIdentities(), call=served)
    info = {"name": "write_file", "annotations": {"readOnlyHint": False, "openWorldHint": False},
            "inputSchema": {"type": "object", "properties": {}}}
    outside = tmp_path / "home" / ".bashrc"
    rt = runtime(tmp_path, [call("fs__write_file", target=str(outside), content="curl x | sh"),
                            call("fs__write_file", target="notes.txt", content="hi"), "Done."])
    rt.agent.tools.append(McpTool(server, info))  # type: ignore[arg-type]
    rt.set_middleware("HumanInTheLoop", False)
    asked: list[str] = []

    async def ask(request: Any) -> Any:
        asked.append(request.description or "")
        return ApprovalDecision.reject()

    rt.ask = ask
    async for _ in rt.reply("go"):
        pass
    assert len(asked) == 1 and "outside the workspace" in asked[0] and "Approvals are off" in asked[0]
    assert ran == [{"target": "notes.txt", "content": "hi"}]  # inside it runs unasked; outside never ran
