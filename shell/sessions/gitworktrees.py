"""The linked worktrees' own git files, kept with the history and put back (findings C17, C11).

A linked worktree (``git worktree add ../feature``) keeps its ``HEAD``, ``index``,
``ORIG_HEAD`` and reflog in the main repository's ``.git/worktrees/NAME``, beside the
``gitdir`` and ``commondir`` that tie the two together. The sandbox pins that folder and
makes ``gitdir``, ``commondir`` and ``locked`` read-only (:mod:`shell.permissions.runslater`),
but git writes the rest at every commit, checkout and add in that worktree, so a command
may remove them: ``rm -rf .git/worktrees/feature`` left the checkout "not a git
repository", its detached commits reachable from nothing (the next ``git gc`` past
``gc.pruneExpire`` deletes them), and nothing was said.

So each worktree's files are read with the history (:mod:`.gitkeep`, under
``worktrees/NAME/…`` in the kept state), and after a command:

- what git needs to take the checkout for a repository (``HEAD``, ``index``, and the
  pointers) and the command removed is put back at once, while the checkout's ``.git``
  file still names this folder: no git command removes them from a worktree it keeps
  (``git worktree remove`` and ``prune`` remove the folder with its checkout), so
  nothing the user or git meant is undone; the result says so;
- a removed ``ORIG_HEAD`` or reflog is said, and ``/rewind`` puts it back;
- a checkout the command moved or removed (``mv wt2 wt3``: git still looks for it at
  ``wt2``, and the user's next ``git worktree prune`` deletes its index and ``HEAD``) is
  said with where it went and the ``git worktree repair`` that ties it back.

Only what is missing is written, never over a file that is there, and only into a real
folder under ``.git/worktrees`` whose checkout names it back.
"""

from __future__ import annotations

import contextlib
import os
import secrets
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from ..core.textsafety import sanitize_line
from .gitindex import MAX_INDEX_BYTES
from .gitrefs import folder_entries, read_regular, real_folder, reflog_lines, value_ok

MAX_WORKTREES = 64
"""Linked worktrees kept per repository (one with more is kept in part)."""
PARTS = ("HEAD", "index", "gitdir", "commondir", "ORIG_HEAD", "logs/HEAD")
"""What is kept of each, in the order it is put back (the pointers before the history)."""
NEEDED = frozenset({"HEAD", "index", "gitdir", "commondir"})
"""What git needs to take the checkout for a repository with its staged work: put back at once."""
MAX_SMALL = 4096
MAX_LOG = 8 * 1024 * 1024
MAX_LOOKED = 5_000
"""Folders of the workspace looked through for a moved checkout's ``.git`` file."""
SKIPPED = frozenset({".git", "node_modules", "__pycache__", ".venv", ".tox"})


@dataclass(frozen=True, slots=True)
class Checkout:
    """Where a linked worktree's checkout was before a command: its ``.git`` file and that
    file's identity (a move keeps it), to tell a move from a removal."""

    dotgit: Path
    ident: tuple[int, int]


def names(gitdir: Path) -> list[str]:
    """The linked worktrees' folders under ``gitdir/worktrees`` (real folders), sorted, bounded."""
    found = [e.name for e in folder_entries(gitdir / "worktrees") if e.is_dir(follow_symlinks=False)]
    return sorted(found)[:MAX_WORKTREES]


def read(gitdir: Path) -> dict[str, bytes]:
    """Each worktree's :data:`PARTS` as they are, by their path under ``gitdir``."""
    out: dict[str, bytes] = {}
    for name in names(gitdir):
        for part in PARTS:
            limit = MAX_INDEX_BYTES if part == "index" else MAX_LOG if part.startswith("logs/") else MAX_SMALL
            data = read_regular(gitdir / "worktrees" / name / part, limit)
            if data is not None and part.startswith("logs/"):
                data = b"".join(line + b"\n" for line in reflog_lines(data.splitlines()))
            if data is not None:
                out[f"worktrees/{name}/{part}"] = data
    return out


def checkouts(gitdir: Path) -> dict[str, Checkout]:
    """The live checkouts of the worktrees (those whose ``.git`` file names their folder back)."""
    out: dict[str, Checkout] = {}
    for name in names(gitdir):
        admin = gitdir / "worktrees" / name
        dotgit = _named_checkout(admin, read_regular(admin / "gitdir", MAX_SMALL))
        if dotgit is not None:
            with contextlib.suppress(OSError):
                info = os.lstat(dotgit)
                out[name] = Checkout(dotgit, (info.st_dev, info.st_ino))
    return out


