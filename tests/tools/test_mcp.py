"""MCP servers written by others: mcp-server-time (PyPI) and server-everything (npm)."""

from __future__ import annotations

import json
import os
import signal
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest

from shell.core.messages import DataBlock, TextBlock
from shell.core.tools import ToolArgumentError
from shell.tools.mcp import McpManager, ServerStatus, tool_name
from shell.tools.mcp_config import load_project_servers
from shell.tools.workspace import Workspace

from .conftest import Recorder
from .mcp_servers import everything_http, everything_stdio, time_server

pytestmark = [pytest.mark.anyio, pytest.mark.slow]

SETTLE = 60


async def _run(mcp: McpManager, name: str, recorder: Recorder, **args: Any) -> Any:
    tool = {t.name: t for t in mcp.tools()}[name]
    tool.validate(args)
    return await tool.run(args, recorder.context(name, args))


async def test_time_server_over_stdio(recorder: Recorder) -> None:
    changes: list[ServerStatus] = []
    async with McpManager({"time": time_server()}, on_change=changes.append) as mcp:
        assert mcp.status("time").state == "connecting"  # start() does not wait
        await mcp.wait_settled(SETTLE)
        assert mcp.status("time").state == "ready"
        names = {t.name: t for t in mcp.tools()}
        assert {"time__get_current_time", "time__convert_time"} <= set(names)
        tool = names["time__get_current_time"]
        assert tool.source == "mcp:time"  # type: ignore[attr-defined]
        assert "timezone" in tool.parameters["properties"]
        assert tool.read_only  # the server marks it readOnlyHint

        result = await _run(mcp, "time__get_current_time", recorder, timezone="Europe/Paris")
        assert not result.is_error
        assert json.loads(result.text)["timezone"] == "Europe/Paris"

        bad = await _run(mcp, "time__get_current_time", recorder, timezone="Nowhere/Atlantis")
        assert bad.is_error and "Nowhere/Atlantis" in bad.text
    assert [c.state for c in changes][:2] == ["connecting", "ready"]
    assert changes[-1].state == "stopped"


async def test_a_server_that_exits_mid_session_is_reported(tmp_path: Path, recorder: Recorder) -> None:
    spec = time_server()
    pidfile = tmp_path / "pid"
    command = " ".join([f"echo $$ > {pidfile};", "exec", spec["command"], *spec["args"]])
    async with McpManager({"time": {"command": "bash", "args": ["-c", command]}}) as mcp:
        await mcp.wait_settled(SETTLE)
        assert mcp.status("time").state == "ready"
        tool = mcp.tools()[0]
        os.kill(int(pidfile.read_text()), signal.SIGKILL)
        with anyio.fail_after(10):
            while mcp.status("time").state == "ready":  # noqa: ASYNC110
                await anyio.sleep(0.05)
        status = mcp.status("time")
        assert status.state == "exited" and "exited" in status.message
        assert mcp.tools() == []  # its tools are gone from the next round
        result = await tool.run({"timezone": "UTC"}, recorder.context(tool.name, {}))
        assert result.is_error and "'time' is exited" in result.text


async def test_failing_servers_do_not_stop_the_others(recorder: Recorder) -> None:
    servers = {
        "missing": {"command": "/nonexistent/mcp-server"},
        "crashes": {"command": sys.executable, "args": ["-c", "import sys; sys.stderr.write('boom\\n')"]},
        "broken": {"args": ["no command"]},
        "time": time_server(),
    }
    async with McpManager(servers, connect_timeout=20) as mcp:
        await mcp.wait_settled(SETTLE)
        states = {s.name: s for s in mcp.statuses()}
        assert states["missing"].state == "failed" and "not found" in states["missing"].message
        assert states["crashes"].state == "failed" and "boom" in states["crashes"].reason
        assert states["broken"].state == "failed" and "command" in states["broken"].message
        assert states["time"].state == "ready"
        assert {t.source for t in mcp.tools()} == {"mcp:time"}  # type: ignore[attr-defined]


async def test_everything_over_stdio(recorder: Recorder) -> None:
    async with McpManager({"every": everything_stdio()}) as mcp:
        await mcp.wait_settled(SETTLE)
        assert mcp.status("every").state == "ready", mcp.status("every").message
        names = {t.name for t in mcp.tools()}
        assert {"every__echo", "every__get-sum", "every__get-tiny-image"} <= names
        echo = await _run(mcp, "every__echo", recorder, message="hello")
        assert echo.text == "Echo: hello"
        total = await _run(mcp, "every__get-sum", recorder, a=2, b=3)
        assert "5" in total.text
        image = await _run(mcp, "every__get-tiny-image", recorder)
        assert isinstance(image.content, tuple)
        data = [b for b in image.content if isinstance(b, DataBlock)]
        assert data and data[0].media_type == "image/png" and data[0].data.startswith(b"\x89PNG")
        assert any(isinstance(b, TextBlock) for b in image.content)
        get_sum = {t.name: t for t in mcp.tools()}["every__get-sum"]
        with pytest.raises(ToolArgumentError, match="a: expected number"):
            get_sum.validate({"a": "x", "b": 3})
        bad = await get_sum.run({"a": "x", "b": 3}, recorder.context(get_sum.name, {}))
        assert bad.is_error  # the server's own validation error, as an error result


async def test_everything_over_streamable_http(recorder: Recorder) -> None:
    with everything_http() as (url, proc):
        async with McpManager({"web": {"type": "http", "url": url}}) as mcp:
            await mcp.wait_settled(SETTLE)
            assert mcp.status("web").state == "ready", mcp.status("web").message
            assert mcp.status("web").transport == "http"
            echo = await _run(mcp, "web__echo", recorder, message="over http")
            assert echo.text == "Echo: over http"
            done = await _run(mcp, "web__trigger-long-running-operation", recorder, duration=1, steps=2)
            assert not done.is_error
            assert [p["progress"] for p in recorder.progress] == [1, 2]  # progress reaches ctx.report

            proc.kill()
            proc.wait()
            gone = await _run(mcp, "web__echo", recorder, message="anyone?")
            assert gone.is_error and "failed" in gone.text
            assert mcp.status("web").state == "exited"


async def test_unreachable_http_server_fails(recorder: Recorder) -> None:
    async with McpManager({"nowhere": {"url": "http://127.0.0.1:9/mcp"}}, connect_timeout=10) as mcp:
        await mcp.wait_settled(SETTLE)
        assert mcp.status("nowhere").state == "failed"


async def test_project_servers_run_only_when_handed_over(workspace: Workspace, recorder: Recorder) -> None:
    (workspace.root / ".mcp.json").write_text(json.dumps({"mcpServers": {"clock": time_server()}}))
    async with McpManager({}, workspace_root=workspace.root) as mcp:
        assert mcp.statuses() == []  # the manager never reads .mcp.json by itself
    project = load_project_servers(workspace.root, expand=True)
    async with McpManager({}, workspace_root=workspace.root, project_servers=project) as mcp:
        await mcp.wait_settled(SETTLE)
        status = mcp.status("clock")
        assert status.state == "ready" and status.origin.endswith(".mcp.json")
        assert tool_name("clock", "get_current_time") in {t.name for t in mcp.tools()}


async def test_closing_while_connecting_is_prompt() -> None:
    spec = time_server()
    command = " ".join(["sleep 0.5;", "exec", spec["command"], *spec["args"]])
    with anyio.fail_after(15):
        async with McpManager({"slow": {"command": "bash", "args": ["-c", command]}}) as mcp:
            assert mcp.status("slow").state == "connecting"
    assert mcp.status("slow").state == "stopped"
