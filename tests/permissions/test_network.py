"""The network guard of fetch_url, against real HTTP servers on 127.0.0.1: a refused
address must not receive a single request, whatever spelling or redirect leads there."""

from __future__ import annotations

import ipaddress
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from shell.permissions.network import NetworkGuard, blocked_reason
from shell.tools.web import FetchError, fetch

pytestmark = pytest.mark.anyio


class Recording(ThreadingHTTPServer):
    """An HTTP server that records each request (path and Host header); ``/bounce``
    redirects to ``self.redirect_to``."""

    def __init__(self, host: str = "127.0.0.1") -> None:
        self.requests: list[tuple[str, str]] = []
        self.redirect_to = ""
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                server.requests.append((self.path, self.headers.get("Host", "")))
                if self.path == "/bounce":
                    self.send_response(302)
                    self.send_header("Location", server.redirect_to)
                    self.end_headers()
                    return
                body = b"served"
                self.send_response(200)
                self.send_header("Content-Type", "text/plain")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: Any) -> None:
                pass

        super().__init__((host, 0), Handler)
        self.port = self.server_address[1]
        threading.Thread(target=self.serve_forever, daemon=True).start()


@pytest.fixture
def server() -> Iterator[Recording]:
    s = Recording()
    yield s
    s.shutdown()
    s.server_close()


@pytest.fixture
def second() -> Iterator[Recording]:
    s = Recording("127.0.0.2")  # another loopback address, which no rule names
    yield s
    s.shutdown()
    s.server_close()


REFUSED = [
    "127.0.0.1", "127.8.9.10", "::1", "10.1.2.3", "172.16.0.1", "192.168.1.1", "fc00::1",
    "fd00:ec2::254", "169.254.169.254", "fe80::1", "100.64.0.1", "100.100.100.200", "224.0.0.1",
    "ff02::1", "0.0.0.0", "::", "::ffff:127.0.0.1", "::ffff:169.254.169.254", "2002:7f00:1::1",
    "64:ff9b::a9fe:a9fe", "192.0.2.1", "240.0.0.1", "255.255.255.255",
]  # fmt: skip
PUBLIC = ["8.8.8.8", "1.1.1.1", "93.184.216.34", "2606:4700:4700::1111", "::ffff:8.8.8.8"]


@pytest.mark.parametrize("address", REFUSED)
def test_non_public_addresses_are_refused(address: str) -> None:
    assert blocked_reason(ipaddress.ip_address(address)) is not None


@pytest.mark.parametrize("address", PUBLIC)
def test_public_addresses_pass(address: str) -> None:
    assert blocked_reason(ipaddress.ip_address(address)) is None


@pytest.mark.parametrize(
    "spelling",
    ["127.0.0.1", "localhost", "127.1", "2130706433", "0x7f.0.0.1", "[::ffff:127.0.0.1]", "LOCALHOST."],
)
async def test_loopback_in_any_spelling_gets_no_request(server: Recording, spelling: str) -> None:
    with pytest.raises(FetchError) as caught:
        await fetch(f"http://{spelling}:{server.port}/?d=secret")
    assert server.requests == []
    assert "refused" in str(caught.value) or "Could not fetch" in str(caught.value)


async def test_the_refusal_says_why_and_how_to_allow() -> None:
    why = r"169\.254\.169\.254.*link-local.*fetch_url\(domain:169\.254\.169\.254\)"
    with pytest.raises(FetchError, match=why):
        await fetch("http://169.254.169.254/latest/meta-data/")


async def test_a_host_named_by_a_rule_is_served(server: Recording) -> None:
    result = await fetch(f"http://127.0.0.1:{server.port}/ok", guard=NetworkGuard(["127.0.0.1"]))
    assert "served" in result.text and server.requests == [("/ok", f"127.0.0.1:{server.port}")]
    by_network = await fetch(f"http://127.0.0.1:{server.port}/net", guard=NetworkGuard(["127.0.0.0/8"]))
    assert "served" in by_network.text


async def test_a_redirect_to_another_host_is_not_followed(server: Recording, second: Recording) -> None:
    """The allowed host bounces the request to another one: not followed, even where
    the guard would allow the address (the rules judged the host asked for, not the
    one it bounces to), and the second server hears nothing; the model is told where."""
    server.redirect_to = f"http://127.0.0.2:{second.port}/?d=secret"
    result = await fetch(f"http://127.0.0.1:{server.port}/bounce", guard=NetworkGuard(["127.0.0.0/8"]))
    assert server.requests == [("/bounce", f"127.0.0.1:{server.port}")]
    assert second.requests == []
    assert result.details["redirect_to"] == f"http://127.0.0.2:{second.port}/?d=secret"


async def test_the_checked_address_is_the_one_connected_to(server: Recording) -> None:
    """One lookup per connection, through the guard's resolver: the system resolver
    (which does not know this name) is never asked, so a rebinding DNS server gets
    no second chance to answer differently."""
    lookups: list[str] = []

    async def resolver(host: str, port: int) -> list[str]:
        lookups.append(host)
        return ["127.0.0.1"]

    guard = NetworkGuard(["pinned.invalid"], resolver=resolver)
    result = await fetch(f"http://pinned.invalid:{server.port}/x", guard=guard)
    assert "served" in result.text
    assert lookups == ["pinned.invalid"]
    assert server.requests == [("/x", f"pinned.invalid:{server.port}")]


async def test_a_name_with_any_private_address_is_refused(server: Recording) -> None:
    async def resolver(host: str, port: int) -> list[str]:
        return ["93.184.216.34", "127.0.0.1"]

    with pytest.raises(FetchError, match="loopback"):
        await fetch(f"http://mixed.invalid:{server.port}/", guard=NetworkGuard(resolver=resolver))
    assert server.requests == []


def test_rules_match_names_suffixes_and_networks() -> None:
    guard = NetworkGuard(["db.local", "*.corp.example", "10.0.0.0/8"])
    assert guard._host_allowed("DB.local.") and guard._host_allowed("a.b.corp.example")
    assert not guard._host_allowed("corp.example.evil") and not guard._host_allowed("local")
    assert guard._address_allowed(ipaddress.ip_address("10.9.8.7"))
    assert not guard._address_allowed(ipaddress.ip_address("192.168.0.1"))


async def test_the_permission_rules_feed_the_guard(server: Recording) -> None:
    """A `fetch_url(domain:HOST)` allow rule is read at each connection."""
    named: list[str] = []
    guard = NetworkGuard(rule_hosts=lambda: named)
    with pytest.raises(FetchError):
        await fetch(f"http://127.0.0.1:{server.port}/a", guard=guard)
    named.append("127.0.0.1")
    assert "served" in (await fetch(f"http://127.0.0.1:{server.port}/b", guard=guard)).text
    assert [path for path, _ in server.requests] == ["/b"]
