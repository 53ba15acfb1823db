"""What the model reads: /instructions, /context, /compact, /image."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from .registry import CommandResult

if TYPE_CHECKING:
    from shell.context.accounting import Breakdown
    from shell.context.attachments import Attachment
    from shell.runtime import ShellRuntime


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
        hidden = f", ⚠ {f.hidden:,} hidden (shown as \\u… escapes)" if f.hidden else ""
        lines.append(f"{i}. `{sanitize_line(f.shown)}`{origins[f.origin]}{by}: {f.chars:,} characters"
                     f"{cut}{hidden}")
    if loaded.problems:
        lines += ["", "Not loaded, cut or suspicious:", ""]
        lines += [f"- {sanitize_line(p)}" for p in loaded.problems]
    if loaded.files:
        lines += ["", f"About {len(loaded.text) // 4:,} tokens of the system prompt. "
                      "`/instructions show` prints them as the model reads them. They are read "
                      "whether or not the workspace is trusted: they are text and grant nothing "
                      "(the permission policy decides every tool call)."]
    return CommandResult("\n".join(lines))


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
        return CommandResult(export_markdown(shown.before, redactor=runtime.secrets, title=title,
                                             outcomes=runtime.call_outcomes))
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
