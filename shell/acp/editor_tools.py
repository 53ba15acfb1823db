"""Built-in tools that work through the editor, for clients that offer it.

When the client says it can read and write text files (``fs``), ``read_file``,
``write_file`` and ``edit_file`` go through ``fs/read_text_file`` and
``fs/write_text_file``: the model reads what the user sees, unsaved changes
included, and edits land in the editor's buffers, where the user can review and
undo them. When it offers ``terminal``, ``run_shell`` runs in an editor terminal
that the tool call shows live, inside the same sandbox as our own ``run_shell``
where bubblewrap works here: the terminal's command is a short launcher that starts
``bwrap`` with its options and our scrubbed environment read from a private file
(:mod:`shell.permissions.sandboxlaunch`), so that neither the hidden paths nor the
editor's environment (provider keys included) can be read in ``/proc/1``. Where
bubblewrap is missing, the command runs in the editor's terminal as the user,
unconfined, and every call asks (the policy says so). Everything else stays ours.

The tools keep the built-ins' names, schemas and descriptions (the model cannot
tell), and the workspace's fence: every path goes through
:meth:`Workspace.check` before the editor is asked for anything. What the editor
answers is as untrusted as anything else a tool returns.
"""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Awaitable, Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import anyio
import anyio.to_thread
from acp.schema import EnvVariable

from shell.core.messages import ToolResult
from shell.core.programs import which
from shell.core.tools import FunctionTool, Tool, ToolContext, ToolKind
from shell.permissions import runslater, sandboxlaunch
from shell.permissions.hiddenvalues import redacted_note
from shell.permissions.loaderdirs import launcher_overrides
from shell.permissions.runslater import Planted
from shell.permissions.sandbox import Sandbox
from shell.permissions.sandboxlimits import limit_notes
from shell.tools import after_check, file_edits, files, longcommand, nofollow, shell_cmd
from shell.tools.capture import WorkspaceCapture, watched
from shell.tools.changes import ChangeLog
from shell.tools.hiddenreads import without_secret_values
from shell.tools.sniff import sniff_media_type
from shell.tools.workspace import Workspace


class EditorError(Exception):
    """The editor refused or failed a request; the message says which and why."""


def _why(exc: BaseException) -> str:
    message = getattr(exc, "message", None) or str(exc) or type(exc).__name__
    data = getattr(exc, "data", None)
    if isinstance(data, dict) and isinstance(data.get("details"), str):
        message = f"{message}: {data['details']}"
    return str(message)


def editor_tools(
    workspace: Workspace,
    client: Any,
    session_id: str,
    builtin: dict[str, Tool],
    *,
    read: bool,
    write: bool,
    terminal: bool,
    sandbox: Sandbox | None = None,
    changes: ChangeLog | None = None,
) -> list[Tool]:
    """The replacements the client's capabilities allow (``client`` is the SDK's
    agent-side connection). Each keeps its built-in's description. ``sandbox`` is
    the one our ``run_shell`` uses: where it works, the editor's terminal runs
    commands in it too. ``changes`` hears of every change, as our tools' does, so
    ``/rewind`` puts back what an edit or a sandboxed command changed, and says a
    command that ran outside the sandbox is not undoable."""
    editor = _Editor(workspace, client, session_id, builtin, sandbox, changes)
    wanted: list[tuple[bool, Callable[..., Awaitable[ToolResult]], str, ToolKind]] = [
        (read, editor.read_file, "read_file", "read"),
        (read and write, editor.write_file, "write_file", "edit"),
        (read and write, editor.edit_file, "edit_file", "edit"),
        (terminal, editor.run_shell, "run_shell", "execute"),
    ]
    tools = [
        FunctionTool(fn, name=name, description=editor.description(name), kind=kind)
        for offered, fn, name, kind in wanted
        if offered
    ]
    for t in tools:
        t.source = "editor"  # type: ignore[attr-defined]
        editor.made[t.name] = t
        workspace.guard(t)
        if t.name == "run_shell" and editor.confined:
            t.confined = True  # type: ignore[attr-defined]  # the policy's auto mode counts on it
    return list(tools)


