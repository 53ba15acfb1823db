"""Building a runtime: the model, the middleware stack, the permission policy,
the sandbox and the network guard, from the command line's options and the config.

Construction is kept cheap: the providers are resolved through their registry
(which imports only the chosen provider), and nothing here imports a UI library."""

from __future__ import annotations

import os
from collections.abc import Callable, Collection, Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:
    from middleware.base import Middleware
    from middleware.stack import MiddlewareStack
    from shell.core.model import ChatModel

    from ..agent.loop import Agent, Ask
    from ..config import Settings
    from ..permissions.network import NetworkGuard
    from ..permissions.policy import PermissionPolicy
    from ..permissions.rules import Rule
    from ..permissions.sandbox import Sandbox
    from ..permissions.trust import TrustCheck
    from ..tools.workspace import Workspace
    from .facade import ShellRuntime

from .options import DEFAULT_MIDDLEWARE, HITL, RuntimeOptions, ShellError
from .prompt import default_system_prompt


def describe_project(check: TrustCheck, taken: Collection[str] = ()) -> list[str]:
    """What trusting this workspace would start, apply or ignore, one line each, as
    written in its files (every command line and URL in full, every rule with what
    it grants): for the trust question in every front end.

    Lines that would let something run with no question start with ``! `` (and a
    first line says so); a file agent-shell does not read is named as ignored, with
    why, rather than listed as if it did something. ``taken``: the front end's
    built-in command names (a project's command file cannot take one)."""
    from ..core.textsafety import sanitize_line, show_blank_runs
    from ..permissions.grants import UNASKED, describe_project_rules
    from ..permissions.store import PROJECT_DIR, PROJECT_RULES
    from ..permissions.trust import MCP_FILE, MISSING
    from ..tools.mcp_config import describe_project_servers

    lines: list[str] = []
    if check.changed:
        lines.append(sanitize_line(f"changed since you trusted it: {', '.join(check.changed)}"))
    missing: dict[str, list[str]] = {}  # one line per reason: `-r ./x` names a dozen names Node may load
    for name in check.config.files:
        data = check.config.contents[name]
        if name in check.config.runs and data == MISSING:
            missing.setdefault(check.config.runs[name], []).append(name)
        elif name in check.config.runs:
            lines.append(sanitize_line(f"{name}: {check.config.runs[name]} (a change asks again)"))
        elif name == MCP_FILE:
            servers = describe_project_servers(data, check.config.root)
            lines.extend(f"{MCP_FILE}: {line}" for line in servers)
            if any(" runs: " in line for line in servers):  # mcpsources follows the named files only
                lines.append(f"{MCP_FILE}: not watched: what a server's script imports, or what uv run / "
                             "npx runs; a change there asks nothing")
            if any(" runs: " in line or " connects to " in line for line in servers):
                lines.append(f"{UNASKED}{MCP_FILE}: tools of these servers that say they only read and stay "
                             "local (readOnlyHint, openWorldHint: false) would run with no question")
        elif name == f"{PROJECT_DIR}/{PROJECT_RULES}":
            lines.extend(describe_project_rules(data, name))
        else:
            lines.append(sanitize_line(_describe_project_file(name, data, taken)))
    for reason, names in missing.items():
        shown = ", ".join(names)
        lines.append(sanitize_line(f"{shown}: not there yet (one made later asks again): {reason}"))
    if check.config.problem:
        lines.append(check.config.problem)
    lines = [show_blank_runs(line) for line in lines]  # a padded command hides no tail (J12)
    unasked = [line for line in lines if line.startswith(UNASKED)]
    if unasked:  # read first: what would then run with no question
        legend = f"{UNASKED}marks what would run with no question once you trust it"
        return [legend, *unasked, *(line for line in lines if not line.startswith(UNASKED))]
    return lines


