"""A token in a git remote URL (or an ``extraHeader``, or ``~/.gitconfig``) is not
readable by a sandboxed command, which auto mode runs unasked: against the real
bubblewrap, git still works and the user's files are untouched."""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from shell.permissions.gitcreds import scrub
from shell.permissions.sandbox import Sandbox
from shell.tools.shell_cmd import run_command
from tests.homes import made_home

from ..sandboxing import require_sandbox

pytestmark = pytest.mark.anyio

TOKEN = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
GITLAB = "glpat-" + "x1Y2z3W4v5U6t7S8r9Q0"
ENV = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.org", "GIT_COMMITTER_NAME": "t",
       "GIT_COMMITTER_EMAIL": "t@example.org", "GIT_CONFIG_NOSYSTEM": "1"}


@pytest.fixture
def home(monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    base = made_home(".agent-shell-test-gitcreds-")
    monkeypatch.setenv("HOME", str(base))
    monkeypatch.setenv("AGENT_SHELL_DATA_DIR", str(base / "data"))
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    for name, value in ENV.items():
        monkeypatch.setenv(name, value)
    try:
        yield base
    finally:
        shutil.rmtree(base, ignore_errors=True)


def git(cwd: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, env={**os.environ, **ENV})


async def test_a_token_in_git_config_is_not_readable_and_git_still_works(home: Path) -> None:
    require_sandbox()
    ws = home / "project"
    ws.mkdir()
    git(ws, "init", "-q")
    git(ws, "remote", "add", "origin", f"https://octocat:{TOKEN}@github.com/octo/repo.git")
    git(ws, "config", "http.https://github.com/.extraheader", "AUTHORIZATION: basic b2N0bzpodW50ZXIy")
    (ws / "lib").mkdir()
    git(ws / "lib", "init", "-q")
    git(ws / "lib", "remote", "add", "origin", f"https://{GITLAB}@gitlab.com/g/lib.git")
    (home / ".gitconfig").write_text(f'[url "https://{TOKEN}@github.com/"]\n\tinsteadOf = gh:\n')
    (ws / "a.txt").write_text("a\n")
    config, gitconfig = (ws / ".git" / "config").read_text(), (home / ".gitconfig").read_text()
    box = Sandbox(ws)
    result = await run_command(
        "git remote -v; cat .git/config lib/.git/config ~/.gitconfig; git config --list --show-origin; "
        "git -C lib remote get-url origin; grep -r . .git/config; "
        "git add a.txt && git commit -qm one && git log --format=%s && git remote get-url origin",
        box.workspace, 30, lambda _: None, sandbox=box,
    )
    for secret in (TOKEN, GITLAB, "b2N0bzpodW50ZXIy"):
        assert secret not in result.text
    assert "https://github.com/octo/repo.git" in result.text  # the remote is still there
    assert "https://gitlab.com/g/lib.git" in result.text
    assert "one\n" in result.text and "[exit code 0]" in result.text  # git works: it committed
    # the user's own files are as they were
    assert (ws / ".git" / "config").read_text() == config
    assert (home / ".gitconfig").read_text() == gitconfig


async def test_configs_git_includes_are_scrubbed_too(home: Path) -> None:
    """Work credentials kept apart with `[includeIf "gitdir:~/work/"] path = ~/.gitconfig-work`,
    an inline credential helper, a repository's `[include] path = ../inc.cfg`: all of it
    reached the model through `git config --list` or `cat` in auto mode."""
    require_sandbox()
    ws = home / "project"
    ws.mkdir()
    git(ws, "init", "-q")
    with (ws / ".git" / "config").open("a") as fh:
        fh.write("[include]\n\tpath = ../inc.cfg\n")
    (ws / "inc.cfg").write_text(f'[remote "up"]\n\turl = https://u:{TOKEN}@github.com/x.git\n')
    (home / ".gitconfig").write_text(f'[includeIf "gitdir:{home}/"]\n\tpath = ~/.gitconfig-work\n'
                                      '[include]\n\tpath = .config/git/extra\n')
    (home / ".gitconfig-work").write_text(f'[url "https://oauth2:{GITLAB}@gitlab.example.com/"]\n'
                                          "\tinsteadOf = https://gitlab.example.com/\n"
                                          "[http]\n\textraHeader = Authorization: Bearer WORKBEARERTOKEN\n")
    (home / ".config" / "git").mkdir(parents=True)
    (home / ".config" / "git" / "extra").write_text(
        "[credential]\n\thelper = !f() { echo password=EXTRAPASSWORD; }; f\n")
    box = Sandbox(ws)
    result = await run_command(
        "git config --list --show-origin; cat ~/.gitconfig-work ~/.config/git/extra inc.cfg; git remote -v",
        box.workspace, 30, lambda _: None, sandbox=box,
    )
    for secret in (TOKEN, GITLAB, "WORKBEARERTOKEN", "EXTRAPASSWORD"):
        assert secret not in result.text, result.text
    assert "https://github.com/x.git" in result.text and "[exit code 0]" in result.text
    assert GITLAB in (home / ".gitconfig-work").read_text()  # the user's files are untouched


def test_what_is_taken_out_of_a_git_config() -> None:
    text = (f'[remote "origin"]\n\turl = https://user:{TOKEN}@github.com/a/b.git\n'
            f'[remote "gl"]\n\turl = https://{GITLAB}@gitlab.com/x.git\n'
            '[remote "ssh"]\n\turl = ssh://git@github.com/a/b.git\n'
            '[remote "scp"]\n\turl = git@github.com:a/b.git\n'
            "[http]\n\textraHeader = Authorization: Bearer abc.def.ghi\n"
            "[core]\n\tbare = false\n")
    clean = scrub(text)
    assert TOKEN not in clean and GITLAB not in clean and "abc.def.ghi" not in clean
    assert "url = https://github.com/a/b.git" in clean and "url = https://gitlab.com/x.git" in clean
    assert "ssh://git@github.com/a/b.git" in clean and "git@github.com:a/b.git" in clean  # user names
    assert "bare = false" in clean
    plain = '[remote "origin"]\n\turl = https://github.com/a/b.git\n'
    assert scrub(plain) == plain
