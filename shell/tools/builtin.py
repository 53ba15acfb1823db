"""``builtin_tools(workspace)``: the eight built-in tools, bound to one workspace.

Each tool is a ``@tool`` closure over the workspace, so its JSON schema and
description come from the signature and the docstring below (what the model reads)
and every path goes through :meth:`Workspace.check` before anything touches the
disk. The kinds are honest: a tool that can change anything (files, processes)
or reach the network (``fetch_url``: a URL can carry data out) is not read-only,
and the permission policy asks for it by default.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

import anyio
import anyio.to_thread

from shell.core.messages import ToolResult
from shell.core.tools import FunctionTool, Tool, ToolContext, tool
from shell.permissions.network import NetworkGuard
from shell.permissions.sandbox import Sandbox

from . import file_edits, files, hiddenreads, nofollow, search, web
from .changes import ChangeLog
from .ignore import ignore_root_for
from .workspace import Workspace

if TYPE_CHECKING:
    from .capture import WorkspaceCapture

BUILTIN_SOURCE = "builtin"

COMMAND_MODULES = (
    "shell.tools.shell_cmd",
    "shell.tools.capture",
    "shell.permissions.runslater",
    "shell.permissions.laterhit",
    "shell.permissions.gitflags",
    "shell.permissions.gitobjects",
    "shell.permissions.gitrefs",
    "shell.permissions.gitsequencer",
    "shell.permissions.pathswaps",
    "shell.permissions.laterconfigs",
)
"""What a command (and an edit of what runs later) needs and the start does not: imported
by run_shell, the sandbox's check around a command and the policy's check of an edit
when first used (~25 ms of the start-up thread otherwise). A front end may import them
ahead, once its first screen is up (the TUI does, with the rest it warms)."""

RUN_SHELL_TIMEOUT = 120.0
"""run_shell's timeout when the model gives none (``shell_cmd.DEFAULT_TIMEOUT``, which a
test holds equal): here so that the schema is made without importing the command machinery, which
run_shell imports at its first call (:mod:`.shell_cmd`, :mod:`.capture`, what the
sandbox does around a command): not on the way to the first screen."""


def builtin_tools(
    workspace: Workspace,
    *,
    sandbox: Sandbox | None = None,
    network_guard: NetworkGuard | None = None,
    changes: ChangeLog | None = None,
) -> list[Tool]:
    """``read_file, list_dir, glob, grep, write_file, edit_file, run_shell, fetch_url``.

    ``run_shell`` runs in ``sandbox`` (default: one for this workspace; it is used
    where bubblewrap works, see :mod:`shell.permissions.sandbox`); ``fetch_url``
    connects through ``network_guard`` (default: public addresses only, see
    :mod:`shell.permissions.network`). ``changes`` hears of every change to the
    workspace first (the old content of a file before write_file or edit_file
    changes it; what a sandboxed command wrote, with what it replaced), for
    checkpoints."""
    made: dict[str, FunctionTool] = {}
    guard = network_guard if network_guard is not None else NetworkGuard()

    async def allowed(ctx: ToolContext, path: str, action: str) -> Path:
        return await workspace.check(path, ctx, tool=made.get(ctx.call.name), action=action)

    box = sandbox if sandbox is not None else Sandbox(workspace.root)
    kit = _Kit(workspace, allowed, changes, box)

    @tool(name="fetch_url", kind="fetch")
    async def fetch_url(url: str) -> ToolResult:
        """Fetch a web page over http(s) and return its readable text (HTML converted to text).

        Args:
            url: The full URL, starting with http:// or https://.
        """
        return await web.fetch(url, guard=guard)

    tools = [*_reading_tools(kit), *_editing_tools(kit), _shell_tool(kit, box), fetch_url]
    for t in tools:
        t.source = BUILTIN_SOURCE  # type: ignore[attr-defined]
        made[t.name] = t
        workspace.guard(t)
    return list(tools)


Allowed = Callable[[ToolContext, str, str], Awaitable[Path]]


@dataclass(frozen=True, slots=True)
class _Kit:
    """What every built-in tool works with: the workspace, its fence, the change log."""

    workspace: Workspace
    allowed: Allowed
    """The workspace's check of a path (inside, ignored, asked about outside)."""
    changes: ChangeLog | None
    box: Sandbox
    """Whose search for secret files says what read_file and grep redact (:mod:`.hiddenreads`)."""

    def keeper(self, tool_name: str) -> file_edits.Keep | None:
        changes = self.changes
        if changes is None:
            return None
        return lambda path, before: changes.before_write(path, before, tool_name)

    def wrote(self, fn: partial[ToolResult], path: Path) -> partial[ToolResult]:
        """``fn`` (a file tool's write, run in a worker thread), then telling the change
        log what it left in ``path``."""
        changes = self.changes
        if changes is None:
            return fn

        def write_then_tell() -> ToolResult:
            result = fn()
            changes.after_write(path, nofollow.read_back(path))
            return result

        return partial(write_then_tell)

    @staticmethod
    async def in_thread(fn: partial[ToolResult]) -> ToolResult:
        return await anyio.to_thread.run_sync(fn, abandon_on_cancel=True)

    async def read_in_thread(
        self, fn: partial[ToolResult], read: Path | None, supplied: str = ""
    ) -> ToolResult:
        """``fn`` (a read), its result without the values of the secret files it did not
        read itself nor were ``supplied`` in its arguments
        (:func:`.hiddenreads.without_secret_values`), in a worker thread."""
        box = self.box
        return await self.in_thread(
            partial(lambda: hiddenreads.without_secret_values(fn(), box, read, supplied)))


