"""The workspace files an editor's or a dev container's config names as programs to run.

``.vscode/`` and ``.devcontainer/`` are guarded by name (:mod:`.laternames`), but what
they *name* was an ordinary file (tester finding D7): ``initializeCommand:
./scripts/init.sh`` in ``devcontainer.json`` runs on the host at "Reopen in Container",
``python.defaultInterpreterPath: ${workspaceFolder}/tools/python`` runs when the folder
opens, as do ``git.path``, a terminal profile's ``path`` and a ``tasks.json`` task with
``runOptions.runOn: folderOpen``. A sandboxed command rewrote those files unasked and the
user's editor ran them. So the files they name inside the workspace are guarded as a
commit hook's scripts are: an edit asks, a sandboxed command cannot change them, trust's
question is not involved (the editor runs them, not agent-shell).

Read (JSON with comments, as VS Code reads it; bounded): ``devcontainer.json``'s
lifecycle commands (a string is a shell line, a list an argv, an object a set of both),
each read with :func:`.hookscripts.line_files` (``cd``-aware); ``tasks.json``'s
folder-open tasks (``command`` with ``args``, in ``options.cwd``, and their ``linux``/``osx``/
``windows`` forms); ``settings.json``'s program paths (a key ending ``path``/``Path``/
``executable``, with a ``/`` in the value, at any depth: terminal profiles' ``path``; files
only). ``${workspaceFolder}`` is the workspace;
another ``${…}`` is not known here and names nothing.
"""

from __future__ import annotations

import os
import re
import shlex
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from . import paths
from .codekeys import parse_jsonc
from .hookscripts import line_files
from .laternames import Reason
from .taskfiles import read_config

DEVCONTAINERS = (".devcontainer/devcontainer.json", ".devcontainer.json")
LIFECYCLE = ("initializeCommand", "onCreateCommand", "updateContentCommand", "postCreateCommand",
             "postStartCommand", "postAttachCommand")
"""``devcontainer.json``'s commands; ``initializeCommand`` runs on the host, the rest in the container."""
TASKS = ".vscode/tasks.json"
SETTINGS = ".vscode/settings.json"
MAX_FOLDERS = 16
"""``.devcontainer/<name>/devcontainer.json`` configs read (one per container flavour)."""
MAX_NAMED = 128
_PROGRAM_KEY = re.compile(r"(?:^|[.])(?:\w*[Pp]ath|\w*[Ee]xecutable|shell\.(?:linux|osx|windows))$")
"""A settings key whose value is a program (``git.path``, ``python.defaultInterpreterPath``, a
terminal profile's ``path``, ``terminal.integrated.shell.linux``); a folder it names
(``eslint.nodePath``) is not guarded whole: a command installing there must still work."""
_WORKSPACE = re.compile(r"\$\{(?:workspaceFolder|workspaceRoot|localWorkspaceFolder|containerWorkspaceFolder)"
                        r"\}")


def editor_runs(roots: Sequence[Path]) -> dict[Path, Reason]:
    """Path (inside a root) → why, for what each root's editor and dev container configs name."""
    found: dict[Path, Reason] = {}
    for root in roots:
        for config, named in _named(root):
            reason = _why(config)
            for path in named:
                if path != root and paths.within(path, root) and len(found) < MAX_NAMED:
                    found.setdefault(path, reason)
    return found


def _why(config: str) -> Reason:
    if config.endswith("devcontainer.json"):
        return Reason(f"{config} runs it as a dev container command (initializeCommand on your machine, "
                      "as you) when the folder is reopened in its container")
    if config == TASKS:
        return Reason(f"{config} runs it as a task when the folder opens in VS Code",
                      f"{config} runs as a task when the folder opens in VS Code")
    return Reason(f"{config} names it as a program VS Code runs, as you, when the folder opens",
                  f"{config} names as a program VS Code runs, as you, when the folder opens")


def _named(root: Path) -> list[tuple[str, list[Path]]]:
    out: list[tuple[str, list[Path]]] = []
    configs = [name for name in DEVCONTAINERS if (root / name).is_file()]
    try:
        flavours = sorted(p for p in (root / ".devcontainer").glob("*/devcontainer.json") if p.is_file())
    except OSError:
        flavours = []
    configs += [p.relative_to(root).as_posix() for p in flavours[:MAX_FOLDERS]]
    for name in configs:
        data = _read(root / name)
        lines = [line for key in LIFECYCLE for line in _lines(data.get(key))]
        out.append((name, [p for line in lines for p in line_files(_here(line, root), root)]))
    tasks = _read(root / TASKS).get("tasks")
    named: list[Path] = []
    for task in tasks if isinstance(tasks, list) else ():
        if not isinstance(task, dict) or not _opens(task):
            continue
        for form in (task, *(task.get(system) for system in ("linux", "osx", "windows"))):
            if isinstance(form, dict):  # a platform's own command replaces the task's there
                named += _task_files(form, task, root)
    out.append((TASKS, named))
    out.append((SETTINGS, _program_paths(_read(root / SETTINGS), root)))
    return out


def _task_files(form: dict[str, Any], task: dict[str, Any], root: Path) -> list[Path]:
    """What a task's ``command`` with its ``args`` runs, in its ``options.cwd`` (the
    platform form's own, else the task's)."""
    line = " ".join(_lines(form.get("command")) + _lines(form.get("args"), join=False))
    options = form.get("options") if isinstance(form.get("options"), dict) else task.get("options")
    cwd = options.get("cwd") if isinstance(options, dict) else None
    folder = Path(_here(cwd, root)) if isinstance(cwd, str) and "${" not in _here(cwd, root) else root
    return line_files(_here(line, root), root / folder) if line.strip() else []


def _opens(task: dict[str, Any]) -> bool:
    run = task.get("runOptions")
    return isinstance(run, dict) and run.get("runOn") == "folderOpen"


def _read(path: Path) -> dict[str, Any]:
    text = read_config(path) if path.is_file() else None
    data = parse_jsonc(text) if text is not None else None
    return data if isinstance(data, dict) else {}


def _lines(value: Any, *, join: bool = True) -> list[str]:
    """The command lines of a lifecycle value: a string, an argv list, an object of either."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, list):
        words = [w for w in value if isinstance(w, str)]
        return [shlex.join(words)] if join else [shlex.quote(w) for w in words]
    if isinstance(value, dict):
        return [line for item in value.values() for line in _lines(item)]
    return []


def _here(text: str, root: Path) -> str:
    return _WORKSPACE.sub(lambda _: str(root), text)


def _program_paths(settings: dict[str, Any], root: Path) -> list[Path]:
    """The values of the program-path keys of ``settings`` (at any depth) that are paths."""
    out: list[Path] = []
    stack: list[tuple[str, Any]] = list(settings.items())
    while stack and len(out) < MAX_NAMED:
        key, value = stack.pop()
        if isinstance(value, dict):
            stack += list(value.items())
            continue
        values = value if isinstance(value, list) else [value]
        if not _PROGRAM_KEY.search(key):
            stack += [(key, v) for v in values if isinstance(v, dict)]
            continue
        for item in values:
            if not isinstance(item, str):
                continue
            word = _here(item, root)
            if "/" not in word or "${" in word or "://" in word or word.startswith("~"):
                continue
            try:
                path = paths.resolve(word, root)
            except (paths.BadPath, OSError, ValueError):
                continue
            if not os.path.isdir(path):  # a value too long for a name: a file, guarded as written
                out.append(path)
    return out


__all__ = ["editor_runs"]
