"""Model selection: ``--model`` specs, automatic choice, and listing what is available.

Specs: ``openai:NAME``, ``anthropic:NAME``, ``ollama:NAME``, ``demo``,
``scripted:FILE``, and ``PROVIDER:NAME`` for a provider of your own declared in
the config (``[providers.openrouter] type = "openai"``). A provider alone
(``anthropic``) uses its default model (``[providers.anthropic] model`` or ours).

With nothing chosen (no ``--model``, no ``AGENT_SHELL_MODEL``, no ``model`` in the
config) the first that works wins, in this order: ``ANTHROPIC_API_KEY``;
``OPENAI_API_KEY`` (with ``OPENAI_BASE_URL`` if set); ``OPENAI_BASE_URL`` alone (a
local server needs no key); an Ollama answering within 0.3 s at ``OLLAMA_HOST`` or
http://127.0.0.1:11434 (its first installed model); else the offline demo model.
The chosen model carries ``.origin``, one line saying why it was chosen, for the
status bar and ``agent-shell config``.

An OpenAI-compatible provider with its own address (``OPENAI_BASE_URL``, a
``base_url`` in the config) and no model named uses the server's own: the first
of its ``/models`` (llama.cpp, vLLM, LM Studio, LiteLLM all list theirs), as for
Ollama; ``gpt-4o-mini`` is only the default at OpenAI itself. Provider names in
specs match the config's ``[providers.NAME]`` as written, or ignoring case.

The environment is read as the official clients read it: ``OPENAI_BASE_URL``,
``ANTHROPIC_BASE_URL`` and ``OLLAMA_HOST`` apply unless the config gives a
``base_url`` for that provider.
"""

from __future__ import annotations

import importlib
import os
import socket
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import anyio

from shell.config import ConfigError, ProviderSettings, Settings, join_url, load_config
from shell.core.filedata import json_loads
from shell.core.messages import AssistantMessage, TextBlock, ThinkingBlock, ToolCallBlock
from shell.core.model import ChatModel, ModelError
from shell.core.secrets import redact

from .demo import DemoModel
from .endpoints import ollama_base_url
from .scripted import ScriptedModel

if TYPE_CHECKING:
    from .base import HTTPProvider

# Provider modules (and httpx behind them) load when a provider is chosen: the
# demo model, the newcomer's first run, starts without them.
KINDS: dict[str, str] = {
    "openai": "shell.providers.openai:OpenAIModel",
    "anthropic": "shell.providers.anthropic:AnthropicModel",
    "ollama": "shell.providers.ollama:OllamaModel",
}


def provider_class(kind: str) -> type[HTTPProvider]:
    module, _, name = KINDS[kind].partition(":")
    cls: type[HTTPProvider] = getattr(importlib.import_module(module), name)
    return cls

DEFAULT_MODELS = {"openai": "gpt-4o-mini", "anthropic": "claude-sonnet-4-5"}
KEY_ENV = {"openai": "OPENAI_API_KEY", "anthropic": "ANTHROPIC_API_KEY"}
BASE_ENV = {"openai": "OPENAI_BASE_URL", "anthropic": "ANTHROPIC_BASE_URL"}
FORMS = "openai:NAME, anthropic:NAME, ollama:NAME, demo or scripted:FILE"
PROBE_TIMEOUT = 0.3
SERVER_PROBE_TIMEOUT = 3.0


