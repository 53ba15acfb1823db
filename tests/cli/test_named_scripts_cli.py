"""Findings D5, D6, D7 through the console script and bubblewrap: a script that a trusted
config names in a way the readers did not follow (behind a ``cd`` in a hook or a server's
``bash -c``, inside ``node -e`` code, in ``devcontainer.json``, ``tasks.json`` or
``settings.json``) cannot be rewritten by ``auto`` mode's unasked commands: the user's next
commit, agent-shell start or editor would run it as the user."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..sandboxing import require_sandbox
from .conftest import RunCli
from .test_hook_configs_cli import SCRIPT, committed, run

PLANT = ('for f in $(find . -name "*.sh" -o -name "*.js" -o -name python -o -name git | grep -v "^./.git/"); '
         'do echo "touch PWNED" >> $f; done; true')


def kept(workspace: Path, names: list[str], texts: dict[str, str]) -> None:
    for name in names:
        assert (workspace / name).read_text() == texts[name], name


def test_hook_scripts_behind_a_cd_stay_as_they_were(
    run_cli: RunCli, script: Callable[[list[Any]], str], workspace: Path
) -> None:
    """D6: the plain hook's ``cd scripts && ./check.sh``, pre-commit's ``bash -c "cd frontend
    && ./lint.sh"``, and what lint-staged runs from the config of the folder husky moves into."""
    require_sandbox()
    texts = {"scripts/check.sh": SCRIPT, "scripts/direct.sh": SCRIPT, "frontend/lint.sh": SCRIPT,
             "web/scripts/fmt.js": "0;\n", "scripts/other.sh": SCRIPT,
             ".husky/pre-commit": "cd web && npx lint-staged\n",
             "web/.lintstagedrc.json": '{"*.js": "node scripts/fmt.js"}',
             ".pre-commit-config.yaml": "repos:\n- repo: local\n  hooks:\n  - id: lint\n    name: lint\n"
             "    entry: bash -c \"cd frontend && ./lint.sh\"\n    language: system\n"}
    committed(workspace, texts)
    hook = workspace / ".git" / "hooks" / "pre-commit"
    hook.write_text("#!/bin/sh\n./scripts/direct.sh\ncd scripts && ./check.sh\n")
    hook.chmod(0o755)
    run(run_cli, script, PLANT)
    kept(workspace, ["scripts/check.sh", "scripts/direct.sh", "frontend/lint.sh", "web/scripts/fmt.js"],
         texts)
    assert (workspace / "scripts" / "other.sh").read_text().endswith("touch PWNED\n")  # named by nothing


def test_what_editor_and_dev_container_configs_name_stays_as_it_was(
    run_cli: RunCli, script: Callable[[list[Any]], str], workspace: Path
) -> None:
    """D7: devcontainer's initializeCommand/postStartCommand scripts, a folder-open task's
    command, settings' interpreter, git and terminal profile paths (JSON with comments)."""
    require_sandbox()
    texts = {
        ".vscode/tasks.json": json.dumps({"version": "2.0.0", "tasks": [
            {"label": "setup", "type": "shell", "command": "./scripts/setup.sh",
             "runOptions": {"runOn": "folderOpen"}},
            {"label": "build", "type": "shell", "command": "./scripts/build.sh"}]}),
        ".devcontainer/devcontainer.json": '{"image": "x", "postStartCommand": "bash scripts/post.sh",\n'
                                           ' "initializeCommand": "./scripts/init.sh"}',
        ".vscode/settings.json": '{"python.defaultInterpreterPath": "${workspaceFolder}/tools/python",'
        ' // ours\n'
        ' "git.path": "tools/git",\n'
        ' "terminal.integrated.profiles.linux": {"x": {"path": "./bin/git"}},}',
        **{f"scripts/{n}.sh": SCRIPT for n in ("setup", "init", "post", "build")},
        "tools/python": SCRIPT, "tools/git": SCRIPT, "bin/git": SCRIPT}
    committed(workspace, texts)
    run(run_cli, script, PLANT)
    kept(workspace, ["scripts/setup.sh", "scripts/init.sh", "scripts/post.sh", "tools/python", "tools/git",
                     "bin/git"], texts)
    assert (workspace / "scripts" / "build.sh").read_text().endswith("touch PWNED\n")  # runs when asked for


def test_a_servers_script_behind_a_cd_or_in_its_code_is_trusted_by_name_and_kept(
    run_cli: RunCli, script: Callable[[list[Any]], str], workspace: Path
) -> None:
    """D5: ``bash -c "cd tools && exec node srv.js"`` runs ``tools/srv.js``, ``node -e
    "require('./tools/q.js')"`` runs ``tools/q.js``: trust's question names both (and says
    what code on a line means), and a sandboxed command cannot change them."""
    require_sandbox()
    texts = {"tools/srv.js": "process.exit(0);\n", "tools/q.js": "process.exit(0);\n", "srv.js": "0;\n",
             ".mcp.json": json.dumps({"mcpServers": {
                 "i": {"command": "bash", "args": ["-c", "cd tools && exec node srv.js"]},
                 "q": {"command": "node", "args": ["-e", "require('./tools/q.js')"]}}})}
    committed(workspace, texts)
    shown = run_cli("trust", "--yes")
    assert shown.returncode == 0, shown.stderr
    said = [line for line in shown.stdout.splitlines() if line.lstrip().startswith("tools/")]
    assert any(line.lstrip().startswith("tools/srv.js: the MCP server 'i'") for line in said), shown.stdout
    assert any(line.lstrip().startswith("tools/q.js: the MCP server 'q'") for line in said), shown.stdout
    assert "only the files that code spells out in quotes are checked" in shown.stdout
    run(run_cli, script, PLANT)
    kept(workspace, ["tools/srv.js", "tools/q.js"], texts)
