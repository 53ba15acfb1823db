"""The secret-looking files of the user's other projects under home, hidden from commands.

The workspace's secret files read as empty in the sandbox (:mod:`.secretfiles`), and
home's credential stores and dot folders are hidden by :mod:`.homesecrets`. That left
the rest of home readable: ``grep -r sk- ~`` in a command run unasked (``auto``) read
``~/projects/other/.env``, ``~/src/y/key.pem`` and ``~/work/z/terraform.tfstate``, and
``cat ~/projects/x/.git/config`` printed the token in its remote URL (tester round 9,
N5), while every approval said the command ran with "no secrets".

So before each sandboxed command home's other folders are searched too, by the same
index as the workspace (:class:`.secretfiles.SecretFileIndex`: the same one rule of
what is secret-looking, the same skipped folders, listings kept by folder stamp so a
later command lists only what changed), home's dot folders, ``~/.config`` and
``~/.local/share`` included, at any depth: a depth cap failed open (tester round 11, Q8:
``~/.dotfiles/env/prod/deep/.env``, ``~/.config/app/a/b/c/.env`` were read), and a file
created there later is found by its folder's stamp. It enters neither the workspace (its
own walk), nor ``~/.cache`` and home's stores hidden whole anyway (:mod:`.homesecrets`),
nor toolchains' downloads (:data:`DEPENDENCY_STORES`), nor the folders the config makes writable
(``[sandbox] writable``: tools' caches, which a folder hidden whole would break). What it
finds is hidden as in the workspace: an empty read-only file, or git's staged copy where git tracks it
(:mod:`.gitstaged`, so ``git -C ~/other status`` shows nothing changed); and each
repository's ``.git/config`` under home is shown without credentials, by the same
copy the workspace's repositories get (:class:`.gitcreds.ScrubbedConfigs`).

It is bounded like the workspace's walk, and fails closed: a folder the walk did not
reach in time is hidden whole (an empty read-only folder), and said once in a
command's result and in every approval while it lasts. The next commands go on from
the listings kept, so a big home is finished after a few. Folders that hold the
workspace (or a writable folder, or the workspace's git directory) are listed whatever
the bound: hiding them would hide the workspace.

Commands cannot change home outside the workspace (it is read-only to them), so a
secret file that moved there was moved by the user, and is not looked for everywhere
(the workspace's walk does that, since a command can move files in it).
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from . import paths
from .gitcreds import ScrubbedConfigs
from .gitstaged import StagedCopies
from .homedirs import home_dirs
from .homesecrets import SECRET_PATHS, STARTUP_FILES
from .secretfiles import SecretFileIndex, SecretFiles
from .unreachable import closed_to_commands

MAX_ENTRIES = 200_000
"""Directory entries one walk of home reads fresh (home holds every other project)."""
MAX_SECONDS = 1.5
"""Wall time one walk of home may take; what it did not reach is hidden whole."""
MAX_COVERS = 64
"""Folders hidden whole at most: past it, they are replaced by their parents (each is a
mount, and bubblewrap's mounts cost more the more there are: 50 +5.5 ms, 150 +46 ms)."""
MAX_FILE_BINDS = 200
"""Secret files under home hidden one by one at most (a mount each); past it the folders
holding the most are hidden whole instead."""
DEPENDENCY_STORES = (
    "go/pkg", "sdk", "miniconda3", "anaconda3", "miniforge3", "mambaforge", "micromamba", "Android/Sdk",
    # in home's dot folders: caches, toolchains, package stores, editors' extensions, apps' data
    ".cache", ".rustup", ".cargo/registry", ".cargo/git", ".npm", ".nvm", ".pyenv", ".rbenv",
    ".m2/repository", ".gradle/caches", ".gradle/wrapper", ".ivy2/cache", ".sbt/boot", ".local/lib",
    ".local/share/flatpak", ".local/share/Steam", ".local/share/pnpm", ".local/share/uv",
    ".local/share/virtualenvs", ".local/pipx", ".local/share/pipx", ".local/share/containers",
    ".local/share/mise", ".local/share/nvim/lazy", ".local/share/nvim/site", ".local/share/JetBrains",
    ".local/share/icons", ".local/share/fonts", ".vscode/extensions", ".vscode-server/bin",
    ".vscode-server/extensions", ".vscode-server/cli", ".cursor-server/bin", ".cursor-server/extensions",
    ".bun/install", ".deno", ".sdkman", ".android", ".gem", ".cpan", ".conan", ".conan2", ".julia/packages",
    ".julia/artifacts", ".ghcup", ".stack", ".cabal/packages", ".opam", ".elan", ".mix", ".hex", ".pub-cache",
    ".dotnet", ".nuget/packages", ".docker", ".minikube", ".var/app/com.valvesoftware.Steam", ".steam",
    ".wine", ".local/share/Trash", ".mozilla",
)  # fmt: skip
"""Relative to home: where toolchains keep what they download (Go's module cache and SDKs,
conda, and their like in home's dot folders: ``~/.cargo/registry``, ``~/.rustup``,
``~/.npm``), not walked: dependencies, not the user's secrets (as ``node_modules``), and
their test keys (``testdata/*.pem`` by the thousand) would each cost a mount per command,
or, unreached in time, be hidden whole and break the toolchain."""
PRIVATE = (Path("/tmp"), Path("/var/tmp"))
"""Replaced by empty ones in the sandbox: a home there needs no walk."""


@dataclass(frozen=True, slots=True)
class HomeFound:
    """What one walk of home found to hide."""

    files: tuple[Path, ...] = ()
    """Secret-looking files (real paths)."""
    configs: tuple[Path, ...] = ()
    """Git configs of repositories under home, to show scrubbed."""
    covered: tuple[Path, ...] = ()
    """Folders the walk did not reach in time, or holding too many secret files: hidden whole."""
    homes: tuple[Path, ...] = ()

    def said(self) -> str:
        """What an approval and a result say of the folders hidden whole (empty if none)."""
        if not self.covered:
            return ""
        shown = ", ".join(_cut(self.tilde(p)) for p in self.covered[:3])
        more = f" and {len(self.covered) - 3} more" if len(self.covered) > 3 else ""
        many = len(self.covered) != 1
        return (f"{len(self.covered)} folder{'s' if many else ''} under your home {'are' if many else 'is'} "
                f"hidden whole ({shown}{more}): the walk for secret files could not reach "
                f"{'them' if many else 'it'} in time, or there are too many to hide one by one")

    def tilde(self, path: Path) -> str:
        """``path`` as ``~/…`` under ``$HOME``, what ``~`` means to the user; in full
        under the password database's home when ``HOME`` points elsewhere (shown as
        ``~/…`` it would name a folder that is not there)."""
        home = _current_home()
        if home is not None and paths.within(path, home):
            rel = paths.relative(path, home)
            return "~" if not rel or rel == "." else f"~/{rel}"
        return str(path)


def _current_home() -> Path | None:
    try:
        return paths.real_root(Path(os.path.expanduser("~")))
    except (OSError, paths.BadPath):
        return None


class HomeFiles:
    """The walk of home for one sandbox (thread-safe as its index is)."""

    def __init__(self, *, max_entries: int = MAX_ENTRIES, max_seconds: float = MAX_SECONDS) -> None:
        self._roots: frozenset[str] = frozenset()  # the workspace and added dirs: not entered
        self._anchors: list[str] = []  # what must stay visible: their parents are listed whatever the bound
        self._tops: list[str] = []  # the checkout a subfolder workspace lies in: never hidden whole
        self._homes: frozenset[str] = frozenset()
        self._stores: frozenset[str] = frozenset()
        self.index = SecretFileIndex([], max_entries=max_entries, max_seconds=max_seconds, prune=self._prune,
                                     needed=self._needed, follow_moves=False, later=_git_named,
                                     look_into=False)
        self.last: HomeFound | None = None
        self._told: tuple[Path, ...] = ()
        self._said: set[str] = set()

    def find(
        self, roots: Sequence[Path], anchors: Sequence[Path] = (), tops: Sequence[Path] = ()
    ) -> HomeFound:
        """Walk home now (only folders that changed are listed again), outside ``roots`` (the
        workspace, added and writable folders); the folders holding them or ``anchors`` (git
        directories outside), and ``tops`` (the checkout holding the workspace), are never
        hidden whole."""
        self._roots = frozenset(str(r) for r in roots)
        self._anchors = [str(a) for a in (*roots, *anchors, *tops)]
        self._tops = [str(t) for t in tops if any(paths.within(r, t) for r in roots)]
        homes = self.homes(roots)
        if [str(h) for h in homes] != [str(r) for r in self.index.roots]:
            self.index.set_roots(homes)
        self._homes = frozenset(str(r) for r in self.index.roots)
        hidden = (*DEPENDENCY_STORES, *SECRET_PATHS, *STARTUP_FILES)  # hidden whole already, or not ours
        self._stores = frozenset(f"{h}/{rel}" for h in self._homes for rel in hidden)
        walked = self.index.find() if homes else SecretFiles()
        configs = tuple(c for d in walked.runs_later if d.name == ".git" for c in _git_configs(d))
        mine = tuple(f for f in walked.paths if not any(paths.within(f, r) for r in self._roots))
        crowded = self._crowded(mine)
        covered = _collapse([*(str(d) for d in walked.unreached), *crowded], self._fixed)
        inside = {str(c) for c in covered}
        files = tuple(f for f in mine if not (inside and inside.intersection(map(str, f.parents))))
        self.last = HomeFound(files, configs, tuple(covered), tuple(homes))
        return self.last

    def _crowded(self, files: Sequence[Path]) -> list[str]:
        """The folders to hide whole so that at most :data:`MAX_FILE_BINDS` files are hidden
        one by one: those holding the most first (not one that holds the workspace)."""
        if len(files) <= MAX_FILE_BINDS:
            return []
        by_folder = Counter(os.path.dirname(str(f)) for f in files)
        left, out = len(files), []
        for folder, count in by_folder.most_common():
            if left <= MAX_FILE_BINDS:
                break
            if not self._fixed(folder):
                out.append(folder)
                left -= count
        return out

    def homes(self, roots: Sequence[Path]) -> list[Path]:
        """The home folders to walk: not one the workspace holds (its walk covers it), nor
        one in the sandbox's private ``/tmp`` (commands cannot see it)."""
        out: list[Path] = []
        for home in home_dirs():
            try:
                real = paths.real_root(home)
            except (OSError, paths.BadPath):
                continue
            if not real.is_dir() or any(paths.within(real, r) for r in roots):
                continue
            if any(paths.within(real, p) for p in PRIVATE):
                continue
            out.append(real)
        return list(dict.fromkeys(out))

    def news(self) -> str:
        """:meth:`HomeFound.said` the first time the folders hidden whole are these (else empty)."""
        found = self.last
        if found is None or found.covered == self._told:
            return ""
        self._told = found.covered
        return found.said()

    def said_once(self, topic: str, note: str) -> str:
        """``note`` the first time ``topic`` has one (a bound of home's that was hit), empty
        while it lasts; an empty ``note`` (the bound no longer hit) lets the next one be said."""
        if not note:
            self._said.discard(topic)
            return ""
        if topic in self._said:
            return ""
        self._said.add(topic)
        return note

    def _prune(self, path: str) -> bool:
        return path in self._roots or path in self._stores

    def _fixed(self, directory: str) -> bool:
        """Whether ``directory`` may not be hidden whole: it holds what must stay visible, or
        is not inside a home folder (a symlink's target elsewhere; home itself)."""
        inside = any(directory.startswith(h.rstrip("/") + "/") for h in self._homes)
        return not inside or self._needed(directory)

    def _needed(self, directory: str) -> bool:
        return (directory in self._homes
                or any(paths.within(anchor, directory) for anchor in self._anchors)
                or any(paths.within(directory, top) for top in self._tops))


SAID_PATH_LEN = 120
"""Characters of a folder's path a note shows (a 6,000-level ``~/deepchain/a/a/…`` made
every note 12 KB: finding Q24)."""


def _cut(path: str) -> str:
    half = SAID_PATH_LEN // 2
    return path if len(path) <= SAID_PATH_LEN else f"{path[:half]}…{path[-half:]}"


def _git_named(name: str) -> bool:
    """What the home walk lists of what runs later: git directories (their configs are shown scrubbed)."""
    return name == ".git" or name.endswith("/.git")


def _git_configs(gitdir: Path) -> list[Path]:
    """A repository's configs that may hold a token: its own, its worktrees' and its
    submodules' (one level down)."""
    found = [gitdir / "config", gitdir / "config.worktree"]
    for sub, name in (("modules", "config"), ("worktrees", "config.worktree")):
        try:
            found += [gitdir / sub / d / name for d in os.listdir(gitdir / sub)]
        except OSError:
            continue
    return [p for p in found if os.path.isfile(p) and not os.path.islink(p)]


def _collapse(dirs: list[str], needed: Callable[[str], bool]) -> list[Path]:
    """``dirs`` as at most :data:`MAX_COVERS` folders (bubblewrap mounts each): the deepest
    replaced by their parents, level by level, never by a folder that may not be hidden
    whole (``needed``: one holding the workspace, home itself, or outside home), until few
    enough."""
    covered = set(dirs)
    depth = max((d.count("/") for d in covered), default=0)
    while len(covered) > MAX_COVERS and depth > 1:
        lifted = set()
        for d in covered:
            parent = os.path.dirname(d)
            lifted.add(parent if d.count("/") >= depth and not needed(parent) else d)
        covered = _outermost(lifted)
        depth -= 1
    return [Path(d) for d in sorted(covered)]


def _outermost(dirs: set[str]) -> set[str]:
    kept: set[str] = set()
    for d in sorted(dirs, key=lambda x: x.count("/")):
        if not any(paths.within(d, k) for k in kept):
            kept.add(d)
    return kept


def home_args(found: HomeFound, *, staged: StagedCopies, configs: ScrubbedConfigs, empty: str,
              hidden: Sequence[Path], binds: Sequence[Path]) -> list[str]:
    """bubblewrap's arguments for ``found``: each secret file bound over (git's staged copy,
    else an empty file), each git config by its scrubbed copy, then the unreached folders
    replaced by empty read-only ones. Nothing inside ``hidden`` (hidden whole already)."""
    args: list[str] = []
    inside = paths.within_any(hidden)
    copies = staged.copies(found.files)  # as prepare() asked: the same answer, kept
    for path in found.files:
        if inside(path) or _private(path, binds) or not os.path.isfile(path):
            continue
        if closed_to_commands(path, binds):  # the kernel refuses it to the command: no mount (.unreachable)
            continue
        args += ["--ro-bind", copies.get(path) or empty, str(path)]
    for path in found.configs:
        if inside(path) or _private(path, binds):
            continue
        copy = configs.copy_for(path)
        if copy is not None:
            args += ["--ro-bind", copy, str(path)]
    for path in found.covered:
        if inside(path) or _private(path, binds) or not os.path.isdir(path):
            continue
        args += ["--tmpfs", str(path), "--remount-ro", str(path)]
    return args


def _inside(path: Path, bases: Sequence[Path]) -> bool:
    return any(paths.within(path, b) for b in bases)


def _private(path: Path, binds: Sequence[Path]) -> bool:
    return _inside(path, PRIVATE) and not _inside(path, binds)


__all__ = ["MAX_COVERS", "MAX_ENTRIES", "HomeFiles", "HomeFound", "home_args"]