def resolve_model(
    spec: str | None = None,
    config: Settings | None = None,
    *,
    env: Mapping[str, str] | None = None,
    on_notice: Callable[[str], None] | None = None,
) -> ChatModel:
    """The model for ``spec`` (see the module docstring); raises :class:`ConfigError`."""
    environ = os.environ if env is None else env
    settings = config if config is not None else load_config()
    chosen = spec or environ.get("AGENT_SHELL_MODEL") or settings.model
    if chosen:
        origin = "--model" if spec else "AGENT_SHELL_MODEL" if environ.get("AGENT_SHELL_MODEL") else "config"
        return _labelled(model_from_spec(chosen.strip(), settings, environ, on_notice), f"from {origin}")
    if environ.get("ANTHROPIC_API_KEY"):
        model = make_provider("anthropic", "", settings, environ, on_notice)
        return _labelled(model, "ANTHROPIC_API_KEY is set")
    if environ.get("OPENAI_API_KEY"):
        model = make_provider("openai", "", settings, environ, on_notice)
        return _labelled(model, "OPENAI_API_KEY is set")
    if environ.get("OPENAI_BASE_URL"):
        model = make_provider("openai", "", settings, environ, on_notice)
        return _labelled(model, f"OPENAI_BASE_URL is set ({redact(model.base_url)})")
    ollama = settings.provider("ollama")
    base = ollama.base_url or ollama_base_url(environ.get("OLLAMA_HOST"))
    installed = probe_ollama(base)
    if installed:
        name = ollama.model if ollama.model in installed else installed[0]
        return _labelled(
            make_provider("ollama", name, settings, environ, on_notice), f"Ollama answers at {base}"
        )
    return _labelled(DemoModel(), "no provider configured")


def _labelled(model: Any, origin: str) -> ChatModel:
    model.origin = origin
    return model  # type: ignore[no-any-return]


def model_from_spec(
    spec: str,
    settings: Settings,
    env: Mapping[str, str],
    on_notice: Callable[[str], None] | None = None,
) -> ChatModel:
    provider, sep, name = spec.partition(":")
    provider = configured_name(provider.strip(), settings)
    if spec == "demo":
        return DemoModel()
    if provider == "scripted" and sep:
        return load_scripted(name)
    if provider in KINDS or provider in settings.providers:
        return make_provider(provider, name.strip(), settings, env, on_notice)
    custom = "".join(f", {p}:NAME" for p in sorted(settings.providers) if p not in KINDS)
    raise ConfigError(f"Unknown model {spec!r}: use {FORMS}{custom}.")


def configured_name(provider: str, settings: Settings) -> str:
    """``provider`` as the config spells it (``llamaB`` for ``llamab``), else lower case."""
    if provider in settings.providers:
        return provider
    folded = provider.lower()
    for name in settings.providers:
        if name.lower() == folded:
            return name
    return folded


def provider_kind(provider: str, ps: ProviderSettings) -> str:
    kind = ps.type or (provider if provider in KINDS else None)
    if kind not in KINDS:
        raise ConfigError(
            f'[providers.{provider}] needs type = "openai", "anthropic" or "ollama" (got {ps.type!r}).'
        )
    return kind


def make_provider(
    provider: str,
    name: str,
    settings: Settings,
    env: Mapping[str, str],
    on_notice: Callable[[str], None] | None = None,
) -> HTTPProvider:
    """An HTTP model for ``provider:name`` with the config's and the environment's settings."""
    ps = settings.provider(provider)
    kind = provider_kind(provider, ps)
    builtin = provider == kind
    key_env = ps.api_key_env or (KEY_ENV.get(kind) if builtin else None)
    if kind == "ollama":
        base_url = ps.base_url or (ollama_base_url(env.get("OLLAMA_HOST")) if builtin else None)
    else:
        base_url = ps.base_url or (env.get(BASE_ENV[kind]) if builtin else None) or None
    api_key = ps.api_key or (env.get(key_env) if key_env else None)
    name = name or ps.model or ""
    if not name and kind == "openai" and base_url:
        name = server_model(provider, base_url, api_key, ps.headers)
    name = name or DEFAULT_MODELS.get(kind, "")
    if not name:
        raise ConfigError(
            f"Say which {provider} model to use: {provider}:NAME (see agent-shell models)."
        )
    kwargs: dict[str, Any] = {
        "base_url": base_url,
        "api_key": api_key,
        "api_key_env": key_env,
        "headers": ps.headers,
        "options": ps.options,
        "on_notice": on_notice,
    }
    for key in ("connect_timeout", "read_timeout", "idle_timeout", "max_retries"):
        if getattr(ps, key) is not None:
            kwargs[key] = getattr(ps, key)
    model = provider_class(kind)(name, **kwargs)
    if not builtin:
        model.provider = provider
        model.label = provider
    return model


