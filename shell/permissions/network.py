"""The address guard of network tools: no loopback, private, link-local or metadata
addresses unless a rule names the host.

``fetch_url`` runs on the user's machine, inside the user's network. A URL that a
model (or a page it read) chose could point at ``http://127.0.0.1:8080/admin``, a
router at ``192.168.1.1``, or the cloud metadata service at ``169.254.169.254``
that hands out credentials; a public name can resolve to any of those too. So
every connection a guarded client makes is checked *after* DNS resolution, to the
address it will use:

- each address the name resolves to must be a public one (:func:`blocked_reason`:
  loopback, RFC 1918 and ULA private, link-local, CGNAT, multicast, unspecified,
  reserved and documentation ranges are refused, also when wrapped in IPv6 as
  IPv4-mapped, 6to4, Teredo or NAT64);
- the connection goes to that checked address (pinned: there is no second DNS
  lookup for a rebinding server to answer differently), while TLS still verifies
  the certificate against the host name;
- redirects open new connections, and each is checked again, so a public page
  cannot bounce the request to ``localhost``.

A host the user named in a rule (``allowed_private_hosts``: a name, ``*.suffix``,
an address or a network such as ``10.0.0.0/8``) may be private. The permission
policy feeds those; this module only enforces. Environment proxies are not used
by guarded clients (a proxy would resolve names where they cannot be checked).
"""

from __future__ import annotations

import functools
import ipaddress
import socket
from collections.abc import Awaitable, Callable, Iterable
from typing import TYPE_CHECKING, Any

import anyio

if TYPE_CHECKING:
    import httpx

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
Resolver = Callable[[str, int], Awaitable[list[str]]]

_CGNAT = ipaddress.ip_network("100.64.0.0/10")
_NAT64 = ipaddress.ip_network("64:ff9b::/96")
_NAT64_LOCAL = ipaddress.ip_network("64:ff9b:1::/48")


class BlockedAddress(ConnectionError):
    """A connection to a non-public address that no rule allows; the message says
    which address, why, and how the user could allow it."""


def _embedded_v4(ip: ipaddress.IPv6Address) -> ipaddress.IPv4Address | None:
    """The IPv4 address an IPv6 one carries (mapped, 6to4, Teredo client, NAT64)."""
    if ip.ipv4_mapped is not None:
        return ip.ipv4_mapped
    if ip.sixtofour is not None:
        return ip.sixtofour
    if ip.teredo is not None:
        return ip.teredo[1]
    if ip in _NAT64 or ip in _NAT64_LOCAL:
        return ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF)
    return None


def blocked_reason(ip: IPAddress) -> str | None:
    """Why a connection to ``ip`` is refused by default, or None for a public address."""
    if isinstance(ip, ipaddress.IPv6Address):
        inner = _embedded_v4(ip)
        if inner is not None:
            why = blocked_reason(inner)
            return f"{why} (inside the IPv6 address {ip})" if why else None
    if ip.is_unspecified:
        return "an unspecified address"
    if ip.is_loopback:
        return "a loopback address (this machine)"
    if ip.is_link_local:
        return "a link-local address (where cloud metadata services answer)"
    if ip.is_multicast:
        return "a multicast address"
    if isinstance(ip, ipaddress.IPv4Address) and ip in _CGNAT:
        return "a shared (CGNAT) address"
    if ip.is_private:
        return "a private network address"
    if ip.is_reserved or not ip.is_global:
        return "a reserved, non-public address"
    return None


async def system_resolve(host: str, port: int) -> list[str]:
    """The addresses ``host`` resolves to (IP literals in any form included)."""
    infos = await anyio.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    return list(dict.fromkeys(str(info[4][0]).split("%", 1)[0] for info in infos))