def after_command(gitdir: Path, root: Path, before: dict[str, bytes], was: dict[str, Checkout]) -> list[str]:
    """After a command: what it removed of the worktrees that were live before it, put back
    where git needs it (:data:`NEEDED`) and said; a checkout it moved or removed, said."""
    notes: list[str] = []
    for name, checkout in was.items():
        admin = gitdir / "worktrees" / name
        shown = _shown(checkout.dotgit.parent, root)
        if not os.path.lexists(checkout.dotgit):
            notes.append(_moved_note(name, shown, _moved_to(root, checkout), root))
            continue
        if _named_checkout(admin, before.get(f"worktrees/{name}/gitdir")) != checkout.dotgit:
            continue  # its .git file names another folder now: the user's to sort out, not ours to write
        gone = [part for part in PARTS
                if f"worktrees/{name}/{part}" in before and not os.path.lexists(admin / part)]
        if not gone:
            continue
        put = [part for part in gone if part in NEEDED and _put(gitdir, name, part, before)]
        rest = [part for part in gone if part not in put]
        where = f"the linked git worktree {shown} (its files in .git/worktrees/{sanitize_line(name)})"
        if put:
            notes.append(f"[agent-shell: this command removed {', '.join(put)} of {where}: without "
                         "them git takes that checkout for no repository (its staged work and the commits "
                         "only its HEAD reaches are lost at the next git gc). They were put back as they "
                         "were before it ran. Tell the user]")
        if rest:
            notes.append(f"[agent-shell: this command removed {', '.join(rest)} of {where}. They were kept "
                         "before it ran: /rewind to before this message puts them back]")
    return notes


def restore(gitdir: Path, files: dict[str, bytes], *, apply: bool) -> list[str]:
    """What a rewind to ``files`` (a kept state) puts back of the live worktrees: their
    missing parts, and the reflog lines a command removed (``apply``: write them)."""
    said: list[str] = []
    for name in sorted({rel.split("/")[1] for rel in files if rel.startswith("worktrees/")}):
        admin = gitdir / "worktrees" / name
        dotgit = _named_checkout(admin, files.get(f"worktrees/{name}/gitdir"))
        if dotgit is None or not os.path.lexists(dotgit):
            continue  # gone since (git worktree remove, prune): not brought back
        back = [part for part in PARTS
                if f"worktrees/{name}/{part}" in files and _missing(admin, part, files)]
        if apply:
            back = [part for part in back if _put(gitdir, name, part, files)]
        if back:
            said.append(f"{', '.join(back)} of the linked worktree {sanitize_line(name)} put back")
    return said


def _missing(admin: Path, part: str, files: dict[str, bytes]) -> bool:
    if not os.path.lexists(admin / part):
        return True
    if part != "logs/HEAD":
        return False
    now = read_regular(admin / part, MAX_LOG) or b""
    return not set(files[f"worktrees/{admin.name}/{part}"].splitlines()) <= set(now.splitlines())


def _put(gitdir: Path, name: str, part: str, files: dict[str, bytes]) -> bool:
    """Write ``part`` of worktree ``name`` as kept, when git would have written it so
    (a HEAD git reads, a ``commondir`` naming this repository, a ``gitdir`` whose
    checkout names the folder back); a reflog keeps the lines written since after the
    kept ones. Never over anything but a missing file or a reflog (False: not written)."""
    data = files[f"worktrees/{name}/{part}"]
    admin = gitdir / "worktrees" / name
    text = data.decode("utf-8", "replace").strip()
    if part in ("HEAD", "ORIG_HEAD") and not value_ok(text):
        return False
    if part == "commondir" and not _same(admin / text, gitdir):
        return False
    if part == "gitdir" and _named_checkout(admin, data) is None:
        return False
    folder = real_folder(gitdir, ["worktrees", name, *part.split("/")[:-1]])
    if folder is None:
        return False
    path = folder / part.rsplit("/", 1)[-1]
    if part == "logs/HEAD":
        later = (read_regular(path, MAX_LOG) or b"").splitlines() if os.path.isfile(path) else []
        old = data.splitlines()
        data = b"".join(x + b"\n" for x in old + [n for n in reflog_lines(later) if n not in set(old)])
    elif os.path.lexists(path):
        return False
    tmp = folder / f".{path.name}.{secrets.token_hex(4)}.tmp"
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644)
        with os.fdopen(fd, "wb") as out:
            out.write(data)
        if part == "logs/HEAD":
            os.replace(tmp, path)
        else:
            os.link(tmp, path)  # fails when something appeared there meanwhile
            os.unlink(tmp)
    except OSError:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        return False
    return True


