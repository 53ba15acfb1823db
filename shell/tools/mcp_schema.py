"""Whether an MCP tool's ``inputSchema`` can be used: checked once, when its server connects.

The SDK accepts any object as a schema. One with ``"type": 5`` made every call of
the tool end the reply (our argument check raised TypeError), and a provider that
checks the schemas it is sent (OpenAI does) would refuse every request that offers
it, so one broken tool would stop the whole conversation. A tool whose schema is
not valid JSON Schema (the draft it names, else 2020-12, MCP's default) or does not
describe an object of arguments is refused: it is not offered to the model, and
the server's status says which tool and why, so the user can tell its author.
What a server offers is also bounded here (see :data:`MAX_TOOLS`).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any


def schema_problem(schema: Any) -> str | None:
    """What is wrong with ``schema`` as a tool's parameters, or None when it is usable."""
    if not isinstance(schema, Mapping):
        return "its inputSchema is not an object"
    if schema.get("type", "object") != "object":
        return f"its inputSchema describes {json.dumps(schema.get('type'))[:40]}, not an object of arguments"
    import jsonschema  # type: ignore[import-untyped]  # the SDK's own dependency
    from jsonschema.validators import validator_for  # type: ignore[import-untyped]

    try:
        validator_for(schema, default=jsonschema.Draft202012Validator).check_schema(schema)
    except jsonschema.SchemaError as exc:
        where = ".".join(str(p) for p in exc.absolute_path) or "the top level"
        return f"its inputSchema is not valid JSON Schema, at {where}: {exc.message[:160]}"
    except RecursionError:
        return "its inputSchema is nested too deep to check"
    except Exception as exc:  # a schema that breaks the checker is not one we can use
        return f"its inputSchema cannot be checked ({type(exc).__name__})"
    return None


MAX_TOOLS = 128
"""Tools of one server offered to the model: every tool's name, description and
schema go with every request, and 128 is the most OpenAI's API takes. A server
listing 10,000 sent about 2 MB with each request, more than any context."""
MAX_DESCRIPTION = 8_000
"""Characters of a tool's description kept (about 2k tokens; real ones are far shorter)."""
MAX_SCHEMA = 32_000
"""Characters of a tool's ``inputSchema`` (as JSON) accepted, for the same reason."""


def refuse_unusable(tools: Iterable[dict[str, Any]]) -> tuple[list[dict[str, Any]], list[tuple[str, str]]]:
    """``(usable, refused)``: the tools that can be offered to the model, their
    descriptions cut at :data:`MAX_DESCRIPTION` characters, and ``(name, why)`` for
    the others (a schema that cannot be used or is over :data:`MAX_SCHEMA`, the
    tools after the first :data:`MAX_TOOLS`). A schema is checked once however many
    tools share it (a server with hundreds of tools often repeats one); run it in a
    thread (it takes ~1 ms each)."""
    usable: list[dict[str, Any]] = []
    refused: list[tuple[str, str]] = []
    seen: dict[str, str | None] = {}
    for info in tools:
        if len(usable) >= MAX_TOOLS:
            refused.append((str(info.get("name")), f"the server offers more than {MAX_TOOLS} tools and only "
                            f"the first {MAX_TOOLS} are offered to the model"))
            continue
        info = _description_cut(info)
        schema = info.get("inputSchema")
        if schema is None:  # no schema: no parameters (McpTool supplies the empty object)
            usable.append(info)
            continue
        try:
            key = json.dumps(schema, sort_keys=True)
        except (TypeError, ValueError, RecursionError):
            key = None
        if key is not None and len(key) > MAX_SCHEMA:
            problem: str | None = (f"its inputSchema is {len(key):,} characters (at most {MAX_SCHEMA:,} "
                                   "are taken)")
        else:
            problem = seen.get(key) if key is not None and key in seen else schema_problem(schema)
        if key is not None:
            seen[key] = problem
        if problem is None:
            usable.append(info)
        else:
            refused.append((str(info.get("name")), problem))
    return usable, refused


def _description_cut(info: dict[str, Any]) -> dict[str, Any]:
    text = info.get("description")
    if not isinstance(text, str) or len(text) <= MAX_DESCRIPTION:
        return info
    note = f" [description cut: {len(text):,} characters, the first {MAX_DESCRIPTION:,} shown]"
    return {**info, "description": text[:MAX_DESCRIPTION] + note}
