"""Slash commands, shared by the line mode and the TUI.

A command takes the :class:`~shell.runtime.ShellRuntime` and the text after its
name and returns a :class:`CommandResult`: text to show (Markdown) and, when the
front end has something to do that only it can do, an ``action`` (``quit``,
``clear``, ``new``). Nothing here draws anything, so the TUI and the line mode
render the same answers their own way. Each front end owns its registry
(:func:`default_commands` makes a fresh one) and may add commands of its own
(``/play``, ``/save``); the runtime knows nothing of commands.
"""

from __future__ import annotations

import inspect
import re
import time
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, TypeAlias

from .core.textsafety import sanitize

if TYPE_CHECKING:
    from .context.accounting import Breakdown
    from .context.attachments import Attachment
    from .runtime import ShellRuntime

Action: TypeAlias = Literal["quit", "clear", "new", "resume", "compact", "staged"] | str | None
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
        return iter(self.commands.values())

    def get(self, name: str) -> Command | None:
        name = name.lstrip("/").lower()
        if name in self.commands:
            return self.commands[name]
        return next((c for c in self.commands.values() if name in c.aliases), None)

    def names(self) -> list[str]:
        """Every name a user may type, aliases included, without the slash."""
        return [n for c in self.commands.values() for n in (c.name, *c.aliases)]

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

    async def run(self, runtime: ShellRuntime, line: str) -> CommandResult:
        """Run a command line (``/name args``); unknown commands answer with an error."""
        match = _COMMAND_LINE.match(line.strip())
        if not match:
            return CommandResult(f"Not a command: {line.strip()!r}. /help lists the commands.", error=True)
        command = self.get(match.group(1))
        if command is None:
            return CommandResult(f"Unknown command /{match.group(1)}. /help lists the commands.", error=True)
        result = command.handler(runtime, (match.group(2) or "").strip())
        if inspect.isawaitable(result):
            result = await result
        return result


def is_command(text: str) -> bool:
    """Whether a line of input is a slash command rather than a message.

    ``/etc/hosts is odd`` is a message: a command name has no slash in it.
    """
    return bool(_COMMAND_LINE.match(text.strip()))


def format_models(found: dict[str, list[str] | str]) -> str:
    """``list_models``' answer as Markdown: provider, then ``provider:name`` specs."""
    lines = []
    for provider, models in found.items():
        provider = sanitize(provider)  # model ids and errors come from servers: hostile
        if isinstance(models, str):
            lines.append(f"- **{provider}**: {sanitize(models)}")
        elif provider == "demo":
            lines.append("- **demo**: `demo`")
        else:
            shown = ", ".join(f"`{provider}:{sanitize(m)}`" for m in models) or "no models"
            lines.append(f"- **{provider}**: {shown}")
    return "\n".join(lines)


# -- the built-in commands ------------------------------------------------------


def _complete_middleware(runtime: ShellRuntime, rest: str) -> list[str]:
    words = rest.split()
    if len(words) == 0 or (len(words) == 1 and not rest.endswith(" ")):
        return runtime.agent.middleware.names()
    return ["on", "off"]


def _complete_model(runtime: ShellRuntime, rest: str) -> list[str]:
    return ["demo", "openai:", "anthropic:", "ollama:", "scripted:", "list"]


def _modes() -> tuple[str, ...]:
    from shell.permissions.modes import MODES

    return MODES


def _complete_permissions(runtime: ShellRuntime, rest: str) -> list[str]:
    words = rest.split()
    if len(words) == 0 or (len(words) == 1 and not rest.endswith(" ")):
        return ["allow", "ask", "deny", "edit", "remove"]
    return ["--project", "--user"] if words[0] in ("allow", "ask", "deny") else []


