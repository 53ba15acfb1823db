"""What a cancelled reply ends with: a short note of how much was not shown, drawn as
a note even when the reply was cut inside a code block (it showed as a literal
``*…*`` line of code), and never the flood itself."""

from __future__ import annotations

import pytest

from shell.core.messages import AssistantMessage
from shell.tui.app import AgentShellApp
from shell.tui.mdsplit import cancel_note, closing_fence

from .helpers import SIZE, cancelled_under_way, drawn_text, flood_app, notices, wait_for
from .test_theme_contrast import _text, screen_lines

pytestmark = pytest.mark.anyio


def test_an_open_fence_is_closed_with_its_own_marker() -> None:
    assert closing_fence("Here:\n\n```python\nx = 1\n") == "\n```\n"
    assert closing_fence("~~~~\ncode, no newline yet") == "\n~~~~\n"
    assert closing_fence("text\n```py") == "\n```\n"  # an opening line not ended yet opens it
    assert closing_fence("```\ncode\n```\n\nafter") == ""
    assert closing_fence("plain *text*") == ""


def test_the_note_says_how_much_in_units_a_reader_takes_in() -> None:
    assert "(1,234 characters not shown, cancelled;" in cancel_note(1234)
    assert "(57 kB not shown, cancelled;" in cancel_note(56_789)
    assert "(27.1 MB not shown, cancelled;" in cancel_note(27_148_658)
    assert "not kept either: the model reads what is shown" in cancel_note(5)
    assert "the model reads the first 20,000 characters" in cancel_note(5, 25_000)  # a flood drawn
    assert "(cancelled: the model reads the first 20,000" in cancel_note(0, 25_000)


def screen_text(app: AgentShellApp) -> str:
    return "\n".join(_text(line) for line in screen_lines(app))


async def test_a_reply_cancelled_inside_a_code_block_ends_with_the_note_not_with_code() -> None:
    code = "Here it is:\n\n```python\n" + "".join(f"value_{i} = {i} * 2\n" for i in range(60_000))
    app, _ = flood_app(code)
    async with app.run_test(size=SIZE) as pilot:
        in_the_code = lambda w: w.backlog > 0 and "value_" in drawn_text(w)  # noqa: E731
        widget = await cancelled_under_way(app, pilot, in_the_code)
        note = cancel_note(widget.dropped)
        assert widget.dropped > 0 and widget.text.endswith("\n```\n" + note)
        said = note.strip().strip("*")  # drawn in italics: the asterisks are not on screen
        await wait_for(pilot, lambda: said.split(";")[0] in screen_text(app))  # a frame or two after the end
        shown = screen_text(app)
        assert said.split(";")[0] in shown and "*(" not in shown
        assert len(widget.text) < len(code) // 2  # what was drawn, not what was received


async def test_the_history_keeps_what_was_drawn_not_the_backlog_esc_dropped() -> None:
    """Under a reply faster than the screen, Esc drops what was received and not drawn:
    the history (the model's next request, the saved session) ends where the screen
    does, not tens of kB later."""
    text = "Start.\n\n" + "".join(f"Paragraph {i} says something.\n\n" for i in range(20_000))
    app, agent = flood_app(text)
    async with app.run_test(size=SIZE) as pilot:
        behind = lambda w: w.backlog > 1000 and "Paragraph 5" in drawn_text(w)  # noqa: E731
        widget = await cancelled_under_way(app, pilot, behind)
        kept = agent.messages[-1]
        assert isinstance(kept, AssistantMessage) and kept.stop_reason == "cancelled", (kept, notices(app))
        assert widget.dropped > 1000
        assert widget.text == kept.text + cancel_note(widget.dropped, widget.received - widget.dropped)
        assert text.startswith(kept.text) and kept.text.startswith("Start.")


def test_a_code_span_left_open_is_closed_with_an_ellipsis() -> None:
    from shell.tui.mdsplit import closing_marks

    assert closing_marks("Run `ls -l") == "…`"
    assert closing_marks("Run `ls` then ``a ` b") == "…``"  # the run that opened it
    assert closing_marks("Run `") == "…`"  # not "``", which would show as two backticks
    assert closing_marks("Run `ls` and `pwd` now") == ""
    assert closing_marks("An old `one\n\nA new paragraph") == ""  # a span ends with its paragraph
    assert closing_marks("Escaped \\` is no span") == ""
    assert closing_marks("Here:\n\n```python\nx = `1") == "\n```\n"  # in a fence: the fence closes


async def test_a_reply_cancelled_inside_a_code_span_ends_with_it_closed_not_a_lone_backtick() -> None:
    """Esc while a reply streams ``Run `abc abc…``: the drawn text ended inside the code
    span, whose opening backtick then showed alone, as a literal."""
    from shell.agent.loop import Agent
    from shell.providers.scripted import ScriptedModel
    from shell.tui.mdsplit import closing_marks

    text = "Intro.\n\nRun `" + "abc " * 3000 + "` end."
    app = AgentShellApp(Agent(ScriptedModel([text], delay=0.05, chunk_size=16)), model_label="scripted")
    async with app.run_test(size=SIZE) as pilot:
        drawn_in_the_span = lambda w: w.backlog == 0 and "abc abc abc" in w.text  # noqa: E731 (nothing pending)
        widget = await cancelled_under_way(app, pilot, drawn_in_the_span)
        before, _, _note = widget.text.partition("\n\n*(")
        assert before.endswith("…`") and closing_marks(before) == "", before[-80:]
        await wait_for(pilot, lambda: "abc…" in screen_text(app))
        assert "abc`" not in screen_text(app)  # drawn as code, not a lone backtick