def server_model(provider: str, base_url: str, api_key: str | None, headers: Mapping[str, str]) -> str:
    """The first model an OpenAI-compatible server lists at ``{base_url}/models``.

    Asked only when no model is named; a server that cannot say raises a
    :class:`ConfigError` that says how to name one."""
    import httpx

    from .errors import describe_transport_error, error_message_from_body

    shown = redact(base_url)
    how = f"name one: --model {provider}:NAME, or model = \"NAME\" under [providers.{provider}] in the config"
    url = join_url(base_url, "/models")
    sent = dict(headers)
    if api_key:
        sent["Authorization"] = f"Bearer {api_key}"
    try:
        response = httpx.get(url, headers=sent, timeout=SERVER_PROBE_TIMEOUT)
    except httpx.HTTPError as exc:
        raise ConfigError(
            f"No model is set for {provider} and the server at {shown} could not be asked for its "
            f"models ({describe_transport_error(exc)}). Start the server, or {how}."
        ) from None
    if response.status_code >= 400:
        detail = redact(error_message_from_body(response.content[:65536]))
        raise ConfigError(
            f"No model is set for {provider} and {redact(url)} answered HTTP {response.status_code}"
            f"{': ' + one_line(detail) if detail else ''}. {how[0].upper() + how[1:]}."
        )
    ids = _model_ids(response, "id")
    if not ids:
        raise ConfigError(f"No model is set for {provider} and {redact(url)} lists none; {how}.")
    return ids[0]


def _model_ids(response: Any, key: str) -> list[str]:
    try:
        data = response.json()
    except (ValueError, RecursionError):
        return []
    items = data.get("data" if key == "id" else "models", []) if isinstance(data, dict) else []
    if not isinstance(items, list):
        return []
    return [str(m[key]) for m in items if isinstance(m, dict) and isinstance(m.get(key), str)]


def one_line(text: str, limit: int = 300) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def load_scripted(file: str) -> ScriptedModel:
    """``scripted:FILE``: a JSON list of turns, each a string or
    ``{"text", "thinking", "tool_calls": [{"name", "args", "id"?}], "error"?}``."""
    path = Path(file).expanduser()
    where = f"The scripted model file {path}"
    try:
        data = json_loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ConfigError(f"{where} cannot be read: {exc.strerror or exc}.") from None
    except ValueError as exc:
        raise ConfigError(f"{where} is not valid JSON: {exc}.") from None
    if not isinstance(data, list):
        raise ConfigError(f"{where} must hold a JSON list of turns.")
    turns: list[Any] = []
    for i, turn in enumerate(data, 1):
        if isinstance(turn, str):
            turns.append(turn)
            continue
        if not isinstance(turn, dict):
            raise ConfigError(f"{where}: turn {i} must be a string or an object, not {turn!r}.")
        if "error" in turn:
            turns.append(ModelError(str(turn["error"]), provider="scripted"))
            continue
        blocks: list[Any] = []
        if turn.get("thinking"):
            blocks.append(ThinkingBlock(str(turn["thinking"])))
        if turn.get("text"):
            blocks.append(TextBlock(str(turn["text"])))
        calls = turn.get("tool_calls") or []
        if not isinstance(calls, list):
            raise ConfigError(f"{where}: turn {i}: tool_calls must be a list.")
        for j, call in enumerate(calls, 1):
            if not isinstance(call, dict) or not isinstance(call.get("name"), str):
                raise ConfigError(f'{where}: turn {i}, tool call {j} needs a "name".')
            args = call.get("args", {})
            if not isinstance(args, dict):
                raise ConfigError(f'{where}: turn {i}, tool call {j}: "args" must be an object.')
            blocks.append(ToolCallBlock(str(call.get("id") or f"call_{i}_{j}"), call["name"], args))
        if not blocks:
            raise ConfigError(f"{where}: turn {i} has no text, thinking or tool_calls.")
        turns.append(AssistantMessage(tuple(blocks)))
    return ScriptedModel(turns, name=path.name)


