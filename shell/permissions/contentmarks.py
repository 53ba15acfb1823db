"""Verdicts on what a file in the workspace holds, kept only while the file is unchanged.

The sandbox's walk (:mod:`.secretfiles`) keeps each folder's listing by the folder's ctime:
adding, removing or renaming an entry moves it. Writing *into* a file that is already there
does not, so a ``notes.txt`` that was harmless at the last walk and got a private key pasted
into it (by the user's editor, or by a sandboxed ``cat key >> notes.txt``, at the same size and
with its mtime put back by ``touch -r``) stayed unread, and the next command read the key
while ``grep`` and ``read_file``, which judge each file as they open it, refused it.

So each file the walk reads for its content (:func:`shell.core.secretcontent.looked_into`)
keeps the mark it had when judged: its inode, size, mtime and ctime. At every walk each such
file in a folder that did not change is looked at again (one ``lstat``), and read again only
when its mark moved. Not the mtime alone: a program sets that back; the ctime only the clock
sets. A verdict taken less than :data:`.secretcontent.RACY_NS` after the file last changed is
not kept (a second write in the same coarse clock tick would leave every part of the mark as
it was). Source code and binary kinds are not read, so they cost nothing here
(``benchmarks/secret_content_walk.py``).

A ``.pem`` named like a secret is shown when it holds only certificates (commands need CA
bundles); that verdict is kept by the same mark.
"""

from __future__ import annotations

import os
import time
from collections.abc import Sequence

from shell.core.secretcontent import RACY_NS, secret_content_why

Mark = tuple[int, int, int, int]
"""A file's inode, size, mtime and ctime (nanoseconds)."""
PEM_SCAN = 1 << 20
"""Bytes of a ``.pem`` file read to tell a certificate (public) from a key."""
MAX_KEPT = 200_000
"""Marks kept at most (past it they are forgotten, and the files read once more)."""


def mark_of(info: os.stat_result) -> Mark:
    return info.st_ino, info.st_size, info.st_mtime_ns, info.st_ctime_ns


class ContentMarks:
    """The mark each file had when its content was last judged, per path. One per walk
    index; the index's lock covers it."""

    def __init__(self) -> None:
        self._judged: dict[str, Mark] = {}
        self._pem: dict[str, tuple[Mark, bool]] = {}

    def newly_secret(self, prefix: str, names: Sequence[str]) -> list[str]:
        """Those of ``names`` (files in the folder ``prefix``, ending in ``/``, read for
        their content) that changed since they were judged and hold a credential now."""
        out: list[str] = []
        judged = self._judged
        for name in names:
            path = prefix + name
            try:
                info = os.lstat(path)
            except OSError:
                continue
            mark = (info.st_ino, info.st_size, info.st_mtime_ns, info.st_ctime_ns)
            if judged.get(path) == mark:
                continue
            settled = time.time_ns() - info.st_ctime_ns >= RACY_NS  # before the read
            if secret_content_why(path):
                out.append(name)
            if len(judged) >= MAX_KEPT:
                judged.clear()
            if settled:
                judged[path] = mark
            else:
                judged.pop(path, None)
        return out

    def public_pem(self, path: str) -> bool:
        """Whether the ``.pem`` at ``path`` holds certificates and no private key,
        remembered by its mark (a command can add a key to a certificate bundle keeping
        its size and putting its mtime back, not its ctime)."""
        try:
            info = os.stat(path)
        except OSError:
            return False
        mark = mark_of(info)
        known = self._pem.get(path)
        if known is not None and known[0] == mark:
            return known[1]
        settled = time.time_ns() - info.st_ctime_ns >= RACY_NS
        public = _certificates_only(path)
        if len(self._pem) >= MAX_KEPT:
            self._pem.clear()
        if settled:
            self._pem[path] = (mark, public)
        return public


def _certificates_only(path: str) -> bool:
    """Whether a ``.pem`` file holds certificates and no private key."""
    try:
        with open(path, "rb") as fh:
            head = fh.read(PEM_SCAN + 1)
    except OSError:
        return False
    return len(head) <= PEM_SCAN and b"PRIVATE KEY" not in head and b"-----BEGIN CERTIFICATE-----" in head


__all__ = ["ContentMarks", "Mark", "mark_of"]
