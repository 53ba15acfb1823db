"""``/mcp``: the MCP servers, how each stands, and starting one again.

A server that died mid-call, or failed to start (a first ``npx`` still
downloading, a token set too late), was gone until agent-shell itself was
started again; ``/mcp restart NAME`` starts it again in the background, and its
tools come back when it is ready, as at start.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from shell.core.textsafety import sanitize_line

from .registry import CommandResult

if TYPE_CHECKING:
    from shell.runtime import ShellRuntime

USAGE = "/mcp [restart NAME]"


def _complete_mcp(runtime: ShellRuntime, rest: str) -> list[str]:
    words = rest.split()
    if len(words) == 0 or (len(words) == 1 and not rest.endswith(" ")):
        return ["restart"]
    mcp = runtime.mcp
    return [s.name for s in mcp.statuses() if s.state in ("failed", "exited", "stopped")] if mcp else []


def mcp_command(runtime: ShellRuntime, arg: str) -> CommandResult:
    """``/mcp`` lists the servers; ``/mcp restart NAME`` starts a failed or exited one again."""
    mcp = runtime.mcp
    words = arg.strip().split(None, 1)  # a server's name may hold spaces
    if not words:
        if mcp is None or not mcp.statuses():
            return CommandResult("No MCP servers are configured (`mcp_servers` in the config, or a trusted "
                                 "`.mcp.json`).")
        rows = []
        for s in mcp.statuses():
            tools = f", {s.tools} tools" if s.state == "ready" else ""
            why = f": {sanitize_line(runtime.shown(s.message))[:300]}" if s.message else ""
            if s.log:  # the server's own words: for the user, redacted (the model never gets them)
                lines = "\n".join(f"      {line[:200]}" for line in runtime.shown(s.log).splitlines()[-8:])
                why += f"\n\n  its stderr (last lines):\n\n{lines}"
            where = " (starts in the workspace: cwd = \"workspace\")" if s.in_workspace else ""
            rows.append(f"- **{sanitize_line(s.name)}** ({s.transport}){where} {s.state}{tools}{why}")
        return CommandResult("MCP servers (`/mcp restart NAME` starts a failed or exited one again):\n\n"
                             + "\n".join(rows))
    if words[0] != "restart" or len(words) != 2:
        return CommandResult(f"Usage: `{USAGE}`", error=True)
    if mcp is None:
        return CommandResult("No MCP servers are configured.", error=True)
    problem = mcp.restart(words[1])
    if problem is not None:
        return CommandResult(sanitize_line(problem[0].upper() + problem[1:]) + ".", error=True)
    name = sanitize_line(words[1])
    if mcp.status(words[1]).transport == "stdio":
        return CommandResult(f"Starting the MCP server {name} again; its tools come back when it is ready "
                             "(`/mcp` shows how it stands).")
    return CommandResult(f"Connecting to the MCP server {name} again; its tools come back when it is ready "
                         "(`/mcp` shows how it stands). agent-shell does not start a server it reaches over "
                         "HTTP: if it stopped, start it first.")
