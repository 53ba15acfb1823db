"""A hostile MCP server speaking the wire format by hand (stdio, or streamable HTTP
on 127.0.0.1): what the SDK's own servers would never send, a real process.

    python hostile_mcp_server.py MODE            stdio
    python hostile_mcp_server.py MODE --http PORT

Modes: ``endless_json`` (an HTTP answer to the handshake that never ends),
``not_mcp`` (over HTTP: a web page, 501, for every POST),
``endless_call`` (the same for a tool call), ``deep`` (a result nested 100,000
deep), ``wrongid`` (a result for a request never sent, then the right one),
``badid`` (results whose ids are no ids: an object, 2.5, a list, true; then the
right one), ``stray_flood`` (20,000 results for ids never sent, string ids holding
escape sequences among them, then the right one), ``bad_schema`` (tools whose
inputSchema cannot be checked next to a good one), ``invalid_list`` (a tools/list
the SDK rejects), ``names`` (tool names that collide once made model-safe).
Over stdio only: ``garbage`` (a line that is not JSON, for each call but
one given ``a: "fine"``; after 1 s for ``a: "lose"``), ``not_utf8`` (bytes that are
not UTF-8), ``surrogates`` (a lone surrogate and escape sequences in a tool's name
and description), ``unknown_content`` (a content type MCP does not define),
``many_tools`` (10,000 tools), ``malformed`` (two pages of tools, among them
entries the SDK refuses: no inputSchema, a name that is a number, no name, ...),
``bad_cursor`` (a nextCursor that is a number), ``deep_schema_N`` (a good tool
and one whose inputSchema nests N deep; over HTTP too, and ``deep_schema_sse_N``
sends that list as an event stream), ``empty_pages`` (empty pages
without end, each with a new cursor), ``huge_tools`` (a 1 MB description, a 100 kB
schema), ``stall_init`` (no answer to initialize), ``flood`` (5,000 log messages
before the answer), ``progress_flood`` (20,000 progress notifications before it),
``exit_mid_call``, ``big`` (a 20 MB answer), ``crash`` (exits at once with a word
on stderr), ``stderr_flood`` (24 MB on stderr, then exits), ``endless_pages`` (a
tools/list with a next page, always), ``ping_flood`` (20,000 pings to the client
before the answer, none of their answers read), ``bad_output`` (a tool with an
outputSchema whose structured result does not match it, its text content fine).
"""

from __future__ import annotations

import json
import os
import sys
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

MODE = sys.argv[1]
OBJ = {"type": "object", "properties": {"a": {"type": "string"}}}
ENDLESS = object()
PAGES: list[int] = []


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
    if MODE == "surrogates":
        return [{"name": "e\x1b[2Jvil\ud800", "description": "\x1b]0;pwn\x07 hi \ud800 \x1b[31mred",
                 "inputSchema": OBJ}]
    if MODE == "many_tools":
        return [{"name": f"t{k}", "description": "d" * 100, "inputSchema": OBJ} for k in range(10_000)]
    if MODE == "huge_tools":
        big = {"type": "object", "properties": {f"p{k}": {"type": "string"} for k in range(5000)}}
        return [{"name": "echo", "description": "D" * (1 << 20), "inputSchema": OBJ},
                {"name": "wide", "inputSchema": big}]
    if MODE == "bad_output":
        counted = {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}
        return [{"name": "echo", "inputSchema": OBJ, "outputSchema": counted}]
    return [{"name": "echo", "inputSchema": OBJ}]


MALFORMED = (
    [{"name": "ok", "inputSchema": OBJ},
     {"name": "noschema", "description": "no inputSchema"},
     {"name": "nonsense", "inputSchema": {"type": "nonsense", "properties": 5}},
     {"name": 5, "inputSchema": OBJ},
     {"inputSchema": OBJ},
     "not a tool",
     {"name": "bad\x1b[2J\u202ename", "inputSchema": OBJ, "annotations": "x"},
     {"name": "long", "description": "L" * (10 << 20), "inputSchema": OBJ}],
    [{"name": "second", "inputSchema": OBJ},
     {"name": "strout", "inputSchema": OBJ, "outputSchema": {"type": "string"}}],
)
"""Two pages of tools/list (``malformed``): ok, long and second are fine."""


