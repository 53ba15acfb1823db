"""Ctrl+C in headless mode: the reply ends ``cancelled`` and nothing of it is printed
after the signal, however fast the model streams (what was already in flight is
drained, not shown)."""

from __future__ import annotations

import io
import json
import os
import signal
from collections.abc import AsyncIterator
from pathlib import Path

import anyio
import pytest

from shell.config import Settings
from shell.core.model import ModelChunk, ModelRequest, StopChunk, TextDelta
from shell.headless import EXIT_INTERRUPTED, run_headless
from shell.runtime import RuntimeOptions, ShellRuntime

pytestmark = pytest.mark.anyio

CUT = 50


class InterruptsItself:
    """Streams numbered deltas with no pause (a flood), sends this process SIGINT (what
    Ctrl+C does) just before delta ``CUT``, floods on, then goes on at a model's pace
    (so the reply is still streaming when the cancel lands)."""

    name = "interrupts-itself"

    async def stream(self, request: ModelRequest) -> AsyncIterator[ModelChunk]:
        for i in range(4 * CUT):
            if i == CUT:
                os.kill(os.getpid(), signal.SIGINT)
            yield TextDelta(f"<{i}>")
        for i in range(4 * CUT, 100 * CUT):
            await anyio.sleep(0.01)
            yield TextDelta(f"<{i}>")
        yield StopChunk("end_turn")


async def test_nothing_is_printed_after_ctrl_c(tmp_path: Path) -> None:
    runtime = ShellRuntime.create(
        RuntimeOptions(cwd=str(tmp_path), record=False),
        settings=Settings(path=tmp_path / "none.toml"),
        model=InterruptsItself(),  # type: ignore[arg-type]
    )
    out, err = io.StringIO(), io.StringIO()
    code = await run_headless(runtime, "go", output_format="jsonl", approve="never", out=out, err=err)
    events = [json.loads(line) for line in out.getvalue().splitlines()]
    deltas = [int(e["delta"].strip("<>")) for e in events if e["type"] == "TextBlockDelta"]
    assert all(i < CUT for i in deltas), f"printed after the Ctrl+C: {[i for i in deltas if i >= CUT]}"
    assert events[-1]["type"] == "ReplyEnd" and events[-1]["stop_reason"] == "cancelled"
    assert events[-1]["message"] is None  # nothing of the text received after the Ctrl+C either
    assert code == EXIT_INTERRUPTED
    assert signal.getsignal(signal.SIGINT) is not None  # the handler was put back
