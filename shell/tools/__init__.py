"""Built-in tools (files, search, shell, web), the workspace fence, and MCP tools.

workspace = Workspace()                     # the directory the shell started in
tools = builtin_tools(workspace)            # the eight built-in tools
mcp = McpManager(config_servers, workspace_root=workspace.root,
                 project_servers=trusted_project_servers)   # see shell.permissions.trust
await mcp.start(task_group)                 # connects in the background
agent_tools = [*tools, *mcp.tools()]        # MCP tools appear once ready
"""

from typing import TYPE_CHECKING, Any

from .builtin import builtin_tools
from .listing import ToolInfo, describe_tools, tool_source
from .mcp_config import McpServerSpec, load_project_servers, parse_servers
from .workspace import OutsideWorkspaceError, Workspace

if TYPE_CHECKING:
    from .mcp import McpManager, McpTool, ServerStatus


def __getattr__(name: str) -> Any:
    # The MCP client (and the mcp SDK behind it) loads when first asked for, so a
    # shell with no MCP servers never pays for it at start-up.
    if name in ("McpManager", "McpTool", "ServerStatus"):
        from . import mcp

        return getattr(mcp, name)
    raise AttributeError(f"module 'shell.tools' has no attribute {name!r}")

__all__ = [
    "McpManager",
    "McpServerSpec",
    "McpTool",
    "OutsideWorkspaceError",
    "ServerStatus",
    "ToolInfo",
    "Workspace",
    "builtin_tools",
    "describe_tools",
    "load_project_servers",
    "parse_servers",
    "tool_source",
]
