"""A server's ``tools/list`` read tool by tool: one broken entry costs only itself.

The SDK validates a ``tools/list`` answer whole, so one entry it refuses (no
``inputSchema``, a name that is a number, ``"annotations": "x"``, an
``outputSchema`` that describes a string) failed the whole answer, and the server
with every one of its tools: "the server's ListToolsResult is not valid MCP:
tools.1.inputSchema: Field required". :class:`LenientListing` sees each answer
to a ``tools/list`` before the SDK does (on the wire, so it works whatever the
SDK version) and takes out each entry the SDK would refuse, with the same checks
the SDK makes, remembering which (its model-safe name, or its place in the list
when it has no usable name) and why; the server's status then says so with the
tools refused for their schema (:func:`refusal_note`). A page that passes whole
(the usual case) is checked once, not entry by entry.

What a server lists is bounded too: at most :data:`MAX_LISTED` tools are read
(a page holding more is cut before the SDK parses it) and at most
:data:`MAX_PAGES` pages, so a server that pages without end, or in a circle of
cursors, or with empty pages, is not read for ever.
"""

from __future__ import annotations

import importlib
import json
from typing import Any

from shell.core.deepjson import loads_any_depth
from shell.core.textsafety import path_text, sanitize_line

from .mcp_results import tool_name

MAX_LISTED = 10_000
"""Tools of one server read from its ``tools/list`` (128 are offered; the rest are counted)."""
MAX_PAGES = 100
"""Pages of one server's ``tools/list`` read (a real server sends one, or a few)."""
MAX_DEPTH = 100
"""JSON levels one tool entry may nest (a real schema has a handful; the SDK's parser
gives up around 200, and then on the whole answer)."""
TOO_DEEP = "x-agent-shell-too-deep"
"""The key of the stand-in for an entry nested deeper than :data:`MAX_DEPTH`."""
DEFAULT_VERSION = "2025-11-25"
"""The protocol version the SDK checks an answer against before the handshake settled one."""


class LenientListing:
    """Filters the answers to one server's ``tools/list`` requests (see the module)."""

    def __init__(self, server: str) -> None:
        self.server = server
        self.skipped: list[tuple[str, str]] = []
        """``(label, why)`` for each entry taken out, in the order they came."""
        self.read = 0
        """Entries seen so far, over every page (an entry's place is counted from 1)."""
        self.cut = ""
        """Why the listing is not whole (cut at :data:`MAX_LISTED` tools or :data:`MAX_PAGES`
        pages, a cursor that is not a string), or ``""``."""

    def keep_valid(self, result: Any, version: str | None) -> Any:
        """``result`` (a ``tools/list`` answer as on the wire) with only the entries
        the SDK accepts, at most :data:`MAX_LISTED` over all pages. What is not a
        list of tools at all is left to the SDK, which fails the listing saying so."""
        if not isinstance(result, dict) or not isinstance(result.get("tools"), list):
            return result
        tools: list[Any] = result["tools"]
        room = max(0, MAX_LISTED - self.read)
        if len(tools) > room:
            tools, self.cut = tools[:room], f"only its first {MAX_LISTED:,} tools were read"
        start, self.read = self.read, self.read + len(tools)
        cursor = result.get("nextCursor")
        fixed = dict(result, tools=tools)
        if cursor is not None and not isinstance(cursor, str):
            del fixed["nextCursor"]  # the pages after it cannot be asked for
            self.cut = (f"its list gave a nextCursor that is not a string after {self.read:,} "
                        f"tool{'s' if self.read != 1 else ''}")
        if _problem(fixed, version) is None:
            return fixed
        kept = []
        for place, entry in enumerate(tools, start + 1):
            why = entry_problem(entry, version)
            if why is None:
                kept.append(entry)
            else:
                self.skipped.append((self._label(entry, place), why))
        return dict(fixed, tools=kept)

    def _label(self, entry: Any, place: int) -> str:
        name = entry.get("name", entry.get(TOO_DEEP)) if isinstance(entry, dict) else None
        if isinstance(name, str) and name:
            return tool_name(self.server, name)  # model-safe: letters, digits, _ and -, at most 64
        return f"tool #{place:,} of its list"


