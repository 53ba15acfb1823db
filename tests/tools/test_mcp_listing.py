"""A server's tools/list with entries the SDK refuses: each bad entry costs only
itself, named with why; the pages and the caps still hold. Real processes
(tests/tools/hostile_mcp_server.py over stdio) and the filter on its own."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import anyio
import pytest

from shell.core.textsafety import is_safe
from shell.tools.mcp import McpManager
from shell.tools.mcp_listing import MAX_LISTED, MAX_PAGES, LenientListing, hostile_names_note, refusal_note

from .conftest import Recorder

SERVER = Path(__file__).with_name("hostile_mcp_server.py")
OBJ = {"type": "object", "properties": {"a": {"type": "string"}}}


def stdio(mode: str) -> dict[str, Any]:
    return {"command": sys.executable, "args": [str(SERVER), mode]}


async def _connect(mode: str, spec: dict[str, Any] | None = None) -> tuple[Any, list[Any], McpManager]:
    mcp = McpManager({"evil": spec or stdio(mode)}, connect_timeout=60)
    await mcp.__aenter__()
    await mcp.wait_settled(90)
    return mcp.status("evil"), mcp.tools(), mcp


@pytest.mark.anyio
@pytest.mark.slow
async def test_one_malformed_tool_costs_only_itself_over_two_pages(recorder: Recorder) -> None:
    """One entry without inputSchema failed the whole tools/list: the server "failed"
    and its good tools were gone with it."""
    status, tools, mcp = await _connect("malformed")
    try:
        assert status.state == "ready"
        assert [t.name for t in tools] == ["evil__ok", "evil__long", "evil__second"]  # page 2 was read too
        message = status.message
        assert message.startswith("7 tools not offered to the model (evil__noschema: it is not valid MCP: "
                                  "inputSchema: Field required; evil__nonsense: it is not valid MCP: "
                                  "inputSchema.properties: ")
        assert "tool #4 of its list: its name is a JSON number, not a string" in message
        assert "tool #5 of its list: it has no name" in message
        assert "tool #6 of its list: it is not a JSON object" in message
        assert message.endswith("and 2 more reasons); tell the server's author")
        assert is_safe(message) and len(message) < 1000  # the escape-laden name is not in it raw
        long = next(t for t in tools if t.name == "evil__long")
        assert len(long.description) < 9_000  # the 10 MB description is cut, the tool kept
        ok = tools[0]
        with anyio.fail_after(30):
            result = await ok.run({"a": "x"}, recorder.context(ok.name, {}))
        assert result.text == 'echo {"a": "x"}'
    finally:
        await mcp.__aexit__(None, None, None)


@pytest.mark.anyio
@pytest.mark.slow
@pytest.mark.parametrize(
    ("mode", "said", "count"),
    [("bad_cursor", "its list gave a nextCursor that is not a string after 1 tool", 1),
     ("empty_pages", f"only the first {MAX_PAGES} pages of its list were read", 0)],
)
async def test_a_listing_that_cannot_go_on_keeps_what_it_read_and_says_so(
    mode: str, said: str, count: int
) -> None:
    """A cursor that is a number failed the whole list; empty pages each with a new
    cursor were asked for without end (the cap counted tools only)."""
    status, tools, mcp = await _connect(mode)
    await mcp.__aexit__(None, None, None)
    assert status.state == "ready"
    assert status.message == f"{said}; tell the server's author"
    assert len(tools) == count


@pytest.mark.anyio
@pytest.mark.slow
@pytest.mark.parametrize("depth", [300, 3000])
async def test_one_tool_nested_too_deep_costs_only_itself(depth: int) -> None:
    """A schema nested 3,000 deep made the whole answer unreadable ("recursion limit
    exceeded"): the server failed with all its tools."""
    status, tools, mcp = await _connect(f"deep_schema_{depth}")
    await mcp.__aexit__(None, None, None)
    assert status.state == "ready"
    assert [t.name for t in tools] == ["evil__good"]
    assert status.message == ("1 tool not offered to the model (evil__deep: it is nested more than 100 "
                              "levels deep); tell the server's author")


@pytest.mark.anyio
@pytest.mark.slow
@pytest.mark.parametrize("mode", ["deep_schema_300", "deep_schema_3000", "deep_schema_sse_3000"])
async def test_one_tool_nested_too_deep_over_http_costs_only_itself(mode: str, recorder: Recorder) -> None:
    """Over streamable HTTP (a JSON answer, or an event stream) the SDK read the list
    whole and failed the server with every tool ("recursion limit exceeded")."""
    from .test_mcp_hostile import http

    with http(mode) as spec:
        status, tools, mcp = await _connect(mode, spec)
        try:
            assert status.state == "ready", status.message
            assert [t.name for t in tools] == ["evil__good"]
            assert status.message == ("1 tool not offered to the model (evil__deep: it is nested more than "
                                      "100 levels deep); tell the server's author")
            with anyio.fail_after(30):
                result = await tools[0].run({"a": "x"}, recorder.context(tools[0].name, {}))
            assert result.text == 'echo {"a": "x"}'
        finally:
            await mcp.__aexit__(None, None, None)


def _listing(*pages: dict[str, Any]) -> tuple[LenientListing, list[dict[str, Any]]]:
    listing = LenientListing("srv")
    return listing, [listing.keep_valid(page, "2025-11-25") for page in pages]


def test_a_page_that_is_valid_is_passed_whole_and_a_bad_entry_is_named_by_its_place() -> None:
    good = {"tools": [{"name": "a", "inputSchema": OBJ}], "nextCursor": "2"}
    bad = {"tools": [{"name": "b", "inputSchema": OBJ}, {"name": None, "inputSchema": OBJ},
                     {"name": "c", "inputSchema": OBJ, "annotations": "x"}]}
    listing, (first, second) = _listing(good, bad)
    assert first == good
    assert second == {"tools": [{"name": "b", "inputSchema": OBJ}]}
    assert listing.skipped == [
        ("tool #3 of its list", "its name is a JSON null, not a string"),
        ("srv__c", "it is not valid MCP: annotations: Input should be a valid dictionary or instance of "
                   "ToolAnnotations"),
    ]
    assert refusal_note(listing.skipped).startswith("2 tools not offered to the model (tool #3 of its list: ")


def test_a_page_over_the_cap_is_cut_before_the_sdk_reads_it() -> None:
    page = {"tools": [{"name": f"t{k}", "inputSchema": OBJ} for k in range(MAX_LISTED + 5)],
            "nextCursor": "x"}
    listing, [kept] = _listing(page)
    assert len(kept["tools"]) == MAX_LISTED
    said = f"only its first {MAX_LISTED:,} tools were read"
    assert listing.cut == said
    assert refusal_note([], listing.cut) == f"{said}; tell the server's author"


def test_what_is_not_a_list_of_tools_is_left_for_the_sdk_to_refuse() -> None:
    listing, [kept] = _listing({"tools": "none"})
    assert kept == {"tools": "none"} and listing.skipped == []


def test_tools_whose_names_hold_control_characters_are_named_escaped_and_plain_renames_are_not() -> None:
    """A tool named ``look\\x1b]52;…\\x07`` seemed to vanish: it was offered under a
    model-safe name the user never saw tied to what the server sent (tester finding L2)."""
    names = [("a.b", "s__a_b_1234abcd"), ("ok", "s__ok")]
    names += [(f"look{k}\x1b]52;c;ZXZpbA==\x07", f"s__look{k}") for k in range(5)]
    names += [("\u202e" + "x" * 200, "s__x")]
    note = hostile_names_note(names)
    assert note.startswith("6 tools offered under another name, as the name the server gave holds "
                           "control or invisible characters (shown escaped): "
                           "look0\\x1b]52;c;ZXZpbA==\\x07 as s__look0, ")
    assert note.endswith(" and 3 more") and is_safe(note) and "a.b" not in note
    assert hostile_names_note(names[:2]) == ""
    long = hostile_names_note([("\u202e" + "x" * 200, "s__x")])
    assert "\\u202e" + "x" * 74 + "… as s__x" in long
