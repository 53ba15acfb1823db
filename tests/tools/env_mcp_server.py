"""A real MCP server (the official SDK's MCPServer, over stdio) that says its own
configured key back, as server-everything's ``get-env`` does (finding V3): in a text
answer, in structured content, and in an error."""

from __future__ import annotations

import os

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError

server = MCPServer("envy")


@server.tool()
def get_env() -> str:
    """The server's environment variable MY_API_KEY, as text."""
    return f"MY_API_KEY={os.environ.get('MY_API_KEY', '')} LOG_LEVEL={os.environ.get('LOG_LEVEL', '')}"


@server.tool()
def env_record() -> dict[str, str]:
    """The same, as structured content."""
    return {"MY_API_KEY": os.environ.get("MY_API_KEY", ""), "region": "eu-west-1"}


@server.tool()
def login() -> str:
    """Fails, naming the key it was given, as many APIs' errors do."""
    raise ToolError(f"invalid key {os.environ.get('MY_API_KEY', '')}")


if __name__ == "__main__":
    server.run()
