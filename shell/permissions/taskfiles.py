"""The files a task runner a commit hook starts reads: ``make lint`` runs the lines of
``lint:`` in the Makefile, ``just``, ``task`` their files' recipes, and each of those files'
includes (tester findings Q7, S12, U6), so :mod:`.hookscripts` guards them as it guards the
scripts a hook names.

Kept apart from reading the hook frameworks' configs (:mod:`.hookscripts`), which asks
this module when a hook's command starts a task runner; the bounded reads both use live
here.
"""

from __future__ import annotations

import glob
import os
import re
from collections.abc import Sequence
from pathlib import Path

from . import paths

MAX_BYTES = 256 * 1024
"""What is read of one config or task file (a bigger one names nothing more)."""
MAX_TASK_FILES = 64
"""Task files, and the files one includes, named at most."""
TASK_FILES = {
    **dict.fromkeys(("make", "gmake"), ("Makefile", "makefile", "GNUmakefile")),
    "just": ("justfile", ".justfile", "Justfile"),
    "task": ("Taskfile.yml", "taskfile.yml", "Taskfile.yaml", "taskfile.yaml", "Taskfile.dist.yml",
             "taskfile.dist.yml", "Taskfile.dist.yaml", "taskfile.dist.yaml"),
}
"""What a task runner a hook starts runs: its file at the root (``make lint`` runs the lines
of ``lint:`` in the Makefile), guarded whole. Each runner's whole list of names: task's
``.dist`` ones are the committed file when ``Taskfile.yml`` is a local override (finding U6);
just's name is matched in any case (:data:`ANY_CASE`)."""
ANY_CASE = {"just": frozenset({"justfile", ".justfile"})}  # `JUSTFILE`, a module's `Justfile`
_MAKE_INCLUDE = re.compile(r"^[ \t]*(?:-|s)?include[ \t]+([^#\n]+)", re.M)


def read_config(path: Path) -> str | None:
    """Up to :data:`MAX_BYTES` of ``path``'s text (None when it cannot be read)."""
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return f.read(MAX_BYTES)
    except OSError:
        return None


def is_file(path: Path) -> bool:
    """Whether ``path`` is an existing file; False for a name the system refuses (too
    long, a NUL: hostile configs hold such words)."""
    try:
        return path.is_file()
    except (OSError, ValueError):
        return False


def task_files(runner: str, args: Sequence[str], base: Path) -> list[Path]:
    """The task files ``runner`` reads given its arguments ``args``: the one ``-f FILE`` /
    ``--file=FILE`` / ``--makefile FILE`` names (make's; just's ``--justfile``, task's
    ``--taskfile``; finding S12: ``make -f ci.mk`` ran a command's recipe), its usual
    names in the folder ``-C DIR`` names, and its usual names at the root always (an
    option read wrong must guard no less). Existing ones only: a missing task file
    fails the hook, nothing runs."""
    given: list[str] = []
    folders = [""]
    dir_options = _TASK_DIR_OPTIONS[runner]
    for at, word in enumerate(args[:32]):
        option, equals, value = word.partition("=")
        if not equals and not word.startswith("--") and len(word) > 2 and word[:2] in (*dir_options, "-f"):
            option, value = word[:2], word[2:]  # `make -fci.mk`, `make -Csub`
        elif not equals:
            value = args[at + 1] if at + 1 < len(args) else ""
        if "$" in value or not value:
            continue
        if option in _TASK_FILE_OPTIONS:
            given.append(value)
        elif option in dir_options:
            folders.append(value)
    workdir = folders[-1]  # make -C sub -f x.mk reads sub/x.mk, and its includes from sub/
    names = [*(os.path.join(workdir, g) for g in given),
             *(os.path.join(f, name) for f in folders for name in _runner_names(runner, base / f))]
    out: list[Path] = []
    for name in dict.fromkeys(names):
        if is_file(base / name):
            try:
                out.append(paths.resolve(name, base))
            except paths.BadPath:
                continue
    out = out[:MAX_TASK_FILES]
    if runner not in _MAKES:
        return out + [p for f in out for p in _task_includes(f)]
    try:
        where = paths.resolve(workdir, base) if workdir else base
    except paths.BadPath:
        where = base
    return out + [p for f in out for p in _make_includes(f, where)]


def _runner_names(runner: str, folder: Path) -> list[str]:
    """The names ``runner`` looks for in ``folder``: its list, and for a runner that ignores
    case (:data:`ANY_CASE`) the folder's entries that are one of them in another case."""
    names = list(TASK_FILES.get(runner, ()))
    folded = ANY_CASE.get(runner)
    if folded:
        try:
            with os.scandir(folder) as entries:
                names += [e.name for e in list(entries)[:MAX_ANY_CASE] if e.name.casefold() in folded]
        except (OSError, ValueError):
            pass
    return list(dict.fromkeys(names))


