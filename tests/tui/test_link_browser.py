"""A clicked web link goes to a browser without stopping the TUI (finding Y4): a
``$BROWSER`` program that takes its time leaves the screen live, a console browser is
never started inside the TUI, and when nothing opens the link the notice says so and
offers the address. A look-alike host asks first, though markdown-it hands it over
in punycode (finding X4)."""

from __future__ import annotations

import webbrowser
from pathlib import Path

import pytest
from textual.widgets import Markdown

from shell.tui.app import AgentShellApp
from shell.tui.widgets.chat_markdown import ChatMarkdown

from .helpers import SIZE, make_agent, send, wait_for

pytestmark = pytest.mark.anyio

URL = "https://docs.example/x"


@pytest.fixture
def browsers(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """A fresh :mod:`webbrowser` registry that sees only ``tmp_path/bin`` and no desktop."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    monkeypatch.setattr(webbrowser, "_tryorder", None)
    monkeypatch.setattr(webbrowser, "_browsers", {})
    monkeypatch.setenv("PATH", f"{bin_dir}:/usr/bin:/bin")
    monkeypatch.setenv("TERM", "xterm-256color")
    for name in ("BROWSER", "DISPLAY", "WAYLAND_DISPLAY", "TMUX"):
        monkeypatch.delenv(name, raising=False)
    return bin_dir


def _script(path: Path, body: str) -> Path:
    path.write_text("#!/bin/sh\n" + body)
    path.chmod(0o755)
    return path


async def _click(app: AgentShellApp, pilot: object, href: str = URL) -> None:
    await send(pilot, "docs?")
    await wait_for(pilot, lambda: not app.busy and bool(app.query(ChatMarkdown)))
    document = app.query(ChatMarkdown).last()
    document.post_message(Markdown.LinkClicked(document, href))


def _notices(app: AgentShellApp) -> list[str]:
    return [str(n.message) for n in app._notifications]


async def test_a_browser_command_that_takes_its_time_leaves_the_tui_live(
    browsers: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """The browser waits for a file only the TUI's event loop writes: with the browser
    run on the loop, the loop could not write it until the browser gave up."""
    go, log = tmp_path / "go", tmp_path / "browser.log"
    browser = _script(
        tmp_path / "slow-browser",
        f'touch "{tmp_path}/started"\n'
        f'i=0; while [ ! -e "{go}" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i+1)); done\n'
        f'if [ -e "{go}" ]; then echo "live $1" > "{log}"; else echo "frozen $1" > "{log}"; fi\n',
    )
    monkeypatch.setenv("BROWSER", str(browser))
    agent, _ = make_agent([f"[the docs]({URL})"])
    app = AgentShellApp(agent, model_label="scripted")
    async with app.run_test(size=SIZE) as pilot:
        await _click(app, pilot)
        await wait_for(pilot, lambda: (tmp_path / "started").exists())
        go.touch()  # the loop runs while the browser does
        await wait_for(pilot, log.exists)
        await pilot.pause(0.2)
        said = _notices(app)
    assert log.read_text().split() == ["live", URL]
    assert not any("Nothing opened" in notice for notice in said)


async def test_with_no_browser_the_notice_says_so_and_offers_the_address(
    browsers: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    agent, _ = make_agent([f"[the docs]({URL})"])
    app = AgentShellApp(agent, model_label="scripted")
    copied: list[str] = []
    monkeypatch.setattr(app.flow, "copy", lambda text: copied.append(text) or _ok())
    async with app.run_test(size=SIZE) as pilot:
        await _click(app, pilot)
        await wait_for(pilot, lambda: any("Nothing opened" in notice for notice in _notices(app)))
        said = _notices(app)
    notice = next(notice for notice in said if "Nothing opened" in notice)
    assert "no browser was found" in notice
    assert f"copied to the clipboard: {URL}" in notice
    assert copied == [URL]


async def test_a_console_browser_is_never_started_inside_the_tui(
    browsers: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """With no desktop Python's webbrowser picks lynx or w3m, which would draw over the
    TUI and read its keys."""
    ran = tmp_path / "w3m-ran"
    _script(browsers / "w3m", f'echo "$@" > "{ran}"\n')
    agent, _ = make_agent([f"[the docs]({URL})"])
    app = AgentShellApp(agent, model_label="scripted")
    monkeypatch.setattr(app.flow, "copy", lambda text: _ok())
    async with app.run_test(size=SIZE) as pilot:
        await _click(app, pilot)
        await wait_for(pilot, lambda: any("Nothing opened" in notice for notice in _notices(app)), timeout=15)
        said = _notices(app)
    assert not ran.exists()
    assert any("console browser was found (w3m)" in notice and URL in notice for notice in said)


async def test_a_look_alike_host_in_punycode_asks_before_it_opens(monkeypatch: pytest.MonkeyPatch) -> None:
    """The href a Markdown link hands over is already ``xn--pple-43d.com``."""
    monkeypatch.setattr("shell.tui.screens.open_link.SETTLE_S", 0.01)
    opened: list[str] = []
    monkeypatch.setattr("shell.tui.linkopen.open_in_browser", lambda url: opened.append(url), raising=False)
    agent, _ = make_agent(["[apple](https://\u0430pple.com/login)"])
    app = AgentShellApp(agent, model_label="scripted")
    async with app.run_test(size=SIZE) as pilot:
        await _click(app, pilot, "https://xn--pple-43d.com/login")
        await wait_for(pilot, lambda: type(app.screen).__name__ == "OpenLinkScreen")
        await pilot.pause(0.1)
        reasons = str(app.screen.query_one("#reasons").render())
        await pilot.press("escape")
        await pilot.pause()
    assert opened == []
    assert "\u0430pple.com" in reasons and "xn--pple-43d.com" in reasons


def _ok() -> object:
    from shell.frontend.clipboard import Copied

    return Copied(True, "the terminal (OSC 52)")
