"""What ``read_file`` and ``grep`` return, and what an MCP tool answers, without the
values of the workspace's secret files (other than those the call read itself).

Reading ``.env`` asks first, and ``grep`` does not search it; but the same key can
sit in a file with a harmless name: a copy, a backup a tool wrote, notes, a log.
The sandbox's search for secret files (:class:`shell.permissions.secretfiles
.SecretFileIndex`, cached per folder) names the files, and :mod:`shell.permissions
.hiddenvalues` the values they hold (cached per file by its stat); those values are
redacted from the result, and a note says how many and whose. A call that reads the
secret file itself (asked about, or run unasked where nothing asks) shows it as it
is: that file's values are left out.

An MCP server runs as the user, outside the sandbox: a ``search``, a
``read_multiple_files`` or a grep-like tool reads the hidden ``.env`` without naming
it, and nothing asks (finding X15). Its answer passes the same net
(:func:`answer_without_secret_values`): every text the model reads of it.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Collection
from pathlib import Path
from typing import Any

from shell.core.messages import DataBlock, TextBlock, ToolResult
from shell.core.secrets import REDACTED
from shell.core.secretspellings import decoded_lines
from shell.core.textsafety import map_strings
from shell.permissions.hiddenvalues import WHOSE, HiddenValues, hidden_values, redacted_note
from shell.permissions.historysecrets import history_sources
from shell.permissions.sandbox import Sandbox

TEXT_MEDIA = ("text/", "application/json", "application/xml")
"""A blob of these media types is read by the model as text (a resource's file)."""


def without_secret_values(
    result: ToolResult, sandbox: Sandbox, read: Path | None = None, supplied: str = ""
) -> ToolResult:
    """``result`` with the values of the workspace's secret files redacted, except those
    of ``read`` (the file the call itself read, when it read one) and those the call's
    own arguments (``supplied``: grep's pattern, echoed back) hold, whose place a
    redaction would confirm. Call it in a worker thread: it may search the workspace
    and read the secret files."""
    if not isinstance(result.content, str) or not result.content:
        return result
    values = _values(sandbox, () if read is None else (read,), supplied)
    if not values:
        return result
    text, hit = values.redact(result.content)
    if not hit:
        return result
    return dataclasses.replace(result, content=f"{text}\n{redacted_note(hit)}",
                               details=_counted(result.details, len(hit)))


def answer_without_secret_values(
    result: ToolResult, sandbox: Sandbox, read: Collection[Path] = (), supplied: str = ""
) -> ToolResult:
    """An MCP tool's answer through the same net: its text, its text blocks, its text
    blobs (read as their text) and the strings of its details (structured content),
    except the values of the secret files in ``read`` (those the call's arguments named
    and the permission check let through, as ``read_file``'s own file) and those
    ``supplied`` spells. Images and audio pass as they are. Call it in a worker thread."""
    values = _values(sandbox, read, supplied)
    if not values:
        return result
    hit: dict[str, str] = {}

    def plain(text: str) -> str:
        out, found = values.redact(text, spelled=False)
        hit.update(found)
        return out

    def spelled(text: str) -> str:  # after the plain pass over blocks put together (a value cut over two)
        out, found = values.spelled(text)
        hit.update(found)
        out, other = decoded_lines(out, values.secrets, WHOSE)  # the egress check's readings too
        hit.update(values.owners[v] for v in other if v in values.owners)
        return out

    content: str | tuple[TextBlock | DataBlock, ...]
    if isinstance(result.content, str):
        content = spelled(plain(result.content))
    else:
        blocks = _across(tuple(_block(b, plain) for b in result.content), values, hit)
        content = tuple(_block(b, spelled) for b in blocks)
    details = map_strings(result.details, lambda t: spelled(plain(t))) if result.details is not None else None
    if not hit:
        return result
    note = redacted_note(hit)
    content = f"{content}\n{note}" if isinstance(content, str) else (*content, TextBlock(note))
    return dataclasses.replace(result, content=content, details=_counted(details, len(hit)))


def _across(
    blocks: tuple[TextBlock | DataBlock, ...], values: HiddenValues, hit: dict[str, str]
) -> tuple[TextBlock | DataBlock, ...]:
    """``blocks`` with a value cut over two text blocks redacted in each: a provider
    joins a message's text parts with nothing between (OpenAI's API), so the model reads
    it whole, as :mod:`.mcp_redaction` reads the known keys."""
    texts = [b.text for b in blocks if isinstance(b, TextBlock)]
    joined = "".join(texts)
    found = values.secrets.matches(joined) if len(texts) > 1 else []
    spans: list[tuple[int, int]] = []
    for value in dict.fromkeys(found):
        at = joined.find(value)
        while at >= 0:
            spans.append((at, at + len(value)))
            at = joined.find(value, at + len(value))
        if value in values.owners:
            hit.setdefault(*values.owners[value])
    if not spans:
        return blocks
    merged: list[tuple[int, int]] = []
    for a, b in sorted(spans):  # a value and its URL-encoded form may overlap
        if merged and a <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(b, merged[-1][1]))
        else:
            merged.append((a, b))
    out: list[TextBlock | DataBlock] = []
    start = 0
    for block in blocks:
        if not isinstance(block, TextBlock):
            out.append(block)
            continue
        text, end = block.text, start + len(block.text)
        inside = [(max(a, start) - start, min(b, end) - start) for a, b in merged if a < end and b > start]
        for a, b in reversed(inside):
            text = text[:a] + REDACTED + text[b:]
        out.append(TextBlock(text))
        start = end
    return tuple(out)


def _values(sandbox: Sandbox, read: Collection[Path], supplied: str) -> HiddenValues | None:
    """The net for one call: the secret files' values but ``read``'s and ``supplied``'s."""
    found = sandbox.secret_files()
    # a git MCP server's `git_log` prints history (nested repositories' too)
    history = history_sources(sandbox.workspace, seen=found.runs_later)
    if not found.paths and not history:
        return None
    shown = [p for p in found.paths if p in read]
    values = hidden_values([p for p in found.paths if p not in shown], shown, found.relative, supplied,
                           roots=sandbox.roots(), history=history)
    return values or None


def _block(block: TextBlock | DataBlock, redact: Callable[[str], str]) -> TextBlock | DataBlock:
    if isinstance(block, TextBlock):
        return TextBlock(redact(block.text))
    if not block.media_type.lower().startswith(TEXT_MEDIA):
        return block
    text = block.data.decode("utf-8", "replace")
    redacted = redact(text)
    return block if redacted == text else TextBlock(redacted)


def _counted(details: Any, count: int) -> dict[str, Any]:
    out = dict(details) if isinstance(details, dict) else {}
    out["redacted_values"] = count
    return out
