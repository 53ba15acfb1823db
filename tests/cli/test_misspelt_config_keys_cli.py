"""A misspelt config key is said at start, in every front end, with the key it was
probably meant to be (finding B10): ``[permisions] mode = "plan"`` silently ran in
the default mode, the user believing nothing would be written."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from shell.plain import PROMPT

from .conftest import RunCli

Script = Callable[[list[Any]], str]

MISSPELT = (
    'modle = "anthropic:claude"\n'
    '[mcp_server.time]\ncommand = "uvx"\n'
    '[permisions]\nallow = ["read_file"]\n'  # only allow: said, not refused (E11)
    '[providers.openai]\nbase_ulr = "http://127.0.0.1:1/v1"\n'
    "[sandbox]\nhide = []\n"  # known: read by the sandbox's builder, never flagged
)
WARNINGS = (
    "unknown key `modle` is ignored; did you mean `model`?",
    "unknown key `mcp_server` is ignored; did you mean `mcp_servers`?",
    "unknown key `permisions` is ignored; did you mean `permissions`?",
    "unknown key `base_ulr` under [providers.openai] is ignored; did you mean `base_url`?",
)


def _write_config(cli_env: dict[str, str]) -> None:
    config = Path(cli_env["AGENT_SHELL_CONFIG_DIR"])
    config.mkdir(parents=True, exist_ok=True)
    (config / "config.toml").write_text(MISSPELT)


def test_headless_warns_once_per_misspelt_key_and_still_answers(
    run_cli: RunCli, script: Script, cli_env: dict[str, str]
) -> None:
    _write_config(cli_env)
    r = run_cli("-p", "hi", "--model", script(["ok"]))
    assert r.returncode == 0, r.stderr
    assert r.stdout == "ok\n"
    for warning in WARNINGS:
        assert r.stderr.count(warning) == 1, (warning, r.stderr)
    assert "sandbox" not in r.stderr


def test_config_subcommand_lists_the_nested_unknown_keys_too(
    run_cli: RunCli, cli_env: dict[str, str]
) -> None:
    _write_config(cli_env)
    r = run_cli("config")
    assert r.returncode == 0, r.stderr
    for warning in WARNINGS:
        assert warning in r.stdout, (warning, r.stdout)
    assert "sandbox = {'hide': []}" in r.stdout
    assert "sandbox = {'hide': []} (unknown" not in r.stdout  # a table the shell reads is not "unknown"


def test_line_mode_says_it_under_the_banner(terminal: Any, script: Script, cli_env: dict[str, str]) -> None:
    _write_config(cli_env)
    t = terminal("--plain", "--no-session", "--model", script(["unused"]), columns=240)
    t.expect("did you mean `base_url`?")
    t.expect(PROMPT.strip())
    t.send("/quit\r")
    t.close()
    for warning in WARNINGS:
        assert warning in " ".join(t.text.split()), warning
