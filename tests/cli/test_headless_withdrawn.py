"""-p: Ctrl+C before the model's first word takes the request back (Y9), and the line
on stderr says so (a --continue will not send it); the jsonl ReplyEnd carries it."""

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


class SilentThenInterrupted:
    """Has the request, sends this process SIGINT (Ctrl+C) before saying anything."""

    name = "silent"

    async def stream(self, request: ModelRequest) -> AsyncIterator[ModelChunk]:
        os.kill(os.getpid(), signal.SIGINT)
        await anyio.sleep(30)
        yield TextDelta("too late")
        yield StopChunk("end_turn")


async def test_ctrl_c_before_the_first_word_says_the_message_was_taken_back(tmp_path: Path) -> None:
    runtime = ShellRuntime.create(
        RuntimeOptions(cwd=str(tmp_path), record=False), settings=Settings(path=tmp_path / "none.toml"),
        model=SilentThenInterrupted(),  # type: ignore[arg-type]
    )
    out, err = io.StringIO(), io.StringIO()
    with anyio.fail_after(20):  # (a hang guard, not a measurement)
        code = await run_headless(runtime, "delete the logs", output_format="jsonl", approve="never",
                                  out=out, err=err)
    assert code == EXIT_INTERRUPTED
    end = json.loads(out.getvalue().splitlines()[-1])
    assert end["type"] == "ReplyEnd" and [m["content"] for m in end["withdrawn"]] == ["delete the logs"]
    assert "no answer had arrived, so your message was taken back" in err.getvalue()
    assert runtime.agent.messages == []


async def test_a_failed_call_says_the_message_was_not_kept(tmp_path: Path) -> None:
    """Finding B2: -p "delete the logs" with the server down answered stop_reason
    "error" and nothing more, and the session kept the message: the next --continue
    sent it glued to its own. Now it is taken back, and each output says so."""
    from shell.core.model import ModelError
    from shell.providers.scripted import ScriptedModel

    refused = ModelError("Could not connect to http://127.0.0.1:9/v1. Is the server running?", retryable=True)
    for output_format in ("text", "json", "jsonl"):
        runtime = ShellRuntime.create(
            RuntimeOptions(cwd=str(tmp_path), record=False), settings=Settings(path=tmp_path / "none.toml"),
            model=ScriptedModel([refused]),
        )
        out, err = io.StringIO(), io.StringIO()
        with anyio.fail_after(20):  # (a hang guard, not a measurement)
            await run_headless(runtime, "delete the logs", output_format=output_format, approve="never",
                               out=out, err=err)
        assert runtime.agent.messages == []
        if output_format == "text":
            assert "your message was taken back out of the conversation" in err.getvalue()
        elif output_format == "json":
            result = json.loads(out.getvalue())
            assert result["messages"] == [] and result["stop_reason"] == "error"
            assert "taken back out of the conversation" in result["errors"][0]
        elif output_format == "jsonl":
            error = next(json.loads(line) for line in out.getvalue().splitlines()
                         if json.loads(line)["type"] == "ErrorEvent")
            assert [m["content"] for m in error["withdrawn"]] == ["delete the logs"]


async def test_a_middleware_failure_before_the_answer_says_the_message_was_not_kept(tmp_path: Path) -> None:
    """Finding E1: as for a failed call, a middleware that fails before any answer
    leaves the message out of the conversation (a --continue does not send it glued to
    its own), and -p's error says so."""
    from typing import Any

    from middleware import Middleware
    from shell.providers.scripted import ScriptedModel

    class FlakyPrompt(Middleware):
        async def transform_system_prompt(self, ctx: Any, prompt: str) -> str:
            raise RuntimeError("prompt source unavailable")

    runtime = ShellRuntime.create(
        RuntimeOptions(cwd=str(tmp_path), record=False), settings=Settings(path=tmp_path / "none.toml"),
        model=ScriptedModel(["never"]),
    )
    runtime.agent.middleware.add(FlakyPrompt())
    out, err = io.StringIO(), io.StringIO()
    with anyio.fail_after(20):  # (a hang guard, not a measurement)
        await run_headless(runtime, "first: delete the logs", output_format="json", approve="never",
                           out=out, err=err)
    result = json.loads(out.getvalue())
    assert result["messages"] == [] and result["stop_reason"] == "error"
    said = result["errors"][0]
    assert "FlakyPrompt failed" in said and "taken back out of the conversation" in said
    assert runtime.agent.messages == []
