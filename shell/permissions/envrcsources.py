"""What an ``.envrc`` pulls in: as much "runs when you enter the directory" as the
``.envrc`` itself.

direnv runs ``.envrc`` in bash whenever the user enters the directory, and runs it
again when it or a file it watches changes. ``.envrc`` is guarded by name
(:mod:`.laternames`), but the code it runs is often elsewhere:

- ``source_env scripts/env.sh`` / ``source_env_if_exists .envrc.private``, and bash's
  own ``source x`` / ``. ./x``: run as part of it (a folder means its ``.envrc``);
- ``source_up .envrc.shared`` (with a name): the first such file in a folder above;
- ``dotenv .env.dev`` / ``dotenv_if_exists`` (``.env`` without a name): loaded into
  the user's shell (``PATH`` or ``PROMPT_COMMAND`` there runs commands);
- ``watch_file flake.nix``: what ``.envrc`` reads to decide what runs (``use nix`` and
  ``use flake`` read theirs: ``shell.nix``/``default.nix``, ``flake.nix``, whose
  ``shellHook`` runs in the user's shell);
- ``PATH_add bin`` (and ``path_add PATH dir``, ``export PATH=$PWD/bin:$PATH``,
  ``load_prefix x`` for ``x/bin``, ``layout node`` for ``node_modules/.bin``, ``layout
  go`` for ``bin``, ``$(pwd)/bin``, ``$(expand_path bin)``, a variable set earlier): a
  folder put before the user's own programs, so a ``bin/git`` or ``bin/ls`` runs
  instead of theirs at every later command (:attr:`EnvrcRuns.path_dirs`; what the
  sandbox guards in it: :mod:`.pathdirs`).

:func:`envrc_runs` reads those names (relative to the ``.envrc``'s folder, as direnv
runs it there; ``$PWD`` too) from a set of ``.envrc`` files, and follows what a sourced
file sources in turn, a few levels deep. Words it cannot know before the file runs
(``$VAR``, ``$(…)``, globs) are skipped: the ``.envrc`` that holds them is guarded
itself; but a PATH word it cannot know fails closed, the ``.envrc``'s folder and its
``bin/`` guarded as if ``PATH_add bin`` (a name that shadows a program only): a wrapper
``f() { PATH_add "$1"; }`` or ``PATH=$TOOLS/bin:$PATH`` put a planted ``bin/git`` first
while nothing asked (finding M3). ``~``, ``$HOME`` and ``${HOME}`` are the user's home.
The file tools' policy asks before an edit of what it returns
(:mod:`.laterhit`); the sandbox binds it read-only and quarantines one a command
creates (:mod:`.runslater`).
"""

from __future__ import annotations

import glob
import os
import re
import shlex
import stat
import threading
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from . import paths
from .activationruns import activation_runs
from .misepaths import mise_path_dirs, mise_runs
from .pathdirs import live_path_dirs, shadows

SOURCED_WHY = "direnv runs as you when you enter the directory (an .envrc sources it)"
DOTENV_WHY = ("direnv loads into your shell when you enter the directory (an .envrc names it with dotenv: "
              "PATH or PROMPT_COMMAND there runs commands)")
WATCHED_WHY = ("direnv reads when you enter the directory (an .envrc watches it, or uses it with use nix / "
               "use flake, whose shellHook runs in your shell)")

PATH_WHY = ("is in a folder an .envrc puts first on your PATH ({how}): once direnv has run, a program there "
            "runs instead of yours of the same name (git, ls …) at every command you type")

SOURCES = frozenset({"source_env", "source_env_if_exists", "source", "."})
UPWARD = frozenset({"source_up", "source_up_if_exists"})
DOTENVS = frozenset({"dotenv", "dotenv_if_exists"})
WATCHES = frozenset({"watch_file"})
USES = {"nix": ("shell.nix", "default.nix"), "flake": ("flake.nix",), "devenv": ("devenv.nix",)}
"""``use nix`` and friends without a file named: what direnv's stdlib evaluates."""
PATH_ADDS = frozenset({"PATH_add", "path_add"})
"""``PATH_add DIR…``; ``path_add VAR DIR…`` (the PATH only)."""
ASSIGNS = frozenset({"export", "declare", "typeset", "local", "readonly"})
_PATH_VAR = re.compile(r"^\$(?:PATH|\{PATH\})$")
_LOADER_VAR = re.compile(r"^\$(?:LD_LIBRARY_PATH|\{LD_LIBRARY_PATH[^}]*\})$")
LOADER_ENVRC_WHY = ("is in a folder an .envrc puts on your LD_LIBRARY_PATH ({how}) and named like a library "
                    "of the system: once direnv has run, the programs you start load it instead of theirs, "
                    "as you")
