"""A call the user edited before it ran reads as it ran, "modified by you", when the
conversation is drawn again from the session (a resume, a rewind), not with the
model's arguments: the message keeps the model's, the session the edit."""

from __future__ import annotations

import pytest

from middleware.base import Middleware
from middleware.context import ToolCallContext
from middleware.types import BeforeToolCallResult
from shell.agent import Agent, ApprovalDecision, ApprovalRequest, AssistantMessage, ToolCallBlock
from shell.core.tools import tool
from shell.frontend.reply import calls_from_messages
from shell.providers.scripted import ScriptedModel
from shell.sessions import SessionRecorder, SessionStore, load_session, resume
from shell.sessions.redact import NO_REDACTION
from shell.tui.entries import SpanEntry
from shell.tui.history import entries_from_messages

pytestmark = pytest.mark.anyio


@tool
async def save(path: str, content: str) -> str:
    """Save a file."""
    return f"saved {path}"


class UserEdits(Middleware):
    """What the approval's [e] does: the call runs with the user's arguments."""

    async def before_tool_call(self, ctx: ToolCallContext) -> BeforeToolCallResult | None:
        decision = await ctx.ask(ApprovalRequest(ctx.call, ctx.tool, dict(ctx.args)))
        return BeforeToolCallResult(args=decision.args)


async def edit_it(request: ApprovalRequest) -> ApprovalDecision:
    return ApprovalDecision.edit({"path": "../outside.txt", "content": "hi"})


class Normaliser(Middleware):
    """A middleware that changes the arguments itself (no one was asked)."""

    async def before_tool_call(self, ctx: ToolCallContext) -> BeforeToolCallResult | None:
        return BeforeToolCallResult(args={**ctx.args, "path": "normal.txt"})


async def test_an_edited_call_is_drawn_again_as_it_ran(store: SessionStore) -> None:
    turn = AssistantMessage((ToolCallBlock("c1", "save", {"path": "out.txt", "content": "hi"}),))
    agent = Agent(ScriptedModel([turn, "done"]), tools=[save], middleware=[UserEdits()], ask=edit_it)
    with SessionRecorder(store, agent, redactor=NO_REDACTION) as rec:
        async for _ in rec.record(agent.reply("go")):
            pass
    assert rec.call_edits == {"c1": {"path": "../outside.txt", "content": "hi"}}
    loaded = load_session(rec.path)
    assert loaded.call_edits == rec.call_edits
    call = calls_from_messages(loaded.messages, loaded.outcomes, loaded.call_notes, loaded.call_edits)["c1"]
    assert call.args == {"path": "../outside.txt", "content": "hi"} and call.modified
    spans = [e for e in entries_from_messages(loaded.messages, edits=loaded.call_edits)
             if isinstance(e, SpanEntry)]
    assert "modified by you" in spans[0].build()._make_title(200)  # type: ignore[attr-defined]
    again = Agent(ScriptedModel([]), tools=[save])
    resume(again, loaded)
    with SessionRecorder.resume(store, again, loaded, redactor=NO_REDACTION) as resumed:
        assert resumed.call_edits == rec.call_edits  # kept by the recorder that goes on


async def test_an_unedited_call_is_not_marked(store: SessionStore) -> None:
    turn = AssistantMessage((ToolCallBlock("c1", "save", {"path": "out.txt", "content": "hi"}),))
    agent = Agent(ScriptedModel([turn, "done"]), tools=[save])
    with SessionRecorder(store, agent, redactor=NO_REDACTION) as rec:
        async for _ in rec.record(agent.reply("go")):
            pass
    loaded = load_session(rec.path)
    assert loaded.call_edits == {}
    assert not calls_from_messages(loaded.messages, edits=loaded.call_edits)["c1"].modified


async def test_a_call_a_middleware_changed_is_drawn_again_as_its_not_the_users(store: SessionStore) -> None:
    """Finding R7: a middleware's change read "modified by you", live and resumed."""
    turn = AssistantMessage((ToolCallBlock("c1", "save", {"path": "out.txt", "content": "hi"}),))
    agent = Agent(ScriptedModel([turn, "done"]), tools=[save], middleware=[Normaliser()])
    with SessionRecorder(store, agent, redactor=NO_REDACTION) as rec:
        async for _ in rec.record(agent.reply("go")):
            pass
    loaded = load_session(rec.path)
    assert loaded.call_editors == {"c1": "Normaliser"}
    spans = [e for e in entries_from_messages(loaded.messages, edits=loaded.call_edits,
                                              editors=loaded.call_editors) if isinstance(e, SpanEntry)]
    title = spans[0].build()._make_title(200)  # type: ignore[attr-defined]
    assert "modified by Normaliser" in title and "modified by you" not in title
    again = Agent(ScriptedModel([]), tools=[save])
    resume(again, loaded)
    with SessionRecorder.resume(store, again, loaded, redactor=NO_REDACTION) as resumed:
        assert resumed.call_editors == {"c1": "Normaliser"}  # kept by the recorder that goes on


async def test_the_export_and_the_model_read_the_args_an_edited_call_ran_with(store: SessionStore) -> None:
    """/export showed the model's arguments next to the result of the user's (finding
    T2): the result now opens with the arguments that ran, in the history the model
    reads, the session and the export alike."""
    from shell.sessions.export import export_markdown

    turn = AssistantMessage((ToolCallBlock("c1", "save", {"path": "out.txt", "content": "hi"}),))
    agent = Agent(ScriptedModel([turn, "done"]), tools=[save], middleware=[UserEdits()], ask=edit_it)
    with SessionRecorder(store, agent, redactor=NO_REDACTION) as rec:
        async for _ in rec.record(agent.reply("go")):
            pass
    ran = '{"path": "../outside.txt", "content": "hi"}'
    assert ran in agent.messages[2].text  # type: ignore[union-attr]
    assert f"it ran with: {ran}" in export_markdown(load_session(rec.path), redactor=NO_REDACTION)
