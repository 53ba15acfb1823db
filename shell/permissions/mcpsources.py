"""The workspace files a workspace's ``.mcp.json`` servers run: as much "runs later"
as ``.mcp.json`` itself.

A project's own MCP server is usually a file of the repository: ``python3
tools/server.py``, ``node ./mcp/server.js``, ``.venv/bin/python -m srv``. Trusting the
workspace trusted ``.mcp.json``, and the sandbox keeps that file read-only; but the
program it names was an ordinary file, which a sandboxed command (``auto``, unasked)
could change and agent-shell would then run at the next start, as the user, outside
the sandbox, with no new question (finding K10).

:func:`named_files` reads, from the bytes of one ``.mcp.json``, which paths its stdio
servers' command lines name inside the workspace: the command when it is a path (an
interpreter inside the workspace, ``./server.sh``), and each argument (or the value
of a ``--flag=value``) that is an existing file there, or that looks like a script
(``tools/server.py``, ``dist/index.js``) even before it exists. Those files are

- part of what trust fingerprints (:mod:`.trust`): a change asks again, naming them;
- runs-later files: the file tools ask before an edit (:mod:`.laterhit`), the sandbox
  binds them read-only and quarantines one a command creates (:mod:`.runslater`).

A server started as ``python3 -m tools.srv`` runs ``tools/srv.py`` (or the package's
``__init__``/``__main__``) and ``tools/__init__.py`` on the way, from its ``cwd``
(:func:`.hookscripts.module_files`, existing or not: one planted there runs first); a
folder given to an interpreter (``node tools/pkg``, ``python3 tools``) runs its
``index.js``/``package.json`` ``main`` or ``__main__.py``; ``bash -c "node tools/a.js"``
runs what its string names. Those count like a script argument (finding Q27: they were
neither fingerprinted nor guarded, so a command rewrote what the next start ran).

A server's environment loads code too (finding A12): ``"env": {"NODE_OPTIONS":
"--require ./tools/x.js"}``, ``BASH_ENV``, ``LD_PRELOAD`` … (:data:`FILE_VARS`,
:data:`OPTION_VARS`), in its ``env`` or as ``env VAR=value`` words before the command.
The files those name count like a script argument (a ``NODE_OPTIONS`` module as Node
finds it: ``-r ./tools/preload`` loads ``tools/preload.js``, or ``tools/preload/index.js``,
or a package's ``node_modules/…``: every such name counts, existing or not, finding C7;
a package's ``exports`` map is not read); the folders a search path names
(``PYTHONPATH``, ``NODE_PATH`` …: :data:`FOLDER_VARS`) count whole: trust hashes what
they hold, the sandbox binds them read-only, a file edit inside one asks
(:func:`runs_why`). A command variable (``GIT_SSH_COMMAND``) is read as a command line.
``env``'s words are read as env reads them (:mod:`.envwords`: ``-S``, ``-C dir`` is the
folder what follows is read from); one with an option env does not know names nothing,
and trust says its line could not be read (:func:`read_servers`, finding C12).

A ``bash -c`` string is read in the folders it moves into (:mod:`.cdlines`: ``cd tools &&
exec node srv.js`` runs ``tools/srv.js``; a ``cd`` to a folder not spelled out makes the line
unread; a command after ``cd DIR`` that names no file counts ``DIR`` whole), and code given
on the line (``node -e``, ``python3 -c``) for the files it spells out (:mod:`.codepaths`);
trust then says that only those are checked (finding D5).

Not followed: what such a script imports, and a whole project a launcher runs
(``uv run --directory . server``, ``npx`` of the workspace's package); ``.mcp.json``
stays the guarded file for those. ``${VAR}`` words are skipped (not known before the
start).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from . import paths
from .cdlines import read_line
from .codepaths import CODE_OPTIONS, imported_modules, interpreter, quoted_paths
from .envwords import ASSIGNMENT, read_env
from .gitcommands import command_words
from .hookscripts import MAX_NESTING, PYTHON_WORD, SHELL_C, SHELLS, module_files
from .laternames import Reason

MCP_FILE = ".mcp.json"
MAX_BYTES = 1024 * 1024
"""Of one ``.mcp.json`` read to find what it runs (a longer one: nothing found)."""
MAX_NAMED = 256
"""Files named by one ``.mcp.json`` that are followed (a Node preload alone names a dozen: C7)."""
SCRIPT_SUFFIXES = (".py", ".js", ".mjs", ".cjs", ".ts", ".mts", ".sh", ".rb", ".pl", ".php", ".jar", ".exe")
"""An argument ending so names a script even before it exists (a build makes ``dist/index.js``)."""
FOLDER_ENTRIES = ("__main__.py", "index.js", "index.mjs", "index.cjs", "package.json")
"""What an interpreter runs of a folder it is given (``python3 tools``, ``node tools/pkg``)."""
FILE_VARS = frozenset({"BASH_ENV", "ENV", "PYTHONSTARTUP", "LD_PRELOAD", "LD_AUDIT", "ZDOTDIR"})
"""Variables whose value is a file (or a list of them) the program runs or loads."""
FOLDER_VARS = frozenset({"PYTHONPATH", "NODE_PATH", "LD_LIBRARY_PATH", "PERL5LIB", "PERLLIB", "RUBYLIB",
                         "PYTHONUSERBASE", "PYTHONHOME", "GEM_PATH", "GEM_HOME", "CLASSPATH"})
"""Variables whose value is a search path: any module planted in those folders loads."""
OPTION_VARS = frozenset({"NODE_OPTIONS", "RUBYOPT", "PERL5OPT", "JAVA_TOOL_OPTIONS", "_JAVA_OPTIONS",
                         "JDK_JAVA_OPTIONS"})
"""Variables holding an interpreter's options: the files and folders those load."""
COMMAND_VARS = frozenset({"GIT_SSH_COMMAND", "GIT_SSH", "GIT_ASKPASS", "SSH_ASKPASS", "GIT_EDITOR", "EDITOR",
                          "VISUAL", "PAGER", "GIT_PAGER", "GIT_EXTERNAL_DIFF", "GIT_PROXY_COMMAND", "SHELL",
                          "BROWSER"})
