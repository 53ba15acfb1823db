"""A session that held hostile strings (escape sequences, bidi overrides, a lone
surrogate, invisible characters, C1 controls) resumes showing the same text the user
saw live, and a session file carrying such strings (or raw, broken ones) is read
without a crash, everything neutralised."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from shell.agent import Agent, AssistantMessage, TextBlock, ToolCallBlock
from shell.config import Settings
from shell.core.textsafety import sanitize
from shell.providers.scripted import ScriptedModel
from shell.runtime import RuntimeOptions, ShellRuntime
from shell.tools.workspace import Workspace
from shell.tui.app import AgentShellApp

from .helpers import SIZE, eventually, read_note, shown_entries, wait_for

pytestmark = pytest.mark.anyio

HOSTILE = ("odd \ud800 text, a pair \ud83d\ude00, \x1b[31mred\x1b[0m \x1b]0;owned\x07 "
           "\x1b]52;c;ZXZpbA==\x07 \u202eevil\u202c \u2066iso\u2069 zero\u200bwidth "
           "\x9b2J c1 tag\U000e0041 del\x7f bell\x07 nul\x00 end")


def app_for(tmp_path: Path, turns: list[Any]) -> AgentShellApp:
    agent = Agent(ScriptedModel(turns, delay=0, chunk_size=7), tools=[read_note])
    options = RuntimeOptions(record=True, cwd=str(tmp_path))
    runtime = ShellRuntime(agent, settings=Settings(), workspace=Workspace(tmp_path), options=options)
    return AgentShellApp(runtime=runtime)


def shown(app: AgentShellApp) -> list[str]:
    return shown_entries(app, lambda state: f"{state.call_id}:{state.name}:{state.status}:"
                                            f"{sanitize(state.args_json())}:{sanitize(state.result)}")


async def test_a_resumed_session_shows_the_hostile_text_as_it_was_shown_live(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AGENT_SHELL_DATA_DIR", str(tmp_path / "data"))
    turns = [AssistantMessage((TextBlock(HOSTILE), ToolCallBlock("c1", "read_note", {"path": HOSTILE}))),
             HOSTILE]
    live = app_for(tmp_path, turns)
    async with live.run_test(size=SIZE) as pilot:
        live.start_reply(f"user says {HOSTILE}")
        await wait_for(pilot, lambda: not live.busy and len(live.agent.messages) >= 4)
        # the question, the text before the call, its span (done), the answer
        await wait_for(pilot, lambda: len(shown(live)) == 4 and ":done:" in shown(live)[2])
        seen = shown(live)
        await pilot.press("ctrl+q")
    again = app_for(tmp_path, [])
    again.runtime.resume(latest=True)
    async with again.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: len(shown(again)) == len(seen))
        resumed = shown(again)
        await pilot.press("ctrl+q")
    assert resumed == seen
    assert "odd \ufffd text, a pair \U0001f600, \u241b[31mred" in seen[1]  # as the model gets it back
    assert "\\ud800" not in "".join(seen)


def hostile_session(path: Path, cwd: Path) -> None:
    """A session file as a hostile repository or a broken tool could leave it: escapes,
    bidi, invisible characters and lone surrogates in every field, a raw line that is not
    UTF-8, a surrogate in a key, a call id and tool name built to move the cursor."""
    evil = "\\u001b]0;owned\\u0007\\u001b[2J\\u202eevil\\u202c\\ud800x\\udc00\\u200b\\u009b"
    lines = [
        f'{{"kind":"header","version":2,"id":"{path.stem}","created":"2026-11-29T00:00:00+00:00",'
        f'"cwd":"{cwd}","model":"m{evil}","app":"agent-shell"}}',
        f'{{"kind":"title","title":"t{evil}","source":"user"}}',
        f'{{"kind":"message","message":{{"role":"user","content":"ask {evil}"}}}}',
        f'{{"kind":"message","message":{{"role":"assistant","content":[{{"type":"text","text":"say {evil}"}},'
        f'{{"type":"tool_call","id":"c{evil}","name":"n{evil}","args":{{"k{evil}":"v{evil}"}}}}],'
        '"stop_reason":"tool_use"}}',
        f'{{"kind":"tool_result","message":{{"role":"tool","call_id":"c{evil}","name":"n{evil}",'
        f'"content":"out {evil}","is_error":false}}}}',
        f'{{"kind":"results_landed","call_ids":["c{evil}"]}}',
        f'{{"kind":"call_notes","call_id":"c{evil}","notes":{{"not_written":["p{evil}"]}}}}',
        f'{{"kind":"message","message":{{"role":"assistant","content":[{{"type":"text",'
        f'"text":"end {evil}"}}]}}}}',
    ]
    torn = b'{"kind":"message","message":{"role":"user","content":"\xff\xfe"}}\n'  # not UTF-8
    data = "\n".join(lines).encode() + b"\n" + torn
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)


async def test_a_hostile_session_file_resumes_neutralised_and_nothing_crashes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from shell.sessions import SessionStore, load_session

    monkeypatch.setenv("AGENT_SHELL_DATA_DIR", str(tmp_path / "data"))
    store = SessionStore()
    path = store.path("20261129-000000-abcdef")
    hostile_session(path, tmp_path)
    loaded = load_session(path)
    assert [m.role for m in loaded.messages] == ["user", "assistant", "tool", "assistant"]
    texts = [m.text for m in loaded.messages]
    assert not [c for t in texts for c in t if 0xD800 <= ord(c) <= 0xDFFF] and "\ufffdx\ufffd" in texts[0]
    assert any("line 9" in p for p in loaded.problems), loaded.problems  # the raw line: skipped, said
    app = app_for(tmp_path, ["fine"])
    app.runtime.resume(latest=True)
    async with app.run_test(size=SIZE) as pilot:
        shots: list[str] = []

        def shown_neutralised() -> None:
            shots.append(app.export_screenshot())
            assert "say&#160;\u241b]0;owned\u2407" in shots[-1] and "line&#160;9" in shots[-1]

        await eventually(pilot, shown_neutralised)  # once the resumed session is drawn
        for raw in ("\x1b", "\x07", "\u202e", "\u200b", "\x9b", "\ud800"):
            assert raw not in shots[-1], repr(raw)
        await pilot.press("ctrl+q")