def _describe_project_file(name: str, data: bytes, taken: Collection[str]) -> str:
    """A file under ``.agent-shell/`` other than the rules: a slash command, or ignored."""
    from ..custom_commands import PROJECT_PREFIX, parse

    if name.startswith(PROJECT_PREFIX) and name.endswith(".md") and "/" not in name[len(PROJECT_PREFIX):]:
        found = parse(name[len(PROJECT_PREFIX):-3], data, "project", name)
        if isinstance(found, str):
            return f"{found} (ignored)"
        if found.name in taken:
            return f"{name}: ignored: /{found.name} is a built-in command, which a file cannot replace"
        summary = f" ({found.description})" if found.description else ""
        return (f"{name}: adds the command /{found.name}{summary}: typing it sends this file's text "
                "to the model as your message")
    if name.endswith("/config.toml") or name.endswith("/settings.toml"):
        return (f"{name}: ignored: agent-shell reads no project settings file; providers, base URLs, "
                "models, keys and middleware come only from your own config.toml (a repository must not "
                "choose where your prompts and keys are sent)")
    return (f"{name}: ignored: agent-shell reads only permissions.toml and commands/*.md in .agent-shell/ "
            "(a change to it still asks again)")


def point_at_workspace(stack: Iterable[Middleware], workspace: Workspace) -> None:
    """Built-ins that read the workspace (ProjectInstructions, LongTermMemory's
    project, DynamicSystemPrompt's working directory) work in the shell's
    workspace, which ``--cwd`` may set apart from the process's directory, and read
    the user's own instructions from the shell's config dir."""
    from middleware.dynamic_system_prompt import DynamicSystemPrompt
    from middleware.long_term_memory import LongTermMemory
    from middleware.project_instructions import ProjectInstructions

    for mw in stack:
        if isinstance(mw, DynamicSystemPrompt) and mw.cwd is None:  # the directory the tools use
            mw.cwd = workspace.root
        if isinstance(mw, LongTermMemory) and not mw.project_given:  # its memories belong to this project
            mw.set_project(workspace.root)
        if isinstance(mw, ProjectInstructions):
            if mw.cwd is None:
                mw.cwd = workspace.root
            if mw.read_denied is None:  # the policy, once built, answers through the workspace
                mw.read_denied = lambda path: workspace.read_denied(path)
            if mw.user_dir is None:  # the middleware sits below shell.config: told, not imported
                from ..core.dirs import config_dir

                mw.user_dir = config_dir()


def resolve(spec: str | None, settings: Settings) -> ChatModel:
    """The model for ``spec`` (``None``: the environment's or config's, else auto-detect).

    Raises ``ConfigError`` with one line for the user."""
    from ..providers.registry import resolve_model

    return resolve_model(spec, settings)


def discover_middleware(problems: list[str]) -> dict[str, type[Middleware]]:
    """The built-ins and the user's own (entry points, files in the config dir's
    ``middleware/`` folder); whatever fails to load is a problem, never fatal."""
    from middleware.plugins import available_middleware

    from ..core.dirs import config_dir

    found, found_problems = available_middleware(config_dir())
    problems.extend(found_problems)
    return found


PANEL_DEFAULTS: dict[str, dict[str, Any]] = {
    # Built-ins whose seeds require arguments get a sensible setting so they can sit in
    # the side panel, switched off, ready to try; config options replace these.
    "ReplyBudgetControl": {"token_budget": 200_000},
    "ToolCallLimit": {"run_limit": 25},
    "PII": {"pii_type": "email", "strategy": "redact"},
}


MODEL_OPTIONS = ("model", "models", "fallback_models")


def resolve_model_options(options: dict[str, Any], settings: Settings) -> dict[str, Any]:
    """Model options given as ``provider:name`` strings in config become models
    (middleware cannot resolve them: it sits below the providers)."""
    resolved = dict(options)
    for key in MODEL_OPTIONS:
        value = resolved.get(key)
        if isinstance(value, str):
            resolved[key] = resolve(value, settings)
        elif isinstance(value, list) and all(isinstance(v, str) for v in value):
            resolved[key] = [resolve(v, settings) for v in value]
    return resolved


def instantiate(cls: type[Middleware], options: dict[str, Any], settings: Settings) -> Middleware:
    """``cls`` built with its options (model names resolved); raises what the constructor raises."""
    kwargs = resolve_model_options(options, settings)
    models = kwargs.pop("models", None) or kwargs.pop("fallback_models", None)
    if models is not None:  # ModelFallback(*fallback_models)
        return cls(*models, **kwargs)
    return cls(**kwargs)


