"""ACP under a middleware that retried a model call which failed part way: a chunk
sent to the editor cannot be taken back, so a note follows the withdrawn text, and
what the sanitizer still held of it is never sent."""

from __future__ import annotations

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
