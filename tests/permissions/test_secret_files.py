"""Secret-looking files in the workspace are hidden from sandboxed commands (against
the real bubblewrap), a command line that names one asks, and the approved call sees
what it named: ``cat .env`` in auto mode must not hand the key to the provider."""

from __future__ import annotations

import base64
import os
import re
import shutil
import subprocess
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from shell.core.approvals import ApprovalDecision, ApprovalRequest
from shell.core.messages import ToolCallBlock
from shell.core.tools import Tool, ToolContext
from shell.permissions.policy import PermissionPolicy
from shell.permissions.sandbox import Sandbox, will_sandbox
from shell.permissions.secretfiles import RACY_NS, SecretFileIndex
from shell.permissions.secretwords import named_secret_files
from shell.tools.builtin import builtin_tools
from shell.tools.shell_cmd import run_command
from shell.tools.workspace import Workspace
from tests.homes import made_home

from ..sandboxing import require_sandbox

pytestmark = pytest.mark.anyio

KEY = "sk-proj-HIDDENKEY0123456789abcdef"


@pytest.fixture
def ws() -> Iterator[Path]:
    """A workspace outside /tmp (as users have them) full of secret-looking files."""
    base = made_home("agent-shell-test-secrets-")
    root = base / "project"
    (root / "config").mkdir(parents=True)
    (root / "node_modules" / "pkg").mkdir(parents=True)
    (root / ".env").write_text(f"OPENAI_API_KEY={KEY}\n")
    (root / ".ENV.production").write_text(f"K2={KEY}-upper\n")  # case: .env.* in any case
    (root / "config" / "prod.pem").write_text(f"-----BEGIN PRIVATE KEY-----\n{KEY}-pem\n")
    (root / ".env.example").write_text("OPENAI_API_KEY=your-key-here\n")
    (root / "notes.md").write_text("plain notes\n")
    os.symlink(".env", root / "innocent.txt")  # a symlink to it under another name
    os.link(root / "config" / "prod.pem", root / "hardlink.txt")  # the same file, another name
    (base / "outside").mkdir()
    (base / "outside" / "token.key").write_text(f"{KEY}-outside\n")
    os.symlink(base / "outside" / "token.key", root / "linked-out")  # to a secret outside
    (root / "node_modules" / "pkg" / "test.pem").write_text("a dependency's public test cert\n")
    try:
        yield root
    finally:
        shutil.rmtree(base, ignore_errors=True)


async def sh(box: Sandbox, command: str, shown: tuple[str, ...] = ()) -> Any:
    return await run_command(command, box.workspace, 30, lambda _: None, sandbox=box, shown=shown)


# -- the index -------------------------------------------------------------------------------


def test_the_search_finds_names_links_and_hard_links_and_skips_dependencies(ws: Path) -> None:
    found = SecretFileIndex([ws]).find()
    rel = {found.relative(p) for p in found.paths}
    outside = ws.parent / "outside" / "token.key"
    assert rel == {".env", ".ENV.production", "config/prod.pem", "hardlink.txt", str(outside)}
    assert found.complete
    assert "node_modules/pkg/test.pem" not in rel and ".env.example" not in rel


def test_a_link_that_cannot_be_followed_is_skipped_not_an_error(ws: Path) -> None:
    """A repository can commit ``evil -> /proc/1/cwd``: resolving it raises
    PermissionError (even for root in a container), which failed every run_shell call
    in every mode, through the approval gate. The link is passed over."""
    os.symlink("/proc/1/cwd", ws / "evil")
    try:
        os.path.realpath(ws / "evil")
    except OSError:
        pass
    else:
        os.remove(ws / "evil")  # here /proc/1/cwd can be read: make one that cannot
        os.symlink(ws / "loop-a", ws / "loop-b")
        os.symlink(ws / "loop-b", ws / "loop-a")
    found = SecretFileIndex([ws]).find()
    assert found.complete and ".env" in {found.relative(p) for p in found.paths}


def test_a_pem_with_only_certificates_is_public_until_it_holds_a_key(ws: Path) -> None:
    cert = ws / "ca-bundle.pem"
    cert.write_text("-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n")
    index = SecretFileIndex([ws])
    assert cert not in index.find().paths  # commands need CA bundles and test certs
    cert.write_text(cert.read_text() + "-----BEGIN PRIVATE KEY-----\nabc\n-----END PRIVATE KEY-----\n")
    assert cert in index.find().paths


