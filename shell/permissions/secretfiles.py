"""The secret-looking files inside the workspace, found for the sandbox to hide.

Reading ``.env`` with ``read_file`` asks first, because what a tool reads goes to
the model's provider. A sandboxed ``run_shell`` runs unasked in ``auto`` mode, so
``cat .env``, ``grep -r KEY .`` or ``tar c . | base64`` would read the same file
with no question. So before each sandboxed command the workspace (and every
directory added with ``--add-dir``) is searched for files that the one rule of
:func:`shell.core.secrets.is_secret_file` calls secret, and the sandbox binds an
empty read-only file over each: the command sees them empty (a write fails as
read-only). A command line that *names* such a file asks instead (see
:func:`.secretwords.named_secret_files`), and an approved call sees the files it named.

What is found:

- regular files whose name is secret-looking (any case: ``.ENV`` too), and those whose
  content is (a service-account key under any JSON name, a ``settings.xml`` or
  ``database.yml`` setting a password: :mod:`shell.core.secretcontent`), judged when
  their folder is listed and again at each search where the file's inode, size, mtime
  or ctime moved (a key written into an existing file: :mod:`.contentmarks`);
- the target of a symlink whose own name, or whose target's name, is secret-looking
  (``notes.txt -> ../.env``, ``key -> ~/elsewhere/prod.pem``);
- other hard links of a secret file inside the searched tree (same inode): a
  ``notes.txt`` that *is* ``.env`` is hidden as well.

One exception to the name rule: a ``.pem`` file that holds only certificates (no
``PRIVATE KEY`` anywhere in its first MB) is public, and commands need CA bundles
and test certificates to work; it is read (once per inode, size, mtime and ctime) to tell.

What is not searched: ``.git``, ``node_modules``, caches (but for a virtualenv right in
one) and what virtualenvs install into (:data:`SKIP_DIRS`; in a directory holding
``pyvenv.cfg`` its :data:`VENV_PARTS`):
dependencies, not the user's secrets (and a venv's ``cacert.pem`` is needed for HTTPS). A sandboxed
command must not be able to un-hide a file for the next command, so: a secret file
found once stays hidden while it is where it was, whether the walk reaches it or not
(and while it is missing there: :mod:`.secretvanished`);
one that is gone from there (moved, it or its folder, perhaps into ``node_modules``
under another name) makes the next search walk those directories too and look for it
by (device, inode); and a directory listed before as not a virtualenv stays searched
when a ``pyvenv.cfg`` appears in it. Directories behind symlinks are not
followed, files outside the searched roots are not searched (a command line that
names one still asks), and a file created *while* a command runs cannot be hidden
from that command.

It is bounded: one search reads at most :data:`MAX_ENTRIES` new directory entries
and runs at most :data:`MAX_SECONDS`; what it did not reach is said (the result is
``complete=False``) and ``auto`` mode then asks before a command. Each directory's
listing is kept with its inode and ctime, so a search after an unchanged tree costs
one ``stat`` per directory, and a big tree is finished by the following searches.
Not its mtime: a sandboxed command can set that back (``touch -d``) after planting
something in the folder; adding, removing or renaming an entry sets the folder's
ctime, which nothing but the clock sets.
"""

from __future__ import annotations

import dataclasses
import fnmatch
import glob
import os
import re
import stat
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from shell.core.secretcontent import looked_into, secret_content_why
from shell.core.secretcopies import CHEZMOI_PREFIXES
from shell.core.secrets import BY_FOLDER, is_secret_file

from . import paths as resolving
from .contentmarks import ContentMarks
from .laternames import PLACED_DIRS, why
from .pathdirs import relative_program_names
from .secretvanished import Vanished
from .secretwords import WILDCARD
from .shadowmodules import module_name, noted_again, noted_in

