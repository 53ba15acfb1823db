"""Which MCP servers to start: the user's config and the workspace's ``.mcp.json``.

Both use the shape Claude Code uses for ``mcpServers`` entries:
``{"command": ..., "args": [...], "env": {...}}`` for a stdio server, and
``{"url": ...}`` (optionally ``"type": "http"`` or ``"sse"``, ``"headers"``) for a
remote one. ``${VAR}`` and ``${VAR:-default}`` are expanded from the environment,
in the user's own config and in a project's ``.mcp.json`` once the user trusted the
workspace (:mod:`shell.permissions.trust`), never before: an untrusted file could
otherwise send ``${OPENAI_API_KEY}`` to a server of the repository's choosing.
Nothing here decides trust; the runtime hands over the bytes the user trusted.

A broken entry does not stop the others: it becomes a spec with ``error`` set, which
the manager reports as a failed server, so the user sees what to fix.
"""

from __future__ import annotations

import json
import os
import re
import shlex
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from shell.core.filedata import json_loads
from shell.core.textsafety import sanitize_line

from .mcp_deadline import CALL_TIMEOUT

PROJECT_FILE = ".mcp.json"
WORKSPACE_CWD = "workspace"
"""``cwd = "workspace"``: the user's own server starts in the workspace (see :mod:`.mcp_launch`)."""

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
    """Where its process starts; None: a private, empty folder (:mod:`.mcp_launch`)."""
    origin: str = "config"
    """Where it was declared: ``config``, ``editor`` or the path of a ``.mcp.json``."""
    project: bool = False
    """It is a trusted workspace's own (``.mcp.json``): its code, run in the workspace."""
    error: str | None = None
    timeout: float = CALL_TIMEOUT
    """Seconds a tool call may go without an answer or progress (:mod:`.mcp_deadline`)."""


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
    expand: bool = True,
    workspace: str | None = None,
) -> McpServerSpec:
    """One ``mcpServers`` entry as a spec (with ``error`` set when it is unusable).

    ``cwd``: a project's root, where its servers start (and its relative ``cwd``s
    are read from); None for the user's own servers, which start in a private
    folder unless their entry says ``cwd = "workspace"`` (``workspace``) or gives an
    absolute path. With ``expand=False`` a ``${VAR}`` stays as written."""
    env_source = os.environ if environ is None else environ

    def value(text: Any) -> str:
        return expand_vars(str(text), env_source) if expand else str(text)

    if not isinstance(entry, Mapping):
        return McpServerSpec(name, origin=origin, error="its entry must be an object with command or url")
    if not any(k in entry for k in ("command", "url", "type", "transport")):
        error = 'give a "command" (stdio server) or a "url" (remote server)'
        return McpServerSpec(name, origin=origin, error=error)
    try:
        timeout = _timeout(entry.get("timeout", CALL_TIMEOUT))
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
                command=value(command),
                args=tuple(value(a) for a in args),
                env={str(k): value(v) for k, v in env.items()},
                cwd=_start_dir(entry.get("cwd"), cwd, workspace),
                origin=origin,
                project=cwd is not None,
                timeout=timeout,
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
                url=value(url),
                headers={str(k): value(v) for k, v in headers.items()},
                origin=origin,
                timeout=timeout,
            )
        raise ValueError(f"unknown transport type {kind!r} (use stdio, http or sse)")
    except ValueError as exc:
        return McpServerSpec(name, origin=origin, error=str(exc))


def _start_dir(given: Any, root: str | None, workspace: str | None) -> str | None:
    """Where a stdio server starts: see :func:`parse_server`; a ``ValueError`` says
    what is wrong with the entry's ``cwd``."""
    if given is None or given == "":
        return root
    if not isinstance(given, str):
        raise ValueError('cwd must be a string: an absolute path, or "workspace"')
    if given == WORKSPACE_CWD:
        where = root or workspace
        if where is None:
            raise ValueError('cwd = "workspace" but there is no workspace here')
        return where
    path = os.path.expanduser(given)
    if root is not None:
        return os.path.join(root, path)
    if not os.path.isabs(path):
        raise ValueError(f'cwd must be an absolute path or "workspace", not {given[:80]!r} (a relative one '
                         "would depend on where agent-shell was started)")
    return path


