"""An MCP tool's answer through the workspace's hidden-values net (finding X15).

A server runs as the user, outside the sandbox: a ``search``, ``read_multiple_files``
or grep-like tool reads the hidden ``.env`` and says its values back without naming
it, so no question was asked. :func:`shell.tools.hiddenreads.answer_without_secret_values`
(the one net ``read_file``, ``grep`` and ``run_shell`` use) redacts them, with its note.

What the call named itself is shown as it is, as ``read_file`` shows the file it read:
a secret file among the paths its arguments name (:func:`shell.permissions.mcppaths
.mcp_paths`, resolved against the workspace as the policy resolves them) passed the
policy's secret-file question (asked, or run unasked where nothing asks), so the
user let this call see that file. Any other secret file's values are redacted.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from shell.core.messages import ToolResult
from shell.core.textsafety import map_strings
from shell.permissions import paths as resolving
from shell.permissions.mcppaths import TooManyPaths, mcp_paths
from shell.permissions.sandbox import Sandbox

from .hiddenreads import answer_without_secret_values


def named_files(args: Mapping[str, Any], schema: Mapping[str, Any], roots: Sequence[Path]) -> list[Path]:
    """The real paths a call's arguments name (none past the policy's bound: such a call
    was asked about as a whole, and no one file of it was)."""
    if not roots:
        return []
    try:
        found = mcp_paths(args, schema)
    except TooManyPaths:
        return []
    named = []
    for path in found:
        try:
            named.append(Path(resolving.real(path, roots[0])))
        except (resolving.BadPath, OSError):
            continue  # names no file: nothing of it is shown
    return named


def spelled(args: Mapping[str, Any]) -> str:
    """Every string of a call's arguments, one a line (as the model wrote them)."""
    leaves: list[str] = []

    def gather(leaf: str) -> str:
        leaves.append(leaf)
        return leaf

    map_strings(dict(args), gather)
    return "\n".join(leaves)


def answer_without_hidden_values(
    result: ToolResult, sandbox: Sandbox, args: Mapping[str, Any], schema: Mapping[str, Any],
    roots: Sequence[Path],
) -> ToolResult:
    """``result`` without the values of the secret files the call did not name, nor
    those its arguments spell (the model wrote them: a ``[REDACTED]`` where its guess
    stands would confirm it). Call it in a worker thread."""
    return answer_without_secret_values(result, sandbox, named_files(args, schema, roots), spelled(args))


__all__ = ["answer_without_hidden_values", "named_files", "spelled"]