SKIP_DIRS = frozenset({
    ".git", ".hg", ".svn", "node_modules", "__pycache__", ".mypy_cache", ".pytest_cache", ".ruff_cache",
})  # fmt: skip
"""Directories not searched (unless a known secret file moved: then all are). Not
``.tox`` or ``.nox``: they hold the virtualenvs ``tox`` and ``nox`` run as the user (each
guarded like a ``.venv``, its ``lib/`` skipped as any venv's), little else."""
CACHE_DIRS = frozenset({".mypy_cache", ".pytest_cache", ".ruff_cache"})
"""Skipped folders whose own listing is kept all the same (a few entries): a folder right
in one that holds a ``pyvenv.cfg`` is searched, so a virtualenv there is guarded too."""
VENV_PARTS = frozenset({"lib", "lib64", "Lib", "include", "Include", "share"})
"""What a virtualenv (a folder holding ``pyvenv.cfg``) installs into: not searched. Its
other folders are, since a ``pyvenv.cfg`` is only a text file (a repository can commit
one, a command can write one) and must not hide ``pkg/conf/.env`` beside it."""
HISTORY_FOLDER = ".history"
"""Where VS Code's Local History (and its twins) keep every saved version of every file
under a dated name: a ``.env`` saved 300 times is 300 secret copies, and a bind each made
a sandboxed ``true`` 11 times slower (``benchmarks/hidden_copies.py``). Such a folder is
hidden whole, empty and read-only (commands need no editor's backups; ``read_file`` still
reads what is not secret there), unless a call was shown a file in it, or git tracks a
file in it: hidden whole, its tracked files looked deleted and a sandboxed
``git commit -a`` committed that (finding P9), so there each secret copy is bound alone
(git's staged copy for a tracked one)."""
MAX_ENTRIES = 100_000
"""Directory entries one search reads fresh (listings kept from before are not counted)."""
MAX_SECONDS = 1.0
"""Wall time one search may take before it stops and says it is incomplete."""
RACY_NS = 100_000_000
"""A listing taken this soon after the directory's ctime is not trusted later (an
entry added right after it was listed could leave a coarse ctime as it was)."""


@dataclass(frozen=True, slots=True)
class _Listing:
    """What one directory held when it was listed."""

    ctime: int
    """The folder's ctime when listed (not its mtime: see the module's docstring)."""
    listed_at: int
    secrets: tuple[str, ...]
    links: tuple[str, ...]
    subdirs: tuple[str, ...]
    venv: bool
    entries: int
    later: tuple[str, ...] = ()
    """Entries named like what runs later (``.git``, ``.envrc``, ``.vscode``…)."""

    ident: tuple[int, int] = (0, 0)
    """The folder's device and inode: a folder put in another's place is listed anew."""
    files: tuple[str, ...] = ()
    """Every other entry that is neither a folder nor a link (for :meth:`SecretFileIndex.files_where`)."""
    sniffed: tuple[str, ...] = ()
    """The files read for their content and found harmless (looked at again at each search:
    a write into a file leaves its folder's ctime as it was)."""
    modules: tuple[str, ...] = ()
    """Entries named like a standard or installed Python module, in a folder that is no package."""

    @property
    def racy(self) -> bool:
        """Listed so soon after its last change that a later one may not show in the ctime."""
        return self.listed_at - self.ctime < RACY_NS

    def stale(self, info: os.stat_result) -> bool:
        """Whether the folder may have changed since it was listed (so list it again)."""
        return self.racy or self.ctime != info.st_ctime_ns or self.ident != (info.st_dev, info.st_ino)


