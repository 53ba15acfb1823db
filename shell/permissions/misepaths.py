"""The folders mise puts first on the PATH: ``[env] _.path = ["./tools/bin"]``.

mise (like direnv) changes the user's shell when they enter the directory, and its
``_.path`` puts the project's folders before their own programs: a ``tools/bin/git``
planted there runs, as the user, at their next ``git`` in that directory. The config
files themselves are guarded by name (:mod:`.laternames`); the folders they name are
guarded as an ``.envrc``'s ``PATH_add`` folders are (:mod:`.pathdirs`), through
:func:`.envrcsources.envrc_runs`. The scripts it runs are guarded as what an ``.envrc``
sources is (:func:`mise_runs`): ``_.source`` (bash, at every prompt in that tree),
``_.file`` (dotenv files loaded into the shell) and the scripts ``[hooks]`` commands
name (``enter = "bash ./tools/enter.sh"``); a command appended to them unasked ran as
the user (finding M7). So are the scripts ``[tasks]`` name (``run = "./build.sh"``,
``file = "scripts/x.sh"``, the files of ``[task_config] includes``): they run as the user
at ``mise run``. So are the scripts a template's ``exec(command="sh ./x.sh")`` names
(mise renders ``[env]`` templates at every prompt, as it sources ``_.source``; others
when it reads that part) and those a tool's ``postinstall`` names (``[tools] node =
{ postinstall = "sh ./post.sh" }``, at the next ``mise install``): they were left
out, and an appended line ran as the user (finding P12). Every config mise reads for a
folder counts, not only the top-level ``mise.toml``: ``.mise/``, ``mise/``, ``.config/``,
``conf.d``, the local and ``MISE_ENV`` variants, and those of subfolders (mise reads every
folder's from the user's up), found by the sandbox's walk (r14). Read with ``tomllib``,
bounded, never an error.
"""

from __future__ import annotations

import os
import re
import shlex
import stat
import tomllib
from collections.abc import Iterable, Sequence
from pathlib import Path

from . import paths

CONFIGS = ("mise.toml", ".mise.toml", "mise.local.toml", ".mise.local.toml", ".config/mise.toml",
           ".config/mise/config.toml", ".mise/config.toml", "mise/config.toml", ".config/mise/mise.toml")
"""Where mise reads a project's config, relative to the project's folder."""
VARIANTS = ("mise.*.toml", ".mise.*.toml", ".config/mise.*.toml", ".config/mise/config.*.toml",
            ".mise/config.*.toml", "mise/config.*.toml", ".config/mise/conf.d/*.toml")
"""The local and ``MISE_ENV`` variants (``mise.local.toml``, ``.mise.dev.toml``,
``mise/config.ci.local.toml``) and ``conf.d``: which env is on is the user's shell's
business, so every one counts."""
MAX_CONFIGS = 64
"""Config files read for one folder."""
_MISE_NAME = re.compile(r"\.?mise(\.[\w.-]+)?\.toml|\.?mise-tasks")
_CONFIG_FILE = re.compile(r"config(\.[\w.-]+)?\.toml")
MAX_BYTES = 1 << 20
WHY = ("is in a folder mise puts first on your PATH (_.path in {config}): a program there runs instead of "
       "yours of the same name (git, ls …) at every command you type in that directory")


def project_folders(roots: Sequence[Path], found: Iterable[Path] = ()) -> list[Path]:
    """The roots and the folders whose mise config the walk ``found`` (a nested
    ``mise.toml``, ``.mise``, ``.config/mise`` …): mise reads each of them in its folder."""
    out = list(roots)
    for path in found:
        folder = _project_of(path)
        if folder is not None and folder not in out and any(paths.within(folder, r) for r in roots):
            out.append(folder)
    return out


def _project_of(path: Path) -> Path | None:
    """The folder a mise config (or config folder) at ``path`` is the project config of."""
    name, parent = path.name.casefold(), path.parent
    if _CONFIG_FILE.fullmatch(name) and parent.name.casefold() in ("mise", ".mise"):
        parent = parent.parent  # mise/config.toml, .mise/config.dev.toml, .config/mise/config.toml
    elif not (_MISE_NAME.fullmatch(name) or name in ("mise", ".mise")):
        return None
    return parent.parent if parent.name.casefold() == ".config" else parent


