"""The keys people export in their shell's start-up files (``~/.bashrc``, ``~/.zshrc``,
fish's ``fish_variables``…) are not readable by a sandboxed command, which runs unasked
in auto mode and whose output goes to the model's provider: the environment scrub
removes ``OPENAI_API_KEY``, so the file that sets it must not hand it over. Ordinary
commands, and shells started as login or interactive shells, still work. Run as root,
a command does not read the password hashes either. Against the real bubblewrap."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from shell.permissions.sandbox import Sandbox
from shell.tools.shell_cmd import run_command

from ..sandboxing import require_sandbox
from .home_setup import cat_in_sandbox, plant, sandbox_home

pytestmark = pytest.mark.anyio

STARTUP = [
    ".bashrc", ".bash_profile", ".profile", ".zshrc", ".zshenv", ".zprofile", ".bashrc.d/keys.sh",
    ".config/fish/config.fish", ".config/fish/fish_variables", ".config/fish/conf.d/keys.fish",
    ".config/nushell/env.nu", ".pam_environment", ".config/environment.d/keys.conf", ".config/zsh/.zshrc",
]  # fmt: skip


@pytest.fixture
def home(monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    yield from sandbox_home(monkeypatch, ".agent-shell-test-startup-")


async def test_keys_exported_in_shell_start_up_files_are_not_readable(home: Path) -> None:
    require_sandbox()
    plant(home, STARTUP, lambda rel: f"export OPENAI_API_KEY=sk-proj-STARTUP-{rel}\n")
    (home / ".inputrc").write_text("PLAIN-inputrc\n")
    text = await cat_in_sandbox(home, STARTUP, then="cat .inputrc")
    leaked = [rel for rel in STARTUP if f"STARTUP-{rel}" in text]
    assert leaked == [], text
    assert "PLAIN-inputrc" in text and "end" in text, text
    for rel in STARTUP:  # the user's own files are untouched
        assert (home / rel).read_text() == f"export OPENAI_API_KEY=sk-proj-STARTUP-{rel}\n"


async def test_zsh_files_in_zdotdir_are_hidden_too(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    require_sandbox()
    zdot = home / "zdot"
    zdot.mkdir()
    (zdot / ".zshrc").write_text("export ANTHROPIC_API_KEY=sk-ant-ZDOTDIR\n")
    monkeypatch.setenv("ZDOTDIR", str(zdot))
    box = Sandbox(home / "project")
    script = f"cat '{zdot}/.zshrc'; echo end"
    result = await run_command(script, box.workspace, 30, lambda _: None, sandbox=box)
    assert "ZDOTDIR" not in result.text and "end" in result.text, result.text


async def test_login_and_interactive_shells_still_run_commands(home: Path) -> None:
    require_sandbox()
    (home / ".bashrc").write_text("export OPENAI_API_KEY=sk-proj-RC\n")
    (home / ".profile").write_text("export OPENAI_API_KEY=sk-proj-PROFILE\n")
    box = Sandbox(home / "project")
    script = "bash -lc 'echo login-ok'; bash -ic 'echo interactive-ok' 2>/dev/null; echo key=$OPENAI_API_KEY"
    # /etc/profile and /etc/bash.bashrc (bash-completion) run too: slow on a loaded machine
    result = await run_command(script, box.workspace, 120, lambda _: None, sandbox=box)
    assert "login-ok" in result.text and "interactive-ok" in result.text, result.text
    assert "sk-proj" not in result.text, result.text


def _shadow() -> str:
    if os.getuid() != 0 or not os.path.exists("/etc/shadow"):
        pytest.skip("only root can read /etc/shadow")
    return Path("/etc/shadow").read_text()


async def test_a_command_run_as_root_does_not_read_the_password_hashes() -> None:
    require_sandbox()
    hashes = _shadow()
    assert hashes.strip()
    with tempfile.TemporaryDirectory() as ws:
        box = Sandbox(ws)
        script = "cat /etc/shadow /etc/gshadow; echo end"
        result = await run_command(script, box.workspace, 30, lambda _: None, sandbox=box)
    first = hashes.splitlines()[0]
    assert first not in result.text and "end" in result.text, result.text
