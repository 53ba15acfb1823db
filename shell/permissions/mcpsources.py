"""The workspace files a workspace's ``.mcp.json`` servers run: as much "runs later"
as ``.mcp.json`` itself.

A project's own MCP server is usually a file of the repository: ``python3
tools/server.py``, ``node ./mcp/server.js``, ``.venv/bin/python -m srv``. Trusting the
workspace trusted ``.mcp.json``, and the sandbox keeps that file read-only; but the
program it names was an ordinary file, which a sandboxed command (``auto``, unasked)
could change and agent-shell would then run at the next start, as the user, outside
the sandbox, with no new question (finding K10).

:func:`named_files` reads, from the bytes of one ``.mcp.json``, which paths its stdio
servers' command lines name inside the workspace: the command when it is a path (an
interpreter inside the workspace, ``./server.sh``), and each argument (or the value
of a ``--flag=value``) that is an existing file there, or that looks like a script
(``tools/server.py``, ``dist/index.js``) even before it exists. Those files are

- part of what trust fingerprints (:mod:`.trust`): a change asks again, naming them;
- runs-later files: the file tools ask before an edit (:mod:`.laterhit`), the sandbox
  binds them read-only and quarantines one a command creates (:mod:`.runslater`).

Not followed: what such a script imports, and a whole project a launcher runs
(``uv run --directory . server``, ``npx`` of the workspace's package); ``.mcp.json``
stays the guarded file for those. ``${VAR}`` words are skipped (not known before the
start), so are folders.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from . import paths

MCP_FILE = ".mcp.json"
MAX_BYTES = 1024 * 1024
"""Of one ``.mcp.json`` read to find what it runs (a longer one: nothing found)."""
MAX_NAMED = 64
"""Files named by one ``.mcp.json`` that are followed."""
SCRIPT_SUFFIXES = (".py", ".js", ".mjs", ".cjs", ".ts", ".mts", ".sh", ".rb", ".pl", ".php", ".jar", ".exe")
"""An argument ending so names a script even before it exists (a build makes ``dist/index.js``)."""


def why(server: str) -> str:
    """The reason shown for a file the server ``server`` of ``.mcp.json`` runs."""
    shown = server if len(server) <= 60 else server[:60] + "…"
    return (f"the MCP server {shown!r} of .mcp.json runs it as you, outside the sandbox, each time "
            "agent-shell starts in this trusted workspace")


def named_files(root: Path, data: bytes) -> dict[Path, str]:
    """Path (inside ``root``, a real path; not resolved through a last symlink) → why,
    for what the stdio servers of ``root``'s ``.mcp.json`` (its bytes ``data``) run."""
    if len(data) > MAX_BYTES:
        return {}
    try:
        parsed = json.loads(data.decode("utf-8", "replace"))
    except (ValueError, RecursionError):
        return {}
    servers = parsed.get("mcpServers") if isinstance(parsed, dict) else None
    found: dict[Path, str] = {}
    for name, entry in (servers.items() if isinstance(servers, dict) else ()):
        if not isinstance(entry, Mapping) or not isinstance(entry.get("command"), str):
            continue
        for path in _named(root, entry):
            if len(found) >= MAX_NAMED:
                return found
            found.setdefault(path, why(str(name)))
    return found


def _named(root: Path, entry: Mapping[str, Any]) -> list[Path]:
    cwd = entry.get("cwd")
    base = os.path.normpath(os.path.join(root, cwd)) if isinstance(cwd, str) and cwd else str(root)
    command = str(entry["command"])
    args = entry.get("args")
    words = [str(a) for a in args] if isinstance(args, list) else []
    out: list[Path] = []
    if "/" in command:
        out += _candidate(root, base, command, must_exist=False)
    for word in words:
        value = word.split("=", 1)[1] if word.startswith("-") and "=" in word else word
        out += _candidate(root, base, value, must_exist=not value.endswith(SCRIPT_SUFFIXES))
    return out


def _candidate(root: Path, base: str, word: str, *, must_exist: bool) -> list[Path]:
    """``word`` as a file inside ``root`` (and where it leads, if that is inside too)."""
    if not word or "${" in word or word.startswith(("-", "~")) or "\0" in word or len(word) > 4096:
        return []
    lexical = Path(os.path.normpath(os.path.join(base, word)))
    if not paths.within(lexical, root):
        return []
    try:
        path = Path(os.path.realpath(lexical.parent)) / lexical.name  # the folders real, the name as is
    except (OSError, ValueError):
        return []
    if not paths.within(path, root) or os.path.isdir(path):
        return []
    if must_exist and not os.path.lexists(path):
        return []
    out = [path]
    if os.path.islink(path):
        target = Path(os.path.realpath(path))
        if paths.within(target, root) and not os.path.isdir(target):
            out.append(target)
    return out


def mcp_runs(roots: Sequence[Path]) -> dict[Path, str]:
    """What the ``.mcp.json`` right in each root runs (see :func:`named_files`)."""
    found: dict[Path, str] = {}
    for root in roots:
        try:
            with open(root / MCP_FILE, "rb") as fh:
                data = fh.read(MAX_BYTES + 1)
        except OSError:
            continue
        for path, reason in named_files(root, data).items():
            found.setdefault(path, reason)
    return found


__all__ = ["MCP_FILE", "mcp_runs", "named_files", "why"]