def mode_command(runtime: ShellRuntime, arg: str) -> CommandResult:
    """``/mode``: the mode and what each does; ``/mode NAME`` switches."""
    from shell.permissions.modes import SUMMARY, ModeError, parse_mode

    policy = runtime.permissions
    if arg:
        try:
            policy.mode = parse_mode(arg)
        except ModeError as exc:
            return CommandResult(str(exc), error=True)
        off = " (approvals are off: what would ask runs unasked; deny rules hold)"
        warn = "" if runtime.approvals_on else off
        return CommandResult(f"Permission mode: **{policy.mode}**: {SUMMARY[policy.mode]}.{warn}")
    rows = [f"- {f'**{m}**' if m == policy.mode else m}: {SUMMARY[m]}" for m in SUMMARY]
    return CommandResult(
        f"Permission mode: **{runtime.mode_label}**. `/mode NAME` switches (Shift+Tab cycles):\n\n"
        + "\n".join(rows)
    )


def permissions_command(runtime: ShellRuntime, arg: str) -> CommandResult:
    """``/permissions``: every rule with where it came from; add, edit, remove."""
    from shell.permissions.rules import SOURCE_LABELS, RuleError
    from shell.permissions.store import StoreError

    policy = runtime.permissions
    listed = policy.listed()
    words = arg.split(maxsplit=1)
    verb = words[0].lower() if words else ""
    rest = words[1].strip() if len(words) > 1 else ""
    try:
        if verb in ("allow", "ask", "deny"):
            scope = "session"
            for flag, where in (("--project", "project"), ("--user", "user")):
                if rest.endswith(flag):
                    scope, rest = where, rest[: -len(flag)].strip()
            rule = policy.add_rule(rest, verb, scope)  # type: ignore[arg-type]
            return CommandResult(f"Added `{rule}` ({SOURCE_LABELS[rule.source]}).")
        if verb in ("remove", "rm", "delete", "edit"):
            number, _, new_text = rest.partition(" ")
            if not number.isdigit() or not 1 <= int(number) <= len(listed):
                return CommandResult(f"Which rule? Give its number (1 to {len(listed)}); "
                                     "`/permissions` lists them.", error=True)
            row = listed[int(number) - 1]
            if verb == "edit":
                if not new_text.strip():
                    return CommandResult("Usage: `/permissions edit N RULE`", error=True)
                new = policy.replace_rule(row.rule, new_text.strip())
                return CommandResult(f"Rule {number} is now `{new}` ({SOURCE_LABELS[new.source]}).")
            policy.remove_rule(row.rule)
            return CommandResult(f"Removed `{row.rule}` ({SOURCE_LABELS[row.rule.source]}).")
        if verb:
            return CommandResult("Usage: `/permissions [allow|ask|deny RULE [--project|--user] | "
                                 "edit N RULE | remove N]`", error=True)
    except (RuleError, StoreError, OSError) as exc:
        return CommandResult(f"Not changed: {exc}", error=True)
    lines = [f"Permission mode: **{runtime.mode_label}** (`/mode` switches).", ""]
    if not listed:
        lines.append("No rules yet. \"Always\" in an approval proposes one; or "
                     "`/permissions allow run_shell(git status:*)`.")
    for i, row in enumerate(listed, 1):
        origin = f" `{row.rule.origin}`" if row.rule.origin else ""
        note = f" ({row.note})" if row.note else ""
        where = SOURCE_LABELS[row.rule.source]
        lines.append(f"{i}. `{row.rule.effect} {row.rule.text}`: {where}{origin}{note}")
    if not policy.project_trusted:
        lines += ["", "Project rules (`.agent-shell/permissions.toml`) apply once the workspace is trusted."]
    lines += ["", "`/permissions remove N`, `/permissions edit N RULE`, "
                  "`/permissions allow|ask|deny RULE [--project|--user]` (default: this session)."]
    return CommandResult("\n".join(lines))


