"""ACP: ``session/cancel`` while a permission check runs (finding T5: the check held
the event loop, no permission request ever came and the cancel did not end the
prompt, so the editor's agent panel hung). The check runs in a worker thread: the
prompt ends ``cancelled`` at once, and the command it was about does not run."""

from __future__ import annotations

import threading
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import anyio
import pytest
from acp.schema import TextContentBlock

from middleware.human_in_the_loop import Verdict
from shell.acp.session import AcpSession
from shell.config import Settings
from shell.core.tools import Tool
from shell.providers.scripted import ScriptedModel
from shell.runtime import RuntimeOptions, ShellRuntime
from tests.tui.test_permissions_tui import call

pytestmark = pytest.mark.anyio
WAIT = 15.0
"""Seconds the held check waits at most (on the old code it held the loop this long)."""


class Editor:
    async def session_update(self, session_id: str, update: Any) -> None:
        pass


async def test_cancel_ends_the_prompt_while_the_permission_check_still_runs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    runtime = ShellRuntime.create(
        RuntimeOptions(cwd=str(tmp_path), record=False, permission_mode="bypass"),
        settings=Settings(path=tmp_path / "none.toml"),
        model=ScriptedModel([call("run_shell", command="touch ran.txt"), "Done."]),
    )
    started, release, running = threading.Event(), threading.Event(), threading.Event()
    real = runtime.permissions._decide

    def slow(tool: Tool, args: Mapping[str, Any]) -> Verdict:
        running.set()
        started.set()
        try:
            release.wait(WAIT)
            return real(tool, args)
        finally:
            running.clear()

    monkeypatch.setattr(runtime.permissions, "_decide", slow)
    session = AcpSession("s1", runtime, Editor(), None, models=lambda: [])
    stop_reasons: list[str] = []

    async def prompt() -> None:
        response = await session.prompt([TextContentBlock(type="text", text="go")])
        stop_reasons.append(response.stop_reason)

    try:
        with anyio.fail_after(30):
            async with anyio.create_task_group() as tg:
                tg.start_soon(prompt)
                while not started.is_set():  # noqa: ASYNC110 (a thread sets it)
                    await anyio.sleep(0.01)
                session.cancel()  # what session/cancel does
        assert running.is_set(), "the prompt ended only once the check had"
    finally:
        release.set()
    assert stop_reasons == ["cancelled"]
    assert not (tmp_path / "ran.txt").exists()
