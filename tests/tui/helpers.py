"""Shared pieces of the TUI tests: agents around a ScriptedModel, small middleware."""

from __future__ import annotations

import struct
from collections.abc import AsyncIterator, Sequence
from typing import Any

from middleware.base import Middleware
from middleware.context import HookContext, ToolCallContext
from middleware.types import BeforeToolCallResult, ReplyRequest
from shell.agent import ApprovalRequest, Tool, tool
from shell.agent.loop import Agent
from shell.core.events import DataBlockDelta, DataBlockEnd, DataBlockStart, Event, ReplyStart
from shell.providers.scripted import ScriptedModel

SIZE = (100, 32)


@tool
def write_note(path: str, text: str) -> str:
    """Write a note to a file.

    Args:
        path: where to write
        text: what to write
    """
    return f"wrote {len(text)} characters to {path}"


@tool(read_only=True)
def read_note(path: str) -> str:
    """Read a note.

    Args:
        path: which note
    """
    return f"contents of {path}"


class AskEverything(Middleware):
    """Asks the user before every tool call (a stand-in for HumanInTheLoop)."""

    async def before_tool_call(self, ctx: ToolCallContext) -> BeforeToolCallResult | None:
        if ctx.session_state.get(f"always:{ctx.call.name}"):
            return None
        request = ApprovalRequest(ctx.call, ctx.tool, dict(ctx.args), suggested_rules=(ctx.call.name,))
        decision = await ctx.ask(request)
        if decision.always:
            ctx.session_state[f"always:{ctx.call.name}"] = True
        if decision.type == "reject":
            return BeforeToolCallResult(block=True, reason=decision.message)
        if decision.type == "edit":
            return BeforeToolCallResult(args=decision.args)
        return None


class Shout(Middleware):
    """Upper-cases the system prompt."""

    async def transform_system_prompt(self, ctx: HookContext, prompt: str) -> str:
        return prompt.upper() + " SHOUTED"


def wav_bytes(seconds: float = 0.5, rate: int = 8000) -> bytes:
    n = int(seconds * rate)
    import math

    samples = b"".join(
        struct.pack("<h", int(30000 * math.sin(math.pi * i / n) ** 2 * math.sin(i / 3))) for i in range(n)
    )
    header = struct.pack(
        "<4sI4s4sIHHIIHH4sI",
        b"RIFF",
        36 + len(samples),
        b"WAVE",
        b"fmt ",
        16,
        1,
        1,
        rate,
        rate * 2,
        2,
        16,
        b"data",
        len(samples),
    )
    return header + samples


class Speaker(Middleware):
    """Emits an audio data block at the start of every reply, in three deltas."""

    async def on_reply(self, ctx: HookContext, request: ReplyRequest, next: Any) -> AsyncIterator[Event]:
        async for event in next(request):
            yield event
            if isinstance(event, ReplyStart):
                data = wav_bytes()
                yield DataBlockStart("audio1", "audio/wav")
                third = len(data) // 3
                for part in (data[:third], data[third : 2 * third], data[2 * third :]):
                    yield DataBlockDelta("audio1", part)
                yield DataBlockEnd("audio1")


def make_agent(
    turns: Sequence[Any],
    *,
    tools: Sequence[Tool] = (write_note, read_note),
    middleware: Sequence[Middleware] = (),
    delay: float = 0.0,
    chunk_size: int = 4,
) -> tuple[Agent, ScriptedModel]:
    model = ScriptedModel(turns, delay=delay, chunk_size=chunk_size)
    return Agent(model, tools=tools, middleware=middleware, system_prompt="be brief"), model


async def wait_for(pilot: Any, condition: Any, timeout: float = 5.0) -> None:
    """Let the app run until ``condition()`` is true (fail after ``timeout``)."""
    import asyncio
    import time

    end = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > end:
            raise AssertionError("condition not reached in time")
        # a plain sleep: pilot.pause() waits for every widget to go idle, which a
        # reply streaming at 60 frames a second keeps from happening for long
        await asyncio.sleep(0.02)
    await asyncio.sleep(0)


async def send(pilot: Any, text: str) -> None:
    await pilot.press(*text)
    await pilot.press("enter")


async def type_now(app: Any, text: str) -> None:
    """Keys straight to the prompt, as a terminal delivers them (no idle waits)."""
    import asyncio

    from textual import events

    for ch in text:
        app.prompt.post_message(events.Key(ch, ch))
    app.prompt.post_message(events.Key("enter", None))
    await asyncio.sleep(0.05)
