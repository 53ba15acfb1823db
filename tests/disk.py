"""A small disk that fills up: a tmpfs mounted for one test, and a file that takes
all its space until the test frees it.

Mounting needs root (CI runs as root); elsewhere the tests that need it skip,
except under ``CI=true``, where a missing part is a failure.
"""

from __future__ import annotations

import errno
import os
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest


class SmallDisk:
    def __init__(self, root: Path) -> None:
        self.root = root
        self.filler = root / ".filler"

    def fill(self) -> None:
        """Take every free byte (and then some: tmpfs counts pages)."""
        fd = os.open(self.filler, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        try:
            for size in (65536, 4096, 1):
                try:
                    while os.write(fd, b"\0" * size):
                        pass
                except OSError as exc:
                    assert exc.errno == errno.ENOSPC, exc
        finally:
            os.close(fd)

    def free(self) -> None:
        self.filler.unlink(missing_ok=True)


@contextmanager
def small_disk(path: Path, size: str = "512k") -> Iterator[SmallDisk]:
    path.mkdir(parents=True, exist_ok=True)
    mounted = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={size},mode=0700", "tmpfs", str(path)],
        capture_output=True, text=True,
    )
    if mounted.returncode != 0:
        why = f"cannot mount a tmpfs ({mounted.stderr.strip() or 'not root'})"
        if os.environ.get("CI") == "true":
            pytest.fail(why)
        pytest.skip(why)
    try:
        yield SmallDisk(path)
    finally:
        subprocess.run(["umount", "-l", str(path)], capture_output=True)