@dataclass(frozen=True, slots=True)
class SecretFiles:
    """The result of one search: the real paths to hide, and whether it got through."""

    paths: tuple[Path, ...] = ()
    complete: bool = True
    why_incomplete: str = ""
    roots: tuple[Path, ...] = field(default=())
    runs_later: tuple[Path, ...] = ()
    """What the walk saw named like :data:`.runslater.RUNS_LATER`, at any depth (as
    found, not resolved): the sandbox keeps these read-only."""
    unreached: tuple[Path, ...] = ()
    """The folders the bound kept the search out of (the home walk hides them whole)."""
    modules: tuple[Path, ...] = ()
    """Entries named like a standard or installed Python module, at any depth (.shadowmodules, A14)."""

    def shown(self, limit: int = 5) -> str:
        """``.env, config/prod.key and 3 more`` (relative to a root where inside one)."""
        names = [self.relative(p) for p in self.paths[:limit]]
        more = len(self.paths) - len(names)
        return ", ".join(names) + (f" and {more} more" if more > 0 else "")

    def relative(self, path: Path) -> str:
        for root in self.roots:
            if path == root or root in path.parents:
                rel = path.relative_to(root).as_posix()
                return rel if root == self.roots[0] else f"{root}/{rel}"
        return str(path)

    def other_name_of(self, path: str) -> str:
        """The secret-named file (relative to a root) that ``path`` is a hard link of,
        or empty: ``ln .env notes.txt`` reads the same keys under a harmless name."""
        try:
            info = os.stat(path)
        except OSError:
            return ""
        for found in self.paths:
            if not is_secret_file(str(found)):
                continue
            try:
                other = os.stat(found)
            except OSError:
                continue
            if (other.st_dev, other.st_ino) == (info.st_dev, info.st_ino):
                return self.relative(found)
        return ""

    def hidden_whole(self, shown: Sequence[Path] = ()) -> tuple[Path, ...]:
        """The outermost :data:`HISTORY_FOLDER` inside a root that holds a secret file
        found (not one holding a file ``shown`` to the call): the sandbox hides it whole."""
        out: dict[Path, None] = {}
        marker = f"/{HISTORY_FOLDER}/"
        prefixes = [str(root).rstrip("/") + "/" for root in self.roots]
        for path in self.paths:
            text = str(path)
            prefix = next((p for p in prefixes if text.startswith(p)), "")
            at = text.find(marker, len(prefix) - 1) if prefix else -1
            if at >= 0:
                out[Path(text[: at + len(marker) - 1])] = None
        return tuple(f for f in out if not any(f in s.parents for s in shown))

    def matching(self, names: list[str]) -> tuple[Path, ...]:
        """The hidden files a command line's words name: a word names the files whose
        path (relative to a root, or absolute) ends with it, so ``.env`` names every
        ``.env`` found, ``config/.env`` only those under a ``config``; a wildcard names
        the files whose name it matches (``*.pem``: every one)."""
        wanted = [n.strip("/").removeprefix("./") for n in names if n.strip("/")]
        globs = [w.rsplit("/", 1)[-1] for w in wanted if WILDCARD.search(w)]
        out: list[Path] = []
        for path in self.paths:
            text = path.as_posix()
            if any(text == "/" + w.lstrip("/") or text.endswith("/" + w) for w in wanted) or any(
                fnmatch.fnmatchcase(path.name, g) for g in globs
            ):
                out.append(path)
        return tuple(out)


