"""The loader never raises on a damaged file and keeps the readable prefix."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from shell.core.messages import AssistantMessage, TextBlock, ToolCallBlock, ToolResultMessage, UserMessage
from shell.sessions import load_session
from tests.helpers import history_is_valid

from .util import header, msg

GOOD = [
    header(),
    msg(UserMessage("one")),
    msg(AssistantMessage((TextBlock("calling"), ToolCallBlock("c1", "t", {"a": 1})))),
    msg(ToolResultMessage("c1", "t", "r")),
    msg(AssistantMessage((TextBlock("first answer"),))),
    {"kind": "state", "state": {"M": {"k": [1, 2]}}},
    {"kind": "reply_end", "reply_id": "r1", "stop_reason": "end_turn"},
    msg(UserMessage("two")),
    {"kind": "checkpoint", "reply_id": "r2", "content": [{"type": "text", "text": "part"}]},
]
LINES = [json.dumps(r).encode() for r in GOOD]
EXPECTED_PREFIX = [UserMessage("one")]

junk = st.one_of(
    st.binary(max_size=200),
    st.text(max_size=100).map(str.encode),
    st.sampled_from([b"{", b"}", b"[]", b"null", b'{"kind": 3}', b'{"kind": "message"}',
                     b'{"kind":"message","message":{"role":"tool","call_id":"zz","content":"x"}}',
                     b'{"kind":"history","messages":[{"role":"assistant","content":[{"type":"tool_call",'
                     b'"id":"q","name":"n"}]}]}',
                     b'{"kind":"checkpoint","content":[{"type":"text","text":"z"}]}',
                     b'{"kind":"header","version":99}', b"\xff\xfe\x00", b"\n\n\n"]),
)
edits = st.lists(
    st.tuples(st.sampled_from(["replace", "insert", "truncate", "flip"]), st.integers(0, 20), junk),
    max_size=4,
)


def apply(edits_: list[tuple[str, int, bytes]]) -> tuple[bytes, int]:
    """The damaged file and how many of the first lines are untouched."""
    lines = list(LINES)
    intact = len(lines)
    for op, at, data in edits_:
        i = at % (len(lines) + 1)
        if op == "insert":
            lines.insert(i, data)
        elif op == "replace" and i < len(lines):
            lines[i] = data
        elif op == "truncate" and i < len(lines):
            lines[i] = lines[i][: len(data) % (len(lines[i]) + 1)]
        elif op == "flip" and i < len(lines) and lines[i]:
            pos = len(data) % len(lines[i])
            lines[i] = lines[i][:pos] + bytes([lines[i][pos] ^ 0x55]) + lines[i][pos + 1 :]
        else:
            continue
        intact = min(intact, i)
    return b"\n".join(lines), intact


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(edits, st.binary(max_size=100), st.booleans())
def test_the_loader_survives_any_damage(
    edits_: list[tuple[str, int, bytes]], tail: bytes, newline: bool
) -> None:
    data, intact = apply(edits_)
    data = data + (b"\n" if newline else b"") + tail
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "s.jsonl"
        path.write_bytes(data)
        loaded = load_session(path)  # no exception escapes
    assert history_is_valid(loaded.messages)
    rewrites = any(b'"history"' in e[2] for e in edits_)  # a history record replaces, by design
    if intact >= 2 and not rewrites:  # header and the first user message untouched: they are kept
        assert loaded.messages[:1] == EXPECTED_PREFIX
        assert loaded.meta["id"] == "s1"
    if intact == len(LINES) and not rewrites:
        assert loaded.messages[:4] == _good_messages()[:4]


def _good_messages() -> list[object]:
    from shell.sessions.codec import message_from_dict

    return [message_from_dict(r["message"]) for r in GOOD if r["kind"] == "message"]


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=2000))
def test_arbitrary_bytes_never_raise(data: bytes) -> None:
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "x.jsonl"
        path.write_bytes(data)
        loaded = load_session(path)
    assert history_is_valid(loaded.messages)
