"""Findings D5, D6, D7 at the readers: which files a command line runs when it moves
into a folder first, names a file inside ``-e``/``-c`` code, or is a line of an editor's
config; what a reader cannot follow is said, and hashed by its folder where it has one."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from shell.permissions.cdlines import read_line
from shell.permissions.mcpsources import read_servers
from shell.permissions.policy import PermissionPolicy
from shell.tools.builtin import builtin_tools
from shell.tools.workspace import Workspace

from .later_ws import later_workspace


@pytest.fixture
def ws(monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    yield from later_workspace(monkeypatch, ".agent-shell-test-named-")


def write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def servers(ws: Path, **entries: object) -> tuple[dict[str, str], list[str]]:
    write(ws / ".mcp.json", json.dumps({"mcpServers": entries}))
    found, unread = read_servers(ws, (ws / ".mcp.json").read_bytes())
    return {p.relative_to(ws).as_posix(): r.alone for p, r in found.items()}, unread


def test_a_line_is_read_in_the_folders_it_moves_into() -> None:
    reading = read_line("./a.sh\ncd scripts && ./check.sh; (cd ../web && ./w.sh) && ./b.sh\n"
                        "pushd tools; ./t.sh; popd; ./c.sh", "/r")
    assert [(p.words[0], p.folder) for p in reading.parts] == [
        ("./a.sh", "/r"), ("./check.sh", "/r/scripts"), ("./w.sh", "/r/web"), ("./b.sh", "/r/scripts"),
        ("./t.sh", "/r/scripts/tools"), ("./c.sh", "/r/scripts")]
    assert reading.unsure == ""
    assert "not spelled out" in read_line('cd "$DIR" && ./x.sh', "/r").unsure


def test_a_servers_files_behind_a_cd_in_code_and_in_glued_options_are_named(ws: Path) -> None:
    for name in ("tools/srv.js", "tools/q.js", "tools/p.py", "tools/r.rb", "tools/m/__init__.py"):
        write(ws / name, "0\n")
    found, unread = servers(
        ws,
        i={"command": "bash", "args": ["-c", "cd tools && exec node srv.js"]},
        q={"command": "node", "args": ["-e", "require('./tools/q.js')"]},
        p={"command": "python3", "args": ["-c", "import runpy; runpy.run_path('tools/p.py')"]},
        m={"command": "python3", "args": ["-c", "import json, tools.m; tools.m.main()"]},
        r={"command": "ruby", "args": ["-r./tools/r.rb", "-e", "1"]})
    assert "'i'" in found["tools/srv.js"] and "srv.js" not in found  # not the root's
    assert "'q'" in found["tools/q.js"] and "'p'" in found["tools/p.py"] and "'r'" in found["tools/r.rb"]
    assert "'m'" in found["tools/m/__init__.py"] and "json.py" not in found
    said = " ".join(unread)
    assert all(f"'{n}'" in said for n in "qpmr") and "'i'" not in said
    assert "only the files that code spells out in quotes are checked" in said


def test_what_cannot_be_followed_is_said_or_hashed_by_its_folder(ws: Path) -> None:
    write(ws / "tools" / "package.json", '{"scripts": {"start": "node srv.js"}}')
    found, unread = servers(ws, d={"command": "bash", "args": ["-c", 'cd "$X" && node a.js']},
                            n={"command": "bash", "args": ["-c", "cd tools && npm start"]})
    assert "tools" in found and "the folder its line moves into" in found["tools"]
    [line] = unread
    assert "'d'" in line and "could not be read" in line and "cd $X" in line


def test_a_file_edit_of_what_the_editor_configs_name_asks(ws: Path) -> None:
    write(ws / ".devcontainer" / "devcontainer.json",
          '{"initializeCommand": ["bash", "-c", "cd scripts && ./init.sh"]}')
    write(ws / ".vscode" / "settings.json",
          '{"python.defaultInterpreterPath": "${workspaceFolder}/tools/python"}')
    policy = PermissionPolicy(ws, mode="auto", user_config=ws.parent / "c.toml")
    tools = {t.name: t for t in builtin_tools(Workspace(ws))}
    for path, said in (("scripts/init.sh", "initializeCommand"), ("tools/python", "settings.json")):
        verdict = policy.decide(tools["write_file"], {"path": path, "content": "x\n"})
        assert verdict.action == "ask" and said in verdict.reason, (path, verdict.reason)
    assert policy.decide(tools["write_file"], {"path": "init.sh", "content": "x\n"}).action == "allow"


def test_a_tasks_platform_command_counts_and_a_settings_folder_stays_writable(ws: Path) -> None:
    write(ws / ".vscode" / "tasks.json", json.dumps({"tasks": [
        {"label": "s", "command": "true", "runOptions": {"runOn": "folderOpen"},
         "linux": {"command": "bash", "args": ["scripts/lin.sh"]}},
        {"label": "later", "command": "./scripts/build.sh"}]}))
    write(ws / ".vscode" / "settings.json", '{"eslint.nodePath": "./web/node_modules"}')
    (ws / "web" / "node_modules").mkdir(parents=True)
    policy = PermissionPolicy(ws, mode="auto", user_config=ws.parent / "c.toml")
    tools = {t.name: t for t in builtin_tools(Workspace(ws))}
    asked = policy.decide(tools["write_file"], {"path": "scripts/lin.sh", "content": "x\n"})
    assert asked.action == "ask" and "tasks.json" in asked.reason
    for path in ("scripts/build.sh", "web/node_modules/x.js"):  # run when asked for; a folder, not a program
        assert policy.decide(tools["write_file"], {"path": path, "content": "x\n"}).action == "allow", path


def test_code_inside_a_shell_string_is_read_in_its_folder_and_said(ws: Path) -> None:
    write(ws / "tools" / "b.js", "0\n")
    line = "cd tools && node -e \"require('./b.js')\""
    found, unread = servers(ws, b={"command": "bash", "args": ["-c", line]})
    assert "'b'" in found["tools/b.js"]
    [said] = unread
    assert "'b'" in said and "spells out in quotes" in said


@pytest.mark.parametrize("hook", [
    'cd "$(git rev-parse --show-toplevel)/tools" && ./run.sh',
    "cd `git rev-parse --show-toplevel`/tools; ./run.sh",
    'cd "$(dirname "$0")/../../tools" && ./run.sh',
    "cd $(dirname $0)/../../tools\ncd ../tools\n./run.sh",
    'cd "${0%/*}/../../tools" && ./run.sh',
    'cd "$(dirname -- "${BASH_SOURCE[0]}")/../../tools" && cd ../tools && ./run.sh',
    'cd "$(cd "$(dirname "$0")" && pwd)/../../tools" && ./run.sh',
])
def test_a_hook_that_moves_into_its_work_tree_or_its_own_folder_is_followed(
    tmp_path: Path, hook: str
) -> None:
    """Finding D6's rest: the work tree and the hook file's folder are knowable."""
    from shell.permissions.hookscripts import hook_scripts

    write(tmp_path / "tools" / "run.sh", "true\n")
    write(tmp_path / ".git" / "hooks" / "pre-commit", f"#!/bin/sh\n{hook}\n")
    found, _ = hook_scripts(tmp_path, [tmp_path / ".git" / "hooks"])
    assert tmp_path / "tools" / "run.sh" in found, found


@pytest.mark.parametrize("config", [
    "pre-commit:\n  commands:\n    lint:\n      root: frontend/\n      run: ./scripts/lint.sh\n",
    'pre-commit:\n  commands:\n    lint: {root: "frontend/", run: ./scripts/lint.sh}\n',
    '{"pre-commit": {"commands": {"lint": {\n  "root": "frontend/", "run": "./scripts/lint.sh"}}}}',
])
def test_lefthooks_root_is_the_folder_its_command_runs_in(tmp_path: Path, config: str) -> None:
    from shell.permissions.hookscripts import hook_scripts

    write(tmp_path / "frontend" / "scripts" / "lint.sh", "true\n")
    write(tmp_path / ("lefthook.json" if config.startswith("{") else "lefthook.yml"), config)
    found, _ = hook_scripts(tmp_path)
    assert tmp_path / "frontend" / "scripts" / "lint.sh" in found, found
