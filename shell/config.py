"""Settings: ``config.toml`` in platformdirs' user config dir, plus the environment.

The file lives at ``<user config dir>/agent-shell/config.toml`` (e.g.
``~/.config/agent-shell/config.toml`` on Linux); ``AGENT_SHELL_CONFIG_DIR``
points elsewhere (tests, portable installs). Every key is optional::

    model = "anthropic:claude-sonnet-4-5"   # default model (--model overrides)
    theme = "textual-dark"

    [providers.openai]                 # also: anthropic, ollama, or any name of yours
    base_url = "http://127.0.0.1:8000/v1"
    api_key_env = "VLLM_KEY"           # where the key is read from (never the key itself)
    headers = { "X-Team" = "infra" }
    connect_timeout = 10
    read_timeout = 120
    idle_timeout = 120                 # a stream of keep-alives only ends after this
    max_retries = 3
    model = "gpt-4o-mini"              # the model used when only the provider is chosen
                                       # (unset with a base_url: the server's first model)
    options = { max_tokens = 2048, tool_choice = "auto" }   # sent with every request

    [providers.llama]                  # llama.cpp / llama-cpp-python (see README "Local models")
    type = "openai"
    base_url = "http://127.0.0.1:8080/v1"

    [providers.openrouter]             # a provider of your own: openrouter:NAME
    type = "openai"                    # which protocol: openai, anthropic or ollama
    base_url = "https://openrouter.ai/api/v1"
    api_key_env = "OPENROUTER_API_KEY"

    [middleware]
    enabled = ["HumanInTheLoop", "Timing"]
    [middleware.Summarization]
    max_tokens_before_summary = 40000

    [mcp_servers.time]
    command = "mcp-server-time"
    args = []

    [models."openai:my-proxy-model"]   # or just the model's name; see shell/providers/models.json
    context_window = 128000            # tokens (what the context meter measures against)
    input_price = 2.5                  # US dollars per million tokens; also output_price,
    output_price = 10.0                # cache_read_price, cache_write_price; vision = true

    [permissions]                      # see README "Permissions"
    mode = "default"                   # default, plan, accept-edits, auto, bypass
    allow = ["run_shell(git status:*)", "read_file(src/**)"]
    ask = ["fetch_url"]
    deny = ["run_shell(rm -rf*)", "read_file(**/.env)"]

A broken file raises :class:`ConfigError` naming the file and the line. Secrets
stay out of the file by design (``api_key_env`` names a variable); ``describe``
masks anything that looks like one anyway.
"""

from __future__ import annotations

import os
import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from shell.core.filedata import toml_loads

from .core.dirs import APP_NAME, CONFIG_DIR_ENV, config_dir

__all__ = [
    "APP_NAME", "CONFIG_DIR_ENV", "ConfigError", "Settings", "config_dir", "config_path", "load_config",
]


class ConfigError(Exception):
    """A bad config file or a bad model spec; the message is one line for the user."""


@dataclass(slots=True)
class ProviderSettings:
    type: str | None = None
    base_url: str | None = None
    api_key_env: str | None = None
    api_key: str | None = None
    """Discouraged (prefer ``api_key_env``) but honoured; always masked by ``describe``."""
    headers: dict[str, str] = field(default_factory=dict)
    connect_timeout: float | None = None
    read_timeout: float | None = None
    idle_timeout: float | None = None
    """Seconds a stream may send only keep-alives (default: ``read_timeout``)."""
    max_retries: int | None = None
    model: str | None = None
    options: dict[str, Any] = field(default_factory=dict)


@dataclass(slots=True)
class MiddlewareSettings:
    enabled: list[str] | None = None
    """``None``: the shell's defaults; a list: exactly these, in this order."""
    options: dict[str, dict[str, Any]] = field(default_factory=dict)


@dataclass(slots=True)
class MCPServerSettings:
    command: str | None = None
    args: list[str] = field(default_factory=list)
    env: dict[str, str] = field(default_factory=dict)
    url: str | None = None
    headers: dict[str, str] = field(default_factory=dict)
    enabled: bool = True
    type: str | None = None
    """``stdio``, ``http`` or ``sse`` (Claude Code's ``mcpServers`` shape); inferred when unset."""
    cwd: str | None = None


@dataclass(slots=True)
class PermissionSettings:
    """``[permissions]``: the starting mode and the user's rules (rule strings are
    checked by ``shell.permissions``, which reports a bad one as a problem)."""

    mode: str | None = None
    allow: list[str] = field(default_factory=list)
    ask: list[str] = field(default_factory=list)
    deny: list[str] = field(default_factory=list)


