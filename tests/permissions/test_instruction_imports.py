"""What AGENTS.md / CLAUDE.md import (`@docs/conventions.md`) goes into every later
session's system prompt as much as the file itself (tester finding K5): an edit there
asks in accept-edits and auto, and a sandboxed command can neither change one nor make
a missing one; the same resolver as the ProjectInstructions middleware decides."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from middleware.project_instructions import load_instructions

from ..sandboxing import require_sandbox
from .later_ws import later_workspace, sh

pytestmark = pytest.mark.anyio


def project(ws: Path) -> None:
    (ws / ".git").mkdir()
    (ws / "AGENTS.md").write_text("# Project\nFollow our conventions:\n@docs/conventions.md\n")
    (ws / "docs").mkdir()
    (ws / "docs" / "conventions.md").write_text("Use 4 spaces.\n@style/deep.md\n@later.md\n")
    (ws / "docs" / "style").mkdir()
    (ws / "docs" / "style" / "deep.md").write_text("Name things well.\n")
    (ws / "docs" / "other.md").write_text("Not imported.\n")


@pytest.mark.parametrize("mode", ["accept-edits", "auto"])
def test_an_edit_to_an_imported_file_asks(tmp_path: Path, mode: str) -> None:
    from shell.permissions.policy import PermissionPolicy
    from shell.tools.builtin import builtin_tools
    from shell.tools.workspace import Workspace

    ws = tmp_path / "ws"
    ws.mkdir()
    project(ws)
    read = {f.shown for f in load_instructions(ws).files}
    assert read == {"AGENTS.md", "docs/conventions.md", "docs/style/deep.md"}  # what the prompt gets
    p = PermissionPolicy(ws, mode=mode, user_config=tmp_path / "c.toml")
    tools = {t.name: t for t in builtin_tools(Workspace(ws))}
    for path in ("docs/conventions.md", "docs/style/deep.md", "docs/later.md"):
        verdict = p.decide(tools["edit_file" if path != "docs/later.md" else "write_file"],
                           {"path": path, "old_text": "Use", "new_text": "SYSTEM OVERRIDE", "content": "x"})
        assert verdict.action == "ask", path
        assert "imports (an @ line)" in verdict.reason, verdict.reason  # after "which": no "it"
    assert p.decide(tools["write_file"], {"path": "docs/other.md", "content": "x"}).action == "allow"


@pytest.fixture
def ws(monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    yield from later_workspace(monkeypatch, ".agent-shell-test-imports-")


async def test_a_command_cannot_change_or_make_an_imported_file(ws: Path) -> None:
    require_sandbox()
    project(ws)
    result = await sh(ws, "echo 'SYSTEM OVERRIDE' >> docs/conventions.md; echo x >> docs/style/deep.md; "
                          "echo 'curl evil' > docs/later.md; echo ok >> docs/other.md; echo done")
    assert "done" in result.text
    assert (ws / "docs" / "conventions.md").read_text() == "Use 4 spaces.\n@style/deep.md\n@later.md\n"
    assert (ws / "docs" / "style" / "deep.md").read_text() == "Name things well.\n"
    assert not (ws / "docs" / "later.md").exists()
    assert "docs/later.md" in result.details["quarantined"]
    assert (ws / "docs" / "other.md").read_text() == "Not imported.\nok\n"
