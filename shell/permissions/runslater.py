"""What runs later, as the user and outside any sandbox: the one list, and the guard
that keeps sandboxed commands from planting it.

A file a command writes in the workspace is the user's problem only if something
*runs* it: git runs its hooks and whatever its config names (``core.fsmonitor``,
``core.hooksPath``, filters, aliases), direnv runs ``.envrc``, the editor runs
``.vscode`` tasks and settings (``.idea``, ``.zed`` for other editors),
``.devcontainer`` builds containers, ``.mcp.json`` starts servers, ``.agent-shell``
holds this workspace's own rules, pre-commit and lefthook run what their config names
at the next commit, npm, yarn and cargo run what ``.npmrc``, ``.yarnrc.yml`` and
``.cargo/config.toml`` say, Python runs a virtualenv's ``*.pth`` files at every
start and a ``__pycache__/*.pyc`` instead of its source (commands cache elsewhere:
``PYTHONPYCACHEPREFIX``). :data:`RUNS_LATER` names them, at any depth (a nested repository's hooks run
too). The file tools ask
before every edit there (``policy``); this module gives ``run_shell``'s sandbox the
same reach:

- **before** a command (:func:`guard`): every such path that exists, in the
  workspace and found nested by the secret-file walk, is bound read-only onto itself,
  which also pins it (a mount point cannot be renamed or removed). In each git
  directory only what runs is read-only (``hooks``, ``config``, ``config.worktree``,
  ``commondir``, ``info``, ``rr-cache``, a linked worktree's ``gitdir`` and ``locked``, and the same
  in the git dirs of submodules and worktrees under ``modules/`` and ``worktrees/``), so
  ``git commit`` still writes objects, the index and refs; the git directory itself
  is bound onto itself so ``mv .git .git-old`` cannot swap in another, and so are its
  ``worktrees`` and ``modules`` folders (``mv .git/worktrees x`` cut every linked worktree
  off, finding C17, as ``mv .git/modules x`` does every submodule; ``git worktree add`` and
  ``git submodule add`` write into them, ``prune`` leaves the first when it cannot remove it).
- **after** it (:func:`check`): bubblewrap cannot bind over a path that does not
  exist without leaving an empty file or directory in the user's tree, so what did
  not exist is watched instead. Once the command has ended (its PID namespace is
  gone: nothing of it still writes), what appeared or changed is judged, and what
  could run later is moved out of the workspace into a quarantine folder the sandbox
  hides, and the result says so plainly with the command that puts it back. A new
  repository (``git init``, a clone) is kept: git's own ``*.sample`` hooks never
  run, and a config holding only the keys git itself writes (:data:`SAFE_GIT_KEYS`)
  runs nothing; any other hook or config is quarantined. A new virtualenv is kept
  only as ``venv`` and pip write it (:mod:`.newvenv`).

A git directory is what git takes for one, not only a folder named ``.git``: git's
discovery accepts any folder holding ``HEAD``, ``objects/`` and ``refs/`` (a bare
repository, or ``docs/`` made into one), and ``git status`` there, or a git-aware
prompt at ``cd``, runs its config's ``core.fsmonitor``. So a file named ``HEAD`` marks
its folder as a git directory from the HEAD on (``objects/`` and ``refs/`` may come
with the next command), and a config planted before counts as new when they come.

Not reached: directories the walk skips (``node_modules``, caches but for a virtualenv
right in one, a virtualenv except its ``site-packages`` start-up files), what a command
writes through a path outside the workspace that leads into it. CI workflows
(``.github/workflows``, ``.gitlab-ci.yml``: they run on the forge, with its secrets, only once
someone pushes them) and ``.gitmodules`` (``git submodule update`` fetches what it names) stay
writable, as commands write them for good reasons; what a command creates or changes
there is named in its result and kept (:data:`.laternames.NOTED`).

Here: the walls and the judging. A path's snapshot is :mod:`.laterseen`; moving what
was planted out and saying so is :mod:`.laterplanted`; reading a command's refusals
is :mod:`.laterrefused` (their names are re-exported, so callers import one module).
Shared configs that stay writable (``pyproject.toml``, ``package.json``, ``.eslintrc.json``) but
whose code-naming keys a command changed are put back by :mod:`.laterconfigs`.
"""

