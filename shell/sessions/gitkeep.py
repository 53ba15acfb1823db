"""The workspace repository's history, kept before each sandboxed command so ``/rewind`` can put it back.

A sandboxed command may write ``.git/objects``, ``.git/refs`` and ``.git/logs``
(``git commit`` needs them), so one line (``rm -rf .git/objects .git/refs``,
``git reflog expire --expire=now --all && git gc --prune=now``) could destroy
unpushed commits, stashes and the reflog for good, and the workspace capture
does not scan ``.git`` (finding U14). A line check alone cannot prevent it: a
script the command writes does the same. So the history is kept instead:

- objects and packs never change once written (their name is their content), so
  each new one is hard-linked into the session's store (copied when a link cannot
  be made): taking them again costs one ``stat`` per fan-out folder whose listing
  did not change;
- the refs, ``packed-refs``, ``HEAD`` and the reflogs are small: their contents go
  to the checkpoint blobs (content-addressed) and a ``git`` record lists them,
  written only when they differ from the last one.

A rewind puts back what is missing, and never takes away what is there: an
object or a ref that exists is left as it is (a ref that moved since is said, not
reset), and a reflog keeps its lines after the ones put back. After a command, its
result says plainly when it removed refs, reflog entries or objects, and that a
rewind brings them back.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import secrets
import shutil
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .checkpoints import Checkpoints

MAX_STATE_FILES = 5_000
"""Ref and reflog files kept per state (a repository with more is kept in part, and said)."""
MAX_STATE_BYTES = 32 * 1024 * 1024
"""Bytes of refs and reflogs read per state."""
MAX_COPY_BYTES = 512 * 1024 * 1024
"""Object bytes copied (not linked) per session, where the store is on another file system."""
TREES = ("refs", "logs")
TOP_FILES = ("HEAD", "packed-refs")


@dataclass(frozen=True, slots=True)
class GitState:
    """The refs and reflogs of ``gitdir`` as they were before a command of ``turn``."""

    turn: int
    gitdir: str
    files: tuple[tuple[str, str], ...]
    """``(path under .git, blob digest)`` of each file."""
    seq: int


def git_dir(root: Path) -> Path | None:
    """The workspace's own ``.git`` folder (not a ``.git`` file of a linked worktree)."""
    path = root / ".git"
    try:
        return path if stat.S_ISDIR(os.lstat(path).st_mode) else None
    except OSError:
        return None


def read_state(gitdir: Path) -> dict[str, bytes]:
    """HEAD, packed-refs and every regular file under refs/ and logs/ (no symlinks), bounded."""
    out: dict[str, bytes] = {}
    total = 0
    names = list(TOP_FILES)
    for tree in TREES:
        if (gitdir / tree).is_symlink():
            continue  # a command's link out of .git: not the repository's
        for folder, dirs, files in os.walk(gitdir / tree):
            dirs.sort()
            base = Path(folder).relative_to(gitdir)
            names += [(base / name).as_posix() for name in sorted(files)]
    for rel in names[:MAX_STATE_FILES]:
        data = _read_regular(gitdir / rel)
        if data is None or total + len(data) > MAX_STATE_BYTES:
            continue
        total += len(data)
        out[rel] = data
    return out


def refs_of(files: dict[str, bytes]) -> dict[str, str]:
    """Ref name to what it holds, loose refs over packed ones (HEAD included)."""
    refs: dict[str, str] = {}
    for line in files.get("packed-refs", b"").decode("utf-8", "replace").splitlines():
        parts = line.split(" ", 1)
        if len(parts) == 2 and not line.startswith(("#", "^")) and _plain(parts[1].strip()):
            refs[parts[1].strip()] = parts[0]
    for rel, data in files.items():
        if rel == "HEAD" or (rel.startswith("refs/") and _plain(rel)):
            refs[rel] = data.decode("utf-8", "replace").strip()
    return refs


def _plain(rel: str) -> bool:
    """A path under .git a rewind may write: relative, no ``..``, under refs/ or logs/ (a
    ``packed-refs`` line a command wrote may name ``../../.bashrc``)."""
    parts = rel.split("/")
    return (rel == "HEAD" or parts[0] in TREES) and all(p not in ("", ".", "..") for p in parts) \
        and "\0" not in rel and "\\" not in rel


def log_lines(files: dict[str, bytes]) -> dict[str, list[bytes]]:
    return {rel: data.splitlines() for rel, data in files.items() if rel.startswith("logs/")}


