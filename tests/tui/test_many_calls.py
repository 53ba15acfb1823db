"""A turn of many tool calls: spans far above the view leave the tree while their
calls are still live (they are rebuilt from the call, showing what it is now);
a collapsed span builds its arguments and result only when first opened."""

from __future__ import annotations

import pytest
from textual.widgets import Static

from shell.agent.loop import Agent
from shell.core.messages import AssistantMessage, ToolCallBlock
from shell.providers.scripted import ScriptedModel
from shell.tui import grouping
from shell.tui.app import AgentShellApp
from shell.tui.widgets import conversation as conv
from shell.tui.widgets.tool_span import ToolSpan

from .helpers import SIZE, read_note, send, wait_for

pytestmark = pytest.mark.anyio


@pytest.fixture
def no_group_rows(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every call a span (these tests are about the window, not the group row that
    finished calls of one tool fold into: see test_call_groups)."""
    monkeypatch.setattr(grouping, "GROUP_MIN", 10**9)


def _agent(calls: int) -> Agent:
    blocks = tuple(ToolCallBlock(f"c{i}", "read_note", {"path": f"n{i}.txt"}) for i in range(calls))
    model = ScriptedModel([AssistantMessage(blocks), "Read them all."])
    return Agent(model, tools=[read_note], tool_execution="sequential")


async def test_a_turn_of_many_calls_keeps_few_spans_mounted_and_shows_them_all_when_scrolled_back(
    monkeypatch: pytest.MonkeyPatch, no_group_rows: None,
) -> None:
    monkeypatch.setattr(conv, "WINDOW", 10)
    monkeypatch.setattr(conv, "SLACK", 2)
    app = AgentShellApp(_agent(60), model_label="scripted")
    async with app.run_test(size=SIZE) as pilot:
        conversation = app.conversation
        most = 0

        def done() -> bool:
            nonlocal most
            most = max(most, len(app.query(ToolSpan)))
            return not app.busy and len(conversation.entries) > 60

        await send(pilot, "read")
        await wait_for(pilot, done, timeout=60)
        assert most <= 12  # never the 60 spans at once, although all were live together
        for _ in range(40):  # back to the top: every call is there, once, in order, as it ended
            if conversation.first_mounted == 0:
                break
            await conversation.load_earlier()
        await pilot.pause()
        spans = list(app.query(ToolSpan))
        assert [s.state.call_id for s in spans] == [f"c{i}" for i in range(60)]
        assert all(s.state.status == "done" and "✓" in str(s.title) for s in spans)
        assert all(s.status_shown == "done" for s in spans)  # rebuilt ones in its colours too


async def test_a_collapsed_span_builds_its_body_when_first_opened() -> None:
    app = AgentShellApp(_agent(1), model_label="scripted")
    async with app.run_test(size=SIZE) as pilot:
        await send(pilot, "read")
        await wait_for(pilot, lambda: not app.busy and bool(app.query(ToolSpan)), timeout=20)
        span = app.query_one(ToolSpan)
        assert not span.query(Static).filter(".span-result")  # collapsed: no body yet
        span.collapsed = False
        await pilot.pause()
        (result,) = span.query(Static).filter(".span-result")
        assert "contents of n0.txt" in str(result.content)
        assert "n0.txt" in str(span.query(Static).filter(".span-args").first().content)


async def test_spans_that_leave_the_window_are_reused_for_newer_calls_each_showing_its_own(
    monkeypatch: pytest.MonkeyPatch, no_group_rows: None,
) -> None:
    """A burst of calls rebinds the window's spans instead of building one per call;
    what is mounted is the newest calls, in order, each span saying its own call."""
    monkeypatch.setattr(conv, "WINDOW", 10)
    monkeypatch.setattr(conv, "SLACK", 2)
    built: list[ToolSpan] = []
    original = ToolSpan.__init__

    def counted(self: ToolSpan, *args: object, **kwargs: object) -> None:
        built.append(self)
        original(self, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(ToolSpan, "__init__", counted)
    blocks = tuple(ToolCallBlock(f"c{i}", "read_note", {"path": f"n{i}.txt"}) for i in range(200))
    agent = Agent(ScriptedModel([AssistantMessage(blocks), "Read them all."]), tools=[read_note])
    app = AgentShellApp(agent, model_label="scripted")
    async with app.run_test(size=SIZE) as pilot:
        await send(pilot, "read")
        await wait_for(pilot, lambda: not app.busy and len(app.conversation.entries) > 200, timeout=60)
        await pilot.pause()
        assert len(built) < 60  # not 200: about a window's worth, then reused
        spans = list(app.query(ToolSpan))
        ids = [s.state.call_id for s in spans]
        assert ids == [f"c{i}" for i in range(200 - len(ids), 200)] and len(ids) >= 5
        for span in spans:
            n = span.state.call_id[1:]
            assert f"n{n}.txt" in span._title.render().plain and "✓" in str(span.title)
            assert span.status_shown == "done"
        span = spans[-1]
        span.collapsed = False  # a reused span opens on its own call's arguments and result
        await pilot.pause()
        (result,) = span.query(Static).filter(".span-result")
        assert "contents of n199.txt" in str(result.content)


async def test_esc_in_a_long_turn_ends_the_reply_and_every_waiting_call_reads_cancelled() -> None:
    """With thousands of calls waiting, restyling their spans held the reply's end for
    seconds: it ends at once, and the spans follow a slice at a time."""
    from shell.agent import tool

    @tool(read_only=True)
    async def slow_note(path: str) -> str:
        """Read a note slowly.

        Args:
            path: which note
        """
        import anyio

        await anyio.sleep(0.05)
        return f"contents of {path}"

    blocks = tuple(ToolCallBlock(f"c{i}", "slow_note", {"path": f"n{i}.txt"}) for i in range(80))
    agent = Agent(ScriptedModel([AssistantMessage(blocks), "never"]), tools=[slow_note],
                  tool_execution="sequential")
    app = AgentShellApp(agent, model_label="scripted")
    async with app.run_test(size=SIZE) as pilot:
        await send(pilot, "read")
        await wait_for(pilot, lambda: any(s.state.status == "done" for s in app.query(ToolSpan)), timeout=30)
        await pilot.press("escape")
        await wait_for(pilot, lambda: not app.busy, timeout=30)

        def settled() -> bool:
            spans = list(app.query(ToolSpan))
            return bool(spans) and all(s.state.status in ("done", "cancelled") for s in spans) and all(
                s.status_shown == s.state.status for s in spans
            )

        await wait_for(pilot, settled, timeout=30)
        statuses = [s.state.status for s in app.query(ToolSpan)]
        assert "cancelled" in statuses and statuses[-1] == "cancelled"


async def test_a_text_before_many_calls_leaves_the_window_like_them_and_is_shown_whole_when_scrolled_back(
    monkeypatch: pytest.MonkeyPatch, no_group_rows: None,
) -> None:
    """A model's text (and thinking) before its calls stays live until the last call
    has streamed: it leaves the window all the same, so the spans after it do not
    all stay mounted (finding F11: 500 calls took 260 s), and what it said, with
    what came after the calls, is all there, once, when scrolled back to."""
    from shell.core.messages import TextBlock, ThinkingBlock
    from shell.tui.widgets.assistant_message import AssistantMessage as Text
    from shell.tui.widgets.thinking import ThinkingBlock as Thinking

    monkeypatch.setattr(conv, "WINDOW", 10)
    monkeypatch.setattr(conv, "SLACK", 2)
    mounted: list[int] = []
    add_batch = conv.Conversation.add_batch

    async def counting(self: conv.Conversation, entries: list[object]) -> None:
        await add_batch(self, entries)  # type: ignore[arg-type]
        mounted.append(len(self.query(ToolSpan)))

    monkeypatch.setattr(conv.Conversation, "add_batch", counting)
    calls = tuple(ToolCallBlock(f"c{i}", "read_note", {"path": f"n{i}.txt"}) for i in range(60))
    turn = AssistantMessage((ThinkingBlock("Which notes first?"), TextBlock("Reading the notes."), *calls))
    model = ScriptedModel([turn, "Read them all."], delay=0.002)
    app = AgentShellApp(Agent(model, tools=[read_note]), model_label="scripted")
    async with app.run_test(size=SIZE) as pilot:
        conversation = app.conversation
        await send(pilot, "read")
        await wait_for(pilot, lambda: not app.busy and len(conversation.entries) > 60, timeout=60)
        assert mounted and max(mounted) <= 12  # not the 60 spans
        for _ in range(40):
            if conversation.first_mounted == 0:
                break
            await conversation.load_earlier()
        await pilot.pause()
        texts = [t.text for t in app.query(Text)]
        assert texts == ["Reading the notes.", "Read them all."]
        (thought,) = app.query(Thinking)
        assert thought.text == "Which notes first?" and "Thought (3 words)" in str(thought.title)
        assert [s.state.call_id for s in app.query(ToolSpan)] == [f"c{i}" for i in range(60)]
