"""A sandboxed command that renames the folder above what the sandbox holds (tester
finding K9): the bind moves with the folder, so ``mv config cfg_old; mkdir config``
replaced a file a deny rule names, and ``mv config cfg2`` let the next command read
what a rule on reading hides. After the command the folder is renamed back, what the
command put in its place goes to the quarantine, and the result says so."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest

from shell.permissions.sandbox import Sandbox
from shell.tools import after_check
from shell.tools.shell_cmd import run_command

from ..sandboxing import require_sandbox
from .later_ws import later_workspace

pytestmark = pytest.mark.anyio


@pytest.fixture
def ws(monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    yield from later_workspace(monkeypatch, ".agent-shell-test-renamed-")


async def run(ws: Path, command: str, writes: tuple[str, ...] = (), reads: tuple[str, ...] = ()) -> Any:
    box = Sandbox(ws)
    box.denied_writes = lambda: [ws / p for p in writes]
    box.denied_reads = lambda: [ws / p for p in reads]
    return await run_command(command, box.workspace, 30, lambda _: None, sandbox=box)


async def test_a_denied_file_swapped_by_renaming_its_folder_is_put_back(ws: Path) -> None:
    require_sandbox()
    (ws / "config").mkdir()
    (ws / "config" / "prod.toml").write_text('db = "prod"\n')
    (ws / "config" / "other.toml").write_text("mine\n")
    result = await run(ws, "python3 -c \"import os; os.rename('config','cfg_old'); os.mkdir('config'); "
                           "open('config/prod.toml','w').write('db = EVIL')\"; echo done",
                       writes=("config/prod.toml",))
    assert "done" in result.text
    assert (ws / "config" / "prod.toml").read_text() == 'db = "prod"\n'
    assert (ws / "config" / "other.toml").read_text() == "mine\n"
    assert not (ws / "cfg_old").exists()
    assert "cfg_old renamed back to config" in result.text and "moved out of the workspace" in result.text
    assert "config" in result.details["quarantined"]


async def test_a_folder_a_read_rule_hides_cannot_be_renamed_out_of_its_reach(ws: Path) -> None:
    require_sandbox()
    (ws / "config" / "secrets").mkdir(parents=True)
    (ws / "config" / "secrets" / "db.txt").write_text("db_password=SECRET\n")
    result = await run(ws, "cat config/secrets/db.txt; mv config cfg2; echo done", reads=("config/secrets",))
    assert "SECRET" not in result.text and "done" in result.text
    assert (ws / "config" / "secrets" / "db.txt").exists() and not (ws / "cfg2").exists()
    again = await run(ws, "cat cfg2/secrets/db.txt; echo done", reads=("config/secrets",))
    assert "SECRET" not in again.text


async def test_a_secret_file_swapped_by_renaming_its_folder_is_put_back(ws: Path) -> None:
    require_sandbox()
    (ws / "sub").mkdir()
    (ws / "sub" / ".env").write_text("KEY=mine\n")
    result = await run(ws, "mv sub sub_old && mkdir sub && echo KEY=evil > sub/.env; echo done")
    assert "done" in result.text
    assert (ws / "sub" / ".env").read_text() == "KEY=mine\n" and not (ws / "sub_old").exists()
    plain = await run(ws, "mv sub sub2; echo done")  # only renamed: the secret search follows it
    assert "done" in plain.text and (ws / "sub2" / ".env").read_text() == "KEY=mine\n"


async def test_a_runs_later_folder_swapped_by_renaming_its_parent_is_put_back(ws: Path) -> None:
    require_sandbox()
    (ws / "sub" / ".vscode").mkdir(parents=True)
    (ws / "sub" / ".vscode" / "settings.json").write_text("{}\n")
    result = await run(ws, "mv sub sub_old && mkdir -p sub/.vscode && echo '{}' > sub/.vscode/tasks.json; "
                           "echo done")
    assert "done" in result.text and "sub_old renamed back to sub" in result.text
    assert (ws / "sub" / ".vscode" / "settings.json").read_text() == "{}\n"
    assert not (ws / "sub" / ".vscode" / "tasks.json").exists() and not (ws / "sub_old").exists()
    assert result.details["quarantined"] == ["sub"]  # the command's new sub/, with its tasks.json


async def test_a_denied_folder_moved_past_the_search_is_put_back_or_said(
    ws: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Moved under 24,000 new folders, past the 20,000 entries the search looked at,
    the folder a read rule hides stayed where the next command read it, and nothing was
    said (verify of L9). Found now; and where a search must stop, it says so."""
    require_sandbox()
    from shell.permissions import pathswaps

    (ws / "config" / "secrets").mkdir(parents=True)
    (ws / "config" / "secrets" / "db.txt").write_text("db_password=SECRET\n")
    deep = "mkdir -p big/d0{00..59}/e{00..39}"  # one process (2,400 took over 30 s at load)
    monkeypatch.setattr(pathswaps, "MAX_WALK", 2_000)  # 2,400 new folders: past it
    monkeypatch.setattr(after_check, "AFTER_LIMIT", 300.0)  # what the check says, not when
    result = await run(ws, f"{deep}; mv config big/d059/e39/cfg; echo done", reads=("config/secrets",))
    assert "done" in result.text
    assert "could NOT be put back" in result.text and "config/secrets" in result.text, result.text
    monkeypatch.setattr(pathswaps, "MAX_WALK", 2_000_000)
    (ws / "big" / "d059" / "e39" / "cfg").rename(ws / "config")
    result = await run(ws, "mv config big/d059/e39/cfg; echo done", reads=("config/secrets",))
    assert (ws / "config" / "secrets" / "db.txt").exists(), result.text
    assert "renamed back to config" in result.text


async def test_git_objects_made_a_link_to_a_host_folder_are_put_back_and_its_files_left_alone(
    ws: Path,
) -> None:
    """``mv .git/objects .git/objects.real && ln -s <host folder> .git/objects`` (tester
    finding X12): the check after the command read the host folder's ``ab/…`` files as
    objects and moved them out as forged, the history keep hard-linked them into the
    session's store, and the user's next git would have written there. Now the link goes
    to the quarantine and the repository's own folder is renamed back, before any check."""
    require_sandbox()
    (ws / "a.txt").write_text("one\n")
    await anyio.run_process(["git", "init", "-q"], cwd=ws)
    await anyio.run_process(["git", "add", "a.txt"], cwd=ws)
    await anyio.run_process(["git", "commit", "-qm", "one"], cwd=ws)
    victim = ws.parent / "victim"  # outside the workspace: a cache with git's fan-out layout
    (victim / "ab").mkdir(parents=True)
    (victim / "ab" / ("c" * 38)).write_text("the user's own file\n")
    objects = ws / ".git" / "objects"
    ident = objects.stat().st_ino
    result = await run(ws, f"mv .git/objects .git/objects.real && ln -s {victim} .git/objects; echo done")
    assert "done" in result.text
    assert not objects.is_symlink() and objects.stat().st_ino == ident, result.text
    assert not (ws / ".git" / "objects.real").exists()
    # not moved, not read as forged
    assert (victim / "ab" / ("c" * 38)).read_text() == "the user's own file\n"
    assert "objects.real renamed back to .git/objects" in result.text, result.text
    assert "forged" not in result.text and "not what its name says" not in result.text
    log = await anyio.run_process(["git", "log", "--oneline"], cwd=ws)
    assert b"one" in log.stdout
