"""The most tools one request may offer, for a provider whose API has a limit.

Why: OpenAI's chat API refuses a request with more than 128 tools (400 "array too
long"), and that is every request of the session. Each MCP server's tools were
bounded (:data:`shell.tools.mcp_schema.MAX_TOOLS`), but not the request: two servers
of 100 tools put 208 in it and nothing was said (finding Y13). The cap is applied
to the request as the provider builds it, after the middleware chose (an
``LLMToolSelector`` that picks 20 of 300 leaves nothing out here): the agent's own
and the middleware's tools are kept first, then MCP tools in the order their
servers are listed, and the user is told once which were left out and how to choose.
"""

from __future__ import annotations

from collections.abc import Sequence

from shell.core.tools import Tool, is_mcp

SHOWN = 8
"""Left-out tool names the notice lists before it says how many more."""


def capped(tools: Sequence[Tool], limit: int, keep: str | None = None) -> tuple[list[Tool], list[Tool]]:
    """``(offered, left_out)``, each in the order given: at most ``limit`` tools,
    the one named ``keep`` (a forced tool choice) and the non-MCP ones first."""
    if len(tools) <= limit:
        return list(tools), []
    first = [t for t in tools if t.name == keep]
    ranked = first + [t for t in tools if not is_mcp(t) and t not in first]
    ranked += [t for t in tools if is_mcp(t) and t not in first]
    chosen = {id(t) for t in ranked[:limit]}
    return [t for t in tools if id(t) in chosen], [t for t in tools if id(t) not in chosen]


def left_out_notice(label: str, limit: int, offered: int, left_out: Sequence[Tool]) -> str:
    """What the user reads once: how many and which tools the model does not see, why,
    and how to choose which it does."""
    names = [t.name for t in left_out]
    listed = ", ".join(names[:SHOWN]) + (f" and {len(names) - SHOWN} more" if len(names) > SHOWN else "")
    return (
        f"{label} takes at most {limit} tools in one request: {len(names)} of the "
        f"{offered + len(names)} tools were left out ({listed}); the model cannot call them. "
        "To choose which tools it sees, switch on the LLMToolSelector middleware "
        "(--middleware LLMToolSelector, or enabled = [\"LLMToolSelector\"] under [middleware]) "
        "or remove a server from [mcp_servers]."
    )
