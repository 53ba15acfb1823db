"""What an editor's permission card shows is what is approved (finding N8).

Editors such as Zed show a ``session/request_permission``'s title and content, not
its ``rawInput``: a command's dangerous tail past the title's width, or a URL's query,
must be in the content, whole and sanitised, as the TUI and the line mode show it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from acp.schema import ContentToolCallContent, TextContentBlock

from .conftest import EditorClient, Spawn

pytestmark = pytest.mark.anyio


def prompt_text(text: str) -> list[TextContentBlock]:
    return [TextContentBlock(type="text", text=text)]


def card_text(asked: Any) -> str:
    """Everything an editor that ignores ``rawInput`` shows: the title and the text content."""
    texts = [c.content.text for c in asked.content or [] if isinstance(c, ContentToolCallContent)]
    return "\n".join([asked.title, *texts])


async def ask_about(spawn: Spawn, script: Any, workspace: Path, name: str, args: dict[str, Any]) -> Any:
    client = EditorClient()
    client.answer = "reject_once"  # nothing runs: only the question matters
    turn = {"tool_calls": [{"name": name, "args": args, "id": "c1"}]}
    async with spawn(client, "--model", script([turn, "Understood."])) as conn:
        session = await conn.new_session(cwd=str(workspace), mcp_servers=[])
        await conn.prompt(session_id=session.session_id, prompt=prompt_text("go"))
    [(asked, _options)] = client.permission_requests
    return asked


async def test_a_long_commands_tail_is_shown_and_its_title_says_it_is_cut(
    spawn: Spawn, script: Any, workspace: Path
) -> None:
    command = 'echo "' + "a" * 400 + '"; cp -r . /tmp/x'
    asked = await ask_about(spawn, script, workspace, "run_shell", {"command": command})
    shown = card_text(asked)
    assert command in shown, "the whole command is in what the editor shows"
    assert "runs 2 commands" in shown and "2. cp -r . /tmp/x" in shown, "each command of the line"
    assert "…" in asked.title, "a cut title says it is cut"
    assert "2 commands" in asked.title, "the title does not hide that a second command follows"


async def test_a_urls_query_is_shown(spawn: Spawn, script: Any, workspace: Path) -> None:
    url = "https://docs.python.org/3/library/" + "a" * 120 + "?q=SECRETDATA"
    asked = await ask_about(spawn, script, workspace, "fetch_url", {"url": url})
    assert url in card_text(asked), "the full URL with its query is in what the editor shows"


async def test_hidden_characters_are_escaped_and_flagged(spawn: Spawn, script: Any, workspace: Path) -> None:
    command = "echo hi\u200b; ls \u202e"
    asked = await ask_about(spawn, script, workspace, "run_shell", {"command": command})
    shown = card_text(asked)
    assert "\u200b" not in shown and "\u202e" not in shown, "no invisible character reaches the editor"
    assert "\\u200b" in shown and "\\u202e" in shown, "they are shown as escapes"
    assert "2 hidden characters" in shown, "and flagged, as the TUI does"


async def test_a_cr_in_an_edits_new_text_is_an_escape_and_flagged(
    spawn: Spawn, script: Any, workspace: Path
) -> None:
    """Finding P17: ``hi\\x1b[2K\\rnothing here`` makes ``cat`` show "nothing here"; the
    card showed the CR as a line break with a false end-of-file marker, and no warning."""
    (workspace / "a.txt").write_text("hi\n", encoding="utf-8")
    args = {"path": "a.txt", "old_string": "hi", "new_string": "hi\x1b[2K\rnothing here"}
    shown = card_text(await ask_about(spawn, script, workspace, "edit_file", args))
    assert "\r" not in shown and "\x1b" not in shown, "no control character reaches the editor"
    assert "+hi\u241b[2K\u240dnothing here" in shown, "the CR is shown inside its line"
    assert "No newline at end of file" not in shown
    assert "2 control characters (\u241b \u240d)" in shown, "and flagged"