@dataclass(slots=True)
class Settings:
    path: Path = field(default_factory=lambda: config_path())
    exists: bool = False
    model: str | None = None
    theme: str | None = None
    providers: dict[str, ProviderSettings] = field(default_factory=dict)
    middleware: MiddlewareSettings = field(default_factory=MiddlewareSettings)
    mcp_servers: dict[str, MCPServerSettings] = field(default_factory=dict)
    permissions: PermissionSettings = field(default_factory=PermissionSettings)
    extra: dict[str, Any] = field(default_factory=dict)
    """Top-level keys this version does not know (kept, and shown by ``describe``)."""
    raw: dict[str, Any] = field(default_factory=dict)
    """The parsed file as is (e.g. ``raw.get("mcp_servers")`` for ``shell.tools.mcp_config``)."""

    def provider(self, name: str) -> ProviderSettings:
        return self.providers.get(name) or ProviderSettings()


def config_path() -> Path:
    return config_dir() / "config.toml"


def load_config(path: str | Path | None = None) -> Settings:
    """Read the config file; a missing file gives the defaults."""
    file = Path(path) if path is not None else config_path()
    try:
        text = file.read_text(encoding="utf-8")
    except FileNotFoundError:
        return Settings(path=file)
    except OSError as exc:
        raise ConfigError(f"Cannot read the config file {file}: {exc.strerror or exc}") from None
    try:
        data = toml_loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"The config file {file} is not valid TOML: {exc}") from None
    return settings_from_dict(data, file)


def settings_from_dict(data: dict[str, Any], path: Path | None = None) -> Settings:
    file = path or config_path()
    where = str(file)

    def want(value: Any, kind: type | tuple[type, ...], key: str) -> Any:
        if value is None or (isinstance(value, kind) and not (kind is not bool and isinstance(value, bool))):
            return value
        names = " or ".join(k.__name__ for k in (kind if isinstance(kind, tuple) else (kind,)))
        raise ConfigError(f"In the config file {where}: {key} must be a {names}, not {value!r}")

    s = Settings(path=file, exists=True, raw=data)
    s.model = want(data.get("model"), str, "model")
    s.theme = want(data.get("theme"), str, "theme")
    for name, table in (want(data.get("providers"), dict, "providers") or {}).items():
        key = f"providers.{name}"
        t = want(table, dict, key)
        s.providers[name] = ProviderSettings(
            type=want(t.get("type"), str, f"{key}.type"),
            base_url=want(t.get("base_url"), str, f"{key}.base_url"),
            api_key_env=want(t.get("api_key_env"), str, f"{key}.api_key_env"),
            api_key=want(t.get("api_key"), str, f"{key}.api_key"),
            headers={k: str(v) for k, v in (want(t.get("headers"), dict, f"{key}.headers") or {}).items()},
            connect_timeout=want(t.get("connect_timeout"), (int, float), f"{key}.connect_timeout"),
            read_timeout=want(t.get("read_timeout"), (int, float), f"{key}.read_timeout"),
            idle_timeout=want(t.get("idle_timeout"), (int, float), f"{key}.idle_timeout"),
            max_retries=want(t.get("max_retries"), int, f"{key}.max_retries"),
            model=want(t.get("model"), str, f"{key}.model"),
            options=want(t.get("options"), dict, f"{key}.options") or {},
        )
    mw = want(data.get("middleware"), dict, "middleware") or {}
    enabled = want(mw.get("enabled"), list, "middleware.enabled")
    s.middleware = MiddlewareSettings(
        enabled=[str(x) for x in enabled] if enabled is not None else None,
        options={
            k: v for k, v in mw.items() if k != "enabled" and want(v, dict, f"middleware.{k}") is not None
        },
    )
    for name, table in (want(data.get("mcp_servers"), dict, "mcp_servers") or {}).items():
        key = f"mcp_servers.{name}"
        t = want(table, dict, key)
        s.mcp_servers[name] = MCPServerSettings(
            command=want(t.get("command"), str, f"{key}.command"),
            args=[str(a) for a in want(t.get("args"), list, f"{key}.args") or []],
            env={k: str(v) for k, v in (want(t.get("env"), dict, f"{key}.env") or {}).items()},
            url=want(t.get("url"), str, f"{key}.url"),
            headers={k: str(v) for k, v in (want(t.get("headers"), dict, f"{key}.headers") or {}).items()},
            enabled=bool(want(t.get("enabled", True), bool, f"{key}.enabled")),
            type=want(t.get("type"), str, f"{key}.type"),
            cwd=want(t.get("cwd"), str, f"{key}.cwd"),
        )
    perms = want(data.get("permissions"), dict, "permissions") or {}
    s.permissions = PermissionSettings(
        mode=want(perms.get("mode"), str, "permissions.mode"),
        **{
            effect: [str(r) for r in want(perms.get(effect), list, f"permissions.{effect}") or []]
            for effect in ("allow", "ask", "deny")
        },
    )
    s.extra = {k: v for k, v in data.items() if k not in _PARSED_HERE}
    return s


