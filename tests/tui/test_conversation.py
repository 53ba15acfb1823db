"""Pilot tests: sending, streaming, tool spans, cancelling, audio, queueing."""

from __future__ import annotations

import pytest
from textual.content import Content
from textual.widgets import Markdown, Static

from shell.agent import AssistantMessage, TextBlock, ThinkingBlock, ToolCallBlock
from shell.tui.widgets.assistant_message import AssistantMessage as AssistantWidget
from shell.tui.widgets.audio_block import AudioBlock
from shell.tui.widgets.notice_line import NoticeLine
from shell.tui.widgets.thinking import ThinkingBlock as ThinkingWidget
from shell.tui.widgets.tool_span import ToolSpan
from shell.tui.widgets.user_message import UserMessage

from .helpers import SIZE, AskEverything, Speaker, frame_drawn, scripted_app, send, type_now, wait_for

pytestmark = pytest.mark.anyio


async def test_send_and_see_streamed_markdown_reply() -> None:
    app, _, model = scripted_app(["# Title\n\nSome **bold** text.\n\n- one\n- two\n"], delay=0.001)
    async with app.run_test(size=SIZE) as pilot:
        await send(pilot, "hello")
        await wait_for(pilot, lambda: not app.busy and app.query(AssistantWidget))
        assert [w.text for w in app.query(UserMessage)] == ["hello"]
        reply = app.query_one(AssistantWidget)
        assert reply.text == "# Title\n\nSome **bold** text.\n\n- one\n- two\n"
        assert app.query_one(Markdown).source.startswith("# Title")
        assert model.requests[0].messages[-1].text == "hello"
        assert app.status.tokens_out > 0
        assert app.status.state == "idle"


async def test_thinking_is_collapsed() -> None:
    turn = AssistantMessage((ThinkingBlock("let me think about it"), TextBlock("Answer.")))
    app, _, _ = scripted_app([turn])
    async with app.run_test(size=SIZE) as pilot:
        await send(pilot, "q")
        await wait_for(pilot, lambda: not app.busy and app.query(AssistantWidget))
        thinking = app.query_one(ThinkingWidget)
        assert thinking.collapsed
        assert thinking.text == "let me think about it"
        assert "Thought (5 words)" in thinking.title


