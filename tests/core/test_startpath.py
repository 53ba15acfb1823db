"""agent-shell's own import path at start (finding A10): a ``PYTHONPATH`` entry that names
the folder it starts in (empty, relative, or inside it) would import a planted module
before the installed one, as the user."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path


def test_importing_shell_drops_pythonpath_entries_that_name_the_start_folder(tmp_path: Path) -> None:
    here = tmp_path / "project"
    (here / "src").mkdir(parents=True)
    (here / "vendor").mkdir()
    elsewhere = tmp_path / "lib"
    elsewhere.mkdir()
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(["", "src", str(here / "vendor"), str(elsewhere)])}
    code = "import sys, json, shell, shell.startpath as s; print(json.dumps([sys.path, s.dropped]))"
    done = subprocess.run([sys.executable, "-c", code], cwd=here, env=env, capture_output=True, text=True,
                          timeout=60, check=True)
    path, dropped = json.loads(done.stdout)
    assert str(elsewhere) in path  # the user's own library folder stays
    assert not {str(here / "src"), str(here / "vendor")} & set(path) and str(here) not in path[1:], path
    assert dropped == ["", "src", str(here / "vendor")]
