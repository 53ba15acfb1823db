"""The TUI's own slash commands, in the app's one registry beside the shared ones.

``/theme`` switches and remembers the theme, ``/trace`` opens the trace view,
``/speak`` sets spoken replies, ``/help`` opens the help screen (``/help NAME``
explains one command), ``/rewind`` with no argument opens the rewind dialog
(with one, it is the shared command). Each is a :class:`~shell.commands.Command` like the
others, so ``/help``, completion and the command palette list them; what only
the screen can do comes back as an ``action`` (``help``, ``trace``).
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING

import anyio
import anyio.to_thread

import themes
from shell.commands import Command, CommandRegistry, CommandResult, default_commands
from shell.commands.session import rewind_command as shared_rewind_command

from . import prefs, speech

if TYPE_CHECKING:
    from shell.runtime import ShellRuntime

    from .app import AgentShellApp


def tui_commands(app: AgentShellApp) -> CommandRegistry:
    """The shared built-ins and the TUI's own, bound to ``app``."""
    registry = default_commands()

    def help_command(runtime: ShellRuntime, arg: str) -> CommandResult:
        return registry.help(runtime, arg) if arg else CommandResult(action="help")

    def theme_command(runtime: ShellRuntime, arg: str) -> CommandResult:
        names = [t.name for t in themes.all_themes()]
        name = arg.strip()
        if not name:
            listing = ", ".join(f"**{n}**" if n == app.theme else n for n in names)
            return CommandResult(f"Themes: {listing}. `/theme NAME` switches.")
        if name not in app.available_themes:
            return CommandResult(f"No theme {name!r}. Themes: {', '.join(names)}.", error=True)
        app.theme = name
        prefs.save_theme(name, None if app.own_runtime else runtime.settings)
        return CommandResult(f"Theme: {name} (remembered).", action="notice", data="info")

    def trace_command(runtime: ShellRuntime, arg: str) -> CommandResult:
        return CommandResult(action="trace")

    def speak_command(runtime: ShellRuntime, arg: str) -> CommandResult:
        stack = runtime.agent.middleware
        mode = arg.strip().lower()
        if not mode:
            return CommandResult(speech.describe(stack, app.speak_mode))
        if mode not in speech.MODES:
            return CommandResult(f"Usage: {speech.USAGE}", error=True)
        outcome = speech.set_mode(stack, mode)
        app.speak_mode = outcome.mode
        if outcome.mode == "off":
            app.playback.stop()
        failed = outcome.level == "error"
        return CommandResult(outcome.text, action="notice", data=outcome.level, error=failed)

    shared_rewind = registry.commands["rewind"]

    async def rewind_command(runtime: ShellRuntime, arg: str) -> CommandResult:
        """With a message number: the shared command, in a worker thread. Putting files
        and the repository's history back hashes what it writes and can take seconds on
        a big repository: the screen stays live meanwhile (the checkpoints lock)."""
        if arg:
            return await anyio.to_thread.run_sync(shared_rewind_command, runtime, arg)
        return CommandResult(action="rewind_dialog")

    for command in (
        dataclasses.replace(shared_rewind, handler=rewind_command),
        Command("help", "List the keys and commands, or explain one", help_command, "/help [COMMAND]"),
        Command("theme", "List the themes, or switch (remembered)", theme_command, "/theme [NAME]",
                complete=lambda runtime, rest: [t.name for t in themes.all_themes()]),
        Command("trace", "Open the trace view: each reply's model calls and tools, timed", trace_command,
                "/trace"),
        Command("speak", "Spoken replies: off, on, or on and played as they finish", speak_command,
                speech.USAGE, complete=lambda runtime, rest: list(speech.MODES)),
    ):
        registry.register(command)
    return registry
