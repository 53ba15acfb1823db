"""What the gate says about a call whose permission check runs long: ``PermissionChecking``
once it has run past ``SAY_CHECKING_AFTER``, and its end once it ends; a quick check says
nothing (a turn of 1,000 calls must not bring 2,000 more events). On either backend."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import anyio
import pytest

from middleware import human_in_the_loop
from middleware.human_in_the_loop import checking_said
from shell.core.events import Event, PermissionChecking


@pytest.mark.parametrize("anyio_backend", ["asyncio", "trio"])
@pytest.mark.anyio
async def test_a_long_check_is_said_then_its_end_and_a_quick_one_says_nothing(
    anyio_backend: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(human_in_the_loop, "SAY_CHECKING_AFTER", 0.01)
    events: list[Event] = []
    heard = anyio.Event()

    def emit(event: Event) -> None:
        events.append(event)
        heard.set()

    ctx: Any = SimpleNamespace(call=SimpleNamespace(id="c1"), emit=emit)
    async with checking_said(ctx):
        pass  # a check that ended before the loop turned
    assert events == []
    async with checking_said(ctx):
        await heard.wait()  # a check still running when the time came
    assert events == [PermissionChecking("c1"), PermissionChecking("c1", checking=False)]
