"""Where a command that writes a file for the user (``/export``, ``/save``) may write.

Why one place: ``/export`` learnt these rules the hard way, and ``/save`` (the line
mode's audio) did not have them: ``/save calc.py`` replaced a source file with a WAV,
``/save ../x.wav`` wrote outside the workspace, and a planted ``voice.wav`` link
sent the bytes to ``~/.bashrc``. The rules: with no path the file goes to
agent-shell's exports folder next to the sessions (not into the workspace, where a
file dropped unasked is easy to commit); a path is resolved as the permission
policy resolves paths (``..`` and symlinks followed) and is the workspace's when
relative; a path that lands outside the workspace writes nothing unless
``--outside`` says so; an existing file is never replaced unless ``--force`` says
so, checked when the file is opened, not only before. A path where something runs later
as the user (a git hook, ``.envrc``, a hook manager's config: :mod:`shell.permissions.laterhit`,
the file tools' own list) is refused even with ``--force`` (finding V14: an export over an
executable ``.git/hooks/post-checkout`` ran every line of the conversation at the next
checkout), and a file written over with ``--force`` is left not executable.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from .registry import CommandResult

if TYPE_CHECKING:
    from shell.runtime import ShellRuntime

FLAGS = ("--force", "-f", "--outside")


@dataclass(frozen=True)
class Target:
    """A file to write: where, whether it may replace one, and how the user named it."""

    path: Path
    force: bool
    name: str  # as typed, flags removed (empty: the exports folder's own name)
    outside: bool

    def again(self, command: str) -> str:
        """The command line that would overwrite this file."""
        return f"{command} {self.name} --force" + (" --outside" if self.outside else "")

    def where(self, command: str, in_workspace: bool) -> str:
        """What the reply adds after the path."""
        if not self.name:
            return f" (agent-shell's exports folder: `{command} PATH` writes elsewhere)"
        return "" if in_workspace else ", outside the workspace"


def exports_folder() -> Path:
    """``<data dir>/exports``, made private when missing."""
    from shell.core.dirs import data_dir

    folder = data_dir() / "exports"
    folder.mkdir(parents=True, exist_ok=True, mode=0o700)
    return folder


def target(
    runtime: ShellRuntime, arg: str, *, command: str, stem: str, suffix: str
) -> Target | CommandResult:
    """The file ``arg`` (``PATH [--force] [--outside]``) names, or why nothing is written.
    Without a PATH: ``<exports>/<stem>-<time><suffix>``, a new name if that one exists."""
    from shell.permissions.paths import BadPath
    from shell.sessions import describe_os_error

    words = arg.split()
    force = any(w in ("--force", "-f") for w in words)
    outside = "--outside" in words
    name = " ".join(w for w in words if w not in FLAGS)
    if name:
        try:
            path = runtime.workspace.resolve(name)
        except BadPath as exc:
            return CommandResult(f"Nothing was written: {exc}.", error=True)
        if not runtime.workspace.contains(path) and not outside:
            return CommandResult(
                f"`{name}` is `{path}`, outside the workspace ({runtime.workspace.root}); nothing was "
                f"written. To write there, add `--outside`: `{command} {name} --outside`.", error=True,
            )
        refused = _runs_later(runtime, path, name, command)
        if refused is not None:
            return refused
    else:
        try:
            folder = exports_folder()
        except OSError as exc:
            return CommandResult(f"Could not create agent-shell's exports folder: {describe_os_error(exc)}. "
                                 f"Give a path: `{command} PATH`.", error=True)
        path = fresh(folder, f"{stem}-{time.strftime('%Y%m%d-%H%M%S')}", suffix)
    if path.is_dir():
        return CommandResult(f"{path} is a directory; give a file name: `{command} {name}/{stem}{suffix}`.",
                             error=True)
    return Target(path, force, name, outside)


def _runs_later(runtime: ShellRuntime, path: Path, name: str, command: str) -> CommandResult | None:
    """Why ``path`` may not be written (something runs it later as the user), or None."""
    from shell.permissions.homedirs import home
    from shell.permissions.homesecrets import startup_files
    from shell.permissions.laterhit import runs_later
    from shell.permissions.laternames import Reason
    from shell.permissions.paths import within

    hit = runs_later(str(path), [str(r) for r in runtime.workspace.roots])
    if hit is None:  # with --outside: a shell's start-up file in your home (~/.bashrc) runs too
        start = next((f for f in startup_files(home()) if within(path, os.path.realpath(f))), None)
        hit = (start, Reason("your shell runs at every start")) if start is not None else None
    if hit is None:
        return None
    part, reason = hit
    where = "a file that" if part == path else f"inside `{part}`, which"
    return CommandResult(
        f"`{name}` is {where} {reason.after_which}. Written there, the conversation "
        f"(the model's replies included) would run as commands; nothing was written, and --force does "
        f"not change that. Give another PATH (`{command} notes.md`), or none for agent-shell's exports "
        f"folder.", error=True,
    )


def fresh(folder: Path, stem: str, suffix: str) -> Path:
    """``folder/stem+suffix``, or ``stem-2`` … when taken (two saves within a second)."""
    path = folder / f"{stem}{suffix}"
    for n in range(2, 100):
        if not path.exists():
            break
        path = folder / f"{stem}-{n}{suffix}"
    return path


def write(target: Target, data: bytes, *, command: str) -> CommandResult | None:
    """Write ``data`` to ``target`` (an existing file only with ``--force``); the error,
    or None when written."""
    from shell.sessions import describe_os_error

    try:  # "x": an existing file is refused at the moment of opening, not only checked before
        with target.path.open("wb" if target.force else "xb") as f:
            f.write(data)
            if target.force:  # a file written over keeps its mode: an export is no program
                os.fchmod(f.fileno(), os.fstat(f.fileno()).st_mode & 0o666)
    except FileExistsError:
        return CommandResult(
            f"{target.path} already exists; nothing was written. Give another name, or "
            f"`{target.again(command)}` to overwrite it.", error=True,
        )
    except OSError as exc:
        return CommandResult(f"Could not write {target.path}: {describe_os_error(exc)}", error=True)
    return None


__all__ = ["FLAGS", "Target", "exports_folder", "fresh", "target", "write"]
