"""What runs later, planted by a command that covers its tracks: the after-command
check must not trust what the command itself can set (a folder's mtime), and must
know a git directory by git's own rules, not by its name. Against the real bubblewrap."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from shell.permissions.sandbox import Sandbox
from shell.tools.shell_cmd import run_command

from ..sandboxing import require_sandbox
from .later_ws import GIT_ENV, later_workspace

pytestmark = pytest.mark.anyio

@pytest.fixture
def ws(monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    yield from later_workspace(monkeypatch, ".agent-shell-test-forged-")


async def run(box: Sandbox, command: str) -> Any:
    return await run_command(command, box.workspace, 30, lambda _: None, sandbox=box)


def git(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True,
                          env={**os.environ, **GIT_ENV})


@pytest.mark.parametrize("plant, planted", [
    ("git init -q pkg/lib && printf '#!/bin/sh\\ntouch pwned\\n' > pkg/lib/.git/hooks/pre-commit "
     "&& chmod +x pkg/lib/.git/hooks/pre-commit", "pkg/lib/.git/hooks/pre-commit"),
    ("mkdir pkg/.vscode && echo '{}' > pkg/.vscode/tasks.json", "pkg/.vscode"),
])
async def test_a_folder_mtime_put_back_does_not_hide_what_was_planted(
        ws: Path, plant: str, planted: str) -> None:
    """Tester finding H21: the walk kept each folder's listing by its mtime, which
    ``touch -d`` puts back; a nested hook or .vscode planted that way stayed."""
    require_sandbox()
    (ws / "pkg").mkdir()
    old = 1_000_000_000
    os.utime(ws / "pkg", (old, old))
    box = Sandbox(ws)
    await run(box, "echo warmup")  # the walk has listed pkg/ by now
    result = await run(box, f"m=$(stat -c %Y pkg); {plant} && touch -d @$m pkg && echo planted")
    assert "planted" in result.text
    assert not (ws / planted).exists()
    assert planted in result.text and "moved out of the workspace" in result.text


FSMONITOR = ("[core]\\n\\trepositoryformatversion = 0\\n\\tbare = false\\n\\tworktree = .\\n"
             "\\tfsmonitor = touch pwned\\n")
GIT_DIR = "mkdir -p objects refs/heads && echo 'ref: refs/heads/main' > HEAD"


async def test_a_folder_made_a_git_directory_loses_a_config_that_runs_commands(ws: Path) -> None:
    """Tester finding H12: git takes any folder holding HEAD, objects/ and refs/ for a
    git directory and runs its config's core.fsmonitor at the next ``git status`` (a
    git-aware prompt runs one at ``cd``): such a config is quarantined like .git/config."""
    require_sandbox()
    (ws / "docs").mkdir()
    (ws / "docs" / "readme.md").write_text("docs\n")
    box = Sandbox(ws)
    result = await run(box, f"cd docs && {GIT_DIR} && printf '{FSMONITOR}' > config && echo done")
    assert not (ws / "docs" / "config").exists()
    assert "docs/config" in result.text and "core.fsmonitor" in result.text
    git(ws / "docs", "status")
    assert not (ws / "docs" / "pwned").exists()


async def test_a_config_planted_first_is_judged_when_a_later_command_makes_its_git_dir(ws: Path) -> None:
    require_sandbox()
    (ws / "docs").mkdir()
    box = Sandbox(ws)
    await run(box, f"printf '{FSMONITOR}' > docs/config")  # only a file named config, so far
    assert (ws / "docs" / "config").exists()
    result = await run(box, f"cd docs && {GIT_DIR} && echo done")
    assert not (ws / "docs" / "config").exists()
    assert "docs/config" in result.text


async def test_a_bare_repository_keeps_its_own_config_and_loses_a_pager(ws: Path) -> None:
    require_sandbox()
    box = Sandbox(ws)
    kept = await run(box, "git init -q --bare plain.git && echo done")
    assert (ws / "plain.git" / "config").exists() and kept.details["quarantined"] == []
    result = await run(box, "git init -q --bare bare.git && git -C bare.git config core.pager 'touch pwned'")
    assert not (ws / "bare.git" / "config").exists()
    assert "core.pager" in result.text
    changed = await run(box, "git -C plain.git config core.pager 'touch pwned'")  # read-only now
    assert "core.pager" not in (ws / "plain.git" / "config").read_text(), changed.text


@pytest.mark.parametrize("mode", ["accept-edits", "auto"])
def test_file_edits_that_make_a_git_directory_ask(tmp_path: Path, mode: str) -> None:
    """H12 through the file tools: four write_file calls (HEAD, objects/, refs/, a config
    with core.fsmonitor) made docs/ a git directory with no question in accept-edits."""
    from shell.permissions.policy import PermissionPolicy
    from shell.permissions.rules import parse_rules
    from shell.tools.builtin import builtin_tools
    from shell.tools.workspace import Workspace

    rules, _ = parse_rules({"allow": ["write_file", "edit_file(**)"]}, "user")
    p = PermissionPolicy(tmp_path, mode=mode, user_rules=rules, user_config=tmp_path / "c.toml")
    write = {t.name: t for t in builtin_tools(Workspace(tmp_path))}["write_file"]
    assert p.decide(write, {"path": "docs/HEAD", "content": "ref: refs/heads/main\n"}).action == "ask"
    assert p.decide(write, {"path": "docs/config", "content": ""}).action == "allow"  # no HEAD there
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "HEAD").write_text("ref: refs/heads/main\n")  # say the user allowed it
    for path in ("docs/config", "docs/hooks/pre-commit", "docs/commondir"):
        verdict = p.decide(write, {"path": path, "content": ""})
        assert verdict.action == "ask" and "git" in verdict.reason, path


PLANT_PYC = """
import marshal, os, sys
from importlib.util import MAGIC_NUMBER
st = os.stat('util.py')
code = compile("open('pwned', 'w').close()\\ndef f():\\n    return 1\\n", 'util.py', 'exec')
header = MAGIC_NUMBER + (0).to_bytes(4, 'little') + (int(st.st_mtime) & 0xFFFFFFFF).to_bytes(4, 'little')
os.makedirs('__pycache__', exist_ok=True)
path = f'__pycache__/util.{sys.implementation.cache_tag}.pyc'
with open(path, 'wb') as fh:
    fh.write(header + (st.st_size & 0xFFFFFFFF).to_bytes(4, 'little') + marshal.dumps(code))