from __future__ import annotations

import itertools
import os
import re
import stat
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from . import paths
from .editorruns import editor_runs
from .envrcsources import envrc_runs, envrcs_above
from .gitkeys import SAFE_GIT_KEYS, info_hides, live_hooks, unsafe_git_keys
from .gitoutside import OutsideGit, gitfile_target
from .gitruns import git_runs
from .homelinks import home_links
from .instructionsources import instruction_imports
from .laternames import (
    CONDA_META,
    CONDA_PARTS,
    GIT_PARTS,
    MAX_NOTED,
    NOTED,
    NOTED_FOLDERS,
    NOTED_KEPT,
    RERERE_WHY,
    RUNS_LATER,
    SAPLING_GIT_WHY,
    SITE_DIRS,
    TOOL_VENV_DIRS,
    VENV_BINS,
    Reason,
    as_reason,
    why,
    why_both,
)
from .laterplanted import Planted, move_aside, move_out, relative, report, restore_link
from .laterrefused import refused_writes
from .laterseen import Seen, seen_now
from .loaderdirs import loader_dirs, preloaded, python_modules, shadowing
from .mcpsources import mcp_runs
from .newvenv import CHANGED_WHY, added_program, added_to_bin, bin_entries
from .newvenv import judge as judge_new_venv
from .pathdirs import guarded, live_path_dirs, live_programs
from .shadowmodules import new_modules
from .shadowmodules import shadowing as named_like_installed
from .venvpackages import packages_run

MAX_LINK_LOOK = 256
"""Entries of one guarded folder looked at for hard links (a hooks folder holds a dozen)."""
LINKED_WHY = "whose files git or a tool runs as you (a command wrote it through its other name)"

MAX_GIT_DIRS = 256
"""Git dirs of submodules and worktrees looked at inside one git directory."""

@dataclass(frozen=True, slots=True)
class Guard:
    """What a sandboxed command may not change, and how it all was before it ran."""

    roots: tuple[Path, ...]
    watched: dict[Path, Seen] = field(default_factory=dict)
    """Every runs-later path, existing or not (the top-level names and each git
    directory's parts are watched even when missing), as it was."""
    pins: tuple[Path, ...] = ()
    """Git directories bound writable onto themselves: they cannot be renamed away."""
    readonly: tuple[Path, ...] = ()
    """Bound read-only onto themselves (real paths inside the writable roots)."""
    configs: tuple[Path, ...] = ()
    """Git config files among ``readonly`` (shown scrubbed of credentials)."""
    gitdirs: tuple[Path, ...] = ()
    hook_dirs: tuple[Path, ...] = ()
    """Folders a config's ``core.hooksPath`` names inside the workspace (husky's
    ``.husky/_``; the global config's too): git runs them as the hooks."""
    linked: tuple[Path, ...] = ()
    """Runs-later files that have another name (a hard link): the read-only bind
    covers this name only, so their ctime is compared too (a command may write
    through the other name and set the mtime back)."""
    sideways: dict[Path, Reason] = field(default_factory=dict)
    """What else git reads or runs outside its git directory, and why
    (:mod:`.gitruns`): the config files an ``include.path`` names, and where the
    links in a hooks folder lead (``scripts/pre-commit``), the scripts a config names
    as commands (``core.fsmonitor = scripts/watch``)."""
    outside: tuple[OutsideGit, ...] = ()
    """The repository a root belongs to whose git directory lies outside the roots (a
    linked worktree, a subfolder of a repository: :mod:`.gitoutside`): its git
    directories are guarded here as the roots' own are, what git writes for the
    checkout is bound writable, and its configs are shown without credentials."""
    venv_bins: tuple[Path, ...] = ()
    """Virtualenvs' ``bin/``, pinned with each entry read-only: pip adds console scripts."""
    noted: tuple[Path, ...] = ()
    """Watched, not read-only: what runs later through git submodules or CI (.laternames.NOTED),
    named in the result when a command creates or changes it, and kept."""
    modules: dict[Path, str] = field(default_factory=dict)
    """Not watched: what Python imports by name right in a workspace folder on PYTHONPATH
    (:func:`.loaderdirs.python_modules`), and a module at any depth named like a standard or
    installed one (``pip.py``: :mod:`.shadowmodules`; a namespace folder with no why), with why; a
    new one is moved out (of a folder there before, its new ``__init__.py``)."""


