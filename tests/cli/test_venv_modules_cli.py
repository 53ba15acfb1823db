"""Modules a command plants under the name of a package the project's own virtualenv
installed, through the console script and bubblewrap (finding D8).

A14's names were the host's ``site-packages`` only: with ``zzlib`` and ``doctool`` installed
in the project's ``.venv`` alone (``click`` for black, ``django``, ``sphinx``), an unasked
command's ``docs/zzlib.py`` and ``doctool.py`` were kept with no word, and the user's
``../.venv/bin/python -m doctool`` in ``docs/`` ran the planted ``zzlib``, as them. The
names of the workspace's virtualenvs count now: near the top and wherever the walk finds one."""

from __future__ import annotations

import subprocess
import venv
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..sandboxing import require_sandbox
from .conftest import RunCli
from .test_shadow_modules_cli import run_command

Script = Callable[[list[Any]], str]
PLANTED = "import os; os.system('touch ran-as-you'); X = 2"


def make_venv(env: Path, packages: dict[str, str]) -> Path:
    """A virtualenv (no pip: offline and fast) whose ``site-packages`` holds ``packages``."""
    venv.EnvBuilder(with_pip=False, symlinks=True).create(env)
    site = next(env.glob("lib/python*/site-packages"))
    for name, main in packages.items():
        (site / name).mkdir()
        (site / name / "__init__.py").write_text("X = 1\n")
        if main:
            (site / name / "__main__.py").write_text(main)
    return env / "bin" / "python"


def test_a_module_named_like_a_package_only_the_projects_venv_has_is_moved_out(
    run_cli: RunCli, script: Script, workspace: Path
) -> None:
    require_sandbox()
    main = "import zzlib\nprint('doctool ran', zzlib.X)\n"
    python = make_venv(workspace / ".venv", {"zzlib": "", "doctool": main})
    make_venv(workspace / "services" / "api" / ".venv", {"apionly": ""})
    (workspace / "docs").mkdir()
    command = (f'echo "{PLANTED}" > docs/zzlib.py; echo "{PLANTED}" > doctool.py; '
               f'echo "{PLANTED}" > services/api/apionly.py; echo "x = 1" > docs/conf.py; echo ran')
    out = run_command(run_cli, script, command)
    assert "ran" in out, out
    for name in ("docs/zzlib.py", "doctool.py", "services/api/apionly.py"):
        assert not (workspace / name).exists(), (name, out)
        assert f"{name}: new: a Python module named like the standard or installed module" in out, out
    assert (workspace / "docs" / "conf.py").exists()  # a name nothing installed has: the project's
    for folder in (workspace / "docs", workspace):
        done = subprocess.run([str(python), "-m", "doctool"], cwd=folder, capture_output=True, text=True,
                              timeout=60)
        assert "doctool ran 1" in done.stdout, done.stderr
    assert not (workspace / "ran-as-you").exists()
    assert not (workspace / "docs" / "ran-as-you").exists()


def test_a_venv_only_name_the_project_had_stays(run_cli: RunCli, script: Script, workspace: Path) -> None:
    """What was there before the command is the project's own: edited, it stays, unsaid."""
    require_sandbox()
    make_venv(workspace / "venv", {"zzlib": ""})
    (workspace / "zzlib.py").write_text("SEED = 1\n")
    out = run_command(run_cli, script, "echo 'SEED = 2' >> zzlib.py; echo ran")
    assert "ran" in out, out
    assert (workspace / "zzlib.py").read_text() == "SEED = 1\nSEED = 2\n"
    assert "named like the standard or installed module" not in out, out


def test_a_new_portion_of_a_namespace_package_only_the_projects_venv_has_is_moved_out(
    run_cli: RunCli, script: Script, workspace: Path
) -> None:
    """``zzns`` is a namespace package (no ``__init__``) in the project's venv alone: Python
    merges its portions in path order, so a workspace ``zzns/core.py`` comes before the
    venv's ``zzns.core`` for ``.venv/bin/python -m`` started at the root."""
    require_sandbox()
    python = make_venv(workspace / ".venv", {})
    site = next((workspace / ".venv").glob("lib/python*/site-packages"))
    (site / "zzns").mkdir()
    (site / "zzns" / "core.py").write_text("X = 1\n")
    out = run_command(run_cli, script, f'mkdir -p zzns; echo "{PLANTED}" > zzns/core.py; echo ran')
    assert "ran" in out, out
    assert not (workspace / "zzns" / "core.py").exists(), out
    assert "zzns: new: a Python module named like the standard or installed module 'zzns'" in out, out
    done = subprocess.run([str(python), "-c", "import zzns.core; print(zzns.core.X)"], cwd=workspace,
                          capture_output=True, text=True, timeout=60)
    assert done.stdout.strip() == "1", done.stderr
    assert not (workspace / "ran-as-you").exists()