"""Variables holding a command line the program may run."""
_FILE_OPTIONS = ("--require", "-r", "--import", "--loader", "--experimental-loader", "--preload")
NODE_EXTENSIONS = (".js", ".cjs", ".mjs", ".json", ".node")
"""What Node tries after a module path given without its file's own name (``-r ./tools/preload``)."""
NODE_FOLDER_ENTRIES = (*("index" + suffix for suffix in NODE_EXTENSIONS), "package.json")
"""What Node loads of a folder a module path names (its ``package.json`` ``main`` too)."""
_FOLDER_OPTIONS = ("-I",)
_AGENTS = ("-javaagent:", "-agentpath:", "-Xbootclasspath/a:")


def why(server: str) -> Reason:
    """The reason shown for a file the server ``server`` of ``.mcp.json`` runs."""
    shown = server if len(server) <= 60 else server[:60] + "…"
    when = "as you, outside the sandbox, each time agent-shell starts in this trusted workspace"
    return Reason(f"the MCP server {shown!r} of .mcp.json runs it {when}",
                  f"the MCP server {shown!r} of .mcp.json runs {when}")


def why_folder(server: str) -> Reason:
    """The reason shown for a search-path folder (``PYTHONPATH=lib``) the server ``server`` loads from."""
    shown = server if len(server) <= 60 else server[:60] + "…"
    when = "as you, outside the sandbox, each time agent-shell starts in this trusted workspace"
    how = "a search path in its env, or the folder its line moves into"
    return Reason(f"the MCP server {shown!r} of .mcp.json loads code from this folder ({how}) {when}",
                  f"is in a folder the MCP server {shown!r} of .mcp.json loads code from ({how}), {when}")


class UnreadLine(Exception):
    """A server's command line holds words this cannot read as the program will
    (an ``env`` option it does not know): what it runs is not named at all."""


def named_files(root: Path, data: bytes) -> dict[Path, Reason]:
    """Path (inside ``root``, a real path; not resolved through a last symlink) → why,
    for what the stdio servers of ``root``'s ``.mcp.json`` (its bytes ``data``) run."""
    return read_servers(root, data)[0]