def list_answer(msg: dict[str, Any], ident: Any) -> dict[str, Any] | str:
    """The answer to tools/list."""
    if MODE.startswith("deep_schema_"):  # written by hand: json.dumps cannot nest so deep
        depth = int(MODE.rsplit("_", 1)[1])
        deep = '{"type":"object","properties":{"a":' * depth + '{"type":"string"}' + "}}" * depth
        listed = f'[{{"name":"good","inputSchema":{json.dumps(OBJ)}}},{{"name":"deep","inputSchema":{deep}}}]'
        return f'{{"jsonrpc":"2.0","id":{json.dumps(ident)},"result":{{"tools":{listed}}}}}'
    if MODE == "malformed":
        second = (msg.get("params") or {}).get("cursor") == "p2"
        page = MALFORMED[1] if second else MALFORMED[0]
        more = {} if second else {"nextCursor": "p2"}
        return {"jsonrpc": "2.0", "id": ident, "result": {"tools": page, **more}}
    if MODE == "bad_cursor":
        return {"jsonrpc": "2.0", "id": ident, "result": {"tools": tools(), "nextCursor": 7}}
    if MODE == "empty_pages":
        PAGES.append(1)
        return {"jsonrpc": "2.0", "id": ident, "result": {"tools": [], "nextCursor": f"p{len(PAGES)}"}}
    if MODE == "endless_pages":
        page = [{"name": f"t{len(PAGES)}_{k}", "inputSchema": OBJ} for k in range(1000)]
        PAGES.append(1)
        return {"jsonrpc": "2.0", "id": ident, "result": {"tools": page, "nextCursor": f"p{len(PAGES)}"}}
    return {"jsonrpc": "2.0", "id": ident, "result": {"tools": tools()}}


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
        return list_answer(msg, ident)
    if method == "tools/call":
        said = (msg["params"].get("arguments") or {}).get("a")
        if MODE == "garbage" and said != "fine":
            time.sleep(1 if said == "lose" else 0)  # "lose": while the next call is sent
            return "this is not json"
        if MODE == "not_utf8":
            head = '{"jsonrpc":"2.0","id":' + json.dumps(ident)
            return head + ',"result":{"content":[{"type":"text","text":"a\udcff b"}]}}'
        if MODE == "unknown_content":
            return {"jsonrpc": "2.0", "id": ident, "result": {"content": [
                {"type": "hologram", "data": 1}, {"type": "text"}, {"type": "text", "text": "kept"}]}}
        if MODE == "bad_output":
            return {"jsonrpc": "2.0", "id": ident, "result": {
                "content": [{"type": "text", "text": "the answer is 42"}],
                "structuredContent": {"n": "forty-two " + "x" * 5000}}}
        if MODE == "exit_mid_call":
            sys.exit(0)
        if MODE == "big":
            text = "B" * (20 << 20)
            return {"jsonrpc": "2.0", "id": ident, "result": {"content": [{"type": "text", "text": text}]}}
        if MODE == "endless_call":
            return ENDLESS
        if MODE == "deep":
            deep = "[" * 100_000 + "]" * 100_000
            head = '{"jsonrpc":"2.0","id":' + json.dumps(ident)
            content = '"content":[{"type":"text","text":"hi"}]'
            return head + ',"result":{' + content + ',"structuredContent":{"a":' + deep + "}}}"
        text = "echo " + json.dumps(msg["params"].get("arguments"))
        if MODE in ("wrongid", "badid"):  # answers that fit no request first, then the right one
            ids: list[Any] = [987654] if MODE == "wrongid" else [{"x": 1}, 2.5, [ident], True]
            stray = "".join(json.dumps({"jsonrpc": "2.0", "id": k, "result": {"content": [
                {"type": "text", "text": "stray"}]}}) + "\n" for k in ids)
            right = {"jsonrpc": "2.0", "id": ident, "result": {"content": [{"type": "text", "text": text}]}}
            return stray + json.dumps(right)
        if MODE == "stray_flood":
            ids = [10_000_000 + n if n % 2 else f"\x1b]0;pwned\x07{n}" for n in range(20_000)]
            strays = "".join(json.dumps({"jsonrpc": "2.0", "id": k, "result": {}}) + "\n" for k in ids)
            right = {"jsonrpc": "2.0", "id": ident, "result": {"content": [{"type": "text", "text": text}]}}
            return strays + json.dumps(right)
        return {"jsonrpc": "2.0", "id": ident, "result": {"content": [{"type": "text", "text": text}]}}
    return {"jsonrpc": "2.0", "id": ident, "result": {}}