def instructions_command(runtime: ShellRuntime, arg: str) -> CommandResult:
    """``/instructions``: which instruction files the model gets, from where, and
    what was refused or cut; ``/instructions show``: the text as the model reads it."""
    from middleware.project_instructions import ProjectInstructions
    from shell.core.textsafety import sanitize, sanitize_line

    found = next((m for m in runtime.agent.middleware if isinstance(m, ProjectInstructions)), None)
    if found is None:
        return CommandResult("ProjectInstructions is not in the middleware stack: no instruction "
                             "files are read.", error=True)
    on = runtime.agent.middleware.is_enabled(found.name)
    loaded = found.load()
    if arg.strip().lower() == "show":
        if not loaded.text:
            return CommandResult("No instruction files were found.")
        fence = "`" * max(3, 1 + max((len(r) for r in re.findall(r"`+", loaded.text)), default=0))
        return CommandResult(f"{fence}markdown\n{sanitize(loaded.text)}\n{fence}")
    if arg.strip():
        return CommandResult("Usage: `/instructions [show]`", error=True)
    state = "on" if on else "off: nothing below reaches the model (`/middleware ProjectInstructions on`)"
    root, cwd = sanitize_line(str(loaded.root)), sanitize_line(str(loaded.cwd))
    lines = [f"Project instructions ({found.name} {state}); repository root `{root}`, "
             f"working directory `{cwd}`.", ""]
    if not loaded.files:
        lines.append("No instruction files found. The model reads, in order: your own AGENTS.md "
                     "in the config dir, then AGENTS.md (or CLAUDE.md) at each level from the "
                     "repository root down to the working directory.")
    origins = {"user": " (yours)", "project": "", "import": ""}
    for i, f in enumerate(loaded.files, 1):
        by = f" (imported by `{sanitize_line(f.imported_by)}`)" if f.imported_by else ""
        cut = ", cut" if f.truncated else ""
        lines.append(f"{i}. `{sanitize_line(f.shown)}`{origins[f.origin]}{by}: {f.chars:,} characters{cut}")
    if loaded.problems:
        lines += ["", "Not loaded or cut:", ""]
        lines += [f"- {sanitize_line(p)}" for p in loaded.problems]
    if loaded.files:
        lines += ["", f"About {len(loaded.text) // 4:,} tokens of the system prompt. "
                      "`/instructions show` prints them as the model reads them. They are read "
                      "whether or not the workspace is trusted: they are text and grant nothing "
                      "(the permission policy decides every tool call)."]
    return CommandResult("\n".join(lines))
async def trust_command(runtime: ShellRuntime, arg: str) -> CommandResult:
    """``/trust``: what this workspace's own config would start; ``/trust yes`` trusts
    exactly what ``/trust`` showed last (not a file that changed since), ``/trust no``
    declines, ``/trust forget`` asks again next time."""
    from shell.permissions.trust import TrustStore

    verb = arg.strip().lower()
    check = runtime.workspace_trust()
    if verb == "forget":
        found = TrustStore().forget(check.config.root)
        said = "Forgotten: you will be asked at the next start." if found else "No answer recorded."
        return CommandResult(said)
    if check.state == "none":
        return CommandResult("This workspace has no project config (`.mcp.json`, `.agent-shell/`): "
                             "nothing to trust.")
    shown = runtime.trust_shown
    if verb in ("yes", "no"):
        if shown is None or shown.config.digest != check.config.digest:
            runtime.trust_shown = check
            return CommandResult(
                "The project config changed since `/trust` showed it (or it was not shown yet). "
                "Read it again below, then `/trust yes` or `/trust no`.\n\n" + _trust_listing(runtime, check),
                error=True,
            )
        await runtime.decide_trust(check, verb == "yes")
        if verb == "yes":
            return CommandResult("Trusted: its servers start now and its project rules apply. "
                                 "Asked again when any of these files changes.")
        return CommandResult("Not trusted: its config stays unused. `/trust` shows it again.")
    if verb:
        return CommandResult("Usage: `/trust [yes | no | forget]`", error=True)
    runtime.trust_shown = check
    return CommandResult(_trust_listing(runtime, check))


def _trust_listing(runtime: ShellRuntime, check: Any) -> str:
    """The repository's own words in a code block (a fence longer than any backtick
    run in them), so that its Markdown cannot dress up what the user is trusting."""
    state = {"trusted": "trusted", "declined": "not trusted (you said no)",
             "changed": "changed since you answered", "untrusted": "not trusted yet"}[check.state]
    body = "\n".join([f"workspace: {check.config.root}", *runtime.describe_project(check)])
    fence = "`" * max(3, 1 + max((len(run) for run in re.findall(r"`+", body)), default=0))
    return (f"This workspace's own config is **{state}**. Trusting it uses:\n\n{fence}\n{body}\n{fence}\n\n"
            "`/trust yes` trusts exactly these files, `/trust no` declines.")


