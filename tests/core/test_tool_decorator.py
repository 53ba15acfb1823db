"""``tool(fn, ...)`` and ``@tool(...)`` make the same tool (task r20-small, item 1).

The direct form dropped every option: ``tool(search, read_only=True)`` went out as a
tool that asks, ``name=`` was ignored and the function's own name offered to the
model. A misspelt option must not pass for a default either.
"""

from __future__ import annotations

from typing import Any

import pytest

from shell.core.tools import FunctionTool, tool


def search(query: str) -> str:
    """Search the notes."""
    return query


async def _layer(ctx: Any, call_next: Any) -> Any:
    return await call_next(ctx)


OPTIONS: dict[str, Any] = {
    "name": "find_notes",
    "description": "Find notes by words.",
    "read_only": True,
    "kind": "search",
    "timeout": 7.5,
    "middleware": [_layer],
}


def _seen(made: FunctionTool) -> tuple[Any, ...]:
    return (made.name, made.description, made.read_only, made.kind, made.timeout, made.middleware)


def test_the_direct_form_applies_every_option_as_the_decorator_form_does() -> None:
    direct = tool(search, **OPTIONS)
    decorated = tool(**OPTIONS)(search)
    assert _seen(direct) == _seen(decorated)
    assert _seen(direct) == ("find_notes", "Find notes by words.", True, "search", 7.5, (_layer,))


@pytest.mark.parametrize("option", sorted(OPTIONS))
def test_each_option_alone_reaches_the_tool_in_the_direct_form(option: str) -> None:
    assert _seen(tool(search, **{option: OPTIONS[option]})) == _seen(
        tool(**{option: OPTIONS[option]})(search)
    )
    assert _seen(tool(search, **{option: OPTIONS[option]})) != _seen(tool(search))


def test_bare_forms_still_take_the_function_name_and_docstring() -> None:
    assert tool(search).name == tool()(search).name == "search"
    assert tool(search).description == "Search the notes."
    assert tool(search).read_only is False


@pytest.mark.parametrize("form", ["direct", "decorator"])
def test_an_unknown_option_is_a_type_error_that_names_it(form: str) -> None:
    with pytest.raises(TypeError) as raised:
        if form == "direct":
            tool(search, read_ony=True)  # type: ignore[call-overload]
        else:
            tool(read_ony=True)(search)  # type: ignore[call-overload]
    message = str(raised.value)
    assert "'read_ony'" in message
    assert "did you mean 'read_only'" in message
    assert "name, description, read_only, kind, timeout, middleware" in message


def test_a_name_given_in_place_of_the_function_says_how_to_give_it() -> None:
    with pytest.raises(TypeError, match=r"give a name as tool\(name=\.\.\.\)"):
        tool("find_notes")  # type: ignore[call-overload]


def test_local_annotations_still_resolve_in_the_direct_form() -> None:
    class Note:
        pass

    def keep(note: Note | None = None) -> str:
        """Keep a note."""
        return ""

    assert tool(keep, name="keep_note").name == "keep_note"
