"""Finding X14 through the console script, real bubblewrap and real git: an honest ``git
add`` + commit of a file over 256 MB (loose: git packs only past core.bigFileThreshold,
512 MB) was called forged by the objects check after the command, moved out, and HEAD's
commit was left naming a missing blob ("nothing refers to it", said without looking).
Objects now have no size cap (the check has a time bound instead): the object stays, the
commit is whole, and nothing is said of it."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from ..permissions.later_ws import git
from ..sandboxing import require_sandbox
from .conftest import RunCli, cli_home

SIZE = 270_000_000
"""Over the old 256 MB cap, under git's 512 MB bigFileThreshold (a loose object)."""


@pytest.fixture
def workspace(cli_env: dict[str, str]) -> Iterator[Path]:
    """A repository (outside /tmp: the sandbox's /tmp is its own) with one commit."""
    with cli_home(cli_env, ".agent-shell-test-big-object-") as base:
        folder = base / "projects" / "proj"
        folder.mkdir(parents=True)
        git(folder, "init", "-q", "-b", "main")
        (folder / "main.py").write_text("print(1)\n")
        git(folder, "add", ".")
        git(folder, "commit", "-qm", "one")
        yield folder


def test_a_committed_file_over_256_mb_stays_whole(
    run_cli: RunCli, script: Callable[[list[Any]], str], workspace: Path
) -> None:
    require_sandbox()
    command = (f"head -c {SIZE} /dev/zero | tr '\\0' x > data.bin && git add data.bin && "
               "git -c user.email=a@b -c user.name=a commit -qm 'add dataset' && echo COMMITTED")
    turns = [{"tool_calls": [{"name": "run_shell", "args": {"command": command}}]}, "Done."]
    done = run_cli("-p", "go", "--model", script(turns), "--permission-mode", "auto", "--approve", "never",
                   "--no-session", "--output-format", "json", timeout=300)
    assert done.returncode == 0, done.stderr
    sent = json.dumps(json.loads(done.stdout.splitlines()[-1])["messages"])
    assert "COMMITTED" in sent, sent
    assert "not what its name says" not in sent and "nothing refers to it" not in sent, sent
    fsck = subprocess.run(["git", "-C", str(workspace), "fsck", "--no-dangling"], capture_output=True,
                          text=True)
    assert fsck.returncode == 0 and "missing" not in fsck.stdout + fsck.stderr, fsck.stdout + fsck.stderr
    assert git(workspace, "cat-file", "-s", "HEAD:data.bin").strip() == str(SIZE)