def instruction_sections(runtime: ShellRuntime) -> list[tuple[str, str]]:
    """(name, text) of each instruction file the system prompt holds, for ``/context``."""
    from middleware.project_instructions import ProjectInstructions

    stack = runtime.agent.middleware
    for mw in stack:
        if isinstance(mw, ProjectInstructions) and stack.is_enabled(mw.name):
            return list(mw.loaded.sections)
    return []


async def context_breakdown(runtime: ShellRuntime) -> Breakdown:
    """Where the tokens of the next request go, calibrated against the provider's
    count of the last one (see :mod:`shell.context.accounting`)."""
    from shell.context.accounting import breakdown, next_request

    request = await next_request(runtime.agent)
    return breakdown(
        request,
        last_request=runtime.agent.last_request,
        last_usage=runtime.meter.last_call,
        window=runtime.model_info().context_window,
        instructions=instruction_sections(runtime),
    )


async def context_command(runtime: ShellRuntime, arg: str) -> CommandResult:
    """``/context``: the bar and the table of the next request's tokens."""
    from shell.context.report import render

    if arg.strip():
        return CommandResult("Usage: `/context`", error=True)
    result = await context_breakdown(runtime)
    return CommandResult(render(result, model=runtime.model_label), data=result)


async def compact_command(runtime: ShellRuntime, arg: str) -> CommandResult:
    """``/compact [focus]`` summarises the history now; ``/compact show [N]`` shows
    the conversation as it was before the Nth compaction (the last by default)."""
    from shell.context.accounting import estimate, message_text
    from shell.runtime import ShellError
    from shell.sessions import export_markdown

    words = arg.split()
    if words and words[0].lower() == "show":
        past = runtime.compactions
        if not past:
            return CommandResult("Nothing has been compacted in this session.", error=True)
        which = words[1] if len(words) > 1 else str(len(past))
        if not which.isdigit() or not 1 <= int(which) <= len(past):
            return CommandResult(f"Which compaction? 1 to {len(past)}.", error=True)
        shown = past[int(which) - 1]
        title = f"Before compaction {which} of {len(past)}"
        return CommandResult(export_markdown(shown.before, redactor=runtime.secrets, title=title))
    try:
        done = await runtime.compact(arg.strip() or None)
    except ShellError as exc:
        return CommandResult(str(exc), error=True)

    def size(messages: list[Any]) -> int:
        return round(sum(estimate(message_text(m)) for m in messages))

    focus = f" keeping in particular: {arg.strip()}" if arg.strip() else ""
    return CommandResult(
        f"Compacted {done.replaced} messages into a summary{focus} (about {size(done.before):,} → "
        f"{size(done.after):,} tokens of history). `/compact show` shows the conversation as it was.",
        action="compact",
    )


def _load_image(runtime: ShellRuntime, words: str) -> Attachment:
    """The image ``words`` name (a path, quoted or not, ``~`` expanded; relative to
    the workspace) or the clipboard's (``paste``). Raises ``ValueError``/``OSError``."""
    import shlex
    from pathlib import Path

    from shell.context.attachments import image_attachment, image_from_bytes
    from shell.context.clipboard import read_image

    if words.lower() == "paste":
        data = read_image()
        if isinstance(data, str):
            raise ValueError(data)
        return image_from_bytes(data, f"clipboard-{len(runtime.staged) + 1}.png")
    try:
        parts = shlex.split(words)
    except ValueError:
        parts = [words]
    path = Path(" ".join(parts) if len(parts) != 1 else parts[0]).expanduser()
    path = path if path.is_absolute() else runtime.workspace.root / path
    return image_attachment(path, path.name)


