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


class CalmThenFlood:
    """Streams numbered deltas at a model's pace (each one printed as it comes), sends
    this process SIGINT just before delta ``CUT``, then floods."""

    name = "calm-then-flood"

    async def stream(self, request: ModelRequest) -> AsyncIterator[ModelChunk]:
        for i in range(CUT):
            await anyio.sleep(0.002)
            yield TextDelta(f"<{i}>")
        os.kill(os.getpid(), signal.SIGINT)
        for i in range(CUT, 100 * CUT):
            yield TextDelta(f"<{i}>")
        yield StopChunk("end_turn")


def _runtime(tmp_path: Path, model: object) -> ShellRuntime:
    return ShellRuntime.create(
        RuntimeOptions(cwd=str(tmp_path), record=False),
        settings=Settings(path=tmp_path / "none.toml"),
        model=model,  # type: ignore[arg-type]
    )


async def test_after_ctrl_c_the_end_carries_exactly_what_was_printed(tmp_path: Path) -> None:
    """The partial message (in the end line and in the history) is the deltas printed
    before the Ctrl+C: none of those pulled after it, which were kept but not printed."""
    runtime = _runtime(tmp_path, CalmThenFlood())
    out, err = io.StringIO(), io.StringIO()
    code = await run_headless(runtime, "go", output_format="jsonl", approve="never", out=out, err=err)
    events = [json.loads(line) for line in out.getvalue().splitlines()]
    printed = "".join(e["delta"] for e in events if e["type"] == "TextBlockDelta")
    assert printed.startswith("<0><1>")
    end = events[-1]
    assert end["type"] == "ReplyEnd" and end["stop_reason"] == "cancelled"
    kept = "".join(block["text"] for block in end["message"]["content"])
    assert kept == printed
    assert runtime.agent.messages[-1].text == printed  # what the model reads next turn
    assert code == EXIT_INTERRUPTED


async def test_json_after_ctrl_c_answers_with_what_came_before_it(tmp_path: Path) -> None:
    runtime = _runtime(tmp_path, CalmThenFlood())
    out, err = io.StringIO(), io.StringIO()
    code = await run_headless(runtime, "go", output_format="json", approve="never", out=out, err=err)
    result = json.loads(out.getvalue())
    numbers = [int(n) for n in result["answer"].strip("<>").split("><")]
    assert result["stop_reason"] == "cancelled" and numbers[0] == 0
    assert max(numbers) < CUT, f"kept after the Ctrl+C: {[n for n in numbers if n >= CUT]}"
    last = result["messages"][-1]
    assert "".join(block["text"] for block in last["content"]) == result["answer"]
    assert code == EXIT_INTERRUPTED


async def test_text_after_ctrl_c_prints_what_the_history_keeps_and_says_it_was_cancelled(
    tmp_path: Path,
) -> None:
    """Text mode printed nothing after Ctrl+C while the history (and the session, and
    json's ``answer``) kept what had arrived: a ``--continue`` went on from an answer
    the user never saw. Now it prints that answer, and stderr says it was cut off."""
    runtime = _runtime(tmp_path, CalmThenFlood())
    out, err = io.StringIO(), io.StringIO()
    code = await run_headless(runtime, "go", output_format="text", approve="never", out=out, err=err)
    kept = runtime.agent.messages[-1]
    assert kept.stop_reason == "cancelled" and kept.text.startswith("<0><1>")  # type: ignore[union-attr]
    assert out.getvalue() == kept.text + "\n"
    assert "reply cancelled (Ctrl+C): the answer above is what had arrived before it" in err.getvalue()
    assert code == EXIT_INTERRUPTED


class Answers:
    """A model that answers at once, and counts its calls."""

    name = "answers"

    def __init__(self) -> None:
        self.calls = 0

    async def stream(self, request: ModelRequest) -> AsyncIterator[ModelChunk]:
        self.calls += 1
        yield TextDelta("an answer")
        yield StopChunk("end_turn")


@pytest.mark.parametrize("output_format", ["text", "json", "jsonl"])
async def test_ctrl_c_while_mcp_servers_still_start_ends_the_run_and_sends_nothing(
    tmp_path: Path, output_format: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Ctrl+C while the runtime was still starting (MCP servers connecting, up to 30 s)
    cancelled no reply (there was none yet): the wait went on, then the prompt went to
    the model and its tools ran, the answer never printed. Now the wait ends at once and
    nothing is sent; the run ends cancelled, exit code 130."""
    model = Answers()
    runtime = _runtime(tmp_path, model)

    async def slow_servers(timeout: float) -> None:
        os.kill(os.getpid(), signal.SIGINT)
        await anyio.sleep(3)  # a server still connecting

    monkeypatch.setattr(runtime, "wait_for_tools", slow_servers)
    out, err = io.StringIO(), io.StringIO()
    with anyio.fail_after(60):  # (a hang guard, not a measurement)
        code = await run_headless(runtime, "go", output_format=output_format,  # type: ignore[arg-type]
                                  approve="never", out=out, err=err)
    assert model.calls == 0 and code == EXIT_INTERRUPTED
    assert "reply cancelled (Ctrl+C): no answer had arrived" in err.getvalue()
    if output_format == "json":
        assert json.loads(out.getvalue())["stop_reason"] == "cancelled"
    elif output_format == "jsonl":
        end = json.loads(out.getvalue().splitlines()[-1])
        assert end["type"] == "ReplyEnd" and end["stop_reason"] == "cancelled" and end["message"] is None
    else:
        assert out.getvalue() == ""
    assert not runtime.agent.messages  # nothing was sent, so nothing is kept