def read_servers(root: Path, data: bytes) -> tuple[dict[Path, Reason], list[str]]:
    """:func:`named_files`, and a sentence for each server whose line could not be read
    (finding C12: nothing of it is named, so trust says so instead of fingerprinting a
    partial reading)."""
    if len(data) > MAX_BYTES:
        return {}, []
    try:
        parsed = json.loads(data.decode("utf-8", "replace"))
    except (ValueError, RecursionError):
        return {}, []
    servers = parsed.get("mcpServers") if isinstance(parsed, dict) else None
    found: dict[Path, Reason] = {}
    unread: list[str] = []
    for name, entry in (servers.items() if isinstance(servers, dict) else ()):
        if not isinstance(entry, Mapping) or not isinstance(entry.get("command"), str):
            continue
        folders: set[Path] = set()
        try:
            named = _named(root, entry, folders)
        except UnreadLine as exc:
            shown = str(name) if len(str(name)) <= 60 else str(name)[:60] + "…"
            unread.append(f"what the MCP server {shown!r} of .mcp.json runs could not be read ({exc}): "
                          "none of its files are checked")
            continue
        if has_code(entry):
            shown = str(name) if len(str(name)) <= 60 else str(name)[:60] + "…"
            unread.append(f"the MCP server {shown!r} of .mcp.json runs code given on its line: only the "
                          "files that code spells out in quotes are checked, not those it reaches other ways")
        for path in named:
            if len(found) >= MAX_NAMED:
                return found, unread
            found.setdefault(path, why_folder(str(name)) if path in folders else why(str(name)))
    return found, unread


def _named(root: Path, entry: Mapping[str, Any], folders: set[Path]) -> list[Path]:
    cwd = entry.get("cwd")
    base = os.path.normpath(os.path.join(root, cwd)) if isinstance(cwd, str) and cwd else str(root)
    args = entry.get("args")
    words = [str(a) for a in args] if isinstance(args, list) else []
    env = entry.get("env")
    found = _environment(root, base, env.items() if isinstance(env, Mapping) else (), 0, folders)
    return found + _line(root, base, str(entry["command"]), words, 0, folders)


def _environment(root: Path, base: str, env: Any, depth: int, folders: set[Path]) -> list[Path]:
    """What the variables ``env`` (name, value pairs) make a program load (A12); the
    search-path folders among them are added to ``folders`` too."""
    out: list[Path] = []
    for name, value in env:
        if not isinstance(value, str) or not isinstance(name, str):
            continue
        name = name.upper()
        if name in FILE_VARS:
            for word in re.split(r"[\s:]+", value):
                out += _candidate(root, base, word, must_exist=False)
        elif name in FOLDER_VARS:
            for word in value.split(":"):
                out += _folder(root, base, word or ".", folders)  # an empty entry is the current folder
        elif name in OPTION_VARS:
            out += _option_paths(root, base, command_words(value), folders, node=name == "NODE_OPTIONS")
        elif name in COMMAND_VARS and depth < MAX_NESTING:
            inner = command_words(value)
            if inner:
                out += _line(root, base, inner[0], inner[1:], depth + 1, folders)
    return out


def _option_paths(root: Path, base: str, words: list[str], folders: set[Path], *, node: bool) -> list[Path]:
    """The files (``--require x``, ``-rx``, ``-javaagent:x.jar=opts``) and folders (``-Ilib``)
    an interpreter's options load; ``node``: Node's, whose modules are found as Node finds them."""
    out: list[Path] = []
    for at, word in enumerate(words):
        following = words[at + 1] if at + 1 < len(words) else ""
        for flag in _FILE_OPTIONS + _FOLDER_OPTIONS:
            long_form = flag.startswith("--")
            if word == flag:
                value = following
            elif long_form and word.startswith(flag + "="):
                value = word[len(flag) + 1:]
            elif not long_form and word.startswith(flag) and len(word) > len(flag):
                value = word[len(flag):]
            else:
                continue
            if flag in _FOLDER_OPTIONS:
                out += _folder(root, base, value, folders)
            elif node:
                out += _module_paths(root, base, value)
            else:  # RUBYOPT's `-rjson`: a library, not a file here
                out += _candidate(root, base, value, must_exist=not value.endswith(SCRIPT_SUFFIXES))
        for agent in _AGENTS:
            if word.startswith(agent):
                value = word[len(agent):].split("=", 1)[0]
                out += _candidate(root, base, value, must_exist=False)
    return out


