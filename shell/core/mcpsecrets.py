"""The secret values an MCP server's settings carry, for the one secrets policy.

An MCP server is given its keys in its settings, as a provider is: ``env``
(``SERVICE_TOKEN``, a ``DB_URL`` with a password), ``headers`` (``Authorization:
Bearer …``), a URL with a password, a ``?token=`` or a key-like path segment in it,
an argument after ``--api-key`` or one that looks like a key by itself. These values
were unknown to the policy (findings Q4, S7): a command read them from ``.mcp.json``
and ``fetch_url`` sent them anywhere an allow rule reached, unasked. :func:`mcp_secret_values` names them, for
:func:`shell.core.secrets.secret_values` (the user's config) and for a trusted
workspace's ``.mcp.json`` (:mod:`shell.permissions.configcreds`).

A server is read by attribute or by key (``MCPServerSettings``, ``McpServerSpec``,
a ``.mcp.json`` entry), as this module sits below all of them. A value still
holding ``${VAR}`` names a variable, not a secret, and is left out.
"""

from __future__ import annotations

import re
import urllib.parse
from collections.abc import Iterable, Mapping
from typing import Any

from .secrets import is_secret_name

_URL_PASSWORD = re.compile(r"[a-z][a-z0-9+.-]*://[^/\s:@]*:([^/\s@]+)@", re.I)
"""``postgres://admin:PASSWORD@db``: the password of a URL."""


def _field(server: Any, name: str) -> Any:
    return server.get(name) if isinstance(server, Mapping) else getattr(server, name, None)


def _strings(value: Any) -> Iterable[tuple[str, str]]:
    """A mapping's ``(name, value)`` string pairs; nothing for anything else."""
    if isinstance(value, Mapping):
        yield from ((str(k), v) for k, v in value.items() if isinstance(v, str))


_URL_PATH = re.compile(r"[a-z][a-z0-9+.-]*://[^/\s?#]+(/[^\s?#]*)", re.I)
_KEYISH = re.compile(r"[A-Za-z0-9_-]{16,}")
_MIXED_PART = re.compile(r"(?=[A-Za-z0-9]*[0-9])(?=[A-Za-z0-9]*[A-Za-z])[A-Za-z0-9]{6,}")


def looks_like_key(word: str) -> bool:
    """Whether a bare word looks like a key rather than a name: 16 or more letters, digits,
    ``-`` and ``_``, with a stretch of 6 or more mixing letters and digits
    (``ZAPSECRETabc123XYZ789``, a UUID); not ``my-project-2024-backend``, not a package."""
    if not _KEYISH.fullmatch(word):
        return False
    return any(_MIXED_PART.fullmatch(part) for part in re.split(r"[-_]", word))


def _in_text(value: str) -> set[str]:
    """What a value that is not a secret by its name still carries: a URL's password,
    a query parameter with a secret name (``?token=…``, ``&api_key=…``), a path segment
    that looks like a key (hosted MCP URLs are their own credential: Zapier's
    ``/api/mcp/s/<key>/mcp``, Composio's, a Slack webhook's ``/services/T…/B…/<key>``;
    finding S7)."""
    found = set(_URL_PASSWORD.findall(value))
    if "?" in value:
        query = value.split("?", 1)[1].split("#", 1)[0]
        found |= {v for k, v in urllib.parse.parse_qsl(query) if is_secret_name(k) and v}
    for path in _URL_PATH.findall(value):
        found |= {seg for seg in path.split("/") if looks_like_key(seg)}
    return found


def server_secret_values(server: Any) -> set[str]:
    """The secret values one MCP server's settings hold (see the module docstring)."""
    found: set[str] = set()
    for name, value in _strings(_field(server, "env")):
        found |= {value} if is_secret_name(name) else _in_text(value)
    for name, value in _strings(_field(server, "headers")):
        if is_secret_name(name):
            found |= {value, value.split(None, 1)[-1]}  # "Bearer xyz": the header, and xyz
        else:
            found |= _in_text(value)
    url = _field(server, "url")
    if isinstance(url, str):
        found |= _in_text(url)
    args = _field(server, "args")
    words = [a for a in args if isinstance(a, str)] if isinstance(args, (list, tuple)) else []
    for before, word in zip(["", *words], words, strict=False):
        flag, equals, given = word.partition("=")
        if equals and flag.startswith("-") and is_secret_name(flag.lstrip("-")):
            found.add(given)  # --api-key=xyz
        elif before.startswith("-") and "=" not in before and is_secret_name(before.lstrip("-")):
            found.add(word)  # --api-key xyz
        elif not word.startswith("-") and looks_like_key(word):
            found.add(word)  # a bare key: `server sk1234…`
        else:
            found |= _in_text(word)
    return {v.strip() for v in found if v.strip() and "${" not in v}


def mcp_secret_values(servers: Iterable[Any]) -> set[str]:
    """The secret values of every server in ``servers``."""
    found: set[str] = set()
    for server in servers:
        found |= server_secret_values(server)
    return found


__all__ = ["looks_like_key", "mcp_secret_values", "server_secret_values"]
