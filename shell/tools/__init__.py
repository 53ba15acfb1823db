"""Built-in tools (files, search, shell, web), the workspace fence, and MCP tools.

workspace = Workspace()                     # the directory the shell started in
tools = builtin_tools(workspace)            # the eight built-in tools
mcp = McpManager(config_servers, workspace_root=workspace.root)
await mcp.start(task_group)                 # connects in the background
agent_tools = [*tools, *mcp.tools()]        # MCP tools appear once ready
"""

from .builtin import builtin_tools
from .listing import ToolInfo, describe_tools, tool_source
from .mcp import McpManager, McpTool, ServerStatus
from .mcp_config import McpServerSpec, load_project_servers, parse_servers
from .workspace import OutsideWorkspaceError, Workspace

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
