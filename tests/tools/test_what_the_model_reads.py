"""What the file tools hand the model of files that hold credentials: an edit of
``.env`` does not return its old lines, and a git config is read without the token
in its remote URL (the sandbox took it out for commands; ``read_file`` handed it
over unasked in every mode)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from shell.permissions.policy import PermissionPolicy
from shell.tools.builtin import builtin_tools
from shell.tools.workspace import Workspace

from .conftest import Call

pytestmark = pytest.mark.anyio

TOKEN = "ghp_abcdefghijklmnopqrstuvwxyz0123456789"
KEY = "sk-live-EXFIL1234567890abcdef"
CONFIG = f"""[core]
\trepositoryformatversion = 0
[remote "origin"]
\turl = https://bob:{TOKEN}@github.com/x/y.git
\tfetch = +refs/heads/*:refs/remotes/origin/*
[http]
\textraheader = AUTHORIZATION: bearer {TOKEN}
"""


async def test_read_and_grep_of_a_git_config_leave_the_token_out(workspace: Workspace, call: Call) -> None:
    git = workspace.root / ".git"
    git.mkdir()
    (git / "config").write_text(CONFIG)
    os.symlink(".git/config", workspace.root / "notes.txt")  # another name for it
    for path in (".git/config", "notes.txt"):
        read = await call("read_file", path=path)
        assert TOKEN not in read.text, path
        assert "url = https://github.com/x/y.git" in read.text  # the remote is still there
        assert "credentials in this git config (2 lines)" in read.text
    found = await call("grep", pattern="url|extraheader", path=".git/config")
    assert TOKEN not in found.text and "github.com/x/y.git" in found.text
    assert "credentials in this git config" in found.text
    (git / "config").write_text("[core]\n\tbare = false\n")  # nothing to take out: no note
    assert "credentials" not in (await call("read_file", path=".git/config")).text


async def test_a_git_config_edit_diff_has_no_token(workspace: Workspace, call: Call) -> None:
    git = workspace.root / ".git"
    git.mkdir()
    (git / "config").write_text(CONFIG)
    edited = await call("edit_file", path=".git/config", old_string="repositoryformatversion = 0",
                        new_string="repositoryformatversion = 1")
    assert TOKEN not in edited.text and "+\trepositoryformatversion = 1" in edited.text


async def test_an_edit_of_env_tells_the_model_no_old_lines(workspace: Workspace, call: Call) -> None:
    (workspace.root / ".env").write_text(f"API_KEY={KEY}\nDB_PASSWORD=hunter2EXFIL\n")
    edited = await call("edit_file", path=".env", old_string="API_KEY", new_string="API_KEY2")
    assert KEY not in edited.text and "hunter2EXFIL" not in edited.text
    assert "the diff is not shown: .env usually holds secrets" in edited.text
    assert KEY in edited.details["diff"]  # the user's own view keeps it
    (workspace.root / "sub").mkdir()
    os.symlink("../.env", workspace.root / "sub" / "data.txt")
    wrote = await call("write_file", path="sub/data.txt", content="x\n")
    assert KEY not in wrote.text and "hunter2EXFIL" not in wrote.text


@pytest.mark.parametrize("mode", ["accept-edits", "auto"])
def test_edits_of_secret_files_ask_in_every_mode_but_bypass(tmp_path: Path, mode: str) -> None:
    (tmp_path / ".env").write_text(f"API_KEY={KEY}\n")
    (tmp_path / "sub").mkdir()
    os.symlink("../.env", tmp_path / "sub" / "data.txt")
    tools = {t.name: t for t in builtin_tools(Workspace(tmp_path))}
    policy = PermissionPolicy(tmp_path, mode=mode, user_config=tmp_path / "c.toml", load_project=False)
    for name, args in [("edit_file", {"path": ".env", "old_string": "A", "new_string": "B"}),
                       ("write_file", {"path": "config/.env.production", "content": ""}),
                       ("write_file", {"path": "sub/data.txt", "content": "x"})]:
        verdict = policy.decide(tools[name], args)
        assert verdict.action == "ask", (name, args)
        assert "usually holds secrets" in verdict.reason and "would change" in verdict.reason
    assert policy.decide(tools["write_file"], {"path": "notes.md", "content": ""}).action == "allow"
    bypass = PermissionPolicy(tmp_path, mode="bypass", user_config=tmp_path / "c.toml", load_project=False)
    assert bypass.decide(tools["write_file"], {"path": ".env", "content": ""}).action == "allow"


async def test_a_separate_git_dirs_config_is_read_without_the_token(workspace: Workspace, call: Call) -> None:
    """`git init --separate-git-dir=.gitdata`: its config is a git config by what is
    beside it (HEAD, objects/), whatever the folder's name."""
    data = workspace.root / ".gitdata"
    (data / "objects").mkdir(parents=True)
    (data / "HEAD").write_text("ref: refs/heads/main\n")
    (data / "config").write_text(CONFIG)
    (workspace.root / "other").mkdir()
    (workspace.root / "other" / "config").write_text(f"token = {TOKEN}\n")  # not a git dir: as it is
    read = await call("read_file", path=".gitdata/config")
    assert TOKEN not in read.text and "github.com/x/y.git" in read.text
    found = await call("grep", pattern="url", path=".")
    assert TOKEN not in found.text
    assert TOKEN in (await call("read_file", path="other/config")).text