class ObjectKeeper:
    """The objects and packs of one repository, linked into ``store`` as they appear."""

    def __init__(self, store: Path) -> None:
        self.store = store
        self._listed: dict[str, int] = {}
        """Each objects folder's mtime when last listed: unchanged, it is not listed again."""
        self.copied = 0
        self.problem = ""

    def keep(self, gitdir: Path) -> None:
        objects = gitdir / "objects"
        try:
            folders = [e for e in os.scandir(objects) if e.is_dir(follow_symlinks=False)]
        except OSError:
            return
        for folder in folders:
            if folder.name != "pack" and len(folder.name) != 2:
                continue  # info/ and temporary folders: nothing a rewind needs
            try:
                stamp = folder.stat(follow_symlinks=False).st_mtime_ns
            except OSError:
                continue
            if self._listed.get(folder.name) == stamp:
                continue
            self._link_new(Path(folder.path), folder.name)
            self._listed[folder.name] = stamp

    def _link_new(self, folder: Path, name: str) -> None:
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
            self._link(Path(entry.path), target)

    def _link(self, source: Path, target: Path) -> None:
        try:
            os.link(source, target, follow_symlinks=False)
            return
        except OSError:
            pass
        with contextlib.suppress(OSError):
            size = os.lstat(source).st_size
            if self.copied + size > MAX_COPY_BYTES:
                self.problem = f"objects beyond {MAX_COPY_BYTES >> 20} MB could not be kept"
                return
            shutil.copyfile(source, target, follow_symlinks=False)
            self.copied += size

    def missing(self, gitdir: Path, *, changed_only: bool = False) -> list[str]:
        """Kept objects (``xx/yyy…``, ``pack/…``) the repository no longer has
        (``changed_only``: in folders whose listing changed since the last keep; a
        folder whose stamp is as it was lost nothing, and the compare after every
        command then costs a ``stat`` per folder, not one per object)."""
        out = []
        with contextlib.suppress(OSError):
            for folder in sorted(os.scandir(self.store), key=lambda e: e.name):
                if changed_only and self._listed.get(folder.name) == _stamp(gitdir / "objects" / folder.name):
                    continue
                for entry in os.scandir(folder.path):
                    rel = f"{folder.name}/{entry.name}"
                    if not os.path.lexists(gitdir / "objects" / rel):
                        out.append(rel)
        return out

    def put_back(self, gitdir: Path, rels: list[str]) -> int:
        done = 0
        for rel in rels:
            target = gitdir / "objects" / rel
            with contextlib.suppress(OSError):
                target.parent.mkdir(parents=True, exist_ok=True)
                if not _inside(target.parent, gitdir):
                    continue
                try:
                    os.link(self.store / rel, target)
                except OSError:
                    shutil.copyfile(self.store / rel, target)
                os.chmod(target, 0o444)
                done += 1
        return done


def keeper(cp: Checkpoints, gitdir: Path) -> ObjectKeeper:
    key = hashlib.sha256(str(gitdir).encode()).hexdigest()[:16]
    found = cp.git_keepers.get(key)
    if found is None:
        found = cp.git_keepers[key] = ObjectKeeper(cp.root / "git" / key / "objects")
    return found


def before_command(cp: Checkpoints, root: Path) -> dict[str, bytes] | None:
    """Keep the repository's new objects and, when they changed, its refs and reflogs
    (a ``git`` record). Returns the refs and reflogs as they are, for :func:`after_command`."""
    gitdir = git_dir(root)
    if gitdir is None:
        return None
    keeper(cp, gitdir).keep(gitdir)
    files = read_state(gitdir)
    last = last_state(cp, str(gitdir), len(cp.raw))
    digests = {rel: hashlib.sha256(data).hexdigest() for rel, data in files.items()}
    if last is None or dict(last.files) != digests:
        size = sum(len(files[rel]) for rel, d in digests.items() if d not in cp.stored_digests)
        if cp.stored_bytes + size > cp.max_total:
            cp.problems.append("the repository's refs could not be kept: the checkpoints are full")
            return files
        for rel, digest in digests.items():
            cp.keep_blob(digest, files[rel])
        cp.log_git(str(gitdir), digests)
    return files


def after_command(cp: Checkpoints, root: Path, before: dict[str, bytes]) -> str:
    """What the command removed of the history, in words (empty: nothing)."""
    gitdir = git_dir(root) or root / ".git"
    after = read_state(gitdir) if gitdir.is_dir() else {}
    refs_before, refs_after = refs_of(before), refs_of(after)
    refs = sorted(name for name in refs_before if name not in refs_after)
    logs_after = log_lines(after)
    entries = sum(len(set(lines) - set(logs_after.get(rel, []))) for rel, lines in log_lines(before).items())
    objects = 0
    kept = cp.git_keepers.get(hashlib.sha256(str(gitdir).encode()).hexdigest()[:16])
    if kept is not None:
        gone = kept.missing(gitdir, changed_only=True)
        packs_now = {e for e in _names(gitdir / "objects" / "pack") if e.endswith(".pack")}
        packs_kept = {e for e in _names(kept.store / "pack") if e.endswith(".pack")}
        if gone and packs_now <= packs_kept:  # removed, not repacked into a new pack
            objects = len(gone)
    if not (refs or entries or objects):
        return ""
    said = []
    if refs:
        shown = ", ".join(refs[:5]) + (f" and {len(refs) - 5} more" if len(refs) > 5 else "")
        said.append(f"{len(refs)} ref(s) ({shown})")
    if entries:
        said.append(f"{entries} reflog entr{'y' if entries == 1 else 'ies'}")
    if objects:
        said.append(f"{objects} object file(s)")
    return (f"[this command removed git history: {', '.join(said)}. They were kept before it ran: "
            "/rewind to before this message puts them back]")