MAX_ANY_CASE = 4096  # entries of one folder looked at for a task file in another case
_MAKES = frozenset({"make", "gmake"})
_TASK_FILE_OPTIONS = frozenset({"-f", "--file", "--makefile", "--justfile", "--taskfile"})
_TASK_DIR_OPTIONS = {**dict.fromkeys(_MAKES, ("-C", "--directory")), "just": ("-d", "--working-directory"),
                     "task": ("-d", "--dir")}
"""The options that name the folder a task runner works in, by runner (make's ``-d`` is debug)."""


def _make_includes(makefile: Path, base: Path) -> list[Path]:
    """The files a Makefile's ``include``/``-include``/``sinclude`` lines name: their rules
    are the Makefile's as much as its own lines. A word with a glob or ``$(wildcard …)``
    (``include $(wildcard mk/*.mk)``, finding S12) names the files its pattern matches
    now and the folder it globs (read-only whole: a new ``mk/zz.mk`` would be included
    too); a plain name counts when missing too (``-include local.mk``: a new one is
    quarantined); a word with another ``$(…)`` cannot be read without running make."""
    text = read_config(makefile)
    out: list[Path] = []
    for found in _MAKE_INCLUDE.finditer(text or ""):
        for word in _WILDCARD.sub(lambda m: m.group(1), found.group(1)).split():
            if "$" in word or "(" in word or ")" in word:
                continue
            if not any(c in word for c in "*?["):
                names = [word]  # missing too: `-include local.mk` reads one a command creates
            else:
                names = sorted(glob.glob(word, root_dir=base))[:MAX_TASK_FILES]
                folder = os.path.dirname(word)
                if folder and not any(c in folder for c in "*?["):
                    names.append(folder)  # read-only whole: a new file there is included too
            for name in names:
                try:
                    out.append(paths.resolve(name, base))
                except paths.BadPath:
                    continue
    return [p for p in out if p != base][:MAX_TASK_FILES]


def _task_includes(task_file: Path) -> list[Path]:
    """The files a justfile's ``import 'x.just'`` / ``mod name ['path']`` and a Taskfile's
    ``includes:`` (``./docs/Taskfile.yml``, ``taskfile: ./sub``) name, relative to the file's
    folder: their recipes run as the file's own do. Missing ones too (a new one is
    quarantined); a ``mod`` without a path names the places just looks for it."""
    text = read_config(task_file) or ""
    folder = task_file.parent
    names = [m.group(1) for m in _JUST_IMPORT.finditer(text)]
    for m in _JUST_MOD.finditer(text):
        name = m.group(1)
        module = [f"{name}/{n}" for n in _runner_names("just", folder / name)]
        names += [m.group(2)] if m.group(2) else [f"{name}.just", f"{name}/mod.just", *module]
    for m in _TASK_INCLUDE.finditer(text):
        value = m.group(1) or m.group(2)
        names += ([value] if value.endswith((".yml", ".yaml"))
                  else [os.path.join(value, n) for n in TASK_FILES["task"]])
    out: list[Path] = []
    for name in names[:MAX_TASK_FILES]:
        try:
            out.append(paths.resolve(name, folder))
        except (paths.BadPath, OSError, ValueError):
            continue
    return [p for p in out if p != folder]


_JUST_IMPORT = re.compile(r"""^[ \t]*import\??[ \t]+['"]([^'"\n]+)['"]""", re.M)
_JUST_MOD = re.compile(r"""^[ \t]*mod\??[ \t]+([\w-]+)(?:[ \t]+['"]([^'"\n]+)['"])?[ \t]*$""", re.M)
_TASK_INCLUDE = re.compile(r"""^[ \t]+[\w.-]+:[ \t]*['"]?([^'"\s#{}$]+\.ya?ml|\.\.?/[^'"\s#{}$]*)"""
                           r"""['"]?[ \t]*$|\btaskfile:[ \t]*['"]?([^'"\s#{}$]+)""", re.M)
"""A Taskfile's include: an indented key whose value is a ``.yml`` file (``docs: ./docs/Taskfile.yml``)
or a relative folder (``api: ./api``: its task files), or a ``taskfile:`` key's value (a file, or a
folder holding one)."""


_WILDCARD = re.compile(r"\$[({]wildcard[ \t]+([^)}]*)[)}]")
"""make's ``$(wildcard PATTERN)``: its pattern, which a plain glob reads the same."""
