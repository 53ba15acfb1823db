"""Which hidden values the workspace's committed code holds (finding Q11): those are left
out of the values net, so a committed ``.env``'s ``API_TOKEN=print(1)`` does not redact
the code's ``print(1)``. What a middleware author relies on: a value in a later line of a
file is found too, a secret file's own lines and a key-shaped value never count, and only
what is committed counts."""

from __future__ import annotations

import subprocess
from pathlib import Path

from shell.permissions.trackedvalues import committed_values

TOKEN = "Zq8vLm3Xt7Rw2Np5Kd9Hy4Wc"


def git(cwd: Path, *args: str) -> None:
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", *args], cwd=cwd, check=True,
                   capture_output=True)


def test_values_in_committed_code_are_found_but_secret_files_and_keys_do_not_count(tmp_path: Path) -> None:
    (tmp_path / ".env").write_text(f"A=print(1)\nB=return 0 or 1\nC=only.in.env1\nD={TOKEN}\n")
    (tmp_path / "app.py").write_text(f"print(1)\nx = 2\ny = 'return 0 or 1'\nFALLBACK = '{TOKEN}'\n")
    (tmp_path / "later.txt").write_text("uncommitted.value9\n")
    git(tmp_path, "init", "-q")
    git(tmp_path, "add", ".env", "app.py")
    git(tmp_path, "commit", "-qm", "x")
    (tmp_path / "app.py").write_text("print(1)\nnot.committed7\n")  # the work tree does not count
    values = ["print(1)", "return 0 or 1", "only.in.env1", TOKEN, "uncommitted.value9", "not.committed7"]
    assert committed_values([tmp_path], values) == {"print(1)", "return 0 or 1"}


def test_outside_a_repository_nothing_counts(tmp_path: Path) -> None:
    (tmp_path / "app.py").write_text("print(1)\n")
    assert committed_values([tmp_path], ["print(1)"]) == frozenset()
