"""What a sandboxed command may not plant in a folder an ``.envrc`` puts on the PATH.

``PATH_add bin`` puts the project's ``bin`` before the user's own programs whenever
direnv has run (:mod:`.envrcsources` finds it, and the other ways of saying it). A
``bin/git`` planted there runs, as the user and outside any sandbox, the next time they
type ``git`` in that directory. The file tools ask before any edit of a file right in
such a folder (:func:`.envrcsources.EnvrcRuns.why`). The sandbox cannot ask in the
middle of a command, and such folders are where builds put what they make
(``go build -o bin/app``, ``npm install`` filling ``node_modules/.bin``): locking the
folder would break them. So it guards the names that shadow a program:

- a name of a program on the user's PATH outside the workspace (``git``, ``ls``,
  ``python``…), or one of :data:`CORE` (what a repository has no business providing,
  whether or not it is installed): what exists under such a name is bound read-only,
  and what a command creates there is moved to the quarantine once it ended
  (:mod:`.runslater` does both, as for the rest of what runs later);
- any other name is the project's own program (``bin/app``), which the command could
  change in its sources anyway: it is kept;
- in ``node_modules/.bin`` (``layout node``, ``PATH_add node_modules/.bin``) the
  links npm, yarn and pnpm make into ``node_modules`` (``tsc -> ../typescript/bin/tsc``)
  are kept even when they shadow a global program, as that is what the folder is for:
  so ``npm install`` works in the sandbox; only :data:`CORE` names, and anything else
  that shadows (a regular file, a link out of ``node_modules``), are guarded.

Bounded: a folder's first :data:`MAX_ENTRIES` entries are looked at; past that, every
name that would shadow (:data:`CORE` and each program on the user's PATH) is looked up
one by one, so what lies past the cap is not taken for clean (finding L14: 20,000
empty files, then a planted ``bin/uv`` kept).

A relative entry of that PATH (``.``, an empty one, ``bin``) names a folder by where the
user types, which may be any folder of the workspace: a program's name at any depth
where such an entry looks is guarded too (:func:`relative_program_why`, asked by
:func:`.laternames.why`, so the walk of the workspace, bounded as it is, finds it).

The PATH agent-shell itself runs with counts as much as an ``.envrc``'s
(:func:`live_path_dirs`): a dotfiles or scripts repository whose ``bin`` is on the
PATH, worked on as the workspace or added with ``--add-dir``, had ``bin/git`` planted
and kept (finding L2). A virtualenv's or conda environment's ``bin`` is left to
:mod:`.newvenv`, which knows what ``pip install`` may put there.
"""

from __future__ import annotations

import functools
import os
import threading
from collections.abc import Sequence
from pathlib import Path

from . import paths

CORE = frozenset({
    "git", "ssh", "scp", "sftp", "ssh-add", "ssh-agent", "ssh-keygen", "gpg", "gpg2", "gpg-agent",
    "sudo", "su", "doas", "pkexec", "passwd", "login", "env", "sh", "bash", "zsh", "fish", "dash", "ksh",
    "ls", "cd", "cat", "cp", "mv", "rm", "ln", "mkdir", "chmod", "chown", "touch", "less", "more", "man",
    "which", "find", "grep", "sed", "awk", "tar", "curl", "wget", "openssl", "direnv", "agent-shell",
    "python", "python3", "pip", "pip3", "node", "npm", "npx", "cargo", "go", "make", "docker", "kubectl",
    "gh", "code", "vim", "nvim", "vi", "nano", "emacs", "pass", "op", "security", "keychain", "tmux",
    "sudoedit", "sshd", "rsync", "crontab", "xdg-open", "open",
})
"""Programs no repository should put before the user's own, installed or not."""
MAX_ENTRIES = 4096
"""Entries of one PATH folder looked at (node_modules/.bin holds hundreds)."""

MAX_PROGRAMS = 256
"""Programs of a folder on the live PATH bound read-only one by one; past that, the
folder is read-only whole (:func:`live_programs`)."""

_lock = threading.Lock()
_cache: dict[tuple[str, tuple[Path, ...]], frozenset[str]] = {}


