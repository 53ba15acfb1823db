"""A git config file read the way git reads it, by asking git.

A checker that parses config text itself disagrees with git somewhere (``; \\`` at the
end of a line is a comment to git, a continuation to a naive parser, which then skips
the next key; quotes, escapes, ``[section.sub]``), and every disagreement is a key the
checker never sees. So git lists the file (``git config --file X --list --null``, run
hardened by :mod:`.githardened`, no system or global config, includes not followed:
an ``include.path`` shows up as a key to judge), and its keys are judged.

Without git there is nothing that would run the config either; the fallback reads
line by line and fails closed: a line it cannot read for sure (one that ends in a
backslash, one that is no key) is reported as such.
"""

from __future__ import annotations

import os
import re
import threading
from pathlib import Path

from shell.core.programs import which

from . import githardened

MAX_CONFIG = 1 << 20
"""A config larger than this is not read (reported as unreadable)."""

Entry = tuple[str, str | None]
"""``(key, value)``: the key as ``section.key`` or ``section.*.key`` (any subsection),
lower-case; the value None for a bare boolean key (``[core] bare``)."""

_LOCK = threading.Lock()
_KNOWN: dict[tuple[str, int, int, int, int], list[Entry] | None] = {}

_SECTION = re.compile(r'^\[\s*([A-Za-z0-9.-]+)(?:\s+"((?:[^"\\]|\\.)*)")?\s*\]\s*(.*)$')
_ENTRY = re.compile(r"^([A-Za-z][A-Za-z0-9-]*)\s*(?:=\s*(.*))?$")


def pattern_key(key: str) -> str:
    """``remote.origin.url`` -> ``remote.*.url``; ``core.bare`` stays (a subsection may
    hold dots: the section is before the first dot, the name after the last)."""
    section, _, rest = key.partition(".")
    _sub, dot, name = rest.rpartition(".")
    return f"{section.lower()}.*.{name.lower()}" if dot else f"{section.lower()}.{rest.lower()}"


def _plain_file(config: Path) -> bool:
    return not config.is_symlink() and config.is_file()  # a FIFO named config would block


def entries(config: Path) -> list[Entry] | None:
    """The entries of ``config`` as git reads them, in order (None: not a plain file,
    too big, or git could not read it; git missing: :func:`fallback_entries`).
    Remembered until the file changes: several guards ask before every command."""
    try:
        if not _plain_file(config):
            return None
        info = os.stat(config)
    except OSError:
        return None
    if info.st_size > MAX_CONFIG:
        return None
    stamp = (str(config), info.st_ino, info.st_size, info.st_mtime_ns, info.st_ctime_ns)
    with _LOCK:
        if stamp in _KNOWN:
            known = _KNOWN[stamp]
            return None if known is None else list(known)
    found = fallback_entries(config) if which("git") is None else _listed(config)
    with _LOCK:
        if len(_KNOWN) >= 256:
            _KNOWN.clear()
        _KNOWN[stamp] = found
    return None if found is None else list(found)


def _listed(config: Path) -> list[Entry] | None:
    done = githardened.run(["config", "--file", str(config), "--no-includes", "--list", "--null"], cwd="/",
                           env={"GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": "/dev/null"})  # fmt: skip
    if done is None or done.returncode != 0:
        return None
    out: list[Entry] = []
    for item in done.stdout.split(b"\0"):
        if not item:
            continue
        key, newline, value = os.fsdecode(item).partition("\n")
        out.append((pattern_key(key), value if newline else None))
    return out


def fallback_entries(config: Path) -> list[Entry] | None:
    """Line by line, for when git is missing; a line this cannot read for sure comes
    back as the key ``(unreadable line)``, so a judge of keys fails closed."""
    try:
        text = config.read_text(errors="replace")
    except OSError:
        return None
    out: list[Entry] = []
    section = ""
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line[0] in "#;":
            continue
        if line.endswith("\\"):
            out.append(("(unreadable line)", line[:40]))
            continue
        m = _SECTION.match(line)
        if m:
            name, sub = m.group(1).lower(), m.group(2)
            section = f"{name.split('.', 1)[0]}.*" if sub is not None or "." in name else name
            line = m.group(3).strip()
            if not line or line[0] in "#;":
                continue
        e = _ENTRY.match(line) if section else None
        if e is None:
            out.append(("(unreadable line)", line[:40]))
            continue
        value = e.group(2)
        out.append((f"{section}.{e.group(1).lower()}", None if value is None else value.strip().strip('"')))
    return out


__all__ = ["MAX_CONFIG", "Entry", "entries", "fallback_entries", "pattern_key"]