def blobs_of(record: dict[str, object]) -> list[str]:
    """The blob digests a log record needs: a kept file's old content, a git state's files."""
    if record.get("kind") == "file" and isinstance(record.get("before"), str) and record.get("kept", True):
        return [str(record["before"])]
    files = record.get("files") if record.get("kind") == "git" else None
    return [str(d) for d in files.values()] if isinstance(files, dict) else []


def copy_objects(source: Path, target: Path) -> None:
    """A fork's checkpoints get the kept objects too (linked; copied where links cannot be made)."""
    for folder, _, names in os.walk(source / "git"):
        into = target / Path(folder).relative_to(source)
        into.mkdir(mode=0o700, parents=True, exist_ok=True)
        for name in names:
            with contextlib.suppress(OSError):
                if not (into / name).exists():
                    try:
                        os.link(Path(folder) / name, into / name)
                    except OSError:
                        shutil.copyfile(Path(folder) / name, into / name)


def last_state(cp: Checkpoints, gitdir: str, before_seq: int) -> GitState | None:
    for record in reversed(cp.records):
        if isinstance(record, GitState) and record.gitdir == gitdir and record.seq < before_seq:
            return record
    return None


def restore(cp: Checkpoints, state: GitState, *, apply: bool) -> list[str]:
    """What putting ``state`` back adds (``apply``: add it). Nothing that exists is removed."""
    gitdir = Path(state.gitdir)
    if gitdir.is_symlink():
        return ["not put back: the repository's .git is a symlink now"]
    files: dict[str, bytes] = {}
    for rel, digest in state.files:
        with contextlib.suppress(OSError, ValueError):
            files[rel] = cp.blob(digest)
    now = read_state(gitdir) if gitdir.is_dir() else {}
    refs_then, refs_now = refs_of(files), refs_of(now)
    missing = {name: value for name, value in refs_then.items() if name not in refs_now}
    moved = sorted(n for n, v in refs_then.items() if n in refs_now and refs_now[n] != v and n != "HEAD")
    logs_now = log_lines(now)
    logs = {rel: lines for rel, lines in log_lines(files).items()
            if not set(lines) <= set(logs_now.get(rel, []))}
    kept = keeper(cp, gitdir)
    objects = kept.missing(gitdir)
    said = []
    if missing:
        said.append(f"{len(missing)} ref(s) put back ({', '.join(sorted(missing)[:5])})")
    if logs:
        said.append(f"{len(logs)} reflog(s) put back")
    if objects:
        said.append(f"{len(objects)} object file(s) put back")
    if moved:
        said.append(f"moved since and left as they are: {', '.join(moved[:5])}")
    if not apply:
        return said
    for sub in ("objects/pack", "objects/info", "refs/heads", "refs/tags"):
        if not (gitdir / sub.split("/")[0]).is_symlink():
            (gitdir / sub).mkdir(parents=True, exist_ok=True)
    kept.put_back(gitdir, objects)
    for name, value in missing.items():
        _write(gitdir, name, (value + "\n").encode())
    for rel, lines in logs.items():
        old, later = set(lines), logs_now.get(rel, [])
        _write(gitdir, rel, b"".join(x + b"\n" for x in lines + [n for n in later if n not in old]))
    return said


def _write(gitdir: Path, rel: str, data: bytes) -> None:
    """Write ``rel`` under ``gitdir``: never through a symlink a command left on the way."""
    path = gitdir / rel
    if not _plain(rel):
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    if not _inside(path.parent, gitdir) or path.is_symlink() or path.is_dir():
        return
    tmp = path.with_name(f".{path.name}.{secrets.token_hex(4)}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644)
    with os.fdopen(fd, "wb") as out:
        out.write(data)
    os.replace(tmp, path)


def _inside(folder: Path, gitdir: Path) -> bool:
    top, real = os.path.realpath(gitdir), os.path.realpath(folder)
    return real == top or real.startswith(top.rstrip("/") + "/")


def _stamp(folder: Path) -> int | None:
    try:
        return os.lstat(folder).st_mtime_ns
    except OSError:
        return None


def _names(folder: Path) -> set[str]:
    try:
        return {e.name for e in os.scandir(folder)}
    except OSError:
        return set()


def _read_regular(path: Path) -> bytes | None:
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK)
    except OSError:
        return None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        chunks = []
        while chunk := os.read(fd, 1 << 16):
            chunks.append(chunk)
        return b"".join(chunks)
    except OSError:
        return None
    finally:
        os.close(fd)
