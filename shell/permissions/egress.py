"""A secret going out in a call's arguments: a URL ``fetch_url`` would open, what an
MCP tool sends its server (finding K12).

An allow rule on ``fetch_url(domain:docs.python.org)`` grants reading that site, not
sending it the user's keys in a query; a wildcard on a shared host (``*.github.io``)
reaches anyone's subdomain. So a network call whose arguments hold a value the one
secrets policy (:mod:`shell.core.secrets`) recognises asks in every mode but bypass,
whatever allow rules say, as a command line naming a secret file does. What is too
large to look through asks too: a cap that is hit must not pass the rest as clean. A
key split over several arguments, or sent as numbers, is put back together by
:mod:`.egresspieces` and looked for the same way; a known value lower-cased, spaced,
rot13'd or half of it, by :mod:`.egressfolded`.
"""

from __future__ import annotations

import functools
import os
import time
from collections import deque
from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Any

from shell.core.secrets import MAX_CHECKED_TEXT, TOO_LONG, is_secret_name, mask, secret_going_out

from .egressfolded import respelled_value
from .egresspieces import EDGE, joined_texts, pieced_value
from .mcppaths import is_mcp
from .sandboxenv import known_secret_values

if TYPE_CHECKING:
    from shell.core.secrets import Secrets
    from shell.core.tools import Tool

MAX_STRINGS = 10_000
MAX_CHARACTERS = 1 << 20
"""What one call's arguments may hold and still be looked through; past either the
call asks (finding L1: a cap of 256 strings let the 257th carry a key unasked)."""
MAX_SECONDS = 10.0
"""Time the call's strings may take to look through (a megabyte of the worst shapes takes
~2.5 s of CPU since finding Z5); past it the call asks as too large to check, not clean:
a net under the caps above for a loaded machine, not what bounds the cost."""


def sends_out(tool: Tool, args: Mapping[str, Any]) -> bool:
    """Whether the call reaches the network with what its arguments hold: ``fetch_url``, an
    MCP tool, and a command run with ``network: true`` (``curl``, ``wget``, ``nc``, ``ssh``,
    ``git push`` …: without it the sandbox has no network, so nothing leaves)."""
    return tool.kind == "fetch" or is_mcp(tool) or (tool.kind == "execute" and bool(args.get("network")))


def secret_sent(tool: Tool, args: Mapping[str, Any]) -> str:
    """The question for a network call (``fetch_url``, an MCP tool, a command with the
    network: :func:`sends_out`) whose arguments carry a secret, naming its kind and the
    secret masked; or one that could not be looked through whole; or empty."""
    if not sends_out(tool, args):
        return ""
    secrets = _secrets(frozenset((k, v) for k, v in os.environ.items() if is_secret_name(k)),
                       known_secret_values())
    what = "arguments" if is_mcp(tool) else "a command line" if tool.kind == "execute" else "a URL"
    budget = MAX_CHARACTERS
    deadline = time.monotonic() + MAX_SECONDS
    decodings: list[str] = []  # what the strings' encodings said: for a value respelled, then encoded
    for text in argument_strings(args):
        budget -= len(text) if text is not None else 0
        found = (secret_going_out(text, secrets, decodings) if text is not None and budget >= 0
                 and time.monotonic() < deadline else (TOO_LONG, ""))
        if found is not None:
            kind, value = found
            if kind == TOO_LONG:
                return (f"{tool.name} would send {what} too large to check for secrets (more than "
                        f"{MAX_STRINGS:,} strings or {MAX_CHARACTERS >> 20} MB, or a string over "
                        f"{MAX_CHECKED_TEXT >> 10} KB, or more than {MAX_SECONDS:.0f} s of looking) out "
                        "over the network. Approve only if you know what it sends; allow rules do not "
                        "cover it.")
            return _holding(tool.name, what, kind, value)
    for how, text in joined_texts(args):
        if (found := _going_out(text, secrets)) is not None:
            return _holding(tool.name, what, f"{found[0]}, {how}" if how else found[0], found[1])
    if (pieced := pieced_value(args, secrets.values, decodings)) is not None:  # reordered, spread (Z4, D20)
        return _holding(tool.name, what, "a known secret value, in pieces over the call", pieced)
    strings = [t for t in argument_strings(args) if t is not None]
    if (respelled := respelled_value(strings, secrets.values)) is not None:
        return _holding(tool.name, what, f"a known secret value, {respelled[0]}", respelled[1])
    if decodings and (respelled := respelled_value(decodings, secrets.values)) is not None:
        return _holding(tool.name, what, f"a known secret value, {respelled[0]}, then encoded", respelled[1])
    return ""


def _holding(name: str, what: str, kind: str, value: str) -> str:
    return (f"{name} would send {what} holding a secret ({kind}: {mask(value)}) out over the "
            "network. Approve only if you meant to send it there; allow rules do not cover it.")


def _going_out(text: str, secrets: Secrets) -> tuple[str, str] | None:
    """A secret in a text put together from pieces, looked through in overlapping
    windows when it is longer than the policy reads at once (each piece was checked
    whole already, or asked as too large: a joined text over the cap is no reason to
    ask)."""
    step = MAX_CHECKED_TEXT - 2 * EDGE
    for start in range(0, max(1, len(text) - 2 * EDGE), step):
        found = secret_going_out(text[start : start + MAX_CHECKED_TEXT], secrets)
        if found is not None and found[0] != TOO_LONG:
            return found
    return None


def argument_strings(value: Any) -> Iterator[str | None]:
    """The strings of a JSON value, mapping keys included, breadth first; ``None`` once
    past :data:`MAX_STRINGS` (the rest is not looked at, and is not called clean)."""
    queue, seen = deque([value]), 0
    while queue:
        item = queue.popleft()
        if isinstance(item, str):
            seen += 1
            if seen > MAX_STRINGS:
                yield None
                return
            yield item
        elif isinstance(item, Mapping):
            for key, inner in item.items():
                queue.append(key if isinstance(key, str) else str(key))
                queue.append(inner)
        elif isinstance(item, (list, tuple)):
            queue.extend(item)


@functools.lru_cache(maxsize=4)
def _secrets(environment: frozenset[tuple[str, str]], known: frozenset[str]) -> Secrets:
    """Shapes, the environment's secret values and the config's (cached per both: a
    trusted ``.mcp.json`` adds its keys mid-session)."""
    from shell.core.secrets import Secrets, secret_values

    return Secrets({*secret_values(dict(environment)), *known})


__all__ = ["argument_strings", "secret_sent", "sends_out"]