def _reading_tools(kit: _Kit) -> list[FunctionTool]:
    workspace, allowed, in_thread = kit.workspace, kit.allowed, kit.in_thread

    @tool(name="read_file", kind="read")
    async def read_file(
        ctx: ToolContext, path: str, offset: int = 1, limit: int = files.MAX_LINES
    ) -> ToolResult:
        """Read a text file, with line numbers like `cat -n`.

        Long files come in windows: the result says which lines it shows and what
        offset to use next. Images (PNG, JPEG, GIF, WebP) are returned as images;
        other binary files are refused with their type.

        Args:
            path: File path, relative to the workspace root.
            offset: First line to show (1-based).
            limit: Number of lines to show (default 2000).
        """
        real = await allowed(ctx, path, "read")
        read = partial(files.read_text_window, real, workspace.relative(real), offset, limit)
        return await kit.read_in_thread(read, real)

    @tool(name="list_dir", kind="read")
    async def list_dir(ctx: ToolContext, path: str = ".") -> ToolResult:
        """List a directory: subdirectories end in `/`, files show their size.

        Args:
            path: Directory path, relative to the workspace root (default: the root).
        """
        real = await allowed(ctx, path, "list")
        return await in_thread(partial(files.list_directory, real, workspace.relative(real)))

    @tool(name="glob", kind="search")
    async def glob(ctx: ToolContext, pattern: str, path: str = ".") -> ToolResult:
        """Find files by name pattern, skipping files ignored by .gitignore.

        `*` and `?` match within one path segment, `**` any number of directories,
        `{a,b}` either alternative: `**/*.py`, `src/**/test_*.py`, `*.{md,txt}`.

        Args:
            pattern: Glob pattern, relative to path.
            path: Directory to search in, relative to the workspace root (default: the root).
        """
        real = await allowed(ctx, path, "search")
        root = ignore_root_for(real, workspace.root)
        show = workspace.relative
        return await in_thread(partial(search.glob_files, real, pattern, root, show))

    @tool(name="grep", kind="search")
    async def grep(ctx: ToolContext, pattern: str, path: str = ".", glob: str | None = None) -> ToolResult:
        """Search file contents with a regular expression; prints `file:line: text`.

        The pattern is RE2 syntax (much like Python's `re`, but without look-around
        or backreferences), matched line by line in linear time. Files ignored by
        .gitignore and binary files are skipped. Results are capped; narrow a broad
        search with path or glob.

        Args:
            pattern: Regular expression (RE2 syntax) to search for.
            path: File or directory to search, relative to the workspace root (default: the root).
            glob: Only search files matching this glob, e.g. `*.py` (file name) or `src/**/*.ts`.
        """
        real = await allowed(ctx, path, "search")
        root = ignore_root_for(real if real.is_dir() else real.parent, workspace.root)
        show = workspace.relative
        search_files = partial(
            search.grep_files, real, pattern, glob, root, show, workspace.contains, workspace.read_denied
        )
        return await kit.read_in_thread(search_files, real, "\n".join([pattern, path, glob or ""]))

    return [read_file, list_dir, glob, grep]