async def image_command(runtime: ShellRuntime, arg: str) -> CommandResult:
    """``/image PATH`` adds a picture to the next message, ``/image paste`` the
    clipboard's, ``/image clear`` drops them, ``/image`` lists them."""
    import anyio

    from shell.core.textsafety import sanitize_line

    words = arg.strip()
    staged = runtime.staged
    if words.lower() == "clear":
        count = len(staged)
        staged.clear()
        return CommandResult(f"Dropped {count} image{'s' if count != 1 else ''}." if count else "No images.")
    if not words:
        if not staged:
            return CommandResult("No images for the next message yet: `/image PATH` or `/image paste`.")
        return CommandResult("For the next message:\n\n" + "\n".join(f"- {a.chip}" for a in staged))
    try:
        attachment = await anyio.to_thread.run_sync(_load_image, runtime, words)
    except (ValueError, OSError) as exc:
        why = str(exc)
        if isinstance(exc, OSError) and exc.strerror:
            why = f"{exc.filename}: {exc.strerror.lower()}" if exc.filename else exc.strerror
        return CommandResult(sanitize_line(f"No image added: {why}."), error=True)
    staged.append(attachment)
    refusal = runtime.image_refusal()
    warn = f" Note: {refusal}; it will not be sent to this model." if refusal else ""
    return CommandResult(f"Attached {attachment.chip} to your next message.{warn}", action="staged")


REWIND_USAGE = "/rewind [N [both | conversation | files]]"


def rewind_command(runtime: ShellRuntime, arg: str) -> CommandResult:
    """``/rewind``: the messages sent in this conversation, numbered; ``/rewind N``:
    what going back to just before message N would change; ``/rewind N both |
    conversation | files``: do it (``data`` is the :class:`~shell.rewind.RewindOutcome`;
    its ``text`` goes back to the prompt)."""
    from shell.rewind import RewindError, apply_rewind, plan_rewind, turns, when

    rows = turns(runtime)
    words = arg.split()
    if not words:
        if not rows:
            return CommandResult("Nothing to rewind to yet: no message was sent in this conversation.")
        listing = []
        for i, row in enumerate(rows, 1):
            line = " ".join(row.text.split())
            line = line if len(line) <= 60 else line[:59] + "…"
            did = []
            if row.files:
                did.append(f"{row.files} file{'s' if row.files != 1 else ''}")
            if row.commands:
                did.append(f"{row.commands} command{'s' if row.commands != 1 else ''}")
            tail = f"  · {', '.join(did)}" if did else ""
            listing.append(f"{i:>2}. {when(row.at):>5}  {line}{tail}")
        fence = _fence("\n".join(listing))
        return CommandResult(
            "Rewind to just before one of your messages (`/rewind N` shows what would change first):"
            f"\n\n{fence}\n" + sanitize("\n".join(listing)) + f"\n{fence}",
            data=rows,
        )
    if not words[0].isdigit() or not 1 <= int(words[0]) <= len(rows) or len(words) > 2:
        where = f"1 to {len(rows)}" if rows else "none yet"
        said = f"Usage: `{REWIND_USAGE}` (messages: {where}; `/rewind` lists them)."
        return CommandResult(said, error=True)
    what = words[1].lower() if len(words) > 1 else ""
    what = "both" if what == "all" else what
    if what not in ("", "both", "conversation", "files"):
        return CommandResult(f"Usage: `{REWIND_USAGE}`", error=True)
    try:
        plan = plan_rewind(runtime, rows[int(words[0]) - 1].number)
        if not what:
            n = words[0]
            return CommandResult(
                plan.describe() + f"\n\n`/rewind {n} both` goes back in both, `/rewind {n} conversation` "
                f"or `/rewind {n} files` in one only.", data=plan,
            )
        if what == "conversation" and plan.messages is None:
            return CommandResult(f"The conversation cannot go back: {plan.conversation_note}.", error=True)
        outcome = apply_rewind(runtime, plan, what)  # type: ignore[arg-type]
    except RewindError as exc:
        return CommandResult(str(exc), error=True)
    return CommandResult(outcome.describe(), action="rewind", data=outcome, error=bool(outcome.failed))


