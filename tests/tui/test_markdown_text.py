"""Markdown from outside, drawn honestly in the TUI (issue 14), through the pilot:
text in angle brackets shows as written (it was taken for HTML and dropped), code
spans and fences still render, and a link shows where it goes, also when clicked."""

from __future__ import annotations

import pytest
from textual.widget import Widget
from textual.widgets import Markdown

from shell.commands import CommandResult
from shell.tui.app import AgentShellApp
from shell.tui.widgets.chat_markdown import ChatMarkdown

from .helpers import SIZE, make_agent, send, wait_for

pytestmark = pytest.mark.anyio

MARKUP = (
    "List<String> names and <b>bold</b> and a <details> tag, in `<T>` too.\n\n"
    "<div>a block</div>\n\n"
    "```python\nprint('<module>')\n```\n\n"
    "Docs: [https://docs.python.org](https://evil.example/x), "
    "[https://ok.example](https://ok.example), <https://auto.example>\n"
)


def drawn(app: AgentShellApp) -> str:
    lines = []
    for widget in app.screen.query(Widget):
        lines += [widget.render_line(y).text for y in range(widget.size.height)]
    return "\n".join(line.rstrip() for line in lines)


async def test_angle_brackets_show_as_written_and_links_show_their_targets() -> None:
    agent, _ = make_agent([MARKUP])
    app = AgentShellApp(agent, model_label="scripted")
    async with app.run_test(size=(140, 40)) as pilot:
        await send(pilot, "show me")
        await wait_for(pilot, lambda: not app.busy and "auto.example" in drawn(app))
        screen = drawn(app)
    assert "List<String> names and <b>bold</b> and a <details> tag, in <T> too." in screen
    assert "<div>a block</div>" in screen
    assert "`<T>`" not in screen and "```" not in screen  # code spans and fences still render
    assert "print('<module>')" in screen
    assert "https://docs.python.org (https://evil.example/x)" in screen
    assert "https://ok.example," in screen and "(https://ok.example)" not in screen
    assert "(https://auto.example)" not in screen


async def test_a_traceback_in_a_command_result_keeps_its_module_line() -> None:
    """An MCP server's traceback in /tools lost ``<module>``: command results are
    Markdown too."""
    agent, _ = make_agent([])
    app = AgentShellApp(agent, model_label="scripted")
    trace = 'MCP server "calc" failed: File "/srv/calc.py", line 3, in <module> raise SystemExit'
    async with app.run_test(size=SIZE) as pilot:
        await app.screen_stack[0].show_result("/tools", CommandResult(trace))  # type: ignore[attr-defined]
        await wait_for(pilot, lambda: "raise SystemExit" in drawn(app))
        assert 'line 3, in <module> raise SystemExit' in drawn(app)


async def test_clicking_a_link_says_which_address_it_opens(monkeypatch: pytest.MonkeyPatch) -> None:
    agent, _ = make_agent(["[https://docs.python.org](https://evil.example/x)"])
    app = AgentShellApp(agent, model_label="scripted")
    opened: list[str] = []
    monkeypatch.setattr("shell.tui.linkopen.open_in_browser", lambda url: opened.append(url))
    async with app.run_test(size=SIZE) as pilot:
        await send(pilot, "docs?")
        await wait_for(pilot, lambda: not app.busy and bool(app.query(ChatMarkdown)))
        document = app.query(ChatMarkdown).last()
        document.post_message(Markdown.LinkClicked(document, "https://evil.example/x"))
        await wait_for(pilot, lambda: bool(opened))
        await pilot.pause()
        said = [str(n.message) for n in app._notifications]
    assert opened == ["https://evil.example/x"]
    assert "Opening the link's target: https://evil.example/x" in said


async def test_the_notice_is_drawn_before_a_web_link_opens(monkeypatch: pytest.MonkeyPatch) -> None:
    """The notice used to come with the browser: by then it was too late to stop it."""
    agent, _ = make_agent(["[the docs](https://docs.example/x)"])
    app = AgentShellApp(agent, model_label="scripted")
    said_before: list[list[str]] = []
    monkeypatch.setattr(
        "shell.tui.linkopen.open_in_browser",
        lambda url: said_before.append([str(n.message) for n in app._notifications]),
    )
    async with app.run_test(size=SIZE) as pilot:
        await send(pilot, "docs?")
        await wait_for(pilot, lambda: not app.busy and bool(app.query(ChatMarkdown)))
        document = app.query(ChatMarkdown).last()
        document.post_message(Markdown.LinkClicked(document, "https://docs.example/x"))
        await wait_for(pilot, lambda: bool(said_before))
    assert "Opening the link's target: https://docs.example/x" in said_before[0]


async def test_a_link_to_another_app_asks_first_and_shows_its_target(monkeypatch: pytest.MonkeyPatch) -> None:
    """findings 15: a click on a reply's ``vscode://`` link cloned a repository unasked."""
    monkeypatch.setattr("shell.tui.screens.open_link.SETTLE_S", 0.01)
    href = "vscode://vscode.git/clone?url=https://evil.example/r.git&x=\r\u202e"
    agent, _ = make_agent(["[the docs](https://docs.example/x)"])
    app = AgentShellApp(agent, model_label="scripted")
    opened: list[str] = []
    monkeypatch.setattr("shell.tui.linkopen.open_in_browser", lambda url: opened.append(url))
    async with app.run_test(size=SIZE) as pilot:
        await send(pilot, "docs?")
        await wait_for(pilot, lambda: not app.busy and bool(app.query(ChatMarkdown)))
        document = app.query(ChatMarkdown).last()
        document.post_message(Markdown.LinkClicked(document, href))
        await wait_for(pilot, lambda: type(app.screen).__name__ == "OpenLinkScreen")
        await pilot.pause(0.1)
        screen = drawn(app)
        assert opened == []
        assert "vscode://vscode.git/clone?url=https://evil.example/r.git&x=␍\\u202e" in screen
        assert 'Its scheme is "vscode:"' in screen
        await pilot.press("enter")  # the focus is on "Don't open"
        await wait_for(pilot, lambda: type(app.screen).__name__ != "OpenLinkScreen")
        await pilot.pause()
        assert opened == []
        document.post_message(Markdown.LinkClicked(document, href))
        await wait_for(pilot, lambda: type(app.screen).__name__ == "OpenLinkScreen")
        await pilot.pause(0.1)
        await pilot.click("#open")
        await wait_for(pilot, lambda: bool(opened))
    assert opened == [href]
