"""Secret files deep in home's dot folders, ``~/.config`` and ``~/.local/share`` (tester
round 11, Q8), against the real bubblewrap: the depth of a folder is no limit (a
dotfiles repository, chezmoi's source folder, an app's nested settings), and a secret
file created there while the agent works is hidden from the next command."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from shell.permissions.homewalk import HomeFiles
from shell.permissions.sandbox import Sandbox
from shell.tools.shell_cmd import run_command

from ..sandboxing import require_sandbox
from .home_setup import plant, sandbox_home

pytestmark = pytest.mark.anyio

DEEP = [
    ".dotfiles/env/prod/deep/.env", ".config/app/a/b/c/.env", ".local/share/app/x/y/z/credentials.json",
    ".local/share/chezmoi/private_dot_config/app/deep/er/token.json",
]


@pytest.fixture
def home(monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    yield from sandbox_home(monkeypatch, ".agent-shell-test-dotdepth-")


async def _run(box: Sandbox, script: str) -> str:
    result = await run_command(script, box.workspace, 60, lambda _: None, sandbox=box)
    return result.text


async def test_deep_secret_files_in_dot_folders_are_hidden_and_new_ones_by_the_next_command(
    home: Path,
) -> None:
    require_sandbox()
    plant(home, DEEP, lambda rel: f"DEEPSECRET-{rel}\n")
    plant(home, [".config/app/a/b/c/settings.json"], lambda rel: f"PLAIN-{rel}\n")
    box = Sandbox(home / "project")
    script = "grep -rh 'DEEPSECRET\\|PLAIN' ~/.dotfiles ~/.config ~/.local 2>/dev/null; echo end"
    first = await _run(box, script)
    assert "DEEPSECRET" not in first, first
    assert "PLAIN-.config/app/a/b/c/settings.json" in first and "end" in first, first
    later = [".config/app/a/token.json", ".config/app/a/b/.env"]  # the user logs in to a CLI meanwhile
    plant(home, later, lambda rel: f"NEWSECRET-{rel}\n")
    second = await _run(box, "grep -rh NEWSECRET ~/.config 2>/dev/null; echo end")
    assert "NEWSECRET" not in second and "end" in second, second
    for rel in DEEP:  # the user's own files are untouched
        assert (home / rel).read_text() == f"DEEPSECRET-{rel}\n"


def test_toolchains_in_dot_folders_are_not_walked(home: Path) -> None:
    rels = [".cargo/registry/src/x/tests/key.pem", ".rustup/toolchains/x/key.pem", ".config/tool/d/e/.env"]
    plant(home, rels, lambda _: "-----BEGIN PRIVATE KEY-----\n")
    found = HomeFiles().find([home / "project"])
    assert home / ".config" / "tool" / "d" / "e" / ".env" in found.files
    assert not [p for p in found.files if "/.cargo/" in str(p) or "/.rustup/" in str(p)]
    assert not [c for c in found.covered if str(c).startswith(str(home))]
