"""The slash-command registry: what a command is, what it answers, how a line runs.

A command takes the :class:`~shell.runtime.ShellRuntime` and the text after its
name and returns a :class:`CommandResult`: text to show (Markdown) and, when the
front end has something to do that only it can do, an ``action`` (``quit``,
``new``, ``resume``…). Nothing here draws anything, so every front end renders
the same answers its own way.
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, TypeAlias

if TYPE_CHECKING:
    from shell.custom_commands import CustomCommand
    from shell.runtime import ShellRuntime

Action: TypeAlias = Literal["quit", "clear", "new", "resume", "compact", "staged", "rewind", "fork", "send",
                            "copy"] | str | None
"""What the front end does after showing ``text``: ``send`` sends ``data`` (a custom
command's message) as if typed; ``copy`` puts ``data`` on the clipboard; ``rewind``
and ``fork`` redraw the conversation and put ``data.text`` back in the prompt."""

Handler: TypeAlias = Callable[["ShellRuntime", str], "CommandResult | Awaitable[CommandResult]"]

Completer: TypeAlias = Callable[["ShellRuntime", str], list[str]]

_COMMAND_LINE = re.compile(r"^/([A-Za-z][\w-]*)(?:\s+(.*))?$", re.DOTALL)


@dataclass(frozen=True, slots=True)
class CommandResult:
    """What a command answers. ``text`` is Markdown; ``error`` marks a failure."""

    text: str = ""
    action: Action = None
    error: bool = False
    data: Any = None


@dataclass(frozen=True, slots=True)
class Command:
    name: str
    summary: str
    handler: Handler
    usage: str = ""
    aliases: tuple[str, ...] = ()
    complete: Completer | None = None
    """Completions for the argument text typed so far (whole words to offer)."""


@dataclass(slots=True)
class CommandRegistry:
    """The slash commands a front end offers, by name (aliases included)."""

    commands: dict[str, Command] = field(default_factory=dict)
    custom: dict[str, Command] = field(default_factory=dict)
    """The user's and a trusted project's own commands (:mod:`shell.custom_commands`)."""
    custom_problems: list[str] = field(default_factory=list)

    def refresh_custom(self, runtime: ShellRuntime) -> None:
        """Read the custom commands again (files, and whether the workspace is trusted
        now). A built-in name or alias is never taken by one."""
        from shell.core.dirs import config_dir
        from shell.custom_commands import discover

        found, self.custom_problems = discover(config_dir(), runtime.workspace_trust())
        taken = set(self.names(custom=False))
        self.custom = {c.name: _custom(c) for c in found if c.name not in taken}

    def register(self, command: Command) -> Command:
        self.commands[command.name] = command
        return command

    def add(
        self,
        name: str,
        summary: str,
        *,
        usage: str = "",
        aliases: tuple[str, ...] = (),
        complete: Completer | None = None,
    ) -> Callable[[Handler], Handler]:
        """Decorator form of :meth:`register`."""

        def wrap(handler: Handler) -> Handler:
            self.register(Command(name, summary, handler, usage or f"/{name}", aliases, complete))
            return handler

        return wrap

    def __iter__(self) -> Iterator[Command]:
        return iter([*self.commands.values(), *self.custom.values()])

    def get(self, name: str) -> Command | None:
        name = name.lstrip("/").lower()
        if name in self.commands:
            return self.commands[name]
        found = next((c for c in self.commands.values() if name in c.aliases), None)
        return found or self.custom.get(name)

    def names(self, *, custom: bool = True) -> list[str]:
        """Every name a user may type, aliases included, without the slash."""
        commands = [*self.commands.values(), *(self.custom.values() if custom else ())]
        return [n for c in commands for n in (c.name, *c.aliases)]

    def completions(self, runtime: ShellRuntime, text: str) -> list[tuple[str, str]]:
        """``(word, description)`` pairs completing the last word of ``text``.

        ``text`` is the input before the cursor; only input starting with ``/`` gets
        any: the command name first, then whatever the command's completer offers.
        """
        if not text.startswith("/") or "\n" in text:
            return []
        if " " not in text:
            prefix = text[1:].lower()
            return [(f"/{c.name}", c.summary) for c in self if c.name.startswith(prefix)] + [
                (f"/{a}", c.summary) for c in self for a in c.aliases if a.startswith(prefix)
            ]
        name, _, rest = text[1:].partition(" ")
        command = self.get(name)
        if command is None or command.complete is None:
            return []
        word = rest.rsplit(" ", 1)[-1]
        return [(w, "") for w in command.complete(runtime, rest) if w.lower().startswith(word.lower())]

    def help(self, runtime: ShellRuntime, arg: str) -> CommandResult:
        """``/help``: every command this registry holds (the front end's own too), or one."""
        def also(command: Command) -> str:
            return f" (also {', '.join('/' + a for a in command.aliases)})" if command.aliases else ""

        if arg:
            command = self.get(arg)
            if command is None:
                return CommandResult(f"Unknown command /{arg.lstrip('/')}.", error=True)
            return CommandResult(f"`{command.usage}`{also(command)}: {command.summary}.")
        rows = [f"- `{c.usage}`{also(c)}: {c.summary}" for c in self]
        return CommandResult("Commands:\n\n" + "\n".join(rows))

    async def run(self, runtime: ShellRuntime, line: str) -> CommandResult:
        """Run a command line (``/name args``); unknown commands answer with an error."""
        match = _COMMAND_LINE.match(line.strip())
        if not match:
            return CommandResult(f"Not a command: {line.strip()!r}. /help lists the commands.", error=True)
        command = self.get(match.group(1))
        if command is None or match.group(1).lower() in self.custom:
            self.refresh_custom(runtime)  # a file added or edited, trust given: as it is now
            command = self.get(match.group(1))
        if command is None:
            return CommandResult(f"Unknown command /{match.group(1)}. /help lists the commands.", error=True)
        result = command.handler(runtime, (match.group(2) or "").strip())
        if inspect.isawaitable(result):
            result = await result
        return result


    async def message_of(self, runtime: ShellRuntime, line: str, where: str) -> CommandResult:
        """What ``line`` sends where only a message can be sent (``where``: ``-p``): your
        own command's text, expanded as the TUI and --plain expand it (``send``), an error
        for a built-in command, which runs only where there is a screen, and the line
        itself for anything else (``/tmp is full`` is a message to a script)."""
        match = _COMMAND_LINE.match(line.strip())
        if not match:
            return CommandResult(action="send", data=line)
        self.refresh_custom(runtime)
        name = match.group(1).lower()
        if name in self.custom:
            return await self.run(runtime, line)
        yours = ", ".join(f"/{n}" for n in sorted(self.custom)) or "none yet"
        if self.get(name) is None:
            return CommandResult(action="send", data=line)
        return CommandResult(
            f"/{name} is a command of the interactive shell; {where} runs only your own commands "
            f"(<config dir>/commands/NAME.md, a trusted project's .agent-shell/commands/NAME.md: "
            f"{yours}) and sends any other text as the message.", error=True)


def _custom(command: CustomCommand) -> Command:
    """A custom command: its handler answers with the message to send (``send``)."""

    def send(runtime: ShellRuntime, arg: str) -> CommandResult:
        if command.source == "project":  # someone else's text may not attach your secrets
            from shell.context.attachments import secret_mentions

            named = secret_mentions(command.body, runtime.workspace.root)
            if named:
                files = ", ".join(f"@{n}" for n in named)
                return CommandResult(
                    f"/{command.name} (the project's {command.origin}) attaches {files}, which usually holds "
                    "secrets: a repository's command may not send it. Not sent; type the @ yourself in a "
                    "message if you mean to.", error=True)
        return CommandResult(action="send", data=command.expand(arg))

    where = "project" if command.source == "project" else "yours"
    summary = f"{command.description} ({where})" if command.description else f"({where})"
    return Command(command.name, summary, send, f"/{command.name} [ARGUMENTS]")


def is_command(text: str) -> bool:
    """Whether a line of input is a slash command rather than a message.

    ``/etc/hosts is odd`` is a message: a command name has no slash in it.
    """
    return bool(_COMMAND_LINE.match(text.strip()))
