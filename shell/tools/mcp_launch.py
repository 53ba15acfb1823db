"""Where a stdio MCP server starts, and with what environment: the one place that decides.

A server's working directory decides whose code its launcher runs. ``npx -y pkg``
runs the current project's ``node_modules/.bin/…`` before the registry's package,
``python -m mod`` imports ``./mod.py`` (and a ``./mcp.py`` shadows the server's own
imports), ``uv run`` reads the current project. Started in the workspace, the user's
OWN servers ran a cloned repository's code as the user, outside the sandbox, before
any trust question; and a sandboxed command could plant that code for the next start.

So:

- the user's servers (their config, their editor's) start in a private, empty folder
  under agent-shell's data dir (which the sandbox hides from commands: nothing can be
  planted there); they learn the workspace the MCP way, as the client's *roots*
  (:func:`roots_result`);
- a user who needs a server to run in the workspace (or another folder) says so with
  ``cwd = "workspace"`` (:data:`WORKSPACE_CWD`), and the trust question and ``/mcp`` say
  that it does; such a server gets ``PYTHONSAFEPATH=1`` (no ``-m`` module taken from
  where it starts; its ``env`` may say otherwise). Not the others: it would break a
  ``python3 ~/mcp/server.py`` that imports its neighbours, and guards nothing in an
  empty private folder;
- such a server's package launcher still prefers the start folder's ``node_modules``
  (finding A15): ``npx``/``npm exec`` are given ``--prefix`` the private folder
  (:func:`start_args`: npm then looks for installed packages, and a project ``.npmrc``,
  there, while the server still runs in the workspace); ``bunx`` (``bun x``, ``bun run``)
  has no such switch, so it is refused while the start folder holds ``node_modules/PKG``
  or ``node_modules/.bin/PKG`` (:func:`launch_problem`), trusted or not: a sandboxed
  command can plant one in a trusted workspace too; so is an ``npx`` inside a shell
  string. The launcher is found behind ``env``, a shell's ``-c`` and npm's own options
  (:mod:`.package_launchers`, finding C8). ``pnpm dlx`` and ``yarn dlx`` always fetch;
  ``uvx`` reads no project config (uv's tool commands read only the user's and the system's
  ``uv.toml``), so it needs no switch; ``uv run`` reads and runs the project, by design (given
  ``UV_NO_CONFIG`` it would lose the user's own ``uv.toml`` too);
- a trusted project's ``.mcp.json`` servers are the project's own code and keep the
  workspace (or the ``cwd`` the file gives) as their working directory.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from shell.core.dirs import data_dir

from .mcp_config import McpServerSpec
from .package_launchers import BUNX, NPX, launches

PRIVATE_DIR = "mcp-server-cwd"
"""The folder (in the data dir) the user's own servers start in."""
SAFE_PATH = {"PYTHONSAFEPATH": "1"}


def private_cwd() -> Path:
    """The private, empty folder the user's own servers start in (made 0700 if missing).

    Raises ``OSError`` (the server then fails, saying why) rather than falling back to
    the workspace."""
    folder = data_dir(create=True) / PRIVATE_DIR
    folder.mkdir(mode=0o700, exist_ok=True)
    return folder


def start_cwd(spec: McpServerSpec) -> str:
    """The working directory ``spec``'s process starts in (see the module docstring)."""
    return spec.cwd if spec.cwd else str(private_cwd())


def start_env(spec: McpServerSpec) -> dict[str, str]:
    """The variables ``spec`` adds to the inherited few: the user's servers told to
    start in a folder of their own choosing get ``PYTHONSAFEPATH=1`` unless their
    ``env`` says otherwise."""
    return SAFE_PATH | dict(spec.env) if spec.cwd and not spec.project else dict(spec.env)


def _chose_folder(spec: McpServerSpec) -> bool:
    """One of the user's own stdio servers told to start in a folder (not the private one)."""
    return bool(spec.cwd) and not spec.project and spec.transport == "stdio"


