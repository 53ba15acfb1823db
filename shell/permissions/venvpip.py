"""Whether a ``pip`` console script in a virtualenv is pip's: pip installed there wrote it.

A ``pip``/``pip3``/``pip3.X`` shim must import pip's own entry point (:mod:`.newvenv`,
finding M2), but that says only which module it names. In a venv made ``--without-pip``
(as ``uv venv`` makes them) no pip is installed, so the ``pip._internal`` that shim
imports is whatever the same command wrote into site-packages, and a two-line shim
copied into ``bin/`` passed for pip: the user's next ``pip`` ran the command's code once
the venv was active. pip (and ``ensurepip``, and uv's ``--seed``) lists each console
script it writes in its ``pip-*.dist-info/RECORD``, by path and hash, so a ``pip`` shim
is kept only when the venv's own pip records it with those very bytes. A shim with no
pip in the venv is planted; a venv with no pip and no ``pip`` shim has nothing to judge.

In a venv that was there before the command, only a RECORD (and its ``dist-info``
folder) that no one changed since the command started vouches (``before_ns``, by
ctime, which no one can set back): a command that wrote a ``pip-99.dist-info/RECORD``
listing its own shim kept that shim too (finding P13). A new venv is the command's
whole, its pip's RECORD too. An installed pip's code (what every console script
imports) is read-only to commands in a venv that was there before (:mod:`.venvpackages`).
"""

from __future__ import annotations

import base64
import csv
import glob
import hashlib
import io
import os
from pathlib import Path

MAX_RECORD = 1 << 20
"""Bytes of a RECORD read (pip's own is ~100 KB)."""
NOT_PIP = ("a pip program in a virtualenv whose own pip did not write it (no pip is installed there, or its "
           "RECORD does not list this file as it is): it would run whatever the command put in site-packages "
           "as you at your next pip once the environment is active")


def pip_wrote(script: Path, data: bytes, before_ns: int | None = None) -> bool:
    """Whether a pip installed in ``script``'s venv (``bin/``'s parent) lists ``script``
    with the sha256 of ``data`` in its ``RECORD``; with ``before_ns``, only a RECORD
    whose file and folder last changed before it counts (one the command wrote does not)."""
    folder = os.path.realpath(script.parent)
    env, shown = os.path.dirname(folder), os.path.join(folder, script.name)
    digest = "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    pattern = os.path.join(glob.escape(env), "lib", "python*", "site-packages", "pip-*.dist-info", "RECORD")
    for record in sorted(glob.glob(pattern)):
        site = os.path.dirname(os.path.dirname(record))
        if os.path.realpath(record) != record or os.path.realpath(site) != site:
            continue  # through a symlink: not the venv's own pip
        if before_ns is not None and not _older(record, before_ns):
            continue  # written or changed by the command: vouches for nothing
        for path, hashed in _entries(record):
            if hashed == digest and os.path.normpath(os.path.join(site, path)) == shown:
                return True
    return False


def _older(record: str, before_ns: int) -> bool:
    """Whether ``record`` and its folder last changed before ``before_ns`` (ctime: a
    rewrite, a rename into place and a hard link all set it)."""
    try:
        return all(os.lstat(p).st_ctime_ns < before_ns for p in (record, os.path.dirname(record)))
    except OSError:
        return False


def record_paths(record: str) -> list[str]:
    """The paths a RECORD lists, relative to its ``site-packages`` (:mod:`.venvpackages`)."""
    return [path for path, _ in _entries(record)]


def _entries(record: str) -> list[tuple[str, str]]:
    """``(path, hash)`` of each line of a RECORD (none when it is not a small file)."""
    try:
        if os.path.getsize(record) > MAX_RECORD:
            return []
        with open(record, encoding="utf-8", errors="replace") as f:
            text = f.read(MAX_RECORD)
    except OSError:
        return []
    try:
        return [(row[0], row[1]) for row in csv.reader(io.StringIO(text)) if len(row) >= 2]
    except csv.Error:
        return []


__all__ = ["NOT_PIP", "pip_wrote", "record_paths"]
