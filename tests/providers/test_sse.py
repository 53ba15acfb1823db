"""The SSE / NDJSON reader: every edge case, and split-invariance under hypothesis."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from shell.providers.sse import MalformedLine, SSEEvent, decode_sse, iter_ndjson, iter_sse

from .helpers import fixture_bytes


async def pieces(*parts: bytes) -> AsyncIterator[bytes]:
    for p in parts:
        yield p


async def events(*parts: bytes) -> list[SSEEvent]:
    return [e async for e in iter_sse(pieces(*parts))]


@pytest.mark.anyio
async def test_crlf_lf_cr_line_ends() -> None:
    want = [SSEEvent("a"), SSEEvent("b"), SSEEvent("c")]
    assert await events(b"data: a\r\n\r\ndata: b\n\ndata: c\r\r") == want


@pytest.mark.anyio
async def test_crlf_split_across_chunks_is_one_line_end() -> None:
    assert await events(b"data: one\r", b"\ndata: two\r", b"\n\r", b"\n") == [SSEEvent("one\ntwo")]


@pytest.mark.anyio
async def test_empty_chunk_between_cr_and_lf() -> None:
    assert await events(b"data: x\r", b"", b"\n", b"data: y\r\n\r\n") == [SSEEvent("x\ny")]


@pytest.mark.anyio
async def test_multiline_data_and_event_names_and_ids() -> None:
    got = await events(b"event: delta\nid: 7\ndata: line1\ndata:line2\ndata\n\n")
    assert got == [SSEEvent("line1\nline2\n", "delta", "7")]


@pytest.mark.anyio
async def test_comments_and_keepalives_are_skipped() -> None:
    got = await events(b": ping\n\n\n\n:\ndata: x\n\n: keep-alive\n\n")
    assert got == [SSEEvent("x")]


@pytest.mark.anyio
async def test_event_name_resets_after_dispatch_and_on_empty_event() -> None:
    got = await events(b"event: a\n\nevent: b\ndata: 1\n\ndata: 2\n\n")
    assert got == [SSEEvent("1", "b"), SSEEvent("2")]


@pytest.mark.anyio
async def test_done_is_an_ordinary_event() -> None:
    assert await events(b"data: {}\n\ndata: [DONE]\n\n") == [SSEEvent("{}"), SSEEvent("[DONE]")]


@pytest.mark.anyio
async def test_last_event_without_blank_line_is_kept() -> None:
    assert await events(b"data: a\n\ndata: tail") == [SSEEvent("a"), SSEEvent("tail")]


@pytest.mark.anyio
async def test_utf8_split_inside_a_character() -> None:
    raw = "data: héllo ✓\n\n".encode()
    i = raw.index("✓".encode()) + 1
    assert await events(raw[:i], raw[i:]) == [SSEEvent("héllo ✓")]


@pytest.mark.anyio
async def test_only_one_space_after_colon_is_stripped() -> None:
    assert await events(b"data:  two spaces\n\n") == [SSEEvent(" two spaces")]


@pytest.mark.anyio
async def test_ndjson_lines_and_split_chunks() -> None:
    got = [o async for o in iter_ndjson(pieces(b'{"a": 1}\n\n{"b"', b': 2}\r\n{"c": 3}'))]
    assert got == [{"a": 1}, {"b": 2}, {"c": 3}]


@pytest.mark.anyio
async def test_ndjson_garbage_names_the_line() -> None:
    with pytest.raises(MalformedLine) as info:
        _ = [o async for o in iter_ndjson(pieces(b'{"a": 1}\nnot json\n'))]
    assert info.value.line == "not json"


SAMPLES = [
    fixture_bytes("anthropic/tool_use_response.sse"),
    fixture_bytes("openai/parallel_tool_calls.sse"),
    b"event: x\r\ndata: a\r\ndata: b\r\n\r\n: c\r\n\r\ndata: \xc3\xa9\r\rdata: [DONE]\n\n",
]


@settings(max_examples=300, deadline=None)
@given(
    sample=st.sampled_from(SAMPLES),
    cuts=st.lists(st.floats(min_value=0, max_value=1), max_size=40),
    crlf=st.booleans(),
)
def test_any_split_yields_the_same_events(sample: bytes, cuts: list[float], crlf: bool) -> None:
    data = sample.replace(b"\n", b"\r\n") if crlf and b"\r" not in sample else sample
    whole = decode_sse(data)
    assert whole
    splits = [int(c * len(data)) for c in cuts]
    assert decode_sse(data, splits=splits) == whole


@settings(max_examples=200, deadline=None)
@given(
    lines=st.lists(
        st.one_of(
            st.just(""),
            st.just(": comment"),
            st.text(alphabet="abc é:[]{}", max_size=12).map(lambda t: "data: " + t),
            st.text(alphabet="abcxyz", max_size=5).map(lambda t: "event: " + t),
        ),
        max_size=30,
    ),
    ending=st.sampled_from(["\n", "\r\n", "\r"]),
    cuts=st.lists(st.integers(min_value=0, max_value=2000), max_size=20),
)
def test_generated_streams_split_invariance(lines: list[str], ending: str, cuts: list[int]) -> None:
    data = "".join(line + ending for line in lines).encode()
    splits = [c % (len(data) + 1) for c in cuts]
    assert decode_sse(data, splits=splits) == decode_sse(data)
    assert decode_sse(data, splits=list(range(len(data)))) == decode_sse(data)
