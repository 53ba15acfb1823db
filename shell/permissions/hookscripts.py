"""The workspace scripts a commit hook or a commit-hook framework runs at the next
``git commit`` (tester findings N7, P3).

The frameworks' configs are guarded by name (:mod:`.laternames`: ``.pre-commit-config.yaml``,
``.husky/``, ``lefthook.yml`` …), and so is a script a git hook links to
(:mod:`.gitruns`). The scripts those configs *name* were not: with
``entry: ./scripts/lint.sh`` in ``.pre-commit-config.yaml``, ``./scripts/hk.sh`` in
``.husky/pre-commit`` or ``run: ./scripts/lh.sh`` in ``lefthook.yml``, a changed
``scripts/lint.sh`` runs as the user at their next commit, before any review a commit
implies. So the files they name inside the work tree are guarded like a hook's link
target: an edit asks, a sandboxed command cannot change them.

Read, without a YAML parser (none is a dependency; a config that parses as JSON is read
as JSON: ``lefthook.json``; the keys inside YAML flow mappings, ``- {id: b, entry: …}``,
are found too, finding Q14): pre-commit's ``entry:``/``args:``,
lefthook's ``run:``/``script:``, overcommit's ``command:``/``required_executable:``
(a one-line value, a flow list, or a block scalar ``|``/``>-`` or block list with its
indented lines); every line of a husky hook and of a plain hook file in a hooks folder
(``.git/hooks/pre-commit`` = ``./scripts/check.sh``: what husky v4 and simple-git-hooks
install, and what people write by hand); the JSON command strings of husky v4
(``package.json`` ``"husky": {"hooks": …}``, ``.huskyrc``), simple-git-hooks and
lint-staged (which husky's usual ``npx lint-staged`` runs), their YAML forms line by line;
and the ``package.json`` scripts those commands run (``npm test``: husky's default hook).

A word counts when it looks like a file: it holds a ``/`` (not a URL or an option), or,
without one, it names an existing file of the work tree where a file runs: a command's
first word (pre-commit's ``entry: lint.sh`` is a path from the root), after an interpreter
(``node fix.js``), or named like a script (``.sh``, ``.py`` …), not an option's value
(``args: [--config, checks.conf]``); ``python -m tools.mod`` names ``tools/mod.py``
or ``tools/mod/__init__.py`` (and the packages' ``__init__.py`` it imports on the way),
existing or not (``python -m black`` runs a ``black.py`` planted at the root); the string
of ``sh -c "…"`` / ``bash -lc`` is read as a command line. Each command is read in the
folder the line has moved into (``cd scripts && ./check.sh``, a hook file's ``cd`` lasting
to its next lines: :mod:`.cdlines`), and the lint-staged configs and ``package.json``
scripts of a folder a hook moves into are read there (finding D6).
A config too big to read names nothing more (the config itself is guarded).
"""

from __future__ import annotations

import json
import os
import re
import shlex
from collections.abc import Iterator, Sequence
from pathlib import Path

from . import hookmanagers, paths
from .cdlines import known_folders, read_line
from .codekeys import PYTEST_HOOKED, listed_scripts
from .gitcommands import command_words
from .laternames import LEFTHOOK
from .taskfiles import TASK_FILES, is_file, read_config, task_files

PRE_COMMIT = (".pre-commit-config.yaml", ".pre-commit-config.yml")
OVERCOMMIT = (".overcommit.yml", ".overcommit.yaml")
HUSKY = ".husky"
PACKAGE_JSON = "package.json"
PACKAGE_KEYS: tuple[tuple[str, ...], ...] = (
    ("husky", "hooks"), ("simple-git-hooks",), ("lint-staged",), ("gitHooks",), ("config", "ghooks"),
    ("nano-staged",))
"""Where ``package.json`` holds commands run at a commit: husky v4, simple-git-hooks, lint-staged,
yorkie (``gitHooks``), ghooks (``config.ghooks``), nano-staged (finding U11)."""
COMMAND_FILES = (".huskyrc", ".huskyrc.json", ".huskyrc.yaml", ".huskyrc.yml", ".simple-git-hooks.json",
                 "simple-git-hooks.json", ".lintstagedrc", ".lintstagedrc.json", ".lintstagedrc.yaml",
                 ".lintstagedrc.yml", ".nano-staged.json", "nano-staged.json", ".nanostagedrc")
