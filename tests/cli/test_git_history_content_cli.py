"""Findings C1 and C3 through the console script, real git and bubblewrap: secrets only
git's history holds, where the history search did not look.

C1: a Kubernetes Secret manifest removed, a compose password replaced by ``${VAR}`` (the
usual fix): files judged secret by their content, not their name, so ``git log -p | grep
-i password | rev`` ran unasked and printed both passwords (reversed: past the values
net). C3: a removed ``.env`` in a repository one folder down (the workspace a folder of
projects, or a gitignored ``vendor/`` clone inside the workspace's repository): only the
root's repository was searched. Now each asks in ``auto``, and in ``bypass`` the values
are redacted where printed."""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from ..sandboxing import require_sandbox
from .conftest import RunCli

Script = Callable[[list[Any]], str]
ASKED = "need approval are not allowed in this run (--approve never)"
K8S_PASSWORD = "Qm4vPz8rLk2sXw9T"
PG_PASSWORD = "Hd7sKq2vNm4xPz9R"
TOKEN = "Yt83hdPq2LmXz7Rt"
GIT_ENV = {"GIT_CONFIG_GLOBAL": "/dev/null", "GIT_CONFIG_NOSYSTEM": "1", "GIT_AUTHOR_NAME": "t",
           "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@t"}


def git(where: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=where, check=True, capture_output=True, env={**os.environ, **GIT_ENV})


def content_secrets_removed(ws: Path) -> None:
    """The tester's ws2: a Secret manifest and a compose password, committed, then the
    manifest removed and the password replaced by ``${PG_PASSWORD}``."""
    git(ws, "init", "-q", "-b", "main")
    (ws / "k8s").mkdir()
    (ws / "k8s" / "db.yaml").write_text("apiVersion: v1\nkind: Secret\nmetadata:\n  name: db\ntype: Opaque\n"
                                        f"stringData:\n  password: {K8S_PASSWORD}\n")
    compose = "services:\n  db:\n    image: postgres\n    environment:\n      POSTGRES_PASSWORD: {}\n"
    (ws / "docker-compose.yml").write_text(compose.format(PG_PASSWORD))
    (ws / "a.txt").write_text("a\n")
    git(ws, "add", ".")
    git(ws, "commit", "-qm", "p1")
    git(ws, "rm", "-q", "k8s/db.yaml")
    (ws / "docker-compose.yml").write_text(compose.format("${PG_PASSWORD}"))
    git(ws, "commit", "-qam", "rm")


def removed_env(repo: Path) -> None:
    repo.mkdir(parents=True, exist_ok=True)
    git(repo, "init", "-q", "-b", "main")
    (repo / ".env").write_text(f"TOKEN={TOKEN}\n")
    (repo / "a.txt").write_text("a\n")
    git(repo, "add", ".")
    git(repo, "commit", "-qm", "p1")
    git(repo, "rm", "-q", ".env")
    git(repo, "commit", "-qm", "rm")


def folder_of_projects(ws: Path) -> None:
    """The tester's ws10: the workspace is no repository; proj/ is one."""
    removed_env(ws / "proj")


def ignored_clone(ws: Path) -> None:
    """The tester's ws11: the workspace is a repository; vendor/ (gitignored) is a clone
    whose history holds a removed ``.env``."""
    git(ws, "init", "-q", "-b", "main")
    (ws / ".gitignore").write_text("vendor/\n")
    (ws / "b.txt").write_text("b\n")
    git(ws, "add", ".")
    git(ws, "commit", "-qm", "ws")
    removed_env(ws / "vendor")


def run(run_cli: RunCli, script: Script, commands: list[str], mode: str) -> str:
    """One turn of ``run_shell`` calls; what the model was sent back (the tool results)."""
    turns = [{"tool_calls": [{"name": "run_shell", "args": {"command": c}} for c in commands]}, "Done."]
    done = run_cli("-p", "go", "--model", script(turns), "--output-format", "json", "--no-session",
                   "--permission-mode", mode, "--approve", "never", timeout=180)
    assert done.returncode in (0, 1), done.stderr
    found: list[str] = []
    for line in done.stdout.splitlines():
        try:
            item = json.loads(line)
        except ValueError:
            continue
        if isinstance(item, dict):
            found += [json.dumps(m) for m in item.get("messages", []) if isinstance(m, dict)
                      and m.get("role") == "tool"]
    return "\n".join(found)


