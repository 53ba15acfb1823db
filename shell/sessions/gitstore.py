"""The store of one repository's objects and packs, kept for ``/rewind`` (:mod:`.gitkeep`).

Each new object or pack is hard-linked into the store as it appears (copied where
a link cannot be made). A link costs no space while the repository has the file
too; what the store holds alone costs its size: objects and packs the repository
deleted since (``git gc`` writes a new pack and deletes the old ones, so each gc
of a 100 MB repository leaves another 100 MB here), and copies. Those bytes count
against the checkpoints' limit with the file checkpoints: first come, first kept,
as for files. What would go beyond the limit is removed from the store when it is
found, and said (:attr:`ObjectKeeper.notes`); what was kept before stays kept, so a
command that floods the store cannot push out the history kept before it.

The store's files are not trusted when they are put back: a link is the
repository's own file, which a sandboxed command can make writable and change in
place. :meth:`ObjectKeeper.put_back` writes only what still hashes to its name
(:mod:`.gitverified`), and says what it left out.
"""

from __future__ import annotations

import contextlib
import os
import shutil
from collections.abc import Callable
from pathlib import Path

from . import gitlfs, gitverified, gitworktrees
from .gitrefs import folder_entries, folder_names, real_folder


class ObjectKeeper:
    """The objects and packs of one repository, linked into ``store`` as they appear."""

    def __init__(self, store: Path) -> None:
        self.store = store
        self._listed: dict[str, int | None] = {}
        """Each objects folder's mtime when last listed (None: the repository has it no
        more): unchanged, it is not listed again."""
        self._counted: dict[str, int | None] = {}
        """Each objects folder's mtime when the store's own files in it were last counted."""
        self.own: dict[str, int] = {}
        """``rel: size`` of each kept file the store holds alone (the repository deleted
        it, or it is a copy): what the store costs."""
        self.notes: list[str] = []
        """What could not be kept, to say in the next command's result."""
        self.state_bytes = 0
        """Bytes of refs and reflogs this process kept for the repository (:mod:`.gitkeep`)."""
        self.state_kept = True
        self.lfs = gitlfs.LfsKeeper(store.parent / "lfs")
        """The repository's Git LFS objects, kept under the same room (:mod:`.gitlfs`)."""
        self.modules: dict[str, dict[str, int]] = {}
        """What the submodules' histories held before the last command (:mod:`.gitmodules`)."""
        self.worktrees: dict[str, gitworktrees.Checkout] = {}
        """The linked worktrees' live checkouts before the last command (:mod:`.gitworktrees`)."""
        self._absent: dict[str, set[str]] = {}
        """Each objects folder's kept files the repository lacked when it was last listed:
        gone before the command (an earlier one, or the user's own ``git gc`` between
        turns), so not this command's doing (finding Z10: a later ``multi-pack-index
        write`` was said to have removed the packs an earlier repack replaced)."""

    @property
    def own_bytes(self) -> int:
        return sum(self.own.values()) + self.lfs.own_bytes

    def keep(self, gitdir: Path, room: int) -> None:
        """Link the repository's new objects and packs; count what the store holds alone,
        within ``room`` bytes (what is beyond is removed and said)."""
        stamps = self.stamps(gitdir)
        for name, stamp in stamps.items():
            if self._listed.get(name) != stamp:
                self._link_new(gitdir / "objects" / name, name, room)
                self._absent[name] = folder_names(self.store / name) - folder_names(gitdir / "objects" / name)
                self._listed[name] = stamp
        for name in set(self._listed) - set(stamps):
            self._listed[name] = None
        self.count(gitdir, room, stamps)
        self.lfs.keep(gitdir, room - self.own_bytes + self.lfs.own_bytes)
        if self.lfs.full:
            self.lfs.full = False
            self._said_full()

    @staticmethod
    def stamps(gitdir: Path) -> dict[str, int]:
        """The mtime of each objects folder a rewind needs (fan-out folders and pack/)."""
        out = {}
        with contextlib.suppress(OSError):
            for folder in os.scandir(gitdir / "objects"):
                if (folder.name == "pack" or len(folder.name) == 2) and folder.is_dir(follow_symlinks=False):
                    with contextlib.suppress(OSError):
                        out[folder.name] = folder.stat(follow_symlinks=False).st_mtime_ns
        return out

    def _link_new(self, folder: Path, name: str, room: int) -> None:
        target_dir = self.store / name
        try:
            entries = [e for e in os.scandir(folder) if e.is_file(follow_symlinks=False)
                       and not e.name.startswith(("tmp", "."))]
        except OSError:
            return
        for entry in entries:
            target = target_dir / entry.name
            if target.exists():
                continue
            target_dir.mkdir(mode=0o700, parents=True, exist_ok=True)
            self._link(Path(entry.path), target, f"{name}/{entry.name}", room)

    def _link(self, source: Path, target: Path, rel: str, room: int) -> None:
        try:
            os.link(source, target, follow_symlinks=False)
            return
        except OSError:
            pass
        with contextlib.suppress(OSError):
            size = os.lstat(source).st_size
            if self.own_bytes + size > room:
                self._said_full()
                return
            shutil.copyfile(source, target, follow_symlinks=False)
            self.own[rel] = size

    def count(self, gitdir: Path, room: int, stamps: dict[str, int]) -> None:
        """Count the store's own files in each folder whose listing changed since (a
        folder the repository no longer has included); those beyond ``room`` are removed."""
        found: list[tuple[int, str, int]] = []
        for folder in folder_entries(self.store):
            stamp = stamps.get(folder.name)
            if folder.name in self._counted and self._counted[folder.name] == stamp:
                continue
            self._counted[folder.name] = stamp
            for entry in folder_entries(Path(folder.path)):
                rel = f"{folder.name}/{entry.name}"
                with contextlib.suppress(OSError):
                    info = entry.stat(follow_symlinks=False)
                    if info.st_nlink == 1 or not os.path.lexists(gitdir / "objects" / rel):
                        if rel not in self.own:
                            found.append((info.st_mtime_ns, rel, info.st_size))
                    else:
                        self.own.pop(rel, None)
        dropped = 0
        for _, rel, size in sorted(found):  # the oldest first: kept first
            if self.own_bytes + size <= room:
                self.own[rel] = size
                continue
            with contextlib.suppress(OSError):
                os.unlink(self.store / rel)
                dropped += size
        if dropped:
            self._said_full(dropped)

    def _said_full(self, dropped: int = 0) -> None:
        what = f"{dropped / 2**20:.1f} MB of it" if dropped else "new objects"
        note = (f"the repository's history kept for /rewind reached the checkpoints' limit: {what} "
                "could not be kept (what the repository deleted since is no longer kept)")
        if note not in self.notes:
            self.notes.append(note)

    def missing(self, gitdir: Path, stamps: dict[str, int] | None = None) -> list[str]:
        """Kept objects (``xx/yyy…``, ``pack/…``) the repository no longer has
        (given ``stamps``: in folders whose listing changed since the last keep; a
        folder whose stamp is as it was lost nothing, and the compare after every
        command then costs a ``stat`` per folder, not one per object)."""
        out = []
        for folder in sorted(folder_entries(self.store), key=lambda e: e.name):
            if stamps is not None and self._listed.get(folder.name, 0) == stamps.get(folder.name):
                continue
            for entry in folder_entries(Path(folder.path)):
                rel = f"{folder.name}/{entry.name}"
                if not os.path.lexists(gitdir / "objects" / rel):
                    out.append(rel)
        return out

    def removed(self, gitdir: Path, stamps: dict[str, int]) -> list[str]:
        """Kept files the repository had before the command and lacks now (``missing``
        in the folders it changed, less what was gone already); what is gone is
        remembered, so the next command is not said to have removed it."""
        gone = self.missing(gitdir, stamps)
        changed = {name for name, stamp in stamps.items() if self._listed.get(name, 0) != stamp}
        now: dict[str, set[str]] = {name: set() for name in changed}
        for rel in gone:
            folder, _, name = rel.partition("/")
            now.setdefault(folder, set()).add(name)
        before = self._absent
        fresh = [rel for rel in gone if rel.partition("/")[2] not in before.get(rel.partition("/")[0], set())]
        self._absent.update(now)
        return fresh

    def put_back(self, gitdir: Path, rels: list[str]) -> tuple[int, list[str]]:
        """Put back the kept ``rels`` that still hash to their names: how many were, and
        each one left out with why. A pack comes back with an index made anew; bitmaps,
        reverse indexes and ``.mtimes`` are left to git's next repack."""
        done, refused = 0, list[str]()
        packs = {rel[5:].rsplit(".", 1)[0] for rel in rels
                 if rel.startswith("pack/") and rel.endswith((".pack", ".idx"))}
        pack_dir = real_folder(gitdir, ["objects", "pack"]) if packs else None
        for stem in sorted(packs):
            why = self._put_back_pack(stem, pack_dir)
            if why:
                refused.append(f"pack/{stem}.pack ({why})")
            elif why is not None:
                done += 1
        folders: dict[str, Path | None] = {}
        for rel in rels:
            folder, _, name = rel.partition("/")
            if folder not in folders:
                folders[folder] = real_folder(gitdir, ["objects", folder])
            target = folders[folder]
            if target is None:
                refused.append(f"{rel} (its folder is not a folder inside .git)")
            elif folder != "pack":
                why = _guarded(gitverified.put_back_loose, self.store / rel, target / name)
                if why:
                    refused.append(f"{rel} ({why})")
                else:
                    done += 1
            elif (name.endswith(gitverified.MARKS)
                  and name.rsplit(".", 1)[0] + ".pack" in folder_names(target)):
                with contextlib.suppress(OSError):
                    gitverified.put_back_mark(target / name)
                    done += 1
        return done, refused

    def _put_back_pack(self, stem: str, pack_dir: Path | None) -> str | None:
        """Pack ``stem`` and a new index (None: nothing to put back, an index without its
        pack; empty: put back; else why not)."""
        if pack_dir is None:
            return "its folder is not a folder inside .git"
        kept, present = self.store / "pack" / f"{stem}.pack", (pack_dir / f"{stem}.pack").exists()
        if not present and not kept.is_file():
            return None
        work = self.store.parent  # the store's own folder, out of its listing

        def put(k: Path, t: Path) -> str:
            return gitverified.put_back_pack(k, t, present=present, work=work)

        return _guarded(put, kept, pack_dir)


def _guarded(put: Callable[[Path, Path], str], kept: Path, target: Path) -> str:
    try:
        return put(kept, target)
    except FileExistsError:
        return ""
    except OSError as exc:
        return f"not written ({exc.strerror or exc})"
