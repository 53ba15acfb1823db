"""The files a shell's start-up files source (``. ~/.aliases``, ``source ~/.exports``).

Dotfiles guides keep keys out of ``~/.bashrc`` by moving them to a file it sources
(``[ -f ~/.aliases ] && . ~/.aliases``, or the common loop
``for file in ~/.{path,exports,aliases,functions,extra}; do source "$file"; done``):
hiding the start-up files alone leaves ``grep KEY ~/.aliases`` open (finding A3). This
module reads ``~/.bashrc``, ``~/.zshrc``, ``~/.profile`` (and their login twins) for the
files they name with ``.``/``source`` or list in a ``for … in``, one level deep, bounded
(:data:`MAX_RC_BYTES` a file, :data:`MAX_SOURCED` names), and keeps those under home that
are right in it (a dotfile like ``~/.aliases``) or that set a secret (a tool's init script
such as ``~/.nvm/nvm.sh`` stays readable: a command may source it on purpose).
"""

from __future__ import annotations

import os
import re
import stat
from pathlib import Path

from shell.core.secretfilevalues import secret_file_values

from .paths import within

READ_FOR_SOURCES = (".bashrc", ".zshrc", ".profile", ".bash_profile", ".bash_login", ".zprofile", ".zshenv")
"""The start-up files whose sourced files are looked for (home-relative)."""
MAX_RC_BYTES = 256 * 1024
"""Bytes of each start-up file read, at most (the rest is not looked at)."""
MAX_SOURCED = 32
"""Names taken from the start-up files, at most: a generated file must not cost a command."""
MAX_SOURCED_BYTES = 256 * 1024
"""Bytes of a sourced file deeper in home read for a secret, at most."""

_SOURCE = re.compile(r"(?:^|[;&|{(!]|\bthen|\bdo|\belse)\s*(?:\.|source)\s+(?P<arg>[^\s;&|)]+)")
_FOR_IN = re.compile(r"\bfor\s+\w+\s+in\s+(?P<list>[^;\n]+)")
_BRACES = re.compile(r"\{([^{}]*,[^{}]*)\}")
_HOME_PREFIX = re.compile(r"^(?:~|\$HOME|\$\{HOME\})(?=/|$)")

_cache: dict[Path, tuple[tuple[tuple[int, ...], ...], tuple[Path, ...]]] = {}
_secret_cache: dict[Path, tuple[tuple[int, ...], bool]] = {}


def sourced_files(home: Path) -> list[Path]:
    """The files under ``home`` its start-up files source that a sandboxed command must
    not read: right in ``home``, or setting a secret (see the module docstring)."""
    return [p for p in _named(home) if p.parent == home or _sets_a_secret(p)]


def _named(home: Path) -> tuple[Path, ...]:
    """Every file under ``home`` the start-up files source, kept until one of them changes."""
    rcs = [home / rel for rel in READ_FOR_SOURCES]
    stamps = tuple(_stamp(rc) for rc in rcs)
    cached = _cache.get(home)
    if cached is not None and cached[0] == stamps:
        return cached[1]
    found: dict[Path, None] = {}
    for rc in rcs:
        for path in _sourced_by(_read(rc, MAX_RC_BYTES), home):
            if len(found) >= MAX_SOURCED:
                break
            found[path] = None
    named = tuple(found)
    _cache[home] = (stamps, named)
    return named


def _sourced_by(text: str, home: Path) -> list[Path]:
    """The paths under ``home`` that ``text`` (a start-up file) sources or loops over."""
    out: list[Path] = []
    for line in text.splitlines():
        line = line.split(" #", 1)[0].strip()
        if not line or line.startswith("#"):
            continue
        words = [m["arg"] for m in _SOURCE.finditer(line)]
        if (loop := _FOR_IN.search(line)) is not None:
            words.extend(loop["list"].split())
        for word in words:
            for expanded in _brace_expanded(word.strip("\"'")):
                path = _under_home(expanded.strip("\"'"), home)
                if path is not None:
                    out.append(path)
    return out


def _brace_expanded(word: str, depth: int = 0) -> list[str]:
    """``~/.{path,exports}`` → ``~/.path``, ``~/.exports`` (bash's brace expansion, bounded)."""
    match = _BRACES.search(word)
    if match is None or depth > 2:
        return [word]
    head, tail = word[: match.start()], word[match.end() :]
    return [w for part in match[1].split(",")[:MAX_SOURCED]
            for w in _brace_expanded(head + part + tail, depth + 1)]  # fmt: skip


def _under_home(word: str, home: Path) -> Path | None:
    """``word`` as a path under ``home`` (``~/x``, ``$HOME/x``, ``${HOME}/x``, or relative:
    a login shell starts in home), None for anything else (a variable, a glob, elsewhere)."""
    word = _HOME_PREFIX.sub(str(home), word)
    if not word or any(c in word for c in "$`*?[") or word == str(home):
        return None
    path = Path(os.path.normpath(word if os.path.isabs(word) else home / word))
    return path if within(str(path), str(home)) and path != home else None


def _sets_a_secret(path: Path) -> bool:
    """Whether the file at ``path`` assigns a value the secrets policy would redact; read
    again only when its stat changed (it is asked before every command)."""
    stamp = _stamp(path)
    known = _secret_cache.get(path)
    if known is not None and known[0] == stamp:
        return known[1]
    found = bool(secret_file_values(_read(path, MAX_SOURCED_BYTES)))
    _secret_cache[path] = (stamp, found)
    return found


def _read(path: Path, limit: int) -> str:
    """The first ``limit`` bytes of a regular file (empty for anything else)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError:
        return ""
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return ""
        return os.read(fd, limit).decode("utf-8", "replace")
    except OSError:
        return ""
    finally:
        os.close(fd)


def _stamp(path: Path) -> tuple[int, ...]:
    try:
        info = os.stat(path)
    except OSError:
        return (-1,)
    return (info.st_ino, info.st_size, info.st_mtime_ns, info.st_ctime_ns)
