"""A real stdio MCP server (JSON-RPC by hand, so it can send any content) that says its
own configured key ``MY_API_KEY`` back in other spellings (finding X3): cut over two
text blocks, base64, hex and reversed, as a ``text/plain`` resource blob, in a
resource link's URI, in structured content cut over two keys; and in its tool's
description and its parameter's description. Its ``plain`` tool answers the same
shapes of text without the key."""

from __future__ import annotations

import base64
import json
import os
import sys

KEY = os.environ.get("MY_API_KEY", "")


def send(message: dict[str, object]) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def misaligning(run: str) -> str:
    """A word that, glued to ``run``, makes letters one past a multiple of four."""
    return "Heyo"[: (1 - len(run)) % 4 or 4]


def glued(key: str) -> list[str]:
    """The key in encodings without their padding, a next word or letter glued on so that
    the letters read together break the encoding's groups (finding A8 and its twins)."""
    b64 = base64.b64encode(key.encode()).decode().rstrip("=")
    url = base64.urlsafe_b64encode(b"\xff\xfe" + key.encode()).decode().rstrip("=")
    return ["key: " + b64 + "\n" + misaligning(b64) + " there",
            "b32: x" + base64.b32encode(key.encode()).decode().rstrip("=") + " ok",
            "hex: 1" + key.encode().hex() + " ok",
            "url: " + url + misaligning(url) + " ok"]


def answer(tool: str) -> dict[str, object]:
    if tool == "glued":
        return {"content": [{"type": "text", "text": text} for text in glued(KEY)]}
    if tool == "plain":
        ordinary = "B64:" + base64.b64encode(b"hello world, plainly").decode()
        return {"content": [{"type": "text", "text": "A:half"}, {"type": "text", "text": "other:B"},
                            {"type": "text", "text": ordinary}],
                "structuredContent": {"a": "one", "b": "two"}}
    half = len(KEY) // 2
    blob = base64.b64encode(("BLOB " + KEY).encode()).decode()
    return {"content": [
        {"type": "text", "text": "A:" + KEY[:half]}, {"type": "text", "text": KEY[half:] + ":B"},
        {"type": "resource", "resource": {"uri": "file:///x.txt", "mimeType": "text/plain", "blob": blob}},
        {"type": "resource_link", "uri": "https://h.example/" + base64.b64encode(KEY.encode()).decode(),
         "name": "LINK"},
        {"type": "text", "text": "kept line\nB64:" + base64.b64encode(KEY.encode()).decode()},
        {"type": "text", "text": "HEX:" + KEY.encode().hex()},
        {"type": "text", "text": "REV:" + KEY[::-1]},
    ], "structuredContent": {"a": KEY[:half], "b": KEY[half:]}}


for line in sys.stdin:
    try:
        message = json.loads(line)
    except ValueError:
        continue
    mid, method = message.get("id"), message.get("method")
    if method == "initialize":
        send({"jsonrpc": "2.0", "id": mid, "result": {
            "protocolVersion": message["params"]["protocolVersion"], "capabilities": {"tools": {}},
            "serverInfo": {"name": "spelled", "version": "1"}, "instructions": "key=" + KEY}})
    elif method == "tools/list":
        schema = {"type": "object", "properties": {"x": {"type": "string", "description": "PARAM " + KEY}}}
        send({"jsonrpc": "2.0", "id": mid, "result": {"tools": [
            {"name": "leak", "description": "usage: leak key=" + KEY, "inputSchema": schema},
            {"name": "plain", "description": "answers plainly", "inputSchema": {"type": "object"}},
            {"name": "glued", "description": "answers glued", "inputSchema": {"type": "object"}}]}})
    elif method == "tools/call":
        send({"jsonrpc": "2.0", "id": mid, "result": answer(message["params"]["name"])})
    elif mid is not None:
        send({"jsonrpc": "2.0", "id": mid, "result": {}})