class _Editor:
    """The tools' shared part: the workspace's fence and the editor's file requests."""

    def __init__(
        self, workspace: Workspace, client: Any, session_id: str, builtin: dict[str, Tool],
        sandbox: Sandbox | None = None, changes: ChangeLog | None = None,
    ) -> None:
        self.workspace = workspace
        self.changes = changes
        self.capture = WorkspaceCapture(workspace.root) if changes is not None else None
        self.sandbox = sandbox if sandbox is not None and sandbox.available else None
        """The sandbox the editor's terminal runs commands in, or None where none works here."""
        self.secrets_from = sandbox
        """Whose search for secret files says what read_file redacts (also where bubblewrap is missing)."""
        self.client = client
        self.session_id = session_id
        self.builtin = builtin
        self.made: dict[str, FunctionTool] = {}

    @property
    def confined(self) -> bool:
        return self.sandbox is not None

    async def allowed(self, ctx: ToolContext, path: str, action: str) -> Path:
        return await self.workspace.check(path, ctx, tool=self.made.get(ctx.call.name), action=action)

    async def read_text(self, real: Path, line: int | None = None, limit: int | None = None) -> str:
        try:
            response = await self.client.read_text_file(
                session_id=self.session_id, path=str(real), line=line, limit=limit
            )
        except Exception as exc:  # a JSON-RPC error, a closed connection
            raise EditorError(f"The editor could not read {real}: {_why(exc)}") from None
        return str(response.content)

    async def write_text(self, real: Path, content: str, tool_name: str) -> None:
        """Through the editor, the checkpoint told first what is on disk (a rewind puts
        it back) and after what the editor left there."""
        changes = self.changes
        if changes is not None:

            def keep() -> None:  # in a thread, as our tools tell it (it reads and stores blobs)
                changes.before_write(real, nofollow.read_back(real) if real.exists() else None, tool_name)

            await anyio.to_thread.run_sync(keep)
        try:
            await self.client.write_text_file(session_id=self.session_id, path=str(real), content=content)
        except Exception as exc:
            raise EditorError(f"The editor could not write {real}: {_why(exc)}") from None
        if changes is not None:
            await anyio.to_thread.run_sync(lambda: changes.after_write(real, nofollow.read_back(real)))

    def description(self, name: str) -> str:
        found = self.builtin.get(name)
        return found.description if found is not None else ""

    async def read_file(
        self, ctx: ToolContext, path: str, offset: int = 1, limit: int = files.MAX_LINES
    ) -> ToolResult:
        real = await self.allowed(ctx, path, "read")
        shown = self.workspace.relative(real)
        if offset < 1:
            raise nofollow.FileToolError(f"offset must be 1 or more (the first line is 1), not {offset}.")
        if limit < 1:
            raise nofollow.FileToolError(f"limit must be 1 or more, not {limit}.")
        if real.is_dir():
            raise nofollow.FileToolError(f"{shown} is a directory; use list_dir to see what is in it.")
        own = self.builtin.get("read_file")
        if own is not None and real.is_file() and _not_text(real):
            # Images and binary files: the editor reads text only; ours knows what they are.
            return await own.run({"path": str(real), "offset": offset, "limit": limit}, ctx)
        text, note = files.model_view(real, await self.read_text(real, offset, limit + 1))
        result = number_lines(text, shown, offset, limit)
        result = replace(result, content=f"{result.content}\n{note}") if note else result
        if self.secrets_from is None:
            return result
        return await anyio.to_thread.run_sync(without_secret_values, result, self.secrets_from, real)

    async def write_file(self, ctx: ToolContext, path: str, content: str) -> ToolResult:
        real = await self.allowed(ctx, path, "write")
        shown = self.workspace.relative(real)
        if real.is_dir():
            raise nofollow.FileToolError(f"{shown} is a directory; give a file path to write.")
        old = await self.read_text(real) if real.exists() else None
        real.parent.mkdir(parents=True, exist_ok=True)
        await self.write_text(real, content, "write_file")
        text, diff = file_edits.write_summary(real, shown, old, content, self.workspace.read_denied)
        return ToolResult(
            text,
            details={
                "path": shown,
                "diff": diff,
                "created": old is None,
                "abs_path": str(real),
                "old_text": old,
                "new_text": content,
            },
        )

    async def edit_file(
        self, ctx: ToolContext, path: str, old_string: str, new_string: str, replace_all: bool = False
    ) -> ToolResult:
        real = await self.allowed(ctx, path, "edit")
        shown = self.workspace.relative(real)
        if real.is_dir():
            raise nofollow.FileToolError(f"{shown} is a directory; use list_dir to see what is in it.")
        text = await self.read_text(real)
        new_text, n = file_edits.replace_text(text, old_string, new_string, replace_all, shown)
        await self.write_text(real, new_text, "edit_file")
        result = file_edits.edit_result(text, new_text, n, shown, real, self.workspace.read_denied)
        details = dict(result.details or {})
        details.update(abs_path=str(real), old_text=text, new_text=new_text)
        return ToolResult(result.content, details=details)

    async def run_shell(
        self,
        ctx: ToolContext,
        command: str,
        timeout: float = shell_cmd.DEFAULT_TIMEOUT,
        network: bool = False,
    ) -> ToolResult:
        if not command.strip():
            raise shell_cmd.ShellToolError("The command is empty.")
        if not 0 < timeout <= shell_cmd.MAX_TIMEOUT:
            raise shell_cmd.ShellToolError(
                f"timeout must be above 0 and at most {shell_cmd.MAX_TIMEOUT:g} seconds, not {timeout}."
            )
        root = self.workspace.root

        async def run() -> ToolResult:
            return await run_in_editor_terminal(self.client, self.session_id, command, root, timeout, ctx,
                                                sandbox=self.sandbox, network=network)

        if self.changes is None:
            return await run()
        outside = "it ran in your editor's terminal, outside the sandbox"
        return await watched(run, command, self.changes, self.capture if self.sandbox else None, outside)


