"""A deny or ask rule under a misspelt key stops every front end (finding E11): a warning
scrolled away and ``rm`` ran with ``--approve always``, while the user believed it denied.
The README's promise for an unreadable deny rule (exit 2, naming the fix) holds for a rule
written where nothing reads it; a misspelt ``allow`` stays a warning (only more questions)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from .conftest import RunCli

Script = Callable[[list[Any]], str]

RM = [{"text": "Removing.", "tool_calls": [{"name": "run_shell", "args": {"command": "rm -f precious.txt"}}]},
      "Done."]


def _config(cli_env: dict[str, str], text: str) -> None:
    config = Path(cli_env["AGENT_SHELL_CONFIG_DIR"])
    config.mkdir(parents=True, exist_ok=True)
    (config / "config.toml").write_text(text)


@pytest.mark.parametrize(
    ("text", "named", "fix"),
    [
        ('[permission]\ndeny = ["run_shell(rm:*)"]\n', "unknown key `permission`",
         "rename it to `permissions`"),
        ('[permissions]\ndenny = ["run_shell(rm:*)"]\n', "unknown key `denny` under [permissions]",
         "rename it to `deny`"),
        ('[permissions]\naks = ["run_shell(rm:*)"]\n', "unknown key `aks` under [permissions]",
         "rename it to `ask`"),
        ('[permisions]\nmode = "plan"\n', "unknown key `permisions`", "rename it to `permissions`"),
        ('block = ["run_shell(rm:*)"]\n', "unknown key `block`", "move its rules into [permissions]"),
    ],
)
def test_headless_stops_before_running_anything(
    run_cli: RunCli, script: Script, cli_env: dict[str, str], workspace: Path, text: str, named: str, fix: str
) -> None:
    (workspace / "precious.txt").write_text("keep me\n")
    _config(cli_env, text)
    r = run_cli("-p", "clean up", "--approve", "always", "--no-session", "--model", script(RM))
    assert r.returncode == 2, (r.stdout, r.stderr)
    assert named in r.stderr and fix in r.stderr, r.stderr
    assert "config.toml" in r.stderr, r.stderr
    assert (workspace / "precious.txt").read_text() == "keep me\n"
    assert "Removing" not in r.stdout


def test_a_misspelt_allow_is_only_a_warning(
    run_cli: RunCli, script: Script, cli_env: dict[str, str]
) -> None:
    _config(cli_env, '[permissions]\nallwo = ["run_shell(ls:*)"]\n')
    r = run_cli("-p", "hi", "--no-session", "--model", script(["ok"]))
    assert r.returncode == 0, r.stderr
    assert r.stdout == "ok\n"
    assert "unknown key `allwo` under [permissions] is ignored; did you mean `allow`?" in r.stderr


@pytest.mark.parametrize("front_end", [["--plain"], []], ids=["plain", "tui"])
def test_line_mode_and_tui_stop_with_the_fix(
    terminal: Any, script: Script, cli_env: dict[str, str], workspace: Path, front_end: list[str]
) -> None:
    (workspace / "precious.txt").write_text("keep me\n")
    _config(cli_env, '[permissions]\ndenny = ["run_shell(rm:*)"]\n')
    t = terminal(*front_end, "--no-session", "--permission-mode", "bypass", "--model", script(RM),
                 columns=240)
    t.expect("rename it to `deny`")
    assert t.close() == 2
    assert "unknown key `denny` under [permissions]" in " ".join(t.text.split())
    assert (workspace / "precious.txt").read_text() == "keep me\n"