def _module_paths(root: Path, base: str, value: str) -> list[Path]:
    """What a preload option's module (``-r ./tools/preload``, ``--import ./x``) may load,
    read as Node reads it (finding C7): the path itself, with each of Node's extensions,
    and as a folder (its index files, its ``package.json`` ``main``), existing or not, as
    a command could make any of them; a bare name (``-r dotenv/config``) the same way in
    each ``node_modules`` from the start folder up to the workspace. An existing file of
    that very name is all Node loads."""
    if not value or "${" in value or "\0" in value or value.startswith(("-", "~")) or len(value) > 4096:
        return []
    if value.startswith(("./", "../", "/")) or value in (".", ".."):
        return _node_file_or_folder(root, base, value)
    out: list[Path] = []
    if value.endswith(SCRIPT_SUFFIXES):  # as before C7: the file of that name here
        out += _candidate(root, base, value, must_exist=False)
    folder = Path(base)
    while paths.within(folder, root):
        out += _node_file_or_folder(root, str(folder / "node_modules"), value)
        if folder == Path(root) or folder.parent == folder:
            break
        folder = folder.parent
    return out


def _node_file_or_folder(root: Path, base: str, value: str, *, follow_main: bool = True) -> list[Path]:
    """Node's ``LOAD_AS_FILE`` and ``LOAD_AS_DIRECTORY`` of ``value`` from ``base``, inside ``root``."""
    folder = os.path.join(base, value)
    exact = _candidate(root, base, value, must_exist=False)
    if not exact or (os.path.isfile(folder) and not os.path.isdir(folder)):
        return exact
    out = list(exact)  # a folder's: its entries that exist
    for suffix in NODE_EXTENSIONS:
        out += _candidate(root, base, value + suffix, must_exist=False)
    for entry in NODE_FOLDER_ENTRIES:
        out += _candidate(root, folder, entry, must_exist=False)
    main = _package_main(Path(folder) / "package.json") if follow_main else ""
    if main and os.path.normpath(main) != ".":
        out += _node_file_or_folder(root, folder, main, follow_main=False)
    return out


def _folder(root: Path, base: str, word: str, folders: set[Path]) -> list[Path]:
    """``word`` as a folder inside ``root`` (existing or not: one made later is a place to
    plant in), real; none outside, and not ``root`` itself (the whole workspace cannot be
    read-only to commands: a server with ``PYTHONPATH=.`` is not followed)."""
    if "${" in word or word.startswith("~") or "\0" in word or len(word) > 4096:
        return []
    try:
        real = Path(os.path.realpath(os.path.join(base, word)))
    except (OSError, ValueError):
        return []
    if not paths.within(real, root) or real == Path(root):
        return []
    folders.add(real)
    return [real]


