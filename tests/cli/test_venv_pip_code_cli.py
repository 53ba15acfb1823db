"""Finding Q6 through the console script and bubblewrap: in a workspace's existing
virtualenv (made with pip, as ``python3 -m venv`` makes it), ``auto`` mode's unasked
command appended code to ``site-packages/pip/__init__.py``, which the user's next
``pip`` ran as them. pip's package is read-only to commands; the rest of site-packages
stays writable (``pip install`` of a new package works)."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..sandboxing import require_sandbox
from .conftest import RunCli


def test_a_command_cannot_add_code_to_the_venvs_pip(
    run_cli: RunCli, script: Callable[[list[Any]], str], workspace: Path
) -> None:
    require_sandbox()
    subprocess.run([os.path.realpath(sys.executable), "-m", "venv", str(workspace / ".venv")], check=True)
    site = next((workspace / ".venv" / "lib").glob("python*/site-packages"))
    pip_init = site / "pip" / "__init__.py"
    before = pip_init.read_text()
    command = ('f=$(ls -d .venv/lib/python3*/site-packages/pip/__init__.py); echo "import os" >> $f; '
               'echo "x = 1" > $(dirname $(dirname $f))/planted_ok.py; true')
    turns = [{"tool_calls": [{"name": "run_shell", "args": {"command": command}}]}, "Done."]
    r = run_cli("-p", "go", "--model", script(turns), "--permission-mode", "auto", "--approve", "never",
                "--no-session", "--output-format", "json")
    assert r.returncode == 0, r.stderr
    assert pip_init.read_text() == before
    assert (site / "planted_ok.py").read_text() == "x = 1\n"  # the rest of site-packages: pip install works
