"""Git's staged copy of a secret file, for the sandbox to show in its place.

The sandbox binds an empty file over secret-looking files (``.env``, ``.envrc``, keys).
For a file git tracks, that emptiness is a lie that git inside the sandbox believes:
``git status`` shows the file changed, and ``git commit -a`` or ``git add -A`` commits
it emptied, wiping the user's file from the next commit. What git's index holds is no
secret from a sandboxed command (``.git`` is readable in there: ``git show :.envrc``
prints it), so the sandbox shows that copy instead: git sees the file as staged, and
local edits that are not staged (a key pasted in) stay hidden. Only a copy whose text
holds no values worth hiding is shown (:meth:`StagedCopies.shown`, finding X11): one that
does gave its token to any command that opened the file, so that file reads empty and
git is told to leave it as staged (:mod:`.gitmarks`) instead.

git runs here on the host, in a repository that may be hostile, so it runs hardened
(:mod:`.githardened`: no hooks, fsmonitor, transport, prompt or credential, no
inherited ``GIT_*`` variables, a short timeout): plumbing commands that only read the
index and objects, and a size cap. In a partial clone a staged blob that is missing
is not fetched (git would fetch it from a URL, running a command, the repository's
config names): it is read only when ``cat-file -e`` finds it here. Any failure means
the empty file, as before.

What a deny rule on reading or ``[sandbox] hide`` hides gets no copy at all, for git or
any other program: :mod:`.gitmarks` tells git to leave what it tracks there as staged.
"""

from __future__ import annotations

import atexit
import os
import re
import shutil
import tempfile
import threading
from collections.abc import Collection, Iterable, Iterator, Sequence
from pathlib import Path

from shell.core.secretfilevalues import secret_file_values

from . import githardened
from .gitconfigfile import entries

MAX_BLOB = 1 << 20
"""A staged copy larger than this is not shown (secret files are small; a huge one is
shown empty, as untracked ones are)."""

TIMEOUT = 3.0

READ_TIMEOUT = 30.0
"""For reading blobs in one batch."""

Blob = tuple[str, bool]
"""A staged object id and whether it is staged executable (its copy's mode follows)."""

_OBJECT_ID = re.compile(r"[0-9a-f]{40}|[0-9a-f]{64}")


def _text(path: str) -> str:
    """A staged copy's text (at most :data:`MAX_BLOB` bytes: no bigger one is made); ""
    when it cannot be read."""
    try:
        with open(path, "rb") as f:
            return f.read(MAX_BLOB).decode("utf-8", "replace")
    except OSError:
        return ""


def repository_of(path: Path, known: dict[str, bool] | None = None) -> Path | None:
    """The work tree holding ``path`` (the nearest parent with a ``.git``), or None.
    ``known`` keeps which folders have a ``.git`` for one pass over many paths: home's
    hidden files share their parents, and each was looked up to ``/`` (r17-cost)."""
    current = os.fspath(path)
    while True:
        parent = os.path.dirname(current)
        if parent == current:
            return None
        current = parent
        has = known.get(parent) if known is not None else None
        if has is None:
            has = os.path.lexists(os.path.join(parent, ".git"))
            if known is not None:
                known[parent] = has
        if has:
            return Path(parent)


