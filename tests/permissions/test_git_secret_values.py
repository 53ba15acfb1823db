"""Finding N0: an untracked ``.env`` once stashed with ``git stash -u``, or staged and
unstaged, is in git's object store, where the sandbox cannot hide it; in ``auto`` mode
``git stash show -p --include-untracked`` or ``git cat-file --batch-all-objects
--batch`` printed the key to the model while the result said the file was hidden.
Now the values the hidden files hold are redacted from what the model receives (the
provider's requests), from the session file, and from read_file and grep results that
are not a read of that file; ordinary output is unchanged."""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from shell.config import Settings
from shell.core.messages import AssistantMessage, ToolCallBlock
from shell.providers.scripted import ScriptedModel
from shell.runtime import RuntimeOptions, ShellRuntime
from tests.homes import made_home

from ..sandboxing import require_sandbox

pytestmark = pytest.mark.anyio

STASHED = "pl41n-stashed-7f3a9c2e1b4d"
"""Not shaped like any key: only the values net can find it (the session's redactor
knows the shapes, so a shaped key would hide a leak from the session file check)."""
PROVIDER_KEY = "sk-proj-STASHED0123456789abcdefXYZ"
DANGLING = "pl41n-dangling-0a9b8c7d6e5f"
GIT_ENV = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.org", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@example.org", "GIT_CONFIG_NOSYSTEM": "1"}


@pytest.fixture
def repo(monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """The tester's repository: ``.env`` stashed with ``-u`` and applied (the stash entry
    stays), ``.env.local`` staged and unstaged (a loose blob); both untracked now."""
    base = made_home(".agent-shell-test-git-values-")
    ws = base / "project"
    ws.mkdir()
    monkeypatch.setenv("AGENT_SHELL_DATA_DIR", str(base / "data"))
    monkeypatch.setenv("AGENT_SHELL_CONFIG_DIR", str(base / "config"))
    for name, value in GIT_ENV.items():
        monkeypatch.setenv(name, value)

    def git(*args: str) -> None:
        subprocess.run(["git", *args], cwd=ws, check=True, capture_output=True, env={**os.environ, **GIT_ENV})

    git("init", "-q", "-b", "main")
    (ws / "a.txt").write_text("a\n")
    git("add", "a.txt")
    git("commit", "-qm", "init")
    (ws / ".env").write_text(f"OPENAI_API_KEY={PROVIDER_KEY}\nDATABASE={STASHED}\n")
    git("stash", "-u")
    git("stash", "apply")
    (ws / ".env.local").write_text(f"AWS_SECRET={DANGLING}\nNODE_ENV=production\n")
    git("add", ".env.local")
    git("rm", "-q", "--cached", ".env.local")
    status = subprocess.run(["git", "status", "--short"], cwd=ws, capture_output=True, text=True).stdout
    assert status.split() == ["??", ".env", "??", ".env.local"]
    try:
        yield ws
    finally:
        shutil.rmtree(base, ignore_errors=True)


def calls(*commands: str) -> AssistantMessage:
    return AssistantMessage(tuple(ToolCallBlock(f"c{n}", "run_shell", {"command": c})
                                  for n, c in enumerate(commands)))


async def test_what_git_keeps_of_hidden_secret_files_reaches_neither_provider_nor_session(repo: Path) -> None:
    require_sandbox()
    model = ScriptedModel([
        calls("git stash show -p --include-untracked",
              "git cat-file --batch-all-objects --batch | grep -a -e DATABASE -e AWS -e NODE -e OPENAI",
              "git log --all -p | grep -i -e database -e key"),
        "Done.",
    ])
    runtime = ShellRuntime.create(RuntimeOptions(cwd=str(repo), permission_mode="bypass"),
                                  settings=Settings(path=repo.parent / "none.toml"),
                                  model=model)  # type: ignore[arg-type]
    async for _ in runtime.reply("look around"):  # bypass: in auto these ask (P6); the net is the second
        pass
    await runtime.aclose()
    sent = repr([r.messages for r in model.requests])
    for secret in (STASHED, PROVIDER_KEY, DANGLING):
        assert secret not in sent
    assert "+DATABASE=[REDACTED]" in sent  # stash show ran and printed the file's lines
    assert "AWS_SECRET=[REDACTED]" in sent  # the loose blob, from cat-file
    assert "NODE_ENV=production" in sent  # what is no secret reads as it is
    assert "values of hidden secret files (.env" in sent
    assert "hidden from this command" not in sent  # no claim that git could not show them
    saved = b"".join(p.read_bytes() for p in (repo.parent / "data").rglob("*") if p.is_file())
    assert saved, "no session file was written"
    for secret in (STASHED, DANGLING):
        assert secret.encode() not in saved


async def test_read_file_and_grep_redact_the_values_of_secret_files_they_did_not_read(repo: Path) -> None:
    (repo / "notes.txt").write_text(f"copied from .env: {STASHED}\nand the rest\n")
    model = ScriptedModel([
        AssistantMessage((ToolCallBlock("r1", "read_file", {"path": "notes.txt"}),
                          ToolCallBlock("g1", "grep", {"pattern": "pl41n"}),
                          ToolCallBlock("r2", "read_file", {"path": ".env"}))),
        "Done.",
    ])
    runtime = ShellRuntime.create(RuntimeOptions(cwd=str(repo), permission_mode="bypass"),
                                  settings=Settings(path=repo.parent / "none.toml"),
                                  model=model)  # type: ignore[arg-type]
    async for _ in runtime.reply("look around"):
        pass
    await runtime.aclose()
    results = {m.call_id: m.text for m in model.requests[-1].messages if getattr(m, "call_id", None)}
    assert STASHED not in results["r1"] and "copied from .env: [REDACTED]" in results["r1"]
    assert "and the rest" in results["r1"]
    assert "1 value of hidden secret files (.env) was redacted" in results["r1"]
    assert STASHED not in results["g1"] and "notes.txt" in results["g1"]
    assert STASHED in results["r2"]  # reading .env itself (bypass: nothing asks) shows it as it is
