"""``run_shell``: a bash command in the workspace, streamed, bounded, and cleaned up.

With a :class:`~shell.permissions.sandbox.Sandbox` that works here (bubblewrap on
Linux) the command runs inside it: the workspace and a private ``/tmp`` writable,
the rest read-only, key files hidden, no network unless ``network`` is set, and
its own PID namespace, so nothing it starts survives it. Without one it runs as
the user, in the workspace. Either way its environment carries no secrets.

The command runs in a new session (its own process group), so on a timeout, on
cancellation (Esc in the TUI) or when it finishes, one ``killpg`` stops it *and*
everything it started; nothing keeps running behind the user's back. Output (stdout
and stderr merged, as a terminal shows them) is reported chunk by chunk through
``report`` while it arrives, and the result keeps the head and tail of it under a
stated cap.

Exit is detected by polling the return code rather than ``Process.wait()``:
under asyncio that also waits for the pipe to close, which a background child
holding the pipe would delay until the timeout.
"""

from __future__ import annotations

import codecs
import contextlib
import os
import posixpath
import re
import signal
import subprocess
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
from anyio.abc import Process

from shell.core.messages import ToolResult
from shell.core.programs import which
from shell.core.textsafety import path_text
from shell.permissions import hostsockets, paths, runslater, sandboxlaunch
from shell.permissions.gitoutside import outside_files_note, outside_note
from shell.permissions.gitruns import HOOKS_PATH_WHY
from shell.permissions.gitstopped import refused_note, stopped_note
from shell.permissions.hiddenvalues import (
    NO_VALUES,
    HiddenValues,
    StreamRedaction,
    hidden_values,
    home_value_sources,
    values_bound_note,
)
from shell.permissions.historysecrets import history_sources
from shell.permissions.laternames import Reason
from shell.permissions.runslater import Guard, Planted
from shell.permissions.sandbox import Sandbox, network_note
from shell.permissions.sandboxenv import scrubbed_environment
from shell.permissions.sandboxlaunch import Launch
from shell.permissions.sandboxlimits import default_limits, limit_notes
from shell.permissions.secretfiles import SecretFiles
from shell.permissions.secretvanished import missing

from .after_check import after_notes, check_after, prepare, take_late_notes
from .cappedtext import CappedText
from .longcommand import command_line

DEFAULT_TIMEOUT = 120.0
MAX_TIMEOUT = 600.0
MAX_OUTPUT_CHARS = 30_000
MAX_REPORTED_CHARS = 1_000_000
TERM_GRACE = 0.5
POLL = 0.02


class ShellToolError(ValueError):
    """The command could not be run as asked; the message says why."""


