"""Finding T8: Ollama numbers tool calls from ``call_0`` in every answer, so a session
held several calls with one id, and every record kept by call id named all of them:
the user's rejection of the first call made a resumed session show the second, which
ran, as rejected, and with the second's command on both. The agent gives a repeated
id a new name before anything records it; a session saved before that is told apart
on loading by the file's order (a record follows the call it is about)."""

from __future__ import annotations

from pathlib import Path

import pytest

from middleware.human_in_the_loop import HumanInTheLoop
from shell.agent import Agent, ApprovalDecision, ApprovalRequest, AssistantMessage, ToolCallBlock
from shell.core.tools import tool
from shell.frontend.reply import calls_from_messages
from shell.providers.scripted import ScriptedModel
from shell.sessions import SessionRecorder, SessionStore, load_session
from shell.sessions.redact import NO_REDACTION

pytestmark = pytest.mark.anyio


@tool
async def touch(path: str) -> str:
    """Create a file."""
    return f"made {path}"


def answers() -> object:
    said = iter([ApprovalDecision.reject("no"), ApprovalDecision.approve()])

    async def ask(request: ApprovalRequest) -> ApprovalDecision:
        return next(said)

    return ask


def call(path: str) -> AssistantMessage:
    return AssistantMessage((ToolCallBlock("call_0", "touch", {"path": path}),))  # the same id, as Ollama


async def recorded(store: SessionStore) -> Path:
    agent = Agent(ScriptedModel([call("first.txt"), "ok", call("second.txt"), "ok"]), tools=[touch],
                  middleware=[HumanInTheLoop()], ask=answers())  # type: ignore[arg-type]
    with SessionRecorder(store, agent, redactor=NO_REDACTION) as rec:
        for text in ("first", "second"):
            async for _ in rec.record(agent.reply(text)):
                pass
    return rec.path


def shown(path: Path) -> list[tuple[str, str, str]]:
    loaded = load_session(path)
    calls = calls_from_messages(loaded.messages, loaded.outcomes, loaded.call_notes, loaded.call_edits)
    return [(c.call_id, str((c.args or {}).get("path")), c.status) for c in calls.values()]


async def test_a_repeated_id_is_renamed_and_each_call_keeps_its_own_outcome(store: SessionStore) -> None:
    path = await recorded(store)
    [(first_id, first, first_status), (second_id, second, second_status)] = shown(path)
    assert first_id == "call_0" and second_id != "call_0"
    assert (first, first_status) == ("first.txt", "rejected")
    assert (second, second_status) == ("second.txt", "done")


async def test_a_session_saved_with_repeated_ids_loads_each_call_with_its_own_records(
    store: SessionStore,
) -> None:
    path = await recorded(store)
    [_, (second_id, _, _)] = shown(path)
    path.write_text(path.read_text().replace(f'"{second_id}"', '"call_0"'))  # as the old agent saved it
    assert path.read_text().count('"call_0"') >= 4
    [(_, first, first_status), (second_id, second, second_status)] = shown(path)
    assert (first, first_status) == ("first.txt", "rejected")
    assert (second, second_status) == ("second.txt", "done") and second_id != "call_0"