def _line(root: Path, base: str, command: str, words: list[str], depth: int,
          folders: set[Path]) -> list[Path]:
    """What one command line runs: the command when it is a path, each argument that is
    a file (or a folder's entry point), a ``-m`` module's files after a Python, and what
    the string of a shell's ``-c`` runs."""
    out: list[Path] = []
    if os.path.basename(command) == "env" or ASSIGNMENT.match(command):  # `env NODE_OPTIONS=… node x`
        reading = read_env(words if not ASSIGNMENT.match(command) else [command, *words])
        if reading.unknown:
            raise UnreadLine(f"env's option {reading.unknown[:40]!r} is not one this reads")
        base = os.path.normpath(os.path.join(base, reading.chdir))  # `env -C tools`: what follows is there
        out += _environment(root, base, reading.assignments, depth, folders)
        if reading.command and depth < MAX_NESTING:
            out += _line(root, base, reading.command[0], list(reading.command[1:]), depth + 1, folders)
        return out
    if "/" in command:
        out += _candidate(root, base, command, must_exist=False)
    python = bool(PYTHON_WORD.fullmatch(command))
    shell = os.path.basename(command) in SHELLS
    runs = interpreter(command)
    at = 0
    while at < len(words):
        word = words[at]
        python = python or bool(PYTHON_WORD.fullmatch(word))  # `uv run python -m srv`
        shell = shell or os.path.basename(word) in SHELLS  # `exec sh -c '…'`
        if python and word.startswith("-m") and not word.startswith("--"):
            module = word[2:] or (words[at + 1] if at + 1 < len(words) else "")
            out += [p for p in module_files(module, Path(base)) if paths.within(p, root)]
            at += 1 if word[2:] else 2
            continue
        if shell and SHELL_C.fullmatch(word) and at + 1 < len(words):
            if depth < MAX_NESTING:
                out += _shell_string(root, base, words[at + 1], depth, folders)
            at += 2
            continue
        runs = interpreter(word) or runs  # `uv run node -e …`
        if word in CODE_OPTIONS.get(runs, ()) and at + 1 < len(words):
            out += _code(root, base, runs, words[at + 1])  # `node -e "require('./tools/q.js')"` (D5)
            at += 2
            continue
        if runs in ("ruby", "perl", "node", "bun") and word.startswith(("-r", "-I", "--require", "--import")):
            out += _option_paths(root, base, words[at:at + 2], folders, node=runs in ("node", "bun"))
        value = word.split("=", 1)[1] if word.startswith("-") and "=" in word else word
        out += _candidate(root, base, value, must_exist=not value.endswith(SCRIPT_SUFFIXES))
        at += 1
    return out


def _shell_string(root: Path, base: str, line: str, depth: int, folders: set[Path]) -> list[Path]:
    """What the string of ``sh -c`` runs, each command read in the folder the string has
    moved into (``cd tools && exec node srv.js`` runs ``tools/srv.js``: :mod:`.cdlines`,
    finding D5). A ``cd`` it cannot follow makes the line unread; a command after a ``cd``
    that names no file of its own (``cd tools && npm start``) counts that folder whole
    (a search path's way: hashed, read-only), as what runs there cannot be told."""
    reading = read_line(line, base)
    if reading.unsure:
        raise UnreadLine(f"the string of its shell: {reading.unsure}")
    out: list[Path] = []
    for part in reading.parts:
        inner = [w for w in part.words if w]  # operators and quotes are gone: code keeps its own
        if not inner:
            continue
        named = _line(root, part.folder, inner[0], inner[1:], depth + 1, folders)
        if not named and part.moved:
            named = _folder(root, part.folder, ".", folders)
        out += named
    return out


def _code(root: Path, base: str, runs: str, code: str) -> list[Path]:
    """The files the code given to an interpreter (``node -e``, ``python -c``) spells out
    (:mod:`.codepaths`): quoted paths (Node's as Node resolves a module), Python's imports."""
    out: list[Path] = []
    for name in quoted_paths(code):
        if runs in ("node", "bun", "deno"):
            out += _module_paths(root, base, name)
        else:
            out += _candidate(root, base, name, must_exist=False)
    if runs == "python":
        for module in imported_modules(code):
            out += [p for p in module_files(module, Path(base)) if paths.within(p, root)]
    return out


def has_code(entry: Mapping[str, Any]) -> bool:
    """Whether a server's line gives an interpreter code to run (``node -e``, ``python -c``),
    also inside a shell's string (``bash -c "node -e '…'"``)."""
    args = entry.get("args")
    words = [str(entry.get("command", "")), *(a for a in args if isinstance(a, str))] if isinstance(
        args, list) else [str(entry.get("command", ""))]
    for _ in range(MAX_NESTING + 1):
        runs = ""
        for word in words:
            runs = interpreter(word) or runs
            if runs and word in CODE_OPTIONS.get(runs, ()):
                return True
        words = [inner for word in words if " " in word for inner in command_words(word)]
    return False


def _candidate(root: Path, base: str, word: str, *, must_exist: bool) -> list[Path]:
    """``word`` as a file inside ``root`` (and where it leads, if that is inside too)."""
    if not word or "${" in word or word.startswith(("-", "~")) or "\0" in word or len(word) > 4096:
        return []
    lexical = Path(os.path.normpath(os.path.join(base, word)))
    if not paths.within(lexical, root):
        return []
    try:
        path = Path(os.path.realpath(lexical.parent)) / lexical.name  # the folders real, the name as is
    except (OSError, ValueError):
        return []
    if not paths.within(path, root):
        return []
    if os.path.isdir(path):
        return _folder_runs(root, path)
    if must_exist and not os.path.lexists(path):
        return []
    out = [path]
    if os.path.islink(path):
        target = Path(os.path.realpath(path))
        if paths.within(target, root) and not os.path.isdir(target):
            out.append(target)
    return out