def path_entry(entry: str) -> str:
    """``entry`` of ``PATH`` as the shell looks programs up in it: a leading ``~``
    expanded (bash does, for ``export PATH="~/bin:$PATH"`` quoted, and finds programs
    there: finding P11), else as written. ``$HOME`` in an entry is not expanded: no
    shell expands it at lookup, so such an entry is a relative folder named ``$HOME``."""
    return os.path.expanduser(entry) if entry.startswith("~") else entry


def _expanded_path() -> str:
    """``PATH`` with each entry as :func:`path_entry` reads it (the caches' key: a
    ``~`` means another folder when ``HOME`` changes)."""
    return os.pathsep.join(map(path_entry, os.environ.get("PATH", "").split(os.pathsep)))


def commands(inside: Sequence[Path] = ()) -> frozenset[str]:
    """The names of the programs on the user's PATH, leaving out its folders that lie
    in ``inside`` (the workspace's own ``bin`` when the shell started with direnv on)."""
    key = (_expanded_path(), tuple(inside))
    with _lock:
        found = _cache.get(key)
    if found is not None:
        return found
    names: set[str] = set()
    for entry in key[0].split(os.pathsep):
        if not entry or not os.path.isabs(entry):
            continue
        folder = Path(os.path.realpath(entry))
        if any(paths.within(folder, place) for place in inside):
            continue
        try:
            names.update(os.listdir(folder))  # read whole anyway: a cap here would only lose names
        except OSError:
            continue
    found = frozenset(names)
    with _lock:
        if len(_cache) > 16:
            _cache.clear()
        _cache[key] = found
    return found


LIVE_WHY = ("is in a folder on your PATH ({entry}): a program there runs instead of yours of the same name "
            "(git, ls …) at every command you type")
_live: dict[tuple[str, tuple[Path, ...]], tuple[tuple[Path, str], ...]] = {}


def live_path_dirs(roots: Sequence[Path]) -> tuple[tuple[Path, str], ...]:
    """The folders of this process's PATH that lie in ``roots`` (real paths), each with
    why it is guarded. A relative entry (``bin``, ``.``, an empty one) names a folder
    of wherever the user types, so each root's is taken; an environment's ``bin`` is
    not (see the module's docstring)."""
    key = (_expanded_path(), tuple(roots))
    with _lock:
        found = _live.get(key)
    if found is not None:
        return found
    out: dict[Path, str] = {}
    for entry in key[0].split(os.pathsep)[:256]:
        places = [Path(entry)] if os.path.isabs(entry) else [root / entry for root in roots]
        for place in places:
            folder = Path(os.path.realpath(place))
            if (any(paths.within(folder, root) for root in roots) and not os.path.isfile(folder)
                    and not _environment_bin(folder)):
                out.setdefault(folder, LIVE_WHY.format(entry=entry or "an empty entry, the current folder"))
    found = tuple(out.items())
    with _lock:
        if len(_live) > 16:
            _live.clear()
        _live[key] = found
    return found


def live_programs(folder: Path) -> list[Path]:
    """What a command may not change in ``folder``, a folder of the live PATH inside the
    workspace (``~/dotfiles/bin`` on the PATH of a dotfiles workspace): each program in
    it, which runs as the user in every shell by its name (``mytool``), not only in
    this directory as an ``.envrc``'s ``bin`` does; the file tools ask before editing one
    (finding P11). New names stay possible (only shadowing ones are moved out); more
    than :data:`MAX_PROGRAMS`: the folder itself, read-only whole."""
    try:
        with os.scandir(folder) as scan:
            entries = [(Path(e.path), e.is_dir(follow_symlinks=False))
                       for _, e in zip(range(MAX_PROGRAMS + 1), scan, strict=False)]
    except OSError:
        return []
    if len(entries) > MAX_PROGRAMS:
        return [folder]
    return sorted(path for path, is_dir in entries if not is_dir)


RELATIVE_WHY = ("is in a folder on your PATH when you are in it (a relative entry: {entry}) and named like a "
                "program: typing {name} there runs it instead of yours, as you")


