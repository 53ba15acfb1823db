"""Model selection: specs, the automatic order, scripted files, listing models."""

from __future__ import annotations

import json
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest

from shell.config import ConfigError, ProviderSettings, Settings
from shell.core.messages import AssistantMessage
from shell.providers.anthropic import AnthropicModel
from shell.providers.demo import DemoModel
from shell.providers.endpoints import ollama_base_url
from shell.providers.ollama import OllamaModel
from shell.providers.openai import OpenAIModel
from shell.providers.registry import list_models, load_scripted, resolve_model
from shell.providers.scripted import ScriptedModel

from .helpers import Assembled, collect
from .server import ScriptedServer


def dead_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


NO_OLLAMA = {"OLLAMA_HOST": f"127.0.0.1:{dead_port()}"}


@pytest.fixture
def server() -> Iterator[ScriptedServer]:
    with ScriptedServer() as s:
        yield s


def test_specs() -> None:
    s = Settings()
    m = resolve_model("openai:gpt-4.1", s, env={"OPENAI_API_KEY": "sk-x", "OPENAI_BASE_URL": "http://h:1/v1"})
    assert isinstance(m, OpenAIModel)
    assert (m.name, m.provider, m.base_url, m.api_key, m.api_key_env) == (
        "gpt-4.1",
        "openai",
        "http://h:1/v1",
        "sk-x",
        "OPENAI_API_KEY",
    )
    m = resolve_model("anthropic:claude-x", s, env={"ANTHROPIC_BASE_URL": "http://a:2"})
    assert isinstance(m, AnthropicModel) and m.url == "http://a:2/v1/messages" and m.api_key is None
    m = resolve_model("ollama:qwen3:8b", s, env={"OLLAMA_HOST": "0.0.0.0:9999"})
    assert isinstance(m, OllamaModel) and (m.name, m.base_url) == ("qwen3:8b", "http://0.0.0.0:9999")
    assert isinstance(resolve_model("demo", s, env={}), DemoModel)
    assert resolve_model("anthropic", s, env={}).name == "claude-sonnet-4-5"


@pytest.mark.parametrize("spec", ["gpt-4o", "foo:bar", "scripted"])
def test_bad_spec_lists_valid_forms(spec: str) -> None:
    with pytest.raises(ConfigError) as info:
        resolve_model(spec, Settings(), env={})
    assert str(info.value) == (
        f"Unknown model {spec!r}: use openai:NAME, anthropic:NAME, ollama:NAME, demo or scripted:FILE."
    )


def test_config_provider_and_default_model() -> None:
    s = Settings(
        model="openrouter:meta/llama",
        providers={
            "openrouter": ProviderSettings(
                type="openai",
                base_url="https://or/api/v1",
                api_key_env="OR_KEY",
                read_timeout=7,
                headers={"X": "1"},
            ),
            "openai": ProviderSettings(base_url="http://cfg/v1"),
        },
    )
    m = resolve_model(None, s, env={"OR_KEY": "k", "OPENAI_BASE_URL": "http://env/v1"})
    assert isinstance(m, OpenAIModel)
    assert (m.provider, m.name, m.base_url, m.api_key, m.read_timeout, m.headers) == (
        "openrouter",
        "meta/llama",
        "https://or/api/v1",
        "k",
        7,
        {"X": "1"},
    )
    assert m.origin == "from config"
    # the config's base_url wins over OPENAI_BASE_URL
    assert resolve_model("openai:x", s, env={"OPENAI_BASE_URL": "http://env/v1"}).base_url == "http://cfg/v1"
    with pytest.raises(ConfigError, match="openrouter:NAME"):
        resolve_model("nope:x", s, env={})


def test_automatic_order(server: ScriptedServer) -> None:
    s = Settings()
    both = {"ANTHROPIC_API_KEY": "a", "OPENAI_API_KEY": "o", **NO_OLLAMA}
    assert isinstance(resolve_model(None, s, env=both), AnthropicModel)
    server.scenarios["v1"] = lambda h, n: h.reply(200, {"data": [{"id": "served-model"}]})
    base = f"{server.url}/v1"
    m = resolve_model(None, s, env={"OPENAI_API_KEY": "o", "OPENAI_BASE_URL": base, **NO_OLLAMA})
    assert isinstance(m, OpenAIModel) and m.base_url == base and m.origin == "OPENAI_API_KEY is set"
    assert m.name == "served-model"  # the server's own model, not gpt-4o-mini
    m = resolve_model(None, s, env=NO_OLLAMA)
    assert isinstance(m, DemoModel) and m.origin == "no provider configured"
    assert isinstance(
        resolve_model(None, s, env={"AGENT_SHELL_MODEL": "demo", "OPENAI_API_KEY": "o"}), DemoModel
    )


