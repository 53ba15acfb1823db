"""SIGTERM and SIGHUP end a reply as Ctrl+C does (finding Y5): ``timeout``, a CI job's
cancel, ``docker stop`` or a closed terminal window used to end the process where it
stood. Headless printed nothing of what had arrived; the TUI left the terminal in the
alternate screen with mouse reports on. Now what arrived is printed and kept, the
terminal is given back, and the exit code is the shell's for the signal (143, 129)."""

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
from shell.headless import run_headless
from shell.runtime import RuntimeOptions, ShellRuntime

pytestmark = pytest.mark.anyio


class SignalsItself:
    """Streams a few deltas at a model's pace, sends this process ``signum`` (what
    ``timeout`` or a closed terminal does), then goes on slowly."""

    name = "signals-itself"

    def __init__(self, signum: int) -> None:
        self.signum = signum

    async def stream(self, request: ModelRequest) -> AsyncIterator[ModelChunk]:
        for i in range(5):
            await anyio.sleep(0.002)
            yield TextDelta(f"<{i}>")
        os.kill(os.getpid(), self.signum)
        for i in range(5, 2000):
            await anyio.sleep(0.01)
            yield TextDelta(f"<{i}>")
        yield StopChunk("end_turn")


def _runtime(tmp_path: Path, model: object) -> ShellRuntime:
    return ShellRuntime.create(
        RuntimeOptions(cwd=str(tmp_path), record=False),
        settings=Settings(path=tmp_path / "none.toml"),
        model=model,  # type: ignore[arg-type]
    )


@pytest.mark.parametrize(("signum", "code", "name"),
                         [(signal.SIGTERM, 143, "SIGTERM"), (signal.SIGHUP, 129, "SIGHUP")])
async def test_term_or_hup_prints_what_arrived_keeps_it_and_exits_with_the_signals_code(
    tmp_path: Path, signum: int, code: int, name: str
) -> None:
    before = signal.getsignal(signum)
    runtime = _runtime(tmp_path, SignalsItself(signum))
    out, err = io.StringIO(), io.StringIO()
    got = await run_headless(runtime, "go", output_format="json", approve="never", out=out, err=err)
    result = json.loads(out.getvalue())
    assert result["stop_reason"] == "cancelled" and result["answer"].startswith("<0><1>")
    assert runtime.agent.messages[-1].text == result["answer"]  # type: ignore[union-attr]
    assert f"reply cancelled ({name})" in err.getvalue()
    assert got == code
    assert signal.getsignal(signum) == before  # the handler was put back
