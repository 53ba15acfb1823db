"""config.toml: loading, errors naming file and line, saving 0600, describe masking secrets."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest

from shell.config import (
    ConfigError,
    ProviderSettings,
    Settings,
    config_path,
    describe,
    load_config,
    save_config,
)

SAMPLE = """
model = "anthropic:claude-x"
theme = "nord"

[providers.openai]
base_url = "http://127.0.0.1:8000/v1"
api_key_env = "VLLM_KEY"
headers = { Authorization = "Bearer sk-secret-header-123456", X-Team = "infra" }
read_timeout = 30
max_retries = 1

[providers.openrouter]
type = "openai"
base_url = "https://openrouter.ai/api/v1"
api_key = "sk-or-verysecretvalue1234"

[middleware]
enabled = ["HumanInTheLoop", "Timing"]
[middleware.Summarization]
max_tokens = 4000

[mcp_servers.time]
command = "mcp-server-time"
args = ["--tz", "UTC"]
env = { API_TOKEN = "tok-abcdefghijklmnop" }
"""


@pytest.fixture
def cfg_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("AGENT_SHELL_CONFIG_DIR", str(tmp_path))
    return tmp_path


def test_missing_file_gives_defaults(cfg_dir: Path) -> None:
    s = load_config()
    assert s.path == cfg_dir / "config.toml" == config_path()
    assert not s.exists and s.model is None and s.middleware.enabled is None


def test_loads_every_section(cfg_dir: Path) -> None:
    (cfg_dir / "config.toml").write_text(SAMPLE)
    s = load_config()
    assert s.exists and s.model == "anthropic:claude-x" and s.theme == "nord"
    openai = s.providers["openai"]
    assert (openai.base_url, openai.api_key_env, openai.read_timeout, openai.max_retries) == (
        "http://127.0.0.1:8000/v1",
        "VLLM_KEY",
        30,
        1,
    )
    assert s.providers["openrouter"].type == "openai"
    assert s.middleware.enabled == ["HumanInTheLoop", "Timing"]
    assert s.middleware.options == {"Summarization": {"max_tokens": 4000}}
    assert s.mcp_servers["time"].args == ["--tz", "UTC"]
    assert s.raw["mcp_servers"]["time"]["command"] == "mcp-server-time"


def test_broken_toml_names_file_and_line(cfg_dir: Path) -> None:
    file = cfg_dir / "config.toml"
    file.write_text('model = "x"\n\n[providers\n')
    with pytest.raises(ConfigError) as info:
        load_config()
    assert str(file) in str(info.value) and "line 3" in str(info.value)


def test_wrong_type_names_the_key(cfg_dir: Path) -> None:
    (cfg_dir / "config.toml").write_text('[providers.openai]\nread_timeout = "soon"\n')
    with pytest.raises(ConfigError, match=r"providers\.openai\.read_timeout must be a int or float"):
        load_config()


def test_save_roundtrip_with_mode_0600(tmp_path: Path) -> None:
    src = tmp_path / "a.toml"
    src.write_text(SAMPLE)
    s = load_config(src)
    out = save_config(s, tmp_path / "sub" / "config.toml")
    assert stat.S_IMODE(out.stat().st_mode) == 0o600
    again = load_config(out)
    assert again.providers == s.providers and again.middleware == s.middleware
    assert again.mcp_servers == s.mcp_servers and again.model == s.model


def test_describe_masks_secrets(cfg_dir: Path) -> None:
    (cfg_dir / "config.toml").write_text(SAMPLE)
    env = {"VLLM_KEY": "vk-0123456789abcdef", "OPENAI_API_KEY": "sk-proj-abcdefghijklmnopqrstuvwxyz"}
    text = describe(load_config(), env)
    assert f"Config file: {cfg_dir / 'config.toml'}" in text
    for secret in (
        "sk-secret-header-123456",
        "sk-or-verysecretvalue1234",
        "tok-abcdefghijklmnop",
        "vk-0123456789abcdef",
        "sk-proj-abcdefghijklmnopqrstuvwxyz",
    ):
        assert secret not in text
    assert "VLLM_KEY (set: vk-…cdef)" in text
    assert "OPENAI_API_KEY = sk-…wxyz" in text
    assert "X-Team': 'infra'" in text


def test_describe_defaults() -> None:
    text = describe(Settings(path=Path("/nowhere/config.toml")), {})
    assert text.startswith("Config file: /nowhere/config.toml (not found: using defaults)")


def test_describe_hides_credentials_in_urls() -> None:
    settings = Settings(
        providers={
            "llama": ProviderSettings(type="openai", base_url="http://bob:hunter2@h:8080/v1?api-key=k1k1k1k1")
        }
    )
    text = describe(settings, env={"OPENAI_BASE_URL": "https://u:p4ss@proxy/v1?key=sk-abcdef"})
    assert "hunter2" not in text and "k1k1k1k1" not in text and "sk-abcdef" not in text and "p4ss" not in text
    assert "base_url = http://bob:[REDACTED]@h:8080/v1?api-key=[REDACTED]" in text
    assert "OPENAI_BASE_URL = https://u:[REDACTED]@proxy/v1?key=[REDACTED]" in text


def test_unknown_keys_are_found_in_known_tables_with_the_nearest_key() -> None:
    """Every key something reads is known (no false alarm on [sandbox], [models.X],
    an MCP server's timeout); a misspelling anywhere is named with its likely meaning."""
    from shell.config import unknown_keys

    data = {
        "model": "x", "sandbox": {"hide": [], "writeable": []}, "models": {"m": {"context_window": 1}},
        "network": {"allow_private_hosts": []}, "sessions": {"titles": False},
        "notifications": {"enabled": True, "methdo": "bell"},
        "mcp_servers": {"t": {"command": "x", "timeout": 5, "transport": "stdio", "argz": []}},
        "providers": {"openai": {"base_url": "u", "api_key_env": "K"}},
        "middleware": {"enabled": [], "Timing": {}},
        "zzz": 1,
    }
    found = [(u.table, u.key, u.nearest) for u in unknown_keys(data)]
    assert found == [
        ("", "zzz", None),
        ("sandbox", "writeable", "writable"),
        ("notifications", "methdo", "method"),
        ("mcp_servers.t", "argz", "args"),
    ]


def test_an_unknown_key_is_said_inert() -> None:
    """A key's name comes from a file: its escape sequences and line breaks do nothing."""
    from shell.config import unknown_keys

    (found,) = unknown_keys({"\x1b]52;c;AAAA\x07\nfake": 1})
    assert "\x1b" not in found.text() and "\n" not in found.text()
