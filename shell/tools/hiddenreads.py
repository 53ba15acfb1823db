"""What ``read_file`` and ``grep`` return, without the values of the workspace's
secret files (other than the one the call read).

Reading ``.env`` asks first, and ``grep`` does not search it; but the same key can
sit in a file with a harmless name: a copy, a backup a tool wrote, notes, a log.
The sandbox's search for secret files (:class:`shell.permissions.secretfiles
.SecretFileIndex`, cached per folder) names the files, and :mod:`shell.permissions
.hiddenvalues` the values they hold (cached per file by its stat); those values are
redacted from the result, and a note says how many and whose. A call that reads the
secret file itself (asked about, or run unasked where nothing asks) shows it as it
is: that file's values are left out.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

from shell.core.messages import ToolResult
from shell.permissions.hiddenvalues import hidden_values, redacted_note
from shell.permissions.sandbox import Sandbox


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
    found = sandbox.secret_files()
    if not found.paths:
        return result
    shown = [p for p in found.paths if read is not None and p == read]
    values = hidden_values([p for p in found.paths if p not in shown], shown, found.relative, supplied,
                           roots=sandbox.roots())
    text, hit = values.redact(result.content)
    if not hit:
        return result
    details = dict(result.details) if isinstance(result.details, dict) else {}
    details["redacted_values"] = len(hit)
    return dataclasses.replace(result, content=f"{text}\n{redacted_note(hit)}", details=details)