def build_middleware(
    settings: Settings, on: Sequence[str], off: Sequence[str], problems: list[str]
) -> MiddlewareStack:
    """The stack: configured middleware (enabled, in config order), then every other
    built-in that needs no arguments (disabled, for the side panel to switch on).

    ``on`` / ``off`` (``--middleware`` / ``--no-middleware``) apply on top; an
    unknown name there is a :class:`ShellError`, an unknown name in the config
    a problem.
    """
    from middleware.stack import MiddlewareStack as Stack

    classes = discover_middleware(problems)
    by_lower = {n.lower(): n for n in classes}

    def canonical(name: str, where: str) -> str | None:
        found = by_lower.get(name.strip().lower())
        if found is None:
            known = ", ".join(classes) or "none"
            if where == "config":
                problems.append(f"The config enables middleware {name!r}, which does not exist ({known}).")
                return None
            raise ShellError(f"{where}: unknown middleware {name!r} (known: {known})")
        return found

    configured = settings.middleware.enabled
    wanted: list[str] = []
    for name in configured if configured is not None else [n for n in DEFAULT_MIDDLEWARE if n in classes]:
        found = canonical(name, "config")
        if found and found not in wanted:
            wanted.append(found)
    for name in on:
        found = canonical(name, "--middleware")
        if found and found not in wanted:
            wanted.append(found)
    switched_off = {canonical(name, "--no-middleware") for name in off}
    options = {k.lower(): v for k, v in settings.middleware.options.items()}

    stack = Stack()
    for name in [*wanted, *(n for n in classes if n not in wanted)]:
        cls = classes[name]
        kwargs = options.get(name.lower(), PANEL_DEFAULTS.get(name, {}))
        try:
            instance = instantiate(cls, kwargs, settings)
        except Exception as exc:
            if name in wanted:
                problems.append(f"Middleware {name} could not be set up: {setup_error(cls, kwargs, exc)}")
            continue  # a built-in that needs arguments is only offered once configured
        stack.add(instance, enabled=name in wanted and name not in switched_off)
    if "HumanInTheLoop" not in classes:
        problems.append("HumanInTheLoop is not available: tool calls run without asking for approval.")
    return stack


def setup_error(cls: type[Middleware], options: dict[str, Any], exc: Exception) -> str:
    """Why a configured middleware could not be built, in the config's words: a
    mistyped option is named with the options that exist (not a raw TypeError)."""
    import inspect

    try:
        params = inspect.signature(cls).parameters
    except (TypeError, ValueError):
        params = {}  # type: ignore[assignment]
    takes_any = any(p.kind is p.VAR_KEYWORD for p in params.values())
    known = [n for n, p in params.items() if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)]
    unknown = [k for k in options if k not in known and k not in MODEL_OPTIONS]
    if isinstance(exc, TypeError) and unknown and not takes_any:
        return (
            f"unknown option{'s' if len(unknown) > 1 else ''} {', '.join(map(repr, unknown))} "
            f"under [middleware.{cls.__name__}] (its options: {', '.join(known) or 'none'})."
        )
    return f"{type(exc).__name__}: {exc}"


def _mode_setting(settings: Settings, *, short: bool = False) -> str:
    """Where the starting mode was set: ``[permissions] mode = "yolo" in PATH (line
    2)``, or, ``short``, ``config.toml line 2`` (for the status line)."""
    from ..config import key_line
    from ..core.textsafety import sanitize_line

    path = settings.path
    line = key_line(path, "permissions", "mode")
    if short:
        name = path.name if path is not None else "the config"
        return f"{name} line {line}" if line else name
    at = f" (line {line})" if line else ""
    return f"[permissions] mode = {sanitize_line(repr(settings.permissions.mode))} in {path}{at}"


