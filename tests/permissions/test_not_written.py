"""A sandboxed command that could not write what runs later as the user, yet exited 0
(``git checkout`` of a branch that changes ``.vscode/``): the model reads which files
were NOT written, the user sees a ⚠ under the call, and a resumed session shows it again."""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from shell.config import Settings
from shell.core import events as ev
from shell.core.messages import AssistantMessage, ToolCallBlock, ToolResult
from shell.frontend.recap import notes_again
from shell.frontend.reply import ReplyState, call_lines, calls_from_messages
from shell.permissions.runslater import refused_writes
from shell.permissions.sandbox import Sandbox
from shell.providers.scripted import ScriptedModel
from shell.runtime import RuntimeOptions, ShellRuntime
from shell.tools.shell_cmd import run_command
from tests.homes import made_home

from ..sandboxing import require_sandbox

pytestmark = pytest.mark.anyio

GIT_ENV = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.org", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@example.org", "GIT_CONFIG_NOSYSTEM": "1"}


@pytest.fixture
def repo(monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A repository outside /tmp (the sandbox's /tmp is private) whose branch ``other``
    changes .vscode/settings.json and adds .vscode/tasks.json."""
    base = made_home(".agent-shell-test-not-written-")
    ws = base / "project"
    ws.mkdir()
    monkeypatch.setenv("AGENT_SHELL_DATA_DIR", str(base / "data"))
    monkeypatch.setenv("AGENT_SHELL_CONFIG_DIR", str(base / "config"))
    for name, value in GIT_ENV.items():
        monkeypatch.setenv(name, value)

    def git(*args: str) -> None:
        subprocess.run(["git", *args], cwd=ws, check=True, capture_output=True, env={**os.environ, **GIT_ENV})

    git("init", "-q", "-b", "main")
    (ws / ".vscode").mkdir()
    (ws / ".vscode" / "settings.json").write_text("{}\n")
    (ws / "a.txt").write_text("a\n")
    git("add", "-A")
    git("commit", "-qm", "one")
    git("checkout", "-qb", "other")
    (ws / ".vscode" / "settings.json").write_text('{"terminal.integrated.shell": "evil"}\n')
    (ws / ".vscode" / "tasks.json").write_text("{}\n")
    (ws / "a.txt").write_text("b\n")
    git("add", "-A")
    git("commit", "-qm", "two")
    git("checkout", "-q", "main")
    try:
        yield ws
    finally:
        shutil.rmtree(base, ignore_errors=True)


async def test_a_checkout_that_exits_0_says_which_files_it_did_not_write(repo: Path) -> None:
    require_sandbox()
    box = Sandbox(repo)
    result = await run_command("git checkout other", box.workspace, 30, lambda _: None, sandbox=box)
    assert (repo / "a.txt").read_text() == "b\n"  # the rest of the checkout happened
    assert (repo / ".vscode" / "settings.json").read_text() == "{}\n"  # this did not
    assert result.details["exit_code"] == 0
    assert result.details["not_written"] == [".vscode/settings.json", ".vscode/tasks.json"]
    assert "these files were NOT written, although it exited 0: .vscode/settings.json, .vscode/tasks.json" \
        in result.text
    state = ReplyState()
    for event in (ev.ToolCallEnd("c", "run_shell", {"command": "git checkout other"}),
                  ev.ToolExecutionEnd("c", result, 0.2)):
        state.apply(event)
    lines = call_lines(state.calls["c"])
    assert lines[-1].startswith("  ⚠ NOT written") and ".vscode/settings.json" in lines[-1]


def sparse(repo: Path) -> None:
    """The user made the checkout sparse (outside the sandbox): info/sparse-checkout exists."""
    subprocess.run("git sparse-checkout init --cone && git sparse-checkout set .vscode", shell=True, cwd=repo,
                   check=True, capture_output=True, env={**os.environ, **GIT_ENV})


async def test_git_failing_on_its_own_lock_file_is_said_as_the_sandbox_not_an_attack(repo: Path) -> None:
    """``git sparse-checkout set`` in the sandbox fails creating
    ``.git/info/sparse-checkout.lock``: a file git itself makes for any update. The
    result said "these files were NOT written, (it exited 128): /abs/…/sparse-checkout.lock.
    They run later as the user …, git will list them as changed", and the user saw ⚠ NOT
    written under the call. Now it names the file git meant to update, says why, and
    claims nothing git status would show."""
    require_sandbox()
    sparse(repo)
    box = Sandbox(repo)
    result = await run_command("git sparse-checkout set src", box.workspace, 30, lambda _: None, sandbox=box)
    assert result.details["exit_code"] != 0 and result.details["not_written"] == []
    said = result.text.split("[exit code")[1]
    assert "git could not update .git/info/sparse-checkout (it could not create the .lock file" in said, said
    assert "This is the sandbox, not a fault in the repository" in said
    assert "NOT written" not in said and "will list them as changed" not in said and ".lock:" not in said
    assert str(repo) not in said  # relative, as the user reads it
    config = await run_command("git config user.name x", box.workspace, 30, lambda _: None, sandbox=box)
    notes = config.text.split("[exit code")[1]
    assert "git's config is read-only in the sandbox" in notes and "NOT written" not in notes, notes
    assert "(it exited 4)" not in notes  # said once, by the config note


async def test_words_a_command_prints_do_not_make_a_not_written_claim(repo: Path) -> None:
    """Only paths the sandbox did keep read-only count: printing git's error about
    another path (or a protected name that is not there) claims nothing."""
    require_sandbox()
    box = Sandbox(repo)
    forged = ("echo \"error: unable to create file src/.vscode/x.json: Read-only file system\"; "
              "echo \"error: unable to unlink old 'notes.txt': Read-only file system\"")
    result = await run_command(forged, box.workspace, 30, lambda _: None, sandbox=box)
    assert result.details["not_written"] == [] and "NOT written" not in result.text
    assert refused_writes("error: unable to create file src/.vscode/x.json: Read-only file system") == \
        ["src/.vscode/x.json"]  # the parser alone would have believed it


async def test_a_resumed_session_says_again_what_was_not_written(repo: Path) -> None:
    require_sandbox()
    checkout = AssistantMessage((ToolCallBlock("c1", "run_shell", {"command": "git checkout other"}),))

    def runtime(turns: list[object]) -> ShellRuntime:
        return ShellRuntime.create(RuntimeOptions(cwd=str(repo), permission_mode="auto"),
                                   settings=Settings(path=repo.parent / "none.toml"),
                                   model=ScriptedModel(turns))  # type: ignore[arg-type]

    first = runtime([checkout, "Switched."])
    async for _ in first.reply("switch to other"):
        pass
    await first.aclose()
    again = runtime(["ok"])
    again.resume(latest=True)
    assert again.call_notes == {"c1": {"not_written": [".vscode/settings.json", ".vscode/tasks.json"]}}
    calls = calls_from_messages(again.agent.messages, again.call_outcomes, again.call_notes)
    assert calls["c1"].warning.startswith("NOT written") and calls["c1"].status == "done"
    [said] = notes_again(again.call_notes)
    assert said.startswith("Earlier in this session a sandboxed command could not write files that run later")
    assert ".vscode/tasks.json" in said


def test_a_plain_result_gets_no_warning() -> None:
    state = ReplyState()
    for event in (ev.ToolCallEnd("d", "run_shell", {"command": "ls"}),
                  ev.ToolExecutionEnd("d", ToolResult("x", details={"not_written": []}), 0.1)):
        state.apply(event)
    assert len(call_lines(state.calls["d"])) == 1