async def run_command(
    command: str,
    cwd: Path,
    timeout: float,
    report: Callable[[Any], None],
    *,
    sandbox: Sandbox | None = None,
    network: bool = False,
    shown: Sequence[str] = (),
) -> ToolResult:
    """Run ``command`` with bash in ``cwd``; see the module docstring for the guarantees.

    ``network`` lets a sandboxed command reach the network (the caller's policy
    decided that the user allowed it). In the sandbox, the workspace's secret-looking
    files are hidden (they read empty), except those the words in ``shown`` name: the
    user approved this call having been told it names them."""
    if not command.strip():
        raise ShellToolError("The command is empty.")
    if "\0" in command:  # the OS takes a command line as C strings: a NUL cannot be passed
        raise ShellToolError("command holds a NUL byte (\\0); a command line cannot hold one. "
                             "Write the command without it (printf '\\0' makes one where one is needed).")
    if not 0 < timeout <= MAX_TIMEOUT:
        raise ShellToolError(f"timeout must be above 0 and at most {MAX_TIMEOUT:g} seconds, not {timeout}.")
    sandboxed = sandbox is not None and sandbox.available
    line = command_line(which("bash") or "/bin/sh", command)  # a long one on a descriptor
    argv = line.argv
    limits = sandbox.limits if sandbox is not None else default_limits()
    confined: Confined | None = None
    planted: list[Planted] = []
    unchecked = ""
    restarted = ""
    started = time.time_ns()
    cancelled = False
    try:
        for attempt in (1, 2):
            if sandbox is not None and sandboxed:
                confined = await confine(sandbox, argv, network=network, shown=shown, direct=True,
                                         spelled=command)
                run, env, fds = confined.argv, {}, [*confined.launch.fds, *line.fds]  # env: in its file
            else:
                run, env, fds = argv, dict(scrubbed_environment()[0], **QUIET), line.fds
            run = [*limits.prefix(timeout), *run]  # a runaway stops before it takes the machine
            output = CappedText(MAX_OUTPUT_CHARS)
            redaction = StreamRedaction(confined.values if confined is not None else NO_VALUES)
            code, timed_out, pid = await _run(run, env, cwd, timeout, report, output, fds, redaction)
            if (confined is None or attempt == 2 or timed_out
                    or not confined.launch.never_started(code, output.render())):
                break
            restarted = output.render().strip().splitlines()[0]  # a path to hide vanished: list again
            confined.launch.close()
    except anyio.get_cancelled_exc_class():
        cancelled = True  # Esc: the check after it gets CANCEL_LIMIT, then goes on in its thread
        raise
    finally:
        line.close()
        if confined is not None:
            confined.launch.close()
            if sandbox is not None:
                with anyio.CancelScope(shield=True):
                    # Also after a cancel or a timeout: the sandbox is gone, nothing of it still writes.
                    # Past the limit the check goes on in its thread; the next result says what it found.
                    planted, unchecked = await check_after(sandbox, confined.guard, started,
                                                           cancelled=cancelled)

    text = output.render()
    if timed_out:
        status = f"[timed out after {timeout:g} s; the command and its child processes were killed]"
    else:
        status = f"[exit code {code}]"
    body = f"{text.rstrip(chr(10))}\n{status}" if text.strip() else f"(no output)\n{status}"
    roots = sandbox.roots() if sandbox is not None else [cwd]
    notes, not_written = sandbox_notes(
        text, code, cwd, network=network, timed_out=timed_out, sandboxed=sandboxed, confined=confined,
        planted=planted, unchecked=unchecked, roots=roots, restarted=restarted)
    notes += [n for n in [redaction.note()] if n] + limit_notes(text, code, limits, timeout)
    body = "\n".join([body, *notes, *take_late_notes(sandbox if sandboxed else None)])
    return ToolResult(
        body,
        is_error=timed_out or code != 0,
        details={
            "exit_code": code,
            "timed_out": timed_out,
            "truncated": output.truncated,
            "pid": pid,
            "sandboxed": sandboxed,
            "network": network or not sandboxed,
            "hidden_secret_files": len(confined.hidden) if confined is not None else 0,
            "redacted_values": len(redaction.found),
            "quarantined": [runslater.relative(p.path, roots) for p in planted if p.moved_to is not None],
            "not_written": not_written,
        },
    )


