"""The user's other projects under home, against the real bubblewrap (tester round 9, N5):
a sandboxed command run unasked (auto) must not read their secret-looking files
(``grep -r sk- ~``) nor the tokens in their git configs, while git still works there;
and where the walk of home cannot finish, what it did not reach is hidden, not readable."""

from __future__ import annotations

import re
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from shell.permissions import homewalk
from shell.permissions.asktext import confinement
from shell.permissions.homewalk import MAX_COVERS, MAX_FILE_BINDS, HomeFiles, HomeFound
from shell.permissions.sandbox import Sandbox
from shell.tools.shell_cmd import run_command

from ..sandboxing import require_sandbox
from .home_setup import plant, sandbox_home

pytestmark = pytest.mark.anyio

KEYS = {
    "projects/other/.env": "OPENAI_API_KEY=sk-proj-OTHERPROJ1\n",
    "src/y/key.pem": "-----BEGIN PRIVATE KEY-----\nsk-proj-OTHERPEM2\n",
    "work/z/terraform.tfstate": '{"secret": "sk-proj-OTHERSTATE3"}\n',
    "projects/deep/a/b/c/.env.local": "TOKEN=sk-proj-OTHERDEEP4\n",
}
TOKEN = "ghp_OTHERREPOTOKEN1234567890abcdef"