class StagedCopies:
    """Files holding the staged content of tracked files, made once per blob (and
    mode) in a private directory of ours (removed at exit). Thread-safe: the sandbox asks
    from its preparing thread and, rarely, from the event loop."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._dir: str | None = None
        self._known: dict[tuple[Path, int, int, frozenset[Path]], dict[Path, str]] = {}
        self._holds: dict[str, bool] = {}
        """Whether a copy holds values worth hiding (:meth:`shown`), by its file."""

    def copies(self, paths: Iterable[Path]) -> dict[Path, str]:
        """For each of ``paths`` that git tracks (staged as a plain file): the file to
        show in its place. Paths that git does not track, or that could not be read,
        are left out."""
        by_repo: dict[Path, list[Path]] = {}
        known: dict[str, bool] = {}
        for path in paths:
            repo = repository_of(path, known)
            if repo is not None:
                by_repo.setdefault(repo, []).append(path)
        out: dict[Path, str] = {}
        for repo, wanted in by_repo.items():
            out.update(self._for_repo(repo, wanted))
        return out

    def shown(self, paths: Iterable[Path]) -> dict[Path, str]:
        """The copies of :meth:`copies` a command may read in place of the secret files
        ``paths``: only those whose staged text holds no value worth hiding (finding X11:
        a tracked ``.env`` bound as its staged copy gave its token to any command that
        opened it, in any spelling it liked). The others read empty, and git is told to
        leave them as staged (:mod:`.gitmarks`), so it still sees them unchanged."""
        out: dict[Path, str] = {}
        for path, copy in self.copies(paths).items():
            with self._lock:
                holds = self._holds.get(copy)
            if holds is None:  # a copy is named by its blob: what it holds never changes
                holds = bool(secret_file_values(_text(copy)))
                with self._lock:
                    if len(self._holds) >= 1024:  # one per staged version of a secret file
                        self._holds.clear()
                    self._holds[copy] = holds
            if not holds:
                out[path] = copy
        return out

    def _for_repo(self, repo: Path, wanted: list[Path]) -> dict[Path, str]:
        index = _index_file(repo)
        st = _stat(index)
        if index is None or st is None:
            return {}
        key = (repo, st.st_mtime_ns, st.st_size, frozenset(wanted))
        with self._lock:
            known = self._known.get(key)
        if known is not None and all(os.path.isfile(copy) for copy in known.values()):
            return known  # the index did not change since: no git at all
        staged = _staged_blobs(repo, wanted)
        lazy = bool(staged) and lazy_fetching(index.parent)
        stored = self._stored(repo, set(staged.values()), lazy, MAX_BLOB)
        made = {p: stored[b] for p, b in staged.items() if b in stored}
        with self._lock:
            if len(self._known) >= 1024:  # one per repository holding secrets, home's too
                self._known.clear()
            self._known[key] = made
        return made

    def _folder(self) -> str:
        with self._lock:
            if self._dir is None or not os.path.isdir(self._dir):
                self._dir = tempfile.mkdtemp(prefix="agent-shell-staged-")
                atexit.register(shutil.rmtree, self._dir, True)
            return self._dir

    def _stored(self, repo: Path, blobs: Collection[Blob], lazy: bool, cap: int) -> dict[Blob, str]:
        """``blob -> file`` holding it, for those of ``blobs`` that could be read (each
        at most ``cap`` bytes; in a partial clone only those here already)."""
        folder = self._folder()
        out: dict[Blob, str] = {}
        todo: list[Blob] = []
        for sha, executable in blobs:
            size = _size(os.path.join(folder, sha + ("-x" if executable else "")))
            if size is None:
                todo.append((sha, executable))
            else:
                out[(sha, executable)] = os.path.join(folder, sha + ("-x" if executable else ""))
        ids = list(dict.fromkeys(sha for sha, _ in todo if _OBJECT_ID.fullmatch(sha)))
        if lazy:  # cat-file -e never fetches (the batch commands below might, in older git)
            ids = [sha for sha in ids if _git(repo, ["cat-file", "-e", sha]) is not None]
        sizes = _sizes(repo, ids)
        data = _contents(repo, [sha for sha, size in sizes.items() if size <= cap])
        for sha, executable in todo:
            content = data.get(sha)
            if content is not None:
                out[(sha, executable)] = _write(folder, sha, executable, content)
        return out


def git_dir(repo: Path) -> Path | None:
    """The git directory of ``repo``'s work tree (following a ``.git`` file), or None."""
    index = _index_file(repo)
    return index.parent if index is not None else None


def index_stamp(repo: Path) -> tuple[int, int, int] | None:
    """What tells one state of ``repo``'s index from another (None: no index), for
    caching what git said about it."""
    st = _stat(_index_file(repo))
    return (st.st_ino, st.st_size, st.st_mtime_ns) if st is not None else None


def _index_file(repo: Path) -> Path | None:
    """The index of ``repo``'s work tree, following a ``.git`` file (worktrees,
    submodules) to its git directory."""
    dot = repo / ".git"
    if dot.is_dir():
        return dot / "index"
    if not dot.is_file():  # a FIFO or a device named .git would block or never end
        return None
    try:
        with open(dot, "rb") as handle:
            text = handle.read(4096).decode("utf-8", "replace")
    except OSError:
        return None
    if not text.startswith("gitdir:"):
        return None
    gitdir = Path(text[len("gitdir:"):].strip())
    return (gitdir if gitdir.is_absolute() else repo / gitdir) / "index"


def _git(repo: Path, args: Sequence[str], stdin: bytes = b"") -> bytes | None:
    done = githardened.run(["-C", str(repo), *args], stdin=stdin, timeout=TIMEOUT)
    return done.stdout if done is not None and done.returncode == 0 else None


def _config_of(gitdir: Path) -> Path:
    """The config git reads for ``gitdir``: a linked worktree's is in its common dir."""
    pointer = gitdir / "commondir"
    try:
        common = pointer.read_text(errors="replace").strip() if pointer.is_file() else ""
    except OSError:
        common = ""
    return (gitdir / common if common else gitdir) / "config"


def lazy_fetching(gitdir: Path) -> bool:
    """Whether git would fetch a missing object for ``gitdir`` (a partial clone:
    ``extensions.partialClone`` or a ``remote.*.promisor``); a config git cannot read
    counts as yes."""
    found = entries(_config_of(gitdir))
    if found is None:
        return True
    return any(key in ("extensions.partialclone", "remote.*.promisor") for key, _ in found)


def hardened_git(repo: Path, args: Sequence[str]) -> bytes | None:
    """git's output for a read-only plumbing command in ``repo``, run hardened as
    above (None: it failed, timed out, or git is missing)."""
    return _git(repo, args)