async def search_command(runtime: ShellRuntime, query: str) -> CommandResult:
    """``/sessions QUERY``: every session (of every directory) holding the words,
    best first, with the passage that matched."""
    import sqlite3

    import anyio

    from shell.sessions.search import format_hits

    try:
        hits = await anyio.to_thread.run_sync(runtime.search_index.search, query)
    except (OSError, sqlite3.Error) as exc:
        return CommandResult(f"The search failed: {exc}. Try again; the index is rebuilt if damaged.",
                             error=True)
    if not hits:
        return CommandResult(f"No session mentions {sanitize(query)!r}.")
    listing = format_hits(hits)
    fence = _fence(listing)
    return CommandResult(
        f"Sessions mentioning {sanitize(query)!r} (best first); open one with `/resume ID`:"
        f"\n\n{fence}\n{listing}\n{fence}", data=hits,
    )


def rename_command(runtime: ShellRuntime, arg: str) -> CommandResult:
    """``/rename TITLE``: the session's title, as the user chose it (the model's
    summary never replaces it)."""
    if not arg.strip():
        recorder = runtime.session_recorder
        now = f" It is {recorder.title!r}." if recorder is not None and recorder.title else ""
        return CommandResult(f"Usage: `/rename TITLE`.{now}", error=True)
    if not runtime.options.record:
        return CommandResult("This conversation is not saved (--no-session): it has no title to keep.",
                             error=True)
    kept = runtime.recorder().set_title(arg, "user")
    if not kept:
        return CommandResult("That title is empty once made safe; give words.", error=True)
    return CommandResult(f"This session is now called {kept!r}.")


def fork_command(runtime: ShellRuntime, arg: str) -> CommandResult:
    """``/fork``: carry on in a new session holding this conversation; ``/fork N``:
    from just before message N (as ``/rewind`` numbers them), whose text comes
    back to the prompt. The original session is left as it is."""
    from shell.rewind import RewindError, RewindOutcome, fork_before
    from shell.runtime import ShellError

    words = arg.split()
    if len(words) > 1 or (words and not words[0].isdigit()):
        return CommandResult("Usage: `/fork [N]` (`/rewind` lists the messages by number).", error=True)
    old = runtime.session_recorder.session_id if runtime.session_recorder is not None else ""
    try:
        new, text = fork_before(runtime, int(words[0])) if words else (runtime.fork(), "")
    except (ShellError, RewindError) as exc:
        return CommandResult(f"Not forked: {exc}.", error=True)
    where = f" from before message {words[0]}" if words else ""
    back = f"`agent-shell --resume {old}` opens the original." if old else ""
    outcome = RewindOutcome(bool(words), [], [], [], text)
    return CommandResult(f"Forked{where} into session {new}; carry on here. {back}".strip(),
                         action="fork", data=outcome)


def _fence(text: str) -> str:
    return "`" * max(3, 1 + max((len(r) for r in re.findall(r"`+", text)), default=0))