LEADING = frozenset({"if", "then", "else", "elif", "do", "while", "until", "!", "{", "}", "(", ")", "time"})
"""Words that may come before a command in a statement (``if … then source_env x``)."""
BREAKS = frozenset({";", "&&", "||", "|", "&", ";;", "(", ")", "()", "|&"})

CDS = frozenset({"cd", "pushd", "popd"})
_PRINTED = re.compile(r"""\beval\s+["']?\$\(\s*(?:cat\s+(?:--\s+)?|<\s*)["']?([^\s()$`;|&"']+)["']?"""
                      r"""\s*\)["']?|(?:\bsource|(?<![\w.])\.)\s+<\(\s*cat\s+(?:--\s+)?["']?([^\s()$`;|&"']+)"""
                      r"""["']?\s*\)""")
"""``eval "$(cat F)"``, ``eval "$(< F)"``, ``source <(cat F)``: ``source F`` (D14)."""
_LOOP_VAR = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}|\$([A-Za-z_][A-Za-z0-9_]*)")
MAX_LOOP_WORDS = 64

MAX_BYTES = 256 * 1024
"""Read of one ``.envrc`` or sourced file (a longer one is read this far)."""
MAX_DEPTH = 4
"""Levels of a sourced file sourcing another."""
MAX_FILES = 128
"""Files read for one set of ``.envrc`` files."""
MAX_UP = 64
_UNKNOWN = re.compile(r"[$`*?\[]")
_PWD = re.compile(r"\$\{PWD\}|\$PWD(?![A-Za-z0-9_])")
_FOLDER_OF = re.compile(
    r"\$\(\s*(?:pwd(?:\s+-[LP])?|git\s+rev-parse\s+--show-toplevel|(?:expand_path|realpath|readlink\s+-[fe])\s+"
    r"([^\s()$`;|&]+))\s*\)|`\s*pwd\s*`"
)
"""``$(pwd)``, `` `pwd` ``, ``$(git rev-parse --show-toplevel)`` (the ``.envrc``'s folder is
the repository's top, as a rule), ``$(expand_path tools/bin)``, ``$(realpath x)``: the folder they
print, known without running them (the current one, or the word given)."""
_PATH_KEPT = re.compile(r"\$\{PATH:\+:?(?:\$PATH|\$\{PATH\}):?\}")
"""``${PATH:+:$PATH}``, ``${PATH:+:${PATH}}``, ``${PATH:+$PATH:}``: "the old PATH, if any",
the idiom that ends (or starts) a PATH assignment."""
_ANSI_C = re.compile(r"\$'([^'\\]*)'")
"""``$'bin'``: bash's ANSI-C quoting, with no escape in it the same as ``'bin'``."""
_HOME = re.compile(r"^~(?=/|$)|\$\{HOME\}|\$HOME(?![A-Za-z0-9_])")
PREFIXES = frozenset({"command", "builtin"})
"""``command PATH_add bin``, ``builtin export PATH=…``: the command that follows runs."""
LAYOUTS = {
    "node": ("node_modules/.bin",), "go": ("bin", ".direnv/go/bin"),
    "ruby": (".direnv/bin", ".direnv/ruby/bin"), "perl": (".direnv/perl5/bin",), "php": ("vendor/bin",),
}
"""What direnv's stdlib ``layout X`` puts on the PATH (a layout that makes a virtualenv,
``layout python``, is :mod:`.newvenv`'s to judge)."""
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_KEPT_VARS = frozenset({"PATH", "PWD", "HOME"})
"""Names whose value the reader does not take from an assignment (it knows them otherwise)."""
_VAR = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}|\$([A-Za-z_][A-Za-z0-9_]*)")