@pytest.fixture
def home(monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    yield from sandbox_home(monkeypatch, ".agent-shell-test-homewalk-")


def git(repo: Path, *args: str) -> str:
    done = subprocess.run(["git", "-C", str(repo), "-c", "user.email=t@t", "-c", "user.name=t", *args],
                          capture_output=True, text=True, check=True)
    return done.stdout


def other_repo(home: Path) -> Path:
    repo = home / "projects" / "other2"
    repo.mkdir(parents=True)
    git(repo, "init", "-q")
    git(repo, "remote", "add", "origin", f"https://u:{TOKEN}@github.com/a/b")
    (repo / "README").write_text("hello\n")
    (repo / ".env").write_text("KEY=sk-proj-UNTRACKED5\n")
    git(repo, "add", "README")
    git(repo, "commit", "-qm", "init")
    return repo


async def run(box: Sandbox, script: str) -> str:
    result = await run_command(script, box.workspace, 60, lambda _: None, sandbox=box)
    return result.text


async def test_grep_over_home_finds_no_other_projects_keys(home: Path) -> None:
    require_sandbox()
    plant(home, list(KEYS), lambda rel: KEYS[rel])
    plant(home, ["projects/other/notes.txt"], lambda _: "PLAIN-NOTES\n")
    (home / "project" / "mine.txt").write_text("MINE\n")
    box = Sandbox(home / "project")
    text = await run(box, 'grep -rIh "sk-\\|PLAIN\\|MINE" ~ 2>/dev/null; '
                          'tar c -C ~ projects src work 2>/dev/null | strings | grep sk-; echo end')
    assert "sk-proj" not in text, text
    assert "PLAIN-NOTES" in text and "MINE" in text, text  # other files stay readable
    assert "end" in text
    for rel, content in KEYS.items():  # the user's own files are untouched
        assert (home / rel).read_text() == content


async def test_other_repository_config_shows_no_token_and_git_still_works(home: Path) -> None:
    require_sandbox()
    repo = other_repo(home)
    box = Sandbox(home / "project")
    text = await run(box, "cat ~/projects/other2/.git/config; grep -rh url ~/projects/*/.git/config; "
                          "cat ~/projects/other2/.env; git -C ~/projects/other2 status --porcelain; "
                          "git -C ~/projects/other2 log --format=%s; echo end")
    assert TOKEN not in text and "sk-proj" not in text, text
    assert "url = https://github.com/a/b" in text, text
    assert "init" in text and "end" in text, text
    assert "README" not in text  # git status: nothing changed
    assert TOKEN in (repo / ".git" / "config").read_text()  # the user's config keeps it


async def test_folders_the_walk_did_not_reach_are_hidden_whole_and_said_once(
    home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    require_sandbox()
    # this home only: the password database's (another run's big tree there) may not finish in time
    monkeypatch.setattr(homewalk, "home_dirs", lambda: [home])
    plant(home, ["far/away/.env", "far/away/plain.txt", "near/readme.txt"], lambda rel: f"CONTENT-{rel}\n")
    (home / "project" / "mine.txt").write_text("MINE\n")
    box = Sandbox(home / "project")
    box.home_files = HomeFiles(max_entries=1)  # home's own listing, then nothing more
    script = ("cat ~/far/away/.env ~/far/away/plain.txt ~/near/readme.txt mine.txt 2>/dev/null; "
              "echo x > new.txt; echo end")
    first = await run(box, script)
    assert "CONTENT-" not in first and "MINE" in first and "end" in first, first
    assert (home / "project" / "new.txt").read_text() == "x\n"  # the workspace is still writable
    assert "are hidden whole (~/" in first and "could not reach them in time" in first, first
    found = box.home_files.last
    assert found is not None and found.covered
    assert "hidden whole" in confinement(TOOL, {"command": "ls"}, lambda _c: True, box)
    box.home_files.index.max_entries = 1_000_000  # the next walk goes on from the listings kept
    second = await run(box, script)
    assert "CONTENT-far/away/plain.txt" in second and "CONTENT-near/readme.txt" in second, second
    assert "CONTENT-far/away/.env" not in second and "hidden whole" not in second, second


def test_approval_says_what_is_hidden_not_no_secrets(home: Path) -> None:
    plant(home, ["projects/other/.env"], lambda _: "K=sk-proj-X\n")
    box = Sandbox(home / "project")
    box.home_secrets()
    said = confinement(TOOL, {"command": "ls"}, lambda _c: True, box)
    online = confinement(TOOL, {"command": "ls", "network": True}, lambda _c: True, box)
    for text in (said, online):
        assert "no secrets" not in text
        assert "files elsewhere are not searched" in text
    hidden = r"\d+ files? under your home that usually holds? secrets (is|are) hidden from it"
    assert re.search(hidden, said), said


class _Tool:
    name = "run_shell"
    kind = "execute"
    confined = True


TOOL: Any = _Tool()  # what confinement() reads of a confined run_shell


def test_many_unreached_folders_are_hidden_by_few_covers_never_over_the_workspace(home: Path) -> None:
    for n in range(600):
        (home / "big" / "x" / f"e{n}").mkdir(parents=True)
    (home / "big" / "ws").mkdir()
    walk = HomeFiles(max_entries=10)  # home, big and x are listed, then the bound: e0 … e599 are not
    found = walk.find([home / "big" / "ws"])
    assert 0 < len(found.covered) <= MAX_COVERS
    for cover in found.covered:
        assert not (home / "big" / "ws").is_relative_to(cover)
    for n in range(600):  # every folder the walk did not reach is inside a cover
        far = home / "big" / "x" / f"e{n}"
        assert any(far.is_relative_to(c) for c in found.covered)


async def test_a_committed_key_in_another_repository_is_redacted_from_output(home: Path) -> None:
    require_sandbox()
    repo = home / "projects" / "other3"
    repo.mkdir(parents=True)
    git(repo, "init", "-q")
    (repo / ".env").write_text("KEY=sk-proj-COMMITTED6abcdef\n")
    git(repo, "add", ".env")
    git(repo, "commit", "-qm", "init")
    box = Sandbox(home / "project")
    text = await run(box, "grep -rh KEY ~/projects; git -C ~/projects/other3 status --porcelain; echo end")
    assert "sk-proj-COMMITTED6" not in text, text  # git's staged copy holds it: redacted as the workspace's
    assert "KEY=" in text and "end" in text, text


def test_toolchains_downloads_are_not_walked_but_the_users_go_code_is(home: Path) -> None:
    plant(home, ["go/pkg/mod/x/testdata/key.pem", "go/src/me/app/.env", "sdk/go1.22/src/key.pem"],
          lambda _: "-----BEGIN PRIVATE KEY-----\n")
    found = HomeFiles().find([home / "project"])
    assert home / "go" / "src" / "me" / "app" / ".env" in found.files
    assert not [p for p in found.files if "pkg/mod" in str(p) or "/sdk/" in str(p)]


def test_too_many_secret_files_hide_their_folders_whole_not_one_mount_each(home: Path) -> None:
    many = [f"keys/k{n // 10}/id{n}.pem" for n in range(MAX_FILE_BINDS + 50)]
    plant(home, [*many, "projects/few/.env"], lambda _: "-----BEGIN PRIVATE KEY-----\n")
    found = HomeFiles().find([home / "project"])
    assert len(found.files) <= MAX_FILE_BINDS and found.covered and len(found.covered) <= MAX_COVERS
    for rel in many:  # each is hidden: one by one, or inside a folder hidden whole
        assert home / rel in found.files or any((home / rel).is_relative_to(c) for c in found.covered)
    assert home / "projects" / "few" / ".env" in found.files
    assert "too many to hide one by one" in found.said()


def test_home_itself_and_the_workspace_are_never_hidden_by_the_home_walk(home: Path) -> None:
    plant(home, ["project/.env", "other/x/.env"], lambda _: "K=sk-proj-X\n")
    (home / "link.env").symlink_to(home / "project" / ".env")  # the workspace's: its own walk's
    found = HomeFiles(max_entries=0).find([home / "project"])  # the bound is hit at once
    assert home / "project" / ".env" not in found.files
    assert found.covered and not set(found.homes) & set(found.covered)
    for cover in found.covered:  # inside a home (this one, or the password database's)
        assert any(h in cover.parents for h in found.homes) and not (home / "project").is_relative_to(cover)


def test_the_note_cuts_a_very_long_folder_path(home: Path) -> None:
    deep = home / "deepchain" / "/".join(["a"] * 200)
    found = HomeFound(covered=(deep,), homes=(home,))
    said = found.said()
    assert "~/deepchain/a/a" in said and "…" in said and len(said) < 400, said


def test_folders_of_the_password_databases_home_are_named_in_full_not_under_tilde(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With HOME pointed elsewhere, the walk still covers the password database's home,
    but "~/src/pkg" would name a folder of $HOME that is not there (finding R17)."""
    mine, passwd = tmp_path / "home", tmp_path / "passwd"
    (mine / "notes").mkdir(parents=True)
    (passwd / "src" / "pkg").mkdir(parents=True)
    monkeypatch.setenv("HOME", str(mine))
    covered = (passwd / "src" / "pkg", mine / "notes")
    found = HomeFound(covered=covered, homes=(passwd.resolve(), mine.resolve()))
    said = found.said()
    assert f"{passwd / 'src' / 'pkg'}" in said and "~/src" not in said, said
    assert "~/notes" in said, said
