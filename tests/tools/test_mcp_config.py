"""MCP server config: entries, .mcp.json, ${VAR} expansion; and the /tools listing."""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

import pytest

from shell.core.messages import ToolResult
from shell.core.tools import Tool, ToolContext, tool
from shell.tools import describe_tools
from shell.tools.builtin import builtin_tools
from shell.tools.mcp import McpManager, tool_name
from shell.tools.mcp_config import (
    expand_vars,
    load_project_servers,
    merge_specs,
    parse_project_servers,
    parse_server,
    parse_servers,
)
from shell.tools.mcp_results import convert_result
from shell.tools.workspace import Workspace


def test_stdio_and_remote_entries() -> None:
    env = {"TOKEN": "abc", "HOME": "/home/u"}
    spec = parse_server(
        "fs", {"command": "npx", "args": ["-y", "${HOME}/x"], "env": {"K": "${TOKEN}"}}, environ=env
    )
    assert (spec.transport, spec.command, spec.args, dict(spec.env)) == (
        "stdio",
        "npx",
        ("-y", "/home/u/x"),
        {"K": "abc"},
    )
    remote = parse_server(
        "r", {"type": "http", "url": "https://h/mcp", "headers": {"A": "Bearer ${TOKEN}"}}, environ=env
    )
    assert (remote.transport, remote.url, dict(remote.headers)) == (
        "http",
        "https://h/mcp",
        {"A": "Bearer abc"},
    )
    assert parse_server("s", {"type": "sse", "url": "http://h/sse"}).transport == "sse"
    assert parse_server("u", {"url": "http://h/mcp"}).transport == "http"


@pytest.mark.parametrize(
    ("entry", "error"),
    [
        ("nope", "must be an object"),
        ({}, "command"),
        ({"type": "stdio"}, "needs a command"),
        ({"url": "ftp://x"}, "http(s) url"),
        ({"type": "carrier-pigeon", "url": "http://x"}, "unknown transport"),
        ({"command": "x", "args": "not a list"}, "args must be a list"),
        ({"command": "${NOT_SET_ANYWHERE}"}, "NOT_SET_ANYWHERE is not set"),
    ],
)
def test_broken_entries_become_failed_specs(entry: Any, error: str) -> None:
    spec = parse_server("x", entry, environ={})
    assert spec.error is not None and error in spec.error


def test_var_defaults() -> None:
    assert expand_vars("${A:-fallback}/${B}", {"B": "b"}) == "fallback/b"


def test_project_file(tmp_path: Path) -> None:
    assert load_project_servers(tmp_path) == []
    (tmp_path / ".mcp.json").write_text("{not json")
    [broken] = load_project_servers(tmp_path)
    assert broken.error and "cannot read" in broken.error
    (tmp_path / ".mcp.json").write_text(json.dumps({"mcpServers": {"a": {"command": "a-server"}}}))
    [spec] = load_project_servers(tmp_path)
    assert spec.name == "a" and spec.cwd == str(tmp_path) and spec.origin.endswith(".mcp.json")
    user = parse_servers({"a": {"command": "user-a"}, "b": {"command": "user-b"}})
    merged = {s.name: s.command for s in merge_specs(user, [spec])}
    assert merged == {"a": "a-server", "b": "user-b"}  # the project's entry wins, as in Claude Code


def test_tool_names_fit_model_apis_and_never_collide() -> None:
    import re

    assert tool_name("time", "get_current_time") == "time__get_current_time"  # as it is when it fits
    assert tool_name("my server", "do_thing") == "my_server__do_thing"
    changed = [tool_name("my server", "do.thing"), tool_name("s" * 40, "t" * 40),
               tool_name("s" * 40, "t" * 41)]
    assert all(re.fullmatch(r"[A-Za-z0-9_-]{1,64}", n) for n in changed)
    assert changed[0].startswith("my_server__do_thing_") and len(changed[1]) == 64
    # what became one name before: a.b and a_b; names cut at 64; a.b beside a real a_b_<hash>
    assert tool_name("e", "a.b") != tool_name("e", "a_b")
    assert tool_name("e", "x" * 70 + "A") != tool_name("e", "x" * 70 + "B")
    assert changed[1] != changed[2]


@pytest.mark.parametrize("name", ["a__b", "a_", "_a", "my  server", "x" * 41, ""])
def test_a_server_name_that_would_make_tool_names_ambiguous_is_refused(name: str) -> None:
    """With a server "a__b", a rule a__b__* would also name server "a"'s tool "b__c"."""
    from shell.tools.mcp_results import server_name_problem

    problem = server_name_problem(name)
    assert problem is not None
    assert problem.startswith(f"the name {name!r} cannot be used: its tools are called")
    assert server_name_problem("my server") is None and server_name_problem("brave-search_2") is None