def serve_stdio() -> None:
    if MODE == "crash":
        sys.stderr.write("starting\nfatal: no API token given\n")
        sys.exit(3)
    if MODE == "stderr_flood":
        for _ in range(200):
            sys.stderr.write("noise " * 20_000 + "\n")
        sys.stderr.write("fatal: the end\n")
        sys.exit(3)
    for line in sys.stdin:
        try:
            msg = json.loads(line)
        except ValueError:
            continue
        if msg.get("id") is None or "method" not in msg:
            continue  # a notification, or our answer to a request of ours
        if MODE == "stall_init":
            if os.environ.get("PIDFILE"):
                with open(os.environ["PIDFILE"], "w") as f:
                    f.write(str(os.getpid()))
            time.sleep(3600)
        if MODE == "progress_flood" and msg.get("method") == "tools/call":
            token = msg["params"]["_meta"]["progressToken"]
            for k in range(1, 20_001):
                params = {"progressToken": token, "progress": k, "total": 20_000}
                note = {"jsonrpc": "2.0", "method": "notifications/progress", "params": params}
                sys.stdout.write(json.dumps(note) + "\n")
            sys.stdout.flush()
        if MODE == "ping_flood" and msg.get("method") == "tools/call":
            pings = "".join(json.dumps({"jsonrpc": "2.0", "id": f"s{k}", "method": "ping"}) + "\n"
                            for k in range(20_000))
            sys.stdout.write(pings)  # without reading a single answer
            sys.stdout.flush()
        if MODE == "flood" and msg.get("method") == "tools/call":
            params = {"level": "info", "data": "x" * 1000}
            log = {"jsonrpc": "2.0", "method": "notifications/message", "params": params}
            sys.stdout.write((json.dumps(log) + "\n") * 5000)
            sys.stdout.flush()
        reply = answer(msg)
        if reply is ENDLESS:
            sys.stdout.write('{"jsonrpc":"2.0","id":' + json.dumps(msg["id"]) + ',"result":"')
            while True:
                sys.stdout.write("A" * (1 << 20))
        text = (reply if isinstance(reply, str) else json.dumps(reply)) + "\n"
        sys.stdout.buffer.write(text.encode("utf-8", "surrogateescape"))  # not_utf8: a lone 0xff byte
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
        if MODE == "not_mcp":  # a web server, not an MCP one (python -m http.server says so)
            page = b"<html><body>Error 501: Unsupported method ('POST')</body></html>"
            self.send_response(501)
            self.send_header("Content-Type", "text/html;charset=utf-8")
            self.send_header("Content-Length", str(len(page)))
            self.end_headers()
            self.wfile.write(page)
            return
        if msg.get("id") is None:
            self.send_response(202)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        if msg.get("method") == "tools/call" and MODE in HTTP_CALL_MODES and not CALLED:
            CALLED.append(msg["id"])  # only the first call: the next one is answered
            self.call_that_misbehaves(msg["id"])
            return
        reply = answer(msg)
        self.send_response(200)
        if MODE.startswith("deep_schema_sse_") and msg.get("method") == "tools/list":
            self.send_event(reply)
            return
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


    def send_event(self, reply: Any) -> None:
        """``reply`` as the one event of an event stream (a progress note before it)."""
        note = {"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "info", "data": "x"}}
        body = f"event: message\ndata: {json.dumps(note)}\n\nevent: message\ndata: {reply}\n\n".encode()
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def call_that_misbehaves(self, ident: Any) -> None:
        """A tools/call answered over HTTP the way ``MODE`` says (see HTTP_CALL_MODES)."""
        if MODE == "drop_call":  # the connection closed before any answer
            self.close_connection = True
            return
        event = MODE.endswith("sse")
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream" if event else "application/json")
        result = {"content": [{"type": "text", "text": "x"}]}
        whole = json.dumps({"jsonrpc": "2.0", "id": ident, "result": result})
        try:
            if MODE == "stall_sse":  # an event begun, then nothing
                self.end_headers()
                self.wfile.write(b"event: message\ndata: " + whole[:20].encode())
                self.wfile.flush()
                time.sleep(3600)
            elif MODE == "stall_json":  # half the body, then nothing
                self.send_header("Content-Length", str(len(whole)))
                self.end_headers()
                self.wfile.write(whole[:20].encode())
                self.wfile.flush()
                time.sleep(3600)
            elif MODE == "short_json":  # a Content-Length that lies, then the connection closes
                self.send_header("Content-Length", str(len(whole) + 1000))
                self.send_header("Connection", "close")
                self.end_headers()
                self.wfile.write(whole.encode())
                self.wfile.flush()
                self.close_connection = True
            elif MODE == "endless_sse":  # one event line that never ends
                self.end_headers()
                self.wfile.write(b"data: ")
                while True:
                    self.wfile.write(b"A" * (1 << 20))
        except OSError:
            return


HTTP_CALL_MODES = ("stall_sse", "stall_json", "short_json", "endless_sse", "drop_call")
"""Over HTTP only: how the first tools/call is answered (the handshake goes well)."""
CALLED: list[Any] = []


if __name__ == "__main__":
    if "--http" in sys.argv:
        port = int(sys.argv[sys.argv.index("--http") + 1])
        ThreadingHTTPServer(("127.0.0.1", port), Handler).serve_forever()
    else:
        serve_stdio()
