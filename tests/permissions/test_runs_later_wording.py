"""The reasons a runs-later path gives read as the end of "X would change P, which …"."""

from __future__ import annotations

from pathlib import Path

import pytest

from shell.permissions.laternames import why
from shell.permissions.policy import PermissionPolicy
from shell.tools import Workspace, builtin_tools


def test_a_git_directorys_part_reads_after_which(tmp_path: Path) -> None:
    """"…/.git/hooks, which git runs it as you" (finding V10): the reason is joined
    after "which", so it has no object of its own."""
    folder = tmp_path / "odd"
    folder.mkdir()
    (folder / "HEAD").write_text("ref: refs/heads/main\n")
    said = why(folder / "hooks")
    assert said.startswith("git runs as you (") and " it as you" not in said


@pytest.mark.parametrize(
    ("name", "reads"),
    [
        (".ycm_extra_conf.py", "which YouCompleteMe runs when a file of this folder opens in Vim"),
        (".autoenv.zsh", "which zsh-autoenv runs when you enter the directory"),
        (".pdbrc", "which pdb runs when you debug in this folder"),
        ("project.code-workspace", "which VS Code opens as a multi-root workspace"),
    ],
)
def test_every_runs_later_question_reads_after_which(tmp_path: Path, name: str, reads: str) -> None:
    """V10's siblings: "…, which YouCompleteMe runs it when …" had one "it" too many."""
    ws = tmp_path / "ws"
    ws.mkdir()
    write = next(t for t in builtin_tools(Workspace(ws)) if t.name == "write_file")
    verdict = PermissionPolicy(ws, user_config=tmp_path / "config.toml").decide(
        write, {"path": name, "content": "x"})
    assert verdict.action == "ask" and reads in verdict.reason, verdict.reason
    assert " it when" not in verdict.reason and " it as a" not in verdict.reason
