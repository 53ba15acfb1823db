"""``--add-dir DIR`` and ``/add-dir DIR``: more directories that count as the workspace
(the fence, the policy's "inside", the sandbox's writable binds), against the real
console script, a real runtime and the real bubblewrap."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from shell.commands import CommandResult, default_commands
from shell.config import Settings
from shell.providers.scripted import ScriptedModel
from shell.runtime import RuntimeOptions, ShellError, ShellRuntime
from tests.homes import made_home

from ..sandboxing import require_sandbox
from .conftest import RunCli

Script = Callable[[list[Any]], str]


@pytest.fixture
def other() -> Iterator[Path]:
    """A directory outside the workspace and outside /tmp (the sandbox's /tmp is its own)."""
    base = made_home(".agent-shell-test-added-")
    try:
        yield base
    finally:
        shutil.rmtree(base, ignore_errors=True)


def tool_results(stdout: str) -> str:
    data = json.loads(stdout)
    return "\n".join(json.dumps(m.get("content")) for m in data["messages"] if m.get("role") == "tool")


def test_a_bad_directory_exits_2_with_what_to_do(run_cli: RunCli, workspace: Path) -> None:
    missing = run_cli("-p", "hi", "--model", "demo", "--add-dir", "no/such/dir")
    assert missing.returncode == 2
    assert "--add-dir no/such/dir" in missing.stderr and "does not exist" in missing.stderr
    assert "give an existing directory" in missing.stderr
    (workspace / "a-file").write_text("x")
    a_file = run_cli("-p", "hi", "--model", "demo", "--add-dir", "a-file")
    assert a_file.returncode == 2 and "is not a directory" in a_file.stderr
    tui = run_cli("--add-dir", "/no/such/dir")  # before any screen
    assert tui.returncode == 2 and "does not exist" in tui.stderr


def test_edits_in_an_added_directory_are_inside_the_workspace(
    run_cli: RunCli, script: Script, other: Path
) -> None:
    turns = [{"tool_calls": [{"name": "write_file", "args": {"path": str(other / "a.txt"), "content": "A"}}]},
             "Done."]
    args = ("-p", "go", "--permission-mode", "accept-edits", "--approve", "never", "--no-session",
            "--output-format", "json")
    refused = run_cli(*args, "--model", script(turns))
    assert refused.returncode == 0, refused.stderr
    assert not (other / "a.txt").exists()  # outside: the fence asks, and never says no
    added = run_cli(*args, "--model", script(turns), "--add-dir", str(other))
    assert added.returncode == 0, added.stderr
    assert (other / "a.txt").read_text() == "A"


def test_sandboxed_commands_may_write_an_added_directory_and_its_secrets_are_hidden(
    run_cli: RunCli, script: Script, other: Path
) -> None:
    require_sandbox()
    (other / ".env").write_text("DATABASE=plain-marker-added-42\n")
    (other / ".git" / "hooks").mkdir(parents=True)
    command = (f"echo made > {other}/made.txt; grep -r DATABASE {other}; "
               f"echo 'curl evil' > {other}/.git/hooks/pre-commit; echo end")
    turns = [{"tool_calls": [{"name": "run_shell", "args": {"command": command}}]}, "Done."]
    r = run_cli("-p", "go", "--model", script(turns), "--permission-mode", "auto", "--approve", "never",
                "--no-session", "--output-format", "json", "--add-dir", str(other))
    assert r.returncode == 0, r.stderr
    out = tool_results(r.stdout)
    assert "end" in out
    assert (other / "made.txt").read_text() == "made\n"
    assert "plain-marker-added-42" not in out and "read as empty in this command" in out
    assert not (other / ".git" / "hooks" / "pre-commit").exists()


# -- /add-dir, in every front end (the shared command registry) ---------------------------------


@pytest.fixture
def runtime(tmp_path: Path) -> ShellRuntime:
    (tmp_path / "ws").mkdir()
    return ShellRuntime.create(
        RuntimeOptions(cwd=str(tmp_path / "ws"), record=False),
        settings=Settings(path=tmp_path / "none.toml"), model=ScriptedModel(["hi"]),
    )


async def run(runtime: ShellRuntime, line: str) -> CommandResult:
    return await default_commands().run(runtime, line)


@pytest.mark.anyio
async def test_slash_add_dir_adds_without_asking_and_is_shown(runtime: ShellRuntime, other: Path) -> None:
    write = next(t for t in runtime.agent.tools if t.name == "write_file")
    args = {"path": str(other / "b.txt"), "content": "B"}
    assert runtime.workspace.outside(write, args) is not None
    result = await run(runtime, f"/add-dir {other}")
    assert not result.error and f"Added `{other}`" in result.text
    assert runtime.workspace.outside(write, args) is None  # no outside question any more
    runtime.permissions.mode = "accept-edits"
    assert runtime.permissions.decide(write, args).action == "allow"
    assert runtime.sandbox is not None and other in runtime.sandbox.added
    for line in ("/add-dir", "/permissions", "/trust"):
        assert f"added for this run: `{other}`" in (await run(runtime, line)).text, line
    again = await run(runtime, f"/add-dir {other}")
    assert "in the workspace already" in again.text and runtime.workspace.added == [other]


@pytest.mark.anyio
async def test_slash_add_dir_refuses_what_is_not_a_directory(runtime: ShellRuntime, other: Path) -> None:
    result = await run(runtime, f"/add-dir {other}/missing")
    assert result.error and "does not exist" in result.text
    assert runtime.workspace.added == []
    with pytest.raises(ShellError, match="does not exist"):
        runtime.add_dir(str(other / "missing"))


@pytest.mark.anyio
async def test_the_root_and_the_home_directory_cannot_be_added(
    runtime: ShellRuntime, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """`/add-dir /` was accepted without a word: sandboxed commands could then write
    ~/.bashrc, and the secret-file search walked /proc. The root, the home directory
    and anything holding it are refused, saying what to add instead; a directory
    inside home is fine."""
    home = tmp_path / "home"
    (home / "project").mkdir(parents=True)
    monkeypatch.setenv("HOME", str(home))
    for directory in ("/", str(home), str(tmp_path), "~", ""):
        result = await run(runtime, f"/add-dir '{directory}'")
        assert result.error, directory
        assert "instead" in result.text or "empty path" in result.text, result.text
    assert runtime.workspace.added == []
    added = await run(runtime, "/add-dir ~/project")
    assert not added.error and runtime.workspace.added == [(home / "project").resolve()]


def test_the_command_line_refuses_the_root_too(run_cli: RunCli) -> None:
    r = run_cli("-p", "hi", "--model", "demo", "--add-dir", "/")
    assert r.returncode == 2 and "root of the file system" in r.stderr
    empty = run_cli("-p", "hi", "--model", "demo", "--add-dir", "")
    assert empty.returncode == 2 and "needs a directory" in empty.stderr


@pytest.mark.anyio
@pytest.mark.parametrize("system", ["/etc", "/usr/lib", "/var"])
async def test_system_directories_are_refused(runtime: ShellRuntime, system: str) -> None:
    result = await run(runtime, f"/add-dir {system}")
    assert result.error and "system directory" in result.text
    assert not runtime.workspace.added


@pytest.mark.parametrize("path", ["/etc/shadow", "/etc/gshadow", "/etc/sudoers", "/etc/sudoers.d/90-users",
                                  "/etc/ssh/ssh_host_ed25519_key"])
def test_system_secrets_are_secret_files(path: str) -> None:
    from shell.core.secrets import is_secret_file

    assert is_secret_file(path)
    assert not is_secret_file("/etc/ssh/ssh_host_ed25519_key.pub") and not is_secret_file("/etc/passwd")