def _inside(path: Path, roots: Sequence[Path]) -> bool:
    return any(paths.within(path, root) for root in roots)


def _git_dirs(gitdir: Path) -> list[Path]:
    """``gitdir`` and the git dirs of its submodules and worktrees (bounded). A folder
    there counts by where it is when it holds a config, whole git dir or not: a stray
    ``modules/<name>/config`` without ``HEAD`` kept the token in its remote URL readable
    in the sandbox (tester finding L3), and a ``HEAD`` planted beside it later makes
    git read it."""
    out = [gitdir]
    stack = [gitdir / "modules", gitdir / "worktrees"]
    while stack and len(out) < MAX_GIT_DIRS:
        here = stack.pop()
        try:
            entries = sorted(os.scandir(here), key=lambda e: e.name)
        except OSError:
            continue
        for entry in entries:
            if not entry.is_dir(follow_symlinks=False):
                continue
            path = Path(entry.path)
            whole = os.path.lexists(path / "HEAD")
            if whole or any(os.path.lexists(path / name) for name in ("config", "config.worktree")):
                out.append(path)
                stack += [path / "modules", path / "worktrees"]
            if not whole and here.name == "modules":  # a submodule named a/b lives in modules/a/b
                stack.append(path)
    return out


MAX_DEPTH = 128


def git_dirs_above(path: Path) -> list[Path]:
    """The git directories git may use for ``path`` (a real path): each ``.git`` in its
    folder and the folders above it (a directory, or where a ``.git`` file or link
    leads), with their submodules' and worktrees' git dirs."""
    out: list[Path] = []
    for folder in [path, *path.parents][:MAX_DEPTH]:
        dot = folder / ".git"
        if not os.path.lexists(dot):
            continue
        target = gitfile_target(dot) if dot.is_file() and not dot.is_symlink() else paths.resolve(dot, "/")
        if target is not None and os.path.isdir(target):  # isdir: a hostile name too long is no OSError
            out += [g for g in _git_dirs(target) if g not in out]
    return out


_HEAD_TEXT = re.compile(r"ref:|[0-9a-f]{40}")


def _git_head(path: Path) -> bool:
    """Whether ``path`` is a HEAD as git accepts it (a symref, an object id, or a
    symlink): its folder is then a git directory once ``objects/`` and ``refs/`` exist
    there, which a later command may add, so it is guarded from the HEAD on."""
    try:
        if os.path.islink(path):
            return True
        with open(path, "rb") as fh:
            head = fh.read(256)
    except OSError:
        return False
    return bool(_HEAD_TEXT.match(head.decode("ascii", "replace").strip()))


def guard(roots: Sequence[Path], found: Iterable[Path], outside: Sequence[OutsideGit] = (),
          writable: Sequence[Path] = (), modules: Iterable[Path] = ()) -> Guard:
    """The walls for one command: ``found`` are the runs-later paths the walk saw
    (nested ones too); each root's own names are looked up here as well, and the git
    directories of ``outside`` (a linked worktree's repository) guarded the same way.
    The folders of the user's PATH inside ``writable`` (``[sandbox] writable``) are
    guarded as a workspace folder on the PATH is: ``~/.cargo`` made writable let a
    command plant ``~/.cargo/bin/git``, kept and run as the user (finding M6). ``modules``:
    what the walk found named like a standard or installed module (:mod:`.shadowmodules`)."""
    walls = _Walls(tuple(roots))
    for path in dict.fromkeys([*(root / name for root in walls.roots for name in RUNS_LATER), *found]):
        walls.add(path)
    for repo in outside:
        walls.git_dir(repo.common)
        walls.git_dir(repo.gitdir)
    walls.envrc_sources()
    writable_dirs = live_path_dirs(tuple(writable)) if writable else ()
    walls.path_folders(writable_dirs, {folder for folder, _ in writable_dirs})
    walls.loader_folders((*walls.roots, *writable))
    walls.noted_files()
    walls.mcp_sources()
    return Guard(walls.roots, walls.watched, tuple(dict.fromkeys(walls.pins)),
                 tuple(dict.fromkeys(walls.readonly)), tuple(walls.configs), tuple(walls.gitdirs),
                 tuple(walls.hook_dirs), tuple(walls.linked), walls.sideways, tuple(outside),
                 tuple(walls.venv_bins), tuple(walls.noted),
                 {**named_like_installed(modules, walls.roots), **python_modules((*walls.roots, *writable))})