def default_commands() -> CommandRegistry:
    """A fresh registry of the built-in commands (each front end owns one; ``/help``
    lists whatever the front end added to it too)."""
    reg = CommandRegistry()

    @reg.add("help", "List the commands, or explain one", usage="/help [COMMAND]")
    def _help(runtime: ShellRuntime, arg: str) -> CommandResult:
        if arg:
            command = reg.get(arg)
            if command is None:
                return CommandResult(f"Unknown command /{arg.lstrip('/')}.", error=True)
            also = f" (also {', '.join('/' + a for a in command.aliases)})" if command.aliases else ""
            return CommandResult(f"`{command.usage}`{also}: {command.summary}.")
        rows = [f"- `{c.usage}`: {c.summary}" for c in reg]
        return CommandResult("Commands:\n\n" + "\n".join(rows))

    @reg.add("model", "Show the model, list the models, or switch", usage="/model [list | SPEC]",
             complete=_complete_model)
    async def _model(runtime: ShellRuntime, arg: str) -> CommandResult:
        if not arg:
            demo = " (the offline demo model)" if runtime.is_demo else ""
            return CommandResult(
                f"Model: `{runtime.model_label}`{demo}. Switch with `/model provider:name` "
                "(`openai:…`, `anthropic:…`, `ollama:…`, `demo`, `scripted:FILE`); `/model list` lists them."
            )
        if arg == "list":
            try:
                found = await runtime.list_models()
            except Exception as exc:
                return CommandResult(f"Could not list the models: {exc}", error=True)
            return CommandResult(format_models(found))
        try:
            label = runtime.switch_model(arg)
        except Exception as exc:
            return CommandResult(f"Model not changed: {exc}", error=True)
        return CommandResult(f"Model: `{label}`.")

    @reg.add("clear", "Forget the conversation and clear the screen")
    def _clear(runtime: ShellRuntime, arg: str) -> CommandResult:
        runtime.new_conversation()
        return CommandResult("Conversation cleared.", action="clear")

    @reg.add("new", "Start a new conversation")
    def _new(runtime: ShellRuntime, arg: str) -> CommandResult:
        runtime.new_conversation()
        return CommandResult("New conversation.", action="new")

    @reg.add("middleware", "List the middleware, or switch one on or off",
             usage="/middleware [NAME [on|off]]", aliases=("mw",), complete=_complete_middleware)
    def _middleware(runtime: ShellRuntime, arg: str) -> CommandResult:
        words = arg.split()
        if not words:
            return CommandResult(runtime.describe_middleware())
        if len(words) > 2 or (len(words) == 2 and words[1].lower() not in ("on", "off")):
            return CommandResult("Usage: `/middleware [NAME [on|off]]`", error=True)
        try:
            if len(words) == 1:
                return CommandResult(runtime.describe_middleware(words[0]))
            name = runtime.set_middleware(words[0], words[1].lower() == "on")
        except KeyError as exc:
            return CommandResult(str(exc.args[0]) if exc.args else str(exc), error=True)
        state = "on" if runtime.middleware_on(name) else "off"
        note = ""
        if name == "HumanInTheLoop" and state == "off" and runtime.policy_enforced:
            note = " Calls that would ask run unasked; deny rules and plan mode still hold."
        return CommandResult(f"Middleware {name}: {state}.{note}")

    @reg.add("tools", "List the tools the model can call")
    def _tools(runtime: ShellRuntime, arg: str) -> CommandResult:
        return CommandResult(runtime.describe_tools())

    @reg.add("sessions", "List this directory's sessions, or search every session for words",
             usage="/sessions [QUERY]")
    async def _sessions(runtime: ShellRuntime, arg: str) -> CommandResult:
        from shell.sessions import SessionStore, format_sessions

        if arg.strip():
            return await search_command(runtime, arg.strip())
        infos = SessionStore().list(str(runtime.workspace.root))
        if not infos:
            return CommandResult("No saved sessions in this directory yet.")
        listing = format_sessions(infos)
        return CommandResult(f"Sessions (newest first); open one with `/resume ID`:\n\n```\n{listing}\n```")

    @reg.add("resume", "Open a saved session (its number in /sessions, or its id)", usage="/resume N|ID")
    def _resume(runtime: ShellRuntime, arg: str) -> CommandResult:
        from shell.sessions import SessionError, SessionStore

        if not arg:
            return CommandResult("Usage: `/resume N` or `/resume ID` (see `/sessions`).", error=True)
        try:
            info = SessionStore().find(arg, runtime.workspace.root)  # look first: a bad id loses nothing
        except SessionError as exc:
            return CommandResult(f"Could not open the session: {exc}", error=True)
        runtime.new_conversation()
        try:
            loaded = runtime.resume(info.id)
        except Exception as exc:
            return CommandResult(f"Could not open the session: {exc}", error=True)
        note = ""
        if loaded.interrupted:
            note = " It was cut off; its unfinished tool calls were marked interrupted."
        return CommandResult(
            f"Resumed session {loaded.session_id} ({len(runtime.agent.messages)} messages).{note}",
            action="resume",
        )

    @reg.add("export", "Write the conversation as Markdown (never over a file unless --force)",
             usage="/export [PATH] [--force]")
    def _export(runtime: ShellRuntime, arg: str) -> CommandResult:
        from pathlib import Path

        from shell.sessions import describe_os_error, export_markdown

        words = arg.split()
        force = any(w in ("--force", "-f") for w in words)
        name = " ".join(w for w in words if w not in ("--force", "-f"))
        if not runtime.agent.messages:
            return CommandResult("Nothing to export yet.", error=True)
        path = Path(name or f"agent-shell-{time.strftime('%Y%m%d-%H%M%S')}.md").expanduser()
        if not path.is_absolute():
            path = runtime.workspace.root / path
        if path.is_dir():
            return CommandResult(f"{path} is a directory; give a file name: `/export {name}/chat.md`.",
                                 error=True)
        try:  # "x": an existing file is refused at the moment of opening, not only checked before
            with path.open("w" if force else "x", encoding="utf-8") as f:
                f.write(export_markdown(runtime.agent.messages, redactor=runtime.secrets))
        except FileExistsError:
            return CommandResult(
                f"{path} already exists; nothing was written. Give another name, or "
                f"`/export {name} --force` to overwrite it.", error=True,
            )
        except OSError as exc:
            return CommandResult(f"Could not write {path}: {describe_os_error(exc)}", error=True)
        return CommandResult(f"Exported {len(runtime.agent.messages)} messages to `{path}`.")

    @reg.add("mode", "Show the permission mode, or switch it", usage="/mode [MODE]",
             complete=lambda runtime, rest: list(_modes()))
    def _mode(runtime: ShellRuntime, arg: str) -> CommandResult:
        return mode_command(runtime, arg)

    @reg.add("trust", "Show this workspace's own config (.mcp.json), trust or decline it",
             usage="/trust [yes | no | forget]",
             complete=lambda runtime, rest: ["yes", "no", "forget"])
    async def _trust(runtime: ShellRuntime, arg: str) -> CommandResult:
        return await trust_command(runtime, arg)

    @reg.add("permissions", "List the permission rules, add, edit or remove one",
             usage="/permissions [allow|ask|deny RULE [--project|--user] | edit N RULE | remove N]",
             aliases=("perms",), complete=_complete_permissions)
    def _permissions(runtime: ShellRuntime, arg: str) -> CommandResult:
        return permissions_command(runtime, arg)

    @reg.add("instructions", "Show the instruction files the model reads (AGENTS.md, CLAUDE.md)",
             usage="/instructions [show]", complete=lambda runtime, rest: ["show"])
    def _instructions(runtime: ShellRuntime, arg: str) -> CommandResult:
        return instructions_command(runtime, arg)

    @reg.add("context", "Show where the tokens of the next request go")
    async def _context(runtime: ShellRuntime, arg: str) -> CommandResult:
        return await context_command(runtime, arg)

    @reg.add("compact", "Summarise the conversation now (what to keep); `show` shows it as it was",
             usage="/compact [FOCUS | show [N]]", complete=lambda runtime, rest: ["show"])
    async def _compact(runtime: ShellRuntime, arg: str) -> CommandResult:
        return await compact_command(runtime, arg)

    @reg.add("image", "Add an image to the next message (a file, or the clipboard's)",
             usage="/image [PATH | paste | clear]", complete=lambda runtime, rest: ["paste", "clear"])
    async def _image(runtime: ShellRuntime, arg: str) -> CommandResult:
        return await image_command(runtime, arg)

    @reg.add("rewind", "Go back to before a message: the conversation, the files, or both",
             usage=REWIND_USAGE, aliases=("undo",),
             complete=lambda runtime, rest: ["both", "conversation", "files"] if rest.split() else [])
    def _rewind(runtime: ShellRuntime, arg: str) -> CommandResult:
        return rewind_command(runtime, arg)

    @reg.add("rename", "Name this session (shown by /sessions and --resume)", usage="/rename TITLE")
    def _rename(runtime: ShellRuntime, arg: str) -> CommandResult:
        return rename_command(runtime, arg)

    @reg.add("fork", "Carry on in a new session (from before message N); this one stays as it is",
             usage="/fork [N]")
    def _fork(runtime: ShellRuntime, arg: str) -> CommandResult:
        return fork_command(runtime, arg)

    @reg.add("quit", "Leave the shell", aliases=("exit", "q"))
    def _quit(runtime: ShellRuntime, arg: str) -> CommandResult:
        return CommandResult(action="quit")

    return reg
