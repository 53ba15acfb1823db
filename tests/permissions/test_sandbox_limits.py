"""The process limit: the kernel counts a user's processes everywhere and exempts root,
so this runs the limits' prefix as an unprivileged user (``setpriv``, when the tests run
as root) the way every command starts, and reads the note the result would carry."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from shell.config import load_config
from shell.permissions.sandboxlimits import Limits, limit_notes
from shell.runtime.build import build_sandbox
from shell.tools.workspace import Workspace


def as_a_user() -> list[str]:
    if os.geteuid() != 0:
        return []
    setpriv = shutil.which("setpriv")
    if setpriv is None:
        pytest.skip("root is exempt from the process limit, and setpriv is missing to drop it")
    return [setpriv, "--reuid", "65534", "--regid", "65534", "--clear-groups"]


def test_a_fork_loop_stops_at_the_process_limit_and_says_which() -> None:
    limits = Limits(memory=0, processes=50, file_size=0)
    prefix = limits.prefix(30)
    if not prefix:
        pytest.skip("prlimit (util-linux) is missing")
    loop = "for i in $(seq 1000); do sleep 2 & done; wait"
    run = subprocess.run([*as_a_user(), *prefix, "bash", "-c", loop], capture_output=True, text=True,
                         timeout=120, cwd="/")
    output = run.stdout + run.stderr
    assert "Resource temporarily unavailable" in output
    notes = limit_notes(output, run.returncode, limits, 30)
    assert len(notes) == 1 and "could not start more processes: it may run 50 more" in notes[0]
    assert "`[sandbox] processes = 16384`" in notes[0]


def test_a_lower_hard_limit_the_user_has_is_kept_so_commands_still_run() -> None:
    """Only root may raise a hard limit: a user whose hard file size limit is 1 MiB (a
    distribution's limits.conf) got "prlimit: failed to set the FSIZE resource limit" from
    every command. The prefix is worked out under that hard limit, then run as the user."""
    if not shutil.which("prlimit"):
        pytest.skip("prlimit (util-linux) is missing")
    code = ("import sys; sys.path.insert(0, sys.argv[1]); "
            "from shell.permissions.sandboxlimits import Limits; "
            "print(' '.join(Limits(0, 100, 16 * 2**30).prefix(30)))")
    root = str(Path(__file__).resolve().parents[2])
    prefix = subprocess.run(["prlimit", "--fsize=1048576", "--", sys.executable, "-c", code, root],
                            capture_output=True, text=True, check=True).stdout.split()
    assert "--fsize=1048576" in prefix, prefix
    run = subprocess.run([*as_a_user(), "prlimit", "--fsize=1048576", "--", *prefix, "sh", "-c", "echo ran"],
                         capture_output=True, text=True, cwd="/")
    assert (run.returncode, run.stdout, run.stderr) == (0, "ran\n", "")


def test_a_cpu_or_file_size_signal_is_named() -> None:
    limits = Limits(memory=0, processes=0, file_size=1024**3)
    assert "1.0 GiB limit on one file" in limit_notes("", 128 + 25, limits, 60)[0]
    assert "its CPU time (the 60 s timeout on each core)" in limit_notes("", 128 + 24, limits, 60)[0]
    assert limit_notes("fine\n", 0, limits, 60) == []


def test_the_config_sets_the_limits_of_the_sandbox(tmp_path: Path) -> None:
    (tmp_path / "ws").mkdir()
    config = tmp_path / "config.toml"
    config.write_text('[sandbox]\nmemory = "2G"\nprocesses = 100\nfile_size = -1\n')
    problems: list[str] = []
    box = build_sandbox(load_config(config), Workspace(tmp_path / "ws"), problems)
    assert (box.limits.memory, box.limits.processes) == (2 * 1024**3, 100)
    assert box.limits.file_size == 16 * 1024**3
    assert any("[sandbox] file_size must be a size" in p for p in problems), problems
