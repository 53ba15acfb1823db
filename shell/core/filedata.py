"""TOML and JSON written by someone else, read without crashing on their depth.

``tomllib`` and ``json`` recurse once per level of nesting, so a file nested
50,000 deep (``allow = [[[[…`` in a cloned repository's ``permissions.toml``,
``{"mcpServers": [[[…`` in its ``.mcp.json``) raises ``RecursionError``, not the
decode error every caller catches: the TUI froze on ``/trust`` and the line mode
died with a traceback. These raise the decode error (``ValueError`` for JSON)
instead, so such a file is "cannot be read" like any other broken one.
"""

from __future__ import annotations

import json
import tomllib
from typing import Any

TOO_DEEP = "it is nested too deep to read"


def toml_loads(text: str) -> dict[str, Any]:
    """``tomllib.loads``; ``TOMLDecodeError`` for a document nested too deep."""
    try:
        return tomllib.loads(text)
    except RecursionError:
        raise tomllib.TOMLDecodeError(TOO_DEEP) from None


def json_loads(text: str | bytes) -> Any:
    """``json.loads``; ``ValueError`` (as for any bad JSON) for a document nested too deep."""
    try:
        return json.loads(text)
    except RecursionError:
        raise ValueError(TOO_DEEP) from None
