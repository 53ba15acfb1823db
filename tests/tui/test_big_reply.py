"""A reply of a block too long to read on screen (findings I6: a 3 MB paragraph took the
TUI 4.5 minutes, a 20 000-item list showed 35 items a second): the start of the block
is shown and a note says how much is not and where it is; the reply's text stays whole;
a long list is one widget; and once the model is done the status line says the reply
is being shown, not that the model is waited for."""

from __future__ import annotations

import re
from typing import Any

import pytest
from textual.widgets._markdown import MarkdownBullet

from shell.agent import Agent
from shell.providers.scripted import ScriptedModel
from shell.tui.app import AgentShellApp
from shell.tui.mdcap import BLOCK_CAP, CUT_NEAR, hidden_note
from shell.tui.mdsplit import Cutter, capped
from shell.tui.widgets.assistant_message import AssistantMessage
from shell.tui.widgets.status_line import StatusLine

from .helpers import SIZE, wait_for
from .test_long_blocks import documents

pytestmark = pytest.mark.anyio

NOTE = re.compile(r"\*… ([\d,]+) characters not shown; /export has it\*")


def _hidden(shown: str) -> list[int]:
    return [int(n.replace(",", "")) for n in NOTE.findall(shown)]


def test_a_paragraph_longer_than_the_cap_shows_its_start_and_says_how_much_is_not_shown() -> None:
    text = "Intro.\n\n" + "x" * 100_000 + "\n\nAfter.\n"
    shown = capped(text)
    assert shown.startswith("Intro.\n\n" + "x" * BLOCK_CAP + "x" * CUT_NEAR + "\n\n*…")
    assert _hidden(shown) == [100_000 - BLOCK_CAP - CUT_NEAR]  # (a line that long is cut past the cap)
    assert shown.endswith("After.\n")


def test_a_long_list_is_cut_between_items_and_a_short_block_is_not_cut() -> None:
    items = "".join(f"- item {n}\n" for n in range(20_000))
    shown = capped(items + "\nDone.\n")
    head = shown[: NOTE.search(shown).start()].rstrip("\n")  # type: ignore[union-attr]
    assert head.endswith(f"- item {head.count('- item') - 1}") and BLOCK_CAP <= len(head) <= BLOCK_CAP + 20
    assert _hidden(shown) == [len(items) - len(head) - 2]  # (not the line ends either side)
    short = "\n\n".join("y" * (BLOCK_CAP - 10) for _ in range(5))
    assert capped(short) == short


def test_a_fence_cut_for_display_is_closed_before_the_note_and_opened_again_after_it() -> None:
    code = "```python\n" + "x = 1\n" * 10_000 + "\nmore = 2\n```\n\nAfter.\n"
    shown = capped(code)
    note = NOTE.search(shown)
    assert note is not None
    assert shown[: note.start()].rstrip().endswith("x = 1\n```")
    assert shown[note.end() :].lstrip("\n").startswith("```python\nmore = 2\n```")


@pytest.mark.parametrize("size", [7, 600, 12_000, 70_000])
def test_streamed_in_frames_it_shows_what_the_whole_reply_shows_and_keeps_all_of_it(size: int) -> None:
    text = "Intro.\n\n" + "w " * 40_000 + "\n\n" + "".join(f"{n}. x\n" for n in range(9_000)) + "\nEnd.\n"
    cutter = Cutter()
    frames = [cutter.cut(text[at : at + size], 150, 600) for at in range(0, len(text), size)]
    docs = [doc for frame in frames for doc in frame]
    assert "".join(part for doc in docs for part in doc.raw) == text
    assert "".join(doc.source for doc in docs) == capped(text)


def _app(text: str, chunk: int = 65_536) -> AgentShellApp:
    return AgentShellApp(Agent(ScriptedModel([text], delay=0, chunk_size=chunk)), model_label="scripted")


async def _shown_whole(pilot: Any, app: AgentShellApp) -> AssistantMessage:
    app.start_reply("go")
    await wait_for(pilot, lambda: not app.busy and bool(app.query(AssistantMessage)), timeout=120)
    return app.query(AssistantMessage).last()


async def test_a_paragraph_of_megabytes_is_shown_cut_with_its_text_kept_whole() -> None:
    text = "z" * 1_000_000 + "\n\nThe end.\n"
    app = _app(text)
    async with app.run_test(size=SIZE) as pilot:
        widget = await _shown_whole(pilot, app)
        assert widget.text == text  # what the history, the session and /export have

        def settled() -> bool:  # (a chunk being swapped for its spacer is both for a moment)
            shown = "".join(documents(widget))
            return (_hidden(shown) == [1_000_000 - BLOCK_CAP - CUT_NEAR] and shown.endswith("The end.\n")
                    and len(shown) < BLOCK_CAP + CUT_NEAR + 200)

        await wait_for(pilot, settled, timeout=30)


async def test_a_list_of_thousands_of_items_is_one_widget_a_document_not_two_per_item() -> None:
    text = "".join(f"- file_{n}.txt\n" for n in range(8_000))
    app = _app(text)
    async with app.run_test(size=SIZE) as pilot:
        widget = await _shown_whole(pilot, app)
        assert widget.text == text
        await wait_for(pilot, lambda: len(_hidden("".join(documents(widget)))) == 1, timeout=30)
        shown = "".join(documents(widget))
        assert shown.endswith(hidden_note(_hidden(shown)[0]))
        assert not app.query(MarkdownBullet)  # no widget per item, in the live document either


async def test_the_status_says_the_reply_is_being_shown_once_the_model_is_done(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A reply that comes at once and takes the screen a while to draw: the status line
    says "showing the reply", not "waiting for the model" (which blamed the model)."""
    states: list[str] = []
    watch = StatusLine.watch_state

    def seen(self: StatusLine, state: str) -> None:
        states.append(state)
        watch(self, state)

    monkeypatch.setattr(StatusLine, "watch_state", seen)
    text = ("A paragraph of a few words that goes on. " * 8 + "\n\n") * 100  # 33 kB, short blocks
    app = _app(text, chunk=len(text))
    async with app.run_test(size=SIZE) as pilot:
        widget = await _shown_whole(pilot, app)
        assert widget.text == text
    assert "showing" in states
    assert states.index("showing") > states.index("streaming")
    assert states[-1] == "idle"