class _Walls:
    """Builds a :class:`Guard`, one runs-later path at a time."""

    def __init__(self, roots: tuple[Path, ...]) -> None:
        self.roots = roots
        self.watched: dict[Path, Seen] = {}
        self.pins: list[Path] = []
        self.readonly: list[Path] = []
        self.configs: list[Path] = []
        self.gitdirs: list[Path] = []
        self.hook_dirs: list[Path] = []
        self.sideways: dict[Path, Reason] = {}
        self.linked: list[Path] = []
        self.venv_bins: list[Path] = []
        self.noted: list[Path] = []

    def add(self, path: Path) -> None:
        if path.name == "HEAD":  # a folder git takes for a git directory (a bare repo, or planted)
            if _git_head(path):
                self.git_dir(path.parent)
            return
        if path.name == "pyvenv.cfg" and os.path.lexists(path):  # a virtualenv: its bin/ is what the user
            # runs (not a root's bin/ beside no pyvenv.cfg: that is a project's, PATH_add's if anyone's)
            whole = path.parent.parent.name in TOOL_VENV_DIRS
            for name in VENV_BINS:
                self.venv_bin(path.parent / name, whole)
            self.watch(path.parent / "pip.conf")
            for package in packages_run(path.parent):  # what its programs import (Q6)
                self.watch(package)
        if path.name == CONDA_META and os.path.isdir(path):  # a conda or pixi
            for part in CONDA_PARTS:  # env: conda activate sources activate.d, and bin/ comes first in PATH
                self.watch(path.parent / part)
        if path.name != ".git":
            self.watch(path)
            return
        seen = self.watched[path] = seen_now(path)
        if seen.kind == "dir":
            self.git_dir(path)
        elif seen.kind == "file":  # a submodule's or worktree's: pinned, and where it points guarded
            self.readonly.append(path)
            target = gitfile_target(path)
            if target is not None and os.path.isdir(target) and _inside(target, self.roots):
                self.git_dir(target)
        elif seen.kind == "link":
            real = paths.resolve(path, "/")
            if os.path.isdir(real) and _inside(real, self.roots):
                self.git_dir(real)

    def venv_bin(self, folder: Path, whole: bool = False) -> None:
        """A virtualenv's ``bin/``: pinned, each entry read-only (a link: put back when
        replaced), so what pip adds is judged after (else read-only whole: :mod:`.newvenv`;
        and a tox or nox env's, ``whole``: :data:`.laternames.TOOL_VENV_DIRS`)."""
        entries = None if whole else bin_entries(folder)
        if entries is None:
            self.watch(folder)
            return
        self.watched[folder] = seen_now(folder)
        self.pins.append(folder)
        self.venv_bins.append(folder)
        for entry in entries:
            self.watch(entry)

    def watch(self, path: Path) -> Seen:
        """Remember ``path`` as it is, and bind what is there read-only: the path
        itself, or where a link leads (inside the roots: outside is read-only already;
        a dangling link is only watched)."""
        seen = self.watched[path] = seen_now(path)
        if seen.kind == "link":
            real = paths.resolve(path, "/")
            if seen.target is not None and _inside(real, self.roots):
                self.readonly.append(real)
        elif seen.kind != "missing":
            self.readonly.append(path)
            self._hard_links(path, seen)
        return seen

    def _hard_links(self, path: Path, seen: Seen) -> None:
        """Note ``path`` (or, for a folder, each file right in it) when it has another
        name elsewhere: ``ln scripts/pre-commit .git/hooks/pre-commit`` lets a command
        change the hook by writing ``scripts/pre-commit``."""
        try:
            if seen.kind == "file":
                if os.lstat(path).st_nlink > 1:
                    self.linked.append(path)
                return
            if path.name == "__pycache__":  # hundreds in a project, and nothing links into them
                return
            with os.scandir(path) as entries:
                for entry in itertools.islice(entries, MAX_LINK_LOOK):
                    info = entry.stat(follow_symlinks=False)
                    if stat.S_ISREG(info.st_mode) and info.st_nlink > 1:
                        inner = Path(entry.path)
                        self.watched[inner] = seen_now(inner)
                        self.linked.append(inner)
                        linked = Reason(f"is a hard link in {path.name}/, {LINKED_WHY}")
                        self.sideways.setdefault(inner, linked)
        except OSError:
            return

    def envrc_sources(self) -> None:
        """What the ``.envrc`` files pull in (:mod:`.envrcsources`: ``source_env``,
        ``dotenv``, ``watch_file`` …), watched when missing too: direnv runs it as much
        as the ``.envrc``. Those above the workspace count (direnv runs the nearest)."""
        envrcs = [Path(os.path.realpath(p)) for p, seen in list(self.watched.items())
                  if p.name == ".envrc" and seen.kind in ("file", "link")]
        for root in self.roots:
            envrcs += envrcs_above(root.parent)
        runs = envrc_runs(envrcs, self.roots, list(self.watched))  # mise's nested configs among them
        for path, reason in runs.paths().items():
            if path not in self.sideways:
                self.sideways[path] = Reason(reason)
                self.watch(path)
        live = {folder for folder, _ in live_path_dirs(self.roots)}
        self.path_folders([(folder, reason) for folder, reason, _ in runs.path_dirs], live)
        self.loader_folders(self.roots, runs.loader_dirs)

    def path_folders(self, folders: Sequence[tuple[Path, str]], live: Collection[Path]) -> None:
        """PATH_add bin and the like: the names in each folder that shadow a program; in
        a folder of the live PATH (among ``live``) each program there too
        (:func:`.pathdirs.live_programs`)."""
        for folder, reason in folders:
            for path in guarded(folder, self.roots):
                if path not in self.sideways:
                    self.sideways[path] = Reason(f"{reason}, and {path.name} is the name of a program")
                    self.watch(path)
            for path in live_programs(folder) if folder in live else ():
                if path not in self.sideways:  # read-only, not judged: a new one (bin/app) is kept
                    self.watch(path)

    def loader_folders(self, places: Sequence[Path], folders: Sequence[tuple[Path, str]] = ()) -> None:
        """``folders`` (an .envrc's) or else those of the user's LD_LIBRARY_PATH in ``places``:
        each entry named like a library of the system; and LD_PRELOAD's files, GCONV_PATH's
        folders whole, PYTHONPATH's start-up files (:mod:`.loaderdirs`, finding W6)."""
        named = folders or loader_dirs(places)
        found = {path: reason for folder, reason in named for path in shadowing(folder, places)}
        for path, reason in {**found, **({} if folders else preloaded(places))}.items():
            if path not in self.sideways:
                self.sideways[path] = Reason(reason)
                self.watch(path)

    def noted_files(self) -> None:
        """:data:`.laternames.NOTED` at each root, and the files in its :data:`NOTED_FOLDERS`:
        watched, missing too, but left writable."""
        for root in self.roots:
            found = {root / name: reason for name, reason in NOTED.items()}
            for folder, reason in NOTED_FOLDERS.items():
                try:
                    with os.scandir(root / folder) as entries:
                        found.update((Path(e.path), reason) for e in itertools.islice(entries, MAX_NOTED))
                except OSError:
                    continue
            for path, reason in found.items():
                if path not in self.sideways:
                    self.sideways[path] = as_reason(reason)
                    self.watched[path] = seen_now(path)
                    self.noted.append(path)

    def mcp_sources(self) -> None:
        """What .mcp.json runs, home's links lead to, AGENTS.md imports, the editor's configs name
        (:mod:`.editorruns`): watched when missing too."""
        imports = instruction_imports(self.roots, [p for p, s in self.watched.items() if s.kind == "file"])
        named = {**imports, **home_links(self.roots), **mcp_runs(self.roots), **editor_runs(self.roots)}
        for path, reason in named.items():
            if path not in self.sideways:
                self.sideways[path] = reason
                self.watch(path)

    def git_dir(self, gitdir: Path) -> None:
        for g in _git_dirs(gitdir):
            if g in self.gitdirs:
                continue
            self.gitdirs.append(g)
            self.pins.append(g)
            for held in ("worktrees", "modules"):  # C17: moved away, every linked worktree (submodule)
                if (g / held).is_dir() and not (g / held).is_symlink():  # lost its git dir
                    self.pins.append(g / held)
            for part in GIT_PARTS:
                path = g / part
                seen = self.watch(path)
                if part.startswith("config") and seen.kind == "file":
                    self.configs.append(path)
            sapling = g / "sl" / "config"  # Sapling's own config in a git checkout (tester finding X6)
            self.sideways.setdefault(sapling, Reason(SAPLING_GIT_WHY))
            self.watch(sapling)
            runs = git_runs([g], self.roots)  # the same set the file tools ask about
            for hooks in runs.hook_dirs:
                if hooks not in self.hook_dirs:
                    self.hook_dirs.append(hooks)
                    self.watch(hooks)
            for path in (*runs.configs, *runs.hook_links, *runs.commands, *runs.hook_scripts):  # missing too
                if path not in self.sideways:
                    self.sideways[path] = Reason(runs.why(path))
                    if self.watch(path).kind == "file" and path in runs.configs:
                        self.configs.append(path)  # shown scrubbed of credentials, as git's own


