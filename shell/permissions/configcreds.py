"""Config files whose values are credentials, as the read tools show them: the one
place ``read_file``, ``grep`` and an edit's diff ask.

Two kinds: a git config (a token in a remote URL, ``http.extraHeader``, ``smtpPass``:
:mod:`.gitcreds`), and an MCP servers' file (``.mcp.json``, an editor's ``mcp.json``),
whose ``env`` and ``headers`` carry the servers' keys (finding Q4: ``read_file
.mcp.json`` printed a ``SERVICE_TOKEN``, a database URL's password and an
``Authorization`` header to the model). In the second, the values the secrets policy
calls secret (:mod:`shell.core.mcpsecrets`) are redacted wherever they appear in the
file; the rest (commands, URLs, names) reads as it is, so the model still sees what
the servers are.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from shell.core.filedata import json_loads
from shell.core.mcpsecrets import mcp_secret_values
from shell.core.secrets import Secrets

from .gitcreds import is_git_config, scrub, scrub_note

MAX_MCP_FILE = 1 << 20
"""An MCP file larger than this is not parsed for its keys (nothing of it is redacted:
no server config is that large, and the policy's shapes still apply elsewhere)."""
MCP_FOLDERS = (".vscode", ".cursor", ".roo", ".kiro", ".amazonq", ".gemini")
"""Folders where another tool's ``mcp.json`` lives (same ``env``/``headers`` shape)."""


@dataclass(frozen=True, slots=True)
class Scrubber:
    """How a credential-bearing config reads: ``clean`` takes its credentials out of
    any text of it (a line or the whole), ``note`` says what was taken out."""

    clean: Callable[[str], str]
    note: Callable[[int], str]


_GIT = Scrubber(scrub, scrub_note)


def is_mcp_config(path: str | os.PathLike[str]) -> bool:
    """Whether ``path`` is a file of MCP servers: ``.mcp.json`` anywhere, ``mcp.json``
    in an editor's or agent's folder (``.vscode/mcp.json``, ``.cursor/mcp.json``)."""
    p = Path(os.fspath(path))
    name = p.name.lower()
    return name == ".mcp.json" or (name == "mcp.json" and p.parent.name.lower() in MCP_FOLDERS)


def mcp_file_values(path: str | os.PathLike[str]) -> set[str]:
    """The secret values a file of MCP servers holds (none when it cannot be read)."""
    try:
        if os.path.getsize(path) > MAX_MCP_FILE:
            return set()
        with open(path, "rb") as fh:
            return mcp_text_values(fh.read(MAX_MCP_FILE))
    except OSError:
        return set()


def mcp_text_values(text: str | bytes) -> set[str]:
    """The secret values of an MCP servers' file's text (none when it is no such JSON)."""
    try:
        data: Any = json_loads(text)
    except ValueError:
        return set()
    if not isinstance(data, dict):
        return set()
    servers = data.get("mcpServers", data.get("servers"))
    return mcp_secret_values(servers.values()) if isinstance(servers, dict) else set()


def _mcp_note(changed: int) -> str:
    lines = "1 line" if changed == 1 else f"{changed} lines"
    return (f"[the MCP servers' keys in this file ({lines}: env, headers, URL passwords) are shown as "
            "[REDACTED]; the servers still get them]")


def scrubber(path: str | os.PathLike[str], texts: tuple[str, ...] = ()) -> Scrubber | None:
    """How the file at ``path`` reads to the model when it holds credentials, or None;
    ``texts``: other versions of it (an edit's before and after), whose keys count too."""
    if is_git_config(path):
        return _GIT
    if is_mcp_config(path):
        values = mcp_file_values(path).union(*map(mcp_text_values, texts))
        if values:
            secrets = Secrets(values, patterns=False)
            return Scrubber(secrets.text, _mcp_note)
    return None


__all__ = ["Scrubber", "is_mcp_config", "mcp_file_values", "mcp_text_values", "scrubber"]