def _folder_runs(root: Path, folder: Path) -> list[Path]:
    """What an interpreter runs of a folder (``node tools/pkg``: its ``index.js`` or
    ``package.json``'s ``main``; ``python3 tools``: its ``__main__.py``), inside ``root``."""
    try:
        real = Path(os.path.realpath(folder))
    except (OSError, ValueError):
        return []
    if not paths.within(real, root):
        return []
    out = [real / name for name in FOLDER_ENTRIES if os.path.isfile(real / name)]
    main = _package_main(real / "package.json")
    if main and not os.path.isdir(os.path.join(real, main)):  # `"main": "."` leads back here
        out += _candidate(root, str(real), main, must_exist=False)
    return out


def _package_main(package: Path) -> str:
    """The ``main`` a folder's ``package.json`` names ("" when none or unreadable)."""
    try:
        with open(package, "rb") as fh:
            text = fh.read(MAX_BYTES).decode("utf-8", "replace")
        data = json.loads(text.removeprefix("\ufeff"))  # Node strips a byte-order mark
    except (OSError, ValueError, RecursionError):
        return ""
    main = data.get("main") if isinstance(data, dict) else None
    return main if isinstance(main, str) and not os.path.isabs(main) else ""


FOLDER_FILES = 2000
"""Files of a search-path folder that trust hashes (more: the rest is a mark, and any change there asks)."""


def folder_print(folder: Path) -> bytes:
    """What trust hashes of a search-path folder a server loads from: each file's name
    and content hash (links by target), in order, bounded by :data:`FOLDER_FILES`."""
    lines = [b"<folder>"]
    for dirpath, dirnames, filenames in os.walk(folder, followlinks=False):
        dirnames.sort()
        for name in sorted(filenames) + [d for d in dirnames if os.path.islink(os.path.join(dirpath, d))]:
            if len(lines) > FOLDER_FILES:
                return b"\n".join([*lines, b"<more files than are hashed>"])
            path = os.path.join(dirpath, name)
            relative = os.path.relpath(path, folder).encode("utf-8", "surrogateescape")
            lines.append(relative + b" " + _file_print(path).encode())
    return b"\n".join(lines)


def _file_print(path: str) -> str:
    try:
        if os.path.islink(path):
            return "-> " + os.readlink(path)
        if not os.path.isfile(path):
            return "<not a regular file>"
        digest = hashlib.sha256()
        with open(path, "rb") as fh:
            for block in iter(lambda: fh.read(1 << 16), b""):
                digest.update(block)
        return digest.hexdigest()
    except OSError as exc:
        return f"<unreadable: {exc.strerror or exc}>"


def runs_why(runs: Mapping[Path, Reason], real: Path, roots: Sequence[Path]) -> Reason | None:
    """Why ``real`` runs, by ``runs`` (:func:`mcp_runs`): itself, or a folder above it a
    server's search path names (``PYTHONPATH=lib``: ``lib/x.py`` loads)."""
    part = real
    while True:
        if part in runs:
            return runs[part]
        if part in roots or part.parent == part:
            return None
        part = part.parent


def mcp_runs(roots: Sequence[Path]) -> dict[Path, Reason]:
    """What the ``.mcp.json`` right in each root runs (see :func:`named_files`)."""
    found: dict[Path, Reason] = {}
    for root in roots:
        try:
            with open(root / MCP_FILE, "rb") as fh:
                data = fh.read(MAX_BYTES + 1)
        except OSError:
            continue
        for path, reason in named_files(root, data).items():
            found.setdefault(path, reason)
    return found


__all__ = ["COMMAND_VARS", "FILE_VARS", "FOLDER_VARS", "MCP_FILE", "OPTION_VARS", "folder_print", "mcp_runs",
           "UnreadLine", "named_files", "read_servers", "runs_why", "why", "why_folder"]
