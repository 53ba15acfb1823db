"""Each runs-later reason is written in both the forms it is said in (``laternames.Reason``):
on its own after a path ("new: pdb runs it when …") and after "…, which" ("would change
.pdbrc, which pdb runs when …"). A regular expression used to make the second from the first:
it cut the "it" out of "mypy runs the plugins it names", and left "which the MCP server …
runs it" and "which ~/.bashrc is a link to it" as they were."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from shell.commands import default_commands
from shell.config import Settings
from shell.permissions import laternames
from shell.permissions.laternames import Reason, as_reason
from shell.permissions.policy import PermissionPolicy
from shell.providers.scripted import ScriptedModel
from shell.runtime import RuntimeOptions, ShellRuntime
from shell.tools import Workspace, builtin_tools

OBJECT_IT = re.compile(r"^[^:]*?\b(?:runs|reads|opens|loads|imports) it\b")
"""A reason whose verb takes the file as its object (before any colon): "pdb runs it …"."""


def every_reason() -> list[Reason]:
    tables = [laternames.RUNS_LATER, laternames.NOTED, laternames.NOTED_FOLDERS,
              *laternames.IN_FOLDER.values()]
    said = [as_reason(r) for table in tables for r in table.values()]
    return said + [v for v in vars(laternames).values() if isinstance(v, Reason)]


def test_no_reason_reads_with_an_it_too_many_after_which() -> None:
    """A reason added as "X runs it when …" needs its "which" form written beside it."""
    bad = [r.after_which for r in every_reason() if OBJECT_IT.search(r.after_which)]
    assert bad == []


def asks(tmp_path: Path, name: str) -> str:
    ws = tmp_path / "ws"
    ws.mkdir(exist_ok=True)
    write = next(t for t in builtin_tools(Workspace(ws)) if t.name == "write_file")
    verdict = PermissionPolicy(ws, user_config=tmp_path / "config.toml").decide(
        write, {"path": name, "content": "x"})
    assert verdict.action == "ask", verdict
    return verdict.reason


def test_a_reason_with_an_it_of_its_own_keeps_it_after_which(tmp_path: Path) -> None:
    """The regex made "which mypy runs the plugins names (Python) …"."""
    assert "mypy.ini, which mypy runs the plugins it names (Python)" in asks(tmp_path, "mypy.ini")


def test_the_file_an_mcp_server_runs_reads_after_which(tmp_path: Path) -> None:
    """Was "which the MCP server 'local' of .mcp.json runs it as you" (the regex never matched)."""
    ws = tmp_path / "ws"
    (ws / "tools").mkdir(parents=True)
    (ws / "tools" / "server.py").write_text("print('hi')\n")
    (ws / ".mcp.json").write_text(json.dumps(
        {"mcpServers": {"local": {"command": "python3", "args": ["tools/server.py"]}}}))
    said = asks(tmp_path, "tools/server.py")
    assert "server.py, which the MCP server 'local' of .mcp.json runs as you, outside the sandbox" in said


@pytest.mark.anyio
async def test_an_export_refused_for_a_file_that_runs_later_reads_right(tmp_path: Path) -> None:
    """/export's refusal put the reason after "a file that" as written on its own:
    "`.pdbrc` is a file that pdb runs it when you debug in this folder"."""
    rt = ShellRuntime.create(RuntimeOptions(cwd=str(tmp_path), record=False),
                             settings=Settings(path=tmp_path / "none.toml"), model=ScriptedModel(["hi"]))
    async for _ in rt.reply("hello"):
        pass
    refused = await default_commands().run(rt, "/export .pdbrc --force")
    assert refused.error and "is a file that pdb runs when you debug in this folder." in refused.text
    assert not (tmp_path / ".pdbrc").exists()