async def test_tool_span_goes_through_its_states(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[str] = []
    original = ToolSpan.update_state

    def record(self: ToolSpan) -> None:
        if not seen or seen[-1] != self.state.status:
            seen.append(self.state.status)
        original(self)

    monkeypatch.setattr(ToolSpan, "update_state", record)
    call = ToolCallBlock("c1", "write_note", {"path": "a.txt", "text": "hello"})
    app, _, _ = scripted_app([AssistantMessage((call,)), "Written."], middleware=[AskEverything()])
    async with app.run_test(size=SIZE) as pilot:
        await send(pilot, "write it")
        await wait_for(pilot, lambda: app.approvals.screen is not None and app.approvals.screen.is_attached)
        assert app.status.state == "approval"
        await pilot.press("y")
        await wait_for(pilot, lambda: not app.busy)
        span = app.query_one(ToolSpan)
        assert seen == ["streaming", "pending", "approval", "pending", "running", "done"]
        assert span.state.args == {"path": "a.txt", "text": "hello"}
        assert span.state.result == "wrote 5 characters to a.txt"
        assert span.state.duration_s is not None
        assert "done" in str(span.title) and "write_note" in str(span.title)
        span.collapsed = False
        await pilot.pause()
        result = span.query(".span-result").first(Static).content
        assert isinstance(result, Content) and "wrote 5 characters" in result.plain


async def test_tool_error_and_diff_result() -> None:
    from shell.agent import ToolResult, tool

    @tool
    def edit(path: str) -> ToolResult:
        """Edit a file.

        Args:
            path: the file
        """
        diff = "--- a/x\n+++ b/x\n@@ -1 +1 @@\n-old\n+new\n"
        return ToolResult("edited", details={"diff": diff})

    @tool
    def boom() -> str:
        """Fail."""
        raise RuntimeError("kaput")

    turn = AssistantMessage((ToolCallBlock("c1", "edit", {"path": "x"}), ToolCallBlock("c2", "boom", {})))
    app, _, _ = scripted_app([turn, "ok"], tools=[edit, boom])
    async with app.run_test(size=SIZE) as pilot:
        await send(pilot, "go")
        await wait_for(pilot, lambda: not app.busy)
        spans = {s.state.name: s for s in app.query(ToolSpan)}
        assert spans["edit"].state.status == "done"
        assert spans["edit"].state.diff.startswith("--- a/x")
        assert spans["boom"].state.status == "error"
        assert "kaput" in spans["boom"].state.result


async def test_escape_cancels_the_reply_at_once() -> None:
    app, _, _ = scripted_app(["word " * 2000], delay=0.01)
    async with app.run_test(size=SIZE) as pilot:
        await send(pilot, "talk")
        started = lambda: bool(app.query(AssistantWidget)) and len(app.query_one(AssistantWidget).text) > 20  # noqa: E731
        await wait_for(pilot, started)
        await pilot.press("escape")
        await wait_for(pilot, lambda: not app.busy)
        assert app.renderer is None
        notices = [n.text for n in app.query(NoticeLine)]
        assert "Reply cancelled." in notices
        assert len(app.query_one(AssistantWidget).text) < 10000
        assert app.status.state == "idle"


async def test_esc_before_any_thought_is_drawn_leaves_no_empty_thought_block() -> None:
    """Esc right after Enter left ``▶ Thought (0 words)`` above "Reply cancelled."."""
    from shell.tui.entries import ThinkingEntry

    turn = AssistantMessage((ThinkingBlock("\n" * 4000), TextBlock("never shown")))
    app, _, _ = scripted_app([turn], delay=0.01)
    async with app.run_test(size=SIZE) as pilot:
        await send(pilot, "talk")
        await wait_for(pilot, lambda: bool(app.query(ThinkingWidget)))
        await pilot.press("escape")
        await wait_for(pilot, lambda: not app.busy)
        await pilot.pause()
        assert "Reply cancelled." in [n.text for n in app.query(NoticeLine)]
        assert not app.query(ThinkingWidget)
        assert not [e for e in app.conversation.entries if isinstance(e, ThinkingEntry)]


async def test_esc_keeps_a_thought_that_has_words() -> None:
    turn = AssistantMessage((ThinkingBlock("hmm " * 2000), TextBlock("never shown")))
    app, _, _ = scripted_app([turn], delay=0.01)
    async with app.run_test(size=SIZE) as pilot:
        await send(pilot, "talk")
        thinking = lambda: bool(app.query(ThinkingWidget)) and "hmm" in app.query_one(ThinkingWidget).text  # noqa: E731
        await wait_for(pilot, thinking)
        await pilot.press("escape")
        await wait_for(pilot, lambda: not app.busy)
        thought = app.query_one(ThinkingWidget)
        assert thought.text.strip() and "Thought (0 words)" not in str(thought.title)


async def test_audio_block_appears_from_data_block_events() -> None:
    app, _, _ = scripted_app(["Here is speech."], middleware=[Speaker()])
    async with app.run_test(size=SIZE) as pilot:
        await send(pilot, "speak")
        await wait_for(pilot, lambda: not app.busy and app.query(AudioBlock))
        block = app.query_one(AudioBlock)
        assert block.done
        assert block.media_type == "audio/wav"
        head = str(block.query_one("#audio-head", Static).content)
        assert "0.5s" in head
        wave = str(block.query_one("#audio-wave", Static).content)
        assert wave.strip() and set(wave) <= set(" ▁▂▃▄▅▆▇█")


async def test_messages_typed_during_a_reply_queue_and_send_after() -> None:
    app, _, model = scripted_app(["first " * 200, "second"], delay=0.01)
    async with app.run_test(size=SIZE) as pilot:
        await send(pilot, "one")
        await wait_for(pilot, lambda: app.query(AssistantWidget))
        await type_now(app, "two")
        await wait_for(pilot, lambda: app.status.queued == 1 or len(model.requests) > 1, timeout=30)
        assert app.status.queued == 1  # still the first reply: "two" waits its turn
        assert "two" in str(app.query_one("#queue", Static).content)
        await wait_for(pilot, lambda: len(model.requests) == 2 and not app.busy, timeout=60)
        assert [w.text for w in app.query(UserMessage)] == ["one", "two"]
        assert app.status.queued == 0


async def test_prompt_history_and_newlines() -> None:
    app, _, _ = scripted_app(["a", "b"])
    async with app.run_test(size=SIZE) as pilot:
        await send(pilot, "first")
        await wait_for(pilot, lambda: not app.busy and app.query(AssistantWidget))
        await pilot.press("up")
        assert app.prompt.text == "first"
        await pilot.press("down")
        assert app.prompt.text == ""
        await pilot.press("x", "ctrl+j", "y")
        assert app.prompt.text == "x\ny"


async def test_page_up_in_the_prompt_scrolls_the_conversation() -> None:
    from shell.tui.entries import AssistantEntry

    app, _, _ = scripted_app([])
    async with app.run_test(size=SIZE) as pilot:
        entries = [AssistantEntry(f"reply {i}\n\n" + "line\n\n" * 5) for i in range(20)]
        await app.conversation.add_many(entries)
        conversation = app.conversation
        at_end = lambda: conversation.scroll_y == conversation.max_scroll_y  # noqa: E731
        await wait_for(pilot, lambda: conversation.scroll_y > 0 and at_end())  # laid out, following
        bottom = conversation.scroll_y
        assert bottom > 0 and app.focused is app.prompt
        await pilot.press("pageup")
        await wait_for(pilot, lambda: conversation.scroll_y < bottom)
        up = conversation.scroll_y
        assert up < bottom and app.focused is app.prompt
        await app.conversation.add(AssistantEntry("something new below"))
        await wait_for(pilot, lambda: conversation.max_scroll_y > bottom)  # laid out below
        await frame_drawn(pilot)  # and all it asked drawn (a scroll too): nothing pulls the view down
        assert conversation.scroll_y == up  # reading back: new content does not pull the view down
        for _ in range(3):
            await pilot.press("pagedown")
        await wait_for(pilot, at_end)
        assert conversation.scroll_y == conversation.max_scroll_y  # at the end: following again


async def test_markup_in_the_models_words_is_shown_as_text() -> None:
    """Square brackets are everywhere in code and paths; none of them is markup here."""
    from shell.tui.widgets.tool_span import ToolSpan
    from shell.tui.widgets.user_message import UserMessage

    tricky = "x [/bold] y [link=http://x]z [b]w"
    turns = [
        AssistantMessage(
            (TextBlock(f"Reading {tricky}."), ToolCallBlock("c1", "read_note", {"path": tricky}))
        ),
        f"Done {tricky}.",
    ]
    app, _, _ = scripted_app(turns)
    async with app.run_test(size=(160, 40)) as pilot:
        await send(pilot, f"go {tricky}")
        await wait_for(pilot, lambda: not app.busy)
        # the span's title is redrawn a pass after the reply's end
        await wait_for(pilot, lambda: "done" in app.query_one(ToolSpan)._title.render().plain)
        [span] = app.query(ToolSpan)
        assert tricky in span._title.render().plain and "done" in span._title.render().plain
        assert tricky in app.query_one(UserMessage).text
        texts = [w.text for w in app.query(AssistantWidget)]
        assert f"Done {tricky}." in texts


async def test_a_message_whose_call_failed_comes_back_to_the_prompt_and_is_not_glued_to_the_next() -> None:
    """Finding B2: "are you there?" failed (connection refused) and stayed in the
    conversation, so "Say hi." went out as one user turn with it."""
    from shell.core.model import ModelError

    refused = ModelError("Could not connect to http://127.0.0.1:9/v1. Is the server running?", retryable=True)
    app, agent, model = scripted_app([refused, "Hi."])
    async with app.run_test(size=SIZE) as pilot:
        await send(pilot, "are you there?")
        await wait_for(pilot, lambda: not app.busy and "Your message is back in the prompt." in
                       [n.text for n in app.query(NoticeLine)])
        assert app.prompt.text == "are you there?" and agent.messages == []
        assert any("Could not connect" in n.text and "taken back" in n.text for n in app.query(NoticeLine))
        assert not app.query(UserMessage)  # its bubble went with it
        app.prompt.text = ""
        await send(pilot, "Say hi.")
        await wait_for(pilot, lambda: not app.busy and len(agent.messages) == 2)
        assert [m.text for m in model.requests[-1].messages] == ["Say hi."]


async def test_a_message_too_long_for_the_context_comes_back_to_the_prompt() -> None:
    """G11: it is not kept in the conversation (every later message would fail too)."""
    from shell.core.model import ModelError

    overflow = ModelError("llama says the conversation does not fit the model's context window.",
                          context_overflow=True)
    app, agent, model = scripted_app([overflow, "Fits now."])
    async with app.run_test(size=SIZE) as pilot:
        await send(pilot, "a long paste")
        await wait_for(pilot, lambda: not app.busy and "Your message is back in the prompt." in
                       [n.text for n in app.query(NoticeLine)])
        assert app.prompt.text == "a long paste" and agent.messages == []
        assert any("taken back out of the conversation" in n.text for n in app.query(NoticeLine))
        await pilot.press("enter")
        await wait_for(pilot, lambda: not app.busy and len(agent.messages) == 2)
        assert model.requests[-1].messages[-1].text == "a long paste"


async def test_a_message_given_back_goes_before_what_was_typed_meanwhile() -> None:
    import asyncio
    from collections.abc import AsyncIterator

    from shell.agent.loop import Agent
    from shell.core.model import ModelError
    from shell.tui.app import AgentShellApp

    gate = asyncio.Event()

    class Overflows:
        name = "overflows"

        async def stream(self, request: object) -> AsyncIterator[object]:
            await gate.wait()
            raise ModelError("llama says it does not fit the model's context window.", context_overflow=True)
            yield  # an async generator, as models are

    app = AgentShellApp(Agent(Overflows()), model_label="overflows")  # type: ignore[arg-type]
    async with app.run_test(size=SIZE) as pilot:
        await send(pilot, "a long paste")
        await wait_for(pilot, lambda: app.busy)
        await pilot.press(*"a draft")
        gate.set()
        await wait_for(pilot, lambda: not app.busy and app.prompt.text != "a draft")
        assert app.prompt.text == "a long paste\n\na draft"


async def test_a_message_a_policy_refused_comes_back_to_the_prompt_with_the_reason() -> None:
    """r17: PII's "block" keeps a card number out of the history on purpose (StopReply),
    but the message was gone from the prompt too: the user had to type it again."""
    from middleware.pii import PII

    app, agent, model = scripted_app(["Never."], middleware=[PII("credit_card", "block")])
    typed = "pay with 4111 1111 1111 1111 please"
    async with app.run_test(size=SIZE) as pilot:
        await send(pilot, typed)
        await wait_for(pilot, lambda: not app.busy and "Your message is back in the prompt." in
                       [n.text for n in app.query(NoticeLine)])
        assert app.prompt.text == typed  # to take the card number out and send again
        assert any("credit_card" in n.text and "blocked" in n.text for n in app.query(NoticeLine))
        assert agent.messages == [] and model.requests == []  # kept out, as the policy meant


async def test_a_message_a_middleware_failed_on_comes_back_and_is_not_glued_to_the_next() -> None:
    """Finding E1: "delete the logs" failed in a middleware's transform_system_prompt;
    switched off as the error advised, "no, just list them" went out as one user turn
    with it. Now the first comes back to the prompt and the next goes out alone."""
    from typing import Any

    from middleware import Middleware

    class FlakyPrompt(Middleware):
        async def transform_system_prompt(self, ctx: Any, prompt: str) -> str:
            raise RuntimeError("prompt source unavailable")

    app, agent, model = scripted_app(["Listed."], middleware=[FlakyPrompt()])
    async with app.run_test(size=SIZE) as pilot:
        await send(pilot, "delete the logs")
        await wait_for(pilot, lambda: not app.busy and "Your message is back in the prompt." in
                       [n.text for n in app.query(NoticeLine)])
        assert app.prompt.text == "delete the logs" and agent.messages == []
        assert any("FlakyPrompt failed" in n.text and "taken back" in n.text for n in app.query(NoticeLine))
        agent.middleware.set_enabled("FlakyPrompt", False)
        app.prompt.text = ""
        await send(pilot, "no, just list them")
        await wait_for(pilot, lambda: not app.busy and len(agent.messages) == 2)
        assert [m.text for m in model.requests[-1].messages] == ["no, just list them"]
