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
