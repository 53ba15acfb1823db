"""PII: detectors (Luhn included), the four strategies, the three sources."""

from __future__ import annotations

import re

import pytest

from middleware.pii import PII, PIIDetectionError, luhn_valid
from shell.agent import AssistantMessage, TextBlock, ToolCallBlock, ToolResultMessage, UserMessage, tool
from shell.agent.loop import Agent
from shell.core.events import ErrorEvent, Event, ReplyEnd, ReplyStart
from shell.providers.scripted import ScriptedModel

pytestmark = pytest.mark.anyio

CARD = "4111 1111 1111 1111"  # a classic test number: passes Luhn
NOT_A_CARD = "4111 1111 1111 1112"  # one digit off: fails Luhn


async def run(agent: Agent, text: str) -> list[Event]:
    return [e async for e in agent.reply(text)]


def end_of(events: list[Event]) -> ReplyEnd:
    assert isinstance(events[-1], ReplyEnd)
    return events[-1]


# -- detectors ----------------------------------------------------------------------


def found(pii_type: str, text: str) -> list[str]:
    return [text[a:b] for a, b in PII(pii_type).detect(text)]


def test_email_detector() -> None:
    assert found("email", "mail john.doe+x@mail.example.co.uk, or a@b.io.") == [
        "john.doe+x@mail.example.co.uk",
        "a@b.io",
    ]
    assert found("email", "not an email: user@localhost or @example.com") == []


def test_credit_card_detector_checks_luhn() -> None:
    assert luhn_valid("4111111111111111") and luhn_valid("79927398713")
    assert not luhn_valid("4111111111111112")
    assert found("credit_card", f"card {CARD} and {NOT_A_CARD}") == [CARD]
    assert found("credit_card", "dashed 5500-0000-0000-0004 plain 378282246310005") == [
        "5500-0000-0000-0004",
        "378282246310005",
    ]
    assert found("credit_card", "order 1234567890123 ok") == []  # 13 digits, fails Luhn


def test_ip_mac_url_detectors() -> None:
    assert found("ip", "hosts 10.0.0.1, 256.1.1.1 and 192.168.1.45.") == ["10.0.0.1", "192.168.1.45"]
    assert found("ip", "version 1.2.3.4.5") == []
    assert found("mac_address", "eth0 00:1A:2b:3C:4d:5E, wlan 00-11-22-33-44-55; bad 00:11-22:33:44:55") == [
        "00:1A:2b:3C:4d:5E",
        "00-11-22-33-44-55",
    ]
    assert found("url", "see https://example.com/a?b=1. Or (www.foo.org), not foo.org") == [
        "https://example.com/a?b=1",
        "www.foo.org",
    ]


def test_custom_detectors() -> None:
    assert (
        PII("api_key", detector=r"sk-[a-z0-9]{8}").clean("key sk-abcd1234 end", "x")
        == "key [REDACTED_API_KEY] end"
    )
    compiled = PII("ticket", detector=re.compile(r"T-\d+"))
    assert compiled.clean("T-1 and T-22", "x") == "[REDACTED_TICKET] and [REDACTED_TICKET]"
    spans = PII("word", detector=lambda text: [(0, 5)])
    assert spans.clean("hello world", "x") == "[REDACTED_WORD] world"
    dicts = PII("word", detector=lambda text: [{"type": "word", "value": "world", "start": 6, "end": 11}])
    assert dicts.clean("hello world", "x") == "hello [REDACTED_WORD]"
    strings = PII("name", strategy="mask", detector=lambda text: ["Alice"])
    assert strings.clean("Alice met Alice", "x") == "*lice met *lice"  # all but the last four characters
    overlapping = PII("x", detector=lambda text: [(0, 4), (2, 6), (8, 9)])
    assert overlapping.clean("abcdefghij", "x") == "[REDACTED_X]efgh[REDACTED_X]j"
    matches = PII("digits", detector=lambda text: list(re.finditer(r"\d+", text)))
    assert matches.clean("a1b22", "x") == "a[REDACTED_DIGITS]b[REDACTED_DIGITS]"