async def _run(
    argv: Sequence[str], env: dict[str, str], cwd: Path, timeout: float, report: Callable[[Any], None],
    output: CappedText,
    fds: Sequence[int] = (),
    redaction: StreamRedaction | None = None,
) -> tuple[int | None, bool, int]:
    """Start ``argv`` in a new session (passing it ``fds``), stream its output into
    ``output`` and ``report`` (through ``redaction``: the values of the secret files
    hidden from it), and end it and all it started on exit, timeout or cancel: its exit
    code, whether it timed out, and its pid."""
    process = await anyio.open_process(
        list(argv),
        pass_fds=fds,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        cwd=cwd,
        env=env,
        start_new_session=True,
    )
    reported = 0
    timed_out = False
    reader_done = anyio.Event()
    redacting = redaction if redaction is not None else StreamRedaction(NO_VALUES)

    def take(text: str) -> None:
        nonlocal reported
        if not text:
            return
        output.add(text)
        if reported < MAX_REPORTED_CHARS:
            report(text)
            reported += len(text)

    async def read() -> None:
        decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        assert process.stdout is not None
        try:
            async for chunk in process.stdout:
                take(redacting.feed(decoder.decode(chunk)))
        except (anyio.ClosedResourceError, anyio.BrokenResourceError, OSError):
            pass
        finally:
            take(redacting.feed(decoder.decode(b"", final=True)) + redacting.flush())
            reader_done.set()

    try:
        async with anyio.create_task_group() as tg:
            tg.start_soon(read)
            with anyio.move_on_after(timeout) as scope:
                await _wait_exit(process)
            timed_out = scope.cancelled_caught
            if timed_out:
                _signal_group(process, signal.SIGTERM)
                with anyio.move_on_after(TERM_GRACE):
                    await _wait_exit(process)
            _signal_group(process, signal.SIGKILL)
            with anyio.move_on_after(1.0):
                await reader_done.wait()
            tg.cancel_scope.cancel()
    finally:
        with anyio.CancelScope(shield=True):
            _signal_group(process, signal.SIGKILL)
            with anyio.move_on_after(2.0):
                await _wait_exit(process)
            with anyio.move_on_after(2.0), contextlib.suppress(Exception):
                await process.aclose()
    return process.returncode, timed_out, process.pid


QUIET = {"PAGER": "cat", "GIT_PAGER": "cat", "GIT_TERMINAL_PROMPT": "0"}
"""What every command's environment adds: no pager waits for a key, git asks no password."""


@dataclass(frozen=True, slots=True)
class Confined:
    """A command made ready for the sandbox: the launcher that starts bubblewrap
    (:mod:`.sandboxlaunch`), the scrubbed environment it gives the command, and what the
    checks after it need."""

    argv: list[str]
    env: dict[str, str]
    launch: Launch
    secrets: SecretFiles
    guard: Guard
    hidden: list[Path]
    denied: list[Path]
    values: HiddenValues
    """The values the hidden files hold, redacted from the output (:mod:`.hiddenvalues`)."""
    """Paths a deny rule on reading hid (:func:`denied_note`)."""
    readonly: list[Path] = field(default_factory=list)
    """Paths a rule on writing kept read-only (:func:`readonly_note`)."""
    sockets: list[Path] = field(default_factory=list)
    """Sockets in the workspace the sandbox covered (:func:`hostsockets.blocked_note`)."""
    home_news: str = ""
    """The folders under home hidden whole, said the first time they are these (:mod:`.homewalk`)."""
    copies: Mapping[Path, str] = field(default_factory=dict)  # staged copies shown (.gitstopped)
    values_news: str = ""
    """That the values net's home sources hit their bound, said once while it lasts (:mod:`.hiddenvalues`)."""