def _statements(text: str) -> Iterable[list[str]]:
    """The simple commands of a shell file, as words (a line shlex cannot read is
    split on white space: a hostile file gets a loose reading, never an error)."""
    for line in text.replace("\\\n", " ").splitlines():
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        line = _FOLDER_OF.sub(lambda m: m.group(1) or "$PWD", line)
        line = _PATH_KEPT.sub("", _ANSI_C.sub(r"'\1'", line))
        lexer = shlex.shlex(line, posix=True, punctuation_chars=";&|()")
        lexer.whitespace_split = True
        lexer.commenters = "#"
        try:
            words = list(lexer)
        except ValueError:
            words = line.split("#", 1)[0].split()
        current: list[str] = []
        for word in words:
            if word in BREAKS:
                if current:
                    yield current
                current = []
            elif current or word not in LEADING:
                current.append(word)
        if current:
            yield current


def _path(word: str, base: Path) -> Path | None:
    """The real path a word names from ``base``, or None when only running it would tell."""
    word = _PWD.sub(lambda _: str(base).replace("\\", "\\\\"), word)
    word = _HOME.sub(lambda _: os.path.expanduser("~"), word)
    if not word or _UNKNOWN.search(word) or word.startswith("~"):
        return None
    try:
        return Path(paths.real(word, base, expand_user=False))
    except paths.BadPath:
        return None