# -- after the command ---------------------------------------------------------------


SLACK_NS = 1_000_000_000
"""How much older than the command's start an entry's ctime may be and still count
as the command's (the kernel stamps files with a coarse clock)."""


def check(before: Guard, after: Guard, quarantine: Path, started_ns: int) -> list[Planted]:
    """Compare the walls' paths after a command (started at ``started_ns``, wall
    clock) with before, and move what could now run later into ``quarantine`` (a
    folder per command, made when needed)."""
    out: list[Planted] = []
    since = started_ns - SLACK_NS
    new_envs = {p.parent for p, seen in after.watched.items() if p.name == "pyvenv.cfg"
                and p not in before.watched and seen.ctime >= since}
    for path, reason in [*(x for env in sorted(new_envs) for x in judge_new_venv(env, after.roots)),
                         *(x for b in before.venv_bins for x in added_to_bin(b, before.watched, since))]:
        # not as venv and pip write it
        out.append(move_aside(path, reason, quarantine, after.roots, Seen("missing")))
    for path, reason in new_modules(before.modules, after.modules, after.watched, since):  # A10, A14
        out.append(move_aside(path, f"new: {reason}", quarantine, after.roots, Seen("missing")))
    for path, now in after.watched.items():
        was = before.watched.get(path, Seen("missing"))
        top = path.parent if path.name in ("pyvenv.cfg", *VENV_BINS) else path.parent.parent
        in_env = top == path.parent or path.parent.name in VENV_BINS
        if ((top in new_envs and in_env) or path.parent in before.venv_bins) and was.kind == "missing":
            continue  # judged above: a new virtualenv (pyvenv.cfg, bin/ and what is in it), what pip added
        relinked = path in before.linked or path in after.linked
        if (now == was and (not relinked or now.ctime == was.ctime)) or now.kind == "missing":
            if now.kind == "missing" and was.kind == "link":
                out.append(restore_link(path, was))
            continue
        old = _changed(path, now, after) < started_ns - SLACK_NS
        if was.kind == "missing" and path not in before.watched and old:
            continue  # there before, where the first search had not reached: not this command's
        why = _hostile(path, now, was, after, since)
        if not why:
            continue
        if path in after.noted:
            out.append(Planted(path, f"{why} (runs later, outside the sandbox)", undone=NOTED_KEPT))
            continue
        new_hooks = path.name == "hooks" and path.parent in after.gitdirs and was.kind == "missing"
        if new_hooks and now.kind == "dir":
            for name in live_hooks(path):  # git's own *.sample files stay
                out.append(move_aside(path / name, "a new git hook that runs as you", quarantine, after.roots,
                                 Seen("missing")))
            continue
        if now.kind == "link" and was.kind == "link" and now.link == was.link:
            real = paths.resolve(path, "/")  # a dangling link's target was created
            if _inside(real, after.roots):
                out.append(move_aside(real, why, quarantine, after.roots, Seen("missing")))
            continue
        out.append(move_aside(path, why, quarantine, after.roots, was))
    return out


