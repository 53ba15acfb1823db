"""A reply that is one endless block (a 2,000-line paragraph with no blank line, a
2,000-line code fence, a line with no newline) sent as one delta: it is cut into
documents of bounded size anyway (each append then re-reads a bounded document, so
the cost stays linear in the reply), the fence reads on with its info string, the
text is kept whole, and Esc drops what was not drawn yet at once."""

from __future__ import annotations

from typing import Any

import pytest

from shell.agent import Agent
from shell.providers.scripted import ScriptedModel
from shell.tui.app import AgentShellApp
from shell.tui.mdsplit import HARD_LIMIT, cancel_note, split_markdown
from shell.tui.widgets.assistant_message import PIECE_LIMIT
from shell.tui.widgets.assistant_message import AssistantMessage as AssistantWidget
from shell.tui.widgets.chat_markdown import ChatMarkdown
from shell.tui.widgets.parked import Parked
from shell.tui.widgets.rendered_chunk import RenderedChunk

from .helpers import SIZE, wait_for

pytestmark = pytest.mark.anyio

LINE = "line of text with some words\n"
BOUND = 2 * HARD_LIMIT + PIECE_LIMIT + len(LINE)


def documents(widget: AssistantWidget) -> list[str]:
    """The Markdown sources of the reply's documents, live, rendered or parked."""
    out: list[str] = []
    for child in widget.children:
        if isinstance(child, (ChatMarkdown, RenderedChunk)):
            out.append(child.source)
        elif isinstance(child, Parked):
            out.extend(source for source, _ in child.segments)
    return out


def one_delta_app(text: str) -> AgentShellApp:
    agent = Agent(ScriptedModel([text], delay=0, chunk_size=len(text)))
    return AgentShellApp(agent, model_label="scripted")


def test_a_paragraph_with_no_blank_line_is_cut_between_its_lines() -> None:
    parts = split_markdown(LINE * 2000, 600)
    assert len(parts) > 10 and all(len(p) <= BOUND for p in parts)
    assert all(p.endswith("\n") and p.startswith("line") for p in parts)
    assert "".join(parts) == LINE * 2000


def test_a_fence_that_never_ends_is_closed_and_opened_again_with_its_info_string() -> None:
    parts = split_markdown("Intro.\n\n```python\n" + "x = 1\n" * 2000 + "```\n", 600)
    assert len(parts) > 3
    fenced = [p for p in parts if "x = 1" in p]
    assert all(p.split("\n")[0].endswith("```python") for p in fenced[1:])
    assert all(p.rstrip("\n").endswith("```") for p in fenced)
    assert sum(p.count("x = 1") for p in parts) == 2000


async def shown_whole(app: AgentShellApp, text: str, pilot: Any) -> AssistantWidget:
    app.start_reply("go")
    await wait_for(pilot, lambda: not app.busy and bool(app.query(AssistantWidget)), timeout=60)
    widget = app.query(AssistantWidget).last()
    assert widget.text == text
    return widget


@pytest.mark.parametrize("text", [  # each under the cap of a block shown (mdcap)
    LINE * 1000,  # one paragraph, no blank line
    "```python\n" + "x = 1  # a line of code\n" * 1000 + "```\n",  # one fence
    "word " * 5000,  # one line, no newline at all
], ids=["paragraph", "fence", "one-line"])
async def test_an_endless_block_in_one_delta_is_shown_in_bounded_documents(text: str) -> None:
    app = one_delta_app(text)
    async with app.run_test(size=SIZE) as pilot:
        widget = await shown_whole(app, text, pilot)
        docs = documents(widget)
        assert len(docs) > 5 and max(map(len, docs)) <= BOUND
        if text.startswith("```"):  # every document of the fence is a fence of its own
            assert all(d.startswith("```python\n") and d.rstrip().endswith("```") for d in docs)


async def test_esc_in_one_giant_paragraph_drops_the_backlog_at_once() -> None:
    # 1.2 MB in one delta, in paragraphs of 14 kB (a longer one is cut for display at
    # 30 kB, and its rest goes by in a few frames: there would be nothing to cancel)
    text = (LINE * 500 + "\n") * 80
    app = one_delta_app(text)
    async with app.run_test(size=SIZE) as pilot:
        app.start_reply("go")

        def streaming() -> bool:
            widgets = app.query(AssistantWidget)
            return bool(widgets) and 0 < widgets.last().backlog < len(text)

        await wait_for(pilot, streaming, timeout=30)
        widget = app.query(AssistantWidget).last()
        renderer = app.renderer
        assert renderer is not None
        seen: dict[str, int] = {}
        cancel = renderer.cancel

        def at_cancel() -> None:
            seen.update(written=sum(map(len, documents(widget))))
            cancel()

        renderer.cancel = at_cancel  # type: ignore[method-assign]
        await pilot.press("escape")
        await wait_for(pilot, lambda: not app.busy, timeout=10)
        note = cancel_note(widget.dropped).strip()
        assert widget.dropped > len(text) // 2
        assert widget.text.endswith(note + "\n")
        # after Esc, at most the pieces already on their way (and the note): not the rest of a
        # frame, which is a twelfth of the 1.2 MB backlog (under load the count taken at the
        # cancel can lag one piece behind what is queued: it went 5 characters over 2 pieces)
        written = sum(map(len, documents(widget)))
        assert written - seen["written"] <= 3 * PIECE_LIMIT + len(note) + 16
        assert app.status.state == "idle"
