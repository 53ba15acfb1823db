"""Slash commands, shared by every front end.

A command takes the :class:`~shell.runtime.ShellRuntime` and the text after its
name and returns a :class:`CommandResult` (see :mod:`.registry`). Each front end
owns its registry (:func:`default_commands` makes a fresh one of the built-ins
below) and adds its own commands to it (the TUI's ``/theme``, ``/trace``,
``/speak``; the line mode's ``/play``, ``/save``), so ``/help``, completion and
the command palette list them all; the runtime knows nothing of commands.

The built-ins live by topic: :mod:`.agent` (model, middleware, tools),
:mod:`.session` (the conversation and its sessions), :mod:`.context` (what the
model reads), :mod:`.permission` (modes, rules, trust).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .agent import _complete_middleware, _complete_model, format_models, middleware_command, model_command
from .agent import tools_command as _tools
from .context import compact_command, context_breakdown, context_command, image_command, instructions_command
from .mcp import USAGE as MCP_USAGE
from .mcp import _complete_mcp, mcp_command
from .permission import (
    _complete_permissions,
    _modes,
    add_dir_command,
    mode_command,
    permissions_command,
    quarantine_command,
    trust_command,
)
from .registry import Action, Command, CommandRegistry, CommandResult, Completer, Handler, is_command
from .session import (
    REWIND_USAGE,
    copy_command,
    export_command,
    fork_command,
    new_command,
    rename_command,
    resume_command,
    rewind_command,
    sessions_command,
)

if TYPE_CHECKING:
    from shell.runtime import ShellRuntime

__all__ = [
    "Action", "Command", "CommandRegistry", "CommandResult", "Completer", "Handler", "context_breakdown",
    "default_commands", "format_models", "is_command",
]


def _quit(runtime: ShellRuntime, arg: str) -> CommandResult:
    return CommandResult(action="quit")


BUILTINS: tuple[Command, ...] = (
    Command("model", "Show the model, list the models, or switch", model_command,
            "/model [list | SPEC]", complete=_complete_model),
    Command("new", "Start a new conversation (the screen is cleared, the token counts start again)",
            new_command, "/new", aliases=("clear",)),
    Command("middleware", "List the middleware, or switch one on or off", middleware_command,
            "/middleware [NAME [on|off]]", aliases=("mw",), complete=_complete_middleware),
    Command("tools", "List the tools the model can call", _tools, "/tools"),
    Command("mcp", "List the MCP servers, or start a failed or exited one again", mcp_command, MCP_USAGE,
            complete=_complete_mcp),
    Command("sessions", "List this directory's sessions, or search every session for words",
            sessions_command, "/sessions [QUERY]"),
    Command("resume", "Open a saved session (its number in /sessions, or its id)", resume_command,
            "/resume N|ID"),
    Command("export",
            "Write the conversation as Markdown (to agent-shell's exports folder, or PATH; "
            "never over a file unless --force, outside the workspace only with --outside)",
            export_command, "/export [PATH] [--force] [--outside]"),
    Command("mode", "Show the permission mode, or switch it", mode_command, "/mode [MODE]",
            complete=lambda runtime, rest: list(_modes())),
    Command("trust", "Show this workspace's own config (.mcp.json), trust or decline it", trust_command,
            "/trust [yes | no | forget]", complete=lambda runtime, rest: ["yes", "no", "forget"]),
    Command("add-dir", "Add a directory to the workspace for this run (or list the added ones)",
            add_dir_command, "/add-dir [DIR]"),
    Command("quarantine", "List what the sandbox moved out of the workspace, or put one back",
            quarantine_command, "/quarantine [restore N]", complete=lambda runtime, rest: ["restore"]),
    Command("permissions", "List the permission rules, add, edit or remove one", permissions_command,
            "/permissions [allow|ask|deny RULE [--project|--user] | edit N RULE | remove N]",
            aliases=("perms",), complete=_complete_permissions),
    Command("instructions", "Show the instruction files the model reads (AGENTS.md, CLAUDE.md)",
            instructions_command, "/instructions [show]", complete=lambda runtime, rest: ["show"]),
    Command("context", "Show where the tokens of the next request go", context_command, "/context"),
    Command("compact", "Summarise the conversation now (what to keep); `show` shows it as it was",
            compact_command, "/compact [FOCUS | show [N]]", complete=lambda runtime, rest: ["show"]),
    Command("image", "Add an image to the next message (a file, or the clipboard's)", image_command,
            "/image [PATH | paste | clear]", complete=lambda runtime, rest: ["paste", "clear"]),
    Command("rewind", "Go back to before a message: the conversation, the files, or both", rewind_command,
            REWIND_USAGE, aliases=("undo",),
            complete=lambda runtime, rest: ["both", "conversation", "files"] if rest.split() else []),
    Command("copy", "Copy the last reply, or its Nth code block, to the clipboard", copy_command,
            "/copy [N]"),
    Command("rename", "Name this session (shown by /sessions and --resume)", rename_command, "/rename TITLE"),
    Command("fork", "Carry on in a new session (from before message N); this one stays as it is",
            fork_command, "/fork [N]"),
    Command("quit", "Leave the shell", _quit, "/quit", aliases=("exit", "q")),
)
"""The built-in commands, in the order ``/help`` lists them (after ``/help`` itself)."""


def default_commands() -> CommandRegistry:
    """A fresh registry of the built-in commands (each front end owns one; ``/help``
    lists whatever the front end added to it too)."""
    reg = CommandRegistry()
    reg.register(Command("help", "List the commands, or explain one", reg.help, "/help [COMMAND]"))
    for command in BUILTINS:
        reg.register(command)
    return reg