def relative_program_why(path: str) -> str:
    """Why the file ``path``, at any depth of the workspace, runs when the user types its
    name: an empty, ``.`` or relative ``PATH`` entry names the folder they are in, which
    may be any folder (``cd src && git status`` runs ``src/git``: finding A11), not only a
    root (:func:`live_path_dirs`). "" when not: a folder, a name no program has, a path
    without its folder, npm's own link in ``node_modules/.bin`` (see :func:`guarded`)."""
    name = os.path.basename(path)
    folder = os.path.dirname(path)
    if not folder or name not in relative_program_names() or os.path.isdir(path):
        return ""
    if not _kept(Path(path), _node_modules(Path(folder))):
        return ""
    for entry in _relative_entries(os.environ.get("PATH", "")):
        if not entry or folder.endswith("/" + entry):
            return RELATIVE_WHY.format(name=name, entry=entry or "an empty one, or .")
    return ""


def relative_program_names() -> frozenset[str]:
    """The names of programs (:func:`shadows`) while ``PATH`` has a relative entry, else
    none: a walk asks it once a folder, and passes a name among them with its folder."""
    value = os.environ.get("PATH", "")
    return _program_names(value, os.path.expanduser("~")) if _relative_entries(value) else frozenset()


@functools.lru_cache(maxsize=8)
def _relative_entries(value: str) -> tuple[str, ...]:
    """The relative entries of ``PATH`` (``""`` for an empty one or ``.``), normalised; one
    starting with ``~`` is the home's (:func:`path_entry`)."""
    out = [os.path.normpath(e).strip("/") if e not in ("", ".") else "" for e in value.split(os.pathsep)[:256]
           if not os.path.isabs(path_entry(e))]
    return tuple(dict.fromkeys("" if e == "." else e for e in out))


@functools.lru_cache(maxsize=8)
def _program_names(value: str, home: str) -> frozenset[str]:
    """:data:`CORE` and the programs on ``PATH`` (``value``, with ``home`` the key of a
    ``~`` entry's meaning)."""
    return CORE | commands()


def _environment_bin(folder: Path) -> bool:
    parent = folder.parent
    return folder.name in ("bin", "Scripts") and (
        os.path.isfile(parent / "pyvenv.cfg") or os.path.isdir(parent / "conda-meta"))


def shadows(name: str, inside: Sequence[Path] = ()) -> bool:
    """Whether a program named ``name`` on the PATH would run instead of one of the user's."""
    return name in CORE or name in commands(inside)


def guarded(folder: Path, roots: Sequence[Path]) -> list[Path]:
    """The entries of the PATH folder ``folder`` a sandboxed command may not change, and
    (looked at again after it) may not have planted: see the module's docstring."""
    installed = commands(roots)
    modules = _node_modules(folder)
    out: list[Path] = []
    try:
        with os.scandir(folder) as entries:
            for count, entry in enumerate(entries):
                if count >= MAX_ENTRIES:  # past the cap: every name that shadows, looked up
                    out += [p for p in (folder / name for name in sorted(CORE | installed))
                            if os.path.lexists(p) and _kept(p, modules)]
                    break
                path = Path(entry.path)
                shadowing = entry.name in CORE or entry.name in installed
                if shadowing and not entry.is_dir(follow_symlinks=False) and _kept(path, modules):
                    out.append(path)
    except OSError:
        return []
    return list(dict.fromkeys(out))


def _kept(path: Path, modules: Path | None) -> bool:
    """Whether the shadowing entry ``path`` is guarded: all but npm's own link
    (``tsc -> ../typescript/bin/tsc``) in ``node_modules/.bin``, which is what the folder
    is for, and a folder (not a program)."""
    if path.is_dir() and not path.is_symlink():
        return False
    return path.name in CORE or modules is None or not _links_into(path, modules)


def _node_modules(folder: Path) -> Path | None:
    """The ``node_modules`` folder ``folder`` is the ``.bin`` of, or None."""
    return folder.parent if folder.name == ".bin" and folder.parent.name == "node_modules" else None


def _links_into(path: Path, modules: Path) -> bool:
    if not path.is_symlink():
        return False
    try:
        return paths.within(Path(os.path.realpath(path)), modules)
    except OSError:
        return False


__all__ = ["CORE", "LIVE_WHY", "MAX_ENTRIES", "MAX_PROGRAMS", "RELATIVE_WHY", "commands", "guarded",
           "live_path_dirs", "live_programs", "path_entry", "relative_program_names", "relative_program_why",
           "shadows"]
