"""ScriptedModel's input-token estimate (four characters a token) is what tests of
usage, meters and Summarization thresholds read: it must be the same whether the
history grew, was rewritten or shrank (it is kept incrementally for long sessions)."""

from __future__ import annotations

from shell.core.messages import AssistantMessage, Message, TextBlock, UserMessage
from shell.core.model import ModelRequest
from shell.providers.scripted import ScriptedModel, _text_of, estimate_tokens


def _expected(system: str, messages: list[Message]) -> int:
    return max(1, (len(system) + sum(len(_text_of(m)) for m in messages)) // 4)


def _request(messages: list[Message], system: str = "be brief") -> ModelRequest:
    return ModelRequest(model=ScriptedModel([]), system_prompt=system, messages=tuple(messages))


def test_the_estimate_follows_a_history_that_grows_is_rewritten_and_shrinks() -> None:
    history: list[Message] = [UserMessage("a" * 400), AssistantMessage((TextBlock("b" * 800),))]
    assert estimate_tokens(_request(history)) == _expected("be brief", history)
    history.append(UserMessage("c" * 40))  # grows: only the new message is measured
    assert estimate_tokens(_request(history)) == _expected("be brief", history)
    history[1] = AssistantMessage((TextBlock("short"),))  # rewritten in the middle (compaction, edits)
    assert estimate_tokens(_request(history)) == _expected("be brief", history)
    history = history[:1]  # shrinks (a rewind)
    assert estimate_tokens(_request(history, system="")) == _expected("", history)
    equal = [UserMessage("a" * 400)]  # equal but not the same objects: same answer
    assert estimate_tokens(_request(equal)) == _expected("be brief", equal)