def _not_text(path: Path) -> bool:
    try:
        with path.open("rb") as fh:
            head = fh.read(files.SNIFF_BYTES)
    except OSError:
        return False
    return sniff_media_type(path, head) is not None


def number_lines(text: str, shown: str, offset: int, limit: int) -> ToolResult:
    """The editor's text (asked for ``limit + 1`` lines from ``offset``) numbered
    like ``cat -n``, within the built-in's caps, saying how to read on."""
    lines = text.splitlines()
    if not lines:
        if offset == 1:
            return ToolResult(f"{shown} is empty (0 bytes).", details={"path": shown, "lines": 0})
        raise nofollow.FileToolError(f"offset {offset} is past the end of {shown}.")
    more = len(lines) > limit
    out: list[str] = []
    used = 0
    last = offset - 1
    for number, line in enumerate(lines[:limit], start=offset):
        if len(line) > files.MAX_LINE_CHARS:
            cap = files.MAX_LINE_CHARS
            line = f"{line[:cap]}… [line cut at {cap} of {len(line)} characters]"
        entry = f"{number:>6}\t{line}"
        if used + len(entry) > files.MAX_OUTPUT_CHARS and out:
            more = True
            break
        out.append(entry)
        used += len(entry) + 1
        last = number
    body = "\n".join(out)
    if more:
        body += f"\n[showed lines {offset}-{last}; call read_file with offset={last + 1} to read on]"
    return ToolResult(body, details={"path": shown, "first": offset, "last": last})


async def run_in_editor_terminal(
    client: Any,
    session_id: str,
    command: str,
    cwd: Path,
    timeout: float,
    ctx: ToolContext,
    *,
    sandbox: Sandbox | None = None,
    network: bool = False,
) -> ToolResult:
    """``bash -c COMMAND`` in a terminal of the editor's, shown live in the tool call
    (``ctx.report({"terminal_id": ...})``); killed on timeout or cancel, always released.

    With ``sandbox`` (one that works here) the terminal runs the launcher of the
    bubblewrap command line our ``run_shell`` would run (:func:`shell_cmd.confine`,
    :mod:`.sandboxlaunch`: the options and our scrubbed environment in a private file,
    none of the editor's environment), and the same checks follow it: what it planted
    that runs later is moved out, and the result says what was hidden from it."""
    shell = which("bash") or "/bin/sh"
    script = longcommand.checked(command)  # past one argument's room: in a file the launcher opens
    if len(script) <= longcommand.ARGV_ROOM:
        argv, script = [shell, "-c", command], b""
    elif sandbox is None:
        raise shell_cmd.ShellToolError(
            f"The command is {len(script):,} bytes, more than the editor's terminal takes as one argument "
            f"({longcommand.ARGV_ROOM:,}). Write a large file with write_file, or in parts appending "
            "with >>.")
    else:
        argv = [shell, "-c", longcommand.stub(sandboxlaunch.SCRIPT_FD)]
    confined: shell_cmd.Confined | None = None
    started = time.time_ns()
    planted: list[Planted] = []
    unchecked = ""
    restarted = ""
    shown: tuple[str, ...] = () if sandbox is None else await anyio.to_thread.run_sync(  # what the user
        sandbox.take_reveal, ctx.call.id, command, abandon_on_cancel=True)  # let it read (off the loop: T5)
    cancelled = False
    try:
        for attempt in (1, 2):
            if sandbox is not None:
                confined = await shell_cmd.confine(sandbox, argv, network=network, shown=shown,
                                                   spelled=command if script else "", script=script)
            limited = [*sandbox.limits.prefix(timeout), *confined.argv] if sandbox and confined else argv
            terminal_id, exit_code, signal, timed_out, output = await _in_terminal(
                client, session_id, limited, cwd, timeout, ctx,
                launcher_overrides(os.environ) if confined is not None else {})
            if (confined is None or attempt == 2 or timed_out
                    or not confined.launch.never_started(exit_code, str(output.output))):
                break
            restarted = str(output.output).strip().splitlines()[0]  # a path to hide vanished: list again
            confined.launch.close()
    except anyio.get_cancelled_exc_class():
        cancelled = True  # Esc: the check gets after_check.CANCEL_LIMIT, then goes on in its thread
        raise
    finally:
        if sandbox is not None and confined is not None:
            confined.launch.close()
            with anyio.CancelScope(shield=True):
                # Also after a cancel or a timeout: what the command planted is moved out.
                planted, unchecked = await after_check.check_after(sandbox, confined.guard, started,
                                                                   cancelled=cancelled)
    text, found = str(output.output), dict[str, str]()
    if confined is not None:  # the values of the secret files hidden from it (.hiddenvalues)
        text, found = confined.values.redact(text)
    if output.truncated:
        text = f"[the editor kept only the end of the output]\n{text}"
    if timed_out:
        state = f"[timed out after {timeout:g} s; the command was killed]"
    elif signal:
        state = f"[killed by signal {signal}]"
    else:
        state = f"[exit code {exit_code}]"
    body = f"{text.rstrip(chr(10))}\n{state}" if text.strip() else f"(no output)\n{state}"
    notes: list[str] = []
    not_written: list[str] = []
    if sandbox is not None and confined is not None:
        notes, not_written = shell_cmd.sandbox_notes(
            text, exit_code, cwd, network=network, timed_out=timed_out, sandboxed=True, confined=confined,
            planted=planted, unchecked=unchecked, roots=sandbox.roots(), restarted=restarted)
        code = {"SIGXCPU": 128 + 24, "SIGXFSZ": 128 + 25}.get(signal or "", exit_code)  # the shell's code
        notes += limit_notes(text, code, sandbox.limits, timeout)
    notes += [n for n in [redacted_note(found)] if n]
    return ToolResult(
        "\n".join([body, *notes, *after_check.take_late_notes(sandbox)]),
        is_error=timed_out or bool(signal) or exit_code != 0,
        details={
            "exit_code": exit_code,
            "timed_out": timed_out,
            "terminal_id": terminal_id,
            "sandboxed": confined is not None,
            "network": network or confined is None,
            "hidden_secret_files": len(confined.hidden) if confined is not None else 0,
            "redacted_values": len(found),
            "quarantined": [
                runslater.relative(p.path, sandbox.roots())
                for p in planted
                if p.moved_to is not None and sandbox is not None
            ],
            "not_written": not_written,
        },
    )