def _interrupt_rules(listed: dict[str, bool], settings: Settings, problems: list[str]) -> list[Rule]:
    """``[middleware.HumanInTheLoop] interrupt_on``: a tool set to ask (``true`` or a
    dict) is an ``ask`` rule of the policy, as LangChain means it (finding E8: ``read_file
    = true`` read every file unasked); ``false`` cannot loosen what the mode and rules ask,
    so it is said rather than silently ignored."""
    from ..core.textsafety import sanitize_line
    from ..permissions.rules import RuleError, parse_rule

    origin = f"[middleware.HumanInTheLoop] interrupt_on in {settings.path}"
    rules = []
    for name, asks in listed.items():
        shown = sanitize_line(name)
        if not asks:
            problems.append(
                f"{origin}: {shown} = false has no effect here (the permission mode and rules decide "
                f'what asks); to let it run unasked, use [permissions] allow = ["{shown}"].'
            )
            continue
        try:
            rules.append(parse_rule(name, "ask", "user", origin))
        except RuleError as exc:  # an asking entry that cannot be a rule: stop, as for an ask rule
            raise ShellError(f"{origin}: {shown}: {exc}. Fix or remove it.") from None
    return rules


def build_permissions(
    agent: Agent, settings: Settings, workspace: Workspace, options: RuntimeOptions, problems: list[str]
) -> PermissionPolicy:
    """The policy from the command line and the config, handed to HumanInTheLoop."""
    from middleware.human_in_the_loop import HumanInTheLoop

    from ..permissions.homedirs import unfenced_note
    from ..permissions.modes import ModeError, parse_mode
    from ..permissions.policy import PermissionPolicy
    from ..permissions.rules import RuleError, parse_rule, parse_rules
    from ..permissions.sharedhosts import shared_host_note

    conf = settings.permissions
    mode_name = options.permission_mode or conf.mode or "default"
    try:
        mode = parse_mode(mode_name)
    except ModeError as exc:
        if options.permission_mode:
            raise ShellError(f"--permission-mode: {exc}") from None
        # another mode in its place would ask less, or more, than the user meant: stop
        raise ShellError(f"{_mode_setting(settings)}: {exc}. Fix or remove it.") from None
    from_config = not options.permission_mode and conf.mode is not None
    if from_config and mode == "bypass":  # never silently: it is what runs unasked
        problems.append(
            f"Approvals are off: {_mode_setting(settings)} means bypass: every tool call runs "
            "without asking (deny rules still hold). Start with --permission-mode default to be "
            "asked, or change it there."
        )
    user_rules, rule_problems = parse_rules({"allow": conf.allow}, "user", str(settings.path))
    problems.extend(rule_problems)  # an unreadable allow rule only means more questions
    safety, unreadable = parse_rules({"ask": conf.ask, "deny": conf.deny}, "user", str(settings.path))
    if unreadable:  # dropping a deny/ask rule would run what it was meant to stop: fail closed
        raise ShellError(
            f"{unreadable[0]}. A deny or ask rule that cannot be read is not skipped (what it was "
            f"meant to stop would run): fix or remove it in [permissions] of {settings.path}."
        )
    user_rules += safety
    cli_rules = []
    for effect, texts in options.rules.items():
        for text in texts:
            try:
                cli_rules.append(parse_rule(text, effect, "cli", "the command line"))  # type: ignore[arg-type]
            except RuleError as exc:  # a typo would quietly allow or deny the wrong thing: stop first
                raise ShellError(f"--{effect}: {exc}") from None
    hitl = next((m for m in agent.middleware if isinstance(m, HumanInTheLoop)), None)
    if hitl is not None:
        user_rules += _interrupt_rules(hitl.listed(), settings, problems)
    problems.extend(note for rule in [*cli_rules, *user_rules] if (note := shared_host_note(rule)))
    state_key = hitl.name if hitl is not None else HITL
    policy = PermissionPolicy(
        workspace.root,
        mode=mode,
        cli_rules=cli_rules,
        user_rules=user_rules,
        cli_strict=options.cli_strict,
        user_config=settings.path,
        session_state=lambda: agent.session_state.setdefault(state_key, {}),
        sandboxed=_sandbox_probe(),
    )
    if from_config:
        policy.mode_origin = _mode_setting(settings, short=True)
    problems.extend(policy.problems)
    if policy.unfenced() and mode in ("accept-edits", "auto"):
        problems.append(unfenced_note(policy.unfenced(), mode))
    workspace.unfenced = lambda: policy.fence_open
    workspace.read_denied = policy.read_denied  # grep, edit diffs, AGENTS.md imports ask it too
    policy.fence = workspace  # one question for a call outside the workspace (see permissions.fence)
    if hitl is not None:
        hitl.policy = policy
        # The gate always runs; whether it asks is the switch the user sees.
        policy.asking = agent.middleware.is_enabled(hitl.name)
        agent.middleware.set_enabled(hitl.name, True)
    return policy


