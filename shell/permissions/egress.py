"""A secret going out in a call's arguments: a URL ``fetch_url`` would open, what an
MCP tool sends its server (finding K12).

An allow rule on ``fetch_url(domain:docs.python.org)`` grants reading that site, not
sending it the user's keys in a query; a wildcard on a shared host (``*.github.io``)
reaches anyone's subdomain. So a network call whose arguments hold a value the one
secrets policy (:mod:`shell.core.secrets`) recognises asks in every mode but bypass,
whatever allow rules say, as a command line naming a secret file does.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Any

from shell.core.secrets import is_secret_name, mask, secret_going_out

from .mcppaths import is_mcp

if TYPE_CHECKING:
    from shell.core.secrets import Secrets
    from shell.core.tools import Tool

_MAX_STRINGS = 256


def secret_sent(tool: Tool, args: Mapping[str, Any]) -> str:
    """The question for a network call (``fetch_url``, an MCP tool) whose arguments
    carry a secret, naming its kind and the secret masked; or empty."""
    if not (tool.kind == "fetch" or is_mcp(tool)):
        return ""
    secrets = _secrets(frozenset((k, v) for k, v in os.environ.items() if is_secret_name(k)))
    for text in _strings(args):
        found = secret_going_out(text, secrets)
        if found is not None:
            kind, value = found
            what = "arguments" if is_mcp(tool) else "a URL"
            return (f"{tool.name} would send {what} holding a secret ({kind}: {mask(value)}) out over the "
                    "network. Approve only if you meant to send it there; allow rules do not cover it.")
    return ""


def _strings(value: Any) -> Iterator[str]:
    """The strings of a JSON value, breadth first, at most :data:`_MAX_STRINGS`."""
    queue, seen = [value], 0
    while queue and seen < _MAX_STRINGS:
        item = queue.pop(0)
        if isinstance(item, str):
            seen += 1
            yield item
        elif isinstance(item, Mapping):
            queue.extend(item.values())
        elif isinstance(item, (list, tuple)):
            queue.extend(item)


@functools.lru_cache(maxsize=4)
def _secrets(environment: frozenset[tuple[str, str]]) -> Secrets:
    """Shapes, the environment's secret values and the config's (cached per environment)."""
    from shell.core.secrets import Secrets, secret_values

    from .sandboxenv import known_secret_values

    return Secrets({*secret_values(dict(environment)), *known_secret_values()})


__all__ = ["secret_sent"]
