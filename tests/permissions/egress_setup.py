"""What the egress tests of known values share: an auto-mode policy that allows the calls
they send (so only the egress check can make one ask), a fetch-kind MCP tool, and the
built-in tool of a name."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from shell.core.tools import Tool
from shell.permissions.policy import PermissionPolicy
from shell.permissions.rules import parse_rules
from shell.tools.builtin import builtin_tools
from shell.tools.workspace import Workspace

ALLOW = ("fetch_url(domain:*.example.com)", "search__query", "run_shell(curl *)")


def policy(root: Path, allow: Sequence[str] = ALLOW) -> PermissionPolicy:
    rules, problems = parse_rules({"allow": list(allow)}, "user")
    assert not problems
    return PermissionPolicy(root, user_rules=rules, user_config=root / "config.toml", mode="auto")


class McpTool(Tool):
    def __init__(self) -> None:
        super().__init__("search__query", read_only=True, kind="fetch")
        self.source = "mcp:search"
        self.hints_trusted = True

    async def run(self, args: dict[str, Any], context: Any) -> Any:
        raise AssertionError


def tool(root: Path, name: str) -> Tool:
    return McpTool() if name == "mcp" else next(t for t in builtin_tools(Workspace(root)) if t.name == name)