async def confine(
    sandbox: Sandbox, argv: Sequence[str], *, network: bool, shown: Sequence[str], direct: bool = False,
    spelled: str = "", script: bytes = b"",
) -> Confined:
    """Wrap ``argv`` in ``sandbox`` (which works here): the workspace searched for
    secret files and what runs later (in a thread), the files the words in ``shown``
    name left visible. The one way both ``run_shell``s (ours, the editor's terminal)
    confine a command, so that they cannot drift apart. The caller starts
    ``argv`` of the result with no environment of its own and closes its ``launch``;
    ``direct`` starts bubblewrap itself, passed ``launch.fds`` (see :mod:`.sandboxlaunch`);
    ``spelled`` is the command when ``argv`` reads it from a descriptor (:mod:`.longcommand`), and
    ``script`` its bytes for the launcher to open (``launch.SCRIPT_FD``), when not ``direct``."""
    found: list[tuple[SecretFiles, Guard]] = []

    async def search() -> None:
        found.append(await anyio.to_thread.run_sync(prepare, sandbox, abandon_on_cancel=True))

    async with anyio.create_task_group() as tg:
        tg.start_soon(search)  # in a thread, while the rest is prepared here
        env = dict(sandbox.environment(), **QUIET)
        walls = sandbox.hidden_paths()
    secrets, guard = found[0]
    visible = secrets.matching(list(shown)) if shown else ()
    hidden = sandbox.hideable(secrets, walls, visible)
    named = set(sandbox.denied_reads())
    denied = [p for p in walls if p in named]
    home = sandbox.home_files.last  # other projects' too: a tracked one reads as staged, values and all
    home_kept, left_out = home_value_sources(home.files if home is not None else ())
    kept = [*hidden, *home_kept]
    values = await anyio.to_thread.run_sync(  # not those the command itself spells (finding P4)
        lambda: hidden_values([*kept, *missing(secrets.paths, visible)], visible, secrets.relative,
                              "\n".join([*argv, spelled]), sandbox.staged.copies(kept), sandbox.roots(),
                              history_sources(sandbox.workspace, seen=secrets.runs_later,
                                              command="\n".join([*argv, spelled]))))
    unmarked = await anyio.to_thread.run_sync(sandbox.mark_hidden, walls, hidden)
    if unmarked:  # git in the sandbox would see tracked files deleted
        raise ShellToolError(unmarked_note(unmarked))
    try:
        wrapped = sandbox.wrap(argv, network=network, secrets=secrets, shown=visible, hidden=walls,
                               walls=guard)
        started = sandboxlaunch.launch(wrapped, argv, env, direct=direct, script=script)
    except BaseException:  # no command, no check after it: the bits are cleared here
        sandbox.unmark()
        raise
    return Confined(started.argv, env, started, secrets, guard, hidden, denied, values,
                    sandbox.readonly_paths(walls), hostsockets.blocked(walls, sandbox.roots()),
                    home_news=sandbox.home_files.news(), copies=sandbox.shown_copies,
                    values_news=_bound_news(sandbox, left_out, values.left))


def _bound_news(sandbox: Sandbox, files_left: int, values_left: int) -> str:
    """The values net's bounds that are hit, each said once while it lasts (finding Q31)."""
    once = sandbox.home_files.said_once
    said = [once("home files", values_bound_note(files_left)),
            once("values", values_bound_note(0, values_left))]
    return "; ".join(n for n in said if n)