_PARSED_HERE = frozenset({"model", "theme", "providers", "middleware", "mcp_servers", "permissions"})
"""Top-level keys read into :class:`Settings`' fields; the other known ones stay in ``extra``."""

TOP_LEVEL_KEYS = (*sorted(_PARSED_HERE), "models", "network", "notifications", "sandbox", "sessions")
"""Every top-level key some part of the shell reads (``[models.X]``: shell.providers.catalog,
``[sandbox]``/``[network]``: shell.runtime.build, ``[sessions]``: the conversation,
``[notifications]``: shell.frontend.notify)."""

TABLE_KEYS: dict[str, tuple[str, ...]] = {
    "permissions": tuple(PermissionSettings.__slots__),
    "sandbox": ("hide", "writable", "sockets"),
    "network": ("allow_private_hosts",),
    "sessions": ("titles",),
    "notifications": ("enabled", "method", "desktop", "on"),
}
"""The keys of each known table with fixed keys (``[middleware]`` and ``[models]`` name
middleware and models: their own readers check those)."""

NAMED_TABLE_KEYS: dict[str, tuple[str, ...]] = {
    "providers": tuple(ProviderSettings.__slots__),
    "mcp_servers": (*MCPServerSettings.__slots__, "timeout", "transport"),  # + shell.tools.mcp_config's
}
"""The keys of each ``[TABLE.NAME]`` whose NAME is the user's (a provider, a server)."""


@dataclass(frozen=True, slots=True)
class UnknownKey:
    """A key no part of the shell reads: a misspelling is otherwise silent (finding B10:
    ``[permisions] mode = "plan"`` runs in the default mode without a word)."""

    table: str
    """``""`` for a top-level key, else the table's dotted name (``providers.openai``)."""
    key: str
    nearest: str | None
    holds_safety: bool = False
    """Whether what it holds was meant to stop or ask something (see :func:`_meant_to_stop`):
    ignoring it would run what the user believes is denied (finding E11)."""

    def text(self) -> str:
        """One line for the user; the names come from a file, so they are made inert."""
        hint = f"; did you mean `{self.nearest}`?" if self.nearest else ""
        return f"{self.name()} is ignored{hint}"

    def name(self) -> str:
        """``unknown key `denny` under [permissions]``, made inert (the names come from a file)."""
        from shell.core.textsafety import sanitize_line  # here: the first frame needs no core

        where = f" under [{sanitize_line(self.table)}]" if self.table else ""
        return f"unknown key `{sanitize_line(self.key)}`{where}"


def unknown_keys(data: dict[str, Any]) -> list[UnknownKey]:
    """The keys of a parsed config file that nothing reads, top-level and inside the
    known tables, each with the nearest known key (the one place they are found: the
    start-up warnings and ``agent-shell config`` both list these)."""
    found: list[UnknownKey] = []

    def check(table: str, keys: dict[str, Any], known: tuple[str, ...]) -> None:
        for key, value in keys.items():
            if key not in known:
                nearest = _nearest(str(key), known)
                found.append(UnknownKey(table, str(key), nearest, _meant_to_stop(nearest, value)))

    check("", data, TOP_LEVEL_KEYS)
    for table, known in TABLE_KEYS.items():
        if isinstance(data.get(table), dict):
            check(table, data[table], known)
    for table, known in NAMED_TABLE_KEYS.items():
        section = data.get(table)
        for name, entry in (section.items() if isinstance(section, dict) else ()):
            if isinstance(entry, dict):
                check(f"{table}.{_key(str(name))}", entry, known)
    return found


_RULE_SHAPED = re.compile(r"\s*[A-Za-z_][\w.-]*\s*\(.*\)\s*", re.DOTALL)
"""A permission rule's shape, ``TOOL(PATTERN)`` (``run_shell(rm:*)``)."""