def start_args(spec: McpServerSpec) -> list[str]:
    """``spec``'s arguments as started: ``npx``/``npm exec`` of a server started in a
    folder of the user's choosing look for installed packages in the private folder
    (``--prefix``, right after the launcher's word: npm reads its options anywhere), not
    in that folder's ``node_modules``; also behind ``env`` or npm's own options
    (:func:`.package_launchers.launches`, finding C8)."""
    args = list(spec.args)
    if not _chose_folder(spec):
        return args
    for launch in launches(spec.command, args):
        if launch.kind == NPX and launch.at >= 0:
            return [*args[:launch.at], "--prefix", str(private_cwd()), *args[launch.at:]]
    return args


def launch_problem(spec: McpServerSpec) -> str:
    """Why ``spec`` is not started (""): ``bunx PKG`` (or ``bun x|run PKG``, or an
    ``npx PKG`` inside a shell string, which cannot be given ``--prefix``) in a folder
    holding its own ``node_modules/PKG`` would run that package, as the user, outside
    the sandbox."""
    if not _chose_folder(spec) or not spec.cwd:
        return ""
    for launch in launches(spec.command, list(spec.args)):
        if launch.kind == NPX and launch.at >= 0:
            continue
        planted = _planted(Path(spec.cwd), _package_word(list(launch.args)))
        if planted is None:
            continue
        if launch.kind == BUNX:
            return (f"not started: {spec.command} would run {planted} (the start folder's own package, "
                    "as you, outside the sandbox) instead of fetching it; bunx has no switch against that. "
                    "Use npx, or drop cwd, or name that file as the command if it is yours")
        return (f"not started: {spec.command} would run {planted} (the start folder's own package, "
                "as you, outside the sandbox) instead of fetching it: npx inside a shell string cannot be "
                "given --prefix. Name npx as the command, or drop cwd, or name that file if it is yours")
    return ""


def _planted(folder: Path, package: str) -> Path | None:
    """The start folder's own copy of ``package`` a launcher would run, if there is one."""
    if not package:
        return None
    bare = package[: package.index("@", 1)] if "@" in package[1:] else package  # pkg@1.2, @scope/pkg@1
    modules = folder / "node_modules"
    for planted in (modules / bare, modules / ".bin" / bare.rsplit("/", 1)[-1]):
        if os.path.lexists(planted):
            return planted
    return None


def _package_word(args: list[str]) -> str:
    """The package a ``bunx`` line runs: ``-p``/``--package``'s value, or its first word."""
    at = 0
    while at < len(args):
        word = args[at]
        if word in ("-p", "--package") and at + 1 < len(args):
            return args[at + 1]
        if word.startswith("--package="):
            return word.split("=", 1)[1]
        if not word.startswith("-"):
            return word
        at += 1
    return ""


def roots_callback(roots: Callable[[], Sequence[Path]]) -> Any:
    """The SDK's ``list_roots_callback``: the workspace and the directories added to it,
    as ``file://`` roots, asked afresh each time a server lists them."""

    async def list_roots(_context: Any) -> Any:
        return roots_result(roots())

    return list_roots


def roots_result(directories: Sequence[Path]) -> Any:
    """A ``roots/list`` answer naming ``directories``."""
    from mcp import types

    return types.ListRootsResult(
        roots=[types.Root(uri=Path(d).as_uri(), name=Path(d).name or str(d)) for d in directories]  # type: ignore[arg-type]
    )


def runs_in_workspace(spec: McpServerSpec, workspace: str | os.PathLike[str] | None) -> bool:
    """Whether one of the user's own servers was told to start in ``workspace``."""
    return (not spec.project and spec.transport == "stdio" and bool(spec.cwd) and workspace is not None
            and os.path.realpath(str(spec.cwd)) == os.path.realpath(workspace))
