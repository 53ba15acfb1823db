"""What a secret file's values may do to the values net (tester round 11, Q11 and Q31):
a committed ``.env`` (a cloned repository's, anyone's to write) must not make ordinary
words of code redacted from every output nor make every call holding them ask, and a
hundred ``.env`` files elsewhere under home must not all feed the net of every command.
Against the real bubblewrap where a command runs."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from shell.core.secretfilevalues import secret_file_values
from shell.core.tools import Tool
from shell.permissions import hiddenvalues
from shell.permissions.hiddensent import hidden_value_sent
from shell.permissions.hiddenvalues import MAX_HOME_FILES, hidden_values, home_value_files
from shell.permissions.sandbox import Sandbox
from shell.tools.builtin import builtin_tools
from shell.tools.shell_cmd import run_command
from shell.tools.workspace import Workspace

from ..sandboxing import require_sandbox
from .home_setup import plant, sandbox_home

pytestmark = pytest.mark.anyio

WORDY = "API_TOKEN=console.log\nDB_PASSWORD=return True\nSECRET_KEY=agent-shell\nPGPASSWORD=postgres\n"


@pytest.fixture
def home(monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    yield from sandbox_home(monkeypatch, ".agent-shell-test-valuewords-")


def test_word_like_values_are_taken_only_with_their_name_and_secret_ones_alone() -> None:
    values = secret_file_values(WORDY + "STRIPE_KEY=S3cr3t!pw9\nTOKEN=7f3a9c2b1d4e5f60a7b8\n")
    for word in ("console.log", "return True", "agent-shell", "postgres"):
        assert word not in values, values
    assert "PGPASSWORD=postgres" in values and "API_TOKEN=console.log" in values
    assert "S3cr3t!pw9" in values and "7f3a9c2b1d4e5f60a7b8" in values


def _tool(name: str, home: Path) -> Tool:
    return {t.name: t for t in builtin_tools(Workspace(home / "project"))}[name]


async def test_a_cloned_repository_env_steers_neither_output_nor_questions(home: Path) -> None:
    require_sandbox()
    plant(home, ["projects/evilclone/.env"], lambda _: WORDY)
    plant(home, ["project/app.js"], lambda _: 'console.log("hi");\nreturn True\n')
    box = Sandbox(home / "project")
    result = await run_command("cat app.js; echo postgres; echo end", box.workspace, 30, lambda _: None,
                               sandbox=box)
    assert 'console.log("hi");' in result.text and "return True" in result.text, result.text
    assert "postgres" in result.text and "REDACTED" not in result.text, result.text
    edit = {"path": "app.js", "old": 'console.log("hi")', "new": 'console.log("hello")'}
    assert hidden_value_sent(_tool("edit_file", home), edit, box) == ""
    assert hidden_value_sent(_tool("run_shell", home), {"command": "echo return True"}, box) == ""


def test_home_sources_are_bounded_and_the_net_built_once_per_change(
    home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    many = [f"projects/many/svc{n:03}/.env" for n in range(MAX_HOME_FILES + 40)]
    plant(home, many, lambda rel: f"TOKEN=Tk{abs(hash(rel)) % 10**12:012d}xYz9Q\n")
    files = [home / rel for rel in many]
    assert home_value_files(files) == files[:MAX_HOME_FILES]
    built: list[int] = []
    real = hiddenvalues._net

    def counted(*args: Any) -> Any:
        built.append(1)
        return real(*args)

    monkeypatch.setattr(hiddenvalues, "_net", counted)
    kept = home_value_files(files)
    first = hidden_values(kept)
    assert hidden_values(kept) is first and len(built) == 1  # unchanged files: the same net
    files[0].write_text("TOKEN=ChangedTk0123456789xYz\n")
    assert "ChangedTk0123456789xYz" in hidden_values(kept).owners and len(built) == 2


async def test_a_home_values_bound_that_is_hit_is_said_once_with_what_it_means(home: Path) -> None:
    require_sandbox()
    many = [f"projects/many/svc{n:03}/.env" for n in range(MAX_HOME_FILES + 3)]
    plant(home, many, lambda rel: f"TOKEN=Tk{abs(hash(rel)) % 10**12:012d}xYz9Q\n")
    box = Sandbox(home / "project")
    said = []
    for _ in range(2):
        result = await run_command("echo ran", box.workspace, 30, lambda _: None, sandbox=box)
        assert "ran" in result.text
        said.append("past the values net's bound" in result.text)
    assert said == [True, False], result.text  # once, not at every command
    first = hiddenvalues.values_bound_note(3)
    assert "3 other secret files" in first and "not redacted" in first and "see them empty" in first
    # Deleted, the files stay in the net with their last values (finding W5: a secret file
    # deleted and written again around the walk printed in full), so the bound is still
    # hit: the hit goes on, and is not said again, before or after they come back.
    for rel in many[MAX_HOME_FILES - 8:]:
        (home / rel).unlink()
    result = await run_command("echo ran", box.workspace, 30, lambda _: None, sandbox=box)
    assert "past the values net's bound" not in result.text
    plant(home, many[MAX_HOME_FILES - 8:], lambda rel: "TOKEN=AnotherTk0123456789xYz\n")
    result = await run_command("echo ran", box.workspace, 30, lambda _: None, sandbox=box)
    assert "past the values net's bound" not in result.text, result.text


async def test_values_past_the_nets_bound_are_said_once_not_kept_quiet(home: Path) -> None:
    require_sandbox()
    files = hiddenvalues.MAX_VALUES // 256 + 1  # a file gives at most 256 values
    rels = [f"project/svc{n}/.env" for n in range(files)]
    plant(home, rels, lambda rel: "".join(f"TOKEN_{i}=Tk{len(rel)}{rel[-6]}{i:05d}q9Zx7Wv3Lm8Rp2Yt\n"
                                          for i in range(256)))
    box = Sandbox(home / "project")
    first = await run_command("echo ran", box.workspace, 30, lambda _: None, sandbox=box)
    left = files * 256 - hiddenvalues.MAX_VALUES
    said = f"{left} values of the hidden secret files are past the values net's bound"
    assert said in first.text, first.text
    again = await run_command("echo ran", box.workspace, 30, lambda _: None, sandbox=box)
    assert "past the values net's bound" not in again.text  # once while it lasts
