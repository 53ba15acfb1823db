"""A filesystem-like MCP server written with the official SDK (``MCPServer``, stdio):
tools that take paths under the names real servers use (``path``, ``file``,
``paths``, ``uri``) and do what they say, with the annotations such servers give."""

from __future__ import annotations

import os
import warnings

from mcp.server.mcpserver import MCPServer
from mcp.types import ToolAnnotations

warnings.simplefilter("ignore")
app = MCPServer("fs")
READS = ToolAnnotations(readOnlyHint=True, openWorldHint=False)


@app.tool(annotations=ToolAnnotations(readOnlyHint=False, destructiveHint=False, openWorldHint=False))
def write_file(path: str, content: str) -> str:
    """Write a file."""
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    with open(path, "w") as f:
        f.write(content)
    return "wrote " + path


@app.tool(annotations=READS)
def read_file(path: str) -> str:
    """Read a file."""
    with open(path) as f:
        return f.read()


@app.tool(annotations=READS)
def cat(file: str) -> str:
    """Print a file."""
    with open(file) as f:
        return f.read()


@app.tool(annotations=READS)
def cat_many(paths: list[str]) -> str:
    """Print files."""
    out = []
    for path in paths:
        with open(path) as f:
            out.append(f.read())
    return "".join(out)


@app.tool(annotations=READS)
def cat_uri(uri: str) -> str:
    """Print a file named by a file:// URI."""
    with open(uri.removeprefix("file://")) as f:
        return f.read()


if __name__ == "__main__":
    app.run()
