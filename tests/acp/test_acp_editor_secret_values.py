"""Finding N0 in the editor's terminal (``agent-shell acp``): a command confined like
our run_shell prints what git keeps of a hidden ``.env`` (a ``git stash -u`` entry):
it asks first (P6), and once approved the value is redacted from the result the model
gets (saved in the session file as given), and the result says so."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from typing import Any

import pytest
from acp.schema import ClientCapabilities, FileSystemCapabilities, TextContentBlock

from ..sandboxing import require_sandbox
from .conftest import EditorClient, Spawn

pytestmark = pytest.mark.anyio

STASHED = "pl41n-editor-stash-3c2b1a0f9e"
GIT_ENV = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.org", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@example.org", "GIT_CONFIG_NOSYSTEM": "1"}


async def test_the_editors_terminal_redacts_what_git_keeps_of_a_hidden_env(
    spawn: Spawn, script: Any, workspace: Path, tmp_path: Path
) -> None:
    require_sandbox()

    def git(*args: str) -> None:
        subprocess.run(["git", *args], cwd=workspace, check=True, capture_output=True,
                       env={**os.environ, **GIT_ENV})

    git("init", "-q", "-b", "main")
    (workspace / "a.txt").write_text("a\n")
    git("add", "a.txt")
    git("commit", "-qm", "init")
    (workspace / ".env").write_text(f"DATABASE={STASHED}\n")
    git("stash", "-u")
    git("stash", "apply")
    command = "git stash show -p --include-untracked; echo done"
    turns = [{"tool_calls": [{"name": "run_shell", "args": {"command": command}, "id": "s1"}]}, "Ran it."]
    client = EditorClient()
    client.answer = "allow_once"  # it asks (the store holds .env: finding P6); the user lets it run
    capabilities = ClientCapabilities(fs=FileSystemCapabilities(read_text_file=True, write_text_file=True),
                                      terminal=True)
    async with spawn(client, "--model", script(turns), "--permission-mode", "auto",
                     capabilities=capabilities) as conn:
        session = await conn.new_session(cwd=str(workspace), mcp_servers=[])
        await conn.prompt(session_id=session.session_id,
                          prompt=[TextContentBlock(type="text", text="run it")])
    [(asked, _options)] = client.permission_requests
    assert "the store holds the content of .env" in repr(asked), "asked, naming the file"
    assert client.terminal_commands, "the editor's terminal ran it"
    assert STASHED not in repr(client.updates)
    saved = b"".join(p.read_bytes() for p in (tmp_path / "data").rglob("*") if p.is_file())
    assert b"+DATABASE=[REDACTED]" in saved  # the result, as the model got it
    assert b"1 value of hidden secret files (.env) was redacted" in saved
    assert STASHED.encode() not in saved
