"""Shared helpers: serve bytes through httpx.MockTransport and collect chunks."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable, Sequence
from pathlib import Path
from typing import Any

import httpx

from shell.core.messages import Usage
from shell.core.model import (
    ChatModel,
    ModelChunk,
    ModelRequest,
    StopChunk,
    TextDelta,
    ThinkingDelta,
    ToolCallDelta,
    UsageChunk,
)

FIXTURES = Path(__file__).parent / "fixtures"


def fixture_bytes(name: str) -> bytes:
    return (FIXTURES / name).read_bytes()


class PieceStream(httpx.AsyncByteStream):
    """A response body delivered in pieces of ``size`` bytes (like a network)."""

    def __init__(self, data: bytes, size: int = 37) -> None:
        self.data = data
        self.size = size

    async def __aiter__(self) -> AsyncIterator[bytes]:
        for i in range(0, len(self.data), self.size):
            yield self.data[i : i + self.size]


def mock_client(
    data: bytes | Callable[[httpx.Request], httpx.Response],
    *,
    size: int = 37,
    seen: list[httpx.Request] | None = None,
) -> httpx.AsyncClient:
    def handler(request: httpx.Request) -> httpx.Response:
        if seen is not None:
            seen.append(request)
        if callable(data):
            return data(request)
        return httpx.Response(200, stream=PieceStream(data, size))

    return httpx.AsyncClient(transport=httpx.MockTransport(handler))


async def collect(model: ChatModel, request: ModelRequest | None = None) -> list[ModelChunk]:
    return [c async for c in model.stream(request or ModelRequest(model=model))]


class Assembled:
    """Chunks folded the way the loop folds them: text, thinking, calls, usage, stop."""

    def __init__(self, chunks: Sequence[ModelChunk]) -> None:
        self.text = ""
        self.thinking = ""
        self.signature: str | None = None
        self.calls: dict[int, dict[str, Any]] = {}
        self.usage = Usage()
        self.stop: str | None = None
        for c in chunks:
            if isinstance(c, TextDelta):
                self.text += c.text
            elif isinstance(c, ThinkingDelta):
                self.thinking += c.text
                self.signature = c.signature or self.signature
            elif isinstance(c, ToolCallDelta):
                call = self.calls.setdefault(c.index, {"id": None, "name": None, "args": ""})
                call["id"] = call["id"] or c.id
                call["name"] = call["name"] or c.name
                call["args"] += c.args_delta
            elif isinstance(c, UsageChunk):
                self.usage = c.usage
            elif isinstance(c, StopChunk):
                self.stop = c.reason

    def tool_calls(self) -> list[tuple[str, str, Any]]:
        return [(c["id"], c["name"], json.loads(c["args"] or "{}")) for _, c in sorted(self.calls.items())]
