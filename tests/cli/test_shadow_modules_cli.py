"""Python modules a command plants in the workspace under a standard or installed name,
through the console script and bubblewrap (finding A14).

``python -m pip``, ``python -m pytest``, ``python -c`` and the REPL put the folder the user
is in first on ``sys.path``: an unasked command wrote ``pip.py``, ``venv.py`` and ``json.py``
at the workspace root, kept with no word, and the user's next ``python3 -m pip --version``
there ran it, as them. Such a new module (at any depth: the user may ``cd src``) is moved
out and named in the result; the project's own modules, and one it had that the command
only edited, stay and go unsaid."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..sandboxing import require_sandbox
from .conftest import RunCli

Script = Callable[[list[Any]], str]


def run_command(run_cli: RunCli, script: Script, command: str) -> str:
    turns = [{"tool_calls": [{"name": "run_shell", "args": {"command": command}}]}, "Done."]
    r = run_cli("-p", "build", "--model", script(turns), "--permission-mode", "auto", "--approve", "never",
                "--no-session", "--output-format", "json")
    assert r.returncode == 0, r.stderr
    messages = json.loads(r.stdout)["messages"]
    return "\n".join(str(m.get("content")) for m in messages if m.get("role") == "tool")


def imported_from(workspace: Path, folder: Path, module: str) -> str:
    """Where ``python -c "import MODULE"`` started in ``folder`` finds it, as the user would."""
    code = f"import {module}; print({module}.__file__)"
    done = subprocess.run([sys.executable, "-c", code], cwd=folder, capture_output=True, text=True,
                          timeout=60)
    return done.stdout.strip()


def test_a_new_module_named_like_an_installed_or_standard_one_is_moved_out_and_named(
    run_cli: RunCli, script: Script, workspace: Path
) -> None:
    require_sandbox()
    planted = "import os; os.system('touch ran-as-you')"
    command = (f'echo "{planted}" > pip.py; echo "{planted}" > venv.py; echo "{planted}" > json.py; '
               f'mkdir -p http src/tools; echo "{planted}" > http/__init__.py; '
               f'echo "{planted}" > src/pytest.py; echo "{planted}" > src/tools/shlex.py; echo ran')
    out = run_command(run_cli, script, command)
    assert "ran" in out, out
    for name in ("pip.py", "venv.py", "json.py", "http", "src/pytest.py", "src/tools/shlex.py"):
        assert not (workspace / name).exists(), (name, out)
        assert f"{name}: new: a Python module named like the standard or installed module" in out, out
    assert "/quarantine restore" in out, out
    assert str(workspace) not in imported_from(workspace, workspace, "json")
    assert str(workspace) not in imported_from(workspace, workspace / "src", "pytest")
    assert not (workspace / "ran-as-you").exists()


def test_the_projects_own_modules_stay_and_go_unsaid(
    run_cli: RunCli, script: Script, workspace: Path
) -> None:
    """Names no standard or installed module has, a package's own modules (``app/types.py``
    is ``app.types``, nobody runs ``python -m`` inside ``app/``), a folder with no
    ``__init__.py`` (a namespace, which the real module comes before), and a module the
    project had that the command edits: kept, with nothing said."""
    require_sandbox()
    (workspace / "turtle.py").write_text("SEED = 1\n")
    command = ("echo 'x = 1' > app.py; mkdir -p app_pkg email docs; echo '' > app_pkg/__init__.py; "
               "echo 'y = 2' > app_pkg/types.py; echo 'z = 3' > email/notes.txt; "
               "echo 'SEED = 2' >> turtle.py; echo 'w = 4' > my-notes.py; echo ran")
    out = run_command(run_cli, script, command)
    assert "ran" in out, out
    for name in ("app.py", "app_pkg/types.py", "email/notes.txt", "my-notes.py"):
        assert (workspace / name).exists(), (name, out)
    assert (workspace / "turtle.py").read_text() == "SEED = 1\nSEED = 2\n"
    assert "named like the standard or installed module" not in out, out


def test_a_projects_folder_made_a_package_loses_only_the_new_init(
    run_cli: RunCli, script: Script, workspace: Path
) -> None:
    """``email/`` held the project's notes (no ``__init__.py``: a namespace, which the real
    ``email`` comes before); a command's ``email/__init__.py`` makes it what ``python -m pip``
    imports. That file goes; the folder and what it held stay."""
    require_sandbox()
    (workspace / "email").mkdir()
    (workspace / "email" / "notes.txt").write_text("kept\n")
    out = run_command(run_cli, script, "echo 'import os' > email/__init__.py; echo ran")
    assert "ran" in out, out
    assert not (workspace / "email" / "__init__.py").exists(), out
    assert (workspace / "email" / "notes.txt").read_text() == "kept\n"
    said = "email/__init__.py: new: a Python module named like the standard or installed module 'email'"
    assert said in out, out


def test_a_new_portion_of_an_installed_namespace_package_and_a_deep_sitecustomize_are_moved_out(
    run_cli: RunCli, script: Script, workspace: Path
) -> None:
    """Finding C6: ``opentelemetry`` is a namespace package (no ``__init__``): Python merges
    its portions in path order, so a workspace ``opentelemetry/context/__init__.py`` comes
    before the installed ``opentelemetry.context``. Finding C15: with an empty or relative
    ``PYTHONPATH`` entry, a ``sitecustomize.py`` in any folder the user starts Python in
    runs at start."""
    require_sandbox()
    import importlib.util

    spec = importlib.util.find_spec("opentelemetry")
    assert spec is not None and spec.origin in (None, "namespace"), "the test extras install opentelemetry"
    planted = "import os; os.system('touch ran-as-you')"
    command = (f'mkdir -p opentelemetry/context deep/er; '
               f'echo "{planted}" > opentelemetry/context/__init__.py; '
               f'echo "{planted}" > deep/er/sitecustomize.py; echo ran')
    out = run_command(run_cli, script, command)
    assert "ran" in out, out
    for name in ("opentelemetry", "deep/er/sitecustomize.py"):
        assert not (workspace / name).exists(), (name, out)
        assert f"{name}: new: a Python module named like the standard or installed module" in out, out


def test_a_new_portion_in_a_namespace_folder_the_project_had_is_moved_out(
    run_cli: RunCli, script: Script, workspace: Path
) -> None:
    """``opentelemetry/`` was the project's (its notes, no ``__init__``): a namespace portion,
    harmless while it holds nothing the installed package has. A command adding
    ``opentelemetry/context/__init__.py`` (or ``opentelemetry/baggage.py``) put its code before the
    installed ``opentelemetry.context`` for ``python -c`` started there; only the folders before the
    command were looked at. The project's own subpackage, named like nothing installed, stays."""
    require_sandbox()
    (workspace / "opentelemetry").mkdir()
    (workspace / "opentelemetry" / "notes.md").write_text("our exporter\n")
    planted = "import os; os.system('touch ran-as-you')"
    command = (f'mkdir -p opentelemetry/context opentelemetry/ourexporter; '
               f'echo "{planted}" > opentelemetry/context/__init__.py; '
               f'echo "{planted}" > opentelemetry/baggage.py; '
               f'echo "x = 1" > opentelemetry/ourexporter/__init__.py; echo ran')
    out = run_command(run_cli, script, command)
    assert "ran" in out, out
    for name in ("opentelemetry/context", "opentelemetry/baggage.py"):
        assert not (workspace / name).exists(), (name, out)
        assert f"{name}: new: a Python module named like the standard or installed module" in out, out
    assert (workspace / "opentelemetry" / "ourexporter" / "__init__.py").exists()
    assert (workspace / "opentelemetry" / "notes.md").exists()
    assert str(workspace) not in imported_from(workspace, workspace, "opentelemetry.context")
    assert not (workspace / "ran-as-you").exists()