def test_a_key_put_into_a_certificate_keeping_its_size_and_mtime_is_found(ws: Path) -> None:
    """A sandboxed command can keep a file's size and put its mtime back, not its ctime."""
    cert = ws / "ca-bundle.pem"
    body = f"-----BEGIN CERTIFICATE-----\nMIIB{'x' * 44}\n-----END CERTIFICATE-----\n"
    cert.write_text(body)
    index = SecretFileIndex([ws])
    assert cert not in index.find().paths
    before = cert.stat()
    key = "-----BEGIN PRIVATE KEY-----\nabc\n-----END PRIVATE KEY-----\n"
    cert.write_text(key.ljust(len(body) - 1, "x") + "\n")  # the same size
    os.utime(cert, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert cert.stat().st_size == before.st_size and cert.stat().st_mtime_ns == before.st_mtime_ns
    assert cert in index.find().paths


OPENSSH = ("-----BEGIN OPENSSH PRIVATE KEY-----\n"
           "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW\n"
           "QyNTUxOQAAACNOTESKEYBODYNOTESKEYBODYNOTESKEYBODYNOTESKEYBODYAAAAmHNlY3\n"
           "-----END OPENSSH PRIVATE KEY-----\n")


def _write_in_place(path: Path, text: str) -> None:
    """``text`` written over the start of ``path`` (same size, same inode), its mtime put
    back: what ``dd conv=notrunc`` then ``touch -r`` leave; the folder's ctime stays."""
    before = path.stat()
    with open(path, "r+b") as fh:
        fh.write(text.encode())
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    after = path.stat()
    kept = (before.st_size, before.st_mtime_ns, before.st_ino)
    assert (after.st_size, after.st_mtime_ns, after.st_ino) == kept


@pytest.mark.parametrize("name", ["notes.txt", "config.yaml", "deploy.md", "data.json"])
def test_a_key_written_into_an_existing_file_in_place_is_found_at_the_next_search(
    ws: Path, name: str
) -> None:
    """The folder's listing is kept by the folder's ctime, which a write into a file does
    not move: the file's own inode, size, mtime and ctime say it changed."""
    target = ws / "docs" / name
    target.parent.mkdir()
    target.write_text("x" * (len(OPENSSH) + 40) + "\n")
    time.sleep(RACY_NS / 1e9)  # listings of a directory changed just now are not trusted later
    index = SecretFileIndex([ws])
    assert target not in index.find().paths
    assert target not in index.find().paths  # an unchanged folder: its listing is kept
    _write_in_place(target, OPENSSH)
    assert target in index.find().paths
    assert target in index.find().paths  # and stays hidden


def test_an_unchanged_file_is_not_read_again_and_a_source_file_not_looked_at(
    ws: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What keeps the walk cheap: one ``lstat`` per text file of an unchanged folder, no read."""
    (ws / "docs").mkdir()
    (ws / "docs" / "a.md").write_text("plain\n" * 20)
    (ws / "docs" / "b.py").write_text("print(1)\n" * 20)
    time.sleep(RACY_NS / 1e9)
    index = SecretFileIndex([ws])
    index.find()
    index.find()  # the first search's verdicts are marked here
    opened: list[str] = []
    real_open = open

    def spying_open(file: Any, *args: Any, **kwargs: Any) -> Any:
        opened.append(str(file))
        return real_open(file, *args, **kwargs)

    monkeypatch.setattr("builtins.open", spying_open)
    index.find()
    assert opened == []


def test_a_secret_moved_into_a_skipped_directory_is_still_found(ws: Path) -> None:
    index = SecretFileIndex([ws])
    index.find()
    (ws / "node_modules" / "config").parent.mkdir(exist_ok=True)
    os.rename(ws / "config", ws / "node_modules" / "config")  # to smuggle it past the search
    found = index.find()
    assert ws / "node_modules" / "config" / "prod.pem" in found.paths


def test_a_huge_tree_is_searched_within_a_budget_and_says_so(ws: Path) -> None:
    for n in range(30):
        (ws / f"d{n}").mkdir()
        (ws / f"d{n}" / "f.txt").write_text("x")
    time.sleep(RACY_NS / 1e9)  # listings of a directory changed just now are not trusted later
    index = SecretFileIndex([ws], max_entries=10)
    first = index.find()
    assert not first.complete and "more than 10 entries" in first.why_incomplete
    for _ in range(20):  # listings are kept, so later searches get through the rest
        if index.find().complete:
            break
    assert index.last is not None and index.last.complete
    assert ws / ".env" in index.last.paths


def test_a_secret_moved_past_the_bound_of_one_search_is_not_forgotten(tmp_path: Path) -> None:
    """Its folder moved into a ``node_modules`` too big for one search: the search
    that stopped short did not reach it, and the next ones, complete again because
    they skip ``node_modules``, must still look for it (every complete result hides it)."""
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / ".env").write_text(f"K={KEY}\n")
    for n in range(30):
        (tmp_path / "node_modules" / f"d{n:02}").mkdir(parents=True)
        (tmp_path / "node_modules" / f"d{n:02}" / "f.js").write_text("x")
    index = SecretFileIndex([tmp_path], max_entries=40)
    assert index.find().complete  # node_modules is skipped
    os.rename(tmp_path / "sub", tmp_path / "node_modules" / "zz")  # walked last, past the bound
    time.sleep(RACY_NS / 1e9)  # listings of a directory changed just now are not trusted later
    went = tmp_path / "node_modules" / "zz" / ".env"
    results = [index.find() for _ in range(20)]
    assert not results[0].complete
    assert all(went in r.paths for r in results if r.complete)
    assert results[-1].complete


def test_a_new_file_is_found_and_an_unchanged_tree_is_not_listed_again(ws: Path) -> None:
    index = SecretFileIndex([ws])
    index.find()
    (ws / "config" / "id_ed25519").write_text("key")
    assert ws / "config" / "id_ed25519" in index.find().paths


def test_which_words_of_a_command_name_a_secret_file() -> None:
    assert named_secret_files("cat .env") == [".env"]
    assert named_secret_files("source .env.local && run") == [".env.local"]
    assert named_secret_files("docker run --env-file=.env x") == [".env"]
    assert named_secret_files("git show HEAD:.env") == [".env"]
    assert named_secret_files('cat ".e""nv" < ~/x/id_rsa') == [".env", "~/x/id_rsa"]
    assert named_secret_files("cat .ENV") == [".ENV"]
    assert named_secret_files("cat README.md .env.example *.py") == []
    assert named_secret_files("cat .e* && find ~ -name '*.pem'") == [".e*", "*.pem"]  # reach outside too
    assert named_secret_files("ls * .* | grep -E 'a.*b'") == []  # everything, or a regex: names nothing
    assert named_secret_files("echo 'unclosed .env") == [".env"]
    line = "bash -c 'cat .env' && sh -c \"source x/.env.local\""
    assert named_secret_files(line) == [".env", "x/.env.local"]


def test_backslashes_are_read_as_the_shell_and_the_program_read_them() -> None:
    """``printf '*\\n' > .gitignore`` asked "names *n": the backslash was dropped inside
    single quotes, where the shell keeps it, and ``*n`` matched ``secrets.json``. The
    question quotes what the files are named by; a pattern program (``find -name``)
    still has its escapes read, and printf's line end is not part of a name."""
    assert named_secret_files("printf '*\\n' > .gitignore") == []
    assert named_secret_files('printf "*\\n" > .gitignore') == []
    assert named_secret_files("printf '.env\\n' > notes.txt") == [".env"]  # as `echo .env` does
    assert named_secret_files("find ~ -name '*.p\\em' -exec cat {} +") == ["*.pem"]
    assert named_secret_files("cat .e\\nv") == [".env"]  # unquoted: the shell drops it
    assert named_secret_files("cat {.env,notes} $'\\x2eenvrc'") == [".env", ".envrc"]


def test_appending_a_secret_files_name_to_gitignore_names_nothing() -> None:
    """``echo .env >> .gitignore`` asked in auto mode, though it never opens ``.env``:
    it keeps ``.env`` out of git. Only a whole line of such appends passes; a line that
    could read the file, or feed its name to a reader, still names it."""
    for line in ("echo .env >> .gitignore", "printf '%s\\n' .env '*.pem' >>.gitignore",
                 'echo ".env.local" >> web/.dockerignore && echo id_rsa >> .gitignore;'):
        assert named_secret_files(line) == [], line
    for line in ("cat .env >> .gitignore", "echo $(cat .env) >> .gitignore",
                 'echo "`cat .env`" >> .gitignore',
                 "echo .env >> .gitignore < .env", "echo .env | xargs cat >> .gitignore",
                 "echo .env >> .gitignore; cat .env", "echo .env >> .gitignore & cat .env",
                 "echo .env >> .gitignore\ncat .env", "echo .env > notes.txt", "echo .env >> .gitignore.sh",
                 "cp .env .gitignore", "echo .e* >> .gitignore", "tee -a .gitignore < .env"):
        assert named_secret_files(line), line


async def test_auto_mode_appends_to_gitignore_unasked_and_the_secret_stays_hidden(ws: Path) -> None:
    require_sandbox()
    box = Sandbox(ws)
    policy = PermissionPolicy(ws, mode="auto", sandboxed=will_sandbox, load_project=False)
    policy.sandbox = box
    shell = tools_for(ws, box)["run_shell"]
    (ws / ".gitignore").write_text("dist/\n")
    line = "echo .env >> .gitignore"
    verdict = policy.decide(shell, {"command": line})
    assert verdict.action == "allow", verdict.reason
    call = ToolCallBlock("c1", "run_shell", {"command": line})
    await shell.run(dict(call.args), ToolContext(call, lambda _: None, None))
    assert (ws / ".gitignore").read_text() == "dist/\n.env\n"
    near = policy.decide(shell, {"command": "cat .env >> .gitignore"})
    assert near.action == "ask" and "names .env" in near.reason, near.reason


# -- the sandbox, for real -----------------------------------------------------------------------


async def test_a_sandboxed_command_reads_secret_files_as_empty(ws: Path) -> None:
    require_sandbox()
    box = Sandbox(ws)
    attacks = (
        "cat .env; cat innocent.txt hardlink.txt linked-out; cat .e* .E*; cat config/*.pem; "
        "grep -r . .; find . -name '*.pem' -exec cat {} +; echo TAR; tar c . 2>/dev/null | base64 -w0; echo"
    )
    result = await sh(box, attacks)
    text = result.text
    assert KEY not in text, text
    blob = re.search(r"TAR\n([A-Za-z0-9+/=]{100,})", text)
    assert blob is not None, text
    assert KEY.encode() not in base64.b64decode(blob.group(1))  # nor inside an archive
    assert "plain notes" in text and "your-key-here" in text  # the rest is readable
    assert "a dependency's public test cert" in text  # dependencies are not searched
    assert result.details["hidden_secret_files"] == 5
    assert "5 files that usually hold secrets read as empty in this command" in text
    assert ".env" in text.split("read as empty in this command")[1]
    write = await sh(box, "echo X=1 >> .env && echo wrote")
    assert "wrote" not in write.text
    assert (ws / ".env").read_text() == f"OPENAI_API_KEY={KEY}\n"  # nothing lost, nothing added


async def test_a_call_shown_a_file_reads_it_and_only_it(ws: Path) -> None:
    require_sandbox()
    box = Sandbox(ws)
    result = await sh(box, "cat .env config/prod.pem", shown=(".env",))
    assert f"OPENAI_API_KEY={KEY}" in result.text
    assert f"{KEY}-pem" not in result.text
    again = await sh(box, "cat .env")  # the next call: hidden again
    assert KEY not in again.text


# -- the policy: a command that names one asks; the approval shows it --------------------------------


def tools_for(ws: Path, box: Sandbox) -> dict[str, Tool]:
    return {t.name: t for t in builtin_tools(Workspace(ws), sandbox=box)}


async def test_auto_mode_asks_for_a_command_that_names_a_secret_and_the_approval_shows_it(ws: Path) -> None:
    require_sandbox()
    box = Sandbox(ws)
    policy = PermissionPolicy(ws, mode="auto", sandboxed=will_sandbox, load_project=False)
    policy.sandbox = box
    tools = tools_for(ws, box)
    shell = tools["run_shell"]
    assert policy.decide(shell, {"command": "grep -r KEY ."}).action == "allow"  # hidden: runs
    hunt = policy.decide(shell, {"command": "find ~ -name '*.pem' -exec cat {} +"})
    assert hunt.action == "ask" and "names *.pem" in hunt.reason  # outside the workspace nothing is hidden
    call = ToolCallBlock("c1", "run_shell", {"command": "cat .env"})
    verdict = policy.decide(shell, call.args)
    assert verdict.action == "ask"
    assert "names .env" in verdict.reason and "hides such files" in verdict.reason
    assert "approving lets this one command read" in verdict.reason
    policy.approved(ApprovalDecision.approve(), ApprovalRequest(call, shell, dict(call.args)))
    ctx = ToolContext(call, lambda _: None, None)
    result = await shell.run(dict(call.args), ctx)
    assert KEY in result.text
    other = ToolCallBlock("c2", "run_shell", {"command": "cat .env"})
    result = await shell.run(dict(other.args), ToolContext(other, lambda _: None, None))
    assert KEY not in result.text  # the approval was for that call only


def test_default_mode_says_how_many_are_hidden(ws: Path) -> None:
    require_sandbox()
    box = Sandbox(ws)
    policy = PermissionPolicy(ws, sandboxed=will_sandbox, load_project=False)
    policy.sandbox = box
    verdict = policy.decide(tools_for(ws, box)["run_shell"], {"command": "ls"})
    assert verdict.action == "ask"
    listed = "5 files that usually hold secrets (.ENV.production, .env, config/prod.pem and 2 more)"
    assert listed in verdict.reason


def test_the_question_names_the_secret_files_as_they_are_when_it_asks(ws: Path) -> None:
    """Not as they were at the first search (the session's start): a key file written
    since (by write_file, or the user) is hidden from the command, and the question says so."""
    require_sandbox()
    box = Sandbox(ws)
    policy = PermissionPolicy(ws, sandboxed=will_sandbox, load_project=False)
    policy.sandbox = box
    shell = tools_for(ws, box)["run_shell"]
    assert "5 files that usually hold secrets" in policy.decide(shell, {"command": "ls"}).reason
    (ws / ".aws").mkdir()
    (ws / ".aws" / "credentials").write_text("[default]\naws_secret_access_key = x\n")
    verdict = policy.decide(shell, {"command": "ls"})
    assert "6 files that usually hold secrets" in verdict.reason, verdict.reason


def test_the_question_does_not_wait_for_a_search_running_after_a_command(ws: Path) -> None:
    """The check after a command searches ten times as far, in its thread; a question
    asked meanwhile (on the event loop) says what the last search found instead."""
    require_sandbox()
    box = Sandbox(ws)
    policy = PermissionPolicy(ws, sandboxed=will_sandbox, load_project=False)
    policy.sandbox = box
    shell = tools_for(ws, box)["run_shell"]
    policy.decide(shell, {"command": "ls"})
    asked: list[str] = []
    with box.secret_index._lock:  # as the check's search holds it
        thread = threading.Thread(target=lambda: asked.append(policy.decide(shell, {"command": "ls"}).reason))
        thread.start()
        thread.join(60)
        assert asked and "5 files that usually hold secrets" in asked[0], asked


def test_auto_asks_when_the_workspace_could_not_all_be_searched(ws: Path) -> None:
    require_sandbox()
    box = Sandbox(ws)
    box.secret_index = SecretFileIndex([ws], max_entries=1)
    policy = PermissionPolicy(ws, mode="auto", sandboxed=will_sandbox, load_project=False)
    policy.sandbox = box
    verdict = policy.decide(tools_for(ws, box)["run_shell"], {"command": "ls"})
    assert verdict.action == "ask" and "could not be searched" in verdict.reason


async def test_when_nothing_asks_a_named_file_is_shown(ws: Path) -> None:
    """bypass (or approvals off): the question that was skipped would have allowed it."""
    require_sandbox()
    box = Sandbox(ws)
    box.nothing_asks = lambda: True
    call = ToolCallBlock("c9", "run_shell", {"command": "cat .env; cat config/prod.pem"})
    shell = tools_for(ws, box)["run_shell"]
    result = await shell.run(dict(call.args), ToolContext(call, lambda _: None, None))
    assert f"OPENAI_API_KEY={KEY}" in result.text and f"{KEY}-pem" in result.text


# -- a secret file git tracks ---------------------------------------------------------------------


def _git(ws: Path, *args: str) -> str:
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@t", "GIT_CONFIG_NOSYSTEM": "1", "HOME": str(ws.parent)}
    return subprocess.run(["git", *args], cwd=ws, env=env, check=True, capture_output=True, text=True).stdout


async def test_a_tracked_secret_file_reads_as_git_has_it_so_commit_all_does_not_empty_it(ws: Path) -> None:
    """``.envrc`` committed without a key, the key pasted in since: the sandbox shows
    the committed lines (readable through .git anyway), not the key, and git in there
    sees nothing to commit, so ``git commit -a`` cannot wipe the file from history."""
    require_sandbox()
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    (ws / ".envrc").write_text("export PATH=$PWD/bin:$PATH\n")
    _git(ws, "init", "-q")
    _git(ws, "add", ".envrc", "notes.md")
    _git(ws, "commit", "-qm", "start")
    (ws / ".envrc").write_text(f"export PATH=$PWD/bin:$PATH\nexport OPENAI_API_KEY={KEY}\n")
    box = Sandbox(ws)
    result = await sh(box, "cat .envrc; echo STATUS; git status --porcelain -- .envrc; echo END")
    assert KEY not in result.text, result.text
    assert "export PATH=$PWD/bin:$PATH\nSTATUS\nEND" in result.text  # git: nothing changed
    assert "One git tracks reads as git has it staged" in result.text
    assert KEY in (ws / ".envrc").read_text()  # the user's file itself is untouched
    hostile = "$(touch owned)`touch owned`;touch owned"
    (ws / hostile).write_text("x")  # a hostile name next to it changes nothing
    again = await sh(box, "cat .envrc")
    assert KEY not in again.text and "export PATH" in again.text
    assert not (ws / "owned").exists()


def test_a_git_entry_that_is_a_fifo_or_a_stranger_means_the_empty_file(tmp_path: Path) -> None:
    """Reading a FIFO named .git would block the shell; an unreadable repository
    gives no copy (the empty file is bound, as for untracked files)."""
    from shell.permissions.gitstaged import StagedCopies

    os.mkfifo(tmp_path / ".git")
    (tmp_path / ".env").write_text(f"K={KEY}\n")
    assert StagedCopies().copies([tmp_path / ".env"]) == {}
    other = tmp_path / "sub"
    (other / ".git").mkdir(parents=True)
    (other / ".git" / "index").write_bytes(b"not an index")
    (other / ".env").write_text(f"K={KEY}\n")
    assert StagedCopies().copies([other / ".env"]) == {}


def test_a_hard_link_of_a_secret_file_asks_like_the_file(ws: Path) -> None:
    """`ln .env notes.txt`: read_file, a grep of it and an edit ran unasked and sent the
    keys (the sandbox already hid other hard links of a secret file)."""
    os.link(ws / ".env", ws / "notes-copy.txt")
    box = Sandbox(ws)
    policy = PermissionPolicy(ws, mode="accept-edits", sandboxed=will_sandbox, load_project=False)
    policy.sandbox = box
    tools = tools_for(ws, box)
    for name, args in [("read_file", {"path": "notes-copy.txt"}),
                       ("grep", {"pattern": "K", "path": "notes-copy.txt"}),
                       ("edit_file", {"path": "notes-copy.txt", "old_string": "O", "new_string": "P"})]:
        verdict = policy.decide(tools[name], args)
        assert verdict.action == "ask", name
        assert "(a hard link of .env: the same file)" in verdict.reason
    assert policy.decide(tools["read_file"], {"path": "notes.md"}).action == "allow"


def test_every_name_the_secrets_policy_knows_is_caught_on_a_command_line() -> None:
    """The quick filter before the word split must never skip a name the list holds
    (auth.json, /etc/shadow, .my.cnf, rclone.conf, a shell history ran unasked in auto)."""
    from shell.core import secrets

    names = [*secrets._SECRET_FILE_NAMES, *secrets._PRIVATE_KEYS]
    names += [f"x{suffix}" for suffix in secrets._SECRET_FILE_SUFFIXES]
    names += [f"/etc/{n}" for n in secrets._SYSTEM_SECRETS]
    names += [f"~/{folder}/{n}" for n, folder in secrets.BY_FOLDER.items()]
    names += ["/etc/sudoers.d/admins", "/etc/ssh/ssh_host_ed25519_key", ".env.production", ".envrc.local"]
    for name in names:
        assert secrets.is_secret_file(name), name
        assert named_secret_files(f"head -c 60 {name}") == [name], name


DOWNLOADED_KEYS = (
    "firebase-adminsdk-x1y2z-0123456789.json", "serviceAccountKey.json", "service_account.json",
    "client_secret_123-abc.apps.googleusercontent.com.json", "ci_accessKeys.csv", "rootkey.csv",
    "key.ppk", ".dev.vars", ".secrets", "local.settings.json", "prod.kubeconfig", "users.htpasswd",
    "gcp-key.json", "keyfile.json",
)


async def test_keys_under_the_names_consoles_download_them_as_ask_and_are_hidden(ws: Path) -> None:
    """read_file sent a Firebase admin key, an AWS console key CSV, a PuTTY key and
    wrangler's .dev.vars to the provider unasked (finding K14)."""
    for name in DOWNLOADED_KEYS:
        (ws / "keys").mkdir(exist_ok=True)
        (ws / "keys" / name).write_text(f"{KEY}-{name}\n")
    (ws / "keys" / "package.json").write_text("{}\n")
    box = Sandbox(ws)
    policy = PermissionPolicy(ws, mode="auto", sandboxed=will_sandbox, load_project=False)
    policy.sandbox = box
    read = tools_for(ws, box)["read_file"]
    for name in DOWNLOADED_KEYS:
        assert policy.decide(read, {"path": f"keys/{name}"}).action == "ask", name
    assert policy.decide(read, {"path": "keys/package.json"}).action == "allow"
    require_sandbox()
    result = await sh(box, "cat keys/*")
    assert KEY not in result.text, result.text


SITE_SECRETS = ("wp-config.php", "credentials.xml", ".gitlab-ci-local-variables.yml", "wp-config.php.bak",
                # their siblings, found by verifying L11
                "wp-config.local.php", "wp-config-production.php", "LocalSettings.php", "config.inc.php",
                "settings.local.php", "hudson.util.Secret", ".gitlab-ci-local-variables.yaml")


async def test_wordpress_jenkins_and_gitlab_ci_local_secrets_ask_and_are_hidden(ws: Path) -> None:
    """read_file sent every WordPress site's DB password and salts, Jenkins' stored
    credentials and gitlab-ci-local's secret variables unasked (finding L11); the
    sample WordPress ships and ordinary XML and YAML files still read unasked."""
    (ws / "site").mkdir()
    for name in SITE_SECRETS:
        (ws / "site" / name).write_text(f"define( 'DB_PASSWORD', '{KEY}-{name}' );\n")
    plain = ("wp-config-sample.php", "config.xml", ".gitlab-ci.yml", "pom.xml")
    for name in plain:
        (ws / "site" / name).write_text("plain\n")
    box = Sandbox(ws)
    policy = PermissionPolicy(ws, mode="default", sandboxed=will_sandbox, load_project=False)
    policy.sandbox = box
    read = tools_for(ws, box)["read_file"]
    for name in SITE_SECRETS:
        verdict = policy.decide(read, {"path": f"site/{name}"})
        assert verdict.action == "ask" and "usually holds secrets" in verdict.reason, name
    assert "WordPress's database password" in policy.decide(read, {"path": "site/wp-config.php"}).reason
    for name in plain:
        assert policy.decide(read, {"path": f"site/{name}"}).action == "allow", name
    # a secret named inside a quoted script asks too (a file outside the workspace is not hidden)
    assert named_secret_files("php -r 'include \"site/wp-config.php\";'") == ["site/wp-config.php"]
    assert named_secret_files("python3 -c \"print(open('/srv/app/.env').read())\"") == ["/srv/app/.env"]
    require_sandbox()
    result = await sh(box, "cat site/* site/.[!.]*; echo end")
    assert KEY not in result.text and "end" in result.text, result.text
    assert result.text.count("plain") == len(plain), result.text


# -- a command cannot un-hide them for the next command -----------------------------------------------


async def test_a_pyvenv_cfg_a_command_drops_beside_a_secret_does_not_unhide_it(ws: Path) -> None:
    """A folder searched before as the user's own stays searched: ``pyvenv.cfg`` is a
    text file any command can write, and the search skips virtualenvs (tester's H17)."""
    require_sandbox()
    box = Sandbox(ws)
    (ws / "config" / ".env").write_text(f"DEEP={KEY}-deep\n")
    first = await sh(box, "grep -r HIDDENKEY . ; echo first")
    assert KEY not in first.text
    plant = "printf 'home = /usr/bin\\n' > config/pyvenv.cfg && printf 'home = /usr/bin\\n' > pyvenv.cfg"
    await sh(box, plant)
    third = await sh(box, "grep -r HIDDENKEY . ; echo third")
    assert "third" in third.text and KEY not in third.text, third.text
    (ws / "config" / "id_ed25519").write_text(f"{KEY}-new\n")  # one the user adds there later
    fourth = await sh(box, "cat config/*; echo fourth")
    assert "fourth" in fourth.text and KEY not in fourth.text, fourth.text


def test_a_pyvenv_cfg_hides_only_what_a_virtualenv_installs(ws: Path) -> None:
    """A folder that holds a ``pyvenv.cfg`` from the start (committed by a repository,
    or made with one by a command) was skipped whole, ``pkg/conf/.env`` included; only
    a virtualenv's own install folders (``lib``, ``include``, ``share``) are skipped."""
    (ws / "pkg" / "conf").mkdir(parents=True)
    (ws / "pkg" / "pyvenv.cfg").write_text("home = /usr/bin\n")
    (ws / "pkg" / "conf" / ".env").write_text(f"DEEP={KEY}\n")
    site = ws / "pkg" / "lib" / "python3.12" / "site-packages" / "dep" / "tests"
    site.mkdir(parents=True)
    (site / "test.key").write_text("a dependency's test key\n")
    found = SecretFileIndex([ws]).find()
    rel = {found.relative(p) for p in found.paths}
    assert "pkg/conf/.env" in rel
    assert not any(r.startswith("pkg/lib/") for r in rel)


def test_tox_and_nox_envs_are_searched_as_virtualenvs_and_caches_only_for_one(ws: Path) -> None:
    """Finding N1: ``.tox`` and ``.nox`` were skipped whole, so ``.tox/.env`` and an env's
    ``.env`` read in full in the sandbox (and its ``pyvenv.cfg`` never reached the guard).
    Now they are searched as any folder, each env's ``lib/`` skipped as a ``.venv``'s; a
    cache stays skipped but for a virtualenv right in it."""
    for env in (".tox/py312", ".nox/tests", ".mypy_cache/env"):
        site = ws / env / "lib" / "python3.12" / "site-packages" / "dep"
        site.mkdir(parents=True)
        (site / "test.key").write_text("a dependency's test key\n")
        (ws / env / "pyvenv.cfg").write_text("home = /usr/bin\n")
        (ws / env / ".env").write_text(f"ENV={KEY}\n")
    (ws / ".tox" / ".env").write_text(f"TOX={KEY}\n")
    (ws / ".mypy_cache" / "3.12" / "pkg").mkdir(parents=True)
    (ws / ".mypy_cache" / "3.12" / "pkg" / "server.key").write_text("not searched\n")
    found = SecretFileIndex([ws]).find()
    rel = {found.relative(p) for p in found.paths}
    assert {".tox/.env", ".tox/py312/.env", ".nox/tests/.env", ".mypy_cache/env/.env"} <= rel, rel
    assert not any("/lib/" in r or r.startswith(".mypy_cache/3.12") for r in rel), rel
    later = {found.relative(p) for p in found.runs_later}
    assert {".tox/py312/pyvenv.cfg", ".nox/tests/pyvenv.cfg", ".mypy_cache/env/pyvenv.cfg"} <= later, later


async def test_local_history_copies_and_repl_histories_read_as_empty_in_the_sandbox(ws: Path) -> None:
    """Finding N6: VS Code's Local History keeps every saved ``.env`` in ``.history/``
    under a dated name, and aider's prompt log sits in the repository's root: a command
    that never names them (``find … -exec cat``) read them in full."""
    require_sandbox()
    (ws / ".history").mkdir()
    (ws / ".history" / ".env_20261129101500").write_text("K=sk-proj-DATEDCOPY0123456789abcdef\n")
    (ws / ".history" / ".env_20261129101500.local").write_text(f"K={KEY}-dated-local\n")
    (ws / ".history" / "notes_20261129101500.md").write_text("ordinary notes\n")
    (ws / ".aider.input.history").write_text(f"+use {KEY}-aider\n")
    box = Sandbox(ws)
    result = await sh(box, "find .history -type f -exec cat {} +; cat .aider.in*; echo done")
    assert "done" in result.text and KEY not in result.text and "DATEDCOPY" not in result.text, result.text
    # hidden whole (one bind, not one a copy: benchmarks/hidden_copies.py), but for a call shown one
    assert "ordinary notes" not in result.text and ".history/.env_20261129101500" in result.text
    shown = await sh(box, "cat .history/.env_20261129101500 .history/notes_20261129101500.md",
                     shown=(".history/.env_20261129101500",))
    assert "DATEDCOPY" in shown.text and "ordinary notes" in shown.text, shown.text


async def test_a_history_folder_git_tracks_is_not_hidden_whole_so_a_commit_keeps_its_files(ws: Path) -> None:
    """Finding P9: a repository that committed ``.history/`` had it hidden whole (empty),
    so git in the sandbox saw its files deleted and ``git add -A && git commit`` committed
    that. Where git tracks a file there, each secret copy is bound alone (git's staged copy
    for a tracked one): nothing looks deleted, and the untracked key stays hidden."""
    require_sandbox()
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    (ws / ".history").mkdir()
    (ws / ".history" / "notes_20261129101500.md").write_text("ordinary notes\n")
    (ws / ".history" / ".env_20261129101500").write_text("K=placeholder\n")
    _git(ws, "init", "-q")
    _git(ws, "add", "notes.md", ".history")
    _git(ws, "commit", "-qm", "start")
    (ws / ".history" / ".env_20261129101501").write_text("K=sk-proj-DATEDCOPY0123456789abcdef\n")
    box = Sandbox(ws)
    result = await sh(box, "git status --porcelain -- .history; cat .history/.env_20261129101501; "
                           "echo b >> notes.md; git -c user.name=t -c user.email=t@t commit -qam x; "
                           "echo done")
    assert "done" in result.text and "DATEDCOPY" not in result.text, result.text
    assert " D " not in result.text, result.text
    assert _git(ws, "ls-files", ".history").split() == [".history/.env_20261129101500",
                                                       ".history/notes_20261129101500.md"]
    assert _git(ws, "diff", "--stat", "HEAD~1", "HEAD", "--", ".history") == ""


async def test_a_secret_whose_folder_moves_into_a_skipped_folder_stays_hidden(ws: Path) -> None:
    """``mv config node_modules/``: found after that command, and still by the next
    one, whose search skips ``node_modules`` again (tester's H20)."""
    require_sandbox()
    box = Sandbox(ws)
    moved = await sh(box, "mv config node_modules/ && echo moved")
    assert "moved" in moved.text
    for _ in range(2):
        again = await sh(box, "grep -r HIDDENKEY node_modules ; cat node_modules/config/prod.pem; echo again")
        assert "again" in again.text and KEY not in again.text, again.text


async def test_a_secret_moved_into_a_folder_whose_mtime_is_put_back_stays_hidden(ws: Path) -> None:
    """The folder's mtime is restored after the move (``touch -d``): its listing from
    before must not be trusted (its ctime changed), and the file is found where it went."""
    require_sandbox()
    box = Sandbox(ws)
    (ws / "other").mkdir()
    past = int(time.time()) - 3600  # whole seconds, as `stat -c %Y` gives them back
    for folder in (ws / "other", ws):
        os.utime(folder, (past, past))
    await sh(box, "echo listed")
    moved = await sh(box, "m=$(stat -c %Y other); mv config other/ && touch -d @$m other && echo moved")
    assert "moved" in moved.text
    again = await sh(box, "grep -r HIDDENKEY other ; echo again")
    assert "again" in again.text and KEY not in again.text, again.text



def test_files_where_sees_each_search_s_files_though_it_keeps_its_matches(tmp_path: Path) -> None:
    """The wildcard candidates (rules on writing, configs that run code) are matched once
    per folder listing and kept: a file added since, a link asked for or not, a second
    pattern, each still gives what the folder holds now."""
    (tmp_path / "conf").mkdir()
    (tmp_path / "conf" / "notes.txt").write_text("x\n")
    (tmp_path / "conf" / "site.pem").symlink_to(tmp_path / "conf" / "notes.txt")
    index = SecretFileIndex([tmp_path])
    index.find()
    assert index.files_where(["*.pem"], 10) == []
    assert index.files_where(["*.pem"], 10, links=True) == [tmp_path / "conf" / "site.pem"]
    assert index.files_where(["*.txt"], 10) == [tmp_path / "conf" / "notes.txt"]
    (tmp_path / "conf" / "cert.pem").write_text("-----BEGIN CERTIFICATE-----\n")
    index.find()
    assert index.files_where(["*.pem"], 10) == [tmp_path / "conf" / "cert.pem"]
    (tmp_path / "conf" / "cert.pem").unlink()
    index.find()
    assert index.files_where(["*.pem"], 10) == []