def entry_problem(entry: Any, version: str | None) -> str | None:
    """Why the SDK would refuse ``entry`` of a ``tools/list``, in a few words, or None."""
    if not isinstance(entry, dict):
        return "it is not a JSON object"
    if TOO_DEEP in entry:
        return f"it is nested more than {MAX_DEPTH} levels deep"
    if "name" not in entry:
        return "it has no name"
    if not isinstance(entry["name"], str):
        return f"its name is a JSON {_json_kind(entry['name'])}, not a string"
    return _problem({"tools": [entry]}, version, strip=2)


def _problem(page: dict[str, Any], version: str | None, strip: int = 0) -> str | None:
    """Why the SDK would refuse ``page`` as a ``tools/list`` answer, or None. ``strip``:
    leading parts of the error's location to leave out (``tools.0.`` for one entry)."""
    from mcp import types

    try:
        try:
            types.ListToolsResult.model_validate(page, by_name=False)
        except TypeError:  # a pydantic without ``by_name`` (mcp 1.x)
            types.ListToolsResult.model_validate(page)
        check = _surface_check()
        if check is not None:
            try:
                check("tools/list", version or DEFAULT_VERSION, page)
            except (KeyError, LookupError):
                pass  # a version or method the SDK has no contract for: it does not check either
    except RecursionError:
        return f"it is nested more than {MAX_DEPTH} levels deep"
    except Exception as exc:
        return _said(exc, strip)
    return None


def shallow_entries(message: Any) -> Any:
    """``message`` (an answer as Python data, read with no depth limit) with each
    entry of its ``result.tools`` nested deeper than :data:`MAX_DEPTH` replaced by
    a stand-in :func:`entry_problem` names: one schema nested 3,000 deep made the
    whole answer unreadable (the server failed with all its tools)."""
    result = message.get("result") if isinstance(message, dict) else None
    tools = result.get("tools") if isinstance(result, dict) else None
    if isinstance(tools, list):
        for place, entry in enumerate(tools):
            if _deeper_than(entry, MAX_DEPTH):
                name = entry.get("name") if isinstance(entry, dict) else None
                tools[place] = {TOO_DEEP: name if isinstance(name, str) else None}
    return message


MAX_DEEP_LIST = 256 * 1024
"""Characters of an answer read at any depth: a pure Python parser, in the event loop,
~0.15 s for a schema nested 3,000 deep (110 kB); what is longer is left as it came."""


def readable_listing(text: str) -> str | None:
    """``text``, an answer to ``tools/list`` as an HTTP server sent it, written again
    with each entry nested deeper than :data:`MAX_DEPTH` replaced by its stand-in
    (see :func:`shallow_entries`), or None when it has none (or cannot be read): the
    SDK reads an HTTP answer whole, so one tool nested 3,000 deep failed the server."""
    try:
        try:
            message = json.loads(text)
        except RecursionError:
            if len(text) > MAX_DEEP_LIST:
                return None
            message = loads_any_depth(text)
        tools = message.get("result", {}).get("tools") if isinstance(message, dict) else None
        if not isinstance(tools, list) or not any(_deeper_than(entry, MAX_DEPTH) for entry in tools):
            return None
        return json.dumps(shallow_entries(message))
    except (ValueError, RecursionError, AttributeError):
        return None  # not JSON, or deep outside its tools: the SDK says what it says


def _deeper_than(value: Any, limit: int) -> bool:
    stack = [(value, 0)]
    while stack:
        node, depth = stack.pop()
        if depth > limit:
            return True
        children = node.values() if isinstance(node, dict) else node if isinstance(node, list) else ()
        stack.extend((child, depth + 1) for child in children if isinstance(child, (dict, list)))
    return False


def _surface_check() -> Any:
    """The SDK's per-version check of a result (mcp 2.x), or None."""
    try:
        module = importlib.import_module("mcp_types.methods")
    except ImportError:
        return None
    return getattr(module, "validate_server_result", None)