"""Files whose every string (JSON) or every line's value (YAML) is a command run at a commit."""
MAX_HUSKY_FILES = 64
MAX_HOOK_FILES = 64
"""Plain hook files of one hooks folder read."""
MAX_SCRIPTS = 256  # files named in all (each is looked at before and after every command)
MAX_PACKAGE_SCRIPTS = 64
_RUNS_SCRIPT = re.compile(
    r"(?:^|[\s;&|(])(?:npm\s+(?:run(?:-script)?\s+)?(?=(?:test|t|start|stop|restart)\b)|npm\s+run(?:-script)?\s+"
    r"|(?:yarn|pnpm|bun)\s+(?:run\s+)?)(?:--?[\w-]+\s+)*([\w:.@/-]+)")
"""A command that runs a ``package.json`` script, and the script's name."""
_KEYS = re.compile(
    r"""^(?P<indent>[ \t]*)(?:-[ \t]*)?["']?(?:entry|args|run|script|command|required_executable)["']?"""
    r"""[ \t]*[:=][ \t]*(?P<value>.*?)[ \t]*$""")
_BLOCK = re.compile(r"^(?:[|>][-+0-9]*)?$")
"""A key's value that is no value: its indented lines below are (a block scalar or list)."""
_YAML_KEY = re.compile(r"""^\s*(?:-\s+)?(?:"[^"]*"|'[^']*'|[^\s:'"]+)\s*:(?:\s+|$)(.*)$""")
PYTHON_WORD = re.compile(r"(?:.*/)?(?:python[\d.]*|py|pypy[\d.]*)")
_RUNNERS = frozenset({"sh", "bash", "zsh", "dash", "ksh", "fish", "node", "deno", "bun", "tsx", "ts-node",
                      "ruby", "perl", "php", "pwsh", "lua", "Rscript", "source", ".", "exec", "env", "run"})
"""Words after which a bare file name is what runs (a script given to an interpreter)."""
_SCRIPT_SUFFIXES = frozenset({".sh", ".bash", ".zsh", ".py", ".js", ".cjs", ".mjs", ".ts", ".cts", ".mts",
                              ".rb", ".pl", ".php", ".ps1", ".lua", ".r"})
SHELLS = frozenset({"sh", "bash", "zsh", "dash", "ksh", "fish"})
SHELL_C = re.compile(r"-[a-z]*c[a-z]*")
"""``sh -c``, ``bash -lc``: the next word is a command line."""
MAX_NESTING = 3
"""``bash -c "sh -c '…'"`` read this deep."""
_LEFTHOOK_DIR_KEY = re.compile(
    r"""(?:^|[{,])[ \t]*["']?source_dir(?:_local)?["']?[ \t]*[:=][ \t]*["']?([^"'#\n,}]+)""", re.M)
"""lefthook's ``source_dir``/``source_dir_local`` (default ``.lefthook/``, ``.lefthook-local/``):
the folders it runs a hook's ``scripts:`` from (finding U16)."""
COMMAND_KEYS = frozenset({"entry", "args", "run", "script", "command", "required_executable"})
_FLOW_KEY = re.compile(
    r"""[{,][ \t\r\n]*["']?(?:entry|args|run|script|command|required_executable)["']?[ \t]*:[ \t]*"""
    r"""(?P<value>"(?:[^"\\\n]|\\.)*"|'(?:[^'\n]|'')*'|\[[^\]\n]*\]|[^,}\n]*)""")