def _read(script: Path) -> str:
    """A regular file's text, at most :data:`MAX_BYTES` ("" for anything else): a
    hostile ``.envrc`` that sources ``/dev/stdin`` or a FIFO must not hang us."""
    try:
        fd = os.open(script, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOCTTY", 0))
    except OSError:
        return ""
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return ""
        return os.read(fd, MAX_BYTES).decode("utf-8", "replace")
    except OSError:
        return ""
    finally:
        os.close(fd)


def _plain(words: list[str]) -> list[str]:
    """``command``/``builtin`` prefixes dropped, ``layout_go`` read as ``layout go``."""
    while len(words) > 1 and words[0] in PREFIXES and not words[1].startswith("-"):
        words = words[1:]
    if words[0].startswith("layout_") and len(words[0]) > 7:  # what direnv's layout go calls
        words = ["layout", words[0][7:], *words[1:]]
    return words


def _operands(words: list[str]) -> list[str]:
    return [w for w in words[1:] if not w.startswith("-")]


@dataclass(frozen=True, slots=True)
class EnvrcRuns:
    """What a set of ``.envrc`` files pulls in (real paths, existing or not), and why."""

    found: tuple[tuple[Path, str], ...] = ()
    stamps: tuple[tuple[str, int, int], ...] = ()
    """The files read, and when each last changed (the cache's key)."""
    path_dirs: tuple[tuple[Path, str, bool], ...] = ()
    """Folders put on the PATH (real paths, existing or not), why, and whether the folder
    is a workspace root (``PATH_add .``: there only a name that shadows a program asks)."""
    loader_dirs: tuple[tuple[Path, str], ...] = ()
    """Folders put on ``LD_LIBRARY_PATH`` (``path_add LD_LIBRARY_PATH lib``,
    ``export LD_LIBRARY_PATH=$PWD/lib``), and why (:mod:`.loaderdirs` guards them)."""

    def why(self, path: str | os.PathLike[str]) -> str:
        """Why direnv runs ``path`` (a real path), or "": a file it pulls in (or one in a folder
        a sourcing loop's glob names), or a file right in a folder it puts on the PATH (what
        runs when the user types its name)."""
        text = Path(os.fspath(path))
        found = next((reason for found, reason in self.found if found == text or found in text.parents), "")
        if found or not self.path_dirs:
            return found
        ours = [folder for folder, _, _ in self.path_dirs]
        return next((reason for folder, reason, root in self.path_dirs
                     if folder == text.parent and (not root or shadows(text.name, ours))), "")

    def paths(self) -> dict[Path, str]:
        return dict(self.found)


class _Reader:
    """Follows one set of ``.envrc`` files (bounded in depth and files read)."""

    def __init__(self, roots: Sequence[Path]) -> None:
        self.roots = roots
        self.found: dict[Path, str] = {}
        self.path_dirs: dict[Path, str] = {}
        self.loader_dirs: dict[Path, str] = {}
        self.loose: set[Path] = set()
        """Folders guarded because a PATH word could not be known: only names that shadow."""
        self.read: list[Path] = []
        self.vars: dict[str, str] = {}
        self.loops: dict[str, list[str]] = {}
        """``for f in WORDS``: the words a loop variable takes (a ``source "$f"`` in it)."""

    def inside(self, path: Path) -> bool:
        return any(paths.within(path, root) for root in self.roots)

    def note(self, path: Path | None, why: str) -> None:
        if path is None or path.name == ".envrc" or not self.inside(path):  # .envrc: guarded by name
            return
        if not os.path.isdir(path):  # `watch_file .` does not make the whole workspace read-only
            self.found.setdefault(path, why)

    def path_dir(self, folder: Path | None, how: str) -> None:
        if folder is not None and self.inside(folder) and not os.path.isfile(folder):
            if folder in self.loose:
                self.loose.discard(folder)
                self.path_dirs.pop(folder, None)
            self.path_dirs.setdefault(folder, PATH_WHY.format(how=how))

    def path_word(self, word: str, base: Path, how: str) -> None:
        """A word put on the PATH; one only running the file would tell fails closed:
        ``base`` and ``base/bin`` guarded for names that shadow a program."""
        folder = _path(word, base)
        if folder is not None:
            self.path_dir(folder, how)
            return
        for guess in (base, base / "bin"):
            real = _path(str(guess), base)
            if real is not None and real not in self.path_dirs and self.inside(real) \
                    and not os.path.isfile(real):
                self.loose.add(real)
                self.path_dirs[real] = PATH_WHY.format(how=f"{how}, a word only running it would tell")

    def follow(self, script: Path, base: Path, depth: int) -> None:
        if depth > MAX_DEPTH or script in self.read or len(self.read) >= MAX_FILES:
            return
        if depth and not self.inside(script):  # what lies outside is not the workspace's to guard
            return
        self.read.append(script)
        text = _PRINTED.sub(lambda m: f"source {shlex.quote(m.group(1) or m.group(2))}", _read(script))
        here = base
        for words in _statements(text):
            if words[0] in CDS:  # `cd sub && source y.sh; cd ..`: bash reads what follows there (D14)
                here = self.moved(words, here, base)
                continue
            self.looping(words, here, depth)
            self.statement(words, here, depth)

    def moved(self, words: list[str], here: Path, base: Path) -> Path:
        """The folder after ``cd DIR``/``pushd DIR`` (``popd``: the file's own; one only running
        it would tell: where it was, all a reader can know)."""
        target = _path(self.expand(words[1]), here) if len(words) > 1 and words[0] != "popd" else None
        if target is not None and os.path.isdir(target):
            return target
        return base if words[0] == "popd" else here

    def looping(self, words: list[str], base: Path, depth: int) -> None:
        """A ``for f in DIR/*.sh; do source "$f"`` loop's files (D14): its folder whole when it is
        not a root (a new file there runs too), else each file matched."""
        if words[0] == "for" and len(words) > 3 and words[2] == "in" and _NAME.fullmatch(words[1]):
            self.loops[words[1]] = words[3:MAX_LOOP_WORDS]
        loop = _LOOP_VAR.fullmatch(words[1]) if words[0] in SOURCES and len(words) > 1 else None
        for word in self.loops.get((loop.group(1) or loop.group(2)) if loop else "", []):
            self.looped(word, base, depth)

    def looped(self, word: str, base: Path, depth: int) -> None:
        folder = _path(os.path.dirname(word) or ".", base)
        if folder is None or not self.inside(folder):
            return
        if _UNKNOWN.search(os.path.basename(word)) and folder not in self.roots and os.path.isdir(folder):
            self.found.setdefault(folder, SOURCED_WHY)  # a glob: any file made there runs
        for match in sorted(glob.glob(str(folder / glob.escape(os.path.basename(word)))))[:MAX_LOOP_WORDS]:
            self.note(Path(match), SOURCED_WHY)
            self.follow(Path(match), base, depth + 1)

    def expand(self, word: str) -> str:
        """``word`` with the variables this file set (``d=tools/bin; PATH_add $d``) put in."""
        if "$" not in word or not self.vars:
            return word
        return _VAR.sub(lambda m: self.vars.get(m.group(1) or m.group(2), m.group(0)), word)

    def assigned(self, verb: str, operands: list[str]) -> None:
        """Remember what ``NAME=value`` (``export`` or not) sets, for :meth:`expand`."""
        for word in ([verb] if verb not in ASSIGNS else operands):
            name, eq, value = word.partition("=")
            if eq and _NAME.fullmatch(name) and name not in _KEPT_VARS and len(value) <= 4096 \
                    and len(self.vars) < 256:
                self.vars[name] = value

    def statement(self, words: list[str], base: Path, depth: int) -> None:
        words = _plain([self.expand(w) for w in words])
        verb, operands = words[0], _operands(words)
        if verb == "eval" and depth <= MAX_DEPTH:  # eval "PATH_add bin": the words, read again
            for inner in _statements(" ".join(words[1:])):
                self.statement(inner, base, depth + 1)
            return
        self.assigned(verb, operands)
        if verb in SOURCES and operands:
            target = _path(operands[0], base)
            if target is None:
                return
            if os.path.isdir(target):  # source_env folder: its .envrc
                target = target / ".envrc"
            self.note(target, SOURCED_WHY)
            # source_env runs the file in its own folder; bash's source stays where it is
            self.follow(target, target.parent if verb.startswith("source_env") else base, depth + 1)
        elif verb in UPWARD and operands:
            for folder in [*base.parents][:MAX_UP]:
                self.note(_path(str(folder / operands[0]), folder), SOURCED_WHY)
        elif verb in DOTENVS:
            dotenv = _path(operands[0] if operands else ".env", base)
            self.note(dotenv, DOTENV_WHY)
            if dotenv is not None:  # its PATH=tools/bin:${PATH} puts a folder first as much
                self.follow(dotenv, base, depth + 1)
        elif verb in WATCHES:
            for word in operands:
                self.note(_path(word, base), WATCHED_WHY)
        elif verb == "use" and operands and operands[0] in USES:
            named = [w for w in operands[1:] if w not in (".", "./")]
            for name in (named[:1] if operands[0] == "nix" and named else USES[operands[0]]):
                self.note(_path(name, base), WATCHED_WHY)
        else:
            self.path_statement(verb, operands, base)

    def path_statement(self, verb: str, operands: list[str], base: Path) -> None:
        """What a statement puts on the PATH: ``PATH_add``, ``path_add PATH``,
        ``load_prefix``, ``layout go`` and the other :data:`LAYOUTS`, ``PATH=…`` and
        ``PATH+=…`` (with ``export`` or not)."""
        if verb in PATH_ADDS:
            words = operands if verb == "PATH_add" else operands[1:] if operands[:1] == ["PATH"] else []
            for word in words:
                self.path_word(word, base, f"{verb} {word}")
        elif verb == "load_prefix" and operands:
            for sub in ("bin", "sbin"):
                self.path_dir(_path(f"{operands[0]}/{sub}", base), f"load_prefix {operands[0]}")
        elif verb == "layout" and operands and operands[0] in LAYOUTS:
            for sub in LAYOUTS[operands[0]]:
                self.path_dir(_path(sub, base), f"layout {operands[0]}")
        if verb == "path_add" and operands[:1] == ["LD_LIBRARY_PATH"]:
            for word in operands[1:]:
                self.loader_word(word, base, f"path_add LD_LIBRARY_PATH {word}")
        for word in ([verb] if verb not in ASSIGNS else operands):
            self.assignment(word, base)

    def assignment(self, word: str, base: Path) -> None:
        """``PATH=…``, ``PATH+=…``, ``LD_LIBRARY_PATH=…``: the folders they put first."""
        name, eq, value = word.partition("=")
        if name in ("PATH", "PATH+") and eq:  # PATH+=":$PWD/bin" appends
            for part in value.split(":"):
                if part and not _PATH_VAR.match(part):
                    self.path_word(part, base, f"PATH={value}")
        if name in ("LD_LIBRARY_PATH", "LD_LIBRARY_PATH+") and eq:
            for part in value.split(":"):
                if not _LOADER_VAR.match(part):
                    self.loader_word(part, base, f"LD_LIBRARY_PATH={value}")
                elif not os.environ.get("LD_LIBRARY_PATH"):  # `$PWD/lib:$LD_LIBRARY_PATH` with it
                    self.loader_word("", base, f"LD_LIBRARY_PATH={value}, {part} empty")  # unset: `lib:`

    def loader_word(self, word: str, base: Path, how: str) -> None:
        """A folder put on the loader's path (an empty word: where the user is, ``base``)."""
        folder = _path(word or ".", base)
        if folder is not None and self.inside(folder) and not os.path.isfile(folder):
            self.loader_dirs.setdefault(folder, LOADER_ENVRC_WHY.format(how=how))


def _stamp(path: Path) -> tuple[str, int, int]:
    try:
        info = os.stat(path)
    except OSError:
        return (str(path), 0, 0)
    return (str(path), info.st_mtime_ns, info.st_ctime_ns)


def _work_out(envrcs: Sequence[Path], roots: Sequence[Path]) -> EnvrcRuns:
    reader = _Reader(roots)
    for envrc in envrcs:
        reader.follow(envrc, envrc.parent, 0)
    dirs = tuple((folder, why, folder in roots or folder in reader.loose)
                 for folder, why in reader.path_dirs.items())
    return EnvrcRuns(tuple(reader.found.items()), tuple(_stamp(p) for p in reader.read), dirs,
                     tuple(reader.loader_dirs.items()))


_cache: dict[tuple[tuple[Path, ...], tuple[Path, ...]], EnvrcRuns] = {}
_lock = threading.Lock()


def envrc_runs(envrcs: Sequence[Path], roots: Sequence[Path], found: Iterable[Path] = ()) -> EnvrcRuns:
    """What ``envrcs`` (real paths of ``.envrc`` files) pull in inside ``roots``,
    reused while none of the files read changed; with the live PATH's folders in
    ``roots`` among its PATH folders (:func:`.pathdirs.live_path_dirs`), and what the
    mise configs of the roots and of the folders the walk ``found`` them in run."""
    key = (tuple(dict.fromkeys(envrcs)), tuple(roots))
    with _lock:
        cached = _cache.get(key)
    if cached is not None and all(_stamp(Path(p)) == (p, m, c) for p, m, c in cached.stamps):
        return _with_live_path(cached, roots, found)
    runs = _work_out(key[0], roots)
    with _lock:
        if len(_cache) > 256:
            _cache.clear()
        _cache[key] = runs
    return _with_live_path(runs, roots, found)


def _with_live_path(runs: EnvrcRuns, roots: Sequence[Path], found: Iterable[Path]) -> EnvrcRuns:
    """``runs`` with the folders of the live PATH that lie in ``roots``, and those mise's
    ``_.path`` puts there (:mod:`.misepaths`), guarded alike; and the scripts mise runs."""
    found = list(found)
    live = [(folder, why, folder in roots)
            for folder, why in (*live_path_dirs(roots), *mise_path_dirs(roots, found))
            if all(folder != known for known, _, _ in runs.path_dirs)]
    known = {path for path, _ in runs.found}
    also = (*mise_runs(roots, found), *activation_runs(roots))  # pixi's, devbox's (D14)
    mise = [(path, why) for path, why in also if path not in known]
    if mise:
        runs = replace(runs, found=(*runs.found, *dict(mise).items()))
    return replace(runs, path_dirs=(*runs.path_dirs, *live)) if live else runs


def envrcs_above(path: Path, limit: int = 128) -> list[Path]:
    """The ``.envrc`` files in ``path``'s folder and the folders above it: direnv runs
    the nearest one when the user enters ``path`` (and one above reaches down with
    its own relative names)."""
    out = []
    for folder in [path, *path.parents][:limit]:
        candidate = folder / ".envrc"
        if os.path.isfile(candidate):
            out.append(Path(os.path.realpath(candidate)))
    return out


__all__ = ["EnvrcRuns", "envrc_runs", "envrcs_above"]