def common_dir(dotgit: Path) -> Path | None:
    """The repository a linked worktree's ``.git`` file belongs to (its shared git dir), when
    the admin folder it points at is that repository's ``worktrees/NAME`` and names this file
    back: as git wrote them at ``git worktree add``, not a file pointing at another project's."""
    content = read_regular(dotgit, MAX_SMALL)
    if content is None or not content.startswith(b"gitdir:"):
        return None
    target = content[7:].decode("utf-8", "replace").strip()
    if not target or "\0" in target:
        return None
    admin = Path(os.path.normpath(dotgit.parent / target))
    pointer = read_regular(admin / "commondir", MAX_SMALL)
    if pointer is None:
        return None
    common = Path(os.path.normpath(admin / pointer.decode("utf-8", "replace").strip()))
    named = _named_checkout(admin, read_regular(admin / "gitdir", MAX_SMALL))
    if named is None or not _same(named, dotgit) or not _same(admin.parent, common / "worktrees"):
        return None
    return common if common.is_dir() and not common.is_symlink() else None


def _named_checkout(admin: Path, pointer: bytes | None) -> Path | None:
    """The checkout's ``.git`` file ``pointer`` (a ``gitdir`` file's content) names, when
    that file names ``admin`` back (``gitdir: …``, relative paths read as git reads them)."""
    if not pointer:
        return None
    text = pointer.decode("utf-8", "replace").strip()
    if not text or "\0" in text:
        return None
    dotgit = Path(os.path.normpath(admin / text))
    content = read_regular(dotgit, MAX_SMALL)
    if content is None or not content.startswith(b"gitdir:"):
        return None
    target = content[7:].decode("utf-8", "replace").strip()
    return dotgit if target and _same(dotgit.parent / target, admin) else None


def _same(a: Path, b: Path) -> bool:
    try:
        return os.path.samefile(a, b)
    except (OSError, ValueError):
        return False


def _moved_to(root: Path, checkout: Checkout) -> Path | None:
    """Where the checkout's ``.git`` file is now, when the command moved it within ``root``
    (the same file: a move keeps its identity), looked for through a bounded walk."""
    for path in _dotgit_files(root):
        with contextlib.suppress(OSError):
            info = os.lstat(path)
            if (info.st_dev, info.st_ino) == checkout.ident:
                return path
    return None


def _dotgit_files(root: Path) -> Iterator[Path]:
    stack, looked = [root], 0
    while stack and looked < MAX_LOOKED:
        here = stack.pop()
        looked += 1
        for entry in folder_entries(here):
            if entry.name == ".git" and entry.is_file(follow_symlinks=False):
                yield Path(entry.path)
            elif entry.name not in SKIPPED and entry.is_dir(follow_symlinks=False):
                stack.append(Path(entry.path))


def _moved_note(name: str, shown: str, now: Path | None, root: Path) -> str:
    lost = (f"git still looks for it at {shown}: the next `git worktree prune` (or a git gc) deletes its "
            f"index, its staged work and its HEAD (.git/worktrees/{sanitize_line(name)})")
    if now is not None:
        new = _shown(now.parent, root)
        return (f"[agent-shell: this command moved the linked git worktree {shown} to {new}: its files are "
                f"all there, not removed. But {lost}. Before that, run `git worktree repair {new}` (or move "
                "it back). Tell the user]")
    return (f"[agent-shell: the linked git worktree {shown} is gone after this command (removed, or moved "
            f"out of reach); {lost}. If it was moved, `git worktree repair <its new path>` ties it back. "
            "Tell the user]")


def _shown(folder: Path, root: Path) -> str:
    try:
        rel = folder.relative_to(root).as_posix()
    except ValueError:
        return sanitize_line(str(folder))
    return sanitize_line(f"{rel}/" if rel != "." else "./ (this workspace)")
