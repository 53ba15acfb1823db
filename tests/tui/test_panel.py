"""Pilot tests of the middleware panel, middleware errors, slash commands and themes."""

from __future__ import annotations

import json
import os
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from rich.style import Style
from textual.widgets import Button, Static

from middleware.base import Middleware
from middleware.context import HookContext
from shell.tui.app import AgentShellApp
from shell.tui.widgets.middleware_panel import MiddlewarePanel, MiddlewareRow
from shell.tui.widgets.notice_line import NoticeLine

from .helpers import SIZE, Shout, frame_drawn, make_agent, send, wait_for

pytestmark = pytest.mark.anyio


class Broken(Middleware):
    """Fails on every model call."""

    async def on_model_call(self, ctx: HookContext, request: Any, next: Any) -> AsyncIterator[Any]:
        raise RuntimeError("broken on purpose")
        yield  # pragma: no cover


def _row(app: AgentShellApp, name: str) -> MiddlewareRow:
    return next(r for r in app.query(MiddlewareRow) if r.mw_name == name)


async def test_switch_changes_what_the_next_model_request_sees() -> None:
    agent, model = make_agent(["one", "two"], middleware=[Shout()])
    app = AgentShellApp(agent, model_label="scripted")
    async with app.run_test(size=SIZE) as pilot:
        await send(pilot, "first")
        await wait_for(pilot, lambda: not app.busy and len(model.requests) == 1)
        assert model.requests[0].system_prompt == "BE BRIEF SHOUTED"
        await pilot.press("f2")
        panel = app.query_one(MiddlewarePanel)
        assert panel.shown
        await wait_for(pilot, lambda: panel.loaded)
        await pilot.pause()
        row = _row(app, "Shout")
        assert "Upper-cases the system prompt" in row.description
        await pilot.click(row)
        await pilot.pause()
        assert not agent.middleware.is_enabled("Shout")
        await pilot.click("#prompt")
        await send(pilot, "second")
        await wait_for(pilot, lambda: not app.busy and len(model.requests) == 2)
        assert model.requests[1].system_prompt == "be brief"


async def test_panel_shows_live_stats_and_hides_again() -> None:
    agent, _ = make_agent(["one"], middleware=[Shout()])
    app = AgentShellApp(agent, model_label="scripted")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("f2")
        await send(pilot, "go")
        await wait_for(pilot, lambda: not app.busy)
        await wait_for(pilot, lambda: "1 call ·" in _row(app, "Shout").stats)  # the panel's next stats tick
        stats = _row(app, "Shout").stats
        assert "1 call ·" in stats and "transform_system_prompt 1" in stats
        await pilot.press("f2")
        assert not app.query_one(MiddlewarePanel).shown


async def test_an_idle_open_panel_touches_no_widget(monkeypatch: pytest.MonkeyPatch) -> None:
    """Idle means nothing to redraw: a stats tick that finds the same numbers updates
    no widget (each update re-lays out the panel; at 4 ticks a second an idle shell
    used ~30% of a core), and the next real change still shows."""
    agent, _ = make_agent(["one"], middleware=[Shout()])
    app = AgentShellApp(agent, model_label="scripted")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("f2")
        await wait_for(pilot, lambda: app.panel.loaded)
        updates: list[object] = []
        real_refresh = MiddlewareRow.refresh

        def counting(self: MiddlewareRow, *args: Any, **kwargs: Any) -> Any:
            updates.append(self)
            return real_refresh(self, *args, **kwargs)

        monkeypatch.setattr(MiddlewareRow, "refresh", counting)
        for _ in range(5):
            app.panel.refresh_stats()
        assert updates == []
        await pilot.click("#prompt")
        await send(pilot, "go")
        await wait_for(pilot, lambda: not app.busy)
        app.panel.refresh_stats()
        row = _row(app, "Shout")
        assert row in updates and "1 call ·" in row.stats


