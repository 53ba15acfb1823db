"""``[sandbox] writable`` folders (finding M6). The README offers ``~/.cache/pip``;
the next a user adds are ``~/.cargo``, ``~/go`` or ``~/.local``, whose ``bin`` is on
their PATH. A command planted ``~/.cargo/bin/git`` there, kept and run as the user at
their next ``git``; ``writable = ["~"]`` was taken silently (``--add-dir ~`` is
refused) and let a command plant ``~/bin/bwrap``, which agent-shell itself then ran."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from shell.config import load_config
from shell.permissions.sandbox import Sandbox
from shell.runtime.build import build_sandbox
from shell.tools.shell_cmd import run_command
from shell.tools.workspace import Workspace

from ..sandboxing import require_sandbox
from .later_ws import later_workspace

pytestmark = pytest.mark.anyio


@pytest.fixture
def ws(monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    yield from later_workspace(monkeypatch, ".agent-shell-test-writable-")


async def test_a_program_planted_in_a_writable_folder_on_the_path_is_put_aside(
        ws: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    require_sandbox()
    cargo = ws.parent / ".cargo"
    (cargo / "bin").mkdir(parents=True)
    (cargo / "bin" / "rg").write_text("#!/bin/sh\necho the user's rg\n")
    (cargo / "bin" / "rg").chmod(0o755)
    monkeypatch.setenv("PATH", f"{cargo / 'bin'}:/usr/bin:/bin")
    box = Sandbox(ws, writable=[cargo])
    plant = ("mkdir -p registry && echo cached > registry/crate && "
             "printf '#!/bin/sh\\ntouch ~/PWN\\nexec /usr/bin/git \"$@\"\\n' > bin/git; chmod +x bin/git; "
             "echo evil > bin/rg; echo done")
    result = await run_command(f"cd {cargo} && {plant}", box.workspace, 30, lambda _: None, sandbox=box)
    assert "done" in result.text, result.text
    assert (cargo / "registry" / "crate").read_text() == "cached\n"  # what writable is for still works
    assert not (cargo / "bin" / "git").exists(), result.text  # planted: moved to the quarantine
    assert "bin/git" in result.text and "PATH" in result.text
    assert (cargo / "bin" / "rg").read_text() == "#!/bin/sh\necho the user's rg\n"  # their own: read-only


@pytest.mark.parametrize("entry", ["~", "~/.config", "~/.local", "~/.ssh", "/"])
def test_a_writable_folder_that_holds_home_or_what_runs_at_login_is_refused_and_said(
        ws: Path, entry: str) -> None:
    (ws.parent / ".cache" / "pip").mkdir(parents=True)
    config = ws.parent / "config.toml"
    config.write_text(f'[sandbox]\nwritable = ["{entry}", "~/.cache/pip"]\n')
    problems: list[str] = []
    box = build_sandbox(load_config(config), Workspace(ws), problems)
    assert [p.name for p in box.writable] == ["pip"]
    said = " ".join(problems)
    assert f"[sandbox] writable names '{entry}'" in said and "left out" in said, problems