def _said(exc: Exception, strip: int) -> str:
    """A pydantic error as ``not valid MCP: inputSchema: Field required``, made safe
    to show and short (its location may hold the server's own keys)."""
    errors = getattr(exc, "errors", None)
    if callable(errors):
        try:
            found = list(errors(include_input=False))
        except Exception:
            found = []
        if found:
            first = found[0]
            where = ".".join(str(p) for p in tuple(first.get("loc", ()))[strip:]) or "the entry"
            where = where if len(where) <= 80 else where[:80] + "…"
            more = f" (and {len(found) - 1} more)" if len(found) > 1 else ""
            return sanitize_line(f"it is not valid MCP: {where}: {str(first.get('msg', ''))[:120]}{more}")
    return sanitize_line(f"it cannot be read ({type(exc).__name__})")


def _json_kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    return "array" if isinstance(value, list) else "object"


async def list_all_tools(session: Any, listing: LenientListing) -> list[dict[str, Any]]:
    """Every page of ``tools/list`` as plain dicts (camelCase keys, as on the wire),
    up to :data:`MAX_LISTED` tools and :data:`MAX_PAGES` pages: a server that pages
    without end (the same cursor again, a circle of cursors, empty pages) is not read
    for ever, nor kept in memory whole. ``listing`` filters the answers on the wire."""
    tools: list[dict[str, Any]] = []
    cursor: str | None = None
    asked: set[str] = set()
    for _ in range(MAX_PAGES):
        if cursor is None:
            page = await session.list_tools()
        else:
            from mcp.types import PaginatedRequestParams

            page = await session.list_tools(params=PaginatedRequestParams(cursor=cursor))
        data = page.model_dump(by_alias=True, mode="json", exclude_none=True)
        tools.extend(data.get("tools", []))
        cursor = data.get("nextCursor")
        if cursor in asked:
            listing.cut = listing.cut or "its list gave a page cursor a second time, so the pages stop there"
        if not cursor or cursor in asked:
            return tools[:MAX_LISTED]
        asked.add(cursor)
        if len(tools) >= MAX_LISTED:
            listing.cut = listing.cut or f"only its first {MAX_LISTED:,} tools were read"
            return tools[:MAX_LISTED]
    listing.cut = listing.cut or f"only the first {MAX_PAGES} pages of its list were read"
    return tools


def refusal_note(refused: list[tuple[str, str]], cut: str = "") -> str:
    """What a ready server's status says about the tools it was refused (one line):
    ``refused`` holds ``(label, why)``, each label safe to show; ``cut``: why the
    list was not read whole, if it was not."""
    if not refused and not cut:
        return ""
    by_reason: dict[str, list[str]] = {}
    for label, why in refused:
        by_reason.setdefault(why, []).append(label)
    parts = []
    for why, labels in list(by_reason.items())[:5]:
        more = f" and {len(labels) - 3:,} more" if len(labels) > 3 else ""
        parts.append(f"{', '.join(labels[:3])}{more}: {why}")
    if len(by_reason) > 5:
        parts.append(f"and {len(by_reason) - 5} more reasons")
    end = f"; {cut}" if cut else ""
    if not refused:
        return f"{cut}; tell the server's author"
    count = f"{len(refused):,} tool{'s' if len(refused) != 1 else ''}"
    return f"{count} not offered to the model ({'; '.join(parts)}){end}; tell the server's author"


MAX_SHOWN_NAME = 80
"""Characters of a tool's real name shown, escaped, in a status."""


def hostile_names_note(names: list[tuple[str, str]]) -> str:
    """What a ready server's status says of its tools whose real names hold control,
    bidi or invisible characters (``(real name, offered name)``): they are offered
    under a model-safe name, and the user is told what the server really sent,
    escaped (``look\\x1b]52;…\\x07``), as a sign of what the server is. Before, such a
    tool seemed to vanish without a word (tester finding L2)."""
    hostile = [(path_text(real), offered) for real, offered in names if path_text(real) != real]
    if not hostile:
        return ""
    said = ", ".join(f"{real if len(real) <= MAX_SHOWN_NAME else real[:MAX_SHOWN_NAME] + '…'} as {offered}"
                     for real, offered in hostile[:3])
    more = f" and {len(hostile) - 3:,} more" if len(hostile) > 3 else ""
    count = f"{len(hostile):,} tool{'s' if len(hostile) != 1 else ''}"
    return (f"{count} offered under another name, as the name the server gave holds control or invisible "
            f"characters (shown escaped): {said}{more}")
