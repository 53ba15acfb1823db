"""The conversation and its sessions: /new, /sessions, /resume, /export, /rewind, /rename, /fork, /copy."""

from __future__ import annotations

from typing import TYPE_CHECKING

from shell.core.textsafety import sanitize

from .common import fence as _fence
from .registry import CommandResult

if TYPE_CHECKING:
    from shell.runtime import ShellRuntime


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
            listing.append(f"{i:>2}. {when(row.at):>5}  {row.line(60)}{row.did}")
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
                plan.describe(int(n)) + f"\n\n`/rewind {n} both` goes back in both, "
                f"`/rewind {n} conversation` or `/rewind {n} files` in one only.", data=plan,
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
    # said, as /rewind says it: the text already in the prompt took what was typed next (T9)
    prompt = f"Message {words[0]} is back in the prompt. " if text else ""
    outcome = RewindOutcome(bool(words), [], [], [], text)
    return CommandResult(f"Forked{where} into session {new}; carry on here. {prompt}{back}".strip(),
                         action="fork", data=outcome)


def new_command(runtime: ShellRuntime, arg: str) -> CommandResult:
    """``/new`` (also ``/clear``): forget the conversation; the front end clears its screen."""
    runtime.new_conversation()
    return CommandResult("New conversation.", action="new")


async def sessions_command(runtime: ShellRuntime, arg: str) -> CommandResult:
    from shell.sessions import SessionStore, format_sessions

    if arg.strip():
        return await search_command(runtime, arg.strip())
    infos = SessionStore().list(str(runtime.workspace.root))
    if not infos:
        return CommandResult("No saved sessions in this directory yet.")
    recorder = runtime.session_recorder
    current = recorder.session_id if recorder is not None and recorder.started else None
    listing = format_sessions(infos, current=current)
    fence = _fence(listing)
    said = "Sessions (newest first); open one with `/resume ID`:"
    return CommandResult(f"{said}\n\n{fence}\n{listing}\n{fence}")


def resume_command(runtime: ShellRuntime, arg: str) -> CommandResult:
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
    recorder = runtime.session_recorder
    if recorder is not None and recorder.error is not None:
        note += f"\n\n{recorder.error}"  # a full disk: said here, once
    return CommandResult(
        f"Resumed session {loaded.session_id} ({len(runtime.agent.messages)} messages).{note}",
        action="resume",
    )


def export_command(runtime: ShellRuntime, arg: str) -> CommandResult:
    """``/export [PATH] [--force] [--outside]``: the conversation as Markdown, where
    :mod:`.saving` says a command may write (the exports folder without a PATH; never
    over a file without ``--force``, outside the workspace only with ``--outside``);
    the reply names the real file."""
    from shell.sessions import export_markdown

    from .saving import target, write

    marks: list[int] = []  # after /compact: the turns it summarised, not the summary, marked
    shown = runtime.shown_history(marks)
    if not shown:
        return CommandResult("Nothing to export yet.", error=True)
    chosen = target(runtime, arg, command="/export", stem="agent-shell", suffix=".md")
    if isinstance(chosen, CommandResult):
        return chosen
    text = export_markdown(shown, redactor=runtime.secrets, outcomes=runtime.call_outcomes,
                           compacted_before=marks)
    failed = write(chosen, text.encode("utf-8"), command="/export")
    if failed is not None:
        return failed
    where = chosen.where("/export", runtime.workspace.contains(chosen.path))
    count = f"{len(shown)} message{'s' if len(shown) != 1 else ''}"
    return CommandResult(f"Exported {count} to `{chosen.path}`{where}.")


def copy_command(runtime: ShellRuntime, arg: str) -> CommandResult:
    """``/copy``: the last reply's text; ``/copy N``: its Nth code block. The front
    end puts ``data`` on the clipboard (action ``copy``) and says how."""
    from shell.core.messages import AssistantMessage
    from shell.frontend.clipboard import code_blocks

    live = runtime.agent.live_message()  # on screen, not yet in the history
    shown = [*runtime.shown_history(), *([live] if live is not None else [])]  # after /compact too
    last = next((m.text for m in reversed(shown) if isinstance(m, AssistantMessage) and m.text.strip()), "")
    if not last:
        return CommandResult("Nothing to copy yet: no reply has any text.", error=True)
    words = arg.split()
    if not words:
        return CommandResult(action="copy", data=sanitize(last))
    blocks = code_blocks(last)
    if len(words) > 1 or not words[0].isdigit() or not 1 <= int(words[0]) <= len(blocks):
        have = f"it has {len(blocks)}" if blocks else "it has none"
        return CommandResult(f"Usage: `/copy [N]`: the last reply, or its Nth code block ({have}).",
                             error=True)
    return CommandResult(action="copy", data=sanitize(blocks[int(words[0]) - 1]))
