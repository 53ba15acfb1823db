"""The SDK's ``ClientSession``, with a tool output check that keeps the result.

A tool that declares an ``outputSchema`` and returns structured content that does
not match it (or none) makes the SDK raise, and the call's text content, which the
model could have used, is lost with it: the model saw only "Invalid structured
content". MCP says a client SHOULD check such results, and we do; what failed is
said next to the content instead (:meth:`Session.schema_problem`).
"""

from __future__ import annotations

from typing import Any

from mcp import ClientSession


class Session(ClientSession):
    """A ``ClientSession`` whose output-schema check records instead of raising."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._problems: dict[int, str] = {}

    def settled_version(self) -> str | None:
        """The protocol version the handshake settled (what the SDK checks answers
        against), or None before it did or in an SDK that does not say."""
        version = getattr(self, "protocol_version", None)  # mcp 2.x; 1.x checks no version
        return version if isinstance(version, str) else None

    def schema_problem(self, result: object) -> str | None:
        """What the check found wrong with ``result`` (once), or None."""
        return self._problems.pop(id(result), None)

    async def validate_tool_result(self, name: str, result: Any) -> None:
        await self._check(getattr(super(), "validate_tool_result", None), name, result)

    async def _validate_tool_result(self, name: str, result: Any) -> None:  # mcp < 1.2x spells it so
        await self._check(getattr(super(), "_validate_tool_result", None), name, result)

    async def _check(self, check: Any, name: str, result: Any) -> None:
        if check is None:
            return
        try:
            await check(name, result)
        except RuntimeError as exc:
            if len(self._problems) > 256:  # never read back (a cancelled call): not kept for ever
                self._problems.clear()
            self._problems[id(result)] = _short(exc)


def _short(exc: RuntimeError) -> str:
    """Where and what the schema wanted (``at $.n: type 'integer'``), without the
    value itself: jsonschema's own message starts by quoting it, as large as the
    server made it."""
    error = exc.__cause__
    where = getattr(error, "json_path", None)
    validator = getattr(error, "validator", None)
    if isinstance(where, str) and isinstance(validator, str):
        wanted = repr(getattr(error, "validator_value", ""))
        wanted = wanted if len(wanted) <= 120 else wanted[:120] + "…"
        return f"at {where}: the schema wants {validator} {wanted}"
    return str(exc)