def test_unknown_type_needs_a_detector_and_strategy_is_checked() -> None:
    with pytest.raises(ValueError, match="not a built-in PII type"):
        PII("passport")
    with pytest.raises(ValueError, match="strategy"):
        PII("email", strategy="erase")  # type: ignore[arg-type]


# -- strategies ---------------------------------------------------------------------


def test_redact() -> None:
    assert PII("email").clean("write to a@b.io now", "x") == "write to [REDACTED_EMAIL] now"
    assert PII("credit_card").clean(CARD, "x") == "[REDACTED_CREDIT_CARD]"


def test_mask() -> None:
    def mask(t: str, s: str) -> str:
        return PII(t, strategy="mask").clean(s, "x")

    assert mask("email", "user john.doe@example.com") == "user j***@example.com"
    assert mask("credit_card", f"card {CARD}.") == "card ****-****-****-1111."
    assert mask("ip", "from 192.168.1.45") == "from ***.***.***.45"
    assert mask("mac_address", "00:1A:2B:3C:4D:5E") == "**:**:**:**:**:5E"
    assert mask("url", "https://secret.example/x?token=1") == "https://***"


def test_hash_is_deterministic_and_distinguishes_values() -> None:
    mw = PII("email", strategy="hash")
    a = mw.clean("a@b.io", "x")
    assert re.fullmatch(r"<email_hash:[0-9a-f]{8}>", a)
    assert mw.clean("a@b.io", "x") == a == PII("email", strategy="hash").clean("a@b.io", "x")
    assert mw.clean("c@d.io", "x") != a


def test_block_raises_without_quoting_the_data() -> None:
    with pytest.raises(PIIDetectionError) as info:
        PII("email", strategy="block").clean("a@b.io and c@d.io", "user input")
    assert str(info.value) == "Detected 2 email values in user input; blocked"
    assert "a@b.io" not in str(info.value)


# -- sources ------------------------------------------------------------------------


async def test_input_is_cleaned_before_the_model_and_the_history_see_it() -> None:
    model = ScriptedModel(["ok"])
    agent = Agent(model, middleware=[PII("email")])
    events = await run(agent, "I am john@example.com")
    sent = model.requests[0].messages[-1]
    assert sent == UserMessage("I am [REDACTED_EMAIL]")
    assert agent.messages[0] == UserMessage("I am [REDACTED_EMAIL]")
    start = events[0]
    assert isinstance(start, ReplyStart) and start.input == (UserMessage("I am [REDACTED_EMAIL]"),)


async def test_input_with_blocks_is_cleaned() -> None:
    model = ScriptedModel(["ok"])
    agent = Agent(model, middleware=[PII("ip", strategy="mask")])
    await run(agent, UserMessage((TextBlock("server 10.1.2.3"),)))  # type: ignore[arg-type]
    assert model.requests[0].messages[-1] == UserMessage((TextBlock("server ***.***.***.3"),))


async def test_block_on_input_stops_before_anything_is_stored_or_sent() -> None:
    model = ScriptedModel(["never"])
    agent = Agent(model, middleware=[PII("credit_card", strategy="block")])
    events = await run(agent, f"charge {CARD}")
    assert model.requests == []
    assert agent.messages == []
    errors = [e for e in events if isinstance(e, ErrorEvent)]
    assert len(errors) == 1 and errors[0].source == "PII[credit_card]"
    assert CARD not in errors[0].error and "credit_card" in errors[0].error
    assert end_of(events).stop_reason == "error"
    # A clean message goes through afterwards.
    model.add("fine")
    assert end_of(await run(agent, "no card here")).stop_reason == "end_turn"


