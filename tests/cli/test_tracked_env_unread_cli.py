"""Finding X11 through the console script and bubblewrap: a committed ``.env`` was bound
in the sandbox as its staged copy, so an auto-mode command that never named it read the
token and printed it reversed, base64'd or upper-cased, past the values net (which knows
the value only as written). A tracked secret file whose staged text holds values now
reads empty, and git, told to leave it as staged, still sees it unchanged: ``git status``
and ``git diff`` are clean inside and after, and the file is the user's as before. A
tracked secret file that holds no values still reads as git has it staged."""

from __future__ import annotations

import base64
import json
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from ..permissions.later_ws import git
from ..sandboxing import require_sandbox
from .conftest import RunCli, cli_home

TOKEN = "ghp_R3alS3cretT0kenValue1234567890abcd"
READER = ("python3 -c \"import os,base64; "
          "d=[open(f).read() for f in sorted(os.listdir('.')) if f.startswith('.e')]; "
          "print('LEN', len(d[0])); print('REV', d[0][::-1]); "
          "print('B64', base64.b64encode(d[0].encode()).decode()); "
          "print('UP', d[0].upper()); print('RC', d[1].strip())\"")


@pytest.fixture
def workspace(cli_env: dict[str, str]) -> Iterator[Path]:
    """A repository (outside /tmp: the sandbox's /tmp is its own) with ``.env`` committed."""
    with cli_home(cli_env, ".agent-shell-test-tracked-env-") as base:
        folder = base / "projects" / "proj"
        folder.mkdir(parents=True)
        git(folder, "init", "-q", "-b", "main")
        (folder / ".env").write_text(f"API_TOKEN={TOKEN}\n")
        (folder / ".envrc").write_text("use nix\n")  # a secret file's name, no values in it
        (folder / "main.py").write_text("print(1)\n")
        git(folder, "add", "-f", ".")
        git(folder, "commit", "-qm", "one")
        yield folder


def run(run_cli: RunCli, script: Callable[[list[Any]], str], command: str) -> str:
    turns = [{"tool_calls": [{"name": "run_shell", "args": {"command": command}}]}, "Done."]
    r = run_cli("-p", "go", "--model", script(turns), "--permission-mode", "auto", "--approve", "never",
                "--no-session", "--output-format", "json")
    assert r.returncode == 0, r.stderr
    results = [m["content"] for m in json.loads(r.stdout)["messages"] if m.get("role") == "tool"]
    assert len(results) == 1, results
    return str(results[0])


def test_a_committed_env_reads_empty_to_an_unasked_command_and_git_sees_it_unchanged(
    run_cli: RunCli, script: Callable[[list[Any]], str], workspace: Path
) -> None:
    require_sandbox()
    text = run(run_cli, script, f"{READER}; git status --porcelain; git diff --stat; echo end")
    whole = base64.b64encode(f"API_TOKEN={TOKEN}\n".encode()).decode()
    for spelled in (TOKEN, TOKEN[::-1], TOKEN.upper(), whole):
        assert spelled not in text, text
    assert "LEN 0" in text and "RC use nix" in text and "end" in text, text
    assert ".env" not in text.split("RC use nix", 1)[1].split("end", 1)[0], text  # git: nothing changed
    assert (workspace / ".env").read_text() == f"API_TOKEN={TOKEN}\n"
    status = subprocess.run(["git", "-C", str(workspace), "status", "--porcelain"], capture_output=True,
                            text=True)
    flags = subprocess.run(["git", "-C", str(workspace), "ls-files", "-v"], capture_output=True, text=True)
    assert status.stdout == "" and "S .env" not in flags.stdout, (status.stdout, flags.stdout)


def test_a_command_committing_everything_keeps_the_committed_env(
    run_cli: RunCli, script: Callable[[list[Any]], str], workspace: Path
) -> None:
    require_sandbox()
    run(run_cli, script,
        "echo more >> main.py && git add -A && git -c user.email=a@b -c user.name=a commit -qm two")
    shown = subprocess.run(["git", "-C", str(workspace), "show", "HEAD:.env"], capture_output=True, text=True)
    assert shown.stdout == f"API_TOKEN={TOKEN}\n"  # not committed emptied
    log = subprocess.run(["git", "-C", str(workspace), "log", "--oneline"], capture_output=True, text=True)
    assert len(log.stdout.splitlines()) == 2