def same_links(before: Guard, after: Guard) -> bool:
    """No hard-linked runs-later file changed (its ctime: an mtime can be set back)."""
    for path in {*before.linked, *after.linked}:
        was, now = before.watched.get(path), after.watched.get(path)
        if was is None or now is None or was.ctime != now.ctime:
            return False
    return True


def _changed(path: Path, now: Seen, after: Guard) -> int:
    """When ``path`` last changed, or its folder became a git directory (a config
    planted by one command and made live by the next one's HEAD, objects/ and refs/)."""
    if path.parent not in after.gitdirs or path.name not in GIT_PARTS:
        return now.ctime
    marks = [now.ctime]
    for mark in ("HEAD", "objects", "refs"):
        try:
            marks.append(os.lstat(path.parent / mark).st_ctime_ns)
        except OSError:
            continue
    return max(marks)


def _hostile(path: Path, now: Seen, was: Seen, after: Guard, before_ns: int) -> str:
    """Why this appeared-or-changed path could run later (empty: it cannot); what was
    changed since ``before_ns`` is the command's."""
    if path in after.hook_dirs:
        return "git runs the hooks in it (core.hooksPath)"
    if path.parent in after.venv_bins:  # a console script pip added is kept
        return added_program(path, before_ns) if was.kind == "missing" else CHANGED_WHY
    if path in after.sideways:
        return f"{'changed' if was.kind != 'missing' else 'new'}: {after.sideways[path].alone}"
    named = why_both(path)
    where = named.alone if named is not None else ""
    parent_is_gitdir = path.parent in after.gitdirs and path.name in GIT_PARTS
    if path.name == ".git" and not parent_is_gitdir:
        if now.kind in ("dir", "file") and was.kind == "missing":
            return ""  # a new repository: its parts are judged one by one
        return f"replaces a git directory, which {named.after_which if named is not None else 'git runs'}"
    if not parent_is_gitdir:
        return f"{'changed' if was.kind != 'missing' else 'new'}: {where}" if where else ""
    if was.kind != "missing":
        return "changed: git runs it as you"
    if path.name == "hooks":
        bad = live_hooks(path)
        return f"new git hooks that run as you ({', '.join(bad[:3])})" if bad else ""
    if path.name == "info":
        hides = info_hides(path)
        return f"new: hides files from git status ({', '.join(hides[:3])})" if hides else ""
    if path.name == "rr-cache":  # sandboxed git keeps rerere off (RERERE_OFF): no command's git wrote it
        return f"new: {RERERE_WHY}"
    if path.name in ("gitdir", "locked"):
        return ""  # a worktree's pointer and lock made anew: git worktree add and lock write them
    if path.name == "commondir":
        try:
            target = paths.resolve(path.read_text(errors="replace").strip(), path.parent, expand_user=False)
        except (OSError, paths.BadPath):
            return "new: points git at another directory's config and hooks"
        return "" if target in after.gitdirs else "new: points git at another directory's config and hooks"
    bad_keys = unsafe_git_keys(path, after.roots)
    return f"a new git config with keys that can run commands ({', '.join(bad_keys[:3])})" if bad_keys else ""


__all__ = ["GIT_PARTS", "RUNS_LATER", "SAFE_GIT_KEYS", "SITE_DIRS", "Guard", "Planted", "Seen", "check",
           "guard", "move_out", "refused_writes", "relative", "report", "same_links",
           "unsafe_git_keys", "why"]
