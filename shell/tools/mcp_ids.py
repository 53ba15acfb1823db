"""The JSON-RPC id of an answer that cannot be read whole, found at either end.

An answer too large to keep (a stdio line or an SSE event over 32 MB) or too deep
to parse is still an answer to one request: which one decides whether one call
fails at once or several wait. The SDKs write the id first (Python: ``jsonrpc``,
``id``, ``result``) or last (TypeScript: ``result``, ``jsonrpc``, ``id``), so the
first and last few kB are searched, never the whole text.
"""

from __future__ import annotations

import re
from typing import Any

from shell.core.filedata import json_loads

SNIFF = 4096
"""Bytes at each end of an answer searched for its id."""

_ID = rb'"id"\s*:\s*(-?\d{1,18}|"(?:[^"\\]|\\.){0,200}")'
_JSONRPC = rb'"jsonrpc"\s*:\s*"2\.0"'
_LEADING = re.compile(rb"\{\s*(?:" + _JSONRPC + rb"\s*,\s*)?" + _ID)
_LEADING_EVENT = re.compile(rb"data:\s?\{\s*(?:" + _JSONRPC + rb"\s*,\s*)?" + _ID)
_TRAILING = re.compile(_ID + rb"\s*(?:,\s*" + _JSONRPC + rb"\s*)?\}\s*$")
_NOTICE = re.compile(rb'(?:data:\s?)?\{\s*(?:' + _JSONRPC + rb'\s*,\s*)?"method"\s*:')


def leading_id(head: bytes, event: bool = False) -> Any:
    """The id an answer begins with (``event``: in an SSE event's ``data:`` line), or None."""
    found = _LEADING_EVENT.search(head) if event else _LEADING.match(head.lstrip())
    return _id(found.group(1)) if found else None


def trailing_id(tail: bytes) -> Any:
    """The id an answer ends with, or None."""
    found = _TRAILING.search(tail)
    return _id(found.group(1)) if found else None


def is_notice(head: bytes) -> bool:
    """Whether a message begins as a request or notification (a ``method`` first): no
    answer to anyone, so nobody waits for it."""
    return _NOTICE.search(head[:SNIFF]) is not None


def _id(raw: bytes) -> Any:
    try:
        value = json_loads(raw)
    except ValueError:
        return None
    return value if isinstance(value, (int, str)) else None
