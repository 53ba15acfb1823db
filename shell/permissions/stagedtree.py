"""A folder of ours that holds what git's index has staged under a hidden folder.

The sandbox hides a folder a deny rule on reading names (``read_file(config/secrets/**)``).
An empty folder in its place is a lie git in the sandbox believes: every file it
tracks there looks deleted, and ``git add -A && git commit`` commits that. So the
sandbox shows, read-only, a folder built here from the index instead (see
:meth:`.gitstaged.StagedCopies.tree`): each tracked file as git has it staged, each
symlink as staged, each submodule as an empty folder (what git takes for a submodule
not checked out). Untracked files and edits not staged stay hidden.

The names come from an index a command (or a cloned repository) may have written, so
they are checked before anything is made: no empty, ``.``, ``..`` or ``.git`` part (git
never checks such a name out; one would reach outside this folder, or plant a
repository in it), no entry beneath a file, link or submodule. Everything is made new
in a private folder, never through what is already there, then renamed into place: a
folder built once is never changed (a running command may have it mounted).
"""

from __future__ import annotations

import hashlib
import os
import shutil
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

REGULAR, EXECUTABLE, SYMLINK, GITLINK = "100644", "100755", "120000", "160000"
MAX_LINK = 4095
"""The longest symlink target the kernel takes (``PATH_MAX`` less its NUL)."""


@dataclass(frozen=True, slots=True)
class Entry:
    """One stage-0 index entry under the hidden folder: its path below that folder
    (as ``/``-separated bytes, as git stores it), mode and object id."""

    name: bytes
    mode: str
    sha: str


def bad_name(name: bytes) -> bool:
    """Whether a name below the folder could not be made inside it, as git would
    check it out (an empty, ``.``, ``..`` or ``.git`` part, in any case)."""
    return any(part in (b"", b".", b"..") or part.lower() == b".git" for part in name.split(b"/"))


def digest(entries: Sequence[Entry]) -> str:
    """What names a built folder: the same entries give the same folder."""
    h = hashlib.sha256()
    for e in sorted(entries, key=lambda e: e.name):
        h.update(f"{e.mode} {e.sha} ".encode() + e.name + b"\0")
    return h.hexdigest()[:40]


def build(base: str, entries: Sequence[Entry], blobs: Mapping[tuple[str, bool], str]) -> tuple[str, str]:
    """The folder (in ``base``) holding ``entries``, each file a link to its blob in
    ``blobs`` (``(sha, executable) -> file``), and empty; or empty and why it could not
    be made. Made once per set of entries; the names are checked (see the module)."""
    final = os.path.join(base, "tree-" + digest(entries))
    if os.path.isdir(final):
        return final, ""
    scratch = tempfile.mkdtemp(prefix="building-", dir=base)
    try:
        why = _fill(scratch, entries, blobs)
        if why:
            return "", why
        os.chmod(scratch, 0o755)
        try:
            os.rename(scratch, final)
        except OSError:  # another thread built it first (a folder is never replaced)
            if not os.path.isdir(final):
                raise
        return final, ""
    except OSError as exc:
        return "", f"the folder to show could not be made ({exc.strerror or exc})"
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def _fill(root: str, entries: Sequence[Entry], blobs: Mapping[tuple[str, bool], str]) -> str:
    kinds: dict[bytes, str] = {b"": "dir"}
    for entry in sorted(entries, key=lambda e: e.name):
        if bad_name(entry.name):
            return f"the index holds a name git would not check out ({entry.name[:80]!r})"
        parts = entry.name.split(b"/")
        for depth in range(1, len(parts)):
            parent = b"/".join(parts[:depth])
            kind = kinds.get(parent)
            if kind is None:
                os.mkdir(_at(root, parent), 0o755)
                kinds[parent] = "dir"
            elif kind != "dir":
                return f"the index holds {entry.name[:80]!r} beneath a file, link or submodule"
        if entry.name in kinds:
            return f"the index holds {entry.name[:80]!r} twice"
        target = _at(root, entry.name)
        if entry.mode == GITLINK:
            os.mkdir(target, 0o755)
        elif entry.mode == SYMLINK:
            with open(blobs[(entry.sha, False)], "rb") as handle:
                link = handle.read(MAX_LINK + 1)
            if not link or len(link) > MAX_LINK or b"\0" in link:
                return f"the index holds a symlink no file system takes ({entry.name[:80]!r})"
            os.symlink(os.fsdecode(link), target)
        else:
            blob = blobs[(entry.sha, entry.mode == EXECUTABLE)]
            try:
                os.link(blob, target)  # the same read-only file, once on disk
            except OSError:
                shutil.copy2(blob, target)
        kinds[entry.name] = entry.mode
    return ""


def _at(root: str, name: bytes) -> str:
    return os.path.join(root, os.fsdecode(name))
