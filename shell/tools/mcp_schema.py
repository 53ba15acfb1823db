"""Whether an MCP tool's ``inputSchema`` can be used: checked once, when its server connects.

The SDK accepts any object as a schema. One with ``"type": 5`` made every call of
the tool end the reply (our argument check raised TypeError), and a provider that
checks the schemas it is sent (OpenAI does) would refuse every request that offers
it, so one broken tool would stop the whole conversation. A tool whose schema is
not valid JSON Schema (the draft it names, else 2020-12, MCP's default) or does not
describe an object of arguments is refused: it is not offered to the model, and
the server's status says which tool and why, so the user can tell its author.
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


def refuse_unusable(tools: Iterable[dict[str, Any]]) -> tuple[list[dict[str, Any]], list[tuple[str, str]]]:
    """``(usable, refused)``: the tools whose schema can be used, and ``(name, why)`` for
    the others. A schema is checked once however many tools share it (a server
    with hundreds of tools often repeats one); run it in a thread (it takes ~1 ms each)."""
    usable: list[dict[str, Any]] = []
    refused: list[tuple[str, str]] = []
    seen: dict[str, str | None] = {}
    for info in tools:
        schema = info.get("inputSchema")
        if schema is None:  # no schema: no parameters (McpTool supplies the empty object)
            usable.append(info)
            continue
        try:
            key = json.dumps(schema, sort_keys=True)
        except (TypeError, ValueError, RecursionError):
            key = None
        problem = seen.get(key) if key is not None and key in seen else schema_problem(schema)
        if key is not None:
            seen[key] = problem
        if problem is None:
            usable.append(info)
        else:
            refused.append((str(info.get("name")), problem))
    return usable, refused
