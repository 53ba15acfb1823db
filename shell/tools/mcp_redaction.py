"""An MCP tool's answer without the secret values this run knows (finding V3).

A server is handed its keys in its settings (``env``, ``headers``, a URL's token) and
often says them back: a debug or ``get-env`` tool, an "invalid key sk-…" error, a
config dump. ``read_file`` and ``grep`` show the same keys as ``[REDACTED]``; an MCP
result went to the model, the provider's logs, the session file and the editor as the
server wrote it. Every result and error of every server passes here before anything
sees it, and the values the one secrets policy knows
(:func:`shell.permissions.sandboxenv.known_secret_values`: the environment's secret
variables, the config's provider and MCP keys, an editor's servers' env, a trusted
``.mcp.json``'s, each also URL-encoded) are replaced by :class:`shell.core.secrets.Secrets`,
the one redactor. A note says how many, so the model does not retry for a value
it cannot have. Shapes alone (a token the run does not know) are not redacted here:
a server's answer is the user's data (a repository's test fixture, a JWT being
debugged); the session file still redacts them by shape.
"""

from __future__ import annotations

from dataclasses import replace

from shell.core.messages import DataBlock, TextBlock, ToolResult
from shell.core.secrets import Secrets
from shell.permissions.sandboxenv import known_secret_values


def _known() -> Secrets:
    """The run's known secret values, as one matcher (compiled once per set of values)."""
    return Secrets(known_secret_values(), patterns=False)


def redaction_note(count: int) -> str:
    """What the model reads after a result that held ``count`` known values."""
    n = f"{count} value{'s' if count != 1 else ''}"
    return (f"[agent-shell: {n} of this run's own keys (the environment's or the config's, an MCP "
            "server's env or headers) were redacted from this result]")


def without_known_secrets(result: ToolResult, secrets: Secrets | None = None) -> ToolResult:
    """``result`` with every known secret value in its text, its text blocks and its
    details (structured content) replaced by ``[REDACTED]``, and a note saying how
    many; the same result when it holds none. Images and audio pass as they are."""
    known = secrets if secrets is not None else _known()
    if not known.values:
        return result
    found = 0
    content: str | tuple[TextBlock | DataBlock, ...]
    if isinstance(result.content, str):
        found += len(known.matches(result.content))
        content = known.text(result.content)
    else:
        blocks: list[TextBlock | DataBlock] = []
        for block in result.content:
            if isinstance(block, TextBlock):
                found += len(known.matches(block.text))
                block = TextBlock(known.text(block.text))
            blocks.append(block)
        content = tuple(blocks)
    details = known.json(result.details) if result.details is not None else None
    if not found and details == result.details:
        return result
    note = redaction_note(max(found, 1))
    content = f"{content}\n{note}" if isinstance(content, str) else (*content, TextBlock(note))
    return replace(result, content=content, details=details)


__all__ = ["redaction_note", "without_known_secrets"]