async def test_the_panel_is_never_an_empty_frame() -> None:
    """Its rows take a moment to build the first time: until they show, it says so."""
    agent, _ = make_agent([], middleware=[Shout()])
    app = AgentShellApp(agent, model_label="scripted")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("f2")
        seen: list[str] = []
        end = time.monotonic() + 30  # a panel that never loads fails, not hangs the run
        while not app.panel.loaded:
            assert time.monotonic() < end, f"the panel never loaded: {seen[-3:]}"
            loading = app.panel.query("#mw-loading")
            assert loading and loading.first().display
            seen.append(str(loading.first(Static).content))
            await pilot.pause(0.01)
        await frame_drawn(pilot)  # laid out
        assert not app.panel.query("#mw-loading")
        assert all(text == "Loading 1 middleware…" for text in seen)
        assert _row(app, "Shout").region.height > 0


async def test_failing_middleware_is_marked_and_can_be_switched_off_from_the_error() -> None:
    agent, model = make_agent(["never", "after"], middleware=[Broken()])
    app = AgentShellApp(agent, model_label="scripted")
    async with app.run_test(size=SIZE) as pilot:
        await send(pilot, "go")
        await wait_for(pilot, lambda: not app.busy and app.query(NoticeLine))
        line = app.query_one(NoticeLine)
        assert line.middleware == "Broken" and "broken on purpose" in line.text
        await pilot.press("f2")  # the panel's rows are built when it is first shown
        await wait_for(pilot, lambda: app.panel.loaded)
        assert _row(app, "Broken").has_class("-failed")
        await pilot.press("f2")
        await pilot.click(line.query_one(Button))
        await pilot.pause()
        assert not agent.middleware.is_enabled("Broken")
        assert app.prompt.text == "go"  # the failed message was given back (finding E1), not kept
        app.prompt.text = ""
        await pilot.click("#prompt")
        await send(pilot, "again")
        await wait_for(pilot, lambda: not app.busy and len(model.requests) == 1)
        assert [m.text for m in model.requests[0].messages] == ["again"]  # "go" was not glued to it


async def test_slash_commands_middleware_and_theme(tmp_path: Path) -> None:
    agent, _ = make_agent([], middleware=[Shout()])
    app = AgentShellApp(agent, model_label="scripted")
    async with app.run_test(size=SIZE) as pilot:
        await send(pilot, "/middleware Shout off")
        await pilot.pause()
        assert not agent.middleware.is_enabled("Shout")
        await send(pilot, "/theme agent-light")
        await pilot.pause()
        assert app.theme == "agent-light"
        saved = json.loads(Path(os.environ["AGENT_SHELL_TUI_PREFS"]).read_text())  # noqa: ASYNC240
        assert saved["theme"] == "agent-light"
    app2 = AgentShellApp(make_agent([])[0], model_label="scripted")
    async with app2.run_test(size=SIZE):
        assert app2.theme == "agent-light"


async def test_slash_completion_and_clear() -> None:
    agent, _ = make_agent(["hi"])
    app = AgentShellApp(agent, model_label="scripted")
    async with app.run_test(size=SIZE) as pilot:
        await send(pilot, "hello")
        await wait_for(pilot, lambda: not app.busy)
        await pilot.press(*"/cle")
        assert app.prompt.suggestion == "ar"
        await pilot.press("tab", "enter")
        await pilot.pause()
        assert agent.messages == []
        assert not app.conversation.entries[:-1]


async def test_themes_registry_has_three_of_our_own() -> None:
    import themes

    names = [t.name for t in themes.all_themes()]
    assert names[:3] == ["agent-dark", "agent-light", "agent-contrast"]
    assert not themes.all_themes()[1].dark


async def test_a_middleware_row_is_one_widget() -> None:
    """20 rows of 7 widgets each took seconds to build under load the first time the
    panel opened: a row is now its lines of text, its switch flipped by a click on
    its first line or by Space."""
    agent, _ = make_agent([], middleware=[Shout()])
    app = AgentShellApp(agent, model_label="scripted")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("f2")
        await wait_for(pilot, lambda: app.panel.loaded)
        await pilot.pause()
        rows = app.panel.rows()
        assert rows and all(not row.children for row in rows)
        row = _row(app, "Shout")
        assert str(row.render()).splitlines()[:2] == ["■ on  Shout", "Upper-cases the system prompt."]
        row.focus()
        await pilot.pause()
        switch = row.render().spans[0]  # the focused row's switch stands out (reversed)
        assert switch.end == len("■ on") + 1 and Style.parse(str(switch.style)).reverse
        await pilot.press("space")
        assert not agent.middleware.is_enabled("Shout") and str(row.render()).startswith("□ off Shout")