def sandbox_notes(
    text: str,
    code: int | None,
    cwd: Path,
    *,
    network: bool,
    timed_out: bool,
    sandboxed: bool,
    confined: Confined | None,
    planted: list[Planted],
    unchecked: str,
    roots: Sequence[Path],
    restarted: str = "",
) -> tuple[list[str], list[str]]:
    """What a command's result adds about the sandbox (the network it lacked, files it
    could not write or saw empty, a socket it could not reach, what was moved out after
    it), and the paths it was kept from writing. ``restarted`` is bubblewrap's error when
    the sandbox was set up a second time (:meth:`.sandboxlaunch.Launch.never_started`)."""
    guard = confined.guard if confined is not None else None
    secrets = confined.secrets if confined is not None else None
    hidden = confined.hidden if confined is not None else []
    refused = _not_written(text, guard, cwd) if sandboxed else []
    notes = _notes(text, sandboxed and not network and code != 0 and not timed_out, sandboxed)
    if sandboxed and guard is not None and not refused and RUNS_LATER_NOTE not in notes:
        notes += sideways_note(text, guard, cwd)
    not_written = [shown for shown, in_git in refused if not in_git]  # what git status lists as changed
    config_said = GIT_CONFIG_NOTE in notes
    in_git = [shown for shown, inside in refused if inside
              and not (config_said and posixpath.basename(shown) in ("config", "config.worktree"))]
    notes = [n for n in notes if n != RUNS_LATER_NOTE or not refused]
    notes += [not_written_note(not_written, code)] if not_written else []
    locks = any(raw.endswith(".lock") for raw in runslater.refused_writes(text))
    notes += [git_dir_note(in_git, code, locks)] if in_git else []
    outside = outside_note(text, guard.outside) if sandboxed and guard is not None and not refused else ""
    if outside:  # a write git needs in a repository outside the workspace (home's names no path)
        notes = [n for n in notes if n != RUNS_LATER_NOTE] + [outside]
    if sandboxed and guard is not None and guard.outside:
        notes += [n for n in [outside_files_note(text, guard.outside, roots, code)] if n]
    if secrets is not None and (hidden or not secrets.complete):
        notes.append(hidden_note(secrets, hidden))
    marked = [p for p in hidden if confined is not None and p not in confined.copies]  # read empty (X11)
    stops = [stopped_note(text, confined.copies, cwd), refused_note(text, marked, cwd)] if confined else []
    notes += [n for n in stops if n]  # git stopped at a secret file the sandbox shows (Y8)
    covered = confined.home_news if confined is not None else ""
    if covered:  # once, the first time these folders are hidden whole (.homewalk)
        notes.append(f"[agent-shell: {covered}: a command reading there sees them empty.]")
    if confined is not None and confined.values_news:
        notes.append(f"[agent-shell: {confined.values_news}.]")
    if confined is not None:
        notes += denied_note(confined.denied, cwd)
        notes += readonly_note(confined.readonly, cwd, text)
        blocked = hostsockets.blocked_note(confined.sockets, text, roots)
        if blocked:  # "Connection refused" was the socket, not the network: network=true would not help
            notes = [n for n in notes if n != network_note(text)]
        notes += blocked
    notes += after_notes(planted, unchecked, roots)
    if restarted:
        said = path_text(restarted[:300])
        notes.append(f"[agent-shell: the sandbox could not be set up at first ({said}): a path it hides had "
                     "just vanished. It was set up again, and the command ran once.]")
    return notes, not_written


def _not_written(output: str, guard: Guard | None, cwd: Path) -> list[tuple[str, bool]]:
    """The paths the output says could not be written that the sandbox did keep
    read-only (its walls around what runs later), as the user reads them (relative to
    the command's folder; a git lock file as the file it locks, ``info/sparse-checkout``
    for ``info/sparse-checkout.lock``), each with whether it lies in a git directory: a
    line the command printed about another path is not believed."""
    if guard is None:
        return []
    out: list[tuple[str, bool]] = []
    for raw in runslater.refused_writes(output):
        try:
            real = paths.real(raw, cwd)
        except paths.BadPath:
            continue
        if any(paths.within(real, wall) for wall in (*guard.readonly, *guard.hook_dirs)):
            locked = real[: -len(".lock")] if real.endswith(".lock") else real
            in_git = any(paths.within(locked, g) for g in guard.gitdirs) or "/.git/" in f"{locked}/"
            shown = paths.relative(locked, cwd) or locked
            if (shown, in_git) not in out:
                out.append((shown, in_git))
    return out


def not_written_note(not_written: Sequence[str], code: int | None) -> str:
    """What the result says when the sandbox kept a command from writing files that run
    later as the user: git goes on after those errors and exits 0 (a checkout switches
    branch and leaves the old files), so neither the model nor the user would know."""
    shown = ", ".join(not_written[:8]) + (f" and {len(not_written) - 8} more" if len(not_written) > 8 else "")
    exited = ", although it exited 0" if code == 0 else f" (it exited {code})"
    return (f"[agent-shell: these files were NOT written{exited}: {shown}. They run later as the user "
            "(git hooks and config, .envrc, .vscode, .devcontainer, .mcp.json, .agent-shell), so the sandbox "
            "keeps them read-only: they still hold what they held before, or are missing, and git will list "
            "them as changed. Tell the user, and if these files should change, ask the user to run this "
            "command themselves.]")


