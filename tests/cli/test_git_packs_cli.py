"""Findings X8 and X9 through the console script and bubblewrap: a scripted model's one
approved command rewrites the repository's pack and index in place, or writes a
multi-pack-index over honest new packs, so that the committed Makefile's id reads as an
evil one. After the command the user's own git shows and checks out the committed
Makefile, and the tool result the model (and the user) reads says what was found and
done. The in-place case runs with the session kept, as a user's run does (its keep of
git history links the pack before the command)."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from ..permissions.later_ws import git
from ..permissions.test_git_packs import APPEND_IN_PLACE, FORGE_MIDX, packed, shows_the_committed_makefile
from ..sandboxing import require_sandbox
from .conftest import RunCli, cli_home


@pytest.fixture
def home(cli_env: dict[str, str]) -> Iterator[Path]:
    with cli_home(cli_env, ".agent-shell-test-packs-cli-") as base:
        yield base


@pytest.fixture
def workspace(home: Path) -> Path:
    folder = home / "projects" / "proj"
    folder.mkdir(parents=True)
    return folder


def result_of(run_cli: RunCli, script: Callable[[list[Any]], str], command: str, *extra: str) -> str:
    turns = [{"tool_calls": [{"name": "run_shell", "args": {"command": command}}]}, "Done."]
    r = run_cli("-p", "go", "--model", script(turns), "--approve", "always", "--output-format", "json",
                *extra, timeout=180)
    assert r.returncode == 0, r.stderr
    results = [m["content"] for m in json.loads(r.stdout)["messages"] if m.get("role") == "tool"]
    assert len(results) == 1, results
    return str(results[0])


def test_a_pack_rewritten_in_place_is_said_and_git_shows_the_committed_file(
        run_cli: RunCli, script: Callable[[list[Any]], str], workspace: Path) -> None:
    require_sandbox()
    pack = packed(workspace)
    (workspace / "forge.py").write_text(APPEND_IN_PLACE)
    out = result_of(run_cli, script, f"python3 forge.py {pack} && rm forge.py && git show HEAD:Makefile")
    assert "evil.example" in out  # it did take, inside the sandbox
    assert "rewrote in place" in out and "git-packs" in out
    shows_the_committed_makefile(workspace)
    assert git(workspace, "status", "--short") == ""


def test_a_forged_multi_pack_index_is_said_and_git_shows_the_committed_file(
        run_cli: RunCli, script: Callable[[list[Any]], str], workspace: Path) -> None:
    require_sandbox()
    packed(workspace)
    (workspace / "forge.py").write_text(FORGE_MIDX)
    command = "python3 forge.py && rm forge.py && git show HEAD:Makefile"
    out = result_of(run_cli, script, command, "--no-session")
    assert "evil.example" in out
    assert "multi-pack-index that does not match" in out and "moved to" in out
    shows_the_committed_makefile(workspace)
