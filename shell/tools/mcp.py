"""MCP servers as tools: the names the rest of the shell uses.

The client is split by theme, imports going one way (each module imports only
those above it):

* :mod:`.mcp_status`: where a server stands (:class:`ServerStatus`);
* :mod:`.mcp_identity`: what each tool said it is, so that a change asks again;
* :mod:`.mcp_tool`: one server tool as the agent and the permission policy see it;
* :mod:`.mcp_relist`: the tool list listed again when the server says it changed;
* :mod:`.mcp_watch`: the messages between the SDK and its transport, watched (a lost
  answer fails only its call, a stray one is ignored);
* :mod:`.mcp_call`: the calls under way, progress, a server gone mid-call;
* :mod:`.mcp_server`: the connection to one server, for its whole life;
* :mod:`.mcp_manager`: every configured server, started in the background.

Below them: config (:mod:`.mcp_config`), where a stdio server starts and with what
environment and roots (:mod:`.mcp_launch`), transports (:mod:`.mcp_stdio`,
:mod:`.mcp_http`, :mod:`.mcp_events`), what the wire carries (:mod:`.mcp_wire`, :mod:`.mcp_ids`,
:mod:`.mcp_listing`, :mod:`.mcp_results`, :mod:`.mcp_schema`), the SDK's session
(:mod:`.mcp_session`) and call deadlines (:mod:`.mcp_deadline`).
"""

from __future__ import annotations

from .mcp_manager import CONNECT_TIMEOUT, McpManager
from .mcp_results import tool_name
from .mcp_server import McpServer
from .mcp_status import ServerStatus, State
from .mcp_tool import McpTool

__all__ = ["CONNECT_TIMEOUT", "McpManager", "McpServer", "McpTool", "ServerStatus", "State", "tool_name"]
