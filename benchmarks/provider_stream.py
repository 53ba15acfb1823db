"""Per-chunk cost of our SSE → chunks path, against raw bytes and the official SDKs.

One synthetic reply of ``--chunks`` text deltas (the shape a real model streams)
is served in-process through ``httpx.MockTransport``, one SSE event per network
read, so every variant pays the same httpx cost and nothing else differs:

* ``raw bytes``: ``response.aiter_bytes()`` and nothing else (the floor);
* ``sse events``: our :func:`shell.providers.sse.iter_sse` on the same bytes;
* ``ours``: ``OpenAIModel.stream`` / ``AnthropicModel.stream`` → ``ModelChunk`` values
  (request building, JSON decoding, tool-call bookkeeping, usage, stop);
* ``openai SDK`` / ``anthropic SDK``: ``create(stream=True)`` iterated to the end
  on the same transport (``http_client=``), if the SDKs are installed.

Install the SDKs for the comparison (benchmark only; the shell never needs them):

    pip install openai anthropic
    python benchmarks/provider_stream.py [--chunks 2000] [--repeat 7]

Prints microseconds per chunk (best of ``--repeat``) and the ratios, all measured
in one run.
"""

from __future__ import annotations

import argparse
import gc
import json
import sys
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

import anyio
import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from shell.core.messages import UserMessage
from shell.core.model import ModelRequest
from shell.providers.anthropic import AnthropicModel
from shell.providers.openai import OpenAIModel
from shell.providers.sse import iter_sse

WORDS = [
    "The",
    "quick",
    "brown",
    "fox",
    "jumps",
    "over",
    "the",
    "lazy",
    "dog",
    "while",
    "streaming",
    "tokens",
    "arrive",
]


def openai_events(n: int) -> list[bytes]:
    head = {"id": "chatcmpl-bench", "object": "chat.completion.chunk", "created": 1, "model": "gpt-bench"}
    out = []
    for i in range(n):
        delta = {"content": WORDS[i % len(WORDS)] + " "}
        choice = {"index": 0, "delta": delta, "logprobs": None, "finish_reason": None}
        out.append(b"data: " + json.dumps({**head, "choices": [choice]}).encode() + b"\n\n")
    end = {"index": 0, "delta": {}, "logprobs": None, "finish_reason": "stop"}
    out.append(b"data: " + json.dumps({**head, "choices": [end]}).encode() + b"\n\n")
    usage = {"prompt_tokens": 10, "completion_tokens": n, "total_tokens": n + 10}
    out.append(b"data: " + json.dumps({**head, "choices": [], "usage": usage}).encode() + b"\n\n")
    out.append(b"data: [DONE]\n\n")
    return out


def anthropic_events(n: int) -> list[bytes]:
    def ev(obj: dict[str, Any]) -> bytes:
        return f"event: {obj['type']}\ndata: {json.dumps(obj)}\n\n".encode()

    message = {
        "id": "msg_bench", "type": "message", "role": "assistant", "content": [], "model": "claude-bench",
        "stop_reason": None, "stop_sequence": None, "usage": {"input_tokens": 10, "output_tokens": 1},
    }  # fmt: skip
    out = [
        ev({"type": "message_start", "message": message}),
        ev({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}),
    ]
    for i in range(n):
        delta = {"type": "text_delta", "text": WORDS[i % len(WORDS)] + " "}
        out.append(ev({"type": "content_block_delta", "index": 0, "delta": delta}))
    out.append(ev({"type": "content_block_stop", "index": 0}))
    stop = {"stop_reason": "end_turn", "stop_sequence": None}
    out.append(ev({"type": "message_delta", "delta": stop, "usage": {"output_tokens": n}}))
    out.append(ev({"type": "message_stop"}))
    return out


def client_for(pieces: list[bytes], lib: Any = httpx) -> Any:
    """An ``AsyncClient`` of ``lib`` (httpx, or httpx2 for SDKs built on it) serving ``pieces``."""

    class Pieces(lib.AsyncByteStream):  # type: ignore[misc,name-defined]
        async def __aiter__(self) -> AsyncIterator[bytes]:
            for p in pieces:
                yield p

    def handler(request: Any) -> Any:
        return lib.Response(200, headers={"content-type": "text/event-stream"}, stream=Pieces())

    return lib.AsyncClient(transport=lib.MockTransport(handler))


def http_lib_of(sdk: Any) -> Any:
    """The HTTP library an SDK is built on: recent SDKs moved from httpx to httpx2."""
    base = sys.modules.get(f"{sdk.__name__}._base_client")
    if base is not None and hasattr(base, "httpx2"):
        return base.httpx2
    return httpx