def configs(folder: Path) -> list[tuple[Path, str]]:
    """The mise config files of ``folder`` that exist, each with its name relative to
    the folder (what a question says)."""
    found = [folder / name for name in CONFIGS]
    for pattern in VARIANTS:
        try:
            found += sorted(folder.glob(pattern))[:MAX_CONFIGS]
        except (OSError, ValueError):
            continue
    out: list[tuple[Path, str]] = []
    for config in dict.fromkeys(found):
        if len(out) >= MAX_CONFIGS:
            break
        if os.path.isfile(config):
            out.append((config, os.path.relpath(config, folder)))
    return out


def mise_path_dirs(roots: Sequence[Path], found: Iterable[Path] = ()) -> list[tuple[Path, str]]:
    """The folders (real paths, inside ``roots``) that the mise configs of the roots
    and of the folders the walk ``found`` put on the PATH."""
    out: list[tuple[Path, str]] = []
    for root in project_folders(roots, found):
        for config, name in configs(root):
            for entry in _path_entries(config):
                folder = Path(os.path.realpath(root / os.path.expanduser(entry))) if entry else None
                if folder is not None and any(paths.within(folder, r) for r in roots):
                    out.append((folder, WHY.format(config=name)))
    return out


RUNS_WHY = "mise runs as you when you are in that directory ({key} in {config})"
TASK_WHY = "mise runs as you at `mise run {task}` ({key} in {config})"
EXEC_WHY = "mise runs as you when it renders {key} in {config} (an exec() template)"
INSTALL_WHY = "mise runs as you at the next `mise install` ({key} in {config})"
MAX_ITEMS = 64
MAX_STRINGS = 4096
"""Strings of one config looked at for exec() templates."""
_EXEC = re.compile(r"""\bexec\(.*?\bcommand\s*=\s*(?P<q>["'])(?P<command>.*?)(?P=q)""", re.DOTALL)


def mise_runs(roots: Sequence[Path], found: Iterable[Path] = ()) -> list[tuple[Path, str]]:
    """The files (real paths, inside ``roots``, existing or not for ``_.source``,
    ``_.file`` and a task's ``file``) that the mise configs of the roots and of the
    folders the walk ``found`` run or load into the user's shell."""
    out: list[tuple[Path, str]] = []
    for root in project_folders(roots, found):
        for config, name in configs(root):
            data = _load(config)
            env = data.get("env")
            special = env.get("_") if isinstance(env, dict) else None
            for key in ("source", "file"):
                value = special.get(key) if isinstance(special, dict) else None
                for item in _strings(value, "path"):
                    out += _inside(root, item, roots, RUNS_WHY.format(key=f"_.{key}", config=name))
            hooks = data.get("hooks")
            for hook, value in (hooks.items() if isinstance(hooks, dict) else ()):
                why = RUNS_WHY.format(key=f"hooks.{hook}", config=name)
                for command in _strings(value, "script"):
                    for word in _words(command):
                        out += [(p, w) for p, w in _inside(root, word, roots, why) if os.path.isfile(p)]
            out += _task_runs(root, data, name, roots)
            out += _template_runs(root, data, name, roots)
    return out


def _template_runs(
    root: Path, data: dict[str, object], config: str, roots: Sequence[Path]
) -> list[tuple[Path, str]]:
    """The scripts an ``exec()`` template anywhere in the config names, and those a
    tool's ``postinstall`` names: each word of the command that is a file."""
    out: list[tuple[Path, str]] = []
    for key, text in _all_strings(data):
        commands = [m["command"] for m in _EXEC.finditer(text[:4096])][:MAX_ITEMS]
        if key.startswith("tools.") and key.endswith(".postinstall"):
            commands.append(text)
            why = INSTALL_WHY.format(key=key, config=config)
        else:
            why = (RUNS_WHY if key.startswith("env.") else EXEC_WHY).format(key=key, config=config)
        for command in commands:
            for word in _words(command):
                out += [(p, w) for p, w in _inside(root, word, roots, why) if os.path.isfile(p)]
    return out


