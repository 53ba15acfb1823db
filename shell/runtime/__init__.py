"""``ShellRuntime``: what every front end needs, built once from the options and config.

The TUI, the line mode and headless mode differ in how they draw and how they
ask; they share one agent (model, tools, middleware), one workspace, the settings,
the session being recorded and the list of ``problems`` to show at start (slash
commands belong to the front ends: :mod:`shell.commands` drives this runtime). Keeping that
here means a middleware switched on in the line mode is switched on the same way
in the TUI, and ``/model`` works everywhere.

The runtime is split by job: :mod:`.build` makes one (model, middleware,
policy, sandbox), :mod:`.state` is what it holds, :mod:`.model`,
:mod:`.switches`, :mod:`.conversation` and :mod:`.lifetime` are what it does
(each a part of the :class:`ShellRuntime` of :mod:`.facade`), :mod:`.prompt`
writes the default system prompt. Construction is kept cheap: the providers
are resolved through their registry (which imports only the chosen provider),
and nothing here imports a UI library.
"""

from __future__ import annotations

from .build import (
    MODEL_OPTIONS,
    PANEL_DEFAULTS,
    build_middleware,
    build_network_guard,
    build_permissions,
    build_sandbox,
    describe_project,
    discover_middleware,
    editor_command,
    point_at_workspace,
    resolve,
    resolve_model_options,
)
from .facade import ShellRuntime
from .options import DEFAULT_MIDDLEWARE, HITL, Compaction, MiddlewareInfo, RuntimeOptions, ShellError
from .prompt import default_system_prompt, git_summary, os_summary, shell_name

__all__ = [
    "DEFAULT_MIDDLEWARE", "HITL", "MODEL_OPTIONS", "PANEL_DEFAULTS", "Compaction", "MiddlewareInfo",
    "RuntimeOptions", "ShellError", "ShellRuntime", "build_middleware", "build_network_guard",
    "build_permissions", "build_sandbox", "default_system_prompt", "describe_project", "discover_middleware",
    "editor_command", "git_summary", "os_summary", "point_at_workspace", "resolve", "resolve_model_options",
    "shell_name",
]