def _sandbox_probe() -> Callable[[str], bool] | None:
    """Whether ``run_shell`` will confine a command (the sandbox's own answer), for
    auto mode; None while no sandbox module answers (auto then asks)."""
    try:
        from ..permissions import sandbox  # type: ignore[attr-defined,unused-ignore]
    except ImportError:
        return None
    probe = getattr(sandbox, "will_sandbox", None)
    return probe if callable(probe) else None


def _config_list(settings: Settings, table: str, key: str, problems: list[str]) -> list[str]:
    section = settings.raw.get(table) or {}
    value = section.get(key, []) if isinstance(section, dict) else []
    if not (isinstance(value, list) and all(isinstance(v, str) for v in value)):
        problems.append(f"In the config file, {table}.{key} must be a list of strings; it was ignored.")
        return []
    return value


def _writable(entries: list[str], problems: list[str]) -> list[str]:
    """``[sandbox] writable`` without what it may not open (:func:`too_broad_writable`),
    each refusal said once."""
    from ..permissions.homedirs import too_broad_writable

    kept = []
    for entry in entries:
        why = too_broad_writable(Path(os.path.realpath(os.path.expanduser(entry))))
        if why:
            problems.append(f"In the config file, [sandbox] writable names {entry!r}, which {why}. "
                            "It was left out: commands cannot write there.")
        else:
            kept.append(entry)
    return kept


def build_sandbox(settings: Settings, workspace: Workspace, problems: list[str]) -> Sandbox:
    """The sandbox of ``run_shell`` (config: ``[sandbox] hide = [...]``, ``writable =
    [...]``, extra paths; ``sockets = [...]``, host sockets commands may reach; ``memory``,
    ``processes``, ``file_size``: the limits of :mod:`.sandboxlimits`); when
    it cannot work here, a problem says so once."""
    from ..permissions.sandbox import Sandbox
    from ..permissions.sandboxlimits import limits_from

    sandbox = Sandbox(
        workspace.root,
        hidden=_config_list(settings, "sandbox", "hide", problems),
        writable=_writable(_config_list(settings, "sandbox", "writable", problems), problems),
        sockets=_config_list(settings, "sandbox", "sockets", problems),
        limits=limits_from(table if isinstance(table := settings.raw.get("sandbox"), dict) else {}, problems),
    )
    # the config this run loaded (--config FILE, anywhere) holds provider keys: the
    # default one is in the hidden config dir, one given elsewhere was readable (Q30)
    sandbox.own_files.append(settings.path)
    if not sandbox.available:
        problems.append(sandbox.status.notice())
    from ..permissions.quarantine import prune_later

    prune_later()  # what the sandbox moved out over 30 days ago goes, in a thread
    return sandbox


def build_network_guard(settings: Settings, problems: list[str]) -> NetworkGuard:
    """The guard of network tools; ``[network] allow_private_hosts = ["db.local",
    "10.0.0.0/8"]`` in the user's config names hosts that may be private."""
    from ..permissions.network import NetworkGuard

    return NetworkGuard(_config_list(settings, "network", "allow_private_hosts", problems))


def editor_command() -> list[str] | None:
    """``$VISUAL`` / ``$EDITOR`` split into argv, or ``None`` when neither is set."""
    import shlex

    value = os.environ.get("VISUAL") or os.environ.get("EDITOR")
    return shlex.split(value) if value else None


R = TypeVar("R", bound="ShellRuntime")


