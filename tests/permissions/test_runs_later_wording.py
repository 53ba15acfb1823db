"""The reasons a runs-later path gives read as the end of "X would change P, which …"."""

from __future__ import annotations

from pathlib import Path

from shell.permissions.laternames import why


def test_a_git_directorys_part_reads_after_which(tmp_path: Path) -> None:
    """"…/.git/hooks, which git runs it as you" (finding V10): the reason is joined
    after "which", so it has no object of its own."""
    folder = tmp_path / "odd"
    folder.mkdir()
    (folder / "HEAD").write_text("ref: refs/heads/main\n")
    said = why(folder / "hooks")
    assert said.startswith("git runs as you (") and " it as you" not in said
