"""The policy's checks on the paths a call names: a deny on reading them, a secret
file among them, and what of them runs later as the user.

Kept apart from :mod:`.policy`, which orders the verdicts: these only find what is
wrong with a path, for built-in tools (their ``path``) and MCP tools (every path
their arguments name, :func:`.mcppaths.subject_paths`) alike, so that no check sees
one tool's paths another way.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from shell.core.secretcontent import secret_content_why
from shell.core.secrets import is_secret_file, secret_file_why
from shell.core.tools import READ_KINDS, Tool

from . import asktext
from .asktext import NAMES_ONLY
from .configtables import config_edit_why
from .laternames import Reason
from .mcppaths import is_mcp, subject_paths
from .rules import CallPaths

if TYPE_CHECKING:
    from .sandbox import Sandbox



def has_other_names(path: str) -> bool:
    """Whether the file at ``path`` has more than one name (a hard link)."""
    try:
        return os.stat(path).st_nlink > 1
    except OSError:
        return False

def read_denied_by_rule(tool: Tool, args: Mapping[str, Any], read_denied: Callable[[str], str]) -> str:
    """For a tool other than ``read_file`` that reads what is in the file it is given
    (``grep``, an MCP server's read tool): the deny rule on reading that path, or empty.
    Listing names (``list_dir``, ``glob``) reads no content."""
    if tool.name in NAMES_ONLY or not (tool.kind in READ_KINDS or is_mcp(tool)):  # any MCP tool may read
        return ""
    hit = next(((path, d) for path in subject_paths(tool, args) if (d := read_denied(path))), None)
    return f"{hit[1]} denies reading {hit[0]}" if hit else ""


def secret_read(tool: Tool, args: Mapping[str, Any], paths: CallPaths, sandbox: Sandbox | None) -> str:
    """Why a read, search or edit of this path asks (it is, or leads to, a file
    that usually holds secrets), or empty. An edit asks in every mode but bypass
    too: overwriting ``.env`` loses the user's keys, and an edit the model aims
    there is what an injected prompt would do (its diff is kept from the model:
    :func:`shell.tools.file_edits._model_diff`)."""
    if not (tool.kind in ("read", "search", "edit") or is_mcp(tool)):
        return ""
    for secret in subject_paths(tool, args):  # an MCP tool's `paths`, `file`, `file://` URI too
        real, rel = paths.path(secret)  # a link named notes.txt may lead to .env
        named = next((p for p in (secret, real) if is_secret_file(p)), "") or hard_link_of(real, sandbox)
        held = "" if named else secret_content_why(real)  # a service-account key, a settings.xml password
        if named or held:
            named = named or secret
            break
    else:
        return ""
    via = ("" if named == secret else f" (a link to {rel if rel is not None else real})" if named == real
           else f" (a hard link of {named}: the same file)")
    return asktext.secret_question(tool, f"{secret}{via}", held or secret_file_why(named), is_mcp(tool))


def hard_link_of(real: str, sandbox: Sandbox | None) -> str:
    """The secret-named file ``real`` is another name of (``ln .env notes.txt``), or empty."""
    if sandbox is None or not has_other_names(real):
        return ""
    return sandbox.secrets_searched().other_name_of(real)


def runs_later_hit(
    tool: Tool, args: Mapping[str, Any], paths: CallPaths, roots: Sequence[Path], sandbox: Sandbox | None
) -> tuple[Path, Reason] | None:
    """What of a path an edit would touch (any an MCP tool is given) runs later as
    the user, outside any sandbox, and why (:func:`.laterhit.runs_later`), or None.
    (:mod:`.laterhit` and what it reads are imported at the first edit, not at start.)"""
    from .laterhit import runs_later

    nested = sandbox.secrets_searched().runs_later if sandbox is not None else ()
    tops = {r.as_posix() for r in roots}
    hits = (runs_later(paths.path(p)[0], tops, nested) for p in subject_paths(tool, args))
    hit = next((hit for hit in hits if hit), None)  # resolved as the rules resolved it
    if hit is not None or is_mcp(tool):
        return hit
    for p in subject_paths(tool, args):  # pyproject.toml's [tool.pylint]: only when the edit changes it
        real = paths.path(p)[0]
        reason = config_edit_why(real, tool.name, args)
        if reason:
            return Path(real), Reason(reason)
    return None


__all__ = ["hard_link_of", "read_denied_by_rule", "runs_later_hit", "secret_read"]
