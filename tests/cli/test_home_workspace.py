"""Started in the home directory (or ``/``, or anything holding home, or ``~/.config``),
``accept-edits`` and ``auto`` run nothing unasked: nearly every file there runs as
the user later (``~/.bashrc``, ``~/.profile``, ``~/.config/autostart``,
``~/.local/bin``), outside any sandbox, and no runs-later list covers them all."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from shell.core.tools import Tool
from shell.permissions.policy import PermissionPolicy
from shell.tools.builtin import builtin_tools
from shell.tools.workspace import Workspace

from .conftest import RunCli

PLANT = ("echo 'echo PWNED' >> .bashrc; echo x >> .profile; mkdir -p .config/autostart .local/bin && "
         "echo x > .config/autostart/x.desktop && echo x > .local/bin/ls")


def tools(root: Path) -> dict[str, Tool]:
    return {t.name: t for t in builtin_tools(Workspace(root))}


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "home"
    (home / "project").mkdir(parents=True)
    (home / ".config" / "nvim").mkdir(parents=True)
    monkeypatch.setenv("HOME", str(home))
    return home


@pytest.mark.parametrize("mode", ["accept-edits", "auto"])
def test_edits_and_commands_ask_when_the_workspace_holds_home(home: Path, mode: str) -> None:
    for root in (home, home.parent, Path("/"), home / ".config"):
        p = PermissionPolicy(root, mode=mode, sandboxed=lambda _: True, load_project=False)
        t = tools(root)
        edit = p.decide(t["write_file"], {"path": "autostart/x.desktop", "content": "x"})
        assert edit.action == "ask", root
        assert f"{mode} mode runs nothing unasked here" in edit.reason and "~/.bashrc" in edit.reason
        command = p.decide(t["run_shell"], {"command": PLANT})
        assert command.action == "ask", root
        assert "(it asks here: the workspace" in p.describe_mode()
    for root in (home / "project", home / ".config" / "nvim"):  # a project inside home: as anywhere
        p = PermissionPolicy(root, mode=mode, sandboxed=lambda _: True, load_project=False)
        assert p.decide(tools(root)["write_file"], {"path": "a.txt", "content": "x"}).action == "allow"
        assert p.describe_mode().count("asks here") == 0
    bypass = PermissionPolicy(home, mode="bypass", load_project=False)  # bypass is bypass
    assert bypass.decide(tools(home)["write_file"], {"path": ".bashrc", "content": ""}).action == "allow"


def test_auto_started_in_home_plants_nothing_and_says_why(
    run_cli: RunCli, cli_env: dict[str, str], workspace: Path, script: Callable[[list[Any]], str]
) -> None:
    """The finding's run: `cd ~; agent-shell -p hi --permission-mode auto --approve
    never`, the model's one command plants start-up files. It is refused (auto asks
    here, and nobody answers), stderr says why at start, and nothing was written."""
    cli_env["HOME"] = str(workspace)
    turns = [{"tool_calls": [{"name": "run_shell", "args": {"command": PLANT}},
                             {"name": "write_file", "args": {"path": ".zshrc", "content": "echo PWNED\n"}}]},
             "Done."]
    r = run_cli("-p", "hi", "--model", script(turns), "--permission-mode", "auto", "--approve", "never",
                "--no-session", "--output-format", "json")
    assert r.returncode == 0, r.stderr
    for planted in (".bashrc", ".profile", ".config", ".local", ".zshrc"):
        assert not (workspace / planted).exists(), planted
    assert "auto mode runs nothing unasked here: the workspace" in r.stderr
    assert "is your home directory" in r.stderr
    results = [m for m in json.loads(r.stdout)["messages"] if m.get("role") == "tool"]
    assert len(results) == 2 and all(m["is_error"] and "not run" in json.dumps(m["content"]) for m in results)


@pytest.mark.parametrize("mode", ["accept-edits", "auto"])
def test_a_workspace_that_is_a_folder_of_path_asks(home: Path, mode: str,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """Round 9's note: with ~/bin itself as the workspace, auto changed ~/bin/mytool unasked,
    and it runs as the user whenever they type its name."""
    bin_dir = home / "bin"
    bin_dir.mkdir()
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}/usr/bin{os.pathsep}.")
    p = PermissionPolicy(bin_dir, mode=mode, sandboxed=lambda _: True, load_project=False)
    for tool, args in (("write_file", {"path": "mytool", "content": "id\n"}),
                       ("run_shell", {"command": "echo id >> mytool"})):
        found = p.decide(tools(bin_dir)[tool], args)
        assert found.action == "ask", found
        assert "is a folder of your PATH" in found.reason or (mode != "auto" and tool == "run_shell"), found
    monkeypatch.setenv("PATH", f"~/bin{os.pathsep}/usr/bin")  # bash expands the ~ (P11)
    tilde = PermissionPolicy(bin_dir, mode=mode, sandboxed=lambda _: True, load_project=False)
    assert "is a folder of your PATH" in tilde.decide(tools(bin_dir)["write_file"],
                                                       {"path": "mytool", "content": "id\n"}).reason
    project = home / "project"  # "." in PATH makes no workspace one
    q = PermissionPolicy(project, mode=mode, sandboxed=lambda _: True, load_project=False)
    assert q.decide(tools(project)["write_file"], {"path": "a.txt", "content": "x"}).action == "allow"