def _editing_tools(kit: _Kit) -> list[FunctionTool]:
    workspace, allowed, in_thread, keeper = kit.workspace, kit.allowed, kit.in_thread, kit.keeper

    @tool(name="write_file", kind="edit")
    async def write_file(ctx: ToolContext, path: str, content: str) -> ToolResult:
        """Create a file, or replace a file's whole content. Parent directories are created.

        To change part of an existing file prefer edit_file.

        Args:
            path: File path, relative to the workspace root.
            content: The complete new content of the file.
        """
        real = await allowed(ctx, path, "write")
        keep = keeper("write_file")
        shown = workspace.relative(real)
        write = partial(file_edits.write_text, real, shown, content, keep, workspace.read_denied)
        return await in_thread(kit.wrote(write, real))

    @tool(name="edit_file", kind="edit")
    async def edit_file(
        ctx: ToolContext, path: str, old_string: str, new_string: str, replace_all: bool = False
    ) -> ToolResult:
        """Replace an exact piece of text in a file and return the diff.

        old_string must match the file exactly (whitespace and indentation included)
        and exactly once, unless replace_all is true. Include enough surrounding
        lines to make it unique. Read the file first.

        Args:
            path: File path, relative to the workspace root.
            old_string: The exact text to replace.
            new_string: The text to put in its place.
            replace_all: Replace every occurrence instead of requiring exactly one.
        """
        real = await allowed(ctx, path, "edit")
        shown = workspace.relative(real)
        edit = partial(
            file_edits.edit_text, real, shown, old_string, new_string, replace_all, keeper("edit_file"),
            workspace.read_denied,
        )
        return await in_thread(kit.wrote(edit, real))

    return [write_file, edit_file]


def _shell_tool(kit: _Kit, box: Sandbox) -> FunctionTool:
    workspace, changes = kit.workspace, kit.changes
    captures: list[WorkspaceCapture] = []  # the one scan of the workspace, made at the first command

    @tool(name="run_shell", kind="execute")
    async def run_shell(
        ctx: ToolContext, command: str, timeout: float = RUN_SHELL_TIMEOUT, network: bool = False
    ) -> ToolResult:
        """Run a bash command in the workspace root; stdout and stderr are returned together.

        Output streams while the command runs and is capped at 30000 characters (the
        first and last parts are kept). On timeout the command and every process it
        started are killed; background processes do not outlive the command.
        Commands run sandboxed where the system allows: only the workspace and /tmp
        are writable, and there is no network unless network is true.

        Args:
            command: The bash command line to run.
            timeout: Seconds before the command is killed (default 120, at most 600).
            network: The command needs the network (downloads, git fetch); the user is asked.
        """
        from . import shell_cmd

        shown = await anyio.to_thread.run_sync(  # the secret files the user let it read; it reads
            box.take_reveal, ctx.call.id, command, abandon_on_cancel=True)  # the line: not on the loop (T5)
        if changes is None:
            return await shell_cmd.run_command(
                command, workspace.root, timeout, ctx.report, sandbox=box, network=network, shown=shown
            )
        return await watched_command(command, timeout, network, ctx, shown)

    async def watched_command(
        command: str, timeout: float, network: bool, ctx: ToolContext, shown: tuple[str, ...]
    ) -> ToolResult:
        """run_shell, telling ``changes`` what the command did: in the sandbox its
        writes can only land in the workspace, so a scan before and after captures
        them; outside it they cannot be known."""
        from . import shell_cmd
        from .capture import WorkspaceCapture, watched

        assert changes is not None
        if not captures:
            captures.append(WorkspaceCapture(workspace.root))
        capture = captures[0]
        sandboxed = box.available

        async def run() -> ToolResult:
            return await shell_cmd.run_command(command, workspace.root, timeout, ctx.report, sandbox=box,
                                               network=network, shown=shown if sandboxed else ())

        return await watched(run, command, changes, capture if sandboxed else None)

    run_shell.confined = True  # type: ignore[attr-defined]  # the policy's auto mode counts on it
    return run_shell
