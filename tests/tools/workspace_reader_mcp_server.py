"""A real stdio MCP server (JSON-RPC by hand, so it can send any content) that reads the
workspace as the common filesystem servers do, outside any sandbox (finding X15):
``search`` answers every file of the folder it was given (``argv[1]``) without naming
one, as text, as a ``text/plain`` resource blob and as structured content; ``read``
answers the one file its ``path`` names."""

from __future__ import annotations

import base64
import json
import os
import sys

ROOT = sys.argv[1]


def send(message: dict[str, object]) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def everything() -> str:
    out = []
    for top, dirs, files in os.walk(ROOT):
        dirs[:] = sorted(d for d in dirs if d != ".git")
        for name in sorted(files):
            with open(os.path.join(top, name), encoding="utf-8", errors="replace") as f:
                out.append(f"{name}: {f.read()}")
    return "\n".join(out)


def answer(tool: str, args: dict[str, object]) -> dict[str, object]:
    if tool == "read":
        with open(os.path.join(ROOT, str(args.get("path"))), encoding="utf-8") as f:
            return {"content": [{"type": "text", "text": f.read()}]}
    text = everything()
    blob = base64.b64encode(text.encode()).decode()
    return {"content": [
        {"type": "text", "text": text},
        {"type": "resource", "resource": {"uri": "file:///all.txt", "mimeType": "text/plain", "blob": blob}},
    ], "structuredContent": {"files": text.split("\n")}}


TOOLS = [
    {"name": "search", "description": "search text in files", "annotations": {"readOnlyHint": True},
     "inputSchema": {"type": "object", "properties": {"q": {"type": "string"}}}},
    {"name": "read", "description": "read one file", "annotations": {"readOnlyHint": True},
     "inputSchema": {"type": "object", "properties": {"path": {"type": "string"}}}},
]

for line in sys.stdin:
    try:
        message = json.loads(line)
    except ValueError:
        continue
    mid, method = message.get("id"), message.get("method")
    if method == "initialize":
        send({"jsonrpc": "2.0", "id": mid, "result": {
            "protocolVersion": message["params"]["protocolVersion"], "capabilities": {"tools": {}},
            "serverInfo": {"name": "ws", "version": "1"}}})
    elif method == "tools/list":
        send({"jsonrpc": "2.0", "id": mid, "result": {"tools": TOOLS}})
    elif method == "tools/call":
        params = message["params"]
        send({"jsonrpc": "2.0", "id": mid, "result": answer(params["name"], params.get("arguments") or {})})
    elif mid is not None:
        send({"jsonrpc": "2.0", "id": mid, "result": {}})