def test_automatic_finds_a_running_ollama(server: ScriptedServer) -> None:
    tags = {"models": [{"name": "llama3.2:latest"}, {"name": "qwen3:8b"}]}
    server.scenarios["api"] = lambda h, n: h.reply(200, tags)
    m = resolve_model(None, Settings(), env={"OLLAMA_HOST": server.url})
    assert isinstance(m, OllamaModel) and m.name == "llama3.2:latest"
    assert m.origin == f"Ollama answers at {server.url}"


def test_ollama_host_forms() -> None:
    assert ollama_base_url(None) == "http://127.0.0.1:11434"
    assert ollama_base_url("0.0.0.0") == "http://0.0.0.0:11434"
    assert ollama_base_url("example.com:8080") == "http://example.com:8080"
    assert ollama_base_url("https://ollama.example.com") == "https://ollama.example.com:443"
    assert ollama_base_url("http://[::1]:5000/") == "http://[::1]:5000"


@pytest.mark.anyio
async def test_scripted_file(tmp_path: Path) -> None:
    file = tmp_path / "turns.json"
    turns = [
        {
            "thinking": "hmm",
            "text": "Let me look.",
            "tool_calls": [{"name": "list_dir", "args": {"path": "."}}],
        },
        "Done.",
    ]
    file.write_text(json.dumps(turns))
    m = resolve_model(f"scripted:{file}", Settings(), env={})
    assert isinstance(m, ScriptedModel) and m.name == "turns.json"
    first = m.turns[0]
    assert isinstance(first, AssistantMessage) and first.tool_calls[0].id == "call_1_1"
    got = Assembled(await collect(m))
    assert got.thinking == "hmm" and got.text == "Let me look."
    assert got.tool_calls() == [("call_1_1", "list_dir", {"path": "."})]


@pytest.mark.parametrize(
    ("content", "problem"),
    [
        ("{", "is not valid JSON"),
        ('{"a": 1}', "must hold a JSON list of turns"),
        ("[3]", "turn 1 must be a string or an object"),
        ('[{"tool_calls": [{"args": {}}]}]', 'turn 1, tool call 1 needs a "name"'),
        ("[{}]", "turn 1 has no text, thinking or tool_calls"),
    ],
)
def test_bad_scripted_file(tmp_path: Path, content: str, problem: str) -> None:
    file = tmp_path / "bad.json"
    file.write_text(content)
    with pytest.raises(ConfigError) as info:
        load_scripted(str(file))
    assert str(info.value).startswith(f"The scripted model file {file}") and problem in str(info.value)


def test_missing_scripted_file(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="cannot be read: No such file or directory"):
        load_scripted(str(tmp_path / "nope.json"))


@pytest.mark.anyio
async def test_list_models(server: ScriptedServer) -> None:
    server.scenarios["api"] = lambda h, n: h.reply(200, {"models": [{"name": "b:1"}, {"name": "a:2"}]})
    server.scenarios["v1"] = lambda h, n: h.reply(200, {"data": [{"id": "gpt-b"}, {"id": "gpt-a"}]})
    server.scenarios["anth"] = lambda h, n: h.reply(401, {"error": {"message": "bad key"}})
    env = {
        "OLLAMA_HOST": server.url,
        "OPENAI_BASE_URL": f"{server.url}/v1",
        "OPENAI_API_KEY": "k",
        "ANTHROPIC_BASE_URL": f"{server.url}/anth",
        "ANTHROPIC_API_KEY": "bad",
    }
    got = await list_models(Settings(), env=env)
    assert got == {
        "anthropic": "HTTP 401: bad key (check ANTHROPIC_API_KEY)",
        "openai": ["gpt-a", "gpt-b"],
        "ollama": ["a:2", "b:1"],
        "demo": ["demo"],
    }
    got = await list_models(Settings(), env=NO_OLLAMA)
    assert got["anthropic"] == "not configured: set ANTHROPIC_API_KEY"
    assert got["openai"] == "not configured: set OPENAI_API_KEY"
    assert isinstance(got["ollama"], str) and got["ollama"].startswith("not reachable at http://127.0.0.1:")