def test_content_judged_secrets_only_history_holds_ask_and_are_redacted(
    run_cli: RunCli, script: Script, workspace: Path
) -> None:
    require_sandbox()
    content_secrets_removed(workspace)
    reversed_line = "git log -p | grep -i password | rev"
    sent = run(run_cli, script, [reversed_line], "auto")
    assert ASKED in sent, sent[-2000:]
    for value in (K8S_PASSWORD, PG_PASSWORD):
        assert value not in sent and value[::-1] not in sent, sent[-2000:]
    sent = run(run_cli, script, ["git log -p | grep -i password"], "bypass")  # the values net, the second net
    assert "POSTGRES_PASSWORD: [REDACTED]" in sent and "password: [REDACTED]" in sent, sent[-2000:]
    assert K8S_PASSWORD not in sent and PG_PASSWORD not in sent, sent[-2000:]
    assert "${PG_PASSWORD}" in sent  # the command ran and printed the placeholder, as it is


@pytest.mark.parametrize(("shape", "folder"), [(folder_of_projects, "proj"), (ignored_clone, "vendor")])
def test_a_nested_repositorys_history_is_searched_too(
    run_cli: RunCli, script: Script, workspace: Path, shape: Callable[[Path], None], folder: str
) -> None:
    require_sandbox()
    shape(workspace)
    lines = [f"git -C {folder} log -p | grep TOKEN | rev", f"cd {folder} && git log -p | grep TOKEN | rev"]
    sent = run(run_cli, script, lines, "auto")
    assert sent.count(ASKED) == 2, sent[-2000:]
    assert TOKEN not in sent and TOKEN[::-1] not in sent, sent[-2000:]
    sent = run(run_cli, script, [f"git -C {folder} log -p | grep TOKEN"], "bypass")
    assert "-TOKEN=[REDACTED]" in sent and TOKEN not in sent, sent[-2000:]
    assert f"{folder}/.env (in git's history)" in sent, sent[-2000:]


def many_projects(ws: Path) -> None:
    """20 repositories in the workspace (a repository ignoring them): 16 were searched, and only
    the last, ``p19``, holds a removed ``.env``."""
    git(ws, "init", "-q", "-b", "main")
    (ws / ".gitignore").write_text("p*/\n")
    git(ws, "add", ".")
    git(ws, "commit", "-qm", "ws")
    for n in range(19):
        repo = ws / f"p{n:02d}"
        repo.mkdir()
        git(repo, "init", "-q", "-b", "main")
        (repo / "a.txt").write_text("a\n")
        git(repo, "add", ".")
        git(repo, "commit", "-qm", "p1")
    removed_env(ws / "p19")


def test_a_repository_past_the_searched_ones_is_searched_when_a_command_names_it(
    run_cli: RunCli, script: Script, workspace: Path
) -> None:
    """``git -C p19 log -p`` printed the key unasked and unredacted: only the first 16 nested
    repositories the walk saw were searched. The ones a line names are searched for it; a
    line that reaches one through a place known only when it runs asks."""
    require_sandbox()
    many_projects(workspace)
    sent = run(run_cli, script, ["git -C p03 log -p"], "auto")  # a clean one: runs as before
    assert ASKED not in sent and "p1" in sent, sent[-2000:]
    lines = ["git -C p19 log -p | grep TOKEN | rev", "cd p19 && git log -p | grep TOKEN | rev",
             "for d in p*; do git -C $d log -p; done | grep TOKEN | rev"]
    sent = run(run_cli, script, lines, "auto")
    assert sent.count(ASKED) == 3, sent[-3000:]
    assert TOKEN not in sent and TOKEN[::-1] not in sent, sent[-2000:]
    sent = run(run_cli, script, ["git -C p19 log -p | grep TOKEN"], "bypass")
    assert "-TOKEN=[REDACTED]" in sent and TOKEN not in sent, sent[-2000:]