def _meant_to_stop(nearest: str | None, value: Any) -> bool:
    """Whether an unread key was meant to deny or ask something: it is nearest to
    ``deny``, ``ask`` or ``mode`` (``plan`` read as ``default`` would let edits run), or
    to ``permissions`` and holds more than ``allow`` rules, or it holds rule-shaped
    strings (``block = ["run_shell(rm:*)"]``, a ``deny`` list outside ``[permissions]``).
    An unread ``allow`` only means more questions, so it stays a warning."""
    if nearest == "allow":
        return False
    if nearest in ("deny", "ask", "mode"):
        return True
    if nearest == "permissions":
        return not isinstance(value, dict) or any(key != "allow" for key in value)
    if isinstance(value, dict):
        return any(_meant_to_stop(None, inner) for inner in value.values())
    return isinstance(value, list) and any(
        isinstance(item, str) and _RULE_SHAPED.fullmatch(item) for item in value)


def refuse_unread_rules(settings: Settings) -> None:
    """Stop (:class:`ConfigError`) when a misspelt key holds deny or ask rules or a mode:
    the user believes those hold, and skipping them would run what they were meant to
    stop, the same case as a deny rule that cannot be read (README "Where rules live")."""
    for unknown in unknown_keys(settings.raw):
        if unknown.holds_safety:
            fix = (f"rename it to `{unknown.nearest}`" if unknown.nearest
                   else "move its rules into [permissions] (allow, ask, deny)")
            raise ConfigError(
                f"The config file {settings.path}: {unknown.name()} holds permission rules or a mode, "
                f"and agent-shell does not read it: what they were meant to stop would run. "
                f"Fix: {fix}, or remove it."
            )


def _nearest(key: str, known: tuple[str, ...]) -> str | None:
    import difflib

    close = difflib.get_close_matches(key.lower(), known, n=1, cutoff=0.6)
    return close[0] if close else None


def unknown_key_problems(settings: Settings) -> list[str]:
    """The start-up warning lines for the file's unknown keys (one a key)."""
    lines = [f"The config file {settings.path}: {u.text()}" for u in unknown_keys(settings.raw)]
    return [line if line.endswith("?") else f"{line}." for line in lines]


