"""A check after a sandboxed command that ends after the command's result was given
(Esc, or past its time) is shown when it ends: a warning in the conversation, not
only with the next command's result, which the user would see only by opening it."""

from __future__ import annotations

import threading

import pytest

from shell.tools import after_check
from shell.tui.widgets.notice_line import NoticeLine

from .helpers import SIZE, scripted_app, send, wait_for

pytestmark = pytest.mark.anyio


class _Box:
    """Stands for the sandbox the late check ran in (its notes are kept per sandbox)."""

    def __init__(self) -> None:
        self.unmarked: list[str] = []  # a crashed session's skip-worktree marks (none here)


FOUND = ["[agent-shell: the check after an earlier command (it was cancelled before the check ended) "
         "finished "
         "after that command's result was given: it found what follows.]",
         "[agent-shell: this command created files that run later as you: sub/.envrc: moved out of the "
         "workspace\x1b]0;pwned\x07.]"]


async def test_a_late_checks_findings_are_shown_when_it_ends_once() -> None:
    app, _agent, _ = scripted_app(["Hello."])
    async with app.run_test(size=SIZE) as pilot:
        await send(pilot, "hi")
        await wait_for(pilot, lambda: not app.busy and len(app.main.runtime.agent.messages) == 2)
        after_check.finish(0)  # what earlier tests left
        box = _Box()
        thread = threading.Thread(target=after_check._leave, args=(box, FOUND[0], FOUND[1:]))
        thread.start()  # from the check's own thread, as it ends
        thread.join(30)
        assert len(after_check.take_late_notes(box)) == 2  # the model still reads it with the next result

        def shown() -> list[str]:
            return [line.text for line in app.query(NoticeLine) if "sub/.envrc" in line.text]

        await wait_for(pilot, lambda: len(shown()) == 1)
        text = shown()[0]
        assert "the check after an earlier command" in text and "[agent-shell" not in text
        assert "\x1b" not in text  # the path is sanitised like every notice
        assert after_check.finish(0) == []  # said: not printed again at exit
        await pilot.pause()
        assert len(shown()) == 1


async def test_a_late_check_that_ends_while_the_app_quits_is_printed_at_exit() -> None:
    app, _agent, _ = scripted_app(["Hello."])
    after_check.finish(0)  # what earlier tests left
    box = _Box()
    async with app.run_test(size=SIZE) as pilot:
        await send(pilot, "hi")
        await wait_for(pilot, lambda: not app.busy and len(app.main.runtime.agent.messages) == 2)
        app.exit(0)  # the user quits; the check ends before the app has closed
        thread = threading.Thread(target=after_check._leave, args=(box, FOUND[0], FOUND[1:]))
        thread.start()
        thread.join(30)
    printed = after_check.finish(0)  # what shell.cli.finish_checks prints on stderr once the TUI is gone
    assert any("sub/.envrc" in note for note in printed), printed
    assert after_check.finish(0) == []  # once
