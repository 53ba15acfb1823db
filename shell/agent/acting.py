"""The tools' half of a turn: run the model's tool calls (or skip them, as
``after_model_response`` decided), inject the messages it gave, then ask the turn's
hooks whether the reply stops here.

The calls run in a :class:`~shell.agent.batch.ToolBatch` beside the caller, each by
:func:`~shell.agent.tool_call.run_call`; their events pass out as they come, and
their results join the history in the model's order once all are done.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, Sequence

from middleware.types import CallOutcome
from shell.core.assembly import ChunkAssembler, message_chunks
from shell.core.events import Event
from shell.core.messages import AssistantMessage, Message, TextBlock, ToolResult

from .batch import ToolBatch
from .reply import Reply
from .tool_call import run_call


async def act(reply: Reply) -> AsyncGenerator[Event, None]:
    """The turn after the model spoke: run its tool calls (or skip them as the turn's
    decision says), inject messages, ask whether to stop."""
    run, action, stack = reply.run, reply.turn, reply.agent.middleware
    assistant = reply.last_message
    assert assistant is not None
    reply.check()
    calls = assistant.tool_calls
    outcomes: list[CallOutcome] = []
    if calls and action.decision == "natural":
        batch = ToolBatch(reply, assistant, run_call)
        batch.start()
        try:
            while True:
                for event in reply.drain():
                    yield event
                if batch.finished.is_set():
                    break
                await reply.wait()
        finally:
            await batch.stop()
            reply.batch = None
        reply.check()
        if batch.fatal is not None:
            raise batch.fatal
        run.history.extend(batch.messages[c.id] for c in calls)
        reply.pending = None
        outcomes = [batch.outcomes[c.id] for c in calls]
    elif calls:
        reply.skip_calls(f"the turn's decision was {action.decision}")
    _inject(reply, action.inject_messages)
    await stack.after_turn(run, outcomes)
    stop = await stack.should_stop_after_turn(run)
    answers = [o.result for o in outcomes if o.result.terminate]
    if answers:
        _answer_directly(reply, answers)
    if action.decision == "stop" or answers or (stop and (calls or action.decision != "natural")):
        reply.stop = "stopped"
    elif not calls and action.decision == "natural":
        reply.stop = "end_turn"


def _answer_directly(reply: Reply, results: Sequence[ToolResult]) -> None:
    """Eino's ReturnDirectly: the tool's result is the reply's answer."""
    text = "\n\n".join(r.text for r in results if r.text)
    answer = AssistantMessage((TextBlock(text),) if text else ())
    reply.run.history.append(answer)
    reply.last_message = answer
    assembler = ChunkAssembler(reply.run.reply_id, reply.run.block_ids)
    for chunk in message_chunks(answer):
        for event in assembler.feed(chunk):
            reply.emit(event)
    for event in assembler.abort():
        reply.emit(event)


def _inject(reply: Reply, messages: Sequence[Message]) -> None:
    reply.run.history.extend(messages)
    for message in messages:
        if isinstance(message, AssistantMessage):
            reply.last_message = message  # e.g. a middleware's "stopped: limit reached"