# -- construction ------------------------------------------------------------
def remember_config_secrets(settings: Settings, servers: Sequence[Any] = ()) -> None:
    """The keys of the config this run loaded (``--config`` too: the sandbox's own look
    reads the default file only) and of the MCP servers an editor gave become known to
    the sandbox's environment scrub and to egress (finding Q4)."""
    from ..core.mcpsecrets import mcp_secret_values
    from ..core.secrets import secret_values
    from ..permissions.sandboxenv import add_config_secrets

    add_config_secrets([*secret_values({}, settings), *mcp_secret_values(servers)])


def create_runtime(
    cls: type[R],
    options: RuntimeOptions | None = None,
    *,
    settings: Settings | None = None,
    model: ChatModel | None = None,
    ask: Ask | None = None,
) -> R:
    """A runtime of class ``cls`` from options + config. Raises ``ConfigError`` (bad config or
    ``--model``) or :class:`ShellError` (bad ``--cwd``, unknown middleware)."""
    from ..permissions.sandbox import probe_ahead

    probe_ahead()  # bubblewrap's answer comes while the rest is imported and built
    from ..agent.loop import Agent
    from ..config import load_config, refuse_unread_rules, unknown_key_problems
    from ..tools.builtin import builtin_tools
    from ..tools.workspace import Workspace

    options = options or RuntimeOptions()
    if settings is None:
        settings = load_config(options.config_path)
    remember_config_secrets(settings, options.mcp_servers)
    try:
        workspace = Workspace(options.cwd)
    except (OSError, NotADirectoryError) as exc:
        raise ShellError(f"--cwd: {exc}") from None
    if options.trust_workspace:
        from ..permissions.trust import read_project_config, trust_for_this_run

        trust_for_this_run(read_project_config(workspace.root))
    refuse_unread_rules(settings)  # a misspelt deny/ask/mode: stop, as for an unreadable deny rule
    problems: list[str] = unknown_key_problems(settings)  # a misspelt key is said, not silent
    if model is None:
        model = resolve(options.model, settings)
    first = None
    if options.middleware_later:  # the switched-off rest after the first screen (see middleware_later)
        from .middleware_later import build_first

        first = build_first(settings, options.middleware_on, options.middleware_off, problems)
    if first is None:
        stack = build_middleware(settings, options.middleware_on, options.middleware_off, problems)
    else:
        stack = first[0]
    point_at_workspace(stack, workspace)
    sandbox = build_sandbox(settings, workspace, problems)
    guard = build_network_guard(settings, problems)
    from ..sessions.checkpoints import CheckpointHook

    hook = CheckpointHook()
    agent = Agent(
        model,
        tools=builtin_tools(workspace, sandbox=sandbox, network_guard=guard, changes=hook),
        middleware=stack,
        system_prompt=options.system if options.system is not None else default_system_prompt(workspace),
        max_rounds=options.max_rounds,
        ask=ask,
    )
    runtime = cls(agent, settings=settings, workspace=workspace, options=options, problems=problems)
    runtime.middleware_later = None if first is None else first[1]
    runtime.sandbox = sandbox
    runtime.permissions.sandbox = sandbox  # asks name the secret files it hides; approvals show them
    policy = runtime.permissions
    sandbox.nothing_asks = lambda: policy.fence_open or not policy.asking
    sandbox.denied_reads = policy.read_denied_paths  # `deny read_file(secrets/**)`: hidden from commands
    sandbox.denied_writes = policy.write_denied_paths  # `deny write_file(secrets/**)`: read-only for them
    sandbox.write_wildcards = policy.write_wildcards  # `deny write_file(**/*.pem)`: what they cover, too
    sandbox.may_write_hidden = (  # a hidden file brought along to git's version (.gitsync): no write rule
        lambda path: policy.mode != "plan" and not policy.write_wildcards().covers(path))
    runtime.network_guard = guard
    runtime.checkpoint_hook = hook
    guard.rule_hosts = runtime.permissions.allowed_hosts  # fetch_url(domain:HOST) rules
    for directory in options.add_dirs:
        runtime.add_dir(directory)
    return runtime