print('cached', path)
"""


def python_project(ws: Path) -> None:
    (ws / "util.py").write_text("def f():\n    return 1\n")
    (ws / "app.py").write_text("import util\nprint('app ok', util.f())\n")
    (ws / "plant.py").write_text(PLANT_PYC)


def user_runs_app(ws: Path) -> str:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPYCACHEPREFIX", "PYTHONDONTWRITEBYTECODE")}
    return subprocess.run(["python3", "app.py"], cwd=ws, capture_output=True, text=True, env=env).stdout


async def test_a_planted_pyc_does_not_run_at_the_users_next_python(ws: Path) -> None:
    """Tester finding H13: a .pyc whose header copies the source's mtime and size runs
    instead of util.py at the user's next ``python app.py``; git shows nothing."""
    require_sandbox()
    python_project(ws)
    box = Sandbox(ws)
    result = await run(box, "python3 plant.py")
    assert "cached" in result.text
    assert not (ws / "__pycache__").exists()
    assert "__pycache__" in result.text and "moved out of the workspace" in result.text
    assert user_runs_app(ws).strip() == "app ok 1"
    assert not (ws / "pwned").exists()


async def test_the_users_own_pycache_is_read_only_and_commands_cache_elsewhere(ws: Path) -> None:
    require_sandbox()
    python_project(ws)
    assert user_runs_app(ws).strip() == "app ok 1"  # the user's own python wrote __pycache__
    cached = sorted((ws / "__pycache__").iterdir())
    before = [p.read_bytes() for p in cached]
    box = Sandbox(ws)
    ran = await run(box, "python3 app.py")  # caches in the command's private /tmp
    assert "app ok 1" in ran.text and ran.details["quarantined"] == []
    await run(box, "python3 plant.py")
    assert [p.read_bytes() for p in cached] == before
    user_runs_app(ws)
    assert not (ws / "pwned").exists()


async def test_a_sourceless_pyc_is_moved_out(ws: Path) -> None:
    """A ``json.pyc`` beside app.py is imported before the standard library's json."""
    require_sandbox()
    python_project(ws)
    box = Sandbox(ws)
    compile_json = "import py_compile; py_compile.compile('util.py', cfile='json.pyc')"
    result = await run(box, f'python3 -c "{compile_json}"')
    assert not (ws / "json.pyc").exists()
    assert "json.pyc" in result.text