def git_dir_note(in_git: Sequence[str], code: int | None, locks: bool) -> str:
    """What the result says when git could not update its own files (``info/``, a
    config, a hook) in the sandbox: git's lock files (``info/sparse-checkout.lock``) are
    part of any update and are no attack, and a git directory's files are never listed
    by ``git status``, so this says what did not happen and why, not that something was
    planted."""
    shown = ", ".join(in_git[:8]) + (f" and {len(in_git) - 8} more" if len(in_git) > 8 else "")
    why = ["it could not create the .lock file git writes first"] if locks else []
    why += [] if code == 0 else [f"it exited {code}"]
    said = f" ({'; '.join(why)})" if why else ""
    said += ", although it exited 0" if code == 0 else ""
    return (f"[agent-shell: git could not update {shown}{said}. In the sandbox a git directory's "
            "hooks, config and info/ are read-only (a hook or a config key runs commands as the user; info/ "
            "can hide files from git status), so nothing there changed. This is the sandbox, not a fault in "
            "the repository: if the change is wanted (git sparse-checkout, git config), ask the user to run "
            "this command themselves.]")


def _notes(output: str, offline_failure: bool, sandboxed: bool) -> list[str]:
    """What the sandbox explains about a command's failure: the network it lacked,
    git's config it could not write."""
    notes = [network_note(output)] if offline_failure else []
    notes.append(git_config_note(output, sandboxed))
    notes.append(HIDDEN_ADD_NOTE if sandboxed and _SPARSE_REFUSAL in output else "")
    return [n for n in notes if n]


_SPARSE_REFUSAL = "outside of your sparse-checkout definition"
HIDDEN_ADD_NOTE = ("[the files git names there are hidden from this command, and git was told to leave "
                   "them as staged while it runs (skip-worktree, cleared after it; not a sparse checkout): "
                   "they cannot be added or committed from the sandbox. Ask the user to do it.]")


_GIT_CONFIG_LOCKED = ("could not lock config file", "could not write config file", "could not commit config")
_REFUSED = re.compile(r"Device or resource busy|Read-only file system|Permission denied")
_RUNS_LATER_WORD = re.compile("|".join(re.escape(n) for n in runslater.RUNS_LATER)
                              + r"|\bhooks\b|\.pth\b|sitecustomize\.py")


GIT_CONFIG_NOTE = ("[git's config is read-only in the sandbox (what it names can run commands as the user): "
                   "ask the user to run this git command themselves.]")
RUNS_LATER_NOTE = (
    "[in the sandbox, what runs later as the user (git hooks and config, .envrc, .vscode, .devcontainer, "
    ".mcp.json, .agent-shell, .pre-commit-config.yaml, .idea, .npmrc, .cargo and the like) cannot be "
    "changed, moved or removed: ask the user to run this command themselves.]"
)


def sideways_note(output: str, guard: Guard, cwd: Path) -> list[str]:
    """Why a write to what runs as the user later failed, outside a git directory (a
    script a hook links to, a config the repository's includes, a ``core.hooksPath``
    folder, what an ``.envrc`` or mise runs): "Read-only file system" on
    ``scripts/pre-commit`` says nothing of git by itself, and a mise script is not git's
    (finding P12: the note said "what git runs" of one)."""
    refused = [line for line in output.splitlines() if _REFUSED.search(line)]
    found: list[str] = []
    hooks = Reason(HOOKS_PATH_WHY)
    for path, why in [*guard.sideways.items(), *((d, hooks) for d in guard.hook_dirs)]:
        shown = paths.relative(path, cwd) or str(path)
        if any(shown in line or str(path) in line for line in refused):
            found.append(f"{path_text(shown)}, which {why.after_which}")
    if not found:
        return []
    return [f"[not written: {'; '.join(found[:5])}. The sandbox keeps what runs as the user later read-only: "
            "ask the user to make this change themselves.]"]


