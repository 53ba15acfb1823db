"""A real MCP server (the official SDK's MCPServer, over stdio) whose tool answers
with as much text as it is asked for: for the cap on MCP results."""

from __future__ import annotations

from mcp.server.mcpserver import MCPServer

server = MCPServer("big")


@server.tool()
def dump(lines: int = 20_000) -> str:
    """Numbered lines of text, about a hundred characters each."""
    return "".join(f"line {n:07d} " + "x" * 87 + "\n" for n in range(1, lines + 1))


if __name__ == "__main__":
    server.run()