def key_line(path: Path | None, table: str, key: str) -> int | None:
    """The line of ``key`` under ``[table]`` (or ``table.key = …``) in the file at
    ``path``, to say where a setting came from; None when it cannot be told (no
    file, an inline table: a message then names the file and the key alone)."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines() if path is not None else []
    except (OSError, UnicodeDecodeError):
        return None
    current = ""
    for number, line in enumerate(lines, 1):
        text = line.strip()
        if text.startswith("[") and not text.startswith("[["):
            current = text.strip("[] ").split("]", 1)[0].strip()
            continue
        name = text.split("=", 1)[0].strip().replace(" ", "") if "=" in text else ""
        if (current == table and name == key) or (current == "" and name == f"{table}.{key}"):
            return number
    return None


def settings_to_dict(s: Settings) -> dict[str, Any]:
    """The inverse of :func:`settings_from_dict`, leaving out what is unset."""
    out: dict[str, Any] = {k: v for k, v in (("model", s.model), ("theme", s.theme)) if v is not None}
    out.update(s.extra)
    if s.providers:
        out["providers"] = {
            name: {k: v for k, v in _fields(p).items() if v not in (None, {}, [])}
            for name, p in s.providers.items()
        }
    mw: dict[str, Any] = {}
    if s.middleware.enabled is not None:
        mw["enabled"] = list(s.middleware.enabled)
    mw.update(s.middleware.options)
    if mw:
        out["middleware"] = mw
    perms = {k: v for k, v in _fields(s.permissions).items() if v not in (None, [])}
    if perms:
        out["permissions"] = perms
    if s.mcp_servers:
        out["mcp_servers"] = {
            name: {
                k: v for k, v in _fields(m).items() if v not in (None, {}, []) and (k != "enabled" or not v)
            }
            for name, m in s.mcp_servers.items()
        }
    return out


def _fields(obj: Any) -> dict[str, Any]:
    return {name: getattr(obj, name) for name in obj.__slots__}


def save_config(settings: Settings, path: str | Path | None = None) -> Path:
    """Write the settings as TOML, creating the file (and its directory) with mode 0600."""
    file = Path(path) if path is not None else settings.path
    file.parent.mkdir(parents=True, exist_ok=True)
    text = to_toml(settings_to_dict(settings))
    fd = os.open(file, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        f.write(text)
    os.chmod(file, 0o600)
    return file


def to_toml(data: dict[str, Any]) -> str:
    """A small TOML writer for what settings hold: scalars, lists, nested tables."""
    lines: list[str] = []

    def table(prefix: str, d: dict[str, Any]) -> None:
        scalars = {k: v for k, v in d.items() if not isinstance(v, dict)}
        tables = {k: v for k, v in d.items() if isinstance(v, dict)}
        if prefix and (scalars or not tables):
            lines.append(f"\n[{prefix}]")
        for k, v in scalars.items():
            lines.append(f"{_key(k)} = {_value(v)}")
        for k, v in tables.items():
            table(f"{prefix}.{_key(k)}" if prefix else _key(k), v)

    table("", data)
    return "\n".join(lines).lstrip("\n") + "\n"


def _key(k: str) -> str:
    return k if k and all(c.isalnum() or c in "-_" for c in k) else _value(k)


def _value(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return repr(v)
    if isinstance(v, str):
        escaped = v.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n").replace("\t", "\\t")
        return f'"{escaped}"'
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(_value(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{ " + ", ".join(f"{_key(k)} = {_value(x)}" for k, x in v.items()) + " }"
    raise ConfigError(f"cannot write {v!r} to TOML")


def join_url(base: str, path: str) -> str:
    """``base`` + ``path``, keeping a query string at the end: an Azure-style
    ``…/v1?api-version=1`` base with ``/chat/completions`` gives
    ``…/v1/chat/completions?api-version=1``."""
    head, sep, query = base.partition("?")
    return head.rstrip("/") + path + (sep + query if sep else "")


ENV_SHOWN = (
    "AGENT_SHELL_MODEL",
    "ANTHROPIC_API_KEY",
    "ANTHROPIC_BASE_URL",
    "OPENAI_API_KEY",
    "OPENAI_BASE_URL",
    "OLLAMA_HOST",
    CONFIG_DIR_ENV,
)


def _other_tables(settings: Settings) -> list[str]:
    """The known tables kept as written (``[sandbox]``, ``[models.X]`` …), then every
    key nothing reads, nested ones too, with its likely meaning."""
    known = [f"{key} = {value!r}" for key, value in settings.extra.items() if key in TOP_LEVEL_KEYS]
    return [*known, *(f"({unknown.text()})" for unknown in unknown_keys(settings.raw))]


def describe(settings: Settings, env: dict[str, str] | None = None) -> str:
    """The file's path and the effective settings, every secret masked: values under
    a secret name as ``sk-…wxyz``, and whatever else looks like a secret or is one
    (a password in a URL, ``?api-key=``, a known key inside an MCP server's
    arguments) redacted by the one secrets policy."""
    from shell.core.secrets import Secrets, is_secret_name, mask  # here: the first frame needs no core

    environ = dict(os.environ) if env is None else env
    state = "" if settings.exists else " (not found: using defaults)"
    out = [f"Config file: {settings.path}{state}"]
    out.append(f"model = {settings.model or '(automatic: see agent-shell models)'}")
    out.append(f"theme = {settings.theme or '(default)'}")
    for name, p in sorted(settings.providers.items()):
        out.append(f"[providers.{name}]")
        for key, value in _fields(p).items():
            if value in (None, {}, []):
                continue
            if key == "api_key":
                value = mask(value)
            elif key == "headers":
                value = {k: mask(v) if is_secret_name(k) else v for k, v in value.items()}
            elif key == "api_key_env":
                value = f"{value} ({'set: ' + mask(environ[value]) if environ.get(value) else 'not set'})"
            out.append(f"  {key} = {value}")
    enabled = settings.middleware.enabled
    out.append(f"[middleware] enabled = {enabled if enabled is not None else '(defaults)'}")
    for name, opts in sorted(settings.middleware.options.items()):
        shown = {k: mask(str(v)) if is_secret_name(k) else v for k, v in opts.items()}
        out.append(f"  [middleware.{name}] {shown}")
    for name, m in sorted(settings.mcp_servers.items()):
        target = m.url or " ".join([m.command or "", *m.args]).strip()
        env_shown = {k: mask(v) if is_secret_name(k) else v for k, v in m.env.items()}
        line = f"[mcp_servers.{name}] {target}{'' if m.enabled else ' (disabled)'}"
        out.append(line + (f" env={env_shown}" if env_shown else ""))
    perms = settings.permissions
    out.append(f"[permissions] mode = {perms.mode or '(default)'}")
    for effect in ("allow", "ask", "deny"):
        for rule in getattr(perms, effect):
            out.append(f"  {effect} {rule}")
    out.extend(_other_tables(settings))
    out.append("Environment:")
    for var in ENV_SHOWN:
        value = environ.get(var)
        if value:
            out.append(f"  {var} = {mask(value) if is_secret_name(var) else value}")
    return Secrets.from_environment(settings, environ).text("\n".join(out))
