"""The agent itself: its model, its middleware, its tools."""

from __future__ import annotations

from typing import TYPE_CHECKING

from shell.core.textsafety import sanitize

from .registry import CommandResult

if TYPE_CHECKING:
    from shell.runtime import ShellRuntime


def format_models(found: dict[str, list[str] | str]) -> str:
    """``list_models``' answer as Markdown: provider, then ``provider:name`` specs."""
    lines = []
    for provider, models in found.items():
        provider = sanitize(provider)  # model ids and errors come from servers: hostile
        if isinstance(models, str):
            lines.append(f"- **{provider}**: {sanitize(models)}")
        elif provider == "demo":
            lines.append("- **demo**: `demo`")
        else:
            shown = ", ".join(f"`{provider}:{sanitize(m)}`" for m in models) or "no models"
            lines.append(f"- **{provider}**: {shown}")
    return "\n".join(lines)


def _complete_middleware(runtime: ShellRuntime, rest: str) -> list[str]:
    words = rest.split()
    if len(words) == 0 or (len(words) == 1 and not rest.endswith(" ")):
        return runtime.agent.middleware.names()
    return ["on", "off"]


def _complete_model(runtime: ShellRuntime, rest: str) -> list[str]:
    return ["demo", "openai:", "anthropic:", "ollama:", "scripted:", "list"]


async def model_command(runtime: ShellRuntime, arg: str) -> CommandResult:
    if not arg:
        demo = " (the offline demo model)" if runtime.is_demo else ""
        return CommandResult(
            f"Model: `{runtime.model_label}`{demo}. Switch with `/model provider:name` "
            "(`openai:…`, `anthropic:…`, `ollama:…`, `demo`, `scripted:FILE`); `/model list` lists them."
        )
    if arg == "list":
        try:
            found = await runtime.list_models()
        except Exception as exc:
            return CommandResult(f"Could not list the models: {exc}", error=True)
        return CommandResult(format_models(found))
    try:
        label = runtime.switch_model(arg)
    except Exception as exc:
        return CommandResult(f"Model not changed: {exc}", error=True)
    missing = runtime.missing_key()
    if missing:
        return CommandResult(f"Model: `{label}`. {missing}", error=True)
    return CommandResult(f"Model: `{label}`.")


def middleware_command(runtime: ShellRuntime, arg: str) -> CommandResult:
    words = arg.split()
    if not words:
        return CommandResult(describe_middleware(runtime))
    if len(words) > 2 or (len(words) == 2 and words[1].lower() not in ("on", "off")):
        return CommandResult("Usage: `/middleware [NAME [on|off]]`", error=True)
    try:
        if len(words) == 1:
            return CommandResult(describe_middleware(runtime, words[0]))
        name = runtime.set_middleware(words[0], words[1].lower() == "on")
    except KeyError as exc:
        return CommandResult(str(exc.args[0]) if exc.args else str(exc), error=True)
    state = "on" if runtime.middleware_on(name) else "off"
    note = ""
    if name == "HumanInTheLoop" and state == "off" and runtime.policy_enforced:
        note = " Calls that would ask run unasked; deny rules and plan mode still hold."
    return CommandResult(f"Middleware {name}: {state}.{note}")


def tools_command(runtime: ShellRuntime, arg: str) -> CommandResult:
    return CommandResult(describe_tools(runtime))


def describe_middleware(runtime: ShellRuntime, name: str | None = None) -> str:
    """``/middleware`` (every one, on or off) or ``/middleware NAME`` (its hooks and stats), as Markdown."""
    if name is not None:
        found = runtime.find_middleware(name)
        info = next(i for i in runtime.middleware_info() if i.name == found)
        hooks = ", ".join(runtime.agent.middleware.hooks_of(found)) or "none"
        lines = [
            f"**{found}** ({'on' if info.enabled else 'off'}): {info.description or 'no description'}",
            f"hooks: {hooks}; {info.calls} calls, {info.time_s * 1000:.1f} ms, {info.errors} errors",
        ]
        if info.last_error:
            lines.append(f"last error: {info.last_error}")
        return "\n\n".join(lines)
    rows = [
        f"- {'●' if i.enabled else '○'} **{i.name}**{': ' + i.description if i.description else ''}"
        for i in runtime.middleware_info()
    ]
    if not rows:
        return "No middleware in the stack."
    return "Middleware (● on, ○ off; `/middleware NAME on|off`):\n\n" + "\n".join(rows)

def describe_tools(runtime: ShellRuntime) -> str:
    """``/tools``: each tool with where it comes from and what the policy says of it; the MCP servers."""
    from shell.tools.listing import describe_tools as listing

    verdicts = {t.name: runtime.permissions.decide(t, {}).action for t in runtime.agent.tools}
    notes = {"ask": ", asks", "deny": ", denied"} if runtime.policy_enforced else {}
    rows = [
        f"- `{i.name}` ({i.source}{notes.get(verdicts[i.name], '')}): {i.summary}"
        for i in listing(runtime.agent.tools)
    ]
    text = "Tools:\n\n" + "\n".join(rows) if rows else "No tools."
    if runtime.mcp is not None:
        servers = [f"- {s.name}: {s.state}{' (' + s.message + ')' if s.message else ''}"
                   for s in runtime.mcp.statuses()]
        text += "\n\nMCP servers:\n\n" + "\n".join(servers)
    from middleware.base import Middleware

    mw_tools = [m.name for m in runtime.agent.middleware if type(m).list_tools is not Middleware.list_tools]
    if mw_tools:
        text += f"\n\nMiddleware may add tools while enabled: {', '.join(mw_tools)}."
    return text