async def _in_terminal(
    client: Any, session_id: str, argv: list[str], cwd: Path, timeout: float, ctx: ToolContext,
    env: dict[str, str],
) -> tuple[str, int | None, str | None, bool, Any]:
    """Run ``argv`` in a new terminal of the editor's, shown in the tool call: its id,
    exit code, signal, whether it timed out, and its output. Killed on timeout or
    cancel, always released. ``env`` is set over the editor's environment (the loader's
    variables for our launcher: no library from the workspace, finding W6)."""
    try:
        created = await client.create_terminal(
            session_id=session_id,
            command=argv[0],
            args=argv[1:],
            cwd=str(cwd),
            env=[EnvVariable(name=name, value=value) for name, value in env.items()] or None,
            output_byte_limit=shell_cmd.MAX_OUTPUT_CHARS * 4,
        )
    except Exception as exc:
        raise EditorError(f"The editor could not start a terminal: {_why(exc)}") from None
    terminal_id = str(created.terminal_id)
    ctx.report({"terminal_id": terminal_id})
    timed_out = False
    exit_code: int | None = None
    signal: str | None = None
    try:
        with anyio.move_on_after(timeout) as scope:
            status = await client.wait_for_terminal_exit(session_id=session_id, terminal_id=terminal_id)
            exit_code, signal = status.exit_code, status.signal
        if scope.cancelled_caught:
            timed_out = True
            await client.kill_terminal(session_id=session_id, terminal_id=terminal_id)
        output = await client.terminal_output(session_id=session_id, terminal_id=terminal_id)
        if output.exit_status is not None and exit_code is None and signal is None:
            exit_code, signal = output.exit_status.exit_code, output.exit_status.signal
    except anyio.get_cancelled_exc_class():
        with anyio.CancelScope(shield=True), anyio.move_on_after(2), contextlib.suppress(Exception):
            await client.kill_terminal(session_id=session_id, terminal_id=terminal_id)
        raise
    except Exception as exc:
        raise EditorError(f"The editor's terminal failed: {_why(exc)}") from None
    finally:
        with anyio.CancelScope(shield=True), anyio.move_on_after(2), contextlib.suppress(Exception):
            await client.release_terminal(session_id=session_id, terminal_id=terminal_id)
    return terminal_id, exit_code, signal, timed_out, output
