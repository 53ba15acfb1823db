"""The programs agent-shell runs itself (outside the sandbox) are never a repository's:
a relative or empty PATH entry, or one inside the workspace, is not searched (K18)."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from shell.core import programs
from shell.core.programs import resolve, search_path, which


def _plant(folder: Path, name: str, marker: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    program = folder / name
    program.write_text(f"#!/bin/sh\ntouch {marker}\nexit 0\n")
    program.chmod(program.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    return program


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A cloned repository the user started agent-shell in, its PATH naming ./bin."""
    ws = tmp_path / "clone"
    ws.mkdir()
    monkeypatch.chdir(ws)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    return ws


def test_relative_and_empty_entries_are_not_searched(repo: Path, tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    marker = tmp_path / "ran"
    _plant(repo / "bin", "bwrap", marker)
    _plant(repo / "node_modules" / ".bin", "git", marker)
    _plant(repo, "tmux", marker)
    monkeypatch.setenv("PATH", os.pathsep.join(["./bin", "node_modules/.bin", "", "/usr/bin", "/bin"]))
    for name in ("bwrap", "git", "tmux"):
        found = which(name)
        assert found is None or not Path(found).resolve().is_relative_to(repo), f"{name}: {found}"
    assert search_path() == os.pathsep.join(["/usr/bin", "/bin"])
    assert not marker.exists()


def test_an_absolute_entry_inside_the_workspace_is_not_searched(repo: Path, tmp_path: Path,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    """direnv's ``PATH_add bin`` puts the workspace's bin on PATH as an absolute path."""
    _plant(repo / "bin", "espeak-ng", tmp_path / "ran")
    monkeypatch.setenv("PATH", os.pathsep.join([str(repo / "bin"), "/usr/bin"]))
    found = which("espeak-ng")
    assert found is None or not found.startswith(str(repo))


def test_bin_folders_in_home_are_the_users_own_when_started_at_home(tmp_path: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    home = tmp_path / "home"
    own = _plant(home / ".local" / "bin", "my-editor", tmp_path / "ran")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.chdir(home)
    monkeypatch.setenv("PATH", os.pathsep.join([str(home / ".local" / "bin"), "/usr/bin"]))
    assert which("my-editor") == str(own)
    assert resolve(["my-editor", "-n"]) == [str(own), "-n"]


def test_a_program_found_only_in_the_workspace_is_not_run(repo: Path, tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    marker = tmp_path / "ran"
    _plant(repo / "bin", "vim-ish", marker)
    monkeypatch.setenv("PATH", os.pathsep.join(["./bin", "/usr/bin"]))
    with pytest.raises(FileNotFoundError, match="vim-ish was found only at") as caught:
        resolve(["vim-ish", "file"])
    assert f"Name it by its absolute path instead: {repo / 'bin' / 'vim-ish'}" in str(caught.value)
    assert not marker.exists()
    with pytest.raises(FileNotFoundError, match=r"^nowhere-ish is not on PATH$"):
        resolve(["nowhere-ish"])


@pytest.mark.anyio
async def test_an_mcp_server_only_in_the_projects_venv_says_to_name_it_by_its_absolute_path(
    repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The project's activated .venv/bin is on PATH, absolute, inside the start folder."""
    from shell.tools.mcp_results import describe_error
    from shell.tools.mcp_stdio import StderrTail, stdio

    server = _plant(repo / ".venv" / "bin", "my-mcp-server", tmp_path / "ran")
    monkeypatch.setenv("PATH", os.pathsep.join([str(repo / ".venv" / "bin"), "/usr/bin", "/bin"]))
    with pytest.raises(Exception) as caught:
        async with stdio("mine", "my-mcp-server", [], {}, str(repo), StderrTail()):
            pass
    said = describe_error(caught.value)
    assert said.startswith("command not found: my-mcp-server was found only at")
    assert said.endswith(f"Name it by its absolute path instead: {server}")
    assert not (tmp_path / "ran").exists()


def test_the_sandbox_probe_does_not_run_a_repositorys_bwrap(repo: Path, tmp_path: Path,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    """The probe ran at every start, before any trust question: a clone's ./bin/bwrap
    ran as the user and could then drop the sandbox from every command."""
    from shell.permissions import sandbox
    from shell.permissions import sandboxprobe as module

    marker = tmp_path / "PWNED_BWRAP"
    _plant(repo / "bin", "bwrap", marker)
    monkeypatch.setenv("PATH", os.pathsep.join(["./bin", os.environ.get("PATH", "/usr/bin")]))
    module._probe.cache_clear()
    monkeypatch.setattr(module, "_ahead", None)
    try:
        module.probe_ahead()
        module.sandbox_status()
        argv = sandbox.Sandbox(repo).wrap(["true"]) if hasattr(sandbox.Sandbox, "wrap") else []
    finally:
        module._probe.cache_clear()
        if module._ahead is not None:
            module._ahead.communicate()
            module._ahead = None
    assert not marker.exists(), "the repository's bin/bwrap ran"
    assert not argv or not argv[0].startswith(str(repo))


def test_a_user_mcp_server_is_not_taken_from_the_workspace(repo: Path, tmp_path: Path,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    import anyio

    from shell.tools.mcp import McpManager

    marker = tmp_path / "PWNED_NPX"
    _plant(repo / "node_modules" / ".bin", "npx", marker)
    monkeypatch.setenv("PATH", os.pathsep.join(["./node_modules/.bin", "/usr/bin", "/bin"]))

    async def start() -> str:
        servers = {"fs": {"command": "npx", "args": ["-y", "server"]}}
        async with McpManager(servers, connect_timeout=10) as mcp:
            await mcp.wait_settled(20)
            return mcp.status("fs").state

    state = anyio.run(start)
    assert not marker.exists(), "the workspace's node_modules/.bin/npx ran"
    if not (Path("/usr/bin/npx").exists() or Path("/bin/npx").exists()):
        assert state == "failed"


def test_a_folder_sandboxed_commands_may_write_is_not_searched(tmp_path: Path,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    """`--add-dir ~/dotfiles` with ~/dotfiles/bin on PATH: a sandboxed command wrote
    bin/bwrap there and the next command ran through it, as the user (L2). The editor
    starts `agent-shell acp` elsewhere, so the start folder alone does not say it."""
    from shell.permissions.sandbox import Sandbox

    elsewhere, ws, dots = tmp_path / "editor-cwd", tmp_path / "ws", tmp_path / "dots"
    for folder in (elsewhere, ws):
        folder.mkdir()
    monkeypatch.chdir(elsewhere)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    _plant(dots / "bin", "bwrap", tmp_path / "ran")
    _plant(ws / "bin", "git", tmp_path / "ran")
    monkeypatch.setenv("PATH", os.pathsep.join([str(dots / "bin"), str(ws / "bin"), "/usr/bin", "/bin"]))
    assert which("bwrap") == str(dots / "bin" / "bwrap")  # before: nothing says they are writable
    box = Sandbox(ws)
    box.add_dir(dots)
    for name in ("bwrap", "git"):
        found = which(name)
        assert found is None or not found.startswith(str(tmp_path)), f"{name}: {found}"


def test_programs_run_on_the_host_get_no_loader_entry_the_workspace_could_fill(tmp_path: Path) -> None:
    """Finding W6: an empty ``LD_LIBRARY_PATH`` entry (the folder a program runs in), a
    relative one, or one inside a folder sandboxed commands may write loads a library a
    command planted there; a bare ``LD_PRELOAD`` name is searched as any library."""
    ws = tmp_path / "ws"
    (ws / "build").mkdir(parents=True)
    programs.writable_by_commands(ws)
    env = programs.host_environment({
        "LD_LIBRARY_PATH": f":/usr/local/lib:lib;.:{ws}/build:/opt/x/lib",
        "LD_PRELOAD": "./p.so libj.so.2 /opt/a.so", "LD_AUDIT": f"{ws}/build/a.so", "PATH": "/usr/bin",
    }, here=str(tmp_path / "elsewhere"))
    assert env == {"LD_LIBRARY_PATH": "/usr/local/lib:/opt/x/lib", "LD_PRELOAD": "libj.so.2:/opt/a.so",
                   "PATH": "/usr/bin"}


def test_host_programs_get_pythonpath_without_entries_that_name_the_workspace(tmp_path: Path) -> None:
    """An empty or relative ``PYTHONPATH`` entry names the folder a host program starts
    in, and an absolute one may lie in the workspace: a ``tomllib.py`` planted there ran
    in every Python agent-shell started on the host (finding A10)."""
    ws = tmp_path / "ws"
    (ws / "src").mkdir(parents=True)
    programs.writable_by_commands(ws)
    env = programs.host_environment({"PYTHONPATH": f":src:/opt/pylib:{ws}/src:", "PATH": "/usr/bin"},
                                    here=str(tmp_path / "elsewhere"))
    assert env == {"PYTHONPATH": "/opt/pylib", "PATH": "/usr/bin"}
    assert "PYTHONPATH" not in programs.host_environment({"PYTHONPATH": ":."})
