"""The JSON argument editor every front end uses: any text gives arguments that fit
the schema or a ValueError with a message; nothing else escapes (fuzzed)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from shell.agent import ApprovalRequest, ToolArgumentError, ToolCallBlock, tool
from shell.core.approvals import parse_edited_args


@tool
def write_file(path: str, content: str, mode: int = 0o644) -> str:
    """Write a file."""
    return path


REQUEST = ApprovalRequest(ToolCallBlock("c1", "write_file", {}), write_file, {"path": "a", "content": "b"})
json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=12,
)


def test_valid_edits_come_back_checked() -> None:
    assert parse_edited_args(REQUEST, '{"path": "x.txt", "content": "hi"}') == {
        "path": "x.txt",
        "content": "hi",
    }
    with pytest.raises(ToolArgumentError, match="content: Field required"):
        parse_edited_args(REQUEST, '{"path": "x.txt"}')
    with pytest.raises(ValueError, match=r"Not valid JSON: .* \(line 1, column \d+\)"):
        parse_edited_args(REQUEST, '{"path": ')
    with pytest.raises(ValueError, match="must be a JSON object"):
        parse_edited_args(REQUEST, "[1, 2]")


@settings(max_examples=300, deadline=None)
@given(st.text())
def test_any_text_gives_arguments_or_a_message(text: str) -> None:
    try:
        args = parse_edited_args(REQUEST, text)
    except ValueError as exc:
        assert str(exc)
    else:
        assert write_file.validate(args) == args


@settings(max_examples=300, deadline=None)
@given(json_values)
def test_any_json_value_gives_arguments_or_a_message(value: Any) -> None:
    try:
        args = parse_edited_args(REQUEST, json.dumps(value))
    except ValueError as exc:
        assert str(exc)
    else:
        assert isinstance(args, dict) and isinstance(args["path"], str)


def test_deeply_nested_json_is_refused_not_crashed() -> None:
    with pytest.raises(ValueError):
        parse_edited_args(REQUEST, "[" * 100_000 + "]" * 100_000)
