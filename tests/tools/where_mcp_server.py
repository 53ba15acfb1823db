"""A stdio MCP server that says where it runs, speaking the wire format by hand (only
the standard library, so it starts the same from any folder and under any
``PYTHONSAFEPATH``).

Its one tool, ``where``, asks the client for its roots (``roots/list``) and answers
with JSON: ``cwd`` (its working directory), ``safepath`` (its ``PYTHONSAFEPATH``),
``roots`` (the root URIs the client gave, or the error it answered with) and
``capabilities`` (what the client declared in ``initialize``).
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any

TOOL = {"name": "where", "description": "where the server runs",
        "inputSchema": {"type": "object", "properties": {}}}


def send(message: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def ask_roots() -> Any:
    send({"jsonrpc": "2.0", "id": "roots-1", "method": "roots/list"})
    for line in sys.stdin:
        msg = json.loads(line)
        if msg.get("id") == "roots-1" and "method" not in msg:
            if "error" in msg:
                return {"error": msg["error"].get("message", "")}
            return [root["uri"] for root in msg["result"]["roots"]]
    return {"error": "stdin closed"}


def main() -> None:
    capabilities: Any = {}
    for line in sys.stdin:
        msg = json.loads(line)
        method, ident = msg.get("method"), msg.get("id")
        if method == "initialize":
            capabilities = msg["params"].get("capabilities", {})
            send({"jsonrpc": "2.0", "id": ident, "result": {
                "protocolVersion": msg["params"]["protocolVersion"], "capabilities": {"tools": {}},
                "serverInfo": {"name": "where", "version": "1"}}})
        elif method == "tools/list":
            send({"jsonrpc": "2.0", "id": ident, "result": {"tools": [TOOL]}})
        elif method == "tools/call":
            said = {"cwd": os.getcwd(), "safepath": os.environ.get("PYTHONSAFEPATH"),
                    "roots": ask_roots(), "capabilities": capabilities}
            send({"jsonrpc": "2.0", "id": ident,
                  "result": {"content": [{"type": "text", "text": json.dumps(said)}]}})
        elif ident is not None and method is not None:
            send({"jsonrpc": "2.0", "id": ident, "result": {}})


if __name__ == "__main__":
    main()