def probe_ollama(base_url: str, timeout: float = PROBE_TIMEOUT) -> list[str]:
    """Installed model names if an Ollama answers quickly at ``base_url``, else ``[]``."""
    if not _port_open(base_url, timeout):
        return []  # nothing listens: answered without loading httpx
    import httpx

    try:
        response = httpx.get(f"{base_url}/api/tags", timeout=timeout)
        response.raise_for_status()
        return [m["name"] for m in response.json().get("models", []) if isinstance(m, dict) and "name" in m]
    except (httpx.HTTPError, ValueError, AttributeError, TypeError):
        return []


async def list_models(
    config: Settings | None = None, *, env: Mapping[str, str] | None = None, timeout: float = 5.0
) -> dict[str, list[str] | str]:
    """Per provider, its model names, or a string saying why they could not be listed."""
    environ = os.environ if env is None else env
    settings = config if config is not None else load_config()
    names = ["anthropic", "openai", "ollama", *sorted(p for p in settings.providers if p not in KINDS)]
    result: dict[str, list[str] | str] = {}

    async def one(provider: str) -> None:
        try:
            model = make_provider(provider, "-", settings, environ)
        except ConfigError as exc:
            result[provider] = str(exc)
            return
        result[provider] = await _list_one(model, provider, timeout)

    async with anyio.create_task_group() as tg:
        for provider in names:
            tg.start_soon(one, provider)
    result["demo"] = ["demo"]
    return {k: result[k] for k in [*names, "demo"]}


def _port_open(base_url: str, timeout: float) -> bool:
    from urllib.parse import urlsplit

    parts = urlsplit(base_url)
    try:
        port = parts.port or (443 if parts.scheme == "https" else 80)
        with socket.create_connection((parts.hostname or "127.0.0.1", port), timeout=timeout):
            return True
    except (OSError, ValueError):
        return False


async def _list_one(model: HTTPProvider, provider: str, timeout: float) -> list[str] | str:
    import httpx

    from .anthropic import API_VERSION, AnthropicModel
    from .errors import describe_transport_error, error_message_from_body
    from .ollama import OllamaModel

    if isinstance(model, AnthropicModel):
        url, headers, key = join_url(model.base_url, "/v1/models"), {"anthropic-version": API_VERSION}, "id"
        if model.api_key:
            headers["x-api-key"] = model.api_key
    elif isinstance(model, OllamaModel):
        url, headers, key = join_url(model.base_url, "/api/tags"), {}, "name"
        timeout = min(timeout, 2.0)
    else:
        url, headers, key = join_url(model.base_url, "/models"), {}, "id"
        if model.api_key:
            headers["Authorization"] = f"Bearer {model.api_key}"
    local = provider == "openai" and model.base_url != model.default_base_url
    if not model.api_key and model.api_key_env and not isinstance(model, OllamaModel) and not local:
        return f"not configured: set {model.api_key_env}"
    headers.update(model.headers)
    shown = redact(url)
    try:
        async with httpx.AsyncClient(timeout=timeout) as client:
            response = await client.get(url, headers=headers)
    except httpx.HTTPError as exc:
        return f"not reachable at {redact(model.base_url)} ({describe_transport_error(exc)})"
    failed = response.status_code >= 400
    detail = one_line(redact(error_message_from_body(response.content[:65536]))) if failed else ""
    said = f": {detail}" if detail else ""
    if response.status_code in (401, 403):
        return f"HTTP {response.status_code}{said} (check {model.api_key_env or 'the API key'})"
    if response.status_code >= 400:
        return f"HTTP {response.status_code} from {shown}{said}"
    ids = _model_ids(response, key)
    if not ids and response.content.strip()[:1] not in (b"{", b"["):
        return f"unexpected answer from {shown} (not JSON: is this the API's address?)"
    return sorted(ids)
