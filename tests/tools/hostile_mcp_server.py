"""A hostile MCP server speaking the wire format by hand (stdio, or streamable HTTP
on 127.0.0.1): what the SDK's own servers would never send, a real process.

    python hostile_mcp_server.py MODE            stdio
    python hostile_mcp_server.py MODE --http PORT

Modes: ``endless_json`` (an HTTP answer to the handshake that never ends),
``endless_call`` (the same for a tool call), ``deep`` (a result nested 100,000
deep), ``wrongid`` (a result for a request never sent), ``bad_schema`` (tools whose
inputSchema cannot be checked next to a good one), ``invalid_list`` (a tools/list
the SDK rejects), ``names`` (tool names that collide once made model-safe).
"""

from __future__ import annotations

import json
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

MODE = sys.argv[1]
OBJ = {"type": "object", "properties": {"a": {"type": "string"}}}
ENDLESS = object()


def tools() -> list[dict[str, Any]]:
    if MODE == "bad_schema":
        return [
            {"name": "int_type", "inputSchema": {"type": "object", "properties": {"a": {"type": 5}}}},
            {"name": "dict_in_types",
             "inputSchema": {"type": "object", "properties": {"a": {"type": ["string", {"x": 1}]}}}},
            {"name": "good", "inputSchema": OBJ},
        ]
    if MODE == "invalid_list":
        return [{"name": "fine", "inputSchema": OBJ}, {"inputSchema": OBJ}]  # a tool without a name
    if MODE == "names":
        long = "x" * 70
        return [{"name": n, "inputSchema": OBJ} for n in ("a.b", "a_b", long + "A", long + "B", "b__c", "ok")]
    return [{"name": "echo", "inputSchema": OBJ}]


def answer(msg: dict[str, Any]) -> Any:
    """The reply to one request: a dict, ENDLESS, a raw string, or None (no reply)."""
    method, ident = msg.get("method"), msg.get("id")
    if method == "initialize":
        if MODE == "endless_json":
            return ENDLESS
        return {"jsonrpc": "2.0", "id": ident, "result": {
            "protocolVersion": msg["params"]["protocolVersion"], "capabilities": {"tools": {}},
            "serverInfo": {"name": "hostile", "version": "1"}}}
    if method == "tools/list":
        return {"jsonrpc": "2.0", "id": ident, "result": {"tools": tools()}}
    if method == "tools/call":
        if MODE == "endless_call":
            return ENDLESS
        if MODE == "deep":
            deep = "[" * 100_000 + "]" * 100_000
            head = '{"jsonrpc":"2.0","id":' + json.dumps(ident)
            content = '"content":[{"type":"text","text":"hi"}]'
            return head + ',"result":{' + content + ',"structuredContent":{"a":' + deep + "}}}"
        if MODE == "wrongid":
            return {"jsonrpc": "2.0", "id": 987654, "result": {"content": [{"type": "text", "text": "lost"}]}}
        text = "echo " + json.dumps(msg["params"].get("arguments"))
        return {"jsonrpc": "2.0", "id": ident, "result": {"content": [{"type": "text", "text": text}]}}
    return {"jsonrpc": "2.0", "id": ident, "result": {}}


def serve_stdio() -> None:
    for line in sys.stdin:
        try:
            msg = json.loads(line)
        except ValueError:
            continue
        if msg.get("id") is None:
            continue
        reply = answer(msg)
        if reply is ENDLESS:
            sys.stdout.write('{"jsonrpc":"2.0","id":0,"result":"')
            while True:
                sys.stdout.write("A" * (1 << 20))
        sys.stdout.write((reply if isinstance(reply, str) else json.dumps(reply)) + "\n")
        sys.stdout.flush()


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args: Any) -> None:
        pass

    def do_GET(self) -> None:
        self.send_response(405)
        self.send_header("Content-Length", "0")
        self.end_headers()

    do_DELETE = do_GET

    def do_POST(self) -> None:
        msg = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))))
        if msg.get("id") is None:
            self.send_response(202)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        reply = answer(msg)
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        if reply is ENDLESS:
            self.end_headers()
            self.wfile.write(b'{"jsonrpc":"2.0","id":0,"result":"')
            try:
                while True:
                    self.wfile.write(b"A" * (1 << 20))
            except OSError:
                return
        body = (reply if isinstance(reply, str) else json.dumps(reply)).encode()
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


if __name__ == "__main__":
    if "--http" in sys.argv:
        port = int(sys.argv[sys.argv.index("--http") + 1])
        ThreadingHTTPServer(("127.0.0.1", port), Handler).serve_forever()
    else:
        serve_stdio()