def git_config_note(output: str, sandboxed: bool) -> str:
    """Why ``git config``, ``git remote add``, or a checkout that would change
    ``.vscode/`` or ``.envrc``, failed in the sandbox."""
    if not sandboxed:
        return ""
    if any(s in output for s in _GIT_CONFIG_LOCKED):
        return GIT_CONFIG_NOTE
    if any(_RUNS_LATER_WORD.search(line) for line in output.splitlines() if _REFUSED.search(line)):
        return RUNS_LATER_NOTE
    return ""


def hidden_note(secrets: SecretFiles, hidden: list[Path]) -> str:
    """What the result says about the secret files the command saw empty. Not that
    they were hidden: git may keep what they held (a stash, a blob once staged) where
    a command reads it, so the note says their values are redacted instead."""
    parts = []
    if hidden:
        shown = SecretFiles(tuple(hidden), roots=secrets.roots).shown()
        many = len(hidden) != 1
        them, they = ("them", "they") if many else ("it", "it")
        parts.append(
            f"[{len(hidden)} file{'s' if many else ''} that usually hold{'' if many else 's'} secrets "
            f"read as empty in this command: {shown}. (One git tracks reads as git has it staged, without "
            f"what was added since, and git sees it unchanged; a checkout that would change one stops, and "
            f"the user can run it.) Git may still keep what {they} held (a stash, an old commit): the values "
            f"found in {them} are redacted from this output instead. A command that names one asks the user "
            f"first.]"
        )
    if not secrets.complete:
        parts.append(f"[the workspace is too big to search for secret files: {secrets.why_incomplete}]")
    return "\n".join(parts)


def denied_note(denied: Sequence[Path], cwd: Path) -> list[str]:
    """What the result says of paths a deny rule on reading hid (``read_file(secrets/**)``):
    to the command they look empty or missing, and a model that took one for missing
    might write it anew over the real file."""
    if not denied:
        return []
    shown = ", ".join(path_text(paths.relative(p, cwd) or str(p)) for p in denied[:5])
    more = f" and {len(denied) - 5} more" if len(denied) > 5 else ""
    many = len(denied) != 1
    them = "them" if many else "it"
    return [f"[{shown}{more} {'are' if many else 'is'} hidden from commands (read as empty or missing; git "
            "leaves what it tracks there as staged, not deleted): a deny rule keeps "
            f"{them} from the model (/permissions).]"]


def unmarked_note(problem: str) -> str:
    """Why a command is not run: what the sandbox hides holds files git tracks that it
    could not mark skip-worktree (:mod:`.gitmarks`). Hidden, they would look deleted to
    git in the sandbox, and ``git add -A`` or ``git commit -a`` would commit that."""
    return (f"The command was not run. The sandbox hides files git tracks, and could not tell git to leave "
            f"them as staged ({path_text(problem)}). Hidden, they would look deleted to git in the sandbox, "
            "and `git add -A` or `git commit -a` would commit that. Try again once the other git is done; "
            "else tell the user.")


def readonly_note(readonly: Sequence[Path], cwd: Path, output: str) -> list[str]:
    """When a write was refused: which paths a rule on writing keeps read-only
    (``deny write_file(secrets/**)``), so the model does not try another way."""
    if not readonly or not _REFUSED.search(output):
        return []
    shown = ", ".join(path_text(paths.relative(p, cwd) or str(p)) for p in readonly[:5])
    more = f" and {len(readonly) - 5} more" if len(readonly) > 5 else ""
    are = "are" if len(readonly) != 1 else "is"
    return [f"[{shown}{more} {are} read-only for commands: a rule on writing keeps the model from changing "
            "it (/permissions). Do not write it another way; tell the user.]"]


async def _wait_exit(process: Process) -> None:
    # No event fires when the child exits without closing its pipes: polling it is.
    while process.returncode is None:  # noqa: ASYNC110
        await anyio.sleep(POLL)


def _signal_group(process: Process, sig: signal.Signals) -> None:
    """Signal the command's whole process group (its pgid is its pid: a new session)."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, sig)