async def test_history_from_before_is_cleaned_in_the_view_only() -> None:
    model = ScriptedModel(["ok"])
    agent = Agent(model, middleware=[PII("email", strategy="hash")])
    old = UserMessage("old note: a@b.io")
    agent.messages.extend([old, AssistantMessage((TextBlock("noted"),))])
    await run(agent, "hello")
    view = model.requests[0].messages
    assert (
        isinstance(view[0], UserMessage) and "a@b.io" not in view[0].text and "<email_hash:" in view[0].text
    )
    assert agent.messages[0] == old


async def test_input_off_leaves_user_messages_alone() -> None:
    model = ScriptedModel(["ok"])
    agent = Agent(model, middleware=[PII("email", apply_to_input=False)])
    await run(agent, "a@b.io")
    assert model.requests[0].messages[-1] == UserMessage("a@b.io")


async def test_output_is_cleaned_in_history_and_the_next_call() -> None:
    model = ScriptedModel(["Contact support@example.com", "ok"])
    agent = Agent(model, middleware=[PII("email", strategy="mask", apply_to_output=True)])
    events = await run(agent, "who do I contact?")
    end = end_of(events)
    assert end.message is not None and end.message.text == "Contact s***@example.com"
    assert agent.messages[-1] == end.message
    await run(agent, "thanks")
    assert model.requests[1].messages[1] == end.message


async def test_output_off_by_default() -> None:
    model = ScriptedModel(["Contact support@example.com"])
    agent = Agent(model, middleware=[PII("email")])
    end = end_of(await run(agent, "who?"))
    assert end.message is not None and end.message.text == "Contact support@example.com"


async def test_output_block_ends_the_reply_and_keeps_it_out_of_history() -> None:
    model = ScriptedModel([f"Your card is {CARD}"])
    agent = Agent(model, middleware=[PII("credit_card", strategy="block", apply_to_output=True)])
    events = await run(agent, "what is my card?")
    errors = [e for e in events if isinstance(e, ErrorEvent)]
    assert errors and errors[0].source == "PII[credit_card]" and "the model's answer" in errors[0].error
    assert all(CARD not in getattr(m, "text", "") for m in agent.messages)


@tool(read_only=True)
def lookup(user: str) -> str:
    """Look a user up."""
    return f"{user}: email {user}@corp.example, ip 10.0.0.7"


async def test_tool_results_are_cleaned_and_two_instances_stack() -> None:
    model = ScriptedModel([AssistantMessage((ToolCallBlock("c1", "lookup", {"user": "ann"}),)), "done"])
    stack = [
        PII("email", strategy="redact", apply_to_tool_results=True),
        PII("ip", strategy="hash", apply_to_tool_results=True),
    ]
    agent = Agent(model, tools=[lookup], middleware=stack)
    await run(agent, "look up ann")
    result = next(m for m in agent.messages if isinstance(m, ToolResultMessage))
    assert re.fullmatch(r"ann: email \[REDACTED_EMAIL\], ip <ip_hash:[0-9a-f]{8}>", result.text)
    assert model.requests[1].messages[-1] == result
    assert agent.middleware.names() == ["PII[email]", "PII[ip]"]


async def test_tool_results_off_by_default_and_block() -> None:
    model = ScriptedModel([AssistantMessage((ToolCallBlock("c1", "lookup", {"user": "ann"}),)), "done"])
    agent = Agent(model, tools=[lookup], middleware=[PII("email")])
    await run(agent, "look up ann")
    result = next(m for m in agent.messages if isinstance(m, ToolResultMessage))
    assert "ann@corp.example" in result.text

    model = ScriptedModel([AssistantMessage((ToolCallBlock("c1", "lookup", {"user": "ann"}),)), "never"])
    agent = Agent(
        model, tools=[lookup], middleware=[PII("email", strategy="block", apply_to_tool_results=True)]
    )
    events = await run(agent, "look up ann")
    errors = [e for e in events if isinstance(e, ErrorEvent)]
    assert errors and errors[0].source == "PII[email]" and "the result of lookup" in errors[0].error
    assert len(model.requests) == 1