async def best_of(repeat: int, fn: Callable[[], Awaitable[int]]) -> tuple[float, int]:
    """Best wall time of ``repeat`` runs (after one warm-up) and the item count."""
    count = await fn()
    best = float("inf")
    for _ in range(repeat):
        gc.collect()
        start = time.perf_counter()
        count = await fn()
        best = min(best, time.perf_counter() - start)
    return best, count


def variants(kind: str, pieces: list[bytes]) -> dict[str, Callable[[], Awaitable[int]]]:
    client = client_for(pieces)
    url = "http://bench/v1/chat/completions" if kind == "openai" else "http://bench/v1/messages"

    async def raw() -> int:
        n = 0
        async with client.stream("POST", url, json={}) as response:
            async for _ in response.aiter_bytes():
                n += 1
        return n

    async def sse() -> int:
        n = 0
        async with client.stream("POST", url, json={}) as response:
            async for _ in iter_sse(response.aiter_bytes()):
                n += 1
        return n

    model: OpenAIModel | AnthropicModel
    if kind == "openai":
        model = OpenAIModel("gpt-bench", base_url="http://bench/v1", api_key="k", client=client)
    else:
        model = AnthropicModel("claude-bench", base_url="http://bench", api_key="k", client=client)
    request = ModelRequest(model=model, messages=(UserMessage("hi"),))

    async def ours() -> int:
        n = 0
        async for _ in model.stream(request):
            n += 1
        return n

    out = {"raw bytes": raw, "sse events": sse, "ours (chunks)": ours}
    sdk = sdk_variant(kind, pieces)
    if sdk is not None:
        out[f"{kind} SDK"] = sdk
    return out


def sdk_variant(kind: str, pieces: list[bytes]) -> Callable[[], Awaitable[int]] | None:
    messages: Any = [{"role": "user", "content": "hi"}]
    try:
        if kind == "openai":
            import openai

            client = client_for(pieces, http_lib_of(openai))
            oa = openai.AsyncOpenAI(
                api_key="k", base_url="http://bench/v1", http_client=client, max_retries=0
            )

            async def run_openai() -> int:
                n = 0
                stream = await oa.chat.completions.create(model="gpt-bench", messages=messages, stream=True)
                async for _ in stream:
                    n += 1
                return n

            return run_openai
        import anthropic

        client = client_for(pieces, http_lib_of(anthropic))
        an = anthropic.AsyncAnthropic(api_key="k", base_url="http://bench", http_client=client, max_retries=0)

        async def run_anthropic() -> int:
            n = 0
            stream = await an.messages.create(
                model="claude-bench", max_tokens=100, messages=messages, stream=True
            )
            async for _ in stream:
                n += 1
            return n

        return run_anthropic
    except ImportError:
        print(f"  ({kind} SDK not installed: `pip install {kind}` to compare against it)")
        return None


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--chunks", type=int, default=2000)
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args()
    print(
        f"provider_stream: {args.chunks} text deltas, one SSE event per network read, best of {args.repeat}"
    )
    for kind, make in (("openai", openai_events), ("anthropic", anthropic_events)):
        pieces = make(args.chunks)
        print(f"\n{kind}: {len(pieces)} events, {sum(map(len, pieces)) / 1024:.0f} KiB")
        results: dict[str, tuple[float, int]] = {}
        runs = variants(kind, pieces)
        # Importing an SDK creates many long-lived objects that the cyclic GC would
        # otherwise rescan during every variant's run; freeze them so all variants
        # are measured in the same interpreter state.
        gc.collect()
        gc.freeze()
        for label, fn in runs.items():
            results[label] = await best_of(args.repeat, fn)
        per = {label: t / len(pieces) * 1e6 for label, (t, _) in results.items()}
        raw = per["raw bytes"]
        sdk = per.get(f"{kind} SDK")
        print(f"  {'variant':16} {'µs/chunk':>9} {'x raw':>7} {'x SDK':>7}")
        for label, us in per.items():
            vs_sdk = f"{us / sdk:7.2f}" if sdk else "      -"
            print(f"  {label:16} {us:9.2f} {us / raw:7.2f} {vs_sdk}")
        ours = per["ours (chunks)"]
        print(f"  parsing overhead over raw: {ours - raw:.2f} µs/chunk", end="")
        print(f"; ours vs SDK: {sdk / ours:.2f}x faster" if sdk else "")


if __name__ == "__main__":
    anyio.run(main)