def _timeout(raw: Any) -> float:
    if isinstance(raw, bool) or not isinstance(raw, (int, float)) or not 0 < raw <= 86_400:
        raise ValueError(f"timeout must be a number of seconds between 0 and 86400, not {str(raw)[:40]!r}")
    return float(raw)


def parse_servers(
    servers: Mapping[str, Any] | None, *, origin: str = "config", workspace: str | None = None
) -> list[McpServerSpec]:
    """The user's own servers (``[mcp_servers.*]`` in config), a name → entry mapping;
    ``workspace``: where ``cwd = "workspace"`` starts one."""
    return [parse_server(str(name), entry, origin=origin, workspace=workspace)
            for name, entry in (servers or {}).items()]


def load_project_servers(root: Path, *, expand: bool = False) -> list[McpServerSpec]:
    """The servers of ``root/.mcp.json``; a broken file becomes one failed spec.

    ``expand`` only for a file the user trusted (see the module docstring)."""
    path = root / PROJECT_FILE
    if not path.is_file():
        return []
    try:
        data = path.read_bytes()
    except OSError as exc:
        return [McpServerSpec(PROJECT_FILE, origin=str(path), error=f"cannot read {path}: {exc}")]
    return parse_project_servers(data, root, expand=expand)


def parse_project_servers(data: bytes, root: Path, *, expand: bool = False) -> list[McpServerSpec]:
    """The servers of a ``.mcp.json`` whose bytes were read (and trusted) already."""
    path = root / PROJECT_FILE
    servers, error = _project_entries(data, path)
    if error:
        return [McpServerSpec(PROJECT_FILE, origin=str(path), error=error)]
    return [
        parse_server(str(name), entry, origin=str(path), cwd=str(root), expand=expand)
        for name, entry in servers.items()
    ]


def _project_entries(data: bytes, path: Path) -> tuple[dict[str, Any], str]:
    try:
        parsed = json_loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as exc:
        return {}, f"cannot read {path}: {exc}"
    servers = parsed.get("mcpServers") if isinstance(parsed, dict) else None
    if not isinstance(servers, dict):
        return {}, f'{path} has no "mcpServers" object'
    return servers, ""


def describe_project_servers(data: bytes, root: Path) -> list[str]:
    """What trusting this ``.mcp.json`` would start, one line per server, as written.

    Every command line (with its arguments, working directory and environment) and
    every URL (with its headers) in full; the ``${VAR}`` references are listed by
    name, because trusting the file hands those variables' values to the server."""
    servers, error = _project_entries(data, root / PROJECT_FILE)
    if error:
        return [f"{PROJECT_FILE}: {error} (nothing would start)"]
    lines = []
    for name, entry in servers.items():
        spec = parse_server(str(name), entry, cwd=str(root), expand=False)
        if spec.error:
            lines.append(f"server {name!r}: unusable ({spec.error})")
            continue
        if spec.transport == "stdio":
            line = f"server {name!r} runs: {shlex.join([spec.command, *spec.args])}"
            if spec.cwd and spec.cwd != str(root):
                line += f" (in {spec.cwd})"
            if spec.env:
                line += " with environment " + " ".join(f"{k}={v}" for k, v in spec.env.items())
        else:
            line = f"server {name!r} connects to ({spec.transport}): {spec.url}"
            if spec.headers:
                line += " with headers " + " ".join(f"{k}: {v}" for k, v in spec.headers.items())
        variables = dict.fromkeys(m.group(1) for m in _VAR.finditer(json.dumps(entry)))
        if variables:
            line += f" [it would be given your environment variables: {', '.join(variables)}]"
        lines.append(line)
    return [sanitize_line(line) for line in lines] or [f"{PROJECT_FILE}: no servers"]



def merge_specs(*groups: list[McpServerSpec]) -> list[McpServerSpec]:
    """Later groups override earlier ones by name (a project's .mcp.json over user config)."""
    merged: dict[str, McpServerSpec] = {}
    for group in groups:
        for spec in group:
            merged[spec.name] = spec
    return list(merged.values())