class SecretFileIndex:
    """Searches some roots for secret-looking files, remembering what it listed.

    Thread-safe (one search at a time); share one per workspace."""

    def __init__(
        self, roots: list[Path], *, max_entries: int = MAX_ENTRIES, max_seconds: float = MAX_SECONDS,
        prune: Callable[[str], bool] | None = None, needed: Callable[[str], bool] | None = None,
        follow_moves: bool = True, later: Callable[[str], object] = why, look_into: bool = True,
        modules: Callable[[], frozenset[str]] | None = None,
    ) -> None:
        self.roots = _real(roots)
        self.max_entries = max_entries
        self.max_seconds = max_seconds
        self.prune = prune
        """Folders not entered at all, besides :data:`SKIP_DIRS` (the home walk: the
        workspace, which its own index searches, and home's dot folders)."""
        self.needed = needed
        """Folders listed whatever the bound (those holding the workspace: the home walk
        could not hide them whole)."""
        self.follow_moves = follow_moves
        self.later = later
        """Which entries the result's ``runs_later`` lists (:func:`.laternames.why`; the home
        walk wants only ``.git``, and skips the cost of asking of every name)."""
        """Look everywhere for a secret file that moved (off where commands cannot move
        files, as in home: the user deleting a key there must not widen the next walk)."""
        self.look_into = look_into  # read JSON and settings files (not in home: ~/.config's thousands)
        self.modules = modules  # the names a new module must not take (.shadowmodules), read once a search
        self._module_names: frozenset[str] | None = None
        self._listings: dict[str, _Listing] = {}
        self._known: dict[str, tuple[int, int]] = {}
        self._vanished = Vanished()  # found once, missing at a search since: still listed (W5)
        self._content = ContentMarks()
        self._lock = threading.Lock()
        self.last: SecretFiles | None = None
        """The last search's result (None before the first)."""
        self._dirs: list[str] = []  # the folders the last search listed
        self._matched: dict[tuple[str, bool], dict[str, tuple[_Listing, tuple[str, ...]]]] = {}
        """Per wildcard pattern: each folder's names it matched, with the listing they
        were matched in (:meth:`files_where`)."""

    def set_roots(self, roots: list[Path]) -> None:
        with self._lock:
            self.roots = _real(roots)
            self.last = None

    def find(self, scale: int = 1, in_place: bool = True) -> SecretFiles:
        """Search now (what did not change since the last search is not listed again).
        Never raises: a search the file system cuts short is an incomplete result (auto
        mode then asks), not an error in the middle of deciding a call. ``scale``
        multiplies the bounds (the check after a command, which must not be outrun by
        a command that made 100,000 files to hide what it planted). ``in_place``: look
        again at the files of unchanged folders read for their content (one ``lstat``
        each, :mod:`.contentmarks`); the check after a command leaves that to the search
        before the next one, which must do it anyway (the user may write in between)."""
        with self._lock:
            try:
                self.last = self._search(self.max_entries * scale, self.max_seconds * scale, in_place)
            except OSError as exc:
                why = f"the search failed ({exc.strerror or exc}); files were not hidden"
                self.last = SecretFiles((), False, why, tuple(self.roots))
            return self.last

    def find_unless_busy(self) -> SecretFiles:
        """:meth:`find`, unless a search runs now in another thread (the check after a
        command, ten times as far): then the last result, rather than wait for it on the
        caller's thread (a question asked on the event loop would freeze the screen)."""
        if self.last is not None:
            if not self._lock.acquire(blocking=False):
                return self.last
            self._lock.release()
        return self.find()

    def files_where(self, names: Sequence[str], limit: int, links: bool = False) -> list[Path]:
        """The files the last search listed (not in skipped folders; links too if ``links``)
        whose name matches one of the wildcards ``names``, at most ``limit``: the candidates
        for a rule on writing such as ``**/*.pem`` (:mod:`.writewalls` confirms each). Asked
        before and after every command; a folder whose listing is the one matched last
        time is not matched again (50,000 names matched twice a command, in a big tree)."""
        if not names:
            return []
        pattern = re.compile("|".join(fnmatch.translate(n) for n in names))
        out: list[Path] = []
        with self._lock:
            if len(self._matched) > 16:  # the rules changed many times: forget the old patterns
                self._matched.clear()
            memo = self._matched.setdefault((pattern.pattern, links), {})
            for directory in self._dirs:
                listing = self._listings.get(directory)
                if listing is None:
                    continue
                known = memo.get(directory)
                if known is None or known[0] is not listing:
                    every = (*listing.files, *listing.links) if links else listing.files
                    known = memo[directory] = (listing, tuple(n for n in every if pattern.match(n)))
                for name in known[1]:
                    out.append(Path(directory, name))
                    if len(out) >= limit:
                        return out
        return out

    # -- searching -------------------------------------------------------------------
    def _lost(self) -> tuple[dict[str, None], set[tuple[int, int]]]:
        """The secret files found before that are still where they were (hidden
        whether the walk reaches them or not: a command that drops a ``pyvenv.cfg``
        beside one must not un-hide it), and the (device, inode) of those that are
        not (moved: looked for everywhere, by inode, whatever the name or mtimes)."""
        here: dict[str, None] = {}
        lost: set[tuple[int, int]] = set()
        for path, ident in self._known.items():
            try:
                info = os.lstat(path)
            except OSError:
                lost.add(ident)
                continue
            if (info.st_dev, info.st_ino) == ident:
                here[path] = None
            else:
                lost.add(ident)
        return here, lost

    def _search(self, max_entries: int, max_seconds: float, in_place: bool = True) -> SecretFiles:
        here, lost = self._lost()
        lost = lost if self.follow_moves else set()
        everywhere = bool(lost)
        deadline = time.monotonic() + max_seconds
        fresh = 0
        stopped = ""
        found: dict[str, None] = {}
        later: dict[str, None] = {}
        modules: list[str] = []
        self._module_names = self._names_again()
        links: list[str] = []
        dirs: list[str] = []
        stack = [str(r) for r in reversed(self.roots)]
        seen: set[str] = set()
        unreached: list[str] = []
        while stack:
            directory = stack.pop()
            if directory in seen:
                continue
            seen.add(directory)
            try:
                info = os.lstat(directory)
            except OSError:
                continue
            if not stat.S_ISDIR(info.st_mode):
                continue
            prefix = directory.rstrip("/") + "/"
            listing = self._listings.get(directory)
            if listing is not None and not listing.stale(info):
                for name in self._content.newly_secret(prefix, listing.sniffed if in_place else ()):
                    found[prefix + name] = None  # a key written into a file in place
            else:
                if (fresh >= max_entries or time.monotonic() > deadline) and not (
                        self.needed and self.needed(directory)):
                    unreached.append(directory)
                    stopped = stopped or (
                        f"more than {max_entries:,} entries"
                        if fresh >= max_entries
                        else f"over {max_seconds:g} s"
                    )
                    continue
                listing = self._relist(directory, info)
                fresh += listing.entries
            dirs.append(directory)
            for name in listing.secrets:
                found[prefix + name] = None
            for name in listing.links:
                links.append(prefix + name)
            for name in listing.later:
                later[prefix + name] = None
            modules += (prefix + name for name in listing.modules)
            venv = listing.venv and not everywhere
            if venv:
                for path in self._site_later(directory):  # what Python runs at every start there
                    later[path] = None
            stack += self._to_walk(prefix, listing.subdirs, venv, everywhere)
        found.update(here)
        found.update(dict.fromkeys(self._vanished.covering(self._listings.get, self._known, found)))
        self._dirs = dirs
        self._finish(found, links, dirs, lost, bool(stopped))
        if len(self._listings) > 4 * max(len(seen), 1024):  # listings of directories gone
            self._listings = {d: v for d, v in self._listings.items() if d in seen}
            self._matched.clear()
        why = f"the search stopped at {stopped}; files in the rest are not hidden" if stopped else ""
        return SecretFiles(tuple(Path(p) for p in found), not stopped, why, tuple(self.roots),
                           tuple(Path(p) for p in later), tuple(Path(d) for d in unreached),
                           tuple(Path(p) for p in modules))

    def _names_again(self) -> frozenset[str] | None:
        """This search's module names: a venv's new package has the folders listed before judged anew (D8)."""
        names, old = (self.modules() if self.modules is not None else None), self._module_names
        for d, v in self._listings.items() if names and old and names != old else ():
            again = noted_again(d, v.files, v.subdirs + v.links, names or ())
            self._listings[d] = dataclasses.replace(v, modules=again)
        return names

    def _relist(self, directory: str, info: os.stat_result) -> _Listing:
        """List ``directory`` again (it changed), keeping the verdict "not a virtualenv"
        of a listing before: a folder searched before as the user's own does not
        become a dependency because a ``pyvenv.cfg`` appeared in it (a command can
        write one, and its secret files would be searched no more)."""
        old = self._listings.get(directory)
        listing = _list(directory, info, self.later, self.look_into, self._module_names)
        if listing.venv and old is not None and not old.venv:
            listing = dataclasses.replace(listing, venv=False)
        self._listings[directory] = listing
        return listing

    def _to_walk(self, prefix: str, subdirs: Sequence[str], venv: bool, everywhere: bool) -> list[str]:
        """The folders of ``subdirs`` to search, last first (for the walk's stack)."""
        out: list[str] = []
        for name in reversed(subdirs):
            if everywhere or not (name in SKIP_DIRS or (venv and name in VENV_PARTS)):
                out.append(prefix + name)
            elif name in CACHE_DIRS:
                out += self._venvs_in(prefix + name)
        return out if self.prune is None else [d for d in out if not self.prune(d)]

    def _venvs_in(self, cache: str) -> list[str]:
        """The folders right in a skipped cache folder that hold a ``pyvenv.cfg``: a
        virtualenv made there is searched (and so guarded) as one anywhere else."""
        try:
            info = os.lstat(cache)
        except OSError:
            return []
        listing = self._listings.get(cache)
        if listing is None or listing.stale(info):
            listing = self._listings[cache] = _list(cache, info)
        prefix = cache + "/"
        return [prefix + name for name in reversed(listing.subdirs)
                if os.path.isfile(f"{prefix}{name}/pyvenv.cfg")]

    def _site_later(self, venv: str) -> list[str]:
        """The ``*.pth`` and ``sitecustomize.py`` files in a virtualenv's own
        ``lib/python*/site-packages`` (not through a symlink such as ``lib64``): the
        rest of a venv is not walked, but these run at every Python start in it."""
        out: list[str] = []
        pattern = os.path.join(glob.escape(venv), "lib", "python*", "site-packages")
        for site in sorted(glob.glob(pattern)):
            try:
                info = os.lstat(site)
                if not stat.S_ISDIR(info.st_mode) or os.path.realpath(site) != site:
                    continue
            except OSError:
                continue
            listing = self._listings.get(site)
            if listing is None or listing.stale(info):
                listing = self._listings[site] = _list(site, info, self.later)
            out += [f"{site}/{name}" for name in listing.later]
        return out

    def _finish(
        self, found: dict[str, None], links: list[str], dirs: list[str], lost: set[tuple[int, int]],
        stopped: bool,
    ) -> None:
        """Add symlinks' secret targets, hard links and the files found before that
        moved (by inode); remember where each file is (path and inode). A moved
        file (``lost``) that a search which ``stopped`` short did not find is
        remembered still, so the next search looks everywhere
        again (a command that moves ``.env``'s folder into a ``node_modules`` it
        filled past the bound must not have it forgotten)."""
        for link in links:
            try:  # a link the user may not follow (a committed `evil -> /proc/1/cwd`)
                target = os.path.realpath(link)
            except OSError:
                continue
            if (is_secret_file(link) or is_secret_file(target)) and os.path.isfile(target):
                found[target] = None
        self._add_same_inodes(found, dirs, lost)
        for path in [p for p in found if p.lower().endswith(".pem")]:
            if self._content.public_pem(path):
                del found[path]
        before, self._known = self._known, {}
        for path in found:
            try:
                info = os.lstat(path)
            except OSError:
                continue
            self._known[path] = (info.st_dev, info.st_ino)
        self._vanished.update(before, self._known)
        still = set(self._known.values())
        for path, ident in before.items():
            if stopped and ident in lost and ident not in still:
                self._known.setdefault(path, ident)

    def _add_same_inodes(self, found: dict[str, None], dirs: list[str], lost: set[tuple[int, int]]) -> None:
        """Other names of a secret file (``ln .env notes.txt``) inside the searched
        tree, and where a secret file found before went (``lost``: its inode), under
        whatever name: ``mv sub node_modules/`` or ``mv .env notes.txt`` hides it still."""
        linked: set[tuple[int, int]] = set(lost)
        for path in found:
            try:
                info = os.stat(path)
            except OSError:
                continue
            if info.st_nlink > 1 and stat.S_ISREG(info.st_mode):
                linked.add((info.st_dev, info.st_ino))
        if not linked:
            return
        inodes = {ino for _, ino in linked}
        for directory in dirs:
            try:
                with os.scandir(directory) as entries:
                    for entry in entries:
                        if entry.inode() in inodes and entry.is_file(follow_symlinks=False):
                            info = entry.stat(follow_symlinks=False)
                            if (info.st_dev, info.st_ino) in linked:
                                found[entry.path] = None
            except OSError:
                continue


