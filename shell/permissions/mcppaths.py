"""The paths an MCP tool call names, so that every path check sees them.

A built-in file tool takes one ``path``; an MCP server's tool takes whatever its
author chose: ``paths: [...]`` (the filesystem server's ``read_multiple_files``),
``file``, ``filename``, ``uri: file:///...``, ``directory``, ``source`` and
``destination``. The policy's path checks (secret files, deny rules on reading, what
runs later, the workspace boundary) looked at ``path`` alone, so the same file
under another key passed them all (findings J14-J16). This is the one place that
reads an MCP call's arguments for paths; :func:`subject_paths` is what the policy
checks, for built-in and MCP tools alike.

What counts as a path: a string, or a list of strings, under a path-like key
(:data:`PATH_WORDS`, also as the end of a longer name: ``sourcePath``, ``out_dir``)
or under a key the tool's schema marks ``format: uri``/``path``, at any depth
(``edits: [{"path": ...}]``); and any string that is a ``file:`` URI, whatever its
key. URIs are decoded to the local path they name; other schemes (``https:``) are
not paths. Guessing wide costs a question at worst; guessing narrow let ``.env``
through.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

from shell.core.tools import Tool, is_mcp

from . import paths as resolving
from .rules import CallPaths

PATH_WORDS = frozenset({
    "path", "paths", "file", "files", "filename", "filenames", "filepath", "filepaths", "uri", "uris",
    "dir", "dirs", "directory", "directories", "folder", "folders", "source", "sources",
    "destination", "src", "dst", "dest", "target", "root", "cwd", "location",
})
"""Argument names (lower case, ``_`` and ``-`` dropped) whose strings are taken as paths."""
_SUFFIXES = ("path", "paths", "file", "files", "filename", "dir", "directory", "uri", "folder")
_PATH_FORMATS = frozenset({"uri", "uri-reference", "iri", "iri-reference", "path", "file-path", "filepath"})
_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")
_MOST = 64
"""More path strings than this in one call: the policy asks rather than check some."""
_DEEPEST = 6


class TooManyPaths(ValueError):
    """A call names more paths than are checked one by one: it asks as a whole."""


def may_write(tool: Tool) -> bool:
    """Whether an MCP tool may write the paths it is given: any but one that says it only
    reads, from a server the user configured or trusted (anyone else's hint is a claim)."""
    return is_mcp(tool) and not (tool.read_only and bool(getattr(tool, "hints_trusted", True)))


def subject_paths(tool: Tool, args: Mapping[str, Any]) -> list[str]:
    """The paths the policy's path checks look at: a built-in tool's ``path``; every
    path an MCP tool's arguments name (:func:`mcp_paths`). Raises :class:`TooManyPaths`."""
    if is_mcp(tool):
        return mcp_paths(args, tool.parameters)
    path = args.get("path")
    return [path] if isinstance(path, str) else []


def mcp_subjects(tool: Tool, args: Mapping[str, Any]) -> tuple[list[str] | None, str]:
    """An MCP tool's paths (None for a built-in tool), or None and why they are not
    checked one by one (:class:`TooManyPaths`)."""
    if not is_mcp(tool):
        return None, ""
    try:
        return mcp_paths(args, tool.parameters), ""
    except TooManyPaths as exc:
        return None, str(exc)


def mcp_paths(args: Mapping[str, Any], schema: Mapping[str, Any] | None = None) -> list[str]:
    """Every path the arguments name, ``file:`` URIs decoded, in order, once each."""
    out: list[str] = []
    _walk(args, schema if isinstance(schema, Mapping) else {}, False, 0, out)
    return list(dict.fromkeys(out))


def _walk(value: Any, schema: Mapping[str, Any], pathy: bool, depth: int, out: list[str]) -> None:
    if depth > _DEEPEST:
        return
    if isinstance(value, str):
        found = _as_path(value, pathy)
        if found is not None:
            if len(out) >= _MOST:
                raise TooManyPaths(f"the call names more than {_MOST} paths")
            out.append(found)
    elif isinstance(value, Mapping):
        props = schema.get("properties")
        props = props if isinstance(props, Mapping) else {}
        for key, item in value.items():
            sub = props.get(key)
            sub = sub if isinstance(sub, Mapping) else {}
            _walk(item, sub, _path_key(str(key)) or _path_format(sub), depth + 1, out)
    elif isinstance(value, list | tuple):
        items = schema.get("items")
        items = items if isinstance(items, Mapping) else {}
        for item in value:
            _walk(item, items, pathy or _path_format(items), depth + 1, out)


def _path_key(key: str) -> bool:
    word = key.lower().replace("_", "").replace("-", "")
    return word in PATH_WORDS or word.endswith(_SUFFIXES)


def _path_format(schema: Mapping[str, Any]) -> bool:
    fmt = schema.get("format")
    return isinstance(fmt, str) and fmt.lower() in _PATH_FORMATS


def _as_path(text: str, pathy: bool) -> str | None:
    """The local path ``text`` names: a ``file:`` URI decoded, a plain string under a
    path-like key as it is; None for other URIs (``https:``) and other strings."""
    if text[:5].lower() == "file:":
        try:
            return unquote(urlsplit(text).path) or "/"
        except ValueError:
            return text[5:]
    if not pathy or not text or (_SCHEME.match(text) and not re.match(r"^[A-Za-z]:[\\/]", text)):
        return None
    return text




def outside_question(tool: Tool, found: Sequence[str], call: CallPaths, roots: Sequence[Path]) -> str:
    """The question for an MCP call naming a path outside the workspace (and the
    directories added to it), or "". Such a tool runs in its server's process, which
    neither the sandbox nor the workspace's fence confines: the policy is the only
    boundary it meets, so an allow rule for the tool does not reach past it."""
    for raw in found:
        real, _ = call.path(raw)
        if not any(resolving.within(real, root) for root in roots):
            shown = raw if raw == real else f"{raw} ({real})"
            what = "read" if tool.read_only else "use"
            return (f"{tool.name} would {what} {shown}, outside the workspace {call.root}. Its MCP server "
                    "runs outside the sandbox, so no allow rule for the tool reaches past the workspace; "
                    "approving runs this call once.")
    return ""


__all__ = [
    "PATH_WORDS", "TooManyPaths", "is_mcp", "may_write", "mcp_paths", "mcp_subjects", "outside_question",
    "subject_paths",
]
