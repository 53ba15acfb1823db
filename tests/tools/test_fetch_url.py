"""fetch_url against a local HTTP server on 127.0.0.1 (allowed here by naming the
host, as a user's rule would; tests/permissions/test_network.py checks the refusals)."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from shell.core.tools import Tool
from shell.permissions.network import NetworkGuard
from shell.tools.builtin import builtin_tools
from shell.tools.web import MAX_DOWNLOAD_BYTES, FetchError, html_to_text, same_host
from shell.tools.workspace import Workspace

pytestmark = pytest.mark.anyio

PAGE = b"""<!doctype html><html><head><title>Test  page</title>
<style>body { color: red }</style><script>var hidden = 1;</script></head>
<body><nav><a href="/home">Home</a></nav>
<h1>Welcome</h1><p>Hello, <b>world</b> &amp; friends.</p>
<ul><li>first</li><li>second <a href="https://example.org/x">link</a></li></ul>
<pre>  keep   spacing</pre><noscript>no script</noscript></body></html>"""

ROUTES: dict[str, tuple[int, str, bytes]] = {
    "/page": (200, "text/html; charset=utf-8", PAGE),
    "/data.json": (200, "application/json", b'{"a": 1}'),
    "/image.png": (200, "image/png", b"\x89PNG\r\n\x1a\n" + bytes(100)),
    "/missing": (404, "text/plain", b"not here"),
    "/huge": (200, "text/plain", b"x" * (MAX_DOWNLOAD_BYTES + 100_000)),
}


SEEN: list[str] = []


class Handler(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        SEEN.append(f"{self.headers.get('Host', '').split(':')[0]} {self.path}")
        if self.path.startswith("/away"):
            # An open redirect: to another host (the same server under another name).
            port = self.server.server_address[1]
            self.send_response(302)
            self.send_header("Location", f"http://localhost:{port}/leak?k=SECRET")
            self.end_headers()
            return
        if self.path == "/redirect":
            self.send_response(302)
            self.send_header("Location", "/page")
            self.end_headers()
            return
        status, media, body = ROUTES.get(self.path, (404, "text/plain", b"?"))
        self.send_response(status)
        self.send_header("Content-Type", media)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        try:
            self.wfile.write(body)
        except (BrokenPipeError, ConnectionResetError):
            pass

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture
def tools(workspace: Workspace) -> dict[str, Tool]:
    guard = NetworkGuard(["127.0.0.1"])
    return {t.name: t for t in builtin_tools(workspace, network_guard=guard)}


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()
    httpd.server_close()


async def test_html_becomes_readable_text(server: str, call: Any) -> None:
    result = await call("fetch_url", url=f"{server}/page")
    text = result.text
    assert not result.is_error
    assert "# Test page" in text
    assert "# Welcome" in text
    assert "Hello, world & friends." in text
    assert "- first" in text and "- second link (https://example.org/x)" in text
    assert f"Home ({server}/home)" in text
    assert "  keep   spacing" in text
    for hidden in ("color: red", "var hidden", "no script"):
        assert hidden not in text


async def test_redirects_json_and_errors(server: str, call: Any) -> None:
    result = await call("fetch_url", url=f"{server}/redirect")
    assert "Welcome" in result.text and result.details["url"] == f"{server}/page"
    assert '{"a": 1}' in (await call("fetch_url", url=f"{server}/data.json")).text
    missing = await call("fetch_url", url=f"{server}/missing")
    assert missing.is_error and "HTTP 404" in missing.text and "not here" in missing.text
    image = await call("fetch_url", url=f"{server}/image.png")
    assert "image/png" in image.text and "does not show as text" in image.text


async def test_a_redirect_to_another_host_is_not_followed(server: str, call: Any) -> None:
    """An allow rule or an approval covers the host asked for; an open redirect on it
    must not carry the request (query string and all) to a host nobody approved."""
    SEEN.clear()
    result = await call("fetch_url", url=f"{server}/away")
    port = server.rsplit(":", 1)[1]
    assert SEEN == ["127.0.0.1 /away"]
    assert result.details["redirect_to"] == f"http://localhost:{port}/leak?k=SECRET"
    assert "redirected (302) to another host" in result.text
    assert "call fetch_url with that URL" in result.text


def test_same_host_means_the_hostname() -> None:
    assert same_host("http://example.com/a", "https://EXAMPLE.com:8443/b?x=1")
    assert same_host("https://example.com./a", "https://example.com/b")
    assert not same_host("https://example.com/a", "https://www.example.com/a")
    assert not same_host("https://example.com/a", "https://example.com.evil.org/a")
    assert not same_host("https://example.com/a", "https://evil.org/?u=https://example.com")


async def test_size_cap(server: str, call: Any) -> None:
    result = await call("fetch_url", url=f"{server}/huge")
    assert f"download stopped at {MAX_DOWNLOAD_BYTES} bytes" in result.text
    assert "text cut at" in result.text
    assert len(result.text) < 101_000


async def test_bad_urls(call: Any) -> None:
    with pytest.raises(FetchError, match="not an http"):
        await call("fetch_url", url="file:///etc/passwd")
    with pytest.raises(FetchError, match="Could not fetch"):
        await call("fetch_url", url="http://127.0.0.1:9/")


def test_html_to_text_without_title() -> None:
    assert html_to_text("<p>a</p><p>b</p>") == "a\n\nb"
