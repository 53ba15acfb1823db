"""Where MCP servers start (K11): the user's own servers never run the workspace's
code by starting in it; they learn the workspace as the client's roots; a trusted
project's servers, and a server the user told to (``cwd = "workspace"``), start there.

Real servers over stdio: ``mcp-server-time`` started as ``python -m`` next to a
planted ``mcp_server_time.py``, ``npx`` next to a planted ``node_modules/.bin``,
and tests/tools/where_mcp_server.py, which says where it runs."""

from __future__ import annotations

import json
import os
import shutil
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest

from shell.commands import default_commands
from shell.config import settings_from_dict
from shell.core.approvals import ApprovalDecision
from shell.core.dirs import data_dir
from shell.core.messages import ToolCallBlock
from shell.core.tools import ToolContext
from shell.permissions.trust import read_project_config, trust_for_this_run
from shell.providers.scripted import ScriptedModel
from shell.runtime import RuntimeOptions, ShellRuntime

from .mcp_servers import time_server

pytestmark = [pytest.mark.anyio, pytest.mark.slow]

WHERE = Path(__file__).resolve().parent / "where_mcp_server.py"


def plant(workspace: Path, relative: str, marker: Path, *, shebang: str = "") -> Path:
    """A file of the repository's that leaves ``marker`` behind when it runs."""
    path = workspace / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    if shebang:
        path.write_text(f"{shebang}\nrequire('fs').writeFileSync({str(marker)!r}, 'ran')\n")
        path.chmod(0o755)
    else:
        path.write_text(f"import pathlib\npathlib.Path({str(marker)!r}).write_text('ran')\n")
    return path


def same(a: str | Path, b: str | Path) -> bool:
    return os.path.realpath(a) == os.path.realpath(b)


def uri(directory: Path) -> str:
    return Path(os.path.realpath(directory)).as_uri()


def runtime_for(workspace: Path, servers: dict[str, Any]) -> ShellRuntime:
    settings = settings_from_dict({"mcp_servers": servers}, workspace.parent / "config.toml")
    return ShellRuntime.create(RuntimeOptions(cwd=str(workspace), permission_mode="bypass"),
                               settings=settings, model=ScriptedModel(["Hi."]))


async def settled(runtime: ShellRuntime) -> None:
    assert runtime.mcp is not None
    await runtime.mcp.wait_settled(90)


async def where(runtime: ShellRuntime, server: str) -> dict[str, Any]:
    tool = next(t for t in runtime.agent.tools if t.name == f"{server}__where")

    async def approve(request: object) -> ApprovalDecision:
        return ApprovalDecision("approve")

    with anyio.fail_after(60):
        result = await tool.run({}, ToolContext(ToolCallBlock("c1", tool.name, {}), lambda _: None, approve))
    assert not result.is_error, result.text
    found: dict[str, Any] = json.loads(result.text)
    return found


async def test_your_own_python_m_server_does_not_run_a_module_the_workspace_plants(tmp_path: Path) -> None:
    workspace, marker = tmp_path / "ws", tmp_path / "PWNED_PY_M"
    plant(workspace, "mcp_server_time.py", marker)
    plant(workspace, "pydantic.py", marker)  # would shadow the real server's imports too
    runtime = runtime_for(workspace, {"time": time_server()})
    async with runtime.running():
        await settled(runtime)
        assert runtime.mcp is not None
        status = runtime.mcp.status("time")
        assert status.state == "ready", status.message
        assert status.tools > 0
    assert not marker.exists()


async def test_your_own_npx_server_does_not_run_the_workspaces_node_modules(tmp_path: Path) -> None:
    npx = shutil.which("npx")
    if npx is None:
        pytest.skip("npx is not installed")
    workspace, marker = tmp_path / "ws", tmp_path / "PWNED_NPX"
    package = workspace / "node_modules" / "planted-mcp-server"
    package.mkdir(parents=True)
    (package / "package.json").write_text(json.dumps(
        {"name": "planted-mcp-server", "version": "1.0.0", "bin": {"planted-mcp-server": "index.js"}}))
    plant(package, "index.js", marker, shebang="#!/usr/bin/env node")
    (workspace / "node_modules" / ".bin").mkdir()
    (workspace / "node_modules" / ".bin" / "planted-mcp-server").symlink_to("../planted-mcp-server/index.js")
    (workspace / "package.json").write_text(json.dumps(
        {"name": "repo", "version": "1.0.0", "dependencies": {"planted-mcp-server": "1.0.0"}}))
    offline = {"npm_config_offline": "true", "npm_config_cache": str(tmp_path / "npm-cache"),
               "npm_config_update_notifier": "false"}  # nothing is downloaded: it fails instead
    runtime = runtime_for(workspace, {"fs": {"command": npx, "args": ["-y", "planted-mcp-server"],
                                             "env": offline}})
    async with runtime.running():
        await settled(runtime)
    assert not marker.exists()


async def test_your_own_server_starts_in_a_private_folder_and_learns_the_workspace_as_roots(
    tmp_path: Path,
) -> None:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    extra = tmp_path / "extra"
    extra.mkdir()
    runtime = runtime_for(workspace, {"w": {"command": sys.executable, "args": [str(WHERE)]}})
    runtime.workspace.add_dir(extra)
    async with runtime.running():
        await settled(runtime)
        said = await where(runtime, "w")
        listed = (await default_commands().run(runtime, "/mcp")).text
    private = data_dir() / "mcp-server-cwd"
    assert same(said["cwd"], private)
    assert os.listdir(private) == []
    assert said["safepath"] is None  # nothing to take from an empty private folder; a script's
    # neighbours (python3 ~/mcp/server.py importing helpers) are the user's own
    assert said["roots"] == [uri(workspace), uri(extra)]
    assert "roots" in said["capabilities"]
    assert "starts in the workspace" not in listed


async def test_a_server_you_tell_to_start_in_the_workspace_does_and_says_so(tmp_path: Path) -> None:
    workspace = tmp_path / "ws"
    (workspace / ".agent-shell").mkdir(parents=True)
    (workspace / ".agent-shell" / "permissions.toml").write_text('allow = ["read_file"]\n')
    server = {"command": sys.executable, "args": [str(WHERE)], "cwd": "workspace"}
    runtime = runtime_for(workspace, {"w": server})
    async with runtime.running():
        await settled(runtime)
        said = await where(runtime, "w")
        listed = (await default_commands().run(runtime, "/mcp")).text
        question = runtime.describe_project(runtime.workspace_trust())
    assert same(said["cwd"], workspace)
    assert said["safepath"] == "1"
    assert '- **w** (stdio) (starts in the workspace: cwd = "workspace") ready' in listed
    assert any(line.startswith("your server 'w' starts in this workspace") for line in question)


async def test_a_trusted_projects_server_starts_in_the_workspace(tmp_path: Path) -> None:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    (workspace / ".mcp.json").write_text(json.dumps(
        {"mcpServers": {"proj": {"command": sys.executable, "args": [str(WHERE)]}}}))
    trust_for_this_run(read_project_config(workspace))
    runtime = runtime_for(workspace, {})
    async with runtime.running():
        await settled(runtime)
        said = await where(runtime, "proj")
    assert same(said["cwd"], workspace)
    assert said["safepath"] is None  # the project's own code: its imports are its own