async def test_git_info_exclude_cannot_hide_a_planted_file_from_git_status(ws: Path) -> None:
    """Tester finding H15: ``echo conftest.py >> .git/info/exclude`` hid a planted
    conftest.py from the user's ``git status``; .git/info is read-only like the hooks,
    and a new repository's info/ that hides something is moved out."""
    require_sandbox()
    git(ws, "init", "-q")
    box = Sandbox(ws)
    await run(box, "echo 'import os' > conftest.py; echo conftest.py >> .git/info/exclude")
    assert "conftest.py" in git(ws, "status", "--short").stdout
    fresh = await run(box, "git init -q fresh && echo done")
    assert (ws / "fresh" / ".git" / "info" / "exclude").exists() and fresh.details["quarantined"] == []
    hidden = await run(box, "git init -q sub && echo x > sub/f && echo f >> sub/.git/info/exclude")
    assert not (ws / "sub" / ".git" / "info").exists()
    assert "info/exclude" in hidden.text


async def test_index_flags_that_hide_an_edit_from_git_status_are_cleared_and_said(ws: Path) -> None:
    """Tester finding H15: ``git update-index --skip-worktree Makefile`` after editing
    it left the user's git status and git diff clean, and make test ran the edit."""
    require_sandbox()
    git(ws, "init", "-q")
    (ws / "Makefile").write_text("test:\n\t@echo running tests\n")
    (ws / "notes.txt").write_text("notes\n")
    git(ws, "add", ".")
    git(ws, "commit", "-qm", "one")
    box = Sandbox(ws)
    result = await run(box, "echo '\t@touch pwned' >> Makefile && echo more >> notes.txt && "
                            "git update-index --skip-worktree Makefile && "
                            "git update-index --assume-unchanged notes.txt && echo clean")
    assert "clean" in result.text
    status = git(ws, "status", "--short").stdout
    assert "Makefile" in status and "notes.txt" in status
    assert "Makefile" in result.text and "skip-worktree" in result.text
    quiet = await run(box, "git status --short")  # nothing new hidden: nothing said
    assert "skip-worktree" not in quiet.text


async def test_index_flags_are_cleared_in_nested_repositories_submodules_and_worktrees(ws: Path) -> None:
    """The flag check read only the workspace's own ``.git``: an edit hidden with
    ``--skip-worktree`` in ``vendor/lib`` (a repository of its own), a submodule
    (``.git/modules/sub``) or a worktree (``.git/worktrees/wt``) stayed hidden."""
    require_sandbox()
    for repo in (ws / "src", ws / "vendor" / "lib"):
        repo.mkdir(parents=True)
        git(repo, "init", "-q")
        (repo / "run.sh").write_text("echo hi\n")
        git(repo, "add", ".")
        git(repo, "commit", "-qm", "one")
    git(ws, "init", "-q")
    (ws / "top.txt").write_text("top\n")
    git(ws, "add", "top.txt")
    git(ws, "commit", "-qm", "top")
    added = git(ws, "-c", "protocol.file.allow=always", "submodule", "add", "-q", str(ws / "src"), "sub")
    assert added.returncode == 0, added.stderr
    git(ws, "commit", "-qm", "sub")
    git(ws, "worktree", "add", "-q", "wt")
    assert (ws / ".git" / "modules" / "sub").is_dir() and (ws / ".git" / "worktrees" / "wt").is_dir()
    box = Sandbox(ws)
    result = await run(box, "for d in vendor/lib sub; do echo 'touch pwned' >> $d/run.sh && "
                            "git -C $d update-index --skip-worktree run.sh; done && "
                            "echo edit >> wt/top.txt && git -C wt update-index --assume-unchanged top.txt && "
                            "echo hidden")
    assert "hidden" in result.text
    for tree, name in ((ws / "vendor" / "lib", "run.sh"), (ws / "sub", "run.sh"), (ws / "wt", "top.txt")):
        assert name in git(tree, "status", "--short").stdout, tree  # the edit shows again
        assert (tree / name).relative_to(ws).as_posix() in result.text
    assert result.text.count("skip-worktree or assume-unchanged") == 3