def _real(roots: list[Path]) -> list[Path]:
    out = []
    for root in roots:
        try:
            out.append(resolving.real_root(root))
        except (OSError, resolving.BadPath):
            out.append(Path(os.path.abspath(root)))
    return out


def _list(
    directory: str, info: os.stat_result, later_why: Callable[[str], object] = why, look_into: bool = False,
    module_names: frozenset[str] | None = None,
) -> _Listing:
    listed_at = time.time_ns()
    secrets: list[str] = []
    links: list[str] = []
    subdirs: list[str] = []
    later: list[str] = []
    files: list[str] = []
    sniffed: list[str] = []
    modules: list[str] = []
    venv = False
    count = 0
    placed = os.path.basename(directory).casefold() in PLACED_DIRS
    programs = relative_program_names()  # src/git where PATH has "." (A11): why() needs its folder
    try:
        with os.scandir(directory) as entries:
            for entry in entries:
                count += 1
                name = entry.name
                if later_why(f"{directory}/{name}" if placed or name in programs else name):
                    later.append(name)
                if module_names is not None and module_name(name) in module_names:
                    modules.append(name)
                try:
                    if entry.is_symlink():
                        links.append(name)
                    elif entry.is_dir(follow_symlinks=False):
                        subdirs.append(name)
                    else:
                        files.append(name)
                        by_folder = name in BY_FOLDER or name.startswith(CHEZMOI_PREFIXES)  # hosts.yml
                        if (is_secret_file(entry.path if by_folder else name)
                                and entry.is_file(follow_symlinks=False)):
                            secrets.append(name)
                        elif look_into and looked_into(name):  # a service-account key, a password
                            (secrets if secret_content_why(entry.path) else sniffed).append(name)
                            venv = venv or name == "pyvenv.cfg"
                        elif name == "pyvenv.cfg":
                            venv = True
                except OSError:
                    continue
    except OSError:
        pass
    return _Listing(
        info.st_ctime_ns, listed_at, tuple(sorted(secrets)), tuple(links), tuple(sorted(subdirs)), venv,
        count, tuple(later), (info.st_dev, info.st_ino), tuple(files), tuple(sniffed),
        noted_in(directory, files, modules),
    )


__all__ = ["MAX_ENTRIES", "SKIP_DIRS", "SecretFileIndex", "SecretFiles"]
