"""git's index, put back by a rewind when only the rewound commands changed it (finding B1).

A rewind to before a message whose command ran ``git commit -a`` moved the branch
back and put the files back, but the index still held the commit's files: ``git
status`` showed the undone change as staged, and the next plain ``git commit`` (the
user's, or the model's, which never sees the rewind's note) recorded it again.

The index is one more file of the repository's state: the history keep reads it
with the refs before and after each command (:mod:`.gitkeep`, bounded by
:data:`MAX_INDEX_BYTES`). A rewind puts it back when the rewound commands changed it
and nothing else did since: its content now is what the last of them left, and it
did not change between two commands (the user's own ``git add`` between messages).
Otherwise it is left, and the rewind's note says how to make it match the branch.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import stat
from pathlib import Path

INDEX = "index"
"""The index's path under .git, as the kept state names it."""
MAX_INDEX_BYTES = 4 * 1024 * 1024
"""A bigger index (~40,000 files) is not kept: each change would be another blob of
its size in the history's share of the checkpoints; a rewind then leaves it, and says so."""

NOT_WRITTEN = ("git's index NOT put back: git was using it (index.lock) or it is no regular file now; "
               "`git diff --cached` shows what it holds that the rewind did not undo")


def put_back(gitdir: Path, data: bytes) -> bool:
    """Replace ``gitdir``'s index with ``data`` (False: not written). Not while git holds
    ``index.lock`` (a git running now would overwrite it, or find it changed under it),
    and never through a symlink or over anything but a regular file."""
    if gitdir.is_symlink() or not gitdir.is_dir() or os.path.lexists(gitdir / f"{INDEX}.lock"):
        return False
    path = gitdir / INDEX
    try:
        if not stat.S_ISREG(os.lstat(path).st_mode):
            return False
    except OSError:
        return False
    tmp = gitdir / f".{INDEX}.{secrets.token_hex(4)}.tmp"
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644)
        with os.fdopen(fd, "wb") as out:
            out.write(data)
        os.replace(tmp, path)
    except OSError:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        return False
    return True


def note(put: bool, branch_moved: bool) -> list[str]:
    """What a rewind says of the index, when it changed since the state gone back to:
    ``put`` when it was put back; left, when a branch moved back (its files are still
    staged). An index the user changed alone is theirs, and not mentioned."""
    if put:
        return ["git's index put back as it was before that message (what it had staged)"]
    if branch_moved:
        return ["git's index left as it is (changed since by something else, or not kept): it still holds "
                "the files of the commit the branch leaves; `git reset -q` makes it match the branch"]
    return []
