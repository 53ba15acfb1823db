"""Finding D19 through the console script, bubblewrap, real git and real npm: a command that
never names the hidden ``.env`` rewrites ``.gitignore`` without its line, or adds an
``.npmignore`` (npm then ignores ``.gitignore``), so the user's next ``git add -A && git push``
or ``npm publish`` ships the key. The result now says so plainly, and no longer says the
``.env`` "was removed"."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from ..sandboxing import require_sandbox
from .conftest import RunCli

Script = Callable[[list[Any]], str]
KEY = "Zx8cVb2nMq5w" + "Er9TunIgnored"
GIT_ENV = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.org", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@example.org", "GIT_CONFIG_NOSYSTEM": "1"}


def _package(workspace: Path) -> None:
    def git(*args: str) -> None:
        subprocess.run(["git", *args], cwd=workspace, check=True, capture_output=True,
                       env={**os.environ, **GIT_ENV})

    git("init", "-q", "-b", "main")
    (workspace / "package.json").write_text('{"name": "pubtest-x", "version": "1.0.0"}\n')
    (workspace / "index.js").write_text("module.exports = 1\n")
    (workspace / ".gitignore").write_text(".env\nnode_modules\n")
    (workspace / ".env").write_text(f"NPM_SECRET={KEY}\n")
    git("add", "package.json", "index.js", ".gitignore")
    git("commit", "-qm", "c")


def _results(run_cli: RunCli, script: Script, command: str) -> str:
    turns = [{"tool_calls": [{"name": "run_shell", "args": {"command": command}}]}, "Done."]
    r = run_cli("-p", "tidy up", "--model", script(turns), "--permission-mode", "auto", "--approve", "never",
                "--output-format", "jsonl")
    assert r.returncode == 0, r.stderr
    assert KEY not in r.stdout
    events = [json.loads(e) for e in r.stdout.splitlines()]
    [result] = [json.dumps(e.get("result")) for e in events if e.get("type") == "ToolExecutionEnd"]
    return result


def test_a_gitignore_rewritten_without_the_env_line_is_said_not_called_a_removal(
    run_cli: RunCli, script: Script, workspace: Path
) -> None:
    require_sandbox()
    _package(workspace)
    result = _results(run_cli, script, "printf 'node_modules\\n' > .gitignore")
    assert "[exit code 0]" in result, "the command ran (it names no secret file)"
    assert ".env is no longer ignored by git" in result and "git add -A" in result, result
    assert "removed paths .gitignore ignores" not in result, "the .env is there: it was not removed"
    assert (workspace / ".env").read_text() == f"NPM_SECRET={KEY}\n"


def test_a_new_npmignore_that_packs_the_env_is_said(
    run_cli: RunCli, script: Script, workspace: Path
) -> None:
    require_sandbox()
    if shutil.which("npm") is None:
        pytest.skip("npm is not installed")
    _package(workspace)
    result = _results(run_cli, script, "printf '# build artefacts\\ncoverage/\\n' > .npmignore")
    assert "[exit code 0]" in result
    assert "`npm pack --dry-run` now includes .env" in result and "npm publish" in result, result
    quiet = _results(run_cli, script, "printf 'coverage/\\n.env\\n' > .npmignore")
    assert "npm pack" not in quiet and "no longer ignored" not in quiet, "an .npmignore keeping .env out"


def test_a_dockerignore_losing_its_env_line_and_a_manifest_taking_everything_are_said(
    run_cli: RunCli, script: Script, workspace: Path
) -> None:
    require_sandbox()
    _package(workspace)
    (workspace / ".dockerignore").write_text(".env\n.git\n")
    (workspace / "MANIFEST.in").write_text("include README.md\n")
    result = _results(run_cli, script,
                      "printf '.git\\n' > .dockerignore; printf 'global-include *\\n' > MANIFEST.in")
    assert "[exit code 0]" in result
    assert "edit of .dockerignore makes `docker build` (its context) take .env" in result, result
    assert "edit of MANIFEST.in makes `python -m build` (the sdist) take .env" in result, result
    quiet = _results(run_cli, script, "printf '.git\\n.env\\n' > .dockerignore")
    assert "docker build" not in quiet, "an edit that keeps .env out is quiet"