def test_a_provider_named_with_capitals_can_be_selected(server: ScriptedServer) -> None:
    """``[providers.llamaB]`` is listed, so ``llamaB:…`` (and ``llamab:…``) must select it."""
    settings = Settings(providers={"llamaB": ProviderSettings(type="openai", base_url=f"{server.url}/v1")})
    for spec in ("llamaB:smol", "llamab:smol", "LLAMAB:smol"):
        m = resolve_model(spec, settings, env=NO_OLLAMA)
        assert isinstance(m, OpenAIModel) and (m.provider, m.name) == ("llamaB", "smol")


def test_base_url_alone_uses_the_servers_own_model(server: ScriptedServer) -> None:
    """A local server needs no key, and its model is the one it lists, not gpt-4o-mini."""
    server.scenarios["v1"] = lambda h, n: h.reply(200, {"data": [{"id": "SmolLM2-135M.gguf"}, {"id": "b"}]})
    env = {"OPENAI_BASE_URL": f"{server.url}/v1", **NO_OLLAMA}
    m = resolve_model(None, Settings(), env=env)
    assert isinstance(m, OpenAIModel) and m.name == "SmolLM2-135M.gguf" and m.api_key is None
    assert m.origin == f"OPENAI_BASE_URL is set ({server.url}/v1)"
    custom = Settings(providers={"llama": ProviderSettings(type="openai", base_url=f"{server.url}/v1")})
    assert resolve_model("llama", custom, env=NO_OLLAMA).name == "SmolLM2-135M.gguf"


def test_base_url_alone_with_the_server_down_says_what_to_do() -> None:
    base = f"http://127.0.0.1:{dead_port()}/v1"
    with pytest.raises(ConfigError) as info:
        resolve_model(None, Settings(), env={"OPENAI_BASE_URL": base, **NO_OLLAMA})
    assert str(info.value) == (
        f"No model is set for openai and the server at {base} could not be asked for its models (nothing "
        "accepted the connection there). Start the server, or name one: --model openai:NAME, or "
        'model = "NAME" under [providers.openai] in the config.'
    )


@pytest.mark.anyio
async def test_models_shows_the_servers_error_and_hides_credentials(server: ScriptedServer) -> None:
    server.scenarios["v1"] = lambda h, n: h.reply(500, {"error": {"message": "model store is locked"}})
    base = f"http://bob:hunter2@{server.url.split('//')[1]}/v1?api-key=sk-zzz"
    settings = Settings(providers={"llama": ProviderSettings(type="openai", base_url=base)})
    got = await list_models(settings, env=NO_OLLAMA)
    shown = f"http://bob:[REDACTED]@{server.url.split('//')[1]}/v1/models?api-key=[REDACTED]"
    assert got["llama"] == f"HTTP 500 from {shown}: model store is locked"
    dead = Settings(
        providers={"llama": ProviderSettings(type="openai", base_url=f"http://u:pw@127.0.0.1:{dead_port()}")}
    )
    got = await list_models(dead, env=NO_OLLAMA)
    assert isinstance(got["llama"], str) and "pw" not in got["llama"]
    assert got["llama"].endswith("(nothing accepted the connection there)")


@pytest.mark.anyio
@pytest.mark.parametrize(
    ("spec", "var"), [("anthropic:claude-x", "ANTHROPIC_API_KEY"), ("openai:gpt-x", "OPENAI_API_KEY")]
)
async def test_no_key_for_the_providers_own_service_is_said_before_sending(spec: str, var: str) -> None:
    """The request went anyway: the error was about the connection or the server's 401
    (finding V12). Nothing is sent; the variable to set is named."""
    import httpx

    from shell.core.messages import UserMessage
    from shell.core.model import ModelError, ModelRequest

    model = resolve_model(spec, Settings(), env=NO_OLLAMA)
    sent: list[httpx.Request] = []

    def answer(request: httpx.Request) -> httpx.Response:
        sent.append(request)
        return httpx.Response(401)

    model._client = httpx.AsyncClient(transport=httpx.MockTransport(answer))  # type: ignore[attr-defined]
    with pytest.raises(ModelError, match=f"{var} is not set"):
        await collect(model, ModelRequest(model=model, messages=(UserMessage("hi"),)))
    assert sent == []
    gateway = {**NO_OLLAMA, var.replace("API_KEY", "BASE_URL"): "http://127.0.0.1:9/v1"}
    local = resolve_model(spec, Settings(), env=gateway)
    assert local.missing_key() is None  # type: ignore[attr-defined]