def test_manager_before_start_has_no_tools() -> None:
    mcp = McpManager({"a": {"command": "x"}})
    assert mcp.tools() == []
    assert [(s.name, s.state) for s in mcp.statuses()] == [("a", "connecting")]


def test_result_conversion() -> None:
    from mcp.types import CallToolResult, EmbeddedResource, ImageContent, TextContent, TextResourceContents

    result = CallToolResult(
        content=[
            TextContent(type="text", text="see"),
            ImageContent(type="image", data="iVBORw0KGgo=", mimeType="image/png"),
            EmbeddedResource(
                type="resource",
                resource=TextResourceContents(uri="file:///a.txt", text="inside", mimeType="text/plain"),
            ),
        ],
        isError=True,
    )
    converted = convert_result(result, server="s", tool="t")
    assert converted.is_error
    assert isinstance(converted.content, tuple)
    kinds = [type(b).__name__ for b in converted.content]
    assert kinds == ["TextBlock", "DataBlock", "TextBlock"]
    assert "inside" in converted.text
    empty = convert_result(CallToolResult(content=[], structuredContent={"x": 1}), server="s", tool="t")
    assert empty.text == '{"x": 1}' and empty.details["structured"] == {"x": 1}


def test_describe_tools(tmp_path: Path) -> None:
    @tool
    def remember(fact: str) -> str:
        """Remember a fact."""
        return fact

    class Fake(Tool):
        source = "mcp:time"

        async def run(self, args: dict[str, Any], context: ToolContext) -> ToolResult:
            return ToolResult("")

    tools = [*builtin_tools(Workspace(tmp_path)), remember, Fake("time__now", "Now.", read_only=True)]
    rows = {r.name: r for r in describe_tools(tools)}
    assert rows["read_file"].source == "builtin" and rows["read_file"].read_only
    assert not rows["read_file"].asks_approval and rows["run_shell"].asks_approval
    assert rows["remember"].source == "middleware" and rows["remember"].asks_approval
    assert rows["time__now"].source == "mcp:time" and rows["time__now"].summary == "Now."
    always = describe_tools(tools, lambda t: t.name == "fetch_url")
    assert [r.name for r in always if r.asks_approval] == ["fetch_url"]


def test_results_are_capped_in_one_place_with_a_note() -> None:
    """Text, structured content and images alike: what does not fit is cut and said;
    structured content is not kept a second time in ``details`` when it is big."""
    from mcp.types import CallToolResult, ImageContent, TextContent

    from shell.tools.mcp_results import MAX_DATA_BYTES, MAX_RESULT_CHARS

    big = {"rows": ["r" * 100] * 1000}  # about 104,000 characters of JSON
    structured = convert_result(CallToolResult(content=[], structuredContent=big), server="db", tool="q")
    assert len(structured.text) < MAX_RESULT_CHARS + 400
    assert "[MCP result of db__q cut: the first 30,000 of" in structured.text
    assert "structured" not in structured.details  # not stored twice
    assert structured.details["structured_chars"] > MAX_RESULT_CHARS
    small = convert_result(CallToolResult(content=[], structuredContent={"x": 1}), server="db", tool="q")
    assert small.details["structured"] == {"x": 1} and "cut" not in small.text
    image = base64.b64encode(b"\x89PNG" + b"\0" * (MAX_DATA_BYTES + 10)).decode()
    mixed = convert_result(CallToolResult(content=[
        TextContent(type="text", text="a picture:"),
        ImageContent(type="image", data=image, mimeType="image/png"),
    ]), server="cam", tool="shot")
    assert isinstance(mixed.content, str)  # the image is named, not carried
    assert "[image/png, 5,242,894 bytes: left out]" in mixed.text
    assert "1 image/audio block left out" in mixed.text and "call cam__shot again" in mixed.text


def test_your_own_servers_start_outside_the_workspace_unless_you_say_so(tmp_path: Path) -> None:
    ws = str(tmp_path)
    plain, inside, there, relative = parse_servers({
        "plain": {"command": "x"},
        "inside": {"command": "x", "cwd": "workspace"},
        "there": {"command": "x", "cwd": "/srv/mcp"},
        "relative": {"command": "x", "cwd": "tools"},
    }, workspace=ws)
    assert plain.cwd is None and not plain.project  # a private folder (shell.tools.mcp_launch)
    assert inside.cwd == ws and there.cwd == "/srv/mcp"
    assert relative.error is not None and 'absolute path or "workspace"' in relative.error
    (project,) = parse_project_servers(b'{"mcpServers": {"p": {"command": "x", "cwd": "sub"}}}', tmp_path)
    assert project.project and project.cwd == str(tmp_path / "sub")
