"""Where a path lands, the way the permission policy means it: the one resolver.

Every check that compares a path with the workspace goes through :func:`real`:
the rules (``read_file(src/**)``), the fence around the workspace
(:class:`shell.tools.workspace.Workspace`), the file edits that always ask
(``.git/hooks``, ``.envrc`` …), the sandbox's guard of what runs later, and the
editor protocol. If two of them resolved a path differently, a path could look
inside to one and outside to another, so there is one answer:

- ``~`` and ``~user`` are expanded (as the file tools expand them); a path that is
  still relative starts at the base (the workspace root);
- then the real file system decides, as the kernel would when the tool opens it:
  every symlink that exists is followed, also a dangling one (writing through it
  creates its target), and ``..`` applies *after* the symlink before it, so
  ``link/..`` is the parent of where ``link`` leads, not the workspace;
- a tail that does not exist yet is kept as written (a new file's path);
- a symlink loop does not raise: it is left unresolved, and opening it fails;
- a name shown escaped by a tool result (``name\\xff.txt``) names that file when
  the name as written does not exist (see :func:`_shown_name`);
- nothing is stripped: ``notes.txt\\n`` names a file whose name ends in a newline,
  exactly as the tool will open it;
- a NUL character cannot be in any file name: :class:`BadPath` says so (the policy
  refuses such a call, the tool reports it), rather than a ``ValueError`` deep in
  ``os.stat`` crashing whoever asked.

Strings rather than :class:`~pathlib.Path` where it counts: the policy resolves a
path on every decision (see ``benchmarks/permission_rules.py``).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from pathlib import Path

from shell.core.textsafety import path_from_text

StrPath = str | os.PathLike[str]


class BadPath(ValueError):
    """A path no file can have (it holds a NUL character); the message says so."""


def real(raw: StrPath, base: StrPath, *, expand_user: bool = True) -> str:
    """The absolute real path ``raw`` names, relative paths starting at ``base``
    (see the module docstring). ``expand_user=False`` for paths that a program other
    than the shell reads literally (git's ``gitdir:`` files). Raises :class:`BadPath`."""
    text = os.fspath(raw)
    if "\x00" in text:
        shown = repr(text) if len(text) <= 80 else repr(text[:77]) + "..."
        raise BadPath(f"the path {shown} holds a NUL character, which no file name can hold")
    if expand_user:
        text = os.path.expanduser(text)
    if not os.path.isabs(text):
        text = os.path.join(os.fspath(base), text)
    found = os.path.realpath(text)
    if "\\" in text and not os.path.lexists(found):
        return _shown_name(text) or found
    return found


def _shown_name(text: str) -> str | None:
    """The real path of a name a tool result showed escaped (``name\\xff.txt`` for a
    byte that is not UTF-8, ``nl\\nx`` for a newline: :func:`path_text`) when that
    file exists; None otherwise. Tried only when the name as written does not exist,
    and here, so the policy and the tool agree on the file."""
    plain = path_from_text(text)
    if plain == text:
        return None
    try:
        found = os.path.realpath(plain)
        return found if os.path.lexists(found) else None
    except (OSError, ValueError):
        return None


def resolve(raw: StrPath, base: StrPath, *, expand_user: bool = True) -> Path:
    """:func:`real` as a :class:`~pathlib.Path`."""
    return Path(real(raw, base, expand_user=expand_user))


def real_root(root: StrPath) -> Path:
    """A workspace root (or an added directory) as every check compares with it: real,
    absolute, relative to the current directory."""
    return resolve(root, os.getcwd())


def within(path: StrPath, base: StrPath) -> bool:
    """Whether the resolved ``path`` is ``base`` or below it (both already real)."""
    p, b = os.fspath(path), os.fspath(base)
    return p == b or p.startswith(b.rstrip("/") + "/")


def within_any(bases: Iterable[StrPath]) -> Callable[[StrPath], bool]:
    """``within(path, b)`` for any of ``bases``, as one test that costs a set lookup per
    level of ``path`` rather than a comparison per base: the sandbox asks it of every
    hidden file under home against every hidden folder before each command (r17-cost)."""
    kept = frozenset(os.fspath(b).rstrip("/") or "/" for b in bases)

    def test(path: StrPath) -> bool:
        current = os.fspath(path)
        while True:
            if current in kept:
                return True
            parent = os.path.dirname(current)
            if parent == current or not parent:
                return False
            current = parent

    return test


def relative(path: StrPath, base: StrPath) -> str | None:
    """The resolved ``path`` relative to ``base`` (``""`` for ``base`` itself), or
    None when it is not inside it."""
    p, b = os.fspath(path), os.fspath(base)
    if p == b:
        return ""
    prefix = b.rstrip("/") + "/"
    return p[len(prefix):] if p.startswith(prefix) else None


__all__ = ["BadPath", "real", "real_root", "relative", "resolve", "within"]