def _staged_blobs(repo: Path, wanted: list[Path]) -> dict[Path, Blob]:
    """``path -> blob`` for those of ``wanted`` staged as plain files (stage 0;
    not links, not submodules, not conflicted)."""
    names: dict[str, Path] = {}
    for path in wanted:
        try:
            names[str(path.relative_to(repo))] = path
        except ValueError:
            continue
    if not names:
        return {}
    listed = _git(repo, ["ls-files", "--stage", "-z", "--", *(":(literal)" + n for n in names)])
    out: dict[Path, Blob] = {}
    for entry in (listed or b"").split(b"\0"):
        meta, _, name = entry.partition(b"\t")
        fields = meta.split()
        if len(fields) != 3 or fields[2] != b"0" or fields[0] not in (b"100644", b"100755"):
            continue
        found = names.get(os.fsdecode(name))
        if found is not None:
            out[found] = (fields[1].decode("ascii", "replace"), fields[0] == b"100755")
    return out


def _sizes(repo: Path, ids: Sequence[str]) -> dict[str, int]:
    """``id -> size`` of those of ``ids`` that are blobs here (one ``cat-file --batch-check``)."""
    if not ids:
        return {}
    done = githardened.run(["-C", str(repo), "cat-file", "--batch-check"], timeout=READ_TIMEOUT,
                           stdin="".join(sha + "\n" for sha in ids).encode())
    asked = set(ids)
    out: dict[str, int] = {}
    for line in (done.stdout if done is not None and done.returncode == 0 else b"").splitlines():
        fields = line.decode("ascii", "replace").split()
        if len(fields) == 3 and fields[1] == "blob" and fields[0] in asked and fields[2].isdigit():
            out[fields[0]] = int(fields[2])
    return out


def _contents(repo: Path, ids: Sequence[str]) -> dict[str, bytes]:
    """``id -> content`` of ``ids`` (blobs here: :func:`_sizes`), in one ``cat-file --batch``."""
    if not ids:
        return {}
    done = githardened.run(["-C", str(repo), "cat-file", "--batch"], timeout=READ_TIMEOUT,
                           stdin="".join(sha + "\n" for sha in ids).encode())
    data = done.stdout if done is not None and done.returncode == 0 else b""
    out: dict[str, bytes] = {}
    at = 0
    for sha in ids:
        end = data.find(b"\n", at)
        if end < 0:
            break
        fields = data[at:end].decode("ascii", "replace").split()
        at = end + 1
        if fields == [sha, "missing"]:
            continue
        if len(fields) != 3 or fields[0] != sha or not fields[2].isdigit():
            break  # not what was asked: read no further
        size = int(fields[2])
        if fields[1] == "blob" and len(data) >= at + size:
            out[sha] = data[at:at + size]
        at += size + 1
    return out


def small_blobs(repo: Path, ids: Sequence[str], budget: int) -> dict[str, bytes]:
    """``id -> content`` of those of ``ids`` that are blobs here of at most :data:`MAX_BLOB`
    bytes, within ``budget`` bytes in all (the first first): one ``--batch-check``, one ``--batch``."""
    sizes = _sizes(repo, ids)
    chosen: list[str] = []
    for sha in ids:
        size = sizes.get(sha)
        if size is None or size > MAX_BLOB or size > budget:
            continue
        budget -= size
        chosen.append(sha)
    return _contents(repo, chosen)


def _write(folder: str, sha: str, executable: bool, data: bytes) -> str:
    """The read-only file (executable if staged so: git compares that bit) holding ``data``."""
    target = os.path.join(folder, sha + ("-x" if executable else ""))
    fd, scratch = tempfile.mkstemp(dir=folder)
    with os.fdopen(fd, "wb") as out:
        out.write(data)
    os.chmod(scratch, 0o555 if executable else 0o444)
    os.replace(scratch, target)
    return target


def _stat(path: Path | None) -> os.stat_result | None:
    try:
        return os.stat(path) if path is not None else None
    except OSError:
        return None


def _size(path: str) -> int | None:
    """The size of a copy made before (None: not made yet)."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_size if os.path.isfile(path) else None


def staged_rows(listing: bytes) -> Iterator[tuple[bytes, bytes, bytes]]:
    """``(mode, object, name)`` of each entry of ``git ls-files -s -z``'s output (every
    stage of a conflict: one row each)."""
    for entry in listing.split(b"\0"):
        meta, _, name = entry.partition(b"\t")
        fields = meta.split()
        if name and len(fields) == 3:
            yield fields[0], fields[1], name


def staged_entries(
    repo: Path, rels: Sequence[bytes], timeout: float
) -> dict[bytes, tuple[bytes, bytes]] | None:
    """``name -> (mode, object)`` of the index entries at or under ``rels`` (a conflict's
    first stage stands for it); None: git could not say."""
    done = githardened.run(["-C", str(repo), "ls-files", "-s", "-z", "--",
                            *(":(literal)" + os.fsdecode(r) for r in rels)], timeout=timeout)
    if done is None or done.returncode != 0:
        return None
    out: dict[bytes, tuple[bytes, bytes]] = {}
    for mode, blob, name in staged_rows(done.stdout):
        out.setdefault(name, (mode, blob))
    return out
