"""Which MCP servers to start: the user's config and the workspace's ``.mcp.json``.

Both use the shape Claude Code uses for ``mcpServers`` entries:
``{"command": ..., "args": [...], "env": {...}}`` for a stdio server, and
``{"url": ...}`` (optionally ``"type": "http"`` or ``"sse"``, ``"headers"``) for a
remote one. ``${VAR}`` and ``${VAR:-default}`` are expanded from the environment.

A broken entry does not stop the others: it becomes a spec with ``error`` set, which
the manager reports as a failed server, so the user sees what to fix.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

PROJECT_FILE = ".mcp.json"

Transport = Literal["stdio", "http", "sse"]


@dataclass(frozen=True, slots=True)
class McpServerSpec:
    """One server to connect to; ``error`` explains why it cannot be started."""

    name: str
    transport: Transport = "stdio"
    command: str = ""
    args: tuple[str, ...] = ()
    env: Mapping[str, str] = field(default_factory=dict)
    url: str = ""
    headers: Mapping[str, str] = field(default_factory=dict)
    cwd: str | None = None
    origin: str = "config"
    """Where it was declared: ``config`` or the path of a ``.mcp.json``."""
    error: str | None = None


_ALIASES = {"streamable-http": "http", "streamable_http": "http", "streamableHttp": "http"}


class _MissingVariable(ValueError):
    pass


_VAR = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}")


def expand_vars(value: str, environ: Mapping[str, str]) -> str:
    """Replace ``${VAR}`` / ``${VAR:-default}``; a missing variable without default is an error."""

    def sub(m: re.Match[str]) -> str:
        name, default = m.group(1), m.group(2)
        if name in environ:
            return environ[name]
        if default is not None:
            return default
        raise _MissingVariable(f"environment variable {name} is not set")

    return _VAR.sub(sub, value)


def parse_server(
    name: str,
    entry: Any,
    *,
    origin: str = "config",
    cwd: str | None = None,
    environ: Mapping[str, str] | None = None,
) -> McpServerSpec:
    """One ``mcpServers`` entry as a spec (with ``error`` set when it is unusable)."""
    env_source = os.environ if environ is None else environ
    if not isinstance(entry, Mapping):
        return McpServerSpec(name, origin=origin, error="its entry must be an object with command or url")
    if not any(k in entry for k in ("command", "url", "type", "transport")):
        error = 'give a "command" (stdio server) or a "url" (remote server)'
        return McpServerSpec(name, origin=origin, error=error)
    try:
        kind = str(entry.get("type") or entry.get("transport") or ("stdio" if "command" in entry else "http"))
        kind = {"streamable-http": "http", "streamable_http": "http", "streamableHttp": "http"}.get(
            kind, kind
        )
        if kind == "stdio":
            command = entry.get("command")
            if not isinstance(command, str) or not command:
                raise ValueError("a stdio server needs a command")
            args = entry.get("args") or []
            env = entry.get("env") or {}
            if not isinstance(args, list) or not isinstance(env, Mapping):
                raise ValueError("args must be a list and env an object")
            return McpServerSpec(
                name,
                "stdio",
                command=expand_vars(command, env_source),
                args=tuple(expand_vars(str(a), env_source) for a in args),
                env={str(k): expand_vars(str(v), env_source) for k, v in env.items()},
                cwd=entry.get("cwd") or cwd,
                origin=origin,
            )
        if kind in ("http", "sse"):
            url = entry.get("url")
            if not isinstance(url, str) or not url.startswith(("http://", "https://")):
                raise ValueError("a remote server needs an http(s) url")
            headers = entry.get("headers") or {}
            if not isinstance(headers, Mapping):
                raise ValueError("headers must be an object")
            return McpServerSpec(
                name,
                "sse" if kind == "sse" else "http",
                url=expand_vars(url, env_source),
                headers={str(k): expand_vars(str(v), env_source) for k, v in headers.items()},
                origin=origin,
            )
        raise ValueError(f"unknown transport type {kind!r} (use stdio, http or sse)")
    except ValueError as exc:
        return McpServerSpec(name, origin=origin, error=str(exc))


def parse_servers(
    servers: Mapping[str, Any] | None, *, origin: str = "config", cwd: str | None = None
) -> list[McpServerSpec]:
    """A name → entry mapping (``[mcp.servers]`` in config, ``mcpServers`` in .mcp.json)."""
    return [parse_server(str(name), entry, origin=origin, cwd=cwd) for name, entry in (servers or {}).items()]


def load_project_servers(root: Path) -> list[McpServerSpec]:
    """The servers of ``root/.mcp.json``; a broken file becomes one failed spec."""
    path = root / PROJECT_FILE
    if not path.is_file():
        return []
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        return [McpServerSpec(PROJECT_FILE, origin=str(path), error=f"cannot read {path}: {exc}")]
    servers = data.get("mcpServers") if isinstance(data, dict) else None
    if not isinstance(servers, dict):
        return [McpServerSpec(PROJECT_FILE, origin=str(path), error=f'{path} has no "mcpServers" object')]
    return parse_servers(servers, origin=str(path), cwd=str(root))


def merge_specs(*groups: list[McpServerSpec]) -> list[McpServerSpec]:
    """Later groups override earlier ones by name (a project's .mcp.json over user config)."""
    merged: dict[str, McpServerSpec] = {}
    for group in groups:
        for spec in group:
            merged[spec.name] = spec
    return list(merged.values())