_MODULE = re.compile(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*")


def framework_configs(base: Path) -> list[Path]:
    """The hook frameworks' config files of the work tree ``base`` (existing ones)."""
    names = (*PRE_COMMIT, *OVERCOMMIT, PACKAGE_JSON, *COMMAND_FILES, *hookmanagers.CONFIGS)
    found = [base / name for name in names if (base / name).is_file()]
    try:
        with os.scandir(base) as entries:
            found += [Path(e.path) for e in entries if LEFTHOOK.fullmatch(e.name) and e.is_file()]
    except OSError:
        pass
    husky = base / HUSKY
    if husky.is_dir() and not husky.is_symlink():
        found += _plain_files(husky, MAX_HUSKY_FILES)
    return found


def hook_scripts(base: Path, hook_folders: Sequence[Path] = ()) -> tuple[list[Path], list[Path]]:
    """The files the hook frameworks of work tree ``base`` and the plain hook files of
    ``hook_folders`` name (resolved against ``base``, where git runs hooks), and the
    files read (whose times key the caller's cache)."""
    commands, read = _hook_commands(base, hook_folders)
    commands += _package_scripts(commands, base / PACKAGE_JSON)[0]
    out = [p for command in commands for p in line_files(command, base) if p != base]  # `cd ./`: no script
    out += _lefthook_dirs(base, read)
    moved, configs = _moved_into(commands, base)
    return list(dict.fromkeys(out + moved))[:MAX_SCRIPTS], read + configs


MAX_MOVED = 8
"""Subfolders a hook moves into whose own hook configs are read."""


def _moved_into(commands: Sequence[str], base: Path) -> tuple[list[Path], list[Path]]:
    """What a hook that moves into a subfolder runs there by that folder's own configs
    (``cd frontend && npx lint-staged`` runs ``frontend/.lintstagedrc.json``'s commands
    in ``frontend``, ``cd packages/a && npm test`` that folder's ``package.json`` script,
    finding D6's monorepo shape), and the configs read."""
    parts = [part for command in commands for part in read_line(command, str(base)).parts if part.moved]
    folders = list(dict.fromkeys(part.folder for part in parts))[:MAX_MOVED]
    out: list[Path] = []
    read: list[Path] = []
    for folder in map(Path, folders):
        if folder == base or not paths.within(folder, base) or not os.path.isdir(folder):
            continue
        configs = [folder / name for name in (*COMMAND_FILES, PACKAGE_JSON) if is_file(folder / name)]
        read += configs
        runs = [shlex.join(part.words) for part in parts if part.folder == str(folder)]
        for config in configs:
            runs += _commands(config, read_config(config) or "")
        runs += _package_scripts(runs, folder / PACKAGE_JSON)[0]
        out += [p for command in runs for p in line_files(command, folder) if p != folder]
    return out, read


def hooked_scripts(base: Path) -> frozenset[str]:
    """The names of ``base/package.json``'s ``scripts`` a commit hook runs (``npm test`` in
    ``.husky/pre-commit`` or ``.git/hooks/pre-commit``, ``npm run lint`` in lint-staged's
    commands): the command line itself lives there, so those keys are code
    (:mod:`.codekeys`; finding Q7: the script they named was guarded, the key was not)."""
    commands, _ = _hook_commands(base, [base / ".git" / "hooks"])
    return frozenset(_package_scripts(commands, base / PACKAGE_JSON)[1])


def hooked_keys(path: Path) -> frozenset[str]:
    """What :func:`.codekeys.code_keys` is to count as code in the config file ``path``
    because of a commit hook of its folder: for a ``package.json`` the scripts a hook runs
    (:func:`hooked_scripts`), for a ``pyproject.toml``, ``setup.cfg`` or ``tox.ini``
    pytest's tables when a hook runs pytest (finding S13)."""
    name = path.name.casefold()
    if name == PACKAGE_JSON:
        return hooked_scripts(path.parent)
    if name not in PYTEST_TABLE_FILES:
        return frozenset()
    commands, _ = _hook_commands(path.parent, [path.parent / ".git" / "hooks"])
    commands += _package_scripts(commands, path.parent / PACKAGE_JSON)[0]
    words = (os.path.basename(w.strip(",;&|()<>'\"")) for c in commands for w in command_words(c))
    runs = any(word in PYTESTS for word in words)
    return frozenset({PYTEST_HOOKED}) if runs else frozenset()


PYTEST_TABLE_FILES = frozenset({"pyproject.toml", "setup.cfg", "tox.ini"})


def _hook_commands(base: Path, hook_folders: Sequence[Path]) -> tuple[list[str], list[Path]]:
    """The command lines of ``base``'s hook frameworks and of the hook files, and the files read."""
    configs = framework_configs(base)
    hook_files = [f for folder in hook_folders for f in _plain_files(folder, MAX_HOOK_FILES)]
    commands: list[str] = []
    for config in configs:
        text = read_config(config)
        if text is not None:
            script = str(config) if config.parent.name == HUSKY else ""  # a husky hook's $0
            commands += [known_folders(c, str(base), script) for c in _lefthook_roots(config, text)]
    for hook_file in hook_files:
        text = read_config(hook_file)
        if text is not None:  # one script: a `cd` on one line holds for the next (D6)
            commands.append(known_folders(text, str(base), str(hook_file)))
    return commands, [*configs, *hook_files]


MAX_ROOTS = 8
_LEFTHOOK_ROOT = re.compile(r"""(?:^[ \t]*|[{,][ \t]*)["']?root["']?[ \t]*:[ \t]*["']?([^"'#,{}\n]+?)["']?"""
                            r"""[ \t]*(?=[,}#\n]|$)""", re.M)


def _lefthook_roots(config: Path, text: str) -> list[str]:
    """The command lines of one config; for a lefthook config with ``root:`` keys (a command
    lefthook runs in that folder: ``lint: {root: "frontend/", run: ./scripts/lint.sh}``),
    each of its commands read in each such folder too, as which command a ``root`` belongs to
    is not told apart here: more guarded, none missed (finding D6)."""
    commands = _commands(config, text)
    if not LEFTHOOK.fullmatch(config.name):
        return commands
    roots = [r.strip() for r in _LEFTHOOK_ROOT.findall(text)]
    roots = [r for r in dict.fromkeys(roots) if r and "$" not in r][:MAX_ROOTS]
    return commands + [f"cd {shlex.quote(r)} && {c}" for r in roots for c in commands]


def _lefthook_dirs(base: Path, read: Sequence[Path]) -> list[Path]:
    """The folders a lefthook config of ``base`` names (``source_dir``, ``source_dir_local``),
    missing ones too: a script planted there runs at the next commit (its defaults are
    guarded by name, :mod:`.laternames`)."""
    out: list[Path] = []
    for config in read:
        if config.parent != base or not LEFTHOOK.fullmatch(config.name):
            continue
        for found in _LEFTHOOK_DIR_KEY.finditer(read_config(config) or ""):
            value = found.group(1).strip()
            if value and "$" not in value:
                try:
                    out.append(paths.resolve(value, base))
                except (paths.BadPath, OSError, ValueError):
                    continue
    return [p for p in out if p != base]


def _package_scripts(commands: list[str], package: Path) -> tuple[list[str], list[str]]:
    """The ``package.json`` scripts the hook commands run (``npm test``, ``npm run lint``,
    ``yarn lint``, ``pnpm run x``: husky's default hook is ``npm test``), with npm's
    ``pre``/``post`` ones and the scripts those run in turn; and their names."""
    text = read_config(package) if package.is_file() else None
    data = _json(text) if text is not None else None
    table = data.get("scripts") if isinstance(data, dict) else None
    if not isinstance(table, dict):
        return [], []
    scripts = {k: v for k, v in table.items() if isinstance(v, str)}
    out: list[str] = []
    seen: set[str] = set()
    pending = commands
    while pending and len(seen) < MAX_PACKAGE_SCRIPTS:
        names = [{"t": "test"}.get(n, n) for command in pending for n in _RUNS_SCRIPT.findall(command)]
        names = [n for name in names for n in (f"pre{name}", name, f"post{name}") if n in scripts]
        pending = [scripts[n] for n in dict.fromkeys(names) if n not in seen]
        seen.update(names)
        out += pending
    return out, sorted(seen)


def _plain_files(folder: Path, cap: int) -> list[Path]:
    """The regular files of ``folder`` (not links, not git's ``*.sample``), ``cap`` at most."""
    try:
        with os.scandir(folder) as entries:
            return [Path(e.path) for e in list(entries)[:cap]
                    if e.is_file(follow_symlinks=False) and not e.name.endswith(".sample")]
    except OSError:
        return []


def _commands(config: Path, text: str) -> list[str]:
    """The command lines of one config, by its kind."""
    if config.parent.name == HUSKY:
        return [text]  # one script, read line by line with its `cd`s (D6)
    if any(config.as_posix().endswith(f"/{name}") for name in hookmanagers.CONFIGS):
        return hookmanagers.commands(config.name, text)  # CaptainHook, rusty-hook, hk
    if config.name == PACKAGE_JSON:
        data = _json(text)
        if not isinstance(data, dict):
            return []
        out: list[str] = []
        for keys in PACKAGE_KEYS:
            node: object = data
            for key in keys:
                node = node.get(key) if isinstance(node, dict) else None
            out += _strings(node)
        return out + [f"npm run {name}" for name in sorted(listed_scripts(data))]  # the pre-commit package
    if config.name in COMMAND_FILES:
        data = _json(text)
        if data is not None:
            return _strings(data.get("hooks", data) if config.name.startswith(".huskyrc")
                            and isinstance(data, dict) else data)
        return [_yaml_value(line) for line in text.splitlines()]
    data = _json(text)  # YAML holds JSON: lefthook.json, a pre-commit config a JSON writer made
    if data is not None:
        return _key_strings(data)
    return [*_key_values(text), *_flow_values(text)]


def _key_strings(data: object) -> list[str]:
    """The command keys' values of a parsed config, walked without recursion: a string
    as it is, a list of strings as one command line (``args: [--config, checks.conf]``)."""
    out: list[str] = []
    stack = [data]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            for key, value in item.items():
                if key in COMMAND_KEYS and isinstance(value, str):
                    out.append(value)
                elif key in COMMAND_KEYS and isinstance(value, list):
                    out.append(" ".join(shlex.quote(v) for v in value if isinstance(v, str)))
                else:
                    stack.append(value)
        elif isinstance(item, list):
            stack += item
    return out


def _flow_values(text: str) -> Iterator[str]:
    """The command keys' values inside YAML flow mappings (``- {id: b, entry: scripts/b.sh}``,
    ``{"run": "scripts/e.sh"}`` in a ``.jsonc``), which the line reader misses: a key
    after ``{`` or ``,``, its value quoted, a flow list, or plain up to ``,`` or ``}``."""
    for found in _FLOW_KEY.finditer(text):
        value = found.group("value").strip()
        if len(value) > 1 and value[0] == value[-1] and value[0] in "'\"":
            value = value[1:-1]
        if value:
            yield value


def _json(text: str) -> object:
    """The parsed config, or None when it is no JSON (nested past Python's recursion
    limit included: a hostile config must not break every decision). A byte-order mark
    goes first, as Node and the hook managers strip it (finding D16)."""
    try:
        return json.loads(text.removeprefix("\ufeff"))
    except (ValueError, RecursionError):
        return None


def _strings(node: object) -> list[str]:
    """Every string value below ``node`` (not the keys: they are hook names or globs),
    walked without recursion."""
    out: list[str] = []
    stack = [node]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            out.append(item)
        elif isinstance(item, dict):
            stack += reversed(list(item.values()))
        elif isinstance(item, list):
            stack += reversed(item)
    return out


def _yaml_value(line: str) -> str:
    """A YAML line's value (``"*.js": node scripts/d.sh`` → ``node scripts/d.sh``)."""
    found = _YAML_KEY.match(line)
    value = (found.group(1) if found else line.strip().removeprefix("- ")).strip()
    if len(value) > 1 and value[0] == value[-1] and value[0] in "'\"":
        value = value[1:-1]
    return value


def _key_values(text: str) -> Iterator[str]:
    """The values of the command keys, a block scalar's or block list's lines included."""
    lines = text.splitlines()
    for number, line in enumerate(lines):
        found = _KEYS.match(line)
        if found is None:
            continue
        value = found.group("value")
        if not _BLOCK.fullmatch(value):
            yield value
            continue
        indent = len(found.group("indent").expandtabs())
        for below in lines[number + 1:]:
            if not below.strip():
                continue
            depth = len(below) - len(below.lstrip())
            item = below.lstrip().startswith("- ")
            if depth > indent or (depth == indent and item and not value):
                yield _yaml_value(below) if item else below
            else:
                break


def line_files(value: str, base: Path, depth: int = 0) -> list[Path]:
    """The files the command line (or script) ``value`` runs when it starts in ``base``:
    each simple command's words are read in the folder the line has moved into
    (:mod:`.cdlines`: ``cd scripts && ./check.sh`` runs ``scripts/check.sh``, finding D6)."""
    out: list[Path] = []
    for part in read_line(value.strip().strip("[]"), str(base)).parts:
        cleaned = [w.strip(",;&|()<>'\"") for w in part.words]
        out += _words_files(cleaned, Path(part.folder), depth)
        for folder in _subfolders(Path(part.folder)) if part.lost else ():  # `cd "$DIR" && ./lint.sh`
            out += [p for p in _words_files(cleaned, folder, depth) if is_file(p)]
    return out


MAX_GUESSED = 64
"""Folders a word after a ``cd`` the reader cannot follow is looked for in (one level down)."""


def _subfolders(folder: Path) -> list[Path]:
    """The folders right in ``folder`` (not links, not ``.git`` or ``node_modules``): where a
    ``cd`` the reader cannot follow may lead, each holding a file the words name guarded."""
    try:
        with os.scandir(folder) as entries:
            found = [Path(e.path) for e in list(entries)[:4 * MAX_GUESSED]
                     if e.name not in (".git", "node_modules") and e.is_dir(follow_symlinks=False)]
            return found[:MAX_GUESSED]
    except OSError:
        return []


def _words_files(cleaned: list[str], base: Path, depth: int) -> list[Path]:
    out: list[Path] = []
    python = shell = False
    at = -1
    while at + 1 < len(cleaned):
        at += 1
        word = cleaned[at]
        python = python or bool(PYTHON_WORD.fullmatch(word))
        shell = shell or os.path.basename(word) in SHELLS
        if python and word.startswith("-m"):
            module = word[2:] or (cleaned[at + 1] if at + 1 < len(cleaned) else "")
            out += module_files(module, base)
            continue
        if os.path.basename(word) in TASK_FILES and (at == 0 or cleaned[at - 1] in (*_RUNNERS, "")):
            out += task_files(os.path.basename(word), cleaned[at + 1:], base)
            continue  # `make lint`: the target's lines are the command (finding Q7)
        if os.path.basename(word) in PYTESTS:  # `python -m pytest` too: its next word
            out += _pytest_files(cleaned[at + 1:], base)
            continue  # pytest runs more than its words name (finding S13)
        if shell and SHELL_C.fullmatch(word) and at + 1 < len(cleaned):
            at += 1  # `bash -c "scripts/a.sh && true"`: its string is a command line
            out += line_files(cleaned[at], base, depth + 1) if depth < MAX_NESTING else []
            continue
        if "://" in word or word.startswith(("-", "$")) or not word:
            continue
        if "/" not in word and not (_runs_bare(word, cleaned[at - 1] if at else "")
                                    and is_file(base / word)):
            continue
        try:
            out.append(paths.resolve(word, base))
        except paths.BadPath:
            continue
    return out


PYTESTS = frozenset({"pytest", "py.test"})
PYTEST_CONFIGS = ("pytest.ini", ".pytest.ini", "conftest.py")


def _pytest_files(args: Sequence[str], base: Path) -> list[Path]:
    """What a hook's ``pytest tests`` runs besides the tests: ``pytest.ini`` (its
    ``addopts = -p plugin`` loads a module) and the ``conftest.py`` at the root and in
    each folder the command names, missing ones too (a new one is quarantined), finding
    S13. The test files themselves are the workspace's code, which a commit runs as any
    test run does: not guarded."""
    folders = ["", *(a.rstrip("/") for a in args[:16] if a and not a.startswith("-") and "$" not in a
                     and "::" not in a and not a.endswith(".py"))]
    out: list[Path] = []
    for folder in dict.fromkeys(folders):
        for name in PYTEST_CONFIGS if not folder else ("conftest.py",):
            try:
                out.append(paths.resolve(os.path.join(folder, name), base))
            except (paths.BadPath, OSError, ValueError):
                continue
    return out


def _runs_bare(word: str, before: str) -> bool:
    """Whether a word without a "/" is in a place where it runs: a command's first word
    (pre-commit's ``entry: lint.sh`` is a path from the root), after an interpreter
    (``node fix.js``), or named like a script; not an option's value such as
    ``args: [--config, setup.cfg]``, whose file then stays editable."""
    if not before or before in _RUNNERS or PYTHON_WORD.fullmatch(before):
        return True
    return os.path.splitext(word)[1].lower() in _SCRIPT_SUFFIXES


def module_files(module: str, base: Path) -> list[Path]:
    """The work tree's files ``python -m module`` runs from ``base``: the module, or the
    package's ``__init__``/``__main__``, and each parent package's ``__init__``; missing
    ones too, as the root comes first on ``sys.path``: a ``black.py`` created there runs
    instead of the installed ``black`` at ``python -m black`` (then it is quarantined)."""
    if not _MODULE.fullmatch(module) or len(module) > 200:
        return []
    parts = module.split(".")
    names = [Path(*parts[:n], "__init__.py") for n in range(1, len(parts))]
    names += [Path(*parts).with_suffix(".py"), Path(*parts, "__init__.py"), Path(*parts, "__main__.py")]
    out: list[Path] = []
    for name in names:
        try:
            out.append(paths.resolve(name, base))
        except (paths.BadPath, OSError, ValueError):
            continue
    return out


__all__ = ["MAX_NESTING", "PACKAGE_JSON", "PYTHON_WORD", "SHELLS", "SHELL_C",
           "framework_configs", "hook_scripts", "hooked_keys", "hooked_scripts", "line_files", "module_files"]