class NetworkGuard:
    """Decides which addresses a network tool may connect to.

    ``allowed_private_hosts`` holds what rules named: host names (``db.local``),
    suffixes (``*.corp.example``), addresses (``127.0.0.1``) and networks
    (``10.0.0.0/8``). The policy adds and removes entries at any time; each
    connection reads the current set."""

    def __init__(
        self,
        allowed_private_hosts: Iterable[str] = (),
        *,
        resolver: Resolver | None = None,
        rule_hosts: Callable[[], Iterable[str]] | None = None,
    ) -> None:
        self.allowed_private_hosts: set[str] = {_norm(h) for h in allowed_private_hosts}
        self.resolver: Resolver = resolver or system_resolve
        self.rule_hosts = rule_hosts
        """Asked at each connection: the hosts the permission rules name right now."""

    def allow_private_host(self, host: str) -> None:
        self.allowed_private_hosts.add(_norm(host))

    def _entries(self) -> set[str]:
        if self.rule_hosts is None:
            return self.allowed_private_hosts
        return self.allowed_private_hosts | {_norm(h) for h in self.rule_hosts()}

    def _host_allowed(self, host: str) -> bool:
        name = _norm(host)
        for entry in self._entries():
            if name == entry or (entry.startswith("*.") and name.endswith(entry[1:])):
                return True
        return False

    def _address_allowed(self, ip: IPAddress) -> bool:
        for entry in self._entries():
            try:
                if ip in ipaddress.ip_network(entry, strict=False):
                    return True
            except ValueError:
                continue
        return False

    async def addresses(self, host: str, port: int) -> list[str]:
        """Resolve ``host`` once and return the addresses to connect to; raises
        :class:`BlockedAddress` when any of them is not public and not allowed."""
        try:
            found = await self.resolver(host, port)
        except OSError as exc:
            raise OSError(f"cannot resolve {host}: {exc.strerror or exc}") from None
        if not found:
            raise OSError(f"cannot resolve {host}: no addresses")
        if self._host_allowed(host):
            return found
        for text in found:
            ip = ipaddress.ip_address(text)
            why = blocked_reason(ip)
            if why and not self._address_allowed(ip):
                shown = host if host == text else f"{host} ({text})"
                raise BlockedAddress(
                    f"refused to connect to {shown}: it is {why}. Network tools reach only public "
                    f"addresses unless the user allows this host with a rule "
                    f"(e.g. fetch_url(domain:{_norm(host)}))."
                )
        return found

    def async_transport(self, **kwargs: Any) -> httpx.AsyncHTTPTransport:
        """An httpx transport whose every connection goes through this guard."""
        import httpx

        transport = httpx.AsyncHTTPTransport(**kwargs)
        pool = transport._pool
        if not hasattr(pool, "_network_backend"):  # an httpcore that changed its insides
            raise RuntimeError("this httpcore version cannot be guarded; refusing to fetch unguarded")
        pool._network_backend = _backend_class()(self)
        return transport


def _norm(host: str) -> str:
    return host.strip().strip("[]").rstrip(".").lower()


@functools.cache
def _backend_class() -> type[Any]:
    """httpcore's network backend with the guard in ``connect_tcp`` (built on first
    use: httpcore loads only when something is fetched)."""
    import httpcore

    class GuardedBackend(httpcore.AsyncNetworkBackend):
        """Resolve, check, then connect to the checked address itself (the host name
        still goes to TLS for the certificate check)."""

        def __init__(self, guard: NetworkGuard) -> None:
            self.guard = guard
            self.inner = httpcore.AnyIOBackend()

        async def connect_tcp(
            self,
            host: str,
            port: int,
            timeout: float | None = None,
            local_address: str | None = None,
            socket_options: Iterable[Any] | None = None,
        ) -> httpcore.AsyncNetworkStream:
            addresses = await self.guard.addresses(host, port)
            error: Exception = OSError(f"cannot connect to {host}")
            for address in addresses:
                try:
                    return await self.inner.connect_tcp(address, port, timeout, local_address, socket_options)
                except (httpcore.ConnectError, httpcore.ConnectTimeout) as exc:
                    error = exc
            raise error

        async def connect_unix_socket(
            self, path: str, timeout: float | None = None, socket_options: Iterable[Any] | None = None
        ) -> httpcore.AsyncNetworkStream:
            raise BlockedAddress("network tools do not connect to unix sockets")

        async def sleep(self, seconds: float) -> None:
            await self.inner.sleep(seconds)

    return GuardedBackend