def _all_strings(data: dict[str, object]) -> list[tuple[str, str]]:
    """``(dotted key, string)`` for every string in a config (tables and lists walked,
    iteratively), at most :data:`MAX_STRINGS`."""
    out: list[tuple[str, str]] = []
    stack: list[tuple[str, object]] = [("", data)]
    while stack and len(out) < MAX_STRINGS:
        key, value = stack.pop()
        if isinstance(value, str):
            out.append((key, value))
        elif isinstance(value, dict):
            stack += [(f"{key}.{k}" if key else str(k), v) for k, v in list(value.items())[:MAX_ITEMS]]
        elif isinstance(value, list):
            stack += [(key, v) for v in value[:MAX_ITEMS]]
    return out


def _task_runs(
    root: Path, data: dict[str, object], config: str, roots: Sequence[Path]
) -> list[tuple[Path, str]]:
    """The scripts ``[tasks]`` run (``run`` commands' words that are files, ``file``)
    and the files ``[task_config] includes`` names (each a task, or a folder of them)."""
    out: list[tuple[Path, str]] = []
    tasks = data.get("tasks")
    for task, value in list(tasks.items())[:MAX_ITEMS] if isinstance(tasks, dict) else ():
        body = value if isinstance(value, dict) else {"run": value}
        for key in ("run", "run_windows"):
            why = TASK_WHY.format(task=task, key=f"tasks.{task}.{key}", config=config)
            for command in _strings(body.get(key), "run"):
                for word in _words(command):
                    out += [(p, w) for p, w in _inside(root, word, roots, why) if os.path.isfile(p)]
        for item in _strings(body.get("file"), "path"):
            why = TASK_WHY.format(task=task, key=f"tasks.{task}.file", config=config)
            out += _inside(root, item, roots, why)
    task_config = data.get("task_config")
    includes = task_config.get("includes") if isinstance(task_config, dict) else None
    why = TASK_WHY.format(task="…", key="task_config.includes", config=config)
    for item in _strings(includes, "path"):
        folder = root / os.path.expanduser(item.replace("{{config_root}}", "."))
        if os.path.isdir(folder) and not os.path.islink(folder):
            try:
                names = sorted(os.listdir(folder))[:MAX_ITEMS]
            except OSError:
                continue
            out += [(p, w) for n in names for p, w in _inside(folder, n, roots, why) if os.path.isfile(p)]
        else:
            out += _inside(root, item, roots, why)
    return out


def _strings(value: object, key: str) -> list[str]:
    """A string, a list of them, or tables holding one under ``key`` (``{path = "x"}``)."""
    items = value if isinstance(value, list) else [value]
    out = [item.get(key) if isinstance(item, dict) else item for item in items[:MAX_ITEMS]]
    return [item for item in out if isinstance(item, str)]


def _words(command: str) -> list[str]:
    try:
        words = shlex.split(command[:4096])
    except ValueError:
        words = command[:4096].split()
    return [w for w in words[:MAX_ITEMS] if w and not w.startswith("-")]


def _inside(root: Path, item: str, roots: Sequence[Path], why: str) -> list[tuple[Path, str]]:
    entry = item.replace("{{config_root}}", ".")
    try:
        path = Path(os.path.realpath(root / os.path.expanduser(entry)))
    except (OSError, ValueError):
        return []
    if os.path.isdir(path) or not any(paths.within(path, r) for r in roots):
        return []
    return [(path, why)]


def _load(config: Path) -> dict[str, object]:
    try:
        info = os.stat(config)
        if not stat.S_ISREG(info.st_mode) or info.st_size > MAX_BYTES:
            return {}
        with open(config, "rb") as handle:
            data = tomllib.loads(handle.read(MAX_BYTES).decode("utf-8", "replace"))
    except (OSError, tomllib.TOMLDecodeError, RecursionError, ValueError):
        return {}
    return data


def _path_entries(config: Path) -> list[str]:
    data = _load(config)
    env = data.get("env")
    special = env.get("_") if isinstance(env, dict) else None
    value = special.get("path") if isinstance(special, dict) else None
    items = [value] if isinstance(value, str) else value if isinstance(value, list) else []
    return [item.replace("{{config_root}}", ".") for item in items[:64] if isinstance(item, str)]


__all__ = ["CONFIGS", "VARIANTS", "configs", "mise_path_dirs", "mise_runs", "project_folders"]
