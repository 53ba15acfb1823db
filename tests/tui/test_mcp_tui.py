"""The TUI with MCP servers that misbehave (real processes over stdio): start-up
never waits for them, and nothing they or the SDK say is written over the screen."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

from shell.config import Settings
from shell.core.messages import AssistantMessage, ToolCallBlock, ToolResultMessage
from shell.providers.scripted import ScriptedModel
from shell.runtime import RuntimeOptions, ShellRuntime
from shell.tools.mcp_config import parse_servers
from shell.tui.app import AgentShellApp
from shell.tui.widgets.welcome import Welcome

from .helpers import SIZE, approval_dialog, send, wait_for

pytestmark = [pytest.mark.anyio, pytest.mark.slow]

SERVER = Path(__file__).resolve().parents[1] / "tools" / "hostile_mcp_server.py"


async def test_a_stalled_and_a_garbling_server_neither_hold_start_up_nor_write_over_the_screen(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("AGENT_SHELL_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("AGENT_SHELL_CONFIG_DIR", str(tmp_path / "config"))
    servers = {name: {"command": sys.executable, "args": [str(SERVER), mode]}
               for name, mode in (("stall", "stall_init"), ("garb", "garbage"))}
    call = AssistantMessage((ToolCallBlock("c1", "garb__echo", {"a": "x"}),))
    runtime = ShellRuntime.create(
        RuntimeOptions(cwd=str(tmp_path), mcp_servers=parse_servers(servers, workspace=str(tmp_path)),
                       permission_mode="bypass"),
        settings=Settings(path=tmp_path / "none.toml"),
        model=ScriptedModel([call, "Done."]),  # type: ignore[list-item]
    )
    app = AgentShellApp(runtime=runtime)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: len(app.query(Welcome)) == 1)
        mcp = runtime.mcp
        assert mcp is not None
        await wait_for(pilot, lambda: mcp.status("garb").state == "ready", timeout=30)
        assert mcp.status("stall").state == "connecting"  # its handshake has 60 s; nobody waits
        await send(pilot, "go")
        results = lambda: [m for m in runtime.agent.messages if isinstance(m, ToolResultMessage)]  # noqa: E731
        await wait_for(pilot, lambda: not app.busy and results(), timeout=30)
        [result] = results()
        assert result.is_error
        assert result.text.startswith("Calling garb__echo failed: the MCP server 'garb' sent a line that is "
                                      "not JSON-RPC (Invalid JSON: expected ident at line 1 column 2)")
        assert mcp.status("garb").state == "ready"
        await runtime.aclose()  # here, not in the pilot's teardown: a stalled server takes seconds to stop
    err = capfd.readouterr().err
    assert "Traceback" not in err and "JSONRPC" not in err and "this is not json" not in err


SDK_SERVER = Path(__file__).resolve().parents[1] / "tools" / "sdk_mcp_server.py"
RAW = ("\x1b", "\x07", "\u202e")
"""Characters a hostile server's text must never reach the screen with."""


def _screen_text(app: AgentShellApp) -> str:
    """What the widgets on the screen render now, as text."""
    from textual.widget import Widget

    from shell.tui.widgets.rendered_chunk import RenderedChunk

    parts = []
    for widget in app.screen.walk_children(Widget):
        if isinstance(widget, RenderedChunk):  # a finished chunk kept as the lines it rendered to
            parts.append("\n".join(line.text for line in widget.lines))
            continue
        try:
            parts.append(str(widget.render()))
        except Exception:  # a widget that renders only inside a layout pass
            continue
    return "\n".join(parts)


def _tree_labels(tree: Any) -> list[str]:
    labels, stack = [], [tree.root]
    while stack:
        node = stack.pop()
        labels.append(str(node.label))
        stack.extend(node.children)
    return labels


async def test_hostile_tool_names_and_descriptions_reach_the_approval_dialog_and_tools_list_harmless(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A real SDK server whose tools are named with escape sequences (clear screen, set
    the window title), a bidi override and 10,000 characters, and whose descriptions
    hold them too: the dialog, the notices, /tools and the side panel's trace show
    model-safe names and neutralised text."""
    from shell.tools.mcp_results import tool_name

    monkeypatch.setenv("AGENT_SHELL_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("AGENT_SHELL_CONFIG_DIR", str(tmp_path / "config"))
    servers = {"sdk": {"command": sys.executable, "args": [str(SDK_SERVER), "names"]}}
    evil = tool_name("sdk", "evil\x1b[2J\x1b]0;pwn\x07name")
    call = AssistantMessage((ToolCallBlock("c1", evil, {"a": "x\x1b[2J\u202e"}),))
    runtime = ShellRuntime.create(
        RuntimeOptions(cwd=str(tmp_path), mcp_servers=parse_servers(servers, workspace=str(tmp_path))),
        settings=Settings(path=tmp_path / "none.toml"),
        model=ScriptedModel([call, "Done."]),  # type: ignore[list-item]
    )
    app = AgentShellApp(runtime=runtime)
    async with app.run_test(size=SIZE) as pilot:
        mcp = runtime.mcp
        assert mcp is not None
        await wait_for(pilot, lambda: mcp.status("sdk").state == "ready", timeout=60)
        await send(pilot, "go")
        await wait_for(pilot, lambda: approval_dialog(app) is not None, timeout=30)
        # its widgets fill in after the screen is pushed: wait for them, then read it once
        await wait_for(pilot, lambda: evil in _screen_text(app) and "x\u241b[2J" in _screen_text(app))
        dialog = _screen_text(app)
        assert evil in dialog and "x\u241b[2J" in dialog  # the argument's ESC as its picture
        assert not any(c in dialog for c in RAW), dialog
        await pilot.press("n", "enter")
        await wait_for(pilot, lambda: not app.busy, timeout=30)
        await send(pilot, "/tools")
        await wait_for(pilot, lambda: all(w in _screen_text(app) for w in ("sdk__read_file", "hostile #4")))
        shown = _screen_text(app)
        assert "hostile #4" in shown and "\u241b[31m" in shown  # the description's ESC as its picture
        assert not any(c in shown for c in RAW)
        await send(pilot, "/trace")  # the side panel's trace of the reply, with its tool call
        from textual.widgets import Tree

        def labels() -> list[str]:
            return [str(line) for tree in app.query(Tree) for line in _tree_labels(tree)]

        # the trace view syncs on its own clock
        await wait_for(pilot, lambda: any(evil in label for label in labels()))
        trees = labels()
        assert any(evil in label for label in trees), trees
        assert not any(c in label for label in trees for c in RAW)
        await runtime.aclose()
