"""The JSON argument editor every front end uses: any text gives arguments that fit
the schema or a ValueError with a message; nothing else escapes (fuzzed)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from shell.agent import ApprovalRequest, Tool, ToolArgumentError, ToolCallBlock, tool
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
    with pytest.raises(ToolArgumentError, match="Missing required argument: content"):
        parse_edited_args(REQUEST, '{"path": "x.txt"}')
    with pytest.raises(ValueError, match=r"Not valid JSON: .* \(line 1, column \d+\)"):
        parse_edited_args(REQUEST, '{"path": ')
    with pytest.raises(ValueError, match="must be a JSON object"):
        parse_edited_args(REQUEST, "[1, 2]")


def test_an_argument_the_tool_does_not_know_is_refused_with_what_it_takes() -> None:
    """``{"path", "content", "extra": 1}`` was "valid": the tool ignores ``extra`` (or a
    typo like ``contnet``), so the user would run something other than what they wrote."""
    takes = "write_file takes: path (string, required), content (string, required), mode (integer)."
    with pytest.raises(ToolArgumentError) as caught:
        parse_edited_args(REQUEST, '{"path": "x.txt", "content": "hi", "extra": 1}')
    assert str(caught.value) == f"Unknown argument: extra. {takes}"
    with pytest.raises(ToolArgumentError) as caught:
        parse_edited_args(REQUEST, '{"path": "x.txt", "contnet": "hi", "b": 2}')
    assert str(caught.value) == f"Unknown arguments: contnet, b; missing required argument: content. {takes}"


def test_schemas_that_allow_more_or_declare_nothing_let_any_name_through() -> None:
    for schema in ({"type": "object"},
                   {"type": "object", "properties": {"a": {}}, "additionalProperties": True},
                   {"type": "object", "properties": {"a": {}}, "additionalProperties": {"type": "string"}}):
        request = ApprovalRequest(ToolCallBlock("c", "mcp_tool", {}), _SchemaTool(schema), {})
        assert parse_edited_args(request, '{"a": 1, "b": 2}') == {"a": 1, "b": 2}
    strict = ApprovalRequest(ToolCallBlock("c", "mcp_tool", {}), _SchemaTool({"properties": {}}), {})
    with pytest.raises(ToolArgumentError, match=r"Unknown argument: b\. mcp_tool takes no arguments\."):
        parse_edited_args(strict, '{"b": 2}')


def test_hostile_or_many_names_are_shown_safely_and_capped() -> None:
    names = {f"p{i}": {"type": "string"} for i in range(40)} | {"\x1b[31mred": {"type": "string"}}
    request = ApprovalRequest(ToolCallBlock("c", "mcp_tool", {}), _SchemaTool({"properties": names}), {})
    with pytest.raises(ToolArgumentError) as caught:
        parse_edited_args(request, json.dumps({f"x{i}": 1 for i in range(30)} | {"\x1b[2J": 1}))
    said = str(caught.value)
    assert "\x1b" not in said and "and 19 more" in said and "and 29 more." in said


class _SchemaTool(Tool):
    def __init__(self, schema: dict[str, Any]) -> None:
        super().__init__("mcp_tool", "", schema)

    async def run(self, args: dict[str, Any], context: Any) -> Any:
        return ""


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
