"""The TUI builds the switched-off middleware after the welcome (see
``shell.runtime.middleware_later``). What a user relies on all the same: the side
panel lists every middleware, switching one on there works at the next hook, and
a built-in that fails to load is reported on screen."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from middleware.registry import builtin_middleware
from shell.config import Settings
from shell.providers.scripted import ScriptedModel
from shell.runtime import RuntimeOptions, ShellRuntime
from shell.tui.app import AgentShellApp
from shell.tui.widgets.middleware_panel import MiddlewareRow
from shell.tui.widgets.notice_line import NoticeLine

from .helpers import SIZE, send, wait_for

pytestmark = pytest.mark.anyio


async def test_panel_lists_every_middleware_and_a_lazily_built_one_switches_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AGENT_SHELL_CONFIG_DIR", str(tmp_path))
    everything = {n for n in builtin_middleware() if n != "RateLimit"}
    monkeypatch.setitem(sys.modules, "middleware.rate_limit", None)  # this built-in no longer loads
    model = ScriptedModel(["one", "two"])
    built: list[ShellRuntime] = []

    def build() -> ShellRuntime:
        runtime = ShellRuntime.create(
            RuntimeOptions(cwd=str(tmp_path), record=False, middleware_later=True),
            settings=Settings(path=tmp_path / "none.toml"), model=model,
        )
        assert "TodoList" not in runtime.agent.middleware  # left for after the welcome
        built.append(runtime)
        return runtime

    app = AgentShellApp(build=build, settings=Settings(path=tmp_path / "none.toml"))
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.ready, timeout=10)
        assert built and built[0].middleware_later is None  # completed before "ready"
        notices = [line.text for line in app.query(NoticeLine)]
        assert any("middleware.rate_limit could not be loaded" in t for t in notices), notices
        await send(pilot, "first")
        await wait_for(pilot, lambda: not app.busy and len(model.requests) == 1)
        assert "write_todos" not in [t.name for t in model.requests[0].tools]
        await pilot.press("f2")
        await wait_for(pilot, lambda: bool(app.panel.rows()))
        rows = {r.mw_name.split("[")[0] for r in app.query(MiddlewareRow)}  # PII[email]
        assert rows == everything
        todo = next(r for r in app.query(MiddlewareRow) if r.mw_name == "TodoList")
        todo.scroll_visible(animate=False)
        await pilot.pause()
        await pilot.click(todo)
        await pilot.pause()
        assert app.agent.middleware.is_enabled("TodoList")
        await pilot.click("#prompt")
        await send(pilot, "second")
        await wait_for(pilot, lambda: not app.busy and len(model.requests) == 2)
        assert "write_todos" in [t.name for t in model.requests[1].tools]  # its list_tools ran
